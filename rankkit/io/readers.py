"""Reading judgments (qrels) and runs: TREC, Parquet and Feather files, pandas DataFrames,
Arrow tables, records (ir_datasets, ir_measures) and dicts.

Both readers return a pandas DataFrame with one row per (query, document):

- qrels: ``query_id``, ``doc_id``, ``relevance`` (int64, or float64 when a label is not an
  integer). Labels below 0 are kept: trec_eval reads them as "pooled but not judged".
- run: ``query_id``, ``doc_id``, ``score`` (float64); the run tag in ``df.attrs["name"]``.

Column types, chosen for :func:`rankkit.rank` and measured on a 10-million-line run:

- ``query_id``: a pandas Categorical whose categories are the distinct ids as ``str``,
  sorted the way trec_eval sorts query ids (byte order). A run has few queries, so this
  costs 1-2 bytes a row instead of ~12, and ``rank`` orders and groups by the codes.
- ``doc_id``: pandas' pyarrow-backed string dtype (``str`` in pandas 3). It comes from the
  parser without a copy into Python objects, and ``rank`` hands it straight back to Arrow
  and NumPy, where each id becomes a 64-bit key (see :mod:`rankkit.io.keys`). A Categorical was
  measured and rejected here: unifying the parser's per-block dictionaries of ~2 million
  distinct documents took ~6 s, more than reading the file.

Ids are compared as bytes, as trec_eval's ``strcmp`` does. An id column whose ids are
all valid UTF-8 holds them as ``str``, as described above. A column where some id is not
(Latin-1 ``caf\xe9``, say) holds every id as a Python ``str`` decoded with
``errors="surrogateescape"`` (``doc_id`` of dtype ``object``, ``query_id`` categories an
``object`` Index): ``id.encode("utf-8", "surrogateescape")`` gives back the file's bytes,
and writing the id to a stream with ``errors="surrogateescape"`` reproduces them. Keys,
matches and orders use those bytes, so a Latin-1 ``caf\xe9`` never equals a UTF-8 ``café``.

TREC files are read by :mod:`rankkit.io.trec_format`, the way trec_eval 10 reads them.
"""

from __future__ import annotations

import dataclasses
import os
import weakref
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain
from operator import attrgetter, itemgetter
from typing import IO, Any, Union

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .keys import (
    GOLD,
    arrow_ids,
    arrow_strings,
    doc_keys,
    id_bytes,
    is_binary,
    is_string_view,
    pair_keys,
    text_array,
)
from .trec_format import FORMATS as _FORMATS
from .trec_format import blocks as trec_file_blocks
from .trec_format import id_text, lines_of, opened
from .trec_format import parse as parse_trec_file

__all__ = ["read_qrels", "read_run", "COLUMN_NAMES"]

Source = Union[str, os.PathLike, IO[bytes], pd.DataFrame, Mapping]


