"""The values the peers' own test suites state, reproduced by rankkit under the matching
convention: scikit-learn, torchmetrics, ranx, ir_measures and pytrec_eval.

Each group of values cites the repository and the file that states them (and the test or
example), with the numbers quoted; the inputs are rebuilt here as labels in rank order
(or labels and scores) and the call names the convention that reproduces the peer. Files
read at these commits:

- scikit-learn 1.9, ``scikit-learn/scikit-learn``, ``sklearn/metrics/tests/test_ranking.py``
  (the copy installed with scikit-learn 1.9);
- ``Lightning-AI/torchmetrics`` at dab0333 (torchmetrics 1.9): the examples of
  ``src/torchmetrics/functional/retrieval/*.py`` and ``src/torchmetrics/retrieval/*.py``
  (run as doctests by its test suite) and ``tests/unittests/retrieval/test_ndcg.py``;
- ``AmenRa/ranx`` at 2cae52f: ``tests/unit/ranx/meta/evaluate_test.py``;
- ``terrierteam/ir_measures`` at dc04a88: ``tests/test_pytrec_eval.py``;
- ``cvangysel/pytrec_eval`` at 0d8571e: ``tests/pytrec_eval_tests.py``.

Values that need torchmetrics' "a score of 0 or less is not retrieved" are left to the
tests of ``evaluate_scores(retrieved="positive")``.
"""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import rankkit as rk
from rankkit import Rankings
from rankkit.metrics.binary import average_precision, fallout, reciprocal_rank
from rankkit.metrics.graded import dcg, ndcg
from rankkit.metrics.label_ranking import lrap, lrap_score

# --------------------------------------------------------------------------- helpers


def by_score(queries) -> Rankings:
    """Queries given as ``(labels, scores)``, ranked by score descending; equal scores form a
    tie group (``ties="average"``: the expected value over their orders). Every document of
    a query is judged, as in scikit-learn and torchmetrics."""
    rows, groups = [], []
    for labels, scores in queries:
        order = np.argsort(-np.asarray(scores, dtype=float), kind="stable")
        ranked = [float(scores[i]) for i in order]
        rows.append([float(labels[i]) for i in order])
        groups.append([ranked.index(x) for x in ranked])
    r = rk.as_rankings(rows)
    depth = r.depth
    ties = np.array([g + list(range(len(g), depth)) for g in groups], dtype=np.int64)
    ties = ties + (np.arange(len(rows)) * depth)[:, None]  # one id space for all queries
    return Rankings(labels=r.labels, judged=r.judged, lengths=r.lengths, ideal=r.ideal, n_judged=r.n_judged,
                    query_ids=r.query_ids, ties=ties)


def indexed(indexes, preds, target):
    """torchmetrics' flat (indexes, preds, target) as one (labels, scores) pair per query."""
    queries = {}
    for q, p, t in zip(indexes, preds, target):
        labels, scores = queries.setdefault(q, ([], []))
        labels.append(float(t))
        scores.append(float(p))
    return [queries[q] for q in sorted(queries)]


def ranked_ids(judged: dict, order: list) -> list[float]:
    """ranx's inputs: relevance by document id, and the run's ids in rank order."""
    return [float(judged.get(doc, 0)) for doc in order]


def trec(text: str) -> dict:
    """Lines ``query 0 doc label`` (qrels) or ``query Q0 doc rank score run`` (run) as a dict."""
    out: dict = {}
    for line in text.strip().splitlines():
        parts = line.split()
        value = int(parts[3]) if len(parts) == 4 else float(parts[4])
        out.setdefault(parts[0], {})[parts[2]] = value
    return out


# --------------------------------------------------------------------------- scikit-learn


