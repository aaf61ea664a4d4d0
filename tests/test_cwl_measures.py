"""ir_measures' C/W/L measures (provider cwl_eval: SDCG, NERR8-11, INST, INSQ, BPM) and
Compat (provider compat), checked live against ir_measures per query on random qrels and
runs with distinct scores, and on small examples computed by hand.

The differences of convention (README, "rankkit and ir_measures") are pinned at the end."""

from __future__ import annotations

import logging
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit as rk
from rankkit.metrics import cwl
from rankkit.metrics.overlap import compatibility

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("cwl")
logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)  # its notes on min_rel/max_rel

# ir_measures needs max_rel for every cwl_eval measure, and a float T.
MEASURES = [
    "SDCG(max_rel=3)@5", "SDCG(max_rel=3)@20", "SDCG(max_rel=2, min_rel=1)@10",
    "NERR8(max_rel=3)@5", "NERR8(max_rel=3)@20", "NERR9(max_rel=3)@5", "NERR9(max_rel=3)@20",
    "NERR10(max_rel=3)", "NERR10(p=0.5, max_rel=3)", "NERR11(max_rel=3)", "NERR11(T=2.0, max_rel=3)",
    "INST(max_rel=3)", "INST(T=2.0, max_rel=3)", "INST(T=0.5, max_rel=2, min_rel=1)",
    "INSQ(max_rel=3)", "INSQ(T=2.0, max_rel=3)",
    "BPM(max_rel=3)@5", "BPM(T=2.0, max_rel=3)@10", "BPM(T=0.5, max_rel=3, min_rel=1, cutoff=20)",
    "Compat", "Compat(p=0.8)", "Compat(p=0.5, normalize=False)",
]


