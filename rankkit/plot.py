"""Plots for teaching and comparing rankings: precision-recall curves (interpolated, and the
raw saw-tooth with the AP area), metric@k, per-query differences, the RBP persistence sweep
with its crossings, the ERR cascade, gain and discount functions, ROC curves and the MRR
top-k curve.

Import it explicitly (``import rankkit.plot as rkplot``); ``import rankkit`` alone does not
load matplotlib. Every function draws on ``ax`` (a new figure from ``plt.subplots`` when
``ax`` is None), sets its labels, title and legend, changes no global setting, and returns
the matplotlib ``Axes``. It works in scripts (any backend, e.g. headless ``Agg``) and in
notebooks (end the line with ``;``). Functions that draw two panels (``gain_discount``,
``mrr_top_k(..., two_panels=True)``) take a pair of Axes as ``ax`` and return the Figure.
Every title says what the figure shows. Figures are readable by colour-blind readers and
in greyscale: series take the Okabe–Ito colours (:data:`PALETTE`) and, each, a marker and
a line style as well (:func:`system_styles`), assigned by position in the sorted series
names, so a system keeps its look in every figure of the same systems; where curves
overlap, the later one is drawn dashed, with hollow markers, over the earlier one. No
figure uses red against green.

Reading the plotted data back (assert on data, not pixels):

- lines: ``{line.get_label(): line.get_xydata() for line in ax.lines}`` (every curve is
  labelled with its system name; reference lines have labels too, see each function);
- bars: ``[bar.get_height() for bar in ax.containers[0]]`` in plotted order, and
  ``[bar.get_gid() for bar in ax.containers[0]]`` for the query id of each bar;
- markers: ``ax.collections[i].get_offsets()``; text annotations: ``ax.texts``;
- legend: ``[t.get_text() for t in ax.get_legend().get_texts()]``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from .metrics._interpolation import interpolate_points, recall_cut
from .metrics._numerics import powers, query_mean, query_sum
from ._validation import check_finite, check_option, check_probability, check_rel
from .metrics.binary import ROUNDINGS
from .metrics.graded import rbp
from .rankings import as_rankings

__all__ = [
    "pr_curve",
    "pr_sawtooth",
    "metric_at_k",
    "system_colors",
    "system_styles",
    "PALETTE",
    "MARKERS",
    "LINESTYLES",
    "per_query_differences",
    "rbp_persistence",
    "rbp_crossings",
    "err_cascade",
    "err_cascade_table",
    "gain_discount",
    "STANDARD_DISCOUNT",
    "jk_discount_label",
    "roc_curve",
    "mrr_top_k",
    "uniform_mrr",
    "uniform_k_for_mrr",
    "smallest_k_for_mrr",
]

#: The cutoffs whose uniform-placement MRR (0.611, 0.456, 0.293) Jason's AP/MRR notes print
#: ("The Dance of Disorder (Fluctuations of Entropy)", PIXNET blog, after Simone Teufel's
#: NLIP lecture 7), marked on the MRR top-k curve by default.
SOURCE_002_KS = (3, 5, 10)

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

_BLUE, _VERMILLION, _GREY = PALETTE[0], PALETTE[1], "#999999"
#: Reference lines and curves (targets, baselines, chance): greys, never a series colour.
_REFERENCE, _REFERENCE_LIGHT = "0.3", "0.6"
#: A series with more points than this gets a marker every tenth of the axes, not at every point.
_DENSE = 25

#: Citation of the guide whose figures and RBP/ERR formulas the functions below follow.
_EFIMOV = (
    'V. Efimov, "Comprehensive Guide to Ranking Evaluation Metrics", Towards Data Science '
    "(2023); Chinese translation 全面指南:排名评估指标"
)


def _axes(ax, figsize=None):
    """``ax`` itself, or the Axes of a new figure (pyplot, so notebooks display it)."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt  # lazily: importing rankkit.plot needs no GUI

    if figsize is None:
        _, ax = plt.subplots()
    else:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _named(obj, name: str, single_types: tuple) -> dict[str, Any]:
    """A dict name -> item: ``obj`` itself if it is a mapping, else ``{name: obj}``."""
    if isinstance(obj, Mapping) and not isinstance(obj, single_types):
        if not obj:
            raise ValueError(f"{name} must not be empty")
        return {str(k): v for k, v in obj.items()}
    return {"": obj}


def _legend(ax, named: dict) -> None:
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
        matplotlib as it is: ``ax.plot(x, y, **styles[name])``. The functions of this module
        also draw each series over the ones sorted before it, so a dashed curve lies over a
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


def _series_kwargs(sizes: Mapping[str, int], colors=None, *, marker=None, markersize=None) -> dict[str, dict]:
    """``ax.plot`` keywords of each series (name -> its number of points): its
    :func:`system_styles`, drawn over the series sorted before it (zorder rising with the
    position), ``marker`` for every series when given. Where curves overlap they stay
    apart: the series at odd positions have hollow markers, through which the marker below
    shows, and a series of more than ``_DENSE`` points gets a marker every tenth of the axes
    diagonal, offset by its position, so the markers of two curves do not coincide."""
    styles = system_styles(sizes, colors)
    order = {name: i for i, name in enumerate(sorted(styles))}
    out = {}
    for name, style in styles.items():
        i = order[name]
        kw = {**style, "zorder": 2.0 + i / 100}
        if i % 2:  # hollow: the marker of the series below shows through where curves overlap
            kw.update(markerfacecolor="none", markeredgewidth=1.5)
        if marker is not None:
            kw["marker"] = marker
        if markersize is not None:
            kw["markersize"] = markersize
        if sizes[name] > _DENSE:
            kw["markevery"] = (0.1 * i / len(order), 0.1)
        out[name] = kw
    return out


def _axes_pair(ax):
    """Two Axes side by side: ``ax`` itself (a pair) or a new 1 x 2 figure."""
    if ax is not None:
        try:
            pair = list(np.ravel(np.asarray(ax, dtype=object)))
        except TypeError:
            pair = []
        if len(pair) != 2:
            raise ValueError(f"ax must be a pair of matplotlib Axes for this two-panel figure, got {ax!r}")
        return pair[0].figure, pair
    import matplotlib.pyplot as plt

    fig, pair = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
    return fig, list(pair)


# --------------------------------------------------------------------------- PR curves


UNREACHED = ("keep", "cut", "grey")


def _eleven_point(df: pd.DataFrame, levels: np.ndarray, rounding: str) -> np.ndarray:
    """Interpolated precision at each recall level, averaged over the frame's queries.

    With ``rounding="textbook"`` (or without a ``relevant`` column) the level l is reached
    at every rank whose recall >= l and scores the highest precision there (0 if never
    reached). Otherwise this is trec_eval's ``iprec_at_recall`` (as
    :func:`rankkit.interpolated_precision`): the level is reached at the c-th relevant
    document, c = max(round(l * R), 1), and scores the highest precision at that rank or
    below.
    """
    if "rank" in df.columns:
        df = df.sort_values(["query_id", "rank"], kind="stable")
    queries = df["query_id"]
    n = queries.nunique()
    recall = df["recall"].to_numpy(np.float64)
    counted = "relevant" in df.columns and rounding != "textbook"
    if counted:
        hits = df["relevant"].astype(np.float64).groupby(queries).cumsum().to_numpy()
        with np.errstate(divide="ignore", invalid="ignore"):
            r_row = np.where(recall > 0, hits / recall, np.nan)
        # R of each query (recall = hits / R); inf when no relevant document was retrieved
        n_rel = pd.Series(r_row).groupby(queries.to_numpy()).transform("max").fillna(np.inf).round().to_numpy()
    per_level = []
    for level in levels:  # a fixed, small number of levels; queries are grouped, not looped
        if counted:
            with np.errstate(invalid="ignore"):
                cut = np.maximum(recall_cut(level, n_rel, rounding), 1.0)
            reached = hits >= cut
        else:
            reached = recall >= level  # the same doubles as rk.interpolated_precision's test
        best = df["precision"].where(reached).groupby(queries).max().fillna(0.0)
        per_level.append(float(query_sum(best.to_numpy())) / n)
    return np.asarray(per_level, dtype=np.float64)