class TestScikitLearnPublished:
    """scikit-learn/scikit-learn, sklearn/metrics/tests/test_ranking.py (scikit-learn 1.9)."""

    def test_ndcg_toy_examples_log_base(self):
        # test_ndcg_toy_examples: y_true = 3 * eye(7)[:5], y_score = 6, 5, ..., 0 on every row:
        # row i holds its one label 3 at rank i + 1. DCG "3 / np.log2(np.arange(2, 7))",
        # with log_base=10 "3 / np.log10(np.arange(2, 7))", nDCG "1 / np.log2(np.arange(2, 7))",
        # and the means of dcg_score and ndcg_score over the five rows
        rows = (3 * np.eye(7)[:5]).tolist()
        ranks = np.arange(2, 7)
        np.testing.assert_allclose(dcg(rows), 3 / np.log2(ranks), rtol=1e-15)
        np.testing.assert_allclose(dcg(rows, base=10), 3 / np.log10(ranks), rtol=1e-15)
        np.testing.assert_allclose(ndcg(rows), 1 / np.log2(ranks), rtol=1e-15)
        np.testing.assert_allclose(ndcg(rows, base=10), 1 / np.log2(ranks), rtol=1e-15)
        assert dcg(rows).mean() == pytest.approx((3 / np.log2(ranks)).mean(), rel=1e-15)
        assert ndcg(rows).mean() == pytest.approx((1 / np.log2(ranks)).mean(), rel=1e-15)
        # y_true = 3 * ones((5, 7)): DCG "(3 / np.log2(np.arange(2, 9))).sum()", nDCG 1.0
        everywhere = [[3.0] * 7] * 5
        np.testing.assert_allclose(dcg(everywhere), (3 / np.log2(np.arange(2, 9))).sum(), rtol=1e-15)
        np.testing.assert_allclose(ndcg(everywhere), 1.0, rtol=1e-15)

    def test_dcg_ties(self):
        # test_dcg_ties: y_true = 0, 1, 2, 3, 4 all scored 0 gives "discounts.sum() * y_true.mean()";
        # scores 0, 0, 0, 1, 1 give "discounts[:2].sum() * y_true[0, 3:].mean() +
        # discounts[2:].sum() * y_true[0, :3].mean()", discounts 1 / log2(2..6)
        labels = [0, 1, 2, 3, 4]
        w = 1 / np.log2(np.arange(2, 7))
        assert dcg(by_score([(labels, [0, 0, 0, 0, 0])]))[0] == pytest.approx(w.sum() * 2.0, rel=1e-15)
        want = w[:2].sum() * 3.5 + w[2:].sum() * 1.0
        assert dcg(by_score([(labels, [0, 0, 0, 1, 1])]))[0] == pytest.approx(want, rel=1e-15)

    def test_ndcg_invariant(self):
        # test_ndcg_invariant: y_true = arange(70).reshape(7, 10), scored in the labels' order,
        # nDCG 1.0 (with and without ties, and after adding 1000 to the scores)
        labels = np.arange(70).reshape(7, 10)
        scores = labels + 0.1
        r = by_score(list(zip(labels.tolist(), scores.tolist())))
        np.testing.assert_allclose(ndcg(r), 1.0, rtol=1e-15)
        np.testing.assert_allclose(ndcg(by_score(list(zip(labels.tolist(), (scores + 1000).tolist())))), 1.0)

    @pytest.mark.parametrize("labels, scores, expected", [
        # test_precision_recall_curve_toydata, average_precision_score of each binary case
        ([0, 1], [0, 1], 1.0), ([0, 1], [1, 0], 0.5), ([1, 0], [1, 1], 0.5), ([1, 0], [1, 0], 1.0),
        ([1, 0], [0.5, 0.5], 0.5), ([0, 0], [0.25, 0.75], 0.0), ([1, 1], [0.25, 0.75], 1.0),
    ])
    def test_average_precision_toydata(self, labels, scores, expected):
        r = by_score([(labels, scores)])
        assert average_precision(r, tied="group_end")[0] == pytest.approx(expected, abs=1e-15)

    @pytest.mark.parametrize("labels, scores, expected", [
        # the multi-label cases of test_precision_recall_curve_toydata, average="samples":
        # each row is a query, the mean of its APs
        ([[0, 1], [0, 1]], [[0, 1], [0, 1]], 1.0), ([[0, 1], [0, 1]], [[0, 1], [1, 0]], 0.75),
        ([[1, 0], [0, 1]], [[0, 1], [1, 0]], 0.5), ([[0, 0], [0, 0]], [[0, 1], [0, 1]], 0.0),
        ([[1, 1], [1, 1]], [[0, 1], [0, 1]], 1.0), ([[1, 0], [0, 1]], [[0.5, 0.5], [0.5, 0.5]], 0.5),
    ])
    def test_average_precision_samples(self, labels, scores, expected):
        r = by_score(list(zip(labels, scores)))
        assert average_precision(r, tied="group_end").mean() == pytest.approx(expected, abs=1e-15)

    def test_average_precision_constant_values(self):
        # test_average_precision_constant_values: one label in four positive, one score for
        # all: "average_precision_score(y_true, y_score) == 0.25"
        labels = [1 if i % 4 == 0 else 0 for i in range(100)]
        r = by_score([(labels, [1.0] * 100)])
        assert average_precision(r, tied="group_end")[0] == 0.25
        # the expected AP over the orders of the one group is not the same number
        assert average_precision(r)[0] > 0.25

    @pytest.mark.parametrize("labels, scores, expected", [
        # check_lrap_toy, every case (scores 0.25, 0.5, 0.75 in three orders, then ties)
        ([0, 1], [0.25, 0.75], 1), ([0, 1], [0.75, 0.25], 1 / 2), ([1, 1], [0.75, 0.25], 1),
        ([0, 0, 1], [0.25, 0.5, 0.75], 1), ([0, 1, 0], [0.25, 0.5, 0.75], 1 / 2),
        ([0, 1, 1], [0.25, 0.5, 0.75], 1), ([1, 0, 0], [0.25, 0.5, 0.75], 1 / 3),
        ([1, 0, 1], [0.25, 0.5, 0.75], (2 / 3 + 1 / 1) / 2), ([1, 1, 0], [0.25, 0.5, 0.75], (2 / 3 + 1 / 2) / 2),
        ([0, 0, 1], [0.75, 0.5, 0.25], 1 / 3), ([0, 1, 0], [0.75, 0.5, 0.25], 1 / 2),
        ([0, 1, 1], [0.75, 0.5, 0.25], (1 / 2 + 2 / 3) / 2), ([1, 0, 0], [0.75, 0.5, 0.25], 1),
        ([1, 0, 1], [0.75, 0.5, 0.25], (1 + 2 / 3) / 2), ([1, 1, 0], [0.75, 0.5, 0.25], 1),
        ([1, 1, 1], [0.75, 0.5, 0.25], 1),
        ([0, 0, 1], [0.5, 0.75, 0.25], 1 / 3), ([0, 1, 0], [0.5, 0.75, 0.25], 1),
        ([0, 1, 1], [0.5, 0.75, 0.25], (1 + 2 / 3) / 2), ([1, 0, 0], [0.5, 0.75, 0.25], 1 / 2),
        ([1, 0, 1], [0.5, 0.75, 0.25], (1 / 2 + 2 / 3) / 2), ([1, 1, 0], [0.5, 0.75, 0.25], 1),
        ([1, 1, 1], [0.5, 0.75, 0.25], 1),
        ([1, 0], [0.5, 0.5], 0.5), ([0, 1], [0.5, 0.5], 0.5), ([1, 1], [0.5, 0.5], 1),
        ([0, 0, 1], [0.25, 0.5, 0.5], 0.5), ([0, 1, 0], [0.25, 0.5, 0.5], 0.5), ([0, 1, 1], [0.25, 0.5, 0.5], 1),
        ([1, 0, 0], [0.25, 0.5, 0.5], 1 / 3), ([1, 0, 1], [0.25, 0.5, 0.5], (2 / 3 + 1 / 2) / 2),
        ([1, 1, 0], [0.25, 0.5, 0.5], (2 / 3 + 1 / 2) / 2), ([1, 1, 1], [0.25, 0.5, 0.5], 1),
        ([1, 1, 0], [0.5, 0.5, 0.5], 2 / 3), ([1, 1, 1, 0], [0.5, 0.5, 0.5, 0.5], 3 / 4),
    ])
    def test_lrap_toy(self, labels, scores, expected):
        assert lrap(labels, scores) == pytest.approx(expected, abs=1e-15)
        assert lrap_score([labels], [scores]) == pytest.approx(expected, abs=1e-15)

    def test_lrap_only_ties_and_increasing_scores(self):
        for n_labels in range(2, 10):
            # check_lrap_only_ties: all scores equal, n_relevant consecutive relevant labels
            # anywhere: "n_relevant / n_labels"
            # check_lrap_without_tie_and_increasing_score: scores n - 1, ..., 0; the first and
            # last label relevant: "(2 / n_labels + 1) / 2"; n_relevant from position pos:
            # "sum((r + 1) / ((pos + r + 1) * n_relevant) for r in range(n_relevant))"
            decreasing = [n_labels - 1 - i for i in range(n_labels)]
            ends = [1] + [0] * (n_labels - 2) + [1]
            assert lrap(ends, decreasing) == pytest.approx((2 / n_labels + 1) / 2, abs=1e-15)
            for n_relevant in range(1, n_labels):
                for pos in range(n_labels - n_relevant):
                    labels = [1 if pos <= i < pos + n_relevant else 0 for i in range(n_labels)]
                    assert lrap(labels, [1.0] * n_labels) == pytest.approx(n_relevant / n_labels, abs=1e-15)
                    want = sum((r + 1) / ((pos + r + 1) * n_relevant) for r in range(n_relevant))
                    assert lrap(labels, decreasing) == pytest.approx(want, abs=1e-15)

    def test_lrap_zero_or_all_relevant_labels(self):
        # check_zero_or_all_relevant_labels: no relevant label, or only relevant ones, "== 1.0",
        # with random or tied scores; and "[[1], [0], [1], [0]]" with one label each: 1.0
        for n_labels in range(2, 5):
            for labels in ([0] * n_labels, [1] * n_labels):
                assert lrap(labels, np.linspace(0.1, 0.9, n_labels)) == 1.0
                assert lrap(labels, [0.0] * n_labels) == 1.0
        assert lrap_score([[1], [0], [1], [0]], [[0.5], [0.5], [0.5], [0.5]]) == 1.0

    def test_lrap_sample_weighting_zero_labels(self):
        # test_lrap_sample_weighting_zero_labels: "the APs are 0.5, 0.75, and 1.0", weights
        # 1, 1, 0: their weighted mean
        labels = [[1, 0, 0, 0], [1, 0, 0, 1], [0, 0, 0, 0]]
        scores = [[0.3, 0.4, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]]
        np.testing.assert_allclose(lrap(labels, scores), [0.5, 0.75, 1.0], rtol=0, atol=1e-15)
        assert lrap_score(labels, scores, sample_weight=[1.0, 1.0, 0.0]) == pytest.approx(0.625, abs=1e-15)


