"""DCG's two parts as figures: the gain of a relevance label and the discount of a rank."""

from __future__ import annotations

import numbers

import numpy as np
from matplotlib.ticker import MaxNLocator

from ..ops.numerics import discounts, exp2, log2
from .style import axes_pair_or_new, series_kwargs

__all__ = ["gain_discount", "STANDARD_DISCOUNT", "jk_discount_label"]

#: The label of the standard DCG discount in :func:`gain_discount` (name it so in a metric@k
#: frame, and the two figures give it the same colour, marker and line style).
STANDARD_DISCOUNT = "standard 1/log2(i+1)"


def jk_discount_label(base: float) -> str:
    """The label of Järvelin & Kekäläinen's discount of log base b in :func:`gain_discount`.

    >>> jk_discount_label(2), jk_discount_label(10.0)
    ('JK, b = 2', 'JK, b = 10')
    """
    return f"JK, b = {float(base):g}"


def gain_discount(*, max_grade: int = 5, depth: int = 10, bases=(2,), ax=None):
    """The gain and discount functions of DCG, side by side, as V. Efimov's guide plots them.

    Left: the gain of a relevance label rel, linear ``g(rel) = rel`` (Järvelin &
    Kekäläinen, "Cumulated gain-based evaluation of IR techniques", ACM TOIS 2002;
    trec_eval) and exponential ``g(rel) = 2**rel - 1`` (Burges et al. 2005), which doubles
    per grade. Right: the discount of rank i, ``1 / log2(i + 1)`` (rankkit's DCG, trec_eval)
    and Järvelin & Kekäläinen's original ``1 / log_b(i)`` with no discount before rank b
    (1 for i < b).

    Parameters
    ----------
    max_grade : int, default=5
        Grades 0..max_grade on the left panel.
    depth : int, default=10
        Ranks 1..depth on the right panel.
    bases : iterable of float > 1, default=(2,)
        The log bases b of the Järvelin-Kekäläinen discounts drawn.
    ax : pair of matplotlib Axes, optional
        Where to draw; a new 1 x 2 figure when None.

    Returns
    -------
    matplotlib.figure.Figure
        ``fig.axes[0].lines``: ``"linear: g(rel) = rel"`` and ``"exponential: g(rel) = 2^rel − 1"``
        as (grade, gain); ``fig.axes[1].lines``: :data:`STANDARD_DISCOUNT`
        (``"standard 1/log2(i+1)"``) then ``"JK, b = 2"``, ... (:func:`jk_discount_label`)
        per base, as (rank, discount). Each panel's lines are styled by
        :func:`system_styles` of their labels, so :func:`metric_at_k` of a frame whose
        columns are these discount labels draws each discount in the same colour, marker
        and line style.

    Examples
    --------
    >>> fig = gain_discount(max_grade=3, depth=4)
    >>> fig.axes[0].lines[1].get_ydata().tolist()
    [0.0, 1.0, 3.0, 7.0]
    >>> fig.axes[1].lines[0].get_ydata().round(4).tolist(), fig.axes[1].lines[1].get_ydata().round(4).tolist()
    ([1.0, 0.6309, 0.5, 0.4307], [1.0, 1.0, 0.6309, 0.5])
    >>> [line.get_label() for line in gain_discount(bases=(2, 10)).axes[1].lines]
    ['standard 1/log2(i+1)', 'JK, b = 2', 'JK, b = 10']
    """
    if isinstance(max_grade, (bool, np.bool_)) or not isinstance(max_grade, numbers.Integral) or max_grade < 1:
        raise ValueError(f"max_grade must be a positive integer, got {max_grade!r}")
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, numbers.Integral) or depth < 1:
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    try:
        bases_arr = np.asarray(list(bases), dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"bases must be numbers > 1, got {bases!r}") from None
    if bases_arr.ndim != 1 or not np.all(np.isfinite(bases_arr) & (bases_arr > 1)):
        raise ValueError(f"bases must be numbers > 1, got {bases!r}")

    grades = np.arange(int(max_grade) + 1, dtype=np.float64)
    fig, (left, right) = axes_pair_or_new(ax)
    gains = {"linear: g(rel) = rel": grades, "exponential: g(rel) = 2^rel − 1": exp2(grades) - 1.0}
    _draw_panel(left, grades, gains, "relevance label rel", "gain g(rel)", "Gain of a relevance label")
    ranks = np.arange(1, int(depth) + 1, dtype=np.float64)
    _draw_panel(right, ranks, _discount_curves(int(depth), bases_arr), "rank i", "discount",
                "Discount of a rank (JK: 1 / log_b(i) from rank b on, 1 before)")
    right.set_ylim(0.0, 1.05)
    return fig


def _discount_curves(depth: int, bases: np.ndarray) -> dict[str, np.ndarray]:
    """label -> discount at ranks 1..depth: the standard one, then Järvelin-Kekäläinen's per base."""
    ranks = np.arange(1, depth + 1, dtype=np.float64)
    curves = {STANDARD_DISCOUNT: discounts(depth)}
    for b in bases:
        log_b = log2(ranks) / log2(np.array([b]))[0]
        curves[jk_discount_label(b)] = np.where(ranks < b, 1.0, 1.0 / np.where(ranks < b, 1.0, log_b))
    return curves


def _draw_panel(ax, x: np.ndarray, curves: dict, xlabel: str, ylabel: str, title: str) -> None:
    """One line per curve (label -> y at x), styled by :func:`system_styles` of the labels."""
    styles = series_kwargs({name: x.size for name in curves})
    for name, y in curves.items():
        ax.plot(x, y, label=name, **styles[name])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend()
