"""Parsing TREC qrels and run files into Arrow columns (used by :mod:`rankkit.io`).

TREC files are read the way trec_eval 10 reads them, as bytes:

- A line's fields are separated by runs of C-locale whitespace (space, tab, ``\r``, ``\v``,
  ``\f``); leading and trailing whitespace is fine. Bytes from 0x80 up (UTF-8's no-break
  space, say) are never separators. A qrels line has exactly 4 fields, a run line at least
  6 (those after the tag are ignored); any other count is an error naming the file and the
  line, which shows the line expected (``run.txt line 17: expected at least 6 columns, got
  5; a run line is 'qid Q0 docno rank score tag'``) and says when the file looks like the
  other kind: judgments given as the run, or the reverse (:func:`_column_error`).
- Blank lines, and lines whose first non-blank character is ``#``, are skipped in both files.
- A score or label is a plain decimal number (``1``, ``-2``, ``+.5``, ``5.``, ``1e-3``,
  ``1E+04``); anything else (``1_000``, ``0x3``, non-ASCII digits, ``inf``, ``nan``) is an
  error naming the line, where trec_eval's ``atof`` would read a prefix or a special value.
- A UTF-8 byte order mark at the very start of a file is dropped. trec_eval keeps it as
  part of the first query id, which then matches nothing: a deliberate difference.
- A file may be gzip-compressed, recognised by its first two bytes (1f 8b) whatever its
  name; and a binary file object may stand for a file (``sys.stdin.buffer``,
  ``io.BytesIO``), named in messages by its ``name``, else ``<stdin>`` or its type
  (``<BytesIO>``). A binary (a NUL byte) or empty file, or a truncated gzip file, is one
  ``ValueError`` naming the file. A file that cannot be opened raises what Python code
  expects, with the same kind of message: ``FileNotFoundError`` (``run.txt: no such
  file``), ``IsADirectoryError``, ``PermissionError`` or ``OSError``, each also a
  ``ValueError`` (see :func:`os_error`).
- The run tag is the 6th field of the file's last data line (trec_eval's ``runid``).

Files are parsed by ``pyarrow.csv`` (multi-threaded, only the needed columns, no Python
loop per line) with a one-byte delimiter, while a cheap scan of the raw bytes proves that
this split is trec_eval's (see ``_CleanScan``). A file the proof fails for (odd
whitespace, comments, extra run columns like trec_eval's ``results.trunc``, CRLF line
ends, non-UTF-8 ids) is rewritten block by block with NumPy into single-space-separated
lines (``_normalize``), which also checks every line's field count, and parsed again.
Only a number pyarrow rejects sends the file to a line-by-line scan in Python, which
names the line.
"""

from __future__ import annotations

import errno
import gzip
import io
import math
import mmap
import os
import re
import stat
import sys
import tempfile
import threading
import zlib
from collections.abc import Iterator
from contextlib import closing, contextmanager, nullcontext
from typing import IO, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

# kind -> (value column, file column names, how many columns a line must have, extra allowed)
FORMATS = {
    "qrels": ("relevance", ("query_id", "iter", "doc_id", "relevance"), 4, False),
    "run": ("score", ("query_id", "q0", "doc_id", "rank", "score", "tag"), 6, True),
}

# --------------------------------------------------------------------------- how
# A TREC file is parsed in up to three ways, each slower than the one before and used only
# when the one before cannot vouch for its answer; where two give an answer, it is the same:
# 1. pyarrow.csv with a one-byte delimiter, while _CleanScan proves on the raw bytes that
#    cutting at that byte is trec_eval's whitespace split (almost every file);
# 2. pyarrow.csv on the lines _normalize rewrites with NumPy, block by block: fields joined
#    by single spaces, blank and comment lines dropped, field counts checked;
# 3. Python, line by line (_scan_lines): when pyarrow rejects a value, to name the line.

_BLOCK = 1 << 22  # bytes per read, and pyarrow's block size (4 MB: lower peak memory)
_BOM = b"\xef\xbb\xbf"
_GZIP = b"\x1f\x8b"
_BINARY_WITHIN = 8192  # bytes: a file with a NUL byte there is "not a text file" before all else
_SPOOL_IN_MEMORY = 1 << 26  # a pipe is kept (to be read again) in memory up to 64 MB, then on disk
_TAG_FIELD = 5  # a run line's 6th field: the run tag
_HEAD_BLOCK = 1 << 16  # bytes read first to choose the delimiter and rule out a second BOM
NUMBER = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE = (b"inf", b"infinity", b"nan")
_OS_REASONS = {errno.ENOENT: "no such file", errno.EISDIR: "is a directory", errno.EACCES: "permission denied"}


# What a parse found: query ids and document ids (Arrow text or bytes), values (float64)
# and the 6th field of the last data line (the run tag) if it has one.
_Parsed = tuple[pa.ChunkedArray, pa.ChunkedArray, np.ndarray, bytes | None]



def parse(source: Any, kind: str) -> tuple[str, pa.ChunkedArray, pa.ChunkedArray, np.ndarray, str | None]:
    """A TREC file (path or binary file object) of ``kind`` ("qrels" or "run"): its name for
    messages, its query ids and document ids (Arrow text, or bytes when some id is not
    UTF-8), values (float64) and run tag (None for qrels). Any problem is a ValueError
    naming the file (and the line). ``source`` may be an :func:`opened` file, which stays
    open (to be read again: :func:`lines_of`)."""
    with _Input(source) if not isinstance(source, _Input) else nullcontext(source) as inp:
        query_ids, doc_ids, values, tag = _parse_input(inp, kind)
    if len(values) == 0:
        raise ValueError(f"{inp.name}: empty file, expected {kind} lines")
    return inp.name, query_ids, doc_ids, values, None if tag is None or kind != "run" else id_text(tag)


