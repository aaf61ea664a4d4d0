"""The texts speak of the project (what it does, with dates and figures), never of how the work
was organised: no "session 12", "issue 13" or "the fifth round" in the README, CONTRIBUTING.md,
CHANGELOG.md, the book's pages, the benchmarks, the package, the tests, the notebooks or the
build files. An upstream project's issue may be cited by its project's name
(``ir_measures' issue #18``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", ROOT / "benchmarks" / "README.md",
     ROOT / "data" / "README.md", ROOT / "Makefile", ROOT / ".ci" / "run", ROOT / "pyproject.toml"]
    + list((ROOT / "docs").glob("*.md")) + list((ROOT / "docs").glob("*.py"))
    + list((ROOT / "rankkit").rglob("*.py")) + list((ROOT / "benchmarks").glob("*.py"))
    + list((ROOT / "notebooks").glob("*.ipynb")) + list((ROOT / "notebooks").glob("*.py"))
    + [p for p in (ROOT / "tests").glob("*.py") if p.name != Path(__file__).name]
)
WORK_WORDS = re.compile(r"\b(?:session|sprint|ticket|issue)s?\s*#?\s*\d+|\b(?:first|second|third|fourth|fifth|sixth)"
                        r" round\b", re.IGNORECASE)
#: An upstream project's issue, cited by the project's name just before it.
UPSTREAM = re.compile(r"(?:ir_measures'|msmarco: its|GitHub)\s+issue\s+#\d+", re.IGNORECASE)


def work_words(text: str) -> list[str]:
    text = UPSTREAM.sub("", text)
    return [m.group(0) for m in WORK_WORDS.finditer(text)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_texts_do_not_speak_of_how_the_work_was_organised(path):
    if not path.exists():
        pytest.skip(f"{path.relative_to(ROOT)} is not in this checkout")
    assert work_words(path.read_text(encoding="utf-8")) == []


def test_the_check_finds_what_it_looks_for():
    assert work_words("as session 24 measured; issue 13's fifth round; Dask (issue #14)") == [
        "session 24", "issue 13", "fifth round", "issue #14"]
    assert work_words("ties as ir_measures' issue #18 says; 2,000 resamples per round; search sessions") == []
