"""Time per-query evaluation: rankkit vs trec_eval, pytrec_eval and ranx, against speed goals.

Five measures per query: nDCG@10, AP, RR, P@10, R@100. Scenarios (``--scenarios``), each
library used as its users use it:

files   from the TREC files to per-query values, at the largest ``--docs``.
        rankkit:     ``evaluate(qrels_path, run_path, metrics)``
        trec_eval:   the C binary, if ``trec_eval`` is on PATH, as a subprocess:
                     ``trec_eval -q -m ndcg_cut.10 -m map ... qrels run > /dev/null``
        pytrec_eval: ``parse_qrel`` / ``parse_run`` on file handles (its README) +
                     ``RelevanceEvaluator(qrels, measures).evaluate(run)``
        ranx:        ``Qrels.from_file`` / ``Run.from_file`` + ``evaluate(..., return_mean=False)``
        (plus one run of rankkit's steps: read_qrels, read_run, rank, score)
        rankkit is also timed alone in a fresh process (``--child``, after its imports),
        as ``rankkit evaluate`` runs: the goals are set on that time (one process per
        tool); the ratios of rankkit in this process are printed too.
metric  the metric step alone: rankkit ``score`` on a prepared ``Rankings`` vs
        pytrec_eval's ``evaluate(run)`` with the evaluator built beforehand.
dicts   ``{qid: {doc: rel}}`` / ``{qid: {doc: score}}`` in memory, at every ``--docs``:
        rankkit ``evaluate`` vs ``RelevanceEvaluator(qrels, measures).evaluate(run)``.
frames  pandas DataFrames at every ``--docs``, in four shapes (:data:`FRAME_SHAPES`):
        rankkit ``evaluate(qrels_df, run_df, metrics)`` vs pytrec_eval, whose time includes
        turning the frames into its dicts (:func:`to_dicts`); both get new frames (new Arrow
        arrays) every round, and rankkit on the same frames again is timed apart (its keys,
        checks and matches remembered: the ratio is printed without a goal).
sweep   20 runs sharing one document column, differing in scores (``run.assign(score=...)``),
        at the smallest ``--docs``: ``compare(qrels, runs, metrics)`` and 20 ``evaluate``
        calls, each against one ``evaluate``; every task gets frames built anew (new Arrow
        arrays, nothing cached for them), outside the clock.
memory  peak memory from the files, at the largest ``--docs``, for every ``--ids`` shape:
        rankkit in a fresh interpreter (its ``VmHWM``) vs trec_eval run by a small fresh
        helper (its ``RUSAGE_CHILDREN`` peak); pytrec_eval and ranx on the first shape.
process whole processes, as a user runs them in a shell: ``rankkit evaluate -q`` with the
        five measures (interpreter start, imports, reading, printing and exit included)
        against ``trec_eval -q``, each writing its output to a file, on data/example.* (with
        ``-c``: without it trec_eval 10 stops at the judged query 149, which the example
        run lacks) and on the largest ``--docs`` files; wall and CPU seconds and peak
        memory of each process, read by a small helper that starts it, in this environment
        less PYTHONDONTWRITEBYTECODE and PYTHONUNBUFFERED (a user's shell). The two outputs
        must be the same bytes. Shown beside the in-process times of ``files`` (and ranx warm,
        in process), which it reuses when ``files`` ran too.

Timings are medians of ``--repeat`` runs, the libraries interleaved round by round; all paths
are warmed up on a 50 x 100 data set first. Per-query values are checked: rankkit and
pytrec_eval within 1e-9 in every scenario, rankkit printed as ``%6.4f`` equal to trec_eval's
``-q`` output; ranx's differences are reported only. Exit status 1 if a check fails.

    python benchmarks/bench_evaluate.py                       # 10,000 queries, 100 and 1,000 docs
    python benchmarks/bench_evaluate.py --queries 1000 --docs 100 --repeat 1 --scenarios files,memory

Data come from ``benchmarks/generate.py`` (run for you when missing) in ``benchmarks/_data/``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent

# rankkit spec -> (trec_eval / pytrec_eval measure, ranx metric)
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
TREC_EVAL_MEASURES = ["ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"]  # print as TREC's names

SCENARIOS = ("files", "metric", "dicts", "frames", "sweep", "memory", "process")
ID_SHAPES = ("short", "numeric", "medium", "clueweb")  # generate.py --ids
FRAME_SHAPES = ("str", "object", "pyterrier", "categorical")
SWEEP_RUNS = 20

# Goals. Speed: peer time / rankkit time >= goal.
GOAL_FILES = {"trec_eval": 5.0, "ranx": 8.0, "pytrec_eval": None}
GOAL_DICTS = GOAL_FRAMES = 3.0
GOAL_METRIC = 20.0
GOAL_SWEEP = 10.0    # time of 20 runs / time of one evaluate <= goal
GOAL_MEMORY = 0.6    # rankkit peak / trec_eval peak <= goal
# Whole processes (`rankkit evaluate` as a user runs it): trec_eval's and ranx's time over
# rankkit's, the example files' seconds, the peak memory of the two processes.
GOAL_PROCESS = {"trec_eval": 6.0, "ranx": 8.0}
GOAL_EXAMPLE_SECONDS = 0.25
EXAMPLE = HERE.parent / "data"
EXAMPLE_ROUNDS = 5  # rounds on the example files per --repeat (each takes well under a second)


# --------------------------------------------------------------------------- the file paths

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


def pytrec_evaluate(qrels: dict, run: dict) -> dict:
    import pytrec_eval
    return pytrec_eval.RelevanceEvaluator(qrels, TREC).evaluate(run)


def pytrec_files(qrels_path: Path, run_path: Path) -> dict:
    return pytrec_evaluate(*pytrec_parse(qrels_path, run_path))


def ranx_files(qrels_path: Path, run_path: Path):
    import ranx
    qrels = ranx.Qrels.from_file(str(qrels_path), kind="trec")
    run = ranx.Run.from_file(str(run_path), kind="trec")
    values = ranx.evaluate(qrels, run, RANX, return_mean=False)
    return list(run.get_query_ids()), values


def trec_eval_command(qrels_path: Path, run_path: Path) -> list[str]:
    measures = [arg for m in TREC_EVAL_MEASURES for arg in ("-m", m)]
    return [shutil.which("trec_eval"), "-q", *measures, str(qrels_path), str(run_path)]


def trec_eval_files(qrels_path: Path, run_path: Path) -> None:
    subprocess.run(trec_eval_command(qrels_path, run_path), stdout=subprocess.DEVNULL, check=True)


LIBRARIES = {"rankkit": rankkit_files, "pytrec_eval": pytrec_files, "ranx": ranx_files,
             "trec_eval": trec_eval_files}


def file_libraries() -> dict:
    """The file paths timed: trec_eval only when it is on PATH."""
    return {name: fn for name, fn in LIBRARIES.items() if name != "trec_eval" or shutil.which("trec_eval")}


# --------------------------------------------------------------------------- frames

def read_tables(qrels_path: Path, run_path: Path):
    """The two TREC files as Arrow tables (ids as strings), the source of every frame shape."""
    import pyarrow as pa
    from pyarrow import csv

    def read(path, names, value, value_type):
        return csv.read_csv(path, read_options=csv.ReadOptions(column_names=names),
                            parse_options=csv.ParseOptions(delimiter=" "),
                            convert_options=csv.ConvertOptions(
                                column_types={"query_id": pa.string(), "doc_id": pa.string(), value: value_type},
                                include_columns=["query_id", "doc_id", value]))
    return (read(qrels_path, ["query_id", "iter", "doc_id", "relevance"], "relevance", pa.int64()),
            read(run_path, ["query_id", "q0", "doc_id", "rank", "score", "tag"], "score", pa.float64()))


def as_frame(table, shape: str) -> pd.DataFrame:
    """One Arrow table as a pandas DataFrame of the given shape (:data:`FRAME_SHAPES`):

    str          ``query_id``, ``doc_id`` of pandas' ``str`` dtype (Arrow-backed)
    object       the same ids as Python ``str`` objects in ``object`` columns
    pyterrier    pyterrier's names ``qid`` (int64), ``docno`` (str), ``score`` / ``label``
    categorical  ``query_id`` Categorical of str, ``doc_id`` str
    """
    df = table.to_pandas().astype({"query_id": "str", "doc_id": "str"})
    if shape == "object":
        return df.astype({"query_id": object, "doc_id": object})
    if shape == "pyterrier":
        df = df.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
        return df.astype({"qid": "int64"})
    if shape == "categorical":
        return df.astype({"query_id": "category"})
    return df


def frame_columns(df: pd.DataFrame) -> tuple[str, str, str]:
    """(query, document, value) column names of a frame of any shape."""
    query, doc = ("qid", "docno") if "qid" in df.columns else ("query_id", "doc_id")
    return query, doc, next(c for c in ("score", "relevance", "label") if c in df.columns)


def to_dicts(df: pd.DataFrame) -> dict:
    """A frame as pytrec_eval's ``{qid: {doc: value}}``, the fastest plain Python found.

    One ``zip`` over the columns' ``tolist()``; the inner dict is looked up (``setdefault``)
    only when the query differs from the previous row's, which is correct for rows in any
    order and about 30 % faster than ``setdefault`` on every row when each query's rows are
    together (measured on 1M rows: 0.63-1.07 s vs 0.92-1.42 s; ``defaultdict`` and
    ``itertools.groupby`` variants were no faster). A Categorical's integer codes are listed
    instead of its values (10-25 % faster). Query ids become ``str``, pytrec_eval's keys.
    """
    query, doc, value = frame_columns(df)
    queries, names = df[query], None
    if isinstance(queries.dtype, pd.CategoricalDtype):
        queries, names = queries.cat.codes, [str(c) for c in queries.cat.categories]
    out: dict = {}
    current_query, current = object(), None
    for q, d, v in zip(queries.tolist(), df[doc].tolist(), df[value].tolist()):
        if q != current_query:
            current_query, current = q, out.setdefault(str(q) if names is None else names[q], {})
        current[d] = v
    return out


def pytrec_frames(qrels_df: pd.DataFrame, run_df: pd.DataFrame) -> dict:
    return pytrec_evaluate(to_dicts(qrels_df), to_dicts(run_df))


def sweep_runs(run_df: pd.DataFrame, n: int = SWEEP_RUNS, seed: int = 0) -> dict[str, pd.DataFrame]:
    """``n`` runs as a parameter sweep: the same rows and document column, scores
    ``score + w * noise`` (w = 0.05, 0.10, ...), rounded to 3 decimals to keep ties."""
    noise = np.random.default_rng(seed).normal(0.0, 1.0, len(run_df))
    base = run_df["score"].to_numpy()
    return {f"w{i}": run_df.assign(score=np.round(base + 0.05 * i * noise, 3)) for i in range(1, n + 1)}


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


def trec_eval_printed(qrels_path: Path, run_path: Path) -> pd.DataFrame:
    """trec_eval's ``-q`` lines as a table of the printed strings (``%6.4f``), 'all' left out."""
    out = subprocess.run(trec_eval_command(qrels_path, run_path), capture_output=True, text=True, check=True)
    names = {METRICS[s][0]: s for s in SPECS}
    values: dict = {}
    for line in out.stdout.splitlines():
        measure, qid, value = line.split("\t")
        if qid != "all":
            values.setdefault(qid, {})[names[measure.strip()]] = value.strip()
    return pd.DataFrame.from_dict(values, orient="index")[SPECS].sort_index()