def _levels(n: int) -> np.ndarray:
    """n equally spaced recall levels 0..1, as the exact decimals 0.0, 0.1, ... for n = 11."""
    return np.arange(n) / (n - 1)


def _pr_points(name: str, curve, interpolated: bool, rounding: str) -> tuple[np.ndarray, np.ndarray, str, float]:
    """(recall, precision, kind, reach) for one curve, kind in {"points", "levels"}; reach is
    the largest recall the run reaches."""
    where = f"curves[{name!r}]" if name else "curves"
    if isinstance(curve, pd.DataFrame):
        missing = {"recall", "precision"} - set(curve.columns)
        if missing:
            raise ValueError(
                f"{where} must have columns 'recall' and 'precision' (as rankkit.pr_curve "
                f"returns); missing {sorted(missing)}"
            )
        if "query_id" in curve.columns and curve["query_id"].nunique() > 1:
            if not interpolated:
                raise ValueError(
                    f"{where} holds {curve['query_id'].nunique()} queries: their rank-by-rank "
                    "precisions cannot be averaged; use interpolated=True (11-point average) "
                    "or plot one query at a time"
                )
            levels = _levels(11)
            for col in ("recall", "precision"):
                check_finite(curve[col].to_numpy(np.float64), f"{where}[{col!r}]")
            reach = float(curve["recall"].max())
            return levels, _eleven_point(curve, levels, rounding), "levels", reach
        recall = curve["recall"].to_numpy(np.float64)
        if interpolated and "interpolated_precision" in curve.columns:
            precision = curve["interpolated_precision"].to_numpy(np.float64)
        else:
            precision = curve["precision"].to_numpy(np.float64)
            if interpolated:
                precision = interpolate_points(recall, check_finite(precision, f"{where} precision"))
    elif isinstance(curve, tuple) and len(curve) == 2:
        recall = np.asarray(curve[0], dtype=np.float64).ravel()
        precision = np.asarray(curve[1], dtype=np.float64).ravel()
        if recall.shape != precision.shape:
            raise ValueError(
                f"{where} must be (recall, precision) of equal length, got {recall.size} and {precision.size}"
            )
        if interpolated:
            precision = interpolate_points(recall, check_finite(precision, f"{where} precision"))
    else:
        return _level_points(where, curve, interpolated)
    check_finite(recall, f"{where} recall")
    check_finite(precision, f"{where} precision")
    if recall.size == 0:
        raise ValueError(f"{where} is empty")
    return recall, precision, "points", float(recall.max())


def _level_points(where: str, curve, interpolated: bool) -> tuple[np.ndarray, np.ndarray, str, float]:
    """:func:`_pr_points` of an array of interpolated precisions at equally spaced levels."""
    try:
        values = np.asarray(curve, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{where} must be a DataFrame from rankkit.pr_curve, a (recall, precision) "
            f"tuple or an array of interpolated precisions, got {type(curve).__name__}"
        ) from None
    if values.ndim not in (1, 2) or values.shape[-1] < 2:
        raise ValueError(
            f"{where} as an array must hold interpolated precisions at >= 2 recall levels "
            f"(shape (levels,) or (n_queries, levels)), got shape {values.shape}"
        )
    if not interpolated:
        raise ValueError(
            f"{where} is an array of interpolated precisions; pass interpolated=True "
            "(or give a DataFrame / (recall, precision) tuple for the raw curve)"
        )
    check_finite(values, where)
    if values.ndim == 2:
        values = query_mean(values)
    levels = _levels(values.shape[-1])
    positive = np.flatnonzero(values > 0)
    # an array carries no recall: the last level with positive precision was reached
    return levels, values, "levels", float(levels[positive[-1]]) if positive.size else 0.0


def pr_curve(
    curves,
    *,
    interpolated: bool = True,
    rounding: str = "textbook",
    unreached: str = "keep",
    colors=None,
    ax=None,
):
    """Precision-recall curves of one or several systems.

    Interpolated precision at recall level r is the highest precision at any recall >= r
    (Manning, Raghavan & Schütze 2008, ch. 8.4; trec_eval's ``iprec_at_recall``); the
    11-point curve takes it at r = 0, 0.1, ..., 1 and averages it over queries.

    Parameters
    ----------
    curves : curve or dict name -> curve
        A curve is one of

        - a DataFrame as returned by :func:`rankkit.pr_curve`: columns ``recall`` and
          ``precision`` (and ``interpolated_precision``, used when present), one row per
          rank. With a ``query_id`` column holding several queries, the 11-point
          interpolated average over those queries is plotted.
        - a tuple ``(recall, precision)`` of equal-length arrays (e.g. from
          ``sklearn.metrics.precision_recall_curve``, in any order of recall).
        - an array of interpolated precisions at equally spaced recall levels 0, ..., 1
          (11 of them from :func:`rankkit.interpolated_precision`); a 2-D array
          (n_queries, levels) is averaged over queries first.

        A multi-query DataFrame and the 2-D array of the same rankings give the same
        11-point curve (trec_eval's ``iprec_at_recall`` averaged over queries), given the
        same ``rounding``.
    interpolated : bool, default=True
        Plot interpolated precision (a step curve) rather than the raw rank-by-rank
        precision (the saw-tooth). The raw curve needs a single query per DataFrame;
        arrays of interpolated precisions need ``interpolated=True``.
    rounding : {"textbook", "nearest", "plus_0.9"}, default="textbook"
        For a multi-query DataFrame: when a query reaches recall level l, as in
        :func:`rankkit.interpolated_precision`. ``"textbook"``: at every rank whose
        recall >= l, scoring the highest precision at any of them (Manning et al. 8.4);
        ``"nearest"`` (trec_eval 10) and ``"plus_0.9"`` (trec_eval 9.x, pytrec_eval) round
        l * R to a count of relevant documents and need the ``relevant`` column (without
        it a level is reached where recall >= l).
    unreached : {"keep", "cut", "grey"}, default="keep"
        The recall beyond the largest recall a run reaches (its last relevant document
        retrieved; for an array of interpolated precisions, its last level with positive
        precision), where interpolated precision is 0 by convention: ``"keep"`` draws it,
        ``"cut"`` ends each curve at its largest reached recall, ``"grey"`` cuts and shades
        the unreached recall range of each curve in grey (``ax.patches``, one span per
        curve, gid = the curve's name; darker where more runs fall short).
    colors : mapping name -> colour, optional
        Colours of named curves; by default those of :func:`system_styles`, which also gives
        each curve its marker and line style (stable across figures; a later curve is drawn
        over an earlier one, dashed over solid, so overlapping curves stay apart).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        One line per curve, labelled with its name (in dict order): ``ax.lines[i]``'s
        ``get_xydata()`` holds (recall, precision). A raw or interpolated rank-by-rank curve
        keeps its points as given; the interpolated one is drawn as steps (precision at
        each point holds for the recall interval ending there) and starts with the
        point (0, max precision). Level curves have their recall levels as x.

    Examples
    --------
    >>> import pandas as pd
    >>> curve = pd.DataFrame({"rank": [1, 2, 3, 4], "relevant": [1, 0, 1, 0],
    ...                       "precision": [1, 1 / 2, 2 / 3, 1 / 2], "recall": [0.5, 0.5, 1, 1]})
    >>> ax = pr_curve({"run A": curve, "run B": [1, 1, 1, .8, .8, .8, .5, .5, .5, .5, .5]})
    >>> ax.lines[0].get_xydata().round(3).tolist()
    [[0.0, 1.0], [0.5, 1.0], [0.5, 1.0], [1.0, 0.667], [1.0, 0.667]]
    >>> float(ax.lines[1].get_ydata()[3]), ax.get_legend().get_texts()[1].get_text()
    (0.8, 'run B')
    >>> raw = pr_curve(curve, interpolated=False)
    >>> raw.lines[0].get_ydata().round(3).tolist()
    [1.0, 0.5, 0.667, 0.5]

    A run that finds half of the relevant documents: its 11-point curve ends at recall 0.5.

    >>> ax = pr_curve([1, 1, .8, .8, .6, .5, 0, 0, 0, 0, 0], unreached="grey")
    >>> ax.lines[0].get_xdata().tolist()
    [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]
    >>> ax.patches[0].get_gid(), ax.get_title()
    ('', 'Interpolated precision-recall curve (grey: recall not reached)')
    """
    if not isinstance(interpolated, (bool, np.bool_)):
        raise ValueError(f"interpolated must be True or False, got {interpolated!r}")
    rounding = check_option(rounding, ROUNDINGS, "rounding")
    unreached = check_option(unreached, UNREACHED, "unreached")
    named = _named(curves, "curves", (pd.DataFrame,))
    prepared = {name: _pr_points(name, curve, bool(interpolated), rounding) for name, curve in named.items()}
    styles = _series_kwargs({name: points[0].size + 1 for name, points in prepared.items()}, colors)
    ax = _axes(ax)
    for name, (recall, precision, kind, reach) in prepared.items():
        label = name or ("interpolated precision" if interpolated else "precision")
        if kind == "levels":
            if unreached != "keep":
                inside = recall <= reach + 1e-12
                recall, precision = recall[inside], precision[inside]
            ax.plot(recall, precision, label=label, **styles[name])
        elif interpolated:
            order = np.argsort(recall, kind="stable")
            x = np.concatenate([[0.0], recall[order]])
            y = np.concatenate([[precision.max()], precision[order]])
            ax.plot(x, y, drawstyle="steps-pre", label=label, **styles[name])
        else:
            ax.plot(recall, precision, label=label, **styles[name])
        if unreached == "grey" and reach < 1.0:
            span = ax.axvspan(reach, 1.0, color="0.5", alpha=0.15, linewidth=0, zorder=0)
            span.set_gid(name)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision" if interpolated else "precision")
    title = "Interpolated precision-recall curve" if interpolated else "Precision-recall curve"
    ax.set_title(title + (" (grey: recall not reached)" if unreached == "grey" else ""))
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.05)
    _legend(ax, named)
    return ax


