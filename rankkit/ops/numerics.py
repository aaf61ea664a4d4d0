"""The one order of floating-point operations behind every number rankkit reports.

A reported value must not depend on the CPU, the BLAS library, the numpy build or the
order of the input rows. Additions and multiplications of two doubles are exact-rounded
IEEE operations, the same everywhere; what differs between machines is everything that
combines many of them or approximates a function. So:

1. **Sums along ranks** (DCG, RBP, ERR, AP, CG, the expected values of tie groups, ...)
   run left to right in rank order, ``((x1 + x2) + x3) + ...`` (:func:`rank_sum`,
   :func:`weighted_rank_sum`). numpy's cumulative sum is that recurrence on every
   build; a matrix product (``@``, ``dot``, ``einsum``) is not: BLAS picks a kernel,
   and with it an order of summation, by CPU (one last digit of the ideal DCG of the
   lipstick example of the Chinese article "Ranking算法评估指标:NDCG" differs between
   OpenBLAS's Haswell and SkylakeX kernels), and ``np.sum`` sums in
   blocks. Products along ranks likewise run left to right (:func:`rank_product`).
2. **Sums over queries** (trec_eval's ``all`` line, means, the statistics of
   ``compare``) run in query order the same way (:func:`query_sum`, :func:`query_mean`),
   which is also how trec_eval adds its per-query values.
3. **Elementary functions** of ranks and labels (the log2 discount and its ``log_b``
   form, Järvelin and Kekäläinen's ``log_b`` discount, ``2**label``, the
   logarithms of the geometric mean) are computed with Python's :mod:`decimal` module,
   arithmetic defined digit for digit by its specification, at 40 digits, then rounded
   once to a double: the correctly rounded value in all but astronomically rare cases,
   and the same value on every machine. numpy's ``log2``/``exp2``/``power`` use SIMD
   code chosen by CPU (SVML on AVX-512) and the C library's versions are chosen by CPU
   too (FMA variants); they differ in the last bit from each other (``np.exp2`` and
   ``2.0**x`` disagree on about 1 in 1,000 inputs) and from the correctly rounded
   result. Values are computed once per rank (or distinct label) and cached. Powers
   ``p**i`` (RBP, ERR) are products, built as trec_eval builds them: multiplied by
   ``p`` once per rank (:func:`powers`), so that RBP prints what trec_eval prints even
   where its value sits on a rounding boundary (0.9**i has few decimals).
4. **Matrix products** appear only where they are exact (:func:`exact_matmul`, for the
   resampling tests of :mod:`rankkit.stats`): when every product and partial sum is an
   integer multiple of one unit below 2**53, no order of summation can round, so any
   BLAS kernel gives the exact result.

``tests/test_same_numbers.py`` checks every metric kernel bit for bit (``==``) against a
pure-Python implementation of this order.

References
----------
The docstrings reproduce numbers (never text) from articles cited by short names in
italics and listed with title, author and address in :mod:`rankkit.teaching.sources`:
(*the NDCG article*, whose lipstick
example's ideal DCG is quoted in 1. above).
"""

from __future__ import annotations

import math
import threading
from decimal import Context, Decimal

import numpy as np

__all__ = [
    "rank_sum", "weighted_rank_sum", "rank_product", "query_sum", "query_mean",
    "log2_ranks", "log_ranks", "log2", "ln", "discounts", "jk_discounts", "powers", "exp2", "exact_matmul",
]

_CONTEXT = Context(prec=40)
_LN2 = _CONTEXT.ln(Decimal(2))
_lock = threading.Lock()


# --------------------------------------------------------------------------- sums


_BLOCK = 1 << 17  # elements per block of queries: 1 MB, stays in the CPU cache


def rank_sum(values: np.ndarray) -> np.ndarray:
    """Sum each row left to right, in rank order: ``((x[:, 0] + x[:, 1]) + x[:, 2]) + ...``.

    Parameters
    ----------
    values : ndarray of shape (n_queries, depth)

    Returns
    -------
    ndarray of shape (n_queries,)
        0.0 for a row of depth 0.

    Examples
    --------
    >>> rank_sum(np.array([[0.1, 0.2, 0.3], [1e16, 1.0, -1e16]]))
    array([0.6, 0. ])
    """
    return weighted_rank_sum(values, None)


