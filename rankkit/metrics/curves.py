"""Interpolated precision and the precision-recall curve, per query.

Interpolated precision at recall level l is the highest precision at any recall >= l
(Manning, Raghavan & Schütze, *Introduction to Information Retrieval*, Cambridge
University Press, 2008, sec. 8.4); its 11-point average (Salton & McGill 1983) and the
whole curve of one ranking (:func:`pr_curve`) follow it. Relevance is binary, label
``>= rel``, as in :mod:`rankkit.metrics.binary`, which re-exports every name here.

The definitions follow trec_eval (``m_iprec_at_recall.c``, ``m_11pt_avg.c``), tested
against trec_eval 10.0's own test output and pytrec_eval (trec_eval 9.0.8); the two
versions differ only in how a recall level is rounded to a count (``rounding``).

References
----------
The docstrings reproduce numbers (never text) from an article cited by its short name in
italics and listed with title, author and address in :mod:`rankkit.teaching.sources`
(*Jason's notes on AP*).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np

from .._validation import check_no_ties, check_option, check_recall_levels, check_rel
from ..ops.numerics import rank_sum
from ..rankings import FloatOrArray, Rankings, RankingsLike, as_rankings
from ._ranks import checked_n_relevant, precision_at_relevant, ratio, relevant_ranks
from .interpolation import interpolate, recall_cut

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["interpolated_precision", "interpolated_precision_average", "pr_curve",
           "ROUNDINGS", "STANDARD_RECALL_LEVELS"]

#: How :func:`interpolated_precision` turns a recall level of R into a count of relevant documents.
ROUNDINGS = ("textbook", "nearest", "plus_0.9")

#: trec_eval's default ``iprec_at_recall`` levels, written as literals (not
#: ``linspace``) so that ``level * R`` rounds exactly as trec_eval's C doubles do.
STANDARD_RECALL_LEVELS = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])


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
    ranks, n_found = relevant_ranks(r.relevant(rel))[:2]
    # Precision only rises at a relevant rank, so the maximum over ranks >= the c-th
    # relevant one is the maximum over the relevant ranks from the c-th on.
    best = interpolate(precision_at_relevant(ranks))
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
    n_rel = checked_n_relevant(r, rel, n_relevant)
    check_no_ties(r, "interpolated_precision", "per_rank")
    out = _iprec_at_levels(r, levels, n_rel, rel, rounding)
    return out[0] if r.scalar else out


def _trec_eval_walk(r: Rankings, levels: np.ndarray, n_rel: np.ndarray, rel: float,
                    rounding: str) -> np.ndarray:
    """The value of each level as ``m_11pt_avg.c`` assigns it, shape (n_queries, n_levels)."""
    ranks, n_found = relevant_ranks(r.relevant(rel))[:2]
    best = interpolate(precision_at_relevant(ranks))  # best[:, t - 1]: at the t-th relevant
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
    n_rel = checked_n_relevant(r, rel, n_relevant)
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
    n_rel = checked_n_relevant(r, rel, n_relevant)
    check_no_ties(r, "pr_curve", "per_rank")
    relevant = r.relevant(rel)
    prec, hits, inside = _precision_matrix(r, relevant)
    interpolated = interpolate(prec)
    ranks = np.broadcast_to(np.arange(1, r.depth + 1), prec.shape)
    columns = {
        "rank": ranks[inside].astype(np.int64),
        "relevant": relevant[inside],
        "precision": prec[inside],
        "recall": ratio(hits, n_rel[:, None])[inside],
        "interpolated_precision": interpolated[inside],
    }
    if not r.scalar:
        columns = {"query_id": np.repeat(np.asarray(r.query_ids), r.lengths), **columns}
    import pandas as pd

    return pd.DataFrame(columns)
