"""Tests of rankkit.graded: CG, DCG, IDCG, nDCG, RBP, RBP residual, ERR.

Oracles: the worked examples of the source articles (../shared/sources), hand
computations written out, brute force over tied orders, scikit-learn's ``ndcg_score``,
pytrec_eval (trec_eval's C code) and trec_eval 10.0's own test outputs.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit as rk
from rankkit import Rankings

try:
    from sklearn.metrics import ndcg_score
except ImportError:  # the peer is optional; only its tests are skipped
    ndcg_score = None
try:
    import pytrec_eval
except ImportError:
    pytrec_eval = None
from rankkit.metrics.graded import cumulative_gain, dcg, err, idcg, ndcg, rbp, rbp_residual

SOURCE_003 = [1, 0.7, 0.3, 1, 0.7, 0.7, 0.3, 0, 0.7, 0]
# Source 003's "best ordering" table (top 4 are the four best labels).
SOURCE_003_BEST = [1, 1, 0.7, 0.7, 0, 0.7, 0.3, 0, 0.3, 0.7]
LIPSTICK_A = [5, 1, 3, 2, 4]
LIPSTICK_B = [5, 3, 4, 2, 1]
CONFORMANCE = Path(__file__).resolve().parent / "data" / "trec_eval"   # trec_eval 10.0's test data, in the repository

ALL = [cumulative_gain, dcg, idcg, ndcg, rbp, rbp_residual, err]


# --------------------------------------------------------------------------- helpers


def trec_rankings(qrels: dict, run: dict) -> Rankings:
    """A Rankings built the way trec_eval sees a run: score descending, then docno descending.

    Labels < 0 in the qrels are "pooled but not judged": label 0, not judged, not in the ideal.
    """
    qids = sorted(run)
    label_rows, judged_rows, ideal_rows = [], [], []
    for q in qids:
        judgments = qrels.get(q, {})
        ordered = [doc for doc, _ in sorted(run[q].items(), key=lambda t: (t[1], t[0]), reverse=True)]
        found = [judgments.get(doc) for doc in ordered]
        judged_rows.append([lab is not None and lab >= 0 for lab in found])
        label_rows.append([float(lab) if lab is not None and lab >= 0 else 0.0 for lab in found])
        ideal_rows.append(sorted((float(lab) for lab in judgments.values() if lab >= 0), reverse=True))
    n, depth = len(qids), max(map(len, label_rows))
    width = max(map(len, ideal_rows))
    labels, judged, ideal = np.zeros((n, depth)), np.zeros((n, depth), bool), np.zeros((n, width))
    for i, (lab, jud, best) in enumerate(zip(label_rows, judged_rows, ideal_rows)):
        labels[i, : len(lab)], judged[i, : len(jud)], ideal[i, : len(best)] = lab, jud, best
    return Rankings(
        labels=labels,
        judged=judged,
        lengths=np.array([len(row) for row in label_rows], dtype=np.int64),
        ideal=ideal,
        n_judged=np.array([len(row) for row in ideal_rows], dtype=np.int64),
        query_ids=pd.Index(qids, name="query_id"),
    )


def tied_rankings(rows: list[list[float]], groups: list[list[int]]) -> Rankings:
    """Bare lists with tie groups: ``groups[q][i]`` is the group of rank i (consecutive ranks)."""
    base = rk.as_rankings(rows)
    n, depth = base.labels.shape
    ties = np.arange(n * depth, dtype=np.int64).reshape(n, depth)  # padding: own groups
    for q, grp in enumerate(groups):
        for i, g in enumerate(grp):
            ties[q, i] = q * depth + grp.index(g)  # id = first rank of the group
    return Rankings(
        labels=base.labels, judged=base.judged, lengths=base.lengths, ideal=base.ideal,
        n_judged=base.n_judged, query_ids=base.query_ids, ties=ties,
    )


def tied_orders(row: list[float], grp: list[int]):
    """Every order of ``row`` obtained by permuting inside each tie group."""
    blocks = [[row[i] for i in range(len(row)) if grp[i] == g] for g in dict.fromkeys(grp)]
    for perms in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [x for block in perms for x in block]


def dcg_reference(labels, k=None, gain=lambda x: x):
    """DCG written out: sum over ranks i = 1..k of g(label_i) / log2(i + 1)."""
    return sum(gain(lab) / math.log2(i + 1) for i, lab in enumerate(labels[:k], start=1))


def err_reference(labels, p=1.0, max_grade=None):
    """ERR written out as the cascade: P(reach i) * R_i / i, reach *= (1 - R_i) * p."""
    top = max(labels) if max_grade is None else max_grade
    total, reach = 0.0, 1.0
    for i, g in enumerate(labels, start=1):
        stop = (2.0**g - 1) / 2.0**top
        total += reach * stop / i
        reach *= (1 - stop) * p
    return total


label_rows = st.lists(
    st.lists(st.integers(0, 4), min_size=0, max_size=12), min_size=1, max_size=5
)
real_rows = st.lists(
    st.lists(st.sampled_from([0.0, 0.3, 0.7, 1.0]), min_size=0, max_size=12), min_size=1, max_size=5
)
ks = st.one_of(st.none(), st.integers(1, 15))


@st.composite
def trec_data(draw):
    """Random qrels and run: unjudged retrieved docs, judged unretrieved docs, distinct scores."""
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 4))):
        qid = f"q{q}"
        n_docs = draw(st.integers(1, 15))
        docs = [f"d{j:02d}" for j in range(n_docs)]
        found = draw(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=n_docs, max_size=n_docs))
        judged = {d: lab for d, lab in zip(docs, found) if lab is not None}
        for j, lab in enumerate(draw(st.lists(st.integers(0, 3), max_size=6))):
            judged[f"x{j:02d}"] = lab  # judged, never retrieved
        if not judged:
            judged["x99"] = 0
        order = draw(st.permutations(docs))
        retrieved = order[: draw(st.integers(1, n_docs))]
        qrels[qid] = judged
        run[qid] = {doc: float(len(retrieved) - i) + 0.5 for i, doc in enumerate(retrieved)}
    return qrels, run


# --------------------------------------------------------------------------- worked examples


class TestSources:
    def test_source_003_cumulative_gain(self):
        # CG@4 = 1 + 0.7 + 0.3 + 1 = 3; best ordering CG@4 = 1 + 1 + 0.7 + 0.7 = 3.4
        assert cumulative_gain(SOURCE_003, k=4) == pytest.approx(3.0)
        assert cumulative_gain(SOURCE_003_BEST, k=4) == pytest.approx(3.4)
        assert cumulative_gain(sorted(SOURCE_003, reverse=True), k=4) == pytest.approx(3.4)
        # "swapping the top 4 documents does not change CG@4"
        assert cumulative_gain([1, 0.3, 0.7, 1] + SOURCE_003[4:], k=4) == pytest.approx(3.0)

    def test_source_003_dcg(self):
        by_hand = 1 / math.log2(2) + 0.7 / math.log2(3) + 0.3 / math.log2(4) + 1 / math.log2(5)
        assert dcg(SOURCE_003, k=4) == pytest.approx(by_hand, abs=1e-12)
        assert round(dcg(SOURCE_003, k=4), 2) == 2.02
        best = 1 / math.log2(2) + 1 / math.log2(3) + 0.7 / math.log2(4) + 0.7 / math.log2(5)
        assert idcg(SOURCE_003, k=4) == pytest.approx(best, abs=1e-12)
        assert round(idcg(SOURCE_003, k=4), 2) == 2.28
        assert round(dcg(SOURCE_003_BEST, k=4), 2) == 2.28

    def test_source_004_lipstick(self):
        assert cumulative_gain(LIPSTICK_A) == 15.0
        assert cumulative_gain(LIPSTICK_B) == 15.0
        assert dcg(LIPSTICK_A, gain="exp") == pytest.approx(42.225751536309765, abs=1e-9)
        assert dcg(LIPSTICK_B, gain="exp") == pytest.approx(44.595390756454925, abs=1e-9)
        assert idcg(LIPSTICK_A, gain="exp") == pytest.approx(45.64282878502658, abs=1e-9)
        assert dcg([5, 4, 3, 2, 1], gain="exp") == pytest.approx(45.64282878502658, abs=1e-9)
        scores = ndcg([LIPSTICK_A, LIPSTICK_B], k=5, gain="exp")
        assert scores.round(4).tolist() == [0.9251, 0.9771]
        assert scores[1] > scores[0]

    def test_source_001_exercise(self):
        # d2, d3, d1, d4 with labels 1, 1, 2, 0; ideal 2, 1, 1, 0
        lin_dcg = 1 / math.log2(2) + 1 / math.log2(3) + 2 / math.log2(4)
        lin_idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
        exp_dcg = 1 / math.log2(2) + 1 / math.log2(3) + 3 / math.log2(4)
        exp_idcg = 3 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
        assert ndcg([1, 1, 2, 0], k=4) == pytest.approx(lin_dcg / lin_idcg, abs=1e-12)
        assert ndcg([1, 1, 2, 0], k=4, gain="exp") == pytest.approx(exp_dcg / exp_idcg, abs=1e-12)
        assert round(ndcg([1, 1, 2, 0], k=4), 4) == 0.8403
        assert round(ndcg([1, 1, 2, 0], k=4, gain="exp"), 4) == 0.7579

    def test_source_000_err_best_beats_worst(self):
        # six graded documents, p = 1, best (descending) vs worst (ascending) ordering
        best, worst = [4, 3, 2, 2, 1, 0], [0, 1, 2, 2, 3, 4]
        R = [(2**g - 1) / 2**4 for g in best]  # 15/16, 7/16, 3/16, 3/16, 1/16, 0
        by_hand = (
            R[0]
            + (1 - R[0]) * R[1] / 2
            + (1 - R[0]) * (1 - R[1]) * R[2] / 3
            + (1 - R[0]) * (1 - R[1]) * (1 - R[2]) * R[3] / 4
            + (1 - R[0]) * (1 - R[1]) * (1 - R[2]) * (1 - R[3]) * R[4] / 5
        )
        assert err(best, max_grade=4) == pytest.approx(by_hand, abs=1e-12)
        Rw = R[::-1]  # 0, 1/16, 3/16, 3/16, 7/16, 15/16
        worst_by_hand = (
            Rw[1] / 2
            + (1 - Rw[1]) * Rw[2] / 3
            + (1 - Rw[1]) * (1 - Rw[2]) * Rw[3] / 4
            + (1 - Rw[1]) * (1 - Rw[2]) * (1 - Rw[3]) * Rw[4] / 5
            + (1 - Rw[1]) * (1 - Rw[2]) * (1 - Rw[3]) * (1 - Rw[4]) * Rw[5] / 6
        )
        assert err(worst, max_grade=4) == pytest.approx(worst_by_hand, abs=1e-12)
        assert err(best) > err(worst)
        # max_grade=None takes the largest label (4 here)
        assert err(best) == err(best, max_grade=4)

    def test_source_000_rbp_expected_documents_read(self):
        # the user reads rank i with probability p**(i-1); expected number read = 1 / (1 - p)
        for p in (0.5, 0.8, 0.95):
            n = 2000
            read = rbp(np.ones(n), p=p) / (1 - p)  # sum_i p**(i-1) over n ranks
            assert read == pytest.approx(1 / (1 - p), rel=1e-12)

    def test_source_000_rbp_real_valued_relevance(self):
        # relevance may be a real number in [0, 1]: max_grade=1 takes it as it is
        assert rbp([1, 0.5, 0.25], p=0.5, max_grade=1) == pytest.approx(0.5 * (1 + 0.25 + 0.0625))


# --------------------------------------------------------------------------- hand computations


class TestHand:
    def test_rbp_binary(self):
        assert rbp([1, 0, 1], p=0.5) == pytest.approx(0.5 * (1 + 0.25))
        assert rbp([2, 0, 1], p=0.5, rel=2) == pytest.approx(0.5)
        assert rbp([1, 0, 1], p=0.5, k=2) == pytest.approx(0.5)

    @pytest.mark.parametrize("p", [0.1, 0.5, 0.8, 0.99])
    @pytest.mark.parametrize("n", [1, 3, 10])
    def test_rbp_all_relevant_and_residual(self, p, n):
        assert rbp(np.ones(n), p=p) == pytest.approx(1 - p**n, abs=1e-12)
        assert rbp_residual(np.ones(n), p=p) == pytest.approx(p**n, abs=1e-15)
        assert rbp(np.ones(n), p=p) + rbp_residual(np.ones(n), p=p) == pytest.approx(1.0)

    def test_rbp_graded(self):
        # r_i = label / max_grade
        assert rbp([3, 0, 1], p=0.5, max_grade=3) == pytest.approx(0.5 * (1 + 0.25 / 3))

    def test_rbp_residual_unjudged(self):
        qrels = {"q": {"a": 1, "c": 0, "x": 1}}
        run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}  # b and d unjudged
        r = trec_rankings(qrels, run)
        p = 0.5
        assert rbp(r, p=p)[0] == pytest.approx(0.5)
        # unjudged ranks 2 and 4, then everything after rank 4
        assert rbp_residual(r, p=p)[0] == pytest.approx(0.5 * (p + p**3) + p**4)
        assert rbp_residual(r, p=p, k=3)[0] == pytest.approx(0.5 * p + p**3)
        assert rbp_residual(r, p=p, k=10)[0] == pytest.approx(0.5 * (p + p**3) + p**4)

    def test_rbp_query_max_grade(self):
        # "query" (trec_eval 10's rbp): each query divided by its own largest judged label
        # when that exceeds 1; labels already in [0, 1] are kept
        rows = [[4, 2, 0], [1, 0, 1], [0.5, 0.25], [0, 0]]
        want = [0.5 * (1 + 0.5 * 0.5), 0.5 * (1 + 0.25), 0.5 * (0.5 + 0.5 * 0.25), 0.0]
        assert rbp(rows, p=0.5, max_grade="query").tolist() == pytest.approx(want, abs=1e-15)
        assert rbp([3, 0, 1], p=0.5, max_grade="query") == pytest.approx(rbp([3, 0, 1], p=0.5, max_grade=3))

    def test_rbp_query_max_grade_from_all_judged_documents(self):
        # the scale is the largest judged label, retrieved or not (x: 4, never retrieved);
        # a label below 0 (pooled, not judged) is no level and has gain 0
        qrels = {"q1": {"a": 1, "b": 2, "x": 4}, "q2": {"a": 1, "u": -1, "c": 0}}
        run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"u": 3.0, "a": 2.0, "c": 1.0}}
        r = trec_rankings(qrels, run)
        p = 0.5
        want = [(1 - p) * (1 / 4 + p * 2 / 4), (1 - p) * p * 1]
        assert rbp(r, p=p, max_grade="query").tolist() == pytest.approx(want, abs=1e-15)
        assert rbp(r, p=p, max_grade="query", k=1).tolist() == pytest.approx([(1 - p) / 4, 0.0])

    def test_rbp_residual_trec_eval_convention(self):
        qrels = {"q": {"a": 1, "c": 0, "x": 1}}
        run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}  # b and d unjudged
        r = trec_rankings(qrels, run)
        p = 0.5

        def resid(**kw):
            return rbp_residual(r, p=p, convention="trec_eval", **kw)[0]

        # an unjudged document retrieved: the same sum as Moffat & Zobel, tail included
        assert resid() == pytest.approx(0.5 * (p + p**3) + p**4)
        assert resid(k=3) == pytest.approx(0.5 * p + p**3)
        # none within the depth: 0, where Moffat & Zobel keep the tail p**1
        assert resid(k=1) == 0.0
        assert rbp_residual(r, p=p, k=1)[0] == pytest.approx(p)
        # fully judged or empty lists
        assert rbp_residual([1, 0, 1], p=p, convention="trec_eval") == 0.0
        assert rbp_residual([], convention="trec_eval") == 0.0
        assert rbp_residual([[], [1]], convention="trec_eval").tolist() == [0.0, 0.0]

    def test_rbp_plus_residual_is_rbp_with_unjudged_relevant(self):
        qrels = {"q": {"a": 1, "c": 0, "x": 1}}
        run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
        r = trec_rankings(qrels, run)
        p = 0.7
        upper = rbp([1, 1, 0, 1] + [1] * 500, p=p)  # unjudged and unretrieved all relevant
        assert rbp(r, p=p)[0] + rbp_residual(r, p=p)[0] == pytest.approx(upper, abs=1e-12)

    def test_err_single_perfect_document(self):
        for g in (1, 2, 3, 4):
            assert err([g], max_grade=g) == pytest.approx((2**g - 1) / 2**g)
            assert err([g, 0, 0, 0]) == pytest.approx((2**g - 1) / 2**g)

    def test_err_persistence(self):
        # [0, 2] with max grade 2: reach rank 2 with prob p, R = 3/4, reciprocal rank 1/2
        assert err([0, 2], p=0.5) == pytest.approx(0.5 * 0.75 / 2)
        assert err([1, 2], p=0.5, max_grade=2) == pytest.approx(0.25 + 0.75 * 0.5 * 0.75 / 2)
        assert err([1, 2], p=0.5, max_grade=2, k=1) == pytest.approx(0.25)

    def test_err_reference(self):
        rows = [[3, 0, 1, 2], [0, 0, 3], [1, 1, 1, 1, 1]]
        got = err(rows, max_grade=3, p=0.9)
        want = [err_reference(row, p=0.9, max_grade=3) for row in rows]
        np.testing.assert_allclose(got, want, atol=1e-12)

    def test_gain_mapping(self):
        # mapped labels get the mapped gain; label 3 keeps gain 3 (trec_eval's setup_gains)
        gain = {1: 3, 2: 9, 4: 4.5}
        labels = [3, 2, 0, 1, 4]
        gains = [3, 9, 0, 3, 4.5]
        want = sum(g / math.log2(i + 1) for i, g in enumerate(gains, start=1))
        assert dcg(labels, gain=gain) == pytest.approx(want)
        assert cumulative_gain(labels, gain=gain) == pytest.approx(19.5)
        # the ideal is sorted by gain, not by label: 9, 4.5, 3, 3, 0
        best = sum(g / math.log2(i + 1) for i, g in enumerate([9, 4.5, 3, 3], start=1))
        assert idcg(labels, gain=gain) == pytest.approx(best)
        assert ndcg(labels, gain=gain) == pytest.approx(want / best)
        assert ndcg([2, 4, 3, 1, 0], gain=gain) == pytest.approx(1.0)

    def test_gain_mapping_of_label_zero_applies_to_judged_only(self):
        qrels = {"q": {"a": 0, "b": 1, "x": 0}}
        run = {"q": {"a": 3.0, "u": 2.0, "b": 1.0}}  # u unjudged
        r = trec_rankings(qrels, run)
        got = dcg(r, gain={0: 1})[0]
        assert got == pytest.approx(1 + 0 + 1 / math.log2(4))
        # ideal: the three judged documents, all of gain 1
        assert idcg(r, gain={0: 1})[0] == pytest.approx(1 + 1 / math.log2(3) + 1 / math.log2(4))

    def test_gain_mapping_negative_gain(self):
        # negative gains lower DCG and stay out of the ideal (trec_eval m_ndcg.c)
        gain = {0: -1.0}
        assert dcg([0, 1], gain=gain) == pytest.approx(-1 + 1 / math.log2(3))
        assert idcg([0, 1], gain=gain) == pytest.approx(1.0)
        assert ndcg([0, 1], gain=gain) == pytest.approx(-1 + 1 / math.log2(3))
        assert ndcg([0, 0], gain=gain) == 0.0

    def test_gain_mapping_float_labels_and_empty_mapping(self):
        assert dcg([0.7, 0.3], gain={0.7: 2}) == pytest.approx(2 + 0.3 / math.log2(3))
        assert dcg(SOURCE_003, gain={}) == dcg(SOURCE_003)

    def test_exp_gain_by_hand(self):
        assert dcg([3, 0, 1], gain="exp") == pytest.approx(7 + 1 / math.log2(4))
        assert cumulative_gain([3, 0, 1], gain="exp") == 8.0

    def test_idcg_uses_judged_unretrieved(self):
        qrels = {"q": {"a": 1, "b": 0, "x": 3, "y": 2}}
        run = {"q": {"a": 2.0, "b": 1.0}}
        r = trec_rankings(qrels, run)
        assert idcg(r)[0] == pytest.approx(3 + 2 / math.log2(3) + 1 / math.log2(4))
        assert idcg(r, k=2)[0] == pytest.approx(3 + 2 / math.log2(3))
        assert ndcg(r, k=2)[0] == pytest.approx(1 / (3 + 2 / math.log2(3)))


# --------------------------------------------------------------------------- edge cases


class TestEdges:
    @pytest.mark.parametrize("fn", [cumulative_gain, dcg, idcg, ndcg, rbp, err])
    def test_empty_ranking_scores_zero(self, fn):
        assert fn([]) == 0.0
        assert fn([[], [1]])[0] == 0.0

    def test_empty_ranking_residual_is_one(self):
        assert rbp_residual([]) == 1.0

    @pytest.mark.parametrize("fn", [cumulative_gain, dcg, idcg, ndcg, rbp, err])
    def test_no_relevant_document(self, fn):
        assert fn([0, 0, 0]) == 0.0
        assert fn([0, 0, 0], k=2) == 0.0

    @pytest.mark.parametrize("fn", ALL)
    def test_k_beyond_list(self, fn):
        assert fn([2, 0, 1], k=50) == pytest.approx(fn([2, 0, 1]))

    @pytest.mark.parametrize("fn", ALL)
    def test_scalar_input_gives_float_and_2d_gives_array(self, fn):
        assert type(fn([1, 0, 2])) is float
        out = fn([[1, 0, 2], [0, 1]])
        assert isinstance(out, np.ndarray) and out.shape == (2,)

    def test_ragged_rows_padding_is_not_relevant(self):
        # padding after a short row is neither judged nor relevant
        assert rbp_residual([[1], [1, 1, 1]], p=0.5).tolist() == [0.5, 0.125]
        assert ndcg([[1], [0, 1]]).tolist() == pytest.approx([1.0, 1 / math.log2(3)])

    def test_ndcg_cutoff_smaller_than_relevant(self):
        assert ndcg([1, 1, 1, 1], k=2) == 1.0
        assert ndcg([0, 1, 1, 1], k=1) == 0.0


# --------------------------------------------------------------------------- ties


class TestTies:
    ROWS = [[3, 0, 2, 1, 0, 1], [0, 2, 2, 1]]
    GROUPS = [[0, 1, 1, 1, 2, 2], [0, 0, 1, 2]]

    @pytest.mark.parametrize(
        "fn, kwargs",
        [
            (cumulative_gain, {"k": 3}),
            (dcg, {}),
            (dcg, {"k": 3, "gain": "exp"}),
            (ndcg, {"k": 2}),
            (ndcg, {"gain": {1: 5, 2: 1}}),
            (rbp, {"p": 0.6, "k": 4}),
            (rbp, {"p": 0.6, "max_grade": 3}),
            (rbp, {"p": 0.6, "k": 3, "max_grade": "query"}),
            (rbp_residual, {"p": 0.6, "k": 4}),
        ],
    )
    def test_expected_value_over_tied_orders(self, fn, kwargs):
        got = fn(tied_rankings(self.ROWS, self.GROUPS), **kwargs)
        for q, (row, grp) in enumerate(zip(self.ROWS, self.GROUPS)):
            orders = list(tied_orders(row, grp))
            assert len(orders) > 1
            want = np.mean([fn(order, **kwargs) for order in orders])
            assert got[q] == pytest.approx(want, abs=1e-12)

    # (label, judged) per rank; groups as above; None = unjudged
    JUDGED_ROWS = [[1, None, 0, None, 1, 0], [None, 1, 0, 0], [0, 1, 1, 0, 0, None]]
    JUDGED_GROUPS = [[0, 1, 1, 1, 2, 2], [0, 0, 1, 2], [0, 1, 2, 2, 2, 2]]

    @pytest.mark.parametrize("k", [None, 1, 2, 3, 4, 5, 6, 9])
    @pytest.mark.parametrize("convention", ["moffat_zobel", "trec_eval"])
    def test_residual_expected_value_over_tied_orders_with_unjudged(self, k, convention):
        rows = [[0.0 if x is None else float(x) for x in row] for row in self.JUDGED_ROWS]
        marks = [[x is not None for x in row] for row in self.JUDGED_ROWS]
        r = tied_rankings(rows, self.JUDGED_GROUPS)
        judged = np.zeros_like(r.judged)
        for q, row in enumerate(marks):
            judged[q, : len(row)] = row
        r = Rankings(labels=r.labels, judged=judged, lengths=r.lengths, ideal=r.ideal,
                     n_judged=r.n_judged, query_ids=r.query_ids, ties=r.ties)
        got = rbp_residual(r, p=0.6, k=k, convention=convention)
        for q, (row, grp) in enumerate(zip(self.JUDGED_ROWS, self.JUDGED_GROUPS)):
            values = []
            for order in tied_orders(list(range(len(row))), grp):  # permute rank indices
                cut = order[:k]
                unjudged = [i for i, idx in enumerate(cut) if row[idx] is None]
                mass = sum(0.4 * 0.6**i for i in unjudged) + 0.6 ** len(cut)
                values.append(0.0 if convention == "trec_eval" and not unjudged else mass)
            assert got[q] == pytest.approx(np.mean(values), abs=1e-12), (q, k)

    def test_no_tie_groups_changes_nothing(self):
        singletons = [list(range(len(row))) for row in self.ROWS]
        r = tied_rankings(self.ROWS, singletons)
        np.testing.assert_allclose(ndcg(r, k=3), ndcg(self.ROWS, k=3))

    def test_err_refuses_tie_groups(self):
        with pytest.raises(ValueError, match="err does not support ties='average'"):
            err(tied_rankings(self.ROWS, self.GROUPS))


# --------------------------------------------------------------------------- errors


class TestErrors:
    @pytest.mark.parametrize("fn", ALL)
    @pytest.mark.parametrize("k", [0, -1, 2.0, True, "5"])
    def test_bad_k(self, fn, k):
        with pytest.raises(ValueError, match=r"k must be a positive integer or None, got"):
            fn([1, 0], k=k)

    @pytest.mark.parametrize("fn", [rbp, rbp_residual])
    @pytest.mark.parametrize("p", [0, 1, 1.5, -0.2, float("nan")])
    def test_bad_p_rbp(self, fn, p):
        with pytest.raises(ValueError, match=r"p must be in \(0, 1\), got"):
            fn([1, 0], p=p)

    @pytest.mark.parametrize("p", [0, 1.5, float("nan"), float("inf")])
    def test_bad_p_err(self, p):
        with pytest.raises(ValueError, match=r"p must be in \(0, 1\], got"):
            err([1, 0], p=p)

    @pytest.mark.parametrize("fn", [rbp, rbp_residual, err])
    @pytest.mark.parametrize("p", [True, "0.5", None])
    def test_p_not_a_number(self, fn, p):
        with pytest.raises(ValueError, match="p must be a number, got"):
            fn([1, 0], p=p)

    def test_err_accepts_p_one(self):
        assert err([1], p=1) == 0.5

    @pytest.mark.parametrize("fn", [cumulative_gain, dcg, idcg, ndcg])
    def test_unknown_gain(self, fn):
        with pytest.raises(ValueError, match="gain must be one of 'linear', 'exp', got 'log'"):
            fn([1, 0], gain="log")
        with pytest.raises(ValueError, match="gain must be 'linear', 'exp' or a mapping"):
            fn([1, 0], gain=2)

    @pytest.mark.parametrize(
        "gain, message",
        [
            ({1: "a"}, "gain mapping values must be finite numbers, got 'a' for label 1"),
            ({1: float("nan")}, "gain mapping values must be finite numbers, got nan"),
            ({1: None}, "gain mapping values must be finite numbers, got None"),
            ({1: True}, "gain mapping values must be finite numbers, got True"),
            ({"1": 3}, "gain mapping keys must be non-negative finite labels, got '1'"),
            ({-1: 3}, "gain mapping keys must be non-negative finite labels, got -1"),
        ],
    )
    def test_bad_gain_mapping(self, gain, message):
        with pytest.raises(ValueError, match=message):
            ndcg([1, 0], gain=gain)

    @pytest.mark.parametrize("max_grade", [0, -1, float("nan"), float("inf"), True, "3"])
    def test_bad_max_grade(self, max_grade):
        with pytest.raises(ValueError, match="max_grade must be a positive number or None, got"):
            err([1, 0], max_grade=max_grade)
        with pytest.raises(ValueError, match="max_grade must be a positive number, 'query' or None, got"):
            rbp([1, 0], max_grade=max_grade)

    @pytest.mark.parametrize("max_grade", ["Query", "queries", ""])
    def test_unknown_max_grade_string(self, max_grade):
        message = f"max_grade must be a positive number, 'query' or None, got '{max_grade}'"
        with pytest.raises(ValueError, match=message):
            rbp([1, 0], max_grade=max_grade)
        with pytest.raises(ValueError, match="max_grade must be a positive number or None, got"):
            err([1, 0], max_grade="query")  # per-query scaling is RBP's (trec_eval) only

    def test_unknown_residual_convention(self):
        with pytest.raises(ValueError, match="convention must be one of 'moffat_zobel', 'trec_eval', got 'trec'"):
            rbp_residual([1, 0], convention="trec")
        with pytest.raises(ValueError, match="convention must be one of 'moffat_zobel', 'trec_eval', got None"):
            rbp_residual([1, 0], convention=None)

    @pytest.mark.parametrize("fn", [rbp, err])
    def test_labels_above_max_grade(self, fn):
        with pytest.raises(ValueError, match=r"labels must be <= max_grade=2, got 3\.0"):
            fn([[1, 3], [0]], max_grade=2)

    def test_rel_with_max_grade(self):
        with pytest.raises(ValueError, match="rel applies to binary RBP only"):
            rbp([1, 0], rel=2, max_grade=3)
        with pytest.raises(ValueError, match="rel applies to binary RBP only; got rel=2.0 with max_grade='query'"):
            rbp([1, 0], rel=2, max_grade="query")

    @pytest.mark.parametrize("rel", [0, -1, float("nan"), True])
    def test_bad_rel(self, rel):
        with pytest.raises(ValueError, match="rel must be a positive number, got"):
            rbp([1, 0], rel=rel)

    @pytest.mark.parametrize("fn", ALL)
    def test_nan_labels(self, fn):
        with pytest.raises(ValueError, match="labels must be finite, got"):
            fn([1, float("nan")])

    @pytest.mark.parametrize("fn", ALL)
    def test_negative_labels(self, fn):
        with pytest.raises(ValueError, match="labels must be non-negative"):
            fn([1, -1])


# --------------------------------------------------------------------------- properties


class TestProperties:
    @settings(max_examples=sweep(100))
    @given(rows=label_rows, k=ks, gain=st.sampled_from(["linear", "exp", {1: 3, 2: 1, 4: 10}]))
    def test_ndcg_range_and_dcg_below_idcg(self, rows, k, gain):
        scores = ndcg(rows, k=k, gain=gain)
        assert np.all((scores >= 0) & (scores <= 1 + 1e-12))
        assert np.all(dcg(rows, k=k, gain=gain) <= idcg(rows, k=k, gain=gain) * (1 + 1e-12) + 1e-12)
        assert np.all(cumulative_gain(rows, k=k, gain=gain) >= 0)

    @settings(max_examples=sweep(100))
    @given(rows=st.one_of(label_rows, real_rows), k=ks, gain=st.sampled_from(["linear", "exp"]))
    def test_perfect_ordering_scores_one(self, rows, k, gain):
        perfect = [sorted(row, reverse=True) for row in rows]
        want = [1.0 if any(x > 0 for x in row) else 0.0 for row in rows]
        np.testing.assert_allclose(ndcg(perfect, k=k, gain=gain), want, atol=1e-12)
        np.testing.assert_allclose(dcg(perfect, k=k, gain=gain), idcg(rows, k=k, gain=gain), atol=1e-9)

    @settings(max_examples=sweep(60))
    @given(rows=label_rows, k=ks, p=st.floats(0.05, 0.95))
    def test_batch_equals_per_row(self, rows, k, p):
        calls = [
            (cumulative_gain, {"k": k}),
            (dcg, {"k": k, "gain": "exp"}),
            (idcg, {"k": k}),
            (ndcg, {"k": k, "gain": {2: 7}}),
            (rbp, {"k": k, "p": p, "rel": 2}),
            (rbp, {"k": k, "p": p, "max_grade": 4}),
            (rbp, {"k": k, "p": p, "max_grade": "query"}),
            (rbp_residual, {"k": k, "p": p}),
            (rbp_residual, {"k": k, "p": p, "convention": "trec_eval"}),
            (err, {"k": k, "p": p, "max_grade": 4}),
        ]
        for fn, kwargs in calls:
            batch = fn(rows, **kwargs)
            single = [fn(row, **kwargs) for row in rows]
            np.testing.assert_allclose(batch, single, atol=1e-12, err_msg=fn.__name__)

    @settings(max_examples=sweep(100))
    @given(rows=label_rows, k=ks, p=st.floats(0.05, 1.0))
    def test_err_range_and_reference(self, rows, k, p):
        scores = err(rows, k=k, p=p, max_grade=4)
        assert np.all((scores >= 0) & (scores <= 1))
        want = [err_reference(row[:k], p=p, max_grade=4) if row else 0.0 for row in rows]
        np.testing.assert_allclose(scores, want, atol=1e-12)

    @settings(max_examples=sweep(100))
    @given(rows=label_rows, k=ks, gain=st.sampled_from(["linear", "exp"]))
    def test_dcg_matches_written_out_formula(self, rows, k, gain):
        g = (lambda x: x) if gain == "linear" else (lambda x: 2.0**x - 1)
        want = [dcg_reference(row, k, g) for row in rows]
        np.testing.assert_allclose(dcg(rows, k=k, gain=gain), want, atol=1e-9)

    @settings(max_examples=sweep(100))
    @given(row=st.lists(st.integers(0, 4), min_size=2, max_size=10), data=st.data())
    def test_moving_a_better_document_up_never_hurts(self, row, data):
        i = data.draw(st.integers(0, len(row) - 2))
        j = data.draw(st.integers(i + 1, len(row) - 1))
        if row[i] >= row[j]:
            row[i], row[j] = row[j], row[i]
        better = list(row)
        better[i], better[j] = row[j], row[i]  # the higher label now ranks first
        assert dcg(better) >= dcg(row) - 1e-12
        assert ndcg(better, gain="exp") >= ndcg(row, gain="exp") - 1e-12
        assert rbp(better, max_grade=4) >= rbp(row, max_grade=4) - 1e-12
        assert err(better, max_grade=4) >= err(row, max_grade=4) - 1e-12

    @settings(max_examples=sweep(100))
    @given(data=trec_data(), p=st.floats(0.05, 0.95), k=ks)
    def test_rbp_bounds_with_unjudged(self, data, p, k):
        r = trec_rankings(*data)
        low, residual = rbp(r, p=p, k=k), rbp_residual(r, p=p, k=k)
        assert np.all(low >= 0) and np.all(residual > 0)
        assert np.all(low + residual <= 1 + 1e-12)
        graded = rbp(r, p=p, k=k, max_grade=3)
        assert np.all((graded >= 0) & (graded <= low + 1e-12))
        # per-query scaling lies between the global scale (3) and binary RBP, both included
        per_query = rbp(r, p=p, k=k, max_grade="query")
        assert np.all((per_query >= graded - 1e-12) & (per_query <= low + 1e-12))
        # trec_eval's residual: Moffat & Zobel's when something within the depth is
        # unjudged, else 0
        trec = rbp_residual(r, p=p, k=k, convention="trec_eval")
        unknown = (r.judged == 0) & (np.arange(r.depth) < r.lengths[:, None])
        some = unknown[:, :k].any(axis=1)
        np.testing.assert_allclose(trec, np.where(some, residual, 0.0), atol=0)
        assert np.all(low + trec <= 1 + 1e-12)

    @settings(max_examples=sweep(60))
    @given(rows=st.lists(st.lists(st.integers(0, 1), max_size=12), min_size=1, max_size=5),
           p=st.floats(0.05, 0.95), k=ks)
    def test_rbp_query_scale_is_binary_rbp_on_binary_labels(self, rows, p, k):
        np.testing.assert_allclose(rbp(rows, p=p, k=k, max_grade="query"), rbp(rows, p=p, k=k), atol=1e-15)

    @settings(max_examples=sweep(60))
    @given(rows=label_rows, p=st.floats(0.05, 0.95), k=ks)
    def test_rbp_query_scale_is_max_grade_of_each_row(self, rows, p, k):
        want = [rbp(row, p=p, k=k, max_grade=max(max(row, default=0), 1)) for row in rows]
        np.testing.assert_allclose(rbp(rows, p=p, k=k, max_grade="query"), want, atol=1e-15)


# --------------------------------------------------------------------------- peers


@pytest.mark.skipif(ndcg_score is None, reason="scikit-learn not installed")
class TestScikitLearn:
    @settings(max_examples=sweep(100))
    @given(
        rows=st.lists(
            st.lists(st.one_of(st.integers(0, 4), st.sampled_from([0.3, 0.7])), min_size=2, max_size=12),
            min_size=1,
            max_size=4,
        ),
        k=st.one_of(st.none(), st.integers(1, 14)),
    )
    def test_ndcg_score(self, rows, k):
        ours = ndcg(rows, k=k)
        for q, row in enumerate(rows):
            scores = np.arange(len(row), 0, -1, dtype=float)  # distinct: the given order
            theirs = ndcg_score([row], [scores], k=k)
            assert ours[q] == pytest.approx(theirs, abs=1e-12)

    @settings(max_examples=sweep(60))
    @given(
        data=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=10),
        k=st.one_of(st.none(), st.integers(1, 12)),
        base=st.sampled_from([1.5, math.e, 3.0, 10.0]),
    )
    def test_dcg_score_and_ndcg_score_log_base_with_ties(self, data, k, base):
        """scikit-learn's log_base, its scores ranked with tied groups averaged
        (ignore_ties=False): rankkit's tie groups give the same expected DCG and nDCG."""
        from sklearn.metrics import dcg_score

        labels, scores = (np.array(col, dtype=float) for col in zip(*data))
        order = np.argsort(-scores, kind="stable")
        ranked, sorted_scores = labels[order], scores[order]
        first = np.array([int(np.argmax(sorted_scores == x)) for x in sorted_scores])
        r = Rankings(labels=ranked[None, :], judged=np.ones((1, len(ranked)), bool),
                     lengths=np.array([len(ranked)]), ideal=-np.sort(-labels)[None, :],
                     n_judged=np.array([len(ranked)]), query_ids=pd.Index(["q"]), ties=first[None, :])
        want = dcg_score([labels], [scores], k=k, log_base=base)
        assert dcg(r, k=k, base=base)[0] == pytest.approx(want, rel=1e-12, abs=1e-12)
        if labels.any():
            assert ndcg(r, k=k, base=base)[0] == pytest.approx(ndcg_score([labels], [scores], k=k), abs=1e-12)

    def test_ndcg_score_fixed(self):
        row = [1, 1, 2, 0]
        scores = [4.0, 3.0, 2.0, 1.0]
        for k in (None, 1, 2, 3, 4, 10):
            want = ndcg_score([row], [scores], k=k)
            assert ndcg(row, k=k) == pytest.approx(want, abs=1e-12)


