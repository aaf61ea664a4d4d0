"""Tests for rankkit.rank (rankkit.join.rank_frames under it): joining a run with its qrels,
trec_eval's order, tie policies."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit.io
import rankkit.io.keys
import rankkit.join
from rankkit import Rankings, rank

CONFORMANCE = Path(__file__).resolve().parent / "data" / "trec_eval"   # trec_eval 10.0's test data, in the repository
needs_conformance = pytest.mark.skipif(not CONFORMANCE.is_dir(), reason="trec_eval test data absent")


# --------------------------------------------------------------------------- reference

def reference(qrels: dict, run: dict, ties: str = "docno", depth: int | None = None, judged_only=False):
    """rank() the slow way: Python's sorted per query (trec_eval: score desc, then docno desc);
    ``judged_only``: then only the judged documents (trec_eval -M, then -J)."""
    queries = sorted(set(qrels) | set(run))
    rows = {}
    for q in queries:
        judged = qrels.get(q, {})
        docs = run.get(q, {})

        def label(d, judged=judged):
            v = judged.get(d)
            return v if v is not None and v >= 0 else 0

        if ties == "docno":
            ordered = sorted(docs, key=lambda d: (docs[d], d), reverse=True)
        elif ties == "optimistic":
            ordered = sorted(docs, key=lambda d: (docs[d], label(d), d), reverse=True)
        else:  # pessimistic
            ordered = sorted(docs, key=lambda d: (docs[d], -label(d), d), reverse=True)
        ordered = ordered[:depth]
        if judged_only:
            ordered = [d for d in ordered if d in judged and judged[d] >= 0]
        rows[q] = dict(
            labels=[label(d) for d in ordered],
            judged=[d in judged and judged[d] >= 0 for d in ordered],
            pooled=[d in judged for d in ordered],
            ideal=sorted((v for v in judged.values() if v >= 0), reverse=True),
            scores=[docs[d] for d in ordered],
        )
    return queries, rows


def assert_matches(r: Rankings, qrels: dict, run: dict, ties: str = "docno", depth=None, judged_only=False):
    queries, rows = reference(qrels, run, ties, depth, judged_only)
    assert list(r.query_ids) == queries
    assert r.has_run.tolist() == [q in run and len(run[q]) > 0 for q in queries]
    assert r.has_qrels.tolist() == [q in qrels and len(qrels[q]) > 0 for q in queries]
    for i, q in enumerate(queries):
        want = rows[q]
        n = len(want["labels"])
        assert r.lengths[i] == n
        assert r.labels[i, :n].tolist() == want["labels"]
        assert not r.labels[i, n:].any() and not r.judged[i, n:].any()
        assert r.judged[i, :n].tolist() == want["judged"]
        assert r.in_pool[i, :n].tolist() == want["pooled"]
        m = len(want["ideal"])
        assert r.n_judged[i] == m
        assert r.ideal[i, :m].tolist() == want["ideal"] and not r.ideal[i, m:].any()


# --------------------------------------------------------------------------- fixed cases

QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "z": 1, "p": -1}, "q2": {"x": 1}}
RUN = {"q1": {"a": 0.5, "b": 0.9, "c": 0.5, "p": 0.1, "u": 0.7}, "q3": {"y": 1.0}}


def test_hand_computed():
    r = rank(QRELS, RUN)
    assert list(r.query_ids) == ["q1", "q2", "q3"]
    # q1: b 0.9, u 0.7 (unjudged), c and a tied at 0.5 (docno descending: c first), p (-1).
    assert r.labels.tolist() == [[0, 0, 1, 2, 0], [0] * 5, [0] * 5]
    assert r.judged[0].tolist() == [True, False, True, True, False]  # -1: pooled, not judged
    assert r.lengths.tolist() == [5, 0, 1]
    assert r.n_judged.tolist() == [4, 1, 0]
    assert r.ideal.tolist() == [[2, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]]
    assert r.has_run.tolist() == [True, False, True] and r.has_qrels.tolist() == [True, True, False]
    assert r.ties is None and r.scalar is False
    assert r.n_relevant().tolist() == [3, 1, 0]


def test_query_ids_in_string_order_and_rank_column_ignored(tmp_path):
    # trec_eval sorts query ids as strings ("10" < "9") and orders by score, not by rank.
    (tmp_path / "run").write_text("9 Q0 a 1 1.0 t\n9 Q0 b 2 2.0 t\n10 Q0 a 1 3.0 t\n")
    (tmp_path / "qrels").write_text("9 0 b 1\n10 0 a 1\n")
    r = rank(tmp_path / "qrels", tmp_path / "run")
    assert list(r.query_ids) == ["10", "9"]
    assert r.labels.tolist() == [[1, 0], [1, 0]]


def test_docno_tie_break_is_byte_order():
    # Byte order: "B" < "a" < "b" < "é" (UTF-8 0xC3 0xA9); descending puts "é" first.
    run = {"q": {"a": 1.0, "b": 1.0, "B": 1.0, "é": 1.0}}
    qrels = {"q": {"é": 3, "b": 2, "a": 1, "B": 0}}
    assert rank(qrels, run).labels.tolist() == [[3, 2, 1, 0]]


def test_tie_policies():
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 2.0}}
    qrels = {"q": {"a": 2, "b": 0, "c": 1}}
    assert rank(qrels, run).labels.tolist() == [[0, 1, 0, 2]]
    assert rank(qrels, run, ties="optimistic").labels.tolist() == [[0, 2, 1, 0]]
    assert rank(qrels, run, ties="pessimistic").labels.tolist() == [[0, 0, 1, 2]]
    avg = rank(qrels, run, ties="average")
    assert avg.labels.tolist() == [[0, 1, 0, 2]]
    assert avg.ties.tolist() == [[0, 1, 1, 1]]
    # The expected precision at 2 over the 3! orders of the tied group: (0 + 3/3) / 2.
    assert avg.expected(avg.labels > 0)[0, :2].sum() / 2 == pytest.approx(1 / 3)


def test_average_tie_ids_are_unique_across_queries_and_padding():
    run = {"q1": {"a": 1.0, "b": 1.0}, "q2": {"c": 5.0, "d": 5.0, "e": 4.0}}
    r = rank({"q1": {"a": 1}}, run, ties="average")
    assert r.ties.tolist() == [[0, 0, 2], [3, 3, 5]]


def test_depth_truncates_after_ordering():
    r = rank(QRELS, RUN, depth=3)
    assert r.labels.tolist() == [[0, 0, 1], [0, 0, 0], [0, 0, 0]]
    assert r.lengths.tolist() == [3, 0, 1]
    assert r.n_judged.tolist() == [4, 1, 0]  # the ideal ranking is not truncated
    assert rank(QRELS, RUN, depth=100).depth == 5


def test_accepts_files_frames_and_dicts(tmp_path):
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in RUN.items() for d, s in docs.items()))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {v}\n" for q, docs in QRELS.items() for d, v in docs.items()))
    from_files = rank(tmp_path / "qrels", str(tmp_path / "run"))
    frame = pd.DataFrame([(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
                         columns=["query_id", "doc_id", "score"])
    from_frame = rank(QRELS, frame)
    for r in (from_files, from_frame):
        assert_matches(r, QRELS, RUN)


def test_filtered_categorical_frame_has_no_phantom_queries():
    run = rankkit.io.read_run(RUN)
    only_q1 = run[run.query_id == "q1"]  # the categorical still lists "q3"
    r = rank(QRELS, only_q1)
    assert list(r.query_ids) == ["q1", "q2"]


def test_rows_of_a_query_need_not_be_contiguous_or_sorted():
    # Each block of q1 is sorted by score, but q1 comes back after q2: c (5.0) ranks first.
    frame = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q1"], "doc_id": ["a", "b", "x", "c"],
                          "score": [3.0, 2.0, 1.0, 5.0]})
    r = rank({"q1": {"c": 1, "a": 2}}, frame)
    assert r.labels.tolist() == [[1, 2, 0], [0, 0, 0]]


def test_empty_sides():
    r = rank({"q": {"d": 1}}, {})
    assert list(r.query_ids) == ["q"] and r.depth == 0 and r.lengths.tolist() == [0]
    assert r.n_judged.tolist() == [1] and r.has_run.tolist() == [False]
    r = rank({}, {"q": {"d": 1.0}})
    assert r.labels.tolist() == [[0.0]] and r.judged.tolist() == [[False]] and r.ideal.shape == (1, 0)


def test_bad_arguments():
    message = "ties must be one of 'docno', 'optimistic', 'pessimistic', 'average', got 'random'"
    with pytest.raises(ValueError, match=message):
        rank(QRELS, RUN, ties="random")
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="depth must be a positive integer or None"):
            rank(QRELS, RUN, depth=bad)
    with pytest.raises(ValueError, match="rel must be a positive number"):
        rank(QRELS, RUN, rel=0)
    with pytest.raises(ValueError, match="score must be finite"):
        rank(QRELS, {"q": {"d": float("inf")}})


def test_hash_collisions_fall_back_to_exact_codes(monkeypatch):
    # Force every long document id onto one key: the join must notice and still be exact.
    monkeypatch.setattr(rankkit.io.keys, "mix", lambda x: np.zeros_like(x))
    qrels = {"q1": {f"document-{i:04d}": i % 3 for i in range(20)}, "q2": {"document-0003": 2}}
    run = {"q1": {f"document-{i:04d}": float(i % 5) for i in range(0, 30, 2)}, "q2": {"document-0003": 1.0}}
    assert_matches(rank(qrels, run), qrels, run)


def test_pair_key_collisions_of_short_ids_fall_back_too(monkeypatch):
    # Short ids are their own keys, but the pair key keeps only part of them: with a zero
    # multiplier every document of a query shares one pair key, and the check must notice.
    monkeypatch.setattr(rankkit.io.keys, "GOLD", np.uint64(0))
    qrels = {"q1": {"a": 1, "b": 2, "c": 0}, "q2": {"a": 3}}
    run = {"q1": {"c": 3.0, "b": 2.0, "z": 1.0}, "q2": {"a": 1.0, "y": 0.5}}
    assert_matches(rank(qrels, run), qrels, run)


# --------------------------------------------------------------------------- properties

doc_ids = st.sampled_from(["a", "b", "c", "B", "ab", "doc-with-a-long-id-1", "doc-with-a-long-id-2", "é", "d10", "d9"])
query_ids = st.sampled_from(["1", "2", "10", "q", "a-long-query-identifier"])
scores = st.sampled_from([0.0, 0.5, 1.0, 1.5, -2.0, 3.25])  # few values: many ties
labels = st.integers(-1, 3)


@settings(max_examples=sweep(100))
@given(
    st.dictionaries(query_ids, st.dictionaries(doc_ids, labels, max_size=8), max_size=4),
    st.dictionaries(query_ids, st.dictionaries(doc_ids, scores, min_size=1, max_size=10), max_size=4),
    st.sampled_from(["docno", "optimistic", "pessimistic"]),
    st.one_of(st.none(), st.integers(1, 6)),
    st.booleans(),
)
def test_matches_reference(qrels, run, ties, depth, judged_only):
    qrels = {q: docs for q, docs in qrels.items() if docs}
    r = rank(qrels, run, ties=ties, depth=depth, judged_only=judged_only)
    assert_matches(r, qrels, run, ties, depth, judged_only)


@settings(max_examples=sweep(60))
@given(
    st.dictionaries(query_ids, st.dictionaries(doc_ids, scores, min_size=1, max_size=10), min_size=1, max_size=4),
)
def test_average_tie_groups_are_the_equal_scores(run):
    r = rank({}, run, ties="average")
    queries, rows = reference({}, run)
    ids = r.ties
    assert len(np.unique(ids)) == len(np.unique(ids.ravel()))
    for i, q in enumerate(queries):
        s = rows[q]["scores"]
        n = len(s)
        for a in range(r.depth):
            for b in range(r.depth):
                same = a < n and b < n and s[a] == s[b]
                assert (ids[i, a] == ids[i, b]) == (same or a == b)
        # ids are unique across queries
        other = np.delete(ids, i, axis=0)
        assert not np.isin(ids[i], other).any()


@settings(max_examples=sweep(40))
@given(
    st.dictionaries(query_ids, st.dictionaries(doc_ids, st.integers(0, 2), min_size=1, max_size=8),
                    min_size=1, max_size=4),
    st.dictionaries(query_ids, st.dictionaries(doc_ids, scores, min_size=1, max_size=10), min_size=1, max_size=4),
)
def test_counts_agree_with_pytrec_eval(qrels, run):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    res = pytrec_eval.RelevanceEvaluator(qrels, {"P_5", "num_rel_ret", "num_ret"}).evaluate(run)
    r = rank(qrels, run)
    for i, q in enumerate(r.query_ids):
        if q not in res:
            continue  # pytrec_eval scores only queries in both
        relevant = r.labels[i] >= 1
        assert relevant.sum() == res[q]["num_rel_ret"]
        assert r.lengths[i] == res[q]["num_ret"]
        assert relevant[:5].sum() / 5 == pytest.approx(res[q]["P_5"], abs=1e-12)


# --------------------------------------------------------------------------- trec_eval's own data

def trec_eval_lines(name: str) -> dict:
    out = {}
    for line in (CONFORMANCE / name).read_text().splitlines():
        measure, query, value = line.split()
        out[(measure, query)] = value
    return out


@needs_conformance
@pytest.mark.parametrize("qrels, results, expected, level", [
    ("qrels.test", "results.test", "out.test.aq", 1),
    ("qrels.test", "results.trunc", "out.test.aqc", 1),
    ("qrels.rel_level", "results.test", "out.test.aql", 2),
])
def test_trec_eval_counts_and_precision(qrels, results, expected, level):
    r = rank(CONFORMANCE / qrels, CONFORMANCE / results)
    lines = trec_eval_lines(expected)
    assert list(r.query_ids) == ["301", "302", "303"]
    relevant = r.labels >= level
    for i, q in enumerate(r.query_ids):
        assert int(relevant[i].sum()) == int(lines[("num_rel_ret", q)])
        assert int(r.lengths[i]) == int(lines[("num_ret", q)])
        assert int((r.ideal[i] >= level).sum()) == int(lines[("num_rel", q)])
        for k in (5, 10, 100, 500):
            assert f"{relevant[i, :k].sum() / k:.4f}" == lines[(f"P_{k}", q)]
    if results == "results.trunc":
        assert r.has_run.tolist() == [True, False, True]  # 302 judged, absent from the run


def test_blocked_lookup_matches_reference(monkeypatch):
    # The run is looked up in blocks of rows; blocks that split a query must not matter.
    import rankkit.join

    monkeypatch.setattr(rankkit.join._lookup, "__kwdefaults__", {"block": 7})
    rng = np.random.default_rng(5)
    docs = [f"d{i}" for i in range(40)] + [f"a-long-document-name-{i}" for i in range(20)]
    run, qrels = {}, {}
    for q in range(30):
        picked = rng.choice(len(docs), size=int(rng.integers(1, 25)), replace=False)
        run[str(q)] = {docs[i]: float(rng.integers(0, 4)) for i in picked}
        judged = rng.choice(len(docs), size=int(rng.integers(0, 30)), replace=False)
        if q % 7:
            qrels[str(q)] = {docs[i]: int(rng.integers(-1, 4)) for i in judged}
    qrels = {q: d for q, d in qrels.items() if d}
    assert_matches(rank(qrels, run), qrels, run)


@settings(max_examples=sweep(60))
@given(
    st.dictionaries(query_ids, st.dictionaries(doc_ids, labels, min_size=1, max_size=8), max_size=4),
    st.dictionaries(query_ids, st.dictionaries(doc_ids, scores, min_size=1, max_size=10), min_size=1, max_size=4),
    st.randoms(use_true_random=False),
)
def test_frames_in_any_row_order_match_reference(qrels, run, random):
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    random.shuffle(rows)
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    judged = [(q, d, v) for q, docs in qrels.items() for d, v in docs.items()]
    random.shuffle(judged)
    qrels_frame = pd.DataFrame(judged, columns=["query_id", "doc_id", "relevance"], dtype=object)
    assert_matches(rank(qrels_frame, frame), qrels, run)


@pytest.mark.parametrize("ties", ["docno", "optimistic", "pessimistic", "average"])
def test_large_tie_groups_in_any_row_order(ties):
    # Scores are ordered by an unstable sort (tie groups come out in any order) and step 4
    # orders each group: with groups of hundreds (where NumPy's introsort really moves
    # equal keys) and rows in several orders, the result is the reference's, every time.
    rng = np.random.default_rng(11)
    run = {f"q{q}": {f"d{i}": float(rng.integers(0, 3)) for i in rng.choice(5000, 400, replace=False)}
           for q in range(4)}
    qrels = {q: {d: int(rng.integers(-1, 3)) for d in list(docs)[::3]} for q, docs in run.items()}
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    results = []
    for seed in range(4):
        order = np.random.default_rng(seed).permutation(len(rows))
        frame = pd.DataFrame([rows[i] for i in order], columns=["query_id", "doc_id", "score"])
        r = rank(qrels, frame, ties=ties)
        assert_matches(r, qrels, run, ties="docno" if ties == "average" else ties)  # average: docno order
        results.append((r.labels, r.judged, r.ties))
    for labels, judged, tie_ids in results[1:]:
        assert np.array_equal(labels, results[0][0]) and np.array_equal(judged, results[0][1])
        assert (tie_ids is None) == (results[0][2] is None)
        assert tie_ids is None or np.array_equal(tie_ids, results[0][2])


def test_judged_only_keeps_order_tie_groups_and_queries():
    qrels = {"q1": {"a": 2, "b": 0, "c": -1, "d": 1}, "q2": {"x": 1}}
    run = {"q1": {"a": 0.5, "b": 0.9, "c": 0.7, "e": 0.8, "d": 0.5}, "q2": {"y": 1.0}}
    full = rank(qrels, run)
    assert full.labels[0].tolist() == [0, 0, 0, 1, 2]  # b e c d a: d before a (docno desc)
    assert full.in_pool[0].tolist() == [True, False, True, True, True]  # c: label -1, pooled
    r = rank(qrels, run, judged_only=True, ties="average")
    assert r.labels[0].tolist() == [0, 1, 2] and r.lengths.tolist() == [3, 0]
    assert r.ties[0].tolist() == [0, 1, 1]  # d and a: still one tie group
    assert r.has_run.tolist() == [True, True]  # q2 retrieved nothing judged, yet is in the run
    assert rank(qrels, run, judged_only=True, depth=3).labels[0].tolist() == [0]  # -M before -J
    with pytest.raises(ValueError, match="judged_only must be True or False"):
        rank(qrels, run, judged_only="yes")


@settings(max_examples=sweep(80))
@given(st.lists(st.tuples(st.integers(0, 5), st.one_of(st.integers(0, 4), st.sampled_from([0.5, 2.25, 40.0, 1e6]))),
                max_size=60))
def test_ideal_grades_by_query_descending(pairs):
    # counted (a few whole grades) or sorted (others): both give every query's grades, highest first
    codes = np.array([c for c, _ in pairs], dtype=np.int64)
    grades = np.array([g for _, g in pairs], dtype=np.float64)
    want = [g for c in range(6) for g in sorted(grades[codes == c].tolist(), reverse=True)]
    assert rankkit.join._by_query_descending(codes, grades, 6).tolist() == want


@settings(max_examples=sweep(80))
@given(st.lists(st.lists(scores, min_size=1, max_size=30), min_size=1, max_size=8), st.booleans(), st.randoms())
def test_order_run_by_query_then_score(blocks, shuffled, rnd):
    # three paths: blocks already in rank order, blocks sorted one by one (as rows of a
    # padded matrix, when they are about as long), one sort of every line (the others)
    codes = list(range(len(blocks)))
    rnd.shuffle(codes)
    rows = [(c, s) for c, block in zip(codes, blocks) for s in block]
    if shuffled:
        rnd.shuffle(rows)
    run_rows = np.array([c for c, _ in rows], dtype=np.int32)
    values = np.array([s for _, s in rows])
    ordered = rankkit.join._order_run(run_rows, values, len(blocks))
    got = list(zip(run_rows[ordered.order].tolist(), values[ordered.order].tolist()))
    assert got == sorted(rows, key=lambda row: (row[0], -row[1]))
    assert sorted(ordered.order.tolist()) == list(range(len(rows)))
    assert ordered.q_sorted.tolist() == [c for c, _ in got]
    assert ordered.start.tolist() == [i == 0 or got[i] != got[i - 1] for i in range(len(got))]
    assert ordered.counts.tolist() == np.bincount(run_rows, minlength=len(blocks)).tolist()


# --------------------------------------------------------------------------- ids that never match

def _warnings_of(f, *args, **kwargs):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f(*args, **kwargs)
    return out, [w for w in caught if "is judged" in str(w.message)]


def test_ids_that_never_match_are_warned_about_with_one_id_of_each_side():
    qrels = {"q1": {"DOC-00001": 0, "DOC-02207": 1}, "q2": {"DOC-5": 1}}
    run = {"q1": {"doc-00001": 0.5, "doc-02207": 0.9}, "q2": {"doc-5": 1.0}, "q3": {"x": 1.0}}
    r, caught = _warnings_of(rank, qrels, run)
    assert [str(w.message) for w in caught] == [
        "no retrieved document of any query is judged: run ids look like 'doc-02207', judged ids like "
        "'DOC-02207' (ids must match exactly, case included)"]  # q1's first document, and its twin
    assert caught[0].category is UserWarning and caught[0].filename == __file__  # the caller's line
    assert not r.judged.any()
    # without a twin but for case: the query's first judged document
    _, caught = _warnings_of(rank, {"q1": {"DOC-9": 1, "DOC-8": 1}}, {"q1": {"a": 1.0}})
    assert "run ids look like 'a', judged ids like 'DOC-9'" in str(caught[0].message)
    # ids that are not UTF-8 are shown escaped, as read
    _, caught = _warnings_of(rank, {"q": {"caf\udce9": 1}}, {"q": {"CAF\udcc9": 1.0}})
    assert "run ids look like 'CAF\\udcc9', judged ids like 'caf\\udce9'" in str(caught[0].message)


def test_no_warning_when_one_document_matches_or_no_query_is_shared():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": -1}}
    for run in ({"q1": {"x": 1.0}, "q2": {"b": 0.5, "y": 0.2}},  # one match among many unjudged
                {"q3": {"c": 1.0}},  # label -1 ("pooled but not judged"): the ids do match
                {"q9": {"a": 1.0}},  # no query shared: rankkit.evaluate says that instead
                {}):
        _, caught = _warnings_of(rank, qrels, run)
        assert caught == [], run
    _, caught = _warnings_of(rank, qrels, {"q1": {"a": 1.0}}, depth=1, judged_only=True)
    assert caught == []


def test_evaluate_warns_once_from_a_frame_and_from_a_file(tmp_path):
    import rankkit as rk

    (tmp_path / "qrels").write_text("q1 0 DOC-1 1\nq2 0 DOC-2 1\n")
    (tmp_path / "run").write_text("q2 Q0 doc-2 1 1 t\nq1 Q0 doc-1 1 1 t\n")
    message = ("no retrieved document of any query is judged: run ids look like 'doc-1', judged ids like 'DOC-1' "
               "(ids must match exactly, case included)")
    for run in (tmp_path / "run", rk.read_run(tmp_path / "run")):
        table, caught = _warnings_of(rk.evaluate, tmp_path / "qrels", run, ["AP"])
        assert [str(w.message) for w in caught] == [message] and caught[0].filename == __file__
        assert table["AP"].tolist() == [0.0, 0.0]


def test_matched_over_parts_warns_once_for_the_whole_run():
    # the joins of a run's parts (blocks, Dask partitions) counted together: the warning
    # is the whole run's, with the example of the query that sorts first (q10 before q2)
    from rankkit.join import Matched, rank_frames

    def part(qrels, run):
        matched = Matched()
        rank_frames(rankkit.io.read_qrels(qrels), rankkit.io.read_run(run), matched=matched)
        return matched

    first, second = part({"q2": {"A": 1}}, {"q2": {"a": 1.0}}), part({"q10": {"B": 1}}, {"q10": {"b": 1.0}})
    assert (first.count, first.example) == (0, ("q2", "a", "A"))
    _, caught = _warnings_of(lambda: Matched().merge(first).merge(second).warn())
    assert [str(w.message) for w in caught] == [
        "no retrieved document of any query is judged: run ids look like 'b', judged ids like 'B' "
        "(ids must match exactly, case included)"]
    judged = part({"q3": {"c": 1}}, {"q3": {"c": 1.0}})
    _, caught = _warnings_of(lambda: Matched().merge(first).merge(judged).warn())
    assert judged.count == 1 and caught == []
