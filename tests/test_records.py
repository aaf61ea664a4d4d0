"""The metric records: one per metric, and the invalid-parameter tests generated from them.

For every record, every parameter and every kind of bad value its declaration implies
(wrong type, out of range, not a choice, NaN or infinity, None where not allowed), the spec
is refused when parsed and the metric function refuses the value too, each with a message
naming the parameter; an unknown parameter and a missing required one are refused as well.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import rankkit as rk
from rankkit.names import (
    IR_MEASURES,
    NAME_ALIASES,
    NICKNAMES,
    REGISTRY,
    TREC_FAMILIES,
    TREC_ORDER,
    Metric,
    MetricInfo,
    Param,
    metric_help,
    parameter_table,
    parse_metric,
)
from rankkit.names.metric import make_metric

LABELS = np.array([[2.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
#: A recommender's lists, for the measures computed from them (``judgments="interactions"``).
RECS = rk.recommendations({"u1": {"a": 2, "b": 1}, "u2": {"a": 2, "c": 1}}, [("u1", "a"), ("u2", "b"), ("u2", "c")],
                          features={"a": [1, 0], "b": [0, 1], "c": [1, 1]})


def _function(info: MetricInfo):
    """The function computing a record's metric: its ``func``, or for the recommender
    measures (``func`` None, a layer above the records) ``rk.<name>``."""
    return info.func if info.func is not None else getattr(rk, info.name)


def _base(info: MetricInfo, param: str) -> dict:
    """Values the record needs besides ``param`` (iprec's recall)."""
    return {p: 0.5 for p in info.required if p not in ("k", param)}


def _k(info: MetricInfo) -> int | None:
    return 3 if "k" in info.required else None


def _spec(name: str, params: dict, k: int | None, raw: dict | None = None) -> str:
    """A spec with ``params`` (repr) and ``raw`` (text as written, e.g. 1e999)."""
    args = [f"{p}={v!r}" for p, v in params.items()] + [f"{p}={t}" for p, t in (raw or {}).items()]
    return name + (f"({', '.join(args)})" if args else "") + (f"@{k}" if k is not None else "")


def _bad_values(param: Param) -> list[tuple[str, str, object]]:
    """(kind, text as a spec writes it, value) for every bad kind of value ``param`` implies."""
    bad: list[tuple[str, str, object]] = []
    if param.type in ("number", "integer", "levels"):
        bad += [("wrong type", "'x'", "x"), ("nan", "", math.nan), ("inf", "1e999", math.inf),
                ("-inf", "-1e999", -math.inf)]
        if param.type == "integer":
            bad.append(("not an integer", "1.5", 1.5))
        if param.low is not None:
            below = param.low if param.low_open else param.low - 0.5
            below = int(below) - (0 if param.low_open else 1) if param.type == "integer" else below
            bad.append(("below range", repr(below), below))
        if param.high is not None:
            above = param.high if param.high_open else param.high + 0.5
            bad.append(("above range", repr(above), above))
    elif param.type == "text":
        bad += [("not a choice", "'nope'", "nope"), ("wrong type", "1", 1)]
    elif param.type == "bool":
        bad += [("wrong type", "'x'", "x"), ("wrong type", "1", 1)]
    elif param.type == "gain":
        bad += [("not a choice", "'nope'", "nope"), ("wrong type", "1.5", 1.5),
                ("below range", "{-1: 1}", {-1: 1}), ("nan", "", {1: math.nan})]
    if not param.none:
        bad.append(("None", "None", None))
    return bad


CASES = [
    pytest.param(name, param, kind, text, value, id=f"{name}-{param.name}-{kind}-{text or value!r}")
    for name, info in REGISTRY.items()
    for param in info.parameters
    for kind, text, value in _bad_values(param)
]


def test_cases_cover_every_parameter():
    assert len(CASES) > 300
    covered = {(name, param.name) for name, param, *_ in (case.values for case in CASES)}
    assert covered == {(name, p.name) for name, info in REGISTRY.items() for p in info.parameters}


@pytest.mark.parametrize("name, param, kind, text, value", CASES)
def test_a_bad_value_is_refused_when_parsed(name, param, kind, text, value):
    info = REGISTRY[name]
    params, k = _base(info, param.name), _k(info)
    if text:  # as written in a spec
        spec = _spec(name, params, k, {param.name: text})
        with pytest.raises(ValueError, match=param.name) as caught:
            parse_metric(spec)
        assert str(caught.value).startswith(f"metric {spec}: ")
    else:  # NaN has no literal: the record's check, as parse_metric calls it
        with pytest.raises(ValueError, match=param.name):
            make_metric(name, {**params, param.name: value}, k, name)


@pytest.mark.parametrize("name, param, kind, text, value", CASES)
def test_the_metric_function_refuses_it_too(name, param, kind, text, value):
    info = REGISTRY[name]
    params = {**_base(info, param.name), param.name: value}
    if param.name == "min_grade":
        params["max_grade"] = 5
    if info.judgments == "interactions":
        with pytest.raises((ValueError, TypeError), match=param.name):
            _function(info)(RECS, **params)
        return
    metric = Metric(name, tuple(params.items()), _k(info))
    with pytest.raises((ValueError, TypeError), match=param.name):
        metric(LABELS)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_an_unknown_parameter_is_refused(name):
    info = REGISTRY[name]
    spec = _spec(name, {**_base(info, ""), "bogus": 1}, _k(info))
    with pytest.raises(ValueError, match=r"does not take parameter\(s\) bogus"):
        parse_metric(spec)


@pytest.mark.parametrize("name", [n for n, info in REGISTRY.items() if info.required])
def test_a_missing_required_parameter_is_refused(name):
    info = REGISTRY[name]
    for missing in info.required:
        params = {p: 0.5 for p in info.required if p not in ("k", missing)}
        k = None if missing == "k" else _k(info)
        needed = "a cutoff @k" if missing == "k" else rf"parameter\(s\) {missing}"
        with pytest.raises(ValueError, match=needed):
            parse_metric(_spec(name, params, k))


@pytest.mark.parametrize("name, param", [(n, p) for n, info in REGISTRY.items() for p in info.parameters])
def test_the_default_is_accepted_and_is_the_function_default(name, param):
    info = REGISTRY[name]
    if param.default is not None:
        spec = _spec(name, {**_base(info, param.name), param.name: param.default}, _k(info))
        assert parse_metric(spec).kwargs[param.name] == param.default
    signature = inspect.signature(_function(info)).parameters
    if param.name in signature and param.name not in info.required:
        assert signature[param.name].default == param.default


@pytest.mark.parametrize("spec", ["RBP(p=2)", "AP(normalize='nope')@5", "nDCG(gain='x')@10", "SDCG(depth=0)@5",
                                  "iprec(recall=1.5)", "utility(n_docs=-1)"])
def test_evaluate_names_the_spec_and_the_parameter(spec):
    name = spec.split("(")[0]
    param = spec.split("(")[1].split("=")[0]
    with pytest.raises(ValueError, match=rf"^metric {spec.replace('(', '[(]').replace(')', '[)]')}: .*{param}"):
        rk.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [spec])
    assert name in REGISTRY


