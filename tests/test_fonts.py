"""The CJK font rankkit ships (rankkit/plot/cjk_font/, made by docs/cjk_font.py) holds every
CJK character of the repository's text, and figures draw their Chinese labels with it.

The characters are found here by their East Asian width (wide or fullwidth letters, digits
and punctuation), not by the Unicode blocks the script lists, so a block the script forgets
fails this test.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import io
import json
import re
import sys
import unicodedata
import warnings
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from rankkit.plot import fonts

ROOT = Path(__file__).resolve().parent.parent
#: The text the book and the figures show: lessons, pages, docstrings, the lessons' data, the
#: files the book includes.
TEXT = ("notebooks", "docs", "rankkit", "data", "CHANGELOG.md", "CONTRIBUTING.md")
#: The subset's size limit in bytes: at about 230 bytes a glyph, room for some 1,700 characters; a
#: font above it holds more than the text needs (made with every layout feature, or not a subset).
SIZE_BUDGET = 400_000


def _script():
    spec = importlib.util.spec_from_file_location("cjk_font", ROOT / "docs" / "cjk_font.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _wide(char: str) -> bool:
    """A character drawn full width in East Asian text: ideographs, kana, hangul, fullwidth forms
    (emoji and other symbols, also wide, are not text a CJK font must hold)."""
    return unicodedata.east_asian_width(char) in "WF" and unicodedata.category(char)[0] in "LNP"


def _texts():
    """(file, text) of every UTF-8 file of :data:`TEXT`; a notebook's strings, unescaped."""
    for name in TEXT:
        top = ROOT / name
        for path in sorted(top.rglob("*")) if top.is_dir() else [top]:
            if not path.is_file() or "__pycache__" in path.parts or ".ipynb_checkpoints" in path.parts:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            if path.suffix == ".ipynb":
                text = json.dumps(json.loads(text), ensure_ascii=False)
            yield path.relative_to(ROOT), text


def _wide_characters() -> set[str]:
    return {char for _, text in _texts() for char in set(text) if _wide(char)}


def _cmap(path: Path) -> set[int]:
    return set(TTFont(str(path), lazy=True).getBestCmap())


def test_the_font_holds_every_cjk_character_of_the_repository():
    held = _cmap(fonts.FONT)
    missing: dict[str, str] = {}
    for path, text in _texts():
        for char in set(text):
            if _wide(char) and ord(char) not in held:
                missing.setdefault(char, str(path))
    assert not missing, (f"{len(missing)} CJK characters are not in {fonts.FONT.name} (first file of each): "
                         f"{missing}; regenerate it: make cjk-font")
    assert _wide_characters() - {"\u9ad8"}  # the walk did read the lessons (高 is named in rankkit/plot/fonts.py)


def test_the_script_collects_every_wide_character():
    collected = _script().collect()
    wide = _wide_characters()
    assert wide <= collected, sorted(wide - collected)


