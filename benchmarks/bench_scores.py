"""Time rankkit.evaluate_scores on a model's predictions against per-query loops of its peers.

Model predictions as learning-to-rank code holds them: three 1-D arrays (graded labels,
scores, query ids), the rows of a query scattered over the arrays. Synthetic and seeded:
labels 0-4 (70/15/10/4/1 %), scores 0.3 * label plus standard normal noise rounded to 2
decimals (so that scores tie within queries), rows shuffled.

Timed on --queries x --docs (10,000 x 100):

- rankkit: ``evaluate_scores(labels, scores, query, metrics)`` on the NumPy arrays, for
  nDCG@10, nDCG@10 + AUC, and its default nDCG@10, AUC, GAUC, PNR; again with the rows
  grouped by query id (LightGBM's and XGBoost's layout, which needs no sort to find the
  queries; the peers' times hardly depend on it);
- scikit-learn, a loop over queries: ``ndcg_score([y], [s], k=10)`` and
  ``roc_auc_score(y >= 1, s)`` per query (queries of one class skipped, as roc_auc_score
  refuses them), after grouping the rows by query (one stable argsort and ``np.split``,
  included in the time);
- torchmetrics (when installed), a loop over queries of its functional metrics
  ``retrieval_normalized_dcg(s, y, top_k=10)`` and ``retrieval_auroc(s, y >= 1)``, after
  grouping the tensors by query (included), and its module ``RetrievalNormalizedDCG(top_k=10)``
  given every row with ``indexes`` (its own grouping; it returns the mean only);
- rankkit on PyTorch tensors (CPU) and JAX arrays (CPU, float32 unless jax_enable_x64),
  the same calls: the array-API path, timed after one call at the same shapes (JAX
  compiles each operation per shape on first use).

Every library runs once on 50 queries x 10 rows first (imports, first calls); each time is
then the median of --repeat runs (rankkit's after one untimed run at the same size);
PyTorch and XLA get --threads threads (1: NumPy's kernels use one, and on a shared 2-core
machine more threads contend with other processes). Ratios are peer time / rankkit
time, with the goals (>= 20x the scikit-learn loop, >= 50x torchmetrics' functional loop).
Agreement: rankkit's nDCG@10 and AUC per query must equal scikit-learn's within 1e-12
(exit status 1 otherwise); torchmetrics' nDCG@10 and the other libraries' values are
compared and their largest difference printed.

Growth: evaluate_scores (NumPy; and PyTorch unless --no-torch) from 1,000 to 1,000,000
queries (--growth; --growth-repeat runs per size, 1 by default), --docs rows per query
while the total stays within --max-rows (10,000,000: the inputs and the padded matrices of
1e8 rows would need tens of GB), fewer rows per query above it (1,000,000 x 10); the
header says which.

    python benchmarks/bench_scores.py [--queries N] [--docs M] [--repeat R] [--growth 1000,10000,...]
                                      [--max-rows N] [--no-torch] [--no-jax] [--no-growth] [--json out.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
import warnings

import numpy as np

from rankkit.evaluation import evaluate_scores

DEFAULT = ["nDCG@10", "AUC", "GAUC", "PNR"]
TASKS = {"nDCG@10": ["nDCG@10"], "nDCG@10 + AUC": ["nDCG@10", "AUC"], "default 4": DEFAULT}


def make_data(n_queries: int, docs: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels, scores and query ids of n_queries x docs rows, in shuffled order."""
    rng = np.random.default_rng(seed)
    n = n_queries * docs
    labels = rng.choice(5, n, p=[0.70, 0.15, 0.10, 0.04, 0.01])
    scores = np.round(0.3 * labels + rng.standard_normal(n), 2)
    query = np.repeat(np.arange(n_queries, dtype=np.int64), docs)
    order = rng.permutation(n)
    return labels[order], scores[order], query[order]


