"""The join: a run and its judgments become a :class:`~rankkit.rankings.Rankings`.

:func:`rank_frames` takes both inputs as :mod:`rankkit.io` read them (:func:`rankkit.rank`
reads them and calls it), then goes through six named steps, each a function below, in
this order (trec_eval does the same work in ``form_res_rels.c``):

1. :func:`_query_rows` - the queries of the run and of the judgments, one row each, in
   trec_eval's order (ids compared as bytes).
2. :func:`_order_run` - every query's documents by score, descending.
3. :func:`_match_judgments` - the judged label of each retrieved document, by 64-bit keys
   (:mod:`rankkit.io.keys`), every match confirmed on the ids.
4. :func:`_break_ties` - documents with equal scores in the order ``ties`` names.
5. :func:`_fill_matrices` - the padded label / judged matrices (and tie groups).
6. :func:`_ideal` - every judged label of each query, descending: R and the ideal DCG.

The judgments' side of steps 3 and 6 depends on the judgments alone; it is prepared once
(:class:`Judgments`) and reused while the same judgments are evaluated again (the runs of a
``compare``, a sweep). Which of a run's rows have a judgment depends on its ids, not its
scores: the judgments also remember the last run's query rows and matches, so the next run
with the same id columns (a sweep: ``run.assign(score=...)``) is only ordered again.
Arrays as long as the run (40-80 MB each at 10 million lines) are
freed (``del``) as soon as they are used: that sets the peak memory.
"""

from __future__ import annotations

import functools
import weakref
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._validation import warn_user
from .io.keys import (
    arrow_ids,
    doc_keys,
    id_bytes,
    keys_are_ids,
    pair_keys,
    query_index,
    same_ids,
    string_keys,
    take,
    word_count,
)
from .rankings import Rankings

if TYPE_CHECKING:  # frames come from the caller: the join itself never imports pandas
    import pandas as pd

__all__ = ["rank_frames", "rank_arrays", "Judgments", "Matched", "TIES"]

#: The orders of documents with equal scores (see :func:`rankkit.rank`).
TIES = ("docno", "optimistic", "pessimistic", "average")


def rank_frames(qrels: pd.DataFrame, run: pd.DataFrame, settings: Any = None, *, ties: str = "docno",
                depth: int | None = None, judged_only: bool = False, matched: Matched | None = None) -> Rankings:
    """:func:`rankkit.rank` on frames as :func:`rankkit.read_qrels` and :func:`rankkit.read_run`
    return them (canonical query categories, no duplicates), which it takes as they are:
    the steps below, without reading anything.

    The options come checked: from ``settings`` (an evaluation's
    :class:`rankkit.evaluation.settings.Settings`, of which the join reads ``ties``,
    ``depth`` and ``judged_only``), or else as the keywords of these names.

    When no retrieved document of any query has a judgment, it warns, showing an id of
    each side (``doc-02207`` never matches ``DOC-02207``); given ``matched`` (the join of
    one block of a run read in blocks), it counts there instead, and the caller warns
    once for the whole run (:meth:`Matched.warn`)."""
    if settings is not None:
        ties, depth, judged_only = settings.ties, settings.depth, settings.judged_only
    qrels_ids, judgments = Judgments.of(qrels)
    run_name, in_run, codes = run.attrs.get("name"), run.query_id.cat.categories.tolist(), run.query_id.cat.codes
    columns = [arrow_ids(run.doc_id), run.score.to_numpy(dtype=np.float64)]
    del run  # a frame read here (from a path) frees its query and score columns
    return rank_arrays(qrels_ids, judgments, in_run, np.asarray(codes), columns, run_name, ties=ties, depth=depth,
                       judged_only=judged_only, matched=matched, index=query_index)


