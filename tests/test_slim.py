"""The slim install, in this environment: tests/slim_check.py run with pandas, pyarrow, SciPy
and Matplotlib hidden (``make test-slim`` runs it where they are not installed at all)."""

import subprocess
import sys
from pathlib import Path

CHECK = Path(__file__).with_name("slim_check.py")
HIDE = "import sys\nfor m in ('pandas', 'pyarrow', 'scipy', 'matplotlib'): sys.modules[m] = None\n"


def test_metric_functions_and_evaluate_scores_need_numpy_alone():
    done = subprocess.run([sys.executable, "-c", HIDE + CHECK.read_text()], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "slim install: the metric functions and evaluate_scores work" in done.stdout


def test_the_check_fails_when_a_name_loads_a_missing_library_without_naming_the_extra():
    """The check can fail: with the one-line messages of rankkit/_lazy.py switched off, it does."""
    broken = HIDE + "import rankkit._lazy as lazy\nlazy.EXTRAS.clear()\n" + CHECK.read_text()
    done = subprocess.run([sys.executable, "-c", broken], capture_output=True, text=True)
    assert done.returncode != 0 and "pip install \".[runs]\"" not in done.stdout


def _command(hidden: tuple[str, ...], *argv: str) -> subprocess.CompletedProcess:
    hide = f"import sys\nfor m in {hidden!r}: sys.modules[m] = None\n"
    code = hide + f"sys.argv = ['rankkit', *{list(argv)!r}]\nfrom rankkit.__main__ import run\nrun()\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).parents[1])


def test_the_command_without_its_extra_says_which_in_one_line():
    done = _command(("pandas", "pyarrow", "scipy", "matplotlib"), "evaluate", "data/example.qrels", "data/example.run")
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert 'the command rankkit needs pyarrow, which is not installed' in done.stderr
    assert 'pip install ".[runs]"' in done.stderr


def test_compare_without_scipy_says_which_extra_in_one_line():
    done = _command(("scipy",), "compare", "data/example.qrels", "data/example.run", "data/example_new.run")
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert "Traceback" not in done.stderr
    assert 'rankkit compare: error: rankkit compare needs scipy' in done.stderr
    assert 'pip install ".[stats]"' in done.stderr
