"""Two TREC files evaluated without frames: the command line's ``rankkit evaluate``, which
then loads neither pandas nor scipy.

The judgments and the run come from the TREC parser (:mod:`rankkit.io.trec_format`) as
Arrow and NumPy columns and go straight to the join (:func:`rankkit.join.rank_arrays`),
block by block of whole queries within the memory bound, as
:mod:`rankkit.evaluation.stream` reads a run file; each block's queries are scored into a
dict of arrays (``score``), and the blocks are put together in trec_eval's query order.
The values are those of the frames' path, bit for bit: the same join, metric functions and
order of operations.

Only the usual case is taken here: two regular TREC files, UTF-8 ids, a run grouped by
query, no duplicate. Anything else raises :class:`Unsupported` before any output, and the
caller takes the frames' path, which says what it has to say (an error naming the file's
lines, say). The warnings are the frames' path's, in the same order.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import closing
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..io.checks import suspect_rows
from ..io.keys import doc_keys, trec_order
from ..io.run_blocks import Hashes, whole_queries
from ..io.trec_format import blocks as trec_file_blocks
from ..io.trec_format import opened
from ..io.trec_format import parse as parse_trec_file
from ..join import Judgments, Matched, rank_arrays
from ..rankings import Rankings
from .arrays import unscored_queries
from .memory import block_size, boxed, read_ahead, reads_ahead

__all__ = ["Unsupported", "FileJudgments", "per_query_values", "takes"]

_COLUMNAR = (b"PAR1", b"ARROW1")  # Parquet's and Feather's first bytes: read as frames


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


def _check_duplicates(names: list, codes: np.ndarray, ids: pa.ChunkedArray) -> None:
    """Unsupported if a document may be listed twice for a query (the frames' path then
    confirms it and names the file's lines). The keys built here are the join's."""
    keys, _ = doc_keys(ids)
    if len(codes) < 2:
        return
    rows = suspect_rows(codes, keys, len(names))
    if rows is None:
        return
    pairs = zip(codes[rows].tolist(), ids.take(pa.array(rows)).to_pylist())  # the few suspects
    seen: set = set()
    for pair in pairs:
        if pair in seen:
            raise Unsupported("a duplicate")
        seen.add(pair)


class FileJudgments:
    """A TREC judgments file as columns: query ids (:attr:`names`, trec_eval's order), each
    judgment's query code, label (``grades``) and document id, and the judgments of any
    set of queries without a pass over all of them (:meth:`of`)."""

    def __init__(self, path: Any):
        with opened(path) as inp:
            _, query_ids, doc_ids, values, _ = parse_trec_file(inp, "qrels")
        self.names, self.codes = _query_codes(query_ids)
        del query_ids
        ids = _text_ids(doc_ids)
        self.ids = pa.chunked_array([ids.combine_chunks()]) if ids.num_chunks > 1 else ids
        self.grades = np.asarray(values, dtype=np.float64)
        _check_duplicates(self.names, self.codes, self.ids)
        self._order = np.argsort(self.codes, kind="stable")
        self._bounds = np.searchsorted(self.codes[self._order], np.arange(len(self.names) + 1))
        self.text = pa.array(self.names, type=pa.large_string())

    def max_grade(self) -> float:
        """The largest label, 1.0 if none is above 0 (:func:`rankkit.evaluation.stream.judged_max_grade`)."""
        top = float(self.grades.max()) if len(self.grades) else 0.0
        return top if top > 0 else 1.0

    def named(self, doc_id: str) -> dict[str, float]:
        """Query id -> label, for the judgments of the document ``doc_id``."""
        rows = np.flatnonzero(pc.equal(self.ids, doc_id).to_numpy(zero_copy_only=False))
        return {self.names[q]: float(g) for q, g in zip(self.codes[rows].tolist(), self.grades[rows].tolist())}

    def of(self, positions: np.ndarray) -> tuple[pa.ChunkedArray, Judgments]:
        """The document ids and prepared judgments of the queries at ``positions`` (ascending)
        of :attr:`names`."""
        starts, ends = self._bounds[positions], self._bounds[positions + 1]
        counts = ends - starts
        within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = self._order[np.repeat(starts, counts) + within]
        ids = self.ids.take(pa.array(rows, type=pa.int64()))
        codes = np.repeat(np.arange(len(positions), dtype=np.int64), counts)
        names = [self.names[i] for i in positions.tolist()]
        keys, longest = doc_keys(self.ids)  # keyed once, for every block
        return ids, Judgments(names, codes, self.grades[rows], ids, keys=(keys[rows], longest))


def per_query_values(
    judgments: FileJudgments, run: Any, settings: Any, score: Callable[[Rankings], dict[str, np.ndarray]],
) -> tuple[list[str], dict[str, np.ndarray], str | None]:
    """``score`` on the queries of a TREC run file (a path) joined with ``judgments`` under
    ``settings`` (:class:`rankkit.evaluation.settings.Settings`), block by block: the query
    ids in trec_eval's order, each column's values along them, and the run's tag."""
    seen = np.zeros(len(judgments.names), dtype=bool)
    unjudged: list[str] = []
    matched = Matched()
    parts: list[tuple[list, dict]] = []
    budget = settings.block_budget()  # sized now: the judgments are read
    ahead = reads_ahead(budget)
    with opened(run) as inp:
        blocks = _RunBlocks(inp, block_size(budget, ahead))
        with closing(read_ahead(iter(blocks)) if ahead else boxed(iter(blocks))) as boxes:
            for box in boxes:
                block = box.pop()
                names, codes, columns = block[0], block[1], [block[2], block[3]]
                del block  # the join frees the document ids and scores as it goes
                at = pc.index_in(pa.array(names, type=pa.large_string()), value_set=judgments.text)
                if at.null_count:
                    unjudged.extend(np.asarray(names, dtype=object)[at.is_null().to_numpy(zero_copy_only=False)])
                at = at.drop_null().to_numpy(zero_copy_only=False).astype(np.int64)
                seen[at] = True
                qrels_ids, prepared = judgments.of(np.sort(at))
                r = rank_arrays(qrels_ids, prepared, names, codes, columns, blocks.tag, ties=settings.ties,
                                depth=settings.depth, judged_only=settings.judged_only, matched=matched)
                del codes, qrels_ids, prepared
                r = r.take(r.has_qrels)
                parts.append((list(r.query_ids), score(r)))
                del r
    matched.warn()
    if settings.queries == "qrels" and not seen.all():
        qrels_ids, prepared = judgments.of(np.flatnonzero(~seen))
        empty = pa.chunked_array([], type=pa.large_string())
        r = rank_arrays(qrels_ids, prepared, [], np.zeros(0, dtype=np.int32), [empty, np.zeros(0)], blocks.tag,
                        ties=settings.ties, depth=settings.depth, judged_only=settings.judged_only)
        parts.append((list(r.query_ids), score(r)))
    unscored_queries(*_flags(judgments.names, seen, unjudged), settings.queries)
    if not parts:
        raise Unsupported("an empty run")
    ids = [q for part, _ in parts for q in part]
    values = {c: np.concatenate([v[c] for _, v in parts]) for c in parts[0][1]}
    order = trec_order(ids)
    if order != list(range(len(order))):
        ids = [ids[i] for i in order]
        values = {c: v[order] for c, v in values.items()}
    return ids, values, blocks.tag


def _flags(judged: list[str], seen: np.ndarray, unjudged: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every query of the run or the judgments in trec_eval's order (an object array), with
    whether each is in the run and in the judgments (:meth:`rankkit.evaluation.stream.Found.flags`)."""
    ids = judged + unjudged
    in_qrels = np.arange(len(ids)) < len(judged)
    in_run = np.concatenate([seen, np.ones(len(unjudged), dtype=bool)])
    order = trec_order(ids)
    flags = np.empty(len(ids), dtype=object)
    flags[:] = [ids[i] for i in order]
    return flags, in_run[order], in_qrels[order]


class _RunBlocks:
    """A run file's blocks of whole queries as (query ids, codes, document ids, scores);
    ``tag`` is the tag of the last data line read so far."""

    def __init__(self, inp: Any, size: int):
        self._input, self._size, self.tag = inp, size, None

    def _blocks(self):
        for _, query_ids, doc_ids, scores, tag, _ in trec_file_blocks(self._input, "run", self._size):
            self.tag = tag if tag is not None else self.tag
            if len(scores):  # not a block of comments
                yield query_ids, doc_ids, scores

    def __iter__(self):
        done = Hashes()
        for box in whole_queries(self._blocks()):
            query_ids, doc_ids, scores = box.pop()
            names, codes = _query_codes(query_ids)
            del query_ids
            if not done.add(np.fromiter((hash(q) for q in names), dtype=np.int64, count=len(names))):
                raise Unsupported("a run not grouped by query")
            ids = _text_ids(doc_ids)
            _check_duplicates(names, codes, ids)
            yield names, codes, ids, np.asarray(scores, dtype=np.float64)

