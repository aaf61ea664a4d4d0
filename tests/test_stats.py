"""Tests of rankkit.stats: compare(), the corrections and the report renderers.

Oracles: scipy.stats (ttest_rel exactly; permutation_test and bootstrap within Monte
Carlo error, or exactly where the resampling stream is the same), hand-computed
corrections, simulated planted / null differences.
"""

import importlib
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats
from sweeps import sweep

import rankkit
from rankkit.io.keys import trec_order
from rankkit.stats import (
    COLUMNS,
    _paired_stats,
    adjust_pvalues,
    compare,
    style,
    to_latex,
    to_markdown,
)

METRICS = ["nDCG@10", "AP"]


def make_tables(n_systems=3, n_queries=40, seed=1, effects=None):
    """Per-query tables: shared query difficulty + a system effect + noise."""
    rng = np.random.default_rng(seed)
    index = pd.Index([f"q{i:03d}" for i in range(n_queries)], name="query_id")
    base = rng.random((n_queries, len(METRICS)))
    effects = effects if effects is not None else [0.03 * s for s in range(n_systems)]
    return {
        f"s{s}": pd.DataFrame(
            np.clip(base + effects[s] + rng.normal(0, 0.1, base.shape), 0, 1),
            index=index, columns=METRICS)
        for s in range(n_systems)
    }


def mean_diff(x, y, axis):
    return np.mean(x - y, axis=axis)


# ------------------------------------------------------------------ table structure


def test_columns_rows_and_attrs():
    runs = make_tables()
    table = compare(None, runs, METRICS, baseline="s0")
    assert list(table.columns) == COLUMNS
    assert table[["metric", "system", "baseline"]].values.tolist() == [
        ["nDCG@10", "s1", "s0"], ["nDCG@10", "s2", "s0"], ["AP", "s1", "s0"], ["AP", "s2", "s0"]]
    assert table["n_queries"].tolist() == [40] * 4
    assert table.attrs == {"test": "t", "correction": "holm", "alpha": 0.05,
                           "n_resamples": 10_000, "seed": 0, "bootstrap_ci": "bca"}
    for row in table.itertuples():
        s, b = runs[row.system][row.metric], runs[row.baseline][row.metric]
        d = s - b
        assert row.mean == pytest.approx(s.mean(), abs=1e-15)
        assert row.baseline_mean == pytest.approx(b.mean(), abs=1e-15)
        assert row.diff == pytest.approx(d.mean(), abs=1e-15)
        assert row.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)


def test_all_pairs_later_against_earlier():
    table = compare(None, make_tables(), "AP")
    assert table[["system", "baseline"]].values.tolist() == [["s1", "s0"], ["s2", "s0"], ["s2", "s1"]]


def test_metrics_none_takes_every_column_and_single_string():
    runs = make_tables()
    assert compare(None, runs, None)["metric"].unique().tolist() == METRICS
    assert compare(None, runs, "AP")["metric"].unique().tolist() == ["AP"]


def test_row_order_of_tables_does_not_matter():
    runs = make_tables()
    shuffled = dict(runs)
    shuffled["s1"] = runs["s1"].sample(frac=1.0, random_state=3)
    for test in ("t", "randomization", "bootstrap"):
        a = compare(None, runs, METRICS, test=test, n_resamples=500)
        b = compare(None, shuffled, METRICS, test=test, n_resamples=500)
        pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)


# ------------------------------------------------------------------------- t-test


def test_t_test_equals_scipy():
    # rankkit sums in query order (rankkit.ops.numerics), scipy pairwise: the last bits may differ.
    runs = make_tables(n_systems=4)
    table = compare(None, runs, METRICS, test="t", alpha=0.1)
    for row in table.itertuples():
        res = stats.ttest_rel(runs[row.system][row.metric].to_numpy(),
                              runs[row.baseline][row.metric].to_numpy())
        ci = res.confidence_interval(confidence_level=0.9)
        assert row.p_value == pytest.approx(res.pvalue, rel=1e-12)
        assert row.ci_low == pytest.approx(ci.low, rel=1e-12)
        assert row.ci_high == pytest.approx(ci.high, rel=1e-12)


@given(arrays(np.float64, (2, 12), elements=st.floats(0, 1)))
def test_t_test_equals_scipy_on_random_vectors(values):
    a, b = values
    d = a - b
    if d.std(ddof=1) == 0:  # degenerate: documented separately
        return
    # scipy squares deviations as they are: below ~1e-150 the squares lose digits to
    # underflow (test_t_test_of_tiny_differences checks rankkit there).
    assume(np.abs(d).max() > 1e-140)
    table = compare(None, {"b": pd.DataFrame({"m": b}), "a": pd.DataFrame({"m": a})}, "m")
    assert table["p_value"].iloc[0] == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9, abs=1e-15)
    assert 0.0 <= table["p_adjusted"].iloc[0] <= 1.0


@pytest.mark.parametrize("tiny", [2.16999007e-157, 1e-300])
def test_t_test_of_tiny_differences(tiny):
    # One query differs by x, eleven by 0: mean x/12, sd x/sqrt(12), so t = 1 exactly,
    # whatever x (squaring x itself would underflow).
    a = np.zeros(12)
    a[0] = tiny
    table = compare(None, {"b": pd.DataFrame({"m": np.zeros(12)}), "a": pd.DataFrame({"m": a})}, "m")
    assert table["p_value"].iloc[0] == pytest.approx(2 * stats.t.sf(1.0, 11), rel=1e-12)


# ------------------------------------------------------------------ randomization


def test_randomization_exact_enumeration_equals_scipy():
    # 2**10 = 1024 <= n_resamples: both enumerate every sign vector.
    rng = np.random.default_rng(5)
    for _ in range(5):
        a, b = rng.random(10), rng.random(10)
        table = compare(None, {"b": pd.DataFrame({"m": b}), "a": pd.DataFrame({"m": a})},
                        "m", test="randomization", n_resamples=2000)
        ref = stats.permutation_test((a, b), mean_diff, permutation_type="samples",
                                     vectorized=True, n_resamples=2000)
        assert table["p_value"].iloc[0] == pytest.approx(ref.pvalue, abs=1e-15)


def test_randomization_exact_hand_example():
    # d = (1, 2, 3): of the 8 sign vectors, |sum| >= 6 only for +++ and ---: p = 2/8.
    table = compare(None, {"b": pd.DataFrame({"m": [0.0, 0.0, 0.0]}),
                           "a": pd.DataFrame({"m": [1.0, 2.0, 3.0]})},
                    "m", test="randomization")
    assert table["p_value"].iloc[0] == 0.25


