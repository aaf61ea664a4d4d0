"""Lay out the book's sources: ``python docs/generate.py NOTEBOOKS OUT``.

Copies the hand-written pages of ``docs/`` and the notebooks of NOTEBOOKS into OUT (the Sphinx
source folder), then writes what is generated from the package itself:

- ``metrics.md``: the metric tables, from the registry's records (:mod:`rankkit.names`): every
  name rankkit accepts, its trec_eval and ir_measures spellings, its parameters, its function;
- ``api/*.rst``: the API reference, one page per subject, each public object documented once
  under one name (its canonical path) and linked from its other public paths;
- ``_links.json``: every public path -> its canonical path, and the names the notebooks import
  rankkit as (``rk``, ``rkplot``), for ``conf.py``'s links from code cells to the reference;
- at the end of each chapter, "Functions used in this chapter": a link to each public object its
  code calls.

The copies are the book's: the notebooks themselves are never modified.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

import nbformat

import rankkit
from rankkit import names

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

#: The API reference: page -> (title, introduction, [(module, names)]). Names None: the module's __all__.
API_PAGES: dict[str, tuple[str, str, list[tuple[str, Iterable[str] | None]]]] = {
    "rankkit": ("rankkit (``rk``)", "The names ``import rankkit as rk`` gives: metrics on labels in rank order, "
                "evaluating runs, the data model.", [("rankkit", None)]),
    "metrics": ("Metric families (rankkit.metrics)", "Every metric function, by family; the top-level ``rk.*`` "
                "name where there is one.",
                [(f"rankkit.metrics.{family}", None) for family in
                 ("binary", "curves", "graded", "cwl", "set_based", "incomplete", "overlap", "pairwise",
                  "label_ranking", "unranked", "ltr", "diversity", "preferences")]),
    "evaluation": ("Evaluation (rankkit.evaluation)", "Scoring runs against judgments in memory; "
                   "``rk.evaluate`` is the front door.", [("rankkit.evaluation", None)]),
    "io": ("Reading judgments and runs (rankkit.io)", "TREC files, Parquet and Feather, frames, records, dicts.",
           [("rankkit.io", None)]),
    "names": ("Metric names (rankkit.names)", "The registry of metrics and the spec grammar; the tables of "
              ":doc:`../metrics` are generated from it.", [("rankkit.names", None)]),
    "stats": ("Comparing systems (rankkit.stats)", "Significance, confidence intervals, effect sizes, and the "
              "tables of a comparison.", [("rankkit.stats", None)]),
    "plot": ("Figures (rankkit.plot)", "The figures of the lessons.", [("rankkit.plot", None)]),
    "teaching": ("Teaching (rankkit.teaching)", "What the lessons use beside the engine: the explorers (sliders "
                 "and a list to reorder, each with a still figure) and the articles the lessons reproduce.",
                 [("rankkit.teaching.explore", None), ("rankkit.teaching.sources", None)]),
    "dask": ("Runs beyond one machine (rankkit.dask)", "The same evaluation on Dask inputs.", [("rankkit.dask", None)]),
}

#: reproducing.md's paragraph on the check cells, in the teacher's edition and in the students' (whose notebooks
#: keep the checks collapsed, without those that would give an exercise away, and whose book shows no check's code).
CHECKS = ("Each check is a cell tagged `remove-input`: this book shows its output only. The checks run in "
          "`make test` (nbval, strict: every stored output must be reproduced), so a change in rankkit that moves "
          "any number fails the tests. The chapters of this book are those stored outputs, rendered as they were "
          "tested.")
STUDENTS_CHECKS = ("In your copy of the notebooks each check is a collapsed cell below the computation it guards (a "
                   "thin bar: click it to open it); this book shows its output only, not its code. Checks that would "
                   "give an exercise's answer away are not in your copy, nor are the answers. Run each notebook top "
                   "to bottom: a check that stops with an error means the number above it no longer holds. The "
                   "chapters of this book are your copies, each run top to bottom before it was handed out.")
#: reproducing.md's paragraph on the checklist, in the teacher's edition and in the students' (which has none).
CHECKLIST = ("The checklist, {doc}`08_source_checklist`, gathers every printed number of the five sources in one "
             "table: the value the source prints, the value rankkit computes, whether they agree, and the chapter "
             "that explains the example.")
STUDENTS_CHECKLIST = ("The checklist of every printed number is in the teacher's edition of this book (it shows the "
                      "exercises' answers).")

#: The pages of the teacher's and developers' book the students' edition leaves out (how to teach with the
#: notebooks, the project's CI, speed, versions, contributing, changes); links to them become plain text.
STUDENTS_LEAVE_OUT = ("teaching", "ci_gate", "speed", "versions", "contributing", "changelog")
#: The line the students' edition puts under the syllabus's title.
STUDENTS_SYLLABUS = ("*This page is the course plan: what each week teaches, reads and sets, the assignments and "
                     "how the course is graded.*")
STUDENTS_INTRO = """# rankkit: the students' book