def rank_arrays(qrels_ids: pa.ChunkedArray, judgments: Judgments, in_run: list, codes: np.ndarray,
                columns: list, run_name: str | None, *, ties: str, depth: int | None, judged_only: bool,
                matched: Matched | None = None, index: Any = None, release: bool | None = None) -> Rankings:
    """:func:`rank_frames` on columns: the judgments (their document ids and
    :class:`Judgments`), the run's distinct query ids (``in_run``), each line's position
    among them (``codes``), its document ids and scores (``columns``, a list the join
    empties: it frees each once used) and its tag. The options come checked. ``index``
    turns the list of query ids into the Rankings' ``query_ids`` (default: an object
    array).

    Given ``matched`` (one block of a run read in blocks), the memory Arrow's allocator
    holds is kept for the next block; else it goes back to the system once the run is
    joined. ``release`` says so instead, when given."""
    release = matched is None if release is None else release
    run_ids, scores = columns
    columns.clear()
    query_ids, run_rows, judged_rows = _query_rows(in_run, codes, judgments)
    del codes
    ordered = _order_run(run_rows, scores, len(query_ids))
    del scores
    rows, grade, exact_keys = _match_judgments(ordered, query_ids, run_rows, run_ids, qrels_ids, judgments, judged_rows,
                                               release=release)
    check = Matched() if matched is None else matched
    check.add(len(rows), functools.partial(_unmatched_example, ordered, run_ids, qrels_ids, judgments, judged_rows))
    if matched is None:
        check.warn()
    del run_rows
    if not ordered.start.all():
        rows = _break_ties(ordered, rows, grade, ties, run_ids, exact_keys)
    q_sorted, counts, start = ordered.q_sorted, ordered.counts, ordered.start
    del ordered, exact_keys, run_ids  # the run's ids, and with them its remembered keys
    in_run_rows = counts > 0
    if judged_only:  # trec_eval -J: the judged documents alone, in their order (after -M)
        q_sorted, counts, rows, grade, start = _judged_only(q_sorted, counts, rows, grade, start, depth)
        depth = None
    width = int(counts.max()) if counts.size else 0
    width = width if depth is None else min(width, depth)
    labels, judged, pooled = _fill_matrices(q_sorted, counts, rows, grade, width)
    del rows, grade
    tie_ids = _tie_groups(q_sorted, counts, start, width) if ties == "average" else None
    del q_sorted, start
    ideal, n_judged = _ideal(judgments, judged_rows, len(query_ids))
    if release:
        pa.default_memory_pool().release_unused()
    has_qrels = np.zeros(len(query_ids), dtype=bool)
    has_qrels[judged_rows] = True
    if index is not None:
        ids = index(query_ids)
    else:
        ids = np.empty(len(query_ids), dtype=object)
        ids[:] = query_ids
    return Rankings(
        labels=labels, judged=judged, pooled=pooled, lengths=np.minimum(counts, width).astype(np.int64),
        ideal=ideal, n_judged=n_judged, query_ids=ids, ties=tie_ids,
        has_run=in_run_rows, has_qrels=has_qrels, run_name=run_name,
    )


class Matched:
    """How many retrieved documents of a run have a judgment (a label, -1 included), over
    the joins of its parts (:func:`rank_frames` on each block of a run read in blocks);
    while none has, a document id of each side of one query the two share.

    The count is the join's own (the number of matches it found): checking it costs
    nothing. A run whose ids never match its judgments' (case: ``doc-02207`` and
    ``DOC-02207``; a prefix; another collection) would otherwise give 0.0 everywhere
    without a word.
    """

    def __init__(self) -> None:
        self.count = 0
        self.example: tuple[str, str, str] | None = None  # query, run document, judged document

    def add(self, count: int, example) -> None:
        """Add a join's matches; ``example()`` (the first query the run and the judgments
        share, an id of each side; None when they share none) is called only while there
        are none. The query that sorts first is kept: the same as the whole run's."""
        self.count += count
        if self.count == 0:
            found = example()
            if found is not None and (self.example is None or id_bytes(found[0]) < id_bytes(self.example[0])):
                self.example = found

    def merge(self, other: Matched) -> Matched:
        """This count and ``other``'s together (the parts of one run joined apart, as
        :mod:`rankkit.dask` joins its partitions); returns self."""
        self.count += other.count
        self.add(0, lambda: other.example)
        return self

    def warn(self) -> None:
        """A UserWarning, pointing at the caller's line outside rankkit, if no retrieved
        document of a query the run and the judgments share has a judgment."""
        if self.count or self.example is None:
            return
        _, run_id, judged_id = self.example
        warn_user(f"no retrieved document of any query is judged: run ids look like {run_id!r}, judged ids like "
                  f"{judged_id!r} (ids must match exactly, case included)")


def _unmatched_example(ordered: _Ordered, run_ids: pa.ChunkedArray, qrels_ids: pa.ChunkedArray,
                       judgments: Judgments, judged_rows: np.ndarray) -> tuple[str, str, str] | None:
    """The first query (trec_eval's order) the run shares with the judgments, the run's
    first document of it and a judged document of it (one equal to it but for case, if
    there is one); None when they share no query."""
    shared = ordered.counts[judged_rows] > 0
    if not shared.any():
        return None
    code = int(np.argmax(shared))  # the judgments' code of the first shared query
    row = judged_rows[code]
    first = (np.cumsum(ordered.counts) - ordered.counts)[row]  # its first document in rank order
    run_doc = _id_texts(take(run_ids, ordered.order[first: first + 1]))[0]
    judged = _id_texts(take(qrels_ids, np.flatnonzero(judgments.codes == code)))
    return (judgments.names[code], run_doc,
            next((d for d in judged if d.casefold() == run_doc.casefold()), judged[0]))


