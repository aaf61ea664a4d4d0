"""ir_measures' names, checked live against ir_measures (providers pytrec_eval, gdeval,
cwl_eval, judged, msmarco) per query on random qrels and runs with distinct scores. Its
C/W/L measures (SDCG, NERR8-11, INST, INSQ, BPM) and Compat: tests/test_cwl_measures.py.

The differences of convention (README, "rankkit and ir_measures") are pinned at the end."""

from __future__ import annotations

import shutil
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit as rk
from rankkit.names import IR_MEASURES

ir_measures = pytest.importorskip("ir_measures")

# Every ir_measures measure rankkit computes, in the spellings its docs use.
MEASURES = [
    "P@5", "P(rel=2)@5", "P(cutoff=3)", "R@10", "AP", "AP@5", "AP(rel=2)", "MAP", "RR", "RR@5", "MRR",
    "nDCG", "nDCG@5", "nDCG(cutoff=5)", "NDCG@10", "nDCG(gains={0:0,1:1,2:5,3:10})@5", "nDCG(judged_only=True)@5",
    "AP(judged_only=True)", "P(judged_only=True)@5", "Rprec", "RPrec", "Bpref", "BPref", "Judged@5", "Judged@20",
    "Success@5", "Success(rel=2)@10", "IPrec@0.0", "IPrec@0.1", "IPrec@0.5", "NumRet", "NumRel", "NumRelRet",
    "NumRet(rel=2)", "NumQ", "SetP", "SetR", "SetF", "SetF(beta=0.5)", "SetAP", "SetRelP",
    "SetP(relative=True)", "infAP", "RBP(rel=1)", "RBP(p=0.5, rel=2)",
]
GDEVAL = ["nDCG(dcg='exp-log2')@5", "nDCG(dcg='exp-log2')@20"]
# ir_measures scores 0 for every measure of a judged query absent from the run; rankkit with
# queries="qrels" (trec_eval -c) counts the query (NumQ 1) and its relevant documents (NumRel R).
ABSENT_DIFFER = {"NumQ", "NumRel"}


def gdeval_works() -> bool:
    return shutil.which("perl") is not None


