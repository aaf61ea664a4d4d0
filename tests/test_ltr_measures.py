"""The learning-to-rank libraries' measures and conventions, against the values of their own tests.

Each peer's stated values are reproduced from its inputs (labels, scores, list boundaries),
scored with ``rk.evaluate_scores`` or the metric functions:

- TensorFlow Ranking 0.5 (``tensorflow_ranking/python/metrics_impl_test.py`` and
  ``metrics_test.py``, https://github.com/tensorflow/ranking): ARP, PWA, OPA, precision at
  min(k, list size), bpref divided by R, a DCG discount of one's own;
- XGBoost (``tests/cpp/metric/test_rank_metric.h``, https://github.com/dmlc/xgboost): pre,
  ndcg and map, with its MAP of 1 for a list without a relevant document;
- CatBoost (``catboost/libs/metrics/ut/err_ut.cpp``, https://github.com/catboost/catboost, and
  its documentation of PFound and QueryAUC): ERR on stopping probabilities, PFound, QueryAUC;
- allRank (``tests/losses/test_ndcg.py``, ``test_mrr.py``, https://github.com/allegro/allRank).

Where a peer pads a list (TensorFlow Ranking's label -1, allRank's ``PADDED_Y_VALUE``) or
masks items, the padded and masked items are left out of the rows given to rankkit, which is
what the peer's padding means. Each kernel also meets a plain-Python loop written from the
formula on Hypothesis inputs.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit as rk
from rankkit import Rankings
from rankkit.metrics import ltr
from rankkit.names import REGISTRY, parse_metric


def scored(lists_of_labels, lists_of_scores, specs, ties="pessimistic", mask=None):
    """Per-query values of ``specs`` for lists given as a peer gives them: a label below 0 is
    padding, ``mask`` False an item left out; one query per list, in list order."""
    labels, scores, query = [], [], []
    for q, (ls, ss) in enumerate(zip(lists_of_labels, lists_of_scores)):
        for i, (label, score) in enumerate(zip(ls, ss)):
            if label < 0 or (mask is not None and not mask[q][i]):
                continue
            labels.append(label), scores.append(score), query.append(q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = rk.evaluate_scores(np.array(labels, float), np.array(scores, float), np.array(query), specs,
                                   ties=ties)
    return {spec: np.asarray(table[spec], dtype=np.float64) for spec in specs}, table


def one(labels, scores, spec, **kwargs):
    return scored(labels, scores, [spec], **kwargs)[0][spec]


def close(actual, expected, tol=1e-6):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=0, atol=tol)


# =========================================================================== TensorFlow Ranking


class TestTensorFlowRankingARP:
    """``ARPMetricTest`` (metrics_impl_test.py) and ``test_make_average_relevance_position_fn``."""

    def test_values_of_its_tests(self):
        close(one([[0., 0., 1.]], [[1., 3., 2.]], "ARP"), [2.])  # test_arp_should_be_single_value
        close(one([[0., 0., 1.], [0., 1., 2.]], [[1., 3., 2.], [1., 2., 3.]], "ARP"),
              [2., (1. * 2. + 2. * 1.) / 3.])  # test_arp_should_be_single_value_per_list
        close(one([[0., 0., 0.]], [[1., 3., 2.]], "ARP"), [0.])  # test_arp_should_be_0_when_no_rel_items
        close(one([[1., -1., 1., -1., 0.]], [[1., 5., 4., 3., 2.]], "ARP"), [2.])  # ..._ignore_padded_items
        close(one([[1., 0., 1., 1., 0.]], [[1., 5., 4., 3., 2.]], "ARP",
                  mask=[[True, False, True, False, True]]), [2.])  # test_arp_should_ignore_masked_items
        close(one([[0., 0., 1., 0.], [0., 1., 2.]], [[1., 3., 2., 4.], [1., 2., 3.]], "ARP"),
              [3., 4. / 3.])  # test_arp_should_handle_ragged_inputs

    def test_its_batch_value_is_weighted_by_the_sum_of_labels(self):
        # metrics_test.py test_make_average_relevance_position_fn: (1*2 + 2*1 + 1*2) / 4
        labels, scores = [[0., 0., 1.], [0., 1., 2.]], [[1., 3., 2.], [1., 2., 3.]]
        values = one(labels, scores, "ARP")
        weights = np.array([sum(ls) for ls in labels])
        assert (values * weights).sum() / weights.sum() == pytest.approx((1. * 2. + 2. * 1. + 1. * 2.) / 4.)

    def test_lower_is_better_and_the_unscored_rule(self):
        assert rk.evaluate_scores([2, 1, 0], [3, 2, 1], None, ["ARP"])["ARP"][0] < \
            rk.evaluate_scores([2, 1, 0], [1, 2, 3], None, ["ARP"])["ARP"][0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = rk.evaluate_scores([0, 0, 1, 0], [0.2, 0.1, 0.3, 0.4], [1, 1, 2, 2], ["ARP"])
        assert table.unscored["ARP"] == {1: "no positive label retrieved: 0, as TensorFlow Ranking scores it"}


class TestTensorFlowRankingPWA:
    """``PWAMetricTest`` (metrics_impl_test.py) and ``test_make_pwa_fn`` (metrics_test.py)."""

    def test_values_of_its_tests(self):
        close(one([[0., 1., 2.], [4., 3., 2.], [8., 7., 6.]], [[1., 3., 2.], [4., 3., 2.], [8., 7., 6.]], "PWA@5"),
              [2. / (11. / 6.), (4. + 3. / 2. + 2. / 3.) / (11. / 6.), (8. + 7. / 2. + 6. / 3.) / (11. / 6.)])
        close(one([[0., 0., 0.]], [[1., 3., 2.]], "PWA"), [0.])  # test_pwa_should_be_0_when_no_rel_item
        close(one([[0., 0., 1.]], [[1., 3., 2.]], "PWA@1"), [0.])  # ..._when_no_rel_item_in_topn
        labels, scores = [[1., 2., 0.], [2., 0., 1.], [0., 2., 1.]], [[3., 2., 1.]] * 3
        close(one(labels, scores, "PWA@1"), [1., 2., 0.])  # test_pwa_should_handle_topn
        close(one(labels, scores, "PWA@2"), [2. / 1.5, 2. / 1.5, 1. / 1.5])
        close(one(labels, scores, "PWA@6"), [2. / (11. / 6.), 7. / 3. / (11. / 6.), 4. / 3. / (11. / 6.)])
        close(one([[0., 1., 3.]], [[1., 2., 3.]], "PWA", mask=[[True, False, True]]),
              [3. / 1. / (3. / 2.)])  # test_pwa_should_ignore_masked_items
        # metrics_test.py test_make_pwa_fn: the mean over the three lists, whole lists and topn=2
        assert one(labels, scores, "PWA").mean() == pytest.approx((2. + 7. / 3. + 4. / 3.) / (11. / 6.) / 3)
        assert one(labels, scores, "PWA@2").mean() == pytest.approx((2. + 2. + 1.) / (3. / 2.) / 3)


class TestTensorFlowRankingOPA:
    """``OPAMetricTest`` (metrics_impl_test.py) and ``test_make_ordered_pair_accuracy_fn``."""

    CASES = [  # (labels, scores, mask, OPA per list, pairs per list: TFR's per-list weights), by test name
        ("correct_pair_matrix", [[0., 1., 0.]], [[3., 2., 1.]], None, [1. / 2.], [2.]),
        ("0_when_no_rel_items", [[0., 0., 0.]], [[3., 2., 1.]], None, [0.], [0.]),
        ("graded_relevance", [[1., 3., 0., 1.]], [[4., 3., 2., 1.]], None, [3. / 5.], [5.]),
        ("padded_items", [[2., -1., 1., 0.]], [[4., 1., 2., 3.]], None, [2. / 3.], [3.]),
        ("masked_items", [[2., 1., 1., 0.]], [[4., 1., 2., 3.]], [[True, False, True, True]], [2. / 3.], [3.]),
        ("ragged_inputs", [[0., 1., 0.], [1., 0., 1., 0.]], [[3., 2., 1.], [4., 1., 2., 3.]], None,
         [1. / 2., 3. / 4.], [2., 4.]),
        ("pair_matrix_per_list", [[0., 1., 0.], [1., 0., 1.]], [[3., 2., 1.], [3., 1., 2.]], None,
         [1. / 2., 2. / 2.], [2., 2.]),
    ]

    @pytest.mark.parametrize("name, labels, scores, mask, expected, pairs", CASES, ids=[c[0] for c in CASES])
    def test_values_of_its_tests(self, name, labels, scores, mask, expected, pairs):
        values, table = scored(labels, scores, ["OPA", "QueryAUC"], mask=mask)
        close(values["OPA"], expected)
        counts = rk.pair_counts([[lab for lab, keep in zip(ls, m or [True] * len(ls)) if lab >= 0 and keep]
                                 for ls, m in zip(labels, mask or [None] * len(labels))],
                                [[s for lab, s, keep in zip(ls, ss, m or [True] * len(ls)) if lab >= 0 and keep]
                                 for ls, ss, m in zip(labels, scores, mask or [None] * len(labels))])
        close(np.atleast_1d(counts.concordant + counts.discordant), pairs)

    def test_its_batch_value_pools_the_pairs(self):
        # metrics_test.py test_make_ordered_pair_accuracy_fn: 1/2, 1, and (1 + 3) / (2 + 3) for both
        labels, scores = [[0., 0., 1.], [0., 1., 2.]], [[1., 3., 2.], [1., 2., 3.]]
        values, table = scored(labels, scores, ["OPA", "QueryAUC"])
        close(values["OPA"], [1. / 2., 1.])
        assert table.all["QueryAUC"] == pytest.approx((1. + 3.) / (2. + 3.))

    def test_equal_scores_count_as_wrong_pessimistic_and_half_average(self):
        labels, scores = [[1., 0.]], [[0.5, 0.5]]
        close(one(labels, scores, "OPA", ties="pessimistic"), [0.])  # TFR: pred_i > pred_j strictly
        close(one(labels, scores, "OPA", ties="average"), [0.5])


class TestTensorFlowRankingPrecision:
    """``PrecisionMetricTest`` (metrics_impl_test.py) and ``test_make_precision_fn``: the
    denominator min(topn, list size), ``P(normalize='min_k_retrieved')``."""

    SPEC = "P(normalize='min_k_retrieved')"

    def test_values_of_its_tests(self):
        close(one([[0., 0., 1.]], [[1., 3., 2.]], self.SPEC), [1. / 3.])
        close(one([[0., 0., 0.]], [[1., 3., 2.]], self.SPEC), [0.])
        close(one([[0., 0., 1., 1.], [0., 0., 1., 0.]], [[1., 3., 2., 4.], [4., 1., 3., 2.]], self.SPEC),
              [2. / 4., 1. / 4.])
        labels, scores = [[1., 0., 1.], [0., 1., 0.], [0., 0., 1.]], [[3., 2., 1.]] * 3
        close(one(labels, scores, self.SPEC + "@1"), [1., 0., 0.])  # test_precision_should_handle_topn
        close(one(labels, scores, self.SPEC + "@2"), [1. / 2., 1. / 2., 0.])
        close(one(labels, scores, self.SPEC + "@6"), [2. / 3., 1. / 3., 1. / 3.])
        close(one([[0., 0., 1., -1.], [0., -1., 1., -1.]], [[1., 3., 2., 4.], [4., 1., 3., 2.]], self.SPEC),
              [1. / 3., 1. / 2.])  # test_precision_should_ignore_padded_items
        close(one([[0., 0., 1., 0.], [0., 1., 1., 0.]], [[1., 3., 2., 4.], [4., 1., 3., 2.]], self.SPEC,
                  mask=[[True, True, True, False], [True, False, True, False]]), [1. / 3., 1. / 2.])
        close(one([[0., 0., 1., 0.], [1., 0., 2.]], [[1., 3., 2., 4.], [1., 2., 3.]], self.SPEC),
              [1. / 4., 2. / 3.])  # test_precision_should_handle_ragged_inputs
        # metrics_test.py test_make_precision_fn
        labels, scores = [[0., 0., 1.], [0., 1., 2.]], [[1., 3., 2.], [1., 2., 3.]]
        close(one(labels[:1], scores[:1], self.SPEC + "@1"), [0.])
        close(one(labels[:1], scores[:1], self.SPEC + "@2"), [1. / 2.])
        assert one(labels, scores, self.SPEC).mean() == pytest.approx((1. / 3. + 2. / 3.) / 2.)

    def test_trec_eval_default_unchanged(self):
        assert rk.precision([1, 0, 1], k=6) == pytest.approx(2 / 6)
        assert rk.precision([1, 0, 1], k=6, normalize="min_k_retrieved") == pytest.approx(2 / 3)
        assert str(parse_metric("P(normalize='min_k_retrieved')@5")) == "P(normalize='min_k_retrieved')@5"


def tfr_bpref_rankings(labels, scores, topn=None):
    """A query as TensorFlow Ranking's BPrefMetric sees it: the top ``topn`` by score
    retrieved, R and N counted over the whole list (label -1: padding, left out)."""
    pairs = [(s, lab) for s, lab in zip(scores, labels) if lab >= 0]
    ranked = [lab for _, lab in sorted(pairs, key=lambda p: -p[0])]
    shown = ranked[: topn or len(ranked)]
    return Rankings(labels=np.array([shown], float), judged=np.ones((1, len(shown)), bool),
                    lengths=np.array([len(shown)]), ideal=np.array([sorted(ranked, reverse=True)], float),
                    n_judged=np.array([len(ranked)]), query_ids=pd.Index(["q"]))


class TestTensorFlowRankingBPref:
    """``BPrefMetricTest`` (metrics_impl_test.py) and ``test_make_bpref_fn``: trec_eval's
    min(R, N), and R with ``bpref(normalize='relevant')`` (TFR's use_trec_version=False)."""

    CASES = [  # (test name, labels, scores, topn, trec version, non-trec version or None)
        ("a_single_value", [0., 1., 0., 1.], [4., 3., 2., 1.], None, 1. / 2. * ((1. - 1. / 2.) + (1. - 2. / 2.)),
         None),
        ("convert_graded_relevance_to_binary", [0., 1., 0., 2.], [4., 3., 2., 1.], None,
         1. / 2. * ((1. - 1. / 2.) + (1. - 2. / 2.)), None),
        ("zero_when_only_irrelevant_items", [0., 0., 0.], [3., 2., 1.], None, 0., None),
        ("one_when_only_relevant_items", [1., 1., 1.], [3., 2., 1.], None, 1., 1.),
        ("divides_with_min_and_divides_with_r", [0., 1., 1.], [3., 2., 1.], None, 0., 0.5),
        ("0_when_no_rel_item_in_topn_but_relevant_later", [0., 0., 0., 1.], [3., 2., 1., 0.], 3, 0., None),
        ("handle_topn (trec_eval's bpref_bug case)", [0., 1., 1., 1., 1., 0., 0., 0., 1., 1.],
         [5., 4., 3., 2., 1., 0., 0., 0., 0., 0.], 5, (4. * (1. - 1. / 4.)) / 6., (4. * (1. - 1. / 6.)) / 6.),
        ("ignore_padded_items", [-1., 0., -1., 1., 0., 1.], [6., 5., 4., 3., 2., 1.], None,
         1. / 2. * ((1. - 1. / 2.) + (1. - 2. / 2.)), None),
        ("ragged 1", [0., 0., 1., 0.], [1., 3., 2., 4.], None, 0., None),
        ("ragged 2 / batch 2", [0., 1., 1.], [1., 2., 3.], None, 1., None),
        ("batch 1", [0., 0., 1.], [1., 3., 2.], None, 0., None),
    ]

    @pytest.mark.parametrize("name, labels, scores, topn, trec, non_trec", CASES, ids=[c[0] for c in CASES])
    def test_values_of_its_tests(self, name, labels, scores, topn, trec, non_trec):
        r = tfr_bpref_rankings(labels, scores, topn)
        assert rk.bpref(r)[0] == pytest.approx(trec)
        if non_trec is not None:
            assert rk.bpref(r, normalize="relevant")[0] == pytest.approx(non_trec)

    def test_empty_list_and_the_batch_means(self):
        assert rk.bpref([[]])[0] == 0.0  # test_bpref_should_be_zero_without_input_items
        # metrics_test.py test_make_bpref_fn: 0, their mean 0.25, and 0.5 with use_trec_version=False
        labels, scores = [[0., 0., 1.], [1., 0., 2.]], [[1., 3., 2.], [1., 2., 3.]]
        close(one(labels[:1], scores[:1], "bpref"), [0.])
        assert one(labels, scores, "bpref").mean() == pytest.approx(0.25)
        top_1 = [rk.bpref(tfr_bpref_rankings(ls, ss, topn=1))[0] for ls, ss in zip(labels, scores)]  # m_2, topn=1
        assert np.mean(top_1) == pytest.approx((0. + (1. / 2. * (1. - 0. / 1.))) / 2.)
        # its expression (1/2 (1 - 1/1) + 1/2 ((1 - 0/2) + (1 - 1/2))) / 2 is 0.375; the comment beside it says 0.5
        assert one(labels, scores, "bpref(normalize='relevant')").mean() == pytest.approx(
            (1. / 2. * (1. - 1. / 1.) + (1. / 2. * ((1. - 0. / 2.) + (1. - 1. / 2.)))) / 2)


class TestTensorFlowRankingDiscount:
    """A discount given as a callable: ``test_dcg_should_use_custom_rank_discount_fn`` and
    ``test_ndcg_should_use_custom_rank_discount_fn`` (1 / (rank + 10), TFR's exponential gain),
    and metrics_test.py's 1 / rank with linear gain."""

    def test_values_of_its_tests(self):
        ranked = [0., 3., 1., 0.]  # scores [4, 3, 2, 1] on labels [0, 3, 1, 0]
        discount = lambda rank: 1.0 / (rank + 10.0)  # noqa: E731
        dcg = (2. ** 3. - 1.) / (2. + 10.) + 1. / (3. + 10.)
        max_dcg = (2. ** 3. - 1.) / (1. + 10.) + 1. / (2. + 10.)
        assert rk.dcg(ranked, gain="exp", discount=discount) == pytest.approx(dcg)
        assert rk.ndcg(ranked, gain="exp", discount=discount) == pytest.approx(dcg / max_dcg)
        # metrics_test.py test_make_discounted_cumulative_gain_fn: ranks [3, 1, 2] of labels [0, 0, 1]
        assert rk.dcg([0., 1., 0.], discount=lambda rank: 1. / rank) == pytest.approx(1. / 2.)
        # test_make_normalized_discounted_cumulative_gain_fn's modified nDCG is the same DCG over the ideal
        assert rk.ndcg([0., 1., 0.], discount=lambda rank: 1. / rank) == pytest.approx(1. / 2.)

    def test_a_callable_is_called_on_the_ranks_and_checked(self):
        seen = []
        rk.dcg([[1, 2, 3]], discount=lambda ranks: seen.append(ranks.copy()) or 1 / ranks)
        assert seen[0].tolist() == [1.0, 2.0, 3.0] and seen[0].dtype == np.float64
        assert rk.dcg([3, 1], discount=lambda ranks: 1.0) == 4.0  # one weight for all ranks
        assert rk.idcg([1, 3], discount=lambda ranks: 1 / ranks) == pytest.approx(3 + 1 / 2)
        with pytest.raises(ValueError, match="finite weights"), np.errstate(divide="ignore"):
            rk.dcg([1, 0], discount=lambda ranks: 1 / (ranks - 1))
        with pytest.raises(ValueError, match="one number per rank"):
            rk.dcg([1, 0, 1], discount=lambda ranks: ranks[:2])
        with pytest.raises(ValueError, match="base applies to the discounts"):
            rk.ndcg([1, 0], discount=lambda ranks: 1 / ranks, base=10)
        with pytest.raises(ValueError, match="discount must be one of"):
            parse_metric("nDCG(discount='inverse')@5")

    def test_the_built_in_discounts_are_unchanged(self):
        assert rk.dcg([3, 2, 3, 0, 1, 2]) == rk.dcg([3, 2, 3, 0, 1, 2], discount="log2")
        assert round(rk.dcg([3, 2, 3, 0, 1, 2]), 4) == 6.8611
        assert rk.dcg([2, 1, 0], discount=lambda i: 1 / np.log2(i + 1)) == pytest.approx(rk.dcg([2, 1, 0]))


# =========================================================================== XGBoost


class TestXGBoost:
    """``tests/cpp/metric/test_rank_metric.h`` (VerifyPrecision, VerifyNDCG, VerifyMAP,
    VerifyNDCGExpGain). XGBoost sorts by prediction with a stable sort: on these inputs the
    tied predictions come in label-ascending order, ``ties="pessimistic"``."""

    def test_precision(self):
        assert one([[0, 1]], [[0, 1]], "P")[0] == pytest.approx(0.5)
        assert one([[0, 0, 1, 1]], [[0.1, 0.9, 0.1, 0.9]], "P")[0] == pytest.approx(0.5)
        assert one([[0, 1]], [[0, 1]], "P@2")[0] == pytest.approx(0.5)
        assert one([[0, 0, 1, 1]], [[0.1, 0.9, 0.1, 0.9]], "P@2")[0] == pytest.approx(0.5)
        assert one([[0., 1., 0., 0., 1., 1.]], [[0.2, 0.3, 0.4, 0.5, 0.6, 0.7]], "P@4")[0] == pytest.approx(0.5)

    def test_ndcg(self):
        assert one([[0, 1]], [[0, 1]], "nDCG(gain='exp')")[0] == pytest.approx(1.0)
        assert one([[0, 0, 1, 1]], [[0.1, 0.9, 0.1, 0.9]], "nDCG(gain='exp')")[0] == pytest.approx(0.6509, abs=1e-3)
        assert one([[0, 0, 1, 1]], [[0.1, 0.9, 0.1, 0.9]], "nDCG(gain='exp')@2")[0] == pytest.approx(0.3868, abs=1e-3)
        # VerifyNDCGExpGain: exponential gain (XGBoost's default), then linear, then a perfect order
        labels, scores = [[10.0, 0.0, 0.0, 1.0, 5.0]], [[0.1, 0.2, 0.3, 4.0, 70.0]]
        assert one(labels, scores, "nDCG(gain='exp')")[0] == pytest.approx(0.409738, abs=1e-6)
        assert one(labels, scores, "nDCG")[0] == pytest.approx(0.695694, abs=1e-6)
        assert one(labels, labels, "nDCG(gain='exp')")[0] == pytest.approx(1.0)
        # ndcg- and ndcg@2- (a list without a relevant document scores 0: rankkit's default)
        for spec, expected in (("nDCG(gain='exp')", [1.0, 0.6509]), ("nDCG(gain='exp')@2", [1.0])):
            got = [one([[0, 1]], [[0, 1]], spec)[0], one([[0, 0, 1, 1]], [[0.1, 0.9, 0.1, 0.9]], spec)[0]]
            close(got[: len(expected)], expected, 1e-3)

    def test_map_scores_a_list_without_a_relevant_document_1(self):
        assert one([[0, 1]], [[0, 1]], "AP(no_relevant=1)")[0] == pytest.approx(1.0)
        assert one([[0, 0, 1, 1]], [[0.1, 0.9, 0.1, 0.9]], "AP(no_relevant=1)")[0] == pytest.approx(0.5, abs=1e-3)
        # three groups [0, 2), [2, 5), [5, 6): AP 1, (1/2 + 2/3) / 2, and 1 for the group without a relevant one
        values, table = scored([[1, 1], [1, 0, 1], [0]], [[0.1, 0.9], [0.2, 0.8, 0.4], [1.7]],
                               ["AP(no_relevant=1)", "AP"])
        assert table.all["AP(no_relevant=1)"] == pytest.approx(0.8611, abs=1e-3)
        assert values["AP"][2] == 0.0  # trec_eval's rule, XGBoost's map-
        assert table.unscored["AP(no_relevant=1)"] == {2: "no relevant document: 1, as no_relevant=1 sets it"}
        # map@2: the precision at rank 2 over R = 2
        assert one([[0, 1]], [[0, 1]], "AP(no_relevant=1)@2")[0] == pytest.approx(1.0)
        assert one([[0, 0, 1, 1]], [[0.1, 0.9, 0.1, 0.9]], "AP(no_relevant=1)@2")[0] == pytest.approx(0.25, abs=1e-3)

    def test_no_relevant_for_rr_and_its_report(self):
        values, table = scored([[1, 0], [0, 0]], [[0.2, 0.9], [0.5, 0.4]], ["RR(no_relevant=1)", "RR"])
        close(values["RR(no_relevant=1)"], [0.5, 1.0])
        close(values["RR"], [0.5, 0.0])
        assert table.unscored["RR(no_relevant=1)"] == {1: "no relevant document: 1, as no_relevant=1 sets it"}
        assert table.unscored["RR"] == {1: "no relevant document: 0, as rk.evaluate scores it"}
        assert rk.reciprocal_rank([0, 0], no_relevant=0.5) == 0.5
        with pytest.raises(ValueError, match="no_relevant must be in"):
            rk.average_precision([1, 0], no_relevant=2)


# =========================================================================== CatBoost


class TestCatBoost:
    """``ERRTests`` (catboost/libs/metrics/ut/err_ut.cpp); PFound and QueryAUC as CatBoost's
    documentation and ``pfound.h`` define them. CatBoost ranks equal predictions by target
    ascending: ``ties="pessimistic"``."""

    def test_err_on_stopping_probabilities(self):
        spec = "ERR(stop='label')"
        assert one([[0, 0, 0.4, 0.8]], [[1, 0, -2, 5]], spec)[0] == pytest.approx(0.82, abs=1e-5)
        assert one([[0, 0, 0, 0]], [[1, 0, -2, 5]], spec)[0] == pytest.approx(0.0, abs=1e-5)
        assert one([[0.1, 0.3, 0.5, 0.7]], [[5, 5, 5, 5]], spec)[0] == pytest.approx(0.395125, abs=1e-5)
        values = one([[0.8, 0.3, 0.3], [0, 0.2, 0.2, 0.2, 0], [1, 1, 1, 1], [1, 0, 0.5]],
                     [[1, 0, -2], [2, 1, 1, 2, 5], [-1, 0, -2, 0], [0.5, 0.5, 0.5]], spec)
        weights = np.array([1, 2, 3, 4])  # the groups' weights
        assert (values * weights).sum() / weights.sum() == pytest.approx(0.57752, abs=1e-5)
        # ERRTestWithTopSize: top 10, 1, 2
        assert one([[0, 0, 0.4, 0.8]], [[1, 0, -2, 5]], spec + "@10")[0] == pytest.approx(0.82, abs=1e-5)
        assert one([[0, 0, 0.4, 0.8]], [[1, 0, -2, 5]], spec + "@1")[0] == pytest.approx(0.8, abs=1e-5)
        assert one([[0, 0, 0.4, 0.8]], [[4, 3, 2, 1]], spec + "@2")[0] == pytest.approx(0.0, abs=1e-5)

    def test_err_default_unchanged_and_label_range(self):
        assert rk.err([4, 0, 0], max_grade=4) == 0.9375
        assert rk.err([1, 0], max_grade=1) == 0.5
        with pytest.raises(ValueError, match=r"stop='label' takes labels in \[0, 1\]"):
            rk.err([2, 0], stop="label")
        with pytest.raises(ValueError, match="stop must be one of"):
            rk.err([1, 0], stop="probability")

    def test_pfound_by_its_definition(self):
        # pfound.h: pLook 1, then pLook *= (1 - pRel) * decay; decay 0.85 by default
        assert rk.pfound([0.5, 0.5]) == pytest.approx(0.5 + 0.5 * 0.85 * 0.5)
        assert rk.pfound([0.5, 0.5], decay=0.5) == pytest.approx(0.5 + 0.5 * 0.5 * 0.5)
        assert rk.pfound([0.2, 0.4, 1.0], k=2) == pytest.approx(0.2 + 0.8 * 0.85 * 0.4)
        assert one([[0.2, 0.4]], [[1.0, 1.0]], "PFound")[0] == pytest.approx(0.2 + 0.8 * 0.85 * 0.4)  # target asc.
        assert rk.pfound([[2, 0], [1, 1]], max_grade=2) == pytest.approx([1.0, 0.5 + 0.5 * 0.85 * 0.5])
        assert rk.pfound([0.5, 0.5], max_grade=0.8) == pytest.approx(0.7125)  # max_grade <= 1: labels as they are
        with pytest.raises(ValueError, match="labels must be <= max_grade"):
            rk.pfound([3, 0], max_grade=2)
        with pytest.raises(ValueError, match=r"decay must be in \[0, 1\]"):
            rk.pfound([1, 0], decay=1.5)

    def test_query_auc_by_its_definition(self):
        # pairs t_i < t_j of one query: 1 when ordered by score, 1/2 for equal scores; pooled over queries
        values, table = scored([[2, 1, 0, 1], [1, 1], [0, 1]], [[0.9, 0.9, 0.1, 0.5], [0.3, 0.2], [0.7, 0.1]],
                               ["QueryAUC"], ties="average")
        # query 0: pairs (2,1) tied 1/2, (2,0) 1, (2,1') 1, (1,0) 1, (1',0) 1 -> 4.5 of 5
        close(values["QueryAUC"][[0, 2]], [4.5 / 5, 0.0])
        assert math.isnan(values["QueryAUC"][1])
        assert table.unscored["QueryAUC"] == {1: "no pair of different labels"}
        assert table.all["QueryAUC"] == pytest.approx(4.5 / 6)


# =========================================================================== allRank


class TestAllRank:
    """``tests/losses/test_ndcg.py`` and ``test_mrr.py``: nDCG with exponential gain, and MRR
    at the cutoffs ``ats``; ``PADDED_Y_VALUE`` (-1) items left out."""

    def test_ndcg(self):
        spec = "nDCG(gain='exp')"
        assert one([[1.0, 0.0]], [[0.5, 0.2]], spec)[0] == 1.0  # test_ndcg_simple_1
        assert one([[0.0, 1.0]], [[0.5, 0.2]], spec)[0] == pytest.approx(1 / math.log2(3))  # simple_2
        assert one([[0.0, 0.0]], [[0.5, 0.2]], spec)[0] == 0.0  # test_ndcg_zero_when_no_relevant
        assert one([[1.0, 0.0, 1.0]], [[0.5, 0.2, 0.1]], spec + "@1")[0] == 1.0  # test_ndcg_for_multiple_ats
        assert one([[1.0, 0.0, 1.0]], [[0.5, 0.2, 0.1]], spec + "@2")[0] == pytest.approx(
            1.0 / (1.0 + 1 / math.log2(3)))
        assert one([[1.0, 0.0, -1]], [[0.5, 0.2, 1.0]], spec)[0] == 1.0  # test_ndcg_with_padded_input
        assert one([[0.0, 1.0, -1]], [[0.5, 0.2, 1.0]], spec)[0] == pytest.approx(1 / math.log2(3))
        # allRank's ndcg() fills 1.0 (filler_value) where the ideal DCG is 0: no_relevant=1
        assert one([[0.0, 0.0]], [[0.5, 0.2]], "nDCG(gain='exp', no_relevant=1)")[0] == 1.0

    def test_mrr(self):
        assert one([[1.0, 0.0]], [[0.5, 0.2]], "RR@10")[0] == 1.0  # test_mrr_simple_1
        assert one([[1.0, 0.0]], [[0.5, 0.2]], "RR")[0] == 1.0  # test_mrr_simple_no_ats
        assert one([[0.0, 1.0]], [[0.5, 0.2]], "RR@10")[0] == 0.5  # test_mrr_simple_2
        close(one([[0.0, 1.0], [0.0, 1.0]], [[0.2, 0.5], [0.5, 0.2]], "RR@10"), [1.0, 0.5])  # multiple_slates
        assert one([[0.0, 1.0]], [[0.5, 0.2]], "RR@1")[0] == 0.0  # test_mrr_multiple_ats
        assert one([[0.0, 1.0]], [[0.5, 0.2]], "RR@2")[0] == 0.5
        close(one([[0.0, 1.0], [0.0, 1.0]], [[0.2, 0.5], [0.5, 0.2]], "RR@1"), [1.0, 0.0])  # multiple_slates_and_ats
        close(one([[0.0, 1.0], [0.0, 1.0]], [[0.2, 0.5], [0.5, 0.2]], "RR@2"), [1.0, 0.5])
        assert one([[0.0, 0.0]], [[0.5, 0.2]], "RR@10")[0] == 0.0  # test_mrr_zero_when_no_relevant
        assert one([[1.0, 0.0, -1]], [[0.5, 0.2, 1.0]], "RR@10")[0] == 1.0  # test_mrr_with_padded_input
        assert one([[0.0, 1.0, -1]], [[0.5, 0.2, 1.0]], "RR@10")[0] == 0.5


# =========================================================================== log loss


class TestLogLoss:
    def test_by_hand_and_the_pooled_value(self):
        assert rk.log_loss([1, 0], [0.8, 0.4]) == pytest.approx(-(math.log(0.8) + math.log(0.6)) / 2)
        values, table = scored([[1, 0, 1], [0, 1]], [[0.9, 0.2, 0.6], [0.3, 0.5]], ["LogLoss"])
        rows = [(1, 0.9), (0, 0.2), (1, 0.6), (0, 0.3), (1, 0.5)]
        by_row = [-(t * math.log(p) + (1 - t) * math.log(1 - p)) for t, p in rows]
        close(values["LogLoss"], [sum(by_row[:3]) / 3, sum(by_row[3:]) / 2], 1e-12)
        assert table.all["LogLoss"] == pytest.approx(sum(by_row) / 5, rel=1e-12)

    def test_logits_soft_targets_and_levels(self):
        logits = np.array([2.0, -1.0, 800.0, -800.0])
        targets = np.array([1.0, 0.0, 1.0, 0.0])
        value = ltr.log_loss(targets, logits, prediction="logit")
        assert value == pytest.approx(np.mean([math.log1p(math.exp(-2.0)), math.log1p(math.exp(-1.0)), 0.0, 0.0]))
        assert ltr.log_loss([0.25], [0.5], rel=None) == pytest.approx(math.log(2))
        assert ltr.log_loss([2, 1, 0], [0.9, 0.2, 0.1], rel=2) == pytest.approx(
            -(math.log(0.9) + math.log(0.8) + math.log(0.9)) / 3)
        assert ltr.log_loss([1, 0], [0.0, 0.0]) == math.inf
        with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
            ltr.log_loss([1, 0], [1.5, 0.2])
        with pytest.raises(ValueError, match=r"rel=None takes labels in \[0, 1\]"):
            ltr.log_loss([2, 0], [0.5, 0.2], rel=None)
        with pytest.raises(ValueError, match="prediction must be one of"):
            ltr.log_loss([1, 0], [0.5, 0.2], prediction="odds")
        with pytest.raises(ValueError, match="needs the predictions"):
            ltr.log_loss([1, 0])

    def test_it_is_a_metric_of_scores(self):
        assert REGISTRY["LogLoss"].scores and REGISTRY["QueryAUC"].scores
        with pytest.raises(ValueError, match="needs the model's scores"):
            rk.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["LogLoss"])


