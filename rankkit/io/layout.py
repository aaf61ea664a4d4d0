"""The frame every reader returns: one row per (query, document), columns ``query_id``,
``doc_id`` and the value (``relevance`` or ``score``).

Column types, chosen for :func:`rankkit.rank` on runs of millions of lines:

- ``query_id``: a pandas Categorical whose categories are the distinct ids as ``str``,
  sorted the way trec_eval sorts query ids (byte order). A run has few queries, so this
  costs 1-2 bytes a row instead of ~12, and ``rank`` orders and groups by the codes.
- ``doc_id``: pandas' pyarrow-backed string dtype (``str`` in pandas 3). It comes from the
  parser without a copy into Python objects, and ``rank`` hands it straight back to Arrow
  and NumPy, where each id becomes a 64-bit key (see :mod:`rankkit.io.keys`). A Categorical
  was tried and rejected here: unifying the parser's per-block dictionaries of millions of
  distinct documents cost more than reading the file.
- the value: float64; judgments' labels int64 when every label is a whole number.

Ids are compared as bytes, as trec_eval's ``strcmp`` does: see :mod:`rankkit.io.readers` for
the ids that are not UTF-8.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .keys import id_bytes, is_binary
from .trec_format import FORMATS, id_text


def build_frame(query_ids: pa.Array | pd.Series, doc_ids: pa.Array | pd.Series, values: np.ndarray,
                kind: str) -> pd.DataFrame:
    """The readers' frame of ``kind`` from its three columns; ids stay Arrow-backed where they
    are UTF-8, values become int64 where all are integers (judgments)."""
    value_col = FORMATS[kind][0]
    if kind == "qrels":
        values = _as_labels(values)
        if isinstance(doc_ids, pa.ChunkedArray) and doc_ids.num_chunks > 1:
            # One chunk: taking rows of a chunked array makes Arrow concatenate every chunk
            # first, on every take (the judgments are taken from once per block of a run).
            doc_ids = pa.chunked_array([doc_ids.combine_chunks()])
    return pd.DataFrame({
        "query_id": query_ids if isinstance(query_ids, pd.Series) else query_series(query_ids),
        "doc_id": doc_ids if isinstance(doc_ids, pd.Series) else _doc_series(doc_ids),
        value_col: values,
    })


def query_series(arr: pa.Array | pa.ChunkedArray, all_used: bool = True) -> pd.Series:
    """Query ids (Arrow text or bytes, plain or dictionary-encoded) as a Categorical whose
    categories are the distinct ids, sorted by their bytes. ``all_used=False``: some
    dictionary may hold ids its chunk does not use (a filtered array)."""
    if not isinstance(arr, pa.ChunkedArray):
        arr = pa.chunked_array([arr])
    if len(arr) == 0:
        return pd.Series(pd.Categorical([], categories=pd.Index([], dtype=STRING_DTYPE)))
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
        series = series.cat.rename_categories(pd.Index([id_text(b) for b in categories], dtype=object))
    # Every dictionary here (the CSV parser's, one per block, or dictionary_encode's) holds
    # only ids that occur in its chunk, and pandas unifies them into their union: all used.
    return canonical_categories(series, all_used=all_used)


def canonical_categories(series: pd.Series, all_used: bool = False) -> pd.Series:
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
    by_name, index = sorted_ids(names)
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


STRING_DTYPE = _string_dtype()


def _doc_series(arr: pa.Array | pa.ChunkedArray) -> pd.Series:
    """Document ids from Arrow text or bytes: pyarrow-backed str if all are UTF-8, else a
    column of surrogate-escaped ``str`` (dtype object; see the module docstring)."""
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    text = _as_text(chunks)
    if text is None:
        return pd.Series([id_text(b) for b in pa.chunked_array(chunks).to_pylist()], dtype=object)
    return _string_series(pa.chunked_array(text, type=text[0].type if text else pa.large_string()))


def _string_series(arr: pa.Array | pa.ChunkedArray) -> pd.Series:
    if not isinstance(arr, pa.ChunkedArray):
        arr = pa.chunked_array([arr])
    if arr.type not in (pa.string(), pa.large_string()):
        arr = arr.cast(pa.string())
    try:
        values = STRING_DTYPE.__from_arrow__(arr)  # pandas' Arrow protocol: no copy
    except (TypeError, ValueError):  # pandas 2.1 takes only 32-bit offsets (string, not large_string)
        values = STRING_DTYPE.__from_arrow__(arr.cast(pa.string()))
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


def _id_index(names: list[str]) -> pd.Index:
    """An Index of ids: Arrow-backed str, or object when some id holds escaped bytes."""
    try:
        return pd.Index(names, dtype=STRING_DTYPE)
    except UnicodeEncodeError:
        return pd.Index(names, dtype=object)


def sorted_ids(names: list[str], among: list[int] | None = None) -> tuple[list[int], pd.Index]:
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
