"""The names DESIGN.md promises at the top level, and what a newcomer reaches for first."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import rankkit as rk


def test_aggregate_is_public_and_is_trec_evals_all_line():
    assert rk.aggregate is sys.modules["rankkit.api"].aggregate  # rankkit.evaluation's, with query weights
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 1}}
    run = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"y": 2.0, "c": 1.0}, "q3": {"z": 1.0}}
    table = rk.evaluate(qrels, run, ["map", "gm_map", "num_q", "num_rel_ret"])
    line = rk.aggregate(table)
    ap = [0.5, 0.5, 0.0]                                   # q1: a at rank 1 of R = 2; q2: c at 2; q3: none
    assert line["map"] == pytest.approx(np.mean(ap))
    # gm_map: geometric mean with trec_eval's floor 1e-5 for a query whose AP is 0
    assert line["gm_map"] == pytest.approx(np.exp(np.mean(np.log([0.5, 0.5, 1e-5]))))
    assert line["num_q"] == 3 and line["num_rel_ret"] == 2   # counts add up
    assert table["num_q"].mean() == 1.0 and table["gm_map"].mean() != pytest.approx(line["gm_map"])


def test_the_command_ends_fast_and_keeps_its_exit_status_and_messages(tmp_path):
    """``rankkit`` (the console script) and ``python -m rankkit`` both run ``rankkit.__main__.run``,
    which exits with os._exit after flushing: the status and every line must still arrive."""
    import re
    import subprocess
    from pathlib import Path

    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert re.search(r'^rankkit = "rankkit.__main__:run"$', pyproject, re.M)
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "r").write_text("q1 Q0 d2 1 2.0 t\nq1 Q0 d1 2 1.0 t\n")
    ok = subprocess.run([sys.executable, "-m", "rankkit", "evaluate", "q", "r", "-m", "map", "-q"],
                        cwd=tmp_path, capture_output=True, text=True)
    assert ok.returncode == 0
    assert ok.stdout == "map                   \tq1\t0.5000\nmap                   \tall\t0.5000\n"
    bad = subprocess.run([sys.executable, "-m", "rankkit", "evaluate", "q", "missing", "-m", "map"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == "" and "missing: no such file" in bad.stderr


def test_import_rankkit_is_lazy_yet_every_public_name_resolves():
    import subprocess

    code = ("import sys, rankkit as rk\n"
            "assert 'pandas' not in sys.modules and 'rankkit.metrics' not in sys.modules, sorted(sys.modules)\n"
            "missing = [n for n in rk.__all__ if getattr(rk, n, None) is None]\n"
            "assert not missing, missing\n"
            "assert set(rk.__all__) <= set(dir(rk))\n"
            "assert callable(rk.evaluate) and rk.plot.__name__ == 'rankkit.plot'\n")
    subprocess.run([sys.executable, "-c", code], check=True)
    with pytest.raises(AttributeError, match="no attribute 'precison'"):
        rk.precison  # noqa: B018


def test_import_rankkit_installs_no_import_hook():
    """``import rankkit`` adds no finder or path hook: old module paths are not redirected."""
    import subprocess

    code = ("import sys\n"
            "before = list(sys.meta_path), list(sys.path_hooks)\n"
            "import rankkit\n"
            "assert (list(sys.meta_path), list(sys.path_hooks)) == before, sys.meta_path\n"
            "try:\n    import rankkit.binary\nexcept ModuleNotFoundError:\n    pass\n"
            "else:\n    raise AssertionError('rankkit.binary is importable')\n")
    subprocess.run([sys.executable, "-c", code], check=True)