The lessons of the course, as your copy of the notebooks holds them (without the exercises'
answers, each run top to bottom before it was handed out); the course plan; a guide to using
rankkit; the API reference generated from the docstrings; and the metric tables generated from
the registry.

- **Lessons**: start with {doc}`00_start_here` (objectives, a path through the chapters, the
  notation, a glossary).
- **The course**: {doc}`the syllabus <syllabus>`, the plan of the six weeks.
- **Guide**: GUIDE.
- **Metric names**: {ref}`metric-tables`.
- **Reference**: {doc}`api/index`; {doc}`conventions`, {doc}`differences` and {doc}`reproducing`.

The search box searches every page, offline.
"""


def students_index(index: str) -> str:
    """The students' edition of index.md: the toctrees without the pages it leaves out, and an
    introduction that names only the pages it keeps."""
    blocks = []
    guide: list[str] = []
    for block in re.findall(r"```\{toctree\}\n(.*?)```", index, re.S):
        lines = [line for line in block.splitlines() if line.strip() not in STUDENTS_LEAVE_OUT]
        pages = [line.strip() for line in lines if line.strip() and not line.startswith(":")]
        if pages:
            blocks.append("```{toctree}\n" + "\n".join(lines) + "\n```")
        if ":caption: Guide" in block:
            guide = [page for page in pages if page != "syllabus"]
    intro = STUDENTS_INTRO.replace("GUIDE", "; ".join(f"{{doc}}`{page}`" for page in guide))
    return intro + "\n" + "\n\n".join(blocks) + "\n"


def students_pages(out: Path) -> None:
    """Trim the book's sources in ``out`` to the students' edition: the pages it leaves out removed,
    links to them as plain text, its own index, and the syllabus introduced as the course plan."""
    titles = {}
    for name in STUDENTS_LEAVE_OUT:
        page = out / f"{name}.md"
        if page.exists():
            heading = re.search(r"^# (.+)$", page.read_text(), re.M)
            titles[name] = heading.group(1) if heading else name
            page.unlink()
    link = re.compile(r"\{doc\}`(?:([^`<]*?)\s*<)?(" + "|".join(STUDENTS_LEAVE_OUT) + r")>?`")
    for page in out.glob("*.md"):
        text = link.sub(lambda m: m.group(1) or f"*{titles.get(m.group(2), m.group(2))}*", page.read_text())
        page.write_text(text)
    index = out / "index.md"
    index.write_text(students_index(index.read_text()))
    syllabus = out / "syllabus.md"
    if syllabus.exists():
        title, _, rest = syllabus.read_text().partition("\n")
        syllabus.write_text(f"{title}\n\n{STUDENTS_SYLLABUS}\n{rest}")


#: Registry rows computed by a private wrapper of a public function.
WRAPPED = {"iprec": "rankkit.metrics.binary.interpolated_precision",
           "iprec_avg": "rankkit.metrics.binary.interpolated_precision_average"}


def public_objects() -> list[tuple[str, str, str, object]]:
    """(page, module, name, object) for every object the reference documents, in page order."""
    rows = []
    for page, (_, _, modules) in API_PAGES.items():
        for module_name, wanted in modules:
            module = importlib.import_module(module_name)
            for name in wanted if wanted is not None else module.__all__:
                rows.append((page, module_name, name, getattr(module, name)))
    return rows


def _top_level(name: str, obj: object) -> str | None:
    """``rankkit.name`` if ``rk.name`` is this very object (its short name), else None."""
    return f"rankkit.{name}" if callable(obj) and name in rankkit.__all__ and getattr(rankkit, name) is obj else None


def canonical_paths() -> dict[str, str]:
    """Every public dotted path -> the one path it is documented under: ``rk.*``'s short name
    where there is one (``rankkit.ndcg``, not ``rankkit.metrics.graded.ndcg``), else the first."""
    first: dict[int, str] = {}
    paths: dict[str, str] = {}
    for _, module_name, name, obj in public_objects():
        path = f"{module_name}.{name}"
        key = id(obj) if callable(obj) else id(path)  # constants: each path its own entry
        paths[path] = first.setdefault(key, _top_level(name, obj) or path)
    return paths


def home_pages(paths: dict[str, str]) -> dict[str, str]:
    """Canonical path -> the page documenting it: its subject's page (the family of a metric),
    the ``rankkit`` page only for what no other page lists (``Rankings``)."""
    homes: dict[str, str] = {}
    for page, module_name, name, _ in public_objects():
        target = paths[f"{module_name}.{name}"]
        if homes.get(target, "rankkit") == "rankkit":
            homes[target] = page
    return homes


def _directive(path: str, obj: object) -> str:
    if isinstance(obj, type):
        return f".. autoclass:: {path}\n   :members:\n"
    if callable(obj):
        return f".. autofunction:: {path}\n"
    return f".. autodata:: {path}\n   :no-value:\n"


def _summary(obj: object) -> str:
    doc = (getattr(obj, "__doc__", None) or "").strip().split("\n\n")[0]
    return " ".join(doc.split())


def _top_level_table(paths: dict[str, str]) -> list[str]:
    """The ``rk.*`` names, each with its summary, linked to its entry."""
    text = [".. list-table::", "   :header-rows: 1", "   :widths: 25 75", "", "   * - name", "     - what it is"]
    for name in rankkit.__all__:
        path = paths[f"rankkit.{name}"]
        text += [f"   * - :py:obj:`rk.{name} <{path}>`", f"     - {_summary(getattr(rankkit, name))}"]
    return text + [""]


def api_pages(paths: dict[str, str]) -> dict[str, str]:
    """Page name -> reStructuredText of the API reference."""
    pages = {}
    rows = public_objects()
    homes = home_pages(paths)
    done: set[str] = set()
    for page, (title, intro, modules) in API_PAGES.items():
        text = [title, "=" * len(title), "", intro, ""]
        if page == "rankkit":
            text += _top_level_table(paths)
        for module_name, _ in modules:
            if len(modules) > 1:
                doc = importlib.import_module(module_name).__doc__ or ""
                text += [module_name, "-" * len(module_name), "", doc.strip().split("\n\n")[0], ""]
            text += [f".. currentmodule:: {module_name}", ""]
            for row_page, row_module, name, obj in rows:
                target = paths[f"{row_module}.{name}"]
                if row_page != page or row_module != module_name:
                    continue
                if homes[target] == page and target not in done:  # its entry
                    done.add(target)
                    text += [_directive(target, obj)]
                elif page != "rankkit":
                    text += [f"``{row_module}.{name}``: see :py:obj:`{target}`.", ""]
        pages[page] = "\n".join(text) + "\n"
    index = ["API reference", "=============", "",
             "Generated from the docstrings (numpydoc): each function's formula, conventions, references and "
             "examples. Every public object is documented once; its other public names link to it.", "",
             ".. toctree::", "   :maxdepth: 1", ""] + [f"   {page}" for page in API_PAGES]
    pages["index"] = "\n".join(index) + "\n"
    return pages


def _code(text: str) -> str:
    """A Markdown code span that a pipe table keeps in its cell."""
    return "`" + text.replace("|", "\\|") + "`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


#: What the metrics of other judgments are computed from (MetricInfo.judgments), as the tables say it.
COMPUTED_FROM = {"prefs": "preference judgments (`rk.read_prefs`, `-R prefs`)",
                 "qrels_jg": "judgment groups (`rk.read_prefs(path, \"qrels_jg\")`, `-R qrels_jg`)",
                 "interactions": "a recommender's lists (`rk.recommendations`)"}


def function_path(name: str, paths: dict[str, str]) -> str | None:
    """The documented path of a registry row's function (None for num_q, runid: no function);
    the recommender measures' (``func`` None in their records) is ``rk.<name>``."""
    if name in WRAPPED:
        return paths[WRAPPED[name]]
    func = names.REGISTRY[name].func
    path = f"rankkit.{name}" if func is None else f"{func.__module__}.{func.__name__}"
    return paths.get(path)