# --------------------------------------------------------------------------- the report

@dataclass
class Report:
    """What the scenarios measured; printed at the end and written by ``--json``."""
    times: dict = field(default_factory=dict)      # label -> {task: [seconds, ...]}
    targets: list = field(default_factory=list)    # one row per ratio
    memory: list = field(default_factory=list)     # one row per (id shape, library)
    agreement: list = field(default_factory=list)  # one row per comparison of per-query values
    stages: dict = field(default_factory=dict)
    process: list = field(default_factory=list)    # one row per (data, command): whole processes

    def speedup(self, label: str, times: dict, peer: str, goal: float | None, ours: str = "rankkit") -> None:
        ratio = median(times[peer]) / median(times[ours])
        self.target(f"{label}: {peer} / {ours}", ratio, goal, ">=")

    def target(self, label: str, ratio: float | None, goal: float | None, sense: str, unit: str = "x",
               why: str = "trec_eval is not on PATH") -> None:
        """One ratio (or, ``unit="s"``, seconds) and its goal; ``ratio=None``: not measured."""
        passed = None if goal is None or ratio is None else (ratio >= goal if sense == ">=" else ratio <= goal)
        result = (f"NOT RUN: {why}" if ratio is None
                  else {None: "(no goal)", True: "PASS", False: "MISS"}[passed])
        self.targets.append({"target": label, "ratio": ratio, "goal": goal, "sense": sense, "result": result,
                             "unit": unit})

    def agree(self, label: str, ours: pd.DataFrame, theirs: pd.DataFrame, peer: str,
              tolerance: float | None = 1e-9) -> None:
        """Per-query values of rankkit and a peer; ``tolerance=None`` reports without judging."""
        d = differences(ours, theirs)
        ok = None if tolerance is None else (not (d["only_in_first"] or d["only_in_second"])
                                             and all(d[s][0] <= tolerance for s in SPECS))
        self.agreement.append({"what": label, "peer": peer, "differences": d, "ok": ok})

    def agree_printed(self, label: str, ours: pd.DataFrame, printed: pd.DataFrame) -> None:
        """rankkit printed as trec_eval prints (``%6.4f``) against trec_eval's ``-q`` output."""
        mine = ours.map(lambda v: f"{v:6.4f}".strip())
        common = mine.index.intersection(printed.index)
        d = {"only_in_first": len(mine.index.difference(printed.index)),
             "only_in_second": len(printed.index.difference(mine.index))}
        for s in SPECS:
            a, b = mine.loc[common, s], printed.loc[common, s]
            gap = np.abs(a.astype(float).to_numpy() - b.astype(float).to_numpy())
            d[s] = (float(gap.max()) if gap.size else 0.0, int((a != b).sum()))
        ok = not (d["only_in_first"] or d["only_in_second"]) and all(d[s][1] == 0 for s in SPECS)
        self.agreement.append({"what": label, "peer": "trec_eval", "differences": d, "ok": ok})


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
    """Run every task ``repeat`` times, interleaved; (name -> list of seconds, name -> last result).
    A task's ``args`` may be a function that makes them (called before the clock starts)."""
    times = {name: [] for name in tasks}
    results = {}
    for i in range(repeat):
        for name, (fn, args) in tasks.items():
            results.pop(name, None)  # free the previous result before measuring again
            seconds, results[name] = timed(fn, *(args() if callable(args) else args))
            times[name].append(seconds)
            print(f"  round {i + 1}/{repeat}  {name:<28} {seconds:8.2f} s", flush=True)
    return times, results


