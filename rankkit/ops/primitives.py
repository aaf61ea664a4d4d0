"""The shared primitives every metric kernel is written with, on any array library.

A metric is written once, over the array namespace ``xp`` of its input (NumPy, or any
array-API library through ``array_api_compat``: array-api-strict, JAX, PyTorch, CuPy), with
the operations of the array API standard and the few primitives here: ratios that are 0
where the denominator is, sums and products along the ranks, prefix sums, the tie groups
of a ranking and the mean over each group, gathers along rows, and tables of constants.

Each primitive has a NumPy fast path behind the same signature, and only there does a
backend show: on NumPy the sums along the ranks follow rankkit's one order of summation
(:mod:`rankkit.ops.numerics`: left to right, the same bits on every CPU), the group
means are sums in rank order (``bincount``) and ``2**x`` is correctly rounded; on another
library they are that library's own reductions (within 1e-12 of NumPy's on float64). A
metric never branches on the backend.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import numerics as _numerics

__all__ = [
    "namespace", "is_numpy", "as_float", "count", "ratio", "rank_sum", "weighted_rank_sum", "rank_product", "query_sum",
    "prefix_sum", "cumulative_product", "constant", "gather", "run_bounds", "tie_bounds", "group_mean", "exp2",
    "columns", "device", "rank_rows",
]


def namespace(*arrays: Any) -> Any:
    """The array namespace of ``arrays`` (``array_api_compat``'s; NumPy's for NumPy arrays)."""
    if all(isinstance(a, (np.ndarray, np.generic)) or a is None for a in arrays):
        return _numpy_namespace()
    from array_api_compat import array_namespace

    return array_namespace(*(a for a in arrays if a is not None))


def _numpy_namespace() -> Any:
    global _NP
    if _NP is None:
        _NP = _NumPyNamespace() if _NUMPY_IS_STANDARD else _compat_numpy()
    return _NP


_NP: Any = None

#: NumPy 2.1 and later hold the standard's functions in their own namespace.
_NUMPY_IS_STANDARD = tuple(int(v) for v in np.__version__.split(".")[:2]) >= (2, 1)

#: The standard's names whose NumPy function (2.1 and later) is the standard's, as the
#: kernels call them; any other name (``sort``, ``argsort``: ``descending=``) is array_api_compat's.
_NUMPY_OWN = frozenset({
    "abs", "all", "any", "arange", "argmax", "asarray", "astype", "bool", "broadcast_to", "concat",
    "cumulative_prod", "cumulative_sum", "exp", "float32", "float64", "full", "full_like", "inf", "int32", "int64",
    "isdtype", "isfinite", "log", "matrix_transpose", "max", "maximum", "min", "minimum", "nan", "nonzero", "ones",
    "ones_like", "reshape", "result_type", "searchsorted", "sum", "take", "unique_values", "where", "zeros",
    "zeros_like", "__array_namespace_info__",
})


def _compat_numpy() -> Any:
    import array_api_compat.numpy as compat

    return compat


class _NumPyNamespace:
    """NumPy as an array namespace, without importing ``array_api_compat.numpy`` (which
    imports every NumPy submodule: 0.1 s of a command's start) until a kernel asks for a
    name NumPy's own namespace does not hold as the standard has it."""

    __name__ = "numpy"

    def __getattr__(self, name: str) -> Any:
        value = getattr(np, name) if name in _NUMPY_OWN else getattr(_compat_numpy(), name)
        setattr(self, name, value)
        return value


def is_numpy(x: Any) -> bool:
    """Whether ``x`` is a NumPy array (the fast paths below take it)."""
    return isinstance(x, np.ndarray)


def device(x: Any) -> Any:
    """The device of an array of any library (NumPy's: "cpu")."""
    from array_api_compat import device as array_device

    return array_device(x)


def as_float(x: Any, like: Any) -> Any:
    """``x`` (an array, a bool mask or a number) in the float dtype of ``like``."""
    if is_numpy(like):
        return np.asarray(x, dtype=np.float64)
    xp = namespace(like)
    if isinstance(x, (int, float)):
        return xp.asarray(float(x), dtype=like.dtype, device=device(like))
    return xp.astype(x, like.dtype)


def count(mask: Any, axis: int = 1) -> Any:
    """How many entries of a boolean matrix hold, per row (integers)."""
    if is_numpy(mask):
        return mask.sum(axis=axis)
    xp = namespace(mask)
    return xp.sum(xp.astype(mask, xp.int64 if _has_int64(xp, mask) else xp.int32), axis=axis)


def _has_int64(xp: Any, like: Any) -> bool:
    return xp.__array_namespace_info__().default_dtypes(device=device(like))["integral"] == xp.int64


def ratio(num: Any, den: Any) -> Any:
    """num / den, and 0.0 where den == 0 (no relevant document, nothing retrieved);
    ``den`` an array or a number."""
    if is_numpy(num) or not hasattr(num, "shape"):
        num = np.asarray(num, dtype=np.float64)
        den = np.broadcast_to(np.asarray(den, dtype=np.float64), num.shape)
        return np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    xp = namespace(num)
    if not xp.isdtype(num.dtype, "real floating"):  # counts: in the library's default float
        num = xp.astype(num, xp.__array_namespace_info__().default_dtypes(device=device(num))["real floating"])
    if isinstance(den, (int, float)):
        return num / float(den) if den > 0 else xp.zeros_like(num)
    den = xp.astype(den, num.dtype)
    positive = den > 0
    return xp.where(positive, num / xp.where(positive, den, xp.ones_like(den)), xp.zeros_like(num))


def rank_sum(values: Any) -> Any:
    """Each row summed along the ranks (NumPy: left to right, :func:`_numerics.rank_sum`)."""
    if is_numpy(values):
        return _numerics.rank_sum(values)
    return namespace(values).sum(values, axis=1)


def weighted_rank_sum(values: Any, weights: np.ndarray | None, divisors: np.ndarray | None = None) -> Any:
    """``sum_i values[:, i] * weights[i]`` (or ``/ divisors[i]``) per row; the tables are
    NumPy's (discounts, powers), moved to the device of ``values`` on another library."""
    if is_numpy(values):
        return _numerics.weighted_rank_sum(values, weights, divisors)
    xp, width = namespace(values), values.shape[1]
    if divisors is not None:
        return xp.sum(values / constant(divisors[:width], values), axis=1)
    if weights is None:
        return xp.sum(values, axis=1)
    return xp.sum(values * constant(weights[:width], values), axis=1)


def query_sum(values: Any) -> Any:
    """Sum over queries (axis 0), in query order on NumPy (:func:`_numerics.query_sum`)."""
    if is_numpy(values):
        return _numerics.query_sum(values)
    return namespace(values).sum(values, axis=0)


def rank_product(values: Any) -> Any:
    """Each row multiplied along the ranks, left to right (1.0 for a row of depth 0)."""
    if is_numpy(values):
        return _numerics.rank_product(values)
    return cumulative_product(values)[:, -1]


def prefix_sum(values: Any) -> Any:
    """Sums along the ranks with a leading 0 column: ``out[:, j]`` = the sum of the first j."""
    if is_numpy(values):
        out = np.zeros((values.shape[0], values.shape[1] + 1))
        np.cumsum(values, axis=1, out=out[:, 1:])
        return out
    return namespace(values).cumulative_sum(values, axis=1, include_initial=True)


def cumulative_product(values: Any) -> Any:
    """Products along the ranks with a leading 1 column (``cumulative_prod`` where the
    library has it, else through logarithms)."""
    if is_numpy(values):
        out = np.ones((values.shape[0], values.shape[1] + 1))
        np.cumprod(values, axis=1, out=out[:, 1:])
        return out
    xp = namespace(values)
    try:  # the standard's since 2024.12
        return xp.cumulative_prod(values, axis=1, include_initial=True)
    except (AttributeError, RuntimeError):  # a library (or a version of it) without it
        pass
    positive = values > 0
    logs = xp.where(positive, xp.log(xp.where(positive, values, xp.ones_like(values))), -xp.inf)
    return xp.exp(xp.cumulative_sum(logs, axis=1, include_initial=True))


def constant(table: Any, like: Any) -> Any:
    """A table of NumPy's (discounts, powers, levels) as an array of ``like``'s library,
    device and float dtype (copied: the cached tables are read-only)."""
    if is_numpy(like):
        return table
    return namespace(like).asarray(np.array(table, dtype=np.float64), dtype=like.dtype, device=device(like))


def columns(like: Any) -> Any:
    """The column numbers 0 .. depth - 1 of a matrix, as a (1, depth) integer row."""
    if is_numpy(like):
        return np.arange(like.shape[1])[None, :]
    xp = namespace(like)
    return xp.reshape(xp.arange(like.shape[1], device=device(like)), (1, -1))


def gather(matrix: Any, cols: Any) -> Any:
    """``matrix[q, cols[q, ...]]`` for every row q."""
    if is_numpy(matrix):
        return np.take_along_axis(matrix, cols, axis=1)
    xp = namespace(matrix)
    rows = xp.reshape(xp.arange(matrix.shape[0], dtype=cols.dtype, device=device(cols)),
                      (-1,) + (1,) * (cols.ndim - 1))
    flat = xp.reshape(rows * matrix.shape[1] + cols, (-1,))
    return xp.reshape(xp.take(xp.reshape(matrix, (-1,)), flat), cols.shape)


def run_bounds(starts_run: Any) -> tuple[Any, Any]:
    """``[start, end)`` columns of the run each cell of a row belongs to, from the flags
    that mark where a run starts (the first column of every row starts one)."""
    n, depth = starts_run.shape
    if is_numpy(starts_run):
        cols = np.arange(depth)
        start = np.maximum.accumulate(np.where(starts_run, cols, 0), axis=1)
        last = np.ones((n, depth), dtype=bool)  # the run ends after this column
        last[:, :-1] = starts_run[:, 1:]
        end = np.minimum.accumulate(np.where(last, cols + 1, depth)[:, ::-1], axis=1)[:, ::-1]
        return start, end
    xp = namespace(starts_run)
    where = device(starts_run)
    flat = xp.reshape(starts_run, (-1,))
    first = xp.nonzero(flat)[0]
    ids = xp.cumulative_sum(xp.astype(flat, first.dtype)) - 1
    last = xp.concat([first[1:], xp.asarray([n * depth], dtype=first.dtype, device=where)])
    offset = xp.reshape(xp.arange(n, dtype=first.dtype, device=where) * depth, (-1, 1))
    return (xp.reshape(xp.take(first, ids), (n, depth)) - offset,
            xp.reshape(xp.take(last, ids), (n, depth)) - offset)


def tie_bounds(ties: Any) -> tuple[Any, Any]:
    """``[start, end)`` columns of each rank's tie group, from ``Rankings.ties`` (runs of
    equal ids along a row)."""
    if is_numpy(ties):
        new = np.ones(ties.shape, dtype=bool)
        new[:, 1:] = ties[:, 1:] != ties[:, :-1]
    else:
        xp = namespace(ties)
        first = xp.ones((ties.shape[0], min(ties.shape[1], 1)), dtype=xp.bool, device=device(ties))
        new = xp.concat([first, ties[:, 1:] != ties[:, :-1]], axis=1)
    return run_bounds(new)


def group_mean(ties: Any, values: Any) -> Any:
    """Each rank's value replaced by the mean over its tie group (``ties`` from
    ``Rankings.ties``). NumPy: each group's values added in rank order; another library:
    differences of prefix sums along the row."""
    if is_numpy(values):
        ids = ties.ravel()
        sums = np.bincount(ids, weights=values.ravel()).astype(np.float64)  # int64 when empty
        sizes = np.bincount(ids)
        means = np.divide(sums, sizes, out=np.zeros_like(sums), where=sizes > 0)
        return means[ids].reshape(values.shape)
    xp = namespace(values)
    start, end = tie_bounds(ties)
    prefix = prefix_sum(values)
    size = xp.astype(end - start, values.dtype)
    mean = (gather(prefix, end) - gather(prefix, start)) / size
    return xp.where(size > 1, mean, values)


def exp2(x: Any) -> Any:
    """``2**x`` elementwise (NumPy: correctly rounded, :func:`_numerics.exp2`)."""
    if is_numpy(x):
        return _numerics.exp2(x)
    return 2.0 ** x


def rank_rows(labels: Any, scores: Any, valid: Any, *, ascending_labels: bool = False,
              groups: bool = False) -> tuple[Any, Any, Any]:
    """Each row's cells ranked by score, highest first: the labels and the scores at each
    rank, and (``groups``) the tie groups.

    ``valid`` marks each row's cells (the first ``length`` columns of the row; the padding
    after them is ignored and comes out 0). Equal scores are ordered by label, descending
    (``ascending_labels``: ascending), so the result does not depend on the order of the
    cells. ``groups``: the flat index (row * depth + column) of the first rank of each run
    of equal scores, the form of ``Rankings.ties``; None when no two scores of a row tie or
    ``groups`` is false.

    NumPy: each row sorted by score (many short sorts), then the labels of each run of
    equal scores sorted in place (whole labels as integer keys). Another library: two
    stable argsorts along the rows, by label and then by score, with the standard's
    operations only, on the input's device. The same ranking either way (cells of equal
    score and label are alike).
    """
    if is_numpy(scores):
        return _rank_rows_numpy(labels, scores, valid, ascending_labels, groups)
    xp = namespace(labels, scores)
    key = xp.where(valid, -scores, xp.inf)  # the padding ranks last
    by_label = xp.argsort(labels if ascending_labels else -labels, axis=1, stable=True)
    order = gather(by_label, xp.argsort(gather(key, by_label), axis=1, stable=True))
    ranked, score_matrix = xp.where(valid, gather(labels, order), 0.0), xp.where(valid, gather(scores, order), 0.0)
    tied = xp.concat([xp.zeros((valid.shape[0], min(valid.shape[1], 1)), dtype=xp.bool, device=device(valid)),
                      score_matrix[:, 1:] == score_matrix[:, :-1]], axis=1) & valid
    if not groups or not bool(xp.any(tied)):
        return ranked, score_matrix, None
    start = run_bounds(~tied)[0]
    offset = xp.reshape(xp.arange(valid.shape[0], dtype=start.dtype, device=device(valid)) * valid.shape[1], (-1, 1))
    return ranked, score_matrix, offset + start


def _rank_rows_numpy(labels: np.ndarray, scores: np.ndarray, valid: np.ndarray, ascending: bool,
                     groups: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """:func:`rank_rows` on NumPy: an argsort of each short row (equal scores need no
    stable sort: the labels order them next), the labels gathered, the scores sorted."""
    n, width = scores.shape
    padded = not bool(valid.all())
    negated = np.where(valid, np.negative(scores), np.inf) if padded else np.negative(scores)
    order = np.argsort(negated, axis=1)
    order += (np.arange(n, dtype=order.dtype) * width)[:, None]  # flat indices (a row may be empty)
    ranked = np.where(valid, labels, 0.0).ravel()[order] if padded else labels.ravel()[order]
    negated.sort(axis=1)
    score_matrix = np.negative(negated, out=negated)
    tied = np.zeros((n, width), dtype=bool)  # tied with the rank before it
    np.equal(score_matrix[:, 1:], score_matrix[:, :-1], out=tied[:, 1:])
    tied &= valid
    any_tied = bool(tied.any())
    if any_tied:  # the labels order each tied group
        ranked = _order_tied_labels(ranked, tied, ascending)
    if padded:
        score_matrix[~valid] = 0.0
    if not (groups and any_tied):
        return ranked, score_matrix, None
    ties = np.arange(n * width, dtype=np.int64).reshape(n, width)
    ties[tied] = 0
    np.maximum.accumulate(ties, axis=1, out=ties)  # the flat index of each group's first rank
    return ranked, score_matrix, ties


def _order_tied_labels(labels: np.ndarray, tied: np.ndarray, ascending: bool) -> np.ndarray:
    """The labels of each run of tied scores (``tied``: the score equals the one before)
    sorted, ascending or descending; the runs stay in place. Whole labels in [0, 2**20) are
    sorted as integer keys (run number, label), in place; any others by a lexsort."""
    top = float(labels.max())
    runs = np.cumsum(~tied, axis=1, dtype=np.int32)  # the run of each rank, 1 .. width
    levels = int(top) + 1
    if 0 <= top < 2**20 and (labels.shape[1] + 1) * levels < 2**31:
        key = labels.astype(np.int32)
        if bool(np.equal(key, labels).all()) and not np.signbit(labels).any():  # whole, no -0.0
            if not ascending:
                np.subtract(levels - 1, key, out=key)
            runs *= np.int32(levels)
            key += runs
            key.sort(axis=1)
            key %= np.int32(levels)
            if not ascending:
                np.subtract(levels - 1, key, out=key)
            labels[...] = key
            return labels
    order = np.lexsort((labels if ascending else -labels, runs), axis=1)
    return np.take_along_axis(labels, order, axis=1)