@pytest.mark.skipif(pytrec_eval is None, reason="pytrec_eval not installed")
class TestPytrecEval:
    def evaluate(self, qrels, run, measures):
        return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)

    def check(self, qrels, run, gain="linear", relabel=None):
        graded = qrels if relabel is None else {
            q: {d: relabel.get(lab, lab) for d, lab in docs.items()} for q, docs in qrels.items()
        }
        theirs = self.evaluate(graded, run, {"ndcg", "ndcg_cut.1,5,10"})
        r = trec_rankings(qrels, run)
        ours = {
            "ndcg": ndcg(r, gain=gain),
            "ndcg_cut_1": ndcg(r, k=1, gain=gain),
            "ndcg_cut_5": ndcg(r, k=5, gain=gain),
            "ndcg_cut_10": ndcg(r, k=10, gain=gain),
        }
        for i, q in enumerate(r.query_ids):
            for name, values in ours.items():
                assert values[i] == pytest.approx(theirs[q][name], abs=1e-9), (q, name)

    def test_fixed(self):
        qrels = {
            "q1": {"a": 1, "b": 2, "c": 0, "d": 1, "x": 3},
            "q2": {"a": 0, "b": 0},  # no relevant document
            "q3": {"a": 2, "u": -1},  # pooled but not judged
        }
        run = {
            "q1": {"a": 3.0, "b": 2.0, "e": 1.5, "c": 1.0, "d": 0.5},
            "q2": {"a": 1.0, "b": 0.5},
            "q3": {"u": 2.0, "z": 1.5, "a": 1.0},
        }
        self.check(qrels, run)
        theirs = self.evaluate(qrels, run, {"ndcg"})
        assert theirs["q2"]["ndcg"] == 0.0 and ndcg(trec_rankings(qrels, run))[1] == 0.0

    def test_score_ties_follow_docno_descending(self):
        qrels = {"q": {"a": 2, "b": 0, "c": 1}}
        run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}  # trec_eval order: c, b, a
        r = trec_rankings(qrels, run)
        assert r.labels[0].tolist() == [1.0, 0.0, 2.0]
        self.check(qrels, run)

    @settings(max_examples=sweep(100))
    @given(data=trec_data())
    def test_random_linear(self, data):
        self.check(*data)

    @settings(max_examples=sweep(50))
    @given(data=trec_data(), gain=st.sampled_from([{1: 5, 2: 2, 3: 7}, {0: 1, 2: 4}, {3: 1}]))
    def test_random_gain_mapping(self, data, gain):
        # trec_eval's gain parameters equal relabelling the qrels with the gains
        # (pytrec_eval cannot parse "ndcg.1=5,..."; integer gains keep it exact)
        self.check(*data, gain=gain, relabel=gain)


