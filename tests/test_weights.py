"""Weights: one per query (``rk.aggregate``, ``rk.compare``, ``rk.evaluate_scores``) and one
per item (``evaluate_scores(item_weights=...)``, TensorFlow Ranking's per-example weights).

Every weighted number meets a computation that shares no code with it: numpy's ``average``,
statsmodels' ``DescrStatsW``, scikit-learn's ``sample_weight``, Python loops; and the values
TensorFlow Ranking's own tests state (``tensorflow_ranking/python/metrics_impl_test.py`` and
``tensorflow_ranking/python/keras/metrics_test.py`` at commit 5b1d133 of
github.com/tensorflow/ranking, 2024-03-18), test by test, the TFR test named in each case.
Equal weights give the unweighted numbers bit for bit.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit as rk
from rankkit.metrics import weighting
from rankkit.rankings import Rankings


def quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rk.evaluate_scores(*args, **kwargs)


def log2p1(rank):
    return math.log2(1.0 + rank)


# --------------------------------------------------------------------------- TensorFlow Ranking's tests


def tfr(labels, scores, weights, metrics, **options):
    """TFR's [batch, list_size] inputs as rows of evaluate_scores: list i is query i."""
    labels, scores, weights = (np.asarray(x, dtype=np.float64) for x in (labels, scores, weights))
    query = np.repeat(np.arange(labels.shape[0]), labels.shape[1])
    return rk.evaluate_scores(labels.ravel(), scores.ravel(), query, metrics, item_weights=weights.ravel(), **options)


def list_weights(table, metric):
    return table.settings["list_weights"][metric].tolist()


S2 = [[1., 3., 2.], [1., 2., 3.]]
NDCG, DCG = "nDCG(gain='exp')", "DCG(gain='exp')"  # TFR's default gain 2**label - 1

# (TFR test, metric, scores, labels, weights, the list weights TFR's test states)
TFR_LIST_WEIGHTS = [
    ("MRRMetricTest.test_mrr_weights_should_be_average_weight_of_rel_items", "RR", S2,
     [[1., 0., 0.], [0., 1., 1.]], [[2., 5., 1.], [1., 2., 3.]], [2., (2. + 3.) / 2.]),
    ("MRRMetricTest.test_mrr_weights_should_be_1_without_rel_items", "RR", [[1., 3., 2.], [1., 3., 2.]],
     [[0., 0., 0.], [0., 0., 0.]], [[2., 5., 1.], [1., 1., 0.]], [1., 1.]),
    ("MRRMetricTest.test_mrr_weights_should_be_regardless_of_topn", "RR@2", [[3., 2., 1.], [1., 3., 2.]],
     [[1., 0., 1.], [0., 1., 1.]], [[2., 0., 5.], [1., 4., 2.]], [(5. + 2.) / 2., (2. + 4.) / 2.]),
    ("HitsMetricTest.test_hits_weights_should_be_average_weight_of_rel_items", "success", S2,
     [[1., 0., 0.], [0., 1., 1.]], [[2., 5., 1.], [1., 2., 3.]], [2., (2. + 3.) / 2.]),
    ("HitsMetricTest.test_hits_weights_should_be_1_without_rel_items", "success", [[1., 3., 2.], [1., 3., 2.]],
     [[0., 0., 0.], [0., 0., 0.]], [[2., 5., 1.], [1., 1., 0.]], [1., 1.]),
    ("HitsMetricTest.test_hits_weights_should_be_regardless_of_topn", "success@1", [[3., 2., 1.], [1., 3., 2.]],
     [[1., 0., 1.], [0., 1., 1.]], [[2., 0., 5.], [1., 3., 2.]], [(5. + 2.) / 2., (2. + 3.) / 2.]),
    ("RecallMetricTest.test_recall_weights_should_be_avg_of_rel_items", "R", [[1., 3., 2.]],
     [[1., 1., 0.]], [[3., 9., 2.]], [(3. + 9.) / 2.]),
    ("RecallMetricTest.test_recall_weights_should_ignore_graded_relevance", "R", [[1., 3., 2.]],
     [[4., 0., 2.]], [[3., 9., 2.]], [(3. + 2.) / 2.]),
    ("RecallMetricTest.test_recall_weights_should_ignore_topn", "R@1", [[1., 3., 2.]],
     [[1., 1., 0.]], [[3., 9., 2.]], [(3. + 9.) / 2.]),
    ("RecallMetricTest.test_recall_weights_should_be_1_when_no_rel_items", "R", [[1., 3., 2.]],
     [[0., 0., 0.]], [[1., 1., 1.]], [1.]),  # TFR's weights=None: every weight 1
    ("PrecisionMetricTest.test_precision_weights_should_be_avg_of_weights_of_rel_items", "P", [[1., 3., 2.]],
     [[1., 0., 2.]], [[13., 7., 29.]], [(13. + 29.) / 2.]),
    ("PrecisionMetricTest.test_precision_weights_should_ignore_topn", "P@1", [[1., 3., 2.]],
     [[1., 1., 0.]], [[3., 7., 15.]], [(3. + 7.) / 2.]),
    ("PrecisionMetricTest.test_precision_weights_should_be_1_when_no_rel_items", "P@1", [[1., 3., 2.]],
     [[0., 0., 0.]], [[3., 7., 15.]], [1.]),
    ("MeanAveragePrecisionMetricTest.test_map_weights_should_be_avg_of_weights_of_rel_items", "AP", [[1., 3., 2.]],
     [[1., 0., 2.]], [[13., 7., 29.]], [(13. + 29.) / 2.]),
    ("MeanAveragePrecisionMetricTest.test_map_weights_should_ignore_topn", "AP@1", [[1., 3., 2.]],
     [[1., 1., 0.]], [[3., 7., 15.]], [(3. + 7.) / 2.]),
    ("MeanAveragePrecisionMetricTest.test_map_weights_should_be_1_when_no_rel_items", "AP", [[1., 3., 2.]],
     [[0., 0., 0.]], [[3., 7., 15.]], [1.]),
    ("NDCGMetricTest.test_ndcg_weights_should_be_average_of_weighted_gain", NDCG, [[1., 3., 2.]],
     [[1., 0., 2.]], [[3., 7., 9.]], [(1. * 3. + (2. ** 2. - 1.) * 9.) / (1. + (2. ** 2. - 1.))]),
    ("NDCGMetricTest.test_ndcg_weights_should_be_1_when_no_rel_items", NDCG, [[1., 3., 2.]],
     [[0., 0., 0.]], [[2., 4., 4.]], [1.]),
    ("NDCGMetricTest.test_ndcg_weights_should_use_custom_gain_fn", "nDCG(gain={0: 5, 1: 6, 2: 7})", [[1., 3., 2.]],
     [[1., 0., 2.]], [[3., 7., 9.]],
     [((1. + 5.) * 3. + (0. + 5.) * 7. + (2. + 5.) * 9.) / ((1. + 5.) + (0. + 5.) + (2. + 5.))]),
    ("DCGMetricTest.test_dcg_weights_should_be_average_of_weighted_gain", DCG, [[1., 3., 2.]],
     [[1., 0., 2.]], [[3., 7., 9.]], [(1. * 3. + (2. ** 2. - 1.) * 9.) / (1. + (2. ** 2. - 1.))]),
    ("DCGMetricTest.test_dcg_weights_should_be_1_when_no_rel_items", DCG, [[1., 3., 2.]],
     [[0., 0., 0.]], [[2., 4., 4.]], [1.]),
    ("DCGMetricTest.test_dcg_weights_should_use_custom_gain_fn", "DCG(gain={0: 3, 1: 4, 2: 5})", [[1., 3., 2.]],
     [[1., 0., 2.]], [[4., 1., 9.]],
     [((1. + 3.) * 4. + (0. + 3.) * 1. + (2. + 3.) * 9.) / ((1. + 3.) + (0. + 3.) + (2. + 3.))]),
    # keras/metrics_test.py: as_list_weights its tests state
    ("MetricsTest.test_precision_weights_with_zero_relevance", "P@2", [[1., 3., 2.], [1., 3., 2.], [1., 2., 3.]],
     [[0., 0., 0.], [0., 0., 1.], [0., 1., 2.]], [[0., 0., 1.], [1., 2., 3.], [4., 5., 6.]], [(3 + 5.5) / 2., 3, 5.5]),
    ("MetricsTest.test_normalized_discounted_cumulative_gain_with_weights_zero_relevance", NDCG, S2,
     [[0., 0., 0.], [0., 1., 2.]], [[1., 2., 3.], [4., 5., 6.]], [5.75, 5.75]),
    ("MetricsTest.test_recall_weights_with_zero_relevance", "R@1", [[1., 3., 2.], [1., 3., 2.], [1., 2., 3.]],
     [[0., 0., 0.], [0., 0., 1.], [0., 1., 2.]], [[0., 0., 1.], [1., 2., 3.], [4., 5., 6.]], [(3 + 5.5) / 2., 3, 5.5]),
]


