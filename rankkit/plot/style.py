"""The look every figure of :mod:`rankkit.plot` shares: colours, markers and line styles per
series, reference greys, and the helpers that make or take the Axes a figure draws on.

A series keeps its look in every figure of the same series: its position in the *sorted*
names picks an Okabe–Ito colour, a marker and a line style (:func:`system_styles`). The
helpers without an underscore (:func:`series_kwargs`, :func:`axes_or_new`, ...) serve the
figure modules of this package and the explorers of :mod:`rankkit.teaching.explore`;
``rankkit.plot`` does not re-export them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["PALETTE", "MARKERS", "LINESTYLES", "system_styles", "system_colors"]

#: The Okabe–Ito colour-blind-safe palette (M. Okabe & K. Ito, "Color Universal Design (CUD):
#: how to make figures and presentations that are friendly to colorblind people", 2008,
#: https://jfly.uni-koeln.de/color/): blue, vermillion, bluish green, orange, reddish purple,
#: sky blue, black, and yellow (hard to see on white) last; neighbours contrast. By hex, so no
#: global setting (the property cycle) is read.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")

#: The marker of a series, by the same position as its colour (10 shapes: with the 8 colours,
#: no two of the first 40 series look alike).
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")

#: The line style of a series, by the same position: solid, dashed, dash-dot, dotted.
LINESTYLES = ("-", "--", "-.", ":")

BLUE, VERMILLION, GREY = PALETTE[0], PALETTE[1], "#999999"
#: Reference lines and curves (targets, baselines, chance): greys, never a series colour.
REFERENCE, REFERENCE_LIGHT = "0.3", "0.6"
#: A series with more points than this gets a marker every :data:`MARK_EVERY` of the axes, not
#: at every point.
DENSE_POINTS = 25
#: The spacing of a dense series' markers, as a fraction of the axes diagonal (a tenth).
MARK_EVERY = 0.1
#: The z-order of the first series (matplotlib's for lines); each later one is drawn a little above.
SERIES_ZORDER = 2.0
#: The size in inches of a new two-panel figure.
PAIR_FIGSIZE = (11, 4)


def axes_or_new(ax, figsize=None):
    """``ax`` itself, or the Axes of a new figure (pyplot, so notebooks display it)."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt  # lazily: importing rankkit.plot needs no GUI

    if figsize is None:
        _, ax = plt.subplots()
    else:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def named_items(obj, name: str, single_types: tuple) -> dict[str, Any]:
    """A dict name -> item: ``obj`` itself if it is a mapping, else ``{name: obj}``."""
    if isinstance(obj, Mapping) and not isinstance(obj, single_types):
        if not obj:
            raise ValueError(f"{name} must not be empty")
        return {str(k): v for k, v in obj.items()}
    return {"": obj}


def legend_if_named(ax, named: dict) -> None:
    """A legend when at least one series has a name (the key of :func:`named_items`)."""
    if any(label for label in named):
        ax.legend()


def system_styles(names, colors=None) -> dict[str, dict[str, Any]]:
    """One colour, marker and line style per series, the same in every figure of the same series.

    Parameters
    ----------
    names : iterable of str
        The series (systems, metrics, discounts) of a figure.
    colors : mapping name -> colour, optional
        Explicit colours; the series it does not name get one from :data:`PALETTE`. Markers
        and line styles are always assigned.

    Returns
    -------
    dict name -> dict(color=, marker=, linestyle=)
        The series at position i of the *sorted* names takes ``PALETTE[i % 8]``,
        ``MARKERS[i % 10]`` and ``LINESTYLES[i % 4]`` (Okabe–Ito colours; solid, dashed,
        dash-dot, dotted), so the order of the columns does not change a series' look, and
        figures of the same set of names (e.g. one per gain) agree. Pass a style to
        matplotlib as it is: ``ax.plot(x, y, **styles[name])``. The figures of
        :mod:`rankkit.plot` also draw each series over the ones sorted before it, so a dashed curve lies over a
        solid one it overlaps.

    Examples
    --------
    >>> styles = system_styles(["dense", "BM25"])
    >>> styles["BM25"]
    {'color': '#0072B2', 'marker': 'o', 'linestyle': '-'}
    >>> styles["dense"]
    {'color': '#D55E00', 'marker': 's', 'linestyle': '--'}
    """
    names = [str(n) for n in names]
    if colors is not None and not isinstance(colors, Mapping):
        raise ValueError(f"colors must be a mapping system name -> colour or None, got {type(colors).__name__}")
    given = {str(k): v for k, v in (colors or {}).items()}
    order = {name: i for i, name in enumerate(sorted(set(names)))}
    return {
        name: {
            "color": given.get(name, PALETTE[order[name] % len(PALETTE)]),
            "marker": MARKERS[order[name] % len(MARKERS)],
            "linestyle": LINESTYLES[order[name] % len(LINESTYLES)],
        }
        for name in names
    }


def system_colors(names, colors=None) -> dict[str, str]:
    """One colour per system, the same in every figure that shows the same systems.

    The colours of :func:`system_styles` (Okabe–Ito, by position in the *sorted* names);
    ``colors`` names explicit colours for some systems.

    Examples
    --------
    >>> system_colors(["dense", "BM25"])
    {'dense': '#D55E00', 'BM25': '#0072B2'}
    >>> system_colors(["dense", "BM25"], colors={"dense": "black"})
    {'dense': 'black', 'BM25': '#0072B2'}
    """
    return {name: style["color"] for name, style in system_styles(names, colors).items()}


def series_kwargs(sizes: Mapping[str, int], colors=None, *, marker=None, markersize=None) -> dict[str, dict]:
    """``ax.plot`` keywords of each series (name -> its number of points): its
    :func:`system_styles`, drawn over the series sorted before it (zorder rising with the
    position), ``marker`` for every series when given. Where curves overlap they stay
    apart: the series at odd positions have hollow markers, through which the marker below
    shows, and a series of more than :data:`DENSE_POINTS` points gets a marker every tenth
    of the axes diagonal, offset by its position, so the markers of two curves do not
    coincide."""
    styles = system_styles(sizes, colors)
    order = {name: i for i, name in enumerate(sorted(styles))}
    out = {}
    for name, style in styles.items():
        i = order[name]
        kw = {**style, "zorder": SERIES_ZORDER + i / 100}
        if i % 2:  # hollow: the marker of the series below shows through where curves overlap
            kw.update(markerfacecolor="none", markeredgewidth=1.5)
        if marker is not None:
            kw["marker"] = marker
        if markersize is not None:
            kw["markersize"] = markersize
        if sizes[name] > DENSE_POINTS:
            kw["markevery"] = (MARK_EVERY * i / len(order), MARK_EVERY)
        out[name] = kw
    return out


def axes_pair_or_new(ax):
    """Two Axes side by side: ``ax`` itself (a pair) or a new 1 x 2 figure."""
    if ax is not None:
        try:
            pair = list(np.ravel(np.asarray(ax, dtype=object)))
        except TypeError:
            pair = []
        if len(pair) != 2:
            raise ValueError(f"ax must be a pair of matplotlib Axes for this two-panel figure, got {ax!r}")
        return pair[0].figure, pair
    import matplotlib.pyplot as plt  # lazily: importing rankkit.plot needs no GUI

    fig, pair = plt.subplots(1, 2, figsize=PAIR_FIGSIZE, layout="constrained")
    return fig, list(pair)
