"""Scoring on arrays, without frames: each metric's per-query values as a dict of NumPy
arrays, and each column's ``all`` value. :mod:`rankkit.evaluation.scoring` makes the frames
of :func:`rankkit.evaluate` from these; the command line prints trec_eval's lines from them
directly (:mod:`rankkit.trec_eval`)."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Context, Decimal, localcontext
from typing import Any

import numpy as np

from .._validation import warn_user
from ..names import REGISTRY, Metric, MetricInfo
from ..ops.primitives import is_numpy, query_sum
from ..rankings import Rankings

__all__ = ["score_values", "defaults", "aggregate_column", "geometric_mean", "GEOMETRIC_FLOOR",
           "unscored_queries"]


def defaults(r: Rankings, rel, max_grade, n_docs) -> dict[str, Any]:
    """The parameters the whole evaluation sets for every spec that leaves them out."""
    return {
        "rel": rel,
        "max_grade": max_grade if max_grade is not None else r.max_grade(),
        "n_docs": n_docs,
    }


def _kwargs(metric: Metric, defaults: dict[str, Any]) -> dict[str, Any]:
    info = metric.info
    kwargs = metric.kwargs
    if metric.k is not None:
        kwargs["k"] = metric.k
    # a global level sets binary thresholds only: graded RBP (max_grade=) keeps its labels
    if defaults["rel"] is not None and info.level and "rel" not in kwargs and "max_grade" not in kwargs:
        kwargs["rel"] = defaults["rel"]
    if info.data_max_grade and "max_grade" not in kwargs:
        kwargs["max_grade"] = defaults["max_grade"]
    if defaults["n_docs"] is not None and "n_docs" in info.params and "n_docs" not in kwargs:
        kwargs["n_docs"] = defaults["n_docs"]
    return kwargs


def score_values(r: Rankings, columns: dict[str, Metric], defaults: dict[str, Any]) -> dict[str, np.ndarray]:
    """Each column's values over the queries of ``r`` (float64; an object array for text:
    runid, relstring), with the evaluation-wide ``defaults`` (:func:`defaults`)."""
    data = {}
    batches: dict[tuple, list[tuple[str, Any]]] = {}  # metrics computed together (MetricInfo.batch)
    judged: Rankings | None = None  # r.judged_only(), for specs with judged_only=True
    done: dict[tuple, Any] = {}  # one kernel's values per set of arguments (map and gm_map: one AP)
    for column, metric in columns.items():
        info, kwargs = metric.info, _kwargs(metric, defaults)
        only = bool(kwargs.pop("judged_only", False))
        if only and judged is None:
            judged = r.judged_only()
        if info.batch is not None:
            value = kwargs.pop(info.params[0])
            batches.setdefault((metric.name, only, tuple(sorted(kwargs.items()))), []).append((column, value))
            continue
        on = judged if only else r
        key = _memo_key(info.func, only, kwargs) if is_numpy(r.labels) and info.kind != "str" else None
        if key is not None and key in done:
            values = np.array(done[key], dtype=np.float64)  # (each column an array of its own)
        else:
            values = _call(column, info.func, on, kwargs)
            if key is not None:
                done[key] = values
        if not is_numpy(r.labels):  # another array library: its arrays, on their device
            data[column] = values
        elif info.kind == "str":
            data[column] = np.asarray(values, dtype=object).reshape(r.n_queries)
        else:
            data[column] = np.asarray(values, dtype=np.float64).reshape(r.n_queries)
    for (name, only, kwargs), members in batches.items():
        on = judged if only else r
        values = _call(members[0][0], REGISTRY[name].batch, on, dict(kwargs), [v for _, v in members])
        for j, (column, _) in enumerate(members):
            data[column] = values[:, j]
    return {column: data[column] for column in columns}  # in the order of the columns


def _memo_key(func, only: bool, kwargs: dict[str, Any]) -> tuple | None:
    """The key of a kernel's call in :func:`score_values`, None if an argument cannot be
    one (an array)."""
    key = (func, only, tuple(sorted(kwargs.items())))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _call(column: str, func, r: Rankings, kwargs: dict[str, Any], *args):
    try:
        return func(r, *args, **kwargs)
    except ValueError as exc:  # say which spec the metric function refused
        raise ValueError(f"metric {column}: {exc}") from None


#: The aggregates of the metrics of model scores that per-query values cannot give.
_POOLED = {"rows": "computed over all rows at once", "pairs": "a ratio of the pairs of all queries",
           "weighted": "a weighted mean over queries"}


def aggregate_column(values: np.ndarray, info: MetricInfo):
    """One column's ``all`` value, as its registry row says (see :func:`rankkit.aggregate`).

    The metrics of model scores that pool rows or pairs (AUC, MSE, MAE, PNR) or weight
    queries (GAUC) cannot be aggregated from their per-query values: a ValueError points to
    the :class:`~rankkit.evaluation.ScoreTable`'s own ``all``."""
    if info.aggregate in _POOLED:
        raise ValueError(f"{info.name}'s all value is {_POOLED[info.aggregate]}, which its per-query values "
                         "cannot give: take it from the ScoreTable of rk.evaluate_scores (table.all, or "
                         "rk.aggregate(table))")
    n = values.shape[0]
    if not is_numpy(values):  # another array library (evaluate_scores): the mean, there
        return query_sum(values) / n if n else query_sum(values)
    if info.aggregate == "first":
        return values[0] if n else ""
    if info.aggregate == "none":
        return None
    values = values.astype(np.float64)
    if info.aggregate == "gmean":
        return geometric_mean(values)
    total = float(query_sum(values)) + 0.0  # one query at a time, in query order, after trec_eval's 0.0
    return total if info.aggregate == "sum" or n == 0 else total / n