def read_qrels(source: Source, *, name: str | None = None,
               columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Read relevance judgments from a file, a DataFrame, records or a dict.

    Parameters
    ----------
    source : path, binary file object, DataFrame, Arrow table, records, dataset or dict
        A TREC qrels file (``query_id iteration doc_id relevance``, whitespace separated,
        gzip allowed; the iteration column is ignored, as trec_eval does; see the module
        docstring for the exact rules); a Parquet or Feather file (told by its first bytes);
        a pandas DataFrame or pyarrow Table with columns ``query_id``, ``doc_id``,
        ``relevance`` (or pyterrier's ``qid``, ``docno``, ``label``; see
        :data:`COLUMN_NAMES`); records with those fields (namedtuples such as ir_datasets'
        ``qrels_iter()`` gives, dataclasses or dicts); an ir_datasets dataset (its
        ``qrels_iter()``); or ``{query_id: {doc_id: label}}``.
    name : str, optional
        Stored in ``df.attrs["name"]`` (default None).
    columns : dict, optional
        Other column or field names, as ``DataFrame.rename`` takes them:
        ``{"topic": "query_id", "docid": "doc_id", "grade": "relevance"}``.

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id`` (Categorical of str, categories sorted), ``doc_id``
        (pyarrow-backed str) and ``relevance`` (int64, or float64 if some label is not an
        integer). Labels below 0 are kept
        (trec_eval: pooled but not judged; :func:`rankkit.rank` treats them as
        unjudged and non-relevant). Other columns of the input are left out.

    Raises
    ------
    ValueError
        Malformed line (file and line number; the line expected, and a hint when the
        file looks like a run), non-numeric or non-finite label, a document judged twice
        for one query (query, document and the file's lines named), an empty or binary
        file; a frame, table, file or record without the three columns (the message lists
        what it has).
    FileNotFoundError, IsADirectoryError, PermissionError, OSError
        A file that cannot be opened, as ``open`` would say but with rankkit's message
        (``qrels.txt: no such file``); each is also a ``ValueError``.

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
    return _read(source, "qrels", name, columns)


def read_run(source: Source, *, name: str | None = None,
             columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Read a run (retrieved documents with scores) from a file, a DataFrame, records or a dict.

    Parameters
    ----------
    source : path, binary file object, DataFrame, Arrow table, records, dataset or dict
        A TREC run file (``query_id Q0 doc_id rank score tag``, whitespace separated,
        gzip allowed; the ``Q0`` and rank columns are ignored, and so are columns after the
        tag, as trec_eval does; see the module docstring for the exact rules), e.g.
        ``sys.stdin.buffer``; a Parquet or Feather file (told by its first bytes); a pandas
        DataFrame or pyarrow Table with columns ``query_id``, ``doc_id``, ``score`` (or
        pyterrier's ``qid``, ``docno``, ``score``; a frame with ``rank`` and no ``score``
        is scored by minus the rank; see :data:`COLUMN_NAMES`); records with those fields
        (namedtuples such as ir_datasets' ``scoreddocs_iter()`` gives, dataclasses or
        dicts); an ir_datasets dataset (its ``scoreddocs_iter()``); or
        ``{query_id: {doc_id: score}}``.
    name : str, optional
        Stored in ``df.attrs["name"]``; default the run tag of the file's last data line, as
        trec_eval's ``runid`` (for a DataFrame: its ``attrs["name"]`` if any, else None;
        for other inputs: None).
    columns : dict, optional
        Other column or field names, as ``DataFrame.rename`` takes them:
        ``{"topic": "query_id", "docid": "doc_id", "sim": "score"}`` (or ``"rank"``).

    Returns
    -------
    pandas.DataFrame
        Columns ``query_id`` (Categorical of str, categories sorted), ``doc_id``
        (pyarrow-backed str) and ``score`` (float64), in input order; ranks are not stored
        (trec_eval ignores them and orders by score).

    Raises
    ------
    ValueError
        Malformed line (file and line number; the line expected, and a hint when the
        file looks like judgments), a non-numeric, NaN or infinite score, a document
        retrieved twice for one query (query, document and the file's lines named), an
        empty or binary file; a frame, table, file or record without the three columns
        (the message lists what it has).
    FileNotFoundError, IsADirectoryError, PermissionError, OSError
        A file that cannot be opened, as ``open`` would say but with rankkit's message
        (``run.txt: no such file``); each is also a ``ValueError``.

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
    return _read(source, "run", name, columns)


# --------------------------------------------------------------------------- dispatch

def _read(source: Any, kind: str, name: str | None, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    columns = _check_columns(columns)
    try:
        df, label = _read_any(source, kind, name, columns)
    except UnicodeEncodeError as err:  # a str holding a lone surrogate: no bytes stand for it
        raise ValueError(f"{kind}: ids must be text, got {err.object!r}, which holds "
                         f"{err.object[err.start:err.end]!r} (a lone surrogate)") from None
    df.attrs["name"] = label
    return df


def _read_any(source: Any, kind: str, name: str | None, columns: dict[str, str]) -> tuple[pd.DataFrame, Any]:
    """:func:`_read` by the shape of ``source``: the frame and its name."""
    if isinstance(source, pd.DataFrame):
        # Always validated again, even a frame these readers returned: it may have been
        # edited in place since (a NaN score, a duplicated document).
        df = _from_frame(source, kind, columns)
        label = name if name is not None else source.attrs.get("name")
    elif isinstance(source, pa.Table):
        df = _from_arrow(source, kind, columns, f"{kind} Arrow table")
        label = name
    elif isinstance(source, Mapping):
        df = _from_dict(source, kind)
        label = name
    elif isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        df, tag = _from_file(source, kind, columns)
        label = name if name is not None else tag
    elif hasattr(source, _DATASET_METHOD[kind]):  # an ir_datasets dataset
        df = _from_records(getattr(source, _DATASET_METHOD[kind])(), kind, columns)
        label = name
    elif isinstance(source, Iterable) and not isinstance(source, (bytes, bytearray)):
        df = _from_records(source, kind, columns)
        label = name
    else:
        raise ValueError(
            f"{kind} must be a file path (TREC, Parquet or Feather), a pandas DataFrame, a dict "
            f"{{query_id: {{doc_id: value}}}}, records (namedtuples, dataclasses or dicts) or an "
            f"ir_datasets dataset, got {type(source).__name__}"
        )
    return df, label


# --------------------------------------------------------------------------- column names

#: The names a column of a DataFrame, Arrow table, Parquet/Feather file or record may have,
#: tried in this order: rankkit's (which are also ir_datasets' and ir_measures'), then
#: pyterrier's. ``rank`` (1 = first) stands for a run's ``score`` when there is none:
#: the score is then minus the rank. Other names: ``columns={"their name": "query_id", ...}``.
COLUMN_NAMES: dict[str, tuple[str, ...]] = {
    "query_id": ("query_id", "qid"),
    "doc_id": ("doc_id", "docno"),
    "relevance": ("relevance", "label"),
    "score": ("score", "rank"),
}

_DATASET_METHOD = {"qrels": "qrels_iter", "run": "scoreddocs_iter"}  # ir_datasets' iterators


def _check_columns(columns: Any) -> dict[str, str]:
    """``columns=`` as role -> the input's name (it is given as name -> role, like
    ``DataFrame.rename(columns=...)``)."""
    if columns is None:
        return {}
    if not isinstance(columns, Mapping):
        raise ValueError(f"columns must be a dict {{your column: rankkit column}}, got {type(columns).__name__}")
    roles = (*COLUMN_NAMES, "rank")
    out: dict[str, str] = {}
    for theirs, role in columns.items():
        if role not in roles:
            raise ValueError(f"columns[{theirs!r}] must be one of {', '.join(roles)}, got {role!r}")
        if role in out:
            raise ValueError(f"columns names two columns {out[role]!r} and {theirs!r} as {role!r}")
        out[role] = theirs
    return out


def _find_columns(names: list, kind: str, columns: dict[str, str], what: str,
                  noun: str = "columns") -> tuple[Any, Any, Any, bool]:
    """The input's names for the query id, document id and value columns of ``kind``, and
    whether that value is a rank (the score is then minus it)."""
    def first(candidates):
        return next((c for c in candidates if c in names), None)

    def role(name):  # a mapped name, else rankkit's own (a frame these readers returned)
        return first((columns[name], name) if name in columns else COLUMN_NAMES[name])

    query, doc = role("query_id"), role("doc_id")
    is_rank = False
    if kind == "qrels":
        value = role("relevance")
    elif "score" in columns:
        value = role("score")
    elif "rank" in columns:
        value, is_rank = first((columns["rank"],)), True
        if value is None:
            value, is_rank = first(("score",)), False
    else:
        value = first(("score",))
        if value is None:
            value, is_rank = first(("rank",)), True
    roles = ("query_id", "doc_id", _FORMATS[kind][0])
    missing = [role for role, name in zip(roles, (query, doc, value)) if name is None]
    if missing:
        wanted = ", ".join(f"{role} (or {' or '.join(COLUMN_NAMES[role][1:])})" for role in roles)
        raise ValueError(
            f"{what} must have {noun} {wanted}; missing {', '.join(missing)}; it has "
            f"{', '.join(map(str, names)) or 'none'} (name yours with columns={{'yours': '{missing[0]}'}})"
        )
    return query, doc, value, is_rank


# --------------------------------------------------------------------------- frames

def _frame(query_ids: pa.Array | pd.Series, doc_ids: pa.Array | pd.Series, values: np.ndarray,
           kind: str) -> pd.DataFrame:
    """The result frame; ids stay Arrow-backed where they are UTF-8, values become int64
    where all are integers."""
    value_col = _FORMATS[kind][0]
    if kind == "qrels":
        values = _as_labels(values)
        if isinstance(doc_ids, pa.ChunkedArray) and doc_ids.num_chunks > 1:
            # One chunk: taking rows of a chunked array makes Arrow concatenate every chunk
            # first, on every take (8x slower on the judgments of a run read by queries).
            doc_ids = pa.chunked_array([doc_ids.combine_chunks()])
    return pd.DataFrame({
        "query_id": query_ids if isinstance(query_ids, pd.Series) else _query_series(query_ids),
        "doc_id": doc_ids if isinstance(doc_ids, pd.Series) else _doc_series(doc_ids),
        value_col: values,
    })


def _query_series(arr: pa.Array | pa.ChunkedArray, all_used: bool = True) -> pd.Series:
    """Query ids (Arrow text or bytes, plain or dictionary-encoded) as a Categorical whose
    categories are the distinct ids, sorted by their bytes. ``all_used=False``: some
    dictionary may hold ids its chunk does not use (a filtered array)."""
    if not isinstance(arr, pa.ChunkedArray):
        arr = pa.chunked_array([arr])
    if len(arr) == 0:
        return pd.Series(pd.Categorical([], categories=pd.Index([], dtype=_STR)))
    if not pa.types.is_dictionary(arr.type):
        arr = pc.dictionary_encode(arr)
    if is_binary(arr.type.value_type):
        text = _as_text([c.dictionary for c in arr.chunks])
        if text is not None:  # bytes that are all UTF-8: the same indices, text dictionaries
            arr = pa.chunked_array(
                [pa.DictionaryArray.from_arrays(c.indices, d) for c, d in zip(arr.chunks, text)]
            )
    series = arr.to_pandas()
    categories = series.cat.categories
    if len(categories) and isinstance(categories[0], bytes):
        series = series.cat.rename_categories(pd.Index([_id_text(b) for b in categories], dtype=object))
    # Every dictionary here (the CSV parser's, one per block, or dictionary_encode's) holds
    # only ids that occur in its chunk, and pandas unifies them into their union: all used.
    return _canonical_categories(series, all_used=all_used)


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
    by_name, index = _sorted_ids(names)
    if len(used) == len(categories) and by_name == list(range(len(names))) and categories.dtype == index.dtype:
        return series.reset_index(drop=True)
    remap = np.zeros(len(categories), dtype=codes.dtype if len(names) < np.iinfo(codes.dtype).max else np.int32)
    remap[used[by_name]] = np.arange(len(names))
    new = pd.Categorical.from_codes(remap[codes], categories=index, validate=False)
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


def _doc_series(arr: pa.Array | pa.ChunkedArray) -> pd.Series:
    """Document ids from Arrow text or bytes: pyarrow-backed str if all are UTF-8, else a
    column of surrogate-escaped ``str`` (dtype object; see the module docstring)."""
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    text = _as_text(chunks)
    if text is None:
        return pd.Series([_id_text(b) for b in pa.chunked_array(chunks).to_pylist()], dtype=object)
    return _string_series(pa.chunked_array(text, type=text[0].type if text else pa.large_string()))


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


def _as_text(arrays: list[pa.Array]) -> list[pa.Array] | None:
    """These Arrow arrays as text (binary ones cast, which checks UTF-8), or None if some
    binary array holds bytes that are not UTF-8."""
    out = []
    for arr in arrays:
        if is_binary(arr.type):
            try:
                arr = arr.cast(pa.large_string())  # zero-copy, after checking UTF-8
            except pa.ArrowInvalid:
                return None
        out.append(arr)
    return out


_id_text = id_text


def _id_index(names: list[str]) -> pd.Index:
    """An Index of ids: Arrow-backed str, or object when some id holds escaped bytes."""
    try:
        return pd.Index(names, dtype=_STR)
    except UnicodeEncodeError:
        return pd.Index(names, dtype=object)


def _sorted_ids(names: list[str], among: list[int] | None = None) -> tuple[list[int], pd.Index]:
    """The positions of ``names`` (or of ``among`` them) in byte order, and those names as
    an Index (:func:`_id_index`)."""
    among = range(len(names)) if among is None else among
    order = sorted(among, key=names.__getitem__)  # code point order: byte order for UTF-8
    index = _id_index([names[i] for i in order])
    if index.dtype == object:  # escaped bytes sort apart in code point order (U+DC80-U+DCFF)
        order = sorted(among, key=lambda i: id_bytes(names[i]))
        index = pd.Index([names[i] for i in order], dtype=object)
    return order, index


def _as_labels(values: np.ndarray) -> np.ndarray:
    """Labels as int64 when all are whole numbers that fit it (2**63 would wrap to a
    negative label: "not judged"), else as float64."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return values.astype(np.int64)
    if np.array_equal(values, np.round(values)) and -2.0**63 <= values.min() and values.max() < 2.0**63:
        return values.astype(np.int64)
    return values


# --------------------------------------------------------------------------- DataFrame

def _from_frame(df: pd.DataFrame, kind: str, columns: dict[str, str] | None = None,
                what: str | None = None) -> pd.DataFrame:
    """A DataFrame with rankkit's, pyterrier's or ``columns=``'s names (:data:`COLUMN_NAMES`)."""
    what = what or f"{kind} DataFrame"
    query, doc, value, is_rank = _find_columns(list(df.columns), kind, columns or {}, what)
    value_col = _FORMATS[kind][0]
    for col in (query, doc, value):
        if list(df.columns).count(col) > 1:
            raise ValueError(f"{what}: column {col!r} appears more than once")
    for col in (query, doc):
        if df[col].dtype != object and df[col].isna().any():  # object columns: told as they are converted
            raise _missing(df[col], col, what)
        if _is_float(df[col].dtype):  # as from Arrow: 10.0 would be the id "10.0"
            raise ValueError(f"{what}: {col} must hold text or integer ids, got {df[col].dtype} "
                             f"(convert it with .astype('int64') or .astype(str))")
    token, seen = _seen(df[query], df[doc])
    ids = [seen if seen is not None else _query_column(df[query]), _doc_column(df[doc])]
    for col, column in zip((query, doc), ids):
        if column is None:
            raise _missing(df[col], col, what)
    raw = df[value]
    try:
        values = raw.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(values) & raw.notna().to_numpy()
        at = int(np.flatnonzero(bad)[0]) if bad.any() else 0
        name = value_col if value == value_col else f"{value_col} ({value})"
        raise ValueError(f"{what}: {name} must be a number, got {raw.iloc[at]!r} "
                         f"in row {_plain(raw.index[at])!r}") from None
    out = _frame(ids[0], ids[1], 0.0 - values if is_rank else values, kind)
    _check_values(out, kind, where=what)
    if seen is None:
        _check_duplicates(out, kind, where=what)
        _remember(token, out.query_id)
    return out


# Id columns seen before, whose (query, document) pairs passed the duplicate check, with the
# query Categorical built from them. Arrow arrays are immutable, so the same arrays need
# neither again: the runs of a sweep (``run.assign(score=...)``) share them, and so do the
# evaluations of one judgments frame. Keyed by the document ids' array (forgotten with it);
# the query ids are the same Arrow array, or a Categorical with equal categories and codes
# (a frame the readers returned, given back to them).
_SEEN: dict[int, tuple[weakref.ref, Any, pd.Series]] = {}  # id(docs) -> (docs, query token, Categorical)


def _query_token(query: pd.Series) -> Any:
    """What identifies a query column: its Arrow array, or a Categorical's (categories, codes)."""
    if isinstance(query.array, pd.arrays.ArrowStringArray):
        return arrow_strings(query)
    if isinstance(query.dtype, pd.CategoricalDtype):
        return query.cat.categories, np.asarray(query.cat.codes)
    return None


def _same_queries(token: Any, seen: Any) -> bool:
    """Is ``token`` (:func:`_query_token`) the one remembered as ``seen``?"""
    if isinstance(token, tuple) and isinstance(seen, tuple):
        return _same_categories(token[0], seen[0]) and np.array_equal(token[1], seen[1])
    return isinstance(seen, weakref.ref) and seen() is token


def _same_categories(a: pd.Index, b: pd.Index) -> bool:
    """Equal categories of equal types: ``1``, ``1.0`` and ``True`` are equal in Python but
    become the query ids ``"1"``, ``"1.0"`` and ``"True"``."""
    if a.dtype != b.dtype or not a.equals(b):
        return False
    return a.dtype != object or all(type(x) is type(y) for x, y in zip(a, b))


def _seen(query: pd.Series, doc: pd.Series) -> tuple[tuple | None, pd.Series | None]:
    """``(token, categorical)``: what :func:`_remember` needs (None unless the document ids
    are Arrow strings and the query ids Arrow strings or a Categorical) and, if these id
    columns were seen before, the query Categorical built then (else None)."""
    token = _query_token(query) if isinstance(doc.array, pd.arrays.ArrowStringArray) else None
    if token is None:
        return None, None
    docs = arrow_strings(doc)
    hit = _SEEN.get(id(docs))
    if hit is not None and hit[0]() is docs and _same_queries(token, hit[1]):
        return (token, docs), hit[2]
    return (token, docs), None


def _remember(seen: tuple | None, query_ids: pd.Series) -> None:
    if seen is None:
        return
    token, docs = seen
    # A Categorical can change in place: keep its codes as they were. An Arrow array cannot.
    token = (token[0], token[1].copy()) if isinstance(token, tuple) else weakref.ref(token)
    key = id(docs)

    def forget(ref: weakref.ref) -> None:
        if _SEEN.get(key, (None,))[0] is ref:
            _SEEN.pop(key, None)
    _SEEN[key] = (weakref.ref(docs, forget), token, query_ids)


def _is_float(dtype: Any) -> bool:
    """Whether a column dtype holds floats (pandas cannot tell for some Arrow types)."""
    if isinstance(dtype, pd.ArrowDtype):
        return pa.types.is_floating(dtype.pyarrow_dtype)
    return pd.api.types.is_float_dtype(dtype)


def _missing(series: pd.Series, col: str, what: str) -> ValueError:
    """The error for an id column with a missing value (None, NaN), naming its first row."""
    row = _plain(series.index[series.isna().to_numpy()][0])
    return ValueError(f"{what}: {col} is missing in row {row!r}")


def _query_column(series: pd.Series) -> pd.Series | pa.ChunkedArray | None:
    """A query id column, without a Python object per row: Categoricals and integer or
    object columns through their few distinct values; Arrow strings as they are. None when
    an id of an ``object`` column is missing (its factorized code is -1)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return _canonical_categories(series)
    if isinstance(series.array, pd.arrays.ArrowStringArray) or isinstance(series.dtype, pd.ArrowDtype):
        return arrow_strings(series)  # dictionary-encoded by Arrow in _query_series
    codes, uniques = pd.factorize(series)
    if len(codes) and codes.min() < 0:
        return None
    if series.dtype == object and not all(isinstance(u, str) for u in uniques):
        _check_one_id_per_value(series)
    categories = pd.Index(np.asarray(uniques, dtype=object), dtype=object)
    return _canonical_categories(pd.Series(pd.Categorical.from_codes(codes, categories)), all_used=True)


def _check_one_id_per_value(series: pd.Series) -> None:
    """Values equal in Python are one value for pandas (1, 1.0, True) but different ids
    ("1", "1.0", "True"): which one a query got would depend on the order of the rows."""
    seen: dict = {}
    for value in dict.fromkeys((type(v), v) for v in series.to_numpy()):
        other = seen.setdefault(value[1], value[1])
        if str(other) != str(value[1]):
            raise ValueError(f"query ids {other!r} and {value[1]!r} are equal in Python but different ids "
                             f"({str(other)!r}, {str(value[1])!r}): give the column one type")


def _doc_column(series: pd.Series) -> pd.Series | pa.ChunkedArray | None:
    """A document id column: the column itself when it already has the readers' dtype (no
    copy, and its document keys are built once: see :func:`rankkit.io.keys.doc_keys`);
    integers through their distinct values; anything else as Arrow text. None when an id
    of an ``object`` column is missing: Arrow finds None and NaN as it converts ``str``
    objects (a separate ``isna`` pass would cost as much as the conversion)."""
    if series.dtype == _STR and isinstance(series.array, pd.arrays.ArrowStringArray):
        return pd.Series(series.array, copy=False)
    if isinstance(series.dtype, pd.ArrowDtype) and not pa.types.is_integer(series.dtype.pyarrow_dtype):
        return arrow_strings(series)  # pandas cannot say whether string_view is an integer dtype
    if pd.api.types.is_integer_dtype(series.dtype):
        codes, uniques = pd.factorize(series)
        return pa.chunked_array([text_array([str(u) for u in uniques.tolist()]).take(pa.array(codes))])
    if series.dtype == object:
        try:
            ids = pa.array(series.to_numpy(), type=pa.large_string(), from_pandas=True)
        except (pa.ArrowTypeError, pa.ArrowInvalid, UnicodeEncodeError):  # not all str: checked first
            return None if series.isna().any() else arrow_strings(series)
        return None if ids.null_count else pa.chunked_array([ids])
    return arrow_strings(series)


def _plain(label: Any) -> Any:
    """An index label as Python shows it (``1``, not numpy 2's ``np.int64(1)``; tuples of a
    MultiIndex too)."""
    if isinstance(label, tuple):
        return tuple(_plain(x) for x in label)
    return label.item() if isinstance(label, np.generic) else label


# --------------------------------------------------------------------------- records

def _from_records(records: Iterable, kind: str, columns: dict[str, str]) -> pd.DataFrame:
    """Namedtuples (ir_datasets' ``qrels_iter()``, ``scoreddocs_iter()``; ir_measures'
    ``Qrel``, ``ScoredDoc``), dataclasses or dicts, all of the first one's type."""
    what = f"{kind} records"
    it = iter(records)
    head = next(it, None)
    if head is None:
        raise ValueError(f"{what}: none given, expected {kind} records")
    if isinstance(head, Mapping):
        names, get = list(head), itemgetter
    elif hasattr(head, "_fields") or dataclasses.is_dataclass(head):
        names = list(head._fields) if hasattr(head, "_fields") else [f.name for f in dataclasses.fields(head)]
        get = attrgetter
    else:
        raise ValueError(f"{what} must be namedtuples, dataclasses or dicts with named fields, "
                         f"got {type(head).__name__}")
    query, doc, value, is_rank = _find_columns(names, kind, columns, f"{what} ({type(head).__name__})", "fields")
    fields = get(query, doc, value)
    try:
        rows = [fields(head), *map(fields, it)]  # the one pass over the records
    except (AttributeError, KeyError, TypeError) as err:
        raise ValueError(f"{what}: a record after the first lacks a field of the first ({err})") from None
    q, d, v = zip(*rows)
    frame = pd.DataFrame({"query_id": pd.Series(q, dtype=object), "doc_id": pd.Series(d, dtype=object),
                          "v": pd.Series(v, dtype=object)})
    rename = {"query_id": "query_id", "doc_id": "doc_id", "v": "rank" if is_rank else _FORMATS[kind][0]}
    return _from_frame(frame.rename(columns=rename), kind, None, what)


# --------------------------------------------------------------------------- Arrow, Parquet, Feather

def _from_arrow(table: pa.Table, kind: str, columns: dict[str, str], what: str) -> pd.DataFrame:
    """An Arrow table (read from Parquet or Feather) without a detour through Python objects:
    text ids as they are, integer ids as text, values as float64."""
    query, doc, value, is_rank = _find_columns(table.column_names, kind, columns, what)
    parts = []
    for name in (query, doc, value):
        col = table.column(name)
        if col.null_count:
            row = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
            raise ValueError(f"{what}: {name} is missing in row {row}")
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        parts.append(col)
    ids = []
    for name, col in zip((query, doc), parts[:2]):
        if (pa.types.is_integer(col.type) or pa.types.is_string(col.type) or pa.types.is_large_string(col.type)
                or is_string_view(col.type)):
            ids.append(col.cast(pa.large_string()))
        elif is_binary(col.type):
            ids.append(col)
        else:
            raise ValueError(f"{what}: {name} must hold text or integer ids, got {col.type}")
    if not (pa.types.is_integer(parts[2].type) or pa.types.is_floating(parts[2].type)
            or pa.types.is_decimal(parts[2].type)):
        raise ValueError(f"{what}: {value} must hold numbers, got {parts[2].type}")
    values = parts[2].cast(pa.float64()).to_numpy()
    out = _frame(ids[0], ids[1], 0.0 - values if is_rank else values, kind)
    _check_values(out, kind, where=what)
    _check_duplicates(out, kind, where=what)
    return out


_PARQUET, _FEATHER = b"PAR1", b"ARROW1"  # the magic bytes a file starts with


def _columnar(source: Any) -> tuple[str, Any] | None:
    """("Parquet" or "Feather", something pyarrow reads natively) if ``source`` is such a
    file, else None. A file object is read into memory (pyarrow's threads must not call
    back into Python); a path that is not a regular file (a pipe) is left to the TREC parser."""
    if isinstance(source, (str, os.PathLike)):
        try:
            if not os.path.isfile(source):
                return None
            with open(source, "rb") as f:
                head = f.read(64)
                f.seek(max(os.fstat(f.fileno()).st_size - len(_FEATHER), 0))
                tail = f.read()
        except OSError:
            return None  # the TREC parser names the problem
        native: Any = os.fspath(source)
    else:
        try:
            if not source.seekable():
                return None
            start = source.tell()
            head = source.read(64)
            source.seek(0, os.SEEK_END)
            end = source.tell()
            source.seek(max(end - len(_FEATHER), start))
            tail = source.read()
            source.seek(start)
        except (OSError, AttributeError, ValueError):
            return None
        native = None
    if not isinstance(head, bytes) or not isinstance(tail, bytes):
        return None  # a text stream: the TREC parser says what it needs
    fmt = next((f for f, magic in (("Parquet", _PARQUET), ("Feather", _FEATHER)) if head.startswith(magic)), None)
    if fmt is None:
        return None
    if not tail.endswith(_PARQUET if fmt == "Parquet" else _FEATHER):  # each ends as it starts
        if b"\0" not in head:
            return None  # a text file whose first query id is PAR1, say
        name = os.fsdecode(source) if native is not None else getattr(source, "name", "file")
        raise ValueError(f"{name}: starts like a {fmt} file but does not end like one (truncated?)")
    if native is None:
        native = pa.BufferReader(source.read())
    return fmt, native


def _read_columnar(fmt: str, native: Any, name: str, kind: str, columns: dict[str, str]) -> pd.DataFrame:
    """A Parquet or Feather file: only the three columns are read."""
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    what = f"{name} ({fmt})"
    try:
        if fmt == "Parquet":
            schema = pq.read_schema(native)
        else:
            with pa.ipc.open_file(pa.memory_map(native) if isinstance(native, str) else native) as f:
                schema = f.schema
        if isinstance(native, pa.BufferReader):
            native.seek(0)
        query, doc, value, _ = _find_columns(schema.names, kind, columns, what)
        wanted = list(dict.fromkeys([query, doc, value]))
        table = (pq.read_table(native, columns=wanted) if fmt == "Parquet"
                 else feather.read_table(native, columns=wanted))
    except (pa.ArrowException, OSError) as err:
        raise ValueError(f"{what}: cannot be read: {str(err).splitlines()[0]}") from None
    if table.num_rows == 0:
        raise ValueError(f"{what}: no rows, expected {kind} lines")
    return _from_arrow(table, kind, columns, what)


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
    docs = list(chain.from_iterable(inner))
    try:
        doc_ids, unique = pa.array(docs, type=pa.large_string()), True  # distinct keys, distinct ids
    except (pa.ArrowTypeError, pa.ArrowInvalid, UnicodeEncodeError):  # numbers too: 1 and "1" are one id
        _check_no_floats(docs, kind, "document")
        doc_ids, unique = text_array(docs), False
    del docs
    # Query ids straight to a Categorical with sorted categories (the readers' convention).
    _check_no_floats(source.keys(), kind, "query")
    names = [q if isinstance(q, str) else str(q) for q in source.keys()]
    keep = lengths > 0  # a query with an empty dict has no row
    by_name, categories = _sorted_ids(names, np.flatnonzero(keep).tolist())
    if categories.has_duplicates:
        dup = categories[categories.duplicated()][0]
        raise ValueError(f"query ids {dup!r} occur as different types (e.g. 1 and '1')")
    code_of = np.zeros(len(names), dtype=np.int32)
    code_of[by_name] = np.arange(len(by_name), dtype=np.int32)
    query_ids = pd.Series(pd.Categorical.from_codes(np.repeat(code_of, lengths), categories=categories, validate=False))
    out = _frame(query_ids, doc_ids, values, kind)
    _check_values(out, kind, where=kind)
    if not unique:
        _check_duplicates(out, kind, where=kind)
    return out


def _check_no_floats(ids: Iterable, kind: str, what: str) -> None:
    """Float keys are refused as float columns are: 10.0 would be the id "10.0"."""
    bad = next((i for i in ids if isinstance(i, (float, np.floating))), None)
    if bad is not None:
        raise ValueError(f"{kind}: {what} ids must be text or integers, got the float {bad!r}")


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, (str, bytes))


def _from_file(source: Any, kind: str, columns: dict[str, str]) -> tuple[pd.DataFrame, str | None]:
    """The frame of a TREC, Parquet or Feather file (path or binary file object; told apart by
    their first bytes) and its run tag."""
    columnar = _columnar(source)
    if columnar is not None:
        label = os.fsdecode(source) if isinstance(source, (str, os.PathLike)) else getattr(source, "name", kind)
        return _read_columnar(*columnar, str(label), kind, columns), None
    with opened(source) as inp:  # kept open: a duplicate's lines are looked up in it
        name, query_ids, doc_ids, values, tag = parse_trec_file(inp, kind)
        out = _frame(query_ids, doc_ids, values, kind)
        del query_ids, doc_ids, values
        pa.default_memory_pool().release_unused()
        _check_duplicates(out, kind, where=name, lines=lambda query, doc: lines_of(inp, query, doc))
    pa.default_memory_pool().release_unused()  # Arrow's allocator keeps freed blocks otherwise
    return out, tag


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


def _check_duplicates(df: pd.DataFrame, kind: str, where: str, lines: Any = None) -> None:
    """A document listed twice for one query is an error (trec_eval rejects it too). Given
    ``lines`` (query, document -> the numbers of the file's lines that list them), the
    message names the file's lines: ``run.txt lines 3 and 9: document 'd1' is retrieved
    twice for query 'q1' ...``.

    The document keys built here are remembered (:func:`rankkit.io.keys.doc_keys`): the join
    reuses them.
    """
    keys, _ = doc_keys(arrow_ids(df.doc_id))
    if len(df) < 2:
        return
    codes = np.asarray(df.query_id.cat.codes)
    queries = _suspect_queries(codes, keys)
    if queries is not None:  # rows grouped by query: the rows of queries with a shared key
        if not len(queries):
            return
        rows = np.isin(codes, queries)
    else:  # one 64-bit key per (query, document), sorted; equal neighbours are suspects
        key = _pair_keys(df, keys)
        key.sort(kind="stable")  # timsort: fast on rows grouped by query (see pair_keys)
        same = key[1:] == key[:-1]
        if not same.any():
            return
        rows = np.isin(_pair_keys(df, keys), key[1:][same])
    # Confirm on the strings (a hash collision is not an error).
    idx = np.flatnonzero(rows)
    sub = pd.DataFrame({"q": df.query_id.to_numpy()[idx], "d": df.doc_id.to_numpy()[idx]}, dtype=object)
    dup = sub.duplicated(keep=False).to_numpy()
    if dup.any():
        first = sub[dup].iloc[0]
        what = "judged" if kind == "qrels" else "retrieved"
        found = lines(first.q, first.d) if lines is not None else []
        at = f" line{'s' if len(found) > 1 else ''} {' and '.join(map(str, found))}" if found else ""
        raise ValueError(
            f"{where}{at}: document {first.d!r} is {what} twice for query {first.q!r} "
            f"(trec_eval rejects duplicates; remove one)"
        )


def _suspect_queries(codes: np.ndarray, keys: np.ndarray) -> np.ndarray | None:
    """The query codes whose documents' keys are not all distinct, when every query's rows
    are together (a run file's block, most frames); None otherwise, or when the queries are
    too unequal in length.

    Each query's keys are sorted on their own, as one row of a matrix padded with the
    largest key: sorting 10,000 rows of 1,000 takes 0.05 s (32-bit keys; 0.12 s 64-bit)
    where one stable sort of the 10 million pair keys takes 0.27 s. Queries of up to 4,096
    documents use the top 32 bits of the mixed key (a shared key in ~0.2% of them, then
    confirmed on the ids), longer ones all 64.
    """
    starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
    block = codes[starts]
    sizes = np.diff(np.append(starts, len(codes)))
    width = int(sizes.max())
    if len(starts) * width > 2 * len(codes) or len(np.unique(block)) < len(block):
        return None
    with np.errstate(over="ignore"):
        mixed = keys * GOLD  # spreads every bit of the key over the top ones
    if width <= 4096:
        mixed = (mixed >> np.uint64(32)).astype(np.uint32)
    inside = np.arange(width) < sizes[:, None]
    padded = np.full(inside.shape, np.iinfo(mixed.dtype).max, dtype=mixed.dtype)
    padded[inside] = mixed
    del mixed
    padded.sort(axis=1)
    shared = (padded[:, 1:] == padded[:, :-1]) & inside[:, 1:]
    return block[shared.any(axis=1)]


def _pair_keys(df: pd.DataFrame, keys: np.ndarray) -> np.ndarray:
    """One key per row of ``df``: its query and document together (:func:`rankkit.io.keys.pair_keys`)."""
    return pair_keys(np.asarray(df.query_id.cat.codes), keys.copy(), len(df.query_id.cat.categories))




# --------------------------------------------------------------------------- runs larger than memory

class RunNotGrouped(Exception):
    """A run file's query comes back after other queries: its lines are not grouped by query."""


class RunFile:
    """A TREC run file read in frames of whole queries, for runs larger than memory.

    ``RunFile(source, size)`` opens a TREC text file (a path or a binary file object; see
    :meth:`is_trec`; Parquet and Feather files are read whole). :meth:`grouped` yields
    frames like :func:`read_run`'s, each about ``size`` bytes of lines and every line of
    its queries; it raises :class:`RunNotGrouped` when a query comes back after others.
    :meth:`partitioned` works for any order: it first writes the lines to temporary Arrow
    files by a hash of their query. After either, ``tag`` is the tag of the file's last
    data line (trec_eval's runid). Errors name the file and the line, as :func:`read_run`.
    """

    def __init__(self, source: Any, size: int = 64 << 20):
        self._input, self.size, self.tag = opened(source), size, None
        self.name = self._input.name
        self.total = self._input.size  # bytes (None when not known: gzip, a pipe)
        self.on_read: Any = None  # called with the bytes of each block read

    @staticmethod
    def is_trec(source: Any) -> bool:
        """Whether ``source`` is read as a TREC text file (a path or a binary file object that
        is not Parquet or Feather)."""
        if isinstance(source, (str, os.PathLike)):
            return _columnar(source) is None
        if not hasattr(source, "read"):
            return False
        try:
            start = source.tell() if source.seekable() else None
        except (OSError, AttributeError, ValueError):
            start = None
        try:
            return _columnar(source) is None  # reads a columnar file object: put it back
        finally:
            if start is not None:
                source.seek(start)

    def __enter__(self) -> "RunFile":
        return self

    def __exit__(self, *exc) -> None:
        self._input.__exit__()

    def _blocks(self, size: int | None = None) -> Iterator[tuple[pa.ChunkedArray, pa.ChunkedArray, np.ndarray]]:
        self.tag = None
        for _, query_ids, doc_ids, scores, tag, size_read in trec_file_blocks(self._input, "run", size or self.size):
            self.tag = tag if tag is not None else self.tag
            if self.on_read is not None:
                self.on_read(size_read)
            if len(scores):  # not a block of comments
                yield query_ids, doc_ids, scores

    def grouped(self) -> Iterator[pd.DataFrame]:
        """Frames of whole queries, in file order; :class:`RunNotGrouped` if a query's lines
        are not all together (told by a hash of each query id done)."""
        done = _Hashes()
        carry = None  # the lines of the last query read so far: it may go on in the next block
        for block in self._blocks():
            if carry is not None:
                block = tuple(_joined(a, b) for a, b in zip(carry, block))
            rest, carry = _cut_last_query(block)
            rest = [rest]
            del block
            if len(rest[0][2]):
                yield self._frame(rest.pop(), done)  # held by the frame alone while the caller works
        if carry is not None and len(carry[2]):
            yield self._frame(carry, done)

    def _frame(self, arrays: tuple, done: "_Hashes | None" = None) -> pd.DataFrame:
        frame = _frame(_query_series(arrays[0], all_used=False), arrays[1], arrays[2], "run")
        if done is not None and not done.add(_query_hashes(frame.query_id.cat.categories)):
            raise RunNotGrouped(self.name)
        _check_duplicates(frame, "run", where=self.name,
                          lines=lambda query, doc: lines_of(self._input, query, doc))
        frame.attrs["name"] = self.tag
        return frame

    def partitioned(self, directory: str, parts: int = 256) -> Iterator[pd.DataFrame]:
        """Frames of whole queries, whatever the order of the lines: each line goes to one of
        ``parts`` Arrow files in ``directory`` by a hash of its query; then consecutive
        files are read back together up to about ``size`` bytes of lines."""
        paths = [os.path.join(directory, f"part{i:04d}.arrow") for i in range(parts)]
        schema = pa.schema([("query_id", pa.large_binary()), ("doc_id", pa.large_binary()), ("score", pa.float64())])
        sizes = np.zeros(parts, dtype=np.int64)
        writers = [None] * parts
        try:
            for query_ids, doc_ids, scores in self._blocks(max(self.size // 2, 1)):  # copied twice below
                table = pa.table([_as_bytes(query_ids), _as_bytes(doc_ids), pa.array(scores)], schema=schema)
                part = _query_hashes(table.column(0), per_row=True) % parts
                order = np.argsort(part, kind="stable")  # the block's lines, part by part
                table = table.take(order)
                bounds = np.searchsorted(part[order], np.arange(parts + 1))
                for i in np.flatnonzero(np.diff(bounds)):
                    rows = table.slice(bounds[i], bounds[i + 1] - bounds[i])
                    if writers[i] is None:
                        writers[i] = pa.ipc.new_stream(paths[i], schema)
                    writers[i].write_table(rows)
                    sizes[i] += rows.nbytes
        finally:
            for writer in writers:
                if writer is not None:
                    writer.close()
        yield from self._read_parts([p for p, w in zip(paths, writers) if w is not None], sizes[sizes > 0])

    def _read_parts(self, paths: list[str], sizes: np.ndarray) -> Iterator[pd.DataFrame]:
        """The partitions, as few at a time as keep each group within ``size`` bytes."""
        group: list[str] = []
        held = 0
        for path, size in [*zip(paths, sizes.tolist()), (None, 0)]:
            if group and (path is None or held + size > self.size):
                table = pa.concat_tables([pa.ipc.open_stream(p).read_all() for p in group])
                for p in group:
                    os.remove(p)
                columns = [(table.column(0), table.column(1), table.column(2).to_numpy())]
                del table
                yield self._frame(columns.pop())
                group, held = [], 0
            if path is not None:
                group.append(path)
                held += size


class _Hashes:
    """A set of 64-bit hashes as sorted arrays (a few levels, merged as they grow): 8 bytes
    a query, where a set of ids would take ~60."""

    def __init__(self) -> None:
        self._levels: list[np.ndarray] = []

    def add(self, hashes: np.ndarray) -> bool:
        """Add ``hashes``; False if one of them was there (then nothing is added)."""
        hashes = np.sort(hashes)
        for level in self._levels:
            at = np.minimum(np.searchsorted(level, hashes), len(level) - 1)
            if (level[at] == hashes).any():
                return False
        self._levels.append(hashes)
        while len(self._levels) > 1 and len(self._levels[-2]) <= 2 * len(self._levels[-1]):
            top = self._levels.pop()
            self._levels[-1] = np.union1d(self._levels[-1], top)
        return True


def _joined(a: Any, b: Any) -> Any:
    """Two blocks' columns one after the other (ids as bytes if their types differ)."""
    if isinstance(a, np.ndarray):
        return np.concatenate([a, b])
    if a.type != b.type:
        a, b = _as_bytes(a), _as_bytes(b)
    return pa.chunked_array(a.chunks + b.chunks, type=a.type)


def _as_bytes(ids: pa.ChunkedArray) -> pa.ChunkedArray:
    chunks = [c.dictionary_decode() if pa.types.is_dictionary(c.type) else c for c in ids.chunks]
    return pa.chunked_array([c.cast(pa.large_binary()) for c in chunks], type=pa.large_binary())


def _last_query(query_ids: pa.ChunkedArray) -> np.ndarray:
    """A mask of the rows whose query is the last row's."""
    last = query_ids[len(query_ids) - 1]
    value = last.value if isinstance(last, pa.DictionaryScalar) else last
    masks = []
    for chunk in query_ids.chunks:
        if pa.types.is_dictionary(chunk.type):
            at = pc.index(chunk.dictionary, value).as_py()
            masks.append(chunk.indices.to_numpy(zero_copy_only=False) == at)
        else:
            masks.append(pc.equal(chunk, value).to_numpy(zero_copy_only=False))
    return np.concatenate(masks)


def _cut_last_query(block: tuple) -> tuple[tuple, tuple]:
    """``(rest, carry)``: a block's columns without, and with only, the lines of its last
    line's query. Those lines usually end the block: then ``rest`` is a slice (no copy) and
    ``carry`` a copy (it must not hold the whole block's buffers); else both are filtered."""
    last = _last_query(block[0])
    cut = len(last) - int(np.argmin(last[::-1])) if not last.all() else 0  # where the tail of True begins
    if last[:cut].any():  # the query also comes earlier: not a tail
        return _split(block, ~last), _split(block, last)
    rest = (block[0].slice(0, cut), block[1].slice(0, cut), block[2][:cut])
    tail = pa.array(np.arange(len(last) - cut))  # taken from the slice: Arrow would first join every chunk
    return rest, (block[0].slice(cut).take(tail), block[1].slice(cut).take(tail), block[2][cut:].copy())


def _split(block: tuple, rows: np.ndarray) -> tuple:
    mask = pa.array(rows)
    return block[0].filter(mask), block[1].filter(mask), block[2][rows]


def _query_hashes(ids: Any, per_row: bool = False) -> np.ndarray:
    """A 64-bit hash of each query id (the same within a process): of an Index of ids, or
    of each row of an Arrow column (``per_row``, through its distinct ids)."""
    if not per_row:
        return np.fromiter((hash(q) for q in ids), dtype=np.int64, count=len(ids))
    encoded = pc.dictionary_encode(ids).combine_chunks()
    distinct = np.fromiter((hash(q) for q in encoded.dictionary.to_pylist()), dtype=np.int64,
                           count=len(encoded.dictionary))
    return distinct[encoded.indices.to_numpy(zero_copy_only=False)].view(np.uint64)
