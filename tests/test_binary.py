"""Tests of rankkit.binary: the sources' worked examples, hand-computed cases, properties,
exact expectations under ties (checked by brute force), errors, and agreement with
trec_eval through pytrec_eval."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

from rankkit import Rankings, as_rankings
from rankkit.metrics.binary import (  # noqa: I001
    STANDARD_RECALL_LEVELS,
    average_precision,
    bpref,
    fallout,
    interpolated_precision,
    interpolated_precision_average,
    judged,
    num_relevant,
    num_relevant_retrieved,
    num_retrieved,
    pr_curve,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
    success,
)
from rankkit.metrics.interpolation import recall_cut

pytrec_eval = pytest.importorskip("pytrec_eval")


# --------------------------------------------------------------------------- helpers


def make_rankings(queries, ties=None) -> Rankings:
    """Build a Rankings by hand from ``(retrieved, unretrieved)`` per query.

    ``retrieved`` holds the qrels label of each retrieved document in rank order, or
    None for an unjudged one (labels < 0 are "pooled but not judged"); ``unretrieved``
    holds the labels of the judged documents that were not retrieved.
    """
    n = len(queries)
    depth = max([len(ret) for ret, _ in queries] + [0])
    labels = np.zeros((n, depth))
    is_judged = np.zeros((n, depth), dtype=bool)
    lengths = np.array([len(ret) for ret, _ in queries], dtype=np.int64)
    all_judged = []
    for i, (ret, unret) in enumerate(queries):
        for j, lab in enumerate(ret):
            if lab is not None and lab >= 0:
                labels[i, j] = lab
                is_judged[i, j] = True
        all_judged.append(
            sorted([lab for lab in list(ret) + list(unret) if lab is not None and lab >= 0], reverse=True)
        )
    n_judged = np.array([len(a) for a in all_judged], dtype=np.int64)
    ideal = np.zeros((n, max(n_judged.max(initial=0), 1)))
    for i, a in enumerate(all_judged):
        ideal[i, : len(a)] = a
    return Rankings(
        labels=labels, judged=is_judged, lengths=lengths, ideal=ideal, n_judged=n_judged,
        query_ids=pd.Index([f"q{i}" for i in range(n)], name="query_id"),
        ties=None if ties is None else np.asarray(ties, dtype=np.int64),
    )


def trec_eval_scores(queries) -> dict:
    """Write the queries as a run + qrels and score them with pytrec_eval (trec_eval)."""
    qrels, run = {}, {}
    for i, (ret, unret) in enumerate(queries):
        qid = f"q{i}"
        qrels[qid], run[qid] = {}, {}
        for j, lab in enumerate(ret):
            doc = f"r{j:04d}"
            run[qid][doc] = float(len(ret) - j)  # distinct, descending: the order is unambiguous
            if lab is not None:
                qrels[qid][doc] = int(lab)
        for j, lab in enumerate(unret):
            qrels[qid][f"u{j:04d}"] = int(lab)
    measures = {"P", "recall", "map", "map_cut", "recip_rank", "Rprec", "success", "bpref",
                "iprec_at_recall", "num_rel_ret", "num_ret", "num_rel"}
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


def ours(r: Rankings) -> dict[str, np.ndarray]:
    out = {
        "P_5": precision(r, k=5), "P_10": precision(r, k=10),
        "recall_5": recall(r, k=5), "recall_100": recall(r, k=100),
        "map": average_precision(r),
        "map_cut_5": average_precision(r, k=5), "map_cut_10": average_precision(r, k=10),
        "recip_rank": reciprocal_rank(r), "Rprec": r_precision(r),
        "success_1": success(r, k=1), "success_5": success(r, k=5), "success_10": success(r, k=10),
        "bpref": bpref(r),
        "num_rel_ret": num_relevant_retrieved(r), "num_ret": num_retrieved(r),
        "num_rel": num_relevant(r),
    }
    iprec = interpolated_precision(r, rounding="plus_0.9")  # pytrec_eval is trec_eval 9.0.8
    for j, level in enumerate(STANDARD_RECALL_LEVELS):
        out[f"iprec_at_recall_{level:.2f}"] = iprec[:, j]
    return out


def assert_agrees_with_trec_eval(queries) -> None:
    expected = trec_eval_scores(queries)
    got = ours(make_rankings(queries))
    for i in range(len(queries)):
        for name, values in got.items():
            assert values[i] == pytest.approx(expected[f"q{i}"][name], abs=1e-9), (i, name)


def brute_force(metric, labels, groups, **kwargs) -> float:
    """Average ``metric`` over every order of the documents inside each tie group."""
    labels = np.asarray(labels, dtype=float)
    groups = np.asarray(groups)
    spans = [np.flatnonzero(groups == g) for g in dict.fromkeys(groups.tolist())]
    values = []
    for orders in itertools.product(*(itertools.permutations(s) for s in spans)):
        perm = np.empty(len(labels), dtype=int)
        for span, order in zip(spans, orders):
            perm[span] = order
        values.append(metric(labels[perm], **kwargs))
    return float(np.mean(values))


def tied(labels, groups) -> Rankings:
    """A one-query Rankings with tie groups; the groups label runs of consecutive ranks."""
    labels = np.asarray(labels, dtype=float)[None, :]
    r = as_rankings(labels)
    return Rankings(
        labels=r.labels, judged=r.judged, lengths=r.lengths, ideal=r.ideal,
        n_judged=r.n_judged, query_ids=r.query_ids, ties=np.asarray(groups, dtype=np.int64)[None, :],
    )


def apk_labels(actual, predicted) -> list[int]:
    """Ben Hamner's apk as labels: relevant if in ``actual`` and not predicted earlier."""
    seen, out = set(), []
    for p in predicted:
        out.append(int(p in actual and p not in seen))
        seen.add(p)
    return out


def reference_apk(actual, predicted, k=10) -> float:
    """ml_metrics.apk (Ben Hamner), transcribed from its published definition."""
    predicted = predicted[:k]
    score, hits = 0.0, 0.0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            hits += 1.0
            score += hits / (i + 1.0)
    return score / min(len(actual), k) if actual else 0.0


label_rows = st.lists(st.integers(0, 2), min_size=0, max_size=25)


# --------------------------------------------------------------------------- source 000


def test_source000_precision_recall_at_5():
    # 7 documents A..G; A, C, G relevant in the top 5, F relevant below it.
    ranking = [1, 0, 1, 0, 1, 1, 0]
    assert precision(ranking, k=5) == pytest.approx(3 / 5)
    assert recall(ranking, k=5) == pytest.approx(3 / 4)
    # Only the 5 shown labels, with the relevant count given.
    assert recall(ranking[:5], k=5, n_relevant=4) == pytest.approx(3 / 4)
    assert precision(ranking[:5]) == pytest.approx(3 / 5)