# =========================================================================== oracles


@st.composite
def queries(draw, levels=3, probabilities=False):
    """A few queries of labels (grades, or probabilities) and scores with ties."""
    sizes = draw(st.lists(st.integers(1, 9), min_size=1, max_size=5))
    lists = []
    for size in sizes:
        if probabilities:
            labels = draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.8, 1.0]), min_size=size, max_size=size))
        else:
            labels = draw(st.lists(st.integers(0, levels), min_size=size, max_size=size))
        scores = draw(st.lists(st.integers(0, 4), min_size=size, max_size=size))
        lists.append((list(map(float, labels)), [s / 4 for s in scores]))
    return lists


def ranked(labels, scores, ties="pessimistic"):
    """Labels by score descending, equal scores by label ascending (or descending)."""
    sign = 1 if ties == "pessimistic" else -1
    return [lab for _, lab in sorted(zip(scores, labels), key=lambda p: (-p[0], sign * p[1]))]


def run(lists, spec, ties="pessimistic"):
    return one([ls for ls, _ in lists], [ss for _, ss in lists], spec, ties=ties)


def loop_arp(ls):
    total = sum(ls)
    return sum((i + 1) * y for i, y in enumerate(ls)) / total if total else 0.0


def loop_pwa(ls, k):
    m = len(ls) if k is None else min(k, len(ls))
    return sum(ls[i] / (i + 1) for i in range(m)) / sum(1 / (i + 1) for i in range(m))