def test_the_script_reads_escaped_notebooks_and_skips_binary_files(tmp_path):
    script = _script()
    (tmp_path / "notebooks").mkdir()
    cell = {"cell_type": "markdown", "metadata": {}, "source": ["grade \u9ad8 and \uff08full stop\uff09"]}
    (tmp_path / "notebooks" / "a.ipynb").write_text(json.dumps({"cells": [cell]}, ensure_ascii=True))
    (tmp_path / "notebooks" / "b.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    (tmp_path / "notebooks" / "__pycache__").mkdir()
    (tmp_path / "notebooks" / "__pycache__" / "c.py").write_text("\u4f4e")
    (tmp_path / "README.md").write_text("\u4e2d, not \u00e9 nor \u2014")
    assert script.collect(tmp_path, ["notebooks", "README.md"]) == {"\u9ad8", "\uff08", "\uff09", "\u4e2d"}


def test_the_font_is_a_renamed_small_subset_with_its_licence():
    font = TTFont(str(fonts.FONT), lazy=True)
    names = font["name"]
    assert names.getDebugName(1) == fonts.FAMILY == _script().FAMILY
    assert "Source" not in fonts.FAMILY  # the original's Reserved Font Name
    assert "SIL Open Font License" in names.getDebugName(13)
    licence = (fonts.FONT.parent / "OFL.txt").read_text()
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence and "Reserved Font Name 'Source'" in licence
    assert fonts.FONT.stat().st_size < SIZE_BUDGET
    package_data = re.search(r"^rankkit = \[(.*)\]$", (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    for name in (fonts.FONT.name, "OFL.txt"):  # in the wheel, beside each other
        path = fonts.FONT.parent.joinpath(name).relative_to(ROOT / "rankkit").as_posix()
        assert any(fnmatch.fnmatch(path, pattern) for pattern in re.findall(r'"([^"]+)"', package_data)), path


@pytest.mark.slow
def test_the_script_remakes_the_shipped_font_byte_for_byte(tmp_path):
    script = _script()
    if not script.SOURCE_FONT.is_file():
        pytest.skip(f"{script.SOURCE_FONT} not installed (Debian: apt-get install fonts-noto-cjk)")
    with TTFont(str(fonts.FONT), lazy=True) as shipped, script._load_source(script.SOURCE_FONT) as source:
        if source["name"].getDebugName(5) != shipped["name"].getDebugName(5):
            pytest.skip(f"{script.SOURCE_FONT} is another version than the one the shipped font was made from")
    characters = {chr(code) for code in _cmap(fonts.FONT)}
    script.make_subset(characters, out=tmp_path / "again.otf")
    assert (tmp_path / "again.otf").read_bytes() == fonts.FONT.read_bytes()


def test_register_is_idempotent():
    import matplotlib as mpl
    from matplotlib import font_manager

    fonts.register()
    fonts.register()
    assert mpl.rcParams["font.family"].count(fonts.FAMILY) == 1
    assert sum(Path(entry.fname) == fonts.FONT for entry in font_manager.fontManager.ttflist) == 1


def test_a_figure_draws_its_chinese_labels_with_the_subset():
    """The grades of the sources (高 中 低 无) as legend, ticks and title: no glyph is missing, and
    each CJK character comes from the shipped font (the first of the fallback list that has it)."""
    import matplotlib.pyplot as plt
    import pandas as pd
    from matplotlib import font_manager

    import rankkit.plot as rkplot

    grades = ["高", "中", "低", "无"]
    curves = pd.DataFrame({grade: [0.9 - 0.2 * i, 0.8 - 0.2 * i] for i, grade in enumerate(grades)}, index=[1, 2])
    ax = rkplot.metric_at_k(curves, metric="P")
    ax.set_xticks([1, 2], ["期望", "排名"])
    ax.set_title("Grades 高/中/低/无 (illustrative)")
    pdf = io.BytesIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax.figure.canvas.draw()
        ax.figure.savefig(pdf, format="pdf")
    plt.close(ax.figure)
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    assert not missing, missing[:3]
    texts = [ax.title, *ax.get_xticklabels(), *ax.get_legend().get_texts()]
    shown = "".join(t.get_text() for t in texts)
    assert set(grades) <= set(shown)
    for text in texts:
        chain = [Path(p) for p in font_manager.fontManager._find_fonts_by_props(text.get_fontproperties())]
        cmaps = [_cmap(p) for p in chain]
        for char in filter(_wide, text.get_text()):
            first = next(p for p, cmap in zip(chain, cmaps) if ord(char) in cmap)
            assert first == fonts.FONT, (char, first)
    # the PDF embeds the subset under its PostScript name
    assert b"rankkitCJK-Regular" in pdf.getvalue()


def _check():
    """docs/check.py, the book's browser check (Playwright is imported only when it runs)."""
    spec = importlib.util.spec_from_file_location("docs_check", ROOT / "docs" / "check.py")
    check = importlib.util.module_from_spec(spec)
    sys.modules["docs_check"] = check  # its dataclasses look their module up
    spec.loader.exec_module(check)
    return check


def test_the_book_declares_the_font_for_the_characters_the_script_collects():
    """docs/_static/cjk.css, as docs/check.py reads it: the subset's family, its file, and a
    unicode-range that is the script's CJK blocks (every character of the font inside it)."""
    check = _check()
    face = check.cjk_face(ROOT / "docs")
    assert face is not None and face.family == fonts.FAMILY
    assert face.ranges == _script().CJK_RANGES
    assert all(any(low <= code <= high for low, high in face.ranges) for code in _cmap(fonts.FONT))
    assert f'url("fonts/{fonts.FONT.name}")' in (ROOT / "docs" / "_static" / "cjk.css").read_text()
    assert '"cjk.css"' in (ROOT / "docs" / "conf.py").read_text()


def test_the_book_check_fails_on_cjk_text_another_font_drew():
    """docs/check.py's verdict on what Chromium reported: per element with CJK text, the CJK
    characters of its subtree and the glyphs the book's face drew there."""
    check = _check()
    face = check.cjk_face(ROOT / "docs")

    def page(faces, counts, drawn):
        texts = [f"text {i}" for i in range(len(counts))]
        return check.Page("p.html", cjk={"counts": counts, "drawn": drawn, "texts": texts, "faces": faces,
                                         "total": sum(counts), "chars": "高", "others": check.Counter(X=3)})

    assert check.cjk_problems({"p.html": page(["loaded"], [4, 2], [4, 2])}, face) == []
    assert check.cjk_problems({"p.html": page([], [], [])}, face) == []  # no CJK text: nothing to load
    short = check.cjk_problems({"p.html": page(["loaded"], [4, 2], [2, 0])}, face)
    assert len(short) == 1 and "2 of 2 elements" in short[0] and "X (3 glyphs)" in short[0]
    unloaded = check.cjk_problems({"p.html": page(["error"], [1], [0])}, face)
    assert len(unloaded) == 2 and "did not load (status: error)" in unloaded[0]
    assert "declares no CJK font face" in check.cjk_problems({}, None)[0]
