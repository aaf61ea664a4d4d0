"""Tests for rankkit.evaluation.stream: a run file evaluated block by block equals the run held whole.

Blocks are made tiny here (``_MIN_BLOCK`` patched to a few dozen bytes, ``memory=1``), so
that queries straddle blocks, a block holds part of one query, and a run that is not
grouped by query goes through the temporary partitions.
"""

from __future__ import annotations

import gzip
import io
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit as rk
from rankkit.cli import main
from rankkit.evaluation import memory, pipeline, stream
from rankkit.io import RunFile
from rankkit.trec_eval import evaluate_like_trec_eval, trec_eval_text, trec_lines, trec_measures

SPECS = ["P@5", "AP", "nDCG@10", "RR", "ERR@10", "R@100", "bpref", "Rprec", "num_ret", "num_rel", "runid"]


@pytest.fixture
def tiny_blocks(monkeypatch):
    """Blocks of about ``size`` bytes of lines whatever the memory bound (the bound of 1 byte
    asks for the smallest)."""

    def use(size: int) -> None:
        monkeypatch.setattr(memory, "_MIN_BLOCK", size)

    use(64)
    return use


def run_text(lines: list[tuple[str, str, float, str]]) -> str:
    return "".join(f"{q} Q0 {d} {i} {s!r} {tag}\n" for i, (q, d, s, tag) in enumerate(lines, start=1))


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f(*args, **kwargs)
    return out, sorted(str(w.message) for w in caught)


def in_memory(qrels, path: Path, specs, **kwargs):
    """The reference: the run read whole, evaluated as a DataFrame (never streamed)."""
    frame = rk.read_run(path)
    return quiet(rk.evaluate, qrels, frame, specs, **kwargs)


@st.composite
def runs(draw):
    """Judgments and run lines over a few queries: ties (scores from a small set), judged
    queries the run lacks, run queries without judgments, several tags."""
    queries = [f"q{i}" for i in range(draw(st.integers(1, 6)))]
    docs = [f"d{i}" for i in range(12)]
    qrels = {}
    for q in queries:
        judged = draw(st.lists(st.sampled_from(docs), max_size=8, unique=True))
        if judged:
            qrels[q] = {d: draw(st.integers(-1, 3)) for d in judged}
    if not qrels:
        qrels[queries[0]] = {docs[0]: 1}
    lines = []
    for q in draw(st.lists(st.sampled_from(queries + ["x1"]), min_size=1, max_size=6, unique=True)):
        for d in draw(st.lists(st.sampled_from(docs), min_size=1, max_size=10, unique=True)):
            lines.append((q, d, draw(st.sampled_from([0.5, 1.0, 1.5, 2.25])), draw(st.sampled_from(["a", "bb"]))))
    return qrels, lines


def has_common(qrels, lines):
    return any(q in qrels for q, *_ in lines)


@settings(max_examples=sweep(60), deadline=None)
@given(data=runs(), shuffle=st.booleans(), size=st.sampled_from([1, 40, 200, 10_000]),
       queries=st.sampled_from(["run", "qrels"]), seed=st.integers(0, 2**16), ahead=st.booleans())
def test_streaming_equals_in_memory(tmp_path_factory, data, shuffle, size, queries, seed, ahead):
    qrels, lines = data
    if shuffle:
        np.random.default_rng(seed).shuffle(lines)
    path = tmp_path_factory.mktemp("run") / "run.txt"
    path.write_text(run_text(lines))
    old, old_ahead = memory._MIN_BLOCK, stream.reads_ahead
    memory._MIN_BLOCK, stream.reads_ahead = size, (lambda budget: ahead)  # tiny blocks, read ahead or not
    try:
        if not has_common(qrels, lines):
            with pytest.raises(ValueError, match="no query in common"):
                quiet(rk.evaluate, qrels, path, SPECS, queries=queries, memory=1)
            return
        got, got_warnings = quiet(rk.evaluate, qrels, path, SPECS, queries=queries, memory=1)
    finally:
        memory._MIN_BLOCK, stream.reads_ahead = old, old_ahead
    want, want_warnings = in_memory(qrels, path, SPECS, queries=queries)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert got.attrs == want.attrs
    assert got_warnings == want_warnings


