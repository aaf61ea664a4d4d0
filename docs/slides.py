"""Slides of the six-week course: ``python docs/slides.py [--out build/slides]``.

One reveal.js deck per week of ``docs/syllabus.md`` (``weekN.html``), made from the notebooks
that week lists, plus ``index.html``; everything the decks load is copied beside them, so they
open from the file system or any local server with no network:

- reveal.js from the ``sphinx-revealjs`` package (the ``docs`` extra), which ships its
  ``dist/`` and ``plugin/`` folders; nbconvert's slides would load it from a CDN
  (``SlidesExporter.reveal_url_prefix`` points them at the copy instead);
- MathJax 2 from ``jupyter-server-mathjax``, as the book and ``make demo`` use it, and
  rankkit's CJK font (``rankkit/plot/cjk_font/``) for the Chinese the lessons quote;
- nbconvert's reveal template, with the blocks that fetch jQuery, require.js, mermaid and the
  widget manager from CDNs replaced by local script tags (the decks need none of them).

How a week's notebooks become slides, decided here at build time (the notebooks themselves
are never modified):

- the cells a student sees, as in ``make student``: cells tagged ``solution``,
  ``remove-cell`` and ``teacher`` are left out; a check (``remove-input``) shows its output
  alone, and is left out when it has none; the explorers' widgets show their still figure;
- a markdown cell opening with a ``#`` or ``##`` heading starts a slide (left to right), one
  opening with ``###`` a sub-slide (downwards), and any cell that would overflow the slide
  (``LINES`` estimated lines) starts a sub-slide, a markdown cell longer than that being first
  split between its blocks (a table or a paragraph stays whole); other code cells appear as
  fragments;
- each deck opens with the week's title slide, from the syllabus: learning outcomes,
  notebooks, assignment.

``python docs/slides.py --measure [--execute]`` prints the workload table of the syllabus:
per notebook, what a student reads and runs, and the estimate of the time it takes.
"""

from __future__ import annotations

import argparse
import copy
import html
import math
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
SYLLABUS = DOCS / "syllabus.md"
NOTEBOOKS = ROOT / "notebooks"

#: Cells the students' edition leaves out (`make student`), and the tag of a check.
REMOVED_TAGS = frozenset({"solution", "remove-cell", "teacher"})
CHECK_TAG = "remove-input"
WIDGET = "application/vnd.jupyter.widget-view+json"
#: Lines of text a 960 x 700 slide holds at the template's 20 px font; a cell that would go
#: past it starts a sub-slide.
LINES = 20
#: Lines a figure takes on a slide, and the characters of a wrapped line.
FIGURE_LINES, WIDTH = 12, 90
#: The time estimate (minutes): words read at WORDS_PER_MINUTE, MINUTES_PER_CELL for running a
#: code cell and reading its output, MINUTES_PER_EXERCISE for each exercise.
WORDS_PER_MINUTE, MINUTES_PER_CELL, MINUTES_PER_EXERCISE = 150, 1.0, 8.0

_WEEK = re.compile(r"^## Week (\d+) — (.+)$", re.M)
_NOTEBOOK = re.compile(r"\b(\d\d_[a-z0-9_]+)\b")
_EXERCISE = re.compile(r"^(?:#{2,4} |\*\*)Exercise (\d+)\b", re.M)
_NB_LINK = re.compile(r"\[([^\]]+)\]\((?:\d\d_\w+\.ipynb)?#?[^)\s]*\)")
_ROLE = re.compile(r"\{\w+\}`([^`<]*?)(?:\s*<[^>]*>)?`")


@dataclass
class Week:
    """One week of the syllabus, as the slides need it."""

    number: int
    title: str
    notebooks: list[str]
    outcomes: list[str] = field(default_factory=list)
    assignment: str = ""


def _field(section: str, name: str) -> str:
    """The text after ``**name**:`` on its line of a week's section ('' if absent)."""
    match = re.search(rf"^\*\*{name}\*\*:\s*(.+)$", section, re.M)
    return match.group(1).strip() if match else ""


