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

from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_rel
from ..ops.numerics import query_sum, rank_sum
from ..rankings import FloatOrArray, Rankings

if TYPE_CHECKING:  # ._paired_values imports pandas: on first use, so the registry does not load it
    from ._paired_values import Rows

__all__ = ["lrap", "lrap_score"]


def _lrap_rows(rl: Rows, rs: Rows, rel: float) -> np.ndarray:
    """LRAP of every row at once: rows sorted by score, each relevant label's share of
    relevant labels among those scored >= it (the end of its run of equal scores)."""
    n, width = rl.values.shape
    valid = np.arange(width) < rl.lengths[:, None]
    order = np.argsort(np.where(valid, -rs.values, np.inf), axis=1, kind="stable")  # padding last
    scores = np.take_along_axis(rs.values, order, axis=1)
    relevant = np.take_along_axis((rl.values >= rel) & valid, order, axis=1)
    # the last position of each run of equal scores: where the next score differs (or the row ends)
    last = np.ones((n, width), dtype=bool)
    last[:, :-1] = scores[:, 1:] != scores[:, :-1]
    last |= np.arange(width) == (rl.lengths - 1)[:, None]
    cols = np.broadcast_to(np.arange(width), (n, width))
    end = np.minimum.accumulate(np.where(last, cols, width - 1)[:, ::-1], axis=1)[:, ::-1]
    above = np.cumsum(relevant, axis=1)
    share = above[np.arange(n)[:, None], end] / (end + 1.0)
    n_rel = relevant.sum(axis=1)
    total = rank_sum(np.where(relevant, share, 0.0))
    mean = np.divide(total, n_rel, out=np.ones(n), where=n_rel > 0)
    return np.where((n_rel == 0) | (n_rel == rl.lengths), 1.0, mean)


def _labels_and_scores(labels: Any, scores: Any) -> tuple[Rows, Rows]:
    """Labels and scores as rows of one shape; ``scores=None`` scores labels in rank order
    by minus their rank, the ranks of a tie group (``Rankings.ties``) all the group's first."""
    from ._paired_values import as_pair, as_rows

    if scores is not None:
        return as_pair(labels, scores, "labels", "scores")
    rl = as_rows(labels, "labels")
    width = int(rl.lengths.max()) if rl.lengths.size else 0
    position = np.broadcast_to(np.arange(width, dtype=np.float64), (rl.values.shape[0], width))
    if isinstance(labels, Rankings) and labels.ties is not None:
        ties = labels.ties[:, :width]
        new = np.ones(ties.shape, dtype=bool)
        new[:, 1:] = ties[:, 1:] != ties[:, :-1]
        position = np.maximum.accumulate(np.where(new, position, 0.0), axis=1)
    return rl._replace(values=rl.values[:, :width]), rl._replace(values=-position)


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
        In (0, 1]. Ragged rows (a list of lists) are each scored on their own labels.

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
    rel = check_rel(rel)
    rl, rs = _labels_and_scores(labels, scores)
    return rl.result(_lrap_rows(rl, rs, rel))


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
    rel = check_rel(rel)
    rl, rs = _labels_and_scores(labels, scores)
    values = _lrap_rows(rl, rs, rel)
    if sample_weight is None:
        weights = np.ones(values.shape)
    else:
        from ._paired_values import as_rows

        weights = as_rows(sample_weight, "sample_weight")
        if not weights.scalar or weights.values.shape[1] != values.size:
            raise ValueError(f"sample_weight must have one value per row ({values.size}), got shape {weights.shape}")
        weights = weights.values[0]
        if np.any(weights < 0) or not weights.sum() > 0:
            raise ValueError("sample_weight must be non-negative and not all 0")
    return float(query_sum(values * weights) / query_sum(weights))
