"""Tests of the ``rankkit`` command line (rankkit.cli, python -m rankkit)."""

from __future__ import annotations

import gzip
import io
import json
import math
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from rankkit.cli import main

QRELS = """\
q1 0 a 1
q1 0 b 0
q1 0 c 2
q2 0 d 1
q4 0 f 0
"""
# q1: a (0.9) u (0.5, unjudged) b (0.5) c (0.1); b and u tie: docno descending puts u first
RUN = """\
q1 Q0 a 1 0.9 tag
q1 Q0 u 2 0.5 tag
q1 Q0 b 3 0.5 tag
q1 Q0 c 4 0.1 tag
q3 Q0 x 1 1.0 tag
q4 Q0 f 1 0.3 tag
"""


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(qrels), str(run)


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def test_trec_format_means_only(files, capsys):
    status, out = run_cli("evaluate", *files, "-m", "P@2", "-m", "num_ret", "-m", "map")
    assert status == 0
    assert out == (  # trec_eval's names in trec_eval's order, then rankkit specs as given
        "num_ret               \tall\t5\n"
        "map                   \tall\t0.3750\n"  # q1: (1/1 + 2/4) / 2, q4: 0
        "P@2                   \tall\t0.2500\n"
    )
    err = capsys.readouterr().err
    assert "rankkit evaluate: warning: run queries without judgments are not scored (1): q3" in err
    assert "judged queries missing from the run are not scored (1;" in err and "q2" in err


def test_trec_format_per_query_then_all(files):
    status, out = run_cli("evaluate", "-q", *files, "-m", "P@2", "-m", "num_rel")
    assert status == 0
    assert out.splitlines() == [
        "num_rel               \tq1\t2",
        "P@2                   \tq1\t0.5000",
        "num_rel               \tq4\t0",
        "P@2                   \tq4\t0.0000",
        "num_rel               \tall\t2",
        "P@2                   \tall\t0.2500",
    ]


def test_c_scores_judged_queries_missing_from_the_run(files):
    status, out = run_cli("evaluate", "-q", "-c", *files, "-m", "num_rel", "-m", "RR")
    assert status == 0
    assert "num_rel               \tq2\t1" in out.splitlines()
    assert "RR                    \tq2\t0.0000" in out.splitlines()
    assert out.splitlines()[-1] == "RR                    \tall\t0.3333"  # (1 + 0 + 0) / 3


def test_depth_level_and_ties(files):
    _, out = run_cli("evaluate", "-q", *files, "-m", "num_ret", "-m", "num_rel_ret", "-M", "2", "-l", "2")
    assert "num_ret               \tq1\t2" in out and "num_rel_ret           \tq1\t0" in out
    _, docno = run_cli("evaluate", "-q", *files, "-m", "P@2")
    _, optimistic = run_cli("evaluate", "-q", *files, "-m", "P@2", "--ties", "optimistic")
    assert "P@2                   \tq1\t0.5000" in docno  # a, u
    assert "P@2                   \tq1\t0.5000" in optimistic  # a, then b or u: both non-relevant
    _, p3 = run_cli("evaluate", "-q", *files, "-m", "num_rel_ret", "-l", "1")
    assert "num_rel_ret           \tq1\t2" in p3


def test_default_metrics_are_trec_eval_defaults(files):
    status, out = run_cli("evaluate", *files)
    assert status == 0
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert names == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", *(f"iprec_at_recall_{x / 10:.2f}" for x in range(11)),
        *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
    ]


def test_csv_format(files):
    status, out = run_cli("evaluate", "-q", "--format", "csv", *files, "-m", "P@2", "-m", "num_ret")
    assert status == 0
    # counts as integers, as trec_eval prints them
    assert out.splitlines() == ["query_id,num_ret,P@2", "q1,4,0.5", "q4,1,0.0", "all,5,0.25"]
    _, means = run_cli("evaluate", "--format", "csv", *files, "-m", "P@2")
    assert means.splitlines() == ["query_id,P@2", "all,0.25"]
    _, official = run_cli("evaluate", "--format", "csv", *files, "-m", "num_q", "-m", "num_rel", "-m", "map")
    assert official.splitlines() == ["query_id,num_q,num_rel,map", "all,2,2,0.375"]


def test_csv_and_json_counts_stay_numbers_after_z_scores(files, tmp_path):
    zfile = tmp_path / "z"
    zfile.write_text("q1 num_ret 2 1\nq4 num_ret 1 1\n")
    _, out = run_cli("evaluate", "-q", "--format", "csv", "-Z", str(zfile), *files, "-m", "num_ret")
    assert out.splitlines() == ["query_id,num_ret", "q1,2.0", "q4,0.0", "all,2.0"]  # z-scores: fractions


