"""User models as figures: RBP as the persistence p sweeps (and where two rankings' curves
cross), and ERR's cascade rank by rank.

RBP follows Moffat & Zobel (ACM TOIS 2008), ERR Chapelle, Metzler, Zhang & Grinspan (CIKM
2009); their graded forms and figures follow V. Efimov, "Comprehensive Guide to Ranking
Evaluation Metrics" (Towards Data Science, 2023).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from functools import partial

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from .._validation import check_probability, check_rel
from ..metrics.graded import err, rbp
from ..ops.numerics import exp2, powers, query_mean
from ..rankings import as_rankings
from .style import BLUE, PALETTE, VERMILLION, axes_or_new, series_kwargs

__all__ = ["rbp_persistence", "rbp_crossings", "err_cascade", "err_cascade_table"]

# --------------------------------------------------------------------------- RBP sweep

#: The persistence values of the sweep unless ``ps`` is given, as (first, last, count) of
#: ``np.linspace``: 0.10, 0.11, ..., 0.99.
_DEFAULT_PS = (0.1, 0.99, 90)

#: Two RBP curves' crossing is refined by bisection to an interval this wide ...
_CROSSING_TOLERANCE = 1e-12
#: ... in at most this many halvings (enough from any grid interval inside (0, 1)).
_MAX_BISECTIONS = 200

#: Crossing labels sit this many points above or below their point ...
_CROSSING_LABEL_OFFSET = 30
#: ... above, whatever their turn, when the point is lower than this fraction of the highest
#: curve (no room below).
_LOW_POINT = 0.15


def _check_ps(ps) -> np.ndarray:
    if ps is None:
        ps = np.linspace(*_DEFAULT_PS)
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
    on the grid ``ps``, refined by bisection to :data:`_CROSSING_TOLERANCE` (a pair crossing
    twice between two grid points is not seen)."""
    curves = {name: _mean_rbp(v, ps) for name, v in values.items()}
    names = list(values)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:

            def gap(p: float, a=a, b=b) -> float:
                at = np.array([p])
                return float(_mean_rbp(values[a], at)[0] - _mean_rbp(values[b], at)[0])

            rows += [(a, b, p) for p in _sign_changes(np.sign(curves[a] - curves[b]), ps, gap)]
    frame = pd.DataFrame(rows, columns=["system_a", "system_b", "p"])
    frame["rbp"] = [float(_mean_rbp(values[a], np.array([p]))[0]) for a, _, p in rows]
    return frame


def _sign_changes(sign: np.ndarray, ps: np.ndarray, gap: Callable[[float], float]) -> list[float]:
    """The p where ``gap`` (whose sign on the grid ``ps`` is ``sign``) changes sign, in order:
    a grid point where it is 0 between neighbours of opposite signs, or a root between two
    grid points, found by :func:`_bisect`."""
    found = []
    for j in range(ps.size):
        if sign[j] == 0:  # on a grid point: a crossing if the neighbours disagree
            if 0 < j < ps.size - 1 and sign[j - 1] * sign[j + 1] < 0:
                found.append(float(ps[j]))
        elif j + 1 < ps.size and sign[j] * sign[j + 1] < 0:
            found.append(_bisect(gap, float(ps[j]), float(ps[j + 1]), sign[j]))
    return found


def _bisect(gap: Callable[[float], float], lo: float, hi: float, lo_sign: float) -> float:
    """The root of ``gap`` between ``lo`` (where its sign is ``lo_sign``) and ``hi``, halving
    the interval until it is :data:`_CROSSING_TOLERANCE` wide (deterministic)."""
    for _ in range(_MAX_BISECTIONS):
        mid = 0.5 * (lo + hi)
        if hi - lo <= _CROSSING_TOLERANCE or mid in (lo, hi):
            break
        g = gap(mid)
        if g == 0:
            return mid
        if np.sign(g) == lo_sign:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


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
    styles = series_kwargs({name: ps_arr.size for name in curves}, colors)

    ax = axes_or_new(ax)
    for name, y in curves.items():
        ax.plot(ps_arr, y, label=name or "RBP", **styles[name])
    title = "RBP as the persistence p grows"
    if mark_crossings:
        crossings = _crossings(values, np.unique(ps_arr))
        if len(crossings):
            _mark_crossings(ax, crossings, max(float(np.max(y)) for y in curves.values()))
            title += "; ● where two curves cross"
    ax.set_xlabel("persistence p (expected documents examined = 1 / (1 − p))")
    ax.set_ylabel(f"RBP (r = label / {max_grade:g})" if max_grade else f"RBP (relevant: label ≥ {rel:g})")
    ax.set_title(title)
    ax.set_xlim(0.0, 1.0)
    if any(curves) or (mark_crossings and ax.collections):
        ax.legend()
    return ax


def _mark_crossings(ax, crossings: pd.DataFrame, top: float) -> None:
    """Black dots at the (p, RBP) of :func:`rbp_crossings`, each labelled ``"p = 0.xxx"`` off
    the curves: alternately above and below in order of p (so that two crossings close
    together do not share a spot), above when too low for room below (``top``: the highest
    curve's largest RBP)."""
    ax.scatter(crossings["p"], crossings["rbp"], color="black", zorder=3, label="curves cross")
    order = np.argsort(np.argsort(crossings["p"].to_numpy(), kind="stable"))
    for i, p, y in zip(order, crossings["p"], crossings["rbp"]):
        above = i % 2 == 0 or y < _LOW_POINT * top
        offset = _CROSSING_LABEL_OFFSET if above else -_CROSSING_LABEL_OFFSET
        ax.annotate(f"p = {p:.3f}", xy=(p, y), xytext=(0, offset), textcoords="offset points",
                    ha="center", va="bottom" if above else "top",
                    arrowprops={"arrowstyle": "-", "color": "0.5", "linewidth": 0.8})


# --------------------------------------------------------------------------- ERR cascade

#: The width of each of the three bars per rank of :func:`err_cascade` (ranks are 1 apart).
_BAR_WIDTH = 0.27


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
    table = err_cascade_table(labels, max_grade=max_grade, p=p)
    total = float(np.cumsum(table["contribution"].to_numpy())[-1]) if len(table) else 0.0
    ax = axes_or_new(ax)
    x = table.index.to_numpy()
    width = _BAR_WIDTH
    ax.bar(x - width, table["reach"], width, color=PALETTE[5], linewidth=0, label="P(user reaches rank i)")
    ax.bar(x, table["stop"], width, color=VERMILLION, linewidth=0, label="P(user is satisfied at rank i)")
    ax.bar(x + width, table["contribution"], width, color=BLUE, linewidth=0,
           label="contribution to ERR = stop / i")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("rank i")
    ax.set_ylabel("probability (reach, stop), or contribution to ERR")
    ax.set_ylim(0.0, 1.05)
    ax.set_title(f"ERR cascade: ERR = {total:.4f}, the sum of the contributions")
    ax.legend(loc="upper right")
    return ax