@settings(max_examples=sweep(40), deadline=None)
@given(data=runs(), shuffle=st.booleans(), size=st.sampled_from([1, 60, 10_000]),
       complete=st.booleans(), judged_only=st.booleans(), depth=st.sampled_from([None, 3]))
def test_trec_eval_lines_are_the_same_in_blocks(tmp_path_factory, data, shuffle, size, complete, judged_only, depth):
    qrels, lines = data
    if shuffle:
        lines = lines[::-1]
    if not has_common(qrels, lines):
        return
    folder = tmp_path_factory.mktemp("trec")
    run_path, qrels_path = folder / "run.txt", folder / "qrels.txt"
    run_path.write_text(run_text(lines))
    qrels_path.write_text("".join(f"{q} 0 {d} {v}\n" for q, docs in qrels.items() for d, v in docs.items()))
    columns = trec_measures(["all_trec"])
    options = {"queries": "qrels" if complete else "run", "judged_only": judged_only, "depth": depth}
    old = memory._MIN_BLOCK
    memory._MIN_BLOCK = size
    try:
        (table, summary), got_warnings = quiet(evaluate_like_trec_eval, qrels_path, run_path, columns,
                                               memory=1, **options)
        text, text_warnings = quiet(trec_eval_text, qrels_path, run_path, columns, memory=1, per_query=True,
                                    **options)  # on arrays, without frames: the command's
    finally:
        memory._MIN_BLOCK = old
    (want_table, want_summary), want_warnings = quiet(evaluate_like_trec_eval, qrels_path,
                                                      rk.read_run(run_path), columns, **options)
    want = list(trec_lines(want_table, want_summary, per_query=True))
    assert list(trec_lines(table, summary, per_query=True)) == want
    assert got_warnings == want_warnings
    assert text == "".join(line + "\n" for line in want)
    assert text_warnings == want_warnings


QRELS = {"q1": {"a": 1, "b": 2, "c": 0}, "q2": {"a": 3, "z": 1}, "q3": {"k": 1}}
GROUPED = [("q1", "a", 1.0, "t1"), ("q1", "b", 1.0, "t1"), ("q1", "c", 0.5, "t1"),
           ("q2", "z", 2.0, "t2"), ("q2", "a", 1.0, "t2"), ("q9", "a", 1.0, "t3")]


def test_a_run_not_grouped_by_query_goes_through_partitions(tmp_path, tiny_blocks, monkeypatch):
    path = tmp_path / "run.txt"
    middle = [(f"x{i}", "a", 1.0, "t2") for i in range(20)]  # queries without judgments
    path.write_text(run_text(GROUPED[1:] + middle + GROUPED[:1]))  # q1 comes back blocks later
    calls = []
    partitioned = RunFile.partitioned

    def spy(self, directory, parts=256):
        calls.append(directory)
        yield from partitioned(self, directory, parts)

    monkeypatch.setattr(RunFile, "partitioned", spy)
    got, _ = quiet(rk.evaluate, QRELS, path, SPECS, memory=1)
    want, _ = in_memory(QRELS, path, SPECS)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert len(calls) == 1 and not Path(calls[0]).exists()  # the temporary files are gone
    assert got.loc["q1", "runid"] == "t1"  # the tag of the file's last line