def test_source000_average_precision_at_5():
    q1 = [1, 0, 1, 1, 0]  # relevant at 1, 3, 4
    q2 = [0, 1, 0, 1, 1]  # relevant at 2, 4, 5
    assert average_precision(q1, k=5, normalize="retrieved") == pytest.approx(0.81, abs=0.005)
    assert average_precision(q2, k=5, normalize="retrieved") == pytest.approx(0.53, abs=0.005)
    assert average_precision(q1, k=5, normalize="retrieved") == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
    assert average_precision(q2, k=5) == pytest.approx((1 / 2 + 2 / 4 + 3 / 5) / 3)
    # "relevant" agrees when R = 3, and divides by R when a relevant document is missed.
    assert average_precision(q1, k=5) == pytest.approx(average_precision(q1, k=5, normalize="retrieved"))
    assert average_precision(q1 + [1], k=5) == pytest.approx((1 + 2 / 3 + 3 / 4) / 4)
    assert average_precision(q1 + [1], k=5, normalize="retrieved") == pytest.approx(0.81, abs=0.005)


# --------------------------------------------------------------------------- source 001


def test_source001_mrr():
    # The table read column by column: first relevant at ranks 2, 1, 3.
    queries = [[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0]]
    rr = reciprocal_rank(queries)
    np.testing.assert_allclose(rr, [1 / 2, 1, 1 / 3])
    assert rr.mean() == pytest.approx(0.61, abs=0.005)


def test_source001_map_at_5_exercise():
    # The 2-column table read row by row.
    queries = [[1, 0, 1, 0, 1], [0, 1, 0, 1, 0]]
    ap = average_precision(queries, k=5)
    np.testing.assert_allclose(ap, [(1 + 2 / 3 + 3 / 5) / 3, (1 / 2 + 2 / 4) / 2])
    assert ap.mean() == pytest.approx((34 / 45 + 1 / 2) / 2)  # 0.6278


# --------------------------------------------------------------------------- source 002

RANKING_1 = [1, 0, 1, 1, 1, 1, 0, 0, 0, 1]  # O X O O O O X X X O
RANKING_2 = [0, 1, 0, 0, 1, 1, 1, 0, 1, 1]  # X O X X O O O X O O


@pytest.mark.parametrize(
    "ranking, recalls, precisions",
    [
        (
            RANKING_1,
            ["1/6", "1/6", "2/6", "3/6", "4/6", "5/6", "5/6", "5/6", "5/6", "6/6"],
            ["1/1", "1/2", "2/3", "3/4", "4/5", "5/6", "5/7", "5/8", "5/9", "6/10"],
        ),
        (
            RANKING_2,
            ["0/6", "1/6", "1/6", "1/6", "2/6", "3/6", "4/6", "4/6", "5/6", "6/6"],
            # The article prints "(0/6)" first: a typo for 0/1.
            ["0/1", "1/2", "1/3", "1/4", "2/5", "3/6", "4/7", "4/8", "5/9", "6/10"],
        ),
    ],
)
def test_source002_precision_recall_tables(ranking, recalls, precisions):
    recalls = [float(Fraction(x)) for x in recalls]
    precisions = [float(Fraction(x)) for x in precisions]
    curve = pr_curve(ranking)
    np.testing.assert_allclose(curve["recall"], recalls, rtol=0, atol=1e-15)
    np.testing.assert_allclose(curve["precision"], precisions, rtol=0, atol=1e-15)
    assert curve["rank"].tolist() == list(range(1, 11))
    for i in range(10):
        assert precision(ranking, k=i + 1) == pytest.approx(precisions[i], abs=1e-15)
        assert recall(ranking, k=i + 1) == pytest.approx(recalls[i], abs=1e-15)


def test_source002_average_precision_of_the_two_rankings():
    ap1 = (1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 10) / 6
    ap2 = (1 / 2 + 2 / 5 + 3 / 6 + 4 / 7 + 5 / 9 + 6 / 10) / 6
    assert average_precision(RANKING_1) == pytest.approx(ap1, abs=1e-15)  # 0.775
    assert average_precision(RANKING_2) == pytest.approx(ap2, abs=1e-15)  # 0.5212
    assert ap1 > ap2  # the article: #1's errors come late, so its AP is higher
    # AP is the area under the stepwise PR curve.
    curve = pr_curve(RANKING_1)
    area = (curve["precision"] * np.diff(np.r_[0.0, curve["recall"]])).sum()
    assert area == pytest.approx(ap1, abs=1e-15)


def test_source002_rose_example():
    assert average_precision([0, 0, 1, 1, 1, 1]) == pytest.approx(0.525, abs=1e-15)


@pytest.mark.parametrize(
    "period, expected", [([0, 1], 0.5), ([0, 0, 1], 1 / 3), ([0] * 9 + [1], 0.1)]
)
def test_source002_periodic_lists(period, expected):
    assert average_precision(period * 30) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "actual, prediction, k, expected",
    [
        (range(1, 6), [6, 4, 7, 1, 2], 2, 0.25),
        (range(1, 6), [1, 1, 1, 1, 1], 5, 0.2),
        (range(1, 101), list(range(1, 21)) + list(range(200, 601)), 20, 1.0),
        ([1, 3], range(1, 6), 3, 5 / 6),
        ([1, 2, 3], [1, 1, 1], 3, 1 / 3),
        ([1, 2, 3], [1, 2, 1], 3, 2 / 3),
        (range(1, 6), range(1, 11), 10, 1.0),  # the first case, apk's default k = 10
    ],
)
def test_source002_matlab_apk_cases(actual, prediction, k, expected):
    actual, prediction = list(actual), list(prediction)
    labels = apk_labels(actual, prediction)
    got = average_precision(labels, k=k, normalize="min_k", n_relevant=len(actual))
    assert abs(got - expected) < np.finfo(float).eps  # the Matlab tests' tolerance
    assert got == pytest.approx(reference_apk(actual, prediction, k), abs=1e-15)


def test_source002_plural_mrr():
    # cat -> cats at 3, torus -> tori at 2, virus -> viruses at 1.
    rr = reciprocal_rank([[0, 0, 1], [0, 1, 0], [1, 0, 0]], k=3)
    assert rr.mean() == pytest.approx(0.61, abs=0.005)
    assert rr.mean() == pytest.approx((1 / 3 + 1 / 2 + 1) / 3)


@pytest.mark.parametrize("k, printed", [(3, 0.611), (5, 0.456), (10, 0.293)])
def test_source002_mrr_uniform_in_top_k(k, printed):
    # The single answer equally often at each of the top k positions: MRR = H_k / k.
    mrr = reciprocal_rank(np.eye(k), k=k).mean()
    assert mrr == pytest.approx(sum(1 / i for i in range(1, k + 1)) / k, abs=1e-15)
    # The source adds rounded terms (0.33...): 0.456 for 0.4567, hence 1e-3.
    assert abs(mrr - printed) < 1e-3


@given(
    actual=st.lists(st.integers(0, 15), min_size=1, max_size=8, unique=True),
    prediction=st.lists(st.integers(0, 15), min_size=0, max_size=15),
    k=st.integers(1, 12),
)
@settings(max_examples=sweep(100))
def test_min_k_reproduces_ml_metrics_apk(actual, prediction, k):
    labels = apk_labels(actual, prediction)
    got = average_precision(labels, k=k, normalize="min_k", n_relevant=len(actual))
    assert got == pytest.approx(reference_apk(actual, prediction, k), abs=1e-12)