@pytest.mark.parametrize("shift", [0.0, 0.03, 0.08])
def test_randomization_within_monte_carlo_error_of_scipy(shift):
    rng = np.random.default_rng(11)
    n, n_resamples = 60, 20_000
    b = rng.random(n)
    a = b + shift + rng.normal(0, 0.15, n)
    table = compare(None, {"b": pd.DataFrame({"m": b}), "a": pd.DataFrame({"m": a})}, "m",
                    test="randomization", n_resamples=n_resamples, seed=4)
    ref = stats.permutation_test((a, b), mean_diff, permutation_type="samples",
                                 vectorized=True, n_resamples=n_resamples,
                                 random_state=np.random.default_rng(9)).pvalue
    p = table["p_value"].iloc[0]
    # Two independent Monte Carlo estimates of the same p: sd of the difference is
    # sqrt(2 p (1 - p) / B); allow 4 sd plus the +1 adjustment.
    tolerance = 4 * np.sqrt(2 * ref * (1 - ref) / n_resamples) + 2 / n_resamples
    assert abs(p - ref) <= tolerance


def test_randomization_reproducible_for_a_seed():
    runs = make_tables(n_queries=200, effects=[0, 0.005, 0.01])
    one = compare(None, runs, METRICS, test="randomization", n_resamples=3000, seed=7)
    two = compare(None, runs, METRICS, test="randomization", n_resamples=3000,
                  seed=np.random.default_rng(7))
    again = compare(None, runs, METRICS, test="randomization", n_resamples=3000, seed=7)
    other = compare(None, runs, METRICS, test="randomization", n_resamples=3000, seed=8)
    pd.testing.assert_frame_equal(one, again)
    assert np.array_equal(one["p_value"], two["p_value"])
    assert not np.array_equal(one["p_value"], other["p_value"])
    # Randomized p-values: (1 + count) / (B + 1).
    counts = one["p_value"] * 3001 - 1
    assert np.allclose(counts, np.round(counts))


def test_result_of_a_comparison_does_not_depend_on_the_other_systems():
    runs = make_tables(n_systems=4, n_queries=100)
    for test in ("randomization", "bootstrap"):
        full = compare(None, runs, METRICS, baseline="s0", test=test, n_resamples=1000)
        small = compare(None, {"s0": runs["s0"], "s2": runs["s2"]}, METRICS, baseline="s0",
                        test=test, n_resamples=1000)
        sub = full[full["system"] == "s2"].reset_index(drop=True)
        cols = ["diff", "ci_low", "ci_high", "p_value"]
        pd.testing.assert_frame_equal(sub[cols], small[cols])


def test_randomization_detects_a_planted_difference():
    rng = np.random.default_rng(21)
    b = rng.random(50)
    a = b + 0.1 + rng.normal(0, 0.1, 50)
    table = compare(None, {"b": pd.DataFrame({"m": b}), "a": pd.DataFrame({"m": a})}, "m",
                    test="randomization", n_resamples=5000)
    assert table["p_value"].iloc[0] < 0.01
    assert bool(table["significant"].iloc[0])


def test_randomization_false_positive_rate_near_alpha():
    # 300 comparisons of systems identical by construction (both columns drawn from the
    # same distribution, independently per query): the rate of p < 0.05 must be a
    # Binomial(300, 0.05) draw: mean 15, sd 3.8. Band: its 0.1% and 99.9% quantiles.
    rng = np.random.default_rng(2024)
    a, b = rng.random((300, 30)), rng.random((300, 30))
    p = _paired_stats(a, b, test="randomization", alpha=0.05, n_resamples=500,
                      seed=1)["p_value"]
    rejections = int((p < 0.05).sum())
    low, high = stats.binom.ppf([0.001, 0.999], 300, 0.05)
    assert low <= rejections <= high
    # The null p-values are close to uniform.
    assert stats.kstest(p, "uniform").pvalue > 0.001


# ---------------------------------------------------------------------- bootstrap


@pytest.mark.parametrize("method", ["BCa", "percentile"])
def test_bootstrap_interval_equals_scipy_with_the_same_stream(method):
    rng = np.random.default_rng(3)
    b = rng.random(80)
    a = b + 0.02 + rng.normal(0, 0.1, 80)
    table = compare(None, {"b": pd.DataFrame({"m": b}), "a": pd.DataFrame({"m": a})}, "m",
                    test="bootstrap", n_resamples=4000, seed=12, alpha=0.1,
                    bootstrap_ci=method.lower())
    # compare puts the queries (here 0..79) in trec_eval's order, as text, before resampling
    order = trec_order([str(q) for q in range(80)])
    a, b = a[order], b[order]
    ref = stats.bootstrap((a - b,), np.mean, n_resamples=4000, vectorized=True,
                          confidence_level=0.9, method=method,
                          random_state=np.random.default_rng(12))
    row = table.iloc[0]
    assert row["ci_low"] == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert row["ci_high"] == pytest.approx(ref.confidence_interval.high, rel=1e-12)
    # Shift-method p-value from scipy's bootstrap distribution.
    theta = np.mean(a - b)
    dist = ref.bootstrap_distribution
    expected = (1 + np.sum(np.abs(dist - theta) >= np.abs(theta))) / (4000 + 1)
    assert row["p_value"] == pytest.approx(expected, abs=1e-12)


def test_bootstrap_within_monte_carlo_error_of_scipy_other_seed():
    rng = np.random.default_rng(8)
    b = rng.random(100)
    a = b + 0.03 + rng.normal(0, 0.12, 100)
    table = compare(None, {"b": pd.DataFrame({"m": b}), "a": pd.DataFrame({"m": a})}, "m",
                    test="bootstrap", n_resamples=10_000, seed=0)
    ref = stats.bootstrap((a - b,), np.mean, n_resamples=10_000, vectorized=True,
                          random_state=np.random.default_rng(99))
    se = ref.standard_error
    assert table["ci_low"].iloc[0] == pytest.approx(ref.confidence_interval.low, abs=0.1 * se)
    assert table["ci_high"].iloc[0] == pytest.approx(ref.confidence_interval.high, abs=0.1 * se)


def test_bootstrap_reproducible_and_detects_difference():
    runs = make_tables(n_queries=100, effects=[0, 0.05, 0.0])
    one = compare(None, runs, METRICS, baseline="s0", test="bootstrap", n_resamples=2000, seed=3)
    two = compare(None, runs, METRICS, baseline="s0", test="bootstrap", n_resamples=2000, seed=3)
    pd.testing.assert_frame_equal(one, two)
    s1 = one[one["system"] == "s1"]
    assert (s1["p_value"] < 0.01).all() and (s1["ci_low"] > 0).all()


# -------------------------------------------------------------------- degenerate cases


@pytest.mark.parametrize("test", ["t", "randomization", "bootstrap"])
def test_identical_systems_p_one_no_nan(test):
    t = pd.DataFrame({"AP": [0.1, 0.5, 0.3]})
    table = compare(None, {"a": t, "b": t.copy()}, "AP", test=test)
    row = table.iloc[0]
    assert (row["diff"], row["ci_low"], row["ci_high"]) == (0.0, 0.0, 0.0)
    assert (row["p_value"], row["p_adjusted"], row["effect_size"]) == (1.0, 1.0, 0.0)
    assert not row["significant"]
    assert not table.isna().any().any()


