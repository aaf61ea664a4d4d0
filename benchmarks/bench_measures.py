"""Time the measures added in December 2026 (learning-to-rank, diversity, preferences,
beyond-accuracy, weights) and show that none loops over queries in Python.

Synthetic, seeded data, generated in memory or in ``--out`` (default ``build/bench_measures``):

- learning to rank: --queries lists of --docs documents, labels 0-4 (70/15/10/4/1 %),
  scores 0.3 * label plus standard normal noise, each list ordered by its scores; the
  kernels ARP, PWA, OPA, PFound, QueryAUC and LogLoss (sigmoid of the score as the predicted
  probability) on that ``Rankings``;
- diversity: subtopic judgments of 6 subtopics (a third of a list judged, each judged
  document relevant to each subtopic with probability 0.15) at --queries x --docs, and at
  --div-topics x --div-docs (200 x 1,000); the kernels alpha-nDCG@20, ERR-IA@20, NRBP,
  P-IA@20, AP-IA, StRecall@20 on the ``Rankings`` of packed intent labels;
- preferences: one judgment group of three sub-groups of 10 documents per query, graded
  0-3, over a run of --docs documents per query (``-R prefs``);
- recommender: --queries users x --docs recommended items of a 5,000-item catalogue,
  20 training interactions per user, 8 features per item; the measures of
  ``rk.beyond_accuracy`` on ``rk.recommendations(..., k=None)``;
- weights: ``rk.evaluate_scores`` with query weights and with item weights, and
  ``rk.aggregate(weights=)``.

In process, each kernel is timed at --small and --queries queries: wall and CPU time
(``time.perf_counter``, ``time.process_time``), best of --repeat, each call on a fresh copy of
the ``Rankings`` (``dataclasses.replace``: nothing cached from the previous call), after one untimed call
at the smaller size. Printed: the ratio of the two times (10x the queries: about 10x for a
cost linear in the rows, more when a loop's overhead grows with the queries) and the
microseconds per query at the larger size. A Python loop over queries costs at least a
microsecond per query for each NumPy call it makes (one ``np.sum`` of 100 numbers takes
about 2 us here). More directly, the Python function calls of one call at each size are
counted (``cProfile``): a loop over queries makes ten times as many at ten times the
queries; array operations make the same number.

Peers, each where it installs from PyPI (otherwise its rows are left out and the output
says so):

- scikit-learn: ``log_loss`` per query (a loop over the rows of the matrix, one run: it
  takes seconds) and over all rows, and
  ``roc_auc_score(..., sample_weight=)`` against ``rk.evaluate_scores(weights=)``'s pooled AUC;
- pyndeval (ndeval's C code behind a Python API): ``RelevanceEvaluator(qrels).evaluate(run)``
  on tuples, against the six diversity kernels (the ``Rankings`` built beforehand) and
  against ``rankkit.ndeval.ndeval`` from the files (reading included);
- whole processes, CPU time from ``resource.getrusage(RUSAGE_CHILDREN)``: ``rankkit ndeval``
  against an ``ndeval`` binary (``--ndeval``; built from pyndeval's sdist, ``gcc -O2
  src/ndeval.c -lm``), and ``rankkit evaluate -R prefs -m all_prefs`` against
  ``trec_eval`` (``--trec-eval``); their outputs must be the same bytes.

Values are checked: rankkit's log loss and weighted AUC against scikit-learn's (1e-9),
the diversity values against pyndeval's (1e-9) and the processes' outputs byte for byte;
exit status 1 when a check fails.

    python benchmarks/bench_measures.py [--queries 10000] [--small 1000] [--docs 100] [--repeat 3]
                                        [--div-topics 200] [--div-docs 1000] [--ndeval PATH]
                                        [--trec-eval PATH] [--skip ltr,diversity,prefs,recsys,weights]
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import gc
import os
import pstats
import resource
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import rankkit as rk
from rankkit.ndeval import ndeval
from rankkit.recommender import (
    average_popularity,
    catalog_coverage,
    exposure_entropy,
    gini_index,
    intra_list_diversity,
    long_tail_share,
    novelty,
    serendipity,
)

SUBTOPICS = 6
SECTIONS = ("ltr", "diversity", "prefs", "recsys", "weights")
RESULTS: list[tuple[str, str, float, float, str]] = []  # section, what, wall, cpu, note
FAILED: list[str] = []


# --------------------------------------------------------------------------- timing


def best_of(function, repeat: int) -> tuple[float, float, object]:
    """Best wall and best CPU seconds of ``repeat`` calls, and the last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        result = function()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


