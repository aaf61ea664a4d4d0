"""Make the CJK font of the figures and the book: ``python docs/cjk_font.py [--source FONT]``.

The lessons quote their Chinese sources, so figures and pages show Chinese text; a reader's
machine may have no CJK font and would draw empty boxes ("tofu"). rankkit ships a subset of
Noto Sans CJK SC Regular (SIL Open Font License 1.1) that holds exactly the CJK characters
the repository's text uses: this script collects them from ``notebooks/``, ``docs/``,
``rankkit/``, ``data/`` and the files the book includes (``CHANGELOG.md``, ``CONTRIBUTING.md``)
and writes the subset to ``rankkit/plot/cjk_font/rankkit-cjk.otf`` under its own family name,
``rankkit CJK`` (a modified font takes a name of its own, so it never stands in for a full
Noto install). Run it (``make cjk-font``) after a lesson gains a character;
``tests/test_fonts.py`` fails until then.

Needs the full font (Debian: ``apt-get install fonts-noto-cjk``, which installs
``/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc``; ``--source`` takes any Noto Sans CJK
SC .otf/.ttc) and fontTools. The output depends only on the source font and the characters:
the same inputs give the same bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Where the repository's text lives: the lessons, the book's pages and tools, the package (its
#: docstrings become the API reference), the data the lessons read, the files the book includes.
SOURCES = ("notebooks", "docs", "rankkit", "data", "CHANGELOG.md", "CONTRIBUTING.md")
SKIP_DIRS = {"__pycache__", ".ipynb_checkpoints"}
FONT = ROOT / "rankkit" / "plot" / "cjk_font" / "rankkit-cjk.otf"
SOURCE_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
SOURCE_FAMILY = "Noto Sans CJK SC"
FAMILY = "rankkit CJK"
POSTSCRIPT = "rankkitCJK-Regular"

#: The Unicode blocks of CJK text (inclusive code point ranges): radicals, CJK symbols and
#: punctuation, kana, bopomofo, Hangul compatibility jamo, enclosed CJK, compatibility, the
#: unified ideographs and extension A, Hangul syllables, compatibility ideographs, vertical and
#: compatibility forms, halfwidth and fullwidth forms, and the supplementary ideograph planes.
CJK_RANGES = (
    (0x2E80, 0x2FDF), (0x3000, 0x30FF), (0x3100, 0x31FF), (0x3200, 0x33FF), (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF), (0xFE10, 0xFE1F), (0xFE30, 0xFE4F),
    (0xFF00, 0xFFEF), (0x20000, 0x3134F),
)


def is_cjk(char: str) -> bool:
    """Whether ``char`` belongs to one of :data:`CJK_RANGES`."""
    code = ord(char)
    return any(low <= code <= high for low, high in CJK_RANGES)


def _strings(value) -> Iterator[str]:
    """Every string inside a parsed JSON value (a notebook: sources, outputs, metadata)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def text_files(root: Path = ROOT, sources: Iterable[str] = SOURCES) -> Iterator[Path]:
    """The files under ``sources`` (relative to ``root``), in sorted order, without caches."""
    for name in sources:
        path = root / name
        candidates = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in candidates:
            if file.is_file() and not SKIP_DIRS.intersection(file.relative_to(root).parts):
                yield file


def file_text(path: Path) -> str:
    """The text of ``path`` ('' for a binary file); a notebook or JSON file's strings, unescaped."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return ""  # a binary file: an image, the font itself
    if path.suffix in (".ipynb", ".json"):
        try:
            return "\n".join(_strings(json.loads(text)))
        except json.JSONDecodeError:
            return text
    return text


def collect(root: Path = ROOT, sources: Iterable[str] = SOURCES) -> set[str]:
    """Every CJK character of the repository's text."""
    return {char for path in text_files(root, sources) for char in set(file_text(path)) if is_cjk(char)}


def _load_source(source: Path):
    """The Noto Sans CJK SC face of ``source`` (a .otf, or the face of that family in a .ttc)."""
    from fontTools.ttLib import TTCollection, TTFont

    if source.suffix.lower() in (".ttc", ".otc"):
        count = len(TTCollection(str(source), lazy=True).fonts)
        for number in range(count):
            font = TTFont(str(source), fontNumber=number, recalcTimestamp=False)
            if font["name"].getDebugName(1) == SOURCE_FAMILY:
                return font
        raise ValueError(f"{source}: no face named {SOURCE_FAMILY!r} among its {count} fonts")
    font = TTFont(str(source), recalcTimestamp=False)
    if font["name"].getDebugName(1) != SOURCE_FAMILY:
        raise ValueError(f"{source}: family {font['name'].getDebugName(1)!r}, expected {SOURCE_FAMILY!r}")
    return font


def _rename(font) -> None:
    """Give the subset its own names (family, full, PostScript), in the name table and the CFF."""
    version = font["name"].getDebugName(5) or ""
    names = {1: FAMILY, 2: "Regular", 3: f"{POSTSCRIPT};subset of NotoSansCJKsc-Regular {version}",
             4: FAMILY, 6: POSTSCRIPT}
    table = font["name"]
    table.names = [record for record in table.names if record.nameID not in (*names, 16, 17)]
    for name_id, value in names.items():
        table.setName(value, name_id, 3, 1, 0x409)
    if "CFF " in font:
        cff = font["CFF "].cff
        top = cff.topDictIndex[0]
        cff.fontNames = [POSTSCRIPT]
        top.FullName, top.FamilyName = FAMILY, FAMILY


def make_subset(characters: Iterable[str], source: Path = SOURCE_FONT, out: Path = FONT) -> dict:
    """Write the subset of ``source`` holding ``characters`` to ``out``; return what it holds."""
    from fontTools import subset

    wanted = sorted({ord(c) for c in characters})
    font = _load_source(source)
    missing = [chr(code) for code in wanted if code not in font.getBestCmap()]
    if missing:
        raise ValueError(f"{source} has no glyph for {''.join(missing)!r}: choose another source font")
    options = subset.Options()
    options.layout_features = ["ccmp", "kern"]  # horizontal text in the SC forms; no vertical or locale forms
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]  # the licence and credits
    options.name_languages = [0x409]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=wanted)
    subsetter.subset(font)
    _rename(font)
    out.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(out))  # head.modified stays the source's: the same inputs give the same bytes
    return {"characters": len(wanted), "glyphs": len(font.getGlyphOrder()), "bytes": out.stat().st_size}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=SOURCE_FONT, help=f"the full font (default {SOURCE_FONT})")
    parser.add_argument("--out", type=Path, default=FONT, help=f"the subset to write (default {FONT})")
    args = parser.parse_args(argv)
    if not args.source.is_file():
        parser.error(f"{args.source} not found: install Debian's fonts-noto-cjk or pass --source")
    held = make_subset(collect(), args.source, args.out)
    print(f"{args.out}: {held['characters']} characters, {held['glyphs']} glyphs, {held['bytes']:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
