"""The one way of a run: parse, join, rank, measure, then aggregate and report.

Every input kind is parsed into the same two things, and from there on every evaluation
takes the same steps (:func:`score_run`):

- the judgments by query (:class:`QueryJudgments`): the judged query ids in trec_eval's
  order, each judgment's query code, label and document id;
- the run as blocks of whole queries (:class:`RunBlock`): a block's distinct query ids,
  each line's position among them, its document ids and its scores.

Where they come from:

========================================  ==============================================
input                                     blocks
========================================  ==============================================
a TREC run file, ``rankkit evaluate``     read as arrays, without pandas, within the
                                          memory bound (:mod:`rankkit.evaluation.frameless`)
a TREC run file, :func:`rankkit.evaluate` read as frames within the memory bound, also
                                          when not grouped by query
                                          (:mod:`rankkit.evaluation.stream`)
a frame, dict, records, Parquet, Feather  one block: the whole run (:meth:`RunBlock.whole_run`)
a Dask partition                          one block: the partition (:mod:`rankkit.dask`)
========================================  ==============================================

:func:`score_run` joins each block with the judgments of its queries
(:func:`rankkit.join.rank_arrays`), hands the :class:`~rankkit.rankings.Rankings` of its
judged queries to ``measure`` (every metric's kernel: a dict of per-query arrays), and
puts the blocks' values together in trec_eval's query order. Every per-query value
depends only on that query's lines and judgments and on the evaluation's settings, so
every way of reading a run gives the same values, bit for bit. What only the whole run
knows is gathered across blocks: which queries were found (the warnings about queries
left out, ``queries="qrels"``), whether any retrieved document was judged
(:class:`rankkit.join.Matched`) and the run's tag (its last line's, for ``runid``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..io.keys import arrow_ids, trec_order
from ..join import Judgments, Matched, rank_arrays
from ..rankings import Rankings
from .arrays import unscored_queries
from .memory import boxed, read_ahead

__all__ = ["RunBlock", "QueryJudgments", "Scored", "score_run", "boxes"]

#: A metric set's per-query values on a Rankings: column -> array along its queries.
Measure = Callable[[Rankings], dict[str, np.ndarray]]


@dataclass
class RunBlock:
    """Whole queries of a run: their distinct ids (``names``), each line's position among
    them (``codes``), its document id (Arrow text) and its score (float64).

    ``whole`` marks a block that is the whole run (one held in memory): it is joined with
    every judgment, prepared once and kept for the next run on the same judgments (the
    runs of a comparison, a sweep; :class:`rankkit.join.Judgments`).

    ``prepare``, if given, completes the block (``prepare(block)``) on the thread that
    joins it, just before the join (:func:`score_run`), and raises the reader's errors
    found there (a document listed twice, a run not grouped by query): a reader on a
    thread of its own parses, and leaves the rest to the thread that joins, so that the
    two take about equal shares of the work (benchmarks/README.md, "Whole processes
    (2026-12-06, later)")."""

    names: list
    codes: np.ndarray
    doc_ids: pa.ChunkedArray
    scores: np.ndarray
    whole: bool = False
    prepare: Callable[[RunBlock], None] | None = None

    @classmethod
    def of_frame(cls, run: Any, whole: bool = False) -> RunBlock:
        """The block of a frame as :func:`rankkit.read_run` returns it (canonical query
        categories, no duplicates)."""
        return cls(run.query_id.cat.categories.tolist(), np.asarray(run.query_id.cat.codes), arrow_ids(run.doc_id),
                   run.score.to_numpy(dtype=np.float64), whole)

    @classmethod
    def whole_run(cls, run: Any) -> list[list[RunBlock]]:
        """A run held in memory (a frame :func:`rankkit.read_run` returned) as the one box
        :func:`score_run` takes."""
        return [[cls.of_frame(run, whole=True)]]


class QueryJudgments:
    """Judgments by query: query ids (``names``, sorted by their bytes: trec_eval's order),
    each judgment's query code, label (``grades``) and document id, and the prepared
    judgments of any set of queries without a pass over all of them (:meth:`of`)."""

    def __init__(self, names: list, codes: np.ndarray, grades: np.ndarray, ids: pa.ChunkedArray,
                 prepared: Judgments | None = None):
        self.names, self.codes, self.grades, self.ids = names, codes, grades, ids
        self._all = prepared

    @functools.cached_property
    def position(self) -> dict:
        """Query id -> its position in :attr:`names`."""
        return {name: i for i, name in enumerate(self.names)}

    @functools.cached_property
    def _by_query(self) -> tuple[np.ndarray, np.ndarray]:
        """The judgments' rows query by query, and where each query's start (built when a
        block needs the judgments of some queries only)."""
        order = np.argsort(self.codes, kind="stable")
        return order, np.searchsorted(self.codes[order], np.arange(len(self.names) + 1))

    @classmethod
    def of_frame(cls, qrels: Any) -> QueryJudgments:
        """The judgments of a frame :func:`rankkit.read_qrels` returned (prepared once per
        frame: :meth:`rankkit.join.Judgments.of`)."""
        ids, prepared = Judgments.of(qrels)
        return cls(prepared.names, prepared.codes, prepared.grades, ids, prepared)

    def max_grade(self) -> float:
        """The largest label, 1.0 if none is above 0: the default ``max_grade`` of an
        evaluation (:meth:`rankkit.Rankings.max_grade` of its :func:`rankkit.rank`)."""
        top = float(self.grades.max()) if len(self.grades) else 0.0
        return top if top > 0 else 1.0

    def named(self, doc_id: str) -> dict[str, float]:
        """Query id -> label, for the judgments of the document ``doc_id``."""
        rows = np.flatnonzero(pc.equal(self.ids, doc_id).to_numpy(zero_copy_only=False))
        return {self.names[q]: float(g) for q, g in zip(self.codes[rows].tolist(), self.grades[rows].tolist())}

    def all(self) -> Judgments:
        """Every judgment, prepared (document keys computed once, for every block)."""
        if self._all is None:
            self._all = Judgments(self.names, self.codes.astype(np.int64), self.grades, self.ids)
        return self._all

    def of(self, positions: np.ndarray) -> tuple[pa.ChunkedArray, Judgments]:
        """The document ids and prepared judgments of the queries at ``positions``
        (ascending) of :attr:`names`."""
        full = self.all()
        if len(positions) == len(self.names):
            return self.ids, full
        order, bounds = self._by_query
        starts, ends = bounds[positions], bounds[positions + 1]
        counts = ends - starts
        within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = order[np.repeat(starts, counts) + within]
        ids = self.ids.take(pa.array(rows, type=pa.int64()))
        codes = np.repeat(np.arange(len(positions), dtype=np.int64), counts)
        names = [self.names[i] for i in positions.tolist()]
        return ids, Judgments(names, codes, self.grades[rows], ids, keys=(full.keys[rows], full.longest))


@dataclass
class Scored:
    """A run's per-query values: the scored query ids in trec_eval's order, each column's
    values along them, the run's tag, every query of the run or the judgments with whether
    it is in each (``flags``: ids, in_run, in_qrels, as
    :func:`rankkit.evaluation.arrays.unscored_queries` takes them) and the queries left
    out with the reason (None when :func:`score_run` was told not to report them)."""

    ids: list
    values: dict[str, np.ndarray]
    tag: str | None
    flags: tuple[np.ndarray, np.ndarray, np.ndarray]
    unscored: dict | None

    def tagged(self, columns: dict) -> dict[str, np.ndarray]:
        """The values, with the ``runid`` columns of ``columns`` (name -> Metric) set to the
        run's tag (known once the whole run is read)."""
        for column, metric in columns.items():
            if metric.name == "runid":
                self.values[column] = np.array([self.tag or ""] * len(self.ids), dtype=object)
        return self.values


def boxes(blocks: Iterable[RunBlock], ahead: bool) -> Iterable[list[RunBlock]]:
    """Blocks in boxes of one, which :func:`score_run` empties (then nothing else holds a
    block while the join frees its columns); the next read by a thread meanwhile when
    ``ahead`` (:func:`rankkit.evaluation.memory.read_ahead`)."""
    return read_ahead(iter(blocks)) if ahead else boxed(iter(blocks))


def score_run(judgments: QueryJudgments, blocks: Iterable[list[RunBlock]], measure: Measure, settings: Any, *,
              tag: Callable[[], str | None] = lambda: None, matched: Matched | None = None) -> Scored:
    """``measure`` on every judged query of a run, block by block (the module's docstring).

    ``blocks`` yields boxes of one :class:`RunBlock` (:func:`boxes`); ``settings`` (a
    :class:`rankkit.evaluation.settings.Settings`) gives the join's ``ties``, ``depth``,
    ``judged_only`` and the ``queries`` policy: under "qrels", the judged queries the run
    lacks are joined with an empty run and measured too. ``tag()`` is the run's tag once
    every block is read. Without ``matched``, the warnings are given here: ids that never
    match, then the queries left out (:func:`unscored_queries`); given ``matched`` (a part
    of a run evaluated apart: :mod:`rankkit.dask`), it counts there and nothing is warned.
    """
    seen = np.zeros(len(judgments.names), dtype=bool)
    unjudged: list = []
    check = Matched() if matched is None else matched
    parts: list[tuple[list, dict]] = []
    boxes_ = iter(blocks)
    try:
        for box in boxes_:
            block = box.pop()
            if block.prepare is not None:
                block.prepare(block)
            at = np.fromiter((judgments.position.get(q, -1) for q in block.names), dtype=np.int64,
                             count=len(block.names))
            unjudged.extend(q for q, i in zip(block.names, at.tolist()) if i < 0)
            seen[at[at >= 0]] = True
            positions = np.arange(len(judgments.names)) if block.whole else np.sort(at[at >= 0])
            r = _join(judgments, positions, block, settings, check, release=block.whole)
            del block
            scored = r.has_qrels & r.has_run
            r = r if scored.all() else r.take(scored)  # (no copy of the matrices when all are)
            parts.append((list(r.query_ids), measure(r)))
            del r
    finally:
        if hasattr(boxes_, "close"):  # stops a thread reading ahead
            boxes_.close()
    if settings.queries == "qrels" and not seen.all() or not parts:
        missing = np.flatnonzero(~seen) if settings.queries == "qrels" else np.zeros(0, dtype=np.int64)
        empty = RunBlock([], np.zeros(0, dtype=np.intp), _NO_IDS, np.zeros(0))
        r = _join(judgments, missing, empty, settings, check, release=False)
        parts.append((list(r.query_ids), measure(r)))
    flags = _flags(judgments.names, seen, unjudged)
    unscored = None
    if matched is None:
        check.warn()
        _, unscored = unscored_queries(*flags, settings.queries)
    ids, values = _in_trec_order(parts)
    return Scored(ids, values, tag(), flags, unscored)


def merged(parts: list[Scored], queries: str, matched: Matched) -> Scored:
    """One run's :class:`Scored` from those of its parts, each a share of the run's queries
    scored apart against every judgment (:mod:`rankkit.dask`'s partitions, with ``matched``
    given to :func:`score_run`): the values in trec_eval's query order, a query in the run
    when some part holds it, and the warnings and the queries left out as :func:`score_run`
    gives them for the whole run."""
    ids = np.concatenate([part.flags[0] for part in parts]) if parts else np.zeros(0, dtype=object)
    in_run = np.concatenate([part.flags[1] for part in parts]) if parts else np.zeros(0, dtype=bool)
    in_qrels = np.concatenate([part.flags[2] for part in parts]) if parts else np.zeros(0, dtype=bool)
    seen: dict = {}
    for i, q in enumerate(ids.tolist()):
        seen.setdefault(q, []).append(i)
    names = list(seen)
    order = trec_order(names)
    flag_ids = np.empty(len(names), dtype=object)
    flag_ids[:] = [names[i] for i in order]
    rows = [seen[names[i]] for i in order]
    flags = (flag_ids, np.array([in_run[r].any() for r in rows], dtype=bool),
             np.array([in_qrels[r].any() for r in rows], dtype=bool))
    matched.warn()  # as score_run warns, before the queries left out
    _, unscored = unscored_queries(*flags, queries)
    ids_, values = _in_trec_order([(part.ids, part.values) for part in parts if len(part.ids)] or
                                  [(parts[0].ids, parts[0].values)])
    tags = [part.tag for part in parts if part.tag is not None]
    return Scored(ids_, values, tags[-1] if tags else None, flags, unscored)


_NO_IDS = pa.chunked_array([], type=pa.large_string())


def _join(judgments: QueryJudgments, positions: np.ndarray, block: RunBlock, settings: Any, matched: Matched, *,
          release: bool) -> Rankings:
    """The Rankings of a block joined with the judgments of the queries at ``positions``."""
    qrels_ids, prepared = judgments.of(positions)
    columns = [block.doc_ids, block.scores]
    block.doc_ids = block.scores = None  # the join frees them as it goes
    return rank_arrays(qrels_ids, prepared, block.names, block.codes, columns, None, ties=settings.ties,
                       depth=settings.depth, judged_only=settings.judged_only, matched=matched, release=release)


def _flags(judged: list, seen: np.ndarray, unjudged: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every query of the run or the judgments in trec_eval's order (an object array), with
    whether each is in the run and in the judgments."""
    ids = judged + unjudged
    in_qrels = np.arange(len(ids)) < len(judged)
    in_run = np.concatenate([seen, np.ones(len(unjudged), dtype=bool)])
    order = trec_order(ids)
    flags = np.empty(len(ids), dtype=object)
    flags[:] = [ids[i] for i in order]
    return flags, in_run[order], in_qrels[order]


def _in_trec_order(parts: list[tuple[list, dict]]) -> tuple[list, dict[str, np.ndarray]]:
    """The blocks' query ids and values as one, in trec_eval's query order."""
    ids = [q for part, _ in parts for q in part]
    if len(parts) == 1:
        values = parts[0][1]
    else:
        values = {c: np.concatenate([v[c] for _, v in parts]) for c in parts[0][1]}
    order = trec_order(ids)
    if order != list(range(len(order))):
        ids = [ids[i] for i in order]
        values = {c: v[order] for c, v in values.items()}
    return ids, values
