"""Tests for rankkit.io: TREC files, DataFrames and dicts in; validated DataFrames out."""

from __future__ import annotations

import errno
import gzip
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

from rankkit import evaluate, rank, read_qrels, read_run

CONFORMANCE = Path(__file__).resolve().parent / "data" / "trec_eval"   # trec_eval 10.0's test data, in the repository
needs_conformance = pytest.mark.skipif(not CONFORMANCE.is_dir(), reason="trec_eval test data absent")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


def as_dict(df: pd.DataFrame, value: str) -> dict:
    out: dict = {}
    for q, d, v in zip(df.query_id, df.doc_id, df[value]):
        out.setdefault(q, {})[d] = v
    return out


QRELS_TEXT = "q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\nq2 0 d3 -1\n"
RUN_TEXT = "q1 Q0 d1 1 2.5 sys\nq1 Q0 d3 2 1.25 sys\nq2 Q0 d2 1 0.5 sys\n"


# --------------------------------------------------------------------------- qrels

class TestReadQrels:
    def test_file(self, tmp_path):
        df = read_qrels(write(tmp_path, "q.txt", QRELS_TEXT))
        assert list(df.columns) == ["query_id", "doc_id", "relevance"]
        assert df.query_id.tolist() == ["q1", "q1", "q2", "q2"]
        assert df.doc_id.tolist() == ["d1", "d2", "d1", "d3"]
        assert df.relevance.tolist() == [2, 0, 1, -1]  # negative labels are kept
        assert df.relevance.dtype == np.int64
        assert isinstance(df.query_id.dtype, pd.CategoricalDtype)
        # pandas 3's "str"; the same type is "string[pyarrow_numpy]" in pandas 2.1-2.2
        assert isinstance(df.doc_id.dtype, pd.StringDtype) and df.doc_id.dtype.storage.startswith("pyarrow")
        assert df.doc_id.dtype.na_value is np.nan
        assert df.attrs["name"] is None

    def test_gzip_file_tabs_and_odd_whitespace(self, tmp_path):
        text = "q1\t0\td1\t2\n  q1 0   d2 0  \n\nq2\t0 d1\t1\n"
        df = read_qrels(write(tmp_path, "q.txt.gz", text))
        assert as_dict(df, "relevance") == {"q1": {"d1": 2, "d2": 0}, "q2": {"d1": 1}}

    def test_crlf_line_ends(self, tmp_path):
        path = tmp_path / "q.txt"
        path.write_bytes(b"q1 0 d1 2\r\nq1 0 d2 0\r\n")
        assert as_dict(read_qrels(path), "relevance") == {"q1": {"d1": 2, "d2": 0}}

    def test_query_categories_sorted_and_used_only(self):
        frame = pd.DataFrame({"query_id": pd.Categorical(["9", "10", "9"], categories=["9", "10", "11"]),
                              "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
        df = read_qrels(frame)
        assert list(df.query_id.cat.categories) == ["10", "9"]  # trec_eval's (string) order
        assert df.query_id.tolist() == ["9", "10", "9"]
        with pytest.raises(ValueError, match="query ids '1' occur as different types"):
            read_qrels(pd.DataFrame({"query_id": pd.Categorical([1, "1"]), "doc_id": ["a", "b"],
                                     "relevance": [1, 1]}))

    def test_float_labels(self, tmp_path):
        df = read_qrels(write(tmp_path, "q.txt", "q1 0 d1 0.5\nq1 0 d2 1\n"))
        assert df.relevance.dtype == np.float64
        assert df.relevance.tolist() == [0.5, 1.0]

    def test_dataframe_and_dict_agree_with_file(self, tmp_path):
        from_file = read_qrels(write(tmp_path, "q.txt", QRELS_TEXT))
        from_dict = read_qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d1": 1, "d3": -1}})
        frame = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d1", "d2", "d1", "d3"],
                              "relevance": [2, 0, 1, -1]})
        from_frame = read_qrels(frame, name="mine")
        for df in (from_dict, from_frame):
            pd.testing.assert_frame_equal(df, from_file, check_like=False)
        assert from_frame.attrs["name"] == "mine"

    def test_numeric_ids_become_strings(self):
        df = read_qrels(pd.DataFrame({"query_id": [301, 302], "doc_id": [7, 8], "relevance": [1, 0]}))
        assert df.query_id.tolist() == ["301", "302"] and df.doc_id.tolist() == ["7", "8"]
        assert read_qrels({301: {7: 1}}).doc_id.tolist() == ["7"]

    def test_frame_read_again_is_equal_and_a_copy(self):
        df = read_qrels({"q": {"d": 1}})
        again = read_qrels(df)
        assert again is not df and again.equals(df)

    def test_frame_edited_after_reading_is_validated_again(self):
        # read_* output edited in place must not slip past the checks (NaN, duplicates).
        run = read_run({"q": {"a": 1.0, "b": 0.5}, "r": {"c": 2.0}})
        run.loc[0, "score"] = np.nan
        with pytest.raises(ValueError, match="finite|NaN|nan"):
            rank({"q": {"a": 1}}, run)
        run = read_run({"q": {"a": 1.0, "b": 0.5}, "r": {"c": 2.0}})
        run.loc[1, "doc_id"] = "a"
        with pytest.raises(ValueError, match="a"):
            rank({"q": {"a": 1}}, run)

    def test_derived_copied_and_pickled_frames_rank_like_their_content(self):
        import pickle

        qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1, "y": 0}}
        run = read_run({"q1": {"a": 0.5, "b": 0.9, "c": 0.5, "d": 0.1}, "q2": {"x": 0.3, "y": 0.7, "z": 0.7}})
        for derived in (run.head(3), run[run.score > 0.2], run.copy(), pickle.loads(pickle.dumps(run)),
                        run.iloc[::-1]):
            by_query = derived.groupby("query_id", observed=True)
            expected = rank(qrels, {q: dict(zip(g.doc_id, g.score)) for q, g in by_query})
            got = rank(qrels, derived)
            assert list(got.query_ids) == list(expected.query_ids)
            np.testing.assert_array_equal(got.labels, expected.labels)
            np.testing.assert_array_equal(got.judged, expected.judged)
            np.testing.assert_array_equal(got.lengths, expected.lengths)

    @needs_conformance
    def test_trec_eval_files(self):
        df = read_qrels(CONFORMANCE / "qrels.test")
        assert len(df) == 3681
        assert df.relevance.value_counts().to_dict() == {0: 3120, 1: 561}
        levels = read_qrels(CONFORMANCE / "qrels.rel_level")
        assert levels.relevance.value_counts().to_dict() == {0: 2818, 1: 462, -1: 304, 3: 77, 2: 14, 4: 6}


