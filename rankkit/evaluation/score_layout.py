"""A model's scores laid out as rankings: the grouping and ordering primitive of
:func:`rankkit.evaluate_scores`.

:func:`rank_scores` takes three 1-D arrays (labels, scores, query ids; rows in any order)
and returns the distinct query ids and a :class:`~rankkit.Rankings` of every query's rows
ranked by score, highest first (every row judged; ``ties="average"`` marks each run of equal
scores as a tie group; ``"pessimistic"``/``"optimistic"`` order it by label ascending /
descending), with the scores in the same layout. The metric kernels then run on it, the
same kernels whatever the library.

Laying the rows out has two paths behind the one signature, as the primitives of
:mod:`rankkit.ops.primitives`: NumPy's numbers the ids from a table of the ids present and
groups the rows by a radix sort of 16-bit digits; another array-API library's (JAX, PyTorch,
CuPy, array-api-strict) sorts by query id and gathers each query's rows into a zero-padded
matrix, with the standard's operations only, on the input's device (only a few scalars reach
the host: the depth and whether the rows come grouped). Ranking each row is one primitive,
:func:`rankkit.ops.primitives.rank_rows`, the one the pairwise metrics rank their rows with.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.primitives import namespace, rank_rows
from ..rankings import Rankings

__all__ = ["rank_scores", "query_codes"]


def rank_scores(labels: Any, scores: Any, query: Any, ties: str) -> tuple[Any, Rankings, Any]:
    """The sorted distinct query ids, the :class:`Rankings` of every query's rows ranked by
    score (its ``query_ids`` those ids) and the score at each rank (0 in the padding).

    The inputs come checked (same lengths, finite scores, labels >= 0, integer or string
    ids; None: one query, id 0).
    """
    if isinstance(scores, np.ndarray):
        ids, codes = query_codes(query, len(labels))
        r, score_matrix = _rank_numpy(labels, scores, codes, len(ids), ties)
        return ids, _with_ids(r, ids), score_matrix
    return _rank_xp(namespace(labels, scores, query), labels, scores, query, ties)


def _with_ids(r: Rankings, ids: Any) -> Rankings:
    from dataclasses import replace

    return replace(r, query_ids=ids)


# --------------------------------------------------------------------------- NumPy


def _rank_numpy(y: np.ndarray, s: np.ndarray, codes: np.ndarray, n_queries: int,
                ties: str) -> tuple[Rankings, np.ndarray]:
    """The :class:`Rankings` of labels ranked by score within each query (``codes``: each
    row's query, 0 .. n_queries - 1), every row judged, and the scores in the same layout
    (0 in the padding).

    Within a query, rows are ordered by score descending, then label ascending
    (``ties="pessimistic"``) or descending (otherwise), so the layout does not depend on the
    order of the rows (:func:`~rankkit.ops.primitives.rank_rows`). ``ties="average"`` sets
    ``Rankings.ties`` when some scores tie. Each query's rows are laid out in a row of a
    matrix first and sorted there: many short sorts instead of one long one.
    """
    counts = np.bincount(codes, minlength=n_queries).astype(np.int64)
    width = int(counts.max())
    labels, scores = _layout(y, s, codes, counts, width)
    judged = np.arange(width) < counts[:, None]
    labels, score_matrix, tie_ids = rank_rows(labels, scores, judged, ascending_labels=ties == "pessimistic",
                                              groups=ties == "average")
    ideal = np.negative(labels)
    ideal.sort(axis=1)
    r = Rankings(labels=labels, judged=judged, lengths=counts, ideal=np.negative(ideal, out=ideal),
                 n_judged=counts.copy(), query_ids=np.arange(n_queries), ties=tie_ids)
    return r, score_matrix


def _layout(y: np.ndarray, s: np.ndarray, codes: np.ndarray, counts: np.ndarray,
            width: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels and scores in a matrix of one row per query (``width`` columns), each query's
    rows in their order, 0 in the padding."""
    n_queries, n = len(counts), len(codes)
    by_query = _group_rows(codes, n_queries)
    if n_queries * width == n:  # no padding: the grouped rows are the matrix
        return y[by_query].reshape(n_queries, width), s[by_query].reshape(n_queries, width)
    flat = np.repeat(np.arange(0, n_queries * width, width, dtype=np.intp) - (np.cumsum(counts) - counts), counts)
    flat += np.arange(n, dtype=np.intp)  # each grouped row's cell
    if not isinstance(by_query, slice):
        cell = np.empty(n, dtype=np.intp)
        cell[by_query] = flat
        flat = cell  # each row's cell
    labels = np.zeros((n_queries, width))
    labels.ravel()[flat] = y
    scores = np.zeros((n_queries, width))
    scores.ravel()[flat] = s
    return labels, scores


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


def query_codes(q: np.ndarray | None, n: int) -> tuple[np.ndarray, np.ndarray]:
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


# --------------------------------------------------------------------------- other array libraries


def _rank_xp(xp: Any, labels: Any, scores: Any, query: Any, ties: str) -> tuple[Any, Rankings, Any]:
    """:func:`rank_scores` with the operations of the array API standard, on the device."""
    from array_api_compat import device as array_device

    device = array_device(scores)
    dtype = _float_dtype(xp, scores, device)
    labels, scores = xp.astype(labels, dtype), xp.astype(scores, dtype)
    n = labels.shape[0]
    if query is None:
        query = xp.zeros(n, dtype=xp.int32, device=device)
    order = None if bool(xp.all(query[1:] >= query[:-1])) else xp.argsort(query, stable=True)
    if order is not None:
        query, labels, scores = xp.take(query, order), xp.take(labels, order), xp.take(scores, order)
    new = xp.concat([xp.ones(1, dtype=xp.bool, device=device), query[1:] != query[:-1]])
    starts = xp.nonzero(new)[0]
    counts = xp.concat([starts[1:], xp.asarray([n], dtype=starts.dtype, device=device)]) - starts
    n_queries, depth = starts.shape[0], int(xp.max(counts))
    cols = xp.reshape(xp.arange(depth, dtype=starts.dtype, device=device), (1, -1))
    valid = cols < xp.reshape(counts, (-1, 1))
    where = xp.reshape(xp.minimum(xp.reshape(starts, (-1, 1)) + cols, n - 1), (-1,))

    def padded(values):
        return xp.where(valid, xp.reshape(xp.take(values, where), (n_queries, depth)), 0.0)

    all_labels, score_matrix, tie_ids = rank_rows(padded(labels), padded(scores), valid,
                                                  ascending_labels=ties == "pessimistic", groups=ties == "average")
    r = Rankings(labels=all_labels, judged=valid, lengths=counts, ideal=xp.sort(all_labels, axis=1, descending=True),
                 n_judged=counts, query_ids=xp.take(query, starts), ties=tie_ids)
    return r.query_ids, r, score_matrix


def _float_dtype(xp: Any, scores: Any, device: Any) -> Any:
    """float64 where the library's default float is (or the scores are), else the scores'
    float dtype (JAX's float32)."""
    default = xp.__array_namespace_info__().default_dtypes(device=device)["real floating"]
    if xp.isdtype(scores.dtype, "real floating"):
        return xp.result_type(scores.dtype, default)
    return default
