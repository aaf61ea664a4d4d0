"""Tests of rankkit.stats.queries_needed, detectable_difference and compare(..., delta=...).

Oracles: statsmodels' ``TTestPower`` (live, on fixed and random inputs), a Monte Carlo of the
paired t-test (scipy's ``ttest_1samp`` on simulated differences), the normal approximation
with Guenther's correction (the initial value of Sakai's topic set size design), and
properties every power calculation must have.
"""

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats
from sweeps import sweep

from rankkit.power import t_power
from rankkit.stats import (
    COLUMNS,
    QueriesNeeded,
    compare,
    detectable_difference,
    queries_needed,
    style,
    to_latex,
    to_markdown,
    to_text,
)

# Differences of standard deviation exactly 1 (ddof=1): delta is then the effect size.
UNIT = np.array([-1.0, 1.0]) / math.sqrt(2.0)


def unit_sd(n: int, seed: int = 0) -> np.ndarray:
    """n differences of sample standard deviation 1."""
    x = np.random.default_rng(seed).normal(size=n)
    return (x - x.mean()) / x.std(ddof=1)


# ------------------------------------------------------------------ the number of queries


@pytest.mark.parametrize("effect, want", [(0.2, 199), (0.5, 34), (0.8, 15), (2.0, 5)])
def test_fixed_effect_sizes_equal_statsmodels_rounded_up(effect, want):
    power = pytest.importorskip("statsmodels.stats.power")
    solved = power.TTestPower().solve_power(effect_size=effect, alpha=0.05, power=0.8, alternative="two-sided")
    assert math.ceil(solved) == want  # 198.15, 33.37, 14.30, 4.39
    plan = queries_needed(UNIT, delta=effect)
    assert plan.n_needed == want and plan.sd == pytest.approx(1.0, rel=1e-15)


@pytest.mark.filterwarnings("ignore::statsmodels.tools.sm_exceptions.ConvergenceWarning")
@settings(max_examples=sweep(100), deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=2, max_size=60),
       st.floats(0.03, 3.0), st.floats(0.001, 0.2), st.floats(0.5, 0.99))
def test_queries_needed_equals_statsmodels_ttestpower(values, effect, alpha, power):
    sm = pytest.importorskip("statsmodels.stats.power")
    d = np.array(values)
    sd = np.std(d, ddof=1)
    if not sd > 1e-6:
        return
    plan = queries_needed(d, delta=effect * sd, alpha=alpha, power=power)
    assert plan.sd == pytest.approx(sd, rel=1e-12)
    # exactly the smallest number of queries reaching the power, and the difference reaching it
    assert t_power(plan.delta / plan.sd, plan.n_needed, alpha) >= power
    assert plan.n_needed == 2 or t_power(plan.delta / plan.sd, plan.n_needed - 1, alpha) < power
    # the root found to the solver's tolerance: at 2 queries and alpha 0.001 the power curve is
    # steep enough there that SciPy 1.11 lands 3e-9 away
    assert t_power(plan.detectable / plan.sd, len(d), alpha) == pytest.approx(power, abs=1e-8)

    solver = sm.TTestPower()
    solved = solver.solve_power(effect_size=plan.delta / plan.sd, alpha=alpha, power=power)
    at_n = solver.solve_power(nobs=len(d), alpha=alpha, power=power)
    # statsmodels' answers where its own power function confirms them: with 2 or 3 queries and
    # a large effect, scipy's NaN far in a tail of the noncentral t can throw its solver off
    if abs(sm.ttest_power(plan.delta / plan.sd, solved, alpha) - power) < 1e-4:
        assert abs(plan.n_needed - max(2, math.ceil(solved))) <= 1
    if abs(sm.ttest_power(at_n, len(d), alpha) - power) < 1e-4:
        assert plan.detectable == pytest.approx(at_n * plan.sd, rel=1e-4)


def test_power_at_n_needed_by_simulation():
    """At 34 queries and effect 0.5 the paired t-test rejects 80% of the time; at 25, less."""
    rng = np.random.default_rng(7)
    n = queries_needed(UNIT, delta=0.5).n_needed
    for queries, low, high in ((n, 0.80, 0.83), (n - 9, 0.62, 0.69)):
        d = rng.normal(0.5, 1.0, size=(20_000, queries))
        rejected = stats.ttest_1samp(d, 0.0, axis=1).pvalue < 0.05
        assert low <= rejected.mean() <= high  # 0.808 and 0.66 (statsmodels); Monte Carlo sd 0.003


def test_large_samples_follow_the_normal_approximation():
    """Guenther's n = ((z_a/2 + z_b) / e)^2 + z_a/2^2 / 2, Sakai's starting value, is within a query
    of the exact answer once n is large (it leaves out the far tail, P(T < -t) ~ 1e-6, which
    moves n by more than a query beyond some 100,000 queries)."""
    z_a, z_b = special.ndtri(0.975), special.ndtri(0.8)
    for effect in (0.1, 0.05, 0.02, 0.01):
        guenther = ((z_a + z_b) / effect) ** 2 + z_a**2 / 2
        assert abs(queries_needed(UNIT, delta=effect).n_needed - guenther) <= 1.5


