"""Tests for rankkit.io.keys (document keys) and the join's reuse of keys and judgments.

The join is checked against an independent reference: pyarrow's own hash join
(``Table.join`` on the query and document ids), which knows nothing of rankkit's keys.
"""

from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit as rk
import rankkit.io.checks
import rankkit.io.dataframes
import rankkit.io.python_objects
from rankkit import join
from rankkit.io import keys as _keys

IDS = st.sampled_from(["a", "b", "d1", "d10", "FBIS3-10082", "clueweb12-0000tw-00-00000", "café", "x\x00y", ""])
QUERIES = st.sampled_from(["1", "2", "10", "q"])


def arrow_reference(qrels: pd.DataFrame, run: pd.DataFrame) -> set[tuple[str, str, float]]:
    """(query, document, label) of every retrieved document that has a judgment, by
    pyarrow's hash join on the ids themselves."""
    left = pa.table({"q": run.query_id.astype(str).tolist(), "d": run.doc_id.astype(str).tolist()})
    right = pa.table({"q": qrels.query_id.astype(str).tolist(), "d": qrels.doc_id.astype(str).tolist(),
                      "label": qrels.relevance.astype(float).tolist()})
    joined = left.join(right, keys=["q", "d"], join_type="inner")
    return set(zip(joined["q"].to_pylist(), joined["d"].to_pylist(), joined["label"].to_pylist()))


def joined_by_rank(qrels: pd.DataFrame, run: pd.DataFrame) -> set[tuple[str, str, float]]:
    """The same triples read off ``rank``: each query's documents in rank order, matched to
    the labels in the Rankings (the run's own order gives the document at each rank)."""
    r = rk.rank(qrels, run)
    out = set()
    for i, q in enumerate(r.query_ids):
        docs = run[run.query_id.astype(str) == q].sort_values(
            ["score", "doc_id"], ascending=False, key=lambda s: s.map(lambda v: v.encode("utf-8", "surrogateescape"))
            if s.dtype != float else s)
        for rank_, d in enumerate(docs.doc_id.astype(str)):
            if r.in_pool[i, rank_]:
                label = qrels[(qrels.query_id.astype(str) == q) & (qrels.doc_id.astype(str) == d)].relevance
                assert len(label) == 1
                assert r.labels[i, rank_] == max(float(label.iloc[0]), 0.0)
                out.add((q, d, float(label.iloc[0])))
    return out


@settings(max_examples=sweep(40), deadline=None)
@given(st.lists(st.tuples(QUERIES, IDS, st.integers(-1, 3)), max_size=25, unique_by=lambda t: t[:2]),
       st.lists(st.tuples(QUERIES, IDS, st.integers(0, 4)), min_size=1, max_size=25, unique_by=lambda t: t[:2]))
def test_join_equals_pyarrow_hash_join(qrels_rows, run_rows):
    if not qrels_rows:
        qrels_rows = [("1", "a", 1)]
    qrels = pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"]).astype({"score": float})
    assert joined_by_rank(qrels, run) == arrow_reference(qrels, run)


@settings(max_examples=sweep(80))
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30),
                min_size=1, max_size=40))
def test_string_keys_equal_iff_strings_equal(strings):
    # Without NUL an id of up to 8 bytes is its own key, zero-padded ("" and "\x00" share
    # one by design: the join confirms such matches on the strings, see keys_are_ids).
    half = len(strings) // 2
    a = pa.chunked_array([pa.array(strings[:half], pa.string()), pa.array(strings[half:], pa.string())])
    b = pa.array(strings[::-1], pa.string())
    ka, kb = _keys.string_keys(a, b)
    assert np.array_equal(ka, kb[::-1])
    keys = dict(zip(strings, ka.tolist()))
    assert len(set(keys.values())) == len(keys)  # no collision among distinct strings (64-bit keys)


@settings(max_examples=sweep(80))
@given(st.lists(st.text(alphabet="ab", min_size=56, max_size=200), min_size=1, max_size=30),
       st.lists(st.text(alphabet="xyz", max_size=12), max_size=5))