def test_json_format(files):
    status, out = run_cli("evaluate", "-q", "--format", "json", *files, "-m", "P@2", "-m", "ndcg_cut_3")
    assert status == 0
    doc = json.loads(out)
    assert doc["metrics"] == {"P@2": "P@2", "ndcg_cut_3": "nDCG@3"}
    assert doc["all"]["P@2"] == 0.25
    assert doc["queries"]["q1"]["P@2"] == 0.5
    assert doc["unscored"] == {"q2": "not in the run", "q3": "no judgments"}
    _, counts = run_cli("evaluate", "-q", "--format", "json", *files, "-m", "num_ret", "-m", "num_q")
    assert '"num_ret": 5\n' in counts and '"num_q": 2,' in counts and '"num_ret": 4\n' in counts  # not 5.0
    assert json.loads(counts)["all"] == {"num_q": 2, "num_ret": 5}
    _, means = run_cli("evaluate", "--format", "json", *files, "-m", "P@2")
    assert "queries" not in json.loads(means)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-m", "nope@5"], "rankkit evaluate: error: unknown metric 'nope' in metric spec 'nope@5'; "
                           "no known name is close (all names: rankkit evaluate --help)\n"),
        (["-m", "ndcg_cut10"], "rankkit evaluate: error: unknown metric 'ndcg_cut10'; did you mean "
                               "ndcg_cut_10 or nDCG@10? (all names: rankkit evaluate --help)\n"),
        (["-m", "ndgc@10"], "rankkit evaluate: error: unknown metric 'ndgc' in metric spec 'ndgc@10'; did you "
                            "mean nDCG@10, ndcg_cut_10 or RnDCG? (all names: rankkit evaluate --help)\n"),
        (["-m", "nDCG(k=10)"], "rankkit evaluate: error: metric nDCG does not take parameter(s) k (allowed: gain, "
                               "discount, base, no_relevant, judged_only) in metric spec 'nDCG(k=10)'; the cutoff "
                               "is written @k: nDCG@10\n"),
        (["-m", "MAP@10"], "rankkit evaluate: error: metric spec 'MAP@10' is ambiguous: AP over the top 10 is "
                           "divided by R, the number of relevant documents, in trec_eval, ir_measures and ranx "
                           "(write AP@10 or map_cut_10), and by min(R, 10) in RecBole and other "
                           "recommender-systems libraries (write AP(normalize='min_k')@10)\n"),
        (["-m", "P@0"], "rankkit evaluate: error: k must be a positive integer, got 0"),
        (["-m", "Rprec@5"], "rankkit evaluate: error: metric Rprec takes no cutoff @k"),
    ],
)
def test_bad_metric_exit_2_with_message(files, capsys, argv, message):
    status, out = run_cli("evaluate", *files, *argv)
    assert status == 2 and out == ""
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_malformed_line_exit_2_names_file_and_line(tmp_path, files, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 a 1 0.9 tag\nq1 Q0 b 2\n")
    status, _ = run_cli("evaluate", files[0], str(bad), "-m", "P@5")
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("rankkit evaluate: error: ")
    assert "bad.run" in err and "line 2" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("dup.run", "q1 Q0 a 1 0.9 t\nq1 Q0 a 2 0.5 t\n", "document 'a' is retrieved twice for query 'q1'"),
        ("nan.run", "q1 Q0 a 1 nan t\n", "nan.run line 1: score must be finite"),
        ("empty.run", "", "empty.run: empty file"),
    ],
)
def test_bad_run_files_exit_2(tmp_path, files, capsys, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    status, out = run_cli("evaluate", files[0], str(path), "-m", "P@5")
    assert status == 2 and out == ""
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_non_numeric_relevance_exit_2(tmp_path, files, capsys):
    bad = tmp_path / "bad.qrels"
    bad.write_text("q1 0 a 1\nq1 0 b x\n")
    assert run_cli("evaluate", str(bad), files[1], "-m", "P@5")[0] == 2
    assert "bad.qrels line 2: relevance must be a number, got 'x'" in capsys.readouterr().err


def test_ties_average_with_a_metric_that_refuses_it_exit_2(files, capsys):
    status, _ = run_cli("evaluate", *files, "-m", "P@2", "-m", "bpref", "--ties", "average")
    assert status == 2
    assert "rankkit evaluate: error: metric bpref: ties='average' is not supported" in capsys.readouterr().err


def test_trec_eval_parameter_lists_on_the_command_line(files):
    status, out = run_cli("evaluate", *files, "-m", "P.2,1", "-m", "ndcg_cut.3")
    assert status == 0
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == ["P_1", "P_2", "ndcg_cut_3"]


def test_missing_file_exit_2(tmp_path, files, capsys):
    status, _ = run_cli("evaluate", str(tmp_path / "nope.qrels"), files[1], "-m", "P@5")
    assert status == 2
    err = capsys.readouterr().err
    assert "rankkit evaluate: error:" in err and "nope.qrels" in err


def test_trec_eval_long_options(files):
    # trec_eval's getopt_long names (and their unique prefixes) mean what its short flags mean
    qrels, run = files
    short = run_cli("evaluate", "-q", "-c", "-n", "-J", "-M", "3", "-l", "2", "-N", "50", "-m", "map",
                    "-m", "utility.1,-1,0,0", qrels, run)
    long = run_cli("evaluate", "--query_eval_wanted", "--complete_rel_info_wanted", "--nosummary", "--Judged_docs_only",
                   "--Max_retrieved_per_topic", "3", "--level_for_rel=2", "--Number_docs_in_coll", "50",
                   "--measure", "map", "--measure=utility.1,-1,0,0", qrels, run)
    assert short == long and short[0] == 0
    assert "map                   \tq1\t" in short[1] and "\tall\t" not in short[1]
    assert run_cli("evaluate", "--nosum", "-m", "map", qrels, run) == run_cli("evaluate", "-n", "-m", "map", qrels, run)


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "name a command: evaluate, compare, fuse, ndeval"),
        (["evaluate"], "the following arguments are required: QRELS, RUN"),
        (["evaluate", "q", "r", "--ties", "random"], "argument --ties: invalid choice: 'random'"),
        (["evaluate", "q", "r", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["evaluate", "q", "r", "-M", "0"],
         "argument -M/--depth/--Max_retrieved_per_topic: expected a positive integer, got '0'"),
        (["evaluate", "q", "r", "-l", "x"], "argument -l/--level/--level_for_rel: expected a positive number, got 'x'"),
        (["frobnicate"], "name a command: evaluate, compare, fuse, ndeval (rankkit COMMAND -h for its options); "
                         "unrecognized arguments: frobnicate"),
    ],
)
def test_usage_errors_exit_2(capsys, argv, message):
    status, out = run_cli(*argv)
    assert status == 2 and out == ""
    assert message in capsys.readouterr().err