# --------------------------------------------------------------------------- hand-computed, edge cases


def test_precision_divides_by_k_beyond_the_list():
    assert precision([1, 1], k=5) == pytest.approx(0.4)
    assert precision([1, 1, 0]) == pytest.approx(2 / 3)  # k=None: by the number retrieved
    np.testing.assert_allclose(precision([[1, 0, 1], [1]]), [2 / 3, 1.0])  # ragged rows


def test_empty_lists_and_no_relevant_score_zero():
    empty = [[], [0, 0]]
    for metric in (precision, recall, r_precision, success, average_precision,
                   reciprocal_rank, bpref):
        np.testing.assert_array_equal(metric(empty), [0.0, 0.0])
    np.testing.assert_array_equal(judged(empty), [0.0, 1.0])
    np.testing.assert_array_equal(num_retrieved(empty), [0.0, 2.0])
    np.testing.assert_array_equal(interpolated_precision(empty), np.zeros((2, 11)))
    assert precision([0, 0, 0], k=2) == 0.0 and average_precision([0, 0]) == 0.0
    assert pr_curve([]).empty


def test_r_precision_when_fewer_than_r_retrieved():
    assert r_precision([1, 1], n_relevant=4) == pytest.approx(0.5)
    assert r_precision([0, 1, 1]) == pytest.approx(0.5)
    assert r_precision([1, 2, 0], rel=2) == pytest.approx(0.0)


def test_reciprocal_rank_cutoff():
    assert reciprocal_rank([0, 0, 0, 1]) == pytest.approx(0.25)
    assert reciprocal_rank([0, 0, 0, 1], k=3) == 0.0
    assert reciprocal_rank([0, 2, 1], rel=2) == pytest.approx(0.5)


def test_success_and_counts():
    np.testing.assert_array_equal(success([[0, 1], [0, 0]], k=1), [0.0, 0.0])
    np.testing.assert_array_equal(success([[0, 1], [0, 0]], k=2), [1.0, 0.0])
    assert num_relevant([2, 1, 0], rel=2) == 1.0
    assert num_relevant_retrieved(make_rankings([([1, None, 0], [1, 1])])) == 1.0
    assert num_relevant(make_rankings([([1, None, 0], [1, 1])])) == 3.0


def test_average_precision_normalizations_by_hand():
    labels = [0, 1, 0, 1, 1]  # R = 3 among these; pretend 6 relevant exist
    s = 1 / 2 + 2 / 4
    assert average_precision(labels, k=4, n_relevant=6) == pytest.approx(s / 6)
    assert average_precision(labels, k=4, normalize="retrieved", n_relevant=6) == pytest.approx(s / 2)
    assert average_precision(labels, k=4, normalize="min_k", n_relevant=6) == pytest.approx(s / 4)
    assert average_precision(labels, normalize="min_k") == pytest.approx(average_precision(labels))


def test_bpref_by_hand():
    # Judged: rel, nonrel, [unjudged], rel, nonrel; plus 1 relevant and 2 non-relevant unretrieved.
    r = make_rankings([([1, 0, None, 1, 0], [1, 0, 0])])
    # R = 3, N = 4, min(N, R) = 3: first rel adds 1, second has 1 nonrel above: 1 - 1/3.
    assert bpref(r) == pytest.approx((1 + (1 - 1 / 3)) / 3)
    # N = 0: every retrieved relevant adds 1 (bpref = recall).
    assert bpref(make_rankings([([None, 1, None], [1])])) == pytest.approx(0.5)
    # R = 0.
    assert bpref(make_rankings([([0, 0], [])])) == 0.0
    # More non-relevant above than R: capped at min(n_r, R) / min(N, R) = 1.
    assert bpref([0, 0, 0, 1]) == 0.0


def test_judged_reproduces_ir_measures_test():
    # ir_measures tests/test_judged.py, query 1: D1 (unjudged), D3 (judged), D2, D4 (unjudged).
    r = make_rankings([([None, 2, None, None], [1, 2])])
    assert judged(r) == pytest.approx(1 / 4)
    for k, expected in [(1000, 1 / 4), (10, 1 / 4), (3, 1 / 3), (1, 0.0)]:
        assert judged(r, k=k) == pytest.approx(expected)
    # Query 0: all five judged.
    assert judged(make_rankings([([0, 1, 1, 2, 0], [])]), k=3) == 1.0
    # Labels < 0 ("pooled but not judged") are unjudged.
    assert judged(make_rankings([([-1, 1], [])])) == pytest.approx(0.5)


def test_interpolated_precision_by_hand():
    # R = 3; relevant at ranks 2, 3 and 6: precisions 1/2, 2/3, 3/6.
    ranking = [0, 1, 1, 0, 0, 1, 0]
    levels = [0.0, 0.3, 0.34, 0.5, 0.7, 1.0]
    # cuts floor(l*3 + .9): 0 -> max, 1 -> rank 2: 2/3, 1 (0.34*3+.9=1.92), 2 -> rank 3: 2/3,
    # 2 (in doubles 0.7*3 + 0.9 = 2.9999999999999996, as in trec_eval 9's C; pytrec_eval also
    # gives 2/3 here) -> rank 3: 2/3, and 3 -> rank 6: 1/2
    np.testing.assert_allclose(
        interpolated_precision(ranking, recall_levels=levels, rounding="plus_0.9"),
        [2 / 3, 2 / 3, 2 / 3, 2 / 3, 2 / 3, 0.5],
    )
    # trec_eval 10 rounds to nearest: 0.3*3 -> 1, 0.34*3 -> 1, 0.5*3 = 1.5 -> 2, 0.7*3 -> 2, 3.
    np.testing.assert_allclose(
        interpolated_precision(ranking, recall_levels=levels, rounding="nearest"),
        [2 / 3, 2 / 3, 2 / 3, 2 / 3, 2 / 3, 0.5],
    )
    # R = 10 at level 0.25: lround(2.5) = 3 (halves away from zero, not to even): rank 5, 3/5.
    ten = [1, 1, 0, 0, 1] + [0] * 5 + [1] * 7
    assert interpolated_precision(ten, recall_levels=[0.25], rounding="nearest")[0] == pytest.approx(0.6)
    assert interpolated_precision(ten, recall_levels=[0.25], rounding="plus_0.9")[0] == pytest.approx(0.6)
    # R = 474 at level 0.1 (trec_eval's topic 301): 47 vs 48.
    many = [0, 1] * 47 + [0, 0, 1]  # 48 relevant: the 47th at rank 94, the 48th at rank 97
    got = {m: interpolated_precision(many, recall_levels=[0.1], n_relevant=474, rounding=m)[0]
           for m in ("nearest", "plus_0.9")}
    assert got == {"nearest": pytest.approx(0.5), "plus_0.9": pytest.approx(48 / 97)}
    # A level never reached scores 0.
    np.testing.assert_allclose(
        interpolated_precision([0, 1, 1], n_relevant=4, recall_levels=[0.5, 0.6, 1.0], rounding="plus_0.9"),
        [2 / 3, 0, 0],  # 0.6 * 4 + 0.9 -> 3 > 2 found
    )
    np.testing.assert_allclose(
        interpolated_precision([0, 1, 1], n_relevant=4, recall_levels=[0.5, 0.6, 0.7], rounding="nearest"),
        [2 / 3, 2 / 3, 0],  # lround(2.4) = 2 is reached, lround(2.8) = 3 is not
    )
    assert interpolated_precision([[1], [0]]).shape == (2, 11)
    assert interpolated_precision([1, 0]).shape == (11,)