def loop_pair_accuracy(labels, scores):
    """(correct, pairs): pairs of different labels, 1 when the higher label has the higher
    score, 1/2 when the scores are equal."""
    correct = pairs = 0.0
    for i in range(len(labels)):
        for j in range(len(labels)):
            if labels[i] > labels[j]:
                pairs += 1
                correct += 1.0 if scores[i] > scores[j] else 0.5 if scores[i] == scores[j] else 0.0
    return correct, pairs


def loop_pfound(ls, decay=0.85, k=None):
    look, found = 1.0, 0.0
    for p in ls[:k]:
        found += look * p
        look *= (1 - p) * decay
    return found


def loop_err(ls, k=None):
    reach, total = 1.0, 0.0
    for i, p in enumerate(ls[:k]):
        total += reach * p / (i + 1)
        reach *= 1 - p
    return total


@settings(max_examples=sweep(60), deadline=None)
@given(lists=queries(), k=st.sampled_from([None, 1, 3]), ties=st.sampled_from(["pessimistic", "optimistic"]))
def test_arp_pwa_opa_against_loops(lists, k, ties):
    order = [ranked(ls, ss, ties) for ls, ss in lists]
    close(run(lists, "ARP", ties), [loop_arp(ls) for ls in order], 1e-12)
    close(run(lists, "PWA" + (f"@{k}" if k else ""), ties), [loop_pwa(ls, k) for ls in order], 1e-12)
    expected = []
    for ls in order:  # tie-broken order: the pairs of the ranking, no tie left
        correct, pairs = loop_pair_accuracy(ls, [-i for i in range(len(ls))])
        expected.append(correct / pairs if pairs else 0.0)
    close(run(lists, "OPA", ties), expected, 1e-12)


