"""Subtopic (intent) judgments and ndeval's runs.

Subtopic judgments, the TREC Web track's diversity qrels (2009-2014), judge each document per
intent of the query: ``topic subtopic docno judgment``, whitespace separated, one judgment a
line (the second column, trec_eval's unused "iteration", is the subtopic).
:func:`read_subtopic_qrels` reads them from such a file, a DataFrame or a dict into one
frame: ``query_id``, ``subtopic_id``, ``doc_id``, ``relevance``.

:func:`intent_labels` turns that frame into ordinary judgments whose label packs the
document's relevant intents (see :mod:`rankkit.metrics.diversity`), which the join and the
diversity measures take like any other labels; :func:`rankkit.read_qrels` (and so
``rk.evaluate``) does it for a frame with a ``subtopic_id`` column.

:func:`read_ndeval_run` reads a run file as ndeval does (its ranks, its topic numbers),
for ``rankkit ndeval``.
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

__all__ = ["SUBTOPIC_COLUMNS", "read_subtopic_qrels", "intent_labels", "is_subtopic_frame", "read_ndeval_run"]

#: The columns of the frame :func:`read_subtopic_qrels` returns.
SUBTOPIC_COLUMNS = ("query_id", "subtopic_id", "doc_id", "relevance")

_INTENT_SHIFT = 2 ** 32  # rankkit.metrics.diversity.INTENT_SHIFT (io sits below the metrics)
_MAX_INTENTS = 32
_MAX_PLACE = 2 ** 21  # place * 2**32 + intents stays an exact float64 below 2**53


def is_subtopic_frame(source: Any) -> bool:
    """Whether ``source`` is a DataFrame of subtopic judgments (it has a ``subtopic_id`` column)."""
    return isinstance(source, pd.DataFrame) and "subtopic_id" in source.columns


def read_subtopic_qrels(source: Any, *, name: str | None = None) -> pd.DataFrame:
    """Read subtopic judgments from a file, a DataFrame or a dict.

    Parameters
    ----------
    source : path, DataFrame or dict
        A file of lines ``topic subtopic docno judgment`` (whitespace separated; ``.gz``
        allowed): the TREC Web track's diversity qrels, which ndeval reads; a DataFrame with
        the columns ``query_id``, ``subtopic_id``, ``doc_id``, ``relevance``; or
        ``{query_id: {subtopic_id: {doc_id: judgment}}}``.
    name : str, optional
        Stored in ``df.attrs["name"]`` (default: the file's path).

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id``, ``subtopic_id``, ``doc_id`` (str) and ``relevance`` (int64),
        in input order. A document is relevant to an intent at judgment >= 1 (ndeval's
        binary reading); labels below 0 are kept (not relevant).

    Raises
    ------
    ValueError
        A line without four fields or with a judgment that is not an integer (file and line
        named), an empty file, a frame without the four columns, a (query, subtopic,
        document) judged twice.

    Examples
    --------
    >>> read_subtopic_qrels({"1": {"1": {"a": 1, "b": 0}, "2": {"b": 1}}})
      query_id subtopic_id doc_id  relevance
    0        1           1      a          1
    1        1           1      b          0
    2        1           2      b          1
    """
    if isinstance(source, pd.DataFrame):
        frame, where = _of_frame(source), "subtopic qrels DataFrame"
    elif isinstance(source, Mapping):
        frame, where = _of_dict(source), "subtopic qrels dict"
    elif isinstance(source, (str, os.PathLike)):
        frame, where = _of_file(source), os.fsdecode(source)
    else:
        raise ValueError(f"subtopic qrels must be a file path, a DataFrame or a dict "
                         f"{{query_id: {{subtopic_id: {{doc_id: judgment}}}}}}, got {type(source).__name__}")
    _check_duplicates(frame, where)
    frame.attrs["name"] = name if name is not None else (where if isinstance(source, (str, os.PathLike)) else None)
    return frame


def _bytes(path: str | os.PathLike) -> bytes:
    name = os.fsdecode(path)
    opener = gzip.open if name.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise FileNotFoundError(2, "no such file", name) from None


def _fields(path: str | os.PathLike, width: int, exact: bool, what: str) -> _Columns | _Tokens:
    """The first ``width`` whitespace-separated fields of every line of a file (a line with
    another number of fields, fewer or, when ``exact``, more, is an error naming it)."""
    name, data = os.fsdecode(path), _bytes(path)
    if not data.strip():
        raise ValueError(f"{name}: empty file, expected lines '{what}'")
    columns = _Columns.parsed(data, name, width)
    return columns if columns is not None else _Tokens(data, name, width, exact, what)


class _Columns:
    """A file's columns as pyarrow.csv parses them (its threads, no Python loop per line),
    when its cut at each space is provably ``bytes.split()``'s: no whitespace but spaces and
    newlines (a memchr each), no empty field (two spaces in a row, a space at either end of
    a line: checked on the parsed lengths), no blank line (one row per line) and ``width``
    fields on every line (else pyarrow stops). Any other file goes to :class:`_Tokens`, which
    also names the line at fault."""

    def __init__(self, name: str, columns: list[pa.Array]):
        self.name, self._columns = name, columns

    @classmethod
    def parsed(cls, data: bytes, name: str, width: int) -> _Columns | None:
        if data.startswith(b"\xef\xbb\xbf") or any(space in data for space in (b"\t", b"\r", b"\v", b"\f")):
            return None
        names = [f"field{j}" for j in range(width)]
        try:  # as UTF-8 text: parsed faster than bytes; a file that is not goes to _Tokens
            table = pacsv.read_csv(
                pa.BufferReader(data), read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 22),
                convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(names, pa.string()),
                                                     strings_can_be_null=False, null_values=[]),
                parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False))
        except pa.ArrowInvalid:
            return None
        columns = [table.column(j).combine_chunks() for j in range(width)]  # UTF-8 text
        if table.num_rows != data.count(b"\n") + (not data.endswith(b"\n")) or \
                any(pc.min(pc.binary_length(c)).as_py() == 0 for c in columns):
            return None
        return cls(name, columns)

    def column(self, column: int) -> pa.Array:
        return self._columns[column]

    def raw(self, column: int, row: int) -> bytes:
        return self._columns[column][row].as_py().encode("utf-8")


class _Tokens:
    """Where the whitespace-separated fields of a file's bytes are, found with array
    operations (no Python loop per line): ``starts`` and ``ends`` (exclusive) of every field,
    ``table`` the field numbers of the first ``width`` fields of each line, and every field's
    bytes as one Arrow array, from which :meth:`column` takes a column.

    Whitespace is what ``bytes.split()`` splits at (tab, newline, vertical tab, form feed,
    carriage return, space); lines end at newlines."""

    def __init__(self, data: bytes, name: str, width: int, exact: bool, what: str):
        self.name = name
        self.buf = np.frombuffer(data, dtype=np.uint8)
        field = np.zeros(len(self.buf) + 2, dtype=bool)  # field[i + 1]: byte i is in a field
        np.greater(np.subtract(self.buf, 9, dtype=np.uint8), 4, out=field[1:-1])  # not \t \n \v \f \r
        field[1:-1] &= self.buf != 0x20
        edges = np.flatnonzero(field[1:] != field[:-1])
        self.starts, self.ends = edges[0::2], edges[1::2]
        counts = self._fields_per_line(data.endswith(b"\n"))
        bad = counts != width if exact else counts < width
        if bad.any():
            at = int(np.flatnonzero(bad)[0])
            hint = " (a run line?)" if width == 4 and counts[at] == 6 else ""
            raise ValueError(f"{self.name} line {at + 1}: expected {width} columns '{what}', got {counts[at]}{hint}")
        if (counts == width).all():
            self.table = np.arange(len(self.starts)).reshape(len(counts), width)
        else:  # fields after the width-th left out, as ndeval does
            self.table = (np.cumsum(counts) - counts)[:, None] + np.arange(width)
        offsets = np.zeros(len(self.starts) + 1, dtype=np.int64)
        np.cumsum(self.ends - self.starts, out=offsets[1:])
        self._fields = pa.LargeBinaryArray.from_buffers(
            pa.large_binary(), len(self.starts), [None, pa.py_buffer(offsets), pa.py_buffer(self.buf[field[1:-1]])])

    def _fields_per_line(self, ends_with_newline: bool) -> np.ndarray:
        """How many fields each line holds: the fields before each newline, counted by where
        the newlines fall between fields (one search per line, none per field)."""
        newlines = np.flatnonzero(self.buf == 0x0A)
        n_lines = len(newlines) + (0 if ends_with_newline else 1)
        after = np.bincount(np.searchsorted(self.starts, newlines), minlength=len(self.starts) + 1)
        line = np.cumsum(after[:-1])  # each field's line: the newlines before it
        return np.bincount(line, minlength=n_lines)

    def raw(self, column: int, row: int) -> bytes:
        """The bytes of one field."""
        at = self.table[row, column]
        return self.buf[self.starts[at]: self.ends[at]].tobytes()

    def column(self, column: int) -> pa.LargeBinaryArray:
        """One column's fields as Arrow bytes."""
        return self._fields.take(pa.array(self.table[:, column]))


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _strings(column: pa.Array) -> pd.Series:
    """Bytes as str: UTF-8 as pandas' (Arrow) strings, without a Python object per value; a
    column with other bytes as Python str of dtype object, those bytes kept with
    ``surrogateescape`` (as :mod:`rankkit.io.readers` does)."""
    try:  # (text from pyarrow.csv is UTF-8 already; bytes are checked here)
        return column.cast(pa.large_string()).to_pandas()
    except pa.ArrowInvalid:
        return pd.Series([_text(raw) for raw in column.to_pylist()], dtype=object)


def _uniques(column: pa.Array) -> tuple[np.ndarray, list[bytes]]:
    """(the code of each value, the distinct values as bytes): what is parsed per value
    below is parsed once per distinct value."""
    encoded = column.dictionary_encode()
    return _codes(encoded), encoded.dictionary.cast(pa.large_binary()).to_pylist()


def _codes(encoded: pa.DictionaryArray) -> np.ndarray:
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)