def test_a_trec_eval_list_names_its_column():
    with pytest.raises(ValueError, match=r"^metric rbp_p=2: p must be in \(0, 1\), got 2.0$"):
        rk.names.expand_metrics("rbp.p=2")
    with pytest.raises(ValueError, match=r"^metric iprec_at_recall_1.5: recall_levels must be in \[0, 1\]"):
        parse_metric("iprec_at_recall_1.5")


# --------------------------------------------------------------------------- the tables derived from the records


def test_trec_order_is_trec_eval_10s_measure_table():
    assert TREC_ORDER == (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
        "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
        "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
        "num_nonrel_judged_ret", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
        "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
        "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
        "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj",
    )
    assert set(TREC_ORDER) == set(TREC_FAMILIES)
    # trec_eval's all_trec holds the measures of relevance judgments, less dcg, ideal_dcg and yaap
    assert NICKNAMES["all_trec"] == tuple(m for m in TREC_ORDER if m not in ("dcg", "ideal_dcg", "yaap")
                                          and REGISTRY[TREC_FAMILIES[m][0]].judgments == "qrels")
    for nick in NICKNAMES:
        assert set(NICKNAMES[nick]) <= set(TREC_ORDER), nick
    assert NICKNAMES["all_prefs"][2:] == tuple(m for m in TREC_ORDER if m.startswith("prefs_"))
    assert NICKNAMES["qrels_jg"] == ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")