@settings(max_examples=sweep(60), deadline=None)
@given(lists=queries())
def test_query_auc_and_opa_with_tied_scores_against_the_pair_loop(lists):
    values, table = scored([ls for ls, _ in lists], [ss for _, ss in lists], ["QueryAUC", "OPA"], ties="average")
    counts = [loop_pair_accuracy(ls, ss) for ls, ss in lists]
    close(values["QueryAUC"], [c / p if p else math.nan for c, p in counts], 1e-12)
    close(values["OPA"], [c / p if p else 0.0 for c, p in counts], 1e-12)
    pooled = sum(p for _, p in counts)
    if pooled:
        assert table.all["QueryAUC"] == pytest.approx(sum(c for c, _ in counts) / pooled, rel=1e-12)
    else:
        assert math.isnan(table.all["QueryAUC"])


@settings(max_examples=sweep(60), deadline=None)
@given(lists=queries(probabilities=True), k=st.sampled_from([None, 1, 3]),
       decay=st.sampled_from([0.85, 0.5, 1.0, 0.0]))
def test_pfound_and_err_on_probabilities_against_loops(lists, k, decay):
    order = [ranked(ls, ss) for ls, ss in lists]
    cut = f"@{k}" if k else ""
    close(run(lists, f"PFound(decay={decay}){cut}"), [loop_pfound(ls, decay, k) for ls in order], 1e-12)
    close(run(lists, f"ERR(stop='label'){cut}"), [loop_err(ls, k) for ls in order], 1e-12)