def _outcomes(section: str) -> list[str]:
    """The items of the week's "Learning outcomes" list."""
    match = re.search(r"^### Learning outcomes\n(.*?)(?=^### |\Z)", section, re.M | re.S)
    if not match:
        return []
    return [" ".join(item.split()) for item in re.split(r"^\s*\d+\.\s+", match.group(1), flags=re.M)[1:]]


def read_weeks(text: str) -> list[Week]:
    """The weeks of the syllabus: ``## Week N — title`` sections, each with a ``**Notebooks**:`` line."""
    heads = list(_WEEK.finditer(text))
    weeks = []
    for head, following in zip(heads, heads[1:] + [None]):
        section = text[head.end():following.start() if following else len(text)]
        section = section.split("\n## ", 1)[0]  # the week ends at the next section of the page
        notebooks = _NOTEBOOK.findall(_field(section, "Notebooks"))
        if not notebooks:
            raise ValueError(f"syllabus: week {head.group(1)} has no **Notebooks**: line naming a notebook")
        weeks.append(Week(int(head.group(1)), head.group(2).strip(), notebooks, _outcomes(section),
                          _field(section, "Assignment")))
    if not weeks:
        raise ValueError("syllabus: no '## Week N — title' section found")
    return weeks


def plain(markdown: str) -> str:
    """MyST roles and links as their text: ``{doc}`x``` -> ``x``, ``[a](b)`` -> ``a``."""
    return _NB_LINK.sub(r"\1", _ROLE.sub(r"`\1`", markdown))


def exercises(nb) -> dict[int, str]:
    """Exercise number -> the text of the markdown cell that sets it, in the students' cells."""
    found: dict[int, str] = {}
    for cell in nb.cells:
        if cell.cell_type == "markdown" and not REMOVED_TAGS & set(cell.metadata.get("tags", [])):
            for match in _EXERCISE.finditer(cell.source):
                found.setdefault(int(match.group(1)), cell.source)
    return found


# --- cells to slides ----------------------------------------------------------------------------


def _has_output(cell) -> bool:
    return any(out.get("output_type") != "stream" or out.get("text", "").strip() for out in cell.get("outputs", []))


def _blocks(markdown: str) -> list[str]:
    """The blocks of a markdown text (paragraphs, lists, tables, headings), split at blank lines
    but never inside a fenced code block or a ``$$`` formula."""
    blocks: list[str] = []
    for part in re.split(r"\n\s*\n", markdown.strip("\n")):
        if blocks and (blocks[-1].count("```") % 2 or blocks[-1].count("$$") % 2):
            blocks[-1] += "\n\n" + part
        else:
            blocks.append(part)
    return blocks


def _pieces(block: str) -> list[str]:
    """A block longer than a slide in pieces that fit: a table in runs of rows, each under the
    table's header; a list between its items. Other blocks stay whole."""
    lines = block.split("\n")
    if _text_lines(block) <= LINES:
        return [block]
    if len(lines) > 2 and all(line.lstrip().startswith("|") for line in lines):
        head, rows, pieces = lines[:2], lines[2:], []
        for row in rows:
            if pieces and _text_lines("\n".join(pieces[-1] + [row])) <= LINES:
                pieces[-1].append(row)
            else:
                pieces.append([*head, row])
        return ["\n".join(piece) for piece in pieces]
    items: list[list[str]] = []
    for line in lines:
        if items and not re.match(r"\s{0,1}(?:[-*+]|\d+\.) ", line):
            items[-1].append(line)
        else:
            items.append([line])
    pieces: list[str] = []
    for item in ("\n".join(lines) for lines in items):
        if pieces and _text_lines(pieces[-1] + "\n" + item) <= LINES:
            pieces[-1] += "\n" + item
        else:
            pieces.append(item)
    return pieces


