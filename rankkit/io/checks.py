"""Checks of a reader's input and of the frame it makes, each naming what to change.

Columns (rankkit's, pyterrier's or the caller's names, :data:`COLUMN_NAMES`), ids (no float
ids, no missing id, one id per Python value), values (finite numbers) and duplicates (no
document twice for one query, found through 64-bit keys and confirmed on the ids).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from .keys import GOLD, arrow_ids, doc_keys, pair_keys
from .trec_format import FORMATS

if TYPE_CHECKING:  # pandas on first use: the duplicate check of arrays needs none
    import pandas as pd

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

# The block-wise duplicate check (_suspect_queries) pads every query to the longest one:
_MAX_PADDING = 2  # padded cells per row of the frame, at most; beyond, the pair keys are sorted instead
_SHORT_QUERY = 4096  # queries of up to this many documents are checked on 32-bit keys


def check_columns(columns: Any) -> dict[str, str]:
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


def find_columns(names: list, kind: str, columns: dict[str, str], what: str,
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
    roles = ("query_id", "doc_id", FORMATS[kind][0])
    missing = [role for role, name in zip(roles, (query, doc, value)) if name is None]
    if missing:
        wanted = ", ".join(f"{role} (or {' or '.join(COLUMN_NAMES[role][1:])})" for role in roles)
        other = "run" if kind == "qrels" else "qrels"
        swapped = missing == [roles[2]] and first(COLUMN_NAMES[FORMATS[other][0]]) is not None
        hint = (f"it looks like a {other}: swap the arguments, the judgments first" if swapped else
                f"name yours with columns={{'yours': '{missing[0]}'}}")
        raise ValueError(
            f"{what} must have {noun} {wanted}; missing {', '.join(missing)}; it has "
            f"{', '.join(map(str, names)) or 'none'} ({hint})"
        )
    return query, doc, value, is_rank


def check_values(df: pd.DataFrame, kind: str, where: str) -> None:
    """Every value of ``df`` (labels or scores) is finite; ``where`` starts the message."""
    value_col = FORMATS[kind][0]
    values = df[value_col].to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{where}: {value_col} must be finite, got {float(values[i])!r} "
            f"for query {df.query_id.iloc[i]!r}, document {df.doc_id.iloc[i]!r}"
        )


def check_duplicates(df: pd.DataFrame, kind: str, where: str, lines: Any = None) -> None:
    """A document listed twice for one query is an error (trec_eval rejects it too). Given
    ``lines`` (query, document -> the numbers of the file's lines that list them), the
    message names the file's lines: ``run.txt lines 3 and 9: document 'd1' is retrieved
    twice for query 'q1' ...``.

    The document keys built here are remembered (:func:`rankkit.io.keys.doc_keys`): the join
    reuses them.
    """
    keys, _ = doc_keys(arrow_ids(df.doc_id))
    pair = first_duplicate(np.asarray(df.query_id.cat.codes), keys, df.query_id.cat.categories, df.doc_id.to_numpy())
    if pair is not None:
        raise duplicate_error(pair, kind, where, lines)


def first_duplicate(codes: np.ndarray, keys: np.ndarray, names: Any, ids: Any) -> tuple[Any, Any] | None:
    """The first (query id, document id) listed twice, in row order, given each row's query
    code (into ``names``), document key (:func:`rankkit.io.keys.doc_keys`) and document id
    (an Arrow column or a NumPy array); None if there is none. Only the rows :func:`suspect_rows` names are
    compared on their ids (a hash collision is not a duplicate)."""
    rows = suspect_rows(codes, keys, len(names)) if len(codes) > 1 else None
    if rows is None:
        return None
    docs = ids[rows].tolist() if isinstance(ids, np.ndarray) else ids.take(pa.array(rows)).to_pylist()
    pairs = list(zip(codes[rows].tolist(), docs))  # the few suspects
    seen: set = set()
    twice = {pair for pair in pairs if pair in seen or seen.add(pair)}
    first = next((pair for pair in pairs if pair in twice), None)
    return None if first is None else (names[first[0]], first[1])


def duplicate_error(pair: tuple[Any, Any], kind: str, where: str, lines: Any = None) -> ValueError:
    """The error for a document listed twice for a query (``pair``), naming the file's lines
    when ``lines`` finds them."""
    query, doc = pair
    what = "judged" if kind == "qrels" else "retrieved"
    found = lines(query, doc) if lines is not None else []
    at = f" line{'s' if len(found) > 1 else ''} {' and '.join(map(str, found))}" if found else ""
    return ValueError(f"{where}{at}: document {doc!r} is {what} twice for query {query!r} "
                      f"(trec_eval rejects duplicates; remove one)")


def suspect_rows(codes: np.ndarray, keys: np.ndarray, n: int) -> np.ndarray | None:
    """The rows that may list a document twice for one query, given each row's query code
    (< ``n``) and document key (:func:`rankkit.io.keys.doc_keys`); None when none may. Rows
    whose (query, document) keys are equal: the ids confirm it (a hash collision is not a
    duplicate)."""
    queries = _suspect_queries(codes, keys)
    if queries is not None:  # rows grouped by query: the rows of queries with a shared key
        if not len(queries):
            return None
        rows = np.isin(codes, queries)
    else:  # one 64-bit key per (query, document), sorted; equal neighbours are suspects
        key = pair_keys(codes, keys.copy(), n)
        key.sort(kind="stable")  # timsort: fast on rows grouped by query (see pair_keys)
        same = key[1:] == key[:-1]
        if not same.any():
            return None
        rows = np.isin(pair_keys(codes, keys.copy(), n), key[1:][same])
    return np.flatnonzero(rows)


def _suspect_queries(codes: np.ndarray, keys: np.ndarray) -> np.ndarray | None:
    """The query codes whose documents' keys are not all distinct, when every query's rows
    are together (a run file's block, most frames); None otherwise, or when the queries are
    too unequal in length.

    Each query's keys are sorted on their own, as one row of a matrix padded with the
    largest key: many short sorts in the CPU cache, faster than one stable sort of every
    pair key, and faster still on 32-bit keys. Queries of up to :data:`_SHORT_QUERY`
    documents use the top 32 bits of the mixed key (a shared key in ~0.2% of them, then
    confirmed on the ids), longer ones all 64.
    """
    starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
    block = codes[starts]
    sizes = np.diff(np.append(starts, len(codes)))
    width = int(sizes.max())
    if len(starts) * width > _MAX_PADDING * len(codes) or len(np.unique(block)) < len(block):
        return None
    with np.errstate(over="ignore"):
        mixed = keys * GOLD  # spreads every bit of the key over the top ones
    if width <= _SHORT_QUERY:
        mixed = (mixed >> np.uint64(32)).astype(np.uint32)
    inside = np.arange(width) < sizes[:, None]
    padded = np.full(inside.shape, np.iinfo(mixed.dtype).max, dtype=mixed.dtype)
    padded[inside] = mixed
    del mixed
    padded.sort(axis=1)
    shared = (padded[:, 1:] == padded[:, :-1]) & inside[:, 1:]
    return block[shared.any(axis=1)]


def is_float(dtype: Any) -> bool:
    """Whether a column dtype holds floats (pandas cannot tell for some Arrow types)."""
    import pandas as pd

    if isinstance(dtype, pd.ArrowDtype):
        return pa.types.is_floating(dtype.pyarrow_dtype)
    return pd.api.types.is_float_dtype(dtype)


def missing_id_error(series: pd.Series, col: str, what: str) -> ValueError:
    """The error for an id column with a missing value (None, NaN), naming its first row."""
    row = plain_label(series.index[series.isna().to_numpy()][0])
    return ValueError(f"{what}: {col} is missing in row {row!r}")


def check_one_id_per_value(series: pd.Series) -> None:
    """Values equal in Python are one value for pandas (1, 1.0, True) but different ids
    ("1", "1.0", "True"): which one a query got would depend on the order of the rows."""
    seen: dict = {}
    for value in dict.fromkeys((type(v), v) for v in series.to_numpy()):
        other = seen.setdefault(value[1], value[1])
        if str(other) != str(value[1]):
            raise ValueError(f"query ids {other!r} and {value[1]!r} are equal in Python but different ids "
                             f"({str(other)!r}, {str(value[1])!r}): give the column one type")


def check_no_floats(ids: Iterable, kind: str, what: str) -> None:
    """Float keys are refused as float columns are: 10.0 would be the id "10.0"."""
    bad = next((i for i in ids if isinstance(i, (float, np.floating))), None)
    if bad is not None:
        raise ValueError(f"{kind}: {what} ids must be text or integers, got the float {bad!r}")


def is_number(value: Any) -> bool:
    """Whether ``value`` stands for a number (text such as ``"1"`` does not)."""
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, (str, bytes))


def plain_label(label: Any) -> Any:
    """An index label as Python shows it (``1``, not numpy 2's ``np.int64(1)``; tuples of a
    MultiIndex too)."""
    if isinstance(label, tuple):
        return tuple(plain_label(x) for x in label)
    return label.item() if isinstance(label, np.generic) else label