@settings(max_examples=sweep(60), deadline=None)
@given(lists=queries(levels=1), k=st.sampled_from([1, 3, 12]))
def test_precision_bpref_ap_rr_conventions_against_loops(lists, k):
    for ls, _ in lists:
        n, hits, relevant = len(ls), sum(ls[:k]), sum(ls)
        assert rk.precision(ls, k=k, normalize="min_k_retrieved") == pytest.approx(hits / min(k, n))
        nonrel = n - relevant
        above, total = 0, 0.0
        for y in ls:
            if y:
                total += 1 - min(above, relevant) / relevant
            else:
                above += 1
        assert rk.bpref(ls, normalize="relevant") == pytest.approx(total / relevant if relevant else 0.0)
        if nonrel and relevant:  # the default stays trec_eval's
            assert rk.bpref(ls) <= 1.0
        if not relevant:
            assert rk.average_precision(ls, no_relevant=1) == 1.0 == rk.reciprocal_rank(ls, no_relevant=1)
        else:
            assert rk.average_precision(ls, no_relevant=1) == rk.average_precision(ls)
            assert rk.reciprocal_rank(ls, no_relevant=1) == rk.reciprocal_rank(ls)


@settings(max_examples=sweep(60), deadline=None)
@given(lists=queries(levels=4), shift=st.integers(1, 20))
def test_a_callable_discount_against_a_loop(lists, shift):
    for ls, _ in lists:
        dcg = sum((2 ** y - 1) / (i + 1 + shift) for i, y in enumerate(ls))
        ideal = sum((2 ** y - 1) / (i + 1 + shift) for i, y in enumerate(sorted(ls, reverse=True)))
        assert rk.dcg(ls, gain="exp", discount=lambda r: 1 / (r + shift)) == pytest.approx(dcg, rel=1e-12)
        assert rk.ndcg(ls, gain="exp", discount=lambda r: 1 / (r + shift)) == pytest.approx(
            dcg / ideal if ideal else 0.0, rel=1e-12)