def test_pr_curve_long_format():
    curve = pr_curve([[1, 0], [0, 1, 1]])
    assert list(curve.columns) == ["query_id", "rank", "relevant", "precision", "recall",
                                   "interpolated_precision"]
    assert curve["query_id"].tolist() == [0, 0, 1, 1, 1]
    assert curve["rank"].tolist() == [1, 2, 1, 2, 3]
    np.testing.assert_allclose(curve["precision"], [1, 0.5, 0, 0.5, 2 / 3])
    np.testing.assert_allclose(curve["recall"], [1, 1, 0, 0.5, 1])
    np.testing.assert_allclose(curve["interpolated_precision"], [1, 0.5, 2 / 3, 2 / 3, 2 / 3])
    # AP from the curve.
    ap = curve[curve["relevant"]].groupby("query_id")["precision"].sum() / [1, 2]
    np.testing.assert_allclose(ap, average_precision([[1, 0], [0, 1, 1]]))


# --------------------------------------------------------------------------- ties="average"

TIE_CASES = [
    ([1, 0, 1, 0, 0, 1], [0, 0, 0, 1, 1, 2]),
    ([0, 0, 1, 1, 0, 0, 0], [0, 1, 1, 1, 1, 2, 3]),
    ([2, 0, 0, 1, 0, 1], [0, 1, 1, 1, 2, 2]),
    ([0, 0, 0, 0, 1], [0, 0, 0, 0, 0]),
    ([1, 0, 0, 0, 0], [5, 6, 6, 6, 6]),
]


@pytest.mark.parametrize("labels, groups", TIE_CASES)
def test_ties_average_is_the_exact_expectation(labels, groups):
    r = tied(labels, groups)
    for k in (1, 2, 3, 4, 5, 8, None):
        for metric in (precision, recall, success):
            assert metric(r, k=k)[0] == pytest.approx(brute_force(metric, labels, groups, k=k), abs=1e-12), (metric, k)
    assert r_precision(r)[0] == pytest.approx(brute_force(r_precision, labels, groups), abs=1e-12)
    assert num_relevant_retrieved(r)[0] == brute_force(num_relevant_retrieved, labels, groups)
    assert precision(r, k=2, rel=2)[0] == pytest.approx(brute_force(precision, labels, groups, k=2, rel=2))


@st.composite
def tied_lists(draw):
    labels = draw(st.lists(st.integers(0, 2), min_size=1, max_size=7))
    breaks = draw(st.lists(st.booleans(), min_size=len(labels) - 1, max_size=len(labels) - 1))
    groups = np.cumsum([0] + [int(b) for b in breaks])
    return labels, groups


@given(case=tied_lists(), k=st.integers(1, 8))
@settings(max_examples=sweep(60))
def test_ties_average_matches_brute_force(case, k):
    labels, groups = case
    r = tied(labels, groups)
    for metric in (precision, recall, success):
        assert metric(r, k=k)[0] == pytest.approx(brute_force(metric, labels, groups, k=k), abs=1e-12)
    assert r_precision(r)[0] == pytest.approx(brute_force(r_precision, labels, groups), abs=1e-12)


def ap_written_out(labels, k=None, normalize="relevant", rel=1) -> float:
    """AP of one order: P@i summed over the relevant ranks i <= k, over the denominator."""
    found, total = 0, 0.0
    for i, label in enumerate(labels[:k], start=1):
        if label >= rel:
            found += 1
            total += found / i
    n_rel = sum(label >= rel for label in labels)
    den = {"relevant": n_rel, "retrieved": found, "min_k": n_rel if k is None else min(n_rel, k)}[normalize]
    return total / den if den else 0.0


def rr_written_out(labels, k=None, rel=1) -> float:
    return next((1 / i for i, label in enumerate(labels[:k], start=1) if label >= rel), 0.0)


def over_orders(func, labels, groups, **kwargs) -> float:
    """The mean of ``func`` over every order inside each tie group, as exact fractions."""
    spans = [[i for i, g in enumerate(groups) if g == name] for name in dict.fromkeys(groups)]
    values = [Fraction(func([labels[i] for block in orders for i in block], **kwargs))
              for orders in itertools.product(*(itertools.permutations(span) for span in spans))]
    return float(sum(values) / len(values))


def tied_many(cases) -> Rankings:
    """Several queries with tie groups at once (ragged; padding in groups of its own, ids
    reused from row to row, as a hand-made Rankings may)."""
    depth = max(len(labels) for labels, _ in cases)
    rows = [list(labels) + [0] * (depth - len(labels)) for labels, _ in cases]
    r = as_rankings([list(labels) for labels, _ in cases])
    ties = np.array([list(groups) + list(range(100, 100 + depth - len(groups))) for _, groups in cases])
    assert np.array_equal(r.labels, np.asarray(rows, dtype=float))
    return Rankings(labels=r.labels, judged=r.judged, lengths=r.lengths, ideal=r.ideal, n_judged=r.n_judged,
                    query_ids=r.query_ids, ties=ties.astype(np.int64))


@pytest.mark.parametrize("labels, groups", TIE_CASES)
def test_ap_and_rr_under_ties_are_the_exact_expectation(labels, groups):
    r = tied(labels, groups)
    for k in (1, 2, 3, 4, 5, 8, None):
        for normalize in ("relevant", "min_k") + (("retrieved",) if k is None else ()):
            want = over_orders(ap_written_out, labels, groups, k=k, normalize=normalize)
            assert average_precision(r, k=k, normalize=normalize)[0] == pytest.approx(want, abs=1e-14), (k, normalize)
        assert reciprocal_rank(r, k=k)[0] == pytest.approx(over_orders(rr_written_out, labels, groups, k=k), abs=1e-14)
    assert average_precision(r, rel=2)[0] == pytest.approx(over_orders(ap_written_out, labels, groups, rel=2))
    assert reciprocal_rank(r, rel=2)[0] == pytest.approx(over_orders(rr_written_out, labels, groups, rel=2))


def test_ap_and_rr_under_ties_by_hand():
    # one group of 4 holding 2 relevant at the top: the first relevant one is at rank 1 with
    # probability 1/2, 2 with 1/3, 3 with 1/6, so E[RR] = 1/2 + 1/6 + 1/18 = 13/18
    r = tied([1, 1, 0, 0], [0, 0, 0, 0])
    assert reciprocal_rank(r)[0] == pytest.approx(13 / 18, abs=1e-15)
    # McSherry & Najork's AP term: rank i of the group adds (2/4) * (1 + (i - 1) / 3) / i,
    # i = 1..4: 1/2 + 1/3 + 5/18 + 1/4, divided by R = 2
    assert average_precision(r)[0] == pytest.approx((1 / 2 + 1 / 3 + 5 / 18 + 1 / 4) / 2, abs=1e-15)
    assert average_precision(r, k=2)[0] == pytest.approx((1 / 2 + 1 / 3) / 2, abs=1e-15)
    # a relevant document above the group: RR is 1 whatever the order below
    assert reciprocal_rank(tied([1, 1, 0, 0], [0, 1, 1, 1]))[0] == 1.0


