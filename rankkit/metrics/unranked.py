"""Unranked (regression) metrics: errors of predicted relevance, blind to the order.

The guide to ranking metrics (see References) starts from them to show why ranking needs
its own metrics: mean squared error weighs every document alike, so a prediction with a
*lower* error can still put an irrelevant document first (see the example of :func:`mse`).

Inputs are read as in :mod:`rankkit.metrics.pairwise` (``rankkit.metrics._paired_values``): a
1-D list gives a Python float, a 2-D array one value per row, a list of lists may be ragged;
NaN/inf and mismatched shapes raise ``ValueError``.

References
----------
The docstrings reproduce numbers (never text) from articles cited by short names in
italics and listed with title, author and address in :mod:`rankkit.teaching.sources`:
(*the guide to ranking metrics*).
"""

from __future__ import annotations

from typing import Any

from ..ops.primitives import columns, constant, count, is_numpy, namespace, rank_sum, ratio
from ..rankings import FloatOrArray, Rankings

__all__ = ["mse", "mae"]


# The readers of inputs import pandas: imported on first use, so that importing this module
# (the registry does, for the command line too) loads neither.
def as_rows(x: Any, name: str):
    """:func:`rankkit.metrics._paired_values.as_rows`."""
    from ._paired_values import as_rows as read

    return read(x, name)


def as_pair(a: Any, b: Any, name_a: str, name_b: str):
    """:func:`rankkit.metrics._paired_values.as_pair`."""
    from ._paired_values import as_pair as read

    return read(a, b, name_a, name_b)


def _mean_error_kernel(truth: Any, pred: Any, lengths: Any, power: int) -> Any:
    """``(1/n) sum_i |truth_i - pred_i|**power`` over the first ``lengths`` entries of each
    row (the rest is padding), added in list order; ``nan`` for a row of length 0. Any
    array library; the values stay in its float dtype and on its device."""
    xp = namespace(truth, pred)
    error = xp.abs(truth - pred)
    if power == 2:
        error = error * error
    total = rank_sum(xp.where(columns(error) < lengths[:, None], error, xp.zeros_like(error)))
    return xp.where(lengths > 0, ratio(total, lengths), xp.full_like(total, xp.nan))


def _library_rows(x: Any, name: str) -> tuple[Any, bool]:
    """An array of another array library (not NumPy) as rows of one row per list, in a
    float dtype (the library's default for integers), and whether it was one 1-D list."""
    xp = namespace(x)
    if x.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D or 2-D, got {x.ndim}-D")
    if not xp.isdtype(x.dtype, "real floating"):
        from array_api_compat import device

        floating = xp.__array_namespace_info__().default_dtypes(device=device(x))["real floating"]
        x = xp.astype(x, floating)
    finite = xp.isfinite(x)
    if not bool(xp.all(finite)):
        raise ValueError(f"{name} must be finite, got {float(x[~finite][0])!r}")
    return (xp.reshape(x, (1, -1)) if x.ndim == 1 else x), x.ndim == 1


def _is_library_array(x: Any) -> bool:
    """An array of an array-API library other than NumPy (JAX, PyTorch, array-api-strict)."""
    from array_api_compat import is_array_api_obj

    return not is_numpy(x) and is_array_api_obj(x)


def _predictions(r: Rankings, y_pred: Any) -> Any:
    """``y_pred`` as a matrix of the Rankings' labels' shape (its padding ignored)."""
    if _is_library_array(y_pred):
        pred, scalar = _library_rows(y_pred, "y_pred")
        shape = tuple(pred.shape)
    else:
        rp = as_rows(y_pred, "y_pred")  # NumPy's: moved to the Rankings' library and device
        pred, scalar, shape = constant(rp.values, r.labels), rp.scalar, rp.values.shape
    if shape != tuple(r.labels.shape) or scalar != r.scalar:
        raise ValueError(f"y_pred must have the shape of the Rankings' labels {tuple(r.labels.shape)}, "
                         f"got {shape}")
    return pred


