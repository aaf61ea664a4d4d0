"""A metric at several cutoffs: one line per system, k on the x axis."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from .._validation import check_finite
from .style import axes_or_new, legend_if_named, series_kwargs

__all__ = ["metric_at_k"]


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
    if not isinstance(include_zero, (bool, np.bool_)):
        raise ValueError(f"include_zero must be True or False, got {include_zero!r}")
    styles = series_kwargs({name: k.size for name, (k, _) in prepared.items()}, colors, marker=marker)
    label = _at_k(metric)
    ax = axes_or_new(ax)
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
    legend_if_named(ax, named)
    return ax


def _at_k(metric: str | None) -> str:
    """The axis label of a metric at cutoff k: "nDCG@k", "nDCG@k (exp gain)", "metric@k"."""
    if not metric:
        return "metric@k"
    name, sep, qualifier = str(metric).partition(" (")
    return f"{name}@k ({qualifier}" if sep and qualifier.endswith(")") else f"{metric}@k"
