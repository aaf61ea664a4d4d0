"""Reading a pandas DataFrame: its id columns without a Python object per row where pandas
allows it, and id columns seen (and checked) before taken as they were then.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from .checks import (
    check_duplicates,
    check_one_id_per_value,
    check_values,
    find_columns,
    is_float,
    missing_id_error,
    plain_label,
)
from .keys import arrow_strings, text_array
from .layout import STRING_DTYPE, build_frame, canonical_categories
from .trec_format import FORMATS


def from_frame(df: pd.DataFrame, kind: str, columns: dict[str, str] | None = None,
               what: str | None = None) -> pd.DataFrame:
    """A DataFrame with rankkit's, pyterrier's or ``columns=``'s names (:data:`COLUMN_NAMES`)."""
    what = what or f"{kind} DataFrame"
    query, doc, value, is_rank = find_columns(list(df.columns), kind, columns or {}, what)
    value_col = FORMATS[kind][0]
    for col in (query, doc, value):
        if list(df.columns).count(col) > 1:
            raise ValueError(f"{what}: column {col!r} appears more than once")
    for col in (query, doc):
        if df[col].dtype != object and df[col].isna().any():  # object columns: told as they are converted
            raise missing_id_error(df[col], col, what)
        if is_float(df[col].dtype):  # as from Arrow: 10.0 would be the id "10.0"
            raise ValueError(f"{what}: {col} must hold text or integer ids, got {df[col].dtype} "
                             f"(convert it with .astype('int64') or .astype(str))")
    token, seen = _seen(df[query], df[doc])
    ids = [seen if seen is not None else _query_column(df[query]), _doc_column(df[doc])]
    for col, column in zip((query, doc), ids):
        if column is None:
            raise missing_id_error(df[col], col, what)
    raw = df[value]
    try:
        values = raw.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(values) & raw.notna().to_numpy()
        at = int(np.flatnonzero(bad)[0]) if bad.any() else 0
        name = value_col if value == value_col else f"{value_col} ({value})"
        raise ValueError(f"{what}: {name} must be a number, got {raw.iloc[at]!r} "
                         f"in row {plain_label(raw.index[at])!r}") from None
    out = build_frame(ids[0], ids[1], 0.0 - values if is_rank else values, kind)
    check_values(out, kind, where=what)
    if seen is None:
        check_duplicates(out, kind, where=what)
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
    """Remember id columns that passed the checks (``seen`` from :func:`_seen`) with the
    query Categorical built from them, for as long as the document ids' array lives."""
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


def _query_column(series: pd.Series) -> pd.Series | pa.ChunkedArray | None:
    """A query id column, without a Python object per row: Categoricals and integer or
    object columns through their few distinct values; Arrow strings as they are. None when
    an id of an ``object`` column is missing (its factorized code is -1)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return canonical_categories(series)
    if isinstance(series.array, pd.arrays.ArrowStringArray) or isinstance(series.dtype, pd.ArrowDtype):
        return arrow_strings(series)  # dictionary-encoded by Arrow in query_series
    codes, uniques = pd.factorize(series)
    if len(codes) and codes.min() < 0:
        return None
    if series.dtype == object and not all(isinstance(u, str) for u in uniques):
        check_one_id_per_value(series)
    categories = pd.Index(np.asarray(uniques, dtype=object), dtype=object)
    return canonical_categories(pd.Series(pd.Categorical.from_codes(codes, categories)), all_used=True)


def _doc_column(series: pd.Series) -> pd.Series | pa.ChunkedArray | None:
    """A document id column: the column itself when it already has the readers' dtype (no
    copy, and its document keys are built once: see :func:`rankkit.io.keys.doc_keys`);
    integers through their distinct values; anything else as Arrow text. None when an id
    of an ``object`` column is missing: Arrow finds None and NaN as it converts ``str``
    objects (a separate ``isna`` pass would cost as much as the conversion)."""
    if series.dtype == STRING_DTYPE and isinstance(series.array, pd.arrays.ArrowStringArray):
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
