"""``rankkit compare --fail-if``: the gate for CI (rankkit.report's conditions, the command's exit
status, its Markdown summary and JUnit report, the worked example of docs/ci_gate.md), and the
command line's smaller fixes: ``--test tukey`` without ``--correction``, a subcommand's unknown
flag, ``--delta``'s footnote, a ScoreTable's own aggregates beside compare's means, the example
run in data/ and the book's metric table."""

from __future__ import annotations

import importlib.util
import io
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import numpy as np
import pandas as pd
import pytest

import rankkit as rk
from rankkit.cli import main
from rankkit.report import FailIf, check_fail_if, gate_junit, gate_lines, parse_fail_if, to_text
from rankkit.stats import compare

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
GATE = ["compare", str(DATA / "example.qrels"), str(DATA / "example_new.run"), "--baseline", str(DATA / "example.run")]


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


@pytest.fixture(scope="module")
def example():
    """compare() of the shipped pair, the numbers every gate below is checked against."""
    with pytest.warns(UserWarning):  # query 149 judged, absent; 150 without judgments
        return compare(str(DATA / "example.qrels"),
                       {"example.run": str(DATA / "example.run"), "example_new.run": str(DATA / "example_new.run")},
                       ["map", "nDCG@10", "P@10"], baseline="example.run").set_index("metric")


# --------------------------------------------------------------------------- the conditions


@pytest.mark.parametrize("text, expected", [
    ("nDCG@10 < -0.01", FailIf("nDCG@10 < -0.01", "nDCG@10", -0.01, False)),
    ("map<-2%", FailIf("map<-2%", "map", -2.0, True)),
    ("  P.10 <  -.5 % ", FailIf("P.10 <  -.5 %", "P.10", -0.5, True)),
    ("AP(normalize='min_k')@5 < 0", FailIf("AP(normalize='min_k')@5 < 0", "AP(normalize='min_k')@5", 0.0, False)),
    ("map < -1e-3", FailIf("map < -1e-3", "map", -0.001, False)),
])
def test_conditions_parse(text, expected):
    assert parse_fail_if(text) == expected


@pytest.mark.parametrize("text, message", [
    ("nDCG@10 > -0.01", "must read 'METRIC < -MARGIN' or 'METRIC < -PERCENT%'"),
    ("nDCG@10 < minus one", "must read 'METRIC < -MARGIN'"),
    ("< -0.01", "must read 'METRIC < -MARGIN'"),
    ("nDCG@10 < 0.01", "the threshold is a drop, 0 or negative .* got 0.01"),
    ("map < 2%", "the threshold is a drop, 0 or negative .* got 2%"),
])
def test_bad_conditions_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_fail_if(text)


def _table(diffs, alpha=0.05):
    """A compare table of one metric (AP): a baseline and one system per list of differences."""
    base = np.linspace(0.3, 0.7, 8)
    runs = {"prod": pd.DataFrame({"AP": base})}
    runs.update({f"new{i}": pd.DataFrame({"AP": base + np.asarray(d)}) for i, d in enumerate(diffs)})
    return compare(None, runs, "AP", baseline="prod", alpha=alpha)


def test_a_condition_holds_when_the_drop_is_below_the_limit_and_significant():
    drop = [-0.05, -0.06, -0.04, -0.05, -0.055, -0.045, -0.05, -0.05]   # significant, mean -0.05
    noisy = [-0.3, 0.2, -0.25, 0.15, -0.2, 0.1, -0.1, 0.0]              # mean -0.05, not significant
    table = _table([drop, noisy])
    assert table["significant"].tolist() == [True, False]
    result = check_fail_if(table, [parse_fail_if("AP < -0.04"), parse_fail_if("AP < -0.06"), parse_fail_if("AP < 0")])
    assert list(zip(result["condition"], result["system"], result["failed"])) == [
        ("AP < -0.04", "new0", True), ("AP < -0.04", "new1", False),     # below, but only one significant
        ("AP < -0.06", "new0", False), ("AP < -0.06", "new1", False),    # not below
        ("AP < 0", "new0", True), ("AP < 0", "new1", False)]
    assert result["below"].tolist() == [True, True, False, False, True, True]
    np.testing.assert_array_equal(result["diff"], np.tile(table["diff"], 3))


