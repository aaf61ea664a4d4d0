"""Reading Python objects: ``{query_id: {doc_id: value}}`` dicts, records (namedtuples such
as ir_datasets and ir_measures give, dataclasses, dicts) and ir_datasets datasets.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from itertools import chain
from operator import attrgetter, itemgetter

import numpy as np
import pandas as pd
import pyarrow as pa

from .checks import check_duplicates, check_no_floats, check_values, find_columns, is_number
from .dataframes import from_frame
from .keys import text_array
from .layout import build_frame, sorted_ids
from .trec_format import FORMATS

DATASET_METHOD = {"qrels": "qrels_iter", "run": "scoreddocs_iter"}  # ir_datasets' iterators


def from_dict(source: Mapping, kind: str) -> pd.DataFrame:
    """``{query_id: {doc_id: value}}`` in one pass over the entries (no DataFrame first)."""
    value_col = FORMATS[kind][0]
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
                if not is_number(value):
                    raise ValueError(f"{kind}[{qid!r}][{doc!r}]: {value_col} must be a number, got {value!r}") from None
        raise  # pragma: no cover - fromiter failed for a reason the scan did not find
    docs = list(chain.from_iterable(inner))
    try:
        doc_ids, unique = pa.array(docs, type=pa.large_string()), True  # distinct keys, distinct ids
    except (pa.ArrowTypeError, pa.ArrowInvalid, UnicodeEncodeError):  # numbers too: 1 and "1" are one id
        check_no_floats(docs, kind, "document")
        doc_ids, unique = text_array(docs), False
    del docs
    # Query ids straight to a Categorical with sorted categories (the readers' convention).
    check_no_floats(source.keys(), kind, "query")
    names = [q if isinstance(q, str) else str(q) for q in source.keys()]
    keep = lengths > 0  # a query with an empty dict has no row
    by_name, categories = sorted_ids(names, np.flatnonzero(keep).tolist())
    if categories.has_duplicates:
        dup = categories[categories.duplicated()][0]
        raise ValueError(f"query ids {dup!r} occur as different types (e.g. 1 and '1')")
    code_of = np.zeros(len(names), dtype=np.int32)
    code_of[by_name] = np.arange(len(by_name), dtype=np.int32)
    query_ids = pd.Series(pd.Categorical.from_codes(np.repeat(code_of, lengths), categories=categories, validate=False))
    out = build_frame(query_ids, doc_ids, values, kind)
    check_values(out, kind, where=kind)
    if not unique:
        check_duplicates(out, kind, where=kind)
    return out


def from_records(records: Iterable, kind: str, columns: dict[str, str]) -> pd.DataFrame:
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
    query, doc, value, is_rank = find_columns(names, kind, columns, f"{what} ({type(head).__name__})", "fields")
    fields = get(query, doc, value)
    try:
        rows = [fields(head), *map(fields, it)]  # the one pass over the records
    except (AttributeError, KeyError, TypeError) as err:
        raise ValueError(f"{what}: a record after the first lacks a field of the first ({err})") from None
    q, d, v = zip(*rows)
    frame = pd.DataFrame({"query_id": pd.Series(q, dtype=object), "doc_id": pd.Series(d, dtype=object),
                          "v": pd.Series(v, dtype=object)})
    rename = {"query_id": "query_id", "doc_id": "doc_id", "v": "rank" if is_rank else FORMATS[kind][0]}
    return from_frame(frame.rename(columns=rename), kind, None, what)