def blocks(source: Any, kind: str, size: int, edge: int = 0, threads: bool = True) -> Iterator[
        tuple[str, pa.ChunkedArray, pa.ChunkedArray, np.ndarray, str | None, int]]:
    """A TREC file parsed block by block, for files larger than memory: each block about
    ``size`` bytes of whole lines (at least one line), parsed as :func:`parse` parses a file,
    with lines numbered from the file's start in messages. Yields what :func:`parse` returns
    for each block (the tag: of the block's last data line, None if it has none) and the
    block's size in bytes; a block of blank and comment lines gives no rows. An empty file
    is a ValueError at the end.

    Given ``edge``, the first and the last block of a plain file are about ``edge`` bytes:
    a thread that reads ahead then hands over its first block soon, and the one that takes
    the blocks has little left to do once the reader is done (:func:`_plain_line_blocks`).
    Without ``threads``, each block is parsed by the calling thread alone (:func:`_csv`)."""
    inp = source if isinstance(source, _Input) else _Input(source)  # an _Input given stays open
    rows, first_line = 0, 1
    try:
        plain = inp.plain_path is not None and inp.block is None
        datas = _plain_line_blocks(inp, size, edge) if plain else _line_blocks(_chunks(inp, min(size, _BLOCK)), size)
        for data in datas:
            with _Input.of_block(data, inp.name, first_line, threads) as part:
                query_ids, doc_ids, values, tag = _parse_input(part, kind)
            if part.lines is None:  # NumPy counts faster than bytes.count
                part.lines = int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) == 0x0A))
            first_line += part.lines
            size_read = len(data)
            del data, part  # not held while the caller works on the block
            rows += len(values)
            run_tag = None if tag is None or kind != "run" else id_text(tag)
            yield inp.name, query_ids, doc_ids, values, run_tag, size_read
    finally:
        if inp is not source:
            inp.__exit__()
    if rows == 0:
        raise ValueError(f"{inp.name}: empty file, expected {kind} lines")


def opened(source: Any) -> _Input:
    """A TREC file (path or binary file object) opened to be read more than once, e.g. by
    :func:`blocks` (a pipe is kept in a temporary file); a context manager."""
    return _Input(source)


def _parse_input(inp: _Input, kind: str) -> _Parsed:
    return _parse_clean(inp, kind) or _parse_normalized(inp, kind) or _scan_lines(inp, kind)


def _line_blocks(chunks: Iterator[bytes], size: int) -> Iterator[bytes]:
    """The bytes regrouped into blocks of whole lines of about ``size`` bytes (or more: a
    line is never cut)."""
    pending: list = []  # bytes read since the last block (the first item may be a view)
    held = 0
    for data in chunks:
        pending.append(data)
        held += len(data)
        if held < size:
            continue
        # Up to the last line end (or all of it with a NUL, which the parse reports)
        cut = data.rfind(b"\n") + 1 or (len(data) if b"\x00" in data else 0)
        if not cut or held - (len(data) - cut) < size:
            continue
        pending[-1] = memoryview(data)[:cut]
        yield b"".join(pending)  # the one copy of the bytes read
        pending, held = [memoryview(data)[cut:]], len(data) - cut
    if held:
        last = b"".join(pending)
        yield last if last.endswith(b"\n") else last + b"\n"  # trec_eval ends the last line too


def _plain_line_blocks(inp: _Input, size: int, edge: int = 0) -> Iterator[bytearray]:
    """:func:`_line_blocks` of a plain file (not gzip), each block read straight into its
    own buffer: the read's copy of the bytes is the only one (no join of smaller reads).
    The bytes after a block's last line end start the next block. Given ``edge`` (less
    than ``size``), the first block and the last are about ``edge`` bytes (:func:`blocks`)."""
    carry = b""  # the start of a line that goes on in the next block
    with inp.open() as f:
        if inp.bom:
            _read_block(f, inp.name, len(_BOM))
        eof = False
        want = edge or size
        while not eof:
            left = _left(f)
            if edge and want == size and edge < left <= size + edge:  # the one before last: leave an edge
                want = left - edge
            block = bytearray(len(carry) + min(want, left + 1))  # (+1: the end is seen in one read)
            want = size
            block[: len(carry)] = carry
            filled, cut = len(carry), 0
            while not cut and not eof:
                view = memoryview(block)
                while filled < len(block) and not eof:
                    read = _read_into(f, view[filled:], inp.name)
                    filled += read
                    eof = read == 0
                view.release()
                # Up to the last line end (or all of it with a NUL, which the parse reports)
                cut = filled if eof else block.rfind(b"\n", 0, filled) + 1 or (
                    filled if block.find(b"\x00", 0, filled) >= 0 else 0)
                if not cut and not eof:  # a line longer than the block: read on
                    block.extend(bytes(size))
            carry = bytes(block[cut:filled])
            del block[cut:]
            if eof and block and not block.endswith(b"\n"):
                block.append(0x0A)  # trec_eval ends the last line too
            if block:
                yield block