def _first_bad(codes: np.ndarray, bad: list[int]) -> int:
    """The first row whose value is one of the distinct values ``bad``."""
    return int(np.flatnonzero(np.isin(codes, bad))[0])


def _text_series(column: pd.Series) -> pd.Series:
    """A frame's id column as str (ids that are not valid UTF-8 kept as Python str, dtype object)."""
    try:
        return column.astype(str).reset_index(drop=True)
    except UnicodeEncodeError:
        return pd.Series([str(value) for value in column], dtype=object)


def _integers(tokens: _Columns | _Tokens, column: int, what: str, pattern: bytes) -> np.ndarray:
    """A column of integers; the first line whose field does not match ``pattern`` is named."""
    values = tokens.column(column)
    try:
        return pc.cast(values, pa.int64()).to_numpy()
    except pa.ArrowInvalid:  # a bad field, or a sign Arrow does not take ("+1"): value by value
        codes, uniques = _uniques(values)
    bad = [i for i, raw in enumerate(uniques) if not re.fullmatch(pattern, raw)]
    if bad:
        at = _first_bad(codes, bad)
        raise ValueError(f"{tokens.name} line {at + 1}: {what}, got {_text(uniques[codes[at]])!r}")
    return np.array([int(raw) for raw in uniques], dtype=np.int64)[codes]


