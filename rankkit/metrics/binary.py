"""Binary-relevance metrics: precision, recall, R-precision, success, AP, RR, bpref, ...

A document is relevant when its label is ``>= rel`` (``rel=1`` by default, like
trec_eval's ``-l 1``). Every function takes labels in rank order (anything
:func:`~rankkit.rankings.as_rankings` accepts), works on all queries at once with array
operations, and returns a float for a single 1-D list or one value per query otherwise.
A query with no relevant document scores 0.0 in every normalised metric.

Ties ``"average"``: when a :class:`~rankkit.Rankings` carries tie groups, P, R, RelP, R-precision,
success, fall-out, AP and RR report their exact expected value over all orders of each tied
group (AP and RR as McSherry & Najork 2008 derive it; AP's ``tied="group_end"`` instead counts a
group at the precision at its end, as scikit-learn does); bpref, judged and YAAP refuse them.

The definitions follow trec_eval (``m_P.c``, ``m_recall.c``, ``m_map.c``,
``m_map_cut.c``, ``m_Rprec.c``, ``m_success.c``, ``m_recip_rank.c``, ``m_bpref.c``,
``m_num_*.c``) and are tested against trec_eval 10.0's own test output and, on random
inputs, against pytrec_eval (trec_eval 9.0.8). Where the articles cited below and other
libraries use another convention, a parameter selects it and its docstring says which is
which. Interpolated precision and the precision-recall curve are in
:mod:`rankkit.metrics.curves`; their names are importable from here too.

References
----------
The docstrings reproduce numbers (never text) from articles cited by short names in
italics and listed with title, author and address in :mod:`rankkit.teaching.sources`:
(*the guide to ranking metrics*,
*abs_zero's article*, *Jason's notes on AP*).

- F. McSherry and M. Najork, "Computing Information Retrieval Performance Measures Efficiently
  in the Presence of Tied Scores", ECIR 2008, LNCS 4956, pp. 414-421,
  https://doi.org/10.1007/978-3-540-78646-7_38.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from .._validation import (
    check_k,
    check_n_relevant,
    check_no_ties,
    check_option,
    check_probability,
    check_rel,
    is_real,
)
from ..ops.numerics import ln
from ..ops.primitives import (
    as_float,
    columns,
    count,
    cumulative_product,
    gather,
    namespace,
    prefix_sum,
    rank_product,
    rank_sum,
    ratio,
    tie_bounds,
)
from ..rankings import FloatOrArray, Rankings, RankingsLike, as_rankings
from ._ranks import checked_n_relevant, checked_override, precision_at_relevant, precision_sum, relevant_ranks

# Interpolated precision and the PR curve live in .curves; their names stay importable here.
from .curves import ROUNDINGS as ROUNDINGS
from .curves import STANDARD_RECALL_LEVELS as STANDARD_RECALL_LEVELS
from .curves import interpolated_precision, interpolated_precision_average, pr_curve
from .weighting import weighted_precision_sums

__all__ = [
    "precision", "recall", "r_precision", "success", "average_precision",
    "reciprocal_rank", "bpref", "judged", "num_retrieved", "num_relevant",
    "num_relevant_retrieved", "interpolated_precision", "pr_curve", "relative_precision",
    "num_nonrelevant_judged_retrieved", "interpolated_precision_average", "yaap", "fallout",
]

#: AP denominators accepted by :func:`average_precision`.
NORMALIZATIONS = ("relevant", "retrieved", "min_k")

#: How :func:`average_precision` counts a tie group (``ties="average"``): the exact expected
#: value over its orders, or at the precision at the group's end (scikit-learn's rule).
TIED = ("expected", "group_end")

#: Denominators of :func:`precision` at a cutoff k: k (trec_eval), or min(k, documents
#: retrieved) (TensorFlow Ranking's ``PrecisionMetric``).
PRECISION_NORMALIZATIONS = ("k", "min_k_retrieved")

#: How :func:`bpref` scales the non-relevant documents above a relevant one: by min(R, N)
#: (trec_eval 8 and later), or by R (Buckley & Voorhees 2004; TensorFlow Ranking's
#: ``use_trec_version=False``).
BPREF_NORMALIZATIONS = ("min_relevant_nonrelevant", "relevant")


# --------------------------------------------------------------------------- helpers


def _top(values: np.ndarray, k: int | None) -> np.ndarray:
    """The first k ranks (every rank for None; the array API refuses a slice past the end)."""
    return values if k is None else values[:, :min(k, values.shape[1])]


def _relevant(r: Rankings, rel: float, k: int | None = None) -> np.ndarray:
    """1.0 where the top k holds a relevant document, 0.0 elsewhere."""
    return as_float(_top(r.labels, k) >= rel, r.labels)


def _hits(r: Rankings, rel: float, k: int | None) -> np.ndarray:
    """Relevant documents in the top k per query (the expected count under tie groups)."""
    if r.ties is None:
        return as_float(count(_top(r.labels, k) >= rel), r.labels)
    return rank_sum(_top(r.expected(_relevant(r, rel)), k))


def _retrieved(r: Rankings) -> np.ndarray:
    """True at the ranks each query retrieved (not the padding)."""
    return columns(r.labels) < r.lengths[:, None]


# --------------------------------------------------------------------------- tie groups


def _tie_groups(r: Rankings, relevant: np.ndarray):
    """Per rank, its tie group: ``(start, size, n_rel, before)``, the 0-based rank where the
    group starts (c, the documents above it), how many documents and relevant documents it
    holds, and the relevant documents above it (h). Groups are runs of equal ids in a row;
    ``relevant`` is 1.0 or 0.0 at each rank. Counts, so exact on every library."""
    start, end = r.derived("tie bounds", lambda: tie_bounds(r.ties))
    prefix = prefix_sum(relevant)
    before = gather(prefix, start)
    return start, as_float(end - start, relevant), gather(prefix, end) - before, before


def _ranks(like: np.ndarray) -> np.ndarray:
    """The 1-based ranks of the columns, as floats of ``like``'s library: a (1, depth) row."""
    return as_float(columns(like), like) + 1.0