# --------------------------------------------------------------------------- torchmetrics

#: The functional examples' inputs: preds 0.2, 0.3, 0.5 for target True, False, True.
FUNCTIONAL = ([1, 0, 1], [0.2, 0.3, 0.5])
#: The class examples' inputs (indexes, preds, target).
CLASSES = ([0, 0, 0, 1, 1, 1, 1], [0.2, 0.3, 0.5, 0.1, 0.3, 0.5, 0.2], [0, 0, 1, 0, 1, 0, 1])


class TestTorchmetricsPublished:
    """Lightning-AI/torchmetrics: the examples of src/torchmetrics/functional/retrieval/ and
    src/torchmetrics/retrieval/ (the mean over queries, every query with a positive)."""

    def test_functional_examples(self):
        r = by_score([FUNCTIONAL])
        # average_precision.py "tensor(0.8333)", fall_out.py top_k=2 "tensor(1.)",
        # hit_rate.py top_k=2 "tensor(1.)", precision.py top_k=2 "tensor(0.5000)",
        # r_precision.py "tensor(0.5000)", recall.py top_k=2 "tensor(0.5000)"
        assert average_precision(r)[0] == pytest.approx(0.8333, abs=5e-5)
        assert fallout(r, k=2)[0] == 1.0
        assert rk.success(r, k=2)[0] == 1.0
        assert rk.precision(r, k=2)[0] == 0.5
        assert rk.r_precision(r)[0] == 0.5
        assert rk.recall(r, k=2)[0] == 0.5
        # reciprocal_rank.py: target False, True, False "tensor(0.5000)"
        assert reciprocal_rank(by_score([([0, 1, 0], [0.2, 0.3, 0.5])]))[0] == 0.5
        # auroc.py "tensor(0.5000)"
        assert rk.auc(*FUNCTIONAL) == 0.5
        # ndcg.py: preds .1, .2, .3, 4, 70 for target 10, 0, 0, 1, 5 "tensor(0.6957)"
        assert ndcg(by_score([([10, 0, 0, 1, 5], [0.1, 0.2, 0.3, 4, 70])]))[0] == pytest.approx(0.6957, abs=5e-5)
        # precision_recall_curve.py max_k=2: precisions "[1.0000, 0.5000]", recalls "[0.5000, 0.5000]"
        assert [rk.precision(r, k=k)[0] for k in (1, 2)] == [1.0, 0.5]
        assert [rk.recall(r, k=k)[0] for k in (1, 2)] == [0.5, 0.5]

    def test_class_examples(self):
        r = by_score(indexed(*CLASSES))
        # average_precision.py RetrievalMAP "tensor(0.7917)", fall_out.py RetrievalFallOut(top_k=2)
        # "tensor(0.5000)", ndcg.py RetrievalNormalizedDCG "tensor(0.8467)", precision.py
        # RetrievalPrecision(top_k=2) "tensor(0.5000)", r_precision.py "tensor(0.7500)",
        # recall.py RetrievalRecall(top_k=2) "tensor(0.7500)", reciprocal_rank.py RetrievalMRR
        # "tensor(0.7500)", auroc.py RetrievalAUROC "tensor(0.7500)"
        assert average_precision(r).mean() == pytest.approx(0.7917, abs=5e-5)
        # torchmetrics divides by the relevant documents it finds (normalize="retrieved"); here
        # every relevant one is retrieved, so both denominators agree
        assert average_precision(r, normalize="retrieved").mean() == pytest.approx(0.7917, abs=5e-5)
        assert fallout(r, k=2).mean() == 0.5
        assert ndcg(r).mean() == pytest.approx(0.8467, abs=5e-5)
        assert rk.precision(r, k=2).mean() == 0.5
        assert rk.r_precision(r).mean() == 0.75
        assert rk.recall(r, k=2).mean() == 0.75
        assert reciprocal_rank(r).mean() == 0.75
        labels, scores = zip(*indexed(*CLASSES))
        assert rk.auc(list(map(list, labels)), list(map(list, scores))).mean() == 0.75
        # hit_rate.py RetrievalHitRate(top_k=2), target True, False, False, False, True, False, True:
        # "tensor(0.5000)"
        hits = by_score(indexed(CLASSES[0], CLASSES[1], [1, 0, 0, 0, 1, 0, 1]))
        assert rk.success(hits, k=2).mean() == 0.5

    def test_precision_recall_curve_class_example(self):
        # precision_recall_curve.py RetrievalPrecisionRecallCurve(max_k=4): indexes 0, 0, 0, 0,
        # 1, 1, 1, preds 0.4, 0.01, 0.5, 0.6, 0.2, 0.3, 0.5, target True, False, False, True,
        # True, False, True: precisions "[1.0000, 0.5000, 0.6667, 0.5000]", recalls
        # "[0.5000, 0.5000, 1.0000, 1.0000]" (P@k divides by k beyond a query's 3 documents)
        r = by_score(indexed([0, 0, 0, 0, 1, 1, 1], [0.4, 0.01, 0.5, 0.6, 0.2, 0.3, 0.5], [1, 0, 0, 1, 1, 0, 1]))
        precisions = [rk.precision(r, k=k).mean() for k in (1, 2, 3, 4)]
        np.testing.assert_allclose(precisions, [1.0, 0.5, 0.6667, 0.5], atol=5e-5)
        assert [rk.recall(r, k=k).mean() for k in (1, 2, 3, 4)] == [0.5, 0.5, 1.0, 1.0]

    def test_ndcg_corner_case_with_tied_scores(self):
        # tests/unittests/retrieval/test_ndcg.py, test_corner_case_with_tied_scores: target
        # 10, 0, 0, 1, 5 with preds 0.1, 0, 0, 0, 0.1 equals scikit-learn's ndcg_score at k = 1, 3, 5
        from sklearn.metrics import ndcg_score

        labels, scores = [10, 0, 0, 1, 5], [0.1, 0, 0, 0, 0.1]
        r = by_score([(labels, scores)])
        for k in (1, 3, 5):
            assert ndcg(r, k=k)[0] == pytest.approx(ndcg_score([labels], [scores], k=k), abs=1e-12)
        # by hand at k = 1: the top group {10, 5} gives 7.5 on average, over the ideal 10
        assert ndcg(r, k=1)[0] == pytest.approx(0.75, abs=1e-15)


