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
    python benchmarks/bench_fusion.py --runs 3 --queries 1000 --docs 100 --table   # one line a method

``--table`` times every learned method (trained on the fused runs' own queries with seeded
judgments: ranx's ``optimize_fusion`` or ``*_train`` then ``fuse``, against ``rk.fuse(...,
qrels=...)``; probfuse with 10 segments, slidefuse with a window of 5) and Condorcet, in
process, and checks that both libraries give the same run (Condorcet: on the queries where
ranx's order does not depend on a Python set's, which the check skips otherwise).

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


def judgments(runs: list[pd.DataFrame], seed: int = 1) -> dict:
    """Seeded judgments of every query: a tenth of the pool's documents, labels 0-2."""
    rng = np.random.default_rng(seed)
    first = runs[0]
    n_queries = len(first.query_id.cat.categories)
    n_docs = len(first) // n_queries
    qrels = {}
    for q in range(n_queries):
        docs = rng.choice(2 * n_docs, max(1, n_docs // 5), replace=False) + q * 2 * n_docs
        qrels[f"q{q}"] = {f"d{d}": int(rng.integers(0, 3)) for d in docs}
    return qrels


LEARNED = {"probfuse": {"n_segments": 10}, "segfuse": {}, "posfuse": {}, "slidefuse": {"window": 5},
           "mapfuse": {}, "bayesfuse": {}}


def ranx_learned(qrels, ranx_runs, method: str, norm: str | None):
    """ranx's training then fusion of a learned method (its ``optimize_fusion`` for the ones
    without a setting; its ``*_train`` with ours for probfuse and slidefuse)."""
    from ranx import Qrels, fuse, optimize_fusion
    from ranx.fusion import probfuse_train, slidefuse_train

    judged = Qrels(qrels)
    if method == "probfuse":
        params = {"probs": probfuse_train(judged, ranx_runs, LEARNED[method]["n_segments"])}
    elif method == "slidefuse":
        params = {"probs": slidefuse_train(judged, ranx_runs), "w": LEARNED[method]["window"]}
    else:
        params = optimize_fusion(judged, ranx_runs, norm=norm, method=method)
    return fuse(ranx_runs, norm=norm, method=method, params=params)


def per_method(runs: list[pd.DataFrame], norm: str | None) -> None:
    """One line per learned method and Condorcet: ranx and rankkit in process."""
    qrels = judgments(runs)
    ranx_runs = [to_ranx(f) for f in runs]
    print(f"{'method':<12} {'ranx cpu':>9} {'wall':>7} {'rankkit cpu':>12} {'wall':>7} {'cpu x':>6} {'wall x':>6}"
          "  (seconds; x: ranx / rankkit)")
    from ranx import fuse

    for method in [*LEARNED, "condorcet"]:
        if method in LEARNED:
            def theirs_fn(m=method):
                return ranx_learned(qrels, ranx_runs, m, norm)

            def ours_fn(m=method):
                return rk.fuse(runs, m, norm, qrels=qrels, **LEARNED[m])
        else:
            def theirs_fn(m=method):
                return fuse(ranx_runs, norm=norm, method=m)

            def ours_fn(m=method):
                return rk.fuse(runs, m, norm)
        theirs_fn(), ours_fn()  # numba compiles for these input types (strings of this length) first
        theirs, r_cpu, r_wall = timed(theirs_fn)
        ours, k_cpu, k_wall = timed(ours_fn)
        agree = same(ours, theirs, runs if method == "condorcet" else None)
        print(f"{method:<12} {r_cpu:9.2f} {r_wall:7.2f} {k_cpu:12.2f} {k_wall:7.2f} {r_cpu / k_cpu:6.1f} "
              f"{r_wall / k_wall:6.1f}  {agree}")


def same(ours: pd.DataFrame, theirs, runs: list[pd.DataFrame] | None) -> str:
    """Whether both runs hold the same documents and scores; for Condorcet (``runs`` given)
    on the queries where ranx's order is well defined (elsewhere it follows a Python set's)."""
    mine: dict = {}
    for q, d, s in ours.astype({"query_id": str, "doc_id": str}).itertuples(index=False):
        mine.setdefault(q, {})[d] = s
    theirs = theirs.to_dict()
    if runs is None:
        assert all(mine[q] == dict(theirs[q]) for q in mine), "rankkit and ranx differ"
        return "same run"
    ranked = [{q: dict(zip(g.doc_id.astype(str), range(len(g)))) for q, g in f.astype({"query_id": str}).groupby(
        "query_id", sort=False)} for f in runs]  # the frames come in rank order
    defined = [q for q in mine if _ranx_defined([r[q] for r in ranked], list(mine[q]))]
    assert all(mine[q] == dict(theirs[q]) for q in defined), "rankkit and ranx differ where ranx is well defined"
    return f"same run on the {len(defined)} of {len(mine)} queries where ranx's order is well defined"


def _ranx_defined(ranked: list[dict], order: list) -> bool:
    """Whether ranx's comparator orders these documents whatever its input order: for every
    pair exactly one goes first (a run lacking both votes for the second), transitively."""
    def first(x, y):
        votes = sum(r.get(x, 10 ** 6) < r.get(y, 10 ** 6) for r in ranked)
        return votes >= len(ranked) - votes

    return all(first(a, b) and not first(b, a) for i, a in enumerate(order) for b in order[i + 1:])


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
    parser.add_argument("--table", action="store_true", help="learned methods and Condorcet, one line each")
    args = parser.parse_args(argv)
    norm = None if args.norm == "none" else args.norm
    print(f"{args.runs} runs x {args.queries:,} queries x {args.docs:,} documents, {args.method}, norm={norm}, "
          f"{os.cpu_count()} CPUs")
    runs = frames(args.runs, args.queries, args.docs)
    if args.table:
        per_method(runs, norm)
        return
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
