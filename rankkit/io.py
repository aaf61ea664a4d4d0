"""Reading judgments (qrels) and runs: TREC files, pandas DataFrames and dicts.

Both readers return a pandas DataFrame with one row per (query, document):

- qrels: ``query_id``, ``doc_id``, ``relevance`` (int64, or float64 when a label is not an
  integer). Labels below 0 are kept: trec_eval reads them as "pooled but not judged".
- run: ``query_id``, ``doc_id``, ``score`` (float64); the run tag in ``df.attrs["name"]``.

Column types, chosen for :func:`rankkit.rankings.rank` and measured on a 10-million-line run:

- ``query_id``: a pandas Categorical whose categories are the distinct ids as ``str``,
  sorted the way trec_eval sorts query ids (byte order). A run has few queries, so this
  costs 1-2 bytes a row instead of ~12, and ``rank`` orders and groups by the codes.
- ``doc_id``: pandas' pyarrow-backed string dtype (``str`` in pandas 3). It comes from the
  parser without a copy into Python objects, and ``rank`` hands it straight back to Arrow
  and NumPy, where each id becomes a 64-bit key (see ``_string_keys``). A Categorical was
  measured and rejected here: unifying the parser's per-block dictionaries of ~2 million
  distinct documents took ~6 s, more than reading the file.

Files are parsed by ``pyarrow.csv`` (multi-threaded, only the needed columns, no Python
loop per line); a line the fast parser cannot take (odd whitespace, trailing columns like
trec_eval's ``results.trunc``) is parsed on its own, and on any error a slow line-by-line
scan names the file and the line.
"""

from __future__ import annotations

import gzip
import math
import os
import weakref
from collections.abc import Mapping
from itertools import chain
from pathlib import Path
from typing import Any, Union

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

__all__ = ["read_qrels", "read_run"]

Source = Union[str, os.PathLike, pd.DataFrame, Mapping]

# kind -> (value column, file column names, how many columns a line must have, extra allowed)
_FORMATS = {
    "qrels": ("relevance", ("query_id", "iter", "doc_id", "relevance"), 4, False),
    "run": ("score", ("query_id", "q0", "doc_id", "rank", "score", "tag"), 6, True),
}
_QUERY_TYPE = pa.dictionary(pa.int32(), pa.large_string())  # few distinct query ids
_DOC_KEYS = "rankkit.doc_keys"  # attrs key: the _DocKeys the duplicate check built, for rank


def read_qrels(source: Source, *, name: str | None = None) -> pd.DataFrame:
    """Read relevance judgments from a TREC qrels file, a DataFrame or a dict.

    Parameters
    ----------
    source : path, pandas.DataFrame or dict
        A TREC qrels file (``query_id iteration doc_id relevance``, whitespace separated,
        ``.gz`` allowed; the iteration column is ignored, as trec_eval does); a DataFrame
        with columns ``query_id``, ``doc_id``, ``relevance``; or ``{query_id: {doc_id: label}}``.
    name : str, optional
        Stored in ``df.attrs["name"]`` (default None).

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id`` (Categorical of str, categories sorted), ``doc_id``
        (pyarrow-backed str) and ``relevance`` (int64, or float64 if some label is not an
        integer). Labels below 0 are kept
        (trec_eval: pooled but not judged; :func:`rankkit.rankings.rank` treats them as
        unjudged and non-relevant).

    Raises
    ------
    ValueError
        Malformed line (file and line number), non-numeric or non-finite label,
        a document judged twice for one query (query and document named), an empty file.

    Examples
    --------
    >>> qrels = read_qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d7": 1}})
    >>> qrels
      query_id doc_id  relevance
    0       q1     d1          2
    1       q1     d2          0
    2       q2     d7          1
    >>> read_qrels({"q1": {"d1": 0.5}}).relevance.dtype
    dtype('float64')
    """
    return _read(source, "qrels", name)


