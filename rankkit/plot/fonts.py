"""The CJK font of the figures: the lessons may label a figure with their sources' Chinese
terms (the grades 高, 中, 低, 无; 期望互惠排名, ERR), which DejaVu Sans, matplotlib's default
font, does not have; without a CJK font such a figure shows empty boxes ("tofu").

rankkit ships ``cjk_font/rankkit-cjk.otf``, a subset of Noto Sans CJK SC Regular (SIL Open
Font License 1.1, ``cjk_font/OFL.txt``) holding the CJK characters of the lessons, the book
and the package, under the family name :data:`FAMILY`; ``docs/cjk_font.py`` regenerates it
from the repository's text. :func:`register` (called when :mod:`rankkit.plot` is imported)
adds the file to matplotlib's font manager and appends :data:`FAMILY` to ``font.family``
(``["sans-serif"]`` by default) as a fallback: matplotlib (3.6 and later) draws each character
from the first family of the list that has it, so Latin text keeps its font (DejaVu Sans) and
only the characters it lacks, the CJK ones, come from this font. This is the one global
setting of :mod:`rankkit.plot`; it changes no figure without CJK text. A text drawn with an
explicit family (``fontfamily="serif"``) has no fallback: leave the family to ``font.family``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["FAMILY", "FONT", "register"]

#: The family name of the shipped subset (its own name: a modified font does not pose as Noto).
FAMILY = "rankkit CJK"
#: The font file, inside the package (listed in pyproject.toml's package-data).
FONT = Path(__file__).resolve().parent / "cjk_font" / "rankkit-cjk.otf"


def register() -> None:
    """Make :data:`FAMILY` available to matplotlib and the last family of ``font.family``.

    Idempotent; raises ``FileNotFoundError`` if the font file is missing from the installation.
    """
    import matplotlib as mpl
    from matplotlib import font_manager

    if not FONT.is_file():
        raise FileNotFoundError(f"rankkit's CJK font is missing: {FONT} (reinstall rankkit, or run docs/cjk_font.py)")
    if not any(Path(entry.fname) == FONT for entry in font_manager.fontManager.ttflist):
        font_manager.fontManager.addfont(str(FONT))
    families = mpl.rcParams["font.family"]
    if FAMILY not in families:
        mpl.rcParams["font.family"] = [*families, FAMILY]
