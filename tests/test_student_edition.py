"""The students' edition, as ``make student`` writes it (``build/student``): the notebooks and the
wheel students install rankkit from hold no answer and nothing of 08, the teacher's checklist.

The tests open the folder ``make student`` wrote; where it has not run, they build the same
edition in a temporary folder (the notebooks with the Makefile's tag filter, the wheel with pip).
"""

from __future__ import annotations

import ast
import importlib.util
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
    # the Makefile's copy of data/trec_eval_test, and the section of data/README.md on it
    shutil.copytree(ROOT / "data" / "trec_eval_test", folder / "data" / "trec_eval_test")
    readme = (ROOT / "data" / "README.md").read_text()
    (folder / "data" / "README.md").write_text(readme[readme.index("## `trec_eval_test/`"):])
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


def files_opened(nb) -> set[str]:
    """The files under data/ a notebook names (in its text, or opens in its code through
    ``DATA / "name"``, ``DATA`` being the folder of its ``data_folder(name="...")``)."""
    source = "\n".join(cell.source for cell in nb.cells)
    named = set(re.findall(r"(?<![\w/.])(data/[\w./-]*\w)", source))
    folder = re.search(r'def data_folder\(name="([^"]+)"\)', source)
    if folder:
        named.add(f"data/{folder.group(1)}")
        named |= {f"data/{folder.group(1)}/{name}" for name in re.findall(r'DATA / "([^"]+)"', source)}
    return named


def test_every_file_a_students_notebook_opens_is_in_the_students_folder(edition):
    """The students' folder is all they get: what a notebook reads or cites under data/ is in it
    (``make student`` also runs the copies outside the checkout, where nothing else is found)."""
    opened = {path.name: files_opened(nbformat.read(path, as_version=4)) for path in sorted(edition.glob("*.ipynb"))}
    assert {"data/trec_eval_test/qrels.test", "data/trec_eval_test/out.test.aqc",
            "data/README.md", "data/trec_eval_test/LICENSE.md"} <= opened["11_real_collection.ipynb"]
    missing = {name: sorted(p for p in paths if not (edition / p).exists()) for name, paths in opened.items()}
    assert {name: paths for name, paths in missing.items() if paths} == {}
    readme = (edition / "data" / "README.md").read_text()
    assert "trec_eval_test/LICENSE.md" in readme and "qrels.rel_level" in readme
    rule = (ROOT / "Makefile").read_text()
    assert "cp -r data/trec_eval_test $(STUDENT)/data/" in rule and "$$(mktemp -d)" in rule


#: A list literal of at least four numbers (an exercise's ranking) and a number of three or more
#: decimals (an exercise's result), as an example in a docstring would show them.
LIST = re.compile(r"\[\s*-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?){3,}\s*\]")
NUMBER = re.compile(r"(?<![\d.])\d+\.\d{3,}")


def values(text: str) -> tuple[set[str], set[str]]:
    return {re.sub(r"\s", "", found) for found in LIST.findall(text)}, set(NUMBER.findall(text))


def answer_values() -> list[tuple[set[str], set[str]]]:
    """Per answer cell (and cell of 08): its lists and numbers that no cell the students receive
    shows, as (lists, numbers); an answer's list and its result come from the same cell."""
    shown_lists, shown_numbers = set(), set()
    for path in NOTEBOOKS:
        if path != CHECKLIST:
            for cell in for_students(nbformat.read(path, as_version=4)).cells:
                found = values(cell_text(cell))
                shown_lists |= found[0]
                shown_numbers |= found[1]
    pairs = []
    for path in NOTEBOOKS:
        for cell in nbformat.read(path, as_version=4).cells:
            if path == CHECKLIST or "solution" in cell.get("metadata", {}).get("tags", []):
                found_lists, found_numbers = values(cell_text(cell))
                if found_lists - shown_lists and found_numbers - shown_numbers:
                    pairs.append((found_lists - shown_lists, found_numbers - shown_numbers))
    return pairs


def docstrings(name: str, source: str) -> dict[str, str]:
    """The docstrings of a module, its classes and functions, by ``module:name``."""
    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node)
            if text:
                found[f"{name}:{getattr(node, 'name', '')}"] = text
    return found


