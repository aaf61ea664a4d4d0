"""Time rankkit.fuse against ranx's fuse: R runs x N queries x M documents, RRF and CombSUM.

Synthetic, seeded runs (hybrid retrieval's shape: every run draws its M documents of a
query from the same pool of 2 M, so the runs overlap; scores are normal, no ties), built in
memory. Two measures:

- in process: ``rk.fuse(frames)`` against ``ranx.fuse(Runs)`` on inputs built beforehand,
  CPU and wall time; ranx's numba compilation (its first call) is timed apart, on a small
  run, and left out of its figure;
- whole process: ``rankkit fuse RUN ... -o OUT`` against ``python -c`` reading the same TREC
  files with ranx (``Run.from_file``), fusing and saving a TREC run: start-up, numba's
  warm-up (cached after the first call) and reading included. The fused files are compared.

    python benchmarks/bench_fusion.py [--runs 10] [--queries 10000] [--docs 1000] [--method rrf]
    python benchmarks/bench_fusion.py --rankkit-only    # sizes where ranx does not fit in memory

ranx holds about 5 GB per 10 million (query, document) entries here, so the full 10 x 10,000
x 1,000 (100 million) is out of its reach on a 23 GB machine; ``--rankkit-only`` times rankkit
alone (in process and ``rankkit fuse``).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import rankkit as rk
from rankkit.fusion import trec_lines

RANX_SCRIPT = """
import sys
from ranx import Run, fuse
paths, method, norm, out = sys.argv[1:-3], sys.argv[-3], sys.argv[-2], sys.argv[-1]
runs = [Run.from_file(p, kind="trec") for p in paths]
fuse(runs, norm=None if norm == "none" else norm, method=method).save(out, kind="trec")
"""


def frames(n_runs: int, n_queries: int, n_docs: int, seed: int = 0) -> list[pd.DataFrame]:
    """R runs as rankkit frames, each query's documents in score order."""
    rng = np.random.default_rng(seed)
    query = np.repeat(np.arange(n_queries), n_docs)
    qids = pd.Categorical.from_codes(query, categories=[f"q{i}" for i in range(n_queries)])
    out = []
    for _ in range(n_runs):
        # M of the query's 2 M pool documents: a random key per pool document, the M smallest
        keys = rng.random((n_queries, 2 * n_docs))
        picked = np.argpartition(keys, n_docs, axis=1)[:, :n_docs]
        score = -np.sort(-rng.normal(size=(n_queries, n_docs)), axis=1)
        doc = (np.arange(n_queries)[:, None] * 2 * n_docs + picked).ravel()
        out.append(rk.read_run(pd.DataFrame({"query_id": qids, "doc_id": pd.array(
            np.char.add("d", doc.astype(str)), dtype="string[pyarrow]"), "score": score.ravel()})))
    return out


def to_ranx(frame: pd.DataFrame):
    from ranx import Run

    return Run.from_df(frame.astype({"query_id": object, "doc_id": object}), q_id_col="query_id",
                       doc_id_col="doc_id", score_col="score")


def timed(fn):
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def in_process(runs: list[pd.DataFrame], method: str, norm: str | None) -> dict:
    from ranx import fuse

    small = [to_ranx(f[f.query_id.isin(["q0", "q1"])]) for f in runs]
    _, warm_cpu, warm_wall = timed(lambda: fuse(small, norm=norm, method=method))
    ranx_runs = [to_ranx(f) for f in runs]
    theirs, r_cpu, r_wall = timed(lambda: fuse(ranx_runs, norm=norm, method=method))
    ours, k_cpu, k_wall = timed(lambda: rk.fuse(runs, method=method, norm=norm))
    q = ours.query_id.iloc[0]
    mine = dict(zip(ours.doc_id[ours.query_id == q], ours.score[ours.query_id == q]))
    assert mine == dict(theirs[q]), "rankkit and ranx differ on the first query"
    return {"warm": (warm_cpu, warm_wall), "ranx": (r_cpu, r_wall), "rankkit": (k_cpu, k_wall)}