def _left(f: IO[bytes]) -> int:
    """The bytes of a file after its position (a buffer that large holds the rest); a large
    number when not known."""
    try:
        return max(os.fstat(f.fileno()).st_size - f.tell(), 0)
    except (OSError, AttributeError, ValueError):
        return 1 << 62


def _read_into(f: IO[bytes], view: memoryview, name: str) -> int:
    """``f.readinto(view)``; an I/O error is one ValueError naming the file (:func:`_read_block`)."""
    try:
        return f.readinto(view) or 0
    except OSError as err:
        raise os_error(name, err) from None


def id_text(raw: bytes) -> str:
    """An id read from a file as ``str``: UTF-8, with each other byte as a lone surrogate."""
    return raw.decode("utf-8", "surrogateescape")


class _Input:
    """A TREC file given by path or as a binary file object: its name for messages, and its
    bytes (decompressed if they start like gzip) as many times as the parse needs them.

    A path to something other than a regular file (a pipe like ``<(zcat run.gz)``,
    ``/dev/stdin``) and a file object that cannot seek are copied once to a spool (in memory
    up to 64 MB, then a temporary file): a parse may need a second pass.
    """

    first_line = 1  # the number of the first line (a block of a file read in blocks: see blocks)
    block: bytes | None = None  # the bytes, when they are a block already in memory
    lines: int | None = None  # its lines, when a parse knows them (the clean parse: one a row)
    threads = True  # a block's parse may use pyarrow's thread pool (see _csv)

    def __init__(self, source: Any):
        self.path, self._stream, self._start, self._spool = None, None, 0, None
        try:
            self._find(source)
            self._sniff()
        except BaseException:
            self.__exit__()
            raise

    def _find(self, source: Any) -> None:
        """The name, and where the bytes are: a regular file's path, else a stream that seeks."""
        if isinstance(source, (str, os.PathLike)):
            self.name = os.fsdecode(source)
            try:
                mode = os.stat(source).st_mode
            except OSError as err:
                raise os_error(self.name, err) from None
            if stat.S_ISDIR(mode):
                raise os_error(self.name, errno.EISDIR)
            self.path = source
            if not stat.S_ISREG(mode):
                with self._raw() as f:
                    self._keep(f)
        else:
            name = getattr(source, "name", None)
            stdin = source in (sys.stdin, getattr(sys.stdin, "buffer", None))
            self.name = name if isinstance(name, str) else "<stdin>" if stdin else f"<{type(source).__name__}>"
            if isinstance(source, io.TextIOBase):  # sys.stdin: its bytes
                source = getattr(source, "buffer", source)
            if _seekable(source):
                self._stream, self._start = source, source.tell()
            else:
                self._keep(source)

    def _sniff(self) -> None:
        """Gzip? A byte order mark? Binary?"""
        with self._raw() as f:
            head = _read_block(f, self.name, len(_BOM))
        self.gzip = head.startswith(_GZIP)
        self.bom = head == _BOM
        with self.open() as f:  # a binary file: said before anything else is checked
            head = _read_block(f, self.name, _BINARY_WITHIN)
        if (nul := head.find(b"\x00")) >= 0:
            line = head.count(b"\n", 0, nul) + 1
            raise ValueError(f"{self.name}: not a text file (byte 0x00 at line {line})")

    @classmethod
    def of_block(cls, data: bytes | bytearray, name: str, first_line: int, threads: bool = True) -> _Input:
        """Whole lines of a file, already read (and decompressed, without the file's byte
        order mark), that start at line ``first_line``; parsed with pyarrow's thread pool
        if ``threads``."""
        inp = cls.__new__(cls)
        inp.path, inp._stream, inp._start, inp._spool = None, None, 0, None  # read as a stream: see _raw
        inp.name, inp.gzip, inp.bom, inp.first_line, inp.block = name, False, False, first_line, data
        inp.threads = threads
        return inp

    def __enter__(self) -> _Input:
        return self

    def __exit__(self, *exc) -> None:
        if self._spool is not None:
            self._spool.close()

    @property
    def size(self) -> int | None:
        """The file's size in bytes as read (None if compressed or not a file)."""
        if self.block is not None:
            return len(self.block)
        if self.gzip or self._spool is not None:  # (a spool's fileno() would move it to disk)
            return None
        try:
            if self.path is not None and self._stream is None:
                return os.stat(self.path).st_size - (len(_BOM) if self.bom else 0)
            return os.fstat(self._stream.fileno()).st_size - self._start - (len(_BOM) if self.bom else 0)
        except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
            return None

    @property
    def plain_path(self) -> str | os.PathLike | None:
        """The path of a regular file that is not gzip (pyarrow may read it itself)."""
        return self.path if self._stream is None and not self.gzip else None

    def _keep(self, f: IO[bytes]) -> None:
        self._spool = self._stream = tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY)
        while data := _read_block(f, self.name):
            self._spool.write(data)

    @contextmanager
    def _raw(self) -> Iterator[IO[bytes]]:
        if self.block is not None:  # (bytes: no copy; a bytearray is copied, by the rare parses that read it so)
            yield io.BytesIO(self.block)
            return
        if self._stream is not None:
            self._stream.seek(self._start)
            yield self._stream  # the caller's object: not closed here
            return
        try:
            f = open(self.path, "rb", buffering=0)
        except OSError as err:
            raise os_error(self.name, err) from None
        with f:
            yield f

    @contextmanager
    def open(self) -> Iterator[IO[bytes]]:
        """A binary reader of the file's bytes from the start, decompressed if gzip."""
        with self._raw() as raw:
            if self.gzip:
                with gzip.GzipFile(fileobj=raw, mode="rb") as f:
                    yield f
            else:
                yield raw