def pr_sawtooth(labels, *, rel: float = 1, n_relevant=None, shade_ap: bool = True, ax=None):
    """The raw precision-recall points of one ranking (the saw-tooth), with the AP area shaded.

    At rank i, precision P@i = (relevant in top i) / i and recall = (relevant in top i) / R.
    Precision jumps up at each relevant document and decays until the next: the saw-tooth.
    Average precision (R as denominator) is the area under the step curve that holds P@i
    over the recall interval each relevant rank i adds, of width 1 / R (Manning, Raghavan &
    Schütze, *Introduction to Information Retrieval*, 2008, sec. 8.4). Draw the
    interpolated and 11-point curves on the same axes with :func:`pr_curve` (``ax=``).

    Parameters
    ----------
    labels : 1-D array-like
        Labels of one ranking, in rank order.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.
    n_relevant : int, optional
        R, when relevant documents were not retrieved (as in :func:`rankkit.pr_curve`).
    shade_ap : bool, default=True
        Shade the AP area and draw its step outline.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` (label ``"precision at each rank"``): (recall, precision) per rank;
        with ``shade_ap``, ``ax.lines[1]`` (label ``"AP = 0.xxxx (area)"``) the step outline
        (0, P@first), then (recall, P@i) at each relevant rank, drawn ``steps-pre``, and
        ``ax.collections[0]`` the shaded area. The AP is :func:`rankkit.average_precision`.

    Examples
    --------
    >>> ax = pr_sawtooth([1, 0, 1, 0, 0, 1])
    >>> ax.lines[0].get_xydata().round(3).tolist()[:3]
    [[0.333, 1.0], [0.333, 0.5], [0.667, 0.667]]
    >>> ax.lines[1].get_label(), ax.get_title()
    ('AP = 0.7222 (area)', 'Precision-recall points of one ranking; shaded: AP = 0.7222')
    """
    from .metrics.binary import average_precision, pr_curve as pr_frame

    r = as_rankings(labels)
    if not r.scalar:
        raise ValueError(f"labels must be one ranking (1-D), got shape {r.labels.shape}")
    if not isinstance(shade_ap, (bool, np.bool_)):
        raise ValueError(f"shade_ap must be True or False, got {shade_ap!r}")
    frame = pr_frame(labels, rel=rel, n_relevant=n_relevant)
    if frame.empty:
        raise ValueError("labels is empty: no precision-recall points")
    ap = float(average_precision(labels, rel=rel, n_relevant=n_relevant))
    recall = frame["recall"].to_numpy(np.float64)
    precision = frame["precision"].to_numpy(np.float64)
    hit = frame["relevant"].to_numpy(bool)

    ax = _axes(ax)
    ax.plot(recall, precision, marker="o", color=_BLUE, label="precision at each rank")
    if shade_ap and hit.any():
        x = np.concatenate([[0.0], recall[hit]])
        y = np.concatenate([[precision[hit][0]], precision[hit]])
        ax.fill_between(x, y, step="pre", color=_BLUE, alpha=0.2, linewidth=0)
        ax.plot(x, y, drawstyle="steps-pre", color=_BLUE, linestyle="--", linewidth=1,
                label=f"AP = {ap:.4f} (area)")
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    title = "Precision-recall points of one ranking"
    ax.set_title(title + (f"; shaded: AP = {ap:.4f}" if shade_ap else f" (AP = {ap:.4f})"))
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.05)
    ax.legend(loc="best")  # a ranking whose first document is not relevant starts at (0, 0)
    return ax


# --------------------------------------------------------------------------- metric@k