def median(values: list[float]) -> float:
    return statistics.median(values)


# --------------------------------------------------------------------------- memory

# Runs trec_eval and nothing else, so that the peak it reads is trec_eval's. A child's
# ru_maxrss starts at its parent's resident size when it execs (Linux keeps the larger of
# the two), so trec_eval is started by this small interpreter (-I -S: no site packages),
# not by the benchmark; the helper's own VmHWM, printed too, is that floor.
TREC_EVAL_HELPER = """
import json, resource, subprocess, sys, time
try:
    with open("/proc/self/status") as f:
        floor = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))
except OSError:
    floor = None
start = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
print(json.dumps({"peak_bytes": peak, "floor_bytes": floor, "seconds": seconds}))
"""


def child_memory(library: str, qrels_path: Path, run_path: Path) -> dict:
    """Peak memory of one library's file path, in a fresh process; bytes and seconds."""
    if library == "trec_eval":
        cmd = [sys.executable, "-I", "-S", "-c", TREC_EVAL_HELPER, *trec_eval_command(qrels_path, run_path)]
    else:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", library,
               "--qrels", str(qrels_path), "--run", str(run_path)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def peak_rss_bytes() -> int:
    """This process's peak resident set size.

    Linux's ``ru_maxrss`` survives ``exec``: a child started by a large process reports at
    least its parent's peak. ``VmHWM`` (``/proc/self/status``) belongs to the new address
    space, so it is used where available; elsewhere ``ru_maxrss`` (KB on Linux, bytes on macOS).
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss if sys.platform == "darwin" else maxrss * 1024


def child_main(library: str, qrels_path: Path, run_path: Path) -> None:
    import importlib
    importlib.import_module(library)  # pandas/pyarrow (rankkit), numba (ranx): part of the cost
    imports = peak_rss_bytes()
    seconds, _ = timed(LIBRARIES[library], qrels_path, run_path)
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"peak_bytes": peak_rss_bytes(), "imports_bytes": imports,
                      "ru_maxrss_bytes": maxrss, "seconds": seconds}))


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
    """One small run of every path (imports, ranx's numba compilation, scipy for compare)."""
    import rankkit
    from rankkit import rank
    from rankkit.evaluation.scoring import score
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = ensure_data(50, 100, Path(tmp))
        for fn in file_libraries().values():
            fn(qrels_path, run_path)
        qrels, run = pytrec_parse(qrels_path, run_path)
        rankkit.evaluate(qrels, run, SPECS)
        pytrec_evaluate(qrels, run)
        score(rank(qrels_path, run_path), SPECS)
        tables = read_tables(qrels_path, run_path)
        for shape in FRAME_SHAPES:
            qrels_df, run_df = (as_frame(t, shape) for t in tables)
            rankkit.evaluate(qrels_df, run_df, SPECS)
            pytrec_frames(qrels_df, run_df)
        rankkit.compare(qrels_df, sweep_runs(run_df, n=2), SPECS)


# --------------------------------------------------------------------------- scenarios

def size(args, n_docs: int) -> str:
    return f"{args.queries:,}x{n_docs:,}"


def scenario_files(args, report: Report) -> None:
    qrels_path, run_path = ensure_data(args.queries, max(args.docs), args.data, args.ids[0])
    label = f"files {size(args, max(args.docs))} {args.ids[0]}"
    print(f"\n[{label}] from the TREC files", flush=True)
    libraries = file_libraries()
    times, results = rounds({name: (fn, (qrels_path, run_path)) for name, fn in libraries.items()}, args.repeat)
    # rankkit as `rankkit evaluate` or a new notebook runs it: alone in a fresh process (one
    # process per tool), timed there after its imports. In this process, which
    # held pytrec_eval's and ranx's memory, the 480 MiB bound leaves no room to read ahead.
    fresh = times["rankkit, a fresh process"] = []
    for i in range(args.repeat):
        fresh.append(child_memory("rankkit", qrels_path, run_path)["seconds"])
        print(f"  run {i + 1}/{args.repeat}   {'rankkit, a fresh process':<28} {fresh[-1]:8.2f} s", flush=True)
    report.times[label] = times
    for peer in libraries:
        if peer != "rankkit":
            report.speedup(label, times, peer, GOAL_FILES[peer], ours="rankkit, a fresh process")
            report.speedup(label, times, peer, None)
    if "trec_eval" not in libraries:
        report.target(f"{label}: trec_eval / rankkit", None, GOAL_FILES["trec_eval"], ">=")
    ours = rankkit_table(results["rankkit"])
    report.agree(label, ours, trec_table(results["pytrec_eval"]), "pytrec_eval")
    if "trec_eval" in libraries:
        report.agree_printed(label, ours, trec_eval_printed(qrels_path, run_path))
    theirs = ranx_table(results["ranx"])
    report.agree(label, ours, theirs, "ranx", tolerance=None)
    ranx_within_ties(report, label, qrels_path, run_path, theirs)
    del results
    report.stages = rankkit_stages(qrels_path, run_path)


def ranx_within_ties(report: Report, label: str, qrels_path: Path, run_path: Path, rx: pd.DataFrame) -> None:
    """ranx breaks score ties in its own order (a reversed numba argsort), not trec_eval's:
    its values must still lie between rankkit's worst and best tie orders."""
    import rankkit
    low, high = (rankkit_table(rankkit.evaluate(str(qrels_path), str(run_path), SPECS, ties=policy))
                 for policy in ("pessimistic", "optimistic"))
    within = {s: bool(((rx[s] >= low[s] - 1e-12) & (rx[s] <= high[s] + 1e-12)).all()) for s in SPECS}
    report.agreement.append({"what": label, "peer": "ranx within rankkit's pessimistic..optimistic ties",
                             "within": within, "ok": None})


def rankkit_stages(qrels_path: Path, run_path: Path) -> dict:
    from rankkit import rank, read_qrels, read_run
    from rankkit.evaluation.scoring import score
    t_qrels, qrels_df = timed(read_qrels, str(qrels_path))
    t_run, run_df = timed(read_run, str(run_path))
    t_rank, rankings = timed(rank, qrels_df, run_df)
    t_score, _ = timed(score, rankings, SPECS)
    stages = {"read_qrels": t_qrels, "read_run": t_run, "rank": t_rank, "score": t_score}
    print("  rankkit's steps, one run: " + "   ".join(f"{k} {v:.2f} s" for k, v in stages.items()))
    return stages


def scenario_metric(args, report: Report) -> None:
    import pytrec_eval

    from rankkit import rank
    from rankkit.evaluation.scoring import score
    qrels_path, run_path = ensure_data(args.queries, max(args.docs), args.data, args.ids[0])
    label = f"metric step {size(args, max(args.docs))}"
    print(f"\n[{label}] the metric step alone", flush=True)
    qrels, run = pytrec_parse(qrels_path, run_path)
    rankings = rank(str(qrels_path), str(run_path))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC)
    times, results = rounds({"rankkit": (score, (rankings, SPECS)),
                             "pytrec_eval": (evaluator.evaluate, (run,))}, args.repeat)
    report.times[label] = times
    report.speedup(label, times, "pytrec_eval", GOAL_METRIC)
    report.agree(label, rankkit_table(results["rankkit"]), trec_table(results["pytrec_eval"]), "pytrec_eval")