def _seekable(f: Any) -> bool:
    try:
        return bool(f.seekable()) and f.tell() >= 0
    except (AttributeError, OSError, ValueError):
        return False


class FileMissingError(FileNotFoundError, ValueError):
    """A file that is not there: the ``FileNotFoundError`` Python code expects, and the
    ``ValueError`` every other problem with an input is (as ``io.UnsupportedOperation`` is
    both an ``OSError`` and a ``ValueError``). ``errno`` is set; the message names the file."""


class FileIsDirectoryError(IsADirectoryError, ValueError):
    """A directory given as a file: an ``IsADirectoryError`` and a ``ValueError``."""


class FilePermissionError(PermissionError, ValueError):
    """A file that may not be read: a ``PermissionError`` and a ``ValueError``."""


class FileReadError(OSError, ValueError):
    """Any other I/O error reading a file: an ``OSError`` and a ``ValueError``."""


_OS_ERRORS = {errno.ENOENT: FileMissingError, errno.EISDIR: FileIsDirectoryError, errno.EACCES: FilePermissionError}


def file_bytes(path: Any) -> tuple[str, bytes]:
    """A small file's name (as messages print it) and all its bytes; an I/O error is the
    readers' (:func:`os_error`): a z-scores file, a preferences file."""
    name = os.fsdecode(path)
    try:
        with open(path, "rb") as f:
            return name, f.read()
    except OSError as err:
        raise os_error(name, err) from None


def os_error(name: str, err: OSError | int) -> OSError:
    """An I/O error (or an errno) as a reader raises it: the ``OSError`` subclass Python
    code expects (also a ``ValueError``), whose message is the file's name, then why in a
    few words (``run.txt: no such file``). ``errno`` is set, ``filename`` is not (Python's
    ``str`` of an ``OSError`` would then print ``[Errno 2] ...``)."""
    code = err if isinstance(err, int) else err.errno
    why = os.strerror(code) if isinstance(err, int) else err.strerror or err
    reason = _OS_REASONS.get(code) or f"cannot read ({why})"
    exc = _OS_ERRORS.get(code, FileReadError)(f"{name}: {reason}")
    exc.errno = code
    return exc


def _read_block(f: IO[bytes], name: str, size: int = _BLOCK) -> bytes:
    """Up to ``size`` bytes of ``f``; an I/O or gzip error is one ValueError naming the file."""
    try:
        data = f.read(size)
    except EOFError:
        raise ValueError(f"{name}: truncated gzip file") from None
    except (gzip.BadGzipFile, zlib.error) as err:
        raise ValueError(f"{name}: corrupt gzip file ({err})") from None
    except OSError as err:
        raise os_error(name, err) from None
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if not isinstance(data, bytes):
        raise ValueError(f"{name}: not a binary file object (open it with 'rb'; for standard input, sys.stdin.buffer)")
    return data


def _chunks(inp: _Input, size: int = _BLOCK) -> Iterator[bytes]:
    """The file's bytes in blocks of at most ``size``, without a leading UTF-8 BOM."""
    with inp.open() as f:
        head = _read_block(f, inp.name, size)
        while 0 < len(head) < len(_BOM) and (more := _read_block(f, inp.name, size)):  # a short first read
            head += more
        data = (head if inp.block is not None else head.removeprefix(_BOM)) or _read_block(f, inp.name, size)
        while data:
            yield data
            data = _read_block(f, inp.name, size)


def _csv(source: Any, kind: str, delimiter: str, binary: bool, skip_rows: int = 0, threads: bool = True) -> pa.Table:
    """The query, document and value columns of TREC lines cut at a one-byte delimiter.

    pyarrow.csv drops a UTF-8 byte order mark at the start of what it reads: the caller
    makes sure there is none, or puts a line to skip before it.

    A :class:`_Feed` (a Python object) is read without pyarrow's thread pool: the threaded
    reader may let go of it from a pool thread after ``read_csv`` has returned, and that
    thread then takes the GIL; if the interpreter is exiting by then (a script that stops at
    a bad line), the process aborts ("terminate called without an active exception", exit
    134; seen with pyarrow 14 and 26 on a loaded machine). The serial reader joins its one
    read-ahead thread before returning. Its speed is the same: the feed is the bottleneck.

    Without ``threads`` the pool is not used either: a block parsed by a thread that reads
    ahead while another joins (:func:`blocks`), where the pool's threads would only compete
    with that other thread, at nearly twice the CPU time for the same parse."""
    value_col, names, _, _ = FORMATS[kind]
    text = pa.large_binary() if binary else pa.large_string()
    return pacsv.read_csv(
        source,
        read_options=pacsv.ReadOptions(column_names=list(names), block_size=_BLOCK, skip_rows=skip_rows,
                                       use_threads=threads and not isinstance(source, _Feed)),
        parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False),
        convert_options=pacsv.ConvertOptions(
            include_columns=["query_id", "doc_id", value_col],
            column_types={"query_id": pa.dictionary(pa.int32(), text), "doc_id": text, value_col: pa.float64()},
            strings_can_be_null=False, quoted_strings_can_be_null=False, null_values=[],
        ),
    )