def _library_pair(a: Any, b: Any, name_a: str, name_b: str) -> tuple[Any, Any, Any, bool]:
    """Two arrays of another library as rows of one shape, their lengths (every row full)
    and whether they were 1-D (one list; flat rows give the pooled value)."""
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"{name_a} and {name_b} must have the same shape, got {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    (rows_a, scalar), (rows_b, _) = _library_rows(a, name_a), _library_rows(b, name_b)
    xp = namespace(rows_a)
    return rows_a, rows_b, count(xp.ones_like(rows_a, dtype=xp.bool)), scalar


def _mean_error(y_true: Any, y_pred: Any, power: int) -> FloatOrArray:
    """The error of :func:`mse` (power 2) or :func:`mae` (power 1), read from any input."""
    if isinstance(y_true, Rankings):  # predictions padded as the Rankings' labels
        pred = _predictions(y_true, y_pred)
        return y_true.result(_mean_error_kernel(y_true.labels, pred, y_true.lengths, power))
    if _is_library_array(y_true) and _is_library_array(y_pred):
        truth, pred, lengths, scalar = _library_pair(y_true, y_pred, "y_true", "y_pred")
        out = _mean_error_kernel(truth, pred, lengths, power)
        return out[0] if scalar else out
    rt, rp = as_pair(y_true, y_pred, "y_true", "y_pred")
    return rt.result(_mean_error_kernel(rt.values, rp.values, rt.lengths, power))


def mse(y_true: Any, y_pred: Any) -> FloatOrArray:
    """Mean squared error between true and predicted relevance, per query.

    MSE = (1/n) sum_i (y_i - yhat_i)^2 over the n documents of a query.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n_queries, n), list of lists, or Rankings
        True relevance (any finite numbers); rows may be ragged. A Rankings gives its
        labels and lengths.
    y_pred : array-like, same shape as ``y_true``
        Predicted relevance (for a Rankings: a matrix of the shape of its labels, the
        padding ignored).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        Equal to ``sklearn.metrics.mean_squared_error(y_true, y_pred)`` for one list; a
        query with no document has no mean and gives ``nan``. Arrays of another array
        library (array-api-strict, JAX, PyTorch; both inputs, or a Rankings of that library
        and its predictions) give arrays of that library, on its device and in its float
        dtype (a 0-d array for 1-D inputs: the pooled value of flat rows).

    Notes
    -----
    The guide to ranking metrics (section "未排序的度量标准"): MSE treats all documents
    alike, so it is a poor ranking metric -- in the example below the prediction with the
    lower MSE ranks an irrelevant document first.

    Examples
    --------
    Document 0 is the only relevant one. ``p1`` ranks it first, ``p2`` second, yet ``p2``
    has the lower error:

    >>> y = [1, 0, 0, 0, 0]
    >>> p1, p2 = [0.6, 0.5, 0.5, 0.5, 0.5], [0.3, 0.4, 0.0, 0.0, 0.0]
    >>> round(mse(y, p1), 4), round(mse(y, p2), 4)
    (0.232, 0.13)
    >>> mse([[1, 0], [2, 2]], [[0, 0], [1, 3]])
    array([0.5, 1. ])
    """
    return _mean_error(y_true, y_pred, 2)


def mae(y_true: Any, y_pred: Any) -> FloatOrArray:
    """Mean absolute error between true and predicted relevance, per query.

    ``MAE = (1/n) sum_i |y_i - yhat_i|`` over the n documents of a query.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n_queries, n), list of lists, or Rankings
        True relevance (any finite numbers); rows may be ragged (a Rankings: as :func:`mse`).
    y_pred : array-like, same shape as ``y_true``
        Predicted relevance.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        Equal to ``sklearn.metrics.mean_absolute_error(y_true, y_pred)`` for one list; a
        query with no document gives ``nan``. Another array library: as :func:`mse`.

    Notes
    -----
    The guide to ranking metrics lists MAE with (R)MSE among the unranked metrics: like
    MSE it ignores the order, as the example shows (the same lower error for the worse
    ranking).

    Examples
    --------
    >>> y = [1, 0, 0, 0, 0]
    >>> round(mae(y, [0.6, 0.5, 0.5, 0.5, 0.5]), 4), round(mae(y, [0.3, 0.4, 0.0, 0.0, 0.0]), 4)
    (0.48, 0.22)
    >>> mae([[1, 0], [2, 2, 5]], [[0, 0], [1, 3, 5]])
    array([0.5       , 0.66666667])
    """
    return _mean_error(y_true, y_pred, 1)