def metric_at_k(
    values, *, metric: str | None = None, marker: str | None = None, colors=None, include_zero: bool = True, ax=None
):
    """Metric@k curves: one line per system, k on the x axis.

    Parameters
    ----------
    values : DataFrame, Series, or dict name -> Series
        A DataFrame indexed by k with one column per system; a Series indexed by k (one
        system, named by the Series' name); or a dict system name -> Series indexed by k
        (the systems may be evaluated at different k).
    metric : str, optional
        Name for the axis label and title, e.g. ``"nDCG"`` gives "nDCG@k" and
        ``"nDCG (exp gain)"`` gives "nDCG@k (exp gain)".
    marker : str, optional
        One matplotlib marker for every system; by default each system has its own
        (:func:`system_styles`). Markers sit at each evaluated k, or, beyond 25 cutoffs, a
        tenth of the axes apart.
    colors : mapping system name -> colour, optional
        By default :func:`system_styles`: a system keeps its colour, marker and line style
        in every figure of the same systems (e.g. one figure per gain), whatever the
        column order; a later system is drawn over an earlier one, dashed over solid.
    include_zero : bool, default=True
        The y axis reaches 0, so that small differences are not magnified; False lets
        matplotlib fit the axis to the data (then say so in the label or title).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[i]`` is system i (column or dict order), labelled with its name;
        ``get_xydata()`` holds (k, value) sorted by k; ``get_color()``, ``get_marker()``
        and ``get_linestyle()`` its style. The x ticks are whole numbers.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"BM25": [0.4, 0.45, 0.5], "dense": [0.5, 0.52, 0.53]},
    ...                      index=pd.Index([1, 5, 10], name="k"))
    >>> ax = metric_at_k(table, metric="nDCG")
    >>> ax.lines[1].get_xydata().tolist(), ax.get_ylabel()
    ([[1.0, 0.5], [5.0, 0.52], [10.0, 0.53]], 'nDCG@k')
    """
    if isinstance(values, pd.DataFrame):
        if values.shape[1] == 0:
            raise ValueError("values must have at least one column (one per system)")
        named = {str(col): values[col] for col in values.columns}
    elif isinstance(values, pd.Series):
        named = {"" if values.name is None else str(values.name): values}
    elif isinstance(values, Mapping):
        if not values:
            raise ValueError("values must not be empty")
        named = {str(k): (v if isinstance(v, pd.Series) else pd.Series(v)) for k, v in values.items()}
    else:
        raise ValueError(
            f"values must be a DataFrame indexed by k, a Series or a dict name -> Series, "
            f"got {type(values).__name__}"
        )
    prepared = {}
    for name, series in named.items():
        where = f"values[{name!r}]" if name else "values"
        if series.empty:
            raise ValueError(f"{where} is empty")
        try:
            k = np.asarray(series.index, dtype=np.float64)
            y = series.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{where} must hold numbers indexed by numeric k") from None
        check_finite(k, f"{where} index (k)")
        order = np.argsort(k, kind="stable")
        prepared[name] = (k[order], y[order])  # NaN values stay: matplotlib leaves a gap
    from matplotlib.ticker import MaxNLocator

    if not isinstance(include_zero, (bool, np.bool_)):
        raise ValueError(f"include_zero must be True or False, got {include_zero!r}")
    styles = _series_kwargs({name: k.size for name, (k, _) in prepared.items()}, colors, marker=marker)
    label = _at_k(metric)
    ax = _axes(ax)
    for name, (k, y) in prepared.items():
        ax.plot(k, y, label=name or label, **styles[name])
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if include_zero:  # 0 joins the data limits: autoscaling stays on for what is drawn later
        first_k = float(min(k[0] for k, _ in prepared.values()))
        ax.update_datalim([(first_k, 0.0)], updatex=False)
        ax.autoscale_view()
    ax.set_xlabel("k (cutoff)")
    ax.set_ylabel(label)
    ax.set_title(f"{label} by cutoff")
    _legend(ax, named)
    return ax


def _at_k(metric: str | None) -> str:
    """The axis label of a metric at cutoff k: "nDCG@k", "nDCG@k (exp gain)", "metric@k"."""
    if not metric:
        return "metric@k"
    name, sep, qualifier = str(metric).partition(" (")
    return f"{name}@k ({qualifier}" if sep and qualifier.endswith(")") else f"{metric}@k"


# --------------------------------------------------------------------------- per-query differences


def _as_series(x, name: str) -> pd.Series:
    if isinstance(x, pd.DataFrame):
        if x.shape[1] != 1:
            raise ValueError(f"{name} must be a Series (or one-column DataFrame), got {x.shape[1]} columns")
        x = x.iloc[:, 0]
    if isinstance(x, Mapping):
        x = pd.Series(dict(x))
    elif not isinstance(x, pd.Series):
        try:
            x = pd.Series(np.asarray(x, dtype=np.float64).ravel())
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a Series of per-query values, got {type(x).__name__}") from None
    if x.empty:
        raise ValueError(f"{name} is empty: no queries")
    if x.index.has_duplicates:
        dup = x.index[x.index.duplicated()].unique().tolist()
        raise ValueError(f"{name} has duplicate query ids: {dup[:10]}")
    try:
        x = x.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers") from None
    check_finite(x.to_numpy(), name)
    return x


def per_query_differences(
    system,
    baseline=None,
    *,
    system_name: str = "system",
    baseline_name: str = "baseline",
    metric: str | None = None,
    max_labels: int = 40,
    ax=None,
):
    """Sorted bar chart of per-query differences, system minus baseline.

    Bars are sorted from the largest gain to the largest loss; gains are blue (#0072B2),
    losses vermillion (#D55E00), ties grey (#999999): Okabe–Ito colours that colour-blind
    readers tell apart (no red against green), and the sign shows in the bar's direction as
    well. A solid black line marks zero and a dashed black line the mean difference (its
    value in the legend; no text is drawn over the bars). Bars have no edges, and beyond
    ``max_labels`` queries they touch, so thousands of bars show no stripes.

    Parameters
    ----------
    system : Series or dict query_id -> value
        Per-query scores of the system (e.g. a column of :func:`rankkit.evaluate`), or, when
        ``baseline`` is None, the per-query differences themselves. An array is indexed
        by position.
    baseline : Series or dict query_id -> value, optional
        Per-query scores of the baseline. Queries are aligned by id; both must score the
        same set of queries.
    system_name, baseline_name : str
        Names for the title and axis label.
    metric : str, optional
        Metric name for the axis label, e.g. ``"AP"``.
    max_labels : int, default=40
        Query ids are written under the bars up to this many queries; beyond, the x axis
        has no ticks (each bar still carries its query id as its ``gid``).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.containers[0]`` holds the bars in plotted (sorted) order:
        ``[b.get_height() for b in ax.containers[0]]``; the query of each bar is
        ``[b.get_gid() for b in ax.containers[0]]`` (also the x tick labels, up to
        ``max_labels`` queries), its colour ``b.get_facecolor()``. ``ax.lines`` are the zero line
        (label ``"zero"``) and the mean (label ``"mean difference = +0.xxxx"``, also the
        only legend entry); ``ax.texts`` is empty.

    Raises
    ------
    ValueError
        If the query sets differ (naming the queries missing on each side), a series is
        empty, has duplicate ids, or holds NaN/inf.

    Examples
    --------
    >>> import pandas as pd
    >>> ap_new = pd.Series({"q1": 0.50, "q2": 0.20, "q3": 0.90})
    >>> ap_old = pd.Series({"q3": 0.70, "q1": 0.60, "q2": 0.20})
    >>> ax = per_query_differences(ap_new, ap_old, system_name="new", baseline_name="old")
    >>> [round(float(b.get_height()), 2) for b in ax.containers[0]]
    [0.2, 0.0, -0.1]
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['q3', 'q2', 'q1']
    >>> ax.lines[1].get_label()
    'mean difference = +0.0333'
    """
    system_s = _as_series(system, "system")
    if baseline is None:
        diff = system_s
    else:
        baseline_s = _as_series(baseline, "baseline")
        only_system = system_s.index.difference(baseline_s.index)
        only_baseline = baseline_s.index.difference(system_s.index)
        if len(only_system) or len(only_baseline):
            parts = []
            if len(only_system):
                parts.append(f"missing from baseline: {only_system.tolist()[:20]}")
            if len(only_baseline):
                parts.append(f"missing from system: {only_baseline.tolist()[:20]}")
            raise ValueError("system and baseline must score the same queries; " + "; ".join(parts))
        diff = system_s - baseline_s.reindex(system_s.index)
    if isinstance(max_labels, (bool, np.bool_)) or not isinstance(max_labels, numbers.Integral) or max_labels < 0:
        raise ValueError(f"max_labels must be a non-negative integer, got {max_labels!r}")
    values = diff.to_numpy()
    order = np.argsort(-values, kind="stable")
    values = values[order]
    ids = [str(q) for q in diff.index[order]]
    colors = np.where(values > 0, _BLUE, np.where(values < 0, _VERMILLION, _GREY))
    mean = float(query_mean(diff.to_numpy()))  # in the table's query order

    ax = _axes(ax)
    x = np.arange(values.size)
    many = values.size > max_labels
    bars = _difference_bars(ax, values, colors, f"{system_name} − {baseline_name}", many)
    for bar, query in zip(bars, ids):
        bar.set_gid(query)  # the query of each bar, readable however many bars there are
    ax.axhline(0.0, color="black", linewidth=0.8, label="zero")
    mean_line = ax.axhline(mean, color="black", linestyle="--", linewidth=1.2, label=f"mean difference = {mean:+.4f}")
    if not many:
        ax.set_xticks(x, ids, rotation=90)
    else:  # thousands of tick labels are unreadable and slow to draw
        ax.set_xticks([])
    wins, losses = int((values > 0).sum()), int((values < 0).sum())
    ax.set_xlabel(f"query (sorted; {wins} better, {losses} worse, {values.size - wins - losses} tied)")
    ax.set_ylabel(f"{metric} difference ({system_name} − {baseline_name})" if metric
                  else f"difference ({system_name} − {baseline_name})")
    ax.set_title(f"Per-query difference: {system_name} − {baseline_name}")
    ax.legend(handles=[mean_line], loc="upper right")
    return ax