def scenario_dicts(args, report: Report) -> None:
    import rankkit
    for n_docs in args.docs:
        label = f"dicts {size(args, n_docs)}"
        print(f"\n[{label}] from in-memory dicts", flush=True)
        qrels, run = pytrec_parse(*ensure_data(args.queries, n_docs, args.data, args.ids[0]))
        times, results = rounds({"rankkit": (rankkit.evaluate, (qrels, run, SPECS)),
                                 "pytrec_eval": (pytrec_evaluate, (qrels, run))}, args.repeat)
        report.times[label] = times
        report.speedup(label, times, "pytrec_eval", GOAL_DICTS)
        report.agree(label, rankkit_table(results["rankkit"]), trec_table(results["pytrec_eval"]), "pytrec_eval")
        del qrels, run, results


def scenario_frames(args, report: Report) -> None:
    import rankkit
    for n_docs in args.docs:
        tables = read_tables(*ensure_data(args.queries, n_docs, args.data, args.ids[0]))
        for shape in FRAME_SHAPES:
            label = f"frames {size(args, n_docs)} {shape}"
            print(f"\n[{label}] from pandas DataFrames", flush=True)

            def fresh(shape=shape, tables=tables):
                """New frames (new Arrow arrays): nothing prepared for them in any cache."""
                return tuple(as_frame(t, shape) for t in tables)

            # rankkit and pytrec_eval each get frames they have not seen (a user's first
            # evaluation of a frame); the same frames evaluated again are timed apart.
            qrels_df, run_df = fresh()
            rankkit.evaluate(qrels_df, run_df, SPECS)  # prepared: keys, checks, judgments, matches
            times, results = rounds({"rankkit": (rankkit.evaluate, lambda: (*fresh(), SPECS)),
                                     "rankkit, the same frames again": (rankkit.evaluate, (qrels_df, run_df, SPECS)),
                                     "pytrec_eval": (pytrec_frames, fresh)}, args.repeat)
            report.times[label] = times
            report.speedup(label, times, "pytrec_eval", GOAL_FRAMES)
            report.target(f"{label}: pytrec_eval / rankkit on frames seen before",
                          median(times["pytrec_eval"]) / median(times["rankkit, the same frames again"]), None, ">=")
            report.agree(label, rankkit_table(results["rankkit"]), trec_table(results["pytrec_eval"]),
                         "pytrec_eval")
            del qrels_df, run_df, results


