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
italics and listed with title, author and address in :mod:`rankkit.sources`:
(*the guide to ranking metrics*).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.numerics import rank_sum
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


def _mean_error(y_true: Any, y_pred: Any, power: int) -> FloatOrArray:
    if isinstance(y_true, Rankings):  # predictions padded as the Rankings' labels
        rt, rp = as_rows(y_true, "y_true"), as_rows(y_pred, "y_pred")
        if rp.values.shape != rt.values.shape or rp.scalar != rt.scalar:
            raise ValueError(f"y_pred must have the shape of the Rankings' labels {rt.values.shape}, "
                             f"got {rp.values.shape}")
        rp = rp._replace(lengths=rt.lengths)
    else:
        rt, rp = as_pair(y_true, y_pred, "y_true", "y_pred")
    valid = np.arange(rt.values.shape[1]) < rt.lengths[:, None]
    error = np.abs(rt.values - rp.values)
    if power == 2:
        error = error * error
    total = rank_sum(np.where(valid, error, 0.0))  # in list order
    out = np.divide(total, rt.lengths, out=np.full(total.shape, np.nan), where=rt.lengths > 0)
    return rt.result(out)


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
        query with no document has no mean and gives ``nan``.

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
        query with no document gives ``nan``.

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