def _csv_feed(feed: _Feed, kind: str, delimiter: str, binary: bool, skip_rows: int = 0) -> pa.Table:
    """:func:`_csv` of a :class:`_Feed`; what stopped the feed, if anything, is raised."""
    try:
        table = _csv(feed, kind, delimiter, binary, skip_rows)
    except pa.ArrowException:
        if feed.failure is None:
            raise
    if feed.failure is not None:  # pyarrow read up to there: its table (or error) means nothing
        raise feed.failure
    return table


def _columns(table: pa.Table, kind: str) -> tuple[pa.ChunkedArray, pa.ChunkedArray, np.ndarray]:
    query_ids, doc_ids = table.column("query_id"), table.column("doc_id")
    values = table.column(FORMATS[kind][0]).to_numpy()
    return query_ids, doc_ids, values


class _Feed:
    """A read-only binary file object over blocks of bytes from ``_next``, for pyarrow.csv
    (through :func:`_csv_feed`)."""

    closed = False

    def __init__(self) -> None:
        self._pending = b""
        self.failure: BaseException | None = None

    def _next(self) -> bytes | None:
        raise NotImplementedError

    def read(self, size: int = -1) -> bytes:
        while not self._pending:
            try:
                block = self._next()
            except BaseException as exc:  # noqa: BLE001 - raised into pyarrow 14, it hangs: kept for later
                self.failure, block = exc, None
            if block is None:
                return b""
            self._pending = block
        if size is None or size < 0 or size >= len(self._pending):
            out, self._pending = self._pending, b""
        else:
            out, self._pending = self._pending[:size], self._pending[size:]
        return out

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self.closed = True


# --------------------------------------------------------------------------- files: 1. clean

class _CleanScan:
    """The proof, checked block by block on the raw bytes, that cutting each line at every
    delimiter byte (what pyarrow.csv does) splits it as trec_eval does (at runs of whitespace).

    "Blanks" are the bytes up to 0x20: whitespace and the other control bytes. The proof
    fails at a ``\\r`` (pyarrow ends a line there, trec_eval does not) and at two blanks in a
    row (the file's start counts as one): an empty field, leading or trailing whitespace, a
    blank line. It counts the blanks; :meth:`proves` compares the count with the rows pyarrow
    made. Cost: a memchr and four NumPy passes over the bytes.
    """

    def __init__(self) -> None:
        self.failed = False
        self._blanks = 0
        self._blank_before = True  # the file's start
        self._last_byte = 0x0A
        self._last_line: list[bytes] = []  # the pieces of the last line read
        self._mask = self._pairs = np.empty(0, dtype=bool)

    def check(self, data: bytes | mmap.mmap, start: int = 0, end: int | None = None) -> bool:
        """Take the next bytes, ``data[start:end]``; False once the proof has failed."""
        end = len(data) if end is None else end
        n = end - start
        if self.failed or n == 0:
            return not self.failed
        if data.find(b"\r", start, end) >= 0:
            self.failed = True
            return False
        if len(self._pairs) < n:
            self._mask, self._pairs = np.empty(n + 1, dtype=bool), np.empty(n, dtype=bool)
        blank = self._mask[: n + 1]
        blank[0] = self._blank_before
        np.less_equal(np.frombuffer(data, dtype=np.uint8, count=n, offset=start), 0x20, out=blank[1:])
        if np.logical_and(blank[1:], blank[:-1], out=self._pairs[:n]).any():
            self.failed = True
            return False
        self._blanks += int(np.count_nonzero(blank[1:]))
        self._blank_before, self._last_byte = bool(blank[-1]), data[end - 1]
        cut = data.rfind(b"\n", start, end - 1) + 1
        self._last_line = [data[cut:end]] if cut else [*self._last_line, data[start:end]]
        return True

    def proves(self, rows: int, ncols: int) -> bool:
        """Whether the ``rows`` rows of ``ncols`` fields pyarrow made from these bytes are
        their lines, split as trec_eval splits them.

        Each such row has ``ncols - 1`` delimiter bytes and ends with a newline (or the
        bytes' end): all the blanks there are if the count matches. So no field holds one,
        and since no two blanks touch, no field is empty and no line is blank or indented.
        """
        unterminated = self._last_byte != 0x0A
        if self.failed or (unterminated and self._blank_before):  # trailing whitespace at the end
            return False
        return rows > 0 and self._blanks == rows * ncols - unterminated

    def tag(self) -> bytes | None:
        """The 6th field of the last line (the run tag)."""
        fields = b"".join(self._last_line).split()
        return fields[_TAG_FIELD] if len(fields) > _TAG_FIELD else None


class _Dirty(Exception):
    """_CleanFeed's proof failed: stop pyarrow."""


class _CleanFeed(_Feed):
    """The bytes unchanged, for pyarrow, checked by a :class:`_CleanScan` on the way."""

    def __init__(self, chunks: Iterator[bytes]):
        super().__init__()
        self._chunks, self.scan = chunks, _CleanScan()

    def _next(self) -> bytes | None:
        data = next(self._chunks, None)
        if data is not None and not self.scan.check(data):
            raise _Dirty
        return data