def test_constant_nonzero_difference():
    a = pd.DataFrame({"AP": [0.0, 0.25, 0.5, 0.25]})
    b = a + 0.25
    t = compare(None, {"a": a, "b": b}, "AP").iloc[0]
    assert t["p_value"] == 0.0 and t["effect_size"] == np.inf
    assert (t["ci_low"], t["ci_high"]) == (0.25, 0.25)
    r = compare(None, {"a": a, "b": b}, "AP", test="randomization").iloc[0]
    assert r["p_value"] == 2 / 16  # exact: +++ + and - - - - only
    assert (r["ci_low"], r["ci_high"]) == (0.25, 0.25)
    bs = compare(None, {"a": a, "b": b}, "AP", test="bootstrap", n_resamples=999).iloc[0]
    assert bs["p_value"] == 1 / 1000 and (bs["ci_low"], bs["ci_high"]) == (0.25, 0.25)
    assert compare(None, {"b": b, "a": a}, "AP").iloc[0]["effect_size"] == -np.inf


# ---------------------------------------------------------------------- corrections


def test_bonferroni_hand_example():
    # m = 4: p * 4, capped at 1.
    assert adjust_pvalues([0.01, 0.04, 0.03, 0.005], "bonferroni") == pytest.approx(
        [0.04, 0.16, 0.12, 0.02])
    assert adjust_pvalues([0.3, 0.01], "bonferroni") == pytest.approx([0.6, 0.02])
    assert adjust_pvalues([0.6, 0.01], "bonferroni") == pytest.approx([1.0, 0.02])


def test_holm_hand_example():
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04;
    # running maximum 0.02, 0.03, 0.06, 0.06; back in input order:
    assert adjust_pvalues([0.01, 0.04, 0.03, 0.005], "holm") == pytest.approx(
        [0.03, 0.06, 0.06, 0.02])
    # Benjamini & Hochberg's 8 p-values: times 8..1 = 0.008, 0.056, 0.234, 0.205, 0.168,
    # 0.18, 0.148, 0.205; running maximum:
    p = [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205]
    assert adjust_pvalues(p, "holm") == pytest.approx(
        [0.008, 0.056, 0.234, 0.234, 0.234, 0.234, 0.234, 0.234])
    # Capped at 1: 0.4 * 3 = 1.2 -> 1.
    assert adjust_pvalues([0.4, 0.5, 0.45], "holm") == pytest.approx([1.0, 1.0, 1.0])


def test_bh_hand_example():
    # p_(i) * m / i, then the running minimum from the largest:
    # 0.005*4/1 = 0.02, 0.01*4/2 = 0.02, 0.03*4/3 = 0.04, 0.04*4/4 = 0.04.
    assert adjust_pvalues([0.01, 0.04, 0.03, 0.005], "bh") == pytest.approx(
        [0.02, 0.04, 0.04, 0.02])
    # x 8/i: 0.008, 0.032, 0.104, 0.082, 0.0672, 0.08, 0.0845714, 0.205;
    # running minimum from the right: 0.104 and 0.082 drop to 0.0672.
    p = [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205]
    assert adjust_pvalues(p, "bh") == pytest.approx(
        [0.008, 0.032, 0.0672, 0.0672, 0.0672, 0.08, 0.074 * 8 / 7, 0.205])


def test_no_correction_and_empty():
    assert adjust_pvalues([0.2, 0.01], None).tolist() == [0.2, 0.01]
    assert adjust_pvalues([0.2, 0.01], "none").tolist() == [0.2, 0.01]
    assert adjust_pvalues([], "holm").size == 0


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh", "none", None])
def test_correction_applied_per_metric(correction):
    runs = make_tables(n_systems=4, n_queries=30, effects=[0, 0.01, 0.04, 0.08])
    table = compare(None, runs, METRICS, baseline="s0", correction=correction)
    for _, group in table.groupby("metric", sort=False):
        assert len(group) == 3
        expected = adjust_pvalues(group["p_value"].to_numpy(), correction)
        assert np.array_equal(group["p_adjusted"].to_numpy(), expected)
        assert (group["significant"] == (group["p_adjusted"] < 0.05)).all()
    if correction in ("none", None):
        assert np.array_equal(table["p_adjusted"], table["p_value"])


def test_alpha_sets_significance_and_interval():
    runs = make_tables(n_systems=2, n_queries=30, effects=[0, 0.03])
    loose = compare(None, runs, METRICS, alpha=0.5)
    strict = compare(None, runs, METRICS, alpha=0.001)
    assert ((loose["ci_high"] - loose["ci_low"]) < (strict["ci_high"] - strict["ci_low"])).all()
    assert (loose["significant"] == (loose["p_adjusted"] < 0.5)).all()


# ---------------------------------------------------------------- query alignment


def test_missing_queries_are_an_error_naming_them():
    runs = make_tables(n_queries=10)
    runs["s2"] = runs["s2"].drop(index=["q003", "q007"])
    with pytest.raises(ValueError, match=r"2 queries \('q003', 'q007'\) missing from 's2'"):
        compare(None, runs, METRICS)
    runs["s1"] = pd.concat([runs["s1"], runs["s1"].iloc[:1].rename(index={"q000": "extra"})])
    with pytest.raises(ValueError, match=r"1 query \('extra'\) missing from 's0'"):
        compare(None, runs, METRICS)


def test_queries_qrels_scores_missing_queries_zero():
    a = pd.DataFrame({"AP": [0.5, 0.2, 0.4]}, index=["q1", "q2", "q3"])
    b = pd.DataFrame({"AP": [0.6, 0.3]}, index=["q1", "q3"])
    row = compare(None, {"a": a, "b": b}, "AP", queries="qrels").iloc[0]
    # b scores q2 as 0: differences 0.1, -0.2, -0.1.
    assert row["n_queries"] == 3
    assert row["mean"] == pytest.approx(0.3) and row["diff"] == pytest.approx(-0.2 / 3)


# -------------------------------------------------------------------------- errors


def tiny():
    return {"a": pd.DataFrame({"AP": [0.1, 0.2, 0.3]}), "b": pd.DataFrame({"AP": [0.2, 0.2, 0.5]})}


