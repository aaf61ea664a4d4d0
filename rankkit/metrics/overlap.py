"""Compatibility: how much a ranking overlaps an ideal ranking, by rank-biased overlap.

Clarke, Vtyurina and Smucker measure a ranking by its similarity to an ideal ranking of
the judged documents rather than by gains: compatibility is the rank-biased overlap (RBO)
of the two, normalized by the RBO of the ideal ranking with itself (C. L. A. Clarke,
A. Vtyurina, M. D. Smucker, "Assessing top-k preferences", ACM TOIS, 2021,
doi:10.1145/3451161; RBO: W. Webber, A. Moffat, J. Zobel, "A similarity measure for
indefinite rankings", ACM TOIS 28(4), 2010, doi:10.1145/1852102.1852106).

Sums along ranks run left to right (:mod:`rankkit.ops.numerics`), in the order ir_measures'
``compat`` provider adds them, so the two agree to the last bit or nearly.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_probability
from ..ops.numerics import powers, rank_sum
from ..rankings import FloatOrArray, Rankings, RankingsLike, as_rankings

__all__ = ["compatibility"]


def _ideal_positions(r: Rankings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every retrieved document of positive label: (query, rank, its position in the ideal).

    The ideal ranking lists the query's documents of positive label by label, descending;
    among equal labels, the retrieved ones first, in the run's order, so that the ideal is
    the one closest to the run (then the unretrieved ones, whose order does not matter).
    A document's ideal position is 1 + the documents of higher label + the retrieved
    documents of its label ranked above it.
    """
    query, column = np.nonzero(r.labels > 0)  # query-major, ranks ascending
    label = r.labels[query, column]
    iq, ic = np.nonzero(r.ideal > 0)  # the ideal's relevant entries, label descending per query
    levels, codes = np.unique(np.concatenate([r.ideal[iq, ic], label]), return_inverse=True)
    codes = codes.reshape(-1)
    span = len(levels)
    # one integer key per (query, label), ascending as the ideal is stored: query, then label descending
    ideal_keys = iq * span + (span - 1 - codes[: len(iq)])
    keys = query * span + (span - 1 - codes[len(iq):])
    first = np.concatenate([[0], np.cumsum(np.bincount(iq, minlength=r.n_queries))])[query]
    higher = np.searchsorted(ideal_keys, keys, side="left") - first
    order = np.lexsort((column, keys))  # each (query, label) group in rank order
    start = np.ones(len(order), dtype=bool)
    start[1:] = keys[order][1:] != keys[order][:-1]
    group_start = np.maximum.accumulate(np.where(start, np.arange(len(order)), 0))
    same_above = np.empty(len(order), dtype=np.int64)
    same_above[order] = np.arange(len(order)) - group_start
    return query, column + 1, higher + same_above + 1


def compatibility(rankings: RankingsLike, *, p: float = 0.95, normalize: bool = True) -> FloatOrArray:
    """Compatibility (Clarke, Vtyurina & Smucker 2021) with persistence ``p``, per query.

    RBO(run, ideal) = ``sum_{d=1}^{D} p**(d-1) * |run[:d] & ideal[:d]| / d``  /  ``sum_{d=1}^{D}
    p**(d-1)``, where ideal lists the documents of positive label by label, descending (among
    equal labels the retrieved ones first, in the run's order: the ideal closest to the
    run), and D = max(documents retrieved, documents of positive label). Compatibility
    is RBO(run, ideal) / RBO(ideal, ideal), which is 1 for the ideal ranking itself; with
    ``normalize=False``, RBO(run, ideal). As ir_measures' ``Compat`` (its ``compat``
    provider, which takes the depth D and these sums from the authors' script).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order; a ``Rankings`` supplies every judged label in ``ideal``.
    p : float in (0, 1], default=0.95
        Persistence: the weight of depth d is p**(d - 1).
    normalize : bool, default=True
        Divide by RBO(ideal, ideal) (ir_measures' default), which the finite depth D keeps
        below 1.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.0 for a query with no document of positive label, or nothing retrieved.

    Raises
    ------
    ValueError
        If the rankings carry tie groups (``ties="average"``): the overlap is not linear in
        the labels.

    Examples
    --------
    Labels 0, 2, 1 (D = 3, ideal: the documents of labels 2 and 1) and p = 1/2: the overlaps
    at depths 1, 2, 3 are 0, 1, 2, so RBO = (0 + 1/2 * 1/2 + 1/4 * 2/3) / (7/4) = 5/21; the
    ideal's own overlaps are 1, 2, 2, RBO = (1 + 1/2 + 1/6) / (7/4) = 20/21:

    >>> round(compatibility([0, 2, 1], p=0.5), 6)
    0.25
    >>> round(compatibility([0, 2, 1], p=0.5, normalize=False), 6)   # 5/21
    0.238095
    """
    r = as_rankings(rankings)
    p = check_probability(p, "p")
    if not isinstance(normalize, (bool, np.bool_)):
        raise ValueError(f"normalize must be True or False, got {normalize!r}")
    if r.ties is not None:
        raise ValueError(
            "compatibility does not support ties='average' (the overlap is not linear in the labels); "
            "rank with ties='docno', 'optimistic' or 'pessimistic'"
        )
    n_relevant = (r.ideal > 0).sum(axis=1)
    horizon = np.maximum(r.lengths, n_relevant)  # D
    width = int(horizon.max(initial=0))
    query, rank, position = _ideal_positions(r)
    # a document is in both prefixes from depth max(rank, position) on
    joins = np.bincount(query * (width + 1) + np.maximum(rank, position), minlength=r.n_queries * (width + 1))
    overlap = np.cumsum(joins.reshape(r.n_queries, width + 1), axis=1)[:, 1:].astype(np.float64)
    value = _rbo(overlap, horizon, p)
    if normalize:
        own = np.minimum(np.arange(1, width + 1), n_relevant[:, None]).astype(np.float64)
        best = _rbo(own, horizon, p)
        value = np.divide(value, best, out=value, where=best > 0)
    return r.result(value)


def _rbo(overlap: np.ndarray, horizon: np.ndarray, p: float) -> np.ndarray:
    """sum_{d<=D} p**(d-1) * overlap_d / d  /  sum_{d<=D} p**(d-1) per query (0 where D = 0),
    each term (p**(d-1) * overlap_d) / d, both sums left to right."""
    width = overlap.shape[1]
    depths = np.arange(1, width + 1, dtype=np.float64)
    weights = powers(p, width)
    terms = np.where(depths <= horizon[:, None], weights * overlap / depths, 0.0)
    total = np.zeros(len(horizon))
    reached = horizon > 0
    total[reached] = np.cumsum(weights)[horizon[reached] - 1]
    found = rank_sum(terms)
    return np.divide(found, total, out=np.zeros_like(found), where=reached)