# --------------------------------------------------------------------------- run

class TestReadRun:
    def test_file(self, tmp_path):
        df = read_run(write(tmp_path, "run.txt", RUN_TEXT))
        assert list(df.columns) == ["query_id", "doc_id", "score"]
        assert df.score.dtype == np.float64
        assert df.score.tolist() == [2.5, 1.25, 0.5]
        assert df.attrs["name"] == "sys"
        assert read_run(write(tmp_path, "run2.txt", RUN_TEXT), name="other").attrs["name"] == "other"

    def test_tabs_spaces_and_trailing_columns(self, tmp_path):
        # results.test uses a tab then spaces before the score; results.trunc has trailing junk.
        text = "q1\tQ0\td1\t1\t  2.5\tsys\nq1\tQ0\td2\t2\t  1.5\tsys more junk\nq2 Q0  d1 1 -3e2 sys\n"
        df = read_run(write(tmp_path, "run.txt", text))
        assert as_dict(df, "score") == {"q1": {"d1": 2.5, "d2": 1.5}, "q2": {"d1": -300.0}}

    def test_ids_are_split_on_any_whitespace(self, tmp_path):
        # Lines split on tabs, but a field holds a space: trec_eval splits there too.
        text = "q1\tQ0\td1\t1\t2.5\tsys\nq1\tQ0\td2 d3\t2\t1.5\tsys\n"
        # whitespace split of line 2: q1 Q0 d2 d3 2 1.5 sys -> doc d2, score 2
        assert as_dict(read_run(write(tmp_path, "a.txt", text)), "score") == {"q1": {"d1": 2.5, "d2": 2.0}}
        with pytest.raises(ValueError, match=r"b\.txt line 2: expected 4 columns, got 5"):
            read_qrels(write(tmp_path, "b.txt", "q1\t0\td1\t1\nq1\t0\td2 x\t1\n"))
        text = "q1 0 d1 1\nq1 0 d2\tx 1\n"
        with pytest.raises(ValueError, match=r"c\.txt line 2: expected 4 columns, got 5"):
            read_qrels(write(tmp_path, "c.txt", text))

    def test_dict_and_frame(self):
        df = read_run({"q1": {"d1": 2, "d2": 1.5}})
        assert df.score.tolist() == [2.0, 1.5] and df.score.dtype == np.float64
        frame = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [1]})
        frame.attrs["name"] = "bm25"
        assert read_run(frame).attrs["name"] == "bm25"

    def test_empty_dict_gives_empty_frame(self):
        df = read_run({})
        assert len(df) == 0 and list(df.columns) == ["query_id", "doc_id", "score"]

    @needs_conformance
    def test_trec_eval_files(self):
        full = read_run(CONFORMANCE / "results.test")
        assert len(full) == 1500 and full.attrs["name"] == "STANDARD"
        assert full.score.iloc[0] == 2.129133
        trunc = read_run(CONFORMANCE / "results.trunc")  # lines with 6 to 9 columns
        assert len(trunc) == 584
        assert trunc.groupby("query_id", observed=True).size().to_dict() == {"301": 500, "303": 84}