def test_a_grouped_run_is_read_once(tmp_path, tiny_blocks, monkeypatch):
    path = tmp_path / "run.txt"
    path.write_text(run_text(GROUPED))
    monkeypatch.setattr(RunFile, "partitioned", lambda *a, **k: pytest.fail("partitioned"))
    got, caught = quiet(rk.evaluate, QRELS, path, SPECS, memory=1)
    assert list(got.index) == ["q1", "q2"] and (got.runid == "t3").all()
    assert got.attrs["unscored"] == {"q3": "not in the run", "q9": "no judgments"}
    assert len(caught) == 2


def test_a_query_longer_than_a_block(tmp_path, tiny_blocks):
    lines = [("q1", f"d{i}", float(i % 7), "t") for i in range(300)] + [("q2", "a", 1.0, "t")]
    path = tmp_path / "run.txt"
    path.write_text(run_text(lines))
    qrels = {"q1": {f"d{i}": i % 3 for i in range(0, 300, 5)}, "q2": {"a": 1}}
    got, _ = quiet(rk.evaluate, qrels, path, SPECS, memory=1)
    want, _ = in_memory(qrels, path, SPECS)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_errors_name_the_line_of_the_whole_file(tmp_path, tiny_blocks):
    lines = run_text(GROUPED * 1).splitlines(keepends=True)
    text = "".join(lines[:4]) + "# a comment\n\n" + "q2 Q0 b 1 x t2\n" + "".join(lines[4:])
    path = tmp_path / "run.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"run.txt line 7: score must be a number, got 'x'") as streamed:
        rk.evaluate(QRELS, path, SPECS, memory=1)
    with pytest.raises(ValueError) as whole:
        rk.read_run(path)
    assert str(streamed.value) == str(whole.value)
    path.write_text("".join(lines[:5]) + "q2 Q0 b 1\n")
    with pytest.raises(ValueError, match="line 6: expected at least 6 columns, got 4"):
        rk.evaluate(QRELS, path, SPECS, memory=1)


@pytest.mark.parametrize("bad_at", [3, 40, 77, 119])
@pytest.mark.parametrize("odd_every", [0, 13, 50])
def test_line_numbers_carry_over_clean_and_other_blocks(tmp_path, tiny_blocks, bad_at, odd_every):
    # Clean blocks count their lines as their rows, others count newlines: a bad line after
    # blocks of both kinds (comments and blank lines every ``odd_every`` lines) is named alike.
    tiny_blocks(200)
    lines = run_text([(f"q{i // 10}", f"d{i}", 1.0, "t") for i in range(120)]).splitlines(keepends=True)
    if odd_every:
        lines = [x for i, line in enumerate(lines)
                 for x in ([line, "# note\n", "\n"] if i % odd_every == 5 else [line])]
    bad = next(i for i, line in enumerate(lines) if line.startswith("q") and i >= bad_at)
    lines[bad] = lines[bad].replace(" 1.0 ", " x ")
    path = tmp_path / "run.txt"
    path.write_text("".join(lines))
    with pytest.raises(ValueError, match=rf"run.txt line {bad + 1}: score must be a number, got 'x'"):
        rk.evaluate(QRELS, path, SPECS, memory=1)


def test_a_duplicate_across_blocks_is_an_error(tmp_path, tiny_blocks):
    path = tmp_path / "run.txt"
    path.write_text(run_text(GROUPED[:3] + [("q1", "a", 0.1, "t1")]))
    with pytest.raises(ValueError, match=r"run\.txt lines 1 and 4: document 'a' is retrieved twice for query 'q1'"):
        rk.evaluate(QRELS, path, SPECS, memory=1)
    with pytest.raises(ValueError, match=r"<stdin> lines 1 and 4: document 'a' is retrieved twice for query 'q1'"):
        _stdin_evaluate(path.read_bytes())


def _stdin_evaluate(data: bytes):
    """rankkit.evaluate on a stream that cannot seek (standard input), read in tiny blocks."""

    class Stdin(io.RawIOBase):
        name = "<stdin>"

        def __init__(self):
            self._data = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, buffer):
            return self._data.readinto(buffer)

    return rk.evaluate(QRELS, Stdin(), SPECS, memory=1)


