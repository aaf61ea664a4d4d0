"""``rankkit evaluate`` against a trec_eval 10 binary, byte for byte, on random files.

Runs only when a ``trec_eval`` executable is on PATH (the project never builds or downloads
it; build trec_eval 10 from usnistgov/trec_eval in a folder of your own and put it on
PATH to run these). Hypothesis draws qrels with graded labels, labels below 0 and judged
documents nobody retrieved, runs with tied scores, unjudged documents and queries the
qrels lack, and a set of trec_eval flags; both programs must print the same bytes.

The differences README.md documents are avoided here on purpose: a judged query missing
from the run without -c (trec_eval stops), gain mappings with gains less than 1 apart,
labels below 0 given gains, -l 0, and rbp beside measures whose memory trec_eval's rbp
reads (G, ndcg, ndcg_rel with gain pairs, yaap, 11pt_avg: its value changes with them).
"""

from __future__ import annotations

import io
import shutil
import subprocess
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

from rankkit.cli import main

TREC_EVAL = shutil.which("trec_eval")
pytestmark = pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary on PATH")

FLAGS = [
    ["-m", "all_trec"],
    ["-m", "all_trec", "-l2"],
    ["-m", "all_trec", "-J"],
    ["-m", "all_trec", "-M", "7"],
    ["-m", "all_trec", "-c"],
    ["-m", "all_trec", "-c", "-J", "-l", "3"],
    ["-m", "official", "-m", "set", "-N", "1000", "-m", "utility.1,-1,-1,1", "-n"],
    ["-m", "set_F.0.5", "-m", "unj.3", "-m", "relative_P.5", "-m", "relstring.20",
     "-m", "11pt_avg.0.5,0.1,0.9", "-m", "Rprec_mult.0.3,1.5", "-m", "ndcg.1=3,2=9", "-m", "G.1=2,3=5",
     "-m", "ndcg_rel.2=5", "-m", "Rndcg.1=1,2=1", "-m", "rbp_resid.p=0.5", "-m", "iprec_at_recall..33,.5",
     "-m", "yaap"],
    ["-c", "-m", "utility.2,-1,-1,0", "-m", "rbp_resid.p=0.5", "-m", "relstring.20", "-m", "unj", "-m", "yaap"],
    ["-m", "yaap", "-m", "map", "-J", "-l", "2"],
    ["-m", "rbp.p=0.5", "-m", "rbp_resid.p=0.5", "-m", "P.5"],
]
# "\udce9": the Latin-1 byte 0xe9, not UTF-8 (written back through surrogateescape)
DOCS = [f"d{i}" for i in range(25)] + ["D1", "a", "Z9", "d10x", "caf\udce9", "café"]
QUERIES = ["1", "2", "10", "33", "301", "7b", "q\udce9"]


@st.composite
def files(draw):
    queries = draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=4, unique=True))
    tag = draw(st.sampled_from(["tag", "t\udcff"]))
    qrels, run = [], []
    for q in queries:
        judged = draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from([0, 0, 1, 1, 2, 3, 4, -1, 12]),
                                      min_size=1, max_size=15))
        if max(judged.values()) < 0:  # trec_eval 10 stops on a first query without a label >= 0
            judged[next(iter(judged))] = 0
        qrels += [f"{q} 0 {d} {label}" for d, label in judged.items()]
        scores = draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from([3.0, 2.25, 1.0, 0.5, 0.0, -1.0, 0.125]),
                                      min_size=1, max_size=20))
        run += [f"{q} Q0 {d} {i} {score} {tag}" for i, (d, score) in enumerate(scores.items())]
    if draw(st.booleans()):
        run.append("999 Q0 dx 1 1.0 other")  # a query the qrels lack: ignored by both
    run = draw(st.permutations(run))
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


@settings(max_examples=sweep(40), deadline=None)
@given(files(), st.sampled_from(FLAGS), st.booleans())
def test_same_bytes_as_trec_eval(tmp_path_factory, data, flags, per_query):
    folder = written(tmp_path_factory.mktemp("te"), data)
    assert_same_output([*flags, *(["-q"] if per_query else []), str(folder / "qrels"), str(folder / "run")])


def written(folder, data):
    """The qrels and run texts of :func:`files` as files in ``folder`` (their bytes)."""
    (folder / "qrels").write_bytes(data[0].encode("utf-8", "surrogateescape"))
    (folder / "run").write_bytes(data[1].encode("utf-8", "surrogateescape"))
    return folder


def assert_same_output(argv: list[str]) -> None:
    theirs = subprocess.run([TREC_EVAL, *argv], capture_output=True, check=True).stdout
    theirs = theirs.decode("utf-8", "surrogateescape")
    out = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["evaluate", *argv], out=out) == 0
    assert out.getvalue() == theirs


ZFLAGS = [["-m", "all_trec"], ["-m", "all_trec", "-c", "-J"], ["-m", "official", "-m", "set", "-n"],
          ["-m", "gm_map", "-m", "gm_bpref", "-m", "P.5", "-m", "num_ret", "-c"]]
ZMEASURES = ["map", "gm_map", "gm_bpref", "P_5", "num_ret", "num_rel", "num_rel_ret", "bpref", "ndcg",
             "Rprec", "set_F", "utility", "recip_rank", "runid", "num_q"]


@settings(max_examples=sweep(25), deadline=None)
@given(files(), st.sampled_from(ZFLAGS), st.booleans(),
       st.lists(st.tuples(st.sampled_from(QUERIES), st.sampled_from(ZMEASURES),
                          st.sampled_from([0.0, 0.5, -2.25, 1.0, 3.0]), st.sampled_from([0.0, 0.25, 1.0, 2.0])),
                unique_by=lambda t: t[:2], max_size=30))
def test_zscores_same_bytes_as_trec_eval(tmp_path_factory, data, flags, per_query, entries):
    # trec_eval 10's binary search reads one entry past the end of its table when the key is
    # above all of them (convert_zscores.c): each query gets a last measure "zzzz", and a
    # last query "zzzz", so that it never does (it may crash or misread otherwise).
    folder = written(tmp_path_factory.mktemp("tz"), data)
    lines = [f"{q} {m} {mean} {sd}" for q, m, mean, sd in entries]
    lines += [f"{q} zzzz 0 1" for q in QUERIES] + ["zzzz zzzz 0 1"]
    (folder / "z").write_bytes("\n".join(lines).encode("utf-8", "surrogateescape") + b"\n")
    argv = [*flags, *(["-q"] if per_query else []), "-Z", str(folder / "z"), str(folder / "qrels"), str(folder / "run")]
    if "-c" not in flags:  # without -c trec_eval stops at a judged query the run lacks
        argv = ["-c", *argv]
    assert_same_output(argv)