def split_markdown(cell) -> list:
    """A markdown cell longer than a slide (``LINES``) as several cells, each a run of whole blocks
    that fits (a table or a list longer than a slide in pieces, see ``_pieces``; a heading opens
    a cell), so that no table or paragraph is cut off at the slide's bottom: each cell after the
    first starts a sub-slide (a slide if it opens with a ``#`` or ``##`` heading)."""
    if cell.cell_type != "markdown" or _text_lines(cell.source) <= LINES:
        return [cell]
    parts: list[list[str]] = []
    used = 0
    for block in (piece for whole in _blocks(cell.source) for piece in _pieces(whole)):
        lines = _text_lines(block)
        if parts and used + lines <= LINES and not re.match(r"#{1,3} ", block):
            parts[-1].append(block)
            used += lines
        else:
            parts.append([block])
            used = lines
    cells = []
    for number, blocks in enumerate(parts):
        part = copy.deepcopy(cell)
        part.source = "\n\n".join(blocks)
        if number and "id" in part:
            part["id"] = f"{part['id'][:60]}-{number}"
        cells.append(part)
    return cells


def lesson_cells(nb) -> list:
    """The cells a student sees, ready for a slide (copies; the notebook is untouched)."""
    cells = []
    for cell in nb.cells:
        tags = set(cell.metadata.get("tags", []))
        if tags & REMOVED_TAGS or (CHECK_TAG in tags and not _has_output(cell)):
            continue
        cell = copy.deepcopy(cell)
        if CHECK_TAG in tags:
            cell.metadata["transient"] = {"remove_source": True}
        if cell.cell_type == "markdown":
            cell.source = _NB_LINK.sub(r"\1", cell.source)  # links to other notebooks lead nowhere here
        for out in cell.get("outputs", []):
            out.get("data", {}).pop(WIDGET, None)  # the still figure, not a widget needing a kernel
        cells += split_markdown(cell)
    return cells


def _text_lines(text: str) -> int:
    return sum(max(1, math.ceil(len(line) / WIDTH)) for line in text.strip("\n").splitlines() if line.strip())


def estimated_lines(cell) -> int:
    """How many lines of a slide a cell fills: wrapped text, table rows, figures."""
    hidden = cell.metadata.get("transient", {}).get("remove_source", False)
    lines = 0 if hidden else _text_lines(cell.source)
    for out in cell.get("outputs", []):
        data = out.get("data", {})
        if "image/png" in data or "image/svg+xml" in data:
            lines += FIGURE_LINES
        elif "text/html" in data:
            lines += max(1, str(data["text/html"]).count("<tr"))
        else:
            lines += _text_lines(out.get("text", "") or str(data.get("text/plain", "")))
    return max(lines, 1)


def slide_types(cells: list) -> list[str]:
    """reveal.js's slide type of each cell, by the rules of this module's docstring."""
    types, used = [], 0
    for cell in cells:
        lines = estimated_lines(cell)
        first = cell.source.lstrip().split("\n", 1)[0] if cell.cell_type == "markdown" else ""
        if re.match(r"#{1,2} ", first):
            kind, used = "slide", lines
        elif first.startswith("### ") or used + lines > LINES:
            kind, used = "subslide", lines
        else:
            kind, used = ("fragment" if cell.cell_type == "code" else "-"), used + lines
        types.append(kind)
    return types


def title_cell(week: Week, present: list[str], missing: list[str]):
    """The week's opening slide, from the syllabus."""
    text = [f"# Week {week.number} — {week.title}", ""]
    if week.outcomes:
        text += ["**By the end of the week you can**", ""]
        text += [f"{i}. {plain(item)}" for i, item in enumerate(week.outcomes, 1)] + [""]
    text.append("**Notebooks**: " + ", ".join(f"`{name}`" for name in present))
    if missing:
        text.append(f"(not in this checkout: {', '.join(f'`{name}`' for name in missing)})")
    if week.assignment:
        text += ["", "**Assignment**: " + plain(week.assignment)]
    return nbformat.v4.new_markdown_cell("\n".join(text))