# --------------------------------------------------------------------------- trec_eval's own outputs


def read_trec(folder: Path, qrels_name: str, run_name: str):
    qrels: dict = {}
    for line in (folder / qrels_name).read_text().splitlines():
        q, _, doc, lab = line.split()
        qrels.setdefault(q, {})[doc] = int(lab)
    run: dict = {}
    for line in (folder / run_name).read_text().splitlines():
        q, _, doc, _, score, *_ = line.split()  # trec_eval ignores text after the tag
        run.setdefault(q, {})[doc] = float(score)
    return qrels, run


def read_measures(path: Path, prefix: str = "ndcg") -> dict:
    """{(measure, query): value} for the measures whose name starts with ``prefix``."""
    out: dict = {}
    for line in path.read_text().splitlines():
        name, q, value = (part.strip() for part in line.split("\t"))
        if name.startswith(prefix):
            out[(name, q)] = float(value)
    return out


class TestTrecEvalOutputs:
    @pytest.mark.parametrize(
        "qrels_name, out_name",
        [("qrels.test", "out.test.aq"), ("qrels.rel_level", "out.test.aql")],
    )
    def test_ndcg_and_ndcg_cut(self, qrels_name, out_name):
        r = trec_rankings(*read_trec(CONFORMANCE, qrels_name, "results.test"))
        expected = read_measures(CONFORMANCE / out_name)
        names = {name for name, _ in expected if name == "ndcg" or name.startswith("ndcg_cut_")}
        assert "ndcg_cut_10" in names
        for name in sorted(names):
            k = None if name == "ndcg" else int(name.rsplit("_", 1)[1])
            ours = ndcg(r, k=k)
            for i, q in enumerate(r.query_ids):
                assert round(ours[i], 4) == pytest.approx(expected[(name, q)], abs=1e-12), (name, q)
            assert round(ours.mean(), 4) == pytest.approx(expected[(name, "all")], abs=1e-12), name

    def test_ndcg_gain_parameters(self):
        # trec_eval -mndcg.1=3,2=9,4=4.5 (out.test.meas_params)
        r = trec_rankings(*read_trec(CONFORMANCE, "qrels.test", "results.test"))
        expected = read_measures(CONFORMANCE / "out.test.meas_params")
        ours = ndcg(r, gain={1: 3, 2: 9, 4: 4.5})
        for i, q in enumerate(r.query_ids):
            assert round(ours[i], 4) == pytest.approx(expected[("ndcg_1=3,2=9,4=4.5", q)], abs=1e-12)
        for k in (10, 20, 23):
            ours = ndcg(r, k=k)
            for i, q in enumerate(r.query_ids):
                assert round(ours[i], 4) == pytest.approx(expected[(f"ndcg_cut_{k}", q)], abs=1e-12)

    @pytest.mark.parametrize(
        "qrels_name, out_name",
        [("qrels.test", "out.test.aq"), ("qrels.rel_level", "out.test.aql")],
    )
    def test_rbp_and_rbp_resid(self, qrels_name, out_name):
        # trec_eval 10's rbp and rbp_resid (p = 0.9): max_grade="query" and
        # convention="trec_eval"; -l 2 (out.test.aql) plays no part in either
        qrels, run = read_trec(CONFORMANCE, qrels_name, "results.test")
        r = trec_rankings(qrels, run)
        expected = read_measures(CONFORMANCE / out_name, prefix="rbp")
        ours = rbp(r, p=0.9, max_grade="query")
        resid = rbp_residual(r, p=0.9, convention="trec_eval")
        for name, values in (("rbp", ours), ("rbp_resid", resid)):
            assert [f"{x:.4f}" for x in values] == [f"{expected[(name, q)]:.4f}" for q in r.query_ids], name
            assert f"{values.mean():.4f}" == f"{expected[(name, 'all')]:.4f}", name
        # the same as graded RBP with max_grade set to each query's top label (> 1 here)
        tops = [max(qrels[q].values()) for q in r.query_ids]
        for i in range(len(tops)):
            row = Rankings(
                labels=r.labels[i : i + 1], judged=r.judged[i : i + 1], lengths=r.lengths[i : i + 1],
                ideal=r.ideal[i : i + 1], n_judged=r.n_judged[i : i + 1], query_ids=r.query_ids[i : i + 1],
            )
            assert rbp(row, p=0.9, max_grade=tops[i])[0] == pytest.approx(ours[i], abs=1e-15)
        # every query retrieves unjudged documents here, so Moffat & Zobel's residual
        # differs only by nothing (the tail 0.9**500 < 1e-22)
        np.testing.assert_allclose(rbp_residual(r, p=0.9), resid, atol=1e-20)
        if qrels_name == "qrels.test":  # binary: the default binary RBP is trec_eval's
            binary = rbp(r, p=0.9)
            assert [round(x, 4) for x in binary] == [expected[("rbp", q)] for q in r.query_ids]

    def test_rbp_resid_with_queries_missing_from_the_run(self):
        # out.test.aqc: trec_eval -c on results.trunc; the run's queries (301, 303) here,
        # the missing one (302, printed as 0) in test_trec_eval_conformance.py
        qrels, run = read_trec(CONFORMANCE, "qrels.test", "results.trunc")
        r = trec_rankings(qrels, run)
        expected = read_measures(CONFORMANCE / "out.test.aqc", prefix="rbp")
        for name, values in (("rbp", rbp(r, p=0.9, max_grade="query")),
                             ("rbp_resid", rbp_residual(r, p=0.9, convention="trec_eval"))):
            assert [f"{x:.4f}" for x in values] == [f"{expected[(name, q)]:.4f}" for q in r.query_ids], name
        assert expected[("rbp_resid", "302")] == 0.0