@given(cases=st.lists(tied_lists(), min_size=1, max_size=4), k=st.one_of(st.none(), st.integers(1, 8)))
@settings(max_examples=sweep(60))
def test_ap_and_rr_under_ties_match_brute_force_on_many_queries_at_once(cases, k):
    cases = [(labels[:6], list(groups[:6])) for labels, groups in cases]  # at most 6! orders
    r = tied_many(cases)
    ap, rr, ap_min_k = average_precision(r, k=k), reciprocal_rank(r, k=k), average_precision(r, k=k, normalize="min_k")
    for q, (labels, groups) in enumerate(cases):
        assert ap[q] == pytest.approx(over_orders(ap_written_out, labels, groups, k=k), abs=1e-13)
        assert ap_min_k[q] == pytest.approx(over_orders(ap_written_out, labels, groups, k=k, normalize="min_k"),
                                            abs=1e-13)
        assert rr[q] == pytest.approx(over_orders(rr_written_out, labels, groups, k=k), abs=1e-13)


def test_ap_and_rr_without_tie_groups_are_unchanged_bit_for_bit():
    rows = [[1, 0, 1, 0, 0, 1], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 0]]
    singles = tied_many([(row, list(range(len(row)))) for row in rows])  # every group one document
    for tied_rule in ("expected", "group_end"):
        for k in (None, 1, 3, 10):
            np.testing.assert_array_equal(average_precision(singles, k=k, tied=tied_rule), average_precision(rows, k=k))
    for k in (None, 1, 3, 10):
        np.testing.assert_array_equal(reciprocal_rank(singles, k=k), reciprocal_rank(rows, k=k))


def test_ap_group_end_by_hand():
    # groups [1, 0] and [1, 0, 0] (R = 2): 1 * (1/2) + 1 * (2/5), over R
    r = tied([1, 0, 1, 0, 0], [0, 0, 1, 1, 1])
    assert average_precision(r, tied="group_end")[0] == pytest.approx((1 / 2 + 2 / 5) / 2, abs=1e-15)
    # cut at k = 3: the second group keeps 1 of its 3 ranks, x = 1/3 relevant expected,
    # at precision (1 + 1/3) / 3
    assert average_precision(r, k=3, tied="group_end")[0] == pytest.approx((1 / 2 + (1 / 3) * (4 / 9)) / 2)
    assert average_precision(r, k=3, tied="group_end", normalize="min_k")[0] == pytest.approx(
        (1 / 2 + (1 / 3) * (4 / 9)) / 2)


def test_ap_tie_options_errors():
    r = tied([1, 0, 1], [0, 0, 1])
    with pytest.raises(ValueError, match=r"tied must be one of 'expected', 'group_end', got 'mean'"):
        average_precision(r, tied="mean")
    with pytest.raises(ValueError, match=r"normalize='retrieved' takes no cutoff k on rankings with tie groups"):
        average_precision(r, k=2, normalize="retrieved")
    assert average_precision(r, normalize="retrieved")[0] == pytest.approx(
        over_orders(ap_written_out, [1, 0, 1], [0, 0, 1], normalize="retrieved"))


def ranked_by_scores(rows) -> Rankings:
    """Queries given as (labels, scores) lists, ranked by score descending with every run of
    equal scores one tie group (what ties='average' builds)."""
    cases = []
    for labels, scores in rows:
        order = np.argsort(-np.asarray(scores, dtype=float), kind="stable")
        ranked = [scores[i] for i in order]
        cases.append(([labels[i] for i in order], [ranked.index(x) for x in ranked]))
    return tied_many(cases)


@given(rows=st.lists(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 4)), min_size=1, max_size=12),
                     min_size=1, max_size=4))
@settings(max_examples=sweep(100))
def test_ap_group_end_is_sklearn_average_precision_score(rows):
    from sklearn.metrics import average_precision_score

    pairs = [([a for a, _ in row], [b for _, b in row]) for row in rows]
    ours = average_precision(ranked_by_scores(pairs), tied="group_end")
    for q, (labels, scores) in enumerate(pairs):
        if any(labels):  # scikit-learn warns and gives 0.0 without a positive label, as rankkit does
            assert ours[q] == pytest.approx(average_precision_score(labels, scores), abs=1e-12)
        else:
            assert ours[q] == 0.0


def test_ap_group_end_fixed_against_sklearn():
    from sklearn.metrics import average_precision_score

    labels, scores = [1, 0, 1, 1, 0, 0], [0.9, 0.9, 0.5, 0.5, 0.5, 0.1]
    want = average_precision_score(labels, scores)  # (1 * 1/2 + 2 * 3/5) / 3
    assert want == pytest.approx((1 / 2 + 2 * 3 / 5) / 3, abs=1e-15)
    assert average_precision(ranked_by_scores([(labels, scores)]), tied="group_end")[0] == pytest.approx(want,
                                                                                                          abs=1e-15)


@pytest.mark.parametrize("metric", [bpref, judged, interpolated_precision, pr_curve])
def test_ties_average_refused_where_not_linear(metric):
    with pytest.raises(ValueError, match=rf"ties='average' is not supported by {metric.__name__}"):
        metric(tied([1, 0, 1], [0, 0, 1]))


def test_no_ties_rankings_unaffected():
    r = tied([0, 1, 0], [0, 1, 2])  # every group a single document: no randomness
    assert success(r, k=1)[0] == 0.0 and success(r, k=2)[0] == 1.0
    assert precision(r, k=2)[0] == 0.5


# --------------------------------------------------------------------------- fall-out


def test_fallout_by_hand():
    # 3 non-relevant of 5 documents; the top 3 holds 2 of them
    assert fallout([1, 0, 0, 1, 0], k=3) == pytest.approx(2 / 3, abs=1e-15)
    assert fallout([1, 0, 0, 1, 0]) == 1.0  # the whole list retrieves every one
    assert fallout([1, 0, 0, 1, 0], k=1) == 0.0
    assert fallout([2, 1, 0], k=2, rel=2) == 0.5  # rel=2: label 1 is not relevant
    assert fallout([[1, 1], [0, 1]], k=1).tolist() == [0.0, 1.0]  # no non-relevant document: 0.0
    # N from a caller: 4 judged non-relevant documents, one of them in the top 2
    assert fallout([1, 0, 1], k=2, n_nonrelevant=4) == 0.25


def test_fallout_counts_judged_documents_only():
    # retrieved: rel 1, unjudged, non-relevant, "pooled but not judged" (-1); not retrieved:
    # two judged non-relevant and one relevant, so N = 3
    r = make_rankings([([1, None, 0, -1], [0, 0, 1])])
    assert r.n_judged[0] == 5
    assert fallout(r, k=2)[0] == 0.0
    assert fallout(r, k=3)[0] == pytest.approx(1 / 3, abs=1e-15)
    assert fallout(r)[0] == pytest.approx(1 / 3, abs=1e-15)


