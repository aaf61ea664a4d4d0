"""``evaluate_scores``: a model's predictions as learning-to-rank code holds them -- three 1-D
arrays of labels, scores and query ids, rows in any order -- scored per query.

One path for every array library. The inputs are checked at the door (NumPy arrays, lists and
pandas Series as NumPy; arrays of another library that ``array_api_compat`` knows -- JAX,
PyTorch, CuPy, array-api-strict -- with that library's own operations, NumPy labels or ids
beside them moved to their device first); :func:`~rankkit.evaluation.score_layout.rank_scores`
lays every query's rows out as a :class:`~rankkit.Rankings` ranked by score; then each
metric's one kernel, named by its record (:class:`~rankkit.names.MetricInfo`), computes it:
the rank metrics through the registry's functions, the ones :func:`rankkit.evaluate` calls
(so on NumPy the values are ``evaluate``'s on the same data to the last bit), the metrics of
the scores (AUC, GAUC, PNR, MSE, MAE) through the record's ``per_query`` and ``total``. Each
record also says which queries its metric cannot score and why (``unscored``).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from .._validation import check_option, check_rel, warn_user
from ..metrics import binary, graded, pairwise, unranked
from ..metrics.weighting import (
    all_equal,
    check_weight_values,
    list_weights,
    query_weights,
    weighted_aggregate,
    weighted_mean,
    weighted_pooled_auc,
)
from ..names import REGISTRY, Metric, expand_metrics
from ..names.records import refuse_other_judgments
from ..ops.primitives import device, is_numpy, namespace, query_sum
from ..rankings import Rankings
from .arrays import aggregate_column, defaults, score_values
from .score_layout import query_codes, rank_scores
from .score_table import ScoreTable, to_numpy

__all__ = ["evaluate_scores", "ScoreTable", "SCORE_TIES", "RETRIEVED", "DEFAULT_METRICS"]

#: The metrics of :func:`evaluate_scores` when none are named.
DEFAULT_METRICS = ("nDCG@10", "AUC", "GAUC", "PNR")
#: How documents with equal scores are ordered: every order alike (the expected value over
#: all orders of each tied group), or labels ascending / descending (the worst / best case).
SCORE_TIES = ("average", "pessimistic", "optimistic")
#: Which rows count as retrieved: all, or only those scored above 0 (torchmetrics).
RETRIEVED = ("all", "positive")


def evaluate_scores(
    labels: Any,
    scores: Any,
    query: Any = None,
    metrics: str | Metric | Iterable[str | Metric] = DEFAULT_METRICS,
    *,
    ties: str = "average",
    rel: float = 1,
    weights: Any = "rows",
    retrieved: str = "all",
    item_weights: Any = None,
) -> ScoreTable:
    """Score a model's predictions per query: labels, scores and query ids as 1-D arrays.

    Each query's rows are ranked by score, highest first, and every metric is computed
    per query, as :func:`rankkit.evaluate` computes it from a run and its judgments (every
    row is a judged document). Rows may come in any order, a query's rows scattered.

    Parameters
    ----------
    labels : 1-D array-like of shape (n_rows,)
        Relevance labels (finite, >= 0; graded or 0/1), as LightGBM, XGBoost and
        scikit-learn hold them.
    scores : 1-D array-like of shape (n_rows,)
        The model's scores (finite), higher meaning more relevant.
    query : 1-D array-like of shape (n_rows,) of integer or string ids, or None, default=None
        The query (group, user) of each row; None: all rows are one query (id 0).
        LightGBM's and XGBoost's ``group`` sizes become ids with
        ``np.repeat(np.arange(len(group)), group)``.
    metrics : spec, Metric, or a list of them, default=("nDCG@10", "AUC", "GAUC", "PNR")
        Any registry metric (see :func:`rankkit.parse_metric`): rank metrics (``nDCG@10``,
        ``AP``, ``P@5``, ``RR``, ...) and the metrics of scores: ``AUC``, ``GAUC``
        (``GAUC(weights='queries')``), ``PNR``, ``MSE``, ``MAE``. ``runid`` and
        ``relstring`` (text, not numbers) are refused.
    ties : {"average", "pessimistic", "optimistic"}, default="average"
        Documents with equal scores: ``"average"`` reports the exact expected value over
        all orders of each tied group (as ``sklearn.metrics.ndcg_score``; AP and RR by
        McSherry & Najork's formulas; AUC counts a tied pair 1/2, its expected value); PNR
        becomes the ratio of the expected pair counts, (C + T/2) / (D + T/2) for T pairs
        tied in score, not an expected ratio. ``"pessimistic"`` orders them labels
        ascending (worst case), ``"optimistic"`` descending (best case). ERR and the C/W/L
        metrics (but SDCG) refuse ``"average"`` when a query has tied scores, and take it
        when none has.
    rel : float, default=1
        Relevance level of the binary metrics and of AUC/GAUC (positive: label >= rel),
        as :func:`rankkit.evaluate`'s ``rel``; a spec's own ``rel=`` wins.
    weights : {"rows", "queries", "positives", "pairs"}, array-like, pandas Series or dict, default="rows"
        A name: GAUC's weight of each query's AUC (see :func:`rankkit.metrics.pairwise.gauc`;
        a spec's ``weights=`` wins). Numbers: the weight of each query (finite, >= 0, not
        all 0), in every aggregate (``.all``) and as GAUC's weights: an array of shape
        (n_queries,) in the order of the sorted query ids, a Series or dict by query id,
        or one weight per row, equal within each query (CatBoost's group weights; TensorFlow
        Ranking's per-list weights given per example). Rank metrics: the weighted mean;
        AUC pooled over all rows: each row weighs its query's weight (each pair of rows the
        product, ``roc_auc_score(..., sample_weight=...)``); MSE, MAE: the row-weighted mean;
        PNR: ``sum_q w_q C_q / sum_q w_q D_q``. Equal weights give the unweighted numbers bit
        for bit. The per-query values do not change.
    retrieved : {"all", "positive"}, default="all"
        ``"positive"``: a row scored 0 or less is not retrieved: it keeps its rank but
        counts as not relevant in the ranking (the judgments keep its label, so recall's
        denominator counts it), as torchmetrics 1.9's ``retrieval_precision``,
        ``retrieval_recall``, ``retrieval_average_precision`` and
        ``retrieval_reciprocal_rank`` treat ``preds <= 0`` (``target = torch.where(preds >
        0, target, 0)``; its AP then divides by the relevant documents retrieved:
        ``AP(normalize='retrieved')``). ``"all"`` is the behaviour torchmetrics' later test
        ``tests/unittests/retrieval/test_score_shift.py`` asks for: values unchanged by
        shifting every score. Metrics of the scores (AUC, GAUC, PNR, MSE, MAE) are not
        affected.
    item_weights : array-like of shape (n_rows,) or None, default=None
        A weight per row (document), as TensorFlow Ranking's per-example ``weights``
        (``tensorflow_ranking/python/metrics_impl.py``), NumPy inputs only: a row of weight 0
        is left out (a query with only such rows leaves the table); DCG, CG and nDCG weigh
        each document's gain by its weight (nDCG's ideal sorts the weighted gains; DCG and CG
        per unit of the list's weight), AP sums ``P@i w_i`` over the relevant ranks and
        divides by the weight of all relevant documents; P, R, RR and success keep their
        values. Every aggregate is the mean weighted by each list's weight,
        ``sum_i w_i rel_i / sum_i rel_i`` (rel: label >= ``rel``; the gain for CG, DCG and
        nDCG), a list without relevance taking the mean weight of the others
        (:mod:`rankkit.metrics.weighting`), times the query's ``weights`` if given
        (``table.settings["list_weights"]`` holds each metric's list weights). Other
        metrics, and tied scores under ``ties="average"``, are refused.

    Returns
    -------
    ScoreTable
        A mapping metric -> per-query values (arrays of the inputs' library), with
        ``.query`` (sorted distinct ids), ``.all`` (each metric's aggregate), ``.n_rows``,
        ``.unscored`` and ``.to_frame()``.

    Raises
    ------
    ValueError
        Arrays not 1-D or of different lengths, no rows, scores NaN or infinite, labels
        NaN, infinite or negative, query ids that are floats, an unknown metric (with the
        nearest names), an option not among its choices; weights or item weights negative,
        NaN, infinite, all 0 or of the wrong length, a query without a weight, per-row
        weights that differ within a query, item weights with a metric that takes none.

    Warns
    -----
    UserWarning
        Queries a metric cannot score (AUC and GAUC of a query of one class, PNR of a query
        whose labels are all equal, either of a one-document query), naming a few: their
        value is ``nan`` and they are left out of the aggregate.

    Notes
    -----
    The aggregates (``.all``): rank metrics, the mean over queries (as
    :func:`rankkit.aggregate`); AUC, MSE and MAE over every row at once, pooled as a
    classifier's AUC is (``sklearn.metrics.roc_auc_score`` on the whole arrays; Wang
    Shusen's slides judge each (query, document) pair on its own with it); GAUC, the
    weighted mean of the per-query AUCs (Zhou et al. 2018); PNR, the concordant pairs of
    all queries over their discordant pairs (pairs only within a query, as the slides
    count them), which stays finite where a per-query ratio is ``inf``.

    Examples
    --------
    >>> labels = [2, 0, 1, 0, 1, 0]
    >>> scores = [0.9, 0.8, 0.3, 0.5, 0.2, 0.7]
    >>> query = [1, 1, 1, 2, 2, 2]
    >>> table = evaluate_scores(labels, scores, query, ["nDCG@3", "AUC", "GAUC", "P@1"])
    >>> table.to_frame().round(4)
              nDCG@3     AUC  GAUC  P@1
    query_id
    1         0.9502  0.5000  0.50  1.0
    2         0.5000  0.0000  0.00  0.0
    all       0.7251  0.3333  0.25  0.5
    """
    columns = _columns(metrics)
    ties = check_option(ties, SCORE_TIES, "ties")
    retrieved = check_option(retrieved, RETRIEVED, "retrieved")
    rel = check_rel(rel)
    if isinstance(weights, str):
        check_option(weights, pairwise.GAUC_WEIGHTS, "weights")
    settings = {"ties": ties, "rel": rel, "weights": weights, "retrieved": retrieved}
    if all(_is_numpy_like(x) for x in (labels, scores, query)):
        labels, scores, query = _check_numpy(labels, scores, query)
    elif item_weights is not None:
        raise ValueError("item_weights are taken with NumPy inputs only: pass labels, scores and query as NumPy "
                         "arrays (tensor.cpu().numpy())")
    else:
        labels, scores, query = _other_library(labels, scores, query, columns)
    if item_weights is not None:
        labels, scores, query, weights, item_weights = _item_rows(labels, scores, query, weights, item_weights,
                                                                  columns)
        settings["item_weights"] = True
    ids, r, score_matrix = rank_scores(labels, scores, query, ties)
    if not isinstance(weights, str):
        settings["weights"] = _per_query(weights, query, ids, int(labels.shape[0]), r.labels)
    if item_weights is not None:
        r = _with_item_weights(r, labels, scores, query, item_weights, ties)
    return _table(r, score_matrix, columns, settings)


# --------------------------------------------------------------------------- the front door


def _columns(metrics: Any) -> dict[str, Metric]:
    """Column name -> Metric; refuse the metrics that give text, and those of other judgments
    (preferences, a recommender's interactions)."""
    columns = refuse_other_judgments(expand_metrics(metrics))
    for column, metric in columns.items():
        if metric.info.kind == "str":
            raise ValueError(f"metric {column} gives text ({metric.info.summary}), not a number per query: "
                             "evaluate_scores takes numeric metrics; use rk.evaluate with a run for it")
    return columns


def _is_numpy_like(x: Any) -> bool:
    """NumPy arrays and scalars, Python sequences, pandas, Polars and Arrow objects, and None."""
    if x is None or isinstance(x, (np.ndarray, np.generic, list, tuple, range)):
        return True
    return (type(x).__module__ or "").partition(".")[0] in ("pandas", "polars", "pyarrow")


def _check_numpy(labels: Any, scores: Any, query: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The three inputs as 1-D NumPy arrays of one length, checked."""
    y = _vector(labels, "labels", np.float64)
    s = _vector(scores, "scores", np.float64)
    q = None if query is None else _vector(query, "query", None)
    lengths = {"labels": len(y), "scores": len(s)} | ({} if q is None else {"query": len(q)})
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{name} {n}" for name, n in lengths.items())
        raise ValueError(f"labels, scores and query must have one entry per row, got lengths {shown}")
    if len(y) == 0:
        raise ValueError("labels and scores are empty: there is no row to score")
    _check_values(y, s)
    if q is not None and q.dtype.kind in "fc":
        raise ValueError(f"query must hold integer or string ids, got {q.dtype} numbers: pass integer ids "
                         "(query.astype(np.int64) when the floats are whole numbers) or strings")
    if q is not None and q.dtype.kind not in "iubUSO":
        raise ValueError(f"query must hold integer or string ids, got dtype {q.dtype}")
    return y, s, q


def _vector(x: Any, name: str, dtype: Any) -> np.ndarray:
    try:
        values = np.asarray(x, dtype=dtype)
    except (TypeError, ValueError) as exc:
        what = "ids" if name == "query" else "numbers"
        raise ValueError(f"{name} must be a 1-D array of {what}, got {type(x).__name__}: {exc}") from None
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one entry per row), got shape {values.shape}")
    return values


def _check_values(y: np.ndarray, s: np.ndarray) -> None:
    bad = ~np.isfinite(s)
    if bad.any():
        raise ValueError(f"scores must be finite, got {float(s[bad][0])!r} at row {int(np.flatnonzero(bad)[0])}: "
                         "replace NaN or infinite predictions before scoring")
    bad = ~np.isfinite(y) | (y < 0)
    if bad.any():
        raise ValueError(f"labels must be finite and non-negative, got {float(y[bad][0])!r} at row "
                         f"{int(np.flatnonzero(bad)[0])}")


# --------------------------------------------------------------------------- the table


def _table(r: Rankings, score_matrix: Any, columns: dict[str, Metric], settings: dict[str, Any]) -> ScoreTable:
    """Every column's values and aggregate from the ranking of the scores, and the queries
    each metric cannot score."""
    ranked = r
    if settings["retrieved"] == "positive":  # torchmetrics: a row scored <= 0 is not relevant
        ranked = replace(r, labels=namespace(r.labels).where(score_matrix > 0, r.labels, 0.0))
    rank_columns = {c: m for c, m in columns.items() if not m.info.scores}
    try:
        values = score_values(ranked, rank_columns, defaults(ranked, settings["rel"], None, None))
    except ValueError as exc:  # a metric that refuses tie groups: say which choices are here
        if "ties='average'" not in str(exc):
            raise
        raise ValueError(f"{exc} (evaluate_scores: ties='pessimistic' or 'optimistic')") from None
    totals = {c: aggregate_column(v, columns[c].info) for c, v in values.items()}
    for column, metric in columns.items():
        if metric.info.scores:
            params = _params(metric, settings)
            values[column] = metric.info.per_query(r, score_matrix, **params)
            totals[column] = metric.info.total(r, score_matrix, values[column], ties=settings["ties"], **params)
    _weigh_totals(r, score_matrix, columns, values, totals, settings)
    values = {c: values[c] for c in columns}
    if isinstance(score_matrix, np.ndarray):
        totals = {c: np.float64(totals[c]) for c in columns}
    unscored = {c: _reasons(r.query_ids, m.info.unscored(r, **_params(m, settings))) for c, m in columns.items()}
    _warn(unscored, columns)
    return ScoreTable(data=values, query=r.query_ids, all={c: totals[c] for c in columns}, n_rows=r.lengths,
                      unscored=unscored, metrics={c: str(m) for c, m in columns.items()}, settings=settings)


def _params(metric: Metric, settings: dict[str, Any]) -> dict[str, Any]:
    """A spec's parameters, with the call's ``rel`` and ``weights`` where it takes them and
    leaves them out."""
    params = metric.kwargs
    params.pop("judged_only", None)  # every row is judged
    for name in ("rel", "weights"):
        if name in metric.info.params and name not in params:
            params[name] = settings[name]
    return params


def _reasons(ids: np.ndarray, cases: list[tuple[np.ndarray, str]]) -> dict[Any, str]:
    """{id: the first reason whose mask holds}, in the order of the ids."""
    if not cases:
        return {}
    masks = [to_numpy(mask) for mask, _ in cases]
    ids = to_numpy(ids)
    rows = np.flatnonzero(np.logical_or.reduce(masks))
    reasons = np.select([mask[rows] for mask in masks], [reason for _, reason in cases], "")
    return dict(zip(ids[rows].tolist(), reasons.tolist()))


def _warn(unscored: dict[str, dict[Any, str]], columns: dict[str, Metric]) -> None:
    """One warning naming a few queries each score metric leaves out (``nan``)."""
    for column, queries in unscored.items():
        info = columns[column].info
        if not queries or not info.left_out:
            continue
        ids = list(queries)
        shown = ", ".join(f"{q} ({queries[q]})" for q in ids[:5]) + (f", ... ({len(ids) - 5} more)"
                                                                       if len(ids) > 5 else "")
        warn_user(f"{column} cannot score {len(ids)} quer{'y' if len(ids) == 1 else 'ies'} "
                  f"({info.left_out}): {shown}")


# --------------------------------------------------------------------------- weights

#: The kernels that take item weights (TensorFlow Ranking's metrics), by what a list's
#: relevance is in its list weight: relevant or not (label >= rel), or the gain.
_ITEM_WEIGHTED = {binary.precision: "binary", binary.recall: "binary", binary.reciprocal_rank: "binary",
                  binary.success: "binary", binary.average_precision: "binary", graded.cumulative_gain: "gain",
                  graded.dcg: "gain", graded.ndcg: "gain"}


def _kernel(metric: Metric) -> Any:
    return inspect.unwrap(metric.info.func)


def _per_query(weights: Any, query: Any, ids: Any, n_rows: int, like: Any) -> Any:
    """One weight per query, in the order of ``ids``, from weights by query id, per query or per
    row (equal within each query), checked; an array of the library of ``like``."""
    ids_np = to_numpy(ids)
    if isinstance(weights, Mapping) or (hasattr(weights, "index") and hasattr(weights, "to_numpy")):
        w = query_weights(weights, ids_np)
    else:
        w = check_weight_values(weights if _is_numpy_like(weights) else to_numpy(weights))
        if w.shape[0] == n_rows and n_rows != len(ids_np):
            w = _from_rows(w, None if query is None else to_numpy(query), ids_np)
        elif w.shape[0] != len(ids_np):
            raise ValueError(f"weights must hold one number per query ({len(ids_np)}), got shape {w.shape}: in the "
                             f"order of the sorted query ids, or one per row ({n_rows})")
    if all_equal(w):  # equal weights are every query alike: GAUC's "queries", to the bit
        w = np.ones_like(w)
    if is_numpy(like):
        return w
    return namespace(like).asarray(w, dtype=like.dtype, device=device(like))


def _from_rows(w: np.ndarray, query: np.ndarray | None, ids: np.ndarray) -> np.ndarray:
    """Per-row weights as one per query: they must be equal within each query."""
    _, codes = query_codes(query, len(w))
    per_query = np.zeros(len(ids))
    per_query[codes] = w
    differ = per_query[codes] != w
    if differ.any():
        code = codes[np.flatnonzero(differ)[0]]
        low, high = np.unique(w[codes == code])[[0, -1]].tolist()
        raise ValueError(f"weights must hold one number per query ({len(ids)}), or one per row equal within each "
                         f"query; got {low!r} and {high!r} in query {ids[code].item()!r}: a weight per document is "
                         "item_weights=")
    return per_query


def _item_rows(labels: np.ndarray, scores: np.ndarray, query: np.ndarray | None, weights: Any, item_weights: Any,
               columns: dict[str, Metric]) -> tuple:
    """The rows of positive item weight (TensorFlow Ranking masks the others), with their
    weights; the metrics that take no item weights refused."""
    refused = [str(m) for m in columns.values() if _kernel(m) not in _ITEM_WEIGHTED]
    if refused:
        names = sorted({n for n, info in REGISTRY.items()
                        if info.judgments == "qrels" and inspect.unwrap(info.func) in _ITEM_WEIGHTED})
        raise ValueError(f"metric {refused[0]} takes no item weights; those that do (TensorFlow Ranking's): "
                         f"{', '.join(names)}")
    w = check_weight_values(item_weights, "item_weights")
    if w.shape[0] != len(labels):
        raise ValueError(f"item_weights must hold one weight per row ({len(labels)}), got {w.shape[0]}")
    keep = w > 0
    if keep.all():
        return labels, scores, query, weights, w
    by_row = not isinstance(weights, (str, Mapping)) and not hasattr(weights, "index") and len(weights) == len(w)
    return (labels[keep], scores[keep], None if query is None else query[keep],
            np.asarray(weights)[keep] if by_row else weights, w[keep])


def _with_item_weights(r: Rankings, labels: np.ndarray, scores: np.ndarray, query: np.ndarray | None,
                       w: np.ndarray, ties: str) -> Rankings:
    """``r`` with each row's item weight at its rank: rows ordered as :func:`rank_scores`
    orders them (score descending, then label), rows alike in both in their order."""
    if r.ties is not None:
        raise ValueError("item_weights need one order of every query's rows, and some scores tie within a query: "
                         "pass ties='pessimistic' or 'optimistic'")
    n = len(labels)
    _, codes = query_codes(query, n)
    grouped = np.argsort(codes, kind="stable")  # each query's rows, in their order
    counts = np.bincount(codes, minlength=r.n_queries)
    cell = codes[grouped], np.arange(n) - (np.cumsum(counts) - counts)[codes[grouped]]
    rows = np.full(r.labels.shape, -1)
    by_score, by_label = np.full(r.labels.shape, np.inf), np.zeros(r.labels.shape)  # padding last
    rows[cell], by_score[cell] = grouped, -scores[grouped]
    by_label[cell] = labels[grouped] if ties == "pessimistic" else -labels[grouped]
    rows = np.take_along_axis(rows, np.lexsort((by_label, by_score), axis=1), axis=1)  # stable, row by row
    matrix, placed = np.where(rows >= 0, w[rows], 0.0), np.where(rows >= 0, labels[rows], 0.0)
    if not np.array_equal(placed, r.labels):  # the two orders must agree
        raise RuntimeError("item weights and labels ranked apart; please report this input")
    return replace(r, item_weights=matrix)


def _list_weights(r: Rankings, metric: Metric, rel: float) -> np.ndarray:
    """Each list's weight from its item weights (TensorFlow Ranking's rule), its relevance
    the metric's: label >= rel, or the gain."""
    if _ITEM_WEIGHTED[_kernel(metric)] == "gain":
        gains = graded.cumulative_gain(r.labels.reshape(-1, 1), gain=metric.kwargs.get("gain", "linear"))
        relevance = np.where(r.judged, np.asarray(gains).reshape(r.labels.shape), 0.0)
    else:
        relevance = ((r.labels >= metric.kwargs.get("rel", rel)) & r.judged).astype(np.float64)
    return list_weights(r.item_weights, relevance)


def _weigh_totals(r: Rankings, score_matrix: Any, columns: dict[str, Metric], values: dict, totals: dict,
                  settings: dict[str, Any]) -> None:
    """Each aggregate with the query weights and the lists' weights, where they are not all
    equal (equal weights leave the unweighted aggregates, to the bit)."""
    given = settings["weights"]
    query_w = None if isinstance(given, str) or all_equal(to_numpy(given)) else given
    for column, metric in columns.items():
        w = query_w
        if r.item_weights is not None:
            lists = _list_weights(r, metric, settings["rel"])
            settings.setdefault("list_weights", {})[column] = lists
            w = lists if query_w is None else lists * query_w
        if w is None or all_equal(to_numpy(w)) or _kernel(metric) is pairwise.gauc:
            continue  # GAUC weighs its queries itself (the query weights are its weights)
        if metric.info.scores:
            totals[column] = _weighted_score_total(column, metric, r, score_matrix, values[column], w, settings)
        elif not is_numpy(w):
            totals[column] = weighted_mean(values[column], w)
        else:
            totals[column] = weighted_aggregate(values[column], w, metric.info.aggregate)


def _weighted_score_total(column: str, metric: Metric, r: Rankings, score_matrix: Any, values: Any, w: Any,
                          settings: dict[str, Any]) -> Any:
    """AUC, MSE, MAE and PNR over every row or pair, each weighing its query's weight."""
    kernel, params = _kernel(metric), _params(metric, settings)
    xp = namespace(score_matrix)
    if kernel is pairwise.auc:
        rows = xp.broadcast_to(xp.reshape(w, (-1, 1)), r.labels.shape)[r.judged]
        return weighted_pooled_auc(r.labels[r.judged], score_matrix[r.judged], rows, ties=settings["ties"],
                                   rel=params.get("rel", 1))
    if kernel in (unranked.mse, unranked.mae):
        return weighted_mean(values, w * xp.astype(r.lengths, w.dtype))
    if kernel is pairwise.pnr:
        concordant, discordant, tied = pairwise.pair_counts(r)
        if params.get("label_ties", "ignore") == "concordant":
            concordant = concordant + tied
        total = pairwise.pnr_ratio(xp.asarray(query_sum(w * concordant)), xp.asarray(query_sum(w * discordant)))
        return float(total) if is_numpy(total) else total
    raise ValueError(f"metric {column} has no aggregate with query weights")


# --------------------------------------------------------------------------- other array libraries


def _other_library(labels: Any, scores: Any, query: Any, columns: dict[str, Metric]) -> tuple[Any, Any, Any]:
    """Arrays of an array-API library, checked with its own operations (NumPy labels or ids
    beside them moved to their device); the metrics that run on NumPy only refused."""
    import array_api_compat

    arrays = [x for x in (labels, scores, query) if x is not None]
    others = [x for x in arrays if not _is_numpy_like(x)]
    try:
        xp = array_api_compat.array_namespace(*others)
    except TypeError as exc:
        raise TypeError(f"labels, scores and query must come from one array library besides NumPy (torch, JAX, "
                        f"...; NumPy arrays, lists and pandas Series beside them move to their device), got "
                        f"{', '.join(type(x).__name__ for x in arrays)}; convert the others with that library's "
                        f"asarray, e.g. torch.as_tensor(labels, device=scores.device) ({exc})") from None
    only_numpy = [str(m) for m in columns.values() if not m.info.any_library]
    if only_numpy:
        supported = ", ".join(name for name, info in REGISTRY.items() if info.any_library)
        raise ValueError(f"metric {only_numpy[0]} is not computed on arrays other than NumPy's; supported there: "
                         f"{supported} (pass NumPy arrays for every other metric)")
    if len(others) < len(arrays):  # NumPy labels or ids beside tensors: onto the tensors' device
        labels, scores, query = (_into(xp, x, others[0], name) for x, name in
                                 ((labels, "labels"), (scores, "scores"), (query, "query")))
    _check_xp(xp, labels, scores, query)
    return labels, scores, query


def _into(xp: Any, x: Any, like: Any, name: str) -> Any:
    """``x`` (NumPy, a list, pandas) as an array of ``like``'s library on its device; other
    arrays and None as they are. Strings have no array there: refused, naming ``name``."""
    if x is None or not _is_numpy_like(x):
        return x
    import array_api_compat

    values = np.asarray(x)
    if values.dtype.kind not in "biuf":
        raise ValueError(f"{name} holds {values.dtype} values, which {type(like).__module__.partition('.')[0]} "
                         "arrays cannot hold: pass integer query ids (e.g. from np.unique(ids, return_inverse=True))"
                         ", or pass every input as NumPy arrays")
    return xp.asarray(values, device=array_api_compat.device(like))


def _check_xp(xp: Any, labels: Any, scores: Any, query: Any) -> None:
    """The checks of :func:`_check_numpy`, with the library's own operations."""
    named = {"labels": labels, "scores": scores} | ({} if query is None else {"query": query})
    for name, x in named.items():
        if x.ndim != 1:
            raise ValueError(f"{name} must be 1-D (one entry per row), got shape {tuple(x.shape)}")
    lengths = {name: int(x.shape[0]) for name, x in named.items()}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{name} {n}" for name, n in lengths.items())
        raise ValueError(f"labels, scores and query must have one entry per row, got lengths {shown}")
    if lengths["labels"] == 0:
        raise ValueError("labels and scores are empty: there is no row to score")
    for name in ("labels", "scores"):
        if xp.isdtype(named[name].dtype, "bool"):
            continue
        if not xp.isdtype(named[name].dtype, ("real floating", "integral")):
            raise ValueError(f"{name} must hold real numbers, got dtype {named[name].dtype}")
    if xp.isdtype(scores.dtype, "real floating") and not bool(xp.all(xp.isfinite(scores))):
        raise ValueError("scores must be finite, got NaN or infinite values: replace them before scoring")
    if xp.isdtype(labels.dtype, "real floating") and not bool(xp.all(xp.isfinite(labels))):
        raise ValueError("labels must be finite and non-negative, got NaN or infinite values")
    if not xp.isdtype(labels.dtype, "bool") and not bool(xp.all(labels >= 0)):
        raise ValueError("labels must be finite and non-negative, got a negative label")
    if query is not None and not xp.isdtype(query.dtype, "integral"):
        raise ValueError(f"query must hold integer ids, got dtype {query.dtype}: pass integer ids "
                         "(strings only as NumPy arrays or lists)")