@pytest.mark.parametrize("case", TFR_LIST_WEIGHTS, ids=[c[0] for c in TFR_LIST_WEIGHTS])
def test_list_weights_are_tensorflow_rankings(case):
    _, metric, scores, labels, weights, expected = case
    assert list_weights(tfr(labels, scores, weights, [metric]), metric) == pytest.approx(expected, rel=1e-12)


def _dcg(label, rank, weight=1.0):
    """keras/metrics_test.py's helper: weight * (2**label - 1) / log2(1 + rank)."""
    return weight * (2.0 ** label - 1.0) / log2p1(rank)


K_SCORES, K_LABELS, K_WEIGHTS = [[1., 3., 2.], [1., 2., 3.], [3., 1., 2.]], \
    [[0., 0., 1.], [0., 1., 2.], [0., 1., 0.]], [[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]]
MRW = [3., (5. + 6.) / 2., 8.]  # keras test_mean_reciprocal_rank's mean_relevant_weights
AP_LW, NDCG_LW = [3., 5.5], [3., (5. + 3. * 6.) / (1. + 3.)]
NDCG_1 = (_dcg(0., 1, 2.) + _dcg(1., 2, 3.) + _dcg(0., 3, 1.)) / (_dcg(1., 1, 3.) + _dcg(0., 2, 1.) + _dcg(0., 3, 2.))

