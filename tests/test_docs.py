"""The book's generators (docs/generate.py) and the browser check's judgements (docs/check.py),
without building the site or starting a browser (`make docs-check` does that)."""

import importlib
import importlib.util
import re
import sys
from pathlib import Path

import nbformat
import pytest

import rankkit
from rankkit import names

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_docs_{name}", DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


generate = _load("generate")
check = _load("check")


@pytest.fixture(scope="module")
def paths():
    return generate.canonical_paths()


@pytest.fixture(scope="module")
def table():
    return generate.metric_tables()


@pytest.fixture(scope="module")
def pages(paths):
    return generate.api_pages(paths)


def _code_spans(text):
    return {span.replace("\\|", "|") for span in re.findall(r"`([^`]+)`", text)}


def test_the_metric_tables_hold_every_name_rankkit_accepts(table):
    spans = _code_spans(table)
    trec = {generate._trec_spelling(trec) for _, trec in names.TREC_FAMILIES.values()}
    for name in [*names.REGISTRY, *names.NAME_ALIASES, *names.IR_MEASURES, *trec, *names.NICKNAMES]:
        assert name in spans or any(span.startswith(name + "[@k]") or span.startswith(name + "(") or
                                    span.startswith(name + "@k") for span in spans), name
    assert {"ndcg_cut_k", "P_k", "map", "iprec_at_recall_x", "recip_rank", "Rprec_mult_x"} <= spans


def test_every_parameter_of_every_record_is_in_the_tables(table):
    for row in names.parameter_table():
        section = table.split(f"(metric-{row['metric']})=")[1].split("(metric-")[0]
        line = next(line for line in section.splitlines() if line.startswith(f"| `{row['name']}` |"))
        assert row["type"] in line and row["description"].replace("|", "\\|") in line


def test_every_record_links_to_a_documented_function(table, paths, pages):
    documented = {m for text in pages.values() for m in re.findall(r"^\.\. auto\w+:: (\S+)", text, re.M)}
    without = [name for name in names.REGISTRY if generate.function_path(name, paths) is None]
    assert without == ["runid", "num_q"]  # a tag and a count: no metric function
    for name in names.REGISTRY:
        path = generate.function_path(name, paths)
        if path is not None:
            assert path in documented, name
            assert f"<{path}>`" in table
    assert "{py:func}`rk.ndcg <rankkit.ndcg>`" in table


def test_every_public_object_is_documented_once(paths, pages):
    directives = [m for text in pages.values() for m in re.findall(r"^\.\. auto\w+:: (\S+)", text, re.M)]
    assert len(directives) == len(set(directives))
    for name in rankkit.__all__:
        assert paths[f"rankkit.{name}"] in directives, name
    assert paths["rankkit.metrics.graded.ndcg"] == "rankkit.ndcg"
    assert paths["rankkit.stats.compare"] == "rankkit.compare"
    for module in ("rankkit.plot", "rankkit.stats", "rankkit.dask", "rankkit.explore"):
        for name in importlib.import_module(module).__all__:
            assert f"{module}.{name}" in paths
    assert "rankkit.io.read_qrels" in paths and "rankkit.names.expand_metrics" in directives
    assert ".. autofunction:: rankkit.ndcg" in pages["metrics"]  # on its family's page


def test_chapters_link_the_functions_they_call(paths):
    prefixes = {"rankkit": "rankkit", "rk": "rankkit", "rkplot": "rankkit.plot"}
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("rk.ndcg([[3, 2]], k=2)\nrkplot.pr_curve(x)\nrk.plot.gain_discount()"),
        nbformat.v4.new_code_cell("rk.ndcg(y)  # again\nrk.not_a_name(1)\nnp.rk.ndcg"),
    ])
    used = generate.used_in(nb, prefixes, paths)
    assert used == ["rankkit.ndcg", "rankkit.plot.pr_curve", "rankkit.plot.gain_discount"]
    generate.add_links(nb, used)
    assert nb.cells[-1].source.startswith("## Functions used in this chapter")
    assert "{py:obj}`rk.ndcg <rankkit.ndcg>`" in nb.cells[-1].source


def test_links_between_chapters_follow_the_edition():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        "See [the errata](#Where-the-sources-are-wrong), [AP](02_average_precision.ipynb#Two-Means) "
        "and [the checklist](08_source_checklist.ipynb); [out](https://example.org/#X).")])
    generate.fix_links(nb, {"02_average_precision.ipynb"})
    assert nb.cells[0].source == ("See [the errata](#where-the-sources-are-wrong), "
                                  "[AP](02_average_precision.ipynb#two-means) and the checklist; "
                                  "[out](https://example.org/#X).")


def test_untypeset_math_is_found():
    page = check.Page("a.html", texts=["a price of $5 and $10", r"left \(x\) here", "$x_i$ too"],
                      math=[{"rendered": True, "text": "k"}, {"rendered": False, "text": r"\(k\)"}],
                      math_errors=["Undefined control sequence"])
    problems = check.untypeset(page)
    assert len(problems) == 4 and not any("$5" in p for p in problems)
    assert check.untypeset(check.Page("b.html", texts=["no math"], math=[{"rendered": True, "text": "k"}])) == []


def test_broken_links_are_found(tmp_path):
    (tmp_path / "api").mkdir()
    for name in ("index.html", "api/metrics.html", "api/index.html"):
        (tmp_path / name).write_text("")
    pages = {
        "index.html": check.Page("index.html", links=["api/metrics.html#rankkit.ndcg", "api/", "missing.html",
                                                      "api/metrics.html#nope", "https://doi.org/x", "#top"],
                                 ids={"top"}),
        "api/metrics.html": check.Page("api/metrics.html", links=["../index.html", "#rankkit.ndcg"],
                                       ids={"rankkit.ndcg"}),
        "api/index.html": check.Page("api/index.html"),
    }
    assert check.broken_links(pages, tmp_path) == ["index.html: link to a missing file: missing.html",
                                                   "index.html: link to a missing anchor: api/metrics.html#nope"]


def test_code_names_become_links():
    pytest.importorskip("jupyter_server_mathjax")  # conf.py serves its MathJax (the notebooks and docs extras)
    conf = _load("conf")
    pattern = conf._chain_pattern({"rk": "rankkit", "rkplot": "rankkit.plot"})
    html = ('<span class="n">rk</span><span class="o">.</span><span class="n">ndcg</span>'
            '<span class="p">(</span><span class="n">rkplot</span><span class="o">.</span><span class="n">x</span>'
            '<span class="n">np</span><span class="o">.</span><span class="n">rk</span>')
    assert [m.group(1) for m in pattern.finditer(html)] == ["rk", "rkplot"]