def evaluate_each(qrels_df: pd.DataFrame, runs: dict) -> dict:
    import rankkit
    return {name: rankkit.evaluate(qrels_df, run, SPECS) for name, run in runs.items()}


def scenario_sweep(args, report: Report) -> None:
    import rankkit
    n_docs = min(args.docs)
    label = f"sweep {size(args, n_docs)} str, {SWEEP_RUNS} runs"
    print(f"\n[{label}] one qrels, a parameter sweep of runs", flush=True)
    tables = read_tables(*ensure_data(args.queries, n_docs, args.data, args.ids[0]))

    def fresh():
        """New frames (new Arrow arrays): nothing prepared for them yet, in any cache."""
        qrels_df, run_df = (as_frame(t, "str") for t in tables)
        return qrels_df, sweep_runs(run_df)

    def one_run():
        qrels_df, runs = fresh()
        return qrels_df, runs["w1"], SPECS

    # Every task starts from frames it has not seen: one evaluation is what one run costs
    # a user; the sweep shares the judgments' preparation and the document keys across runs.
    times, results = rounds({"evaluate, 1 run": (rankkit.evaluate, one_run),
                             f"compare, {SWEEP_RUNS} runs": (rankkit.compare, lambda: (*fresh(), SPECS)),
                             f"evaluate x {SWEEP_RUNS}": (evaluate_each, fresh)}, args.repeat)
    qrels_df, runs = fresh()
    report.times[label] = times
    single = median(times["evaluate, 1 run"])
    for task in (f"compare, {SWEEP_RUNS} runs", f"evaluate x {SWEEP_RUNS}"):
        report.target(f"{label}: {task} / evaluate, 1 run", median(times[task]) / single, GOAL_SWEEP, "<=")
    qrels = to_dicts(qrels_df)
    worst = [differences(rankkit_table(table), trec_table(pytrec_evaluate(qrels, to_dicts(runs[name]))))
             for name, table in results[f"evaluate x {SWEEP_RUNS}"].items()]
    report.agreement.append(sweep_agreement(label, worst))


def sweep_agreement(label: str, diffs: list[dict]) -> dict:
    """The worst of each measure over the sweep's runs, as one agreement row."""
    d = {"only_in_first": max(x["only_in_first"] for x in diffs),
         "only_in_second": max(x["only_in_second"] for x in diffs)}
    for s in SPECS:
        d[s] = (max(x[s][0] for x in diffs), sum(x[s][1] for x in diffs))
    ok = not (d["only_in_first"] or d["only_in_second"]) and all(d[s][0] <= 1e-9 for s in SPECS)
    return {"what": f"{label} (each of the {len(diffs)} evaluate calls)", "peer": "pytrec_eval",
            "differences": d, "ok": ok}