def test_long_string_keys_equal_iff_strings_equal(long, short):
    # Ids past 64 bytes: their later words are hashed all at once, each with its position.
    strings = long + short + ["a" * 64 + "b" * 8 + "a" * 8, "a" * 64 + "a" * 8 + "b" * 8]  # words swapped
    a = pa.array(strings, pa.string())
    b = pa.chunked_array([pa.array(strings[::-1], pa.large_string())])
    ka, kb = _keys.string_keys(a, b)
    assert np.array_equal(ka, kb[::-1])
    keys = dict(zip(strings, ka.tolist()))
    assert len(set(keys.values())) == len(keys)


def test_one_very_long_id_is_keyed_in_its_own_time():
    # One 400 KB id among 200,000 short ones: its 50,000 words are read once, not 50,000
    # passes over every id (this took minutes). Keys of equal ids stay equal.
    ids = [f"d{i}" for i in range(200_000)] + ["L" + "x" * 400_000, "d7"]
    keys, longest = _keys.doc_keys(pa.chunked_array([pa.array(ids, pa.large_string())]))
    assert longest == 400_001 and keys[7] == keys[-1] and len(set(keys.tolist())) == 200_001


def test_doc_keys_are_built_once_per_array_and_forgotten_with_it():
    ids = pa.chunked_array([pa.array(["d1", "d2", "a-longer-document-id"])])
    keys, longest = _keys.doc_keys(ids)
    again, _ = _keys.doc_keys(ids)
    assert again is keys and longest == len("a-longer-document-id")
    assert not keys.flags.writeable  # shared: no caller may change them
    other, _ = _keys.doc_keys(pa.chunked_array([pa.array(["d1", "d2", "a-longer-document-id"])]))
    assert other is not keys and np.array_equal(other, keys)  # equal ids, another array: built anew
    ident = id(ids)
    del ids
    gc.collect()
    assert ident not in _keys._BUILT


def frames():
    qrels = rk.read_qrels({"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1, "y": 3}})
    run = rk.read_run({"q1": {"a": 0.9, "b": 0.8, "c": 0.7}, "q2": {"y": 0.5, "x": 0.4}})
    return qrels, run


def test_a_frame_evaluated_again_reuses_keys_and_judgments_and_leaves_no_trace(monkeypatch):
    qrels, run = frames()
    built = []
    monkeypatch.setattr(join, "_index", lambda *a, **k: built.append(1) or ORIGINAL_INDEX(*a, **k))
    first = rk.evaluate(qrels, run, ["AP", "nDCG@3"])
    for score in (0.1, 0.2, 0.3):  # a sweep: the same documents, other scores
        rk.evaluate(qrels, run.assign(score=run.score * score), ["AP"])
    assert len(built) == 1  # the judgments were prepared once
    assert list(qrels.attrs) == ["name"] and list(run.attrs) == ["name"]  # nothing stored on the user's frames
    pd.testing.assert_frame_equal(rk.evaluate(qrels, run, ["AP", "nDCG@3"]), first)


ORIGINAL_INDEX = join._index


def test_judgments_edited_in_place_are_prepared_again():
    qrels, run = frames()
    before = rk.evaluate(qrels, run, ["AP"]).AP.tolist()
    qrels.loc[qrels.doc_id == "a", "relevance"] = 0  # q1's only top document is no longer relevant
    after = rk.evaluate(qrels, run, ["AP"]).AP.tolist()
    assert before == [pytest.approx((1 + 2 / 3) / 2), 1.0]  # q1: a (2) at 1, c (1) at 3
    assert after == [pytest.approx(1 / 3), 1.0]  # q1: c alone at 3


def test_compare_of_a_sweep_matches_single_evaluations():
    qrels, run = frames()
    runs = {f"s{k}": run.assign(score=run.score * (-1) ** k) for k in range(4)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = rk.compare(qrels, runs, "AP", test="t")
    means = {name: float(rk.evaluate(qrels, system, ["AP"]).AP.mean()) for name, system in runs.items()}
    assert len(table) >= 3 and set(table.system) | set(table.baseline) == set(runs)
    for row in table.itertuples():
        assert row.mean == means[row.system] and row.baseline_mean == means[row.baseline]


def test_id_columns_checked_once_yet_an_edited_frame_is_checked_again():
    run = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "x"], "score": [3.0, 2.0, 1.0]})
    run = run.astype({"query_id": "str", "doc_id": "str"})
    qrels = {"q1": {"a": 1}, "q2": {"x": 1}}
    first = rk.evaluate(qrels, run, ["P@2"])
    pd.testing.assert_frame_equal(rk.evaluate(qrels, run.assign(score=[1.0, 2.0, 3.0]), ["P@2"]), first)
    run.loc[1, "doc_id"] = "a"  # now retrieved twice for q1: the new column is checked
    with pytest.raises(ValueError, match="document 'a' is retrieved twice for query 'q1'"):
        rk.evaluate(qrels, run, ["P@2"])


