"""Reading relevance information in trec_eval's other forms: preferences and judgment groups.

trec_eval 10 reads, besides qrels, three forms of relevance information (its ``-R`` option):

- ``prefs``: lines ``qid jg jsg docno rel_level``. A judgment group (jg, one user's
  information need at one time) holds judgment sub-groups (jsg); within a sub-group every
  document is preferred to every document with a lower ``rel_level``; a level of 0 means
  "not relevant" (``get_prefs.c``).
- ``qrels_prefs``: an ordinary qrels file read as preferences: the second column (qrels'
  "iteration") names the judgment group, each group has the one sub-group ``0``
  (``get_qrels_prefs.c``).
- ``qrels_jg``: an ordinary qrels file whose second column names a judgment group, each
  group a complete set of judgments of its own (``get_qrels_jg.c``); labels are integers.

Fields are separated by whitespace; a line starting with ``#`` is a comment. Where
trec_eval's ``atof``/``atol`` would read any text as a number, these readers refuse it and
name the file and the line; so they do a line without its fields (blank lines included, as
trec_eval does), and, in ``qrels_jg``, a document judged twice in one group.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from .trec_format import NUMBER, file_bytes, id_text

__all__ = ["Preferences", "read_prefs", "FORMATS"]

#: The forms :func:`read_prefs` reads, and what a line holds in each.
FORMATS = {
    "prefs": "qid jg jsg docno rel_level",
    "qrels_prefs": "qid jg docno rel_level",
    "qrels_jg": "qid jg docno rel",
}


@dataclass(frozen=True, eq=False)
class Preferences:
    """Relevance information as judgment groups: one entry per line of the file.

    Attributes
    ----------
    query_ids, groups, subgroups, doc_ids : ndarray of str (NumPy's ``U``), shape (n_lines,)
        Each line's query, judgment group, judgment sub-group (``"0"`` in the qrels forms)
        and document.
    levels : ndarray of float64, shape (n_lines,)
        Each line's relevance level (an integer in ``qrels_jg``).
    format : {"prefs", "qrels_prefs", "qrels_jg"}
        The form read, trec_eval's ``-R`` name; it says which measures apply.
    name : str
        Where the lines came from, for messages.
    """

    query_ids: np.ndarray
    groups: np.ndarray
    subgroups: np.ndarray
    doc_ids: np.ndarray
    levels: np.ndarray
    format: str
    name: str = "<preferences>"

    def __len__(self) -> int:
        return len(self.levels)


def read_prefs(source: str | os.PathLike, format: str = "prefs") -> Preferences:
    """Read a preference (``prefs``, ``qrels_prefs``) or judgment-group (``qrels_jg``) file.

    Parameters
    ----------
    source : path
        The file: lines as :data:`FORMATS` gives them for ``format``.
    format : {"prefs", "qrels_prefs", "qrels_jg"}, default="prefs"
        trec_eval's ``-R`` name of the form.

    Returns
    -------
    Preferences
        Which :func:`rankkit.evaluate` scores with trec_eval's measures of that form
        (``rk.evaluate(prefs, run, ["prefs_simp", "prefs_pair"])``; see
        ``rankkit.evaluation.preferences.evaluate_with_preferences``).

    Raises
    ------
    ValueError
        A line with the wrong number of fields, a level that is not a plain finite number
        (not an integer, in ``qrels_jg``), a document judged twice in one ``qrels_jg``
        group, an empty file; each message names the file and the line.

    Examples
    --------
    >>> p = read_prefs("data/trec_eval_test/prefs.test")
    >>> len(p), [str(c[0]) for c in (p.query_ids, p.groups, p.subgroups, p.doc_ids)], float(p.levels[0])
    (164, ['1.EC.AB', 'F:Ret,C:Not', 'F:RnkdLst2digits', 'FR940303-1-00022'], 1.0)
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
    name, data = file_bytes(source)
    width = len(FORMATS[format].split())
    found = _fast_columns(data, width, format)
    if found is None:  # some line is wrong: read line by line, to name it
        numbers, fields = _fields(data, width, name, format)
        levels = np.array([_level(f[-1], name, n, format) for n, f in zip(numbers, fields)], dtype=np.float64)
        found = [np.array([id_text(f[i]) for f in fields], dtype=str) for i in range(width - 1)], levels
    columns, levels = found
    if not len(levels):
        raise ValueError(f"{name}: empty file, expected lines '{FORMATS[format]}'")
    if width == 4:
        columns.insert(2, np.full(len(levels), "0"))
    prefs = Preferences(*columns, levels, format=format, name=name)
    if format == "qrels_jg":
        _check_once_per_group(prefs, data)
    return prefs


_BLANK = rb"[ \t\r\v\f]"


@functools.lru_cache(maxsize=4)
def _file_pattern(width: int) -> re.Pattern:
    """Data lines of ``width`` fields, the last a number, and comment lines, each ending in \\n."""
    line = _BLANK + b"*" + (rb"\S+" + _BLANK + b"+") * (width - 1) + b"(?:" + NUMBER.pattern + b")" + _BLANK + b"*"
    return re.compile(rb"(?:(?:#[^\n]*|" + line + rb")\n)*")


def _fast_columns(data: bytes, width: int, format: str) -> tuple[list[np.ndarray], np.ndarray] | None:
    """The id columns and levels of a file every line of which is right (one regular
    expression over the file, then one split); None if a line is not."""
    if data and not data.endswith(b"\n"):
        data += b"\n"
    if _file_pattern(width).fullmatch(data) is None:
        return None
    if data.startswith(b"#") or b"\n#" in data:
        data = b"\n".join(line for line in data.split(b"\n") if not line.startswith(b"#"))
    tokens = np.array(data.split(), dtype=bytes).reshape(-1, width)
    levels = tokens[:, -1].astype(np.float64)
    if not np.isfinite(levels).all() or (format == "qrels_jg" and (levels != np.trunc(levels)).any()):
        return None
    if data.isascii():
        return [tokens[:, i].astype(str) for i in range(width - 1)], levels
    return [np.array([id_text(x) for x in tokens[:, i].tolist()], dtype=str) for i in range(width - 1)], levels


def _fields(data: bytes, width: int, name: str, format: str) -> tuple[list[int], list[list[bytes]]]:
    """The line numbers and fields of the data lines (comments left out), each line
    checked to hold ``width`` fields."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    numbers, fields = [], []
    for number, line in enumerate(lines, start=1):
        if line[:1] == b"#":
            continue
        parts = line.split()
        if len(parts) != width:
            raise ValueError(f"{name} line {number}: expected {width} fields ({FORMATS[format]}), got {len(parts)}")
        numbers.append(number)
        fields.append(parts)
    return numbers, fields


def _level(text: bytes, name: str, number: int, format: str) -> float:
    what = "rel" if format == "qrels_jg" else "rel_level"
    value = float(text) if NUMBER.fullmatch(text) else float("nan")
    if not np.isfinite(value):
        raise ValueError(f"{name} line {number}: {what} must be a finite number, got {id_text(text)!r}")
    if format == "qrels_jg" and value != int(value):
        raise ValueError(f"{name} line {number}: rel must be an integer (trec_eval reads it as one), "
                         f"got {id_text(text)!r}")
    return value


def _check_once_per_group(prefs: Preferences, data: bytes) -> None:
    """A document judged twice in one judgment group of one query is an error (trec_eval's too)."""
    codes = [np.unique(c, return_inverse=True)[1].astype(np.int64) for c in (prefs.query_ids, prefs.groups,
                                                                           prefs.doc_ids)]
    keys = (codes[0] * (codes[1].max() + 1) + codes[1]) * (codes[2].max() + 1) + codes[2]
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    if (counts > 1).any():
        twice = first[np.argmax(counts > 1)]
        numbers = [n for n, line in enumerate(data.split(b"\n"), start=1) if line.strip() and line[:1] != b"#"]
        lines = [numbers[i] for i in np.flatnonzero(keys == keys[twice])[:2]]
        doc, group, query = (str(c[twice]) for c in (prefs.doc_ids, prefs.groups, prefs.query_ids))
        raise ValueError(f"{prefs.name} lines {lines[0]} and {lines[1]}: document {doc!r} is judged twice in group "
                         f"{group!r} of query {query!r}")


def as_preferences(source: Any, format: str = "prefs") -> Preferences:
    """``source`` if it is :class:`Preferences` (of ``format``), else the file it names, read."""
    if isinstance(source, Preferences):
        if source.format != format:
            raise ValueError(f"the preferences were read as {source.format!r}, not {format!r}")
        return source
    return read_prefs(source, format)
