"""Incomplete judgments: how much of a ranking was judged, and AP estimated from a sample.

Real pools judge only part of what systems retrieve. A retrieved document is then one of
three kinds, which trec_eval tells apart (its -1, -2 and label codes):

- judged: in the qrels with a label >= 0 (``Rankings.judged``);
- pooled but not judged: in the qrels with a label below 0 (``Rankings.in_pool`` and not
  ``judged``), e.g. a document of a sampled pool that the assessors did not see;
- outside the pool: not in the qrels at all.

:func:`rankkit.judged` (the judged fraction), :func:`rankkit.bpref` and
:func:`rankkit.rbp_residual` live with their families; this module has the fraction
unjudged, inferred AP, and trec_eval's ``relstring`` view of a ranking.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import check_k, check_rel
from ..rankings import RankingsLike, as_rankings

__all__ = ["unjudged", "inferred_average_precision", "relevance_string"]

_EPSILON = 0.00001  # trec_eval's smoothing in infAP


def unjudged(rankings: RankingsLike, *, k: int | None = None):
    """Fraction of the top ``k`` ranks holding an unjudged document (trec_eval ``unj_k``).

    unj@k = (documents in the top k without a judgment) / k. Unlike ``1 - judged@k``, the
    denominator stays k when fewer documents were retrieved (trec_eval ``m_unj.c``), and
    documents pooled but not judged (qrels label below 0) count as unjudged.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        A :class:`Rankings` with its ``judged`` mask (a bare array is fully judged).
    k : int or None, default=None
        Cutoff; ``None`` uses the whole list (denominator: the number retrieved).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.0 for a query that retrieved nothing.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit import Rankings
    >>> r = Rankings(labels=np.zeros((1, 3)), judged=np.array([[True, False, False]]),
    ...              lengths=np.array([3]), ideal=np.zeros((1, 1)), n_judged=np.array([1]),
    ...              query_ids=pd.Index(["q"]))
    >>> unjudged(r, k=5)   # 2 of the top 5 (3 retrieved)
    array([0.4])
    """
    r = as_rankings(rankings)
    k = check_k(k)
    retrieved = np.arange(r.depth) < r.lengths[:, None]
    missing = (retrieved & ~r.judged)[:, :k].sum(axis=1)
    den = r.lengths if k is None else np.full(r.n_queries, k)
    return r.result(np.divide(missing, den, out=np.zeros(r.n_queries), where=den > 0))


def inferred_average_precision(rankings: RankingsLike, *, rel: float = 1):
    """Inferred AP (Yilmaz & Aslam, "Estimating average precision with incomplete and
    imperfect judgments", CIKM 2006, doi:10.1145/1183614.1183633), as trec_eval ``infAP``.

    When the pool was judged on a random sample, AP can be estimated from it. Each
    relevant document at rank k adds the expected precision at k:

        1/k + ((k - 1)/k) * (p / (k - 1)) * ((r + e) / (r + s + 2e))

    where, among the documents above rank k, p counts those in the pool (judged or
    sampled out: qrels label below 0), r the relevant and s the judged non-relevant ones,
    and e = 0.00001; rank 1 adds 1. Documents outside the pool keep their rank and add
    nothing. infAP is the sum over retrieved relevant documents, in rank order, over R.
    With every pooled document judged it is AP, up to the smoothing e.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        A :class:`Rankings` from :func:`rankkit.rank` (its ``judged`` and ``in_pool``
        masks); a bare array counts as fully judged.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 for a query with no relevant document.

    Examples
    --------
    With every document judged, infAP is AP up to the smoothing:

    >>> round(inferred_average_precision([1, 0, 1, 0]), 4)
    0.8333
    """
    r = as_rankings(rankings)
    rel = check_rel(rel)
    relevant = r.relevant(rel) & r.judged
    nonrel = r.judged & ~relevant
    pooled = r.in_pool & ~r.judged
    rows, cols = np.nonzero(relevant)  # row-major: each query's relevant ranks in order

    def above(mask):  # how many of ``mask`` sit above each relevant document
        return (np.cumsum(mask, axis=1) - mask)[rows, cols].astype(np.float64)

    k = (cols + 1).astype(np.float64)
    r_above, s_above, u_above = above(relevant), above(nonrel), above(pooled)
    pool_above = r_above + s_above + u_above
    with np.errstate(invalid="ignore", divide="ignore"):
        term = 1.0 / k + ((k - 1.0) / k) * (pool_above / (k - 1.0)) * (
            (r_above + _EPSILON) / (r_above + s_above + 2.0 * _EPSILON)
        )
    term = np.where(cols == 0, 1.0, term)
    # bincount adds the weights in the order given: each query's terms in rank order
    total = np.bincount(rows, weights=term, minlength=r.n_queries)
    n_rel = r.n_relevant(rel)
    return r.result(np.divide(total, n_rel, out=np.zeros(r.n_queries), where=n_rel > 0))


def relevance_string(rankings: RankingsLike, *, k: int | None = 10) -> np.ndarray:
    """The labels of the top ``k`` documents as one string per query (trec_eval ``relstring``).

    One character per rank: the label 0-9 (its integer part), ``>`` above 9, ``-`` for a
    document outside the pool (not in the qrels) and ``.`` for one pooled but not judged
    (qrels label below 0). A quick look at where the relevant documents sit.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        A :class:`Rankings` (its ``judged`` and ``in_pool`` masks) or bare labels.
    k : int or None, default=10
        How many ranks to show (trec_eval's default 10); ``None`` shows them all, 0 none
        (an empty string: trec_eval ``relstring.0``).

    Returns
    -------
    str or ndarray of str, shape (n_queries,)

    Examples
    --------
    >>> relevance_string([[2, 0, 1, 12], [0]])
    array(['201>', '0'], dtype='<U4')
    """
    r = as_rankings(rankings)
    zero = isinstance(k, numbers.Integral) and not isinstance(k, (bool, np.bool_)) and k == 0
    k = 0 if zero else check_k(k)
    width = r.depth if k is None else min(k, r.depth)
    labels = np.trunc(r.labels[:, :width]).clip(0, 10).astype(np.uint8)
    chars = np.where(labels > 9, ord(">"), ord("0") + labels).astype(np.uint8)
    chars = np.where(r.judged[:, :width], chars, np.where(r.in_pool[:, :width], ord("."), ord("-")))
    chars = np.where(np.arange(width) < r.lengths[:, None], chars, 0).astype(np.uint8)
    if width:  # each row's bytes as one fixed-width byte string (trailing NULs drop)
        text = np.ascontiguousarray(chars).view(f"S{width}").ravel()
    else:
        text = np.full(r.n_queries, b"", dtype="S1")
    strings = np.char.decode(text, "ascii")
    return strings[0] if r.scalar else strings