# --------------------------------------------------------------------------- Järvelin & Kekäläinen's discount


def test_jk_discount_by_hand():
    # b = 2: ranks 1 and 2 keep their gain (rank 1 < b, log2(2) = 1), rank i >= 3 is divided by log2(i)
    labels = [3, 2, 3, 0, 1, 2]
    expected = 3 + 2 / 1 + 3 / math.log2(3) + 0 / 2 + 1 / math.log2(5) + 2 / math.log2(6)
    assert dcg(labels, discount="jk") == pytest.approx(expected, rel=1e-15)
    assert dcg(labels, discount="jk", base=2.0) == pytest.approx(8.0972, abs=5e-5)
    # the same labels with the usual 1 / log2(i + 1) (Wikipedia's DCG example: 6.861)
    assert dcg(labels) == pytest.approx(6.8611, abs=5e-5)
    # ideal [3, 3, 2, 2, 1, 0] with the same discount
    best = 3 + 3 + 2 / math.log2(3) + 2 / 2 + 1 / math.log2(5)
    assert idcg(labels, discount="jk") == pytest.approx(best, rel=1e-15)
    assert ndcg(labels, discount="jk") == pytest.approx(expected / best, rel=1e-15)
    # b = 3: ranks 1, 2 undiscounted, rank 3 divided by log3(3) = 1, rank i by ln(i) / ln(3)
    expected3 = 3 + 2 + 3 + 0 + 1 / math.log(5, 3) + 2 / math.log(6, 3)
    assert dcg(labels, discount="jk", base=3) == pytest.approx(expected3, rel=1e-15)
    # b = 1.5: only rank 1 is undiscounted; rank 2 is divided by log1.5(2) = 1.7095
    assert dcg([0, 1], discount="jk", base=1.5) == pytest.approx(math.log(1.5) / math.log(2), rel=1e-15)
    # a non-integer base: ranks below 2.5 (1 and 2) are undiscounted
    assert dcg([1, 1, 1], discount="jk", base=2.5) == pytest.approx(2 + math.log(2.5) / math.log(3), rel=1e-15)