def test_ids_that_never_match_are_warned_about_once_over_the_blocks(tmp_path, tiny_blocks):
    # 30 queries of 4 documents in ~64-byte blocks; the judgments' ids in upper case. The
    # example is the first query in trec_eval's order (q10), though q3's block comes first.
    lines = [(f"q{q}", f"doc-{q}-{d}", float(4 - d), "t") for q in [3, *range(10, 39)] for d in range(4)]
    qrels = {f"q{q}": {f"DOC-{q}-1": 1, f"doc-{q}-x": 0} for q in [3, *range(10, 39)]}
    path = tmp_path / "run.txt"
    path.write_text(run_text(lines))
    message = ("no retrieved document of any query is judged: run ids look like 'doc-10-0', judged ids like "
               "'DOC-10-1' (ids must match exactly, case included)")
    streamed, caught = quiet(rk.evaluate, qrels, path, ["AP"], memory=1)
    assert caught == [message]
    whole, caught = in_memory(qrels, path, ["AP"])
    assert caught == [message] and streamed.equals(whole)
    # one judged document in the last block: no warning from any block
    qrels["q38"]["doc-38-3"] = 1
    _, caught = quiet(rk.evaluate, qrels, path, ["AP"], memory=1)
    assert caught == []


def test_empty_and_comment_only_runs(tmp_path, tiny_blocks):
    path = tmp_path / "run.txt"
    path.write_text("# nothing\n" * 30)
    with pytest.raises(ValueError, match="run.txt: empty file, expected run lines"):
        rk.evaluate(QRELS, path, SPECS, memory=1)


def test_gzip_and_standard_input_stream_too(tmp_path, tiny_blocks):
    text = run_text(GROUPED)
    want, _ = quiet(rk.evaluate, QRELS, rk.read_run(io.BytesIO(text.encode())), SPECS)
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(("\ufeff" + text).encode()))
    got, _ = quiet(rk.evaluate, QRELS, gz, SPECS, memory=1)
    pd.testing.assert_frame_equal(got, want, check_exact=True)

    class Pipe(io.RawIOBase):  # a stream that cannot seek, read once
        def __init__(self, data):
            self._data = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, b):
            return self._data.readinto(b)

    middle = [(f"x{i}", "a", 1.0, "t2") for i in range(20)]
    shuffled = run_text(GROUPED[1:] + middle + GROUPED[:1]).encode()  # read twice: from the spool
    got, _ = quiet(rk.evaluate, QRELS, Pipe(shuffled), SPECS, memory=1)
    want, _ = quiet(rk.evaluate, QRELS, rk.read_run(io.BytesIO(shuffled)), SPECS)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_non_utf8_ids_and_odd_whitespace_across_blocks(tmp_path, tiny_blocks):
    data = (b"q1 Q0 caf\xe9 1 2 t\nq1\tQ0  b 2 1 t \r\n\n# c\nq2 Q0 a 1 1 t\nq2 Q0 z 2 1 t\n" * 1)
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    qrels = {"q1": {"caf\udce9": 1, "b": 1}, "q2": {"a": 1}}
    got, _ = quiet(rk.evaluate, qrels, path, SPECS, memory=1)
    want, _ = in_memory(qrels, path, SPECS)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert got.loc["q1", "P@5"] == 0.4


def test_parse_memory():
    assert stream.parse_memory(None) == stream.DEFAULT_MEMORY
    assert stream.parse_memory("2 GB") == 2 * 10**9
    assert stream.parse_memory("512MiB") == 512 * 2**20
    assert stream.parse_memory("1.5k") == 1500
    for bad in ("", "12XB", "-5MB", "0", 0, "lots", True):
        with pytest.raises(ValueError, match="memory"):
            stream.parse_memory(bad)
    with pytest.raises(ValueError, match="memory"):
        rk.evaluate(QRELS, {"q1": {"a": 1.0}}, ["P@5"], memory="5 parsecs")


