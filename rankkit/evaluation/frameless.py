"""Two TREC files read without frames, for the command line's ``rankkit evaluate``, which
then loads neither pandas nor scipy.

The judgments and the run come from the TREC parser (:mod:`rankkit.io.trec_format`) as
Arrow and NumPy columns: the judgments as :class:`~rankkit.evaluation.pipeline.QueryJudgments`
(:func:`file_judgments`), the run as blocks of whole queries within the memory bound
(:func:`run_blocks`), read ahead by a thread where the bound leaves room. From there on
the evaluation is every run's (:func:`rankkit.evaluation.pipeline.score_run`), so the
values are those of any other way of reading the files, bit for bit.

Only the usual case is read here: two regular TREC files, UTF-8 ids, a run grouped by
query. Anything else raises :class:`Unsupported` before any output, and the command reads
the files as frames (:mod:`rankkit.io`), whose readers say what they have to say. A
document listed twice for a query is the readers' error, found by their check
(:func:`rankkit.io.checks.first_duplicate`) and naming the file's lines.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..io.checks import duplicate_error, first_duplicate
from ..io.keys import doc_keys
from ..io.run_blocks import Hashes, query_hashes, whole_queries
from ..io.trec_format import blocks as trec_file_blocks
from ..io.trec_format import lines_of, opened
from ..io.trec_format import parse as parse_trec_file
from .memory import block_size, reads_ahead
from .pipeline import QueryJudgments, RunBlock, boxes

__all__ = ["Unsupported", "file_judgments", "run_blocks", "takes"]

_COLUMNAR = (b"PAR1", b"ARROW1")  # Parquet's and Feather's first bytes: read as frames
_EDGE_PART = 8  # the first and last blocks of a run read ahead: this part of the others
_NO_CODES = np.zeros(0, dtype=np.intp)  # a block's codes until it is prepared


class Unsupported(Exception):
    """Not evaluated here (see the module's docstring): the frames' path takes it."""


def takes(path: Any) -> bool:
    """Whether ``path`` may be read here: a regular file (read twice if need be: not a pipe)
    that does not start like Parquet or Feather."""
    if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as f:
            return not f.read(8).startswith(_COLUMNAR)
    except OSError:
        return False


def _text_ids(ids: pa.ChunkedArray) -> pa.ChunkedArray:
    """Document ids as the readers' frames hold them (Arrow text); Unsupported if some are
    not UTF-8."""
    chunks = []
    for chunk in ids.chunks:
        if pa.types.is_dictionary(chunk.type):
            chunk = chunk.dictionary_decode()
        if not (pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type)):
            if not (pa.types.is_binary(chunk.type) or pa.types.is_large_binary(chunk.type)):
                raise Unsupported(f"document ids of type {chunk.type}")
            try:
                chunk = chunk.cast(pa.large_string())  # zero-copy, after checking UTF-8
            except pa.ArrowInvalid:
                raise Unsupported("document ids that are not UTF-8") from None
        chunks.append(chunk if chunk.type == pa.large_string() else chunk.cast(pa.large_string()))
    if not chunks:
        return pa.chunked_array([], type=pa.large_string())
    return pa.chunked_array(chunks)


def _query_codes(query_ids: pa.ChunkedArray) -> tuple[list[str], np.ndarray]:
    """The distinct query ids sorted by their bytes (trec_eval's order), and each row's
    position among them; Unsupported if some id is not UTF-8."""
    arr = query_ids if pa.types.is_dictionary(query_ids.type) else pc.dictionary_encode(query_ids)
    if not (pa.types.is_string(arr.type.value_type) or pa.types.is_large_string(arr.type.value_type)):
        try:
            arr = pa.chunked_array([pa.DictionaryArray.from_arrays(c.indices, c.dictionary.cast(pa.large_string()))
                                    for c in arr.chunks])
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise Unsupported("query ids that are not UTF-8") from None
    arr = arr.unify_dictionaries() if arr.num_chunks > 1 else arr
    if arr.num_chunks == 0:
        return [], np.zeros(0, dtype=np.intp)
    dictionary = arr.chunk(0).dictionary
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in arr.chunks]).astype(np.intp)
    names = dictionary.to_pylist()
    used = np.flatnonzero(np.bincount(codes, minlength=len(names)))  # a dictionary may hold unused ids
    order = sorted(used.tolist(), key=names.__getitem__)  # code point order: byte order for UTF-8
    remap = np.full(len(names), -1, dtype=np.intp)  # (NumPy's index type: the join's gathers take it as it is)
    remap[order] = np.arange(len(order), dtype=np.intp)
    return [names[i] for i in order], remap[codes]


def _check_duplicates(source: Any, name: str, kind: str, names: list, codes: np.ndarray,
                      ids: pa.ChunkedArray) -> None:
    """The readers' error naming the lines of the file ``source`` (an opened file or a
    path), called ``name`` in messages (:func:`rankkit.io.checks.check_duplicates`), if a
    document is listed twice for a query. The keys built here are the join's."""
    keys, _ = doc_keys(ids)
    pair = first_duplicate(codes, keys, names, ids)
    if pair is not None:
        raise duplicate_error(pair, kind, name, lambda query, doc: lines_of(source, query, doc))


def file_judgments(path: Any) -> QueryJudgments:
    """A TREC judgments file (a path) as :class:`~rankkit.evaluation.pipeline.QueryJudgments`;
    Unsupported if an id is not UTF-8; the readers' error for a document judged twice."""
    with opened(path) as inp:
        _, query_ids, doc_ids, values, _ = parse_trec_file(inp, "qrels")
        names, codes = _query_codes(query_ids)
        del query_ids
        ids = _text_ids(doc_ids)
        ids = pa.chunked_array([ids.combine_chunks()]) if ids.num_chunks > 1 else ids
        _check_duplicates(inp, inp.name, "qrels", names, codes, ids)
    return QueryJudgments(names, codes, np.asarray(values, dtype=np.float64), ids)


def run_blocks(path: Any, settings: Any) -> tuple[Any, Callable[[], str | None]]:
    """The blocks of a TREC run file (a path) sized for ``settings.memory`` and for the
    run's size (:func:`~rankkit.evaluation.memory.block_size`), in boxes
    (:func:`~rankkit.evaluation.pipeline.boxes`), and a function giving its tag once they
    are read. Unsupported, raised while they are read or prepared (``RunBlock.prepare``, by
    the thread that joins them), for a run not grouped by query, an id that is not UTF-8 or
    no line at all; the readers' error for a duplicate."""
    budget = settings.block_budget()  # sized now: the judgments are read
    with opened(path) as inp:
        run_bytes = inp.size  # (None if compressed: then the bound alone sizes the blocks)
    ahead = reads_ahead(budget, run_bytes)
    size = block_size(budget, ahead, run_bytes)
    # Read ahead, the first and the last block are an eighth of the others: the thread
    # that joins starts sooner and has less left once the reader is done.
    blocks = _RunBlocks(path, size, size // _EDGE_PART if ahead else 0, threads=not ahead)
    return boxes(blocks, ahead), lambda: blocks.tag


class _RunBlocks:
    """A run file's blocks of whole queries (:class:`~rankkit.evaluation.pipeline.RunBlock`);
    ``tag`` is the tag of the last data line read so far."""

    def __init__(self, path: Any, size: int, edge: int = 0, threads: bool = True):
        self._path, self._size, self._edge, self._threads, self.tag = path, size, edge, threads, None

    def _blocks(self, inp: Any):
        parsed = trec_file_blocks(inp, "run", self._size, self._edge, self._threads)
        for _, query_ids, doc_ids, scores, tag, _ in parsed:
            self.tag = tag if tag is not None else self.tag
            if len(scores):  # not a block of comments
                yield query_ids, doc_ids, scores

    def __iter__(self):
        done = Hashes()
        any_line = False
        with opened(self._path) as inp:
            for box in whole_queries(self._blocks(inp)):
                query_ids, doc_ids, scores = box.pop()
                any_line = True
                prepare = functools.partial(self._prepare, query_ids, done, inp.name)
                del query_ids
                yield RunBlock([], _NO_CODES, doc_ids, np.asarray(scores, dtype=np.float64), prepare=prepare)
        if not any_line:
            raise Unsupported("an empty run")

    def _prepare(self, query_ids: pa.ChunkedArray, done: Hashes, name: str, block: RunBlock) -> None:
        """A parsed block completed by the thread that joins it (``RunBlock.prepare``): its
        query ids and codes, its document ids as text; Unsupported for a run not grouped by
        query or an id that is not UTF-8; the readers' error for a duplicate, naming the
        lines of the file read again by its path."""
        names, codes = _query_codes(query_ids)
        if not done.add(query_hashes(names)):
            raise Unsupported("a run not grouped by query")
        block.names, block.codes, block.doc_ids = names, codes, _text_ids(block.doc_ids)
        _check_duplicates(self._path, name, "run", names, codes, block.doc_ids)