def test_help_exits_0_and_lists_metrics(capsys):
    status, _ = run_cli("evaluate", "--help")
    assert status == 0
    text = capsys.readouterr().out
    assert "nDCG" in text and "trec_eval names" in text and "-c, --judged-queries" in text
    assert "MAP@k, which is refused" in text and "AP(normalize='min_k')@k" in text


def help_examples(command: str, capsys) -> list[str]:
    assert run_cli(command, "--help")[0] == 0
    lines = capsys.readouterr().out.splitlines()
    more = " RUN [RUN ...]" if command == "compare" else " [RUN ...]"
    assert lines[0] == f"usage: rankkit {command} [options] QRELS RUN" + more
    assert lines[1:3] == ["", "examples:"]  # the examples first, right under the one-line usage
    return [line.strip() for line in lines[3:9:2]]


def test_evaluate_help_starts_with_three_examples_that_run(capsys, tmp_path, monkeypatch):
    examples = help_examples("evaluate", capsys)
    assert examples == [
        "rankkit evaluate qrels.txt run.txt",
        "rankkit evaluate -q qrels.txt run.txt -m map -m P.5,10 -m ndcg_cut.10",
        "rankkit evaluate qrels.txt run.txt -m nDCG@10 -m \"AP(normalize='min_k')@10\" -m \"RBP(p=0.8)\"",
    ]
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    monkeypatch.chdir(tmp_path)
    outputs = [run_cli(*shlex.split(example)[1:]) for example in examples]
    assert [status for status, _ in outputs] == [0, 0, 0]
    assert outputs[0][1].splitlines()[0] == "runid                 \tall\ttag"
    assert outputs[1][1].splitlines()[:2] == ["map                   \tq1\t0.7500",
                                              "P_5                   \tq1\t0.4000"]
    assert [line.split("\t")[0].strip() for line in outputs[2][1].splitlines()] == [
        "nDCG@10", "AP(normalize='min_k')@10", "RBP(p=0.8)"]