def process(argv: list[str], repeat: int) -> tuple[float, float, bytes]:
    """Best wall and CPU seconds (user + system of the child) of a whole process, its output."""
    walls, cpus, output = [], [], b""
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        output = subprocess.run(argv, capture_output=True, check=True).stdout
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), min(cpus), output


def record(section: str, what: str, wall: float, cpu: float, note: str = "") -> None:
    RESULTS.append((section, what, wall, cpu, note))
    print(f"  {what:58} {wall:8.3f} s wall {cpu:8.3f} s CPU  {note}", flush=True)


def check(name: str, gap: float, tolerance: float = 1e-9) -> None:
    print(f"  agreement, {name}: largest difference {gap:.1e}")
    if not gap <= tolerance:
        FAILED.append(name)


def python_calls(function) -> int:
    """Python function calls made by one call of ``function`` (cProfile's count)."""
    profile = cProfile.Profile()
    profile.runcall(function)
    return pstats.Stats(profile).total_calls


def scaling(section: str, name: str, make, kernel, sizes: tuple[int, int], repeat: int) -> None:
    """``kernel(make(n))`` timed at both sizes (``make`` outside the clock, one untimed call
    first: imports and first calls): the ratio of the times, microseconds per query, and the
    Python function calls of one call at each size (the same count: no loop over queries)."""
    times, calls = [], []
    for i, n in enumerate(sizes):
        data = make(n)
        if i == 0:
            kernel(data)
        wall, cpu, _ = best_of(lambda d=data: kernel(d), repeat)
        times.append((wall, cpu))
        calls.append(python_calls(lambda d=data: kernel(d)))
    (w1, c1), (w2, c2) = times
    record(section, f"{name} @ {sizes[1]:,}", w2, c2,
           f"{sizes[1] // sizes[0]}x queries: {w2 / w1:5.1f}x wall, {c2 / max(c1, 1e-9):5.1f}x CPU; "
           f"{w2 / sizes[1] * 1e6:6.2f} us/query; Python calls {calls[0]:,} / {calls[1]:,}")


def optional(name: str):
    try:
        return __import__(name)
    except ImportError:
        print(f"  ({name} not installed: its rows are left out)")
        return None


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# --------------------------------------------------------------------------- learning to rank


