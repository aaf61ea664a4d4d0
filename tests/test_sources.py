"""The articles are cited once (rankkit.teaching.sources); modules cite them by short name."""

import re
from pathlib import Path

import rankkit.teaching.sources

SOURCES = Path(rankkit.teaching.sources.__file__)
PACKAGE = SOURCES.parents[1]
SHORT_NAMES = re.findall(r"^- \*([^*]+)\*:", rankkit.teaching.sources.__doc__, flags=re.MULTILINE)
POINTER = "rankkit.teaching.sources"

#: Modules whose docstring still points to the list by its former path, rankkit.sources: each
#: is deleted from here when its pointer names rankkit.teaching.sources
#: (test_the_list_of_former_pointers_is_current fails on an entry left behind).
FORMER_POINTER: set[str] = set()


def modules():
    return {path.relative_to(PACKAGE).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(PACKAGE.rglob("*.py")) if path != SOURCES}


def former(text: str) -> bool:
    return re.search(r"rankkit\.sources\b", text) is not None


def test_the_five_articles_are_listed():
    assert SHORT_NAMES == ["the guide to ranking metrics", "abs_zero's article", "Jason's notes on AP",
                           "Wang Shusen's slides", "the NDCG article"]
    assert list(rankkit.teaching.sources.SOURCES) == SHORT_NAMES


def test_modules_cite_listed_articles_by_short_name_only():
    cited = set()
    for name, text in modules().items():
        pointer = POINTER if POINTER in text else "rankkit.sources" if name in FORMER_POINTER else None
        # the engine's modules cite; the teaching package's own index names the module only
        if pointer is not None and pointer in text and not name.startswith("teaching/"):
            doc = text[: text.index('"""', 3)]
            listed = doc[doc.index(pointer):]
            names = re.findall(r"\*([^*]+)\*", listed[: listed.index(")")])  # the list after the pointer
            assert names and set(names) <= set(SHORT_NAMES), (name, names)
            cited |= set(names)
        assert "Cited as *" not in text, name  # the full citations live in rankkit.teaching.sources
    assert cited == set(SHORT_NAMES)


def test_no_module_points_to_the_former_path():
    assert sorted(name for name, text in modules().items() if former(text) and name not in FORMER_POINTER) == []


def test_the_list_of_former_pointers_is_current():
    assert sorted(name for name, text in modules().items() if name in FORMER_POINTER and not former(text)) == []