# --------------------------------------------------------------------------- bad input

class TestBadInput:
    def test_malformed_line_names_file_and_line(self, tmp_path):
        path = write(tmp_path, "run.txt", RUN_TEXT + "\nq3 Q0 d1 1\n" + RUN_TEXT)
        with pytest.raises(ValueError, match=r"run\.txt line 5: expected at least 6 columns, got 4"):
            read_run(path)

    def test_qrels_line_with_extra_column(self, tmp_path):
        path = write(tmp_path, "qrels.txt", QRELS_TEXT + "q9 0 d1 1 extra\n")
        with pytest.raises(ValueError, match=r"qrels\.txt line 5: expected 4 columns, got 5"):
            read_qrels(path)

    def test_non_numeric_relevance(self, tmp_path):
        path = write(tmp_path, "qrels.txt", "q1 0 d1 1\nq1 0 d2 high\n")
        with pytest.raises(ValueError, match=r"qrels\.txt line 2: relevance must be a number, got 'high'"):
            read_qrels(path)

    def test_non_numeric_score(self, tmp_path):
        path = write(tmp_path, "run.txt", "q1 Q0 d1 1 1.0 s\nq1 Q0 d2 2 abc s\n")
        with pytest.raises(ValueError, match=r"run\.txt line 2: score must be a number, got 'abc'"):
            read_run(path)

    @pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "NaN"])
    def test_non_finite_score_in_file(self, tmp_path, bad):
        path = write(tmp_path, "run.txt", f"q1 Q0 d1 1 1.0 s\n\nq1 Q0 d2 2 {bad} s\n")
        with pytest.raises(ValueError, match=rf"run\.txt line 3: score must be finite, got '{bad}'"):
            read_run(path)

    def test_non_finite_score_in_dict_and_frame(self):
        with pytest.raises(ValueError, match=r"score must be finite, got nan for query 'q1', document 'b'"):
            read_run({"q1": {"a": 1.0, "b": float("nan")}})
        frame = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [np.inf]})
        with pytest.raises(ValueError, match="score must be finite, got inf"):
            read_run(frame)

    def test_non_numeric_value_in_dict_and_frame(self):
        with pytest.raises(ValueError, match=r"run\['q1'\]\['b'\]: score must be a number, got 'x'"):
            read_run({"q1": {"a": 1.0, "b": "x"}})
        with pytest.raises(ValueError, match=r"qrels\['q1'\] must be a dict"):
            read_qrels({"q1": ["d1"]})
        frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1, "two"]})
        with pytest.raises(ValueError, match="relevance must be a number, got 'two' in row 1"):
            read_qrels(frame)

    def test_duplicate_document_in_run_file(self, tmp_path):
        path = write(tmp_path, "run.txt", "q1 Q0 d1 1 2 s\nq2 Q0 d1 1 2 s\nq1 Q0 d2 2 1 s\nq1 Q0 d1 3 0 s\n")
        with pytest.raises(ValueError, match=r"run\.txt lines 1 and 4: document 'd1' is retrieved twice for query 'q1' "
                                             r"\(trec_eval rejects duplicates; remove one\)$"):
            read_run(path)

    def test_duplicate_document_in_qrels_file_and_frame(self, tmp_path):
        path = write(tmp_path, "qrels.txt", "q1 0 d1 1\nq1 0 d1 0\n")
        with pytest.raises(ValueError, match=r"qrels\.txt lines 1 and 2: document 'd1' is judged twice for query 'q1'"):
            read_qrels(path)
        frame = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a-long-document-id"] * 2, "relevance": [1, 1]})
        with pytest.raises(ValueError, match="document 'a-long-document-id' is judged twice for query 'q'"):
            read_qrels(frame)

    @pytest.mark.parametrize("queries, docs", [(["q1", "q1", "q2", "q1", "q2"], ["a", "b", "a", "c", "b"]),
                                               (["q1", "q1", "q1", "q2", "q2"], ["a", "b", "c", "a", "b"])],
                             ids=["scattered", "grouped"])
    def test_duplicate_check_confirms_shared_keys_on_the_ids(self, monkeypatch, queries, docs):
        # With a zero multiplier every document of a query gets the query's key: all rows
        # are suspects, and only a document really listed twice may be reported. Rows
        # grouped by query take the block-wise path (io.checks._suspect_queries), others the pair keys.
        import rankkit.io.checks
        import rankkit.io.keys

        monkeypatch.setattr(rankkit.io.keys, "GOLD", np.uint64(0))
        monkeypatch.setattr(rankkit.io.checks, "GOLD", np.uint64(0))
        run = pd.DataFrame({"query_id": queries, "doc_id": docs,
                            "score": [3.0, 2.0, 1.0, 0.5, 0.2]})
        assert len(read_run(run)) == 5
        at = docs.index("c")  # q1's document c, listed again after it
        twice = pd.concat([run.iloc[:at + 1], run.iloc[[at]], run.iloc[at + 1:]], ignore_index=True)
        with pytest.raises(ValueError, match="document 'c' is retrieved twice for query 'q1'"):
            read_run(twice)

    @settings(max_examples=sweep(50))
    @given(st.lists(st.tuples(st.sampled_from(["1", "2", "10", "q"]),
                              st.sampled_from(["a", "b", "doc-id-longer-than-8"])),
                    min_size=1, max_size=12))
    def test_duplicate_check_finds_exactly_the_repeated_pairs(self, rows):
        # In any row order (grouped by query or not), against pandas' own duplicated().
        run = pd.DataFrame(rows, columns=["query_id", "doc_id"]).assign(score=1.0)
        if run.duplicated(["query_id", "doc_id"]).any():
            with pytest.raises(ValueError, match="is retrieved twice"):
                read_run(run)
        else:
            assert len(read_run(run)) == len(run)

    def test_same_document_in_two_queries_is_fine(self):
        df = read_qrels({"q1": {"d": 1}, "q2": {"d": 0}})
        assert len(df) == 2

    @pytest.mark.parametrize("text", ["", "\n\n", "   \n\t\n"])
    def test_empty_file(self, tmp_path, text):
        path = write(tmp_path, "run.txt", text)
        with pytest.raises(ValueError, match=r"run\.txt: empty file, expected run lines"):
            read_run(path)
        with pytest.raises(ValueError, match=r"run\.txt: empty file, expected qrels lines"):
            read_qrels(path)

    def test_missing_file_and_bad_types(self, tmp_path):
        with pytest.raises(FileNotFoundError, match=r"nope\.txt: no such file$"):
            read_run(tmp_path / "nope.txt")
        with pytest.raises(ValueError, match=r"qrels must be a file path \(TREC, Parquet or Feather\), a pandas "
                                             r"DataFrame"):
            read_qrels(42)
        with pytest.raises(ValueError, match="qrels records must be namedtuples, dataclasses or dicts with named "
                                             "fields, got tuple"):
            read_qrels([("q", "d", 1)])
        with pytest.raises(ValueError, match="missing relevance"):
            read_qrels(pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1]}))
        with pytest.raises(ValueError, match="query_id is missing in row 0"):
            read_run(pd.DataFrame({"query_id": [None], "doc_id": ["d"], "score": [1]}))

    @pytest.mark.parametrize("missing", [None, np.nan, pd.NA, pd.NaT])
    # "str" keeps None and NaN missing from pandas 3 on (pandas 2 writes "None", "nan")
    @pytest.mark.parametrize("dtype", [object, "string", "category"] + (["str"] if int(pd.__version__[0]) >= 3 else []))
    @pytest.mark.parametrize("column", ["query_id", "doc_id"])
    def test_missing_id_names_its_row(self, missing, dtype, column):
        # object columns are checked as they are converted, the others before: the same error
        ids = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"]}
        ids[column] = [ids[column][0], missing, ids[column][2]]
        df = pd.DataFrame({**ids, "score": [3.0, 2.0, 1.0]}, index=[10, 11, 12]).astype({column: dtype})
        with pytest.raises(ValueError, match=rf"run DataFrame: {column} is missing in row 11$"):
            read_run(df)

    @pytest.mark.parametrize("column", ["query_id", "doc_id"])
    def test_missing_id_among_other_objects_names_its_row(self, column):
        ids = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"]}
        ids[column] = [7, "x", None]  # not all str: converted through their text
        with pytest.raises(ValueError, match=rf"{column} is missing in row 2$"):
            read_run(pd.DataFrame({**ids, "score": [3.0, 2.0, 1.0]}))
        ids[column] = [7, "x", "y"]
        assert read_run(pd.DataFrame({**ids, "score": [3.0, 2.0, 1.0]}))[column].tolist() == ["7", "x", "y"]