def _difference_bars(ax, values: np.ndarray, colors: np.ndarray, label: str, many: bool):
    """Edgeless bars at x = 0, 1, ...: touching (and not antialiased) when ``many``, else
    with gaps, since gaps between sub-pixel bars alias into stripes. Returns the bars."""
    x = np.arange(values.size)
    if not many:
        return ax.bar(x, values, color=colors, width=0.8, linewidth=0, label=label)
    # thousands of bars: drawn as one collection (ax.bar adds them one by one, ~0.5 ms each)
    from matplotlib.collections import PolyCollection
    from matplotlib.container import BarContainer
    from matplotlib.patches import Rectangle

    bars = [Rectangle((i - 0.5, 0.0), 1.0, v, facecolor=c, linewidth=0, antialiased=False)
            for i, v, c in zip(x.tolist(), values.tolist(), colors.tolist())]
    left = x - 0.5
    corners = np.stack([np.stack([left, np.zeros_like(values)], 1), np.stack([left, values], 1),
                        np.stack([left + 1.0, values], 1), np.stack([left + 1.0, np.zeros_like(values)], 1)], 1)
    ax.add_collection(PolyCollection(corners, facecolors=colors, linewidths=0, antialiaseds=False), autolim=False)
    ax.update_datalim([(-0.5, min(0.0, values.min())), (values.size - 0.5, max(0.0, values.max()))])
    ax.autoscale_view()
    ax.add_container(BarContainer(bars, label=label))
    return bars


# --------------------------------------------------------------------------- RBP sweep


def _check_ps(ps) -> np.ndarray:
    if ps is None:
        ps = np.linspace(0.1, 0.99, 90)
    ps_arr = np.asarray(ps, dtype=np.float64).ravel() if not isinstance(ps, (str, bytes)) else None
    if ps_arr is None or ps_arr.size == 0:
        raise ValueError(f"ps must be a non-empty array of persistence values in (0, 1), got {ps!r}")
    for p in ps_arr:
        check_probability(float(p), "ps", high_open=True)
    return ps_arr


def _rbp_values(rankings, rel, max_grade) -> tuple[dict[str, Callable], float, float | None]:
    """name -> its RBP curve, a function p -> RBP per query (:func:`rankkit.rbp` of its
    rankings), the rankings validated; and rel, max_grade."""
    rel = check_rel(rel)
    if max_grade is not None:
        if isinstance(max_grade, (bool, np.bool_)) or not isinstance(max_grade, numbers.Real) or not (
            np.isfinite(max_grade) and max_grade > 0
        ):
            raise ValueError(f"max_grade must be a positive number or None, got {max_grade!r}")
        if rel != 1:
            raise ValueError(f"rel applies to binary RBP only; got rel={rel!r} with max_grade={max_grade!r}")
        max_grade = float(max_grade)

    if isinstance(rankings, Mapping):
        if not rankings:
            raise ValueError("rankings must not be empty")
        named = {str(k): v for k, v in rankings.items()}
        mean_over_rows = True
    else:
        r = as_rankings(rankings)
        if r.scalar:
            named = {"": rankings}
        else:
            named = {f"ranking {i + 1}": row[: r.lengths[i]] for i, row in enumerate(r.labels)}
        mean_over_rows = False

    curves = {}
    for name, labels in named.items():
        curve = partial(rbp, as_rankings(labels), rel=rel, max_grade=max_grade)
        try:  # rankkit.rbp refuses labels above max_grade: say which ranking has them
            curve()
        except ValueError as exc:
            where = f"rankings[{name!r}]" if mean_over_rows else "rankings"
            raise ValueError(f"{where}: {exc}") from None
        curves[name] = curve
    return curves, rel, max_grade


def _mean_rbp(curve: Callable, ps: np.ndarray) -> np.ndarray:
    """The mean over queries (in query order) of ``curve(p=p)`` at each p of ``ps``."""
    sweep = [np.atleast_1d(curve(p=float(p))) for p in ps]  # a few p's
    sweep = np.stack(sweep, axis=1) if sweep else np.zeros((0, 0))
    return query_mean(sweep) if sweep.shape[0] else np.zeros_like(ps)


def _crossings(values: dict[str, Callable], ps: np.ndarray) -> pd.DataFrame:
    """Where two mean-RBP curves cross inside the sweep: sign changes of their difference
    on the grid ``ps``, refined by bisection to ~1e-12 (a pair crossing twice between two
    grid points is not seen)."""
    curves = {name: _mean_rbp(v, ps) for name, v in values.items()}
    names = list(values)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            diff = curves[a] - curves[b]

            def gap(p: float, a=a, b=b) -> float:
                at = np.array([p])
                return float(_mean_rbp(values[a], at)[0] - _mean_rbp(values[b], at)[0])

            sign = np.sign(diff)
            for j in range(ps.size):
                if sign[j] == 0:  # on a grid point: a crossing if the neighbours disagree
                    if 0 < j < ps.size - 1 and sign[j - 1] * sign[j + 1] < 0:
                        rows.append((a, b, float(ps[j])))
                elif j + 1 < ps.size and sign[j] * sign[j + 1] < 0:
                    lo, hi = float(ps[j]), float(ps[j + 1])
                    lo_sign = sign[j]
                    for _ in range(200):  # bisection: deterministic, ends on a 1e-12 interval
                        mid = 0.5 * (lo + hi)
                        if hi - lo <= 1e-12 or mid in (lo, hi):
                            break
                        g = gap(mid)
                        if g == 0:
                            lo = hi = mid
                            break
                        if np.sign(g) == lo_sign:
                            lo = mid
                        else:
                            hi = mid
                    rows.append((a, b, 0.5 * (lo + hi)))
    frame = pd.DataFrame(rows, columns=["system_a", "system_b", "p"])
    frame["rbp"] = [float(_mean_rbp(values[a], np.array([p]))[0]) for a, _, p in rows]
    return frame