def deck(week: Week, notebooks: Path = NOTEBOOKS):
    """The week's slides as one notebook, each cell carrying its slide type."""
    paths = [notebooks / f"{name}.ipynb" for name in week.notebooks]
    present = [p for p in paths if p.is_file()]
    missing = [p.stem for p in paths if not p.is_file()]
    if not present:
        raise FileNotFoundError(f"week {week.number}: none of its notebooks is in {notebooks}: {week.notebooks}")
    first = nbformat.read(present[0], as_version=4)
    cells = [title_cell(week, [p.stem for p in present], missing)]
    for path in present:
        cells += lesson_cells(nbformat.read(path, as_version=4))
    for cell, kind in zip(cells, slide_types(cells)):
        cell.metadata["slideshow"] = {"slide_type": kind}
    out = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(first.metadata))
    out.metadata.pop("widgets", None)
    out.metadata["title"] = f"Week {week.number} — {week.title}"
    return out, missing


def slide_counts(nb) -> tuple[int, int]:
    """(slides left to right, slides in all with the sub-slides) of a deck."""
    kinds = [cell.metadata.get("slideshow", {}).get("slide_type") for cell in nb.cells]
    return kinds.count("slide"), kinds.count("slide") + kinds.count("subslide")


# --- the HTML ------------------------------------------------------------------------------------