def test_compare_help_starts_with_three_examples_that_run(capsys, tmp_path, monkeypatch):
    examples = help_examples("compare", capsys)
    assert examples == [
        "rankkit compare qrels.txt bm25.run dense.run",
        "rankkit compare qrels.txt bm25.run dense.run splade.run --baseline bm25 -m map -m P.10 -m nDCG@10",
        "rankkit compare qrels.txt bm25.run dense.run -m nDCG@10 --test randomization --format markdown",
    ]
    qrels = "".join(f"q{i} 0 d{j} {int(j < 3)}\n" for i in range(6) for j in range(8))
    (tmp_path / "qrels.txt").write_text(qrels)
    for name, shift in (("bm25", 0), ("dense", 1), ("splade", 2)):
        run = "".join(f"q{i} Q0 d{(j + shift * i) % 8} {j + 1} {8 - j} {name}\n" for i in range(6) for j in range(8))
        (tmp_path / f"{name}.run").write_text(run)
    monkeypatch.chdir(tmp_path)
    outputs = [run_cli(*shlex.split(example)[1:]) for example in examples]
    assert [status for status, _ in outputs] == [0, 0, 0]
    assert len(outputs[0][1].splitlines()) == 1 + 24 + 1  # header, official's 24 means, the note
    assert [line.split()[:3] for line in outputs[1][1].splitlines()[1:3]] == [
        ["dense.run", "bm25.run", "map"], ["splade.run", "bm25.run", "map"]]
    assert "†" not in outputs[2][1]  # 6 queries: no difference significant, no mark to explain
    assert outputs[2][1].splitlines()[-1].startswith("No difference is significant at alpha = 0.05 (paired "
                                                     "randomization test")


def test_top_level_v_prints_the_version(capsys):
    assert main(["-v"]) == 0
    short = capsys.readouterr().out
    assert main(["--version"]) == 0
    assert short == capsys.readouterr().out == "rankkit 0.1.0\n"


def test_python_dash_m_rankkit(files):
    done = subprocess.run(
        [sys.executable, "-m", "rankkit", "evaluate", *files, "-m", "P@2"],
        capture_output=True, text=True, cwd=Path(__file__).parents[1],
    )
    assert done.returncode == 0
    assert done.stdout == "P@2                   \tall\t0.2500\n"


@pytest.mark.parametrize("fmt", ["trec", "csv", "json"])
def test_broken_pipe_exits_quietly(tmp_path, fmt):
    qrels = "".join(f"q{i} 0 d{j} {j % 3}\n" for i in range(300) for j in range(5))
    run = "".join(f"q{i} Q0 d{j} {j} {1.0 / (j + 1)} tag\n" for i in range(300) for j in range(8))
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    command = (f"{sys.executable} -m rankkit evaluate -q -m all_trec --format {fmt} "
               f"{tmp_path / 'qrels'} {tmp_path / 'run'} | head -1")
    result = subprocess.run(["sh", "-c", command], capture_output=True, text=True)
    assert result.stderr == ""  # no traceback, no "Exception ignored"
    assert len(result.stdout.splitlines()) == 1


def test_trec_eval_flags_n_j_and_n_docs(files):
    _, out = run_cli("evaluate", "-q", "-n", *files, "-m", "num_ret", "-m", "map")
    assert out.splitlines() == [  # -n: no all lines
        "num_ret               \tq1\t4", "map                   \tq1\t0.7500",
        "num_ret               \tq4\t1", "map                   \tq4\t0.0000",
    ]
    _, judged = run_cli("evaluate", "-q", "-J", *files, "-m", "num_ret", "-m", "P.2")
    assert "num_ret               \tq1\t3" in judged  # u (unjudged) removed: a b c
    assert "P_2                   \tq1\t0.5000" in judged  # a, b
    _, utility = run_cli("evaluate", "-N", "100", *files, "-m", "utility.0,0,0,1")
    # d * (N + r - n - R) per query: q1 100 + 2 - 4 - 2, q4 100 + 0 - 1 - 0; the mean
    assert utility == "utility_0,0,0,1       \tall\t97.5000\n"


def test_nicknames_and_families_expand_like_trec_eval(files):
    _, out = run_cli("evaluate", *files, "-m", "set")
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_relative_P",
        "set_recall", "set_map", "set_F",
    ]
    _, out = run_cli("evaluate", *files, "-m", "success", "-m", "P.3")
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == [
        "P_3", "success_1", "success_5", "success_10",
    ]