def _func_link(name: str, paths: dict[str, str]) -> str:
    path = function_path(name, paths)
    return "—" if path is None else f"{{py:func}}`{path.replace('rankkit.', 'rk.', 1)} <{path}>`"


def _spec(name: str, info) -> str:
    required = [p for p in info.required if p != "k"]
    args = f"({', '.join(f'{p}=...' for p in required)})" if required else ""
    at = "@k" if "k" in info.required else "[@k]" if info.cutoff else ""
    return name + args + at


def _trec_spelling(trec) -> str:
    """trec_eval's name as a ``-m`` writes it: ``P_k`` for cutoffs, ``iprec_at_recall_x`` for levels."""
    return {"cutoffs": f"{trec.name}_k", "levels": f"{trec.name}_x"}.get(trec.kind, trec.name)


def metric_tables() -> str:
    """The metrics page (MyST Markdown), generated from the records."""
    paths = canonical_paths()
    out = ["(metric-tables)=", "# Metric names and parameters", "",
           "Generated from the registry's records ({py:data}`rankkit.names.REGISTRY`), so it cannot drift from "
           "what rankkit accepts. A spec is written `NAME(param=value, ...)@k` (`nDCG@10`, "
           "`nDCG(gain='exp')@10`, `P(rel=2)@5`, `RBP(p=0.9)`); names match case-insensitively; "
           "trec_eval's and ir_measures' names are accepted everywhere a spec is. Each function links to its "
           "reference, with the formula and its source. Most metrics are computed from relevance judgments "
           "(`rk.evaluate(qrels, run, [...])`); the others say what they are computed from (`from:`): "
           "trec_eval's preference measures, its measures of judgment groups, and a recommender's measures "
           "beyond accuracy, which `rk.evaluate` on relevance judgments refuses with the call to make instead.", "",
           "(metric-table)=", "## Every metric", "",
           # Four columns, so that the table fits the article's width (752 px in a 1280 px window):
           # the function under the spec, the three kinds of other names in one cell, each labelled.
           "| rankkit, function | other names | parameters | what it measures |",
           "| --- | --- | --- | --- |"]
    for name, info in names.REGISTRY.items():
        trec = [_trec_spelling(t) for t in info.trec]
        also = [a for a in info.aliases if a not in info.ir_measures and a not in trec]  # each name once
        others = [(label, ", ".join(_code(x) for x in xs)) for label, xs in (
            ("trec_eval", trec), ("ir_measures", info.ir_measures), ("also", also)) if xs]
        if info.judgments in COMPUTED_FROM:
            others.append(("from", COMPUTED_FROM[info.judgments]))
        params = ", ".join(f"[{_code(p.name)}](param-{name})" for p in info.parameters)
        other = "; ".join(f"{label}: {spelled}" for label, spelled in others)
        out.append(f"| {_code(_spec(name, info))} {_func_link(name, paths)} | {other} | {params} | "
                   f"{_cell(info.summary)} |")

    out += ["", "(trec-eval-names)=", "## trec_eval's names", "",
            "In the order trec_eval 10 prints them ({py:data}`rankkit.names.TREC_ORDER`). `_k` stands for a "
            "cutoff (`P_10`; `-m P.5,10` gives several), `_x` for a level (`iprec_at_recall_0.10`). "
            "Nicknames: " + "; ".join(f"`{nick}` = " + ", ".join(f"`{m}`" for m in members)
                                       for nick, members in names.NICKNAMES.items()) + ".", "",
            "| trec_eval | defaults | rankkit | set by the name | function |", "| --- | --- | --- | --- | --- |"]
    for trec_name in names.TREC_ORDER:
        row, trec = names.TREC_FAMILIES[trec_name]
        fixed = ", ".join(_code(f"{k}={v!r}") for k, v in trec.fixed)
        defaults = trec.defaults.replace(",", ", ")  # a list breaks between its values, not inside one
        out.append(f"| {_code(_trec_spelling(trec))} | {_code(defaults) if defaults else ''} | "
                   f"[{_code(row)}](metric-{row}) | {fixed} | {_func_link(row, paths)} |")

    out += ["", "(ir-measures-names)=", "## ir_measures' names", "",
            "ir_measures' measure names ({py:data}`rankkit.names.IR_MEASURES`); its parameters are translated "
            "({py:mod}`rankkit.names.ir_measures`). Where the values differ, see {doc}`differences`.", "",
            "| ir_measures | rankkit | function |", "| --- | --- | --- |"]
    for irm, row in names.IR_MEASURES.items():
        out.append(f"| {_code(irm)} | [{_code(row)}](metric-{row}) | {_func_link(row, paths)} |")

    out += ["", "(other-names)=", "## Other names", "",
            "rankkit's aliases ({py:data}`rankkit.names.NAME_ALIASES`).", "",
            "| alias | rankkit |", "| --- | --- |"]
    out += [f"| {_code(alias)} | [{_code(row)}](metric-{row}) |" for alias, row in names.NAME_ALIASES.items()]

    out += ["", "(parameters)=", "## Parameters", "",
            "Each metric's parameters, typed ({py:class}`rankkit.names.Param`): the type, the default (`None`: "
            "set by the data or the evaluation), the allowed values and what it means. A spec is refused when "
            "it is parsed, with the message the metric would give.", ""]
    rows = names.parameter_table()
    for name, info in names.REGISTRY.items():
        source = f" Computed from {COMPUTED_FROM[info.judgments]}." if info.judgments in COMPUTED_FROM else ""
        out += [f"(metric-{name})=", f"### {name}", "",
                f"{_cell(info.summary)}. Function: {_func_link(name, paths)}.{source}", ""]
        mine = [r for r in rows if r["metric"] == name]
        if not mine:
            out += ["No parameters" + (" but the cutoff `@k`." if info.cutoff else "."), ""]
            continue
        out += [f"(param-{name})=", "", "| parameter | type | default | range | description |",
                "| --- | --- | --- | --- | --- |"]
        out += [f"| {_code(r['name'])} | {r['type']} | {_code(r['default'])} | {_code(r['range'])} | "
                f"{_cell(r['description'])} |" for r in mine]
        out.append("")
    return "\n".join(out) + "\n"


