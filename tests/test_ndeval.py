"""``rankkit ndeval`` and the subtopic judgments' readers: ndeval's own outputs byte for byte
(tests/data/ndeval, with its README), the ndeval binary when on PATH, pyndeval on random
inputs, and every error message."""

from __future__ import annotations

import io
import random
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import rankkit as rk
from rankkit.cli import main
from rankkit.io.subtopics import read_ndeval_run, read_subtopic_qrels
from rankkit.ndeval import NDEVAL_COLUMNS, ndeval

DATA = Path(__file__).parent / "data" / "ndeval"

#: ndeval's output files and the options that made them (see tests/data/ndeval/README.md).
OUTPUTS = {
    "example.ndeval": ("example", []),
    "example.c.ndeval": ("example", ["-c"]),
    "random3.ndeval": ("random3", []),
    "random3.traditional.ndeval": ("random3", ["-traditional"]),
    "random11.ndeval": ("random11", []),
    "random11.alpha0.3.beta0.7.M10.ndeval": ("random11", ["-alpha", "0.3", "-beta", "0.7", "-M", "10"]),
    "ties.ndeval": ("ties", []),
    "latin1.ndeval": ("latin1", []),
    "random3.baseline.ndeval": ("random3", ["-baseline", str(DATA / "random3.baseline.run")]),
    "random3.baseline.c.riskAlpha0.50.ndeval": ("random3", ["-c", "-riskAlpha", "0.50", "-baseline",
                                                             str(DATA / "random3.baseline.run")]),
}


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    status = main(["ndeval", *argv], out=out)
    return status, out.getvalue()


@pytest.mark.parametrize("output", list(OUTPUTS))
def test_ndeval_outputs_byte_for_byte(output):
    stem, flags = OUTPUTS[output]
    status, text = _cli(*flags, str(DATA / f"{stem}.qrels"), str(DATA / f"{stem}.run"))
    assert status == 0
    assert text == (DATA / output).read_text()


def test_the_table_by_its_rules():
    table = ndeval(DATA / "example.qrels", DATA / "example.run")
    assert table.attrs["runid"] == "myrun"  # the first line's tag
    assert list(table.columns) == list(NDEVAL_COLUMNS)
    assert list(table.index) == [1, 2, 4, "amean"]  # run topics; 3 is judged only
    assert (table.loc[4] == 0).all()  # no judgments: zeros, left out of the mean
    assert np.isnan(table.loc[2, "nNRBP"]) and (table.loc[2].drop("nNRBP") == 0).all()  # no relevant document
    assert table.loc["amean", "ERR-IA@5"] == table.loc[1, "ERR-IA@5"] / 2  # topics 1 and 2
    every = ndeval(DATA / "example.qrels", DATA / "example.run", all_topics=True)
    assert every.loc["amean", "ERR-IA@5"] == table.loc[1, "ERR-IA@5"] / 3  # -c: the three judged topics


def test_the_values_are_rk_evaluates():
    qrels = read_subtopic_qrels(DATA / "random3.qrels")
    _, run = read_ndeval_run(DATA / "random3.run")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = rk.evaluate(qrels, run, ["alpha_nDCG@20", "ERR_IA@10", "AP_IA"])
    table = ndeval(DATA / "random3.qrels", DATA / "random3.run")
    for topic in values.index:
        assert values.loc[topic].tolist() == table.loc[int(topic), ["alpha-nDCG@20", "ERR-IA@10", "MAP-IA"]].tolist()


# --------------------------------------------------------------------------- random runs


