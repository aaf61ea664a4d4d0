"""The ecosystem's inputs: pyterrier frames, ``columns=``, records (ir_datasets, ir_measures),
datasets, Arrow tables, Parquet and Feather files. Each must give exactly what the same data
gives as rankkit's own DataFrame, and bad input one clear ValueError."""

from __future__ import annotations

import dataclasses
import gzip
import io
import subprocess
import sys
import warnings
from collections import namedtuple
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit as rk
from rankkit.io import COLUMN_NAMES

ROOT = Path(__file__).resolve().parents[1]

# ir_datasets' record types, by their field names (ir_datasets.formats.TrecQrel, GenericScoredDoc)
TrecQrel = namedtuple("TrecQrel", ["query_id", "doc_id", "relevance", "iteration"])
GenericScoredDoc = namedtuple("GenericScoredDoc", ["query_id", "doc_id", "score"])

QRELS = pd.DataFrame({"query_id": ["1", "1", "1", "2", "2"], "doc_id": ["a", "b", "c", "a", "d"],
                      "relevance": [2, 0, 1, 1, 0]})
RUN = pd.DataFrame({"query_id": ["1", "1", "1", "2", "2", "3"], "doc_id": ["a", "b", "z", "d", "a", "a"],
                    "score": [0.5, 0.9, 0.1, 2.0, 1.5, 1.0]})
METRICS = ["P@2", "AP", "nDCG@3", "RR", "num_ret"]


def expected():
    with pytest.warns(UserWarning):
        return rk.evaluate(QRELS, RUN, METRICS)


