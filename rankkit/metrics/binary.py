"""Binary-relevance metrics: precision, recall, R-precision, success, AP, RR, bpref, ...

A document is relevant when its label is ``>= rel`` (``rel=1`` by default, like
trec_eval's ``-l 1``). Every function takes labels in rank order (anything
:func:`~rankkit.rankings.as_rankings` accepts), works on all queries at once with array
operations, and returns a float for a single 1-D list or one value per query otherwise.
A query with no relevant document scores 0.0 in every normalised metric.

The definitions follow trec_eval (``m_P.c``, ``m_recall.c``, ``m_map.c``,
``m_map_cut.c``, ``m_Rprec.c``, ``m_success.c``, ``m_recip_rank.c``, ``m_bpref.c``,
``m_iprec_at_recall.c``, ``m_num_*.c``) and are tested against trec_eval 10.0's own test
output and, on random inputs, against pytrec_eval (trec_eval 9.0.8). The two versions
differ only in how ``iprec_at_recall`` rounds a recall level to a count (the
``rounding`` parameter). Where the articles cited below and other libraries use another
convention, a parameter selects it and its docstring says which is which.

References
----------
The docstrings reproduce numbers (never text) from articles cited by short names in
italics and listed with title, author and address in :mod:`rankkit.sources`:
(*the guide to ranking metrics*,
*abs_zero's article*, *Jason's notes on AP*).

- C. D. Manning, P. Raghavan and H. Schütze, *Introduction to Information Retrieval*,
  Cambridge University Press, 2008, sec. 8.4.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np

from .._validation import (
    check_k,
    check_n_relevant,
    check_no_ties,
    check_option,
    check_recall_levels,
    check_rel,
    is_real,
)
from ..rankings import FloatOrArray, Rankings, RankingsLike, as_rankings
from ._interpolation import interpolate, recall_cut
from ._numerics import ln, rank_product, rank_sum

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "precision", "recall", "r_precision", "success", "average_precision",
    "reciprocal_rank", "bpref", "judged", "num_retrieved", "num_relevant",
    "num_relevant_retrieved", "interpolated_precision", "pr_curve", "relative_precision",
    "num_nonrelevant_judged_retrieved", "interpolated_precision_average", "yaap",
]

#: AP denominators accepted by :func:`average_precision`.
NORMALIZATIONS = ("relevant", "retrieved", "min_k")

#: How :func:`interpolated_precision` turns a recall level of R into a count of relevant documents.
ROUNDINGS = ("textbook", "nearest", "plus_0.9")

#: trec_eval's default ``iprec_at_recall`` levels, written as literals (not
#: ``linspace``) so that ``level * R`` rounds exactly as trec_eval's C doubles do.
STANDARD_RECALL_LEVELS = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])


# --------------------------------------------------------------------------- helpers


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, and 0.0 where den == 0 (no relevant document, nothing retrieved)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.broadcast_to(np.asarray(den, dtype=np.float64), num.shape)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def _n_relevant(r: Rankings, rel: float, n_relevant) -> np.ndarray:
    """R per query: the judged count, or the caller's ``n_relevant`` for bare retrieved lists."""
    override = check_n_relevant(n_relevant, r.n_queries)
    if override is None:
        return r.n_relevant(rel)
    found = r.relevant(rel).sum(axis=1)
    if np.any(override < found):
        i = int(np.argmax(override < found))
        raise ValueError(
            f"n_relevant must be at least the number of relevant labels in the ranking; "
            f"query {r.query_ids[i]!r} has {int(found[i])} but n_relevant={int(override[i])}"
        )
    return override


def _top(values: np.ndarray, k: int | None) -> np.ndarray:
    return values if k is None else values[:, :k]


def _hits(r: Rankings, rel: float, k: int | None) -> np.ndarray:
    """Relevant documents in the top k per query (the expected count under tie groups)."""
    if r.ties is None:
        return (_top(r.labels, k) >= rel).sum(axis=1)
    return rank_sum(_top(r.expected(r.relevant(rel).astype(np.float64)), k))


