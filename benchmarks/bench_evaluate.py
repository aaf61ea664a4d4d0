"""Time per-query evaluation with rankkit, pytrec_eval and ranx on one synthetic TREC run.

Five measures per query: nDCG@10, AP, RR, P@10, R@100. Three scenarios, each library used
as its users use it:

1. files  - from the TREC files to per-query values.
   rankkit:     ``evaluate(qrels_path, run_path, metrics)`` (read_qrels + read_run + rank + score)
   pytrec_eval: ``parse_qrel`` / ``parse_run`` on file handles (its README) +
                ``RelevanceEvaluator(qrels, measures).evaluate(run)``
   ranx:        ``Qrels.from_file`` / ``Run.from_file`` (kind="trec") +
                ``evaluate(qrels, run, metrics, return_mean=False)`` (per-query arrays)
2. dicts  - from ``{qid: {doc: rel}}`` / ``{qid: {doc: score}}`` already in memory:
   rankkit ``evaluate(qrels, run, ...)`` vs pytrec_eval ``RelevanceEvaluator(...).evaluate(run)``.
3. metric - the metric step alone: rankkit ``score(rankings, metrics)`` on a prepared
   ``Rankings`` vs pytrec_eval's ``evaluate(run)`` with the evaluator built beforehand.

Each timing is the median of ``--repeat`` runs; the rounds interleave the libraries so that
load from other processes falls on all of them alike. Everything is warmed up once on a
small data set first (ranx compiles its numba kernels then). Peak memory (``ru_maxrss``) of
each library's file path is measured in a fresh subprocess, so that nothing else the
benchmark holds is counted. Per-query values are compared: rankkit and pytrec_eval must
agree within 1e-9; ranx's differences are reported, not asserted.

    python benchmarks/bench_evaluate.py                       # 10,000 x 1,000 (~330 MB run)
    python benchmarks/bench_evaluate.py --queries 1000 --docs 100 --repeat 5

Data come from ``benchmarks/generate.py`` (run for you when the files are missing) in
``benchmarks/_data/``. Exit status 1 if rankkit and pytrec_eval disagree.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent

# rankkit spec -> (pytrec_eval measure, ranx metric)
METRICS = {
    "nDCG@10": ("ndcg_cut_10", "ndcg@10"),
    "AP": ("map", "map"),
    "RR": ("recip_rank", "mrr"),
    "P@10": ("P_10", "precision@10"),
    "R@100": ("recall_100", "recall@100"),
}
SPECS = list(METRICS)
TREC = {m[0] for m in METRICS.values()}
RANX = [m[1] for m in METRICS.values()]

TARGETS = [  # (label, scenario, peer, minimum speed-up)
    ("files: rankkit vs pytrec_eval", "files", "pytrec_eval", 5.0),
    ("files: rankkit vs ranx", "files", "ranx", 8.0),
    ("dicts: rankkit vs pytrec_eval", "dicts", "pytrec_eval", 2.5),
    ("metric step: rankkit vs pytrec_eval", "metric", "pytrec_eval", 20.0),
]
MEMORY_TARGET_MB = 800.0


# --------------------------------------------------------------------------- the libraries

def rankkit_files(qrels_path: Path, run_path: Path) -> pd.DataFrame:
    import rankkit
    return rankkit.evaluate(str(qrels_path), str(run_path), SPECS)


def pytrec_parse(qrels_path: Path, run_path: Path) -> tuple[dict, dict]:
    import pytrec_eval
    with open(qrels_path) as f_qrel:
        qrels = pytrec_eval.parse_qrel(f_qrel)
    with open(run_path) as f_run:
        run = pytrec_eval.parse_run(f_run)
    return qrels, run


def pytrec_files(qrels_path: Path, run_path: Path) -> dict:
    import pytrec_eval
    qrels, run = pytrec_parse(qrels_path, run_path)
    return pytrec_eval.RelevanceEvaluator(qrels, TREC).evaluate(run)


def ranx_files(qrels_path: Path, run_path: Path):
    import ranx
    qrels = ranx.Qrels.from_file(str(qrels_path), kind="trec")
    run = ranx.Run.from_file(str(run_path), kind="trec")
    values = ranx.evaluate(qrels, run, RANX, return_mean=False)
    return list(run.get_query_ids()), values


LIBRARIES = {"rankkit": rankkit_files, "pytrec_eval": pytrec_files, "ranx": ranx_files}


# --------------------------------------------------------------------------- as tables

def trec_table(result: dict) -> pd.DataFrame:
    """pytrec_eval's {qid: {measure: value}} as a table with rankkit's column names."""
    table = pd.DataFrame.from_dict(result, orient="index")
    table = table[[METRICS[s][0] for s in SPECS]].set_axis(SPECS, axis=1)
    return table.rename_axis("query_id").sort_index()


def ranx_table(result) -> pd.DataFrame:
    ids, values = result
    values = values if isinstance(values, dict) else {RANX[0]: values}
    table = pd.DataFrame({s: np.asarray(values[METRICS[s][1]], dtype=np.float64) for s in SPECS},
                         index=pd.Index([str(q) for q in ids], name="query_id"))
    return table.sort_index()


def rankkit_table(table: pd.DataFrame) -> pd.DataFrame:
    out = table[SPECS].copy()
    out.index = out.index.astype(str)
    return out.sort_index()


def differences(a: pd.DataFrame, b: pd.DataFrame) -> dict:
    """Per measure: max |a - b| over the queries of both, and how many differ by > 1e-9."""
    common = a.index.intersection(b.index)
    out = {"only_in_first": len(a.index.difference(b.index)), "only_in_second": len(b.index.difference(a.index))}
    for spec in SPECS:
        diff = np.abs(a.loc[common, spec].to_numpy() - b.loc[common, spec].to_numpy())
        out[spec] = (float(diff.max()) if diff.size else 0.0, int((diff > 1e-9).sum()))
    return out


# --------------------------------------------------------------------------- timing

def timed(fn, *args):
    gc.collect()
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def rounds(tasks: dict, repeat: int) -> tuple[dict, dict]:
    """Run every task ``repeat`` times, interleaved; (name -> list of seconds, name -> last result)."""
    times = {name: [] for name in tasks}
    results = {}
    for i in range(repeat):
        for name, (fn, args) in tasks.items():
            results.pop(name, None)  # free the previous result before measuring again
            seconds, results[name] = timed(fn, *args)
            times[name].append(seconds)
            print(f"  round {i + 1}/{repeat}  {name:<28} {seconds:8.2f} s", flush=True)
    return times, results


def child_memory(library: str, qrels_path: Path, run_path: Path) -> dict:
    """Run one library's file path in a fresh interpreter; its peak RSS and time."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", library,
           "--qrels", str(qrels_path), "--run", str(run_path)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def peak_rss_mb() -> float:
    """This process's peak resident set size, in MB.

    Linux's ``ru_maxrss`` survives ``exec``: a child started by a large process reports at
    least its parent's peak. ``VmHWM`` (``/proc/self/status``) belongs to the new address
    space, so it is used where available; elsewhere ``ru_maxrss`` (KB on Linux, bytes on macOS).
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss / 2**20 if sys.platform == "darwin" else maxrss / 1024


def child_main(library: str, qrels_path: Path, run_path: Path) -> None:
    import importlib
    importlib.import_module(library)  # pandas/pyarrow (rankkit), numba (ranx): part of the cost
    imports_mb = peak_rss_mb()
    seconds, _ = timed(LIBRARIES[library], qrels_path, run_path)
    peak_mb = peak_rss_mb()
    maxrss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"library": library, "imports_mb": imports_mb, "peak_mb": peak_mb,
                      "ru_maxrss_mb": maxrss_mb, "seconds": seconds}))


# --------------------------------------------------------------------------- data

def ensure_data(n_queries: int, n_docs: int, out: Path, ids: str = "short") -> tuple[Path, Path]:
    qrels_path = out / f"qrels_{n_queries}x{n_docs}_{ids}.txt"
    run_path = out / f"run_{n_queries}x{n_docs}_{ids}.txt"
    if not (qrels_path.is_file() and run_path.is_file()):
        print(f"generating {qrels_path.name}, {run_path.name} in {out} ...", flush=True)
        subprocess.run([sys.executable, str(HERE / "generate.py"), "-n", str(n_queries), "-m", str(n_docs),
                        "--ids", ids, "--out", str(out)], check=True)
    return qrels_path, run_path


def warm_up() -> None:
    """One small run of every path (imports, ranx's numba compilation)."""
    import pytrec_eval
    from rankkit import evaluate
    from rankkit.rankings import rank
    from rankkit.evaluate import score
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = ensure_data(50, 100, Path(tmp))
        for fn in LIBRARIES.values():
            fn(qrels_path, run_path)
        qrels, run = pytrec_parse(qrels_path, run_path)
        evaluate(qrels, run, SPECS)
        pytrec_eval.RelevanceEvaluator(qrels, TREC).evaluate(run)
        score(rank(qrels_path, run_path), SPECS)


# --------------------------------------------------------------------------- report

def median(values: list[float]) -> float:
    return statistics.median(values)


def fmt_times(values: list[float]) -> str:
    return f"{median(values):8.2f} s   (" + ", ".join(f"{v:.2f}" for v in values) + ")"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000, help="number of queries (10,000)")
    parser.add_argument("--docs", type=int, default=1_000, help="documents per query (1,000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing; the median is reported (3)")
    parser.add_argument("--data", type=Path, default=HERE / "_data", help="data folder (benchmarks/_data)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--child", choices=list(LIBRARIES), help=argparse.SUPPRESS)
    parser.add_argument("--qrels", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--run", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child_main(args.child, args.qrels, args.run)
        return 0
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")

    import pytrec_eval

    import rankkit
    from rankkit.evaluate import score
    from rankkit.rankings import rank

    qrels_path, run_path = ensure_data(args.queries, args.docs, args.data)
    size_mb = run_path.stat().st_size / 1e6
    load_before = os.getloadavg()
    print(f"data: {args.queries:,} queries x {args.docs:,} docs; run {size_mb:.0f} MB, "
          f"qrels {qrels_path.stat().st_size / 1e6:.0f} MB")
    from importlib.metadata import version
    print(f"pytrec_eval-terrier {version('pytrec_eval-terrier')}, ranx {version('ranx')}, "
          f"numba {version('numba')}, numpy {np.__version__}, pandas {pd.__version__}; {os.cpu_count()} CPUs; "
          f"load average {load_before[0]:.1f} {load_before[1]:.1f} {load_before[2]:.1f}")
    print(f"median of {args.repeat} runs; warming up ...", flush=True)
    warm_up()

    times: dict[str, dict[str, list[float]]] = {}

    print("\n[1] from the files", flush=True)
    times["files"], results = rounds({name: (fn, (qrels_path, run_path)) for name, fn in LIBRARIES.items()},
                                     args.repeat)
    tables = {"files": {"rankkit": rankkit_table(results["rankkit"]),
                        "pytrec_eval": trec_table(results["pytrec_eval"]),
                        "ranx": ranx_table(results["ranx"])}}
    del results
    gc.collect()

    print("\n[2] from in-memory dicts", flush=True)
    qrels_dict, run_dict = pytrec_parse(qrels_path, run_path)
    times["dicts"], results = rounds({
        "rankkit": (rankkit.evaluate, (qrels_dict, run_dict, SPECS)),
        "pytrec_eval": (lambda q, r: pytrec_eval.RelevanceEvaluator(q, TREC).evaluate(r), (qrels_dict, run_dict)),
    }, args.repeat)
    tables["dicts"] = {"rankkit": rankkit_table(results["rankkit"]),
                       "pytrec_eval": trec_table(results["pytrec_eval"])}
    del results

    print("\n[3] the metric step alone", flush=True)
    rankings = rank(str(qrels_path), str(run_path))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, TREC)
    times["metric"], results = rounds({
        "rankkit": (score, (rankings, SPECS)),
        "pytrec_eval": (evaluator.evaluate, (run_dict,)),
    }, args.repeat)
    tables["metric"] = {"rankkit": rankkit_table(results["rankkit"]),
                        "pytrec_eval": trec_table(results["pytrec_eval"])}
    del results, rankings, evaluator, qrels_dict, run_dict
    gc.collect()

    print("\n[stages] rankkit's file path, one run each", flush=True)
    from rankkit import read_qrels, read_run
    t_qrels, qrels_df = timed(read_qrels, str(qrels_path))
    t_run, run_df = timed(read_run, str(run_path))
    t_rank, rankings = timed(rank, qrels_df, run_df)
    t_score, _ = timed(score, rankings, SPECS)
    stages = {"read_qrels": t_qrels, "read_run": t_run, "rank": t_rank, "score": t_score}
    print("  " + "   ".join(f"{k} {v:.2f} s" for k, v in stages.items()))
    del qrels_df, run_df, rankings
    gc.collect()

    print("\n[memory] peak RSS of each library's file path, fresh process each", flush=True)
    memory = {}
    for library in LIBRARIES:
        memory[library] = child_memory(library, qrels_path, run_path)
        m = memory[library]
        print(f"  {library:<12} peak {m['peak_mb']:7.0f} MB  (after imports {m['imports_mb']:.0f} MB; "
              f"{m['seconds']:.2f} s)", flush=True)
    load_after = os.getloadavg()

    # ------------------------------------------------------------------ summary
    print(f"\n=== {args.queries:,} queries x {args.docs:,} docs, median of {args.repeat}; "
          f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after (1 min) on "
          f"{os.cpu_count()} CPUs ===")
    print(f"{'scenario':<8} {'library':<12} {'median':>10}   runs")
    for scenario, by_lib in times.items():
        for library, values in by_lib.items():
            print(f"{scenario:<8} {library:<12} {fmt_times(values)}")
    print()
    print(f"{'target':<38} {'ratio':>8} {'goal':>7}   result")
    verdicts = []
    for label, scenario, peer, goal in TARGETS:
        ratio = median(times[scenario][peer]) / median(times[scenario]["rankkit"])
        verdict = "PASS" if ratio >= goal else "MISS"
        verdicts.append((label, ratio, goal, verdict))
        print(f"{label:<38} {ratio:7.1f}x {goal:6.1f}x   {verdict}")
    peak = memory["rankkit"]["peak_mb"]
    mem_verdict = "PASS" if peak < MEMORY_TARGET_MB else "MISS"
    print(f"{'files: rankkit peak memory':<38} {peak:6.0f}MB {MEMORY_TARGET_MB:5.0f}MB   {mem_verdict}")

    print("\nper-query agreement: max |difference| (queries differing by > 1e-9)")
    agree = True
    comparisons = [("files", "pytrec_eval"), ("dicts", "pytrec_eval"), ("metric", "pytrec_eval"), ("files", "ranx")]
    diffs = {}
    for scenario, peer in comparisons:
        d = differences(tables[scenario]["rankkit"], tables[scenario][peer])
        diffs[f"{scenario}: rankkit vs {peer}"] = d
        cells = "  ".join(f"{s} {d[s][0]:.1e} ({d[s][1]})" for s in SPECS)
        extra = ""
        if d["only_in_first"] or d["only_in_second"]:
            extra = f"  queries only in rankkit: {d['only_in_first']}, only in {peer}: {d['only_in_second']}"
        if peer == "pytrec_eval":
            ok = not extra and all(d[s][0] <= 1e-9 for s in SPECS)
            agree &= ok
            status = "AGREE" if ok else "DISAGREE"
        else:
            status = "(reported only)"
        print(f"  {scenario:<6} vs {peer:<11} {cells}{extra}  {status}")

    # ranx breaks score ties in its own order (a reversed numba argsort), not trec_eval's:
    # its values must still lie between rankkit's worst and best tie orders.
    bounds = {policy: rankkit_table(rankkit.evaluate(str(qrels_path), str(run_path), SPECS, ties=policy))
              for policy in ("pessimistic", "optimistic")}
    rx = tables["files"]["ranx"]
    within = {s: bool(((rx[s] >= bounds["pessimistic"][s] - 1e-12) & (rx[s] <= bounds["optimistic"][s] + 1e-12)).all())
              for s in SPECS}
    print("  ranx between rankkit's ties='pessimistic' and ties='optimistic' values: "
          + "  ".join(f"{s} {'yes' if ok else 'NO'}" for s, ok in within.items()))

    if args.json:
        args.json.write_text(json.dumps({
            "queries": args.queries, "docs": args.docs, "repeat": args.repeat,
            "load_average_before": load_before, "load_average_after": load_after,
            "times": times, "rankkit_stages": stages, "memory": memory,
            "targets": [{"target": t, "ratio": r, "goal": g, "result": v} for t, r, g, v in verdicts]
            + [{"target": "files: rankkit peak memory MB", "value": peak, "goal": MEMORY_TARGET_MB,
                "result": mem_verdict}],
            "differences": diffs, "ranx_within_tie_bounds": within,
        }, indent=2))
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