#: nbconvert's reveal template without what it fetches from CDNs (jQuery, require.js, mermaid,
#: the widget manager): reveal.js and its notes plugin as plain scripts, MathJax 2 configured as
#: in the book (the STIX-Web fonts jupyter-server-mathjax ships), and tall slides scrolled.
TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}
<link rel="icon" href="data:,">  {#- no favicon.ico to ask the server for #}
<script type="text/x-mathjax-config">
MathJax.Hub.Config({
  tex2jax: {inlineMath: [["$", "$"], ["\\(", "\\)"]], displayMath: [["$$", "$$"], ["\\[", "\\]"]],
            processEscapes: true, processEnvironments: true},
  "HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null},
  "fast-preview": {disabled: true}, showMathMenu: false, messageStyle: "none"
});
</script>
<script src="{{ resources.mathjax_url }}"></script>
<style>
.reveal .slides section { max-height: 100%; overflow-y: auto; }
.reveal .slides section.stack { overflow-y: visible; }
:root { --jp-code-font-size: 15px; --jp-content-font-size1: 18px; }
.jp-OutputArea-output img { max-height: 420px; width: auto; }
/* The Chinese quoted from the sources in rankkit's CJK font (a subset of Noto Sans CJK SC, SIL
   OFL 1.1, as in the book's cjk.css): used for CJK characters only (unicode-range), so Latin
   text keeps the theme's fonts, and a machine without a CJK font draws no empty boxes. */
@font-face {
  font-family: "rankkit CJK"; src: url("fonts/rankkit-cjk.otf") format("opentype"); font-display: swap;
  unicode-range: U+2E80-2FDF, U+3000-30FF, U+3100-31FF, U+3200-33FF, U+3400-4DBF, U+4E00-9FFF,
    U+AC00-D7AF, U+F900-FAFF, U+FE10-FE1F, U+FE30-FE4F, U+FF00-FFEF, U+20000-3134F;
}
.reveal { --r-main-font: "rankkit CJK", "Source Sans Pro", Helvetica, sans-serif;
          --r-heading-font: "rankkit CJK", "Source Sans Pro", Helvetica, sans-serif; }
body { --jp-content-font-family: "rankkit CJK", system-ui, -apple-system, "Segoe UI", helvetica, arial, sans-serif;
       --jp-code-font-family: "rankkit CJK", menlo, consolas, "DejaVu Sans Mono", monospace; }
</style>
{%- endblock html_head_js_mathjax -%}
{% block footer_js %}
<script src="{{ resources.reveal.url_prefix }}/dist/reveal.js"></script>
<script src="{{ resources.reveal.url_prefix }}/plugin/notes/notes.js"></script>
<script>
Reveal.initialize({
  controls: true, progress: true, hash: true, center: false,
  transition: "{{ resources.reveal.transition }}", slideNumber: "{{ resources.reveal.number }}",
  width: {{ resources.reveal.width or 960 }}, height: {{ resources.reveal.height or 700 }}, plugins: [RevealNotes]
});
Reveal.on("slidechanged", function (event) {
  if (window.MathJax && MathJax.Hub) MathJax.Hub.Queue(["Rerender", MathJax.Hub, event.currentSlide]);
});
</script>
{% endblock footer_js %}
"""

MATHJAX_URL = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"
CJK_FONT = ROOT / "rankkit" / "plot" / "cjk_font"


def reveal_folder() -> Path:
    """reveal.js as the ``sphinx-revealjs`` package ships it (``dist/``, ``plugin/``)."""
    try:
        import sphinx_revealjs
    except ImportError as error:
        raise SystemExit("docs/slides.py needs reveal.js from the sphinx-revealjs package: make .venv/.docs") from error
    folder = Path(sphinx_revealjs.__file__).parent / "_static" / "revealjs"
    if not (folder / "dist" / "reveal.js").is_file():
        raise SystemExit(f"reveal.js not found in {folder} (sphinx-revealjs changed its layout?)")
    return folder


def copy_assets(out: Path) -> None:
    """reveal.js (without source maps) and MathJax beside the decks."""
    import jupyter_server_mathjax

    reveal = reveal_folder()
    shutil.rmtree(out / "reveal.js", ignore_errors=True)
    shutil.copytree(reveal / "dist", out / "reveal.js" / "dist", ignore=shutil.ignore_patterns("*.map", "*.esm.js"))
    shutil.copytree(reveal / "plugin" / "notes", out / "reveal.js" / "plugin" / "notes",
                    ignore=shutil.ignore_patterns("*.esm.js"))
    shutil.copy(reveal / "LICENSE", out / "reveal.js" / "LICENSE")
    shutil.copytree(Path(jupyter_server_mathjax.__file__).parent / "static", out / "mathjax", dirs_exist_ok=True)
    (out / "fonts").mkdir(exist_ok=True)
    for name in ("rankkit-cjk.otf", "OFL.txt"):  # the CJK subset the figures and the book use
        shutil.copy(CJK_FONT / name, out / "fonts" / name)


def exporter():
    """nbconvert's SlidesExporter (``--to slides``), pointed at the local copies."""
    from nbconvert import SlidesExporter
    from traitlets.config import Config

    config = Config()
    config.SlidesExporter.reveal_url_prefix = "reveal.js"
    config.SlidesExporter.reveal_theme = "white"
    config.SlidesExporter.reveal_transition = "none"
    config.SlidesExporter.reveal_number = "c/t"
    config.SlidesExporter.mathjax_url = MATHJAX_URL
    config.SlidesExporter.exclude_input_prompt = True
    config.SlidesExporter.exclude_output_prompt = True
    return SlidesExporter(config=config, raw_template=TEMPLATE)


def inline_html(markdown: str) -> str:
    """One line of the syllabus's Markdown as HTML: escaped, with its ``code``, **bold** and *emphasis*
    (MyST roles and links as their text)."""
    text = html.escape(plain(markdown), quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"<em>\1</em>", text)


def index_page(rows: list[tuple[Week, int, int, list[str]]]) -> str:
    """``index.html``: the weeks, their notebooks and their slides (no script, no style from outside)."""
    items = "\n".join(
        f'<li><a href="week{w.number}.html">Week {w.number} — {inline_html(w.title)}</a> '
        f"({flat} slides, {total} with sub-slides): " + ", ".join(f"<code>{html.escape(n)}</code>" for n in w.notebooks)
        + (f"<br><small>{inline_html(w.assignment)}</small>" if w.assignment else "")
        + (f"<br><small>not in this checkout: {html.escape(', '.join(gone))}</small>" if gone else "") + "</li>"
        for w, flat, total, gone in rows)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><link rel=\"icon\" href=\"data:,\">"
            "<title>rankkit: the course's slides"
            "</title>\n<style>body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.5}</style>"
            "</head>\n<body><h1>rankkit: the course's slides</h1>\n<p>One deck per week of the syllabus; arrow keys "
            "move (right: next slide, down: its sub-slides), <kbd>s</kbd> opens the speaker view, <kbd>?</kbd> the "
            f"keys.</p>\n<ol>\n{items}\n</ol>\n</body></html>\n")