@pytest.mark.parametrize("kwargs, message", [
    ({"test": "sign"}, r"test must be one of 't', 'randomization', 'bootstrap', 'wilcoxon', 'tukey', got 'sign'"),
    ({"correction": "fdr"},
     r"correction must be one of 'holm', 'bonferroni', 'sidak', .*'fdr_by', 'by', 'none', got 'fdr'"),
    ({"queries": "all"}, r"queries must be one of 'run', 'qrels', got 'all'"),
    ({"bootstrap_ci": "basic"}, r"bootstrap_ci must be one of 'bca', 'percentile', got 'basic'"),
    ({"alpha": 1.0}, r"alpha must be in \(0, 1\), got 1.0"),
    ({"alpha": 0}, r"alpha must be in \(0, 1\), got 0"),
    ({"n_resamples": 0}, r"n_resamples must be a positive integer or None, got 0"),
    ({"n_resamples": 10.0}, r"n_resamples must be a positive integer"),
    ({"n_resamples": None}, r"n_resamples must be a positive integer, got None"),
    ({"seed": -1}, r"seed must be a non-negative integer, a numpy Generator or None, got -1"),
    ({"seed": 1.5}, r"seed must be"),
    ({"baseline": "c"}, r"baseline must be one of \['a', 'b'\], got 'c'"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        compare(None, tiny(), "AP", **kwargs)


def test_bad_inputs():
    with pytest.raises(ValueError, match="need at least two queries to compare systems, got 1"):
        compare(None, {"a": pd.DataFrame({"AP": [0.1]}), "b": pd.DataFrame({"AP": [0.3]})}, "AP")
    with pytest.raises(ValueError, match="runs must hold at least two systems, got 1"):
        compare(None, {"a": tiny()["a"]}, "AP")
    with pytest.raises(ValueError, match="runs must be a mapping of name -> run, got list"):
        compare(None, [tiny()["a"], tiny()["b"]], "AP")
    with pytest.raises(ValueError, match=r"system 'b' has no column for metric\(s\) \['P@5'\]"):
        compare(None, {"a": pd.DataFrame({"AP": [0.1, 0.2], "P@5": [0.2, 0.4]}),
                       "b": pd.DataFrame({"AP": [0.1, 0.3]})}, ["AP", "P@5"])
    bad = tiny()
    bad["b"].loc[1, "AP"] = np.nan
    with pytest.raises(ValueError, match=r"system 'b': scores must be finite, got nan "
                                         r"for metric 'AP', query 1"):
        compare(None, bad, "AP")
    dup = tiny()
    dup["a"].index = [0, 0, 1]
    with pytest.raises(ValueError, match=r"system 'a' scores queries more than once: \[0\]"):
        compare(None, dup, "AP")
    with pytest.raises(ValueError, match=r"qrels must be given to score run\(s\) \['b'\]"):
        compare(None, {"a": tiny()["a"], "b": {"q1": {"d1": 1.0}}}, "AP")
    with pytest.raises(ValueError, match="metrics must name at least one metric, got"):
        compare(None, tiny(), [])


def test_adjust_pvalues_errors():
    with pytest.raises(ValueError, match="method must be one of 'holm', 'bonferroni', .*'none', got 'fdr'"):
        adjust_pvalues([0.1], "fdr")
    with pytest.raises(ValueError, match=r"p_values must be in \[0, 1\]"):
        adjust_pvalues([0.1, 1.5], "holm")
    with pytest.raises(ValueError, match=r"p_values must be one-dimensional, got shape \(1, 2\)"):
        adjust_pvalues([[0.1, 0.2]], "holm")


# ------------------------------------------------------------------- evaluate path


def test_runs_are_scored_with_evaluate(monkeypatch):
    on_stats = importlib.import_module("rankkit.stats")  # the module, not rk.compare's name

    calls = []
    scores = {"run_a": [0.2, 0.4, 0.6], "run_b": [0.3, 0.6, 0.6]}

    def fake_evaluate(qrels, run, metrics, *, ties, queries, columns=None):
        calls.append((qrels, run, metrics, ties, queries))
        return pd.DataFrame({"AP": scores[run]}, index=pd.Index(["q1", "q2", "q3"], name="query_id"))

    monkeypatch.setattr(on_stats, "evaluate", fake_evaluate)
    # The judgments are read once, then every run is scored against what was read.
    monkeypatch.setattr(on_stats, "read_qrels", lambda q, columns=None: ("read", q))
    table = compare("QRELS", {"a": "run_a", "b": "run_b"}, ["AP"], ties="average",
                    queries="qrels")
    assert calls == [(("read", "QRELS"), "run_a", ["AP"], "average", "qrels"),
                     (("read", "QRELS"), "run_b", ["AP"], "average", "qrels")]
    assert table["diff"].iloc[0] == pytest.approx(0.1)
    assert table["p_value"].iloc[0] == stats.ttest_rel([0.3, 0.6, 0.6], [0.2, 0.4, 0.6]).pvalue


def _evaluate_works() -> bool:
    try:
        rankkit.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}}, ["AP"])
    except (NotImplementedError, ImportError):
        return False
    return True


def test_compare_runs_end_to_end():
    if not _evaluate_works():
        pytest.skip("rankkit.evaluate's reader/ranker are still stubs")
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d4": 1, "d5": 1}, "q3": {"d6": 1}}
    good = {"q1": {"d1": 3.0, "d3": 2.0, "d2": 1.0}, "q2": {"d4": 2.0, "d5": 1.0},
            "q3": {"d6": 1.0}}
    bad = {"q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}, "q2": {"d5": 2.0, "x": 3.0, "d4": 1.0},
           "q3": {"x": 2.0, "d6": 1.0}}
    table = compare(qrels, {"bad": bad, "good": good}, ["AP", "P@1"])
    per_query_good = rankkit.evaluate(qrels, good, ["AP", "P@1"])
    per_query_bad = rankkit.evaluate(qrels, bad, ["AP", "P@1"])
    via_tables = compare(None, {"bad": per_query_bad, "good": per_query_good}, ["AP", "P@1"])
    pd.testing.assert_frame_equal(table, via_tables)
    assert table.loc[table["metric"] == "P@1", "diff"].iloc[0] == pytest.approx(1.0)


# ----------------------------------------------------------------------- rendering


def small_table():
    a = pd.DataFrame({"AP": [0.2, 0.4, 0.1, 0.5], "P@5": [0.2, 0.4, 0.2, 0.4]})
    b = pd.DataFrame({"AP": [0.3, 0.6, 0.2, 0.6], "P@5": [0.2, 0.4, 0.4, 0.2]})
    return compare(None, {"bm25_base": a, "neural": b}, ["AP", "P@5"])


def test_to_markdown():
    text = to_markdown(small_table())
    lines = text.splitlines()
    assert lines[0] == ("| System | Baseline  | Metric | Mean   | Baseline mean | Diff     | 95% CI             "
                        "| p      | p adj. | d     |")
    assert lines[2] == ("| neural | bm25_base | AP     | 0.4250 | 0.3000        | +0.1250† | [+0.0454, +0.2046] "
                        "| 0.0154 | 0.0154 | +2.50 |")
    # P@5: differences 0, 0, +0.2, -0.2: diff 0, not significant, no mark.
    assert lines[3].startswith("| neural | bm25_base | P@5    | 0.3000 | 0.3000        | +0.0000  |")
    assert "†" not in lines[3]
    assert lines[-1].startswith("† significant at alpha = 0.05 (paired t-test, holm correction")
    assert to_markdown(small_table(), digits=2, mark="*").splitlines()[2].count("+0.12*") == 1


def test_markdown_escapes_pipes_and_small_p():
    a = pd.DataFrame({"a|b": np.linspace(0, 1, 50)})
    b = a + 0.5 + np.random.default_rng(0).normal(0, 0.01, (50, 1))
    text = to_markdown(compare(None, {"x": a, "y": b}, "a|b"))
    assert "a\\|b" in text and "<0.0001" in text