def weighted_rank_sum(values: np.ndarray, weights: np.ndarray | None, divisors: np.ndarray | None = None) -> np.ndarray:
    """``sum_i values[:, i] * weights[i]`` per row: each product rounded, then added in rank
    order as :func:`rank_sum` (not a matrix product, whose order depends on the CPU); with
    ``divisors``, ``values[:, i] / divisors[i]`` instead (trec_eval's ``gain / log2(i + 1)``:
    one rounding, where a product with a rounded ``1 / log2`` has two).

    Vectorized across queries, a block of queries at a time: the block is laid out rank by
    rank (one row of ``columns`` per rank) and ``np.add.reduce(columns, axis=0)`` adds the
    rows one after the other (numpy reduces over the slow axis of an array that way; only
    along the fast axis does it sum pairwise), which is the rank order for every query
    at once. A block of one query uses a cumulative sum, which is sequential by definition.

    Examples
    --------
    >>> weighted_rank_sum(np.array([[3.0, 2.0, 1.0]]), np.array([1.0, 0.5, 0.25]))
    array([4.25])
    """
    values = np.asarray(values, dtype=np.float64)
    n, depth = values.shape
    out = np.zeros(n)
    if n == 0 or depth == 0:
        return out
    rows = max(2, _BLOCK // depth)
    buffer = np.empty((depth, min(rows, n)))
    for start in range(0, n, rows):  # blocks of queries, not one query at a time
        block = values[start:start + rows]
        columns = buffer[:, : len(block)]
        if divisors is not None:
            np.divide(block.T, divisors[:depth, None], out=columns)
        elif weights is None:
            columns[...] = block.T
        else:
            np.multiply(block.T, weights[:depth, None], out=columns)
        if len(block) == 1:
            out[start] = np.cumsum(columns[:, 0])[-1]
        else:
            np.add.reduce(columns, axis=0, out=out[start:start + len(block)])
    return out


def rank_product(values: np.ndarray) -> np.ndarray:
    """Multiply each row left to right (1.0 for a row of depth 0)."""
    values = np.asarray(values, dtype=np.float64)
    if values.shape[1] == 0:
        return np.ones(values.shape[0])
    return np.cumprod(values, axis=1)[:, -1]


def query_sum(values: np.ndarray) -> np.ndarray:
    """Sum over queries (axis 0) in query order, as trec_eval adds its per-query values.

    ``values`` of shape (n_queries,) gives a 0-d array; of shape (n_queries, m), one sum
    per column. No queries sum to 0.0.

    Examples
    --------
    >>> float(query_sum(np.array([0.1, 0.2, 0.3])))
    0.6000000000000001
    """
    values = np.asarray(values, dtype=np.float64)
    if values.shape[0] == 0:
        return np.zeros(values.shape[1:])
    if values.ndim == 2:  # the same running sums along rows that are contiguous: ~6x faster
        rows = np.ascontiguousarray(values.T)
        # in place when that is a copy of ours (no second array as large as the input)
        return np.cumsum(rows, axis=1, out=None if np.shares_memory(rows, values) else rows)[:, -1].copy()
    return np.cumsum(values, axis=0)[-1]


def query_mean(values: np.ndarray) -> np.ndarray:
    """:func:`query_sum` divided by the number of queries (0.0 when there are none)."""
    values = np.asarray(values, dtype=np.float64)
    total = query_sum(values)
    return total / values.shape[0] if values.shape[0] else total


# --------------------------------------------------------------------------- functions


def _to_double(x: Decimal) -> float:
    return float(x)  # Decimal -> float is correctly rounded (via its exact string)


class _Table:
    """A read-only table ``f(0), f(1), ...`` that grows (doubling) when a longer one is asked for."""

    def __init__(self, term):
        self._term = term
        self._values = np.zeros(0)

    def __call__(self, n: int) -> np.ndarray:
        if n > len(self._values):
            with _lock:
                have = len(self._values)
                if n > have:
                    size = max(n, 2 * have, 16)
                    more = np.fromiter((self._term(i) for i in range(have, size)), np.float64, size - have)
                    values = np.concatenate([self._values, more])
                    values.flags.writeable = False
                    self._values = values
        return self._values[:n]


def _log2_rank(i: int) -> float:
    rank = i + 1
    return _to_double(_CONTEXT.divide(_CONTEXT.ln(Decimal(rank + 1)), _LN2))


_LOG2_RANKS = _Table(_log2_rank)


def log2_ranks(n: int) -> np.ndarray:
    """``log2(i + 1)`` for the ranks i = 1..n, correctly rounded (read-only).

    Examples
    --------
    >>> log2_ranks(4)
    array([1.        , 1.5849625 , 2.        , 2.32192809])
    """
    return _LOG2_RANKS(n)


def discounts(n: int) -> np.ndarray:
    """The DCG discount ``1 / log2(i + 1)`` of ranks i = 1..n: one IEEE division of 1.0 by
    :func:`log2_ranks`.

    Examples
    --------
    >>> discounts(3)
    array([1.        , 0.63092975, 0.5       ])
    """
    return 1.0 / log2_ranks(n)


_LOG_TABLES: dict[float, _Table] = {}


def log_ranks(n: int, base: float) -> np.ndarray:
    """``log_base(i + 1)`` for the ranks i = 1..n, correctly rounded (read-only): the divisors
    of the DCG discount ``1 / log_base(i + 1)`` (scikit-learn's ``log_base``).

    ``ln(i + 1) / ln(base)`` at 40 digits, rounded once to a double; ``base=2`` is
    :func:`log2_ranks` itself. ``base`` must be a finite number > 1 (checked by the caller).

    Examples
    --------
    >>> log_ranks(3, 10.0)
    array([0.30103   , 0.47712125, 0.60205999])
    >>> bool((log_ranks(5, 2.0) == log2_ranks(5)).all())
    True
    """
    base = float(base)
    if base == 2.0:
        return log2_ranks(n)
    table = _LOG_TABLES.get(base)
    if table is None:  # one table per base, filled on demand like the log2 table
        ln_base = _CONTEXT.ln(Decimal(base))
        table = _LOG_TABLES.setdefault(
            base, _Table(lambda i: _to_double(_CONTEXT.divide(_CONTEXT.ln(Decimal(i + 2)), ln_base))))
    return table(n)


def _jk_term(ln_base: Decimal, base: float):
    """Rank i + 1 -> 1 for ranks below ``base``, else 1 / log_base(rank)."""

    def term(i: int) -> float:
        rank = i + 1
        if rank < base:
            return 1.0
        return 1.0 / _to_double(_CONTEXT.divide(_CONTEXT.ln(Decimal(rank)), ln_base))

    return term


_JK_TABLES: dict[float, _Table] = {}


def jk_discounts(n: int, base: float) -> np.ndarray:
    """Järvelin & Kekäläinen's (2002) discount of ranks i = 1..n: 1 for i < ``base``,
    ``1 / log_base(i)`` from rank ``base`` on (read-only).

    ``log_base(i) = ln(i) / ln(base)`` is computed at 40 digits and rounded once to a
    double, then 1.0 is divided by it (one IEEE division), as :func:`discounts` does; so
    with ``base=2`` the weight of rank i >= 2 is bit for bit ``discounts`` at rank i - 1.
    ``base`` must be a finite number > 1 (checked by the caller).

    Examples
    --------
    >>> jk_discounts(4, 2.0)
    array([1.        , 1.        , 0.63092975, 0.5       ])
    >>> jk_discounts(4, 3.0)
    array([1.        , 1.        , 1.        , 0.79248125])
    """
    base = float(base)
    table = _JK_TABLES.get(base)
    if table is None:  # one table per base, filled on demand like the log2 table
        table = _JK_TABLES.setdefault(base, _Table(_jk_term(_CONTEXT.ln(Decimal(base)), base)))
    return table(n)


def _log2_scalar(x: float) -> float:
    return _to_double(_CONTEXT.divide(_CONTEXT.ln(Decimal(x)), _LN2))


def log2(x: np.ndarray) -> np.ndarray:
    """``log2(x)`` elementwise for positive ``x``, correctly rounded: from the rank table for
    whole numbers, else computed once per distinct value.

    Examples
    --------
    >>> log2(np.array([1.0, 2.0, 8.0, 0.5]))
    array([ 0.,  1.,  3., -1.])
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return np.zeros(x.shape)
    if not (x > 0).all():
        raise ValueError("log2 needs positive values")
    with np.errstate(invalid="ignore"):
        whole = x.astype(np.int64)
    if np.array_equal(whole, x) and whole.max() <= 1 << 20:
        table = np.concatenate([[0.0], log2_ranks(int(whole.max()) - 1)])  # table[m - 1] = log2(m)
        return table[whole - 1]
    values, inverse = np.unique(x, return_inverse=True)
    table = np.fromiter((_log2_scalar(float(v)) for v in values), np.float64, len(values))
    return table[inverse].reshape(x.shape)


def ln(x: np.ndarray) -> np.ndarray:
    """The natural logarithm elementwise for positive ``x``, correctly rounded (computed
    once per distinct value): numpy's ``log`` may differ in the last bit by CPU.

    Examples
    --------
    >>> ln(np.array([1.0, np.e]))
    array([0., 1.])
    """
    x = np.asarray(x, dtype=np.float64)
    if not (x > 0).all():
        raise ValueError("ln needs positive values")
    values, inverse = np.unique(x, return_inverse=True)
    table = np.fromiter((_to_double(_CONTEXT.ln(Decimal(float(v)))) for v in values), np.float64, len(values))
    return table[inverse].reshape(x.shape)


def powers(p: float, n: int) -> np.ndarray:
    """``p**i`` for i = 0..n-1, built as trec_eval builds them: 1.0, then multiplied by
    ``p`` once per rank, left to right (each product one IEEE rounding).

    Examples
    --------
    >>> powers(0.5, 4)
    array([1.   , 0.5  , 0.25 , 0.125])
    >>> bool(powers(0.9, 3)[2] == 0.9 * 0.9)
    True
    """
    factors = np.full(n, float(p))
    if n:
        factors[0] = 1.0
    return np.cumprod(factors)


def _exp2_scalar(x: float) -> float:
    if x == math.floor(x) and abs(x) < 1000:
        return math.ldexp(1.0, int(x))  # exact
    return _to_double(_CONTEXT.exp(_CONTEXT.multiply(Decimal(x), _LN2)))


def exp2(x: np.ndarray) -> np.ndarray:
    """``2**x`` elementwise, correctly rounded: exact (``ldexp``) for integers, else
    computed once per distinct value.

    Examples
    --------
    >>> exp2(np.array([[0.0, 3.0], [0.5, 3.0]]))
    array([[1.        , 8.        ],
           [1.41421356, 8.        ]])
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return np.ones(x.shape)
    with np.errstate(invalid="ignore"):  # huge labels do not fit: the slow path below
        whole = x.astype(np.int64)  # integer labels (the usual case): powers of two are exact
    if np.array_equal(whole, x):
        low, high = int(whole.min()), int(whole.max())
        if -1074 <= low and high < 1024:
            low = min(low, 0)
            table = np.ldexp(1.0, np.arange(low, high + 1))
            return table[whole - low] if low else table[whole]
    values, inverse = np.unique(x, return_inverse=True)
    table = np.fromiter((_exp2_scalar(float(v)) for v in values), np.float64, len(values))
    return table[inverse].reshape(x.shape)


# --------------------------------------------------------------------------- exact products


def exact_matmul(counts: np.ndarray, x: np.ndarray, row_sum: int | None = None) -> np.ndarray:
    """``counts @ x.T`` computed exactly, then rounded in one fixed order.

    ``counts`` (m, n) holds non-negative integers (resampling counts, sign-flip bits),
    ``x`` (k, n) any finite doubles; the result has shape (m, k). ``row_sum`` bounds the
    row sums of ``counts`` (computed when not given).

    Each row of ``x`` is split into slices whose entries are integer multiples of one
    unit with at most ``b`` significant bits, where ``b`` leaves room for the largest row
    sum of ``counts``: then every product and every partial sum of ``counts @ slice`` is
    an integer multiple of that unit below 2**53, so BLAS computes it exactly whatever
    kernel, blocking or order it uses (the splitting idea of Ozaki, Ogita, Oishi & Rump,
    "Error-free transformations of matrix multiplication", Numer. Algorithms 59, 2012).
    All slices go through one product (reading ``counts`` once); the exact slice results
    are then added from the largest slice to the smallest.
    """
    counts = np.asarray(counts, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    m, k = counts.shape[0], x.shape[0]
    if counts.size == 0 or x.size == 0:
        return np.zeros((m, k))
    if row_sum is None:
        row_sum = int(counts.sum(axis=1).max())  # integers: exact
    bits = 53 - max(1, math.ceil(math.log2(row_sum + 1)))
    if bits < 1:
        raise ValueError("exact_matmul: row sums of counts must stay below 2**52")
    scale = np.abs(x).max(axis=1)
    exponent = np.where(scale > 0, np.frexp(scale)[1], 0)  # |x| < 2**exponent, per row
    rest, slices = x.copy(), []
    while rest.any():
        unit_exp = (exponent - bits)[:, None]  # entries become multiples of 2**unit_exp
        part = np.ldexp(np.trunc(np.ldexp(rest, -unit_exp)), unit_exp)
        rest -= part  # exact: part holds the leading bits of rest
        slices.append(part)
        exponent = exponent - bits
    if not slices:
        return np.zeros((m, k))
    products = counts @ np.concatenate(slices).T  # exact, see above: (m, k * n_slices)
    out = products[:, :k].copy()
    for j in range(1, len(slices)):  # largest slice first; each addition one rounding
        out += products[:, j * k:(j + 1) * k]
    return out