def _expected_precisions(r: Rankings, relevant: np.ndarray) -> np.ndarray:
    """E[rel_j * P@j] at each rank j over the orders of every tie group (McSherry & Najork
    2008): a group of n documents, r relevant, below c documents of which h relevant, gives
    its i-th rank (r / n) * (h + 1 + (i - 1)(r - 1) / (n - 1)) / (c + i)."""
    start, size, n_rel, before = _tie_groups(r, relevant)
    ranks = _ranks(relevant)
    i = ranks - as_float(start, relevant)
    shared = ratio((i - 1.0) * (n_rel - 1.0), size - 1.0)  # 0 for a group of one
    return n_rel / size * (before + 1.0 + shared) / ranks


def _group_end_precisions(r: Rankings, relevant: np.ndarray, k: int | None) -> np.ndarray:
    """Each tie group's relevant count times the precision at its last rank, at that rank
    (scikit-learn's ``average_precision_score``); a group cut by k counts as its expected
    part above the cut, x = r * m / n of its m ranks there, at precision (h + x) / k."""
    xp = namespace(relevant)
    start, size, n_rel, before = _tie_groups(r, relevant)
    cols = columns(relevant)
    end = r.derived("tie bounds", lambda: tie_bounds(r.ties))[1] == cols + 1
    if k is not None and k <= relevant.shape[1]:
        end = end | (cols == k - 1)
    ranks = _ranks(relevant)
    x = n_rel * (ranks - as_float(start, relevant)) / size
    return xp.where(end, x * (before + x) / ranks, 0.0)