def same(table: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(table, expected(), check_exact=True)


def pyterrier(qrels=QRELS, run=RUN):
    """The frames pyterrier makes: qid/docno/label, and qid/docno/score/rank (+ query text)."""
    qt = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    rt = run.rename(columns={"query_id": "qid", "doc_id": "docno"})
    rt["rank"] = rt.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
    rt["query"] = "some text"
    return qt, rt


# --------------------------------------------------------------------------- frames

class TestFrames:
    def test_pyterrier_frames(self):
        qt, rt = pyterrier()
        with pytest.warns(UserWarning):
            same(rk.evaluate(qt, rt, METRICS))

    def test_rank_without_score_orders_by_rank(self):
        qt, rt = pyterrier()
        with pytest.warns(UserWarning):
            by_rank = rk.evaluate(qt, rt.drop(columns="score"), METRICS)
        same(by_rank)  # the ranks follow the scores
        run = rk.read_run(rt.drop(columns="score"))
        assert run.score.tolist() == [-1.0, 0.0, -2.0, 0.0, -1.0, 0.0]

    def test_rank_zero_is_not_minus_zero(self):
        run = rk.read_run(pd.DataFrame({"qid": ["q"], "docno": ["d"], "rank": [0]}))
        assert not np.signbit(run.score.to_numpy()[0])

    def test_columns_mapping(self):
        qt = QRELS.rename(columns={"query_id": "topic", "doc_id": "docid", "relevance": "grade"})
        rt = RUN.rename(columns={"query_id": "topic", "doc_id": "docid", "score": "sim"})
        names = {"topic": "query_id", "docid": "doc_id", "grade": "relevance", "sim": "score"}
        with pytest.warns(UserWarning):
            same(rk.evaluate(qt, rt, METRICS, columns=names))
        with pytest.warns(UserWarning):
            table = rk.compare(qt, {"a": rt, "b": rt.assign(sim=-rt.sim)}, ["AP"], columns=names)
        assert len(table) == 1

    def test_columns_mapping_wins_over_the_usual_names(self):
        rt = RUN.assign(other=-RUN.score)
        run = rk.read_run(rt, columns={"other": "score"})
        assert run.score.tolist() == (-RUN.score).tolist()
        run = rk.read_run(RUN.assign(pos=range(6)), columns={"pos": "rank"})
        assert run.score.tolist() == [0.0, -1.0, -2.0, -3.0, -4.0, -5.0]

    def test_names_are_documented_in_one_table(self):
        assert COLUMN_NAMES["query_id"] == ("query_id", "qid")
        assert COLUMN_NAMES["doc_id"] == ("doc_id", "docno")
        assert COLUMN_NAMES["relevance"] == ("relevance", "label")

    def test_missing_column_one_line_naming_what_it_has(self):
        with pytest.raises(ValueError) as err:
            rk.read_run(RUN.rename(columns={"score": "sim"}))
        message = str(err.value)
        assert "\n" not in message
        assert message == ("run DataFrame must have columns query_id (or qid), doc_id (or docno), score "
                           "(or rank); missing score; it has query_id, doc_id, sim "
                           "(name yours with columns={'yours': 'score'})")

    @pytest.mark.parametrize("columns, message", [
        ({"x": "foo"}, r"columns\['x'\] must be one of query_id, doc_id, relevance, score, rank, got 'foo'"),
        ({"x": "score", "y": "score"}, "columns names two columns 'x' and 'y' as 'score'"),
        (["query_id"], "columns must be a dict"),
    ])
    def test_bad_columns_argument(self, columns, message):
        with pytest.raises(ValueError, match=message):
            rk.read_run(RUN, columns=columns)

    def test_arrow_table(self):
        with pytest.warns(UserWarning):
            same(rk.evaluate(pa.Table.from_pandas(QRELS), pa.Table.from_pandas(RUN), METRICS))


# --------------------------------------------------------------------------- records

@dataclasses.dataclass
class ScoredDoc:
    query_id: str
    doc_id: str
    score: float


class Dataset:
    """What rankkit uses of an ir_datasets dataset (no download: the records are here)."""

    def qrels_iter(self):
        return (TrecQrel(q, d, int(r), "0") for q, d, r in QRELS.itertuples(index=False))

    def scoreddocs_iter(self):
        return (GenericScoredDoc(q, d, s) for q, d, s in RUN.itertuples(index=False))


class TestRecords:
    def test_ir_datasets_namedtuples(self):
        ds = Dataset()
        with pytest.warns(UserWarning):
            same(rk.evaluate(ds.qrels_iter(), ds.scoreddocs_iter(), METRICS))

    def test_dataset_object(self):
        with pytest.warns(UserWarning):
            same(rk.evaluate(Dataset(), Dataset(), METRICS))

    def test_dataclasses_and_dicts(self):
        qrels = [dict(zip(("query_id", "doc_id", "relevance"), row)) for row in QRELS.itertuples(index=False)]
        run = [ScoredDoc(*row) for row in RUN.itertuples(index=False)]
        with pytest.warns(UserWarning):
            same(rk.evaluate(qrels, run, METRICS))

    def test_ir_measures_records(self):
        ir_measures = pytest.importorskip("ir_measures")
        qrels = [ir_measures.Qrel(q, d, int(r)) for q, d, r in QRELS.itertuples(index=False)]
        run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in RUN.itertuples(index=False)]
        with pytest.warns(UserWarning):
            same(rk.evaluate(qrels, run, METRICS))

    def test_integer_ids_are_text(self):
        run = rk.read_run([{"query_id": 1, "doc_id": 7, "score": 2}])
        assert run.query_id.tolist() == ["1"] and run.doc_id.tolist() == ["7"]

    @pytest.mark.parametrize("records, message", [
        ([TrecQrel("1", "a", 1, "0")], r"^run records \(TrecQrel\) must have fields query_id \(or qid\), "
                                        r"doc_id \(or docno\), score \(or rank\); missing score; it has "
                                        r"query_id, doc_id, relevance, iteration"),
        ([("1", "a", 1.0)], "run records must be namedtuples, dataclasses or dicts with named fields, got tuple"),
        ([], "run records: none given, expected run records"),
        ([ScoredDoc("1", "a", 1.0), TrecQrel("1", "b", 1, "0")],
         "run records: a record after the first lacks a field of the first"),
        ([ScoredDoc("1", "a", float("nan"))], "run records: score must be finite"),
        ([ScoredDoc("1", "a", 1.0), ScoredDoc("1", "a", 2.0)], "run records: document 'a' is retrieved twice"),
        ([{"query_id": "1", "doc_id": "a", "score": "high"}],
         "run records: score must be a number, got 'high' in row 0"),
    ])
    def test_bad_records(self, records, message):
        with pytest.raises(ValueError, match=message) as err:
            rk.read_run(records)
        assert "\n" not in str(err.value)