def rbp_crossings(rankings, *, ps=None, rel: float = 1, max_grade: float | None = None) -> pd.DataFrame:
    """The persistence values p at which two rankings' (mean) RBP curves cross.

    Below such a p one ranking has the higher RBP, above it the other: which one is
    better depends on how patient the user is. Arguments as in :func:`rbp_persistence`;
    crossings are looked for inside ``[min(ps), max(ps)]``.

    Returns
    -------
    pandas.DataFrame
        Columns ``system_a, system_b, p, rbp`` (one row per crossing, pairs in input order,
        p ascending within a pair): p to about 1e-12, and the RBP both curves have there.

    Examples
    --------
    RBP of (1, 1, 0, 0, 0, 0) is (1 - p)(1 + p); of (0, 0, 1, 1, 1, 1) it is
    (1 - p)(p² + p³ + p⁴ + p⁵); they are equal where 1 + p = p²(1 + p + p² + p³).

    >>> rbp_crossings({"top-heavy": [1, 1, 0, 0, 0, 0], "deep": [0, 0, 1, 1, 1, 1]}).round(4)
        system_a system_b       p     rbp
    0  top-heavy     deep  0.7862  0.382
    """
    ps_arr = np.unique(_check_ps(ps))
    values, _, _ = _rbp_values(rankings, rel, max_grade)
    return _crossings(values, ps_arr)


def rbp_persistence(
    rankings,
    *,
    ps=None,
    rel: float = 1,
    max_grade: float | None = None,
    mark_crossings: bool = False,
    colors=None,
    ax=None,
):
    """RBP of several rankings as the persistence p sweeps from 0.1 to 0.99.

    RBP = (1 - p) * sum_i r_i * p^(i - 1) (Moffat & Zobel, "Rank-biased precision for
    measurement of retrieval effectiveness", ACM TOIS 2008; as in V. Efimov's
    "Comprehensive Guide to Ranking Evaluation Metrics"): the user reads the first
    document and each next one with probability p, so they examine 1 / (1 - p) documents
    on average. A small p rewards the top of the ranking, a large p looks deep; the sweep
    shows where two rankings swap order.

    Parameters
    ----------
    rankings : dict name -> labels, or labels
        Labels in rank order. In a dict, each value is one ranking (1-D) or several (2-D
        array, list of lists, :class:`rankkit.Rankings`), whose mean RBP over queries is
        plotted. Without a dict, a 1-D list is one line and each row of a 2-D array is one
        line, named "ranking 1", "ranking 2", ...
    ps : array-like, optional
        Persistence values in (0, 1); default ``np.linspace(0.1, 0.99, 90)``.
    rel : float, default=1
        Binary RBP (Moffat & Zobel): r_i = 1 when label >= rel, else 0.
    max_grade : float or None, default=None
        Graded RBP: r_i = label / max_grade in [0, 1] (Efimov's guide; ``max_grade=1``
        takes labels in [0, 1] as they are). Same conventions as :func:`rankkit.rbp`, whose
        value at each p this curve equals (tie groups of ``ties="average"`` included).
    mark_crossings : bool, default=False
        Mark and annotate each p where two curves cross (computed by
        :func:`rbp_crossings`, not read off the grid).
    colors : mapping name -> colour, optional
        By default :func:`system_styles`, which also gives each curve its marker (a tenth
        of the axes apart) and line style.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[i]`` is ranking i, labelled with its name; ``get_xydata()`` holds (p, RBP).
        With ``mark_crossings`` and at least one crossing, ``ax.collections[0]`` (label
        ``"curves cross"``) holds the (p, RBP) crossing points and ``ax.texts`` their
        annotations ``"p = 0.xxx"``.

    Examples
    --------
    >>> ax = rbp_persistence({"top-heavy": [1, 1, 0, 0, 0, 0], "deep": [0, 0, 1, 1, 1, 1]},
    ...                      ps=[0.1, 0.5, 0.9])
    >>> ax.lines[0].get_ydata().round(4).tolist()
    [0.99, 0.75, 0.19]
    >>> ax.lines[1].get_ydata().round(4).tolist()
    [0.01, 0.2344, 0.2786]
    >>> ax = rbp_persistence({"top-heavy": [1, 1, 0, 0, 0, 0], "deep": [0, 0, 1, 1, 1, 1]},
    ...                      mark_crossings=True)
    >>> ax.collections[0].get_offsets().round(4).tolist(), ax.texts[0].get_text()
    ([[0.7862, 0.382]], 'p = 0.786')
    """
    ps_arr = _check_ps(ps)
    if not isinstance(mark_crossings, (bool, np.bool_)):
        raise ValueError(f"mark_crossings must be True or False, got {mark_crossings!r}")
    values, rel, max_grade = _rbp_values(rankings, rel, max_grade)
    curves = {name: _mean_rbp(v, ps_arr) for name, v in values.items()}
    styles = _series_kwargs({name: ps_arr.size for name in curves}, colors)

    ax = _axes(ax)
    for name, y in curves.items():
        ax.plot(ps_arr, y, label=name or "RBP", **styles[name])
    title = "RBP as the persistence p grows"
    if mark_crossings:
        crossings = _crossings(values, np.unique(ps_arr))
        if len(crossings):
            ax.scatter(crossings["p"], crossings["rbp"], color="black", zorder=3, label="curves cross")
            # labels off the curves, alternately above and below in order of p (so that two
            # crossings close together do not share a spot), above when too low for room below
            order = np.argsort(np.argsort(crossings["p"].to_numpy(), kind="stable"))
            top = max(float(np.max(y)) for y in curves.values())
            for i, p, y in zip(order, crossings["p"], crossings["rbp"]):
                above = i % 2 == 0 or y < 0.15 * top
                ax.annotate(f"p = {p:.3f}", xy=(p, y), xytext=(0, 30 if above else -30), textcoords="offset points",
                            ha="center", va="bottom" if above else "top",
                            arrowprops={"arrowstyle": "-", "color": "0.5", "linewidth": 0.8})
            title += "; ● where two curves cross"
    ax.set_xlabel("persistence p (expected documents examined = 1 / (1 − p))")
    ax.set_ylabel(f"RBP (r = label / {max_grade:g})" if max_grade else f"RBP (relevant: label ≥ {rel:g})")
    ax.set_title(title)
    ax.set_xlim(0.0, 1.0)
    if any(curves) or (mark_crossings and ax.collections):
        ax.legend()
    return ax


# --------------------------------------------------------------------------- ERR cascade


