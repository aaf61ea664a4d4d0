"""Per-query differences between two systems: a sorted bar per query, gains and losses."""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.collections import PolyCollection
from matplotlib.container import BarContainer
from matplotlib.patches import Rectangle

from .._validation import check_finite
from ..ops.numerics import query_mean
from .style import BLUE, GREY, VERMILLION, axes_or_new

__all__ = ["per_query_differences"]

#: Query ids named in an error message about queries missing on one side, at most.
_LISTED_IDS = 20


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


def _difference(system: pd.Series, baseline: pd.Series | None) -> pd.Series:
    """``system - baseline`` aligned by query id, in ``system``'s order (``system`` itself
    without a baseline); a ValueError naming the queries scored on one side only."""
    if baseline is None:
        return system
    only_system = system.index.difference(baseline.index)
    only_baseline = baseline.index.difference(system.index)
    if len(only_system) or len(only_baseline):
        parts = []
        if len(only_system):
            parts.append(f"missing from baseline: {only_system.tolist()[:_LISTED_IDS]}")
        if len(only_baseline):
            parts.append(f"missing from system: {only_baseline.tolist()[:_LISTED_IDS]}")
        raise ValueError("system and baseline must score the same queries; " + "; ".join(parts))
    return system - baseline.reindex(system.index)


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
    diff = _difference(system_s, None if baseline is None else _as_series(baseline, "baseline"))
    if isinstance(max_labels, (bool, np.bool_)) or not isinstance(max_labels, numbers.Integral) or max_labels < 0:
        raise ValueError(f"max_labels must be a non-negative integer, got {max_labels!r}")
    values = diff.to_numpy()
    order = np.argsort(-values, kind="stable")
    values = values[order]
    ids = [str(q) for q in diff.index[order]]
    colors = np.where(values > 0, BLUE, np.where(values < 0, VERMILLION, GREY))
    mean = float(query_mean(diff.to_numpy()))  # in the table's query order

    ax = axes_or_new(ax)
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
    # thousands of bars: drawn as one collection (ax.bar adds them one by one, slowly)
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