def timed(function, repeat: int, warm: bool = True) -> tuple[float, list[float], object]:
    """Median seconds of ``repeat`` calls (after one untimed call if ``warm``), each run, the
    last result."""
    result = function() if warm else None
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times, result


def quiet(function):
    """The call with rankkit's warnings about one-class queries silenced (they are expected)."""
    def call():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return function()
    return call


# --------------------------------------------------------------------------- peers


def grouped(labels, scores, query):
    """Each query's labels and scores (NumPy), queries in id order."""
    order = np.argsort(query, kind="stable")
    bounds = np.flatnonzero(np.diff(query[order])) + 1
    return np.split(labels[order], bounds), np.split(scores[order], bounds)


def sklearn_loop(labels, scores, query, with_auc: bool):
    from sklearn.metrics import ndcg_score, roc_auc_score

    ys, ss = grouped(labels, scores, query)
    ndcg = np.array([ndcg_score([y], [s], k=10) if len(y) > 1 else np.nan for y, s in zip(ys, ss)])
    if not with_auc:
        return ndcg, None
    auc = np.array([roc_auc_score(y >= 1, s) if 0 < (y >= 1).sum() < len(y) else np.nan for y, s in zip(ys, ss)])
    return ndcg, auc


def torchmetrics_loop(labels, scores, query, with_auc: bool):
    import torch
    from torchmetrics.functional.retrieval import retrieval_auroc, retrieval_normalized_dcg

    order = torch.argsort(query, stable=True)
    counts = torch.unique_consecutive(query[order], return_counts=True)[1].tolist()
    ys, ss = torch.split(labels[order], counts), torch.split(scores[order], counts)
    ndcg = torch.stack([retrieval_normalized_dcg(s, y, top_k=10) for y, s in zip(ys, ss)])
    if not with_auc:
        return ndcg, None
    return ndcg, torch.stack([retrieval_auroc(s, y >= 1) for y, s in zip(ys, ss)])


def torchmetrics_module(labels, scores, query):
    from torchmetrics.retrieval import RetrievalNormalizedDCG

    metric = RetrievalNormalizedDCG(top_k=10)
    metric.update(scores, labels, indexes=query)
    return metric.compute()


# --------------------------------------------------------------------------- sections


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def host(x) -> np.ndarray:
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def compare_peers(args, out: dict) -> int:
    """Section 1: rankkit against scikit-learn's and torchmetrics' loops at one size."""
    warm_up(args)
    labels, scores, query = make_data(args.queries, args.docs)
    print(f"\n== {args.queries:,} queries x {args.docs} rows, {len(labels):,} rows (median of {args.repeat})")
    rows, status = [], 0
    ours = {}
    for task, metrics in TASKS.items():
        ours[task] = timed(quiet(lambda m=metrics: evaluate_scores(labels, scores, query, m)), args.repeat)
        rows.append(("rankkit (NumPy)", task, ours[task][0]))
    by_query = np.argsort(query, kind="stable")
    grouped_rows = labels[by_query], scores[by_query], query[by_query]
    for task, metrics in TASKS.items():
        seconds = timed(quiet(lambda m=metrics: evaluate_scores(*grouped_rows, m)), args.repeat)[0]
        rows.append(("rankkit (NumPy, rows grouped)", task, seconds))
    sk = {}
    for task, with_auc in (("nDCG@10", False), ("nDCG@10 + AUC", True)):
        sk[task] = timed(lambda w=with_auc: sklearn_loop(labels, scores, query, w), args.repeat, warm=False)
        rows.append(("scikit-learn loop", task, sk[task][0]))
    table = ours["nDCG@10 + AUC"][2]
    ndcg, auc = sk["nDCG@10 + AUC"][2]
    for name, mine, theirs in (("nDCG@10", table["nDCG@10"], ndcg), ("AUC", table["AUC"], auc)):
        both = ~np.isnan(theirs)
        gap = float(np.max(np.abs(np.asarray(mine)[both] - theirs[both])))
        print(f"agreement with scikit-learn, {name} per query: largest difference {gap:.2e}")
        if gap > 1e-12:
            status = 1
    out["agreement_sklearn"] = True if status == 0 else False
    torch = _optional("torch", args.no_torch)
    if torch is not None and _optional("torchmetrics", False) is not None:
        tl, ts, tq = torch.from_numpy(labels), torch.from_numpy(scores), torch.from_numpy(query)
        tm = {}
        for task, with_auc in (("nDCG@10", False), ("nDCG@10 + AUC", True)):
            tm[task] = timed(lambda w=with_auc: torchmetrics_loop(tl, ts, tq, w), args.repeat, warm=False)
            rows.append(("torchmetrics functional loop", task, tm[task][0]))
        module = timed(lambda: torchmetrics_module(tl, ts, tq), args.repeat, warm=False)
        rows.append(("torchmetrics RetrievalNormalizedDCG", "nDCG@10", module[0]))
        gap = float(np.max(np.abs(np.asarray(table["nDCG@10"]) - host(tm["nDCG@10"][2][0]))))
        print(f"agreement with torchmetrics, nDCG@10 per query: largest difference {gap:.2e}")
        print(f"torchmetrics' module mean {float(module[2]):.6f}, rankkit's mean "
              f"{float(np.mean(table['nDCG@10'])):.6f}")
    rows += _other_libraries(args, labels, scores, query, table)
    _print_rows(rows, out)
    return status


