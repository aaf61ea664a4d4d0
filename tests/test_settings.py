"""Tests for rankkit.evaluation.settings: the options of an evaluation, checked once."""

import dataclasses

import numpy as np
import pytest

import rankkit as rk
from rankkit.evaluation.settings import QUERY_POLICIES, TIE_POLICIES, Settings
from rankkit.evaluation.stream import DEFAULT_MEMORY
from rankkit.trec_eval import evaluate_like_trec_eval, trec_measures

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
RUN = {"q1": {"a": 0.9, "b": 0.8}, "q2": {"c": 1.0}}


def test_defaults_are_the_public_defaults():
    s = Settings()
    assert (s.ties, s.queries, s.depth, s.rel, s.judged_only, s.n_docs, s.max_grade, s.columns, s.progress) == (
        "docno", "run", None, None, False, None, None, None, False)
    assert s.memory == DEFAULT_MEMORY
    assert TIE_POLICIES == ("docno", "optimistic", "pessimistic", "average") and QUERY_POLICIES == ("run", "qrels")


def test_values_are_normalised():
    s = Settings(depth=np.int64(5), rel=2, judged_only=np.bool_(True), memory="1MB")
    assert s.depth == 5 and type(s.depth) is int
    assert s.rel == 2.0 and type(s.rel) is float
    assert s.judged_only is True
    assert s.memory == 10**6


def test_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Settings().ties = "average"


def test_with_max_grade_only_where_none_was_given():
    assert Settings().with_max_grade(3.0).max_grade == 3.0
    given = Settings(max_grade=2)
    assert given.with_max_grade(3.0) is given


BAD = [
    ({"ties": "random"}, "ties must be one of"),
    ({"queries": "all"}, "queries must be one of"),
    ({"depth": 0}, "depth must be a positive integer or None, got 0"),
    ({"rel": -1}, "rel must be a positive number, got -1"),
    ({"judged_only": "yes"}, "judged_only must be True or False, got 'yes'"),
    ({"max_grade": 0}, "max_grade must be a positive number, got 0"),
    ({"memory": "lots"}, "memory must be a size such as 600MB"),
    ({"n_docs": -1}, "n_docs must be a non-negative integer, got -1"),
    ({"n_docs": 2.5}, "n_docs must be a non-negative integer, got 2.5"),
    ({"columns": ["topic"]}, "columns must be a mapping of column names"),
]


@pytest.mark.parametrize(("options", "message"), BAD)
def test_each_option_is_refused_with_its_name(options, message):
    with pytest.raises(ValueError, match=message):
        Settings(**options)


@pytest.mark.parametrize(("options", "message"), [b for b in BAD if "memory" not in b[0]])
def test_the_entry_points_refuse_alike(options, message):
    """rk.evaluate, rk.rank and trec_eval's printer build one Settings: the same messages."""
    with pytest.raises(ValueError, match=message):
        rk.evaluate(QRELS, RUN, ["P@1"], **options)
    rank_options = {k: v for k, v in options.items() if k in ("ties", "depth", "rel", "judged_only")}
    if rank_options:
        with pytest.raises(ValueError, match=message):
            rk.rank(QRELS, RUN, **rank_options)
    trec_options = {k: v for k, v in options.items() if k in ("ties", "depth", "rel", "judged_only")}
    if trec_options:
        with pytest.raises(ValueError, match=message):
            evaluate_like_trec_eval(QRELS, RUN, trec_measures(["P.1"]), **trec_options)