@given(labels=st.lists(st.integers(0, 4), min_size=1, max_size=30), k=st.one_of(st.none(), st.integers(1, 35)))
@settings(max_examples=sweep(100))
def test_jk_with_base_2_is_log2_shifted_by_one_rank(labels, k):
    """w_jk(1) = 1 and w_jk(i) = 1 / log2(i) = w_log2(i - 1): the first gain is undiscounted
    and every later one moves up one step of the log2 discount -- nothing else differs."""
    top = labels[:k] if k else labels
    shifted = top[0] + (dcg(top[1:]) if len(top) > 1 else 0.0)
    assert dcg(labels, k=k, discount="jk") == pytest.approx(shifted, rel=1e-12, abs=1e-12)
    assert dcg(labels[:1], discount="jk") == dcg(labels[:1]) == labels[0]  # rank 1: both weights 1
    jk, log = dcg(labels, k=k, discount="jk"), dcg(labels, k=k)
    assert jk >= log  # w_jk(i) >= w_log2(i) at every rank
    if sum(top[1:]) == 0:
        assert jk == log  # only rank 1 holds a gain, where both weights are 1


def test_jk_weights_are_the_log2_table_shifted_bit_for_bit():
    from rankkit.ops import numerics as _numerics

    w = _numerics.jk_discounts(500, 2.0)
    assert w[0] == 1.0
    np.testing.assert_array_equal(w[1:], _numerics.discounts(499))