def _floats(tokens: _Columns | _Tokens, column: int, what: str, pattern: bytes) -> np.ndarray:
    """A column of finite numbers; the first line whose field does not match ``pattern`` is named."""
    values = tokens.column(column)
    try:
        numbers = pc.cast(values, pa.float64()).to_numpy()
        if np.isfinite(numbers).all():
            return numbers
    except pa.ArrowInvalid:
        pass
    codes, uniques = _uniques(values)
    bad = [i for i, raw in enumerate(uniques) if not re.fullmatch(pattern, raw) or not np.isfinite(float(raw))]
    if bad:
        at = _first_bad(codes, bad)
        raise ValueError(f"{tokens.name} line {at + 1}: {what}, got {_text(uniques[codes[at]])!r}")
    return np.array([float(raw) for raw in uniques], dtype=np.float64)[codes]


def _of_file(path: str | os.PathLike) -> pd.DataFrame:
    tokens = _fields(path, 4, True, "topic subtopic docno judgment")
    frame = pd.DataFrame({"query_id": _strings(tokens.column(0)), "subtopic_id": _strings(tokens.column(1)),
                          "doc_id": _strings(tokens.column(2)),
                          "relevance": _integers(tokens, 3, "judgment must be an integer", rb"[+-]?\d{1,18}")})
    frame.attrs["lines"] = True
    return frame


