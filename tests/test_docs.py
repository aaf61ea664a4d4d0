"""The book's generators (docs/generate.py) and the browser check's judgements (docs/check.py),
without building the site or starting a browser (`make docs-check` does that); and the
README's examples, run as written, each value and output they show checked."""

import ast
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
    for module in ("rankkit.plot", "rankkit.stats", "rankkit.dask", "rankkit.teaching.explore",
                   "rankkit.teaching.sources"):
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


def test_the_names_chapters_import_modules_as(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import rankkit as rk\nimport rankkit.plot as rkplot\nfrom rankkit.teaching import explore\n"
        "from rankkit import evaluate\nfrom rankkit.plot.style import PALETTE")])
    nbformat.write(nb, tmp_path / "01_x.ipynb")
    assert generate.notebook_prefixes([tmp_path / "01_x.ipynb"]) == {
        "rankkit": "rankkit", "rk": "rankkit", "rkplot": "rankkit.plot", "explore": "rankkit.teaching.explore"}


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


# --------------------------------------------------------------------------- the README's examples

ROOT = DOCS.parent
#: A fenced block: its language and its text.
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
NUMBER = r"-?\d+(?:\.\d+)?(?:e-?\d+)?"


def _blocks(path):
    """Every fenced block of a Markdown file: (language, text, line of its fence)."""
    text = path.read_text(encoding="utf-8")
    return [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(text)]


def _readme_examples(lang):
    """The README's blocks of one language, each with the output block that follows it (or None)."""
    blocks = _blocks(ROOT / "README.md")
    return [pytest.param(code, blocks[i + 1][1] if i + 1 < len(blocks) and blocks[i + 1][0] == "text" else None,
                         id=f"README.md:{line}")
            for i, (kind, code, line) in enumerate(blocks) if kind == lang]


def _expected(comment):
    """What a comment after an expression says it gives: ``0.8056 (...)`` -> [(None, 0.8056)];
    ``array([0.895 , 0.6309])`` -> [(0, 0.895), (1, 0.6309)]; ``nDCG@10 0.7468, AP 0.6613`` ->
    [("nDCG@10", 0.7468), ("AP", 0.6613)]; [] when it states no value."""
    listed = re.match(r"\w*\(?\[([^\]]*)\]", comment)
    if listed:
        return list(enumerate(re.findall(NUMBER, listed.group(1))))
    if re.match(NUMBER + r"\b", comment):
        return [(None, re.match(NUMBER, comment).group(0))]
    return [(name, value) for name, value in re.findall(rf"([\w@]+) ({NUMBER})(?=,|$)", comment.split(": ")[-1])]


def _agrees(value, shown):
    decimals = len(shown.partition(".")[2])
    return abs(float(value) - float(shown)) <= 0.5 * 10.0 ** -decimals + 1e-12


def _run_example(code):
    """Run a block statement by statement; an expression followed by a comment that states its
    value is checked against it (to the decimals shown). Returns what the block printed."""
    import contextlib
    import io
    import warnings

    namespace, out = {"__name__": "__readme__"}, io.StringIO()
    lines = code.splitlines()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the example's unscored queries, said in the text
        for node in ast.parse(code).body:
            source = ast.get_source_segment(code, node)
            if isinstance(node, ast.Expr) and "#" in lines[node.end_lineno - 1][node.end_col_offset:]:
                value = eval(compile(ast.Expression(node.value), "<README>", "eval"), namespace)
                comment = lines[node.end_lineno - 1][node.end_col_offset:].split("#", 1)[1].strip()
                for key, shown in _expected(comment):
                    got = value if key is None else value[key]
                    assert _agrees(got, shown), f"{source}: {got!r}, the README says {shown}"
            else:
                exec(compile(ast.Module([node], type_ignores=[]), "<README>", "exec"), namespace)
    return out.getvalue()


@pytest.mark.slow  # JAX compiles each operation at each new shape
@pytest.mark.parametrize("code, output", _readme_examples("python"))
def test_the_readme_python_examples_run_as_written(code, output, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples read data/
    for library in re.findall(r"^import (jax|torch)\b", code, re.M):
        pytest.importorskip(library)
    printed = _run_example(code)
    if output is not None:
        assert printed == output


@pytest.mark.parametrize("code, output", _readme_examples("console"))
def test_the_readme_commands_print_what_it_shows(code, output):
    import shlex
    import subprocess

    command, *shown = code.splitlines()
    assert command.startswith("$ rankkit ")
    args = shlex.split(command.removeprefix("$ rankkit "))
    done = subprocess.run([sys.executable, "-m", "rankkit", *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == shown


def test_the_example_checker_reads_the_comments():
    assert _expected("0.8056 (source 000's AP@5)") == [(None, "0.8056")]
    assert _expected("4.5 = 9/2 (pairs with equal labels left out)") == [(None, "4.5")]
    assert _expected("array([0.895 , 0.6309]): one per query") == [(0, "0.895"), (1, "0.6309")]
    assert _expected("trec_eval's all line: nDCG@10 0.7468, AP 0.6613") == [("nDCG@10", "0.7468"), ("AP", "0.6613")]
    assert _expected("one row per query") == []
    assert _agrees(0.80555, "0.8056") and not _agrees(0.8057, "0.8056")
    with pytest.raises(AssertionError, match="the README says 0.7"):
        _run_example("import rankkit as rk\nrk.precision([1, 0, 1, 1, 0], k=5)  # 0.7")