# (TFR test, metric, lists taken, weights, the value TFR's test states)
TFR_VALUES = [
    ("MetricsTest.test_mean_reciprocal_rank", "RR", 2, K_WEIGHTS, (3. * 0.5 + (6. + 5.) / 2. * 1.) / (3. + 11. / 2.)),
    ("MetricsTest.test_mean_reciprocal_rank", "RR", 3, K_WEIGHTS,
     sum(w / r for w, r in zip(MRW, [2, 1, 3])) / sum(MRW)),
    ("MetricsTest.test_mean_reciprocal_rank", "RR@1", 3, K_WEIGHTS, (MRW[1] / 1) / sum(MRW)),
    ("MetricsTest.test_precision_with_weights", "P", 2, K_WEIGHTS, (1. / 3. * 3. + 2. / 3. * 5.5) / 8.5),
    ("MetricsTest.test_precision_with_weights", "P@2", 2, K_WEIGHTS, (1. / 2. * 3. + 2. / 2. * 5.5) / 8.5),
    ("MetricsTest.test_mean_average_precision_with_weights", "AP", 2, K_WEIGHTS,
     ((1. / 2.) * 3. / 3. * AP_LW[0] + (6. + 5.) / 11. * AP_LW[1]) / sum(AP_LW)),
    ("MetricsTest.test_mean_average_precision_with_weights", "AP@1", 2, K_WEIGHTS,
     (0. * AP_LW[0] + 6. / 11. * AP_LW[1]) / sum(AP_LW)),
    ("MetricsTest.test_mean_average_precision_with_weights", "AP@2", 2, K_WEIGHTS,
     ((1. / 2.) * 3. / 3. * AP_LW[0] + 11. / 11. * AP_LW[1]) / sum(AP_LW)),
    ("MetricsTest.test_normalized_discounted_cumulative_gain_with_weights", NDCG, 2, K_WEIGHTS,
     (NDCG_1 * NDCG_LW[0] + 1.0 * NDCG_LW[1]) / sum(NDCG_LW)),
    ("MetricsTest.test_normalized_discounted_cumulative_gain_with_weights", NDCG + "@1", 2, K_WEIGHTS,
     (_dcg(0., 1, 2.) / _dcg(1., 1, 3.) * NDCG_LW[0] + 1.0 * NDCG_LW[1]) / sum(NDCG_LW)),
]


@pytest.mark.parametrize("case", TFR_VALUES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in TFR_VALUES])
def test_weighted_means_are_tensorflow_rankings(case):
    _, metric, n, weights, expected = case
    table = tfr(K_LABELS[:n], K_SCORES[:n], weights[:n], [metric])
    assert float(table.all[metric]) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("metric", "expected"), [
    ("AP", (1. / 2.) * 3. / 3.),                     # MetricsTest.test_mean_average_precision_with_weights, list 0
    (NDCG + "@1", _dcg(0., 1, 2.) / _dcg(1., 1, 3.)),  # ... test_normalized_discounted_cumulative_gain_with_weights
    (NDCG, NDCG_1),
])
def test_one_list_values_are_tensorflow_rankings(metric, expected):
    assert float(tfr(K_LABELS[:1], K_SCORES[:1], K_WEIGHTS[:1], [metric])[metric][0]) == pytest.approx(expected)


def test_ap_of_the_second_list_is_tensorflow_rankings():
    # MetricsTest.test_mean_average_precision_with_weights: ((1/1) 6 + (2/2) 5) / (0 4 + 1 5 + 1 6)
    table = tfr(K_LABELS[1:2], K_SCORES[1:2], K_WEIGHTS[1:2], ["AP"])
    assert float(table["AP"][0]) == pytest.approx((6. + 5.) / 11.)


def test_ndcg_with_weights_is_tensorflow_rankings():
    # NDCGMetricTest.test_ndcg_with_weights: the ideal sorts the weighted gains (4 x 1 before 3 x 1)
    table = tfr([[1., 2., 3.]], [[1., 2., 3.]], [[4., 1., 1.]], [NDCG])
    expected = ((2**3. - 1.) / log2p1(1) + (2**2. - 1.) / log2p1(2) + (2**1. - 1.) / log2p1(3) * 4.) / (
        (2**3. - 1.) / log2p1(1) + (2**2. - 1.) / log2p1(3) + (2**1. - 1.) / log2p1(2) * 4.)
    assert float(table[NDCG][0]) == pytest.approx(expected)


@pytest.mark.parametrize(("metric", "list_weights_", "expected"), [
    # MetricsTest.test_precision_with_weights, "Per list weight"
    ("P", [1., 2.], (1. / 3. * 1. + 2. / 3. * 2.) / 3.),
    # MetricsTest.test_mean_average_precision_with_weights, "Per list weight" (AP 1/2 and 1)
    ("AP", [1., 2.], (0.5 * 1. + 1. * 2.) / 3.),
    # MetricsTest.test_normalized_discounted_cumulative_gain_with_weights, list-wise weights
    (NDCG, [1., 2.], ((_dcg(0., 1) + _dcg(1., 2) + _dcg(0., 3)) / (_dcg(1., 1) + _dcg(0., 2) + _dcg(0., 3))
                      + 2. * 1.0) / 3.),
])
def test_list_wise_weights_are_query_weights(metric, list_weights_, expected):
    query = np.repeat([0, 1], 3)
    table = rk.evaluate_scores(np.ravel(K_LABELS[:2]), np.ravel(K_SCORES[:2]), query, [metric], weights=list_weights_)
    assert float(table.all[metric]) == pytest.approx(expected)