def warm_up(args) -> None:
    """Every library once on 50 queries x 10 rows: imports and first calls outside the clock."""
    labels, scores, query = make_data(50, 10, seed=1)
    quiet(lambda: evaluate_scores(labels, scores, query, DEFAULT))()
    sklearn_loop(labels, scores, query, True)
    torch = _optional("torch", args.no_torch)
    if torch is not None:
        torch.set_num_threads(args.threads)
        if _optional("torchmetrics", False) is not None:
            arrays = torch.from_numpy(labels), torch.from_numpy(scores), torch.from_numpy(query)
            torchmetrics_loop(*arrays, True)
            torchmetrics_module(*arrays)


def _optional(name: str, skip: bool):
    if skip:
        return None
    try:
        return __import__(name)
    except ImportError:
        print(f"({name} not installed: its rows are left out)")
        return None


def _other_libraries(args, labels, scores, query, reference) -> list[tuple[str, str, float]]:
    """rankkit's array-API path on PyTorch tensors and JAX arrays."""
    rows = []
    makers = []
    torch = _optional("torch", args.no_torch)
    if torch is not None:
        makers.append(("rankkit (PyTorch, CPU)", torch.from_numpy))
    if not args.no_jax and _optional("jax", False) is not None:
        import jax.numpy as jnp

        makers.append(("rankkit (JAX, CPU)", jnp.asarray))
    for name, make in makers:
        arrays = make(labels), make(scores), make(query)
        for task in ("nDCG@10", "default 4"):
            seconds, _, table = timed(quiet(lambda m=TASKS[task], a=arrays: _blocked(evaluate_scores(*a, m))),
                                      args.repeat)
            rows.append((name, task, seconds))
            if task == "default 4":
                gaps = [float(np.nanmax(np.abs(host(table[m]) - np.asarray(reference[m]))))
                        for m in ("nDCG@10", "AUC") if m in reference]
                print(f"{name}: largest difference from NumPy's nDCG@10 / AUC per query: "
                      + " / ".join(f"{g:.1e}" for g in gaps))
    return rows


def _blocked(table):
    """Wait for the values of an asynchronous library (JAX) before the clock stops."""
    for value in table.values():
        if hasattr(value, "block_until_ready"):
            value.block_until_ready()
    return table