def _is_module(dotted: str) -> bool:
    """Whether ``dotted`` names a module (``rankkit.teaching.explore``), not a function or a constant."""
    try:
        return importlib.util.find_spec(dotted) is not None
    except ModuleNotFoundError:  # the part before the last dot is a module, not a package
        return False


def notebook_prefixes(notebooks: Iterable[Path]) -> dict[str, str]:
    """The names the notebooks import rankkit's modules as: ``{"rk": "rankkit", "rkplot": "rankkit.plot"}``."""
    prefixes = {"rankkit": "rankkit"}
    pattern = re.compile(r"^\s*import (rankkit(?:\.\w+)*) as (\w+)|^\s*from (rankkit(?:\.\w+)*) import (\w+)\s*$",
                         re.M)
    for path in notebooks:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            for module, alias, parent, name in pattern.findall(cell.source):
                if module:
                    prefixes[alias] = module
                elif _is_module(f"{parent}.{name}"):  # from rankkit.teaching import explore
                    prefixes[name] = f"{parent}.{name}"
    return prefixes


def resolve(dotted: str, prefixes: dict[str, str], paths: dict[str, str]) -> str | None:
    """``rk.ndcg`` -> ``rankkit.ndcg``: the documented path a name in a code cell means, or None."""
    head, _, rest = dotted.partition(".")
    if head not in prefixes or not rest:
        return None
    return paths.get(f"{prefixes[head]}.{rest}")