def test_to_latex():
    text = to_latex(small_table())
    assert text.startswith("\\begin{tabular}{lllrrrrrrr}\n\\toprule\n")
    assert ("neural & bm25\\_base & AP & 0.4250 & 0.3000 & +0.1250$^\\dagger$ & [+0.0454, +0.2046] "
            "& 0.0154 & 0.0154 & +2.50 \\\\") in text
    assert "95\\% CI" in text and text.endswith("\\end{tabular}")
    wrapped = to_latex(small_table(), caption="Runs & results", label="tab:cmp")
    assert wrapped.startswith("\\begin{table}\n\\centering\n\\caption{Runs \\& results}\n"
                              "\\label{tab:cmp}\n\\begin{tabular}")
    assert wrapped.endswith("\\end{tabular}\n\\end{table}")


def test_style():
    table = small_table()
    styler = style(table)
    assert isinstance(styler, pd.io.formats.style.Styler)
    html = styler.to_html()
    assert "+0.1250" in html and "0.0154" in html and "†" in html
    assert "font-weight: bold" in html
    assert "paired t-test" in html  # caption
    assert styler.data is table  # the numbers themselves are untouched


def test_render_errors():
    with pytest.raises(ValueError, match="digits must be a non-negative integer, got -1"):
        to_markdown(small_table(), digits=-1)
    with pytest.raises(ValueError, match=r"table must be a compare\(\) result; missing columns"):
        to_latex(pd.DataFrame({"x": [1]}))
    with pytest.raises(ValueError, match=r"table must be a compare\(\) result"):
        style(pd.DataFrame({"x": [1]}))


def test_compare_is_the_only_top_level_name():
    assert rankkit.compare is compare
    assert not hasattr(rankkit, "to_markdown") and not hasattr(rankkit, "style")


# ---------------------------------------------------------------- command line


@pytest.fixture
def fake_scoring(monkeypatch):
    """Stand-ins for read_qrels and evaluate: each run 'path' maps to fixed scores."""
    scores = {
        "runs/a.txt": {"AP": [0.2, 0.4, 0.1, 0.5], "P@5": [0.2, 0.4, 0.2, 0.4]},
        "runs/b.txt": {"AP": [0.3, 0.6, 0.2, 0.6], "P@5": [0.2, 0.4, 0.4, 0.2]},
        "other/b.txt": {"AP": [0.2, 0.5, 0.1, 0.5], "P@5": [0.2, 0.4, 0.2, 0.6]},
    }
    index = pd.Index(["q1", "q2", "q3", "q4"], name="query_id")

    def fake_evaluate(qrels, run, metrics, *, ties, queries, columns=None):
        assert qrels == "QRELS-TABLE"
        return pd.DataFrame({m: scores[run][m] for m in metrics}, index=index)

    for name in ("rankkit.cli", "rankkit.stats"):  # where the command line and compare() read the judgments
        monkeypatch.setattr(importlib.import_module(name), "read_qrels", lambda path, columns=None: "QRELS-TABLE")
    monkeypatch.setattr(importlib.import_module("rankkit.stats"), "evaluate", fake_evaluate)
    return scores


def run_cli(argv):
    import io

    from rankkit.cli import main

    out = io.StringIO()
    return main(argv, out=out), out.getvalue()


def test_cli_compare_formats(fake_scoring):
    status, text = run_cli(["compare", "q.txt", "runs/a.txt", "runs/b.txt", "-m", "AP", "-m", "P@5"])
    assert status == 0
    lines = text.splitlines()
    assert lines[0].split() == ["System", "Baseline", "Metric", "Mean", "Baseline", "mean", "Diff", "95%", "CI",
                                "p", "p", "adj.", "d"]
    assert lines[1].split() == ["b.txt", "a.txt", "AP", "0.4250", "0.3000", "+0.1250†", "[+0.0454,",
                                "+0.2046]", "0.0154", "0.0154", "+2.50"]
    # one mark, the same as markdown's, explained under the table
    assert lines[-1].startswith("† significant at alpha = 0.05 (paired t-test, holm")

    status, md = run_cli(["compare", "q.txt", "runs/a.txt", "runs/b.txt", "-m", "AP",
                          "--format", "markdown"])
    expected = to_markdown(compare(None, {
        "a.txt": pd.DataFrame({"AP": fake_scoring["runs/a.txt"]["AP"]}),
        "b.txt": pd.DataFrame({"AP": fake_scoring["runs/b.txt"]["AP"]})}, "AP"))
    assert status == 0 and md == expected + "\n"
    assert "| 0.4250 | 0.3000        | +0.1250† |" in md and md.splitlines()[-1].startswith("† significant")

    status, tex = run_cli(["compare", "q.txt", "runs/a.txt", "runs/b.txt", "-m", "AP",
                           "--format", "latex"])
    assert status == 0 and "b.txt & a.txt & AP & 0.4250 & 0.3000 & +0.1250$^\\dagger$" in tex

    status, csv = run_cli(["compare", "q.txt", "runs/a.txt", "runs/b.txt", "-m", "AP",
                           "--format", "csv", "--test", "randomization", "--correction", "none",
                           "--alpha", "0.1", "--resamples", "100", "--seed", "3"])
    frame = pd.read_csv(__import__("io").StringIO(csv))
    assert status == 0 and list(frame.columns) == COLUMNS
    assert frame["p_value"].iloc[0] == 0.125  # exact: 2 of 2**4 sign vectors
    assert csv.splitlines()[1].endswith(",False,4,4,0")  # n_queries, wins, losses: integers


def test_cli_compare_text_mark_falls_back_to_ascii_where_the_output_cannot_encode_it(fake_scoring):
    import io

    from rankkit.cli import main

    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii")
    assert main(["compare", "q.txt", "runs/a.txt", "runs/b.txt", "-m", "AP"], out=out) == 0
    lines = raw.getvalue().decode("ascii").splitlines()
    assert "+0.1250*" in lines[1] and lines[-1].startswith("* significant at alpha = 0.05")


def test_cli_compare_baseline_and_name_clash(fake_scoring):
    status, csv = run_cli(["compare", "q.txt", "runs/a.txt", "runs/b.txt", "other/b.txt",
                           "-m", "AP", "--baseline", "runs/b.txt", "--format", "csv"])
    frame = pd.read_csv(__import__("io").StringIO(csv))
    assert status == 0
    assert frame[["system", "baseline"]].values.tolist() == [
        ["runs/a.txt", "runs/b.txt"], ["other/b.txt", "runs/b.txt"]]
    status, csv = run_cli(["compare", "q.txt", "runs/a.txt", "runs/b.txt", "-m", "AP",
                           "--baseline", "b.txt", "--format", "csv"])
    frame = pd.read_csv(__import__("io").StringIO(csv))
    assert frame[["system", "baseline"]].values.tolist() == [["a.txt", "b.txt"]]