def whole_process(runs: list[pd.DataFrame], method: str, norm: str | None, folder: Path) -> dict:
    paths = []
    for i, frame in enumerate(runs):
        path = folder / f"run{i}.txt"
        with open(path, "w") as f:
            for block in trec_lines(frame, f"run{i}"):
                f.write(block)
        paths.append(str(path))
    norm_arg = "none" if norm is None else norm
    commands = {
        "rankkit": [sys.executable, "-m", "rankkit", "fuse", *paths, "-m", method, "--norm", norm_arg,
                    "-o", str(folder / "rankkit.out")],
        "ranx": [sys.executable, "-c", RANX_SCRIPT, *paths, method, norm_arg, str(folder / "ranx.out")],
    }
    subprocess.run(commands["ranx"][:3] + [paths[0], paths[1], method, norm_arg, str(folder / "w")], check=True)
    times = {}
    for name, command in commands.items():
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        subprocess.run(command, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times[name] = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
                       time.perf_counter() - wall, after.ru_maxrss)
    ours = rk.read_run(str(folder / "rankkit.out"))
    theirs = rk.read_run(str(folder / "ranx.out"))
    key = ["query_id", "doc_id"]
    merged = ours.astype({"query_id": str}).merge(theirs.astype({"query_id": str}), on=key)
    assert len(merged) == len(ours) == len(theirs) and (merged.score_x == merged.score_y).all()
    return times


def rankkit_alone(runs: list[pd.DataFrame], method: str, norm: str | None) -> None:
    _, cpu, wall = timed(lambda: rk.fuse(runs, method=method, norm=norm))
    print(f"in process   rankkit                            cpu {cpu:7.2f} s  wall {wall:7.2f} s")
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i, frame in enumerate(runs):
            paths.append(str(Path(folder) / f"run{i}.txt"))
            with open(paths[-1], "w") as f:
                for block in trec_lines(frame, f"run{i}"):
                    f.write(block)
        del runs[:]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        subprocess.run([sys.executable, "-m", "rankkit", "fuse", *paths, "-m", method, "--norm",
                        "none" if norm is None else norm, "-o", str(Path(folder) / "out")], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"whole process rankkit fuse                      cpu "
          f"{after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime:7.2f} s  "
          f"wall {time.perf_counter() - wall:7.2f} s  peak {after.ru_maxrss / 2**20:.1f} GB")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--method", default="rrf")
    parser.add_argument("--norm", default="min-max")
    parser.add_argument("--skip", choices=("in-process", "whole-process"), default=None)
    parser.add_argument("--rankkit-only", action="store_true", help="time rankkit alone")
    args = parser.parse_args(argv)
    norm = None if args.norm == "none" else args.norm
    print(f"{args.runs} runs x {args.queries:,} queries x {args.docs:,} documents, {args.method}, norm={norm}, "
          f"{os.cpu_count()} CPUs")
    runs = frames(args.runs, args.queries, args.docs)
    if args.rankkit_only:
        rankkit_alone(runs, args.method, norm)
        return
    if args.skip != "in-process":
        t = in_process(runs, args.method, norm)
        print(f"in process   ranx's numba warm-up (first call)  cpu {t['warm'][0]:7.2f} s  wall {t['warm'][1]:7.2f} s")
        for name in ("ranx", "rankkit"):
            print(f"in process   {name:<34} cpu {t[name][0]:7.2f} s  wall {t[name][1]:7.2f} s")
        print(f"in process   ranx / rankkit                     cpu {t['ranx'][0] / t['rankkit'][0]:7.1f} x "
              f" wall {t['ranx'][1] / t['rankkit'][1]:7.1f} x")
    if args.skip != "whole-process":
        with tempfile.TemporaryDirectory() as folder:
            t = whole_process(runs, args.method, norm, Path(folder))
        for name in ("ranx", "rankkit"):
            print(f"whole process {name:<33} cpu {t[name][0]:7.2f} s  wall {t[name][1]:7.2f} s")
        print(f"whole process ranx / rankkit                    cpu {t['ranx'][0] / t['rankkit'][0]:7.1f} x "
              f" wall {t['ranx'][1] / t['rankkit'][1]:7.1f} x")


if __name__ == "__main__":
    main()