def test_a_percentage_is_of_the_baseline_mean():
    table = _table([[-0.05, -0.06, -0.04, -0.05, -0.055, -0.045, -0.05, -0.05]])
    base = float(table["baseline_mean"].iloc[0])   # 0.5
    diff = float(table["diff"].iloc[0])            # -0.05: -10% of it
    result = check_fail_if(table, [parse_fail_if("AP < -9%"), parse_fail_if("AP < -11%")])
    assert result["limit"].tolist() == pytest.approx([-0.09 * base, -0.11 * base], rel=1e-12)
    assert result["failed"].tolist() == [diff < -0.09 * base, diff < -0.11 * base] == [True, False]


def test_a_condition_on_a_metric_not_compared_is_an_error():
    with pytest.raises(ValueError, match=r"'nDCG@10' is not a compared measure \(compared: \['AP'\]\)"):
        check_fail_if(_table([[0.0] * 8]), [parse_fail_if("nDCG@10 < -0.01")])


def test_the_verdict_lines_give_the_numbers():
    drop = [-0.05, -0.06, -0.04, -0.05, -0.055, -0.045, -0.05, -0.05]
    table = _table([drop, [0.01] * 8])
    lines = gate_lines(check_fail_if(table, [parse_fail_if("AP < -0.01")]))
    p = float(table["p_adjusted"].iloc[0])
    shown = f"{p:.4f}" if p >= 1e-4 else "<0.0001"
    assert lines[0] == (f"FAIL AP < -0.01: new0 vs prod: diff -0.0500 (-10.00%) < -0.0100 and significant "
                        f"(p adj. {shown} < 0.05)")
    assert lines[1].startswith("pass AP < -0.01: new1 vs prod: diff +0.0100 (+2.00%) is not below -0.0100")


# --------------------------------------------------------------------------- the command


def test_the_gate_fails_on_a_significant_drop_beyond_the_margin(example, tmp_path):
    md, xml = tmp_path / "summary.md", tmp_path / "results.xml"
    status, out = run_cli(*GATE, "--fail-if", "nDCG@10 < -0.01", "--fail-if", "map < -2%",
                          "--markdown", str(md), "--junit", str(xml))
    ndcg, ap = example.loc["nDCG@10"], example.loc["map"]
    # the shipped pair: both drops beyond their margins, only map's significant
    assert ndcg["diff"] < -0.01 and not ndcg["significant"]
    assert ap["diff"] < -0.02 * ap["baseline_mean"] and ap["significant"]
    assert status == 1
    lines = out.splitlines()
    assert [line.split()[:3] for line in lines[-2:]] == [["pass", "nDCG@10", "<"], ["FAIL", "map", "<"]]
    assert f"diff {ap['diff']:+.4f} ({ap['diff'] / ap['baseline_mean']:+.2%}) < {-0.02 * ap['baseline_mean']:+.4f}" \
        in lines[-1]

    summary = md.read_text()
    assert summary.startswith("**rankkit compare: FAIL**, 1 of 2 checks\n")
    assert f"| **FAIL** | `map < -2%` | example_new.run | example.run | {ap['diff']:+.4f}" in summary
    assert f"| pass | `nDCG@10 < -0.01` | example_new.run | example.run | {ndcg['diff']:+.4f}" in summary
    assert "<details><summary>Every comparison</summary>" in summary and "| example_new.run | example.run | map" \
        in summary

    suite = ET.parse(xml).getroot()
    assert suite.tag == "testsuites" and suite.get("tests") == "2" and suite.get("failures") == "1"
    cases = suite.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["nDCG@10 < -0.01 [example_new.run vs example.run]",
                                              "map < -2% [example_new.run vs example.run]"]
    assert cases[0].find("failure") is None
    failure = cases[1].find("failure")
    assert f"diff {ap['diff']:+.4f}" in failure.get("message") and f"[{ap['ci_low']:+.4f}, " in failure.text


def test_the_gate_passes_when_no_condition_holds(example):
    status, out = run_cli(*GATE, "--fail-if", "nDCG@10 < -0.02", "--fail-if", "map < -3%", "--fail-if", "P.10 < 0")
    assert not example.loc["P@10", "significant"]
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()[-3:]] == ["pass", "pass", "pass"]