def _of_frame(df: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in SUBTOPIC_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"subtopic qrels DataFrame: needs the columns {', '.join(SUBTOPIC_COLUMNS)}; "
                         f"missing {', '.join(missing)} (it has {', '.join(map(str, df.columns))})")
    out = pd.DataFrame({c: _text_series(df[c]) for c in SUBTOPIC_COLUMNS[:3]})
    values = pd.to_numeric(df["relevance"], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values) | (values != np.round(values))
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        value = df["relevance"].iloc[at]
        raise ValueError(f"subtopic qrels DataFrame: relevance must be an integer, got "
                         f"{value.item() if isinstance(value, np.generic) else value!r} in row {at}")
    out["relevance"] = values.astype(np.int64)
    return out


def _of_dict(source: Mapping) -> pd.DataFrame:
    rows = []
    for query, subtopics in source.items():
        if not isinstance(subtopics, Mapping):
            raise ValueError(f"subtopic qrels dict: query {query!r} must map subtopic ids to {{doc_id: judgment}}, "
                             f"got {type(subtopics).__name__}")
        for subtopic, docs in subtopics.items():
            if not isinstance(docs, Mapping):
                raise ValueError(f"subtopic qrels dict: query {query!r}, subtopic {subtopic!r} must map doc ids "
                                 f"to judgments, got {type(docs).__name__}")
            rows.extend((str(query), str(subtopic), str(doc), value) for doc, value in docs.items())
    return _of_frame(pd.DataFrame(rows, columns=list(SUBTOPIC_COLUMNS)))


def _row_codes(columns: list[Any]) -> np.ndarray:
    """One int64 per row, the same for rows equal in every column (Series or integer arrays),
    below 2**62."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    for column in columns:
        values = column if isinstance(column, np.ndarray) and column.dtype.kind in "iu" else None
        if values is None or values.min(initial=0) < 0:
            values = pd.factorize(column)[0]
        width = int(values.max(initial=0)) + 1
        if (int(key.max(initial=0)) + 1) * width >= 2 ** 62:
            key = pd.factorize(key)[0]
        key = key * width + values
    return key


def _has_twins(key: np.ndarray) -> bool:
    """Whether two of the (non-negative) keys are equal: counted when they are few, else sorted."""
    if len(key) and key.max() < 4 * len(key) + 1024:
        return bool(np.bincount(key).max() > 1)
    ordered = np.sort(key)
    return bool((ordered[1:] == ordered[:-1]).any())


def _check_duplicates(frame: pd.DataFrame, where: str, key: np.ndarray | None = None) -> None:
    """A (query, subtopic, document) judged twice is an error naming them (and the lines);
    ``key``: the rows' :func:`_row_codes`, if known."""
    if not _has_twins(_row_codes([frame[c] for c in SUBTOPIC_COLUMNS[:3]]) if key is None else key):
        return
    twice = frame.duplicated(list(SUBTOPIC_COLUMNS[:3]), keep=False).to_numpy()
    first = np.flatnonzero(twice)
    row = frame.iloc[first[0]]
    same = first[(frame.iloc[first][list(SUBTOPIC_COLUMNS[:3])] == row[list(SUBTOPIC_COLUMNS[:3])]).all(axis=1)]
    lines = f" (lines {', '.join(str(i + 1) for i in same)})" if frame.attrs.get("lines") else ""
    raise ValueError(f"{where}: document {row.doc_id!r} judged twice for query {row.query_id!r}, "
                     f"subtopic {row.subtopic_id!r}{lines}")


def _subtopic_order(subtopics: pd.Series) -> np.ndarray:
    """Each subtopic's rank in subtopic order: by number when all ids are integers (ndeval's),
    else by text. Decided and sorted on the distinct ids only."""
    codes, uniques = pd.factorize(subtopics)
    values = np.asarray(uniques, dtype=object)
    digits = all(isinstance(s, str) and s.isascii() and s.isdigit() for s in values)
    keys = values.astype(np.int64) if digits else values
    return np.unique(keys, return_inverse=True)[1].reshape(-1).astype(np.int64)[codes]


def _id_column(uniques: pd.Index, codes: np.ndarray, like: pd.Series) -> pd.Series:
    """The ids of ``codes`` (Arrow strings stay Arrow strings: no Python object per row)."""
    return pd.Series(uniques.array.take(codes), dtype=like.dtype)


