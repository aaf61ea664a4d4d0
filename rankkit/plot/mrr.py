"""The MRR top-k curve (MRR = H_k / k when the single answer is uniform in the top k) and its
inverse view: the cutoff k a system needs to reach a target MRR.

The curve and the inverse view follow Jason's AP/MRR notes ("The Dance of Disorder
(Fluctuations of Entropy)", PIXNET blog, after Simone Teufel's NLIP lecture 7).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.ticker import LogLocator, MaxNLocator, StrMethodFormatter

from .._validation import check_finite, check_probability
from .style import REFERENCE, REFERENCE_LIGHT, axes_or_new, axes_pair_or_new, series_kwargs

__all__ = ["mrr_top_k", "uniform_mrr", "uniform_k_for_mrr", "smallest_k_for_mrr"]

#: An MRR within this of the target reaches it (H_k / k is a rounded sum).
_MRR_SLACK = 1e-12

#: With ``logx=None`` a panel whose largest k exceeds this has a logarithmic k axis.
_LOG_K_BEYOND = 20

#: The target line of :func:`mrr_top_k`: dark grey, dashed, no marker (the systems' curves
#: have markers and Okabe–Ito colours; the uniform curve is a thick light grey).
_TARGET_LINE = {"color": REFERENCE, "linestyle": (0, (6, 3)), "linewidth": 1.3}

#: Where a label may sit, tried in order: (offset in points, ha, va). Next to its point the
#: label clears a falling curve above-right or below-left.
_LABEL_SPOTS = (
    ((7, 7), "left", "bottom"), ((-7, -7), "right", "top"), ((7, -7), "left", "top"),
    ((-7, 7), "right", "bottom"), ((12, 22), "left", "bottom"), ((-12, -22), "right", "top"),
    ((12, -22), "left", "top"), ((-12, 22), "right", "bottom"),
)

#: A label keeps this many pixels clear of lines, markers and other labels.
_LABEL_CLEARANCE = 3

#: The marker area (points²) of the first system's ring at its smallest k, and how much
#: smaller each of the next three systems' rings is (later ones as the fourth).
_RING_AREA, _RING_STEP, _RINGS_SHRINKING = 170, 35, 3


def _check_ks(ks, name: str = "ks") -> np.ndarray:
    """A non-empty 1-D int64 array of positive integers (integral floats accepted, bools not)."""
    try:
        arr = np.asarray(list(ks))
    except TypeError:
        raise ValueError(f"{name} must be a non-empty sequence of positive integers, got {ks!r}") from None
    integral = np.issubdtype(arr.dtype, np.integer) or (
        np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))
    )
    if arr.ndim != 1 or arr.size == 0 or arr.dtype == bool or not integral:
        raise ValueError(f"{name} must be a non-empty sequence of positive integers, got {ks!r}")
    arr = arr.astype(np.int64)
    if arr.min() < 1:
        raise ValueError(f"{name} must be positive integers, got {int(arr.min())}")
    return arr


def uniform_mrr(ks=range(1, 101)) -> np.ndarray:
    """MRR when the single answer is equally likely at each of the top k ranks: H_k / k.

    With the answer uniformly placed in the top k, MRR = (1 + 1/2 + ... + 1/k) / k (Jason's
    AP/MRR notes, "The Dance of Disorder (Fluctuations of Entropy)", PIXNET blog: 0.611 at
    k = 3; 0.4567 at k = 5, which the notes print truncated as 0.456; 0.293 at k = 10). It
    decreases with k.

    Parameters
    ----------
    ks : iterable of positive int, default=range(1, 101)

    Returns
    -------
    ndarray of shape (len(ks),)

    Examples
    --------
    >>> uniform_mrr([3, 5, 10]).round(3)
    array([0.611, 0.457, 0.293])
    """
    ks = _check_ks(ks)
    harmonic = np.cumsum(1.0 / np.arange(1, ks.max() + 1))
    return harmonic[ks - 1] / ks


def uniform_k_for_mrr(target: float, *, max_k: int = 100_000) -> int:
    """The largest k at which an answer uniformly placed in the top k still gives MRR >= target.

    The inverse of :func:`uniform_mrr` (which decreases in k): a system whose MRR equals
    ``target`` does as well as one whose answers are spread evenly over the top k ranks.

    Parameters
    ----------
    target : float in (0, 1]
    max_k : int, default=100_000
        Search limit; a ValueError if the answer lies beyond it (targets below ~1.2e-4).

    Examples
    --------
    >>> uniform_k_for_mrr(0.456), uniform_k_for_mrr(0.3), uniform_k_for_mrr(1.0)
    (5, 9, 1)
    """
    target = check_probability(target, "target")
    ks = np.arange(1, _check_ks([max_k], "max_k")[0] + 1)
    mrr = uniform_mrr(ks)
    reached = int(np.count_nonzero(mrr >= target - _MRR_SLACK))  # decreasing: a prefix reaches it
    if reached == ks.size:
        raise ValueError(f"target={target!r} is still reached at max_k={ks.size}; increase max_k")
    return reached


def smallest_k_for_mrr(mrr_at_k, target: float):
    """The inverse view of MRR@k: the smallest k at which MRR@k reaches ``target``.

    Jason's AP/MRR notes ("The Dance of Disorder (Fluctuations of Entropy)", PIXNET blog)
    suggest fixing the MRR a task needs and comparing systems by the cutoff k
    they need to reach it (smaller is better), instead of comparing MRR at a fixed k.
    MRR@k of a real system never decreases with k.

    Parameters
    ----------
    mrr_at_k : Series indexed by k, DataFrame (index k, one column per system), or dict
        name -> Series
        A system's MRR at each cutoff (e.g. from ``rankkit.reciprocal_rank(labels, k=k).mean()``).
    target : float in (0, 1]

    Returns
    -------
    int or None, or Series of them per system
        The smallest k whose MRR@k >= target; None when no k reaches it.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"A": [0.40, 0.55, 0.60], "B": [0.50, 0.52, 0.53]}, index=[1, 5, 10])
    >>> smallest_k_for_mrr(runs, 0.5).to_dict()
    {'A': 5, 'B': 1}
    >>> smallest_k_for_mrr(runs["B"], 0.55) is None
    True
    """
    target = check_probability(target, "target")
    if isinstance(mrr_at_k, pd.DataFrame):
        return pd.Series(
            {str(c): smallest_k_for_mrr(mrr_at_k[c], target) for c in mrr_at_k.columns},
            dtype=object, name=f"smallest k with MRR >= {target:g}",
        )
    if isinstance(mrr_at_k, Mapping):
        return pd.Series(
            {str(c): smallest_k_for_mrr(pd.Series(v), target) for c, v in mrr_at_k.items()},
            dtype=object, name=f"smallest k with MRR >= {target:g}",
        )
    if not isinstance(mrr_at_k, pd.Series):
        raise ValueError(
            f"mrr_at_k must be a Series indexed by k, a DataFrame or a dict, got {type(mrr_at_k).__name__}"
        )
    ks = _check_ks(mrr_at_k.index, "mrr_at_k index (k)")
    values = check_finite(mrr_at_k.to_numpy(dtype=np.float64), "mrr_at_k")
    order = np.argsort(ks, kind="stable")
    hit = np.flatnonzero(values[order] >= target - _MRR_SLACK)
    return int(ks[order][hit[0]]) if hit.size else None


def mrr_top_k(
    ks=range(1, 101),
    *,
    systems=None,
    target: float | None = None,
    highlight=(),
    two_panels: bool = False,
    logx: bool | None = None,
    colors=None,
    ax=None,
):
    """The MRR top-k curve: MRR = H_k / k when the single answer is uniform in the top k.

    The curve and the proposed inverse view follow Jason's AP/MRR notes ("The Dance of
    Disorder (Fluctuations of Entropy)", PIXNET blog, after Simone Teufel's NLIP lecture 7
    on question answering). Optionally overlays real systems' MRR@k and marks the inverse
    view: a horizontal line at a target MRR, the largest k at which the uniform placement
    still reaches it, and each system's smallest k reaching it.

    Parameters
    ----------
    ks : iterable of positive int, default=range(1, 101)
        Cutoffs of the uniform curve.
    systems : DataFrame (index k, one column per system) or dict name -> Series, optional
        MRR@k of real systems, drawn as further lines.
    target : float in (0, 1], optional
        Target MRR for the inverse view.
    highlight : iterable of int, default=()
        Cutoffs marked and annotated on the uniform curve, e.g. ``(3, 5, 10)``, whose
        values 0.611, 0.456 and 0.293 the notes print; none by default.
    two_panels : bool, default=False
        Draw the uniform curve on its own panel (left) and the systems' MRR@k on a second
        (right), each with the target; returns the Figure.
    logx : bool or None, default=None
        Logarithmic k axis; None: on a panel whose largest k exceeds 20 (the annotated
        small k stay readable).
    colors : mapping name -> colour, optional
        Colours of the systems; by default :func:`system_styles`, which also gives each
        system its marker and line style.
    ax : matplotlib Axes (a pair with ``two_panels``), optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes, or Figure with ``two_panels``
        One panel: ``ax.lines[0]`` is the uniform curve (label ``"answer uniform in top k"``,
        thick light grey), then one line per system (labelled with its name, styled by
        :func:`system_styles`), then, with ``target``, the target line (label
        ``"target MRR = ..."``, dark grey, dashed) and the uniform-depth line (label
        ``"uniform reaches target up to k = K"``, dark grey, dotted). With ``highlight``,
        ``ax.collections[0]`` holds the highlighted (k, MRR) points, ``ax.texts`` their
        labels, each placed where it crosses no line (see the Examples); with ``target`` and
        ``systems``, one further collection per system that reaches the target holds its
        (smallest k, MRR@k) point, on its curve, in the system's colour and marker (label ``"<name>:
        smallest k reaching target = K"``). With several lines the legend sits outside the axes, so it covers
        neither curves nor labels.

        Two panels: ``fig.axes[0]`` holds the uniform curve, its highlighted points and
        labels, the target and uniform-depth lines (in that order); ``fig.axes[1]`` the
        systems' lines, then the target line and the systems' smallest-k points.

    Examples
    --------
    >>> ax = mrr_top_k(highlight=(3, 5, 10))
    >>> round(float(ax.lines[0].get_ydata()[2]), 3), round(float(ax.lines[0].get_ydata()[9]), 3)
    (0.611, 0.293)
    >>> [t.get_text() for t in ax.texts], ax.get_xscale()
    (['k=3: 0.611', 'k=5: 0.457', 'k=10: 0.293'], 'log')
    >>> ax = mrr_top_k(target=0.3)
    >>> ax.lines[-1].get_label()
    'uniform reaches target up to k = 9'
    >>> import pandas as pd
    >>> fig = mrr_top_k(systems=pd.DataFrame({"A": [0.4, 0.6]}, index=[1, 10]), two_panels=True)
    >>> [a.get_title() for a in fig.axes]
    ['MRR when the answer is uniform in the top k', "Systems' MRR@k"]
    """
    ks = _check_ks(ks)
    highlight = _check_ks(highlight, "highlight") if len(list(highlight)) else np.array([], dtype=np.int64)
    if target is not None:
        target = check_probability(target, "target")
    if not isinstance(two_panels, (bool, np.bool_)):
        raise ValueError(f"two_panels must be True or False, got {two_panels!r}")
    if logx is not None and not isinstance(logx, (bool, np.bool_)):
        raise ValueError(f"logx must be True, False or None, got {logx!r}")
    system_curves = _system_curves(systems)
    if two_panels and not system_curves:
        raise ValueError("two_panels=True needs systems (the second panel shows their MRR@k)")
    styles = series_kwargs({name: k.size for name, (k, _) in system_curves.items()}, colors)
    largest_system_k = max([int(k.max()) for k, _ in system_curves.values()], default=1)

    if two_panels:
        fig, (left, right) = axes_pair_or_new(ax)
    else:
        left = right = axes_or_new(ax)  # one panel: everything on it
    left.plot(ks, uniform_mrr(ks), color=REFERENCE_LIGHT, linewidth=2.5, label="answer uniform in top k")
    if not two_panels:
        _draw_systems(left, system_curves, styles)
    labels = _mark_highlights(left, highlight)
    if target is not None:
        depth = uniform_k_for_mrr(target)
        left.axhline(target, label=f"target MRR = {target:g}", **_TARGET_LINE)
        left.axvline(depth, color=REFERENCE, linestyle=":", linewidth=1.2,
                     label=f"uniform reaches target up to k = {depth}")
    if two_panels:
        _draw_systems(right, system_curves, styles)
        if target is not None:
            right.axhline(target, label=f"target MRR = {target:g}", **_TARGET_LINE)
    if target is not None:
        _mark_smallest_k(right, system_curves, target, styles)

    if two_panels:
        panels = [(left, int(ks.max())), (right, largest_system_k)]
    else:
        panels = [(left, max(int(ks.max()), largest_system_k))]
    _format_k_axes(panels, logx)
    _label_mrr_panels(left, right if two_panels else None, bool(system_curves), target)
    _clear_of_lines(left, labels)
    return fig if two_panels else left


def _draw_systems(ax, system_curves: dict, styles: dict) -> None:
    for name, (k, y) in system_curves.items():
        ax.plot(k, y, label=name, **styles[name])


def _mark_highlights(ax, highlight: np.ndarray) -> list:
    """Black dots at the highlighted k of the uniform curve, and their labels ``"k=5: 0.457"``."""
    if not highlight.size:
        return []
    hy = uniform_mrr(highlight)
    ax.scatter(highlight, hy, color="black", zorder=3)
    return [ax.annotate(f"k={k}: {y:.3f}", xy=(k, y), xytext=(7, 7), textcoords="offset points",
                        ha="left", va="bottom") for k, y in zip(highlight, hy)]


def _clear_of_lines(ax, labels: list) -> None:
    """Move each label to the first of :data:`_LABEL_SPOTS` where its text (with
    :data:`_LABEL_CLEARANCE` pixels to spare) crosses no line and no marker of ``ax``, no
    label placed before it and no legend, inside the axes; where no spot is clear, to the
    one with fewest crossings. Lays the figure out once (``draw_without_rendering``), so it
    sees the final axes size."""
    if not labels:
        return
    root = ax.figure
    while getattr(root, "_parent", None) is not None:  # a SubFigure: lay out its Figure
        root = root._parent
    root.draw_without_rendering()
    obstacles = [line.get_transform().transform_path(line.get_path()) for line in ax.lines]
    points = [c.get_offset_transform().transform(c.get_offsets()) for c in ax.collections]
    points = np.concatenate(points) if points else np.zeros((0, 2))
    legend = ax.get_legend()
    boxes = [legend.get_window_extent()] if legend is not None else []
    inside = ax.bbox

    def crossings(box) -> int:
        wide = box.padded(_LABEL_CLEARANCE)
        hits = sum(path.intersects_bbox(wide, filled=False) for path in obstacles)
        hits += int(np.count_nonzero((points[:, 0] >= wide.x0) & (points[:, 0] <= wide.x1)
                                     & (points[:, 1] >= wide.y0) & (points[:, 1] <= wide.y1)))
        hits += sum(wide.overlaps(other) for other in boxes)
        return hits + (0 if inside.contains(box.x0, box.y0) and inside.contains(box.x1, box.y1) else 1)

    def put(label, spot) -> None:
        label.xyann = spot[0]
        label.set(ha=spot[1], va=spot[2])

    for label in labels:
        scores = []
        for spot in _LABEL_SPOTS:
            put(label, spot)
            scores.append(crossings(label.get_window_extent()))
            if scores[-1] == 0:
                break
        put(label, _LABEL_SPOTS[int(np.argmin(scores))])
        boxes.append(label.get_window_extent())


def _system_curves(systems) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name -> (k ascending, MRR@k) of each system given to :func:`mrr_top_k`, validated."""
    if systems is None:
        return {}
    if isinstance(systems, pd.DataFrame):
        named = {str(c): systems[c] for c in systems.columns}
    elif isinstance(systems, Mapping):
        named = {str(c): (v if isinstance(v, pd.Series) else pd.Series(v)) for c, v in systems.items()}
    else:
        raise ValueError(
            f"systems must be a DataFrame indexed by k or a dict name -> Series, got {type(systems).__name__}"
        )
    if not named:
        raise ValueError("systems must not be empty")
    curves = {}
    for name, series in named.items():
        k = _check_ks(series.index, f"systems[{name!r}] index (k)")
        y = check_finite(series.to_numpy(dtype=np.float64), f"systems[{name!r}]")
        order = np.argsort(k, kind="stable")
        curves[name] = (k[order], y[order])
    return curves