def test_zero_relevance_values_are_tensorflow_rankings():
    # MetricsTest.test_precision_weights_with_zero_relevance, ..._recall_weights_with_zero_relevance,
    # ..._normalized_discounted_cumulative_gain_with_weights_zero_relevance
    scores = [[1., 3., 2.], [1., 3., 2.], [1., 2., 3.]]
    labels = [[0., 0., 0.], [0., 0., 1.], [0., 1., 2.]]
    weights = [[0., 0., 1.], [1., 2., 3.], [4., 5., 6.]]
    lw = [(3 + 5.5) / 2., 3, 5.5]
    table = tfr(labels, scores, weights, ["P@2", "R@1"])
    assert float(table.all["P@2"]) == pytest.approx((0.0 * lw[0] + 0.5 * lw[1] + 1.0 * lw[2]) / sum(lw))
    assert float(table.all["R@1"]) == pytest.approx((0. * lw[0] + 0. * lw[1] + 0.5 * lw[2]) / sum(lw))
    table = tfr([[0., 0., 0.], [0., 1., 2.]], S2, [[1., 2., 3.], [4., 5., 6.]], [NDCG])
    assert float(table.all[NDCG]) == pytest.approx((0.0 * 5.75 + 1.0 * 5.75) / 11.5)
    # ..._with_zero_weights: a list without relevance scores nDCG 0
    assert float(tfr([[0., 0., 0.]], [K_SCORES[0]], [K_WEIGHTS[0]], [NDCG + "@1"]).all[NDCG + "@1"]) == 0.0


def test_all_zero_weights_are_an_error_where_tensorflow_ranking_reports_zero():
    # NDCGMetricTest.test_ndcg_with_all_zero_weights, DCGMetricTest.test_dcg_with_all_zero_weights: TFR
    # reports 0 with weight 0; rankkit refuses a call in which nothing counts.
    with pytest.raises(ValueError, match="item_weights are all 0"):
        tfr([[1., 2., 3.]], [[1., 2., 3.]], [[0., 0., 0.]], [NDCG])
    with pytest.raises(ValueError, match="weights are all 0"):
        rk.evaluate_scores([0, 1, 0, 1], [1, 2, 1, 2], [0, 0, 1, 1], ["nDCG"], weights=[0.0, 0.0])


def test_a_query_of_zero_weights_counts_nothing():
    # TFR: a list whose weights sum to 0 has list weight 0 (test_ndcg_with_all_zero_weights)
    scores, labels = [[1., 3., 2.], [1., 2., 3.]], [[0., 0., 1.], [0., 1., 2.]]
    both = tfr(labels, scores, [[0., 0., 0.], [4., 5., 6.]], ["AP", NDCG])
    alone = tfr(labels[1:], scores[1:], [[4., 5., 6.]], ["AP", NDCG])
    assert both.query.tolist() == [1]
    assert {c: float(v) for c, v in both.all.items()} == {c: float(v) for c, v in alone.all.items()}


# --------------------------------------------------------------------------- item weights: an oracle


def oracle(lists, k, rel=1.0):
    """TensorFlow Ranking's weighted metrics, one list at a time in plain Python (rankkit's P@k
    divides by k). ``lists``: per query, rows (label, score, weight) with distinct scores."""
    per_list, weights = {m: [] for m in ("P", "R", "RR", "AP", "DCG", "nDCG")}, {"bin": [], "gain": []}
    for rows in lists:
        rows = [row for row in rows if row[2] > 0]
        ranked = sorted(rows, key=lambda row: -row[1])
        top = ranked[:k]
        rels = [1.0 if lab >= rel else 0.0 for lab, _, _ in ranked]
        n_rel = sum(rels)
        per_list["P"].append(sum(rels[:k]) / k)
        per_list["R"].append(sum(rels[:k]) / n_rel if n_rel else 0.0)
        per_list["RR"].append(next((1.0 / (i + 1) for i, x in enumerate(rels[:k]) if x), 0.0))
        hits, total = 0.0, 0.0
        for i, (x, (_, _, w)) in enumerate(zip(rels[:k], top)):
            hits += x
            total += hits / (i + 1) * w * x
        all_rel = sum(w * x for x, (_, _, w) in zip(rels, ranked))
        per_list["AP"].append(total / all_rel if all_rel else 0.0)
        gains = [(2.0 ** lab - 1.0) for lab, _, _ in ranked]
        wg = [g * w for g, (_, _, w) in zip(gains, ranked)]
        lw_gain = sum(wg) / sum(gains) if sum(gains) else None
        lw_bin = all_rel / n_rel if n_rel else None
        weights["bin"].append(lw_bin)
        weights["gain"].append(lw_gain)
        dcg = sum(x / math.log2(i + 2) for i, x in enumerate(wg[:k]))
        ideal = sum(x / math.log2(i + 2) for i, x in enumerate(sorted(wg, reverse=True)[:k]))
        per_list["DCG"].append(dcg / lw_gain if lw_gain else 0.0)
        per_list["nDCG"].append(dcg / ideal if ideal else 0.0)
    for kind, ws in weights.items():  # a list without relevance: the mean weight of the others
        known = [w for w in ws if w is not None]
        mean = sum(known) / len(known) if known else 1.0
        weights[kind] = [mean if w is None else w for w in ws]
    means = {}
    for metric, values in per_list.items():
        ws = weights["gain" if "DCG" in metric else "bin"]
        means[metric] = sum(v * w for v, w in zip(values, ws)) / sum(ws)
    return per_list, means


@st.composite
def weighted_lists(draw):
    n_queries = draw(st.integers(1, 5))
    lists = []
    for _ in range(n_queries):
        n = draw(st.integers(3, 6))
        labels = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        scores = draw(st.lists(st.integers(0, 1000), min_size=n, max_size=n, unique=True))
        weights = draw(st.lists(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0, 7.0]), min_size=n, max_size=n))
        lists.append(list(zip(map(float, labels), map(float, scores), weights)))
    return lists