def intent_labels(frame: pd.DataFrame) -> pd.DataFrame:
    """Ordinary judgments whose labels pack each document's relevant intents.

    The intents of a query are its subtopics with a relevant judgment (>= 1), numbered
    0, 1, ... in subtopic order (by number when the ids are integers). A document's label is
    ``place * 2**32 + sum_j 2**j`` over its relevant intents j, where ``place`` (1, 2, ...)
    is its rank among the query's relevant documents by id (bytes, ascending), which the
    greedy ideal ranking of :mod:`rankkit.metrics.diversity` breaks ties with as ndeval
    does. A document relevant to no intent has label 0, or its largest label when all its
    labels are below 0 (pooled, not judged).

    Parameters
    ----------
    frame : DataFrame
        What :func:`read_subtopic_qrels` returns (any frame it reads).

    Returns
    -------
    DataFrame
        ``query_id``, ``doc_id``, ``relevance`` (int64), one row per judged document.

    Raises
    ------
    ValueError
        A query with more than 32 intents, or more than 2**21 - 1 relevant documents.

    Examples
    --------
    >>> qrels = read_subtopic_qrels({"1": {"7": {"a": 1, "b": 1}, "9": {"b": 1, "c": 0}}})
    >>> intent_labels(qrels)   # a: intent 0 (place 1); b: intents 0 and 1 (place 2)
      query_id doc_id   relevance
    0        1      a  4294967297
    1        1      b  8589934595
    2        1      c           0
    """
    name = frame.attrs.get("name")
    # checked again: a frame may have been edited since it was read
    frame = _of_frame(frame) if isinstance(frame, pd.DataFrame) else read_subtopic_qrels(frame)
    query, queries = pd.factorize(frame.query_id)
    doc, docs = pd.factorize(frame.doc_id)
    subtopic = _subtopic_order(frame.subtopic_id)
    first, inverse = _groups(query * np.int64(max(len(docs), 1)) + doc)
    _check_duplicates(frame, "subtopic qrels DataFrame", inverse * (subtopic.max(initial=0) + 1) + subtopic)
    relevance = frame.relevance.to_numpy(np.int64)
    relevant = relevance >= 1
    bits = _intent_bits(query[relevant], subtopic[relevant], queries)
    # distinct bits below 2**32: their float sum is exact, and is their union
    mask = np.bincount(inverse[relevant], weights=np.left_shift(1, bits).astype(np.float64),
                       minlength=len(first)).astype(np.int64)
    largest = np.full(len(first), np.iinfo(np.int64).min)
    np.maximum.at(largest, inverse, relevance)
    place = _places(query[first], doc[first], mask > 0, docs)
    label = np.where(mask > 0, place * _INTENT_SHIFT + mask, np.minimum(largest, 0))
    out = pd.DataFrame({"query_id": _id_column(queries, query[first], frame.query_id),
                        "doc_id": _id_column(docs, doc[first], frame.doc_id), "relevance": label})
    out.attrs["name"] = name
    return out


def _groups(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_index=True, return_inverse=True)[1:]``: the first row of each
    distinct key in key order, and each row's group; hashed, so only the distinct keys are
    sorted."""
    codes, uniques = pd.factorize(key)
    order = np.argsort(uniques, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    seen = np.maximum.accumulate(codes)  # codes number the keys in order of first appearance
    new = np.ones(len(codes), dtype=bool)
    new[1:] = seen[1:] > seen[:-1]
    return np.flatnonzero(new)[order], rank[codes]


def _byte_order(ids: pd.Index) -> np.ndarray:
    """The order of ``ids`` by their bytes (UTF-8, ``surrogateescape``): Arrow's sort of
    Arrow strings (which compares bytes), else Python's of each id's bytes."""
    if isinstance(ids.dtype, pd.StringDtype) and ids.dtype.storage == "pyarrow":
        return pc.sort_indices(pa.array(ids.array)).to_numpy()
    return np.argsort(np.array([d.encode("utf-8", "surrogateescape") for d in ids], dtype=object), kind="stable")


def _intent_bits(query: np.ndarray, subtopic: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The bit of each relevant judgment's intent: its subtopic's rank among the query's
    subtopics with a relevant judgment."""
    width = np.int64(subtopic.max(initial=0) + 1)
    key = query * width + subtopic
    pairs = np.unique(key)  # by query, then subtopic
    first = pairs // width
    bit = np.arange(len(pairs)) - np.searchsorted(first, first)
    if len(bit) and bit.max() >= _MAX_INTENTS:
        raise ValueError(f"query {queries[first[np.argmax(bit)]]!r} has more than {_MAX_INTENTS} intents "
                         "(subtopics with a relevant document); rankkit's diversity measures take up to 32")
    return bit[np.searchsorted(pairs, key)]