@settings(max_examples=sweep(60), deadline=None)
@given(lists=queries(levels=1), logit=st.booleans())
def test_log_loss_against_a_loop(lists, logit):
    spec = "LogLoss(prediction='logit')" if logit else "LogLoss"
    values, table = scored([ls for ls, _ in lists], [[0.05 + 0.9 * s for s in ss] for _, ss in lists], [spec],
                           ties="average")
    per_query, rows = [], []
    for ls, ss in lists:
        losses = []
        for t, s in zip(ls, ss):
            p = 1 / (1 + math.exp(-(0.05 + 0.9 * s))) if logit else 0.05 + 0.9 * s
            losses.append(-(t * math.log(p) + (1 - t) * math.log(1 - p)))
        per_query.append(sum(losses) / len(losses))
        rows += losses
    close(values[spec], per_query, 1e-12)
    assert table.all[spec] == pytest.approx(sum(rows) / len(rows), rel=1e-12)


# =========================================================================== records and other libraries


def test_the_records_and_their_unscored_reports():
    for name in ("ARP", "PWA", "OPA", "PFound", "QueryAUC", "LogLoss"):
        assert REGISTRY[name].any_library, name
    assert REGISTRY["PWA"].cutoff and REGISTRY["PFound"].cutoff and not REGISTRY["OPA"].cutoff
    assert REGISTRY["PFound"].parameter("decay").default == 0.85
    assert str(parse_metric("PFound(decay=0.5)@10")) == "PFound(decay=0.5)@10"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = rk.evaluate_scores([1, 1, 2, 0, 0, 0], [0.5, 0.2, 0.9, 0.1, 0.3, 0.2], [1, 1, 2, 2, 3, 3],
                                   ["OPA", "PFound(max_grade=2)", "AP(no_relevant=1)"])
    assert table.unscored["OPA"] == {1: "no pair of different labels: 0, as TensorFlow Ranking scores it",
                                     3: "no pair of different labels: 0, as TensorFlow Ranking scores it"}
    assert table["OPA"].tolist() == [0.0, 1.0, 0.0]
    assert table.unscored["PFound(max_grade=2)"] == {3: "no relevant document: 0, as rk.evaluate scores it"}
    assert table.unscored["AP(no_relevant=1)"] == {3: "no relevant document: 1, as no_relevant=1 sets it"}