@pytest.mark.parametrize("func", [dcg, idcg, ndcg])
def test_discount_and_base_errors(func):
    with pytest.raises(ValueError, match=r"discount must be one of 'log2', 'jk', got 'log10'"):
        func([1, 0], discount="log10")
    for bad in (1, 0.5, -2, float("inf"), float("nan"), True, "2"):
        for discount in ("log2", "jk"):
            with pytest.raises(ValueError, match=r"base must be a finite number > 1, got"):
                func([1, 0], discount=discount, base=bad)
    assert func([1, 0], base=2) == func([1, 0], base=2.0) == func([1, 0])  # 2 is log2's base


# --------------------------------------------------------------------------- the log discount in another base


def log_base_reference(labels, base, k=None):
    """DCG with 1 / log_b(i + 1), in rankkit's documented order: each gain divided by
    log_b(i + 1) (ln(i + 1) / ln(b) at 40 digits, rounded once), added in rank order."""
    from decimal import Context, Decimal

    ctx = Context(prec=40)
    total = 0.0
    for i, lab in enumerate(labels[:k], start=1):
        total += float(lab) / float(ctx.divide(ctx.ln(Decimal(i + 1)), ctx.ln(Decimal(float(base)))))
    return total


def test_log_discount_in_base_10_by_hand():
    # scikit-learn's log_base=10: 3 / log10(2) + 0 + 0
    assert dcg([3, 0, 0], base=10) == pytest.approx(3 / math.log10(2), rel=1e-15)
    assert dcg([3, 0, 0], base=10) == pytest.approx(9.965784284662087, rel=1e-15)
    # base e: 3 / ln 2 + 2 / ln 3 + 1 / ln 4
    assert dcg([3, 2, 1], base=math.e) == pytest.approx(3 / math.log(2) + 2 / math.log(3) + 1 / math.log(4),
                                                        rel=1e-15)
    assert idcg([0, 1, 3], base=10) == pytest.approx(3 / math.log10(2) + 1 / math.log10(3), rel=1e-15)