def _places(query: np.ndarray, doc: np.ndarray, relevant: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Each relevant document's place (1, 2, ...) among its query's relevant documents by id
    bytes, ascending; 0 for the others."""
    by_bytes = np.empty(len(docs), dtype=np.int64)
    by_bytes[_byte_order(docs)] = np.arange(len(docs))
    rows = np.flatnonzero(relevant)
    order = rows[np.lexsort((by_bytes[doc[rows]], query[rows]))]
    start = np.searchsorted(query[order], query[order])
    place = np.zeros(len(query), dtype=np.int64)
    place[order] = np.arange(len(order)) - start + 1
    if place.max(initial=0) >= _MAX_PLACE:
        raise ValueError(f"a query has {place.max()} relevant documents; rankkit's diversity measures take "
                         f"fewer than {_MAX_PLACE}")
    return place


# --------------------------------------------------------------------------- ndeval's runs


#: ndeval's topic numbers: digits, or digits after a prefix ending in '-' (``wt09-12``).
_TOPIC = re.compile(r"(?:[^0-9][^-]*-)?(\d{1,6})")


def _topic_numbers(tokens: _Columns | _Tokens) -> tuple[np.ndarray, pa.Array]:
    """Each line's topic number, and its text, parsed once per distinct topic field."""
    codes, uniques = _uniques(tokens.column(0))
    numbers, bad = np.zeros(len(uniques), dtype=np.int64), []
    for i, raw in enumerate(uniques):
        found = _TOPIC.fullmatch(_text(raw))
        if found is None:
            bad.append(i)
        else:
            numbers[i] = int(found.group(1))
    if bad:
        at = _first_bad(codes, bad)
        raise ValueError(f"{tokens.name} line {at + 1}: topic must be a number (or prefix-number, as wt09-1), "
                         f"got {_text(uniques[codes[at]])!r}")
    text = pa.array([str(n) for n in numbers.tolist()], type=pa.large_string()).take(pa.array(codes))
    return numbers[codes], text


def read_ndeval_run(path: str | os.PathLike, *, traditional: bool = False) -> tuple[str, pd.DataFrame]:
    """Read a TREC run file as ndeval reads it: (its tag, a frame ``query_id`` (topic number
    as text), ``doc_id``, ``score``), the score giving ndeval's order.

    ndeval orders a topic's documents by the rank column (a natural number), or with
    ``traditional`` by score descending, then document id descending (trec_eval's order);
    the tag is the first line's. Topic ids may carry a task prefix ending in '-' (``wt09-1``);
    fields after the sixth are ignored. The score returned is minus the rank, or the score
    itself with ``traditional``.

    Raises
    ------
    ValueError
        A line with fewer than six fields, a topic, rank or score that is not a number (file
        and line named), a rank or document given twice for a topic, an empty file.
    """
    tokens = _fields(path, 6, False, "topic Q0 docno rank score tag")
    topic, topic_text = _topic_numbers(tokens)
    doc = tokens.column(2)
    rank = _integers(tokens, 3, "rank must be a natural number", rb"[+-]?\d{1,18}")
    score = _floats(tokens, 4, "score must be a finite number", rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
    if (rank < 0).any():
        at = int(np.flatnonzero(rank < 0)[0])
        raise ValueError(f"{tokens.name} line {at + 1}: rank must be a natural number, "
                         f"got {_text(tokens.raw(3, at))!r}")
    frame = pd.DataFrame({"query_id": topic_text.to_pandas(), "doc_id": _strings(doc),
                          "score": score if traditional else -rank.astype(np.float64)})
    doc_codes = _codes(doc.dictionary_encode())
    checks = [("doc_id", doc_codes)] if traditional else [("rank", rank), ("doc_id", doc_codes)]
    for column, values in checks:  # ndeval's: a rank given twice for a topic, a document retrieved twice
        if _has_twins(_row_codes([topic, values])):
            _name_twins(frame.assign(rank=rank), tokens.name, column)
    return _text(tokens.raw(5, 0)), frame


def _name_twins(frame: pd.DataFrame, name: str, column: str) -> None:
    """ndeval's error for a rank given twice for a topic, or a document retrieved twice."""
    row = frame[frame.duplicated(["query_id", column])].iloc[0]
    what = "rank" if column == "rank" else "docno"
    raise ValueError(f"{name}: duplicate {what} ({row[column]}) for topic {row.query_id}")
