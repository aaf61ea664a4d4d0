"""``rankkit evaluate`` as a whole process: with trec_eval's format it evaluates two TREC
files on arrays (:func:`rankkit.trec_eval.trec_eval_text`), loading neither pandas nor
scipy, and prints what the frames' path prints; any input that path does not take goes to
the frames' path with the same output, warnings and errors."""

from __future__ import annotations

import ast
import gzip
import io
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest

from rankkit.cli import main
from rankkit.trec_eval import evaluate_like_trec_eval, trec_eval_text, trec_lines, trec_measures

ROOT = Path(__file__).resolve().parent.parent
QRELS, RUN = ROOT / "data" / "example.qrels", ROOT / "data" / "example.run"

# The process runs the console entry point (rankkit.__main__.run) and, as it exits, writes
# the pandas and scipy modules it loaded to stderr (its last line); a command that starts
# afresh with pandas (rankkit.process.restart_with_pandas) runs this script again.
ENTRY = """
import os, sys
from rankkit import __main__ as entry

def report(status):
    sys.stdout.flush()
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("pandas", "scipy"))
    sys.stderr.write("LOADED " + repr(loaded) + "\\n")
    sys.stderr.flush()
    real_exit(status)

def restart(executable, argv):  # the command starting afresh (with pandas): this script again
    real_execv(executable, [executable, __file__, *argv[3:]])

real_exit, os._exit = os._exit, report
real_execv, os.execv = os.execv, restart
sys.argv = ["rankkit", *sys.argv[1:]]
try:
    entry.run()
except SystemExit as exc:  # under coverage the entry point exits the usual way
    report(exc.code or 0)
"""


def entry_point(*args: str) -> tuple[str, str, list[str], int]:
    """stdout, stderr (without the report), the pandas and scipy modules loaded, exit status."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COV_", "COVERAGE"))}
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "entry.py"
        script.write_text(ENTRY)
        done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, cwd=ROOT,
                              env=env)
    *lines, last = done.stderr.splitlines(keepends=True)
    assert last.startswith("LOADED "), done.stderr
    return done.stdout, "".join(lines), ast.literal_eval(last[len("LOADED "):]), done.returncode


def frames_text(qrels, run, specs, per_query=True, **options) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the command's own are compared on stderr
        table, summary = evaluate_like_trec_eval(qrels, run, trec_measures(specs), **options)
    return "".join(line + "\n" for line in trec_lines(table, summary, per_query=per_query))


@pytest.mark.parametrize("flags", [["-q"], ["-q", "-c", "-m", "all_trec"], ["-m", "nDCG@10", "-m", "P@10"]])
def test_the_command_loads_neither_pandas_nor_scipy(flags):
    out, err, loaded, status = entry_point("evaluate", str(QRELS), str(RUN), *flags)
    assert status == 0
    assert loaded == []
    assert "warning: run queries without judgments are not scored (1): 150" in err


@pytest.mark.parametrize("flags", [
    ["-q"], ["-q", "-c"], ["-q", "-M", "10"], ["-q", "-l", "2"], ["-q", "-J"], ["-q", "-n"],
    ["-q", "-m", "all_trec"], ["-q", "-m", "nDCG@10", "-m", "P@10"], ["-q", "-c", "-J", "-m", "all_trec"],
    ["-q", "--ties", "average", "-m", "P@10"], ["-q", "-N", "100", "-m", "utility"],
])
def test_the_command_prints_what_the_frames_path_prints(flags):
    out, err, _, status = entry_point("evaluate", str(QRELS), str(RUN), *flags)
    in_process, in_process_err = io.StringIO(), io.StringIO()
    sys_stderr, sys.stderr = sys.stderr, in_process_err
    try:
        assert main(["evaluate", str(QRELS), str(RUN), *flags], out=in_process) == status == 0
    finally:
        sys.stderr = sys_stderr
    assert out == in_process.getvalue()
    assert err == in_process_err.getvalue()
    specs = [flags[i + 1] for i, f in enumerate(flags) if f == "-m"] or None
    options = {"queries": "qrels" if "-c" in flags else "run", "judged_only": "-J" in flags}
    for flag, name, kind in (("-M", "depth", int), ("-l", "rel", float), ("-N", "n_docs", int),
                             ("--ties", "ties", str)):
        if flag in flags:
            options[name] = kind(flags[flags.index(flag) + 1])
    want = frames_text(QRELS, RUN, specs, **options)
    if "-n" in flags:
        want = "".join(line for line in want.splitlines(keepends=True) if "\tall\t" not in line)
    assert out == want


@pytest.mark.parametrize("flags", [["--format", "csv"], ["--format", "json"], ["--progress"]])
def test_the_frames_path_of_the_command_finds_pandas(flags):
    out, err, loaded, status = entry_point("evaluate", "-q", str(QRELS), str(RUN), *flags)
    in_process = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["evaluate", "-q", str(QRELS), str(RUN), *flags], out=in_process) == status == 0, err
    assert out == in_process.getvalue()
    assert "pandas" in loaded


def test_a_duplicate_is_the_readers_error_on_both_paths(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq1 Q0 a 3 0.5 t\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\n")
    with pytest.raises(ValueError, match="run.txt lines 1 and 3: document 'a' is retrieved twice for query 'q1'"):
        trec_eval_text(qrels, run, trec_measures(None))
    out, err, _, status = entry_point("evaluate", str(qrels), str(run))
    assert status == 2 and out == ""
    assert "lines 1 and 3: document 'a' is retrieved twice for query 'q1'" in err


@pytest.mark.parametrize("case", ["not grouped", "not UTF-8", "gzip", "stdin", "comments"])
def test_inputs_the_arrays_path_does_not_take_print_the_same(tmp_path, case):
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"q1 0 a 1\nq1 0 b 2\nq2 0 c 1\nq2 0 caf\xe9 1\n")
    lines = b"q1 Q0 a 1 2.0 t\nq2 Q0 c 1 1.0 t\nq2 Q0 caf\xe9 2 0.5 t\nq1 Q0 b 2 1.0 t\n"
    if case == "not grouped":
        lines = lines.replace(b"caf\xe9", b"d")
    elif case == "not UTF-8":
        lines = b"q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq2 Q0 caf\xe9 1 1.0 t\n"
    elif case == "comments":
        lines = b"# a run\nq1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n\nq2 Q0 c 1 1.0 t\n"
    run = tmp_path / ("run.txt.gz" if case == "gzip" else "run.txt")
    run.write_bytes(gzip.compress(lines) if case == "gzip" else lines)
    args = ["evaluate", "-q", "-m", "all_trec", str(qrels), "-" if case == "stdin" else str(run)]
    done = subprocess.run([sys.executable, "-m", "rankkit", *args], capture_output=True, cwd=ROOT,
                          input=lines if case == "stdin" else None)
    assert done.returncode == 0, done.stderr
    want = frames_text(qrels, run, ["all_trec"])
    assert done.stdout.decode("utf-8", "surrogateescape") == want


@pytest.mark.parametrize("argv, unknown", [([], ""), (["-x"], "; unrecognized arguments: -x"),
                                           (["qrels.txt", "run.txt"], "; unrecognized arguments: qrels.txt run.txt")])
def test_without_a_command_the_error_lists_the_commands(capsys, argv, unknown):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: rankkit ")
    assert err.endswith(f"rankkit: error: name a command: evaluate, compare, fuse, ndeval "
                        f"(rankkit COMMAND -h for its options){unknown}\n")