def frames(draw_qrels, draw_run):
    qrels = pd.DataFrame([(q, d, r) for (q, d), r in draw_qrels.items()], columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([(q, d, s) for (q, d), s in draw_run.items()], columns=["query_id", "doc_id", "score"])
    return qrels, run


def theirs(measures, qrels, run) -> pd.DataFrame:
    """ir_measures' per-query values, one call per measure: in one call with measures that
    set judged_only=True, ir_measures 0.4.3 sometimes computes the others under -J too
    (NumRet 0 for a run of unjudged documents; it depends on the order of a set)."""
    values = {}
    # grouped by query, best first, as run files are: cwl_eval (RBP) starts a new topic each
    # time the query id changes, so an interleaved run gives it two values for one query
    run = run.sort_values(["query_id", "score"], ascending=[True, False])
    for group in ([s] for s in measures):
        for m in ir_measures.iter_calc([ir_measures.parse_measure(s) for s in group], qrels, run):
            values[(str(m.measure), m.query_id)] = m.value
    table = pd.Series(values).unstack(0)
    table.index.name = "query_id"
    return table


queries = st.sampled_from(["1", "2", "3", "10"])
docs = st.sampled_from([f"d{i}" for i in range(15)])


@settings(max_examples=sweep(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.tuples(queries, docs), st.integers(0, 3), min_size=1, max_size=40),
       st.dictionaries(st.tuples(queries, docs), st.integers(0, 10**6), min_size=1, max_size=40))
def test_every_ir_measures_name_equals_ir_measures(qrels_dict, run_dict):
    qrels, run = frames(qrels_dict, run_dict)
    assume(run.score.is_unique)  # distinct scores: ir_measures' providers break ties differently
    assume(set(qrels.query_id) & set(run.query_id))
    run["score"] = run.score.astype(float)
    measures = MEASURES + (GDEVAL if gdeval_works() else [])
    want = theirs(measures, qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = rk.evaluate(qrels, run, measures, queries="qrels")
    for spec in measures:
        column = str(ir_measures.parse_measure(spec))  # ir_measures prints its canonical name
        if column not in want:
            continue
        theirs_q = want[column].dropna()
        if spec in ABSENT_DIFFER:  # see test_queries_absent_from_the_run
            theirs_q = theirs_q[theirs_q.index.isin(run.query_id)]
        ours = got.loc[theirs_q.index.astype(str), spec].astype(float)
        atol = 5e-6 if spec in GDEVAL else 1e-9  # gdeval prints 5 decimals
        np.testing.assert_allclose(ours.to_numpy(), theirs_q.to_numpy(dtype=float), rtol=0, atol=atol,
                                   err_msg=f"{spec}: rankkit {ours.to_dict()} ir_measures {theirs_q.to_dict()}")


@pytest.mark.parametrize("spec", [s for s in MEASURES + GDEVAL + ["ERR@10", "Judged@10"] if s != "MRR"])
def test_a_metric_prints_back_the_name_it_parsed(spec):
    assert str(rk.parse_metric(spec)) == spec
    assert rk.parse_metric(str(rk.parse_metric(spec))) == rk.parse_metric(spec)


def test_rankkit_aliases_print_rankkit_names():
    assert str(rk.parse_metric("MRR")) == "RR"  # MRR was rankkit's alias before: canonical


def test_same_values_under_rankkit_names():
    assert rk.parse_metric("NumRet(rel=1)") == rk.parse_metric("num_rel_ret(rel=1)")
    assert rk.parse_metric("SetP(relative=True)") == rk.parse_metric("SetRelP")
    assert rk.parse_metric("nDCG(cutoff=10)") == rk.parse_metric("ndcg_cut_10")
    assert rk.parse_metric("nDCG(dcg='exp-log2')@10") == rk.parse_metric("nDCG(gain='exp')@10")
    assert rk.parse_metric("IPrec@0.1") == rk.parse_metric("iprec(recall=0.1, rounding='plus_0.9')")
    assert rk.parse_metric("Bpref") == rk.parse_metric("bpref")


def test_every_name_of_the_table_parses():
    for name in IR_MEASURES:
        at = "@0.2" if name == "IPrec" else "@10" if "k" in rk.names.REGISTRY[IR_MEASURES[name]].required else ""
        assert rk.parse_metric(name + at).name in rk.names.REGISTRY


@pytest.mark.parametrize("spec, message", [
    ("Accuracy@10", "ir_measures' Accuracy is not in rankkit yet"),
    ("alpha_nDCG(rel=2)@10", "counts a judgment >= 1 relevant, as ndeval does"),
    ("nDCG(cutoff=10)@5", r"gives the cutoff twice"),
    ("IPrec@1.5", r"recall level of IPrec must be a number in \[0, 1\], got '1.5'"),
    ("nDCG(dcg='log10')", "dcg must be 'log2' or 'exp-log2'"),
    ("nDCG(gains=[1, 2])@5", "gains must be a dict"),
    ("P(foo=1)@5", r"metric P does not take parameter\(s\) foo"),
    ("SetF(beta=1, cutoff=5)", "metric SetF takes no cutoff"),
])
def test_bad_ir_measures_specs(spec, message):
    with pytest.raises(ValueError, match=message) as err:
        rk.parse_metric(spec)
    assert "\n" not in str(err.value)


# --------------------------------------------------------------------------- differences, pinned

def test_err_max_grade_differs_from_gdeval_unless_set():
    """gdeval (ir_measures' ERR) fixes the largest grade at 4; rankkit's ERR takes the largest
    label of the data, so ERR(max_grade=4)@k is ir_measures' ERR@k."""
    if not gdeval_works():
        pytest.skip("gdeval needs perl")
    qrels = pd.DataFrame({"query_id": ["1"] * 3, "doc_id": ["a", "b", "c"], "relevance": [2, 1, 0]})
    run = pd.DataFrame({"query_id": ["1"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    want = next(ir_measures.iter_calc([ir_measures.parse_measure("ERR@10")], qrels, run)).value
    got = rk.evaluate(qrels, run, ["ERR@10", "ERR(max_grade=4)@10"])
    assert abs(got["ERR(max_grade=4)@10"].iloc[0] - want) < 5e-6  # gdeval prints 5 decimals
    assert abs(got["ERR@10"].iloc[0] - want) > 0.1  # max grade 2 here: (2^2 - 1)/2^2 vs (2^2 - 1)/2^4


def test_queries_absent_from_the_run():
    qrels = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    want = theirs(["NumQ", "NumRel", "AP"], qrels, run)
    assert want.loc["2"].tolist() == [0.0, 0.0, 0.0] or want.loc["2", ["NumQ", "NumRel"]].tolist() == [0.0, 0.0]
    got = rk.evaluate(qrels, run, ["NumQ", "NumRel", "AP"], queries="qrels")
    assert got.loc["2"].tolist() == [1.0, 1.0, 0.0]
    assert got.loc["1"].tolist() == want.loc["1", ["NumQ", "NumRel", "AP"]].tolist()


def test_ties_follow_trec_eval_not_msmarco():
    """On tied scores ir_measures' RR@k (msmarco provider) keeps the run's order; rankkit and
    trec_eval order ties by document id, descending (ir_measures' issue #18)."""
    qrels = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    theirs_rr = next(ir_measures.iter_calc([ir_measures.parse_measure("RR@10")], qrels, run)).value
    assert theirs_rr == 1.0                                           # a first, as listed
    assert rk.evaluate(qrels, run, ["RR@10"])["RR@10"].iloc[0] == 0.5  # b before a (docno descending)


def test_map_at_k_is_refused_where_ir_measures_accepts_it():
    """ir_measures reads MAP@10 as its AP@10 (divided by R, trec_eval's map_cut_10); a
    recommender-systems MAP@10 divides by min(R, 10). rankkit refuses MAP@10 and names both:
    AP@10 is ir_measures' MAP@10, AP(normalize='min_k')@10 the other."""
    qrels = pd.DataFrame({"query_id": ["1"] * 20, "doc_id": [f"d{i:02d}" for i in range(20)], "relevance": [1] * 20})
    run = pd.DataFrame({"query_id": ["1"] * 10, "doc_id": [f"d{i:02d}" for i in range(10)],
                        "score": [100.0 - i for i in range(10)]})
    theirs_map = next(ir_measures.iter_calc([ir_measures.parse_measure("MAP@10")], qrels, run)).value
    assert str(ir_measures.parse_measure("MAP@10")) == "AP@10" and theirs_map == 0.5  # 10 / R = 10 / 20
    with pytest.raises(ValueError, match=r"'MAP@10' is ambiguous: .*\(write AP@10 or map_cut_10\).*"
                                         r"\(write AP\(normalize='min_k'\)@10\)"):
        rk.parse_metric("MAP@10")
    got = rk.evaluate(qrels, run, ["AP@10", "AP(normalize='min_k')@10"])
    assert got.loc["1"].tolist() == [theirs_map, 1.0]