def build(out: Path, notebooks: Path = NOTEBOOKS, syllabus: Path = SYLLABUS) -> list[tuple[Week, int, int, list[str]]]:
    """Write every week's deck, the assets and the index into ``out``; return (week, slides, all, missing)."""
    weeks = read_weeks(syllabus.read_text())
    out.mkdir(parents=True, exist_ok=True)
    copy_assets(out)
    slides = exporter()
    rows = []
    for week in weeks:
        nb, missing = deck(week, notebooks)
        body, _ = slides.from_notebook_node(nb, resources={"metadata": {"name": f"week{week.number}"}})
        (out / f"week{week.number}.html").write_text(body)
        rows.append((week, *slide_counts(nb), missing))
    (out / "index.html").write_text(index_page(rows))
    return rows


# --- the workload of each notebook ---------------------------------------------------------------


def workload(path: Path, execute: bool = False) -> dict[str, float]:
    """What a student reads and runs in a notebook (its students' cells), and the time estimate."""
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if not REMOVED_TAGS & set(c.metadata.get("tags", []))]
    words = sum(len(c.source.split()) for c in cells if c.cell_type == "markdown")
    code = sum(c.cell_type == "code" and CHECK_TAG not in c.metadata.get("tags", []) for c in cells)
    n_exercises = len(exercises(nb))
    minutes = words / WORDS_PER_MINUTE + code * MINUTES_PER_CELL + n_exercises * MINUTES_PER_EXERCISE
    row = {"cells": len(cells), "words": words, "code cells": code, "exercises": n_exercises,
           "minutes": 5 * max(1, round(minutes / 5))}
    if execute:
        row["seconds"] = execution_seconds(path)
    return row


def execution_seconds(path: Path) -> float:
    """Wall time of starting a kernel and running every cell of the notebook (the teacher's copy).

    A timing, not a test: a cell that fails does not stop the run (nbval checks the cells).
    """
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return time.perf_counter() - start


def measure(execute: bool) -> str:
    """The workload table of every lesson notebook, in Markdown."""
    columns = ["cells", "words", "code cells", "exercises", "minutes"] + (["seconds"] if execute else [])
    lines = ["| notebook | " + " | ".join(columns) + " |", "| --- |" + " ---: |" * len(columns)]
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        row = workload(path, execute)
        values = [f"{row[c]:.1f}" if c == "seconds" else str(row[c]) for c in columns]
        lines.append(f"| `{path.stem}` | " + " | ".join(values) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "slides", help="folder of the decks")
    parser.add_argument("--measure", action="store_true", help="print the notebooks' workload table instead")
    parser.add_argument("--execute", action="store_true", help="with --measure: also time each notebook's run")
    args = parser.parse_args(argv)
    if args.measure:
        print(measure(args.execute))
        return 0
    start = time.perf_counter()
    rows = build(args.out)
    for week, flat, total, missing in rows:
        note = f"; WARNING: not in this checkout: {', '.join(missing)}" if missing else ""
        print(f"{args.out}/week{week.number}.html: {flat} slides, {total} with sub-slides "
              f"({', '.join(week.notebooks)}){note}")
    print(f"{args.out}/index.html: {len(rows)} decks ({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
