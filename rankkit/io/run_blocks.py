"""A TREC run file's blocks of lines cut into whole queries, on Arrow and NumPy columns (no
frame): what :class:`rankkit.io.RunFile` reads a run grouped by query with, and the command
line's evaluation without pandas."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["whole_queries", "Hashes", "query_hashes"]


def whole_queries(blocks: Iterator[tuple]) -> Iterator[list[tuple]]:
    """The lines of ``blocks`` (query ids, document ids, scores; in file order) regrouped so
    that each holds every line of its queries that is not in another: a block's last query
    goes on in the next block, so it is carried over. Each comes in a list of one, which the
    caller empties: then nothing else holds the block's columns while they are used."""
    carry = None  # the lines of the last query read so far: it may go on in the next block
    for block in blocks:
        if carry is not None:
            block = tuple(_joined(a, b) for a, b in zip(carry, block))
        rest, carry = _cut_last_query(block)
        rest = [rest]
        del block
        if len(rest[0][2]):
            yield rest
    if carry is not None and len(carry[2]):
        yield [carry]


class Hashes:
    """A set of 64-bit hashes as sorted arrays (a few levels, merged as they grow): 8 bytes
    a query, where a set of ids would take ~60. A reader of runs in blocks adds the hashes
    of each block's query ids to tell a run whose queries are not grouped (:meth:`add`
    returns False on a query seen in an earlier block)."""

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


def query_hashes(ids: Any, per_row: bool = False) -> np.ndarray:
    """A 64-bit hash of each query id (the same within a process): of an Index of ids, or
    of each row of an Arrow column (``per_row``, through its distinct ids)."""
    if not per_row:
        return np.fromiter((hash(q) for q in ids), dtype=np.int64, count=len(ids))
    encoded = pc.dictionary_encode(ids).combine_chunks()
    distinct = np.fromiter((hash(q) for q in encoded.dictionary.to_pylist()), dtype=np.int64,
                           count=len(encoded.dictionary))
    return distinct[encoded.indices.to_numpy(zero_copy_only=False)].view(np.uint64)
