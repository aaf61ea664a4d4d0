"""Where the time of ``rankkit evaluate`` goes as a whole process: start-up, imports, phases, exit.

A user who runs the command in a shell loop over hundreds of runs pays, every time, for the
interpreter's start, the imports, reading, the join, the metrics, printing and the
interpreter's exit. Each figure comes from fresh processes (medians of ``--rounds``, the
commands interleaved round by round):

1. **imports**: ``python -c "import X"`` for each layer the command stands on (nothing,
   numpy, numpy + pyarrow with the modules rankkit uses, pandas, scipy.stats, ``rankkit``,
   ``rankkit.cli``), wall and CPU seconds.
2. **what the command imports**: ``python -X importtime -m rankkit evaluate`` on the example
   files: the heaviest packages (cumulative), rankkit's own modules, and for pandas and scipy
   whether the command imports them at all and, if so, through which chain of modules.
3. **phases**: one instrumented process per data set: interpreter start, ``import
   rankkit.cli``, reading the judgments, reading the run (a thread reads blocks ahead, so
   its time overlaps the join's), the join, the metrics, the ``all`` line, printing (to a
   file), the rest of ``main`` (argument parsing, measure names), and the interpreter's exit.
   Phases are found by wrapping functions of the command's path (the frames' path, or the
   arrays' path of :func:`rankkit.trec_eval.trec_eval_text`, which formats the lines within
   "evaluate"); a function a checkout does not have shows ``-``. The process sets up as the
   entry point does for ``evaluate`` (one OpenBLAS thread, pandas hidden from pyarrow).
4. **the command**: ``rankkit evaluate -q`` with five measures (trec_eval's names), output
   to a file, on the example files (``-c``) and on 10,000 queries x 1,000 documents; the
   console script, or ``python -m rankkit`` with ``--module``.

Children run without PYTHONDONTWRITEBYTECODE and PYTHONUNBUFFERED, as in a user's shell,
after one run of the command that writes the bytecode. ``--checkout DIR`` measures the
``rankkit`` of another working copy (``PYTHONPATH=DIR``) with this environment's packages,
e.g. a prototype next to the current code.

    python benchmarks/bench_startup.py                         # all four sections
    python benchmarks/bench_startup.py --rounds 20 --no-large  # example files only
    python benchmarks/bench_startup.py --checkout /tmp/proto --sections command

The 10,000 x 1,000 files are those of ``bench_evaluate.py`` (``generate.py``, written into
``benchmarks/_data/`` when missing). Standard library only in this process.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLE = (HERE.parent / "data" / "example.qrels", HERE.parent / "data" / "example.run")
MEASURES = ["ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"]  # bench_evaluate.py's five
SECTIONS = ("imports", "importtime", "phases", "command")

LAYERS = {
    "python (nothing imported)": "pass",
    "numpy": "import numpy",
    "numpy + pyarrow (lib, compute, csv)": "import numpy, pyarrow, pyarrow.compute, pyarrow.csv",
    "pandas (numpy and pyarrow with it)": "import pandas",
    "scipy.stats": "import scipy.stats",
    "import rankkit": "import rankkit",
    "import rankkit.cli": "import rankkit.cli",
}

# Runs in the measured process (python -c): the command's own main(), with its phases timed
# by wrapping the functions of its path that exist. Prints one JSON line on stderr.
PHASES_CHILD = r"""
import json, os, sys, threading, time
started = time.time()
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the entry point sets it for evaluate
t = time.perf_counter()
import rankkit.cli as cli
imports = time.perf_counter() - t
getattr(cli, "hide_pandas", lambda: None)()  # as the entry point does (a checkout may not have it)
import importlib
spent, lock = {}, threading.Lock()

def add(label, seconds):
    with lock:
        spent[label] = spent.get(label, 0.0) + seconds

def wrap(module, name, label):
    try:
        owner = importlib.import_module(module)
    except ImportError:
        return
    fn = getattr(owner, name, None)
    if fn is None:
        return
    def timed(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            add(label, time.perf_counter() - t)
    setattr(owner, name, timed)

def wrap_generator(module, cls, name, label):
    try:
        owner = getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError):
        return
    fn = getattr(owner, name, None)
    if fn is None:
        return
    def timed(self, *a, **k):
        it = fn(self, *a, **k)
        while True:
            t = time.perf_counter()
            try:
                item = next(it)
            except StopIteration:
                add(label, time.perf_counter() - t)
                return
            add(label, time.perf_counter() - t)
            yield item
    setattr(owner, name, timed)