# --------------------------------------------------------------------------- ranx

#: evaluate_test.py's judgments (document id -> relevance) and runs (document ids in rank order).
RANX_RUN = [1, 2, 3, 4, 5, 7]
RANX_PARALLEL_RUN = [4, 5, 6, 2, 1, 7, 3]
RANX_ORDER = [2, 4, 3, 1, 5, 6, 7]


class TestRanxPublished:
    """AmenRa/ranx, tests/unit/ranx/meta/evaluate_test.py (binary relevance 1 unless graded)."""

    def test_binary(self):
        one = {1: 1, 4: 1, 5: 1, 6: 1}
        labels = ranked_ids(one, RANX_RUN)
        # test_hits_single "== 3", test_precision_single "3 / k" (k = 5), test_average_precision
        # map@6 "0.525" (R = 4: relevant 6 is not retrieved)
        assert rk.num_relevant_retrieved([labels[:5]]) == 3
        assert rk.precision(labels, k=5) == 3 / 5
        assert rk.average_precision(labels, k=6, n_relevant=4) == pytest.approx(0.525, abs=1e-15)
        # test_hits_parallel "== 2.5": the second query has 1, 4, 6 relevant, run 1, 2, 4, 3, 5, 7
        second = ranked_ids({1: 1, 4: 1, 6: 1}, [1, 2, 4, 3, 5, 7])
        assert (rk.num_relevant_retrieved([labels[:5]])[0] + rk.num_relevant_retrieved([second[:5]])[0]) / 2 == 2.5
        # test_hit_rate_single "== 1" (1, 2, 4 relevant), test_hit_rate_parallel "== 0.5"
        assert rk.success(ranked_ids({1: 1, 2: 1, 4: 1}, [1, 2, 4, 3, 5, 7]), k=5) == 1.0
        missed = ranked_ids({9: 1, 6: 1, 8: 1}, [1, 2, 3, 4, 5, 7])
        assert (rk.success(missed, k=5) + 1.0) / 2 == 0.5

    def test_reciprocal_rank_r_precision_recall(self):
        # test_reciprocal_rank_single mrr@5 "0.5"; _no_match "0.0"; _parallel "0.5": RR 0.5, 1
        # and 0 (the third run lists document 1 three times; 3 is not in it, so RR is 0 however
        # the repeats are read)
        assert rk.reciprocal_rank(ranked_ids({3: 1}, [2, 3, 1, 4, 5]), k=5) == 0.5
        assert rk.reciprocal_rank(ranked_ids({3: 1}, [2, 1, 4, 5]), k=5) == 0.0
        rr = [rk.reciprocal_rank(ranked_ids(j, o), k=5) for j, o in
              (({3: 1}, [2, 3, 1, 4, 5]), ({1: 1}, [1, 2, 3, 4, 5]), ({3: 1}, [1, 4, 5]))]
        assert sum(rr) / 3 == 0.5
        # test_r_precision_single "2 / 3", _parallel "(2 / 3 + 1 / 2) / 2"
        three, two = {1: 1, 2: 1, 3: 1}, {1: 1, 2: 1}
        assert rk.r_precision(ranked_ids(three, RANX_ORDER)) == pytest.approx(2 / 3, abs=1e-15)
        assert rk.r_precision(ranked_ids(two, RANX_ORDER)) == 0.5
        # test_recall_single recall@2 "1 / 3", _parallel "(1 / 3 + 1 / 2) / 2"
        assert rk.recall(ranked_ids(three, RANX_ORDER), k=2) == pytest.approx(1 / 3, abs=1e-15)
        assert rk.recall(ranked_ids(two, RANX_ORDER), k=2) == 0.5

    def test_graded(self):
        # test_dcg_jarvelin / test_ndcg_jarvelin / test_dcg_burges / test_ndcg_burges: documents
        # 2, 4, 5, 10 of relevance 5, 4, 3, 2; runs with relevance 0, 5, 0, 4, 3 and
        # 2, 3, 5, 4, 0 and none; dcg@10 "5 / log2(3) + 4 / log2(5) + 3 / log2(6)" and
        # "2 / log2(2) + 3 / log2(3) + 5 / log2(4) + 4 / log2(5)", 0.0 for the third; the
        # Burges forms with 2**rel - 1; nDCG over the ideal 5, 4, 3, 2
        judged = {2: 5, 4: 4, 5: 3, 10: 2}
        runs = [[1, 2, 3, 4, 5], [10, 5, 2, 4, 3], [1, 3, 6, 7, 8]]
        r = Rankings(labels=np.array([ranked_ids(judged, run) for run in runs]), judged=np.ones((3, 5), bool),
                     lengths=np.full(3, 5), ideal=np.tile([5.0, 4, 3, 2], (3, 1)), n_judged=np.full(3, 4),
                     query_ids=pd.Index([1, 2, 3]))
        log2 = np.log2
        linear = [5 / log2(3) + 4 / log2(5) + 3 / log2(6), 2 / log2(2) + 3 / log2(3) + 5 / log2(4) + 4 / log2(5), 0.0]
        exp = [31 / log2(3) + 15 / log2(5) + 7 / log2(6), 3 / log2(2) + 7 / log2(3) + 31 / log2(4) + 15 / log2(5), 0.0]
        ideal_linear = 5 / log2(2) + 4 / log2(3) + 3 / log2(4) + 2 / log2(5)
        ideal_exp = 31 / log2(2) + 15 / log2(3) + 7 / log2(4) + 3 / log2(5)
        np.testing.assert_allclose(dcg(r, k=10), linear, rtol=1e-15)
        np.testing.assert_allclose(dcg(r, k=10, gain="exp"), exp, rtol=1e-15)
        np.testing.assert_allclose(ndcg(r, k=10), np.array(linear) / ideal_linear, rtol=1e-15)
        np.testing.assert_allclose(ndcg(r, k=10, gain="exp"), np.array(exp) / ideal_exp, rtol=1e-15)


