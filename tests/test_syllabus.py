"""The course's syllabus (docs/syllabus.md) and its slides (docs/slides.py).

The syllabus names only notebooks, exercises and assignments that exist; it has six weeks,
each with its parts; its workload table is what ``docs/slides.py --measure`` computes from the
notebooks now (within a margin, as the notebooks are edited); the slides keep what a student
sees and start a slide where the rules say.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
NOTEBOOKS = ROOT / "notebooks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"_docs_{name}", DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


slides = _load("slides")
TEXT = slides.SYLLABUS.read_text()
WEEKS = slides.read_weeks(TEXT)
PARTS = ("### Learning outcomes", "### Read", "### In class", "### Exercises to set", "### Assessment")
EXERCISE_LINE = re.compile(r"^- `(\d\d_\w+)`, Exercise (\d+): “([^”]+)”$", re.M)


def _sections() -> dict[int, str]:
    heads = list(re.finditer(r"^## Week (\d+) — .+$", TEXT, re.M))
    ends = [h.start() for h in heads[1:]] + [TEXT.index("\n## Grading")]
    return {int(h.group(1)): TEXT[h.end():end] for h, end in zip(heads, ends)}


@functools.cache
def _read(path: Path):
    return nbformat.read(path, as_version=4)


def _lessons() -> dict[str, Path]:
    return {p.stem: p for p in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))}


def test_six_weeks_each_with_its_parts():
    assert [w.number for w in WEEKS] == [1, 2, 3, 4, 5, 6]
    for number, section in _sections().items():
        missing = [part for part in PARTS if f"\n{part}\n" not in section]
        assert not missing, f"week {number} lacks {missing}"
        assert len(WEEKS[number - 1].outcomes) >= 3, f"week {number}: fewer than 3 learning outcomes"
        assert EXERCISE_LINE.search(section), f"week {number} sets no notebook exercise"
    assert "\n## Prerequisites\n" in TEXT and "\n## How long each notebook takes\n" in TEXT


def test_every_notebook_named_exists_and_every_lesson_is_taught():
    lessons = _lessons()
    named = set(re.findall(r"\b(\d\d_[a-z0-9_]+)\b", TEXT))
    assert named <= set(lessons), f"the syllabus names notebooks that do not exist: {sorted(named - set(lessons))}"
    taught = {name for week in WEEKS for name in week.notebooks}
    teacher_only = {name for name in lessons if name.startswith("08_")}
    assert set(lessons) - teacher_only <= taught, f"lessons in no week: {sorted(set(lessons) - teacher_only - taught)}"
    assert not taught & teacher_only, "the checklist shows the answers: it is not a week's lesson"


def test_the_students_edition_has_every_page_the_syllabus_links():
    # the students' book has no 08 (docs/generate.py lays out the chapters it is given)
    linked = set(re.findall(r"\{doc\}`(?:[^`<]*<)?([^`>]+)>?`", TEXT))
    chapters = {name for name in linked if re.match(r"\d\d_", name)}
    assert not {name for name in chapters if name.startswith("08_")}
    pages = {p.stem for p in DOCS.glob("*.md")}
    assert linked - chapters <= pages, sorted(linked - chapters - pages)


def test_assignments_exist_in_weeks_two_four_and_six():
    named = set(re.findall(r"notebooks/assignments/(a\d_[a-z_]+)", TEXT)) | set(re.findall(r"`(a\d_[a-z_]+)`", TEXT))
    assert named == {"a1_metrics_by_hand", "a2_comparing_runs", "a3_learning_to_rank"}
    for name in named:
        assert (NOTEBOOKS / "assignments" / name / f"{name}.ipynb").is_file(), f"no notebook for {name}"
    set_in = {w.number: re.findall(r"a\d_[a-z_]+", w.assignment) for w in WEEKS if w.assignment}
    assert set_in == {2: ["a1_metrics_by_hand"], 4: ["a2_comparing_runs"], 6: ["a3_learning_to_rank"]}


def test_every_exercise_set_exists_with_its_title():
    lessons = _lessons()
    lines = EXERCISE_LINE.findall(TEXT)
    assert len(lines) >= 20
    for name, number, title in lines:
        found = slides.exercises(_read(lessons[name]))
        assert int(number) in found, f"{name} has no exercise {number} (it has {sorted(found)})"
        assert title in found[int(number)], f"{name} exercise {number} is not titled {title!r}"


def test_the_grading_table_the_weeks_and_00_agree_on_the_weekly_exercises():
    """Weekly exercises count 15 %, graded on completion: every week's assessment says so, no
    week calls them formative or ungraded, and 00 calls no taught notebook's exercises optional."""
    grading = TEXT[TEXT.index("\n## Grading"):TEXT.index("(syllabus-workload)=")]
    assert re.search(r"^\| weekly exercises \| 15 % \|[^\n]*graded on completion", grading, re.M)
    for number, section in _sections().items():
        assessment = section[section.index("### Assessment"):]
        assert "graded on completion" in assessment, f"week {number}"
    assert not re.search(r"formative|not graded", TEXT, re.I)
    start = "\n".join(c.source for c in _read(NOTEBOOKS / "00_start_here.ipynb").cells)
    assert not re.search(r"exercises are optional|optional exercises", start)
    assert re.search(r"notebook 08[^.]*stays with your teacher", start, re.S)


