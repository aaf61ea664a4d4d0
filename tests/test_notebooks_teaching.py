"""The notebooks as a teacher hands them out: exercises with hidden answers, a student copy
that still runs, figures, references, a glossary, and no link leaving the repository.

nbval (``pytest --nbval``) checks that every cell runs and prints what it saved; these tests
check what the notebooks are made of.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbconvert.preprocessors import TagRemovePreprocessor
from traitlets.config import Config

ROOT = Path(__file__).parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
TEACHING = [p for p in NOTEBOOKS if p.name[:2] in {"01", "02", "03", "04", "05", "06", "10"}]
LESSONS = [p for p in NOTEBOOKS if p.name[:2] in {"00", "01", "02", "03", "04", "05", "06", "07", "10"}]
# The students' copy (`make student`): every notebook but 08, the teacher's checklist.
STUDENT = [p for p in NOTEBOOKS if not p.name.startswith("08_")]
REMOVED_FOR_STUDENTS = {"solution", "remove-cell", "teacher"}
CHECK_TAGS = {"remove-input", "remove-cell", "hide-input", "hide-cell", "solution"}
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|(?:href|src)=\"([^\"]+)\"")


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def solutions(nb) -> list:
    """Answer cells that compute and check: code cells tagged ``solution`` with an assert."""
    return [c for c in nb.cells if c.cell_type == "code" and "solution" in tags(c) and "assert" in c.source]


def student(nb) -> nbformat.NotebookNode:
    """The notebook as ``make student`` writes it (the same preprocessor and options)."""
    config = Config()
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_cell_tags = REMOVED_FOR_STUDENTS
    out, _ = TagRemovePreprocessor(config=config).preprocess(nbformat.from_dict(nb), {})
    return out


def test_every_notebook_is_found():
    assert [p.name[:2] for p in NOTEBOOKS] == ["00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10"]


@pytest.mark.parametrize("path", TEACHING, ids=lambda p: p.stem)
def test_teaching_notebooks_end_with_three_checked_exercises(path):
    assert len(solutions(read(path))) >= 3


def test_at_least_18_exercises_with_checked_answers():
    assert sum(len(solutions(read(p))) for p in NOTEBOOKS) >= 18


def test_make_student_copies_all_but_08_runs_them_and_collapses_checks(tmp_path):
    """08 (the teacher's checklist) shows exercise answers: it stays out of the student copy."""
    rule = (ROOT / "Makefile").read_text()
    for tag in sorted(REMOVED_FOR_STUDENTS):
        assert f"--TagRemovePreprocessor.remove_cell_tags {tag}" in rule
    assert "$(filter-out notebooks/08_%,$(wildcard notebooks/[0-9][0-9]_*.ipynb))" in rule
    assert "$(NBRUN) --inplace --ExecutePreprocessor.record_timing=False $(STUDENT_COPIES)" in rule
    assert "notebooks/collapse_checks.py $(STUDENT)" in rule
    assert "make student" in (ROOT / ".ci" / "run").read_text()   # CI runs every student notebook
    for path in STUDENT:
        nbformat.write(student(read(path)), tmp_path / path.name)
    subprocess.run([sys.executable, str(ROOT / "notebooks" / "collapse_checks.py"), str(tmp_path)], check=True)
    for path in sorted(tmp_path.glob("*.ipynb")):
        checks = [c for c in read(path).cells if "remove-input" in tags(c)]
        assert all(c.metadata["jupyter"]["source_hidden"] for c in checks), path.name
        # explorers keep their still picture, not a widget view that has no saved state
        outputs = [o for c in read(path).cells for o in c.get("outputs", [])]
        assert not [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
        assert all(o.get("data") for o in outputs if o.output_type == "display_data"), path.name


def _names(source: str) -> tuple[set[str], set[str]]:
    """The names a cell binds and the names it reads (IPython's magic lines left out)."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    bound, read_ = set(), set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else read_).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):  # a parameter, of a function or a lambda
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return bound, read_


@pytest.mark.parametrize("path", STUDENT, ids=lambda p: p.stem)
def test_student_copy_has_no_answer_and_no_question_depends_on_one(path):
    """The students' copy holds no answer, and no cell it keeps reads a name that only an answer
    (a removed cell) binds. Every copy is also run top to bottom in its folder by `make student`
    (CI runs it), as a student will run it."""
    nb = read(path)
    copy = student(nb)
    assert not [c for c in copy.cells if tags(c) & REMOVED_FOR_STUDENTS]
    assert len(copy.cells) == len(nb.cells) - sum(bool(tags(c) & REMOVED_FOR_STUDENTS) for c in nb.cells)
    kept = [_names(c.source) for c in copy.cells if c.cell_type == "code"]
    only_answers = set().union(*(_names(c.source)[0] for c in nb.cells
                                 if c.cell_type == "code" and tags(c) & REMOVED_FOR_STUDENTS))
    only_answers -= set().union(*(bound for bound, _ in kept))
    assert [name for _, read_ in kept for name in read_ & only_answers] == [], path.name


def test_the_dependency_check_finds_a_question_that_reads_an_answer():
    assert _names("from x import y as z\nanswer = z(1)\n%time answer") == ({"z", "answer"}, {"z"})
    assert "answer" in _names("print(answer + 1)")[1]


def test_at_least_20_figures_and_two_in_06():
    def figures(path):
        return sum("image/png" in out.get("data", {}) for c in read(path).cells if c.cell_type == "code"
                   for out in c.get("outputs", []))

    counts = {p.stem[:2]: figures(p) for p in NOTEBOOKS}
    assert sum(counts.values()) >= 20, counts
    assert counts["06"] >= 2, counts


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_ends_with_references(path):
    headings = [line for c in read(path).cells if c.cell_type == "markdown"
                for line in c.source.splitlines() if line.startswith("#")]
    assert any("References" in h for h in headings[-3:]), headings[-3:]


def test_glossary_has_at_least_20_chinese_terms():
    text = "\n".join(c.source for c in read(ROOT / "notebooks" / "00_start_here.ipynb").cells)
    rows = [line for line in text.splitlines() if line.startswith("|") and re.search(r"[\u4e00-\u9fff]", line)]
    assert len(rows) >= 20


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_links_stay_in_the_repository_or_are_public(path):
    for cell in read(path).cells:
        if cell.cell_type != "markdown":
            continue
        for match in LINK.finditer(cell.source):
            target = match.group(1) or match.group(2)
            if re.match(r"https?://", target) or target.startswith(("#", "attachment:", "mailto:")):
                continue
            resolved = (path.parent / target.split("#")[0]).resolve()
            assert resolved.is_relative_to(ROOT.resolve()), f"{path.name}: {target} leaves the repository"
            assert resolved.exists(), f"{path.name}: {target} does not exist"


def relative_links(nb) -> list[str]:
    """Targets of the links of the markdown cells that stay in the repository (no address, no anchor)."""
    found = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for match in LINK.finditer(cell.source):
                target = (match.group(1) or match.group(2)).split("#")[0]
                if target and not re.match(r"https?://|attachment:|mailto:", target):
                    found.append(target)
    return found


@pytest.mark.parametrize("path", STUDENT, ids=lambda p: p.stem)
def test_student_copy_links_only_to_notebooks_it_holds(path):
    held = {p.name for p in STUDENT}
    for target in relative_links(student(read(path))):
        if target.endswith(".ipynb"):
            assert target in held, f"{path.name} links to {target}, which the student copy does not hold"


def test_start_here_links_every_notebook_in_both_copies():
    start = read(ROOT / "notebooks" / "00_start_here.ipynb")
    teacher, students = set(relative_links(start)), set(relative_links(student(start)))
    assert {p.name for p in NOTEBOOKS[1:]} <= teacher
    assert {p.name for p in STUDENT[1:]} <= students and "08_source_checklist.ipynb" not in students


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_cells_show_no_assert(path):
    """Lessons show the computation and its result; checks live in hidden cells (or in 08)."""
    shown = [i for i, c in enumerate(read(path).cells) if c.cell_type == "code" and not tags(c) & CHECK_TAGS
             and re.search(r"^\s*assert\b", c.source, re.M)]
    assert not shown, f"cells {shown} of {path.name} show an assert"


def test_start_here_lists_every_erratum_box():
    """Every *Erratum* box of a lesson has a row (its source and notebook) in 00's table."""
    start = "\n".join(c.source for c in read(ROOT / "notebooks" / "00_start_here.ipynb").cells)
    table = start[start.index("## Where the sources are wrong"):]
    rows = [line.split("|") for line in table.splitlines() if re.match(r"\| \d{3} \|", line)]
    listed = {(row[1].strip(), nb) for row in rows for nb in re.findall(r"\d\d", row[-2])}
    boxes = {(source, path.name[:2]) for path in LESSONS[1:] for c in read(path).cells if c.cell_type == "markdown"
             for source in re.findall(r"Erratum \(source (\d{3})", c.source)}
    assert boxes and boxes <= listed, sorted(boxes - listed)