def test_fallout_is_one_minus_the_specificity_of_the_top_k():
    labels = [1, 0, 1, 0, 0, 1, 0, 0]
    for k in range(1, 10):
        top = labels[:k]
        retrieved_nonrel = sum(1 for x in top if x == 0)
        not_retrieved_nonrel = sum(1 for x in labels[k:] if x == 0)
        specificity = not_retrieved_nonrel / (retrieved_nonrel + not_retrieved_nonrel)
        assert fallout(labels, k=k) == pytest.approx(1 - specificity, abs=1e-15)


@pytest.mark.parametrize("labels, groups", TIE_CASES)
def test_fallout_under_ties_is_the_exact_expectation(labels, groups):
    r = tied(labels, groups)
    for k in (1, 2, 3, 4, 5, 8, None):
        assert fallout(r, k=k)[0] == pytest.approx(brute_force(fallout, labels, groups, k=k), abs=1e-12)


def test_fallout_errors():
    with pytest.raises(ValueError, match=r"n_nonrelevant must be at least the number of judged non-relevant"):
        fallout([0, 0, 1], n_nonrelevant=1)
    with pytest.raises(ValueError, match=r"n_nonrelevant must be a non-negative integer, got -1"):
        fallout([0, 1], n_nonrelevant=-1)
    with pytest.raises(ValueError, match=r"k must be a positive integer or None, got 0"):
        fallout([0, 1], k=0)


@pytest.mark.oracle
@pytest.mark.slow  # importing torch
@given(rows=st.lists(st.lists(st.tuples(st.booleans(), st.integers(0, 1000)), min_size=1, max_size=12,
                              unique_by=lambda t: t[1]), min_size=1, max_size=4),
       k=st.one_of(st.none(), st.integers(1, 14)))
@settings(max_examples=sweep(60))
def test_fallout_matches_torchmetrics_retrieval_fall_out(rows, k):
    torch = pytest.importorskip("torch")
    from torchmetrics.functional.retrieval import retrieval_fall_out

    for labels, scores in ([[a for a, _ in row], [b for _, b in row]] for row in rows):
        order = np.argsort(-np.asarray(scores), kind="stable")
        ours = fallout([int(labels[i]) for i in order], k=k)
        theirs = retrieval_fall_out(torch.tensor(scores, dtype=torch.float64) / 1000, torch.tensor(labels),
                                    top_k=k)
        assert ours == pytest.approx(float(theirs), rel=1e-7)  # torchmetrics divides in float32


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("k", [0, -1, 2.0, True, "3"])
@pytest.mark.parametrize(
    "metric", [precision, recall, success, average_precision, reciprocal_rank, judged]
)
def test_bad_k(metric, k):
    with pytest.raises(ValueError, match=r"k must be a positive integer or None, got"):
        metric([1, 0], k=k)


@pytest.mark.parametrize("rel", [0, -1, float("nan"), float("inf"), True])
@pytest.mark.parametrize(
    "metric",
    [precision, recall, r_precision, success, average_precision, reciprocal_rank, bpref,
     num_relevant, num_relevant_retrieved, interpolated_precision, pr_curve],
)
def test_bad_rel(metric, rel):
    with pytest.raises(ValueError, match=r"rel must be a positive number"):
        metric([1, 0], rel=rel)


def test_bad_rounding():
    with pytest.raises(ValueError, match=r"rounding must be one of 'textbook', 'nearest', 'plus_0.9', got 'floor'"):
        interpolated_precision([1, 0], rounding="floor")


def test_bad_normalize():
    with pytest.raises(ValueError, match=r"normalize must be one of 'relevant', 'retrieved', 'min_k', got 'R'"):
        average_precision([1, 0], normalize="R")


@pytest.mark.parametrize("metric", [recall, r_precision, average_precision, interpolated_precision, pr_curve])
def test_bad_n_relevant(metric):
    with pytest.raises(ValueError, match=r"n_relevant must be a non-negative integer"):
        metric([1, 0], n_relevant=-1)
    with pytest.raises(ValueError, match=r"n_relevant must be a non-negative integer"):
        metric([1, 0], n_relevant=1.5)
    with pytest.raises(ValueError, match=r"n_relevant must be a scalar or have one value per query \(2\)"):
        metric([[1, 0], [0, 1]], n_relevant=[1, 2, 3])
    with pytest.raises(ValueError, match=r"n_relevant must be at least the number of relevant labels"):
        metric([1, 0, 1], n_relevant=1)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
@pytest.mark.parametrize("metric", [precision, average_precision, bpref, pr_curve])
def test_non_finite_labels(metric, bad):
    with pytest.raises(ValueError, match=r"labels must be finite"):
        metric([1, bad, 0])


@pytest.mark.parametrize("levels, message", [
    ([0.5, 1.5], r"recall_levels must be in \[0, 1\], got 1.5"),
    ([-0.1], r"recall_levels must be in \[0, 1\], got -0.1"),
    ([float("nan")], r"recall_levels must be finite"),
    ([[0.1]], r"recall_levels must be 1-D"),
    (["a"], r"recall_levels must be numbers in \[0, 1\]"),
])
def test_bad_recall_levels(levels, message):
    with pytest.raises(ValueError, match=message):
        interpolated_precision([1, 0], recall_levels=levels)


# --------------------------------------------------------------------------- trec_eval (pytrec_eval)

FIXED_QUERIES = [
    ([1, 0, 1, 1, 0, 0, 1], [1]),                        # source 000-like, one relevant unretrieved
    ([0, 1, 0, 0, 1, 1, 1, 0, 1, 1], []),                # source 002, ranking 2
    ([None, 1, None, 0, 2, None, 0, 1], [0, 0, 2, 1]),   # unjudged docs, graded labels
    ([0, 0, None], [0]),                                 # R = 0
    ([None, None, 1], [1] * 12),                         # R > depth (Rprec, iprec cuts)
    ([1] * 12 + [0] * 3, [1] * 3),                       # long list, recall levels 0.x * 15
    ([-1, 0, 1, -1, 1], [0, -1]),                        # "pooled but not judged" (-1)
    ([2], [0, 0, 0]),
    ([0] * 11 + [1], [0] * 2),
]


def test_fixed_cases_agree_with_trec_eval():
    assert_agrees_with_trec_eval(FIXED_QUERIES)


qrel_label = st.one_of(st.none(), st.integers(0, 2))
queries_strategy = st.lists(
    st.tuples(
        st.lists(qrel_label, min_size=1, max_size=30),
        st.lists(st.integers(0, 2), min_size=0, max_size=12),
    ).filter(lambda q: any(lab is not None for lab in q[0]) or q[1]),  # trec_eval needs qrels
    min_size=1, max_size=6,
)


@given(queries=queries_strategy)
@settings(max_examples=sweep(100))
def test_random_cases_agree_with_trec_eval(queries):
    assert_agrees_with_trec_eval(queries)


# --------------------------------------------------------------------------- properties


