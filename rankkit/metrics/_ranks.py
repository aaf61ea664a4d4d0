"""Kernels shared by the binary-relevance metrics (:mod:`rankkit.metrics.binary`) and the
precision-recall curves (:mod:`rankkit.metrics.curves`): safe ratios, R per query, and the
ranks of each query's relevant documents.

They trust their input, except :func:`checked_n_relevant`, which checks a caller's R.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_n_relevant
from ..ops.primitives import as_float, columns, is_numpy, namespace, prefix_sum, rank_sum, ratio
from ..rankings import Rankings

__all__ = ["checked_n_relevant", "precision_at_relevant", "precision_sum", "ratio", "relevant_ranks"]


def checked_n_relevant(r: Rankings, rel: float, n_relevant) -> np.ndarray:
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


def relevant_ranks(relevant: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
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


def precision_sum(relevant: np.ndarray, like: np.ndarray) -> np.ndarray:
    """Per query, P@i summed over its relevant ranks i, in rank order (AP's numerator), in the
    float dtype of ``like``. NumPy: on the small matrix of relevant ranks
    (:func:`relevant_ranks`); another library: along the whole ranking (adding the zeros in
    between changes no bit)."""
    if is_numpy(relevant):
        return rank_sum(precision_at_relevant(relevant_ranks(relevant)[0]))
    hits = as_float(relevant, like)
    xp = namespace(hits)
    return xp.sum(xp.where(relevant, prefix_sum(hits)[:, 1:] / (as_float(columns(hits), hits) + 1.0), 0.0), axis=1)


def precision_at_relevant(ranks: np.ndarray) -> np.ndarray:
    """P@rank of the c-th relevant document = c / rank (0 in the padding)."""
    nth = np.broadcast_to(np.arange(1, ranks.shape[1] + 1, dtype=np.float64), ranks.shape)
    return ratio(nth, ranks)
