"""The articles are cited once (rankkit.sources); modules cite them by short name."""

import re
from pathlib import Path

import rankkit.sources

PACKAGE = Path(rankkit.sources.__file__).parent
SHORT_NAMES = re.findall(r"^- \*([^*]+)\*:", rankkit.sources.__doc__, flags=re.MULTILINE)


def test_the_five_articles_are_listed():
    assert SHORT_NAMES == ["the guide to ranking metrics", "abs_zero's article", "Jason's notes on AP",
                           "Wang Shusen's slides", "the NDCG article"]


def test_modules_cite_listed_articles_by_short_name_only():
    cited = set()
    for path in PACKAGE.rglob("*.py"):
        if path.name == "sources.py":
            continue
        text = path.read_text(encoding="utf-8")
        if "rankkit.sources" in text:
            doc = text[: text.index('"""', 3)]
            listed = doc[doc.index("rankkit.sources"):]
            names = re.findall(r"\*([^*]+)\*", listed[: listed.index(")")])  # the list after the pointer
            assert names and set(names) <= set(SHORT_NAMES), (path.name, names)
            cited |= set(names)
        assert "Cited as *" not in text, path.name  # the full citations live in rankkit.sources
    assert cited == set(SHORT_NAMES)
