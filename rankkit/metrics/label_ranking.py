"""Label ranking: each row is one sample whose labels a model scores, as in multi-label
classification; the question is whether the sample's true labels get the top scores.

:func:`lrap` is label-ranking average precision (scikit-learn's
``label_ranking_average_precision_score``, ``sklearn/metrics/_ranking.py``): for each
relevant label j of a row, the fraction of the labels scored at least as high as j that are
relevant, averaged over the row's relevant labels. With distinct scores it is average
precision with every relevant label retrieved (``average_precision(normalize="retrieved")``
of the row in score order); equal scores count against each other, as the worst order of a
tie would. :func:`lrap_score` is scikit-learn's single number, the (weighted) mean over rows.

References
----------
G. Tsoumakas, I. Katakis and I. Vlahavas, "Mining Multi-label Data", in *Data Mining and
Knowledge Discovery Handbook*, Springer, 2010, pp. 667-685,
https://doi.org/10.1007/978-0-387-09823-4_34 (label ranking average precision, as the
scikit-learn user guide cites it).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._validation import check_rel
from ..ops.primitives import (
    as_float,
    columns,
    constant,
    count,
    gather,
    is_numpy,
    namespace,
    prefix_sum,
    rank_sum,
    ratio,
    run_bounds,
    tie_bounds,
)
from ..rankings import FloatOrArray, Rankings
from .unranked import _is_library_array, _library_pair

__all__ = ["lrap", "lrap_score"]


def _lrap_kernel(labels: Any, lengths: Any, ties: Any, rel: float) -> Any:
    """LRAP of every row of labels in rank order, on any array library: each relevant
    label's share of relevant labels among the ranks up to the end of its tie group (runs
    of equal ids of ``ties``, cut at the row's length; None: every rank its own group),
    summed in rank order over the relevant labels and divided by their number; 1.0 for a
    row without a relevant or without a non-relevant label."""
    xp = namespace(labels)
    cols = columns(labels)
    relevant = (labels >= rel) & (cols < lengths[:, None])
    if ties is None:
        end = xp.broadcast_to(cols + 1, labels.shape)
    else:
        end = xp.minimum(tie_bounds(ties)[1], lengths[:, None])
    share = ratio(gather(prefix_sum(as_float(relevant, labels)), end), end)  # end is 0 in empty rows only
    n_rel = count(relevant)
    mean = ratio(rank_sum(xp.where(relevant, share, xp.zeros_like(share))), n_rel)
    return xp.where((n_rel == 0) | (n_rel == lengths), xp.ones_like(mean), mean)


def _by_score(labels: Any, scores: Any, lengths: Any) -> tuple[Any, Any, Any]:
    """Each row's labels sorted by score, highest first (stable; the padding last), the
    rows' lengths, and the tie ids of the sorted rows as ``Rankings.ties`` holds them:
    ``row * width + the first column of its run of equal scores``."""
    xp = namespace(labels, scores)
    width = scores.shape[1]
    cols = columns(scores)
    key = xp.where(cols < lengths[:, None], -scores, xp.full_like(scores, xp.inf))
    order = xp.argsort(key, axis=1, stable=True)
    ranked = gather(scores, order)
    first = xp.ones_like(scores[:, :1], dtype=xp.bool)  # a run starts each row
    start = run_bounds(xp.concat([first, ranked[:, 1:] != ranked[:, :-1]], axis=1))[0]
    rows = xp.reshape(columns(xp.matrix_transpose(scores)), (-1, 1))  # 0 .. n - 1, a column
    return gather(labels, order), lengths, rows * width + start


class _Library(NamedTuple):
    """How LRAP of arrays of another library is returned: a 0-d array for one 1-D list."""

    scalar: bool

    def result(self, values: Any) -> Any:
        return values[0] if self.scalar else values


def _lrap_values(labels: Any, scores: Any, rel: float) -> tuple[Any, Any]:
    """LRAP per row through :func:`_lrap_kernel`, and the object whose ``result`` formats
    it: a Rankings (of any array library) as it stands, with explicit scores each row ranked
    by :func:`_by_score` first, bare labels in rank order with no tie groups."""
    if isinstance(labels, Rankings) and scores is None:
        return _lrap_kernel(labels.labels, labels.lengths, labels.ties, rel), labels
    if scores is not None and _is_library_array(labels) and _is_library_array(scores):
        values, by, lengths, scalar = _library_pair(labels, scores, "labels", "scores")
        return _lrap_kernel(*_by_score(values, by, lengths), rel), _Library(scalar)
    from ._paired_values import as_pair, as_rows

    if scores is None:
        rl = as_rows(labels, "labels")
        return _lrap_kernel(rl.values, rl.lengths, None, rel), rl
    rl, rs = as_pair(labels, scores, "labels", "scores")
    return _lrap_kernel(*_by_score(rl.values, rs.values, rl.lengths), rel), rl


def lrap(labels: Any, scores: Any = None, *, rel: float = 1) -> FloatOrArray:
    """Label-ranking average precision of each row.

    ``LRAP = (1 / |Y|) sum_{j in Y} |{k in Y : s_k >= s_j}| / |{k : s_k >= s_j}|``, Y the
    row's relevant labels (``label >= rel``) and s its scores: scikit-learn's
    ``label_ranking_average_precision_score`` row by row. A row with no relevant label,
    or with every label relevant, scores 1.0, as scikit-learn scores it.

    Parameters
    ----------
    labels : array-like of shape (L,) or (n_rows, L), list of lists, or Rankings
        Each row's labels (0/1 indicators, or grades with ``rel``); in rank order when
        ``scores`` is None.
    scores : array-like, same shape as ``labels``, or None, default=None
        The model's scores, higher meaning more relevant (any finite numbers). None: the
        labels are in rank order, the first highest, and the tie groups of a
        :class:`~rankkit.Rankings` (``ties="average"``) count as equal scores; a row is
        then the retrieved documents. With tie groups LRAP is
        ``average_precision(tied="group_end")`` but for its 1.0 on rows without a
        relevant or a non-relevant label.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_rows,)
        In (0, 1]. Ragged rows (a list of lists) are each scored on their own labels. A
        Rankings of another array library (array-api-strict, JAX, PyTorch), or labels and
        scores both arrays of one, give an array of that library, on its device and in
        its float dtype (0-d for one 1-D list).

    Notes
    -----
    One kernel scores every input: labels in rank order with tie groups, each relevant
    label's share ``through(end) / end`` of relevant labels among the ``end`` ranks up to
    the end of its tie group, summed in rank order. Explicit scores are first ranked (each
    row sorted by score, highest first; a run of equal scores is a tie group).

    See Also
    --------
    lrap_score : the (weighted) mean over rows, scikit-learn's number.

    Examples
    --------
    scikit-learn's example: the relevant label of row 1 is ranked 2nd (1/2), that of row 2
    3rd (1/3); the mean is 5/12.

    >>> lrap([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]]).round(4)
    array([0.5   , 0.3333])
    >>> lrap([1, 0, 1], [0.5, 0.5, 0.5])   # all tied: each relevant label shares its place
    0.6666666666666666
    >>> lrap([0, 0, 0], [0.1, 0.2, 0.3])
    1.0
    >>> lrap([[0, 1, 1, 0]])   # in rank order: (1/2 + 2/3) / 2
    array([0.58333333])
    """
    values, rows = _lrap_values(labels, scores, check_rel(rel))
    return rows.result(values)


def lrap_score(labels: Any, scores: Any = None, *, rel: float = 1, sample_weight: Any = None) -> float:
    """The mean LRAP over rows, weighted by ``sample_weight``: scikit-learn's
    ``label_ranking_average_precision_score(labels, scores, sample_weight=...)``.

    Parameters
    ----------
    labels, scores, rel
        As in :func:`lrap` (``scores=None``: labels in rank order).
    sample_weight : array-like of shape (n_rows,) or None, default=None
        A non-negative weight per row, not all 0; None weighs every row alike.

    Returns
    -------
    float
        sum_i w_i LRAP_i / sum_i w_i, added in row order.

    Examples
    --------
    >>> lrap_score([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    0.41666666666666663
    >>> lrap_score([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]], sample_weight=[1, 0])
    0.5
    """
    values = _lrap_values(labels, scores, check_rel(rel))[0]
    xp = namespace(values)
    if sample_weight is None:
        weights = xp.ones_like(values)
    else:
        from ._paired_values import as_rows

        weights = as_rows(sample_weight, "sample_weight")
        n = values.shape[0]
        if not weights.scalar or weights.values.shape[1] != n:
            raise ValueError(f"sample_weight must have one value per row ({n}), got shape {weights.shape}")
        weights = weights.values[0]
        if np.any(weights < 0) or not weights.sum() > 0:
            raise ValueError("sample_weight must be non-negative and not all 0")
        weights = constant(weights, values)  # on the library and device of the values
    # sums over the rows in row order (NumPy: left to right, as query_sum adds)
    mean = rank_sum(xp.reshape(values * weights, (1, -1))) / rank_sum(xp.reshape(weights, (1, -1)))
    return float(mean[0]) if is_numpy(mean) else mean[0]
