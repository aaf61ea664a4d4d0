"""evaluate() against pytrec_eval (trec_eval's C code) on random runs and judgments.

Hypothesis draws qrels and runs as dicts over a small pool of query and document ids, so
that: scores tie often (ties="docno" must reproduce trec_eval's document-id-descending
order), some queries have no relevant document, some documents are judged -1 ("pooled
but not judged"), queries are missing from the run or from the qrels, and every cutoff
(5, 10) can go beyond the ranking. Per-query values must agree to 1e-9, and the scored
queries must be exactly those pytrec_eval scores.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

from rankkit.evaluation.scoring import aggregate, evaluate

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = [
    "P_5", "recall_10", "map", "map_cut_5", "recip_rank", "ndcg", "ndcg_cut_5", "Rprec",
    "success_5", "bpref", "num_rel_ret", "num_ret", "num_rel", "P_1", "recall_5",
]
# Every other per-query measure pytrec_eval (trec_eval 9.0.8) shares with trec_eval 10,
# under the name both print (runid and relstring come back from pytrec_eval as 0.0).
MORE_MEASURES = [
    "num_q", "infAP", "Rprec_mult_0.20", "Rprec_mult_1.40", "utility", "binG", "G", "ndcg_rel",
    "Rndcg", "relative_P_5", "relative_P_10", "set_P", "set_relative_P", "set_recall", "set_map",
    "set_F", "num_nonrel_judged_ret", "success_1", "map_cut_10", "ndcg_cut_10",
]
# trec_eval 9 rounds level * R with (long) (x + 0.9) in 11pt_avg too (10: lround)
ELEVEN_POINT = {"11pt_avg": "iprec_avg(rounding='plus_0.9')"}
QUERIES = [f"q{i}" for i in range(5)]
DOCS = [f"d{i}" for i in range(12)] + ["D5", "d10x", "a"]  # mixed case and lengths: byte order
SCORES = [0.0, 0.5, 1.0, 1.5, 2.0, -1.0]  # few values: many ties


def _docs(values):
    return st.dictionaries(st.sampled_from(DOCS), values, min_size=1, max_size=10)


# pytrec_eval 0.5 crashes (segfault) on a query whose every label is -1: keep one label >= 0
qrels_strategy = st.dictionaries(
    st.sampled_from(QUERIES),
    _docs(st.sampled_from([-1, 0, 0, 1, 1, 2])).filter(lambda docs: max(docs.values()) >= 0),
    min_size=1, max_size=5)
run_strategy = st.dictionaries(
    st.sampled_from(QUERIES), _docs(st.sampled_from(SCORES)), min_size=1, max_size=5)


def _pytrec(qrels, run, measures, relevance_level=1):
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=relevance_level)
    return evaluator.evaluate(run)


def _ours(qrels, run, measures, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(qrels, run, measures, **kwargs)


# pytrec_eval (trec_eval 9.0.8) rounds level * R with (long) (x + 0.9) for iprec_at_recall
IPREC = {f"iprec_at_recall_{x:.2f}": f"iprec(recall={x!r}, rounding='plus_0.9')"
         for x in (0.0, 0.1, 0.3, 0.5, 0.7, 1.0)}


def _assert_agree(qrels, run, measures, relevance_level=1, **kwargs):
    """``measures``: pytrec_eval names, or a dict pytrec_eval name -> rankkit spec."""
    specs = measures if isinstance(measures, dict) else {m: m for m in measures}
    theirs = _pytrec(qrels, run, specs, relevance_level)
    if not set(qrels) & set(run):  # pytrec_eval scores nothing; rankkit says why
        assert theirs == {}
        with pytest.raises(ValueError, match="no query in common"):
            _ours(qrels, run, list(specs.values()), **kwargs)
        return
    table = _ours(qrels, run, list(specs.values()), **kwargs)
    assert sorted(map(str, table.index)) == sorted(theirs)
    for qid, row in table.iterrows():
        for name, spec in specs.items():
            assert abs(row[spec] - theirs[str(qid)][name]) < 1e-9, (qid, name, row[spec], theirs[str(qid)][name])


@settings(max_examples=sweep(80))
@given(qrels_strategy, run_strategy)
def test_random_runs_agree_with_pytrec_eval(qrels, run):
    _assert_agree(qrels, run, {**{m: m for m in MEASURES}, **IPREC})


@settings(max_examples=sweep(60))
@given(qrels_strategy, run_strategy)
def test_every_shared_measure_agrees_with_pytrec_eval(qrels, run):
    _assert_agree(qrels, run, {**{m: m for m in MORE_MEASURES}, **ELEVEN_POINT})


@settings(max_examples=sweep(40))
@given(qrels_strategy, run_strategy)
def test_geometric_means_agree_with_pytrec_eval(qrels, run):
    """trec_eval 9 stores log(max(AP, 1e-5)) per query for gm_map (10 prints none); the
    all line is exp of their mean."""
    if not set(qrels) & set(run):
        return
    theirs = _pytrec(qrels, run, {"gm_map", "gm_bpref"})
    table = _ours(qrels, run, ["gm_map", "gm_bpref"])
    for column in ("gm_map", "gm_bpref"):
        logs = [theirs[str(q)][column] for q in table.index]
        assert np.allclose(np.log(np.maximum(table[column], 1e-5)), logs, rtol=0, atol=1e-9)
        expected = float(np.exp(np.mean(logs)))
        assert abs(aggregate(table)[column] - expected) < 1e-12


def test_trec_eval_9_and_10_differences():
    """What pytrec_eval (trec_eval 9.0.8) computes differently from trec_eval 10 (rankkit's trec_eval names)."""
    # 1. Recall levels to counts: 9 uses (long) (l * R + 0.9), 10 lround(l * R). Relevant at
    #    ranks 1, 3 and 6 (interpolated precisions 1, 2/3, 1/2), R = 3, l = 0.4: 9 counts 2
    #    (1.2 + 0.9) and reads 2/3, 10 counts 1 (round(1.2)) and reads 1.
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    run = {"q": {"a": 6.0, "x": 5.0, "b": 4.0, "y": 3.0, "z": 2.0, "c": 1.0}}
    theirs = _pytrec(qrels, run, {"iprec_at_recall", "11pt_avg"})["q"]
    nine = _ours(qrels, run, ["iprec(recall=0.4, rounding='plus_0.9')", "iprec_avg(rounding='plus_0.9')"])
    ten = _ours(qrels, run, ["iprec_at_recall_0.40", "11pt_avg"])
    assert nine.iloc[0, 0] == theirs["iprec_at_recall_0.40"] == 2 / 3
    assert ten.iloc[0, 0] == 1.0
    assert nine.iloc[0, 1] == theirs["11pt_avg"] != ten.iloc[0, 1]
    # 2. Scores: 9 reads them as float, so scores equal in float tie; 10 (and rankkit) keep doubles.
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 0.1, "b": 0.1 + 1e-12}}  # b above a in double, tied in float (docno: b)
    assert _pytrec(qrels, run, {"recip_rank"})["q"]["recip_rank"] == 0.5
    assert _ours(qrels, run, ["recip_rank"]).iloc[0, 0] == 0.5
    run = {"q": {"a": 0.1 + 1e-12, "b": 0.1}}  # a above b in double, tied in float: docno puts b first
    assert _pytrec(qrels, run, {"recip_rank"})["q"]["recip_rank"] == 0.5
    assert _ours(qrels, run, ["recip_rank"]).iloc[0, 0] == 1.0
    # 3. A judged query missing from the run: 9 skips it silently, 10 stops (exit 4) without -c;
    #    rankkit skips it with a warning (and scores it as 0 under queries='qrels', like -c).
    qrels = {"q": {"a": 1}, "lost": {"z": 1}}
    run = {"q": {"a": 1.0}}
    assert set(_pytrec(qrels, run, {"P_5"})) == {"q"}
    with pytest.warns(UserWarning, match="judged queries missing from the run are not scored"):
        assert list(evaluate(qrels, run, ["P_5"]).index) == ["q"]


@settings(max_examples=sweep(40))
@given(qrels_strategy, run_strategy)
def test_relevance_level_2_agrees_with_pytrec_eval(qrels, run):
    measures = ["P_5", "recall_10", "map", "recip_rank", "Rprec", "bpref", "num_rel", "num_rel_ret", "ndcg"]
    _assert_agree(qrels, run, {**{m: m for m in measures}, **IPREC}, relevance_level=2, rel=2)


def test_fixed_example_with_ties_and_missing_queries():
    qrels = {"q1": {"a": 1, "b": 0, "c": 1, "d": -1}, "q2": {"x": 0}, "q3": {"y": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 2.0, "e": 0.5}, "q2": {"x": 1.0}, "q4": {"z": 1.0}}
    _assert_agree(qrels, run, MEASURES)
    table = _ours(qrels, run, MEASURES)
    # c, b, a (document id descending among the tied) after d: RR = 1/2, P@5 = 2/5
    assert table.loc["q1", "recip_rank"] == 0.5
    assert np.isclose(table.loc["q1", "P_5"], 0.4)
    assert table.attrs["unscored"] == {"q3": "not in the run", "q4": "no judgments"}