def test_every_condition_is_checked_for_every_run(tmp_path):
    other = tmp_path / "other.run"
    other.write_text((DATA / "example.run").read_text().replace("example\n", "other\n"))
    xml = tmp_path / "r.xml"
    status, out = run_cli(*GATE[:3], str(other), *GATE[3:], "--fail-if", "map < -2%", "--fail-if", "P@10 < 0",
                          "--junit", str(xml))
    cases = ET.parse(xml).getroot().findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == [
        "map < -2% [example_new.run vs example.run]", "map < -2% [other.run vs example.run]",
        "P@10 < 0 [example_new.run vs example.run]", "P@10 < 0 [other.run vs example.run]"]
    assert status == 1 and [c.find("failure") is not None for c in cases] == [True, False, False, False]


def test_csv_stays_a_table_and_the_verdicts_go_to_stderr(capsys):
    status, out = run_cli(*GATE, "--fail-if", "map < -2%", "--format", "csv")
    assert status == 1
    frame = pd.read_csv(io.StringIO(out))
    assert frame["metric"].tolist() == ["map"]
    assert "FAIL map < -2%: example_new.run vs example.run" in capsys.readouterr().err


def test_the_gate_measures_are_compared_with_the_others():
    status, out = run_cli(*GATE, "-m", "P.10", "--fail-if", "map < -2%")
    assert status == 1 and [line.split()[2] for line in out.splitlines()[1:3]] == ["map", "P_10"]
    status, out = run_cli(*GATE, "--fail-if", "ndcg_cut.10 < -0.5")    # without -m: the conditions' only
    assert status == 0 and len(out.splitlines()) == 1 + 1 + 1 + 2 and "ndcg_cut_10" in out.splitlines()[1]


@pytest.mark.parametrize("argv, message", [
    (["--fail-if", "map < -2%"], "--fail-if needs --baseline"),
    (["--baseline", "example", "--fail-if", "map > 0"], "--fail-if must read 'METRIC < -MARGIN'"),
    (["--baseline", "example", "--fail-if", "map < 0.01"], "the threshold is a drop"),
    (["--baseline", "example", "--fail-if", "P.5,10 < -0.01"], "'P.5,10' names 2 measures"),
    (["--baseline", "example", "--fail-if", "NOPE@3 < -0.01"], "NOPE"),
])
def test_gate_usage_errors_exit_2(argv, message, capsys):
    runs = [str(DATA / "example.qrels"), str(DATA / "example.run"), str(DATA / "example_new.run")]
    status, out = run_cli("compare", *runs, *argv)
    assert status == 2 and out == ""
    assert message in capsys.readouterr().err


def test_baseline_may_be_a_file_besides_the_runs(example):
    alone = run_cli(*GATE, "-m", "map")
    among = run_cli("compare", str(DATA / "example.qrels"), str(DATA / "example.run"), str(DATA / "example_new.run"),
                    "--baseline", "example", "-m", "map")
    assert alone == among and alone[0] == 0
    assert alone[1].splitlines()[1].split()[:3] == ["example_new.run", "example.run", "map"]
    # the same file under another spelling is one of the runs, not a second baseline
    runs = [str(DATA / "example.qrels"), str(DATA / "example.run"), str(DATA / "example_new.run")]
    for spelling in (str(DATA / "example.run"), str(DATA / ".." / "data" / "example.run")):
        assert run_cli("compare", *runs, "--baseline", spelling, "-m", "map") == among
    # one run and no baseline file: still an error
    status, _ = run_cli("compare", str(DATA / "example.qrels"), str(DATA / "example.run"), "-m", "map")
    assert status == 2


# --------------------------------------------------------------------------- the book's worked example


def _blocks(path: Path) -> list[tuple[str, str]]:
    return re.findall(r"^```(\w*)\n(.*?)^```$", path.read_text(encoding="utf-8"), re.M | re.S)