@given(weighted_lists(), st.integers(1, 3))
@settings(max_examples=sweep(150), deadline=None)
def test_item_weights_equal_a_plain_python_oracle(lists, k):
    per_list, means = oracle(lists, k)
    labels, scores, weights = (np.array([row[i] for rows in lists for row in rows]) for i in range(3))
    query = np.repeat(np.arange(len(lists)), [len(rows) for rows in lists])
    specs = {"P": f"P@{k}", "R": f"R@{k}", "RR": f"RR@{k}", "AP": f"AP@{k}", "DCG": f"{DCG}@{k}",
             "nDCG": f"{NDCG}@{k}"}
    table = rk.evaluate_scores(labels, scores, query, list(specs.values()), item_weights=weights)
    for metric, spec in specs.items():
        assert table[spec].tolist() == pytest.approx(per_list[metric], rel=1e-12, abs=1e-15), metric
        assert float(table.all[spec]) == pytest.approx(means[metric], rel=1e-12, abs=1e-15), metric


def test_weights_of_one_give_the_unweighted_table():
    rng = np.random.default_rng(4)
    query = np.repeat(np.arange(30), 8)
    labels, scores = rng.integers(0, 4, len(query)).astype(float), rng.normal(size=len(query))
    specs = ["P@5", "R@5", "RR", "success@3", "CG@5", "DCG@5", "nDCG@5", NDCG + "@5", "AP", "AP@5"]
    plain = rk.evaluate_scores(labels, scores, query, specs)
    weighted = rk.evaluate_scores(labels, scores, query, specs, item_weights=np.ones(len(query)))
    for spec in specs:  # bit for bit, but AP, whose weighted sums add P@i w_i in another order
        same = np.array_equal if not spec.startswith("AP") else np.allclose
        assert same(weighted[spec], plain[spec]), spec
        assert float(weighted.all[spec]) == pytest.approx(float(plain.all[spec]), rel=1e-15), spec
        assert (float(weighted.all[spec]) == float(plain.all[spec])) or spec.startswith("AP"), spec


def test_item_weight_errors():
    labels, scores, query = [1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], [0, 0, 1, 1]
    with pytest.raises(ValueError, match="metric AUC takes no item weights; those that do .*: AP, CG, DCG, GMAP, P, R, "
                                         "RR, SetP, SetR, nDCG, success"):
        rk.evaluate_scores(labels, scores, query, ["AUC"], item_weights=[1, 1, 1, 1])
    with pytest.raises(ValueError, match=r"item_weights must be finite and non-negative, got -1.0 at position 2"):
        rk.evaluate_scores(labels, scores, query, ["AP"], item_weights=[1, 1, -1, 1])
    with pytest.raises(ValueError, match=r"item_weights must be finite and non-negative, got nan at position 0"):
        rk.evaluate_scores(labels, scores, query, ["AP"], item_weights=[np.nan, 1, 1, 1])
    with pytest.raises(ValueError, match=r"item_weights must hold one weight per row \(4\), got 3"):
        rk.evaluate_scores(labels, scores, query, ["AP"], item_weights=[1, 1, 1])
    with pytest.raises(ValueError, match="item_weights need one order .*ties='pessimistic' or 'optimistic'"):
        rk.evaluate_scores([1, 0], [0.5, 0.5], None, ["AP"], item_weights=[1, 2])
    tied = rk.evaluate_scores([1, 0], [0.5, 0.5], None, ["AP"], item_weights=[1, 2], ties="pessimistic")
    assert tied["AP"].tolist() == [0.5]


def test_rankings_carry_item_weights_in_rank_order():
    r = Rankings(np.array([[1., 0, 2]]), np.array([[True, False, True]]), np.array([3]), np.array([[2., 1]]),
                 np.array([2]), pd.Index(["q"]), item_weights=np.array([[1., 5., 3.]]))
    assert r.judged_only().item_weights.tolist() == [[1., 3., 0.]]
    with pytest.raises(ValueError, match=r"item_weights must have shape \(1, 3\), got \(1, 2\)"):
        Rankings(np.array([[1., 0, 2]]), np.array([[True, True, True]]), np.array([3]), np.array([[2., 1]]),
                 np.array([2]), pd.Index(["q"]), item_weights=np.array([[1., 5.]]))


def test_list_weights_rule_by_hand():
    # two lists with relevance (weights 2 and 4) and one without: it takes their mean, 3
    w = np.array([[2., 9., 0.], [4., 4., 1.], [1., 1., 1.]])
    relevance = np.array([[1., 0., 0.], [1., 1., 0.], [0., 0., 0.]])
    assert weighting.list_weights(w, relevance).tolist() == [2.0, 4.0, 3.0]
    assert weighting.list_weights(np.zeros((1, 2)), np.ones((1, 2))).tolist() == [0.0]
    assert weighting.list_weights(np.ones((2, 2)), np.zeros((2, 2))).tolist() == [1.0, 1.0]


# --------------------------------------------------------------------------- rk.aggregate


def frame(values: dict, ids) -> pd.DataFrame:
    return pd.DataFrame(values, index=pd.Index(ids, name="query_id"))


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), st.integers(0, 50), st.floats(0.01, 10)),
                min_size=1, max_size=30))
