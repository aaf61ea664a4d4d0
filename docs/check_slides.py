"""Check the course's slides in a real browser: ``python docs/check_slides.py build/slides [--screenshots DIR]``.

Serves the decks ``docs/slides.py`` wrote on localhost and opens each ``weekN.html`` and
``index.html`` in headless Chromium (Debian's, through Playwright, as ``docs/check.py`` does
for the book), failing on:

- reveal.js not started (``Reveal.isReady()`` false), a deck of one slide, or a deck whose
  slide count differs from the one ``docs/slides.py`` computes from the notebooks now;
- a request to any host other than localhost (it is refused, so the check never leaves the
  machine);
- a console error or an uncaught exception, on load or while every slide is visited;
- math left untypeset (``$...$``, ``\\(`` or ``\\[`` in the text) or a MathJax error, and a
  deck whose notebooks have formulas but where MathJax typeset none;
- a deck with Chinese text where rankkit's CJK font was not loaded.

Screenshots of a few slides go to the screenshots folder, to be looked at.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import slides
from check import ARGS, CHROMIUM, IGNORED_CONSOLE, UNTYPESET, serve

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
#: MathJax 2 asks for TeX fonts jupyter-server-mathjax does not ship (it ships STIX-Web), and
#: draws the few symbols from STIX-Web instead: a local file that is absent, noted, not failed.
KNOWN_ABSENT = "/mathjax/fonts/HTML-CSS/TeX/"
#: (file name, deck, horizontal index of the slide or a selector of an element to show).
SCREENSHOTS = [("week1_title", "week1.html", 0), ("week2_math", "week2.html", ".MathJax_Display"),
               ("week2_figure", "week2.html", ".jp-OutputArea-output img"),
               ("week4_table", "week4.html", ".jp-OutputArea-output table")]

_READY = "() => window.Reveal && Reveal.isReady()"
# MathJax 2's queue empty after its start-up (at once on a page without MathJax).
_TYPESET = """() => new Promise(resolve => {
  const started = Date.now();
  const poll = () => {
    const hub = window.MathJax && MathJax.Hub;
    if (!hub) return resolve('no MathJax');
    if (MathJax.isReady && hub.queue.pending === 0 && hub.queue.running === 0) resolve('typeset');
    else if (Date.now() - started > 60000) resolve('MathJax did not finish');
    else setTimeout(poll, 100);
  };
  poll();
})"""
_COLLECT = """() => {
  const skip = 'pre, code, script, style, .MathJax, .MathJax_Display, .MathJax_Preview, .highlight';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent && !parent.closest(skip) && node.textContent.trim()) texts.push(node.textContent);
  }
  return {texts,
          math: document.querySelectorAll('script[type^="math/tex"]').length,
          errors: [...document.querySelectorAll('.MathJax_Error, merror')].map(e => e.textContent.slice(0, 80)),
          cjk: [...document.fonts].some(f => f.family.replace(/"/g, '') === 'rankkit CJK' && f.status === 'loaded'),
          total: window.Reveal ? Reveal.getTotalSlides() : 0,
          horizontal: window.Reveal ? Reveal.getHorizontalSlides().length : 0};
}"""
# Visit every slide, top level and below, as a presenter would.
_VISIT = """() => { let n = 0;
  Reveal.getHorizontalSlides().forEach((h, i) => {
    const below = h.querySelectorAll(':scope > section').length || 1;
    for (let j = 0; j < below; j++) { Reveal.slide(i, j); n++; }
  });
  Reveal.slide(0, 0); return n; }"""


def _listen(tab, problems: list[str], notes: list[str], name: str) -> None:
    def console(msg) -> None:
        if msg.type == "error" and not msg.text.startswith(IGNORED_CONSOLE) \
                and KNOWN_ABSENT not in msg.location.get("url", ""):
            problems.append(f"{name}: console {msg.type}: {msg.text}")

    tab.on("console", console)
    tab.on("pageerror", lambda error: problems.append(f"{name}: uncaught: {error}"))
    tab.on("response", lambda response: (notes if KNOWN_ABSENT in response.url else problems).append(
        f"{name}: HTTP {response.status}: {urlsplit(response.url).path}") if response.status >= 400 else None)


def check_deck(context, base: str, name: str, expected: tuple[int, int] | None, has_math: bool,
               notes: list[str], cjk: bool = False) -> tuple[list[str], dict]:
    """The problems of one deck, and what it showed (slides, math)."""
    problems: list[str] = []
    tab = context.new_page()
    _listen(tab, problems, notes, name)
    tab.goto(base + name, wait_until="load")
    found: dict = {"total": 0, "horizontal": 0, "math": 0}
    if name != "index.html":
        try:
            tab.wait_for_function(_READY, timeout=30000)
        except Exception:  # noqa: BLE001 (Playwright's timeout)
            problems.append(f"{name}: reveal.js did not start (Reveal.isReady() false after 30 s)")
            tab.close()
            return problems, found
        state = tab.evaluate(_TYPESET)
        if state != "typeset":
            problems.append(f"{name}: {state}")
        tab.evaluate(_VISIT)
        tab.evaluate(_TYPESET)
    found = {**found, **tab.evaluate(_COLLECT)}
    problems += [f"{name}: untypeset math in text: {m.group(0)[:60]!r}"
                 for text in found.get("texts", []) for m in UNTYPESET.finditer(text)]
    problems += [f"{name}: MathJax error: {e!r}" for e in found.get("errors", [])]
    if name != "index.html":
        if found["total"] <= 1:
            problems.append(f"{name}: {found['total']} slide(s)")
        if expected is not None and (found["horizontal"], found["total"]) != expected:
            problems.append(f"{name}: {found['horizontal']} slides, {found['total']} with sub-slides; the "
                            f"notebooks give {expected[0]}, {expected[1]} (rebuild: make slides)")
        if has_math and found["math"] == 0:
            problems.append(f"{name}: its notebooks have formulas but no math was typeset")
        if cjk and not found["cjk"]:
            problems.append(f"{name}: Chinese text, but the CJK font (fonts/rankkit-cjk.otf) was not loaded")
    tab.close()
    return problems, found


def _screenshots(context, base: str, folder: Path) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    taken = []
    for shot, deck, where in SCREENSHOTS:
        tab = context.new_page()
        tab.goto(base + deck, wait_until="load")
        try:
            tab.wait_for_function(_READY, timeout=30000)
        except Exception:  # noqa: BLE001 (Playwright's timeout: check_deck has reported it)
            tab.close()
            continue
        tab.evaluate(_TYPESET)
        if isinstance(where, int):
            tab.evaluate(f"() => Reveal.slide({where}, 0)")
        else:  # the slide holding the first element matching
            tab.evaluate("""(selector) => { const e = document.querySelector(selector);
              if (e) { const s = Reveal.getIndices(e.closest('section')); Reveal.slide(s.h, s.v, 99); } }""", where)
        tab.wait_for_timeout(600)
        tab.evaluate(_TYPESET)
        tab.screenshot(path=str(folder / f"{shot}.png"))
        taken.append(str(folder / f"{shot}.png"))
        tab.close()
    return taken


def expectations(notebooks: Path = slides.NOTEBOOKS) -> dict[str, tuple[tuple[int, int], bool, bool]]:
    """Deck file -> ((slides, with sub-slides), whether its cells have formulas, whether Chinese text),
    from the notebooks now."""
    found = {}
    for week in slides.read_weeks(slides.SYLLABUS.read_text()):
        nb, _ = slides.deck(week, notebooks)
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        found[f"week{week.number}.html"] = (slides.slide_counts(nb), bool(re.search(r"\$[^$\n]+\$", text)),
                                            bool(re.search(r"[\u4e00-\u9fff]", text)))
    return found


def check(folder: Path, screenshots: Path | None = None) -> list[str]:
    """Every problem found in the decks (an empty list: they pass)."""
    from playwright.sync_api import sync_playwright

    expected = expectations()
    missing = [name for name in [*expected, "index.html"] if not (folder / name).is_file()]
    if missing:
        return [f"{folder}: no {name} (make slides)" for name in missing]
    server, base = serve(folder)
    outside: list[str] = []
    problems: list[str] = []
    notes: list[str] = []

    def route(request_route) -> None:
        url = request_route.request.url
        if url.startswith(("data:", "blob:")) or urlsplit(url).hostname in LOCAL_HOSTS:
            request_route.continue_()
        else:
            outside.append(url)
            request_route.abort()

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            context.route("**/*", route)
            for name, (counts, math, cjk) in [*expected.items(), ("index.html", (None, False, False))]:
                found_problems, found = check_deck(context, base, name, counts, math, notes, cjk)
                problems += found_problems
                if name != "index.html":
                    print(f"{name}: {found['horizontal']} slides, {found['total']} with sub-slides, "
                          f"{found['math']} formulas typeset")
            if screenshots is not None:
                print("screenshots:", *_screenshots(context, base, screenshots), sep="\n  ")
            browser.close()
    finally:
        server.shutdown()
    for line in sorted(set(notes)):
        print("note (known, not a failure):", line)
    return problems + [f"request leaving the machine: {url}" for url in sorted(set(outside))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the built decks (build/slides)")
    parser.add_argument("--screenshots", type=Path, default=None, help="folder for screenshots of a few slides")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    problems = check(args.folder, args.screenshots)
    for line in problems:
        print("FAIL", line)
    print(f"slides-check: {len(problems)} problems ({time.perf_counter() - start:.0f} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
