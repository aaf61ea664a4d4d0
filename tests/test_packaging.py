"""The declared dependency range is the tested one.

``pyproject.toml`` declares floors; ``make test-oldest`` installs ``.ci/oldest.txt`` and runs
the library tests there, so the two must name the same versions. ``make test`` installs
``.ci/lock.txt``, which must lie inside the declared range.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _version(text: str) -> tuple[int, ...]:
    parts = tuple(int(p) for p in re.findall(r"\d+", text)[:3])
    return parts + (0,) * (3 - len(parts))


#: The extras of the library itself (the slim install is ``dependencies`` alone).
LIBRARY_EXTRAS = ("runs", "stats", "plots")


def _floors(extras: tuple[str, ...] = LIBRARY_EXTRAS) -> dict[str, tuple[int, ...]]:
    """The declared floors: the slim install's dependencies and the library's extras'."""
    text = (ROOT / "pyproject.toml").read_text()
    blocks = [re.search(r"^dependencies = \[(.*?)^\]", text, re.M | re.S).group(1)]
    blocks += [re.search(rf"^{extra} = \[(.*?)\]$", text, re.M).group(1) for extra in extras]
    found = [pair for block in blocks for pair in re.findall(r'"([A-Za-z0-9_.-]+)>=([0-9.]+)"', block)]
    return {name.lower(): _version(v) for name, v in found}


#: Extras whose floor the oldest environment also pins (rankkit.teaching.explore's widgets, rankkit.dask),
#: and the companion packages that floor release requires (pinned in both files, no floor of ours).
PINNED_EXTRAS = {"ipywidgets", "dask", "distributed"}
WIDGET_COMPANIONS = {"widgetsnbextension", "jupyterlab-widgets"}


def _extra_floors() -> dict[str, tuple[int, ...]]:
    block = re.search(r"^\[project.optional-dependencies\](.*?)^\[", (ROOT / "pyproject.toml").read_text(), re.M | re.S)
    floors: dict[str, set[tuple[int, ...]]] = {}
    for name, v in re.findall(r'"([A-Za-z0-9_.-]+)(?:\[[a-z,]+\])?>=([0-9.]+)"', block.group(1)):
        floors.setdefault(name.lower(), set()).add(_version(v))
    return {name: min(v) for name, v in floors.items()}


def _pins(name: str) -> dict[str, tuple[int, ...]]:
    lines = (ROOT / ".ci" / name).read_text().splitlines()
    pairs = (line.split("==") for line in lines if "==" in line and not line.startswith("#"))
    return {package.strip().lower().replace("_", "-"): _version(v) for package, v in pairs}


def test_every_dependency_has_a_floor():
    assert set(_floors(())) == {"numpy", "array-api-compat"}  # the slim install
    assert set(_floors()) == {"numpy", "pandas", "scipy", "matplotlib", "pyarrow", "array-api-compat"}


def test_the_extras_a_missing_library_names_exist():
    """rankkit/_lazy.py's EXTRAS: each optional library belongs to the extra it names."""
    from rankkit._lazy import EXTRAS

    text = (ROOT / "pyproject.toml").read_text()
    for library, extra in EXTRAS.items():
        assert library in re.search(rf"^{extra} = \[(.*?)\]$", text, re.M).group(1), library
    assert re.search(r'^all = \["rankkit-eval\[runs,stats,plots\]"\]$', text, re.M)
    for extra in ("test", "notebooks", "docs", "dask"):  # make test, make demo, the book, the README's line
        assert re.search(rf'^{extra} = \[\s*"rankkit-eval\[all\]"', text, re.M), extra


def test_oldest_environment_pins_exactly_the_declared_floors():
    oldest = _pins("oldest.txt")
    extras = _extra_floors()
    expected = {**_floors(), **{name: extras[name] for name in PINNED_EXTRAS}}
    assert {p: v for p, v in oldest.items() if p not in WIDGET_COMPANIONS} == expected
    assert set(oldest) >= WIDGET_COMPANIONS


def test_ipywidgets_floor_is_the_same_in_every_extra_that_names_it():
    block = re.search(r"^\[project.optional-dependencies\](.*?)^\[", (ROOT / "pyproject.toml").read_text(), re.M | re.S)
    floors = set(re.findall(r'"ipywidgets>=([0-9.]+)"', block.group(1)))
    assert len(floors) == 1
    extras = dict(re.findall(r"^(\w+) = \[(.*?)\]$", block.group(1), re.M | re.S))
    assert "ipywidgets>=" in extras["notebooks"] and "ipywidgets>=" in extras["test"]


def test_the_dask_floor_is_the_same_in_every_extra_that_names_it():
    block = re.search(r"^\[project.optional-dependencies\](.*?)^\[", (ROOT / "pyproject.toml").read_text(), re.M | re.S)
    extras = dict(re.findall(r"^(\w+) = \[(.*?)\]$", block.group(1), re.M | re.S))
    for package in ("dask[dataframe]", "distributed"):
        floors = {re.search(re.escape(package) + r'>=([0-9.]+)"', extras[name]).group(1)
                  for name in ("dask", "test", "notebooks")}
        assert len(floors) == 1, package


def test_lock_lies_inside_the_declared_range():
    lock = _pins("lock.txt")
    for package, floor in _floors().items():
        assert lock[package] >= floor, package
    for package in PINNED_EXTRAS:
        assert lock[package] >= _extra_floors()[package], package
    assert set(lock) >= WIDGET_COMPANIONS


def test_readme_names_every_trec_eval_flag_and_points_to_the_generated_name_tables():
    """The names themselves are in the book's metric tables, generated from the registry
    (tests/test_docs.py checks that every trec_eval and ir_measures name is there)."""
    readme = (ROOT / "README.md").read_text()
    assert "build/docs/metrics.html" in readme
    for flag in ("-q", "-m", "-c", "-n", "-l", "-M", "-J", "-N", "-v"):
        assert f"| `{flag}" in readme, flag


def test_distribution_name_is_not_the_unrelated_rankkit_on_the_index():
    """The package index's ``rankkit`` is another project with the same import name: this kit is
    distributed as ``rankkit-eval``, and no install line of the README installs the other one."""
    assert re.search(r'^name = "rankkit-eval"$', (ROOT / "pyproject.toml").read_text(), re.M)
    texts = [(ROOT / "README.md").read_text(), *(p.read_text() for p in (ROOT / "notebooks").glob("*.ipynb"))]
    installs = [line for text in texts for line in re.findall(r"pip install[^\n`]*", text)]
    assert installs
    for line in installs:
        assert not re.search(r"""pip install\s+\\?["']?rankkit(\[|["'\s\\]|$)""", line), line


def test_import_works_from_the_parent_of_a_clone_named_rankkit(tmp_path):
    """A clone's folder named ``rankkit`` in the working directory is not a package: the editable
    install (``make``'s ``editable_mode=compat``) must still import the real one."""
    import subprocess
    import sys

    (tmp_path / "rankkit").mkdir()
    (tmp_path / "rankkit" / "README.md").write_text("a clone's top folder, not a package\n")
    code = "import rankkit as rk; print(rk.precision([1, 0, 1, 1, 0], k=5))"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0.6"
