"""``evaluate_scores``: a model's predictions as learning-to-rank code holds them -- three 1-D
arrays of labels, scores and query ids, rows in any order -- scored per query.

NumPy arrays, lists and pandas Series take the NumPy path here: the rows are sorted by
query, score (descending) and label, laid out as a :class:`~rankkit.Rankings` (every row
judged), and every rank metric is computed by the registry's functions, the ones
:func:`rankkit.evaluate` calls, so the values are those of ``evaluate`` on the same data
to the last bit. The metrics of the scores themselves (AUC, GAUC, PNR, MSE, MAE) come from
:mod:`rankkit.metrics.pairwise` and :mod:`rankkit.metrics.unranked`. Arrays of another
library that ``array_api_compat`` knows (JAX, torch, CuPy, array-api-strict) are checked
here and scored by :mod:`rankkit.evaluation.array_api` in that library, on their device;
NumPy arrays or lists given beside them (labels or query ids kept on the host, as a
training loop often keeps them) move to that library and device first.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np

from .._validation import check_option, check_rel
from ..join import outside_rankkit
from ..metrics import pairwise, unranked
from ..names import Metric, expand_metrics
from ..ops.numerics import query_sum
from ..rankings import Rankings
from .arrays import aggregate_column, defaults, score_values
from .score_table import ScoreTable

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
    weights : {"rows", "queries", "positives", "pairs"} or array-like of shape (n_queries,), default="rows"
        GAUC's weight of each query's AUC (see :func:`rankkit.metrics.pairwise.gauc`);
        an array is in the order of the sorted query ids. A spec's ``weights=`` wins.
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
        nearest names), an option not among its choices.

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
    if not all(_is_numpy_like(x) for x in (labels, scores, query)):
        return _other_library(labels, scores, query, columns, settings)
    y, s, q = _check_numpy(labels, scores, query)
    return _numpy_table(y, s, q, columns, settings)


# --------------------------------------------------------------------------- the front door


def _columns(metrics: Any) -> dict[str, Metric]:
    """Column name -> Metric; refuse the metrics that give text."""
    columns = expand_metrics(metrics)
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


# --------------------------------------------------------------------------- the NumPy path


def rank_scores(y: np.ndarray, s: np.ndarray, codes: np.ndarray, n_queries: int,
                ties: str) -> tuple[Rankings, np.ndarray]:
    """The :class:`Rankings` of labels ranked by score within each query (``codes``: each
    row's query, 0 .. n_queries - 1), every row judged, and the scores in the same layout
    (0 in the padding).

    Within a query, rows are ordered by score descending, then label ascending
    (``ties="pessimistic"``) or descending (otherwise), so the layout does not depend on the
    order of the rows. ``ties="average"`` sets ``Rankings.ties`` when some scores tie.
    Each query's rows are laid out in a row of a matrix first and sorted there: many short
    sorts instead of one long one. Rows of equal score and label are alike, so the sort
    need not be stable.
    """
    counts = np.bincount(codes, minlength=n_queries).astype(np.int64)
    width = int(counts.max())
    labels, negated = _layout(y, s, codes, counts, width)  # negated: -score, +inf in the padding
    judged = np.arange(width) < counts[:, None]
    order = np.argsort(negated, axis=1)
    base = np.arange(0, n_queries * width, width, dtype=np.intp)[:, None]
    order += base
    labels = labels.ravel()[order]
    negated.sort(axis=1)
    score_matrix = np.negative(negated, out=negated)
    tied = np.zeros(judged.shape, dtype=bool)  # tied with the rank before it
    np.equal(score_matrix[:, 1:], score_matrix[:, :-1], out=tied[:, 1:])
    tied &= judged
    if tied.any():  # the labels order each tied group
        labels = _order_tied_labels(labels, tied, ties == "pessimistic")
    if width * n_queries > len(codes):
        score_matrix[~judged] = 0.0
    tie_ids = None
    if ties == "average" and tied.any():
        tie_ids = base + np.arange(width)
        tie_ids[tied] = 0
        np.maximum.accumulate(tie_ids, axis=1, out=tie_ids)  # the first rank of each tied group
    ideal = np.negative(labels)
    ideal.sort(axis=1)
    r = Rankings(labels=labels, judged=judged, lengths=counts, ideal=np.negative(ideal, out=ideal),
                 n_judged=counts.copy(), query_ids=np.arange(n_queries), ties=tie_ids)
    return r, score_matrix


def _layout(y: np.ndarray, s: np.ndarray, codes: np.ndarray, counts: np.ndarray,
            width: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels and negated scores in a matrix of one row per query (``width`` columns), each
    query's rows in their order, the padding labelled 0 and given +inf (it sorts last)."""
    n_queries, n = len(counts), len(codes)
    by_query = _group_rows(codes, n_queries)
    if n_queries * width == n:  # no padding: the grouped rows are the matrix
        negated = s[by_query] if isinstance(by_query, np.ndarray) else s.copy()
        np.negative(negated, out=negated)
        return y[by_query].reshape(n_queries, width), negated.reshape(n_queries, width)
    flat = np.repeat(np.arange(0, n_queries * width, width, dtype=np.intp) - (np.cumsum(counts) - counts), counts)
    flat += np.arange(n, dtype=np.intp)  # each grouped row's cell
    if not isinstance(by_query, slice):
        cell = np.empty(n, dtype=np.intp)
        cell[by_query] = flat
        flat = cell  # each row's cell
    labels = np.zeros((n_queries, width))
    labels.ravel()[flat] = y
    negated = np.full((n_queries, width), np.inf)
    negated.ravel()[flat] = -s
    return labels, negated


def _group_rows(codes: np.ndarray, n_queries: int) -> np.ndarray | slice:
    """The order of the rows grouped by query, each query's rows in their order: a stable
    argsort of the codes, done as NumPy's radix sort of 16-bit keys, one pass per 16 bits of
    the largest code (least significant first)."""
    if bool(np.all(codes[1:] >= codes[:-1])):
        return slice(None)
    order = np.argsort(codes.astype(np.uint16), kind="stable")  # the low 16 bits
    shift = 16
    while n_queries - 1 >> shift:
        digit = (codes[order] >> shift).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
    return order


def _order_tied_labels(labels: np.ndarray, tied: np.ndarray, ascending: bool) -> np.ndarray:
    """The labels of each run of tied scores (``tied``: the score equals the one before)
    sorted, ascending or descending; the runs stay in place. Whole labels below 2**20 are
    sorted as integer keys (run number, label), in place; any others by a lexsort."""
    top = float(labels.max())
    runs = np.cumsum(~tied, axis=1, dtype=np.int32)  # the run of each rank, 1 .. width
    levels = int(top) + 1
    if top < 2**20 and (labels.shape[1] + 1) * levels < 2**31:
        key = labels.astype(np.int32)
        if bool(np.equal(key, labels).all()) and not np.signbit(labels).any():  # whole, no -0.0
            if not ascending:
                np.subtract(levels - 1, key, out=key)
            runs *= np.int32(levels)
            key += runs
            key.sort(axis=1)
            key %= np.int32(levels)
            if not ascending:
                np.subtract(levels - 1, key, out=key)
            labels[...] = key
            return labels
    order = np.lexsort((labels if ascending else -labels, runs), axis=1)
    return np.take_along_axis(labels, order, axis=1)


def _query_codes(q: np.ndarray | None, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct query ids and each row's position among them; without a sort when
    the rows come grouped by query in ascending order (the layout of LightGBM's and
    XGBoost's groups, and of most data sets), or when the ids are integers of a range not
    much longer than the rows (a table of the ids present, in id order)."""
    if q is None:
        return np.zeros(1, dtype=np.int64), np.zeros(n, dtype=np.int64)
    try:
        if q.dtype != object and bool(np.all(q[1:] >= q[:-1])):
            start = np.ones(n, dtype=bool)
            start[1:] = q[1:] != q[:-1]
            return q[start], np.cumsum(start, dtype=np.int64) - 1
        if q.dtype.kind in "iu":
            low, high = int(q.min()), int(q.max())
            if high - low <= 2 * n + 1024 and -2**63 <= low and high < 2**63:
                return _integer_codes(q, low, high)
        ids, codes = np.unique(q, return_inverse=True)
    except TypeError:  # None, NaN-like or mixed types among object ids
        raise ValueError("query must hold integer or string ids of one type, got "
                         f"{sorted({type(v).__name__ for v in q.tolist()})}") from None
    return ids, codes.astype(np.int64).reshape(-1)


def _integer_codes(q: np.ndarray, low: int, high: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(q, return_inverse=True)`` for integer ids between ``low`` and ``high``:
    which ids occur (a count per id), numbered in id order."""
    offset = q.astype(np.int64) - np.int64(low)
    present = np.bincount(offset, minlength=high - low + 1) > 0
    code_of = np.cumsum(present, dtype=np.int64) - 1
    ids = (np.flatnonzero(present) + np.int64(low)).astype(q.dtype)
    return ids, code_of[offset]


def _numpy_table(y: np.ndarray, s: np.ndarray, q: np.ndarray | None, columns: dict[str, Metric],
                 settings: dict[str, Any]) -> ScoreTable:
    ids, codes = _query_codes(q, len(y))
    r, score_matrix = rank_scores(y, s, codes, len(ids), settings["ties"])
    r = replace(r, query_ids=ids)
    ranked = r
    if settings["retrieved"] == "positive":  # torchmetrics: a row scored <= 0 is not relevant
        ranked = replace(r, labels=np.where(score_matrix > 0, r.labels, 0.0))
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
            values[column], totals[column] = _score_metric(metric, r, score_matrix, settings)
    values = {c: values[c] for c in columns}
    totals = {c: np.float64(totals[c]) for c in columns}
    unscored = _unscored(r, columns, settings["rel"])
    _warn(unscored, columns)
    return ScoreTable(data=values, query=ids, all=totals, n_rows=r.lengths, unscored=unscored,
                      metrics={c: str(m) for c, m in columns.items()}, settings=settings)


def _score_metric(metric: Metric, r: Rankings, score_matrix: np.ndarray,
                  settings: dict[str, Any]) -> tuple[np.ndarray, float]:
    """Per-query values and the aggregate of AUC, GAUC, PNR, MSE or MAE."""
    kwargs = metric.kwargs
    name = metric.name
    if name in ("AUC", "GAUC"):
        rel = kwargs.get("rel", settings["rel"])
        per_query = _auc(r, rel)
        if name == "GAUC":
            return per_query, _gauc(r, per_query, kwargs.get("weights", settings["weights"]), rel)
        return per_query, _pooled_auc(r.labels[r.judged], score_matrix[r.judged], settings["ties"], rel)
    if name == "PNR":
        label_ties = kwargs.get("label_ties", "ignore")
        counts = _pair_counts(r)
        numerator = counts.concordant + counts.tied if label_ties == "concordant" else counts.concordant
        with np.errstate(divide="ignore", invalid="ignore"):  # as pairwise.pnr: x/0 inf, 0/0 nan
            per_query = numerator / counts.discordant
            pooled = np.float64(query_sum(numerator)) / np.float64(query_sum(counts.discordant))
        return per_query, float(pooled)
    error = unranked.mse if name == "MSE" else unranked.mae
    # every row at once, in the order of the layout (query, score, label): the same sum
    # whatever the order of the rows
    return error(r, score_matrix), error(r.labels[r.judged], score_matrix[r.judged])


def _mann_whitney(r: Rankings, rel: float) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the Mann-Whitney U of :func:`rankkit.metrics.pairwise.auc` (the (positive,
    negative) pairs in order, a tied pair 1/2) and the number of such pairs, counted along
    the ranks. Each group of tied scores lists its positives first (its labels descend,
    :func:`rank_scores`): U counts, for each positive, the negatives ranked below it, less
    1/2 for each (positive, negative) pair of a group. A count of pairs and halves: exact,
    the value the average ranks give."""
    positive = (r.labels >= rel) & r.judged
    n_pos = positive.sum(axis=1)
    n_neg = r.lengths - n_pos
    negatives_above = np.cumsum(r.judged & ~positive, axis=1, dtype=np.int32)
    u = (n_pos * n_neg - np.where(positive, negatives_above, 0).sum(axis=1)).astype(np.float64)
    if r.ties is not None:
        positives_before = np.cumsum(positive, axis=1, dtype=np.int32)
        positives_before -= positive
        in_group = positives_before - positives_before.ravel()[r.ties.ravel()].reshape(r.ties.shape)
        u -= np.where(positive, 0, in_group).sum(axis=1) / 2  # padding: its own group, 0
    return u, (n_pos * n_neg).astype(np.float64)


def _auc(r: Rankings, rel: float) -> np.ndarray:
    """Each query's AUC, :func:`rankkit.metrics.pairwise.auc` of ``r``, ``nan`` without pairs."""
    u, pairs = _mann_whitney(r, rel)
    return np.divide(u, pairs, out=np.full(pairs.shape, np.nan), where=pairs > 0)


def _gauc(r: Rankings, per_query: np.ndarray, weights: Any, rel: float) -> float:
    """:func:`rankkit.metrics.pairwise.gauc` of ``r`` from the queries' AUC, in its order of
    summation; given weights are checked there."""
    n_pos = r.n_relevant(rel)
    pairs = (n_pos * (r.lengths - n_pos)).astype(np.float64)
    if not isinstance(weights, str) or weights not in pairwise.GAUC_WEIGHTS:
        return pairwise.gauc(r, weights=weights, rel=rel)
    w = {"rows": lambda: r.lengths.astype(np.float64), "queries": lambda: np.ones(len(pairs)),
         "pairs": lambda: pairs, "positives": lambda: n_pos.astype(np.float64)}[weights]()
    both = pairs > 0
    total = float(query_sum(np.where(both, w, 0.0)))
    if total <= 0:
        return float("nan")
    return float(query_sum(np.where(both, w * np.where(both, per_query, 0.0), 0.0))) / total


def _pair_counts(r: Rankings) -> pairwise.PairCounts:
    """:func:`rankkit.metrics.pairwise.pair_counts` of ``r``. With tie groups, from the
    counts of the ranking as it stands, ties ignored: each group's labels stand in
    descending order (:func:`rank_scores`), so its pairs of different labels count there as
    concordant and count 1/2 to each side with the ties. Counts of pairs and halves are
    exact: the same values."""
    if r.ties is None:
        return pairwise.pair_counts(r)
    untied = pairwise.pair_counts(replace(r, ties=None))
    same = np.zeros(r.labels.shape, dtype=bool)  # same score group and label as the rank before
    np.equal(r.ties[:, 1:], r.ties[:, :-1], out=same[:, 1:])
    same[:, 1:] &= r.labels[:, 1:] == r.labels[:, :-1]
    first = np.arange(r.labels.size, dtype=r.ties.dtype).reshape(r.labels.shape)
    first[same] = 0
    np.maximum.accumulate(first, axis=1, out=first)  # the first rank of each run of equal labels
    half = (first - r.ties).sum(axis=1) / 2  # pairs of a group whose labels differ, halved
    return pairwise.PairCounts(untied.concordant - half, untied.discordant + half, untied.tied)


def _pooled_auc(y: np.ndarray, s: np.ndarray, ties: str, rel: float) -> float:
    """AUC over every row at once (the queries ignored), a positive and a negative of equal
    scores counting 1/2 (``ties="average"``), 0 (pessimistic) or 1 (optimistic): U sums, for
    each positive, the negatives scored below it (a count: exact in any order)."""
    positive = y >= rel
    negatives, positives = np.sort(s[~positive]), np.sort(s[positive])  # sorted: fast searches
    below = np.searchsorted(negatives, positives, side="left").astype(np.float64)
    at_or_below = np.searchsorted(negatives, positives, side="right").astype(np.float64)
    u = {"average": (below + at_or_below) / 2, "pessimistic": below, "optimistic": at_or_below}[ties].sum()
    pairs = float(positive.sum()) * float(len(negatives))
    return float(u / pairs) if pairs > 0 else float("nan")


# --------------------------------------------------------------------------- unscored queries


def _unscored(r: Rankings, columns: dict[str, Metric], rel: float) -> dict[str, dict[Any, str]]:
    """Metric -> {query id: reason} for the queries it cannot score or scores 0 for want of
    a relevant document."""
    n = r.lengths
    one = n == 1
    out: dict[str, dict[Any, str]] = {}
    for column, metric in columns.items():
        name, level = metric.name, metric.kwargs.get("rel", rel)
        if name in ("AUC", "GAUC"):
            n_pos = r.n_relevant(level)
            cases = [(one, "one document"), (n_pos == 0, f"no positive document (label >= {level:g})"),
                     (n_pos == n, f"no negative document (label < {level:g})")]
        elif name == "PNR":
            lowest = r.ideal[np.arange(len(n)), n - 1]
            cases = [(one, "one document"), (r.ideal[:, 0] == lowest, "all labels equal")]
        elif not metric.info.scores:
            cases = [(r.n_relevant(level) == 0, _without_relevant(metric))]
        else:
            cases = []
        out[column] = _reasons(r.query_ids, cases)
    return out


def _without_relevant(metric: Metric) -> str:
    """Why a rank metric's query is listed: no relevant document, and the value it then takes."""
    value = metric.kwargs.get("no_relevant", 0.0)
    if value:
        return f"no relevant document: {value:g}, as no_relevant={value:g} sets it"
    return "no relevant document: 0, as rk.evaluate scores it"


def _reasons(ids: np.ndarray, cases: list[tuple[np.ndarray, str]]) -> dict[Any, str]:
    """{id: the first reason whose mask holds}, in the order of the ids."""
    if not cases:
        return {}
    masks = [mask for mask, _ in cases]
    rows = np.flatnonzero(np.logical_or.reduce(masks))
    reasons = np.select([mask[rows] for mask in masks], [reason for _, reason in cases], "")
    return dict(zip(ids[rows].tolist(), reasons.tolist()))


def _warn(unscored: dict[str, dict[Any, str]], columns: dict[str, Metric]) -> None:
    """One warning naming a few queries each score metric leaves out (``nan``)."""
    for column, queries in unscored.items():
        if not queries or columns[column].name not in ("AUC", "GAUC", "PNR"):
            continue
        ids = list(queries)
        shown = ", ".join(f"{q} ({queries[q]})" for q in ids[:5]) + (f", ... ({len(ids) - 5} more)"
                                                                       if len(ids) > 5 else "")
        warnings.warn(f"{column} cannot score {len(ids)} quer{'y' if len(ids) == 1 else 'ies'} "
                      f"({_LEFT_OUT[columns[column].name]}): {shown}", UserWarning, stacklevel=outside_rankkit())


#: What the aggregate does with a query a score metric cannot score.
_LEFT_OUT = {"AUC": "nan per query; their rows still count in the AUC pooled over all rows",
             "GAUC": "nan, left out of the weighted mean",
             "PNR": "nan: no pair of different labels, none in the pooled counts either"}


# --------------------------------------------------------------------------- other array libraries


def _other_library(labels: Any, scores: Any, query: Any, columns: dict[str, Metric],
                   settings: dict[str, Any]) -> ScoreTable:
    """Arrays of an array-API library: checked with its own operations, scored by
    :func:`rankkit.evaluation.array_api.score_arrays` without a copy to NumPy."""
    try:
        import array_api_compat
    except ImportError:  # pragma: no cover - a dependency of the array extra
        raise TypeError(f"labels, scores and query must be NumPy arrays, lists or pandas Series, got "
                        f"{type(labels).__name__}, {type(scores).__name__} (install array-api-compat "
                        "for other array libraries)") from None
    arrays = [x for x in (labels, scores, query) if x is not None]
    others = [x for x in arrays if not _is_numpy_like(x)]
    try:
        xp = array_api_compat.array_namespace(*others)
    except TypeError as exc:
        raise TypeError(f"labels, scores and query must come from one array library besides NumPy (torch, JAX, "
                        f"...; NumPy arrays, lists and pandas Series beside them move to their device), got "
                        f"{', '.join(type(x).__name__ for x in arrays)}; convert the others with that library's "
                        f"asarray, e.g. torch.as_tensor(labels, device=scores.device) ({exc})") from None
    if len(others) < len(arrays):  # NumPy labels or ids beside tensors: onto the tensors' device
        labels, scores, query = (_into(xp, x, others[0], name) for x, name in
                                 ((labels, "labels"), (scores, "scores"), (query, "query")))
    _check_xp(xp, labels, scores, query)
    from .array_api import score_arrays

    ids, values, totals, n_rows = score_arrays(xp, labels, scores, query, list(columns.values()),
                                               ties=settings["ties"], rel=settings["rel"],
                                               weights=settings["weights"], retrieved=settings["retrieved"])
    values = {c: values[str(m)] for c, m in columns.items()}
    totals = {c: totals[str(m)] for c, m in columns.items()}
    relevant = _relevant_counts(xp, labels, query, ids, columns, settings["rel"])
    unscored = _unscored_xp(xp, ids, values, columns, relevant, settings["rel"])
    _warn(unscored, columns)
    return ScoreTable(data=values, query=ids, all=totals, n_rows=n_rows, unscored=unscored,
                      metrics={c: str(m) for c, m in columns.items()}, settings=settings)


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


def _relevant_counts(xp: Any, labels: Any, query: Any, ids: Any, columns: dict[str, Metric],
                     rel: float) -> dict[float, Any]:
    """Relevance level -> each query's number of relevant rows (in the order of ``ids``), for
    the levels of the rank metrics: one stable sort of the query ids, prefix sums between
    each query's first and last row."""
    levels = {m.kwargs.get("rel", rel) for m in columns.values() if not m.info.scores}
    if not levels:
        return {}
    if query is None:
        query = xp.zeros(labels.shape[0], dtype=ids.dtype)
    order = xp.argsort(query, stable=True)
    count = order.dtype  # the library's index type (int32 on JAX without 64-bit types)
    sorted_query = xp.take(query, order)
    starts = xp.searchsorted(sorted_query, ids, side="left")
    ends = xp.searchsorted(sorted_query, ids, side="right")
    ordered = xp.take(labels, order)
    if xp.isdtype(ordered.dtype, "bool"):
        ordered = xp.astype(ordered, count)
    whole = xp.isdtype(ordered.dtype, "integral")  # integer labels meet an integer level (strict libraries)
    counts = {}
    for level in levels:  # a handful of levels, each over all rows at once
        relevant = xp.astype(ordered >= (math.ceil(level) if whole else level), count)
        prefix = xp.concat([xp.zeros(1, dtype=count), xp.cumulative_sum(relevant)])
        counts[level] = xp.take(prefix, ends) - xp.take(prefix, starts)
    return counts


def _unscored_xp(xp: Any, ids: Any, values: dict[str, Any], columns: dict[str, Metric],
                 relevant: dict[float, Any], rel: float) -> dict[str, dict]:
    """The queries a score metric left ``nan``, and those a rank metric scores 0 for want of a
    relevant document (as on NumPy): their ids copied to the host, no other data."""
    from .score_table import to_numpy

    out: dict[str, dict] = {}
    for column, metric in columns.items():
        out[column] = {}
        if metric.name in ("AUC", "GAUC", "PNR"):
            missing = xp.isnan(values[column])
            if bool(xp.any(missing)):
                out[column] = dict.fromkeys(to_numpy(ids[missing]).tolist(), "no pair to compare (one document, "
                                            "one class or all labels equal)")
        elif not metric.info.scores:
            none = relevant[metric.kwargs.get("rel", rel)] == 0
            if bool(xp.any(none)):
                out[column] = dict.fromkeys(to_numpy(ids[none]).tolist(), _without_relevant(metric))
    return out