def _id_texts(ids: pa.Array) -> list[str]:
    """Ids (Arrow text, or a text view of bytes) as ``str``, escaped bytes kept."""
    return [b.decode("utf-8", "surrogateescape") for b in ids.cast(pa.large_binary()).to_pylist()]


# --------------------------------------------------------------------------- 1. query rows

class _QueryRows(NamedTuple):
    """Step 1 for one run's query ids (``in_run``, its categories): every query id in
    trec_eval's order (``ids``), the row of each run category and of each judged query."""

    in_run: list
    ids: list
    row_of_category: np.ndarray
    judged_rows: np.ndarray


def _query_rows(in_run: list, codes: np.ndarray, judgments: Judgments) -> tuple[list, np.ndarray, np.ndarray]:
    """``(ids, run_rows, judged_rows)`` for a run's distinct query ids (``in_run``) and the
    position among them of each line's query (``codes``): the queries of the run or the
    judgments, sorted as trec_eval sorts them (by bytes); the row of each run line's query;
    the row of each judged query. The judgments remember the rows of the last run's queries (a sweep's runs
    share them)."""
    last = judgments.query_rows
    if last is None or last.in_run != in_run:
        judged = judgments.names
        ids = sorted(set(in_run) | set(judged), key=id_bytes)
        row_of = {q: i for i, q in enumerate(ids)}
        last = judgments.query_rows = _QueryRows(in_run, ids, np.array([row_of[q] for q in in_run], dtype=np.int32),
                                                 np.array([row_of[q] for q in judged], dtype=np.int64))
    rows = last.row_of_category if len(codes) >= _NARROW_FROM else last.row_of_category.astype(np.intp)
    return last.ids, rows[codes], last.judged_rows


# --------------------------------------------------------------------------- 2. order the run

#: Up to this many lines, the run's positions and query rows are NumPy's own index type
#: (intp), which its gathers take as they are (a run read in blocks); from it on, 32-bit
#: positions halve the memory of the largest arrays of a run joined whole.
_NARROW_FROM = 1 << 22


def _position_type(n: int) -> type:
    """The integer type of the positions of a run of ``n`` lines."""
    return np.intp if n < _NARROW_FROM else np.int32 if n < 2**31 else np.int64


class _Ordered(NamedTuple):
    """The run in rank order: ``order[i]`` is the input row at position i; ``q_sorted`` its
    query row; ``start`` True where a tie group (equal scores in a query) begins;
    ``counts`` the lines of each query."""

    order: np.ndarray
    q_sorted: np.ndarray
    start: np.ndarray
    counts: np.ndarray


def _order_run(run_rows: np.ndarray, scores: np.ndarray, n: int) -> _Ordered:
    """Order the run: query (trec_eval's order), then score descending; documents with
    equal scores in any order (:func:`_break_ties` orders them). A run whose queries each
    come in one block, in rank order, as runs usually do, needs no sort at all; blocks in
    another order are sorted one by one (:func:`_sort_blocks`); lines of a query apart
    from each other are first put together (a stable radix sort of their query rows)."""
    within = run_rows[1:] == run_rows[:-1]
    starts = _block_starts(run_rows)
    counts = np.bincount(run_rows, minlength=n)
    if len(starts) == np.count_nonzero(counts):  # one block of lines per query
        # Sorted within each block? (Boolean masks: no 80 MB copies of the scores.)
        if np.logical_or(scores[1:] <= scores[:-1], ~within).all():
            start = _group_starts(scores, within)  # blocks stay whole: groups found before ordering
            order, q_sorted = _order_blocks(starts, run_rows)
            return _Ordered(order, q_sorted, start[order], counts)
        order = _sort_blocks(starts, run_rows, scores)
    else:
        grouped = _stably_by_query(np.arange(len(run_rows), dtype=np.int64), run_rows, n)
        order = _sort_blocks(_block_starts(run_rows[grouped]), run_rows[grouped], scores[grouped])
        order = None if order is None else grouped[order]
    del within, starts
    if order is None:  # queries of very different lengths: one sort of every line
        # Equal scores may come out in any order here: step 4 puts every tie group in the
        # order ``ties`` names, from the ids and labels alone. So the scores need no stable
        # sort (NumPy's introsort, SIMD where the CPU has it, outruns merge sort).
        order = _stably_by_query(np.argsort(-scores), run_rows, n)
    order = order.astype(_position_type(len(order)), copy=False)  # (32 bits: half the memory of argsort's)
    q_sorted = run_rows[order]
    return _Ordered(order, q_sorted, _group_starts(scores[order], q_sorted[1:] == q_sorted[:-1]), counts)