def _expected_first_relevant(r: Rankings, relevant: np.ndarray) -> np.ndarray:
    """P(rank j holds the first relevant document) over the orders of every tie group: in the
    first group with r > 0 relevant of n (below only non-relevant ones), its i-th rank is first
    with probability C(n - i, r - 1) / C(n, r), built as a product rank by rank."""
    xp = namespace(relevant)
    start, size, n_rel, before = _tie_groups(r, relevant)
    first = (n_rel > 0) & (before == 0)
    left = size - as_float(columns(relevant) - start, relevant)  # n - i + 1 documents not yet placed
    miss = xp.where(first, xp.maximum(left - n_rel, 0.0) / left, 1.0)  # rank i not relevant, given
    reach = cumulative_product(miss)[:, :-1]  # no relevant one above rank i
    return xp.where(first, reach * n_rel / left, 0.0)


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
    r = as_rankings(rankings, any_library=True)
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
    r = as_rankings(rankings, any_library=True)
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


def precision(
    rankings: RankingsLike, *, k: int | None = None, rel: float = 1,
    normalize: Literal["k", "min_k_retrieved"] = "k",
) -> FloatOrArray:
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
    normalize : {"k", "min_k_retrieved"}, default="k"
        The denominator at a cutoff: ``"k"`` (trec_eval ``P_k``, ir_measures, ranx) or
        ``"min_k_retrieved"``, min(k, documents retrieved), so that a list shorter than k
        can score 1 (TensorFlow Ranking's ``PrecisionMetric``, ``tensorflow_ranking/python/
        metrics_impl.py``: its test ``test_precision_should_handle_topn`` gives 2/3 at
        topn=6 for a list of 3 holding 2 relevant documents). Equal when k <= the list's length.

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
    >>> precision([[1, 0], [1, 1]], k=4, normalize="min_k_retrieved")
    array([0.5, 1. ])
    """
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    rel = check_rel(rel)
    normalize = check_option(normalize, PRECISION_NORMALIZATIONS, "normalize")
    if k is None:
        shown = r.lengths
    elif normalize == "k":
        shown = k
    else:
        xp = namespace(r.lengths)
        shown = xp.minimum(r.lengths, xp.full_like(r.lengths, k))
    return r.result(ratio(_hits(r, rel, k), shown))


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
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    rel = check_rel(rel)
    n_rel = checked_n_relevant(r, rel, n_relevant)
    return r.result(ratio(_hits(r, rel, k), n_rel))


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
    n_rel = checked_n_relevant(r, rel, n_relevant)
    cut = np.floor(float(multiple) * n_rel + 0.9).astype(np.int64)  # (long) (x * R + 0.9)
    if r.ties is None:
        ranks = relevant_ranks(r.relevant(rel))[0]
        hits = ((ranks > 0) & (ranks <= cut[:, None])).sum(axis=1)
    else:
        counts = prefix_sum(r.expected(_relevant(r, rel)))
        hits = counts[np.arange(r.n_queries), np.minimum(cut, r.depth)]
    return r.result(ratio(hits, cut))


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
    return r.result(ratio(_hits(r, rel, k), best))


def fallout(
    rankings: RankingsLike, *, k: int | None = None, rel: float = 1, n_nonrelevant=None
) -> FloatOrArray:
    """Fall-out at cutoff ``k``: the fraction of the query's judged non-relevant documents
    that the top ``k`` retrieves.

    Fallout@k = (judged documents with label < rel in the top k) / N, N the query's judged
    non-relevant documents, retrieved or not; the false-positive rate of the top k, where
    recall is its true-positive rate. Lower is better. It is torchmetrics'
    ``retrieval_fall_out`` (``torchmetrics/functional/retrieval/fall_out.py``, torchmetrics
    1.9), which also gives 0.0 to a query without a non-relevant document; its class
    ``RetrievalFallOut`` gives such a query 1.0 by default (``empty_target_action="pos"``).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order; unjudged documents (and labels < 0 in a qrels file) count
        neither in the top k nor in N. A bare array counts every position as judged.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole list.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant, any other judged label is not.
    n_nonrelevant : int, array-like of shape (n_queries,) or None, default=None
        N, overriding the judged count: for bare lists that hold only the retrieved labels
        while more non-relevant documents were judged. It may not be smaller than the
        non-relevant labels in the list.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.0 for a query without a judged non-relevant document. With tie groups
        (``ties="average"``), the exact expected value over their orders.

    Examples
    --------
    torchmetrics' example: scores 0.2, 0.3, 0.5 for labels 1, 0, 1, so the order is 1, 0, 1
    and the top 2 holds the one non-relevant document.

    >>> fallout([1, 0, 1], k=2)
    1.0
    >>> fallout([[0, 1, 0, 1], [1, 1]], k=1, n_nonrelevant=[4, 2])
    array([0.25, 0.  ])
    """
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    rel = check_rel(rel)
    nonrelevant = r.judged & ~r.relevant(rel) & _retrieved(r)
    override = check_n_relevant(n_nonrelevant, r.n_queries, "n_nonrelevant")
    if override is None:
        n_nonrel = r.n_judged - r.n_relevant(rel)
    else:
        n_nonrel = checked_override(r, override, count(nonrelevant), "n_nonrelevant",
                                    "judged non-relevant labels")
    if r.ties is None:
        hits = as_float(count(_top(nonrelevant, k)), r.labels)
    else:
        hits = rank_sum(_top(r.expected(as_float(nonrelevant, r.labels)), k))
    return r.result(ratio(hits, n_nonrel))


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
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    relevant = r.relevant(check_rel(rel))
    xp = namespace(relevant)
    if r.ties is None or k is None or k >= r.depth:
        return r.result(xp.any(_top(relevant, k), axis=1))
    # Only the tie group holding rank k can straddle the cutoff; every other group is
    # wholly inside or outside the top k.
    start, size, n_rel_group, before = (x[:, k - 1] for x in _tie_groups(r, as_float(relevant, r.labels)))
    inside = as_float(k - start, size)  # the group's positions within the top k
    free = size - n_rel_group
    # C(free, inside) / C(size, inside) = prod_{j < inside} (free - j) / (size - j),
    # multiplied left to right; exactly 1 when the group has no relevant document.
    j = as_float(columns(relevant[:, :int(xp.max(k - start))]), size)
    factors = xp.maximum(free[:, None] - j, 0.0) / xp.maximum(size[:, None] - j, 1.0)
    p_none = xp.where(free >= inside, rank_product(xp.where(j < inside[:, None], factors, 1.0)), 0.0)
    return r.result(xp.where(before > 0, 1.0, 1.0 - p_none))


# --------------------------------------------------------------------------- rank-based


def average_precision(
    rankings: RankingsLike,
    *,
    k: int | None = None,
    normalize: Literal["relevant", "retrieved", "min_k"] = "relevant",
    rel: float = 1,
    n_relevant=None,
    tied: Literal["expected", "group_end"] = "expected",
    no_relevant: float = 0.0,
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
    tied : {"expected", "group_end"}, default="expected"
        How a tie group counts when the rankings carry them (``ties="average"``; without
        tie groups both give the same value):

        - ``"expected"``: the exact expected AP over all orders of each group (McSherry &
          Najork 2008): the i-th rank of a group of n documents, r of them relevant, below
          c documents of which h are relevant, adds
          (r / n) * (h + 1 + (i - 1)(r - 1) / (n - 1)) / (c + i) to the sum of precisions.
        - ``"group_end"``: every relevant document of a group counts at the precision at
          the group's last rank, (h + r) / (c + n): scikit-learn's
          ``average_precision_score`` (whose thresholds are the distinct scores). A group
          cut by ``k`` counts its expected share above the cut, x = r * m / n for its m
          ranks there, at precision (h + x) / k.
    no_relevant : float in [0, 1], default=0.0
        The value of a query without a relevant document (R = 0): 0 as trec_eval scores
        it, 1 as XGBoost's ``map`` metric does (``map-`` gives 0; XGBoost's
        ``tests/cpp/metric/test_rank_metric.h``, ``VerifyMAP``: 0.8611 over three groups,
        the last without a relevant document).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; a query with no relevant document scores ``no_relevant`` (0.0).

    Raises
    ------
    ValueError
        For ``normalize="retrieved"`` with a cutoff ``k`` on rankings with tie groups (its
        denominator, the relevant documents in the top k, then depends on the order).

    References
    ----------
    F. McSherry and M. Najork, "Computing Information Retrieval Performance Measures
    Efficiently in the Presence of Tied Scores", ECIR 2008, LNCS 4956, pp. 414-421,
    https://doi.org/10.1007/978-3-540-78646-7_38.

    Examples
    --------
    The guide to ranking metrics, query Q1: relevant at ranks 1, 3 and 4 of the top 5.

    >>> round(average_precision([1, 0, 1, 1, 0, 0, 1], k=5, normalize="retrieved"), 2)
    0.81

    The rose example of Jason's notes on AP:

    >>> average_precision([0, 0, 1, 1, 1, 1])
    0.525

    Two documents tied at the top, one relevant: the orders [1, 0] and [0, 1] give AP 1
    and 1/2, so 3/4 expected; scikit-learn's rule counts the relevant one at the
    group's end, precision 1/2.

    >>> import pandas as pd
    >>> tied = Rankings(labels=np.array([[1.0, 0.0]]), judged=np.ones((1, 2), bool),
    ...                 lengths=np.array([2]), ideal=np.array([[1.0, 0.0]]),
    ...                 n_judged=np.array([2]), query_ids=pd.Index(["q"]), ties=np.array([[0, 0]]))
    >>> average_precision(tied), average_precision(tied, tied="group_end")
    (array([0.75]), array([0.5]))

    XGBoost's rule for a list without a relevant document:

    >>> average_precision([[1, 0], [0, 0]], no_relevant=1)
    array([1., 1.])
    """
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    normalize = check_option(normalize, NORMALIZATIONS, "normalize")
    rel = check_rel(rel)
    tied = check_option(tied, TIED, "tied")
    no_relevant = check_probability(no_relevant, "no_relevant", low_open=False)
    n_rel = checked_n_relevant(r, rel, n_relevant)
    if r.ties is None:
        relevant = _top(r.labels, k) >= rel
        found = count(relevant)
        # Summed rank by rank, like trec_eval's loop, so the last digit agrees too.
        total = precision_sum(relevant, r.labels)
        if r.item_weights is not None:  # item weights (evaluate_scores): TensorFlow Ranking's AP
            total, found, n_rel = weighted_precision_sums(r, relevant, rel)
    else:
        if normalize == "retrieved" and k is not None:
            raise ValueError("normalize='retrieved' takes no cutoff k on rankings with tie groups "
                             "(ties='average'): its denominator would depend on the order; use "
                             "normalize='relevant' or 'min_k', or k=None")
        relevant = _relevant(r, rel)
        found = rank_sum(relevant)
        if tied == "expected":
            total = rank_sum(_top(_expected_precisions(r, relevant), k))
        else:
            total = rank_sum(_top(_group_end_precisions(r, relevant, k), k))
    if normalize == "relevant":
        denominator = n_rel
    elif normalize == "retrieved":
        denominator = found
    else:
        denominator = n_rel if k is None else namespace(total).minimum(as_float(n_rel, total), float(k))
    return r.result(_unless_no_relevant(ratio(total, denominator), n_rel, no_relevant))