def test_the_ci_gate_page_shows_what_the_command_prints_and_writes(tmp_path):
    blocks = _blocks(ROOT / "docs" / "ci_gate.md")
    console = [text for lang, text in blocks if lang == "console"]
    assert len(console) == 1
    command, *shown = console[0].splitlines()
    args = shlex.split(command.removeprefix("$ rankkit "))
    files = {flag: args[args.index(flag) + 1] for flag in ("--markdown", "--junit")}
    for flag, name in files.items():
        args[args.index(flag) + 1] = str(tmp_path / name)
    done = subprocess.run([sys.executable, "-m", "rankkit", *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr   # the page says so
    assert done.stdout.splitlines() == shown
    written = {lang: text for lang, text in blocks if lang in ("markdown", "xml")}
    assert (tmp_path / files["--markdown"]).read_text() == written["markdown"]
    assert (tmp_path / files["--junit"]).read_text() == written["xml"]
    yaml = next(text for lang, text in blocks if lang == "yaml")
    assert "--fail-if \"nDCG@10 < -0.01\" --fail-if \"map < -2%\"" in yaml and "--junit results.xml" in yaml


def test_the_page_is_in_the_books_toctree():
    index = (ROOT / "docs" / "index.md").read_text()
    guide = index[index.index(":caption: Guide"):]
    assert re.search(r"^ci_gate$", guide[:guide.index("```")], re.M)


# --------------------------------------------------------------------------- the example run in data/


def test_example_new_run_is_what_its_script_writes(tmp_path):
    spec = importlib.util.spec_from_file_location("make_example_new", DATA / "make_example_new.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shutil.copy(DATA / "example.run", tmp_path / "example.run")
    module.HERE = tmp_path
    module.main()
    assert (tmp_path / "example_new.run").read_bytes() == (DATA / "example_new.run").read_bytes()
    old, new = rk.read_run(DATA / "example.run"), rk.read_run(DATA / "example_new.run")
    assert sorted(zip(old.query_id, old.doc_id)) == sorted(zip(new.query_id, new.doc_id))
    assert "example_new.run" in (DATA / "README.md").read_text()


# --------------------------------------------------------------------------- the smaller fixes


def test_tukey_needs_no_correction_on_the_command_line(capsys):
    runs = [str(DATA / "example.qrels"), str(DATA / "example.run"), str(DATA / "example_new.run"), "-m", "map",
            "--format", "csv"]
    status, out = run_cli("compare", *runs, "--test", "tukey")
    assert status == 0
    frame = pd.read_csv(io.StringIO(out))
    with pytest.warns(UserWarning):
        table = compare(str(DATA / "example.qrels"),
                        {"example.run": str(DATA / "example.run"), "example_new.run": str(DATA / "example_new.run")},
                        ["map"], test="tukey", correction="none")
    assert frame["p_adjusted"].tolist() == pytest.approx(table["p_value"].tolist(), rel=1e-12)
    assert run_cli("compare", *runs, "--test", "tukey", "--correction", "none") == (status, out)
    capsys.readouterr()
    status, out = run_cli("compare", *runs, "--test", "tukey", "--correction", "holm")
    assert status == 2 and out == ""
    assert "--correction holm cannot be used with --test tukey" in capsys.readouterr().err


@pytest.mark.parametrize("command, usage", [
    ("evaluate", "usage: rankkit evaluate [options] QRELS RUN"),
    ("compare", "usage: rankkit compare [options] QRELS RUN RUN [RUN ...]"),
])
def test_an_unknown_flag_names_the_subcommands_usage(command, usage, capsys):
    status, out = run_cli(command, "-x", str(DATA / "example.qrels"), str(DATA / "example.run"))
    err = capsys.readouterr().err
    assert status == 2 and out == ""
    assert err.startswith(usage)
    assert err.splitlines()[-1] == f"rankkit {command}: error: unrecognized arguments: -x"


def test_the_delta_footnote_is_a_sentence():
    table = _table([[-0.05, -0.06, -0.04, -0.05, -0.055, -0.045, -0.05, -0.05]])
    planned = compare(None, {"prod": pd.DataFrame({"AP": np.linspace(0.3, 0.7, 8)}),
                             "new": pd.DataFrame({"AP": np.linspace(0.3, 0.7, 8) + [0.0, 0.1] * 4})},
                      "AP", baseline="prod", delta=0.01)
    note = to_text(planned).splitlines()[-1]
    assert note.endswith("queries needed: the queries it needs to detect a difference of 0.01.")
    assert " so." not in note and "so" not in to_text(table).splitlines()[-1].split()


def _score_tables():
    rng = np.random.default_rng(3)
    query = np.repeat(np.arange(12), 10)
    labels = np.tile([1, 0, 0, 1, 0, 0, 0, 1, 0, 0], 12)
    return query, labels, {name: rk.evaluate_scores(labels, labels * lift + rng.normal(size=120), query, ["AUC", "P@3"])
                           for name, lift in (("base", 0.5), ("model", 1.0))}


def test_a_score_tables_own_aggregate_is_named_beside_the_mean_compared():
    _, _, tables = _score_tables()
    table = compare(None, tables, ["AUC", "P@3"], baseline="base")
    row = table.set_index("metric").loc["AUC"]
    per_query = {name: float(np.mean(np.asarray(t["AUC"]))) for name, t in tables.items()}
    pooled = {name: float(t.all["AUC"]) for name, t in tables.items()}
    assert row["mean"] == pytest.approx(per_query["model"], rel=1e-12)
    assert row["baseline_mean"] == pytest.approx(per_query["base"], rel=1e-12)
    assert all(abs(pooled[n] - per_query[n]) > 1e-4 for n in tables)      # two numbers, one name
    assert table.attrs["aggregates"] == {"AUC": {"model": pooled["model"], "base": pooled["base"]}}  # P@3: a mean
    note = to_text(table).splitlines()[-1]
    assert note.endswith(f"Mean AUC is the mean over queries of per-query AUC, not the ScoreTable's all['AUC'] "
                         f"(model {pooled['model']:.4f}, base {pooled['base']:.4f}).")
    assert "all['AUC']" in rk.stats.to_markdown(table) and "all['AUC']" in rk.stats.to_markdown(table, layout="wide")


def test_a_printed_comparison_of_score_tables_carries_the_note_on_their_aggregates():
    _, _, tables = _score_tables()
    table = compare(None, tables, ["AUC", "P@3"], baseline="base")
    note = next(line for line in to_text(table).splitlines()[-1].split(". ") if line.startswith("Mean AUC"))
    assert str(table) == repr(table) == repr(pd.DataFrame(table)) + "\n" + note  # the DataFrame's text, then it
    assert f"<p>{note}" in table._repr_html_().replace("&#x27;", "'")
    assert "all['AUC']" not in str(table[table["metric"] == "P@3"])  # a selection without AUC: no note
    assert "all['AUC']" in str(table[["system", "mean"]])
    frames = compare(None, {n: t.to_frame(all=False) for n, t in tables.items()}, ["AUC"], baseline="base")
    assert repr(frames) == repr(pd.DataFrame(frames))  # no ScoreTable, no note: any DataFrame's text
    assert isinstance(table, pd.DataFrame) and type(table.copy()) is type(table)


def test_the_mark_is_explained_only_when_a_difference_is_marked():
    a = pd.DataFrame({"AP": [0.2, 0.4, 0.1, 0.5]})
    near, far = pd.DataFrame({"AP": [0.25, 0.35, 0.15, 0.5]}), pd.DataFrame({"AP": [0.3, 0.6, 0.2, 0.6]})
    for runs, marked in (({"bm25": a, "neural": near}, False), ({"bm25": a, "neural": far}, True)):
        table = compare(None, runs, "AP", baseline="bm25")
        assert bool(table["significant"].any()) is marked
        for text in (to_text(table), rk.stats.to_markdown(table), rk.stats.to_markdown(table, layout="wide"),
                     rk.stats.to_latex(table, mark="*")):
            assert ("†" in text or "*" in text) is marked, text
        note = to_text(table).splitlines()[-1]
        assert note.startswith("† significant at alpha = 0.05 (paired t-test" if marked
                               else "No difference is significant at alpha = 0.05 (paired t-test")
        assert note.endswith("d: paired Cohen's d.")
        wide = rk.stats.to_markdown(table, layout="wide").splitlines()[-1]
        assert wide.startswith("Means; † significantly different from bm25" if marked
                               else "Means; none significantly different from bm25")


def test_compare_without_qrels_says_to_give_the_judgments_first(capsys):
    new, prod = str(DATA / "example_new.run"), str(DATA / "example.run")
    for argv in (["--baseline", prod, new], ["--baseline", prod, new, prod], [prod, new, "-m", "map"]):
        status, out = run_cli("compare", *argv)
        err = capsys.readouterr().err
        assert status == 2 and out == "" and len(err.splitlines()) == 1, err
        assert err.startswith(f"rankkit compare: error: {argv[0] if argv[0] != '--baseline' else new} is a run "
                              "(qid Q0 docno rank score tag), not judgments: give the judgments first, "
                              "rankkit compare QRELS RUN [RUN ...] (here: rankkit compare QRELS "), err
    assert err.rstrip().endswith(f"(here: rankkit compare QRELS {prod} {new})")
    status, _ = run_cli("compare", str(DATA / "example.qrels"))
    assert status == 2 and "compare needs at least two runs, got 0: rankkit compare QRELS RUN RUN [RUN ...]" in \
        capsys.readouterr().err


def test_per_query_frames_have_no_aggregate_note():
    _, _, tables = _score_tables()
    frames = {name: t.to_frame(all=False) for name, t in tables.items()}
    table = compare(None, frames, ["AUC"], baseline="base")
    assert "aggregates" not in table.attrs and "ScoreTable" not in to_text(table)


def test_the_metric_table_has_four_columns_to_fit_the_page():
    spec = importlib.util.spec_from_file_location("_docs_generate_gate", ROOT / "docs" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = generate
    spec.loader.exec_module(generate)
    lines = generate.metric_tables().split("## Every metric")[1].strip().splitlines()
    assert lines[0] == "| rankkit, function | other names | parameters | what it measures |"
    row = next(line for line in lines if line.startswith("| `P[@k]`"))
    assert row.count(" | ") == 3 and "trec_eval: `P_k`" in row and "{py:func}`rk.precision <rankkit.precision>`" in row
    css = (ROOT / "docs" / "_static" / "book.css").read_text()
    assert ".bd-article td code, .bd-article td code span.pre { white-space: normal;" in css


def test_without_conditions_the_reports_say_so(tmp_path):
    result = check_fail_if(_table([[0.0] * 8]), [])
    root = ET.fromstring(gate_junit(result))
    assert root.get("tests") == "0" and root.get("failures") == "0"
    md = tmp_path / "summary.md"
    status, out = run_cli(*GATE, "-m", "map", "--markdown", str(md))
    assert status == 0 and "FAIL" not in out and "pass" not in out
    assert md.read_text().startswith("**rankkit compare**, no --fail-if condition\n")


def test_the_search_page_reads_each_pages_text_offline(tmp_path):
    """The book's search summaries from disk (file://, where a browser refuses fetch()): conf.py
    keeps each page's text and gives the search page the two scripts that answer from it."""
    from types import SimpleNamespace

    pytest.importorskip("jupyter_server_mathjax")  # conf.py serves its MathJax (the docs extra)
    spec = importlib.util.spec_from_file_location("_docs_conf_gate", ROOT / "docs" / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    added = []
    (tmp_path / "_static").mkdir()
    app = SimpleNamespace(builder=SimpleNamespace(link_suffix=".html", format="html"), add_js_file=added.append,
                          outdir=str(tmp_path))
    body = ('<section id="gate"><h1>Gate<a class="headerlink" href="#gate">#</a></h1><p>a <code>map</code>'
            '<img src="x.png"><script>no()</script><svg><path/></svg></p></section>')
    conf.keep_search_text(app, "ci_gate", "page.html", {"body": body}, object())
    assert added == []
    conf.keep_search_text(app, "search", "search.html", {}, None)
    assert added == ["search_pages.js", "search_text.js"]
    conf.write_search_text(app, None)
    text = (tmp_path / "_static" / "search_pages.js").read_text()
    assert text.startswith("window.RK_SEARCH_PAGES = {") and \
        '"ci_gate.html": "<section id=\\"gate\\"><h1>Gate</h1><p>a map</p></section>"' in text
    script = (ROOT / "docs" / "_static" / "search_text.js").read_text()
    assert 'window.location.protocol !== "file:"' in script and "RK_SEARCH_PAGES" in script