@settings(max_examples=sweep(200), deadline=None)
def test_weighted_aggregate_equals_numpy_and_a_loop(rows):
    ids = [f"q{i}" for i in range(len(rows))]
    table = frame({"AP": [r[0] for r in rows], "gm_map": [r[1] for r in rows],
                   "num_rel_ret": [float(r[2]) for r in rows]}, ids)
    w = pd.Series([r[3] for r in rows], index=ids)
    out = rk.aggregate(table, weights=w)
    assert out["AP"] == pytest.approx(np.average(table["AP"], weights=w), rel=1e-12, abs=1e-300)
    scaled = [v * len(w) / sum(w) for v in w]  # weights of mean 1
    assert out["num_rel_ret"] == pytest.approx(sum(x * v for x, v in zip(table["num_rel_ret"], scaled)), rel=1e-12)
    logs = sum(v * math.log(max(x, 1e-5)) for x, v in zip(table["gm_map"], w)) / sum(w)
    assert out["gm_map"] == pytest.approx(math.exp(logs), rel=1e-12)


def test_weighted_aggregate_by_hand_and_equal_weights_bit_for_bit():
    table = frame({"AP": [0.2, 0.5, 0.8], "num_ret": [10.0, 20.0, 30.0], "gm_map": [0.1, 0.5, 0.9]},
                  ["q1", "q2", "q3"])
    out = rk.aggregate(table, weights={"q1": 1, "q2": 1, "q3": 2, "other": 5})
    assert out.round(12).to_dict() == {"AP": 0.575, "num_ret": 3 * 90.0 / 4,
                                       "gm_map": round((0.1 * 0.5 * 0.9 * 0.9) ** 0.25, 12)}
    for equal in (1.0, 3.0, 0.1):
        assert rk.aggregate(table, weights=dict.fromkeys(["q1", "q2", "q3"], equal)).equals(rk.aggregate(table))


def test_weighted_aggregate_of_an_evaluation_and_of_several_runs():
    qrels = rk.read_qrels("data/example.qrels")
    run = rk.read_run("data/example.run")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = rk.evaluate(qrels, run, ["nDCG@10", "AP", "num_rel", "runid"])
        both = rk.evaluate(qrels, {"a": run, "b": run}, ["AP"])
    w = pd.Series(np.arange(1.0, len(table) + 1), index=table.index)
    out = rk.aggregate(table, weights=w)
    assert out["AP"] == pytest.approx(np.average(table["AP"], weights=w), rel=1e-14)
    assert out["num_rel"] == pytest.approx(float((table["num_rel"] * w).sum() * len(w) / w.sum()), rel=1e-14)
    assert out["runid"] == rk.aggregate(table)["runid"]
    per_run = rk.aggregate(both, weights=w)
    assert per_run.loc["a", "AP"] == per_run.loc["b", "AP"] == out["AP"]


def test_weighted_aggregate_of_a_score_table():
    labels, scores, query = [1, 0, 0, 1, 1, 0], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4], [0, 0, 1, 1, 2, 2]
    table = rk.evaluate_scores(labels, scores, query, ["P@1", "AP"])
    out = rk.aggregate(table, weights=[1.0, 2.0, 1.0])
    assert out.to_dict() == {"P@1": pytest.approx((1 + 0 + 1) / 4), "AP": pytest.approx((1 + 2 * 0.5 + 1) / 4)}
    assert out.to_dict() == {c: pytest.approx(float(v)) for c, v in
                             rk.evaluate_scores(labels, scores, query, ["P@1", "AP"], weights=[1, 2, 1]).all.items()}
    with pytest.raises(ValueError, match="AUC's all value is not a mean .*pass weights= to rk.evaluate_scores"):
        rk.aggregate(quiet(labels, scores, query, ["AUC"]), weights=[1.0, 2.0, 1.0])


@pytest.mark.parametrize(("weights", "message"), [
    ({"q1": 1.0, "q2": -1.0}, r"weights must be finite and non-negative, got -1.0 at position 1"),
    ({"q1": 1.0, "q2": np.nan}, r"weights must be finite and non-negative, got nan at position 1"),
    ({"q1": 1.0, "q2": np.inf}, r"weights must be finite and non-negative, got inf at position 1"),
    ({"q1": 1.0}, r"weights has no weight for 1 of the 2 queries: 'q2'"),
    ({"q1": 0.0, "q2": 0.0}, r"weights are all 0: no query would count"),
    ([1.0, 2.0], r"weights must be a pandas Series or a dict keyed by query id .* got list"),
    ({"q1": "a", "q2": 1.0}, r"weights must be numbers, got list"),
])
def test_aggregate_weight_errors(weights, message):
    with pytest.raises(ValueError, match=message):
        rk.aggregate(frame({"AP": [0.1, 0.2]}, ["q1", "q2"]), weights=weights)


# --------------------------------------------------------------------------- rk.evaluate_scores(weights=...)


@st.composite
def score_queries(draw):
    n_queries = draw(st.integers(2, 6))
    sizes = draw(st.lists(st.integers(2, 6), min_size=n_queries, max_size=n_queries))
    n = sum(sizes)
    labels = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=float)
    scores = np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), dtype=float)  # with ties
    w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]), min_size=n_queries, max_size=n_queries)))
    return np.repeat(np.arange(n_queries), sizes), labels, scores, w


