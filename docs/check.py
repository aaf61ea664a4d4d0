"""Check the built book in a real browser: ``python docs/check.py build/docs [--screenshots DIR]``.

Serves the site on localhost (a thread of :mod:`http.server`) and opens every page in headless
Chromium (Debian's ``/usr/bin/chromium``, driven by Playwright, which downloads no browser of its
own), failing on:

- a console error or an uncaught exception on a page;
- a request to any host other than localhost (a script, stylesheet, font or image from the
  network); the request is refused, so the check itself never leaves the machine;
- math left untypeset: a ``\\(``, ``\\[`` or ``$...$`` left in the text, or a math element
  MathJax did not render (or rendered as an error);
- a broken internal link: an ``href`` to a page or file the site does not have, or to an anchor
  its page does not have;
- a search for ``ndcg`` (``search.html?q=ndcg``) that finds no page;
- CJK text not drawn with the book's CJK font (``_static/cjk.css``: rankkit's subset of Noto
  Sans CJK SC): on every page with CJK text, the font face must load, and Chromium's record of
  the fonts it drew each element's text with (DevTools' ``CSS.getPlatformFontsForNode``) must
  show every CJK character of the element drawn by that face. A character the subset lacks, a
  missing font file or a rule that names another font fails, whether the machine has a CJK
  font of its own (the page would look right here, not elsewhere) or none (empty boxes).

Screenshots of a few pages go to the screenshots folder, to be looked at.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
#: Pages to photograph: (file name, page, a selector to scroll into view or None for the top).
SCREENSHOTS = [
    ("index", "index.html", None),
    ("04_dcg_ndcg", "04_dcg_ndcg.html", "a.rk-code-link"),
    ("04_dcg_ndcg_math", "04_dcg_ndcg.html", ".MathJax_Display"),
    ("metrics", "metrics.html", None),
    ("api_metrics", "api/metrics.html", "[id='rankkit.ndcg']"),
    ("00_glossary", "00_start_here.html", "#glossary-the-sources-chinese-terms"),
    ("search_ndcg", "search.html?q=ndcg", None),
]

#: Text that MathJax should have typeset: \( \) or \[ \] delimiters, or $...$ (not a lone price).
UNTYPESET = re.compile(r"\\\(|\\\[|(?<![\w$])\$[^\s$][^$\n]{0,200}?\$(?![\w$])")

#: Sphinx's math elements (not the spans MathJax's output puts inside them, also of class math).
MATH = "span.math.notranslate, div.math.notranslate"

# Collect, in the page, what the checks need: text outside code and math, the math elements'
# state, the links, the ids.
_COLLECT = """() => {
  const skip = 'pre, code, script, style, textarea, .MathJax, .MathJax_Display, .MathJax_Preview, mjx-container,'
             + ' .highlight, .math, .sig, .classifier';  // signatures and numpydoc's types: values, not prose
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent && !parent.closest(skip) && node.textContent.trim()) texts.push(node.textContent);
  }
  const math = [...document.querySelectorAll(MATH)].map(e => ({
    rendered: !!e.querySelector('.MathJax, .MathJax_Display, mjx-container, script[type^="math/tex"]')
              || !!(e.nextElementSibling && e.nextElementSibling.matches('script[type^="math/tex"]')),
    text: e.textContent.slice(0, 80)}));
  const errors = [...document.querySelectorAll('.MathJax_Error, merror, [data-mjx-error]')]
                 .map(e => e.textContent.slice(0, 80));
  const links = [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'));
  const ids = [...document.querySelectorAll('[id]')].map(e => e.id)
              .concat([...document.querySelectorAll('a[name]')].map(a => a.name));
  return {texts, math, errors, links, ids};
}""".replace("MATH", repr(MATH))

# Wait until MathJax 2 has typeset the page (immediately when the page has no math).
# Wait until MathJax 2 has typeset the page: its queue empty after startup (at once without math).
_TYPESET = """() => new Promise(resolve => {
  if (!document.querySelector(MATH)) return resolve('no math');
  const started = Date.now();
  const poll = () => {
    const hub = window.MathJax && MathJax.Hub;
    if (hub && MathJax.isReady && hub.queue.pending === 0 && hub.queue.running === 0) resolve('typeset');
    else if (Date.now() - started > 30000) resolve('MathJax did not finish');
    else setTimeout(poll, 100);
  };
  poll();
})""".replace("MATH", repr(MATH))

#: MathJax 2's HTML-CSS output probes font loading with an @font-face of src about:blank, which
#: Chromium reports as a CORS error: no request is made (about:blank is not a network address).
IGNORED_CONSOLE = ("Access to font at 'about:blank'", "Failed to load resource: net::ERR_FAILED")
#: The TeX fonts jupyter-server-mathjax does not ship (it ships STIX-Web): HTML-CSS asks for the
#: AMS font for a few symbols and, missing, draws them from the STIX-Web or a system font. Noted,
#: not failed: a local file that is absent, not a request leaving the machine.
KNOWN_ABSENT = "/_static/mathjax/fonts/HTML-CSS/TeX/"

#: The stylesheet that declares the book's CJK font face (docs/_static/cjk.css).
CJK_CSS = "_static/cjk.css"

# Mark each rendered element whose own text has CJK characters with the number of CJK characters
# drawn in its subtree (data-cjk-count: Chromium reports the fonts of a node's whole subtree), load
# the CJK face for them and wait for the page's fonts; return the counts in document order, the
# characters and the status of every FontFace of that family.
_CJK_MARK = """async ([pattern, family]) => {
  const cjk = new RegExp(pattern, 'gu');
  const own = [], chars = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    const found = node.textContent.match(cjk);
    if (!found || !parent || parent.closest('script, style, noscript, template')) continue;
    if (!parent.checkVisibility({visibilityProperty: true})) continue;  // not drawn: nothing to check
    own.push([parent, found.length]);
    found.forEach(c => chars.add(c));
  }
  const counts = new Map(own.map(([element]) => [element, 0]));
  for (const [parent, n] of own) {
    for (let e = parent; e; e = e.parentElement) if (counts.has(e)) counts.set(e, counts.get(e) + n);
  }
  counts.forEach((n, element) => element.setAttribute('data-cjk-count', n));
  if (chars.size) {
    try { await document.fonts.load(`16px "${family}"`, [...chars].join('')); } catch (error) {}
  }
  await document.fonts.ready;
  const unquote = name => name.replace(/^["']|["']$/g, '');
  const marked = [...document.querySelectorAll('[data-cjk-count]')];
  return {counts: marked.map(e => +e.dataset.cjkCount), texts: marked.map(e => e.textContent.trim().slice(0, 40)),
          total: own.reduce((sum, [, n]) => sum + n, 0), chars: [...chars].join(''),
          faces: [...document.fonts].filter(f => unquote(f.family) === family).map(f => f.status)};
}"""


@dataclass(frozen=True)
class CjkFace:
    """The book's CJK font face as its stylesheet declares it: the family and its unicode-range."""

    family: str
    ranges: tuple[tuple[int, int], ...]

    def pattern(self) -> str:
        """A JavaScript regular expression (flag ``u``) of one character in the face's range."""
        return "[" + "".join(f"\\u{{{low:X}}}-\\u{{{high:X}}}" for low, high in self.ranges) + "]"


def cjk_face(site: Path) -> CjkFace | None:
    """The face ``_static/cjk.css`` declares (None without that file or without a unicode-range)."""
    css = site / CJK_CSS
    if not css.is_file():
        return None
    rule = re.search(r"@font-face\s*{(.*?)}", css.read_text(), re.S)
    family = rule and re.search(r"font-family:\s*[\"']([^\"']+)[\"']", rule.group(1))
    ranges = rule and re.search(r"unicode-range:([^;]+);", rule.group(1))
    if not (family and ranges):
        return None
    pairs = re.findall(r"U\+([0-9A-Fa-f]+)(?:-([0-9A-Fa-f]+))?", ranges.group(1))
    return CjkFace(family.group(1), tuple((int(low, 16), int(high or low, 16)) for low, high in pairs))


def _cjk_fonts(context, tab, face: CjkFace) -> dict:
    """How the page drew its CJK text: per element, the CJK characters and the glyphs the face
    drew (Chromium's record of the fonts used, through DevTools), and the face's load status."""
    found = tab.evaluate(_CJK_MARK, [face.pattern(), face.family])
    drawn, others = [], Counter()
    if found["counts"]:
        cdp = context.new_cdp_session(tab)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        nodes = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": "[data-cjk-count]"})["nodeIds"]
        for node, expected in zip(nodes, found["counts"]):
            fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
            ours = sum(f["glyphCount"] for f in fonts if f["isCustomFont"] and f["familyName"] == face.family)
            drawn.append(ours)
            if ours < expected:
                others.update({f["familyName"]: f["glyphCount"] for f in fonts if f["familyName"] != face.family})
        cdp.detach()
    return {**found, "drawn": drawn, "others": others}


def cjk_problems(pages: dict[str, Page], face: CjkFace | None) -> list[str]:
    """Pages whose CJK text the book's CJK face did not draw (or could not: not declared, not loaded)."""
    if face is None:
        return [f"{CJK_CSS} declares no CJK font face with a unicode-range: CJK text falls back to the reader's fonts"]
    problems = []
    for page in pages.values():
        cjk = page.cjk
        if not cjk.get("counts"):
            continue
        if "loaded" not in cjk["faces"]:
            problems.append(f"{page.path}: the CJK font face {face.family!r} did not load (status: "
                            f"{', '.join(cjk['faces']) or 'not declared on this page'})")
        short = [text for n, d, text in zip(cjk["counts"], cjk["drawn"], cjk["texts"]) if d < n]
        if short:
            fonts = ", ".join(f"{name} ({count} glyphs)" for name, count in cjk["others"].most_common(4))
            problems.append(f"{page.path}: {len(short)} of {len(cjk['counts'])} elements with CJK text not drawn "
                            f"with {face.family!r}, e.g. {short[-1]!r} (fonts used there: {fonts or 'none'})")
    return problems


@dataclass
class Page:
    """What one page showed the browser."""

    path: str
    texts: list[str] = field(default_factory=list)
    math: list[dict] = field(default_factory=list)
    math_errors: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    console: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    cjk: dict = field(default_factory=dict)


def untypeset(page: Page) -> list[str]:
    """The math a page left as source: delimiters in its text, math elements MathJax skipped or failed."""
    problems = [f"{page.path}: untypeset math in text: {m.group(0)[:60]!r}"
                for text in page.texts for m in UNTYPESET.finditer(text)]
    problems += [f"{page.path}: math element not typeset: {m['text']!r}" for m in page.math if not m["rendered"]]
    problems += [f"{page.path}: MathJax error: {text!r}" for text in page.math_errors]
    return problems


def broken_links(pages: dict[str, Page], site: Path) -> list[str]:
    """Internal links to a missing page or file, or to an anchor their page lacks."""
    problems = []
    for page in pages.values():
        for href in page.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
                continue  # a link out is the reader's to follow; nothing is fetched
            target = unquote(urlsplit(urljoin(page.path, parts.path)).path) if parts.path else page.path
            if target.endswith("/"):
                target += "index.html"
            if not (site / target).is_file():
                problems.append(f"{page.path}: link to a missing file: {href}")
            elif parts.fragment and target in pages and unquote(parts.fragment) not in pages[target].ids:
                problems.append(f"{page.path}: link to a missing anchor: {href}")
    return problems


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``site`` on a free localhost port, in a daemon thread."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def handle(self) -> None:
            try:
                super().handle()
            except (BrokenPipeError, ConnectionResetError):  # the browser closed a tab mid-download
                pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def _visit(context, base: str, path: str, face: CjkFace | None) -> Page:
    page = Page(path)
    tab = context.new_page()
    tab.on("console", lambda msg: page.console.append(f"{msg.type}: {msg.text}")
           if msg.type == "error" and not msg.text.startswith(IGNORED_CONSOLE)
           and KNOWN_ABSENT not in msg.location.get("url", "") else None)
    tab.on("pageerror", lambda error: page.console.append(f"uncaught: {error}"))
    tab.on("response", lambda response: (page.notes if KNOWN_ABSENT in response.url else page.console).append(
           f"HTTP {response.status}: {response.url}") if response.status >= 400 else None)
    tab.goto(base + path, wait_until="load")
    state = tab.evaluate(_TYPESET)
    if state not in ("typeset", "no math"):
        page.console.append(state)
    found = tab.evaluate(_COLLECT)
    page.texts, page.math, page.math_errors, page.links = found["texts"], found["math"], found["errors"], found["links"]
    page.ids = set(found["ids"])
    if face is not None:
        page.cjk = _cjk_fonts(context, tab, face)
    tab.close()
    return page


def _search(context, base: str, query: str) -> int:
    """How many pages the site's search lists for ``query``."""
    tab = context.new_page()
    tab.goto(f"{base}search.html?q={query}", wait_until="load")
    try:
        tab.wait_for_function("() => document.querySelectorAll('#search-results li').length > 0", timeout=15000)
    except Exception:  # noqa: BLE001 (Playwright's timeout: no result)
        pass
    count = tab.evaluate("() => document.querySelectorAll('#search-results li').length")
    tab.close()
    return count


def _screenshots(context, base: str, folder: Path) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    taken = []
    for name, path, selector in SCREENSHOTS:
        tab = context.new_page()
        tab.goto(base + path, wait_until="load")
        tab.evaluate(_TYPESET)
        tab.evaluate("() => document.fonts.ready.then(() => true)")
        if path.startswith("search"):
            tab.wait_for_timeout(1500)
        if selector:  # the first element matching, near the top of the window
            tab.evaluate("""(selector) => { const e = document.querySelector(selector);
                            if (e) { e.scrollIntoView(); window.scrollBy(0, -120); } }""", selector)
        tab.screenshot(path=str(folder / f"{name}.png"))
        taken.append(str(folder / f"{name}.png"))
        tab.close()
    return taken


def check(site: Path, screenshots: Path | None = None) -> list[str]:
    """Every problem the browser found in the site (an empty list: the site passes)."""
    from playwright.sync_api import sync_playwright

    server, base = serve(site)
    outside: list[str] = []

    def route(request_route) -> None:
        host = urlsplit(request_route.request.url).hostname
        if request_route.request.url.startswith(("data:", "blob:")) or host in LOCAL_HOSTS:
            request_route.continue_()
        else:
            outside.append(request_route.request.url)
            request_route.abort()

    paths = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                   if not p.relative_to(site).parts[0].startswith("_"))
    pages: dict[str, Page] = {}
    face = cjk_face(site)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.route("**/*", route)
            for path in paths:
                pages[path] = _visit(context, base, path, face)
            hits = _search(context, base, "ndcg")
            if screenshots is not None:
                print("screenshots:", *_screenshots(context, base, screenshots), sep="\n  ")
            browser.close()
    finally:
        server.shutdown()
    problems = [f"{p.path}: console {line}" for p in pages.values() for line in p.console]
    problems += [f"request leaving the machine: {url}" for url in sorted(set(outside))]
    problems += [line for p in pages.values() for line in untypeset(p)]
    problems += broken_links(pages, site)
    problems += cjk_problems(pages, face)
    if hits == 0:
        problems.append("search.html?q=ndcg: no page found")
    for line in sorted({re.sub(r"https?://[^/]+", "", n) for p in pages.values() for n in p.notes}):
        print("note (known, not a failure):", line)
    print(f"{len(pages)} pages, {sum(len(p.links) for p in pages.values())} links, "
          f"{sum(len(p.math) for p in pages.values())} math elements; search 'ndcg': {hits} pages")
    with_cjk = [p.cjk for p in pages.values() if p.cjk.get("counts")]
    print(f"CJK text on {len(with_cjk)} pages: {sum(len(c['counts']) for c in with_cjk)} elements, "
          f"{sum(c['total'] for c in with_cjk)} characters ({len(set(''.join(c['chars'] for c in with_cjk)))} "
          f"distinct), each element's drawn with {face.family if face else 'no CJK face'!r}: "
          f"{sum(d >= n for c in with_cjk for n, d in zip(c['counts'], c['drawn']))} elements")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="the built book (build/docs)")
    parser.add_argument("--screenshots", type=Path, default=None, help="folder for screenshots of a few pages")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site}/index.html not found: build the book first (make docs)")
    start = time.perf_counter()
    problems = check(args.site, args.screenshots)
    for line in problems:
        print("FAIL", line)
    print(f"docs-check: {len(problems)} problems ({time.perf_counter() - start:.0f} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