@pytest.mark.parametrize("baseline", ["b", "b.txt", "runs/b.txt", "runs/b"])
def test_cli_compare_baseline_by_file_name_with_or_without_extension(fake_scoring, baseline):
    status, csv = run_cli(["compare", "q.txt", "runs/a.txt", "runs/b.txt", "-m", "AP",
                           "--baseline", baseline, "--format", "csv"])
    frame = pd.read_csv(__import__("io").StringIO(csv))
    assert status == 0 and frame[["system", "baseline"]].values.tolist() == [["a.txt", "b.txt"]]


def test_cli_compare_baseline_stem_of_two_runs_is_an_error_naming_them(fake_scoring, tmp_path, capsys):
    fake_scoring["runs/b.run"] = fake_scoring["runs/b.txt"]
    status, text = run_cli(["compare", "q.txt", "runs/a.txt", "runs/b.txt", "runs/b.run", "-m", "AP",
                            "--baseline", "b"])
    assert status == 2 and text == ""
    assert capsys.readouterr().err == (
        "rankkit compare: error: --baseline 'b' could be any of the runs ['b.txt', 'b.run']: give one of these names\n")


def test_cli_compare_without_m_uses_evaluates_default_measures_that_are_means(monkeypatch):
    seen = {}

    def fake_evaluate(qrels, run, metrics, *, ties, queries, columns=None):
        seen["metrics"] = list(metrics)
        values = np.array([[0.1, 0.2, 0.3, 0.4]]) + (0.1 if run == "b" else 0.0)
        return pd.DataFrame(np.repeat(values, len(metrics), axis=0).T, columns=metrics,
                            index=pd.Index(["q1", "q2", "q3", "q4"], name="query_id"))

    for name in ("rankkit.cli", "rankkit.stats"):  # where the command line and compare() read the judgments
        monkeypatch.setattr(importlib.import_module(name), "read_qrels", lambda path, columns=None: "Q")
    monkeypatch.setattr(importlib.import_module("rankkit.stats"), "evaluate", fake_evaluate)
    official = ["map", "Rprec", "bpref", "recip_rank", *(f"iprec_at_recall_{x / 10:.2f}" for x in range(11)),
                *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000))]
    status, csv = run_cli(["compare", "q.txt", "a", "b", "--format", "csv"])
    assert status == 0 and seen["metrics"] == official  # official, without runid, num_* and gm_map
    assert pd.read_csv(__import__("io").StringIO(csv))["metric"].tolist() == official
    # a nickname keeps the same measures; a measure named outright is kept, even a count
    assert run_cli(["compare", "q.txt", "a", "b", "-m", "official"])[0] == 0 and seen["metrics"] == official
    assert run_cli(["compare", "q.txt", "a", "b", "-m", "set", "-m", "num_rel_ret"])[0] == 0
    assert seen["metrics"] == ["num_rel_ret", "utility", "set_P", "set_relative_P", "set_recall", "set_map", "set_F"]
    # -m as evaluate reads it: trec_eval's P is P_5 ... P_1000, in trec_eval's order; rankkit specs after
    assert run_cli(["compare", "q.txt", "a", "b", "-m", "nDCG@10", "-m", "P.10,5", "-m", "map"])[0] == 0
    assert seen["metrics"] == ["map", "P_5", "P_10", "nDCG@10"]


@pytest.mark.parametrize("measure, message", [
    ("gm_map", "compare cannot test gm_map: it has no per-query number to average (AP per query; the "
               "geometric mean over queries); compare map\n"),
    ("runid", "compare cannot test runid: it has no per-query number to average (the run's tag (its last "
              "line's))\n"),
])
def test_cli_compare_refuses_a_measure_without_per_query_means(fake_scoring, capsys, measure, message):
    status, _ = run_cli(["compare", "q.txt", "runs/a.txt", "runs/b.txt", "-m", measure])
    assert status == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["runs/a.txt", "-m", "AP"], "compare needs at least two runs, got 1"),
    (["runs/a.txt", "runs/b.txt", "-m", "AP", "--baseline", "zzz"],
     r"--baseline must name one of the runs \['a.txt', 'b.txt'\] \(the extension may be left out\), got 'zzz'"),
    (["runs/a.txt", "runs/a.txt", "-m", "AP"], "each run must be given once"),
    (["runs/a.txt", "runs/b.txt", "-m", "AP", "--alpha", "1.5"], r"alpha must be in \(0, 1\)"),
    (["runs/a.txt", "runs/b.txt", "-m", "MAP@10"], r"'MAP@10' is ambiguous"),
    (["runs/a.txt", "runs/b.txt", "-m", "ndgc@10"], r"unknown metric 'ndgc' in metric spec 'ndgc@10'; "
                                                    r"did you mean nDCG@10, ndcg_cut_10 or RnDCG\?"),
])
def test_cli_compare_bad_input_exits_2(fake_scoring, capsys, argv, message):
    status, text = run_cli(["compare", "q.txt", *argv])
    assert status == 2 and text == ""
    err = capsys.readouterr().err
    assert err.startswith("rankkit compare: error: ")
    assert __import__("re").search(message, err)


@pytest.mark.parametrize("argv", [
    ["compare", "q.txt", "a", "b", "-m", "AP", "--test", "sign"],
    ["compare", "q.txt", "a", "b", "-m", "AP", "--correction", "fdr"],
    ["compare", "q.txt", "a", "b", "-m", "AP", "--resamples", "0"],
    ["compare", "q.txt", "a", "b", "-m", "AP", "--format", "html"],
])
def test_cli_compare_usage_errors_exit_2(argv, capsys):
    status, _ = run_cli(argv)
    assert status == 2
    assert "usage: rankkit compare" in capsys.readouterr().err


QRELS_TEXT = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d4 1\nq2 0 d5 1\nq3 0 d6 1\n"
GOOD_RUN = ("q1 Q0 d1 1 3.0 good\nq1 Q0 d3 2 2.0 good\nq1 Q0 d2 3 1.0 good\n"
            "q2 Q0 d4 1 2.0 good\nq2 Q0 d5 2 1.0 good\nq3 Q0 d6 1 1.0 good\n")
BAD_RUN = ("q1 Q0 d2 1 3.0 bad\nq1 Q0 d1 2 2.0 bad\nq1 Q0 d3 3 1.0 bad\n"
           "q2 Q0 x 1 3.0 bad\nq2 Q0 d5 2 2.0 bad\nq2 Q0 d4 3 1.0 bad\n")  # no q3