def test_names_tables_come_from_the_records():
    assert NAME_ALIASES == {"recip_rank": "RR", "MRR": "RR", "R-prec": "Rprec", "R_prec": "Rprec",
                            "Precision": "P", "Recall": "R", "coverage": "catalog_coverage",
                            "entropy": "exposure_entropy", "gini": "gini_index", "long_tail": "long_tail_share",
                            "ILD": "intra_list_diversity"}
    assert IR_MEASURES["NDCG"] == "nDCG" and IR_MEASURES["NumRelRet"] == "num_rel_ret" and len(IR_MEASURES) == 48
    for name, info in REGISTRY.items():
        assert info.name == name
        assert all(IR_MEASURES[n] == name for n in info.ir_measures)
        assert all(TREC_FAMILIES[t.name] == (name, t) for t in info.trec)
        assert info.params == tuple(p.name for p in info.parameters)


def test_every_parameter_is_typed_and_described():
    for info in REGISTRY.values():
        for param in info.parameters:
            assert param.type in ("number", "integer", "text", "bool", "gain", "levels")
            assert param.description and param.range
            assert param.type != "text" or param.default in param.choices or (param.none and param.default is None)


def test_help_and_documentation_render_every_record():
    text = metric_help()
    rows = parameter_table()
    assert len(rows) == sum(len(info.parameters) for info in REGISTRY.values())
    assert set(rows[0]) == {"metric", "name", "type", "default", "range", "description"}
    for name, info in REGISTRY.items():
        assert f"  {name}" in text and info.summary in text
    assert "p=0.8: number (0, 1); persistence" in text
    assert "gain='linear': gain 'linear' | 'exp' | {label: gain}" in text


# --------------------------------------------------------------------------- what each record is computed from


def test_each_record_says_what_it_is_computed_from():
    kinds = {}
    for name, info in REGISTRY.items():
        kinds.setdefault(info.judgments, []).append(name)
        assert (info.func is None) == (info.judgments == "interactions"), name
    assert set(kinds) == {"qrels", "prefs", "qrels_jg", "interactions"}
    assert len(kinds["prefs"]) == 14 and kinds["qrels_jg"] == ["map_avgjg", "P_avgjg", "Rprec_mult_avgjg"]
    assert kinds["interactions"] == ["catalog_coverage", "exposure_entropy", "gini_index", "average_popularity",
                                     "long_tail_share", "novelty", "intra_list_diversity", "serendipity"]
    for name in [*kinds["prefs"], *kinds["qrels_jg"]]:
        assert all(not t.all_trec for t in REGISTRY[name].trec), name  # trec_eval's all_trec leaves them out
    with pytest.raises(ValueError, match="func is None for the interactions measures, and only for them"):
        MetricInfo("x", None)
    with pytest.raises(ValueError, match="judgments must be one of"):
        MetricInfo("x", len, judgments="votes")


@pytest.mark.parametrize("name", [n for n, info in REGISTRY.items() if info.judgments != "qrels"])
def test_evaluate_refuses_the_metrics_of_other_judgments_in_one_line(name):
    info = REGISTRY[name]
    spec = name + ("@5" if info.cutoff else "")
    with pytest.raises(ValueError) as caught:
        rk.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [spec])
    message = str(caught.value)
    assert message.startswith(f"metric {spec} needs ") and "\n" not in message
    assert ("rk.read_prefs(path" in message) == (info.judgments in ("prefs", "qrels_jg"))
    assert (f"rk.{name}(rk.recommendations(run, train), k=5)" in message) == (info.judgments == "interactions")


def test_help_says_what_the_other_metrics_are_computed_from():
    text = metric_help()
    prefs = text[text.index("  prefs_simp "):].splitlines()
    assert prefs[1].strip() == "also: trec_eval prefs_simp"
    assert prefs[2].strip().startswith("from preference judgments: rk.evaluate(rk.read_prefs(path), run, [...])")
    novelty = text[text.index("  novelty[@k] "):].splitlines()
    assert novelty[1].strip().startswith("from a recommender's lists: rk.novelty(rk.recommendations(run, train))")
