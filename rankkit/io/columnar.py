"""Reading Arrow tables, and Parquet and Feather files (told by their first and last bytes),
without a detour through Python objects: only the three columns are read.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from .checks import check_duplicates, check_values, find_columns
from .keys import is_binary, is_string_view
from .layout import build_frame


def from_arrow(table: pa.Table, kind: str, columns: dict[str, str], what: str) -> pd.DataFrame:
    """An Arrow table (read from Parquet or Feather) without a detour through Python objects:
    text ids as they are, integer ids as text, values as float64."""
    query, doc, value, is_rank = find_columns(table.column_names, kind, columns, what)
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
    out = build_frame(ids[0], ids[1], 0.0 - values if is_rank else values, kind)
    check_values(out, kind, where=what)
    check_duplicates(out, kind, where=what)
    return out


_PARQUET, _FEATHER = b"PAR1", b"ARROW1"  # the magic bytes a file starts with
_HEAD_BYTES = 64  # bytes read to tell a columnar file: its magic, and whether it holds a NUL byte


def columnar_format(source: Any) -> tuple[str, Any] | None:
    """("Parquet" or "Feather", something pyarrow reads natively) if ``source`` is such a
    file, else None. A file object is read into memory (pyarrow's threads must not call
    back into Python); a path that is not a regular file (a pipe) is left to the TREC parser."""
    if isinstance(source, (str, os.PathLike)):
        try:
            if not os.path.isfile(source):
                return None
            with open(source, "rb") as f:
                head = f.read(_HEAD_BYTES)
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
            head = source.read(_HEAD_BYTES)
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


def read_columnar(fmt: str, native: Any, name: str, kind: str, columns: dict[str, str]) -> pd.DataFrame:
    """A Parquet or Feather file: only the three columns are read."""
    # Imported here: the command line reads TREC files, and these modules would add to its start-up.
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
        query, doc, value, _ = find_columns(schema.names, kind, columns, what)
        wanted = list(dict.fromkeys([query, doc, value]))
        table = (pq.read_table(native, columns=wanted) if fmt == "Parquet"
                 else feather.read_table(native, columns=wanted))
    except (pa.ArrowException, OSError) as err:
        raise ValueError(f"{what}: cannot be read: {str(err).splitlines()[0]}") from None
    if table.num_rows == 0:
        raise ValueError(f"{what}: no rows, expected {kind} lines")
    return from_arrow(table, kind, columns, what)
