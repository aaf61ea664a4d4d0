"""Reading judgments (qrels) and runs: TREC, Parquet and Feather files, pandas DataFrames,
Arrow tables, records (ir_datasets, ir_measures) and dicts.

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

Ids are compared as bytes, as trec_eval's ``strcmp`` does. An id column whose ids are
all valid UTF-8 holds them as ``str``, as described above. A column where some id is not
(Latin-1 ``caf\xe9``, say) holds every id as a Python ``str`` decoded with
``errors="surrogateescape"`` (``doc_id`` of dtype ``object``, ``query_id`` categories an
``object`` Index): ``id.encode("utf-8", "surrogateescape")`` gives back the file's bytes,
and writing the id to a stream with ``errors="surrogateescape"`` reproduces them. Keys,
matches and orders use those bytes, so a Latin-1 ``caf\xe9`` never equals a UTF-8 ``café``.

TREC files are read by :mod:`rankkit._trecfile`, the way trec_eval 10 reads them.
"""

from __future__ import annotations

import dataclasses
import os
import weakref
from collections.abc import Iterable, Mapping
from itertools import chain
from operator import attrgetter, itemgetter
from typing import IO, Any, Union

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ._trecfile import FORMATS as _FORMATS
from ._trecfile import id_text
from ._trecfile import parse as parse_trec_file

__all__ = ["read_qrels", "read_run", "COLUMN_NAMES"]

Source = Union[str, os.PathLike, IO[bytes], pd.DataFrame, Mapping]

_DOC_KEYS = "rankkit.doc_keys"  # attrs key: the _DocKeys the duplicate check built, for rank


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
        (trec_eval: pooled but not judged; :func:`rankkit.rankings.rank` treats them as
        unjudged and non-relevant). Other columns of the input are left out.

    Raises
    ------
    ValueError
        Malformed line (file and line number), non-numeric or non-finite label,
        a document judged twice for one query (query and document named), an empty,
        missing, unreadable or binary file; a frame, table, file or record without the
        three columns (the message lists what it has).

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
        Malformed line (file and line number), a non-numeric, NaN or infinite score,
        a document retrieved twice for one query (query and document named), an empty,
        missing, unreadable or binary file; a frame, table, file or record without the
        three columns (the message lists what it has).

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
    df.attrs["name"] = label
    return df


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

    query = first((columns["query_id"],) if "query_id" in columns else COLUMN_NAMES["query_id"])
    doc = first((columns["doc_id"],) if "doc_id" in columns else COLUMN_NAMES["doc_id"])
    is_rank = False
    if kind == "qrels":
        value = first((columns["relevance"],) if "relevance" in columns else COLUMN_NAMES["relevance"])
    elif "score" in columns or "rank" in columns:
        value, is_rank = (first((columns["score"],)), False) if "score" in columns else (first((columns["rank"],)), True)
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
    return pd.DataFrame({
        "query_id": query_ids if isinstance(query_ids, pd.Series) else _query_series(query_ids),
        "doc_id": doc_ids if isinstance(doc_ids, pd.Series) else _doc_series(doc_ids),
        value_col: values,
    })


def _query_series(arr: pa.Array | pa.ChunkedArray) -> pd.Series:
    """Query ids (Arrow text or bytes, plain or dictionary-encoded) as a Categorical whose
    categories are the distinct ids, sorted by their bytes."""
    if not isinstance(arr, pa.ChunkedArray):
        arr = pa.chunked_array([arr])
    if len(arr) == 0:
        return pd.Series(pd.Categorical([], categories=pd.Index([], dtype=_STR)))
    if not pa.types.is_dictionary(arr.type):
        arr = pc.dictionary_encode(arr)
    if _is_binary(arr.type.value_type):
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
    return _canonical_categories(series, all_used=True)


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
        if _is_binary(arr.type):
            try:
                arr = arr.cast(pa.large_string())  # zero-copy, after checking UTF-8
            except pa.ArrowInvalid:
                return None
        out.append(arr)
    return out


def _is_binary(type_: pa.DataType) -> bool:
    return pa.types.is_binary(type_) or pa.types.is_large_binary(type_)


def _id_bytes(text: str) -> bytes:
    """An id's bytes: the inverse of :func:`_id_text`."""
    return text.encode("utf-8", "surrogateescape")


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
        order = sorted(among, key=lambda i: _id_bytes(names[i]))
        index = pd.Index([names[i] for i in order], dtype=object)
    return order, index