def test_a1_as_the_syllabus_describes_it_is_taught_before_it_is_set():
    """a1 (set in week 2) grades ties too: the syllabus says so and notebook 04 (week 2) works
    an example of the expected DCG under tied scores."""
    week2 = _sections()[2]
    assessment = week2[week2.index("### Assessment"):]
    for topic in ('normalize="relevant"', "linear", "cutoff", "no relevant document", 'ties="average"'):
        assert topic in assessment, topic
    lesson = "\n".join(c.source for c in _read(NOTEBOOKS / "04_dcg_ndcg.ipynb").cells)
    assert re.search(r"^## \d+\. Tied scores", lesson, re.M) and 'ties="average"' in lesson


def _workload_rows() -> dict[str, list[float]]:
    rows = re.findall(r"^\| `(\d\d_\w+)` \| ([\d.| ]+)\|$", TEXT, re.M)
    return {name: [float(v) for v in values.split("|")] for name, values in rows}


def test_workload_table_is_what_the_notebooks_give_now():
    rows = _workload_rows()
    assert set(rows) == set(_lessons()), "the workload table must list every notebook"
    for name, (cells, words, code, n_exercises, minutes, seconds) in rows.items():
        now = slides.workload(_lessons()[name])
        assert n_exercises == now["exercises"], f"{name}: rerun python docs/slides.py --measure"
        for stated, key in ((cells, "cells"), (words, "words"), (code, "code cells")):
            assert abs(stated - now[key]) <= max(3, 0.25 * now[key]), f"{name} {key}: {stated} vs {now[key]} now"
        assert abs(minutes - now["minutes"]) <= max(10, 0.25 * now["minutes"]), f"{name}: {minutes} vs {now}"
        assert 0 < seconds < 120


def test_estimates_within_twenty_minutes_of_the_path_in_00():
    path = nbformat.read(NOTEBOOKS / "00_start_here.ipynb", as_version=4)
    text = "\n".join(c.source for c in path.cells if c.cell_type == "markdown")
    taught = dict(re.findall(r"^\| \[\d\d[^]]*\]\((\d\d_\w+)\.ipynb\) \|.*\| (\d+) min \|", text, re.M))
    assert len(taught) >= 8
    rows = _workload_rows()
    assert all(abs(rows[name][4] - int(minutes)) <= 20 for name, minutes in taught.items()), \
        {name: (rows[name][4], int(minutes)) for name, minutes in taught.items()}


# --- the slides ----------------------------------------------------------------------------------


def _cell(kind: str, source: str, tags=(), outputs=None):
    cell = nbformat.v4.new_markdown_cell(source) if kind == "md" else nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = list(tags)
    if outputs is not None:
        cell.outputs = outputs
    return cell


def test_lesson_cells_are_what_a_student_sees():
    shown = nbformat.v4.new_output("display_data", data={"image/png": "iVBOR", "text/plain": "<Figure>",
                                                         slides.WIDGET: {"model_id": "x"}})
    nb = nbformat.v4.new_notebook(cells=[
        _cell("md", "# Title\nSee [02](02_average_precision.ipynb#Exercises)."),
        _cell("code", "answer = 42", tags=["solution"]),
        _cell("code", "print(data)", tags=["remove-cell"]),
        _cell("md", "note for the teacher", tags=["teacher"]),
        _cell("code", "assert x == 1", tags=["remove-input"], outputs=[]),
        _cell("code", "plot()", tags=["remove-input"], outputs=[shown]),
        _cell("code", "x = 1"),
    ])
    cells = slides.lesson_cells(nb)
    assert [c.source for c in cells] == ["# Title\nSee 02.", "plot()", "x = 1"]
    assert cells[1].metadata["transient"] == {"remove_source": True}  # its figure, not its code
    assert slides.WIDGET not in cells[1].outputs[0]["data"] and "image/png" in cells[1].outputs[0]["data"]
    assert slides.WIDGET in nb.cells[5].outputs[0]["data"], "the notebook itself is not modified"