def test_rk_evaluate_takes_the_rank_measures():
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1, "e": 0}}
    run_ = {"q1": {"a": 0.9, "b": 0.8, "c": 0.1}, "q2": {"d": 0.2, "e": 0.5}}
    table = rk.evaluate(qrels, run_, ["ARP", "OPA", "PWA@2", "P(normalize='min_k_retrieved')@5",
                                      "bpref(normalize='relevant')"])
    close(table["ARP"], [(1 * 2 + 3 * 1) / 3, 2.0])
    close(table["OPA"], [2 / 3, 0.0])
    close(table["PWA@2"], [2 / 1.5, 0.5 / 1.5])
    close(table["P(normalize='min_k_retrieved')@5"], [2 / 3, 1 / 2])
    close(table["bpref(normalize='relevant')"], [(1 + (1 - 1 / 2)) / 2, 0.0])


@pytest.mark.parametrize("spec", ["ARP", "PWA@3", "OPA", "PFound@3", "QueryAUC", "LogLoss",
                                  "AP(no_relevant=1)", "RR(no_relevant=1)@3", "P(normalize='min_k_retrieved')@5",
                                  "ERR(stop='label')"])
def test_array_api_strict_gives_the_numpy_values(spec):
    xp = pytest.importorskip("array_api_strict")
    labels = np.array([1.0, 0.0, 0.5, 0.0, 1.0, 0.25, 0.0])
    scores = np.array([0.9, 0.4, 0.4, 0.3, 0.2, 0.6, 0.1])
    query = np.array([1, 1, 1, 2, 2, 2, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = rk.evaluate_scores(labels, scores, query, [spec], ties="optimistic")
        table = rk.evaluate_scores(xp.asarray(labels), xp.asarray(scores), xp.asarray(query), [spec],
                                   ties="optimistic")
    assert type(table[spec]).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(np.asarray(table[spec]), expected[spec], rtol=1e-12, atol=1e-15)
    assert float(table.all[spec]) == pytest.approx(float(expected.all[spec]), rel=1e-12, nan_ok=True)


def orders_of_the_ties(labels, scores):
    """Every order of the labels by score descending, equal scores in every order."""
    groups = [[lab for s2, lab in zip(scores, labels) if s2 == s] for s in sorted(set(scores), reverse=True)]
    for parts in itertools.product(*(set(itertools.permutations(g)) for g in groups)):
        yield [lab for part in parts for lab in part]


@settings(max_examples=sweep(40), deadline=None)
@given(size=st.integers(1, 5), draw=st.data(), k=st.sampled_from([None, 1, 2]))
def test_average_ties_give_the_mean_over_every_order(size, draw, k):
    """ARP, PWA and OPA under ties="average": the exact expectation over the orders of each tie."""
    labels = [float(x) for x in draw.draw(st.lists(st.integers(0, 3), min_size=size, max_size=size))]
    scores = [x / 2 for x in draw.draw(st.lists(st.integers(0, 2), min_size=size, max_size=size))]
    orders = [rk.as_rankings([order]) for order in orders_of_the_ties(labels, scores)]
    cut = f"@{k}" if k else ""
    for spec, func in (("ARP", rk.average_relevance_position), ("PWA" + cut, rk.position_weighted_average),
                       ("OPA", rk.ordered_pair_accuracy)):
        kwargs = {"k": k} if spec.startswith("PWA") else {}
        expected = np.mean([func(r, **kwargs)[0] for r in orders])
        assert one([labels], [scores], spec, ties="average")[0] == pytest.approx(expected, rel=1e-12, abs=1e-12), spec
