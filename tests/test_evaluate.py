"""Tests of rankkit.evaluate: spec parser, registry, score, aggregate, evaluate."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit as rk
from rankkit.evaluation.scoring import (
    REGISTRY,
    Metric,
    aggregate,
    evaluate,
    expand_metrics,
    parse_metric,
    score,
)

# --------------------------------------------------------------------------- specs


@pytest.mark.parametrize(
    "spec, name, params, k",
    [
        ("nDCG@10", "nDCG", {}, 10),
        ("nDCG(gain='exp')@10", "nDCG", {"gain": "exp"}, 10),
        ("nDCG(gain=exp)@10", "nDCG", {"gain": "exp"}, 10),  # bare word is a string
        ("AP(normalize='min_k')@5", "AP", {"normalize": "min_k"}, 5),
        ("RBP(p=0.9)", "RBP", {"p": 0.9}, None),
        ("P(rel=2)@5", "P", {"rel": 2}, 5),
        (" P ( rel = 2 ) @ 5 ", "P", {"rel": 2}, 5),
        ("iprec(recall=0.1)", "iprec", {"recall": 0.1}, None),
        ("ERR(p=0.5, max_grade=3)@20", "ERR", {"p": 0.5, "max_grade": 3}, 20),
        ("nDCG(gain={1: 3, 2: 9})", "nDCG", {"gain": {1: 3, 2: 9}}, None),
        # trec_eval names
        ("map", "AP", {}, None),
        ("map_cut_10", "AP", {}, 10),
        ("ndcg", "nDCG", {}, None),
        ("ndcg_cut_10", "nDCG", {}, 10),
        ("P_10", "P", {}, 10),
        ("recip_rank", "RR", {}, None),
        ("recall_100", "R", {}, 100),
        ("Rprec", "Rprec", {}, None),
        ("R-prec", "Rprec", {}, None),
        ("bpref", "bpref", {}, None),
        ("success_10", "success", {}, 10),
        ("num_ret", "num_ret", {}, None),
        ("num_rel", "num_rel", {}, None),
        ("num_rel_ret", "num_rel_ret", {}, None),
        ("iprec_at_recall_0.10", "iprec", {"recall": 0.1, "rounding": "nearest"}, None),
        ("rbp", "RBP", {"p": 0.9, "max_grade": "query"}, None),
        ("rbp_resid", "RBP_residual", {"p": 0.9, "convention": "trec_eval"}, None),
        ("RBP(max_grade=query)", "RBP", {"max_grade": "query"}, None),
        ("RBP_residual(convention='trec_eval')@5", "RBP_residual", {"convention": "trec_eval"}, 5),
        # aliases take parameters and cutoffs too; case-insensitive fallback
        ("map", "AP", {}, None),
        ("MAP", "AP", {}, None),
        ("AP@10", "AP", {}, 10),
        ("MAP(normalize='min_k')@10", "AP", {"normalize": "min_k"}, 10),
        ("map(normalize='relevant')@10", "AP", {"normalize": "relevant"}, 10),
        ("MRR@10", "RR", {}, 10),
        ("ndcg(gain='exp')@3", "nDCG", {"gain": "exp"}, 3),
        ("NDCG@3", "nDCG", {}, 3),
    ],
)
def test_parse_metric(spec, name, params, k):
    m = parse_metric(spec)
    assert (m.name, m.kwargs, m.k) == (name, params, k)


@pytest.mark.parametrize(
    "spec",
    ["nDCG@10", "nDCG(gain='exp')@10", "AP(normalize='min_k')@5", "RBP(p=0.9)", "P(rel=2)@5",
     "iprec(recall=0.25)", "ERR(p=0.5, max_grade=3)@20", "AP(rel=2, normalize='retrieved')@7",
     "nDCG(gain={1: 3, 2: 9.5})@4", "bpref", "num_rel(rel=2)"],
)
def test_canonical_spec_prints_back_exactly(spec):
    m = parse_metric(spec)
    assert str(m) == spec
    assert parse_metric(str(m)) == m
    assert hash(parse_metric(spec)) == hash(m)


def test_parameters_print_in_registry_order_whatever_the_spec_order():
    assert str(parse_metric("AP(normalize='min_k', rel=2)@5")) == "AP(rel=2, normalize='min_k')@5"


def test_aliases_print_canonically():
    assert [str(parse_metric(s)) for s in ["map", "ndcg_cut_10", "P_5", "recip_rank", "recall_100",
                                           "success_10", "iprec_at_recall_0.10"]] == [
        "AP", "nDCG@10", "P@5", "RR", "R@100", "success@10", "iprec(recall=0.1, rounding='nearest')"]


def test_metric_passes_through_and_is_callable():
    m = parse_metric("P@2")
    assert parse_metric(m) is m
    assert m([1, 0, 1]) == 0.5
    assert parse_metric("nDCG(gain='exp')@3")([[3, 2, 0]]).round(4).tolist() == [1.0]


HELP = " (all names: rankkit evaluate --help)"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("ndcg_cut10", "unknown metric 'ndcg_cut10'; did you mean ndcg_cut_10 or nDCG@10?"),
        ("ndgc@10", "unknown metric 'ndgc' in metric spec 'ndgc@10'; did you mean nDCG@10, ndcg_cut_10 or RnDCG?"),
        ("P10", "unknown metric 'P10'; did you mean P_10 or P@10?"),
        ("p_10", "unknown metric 'p_10'; did you mean P_10 or P@10?"),
        ("mrr10", "unknown metric 'mrr10'; did you mean MRR@10 or RR@10?"),
        ("Recal@100",
         "unknown metric 'Recal' in metric spec 'Recal@100'; did you mean Recall@100, R@100, recall_100 or "
         "StRecall@100?"),
        ("ndgc(gain='exp')@10", "unknown metric 'ndgc' in metric spec \"ndgc(gain='exp')@10\"; "
                                "did you mean nDCG(gain='exp')@10 or RnDCG(gain='exp')?"),
        ("map_10", "unknown metric 'map_10'; did you mean AP@10, AP(normalize='min_k')@10, map_cut_10 or GMAP?"),
        ("hit_rate@10",
         "unknown metric 'hit_rate' in metric spec 'hit_rate@10'; did you mean success@10 or success_10?"),
        ("numret", "unknown metric 'numret'; did you mean NumRet or num_ret?"),
        ("offical", "unknown metric 'offical'; did you mean official?"),
        ("foo@10", "unknown metric 'foo' in metric spec 'foo@10'; no known name is close"),
    ],
)
def test_unknown_metric_suggests_the_closest_names_briefly(spec, message):
    with pytest.raises(ValueError) as raised:
        expand_metrics(spec)
    assert str(raised.value) == message + HELP
    assert len(str(raised.value)) < 200  # not the ~1,000 characters of every name


@pytest.mark.parametrize("name, params, k", [
    ("ndcg_cut10", None, None), ("ndgc", None, "10"), ("P10", None, None), ("mrr10", None, None),
    ("Recal", None, "100"), ("ndgc", "gain='exp'", "10"), ("map_10", None, None), ("MAP_cut10", None, None),
    ("hit_rate", None, "10"), ("numret", None, None), ("offical", None, None), ("bpreff", None, "5"),
    ("iprec_at_recal", None, None), ("ndcg_cutt.10", None, None), ("precison", None, "5"), ("apk", None, None),
])
def test_every_suggestion_is_accepted(name, params, k):
    from rankkit.names.suggestions import _suggestions

    suggestions = _suggestions(name, params, k)
    assert 1 <= len(suggestions) <= 4
    for suggestion in suggestions:
        assert expand_metrics(suggestion)  # no error: never a spelling rankkit refuses


@pytest.mark.parametrize(
    "spec, hint",
    [
        ("nDCG(k=10)", "; the cutoff is written @k: nDCG@10"),
        ("NDCG(k=10)", "; the cutoff is written @k: nDCG@10"),
        ("nDCG(gain='exp', k=10)", "; the cutoff is written @k: nDCG(gain='exp')@10"),
        ("success(cutoff=5)", "; the cutoff is written @k: success@5"),
        ("nDCG(k=0)", "; the cutoff is written @k, as in nDCG@10"),
        ("bpref(k=3)", "; bpref takes no cutoff"),
    ],
)
def test_a_cutoff_given_as_a_parameter_says_how_to_write_it(spec, hint):
    with pytest.raises(ValueError) as raised:
        parse_metric(spec)
    assert str(raised.value).endswith(f"in metric spec {spec!r}{hint}")


@pytest.mark.parametrize(
    "spec, as_trec, as_recsys",
    [
        ("MAP@10", "AP@10 or map_cut_10", "AP(normalize='min_k')@10"),
        ("map@10", "AP@10 or map_cut_10", "AP(normalize='min_k')@10"),
        ("mAP@5", "AP@5 or map_cut_5", "AP(normalize='min_k')@5"),
        ("ap@10", "AP@10 or map_cut_10", "AP(normalize='min_k')@10"),
        ("Map @ 10", "AP@10 or map_cut_10", "AP(normalize='min_k')@10"),
        ("MAP(cutoff=10)", "AP@10 or map_cut_10", "AP(normalize='min_k')@10"),  # ir_measures' spelling
        ("MAP(rel=2)@10", "AP(rel=2)@10", "AP(rel=2, normalize='min_k')@10"),
    ],
)
def test_map_at_k_is_ambiguous_and_refused_with_both_spellings(spec, as_trec, as_recsys):
    k = as_recsys.rsplit("@", 1)[1]
    message = (f"metric spec {spec!r} is ambiguous: AP over the top {k} is divided by R, the number of relevant "
               f"documents, in trec_eval, ir_measures and ranx (write {as_trec}), and by min(R, {k}) in "
               f"RecBole and other recommender-systems libraries (write {as_recsys})")
    with pytest.raises(ValueError) as raised:
        parse_metric(spec)
    assert str(raised.value) == message
    with pytest.raises(ValueError, match="is ambiguous"):
        expand_metrics(["P@5", spec])
    assert parse_metric(as_recsys) == Metric("AP", tuple(parse_metric(as_recsys).params), int(k))


def test_ap_spellings_that_say_which_ap_are_accepted():
    assert str(parse_metric("AP@10")) == "AP@10"  # rankkit's own: trec_eval's map_cut_10
    assert parse_metric("map_cut_10") == parse_metric("AP@10")
    assert parse_metric("MAP") == parse_metric("map") == parse_metric("AP")  # no cutoff: one meaning
    assert parse_metric("MAP(normalize='min_k')@10") == parse_metric("AP(normalize='min_k')@10")


def test_evaluate_refuses_map_at_k_and_computes_both_meanings(tmp_path):
    # 20 relevant documents, the top 10 all relevant: AP@10 = 10 / 20, over min(R, 10) = 1.
    qrels = {"q": {f"d{i:02d}": 1 for i in range(20)}}
    run = {"q": {f"d{i:02d}": 100.0 - i for i in range(10)}}
    with pytest.raises(ValueError, match=r"'MAP@10' is ambiguous"):
        evaluate(tmp_path / "missing.qrels", tmp_path / "missing.run", ["MAP@10"])  # before reading
    table = evaluate(qrels, run, ["AP@10", "map_cut_10", "AP(normalize='min_k')@10"])
    assert table.loc["q"].tolist() == [0.5, 0.5, 1.0]


@pytest.mark.parametrize("spec, value", [("P@0", "0"), ("P@-1", "-1"), ("nDCG@x", "'x'"), ("AP@2.5", "'2.5'")])
def test_k_must_be_positive_integer(spec, value):
    with pytest.raises(ValueError, match=rf"k must be a positive integer, got {value}"):
        parse_metric(spec)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("P(foo=1)@5", r"metric P does not take parameter\(s\) foo \(allowed: rel, normalize, judged_only\)"),
        ("num_ret(rel=2)", r"metric num_ret does not take parameter\(s\) rel \(allowed: judged_only\)"),
        ("nDCG(p=0.5, q=1)",
         r"does not take parameter\(s\) p, q \(allowed: gain, discount, base, no_relevant, judged_only\)"),
        ("AP(judged_only=1)", r"judged_only must be True or False, got 1"),
        ("P(2)@5", r"parameters must be named"),
        ("P(rel=)@5", r"cannot parse the parameters"),
        ("P(rel=1+x)@5", r"the value of 'rel' must be a literal"),
        ("iprec", r"metric iprec needs parameter\(s\) recall"),
        ("Rprec@10", r"metric Rprec takes no cutoff @k"),
        ("bpref@10", r"metric bpref takes no cutoff @k"),
        ("P(rel=1) + g(2)@5", r"cannot parse the parameters of metric spec"),
        ("P(rel=1, rel=2)@5", r"parameter 'rel' is given twice"),
        ("P@1_0", r"k must be a positive integer, got '1_0'"),
        ("P@+5", r"k must be a positive integer, got '\+5'"),
        ("P@5@6", r"cannot parse metric spec"),
        ("", r"cannot parse metric spec"),
    ],
)
def test_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_metric(spec)


def test_spec_must_be_a_string():
    with pytest.raises(ValueError, match="a metric spec must be a string or Metric, got int"):
        parse_metric(10)
    with pytest.raises(ValueError, match="a metric spec must be a string or Metric, got int"):
        expand_metrics(["P@5", 3])


def test_expand_trec_eval_parameter_lists():
    columns = expand_metrics(["P.5,7,3", "recall.20,2000", "ndcg_cut.10,20,23.4", "success.2,5,20",
                              "iprec_at_recall..10,.20,.25,.75,.50", "ndcg.1=3,2=9,4=4.5"])
    assert {c: str(m) for c, m in columns.items()} == {
        "P_3": "P@3", "P_5": "P@5", "P_7": "P@7",
        "recall_20": "R@20", "recall_2000": "R@2000",
        "ndcg_cut_10": "nDCG@10", "ndcg_cut_20": "nDCG@20", "ndcg_cut_23": "nDCG@23",
        "success_2": "success@2", "success_5": "success@5", "success_20": "success@20",
        **{f"iprec_at_recall_{x:.2f}": f"iprec(recall={x}, rounding='nearest')" for x in (0.1, 0.2, 0.25, 0.5, 0.75)},
        "ndcg_1=3,2=9,4=4.5": "nDCG(gain={1.0: 3.0, 2.0: 9.0, 4.0: 4.5})",
    }


@pytest.mark.parametrize("spec, message", [
    ("P.x,5", r"cannot parse trec_eval parameter list 'P.x,5': expected numbers, got 'x'"),
    ("ndcg.1=a", r"cannot parse trec_eval parameter list 'ndcg.1=a': expected numbers, got 'a'"),
    ("ndcg.1", r"cannot parse trec_eval parameter list 'ndcg.1': expected name=value pairs"),
    ("P.0", r"k must be a positive integer, got 0 in trec_eval list 'P.0'"),
    ("P.5,5", r"duplicate values in trec_eval list 'P.5,5'"),
    ("Rprec_mult.0,0.001", r"two values of trec_eval list 'Rprec_mult.0,0.001' print as Rprec_mult_0.00"),
])
def test_expand_bad_trec_eval_lists(spec, message):
    with pytest.raises(ValueError, match=message):
        expand_metrics([spec])


def test_expand_keeps_order_names_as_written_and_drops_repeats():
    columns = expand_metrics(["ndcg_cut_10", " nDCG@10 ", parse_metric("AP@5"), "ndcg_cut_10"])
    assert list(columns) == ["ndcg_cut_10", "nDCG@10", "AP@5"]
    assert expand_metrics("P@5") == {"P@5": Metric("P", (), 5)}
    with pytest.raises(ValueError, match="at least one metric"):
        expand_metrics([])


def test_every_registry_entry_runs_on_a_small_ranking():
    r = rk.as_rankings([[2, 0, 1, 0], [0, 0, 0, 1]])
    for name, info in REGISTRY.items():
        if info.scores:  # AUC, GAUC, PNR, MSE, MAE need model scores: tests/test_model_scores.py runs them
            continue
        if info.judgments != "qrels":  # preferences, a recommender's lists: tests/test_prefs.py, test_recommender.py
            continue
        spec = name + ("(recall=0.5)" if name == "iprec" else "") + ("@3" if info.cutoff else "")
        values = np.asarray(parse_metric(spec)(r))
        assert values.shape == (2,), name
        if info.kind == "str":
            assert all(isinstance(v, str) for v in values), name
        else:
            assert np.all(np.isfinite(values)), name


# --------------------------------------------------------------------------- score


def test_score_hand_computed():
    table = score([[1, 0, 1], [0, 0, 2]], ["P@2", "RR", "num_rel_ret", "AP", "nDCG(gain='exp')@3"])
    assert list(table.columns) == ["P@2", "RR", "num_rel_ret", "AP", "nDCG(gain='exp')@3"]
    assert table.index.name == "query_id"
    np.testing.assert_allclose(table["P@2"], [0.5, 0.0])
    np.testing.assert_allclose(table["RR"], [1.0, 1 / 3])
    np.testing.assert_allclose(table["num_rel_ret"], [2, 1])
    np.testing.assert_allclose(table["AP"], [(1 + 2 / 3) / 2, 1 / 3])
    # exp gain: DCG = 1 + 1/log2(4) = 1.5; ideal = 1 + 1/log2(3)
    np.testing.assert_allclose(table["nDCG(gain='exp')@3"], [1.5 / (1 + 1 / np.log2(3)), 3 / 2 / 3])
    assert table.attrs["metrics"]["RR"] == "RR"


def test_iprec_spec_is_textbook_and_trec_eval_names_round_as_trec_eval_10():
    # relevant at ranks 1, 3, 6 (R = 3): recall 0.4 is reached at rank 3 (P 2/3), while
    # trec_eval 10 rounds 0.4 * 3 to 1 relevant document and reads rank 1
    labels = [[1, 0, 1, 0, 0, 1]]
    table = score(labels, ["iprec(recall=0.4)", "iprec_at_recall_0.40", "iprec_avg", "11pt_avg"])
    assert table["iprec(recall=0.4)"].tolist() == [2 / 3]
    assert table["iprec_at_recall_0.40"].tolist() == [1.0]
    assert str(parse_metric("11pt_avg")) == "iprec_avg(levels=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, " \
        "1.0), rounding='nearest')"
    # 11 levels: textbook counts 0,1,1,1,2,2,2,3,3,3,3 and lround 0,0,1,1,1,2,2,2,2,3,3
    best = [1.0, 2 / 3, 0.5]  # interpolated precision at the 1st, 2nd, 3rd relevant document
    textbook = [best[c - 1] for c in (1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3)]
    nearest = [best[c - 1] for c in (1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3)]
    assert table["iprec_avg"].iloc[0] == pytest.approx(sum(textbook) / 11)
    assert table["11pt_avg"].iloc[0] == pytest.approx(sum(nearest) / 11)


def test_score_global_rel_applies_to_binary_metrics_and_spec_rel_wins():
    labels = [[1, 2, 0, 1]]
    table = score(labels, ["P@2", "P(rel=1)@2", "num_rel", "nDCG@2"], rel=2)
    assert table["P@2"].tolist() == [0.5]
    assert table["P(rel=1)@2"].tolist() == [1.0]
    assert table["num_rel"].tolist() == [1.0]
    # nDCG uses the labels as gains whatever the level (as trec_eval -l does)
    np.testing.assert_allclose(table["nDCG@2"], score(labels, ["nDCG@2"])["nDCG@2"])
    with pytest.raises(ValueError, match="rel must be a positive number, got 0"):
        score(labels, ["P@2"], rel=0)


def test_score_err_max_grade_defaults_to_the_data_and_can_be_set():
    table = score([[1, 0], [3, 0]], ["ERR", "ERR(max_grade=4)"])
    np.testing.assert_allclose(table["ERR"], [1 / 8, 7 / 8])  # (2**g - 1) / 2**3
    np.testing.assert_allclose(table["ERR(max_grade=4)"], [1 / 16, 7 / 16])
    np.testing.assert_allclose(score([[1, 0]], ["ERR"], max_grade=3)["ERR"], [1 / 8])


def test_score_bad_parameter_value_is_reported_by_the_metric():
    with pytest.raises(ValueError, match=r"metric RBP\(p=2\): p must be in \(0, 1\), got 2"):
        score([[1, 0]], ["RBP(p=2)"])
    with pytest.raises(ValueError, match=r"metric AP\(normalize='nope'\): normalize must be one of"):
        score([[1, 0]], ["AP(normalize='nope')"])
    with pytest.raises(ValueError, match=r"metric iprec\(recall=1.5\): recall_levels must be in \[0, 1\]"):
        score([[1, 0]], ["iprec(recall=1.5)"])


def test_score_on_no_queries_and_empty_rankings():
    table = score([[], []], ["P@5", "nDCG", "AP", "RR", "num_ret", "iprec(recall=0.5)", "RBP", "ERR"])
    assert table.shape == (2, 8) and (table.to_numpy() == 0).all()
    empty = score(np.zeros((0, 3)), ["P@5", "iprec(recall=0.5)", "num_ret"])
    assert empty.shape == (0, 3)


@settings(max_examples=sweep(60))
@given(st.lists(st.lists(st.integers(0, 3), min_size=0, max_size=8), min_size=1, max_size=6),
       st.integers(1, 10))
def test_score_batch_equals_rows_one_at_a_time(rows, k):
    specs = [f"P@{k}", f"R@{k}", "AP", f"nDCG@{k}", "RR", "bpref", "Rprec", f"success@{k}", "num_rel_ret"]
    batch = score([list(map(float, row)) for row in rows], specs)
    for i, row in enumerate(rows):
        one = score([list(map(float, row))], specs)
        np.testing.assert_allclose(batch.iloc[i].to_numpy(), one.iloc[0].to_numpy(), atol=1e-12)


def test_aggregate_means_and_sums_counts():
    table = score([[1, 0], [0, 0], [1, 1]], ["P@1", "num_rel_ret", "num_ret", "map"])
    means = aggregate(table)
    assert means.to_dict() == pytest.approx({"P@1": 2 / 3, "num_rel_ret": 3, "num_ret": 6, "map": 2 / 3})


def test_aggregate_of_no_queries_is_zero():
    table = score([[1, 0]], ["P@1", "num_ret"]).iloc[:0]
    table.attrs = {"metrics": {"P@1": "P@1", "num_ret": "num_ret"}}
    assert aggregate(table).to_dict() == {"P@1": 0.0, "num_ret": 0.0}


# --------------------------------------------------------------------------- evaluate

QRELS = {
    "q1": {"a": 1, "b": 0, "c": 2, "z": 1},
    "q2": {"d": 1, "e": 0},
    "q4": {"f": 0},  # judged, nothing relevant
}
RUN = {
    "q1": {"a": 0.9, "b": 0.8, "c": 0.1, "u": 0.5},  # u unjudged
    "q3": {"x": 1.0},  # no judgments
    "q4": {"f": 0.3},
}


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(*args, **kwargs)


def test_evaluate_run_policy_scores_the_intersection_and_reports_the_rest():
    with pytest.warns(UserWarning) as caught:
        table = evaluate(QRELS, RUN, ["P@2", "num_rel", "num_ret", "map"])
    messages = " | ".join(str(w.message) for w in caught)
    assert "run queries without judgments are not scored (1): q3" in messages
    assert "judged queries missing from the run are not scored (1;" in messages and "q2" in messages
    assert list(table.index) == ["q1", "q4"]
    assert table.index.name == "query_id"
    assert table.loc["q1"].to_dict() == pytest.approx(
        {"P@2": 0.5, "num_rel": 3, "num_ret": 4, "map": (1 + 2 / 4) / 3})
    assert table.loc["q4"].to_dict() == pytest.approx({"P@2": 0, "num_rel": 0, "num_ret": 1, "map": 0})
    assert table.attrs["unscored"] == {"q2": "not in the run", "q3": "no judgments"}
    assert table.attrs["queries"] == "run" and table.attrs["ties"] == "docno"


def test_evaluate_qrels_policy_scores_every_judged_query():
    with pytest.warns(UserWarning, match="q3"):
        table = evaluate(QRELS, RUN, ["P@2", "num_rel", "num_ret", "ndcg", "RR"], queries="qrels")
    assert list(table.index) == ["q1", "q2", "q4"]
    assert table.loc["q2"].to_dict() == {"P@2": 0.0, "num_rel": 1.0, "num_ret": 0.0, "ndcg": 0.0, "RR": 0.0}
    assert table.attrs["unscored"] == {"q3": "no judgments"}


def test_evaluate_no_warning_when_run_and_qrels_agree():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"c": 1.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = evaluate(qrels, run, "P@1")
    assert table["P@1"].tolist() == [1.0, 0.0]
    assert table.attrs["unscored"] == {}


def test_evaluate_ties_docno_breaks_by_document_id_descending():
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0}}
    assert _quiet(qrels, run, ["RR", "P@1"])["RR"].tolist() == [0.5]  # b before a
    assert _quiet(qrels, run, ["RR"], ties="optimistic")["RR"].tolist() == [1.0]
    assert _quiet(qrels, run, ["RR"], ties="pessimistic")["RR"].tolist() == [0.5]
    assert _quiet(qrels, run, ["P@1"], ties="average")["P@1"].tolist() == [0.5]


def test_evaluate_depth_and_rel():
    table = _quiet(QRELS, RUN, ["num_ret", "num_rel_ret", "P@2"], depth=2, rel=2)
    assert table.loc["q1"].to_dict() == {"num_ret": 2.0, "num_rel_ret": 0.0, "P@2": 0.0}


def test_evaluate_trec_alias_columns_match_canonical_columns():
    table = _quiet(QRELS, RUN, ["map", "AP", "ndcg_cut_3", "nDCG@3", "P.2,1"])
    assert list(table.columns) == ["map", "AP", "ndcg_cut_3", "nDCG@3", "P_1", "P_2"]
    np.testing.assert_array_equal(table["map"], table["AP"])
    np.testing.assert_array_equal(table["ndcg_cut_3"], table["nDCG@3"])


def test_evaluate_accepts_dataframes():
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [0.1, 0.2]})
    assert evaluate(qrels, run, ["RR"])["RR"].tolist() == [0.5]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"queries": "all"}, r"queries must be one of 'run', 'qrels', got 'all'"),
        ({"ties": "random"}, r"ties must be one of 'docno', 'optimistic', 'pessimistic', 'average', got 'random'"),
        ({"rel": -1}, r"rel must be a positive number, got -1"),
    ],
)
def test_evaluate_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        evaluate(QRELS, RUN, ["P@5"], **kwargs)


def test_evaluate_bad_metric_fails_before_reading_inputs(tmp_path):
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        evaluate(tmp_path / "missing.qrels", tmp_path / "missing.run", ["P@5", "nope"])
    with pytest.raises(ValueError, match="k must be a positive integer, got 0"):
        evaluate(QRELS, RUN, ["P@0"])


def test_evaluate_average_ties_for_linear_metrics_and_an_error_naming_the_spec_otherwise():
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0}}
    table = evaluate(qrels, run, ["P@1", "success@1", "R@1", "nDCG@1", "num_rel_ret"], ties="average")
    assert table.loc["q"].to_dict() == {"P@1": 0.5, "success@1": 0.5, "R@1": 0.5, "nDCG@1": 0.5, "num_rel_ret": 1.0}
    # AP and RR: the expected value over both orders, (1 + 1/2) / 2 (McSherry & Najork)
    assert evaluate(qrels, run, ["map", "RR"], ties="average").loc["q"].tolist() == [0.75, 0.75]
    with pytest.raises(ValueError, match=r"metric bpref: ties='average' is not supported by bpref"):
        evaluate(qrels, run, ["P@1", "bpref"], ties="average")


def test_evaluate_err_max_grade_is_the_largest_label_of_all_judgments():
    qrels = {"q1": {"a": 1}, "q2": {"b": 3}, "q3": {"c": 4}}  # q3 is not in the run
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0}}
    table = _quiet(qrels, run, ["ERR", "ERR(max_grade=3)"])
    np.testing.assert_allclose(table["ERR"], [1 / 16, 7 / 16])
    np.testing.assert_allclose(table["ERR(max_grade=3)"], [1 / 8, 7 / 8])


def test_evaluate_accepts_metric_objects_and_a_single_spec():
    a = _quiet(QRELS, RUN, parse_metric("P@2"))
    b = _quiet(QRELS, RUN, "P@2")
    assert list(a.columns) == list(b.columns) == ["P@2"]
    pd.testing.assert_frame_equal(a, b)


def test_evaluate_when_no_query_is_in_both_inputs():
    # an error, never a table of zeros: the files are most likely not a pair
    for queries in ("run", "qrels"):
        with pytest.raises(ValueError, match=r"no query in common between the judgments \(q1\) and the run \(q2\)"):
            evaluate({"q1": {"a": 1}}, {"q2": {"a": 1.0}}, ["P@1", "num_ret"], queries=queries)


def test_evaluate_labels_below_zero_are_unjudged():
    qrels = {"q": {"a": -1, "b": 1, "c": 0}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    table = evaluate(qrels, run, ["RR", "num_rel", "judged@3", "bpref", "RBP_residual(p=0.5)@3"])
    assert table.loc["q"].to_dict() == pytest.approx(
        {"RR": 0.5, "num_rel": 1, "judged@3": 2 / 3, "bpref": 1.0, "RBP_residual(p=0.5)@3": 0.5 + 0.125})


def test_evaluate_many_queries_matches_row_by_row_scoring():
    rng = np.random.default_rng(7)
    qrels = {f"q{i:03d}": {f"d{j}": int(rng.integers(0, 3)) for j in rng.choice(30, 12, replace=False)}
             for i in range(60)}
    run = {f"q{i:03d}": {f"d{j}": float(rng.integers(0, 5)) for j in rng.choice(30, 15, replace=False)}
           for i in range(60)}
    specs = ["nDCG@10", "AP", "RR", "P@10", "R@5", "bpref", "ERR@10", "RBP(p=0.9)"]
    table = evaluate(qrels, run, specs)
    for qid in ["q000", "q017", "q059"]:
        one = evaluate({qid: qrels[qid]}, {qid: run[qid]}, specs)
        np.testing.assert_allclose(one.loc[qid].drop("ERR@10"), table.loc[qid].drop("ERR@10"), atol=1e-12)


def test_global_rel_sets_binary_rbp_threshold_but_not_graded_rbp():
    table = score([[1, 2, 0]], ["RBP(p=0.5)", "RBP(p=0.5, max_grade=2)"], rel=2)
    assert table.iloc[0].to_dict() == {"RBP(p=0.5)": 0.25, "RBP(p=0.5, max_grade=2)": 0.5}


def test_global_rel_leaves_trec_eval_rbp_alone():
    # trec_eval's rbp ignores -l: labels scaled by the query's largest label (2), p = 0.9
    table = score([[1, 2, 0], [0, 1]], ["rbp", "RBP(p=0.9)"], rel=2)
    assert table["rbp"].tolist() == pytest.approx([0.1 * (0.5 + 0.9), 0.1 * 0.9])
    assert table["RBP(p=0.9)"].tolist() == pytest.approx([0.1 * 0.9, 0.0])


def test_rbp_resid_alias_is_zero_without_unjudged_documents():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"a": 1}, "q3": {"c": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "x": 1.0}}
    table = evaluate(qrels, run, ["rbp_resid", "RBP_residual(p=0.9)"], queries="qrels")
    assert table.loc["q1"].tolist() == pytest.approx([0.0, 0.9**2])  # all judged
    assert table.loc["q2"].tolist() == pytest.approx([0.1 * 0.9 + 0.9**2] * 2)  # x unjudged
    assert table.loc["q3"].tolist() == [0.0, 1.0]  # missing from the run (-c)


@settings(max_examples=sweep(40), deadline=None)
@given(st.lists(st.integers(-1, 2), min_size=1, max_size=12), st.integers(1, 6))
def test_judged_only_spec_equals_evaluating_judged_only(grades, k):
    """``judged_only=True`` on one spec (ir_measures' parameter) equals trec_eval's -J for
    the whole evaluation; -1 in ``grades`` is a retrieved document without judgment."""
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades) if g >= 0} | {"extra": 1}}
    run = {"q": {f"d{i}": float(-i) for i in range(len(grades))}}
    specs = ["AP", f"P@{k}", f"nDCG@{k}", "RR", "bpref", "iprec(recall=0.2)"]
    per_spec = evaluate(qrels, run, [s.replace("@", "(judged_only=True)@", 1) if "@" in s
                                     else (s[:-1] + ", judged_only=True)" if s.endswith(")")
                                           else s + "(judged_only=True)")
                                     for s in specs])
    whole = evaluate(qrels, run, specs, judged_only=True)
    np.testing.assert_array_equal(per_spec.to_numpy(), whole.to_numpy())


def test_evaluate_max_grade_sets_err_for_judgments_in_parts():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 3}}
    run = {"q1": {"a": 1.0, "b": 0.5}}
    with pytest.warns(UserWarning, match="missing from the run"):
        whole = rk.evaluate(qrels, run, ["ERR@2"])  # the largest label (3) of every judged query
    part = rk.evaluate({"q1": qrels["q1"]}, run, ["ERR@2"], max_grade=3)
    assert part.loc["q1", "ERR@2"] == whole.loc["q1", "ERR@2"] == (2**1 - 1) / 2**3
    assert rk.evaluate({"q1": qrels["q1"]}, run, ["ERR@2"]).loc["q1", "ERR@2"] == 0.5  # max grade 1 there
    for bad in (0, -1, float("nan"), "3"):
        with pytest.raises(ValueError, match="max_grade"):
            rk.evaluate(qrels, run, ["ERR@2"], max_grade=bad)


def test_average_ties_with_blocks_or_rankings_left_empty(tmp_path):
    # a run file's block holding no judged query, and -J leaving no document: nothing to
    # average over, the same values as from frames (once a numpy casting error)
    (tmp_path / "q").write_text("q1 0 a 1\n")
    (tmp_path / "r").write_text("q2 Q0 x 1 1.0 t\nq1 Q0 a 1 1.0 t\nq1 Q0 b 2 1.0 t\n")
    with pytest.warns(UserWarning, match="without judgments"):
        from_file = evaluate(tmp_path / "q", tmp_path / "r", ["P@1"], ties="average")
    assert from_file["P@1"].to_dict() == {"q1": 0.5}  # a and b tied: a first in half the orders
    empty = evaluate({"q1": {"a": 1}}, {"q1": {"x": 1.0, "y": 1.0}}, ["P@1"], ties="average", judged_only=True)
    assert empty["P@1"].to_dict() == {"q1": 0.0}


def test_metrics_none_is_a_clear_error():
    with pytest.raises(ValueError, match=r"metrics must be a spec or a list of specs .* got None"):
        evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, None)


def test_a_loop_warns_once_per_line_as_python_would_without_pandas_resetting_it(tmp_path):
    """pandas ends catch_warnings blocks inside every call, which makes Python forget the
    warnings it showed: rankkit keeps its own record, so a sweep warns once per line."""
    import subprocess
    import sys
    import textwrap

    script = tmp_path / "sweep.py"
    script.write_text(textwrap.dedent("""
        import rankkit as rk
        qrels, run = {"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {"a": 1.0}, "q3": {"c": 1.0}}
        for k in (1, 5, 10, 20):
            rk.evaluate(qrels, run, [f"nDCG@{k}"])
        rk.evaluate(qrels, run, ["P@1"])
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    lines = [line for line in done.stderr.splitlines() if "UserWarning" in line]
    assert [line.split(":")[1] for line in lines] == ["5", "5", "6", "6"], done.stderr
    with warnings.catch_warnings(record=True) as caught:  # "always" is followed
        warnings.simplefilter("always")
        for _ in range(3):
            evaluate({"q1": {"a": 1}}, {"q2": {"b": 1.0}, "q1": {"a": 1.0}}, ["P@1"])
    assert len(caught) == 3


def test_labels_that_are_not_whole_numbers_are_warned_about():
    qrels, run = {"q1": {"a": 0.5, "b": 1}}, {"q1": {"a": 1.0, "b": 0.5}}
    with pytest.warns(UserWarning, match=r"1 judged label\(s\) are not whole numbers \(e.g. 0.5\).*rel \(1\)"):
        table = evaluate(qrels, run, ["P@1"])
    assert table["P@1"].tolist() == [0.0]  # 0.5 < rel: not relevant, as the warning says
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate({"q1": {"a": 2, "b": 1}}, run, ["P@1"])  # whole labels: no word


def test_aggregate_refuses_the_per_query_frame_of_a_pooled_score_metric():
    """AUC pools every row, PNR every pair, GAUC weights queries: their all value is not the
    mean of the per-query values, and rk.aggregate of that frame would silently give it."""
    labels, scores = np.array([1, 0, 1, 0, 1, 0]), np.array([0.9, 0.8, 0.3, 0.4, 0.5, 0.7])
    table = rk.evaluate_scores(labels, scores, np.array([1, 1, 2, 2, 3, 3]), metrics=["AUC", "PNR", "GAUC"])
    frame = table.to_frame(all=False)
    assert frame["AUC"].mean() != float(table.all["AUC"])  # the two numbers differ here
    for metric in ("AUC", "PNR", "GAUC"):
        with pytest.raises(ValueError, match=rf"{metric}'s all value is .* take it from the ScoreTable"):
            rk.aggregate(frame[[metric]])
    assert rk.aggregate(table).to_dict() == {m: float(v) for m, v in table.all.items()}