def test_missing_query_in_a_run_end_to_end(tmp_path):
    if not _evaluate_works():
        pytest.skip("rankkit.evaluate's reader/ranker are still stubs")
    (tmp_path / "qrels").write_text(QRELS_TEXT)
    (tmp_path / "good").write_text(GOOD_RUN)
    (tmp_path / "bad").write_text(BAD_RUN)
    qrels, runs = tmp_path / "qrels", {"bad": tmp_path / "bad", "good": tmp_path / "good"}
    with pytest.warns(UserWarning, match="missing from the run"):
        with pytest.raises(ValueError, match=r"1 query \('q3'\) missing from 'bad'"):
            compare(str(qrels), {k: str(v) for k, v in runs.items()}, ["AP"])
    table = compare(str(qrels), {k: str(v) for k, v in runs.items()}, ["P@1", "AP"],
                    queries="qrels")
    p1 = table[table["metric"] == "P@1"].iloc[0]
    # P@1: bad 0, 0, 0 (q3 missing scores 0); good 1, 1, 1.
    assert (p1["mean"], p1["baseline_mean"], p1["n_queries"]) == (1.0, 0.0, 3)
    assert p1["p_value"] == 0.0 and p1["effect_size"] == np.inf  # constant difference


def test_cli_compare_end_to_end(tmp_path, monkeypatch):
    if not _evaluate_works():
        pytest.skip("rankkit.evaluate's reader/ranker are still stubs")
    (tmp_path / "qrels").write_text(QRELS_TEXT)
    (tmp_path / "good").write_text(GOOD_RUN)
    (tmp_path / "bad").write_text(BAD_RUN + "q3 Q0 x 1 2.0 bad\nq3 Q0 d6 2 1.0 bad\n")
    monkeypatch.chdir(tmp_path)
    status, csv = run_cli(["compare", "qrels", "bad", "good", "-m", "AP", "-m", "RR",
                           "--format", "csv"])
    assert status == 0
    frame = pd.read_csv(__import__("io").StringIO(csv))
    expected = compare("qrels", {"bad": "bad", "good": "good"}, ["AP", "RR"])
    assert frame["p_value"].tolist() == pytest.approx(expected["p_value"].tolist(), rel=1e-12)
    rr = frame[frame["metric"] == "RR"].iloc[0]
    # RR: bad 1/2, 1/2, 1/2; good 1, 1, 1: constant difference 0.5.
    assert (rr["diff"], rr["ci_low"], rr["ci_high"]) == (0.5, 0.5, 0.5)


def test_compare_warns_once_per_message_at_the_callers_line(tmp_path):
    import inspect
    import warnings

    (tmp_path / "qrels").write_text(QRELS_TEXT)
    good_without_q3 = GOOD_RUN.replace("q3 Q0 d6 1 1.0 good\n", "")
    (tmp_path / "good").write_text(good_without_q3 + "q4 Q0 z 1 1.0 x\n")  # judged q3 missing from both
    (tmp_path / "bad").write_text(BAD_RUN + "q9 Q0 z 1 1.0 x\n")
    runs = {"bad": str(tmp_path / "bad"), "good": str(tmp_path / "good")}
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        compare(str(tmp_path / "qrels"), runs, ["AP", "RR"])
    assert [str(w.message) for w in seen] == [
        "bad: run queries without judgments are not scored (1): q9",
        "every run: judged queries missing from the run are not scored (1; queries='qrels' scores them "
        "as 0): q3",  # once, not once per run
        "good: run queries without judgments are not scored (1): q4",
    ]
    assert {(w.filename, w.lineno) for w in seen} == {(__file__, line)}  # the caller's line, not stats.py
    assert all(w.category is UserWarning for w in seen)


def test_compare_warning_given_by_every_run_is_printed_once(tmp_path, monkeypatch, capsys):
    (tmp_path / "qrels").write_text(QRELS_TEXT)
    extra = "q9 Q0 z 1 1.0 x\n"
    (tmp_path / "good.run").write_text(GOOD_RUN + extra)
    (tmp_path / "bad.run").write_text(BAD_RUN + "q3 Q0 d6 1 1.0 bad\n" + extra)
    monkeypatch.chdir(tmp_path)
    status, text = run_cli(["compare", "qrels", "bad.run", "good.run", "-m", "AP", "--baseline", "bad"])
    assert status == 0 and text.splitlines()[1].split()[:2] == ["good.run", "bad.run"]
    assert capsys.readouterr().err == (
        "rankkit compare: warning: every run: run queries without judgments are not scored (1): q9\n")


def test_wide_layout():
    a = pd.DataFrame({"AP": [0.2, 0.4, 0.1, 0.5], "P@5": [0.2, 0.4, 0.2, 0.4]})
    b = pd.DataFrame({"AP": [0.3, 0.6, 0.2, 0.6], "P@5": [0.2, 0.4, 0.4, 0.2]})
    c = pd.DataFrame({"AP": [0.2, 0.4, 0.2, 0.4], "P@5": [0.4, 0.6, 0.4, 0.6]})
    table = compare(None, {"bm25": a, "neural": b, "rm3": c}, ["AP", "P@5"], baseline="bm25",
                    correction="none")
    # AP: neural - bm25 = 0.1, 0.2, 0.1, 0.1 (p = 0.0154); rm3 - bm25 = 0, 0, 0.1, -0.1.
    # P@5: rm3 - bm25 = 0.2 everywhere: constant, p = 0 -> marked.
    assert to_markdown(table, layout="wide").splitlines() == [
        "| System | AP      | P@5     |",
        "| ------ | ------- | ------- |",
        "| bm25   | 0.3000  | 0.3000  |",
        "| neural | 0.4250† | 0.3000  |",
        "| rm3    | 0.3000  | 0.5000† |",
        "",
        "Means; † significantly different from bm25 at alpha = 0.05 (paired t-test, no correction).",
    ]
    tex = to_latex(table, layout="wide").splitlines()
    assert tex[:4] == ["\\begin{tabular}{lrr}", "\\toprule", "System & AP & P@5 \\\\", "\\midrule"]
    assert tex[5] == "neural & 0.4250$^\\dagger$ & 0.3000 \\\\"
    with pytest.raises(ValueError, match=r"layout='wide' needs a table with one baseline "
                                         r"\(compare\(..., baseline=NAME\)\), got 2 baselines"):
        to_markdown(compare(None, {"bm25": a, "neural": b, "rm3": c}, "AP"), layout="wide")
    with pytest.raises(ValueError, match="layout must be one of 'long', 'wide', got 'tall'"):
        to_latex(table, layout="tall")


# --------------------------------------------------------------------------- what pyterrier users pick

@settings(max_examples=sweep(60), deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12),
       st.sampled_from(["holm", "bonferroni", "sidak", "holm-sidak", "simes-hochberg", "hommel",
                        "fdr_bh", "fdr_by"]))
@example([1.0], "sidak")  # log1p(-1): once a numpy warning, an error under pytest
@example([1.0, 0.5], "holm-sidak")
def test_corrections_equal_statsmodels(p, method):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    want = multitest.multipletests(np.array(p), method=method)[1]
    np.testing.assert_allclose(adjust_pvalues(p, method), want, rtol=0, atol=1e-12)


def test_correction_aliases():
    p = [0.01, 0.04, 0.03, 0.2]
    np.testing.assert_array_equal(adjust_pvalues(p, "bh"), adjust_pvalues(p, "fdr_bh"))
    np.testing.assert_array_equal(adjust_pvalues(p, "by"), adjust_pvalues(p, "fdr_by"))
    np.testing.assert_array_equal(adjust_pvalues(p, "hochberg"), adjust_pvalues(p, "simes-hochberg"))


