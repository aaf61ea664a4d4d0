"""rankkit.dask: the Dask path gives exactly rk.evaluate's frame, per query, bit for bit.

Random runs (hypothesis: tied scores, labels -1..3, queries missing from either side, rows
in any order, queries split across partitions and files) are scored both ways and compared
with ``check_exact``: on the synchronous scheduler (many examples, cheap) and on a
``LocalCluster`` of two worker processes (few examples: each is a round trip through the
cluster's shuffle). The cluster is started once for the module.
"""

from __future__ import annotations

import gzip
import logging
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sweeps import sweep

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from dask import config  # noqa: E402

import rankkit as rk  # noqa: E402
import rankkit.dask as rd  # noqa: E402
from rankkit import stats  # noqa: E402
from rankkit.evaluation.scoring import aggregate  # noqa: E402

METRICS = ["nDCG@10", "AP", "RR", "P@5", "R@10", "ERR@10", "bpref", "num_rel", "num_ret", "num_rel_ret",
           "SDCG@5", "RBP(p=0.8)", "Rprec", "relstring@5", "runid"]
FEW = settings(max_examples=sweep(8), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                      HealthCheck.function_scoped_fixture])
SYNC = {"scheduler": "sync"}
dask_config = config.set


@pytest.fixture(scope="module")
def client():
    """Two worker processes, one thread each; closed when the module's tests are done."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.ERROR)
    with cluster, distributed.Client(cluster) as c:
        yield c


# --------------------------------------------------------------------------- data

IDS = ["1", "2", "10", "a", "b7", "Z", "x-1"]  # byte order differs from numeric order


@st.composite
def evaluations(draw):
    """(qrels, run) frames with at least one query in common, rows shuffled."""
    queries = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=6, unique=True))
    common = draw(st.sampled_from(queries))
    in_run = {common} | set(draw(st.lists(st.sampled_from(queries), max_size=6)))
    in_qrels = {common} | set(draw(st.lists(st.sampled_from(queries), max_size=6)))
    docs = [f"d{i}" for i in range(12)]
    run, qrels = [], []
    for q in sorted(in_run):
        for d in draw(st.lists(st.sampled_from(docs), min_size=1, max_size=10, unique=True)):
            run.append((q, d, draw(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0]))))  # ties
    for q in sorted(in_qrels):
        for d in draw(st.lists(st.sampled_from(docs), min_size=1, max_size=10, unique=True)):
            qrels.append((q, d, draw(st.integers(-1, 3))))
    run = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    run = run.iloc[draw(st.permutations(range(len(run))))].reset_index(drop=True)
    qrels = qrels.iloc[draw(st.permutations(range(len(qrels))))].reset_index(drop=True)
    run.attrs["name"] = "sys"
    return qrels, run


def both(qrels, run, metrics=METRICS, npartitions=(3, 2), compute=SYNC, shuffle="tasks", **options):
    """(rankkit.dask's frame and warnings, rk.evaluate's frame and warnings)."""
    lazy_qrels = dd.from_pandas(qrels, npartitions=npartitions[0], sort=False)
    lazy_run = dd.from_pandas(run, npartitions=npartitions[1], sort=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # dask < 2025 warns that a sync compute runs while the module's cluster is up
        warnings.filterwarnings("ignore", message="Running on a single-machine scheduler")
        got = rd.compute(rd.evaluate(lazy_qrels, lazy_run, metrics, shuffle=shuffle, **options), **compute)
    with warnings.catch_warnings(record=True) as expected:
        warnings.simplefilter("always")
        want = rk.evaluate(qrels, run, metrics, **options)
    return (got, [str(w.message) for w in caught]), (want, [str(w.message) for w in expected])


def assert_same(got, want):
    (table, messages), (expected, expected_messages) = got, want
    pd.testing.assert_frame_equal(table, expected, check_exact=True)
    assert table.attrs == expected.attrs
    assert messages == expected_messages


# --------------------------------------------------------------------------- equal to rk.evaluate

@settings(max_examples=sweep(40), deadline=None)
@given(evaluations(), st.sampled_from(["run", "qrels"]), st.integers(1, 5), st.integers(1, 4))
def test_equals_evaluate_on_random_runs(data, queries, run_parts, qrels_parts):
    qrels, run = data
    assert_same(*both(qrels, run, queries=queries, npartitions=(qrels_parts, run_parts)))


@pytest.mark.parametrize("options", [
    {"ties": "optimistic"}, {"ties": "pessimistic"}, {"ties": "average"}, {"depth": 3},
    {"judged_only": True}, {"rel": 2}, {"max_grade": 5}, {"n_docs": 100, "queries": "qrels"},
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_options_as_evaluate(options):
    qrels, run = _fixed()
    metrics = ["P@5", "nDCG@10", "ERR@10", "AP", "utility(a=1, b=-1, c=0, d=0)"]
    if options.get("ties") == "average":
        metrics = ["P@5", "nDCG@10", "R@10"]
    assert_same(*both(qrels, run, metrics, **options))


def _fixed():
    rng = np.random.default_rng(7)
    run = pd.DataFrame({"query_id": np.repeat(IDS, 8), "doc_id": np.tile([f"d{i}" for i in range(8)], len(IDS)),
                        "score": rng.integers(0, 4, 8 * len(IDS)).astype(float)}).sample(frac=1, random_state=1)
    qrels = pd.DataFrame({"query_id": np.repeat(IDS[1:] + ["extra"], 5),
                          "doc_id": np.tile(["d0", "d2", "d4", "d6", "z"], len(IDS)),
                          "relevance": rng.integers(-1, 4, 5 * len(IDS))})
    return qrels.reset_index(drop=True), run.reset_index(drop=True)


@FEW
@given(evaluations(), st.sampled_from(["run", "qrels"]))
def test_equals_evaluate_on_a_local_cluster(client, data, queries):
    qrels, run = data
    assert_same(*both(qrels, run, queries=queries, npartitions=(2, 3), compute={}))


def test_p2p_shuffle_on_a_local_cluster(client):
    qrels, run = _fixed()
    assert_same(*both(qrels, run, ["AP", "nDCG@10"], compute={}, shuffle="p2p"))


def test_a_run_indexed_by_query_is_not_shuffled():
    qrels, run = _fixed()
    lazy = dd.from_pandas(run.set_index("query_id"), npartitions=3, sort=True)
    assert lazy.known_divisions
    table = rd.evaluate(qrels, lazy, ["AP", "P@5"])
    assert table.divisions == lazy.divisions  # partition for partition: the run is not shuffled
    assert not rd.evaluate(qrels, lazy.reset_index(), ["AP", "P@5"]).known_divisions
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, expected = rd.compute(table, **SYNC), rk.evaluate(qrels, run, ["AP", "P@5"])
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


# --------------------------------------------------------------------------- files

def write_trec(frame: pd.DataFrame, path, tag="sys", kind="run") -> None:
    if kind == "run":
        lines = [f"{q} Q0 {d} {i + 1} {s!r} {tag}\n" for i, (q, d, s) in enumerate(frame.itertuples(index=False))]
    else:
        lines = [f"{q} 0 {d} {r}\n" for q, d, r in frame.itertuples(index=False)]
    data = "".join(lines).encode()
    if str(path).endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    with open(path, "wb") as f:
        f.write(data)


@pytest.fixture()
def files(tmp_path):
    """The fixed run in three files (text, gzip, Parquet; queries split between them), and
    the judgments in two."""
    qrels, run = _fixed()
    pieces = np.array_split(np.arange(len(run)), 3)
    write_trec(run.iloc[pieces[0]], tmp_path / "run-0.txt")
    write_trec(run.iloc[pieces[1]], tmp_path / "run-1.txt.gz")
    run.iloc[pieces[2]].to_parquet(tmp_path / "run-2.parquet")
    write_trec(qrels.iloc[:20], tmp_path / "qrels-a.txt", kind="qrels")
    write_trec(qrels.iloc[20:], tmp_path / "qrels-b.txt.gz", kind="qrels")
    split = {q for q in run.query_id if len({i for i, p in enumerate(pieces) if q in set(run.query_id.iloc[p])}) > 1}
    assert split  # some query has lines in two files
    return tmp_path, qrels, run


def test_read_run_of_a_glob_with_gzip_and_parquet_members(client, files):
    folder, qrels, run = files
    lazy = rd.read_run(str(folder / "run-*"))
    assert lazy.npartitions == 3 and list(lazy.columns) == ["query_id", "doc_id", "score"]
    read = lazy.compute()
    pd.testing.assert_frame_equal(read.reset_index(drop=True)[["doc_id", "score"]], run[["doc_id", "score"]],
                                  check_dtype=False)
    metrics = ["AP", "nDCG@10", "ERR@10", "P@5", "num_ret"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = rd.compute(rd.evaluate(rd.read_qrels(str(folder / "qrels-*")), lazy, metrics))
        expected = rk.evaluate(qrels, run, metrics)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert got.attrs == expected.attrs


def test_the_run_tag_is_the_last_files(files):
    folder, qrels, run = files
    write_trec(pd.DataFrame({"query_id": ["a"], "doc_id": ["new"], "score": [0.5]}), folder / "run-3.txt", tag="last")
    with pytest.warns(UserWarning, match="not scored") as caught:
        table = rd.compute(rd.evaluate(qrels, rd.read_run(sorted(folder.glob("run-*"))), ["runid", "num_q"]), **SYNC)
        summary = rd.aggregate(rd.evaluate(qrels, rd.read_run(str(folder / "run-0.txt")), ["runid"]), **SYNC)
    assert set(table["runid"]) == {"last"} and summary["runid"] == "sys"  # trec_eval's runid: the last line's tag
    assert {w.filename for w in caught if "not scored" in str(w.message)} == {__file__}  # at the caller


def test_errors_name_the_file_and_line_as_rankkit_does(client, files):
    folder, qrels, _ = files
    bad = folder / "run-1.txt.gz"
    with gzip.open(bad, "ab") as f:
        f.write(b"q1 Q0 dX 1 high sys\n")
    with pytest.raises(ValueError) as expected:
        rk.read_run(bad)
    assert str(bad) in str(expected.value) and "line" in str(expected.value)
    with pytest.raises(ValueError, match="^" + __import__("re").escape(str(expected.value)) + "$"):
        rd.compute(rd.evaluate(qrels, rd.read_run(str(folder / "run-*")), ["AP"]))


def test_paths_that_match_nothing_fail_now(tmp_path):
    with pytest.raises(ValueError, match="no file matches '.*nothing-\\*.txt'"):
        rd.read_run(str(tmp_path / "nothing-*.txt"))
    with pytest.raises(ValueError, match="no file matches '.*missing.txt'"):
        rd.read_qrels([tmp_path / "missing.txt"])
    with pytest.raises(ValueError, match="paths must name at least one file"):
        rd.read_run([])


# --------------------------------------------------------------------------- queries left out

def test_unscored_queries_are_reported_and_warned_once_as_evaluate_does():
    qrels, run = _fixed()  # "1" is in the run only, "extra" in the judgments only
    (got, messages), (expected, expected_messages) = both(qrels, run, ["AP"], npartitions=(4, 5))
    assert got.attrs["unscored"] == {"1": "no judgments", "extra": "not in the run"} == expected.attrs["unscored"]
    assert messages == expected_messages and len(messages) == 2
    assert messages[0].startswith("run queries without judgments are not scored (1): 1")


def test_judged_queries_missing_from_the_run_score_zero_under_queries_qrels():
    qrels, run = _fixed()
    (got, messages), expected = both(qrels, run, ["AP", "num_rel", "RBP_residual(p=0.5)"], queries="qrels",
                                     npartitions=(1, 7))
    assert_same((got, messages), expected)
    assert got.loc["extra", "AP"] == 0.0 and got.loc["extra", "num_rel"] > 0
    assert got.attrs["unscored"] == {"1": "no judgments"}


def test_no_query_in_common_fails_as_evaluate_does():
    qrels, run = _fixed()
    qrels = qrels.assign(query_id="other")
    qrels = qrels.drop_duplicates(["query_id", "doc_id"])
    with pytest.raises(ValueError) as expected:
        rk.evaluate(qrels, run, ["AP"])
    with pytest.raises(ValueError) as got:
        rd.compute(rd.evaluate(dd.from_pandas(qrels, npartitions=2), dd.from_pandas(run, npartitions=2), ["AP"]),
                   **SYNC)
    assert str(got.value) == str(expected.value) and "no query in common" in str(got.value)


# --------------------------------------------------------------------------- aggregate, compare

def test_aggregate_equals_aggregate_of_evaluate():
    qrels, run = _fixed()
    metrics = ["AP", "gm_map", "num_q", "num_rel_ret", "nDCG@10", "runid"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = rd.aggregate(rd.evaluate(qrels, dd.from_pandas(run, npartitions=3), metrics), **SYNC)
        expected = aggregate(rk.evaluate(qrels, run, metrics))
    pd.testing.assert_series_equal(got, expected, check_exact=True)


def test_compare_equals_rankkit_compare(client):
    qrels, run = _fixed()
    qrels = qrels[qrels.query_id != "extra"]
    run = run[run.query_id != "1"]
    rng = np.random.default_rng(3)
    runs = {f"s{i}": run.assign(score=rng.permutation(run.score.to_numpy())) for i in range(3)}
    lazy = {name: dd.from_pandas(r, npartitions=2) for name, r in runs.items()}
    options = {"baseline": "s0", "test": "randomization", "n_resamples": 200}
    got = rd.compare(qrels, lazy, ["AP", "P.5,10"], **options)
    expected = stats.compare(qrels, runs, ["AP", "P.5,10"], **options)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


# --------------------------------------------------------------------------- inputs

def test_pyterrier_frames_with_integer_query_ids():
    qrels, run = _fixed()
    numeric = {q: i for i, q in enumerate(sorted(set(qrels.query_id) | set(run.query_id)))}
    pt_run = run.rename(columns={"query_id": "qid", "doc_id": "docno"}).assign(qid=run.query_id.map(numeric))
    pt_qrels = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    pt_qrels = pt_qrels.assign(qid=pt_qrels.qid.map(numeric).astype(str))  # str here, int in the run
    assert_same(*both(pt_qrels, pt_run, ["AP", "nDCG@10"]))


def test_query_ids_as_python_objects_of_mixed_types():
    qrels, run = _fixed()
    as_objects = {q: (int(q) if q.isdigit() else q) for q in set(qrels.query_id) | set(run.query_id)}
    run = run.assign(query_id=pd.Series([as_objects[q] for q in run.query_id], dtype=object))
    with dask_config({"dataframe.convert-string": False}):  # keep the object column as it is
        assert_same(*both(qrels, run, ["AP", "P@5"], npartitions=(2, 8)))


def test_columns_maps_other_names():
    qrels, run = _fixed()
    theirs = {"topic": "query_id", "docid": "doc_id", "sim": "score", "grade": "relevance"}
    mine = {v: k for k, v in theirs.items()}
    assert_same(*both(qrels.rename(columns=mine), run.rename(columns=mine), ["AP"], columns=theirs))


def test_inputs_without_the_columns_fail_now_with_rankkits_message():
    qrels, run = _fixed()
    lazy = dd.from_pandas(run.rename(columns={"score": "points"}), npartitions=2)
    with pytest.raises(ValueError) as expected:
        rk.read_run(run.rename(columns={"score": "points"}))
    with pytest.raises(ValueError, match="missing score") as got:
        rd.evaluate(qrels, lazy, ["AP"])
    assert str(got.value) == str(expected.value)


def test_options_are_checked_before_anything_is_read():
    qrels, run = _fixed()
    lazy = dd.from_pandas(run, npartitions=2)
    for options, message in [({"ties": "random"}, "ties must be one of"), ({"queries": "all"}, "queries must be"),
                             ({"max_grade": 0}, "max_grade must be a positive"), ({"depth": 0}, "depth"),
                             ({"shuffle": "disk"}, "shuffle must be")]:
        with pytest.raises(ValueError, match=message):
            rd.evaluate(qrels, lazy, ["AP"], **options)
    with pytest.raises(ValueError, match="Unknown metric|unknown metric"):
        rd.evaluate(qrels, lazy, ["nope@3"])
    with pytest.raises(ValueError, match="Dask DataFrame"):
        rd.evaluate(qrels, lazy.score, ["AP"])
    with pytest.raises(ValueError, match="rankkit.dask.evaluate returned"):
        rd.compute(lazy)


def test_evaluate_takes_every_keyword_of_rk_evaluate():
    import inspect

    ours = inspect.signature(rd.evaluate).parameters
    for name, parameter in inspect.signature(rk.evaluate).parameters.items():
        if name in ("memory", "progress"):  # reading a run file on one machine (rankkit.evaluation.stream)
            continue
        assert name in ours and ours[name].default == parameter.default, name


def test_is_dask():
    qrels, run = _fixed()
    assert rd.is_dask(dd.from_pandas(run, npartitions=1)) and not rd.is_dask(run) and not rd.is_dask("run.txt")


def test_import_rankkit_does_not_import_dask():
    code = ("import sys, rankkit; rankkit.evaluate; "
            "assert 'dask' not in sys.modules and 'rankkit.dask' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_rk_evaluate_given_dask_frames_dispatches_to_rankkit_dask():
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 2]})
    run = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 0.5]})
    lazy = rk.evaluate(dd.from_pandas(qrels, npartitions=2), dd.from_pandas(run, npartitions=2), METRICS)
    assert rd.is_dask(lazy)
    got = rd.compute(lazy, **SYNC)
    want = rk.evaluate(qrels, run, METRICS)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    mixed = rd.compute(rk.evaluate(qrels, dd.from_pandas(run, npartitions=1), METRICS), **SYNC)
    pd.testing.assert_frame_equal(mixed, want, check_exact=True)


def test_without_dask_the_error_says_which_extra_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "dask" or name.startswith("dask."):
            raise ModuleNotFoundError(f"No module named {name!r}", name="dask")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    message = r"rankkit.dask needs dask\[dataframe\] and distributed: install rankkit with its \[dask\] extra"
    with pytest.raises(ModuleNotFoundError, match=message):
        rd.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["AP"])
    with pytest.raises(ModuleNotFoundError, match=r"\[dask\] extra"):
        rd.read_run("no-such-*.run")


def test_metrics_of_model_scores_are_refused_before_anything_is_read(tmp_path):
    with pytest.raises(ValueError, match=r"metric AUC needs the model's scores: use rk.evaluate_scores"):
        rd.evaluate(tmp_path / "missing.qrels", tmp_path / "missing.run", ["nDCG@10", "AUC"])


def test_rk_evaluate_refuses_the_run_file_options_for_dask_inputs():
    """memory= and progress= bound and show the reading of a run file in blocks; a Dask run
    is read by its partitions: refused (rankkit.dask.evaluate refuses them too), not dropped."""
    qrels, run = _fixed()
    lazy = dd.from_pandas(run, npartitions=2)
    with pytest.raises(TypeError, match="memory= concern a run file read in blocks"):
        rk.evaluate(qrels, lazy, ["P@1"], memory="1GB")
    with pytest.raises(TypeError, match="progress= concern a run file"):
        rk.evaluate(qrels, lazy, ["P@1"], progress=True)
    with pytest.raises(TypeError, match="takes no memory= option"):
        rd.evaluate(qrels, lazy, ["P@1"], memory="1GB")