def test_block_size_follows_the_budget():
    assert memory.block_size(1) == memory._MIN_BLOCK
    assert memory.block_size(600 * 2**20) == int(600 * 2**20 / memory._PEAK_PER_BYTE)
    assert memory.block_size(600 * 2**20, ahead=True) == int(
        600 * 2**20 / (memory._PEAK_PER_BYTE + memory._AHEAD_PER_BYTE))


def test_the_budget_is_the_bound_less_what_the_process_holds_when_the_command_says_so():
    from rankkit.evaluation.settings import Settings

    assert Settings(memory="600MiB").block_budget() == 600 * 2**20  # in a library call: the bound itself
    held = Settings(memory="600MiB", memory_in_use=lambda: 100 * 2**20).block_budget()
    assert held == 500 * 2**20


def test_reads_ahead_only_where_the_budget_leaves_room_for_two_blocks(tmp_path, monkeypatch):
    assert stream.reads_ahead(2**30)
    assert not stream.reads_ahead(100 * 2**20)  # less than 16 MiB x 12
    used = []
    monkeypatch.setattr(pipeline, "read_ahead", lambda blocks: used.append(1) or memory.boxed(blocks))
    path = tmp_path / "run.txt"
    path.write_text(run_text(GROUPED))
    quiet(rk.evaluate, QRELS, path, SPECS, memory=1)
    assert used == []
    quiet(rk.evaluate, QRELS, path, SPECS, memory=2**30)
    assert used == [1]


def test_block_size_follows_a_small_run():
    budget, mib = memory.DEFAULT_MEMORY, 2**20
    by_budget = memory.block_size(budget)
    assert memory.block_size(budget, run_bytes=None) == by_budget  # size unknown (gzip, a pipe): the bound alone
    assert memory.block_size(budget, run_bytes=32 * 10**6) == 32 * 10**6 // memory._BLOCKS_PER_RUN  # 1M lines
    assert memory.block_size(budget, run_bytes=97 * 10**6) == 97 * 10**6 // memory._BLOCKS_PER_RUN  # 3M lines
    assert memory.block_size(budget, run_bytes=1000) == memory._SMALL_BLOCK == mib  # never below 1 MiB...
    assert memory.block_size(1, run_bytes=10**6) == mib
    assert memory.block_size(budget, run_bytes=10**9) == by_budget  # a large run: the bound sizes the blocks
    assert memory.block_size(budget, True, 10**9) == memory.block_size(budget, True)
    for run_bytes in (10**5, 10**7, 10**8, 10**9, 10**11):  # ...nor above what the bound gives
        assert mib <= memory.block_size(budget, run_bytes=run_bytes) <= by_budget
    assert not memory.reads_ahead(2**30, run_bytes=97 * 10**6)  # a small run: a block at a time
    assert memory.reads_ahead(2**30, run_bytes=10**9)
    assert not memory.reads_ahead(100 * mib, run_bytes=10**9)  # the bound first
    assert memory.reads_ahead(2**30, run_bytes=None) == memory.reads_ahead(2**30)


def test_the_command_sizes_the_blocks_from_the_run_file(tmp_path, monkeypatch):
    from rankkit.evaluation import frameless
    from rankkit.evaluation.settings import Settings

    sized = []

    def block_size(budget, ahead=False, run_bytes=None):
        sized.append((ahead, run_bytes))
        return memory.block_size(budget, ahead, run_bytes)

    monkeypatch.setattr(frameless, "block_size", block_size)
    monkeypatch.setattr(memory, "_SMALL_BLOCK", 64)  # an eighth of this small run: a few lines a block
    lines = [(f"q{q}", f"d{d}", float(-d), "t") for q in range(8) for d in range(6)]
    path = tmp_path / "run.txt"
    path.write_text(run_text(lines))
    blocks, tag = frameless.run_blocks(path, Settings(memory=2**30))
    found = [box.pop() for box in blocks]
    assert sized == [(False, path.stat().st_size)]  # no reading ahead for a small run
    assert len(found) >= 6 and tag() == "t"  # about eight blocks of whole queries
    for block in found:  # (score_run prepares each block before its join)
        block.prepare(block)
    assert [q for block in found for q in block.names] == [f"q{q}" for q in range(8)]
    gz = tmp_path / "run.txt.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    sized.clear()
    blocks, _ = frameless.run_blocks(gz, Settings(memory=2**30))
    found = [box.pop() for box in blocks]
    assert len(found) <= 2 and sized == [(True, None)]  # compressed: the bound alone (one block, the last query apart)