def answers_in(texts: dict[str, str], pairs) -> dict[str, list[str]]:
    """Per text, the answers it shows: an exercise's list together with its result."""
    hits = {}
    for name, text in texts.items():
        found_lists, found_numbers = values(text)
        shown = sorted({f"{lst} -> {num}" for lists, numbers in pairs
                        for lst in lists & found_lists for num in numbers & found_numbers})
        if shown:
            hits[name] = shown
    return hits


@pytest.mark.slow   # builds the wheel (seconds) where `make student` has not run
def test_no_docstring_of_the_wheel_shows_an_exercises_answer(wheel):
    """The docstrings become the students' book's API pages and ``help()`` in their notebooks:
    none may show an exercise's ranking with its result (04 Exercise 1: ``[1, 1, 2, 0]`` and
    0.8403), which the whole-line scan above would miss in a doctest."""
    pairs = answer_values()
    assert any("[1,1,2,0]" in lists and "0.8403" in numbers for lists, numbers in pairs)
    leak = {"rankkit/x.py:ndcg": ">>> round(ndcg([1, 1, 2, 0], k=4), 4)\n0.8403"}
    assert answers_in(leak, pairs) == {"rankkit/x.py:ndcg": ["[1,1,2,0] -> 0.8403"]}
    texts = {}
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.endswith(".py"):
                texts |= docstrings(name, archive.read(name).decode("utf-8"))
    assert len(texts) > 200
    assert answers_in(texts, pairs) == {}


def _generate():
    spec = importlib.util.spec_from_file_location("_docs_generate_students", ROOT / "docs" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow   # lays out both books' sources (the API pages: a few seconds)
def test_the_students_book_leaves_out_the_teachers_and_developers_pages(tmp_path):
    """``make docs-student``'s sources: no page on teaching, CI, speed, versions, contributing or
    changes, no link to one, the syllabus introduced as the course plan; the teacher's book keeps them."""
    generate = _generate()
    start = nbformat.read(ROOT / "notebooks" / "00_start_here.ipynb", as_version=4)
    (tmp_path / "student").mkdir()
    nbformat.write(for_students(start), tmp_path / "student" / "00_start_here.ipynb")
    generate.lay_out(tmp_path / "student", tmp_path / "student-src")
    pages = {p.stem for p in (tmp_path / "student-src").glob("*.md")}
    left_out = set(generate.STUDENTS_LEAVE_OUT)
    assert left_out == {"teaching", "ci_gate", "speed", "versions", "contributing", "changelog"}
    assert not pages & left_out and {"syllabus", "metrics", "index", "reproducing"} <= pages
    assert (tmp_path / "student-src" / "api" / "index.rst").exists()
    index = (tmp_path / "student-src" / "index.md").read_text()
    toctree = {line.strip() for block in re.findall(r"```\{toctree\}\n(.*?)```", index, re.S)
               for line in block.splitlines() if line.strip() and not line.startswith(":")}
    assert {"syllabus", "metrics", "api/index"} <= toctree and not toctree & left_out
    linked = {name for p in (tmp_path / "student-src").glob("*.md")
              for name in re.findall(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`", p.read_text())}
    assert linked and not linked & left_out
    syllabus = (tmp_path / "student-src" / "syllabus.md").read_text().splitlines()
    assert syllabus[0].startswith("# Syllabus") and syllabus[2] == generate.STUDENTS_SYLLABUS
    assert "course plan" in generate.STUDENTS_SYLLABUS
    (tmp_path / "teacher").mkdir()
    for path in (ROOT / "notebooks" / "00_start_here.ipynb", CHECKLIST):
        shutil.copy(path, tmp_path / "teacher" / path.name)
    generate.lay_out(tmp_path / "teacher", tmp_path / "teacher-src")
    assert left_out <= {p.stem for p in (tmp_path / "teacher-src").glob("*.md")}
    assert generate.STUDENTS_SYLLABUS not in (tmp_path / "teacher-src" / "syllabus.md").read_text()


def test_start_here_tells_students_to_install_the_wheel_make_student_builds():
    start = "\n".join(c.source for c in nbformat.read(ROOT / "notebooks" / "00_start_here.ipynb", as_version=4).cells)
    assert f'pip install "{WHEEL}[notebooks]"' in start
    assert "rankkit is not on PyPI" not in start and "PyPI" in start and "`rankkit`" in start
    rule = (ROOT / "Makefile").read_text()
    assert "-m pip wheel --quiet --no-deps build/wheel-src -w $(STUDENT)" in rule
    assert "cp -r pyproject.toml README.md rankkit build/wheel-src/" in rule