def _tables(n_systems=3, n_queries=25, seed=3):
    rng = np.random.default_rng(seed)
    index = pd.Index([f"q{i}" for i in range(n_queries)], name="query_id")
    return {name: pd.DataFrame({"AP": rng.random(n_queries), "nDCG@10": rng.random(n_queries)}, index=index)
            for name in "ABC"[:n_systems]}


def test_wilcoxon_equals_scipy():
    tables = _tables()
    table = compare(None, tables, ["AP", "nDCG@10"], test="wilcoxon", correction="none")
    for row in table.itertuples():
        want = stats.wilcoxon(tables[row.system][row.metric], tables[row.baseline][row.metric]).pvalue
        assert abs(row.p_value - want) < 1e-12
    assert table.attrs["test"] == "wilcoxon"


def test_wilcoxon_identical_systems():
    tables = _tables(2)
    tables["B"] = tables["A"].copy()
    assert compare(None, tables, ["AP"], test="wilcoxon").p_value.tolist() == [1.0]


def test_tukey_equals_scipy_over_all_systems():
    tables = _tables()
    table = compare(None, tables, ["AP"], test="tukey", correction="none")
    res = stats.tukey_hsd(*[tables[n]["AP"].to_numpy() for n in "ABC"])
    ci = res.confidence_interval(0.95)
    for row in table.itertuples():
        i, j = "ABC".index(row.system), "ABC".index(row.baseline)
        assert abs(row.p_value - res.pvalue[i, j]) < 1e-12
        assert abs(row.ci_low - ci.low[i, j]) < 1e-12 and abs(row.ci_high - ci.high[i, j]) < 1e-12
    # Tukey's HSD covers the family itself: no correction by default, any other refused
    default = compare(None, tables, ["AP"], test="tukey")
    assert default.attrs["correction"] == "none"
    assert default["p_adjusted"].tolist() == default["p_value"].tolist() == table["p_value"].tolist()
    with pytest.raises(ValueError, match="correction must be 'none' \\(or 'auto'\\) with test='tukey'.*got 'holm'"):
        compare(None, tables, ["AP"], test="tukey", correction="holm")
    assert compare(None, tables, ["AP"]).attrs["correction"] == "holm"  # "auto": holm for the other tests


def test_callable_test():
    tables = _tables()
    table = compare(None, tables, ["AP"], test=lambda x, y: stats.ttest_rel(x, y), correction="none")
    plain = compare(None, tables, ["AP"], test="t", correction="none")
    np.testing.assert_allclose(table.p_value, plain.p_value, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="test must return a p-value in \\[0, 1\\], got 2"):
        compare(None, tables, ["AP"], test=lambda x, y: 2)
    with pytest.raises(ValueError, match="test must return a p-value \\(a number\\)"):
        compare(None, tables, ["AP"], test=lambda x, y: "small")


def test_pyterrier_view():
    tables = _tables()
    table = compare(None, tables, ["AP", "nDCG@10"], baseline="A", correction="holm")
    view = rankkit.stats.pyterrier_view(table)
    assert view.index.tolist() == ["A", "B", "C"]
    assert list(view.columns[:6]) == ["AP", "AP +", "AP -", "AP p-value", "AP p-value corrected", "AP reject"]
    for name in "BC":
        d = tables[name]["AP"] - tables["A"]["AP"]
        assert view.loc[name, "AP +"] == (d > 0).sum() and view.loc[name, "AP -"] == (d < 0).sum()
        assert abs(view.loc[name, "AP"] - tables[name]["AP"].mean()) < 1e-12
    assert abs(view.loc["A", "nDCG@10"] - tables["A"]["nDCG@10"].mean()) < 1e-12
    assert view.loc["A", ["AP +", "AP p-value"]].isna().all()
    with pytest.raises(ValueError, match="pyterrier_view needs one baseline"):
        rankkit.stats.pyterrier_view(compare(None, tables, ["AP"]))


def test_compare_of_tables_does_not_depend_on_their_row_order():
    # resamples draw queries by position: the queries are put in one order (trec_eval's) first
    rng = np.random.default_rng(1)
    ids = pd.Index([f"q{i}" for i in range(30)], name="query_id")
    a, b = (pd.DataFrame({"AP": rng.random(30)}, index=ids) for _ in range(2))
    for test in ("bootstrap", "randomization", "t"):
        first = rankkit.compare(None, {"a": a, "b": b}, "AP", test=test)
        shuffled = rankkit.compare(None, {"a": a.iloc[::-1], "b": b.sample(frac=1, random_state=3)}, "AP", test=test)
        pd.testing.assert_frame_equal(first, shuffled)


def test_model_score_tables_compare_per_query_without_their_all_row():
    rng = np.random.default_rng(3)
    query = np.repeat(np.arange(40), 8)
    labels = rng.integers(0, 3, len(query))
    a = rankkit.evaluate_scores(labels, labels + rng.normal(size=len(query)), query, ["nDCG@5", "AP"])
    b = rankkit.evaluate_scores(labels, labels + 2 * rng.normal(size=len(query)), query, ["nDCG@5", "AP"])
    table = compare(None, {"a": a, "b": b}, ["nDCG@5", "AP"], baseline="b")
    frames = compare(None, {"a": a.to_frame(all=False), "b": b.to_frame(all=False)}, ["nDCG@5", "AP"], baseline="b")
    pd.testing.assert_frame_equal(table, frames)
    assert (table["n_queries"] == 40).all()
    assert table.set_index("metric").loc["nDCG@5", "mean"] == pytest.approx(float(np.mean(a["nDCG@5"])))
    with pytest.raises(ValueError, match=r"system 'a': the per-query table has an 'all' row, which is no query"):
        compare(None, {"a": a.to_frame(), "b": b.to_frame()}, ["nDCG@5"])


def test_a_metric_that_cannot_score_a_query_says_what_to_do():
    labels, query = [1, 0, 1, 1, 0, 1], [1, 1, 2, 2, 3, 3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = rankkit.evaluate_scores(labels, [0.9, 0.1, 0.5, 0.4, 0.2, 0.8], query, ["AUC"])
        b = rankkit.evaluate_scores(labels, [0.1, 0.9, 0.5, 0.4, 0.8, 0.2], query, ["AUC"])
    with pytest.raises(ValueError, match=r"got nan for metric 'AUC', query 2; a paired comparison needs a finite "
                                         r"value for every query: .* frame\[np.isfinite\(frame\).all\(axis=1\)\]"):
        compare(None, {"a": a, "b": b}, "AUC")
    frames = {name: t.to_frame(all=False) for name, t in {"a": a, "b": b}.items()}  # the advice, followed
    keeps = [frame[np.isfinite(frame).all(axis=1)].index for frame in frames.values()]
    common = keeps[0].intersection(keeps[1])
    table = compare(None, {name: frame.loc[common] for name, frame in frames.items()}, "AUC")
    assert list(common) == [1, 3] and len(table) == 1
