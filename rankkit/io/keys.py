"""Document and query keys: the one place where ids become 64-bit integers.

Matching a run with its judgments, and finding a document listed twice, compare ids. Done
on strings (a pandas merge on string columns, say) this is slow, so every id becomes a
``uint64`` key, read straight from the Arrow buffers without a Python object per id: an
id of at most 8 bytes *is* its key (its bytes as a little-endian word, an exact key);
longer ids are hashed from their 8-byte words (splitmix64 finalizer).
Equal ids get equal keys; distinct ids almost always get distinct keys, and every caller
confirms its matches on the ids themselves (:func:`same_ids`), so a collision can cost
time but never change a result. Keying is several times faster than pyarrow's
``dictionary_encode`` of the same ids.

Keys are built once per Arrow array: :func:`doc_keys` remembers them for as long as the
array lives (Arrow arrays are immutable, so the same array always has the same keys), so
a frame evaluated again, or the runs of a sweep that share their document column, reuse
them. The cache holds weak references only and nothing is stored on the user's objects.

Ids are compared as bytes, as trec_eval's ``strcmp`` does; a column holding ids that are
not UTF-8 (surrogate-escaped ``str``, see :mod:`rankkit.io`) is seen here as the bytes it
stands for.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:  # pandas is imported where frames are made: not on the command line's path
    import pandas as pd

GOLD = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio, odd: multiplying by it is a bijection
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_DENSE_WORDS = 8  # words of every id hashed one after the other; longer ids' other words at once
_SLICE = 1 << 18  # ids keyed at a time: temporaries that stay in the CPU cache, faster than one piece
_LOW_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], dtype=np.uint64)


# --------------------------------------------------------------------------- ids as Arrow

def id_bytes(text: str) -> bytes:
    """An id's bytes (``str`` ids holding escaped bytes give those bytes back)."""
    return text.encode("utf-8", "surrogateescape")


def trec_order(ids: list) -> list[int]:
    """Positions of query ``ids`` sorted as trec_eval sorts them (by their bytes)."""
    if all(isinstance(q, str) for q in ids) and "".join(ids).isascii():  # ASCII: the bytes sort as the text
        return sorted(range(len(ids)), key=ids.__getitem__)
    return sorted(range(len(ids)), key=lambda i: id_bytes(ids[i]))


def query_index(ids: list) -> pd.Index:
    """Query ids as :func:`rankkit.rank` indexes them: ``str``, or Python objects when some
    id holds bytes that are not UTF-8 (escaped), which pandas 3's ``str`` cannot hold."""
    import pandas as pd

    try:
        return pd.Index(ids, dtype=str, name="query_id")
    except UnicodeEncodeError:
        return pd.Index(ids, dtype=object, name="query_id")


def text_array(values: list) -> pa.Array:
    """Ids as one Arrow array: large_string, or large_binary of their bytes when some id
    holds escaped bytes (a column read from a non-UTF-8 file). Non-strings become ``str``."""
    try:
        return pa.array(values, type=pa.large_string())
    except (pa.ArrowTypeError, pa.ArrowInvalid):  # not all str: numbers, say
        return text_array([v if isinstance(v, str) else str(v) for v in values])
    except UnicodeEncodeError:
        return pa.array([id_bytes(v) for v in values], type=pa.large_binary())


def is_binary(type_: pa.DataType) -> bool:
    return pa.types.is_binary(type_) or pa.types.is_large_binary(type_)


def is_string_view(type_: pa.DataType) -> bool:
    """Arrow's ``string_view`` (pyarrow 16+; polars writes it): text, like ``string``."""
    return getattr(pa.types, "is_string_view", lambda _: False)(type_)


def arrow_strings(series: pd.Series) -> pa.ChunkedArray:
    """An id column as Arrow: its own array if Arrow-backed (no copy, the same object on
    every call), else large_string, or large_binary when some id holds escaped bytes."""
    import pandas as pd  # loaded already: the series is pandas'

    arr = series.array
    if isinstance(arr, pd.arrays.ArrowStringArray) or isinstance(series.dtype, pd.ArrowDtype):
        chunked = arr.__arrow_array__()
        if pa.types.is_string(chunked.type) or pa.types.is_large_string(chunked.type):
            return chunked
        if is_string_view(chunked.type):
            return chunked.cast(pa.large_string())
    values = series.to_numpy(dtype=object)
    try:  # straight from the object array: no list of 10 million references first
        return pa.chunked_array([pa.array(values, type=pa.large_string(), from_pandas=True)])
    except (pa.ArrowTypeError, pa.ArrowInvalid, UnicodeEncodeError):
        return pa.chunked_array([text_array(values.tolist())])