def test_smaller_differences_need_more_queries():
    d = unit_sd(30)
    needed = [queries_needed(d, delta=x).n_needed for x in (1.0, 0.5, 0.25, 0.1, 0.05)]
    assert needed == sorted(needed) and len(set(needed)) == len(needed)
    assert needed[-1] > 3 * needed[-2]  # about four times: n grows as 1 / delta^2
    more_power = queries_needed(d, delta=0.25, power=0.9).n_needed
    stricter = queries_needed(d, delta=0.25, alpha=0.01).n_needed
    assert more_power > needed[2] and stricter > needed[2]


def test_scaling_the_differences_scales_delta():
    d = unit_sd(25, seed=3)
    a = queries_needed(d, delta=0.3)
    b = queries_needed(d * 0.01, delta=0.003)
    assert a.n_needed == b.n_needed and b.detectable == pytest.approx(a.detectable * 0.01, rel=1e-9)


def test_a_huge_effect_needs_the_minimum_two_queries():
    assert queries_needed(UNIT, delta=100.0).n_needed == 2


# ------------------------------------------------------------------ detectable difference


def test_detectable_difference_is_the_delta_whose_n_needed_is_the_queries_at_hand():
    d = unit_sd(40, seed=1)
    plan = queries_needed(d, delta=0.2)
    assert t_power(plan.detectable / plan.sd, 40, 0.05) == pytest.approx(0.8, abs=1e-10)
    # with as many queries as needed, delta is detectable; with one fewer, it is not
    at_needed = detectable_difference(d, n_queries=plan.n_needed)
    assert at_needed <= 0.2 < detectable_difference(d, n_queries=plan.n_needed - 1)
    assert detectable_difference(d) == plan.detectable
    assert queries_needed(d, delta=plan.detectable * 1.000001).n_needed <= 40


def test_detectable_difference_equals_statsmodels_on_fixed_inputs():
    sm = pytest.importorskip("statsmodels.stats.power")
    for n in (2, 3, 10, 50, 1000):
        want = sm.TTestPower().solve_power(nobs=n, alpha=0.05, power=0.8)  # to its tolerance: power +- 2e-5
        assert detectable_difference(UNIT, n_queries=n) == pytest.approx(want, rel=1e-4)
    assert detectable_difference(UNIT, n_queries=50) == pytest.approx(0.4042, abs=5e-5)


def test_detectable_difference_shrinks_as_one_over_root_n():
    ratio = detectable_difference(UNIT, n_queries=400) / detectable_difference(UNIT, n_queries=1600)
    assert ratio == pytest.approx(2.0, rel=2e-3)


# ------------------------------------------------------------------ the result and its errors


def test_result_is_frozen_and_reads_well():
    plan = queries_needed([0.1, 0.3, -0.1, 0.2], delta=0.05)
    assert isinstance(plan, QueriesNeeded) and plan.n_now == 4 and plan.alpha == 0.05 and plan.power == 0.8
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.n_needed = 3
    # statsmodels: solve_power(effect_size=0.05 / 0.17078) = 93.51; solve_power(nobs=4) * 0.17078 = 0.3634
    assert repr(plan) == ("QueriesNeeded(n_needed=94, delta=0.05, sd=0.1708, n_now=4, detectable=0.3634, "
                          "alpha=0.05, power=0.8)")
    assert str(plan) == ("to detect a difference of 0.05 (sd 0.1708) with power 0.8 at alpha = 0.05, "
                         "a paired t-test needs 94 queries; with the 4 at hand it detects 0.3634 or more")
    assert dataclasses.replace(plan, n_needed=1) != plan


@pytest.mark.parametrize("kwargs, message", [
    ({"delta": 0}, r"delta must be a positive finite number .*got 0"),
    ({"delta": -0.01}, r"delta must be a positive finite number"),
    ({"delta": float("inf")}, r"delta must be a positive finite number .*got inf"),
    ({"delta": float("nan")}, r"delta must be a positive finite number"),
    ({"delta": "0.01"}, r"delta must be a positive finite number"),
    ({"delta": True}, r"delta must be a positive finite number"),
    ({"delta": 0.01, "alpha": 0}, r"alpha must be in \(0, 1\), got 0"),
    ({"delta": 0.01, "alpha": 1.0}, r"alpha must be in \(0, 1\), got 1.0"),
    ({"delta": 0.01, "power": 1.0}, r"power must be in \(0, 1\), got 1.0"),
    ({"delta": 0.01, "power": -0.5}, r"power must be in \(0, 1\)"),
    ({"delta": 0.01, "power": 0.05}, r"power must be greater than alpha .*power=0.05, alpha=0.05"),
])
def test_bad_arguments_name_themselves(kwargs, message):
    with pytest.raises(ValueError, match=message):
        queries_needed([0.1, 0.3, -0.2], **kwargs)