def scenario_memory(args, report: Report) -> None:
    n_docs = max(args.docs)
    print(f"\n[memory {size(args, n_docs)}] peak RSS from the files, a fresh process each", flush=True)
    for ids in args.ids:
        paths = ensure_data(args.queries, n_docs, args.data, ids)
        libraries = ["rankkit"] + (["trec_eval"] if shutil.which("trec_eval") else [])
        libraries += ["pytrec_eval", "ranx"] if ids == args.ids[0] else []
        peaks = {}
        for library in libraries:
            m = child_memory(library, *paths)
            m |= {"ids": ids, "library": library, "bytes_per_run_line": m["peak_bytes"] / (args.queries * n_docs)}
            report.memory.append(m)
            peaks[library] = m["peak_bytes"]
            print(f"  {ids:<8} {library:<12} peak {m['peak_bytes'] / 2**20:8.1f} MiB  "
                  f"{m['bytes_per_run_line']:7.1f} B/run line  ({m['seconds']:.2f} s){at_floor(m)}", flush=True)
        ratio = peaks["rankkit"] / peaks["trec_eval"] if "trec_eval" in peaks else None
        report.target(f"memory {size(args, n_docs)} {ids}: rankkit / trec_eval peak", ratio, GOAL_MEMORY, "<=")


# --------------------------------------------------------------------------- whole processes

# Starts one command with its output in a file and reports what the kernel counted for it:
# wall seconds from start to exit (this helper's own start is not in them), user and system
# CPU seconds, and its peak resident memory (RUSAGE_CHILDREN; at least this helper's own
# resident size, its "floor", printed too: see TREC_EVAL_HELPER).
PROCESS_HELPER = """
import json, resource, subprocess, sys, time
with open("/proc/self/status") as f:
    floor = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))
with open(sys.argv[1], "wb") as out:
    start = time.perf_counter()
    status = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_bytes": usage.ru_maxrss * 1024,
                  "floor_bytes": floor, "status": status}))
"""


def rankkit_command() -> list[str]:
    """``rankkit`` as a user runs it: the console script of this interpreter's environment
    (not whatever ``rankkit`` PATH finds first), else ``python -m rankkit``."""
    script = Path(sys.executable).with_name("rankkit")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "rankkit"]


def process_commands(qrels_path: Path, run_path: Path, complete: bool) -> dict[str, list[str]]:
    """The two commands, with the same flags: -q, the five measures, ``-c`` if ``complete``."""
    measures = [arg for m in TREC_EVAL_MEASURES for arg in ("-m", m)]
    flags = ["-q", *(["-c"] if complete else []), *measures, str(qrels_path), str(run_path)]
    commands = {"rankkit evaluate": [*rankkit_command(), "evaluate", *flags]}
    if shutil.which("trec_eval"):
        commands["trec_eval"] = [shutil.which("trec_eval"), *flags]
    return commands


# Variables a user's shell does not usually set, which change what a Python process costs:
# with PYTHONDONTWRITEBYTECODE, an editable checkout's modules (rankkit's) are compiled at
# every start; PYTHONUNBUFFERED writes every line as it comes.
NOT_A_USERS = ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED")


def user_env() -> dict:
    """This environment less :data:`NOT_A_USERS`: the commands run as in a user's shell."""
    return {k: v for k, v in os.environ.items() if k not in NOT_A_USERS}


def whole_process(command: list[str], out: Path) -> dict:
    """One run of ``command`` by :data:`PROCESS_HELPER`, its standard output into ``out``."""
    gc.collect()
    done = subprocess.run([sys.executable, "-I", "-S", "-c", PROCESS_HELPER, str(out), *command],
                          check=True, capture_output=True, text=True, env=user_env())
    m = json.loads(done.stdout.strip().splitlines()[-1])
    if m["status"] != 0:
        raise RuntimeError(f"exit status {m['status']}: {' '.join(command)}")
    return m


