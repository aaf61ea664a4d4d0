"""The diversity and intent-aware measures (rankkit.metrics.diversity): by hand, properties,
edge cases, errors, and bit for bit against a plain-Python reading of ndeval's definitions."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankkit as rk
from rankkit.io import subtopics
from rankkit.io.subtopics import intent_labels, read_subtopic_qrels
from rankkit.metrics import diversity as dv

# One topic, three intents; the run retrieves A (intent 1), D (intent 2), E (unjudged), B (intent 2).
QRELS = {"1": {"1": {"A": 1, "E": 0}, "2": {"B": 1, "D": 1}, "3": {"C": 1}}}
RUN = {"1": {"A": 4.0, "D": 3.0, "E": 2.0, "B": 1.0}}


def _evaluate(qrels, run, specs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rk.evaluate(read_subtopic_qrels(qrels), run, specs)


def test_by_hand_on_three_intents():
    table = _evaluate(QRELS, RUN, ["alpha_DCG@5", "alpha_nDCG@5", "ERR_IA@2", "NRBP", "nNRBP", "AP_IA",
                                   "P_IA@5", "StRecall@2", "StRecall@4"]).iloc[0]
    log2 = [math.log2(i + 1) for i in range(1, 6)]
    # gains: A 1, D 1, E 0, B 0.5 (intent 2 seen once); A = 3 intents
    dcg = 1 / log2[0] + 1 / log2[1] + 0.5 / log2[3]
    ideal_ideal = sum(3 * 0.5 ** i / log2[i] for i in range(5))
    assert table["alpha_DCG@5"] == pytest.approx(dcg / ideal_ideal, abs=1e-15)
    ideal = 1 / log2[0] + 1 / log2[1] + 1 / log2[2] + 0.5 / log2[3]  # A, B (or D), C, then D
    assert table["alpha_nDCG@5"] == pytest.approx(dcg / ideal, abs=1e-15)
    assert table["ERR_IA@2"] == pytest.approx((1 + 1 / 2) / (3 + 1.5 / 2), abs=1e-15)
    nrbp_sum = 1 + 0.5 + 0.5 * 0.5 ** 3
    assert table["NRBP"] == pytest.approx((1 - 0.25) / 3 * nrbp_sum, abs=1e-15)
    assert table["nNRBP"] == pytest.approx(nrbp_sum / (1 + 0.5 + 0.25 + 0.5 * 0.125), abs=1e-15)
    # AP per intent: 1: 1/1; 2: (1/2 + 2/4) / 2; 3: 0
    assert table["AP_IA"] == pytest.approx((1 + 0.5 + 0) / 3, abs=1e-15)
    assert table["P_IA@5"] == pytest.approx(3 / 15, abs=1e-15)
    assert table["StRecall@2"] == pytest.approx(2 / 3) and table["StRecall@4"] == pytest.approx(2 / 3)


def test_the_greedy_ideal_breaks_ties_by_the_larger_document_id():
    # a: {1, 2}, b: {3, 4}, c: {1, 3} all gain 2 at rank 1, and the first choice decides the
    # rest: c (the largest id, ndeval's choice) gives 2, 1.5, 1.5; a (renamed z) 2, 2, 1.
    for first, gains in (("a", [2.0, 1.5, 1.5]), ("z", [2.0, 2.0, 1.0])):
        qrels = {"q": {"1": {first: 1, "c": 1}, "2": {first: 1}, "3": {"b": 1, "c": 1}, "4": {"b": 1}}}
        r = rk.rank(intent_labels(read_subtopic_qrels(qrels)), {"q": {first: 1.0}})
        assert dv._ideal_gains(r, 0.5)[0].tolist() == gains
        assert dv.alpha_ndcg(r, k=5)[0] == pytest.approx(2 / (gains[0] + gains[1] / math.log2(3) + gains[2] / 2))


def test_plain_labels_are_one_intent():
    labels = [[1, 0, 2, 1], [0, 0, 1, 0]]
    # one intent: P-IA is precision, StRecall is success, AP-IA is AP over the retrieved
    assert dv.precision_ia(labels, k=2).tolist() == rk.precision(labels, k=2).tolist()
    assert dv.subtopic_recall(labels, k=2).tolist() == [1.0, 0.0]
    assert dv.ap_ia(labels) == pytest.approx(rk.average_precision(labels))
    # novelty: the second relevant document gains 1/2, the third 1/4
    assert dv.nrbp([1, 1, 1], beta=1.0) == pytest.approx((1 - 0.5) * (1 + 0.5 + 0.25))


@pytest.mark.parametrize("func", [dv.alpha_dcg, dv.alpha_ndcg, dv.err_ia, dv.nerr_ia, dv.precision_ia,
                                  dv.subtopic_recall])
def test_no_relevant_document_scores_zero_at_every_cutoff(func):
    for k in (1, 2, 5, None):
        assert func([[0, 0, 0]], k=k).tolist() == [0.0]


def test_the_normalised_forms_are_one_for_the_ideal_ranking():
    qrels = {"q": {"1": {"a": 1, "b": 1}, "2": {"b": 1, "c": 1}, "3": {"d": 1}}}
    run = {"q": {"b": 4.0, "d": 3.0, "a": 2.0, "c": 1.0}}  # greedy: b (2), d (1), then a or c (0.5)
    table = _evaluate(qrels, run, ["alpha_nDCG@1", "alpha_nDCG@3", "alpha_nDCG@10", "nERR_IA@10", "nNRBP"])
    assert table.iloc[0].tolist() == pytest.approx([1.0] * 5, abs=1e-15)


def test_alpha_zero_is_intent_aware_dcg_and_alpha_one_counts_each_intent_once():
    labels = [[1, 1, 0, 1]]  # one intent
    assert dv.subtopic_recall(labels, k=4)[0] == 1.0
    # alpha = 1: only the first relevant document gains; the ideal ideal gains A at rank 1 only
    assert dv.alpha_dcg(labels, k=4, alpha=1.0)[0] == pytest.approx(1.0)
    assert dv.alpha_dcg([[0, 1]], k=2, alpha=1.0)[0] == pytest.approx(1 / math.log2(3))


def test_k_beyond_the_ranking_and_k_one():
    # P-IA divides by k even where fewer documents were retrieved (ndeval)
    assert dv.precision_ia([1, 1], k=4) == 0.5
    # at k = 1 ndeval leaves alpha-DCG and ERR-IA undivided: the gain itself
    qrels = {"q": {"1": {"a": 1}, "2": {"a": 1}}}
    table = _evaluate(qrels, {"q": {"a": 1.0}}, ["alpha_DCG@1", "ERR_IA@1", "alpha_DCG@2"])
    assert table.iloc[0].tolist() == pytest.approx([2.0, 2.0, 2.0 / (2 + 1 / math.log2(3))])


def test_packed_labels():
    assert subtopics._INTENT_SHIFT == dv.INTENT_SHIFT  # the reader packs what the kernels unpack
    qrels = read_subtopic_qrels({"1": {"7": {"a": 1, "b": 2}, "10": {"b": 1, "c": 0}, "9": {"c": -1}}})
    packed = intent_labels(qrels).set_index("doc_id").relevance
    # intents by subtopic number: 7 -> bit 0, 10 -> bit 1 (9 has no relevant document)
    assert packed.to_dict() == {"a": 2 ** 32 + 1, "b": 2 * 2 ** 32 + 3, "c": 0}
    hits = dv.intent_hits(np.array([packed["b"], packed["a"], 0.0]), packed=True)
    assert hits.tolist() == [[True, True], [True, False], [False, False]]


def test_errors():
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\], got 1.5"):
        dv.alpha_ndcg([[1, 0]], alpha=1.5)
    with pytest.raises(ValueError, match=r"beta must be in \[0, 1\], got -0.1"):
        dv.nrbp([[1, 0]], beta=-0.1)
    with pytest.raises(ValueError, match="k must be a positive integer or None, got 0"):
        dv.err_ia([[1, 0]], k=0)
    with pytest.raises(ValueError, match="metric NRBP takes no cutoff"):
        rk.parse_metric("NRBP@5")
    with pytest.raises(ValueError, match="alpha"):
        rk.parse_metric("alpha_nDCG(alpha=2)@5")
    tied = rk.rank({"q": {"a": 1, "b": 1}}, {"q": {"a": 1.0, "b": 1.0}}, ties="average")
    with pytest.raises(ValueError, match="ties='average'"):
        dv.alpha_ndcg(tied)
    big = {"q": {str(s): {"d": 1} for s in range(33)}}
    with pytest.raises(ValueError, match="more than 32 intents"):
        intent_labels(read_subtopic_qrels(big))


def test_specs_names_and_aliases():
    assert rk.parse_metric("MAP_IA") == rk.parse_metric("AP_IA")
    assert str(rk.parse_metric("alpha_nDCG(alpha=0.3)@20")) == "alpha_nDCG(alpha=0.3)@20"
    assert rk.parse_metric("alpha_nDCG(rel=1)@20").kwargs == rk.parse_metric("alpha_nDCG@20").kwargs


# --------------------------------------------------------------------------- bit for bit, plain Python


def _ndeval_by_loops(intents, ranking, alpha, beta, k):
    """One topic, as ndeval's definitions read: ``intents`` doc -> set of intent numbers,
    ``ranking`` the run's documents in order. Loops in ndeval's order of operations."""
    actual = sorted(set().union(*intents.values())) if intents else []
    n = len(actual)
    if n == 0:
        return dict.fromkeys(_SPECS, 0.0)

    def gains(docs):
        weight, out = dict.fromkeys(actual, 1.0), []
        for doc in docs:
            g = 0.0
            for j in actual:
                if j in intents.get(doc, ()):
                    g += weight[j]
                    weight[j] *= 1.0 - alpha
            out.append(g)
        return out

    def ideal_order():
        left, weight, order = sorted(intents, reverse=True), dict.fromkeys(actual, 1.0), []
        while left:
            scores = []
            for doc in left:
                s = 0.0
                for j in actual:
                    if j in intents[doc]:
                        s += weight[j]
                scores.append(s)
            best = left.pop(scores.index(max(scores)))  # the first of the largest ids
            order.append(best)
            for j in intents[best]:
                weight[j] *= 1.0 - alpha
        return order

    def curve(g, weights):
        total, ideal_ideal, scale = 0.0, 0.0, float(n)
        for i in range(k):
            total += (g[i] if i < len(g) else 0.0) * weights(i)
            ideal_ideal += scale * weights(i)
            scale *= 1.0 - alpha
        return total if k == 1 else total / ideal_ideal

    def nrbp(g):
        total, decay = 0.0, 1.0
        for x in g:
            total += x * decay
            decay *= beta
        return total * ((1 - (1 - alpha) * beta) / n)

    disc = lambda i: math.log(2.0) / math.log(i + 2.0)  # noqa: E731
    recip = lambda i: 1.0 / (i + 1)  # noqa: E731
    run, best = gains(ranking), gains(ideal_order())
    dcg, idcg, err, ierr = curve(run, disc), curve(best, disc), curve(run, recip), curve(best, recip)
    ap, p = 0.0, 0
    for j in actual:
        seen, total = 0, 0.0
        for i, doc in enumerate(ranking):
            if j in intents.get(doc, ()):
                seen += 1
                total += seen / (i + 1.0)
        ap += total / sum(j in s for s in intents.values())
    p = sum(len(intents.get(doc, ())) for doc in ranking[:k])
    covered = len(set().union(*(intents.get(doc, set()) for doc in ranking[:k])))
    return {"dcg": dcg, "ndcg": dcg / idcg if dcg else 0.0, "err": err, "nerr": err / ierr if err else 0.0,
            "nrbp": nrbp(run), "nnrbp": nrbp(run) / nrbp(best), "map": ap / n, "p": p / (k * n), "st": covered / n}


_SPECS = {"dcg": "alpha_DCG(alpha={a})@{k}", "ndcg": "alpha_nDCG(alpha={a})@{k}", "err": "ERR_IA(alpha={a})@{k}",
          "nerr": "nERR_IA(alpha={a})@{k}", "nrbp": "NRBP(alpha={a}, beta={b})", "nnrbp": "nNRBP(alpha={a}, beta={b})",
          "map": "AP_IA", "p": "P_IA@{k}", "st": "StRecall@{k}"}

topics = st.lists(
    st.tuples(st.dictionaries(st.sampled_from("abcdefghij"), st.sets(st.integers(0, 4), max_size=4), max_size=10),
              st.permutations(list("abcdefghijxy")).map(lambda p: p[:8])),
    min_size=1, max_size=4)


@settings(max_examples=40, deadline=None)
@given(topics, st.sampled_from([0.5, 0.3, 0.0, 1.0]), st.sampled_from([0.5, 0.8]), st.integers(1, 12))
def test_bit_for_bit_against_a_plain_reading_of_ndeval(data, alpha, beta, k):
    qrels, run = {}, {}
    for t, (intents, ranking) in enumerate(data):
        qrels[f"t{t}"] = {}
        for doc, found in intents.items():
            for j in range(5):
                qrels[f"t{t}"].setdefault(str(j), {})[doc] = int(j in found)
        run[f"t{t}"] = {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}
    qrels = {t: s for t, s in qrels.items() if s} or {"t0": {"0": {"zz": 0}}}
    specs = {key: spec.format(a=alpha, b=beta, k=k) for key, spec in _SPECS.items()}
    frame = pd.DataFrame([(t, s, d, v) for t, subs in qrels.items() for s, docs in subs.items()
                          for d, v in docs.items()], columns=["query_id", "subtopic_id", "doc_id", "relevance"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = rk.evaluate(frame, run, list(specs.values()))
    for t, (intents, ranking) in enumerate(data):
        if f"t{t}" not in table.index:
            continue
        expected = _ndeval_by_loops({d: s for d, s in intents.items() if s}, list(ranking), alpha, beta, k)
        got = table.loc[f"t{t}"]
        for key, spec in specs.items():
            assert got[spec] == expected[key] or (expected[key] != expected[key] and got[spec] == 0.0), (key, t)