def test_version(capsys):
    assert main(["evaluate", "-v"]) == 0
    assert capsys.readouterr().out.startswith("rankkit ")


def test_no_query_in_common_is_an_error(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("2 Q0 a 1 1.0 t\n")
    status, out = run_cli("evaluate", str(tmp_path / "q"), str(tmp_path / "r"))
    assert status == 2 and out == ""
    assert "error: no query in common between the judgments (1) and the run (2)" in capsys.readouterr().err


def test_labels_that_are_not_integers_are_kept_with_one_warning(tmp_path, capsys):
    (tmp_path / "q").write_text("1 0 a 1.5\n1 0 b 0.5\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    status, out = run_cli("evaluate", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "num_rel", "-m", "ndcg")
    assert status == 0
    assert out.splitlines()[0] == "num_rel               \tall\t1"  # 1.5 >= 1; trec_eval: 1 and 0
    err = capsys.readouterr().err
    assert err.count("some labels are not integers; rankkit keeps them, trec_eval would truncate") == 1


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_run_from_standard_input(files, compress):
    # "-" reads the run from standard input (a pipe: read once, kept for a second pass),
    # plain or gzip-compressed, with the same output as from the file.
    qrels, run = files
    data = Path(run).read_bytes()
    if compress:
        data = gzip.compress(data)
    piped = subprocess.run([sys.executable, "-m", "rankkit", "evaluate", "-q", qrels, "-"],
                           input=data, capture_output=True, cwd=Path(__file__).parents[1])
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.decode() == run_cli("evaluate", "-q", qrels, run)[1]
    assert b"runid                 \tall\ttag\n" in piped.stdout


def test_bad_line_on_standard_input_is_named(files):
    qrels, _ = files
    piped = subprocess.run([sys.executable, "-m", "rankkit", "evaluate", qrels, "-"],
                           input=b"q1 Q0 a 1 0.9 t\nq1 Q0 b 2\n", capture_output=True, cwd=Path(__file__).parents[1])
    assert piped.returncode == 2
    assert b"<stdin> line 2: expected at least 6 columns, got 4" in piped.stderr


LATIN1 = (b"caf\xe9 0 d 1\nq 0 d 1\n", b"caf\xe9 Q0 d 1 3 t\xff\nq Q0 e 1 1 t\xff\n")  # query id and tag not UTF-8


@pytest.mark.parametrize("fmt, expected", [
    ("trec", b"map                   \tcaf\xe9\t1.0000\nmap                   \tq\t0.0000\n"
             b"runid                 \tall\tt\xff\nmap                   \tall\t0.5000\n"),
    ("csv", b"query_id,runid,map\ncaf\xe9,t\xff,1.0\nq,t\xff,0.0\nall,t\xff,0.5\n"),
])
def test_ids_and_tag_that_are_not_utf8_print_as_their_bytes(tmp_path, fmt, expected):
    # trec_eval prints the bytes it read; pandas 3's str cannot hold them (escaped in rankkit)
    (tmp_path / "q").write_bytes(LATIN1[0])
    (tmp_path / "r").write_bytes(LATIN1[1])
    out = subprocess.run([sys.executable, "-m", "rankkit", "evaluate", "-q", "-m", "map", "-m", "runid",
                          "--format", fmt, str(tmp_path / "q"), str(tmp_path / "r")],
                         capture_output=True, cwd=Path(__file__).parents[1])
    assert out.returncode == 0, out.stderr
    assert out.stdout == expected


def test_relstring_of_no_rank_and_cutoffs_read_as_atol(files):
    # trec_eval: relstring.0 (and below) prints an empty string; P.1e1 is P_1 (C's atol)
    qrels, run = files
    for k in ("0", "-1"):
        status, out = run_cli("evaluate", "-q", "-m", f"relstring.{k}", qrels, run)
        assert status == 0
        assert out.splitlines() == [f"{'relstring_' + k:<22}\t{q}\t''" for q in ("q1", "q4")]
    assert run_cli("evaluate", "-m", "P.1e1,2.9", qrels, run)[1] == run_cli("evaluate", "-m", "P.1,2", qrels, run)[1]


@pytest.mark.parametrize("measure, value", [("11pt_avg", "  -nan"), ("11pt_avg.0.2,1", "  -nan"),
                                            ("11pt_avg.0.25,1", "0.0000"), ("11pt_avg.0.5,1", "0.0000"),
                                            ("iprec_at_recall.0.2", "  -nan")])
def test_interpolated_precision_of_an_empty_ranking_under_j(tmp_path, measure, value):
    # -J leaves query 1 no document (c is unjudged); R = 2. trec_eval's 11pt_avg adds the
    # precision 0 / 0 once a level rounds to no relevant document (lround(0.2 * 2) = 0,
    # lround(0.25 * 2) = 1): NaN, printed -nan; otherwise every level scores 0.
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 c 1 1 t\n")
    status, out = run_cli("evaluate", "-J", "-q", "-m", measure, str(tmp_path / "q"), str(tmp_path / "r"))
    assert status == 0
    assert [line.split("\t")[1:] for line in out.splitlines()] == [["1", value], ["all", value]]


def test_level_that_is_not_an_integer_is_kept_with_a_warning(files, capsys):
    # trec_eval reads -l with atol (1.5 -> 1); rankkit keeps the threshold and says so
    qrels, run = files
    assert run_cli("evaluate", "-l", "1.5", "-m", "num_rel", qrels, run) == (0, "num_rel               \tall\t1\n")
    assert "-l 1.5 is not an integer; rankkit uses it (label >= 1.5 is relevant), trec_eval would use 1" in \
        capsys.readouterr().err
    assert run_cli("evaluate", "-l", "2", "-m", "num_rel", qrels, run)[1] == "num_rel               \tall\t1\n"
    assert "is not an integer" not in capsys.readouterr().err


def test_zscores_by_hand(tmp_path, files):
    # q1: AP 0.75, 4 retrieved; q4: AP 0, 1 retrieved (see QRELS, RUN). gm_map's per-query
    # value is log(max(AP, 1e-5)), as in trec_eval, and its all line exp(mean of the z's).
    z = tmp_path / "z.txt"
    z.write_text("q1 map 0.5 0.25\nq4 map 0.1 0\nq1 num_ret 2 4\nq4 num_ret 1 0\n"
                 "q1 gm_map -1 2\nq4 gm_map -12 1\n")
    status, out = run_cli("evaluate", *files, "-q", "-Z", str(z), "-m", "runid", "-m", "num_ret", "-m", "map",
                          "-m", "gm_map", "-m", "relstring.2")
    gm = math.exp(((math.log(0.75) + 1) / 2 + (math.log(1e-5) + 12) / 1) / 2)
    assert status == 0
    assert out == (
        "Znum_ret               \tq1\t0.5000\n"         # (4 - 2) / 4; counts print as fractions
        "Zmap                   \tq1\t1.0000\n"         # (0.75 - 0.5) / 0.25
        "relstring_2           \tq1\t'1-'\n"            # strings keep their name and value
        "Znum_ret               \tq4\t0.0000\n"         # stddev 0 and the value is the mean
        "Zmap                   \tq4\t-1000000.0000\n"  # stddev 0 and another value
        "relstring_2           \tq4\t'0'\n"
        "runid                 \tall\ttag\n"
        "Znum_ret               \tall\t0.5000\n"
        "Zmap                   \tall\t-499999.5000\n"
        f"Zgm_map                \tall\t{gm:6.4f}\n"
    )
    assert f"{gm:6.4f}" == "1.5244"


def test_zscores_missing_query_or_measure_and_complete(tmp_path, files):
    z = tmp_path / "z.txt"
    z.write_text("q1 P_5 0 1\n")
    _, out = run_cli("evaluate", *files, "-q", "-c", "-Z", str(z), "-m", "P.5", "-m", "num_rel", "-m", "num_q")
    assert "ZP_5                   \tq1\t0.4000\n" in out  # 2 relevant of 5: (0.4 - 0) / 1
    assert "Znum_rel               \tq1\t-1000000.0000\n" in out  # no mean for num_rel
    assert "ZP_5                   \tq2\t-1000000.0000\n" in out  # q2: not in the file at all
    assert out.endswith("Znum_q                 \tall\t3.0000\n"  # the number of queries
                        "Znum_rel               \tall\t3.0000\n"  # -c: every label > 0, as trec_eval
                        "ZP_5                   \tall\t-666666.5333\n")


@pytest.mark.parametrize("text, message", [
    ("q1 map 0.5\n", r"z\.txt line 1: expected 4 fields \(qid measure mean stddev\), got 3"),
    ("q1 map 0.5 1\n\nq2 map 0 1\n", r"z\.txt line 2: expected 4 fields"),
    ("q1 map 0.5 1\nq1 map abc 1\n", r"z\.txt line 2: mean and stddev must be numbers, got 'q1 map abc 1'"),
    ("q1 map nan 1\n", "mean and stddev must be numbers"),
    ("q1 map 0.5 1\nq1 map 0.2 1\n", r"z\.txt line 2: map of query 'q1' is given twice"),
    ("", r"z\.txt: empty file, expected lines: qid measure mean stddev"),
])
def test_zscores_file_errors_exit_2(tmp_path, files, capsys, text, message):
    z = tmp_path / "z.txt"
    z.write_text(text)
    assert run_cli("evaluate", *files, "-Z", str(z))[0] == 2
    assert re.search(message, capsys.readouterr().err)
    assert run_cli("evaluate", *files, "--Zscore", str(tmp_path / "nope.txt"))[0] == 2
    assert "nope.txt: no such file" in capsys.readouterr().err


def test_zscores_at_the_edges_of_doubles(tmp_path, files):
    # A geometric mean of z-scores past exp's range is inf, as C's exp gives; an all line
    # of -0.0 z-scores is 0.0, as trec_eval's sum starting from 0.0 gives.
    z = tmp_path / "z.txt"
    z.write_text("q1 gm_map -1000 1\nq4 gm_map -1000 1\nq1 P_5 0.4 -1\nq4 P_5 0 -1\n")
    status, out = run_cli("evaluate", *files, "-q", "-Z", str(z), "-m", "gm_map", "-m", "P.5")
    assert status == 0
    assert "Zgm_map                \tall\t   inf\n" in out  # %6.4f of inf
    assert "ZP_5                   \tq1\t-0.0000\n" in out and "ZP_5                   \tall\t0.0000\n" in out


# ------------------------------------------------------------------ compare --delta


@pytest.fixture
def three_runs(tmp_path, monkeypatch) -> None:
    """qrels.txt and bm25.run, dense.run over 12 queries whose AP differences vary."""
    qrels = "".join(f"q{i:02d} 0 d{j} {int(j < 3)}\n" for i in range(12) for j in range(8))
    (tmp_path / "qrels.txt").write_text(qrels)
    for name, shift in (("bm25", 0), ("dense", 1)):
        run = "".join(f"q{i:02d} Q0 d{(j + shift * i) % 8} {j + 1} {8 - j} {name}\n"
                      for i in range(12) for j in range(8))
        (tmp_path / f"{name}.run").write_text(run)
    monkeypatch.chdir(tmp_path)


def test_compare_delta_adds_the_queries_needed_and_the_detectable_difference(three_runs):
    import pandas as pd

    from rankkit.report import COLUMNS
    from rankkit.stats import compare, queries_needed

    status, csv = run_cli("compare", "qrels.txt", "bm25.run", "dense.run", "-m", "map", "--delta", "0.05",
                          "--format", "csv")
    assert status == 0
    frame = pd.read_csv(io.StringIO(csv))
    assert list(frame.columns) == COLUMNS + ["n_needed", "detectable"]
    table = compare("qrels.txt", {"bm25": "bm25.run", "dense": "dense.run"}, "map")
    runs = {name: rk_evaluate(f"{name}.run") for name in ("bm25", "dense")}
    plan = queries_needed((runs["dense"] - runs["bm25"]).to_numpy(), delta=0.05)
    assert frame["n_needed"].iloc[0] == plan.n_needed > 12
    assert frame["detectable"].iloc[0] == pytest.approx(plan.detectable, rel=1e-12)
    assert frame["diff"].iloc[0] == pytest.approx(table["diff"].iloc[0], rel=1e-12)

    status, text = run_cli("compare", "qrels.txt", "bm25.run", "dense.run", "-m", "map", "--delta", "0.05",
                           "--power", "0.9")
    lines = text.splitlines()
    assert status == 0 and lines[0].split()[-3:] == ["Detectable", "Queries", "needed"]
    more = queries_needed((runs["dense"] - runs["bm25"]).to_numpy(), delta=0.05, power=0.9)
    assert lines[1].split()[-2:] == [f"{more.detectable:.4f}", str(more.n_needed)]
    assert lines[-1].endswith("with power 0.9 on these queries; queries needed: the queries it needs to detect "
                              "a difference of 0.05.")

    status, md = run_cli("compare", "qrels.txt", "bm25.run", "dense.run", "-m", "map", "--delta", "0.05",
                         "--format", "markdown")
    assert status == 0 and md.splitlines()[0].endswith("| Detectable | Queries needed |")


def rk_evaluate(run: str):
    from rankkit import evaluate

    return evaluate("qrels.txt", run, ["map"])["map"]


def test_compare_without_delta_prints_what_it_printed(three_runs):
    status, text = run_cli("compare", "qrels.txt", "bm25.run", "dense.run", "-m", "map")
    assert status == 0 and "Detectable" not in text and "queries needed" not in text
    assert text.splitlines()[0].split()[-1] == "d"
    status, csv = run_cli("compare", "qrels.txt", "bm25.run", "dense.run", "-m", "map", "--format", "csv")
    assert csv.splitlines()[0].endswith(",n_queries,wins,losses")


@pytest.mark.parametrize("argv, message", [
    (["--delta", "0"], "argument --delta: expected a positive number, got '0'"),
    (["--delta", "x"], "argument --delta: expected a positive number, got 'x'"),
    (["--delta", "0.01", "--power", "0.04"], "power must be greater than alpha"),
    (["--delta", "0.01", "--power", "1.5"], r"power must be in (0, 1), got 1.5"),
])
def test_compare_delta_errors_exit_2(three_runs, capsys, argv, message):
    status, out = run_cli("compare", "qrels.txt", "bm25.run", "dense.run", "-m", "map", *argv)
    assert status == 2 and out == ""
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("command", ["evaluate", "compare"])
@pytest.mark.parametrize("measure", ["AUC", "MSE", "GAUC"])
def test_metrics_of_model_scores_exit_2_pointing_to_evaluate_scores(files, tmp_path, capsys, command, measure):
    other = tmp_path / "other.run"
    other.write_text(Path(files[1]).read_text())
    runs = [files[1], str(other)] if command == "compare" else [files[1]]
    status, _ = run_cli(command, files[0], *runs, "-m", "P@2", "-m", measure)
    assert status == 2
    assert f"metric {measure} needs the model's scores: use rk.evaluate_scores" in capsys.readouterr().err


# --------------------------------------------------------------------------- the README's warnings

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = [str(ROOT / "data" / "example.qrels"), str(ROOT / "data" / "example.run")]
NEW = str(ROOT / "data" / "example_new.run")


def _readme_warnings() -> tuple[list[str], str]:
    """The warnings the README shows beside its example, and its text."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"^```text\n(UserWarning: .*?)^```$", readme, re.M | re.S)
    assert block, "the README shows the example's warnings"
    return [line.removeprefix("UserWarning: ") for line in block[1].splitlines()], readme


def test_the_readme_shows_the_warnings_its_example_gives():
    import warnings

    import rankkit as rk

    shown, _ = _readme_warnings()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rk.evaluate(rk.read_qrels(EXAMPLE[0]), rk.read_run(EXAMPLE[1]), ["AP"])
        rk.compare(EXAMPLE[0], {"a": EXAMPLE[1], "b": EXAMPLE[1]}, ["AP"])
    assert [str(w.message) for w in caught] == shown + [f"every run: {m}" for m in shown]
    assert all(w.category is UserWarning for w in caught)


def test_the_command_line_prints_them_on_stderr_and_python_warning_control_silences_them(capsys, monkeypatch):
    import warnings

    shown, readme = _readme_warnings()
    assert run_cli("compare", *EXAMPLE, NEW, "-m", "map")[0] == 0
    assert capsys.readouterr().err.splitlines() == [f"rankkit compare: warning: every run: {m}" for m in shown]
    assert run_cli("evaluate", "-c", *EXAMPLE, "-m", "map")[0] == 0  # -c scores 149: the first alone
    assert capsys.readouterr().err.splitlines() == [f"rankkit evaluate: warning: {shown[0]}"]
    assert "PYTHONWARNINGS=ignore::UserWarning rankkit" in readme
    monkeypatch.setattr(sys, "warnoptions", ["ignore::UserWarning"])  # as Python sets them from PYTHONWARNINGS
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        status, out = run_cli("compare", *EXAMPLE, NEW, "-m", "map")
    assert status == 0 and out.splitlines()[1].split()[:3] == ["example_new.run", "example.run", "map"]
    assert capsys.readouterr().err == ""


def test_the_readmes_python_filter_silences_both():
    import warnings

    import rankkit as rk

    _, readme = _readme_warnings()
    call = re.search(r'`(warnings\.filterwarnings\("ignore", message="[^"]+"\))`', readme)
    assert call, "the README names the filter"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        eval(call[1], {"warnings": warnings})
        rk.evaluate(rk.read_qrels(EXAMPLE[0]), rk.read_run(EXAMPLE[1]), ["AP"])
        rk.compare(EXAMPLE[0], {"a": EXAMPLE[1], "b": EXAMPLE[1]}, ["AP"])
    assert caught == []