def err_cascade_table(labels, *, max_grade: float | None = None, p: float = 1.0) -> pd.DataFrame:
    """The ERR cascade of one ranking, rank by rank (the numbers :func:`err_cascade` draws).

    The user reads rank i and stops there, satisfied, with probability
    theta_i = (2**rel_i - 1) / 2**max_grade; otherwise goes on with probability ``p``
    (Chapelle, Metzler, Zhang & Grinspan, "Expected reciprocal rank for graded relevance",
    CIKM 2009; with ``p``: V. Efimov's guide, after Ilya Markov's lecture).

    Returns
    -------
    pandas.DataFrame
        Index ``rank`` (1, 2, ...); columns ``label``, ``satisfaction`` (theta_i), ``reach``
        (p**(i-1) * prod_{j<i} (1 - theta_j): the chance the user reads rank i), ``stop``
        (reach * theta_i: the chance the user stops there satisfied; with ``p < 1`` users
        also leave unsatisfied), ``contribution`` (stop / i).
        The contributions, added in rank order, are :func:`rankkit.err` to the last bit.

    Examples
    --------
    >>> err_cascade_table([2, 0, 1], max_grade=2).round(4)
          label  satisfaction   reach   stop  contribution
    rank
    1       2.0          0.75  1.0000  0.750        0.7500
    2       0.0          0.00  0.2500  0.000        0.0000
    3       1.0          0.25  0.2500  0.0625        0.0208
    """
    from .metrics._numerics import exp2
    from .metrics.graded import err

    r = as_rankings(labels)
    if not r.scalar:
        raise ValueError(f"labels must be one ranking (1-D), got shape {r.labels.shape}")
    err(labels, max_grade=max_grade, p=p)  # validates labels, max_grade and p as ERR does
    p = float(p)
    top = max(r.ideal.max(initial=0.0), r.labels.max(initial=0.0)) if max_grade is None else float(max_grade)
    grades = r.labels[0]
    n = grades.size
    satisfaction = (exp2(grades) - 1.0) / exp2(np.float64(top))
    # chance of reading rank i, ignoring p: prod_{j<i} (1 - theta_j), as rankkit.err builds it
    unsatisfied = np.concatenate([[1.0], np.cumprod(1.0 - satisfaction[:-1])]) if n else np.zeros(0)
    stop_without_p = satisfaction * unsatisfied
    persistence = powers(p, n)
    ranks = np.arange(1, n + 1, dtype=np.float64)
    return pd.DataFrame(
        {
            "label": grades,
            "satisfaction": satisfaction,
            "reach": unsatisfied * persistence,
            "stop": stop_without_p * persistence,
            "contribution": stop_without_p * (persistence / ranks),
        },
        index=pd.Index(np.arange(1, n + 1), name="rank"),
    )


def err_cascade(labels, *, max_grade: float | None = None, p: float = 1.0, ax=None):
    """The ERR cascade as a figure: per rank, the chance the user reaches it, stops there,
    and what that adds to ERR.

    ERR = sum_i (1 / i) * theta_i * prod_{j<i} (1 - theta_j) * p**(i-1): the expected reciprocal
    of the rank where the user stops (Chapelle et al. 2009; see :func:`err_cascade_table`
    for the model and the numbers).

    Parameters
    ----------
    labels : 1-D array-like
        Grades of one ranking, in rank order.
    max_grade : float or None, default=None
        The grade of R = 1 - 2**-max_grade, as in :func:`rankkit.err` (None: the largest
        label given).
    p : float in (0, 1], default=1.0
        Probability of going on after an unsatisfying document.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        Three bar groups per rank: ``ax.containers[0]`` reach (label
        ``"P(user reaches rank i)"``, sky blue), ``[1]`` stop (``"P(user is satisfied at rank i)"``,
        vermillion), ``[2]`` contribution to ERR (``"contribution to ERR = stop / i"``, blue),
        which is not a probability: the y axis says "probability (reach, stop), or
        contribution to ERR". The heights are ``container.datavalues``. The title gives
        ERR, equal to :func:`rankkit.err`.

    Examples
    --------
    >>> ax = err_cascade([2, 0, 1], max_grade=2)
    >>> [c.datavalues.round(4).tolist() for c in ax.containers]
    [[1.0, 0.25, 0.25], [0.75, 0.0, 0.0625], [0.75, 0.0, 0.0208]]
    >>> ax.get_title()
    'ERR cascade: ERR = 0.7708, the sum of the contributions'
    """
    from matplotlib.ticker import MaxNLocator

    table = err_cascade_table(labels, max_grade=max_grade, p=p)
    total = float(np.cumsum(table["contribution"].to_numpy())[-1]) if len(table) else 0.0
    ax = _axes(ax)
    x = table.index.to_numpy()
    width = 0.27
    ax.bar(x - width, table["reach"], width, color=PALETTE[5], linewidth=0, label="P(user reaches rank i)")
    ax.bar(x, table["stop"], width, color=_VERMILLION, linewidth=0, label="P(user is satisfied at rank i)")
    ax.bar(x + width, table["contribution"], width, color=_BLUE, linewidth=0,
           label="contribution to ERR = stop / i")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("rank i")
    ax.set_ylabel("probability (reach, stop), or contribution to ERR")
    ax.set_ylim(0.0, 1.05)
    ax.set_title(f"ERR cascade: ERR = {total:.4f}, the sum of the contributions")
    ax.legend(loc="upper right")
    return ax


# --------------------------------------------------------------------------- gains and discounts


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
    from .metrics._numerics import exp2

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
    fig, (left, right) = _axes_pair(ax)
    gains = {"linear: g(rel) = rel": grades, "exponential: g(rel) = 2^rel − 1": exp2(grades) - 1.0}
    _draw_panel(left, grades, gains, "relevance label rel", "gain g(rel)", "Gain of a relevance label")
    ranks = np.arange(1, int(depth) + 1, dtype=np.float64)
    _draw_panel(right, ranks, _discount_curves(int(depth), bases_arr), "rank i", "discount",
                "Discount of a rank (JK: 1 / log_b(i) from rank b on, 1 before)")
    right.set_ylim(0.0, 1.05)
    return fig


def _discount_curves(depth: int, bases: np.ndarray) -> dict[str, np.ndarray]:
    """label -> discount at ranks 1..depth: the standard one, then Järvelin-Kekäläinen's per base."""
    from .metrics._numerics import discounts, log2

    ranks = np.arange(1, depth + 1, dtype=np.float64)
    curves = {STANDARD_DISCOUNT: discounts(depth)}
    for b in bases:
        log_b = log2(ranks) / log2(np.array([b]))[0]
        curves[jk_discount_label(b)] = np.where(ranks < b, 1.0, 1.0 / np.where(ranks < b, 1.0, log_b))
    return curves


def _draw_panel(ax, x: np.ndarray, curves: dict, xlabel: str, ylabel: str, title: str) -> None:
    """One line per curve (label -> y at x), styled by :func:`system_styles` of the labels."""
    from matplotlib.ticker import MaxNLocator

    styles = _series_kwargs({name: x.size for name in curves})
    for name, y in curves.items():
        ax.plot(x, y, label=name, **styles[name])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend()


# --------------------------------------------------------------------------- ROC


def _roc_points(labels: np.ndarray, scores: np.ndarray, rel: float) -> tuple[np.ndarray, np.ndarray]:
    """(FPR, TPR) at every distinct score threshold, from (0, 0), highest score first."""
    positive = labels >= rel
    order = np.argsort(-scores, kind="stable")
    s, pos = scores[order], positive[order]
    last_of_group = np.flatnonzero(np.r_[s[1:] != s[:-1], True])
    tp = np.cumsum(pos)[last_of_group]
    fp = (last_of_group + 1) - tp
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    return np.r_[0.0, fp / n_neg], np.r_[0.0, tp / n_pos]