def read_run(source: Source, *, name: str | None = None) -> pd.DataFrame:
    """Read a run (retrieved documents with scores) from a TREC file, a DataFrame or a dict.

    Parameters
    ----------
    source : path, pandas.DataFrame or dict
        A TREC run file (``query_id Q0 doc_id rank score tag``, whitespace separated,
        ``.gz`` allowed; the ``Q0`` and rank columns are ignored, and so are columns after the
        tag, as trec_eval does); a DataFrame with columns ``query_id``, ``doc_id``, ``score``;
        or ``{query_id: {doc_id: score}}``.
    name : str, optional
        Stored in ``df.attrs["name"]``; default the run tag of the file's first line (for a
        DataFrame or dict: its ``attrs["name"]`` if any, else None).

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id`` (Categorical of str, categories sorted), ``doc_id``
        (pyarrow-backed str) and ``score`` (float64), in input order; ranks are not stored
        (trec_eval ignores them and orders by score).

    Raises
    ------
    ValueError
        Malformed line (file and line number), a non-numeric, NaN or infinite score,
        a document retrieved twice for one query (query and document named), an empty file.

    Examples
    --------
    >>> run = read_run({"q1": {"d1": 0.9, "d2": 0.4}}, name="bm25")
    >>> run
      query_id doc_id  score
    0       q1     d1    0.9
    1       q1     d2    0.4
    >>> run.attrs["name"]
    'bm25'
    >>> import pandas as pd
    >>> read_run(pd.DataFrame({"query_id": [1, 1], "doc_id": ["a", "b"], "score": [2, 1]})).dtypes.score
    dtype('float64')
    """
    return _read(source, "run", name)


# --------------------------------------------------------------------------- dispatch

def _read(source: Any, kind: str, name: str | None) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        # Always validated again, even a frame these readers returned: it may have been
        # edited in place since (a NaN score, a duplicated document).
        df = _from_frame(source, kind)
        label = name if name is not None else source.attrs.get("name")
    elif isinstance(source, Mapping):
        df = _from_dict(source, kind)
        label = name
    elif isinstance(source, (str, os.PathLike)):
        df, tag = _from_file(Path(source), kind)
        label = name if name is not None else tag
    else:
        raise ValueError(
            f"{kind} must be a file path, a pandas DataFrame or a dict {{query_id: {{doc_id: value}}}}, "
            f"got {type(source).__name__}"
        )
    df.attrs["name"] = label
    return df


def _frame(query_ids: pa.Array, doc_ids: pa.Array, values: np.ndarray, kind: str) -> pd.DataFrame:
    """The result frame; ids stay Arrow-backed, values become int64 where all are integers."""
    value_col = _FORMATS[kind][0]
    if kind == "qrels":
        values = _as_labels(values)
    return pd.DataFrame({
        "query_id": query_ids if isinstance(query_ids, pd.Series) else _query_series(query_ids),
        "doc_id": _string_series(doc_ids),
        value_col: values,
    })


def _query_series(arr: pa.Array | pa.ChunkedArray) -> pd.Series:
    """Query ids as a Categorical whose categories are the distinct ids, sorted as strings."""
    if not isinstance(arr, pa.ChunkedArray):
        arr = pa.chunked_array([arr])
    if len(arr) == 0:
        return pd.Series(pd.Categorical([], categories=pd.Index([], dtype=_STR)))
    if not pa.types.is_dictionary(arr.type):
        arr = pc.dictionary_encode(arr)
    # Every dictionary here (the CSV parser's, one per block, or dictionary_encode's) holds
    # only ids that occur in its chunk, and pandas unifies them into their union: all used.
    return _canonical_categories(arr.to_pandas(), all_used=True)


def _canonical_categories(series: pd.Series, all_used: bool = False) -> pd.Series:
    """Used categories only, as str, sorted like trec_eval sorts query ids (byte order).

    ``all_used=True`` says every category occurs, which saves counting the codes (for the
    parser's output; a user's Categorical may have unused categories).
    """
    codes = np.asarray(series.cat.codes)
    categories = series.cat.categories
    if all_used:
        used = np.arange(len(categories))
    else:
        used = np.flatnonzero(np.bincount(codes, minlength=len(categories)) > 0)  # cheaper than pandas'
    names = [c if isinstance(c, str) else str(c) for c in categories[used].tolist()]
    if len(set(names)) < len(names):
        dup = next(x for x in names if names.count(x) > 1)
        raise ValueError(f"query ids {dup!r} occur as different types (e.g. 1 and '1')")
    by_name = sorted(range(len(names)), key=names.__getitem__)
    if len(used) == len(categories) and by_name == list(range(len(names))) and categories.dtype == _STR:
        return series.reset_index(drop=True)
    remap = np.zeros(len(categories), dtype=codes.dtype if len(names) < np.iinfo(codes.dtype).max else np.int32)
    remap[used[by_name]] = np.arange(len(names))
    new = pd.Categorical.from_codes(
        remap[codes], categories=pd.Index([names[i] for i in by_name], dtype=_STR), validate=False
    )
    return pd.Series(new)


