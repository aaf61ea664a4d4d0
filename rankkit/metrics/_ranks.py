"""Kernels shared by the binary-relevance metrics (:mod:`rankkit.metrics.binary`) and the
precision-recall curves (:mod:`rankkit.metrics.curves`): safe ratios, R per query, and the
ranks of each query's relevant documents.

They trust their input, except :func:`checked_n_relevant`, which checks a caller's R.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_n_relevant
from ..ops.primitives import as_float, columns, constant, count, is_numpy, namespace, prefix_sum, rank_sum, ratio
from ..rankings import Rankings

__all__ = ["checked_n_relevant", "precision_at_relevant", "precision_sum", "ratio", "relevant_ranks"]


def checked_n_relevant(r: Rankings, rel: float, n_relevant) -> np.ndarray:
    """R per query: the judged count, or the caller's ``n_relevant`` for bare retrieved lists."""
    override = check_n_relevant(n_relevant, r.n_queries)
    if override is None:
        return r.n_relevant(rel)
    return checked_override(r, override, count(r.relevant(rel)), "n_relevant", "relevant labels")


def checked_override(r: Rankings, override: np.ndarray, found, name: str, what: str):
    """A caller's count per query (NumPy, checked), on the rankings' library, refused where
    it is below the ``found`` count of the ranking itself."""
    given = constant(override.astype(np.float64), as_float(found, r.labels))
    short = given < as_float(found, r.labels)
    xp = namespace(short)
    if bool(xp.any(short)):
        i = int(xp.argmax(as_float(short, r.labels)))
        raise ValueError(
            f"{name} must be at least the number of {what} in the ranking; "
            f"query {_host(r.query_ids, i)!r} has {int(found[i])} but {name}={int(override[i])}"
        )
    return override if is_numpy(r.labels) else given


def _host(ids, i: int):
    """Query id ``i`` as a Python value (an Index's entry, or an array's element)."""
    value = ids[i]
    return value.item() if hasattr(value, "item") else value


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
