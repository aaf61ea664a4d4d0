"""How many queries an experiment needs: the power of a two-sided paired t-test over
per-query differences, Sakai's topic set size design (T. Sakai, "Topic set size design",
Information Retrieval Journal 19(3), 256-283, 2016; "Laboratory Experiments in Information
Retrieval", Springer, 2018). :func:`queries_needed` and :func:`detectable_difference` are
public through :mod:`rankkit.stats`, whose ``compare(..., delta=...)`` reports both.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from ._validation import check_probability, is_int
from .ops.numerics import query_mean, query_sum

__all__ = ["queries_needed", "detectable_difference", "QueriesNeeded"]


@dataclass(frozen=True)
class QueriesNeeded:
    """What a paired t-test can detect: :func:`queries_needed`'s answer.

    Attributes
    ----------
    n_needed : int
        Queries a two-sided paired t-test needs to detect a mean difference ``delta``
        with probability ``power`` at level ``alpha`` (at least 2).
    delta : float
        The mean difference to detect, in the metric's units.
    sd : float
        Standard deviation (ddof=1) of the per-query differences it was computed from.
    n_now : int
        Queries in those differences.
    detectable : float
        The smallest mean difference the test detects with probability ``power`` on
        ``n_now`` queries.
    alpha, power : float
        Significance level and power asked for.
    """

    n_needed: int
    delta: float
    sd: float
    n_now: int
    detectable: float
    alpha: float
    power: float

    def __repr__(self) -> str:
        return (f"QueriesNeeded(n_needed={self.n_needed}, delta={self.delta:g}, sd={self.sd:.4g}, "
                f"n_now={self.n_now}, detectable={self.detectable:.4g}, alpha={self.alpha:g}, "
                f"power={self.power:g})")

    def __str__(self) -> str:
        return (f"to detect a difference of {self.delta:g} (sd {self.sd:.4g}) with power {self.power:g} "
                f"at alpha = {self.alpha:g}, a paired t-test needs {self.n_needed} queries; "
                f"with the {self.n_now} at hand it detects {self.detectable:.4g} or more")


def queries_needed(differences, delta: float, alpha: float = 0.05, power: float = 0.8) -> QueriesNeeded:
    """How many queries a paired t-test needs to detect a difference ``delta``, and the
    smallest difference it detects with the queries at hand.

    Sakai's t-test-based topic set size design (T. Sakai, "Topic set size design",
    Information Retrieval Journal 19(3):256-283, 2016, https://doi.org/10.1007/s10791-015-9273-z;
    and chapters 6-7 of his book "Laboratory Experiments in Information Retrieval:
    Sample Sizes, Effect Sizes, and Statistical Power", Springer, 2018): the power of
    the two-sided paired t-test on ``n`` queries, for differences of mean ``delta`` and
    standard deviation ``sd``, is ``P(|T| > t_{1-alpha/2, n-1})`` with ``T`` noncentral t
    with ``n - 1`` degrees of freedom and noncentrality ``sqrt(n) delta / sd``;
    ``n_needed`` is the smallest ``n >= 2`` at which it reaches ``power``, and
    ``detectable`` the ``delta`` at which it does so for ``n = len(differences)``.
    ``sd`` is the sample standard deviation of the given differences (a pilot or past
    experiment of the same two systems, or of similar ones).

    Parameters
    ----------
    differences : array-like of shape (n_queries,)
        Per-query differences of a metric between two systems (system - baseline),
        at least two, finite, not all equal.
    delta : float
        The mean difference worth detecting, in the metric's units (> 0).
    alpha : float in (0, 1), default=0.05
        Significance level of the two-sided test (per comparison: for a family of
        ``m`` comparisons under Bonferroni, pass ``alpha / m``).
    power : float in (0, 1), default=0.8
        Probability of detecting ``delta``; greater than ``alpha``.

    Returns
    -------
    QueriesNeeded
        ``n_needed``, ``delta``, ``sd``, ``n_now``, ``detectable``, ``alpha``, ``power``;
        ``str()`` of it is a sentence.

    Raises
    ------
    ValueError
        ``delta`` not a positive finite number; ``alpha`` or ``power`` outside (0, 1),
        or ``power <= alpha``; fewer than two differences, or non-finite ones; no spread
        (every difference equal: their standard deviation, 0, says nothing of the queries
        to come).

    Notes
    -----
    ``n_needed`` is statsmodels' ``TTestPower().solve_power(effect_size=delta / sd,
    alpha=alpha, power=power)`` rounded up (statsmodels is not used: the noncentral t
    of :mod:`scipy.stats` and Brent's root finder, :func:`scipy.optimize.brentq`), and
    ``detectable`` is ``sd`` times its ``solve_power(nobs=n_now, ...)``. The power is
    exact (both tails); the normal approximation ``((z_{1-alpha/2} + z_power) sd /
    delta)^2 + z_{1-alpha/2}^2 / 2`` (Guenther) is within a query up to some 100,000.
    Where the spread comes from differs from Sakai's design: it estimates a
    within-system variance from the topic-by-run matrices of past test collections
    (many runs), and his "Topic set size design for paired and unpaired data"
    (https://waseda.pure.elsevier.com/ja/publications/topic-set-size-design-for-paired-and-unpaired-data)
    recommends the unpaired versions, the variance of paired differences being hard to
    estimate in advance. Here it is the spread of the given differences of one pair:
    positively correlated systems, the usual case, have a smaller spread and need fewer
    queries. The answer is only as good as ``sd``, itself uncertain from few queries.

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([0.12, -0.05, 0.30, 0.02, -0.11, 0.08, 0.21, -0.02, 0.15, 0.04])
    >>> plan = queries_needed(d, delta=0.05)
    >>> plan
    QueriesNeeded(n_needed=51, delta=0.05, sd=0.1246, n_now=10, detectable=0.1241, alpha=0.05, power=0.8)
    >>> print(plan)
    to detect a difference of 0.05 (sd 0.1246) with power 0.8 at alpha = 0.05, a paired t-test needs 51 queries; with the 10 at hand it detects 0.1241 or more
    """  # noqa: E501 (a doctest line as print writes it)
    delta = check_delta(delta)
    alpha, power = check_levels(alpha, power)
    d, sd = _differences_spread(differences)
    return QueriesNeeded(n_needed=queries_for_effect(delta / sd, alpha, power), delta=delta, sd=sd,
                         n_now=d.size, detectable=sd * detectable_effect(d.size, alpha, power),
                         alpha=alpha, power=power)


def detectable_difference(differences, alpha: float = 0.05, power: float = 0.8, *,
                          n_queries: int | None = None) -> float:
    """The smallest mean difference a two-sided paired t-test detects with probability
    ``power`` at level ``alpha``, at the spread of ``differences``.

    The ``delta`` at which the power of :func:`queries_needed` reaches ``power``: the
    minimum detectable difference of Sakai's topic set size design read the other way
    round (for a given number of topics).

    Parameters
    ----------
    differences : array-like of shape (n,)
        Per-query differences, as for :func:`queries_needed`.
    alpha, power : float in (0, 1)
        As for :func:`queries_needed`.
    n_queries : int or None, default=None
        Number of queries of the experiment (at least 2); None: ``len(differences)``.

    Returns
    -------
    float
        In the metric's units; statsmodels' ``TTestPower().solve_power(nobs=n_queries,
        alpha=alpha, power=power)`` times the standard deviation of ``differences``.

    Examples
    --------
    >>> d = [0.12, -0.05, 0.30, 0.02, -0.11, 0.08, 0.21, -0.02, 0.15, 0.04]
    >>> round(detectable_difference(d), 4), round(detectable_difference(d, n_queries=200), 4)
    (0.1241, 0.0248)
    """
    alpha, power = check_levels(alpha, power)
    d, sd = _differences_spread(differences)
    if n_queries is None:
        n_queries = d.size
    elif not is_int(n_queries) or n_queries < 2:
        raise ValueError(f"n_queries must be an integer of at least 2 (a t-test needs two queries), "
                         f"got {n_queries!r}")
    return float(sd * detectable_effect(int(n_queries), alpha, power))


def check_delta(delta) -> float:
    if isinstance(delta, (bool, np.bool_)) or not isinstance(delta, numbers.Real) or not (
            np.isfinite(delta) and delta > 0):
        raise ValueError("delta must be a positive finite number (the mean difference worth detecting, "
                         f"in the metric's units), got {delta!r}")
    return float(delta)


def check_levels(alpha, power) -> tuple[float, float]:
    alpha = check_probability(alpha, "alpha", high_open=True)
    power = check_probability(power, "power", high_open=True)
    if power <= alpha:
        raise ValueError(f"power must be greater than alpha (with no difference at all a two-sided test "
                         f"rejects with probability alpha), got power={power!r}, alpha={alpha!r}")
    return alpha, power


def _differences_spread(differences) -> tuple[np.ndarray, float]:
    """The differences as a 1-D float array, and their sample standard deviation (> 0)."""
    try:
        d = np.asarray(differences, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("differences must be numbers (per-query differences of a metric)") from None
    if d.ndim != 1:
        raise ValueError(f"differences must be one-dimensional (one per query), got shape {d.shape}")
    if d.size < 2:
        raise ValueError(f"differences must hold at least two per-query differences to estimate their "
                         f"spread, got {d.size}")
    if not np.all(np.isfinite(d)):
        raise ValueError(f"differences must be finite, got {float(d[~np.isfinite(d)][0])!r} "
                         f"at position {int(np.flatnonzero(~np.isfinite(d))[0])}")
    sd = float(spread(d[None, :], query_mean(d[:, None]))[0])
    if sd == 0 or np.all(d == d[0]):  # equal values: their mean may differ from them in its last bit
        same = "0 (the two systems score alike on every query)" if d[0] == 0 else repr(float(d[0]))
        raise ValueError(f"differences have no spread: every one is {same}, so their standard deviation "
                         "is 0 and says nothing about how the difference varies over other queries; "
                         "use the differences of queries where the systems disagree by varying amounts")
    return d, sd


def t_power(effect: float, n: float, alpha: float) -> float:
    """Power of the two-sided one-sample (paired) t-test on ``n`` values at standardized
    effect ``effect``: both tails of the noncentral t (scipy's ``nctdtr``, as statsmodels'
    ``ttest_power``)."""
    df = n - 1
    crit = special.stdtrit(df, 1 - alpha / 2)
    nc = effect * np.sqrt(n)
    # scipy's nctdtr gives NaN far in a tail (below 1e-20; for any crit once nc > 1e9):
    # the lower tail is then taken by symmetry, and what stays NaN is a tail of ~0.
    upper = special.nctdtr(df, nc, crit)
    lower = special.nctdtr(df, nc, -crit)
    if np.isnan(lower):
        lower = 1.0 - special.nctdtr(df, -nc, crit)
    return float(1.0 - np.nan_to_num(upper) + np.nan_to_num(lower))


def queries_for_effect(effect: float, alpha: float, power: float) -> int:
    """The smallest integer n >= 2 at which the power reaches ``power`` (it grows with n)."""
    if t_power(effect, 2, alpha) >= power:
        return 2
    normal = ((special.ndtri(1 - alpha / 2) + special.ndtri(power)) / effect) ** 2
    high = max(4.0, 2.0 * normal + 4.0)  # the t-test needs a little more than the normal test
    while t_power(effect, high, alpha) < power:
        high *= 2.0
    root = optimize.brentq(lambda n: t_power(effect, n, alpha) - power, 2.0, high, xtol=1e-9)
    n = max(2, math.ceil(root))
    while n > 2 and t_power(effect, n - 1, alpha) >= power:  # the root's last bits
        n -= 1
    while t_power(effect, n, alpha) < power:
        n += 1
    return n


def detectable_effect(n: int, alpha: float, power: float) -> float:
    """The standardized effect at which the power on ``n`` values reaches ``power``."""
    high = 2.0 * (special.ndtri(1 - alpha / 2) + special.ndtri(power)) / np.sqrt(n) + 1.0
    while t_power(high, n, alpha) < power:
        high *= 2.0
    return float(optimize.brentq(lambda e: t_power(e, n, alpha) - power, 0.0, high, xtol=1e-14, rtol=1e-12))


def spread(d: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Sample standard deviation (ddof=1) of each row of ``d`` around its ``mean``, summed
    in query order. The deviations are scaled by a power of two near the largest before
    squaring: exact, and no square of a tiny deviation (1e-157) is lost to underflow."""
    deviation = d - mean[:, None]
    scale = np.ldexp(1.0, np.frexp(np.abs(deviation).max(axis=1))[1])
    scaled = deviation / scale[:, None]
    return scale * np.sqrt(query_sum((scaled * scaled).T) / (d.shape[1] - 1))