def _string_dtype() -> pd.StringDtype:
    """pandas' Arrow-backed string dtype with NaN for missing values: ``str`` in pandas 3,
    ``StringDtype("pyarrow", na_value=np.nan)`` from pandas 2.3, and the same type under
    its earlier name ``"pyarrow_numpy"`` in pandas 2.1 and 2.2 (public names all)."""
    try:
        return pd.StringDtype("pyarrow", na_value=np.nan)
    except TypeError:  # pandas < 2.3
        return pd.StringDtype("pyarrow_numpy")


_STR = _string_dtype()


def _string_series(arr: pa.Array | pa.ChunkedArray) -> pd.Series:
    if not isinstance(arr, pa.ChunkedArray):
        arr = pa.chunked_array([arr])
    if arr.type not in (pa.string(), pa.large_string()):
        arr = arr.cast(pa.string())
    try:
        values = _STR.__from_arrow__(arr)  # pandas' Arrow protocol: no copy
    except (TypeError, ValueError):  # pandas 2.1 takes only 32-bit offsets (string, not large_string)
        values = _STR.__from_arrow__(arr.cast(pa.string()))
    return pd.Series(values, copy=False)


def _as_labels(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0 or np.array_equal(values, np.round(values)):
        return values.astype(np.int64)
    return values


# --------------------------------------------------------------------------- DataFrame

def _from_frame(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    value_col = _FORMATS[kind][0]
    missing = [c for c in ("query_id", "doc_id", value_col) if c not in df.columns]
    if missing:
        raise ValueError(
            f"{kind} DataFrame must have columns query_id, doc_id, {value_col}; missing {', '.join(missing)}"
        )
    ids = []
    for col in ("query_id", "doc_id"):
        series = df[col]
        if series.isna().any():
            row = _plain(series.index[series.isna().to_numpy()][0])
            raise ValueError(f"{kind} DataFrame: {col} is missing in row {row!r}")
        if col == "query_id" and isinstance(series.dtype, pd.CategoricalDtype):
            ids.append(_canonical_categories(series))
        else:
            ids.append(_arrow_strings(series))
    raw = df[value_col]
    try:
        values = raw.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(values) & raw.notna().to_numpy()
        row = _plain(raw.index[bad][0] if bad.any() else raw.index[0])
        raise ValueError(f"{kind} DataFrame: {value_col} must be a number, got {raw[row]!r} in row {row!r}") from None
    out = _frame(ids[0], ids[1], values, kind)
    _check_values(out, kind, where=f"{kind} DataFrame")
    _check_duplicates(out, kind, where=f"{kind} DataFrame")
    return out


def _plain(label: Any) -> Any:
    """An index label as Python shows it (``1``, not numpy 2's ``np.int64(1)``)."""
    return label.item() if isinstance(label, np.generic) else label


def _arrow_strings(series: pd.Series) -> pa.ChunkedArray:
    arr = series.array
    if isinstance(arr, pd.arrays.ArrowStringArray) or isinstance(series.dtype, pd.ArrowDtype):
        chunked = arr.__arrow_array__()
        if pa.types.is_string(chunked.type) or pa.types.is_large_string(chunked.type):
            return chunked
    return pa.chunked_array([pa.array(series.astype(str).to_numpy(dtype=object), type=pa.string())])


# --------------------------------------------------------------------------- dict

def _from_dict(source: Mapping, kind: str) -> pd.DataFrame:
    value_col = _FORMATS[kind][0]
    inner = list(source.values())
    for qid, docs in source.items():
        if not isinstance(docs, Mapping):
            raise ValueError(f"{kind}[{qid!r}] must be a dict {{doc_id: {value_col}}}, got {type(docs).__name__}")
    lengths = np.fromiter((len(d) for d in inner), dtype=np.int64, count=len(inner))
    total = int(lengths.sum())
    try:
        values = np.fromiter(chain.from_iterable(d.values() for d in inner), dtype=np.float64, count=total)
    except (TypeError, ValueError):
        for qid, docs in source.items():
            for doc, value in docs.items():
                if not _is_number(value):
                    raise ValueError(f"{kind}[{qid!r}][{doc!r}]: {value_col} must be a number, got {value!r}") from None
        raise  # pragma: no cover - fromiter failed for a reason the scan did not find
    doc_list = list(chain.from_iterable(inner))
    try:
        doc_ids = pa.array(doc_list, type=pa.large_string())
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        doc_ids = pa.array([str(d) for d in doc_list], type=pa.large_string())
    del doc_list
    # Query ids straight to a Categorical with sorted categories (the readers' convention).
    names = [q if isinstance(q, str) else str(q) for q in source.keys()]
    keep = lengths > 0  # a query with an empty dict has no row
    by_name = sorted(np.flatnonzero(keep).tolist(), key=names.__getitem__)
    sorted_names = [names[i] for i in by_name]
    if len(set(sorted_names)) < len(sorted_names):
        dup = next(x for x in sorted_names if sorted_names.count(x) > 1)
        raise ValueError(f"query ids {dup!r} occur as different types (e.g. 1 and '1')")
    code_of = np.zeros(len(names), dtype=np.int32)
    code_of[by_name] = np.arange(len(by_name), dtype=np.int32)
    query_ids = pd.Series(pd.Categorical.from_codes(
        np.repeat(code_of, lengths), categories=pd.Index(sorted_names, dtype=_STR), validate=False
    ))
    out = _frame(query_ids, doc_ids, values, kind)
    _check_values(out, kind, where=kind)
    return out  # dict keys are unique: no duplicate check needed


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, (str, bytes))


# --------------------------------------------------------------------------- files

def _from_file(path: Path, kind: str) -> tuple[pd.DataFrame, str | None]:
    value_col, names, ncols, extra_ok = _FORMATS[kind]
    if not path.is_file():
        raise ValueError(f"{kind} file not found: {path}")
    first = _first_line(path)
    if first is None:
        raise ValueError(f"{path}: empty file, expected {kind} lines")
    first_fields = first.split()
    tag = first_fields[5] if kind == "run" and len(first_fields) >= 6 else None
    delimiter = "\t" if "\t" in first else " "
    stash: list[str] = []

    def keep_aside(row) -> str:
        stash.append(row.text)
        return "skip"

    columns = ["query_id", "doc_id", value_col]
    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=list(names), block_size=1 << 22),  # 4 MB blocks: lower peak memory
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter, quote_char=False, escape_char=False, invalid_row_handler=keep_aside
            ),
            convert_options=pacsv.ConvertOptions(
                include_columns=columns,
                column_types={"query_id": _QUERY_TYPE, "doc_id": pa.large_string(), value_col: pa.float64()},
                strings_can_be_null=False, quoted_strings_can_be_null=False, null_values=[],
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return _slow_scan(path, kind), tag
    query_ids, doc_ids = table.column("query_id"), table.column("doc_id")
    values = table.column(value_col).to_numpy()
    del table
    pa.default_memory_pool().release_unused()  # the parser's blocks: lower the peak that follows
    if stash:
        parsed = [_split(text, ncols, extra_ok) for text in stash]
        parsed = [p for p in parsed if p != ()]  # whitespace-only lines
        if any(p is None for p in parsed):
            return _slow_scan(path, kind), tag  # raises, naming the line
        try:
            extra_values = np.array([float(p[2]) for p in parsed], dtype=np.float64)
        except ValueError:
            return _slow_scan(path, kind), tag
        extra_q = pa.array([p[0] for p in parsed], pa.large_string()).dictionary_encode()
        query_ids = pa.chunked_array(query_ids.chunks + [extra_q])
        doc_ids = pa.chunked_array(doc_ids.chunks + [pa.array([p[1] for p in parsed], doc_ids.type)])
        values = np.concatenate([values, extra_values])
    if len(values) == 0:
        raise ValueError(f"{path}: empty file, expected {kind} lines")
    # An id holding the other whitespace character ("a b" in a tab-separated file) means
    # the fast parser did not split the line the way trec_eval does (on any whitespace).
    other = ord(" " if delimiter == "\t" else "\t")
    if _has_byte(doc_ids, other) or _has_byte(query_ids, other) or not np.isfinite(values).all():
        return _slow_scan(path, kind), tag
    out = _frame(query_ids, doc_ids, values, kind)
    del query_ids, doc_ids, values
    pa.default_memory_pool().release_unused()
    _check_duplicates(out, kind, where=str(path))
    pa.default_memory_pool().release_unused()  # Arrow's allocator keeps freed blocks otherwise
    return out, tag


def _has_byte(ids: pa.ChunkedArray, byte: int) -> bool:
    """Whether any string (for dictionary arrays: any dictionary value) contains ``byte``."""
    for chunk in ids.chunks:
        if pa.types.is_dictionary(chunk.type):
            chunk = chunk.dictionary
        if len(chunk) == 0:
            continue
        offsets_buffer, data = chunk.buffers()[1:3]
        if data is None:
            continue
        width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
        offsets = np.frombuffer(offsets_buffer, dtype=width)[chunk.offset: chunk.offset + len(chunk) + 1]
        if (np.frombuffer(data, dtype=np.uint8)[offsets[0]: offsets[-1]] == byte).any():
            return True
    return False


def _open_text(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="surrogateescape")
    return open(path, encoding="utf-8", errors="surrogateescape")


def _first_line(path: Path) -> str | None:
    with _open_text(path) as f:
        for line in f:
            if line.strip():
                return line
    return None


def _split(text: str, ncols: int, extra_ok: bool):
    """(query, doc, value) of one line; () for a blank line; None if the column count is wrong."""
    fields = text.split()
    if not fields:
        return ()
    if len(fields) < ncols or (len(fields) > ncols and not extra_ok):
        return None
    return fields[0], fields[2], fields[ncols - 2 if ncols == 6 else 3]


def _slow_scan(path: Path, kind: str) -> pd.DataFrame:
    """Parse line by line in Python: names the first bad line, else returns the data."""
    value_col, _, ncols, extra_ok = _FORMATS[kind]
    queries, docs, values = [], [], []
    with _open_text(path) as f:
        for number, line in enumerate(f, start=1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) < ncols or (len(fields) > ncols and not extra_ok):
                expected = f"at least {ncols}" if extra_ok else f"{ncols}"
                raise ValueError(f"{path} line {number}: expected {expected} columns, got {len(fields)}")
            text = fields[4] if kind == "run" else fields[3]
            try:
                value = float(text)
            except ValueError:
                raise ValueError(f"{path} line {number}: {value_col} must be a number, got {text!r}") from None
            if not math.isfinite(value):
                raise ValueError(f"{path} line {number}: {value_col} must be finite, got {text!r}")
            queries.append(fields[0])
            docs.append(fields[2])
            values.append(value)
    if not values:
        raise ValueError(f"{path}: empty file, expected {kind} lines")
    out = _frame(pa.array(queries, pa.string()), pa.array(docs, pa.string()), np.array(values), kind)
    _check_duplicates(out, kind, where=str(path))
    return out


# --------------------------------------------------------------------------- checks

def _check_values(df: pd.DataFrame, kind: str, where: str) -> None:
    value_col = _FORMATS[kind][0]
    values = df[value_col].to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{where}: {value_col} must be finite, got {float(values[i])!r} "
            f"for query {df.query_id.iloc[i]!r}, document {df.doc_id.iloc[i]!r}"
        )


