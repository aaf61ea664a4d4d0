"""Sphinx configuration of the book (docs/README.md says why this tool chain).

The source folder is the one ``docs/generate.py`` lays out (build/docs-src): these pages, the
chapters, the generated metric tables and API pages. Build with ``make docs``.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import jupyter_server_mathjax

import rankkit
from rankkit.plot.fonts import FONT as CJK_FONT

project = "rankkit"
author = "rankkit's authors"
copyright = "rankkit's authors, MIT licence"  # noqa: A001 (Sphinx's name)
release = version = rankkit.__version__

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.mathjax", "numpydoc"]
exclude_patterns = ["_includes", "_build", "**.ipynb_checkpoints", "_links.json", "_chapters.txt"]
root_doc = "index"
language = "en"

# The chapters as stored: their outputs are the ones nbval checks in `make test`, so the book
# shows exactly what is tested (and builds without a kernel).
nb_execution_mode = "off"
# Checks as `make demo` shows them: `remove-input` cells show their output only, `remove-cell`
# cells are left out (myst-nb reads these tags itself).
nb_remove_code_source = False
# The explorers' widget views need a live kernel and scripts from a CDN: show their still
# figure instead, and load no widget script.
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]
nb_ipywidgets_js: dict = {}
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
# Notebooks number their own sections; their headings may skip a level.
suppress_warnings = ["myst.header"]

# Math typeset offline by the MathJax 2 that jupyter-server-mathjax ships (copied next to the
# pages below); MyST's dollar math and Sphinx's math both reach it as \( \) and \[ \].
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"
mathjax2_config = {
    "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]], "processEscapes": True},
    # the fonts jupyter-server-mathjax ships (STIX-Web only: no TeX fonts, no image fonts)
    # the fonts jupyter-server-mathjax ships (STIX-Web only: no TeX fonts, no image fonts)
    "HTML-CSS": {"availableFonts": [], "preferredFont": None, "webFont": "STIX-Web", "imageFont": None},
    "fast-preview": {"disabled": True},  # one pass, HTML-CSS (the preview's layout differs)
    "showMathMenu": False,
    "messageStyle": "none",
}
myst_update_mathjax = False
MATHJAX = Path(jupyter_server_mathjax.__file__).parent / "static"

autodoc_typehints = "none"  # numpydoc's Parameters give the types, in words
autodoc_member_order = "bysource"
autodoc_default_options = {"exclude-members": "__init__, __new__"}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "sphinx_book_theme"
html_title = f"rankkit {release}"
html_static_path = ["_static"]
# cjk.css: the Chinese text in rankkit's CJK font (a subset of Noto Sans CJK SC), copied beside it below
html_css_files = ["book.css", "cjk.css"]
html_favicon = "_static/favicon.svg"  # else the browser asks for /favicon.ico, which the site has not
html_theme_options = {
    "show_toc_level": 2,
    "use_download_button": False,  # the notebooks are in the repository; the site stays small
    "use_fullscreen_button": False,
    "home_page_in_toc": True,
    "navigation_with_keys": False,
}
# The theme's colour mode before the reader picks one (pydata-sphinx-theme reads it from the context).
html_context = {"default_mode": "light"}
html_last_updated_fmt = None
html_copy_source = False  # the search's summaries read the pages themselves (keep_search_text below)

# --- links from code cells to the reference -------------------------------------------------

_LINKS = json.loads((Path(__file__).parent / "_links.json").read_text()) if (
    Path(__file__).parent / "_links.json").exists() else {"paths": {}, "prefixes": {}}
_NAME = r'<span class="n[a-z]*">({word})</span>'
_DOT = r'<span class="o">\.</span>'


def _chain_pattern(prefixes) -> re.Pattern:
    """A name chain as Pygments writes it: ``rk.ndcg``, ``rkplot.pr_curve``, ``rankkit.stats.compare``."""
    heads = "|".join(map(re.escape, sorted(prefixes, key=len, reverse=True))) or "(?!)"
    link = f"(?:{_DOT}" + _NAME.format(word=r"\w+") + ")"
    return re.compile(_NAME.format(word=heads) + f"({link}+)")


def link_code(app, pagename, templatename, context, doctree) -> None:
    """Make each ``rk.name`` of a code cell a link to its API entry (one click from a chapter)."""
    if doctree is None or "body" not in context or not _LINKS["prefixes"]:
        return
    objects = app.env.get_domain("py").objects
    pattern = _chain_pattern(_LINKS["prefixes"])

    def replace(match: re.Match) -> str:
        parts = [match.group(1), *re.findall(r'<span class="n[a-z]*">(\w+)</span>', match.group(2))]
        for end in range(len(parts), 1, -1):
            path = _LINKS["paths"].get(".".join([_LINKS["prefixes"][parts[0]], *parts[1:end]]))
            if path in objects:
                entry = objects[path]
                uri = app.builder.get_relative_uri(pagename, entry.docname) + "#" + entry.node_id
                text = match.group(0)
                cut = [m.end() for m in re.finditer(r"</span>", text)][2 * end - 2]  # the chain's first `end` names
                return (f'<a class="reference internal rk-code-link" href="{html.escape(uri)}" '
                        f'title="{path}">{text[:cut]}</a>{text[cut:]}')
        return match.group(0)

    context["body"] = pattern.sub(replace, context["body"])


def copy_mathjax(app, exception) -> None:
    """MathJax beside the pages: the book needs no network."""
    if exception is None and app.builder.format == "html":
        shutil.copytree(MATHJAX, Path(app.outdir) / "_static" / "mathjax", dirs_exist_ok=True)


def copy_cjk_font(app, exception) -> None:
    """rankkit's CJK font and its licence into _static/fonts/, where cjk.css finds them."""
    if exception is None and app.builder.format == "html":
        fonts = Path(app.outdir) / "_static" / "fonts"
        fonts.mkdir(parents=True, exist_ok=True)
        for path in (CJK_FONT, CJK_FONT.parent / "OFL.txt"):
            shutil.copy2(path, fonts / path.name)


#: Each page's main text (its HTML without images, scripts or styles), for the search page's
#: summaries when the book is read from disk: _static/search_text.js says why.
_SEARCH_PAGES: dict[str, str] = {}
_NOT_TEXT = re.compile(r"<(script|style|svg)\b.*?</\1>|<a class=\"headerlink\".*?</a>|<img\b[^>]*>"
                       r"|<(?!/?(?:div|section|span|p|h[1-6]|li|dt|dd)\b)[^>]*>", re.S | re.I)


def keep_search_text(app, pagename, templatename, context, doctree) -> None:
    """Keep each page's text; give the search page the scripts that read it back."""
    if doctree is not None and "body" in context:
        _SEARCH_PAGES[pagename + app.builder.link_suffix] = _NOT_TEXT.sub("", context["body"])
    if pagename == "search":
        app.add_js_file("search_pages.js")
        app.add_js_file("search_text.js")


def write_search_text(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        text = "window.RK_SEARCH_PAGES = " + json.dumps(_SEARCH_PAGES, ensure_ascii=False) + ";\n"
        (Path(app.outdir) / "_static" / "search_pages.js").write_text(text, encoding="utf-8")


def setup(app) -> None:
    app.connect("html-page-context", keep_search_text)
    app.connect("build-finished", write_search_text)
    app.connect("html-page-context", link_code)
    app.connect("build-finished", copy_mathjax)
    app.connect("build-finished", copy_cjk_font)