def _print_rows(rows, out: dict) -> None:
    ours = {task: seconds for name, task, seconds in rows if name == "rankkit (NumPy)"}
    print(f"\n{'library':38} {'metrics':15} {'seconds':>9} {'ratio to rankkit (NumPy)':>25}")
    for name, task, seconds in rows:
        print(f"{name:38} {task:15} {seconds:9.3f} {seconds / ours[task]:24.1f}x")
    goals = (("scikit-learn loop", 20), ("torchmetrics functional loop", 50))
    grouped = {task: seconds for name, task, seconds in rows if name == "rankkit (NumPy, rows grouped)"}
    print()
    for peer, goal in goals:
        for name, task, seconds in rows:
            if name == peer:
                ratio = seconds / ours[task]
                print(f"{peer} / rankkit, {task}: {ratio:.1f}x (goal >= {goal}x): "
                      f"{'PASS' if ratio >= goal else 'MISS'}; rows grouped by query: {seconds / grouped[task]:.1f}x")
    out["rows"] = [{"library": n, "metrics": t, "seconds": s} for n, t, s in rows]


def growth(args, out: dict) -> None:
    """Section 2: evaluate_scores' time from 1k to 1M queries."""
    torch = _optional("torch", args.no_torch)
    print(f"\n== growth: evaluate_scores, {args.docs} rows per query up to {args.max_rows:,} rows, "
          f"fewer above (median of {args.growth_repeat})")
    print(f"{'queries':>10} {'rows/query':>10} {'rows':>12} {'NumPy nDCG@10':>14} {'NumPy default 4':>16} "
          f"{'ns/row':>7}" + (f" {'PyTorch nDCG@10':>16} {'PyTorch default 4':>18}" if torch else ""))
    out["growth"] = []
    quiet(lambda: evaluate_scores(*make_data(50, 10, seed=1), DEFAULT))()
    for n_queries in args.growth:
        docs = min(args.docs, max(1, args.max_rows // n_queries))
        labels, scores, query = make_data(n_queries, docs)
        line = {"queries": n_queries, "docs": docs}
        for task in ("nDCG@10", "default 4"):
            call = quiet(lambda m=TASKS[task], a=(labels, scores, query): evaluate_scores(*a, m))
            line[f"numpy {task}"] = timed(call, args.growth_repeat, warm=False)[0]
        if torch is not None:
            arrays = torch.from_numpy(labels), torch.from_numpy(scores), torch.from_numpy(query)
            for task in ("nDCG@10", "default 4"):
                call = quiet(lambda m=TASKS[task], a=arrays: evaluate_scores(*a, m))
                line[f"torch {task}"] = timed(call, args.growth_repeat, warm=False)[0]
        per_row = line["numpy default 4"] / len(labels) * 1e9
        text = (f"{n_queries:>10,} {docs:>10} {len(labels):>12,} {line['numpy nDCG@10']:>13.3f}s "
                f"{line['numpy default 4']:>15.3f}s {per_row:>7.0f}")
        if torch is not None:
            text += f" {line['torch nDCG@10']:>15.3f}s {line['torch default 4']:>17.3f}s"
        print(text)
        out["growth"].append(line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--growth", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1_000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--max-rows", type=int, default=10_000_000)
    parser.add_argument("--growth-repeat", type=int, default=1, help="runs per size of the growth section")
    parser.add_argument("--threads", type=int, default=1,
                        help="PyTorch's threads (torchmetrics and rankkit on tensors alike; NumPy uses one)")
    parser.add_argument("--no-torch", action="store_true", help="leave out torchmetrics and PyTorch")
    parser.add_argument("--no-jax", action="store_true", help="leave out JAX")
    parser.add_argument("--no-growth", action="store_true", help="only the comparison at one size")
    parser.add_argument("--json", help="write the times and ratios to this file")
    args = parser.parse_args()
    if args.threads == 1:  # XLA's CPU threads, read when JAX is first imported
        os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    out: dict = {"load_before": load(), "threads": args.threads}
    print(f"load average before: {load()}  (2 cores shared: compare the rows of one run); "
          f"PyTorch and XLA threads: {args.threads}")
    status = compare_peers(args, out)
    if not args.no_growth:
        growth(args, out)
    out["load_after"] = load()
    print(f"\nload average after: {load()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main())
