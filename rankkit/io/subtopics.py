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


#: bytes.split()'s whitespace: tab, newline, vertical tab, form feed, carriage return, space.
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 32]] = True


def _fields_per_line(data: bytes) -> np.ndarray:
    """How many whitespace-separated fields each line of ``data`` holds (lines end at \\n)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    space = _SPACE[buf]
    starts = np.flatnonzero(~space & np.concatenate([[True], space[:-1]]))
    ends = np.flatnonzero(buf == 10)
    n_lines = len(ends) + (0 if data.endswith(b"\n") else 1)
    return np.bincount(np.searchsorted(ends, starts), minlength=n_lines)


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _fields(path: str | os.PathLike, width: int, exact: bool, what: str) -> list[np.ndarray]:
    """The first ``width`` whitespace-separated fields of every line, one array of bytes per
    column; a line with another number of fields (fewer, or more when ``exact``) is named."""
    name, data = os.fsdecode(path), _bytes(path)
    if not data.strip():
        raise ValueError(f"{name}: empty file, expected lines '{what}'")
    counts = _fields_per_line(data)
    bad = counts != width if exact else counts < width
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        hint = " (a run line?)" if width == 4 and counts[at] == 6 else ""
        raise ValueError(f"{name} line {at + 1}: expected {width} columns '{what}', got {counts[at]}{hint}")
    tokens = np.array(data.split(), dtype=object)
    if (counts == width).all():
        table = tokens.reshape(len(counts), width)
    else:  # fields after the width-th left out, as ndeval does
        table = tokens[(np.cumsum(counts) - counts)[:, None] + np.arange(width)]
    return [table[:, j] for j in range(width)]


def _strings(column: np.ndarray) -> pd.Series:
    """Bytes as str: UTF-8 as pandas' strings; a column with other bytes as Python str of
    dtype object, those bytes kept with ``surrogateescape`` (as :mod:`rankkit.io.readers` does)."""
    try:
        return pd.Series(pa.array(column, type=pa.binary()).cast(pa.string()).to_numpy(zero_copy_only=False))
    except pa.ArrowInvalid:
        return pd.Series([_text(raw) for raw in column], dtype=object)


def _text_series(column: pd.Series) -> pd.Series:
    """A frame's id column as str (ids that are not valid UTF-8 kept as Python str, dtype object)."""
    try:
        return column.astype(str).reset_index(drop=True)
    except UnicodeEncodeError:
        return pd.Series([str(value) for value in column], dtype=object)


def _numbers(column: np.ndarray, dtype: type, name: str, what: str, pattern: bytes) -> np.ndarray:
    """``column`` parsed as ``dtype``; the first line whose field does not match ``pattern`` is named."""
    try:
        values = column.astype(np.bytes_).astype(dtype)
        if dtype is np.float64 and np.isfinite(values).all():
            return values
    except ValueError:
        values = None
    if dtype is np.int64 and values is not None:
        return values
    for at, raw in enumerate(column):
        if not re.fullmatch(pattern, raw) or (dtype is np.float64 and not np.isfinite(float(raw))):
            raise ValueError(f"{name} line {at + 1}: {what}, got {_text(raw)!r}")
    raise ValueError(f"{name}: {what}")  # not reached: some field failed to parse


def _of_file(path: str | os.PathLike) -> pd.DataFrame:
    name = os.fsdecode(path)
    topic, subtopic, doc, judgment = _fields(path, 4, True, "topic subtopic docno judgment")
    frame = pd.DataFrame({"query_id": _strings(topic), "subtopic_id": _strings(subtopic), "doc_id": _strings(doc),
                          "relevance": _numbers(judgment, np.int64, name, "judgment must be an integer",
                                                rb"[+-]?\d+")})
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


def _check_duplicates(frame: pd.DataFrame, where: str) -> None:
    twice = frame.duplicated(list(SUBTOPIC_COLUMNS[:3]), keep=False).to_numpy()
    if twice.any():
        first = np.flatnonzero(twice)
        row = frame.iloc[first[0]]
        same = first[(frame.iloc[first][list(SUBTOPIC_COLUMNS[:3])] == row[list(SUBTOPIC_COLUMNS[:3])]).all(axis=1)]
        lines = f" (lines {', '.join(str(i + 1) for i in same)})" if frame.attrs.get("lines") else ""
        raise ValueError(f"{where}: document {row.doc_id!r} judged twice for query {row.query_id!r}, "
                         f"subtopic {row.subtopic_id!r}{lines}")


