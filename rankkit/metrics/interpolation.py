"""Interpolated precision, shared by :mod:`rankkit.metrics.binary` (metrics) and :mod:`rankkit.plot` (figures).

Interpolated precision at recall level l is the highest precision at any recall >= l
(Manning, Raghavan & Schütze, *Introduction to Information Retrieval*, 2008, sec. 8.4;
trec_eval's ``iprec_at_recall``). Both modules need two pieces of it, which live here once:

- :func:`recall_cut`: the count of relevant documents at which a recall level is reached,
  under each convention of ``rankkit.metrics.binary.ROUNDINGS``;
- :func:`interpolate`: the running maximum from the right along each row (ranks in
  order); :func:`interpolate_points` applies it to (recall, precision) points given in
  any order.

These are kernels: they trust their input; the public functions validate it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["interpolate", "interpolate_points", "recall_cut"]


def recall_cut(level, n_rel, rounding: str) -> np.ndarray:
    """The count c of relevant documents at which recall ``level`` of ``n_rel`` is reached.

    ``"textbook"``: the smallest c with ``c / n_rel >= level``, tested with the same
    doubles a reader uses for the recall c / R of a ranking (so ``0.28 * 25`` being
    7.000000000000001 does not make it 8); ``"nearest"``: ``lround(level * n_rel)``
    (trec_eval 10); ``"plus_0.9"``: ``(long) (level * n_rel + 0.9)`` (trec_eval 9).
    Arrays broadcast; the counts are returned as whole float64 numbers (0 for
    ``n_rel == 0``).

    Examples
    --------
    >>> recall_cut(np.array([0.28, 0.4]), np.array([25, 3]), "textbook")
    array([7., 2.])
    >>> recall_cut(np.array([0.28, 0.4]), np.array([25, 3]), "nearest")
    array([7., 1.])
    """
    level = np.asarray(level, dtype=np.float64)
    n_rel = np.asarray(n_rel, dtype=np.float64)
    x = level * n_rel
    if rounding == "plus_0.9":
        return np.floor(x + 0.9)  # (long) (x + 0.9), trec_eval <= 9
    if rounding == "nearest":
        whole = np.floor(x)
        return whole + (x - whole >= 0.5)  # lround(x), trec_eval 10
    count = np.ceil(x)
    # fl(level * R) is within half an ulp of the product, so its ceiling is off by at most
    # one from the smallest count passing the reader's test fl(c / R) >= level
    with np.errstate(divide="ignore", invalid="ignore"):
        count = np.where((count - 1) / n_rel >= level, count - 1, count)
        count = np.where(count / n_rel < level, count + 1, count)
    return count


def interpolate(prec: np.ndarray) -> np.ndarray:
    """Int_Prec(rank X) = max Prec(rank Y) for all Y >= X, along each row (trec_eval).

    Examples
    --------
    >>> interpolate(np.array([[1.0, 0.5, 2 / 3, 0.5]])).round(4)
    array([[1.    , 0.6667, 0.6667, 0.5   ]])
    """
    return np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]


def interpolate_points(recall: np.ndarray, precision: np.ndarray) -> np.ndarray:
    """Interpolated precision at each point: the max precision at this recall or higher.

    The points may come in any order (e.g. sklearn's decreasing recall); points at the
    same recall share the maximum over that whole recall group.

    Examples
    --------
    >>> interpolate_points(np.array([1.0, 0.5, 0.5, 0.0]), np.array([0.5, 2 / 3, 1.0, 0.8]))
    array([0.5, 1. , 1. , 1. ])
    """
    order = np.argsort(recall, kind="stable")
    sorted_recall = recall[order]
    suffix_max = interpolate(precision[order][None, :])[0]
    first_of_group = np.searchsorted(sorted_recall, sorted_recall, side="left")
    interp = np.empty_like(precision)
    interp[order] = suffix_max[first_of_group]
    return interp