def test_headings_start_slides_and_overflow_starts_a_sub_slide():
    long = "\n".join(f"line {i}" for i in range(slides.LINES))
    cells = [_cell("md", "# 01 — title"), _cell("code", "x = 1"), _cell("md", "## 1. A section"),
             _cell("md", "text"), _cell("md", "### A subsection"), _cell("code", long), _cell("code", "y = 2"),
             _cell("md", "more text")]
    assert slides.slide_types(cells) == ["slide", "fragment", "slide", "-", "subslide", "subslide", "subslide", "-"]


def test_a_long_markdown_cell_is_split_between_its_blocks_and_a_long_table_under_its_header():
    rows = [f"| {i} | row {i} |" for i in range(slides.LINES + 5)]
    text = "\n\n".join(["## 2. A section", "A paragraph.", "| a | b |\n| --- | --- |\n" + "\n".join(rows),
                         "$$x\n\ny$$", "### A subsection", "The end."])
    cells = slides.lesson_cells(nbformat.v4.new_notebook(cells=[_cell("md", text)]))
    assert len(cells) > 2 and all(slides.estimated_lines(c) <= slides.LINES for c in cells)
    tables = [c.source for c in cells if "row" in c.source]
    assert len(tables) >= 2 and all(s.startswith("| a | b |\n| --- | --- |") for s in tables)  # each under the header
    assert [r for c in cells for r in c.source.splitlines() if "row" in r] == rows     # every row, once, in order
    assert any(c.source == "$$x\n\ny$$" or "$$x\n\ny$$" in c.source for c in cells)  # a formula stays whole
    assert cells[0].source.startswith("## 2.") and any(c.source.startswith("### A subsection") for c in cells)
    assert slides.slide_types(cells)[1:] == ["subslide"] * (len(cells) - 1)
    short = _cell("md", "## 3. Short\n\nNothing to split.")
    assert [c.source for c in slides.lesson_cells(nbformat.v4.new_notebook(cells=[short]))] == [short.source]


def test_the_index_of_the_decks_renders_the_syllabus_markdown():
    page = slides.index_page([(week, 1, 2, []) for week in WEEKS])
    assert "`" not in page and "**" not in page
    assert "<code>notebooks/assignments/a1_metrics_by_hand</code>" in page and "<code>04_dcg_ndcg</code>" in page


def test_a_week_deck_opens_with_its_title_and_keeps_no_answer():
    for week in WEEKS:
        nb, missing = slides.deck(week)
        assert not missing
        assert nb.cells[0].source.startswith(f"# Week {week.number} — {week.title}")
        assert all(not slides.REMOVED_TAGS & set(c.metadata.get("tags", [])) for c in nb.cells)
        answers = {c.source for name in week.notebooks
                   for c in _read(NOTEBOOKS / f"{name}.ipynb").cells
                   if "solution" in c.metadata.get("tags", [])}
        assert not answers & {c.source for c in nb.cells}
        headings = sum(bool(re.match(r"#{1,2} ", c.source.lstrip())) for c in nb.cells if c.cell_type == "markdown")
        flat, total = slides.slide_counts(nb)
        assert flat == headings and flat < total, (week.number, flat, total)


def test_read_weeks_refuses_a_week_without_notebooks():
    with pytest.raises(ValueError, match="week 1 has no"):
        slides.read_weeks("## Week 1 — nothing\n\n**Notebooks**: none yet\n")
    with pytest.raises(ValueError, match="no '## Week N"):
        slides.read_weeks("# A page without weeks\n")


@pytest.mark.slow
def test_built_deck_loads_nothing_from_the_network(tmp_path):
    pytest.importorskip("sphinx_revealjs", reason="reveal.js comes from the docs extra (make .venv/.docs)")
    syllabus = tmp_path / "syllabus.md"
    syllabus.write_text(TEXT[:TEXT.index("\n## Week 2")] + "\n")  # week 1 alone: the build takes seconds
    rows = slides.build(tmp_path / "out", syllabus=syllabus)
    (week, flat, total, missing), = rows
    page = (tmp_path / "out" / "week1.html").read_text()
    assert (tmp_path / "out" / "reveal.js" / "dist" / "reveal.js").is_file()
    assert (tmp_path / "out" / "mathjax" / "MathJax.js").is_file()
    sources = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', page)
    assert sources and not [s for s in sources if re.match(r"(https?:)?//", s)], sources
    assert page.count("<section") == flat + total and flat > 1  # a <section> per column and one per slide
    assert "week1.html" in (tmp_path / "out" / "index.html").read_text()
