"""A TREC run file read in frames of whole queries, within a memory bound: :class:`RunFile`.

A run grouped by query is read block by block, each block's last query carried over to the
next (:meth:`RunFile.grouped`); a run in any order is first spread over temporary Arrow files
by a hash of its query ids (:meth:`RunFile.partitioned`). Each frame is the one
:func:`rankkit.io.read_run` makes, checked the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from .checks import check_duplicates
from .columnar import columnar_format
from .layout import build_frame, query_series
from .run_blocks import Hashes, _as_bytes, query_hashes, whole_queries
from .trec_format import blocks as trec_file_blocks
from .trec_format import lines_of, opened

_BLOCK_BYTES = 64 << 20  # bytes of lines per frame by default: well within memory, few frames
_PARTS = 256  # temporary files a run in any order is spread over by default


class RunNotGrouped(Exception):
    """A run file's query comes back after other queries: its lines are not grouped by query."""


class RunFile:
    """A TREC run file read in frames of whole queries, for runs larger than memory.

    ``RunFile(source, size)`` opens a TREC text file (a path or a binary file object; see
    :meth:`is_trec`; Parquet and Feather files are read whole). :meth:`grouped` yields
    frames like :func:`~rankkit.io.read_run`'s, each about ``size`` bytes of lines and every line of
    its queries; it raises :class:`RunNotGrouped` when a query comes back after others.
    :meth:`partitioned` works for any order: it first writes the lines to temporary Arrow
    files by a hash of their query. After either, ``tag`` is the tag of the file's last
    data line (trec_eval's runid). Errors name the file and the line, as :func:`~rankkit.io.read_run`.
    """

    def __init__(self, source: Any, size: int = _BLOCK_BYTES):
        self._input, self.size, self.tag = opened(source), size, None
        self.name = self._input.name
        self.total = self._input.size  # bytes (None when not known: gzip, a pipe)
        self.on_read: Any = None  # called with the bytes of each block read
        self.threads = True  # each block parsed with pyarrow's thread pool (not when read ahead)

    @staticmethod
    def is_trec(source: Any) -> bool:
        """Whether ``source`` is read as a TREC text file (a path or a binary file object that
        is not Parquet or Feather)."""
        if isinstance(source, (str, os.PathLike)):
            return columnar_format(source) is None
        if not hasattr(source, "read"):
            return False
        try:
            start = source.tell() if source.seekable() else None
        except (OSError, AttributeError, ValueError):
            start = None
        try:
            return columnar_format(source) is None  # reads a columnar file object: put it back
        finally:
            if start is not None:
                source.seek(start)

    def __enter__(self) -> RunFile:
        return self

    def __exit__(self, *exc) -> None:
        self._input.__exit__()

    def _blocks(self, size: int | None = None) -> Iterator[tuple[pa.ChunkedArray, pa.ChunkedArray, np.ndarray]]:
        self.tag = None
        for _, query_ids, doc_ids, scores, tag, size_read in trec_file_blocks(self._input, "run", size or self.size,
                                                                          threads=self.threads):
            self.tag = tag if tag is not None else self.tag
            if self.on_read is not None:
                self.on_read(size_read)
            if len(scores):  # not a block of comments
                yield query_ids, doc_ids, scores

    def grouped(self) -> Iterator[pd.DataFrame]:
        """Frames of whole queries, in file order; :class:`RunNotGrouped` if a query's lines
        are not all together (told by a hash of each query id done)."""
        done = Hashes()
        for box in whole_queries(self._blocks()):
            yield self._frame(box.pop(), done)  # held by the frame alone while the caller works

    def _frame(self, arrays: tuple, done: Hashes | None = None) -> pd.DataFrame:
        frame = build_frame(query_series(arrays[0], all_used=False), arrays[1], arrays[2], "run")
        if done is not None and not done.add(query_hashes(frame.query_id.cat.categories)):
            raise RunNotGrouped(self.name)
        check_duplicates(frame, "run", where=self.name,
                          lines=lambda query, doc: lines_of(self._input, query, doc))
        frame.attrs["name"] = self.tag
        return frame

    def partitioned(self, directory: str, parts: int = _PARTS) -> Iterator[pd.DataFrame]:
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
                part = query_hashes(table.column(0), per_row=True) % parts
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
