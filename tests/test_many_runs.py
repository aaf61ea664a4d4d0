"""Many runs in one process: ``rankkit evaluate QRELS RUN [RUN ...]`` and
``rk.evaluate(qrels, {"name": run, ...})``, each run's values those of evaluating it alone."""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

import rankkit as rk
from rankkit.cli import main
from rankkit.evaluation.scoring import is_runs

DATA = Path(__file__).resolve().parent.parent / "data"
QRELS, RUN = DATA / "example.qrels", DATA / "example.run"


@pytest.fixture
def runs(tmp_path):
    """The example run, and a second run: the same lines, other scores and tag."""
    lines = RUN.read_text().splitlines()
    other = tmp_path / "other.run"
    other.write_text("".join(f"{' '.join(line.split()[:4])} {1.0 / (i % 97 + 1)!r} other\n"
                             for i, line in enumerate(lines)))
    return [RUN, other]


def command(*args) -> str:
    out = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["evaluate", *map(str, args)], out=out) == 0
    return out.getvalue()


@pytest.mark.parametrize("flags", [[], ["-q"], ["-q", "-c", "-m", "all_trec"], ["-m", "nDCG@10", "-m", "P.5"]])
def test_each_run_prints_what_it_prints_alone(runs, flags):
    together = command(QRELS, *runs, *flags)
    assert together == "".join(command(QRELS, run, *flags) for run in runs)
    if "-m" not in flags:  # official: each run's runid line tells them apart
        assert [line.split()[-1] for line in together.splitlines() if line.startswith("runid")] == ["example", "other"]


def test_the_frames_reader_takes_several_runs_too(runs):
    """-Z and --progress go through frames: the same lines as the arrays' reader."""
    together = command(QRELS, *runs, "-q", "--progress")
    assert together == "".join(command(QRELS, run, "-q") for run in runs)


def test_csv_and_json_of_several_runs_name_each_run(runs):
    csv = command(QRELS, *runs, "-m", "P.5", "--format", "csv").splitlines()
    alone = [command(QRELS, run, "-m", "P.5", "--format", "csv").splitlines() for run in runs]
    assert csv == ["run," + alone[0][0], "example.run," + alone[0][1], "other.run," + alone[1][1]]
    document = json.loads(command(QRELS, *runs, "-m", "P.5", "--format", "json"))
    assert list(document["runs"]) == ["example.run", "other.run"]
    assert document["runs"]["example.run"] == json.loads(command(QRELS, RUN, "-m", "P.5", "--format", "json"))


def test_standard_input_is_refused_beside_other_runs(capsys):
    assert main(["evaluate", str(QRELS), "-", str(RUN)]) == 2
    assert "standard input (-) can only be the one RUN" in capsys.readouterr().err


def test_python_takes_a_mapping_of_runs(runs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = rk.evaluate(QRELS, {"bm25": runs[0], "other": runs[1]}, ["nDCG@10", "AP"])
        alone = [rk.evaluate(QRELS, run, ["nDCG@10", "AP"]) for run in runs]
    assert table.index.names == ["run", "query_id"]
    for name, want in zip(["bm25", "other"], alone):
        got = table.xs(name, level="run")
        pd.testing.assert_frame_equal(got, want, check_names=False)
    assert table.attrs["unscored"] == {"bm25": alone[0].attrs["unscored"], "other": alone[1].attrs["unscored"]}
    summary = rk.aggregate(table)
    assert list(summary.index) == ["bm25", "other"]
    pd.testing.assert_series_equal(summary.loc["other"], rk.aggregate(alone[1]), check_names=False)


def test_a_run_as_a_dict_is_not_taken_for_many_runs():
    assert not is_runs({"q1": {"d1": 1.0}})
    assert is_runs({"bm25": {"q1": {"d1": 1.0}}})
    assert is_runs({"bm25": "run.txt"}) and is_runs({"a": pd.DataFrame()})
    assert not is_runs({}) and not is_runs([RUN])


def warning_lines(err: str) -> list[str]:
    """The warnings' lines of stderr, without --progress's lines and its erasing of one."""
    lines = (line.replace("\r", "\n").split("\n")[-1].split("\x1b[K")[-1] for line in err.splitlines())
    return [line for line in lines if line.startswith("rankkit evaluate: warning")]


@pytest.mark.parametrize("flags", [["-m", "map"], ["-m", "map", "--progress"]])  # the arrays' reader, the frames'
def test_each_runs_warnings_name_its_file_and_lines_without_runid_are_warned_about(runs, capsys, flags):
    assert main(["evaluate", str(QRELS), *map(str, runs), *flags]) == 0
    err = warning_lines(capsys.readouterr().err)
    assert err[0] == ("rankkit evaluate: warning: 2 runs, one after the other, with nothing telling their lines "
                      "apart: add -m runid (their tags) or use --format csv (a column run)")
    for run in runs:
        assert f"rankkit evaluate: warning: {run}: run queries without judgments are not scored (1): 150" in err
        assert any(line.startswith(f"rankkit evaluate: warning: {run}: judged queries missing") for line in err)
    assert main(["evaluate", str(QRELS), str(RUN), *flags]) == 0  # one run: as it always was
    assert warning_lines(capsys.readouterr().err)[0] == (
        "rankkit evaluate: warning: run queries without judgments are not scored (1): 150")
    assert main(["evaluate", str(QRELS), *map(str, runs), *flags, "-m", "runid"]) == 0
    assert "nothing telling their lines apart" not in capsys.readouterr().err