def _check_duplicates(df: pd.DataFrame, kind: str, where: str) -> None:
    """A document listed twice for one query is an error (trec_eval rejects it too).

    The document keys built on the way are kept in ``df.attrs`` (see :class:`_DocKeys`):
    :func:`rankkit.rankings.rank` needs them too.
    """
    ids = _arrow_ids(df.doc_id)
    longest = _longest(ids)
    [doc_keys] = _string_keys(ids, n_words=_n_words(longest))
    df.attrs[_DOC_KEYS] = _DocKeys(ids, doc_keys, longest)
    if len(df) < 2:
        return
    # One 64-bit key per (query, document), sorted in place; equal neighbours are suspects.
    key = _pair_keys(df, doc_keys)
    key.sort()
    same = key[1:] == key[:-1]
    if not same.any():
        return
    # Confirm on the strings (a hash collision is not an error).
    idx = np.flatnonzero(np.isin(_pair_keys(df, doc_keys), key[1:][same]))
    sub = pd.DataFrame({"q": df.query_id.to_numpy()[idx], "d": df.doc_id.to_numpy()[idx]})
    dup = sub.duplicated(keep=False).to_numpy()
    if dup.any():
        first = sub[dup].iloc[0]
        what = "judged" if kind == "qrels" else "retrieved"
        raise ValueError(
            f"{where}: document {first.d!r} is {what} twice for query {first.q!r} "
            f"(trec_eval rejects duplicates; remove one)"
        )