GEOMETRIC_FLOOR = 0.00001  # trec_eval's MIN_GEO_MEAN


def geometric_mean(values: np.ndarray) -> float:
    """exp(mean(log(max(v, 1e-5)))): trec_eval's gm_map / gm_bpref over per-query values.

    Computed in 40-digit decimal arithmetic, the same on every machine (see
    ``rankkit.ops.numerics``): the product of the floored values, one query at a time in query
    order, then one logarithm, the division by n and one exponential, rounded once.
    """
    n = len(values)
    if n == 0:
        return 0.0
    with localcontext(Context(prec=40, Emin=-(10**12), Emax=10**12)):
        product = Decimal(1)
        for value in values:  # an aggregate over queries: one multiplication each
            product *= Decimal(float(max(value, GEOMETRIC_FLOOR)))
        return float((product.ln() / n).exp())


def _listing(ids: Iterable[Any], limit: int = 10) -> str:
    ids = [str(q) for q in ids]
    shown = ", ".join(ids[:limit])
    return shown + (f", ... ({len(ids) - limit} more)" if len(ids) > limit else "")


def unscored_queries(query_ids: Any, in_run: np.ndarray, in_qrels: np.ndarray,
                     queries: str) -> tuple[np.ndarray, dict]:
    """Which queries to score under a ``queries=`` policy, and why each other one is left
    out, given every query of a run and its judgments (in trec_eval's order) and whether
    each is in the run and in the judgments (``query_ids``: an Index or an object array).

    Warns about the queries left out, at the first caller's line outside rankkit; a
    ValueError if the run and the judgments share no query. Returns the mask of queries
    to score and ``{query id: reason}``.
    """
    if not (in_run & in_qrels).any() and in_run.any() and in_qrels.any():
        raise ValueError(
            f"no query in common between the judgments ({_listing(query_ids[in_qrels], 3)}) "
            f"and the run ({_listing(query_ids[in_run], 3)}): are these the right files?"
        )
    keep = in_qrels & (in_run if queries == "run" else True)
    unscored: dict[Any, str] = {}
    no_judgments = query_ids[in_run & ~in_qrels]
    if len(no_judgments):
        unscored.update(dict.fromkeys(no_judgments, "no judgments"))
        warn_user(f"run queries without judgments are not scored ({len(no_judgments)}): {_listing(no_judgments)}")
    if queries == "run":
        missing = query_ids[in_qrels & ~in_run]
        if len(missing):
            unscored.update(dict.fromkeys(missing, "not in the run"))
            warn_user(f"judged queries missing from the run are not scored ({len(missing)}; "
                      f"queries='qrels' scores them as 0): {_listing(missing)}")
    return keep, dict(sorted(unscored.items(), key=lambda item: str(item[0])))