def ranked_lists(n: int, docs: int, seed: int = 0) -> tuple[rk.Rankings, np.ndarray]:
    """Labels of n lists ordered by their scores, as Rankings, and the scores in that order."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(5, (n, docs), p=[0.70, 0.15, 0.10, 0.04, 0.01]).astype(np.float64)
    scores = 0.3 * labels + rng.standard_normal((n, docs))
    order = np.argsort(-scores, axis=1, kind="stable")
    return rk.as_rankings(np.take_along_axis(labels, order, 1)), np.take_along_axis(scores, order, 1)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def ltr_inputs(n: int, docs: int) -> tuple[rk.Rankings, np.ndarray, rk.Rankings]:
    """The ranked lists, the sigmoid of their scores, and their labels / 4 (pFound's pRel)."""
    r, s = ranked_lists(n, docs)
    return r, sigmoid(s), rk.as_rankings(r.labels / 4.0)


# each kernel gets a fresh copy of the Rankings (nothing cached) and the predictions
LTR_KERNELS = {
    "ARP": lambda r, p, g: rk.average_relevance_position(r),
    "PWA@10": lambda r, p, g: rk.position_weighted_average(r, k=10),
    "OPA": lambda r, p, g: rk.ordered_pair_accuracy(r),
    "PFound@10 (pRel = label / 4)": lambda r, p, g: rk.pfound(g, k=10),
    "QueryAUC": lambda r, p, g: rk.query_auc(r),
    "LogLoss (p = sigmoid of the score)": lambda r, p, g: rk.log_loss(r, p),
}


def bench_ltr(args) -> None:
    print(f"\n== learning-to-rank kernels on Rankings, {args.docs} documents per list (best of {args.repeat})")
    for name, kernel in LTR_KERNELS.items():
        scaling("ltr", name, lambda n: ltr_inputs(n, args.docs),
                lambda d, k=kernel: k(dataclasses.replace(d[0]), d[1], dataclasses.replace(d[2])),
                (args.small, args.queries), args.repeat)
    sklearn_log_loss(args)


def sklearn_log_loss(args) -> None:
    """rk.log_loss per query and over all rows against scikit-learn's log_loss."""
    metrics = optional("sklearn.metrics")
    if metrics is None:
        return
    from sklearn.metrics import log_loss

    r, s = ranked_lists(args.queries, args.docs)
    target, p = (r.labels >= 1).astype(np.float64), sigmoid(s)
    ours = best_of(lambda: rk.log_loss(r, p), args.repeat)
    theirs = best_of(lambda: np.array([log_loss(t, q, labels=[0, 1]) for t, q in zip(target, p)]), 1)
    record("ltr", f"rk.log_loss per query @ {args.queries:,}", *ours[:2])
    record("ltr", "scikit-learn log_loss, loop over queries (one run)", *theirs[:2],
           f"{theirs[0] / ours[0]:.0f}x rankkit")
    check("log loss per query vs scikit-learn", float(np.max(np.abs(ours[2] - theirs[2]))))
    pooled = best_of(lambda: rk.metrics.ltr.log_loss_total(r, p), args.repeat)
    whole = best_of(lambda: log_loss(target.ravel(), p.ravel()), args.repeat)
    record("ltr", "LogLoss over all rows (log_loss_total)", *pooled[:2])
    record("ltr", "scikit-learn log_loss over all rows", *whole[:2], f"{whole[0] / pooled[0]:.1f}x rankkit")
    check("pooled log loss vs scikit-learn", abs(float(pooled[2]) - float(whole[2])))


# --------------------------------------------------------------------------- diversity


def diversity_frames(n: int, docs: int, seed: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Subtopic judgments (topic, subtopic, docno, judgment) and a run of n topics x docs."""
    rng = np.random.default_rng(seed)
    topic = np.repeat(np.arange(1, n + 1), docs)
    doc = np.tile(np.arange(docs), n)  # every topic its own documents
    doc_ids = np.char.add(np.char.add("d", topic.astype(str)), np.char.add("-", doc.astype(str)))
    score = np.round(rng.random(n * docs) * 100, 4)
    run = pd.DataFrame({"query_id": topic.astype(str), "doc_id": doc_ids, "score": score})
    run = run.sort_values(["query_id", "score"], ascending=[True, False], kind="stable")
    run["rank"] = np.tile(np.arange(1, docs + 1), n)
    pool = run.groupby("query_id", sort=False).sample(frac=1 / 3, random_state=seed)
    judged = pool.loc[pool.index.repeat(SUBTOPICS)]
    qrels = pd.DataFrame({"query_id": judged.query_id.to_numpy(),
                          "subtopic_id": np.tile(np.arange(1, SUBTOPICS + 1), len(pool)),
                          "doc_id": judged.doc_id.to_numpy(),
                          "relevance": (rng.random(len(judged)) < 0.15).astype(np.int64)})
    return qrels, run


def write_diversity(qrels: pd.DataFrame, run: pd.DataFrame, folder: Path, tag: str) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    q, r = folder / f"div_{tag}.qrels", folder / f"div_{tag}.run"
    qrels.to_csv(q, sep=" ", header=False, index=False)
    run.assign(q0="Q0", tag="bench")[["query_id", "q0", "doc_id", "rank", "score", "tag"]].to_csv(
        r, sep=" ", header=False, index=False)
    return q, r


def diversity_rankings(qrels: pd.DataFrame, run: pd.DataFrame) -> rk.Rankings:
    from rankkit.io.subtopics import intent_labels

    by_rank = run.assign(score=-run["rank"].astype(np.float64))  # ndeval orders by the rank column
    return rk.rank(intent_labels(qrels), by_rank[["query_id", "doc_id", "score"]])


DIVERSITY_KERNELS = {
    "alpha-nDCG@20": ("alpha-nDCG@20", lambda r: rk.metrics.diversity.alpha_ndcg(r, k=20)),
    "ERR-IA@20": ("ERR-IA@20", lambda r: rk.metrics.diversity.err_ia(r, k=20)),
    "NRBP": ("NRBP", lambda r: rk.metrics.diversity.nrbp(r)),
    "P-IA@20": ("P-IA@20", lambda r: rk.metrics.diversity.precision_ia(r, k=20)),
    "AP-IA": ("MAP-IA", lambda r: rk.metrics.diversity.ap_ia(r)),
    "StRecall@20": ("strec@20", lambda r: rk.metrics.diversity.subtopic_recall(r, k=20)),
}


def all_diversity(r: rk.Rankings) -> dict:
    return {name: kernel(dataclasses.replace(r)) for name, (_, kernel) in DIVERSITY_KERNELS.items()}


def bench_diversity(args) -> None:
    print(f"\n== diversity kernels, {SUBTOPICS} subtopics (best of {args.repeat})")
    frames = {n: diversity_frames(n, args.docs) for n in (args.small, args.queries)}
    for name, (_, kernel) in DIVERSITY_KERNELS.items():
        scaling("diversity", f"{name}, lists of {args.docs}", lambda n: diversity_rankings(*frames[n]),
                lambda r, k=kernel: k(dataclasses.replace(r)), (args.small, args.queries), args.repeat)
    for n, docs in ((args.queries, args.docs), (args.div_topics, args.div_docs)):
        qrels, run = frames[n] if docs == args.docs else diversity_frames(n, docs)
        print(f"  -- {n:,} topics x {docs:,} documents: {len(qrels):,} judgment lines")
        r = diversity_rankings(qrels, run)
        ours = best_of(lambda r=r: all_diversity(r), args.repeat)
        record("diversity", f"six kernels on Rankings, {n:,} x {docs:,}", *ours[:2])
        files = write_diversity(qrels, run, args.out, f"{n}x{docs}")
        whole = best_of(lambda f=files: ndeval(*map(str, f)), args.repeat)
        record("diversity", f"rankkit.ndeval.ndeval from the files (21 columns), {n:,} x {docs:,}", *whole[:2])
        peer_pyndeval(args, qrels, run, r, ours, whole)
        peer_ndeval_binary(args, files)


def peer_pyndeval(args, qrels: pd.DataFrame, run: pd.DataFrame, r: rk.Rankings, ours, whole) -> None:
    pyndeval = optional("pyndeval")
    if pyndeval is None:
        return
    tuples = list(qrels[["query_id", "subtopic_id", "doc_id", "relevance"]].astype(
        {"subtopic_id": str}).itertuples(index=False, name=None))
    pairs = list(run.assign(score=-run["rank"].astype(np.float64))[["query_id", "doc_id", "score"]].itertuples(
        index=False, name=None))
    measures = [peer for peer, _ in DIVERSITY_KERNELS.values()]
    evaluator = pyndeval.RelevanceEvaluator(tuples, measures)
    theirs = best_of(lambda: evaluator.evaluate(iter(pairs)), args.repeat)
    record("diversity", "pyndeval evaluate (evaluator built beforehand)", *theirs[:2],
           f"{theirs[0] / ours[0]:.1f}x the kernels")
    built = best_of(lambda: pyndeval.ndeval(tuples, iter(pairs), measures), args.repeat)
    record("diversity", "pyndeval.ndeval from tuples (21 columns: 6 asked)", *built[:2],
           f"{built[0] / whole[0]:.1f}x rankkit.ndeval from files")
    ids = pd.Index(r.query_ids).astype(str)
    gap = 0.0
    for name, (peer, _) in DIVERSITY_KERNELS.items():
        expected = np.array([theirs[2].get(q, {}).get(peer, 0.0) for q in ids])
        gap = max(gap, float(np.max(np.abs(np.asarray(ours[2][name]) - expected))))
    check("diversity kernels vs pyndeval, per topic", gap)


def peer_ndeval_binary(args, files: tuple[Path, Path]) -> None:
    if not args.ndeval:
        print("  (no ndeval binary: --ndeval; its rows are left out)")
        return
    ours = process([sys.executable, "-m", "rankkit", "ndeval", *map(str, files)], args.repeat)
    theirs = process([args.ndeval, *map(str, files)], args.repeat)
    record("diversity", "process: rankkit ndeval QRELS RUN", *ours[:2])
    record("diversity", "process: ndeval QRELS RUN (C)", *theirs[:2],
           f"rankkit / ndeval: {ours[0] / theirs[0]:.1f}x wall, {ours[1] / theirs[1]:.1f}x CPU")
    same = ours[2] == theirs[2]
    print(f"  outputs of rankkit ndeval and ndeval: {'identical' if same else 'DIFFERENT'} ({len(ours[2]):,} bytes)")
    if not same:
        FAILED.append("rankkit ndeval output")


# --------------------------------------------------------------------------- preferences


def write_prefs(n: int, docs: int, folder: Path, seed: int = 2) -> tuple[Path, Path]:
    """A prefs file (one judgment group of three sub-groups of 10 documents per query, grades
    0-3, a fifth of them not retrieved) and a run of n queries x docs."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    query = np.repeat(np.arange(n), docs)
    doc = np.tile(np.arange(docs), n)
    run = pd.DataFrame({"q": query, "q0": "Q0", "doc": np.char.add(np.char.add("D", query.astype(str)),
                                                               np.char.add("-", doc.astype(str))),
                        "rank": doc, "score": np.round(rng.random(n * docs) * 10, 4), "tag": "bench"})
    pick = np.argsort(rng.random((n, docs + docs // 4)), axis=1)[:, :30]  # 30 documents of a wider pool
    q = np.repeat(np.arange(n), 30)
    docs_of = np.char.add(np.char.add("D", q.astype(str)), np.char.add("-", pick.ravel().astype(str)))
    prefs = pd.DataFrame({"q": q, "jg": "u0", "jsg": np.tile(np.repeat(["s0", "s1", "s2"], 10), n), "doc": docs_of,
                          "rel": rng.choice(4, n * 30, p=[0.4, 0.3, 0.2, 0.1])})
    paths = folder / f"prefs_{n}.txt", folder / f"prefs_{n}.run"
    prefs.to_csv(paths[0], sep=" ", header=False, index=False)
    run.to_csv(paths[1], sep=" ", header=False, index=False)
    return paths


def bench_prefs(args) -> None:
    print(f"\n== preferences (trec_eval -R prefs), {args.docs} documents per query (best of {args.repeat})")
    from rankkit.evaluation.preferences import evaluate_preferences

    files = {n: write_prefs(n, args.docs, args.out) for n in (args.small, args.queries)}

    def make(n):
        return rk.read_prefs(str(files[n][0])), rk.read_run(str(files[n][1]))

    def kernel(data):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return evaluate_preferences(data[0], data[1], ["all_prefs"])

    scaling("prefs", "evaluate_preferences, all_prefs (files read beforehand)", make, kernel,
            (args.small, args.queries), args.repeat)
    argv = ["-q", "-m", "all_prefs", "-R", "prefs", *map(str, files[args.queries])]
    ours = process([sys.executable, "-m", "rankkit", "evaluate", *argv], args.repeat)
    record("prefs", f"process: rankkit evaluate -R prefs -m all_prefs -q @ {args.queries:,}", *ours[:2])
    if not args.trec_eval:
        print("  (no trec_eval binary: --trec-eval; its rows are left out)")
        return
    theirs = process([args.trec_eval, *argv], args.repeat)
    record("prefs", "process: trec_eval -R prefs -m all_prefs -q (C)", *theirs[:2],
           f"rankkit / trec_eval: {ours[0] / theirs[0]:.1f}x wall, {ours[1] / theirs[1]:.1f}x CPU")
    same = ours[2] == theirs[2]
    print(f"  outputs of rankkit and trec_eval: {'identical' if same else 'DIFFERENT'} ({len(ours[2]):,} bytes)")
    if not same:
        FAILED.append("rankkit evaluate -R prefs output")


# --------------------------------------------------------------------------- recommender


def recommender_frames(users: int, items: int, catalog: int = 5000, seed: int = 3) -> tuple:
    """The arguments of rk.recommendations: a run of users x items scored items, 20 training
    interactions per user (popularity skewed), the catalogue, 8 features per item, judgments
    of 5 items per user."""
    rng = np.random.default_rng(seed)
    popular = rng.zipf(1.3, (users, items + 40)) % catalog
    user = np.repeat(np.char.add("u", np.arange(users).astype(str)), items)
    rows = np.argsort(rng.random((users, items + 40)), axis=1)
    chosen = np.take_along_axis(popular, rows, 1)
    run = pd.DataFrame({"query_id": user, "doc_id": np.char.add("i", chosen[:, :items].ravel().astype(str)),
                        "score": rng.random(users * items)}).drop_duplicates(["query_id", "doc_id"])
    train = pd.DataFrame({"user_id": np.repeat(np.char.add("u", np.arange(users).astype(str)), 20),
                          "item_id": np.char.add("i", chosen[:, items:items + 20].ravel().astype(str))})
    ids = np.char.add("i", np.arange(catalog).astype(str))
    features = pd.DataFrame(rng.random((catalog, 8)) + 0.01, index=ids)
    qrels = run.groupby("query_id").head(5).assign(relevance=1)[["query_id", "doc_id", "relevance"]]
    return run, train, ids, features, qrels


def prepared(frames: tuple) -> rk.Recommendations:
    run, train, ids, features, qrels = frames
    return rk.recommendations(run, train, catalog=ids, k=None, features=features, qrels=qrels)


RECSYS_MEASURES = {
    "catalog_coverage": lambda r: catalog_coverage(r),
    "exposure_entropy": lambda r: exposure_entropy(r),
    "gini_index": lambda r: gini_index(r),
    "average_popularity": lambda r: average_popularity(r),
    "long_tail_share": lambda r: long_tail_share(r),
    "novelty": lambda r: novelty(r),
    "intra_list_diversity@10 (features)": lambda r: intra_list_diversity(r, k=10, similarity="features"),
    "serendipity@10 (features)": lambda r: serendipity(r, k=10, similarity="features"),
}


def bench_recsys(args) -> None:
    print(f"\n== beyond accuracy, {args.docs} items per user, 5,000-item catalogue (best of {args.repeat})")
    made = {}

    def make(n):
        if n not in made:
            made[n] = prepared(recommender_frames(n, args.docs))
        return made[n]

    for name, measure in RECSYS_MEASURES.items():
        scaling("recsys", name, make, measure, (args.small, args.queries), args.repeat)
    scaling("recsys", "rk.recommendations (from frames)", lambda n: recommender_frames(n, args.docs), prepared,
            (args.small, args.queries), args.repeat)


# --------------------------------------------------------------------------- weights


def score_rows(n: int, docs: int, seed: int = 4):
    """Labels, scores (two decimals: some ties), query ids and row weights equal within a query."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(5, n * docs, p=[0.70, 0.15, 0.10, 0.04, 0.01])
    scores = np.round(0.3 * labels + rng.standard_normal(n * docs), 6)
    query = np.repeat(np.arange(n, dtype=np.int64), docs)
    query_w = rng.integers(1, 5, n).astype(np.float64)
    return labels, scores, query, query_w, np.repeat(query_w, docs), rng.random(n * docs) + 0.1


def bench_weights(args) -> None:
    print(f"\n== weights, {args.docs} rows per query (best of {args.repeat})")
    specs = ["nDCG@10", "AP", "AUC", "GAUC"]

    def run(d, **kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return rk.evaluate_scores(d[0], d[1], d[2], kw.pop("specs", specs), **kw)

    make = lambda n: score_rows(n, args.docs)  # noqa: E731

    def make_table(n):
        d = make(n)
        return run(d, specs=["nDCG@10", "AP"]), d[3]

    sizes = (args.small, args.queries)
    scaling("weights", "evaluate_scores nDCG@10, AP, AUC, GAUC, no weights", make, run, sizes, args.repeat)
    scaling("weights", "the same, weights= per query", make, lambda d: run(d, weights=d[3]), sizes, args.repeat)
    scaling("weights", "evaluate_scores nDCG@10, AP, item_weights= per row", make,
            lambda d: run(d, specs=["nDCG@10", "AP"], ties="optimistic", item_weights=d[5]), sizes, args.repeat)
    scaling("weights", "rk.aggregate(table, weights=) of an nDCG@10, AP table", make_table,
            lambda d: rk.aggregate(d[0], weights=d[1]), sizes, args.repeat)
    sk = optional("sklearn.metrics")
    if sk is None:
        return
    from sklearn.metrics import roc_auc_score

    d = make(args.queries)
    ours = best_of(lambda: run(d, specs=["AUC"], weights=d[3]), args.repeat)
    theirs = best_of(lambda: roc_auc_score(d[0] >= 1, d[1], sample_weight=d[4]), args.repeat)
    record("weights", f"pooled AUC with query weights @ {args.queries:,} (evaluate_scores)", *ours[:2])
    record("weights", "scikit-learn roc_auc_score(sample_weight=)", *theirs[:2], f"{theirs[0] / ours[0]:.1f}x rankkit")
    check("weighted AUC vs scikit-learn", abs(float(ours[2].all["AUC"]) - float(theirs[2])))


# --------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--div-topics", type=int, default=200)
    parser.add_argument("--div-docs", type=int, default=1000)
    parser.add_argument("--ndeval", default=shutil.which("ndeval"), help="an ndeval binary (default: on PATH)")
    parser.add_argument("--trec-eval", default=shutil.which("trec_eval"), help="trec_eval (default: on PATH)")
    parser.add_argument("--out", type=Path, default=Path("build/bench_measures"))
    parser.add_argument("--skip", type=lambda s: set(s.split(",")), default=set())
    args = parser.parse_args()
    print(f"load average before: {load()} (2 cores shared); numpy {np.__version__}, pandas {pd.__version__}")
    for section in SECTIONS:
        if section not in args.skip:
            globals()[f"bench_{section}"](args)
    print(f"\nload average after: {load()}")
    print(f"\n{'section':10} {'what':70} {'wall s':>8} {'CPU s':>8}  note")
    for section, what, wall, cpu, note in RESULTS:
        print(f"{section:10} {what:70} {wall:8.3f} {cpu:8.3f}  {note}")
    if FAILED:
        print(f"\nchecks FAILED: {', '.join(FAILED)}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