def used_in(nb, prefixes: dict[str, str], paths: dict[str, str]) -> list[str]:
    """The documented paths a notebook's code calls, in order of first use."""
    found: dict[str, None] = {}
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, prefixes)) + r")((?:\.\w+)+)")
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for head, tail in pattern.findall(cell.source):
            parts = (head + tail).split(".")
            for end in range(len(parts), 1, -1):  # rk.plot.pr_curve.x: the longest documented prefix
                path = resolve(".".join(parts[:end]), prefixes, paths)
                if path:
                    found[path] = None
                    break
    return list(found)


def add_links(nb, used: list[str]) -> None:
    """Append "Functions used in this chapter" to a chapter's copy."""
    if not used:
        return
    items = [f"- {{py:obj}}`{p.replace('rankkit.', 'rk.', 1) if p.count('.') == 1 else p} <{p}>`" for p in used]
    nb.cells.append(nbformat.v4.new_markdown_cell("## Functions used in this chapter\n\n" + "\n".join(items)))


_LINK = re.compile(r"\[([^\]]*)\]\((\d\d_\w+\.ipynb)?(#[^)\s]*)?\)")


def fix_links(nb, chapters: set[str]) -> None:
    """Links between chapters as the book resolves them: a heading's anchor in MyST's spelling
    (lower case: ``#Where-the-sources-are-wrong`` -> ``#where-the-sources-are-wrong``), and a
    link to a chapter this edition leaves out (the students' has no checklist) as plain text."""
    def fix(match: re.Match) -> str:
        text, target, anchor = match.group(1), match.group(2) or "", (match.group(3) or "").lower()
        if target and target not in chapters:
            return text
        return f"[{text}]({target}{anchor})" if target or anchor else match.group(0)

    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = _LINK.sub(fix, cell.source)


