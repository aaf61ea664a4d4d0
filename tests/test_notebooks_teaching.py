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
LESSONS = [p for p in NOTEBOOKS if p.name[:2] in {"00", "01", "02", "03", "04", "05", "06", "07", "10", "11",
                                                     "12"}]
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
    assert [p.name[:2] for p in NOTEBOOKS] == ["00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11",
                                                   "12"]


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
    # each copy run in a temporary folder outside the checkout (a file of the repository is not found there)
    assert "$(NBRUN) --inplace --ExecutePreprocessor.record_timing=False $(notdir $(STUDENT_COPIES))" in rule
    assert 'run=$$(mktemp -d)' in rule and 'cd "$$run"' in rule
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


# No hint one click away: the check cells the students' copy keeps (collapsed, a click from open)
# give no exercise away. The answers are what the solution cells state (their text and printed
# numbers) and, for a question answered by no solution cell (a "Try it"), the checks the teacher's
# copy alone keeps (tagged remove-cell) in its section; plus the formulas below.
QUESTION = re.compile(r"^#{2,4}\s+(?:\d+\.\s+)?(?:Exercise\b|Try it\b)", re.M)
MENTION = re.compile(r"\bexercises?\b|\bquestions?\b|\btry it\b", re.I)
NUMBER = re.compile(r"(?<![\w.])(\d+\.\d{2,})(?![\w.])")
FRACTION = re.compile(r"(?<![\w./])(\d+)\s*/\s*(\d+)(?![\w./])")
#: Answers that are formulas, not numbers (spaces left out): 06's exercise 3 relates Kendall's tau to
#: PNR, or to the inversions D of six distinct labels.
ANSWER_FORMULAS = {
    "06": [r"\(\w+-1\)/\(\w+\+1\)", r"\(1\+\w+\)/\(1-\w+\)", r"1-2\*?\w+/15", r"\(\w+-\w+\)/\(\w+\+\w+\)"],
}


def _constants(source: str) -> set[float]:
    """The numbers a cell's code states: decimal and fraction literals (comments included) and the
    value of each constant arithmetic expression (``(1 / 2 + 2 / 3) / 2``)."""
    values = {float(x) for x in NUMBER.findall(source)}
    values |= {int(a) / int(b) for a, b in FRACTION.findall(source) if int(b)}
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    pending = [ast.parse(code)]
    while pending:   # the largest constant expressions only, not their parts
        node = pending.pop()
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and all(
                isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Constant, ast.operator, ast.unaryop, ast.expr_context))
                for n in ast.walk(node)):
            try:
                value = eval(compile(ast.Expression(node), "<check>", "eval"), {"__builtins__": {}})
            except (ArithmeticError, TypeError, ValueError):
                continue
            if isinstance(value, (int, float)):
                values.add(float(value))
        else:
            pending.extend(ast.iter_child_nodes(node))
    return values


def _stated(text: str) -> set[tuple[float, int]]:
    """Numbers a text states, with their decimals: ``0.6278`` -> (0.6278, 4); fractions to 4 decimals."""
    found = {(float(x), len(x.split(".")[1])) for x in NUMBER.findall(text)}
    return found | {(round(int(a) / int(b), 4), 4) for a, b in FRACTION.findall(text) if int(b)}


def _outputs_text(cell) -> str:
    return "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                     for o in cell.get("outputs", []))


def _sections(nb) -> list[tuple[int, int]]:
    """(first, end) cell indices of each question: from its heading to the next heading."""
    heads = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and re.match(r"#", c.source.lstrip())]
    spans = []
    for i in heads:
        if QUESTION.search(nb.cells[i].source.lstrip().splitlines()[0]):
            later = [j for j in heads if j > i]
            spans.append((i, later[0] if later else len(nb.cells)))
    return spans


def answers(nb) -> set[tuple[float, int]]:
    """The numbers the answers state and the lesson students receive does not show."""
    stated = set()
    for first, end in _sections(nb):
        for cell in nb.cells[first:end]:
            if "solution" in tags(cell):
                stated |= _stated(cell.source if cell.cell_type == "markdown" else _outputs_text(cell))
            elif "remove-cell" in tags(cell) and cell.cell_type == "code":   # a teacher-only check answers it
                stated |= {(round(v, 4), 4) for v in _constants(cell.source)}
    copy = student(nb)
    shown = set()
    for cell in copy.cells:
        shown |= {v for v, _ in _stated(_outputs_text(cell))}
        if cell.cell_type == "markdown" or "remove-input" not in tags(cell):
            shown |= {v for v, _ in _stated(cell.source)} | ({round(v, 4) for v in _constants(cell.source)}
                                                          if cell.cell_type == "code" else set())
    # a value with one or two decimals (0.5, 0.75, 1.5) is too common to give anything away
    return {(v, d) for v, d in stated if round(v, 2) != v and not any(abs(v - s) < 0.5 * 10 ** -d for s in shown)}


def giveaways(source: str, secret: set[tuple[float, int]], formulas: list[str]) -> list[str]:
    """What a collapsed check cell reveals: a mention of a question, an answer's number, a formula."""
    found = [f"mentions {m.group(0)!r}" for m in MENTION.finditer(source)]
    values = _constants(source)
    found += [f"states the answer {v}" for v, d in sorted(secret) if any(round(x, d) == v for x in values)]
    compact = re.sub(r"\s+", "", source)
    found += [f"states the formula {f}" for f in formulas if re.search(f, compact, re.I)]
    return found


@pytest.mark.parametrize("path", STUDENT, ids=lambda p: p.stem)
def test_no_collapsed_check_gives_an_exercise_away(path):
    """A check the students' copy keeps is one click from open: it states no answer of an exercise
    (or of a "Try it" question), no answer's formula, and names no question."""
    nb = read(path)
    secret, formulas = answers(nb), ANSWER_FORMULAS.get(path.name[:2], [])
    found = {i: hits for i, cell in enumerate(student(nb).cells)
             if cell.cell_type == "code" and "remove-input" in tags(cell)
             and (hits := giveaways(cell.source, secret, formulas))}
    assert not found, f"{path.name}: check cells (students' copy) that give an answer away: {found}"


def test_the_scan_finds_the_hints_it_was_written_for():
    """Three checks handed out once, each a click from an answer: 02's "Try it" values, 06's
    tau = 1 - 2D/15 (exercise 3), 04's comment on exercise 3."""
    try_it = ('# the question in the text: rank 10 -> rank 3 changes AP (0.5212 -> 0.5772), not RR (0.5)\n'
              'assert np.isclose(ten_to_three["AP"], (1 / 2 + 2 / 3 + 3 / 6 + 4 / 7 + 5 / 8 + 6 / 10) / 6)')
    assert giveaways(try_it.split("\n")[1], {(0.5772, 4)}, []) == ["states the answer 0.5772"]
    assert "mentions 'question'" in giveaways(try_it, set(), [])
    tau = "assert np.isclose(rk.kendall_tau(-np.arange(6), perm), 1 - 2 * d / 15)"
    assert giveaways(tau, set(), ANSWER_FORMULAS["06"]) == [f"states the formula {ANSWER_FORMULAS['06'][2]}"]
    assert giveaways("assert P[1] == P[0] and N[1] < N[0]   # a fall at k = 2 (exercise 3)", set(), []) \
        == ["mentions 'exercise'"]
    # the answers of 06's exercise 1 are numbers its lesson never shows, and are found as such
    assert (round(6 / 7, 4), 4) in answers(read(ROOT / "notebooks" / "06_pointwise_pairwise.ipynb"))
