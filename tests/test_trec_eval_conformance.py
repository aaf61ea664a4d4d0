"""rankkit against trec_eval 10's own test outputs: every line, byte for byte.

The data is trec_eval 10.0's ``test/`` folder, kept in ``tests/data/trec_eval/`` (its README
names the flags that produced each output file), so every ``make test`` runs this module.

- ``rankkit evaluate`` with those flags prints every output file byte for byte: every
  measure of ``-m all_trec``, the default measures, the parameter lists of
  ``out.test.meas_params``, ``-q``, ``-c`` and ``-l2``. No measure is left out.
- The Python API gives the same numbers: ``evaluate(qrels, run, ["all_trec"])`` has one
  column per measure named as trec_eval prints it, each per-query value within half a
  unit of the printed fourth decimal (integer counts and strings exactly), and
  :func:`aggregate` gives the ``all`` line.
"""

from __future__ import annotations

import io
import shlex
import warnings
from pathlib import Path

import numpy as np
import pytest

from rankkit.cli import main
from rankkit.evaluation.scoring import aggregate, evaluate, parse_metric

CONFORMANCE = Path(__file__).resolve().parent / "data" / "trec_eval"   # trec_eval 10.0's test data, in the repository

TOLERANCE = 5.001e-5

# output file -> the trec_eval command line of the folder's README (after "trec_eval")
COMMANDS = {
    "out.test": "qrels.test results.test",
    "out.test.a": "-m all_trec qrels.test results.test",
    "out.test.aq": "-m all_trec -q qrels.test results.test",
    "out.test.aqc": "-m all_trec -q -c qrels.test results.trunc",
    "out.test.aql": "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test",
    "out.test.meas_params": (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test"
    ),
}


def _argv(command: str) -> list[str]:
    """The README's trec_eval arguments, files made absolute, split the way getopt would."""
    argv = []
    for word in shlex.split(command):
        if (CONFORMANCE / word).is_file():
            word = str(CONFORMANCE / word)
        elif word.startswith("-m") and len(word) > 2:  # -mmap: getopt's attached argument
            argv.append("-m")
            word = word[2:]
        argv.append(word)
    return argv


@pytest.mark.parametrize("name", list(COMMANDS))
def test_command_line_prints_every_line_of_trec_eval_byte_for_byte(name, capsys):
    out = io.StringIO()
    assert main(["evaluate", *_argv(COMMANDS[name])], out=out) == 0
    assert out.getvalue() == (CONFORMANCE / name).read_text()
    assert "error" not in capsys.readouterr().err


def _read_output(name: str) -> dict[str, dict[str, str]]:
    """measure -> {query or 'all': printed value}, from a trec_eval output file."""
    values: dict[str, dict[str, str]] = {}
    for line in (CONFORMANCE / name).read_text().splitlines():
        measure, query, value = line.split("\t")
        values.setdefault(measure.strip(), {})[query] = value
    return values


# output file -> (qrels, run, evaluate() options, the -m values)
CASES = {
    "out.test.aq": ("qrels.test", "results.test", {}, ["all_trec"]),
    "out.test.aqc": ("qrels.test", "results.trunc", {"queries": "qrels"}, ["all_trec"]),
    "out.test.aql": ("qrels.rel_level", "results.test", {"rel": 2}, ["all_trec", "relstring.20"]),
}
_TABLES: dict[str, object] = {}


def _table(name: str):
    """rankkit's per-query table (Python API) for the measures of an output file (cached)."""
    if name not in _TABLES:
        qrels, run, options, specs = CASES[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _TABLES[name] = evaluate(CONFORMANCE / qrels, CONFORMANCE / run, specs, **options)
    return _TABLES[name]


@pytest.mark.parametrize("name", list(CASES))
def test_python_api_gives_the_printed_values(name):
    printed = _read_output(name)
    table = _table(name)
    summary = aggregate(table)
    assert set(printed) <= set(table.columns)  # a column per printed measure, same names
    assert len(table.columns) == len(printed) + (name == "out.test.aql")  # + relstring of all_trec
    for measure, values in printed.items():
        info = parse_metric(table.attrs["metrics"][measure]).info
        ours = {str(q): v for q, v in table[measure].items()}
        if not info.summary_only:
            assert sorted(ours) == sorted(q for q in values if q != "all"), measure
        for query, text in values.items():
            if query == "all" and name == "out.test.aqc" and measure == "num_rel":
                continue  # -c's all line counts every label > 0 (the command line does)
            value = summary[measure] if query == "all" else ours[query]
            if info.kind == "str":
                assert (f"'{value}'" if query != "all" else value) == text, (measure, query)
            elif info.kind == "int":
                assert int(value) == int(text), (measure, query)
            else:
                assert abs(value - float(text)) <= TOLERANCE, (measure, query, value, text)


def test_number_of_queries_scored():
    for name in ("out.test.aq", "out.test.aqc", "out.test.aql"):
        assert _read_output(name)["num_q"]["all"] == str(len(_table(name)))


def test_judged_queries_missing_from_the_run_score_zero_under_c():
    table = _table("out.test.aqc")
    row = table.loc["302"]
    assert row["num_rel"] == 77 and row["num_ret"] == 0
    # every other measure is 0, as trec_eval -c prints, rbp_resid included (trec_eval's
    # convention; RBP_residual's default, Moffat & Zobel's, would give the tail 0.9**0 = 1)
    assert row["runid"] == "STANDARD" and row["num_q"] == 1 and row["relstring"] == ""
    assert (row.drop(["num_rel", "runid", "num_q", "relstring"]) == 0).all()
    assert row["rbp_resid"] == 0.0


def test_rbp_aliases_select_trec_eval_conventions():
    assert str(parse_metric("rbp")) == "RBP(p=0.9, max_grade='query')"
    assert str(parse_metric("rbp_resid")) == "RBP_residual(p=0.9, convention='trec_eval')"
    # the Moffat-Zobel residual on the query missing from the run: every rank unknown
    table = evaluate(CONFORMANCE / "qrels.test", CONFORMANCE / "results.trunc",
                     ["rbp_resid", "RBP_residual(p=0.9)"], queries="qrels")
    assert table.loc["302"].tolist() == [0.0, 1.0]
    # graded qrels under -l 2: per-query scaling (largest labels 4, 3, 2), level ignored
    table = evaluate(CONFORMANCE / "qrels.rel_level", CONFORMANCE / "results.test",
                     ["rbp", "RBP(p=0.9, max_grade=4)", "RBP(p=0.9)"], rel=2)
    printed = _read_output("out.test.aql")["rbp"]
    assert [f"{x:.4f}" for x in table["rbp"]] == [printed[q] for q in ("301", "302", "303")]
    assert table.loc["301", "rbp"] == table.loc["301", "RBP(p=0.9, max_grade=4)"]
    assert (table.loc[["302", "303"], "rbp"] > table.loc[["302", "303"], "RBP(p=0.9, max_grade=4)"]).all()
    # binary RBP at level 2 differs: query 301's first label >= 2 is deep in the ranking
    assert table.loc["301", "RBP(p=0.9)"] < 1e-4 < table.loc["301", "rbp"]


def test_tolerance_is_half_a_unit_of_the_fourth_decimal():
    # a value printed as 0.1234 lies in [0.12335, 0.12345]
    assert abs(0.12335 - 0.1234) <= TOLERANCE and abs(0.123451 - 0.1234) > 5e-5
    assert np.isclose(TOLERANCE, 5e-5, rtol=1e-3)
