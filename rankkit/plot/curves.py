"""Curves of one ranking or of several systems: precision-recall (interpolated and 11-point,
the raw saw-tooth with the AP area) and ROC with its AUC."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_finite, check_option, check_rel
from ..metrics.binary import ROUNDINGS, average_precision
from ..metrics.binary import pr_curve as pr_frame
from ..metrics.interpolation import interpolate_points, recall_cut
from ..metrics.pairwise import auc
from ..ops.numerics import query_mean, query_sum
from ..rankings import as_rankings
from .style import BLUE, REFERENCE_LIGHT, axes_or_new, legend_if_named, named_items, series_kwargs

__all__ = ["pr_curve", "pr_sawtooth", "roc_curve", "UNREACHED"]

# --------------------------------------------------------------------------- precision-recall

#: The choices of ``unreached`` in :func:`pr_curve`.
UNREACHED = ("keep", "cut", "grey")

#: The recall levels of the 11-point interpolated curve: 0, 0.1, ..., 1.
ELEVEN_POINTS = 11

#: A recall level within this of the largest recall a run reaches counts as reached (both are
#: rounded ratios).
_RECALL_SLACK = 1e-12

#: The size in inches of a new ROC figure of several scorers, whose legend sits beside the axes.
_ROC_FIGSIZE_WITH_LEGEND = (9.6, 4.8)


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
            levels = _levels(ELEVEN_POINTS)
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
    named = named_items(curves, "curves", (pd.DataFrame,))
    prepared = {name: _pr_points(name, curve, bool(interpolated), rounding) for name, curve in named.items()}
    styles = series_kwargs({name: points[0].size + 1 for name, points in prepared.items()}, colors)
    ax = axes_or_new(ax)
    for name, (recall, precision, kind, reach) in prepared.items():
        label = name or ("interpolated precision" if interpolated else "precision")
        if kind == "levels":
            if unreached != "keep":
                inside = recall <= reach + _RECALL_SLACK
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
    legend_if_named(ax, named)
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

    ax = axes_or_new(ax)
    ax.plot(recall, precision, marker="o", color=BLUE, label="precision at each rank")
    if shade_ap and hit.any():
        x = np.concatenate([[0.0], recall[hit]])
        y = np.concatenate([[precision[hit][0]], precision[hit]])
        ax.fill_between(x, y, step="pre", color=BLUE, alpha=0.2, linewidth=0)
        ax.plot(x, y, drawstyle="steps-pre", color=BLUE, linestyle="--", linewidth=1,
                label=f"AP = {ap:.4f} (area)")
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    title = "Precision-recall points of one ranking"
    ax.set_title(title + (f"; shaded: AP = {ap:.4f}" if shade_ap else f" (AP = {ap:.4f})"))
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.05)
    ax.legend(loc="best")  # a ranking whose first document is not relevant starts at (0, 0)
    return ax


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
    rel = check_rel(rel)
    lab = np.asarray(labels, dtype=np.float64)
    if lab.ndim != 1 or lab.size == 0:
        raise ValueError(f"labels must be one non-empty 1-D list, got shape {lab.shape}")
    check_finite(lab, "labels")
    positive = lab >= rel
    if positive.all() or not positive.any():
        raise ValueError(f"labels must hold both positives (label >= {rel:g}) and negatives for a ROC curve")
    named = named_items(scores, "scores", ())
    curves = {}
    for name, sc in named.items():
        where = f"scores[{name!r}]" if name else "scores"
        arr = np.asarray(sc, dtype=np.float64)
        if arr.shape != lab.shape:
            raise ValueError(f"{where} must have the shape of labels {lab.shape}, got {arr.shape}")
        check_finite(arr, where)
        curves[name] = (*_roc_points(lab, arr, rel), float(auc(lab, arr, rel=rel)))
    styles = series_kwargs({name: fpr.size for name, (fpr, _, _) in curves.items()}, colors, markersize=5)
    # several curves: a wider new figure, so the legend beside the square axes squeezes nothing
    ax = axes_or_new(ax, figsize=_ROC_FIGSIZE_WITH_LEGEND if len(curves) > 1 else None)
    for name, (fpr, tpr, area) in curves.items():
        ax.plot(fpr, tpr, label=f"{name or 'ROC'} (AUC = {area:.4f})", **styles[name])
    ax.plot([0, 1], [0, 1], color=REFERENCE_LIGHT, linestyle=":", label="chance (AUC = 0.5)")
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