def _text_array(values: list) -> pa.Array:
    """Ids as one Arrow array: large_string, or large_binary of their bytes when some id
    holds escaped bytes (a column read from a non-UTF-8 file)."""
    try:
        return pa.array(values, type=pa.large_string())
    except (pa.ArrowTypeError, pa.ArrowInvalid):  # not all str: numbers, say
        return _text_array([v if isinstance(v, str) else str(v) for v in values])
    except UnicodeEncodeError:
        return pa.array([_id_bytes(v) for v in values], type=pa.large_binary())


def _as_labels(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0 or np.array_equal(values, np.round(values)):
        return values.astype(np.int64)
    return values


# --------------------------------------------------------------------------- DataFrame

def _from_frame(df: pd.DataFrame, kind: str, columns: dict[str, str] | None = None,
                what: str | None = None) -> pd.DataFrame:
    """A DataFrame with rankkit's, pyterrier's or ``columns=``'s names (:data:`COLUMN_NAMES`)."""
    what = what or f"{kind} DataFrame"
    query, doc, value, is_rank = _find_columns(list(df.columns), kind, columns or {}, what)
    value_col = _FORMATS[kind][0]
    ids = []
    for col in (query, doc):
        series = df[col]
        if series.isna().any():
            row = _plain(series.index[series.isna().to_numpy()][0])
            raise ValueError(f"{what}: {col} is missing in row {row!r}")
        if col == query and isinstance(series.dtype, pd.CategoricalDtype):
            ids.append(_canonical_categories(series))
        else:
            ids.append(_arrow_strings(series))
    raw = df[value]
    try:
        values = raw.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(values) & raw.notna().to_numpy()
        row = _plain(raw.index[bad][0] if bad.any() else raw.index[0])
        name = value_col if value == value_col else f"{value_col} ({value})"
        raise ValueError(f"{what}: {name} must be a number, got {raw[row]!r} in row {row!r}") from None
    out = _frame(ids[0], ids[1], 0.0 - values if is_rank else values, kind)
    _check_values(out, kind, where=what)
    _check_duplicates(out, kind, where=what)
    return out


def _plain(label: Any) -> Any:
    """An index label as Python shows it (``1``, not numpy 2's ``np.int64(1)``)."""
    return label.item() if isinstance(label, np.generic) else label


def _arrow_strings(series: pd.Series) -> pa.ChunkedArray:
    """An id column as Arrow: its own array if Arrow-backed (no copy), else large_string,
    or large_binary when some id holds escaped bytes (see :func:`_text_array`)."""
    arr = series.array
    if isinstance(arr, pd.arrays.ArrowStringArray) or isinstance(series.dtype, pd.ArrowDtype):
        chunked = arr.__arrow_array__()
        if pa.types.is_string(chunked.type) or pa.types.is_large_string(chunked.type):
            return chunked
    return pa.chunked_array([_text_array(series.to_numpy(dtype=object).tolist())])


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
        if pa.types.is_integer(col.type) or pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            ids.append(col.cast(pa.large_string()))
        elif _is_binary(col.type):
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
    doc_ids = _text_array(list(chain.from_iterable(inner)))
    # Query ids straight to a Categorical with sorted categories (the readers' convention).
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
    return out  # dict keys are unique: no duplicate check needed


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
    name, query_ids, doc_ids, values, tag = parse_trec_file(source, kind)
    out = _frame(query_ids, doc_ids, values, kind)
    del query_ids, doc_ids, values
    pa.default_memory_pool().release_unused()
    _check_duplicates(out, kind, where=name)
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
    sub = pd.DataFrame({"q": df.query_id.to_numpy()[idx], "d": df.doc_id.to_numpy()[idx]}, dtype=object)
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
    names = _text_array(categories)
    [category_keys] = _string_keys(_bytes_as_string(names) if _is_binary(names.type) else names)
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
    """An id column as Arrow strings (no copy for Arrow-backed columns), for keys and
    byte-wise comparisons only: ids holding escaped bytes come as a large_string view of
    their bytes (not UTF-8; Arrow's hashing, equality, sorting and ``take`` never decode)."""
    ids = _arrow_strings(series)
    if _is_binary(ids.type):
        ids = pa.chunked_array([_bytes_as_string(c) for c in ids.chunks], type=pa.large_string())
    return ids


def _bytes_as_string(arr: pa.Array) -> pa.Array:
    """A large_binary array seen as large_string without a check (see :func:`_arrow_ids`)."""
    return arr.view(pa.large_string())


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
