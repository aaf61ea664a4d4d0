"""Set-based metrics: the retrieved list taken as an unordered set.

Precision and recall of the whole retrieved set are :func:`rankkit.precision` and
:func:`rankkit.recall` with ``k=None`` (trec_eval ``set_P``, ``set_recall``), and relative
precision is :func:`rankkit.relative_precision` (``set_relative_P``). This module adds the
set measures that combine them: set AP, the F-measure, and TREC's linear utility. Every
function takes labels in rank order (anything :func:`~rankkit.as_rankings` accepts) and
ignores the order; n is the number retrieved, R the number of relevant documents, and
r the number of relevant documents retrieved (label >= ``rel``).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_number, check_rel, is_int
from ..rankings import RankingsLike, as_rankings

__all__ = ["set_average_precision", "set_f", "utility"]


def _counts(rankings: RankingsLike, rel: float):
    r = as_rankings(rankings)
    rel = check_rel(rel)
    found = r.relevant(rel).sum(axis=1).astype(np.float64)
    return r, found, r.lengths.astype(np.float64), r.n_relevant(rel).astype(np.float64)


def set_average_precision(rankings: RankingsLike, *, rel: float = 1):
    """Set AP: set precision times set recall, r**2 / (n * R)  (trec_eval ``set_map``).

    The AP a ranking would have if its relevant documents were spread evenly through it
    (ir_measures ``SetAP``).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels; only the number retrieved and relevant count.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.0 when nothing was retrieved or nothing is relevant.

    Examples
    --------
    >>> set_average_precision([1, 0, 1, 0])   # (2 / 4) * (2 / 2)
    0.5
    """
    r, found, n, n_rel = _counts(rankings, rel)
    den = n * n_rel
    return r.result(np.divide(found * found, den, out=np.zeros_like(den), where=den > 0))


def set_f(rankings: RankingsLike, *, beta: float = 1.0, rel: float = 1):
    """F-measure of the retrieved set, as trec_eval ``set_F``:
    (beta + 1) P R / (beta P + R) with P = r / n and R = r / R.

    Note that trec_eval's weight enters linearly: ``beta`` here is the beta**2 of van
    Rijsbergen's F_beta = (1 + beta**2) P R / (beta**2 P + R), so ``beta=1`` is F1 and
    ``beta=4`` is F_2.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels; only the counts matter.
    beta : float >= 0, default=1.0
        Relative weight of recall (trec_eval's ``set_F.beta`` parameter).
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.0 when no relevant document was retrieved.

    Examples
    --------
    >>> round(set_f([1, 0, 1, 0, 0, 0], beta=1.0), 4)   # P = 1/3, R = 1: F1 = 0.5
    0.5
    """
    beta = check_number(beta, "beta")
    if beta < 0:
        raise ValueError(f"beta must be a non-negative number, got {beta!r}")
    r, found, n, n_rel = _counts(rankings, rel)
    hit = found > 0
    p = np.divide(found, n, out=np.zeros_like(found), where=hit)
    c = np.divide(found, n_rel, out=np.zeros_like(found), where=hit)
    den = beta * p + c
    return r.result(np.divide((beta + 1.0) * p * c, den, out=np.zeros_like(den), where=hit & (den > 0)))


def utility(
    rankings: RankingsLike,
    *,
    a: float = 1.0,
    b: float = -1.0,
    c: float = 0.0,
    d: float = 0.0,
    n_docs: int = 0,
    rel: float = 1,
):
    """Linear utility of the retrieved set (TREC filtering track; trec_eval ``utility``).

    utility = a * r + b * (n - r) + c * (R - r) + d * (N + r - n - R): a gain per relevant
    document retrieved, a cost per non-relevant retrieved, and the same for relevant and
    non-relevant documents left out, N being the collection size (Hull & Robertson,
    "The TREC-8 Filtering Track Final Report", 1999).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels; only the counts matter.
    a, b, c, d : float, default 1, -1, 0, 0
        The four coefficients (trec_eval's defaults, ``utility.1,-1,0,0``).
    n_docs : int, default=0
        N, the number of documents in the collection (trec_eval ``-N``; only ``d`` uses it).
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        Any real number.

    Examples
    --------
    >>> utility([1, 0, 1, 0, 0])           # 2 relevant, 3 not: 2 - 3
    -1.0
    >>> utility([1, 0, 1], a=2, b=-1)
    3.0
    """
    a, b, c, d = (check_number(v, name) for v, name in ((a, "a"), (b, "b"), (c, "c"), (d, "d")))
    if not is_int(n_docs) or n_docs < 0:
        raise ValueError(f"n_docs must be a non-negative integer, got {n_docs!r}")
    r, found, n, n_rel = _counts(rankings, rel)
    with np.errstate(over="ignore"):  # huge coefficients give inf, as in trec_eval
        value = a * found + b * (n - found) + c * (n_rel - found) + d * (float(n_docs) + found - n - n_rel)
    return r.result(value)