#: bpref_test.py and f1_test.py's judgments and runs (scores descending in the order given).
RANX_QRELS = {
    "q1": {"d2": 1, "d5": 1, "d1": 0, "d4": 0},
    "q2": {"d2": 1, "d5": 1, "d1": 0, "d6": 0},
    "q3": {"d2": 1, "d5": 1, "d7": 1, "d1": 0, "d6": 0, "d8": 0},
    "q4": {"d2": 1, "d4": 1, "d6": 1, "d9": 1, "d1": 0, "d3": 0, "d7": 0, "d8": 0},
}
RANX_RUNS = {
    "q1": ["d1", "d2", "d3", "d4"],
    "q2": ["d1", "d2", "d3", "d4", "d5", "d6"],
    "q3": ["d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8"],
    "q4": ["d1", "d2", "d3", "d4", "d6", "d7", "d8"],
}


def scored(runs: dict) -> dict:
    return {q: {doc: float(len(docs) - i) for i, doc in enumerate(docs)} for q, docs in runs.items()}


class TestRanxMetricsPublished:
    """AmenRa/ranx, tests/unit/ranx/metrics/: bpref_test.py, f1_test.py, rank_biased_precision_test.py."""

    def test_bpref(self):
        # "1 / 2 * (1 - (1 / 2))", "1 / 2 * ((1 - (1 / 2)) + (1 - (1 / 2)))",
        # "1 / 3 * ((1 - (1 / 3)) + (1 - (1 / 3)) + (1 - (2 / 3)))",
        # "1 / 4 * ((1 - (1 / 4)) + (1 - (2 / 4)) + (1 - (2 / 4)))"
        table = rk.evaluate(RANX_QRELS, scored(RANX_RUNS), ["bpref"])
        want = [1 / 2 * (1 - 1 / 2), 1 / 2 * ((1 - 1 / 2) + (1 - 1 / 2)),
                1 / 3 * ((1 - 1 / 3) + (1 - 1 / 3) + (1 - 2 / 3)), 1 / 4 * ((1 - 1 / 4) + (1 - 2 / 4) + (1 - 2 / 4))]
        np.testing.assert_allclose(table["bpref"].loc[["q1", "q2", "q3", "q4"]], want, rtol=1e-15)

    def test_f1(self):
        # test_f1: F1 = 2 P R / (P + R) of the whole retrieved set for q1-q3, and "0.0" for q4,
        # whose run (d1, d12, d3, d14, d16, d7, d8) retrieves no relevant document
        runs = {**RANX_RUNS, "q4": ["d1", "d12", "d3", "d14", "d16", "d7", "d8"]}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = rk.evaluate(RANX_QRELS, scored(runs), ["SetP", "SetR", "SetF"])
        p, r = table["SetP"], table["SetR"]
        np.testing.assert_allclose(table["SetF"].loc[["q1", "q2", "q3"]], (2 * p * r / (p + r)).loc[["q1", "q2", "q3"]],
                                   rtol=1e-15)
        assert table.loc["q4", "SetF"] == 0.0

    def test_rank_biased_precision(self):
        # test_rank_biased_precision: d1, d2, d6, d11, d17 relevant in a run d1..d20, p = 0.5:
        # "round(scores[0], 4) == 0.7661"
        labels = [1.0 if i in (1, 2, 6, 11, 17) else 0.0 for i in range(1, 21)]
        assert round(rk.rbp(labels, p=0.5), 4) == 0.7661


