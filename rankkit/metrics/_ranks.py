"""Kernels shared by the binary-relevance metrics (:mod:`rankkit.metrics.binary`) and the
precision-recall curves (:mod:`rankkit.metrics.curves`): safe ratios, R per query, and the
ranks of each query's relevant documents.

They trust their input, except :func:`checked_n_relevant`, which checks a caller's R.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_n_relevant
from ..rankings import Rankings

__all__ = ["checked_n_relevant", "precision_at_relevant", "ratio", "relevant_ranks"]


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, and 0.0 where den == 0 (no relevant document, nothing retrieved)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.broadcast_to(np.asarray(den, dtype=np.float64), num.shape)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


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


def precision_at_relevant(ranks: np.ndarray) -> np.ndarray:
    """P@rank of the c-th relevant document = c / rank (0 in the padding)."""
    nth = np.broadcast_to(np.arange(1, ranks.shape[1] + 1, dtype=np.float64), ranks.shape)
    return ratio(nth, ranks)