@given(rows=st.lists(label_rows, min_size=1, max_size=6), k=st.integers(1, 30))
@settings(max_examples=sweep(100))
def test_range_and_batch_equals_per_row(rows, k):
    batch = {
        "P": precision(rows, k=k), "R": recall(rows, k=k), "Rprec": r_precision(rows),
        "S": success(rows, k=k), "AP": average_precision(rows, k=k),
        "APret": average_precision(rows, k=k, normalize="retrieved"),
        "APmin": average_precision(rows, k=k, normalize="min_k"),
        "RR": reciprocal_rank(rows, k=k), "bpref": bpref(rows), "J": judged(rows, k=k),
    }
    singles = {
        "P": lambda x: precision(x, k=k), "R": lambda x: recall(x, k=k), "Rprec": r_precision,
        "S": lambda x: success(x, k=k), "AP": lambda x: average_precision(x, k=k),
        "APret": lambda x: average_precision(x, k=k, normalize="retrieved"),
        "APmin": lambda x: average_precision(x, k=k, normalize="min_k"),
        "RR": lambda x: reciprocal_rank(x, k=k), "bpref": bpref, "J": lambda x: judged(x, k=k),
    }
    for name, values in batch.items():
        assert values.shape == (len(rows),)
        assert np.all((values >= 0) & (values <= 1 + 1e-12)), name
        for i, row in enumerate(rows):
            single = singles[name](row)
            assert isinstance(single, float)
            assert single == pytest.approx(values[i], abs=1e-12), name
    iprec = interpolated_precision(rows)
    assert np.all((iprec >= 0) & (iprec <= 1))
    assert np.all(np.diff(iprec, axis=1) <= 1e-12)  # interpolated precision never rises with recall
    for i, row in enumerate(rows):
        np.testing.assert_allclose(interpolated_precision(row), iprec[i], atol=1e-12)


@given(row=label_rows)
@settings(max_examples=sweep(100))
def test_recall_non_decreasing_in_k(row):
    values = [recall(row, k=k) for k in range(1, len(row) + 3)]
    assert all(b >= a for a, b in zip(values, values[1:]))
    assert recall(row) == (1.0 if any(row) else 0.0)  # a bare list holds every relevant item


@given(row=label_rows)
@settings(max_examples=sweep(100))
def test_perfect_ranking_scores_one(row):
    perfect = sorted(row, reverse=True)
    if any(perfect):
        assert average_precision(perfect) == pytest.approx(1.0)
        assert r_precision(perfect) == pytest.approx(1.0)
        assert reciprocal_rank(perfect) == 1.0
        np.testing.assert_allclose(interpolated_precision(perfect), 1.0)
    else:
        assert average_precision(perfect) == 0.0 and r_precision(perfect) == 0.0


@given(row=label_rows)
@settings(max_examples=sweep(50))
def test_pr_curve_agrees_with_point_metrics(row):
    curve = pr_curve(row)
    assert len(curve) == len(row)
    for i in range(len(row)):
        assert curve["precision"].iloc[i] == pytest.approx(precision(row, k=i + 1))
        assert curve["recall"].iloc[i] == pytest.approx(recall(row, k=i + 1))
    if len(row):
        area = (curve["precision"] * np.diff(np.r_[0.0, curve["recall"]])).sum()
        assert area == pytest.approx(average_precision(row))


# --------------------------------------------------------------------------- trec_eval's own test data

CONFORMANCE = Path(__file__).resolve().parent / "data" / "trec_eval"   # trec_eval 10.0's test data, in the repository


def _conformance_queries(qrels_file: str):
    """trec_eval's test run as per-query (retrieved labels, unretrieved labels)."""
    qrels: dict[str, dict[str, int]] = {}
    for line in (CONFORMANCE / qrels_file).read_text().splitlines():
        qid, _, doc, lab = line.split()
        qrels.setdefault(qid, {})[doc] = int(lab)
    run: dict[str, list[tuple[float, str]]] = {}
    for line in (CONFORMANCE / "results.test").read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, []).append((float(score), doc))
    qids = sorted(run)
    queries = []
    for qid in qids:
        # trec_eval's order: score descending, then document id descending.
        docs = [doc for _, doc in sorted(run[qid], reverse=True)]
        retrieved = set(docs)
        queries.append((
            [qrels[qid].get(doc) for doc in docs],
            [lab for doc, lab in qrels[qid].items() if doc not in retrieved],
        ))
    return qids, queries


def _trec_eval_output(name: str) -> dict[tuple[str, str], float]:
    values = {}
    for line in (CONFORMANCE / name).read_text().splitlines():
        measure, qid, value = (part.strip() for part in line.split("\t"))
        try:
            values[measure, qid] = float(value)
        except ValueError:
            pass  # runid, relstring
    return values


@pytest.mark.parametrize("qrels_file, output, rel", [
    ("qrels.test", "out.test.aq", 1),
    ("qrels.rel_level", "out.test.aql", 2),  # graded labels, -1 = pooled but not judged, -l2
])
def test_trec_eval_test_data(qrels_file, output, rel):
    qids, queries = _conformance_queries(qrels_file)
    r = make_rankings(queries)
    expected = _trec_eval_output(output)
    got = {
        "num_ret": num_retrieved(r), "num_rel": num_relevant(r, rel=rel),
        "num_rel_ret": num_relevant_retrieved(r, rel=rel),
        "map": average_precision(r, rel=rel), "Rprec": r_precision(r, rel=rel),
        "bpref": bpref(r, rel=rel), "recip_rank": reciprocal_rank(r, rel=rel),
    }
    for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000):
        got[f"P_{k}"] = precision(r, k=k, rel=rel)
        got[f"recall_{k}"] = recall(r, k=k, rel=rel)
        got[f"map_cut_{k}"] = average_precision(r, k=k, rel=rel)
    for k in (1, 5, 10):
        got[f"success_{k}"] = success(r, k=k, rel=rel)
    iprec = interpolated_precision(r, rel=rel, rounding="nearest")
    for j, level in enumerate(STANDARD_RECALL_LEVELS):
        got[f"iprec_at_recall_{level:.2f}"] = iprec[:, j]
    checked = 0
    for name, values in got.items():
        for i, qid in enumerate(qids):
            assert values[i] == pytest.approx(expected[name, qid], abs=5.1e-5), (name, qid)
            checked += 1
        # The "all" line is the mean over queries.
        assert values.mean() == pytest.approx(expected[name, "all"], abs=5.1e-5) or name.startswith("num_")
    assert checked == len(got) * 3


def test_trec_eval_test_data_measure_parameters():
    # trec_eval -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -msuccess.2,5,20
    qids, queries = _conformance_queries("qrels.test")
    r = make_rankings(queries)
    expected = _trec_eval_output("out.test.meas_params")
    levels = [0.10, 0.20, 0.25, 0.50, 0.75]
    iprec = interpolated_precision(r, recall_levels=levels, rounding="nearest")
    got = {f"iprec_at_recall_{level:.2f}": iprec[:, j] for j, level in enumerate(levels)}
    got.update({f"P_{k}": precision(r, k=k) for k in (3, 5, 7)})
    got.update({f"recall_{k}": recall(r, k=k) for k in (20, 2000)})
    got.update({f"success_{k}": success(r, k=k) for k in (2, 5, 20)})
    for name, values in got.items():
        for i, qid in enumerate(qids):
            assert values[i] == pytest.approx(expected[name, qid], abs=5.1e-5), (name, qid)