class _Proof(threading.Thread):
    """A :class:`_CleanScan` of a plain file's bytes, mapped into memory (no copy) in a
    thread while pyarrow.csv parses them with its own threads, which need no GIL."""

    def __init__(self, inp: _Input):
        super().__init__(daemon=True, name="rankkit-clean-scan")
        self._inp, self.scan, self.stop, self.error = inp, _CleanScan(), False, None

    def run(self) -> None:
        try:
            with open(self._inp.plain_path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
                for start in range(len(_BOM) if self._inp.bom else 0, len(view), _BLOCK):
                    end = min(start + _BLOCK, len(view))
                    if self.stop or not self.scan.check(view, start, end):
                        break
                    if hasattr(view, "madvise"):  # let go of the pages read (peak memory)
                        view.madvise(mmap.MADV_DONTNEED, start - start % mmap.PAGESIZE, end - start)
        except (ValueError, OSError):  # an empty file cannot be mapped; a file gone: not proven clean
            self.scan.failed = True
        except BaseException as exc:  # a bug of the scan: raised by the reader, never a silent fallback
            self.scan.failed, self.error = True, exc
        if self.stop:
            self.scan.failed = True


def _parse_clean(inp: _Input, kind: str) -> _Parsed | None:
    """The file parsed by pyarrow.csv straight from its bytes, vouched for by a
    :class:`_CleanScan` of them; None if it cannot be."""
    if inp.block is not None:  # (a block is not copied to be read as a stream)
        head = bytes(inp.block[:_HEAD_BLOCK])
    else:
        with closing(_chunks(inp, _HEAD_BLOCK)) as chunks:
            head = next(chunks, b"")
    if head.startswith(_BOM):  # a second one (the file's own is gone): pyarrow would drop it
        return None
    delimiter = "\t" if b"\t" in head.split(b"\n", 1)[0] else " "
    try:
        read = _csv_memory if inp.block is not None else _csv_plain if inp.plain_path is not None else _csv_fed
        table, scan = read(inp, kind, delimiter)
    except (_Dirty, pa.ArrowException, OSError):  # odd bytes, a comment, extra columns, non-UTF-8...
        return None
    if not scan.proves(table.num_rows, FORMATS[kind][2]) or _starts_with_hash(table.column("query_id")):
        return None  # the latter: a comment line with as many fields as a data line
    query_ids, doc_ids, values = _columns(table, kind)
    del table
    if inp.block is None:  # a whole file: the parser's blocks go, to lower the peak that follows
        pa.default_memory_pool().release_unused()  # (a block's: kept for the next block)
    if not np.isfinite(values).all():  # pyarrow reads inf and nan
        return _scan_lines(inp, kind)  # names the line
    inp.lines = len(values)  # proven: no blank or comment line, each line a row
    return query_ids, doc_ids, values, scan.tag()


def _csv_plain(inp: _Input, kind: str, delimiter: str) -> tuple[pa.Table, _CleanScan]:
    """pyarrow.csv reads a plain file itself (its own I/O, memory, threads) while a
    :class:`_Proof` scans it."""
    proof = _Proof(inp)
    proof.start()
    try:
        with pa.OSFile(os.fspath(inp.plain_path)) as f:
            f.seek(len(_BOM) if inp.bom else 0)
            return _csv(f, kind, delimiter, binary=False), proof.scan
    except BaseException:
        proof.stop = True  # no use finishing it
        raise
    finally:
        proof.join()
        if proof.error is not None:
            raise proof.error


def _csv_fed(inp: _Input, kind: str, delimiter: str) -> tuple[pa.Table, _CleanScan]:
    """pyarrow.csv reads the (decompressed) bytes through a :class:`_CleanFeed`."""
    with closing(_chunks(inp)) as chunks:
        feed = _CleanFeed(chunks)
        return _csv_feed(feed, kind, delimiter, binary=False), feed.scan


def _csv_memory(inp: _Input, kind: str, delimiter: str) -> tuple[pa.Table, _CleanScan]:
    """pyarrow.csv reads a block in memory with its threads, once a :class:`_CleanScan` has
    checked it."""
    scan = _CleanScan()
    for start in range(0, len(inp.block), _BLOCK):
        if not scan.check(inp.block, start, min(start + _BLOCK, len(inp.block))):
            raise _Dirty
    return _csv(pa.BufferReader(inp.block), kind, delimiter, binary=False, threads=inp.threads), scan


def _starts_with_hash(query_ids: pa.ChunkedArray) -> bool:
    """Whether a query id (of the parser's dictionaries) starts with ``#``: a comment line."""
    return any(pc.any(pc.starts_with(c.dictionary, "#")).as_py() for c in query_ids.chunks if len(c.dictionary))


# --------------------------------------------------------------------------- files: 2. normalized

class _NormalizedFeed(_Feed):
    """The file's data lines as :func:`_normalize` rewrites them, block by block, up to the
    first bad line (then ``error`` says what is wrong with it)."""

    def __init__(self, chunks: Iterator[bytes], kind: str, name: str, first_line: int = 1):
        super().__init__()
        self._blocks = _whole_lines(chunks)
        self._kind, self._name = kind, name
        self._line = first_line  # the number of the next block's first line
        self.tag: bytes | None = None
        self.error: ValueError | None = None
        self._pending = b"#\n"  # a line for pyarrow to skip: a byte order mark after it stays

    def _next(self) -> bytes | None:
        while self.error is None and (block := next(self._blocks, None)) is not None:
            text, lines, tag, self.error = _normalize(block, self._kind, self._line, self._name)
            self._line += lines
            self.tag = self.tag if tag is None else tag
            if text:
                return text
        return None


def _whole_lines(chunks: Iterator[bytes]) -> Iterator[bytearray]:
    """The bytes regrouped into (writable) blocks of whole lines, each ending with a newline
    (the last line is given one if it has none, as trec_eval does)."""
    pending: list[bytes] = []
    for data in chunks:
        cut = data.rfind(b"\n") + 1
        if not cut and b"\x00" not in data:  # no line ends here (a NUL is reported at once)
            pending.append(data)
            continue
        cut = cut or len(data)
        yield bytearray().join([*pending, memoryview(data)[:cut]])
        pending = [data[cut:]]
    if any(pending):
        yield bytearray().join([*pending, b"\n"])


def _normalize(block: bytearray, kind: str, first_line: int,
               name: str) -> tuple[bytes, int, bytes | None, ValueError | None]:
    """Whole lines rewritten as trec_eval splits them: each data line's fields joined by
    single spaces (a run line's first 6 only); blank lines and comments dropped.

    Returns the text, the number of lines, the 6th field of the last data line (the run
    tag; None for qrels or without a data line), and the error of the first line (numbered
    from ``first_line``) with the wrong number of fields or a NUL byte, if any: the text
    then stops before that line. ``block`` is overwritten.
    """
    _, _, ncols, extra_ok = FORMATS[kind]
    error = None
    nul = block.find(b"\x00")
    if nul >= 0:  # a binary file: keep the lines before
        line = first_line + block.count(b"\n", 0, nul)
        error = ValueError(f"{name}: not a text file (byte 0x00 at line {line})")
        del block[block.rfind(b"\n", 0, nul) + 1:]
    a = np.frombuffer(block, dtype=np.uint8)
    field, starts, ends = _fields(a)
    newlines = np.flatnonzero(a == 0x0A)
    upto = np.searchsorted(starts, newlines)  # fields before each line's end
    count = np.diff(upto, prepend=0)  # fields per line
    first = upto - count  # each line's first field
    comment = np.zeros(len(newlines), dtype=bool)
    filled = np.flatnonzero(count)
    comment[filled] = a[starts[first[filled]]] == ord("#")
    data = (count > 0) & ~comment
    bad = np.flatnonzero(data & ((count < ncols) | ((count > ncols) & (not extra_ok))))
    line_starts = np.concatenate([[0], newlines[:-1] + 1])
    drop = [(line_starts[comment], newlines[comment] + 1)]  # byte ranges [low, high) to drop
    if len(bad):
        i = int(bad[0])
        fields = [bytes(block[starts[j]: ends[j]]) for j in range(first[i], first[i] + count[i])]
        error = _column_error(f"{name} line {first_line + i}", kind, fields)
        data[i:] = False
        drop.append(([line_starts[i]], [len(a)]))
    lines = np.flatnonzero(data)
    last = first[lines] + np.minimum(count[lines], ncols) - 1  # the last field kept on each line
    long = count[lines] > ncols
    drop.append((ends[last[long]] + 1, newlines[lines[long]] + 1))  # a run line's extra fields
    tag = bytes(block[starts[last[-1]]: ends[last[-1]]]) if kind == "run" and len(lines) else None
    return _joined(a, field, ends, ends[last], drop), len(newlines), tag, error


def _fields(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the fields of whole lines are: a mask of their bytes, the index of each one's
    first byte and of the whitespace byte after it (there is one: the last is a newline)."""
    field = np.empty(len(a) + 1, dtype=bool)  # field[i + 1]: byte i; field[0]: before the block
    field[0] = False
    np.greater(np.subtract(a, 9, dtype=np.uint8), 4, out=field[1:])  # not \t \n \v \f \r
    field[1:] &= a != 0x20
    edges = np.flatnonzero(field[1:] != field[:-1])
    return field[1:], edges[0::2], edges[1::2]


def _joined(a: np.ndarray, field: np.ndarray, ends: np.ndarray, line_ends: np.ndarray,
            drop: list[tuple[Any, Any]]) -> bytes:
    """The bytes of every field, each followed by the whitespace byte after it made a space
    (a newline at ``line_ends``), without the byte ranges in ``drop``. Overwrites ``a`` and
    ``field``."""
    field[ends] = True
    a[ends] = 0x20
    a[line_ends] = 0x0A
    low = np.concatenate([np.asarray(lo, dtype=np.int64) for lo, _ in drop])
    if len(low):
        high = np.concatenate([np.asarray(hi, dtype=np.int64) for _, hi in drop])
        n = len(a)
        field &= np.cumsum(np.bincount(low, minlength=n + 1) - np.bincount(high, minlength=n + 1))[:n] == 0
    return a[field].tobytes()


def _parse_normalized(inp: _Input, kind: str) -> _Parsed | None:
    """The file parsed by pyarrow.csv from the lines :func:`_normalize` rewrites, or None
    if pyarrow rejects a value (then :func:`_scan_lines` names the first bad line)."""
    with closing(_chunks(inp)) as chunks:
        feed = _NormalizedFeed(chunks, kind, inp.name, inp.first_line)
        try:
            table = _csv_feed(feed, kind, " ", binary=True, skip_rows=1)
        except pa.ArrowException:  # a bad number (or no line at all)
            return None
    query_ids, doc_ids, values = _columns(table, kind)
    del table
    if not np.isfinite(values).all():  # pyarrow reads inf and nan
        return None
    if feed.error is not None:  # every line before the bad one was read, and is right
        raise feed.error
    return query_ids, doc_ids, values, feed.tag


# --------------------------------------------------------------------------- errors

#: The line each kind of file holds, as messages show it.
_LINE_FORMATS = {"qrels": "qid iter docno rel", "run": "qid Q0 docno rank score tag"}
_SWAP = "Swap the arguments: the judgments (QRELS) first, then the run (RUN)"


def _column_error(where: str, kind: str, fields: list[bytes]) -> ValueError:
    """The error of a line of ``kind`` whose ``fields`` are too many or too few: the line
    expected, or, when the line looks like the other kind's, that the files look swapped.

    A qrels line of 6 fields or more whose 4th and 5th (rank, score) are numbers is a
    run's; a run line of 4 whose 4th (label) is a number a qrels': the usual cause is
    ``rankkit evaluate RUN QRELS``, the files given in the wrong order.
    """
    _, _, ncols, extra_ok = FORMATS[kind]
    count = len(fields)
    message = f"{where}: expected {'at least ' if extra_ok else ''}{ncols} columns, got {count}"
    if kind == "qrels" and count >= FORMATS["run"][2] and all(NUMBER.fullmatch(f) for f in fields[3:5]):
        hint = f"this looks like a run line ({_LINE_FORMATS['run']}): was the run given as QRELS? {_SWAP}"
    elif kind == "run" and count == FORMATS["qrels"][2] and NUMBER.fullmatch(fields[3]):
        hint = f"this looks like a qrels line ({_LINE_FORMATS['qrels']}): were the judgments given as RUN? {_SWAP}"
    else:
        hint = f"a {kind} line is '{_LINE_FORMATS[kind]}'"
    return ValueError(f"{message}; {hint}")


def lines_of(source: Any, query: str, doc: str, limit: int = 2) -> list[int]:
    """The numbers of the first ``limit`` data lines of a TREC file (an :func:`opened`
    file, a path or a binary file object read from its start) whose query id and document
    id are ``query`` and ``doc``: for the error about a document listed twice.

    Only the blocks holding the document id's bytes are looked at line by line (a search
    for them is a memchr's pace). Any problem reading the file again gives no lines.
    """
    q, d = query.encode("utf-8", "surrogateescape"), doc.encode("utf-8", "surrogateescape")
    found: list[int] = []
    try:
        with (nullcontext(source) if isinstance(source, _Input) else _Input(source)) as inp, \
                closing(_chunks(inp)) as chunks:
            number = inp.first_line
            for block in _whole_lines(chunks):
                at = block.find(d)
                while at >= 0 and len(found) < limit:
                    start = block.rfind(b"\n", 0, at) + 1
                    end = block.find(b"\n", at)
                    fields = bytes(block[start:end]).split()
                    if len(fields) > 2 and fields[0] == q and fields[2] == d:
                        found.append(number + block.count(b"\n", 0, start))
                    at = block.find(d, end)
                if len(found) >= limit:
                    break
                number += block.count(b"\n")
    except (OSError, ValueError):
        return []
    return found


# --------------------------------------------------------------------------- files: 3. line by line

def _scan_lines(inp: _Input, kind: str) -> _Parsed:
    """The file parsed line by line in Python (slow), by the same rules; an error names its line."""
    value_col, _, ncols, extra_ok = FORMATS[kind]
    at = FORMATS[kind][1].index(value_col)  # the field of the score, the label
    queries, docs, values, tag = [], [], [], None
    with closing(_chunks(inp)) as chunks:
        for number, line in enumerate(_split_lines(chunks), start=inp.first_line):
            where = f"{inp.name} line {number}"
            if b"\x00" in line:
                raise ValueError(f"{inp.name}: not a text file (byte 0x00 at line {number})")
            fields = line.split()  # bytes.split(): C isspace, as trec_eval
            if not fields or fields[0].startswith(b"#"):
                continue
            if len(fields) < ncols or (len(fields) > ncols and not extra_ok):
                raise _column_error(where, kind, fields)
            values.append(_number(fields[at], where, value_col))
            queries.append(fields[0])
            docs.append(fields[2])
            tag = fields[_TAG_FIELD] if kind == "run" else None
    binary = pa.large_binary()
    return (pa.chunked_array([pa.array(queries, binary)]), pa.chunked_array([pa.array(docs, binary)]),
            np.array(values, dtype=np.float64), tag)


def _split_lines(chunks: Iterator[bytes]) -> Iterator[bytes]:
    rest = b""
    for data in chunks:
        lines = (rest + data).split(b"\n")
        rest = lines.pop()
        yield from lines
    if rest:
        yield rest


def _number(text: bytes, where: str, what: str) -> float:
    """A score or label: a plain decimal number (Python's float() alone would also take
    ``1_000``, ``infinity`` and non-ASCII digits)."""
    if NUMBER.fullmatch(text) is None:
        unsigned = text[1:] if text[:1] in (b"+", b"-") else text
        problem = "finite" if unsigned.lower() in _NON_FINITE else "a number"
        raise ValueError(f"{where}: {what} must be {problem}, got {id_text(text)!r}")
    value = float(text)
    if not math.isfinite(value):  # 1e999
        raise ValueError(f"{where}: {what} must be finite, got {id_text(text)!r}")
    return value