def fresh_copy(frame: pd.DataFrame) -> pd.DataFrame:
    """The same rows in new Arrow arrays: nothing any cache remembers."""
    return pd.DataFrame({c: frame[c].tolist() for c in frame.columns}).astype(
        {c: frame[c].dtype for c in frame.columns})


@settings(max_examples=sweep(40), deadline=None)
@given(st.lists(st.tuples(QUERIES, IDS, st.integers(-1, 3)), max_size=25, unique_by=lambda t: t[:2]),
       st.lists(st.tuples(QUERIES, IDS), min_size=1, max_size=25, unique=True),
       st.lists(st.lists(st.integers(0, 3), min_size=25, max_size=25), min_size=2, max_size=4),
       st.sampled_from(join.TIES), st.booleans())
def test_a_sweep_is_looked_up_once_and_equals_fresh_evaluations(qrels_rows, run_rows, sweep, ties, judged_only):
    qrels = rk.read_qrels(pd.DataFrame(qrels_rows or [("q", "a", 1)], columns=["query_id", "doc_id", "relevance"]))
    run = rk.read_run(pd.DataFrame([(q, d, 0.0) for q, d in run_rows], columns=["query_id", "doc_id", "score"]))
    options = {"ties": ties, "judged_only": judged_only}
    looked_up = []
    original = join._match
    join._match = lambda *a: looked_up.append(1) or original(*a)
    # scores 0-3: many ties, so the tie orders are exercised too
    systems = [run.assign(score=np.array(scores[:len(run)], dtype=float)) for scores in sweep]
    try:
        got = [join.rank_frames(qrels, system, **options) for system in systems]
    finally:
        join._match = original
    assert len(looked_up) == 1  # the sweep's first run only
    for system, rankings in zip(systems, got):
        want = join.rank_frames(qrels, fresh_copy(system), **options)
        for field in ("labels", "judged", "pooled", "lengths", "ideal", "ties"):
            assert np.array_equal(getattr(rankings, field), getattr(want, field)), field


def test_matches_are_not_reused_for_other_queries_and_are_forgotten_with_the_ids():
    qrels = rk.read_qrels({"q1": {"a": 2, "b": 1}, "q2": {"a": 1}})
    run = rk.read_run({"q1": {"a": 0.9, "b": 0.8}, "q2": {"c": 0.5}})
    assert rk.rank(qrels, run).labels.tolist() == [[2.0, 1.0], [0.0, 0.0]]
    # The same document ids under other queries: the rows differ, so they are looked up again.
    moved = run.assign(query_id=pd.Categorical(["q2", "q1", "q1"], categories=["q1", "q2"]))
    assert rk.rank(qrels, moved).labels.tolist() == [[1.0, 0.0], [1.0, 0.0]]  # q1: b, c; q2: a
    prepared = join.Judgments.of(qrels)[1]
    assert prepared.matches is not None
    del run, moved
    gc.collect()
    assert prepared.matches is None  # gone with the run's document ids


def test_a_frame_the_readers_returned_is_checked_once_yet_an_edit_in_place_is_checked_again(monkeypatch):
    qrels = rk.read_qrels(pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"],
                                        "relevance": [1, 0, 2]}))
    assert isinstance(qrels.query_id.dtype, pd.CategoricalDtype)  # the readers' query column
    checked = []
    original = rankkit.io.checks.check_duplicates
    for module in (rankkit.io.dataframes, rankkit.io.python_objects):  # the readers of frames and dicts
        monkeypatch.setattr(module, "check_duplicates", lambda *a, **k: checked.append(1) or original(*a, **k))
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 1.0}}
    first = rk.evaluate(qrels, run, ["AP"])
    for _ in range(3):  # compare's judgments, given to evaluate once per run
        pd.testing.assert_frame_equal(rk.evaluate(qrels, run, ["AP"]), first)
    assert len(checked) == 1  # the judgments' frame once (a dict run needs no check)
    qrels.loc[2, "query_id"] = "q1"  # the Categorical's codes change in place: a now twice for q1
    with pytest.raises(ValueError, match="document 'a' is judged twice for query 'q1'"):
        rk.evaluate(qrels, run, ["AP"])