def reference_iprec(labels, n_rel, levels, rounding) -> list[float]:
    """trec_eval's m_iprec_at_recall.c loop, transcribed (one query, relevant = label >= 1)."""
    import math

    def cut(x):
        return int(math.floor(x + 0.9)) if rounding == "plus_0.9" else int(math.floor(x + 0.5))

    rel = [lab >= 1 for lab in labels]
    num_ret, num_rel_ret = len(rel), sum(rel)
    cutoffs = [cut(level * n_rel) for level in levels]
    values = [0.0] * len(levels)
    current = len(levels) - 1
    while current >= 0 and cutoffs[current] > num_rel_ret:
        current -= 1
    int_precis = num_rel_ret / num_ret if num_ret else 0.0
    so_far = num_rel_ret
    i = num_ret
    while i > 0 and so_far > 0:
        int_precis = max(int_precis, so_far / i)
        if rel[i - 1]:
            while current >= 0 and so_far == cutoffs[current]:
                values[current] = int_precis
                current -= 1
            so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = int_precis
        current -= 1
    return values


@given(
    row=st.lists(st.integers(0, 1), min_size=1, max_size=40),
    extra=st.integers(0, 30),
    levels=st.lists(st.floats(0, 1), min_size=1, max_size=6).map(sorted),
    rounding=st.sampled_from(["nearest", "plus_0.9"]),
)
@settings(max_examples=sweep(100))
def test_interpolated_precision_matches_trec_eval_loop(row, extra, levels, rounding):
    n_rel = sum(row) + extra
    got = interpolated_precision(row, recall_levels=levels, n_relevant=n_rel, rounding=rounding)
    np.testing.assert_allclose(got, reference_iprec(row, n_rel, levels, rounding), rtol=0, atol=1e-15)


# --------------------------------------------------------------------------- textbook interpolation


def test_interpolated_precision_textbook_by_hand():
    """Manning et al. sec. 8.4: the highest precision at any rank whose recall is >= l."""
    # Jason's ranking 1, O X O O O O X X X O: R = 6, relevant at ranks 1, 3, 4, 5, 6, 10,
    # precisions 1, 2/3, 3/4, 4/5, 5/6, 6/10; recall reaches 0.2 at rank 3 (1/6 < 0.2 <= 2/6),
    # from where the best precision is 5/6; 0.9 and 1.0 only at rank 10 (5/6 < 0.9).
    ranking = [1, 0, 1, 1, 1, 1, 0, 0, 0, 1]
    expected = [1, 1] + [5 / 6] * 7 + [0.6, 0.6]
    np.testing.assert_array_equal(interpolated_precision(ranking), expected)
    assert interpolated_precision_average(ranking) == pytest.approx((2 + 35 / 6 + 1.2) / 11)
    # trec_eval 10 reads level 0.2 at lround(1.2) = 1 relevant document, recall 1/6 < 0.2
    assert interpolated_precision(ranking, rounding="nearest")[2] == 1.0
    # R = 3, relevant at ranks 2, 3, 6: recall 0.7 is reached only at rank 6 (2/3 < 0.7)
    np.testing.assert_array_equal(
        interpolated_precision([0, 1, 1, 0, 0, 1, 0], recall_levels=[0.0, 0.3, 0.34, 0.5, 0.7, 1.0]),
        [2 / 3, 2 / 3, 2 / 3, 2 / 3, 0.5, 0.5],
    )


def test_interpolated_precision_textbook_counts_as_a_reader_does():
    # R = 25, level 0.28: in doubles 0.28 * 25 = 7.000000000000001, so a naive ceil gives 8; but
    # the recall at the 7th relevant document, 7 / 25, is 0.28 and reaches the level.
    assert 0.28 * 25 > 7 and 7 / 25 >= 0.28
    ranking = [1] * 7 + [0] * 3 + [1] * 18  # 7th relevant at rank 7 (P = 1), 8th at rank 11
    assert interpolated_precision(ranking, recall_levels=[0.28])[0] == 1.0
    assert interpolated_precision(ranking, recall_levels=[0.2800000000000001])[0] == pytest.approx(25 / 28)
    # the other way: 0.33333333333333337 * 3 is 1.0, but 1 / 3 is below that level
    level = 0.33333333333333337
    assert level * 3 == 1.0 and 1 / 3 < level
    assert interpolated_precision([1, 0, 1, 1], recall_levels=[level])[0] == 0.75
    # the count itself against brute force, for every R up to 300 and the standard levels
    for n_rel in range(1, 301):
        got = recall_cut(STANDARD_RECALL_LEVELS, n_rel, "textbook")
        want = [next(c for c in range(n_rel + 1) if c / n_rel >= level) for level in STANDARD_RECALL_LEVELS]
        np.testing.assert_array_equal(got, want)
    assert recall_cut(0.5, 0, "textbook") == 0  # no relevant document: nothing to count


def test_interpolated_precision_average_textbook_ignores_level_order():
    ranking = [0, 1, 0, 1, 1, 0, 0, 1]
    levels = [0.9, 0.1, 0.5, 0.3]
    assert interpolated_precision_average(ranking, recall_levels=levels) == pytest.approx(
        interpolated_precision(ranking, recall_levels=levels).mean())
    # trec_eval's walk gives the levels before an out-of-order one the first relevant's value
    assert interpolated_precision_average(ranking, recall_levels=levels, rounding="nearest") != \
        pytest.approx(interpolated_precision(ranking, recall_levels=levels, rounding="nearest").mean())


def textbook_iprec(labels, n_rel, levels) -> list[float]:
    """Plain Python: max precision over the ranks whose recall hits / R is >= the level."""
    points, hits = [], 0
    for i, label in enumerate(labels, start=1):
        hits += label >= 1
        points.append((hits / n_rel if n_rel else 0.0, hits / i))
    if not n_rel:
        return [0.0] * len(levels)
    return [max([p for rec, p in points if rec >= level], default=0.0) for level in levels]


recall_level = st.one_of(
    st.floats(0, 1),
    st.sampled_from([float(x) for x in STANDARD_RECALL_LEVELS]),
    st.tuples(st.integers(0, 40), st.integers(1, 40)).filter(lambda t: t[0] <= t[1]).map(lambda t: t[0] / t[1]),
)


@given(
    row=st.lists(st.integers(0, 1), max_size=40),
    extra=st.integers(0, 30),
    levels=st.lists(recall_level, min_size=1, max_size=8),
)
@settings(max_examples=sweep(300))
def test_interpolated_precision_textbook_matches_plain_python(row, extra, levels):
    n_rel = sum(row) + extra
    want = textbook_iprec(row, n_rel, levels)
    got = interpolated_precision([row], recall_levels=levels, n_relevant=[n_rel])[0]
    np.testing.assert_array_equal(got, want)  # the same doubles: bit for bit
    average = interpolated_precision_average([row], recall_levels=levels, n_relevant=[n_rel])[0]
    assert average == pytest.approx(sum(want) / len(want), abs=1e-15)