def _mark_smallest_k(ax, system_curves: dict, target: float, styles: dict) -> None:
    """Each system's smallest k reaching ``target``, on the system's curve (its MRR@k there, at
    or above the target line): a larger ring of the system's marker in its colour, around the
    curve's own point, which shows through (none for a system that never reaches it). One
    collection per system; later systems get smaller rings, so equal k stay visible."""
    order = {name: i for i, name in enumerate(sorted(system_curves))}
    for name, (k, y) in system_curves.items():
        first = smallest_k_for_mrr(pd.Series(y, index=k), target)
        if first is None:
            continue
        style, i, reached = styles[name], order[name], y[np.searchsorted(k, first)]
        ax.scatter([first], [reached], marker=style["marker"], facecolors="none", edgecolors=style["color"],
                   linewidths=2.0, s=_RING_AREA - _RING_STEP * min(i, _RINGS_SHRINKING), zorder=4 + i / 100,
                   label=f"{name}: smallest k reaching target = {first}")


def _format_k_axes(panels: list, logx: bool | None) -> None:
    """k axes of the MRR panels: logarithmic when asked, or (None) when the largest k of the
    panel exceeds 20 (the annotated small k stay readable); else whole-number ticks."""
    for axis, largest in panels:
        if (largest > _LOG_K_BEYOND if logx is None else bool(logx)):
            axis.set_xscale("log")
            axis.xaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))  # k = 1, 2, 5, 10, 20, 50, 100
            axis.xaxis.set_major_formatter(StrMethodFormatter("{x:.0f}"))  # integers: not 10^0, not 1.0
        else:
            axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.set_ylim(0.0, 1.05)
        axis.set_ylabel("MRR")


def _label_mrr_panels(left, right, has_systems: bool, target: float | None) -> None:
    """Axis labels, titles and legends of :func:`mrr_top_k`; ``right`` is None for one panel."""
    if right is not None:
        left.set_xlabel("k (answer placed uniformly in the top k)")
        left.set_title("MRR when the answer is uniform in the top k")
        left.legend(loc="upper right")
        right.set_xlabel("k (cutoff)")
        right.set_ylabel("MRR@k")
        right.set_title("Systems' MRR@k" + (f" and the smallest k reaching {target:g}" if target is not None else ""))
        right.legend(loc="best")  # MRR@k rises with k: usually the upper left is free
        return
    left.set_xlabel("k (answer placed uniformly in the top k)" if not has_systems else "k")
    left.set_title("MRR vs k when the answer is uniform in the top k"
                   + (", and systems' MRR@k" if has_systems else ""))
    if len(left.get_legend_handles_labels()[1]) > 1:
        left.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    else:
        left.legend(loc="upper right")