@pytest.mark.parametrize("differences, message", [
    ([0.1], r"at least two per-query differences .*got 1"),
    ([], r"at least two per-query differences .*got 0"),
    ([[0.1, 0.2], [0.3, 0.4]], r"one-dimensional \(one per query\), got shape \(2, 2\)"),
    ([0.1, float("nan"), 0.2], r"differences must be finite, got nan at position 1"),
    (["a", "b"], r"differences must be numbers"),
    ([0.0, 0.0, 0.0], r"no spread: every one is 0 \(the two systems score alike on every query\)"),
    ([0.1, 0.1, 0.1], r"no spread: every one is 0.1, so their standard deviation is 0"),
])
def test_bad_differences_are_explained(differences, message):
    with pytest.raises(ValueError, match=message):
        queries_needed(differences, delta=0.01)


def test_detectable_difference_errors():
    with pytest.raises(ValueError, match=r"n_queries must be an integer of at least 2 .*got 1"):
        detectable_difference(UNIT, n_queries=1)
    with pytest.raises(ValueError, match=r"n_queries must be an integer .*got 2.5"):
        detectable_difference(UNIT, n_queries=2.5)
    with pytest.raises(ValueError, match=r"power must be greater than alpha"):
        detectable_difference(UNIT, alpha=0.5, power=0.4)


# ------------------------------------------------------------------ compare(..., delta=...)


def tables(n_queries=30, seed=2):
    rng = np.random.default_rng(seed)
    index = pd.Index([f"q{i:02d}" for i in range(n_queries)], name="query_id")
    base = rng.random((n_queries, 2))
    return {
        "bm25": pd.DataFrame(base, index=index, columns=["AP", "nDCG@10"]),
        "dense": pd.DataFrame(base + rng.normal(0.02, 0.1, base.shape), index=index, columns=["AP", "nDCG@10"]),
        "copy": pd.DataFrame(base, index=index, columns=["AP", "nDCG@10"]),
    }


def test_compare_with_delta_reports_queries_needed_per_row():
    runs = tables()
    table = compare(None, runs, delta=0.01, power=0.9, alpha=0.1)
    assert list(table.columns) == COLUMNS + ["n_needed", "detectable"]
    assert table.attrs["delta"] == 0.01 and table.attrs["power"] == 0.9
    assert str(table["n_needed"].dtype) == "Int64"
    for row in table.itertuples(index=False):
        d = (runs[row.system][row.metric] - runs[row.baseline][row.metric]).to_numpy()
        if np.std(d) == 0:  # "copy" against "bm25": no spread, nothing to say
            assert row.system == "copy" and row.baseline == "bm25"
            assert pd.isna(row.n_needed) and np.isnan(row.detectable)
            continue
        plan = queries_needed(d, delta=0.01, alpha=0.1, power=0.9)
        assert row.n_needed == plan.n_needed and row.detectable == pytest.approx(plan.detectable, rel=1e-12)
        assert row.n_needed > 30  # a difference of 0.01 at a spread of 0.1 needs hundreds


def test_compare_without_delta_is_unchanged():
    runs = tables()
    plain = compare(None, runs)
    with_delta = compare(None, runs, delta=0.05)
    assert list(plain.columns) == COLUMNS and "delta" not in plain.attrs
    pd.testing.assert_frame_equal(with_delta[COLUMNS], plain)
    assert "Detectable" not in to_text(plain) and "queries needed" not in to_markdown(plain)


def test_compare_renders_the_two_columns():
    table = compare(None, tables(), "AP", baseline="bm25", delta=0.05)
    text = to_text(table).splitlines()
    assert text[0].split()[-3:] == ["Detectable", "Queries", "needed"]
    dense = next(line for line in text if line.startswith(" dense") or line.startswith("dense"))
    row = table.set_index("system").loc["dense"]
    assert dense.split()[-2:] == [f"{row['detectable']:.4f}", str(row["n_needed"])]
    copy = next(line for line in text if "copy" in line)
    assert copy.split()[-2:] == ["n/a", "n/a"]
    assert text[-1].endswith("detectable: the smallest difference a paired t-test detects with power 0.8 on "
                             "these queries; queries needed: the queries it needs to detect a difference of 0.05.")
    assert "| Detectable | Queries needed |" in to_markdown(table)
    assert "& Detectable & Queries needed \\\\" in to_latex(table)
    assert f"& {row['detectable']:.4f} & {row['n_needed']} \\\\" in to_latex(table)
    html = style(table).to_html()
    assert f">{row['n_needed']}<" in html and ">n/a<" in html
    assert "queries needed: the queries it needs to detect a difference of 0.05" in html


def test_compare_checks_delta_and_power():
    runs = tables()
    with pytest.raises(ValueError, match="delta must be a positive finite number"):
        compare(None, runs, delta=0)
    with pytest.raises(ValueError, match="power must be greater than alpha"):
        compare(None, runs, delta=0.01, power=0.05, alpha=0.1)
    compare(None, runs, power=0.01)  # power is read only with delta: no error without it