def _block_starts(codes: np.ndarray) -> np.ndarray:
    """Where each block of equal neighbouring codes begins."""
    return np.flatnonzero(np.concatenate([[len(codes) > 0], codes[1:] != codes[:-1]]))


def _stably_by_query(order: np.ndarray, codes: np.ndarray, n: int) -> np.ndarray:
    """``order`` sorted by ``codes[order]`` (each < ``n``), keeping the order within a code:
    a radix sort when the codes fit 16 bits."""
    small = codes.astype(np.uint16) if n <= 1 << 16 else codes
    return order[np.argsort(small[order], kind="stable")]


def _group_starts(scores: np.ndarray, same_query: np.ndarray) -> np.ndarray:
    """Where tie groups begin: True at each row whose score or query (``same_query[i]``:
    rows i and i + 1 share a query) differs from the previous row's."""
    start = np.ones(len(scores), dtype=bool)
    np.not_equal(scores[1:], scores[:-1], out=start[1:])
    start[1:] |= ~same_query
    return start


def _order_blocks(starts: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``order`` and ``codes[order]`` of a run whose rows come in one block per query, each
    already in rank order: the blocks, sorted by query code, laid end to end.

    Same result as a stable argsort of ``codes`` (a block keeps its row order), built with
    a repeat over the few blocks instead of sorting every row.
    """
    index = _position_type(len(codes))
    starts = starts.astype(index)
    sizes = np.diff(np.append(starts, index(len(codes))))
    by_query = np.argsort(codes[starts], kind="stable")
    starts, sizes = starts[by_query], sizes[by_query]
    # Row i of the result lies in block b, which now begins at first[b]: it is row
    # starts[b] + (i - first[b]) of the run.
    first = np.cumsum(sizes, dtype=index) - sizes
    order = np.arange(len(codes), dtype=index)
    order += np.repeat(starts - first, sizes)
    return order, np.repeat(codes[starts], sizes)


def _sort_blocks(starts: np.ndarray, codes: np.ndarray, scores: np.ndarray) -> np.ndarray | None:
    """The ``order`` of :func:`_order_blocks`, each block's rows then sorted by score,
    descending (equal scores in any order); None when the blocks are too unequal in length.

    Every block is sorted on its own, as one row of a matrix padded with +inf (the
    scores negated): ``np.argsort(axis=1)`` does n log(block) work where one sort of
    every row does n log(n) (benchmarks/bench_join.py measures both). The padding may at
    most double the rows.
    """
    index = _position_type(len(codes))
    sizes = np.diff(np.append(starts, len(codes)))
    width = int(sizes.max()) if sizes.size else 0
    if len(starts) * width > 2 * len(codes):
        return None
    blocks, _ = _order_blocks(starts, codes)  # the blocks by query, rows as they came
    by_query = np.argsort(codes[starts], kind="stable")
    inside = np.arange(width) < sizes[by_query][:, None]
    padded = np.full(inside.shape, np.inf)
    padded[inside] = -scores[blocks]
    del blocks
    order = np.argsort(padded, axis=1).astype(index)
    del padded
    order += starts[by_query].astype(index)[:, None]
    return order[inside]


# --------------------------------------------------------------------------- 3. match judgments

_MIX2 = np.uint64(0xC2B2AE3D27D4EB4F)


class _Index(NamedTuple):
    """Judgments ready for lookups: pair keys (query code in the high bits, document key in
    the low bits) sorted, with ``by_key`` back to the judgment rows, ``first[c]`` where query
    code c's keys start, and a bitmap of hashed pair keys (``maybe``, 8 bits per judgment)."""

    keys: np.ndarray
    by_key: np.ndarray
    first: np.ndarray
    maybe: np.ndarray
    shift: np.uint64
    hashed: bool


def _bucket(key: np.ndarray, bits: int) -> np.ndarray:
    with np.errstate(over="ignore"):
        return (key * _MIX2) >> np.uint64(64 - bits)


def _index(codes: np.ndarray, doc_key: np.ndarray, n: int, hashed: bool) -> _Index:
    """The :class:`_Index` of judgments with query codes ``codes`` (< n) and document keys."""
    key = pair_keys(codes, doc_key.copy(), n, hashed)
    bits = int(np.clip(int(len(key)).bit_length() + 3, 10, 28))
    maybe = np.zeros(1 << bits, dtype=bool)
    maybe[_bucket(key, bits)] = True
    # Judgments come grouped by query (the keys' high bits): timsort merges those runs,
    # twice as fast there as quicksort. (Judgments are distinct pairs: equal keys only by a
    # collision, which is confirmed.)
    by_key = np.argsort(key, kind="stable")
    key = key[by_key]
    shift = np.uint64(64 - max(1, (n - 1).bit_length()))
    first = np.searchsorted(key, np.arange(n + 1, dtype=np.uint64) << shift)
    first[n] = len(key)
    return _Index(key, by_key, first, maybe, shift, hashed)


#: Run positions looked up at once by :func:`_lookup`: 32,768 keys, so that a block's
#: temporaries (keys, bucket bits, search positions) stay in the CPU cache.
_LOOKUP_BLOCK = 1 << 15


def _lookup(ordered: _Ordered, run_key: np.ndarray, code_of: np.ndarray, index: _Index, *,
            block: int = _LOOKUP_BLOCK):
    """The judged documents of the run: ``(rows, matched)``, ascending ``rows`` (positions in
    the ordered run) and, for each, the row of its judgment.

    ``run_key[ordered.order]`` is each position's document key, ``code_of`` the judgments'
    code of each query row (-1: no judgments). The run is looked up block by block, each
    block in the slice of sorted judgments of its queries: small temporaries, and a search
    that stays in the CPU cache. The bitmap first rules out most unjudged documents.
    """
    n, bits = len(index.first) - 1, int(len(index.maybe)).bit_length() - 1
    ends = index.first[1:]  # ends[c]: past query code c's keys
    hits, matches = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for lo in range(0, len(ordered.order), block):
        hi = min(lo + block, len(ordered.order))
        codes = code_of.take(ordered.q_sorted[lo:hi])  # (take: no bounds check, no index cast)
        low, top = int(codes.min()), int(codes.max())
        if top < 0:
            continue
        every = low >= 0  # every query of the slice is judged (usually): no mask
        if not every:
            judged = codes >= 0
            low = int(np.min(codes, where=judged, initial=top))
        a, b = index.first[low], ends[top]
        if a == b:
            continue
        judgments = index.keys[a:b]
        key = pair_keys(codes if every else np.maximum(codes, 0), run_key.take(ordered.order[lo:hi]), n, index.hashed)
        maybe = index.maybe.take(_bucket(key, bits).view(np.int64))  # (the buckets fit 63 bits)
        candidates = np.flatnonzero(maybe if every else maybe & judged)
        key = key.take(candidates)
        pos = np.searchsorted(judgments, key)
        np.minimum(pos, len(judgments) - 1, out=pos)
        found = judgments.take(pos) == key
        hits.append(lo + candidates[found])
        matches.append(index.by_key.take(a + pos[found]))
    return np.concatenate(hits), np.concatenate(matches)


class Judgments:
    """The judgments' side of the join, prepared once: query ids (``names``, sorted by
    bytes), per judgment its query code, label and document key, and, built when first
    needed, the lookup :class:`_Index` and the ideal rankings. :func:`rank_arrays` takes
    one: :meth:`of` prepares a frame's judgments, and a caller that holds them as arrays
    (the command's path without frames) calls the constructor.

    :meth:`of` returns the last prepared judgments again when given the same judgments
    (the same Arrow array of document ids, equal query codes and labels): the runs of a
    ``compare`` or a sweep share one preparation. It is forgotten with that array.
    """

    _last: tuple[weakref.ref, Judgments] | None = None

    def __init__(self, names: list, codes: np.ndarray, grades: np.ndarray, ids: pa.ChunkedArray,
                 keys: tuple[np.ndarray, int] | None = None):
        self.names, self.codes, self.grades = names, codes, grades
        # The document keys and the longest id's length (rankkit.io.keys.doc_keys), unless
        # given: those of a larger set of judgments these are taken from, on the same rows.
        self.keys, self.longest = doc_keys(ids) if keys is None else keys
        self._index: _Index | None = None
        self._ideal: tuple[np.ndarray, np.ndarray] | None = None
        # Step 1 for the last run's query ids
        self.query_rows: _QueryRows | None = None
        # Step 3's matches of the last run (see _Matches)
        self.matches: _Matches | None = None

    @classmethod
    def of(cls, qrels: pd.DataFrame) -> tuple[pa.ChunkedArray, Judgments]:
        """The document ids of a frame :func:`rankkit.read_qrels` returned, and its
        prepared judgments."""
        ids = arrow_ids(qrels.doc_id)
        names = qrels.query_id.cat.categories.tolist()
        codes = np.asarray(qrels.query_id.cat.codes)
        grades = qrels.relevance.to_numpy(dtype=np.float64)
        if cls._last is not None and cls._last[0]() is ids:
            last = cls._last[1]
            if last.names == names and np.array_equal(last.codes, codes) and np.array_equal(last.grades, grades):
                return ids, last
        prepared = cls(names, codes.astype(np.int64), grades.copy(), ids)  # int64: no int8 overflow in offsets
        cls._last = (weakref.ref(ids), prepared)
        weakref.finalize(ids, cls._forget, weakref.ref(prepared))  # gone with the ids
        return ids, prepared

    @classmethod
    def _forget(cls, prepared: weakref.ref) -> None:
        if cls._last is not None and cls._last[1] is prepared():
            cls._last = None

    def remember(self, matches: _Matches) -> None:
        """Keep the matches of a run until the next run, or until its document ids go
        (weak references both ways: neither keeps the other alive)."""
        self.matches = matches
        weakref.finalize(matches.ids(), _forget_matches, weakref.ref(self), weakref.ref(matches))

    def index(self, keys: np.ndarray | None = None) -> _Index:
        """The lookup index on this object's document keys (hashed pair keys), kept; or on
        other ``keys`` of the same judgments (built now, not kept)."""
        if keys is not None:
            return _index(self.codes, keys, len(self.names), hashed=True)
        if self._index is None:
            self._index = _index(self.codes, self.keys, len(self.names), hashed=True)
        return self._index

    def ideal(self) -> tuple[np.ndarray, np.ndarray]:
        """Per query code: every judged label (>= 0), descending, zero-padded; and how many."""
        if self._ideal is None:
            ok = self.grades >= 0
            codes, grades = self.codes[ok], self.grades[ok]
            n_judged = np.bincount(codes, minlength=len(self.names))
            width = int(n_judged.max()) if n_judged.size else 0
            ideal = np.zeros((len(self.names), width))
            # Row c's first n_judged[c] cells, row after row: the grades in that order.
            ideal[np.arange(width) < n_judged[:, None]] = _by_query_descending(codes, grades, len(self.names))
            self._ideal = ideal, n_judged.astype(np.int64)
        return self._ideal


# The old name, for rankkit.evaluation.frameless until it imports Judgments (then delete this line).


def _by_query_descending(codes: np.ndarray, grades: np.ndarray, n: int) -> np.ndarray:
    """``grades`` (>= 0) ordered by query code (< ``n``), then descending.

    Grades are usually a few whole numbers: then they are counted per query and grade and
    written out in order (``np.repeat``), no sort at all. Other grades are sorted: by
    grade, then stably by query (equal grades are equal values, their order does not
    matter), two sorts that outrun one ``np.lexsort``.
    """
    top = int(grades.max()) if len(grades) else 0
    if len(grades) and n * (top + 1) <= 4 * len(grades) + 4096 and np.array_equal(grades, np.floor(grades)):
        levels = np.arange(top, -1, -1, dtype=np.float64)  # each query's grades, highest first
        counts = np.bincount(codes * np.int64(top + 1) + (top - grades.astype(np.int64)), minlength=n * (top + 1))
        return np.repeat(np.tile(levels, n), counts)
    return grades[_stably_by_query(np.argsort(-grades), codes, n)]


def _forget_matches(judgments: weakref.ref, matches: weakref.ref) -> None:
    prepared = judgments()
    if prepared is not None and prepared.matches is not None and prepared.matches is matches():
        prepared.matches = None


def _match_judgments(ordered: _Ordered, query_ids: list, run_rows: np.ndarray, run_ids: pa.ChunkedArray,
                     qrels_ids: pa.ChunkedArray, judgments: Judgments,
                     judged_rows: np.ndarray, release: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(rows, grade, exact_keys)``: the positions of the ordered run that have a judgment
    (ascending), the label of each (below 0: "pooled but not judged"), and the run's
    document keys when they are the ids themselves (for :func:`_break_ties`), else None.

    Only the matches are kept: most retrieved documents are unjudged, and an unjudged rank
    is label 0, not judged: the zeros the matrices start with. Which input rows match
    depends on the ids alone, not on the scores: the runs of a sweep, which share their
    id columns, are looked up once (:class:`_Matches`).
    """
    known = judgments.matches
    if known is not None and known.same_run(run_ids, query_ids, run_rows):
        rows, matched = known.positions(ordered.order)
        return rows, judgments.grades[matched], doc_keys(run_ids)[0] if known.exact else None
    rows, matched, exact_keys = _match(ordered, run_ids, qrels_ids, judgments, judged_rows, release)
    judgments.remember(_Matches(run_ids, query_ids, run_rows, ordered.order[rows], matched, exact_keys is not None))
    return rows, judgments.grades[matched], exact_keys


class _Matches:
    """The matches of one run's rows, remembered by its judgments (:class:`Judgments`) for
    the next run with the same document ids (the same Arrow array), the same query ids in
    the same rows: the input rows that have a judgment, ascending by position in that
    run's order, and the judgment row of each. Forgotten with the document ids."""

    def __init__(self, run_ids: pa.ChunkedArray, query_ids: list, run_rows: np.ndarray, input_rows: np.ndarray,
                 matched: np.ndarray, exact: bool):
        self.ids = weakref.ref(run_ids)
        self.query_ids, self.run_rows = query_ids, run_rows
        self.input_rows, self.matched, self.exact = input_rows, matched, exact

    def same_run(self, run_ids: pa.ChunkedArray, query_ids: list, run_rows: np.ndarray) -> bool:
        """The same document ids, and every row the same query: row numbers alone are not
        enough (another query may take a row's number)."""
        return (self.ids() is run_ids and self.query_ids == query_ids
                and np.array_equal(self.run_rows, run_rows))

    def positions(self, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, matched)`` in a new ``order`` of the same rows: ascending positions."""
        position = np.empty_like(order)
        position[order] = np.arange(len(order), dtype=order.dtype)
        match_at = np.full(len(order), -1, dtype=np.int64)
        match_at[position[self.input_rows]] = self.matched
        rows = np.flatnonzero(match_at >= 0)
        return rows, match_at[rows]


def _match(ordered: _Ordered, run_ids: pa.ChunkedArray, qrels_ids: pa.ChunkedArray, judgments: Judgments,
           judged_rows: np.ndarray, release: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """:func:`_match_judgments` done: ``(rows, matched, exact_keys)``, ``matched`` the
    judgment row of each of ``rows``; Arrow's freed memory goes back to the system if
    ``release``."""
    run_key, run_longest = doc_keys(run_ids)
    qrels_key, index = judgments.keys, None
    if word_count(run_longest) != word_count(judgments.longest):  # keyed apart with different functions
        run_key, qrels_key = string_keys(run_ids, qrels_ids)
        index = judgments.index(qrels_key)
    code_of = np.full(len(ordered.counts), -1, dtype=np.int64)
    code_of[judged_rows] = np.arange(len(judged_rows))
    rows, matched = _lookup(ordered, run_key, code_of, index or judgments.index())
    # The pair keys keep only part of the document key: confirm every match, on the full
    # keys when they are the ids themselves, else on the strings.
    exact = keys_are_ids(max(run_longest, judgments.longest), run_ids, qrels_ids)
    if exact:
        confirmed = np.array_equal(run_key[ordered.order[rows]], qrels_key[matched])
    else:
        confirmed = same_ids(run_ids, ordered.order[rows], qrels_ids, matched)
    if not confirmed:  # two distinct ids share a key (astronomically rare): exact codes
        rows, matched = _lookup_exact(ordered, run_ids, qrels_ids, judgments, code_of)
    if release:  # Arrow's temporaries: lower the peak that follows
        pa.default_memory_pool().release_unused()
    return rows, matched, run_key if exact else None


def _lookup_exact(ordered: _Ordered, run_ids: pa.ChunkedArray, qrels_ids: pa.ChunkedArray,
                  judgments: Judgments, code_of: np.ndarray):
    """:func:`_lookup` on exact codes of the ids (pyarrow's ``dictionary_encode`` of both
    columns together): slower, and free of hash collisions."""
    docs = pa.chunked_array([c.cast(pa.large_string()) for c in run_ids.chunks + qrels_ids.chunks],
                            type=pa.large_string())
    codes = pc.dictionary_encode(docs.combine_chunks()).indices.to_numpy(zero_copy_only=False).astype(np.uint64)
    n_run = len(run_ids)
    index = _index(judgments.codes, codes[n_run:], len(judgments.names), hashed=False)
    return _lookup(ordered, codes[:n_run], code_of, index)


# --------------------------------------------------------------------------- 4. break ties

def _break_ties(ordered: _Ordered, rows: np.ndarray, grade: np.ndarray, ties: str,
                run_ids: pa.ChunkedArray, exact_keys: np.ndarray | None) -> np.ndarray:
    """``rows`` (positions of the judged documents) after putting every tie group in the
    order ``ties`` names: document id descending (bytes, as ``strcmp``), after the label
    (descending: optimistic; ascending: pessimistic). Only tied positions move, and only
    they are sorted (one ``pyarrow`` sort over group, label, id)."""
    start = ordered.start
    tied = ~start  # a position is tied if it, or the one after it, continues a group
    tied[:-1] |= ~start[1:]
    tied = np.flatnonzero(tied)
    # A group's first tied position starts it: counting those numbers the groups in order.
    columns = {"g": np.cumsum(start.take(tied), dtype=np.int32 if len(tied) < 2**31 else np.int64)}
    at = np.minimum(np.searchsorted(tied, rows), len(tied) - 1)
    hit_tied = tied[at] == rows  # which judged positions are tied, and at[...] says which one
    keys = [("g", "ascending")]
    if ties in ("optimistic", "pessimistic"):
        # The label each tied position gets in the matrix (0: unjudged, "pooled but not judged").
        columns["l"] = np.zeros(len(tied))
        columns["l"][at[hit_tied]] = np.maximum(grade[hit_tied], 0.0)
        keys.append(("l", "descending" if ties == "optimistic" else "ascending"))
    keys.append(("d", "descending"))
    if exact_keys is not None:  # the key read big-endian orders like the bytes (strcmp)
        columns["d"] = exact_keys.take(ordered.order[tied]).byteswap()
    else:
        columns["d"] = take(run_ids, ordered.order[tied])
    perm = pc.sort_indices(pa.table(columns), sort_keys=keys).to_numpy()
    del columns
    # The i-th tied position of the new order is tied[perm[i]]: it moves to position tied[i].
    moved_to = np.empty_like(tied)
    moved_to[perm] = tied
    rows[hit_tied] = moved_to[at[hit_tied]]
    return rows


def _judged_only(q_sorted, counts, rows, grade, start, depth):
    """The ordered run reduced to its judged documents (trec_eval ``-J``), as
    ``(q_sorted, counts, rows, grade, start)`` of that shorter run.

    ``rows`` (positions of the judged-or-pooled documents in the ordered run) and
    ``grade`` (their labels) come from the lookup; ``depth`` (trec_eval ``-M``) cuts
    each query first. Documents keep their order; a tie group is what remains of one.
    """
    by_rank = np.argsort(rows, kind="stable")  # the tie orders moved some rows
    rows, grade = rows[by_rank], grade[by_rank]
    offsets = np.cumsum(counts) - counts
    column = rows - offsets[q_sorted[rows]]
    survive = grade >= 0
    if depth is not None:
        survive &= column < depth
    rows, grade = rows[survive], grade[survive]
    q = q_sorted[rows]
    group = np.cumsum(start)[rows]
    new_start = np.ones(len(rows), dtype=bool)
    np.not_equal(group[1:], group[:-1], out=new_start[1:])
    return q, np.bincount(q, minlength=len(counts)), np.arange(len(rows)), grade, new_start


# --------------------------------------------------------------------------- 5. fill matrices

def _fill_matrices(q_sorted, counts, rows, grade, width):
    """``(labels, judged, pooled)``: row = query, column = rank (< ``width``). Only the judged
    positions are written; the rest keep the zeros (label 0, not judged). ``pooled`` marks
    documents in the qrels at all (labels below 0 too), None when no label is below 0."""
    n = len(counts)
    offsets = np.cumsum(counts) - counts  # first position of each query in the ordered run
    q_hit = q_sorted[rows]
    column = rows - offsets[q_hit]
    keep = column < width  # depth
    flat = q_hit[keep].astype(np.int64) * width + column[keep]
    grade = grade[keep]
    labels = np.zeros((n, width))
    labels.ravel()[flat] = np.maximum(grade, 0.0)
    judged = np.zeros((n, width), dtype=bool)
    judged.ravel()[flat] = grade >= 0
    pooled = None
    if (grade < 0).any():
        pooled = np.zeros((n, width), dtype=bool)
        pooled.ravel()[flat] = True
    return labels, judged, pooled


def _tie_groups(q_sorted, counts, start, width) -> np.ndarray:
    """``Rankings.ties`` for ``ties="average"``: each rank's id is the flat index of the first
    rank of its tie group (its own index when untied)."""
    n = len(counts)
    index = np.int32 if n * width + len(q_sorted) < 2**31 else np.int64  # halves these temporaries
    offsets = np.cumsum(counts) - counts
    pos = np.arange(len(q_sorted), dtype=index)
    pos -= offsets.astype(index)[q_sorted]  # position within the query
    firsts = np.flatnonzero(start)
    group_first = (q_sorted[firsts].astype(np.int64) * width + pos[firsts])[np.cumsum(start) - 1]
    keep = pos < width
    tie_ids = np.arange(n * width, dtype=np.int64)
    tie_ids[q_sorted[keep].astype(np.int64) * width + pos[keep]] = group_first[keep]
    return tie_ids.reshape(n, width)


# --------------------------------------------------------------------------- 6. ideal

def _ideal(judgments: Judgments, judged_rows: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(ideal, n_judged)`` with one row per query (rows ``judged_rows`` from the judgments,
    the others empty): every judged label (>= 0), descending, zero-padded."""
    by_code, counts = judgments.ideal()
    ideal = np.zeros((n, by_code.shape[1]))
    ideal[judged_rows] = by_code
    n_judged = np.zeros(n, dtype=np.int64)
    n_judged[judged_rows] = counts
    return ideal, n_judged