# --------------------------------------------------------------------------- ir_measures


def evaluate(qrels: str, run: str, measures: list[str]) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unjudged retrieved documents are the point here
        return rk.evaluate(trec(qrels), trec(run), measures)


IRM_RUN = """
0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D4 2 0.7 run
1 0 D3 3 0.3 run
1 0 D2 4 0.4 run
"""
IRM_QRELS_NEGATIVE = """
0 0 D0 1
0 0 D1 -1
0 0 D2 0
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D4 -1
1 0 D5 0
"""


class TestIrMeasuresPublished:
    """terrierteam/ir_measures, tests/test_pytrec_eval.py (its pytrec_eval provider)."""

    def test_ap_and_ndcg(self):
        # test_infAP: AP "0.8333" and ".125"; AP(rel=2) "0.33333" and "0.25"
        # test_nDCG: nDCG "0.76018" and "0.32739"; nDCG@3 "0.76018" and "0.0";
        # nDCG(gains={0:1,1:4}) "0.97177" and "0.14949"
        table = evaluate(IRM_QRELS_NEGATIVE, IRM_RUN,
                         ["AP", "AP(rel=2)", "nDCG", "nDCG@3", "nDCG(gains={0:1,1:4})"])
        expected = {"AP": (0.8333, 0.125), "AP(rel=2)": (0.33333, 0.25), "nDCG": (0.76018, 0.32739),
                    "nDCG@3": (0.76018, 0.0), "nDCG(gains={0:1,1:4})": (0.97177, 0.14949)}
        for column, values in expected.items():
            np.testing.assert_allclose(table[column].loc[["0", "1"]], values, atol=5e-5, err_msg=column)

    def test_success_and_iprec(self):
        # test_Success: Success@2 "1" and "0"; Success(rel=2)@2 "1" and "0"; Success(rel=3)@2 0, 0
        qrels = "0 0 D0 0\n0 0 D1 1\n0 0 D2 2\n0 0 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 0 D5 0"
        table = evaluate(qrels, IRM_RUN, ["Success@2", "Success(rel=2)@2", "Success(rel=3)@2"])
        assert table.loc[["0", "1"]].to_numpy().tolist() == [[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]
        # test_IPrec: IPrec@0.25 "1.0" and ".25", IPrec@0.75 "1.0" and "0",
        # IPrec(rel=2)@0.5 ".6666666" and ".25"
        qrels = "0 0 D0 1\n0 0 D1 1\n0 0 D2 2\n0 0 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 0 D5 0"
        table = evaluate(qrels, IRM_RUN, ["IPrec@0.25", "IPrec@0.75", "IPrec(rel=2)@0.5"])
        np.testing.assert_allclose(table.loc[["0", "1"]].to_numpy(), [[1.0, 1.0, 0.6666666], [0.25, 0.0, 0.25]],
                                   atol=5e-7)

    def test_set_measures_and_counts(self):
        # test_SetP / test_SetR / test_SetAP / test_SetF / test_NumRet / test_NumRel, per query and
        # calc_aggregate (the mean over queries; the sum for the counts)
        qrels = "0 0 D0 0\n0 0 D1 1\n0 0 D2 2\n0 0 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 0 D5 0"
        expected = {
            "SetP(rel=1)": (0.6, 0.25, 0.425), "SetRelP(rel=1)": (1.0, 0.5, 0.75), "SetP(rel=2)": (0.4, 0.25, 0.325),
            "SetRelP(rel=2)": (1.0, 1.0, 1.0), "SetP(rel=3)": (0, 0, 0),
            "SetR(rel=1)": (1.0, 0.5, 0.75), "SetR(rel=2)": (1.0, 1.0, 1.0), "SetR(rel=3)": (0, 0, 0),
            "SetAP(rel=1)": (0.6, 0.125, 0.3625), "SetAP(rel=2)": (0.4, 0.25, 0.325), "SetAP(rel=3)": (0, 0, 0),
            "SetF(rel=1)": (0.75, 0.33333, 0.5417), "SetF(rel=1, beta=0.5)": (0.6923, 0.3, 0.49615),
            "SetF(rel=1, beta=2.0)": (0.81818, 0.375, 0.59659), "SetF(rel=3)": (0, 0, 0),
        }
        table = evaluate(qrels, IRM_RUN, list(expected))
        for column, (first, second, mean) in expected.items():
            np.testing.assert_allclose(table[column].loc[["0", "1"]], [first, second], atol=5e-5, err_msg=column)
            assert table[column].mean() == pytest.approx(mean, abs=5e-5), column
        # test_NumRet (D2 relevant at 1, D5 at 2): NumRet "5" and "4" (sum 9); NumRet(rel=1), the
        # relevant ones retrieved, "3" and "1" (4); rel=2 "1" and "1" (2); rel=3 0 and 0
        qrels = "0 0 D0 0\n0 0 D1 1\n0 0 D2 1\n0 0 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 0 D5 2"
        counts = evaluate(qrels, IRM_RUN, ["NumRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumRet(rel=3)"])
        assert counts.loc[["0", "1"]].to_numpy().tolist() == [[5, 3, 1, 0], [4, 1, 1, 0]]
        assert counts.sum().tolist() == [9, 4, 2, 0]
        # test_NumRel (D5 judged 0): "3" and "2", sum 5
        qrels = "0 0 D0 0\n0 0 D1 1\n0 0 D2 1\n0 0 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 0 D5 0"
        assert evaluate(qrels, IRM_RUN, ["NumRel"])["NumRel"].loc[["0", "1"]].tolist() == [3, 2]

    def test_infap(self):
        # test_infAP: infAP "0.8333" and "0.1875" (mean "0.510416"); infAP(rel=2) "0.33333" and "0.375"
        table = evaluate(IRM_QRELS_NEGATIVE, IRM_RUN, ["infAP", "infAP(rel=2)", "AP"])
        np.testing.assert_allclose(table["infAP"].loc[["0", "1"]], [0.8333, 0.1875], atol=5e-5)
        assert table["infAP"].mean() == pytest.approx(0.510416, abs=5e-6)
        np.testing.assert_allclose(table["infAP(rel=2)"].loc[["0", "1"]], [0.33333, 0.375], atol=5e-5)
        assert table["AP"].mean() == pytest.approx(0.47916666666666663, abs=1e-15)

    def test_precision_judged_only(self):
        # test_P: P@4 "0.5" and "0.25"; P(judged_only=True)@4 "0.75" and "0.25"
        qrels = "0 0 D0 -1\n0 0 D1 1\n0 0 D3 2\n0 0 D4 1\n1 0 D0 1\n1 0 D3 0\n1 0 D4 -1"
        run = IRM_RUN.replace("1 0 D4 2 0.7 run", "1 0 D0 2 0.7 run")
        table = evaluate(qrels, run, ["P@4", "P(judged_only=True)@4"])
        assert table.loc[["0", "1"]].to_numpy().tolist() == [[0.5, 0.75], [0.25, 0.25]]


# --------------------------------------------------------------------------- pytrec_eval


class TestIrMeasuresPyndevalPublished:
    """terrierteam/ir_measures, tests/test_pyndeval.py (its pyndeval provider: ndeval's measures
    on subtopic judgments, the second column of the qrels)."""

    def test_err_ia(self):
        # test_ERR_IA: ERR_IA@20 "0.4659" (query 0) and "0.1803" (query 1); aggregate "0.3231"
        qrels = "0 0 D0 0\n0 0 D1 1\n0 0 D2 1\n0 1 D2 1\n0 1 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 1 D5 2\n"
        run = ("0 0 D0 1 0.8 run\n0 0 D2 2 0.7 run\n0 0 D1 3 0.3 run\n0 0 D3 4 0.4 run\n0 0 D4 5 0.1 run\n"
               "1 0 D1 1 0.8 run\n1 0 D3 2 0.7 run\n1 0 D4 3 0.3 run\n1 0 D2 4 0.4 run\n")
        frame = pd.read_csv(io.StringIO(qrels), sep=" ", header=None, dtype=str,
                            names=["query_id", "subtopic_id", "doc_id", "relevance"]).astype({"relevance": int})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # unjudged retrieved documents are the point here
            table = rk.evaluate(rk.read_subtopic_qrels(frame), trec(run), ["ERR_IA@20"])
        np.testing.assert_allclose(table["ERR_IA@20"].loc[["0", "1"]], [0.4659, 0.1803], atol=5e-5)
        assert round(float(rk.aggregate(table)["ERR_IA@20"]), 4) == 0.3231


class TestPytrecEvalPublished:
    """cvangysel/pytrec_eval, tests/pytrec_eval_tests.py, test_ndcg."""

    @pytest.mark.parametrize("scores, expected", [
        # d2 (the one relevant of d1, d2, d3) at rank 3: "0.5"; at rank 1: "1.0"; at rank 2:
        # "0.6309297535714575"
        ({"d1": 1.0, "d2": 0.0, "d3": 1.5}, 0.5),
        ({"d1": 1.0, "d2": 2.0, "d3": 1.5}, 1.0),
        ({"d1": 4.0, "d2": 2.0, "d3": 1.5}, 0.6309297535714575),
    ])
    def test_ndcg(self, scores, expected):
        qrels = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
        with pytest.warns(UserWarning, match="q2"):  # judged, not in the run: reported, not scored
            table = rk.evaluate(qrels, {"q1": scores}, ["ndcg"])
        assert table.loc["q1", "ndcg"] == pytest.approx(expected, abs=1e-15)
        rank = 1 + sum(s > scores["d2"] for s in scores.values())
        assert expected == pytest.approx(1 / math.log2(rank + 1), abs=1e-15)
