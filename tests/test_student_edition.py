"""The students' edition, as ``make student`` writes it (``build/student``): the notebooks and the
wheel students install rankkit from hold no answer and nothing of 08, the teacher's checklist.

The tests open the folder ``make student`` wrote; where it has not run, they build the same
edition in a temporary folder (the notebooks with the Makefile's tag filter, the wheel with pip).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbconvert.preprocessors import TagRemovePreprocessor
from traitlets.config import Config

ROOT = Path(__file__).parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CHECKLIST = next(p for p in NOTEBOOKS if p.name.startswith("08_"))
REMOVED = ["solution", "remove-cell", "teacher"]   # the Makefile's --TagRemovePreprocessor.remove_cell_tags
EDITION = ROOT / "build" / "student"
VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
WHEEL = f"rankkit_eval-{VERSION}-py3-none-any.whl"
#: A line shorter than this may well recur in a lesson ("import numpy as np").
LONG = 30


def for_students(nb) -> nbformat.NotebookNode:
    config = Config()
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_cell_tags = set(REMOVED)
    return TagRemovePreprocessor(config=config).preprocess(nbformat.from_dict(nb), {})[0]


def cell_text(cell) -> str:
    outputs = "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                        for o in cell.get("outputs", []))
    return cell.source + "\n" + outputs


def lines(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if len(line.strip()) >= LONG}


def answer_lines() -> set[str]:
    """The long lines of every answer (cells tagged ``solution``) and of 08 that no cell the
    students receive also holds: text that must not reach them."""
    kept = set()
    for path in NOTEBOOKS:
        if path != CHECKLIST:
            kept |= {line for cell in for_students(nbformat.read(path, as_version=4)).cells
                     for line in lines(cell_text(cell))}
    secret = set()
    for path in NOTEBOOKS:
        for cell in nbformat.read(path, as_version=4).cells:
            if path == CHECKLIST or "solution" in cell.get("metadata", {}).get("tags", []):
                secret |= lines(cell.source)
    return secret - kept


def found_in(texts: dict[str, str], secret: set[str]) -> dict[str, list[str]]:
    """Per text, the secret lines it holds (lines compared whole, stripped)."""
    hits = {name: sorted(lines(text) & secret)[:3] for name, text in texts.items()}
    return {name: found for name, found in hits.items() if found}


@pytest.fixture(scope="module")
def secret() -> set[str]:
    found = answer_lines()
    assert len(found) > 100   # every exercise's answer and 08's table: a scan with something to find
    return found


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    """The folder ``make student`` wrote, or the same notebooks (not run) in a temporary folder."""
    if (EDITION / "00_start_here.ipynb").exists():
        return EDITION
    folder = tmp_path_factory.mktemp("student")
    for path in NOTEBOOKS:
        if path != CHECKLIST:
            nbformat.write(for_students(nbformat.read(path, as_version=4)), folder / path.name)
    return folder


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel ``make student`` wrote, or one built the Makefile's way: from a copy of the package."""
    if (EDITION / WHEEL).exists():
        return EDITION / WHEEL
    source, out = tmp_path_factory.mktemp("wheel-src"), tmp_path_factory.mktemp("wheel")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "rankkit", source / "rankkit", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(source), "-w", str(out)],
                   check=True, capture_output=True)
    return out / WHEEL


def test_the_folder_holds_every_lesson_but_08_and_no_answer(edition, secret):
    names = sorted(p.name for p in edition.glob("*.ipynb"))
    assert names == [p.name for p in NOTEBOOKS if p != CHECKLIST]
    assert not list(edition.glob("08_*")) and not list(edition.rglob("*checklist*"))
    texts = {}
    for path in edition.glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        assert not [c for c in nb.cells if set(c.get("metadata", {}).get("tags", [])) & set(REMOVED)], path.name
        texts[path.name] = "\n".join(cell_text(c) for c in nb.cells)
    assert found_in(texts, secret) == {}


def test_the_scan_finds_an_answer_and_08_in_the_teachers_notebooks(secret):
    """The same scan over the teacher's folder finds answers in each notebook with exercises, and 08."""
    texts = {p.name: "\n".join(cell_text(c) for c in nbformat.read(p, as_version=4).cells) for p in NOTEBOOKS}
    hits = found_in(texts, secret)
    assert {"01", "02", "03", "04", "05", "06", "08", "10"} <= {name[:2] for name in hits}


@pytest.mark.slow   # builds the wheel (seconds) where `make student` has not run
def test_the_wheel_holds_the_package_alone_and_no_answer(wheel, secret):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        texts = {name: archive.read(name).decode("utf-8", errors="replace") for name in names}
    info = f"rankkit_eval-{VERSION}.dist-info/"
    assert {name.split("/")[0] + "/" for name in names} == {"rankkit/", info}
    assert "rankkit/__init__.py" in names and f"{info}METADATA" in names
    assert not [name for name in names if re.search(r"ipynb|notebook|checklist|^tests?/", name)]
    assert found_in(texts, secret) == {}


def test_start_here_tells_students_to_install_the_wheel_make_student_builds():
    start = "\n".join(c.source for c in nbformat.read(ROOT / "notebooks" / "00_start_here.ipynb", as_version=4).cells)
    assert f'pip install "{WHEEL}[notebooks]"' in start
    assert "rankkit is not on PyPI" not in start and "PyPI" in start and "`rankkit`" in start
    rule = (ROOT / "Makefile").read_text()
    assert "-m pip wheel --quiet --no-deps build/wheel-src -w $(STUDENT)" in rule
    assert "cp -r pyproject.toml README.md rankkit build/wheel-src/" in rule