def _query_codes(series: pd.Series) -> tuple[np.ndarray, list]:
    """Codes and categories of a query id column (a Categorical, as these readers make)."""
    return np.asarray(series.cat.codes), series.cat.categories.tolist()


class _DocKeys:
    """The keys of a frame's ``doc_id`` column (:func:`_string_keys`, one id per key, keyed
    alone) and its longest id in bytes, kept in the frame's ``attrs`` by the readers.

    They are tied to the column's Arrow array by a weak reference: pandas copies ``attrs``
    to every derived frame, but only a frame whose ``doc_id`` is that very array (Arrow
    arrays are immutable, so the same ids in the same order) may use them; any other
    frame gets its keys built afresh. A copy of this object is the object itself (pandas
    deep-copies ``attrs`` on every derived frame and Series), equality is identity, and
    the keys are read-only.
    """

    __slots__ = ("ids", "keys", "longest")

    def __init__(self, ids: pa.ChunkedArray, keys: np.ndarray, longest: int):
        keys.flags.writeable = False  # shared with every caller of _doc_keys
        self.ids, self.keys, self.longest = weakref.ref(ids), keys, longest

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        # Not pickled (a weak reference cannot be, and the array it names stays behind):
        # unpickled as None, the frame's keys are then built when needed.
        return (type(None), ())

    def __repr__(self) -> str:
        return f"<rankkit document keys: {len(self.keys)} rows>"