def test_evaluate_takes_the_settings_object_or_its_keywords():
    import warnings
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    qrels, run = root / "data" / "example.qrels", root / "data" / "example.run"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_keywords = rk.evaluate(qrels, run, ["P@5", "nDCG@10"], ties="average", depth=20, rel=2)
        by_object = rk.evaluate(qrels, run, ["P@5", "nDCG@10"], settings=rk.Settings(ties="average", depth=20, rel=2))
        plain = rk.evaluate(qrels, run, ["P@5", "nDCG@10"])
    assert by_object.equals(by_keywords)
    assert not by_object.equals(plain)  # the settings were applied
    with pytest.raises(ValueError, match="either as keywords or in settings=, not both .depth given"):
        rk.evaluate(qrels, run, ["P@5"], settings=rk.Settings(ties="average"), depth=20)
    with pytest.raises(TypeError, match="settings must be a rankkit.Settings, got dict"):
        rk.evaluate(qrels, run, ["P@5"], settings={"ties": "average"})


# --------------------------------------------------------------------------- options declared once

ENTRY_POINTS = {  # each entry point taking the options, and the fields it leaves out
    "rankkit.evaluate": ("memory_in_use",),
    "rankkit.evaluation.evaluate": ("memory_in_use",),
    "rankkit.trec_eval.evaluate_like_trec_eval": ("memory_in_use",),
    "rankkit.trec_eval.trec_eval_text": ("memory_in_use",),
    "rankkit.dask.evaluate": ("memory", "progress", "memory_in_use"),
}


def _entry(path: str):
    import importlib

    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("path", sorted(ENTRY_POINTS))
def test_every_entry_point_takes_every_option_from_the_one_declaration(path):
    """The keywords each entry point shows are the fields of Settings (but those it leaves
    out), with Settings' defaults: a field added to Settings is a keyword everywhere, with
    no signature to change (then only the command line declares its flag)."""
    import inspect

    parameters = inspect.signature(_entry(path)).parameters
    wanted = [f for f in dataclasses.fields(Settings) if f.name not in ENTRY_POINTS[path]]
    assert {f.name: f.default for f in wanted}.items() <= {n: p.default for n, p in parameters.items()}.items()
    assert not set(ENTRY_POINTS[path]) & set(parameters)
    assert list(parameters)[-1] == "settings" or "settings" in parameters


def test_an_unknown_option_is_refused_with_a_suggestion():
    with pytest.raises(TypeError, match=r"unknown option tie= \(did you mean ties=\?\)"):
        rk.evaluate(QRELS, RUN, ["P@1"], tie="average")
    with pytest.raises(TypeError, match="takes no memory= option"):
        _entry("rankkit.dask.evaluate")(QRELS, RUN, ["P@1"], memory="1GB")


def test_every_input_kind_takes_the_one_pipeline(tmp_path, monkeypatch):
    """Dicts, frames, a TREC run file read in blocks, the command's arrays and Dask
    partitions: each is scored by rankkit.evaluation.pipeline.score_run, with the same values."""
    import warnings

    import pandas as pd

    from rankkit.evaluation import pipeline
    from rankkit.trec_eval import trec_eval_text

    calls = []
    real = pipeline.score_run

    def spy(judgments, blocks, measure, settings, **kwargs):
        scored = real(judgments, blocks, measure, settings, **kwargs)
        calls.append(scored)
        return scored

    for module in ("scoring", "stream", "pipeline"):
        monkeypatch.setattr(f"rankkit.evaluation.{module}.score_run", spy)
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"{q} 0 {d} {v}\n" for q, docs in QRELS.items() for d, v in docs.items()))
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in RUN.items() for d, s in docs.items()))
    frame = pd.DataFrame([(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
                         columns=["query_id", "doc_id", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tables = [rk.evaluate(QRELS, run, ["P@1", "AP"]) for run in (RUN, frame, run_path)]
        text = trec_eval_text(qrels_path, run_path, trec_measures(["P.1", "map"]))
    assert len(calls) == 4
    for table in tables[1:]:
        pd.testing.assert_frame_equal(table, tables[0])
    assert [c.values["P_1"].tolist() for c in calls[3:]] == [tables[0]["P@1"].tolist()]
    assert "P_1                   \tall\t1.0000" in text
