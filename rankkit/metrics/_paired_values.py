"""Inputs of the metrics that compare two lists value by value (pairwise, unranked).

:func:`as_rows` takes a 1-D list (one list: metrics return a Python float), a 2-D array
(one list per row) or a ragged list of lists (each row used as is, nothing padded into
it) and gives a :class:`Rows`: the values as a zero-padded float64 matrix with each
row's length. Values may be any finite numbers (scores, predictions), unlike the labels
of :func:`rankkit.as_rankings`, which must be non-negative. :func:`as_pair` checks two
inputs have the same shape. Used by :mod:`rankkit.metrics.pairwise` and :mod:`rankkit.metrics.unranked`;
the error messages name the argument.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._validation import check_finite
from ..rankings import FloatOrArray, Rankings

__all__ = ["FloatOrArray", "Rows", "as_pair", "as_rows"]


class Rows(NamedTuple):
    """Values of one or several lists as a zero-padded matrix with each row's length."""

    values: np.ndarray  # float64 (n, L), padded with 0 beyond each row's length
    lengths: np.ndarray  # int64 (n,)
    scalar: bool  # a single 1-D list: return Python floats

    @property
    def shape(self) -> Any:
        """The input's shape as an error message shows it (ragged rows by their lengths)."""
        if self.scalar:
            return (int(self.lengths[0]),)
        if np.all(self.lengths == self.values.shape[1]):
            return self.values.shape
        return f"ragged rows of lengths {self.lengths.tolist()}"

    def result(self, values: np.ndarray) -> FloatOrArray:
        """A Python float for a single 1-D list, else the per-row array."""
        values = np.asarray(values, dtype=np.float64)
        return float(values[0]) if self.scalar else values


def _is_series(x: Any) -> bool:
    """Whether ``x`` is a pandas Series (without importing pandas: it is an extra)."""
    return type(x).__name__ == "Series" and (type(x).__module__ or "").startswith("pandas")


def as_rows(x: Any, name: str) -> Rows:
    """A 1-D list, a 2-D array or a (ragged) list of lists as padded rows; reject NaN/inf.

    A :class:`rankkit.Rankings` gives its labels and lengths. ``name`` is the argument's
    name in error messages.
    """
    if isinstance(x, Rankings):
        return Rows(x.labels.astype(np.float64), x.lengths.astype(np.int64), x.scalar)
    if isinstance(x, (list, tuple)) and any(
        isinstance(row, (list, tuple, np.ndarray)) or _is_series(row) for row in x
    ):
        try:
            rows = [np.asarray(row, dtype=np.float64) for row in x]
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must hold numbers, got {exc}") from None
        if any(row.ndim != 1 for row in rows):
            raise ValueError(f"{name} must be 1-D, 2-D or a list of 1-D lists")
        lengths = np.array([row.size for row in rows], dtype=np.int64)
        values = np.zeros((len(rows), int(lengths.max()) if len(rows) else 0))
        valid = np.arange(values.shape[1]) < lengths[:, None]
        if len(rows):
            values[valid] = np.concatenate(rows)
        check_finite(values, name)
        return Rows(values, lengths, False)
    try:
        values = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must hold numbers, got {type(x).__name__}: {exc}") from None
    scalar = values.ndim == 1
    if scalar:
        values = values[None, :]
    elif values.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D, got {values.ndim}-D")
    check_finite(values, name)
    lengths = np.full(values.shape[0], values.shape[1], dtype=np.int64)
    return Rows(values, lengths, scalar)


def as_pair(a: Any, b: Any, name_a: str, name_b: str) -> tuple[Rows, Rows]:
    """Two inputs of the same shape (the same row lengths)."""
    ra, rb = as_rows(a, name_a), as_rows(b, name_b)
    if ra.scalar != rb.scalar or ra.lengths.shape != rb.lengths.shape or np.any(ra.lengths != rb.lengths):
        raise ValueError(f"{name_a} and {name_b} must have the same shape, got {ra.shape} and {rb.shape}")
    width = int(ra.lengths.max()) if ra.lengths.size else 0  # a Rankings may be padded wider
    return ra._replace(values=ra.values[:, :width]), rb._replace(values=rb.values[:, :width])