@given(score_queries())
@settings(max_examples=sweep(150), deadline=None)
def test_query_weights_of_score_metrics_equal_sklearn(case):
    from sklearn.metrics import mean_absolute_error, mean_squared_error, roc_auc_score

    query, labels, scores, w = case
    if not (w > 0).any():
        w[0] = 1.0
    table = quiet(labels, scores, query, ["nDCG@3", "AP", "AUC", "MSE", "MAE"], weights=w)
    plain = quiet(labels, scores, query, ["nDCG@3", "AP"])
    row_w = w[query]
    assert float(table.all["nDCG@3"]) == pytest.approx(np.average(plain["nDCG@3"], weights=w), rel=1e-12)
    assert float(table.all["AP"]) == pytest.approx(np.average(plain["AP"], weights=w), rel=1e-12)
    positive = labels >= 1
    if len(set(positive[row_w > 0])) == 2 and len(set(positive)) == 2:
        assert float(table.all["AUC"]) == pytest.approx(roc_auc_score(positive, scores, sample_weight=row_w),
                                                        rel=1e-12)
    assert float(table.all["MSE"]) == pytest.approx(mean_squared_error(labels, scores, sample_weight=row_w), rel=1e-12)
    assert float(table.all["MAE"]) == pytest.approx(mean_absolute_error(labels, scores, sample_weight=row_w), rel=1e-12)


def pair_oracle(query, labels, scores, w, label_ties="ignore"):
    """PNR with query weights in a loop: sum_q w_q C_q / sum_q w_q D_q, a pair tied in score
    counting 1/2 each way."""
    concordant = discordant = 0.0
    for q, weight in enumerate(w):
        rows = np.flatnonzero(query == q)
        for i in rows:
            for j in rows:
                if labels[i] > labels[j]:
                    right = 1.0 if scores[i] > scores[j] else 0.5 if scores[i] == scores[j] else 0.0
                    concordant += weight * right
                    discordant += weight * (1.0 - right)
                elif labels[i] == labels[j] and i < j and label_ties == "concordant":
                    concordant += weight
    return concordant / discordant if discordant else (math.inf if concordant else math.nan)


@given(score_queries(), st.sampled_from(["ignore", "concordant"]))
@settings(max_examples=sweep(150), deadline=None)
def test_query_weights_of_pnr_equal_a_loop(case, label_ties):
    query, labels, scores, w = case
    if not (w > 0).any():
        w[0] = 1.0
    spec = f"PNR(label_ties='{label_ties}')"
    value = float(quiet(labels, scores, query, [spec], weights=w).all[spec])
    expected = pair_oracle(query, labels, scores, w, label_ties)
    if math.isnan(expected):
        assert math.isnan(value)
    else:
        assert value == pytest.approx(expected, rel=1e-12)


def test_query_weights_by_id_by_row_and_equal_ones():
    labels = np.array([1, 0, 0, 1, 1, 0, 2, 0])
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    query = np.array(["b", "b", "a", "a", "c", "c", "c", "a"])
    specs = ["nDCG@2", "AUC", "GAUC", "PNR", "MSE"]
    by_query = quiet(labels, scores, query, specs, weights=[2.0, 1.0, 3.0])   # a, b, c
    by_id = quiet(labels, scores, query, specs, weights={"a": 2.0, "b": 1.0, "c": 3.0, "z": 9.0})
    by_row = quiet(labels, scores, query, specs, weights=[1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 2.0])
    for table in (by_id, by_row):
        assert {c: float(v) for c, v in table.all.items()} == {c: float(v) for c, v in by_query.all.items()}
    plain = quiet(labels, scores, query, specs, weights="queries")
    equal = quiet(labels, scores, query, specs, weights=pd.Series(0.3, index=["a", "b", "c"]))
    assert {c: float(v) for c, v in equal.all.items()} == {c: float(v) for c, v in plain.all.items()}
    with pytest.raises(ValueError, match=r"weights must hold one number per query \(3\), or one per row equal within "
                                         r"each query; got 1.0 and 5.0 in query 'b'"):
        quiet(labels, scores, query, specs, weights=[1.0, 5.0, 2.0, 2.0, 3.0, 3.0, 3.0, 2.0])
    with pytest.raises(ValueError, match=r"weights has no weight for 1 of the 3 queries: 'c'"):
        quiet(labels, scores, query, specs, weights={"a": 1.0, "b": 1.0})
    with pytest.raises(ValueError, match=r"weights must hold one number per query \(3\), got shape \(2,\): in the "
                                         r"order of the sorted query ids, or one per row \(8\)"):
        quiet(labels, scores, query, specs, weights=[1.0, 2.0])


# --------------------------------------------------------------------------- rk.compare(weights=...)


def two_systems(n, seed):
    rng = np.random.default_rng(seed)
    ids = [f"q{i:02d}" for i in range(n)]
    a = frame({"AP": rng.uniform(size=n), "P@5": rng.uniform(size=n)}, ids)
    b = frame({"AP": rng.uniform(size=n), "P@5": rng.uniform(size=n)}, ids)
    return ids, a, b


@given(st.integers(3, 40), st.integers(0, 2**32 - 1))
@settings(max_examples=sweep(60), deadline=None)
def test_weighted_t_test_equals_statsmodels_descrstatsw(n, seed):
    from statsmodels.stats.weightstats import DescrStatsW

    ids, a, b = two_systems(n, seed)
    w = pd.Series(np.random.default_rng(seed + 1).uniform(0.1, 5.0, n), index=ids)
    table = rk.compare(None, {"a": a, "b": b}, ["AP", "P@5"], baseline="a", weights=w)
    for row in table.itertuples():
        d = (b[row.metric] - a[row.metric]).to_numpy()
        stats = DescrStatsW(d, weights=w.to_numpy() * n / w.sum())
        t, p, _ = stats.ttest_mean(0.0)
        low, high = stats.tconfint_mean(alpha=0.05)
        assert row.diff == pytest.approx(stats.mean, rel=1e-12, abs=1e-15)
        assert row.p_value == pytest.approx(p, rel=1e-9)
        assert (row.ci_low, row.ci_high) == pytest.approx((low, high), rel=1e-12, abs=1e-15)
        assert row.mean == pytest.approx(np.average(b[row.metric], weights=w), rel=1e-12)
        assert row.baseline_mean == pytest.approx(np.average(a[row.metric], weights=w), rel=1e-12)
        assert row.effect_size == pytest.approx(stats.mean / (stats.std * math.sqrt(n / (n - 1))), rel=1e-12)