def frames(pairs):
    """(query, doc) -> (label or None, score or None): the qrels and the run, sharing most documents."""
    qrels = pd.DataFrame([(q, d, r) for (q, d), (r, _) in pairs.items() if r is not None],
                         columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([(q, d, float(s)) for (q, d), (_, s) in pairs.items() if s is not None],
                       columns=["query_id", "doc_id", "score"])
    return qrels, run


def theirs(measures, qrels, run) -> pd.DataFrame:
    """ir_measures' values, one call per measure, on the run grouped by query and sorted by
    score (cwl_eval starts a new topic each time the query id changes)."""
    run = run.sort_values(["query_id", "score"], ascending=[True, False])
    values = {}
    for spec in measures:
        for m in ir_measures.iter_calc([ir_measures.parse_measure(spec)], qrels, run):
            values[(spec, m.query_id)] = float(m.value)
    table = pd.Series(values, dtype=float).unstack(0)
    table.index.name = "query_id"
    return table


queries = st.sampled_from(["1", "2", "3", "10"])
docs = st.sampled_from([f"d{i}" for i in range(15)])


# Scores from 1: ir_measures' Compat ranks unretrieved documents as if scored 0.0 (see
# test_compat_ideal_order_with_scores_at_or_below_zero). Labels from -1: pooled, unjudged.
labels = st.one_of(st.none(), st.integers(-1, 3))
scores = st.one_of(st.none(), st.integers(1, 10**6))


@settings(max_examples=sweep(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.tuples(queries, docs), st.tuples(labels, scores), min_size=1, max_size=40))
def test_cwl_and_compat_equal_ir_measures(pairs):
    qrels, run = frames(pairs)
    assume(run.score.is_unique)  # distinct scores: ties are ordered differently (pinned below)
    assume(set(qrels.query_id) & set(run.query_id))
    want = theirs(MEASURES, qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # run queries without judgments
        got = rk.evaluate(qrels, run, MEASURES, queries="qrels")
    for spec in MEASURES:
        theirs_q = want[spec].dropna()
        ours = got.loc[theirs_q.index, spec]
        np.testing.assert_allclose(ours.to_numpy(), theirs_q.to_numpy(), rtol=0, atol=1e-9,
                                   err_msg=f"{spec}: rankkit {ours.to_dict()} ir_measures {theirs_q.to_dict()}")


@settings(max_examples=sweep(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([1, 2, 0, None]), min_size=4, max_size=20),
       st.lists(st.sampled_from([2, 1, 0]), max_size=8))
def test_compat_equals_ir_measures_with_few_labels(retrieved, missed):
    """One query, few labels, many documents of each: where the ideal's order among equal
    labels matters. ``retrieved``: the run's labels in rank order (None: unjudged);
    ``missed``: labels of judged documents the run does not retrieve."""
    judged = [(f"r{i}", label) for i, label in enumerate(retrieved) if label is not None]
    judged += [(f"u{i}", label) for i, label in enumerate(missed)]
    assume(judged)
    qrels = pd.DataFrame([("q", d, label) for d, label in judged], columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame({"query_id": "q", "doc_id": [f"r{i}" for i in range(len(retrieved))],
                        "score": np.arange(len(retrieved), 0, -1.0)})
    specs = ["Compat", "Compat(p=0.5)", "Compat(p=0.7, normalize=False)"]
    want = theirs(specs, qrels, run)
    got = rk.evaluate(qrels, run, specs)
    np.testing.assert_allclose(got.loc["q", specs].to_numpy(float), want.loc["q", specs].to_numpy(float),
                               rtol=0, atol=1e-9)


@pytest.mark.parametrize("length, seed, k",
                         [(7, 0, 3), (1000, 1, 1000), (1300, 2, 1500), (1300, 3, 10), (640, 4, 1000)])
def test_long_rankings_equal_ir_measures(length, seed, k):
    """Rankings longer than cwl_eval's 1,000 ranks (cut there), and cutoffs beyond them."""
    labels = np.random.default_rng(seed).choice([0, 0, 0, 1, 2, 4], length)
    qrels = pd.DataFrame({"query_id": "q", "doc_id": [f"d{i}" for i in range(len(labels))], "relevance": labels})
    run = pd.DataFrame({"query_id": "q", "doc_id": qrels.doc_id, "score": np.arange(len(labels), 0, -1.0)})
    specs = [f"SDCG(max_rel=4)@{k}", f"NERR9(max_rel=4)@{k}", f"BPM(T=3.0, max_rel=4)@{k}", "INST(T=3.0, max_rel=4)",
             "INSQ(max_rel=4)", "NERR10(p=0.99, max_rel=4)", "NERR11(max_rel=4)", "Compat(p=0.99)"]
    want = theirs(specs, qrels, run)
    got = rk.evaluate(qrels, run, specs)
    np.testing.assert_allclose(got.loc["q", specs].to_numpy(float), want.loc["q", specs].to_numpy(float),
                               rtol=0, atol=1e-9)


@pytest.mark.parametrize("spec", MEASURES + ["INST(T=1)", "SDCG@10", "NERR8@10", "BPM(T=1.0)@10", "Compat(p=0.8)",
                                             "INST(max_rel=3,T=2.0)", "Compat(normalize=False,p=0.5)",
                                             "SDCG(dcg='log2', max_rel=3)@5"])
def test_a_spec_prints_back_as_written(spec):
    metric = rk.parse_metric(spec)
    assert str(metric) == spec
    assert rk.parse_metric(str(metric)) == metric
    table = rk.evaluate({"q": {"a": 2, "b": 0}}, {"q": {"a": 1.0, "b": 2.0}}, [spec])
    assert list(table.columns) == [spec]


def test_ir_measures_parameters_are_rankkit_parameters():
    assert rk.parse_metric("INST(T=2.0, max_rel=3)") == rk.names.Metric("INST", (("T", 2.0), ("max_grade", 3)))
    assert rk.parse_metric("SDCG(max_rel=3, min_rel=1)@5") == rk.parse_metric("SDCG(min_grade=1, max_grade=3)@5")
    assert rk.parse_metric("BPM(T=2.0, max_rel=3, cutoff=10)") == rk.parse_metric("BPM(T=2.0, max_grade=3)@10")
    assert rk.parse_metric("SDCG(dcg='log2')@5") == rk.parse_metric("SDCG@5")
    assert rk.parse_metric("INST(depth=100)").kwargs == {"depth": 100}


@pytest.mark.parametrize("spec, message", [
    ("SDCG", r"metric SDCG needs a cutoff @k"),
    ("NERR8(max_rel=3)", r"metric NERR8 needs a cutoff @k"),
    ("BPM(T=1.0)", r"metric BPM needs a cutoff @k"),
    ("BPM(T=1, K=10)", r"BPM's document budget K is its cutoff, as in ir_measures: BPM\(T=1.0\)@10"),
    ("INST@10", r"metric INST takes no cutoff"),
    ("NERR10(p=0.5)@10", r"metric NERR10 takes no cutoff"),
    ("SDCG(dcg='exp-log2')@5", r"SDCG's dcg must be 'log2', got 'exp-log2'"),
    ("INST(max_rel=3, max_grade=3)", r"gives max_grade twice"),
    ("INST(rel=2)", r"metric INST does not take parameter\(s\) rel"),
    ("Compat(max_rel=3)", r"metric Compat does not take parameter\(s\) max_rel"),
    ("Accuracy", r"ir_measures' Accuracy is not in rankkit yet"),
])
def test_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        rk.parse_metric(spec)


@pytest.mark.parametrize("call, message", [
    (lambda: cwl.sdcg([1, 0], k=None), r"k must be a positive integer: SDCG is defined at a cutoff, got None"),
    (lambda: cwl.bpm([1, 0], k=0), r"k must be a positive integer or None, got 0"),
    (lambda: cwl.inst([1, 0], T=0), r"T must be a positive number, got 0"),
    (lambda: cwl.insq([1, 0], T=float("nan")), r"T must be a finite number, got nan"),
    (lambda: cwl.nerr10([1, 0], p=1.5), r"p must be in \(0, 1\], got 1.5"),
    (lambda: cwl.nerr11([1, 0], max_grade=1, min_grade=1), r"max_grade must be greater than min_grade=1, got 1"),
    (lambda: cwl.nerr8([1, 0], k=2, min_grade="0"), r"min_grade must be a finite number, got '0'"),
    (lambda: cwl.nerr9([1, 0], k=2, depth=0), r"depth must be a positive integer or None, got 0"),
    (lambda: cwl.inst([1, 0], depth=None), r"depth must be a positive integer, got None"),
    (lambda: compatibility([1, 0], p=0), r"p must be in \(0, 1\], got 0"),
    (lambda: compatibility([1, 0], normalize="yes"), r"normalize must be True or False, got 'yes'"),
])
def test_errors_name_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_tie_averaging_where_linear_refused_elsewhere():
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0}}  # a and b tied: each order with probability 1/2
    table = rk.evaluate(qrels, run, ["SDCG@2", "INSQ"], ties="average")
    # SDCG@2: (1 + 1/log2(3)) / 2 / (1 + 1/log2(3)) = 1/2; INSQ: W = 1 / (1 + 4/9) for rank 1,
    # (4/9) / (13/9) for rank 2 at depth 2 -- at depth 1000 checked against the two orders
    orders = rk.evaluate(qrels, {"q": {"a": 2.0, "b": 1.0}}, ["INSQ"])["INSQ"].iloc[0], \
        rk.evaluate(qrels, {"q": {"a": 1.0, "b": 2.0}}, ["INSQ"])["INSQ"].iloc[0]
    assert table["SDCG@2"].iloc[0] == pytest.approx(0.5, abs=1e-15)
    assert table["INSQ"].iloc[0] == pytest.approx((orders[0] + orders[1]) / 2, abs=1e-15)
    for spec in ["INST", "NERR8@2", "NERR9@2", "NERR10", "NERR11", "BPM@2", "Compat"]:
        with pytest.raises(ValueError, match="does not support ties='average'"):
            rk.evaluate(qrels, run, [spec], ties="average")


# --------------------------------------------------------------------------- by hand


def test_sdcg_by_hand():
    # labels 3, 0, 1, 2 over max_rel = 3: gains 1, 0, 1/3, 2/3
    # SDCG@3 = (1 + 0 + (1/3)/2) / (1 + 1/log2(3) + 1/2) = (7/6) / 2.13093 = 0.5475
    # SDCG@2 = 1 / (1 + 1/log2(3)) = 0.6131; @10 on 4 documents: all 10 ranks count below
    want3 = (7 / 6) / (1 + 1 / math.log2(3) + 0.5)
    want10 = (1 + (1 / 3) / 2 + (2 / 3) / math.log2(5)) / sum(1 / math.log2(i + 1) for i in range(1, 11))
    labels = [3, 0, 1, 2]
    assert cwl.sdcg(labels, k=3, max_grade=3) == pytest.approx(want3, abs=1e-15)
    assert cwl.sdcg(labels, k=2, max_grade=3) == pytest.approx(1 / (1 + 1 / math.log2(3)), abs=1e-15)
    assert cwl.sdcg(labels, k=10, max_grade=3) == pytest.approx(want10, abs=1e-15)
    # min_grade = 1: labels 3, 0, 1, 2 -> gains 1, 0, 0, 1/2
    assert cwl.sdcg(labels, k=4, min_grade=1, max_grade=3) == pytest.approx(
        (1 + 0.5 / math.log2(5)) / (1 + 1 / math.log2(3) + 0.5 + 1 / math.log2(5)), abs=1e-15)


def test_nerr_by_hand():
    labels = [1, 0, 2]  # max_rel = 2: gains 1/2, 0, 1
    # eq 8, k = 3: C = 1/2, 1 -> P = 1, 1/2, 1/2 (sum 2); sum P g = 1/2 + 0 + 1/2 -> 1/2
    # k = 2: P = 1, 1/2 (sum 3/2); sum P g = 1/2 -> 1/3
    assert cwl.nerr8(labels, k=3, max_grade=2) == 0.5
    assert cwl.nerr8(labels, k=2, max_grade=2) == pytest.approx(1 / 3, abs=1e-15)
    # eq 9, k = 3: C = 1/2 * 1/2, 2/3 * 1 -> P = 1, 1/4, 1/6 (sum 17/12); sum P g = 1/2 + 1/6 -> 8/17
    assert cwl.nerr9(labels, k=3, max_grade=2) == pytest.approx(8 / 17, abs=1e-15)
    # eq 10, p = 1/2, labels 1, 2: C = 1/4, 0 -> P = 1, 1/4, 0, ...; (1/2 + 1/4) / (5/4) = 3/5
    assert cwl.nerr10([1, 2], p=0.5, max_grade=2) == pytest.approx(0.6, abs=1e-15)
    # eq 11, T = 1, labels 0, 1 (max 1): C = (2/3)^2, 0 -> P = 1, 4/9; (4/9) / (13/9) = 4/13
    assert cwl.nerr11([0, 1], max_grade=1) == pytest.approx(4 / 13, abs=1e-15)
    # eq 11, T = 2 with depth 3, labels 0, 0, 1: C_i = ((i+3)/(i+4))^2 -> P = 1, 16/25, 16/25 * 25/36 = 4/9
    p3 = 4 / 9
    assert cwl.nerr11([0, 0, 1], T=2.0, max_grade=1, depth=3) == pytest.approx(p3 / (1 + 16 / 25 + p3), abs=1e-15)


def test_inst_and_insq_by_hand():
    # INSQ, T = 1, depth 3: C_i = ((i+1)/(i+2))^2 -> P = 1, 4/9, 4/9 * 9/16 = 1/4 (sum 61/36)
    # labels 1, 0, 1 -> (1 + 1/4) / (61/36) = 45/61
    assert cwl.insq([1, 0, 1], max_grade=1, depth=3) == pytest.approx(45 / 61, abs=1e-15)
    # INST, T = 1, depth 3, labels 1, 0, 1: T_1 = 0, T_2 = 0, so C_1 = ((1+1+0-1)/(1+1+0))^2 = 1/4,
    # C_2 = ((2+1+0-1)/(2+1+0))^2 = 4/9 -> P = 1, 1/4, 1/9 (sum 49/36); (1 + 1/9) / (49/36) = 40/49
    assert cwl.inst([1, 0, 1], max_grade=1, depth=3) == pytest.approx(40 / 49, abs=1e-15)
    # INST, T = 2, depth 2, labels 0, 1: T_1 = 2, C_1 = ((1+2+2-1)/(1+2+2))^2 = 16/25 -> (16/25) / (41/25)
    assert cwl.inst([0, 1], T=2.0, max_grade=1, depth=2) == pytest.approx(16 / 41, abs=1e-15)
    # nothing relevant: 0 (and at the default depth, two queries at once)
    np.testing.assert_array_equal(cwl.inst([[0, 0], [1, 0]], max_grade=1) > 0, [False, True])


def test_bpm_by_hand():
    labels = [1, 1, 2, 0]  # max_rel = 2: gains 1/2, 1/2, 1, 0; G = 1/2, 1, 2, 2
    assert cwl.bpm(labels, k=4, T=1.0, max_grade=2) == 0.5          # G reaches 1 at rank 2: 1 / 2
    assert cwl.bpm(labels, k=4, T=2.0, max_grade=2) == 2 / 3        # G reaches 2 at rank 3: 2 / 3
    assert cwl.bpm(labels, k=1, T=2.0, max_grade=2) == 0.5          # budget of one document: 1/2 / 1
    assert cwl.bpm(labels, k=10, T=5.0, max_grade=2) == 2 / 10      # T never reached: stops at rank 10


def test_compat_by_hand():
    # run labels 0, 2, 1, 0 (one more judged document, label 2, not retrieved); p = 1/2
    # ideal: x (2, retrieved at rank 2), y (2, not retrieved), z (1, rank 3); D = max(4, 3) = 4
    # overlaps at depth 1..4: {} -> 0; {.,x} & {x,y} -> 1; {.,x,z} & {x,y,z} -> 2; 2
    # RBO = (0 + 1/2 * 1/2 + 1/4 * 2/3 + 1/8 * 2/4) / (1 + 1/2 + 1/4 + 1/8) = (1/4 + 1/6 + 1/16) / (15/8)
    # ideal with itself: overlaps 1, 2, 3, 3 -> (1 + 1/2 + 1/4 + 1/8 * 3/4) / (15/8)
    r = rk.Rankings(labels=np.array([[0.0, 2, 1, 0]]), judged=np.ones((1, 4), bool), lengths=np.array([4]),
                    ideal=np.array([[2.0, 2, 1, 0, 0]]), n_judged=np.array([5]), query_ids=pd.Index(["q"]))
    rbo = (1 / 4 + 1 / 6 + 1 / 16) / (15 / 8)
    best = (1 + 1 / 2 + 1 / 4 + 3 / 32) / (15 / 8)
    assert compatibility(r, p=0.5, normalize=False)[0] == pytest.approx(rbo, abs=1e-15)
    assert compatibility(r, p=0.5)[0] == pytest.approx(rbo / best, abs=1e-15)
    # labels 1, 1, 3 (ideal 3, 1, 1), p = 1/2: ideal positions 2, 3, 1, so the documents join at
    # depths 2, 3, 3: overlaps 0, 1, 3 -> (1/2 * 1/2 + 1/4 * 3/3) / (7/4) = 2/7; the ideal's own
    # overlaps 1, 2, 3 -> (1 + 1/2 + 1/4) / (7/4) = 1
    assert compatibility([1, 1, 3], p=0.5) == pytest.approx(2 / 7, abs=1e-15)
    # the ideal itself scores 1; nothing relevant, or nothing retrieved, 0
    assert compatibility([2, 2, 1, 0], p=0.9) == pytest.approx(1.0, abs=1e-15)
    assert compatibility([0, 0]) == 0.0
    assert compatibility(rk.as_rankings([[]])) == 0.0


# --------------------------------------------------------------------------- differences, pinned


def test_max_rel_defaults_to_the_largest_label():
    """ir_measures requires max_rel; rankkit's default is the largest label of the data set
    (as for ERR), so INST equals ir_measures' INST(max_rel=<that label>)."""
    qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": [2, 1, 1]})
    run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["b", "a", "c"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(AssertionError, match="max_rel"):
        list(ir_measures.iter_calc([ir_measures.parse_measure("INST")], qrels, run))
    want = theirs(["INST(max_rel=2)", "SDCG(max_rel=2)@5"], qrels, run)
    got = rk.evaluate(qrels, run, ["INST", "SDCG@5"])
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-9)
    # query 2 alone has largest label 1: evaluate still scales by the data set's 2
    alone = rk.evaluate(qrels[qrels.query_id == "2"], run[run.query_id == "2"], ["INST"])
    assert alone.loc["2", "INST"] > got.loc["2", "INST"]


def test_ties_follow_trec_eval_not_the_run_order():
    """On tied scores cwl_eval keeps the run's order and ir_measures' Compat orders by doc id
    ascending; rankkit orders ties by doc id descending (trec_eval), as for every measure."""
    qrels = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    want = {s: next(ir_measures.iter_calc([ir_measures.parse_measure(s)], qrels, run)).value
            for s in ["SDCG(max_rel=1)@2", "Compat(p=0.5)"]}
    got = rk.evaluate(qrels, run, list(want))
    assert want["SDCG(max_rel=1)@2"] == pytest.approx(1 / (1 + 1 / math.log2(3)), abs=1e-15)  # a first
    assert got["SDCG(max_rel=1)@2"].iloc[0] == pytest.approx(1 / (1 + 1 / math.log2(3)) / math.log2(3))  # b first
    assert want["Compat(p=0.5)"] == 1.0 and got["Compat(p=0.5)"].iloc[0] < 1.0


def test_compat_ideal_order_with_scores_at_or_below_zero():
    """ir_measures' Compat sorts the ideal's documents of one label by run score, counting an
    unretrieved document as scored 0.0: it can come before a retrieved one scored 0 or less.
    rankkit, which does not keep scores, puts the retrieved ones first, in the run's order (the
    ideal closest to the run, the same as ir_measures' for positive scores)."""
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["u", "a"], "relevance": [1, 1]})
    positive = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    negative = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [-1.0]})
    spec = "Compat(p=0.5)"
    want = [next(ir_measures.iter_calc([ir_measures.parse_measure(spec)], qrels, run)).value
            for run in (positive, negative)]
    got = [rk.evaluate(qrels, run, [spec])[spec].iloc[0] for run in (positive, negative)]
    # ideal a, u: overlaps 1, 1 at depths 1, 2 -> RBO (1 + 1/2 * 1/2) / (3/2); ideal with itself (1 + 1/2) / (3/2)
    assert want[0] == got[0] == got[1] == pytest.approx(1.25 / 1.5, abs=1e-15)
    # ideal u, a (ir_measures with a scored -1): overlaps 0, 1 -> (1/4) / (3/2) over 1
    assert want[1] == pytest.approx(0.25 / 1.5, abs=1e-15)