def _unless_no_relevant(values, n_rel, no_relevant: float):
    """``values``, with ``no_relevant`` where a query has no relevant document (R = 0)."""
    if not no_relevant:
        return values
    xp = namespace(values)
    return xp.where(n_rel > 0, values, xp.full_like(values, no_relevant))


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
    n_rel = checked_n_relevant(r, rel, n_relevant)
    check_no_ties(r, "yaap", "per_rank")
    ranks = relevant_ranks(r.labels >= rel)[0]
    total = rank_sum(precision_at_relevant(ranks))  # rank by rank, as m_yaap.c sums
    return r.result(ln((1.0 + total) / (1.0 + n_rel - total)))  # correctly rounded, as glibc's log


def reciprocal_rank(
    rankings: RankingsLike, *, k: int | None = None, rel: float = 1, no_relevant: float = 0.0
) -> FloatOrArray:
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
    no_relevant : float in [0, 1], default=0.0
        The value of a query without a relevant document (R = 0): 0 as trec_eval scores
        it; 1 takes such a query as one the ranking cannot get wrong, as XGBoost's ``map``
        and LightGBM's ``ndcg`` do (see :func:`average_precision`).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; a query with no relevant document scores ``no_relevant`` (0.0). With tie groups
        (``ties="average"``), the exact expected value over their orders (McSherry &
        Najork 2008, see :func:`average_precision`): in the first group holding a relevant
        document, r of its n, below c documents, its i-th rank is the first relevant one
        with probability C(n - i, r - 1) / C(n, r), and E[RR@k] is the sum over its ranks
        c + i <= k of that probability / (c + i).

    Examples
    --------
    abs_zero's article (AI派): first relevant documents at ranks 2, 1 and 3; MRR = 0.61.

    >>> rr = reciprocal_rank([[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0]])
    >>> rr.round(4), round(float(rr.mean()), 2)
    (array([0.5   , 1.    , 0.3333]), 0.61)
    """
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    rel = check_rel(rel)
    no_relevant = check_probability(no_relevant, "no_relevant", low_open=False)
    return r.result(_unless_no_relevant(_reciprocal_ranks(r, rel, k), r.n_relevant(rel), no_relevant))


def _reciprocal_ranks(r: Rankings, rel: float, k: int | None):
    """1 / the rank of the first relevant document in the top k (0.0 without one), or its
    expectation over the orders of the tie groups."""
    if r.ties is not None:
        chance = _expected_first_relevant(r, _relevant(r, rel))
        return rank_sum(_top(chance / _ranks(chance), k))
    relevant = _top(r.labels, k) >= rel
    if not relevant.shape[1]:
        return as_float(count(relevant), r.labels)
    xp = namespace(relevant)
    first = as_float(xp.argmax(as_float(relevant, r.labels), axis=1), r.labels) + 1.0
    return xp.where(xp.any(relevant, axis=1), 1.0 / first, 0.0)


def bpref(
    rankings: RankingsLike, *, rel: float = 1,
    normalize: Literal["min_relevant_nonrelevant", "relevant"] = "min_relevant_nonrelevant",
) -> FloatOrArray:
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
    normalize : {"min_relevant_nonrelevant", "relevant"}, default="min_relevant_nonrelevant"
        What min(n_r, R) is divided by: min(N, R), trec_eval 8 and later; or R, the
        formula of Buckley & Voorhees's paper, (1 / R) * sum_r (1 - min(n_r, R) / R)
        (TensorFlow Ranking's ``BPrefMetric(use_trec_version=False)``: its test
        ``test_bpref_divides_with_r_when_use_trec_version_is_false`` gives 0.5 for the
        labels [0, 1, 1], where trec_eval's version gives 0).

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
    >>> bpref([0, 1, 1]), bpref([0, 1, 1], normalize="relevant")   # 1 - 1/1 or 1 - 1/2, twice
    (0.0, 0.5)
    """
    r = as_rankings(rankings)
    rel = check_rel(rel)
    normalize = check_option(normalize, BPREF_NORMALIZATIONS, "normalize")
    check_no_ties(r, "bpref", "per_rank")
    relevant = r.relevant(rel)
    n_rel = r.n_relevant(rel)
    n_nonrel = r.n_judged - n_rel
    _, _, rows, cols = relevant_ranks(relevant)
    # The judged non-relevant documents above each relevant one.
    above = np.cumsum(r.judged & ~relevant, axis=1, dtype=np.int32)[rows, cols]
    scale = np.minimum(n_nonrel, n_rel) if normalize == "min_relevant_nonrelevant" else n_rel
    penalty = ratio(np.minimum(above, n_rel[rows]), scale[rows])
    # bincount adds the weights in the order given, row-major: each query in rank order.
    total = np.bincount(rows, weights=1.0 - penalty, minlength=r.n_queries)
    return r.result(ratio(total, n_rel))


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
    return r.result(ratio(count, shown))