# --------------------------------------------------------------------------- properties

ids = st.text(alphabet="abcXYZ019-_.é", min_size=1, max_size=12)
values = st.integers(-1, 3)


@settings(max_examples=sweep(60))
@given(st.dictionaries(ids, st.dictionaries(ids, values, min_size=1, max_size=6), min_size=1, max_size=5))
def test_file_dict_and_frame_paths_agree(tmp_path_factory, qrels):
    tmp = tmp_path_factory.mktemp("io")
    lines = "".join(f"{q} 0 {d} {v}\n" for q, docs in qrels.items() for d, v in docs.items())
    from_file = read_qrels(write(tmp, "q.txt", lines))
    from_dict = read_qrels(qrels)
    assert as_dict(from_file, "relevance") == qrels
    pd.testing.assert_frame_equal(from_file, from_dict)
    pd.testing.assert_frame_equal(read_qrels(from_dict.copy()), from_dict)




@pytest.mark.parametrize("kind, reader, data", [
    ("retrieved", read_run, {"q1": {1: 0.2, "1": 0.9, "b": 0.5}}),
    ("judged", read_qrels, {"q1": {1: 1, "1": 0}}),
])
def test_dict_keys_that_become_one_id_are_duplicates(kind, reader, data):
    # distinct keys 1 and "1" are the one document id "1": an error, as in a frame
    with pytest.raises(ValueError, match=rf"document '1' is {kind} twice for query 'q1'"):
        reader(data)
    assert reader({"q1": {1: 1, "b": 0}}).doc_id.tolist() == ["1", "b"]