def _random_files(seed: int, folder: Path) -> tuple[Path, Path]:
    """Judgments and a run with ndeval's features: numeric topics (some with a task prefix),
    subtopics 0-8, judgments 0-2, rank gaps, tied scores, topics of one file only."""
    rng = random.Random(seed)
    qrels, run = [], []
    for topic in rng.sample(range(1, 300), 6):
        docs = [f"doc-{rng.randrange(10 ** 4):04d}-{i:03d}" for i in range(30)]
        subtopics = rng.sample(range(9), rng.randrange(1, 6))
        qrels += [f"{topic} {s} {d} {rng.choice([0, 0, 1, 1, 2])}" for d in rng.sample(docs, rng.randrange(30))
                  for s in subtopics if rng.random() < 0.5]
        if rng.random() < 0.9:
            retrieved = rng.sample(docs, rng.randrange(1, 25))
            ranks = rng.sample(range(1, 80), len(retrieved))
            run += [f"{rng.choice(['', 'wt09-'])}{topic} Q0 {d} {k} {rng.choice([0.5, round(rng.random(), 2)])} r{seed}"
                    for d, k in zip(retrieved, ranks)]
    rng.shuffle(qrels)
    (folder / "qrels").write_text("\n".join(qrels or ["1 1 x 0"]) + "\n")
    (folder / "run").write_text("\n".join(run or ["1 Q0 x 1 1.0 r"]) + "\n")
    # a baseline: the run's documents in another order, one topic left out, one judged topic added
    lines = [line.split() for line in run or ["1 Q0 x 1 1.0 r"]]
    left_out = rng.choice(lines)[0]
    base = [f"{t} Q0 {d} {i + 1} {rng.random():.3f} base" for i, (t, _, d, *_) in enumerate(lines) if t != left_out]
    (folder / "base").write_text("\n".join(base + [f"{qrels[0].split()[0] if qrels else 1} Q0 new 0 1 base"]) + "\n")
    return folder / "qrels", folder / "run"


@pytest.mark.skipif(shutil.which("ndeval") is None, reason="the ndeval binary is not on PATH")
@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("flags", [[], ["-traditional"], ["-c", "-M", "7"], ["-alpha", "0.3", "-beta", "0.9"],
                                   ["-baseline", "base", "-riskAlpha", "1"], ["-c", "-baseline", "base"]])
def test_random_runs_against_the_ndeval_binary(seed, flags, tmp_path):
    qrels, run = _random_files(seed, tmp_path)
    flags = [str(tmp_path / flag) if flag == "base" else flag for flag in flags]
    expected = subprocess.run(["ndeval", *flags, str(qrels), str(run)], capture_output=True, text=True, check=True)
    status, text = _cli(*flags, str(qrels), str(run))
    assert status == 0 and text == expected.stdout


subtopic_judgments = st.lists(st.tuples(st.sampled_from("123"), st.sampled_from("0123"), st.sampled_from("abcdefgh"),
                                        st.sampled_from([0, 1, 2])),
                              min_size=1, max_size=40, unique_by=lambda row: row[:3])
ranked = st.lists(st.tuples(st.sampled_from("1234"), st.sampled_from("abcdefghxy")), max_size=40,
                  unique=True).map(lambda rows: [(q, d, float(len(rows) - i)) for i, (q, d) in enumerate(rows)])