def test_weighted_randomization_test_enumerates_the_weighted_sign_flips():
    ids, a, b = two_systems(8, 5)
    w = pd.Series([1.0, 2.0, 0.5, 3.0, 1.0, 1.0, 4.0, 0.25], index=ids)
    table = rk.compare(None, {"a": a, "b": b}, "AP", baseline="a", test="randomization", weights=w)
    wd = ((b["AP"] - a["AP"]) * w).to_numpy()
    observed = abs(wd.sum())
    extreme = sum(abs(sum(x if (code >> i) & 1 else -x for i, x in enumerate(wd))) >= observed - 1e-12
                  for code in range(2 ** 8))
    assert table["p_value"].iloc[0] == extreme / 2 ** 8


def test_compare_weights_equal_zero_and_errors():
    ids, a, b = two_systems(10, 2)
    plain = rk.compare(None, {"a": a, "b": b}, ["AP"], baseline="a")
    for test in ("t", "randomization"):
        same = rk.compare(None, {"a": a, "b": b}, ["AP"], baseline="a", test=test,
                          weights=pd.Series(2.5, index=ids))
        assert same.equals(rk.compare(None, {"a": a, "b": b}, ["AP"], baseline="a", test=test))
    assert plain["n_queries"].iloc[0] == 10
    w = pd.Series([0.0, 0.0] + [1.0, 2.0] * 4, index=ids)
    dropped = rk.compare(None, {"a": a, "b": b}, ["AP"], baseline="a", weights=w)
    subset = rk.compare(None, {"a": a.iloc[2:], "b": b.iloc[2:]}, ["AP"], baseline="a", weights=w.iloc[2:])
    assert dropped.equals(subset) and dropped["n_queries"].iloc[0] == 8
    assert dropped.attrs["weighted"] and "weighted" not in plain.attrs
    with pytest.raises(ValueError, match=r"weights= are taken by test='t' and test='randomization', got "
                                         r"test='bootstrap'"):
        rk.compare(None, {"a": a, "b": b}, ["AP"], test="bootstrap", weights=w)
    with pytest.raises(ValueError, match=r"weights has no weight for 1 of the 10 queries: 'q09'"):
        rk.compare(None, {"a": a, "b": b}, ["AP"], weights=w.iloc[:9])
    with pytest.raises(ValueError, match=r"weights must be finite and non-negative, got -1.0"):
        rk.compare(None, {"a": a, "b": b}, ["AP"], weights=w.where(w > 0, -1.0))


def test_query_weights_on_another_array_library():
    xp = pytest.importorskip("array_api_strict")
    labels, scores, query = [1., 0, 0, 1, 1, 0], [.9, .8, .7, .6, .5, .4], [0, 0, 1, 1, 2, 2]
    specs = ["AP", "GAUC", "AUC", "MSE", "PNR"]
    on_numpy = quiet(labels, scores, query, specs, weights=[1., 2., 1.])
    there = quiet(xp.asarray(labels), xp.asarray(scores), xp.asarray(query), specs, weights=xp.asarray([1., 2., 1.]))
    assert {c: float(v) for c, v in there.all.items()} == pytest.approx({c: float(v) for c, v in on_numpy.all.items()},
                                                                        rel=1e-15)
    assert float(there.all["AP"]) == (1.0 + 2 * 0.5 + 1.0) / 4
    with pytest.raises(ValueError, match="item_weights are taken with NumPy inputs only"):
        rk.evaluate_scores(xp.asarray(labels), xp.asarray(scores), xp.asarray(query), ["AP"], item_weights=[1.] * 6)


def test_the_book_states_how_many_of_tensorflow_rankings_numbers_are_reproduced():
    from pathlib import Path

    single = 3 + 1 + 1 + 3 + 4  # the numbers of the tests of one or a few values above
    n = sum(len(case[-1]) for case in TFR_LIST_WEIGHTS) + len(TFR_VALUES) + single
    text = (Path(__file__).resolve().parent.parent / "docs" / "model_predictions.md").read_text(encoding="utf-8")
    assert f"reproduces {n} numbers" in " ".join(text.split())


@given(weighted_lists(), st.randoms(use_true_random=False))
@settings(max_examples=sweep(50), deadline=None)
def test_item_weights_do_not_depend_on_the_order_of_the_rows(lists, random):
    labels, scores, weights = (np.array([row[i] for rows in lists for row in rows]) for i in range(3))
    query = np.repeat(np.arange(len(lists)), [len(rows) for rows in lists])
    order = list(range(len(query)))
    random.shuffle(order)
    specs = ["AP@3", f"{NDCG}@3", "RR"]
    grouped = rk.evaluate_scores(labels, scores, query, specs, item_weights=weights)
    shuffled = rk.evaluate_scores(labels[order], scores[order], query[order], specs, item_weights=weights[order])
    for spec in specs:
        assert np.array_equal(grouped[spec], shuffled[spec]) and grouped.all[spec] == shuffled.all[spec]