def test_labels_too_large_for_int64_stay_float(tmp_path):
    # 1e19 as int64 would wrap to a negative label ("not judged"); kept as the float it is
    for source in ({"q": {"a": 1e19, "b": 2}}, write(tmp_path, "q.txt", "q 0 a 1e19\nq 0 b 2\n"),
                   pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [1e19, 2.0]})):
        labels = read_qrels(source).relevance
        assert labels.dtype == np.float64 and labels.tolist() == [1e19, 2.0]
    assert read_qrels({"q": {"a": 3.0, "b": 2}}).relevance.dtype == np.int64


@pytest.mark.parametrize("dtype", ["float64", "Float64", "float32"])
def test_float_id_columns_are_refused_as_from_arrow(dtype):
    # 10.0 would be the id "10.0" and match no judgment "10": an error naming the column
    run = pd.DataFrame({"query_id": [1, 1], "doc_id": [10, 20], "score": [0.5, 0.4]}).astype({"doc_id": dtype})
    with pytest.raises(ValueError, match=rf"run DataFrame: doc_id must hold text or integer ids, got {dtype}"):
        read_run(run)
    with pytest.raises(ValueError, match=r"query_id must hold text or integer ids, got float64"):
        read_run(run.astype({"doc_id": "int64", "query_id": "float64"}))


