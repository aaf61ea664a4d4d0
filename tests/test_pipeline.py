"""The one pipeline of every run: a run scored in parts and merged equals the run scored whole."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rankkit as rk
from rankkit.evaluation.pipeline import QueryJudgments, RunBlock, merged, score_run
from rankkit.evaluation.scoring import expand_metrics, measure
from rankkit.evaluation.settings import Settings
from rankkit.join import Matched

QRELS = {"10": {"a": 1, "b": 2}, "2": {"c": 1}, "7": {"x": 1}, "3": {"d": 0}}
RUN = pd.DataFrame({"query_id": ["2", "2", "10", "10", "9", "3"],
                    "doc_id": ["c", "z", "b", "a", "q", "d"],
                    "score": [3.0, 2.0, 5.0, 4.0, 1.0, 1.0]})
METRICS = ["RR", "nDCG@2", "num_ret"]


def _scored_in(shares: list[set], queries: str):
    """The run and the judgments split by query into ``shares``, each share scored apart,
    then merged, as rankkit.dask scores its partitions (both shuffled by query)."""
    settings = Settings.of(None, queries=queries)
    specs = expand_metrics(METRICS)
    matched = Matched()
    scored = []
    for share in shares:
        qrels = rk.read_qrels({q: docs for q, docs in QRELS.items() if q in share})
        part = RUN[RUN.query_id.isin(share)]
        scored.append(score_run(QueryJudgments.of_frame(qrels), RunBlock.whole_run(rk.read_run(part)),
                                lambda r: measure(specs)(r, settings), settings, matched=matched))
    return merged(scored, queries, matched)


SHARES = [[{"2", "10", "7"}, {"9", "3"}], [{"2"}, {"10", "9"}, {"7", "3"}], [{"2", "10", "7", "9", "3"}]]


@pytest.mark.parametrize("queries", ["run", "qrels"])
@pytest.mark.parametrize("shares", SHARES)
def test_a_run_scored_in_parts_and_merged_equals_the_whole(queries, shares):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        whole = rk.evaluate(QRELS, RUN, METRICS, queries=queries)
    expected_warnings = sorted(str(w.message) for w in caught)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scored = _scored_in(shares, queries)
    assert scored.ids == whole.index.tolist()
    for column in METRICS:
        np.testing.assert_array_equal(scored.values[column], whole[column].to_numpy())
    assert scored.unscored == whole.attrs["unscored"]
    assert sorted(str(w.message) for w in caught) == expected_warnings
    ids, in_run, in_qrels = scored.flags
    assert ids.tolist() == sorted(ids.tolist(), key=lambda q: q.encode())  # trec_eval's order
    assert dict(zip(ids.tolist(), in_run.tolist()))["9"] and not dict(zip(ids.tolist(), in_qrels.tolist()))["9"]
    assert not dict(zip(ids.tolist(), in_run.tolist()))["7"]


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_the_commands_reader_names_a_duplicates_lines_without_reading_frames(tmp_path, monkeypatch, capsys, kind):
    """The command's reader of arrays and the frames' readers share one duplicate check and
    one message: the command no longer falls back to frames to name the lines."""
    from rankkit.cli import main
    from rankkit.io import readers

    lines = {"qrels": "q1 0 a 1\nq2 0 b 1\nq1 0 c 0\nq1 0 a 0\n",
             "run": "q1 Q0 a 1 0.9 t\nq1 Q0 c 2 0.5 t\nq2 Q0 b 1 0.7 t\nq2 Q0 d 2 0.6 t\nq2 Q0 b 3 0.1 t\n"}
    other = {"qrels": "q1 Q0 a 1 0.9 t\n", "run": "q1 0 a 1\nq2 0 b 1\n"}
    (tmp_path / kind).write_text(lines[kind])
    (tmp_path / "other").write_text(other[kind])
    files = [str(tmp_path / kind), str(tmp_path / "other")]

    def no_frames(*args, **kwargs):
        raise AssertionError("read as frames")

    monkeypatch.setattr(readers, "_from_file", no_frames)
    assert main(["evaluate", *(files if kind == "qrels" else files[::-1]), "-m", "P@5"]) == 2
    twice = {"qrels": f"{files[0]} lines 1 and 4: document 'a' is judged twice for query 'q1'",
             "run": f"{files[0]} lines 3 and 5: document 'b' is retrieved twice for query 'q2'"}
    assert twice[kind] in capsys.readouterr().err


def test_a_run_given_as_judgments_is_told_to_swap_the_arguments():
    run = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    qrels = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(ValueError, match=r"missing relevance; .*\(it looks like a run: swap the arguments, "
                                         r"the judgments first\)"):
        rk.evaluate(run, qrels, ["AP"])
    with pytest.raises(ValueError, match=r"\(name yours with columns=\{'yours': 'score'\}\)"):
        rk.evaluate(qrels, qrels.rename(columns={"relevance": "x"}), ["AP"])


def test_diversity_measures_on_judgments_without_subtopics_say_so():
    plain = {"q": {"a": 1, "b": 0}}
    with pytest.warns(UserWarning, match="diversity measures on judgments without subtopics count one intent per "
                                         "query: read subtopic judgments .* with rk.read_subtopic_qrels"):
        rk.evaluate(plain, {"q": {"a": 1.0, "b": 0.5}}, ["alpha_nDCG@5"])
    subtopics = rk.read_subtopic_qrels(pd.DataFrame({"query_id": ["q", "q"], "subtopic_id": ["1", "2"],
                                                     "doc_id": ["a", "b"], "relevance": [1, 1]}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # with subtopics: no word
        table = rk.evaluate(subtopics, {"q": {"a": 1.0, "b": 0.5}}, ["alpha_nDCG@5"])
    assert table.loc["q", "alpha_nDCG@5"] == 1.0