def test_cwl_eval_needs_the_run_grouped_by_query():
    """ir_measures' cwl_eval provider starts a new topic each time the query id changes, so a
    run whose rows interleave queries gets two values for one query, each from part of its
    ranking; rankkit ranks each query's documents together, in any row order."""
    qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "c", "b"], "relevance": [1, 1, 1]})
    run = pd.DataFrame({"query_id": ["1", "2", "1"], "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    spec = "INST(max_rel=1)"
    values = [(m.query_id, m.value) for m in ir_measures.iter_calc([ir_measures.parse_measure(spec)], qrels, run)]
    assert [q for q, _ in values] == ["1", "2", "1"]
    grouped = theirs([spec], qrels, run)  # sorted by query first
    got = rk.evaluate(qrels, run, [spec])
    np.testing.assert_allclose(got[spec].to_numpy(), grouped[spec].to_numpy(), rtol=0, atol=1e-9)
    assert got.loc["1", spec] != values[0][1]  # one document of query 1 each time, not both


def test_negative_min_rel_gives_judged_and_pooled_documents_gain():
    """With min_rel = -1, ir_measures gives label 0 (and a label below 0, raised to 0 first) the
    gain 1/3 of max_rel = 2, and an unjudged document 0; so does rankkit (judged or pooled)."""
    qrels = pd.DataFrame({"query_id": "1", "doc_id": ["zero", "minus", "two"], "relevance": [0, -1, 2]})
    run = pd.DataFrame({"query_id": "1", "doc_id": ["zero", "minus", "new", "two"], "score": [4.0, 3.0, 2.0, 1.0]})
    specs = ["SDCG(max_rel=2, min_rel=-1)@4", "INSQ(max_rel=2, min_rel=-1)"]
    # ir_measures' parser does not read -1; its measure objects take it
    measures = [ir_measures.SDCG(max_rel=2, min_rel=-1, cutoff=4), ir_measures.INSQ(max_rel=2, min_rel=-1)]
    want = [next(ir_measures.iter_calc([m], qrels, run)).value for m in measures]
    got = rk.evaluate(qrels, run, specs)
    np.testing.assert_allclose(got.loc["1", specs].to_numpy(float), want, rtol=0, atol=1e-9)
    # gains 1/3, 1/3, 0, 1 over the discounts 1, 1/log2(3), 1/2, 1/log2(5)
    discounts = [1, 1 / math.log2(3), 1 / 2, 1 / math.log2(5)]
    hand = (1 / 3 + 1 / 3 * discounts[1] + discounts[3]) / sum(discounts)
    assert got.loc["1", specs[0]] == pytest.approx(hand, abs=1e-12)