def _doc_keys(df: pd.DataFrame) -> tuple[np.ndarray, int]:
    """The keys of ``df.doc_id`` keyed alone (read-only) and its longest id in bytes:
    the ones the readers kept if ``df`` is their frame, else built now."""
    ids = _arrow_ids(df.doc_id)
    cached = df.attrs.get(_DOC_KEYS)
    if isinstance(cached, _DocKeys) and cached.ids() is ids:
        return cached.keys, cached.longest
    longest = _longest(ids)
    [keys] = _string_keys(ids, n_words=_n_words(longest))
    return keys, longest


def _keys_are_ids(longest: int, *arrays: pa.ChunkedArray) -> bool:
    """Whether :func:`_string_keys` is exact for these ids, whose longest has ``longest``
    bytes: at most 8 bytes, no NUL byte."""
    return longest <= 8 and not any(_has_byte(ids, 0) for ids in arrays)


def _take(ids: pa.ChunkedArray, indices: np.ndarray) -> pa.Array:
    """``ids[indices]`` chunk by chunk (Arrow's own take on a chunked array first
    concatenates every chunk: a full copy of a 10-million-id column)."""
    indices = np.asarray(indices, dtype=np.int64)
    by_index = np.argsort(indices, kind="stable")
    ordered = indices[by_index]
    bounds = np.cumsum([0] + [len(c) for c in ids.chunks])
    cuts = np.searchsorted(ordered, bounds)
    parts = [
        chunk.take(pa.array(ordered[cuts[k]: cuts[k + 1]] - bounds[k]))
        for k, chunk in enumerate(ids.chunks) if cuts[k + 1] > cuts[k]
    ]
    taken = pa.concat_arrays(parts) if parts else pa.array([], type=ids.type)
    inverse = np.empty_like(by_index)
    inverse[by_index] = np.arange(len(by_index))
    return taken.take(pa.array(inverse))