# --------------------------------------------------------------------------- Parquet, Feather

def write(tmp_path, name, frame, fmt, **kwargs):
    path = tmp_path / name
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table, path, **kwargs) if fmt == "parquet" else feather.write_feather(table, path, **kwargs)
    return path


class TestColumnarFiles:
    @pytest.mark.parametrize("fmt", ["parquet", "feather"])
    def test_same_as_the_frame(self, tmp_path, fmt):
        qrels, run = write(tmp_path, "q", QRELS, fmt), write(tmp_path, "r", RUN, fmt)
        with pytest.warns(UserWarning):
            same(rk.evaluate(qrels, run, METRICS))
        with pytest.warns(UserWarning), open(qrels, "rb") as q, open(run, "rb") as r:
            same(rk.evaluate(q, r, METRICS))  # file objects

    @pytest.mark.parametrize("fmt", ["parquet", "feather"])
    def test_pyterrier_names_integer_and_dictionary_ids(self, tmp_path, fmt):
        qt, rt = pyterrier(QRELS.assign(query_id=QRELS.query_id.astype(int)),
                           RUN.assign(query_id=RUN.query_id.astype(int)))
        rt["docno"] = rt.docno.astype("category")
        with pytest.warns(UserWarning):
            same(rk.evaluate(write(tmp_path, "q", qt, fmt), write(tmp_path, "r", rt, fmt), METRICS))

    def test_only_the_three_columns_are_read(self, tmp_path):
        big = RUN.assign(text=["x" * 1000] * len(RUN), vector=[list(range(50))] * len(RUN))
        assert rk.read_run(write(tmp_path, "r", big, "parquet")).columns.tolist() == ["query_id", "doc_id", "score"]

    def test_gzip_compressed_columns(self, tmp_path):
        path = write(tmp_path, "r.parquet", RUN, "parquet", compression="gzip")
        assert rk.read_run(path).score.tolist() == RUN.score.tolist()

    def test_missing_columns_named(self, tmp_path):
        path = write(tmp_path, "run.parquet", RUN, "parquet")
        with pytest.raises(ValueError, match=r"run\.parquet \(Parquet\) must have columns query_id \(or qid\), "
                                             r"doc_id \(or docno\), relevance \(or label\); missing relevance; "
                                             r"it has query_id, doc_id, score"):
            rk.read_qrels(path)

    def test_truncated_parquet(self, tmp_path):
        path = write(tmp_path, "run.parquet", RUN, "parquet")
        path.write_bytes(path.read_bytes()[:40])
        with pytest.raises(ValueError, match=r"run\.parquet: starts like a Parquet file but does not end like one"):
            rk.read_run(path)
        path.write_bytes(b"PAR1\0garbagePAR1")
        with pytest.raises(ValueError, match=r"run\.parquet \(Parquet\): cannot be read: ") as err:
            rk.read_run(path)
        assert "\n" not in str(err.value)

    def test_null_id_and_text_score(self, tmp_path):
        with pytest.raises(ValueError, match=r"\(Parquet\): doc_id is missing in row 1"):
            rk.read_run(write(tmp_path, "a", RUN.assign(doc_id=["a", None, "c", "d", "e", "f"]), "parquet"))
        with pytest.raises(ValueError, match=r"\(Feather\): score must hold numbers, got (large_)?string"):
            rk.read_run(write(tmp_path, "b", RUN.assign(score="high"), "feather"))

    def test_a_text_file_starting_like_parquet_is_still_text(self, tmp_path):
        path = tmp_path / "run.txt"
        path.write_bytes(b"PAR1 Q0 d 1 2.5 sys\n")
        assert rk.read_run(path).query_id.tolist() == ["PAR1"]

    def test_cli_reads_parquet(self, tmp_path):
        qrels, run = write(tmp_path, "q.parquet", QRELS, "parquet"), write(tmp_path, "r.parquet", RUN, "parquet")
        done = subprocess.run([sys.executable, "-m", "rankkit", "evaluate", str(qrels), str(run), "-m", "map"],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert done.returncode == 0, done.stderr
        assert f"{expected()['AP'].mean():.4f}" in done.stdout


# --------------------------------------------------------------------------- random data

ids = st.sampled_from(["1", "2", "10", "a", "b", "ü"])
docs = st.sampled_from([f"d{i}" for i in range(8)])


@settings(max_examples=sweep(40), deadline=None)
@given(st.dictionaries(st.tuples(ids, docs), st.integers(0, 3), min_size=1, max_size=20),
       st.dictionaries(st.tuples(ids, docs), st.floats(-5, 5, allow_nan=False, width=32), min_size=1, max_size=20))
def test_every_shape_equals_the_frame(qrels_dict, run_dict):
    assume({q for q, _ in qrels_dict} & {q for q, _ in run_dict})
    warnings.simplefilter("ignore", UserWarning)  # unscored queries: the same for every shape
    qrels = pd.DataFrame([(q, d, r) for (q, d), r in qrels_dict.items()], columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([(q, d, s) for (q, d), s in run_dict.items()], columns=["query_id", "doc_id", "score"])
    want = rk.evaluate(qrels, run, ["AP", "nDCG@5", "P@3"], queries="qrels")
    qt, rt = pyterrier(qrels, run)
    shapes = [
        (qt, rt),
        ([TrecQrel(*row, "0") for row in qrels.itertuples(index=False)],
         [GenericScoredDoc(*row) for row in run.itertuples(index=False)]),
        (pa.Table.from_pandas(qrels), pa.Table.from_pandas(run)),
    ]
    buffers = []
    for frame in (qrels, run):
        sink = io.BytesIO()
        pq.write_table(pa.Table.from_pandas(frame), sink)
        buffers.append(io.BytesIO(sink.getvalue()))
    shapes.append(tuple(buffers))
    for q, r in shapes:
        pd.testing.assert_frame_equal(rk.evaluate(q, r, ["AP", "nDCG@5", "P@3"], queries="qrels"), want,
                                      check_exact=True)


def test_gzip_text_still_parsed_as_trec(tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(b"q Q0 d 1 2.5 sys\n"))
    assert rk.read_run(path).attrs["name"] == "sys"


@pytest.mark.skipif(not hasattr(pa, "string_view"), reason="pyarrow < 16 has no string_view")
def test_string_view_ids_are_text(tmp_path):
    # polars writes text as Arrow's string_view: in a table, a Feather file, a pandas ArrowDtype
    import pyarrow.feather as feather
    view = pa.string_view()
    run = pa.table({"query_id": pa.array(["q1", "q1"], view), "doc_id": pa.array(["a", "b"], view),
                    "score": [2.0, 1.0]})
    qrels = pa.table({"query_id": pa.array(["q1"], view), "doc_id": pa.array(["a"], view), "relevance": [1]})
    feather.write_feather(run, tmp_path / "r.arrow", compression="uncompressed")
    want = rk.evaluate({"q1": {"a": 1}}, {"q1": {"a": 2.0, "b": 1.0}}, ["P@2", "AP"])
    for q, r in ((qrels, run), (qrels, tmp_path / "r.arrow"),
                 (qrels.to_pandas(types_mapper=pd.ArrowDtype), run.to_pandas(types_mapper=pd.ArrowDtype))):
        pd.testing.assert_frame_equal(rk.evaluate(q, r, ["P@2", "AP"]), want)
