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
    assert done.returncode != 0 and "rankkit-eval[runs]" not in done.stdout