# Both readers (the pipeline after them is one): the frames' (evaluate_like_trec_eval, then
# _write prints) and the arrays' (trec_eval_text, which also formats the lines; the command
# then writes them at once).
for module, name, label in [
        ("rankkit.trec_eval", "read_qrels", "read judgments"),
        ("rankkit.io.readers", "read_qrels", "read judgments"),
        ("rankkit.evaluation.frameless", "file_judgments", "read judgments"),
        ("rankkit.evaluation.pipeline", "rank_arrays", "join"),
        ("rankkit.trec_eval", "_trec_values", "metrics"),
        ("rankkit.trec_eval", "aggregate", "all line"),
        ("rankkit.evaluation.scoring", "aggregate", "all line"),
        ("rankkit.trec_eval", "aggregate_column", "all line"),
        ("rankkit.evaluation.pipeline", "_in_trec_order", "blocks put together"),
        ("rankkit.cli", "_write", "print"),
        ("rankkit.cli", "evaluate_like_trec_eval", "evaluate (all of the above but print)"),
        ("rankkit.cli", "trec_eval_text", "evaluate (all of the above but print)")]:
    wrap(module, name, label)
wrap_generator("rankkit.io", "RunFile", "grouped", "read run (reader thread)")
wrap_generator("rankkit.evaluation.frameless", "_RunBlocks", "__iter__", "read run (reader thread)")
with open(sys.argv[1], "w") as out:
    t = time.perf_counter()
    status = cli.main(sys.argv[2:], out=out)
    spent["main"] = time.perf_counter() - t
    out.flush()
    sys.stderr.write("\nPHASES " + json.dumps({"started": started, "imports": imports, "spent": spent,
                                              "status": status, "ended": time.time()}) + "\n")