@given(labels=st.lists(st.integers(0, 4), min_size=1, max_size=40), k=st.one_of(st.none(), st.integers(1, 45)),
       base=st.sampled_from([1.5, 2.0, math.e, 3.0, 10.0, 100.0]))
@settings(max_examples=sweep(100))
def test_log_discount_bit_for_bit_and_ndcg_free_of_the_base(labels, k, base):
    assert dcg(labels, k=k, base=base) == log_base_reference(labels, base, k)
    # every weight is the log2 weight times ln(b) / ln(2): DCG scales, nDCG does not move
    assert dcg(labels, k=k, base=base) == pytest.approx(dcg(labels, k=k) * math.log(base) / math.log(2), rel=1e-13)
    assert ndcg(labels, k=k, base=base) == pytest.approx(ndcg(labels, k=k), rel=1e-13, abs=1e-15)


def test_log_discount_of_base_2_is_the_log2_discount_bit_for_bit():
    rows = [[3, 2, 0, 1, 2, 0, 4], [1, 0, 0, 0, 0, 0, 1]]
    for func in (dcg, idcg, ndcg):
        np.testing.assert_array_equal(func(rows, base=2.0), func(rows))
        np.testing.assert_array_equal(func(rows, k=3, base=2), func(rows, k=3))
    from rankkit.ops import numerics as _numerics

    np.testing.assert_array_equal(_numerics.log_ranks(300, 2.0), _numerics.log2_ranks(300))