def _subtopic_order(subtopics: np.ndarray) -> np.ndarray:
    """Each subtopic's rank in subtopic order: by number when all ids are integers (ndeval's),
    else by text."""
    digits = all(isinstance(s, str) and s.isascii() and s.isdigit() for s in subtopics)
    keys = subtopics.astype(np.int64) if digits else subtopics
    return np.unique(keys, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _id_column(values: np.ndarray, like: pd.Series) -> pd.Series:
    return pd.Series(values, dtype=like.dtype)


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
    frame = read_subtopic_qrels(frame)  # checked again: a frame may have been edited since it was read
    query, queries = pd.factorize(frame.query_id.to_numpy(dtype=object))
    doc, docs = pd.factorize(frame.doc_id.to_numpy(dtype=object))
    relevance = frame.relevance.to_numpy(np.int64)
    relevant = relevance >= 1
    bits = _intent_bits(query[relevant], _subtopic_order(frame.subtopic_id.to_numpy(dtype=object))[relevant],
                        queries)
    keys, first, inverse = np.unique(query * np.int64(max(len(docs), 1)) + doc, return_index=True,
                                     return_inverse=True)
    inverse = inverse.reshape(-1)
    mask = np.zeros(len(keys), dtype=np.int64)
    np.add.at(mask, inverse[relevant], np.int64(1) << bits)  # distinct bits: the sum is the union
    largest = np.full(len(keys), np.iinfo(np.int64).min)
    np.maximum.at(largest, inverse, relevance)
    place = _places(query[first], doc[first], mask > 0, docs)
    label = np.where(mask > 0, place * _INTENT_SHIFT + mask, np.minimum(largest, 0))
    out = pd.DataFrame({"query_id": _id_column(queries[query[first]], frame.query_id),
                        "doc_id": _id_column(docs[doc[first]], frame.doc_id), "relevance": label})
    out.attrs["name"] = name
    return out


def _intent_bits(query: np.ndarray, subtopic: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The bit of each relevant judgment's intent: its subtopic's rank among the query's
    subtopics with a relevant judgment."""
    pairs = np.unique(np.stack([query, subtopic], axis=1), axis=0).reshape(-1, 2)  # by query, then subtopic
    bit = np.arange(len(pairs)) - np.searchsorted(pairs[:, 0], pairs[:, 0])
    if len(bit) and bit.max() >= _MAX_INTENTS:
        raise ValueError(f"query {queries[pairs[np.argmax(bit), 0]]!r} has more than {_MAX_INTENTS} intents "
                         "(subtopics with a relevant document); rankkit's diversity measures take up to 32")
    width = np.int64(subtopic.max(initial=0) + 1)
    return bit[np.searchsorted(pairs[:, 0] * width + pairs[:, 1], query * width + subtopic)]


def _places(query: np.ndarray, doc: np.ndarray, relevant: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Each relevant document's place (1, 2, ...) among its query's relevant documents by id
    bytes, ascending; 0 for the others."""
    by_bytes = np.empty(len(docs), dtype=np.int64)
    by_bytes[np.argsort(np.array([d.encode("utf-8", "surrogateescape") for d in docs], dtype=object),
                        kind="stable")] = np.arange(len(docs))
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


def _topic_numbers(topics: np.ndarray, name: str) -> np.ndarray:
    """ndeval's topic numbers: digits, or digits after a prefix ending in '-' (``wt09-12``)."""
    raw = topics.astype(np.bytes_)
    if raw.dtype.itemsize <= 6 and np.char.isdigit(raw).all():  # the common case, without a pattern per line
        return raw.astype(np.int64)
    text = _strings(topics).astype(object)
    digits = text.str.extract(r"^(?:[^0-9][^-]*-)?(\d{1,6})$", expand=False)
    if digits.isna().any():
        at = int(np.flatnonzero(digits.isna().to_numpy())[0])
        raise ValueError(f"{name} line {at + 1}: topic must be a number (or prefix-number, as wt09-1), "
                         f"got {text.iloc[at]!r}")
    return digits.astype(np.int64).to_numpy()


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
    name = os.fsdecode(path)
    topic, _, doc, rank, score, tag = _fields(path, 6, False, "topic Q0 docno rank score tag")
    frame = pd.DataFrame({"query_id": _topic_numbers(topic, name).astype(str), "doc_id": _strings(doc),
                          "rank": _numbers(rank, np.int64, name, "rank must be a natural number", rb"\d{1,9}"),
                          "score": _numbers(score, np.float64, name, "score must be a finite number",
                                            rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")})
    if (frame["rank"] < 0).any():
        at = int(np.flatnonzero(frame["rank"].to_numpy() < 0)[0])
        raise ValueError(f"{name} line {at + 1}: rank must be a natural number, got {_text(rank[at])!r}")
    _check_run(frame, name, traditional)
    out = frame[["query_id", "doc_id"]].assign(score=frame.score if traditional else -frame["rank"].astype(float))
    return _text(tag[0]), out


def _check_run(frame: pd.DataFrame, name: str, traditional: bool) -> None:
    """ndeval's checks: a rank given twice for a topic (unless ranks come from scores), a
    document retrieved twice."""
    for column, what in (("rank", "rank"), ("doc_id", "docno")):
        if column == "rank" and traditional:
            continue
        twice = frame.duplicated(["query_id", column])
        if twice.any():
            row = frame[twice].iloc[0]
            raise ValueError(f"{name}: duplicate {what} ({row[column]}) for topic {row.query_id}")