def roc_curve(labels, scores, *, rel: float = 1, colors=None, ax=None):
    """ROC curve of a scorer (or several), with the AUC in the legend and title.

    Sorting by score, each distinct score is a threshold: the true-positive rate
    (positives above it / positives) against the false-positive rate (negatives above it
    / negatives). The area under it is the AUC, the fraction of (positive, negative) pairs
    in the right order (Wang Shusen, 相关性的评价指标, http://wangshusen.github.io/).

    Parameters
    ----------
    labels : 1-D array-like
        Labels; label >= rel is positive.
    scores : 1-D array-like, or dict name -> 1-D array-like
        Scores (higher = more relevant) of one scorer, or of several, each drawn as a curve.
    rel : float, default=1
    colors : mapping name -> colour, optional
        By default :func:`system_styles`, which also gives each curve its marker and line
        style (a later curve drawn dashed over an earlier, solid one).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None (9.6 x 4.8 inches for several scorers, whose
        legend sits beside the axes).

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[i]``: scorer i's (FPR, TPR) from (0, 0) to (1, 1), one point per
        distinct score (sklearn's ``roc_curve(..., drop_intermediate=False)``), labelled
        ``"<name> (AUC = 0.xxxx)"`` (``"ROC (AUC = ...)"`` for one unnamed scorer); the last
        line is the chance diagonal. AUC is :func:`rankkit.auc` (ties count 1/2).

    Examples
    --------
    >>> ax = roc_curve([1, 0, 1, 0], [0.9, 0.8, 0.4, 0.1])
    >>> ax.lines[0].get_xydata().tolist()
    [[0.0, 0.0], [0.0, 0.5], [0.5, 0.5], [0.5, 1.0], [1.0, 1.0]]
    >>> ax.lines[0].get_label(), ax.get_title()
    ('ROC (AUC = 0.7500)', 'ROC curve: AUC = 0.7500')
    """
    from .metrics.pairwise import auc

    rel = check_rel(rel)
    lab = np.asarray(labels, dtype=np.float64)
    if lab.ndim != 1 or lab.size == 0:
        raise ValueError(f"labels must be one non-empty 1-D list, got shape {lab.shape}")
    check_finite(lab, "labels")
    positive = lab >= rel
    if positive.all() or not positive.any():
        raise ValueError(f"labels must hold both positives (label >= {rel:g}) and negatives for a ROC curve")
    named = _named(scores, "scores", ())
    curves = {}
    for name, sc in named.items():
        where = f"scores[{name!r}]" if name else "scores"
        arr = np.asarray(sc, dtype=np.float64)
        if arr.shape != lab.shape:
            raise ValueError(f"{where} must have the shape of labels {lab.shape}, got {arr.shape}")
        check_finite(arr, where)
        curves[name] = (*_roc_points(lab, arr, rel), float(auc(lab, arr, rel=rel)))
    styles = _series_kwargs({name: fpr.size for name, (fpr, _, _) in curves.items()}, colors, markersize=5)
    # several curves: a wider new figure, so the legend beside the square axes squeezes nothing
    ax = _axes(ax, figsize=(9.6, 4.8) if len(curves) > 1 else None)
    for name, (fpr, tpr, area) in curves.items():
        ax.plot(fpr, tpr, label=f"{name or 'ROC'} (AUC = {area:.4f})", **styles[name])
    ax.plot([0, 1], [0, 1], color=_REFERENCE_LIGHT, linestyle=":", label="chance (AUC = 0.5)")
    ax.set_xlabel("false-positive rate (negatives above the threshold)")
    ax.set_ylabel("true-positive rate (positives above the threshold)")
    if len(curves) == 1:
        ax.set_title(f"ROC curve: AUC = {next(iter(curves.values()))[2]:.4f}")
    else:
        ax.set_title("ROC curves (AUC in the legend)")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal")
    if len(curves) > 1:  # several curves reach the lower right: the legend beside the axes
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    else:
        ax.legend(loc="lower right")
    return ax


# --------------------------------------------------------------------------- MRR top-k


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
    reached = int(np.count_nonzero(mrr >= target - 1e-12))  # decreasing: a prefix reaches it
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
    hit = np.flatnonzero(values[order] >= target - 1e-12)
    return int(ks[order][hit[0]]) if hit.size else None


def mrr_top_k(
    ks=range(1, 101),
    *,
    systems=None,
    target: float | None = None,
    highlight=SOURCE_002_KS,
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
    highlight : iterable of int, default=(3, 5, 10)
        Cutoffs marked and annotated on the uniform curve (the notes' 0.611, 0.456,
        0.293); ``()`` for none.
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
        ``"uniform reaches target up to k = K"``, dark grey, dotted). ``ax.collections[0]``
        holds the highlighted (k, MRR) points, ``ax.texts`` their labels, each placed where
        it crosses no line (see the Examples); with ``target`` and ``systems``, one further
        collection per system that reaches the target holds its (smallest k, target)
        point, in the system's colour and marker (label ``"<name>: smallest k reaching
        target = K"``). With several lines the legend sits outside the axes, so it covers
        neither curves nor labels.

        Two panels: ``fig.axes[0]`` holds the uniform curve, its highlighted points and
        labels, the target and uniform-depth lines (in that order); ``fig.axes[1]`` the
        systems' lines, then the target line and the systems' smallest-k points.

    Examples
    --------
    >>> ax = mrr_top_k()
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
    styles = _series_kwargs({name: k.size for name, (k, _) in system_curves.items()}, colors)
    largest_system_k = max([int(k.max()) for k, _ in system_curves.values()], default=1)

    if two_panels:
        fig, (left, right) = _axes_pair(ax)
    else:
        left = right = _axes(ax)  # one panel: everything on it
    left.plot(ks, uniform_mrr(ks), color=_REFERENCE_LIGHT, linewidth=2.5, label="answer uniform in top k")
    if not two_panels:
        _draw_systems(left, system_curves, styles)
    labels = _mark_highlights(left, highlight)
    if target is not None:
        depth = uniform_k_for_mrr(target)
        left.axhline(target, label=f"target MRR = {target:g}", **_TARGET_LINE)
        left.axvline(depth, color=_REFERENCE, linestyle=":", linewidth=1.2,
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


#: The target line of :func:`mrr_top_k`: dark grey, dashed, no marker (the systems' curves
#: have markers and Okabe–Ito colours; the uniform curve is a thick light grey).
_TARGET_LINE = {"color": _REFERENCE, "linestyle": (0, (6, 3)), "linewidth": 1.3}

#: Where a label may sit, tried in order: (offset in points, ha, va). Next to its point the
#: label clears a falling curve above-right or below-left.
_LABEL_SPOTS = (
    ((7, 7), "left", "bottom"), ((-7, -7), "right", "top"), ((7, -7), "left", "top"),
    ((-7, 7), "right", "bottom"), ((12, 22), "left", "bottom"), ((-12, -22), "right", "top"),
    ((12, -22), "left", "top"), ((-12, 22), "right", "bottom"),
)


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
    """Move each label to the first of :data:`_LABEL_SPOTS` where its text (with 3 pixels to
    spare) crosses no line and no marker of ``ax``, no label placed before it and no legend,
    inside the axes; where no spot is clear, to the one with fewest crossings. Lays the
    figure out once (``draw_without_rendering``), so it sees the final axes size."""
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
        wide = box.padded(3)
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
    """Each system's smallest k reaching ``target``, on the target line: a larger ring of the
    system's marker in its colour, so the curve's own point there shows through (none for a
    system that never reaches it). One collection per system; later systems get smaller
    rings, so equal k stay visible."""
    order = {name: i for i, name in enumerate(sorted(system_curves))}
    for name, (k, y) in system_curves.items():
        first = smallest_k_for_mrr(pd.Series(y, index=k), target)
        if first is None:
            continue
        style, i = styles[name], order[name]
        ax.scatter([first], [target], marker=style["marker"], facecolors="none", edgecolors=style["color"],
                   linewidths=2.0, s=170 - 35 * min(i, 3), zorder=4 + i / 100,
                   label=f"{name}: smallest k reaching target = {first}")


def _format_k_axes(panels: list, logx: bool | None) -> None:
    """k axes of the MRR panels: logarithmic when asked, or (None) when the largest k of the
    panel exceeds 20 (the annotated small k stay readable); else whole-number ticks."""
    from matplotlib.ticker import LogLocator, MaxNLocator, StrMethodFormatter

    for axis, largest in panels:
        if (largest > 20 if logx is None else bool(logx)):
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