def test_cli_memory_option_prints_the_same_bytes(tmp_path, tiny_blocks, capsys):
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run_path.write_text(run_text(GROUPED[::-1]))
    qrels_path.write_text("".join(f"{q} 0 {d} {v}\n" for q, docs in QRELS.items() for d, v in docs.items()))
    outputs = []
    for bound in ([], ["--memory", "1"], ["--memory", "4GB"]):
        out = io.StringIO()
        assert main(["evaluate", str(qrels_path), str(run_path), "-q", "-c", "-m", "all_trec", *bound], out=out) == 0
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1] == outputs[2]
    assert "runid                 \tall\tt1\n" in outputs[0]
    assert main(["evaluate", str(qrels_path), str(run_path), "--memory", "lots"]) == 2
    assert "--memory: memory must be a size" in capsys.readouterr().err


def test_progress_shows_the_bytes_read(tmp_path, tiny_blocks, capsys, monkeypatch):
    path = tmp_path / "run.txt"
    path.write_text(run_text(GROUPED))
    want, _ = quiet(rk.evaluate, QRELS, path, SPECS, memory=1)
    monkeypatch.setitem(__import__("sys").modules, "tqdm.auto", None)  # no tqdm: a line on stderr
    got, _ = quiet(rk.evaluate, QRELS, path, SPECS, memory=1, progress=True)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    err = capsys.readouterr().err
    assert "run.txt: evaluating: 100.0% of 0 MB" in err and err.endswith("\r\033[K")
    quiet(rk.evaluate, QRELS, path, SPECS, memory=1)
    assert capsys.readouterr().err == ""  # off by default


# --------------------------------------------------------------------------- reading ahead

def _counted(n, pulled, fail_at=None):
    for i in range(n):
        if i == fail_at:
            raise ValueError(f"bad line in block {i}")
        pulled.append(i)
        yield pd.DataFrame({"block": [i]})


def _reader_threads():
    import threading
    return [t for t in threading.enumerate() if t.name == "rankkit-read-ahead"]


def test_read_ahead_reads_one_frame_ahead_and_no_more():
    import time
    pulled = []
    boxes = memory.read_ahead(_counted(5, pulled))
    seen = []
    for box in boxes:
        frame = box.pop()
        assert box == []  # the caller holds the only reference
        time.sleep(0.05)  # the reader has the time to run ahead, if it would
        assert len(pulled) <= frame.block[0] + 2
        seen.append(frame.block[0])
    assert seen == [0, 1, 2, 3, 4] and pulled == seen
    assert not _reader_threads()


def test_read_ahead_raises_the_readers_error_after_the_frames_before_it():
    seen = []
    with pytest.raises(ValueError, match="bad line in block 2"):
        for box in memory.read_ahead(_counted(5, [], fail_at=2)):
            seen.append(box.pop().block[0])
    assert seen == [0, 1]
    assert not _reader_threads()


def test_read_ahead_stops_its_thread_when_the_caller_stops():
    pulled = []
    boxes = memory.read_ahead(_counted(100, pulled))
    next(boxes)
    boxes.close()
    assert not _reader_threads()
    assert len(pulled) <= 2