def test_query_ids_equal_in_python_but_not_as_text_are_an_error():
    # pandas would keep whichever of 1 and 1.0 comes first: the ids would depend on row order
    qrels = pd.DataFrame({"query_id": pd.Series([1, 1.0], dtype=object), "doc_id": ["a", "b"], "relevance": [1, 1]})
    for frame in (qrels, qrels.iloc[::-1]):
        with pytest.raises(ValueError, match=r"query ids 1(\.0)? and 1(\.0)? are equal in Python but different ids"):
            read_qrels(frame)
    mixed = pd.DataFrame({"query_id": pd.Series([1, "q2"], dtype=object), "doc_id": ["a", "b"], "relevance": [1, 1]})
    assert read_qrels(mixed).query_id.tolist() == ["1", "q2"]


class TestClearErrors:
    def test_bad_value_names_one_row_whatever_the_index(self):
        pairs = pd.MultiIndex.from_tuples([(1, "a"), (1, "b"), (2, "c")])
        for index, row in (([0, 0, 0], "0"), (pairs, r"\(1, 'b'\)")):
            run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [1, "x", 2]}, index=index)
            with pytest.raises(ValueError, match=rf"run DataFrame: score must be a number, got 'x' in row {row}$"):
                read_run(run)

    def test_a_column_given_twice(self):
        with pytest.raises(ValueError, match=r"run DataFrame: column 'qid' appears more than once"):
            read_run(pd.DataFrame([["q", "q", "a", 1.0]], columns=["qid", "qid", "docno", "score"]))

    def test_ids_with_a_lone_surrogate(self):
        with pytest.raises(ValueError, match=r"run: ids must be text, got 'q\\ud800', which holds '\\ud800'"):
            read_run({"q\ud800": {"a": 1.0}})

    def test_file_objects_named_by_their_type(self):
        import io
        with pytest.raises(ValueError, match=r"^<BytesIO> line 1: score must be a number"):
            read_run(io.BytesIO(b"q Q0 a 1 x t\n"))


@pytest.mark.parametrize("data, what, value", [({"q": {10.0: 1}}, "document", "10.0"),
                                               ({1.0: {"a": 1}}, "query", "1.0")])
def test_float_dict_keys_are_refused_as_float_columns_are(data, what, value):
    with pytest.raises(ValueError, match=rf"qrels: {what} ids must be text or integers, got the float {value}"):
        read_qrels(data)
    assert read_qrels({1: {10: 1, "b": 1}}).doc_id.tolist() == ["10", "b"]


# --------------------------------------------------------------------------- mistakes a message should explain

RUN_LINE = r"; a run line is 'qid Q0 docno rank score tag'$"
SWAP = r"Swap the arguments: the judgments \(QRELS\) first, then the run \(RUN\)$"