def arrow_ids(series: pd.Series) -> pa.ChunkedArray:
    """An id column as Arrow strings for keys and byte-wise comparisons only: ids holding
    escaped bytes come as a large_string *view* of their bytes (not UTF-8; Arrow's hashing,
    equality, sorting and ``take`` never decode)."""
    ids = arrow_strings(series)
    if is_binary(ids.type):
        ids = pa.chunked_array([c.view(pa.large_string()) for c in ids.chunks], type=pa.large_string())
    return ids


def take(ids: pa.ChunkedArray, indices: np.ndarray) -> pa.Array:
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


def same_ids(a: pa.ChunkedArray, a_rows: np.ndarray, b: pa.ChunkedArray, b_rows: np.ndarray) -> bool:
    """Whether ``a[a_rows]`` and ``b[b_rows]`` are the same ids, pair by pair."""
    if len(a_rows) == 0:
        return True
    left = take(a, a_rows).cast(pa.large_string())
    right = take(b, b_rows).cast(pa.large_string())
    return bool(pc.all(pc.equal(left, right)).as_py())


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


# --------------------------------------------------------------------------- keys

def mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finalizer: a bijective scramble of 64-bit words."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
        return x ^ (x >> np.uint64(31))


def _chunk_keys(arr: pa.Array, n_words: int) -> np.ndarray:
    """The keys of one Arrow string array (see :func:`string_keys`)."""
    if len(arr) == 0:
        return np.zeros(0, dtype=np.uint64)
    offsets, data = _offsets(arr), arr.buffers()[2]
    if n_words == 1 and data is not None:
        return _short_keys(arr, offsets, data)
    return _padded_keys(arr, n_words)


def _offsets(arr: pa.Array) -> np.ndarray:
    """The offsets of a string array's ids (one more than the ids), as NumPy's view."""
    width = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    return np.frombuffer(arr.buffers()[1], dtype=width)[arr.offset: arr.offset + len(arr) + 1]


def _padded_keys(arr: pa.Array, n_words: int) -> np.ndarray:
    """:func:`_chunk_keys` from a copy of the ids' bytes padded with zeros: every word read
    is in the copy."""
    n = len(arr)
    buffers = arr.buffers()
    offsets = _offsets(arr)
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
    # The first 8 words of every id in turn (an id's key left as it is once its bytes are
    # used up), then the words past 64 bytes of the longer ids all at once.
    key = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for w in range(min(n_words, _DENSE_WORDS, word_count(int(lengths.max())))):
            rest = np.minimum(np.maximum(lengths - 8 * w, 0), 8)
            new = mix(key * GOLD + (windows[starts + 8 * w] & _LOW_MASKS[rest]))
            key = new if w == 0 else np.where(rest > 0, new, key)
        long = np.flatnonzero(lengths > 8 * _DENSE_WORDS)
        if len(long):
            key[long] = mix(key[long] * GOLD + _tail_sums(windows, starts[long], lengths[long]))
    return key


def _short_keys(arr: pa.Array, offsets: np.ndarray, data: pa.Buffer) -> np.ndarray:
    """:func:`_chunk_keys` of ids of at most 8 bytes: each id's bytes, read as one
    (unaligned) 8-byte word at its offset in Arrow's data buffer itself and cut to its
    length, a slice of ids at a time (small temporaries, in the CPU cache). Only the last
    ids, whose word would reach past the buffer's end, are read from a padded copy
    (:func:`_padded_keys` on their slice)."""
    n = len(offsets) - 1
    inside = int(np.searchsorted(offsets[:-1], data.size - 8, side="right"))  # ids whose word is in the buffer
    keys = np.empty(n, dtype=np.uint64)
    if inside:
        words = np.ndarray(shape=(data.size - 7,), dtype="<u8", buffer=data, strides=(1,))
        for lo in range(0, inside, _SLICE):
            hi = min(lo + _SLICE, inside)
            # (words[...], not take: take would first copy the strided words whole)
            np.bitwise_and(words[offsets[lo:hi]], _LOW_MASKS[np.diff(offsets[lo: hi + 1])], out=keys[lo:hi])
    if inside < n:
        keys[inside:] = _padded_keys(arr.slice(inside), 1)
    return keys