def test_matches_are_not_reused_when_another_query_takes_the_same_row():
    qrels = rk.read_qrels({"b": {"x": 1}})
    run = rk.read_run({"b": {"x": 1.0}})
    assert rk.rank(qrels, run).labels.tolist() == [[1.0]]
    renamed = run.assign(query_id=pd.Categorical(["a"]))  # row 0 is now query "a", which has no judgments
    assert rk.rank(qrels, renamed).labels.tolist() == [[0.0], [0.0]]  # a: x unjudged; b: not retrieved


def test_remembered_matches_keep_no_judgments_alive():
    run = rk.read_run({"q": {"x": 1.0, "y": 0.5}})
    prepared = []
    for label in range(3):  # three judgments frames, one run that outlives them
        qrels = rk.read_qrels({"q": {"x": label}})
        rk.rank(qrels, run)
        prepared.append(weakref.ref(join.Judgments.of(qrels)[1]))
        del qrels
    gc.collect()
    assert [p() for p in prepared] == [None, None, None]


def test_a_categorical_of_other_types_is_not_taken_for_the_one_seen():
    frame = pd.DataFrame({"query_id": pd.Categorical([1, "z"]), "doc_id": pd.array(["x", "y"], dtype="str"),
                          "score": [1.0, 2.0]})
    assert rk.read_run(frame).query_id.tolist() == ["1", "z"]
    other = frame.assign(query_id=pd.Categorical([1.0, "z"]))  # 1.0 == 1 in Python, but another id
    assert rk.read_run(other).query_id.tolist() == ["1.0", "z"]


@settings(max_examples=sweep(80), deadline=None)
@given(st.lists(st.lists(st.integers(0, 60), min_size=1, max_size=40), min_size=1, max_size=8), st.randoms())
def test_block_wise_duplicate_check_finds_the_queries_with_a_shared_key(blocks, random):
    # rankkit.io.checks._suspect_queries, against a set per query: each inner list is one query's
    # document keys (few values, so that some repeat), its rows together, codes in any order.
    codes = list(range(len(blocks)))
    random.shuffle(codes)
    keys = np.array([k for block in blocks for k in block], dtype=np.uint64)
    rows = np.repeat(np.array(codes, dtype=np.int16), [len(b) for b in blocks])
    found = rk.io.checks._suspect_queries(rows, keys)
    if len(blocks) * max(map(len, blocks)) > 2 * len(keys):  # too unequal: the pair keys' sort
        assert found is None
    else:
        assert sorted(found) == sorted(c for c, b in zip(codes, blocks) if len(set(b)) < len(b))


@pytest.mark.parametrize("sizes", [[5000], [4097, 4000], [3000, 4096]])
def test_block_wise_duplicate_check_on_long_queries(sizes):
    # Queries over 4,096 documents sort 64-bit keys, shorter ones 32-bit: one duplicate in
    # the last query is found either way, and distinct keys are never a suspect.
    rng = np.random.default_rng(sum(sizes))
    keys = rng.integers(0, 2**64, size=sum(sizes), dtype=np.uint64)  # distinct (a fixed seed)
    codes = np.repeat(np.arange(len(sizes), dtype=np.int16), sizes)
    assert len(rk.io.checks._suspect_queries(codes, keys)) == 0
    keys[-1] = keys[-2]
    assert rk.io.checks._suspect_queries(codes, keys).tolist() == [len(sizes) - 1]


def test_block_wise_duplicate_check_needs_queries_together():
    keys = np.arange(4, dtype=np.uint64)
    assert rk.io.checks._suspect_queries(np.array([0, 1, 0, 1], dtype=np.int8), keys) is None
    assert rk.io.checks._suspect_queries(np.array([1, 1, 0, 0], dtype=np.int8), keys).tolist() == []