class TestMistakesSaidWithWhatToDo:
    """Files given in the wrong order, a run without its tag, a missing file, a document
    listed twice: each message says what is wrong, where, and what to do."""

    @pytest.mark.parametrize("name", ["run.txt", "run.gz"])
    def test_a_run_given_as_qrels(self, tmp_path, name):
        path = write(tmp_path, name, RUN_TEXT)
        message = (r"line 1: expected 4 columns, got 6; this looks like a run line \(qid Q0 docno rank score tag\): "
                   r"was the run given as QRELS\? " + SWAP)
        with pytest.raises(ValueError, match=rf"^{re.escape(str(path))} {message}"):
            read_qrels(path)
        qrels = write(tmp_path, "qrels.txt", QRELS_TEXT)
        with pytest.raises(ValueError, match=message):  # evaluate(run, qrels): the first argument is read first
            evaluate(path, qrels, ["AP"])
        # the same after comments and blank lines (another parser), numbered in the file
        with pytest.raises(ValueError, match=r"run2\.txt line 3: expected 4 columns, got 6; this looks like a run"):
            read_qrels(write(tmp_path, "run2.txt", "# a comment\n\n" + RUN_TEXT))

    def test_qrels_given_as_the_run(self, tmp_path):
        qrels = write(tmp_path, "qrels.txt", QRELS_TEXT)
        message = (r"qrels\.txt line 1: expected at least 6 columns, got 4; this looks like a qrels line "
                   r"\(qid iter docno rel\): were the judgments given as RUN\? " + SWAP)
        with pytest.raises(ValueError, match=message):
            read_run(qrels)
        with pytest.raises(ValueError, match=message):  # read in blocks, as evaluate reads a run file
            evaluate(qrels, qrels, ["AP"])

    def test_no_swap_hint_for_lines_that_are_not_the_other_kind(self, tmp_path):
        # 6 fields whose 4th and 5th are not numbers (two qrels lines run together), and a
        # run line of 4 fields whose 4th is not a number: the line expected, no swap
        with pytest.raises(ValueError, match=r"q\.txt line 1: expected 4 columns, got 6; "
                                             r"a qrels line is 'qid iter docno rel'$"):
            read_qrels(write(tmp_path, "q.txt", "q1 0 d1 x d2 0\n"))
        with pytest.raises(ValueError, match=r"r\.txt line 2: expected at least 6 columns, got 4" + RUN_LINE):
            read_run(write(tmp_path, "r.txt", "q1 Q0 d1 1 2 t\nq1 Q0 d2 t\n"))

    def test_a_run_without_its_tag_shows_the_line_expected(self, tmp_path):
        path = write(tmp_path, "notag.txt", "q1 Q0 d1 1 2.5\nq1 Q0 d2 2 1.5\n")
        expected = r" line 1: expected at least 6 columns, got 5" + RUN_LINE
        with pytest.raises(ValueError, match=r"^" + re.escape(str(path)) + expected):
            read_run(path)
        qrels = write(tmp_path, "qrels.txt", QRELS_TEXT)
        with pytest.raises(ValueError, match=r"notag\.txt line 1: expected at least 6 columns, got 5" + RUN_LINE):
            evaluate(qrels, path, ["AP"])

    def test_missing_file_and_directory_are_the_os_errors(self, tmp_path):
        qrels = write(tmp_path, "qrels.txt", QRELS_TEXT)
        missing = tmp_path / "no-run.txt"
        for call in (lambda: read_run(missing), lambda: evaluate(qrels, missing, ["AP"]),
                     lambda: evaluate(missing, qrels, ["AP"]), lambda: rank(missing, qrels)):
            with pytest.raises(FileNotFoundError, match=r"no-run\.txt: no such file$") as caught:
                call()
            assert caught.value.errno == errno.ENOENT and isinstance(caught.value, ValueError)
        with pytest.raises(IsADirectoryError, match=rf"^{re.escape(str(tmp_path))}: is a directory$"):
            evaluate(qrels, tmp_path, ["AP"])

    def test_a_duplicate_names_both_lines(self, tmp_path):
        # d1 of q1 on lines 3 and 7 (a comment and a blank line count); d10 and q2's d1 are others
        text = "# run\nq1 Q0 d10 1 3 s\nq1 Q0 d1 2 2 s\nq2 Q0 d1 1 2 s\n\nq1 Q0 d2 3 1 s\nq1 Q0 d1 4 0 s\n"
        message = (r"lines 3 and 7: document 'd1' is retrieved twice for query 'q1' "
                   r"\(trec_eval rejects duplicates; remove one\)$")
        for name in ("dup.txt", "dup.gz"):
            with pytest.raises(ValueError, match=rf"^{re.escape(str(tmp_path / name))} {message}"):
                read_run(write(tmp_path, name, text))
        with open(tmp_path / "dup.txt", "rb") as f:  # a file object: read again from where it started
            f.readline()
            with pytest.raises(ValueError, match=r"dup\.txt lines 2 and 6: document 'd1'"):
                read_run(f)

        class Pipe(io.RawIOBase):  # a stream that cannot seek, like standard input
            def __init__(self, data):
                self._data = io.BytesIO(data)

            def readable(self):
                return True

            def readinto(self, buffer):
                return self._data.readinto(buffer)

        with pytest.raises(ValueError, match=rf"^<Pipe> {message}"):
            read_run(Pipe(text.encode()))
        with pytest.raises(ValueError, match=r"^<Pipe> line 1: expected at least 6"):
            read_run(Pipe(QRELS_TEXT.encode()))
        qrels = write(tmp_path, "q.txt", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 1\n")
        with pytest.raises(ValueError, match=r"q\.txt lines 1 and 3: document 'd1' is judged twice for query 'q1'"):
            read_qrels(qrels)

    def test_a_duplicate_in_a_run_read_in_blocks_names_its_lines(self, tmp_path):
        # Blocks of ~4 KB: the duplicate's lines are ~100 blocks apart; grouped by query
        # (the last query), or not (the first query comes back: partitioned, then checked)
        from rankkit.io import RunFile, RunNotGrouped

        lines = [f"q{q:02d} Q0 doc-{d:04d} {d + 1} {1000 - d} run\n" for q in range(20) for d in range(1000)]
        for at, grouped in ((19_500, True), (10, False)):
            path = tmp_path / "blocks.txt"
            path.write_text("".join(lines + [lines[at]]))
            message = (rf"blocks\.txt lines {at + 1} and 20001: document 'doc-{at % 1000:04d}' is retrieved twice "
                       rf"for query 'q{at // 1000:02d}'")
            with RunFile(path, size=4096) as run, pytest.raises(ValueError, match=message):
                if grouped:
                    list(run.grouped())
                else:
                    with pytest.raises(RunNotGrouped):
                        list(run.grouped())
                    list(run.partitioned(str(tmp_path)))
            qrels = write(tmp_path, "qrels.txt", "q00 0 doc-0001 1\nq19 0 doc-0001 1\n")
            with pytest.raises(ValueError, match=message):
                evaluate(qrels, path, ["AP"])


@settings(max_examples=sweep(40))
@given(lines=st.lists(st.tuples(st.sampled_from(["q1", "q2", "10"]), st.text("abcXYZ-_", min_size=1, max_size=40),
                                st.integers(-5, 99)), min_size=1, max_size=30),
       size=st.integers(1, 120), bom=st.booleans(), last_newline=st.booleans(), noise=st.booleans())
def test_a_plain_file_in_blocks_is_the_file_parsed_whole(tmp_path_factory, lines, size, bom, last_newline, noise):
    # trec_format.blocks reads a plain file straight into each block's buffer; whatever the
    # block size (below a line's length too), byte order mark, last newline or odd lines
    # (comments, blank lines, tabs: the parse other than the clean one), the blocks' rows
    # are the whole file's, and so are their line numbers (the last line's error names it)
    from rankkit.io.trec_format import blocks, parse

    text = "".join(f"{q} Q0 {d} {i + 1} {s} tag{i}\n" + ("# note\n\n" if noise and i % 3 == 0 else "")
                   for i, (q, d, s) in enumerate(lines))
    text = text if last_newline else text[:-1]
    path = tmp_path_factory.mktemp("blocks") / "run.txt"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.replace(" Q0 ", "\tQ0 " if noise else " Q0 ").encode())
    _, queries, docs, scores, tag = parse(str(path), "run")
    parts = list(blocks(str(path), "run", size))
    assert [q for p in parts for q in p[1].to_pylist()] == queries.to_pylist()
    assert [d for p in parts for d in p[2].to_pylist()] == docs.to_pylist()
    assert np.concatenate([p[3] for p in parts]).tolist() == scores.tolist()
    assert [p[4] for p in parts if len(p[3])][-1] == tag == f"tag{len(lines) - 1}"
    assert sum(p[5] for p in parts) == len(text.encode()) + (not text.endswith("\n"))  # every byte once, the BOM aside
    bad = path.read_bytes().rstrip(b"\n") + b"\nq1 Q0 short\n"
    path.write_bytes(bad)
    line = bad.count(b"\n")
    with pytest.raises(ValueError, match=rf"run\.txt line {line}: expected at least 6 columns, got 3"):
        list(blocks(str(path), "run", size))


def test_a_bug_in_the_clean_scan_is_raised_not_hidden_by_the_careful_parser(tmp_path, monkeypatch):
    """The scan that vouches for pyarrow's parse runs in a thread; an error it does not
    expect (a bug) reaches the caller instead of switching silently to the slower parser."""
    from rankkit.io import trec_format

    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n")

    def broken(self, view, start, end):
        raise RuntimeError("a bug in the scan")

    monkeypatch.setattr(trec_format._CleanScan, "check", broken)
    with pytest.raises(RuntimeError, match="a bug in the scan"):
        read_run(path)
