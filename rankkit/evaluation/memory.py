"""The memory bound of an evaluation (``memory=``, ``--memory``): its parsing, the size of
the blocks of a run file read within it (:func:`block_size`) and the reading of the next
block by a thread while one is evaluated (:func:`read_ahead`), where it leaves room.
For ``rankkit evaluate`` (:mod:`rankkit.evaluation.frameless`) the bound is a ceiling,
not a target: where the run's size is known (``run_bytes``), a small run is read in
smaller blocks, one at a time, so that the peak follows the run's size (1 million lines:
~130 MiB for the whole process) and the bound sizes the blocks only from ~250 MB of run
on (at the default bound).
Without frames: :mod:`rankkit.evaluation.stream` and the command line's evaluation without
pandas both read run files this way."""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = ["DEFAULT_MEMORY", "parse_memory", "block_size", "reads_ahead", "read_ahead", "boxed"]

#: The default bound on peak memory (bytes) when a run file is evaluated: 480 MiB.
DEFAULT_MEMORY = 480 * 2**20

_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
          "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def parse_memory(value: int | str | None) -> int:
    """A memory bound in bytes: an int, or a string such as ``"600MB"``, ``"1.5GiB"``,
    ``"2G"`` (k, M, G, T are powers of 1000, KiB, MiB... of 1024); None gives
    :data:`DEFAULT_MEMORY`.

    Examples
    --------
    >>> parse_memory("600MB"), parse_memory("1.5GiB"), parse_memory(4096)
    (600000000, 1610612736, 4096)
    """
    if value is None:
        return DEFAULT_MEMORY
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        number, unit = float(value), ""
    else:
        match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([a-zA-Z]*)\s*", str(value))
        if match is None or match.group(2).lower() not in _UNITS:
            raise ValueError(f"memory must be a size such as 600MB, 2GB or 512MiB, got {value!r}")
        number, unit = float(match.group(1)), match.group(2).lower()
    if not number > 0:
        raise ValueError(f"memory must be a positive size, got {value!r}")
    return int(number * _UNITS[unit])


# Peak memory per byte of run lines in a block: the block's bytes, its parsed columns, keys,
# the join's arrays and the padded matrices (~6), and what the allocators keep between
# blocks; measured at 10 and 30 million lines (benchmarks/bench_large.py).
_PEAK_PER_BYTE = 9
# And the next block, parsed by a thread while this one is joined (:func:`read_ahead`):
# its bytes, columns and document keys.
_AHEAD_PER_BYTE = 3
# A block is never smaller (the bound is then a wish): below it the cost per block
# dominates (from 16 MiB blocks on, reading in blocks takes as long as reading the run
# whole: benchmarks/bench_large.py), while a 16 MiB block adds ~150 MB to the peak.
_MIN_BLOCK = 16 << 20
# A run of known size is read in at least this many blocks, so that the blocks' peak
# follows the run (about _PEAK_PER_BYTE / _BLOCKS_PER_RUN ~ 1.1 bytes per byte of run)
# rather than the bound: a run of 1 million lines (32 MB) in 4 MiB blocks, 3 million in
# 12 MiB blocks; from ~250 MB of run on (at the default bound), the bound sizes the blocks
# (benchmarks/README.md, "Memory that follows the input").
_BLOCKS_PER_RUN = 8
# ... of at least this size: below, a block's fixed cost (the parser's start, Python's
# steps per block) shows against its few lines.
_SMALL_BLOCK = 1 << 20


def block_size(budget: int, ahead: bool = False, run_bytes: int | None = None) -> int:
    """Bytes of run lines per block when the blocks may take ``budget`` bytes
    (:meth:`~rankkit.evaluation.settings.Settings.block_budget`): the budget divided by the
    peak a byte of lines costs while it is evaluated (and, when ``ahead``, while the next
    block is read meanwhile); at least 16 MiB (``_MIN_BLOCK``). For a run of ``run_bytes``
    bytes (None: not known, a compressed file or a pipe), at most an eighth of it
    (``_BLOCKS_PER_RUN``), but not below 1 MiB (``_SMALL_BLOCK``): then the peak of a
    small run follows its size, not the bound.

    Examples
    --------
    >>> block_size(400 * 2**20) // 2**20, block_size(400 * 2**20, run_bytes=32 * 10**6) // 2**20
    (44, 3)
    """
    per_byte = _PEAK_PER_BYTE + (_AHEAD_PER_BYTE if ahead else 0)
    size = max(_MIN_BLOCK, int(budget / per_byte))
    if run_bytes is not None:
        size = min(size, max(_SMALL_BLOCK, run_bytes // _BLOCKS_PER_RUN))
    return size


def reads_ahead(budget: int, run_bytes: int | None = None) -> bool:
    """Whether to read the next block while one is evaluated: when the budget leaves room
    for two blocks of at least ``_MIN_BLOCK``, and a run of ``run_bytes`` bytes is large
    enough for blocks of that size (:func:`block_size`; a smaller run is read a block at a
    time: its peak follows its size). A tighter budget comes first: blocks are then read
    one at a time (a 30M-line run at the default bound: 564 MB, 623 MB reading ahead).

    Examples
    --------
    >>> reads_ahead(400 * 2**20), reads_ahead(400 * 2**20, run_bytes=32 * 10**6)
    (True, False)
    """
    if run_bytes is not None and run_bytes // _BLOCKS_PER_RUN < _MIN_BLOCK:
        return False
    return budget >= _MIN_BLOCK * (_PEAK_PER_BYTE + _AHEAD_PER_BYTE)


def boxed(frames: Iterator[Any]) -> Iterator[list[Any]]:
    """Each frame (or block of columns) in a list of one, which the caller empties: then no
    variable holds the frame while :func:`rankkit.join.rank_frames` frees its columns as it
    goes."""
    for frame in frames:
        box = [frame]
        del frame
        yield box


def read_ahead(frames: Iterator[Any]) -> Iterator[list[Any]]:
    """:func:`boxed` ``frames`` (or blocks of columns), the next read by a thread meanwhile.

    Parsing (pyarrow, with its own threads) and the join (NumPy) both release the GIL, so
    reading block k+1 while block k is joined and scored overlaps the two (measured by
    benchmarks/bench_large.py).
    The thread reads one frame ahead and no more: it reads frame k+1 once the caller has
    taken frame k. An error of the reader (a bad line, :class:`RunNotGrouped`) is raised
    here after the frames before it. Closing this generator stops the thread.
    """
    slot: queue.Queue = queue.Queue(maxsize=1)
    taken, stop = threading.Semaphore(0), threading.Event()

    def read() -> None:
        try:
            for frame in frames:
                slot.put(([frame], None))
                del frame
                taken.acquire()  # the caller took it, or stopped (and released it)
                if stop.is_set():
                    return
            slot.put(([], None))
        except BaseException as err:  # handed to the caller, raised there
            slot.put(([], err))

    reader = threading.Thread(target=read, name="rankkit-read-ahead", daemon=True)
    reader.start()
    try:
        while True:
            box, err = slot.get()
            taken.release()
            if err is not None:
                raise err
            if not box:
                return
            yield box
    finally:
        stop.set()
        taken.release()  # wakes a reader waiting for the caller
        reader.join()
        if hasattr(frames, "close"):
            frames.close()