"""


# --------------------------------------------------------------------------- running children

# Children run in an empty folder: ``python -m`` and ``-c`` put the working directory first on
# sys.path, where a checkout's own ``rankkit`` folder would win over ``--checkout``.
NEUTRAL = tempfile.mkdtemp(prefix="rankkit-startup-cwd-")


def run(argv: list[str], env: dict, stdout=subprocess.DEVNULL) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall seconds, CPU seconds of the child, the finished process) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=stdout, stderr=subprocess.PIPE, text=True, cwd=NEUTRAL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise RuntimeError(f"exit status {done.returncode}: {' '.join(argv)}\n{done.stderr[-2000:]}")
    return wall, cpu, done


def rankkit_command(module: bool = False) -> list[str]:
    """The console script next to this interpreter (as a user runs it), else (or with
    ``module``) ``python -m rankkit``."""
    script = Path(sys.executable).with_name("rankkit")
    return [str(script)] if script.is_file() and not module else [sys.executable, "-m", "rankkit"]


def evaluate_args(qrels: Path, run_file: Path, complete: bool) -> list[str]:
    measures = [arg for m in MEASURES for arg in ("-m", m)]
    return ["evaluate", "-q", *(["-c"] if complete else []), *measures, str(qrels), str(run_file)]


def medians(rows: dict[str, list[tuple[float, float]]]) -> None:
    print(f"  {'':<44} {'wall s':>8} {'CPU s':>8}   (wall, each round)")
    for name, runs in rows.items():
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        each = " ".join(f"{w:.3f}" for w, _ in runs)
        print(f"  {name:<44} {wall:8.3f} {cpu:8.3f}   ({each})")


# --------------------------------------------------------------------------- sections

def section_imports(args, env: dict, out: dict) -> None:
    print(f"\n[imports] fresh processes, median of {args.rounds}", flush=True)
    rows: dict[str, list[tuple[float, float]]] = {name: [] for name in LAYERS}
    for _ in range(args.rounds):
        for name, code in LAYERS.items():
            wall, cpu, _ = run([sys.executable, "-c", code], env)
            rows[name].append((wall, cpu))
    medians(rows)
    out["imports"] = rows


def importtime(argv: list[str], env: dict) -> list[tuple[int, int, int, str]]:
    """``-X importtime`` of a command: (depth, self us, cumulative us, module) per import."""
    _, _, done = run([sys.executable, "-X", "importtime", *argv], env)
    rows = []
    for line in done.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((len(m.group(3)) // 2, int(m.group(1)), int(m.group(2)), m.group(4)))
    return rows


def chain(rows: list[tuple[int, int, int, str]], module: str) -> list[str] | None:
    """The modules through which ``module`` was first imported, outermost last (importtime
    prints a module after everything it imported, one level of indentation deeper). None if
    not loaded: a package (pandas, scipy) loaded brings submodules; importtime's row of the
    package alone is an attempt that failed (pandas hidden by the entry point)."""
    if not any(name.startswith(module + ".") for *_, name in rows):
        return None
    for i, (depth, _, _, name) in enumerate(rows):
        if name == module:
            found, want = [name], depth - 1
            for d, _, _, parent in rows[i + 1:]:
                if d == want:
                    found.append(parent)
                    want -= 1
            return found
    return None


def section_importtime(args, env: dict, out: dict) -> None:
    argv = ["-m", "rankkit", *evaluate_args(*EXAMPLE, complete=True)]
    print("\n[what the command imports] python -X importtime -m rankkit evaluate -q -c ... data/example.*",
          flush=True)
    rows = importtime(argv, env)
    top = sorted((r for r in rows if r[0] == 1 or "." not in r[3]), key=lambda r: -r[2])
    packages = {}
    for _depth, _, cumulative, name in rows:
        root = name.split(".")[0]
        if name == root and root not in packages:
            packages[root] = cumulative
    print(f"  {len(rows)} modules imported; largest packages (cumulative, first import):")
    for name, us in sorted(packages.items(), key=lambda kv: -kv[1])[:8]:
        print(f"    {name:<28} {us / 1e3:7.1f} ms")
    own = [(name, self_us, cumulative) for _, self_us, cumulative, name in rows if name.startswith("rankkit")]
    print("  rankkit's modules (own time, cumulative with what they imported first):")
    for name, self_us, cumulative in own:
        print(f"    {name:<28} {self_us / 1e3:7.1f} ms {cumulative / 1e3:8.1f} ms")
    found = {}
    for module in ("pandas", "scipy", "matplotlib"):
        path = chain(rows, module)
        found[module] = path
        said = "not imported" if path is None else "imported by " + " <- ".join(path[1:])
        print(f"  {module:<10} {said}")
    out["importtime"] = {"modules": len(rows), "packages": packages, "rankkit": own, "chains": found,
                         "top": top[:20]}


def phases(argv_tail: list[str], env: dict, output: Path) -> dict:
    """One instrumented run: the phases measured inside, start-up and exit from outside."""
    started = time.time()
    _, _, done = run([sys.executable, "-c", PHASES_CHILD, str(output), *argv_tail], env)
    ended = time.time()
    line = next(x for x in done.stderr.splitlines() if x.startswith("PHASES "))
    p = json.loads(line[len("PHASES "):])
    spent = p["spent"]
    inner = spent.get("evaluate (all of the above but print)", 0.0)
    return {"interpreter start": p["started"] - started, "import rankkit.cli": p["imports"],
            **{k: v for k, v in spent.items() if k != "main"},
            "rest of main (arguments, measures)": spent["main"] - inner - spent.get("print", 0.0),
            "interpreter exit": ended - p["ended"], "whole process": ended - started}


def section_phases(args, env: dict, out: dict) -> None:
    print(f"\n[phases] one instrumented process per run, median of {args.rounds} (seconds)", flush=True)
    data = {"data/example.* -c": evaluate_args(*EXAMPLE, complete=True)}
    if args.large:
        data[f"{args.queries:,}x{args.docs:,} -q"] = evaluate_args(*large_files(args), complete=False)
    results = {}
    with tempfile.TemporaryDirectory(prefix="rankkit-startup-") as tmp:
        for label, argv in data.items():
            rounds = args.rounds if label.startswith("data/") else args.large_rounds
            runs = [phases(argv, env, Path(tmp) / "out.txt") for _ in range(rounds)]
            results[label] = {k: statistics.median(r.get(k, float("nan")) for r in runs) for k in runs[0]}
    labels = list(dict.fromkeys(k for r in results.values() for k in r))
    print(f"  {'phase':<40}" + "".join(f"{label:>22}" for label in results))
    for k in labels:
        print(f"  {k:<40}" + "".join(f"{r[k]:22.3f}" if k in r else f"{'-':>22}" for r in results.values()))
    out["phases"] = results


def section_command(args, env: dict, out: dict) -> None:
    print("\n[the command] rankkit evaluate -q, five measures, output to a file, fresh processes", flush=True)
    command = rankkit_command(args.module)
    data = {"data/example.* -c": (evaluate_args(*EXAMPLE, complete=True), args.rounds)}
    if args.large:
        data[f"{args.queries:,}x{args.docs:,} -q"] = (evaluate_args(*large_files(args), complete=False),
                                                      args.large_rounds)
    rows: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="rankkit-startup-") as tmp:
        for label, (argv, rounds) in data.items():
            rows[label] = []
            for _ in range(rounds):
                with open(Path(tmp) / "out.txt", "w") as f:
                    wall, cpu, _ = run([*command, *argv], env, stdout=f)
                rows[label].append((wall, cpu))
    medians(rows)
    out["command"] = rows


def large_files(args) -> tuple[Path, Path]:
    qrels = args.data / f"qrels_{args.queries}x{args.docs}_short.txt"
    run_file = args.data / f"run_{args.queries}x{args.docs}_short.txt"
    if not (qrels.is_file() and run_file.is_file()):
        print(f"generating {qrels.name}, {run_file.name} in {args.data} ...", flush=True)
        subprocess.run([sys.executable, str(HERE / "generate.py"), "-n", str(args.queries), "-m", str(args.docs),
                        "--ids", "short", "--out", str(args.data)], check=True)
    return qrels, run_file


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated, of {','.join(SECTIONS)} (all)")
    parser.add_argument("--rounds", type=int, default=10, help="fresh processes per figure (10)")
    parser.add_argument("--large-rounds", type=int, default=3, help="... on the large files (3)")
    parser.add_argument("--no-large", dest="large", action="store_false", help="the example files only")
    parser.add_argument("--queries", type=int, default=10_000, help="large files: queries (10,000)")
    parser.add_argument("--docs", type=int, default=1_000, help="large files: documents per query (1,000)")
    parser.add_argument("--data", type=Path, default=HERE / "_data", help="data folder (benchmarks/_data)")
    parser.add_argument("--checkout", type=Path, help="measure the rankkit of this working copy (PYTHONPATH)")
    parser.add_argument("--module", action="store_true",
                        help="run the command as python -m rankkit, not the console script")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    args.data = args.data.resolve()
    sections = [s for s in args.sections.split(",") if s]
    bad = [s for s in sections if s not in SECTIONS]
    if bad or args.rounds < 1 or args.large_rounds < 1:
        parser.error(f"--sections must name some of {','.join(SECTIONS)} and rounds be >= 1, got {args.sections!r}")
    # As in a user's shell: bytecode written and read (an editable checkout's modules are
    # otherwise compiled at every start), standard output buffered.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED")}
    if args.checkout is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(args.checkout.resolve()), *filter(None, [env.get("PYTHONPATH")])])
    where = run([sys.executable, "-c", "import rankkit; print(rankkit.__file__)"], env, stdout=subprocess.PIPE)
    run([*rankkit_command(args.module), *evaluate_args(*EXAMPLE, complete=True)], env)  # writes bytecode
    load = os.getloadavg()[0]
    print(f"rankkit from {Path(where[2].stdout.strip()).parent}; Python {sys.version.split()[0]}; "
          f"{os.cpu_count()} CPUs; load average {load:.1f}")
    out: dict = {"load_before": load}
    for name in SECTIONS:
        if name in sections:
            globals()[f"section_{name}"](args, env, out)
    out["load_after"] = os.getloadavg()[0]
    print(f"\nload average {load:.1f} before, {out['load_after']:.1f} after (1 min)")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=str))
    os.rmdir(NEUTRAL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