def _relevant_ranks(relevant: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The 1-based ranks of each query's relevant documents, ascending and 0-padded.

    Returns ``(ranks, counts, rows, cols)``: ``ranks`` of shape (n_queries, max count),
    the count per query, and the positions of the relevant documents in row-major order.
    Metrics that only look at relevant ranks (AP, RR, bpref, interpolated precision)
    then work on this small matrix instead of the full ranking.
    """
    rows, cols = np.divmod(np.flatnonzero(relevant), max(relevant.shape[1], 1))  # 3x np.nonzero
    counts = np.bincount(rows, minlength=relevant.shape[0])
    ranks = np.zeros((relevant.shape[0], int(counts.max(initial=0))), dtype=np.int64)
    within = np.arange(rows.size) - np.repeat(np.cumsum(counts) - counts, counts)
    ranks[rows, within] = cols + 1
    return ranks, counts, rows, cols


def _precision_at_relevant(ranks: np.ndarray) -> np.ndarray:
    """P@rank of the c-th relevant document = c / rank (0 in the padding)."""
    nth = np.broadcast_to(np.arange(1, ranks.shape[1] + 1, dtype=np.float64), ranks.shape)
    return _ratio(nth, ranks)


def _prefix_counts(rel: np.ndarray) -> np.ndarray:
    """Sums along the ranks, left to right, with a leading 0 column: ``out[:, j]`` = top j."""
    out = np.zeros((rel.shape[0], rel.shape[1] + 1))
    np.cumsum(rel, axis=1, out=out[:, 1:])
    return out


# --------------------------------------------------------------------------- counts


def num_retrieved(rankings: RankingsLike) -> FloatOrArray:
    """Number of documents retrieved per query (trec_eval ``num_ret``).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order; a ragged list of lists keeps each row's length.

    Returns
    -------
    float or ndarray of shape (n_queries,)

    Examples
    --------
    >>> num_retrieved([[1, 0, 1], [0]])
    array([3., 1.])
    """
    r = as_rankings(rankings)
    return r.result(r.lengths)


def num_relevant(rankings: RankingsLike, *, rel: float = 1) -> FloatOrArray:
    """Number of relevant judged documents per query, R (trec_eval ``num_rel``).

    R counts every judged document with label ``>= rel``, retrieved or not; for a bare
    array, the array is taken to hold every judged document.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)

    Examples
    --------
    >>> num_relevant([2, 0, 1, 0], rel=1)
    2.0
    >>> num_relevant([2, 0, 1, 0], rel=2)
    1.0
    """
    r = as_rankings(rankings)
    return r.result(r.n_relevant(check_rel(rel)))


def num_relevant_retrieved(rankings: RankingsLike, *, rel: float = 1) -> FloatOrArray:
    """Number of relevant documents retrieved per query (trec_eval ``num_rel_ret``).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        The count over the whole list, so tie groups (``ties="average"``) do not change it.

    Examples
    --------
    >>> num_relevant_retrieved([[1, 0, 1], [0, 0]])
    array([2., 0.])
    """
    r = as_rankings(rankings)
    return r.result(r.relevant(check_rel(rel)).sum(axis=1))


def num_nonrelevant_judged_retrieved(rankings: RankingsLike, *, rel: float = 1) -> FloatOrArray:
    """Number of judged non-relevant documents retrieved per query (trec_eval
    ``num_nonrel_judged_ret``): judged, with a label below ``rel``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit import Rankings
    >>> r = Rankings(labels=np.array([[1.0, 0.0, 0.0]]), judged=np.array([[True, True, False]]),
    ...              lengths=np.array([3]), ideal=np.array([[1.0, 0.0]]), n_judged=np.array([2]),
    ...              query_ids=pd.Index(["q"]))
    >>> num_nonrelevant_judged_retrieved(r)   # the unjudged third document does not count
    array([1.])
    """
    r = as_rankings(rankings)
    rel = check_rel(rel)
    retrieved = np.arange(r.depth) < r.lengths[:, None]
    return r.result((r.judged & retrieved & ~r.relevant(rel)).sum(axis=1))


# --------------------------------------------------------------------------- set-based at k


def precision(rankings: RankingsLike, *, k: int | None = None, rel: float = 1) -> FloatOrArray:
    """Precision at cutoff ``k``: the fraction of the top ``k`` that is relevant.

    P@k = (number of relevant documents in the top k) / k.

    Like trec_eval ``P_k``, the denominator is ``k`` even when fewer than ``k``
    documents were retrieved (the missing ranks count as non-relevant). With
    ``k=None`` the denominator is the number retrieved (0.0 when nothing was retrieved).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole list.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; a query with no relevant document scores 0.0. With tie groups
        (``ties="average"``) the exact expected value over all orders of each group.

    Examples
    --------
    The guide to ranking metrics (Efimov, after Ilya Markov): of documents A-G, A, C and G
    are relevant in the top 5.

    >>> precision([1, 0, 1, 0, 1, 1, 0], k=5)
    0.6
    >>> precision([[1, 0], [1, 1]], k=4)
    array([0.25, 0.5 ])
    """
    r = as_rankings(rankings)
    k = check_k(k)
    rel = check_rel(rel)
    return r.result(_ratio(_hits(r, rel, k), r.lengths if k is None else k))


def recall(
    rankings: RankingsLike, *, k: int | None = None, rel: float = 1, n_relevant=None
) -> FloatOrArray:
    """Recall at cutoff ``k``: the fraction of all relevant documents found in the top ``k``.

    R@k = (number of relevant documents in the top k) / R  (trec_eval ``recall_k``).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole list.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.
    n_relevant : int, array-like of shape (n_queries,) or None, default=None
        R, overriding ``num_relevant(rankings)``: for bare lists that hold only the
        retrieved labels while more relevant documents exist (the guide to ranking
        metrics: 7 documents, 4 relevant). It may not be smaller than the relevant labels in the list.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; a query with no relevant document scores 0.0. With tie groups
        (``ties="average"``) the exact expected value over all orders of each group.

    Examples
    --------
    The guide to ranking metrics: A, C, G of the 4 relevant documents A, C, F, G are in
    the top 5.

    >>> recall([1, 0, 1, 0, 1], k=5, n_relevant=4)
    0.75
    >>> recall([1, 0, 1, 0, 1, 1, 0], k=5)
    0.75
    """
    r = as_rankings(rankings)
    k = check_k(k)
    rel = check_rel(rel)
    n_rel = _n_relevant(r, rel, n_relevant)
    return r.result(_ratio(_hits(r, rel, k), n_rel))


def r_precision(
    rankings: RankingsLike, *, multiple: float = 1.0, rel: float = 1, n_relevant=None
) -> FloatOrArray:
    """R-precision: precision at rank R, where R is the number of relevant documents.

    Rprec = (number of relevant documents in the top R) / R  (trec_eval ``Rprec``; the
    denominator stays R when fewer than R documents were retrieved). It equals recall at R.
    With ``multiple`` = x, the cutoff is c = floor(x * R + 0.9) and the value is the
    precision at c, relevant documents in the top c over c (trec_eval ``Rprec_mult_x``,
    which rounds x * R that way, e.g. c = 1 for R = 4 and x = 0.2); 0.0 when c = 0.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    multiple : float >= 0, default=1.0
        The cutoff as a multiple of R (trec_eval's ``Rprec_mult`` defaults: 0.2, 0.4, ...,
        2.0). ``1.0`` is R-precision.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.
    n_relevant : int, array-like of shape (n_queries,) or None, default=None
        R, overriding ``num_relevant(rankings)`` (see :func:`recall`).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; a query with no relevant document scores 0.0. With tie groups
        (``ties="average"``) the exact expected value over all orders of each group.

    Examples
    --------
    >>> r_precision([1, 0, 1, 0, 0])
    0.5
    >>> r_precision([1, 0, 1], n_relevant=4)
    0.5
    >>> r_precision([1, 0, 1, 0, 0], multiple=2.0)   # c = 4: 2 relevant in the top 4
    0.5
    """
    r = as_rankings(rankings)
    rel = check_rel(rel)
    if not (is_real(multiple) and np.isfinite(multiple) and multiple >= 0):
        raise ValueError(f"multiple must be a non-negative number, got {multiple!r}")
    n_rel = _n_relevant(r, rel, n_relevant)
    cut = np.floor(float(multiple) * n_rel + 0.9).astype(np.int64)  # (long) (x * R + 0.9)
    if r.ties is None:
        ranks = _relevant_ranks(r.relevant(rel))[0]
        hits = ((ranks > 0) & (ranks <= cut[:, None])).sum(axis=1)
    else:
        counts = _prefix_counts(r.expected(r.relevant(rel).astype(np.float64)))
        hits = counts[np.arange(r.n_queries), np.minimum(cut, r.depth)]
    return r.result(_ratio(hits, cut))


def relative_precision(rankings: RankingsLike, *, k: int | None = None, rel: float = 1) -> FloatOrArray:
    """Relative precision at ``k``: P@k divided by the best P@k possible, min(k, R) / k.

    RelP@k = (relevant documents in the top k) / min(k, R)  (trec_eval ``relative_P_k``):
    1.0 whenever the top k holds as many relevant documents as it can, so unlike P@k it
    does not punish a query with fewer than k relevant documents.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole list (trec_eval ``set_relative_P``: relevant
        retrieved / min(number retrieved, R)).
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.0 for a query with no relevant document (or nothing retrieved, for
        ``k=None``). With tie groups, the expected value over their orders.

    Examples
    --------
    >>> relative_precision([1, 0, 1, 0], k=4)   # R = 2: 2 of the best possible 2
    1.0
    >>> precision([1, 0, 1, 0], k=4)
    0.5
    """
    r = as_rankings(rankings)
    k = check_k(k)
    rel = check_rel(rel)
    best = np.minimum(r.lengths if k is None else k, r.n_relevant(rel))
    return r.result(_ratio(_hits(r, rel, k), best))


def success(rankings: RankingsLike, *, k: int | None = None, rel: float = 1) -> FloatOrArray:
    """Success at cutoff ``k``: 1.0 if a relevant document is in the top ``k``, else 0.0.

    trec_eval ``success_k`` (also called hit rate, or "Success@k" in ir_measures).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole list.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 or 1.0; a query with no relevant document scores 0.0. With tie groups
        (``ties="average"``), the exact probability over all orders of the tie group
        straddling rank ``k``: if no relevant document ranks above that group, it is
        ``1 - C(g - c, m) / C(g, m)`` (hypergeometric: none of the ``c`` relevant of the
        ``g`` tied documents falls in the group's ``m`` positions within the top ``k``).

    Examples
    --------
    >>> success([[0, 0, 1], [0, 0, 0]], k=3)
    array([1., 0.])
    >>> success([0, 0, 1], k=2)
    0.0
    """
    r = as_rankings(rankings)
    k = check_k(k)
    relevant = r.relevant(check_rel(rel))
    if r.ties is None or k is None or k >= r.depth:
        return r.result(_top(relevant, k).any(axis=1))
    # Only the tie group holding rank k can straddle the cutoff; every other group is
    # wholly inside or outside the top k.
    group = r.ties == r.ties[:, k - 1][:, None]
    size = group.sum(axis=1)
    n_rel_group = (group & relevant).sum(axis=1)
    start = np.argmax(group, axis=1)
    inside = k - start  # the group's positions within the top k
    before = (relevant & (np.arange(r.depth) < start[:, None])).any(axis=1)
    free = size - n_rel_group
    feasible = free >= inside
    # C(free, inside) / C(size, inside) = prod_{j < inside} (free - j) / (size - j),
    # multiplied left to right; exactly 1 when the group has no relevant document.
    j = np.arange(int(inside.max(initial=0)))
    factors = np.maximum(free[:, None] - j, 0) / np.maximum(size[:, None] - j, 1)
    p_none = np.where(feasible, rank_product(np.where(j < inside[:, None], factors, 1.0)), 0.0)
    return r.result(np.where(before, 1.0, 1.0 - p_none))


# --------------------------------------------------------------------------- rank-based


def average_precision(
    rankings: RankingsLike,
    *,
    k: int | None = None,
    normalize: Literal["relevant", "retrieved", "min_k"] = "relevant",
    rel: float = 1,
    n_relevant=None,
) -> FloatOrArray:
    """Average precision at cutoff ``k``: the mean of P@i over the relevant ranks i <= k.

    AP@k = (1 / D) * sum_{i <= k, rel_i} P@i, where the denominator D is chosen by
    ``normalize``. With ``normalize="relevant"`` it is the area under the
    (non-interpolated) precision-recall curve.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole list.
    normalize : {"relevant", "retrieved", "min_k"}, default="relevant"
        The denominator D:

        - ``"relevant"``: R, every relevant document (trec_eval ``map`` and
          ``map_cut_k``, ranx, ir_measures ``AP@k``; the precision-recall tables of Jason's
          notes on AP and their rose example).
        - ``"retrieved"``: the number of relevant documents in the top k, i.e. the mean
          over the relevant documents found (the AP@k of the guide to ranking metrics:
          0.81 and 0.53; equal to ``"relevant"`` when every relevant document is in the
          top k).
        - ``"min_k"``: min(R, k), or R when ``k`` is None (Kaggle / Ben Hamner's
          ``ml_metrics.apk`` and the six Matlab test cases in Jason's notes).
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.
    n_relevant : int, array-like of shape (n_queries,) or None, default=None
        R, overriding ``num_relevant(rankings)`` (see :func:`recall`).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; a query with no relevant document scores 0.0.

    Raises
    ------
    ValueError
        For rankings with tie groups (``ties="average"``): AP is not linear in the labels.

    Examples
    --------
    The guide to ranking metrics, query Q1: relevant at ranks 1, 3 and 4 of the top 5.

    >>> round(average_precision([1, 0, 1, 1, 0, 0, 1], k=5, normalize="retrieved"), 2)
    0.81

    The rose example of Jason's notes on AP:

    >>> average_precision([0, 0, 1, 1, 1, 1])
    0.525
    """
    r = as_rankings(rankings)
    k = check_k(k)
    normalize = check_option(normalize, NORMALIZATIONS, "normalize")
    rel = check_rel(rel)
    n_rel = _n_relevant(r, rel, n_relevant)
    check_no_ties(r, "average_precision", "per_rank")
    ranks, found = _relevant_ranks(_top(r.labels, k) >= rel)[:2]
    # Summed rank by rank, like trec_eval's loop, so the last digit agrees too.
    total = rank_sum(_precision_at_relevant(ranks))
    if normalize == "relevant":
        denominator = n_rel
    elif normalize == "retrieved":
        denominator = found
    else:
        denominator = n_rel if k is None else np.minimum(n_rel, k)
    return r.result(_ratio(total, denominator))


def yaap(rankings: RankingsLike, *, rel: float = 1, n_relevant=None) -> FloatOrArray:
    """Yet another average precision (Robertson 2012): AP on a log-odds scale.

    With S = sum_{i: rel_i} P@i (R times AP: the precisions summed, not averaged) and R
    the number of relevant documents,

        YAAP = log((1 + S) / (1 + R - S)).

    It grows with AP on one query (S = R * AP) but is not bounded: a query whose relevant
    documents are all found at the top gets log(1 + R), one where none is found
    -log(1 + R), and 0 when it has none. Averaged over queries (trec_eval ``yaap``, not in
    ``all_trec``), a hard query no longer weighs next to nothing as it does in MAP.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.
    n_relevant : int, array-like of shape (n_queries,) or None, default=None
        R, overriding ``num_relevant(rankings)`` (see :func:`recall`).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        Natural logarithm, in [-log(1 + R), log(1 + R)].

    Raises
    ------
    ValueError
        For rankings with tie groups (``ties="average"``), as :func:`average_precision`.

    References
    ----------
    S. Robertson, "On Smoothing Average Precision", ECIR 2012, LNCS 7224, pp. 158-169,
    https://doi.org/10.1007/978-3-642-28997-2_14 (trec_eval 10 ``m_yaap.c``).

    Examples
    --------
    The rose example of Jason's notes on AP: S = 1/3 + 2/4 + 3/5 + 4/6 = 2.1 of R = 4,
    log(3.1 / 2.9):

    >>> round(yaap([0, 0, 1, 1, 1, 1]), 4)
    0.0667

    All four at the top: log(1 + R) = log(5).

    >>> round(yaap([1, 1, 1, 1, 0, 0]), 4)
    1.6094
    """
    r = as_rankings(rankings)
    rel = check_rel(rel)
    n_rel = _n_relevant(r, rel, n_relevant)
    check_no_ties(r, "yaap", "per_rank")
    ranks = _relevant_ranks(r.labels >= rel)[0]
    total = rank_sum(_precision_at_relevant(ranks))  # rank by rank, as m_yaap.c sums
    return r.result(ln((1.0 + total) / (1.0 + n_rel - total)))  # correctly rounded, as glibc's log


def reciprocal_rank(rankings: RankingsLike, *, k: int | None = None, rel: float = 1) -> FloatOrArray:
    """Reciprocal rank: 1 / rank of the first relevant document within the top ``k``.

    RR@k = 1 / min{i <= k : rel_i}, and 0.0 when no relevant document is in the top k.
    trec_eval ``recip_rank`` has no cutoff (``k=None``); the cutoff reproduces "MRR@k"
    (MS MARCO, ir_measures ``RR@k``, the top-k MRR of Jason's notes).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole list.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; a query with no relevant document scores 0.0.

    Raises
    ------
    ValueError
        For rankings with tie groups (``ties="average"``).

    Examples
    --------
    abs_zero's article (AI派): first relevant documents at ranks 2, 1 and 3; MRR = 0.61.

    >>> rr = reciprocal_rank([[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0]])
    >>> rr.round(4), round(float(rr.mean()), 2)
    (array([0.5   , 1.    , 0.3333]), 0.61)
    """
    r = as_rankings(rankings)
    k = check_k(k)
    rel = check_rel(rel)
    check_no_ties(r, "reciprocal_rank", "per_rank")
    relevant = _top(r.labels, k) >= rel
    first = np.argmax(relevant, axis=1) + 1 if relevant.shape[1] else np.ones(r.n_queries, np.int64)
    return r.result(np.where(relevant.any(axis=1), 1.0 / first, 0.0))


def bpref(rankings: RankingsLike, *, rel: float = 1) -> FloatOrArray:
    """Binary preference, exactly as trec_eval ``bpref`` (Buckley & Voorhees, SIGIR 2004).

    bpref = (1 / R) * sum over retrieved relevant r of
    (1 - min(n_r, R) / min(N, R)), where n_r is the number of judged non-relevant
    documents ranked above r and N = n_judged - R the number of judged non-relevant
    documents of the query (retrieved or not). A relevant document with n_r = 0 adds 1.
    Unjudged documents (and labels < 0 in a qrels file, "pooled but not judged") are
    skipped entirely.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order with the ``judged`` mask; a bare array counts every
        position as judged (then N = number retrieved - R).
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; a query with no relevant document scores 0.0 (trec_eval: R = 0 gives
        0). With N = 0 every retrieved relevant document adds 1, so bpref = recall.

    Raises
    ------
    ValueError
        For rankings with tie groups (``ties="average"``).

    Examples
    --------
    >>> bpref([1, 0, 1, 0])
    0.75
    >>> bpref([0, 0, 1, 1, 0, 0])
    0.0
    """
    r = as_rankings(rankings)
    rel = check_rel(rel)
    check_no_ties(r, "bpref", "per_rank")
    relevant = r.relevant(rel)
    n_rel = r.n_relevant(rel)
    n_nonrel = r.n_judged - n_rel
    _, _, rows, cols = _relevant_ranks(relevant)
    # The judged non-relevant documents above each relevant one.
    above = np.cumsum(r.judged & ~relevant, axis=1, dtype=np.int32)[rows, cols]
    penalty = _ratio(np.minimum(above, n_rel[rows]), np.minimum(n_nonrel, n_rel)[rows])
    # bincount adds the weights in the order given, row-major: each query in rank order.
    total = np.bincount(rows, weights=1.0 - penalty, minlength=r.n_queries)
    return r.result(_ratio(total, n_rel))


def judged(rankings: RankingsLike, *, k: int | None = None) -> FloatOrArray:
    """Judgment rate: the fraction of the top ``k`` documents that have a relevance judgment.

    Judged@k = (judged documents in the top k) / min(k, number retrieved), as ir_measures
    ``Judged@k`` (``ir_measures/providers/judged_provider.py``: "The cutoff should be
    recalculated if it is less than the size of the run"; its test gives 1/4 for a run of
    4 documents with one judged at cutoffs 10 and 1000). Labels < 0 in a qrels file
    ("pooled but not judged") count as unjudged here; ir_measures counts any qrels entry.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        A :class:`Rankings` with its ``judged`` mask (a bare array counts every position
        as judged, so it scores 1.0).
    k : int or None, default=None
        Cutoff; ``None`` uses the whole list.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.0 for a query that retrieved nothing.

    Raises
    ------
    ValueError
        For rankings with tie groups (``ties="average"``).

    Examples
    --------
    >>> judged([[1, 0, 0], [2]], k=5)
    array([1., 1.])
    """
    r = as_rankings(rankings)
    k = check_k(k)
    check_no_ties(r, "judged", "per_rank")
    count = _top(r.judged, k).sum(axis=1)
    shown = r.lengths if k is None else np.minimum(r.lengths, k)
    return r.result(_ratio(count, shown))


# --------------------------------------------------------------------------- PR curve


def _precision_matrix(r: Rankings, relevant: np.ndarray):
    """Precision at each rank (0 beyond the list) and the cumulative relevant counts."""
    hits = np.cumsum(relevant, axis=1, dtype=np.float64)
    ranks = np.arange(1, r.depth + 1)
    inside = ranks <= r.lengths[:, None]
    prec = np.where(inside, hits / ranks, 0.0)
    return prec, hits, inside


def _check_levels(recall_levels) -> np.ndarray:
    if recall_levels is None:
        return STANDARD_RECALL_LEVELS.copy()
    return check_recall_levels(recall_levels)


def _iprec_at_levels(r: Rankings, levels: np.ndarray, n_rel: np.ndarray, rel: float,
                     rounding: str) -> np.ndarray:
    """Interpolated precision of every query at every level, shape (n_queries, n_levels)."""
    ranks, n_found = _relevant_ranks(r.relevant(rel))[:2]
    # Precision only rises at a relevant rank, so the maximum over ranks >= the c-th
    # relevant one is the maximum over the relevant ranks from the c-th on.
    best = interpolate(_precision_at_relevant(ranks))
    rows = np.arange(r.n_queries)
    out = np.zeros((r.n_queries, levels.size))
    if not ranks.shape[1]:
        return out
    for j, level in enumerate(levels):  # a few levels; every query at once
        cut = np.maximum(recall_cut(level, n_rel, rounding), 1).astype(np.int64)  # 0 acts as 1
        reached = (cut <= n_found) & (n_rel > 0)
        at = np.minimum(cut, ranks.shape[1]) - 1
        out[:, j] = np.where(reached, best[rows, at], 0.0)
    return out


def interpolated_precision(
    rankings: RankingsLike,
    *,
    recall_levels=None,
    rel: float = 1,
    n_relevant=None,
    rounding: Literal["textbook", "nearest", "plus_0.9"] = "textbook",
) -> np.ndarray:
    """Interpolated precision at recall levels: the highest precision at recall >= l.

    p_interp(l) = max { P@i : R@i >= l }, the maximum over the ranks i of the list whose
    recall R@i = (relevant in top i) / R reaches the level l (Manning, Raghavan & Schütze,
    *Introduction to Information Retrieval*, 2008, sec. 8.4). Precision only rises at a
    relevant document, so this is the highest precision from the c-th relevant document
    on, for the count c of relevant documents that reaches l (see ``rounding``). Level 0
    takes the maximum precision over the whole list; a level never reached (c > relevant
    retrieved) scores 0.0.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    recall_levels : array-like of float in [0, 1] or None, default=None
        ``None`` gives the 11 standard levels 0.0, 0.1, ..., 1.0.
    rounding : {"textbook", "nearest", "plus_0.9"}, default="textbook"
        How the level l becomes the count c. ``"textbook"``: the smallest c with
        c / R >= l, the definition above, tested with the doubles a reader computes the
        recall c / R with (R = 25, l = 0.28 gives c = 7, although ``0.28 * 25`` is
        7.000000000000001 in doubles). The two trec_eval conventions round ``l * R``
        instead, so a level can be read below it: ``"nearest"`` is ``lround(l * R)``,
        halves away from zero (trec_eval 10.0, ``m_iprec_at_recall.c``, its test output
        ``out.test.aq``, and rankkit's ``iprec_at_recall_*`` names); ``"plus_0.9"`` is
        ``(long) (l * R + 0.9)`` (trec_eval 9.x and pytrec_eval 0.5, "same cutoffs as
        historical MAP implementations"), in the IEEE doubles of the C code: with R = 3,
        ``0.7 * 3 + 0.9`` is 2.9999999999999996, so c = 2. For R = 3 and l = 0.4 the
        textbook count is 2 (1/3 < 0.4), trec_eval 10's is 1; for R = 474 and l = 0.1,
        trec_eval 10 counts 47 and trec_eval 9 counts 48.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.
    n_relevant : int, array-like of shape (n_queries,) or None, default=None
        R, overriding ``num_relevant(rankings)`` (see :func:`recall`).

    Returns
    -------
    ndarray of shape (n_levels,) for a 1-D list, else (n_queries, n_levels)
        In [0, 1]; a query with no relevant document scores 0.0 at every level.

    Raises
    ------
    ValueError
        For rankings with tie groups (``ties="average"``).

    Examples
    --------
    Ranking 1 of Jason's notes on AP (O X O O O O X X X O):

    >>> interpolated_precision([1, 0, 1, 1, 1, 1, 0, 0, 0, 1], recall_levels=[0, 0.5, 1]).round(4)
    array([1.    , 0.8333, 0.6   ])

    Relevant at ranks 1, 3 and 6 (R = 3): recall 0.4 is first reached at rank 3, where
    precision is 2/3; trec_eval 10 rounds 0.4 * 3 to 1 and reads rank 1.

    >>> interpolated_precision([1, 0, 1, 0, 0, 1], recall_levels=[0.4]).round(4)
    array([0.6667])
    >>> interpolated_precision([1, 0, 1, 0, 0, 1], recall_levels=[0.4], rounding="nearest")
    array([1.])
    """
    r = as_rankings(rankings)
    levels = _check_levels(recall_levels)
    rounding = check_option(rounding, ROUNDINGS, "rounding")
    rel = check_rel(rel)
    n_rel = _n_relevant(r, rel, n_relevant)
    check_no_ties(r, "interpolated_precision", "per_rank")
    out = _iprec_at_levels(r, levels, n_rel, rel, rounding)
    return out[0] if r.scalar else out


def _trec_eval_walk(r: Rankings, levels: np.ndarray, n_rel: np.ndarray, rel: float,
                    rounding: str) -> np.ndarray:
    """The value of each level as ``m_11pt_avg.c`` assigns it, shape (n_queries, n_levels)."""
    ranks, n_found = _relevant_ranks(r.relevant(rel))[:2]
    best = interpolate(_precision_at_relevant(ranks))  # best[:, t - 1]: at the t-th relevant
    rows = np.arange(r.n_queries)
    first = best[:, 0] if best.shape[1] else np.zeros(r.n_queries)
    values = np.zeros((r.n_queries, levels.size))
    skipping = np.ones(r.n_queries, dtype=bool)  # trailing levels beyond what was found
    stuck = np.zeros(r.n_queries, dtype=bool)
    reached = n_found.copy()  # the walk's current relevant document
    for j in range(levels.size - 1, -1, -1):  # a few levels; every query at once
        cut = recall_cut(levels[j], n_rel, rounding).astype(np.int64)
        skipping &= cut > n_found
        walking = ~skipping & ~stuck
        match = walking & (cut >= 1) & (cut <= reached)
        stuck |= walking & ~match
        at = np.clip(cut - 1, 0, max(best.shape[1] - 1, 0))
        matched = best[rows, at] if best.shape[1] else np.zeros(r.n_queries)
        values[:, j] = np.where(match, matched, np.where(stuck, first, 0.0))
        reached = np.where(match, cut, reached)
    return values


def interpolated_precision_average(
    rankings: RankingsLike,
    *,
    recall_levels=None,
    rel: float = 1,
    n_relevant=None,
    rounding: Literal["textbook", "nearest", "plus_0.9"] = "textbook",
) -> FloatOrArray:
    """Mean interpolated precision over recall levels: the 11-point average.

    With the 11 standard levels 0.0, 0.1, ..., 1.0 this is the classic 11-point
    interpolated average precision (Salton & McGill 1983; Manning, Raghavan & Schütze,
    *Introduction to Information Retrieval*, 2008, sec. 8.4):
    (1 / n_levels) sum_l p_interp(l), with p_interp from :func:`interpolated_precision`,
    the values added from the last level to the first (trec_eval's order).

    With ``rounding="textbook"`` that is the whole definition. With the trec_eval
    roundings the levels are assigned as trec_eval's ``11pt_avg`` assigns them
    (``m_11pt_avg.c`` walks the relevant documents from the last up while it walks the
    levels from the last down), which gives the same values for ascending levels: a
    level whose count c is more than the relevant documents retrieved scores 0 if it and
    every level after it do; otherwise, going down the list, a level is matched at its
    c-th relevant document while c does not exceed the previous match, and the first
    level that breaks this order, and every level before it, gets the interpolated
    precision at the first relevant document.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    recall_levels : array-like of float in [0, 1] or None, default=None
        ``None`` gives the 11 standard levels.
    rel, n_relevant, rounding
        As in :func:`interpolated_precision` (``rounding="nearest"``: trec_eval 10's
        ``11pt_avg``; ``"plus_0.9"``: trec_eval 9's).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.0 for a query with no relevant document retrieved.

    Examples
    --------
    Ranking 1 of Jason's notes on AP (O X O O O O X X X O), three levels:

    >>> interpolated_precision([1, 0, 1, 1, 1, 1, 0, 0, 0, 1], recall_levels=[0, 0.5, 1]).round(4)
    array([1.    , 0.8333, 0.6   ])
    >>> round(interpolated_precision_average([1, 0, 1, 1, 1, 1, 0, 0, 0, 1], recall_levels=[0, 0.5, 1]), 4)
    0.8111
    """
    r = as_rankings(rankings)
    levels = _check_levels(recall_levels)
    rounding = check_option(rounding, ROUNDINGS, "rounding")
    rel = check_rel(rel)
    n_rel = _n_relevant(r, rel, n_relevant)
    check_no_ties(r, "interpolated_precision_average", "per_rank")
    if rounding == "textbook":
        values = _iprec_at_levels(r, levels, n_rel, rel, rounding)
    else:
        values = _trec_eval_walk(r, levels, n_rel, rel, rounding)
    # trec_eval adds the levels' values in the order its walk meets them: the last first
    return r.result(rank_sum(values[:, ::-1]) / levels.size)


def pr_curve(rankings: RankingsLike, *, rel: float = 1, n_relevant=None) -> pd.DataFrame:
    """The precision-recall curve: one row per retrieved rank.

    At rank i: precision = (relevant in top i) / i, recall = (relevant in top i) / R, and
    interpolated_precision = max precision at any rank >= i (trec_eval's interpolation).
    Average precision (``normalize="relevant"``) is the area under the stepwise curve:
    the sum of ``precision`` over the rows where ``relevant`` is true, divided by R.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.
    n_relevant : int, array-like of shape (n_queries,) or None, default=None
        R, overriding ``num_relevant(rankings)`` (see :func:`recall`).

    Returns
    -------
    pandas.DataFrame
        Columns ``rank, relevant, precision, recall, interpolated_precision``; for more
        than one query (any input but a 1-D list) a leading ``query_id`` column, in long
        format. Recall is 0.0 for a query with no relevant document.

    Raises
    ------
    ValueError
        For rankings with tie groups (``ties="average"``).

    Examples
    --------
    >>> pr_curve([1, 0, 1])
       rank  relevant  precision  recall  interpolated_precision
    0     1      True   1.000000     0.5                1.000000
    1     2     False   0.500000     0.5                0.666667
    2     3      True   0.666667     1.0                0.666667
    """
    r = as_rankings(rankings)
    rel = check_rel(rel)
    n_rel = _n_relevant(r, rel, n_relevant)
    check_no_ties(r, "pr_curve", "per_rank")
    relevant = r.relevant(rel)
    prec, hits, inside = _precision_matrix(r, relevant)
    interpolated = interpolate(prec)
    ranks = np.broadcast_to(np.arange(1, r.depth + 1), prec.shape)
    columns = {
        "rank": ranks[inside].astype(np.int64),
        "relevant": relevant[inside],
        "precision": prec[inside],
        "recall": _ratio(hits, n_rel[:, None])[inside],
        "interpolated_precision": interpolated[inside],
    }
    if not r.scalar:
        columns = {"query_id": np.repeat(np.asarray(r.query_ids), r.lengths), **columns}
    import pandas as pd

    return pd.DataFrame(columns)