def _tail_sums(windows: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """For ids longer than 64 bytes: the sum of every later word, each mixed with its
    position. Words in one array, not one pass per word: one 100 KB id among 200,000 short
    ones costs its own 12,500 words, not 12,500 passes over all the ids."""
    counts = (lengths - 8 * _DENSE_WORDS + 7) // 8
    firsts = np.cumsum(counts) - counts
    owner = np.repeat(np.arange(len(counts)), counts)
    word = _DENSE_WORDS + np.arange(int(counts.sum())) - firsts[owner]
    rest = np.minimum(lengths[owner] - 8 * word, 8)
    with np.errstate(over="ignore"):
        mixed = mix((windows[starts[owner] + 8 * word] & _LOW_MASKS[rest]) ^ (word.astype(np.uint64) * GOLD))
    return np.add.reduceat(mixed, firsts)


def longest(*arrays: pa.Array | pa.ChunkedArray) -> int:
    """Length in bytes of the longest string in these arrays (0 if none)."""
    chunked = [a.chunks if isinstance(a, pa.ChunkedArray) else [a] for a in arrays]
    return max((_longest(c) for cs in chunked for c in cs if len(c)), default=0)


def _longest(chunk: pa.Array) -> int:
    """:func:`longest` of one array: from its offsets (NumPy's memory, reused from call to
    call: Arrow's would be fresh pages each time), else by ``pyarrow.compute``."""
    kind = chunk.type
    large = pa.types.is_large_string(kind) or pa.types.is_large_binary(kind)
    if chunk.null_count or not (large or pa.types.is_string(kind) or pa.types.is_binary(kind)):
        return pc.max(pc.binary_length(chunk)).as_py() or 0
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int64 if large else np.int32)
    return int(np.diff(offsets[chunk.offset: chunk.offset + len(chunk) + 1]).max())


def word_count(longest: int) -> int:
    """How many 8-byte words :func:`string_keys` reads of each id when the longest has
    ``longest`` bytes. Keys are comparable only between arrays keyed with the same count."""
    return max(1, -(-longest // 8))


def string_keys(*arrays: pa.Array | pa.ChunkedArray, n_words: int | None = None) -> list[np.ndarray]:
    """One uint64 per string of each array: the id's bytes if every id has at most 8,
    else a hash of them (the same function for all the arrays given together).

    Equal strings get equal keys; distinct strings almost always get distinct keys, and
    callers confirm matches on the strings themselves. ``n_words`` (default: enough for
    the longest id given) fixes the function, so that arrays keyed apart can be compared.
    """
    chunked = [a.chunks if isinstance(a, pa.ChunkedArray) else [a] for a in arrays]
    if n_words is None:
        n_words = word_count(longest(*arrays))
    out = []
    for cs in chunked:
        keys = np.empty(sum(len(c) for c in cs), dtype=np.uint64)
        at = 0
        # Hashed keys a slice at a time: small temporaries, in the CPU cache. Ids of up to
        # 8 bytes are read in place (:func:`_short_keys`), a chunk at once.
        step = _SLICE if n_words > 1 else None
        for c in cs:
            for lo in range(0, len(c), step or max(len(c), 1)):
                part = c.slice(lo, step)
                keys[at: at + len(part)] = _chunk_keys(part, n_words)
                at += len(part)
        out.append(keys)
    return out


def keys_are_ids(longest: int, *arrays: pa.ChunkedArray) -> bool:
    """Whether :func:`string_keys` is exact for these ids, whose longest has ``longest``
    bytes: at most 8 bytes, no NUL byte. Such keys read big-endian order like the bytes."""
    return longest <= 8 and not any(_has_byte(ids, 0) for ids in arrays)


# --------------------------------------------------------------------------- one array's keys, once

_BUILT: dict[int, tuple[weakref.ref, np.ndarray, int]] = {}  # id(array) -> (array, keys, longest)


def doc_keys(ids: pa.ChunkedArray) -> tuple[np.ndarray, int]:
    """The keys of ``ids`` keyed alone (read-only) and its longest id in bytes.

    Built on the first call for this Arrow array and remembered while it lives (a weak
    reference), so that reading a frame, checking it for duplicates and joining it key it
    once, and so does every later evaluation of the same frame.
    """
    built = _BUILT.get(id(ids))
    if built is not None and built[0]() is ids:
        return built[1], built[2]
    size = longest(ids)
    [keys] = string_keys(ids, n_words=word_count(size))
    keys.flags.writeable = False  # shared by every caller
    ident = id(ids)
    _BUILT[ident] = (weakref.ref(ids, lambda _: _BUILT.pop(ident, None)), keys, size)
    return keys, size


def pair_keys(codes: np.ndarray, doc_key: np.ndarray, n: int, hashed: bool = True) -> np.ndarray:
    """One key per (query, document) row: query code ``codes`` (< n) in the high bits,
    ``doc_key`` (consumed: changed in place) in the low bits, multiplied by an odd constant
    first when ``hashed``, which spreads every byte of the id over the bits kept.

    Sorting these keys groups the rows by query. On rows already grouped by query a stable
    sort (timsort) then only sorts each query's documents and merges the groups: faster
    than a sort of keys spread over the whole range (the duplicate check of
    :mod:`rankkit.io.checks`). Equal rows get equal keys; a shared key may also be a collision,
    which every caller confirms on the ids.
    """
    qbits = max(1, (n - 1).bit_length())
    if hashed:
        with np.errstate(over="ignore"):
            doc_key *= GOLD
        doc_key >>= np.uint64(qbits)
    doc_key |= codes.astype(np.uint64) << np.uint64(64 - qbits)
    return doc_key