def test_log_discount_in_specs_and_score():
    from rankkit.names import parse_metric

    m = parse_metric("DCG(base=10)@3")
    assert str(m) == "DCG(base=10)@3" and parse_metric(str(m)) == m
    table = rk.score([[3, 0, 0], [0, 2, 1]], ["DCG(base=10)@3", "nDCG(base=10)", "IDCG(base=10)"])
    np.testing.assert_array_equal(table["DCG(base=10)@3"], dcg([[3, 0, 0], [0, 2, 1]], k=3, base=10))
    np.testing.assert_array_equal(table["nDCG(base=10)"], ndcg([[3, 0, 0], [0, 2, 1]], base=10))


def test_log_discount_under_tie_groups_is_the_mean_over_orders():
    rows, groups = [[2, 0, 1, 1, 0]], [[0, 0, 1, 2, 2]]
    r = tied_rankings(rows, groups)
    for k in (None, 1, 2, 4):
        orders = list(tied_orders(rows[0], groups[0]))
        want = sum(log_base_reference(o, 10, k) for o in orders) / len(orders)
        assert dcg(r, k=k, base=10)[0] == pytest.approx(want, rel=1e-14)


def test_jk_discount_through_specs_and_evaluate():
    from rankkit.names import parse_metric

    m = parse_metric("nDCG(discount=jk,base=2)@10")
    assert str(m) == "nDCG(discount='jk', base=2)@10"
    assert parse_metric(str(m)) == m
    assert str(parse_metric("DCG(base=3, discount='jk')")) == "DCG(discount='jk', base=3)"
    table = rk.score([[3, 2, 3, 0, 1, 2]], ["nDCG(discount=jk)@10", "DCG(discount=jk, base=3)", "IDCG(discount=jk)"])
    assert table.iloc[0].tolist() == [ndcg([3, 2, 3, 0, 1, 2], k=10, discount="jk"),
                                      dcg([3, 2, 3, 0, 1, 2], discount="jk", base=3),
                                      idcg([3, 2, 3, 0, 1, 2], discount="jk")]


def test_exponential_gains_of_labels_that_overflow_are_refused():
    # 2**1024 is inf: nDCG and ERR would be inf / inf = NaN, silently
    labels = [[2000, 1]]
    with pytest.raises(ValueError, match=r"gain='exp' takes labels below 1024 \(2\*\*label overflows\), got 2000.0"):
        ndcg(labels, gain="exp")
    with pytest.raises(ValueError, match=r"ERR takes labels below 1024"):
        err(labels)
    assert ndcg([[1023, 1]], gain="exp") == pytest.approx(1.0) and ndcg(labels) == pytest.approx(1.0)


def test_ndcg_of_a_query_without_a_relevant_document_is_no_relevant():
    labels = [[0, 0, 0], [2, 0, 1], [0, 1, 0]]
    default = rk.ndcg(labels, k=2)
    assert default[0] == 0.0
    for value in (0.0, 0.5, 1.0):
        got = rk.ndcg(labels, k=2, no_relevant=value)
        assert got[0] == value
        np.testing.assert_array_equal(got[1:], default[1:])  # the other queries, to the bit
    for bad in (-0.1, 1.5, np.nan, "1", None, True):
        with pytest.raises(ValueError, match="no_relevant must be"):
            rk.ndcg(labels, no_relevant=bad)