def _pair_keys(df: pd.DataFrame, doc_keys: np.ndarray) -> np.ndarray:
    """One key per (query, document) row: the query's key, scrambled, XOR the document's."""
    codes, categories = _query_codes(df.query_id)
    [category_keys] = _string_keys(pa.array(categories, pa.large_string()))
    key = category_keys[codes]
    with np.errstate(over="ignore"):
        key *= _GOLD
    key ^= doc_keys
    return key


# --------------------------------------------------------------------------- keys
# Ids become 64-bit integers without hashing strings one by one in Python: the bytes of
# each id are gathered as little-endian uint64 words straight from the Arrow buffers.
# An id of at most 8 bytes *is* its word (an exact key); longer ids are hashed from their
# words. Callers confirm every key match on the strings, so a hash collision can cost
# time but never a wrong result.

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_LOW_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], dtype=np.uint64)


def _arrow_ids(series: pd.Series) -> pa.ChunkedArray:
    """An id column as Arrow strings (no copy for Arrow-backed columns)."""
    return _arrow_strings(series)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finalizer: a bijective scramble of 64-bit words."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
        return x ^ (x >> np.uint64(31))


def _chunk_keys(arr: pa.Array, n_words: int) -> np.ndarray:
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    large = pa.types.is_large_string(arr.type)
    buffers = arr.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64 if large else np.int32)[arr.offset: arr.offset + n + 1]
    base = int(offsets[0])
    end = int(offsets[-1])
    starts = offsets[:-1] - base
    lengths = np.diff(offsets)
    padded = np.zeros(end - base + 8 * n_words + 8, dtype=np.uint8)
    if buffers[2] is not None and end > base:
        padded[: end - base] = np.frombuffer(buffers[2], dtype=np.uint8, count=end)[base:end]
    # Every 8-byte window of the data, to gather (unaligned) words at the string offsets.
    windows = np.ndarray(shape=(len(padded) - 8,), dtype="<u8", buffer=padded, strides=(1,))
    if n_words == 1:
        return windows[starts] & _LOW_MASKS[lengths]
    key = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for w in range(n_words):
            rest = np.minimum(np.maximum(lengths - 8 * w, 0), 8)
            key = _mix(key * _GOLD + (windows[starts + 8 * w] & _LOW_MASKS[rest]))
    return key


def _longest(*arrays: pa.Array | pa.ChunkedArray) -> int:
    """Length in bytes of the longest string in these arrays (0 if none)."""
    chunked = [a.chunks if isinstance(a, pa.ChunkedArray) else [a] for a in arrays]
    return max((pc.max(pc.binary_length(c)).as_py() or 0 for cs in chunked for c in cs if len(c)), default=0)


def _n_words(longest: int) -> int:
    """How many 8-byte words :func:`_string_keys` reads of each id when the longest has
    ``longest`` bytes. Keys are comparable only between arrays keyed with the same count."""
    return max(1, -(-longest // 8))


def _string_keys(*arrays: pa.Array | pa.ChunkedArray, n_words: int | None = None) -> list[np.ndarray]:
    """One uint64 per string of each array: the id's bytes if every id has at most 8,
    else a hash of them (the same function for all the arrays given together).

    Equal strings get equal keys; distinct strings almost always get distinct keys, and
    callers confirm matches on the strings themselves. ``n_words`` (default: enough for
    the longest id given) fixes the function, so that arrays keyed apart can be compared.
    """
    chunked = [a.chunks if isinstance(a, pa.ChunkedArray) else [a] for a in arrays]
    if n_words is None:
        n_words = _n_words(_longest(*arrays))
    out = []
    for cs in chunked:
        keys = np.zeros(sum(len(c) for c in cs), dtype=np.uint64)
        at = 0
        for c in cs:  # filled chunk by chunk: no second full-size array
            keys[at: at + len(c)] ^= _chunk_keys(c, n_words)
            at += len(c)
        out.append(keys)
    return out
