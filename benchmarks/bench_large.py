"""Runs larger than memory: ``rankkit evaluate`` reading the run block by block.

For each size (``--lines``, in millions: 10 and 30 by default; 1,000 documents per query),
one process per command, each measured by a small helper interpreter (its children's peak
resident memory and wall time):

- ``rankkit evaluate -q`` with the default bound (480 MiB) and with ``--memory`` of each
  ``--bounds``; the in-memory path (``read_run`` of the whole file, then the same
  evaluation and lines), the base of the ratios;
- the same on a shuffled copy of the run (lines not grouped by query: the partitioned
  path), at the first size only (``--shuffled``);
- trec_eval 10 when a ``trec_eval`` binary is on ``PATH``.

Every command's output is compared byte for byte with the first one's. Prints seconds,
CPU seconds, peak MB, bytes per run line and ratios; ``--json`` saves them. Below ~250 MB
of run (7 million lines) the blocks are sized by the run, not the bound
(:func:`rankkit.evaluation.memory.block_size`): ``--lines 1,3`` shows peaks that follow
the input.

    python benchmarks/bench_large.py                       # 10M and 30M lines
    python benchmarks/bench_large.py --lines 1 --bounds 300MB --repeat 1   # a quick look
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_evaluate import ensure_data  # noqa: E402

MEASURES = ["-m", "ndcg_cut.10", "-m", "map", "-m", "recip_rank", "-m", "P.10", "-m", "recall.100"]

# Runs one command with its standard output to a file; prints the children's peak memory,
# the wall time and the CPU time (user + system: on a shared machine, steadier than the
# wall). Started with -I -S so that its own size (the floor of ru_maxrss a child inherits
# on Linux) stays small.
HELPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
with open(sys.argv[1], "wb") as out:
    subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL, check=True)
seconds = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
print(json.dumps({"peak_bytes": peak, "seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime}))
"""


# The path a run held whole takes: read_run of the file (one frame), then the same
# evaluation and the same lines as `rankkit evaluate -q`.
IN_MEMORY = """
import sys
import rankkit as rk
from rankkit.trec_eval import evaluate_like_trec_eval, trec_lines, trec_measures
columns = trec_measures(["ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"])
table, summary = evaluate_like_trec_eval(sys.argv[1], rk.read_run(sys.argv[2]), columns)
sys.stdout.writelines(line + "\\n" for line in trec_lines(table, summary, per_query=True))
"""


def measure(command: list[str], out: Path) -> dict:
    result = subprocess.run([sys.executable, "-I", "-S", "-c", HELPER, str(out), *command],
                            check=True, capture_output=True, text=True)
    measured = json.loads(result.stdout)
    measured["md5"] = hashlib.md5(out.read_bytes()).hexdigest()
    return measured


def shuffled_copy(run: Path) -> Path:
    """The run's lines in a random order (seed fixed), next to it."""
    target = run.with_name(run.stem + "_shuffled.txt")
    if not target.is_file():
        print(f"shuffling {run.name} ...", flush=True)
        with open(target, "wb") as out:
            subprocess.run(["shuf", "--random-source=" + str(run), str(run)], stdout=out, check=True)
    return target


def commands(qrels: Path, run: Path, bounds: list[str]) -> dict[str, list[str]]:
    rankkit = [sys.executable, "-m", "rankkit", "evaluate", str(qrels), str(run), "-q", *MEASURES]
    out = {"rankkit (default 480MiB)": rankkit}
    for bound in bounds:
        out[f"rankkit --memory {bound}"] = [*rankkit, "--memory", bound]
    out["rankkit in memory (read_run whole)"] = [sys.executable, "-c", IN_MEMORY, str(qrels), str(run)]
    if shutil.which("trec_eval"):
        out["trec_eval 10"] = ["trec_eval", "-q", *MEASURES, str(qrels), str(run)]
    return out


def report(size: str, rows: dict[str, dict], lines: int) -> None:
    base = rows["rankkit in memory (read_run whole)"]
    print(f"\n{size}: {lines:,} run lines")
    print(f"{'command':<34} {'seconds':>8} {'CPU s':>7} {'peak MB':>8} {'B/line':>7} {'time x':>7} {'peak x':>7}"
          "  output")
    first = next(iter(rows.values()))["md5"]
    for name, m in rows.items():
        same = "same" if m["md5"] == first else "DIFFERS"
        print(f"{name:<34} {m['seconds']:8.2f} {m['cpu']:7.2f} {m['peak_bytes'] / 1e6:8.0f} "
              f"{m['peak_bytes'] / lines:7.1f} "
              f"{m['seconds'] / base['seconds']:7.2f} {m['peak_bytes'] / base['peak_bytes']:7.2f}  {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", default="10,30", help="run sizes in millions of lines (1,000 per query)")
    parser.add_argument("--bounds", default="256MB,1GB", help="--memory values besides the default")
    parser.add_argument("--shuffled", action=argparse.BooleanOptionalAction, default=True,
                        help="also a shuffled copy of the first size's run")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each command (the fastest is kept)")
    parser.add_argument("--data", type=Path, default=HERE / "_data")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    bounds = [b for b in args.bounds.split(",") if b]
    results = {}
    for i, millions in enumerate(float(x) for x in args.lines.split(",")):
        queries = int(millions * 1000)
        qrels, run = ensure_data(queries, 1000, args.data)
        lines = queries * 1000
        runs = {"grouped": run}
        if args.shuffled and i == 0:
            runs["shuffled"] = shuffled_copy(run)
        for kind, path in runs.items():
            rows = {}
            for name, command in commands(qrels, path, bounds if kind == "grouped" else []).items():
                with tempfile.NamedTemporaryFile(suffix=".out") as out:
                    tries = [measure(command, Path(out.name)) for _ in range(args.repeat)]
                rows[name] = min(tries, key=lambda m: m["seconds"])
                rows[name]["peak_bytes"] = min(m["peak_bytes"] for m in tries)
                rows[name]["cpu"] = sorted(m["cpu"] for m in tries)[len(tries) // 2]  # the median
                print(f"  {kind} {name}: {rows[name]['seconds']:.2f} s, {rows[name]['peak_bytes'] / 1e6:.0f} MB",
                      flush=True)
            label = f"{millions:g}M lines, {kind}"
            report(label, rows, lines)
            results[label] = rows
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
