"""Comparing systems: paired significance tests, confidence intervals, effect sizes.

:func:`compare` takes per-query scores of several systems (runs scored by
:func:`rankkit.evaluate`, or per-query tables you already have) and returns one tidy
row per comparison and metric: the mean of each system, the mean paired difference
to a baseline (or between every pair of systems), its confidence interval, the
p-value of a paired test, the p-value corrected for multiple comparisons, the
paired effect size and a significance flag.

rankkit's own paired tests (two-sided, on the per-query differences ``d = system - baseline``):

* ``"t"``: Student's paired t-test, as :func:`scipy.stats.ttest_rel` (same p-value
  and t-interval to ~1e-15; rankkit sums in query order, see ``rankkit.ops.numerics``).
* ``"randomization"``: the paired randomization (sign-flip) test of Fisher, as used
  for IR by Smucker, Allan & Carterette (CIKM 2007): under H0 each difference is as
  likely to be ``+d_i`` as ``-d_i``. It is the test :func:`scipy.stats.permutation_test`
  runs with ``permutation_type="samples"``; rankkit runs it in numpy, in batches, with
  one sign matrix shared by every comparison (an exact matrix product), which is what makes
  5 runs x 10,000 queries x 3 metrics x 10,000 resamples take seconds.
* ``"bootstrap"``: the bootstrap of the mean difference (Efron & Tibshirani 1993),
  as :func:`scipy.stats.bootstrap` computes it (same resampling stream for the same
  ``numpy.random.Generator``, same BCa formulas).

Besides these, ``test="wilcoxon"`` (:func:`scipy.stats.wilcoxon`), ``test="tukey"``
(:func:`scipy.stats.tukey_hsd`, all systems at once) or any function returning a p-value;
the intervals of those are the t-interval (Tukey: its own). Corrections take statsmodels'
names (:func:`adjust_pvalues`).

:func:`queries_needed` says how many queries a paired t-test needs to detect a given
difference at the spread of observed per-query differences, and :func:`detectable_difference`
the smallest difference it detects with a given number of queries (Sakai's topic set size
design); ``compare(..., delta=...)`` adds both to each row.

:func:`adjust_pvalues` applies a multiple-comparison correction to any p-values. The
renderers of a :func:`compare` table (:func:`~rankkit.report.to_markdown`,
:func:`~rankkit.report.to_latex`, :func:`~rankkit.report.to_text`, :func:`~rankkit.report.style`
for Jupyter, :func:`~rankkit.report.pyterrier_view`) live in :mod:`rankkit.report`; they are
importable from here too (``rankkit.stats.to_markdown``).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import special, stats

from ._validation import check_k, check_option, check_probability, is_int
from .evaluation.score_table import ScoreTable
from .evaluation.scoring import evaluate, expand_metrics
from .evaluation.settings import QUERY_POLICIES
from .io.keys import trec_order
from .io.readers import read_qrels
from .metrics.weighting import all_equal, query_weights, weighted_mean
from .ops.numerics import exact_matmul, query_mean, query_sum
from .power import (
    QueriesNeeded,
    check_delta,
    check_levels,
    detectable_difference,
    detectable_effect,
    queries_for_effect,
    queries_needed,
    spread,
)

# The renderers of a compare() table and its columns live in rankkit.report;
# rankkit.stats.to_markdown, COLUMNS and the others stay importable from here, where compare() is.
from .report import COLUMNS, LAYOUTS, ComparisonTable, pyterrier_view, style, to_latex, to_markdown, to_text  # noqa: F401

TESTS = ("t", "randomization", "bootstrap", "wilcoxon", "tukey")
#: Corrections by statsmodels' names (``multipletests``); ``bh`` and ``by`` are short for
#: ``fdr_bh`` and ``fdr_by``, ``hochberg`` for ``simes-hochberg``.
CORRECTIONS = ("holm", "bonferroni", "sidak", "holm-sidak", "simes-hochberg", "hochberg", "hommel",
               "fdr_bh", "bh", "fdr_by", "by", "none")
BOOTSTRAP_CIS = ("bca", "percentile")

# Elements of a resampling matrix generated at once (float64: 32 MB).
_BATCH_ELEMENTS = 1 << 22
# Relative tolerance of "as extreme as observed" in the resampling tests: sums of n terms
# agree to ~n * eps, so resampled sums (or means) theoretically equal to the observed one
# (the identity flip, say) still count as extreme.
_EXTREME_TOLERANCE = 1e-10
# (resample, query) cells counted by one bincount in the bootstrap: a few resamples at a
# time, so that the counts stay in the CPU cache.
_BINCOUNT_CELLS = 1 << 16


# --------------------------------------------------------------------------- compare


def compare(
    qrels,
    runs: Mapping,
    metrics: str | Sequence[str] | None = None,
    *,
    baseline=None,
    test: str = "t",
    correction: str | None = "auto",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed=0,
    queries: str = "run",
    ties: str = "docno",
    bootstrap_ci: str = "bca",
    columns: Mapping[str, str] | None = None,
    delta: float | None = None,
    power: float = 0.8,
    weights=None,
) -> pd.DataFrame:
    """Compare systems on the same queries: paired test, interval, effect size.

    For each metric and each comparison (every system against ``baseline``, or every
    pair of systems), the per-query differences ``d_q = system_q - baseline_q`` over
    the queries both score are tested against "no difference" (two-sided).

    Parameters
    ----------
    qrels : qrels accepted by :func:`rankkit.evaluate`, or None
        Judgments; may be None when every entry of ``runs`` is a per-query table.
    runs : mapping of name -> run or per-query table
        At least two systems. A value is either a run (anything :func:`rankkit.evaluate`
        accepts), scored here with ``evaluate(qrels, run, metrics, ties=ties,
        queries=queries)``, or a per-query table: a DataFrame indexed by query id with
        one column per metric (what ``evaluate`` returns). A DataFrame is taken as a
        per-query table when it has a column named like one of ``metrics``
        (it must then have them all); a model's
        :class:`~rankkit.evaluation.score_table.ScoreTable` (:func:`rankkit.evaluate_scores`)
        is its per-query table, without the ``all`` row (a frame with one is refused);
        any other value is taken as a run.
    metrics : str or sequence of str, or None
        Metric specs (``"nDCG@10"``, ``"AP"``, ...); for per-query tables, the column
        names. None: every column of the first per-query table (tables only).
    baseline : name or None, default=None
        The system every other system is compared with (one row per other system).
        None compares every pair: for systems listed ``A, B, C`` the rows are B vs A,
        C vs A and C vs B (``diff = system - baseline``, the later against the earlier).
    test : {"t", "randomization", "bootstrap", "wilcoxon", "tukey"} or callable, default="t"
        Paired t-test (:func:`scipy.stats.ttest_rel`); paired randomization (sign-flip)
        test; bootstrap test; Wilcoxon signed-rank test (:func:`scipy.stats.wilcoxon`,
        its defaults); Tukey's HSD over all systems at once (:func:`scipy.stats.tukey_hsd`:
        not paired, its p-values and intervals already cover the whole family, so it
        takes no correction: ``correction`` is then "none", by default, and any other is
        refused); or a function ``test(system, baseline) -> p-value``
        of two aligned arrays of per-query values. See the module docstring and Notes.
    correction : str or None, default="auto"
        Multiple-comparison correction applied per metric, across all comparisons of
        that metric in the table (the family is "all systems on this metric"), by
        statsmodels' names: ``holm``, ``bonferroni``, ``sidak``, ``holm-sidak``,
        ``simes-hochberg``, ``hommel``, ``fdr_bh``, ``fdr_by`` (see
        :func:`adjust_pvalues`). None is the same as ``"none"``. ``"auto"``: ``holm``,
        or ``"none"`` with ``test="tukey"`` (which corrects for the family itself).
    alpha : float in (0, 1), default=0.05
        Significance level; intervals are at confidence ``1 - alpha``.
    n_resamples : int, default=10_000
        Random sign flips (randomization) or bootstrap resamples. With randomization,
        if ``2**n_queries <= n_resamples`` all ``2**n_queries`` sign vectors are
        enumerated and the p-value is exact (as scipy does).
    seed : int, numpy.random.Generator or None, default=0
        Seed of the resampling; the same seed and inputs give the same table.
        All comparisons of one call share the same resamples, so a comparison's result
        does not depend on which other systems are in the table.
    queries : {"run", "qrels"}, default="run"
        ``"run"``: every system must score exactly the same queries, otherwise a
        ``ValueError`` names the queries missing from a system. ``"qrels"``: a missing
        query scores 0 (trec_eval ``-c``): runs are scored with ``queries="qrels"``,
        and per-query tables are aligned on the union of their queries, missing
        values filled with 0.0.
    ties : str, default="docno"
        Tie policy passed to :func:`rankkit.evaluate` (runs only).
    bootstrap_ci : {"bca", "percentile"}, default="bca"
        Bootstrap interval: bias-corrected and accelerated (scipy's default) or
        percentile.
    columns : dict, optional
        Other column names of the qrels and runs, passed to :func:`rankkit.evaluate`
        (``{"topic": "query_id", "sim": "score"}``).
    delta : float or None, default=None
        A mean difference worth detecting (> 0, in the metrics' units). Given, each row
        also says how many queries a paired t-test needs to detect it and the smallest
        difference it detects with the queries compared (:func:`queries_needed`, at
        the spread of that row's differences, at ``alpha`` and ``power``, whatever
        ``test`` is). None: the table is without them; there is no default, as only the
        user knows what difference matters (the observed one would make the answer a
        function of the p-value alone).
    power : float in (alpha, 1), default=0.8
        Power of those two columns (read only with ``delta``).
    weights : pandas Series or dict by query id, or None, default=None
        The weight of each query (finite, >= 0, not all 0; every query compared needs one).
        ``mean``, ``baseline_mean`` and ``diff`` become weighted means; ``test="t"`` is the
        t-test of the weighted mean difference with the weights as frequency weights scaled
        to sum to the number of queries of positive weight n (statsmodels'
        ``DescrStatsW(d, weights=w * n / sum(w)).ttest_mean(0)``: mean ``sum w d / n``,
        variance ``sum w (d - mean)**2 / (n - 1)``, n - 1 degrees of freedom; equal weights
        give the paired t-test); ``test="randomization"`` flips the signs of the weighted
        differences ``w_q d_q``. A query of weight 0 is left out (``n_queries``, ``wins``,
        ``losses`` count the others). The bootstrap, Wilcoxon, Tukey and custom tests refuse
        weights. Equal weights give the unweighted table bit for bit; other weights set
        ``table.attrs["weighted"]``.

    Returns
    -------
    pandas.DataFrame
        One row per (metric, comparison), metrics in the given order, with columns
        ``system``, ``metric``, ``baseline`` (name of the system compared against),
        ``mean`` (of the system), ``baseline_mean``, ``diff`` (mean paired difference
        system - baseline), ``ci_low``, ``ci_high`` (confidence interval of ``diff`` at
        ``1 - alpha``), ``p_value``, ``p_adjusted``, ``effect_size`` (paired Cohen's d,
        mean of d / sd of d with ddof=1), ``significant`` (``p_adjusted < alpha``),
        ``n_queries``, ``wins`` and ``losses`` (queries where the system scores above /
        below the baseline; :func:`pyterrier_view` shows them as pyterrier's ``+``/``-``).
        With ``delta``, two more: ``n_needed`` (queries, pandas' nullable ``Int64``) and
        ``detectable``, missing (``<NA>``, NaN) where the differences have no spread.
        ``table.attrs`` records test, correction (as applied: ``"auto"`` resolved), alpha,
        n_resamples, seed and bootstrap_ci (and delta and power with ``delta``; used by
        :func:`to_markdown`, :func:`to_latex`, :func:`style`). ``mean`` and ``baseline_mean``
        are always means over the queries compared. Where a system is a
        :class:`~rankkit.evaluation.score_table.ScoreTable` whose own aggregate (its ``all``:
        AUC over every row at once, PNR over all pairs, GAUC's weighted mean) differs from
        that mean, ``table.attrs["aggregates"]`` holds it (``{metric: {system: value}}``)
        and the renderers say under the table that the mean over queries is what was
        compared, with those values beside it: one name, two numbers, both labelled.

    Raises
    ------
    ValueError
        Fewer than two systems or queries; an unknown ``test``, ``correction``,
        ``queries``, ``bootstrap_ci`` or ``baseline``; a metric missing from a table;
        non-finite scores; with ``queries="run"``, systems scoring different queries.

    Notes
    -----
    Intervals: ``"t"`` gives scipy's t-interval (``TtestResult.confidence_interval``);
    ``"bootstrap"`` the BCa (or percentile) interval of the mean difference from the
    same resamples as its p-value; ``"randomization"`` gives no interval of its own,
    and the t-interval is reported.

    Bootstrap p-value: the shift method (Efron & Tibshirani 1993, sec. 16.4): the
    bootstrap means are centred on the observed mean to mimic H0, and
    ``p = (1 + #{b : |mean*_b - mean| >= |mean|}) / (B + 1)``.

    Randomization p-value: ``p = (1 + #{b : |mean(s_b * d)| >= |mean(d)|}) / (B + 1)``
    for ``B`` random sign vectors ``s_b`` (exact enumeration: ``#{...} / 2**n``, which
    is what scipy's ``permutation_test`` returns, as its two-sided p-value doubles the
    smaller tail of a symmetric distribution).

    Degenerate differences (no explanation-free NaN): if every difference is zero
    (identical systems), ``p_value = 1.0``, ``effect_size = 0.0`` and the interval is
    ``[0, 0]`` for every test (scipy's ``ttest_rel`` would give NaN). If the
    differences are a nonzero constant ``c``, the interval is ``[c, c]``,
    ``effect_size`` is ``+inf`` or ``-inf`` (sd = 0), the t-test gives ``p = 0.0``
    (scipy's t = +-inf), and the resampling tests their usual, well-defined p-values.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"AP": [0.2, 0.4, 0.1, 0.5]}, index=["q1", "q2", "q3", "q4"])
    >>> b = pd.DataFrame({"AP": [0.3, 0.6, 0.2, 0.6]}, index=["q1", "q2", "q3", "q4"])
    >>> table = compare(None, {"bm25": a, "neural": b}, "AP", baseline="bm25")
    >>> row = table.iloc[0]
    >>> row["system"], row["baseline"], round(float(row["diff"]), 4)
    ('neural', 'bm25', 0.125)
    >>> round(float(row["p_value"]), 4), round(float(row["effect_size"]), 4)
    (0.0154, 2.5)
    >>> exact = compare(None, {"bm25": a, "neural": b}, "AP", test="randomization")
    >>> float(exact["p_value"].iloc[0])  # 2**4 sign vectors, 2 as extreme: 2/16
    0.125
    >>> plan = compare(None, {"bm25": a, "neural": b}, "AP", delta=0.02).iloc[0]
    >>> int(plan["n_needed"]), round(float(plan["detectable"]), 4)  # queries for +0.02; at 4 queries
    (52, 0.1064)
    """
    test, correction = _test_and_correction(test, correction)
    queries = check_option(queries, QUERY_POLICIES, "queries")
    bootstrap_ci = check_option(bootstrap_ci, BOOTSTRAP_CIS, "bootstrap_ci")
    alpha = check_probability(alpha, "alpha", high_open=True)
    n_resamples = check_k(n_resamples, "n_resamples")
    if n_resamples is None:
        raise ValueError("n_resamples must be a positive integer, got None")
    _check_seed(seed)
    if delta is not None:
        delta = check_delta(delta)
        alpha, power = check_levels(alpha, power)
    names = _system_names(runs, baseline)

    aggregates = _own_aggregates(runs)
    tables, metrics, caught = _per_query_tables(qrels, runs, metrics, queries=queries, ties=ties, columns=columns)
    _warn_once(caught, n_scored=sum(name in caught for name in names))
    scores, index = _align(tables, metrics, queries)  # (n_systems, n_metrics, n_queries)
    w = _compare_weights(weights, index, test)
    if w is not None:  # a query of weight 0 is left out
        scores, w = scores[:, :, w > 0], w[w > 0]
    n_queries = scores.shape[2]
    if n_queries < 2:
        raise ValueError(f"need at least two queries to compare systems, got {n_queries}")

    sys_idx, base_idx = _pairs(names, baseline)
    # All comparisons of all metrics as one (n_comparisons, n_queries) block.
    a = scores[sys_idx].transpose(1, 0, 2).reshape(-1, n_queries)
    b = scores[base_idx].transpose(1, 0, 2).reshape(-1, n_queries)
    if w is not None:
        res = _weighted_paired_stats(a, b, w * (n_queries / float(query_sum(w))), test=test, alpha=alpha,
                                     n_resamples=n_resamples, seed=seed)
    else:
        res = _paired_stats(a, b, test="t" if callable(test) or test in ("wilcoxon", "tukey") else test,
                            alpha=alpha, n_resamples=n_resamples, seed=seed, bootstrap_ci=bootstrap_ci)
    if callable(test) or test == "wilcoxon":
        res["p_value"] = _other_pvalues(a, b, test)
    elif test == "tukey":
        res["p_value"], res["ci_low"], res["ci_high"] = _tukey(scores, sys_idx, base_idx, alpha)
    res["p_adjusted"] = _adjust_per_metric(res["p_value"], len(metrics), correction)
    res["wins"], res["losses"] = (a > b).sum(axis=1), (a < b).sum(axis=1)
    table = _comparison_table(names, metrics, scores, sys_idx, base_idx, res, alpha, w)
    table.attrs.update(test=getattr(test, "__name__", "custom") if callable(test) else test,
                       correction=correction, alpha=alpha,
                       n_resamples=n_resamples, seed=seed if is_int(seed) else None,
                       bootstrap_ci=bootstrap_ci)
    _record_aggregates(table, aggregates)
    if w is not None:
        table.attrs["weighted"] = True  # means, differences and the test weigh the queries
    if delta is not None:
        sd = np.where((a - b != (a - b)[:, :1]).any(axis=1), res["sd"], 0.0)  # equal differences: no spread
        table["n_needed"], table["detectable"] = _power_columns(sd, delta, alpha, power, n_queries)
        table.attrs.update(delta=delta, power=power)
    return table


def _test_and_correction(test, correction) -> tuple:
    """compare()'s ``test`` and ``correction`` checked, ``"auto"`` and None resolved."""
    if not callable(test):
        test = check_option(test, TESTS, "test")
    if isinstance(correction, str) and correction == "auto":
        correction = "none" if test == "tukey" else "holm"
    correction = "none" if correction is None else check_option(correction, CORRECTIONS, "correction")
    if test == "tukey" and correction != "none":
        raise ValueError(f"correction must be 'none' (or 'auto') with test='tukey': Tukey's HSD corrects "
                         f"for all pairs itself, got {correction!r}")
    return test, correction


def _system_names(runs, baseline) -> list:
    """The names of compare()'s ``runs`` (a mapping of at least two), ``baseline`` among them."""
    if not isinstance(runs, Mapping):
        raise ValueError(f"runs must be a mapping of name -> run, got {type(runs).__name__}")
    if len(runs) < 2:
        raise ValueError(f"runs must hold at least two systems, got {len(runs)}")
    names = list(runs)
    if baseline is not None and baseline not in runs:
        raise ValueError(f"baseline must be one of {names!r}, got {baseline!r}")
    return names


def _power_columns(sd: np.ndarray, delta: float, alpha: float, power: float, n_queries: int):
    """compare()'s ``n_needed`` and ``detectable`` (:func:`queries_needed`), one per
    comparison of standard deviation ``sd``; missing where sd is 0."""
    n_needed = pd.array([queries_for_effect(delta / s, alpha, power) if s > 0 else pd.NA for s in sd], dtype="Int64")
    detectable = np.where(sd > 0, sd * detectable_effect(n_queries, alpha, power), np.nan)
    return n_needed, detectable


def _pairs(names: list, baseline) -> tuple[np.ndarray, np.ndarray]:
    """Indices (system, baseline) of the comparisons: every system against ``baseline``, or
    for ``baseline=None`` every pair, the later system against the earlier."""
    if baseline is None:
        pairs = [(j, i) for i, j in itertools.combinations(range(len(names)), 2)]
    else:
        b = names.index(baseline)
        pairs = [(i, b) for i in range(len(names)) if i != b]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def _adjust_per_metric(p_values: np.ndarray, n_metrics: int, correction: str) -> np.ndarray:
    """The correction applied to each metric's block of comparisons (the family) separately."""
    n_pairs = len(p_values) // n_metrics
    return np.concatenate([
        adjust_pvalues(p_values[m * n_pairs:(m + 1) * n_pairs], correction)
        for m in range(n_metrics)
    ])


def _comparison_table(names, metrics, scores, sys_idx, base_idx, res: dict, alpha: float,
                      w: np.ndarray | None = None) -> pd.DataFrame:
    """compare()'s rows, metric by metric, from the per-comparison results ``res``."""
    if w is None:
        means = query_mean(np.moveaxis(scores, 2, 0))  # (n_systems, n_metrics), in query order
    else:
        means = weighted_mean(np.moveaxis(scores, 2, 0), w[:, None, None])
    return ComparisonTable({  # a DataFrame that prints the note on a ScoreTable's aggregates
        "system": [names[i] for _ in metrics for i in sys_idx],
        "metric": [m for m in metrics for _ in sys_idx],
        "baseline": [names[i] for _ in metrics for i in base_idx],
        "mean": means[sys_idx].T.ravel(),
        "baseline_mean": means[base_idx].T.ravel(),
        "diff": res["diff"],
        "ci_low": res["ci_low"],
        "ci_high": res["ci_high"],
        "p_value": res["p_value"],
        "p_adjusted": res["p_adjusted"],
        "effect_size": res["effect_size"],
        "significant": res["p_adjusted"] < alpha,
        "n_queries": np.full(len(res["diff"]), scores.shape[2], dtype=np.int64),
        "wins": res["wins"],
        "losses": res["losses"],
    }, columns=COLUMNS)


def _other_pvalues(a: np.ndarray, b: np.ndarray, test) -> np.ndarray:
    """p-values of a test other than rankkit's own, one per row (comparison): scipy's
    Wilcoxon signed-rank test (two-sided, its defaults), or the user's function."""
    if test == "wilcoxon":
        d = a - b
        p = np.ones(len(d))
        some = d.any(axis=1)  # identical systems: p = 1 (scipy refuses all-zero differences)
        if some.any():
            p[some] = stats.wilcoxon(d[some], axis=1).pvalue
        return p
    p = np.array([_user_pvalue(test, x, y) for x, y in zip(a, b)])
    return p


def _user_pvalue(test, x: np.ndarray, y: np.ndarray) -> float:
    value = test(x.copy(), y.copy())
    value = getattr(value, "pvalue", value)  # a scipy result object works too
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"test must return a p-value (a number), got {value!r}") from None
    if not 0 <= value <= 1:
        raise ValueError(f"test must return a p-value in [0, 1], got {value!r}")
    return value


def _tukey(scores: np.ndarray, sys_idx: np.ndarray, base_idx: np.ndarray, alpha: float):
    """Tukey's HSD per metric over all systems (scipy), at the comparisons' pairs."""
    p, low, high = [], [], []
    for m in range(scores.shape[1]):
        res = stats.tukey_hsd(*scores[:, m, :])
        ci = res.confidence_interval(1 - alpha)
        p.append(res.pvalue[sys_idx, base_idx])
        low.append(ci.low[sys_idx, base_idx])
        high.append(ci.high[sys_idx, base_idx])
    return np.concatenate(p), np.concatenate(low), np.concatenate(high)


def _check_seed(seed) -> None:
    if seed is None or isinstance(seed, np.random.Generator):
        return
    if not is_int(seed) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, a numpy Generator or None, got {seed!r}")


def _own_aggregates(runs: Mapping) -> dict:
    """Each ScoreTable's own aggregates (its ``all``), as floats: {system: {column: value}}."""
    return {name: {str(c): float(v) for c, v in run.all.items()}
            for name, run in runs.items() if isinstance(run, ScoreTable)}


def _record_aggregates(table: pd.DataFrame, aggregates: dict) -> None:
    """Into ``table.attrs["aggregates"]``: a ScoreTable's own aggregate of a metric where it is
    not the mean over the queries compared (AUC over every row, ...), {metric: {system: value}}."""
    differ: dict = {}
    for row in table.itertuples(index=False):
        for system, mean in ((row.system, row.mean), (row.baseline, row.baseline_mean)):
            own = aggregates.get(system, {}).get(row.metric)
            if own is not None and not np.isclose(own, mean, rtol=1e-12, atol=0.0):
                differ.setdefault(row.metric, {})[system] = own
    if differ:
        table.attrs["aggregates"] = differ


def _per_query_frame(name, run):
    """A model's :class:`~rankkit.evaluation.score_table.ScoreTable` as its per-query frame;
    a per-query frame with an ``all`` row (``to_frame()``'s aggregates) refused: that row
    is no query."""
    if isinstance(run, ScoreTable):
        return run.to_frame(all=False)
    if isinstance(run, pd.DataFrame) and "all" in run.index:
        raise ValueError(f"system {name!r}: the per-query table has an 'all' row, which is no query; pass "
                         "table.to_frame(all=False), or the ScoreTable itself")
    return run


def _per_query_tables(qrels, runs, metrics, *, queries, ties, columns):
    """Per-query DataFrames (one column per metric), scoring runs with ``evaluate``."""
    if isinstance(metrics, str):
        metrics = [metrics]
    elif metrics is not None:
        metrics = list(dict.fromkeys(metrics))  # each metric once, in order
        if not metrics:
            raise ValueError("metrics must name at least one metric, got []")
        if not all(isinstance(m, str) for m in metrics):
            raise ValueError(f"metrics must be metric spec strings, got {metrics!r}")

    runs = {name: _per_query_frame(name, run) for name, run in runs.items()}

    def is_table(obj) -> bool:
        # A DataFrame holding any requested metric column is a per-query table;
        # any other value is a run for evaluate().
        return isinstance(obj, pd.DataFrame) and (
            metrics is None or any(m in obj.columns for m in metrics))

    to_score = [name for name, run in runs.items() if not is_table(run)]
    if to_score:
        if metrics is None:
            raise ValueError(f"metrics must be given to score run(s) {to_score!r}")
        if qrels is None:
            raise ValueError(f"qrels must be given to score run(s) {to_score!r} "
                             "(or pass per-query tables)")
        # Read once: every run is then joined with the same judgments, prepared once.
        qrels = read_qrels(qrels, columns=columns)

        # evaluate() names columns by the spec as written; a trec_eval list such as
        # "P.5,10" expands to several columns.
        metric_columns = list(expand_metrics(metrics))
    elif metrics is None:
        metric_columns = [c for c in next(iter(runs.values())).columns]
        if not metric_columns:
            raise ValueError("the per-query tables have no metric columns")
    else:
        metric_columns = metrics
    tables, caught = {}, {}
    for name, run in runs.items():
        if name in to_score:
            with warnings.catch_warnings(record=True) as caught[name]:
                warnings.simplefilter("always")
                run = evaluate(qrels, run, metrics, ties=ties, queries=queries, columns=columns)
        missing = [m for m in metric_columns if m not in run.columns]
        if missing:
            raise ValueError(f"system {name!r} has no column for metric(s) {missing!r}")
        tables[name] = run.loc[:, metric_columns]
    return tables, [str(c) for c in metric_columns], caught


def _warn_once(caught: dict, n_scored: int) -> None:
    """The warnings of scoring each run, each once, naming the runs that gave it ("every
    run" when all did), and pointing at the line that called :func:`compare`."""
    runs_of: dict[tuple, list] = {}
    for name, seen in caught.items():
        for w in seen:
            runs_of.setdefault((w.category, str(w.message)), []).append(name)
    for (category, message), names in runs_of.items():
        who = "every run" if len(names) == n_scored > 1 else ", ".join(map(str, dict.fromkeys(names)))
        warnings.warn(f"{who}: {message}", category, stacklevel=3)  # 1 here, 2 compare, 3 its caller


def _align(tables: dict, metrics: list, queries: str) -> tuple[np.ndarray, pd.Index]:
    """Scores as an array (n_systems, n_metrics, n_queries), queries in one order (the index)."""
    names = list(tables)
    for name, t in tables.items():
        if t.index.has_duplicates:
            dup = t.index[t.index.duplicated()].unique()[:5].tolist()
            raise ValueError(f"system {name!r} scores queries more than once: {dup!r}")
    index = tables[names[0]].index
    if queries == "qrels":
        for t in tables.values():
            index = index.union(t.index, sort=False)
    else:
        for name in names[1:]:
            other = tables[name].index
            missing = index.difference(other, sort=False)
            extra = other.difference(index, sort=False)
            if len(missing) or len(extra):
                parts = []
                if len(missing):
                    parts.append(f"{_some(missing)} missing from {name!r}")
                if len(extra):
                    parts.append(f"{_some(extra)} missing from {names[0]!r}")
                raise ValueError(
                    "systems must score the same queries (queries='run'): "
                    + "; ".join(parts) + "; use queries='qrels' to score missing queries 0")
    # One order whatever the order of the tables' rows (resamples draw queries by position):
    # trec_eval's, the ids compared as bytes.
    index = index[trec_order([str(q) for q in index])]
    blocks = []
    for name, t in tables.items():
        t = t.reindex(index, fill_value=0.0) if queries == "qrels" else t.reindex(index)
        try:
            values = t.to_numpy(dtype=np.float64).T
        except (TypeError, ValueError):
            raise ValueError(f"system {name!r}: scores must be numbers") from None
        bad = ~np.isfinite(values)
        if bad.any():
            m, q = np.argwhere(bad)[0]
            query = index[q].item() if isinstance(index[q], np.generic) else index[q]
            raise ValueError(
                f"system {name!r}: scores must be finite, got {float(values[m, q])!r} for "
                f"metric {metrics[m]!r}, query {query!r}; a paired comparison needs a finite value for every "
                "query: leave out the queries a metric cannot score (nan) or scores without bound (PNR's inf), "
                "the same ones for every system, e.g. keep = frame[np.isfinite(frame).all(axis=1)].index "
                "for each system's frame (a ScoreTable's: table.to_frame(all=False)), then compare the frames "
                "on the queries every keep holds: .loc[common]")
        blocks.append(values)
    return np.stack(blocks), index


def _some(ids, k: int = 5) -> str:
    shown = ", ".join(repr(x) for x in list(ids[:k]))
    more = f" and {len(ids) - k} more" if len(ids) > k else ""
    return f"{len(ids)} quer{'y' if len(ids) == 1 else 'ies'} ({shown}{more})"


# ------------------------------------------------------------------- paired kernels


def _compare_weights(weights, index: pd.Index, test) -> np.ndarray | None:
    """compare()'s query weights in the order of ``index``, checked; None for no weights or
    equal ones (the unweighted path)."""
    if weights is None:
        return None
    if callable(test) or test not in ("t", "randomization"):
        name = getattr(test, "__name__", "custom") if callable(test) else test
        raise ValueError(f"weights= are taken by test='t' and test='randomization', got test={name!r}")
    w = query_weights(weights, index, arrays=False)
    return None if all_equal(w) else w


def _weighted_paired_stats(a: np.ndarray, b: np.ndarray, w: np.ndarray, *, test: str, alpha: float,
                           n_resamples: int, seed) -> dict:
    """:func:`_paired_stats` with frequency weights ``w`` > 0 summing to n (the queries): the
    weighted mean difference, ``sd = sqrt(sum w (d - mean)**2 / (n - 1))``, the t-test and
    t-interval on n - 1 degrees of freedom (statsmodels' ``DescrStatsW``), or the sign-flip
    test of ``sum s_q w_q d_q``."""
    d = a - b
    n = d.shape[1]
    diff = weighted_mean(d.T, w[:, None])
    sd = np.sqrt(query_sum(w[:, None] * (d.T - diff) ** 2) / (n - 1))
    zero = ~d.any(axis=1)
    const = (sd == 0) & ~zero
    regular = ~zero & ~const
    effect = np.zeros(len(d))
    effect[regular] = diff[regular] / sd[regular]
    effect[const] = np.copysign(np.inf, diff[const])
    ci_low = np.where(const, diff, 0.0)
    ci_high = ci_low.copy()
    p = np.where(const, 0.0, 1.0)
    se = sd[regular] / np.sqrt(n)
    half = special.stdtrit(n - 1, 1 - alpha / 2) * se
    ci_low[regular], ci_high[regular] = diff[regular] - half, diff[regular] + half
    p[regular] = np.minimum(2.0 * special.stdtr(n - 1, -np.abs(diff[regular] / se)), 1.0)
    if test == "randomization":
        todo = ~zero
        p[todo] = _randomization_pvalues(d[todo] * w, n_resamples, np.random.default_rng(seed))
    return {"diff": diff, "ci_low": ci_low, "ci_high": ci_high, "p_value": p, "effect_size": effect, "sd": sd}


def _paired_stats(a: np.ndarray, b: np.ndarray, *, test: str, alpha: float,
                  n_resamples: int, seed, bootstrap_ci: str = "bca") -> dict:
    """Paired statistics of rows of ``a`` against rows of ``b``; trusts its input.

    ``a`` and ``b``: float arrays (n_comparisons, n_queries), queries aligned,
    n_queries >= 2. Returns arrays (n_comparisons,): diff, ci_low, ci_high, p_value,
    effect_size.
    """
    d = a - b
    n = d.shape[1]
    # Means and sums of squares add the queries in order (rankkit.ops.numerics).
    diff = query_mean(d.T)
    sd = spread(d, diff)
    zero = ~d.any(axis=1)  # identical systems
    # Nonzero constant difference (sd = 0, also when differences agree to underflow).
    const = (sd == 0) & ~zero
    regular = ~zero & ~const

    effect = np.zeros(len(d))
    with np.errstate(over="ignore"):
        effect[regular] = diff[regular] / sd[regular]
    effect[const] = np.copysign(np.inf, diff[const])
    ci_low = np.where(const, diff, 0.0)
    ci_high = ci_low.copy()
    p = np.ones(len(d))
    p[const] = 0.0  # t-test: t = +-inf; replaced below for the resampling tests

    if test in ("t", "randomization") and regular.any():
        # Student's paired t-test, as scipy.stats.ttest_rel (mean and standard deviation
        # summed in query order here; the t distribution from scipy.special).
        se = sd[regular] / np.sqrt(n)
        t = diff[regular] / se
        half = special.stdtrit(n - 1, 1 - alpha / 2) * se
        ci_low[regular], ci_high[regular] = diff[regular] - half, diff[regular] + half
        if test == "t":
            p[regular] = np.minimum(2.0 * special.stdtr(n - 1, -np.abs(t)), 1.0)
    if test == "randomization":
        todo = ~zero
        p[todo] = _randomization_pvalues(d[todo], n_resamples, np.random.default_rng(seed))
    elif test == "bootstrap":
        todo = ~zero
        pb, lo, hi = _bootstrap(d[todo], alpha, n_resamples,
                                np.random.default_rng(seed), bootstrap_ci)
        p[todo] = pb
        lo[const[todo]] = diff[const]  # degenerate BCa: the interval is the constant
        hi[const[todo]] = diff[const]
        ci_low[todo], ci_high[todo] = lo, hi
    return {"diff": diff, "ci_low": ci_low, "ci_high": ci_high, "p_value": p,
            "effect_size": effect, "sd": sd}


def _randomization_pvalues(d: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Two-sided paired randomization (sign-flip) test of mean(d) = 0, per row of ``d``.

    Works on sums ``sum_i s_i d_i`` (same ordering as means), each computed exactly
    (:func:`rankkit.ops.numerics.exact_matmul`), so the count of extreme resamples is the
    same on every machine. Enumerates every sign vector when ``2**n <= n_resamples``.
    """
    k, n = d.shape
    total = exact_matmul(np.ones((1, n)), d)[0]
    tol = _EXTREME_TOLERANCE * query_sum(np.abs(d).T)
    observed = np.abs(total) - tol
    count = np.zeros(k, dtype=np.int64)
    batch = max(1, min(n_resamples, _BATCH_ELEMENTS // n))
    if n < 63 and 2 ** n <= n_resamples:
        n_total = 2 ** n
        for start in range(0, n_total, batch):
            codes = np.arange(start, min(start + batch, n_total), dtype=np.int64)
            bits = ((codes[:, None] >> np.arange(n)) & 1).astype(np.float64)
            null = 2.0 * exact_matmul(bits, d, n) - total  # sum of s_i d_i with s = 2 bit - 1
            count += (np.abs(null) >= observed).sum(axis=0)
        return np.minimum(count / n_total, 1.0)
    n_bytes = (n + 7) // 8
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        packed = rng.integers(0, 256, size=(size, n_bytes), dtype=np.uint8)
        bits = np.unpackbits(packed, axis=1, count=n).astype(np.float64)
        null = 2.0 * exact_matmul(bits, d, n) - total
        count += (np.abs(null) >= observed).sum(axis=0)
    return (count + 1) / (n_resamples + 1)


def _bootstrap(d: np.ndarray, alpha: float, n_resamples: int, rng: np.random.Generator,
               method: str = "bca"):
    """Bootstrap of mean(d) per row: shift-method p-value and BCa/percentile interval.

    Resamples with ``rng.integers(0, n, (B, n))`` in consecutive batches, the stream
    :func:`scipy.stats.bootstrap` draws; one resample matrix is shared by every row.
    """
    k, n = d.shape
    means = np.empty((n_resamples, k))
    batch = max(1, min(n_resamples, _BATCH_ELEMENTS // n))
    rows = max(1, _BINCOUNT_CELLS // n)  # counts per resample, a few rows at a time
    offsets = (np.arange(rows) * n)[:, None]
    counts = np.empty((batch, n))
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        idx = rng.integers(0, n, (size, n))  # the stream scipy.stats.bootstrap draws
        for r in range(0, size, rows):
            block = idx[r:r + rows]
            counts[r:r + len(block)] = np.bincount(
                (block + offsets[:len(block)]).ravel(), minlength=len(block) * n
            ).reshape(len(block), n)
        means[start:start + size] = exact_matmul(counts[:size], d, n) / n
    theta = exact_matmul(np.ones((1, n)), d)[0] / n  # as the resampled means are

    # Shift method: mean* - mean is distributed like the mean under H0.
    tol = _EXTREME_TOLERANCE * query_mean(np.abs(d).T)
    extreme = np.abs(means - theta) >= np.abs(theta) - tol
    p = (extreme.sum(axis=0) + 1) / (n_resamples + 1)

    a = alpha / 2
    if method == "percentile":
        lo_q = np.full(k, a)
        hi_q = np.full(k, 1 - a)
    else:  # BCa, following scipy.stats._resampling._bca_interval
        below = (means < theta).sum(axis=0) + (means <= theta).sum(axis=0)
        with np.errstate(all="ignore"):
            z0 = special.ndtri(below / (2 * n_resamples))
            u = d - theta[:, None]  # jackknife of the mean: U_i = d_i - mean
            u2 = u * u
            s2 = query_sum(u2.T)
            acc = query_sum((u2 * u).T) / (6 * s2 * np.sqrt(s2))
            z = special.ndtri(a)
            num1, num2 = z0 + z, z0 - z
            lo_q = special.ndtr(z0 + num1 / (1 - acc * num1))
            hi_q = special.ndtr(z0 + num2 / (1 - acc * num2))
    lo = np.full(k, np.nan)
    hi = np.full(k, np.nan)
    ok = np.isfinite(lo_q) & np.isfinite(hi_q)
    for j in np.flatnonzero(ok):  # a loop over comparisons, not queries
        lo[j], hi[j] = np.quantile(means[:, j], [lo_q[j], hi_q[j]])
    return p, lo, hi


# ------------------------------------------------------------------------ corrections


def adjust_pvalues(p_values, method: str | None = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    p_values : array-like of shape (m,)
        p-values of one family of tests, each in [0, 1].
    method : str or None, default="holm"
        statsmodels' names (``statsmodels.stats.multitest.multipletests``), computed here
        without statsmodels (its results equal within 1e-12, ``tests/test_stats.py``);
        ``p_(i)`` below are the p-values sorted ascending, ``m`` their number:

        - ``"bonferroni"``: ``min(1, m p_i)`` (family-wise error rate, FWER);
        - ``"sidak"``: ``1 - (1 - p_i)^m`` (FWER, independent tests);
        - ``"holm"``: Holm's (1979) step-down, ``max_{j<=i} min(1, (m-j+1) p_(j))`` (FWER,
          uniformly more powerful than Bonferroni);
        - ``"holm-sidak"``: the same step-down with ``1 - (1 - p_(j))^(m-j+1)``;
        - ``"simes-hochberg"`` (``"hochberg"``): Hochberg's (1988) step-up,
          ``min_{j>=i} min(1, (m-j+1) p_(j))``;
        - ``"hommel"``: Hommel's (1988) procedure, adjusted p-values as Wright (1992) gives them;
        - ``"fdr_bh"`` (``"bh"``): Benjamini & Hochberg (1995), false discovery rate (FDR);
        - ``"fdr_by"`` (``"by"``): Benjamini & Yekutieli (2001), FDR under any dependence;
          both by :func:`scipy.stats.false_discovery_control`;
        - ``"none"``/None: unchanged.

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order; reject when ``adjusted < alpha``.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm")
    array([0.03, 0.06, 0.06])
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bonferroni")
    array([0.03, 0.12, 0.09])
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh")
    array([0.03, 0.04, 0.04])
    """
    method = "none" if method is None else check_option(method, CORRECTIONS, "method")
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p_values must be one-dimensional, got shape {p.shape}")
    if p.size and (not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1):
        raise ValueError(f"p_values must be in [0, 1], got {p_values!r}")
    m = p.size
    if m == 0 or method == "none":
        return p.copy()
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    if method == "sidak":
        with np.errstate(divide="ignore"):  # p = 1: log1p(-1) = -inf, adjusted to 1
            return -np.expm1(m * np.log1p(-p))
    if method in ("bh", "fdr_bh", "by", "fdr_by"):
        return stats.false_discovery_control(p, method=method[-2:])
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "hommel":
        stepped = _hommel(ranked)
    else:
        factor = m - np.arange(m)  # m, m-1, ..., 1
        if method == "holm":
            stepped = np.maximum.accumulate(np.minimum(factor * ranked, 1.0))
        elif method == "holm-sidak":
            with np.errstate(divide="ignore"):  # as for sidak
                stepped = np.maximum.accumulate(-np.expm1(factor * np.log1p(-ranked)))
        else:  # simes-hochberg: step-up
            stepped = np.minimum.accumulate(np.minimum(factor * ranked, 1.0)[::-1])[::-1]
    out = np.empty(m)
    out[order] = stepped
    return out


def _hommel(ranked: np.ndarray) -> np.ndarray:
    """Hommel's adjusted p-values of p-values sorted ascending (Wright 1992, section 2.4):
    for each subset size k = m, m-1, ..., 2, the Simes-type bound
    ``c_k = min_j k p_(m-k+j) / j`` caps the first m-k+1 p-values at ``min(k p_(i), c_k)``
    and the rest at the cap of p_(m-k+1); an adjusted p-value is the largest of its caps."""
    m = len(ranked)
    adjusted = np.full(m, np.min(m * ranked / np.arange(1, m + 1)))
    for k in range(m - 1, 1, -1):
        head = m - k + 1  # the first m-k+1 p-values
        bound = np.min(k * ranked[head:] / np.arange(2, k + 1))
        cap = np.empty(m)
        cap[:head] = np.minimum(k * ranked[:head], bound)
        cap[head:] = cap[head - 1]
        adjusted = np.maximum(adjusted, cap)
    return np.minimum(np.maximum(adjusted, ranked), 1.0)


__all__ = ["compare", "adjust_pvalues", "queries_needed", "detectable_difference", "QueriesNeeded",
           "pyterrier_view", "style", "to_markdown", "to_latex", "to_text"]