@settings(max_examples=60, deadline=None)
@given(subtopic_judgments, ranked)
def test_random_inputs_against_pyndeval(judgments, run):
    pyndeval = pytest.importorskip("pyndeval")
    assume({q for q, _, _ in run} & {q for q, _, _, _ in judgments})  # rk.evaluate refuses files with none
    measures = ["ERR-IA@1", "ERR-IA@5", "nERR-IA@20", "alpha-DCG@2", "alpha-nDCG@10", "NRBP", "nNRBP", "MAP-IA",
                "P-IA@5", "strec@10"]
    specs = ["ERR_IA@1", "ERR_IA@5", "nERR_IA@20", "alpha_DCG@2", "alpha_nDCG@10", "NRBP", "nNRBP", "AP_IA",
             "P_IA@5", "StRecall@10"]
    theirs = pyndeval.ndeval(judgments, sorted(run, key=lambda row: row[0]), measures=measures)  # grouped by query
    frame = pd.DataFrame(judgments, columns=["query_id", "subtopic_id", "doc_id", "relevance"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = rk.evaluate(frame, {q: {d: s for qq, d, s in run if qq == q} for q, _, _ in run}, specs)
    assert sorted(ours.index) == sorted(theirs)
    for query, values in theirs.items():
        for measure, spec in zip(measures, specs):
            expected = 0.0 if np.isnan(values[measure]) else values[measure]  # nNRBP's 0 / 0
            assert ours.loc[query, spec] == pytest.approx(expected, abs=1e-12), (query, measure)


# --------------------------------------------------------------------------- reading and errors


def test_subtopic_judgments_from_every_shape_are_the_same(tmp_path):
    path = DATA / "example.qrels"
    from_file = read_subtopic_qrels(path)
    nested = {}
    for row in from_file.itertuples():
        nested.setdefault(row.query_id, {}).setdefault(row.subtopic_id, {})[row.doc_id] = row.relevance
    pd.testing.assert_frame_equal(read_subtopic_qrels(nested), from_file, check_like=True)
    pd.testing.assert_frame_equal(read_subtopic_qrels(from_file.copy()), from_file)
    assert from_file.attrs["name"] == str(path)
    assert from_file.relevance.dtype == np.int64 and len(from_file) == 7


@pytest.mark.parametrize("text, message", [
    ("1 1 d1 1\n1 1 d2\n", r"bad line 2: expected 4 columns 'topic subtopic docno judgment', got 3"),
    ("1 1 d1 1\n1  d2 1\n", r"bad line 2: expected 4 columns 'topic subtopic docno judgment', got 3"),
    ("1 1 d1 1\n\n1 1 d2 1\n", r"bad line 2: expected 4 columns 'topic subtopic docno judgment', got 0"),
    ("1 Q0 d1 1 2.5 run\n", r"bad line 1: expected 4 columns .*got 6 \(a run line\?\)"),
    ("1 1 d1 1\n1 1 d2 x\n", r"bad line 2: judgment must be an integer, got 'x'"),
    ("1 1 d1 1\n1 2 d1 0\n1 1 d1 0\n", r"bad: document 'd1' judged twice for query '1', subtopic '1' \(lines 1, 3\)"),
    ("", r"bad: empty file"),
])
def test_bad_subtopic_judgments(tmp_path, text, message):
    path = tmp_path / "bad"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_subtopic_qrels(path)


def test_bad_subtopic_frames_and_dicts():
    with pytest.raises(ValueError, match="needs the columns query_id, subtopic_id, doc_id, relevance; missing "
                                         "subtopic_id"):
        read_subtopic_qrels(pd.DataFrame({"query_id": [1], "doc_id": ["a"], "relevance": [1]}))
    with pytest.raises(ValueError, match=r"relevance must be an integer, got 0.5 in row 0"):
        read_subtopic_qrels(pd.DataFrame({"query_id": [1], "subtopic_id": [1], "doc_id": ["a"], "relevance": [0.5]}))
    with pytest.raises(ValueError, match=r"query '1', subtopic 'a' must map doc ids to judgments, got int"):
        read_subtopic_qrels({"1": {"a": 1}})
    with pytest.raises(ValueError, match="must be a file path, a DataFrame or a dict"):
        read_subtopic_qrels(3)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_subtopic_qrels("no/such/file")


@pytest.mark.parametrize("text, message", [
    ("1 Q0 d1 1 2.5\n", r"run line 1: expected 6 columns 'topic Q0 docno rank score tag', got 5"),
    ("1 Q0 d1 1 2 r\n1  d2 2 1 r\n", r"run line 2: expected 6 columns 'topic Q0 docno rank score tag', got 5"),
    ("1 Q0 d1 1 2 r\n1 Q0 d2 2 1 \n", r"run line 2: expected 6 columns 'topic Q0 docno rank score tag', got 5"),
    ("q1 Q0 d1 1 2.5 r\n", r"run line 1: topic must be a number \(or prefix-number, as wt09-1\), got 'q1'"),
    ("1 Q0 d1 1 2.5 r\n1 Q0 d2 two 2 r\n", r"run line 2: rank must be a natural number, got 'two'"),
    ("1 Q0 d1 1 x r\n", r"run line 1: score must be a finite number, got 'x'"),
    ("1 Q0 d1 1 2 r\n1 Q0 d2 1 1 r\n", r"run: duplicate rank \(1\) for topic 1"),
    ("1 Q0 d1 1 2 r\nwt09-1 Q0 d1 2 1 r\n", r"run: duplicate docno \(d1\) for topic 1"),
])
def test_bad_runs(tmp_path, text, message):
    path = tmp_path / "run"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_ndeval_run(path)


def test_command_line_errors(tmp_path, capsys):
    assert _cli("-alpha", "2", str(DATA / "example.qrels"), str(DATA / "example.run"))[0] == 2
    assert "must be a number in [0, 1], got '2'" in capsys.readouterr().err
    assert _cli("-riskAlpha", "-1", "-baseline", str(DATA / "example.run"), str(DATA / "example.qrels"),
                str(DATA / "example.run"))[0] == 2
    assert "must be a number >= 0, got '-1'" in capsys.readouterr().err
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 1 d1 1\n")
    assert _cli(str(qrels), str(DATA / "example.run"))[0] == 2
    assert "ndeval's table needs topic numbers; the judgments hold topic 'q1'" in capsys.readouterr().err
    assert _cli(str(DATA / "example.qrels"), str(tmp_path / "missing"))[0] == 2
    assert "no such file" in capsys.readouterr().err
    run = tmp_path / "run"
    run.write_text("7 Q0 d1 1 1.0 r\n")
    assert _cli(str(DATA / "example.qrels"), str(run))[0] == 2  # ndeval prints zeros and a -nan mean
    assert "no query in common between the judgments (1, 2, 3) and the run (7)" in capsys.readouterr().err


@pytest.mark.parametrize("stem", ["example", "random3", "random11", "ties", "latin1"])
def test_every_spacing_reads_the_same(stem, tmp_path):
    """pyarrow's parse of single-spaced lines and the NumPy split of any other whitespace
    (tabs, runs of blanks, CRLF, extra run columns) give the same frames."""
    qrels, run = (DATA / f"{stem}.qrels").read_bytes(), (DATA / f"{stem}.run").read_bytes()

    def spaced(data: bytes, extra: bytes = b"") -> bytes:
        lines = [b"\t ".join(line.split()) + extra for line in data.splitlines()]
        return b"  " + b"\r\n  ".join(lines) + b"\r\n"

    (tmp_path / "q").write_bytes(spaced(qrels))
    (tmp_path / "r").write_bytes(spaced(run, b" extra"))
    pd.testing.assert_frame_equal(read_subtopic_qrels(tmp_path / "q"), read_subtopic_qrels(DATA / f"{stem}.qrels"),
                                  check_like=False)
    for traditional in (False, True):
        (tag, ours), (tag2, theirs) = (read_ndeval_run(p, traditional=traditional)
                                       for p in (tmp_path / "r", DATA / f"{stem}.run"))
        assert tag == tag2
        pd.testing.assert_frame_equal(ours, theirs)


def test_a_signed_judgment_and_rank(tmp_path):
    (tmp_path / "q").write_text("1 1 a +1\n1 2 a -1\n")
    (tmp_path / "r").write_text("1 Q0 a +3 1 r\n")
    assert read_subtopic_qrels(tmp_path / "q").relevance.tolist() == [1, -1]
    assert read_ndeval_run(tmp_path / "r")[1].score.tolist() == [-3.0]