def lay_out(notebooks: Path, out: Path) -> list[str]:
    """Write the book's sources into ``out``; return the chapters' names."""
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(DOCS, out, ignore=shutil.ignore_patterns("generate.py", "README.md", "__pycache__"))
    (out / "_includes").mkdir()
    for text in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md"):  # contributing.md, changelog.md include them
        shutil.copy(ROOT / text, out / "_includes" / text)
    paths = canonical_paths()
    (out / "metrics.md").write_text(metric_tables())
    (out / "api").mkdir()
    for page, text in api_pages(paths).items():
        (out / "api" / f"{page}.rst").write_text(text)
    chapters = sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))
    prefixes = notebook_prefixes(chapters)
    for path in chapters:
        nb = nbformat.read(path, as_version=4)
        fix_links(nb, {p.name for p in chapters})
        add_links(nb, used_in(nb, prefixes, paths))
        nbformat.write(nb, out / path.name)
    teachers = any(p.name.startswith("08_") for p in chapters)   # the students' edition has no checklist
    if not teachers:
        students_pages(out)
    page = out / "reproducing.md"
    page.write_text(page.read_text().replace("CHECKS", CHECKS if teachers else STUDENTS_CHECKS)
                    .replace("CHECKLIST", CHECKLIST if teachers else STUDENTS_CHECKLIST))
    (out / "_links.json").write_text(json.dumps({"paths": paths, "prefixes": prefixes}, indent=1))
    (out / "_chapters.txt").write_text("\n".join(p.stem for p in chapters) + "\n")
    return [p.stem for p in chapters]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", type=Path, help="folder of the chapters (notebooks/ or build/student)")
    parser.add_argument("out", type=Path, help="the Sphinx source folder to write")
    args = parser.parse_args(argv)
    chapters = lay_out(args.notebooks, args.out)
    print(f"{args.out}: {len(chapters)} chapters, {len(names.REGISTRY)} metrics, {len(API_PAGES)} API pages")


if __name__ == "__main__":
    main()