def time_processes(label: str, commands: dict[str, list[str]], rounds: int, report: Report,
                   warm_up: bool = True) -> dict:
    """``rounds`` runs of each command, interleaved, after one run each that is not counted
    (``warm_up``: bytecode written, files in the page cache); the outputs compared byte for byte."""
    runs: dict[str, list[dict]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory(prefix="rankkit-bench-") as tmp:
        outputs = {name: Path(tmp) / f"out{i}.txt" for i, name in enumerate(commands)}
        for name, command in commands.items() if warm_up else ():
            whole_process(command, outputs[name])
        for i in range(rounds):
            for name, command in commands.items():
                m = whole_process(command, outputs[name])
                runs[name].append(m)
                print(f"  round {i + 1}/{rounds}  {name:<18} {m['wall']:7.3f} s wall {m['cpu']:7.3f} s CPU "
                      f"{m['peak_bytes'] / 2**20:8.1f} MiB", flush=True)
        texts = {name: path.read_bytes() for name, path in outputs.items()}
    same = len(set(texts.values())) == 1
    report.agreement.append({"what": f"{label}: the output of the last round, byte for byte",
                             "peer": " vs ".join(commands), "bytes": {n: len(t) for n, t in texts.items()},
                             "ok": same if len(texts) > 1 else None})
    for name, ms in runs.items():
        report.process.append({"data": label, "command": name, "argv": commands[name],
                               "wall": [m["wall"] for m in ms], "cpu": [m["cpu"] for m in ms],
                               "peak_bytes": max(m["peak_bytes"] for m in ms), "floor_bytes": ms[0]["floor_bytes"]})
    return {name: [m["wall"] for m in ms] for name, ms in runs.items()}


# The files scenario's in-process times, as the process scenario names them.
IN_PROCESS = {"rankkit": "rankkit.evaluate, in the benchmark's process",
              "rankkit, a fresh process": "rankkit.evaluation.scoring, fresh process, after imports",
              "ranx": "ranx, in process, warm"}


def in_process_peers(args, report: Report, qrels_path: Path, run_path: Path) -> dict:
    """In-process times to show beside the whole processes: those of the files scenario when
    it ran, else rankkit and ranx (warm: numba compiled in the warm-up) timed here."""
    files = report.times.get(f"files {size(args, max(args.docs))} {args.ids[0]}")
    if files is None:
        print("  (files scenario not run: rankkit and ranx in this process)", flush=True)
        files, _ = rounds({"rankkit": (rankkit_files, (qrels_path, run_path)),
                           "ranx": (ranx_files, (qrels_path, run_path))}, args.repeat)
    return files


def scenario_process(args, report: Report) -> None:
    unset = [k for k in NOT_A_USERS if k in os.environ]
    if unset:
        print(f"\n(whole processes run without {', '.join(unset)}, as in a user's shell)")
    example = (EXAMPLE / "example.qrels", EXAMPLE / "example.run")
    label = "process data/example.* -c"
    print(f"\n[{label}] whole processes, as run in a shell, output to a file", flush=True)
    walls = time_processes(label, process_commands(*example, complete=True), EXAMPLE_ROUNDS * args.repeat, report)
    report.target(f"{label}: rankkit evaluate, seconds", median(walls["rankkit evaluate"]),
                  GOAL_EXAMPLE_SECONDS, "<=", unit="s")
    if "trec_eval" in walls:
        report.target(f"{label}: trec_eval / rankkit evaluate", median(walls["trec_eval"]) /
                      median(walls["rankkit evaluate"]), None, ">=")

    paths = ensure_data(args.queries, max(args.docs), args.data, args.ids[0])
    label = f"process {size(args, max(args.docs))} {args.ids[0]}"
    print(f"\n[{label}] whole processes, as run in a shell, output to a file", flush=True)
    walls = time_processes(label, process_commands(*paths, complete=False), args.repeat, report, warm_up=False)
    walls |= {IN_PROCESS[name]: t for name, t in in_process_peers(args, report, *paths).items()
              if name in IN_PROCESS}
    report.times[label] = walls
    ours = median(walls["rankkit evaluate"])
    trec = median(walls["trec_eval"]) / ours if "trec_eval" in walls else None
    report.target(f"{label}: trec_eval / rankkit evaluate", trec, GOAL_PROCESS["trec_eval"], ">=")
    report.target(f"{label}: ranx in process, warm / rankkit evaluate", median(walls[IN_PROCESS["ranx"]]) / ours,
                  GOAL_PROCESS["ranx"], ">=")
    peaks = {r["command"]: r["peak_bytes"] for r in report.process if r["data"] == label}
    report.target(f"{label}: rankkit evaluate / trec_eval peak memory",
                  peaks["rankkit evaluate"] / peaks["trec_eval"] if "trec_eval" in peaks else None,
                  GOAL_MEMORY, "<=")


RUN = {"files": scenario_files, "metric": scenario_metric, "dicts": scenario_dicts,
       "frames": scenario_frames, "sweep": scenario_sweep, "memory": scenario_memory,
       "process": scenario_process}


# --------------------------------------------------------------------------- summary

def at_floor(m: dict) -> str:
    """A warning when trec_eval's peak is within 5 % of the helper's floor: then it is only
    an upper bound of trec_eval's own peak."""
    near = m.get("floor_bytes") and m["peak_bytes"] <= 1.05 * m["floor_bytes"]
    return "  AT THE FLOOR: an upper bound" if near else ""


def print_summary(args, report: Report, load: tuple[float, float]) -> None:
    print(f"\n=== {args.queries:,} queries; median of {args.repeat}; load average {load[0]:.1f} before, "
          f"{load[1]:.1f} after (1 min) on {os.cpu_count()} CPUs ===")
    for label, by_task in report.times.items():
        print(label)
        for task, values in by_task.items():
            runs = ", ".join(f"{v:.3f}" for v in values)
            print(f"  {task:<22} {median(values):8.3f} s   ({runs})")
    if report.memory:
        print("\npeak memory, fresh process each (MiB = 2**20 bytes)")
        print(f"  {'ids':<8} {'library':<12} {'peak MiB':>9} {'B/run line':>11} {'after imports':>14}")
        for m in report.memory:
            extra = (f"{m['imports_bytes'] / 2**20:10.1f} MiB" if "imports_bytes" in m
                     else f"  (helper's floor {m['floor_bytes'] / 2**20:.1f} MiB){at_floor(m)}"
                     if m.get("floor_bytes") else "")
            print(f"  {m['ids']:<8} {m['library']:<12} {m['peak_bytes'] / 2**20:9.1f} "
                  f"{m['bytes_per_run_line']:11.1f} {extra}")
    if report.process:
        print_process(report)
    print(f"\n{'target':<66} {'ratio':>7} {'goal':>8}   result")
    for t in report.targets:
        unit = t.get("unit", "x")
        goal = "" if t["goal"] is None else f"{t['sense']} {t['goal']:.2f}{unit if unit == 's' else ''}"
        ratio = "-" if t["ratio"] is None else f"{t['ratio']:6.2f}{unit}" if unit == "x" else f"{t['ratio']:6.3f}{unit}"
        print(f"{t['target']:<66} {ratio:>7} {goal:>8}   {t['result']}")
    print("\nper-query agreement: max |difference| (queries differing: by > 1e-9, or in the printed "
          "%6.4f for trec_eval)")
    for a in report.agreement:
        print_agreement(a)


def print_process(report: Report) -> None:
    """Whole processes (wall and CPU seconds, peak), beside the in-process times."""
    print("\nwhole processes (interpreter, imports, reading, printing, exit; output to a file), medians;\n"
          "in-process times of the same files beside them")
    print(f"  {'data':<30} {'command':<44} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}")
    for data in dict.fromkeys(r["data"] for r in report.process):
        for r in report.process:
            if r["data"] == data:
                print(f"  {data:<30} {r['command']:<44} {median(r['wall']):8.3f} {median(r['cpu']):8.3f} "
                      f"{r['peak_bytes'] / 2**20:9.1f}{at_floor(r)}")
        for task, values in report.times.get(data, {}).items():
            if task in IN_PROCESS.values():
                print(f"  {data:<30} {task:<44} {median(values):8.3f}")


def print_agreement(a: dict) -> None:
    status = {None: "(reported only)", True: "AGREE", False: "DISAGREE"}[a["ok"]]
    if "bytes" in a:
        sizes = ", ".join(f"{name} {n:,} bytes" for name, n in a["bytes"].items())
        print(f"  {a['what']}\n    {sizes}  {status if a['ok'] is not None else '(one command: nothing to compare)'}")
        return
    if "within" in a:
        cells = "  ".join(f"{s} {'yes' if ok else 'NO'}" for s, ok in a["within"].items())
    else:
        d = a["differences"]
        cells = "  ".join(f"{s} {d[s][0]:.1e} ({d[s][1]})" for s in SPECS)
        if d["only_in_first"] or d["only_in_second"]:
            cells += f"  queries only in rankkit: {d['only_in_first']}, only in the peer: {d['only_in_second']}"
    print(f"  {a['what']}\n    vs {a['peer']}: {cells}  {status}")


def header(args) -> None:
    from importlib.metadata import version

    import rankkit
    te = shutil.which("trec_eval")
    te_version = "not on PATH: its comparisons are left out"
    if te:  # trec_eval -v prints its version on stderr
        te_version = f"{te} ({subprocess.run([te, '-v'], capture_output=True, text=True, check=True).stderr.strip()})"
    print(f"{args.queries:,} queries x {', '.join(f'{d:,}' for d in args.docs)} docs; ids {', '.join(args.ids)}; "
          f"scenarios {', '.join(args.scenarios)}")
    print(f"rankkit {rankkit.__version__} ({Path(rankkit.__file__).parent}), "
          f"pytrec_eval-terrier {version('pytrec_eval-terrier')}, ranx {version('ranx')}, "
          f"numpy {np.__version__}, pandas {pd.__version__}; trec_eval: {te_version}")


def csv_list(kind, choices=None):
    def parse(text: str) -> list:
        items = [kind(x) for x in text.split(",") if x]
        bad = [x for x in items if choices and x not in choices]
        if not items or bad:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list of {choices or kind.__name__}, "
                                             f"got {text!r}")
        return list(dict.fromkeys(items))
    return parse


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000, help="number of queries (10,000)")
    parser.add_argument("--docs", type=csv_list(int), default=[100, 1_000],
                        help="documents per query: dicts and frames at each, files, metric and memory "
                             "at the largest, sweep at the smallest (100,1000)")
    parser.add_argument("--ids", type=csv_list(str, ID_SHAPES), default=list(ID_SHAPES),
                        help="document id shapes (generate.py --ids): memory at each, the other "
                             "scenarios on the first (short,numeric,medium,clueweb)")
    parser.add_argument("--scenarios", type=csv_list(str, SCENARIOS), default=list(SCENARIOS),
                        help=f"which sections to run ({','.join(SCENARIOS)})")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing; the median is reported (3)")
    parser.add_argument("--data", type=Path, default=HERE / "_data", help="data folder (benchmarks/_data)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--child", choices=["rankkit", "pytrec_eval", "ranx"], help=argparse.SUPPRESS)
    parser.add_argument("--qrels", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--run", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    args.docs.sort()
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.child:
        child_main(args.child, args.qrels, args.run)
        return 0
    header(args)
    load_before = os.getloadavg()[0]
    print("warming up ...", flush=True)
    warm_up()
    report = Report()
    for name in SCENARIOS:
        if name in args.scenarios:
            RUN[name](args, report)
            gc.collect()
    load = (load_before, os.getloadavg()[0])
    print_summary(args, report, load)
    if args.json:
        args.json.write_text(json.dumps({"queries": args.queries, "docs": args.docs, "ids": args.ids,
                                         "repeat": args.repeat, "load_average_1min": load,
                                         **report.__dict__}, indent=2))
    return 0 if all(a["ok"] is not False for a in report.agreement) else 1


if __name__ == "__main__":
    sys.exit(main())
