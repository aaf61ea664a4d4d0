"""Runs larger than memory: a run file evaluated block by block of whole queries.

:func:`rankkit.evaluate` and ``rankkit evaluate`` read a TREC run file this way, so that
peak memory stays near the ``memory`` bound (default :data:`DEFAULT_MEMORY`) whatever the
run's size. The judgments are read whole (they are needed for every query); the run is
read in blocks of whole lines sized to what the bound leaves after them
(:func:`block_size`), each block's queries joined with their judgments
(:func:`rankkit.rank`) and scored, and the per-query tables put together in trec_eval's
order. Where the bound leaves room for two blocks, a thread reads the next block while one
is joined (:func:`rankkit.evaluation.memory.read_ahead`). Every per-query value depends only on that query's lines
and judgments and on the evaluation's settings, so the result is the in-memory one, bit
for bit; the ``all`` line is aggregated afterwards over the whole table, in the same order.

- A run grouped by query (every line of a query together, in any query order: the usual
  case) is read once: :meth:`rankkit.io.RunFile.grouped`.
- A run that is not (a query comes back after another) is noticed when it comes back;
  then the run is read again, each line written to one of 256 temporary Arrow files by a
  hash of its query (:meth:`rankkit.io.RunFile.partitioned`), and the files are
  evaluated a group at a time. Slower (the run is read twice and written once), the same
  result.

What only the whole run knows is carried across blocks: which queries were found (for
the warnings about queries left out and ``queries="qrels"``), whether any retrieved
document was judged (the warning about ids that never match: :class:`rankkit.join.Matched`),
and the run tag (its last line's, for ``runid``).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..io import RunFile, RunNotGrouped, read_run
from ..io.keys import query_index, trec_order
from ..join import Matched, rank_frames
from ..rankings import Rankings
from .memory import DEFAULT_MEMORY, block_size, boxed, parse_memory, read_ahead, reads_ahead

__all__ = ["DEFAULT_MEMORY", "parse_memory", "block_size", "stream_tables", "combine", "judged_max_grade", "Found"]

# --------------------------------------------------------------------------- the judgments by query

class _ByQuery:
    """The judgments' rows of any set of queries, without a pass over all of them."""

    def __init__(self, qrels: pd.DataFrame):
        self.qrels = qrels
        self.ids = qrels.query_id.cat.categories
        codes = np.asarray(qrels.query_id.cat.codes)
        self._order = np.argsort(codes, kind="stable")
        self._bounds = np.searchsorted(codes[self._order], np.arange(len(self.ids) + 1))

    def rows(self, positions: np.ndarray) -> pd.DataFrame:
        """The judgments of the queries at ``positions`` (ascending) of :attr:`ids`, as
        :func:`rankkit.read_qrels` returns them: categories only these queries."""
        starts, ends = self._bounds[positions], self._bounds[positions + 1]
        counts = ends - starts
        within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        rows = self._order[np.repeat(starts, counts) + within]
        part = self.qrels.iloc[rows].reset_index(drop=True)
        codes = np.repeat(np.arange(len(positions), dtype=np.int32), counts)
        part["query_id"] = pd.Categorical.from_codes(codes, categories=self.ids[positions], validate=False)
        return part


# --------------------------------------------------------------------------- the blocks

@dataclass
class Found:
    """What the whole run had, gathered block by block: the judged queries it has
    (``seen``, along ``judged``), its queries without judgments, and its tag."""

    judged: pd.Index
    seen: np.ndarray
    unjudged: list = field(default_factory=list)
    tag: str | None = None

    def flags(self) -> tuple[pd.Index, np.ndarray, np.ndarray]:
        """Every query of the run or the judgments in trec_eval's order, with whether each
        is in the run and in the judgments (as :func:`rankkit.rank` sets them)."""
        ids = list(self.judged) + list(self.unjudged)
        in_qrels = np.arange(len(ids)) < len(self.judged)
        in_run = np.concatenate([self.seen, np.ones(len(self.unjudged), dtype=bool)])
        order = trec_order(ids)
        return query_index([ids[i] for i in order]), in_run[order], in_qrels[order]


def stream_tables(
    qrels: pd.DataFrame,
    run: RunFile,
    score: Callable[[Rankings], pd.DataFrame],
    settings,
) -> tuple[list[pd.DataFrame], Found]:
    """``score`` (a Rankings -> one row per query) on every block of ``run``, joined with
    ``qrels`` (a frame :func:`rankkit.read_qrels` returned) by
    :func:`rankkit.join.rank_frames` under ``settings`` (an evaluation's
    :class:`rankkit.evaluation.settings.Settings`); the Rankings given to ``score`` hold
    only queries of the run that have judgments, and under ``settings.queries == "qrels"``
    a last one the judged queries the run lacks. Returns the tables and what the run had.
    A run not grouped by query is read again through temporary files. Blocks are sized for
    ``settings.memory`` (bytes; :func:`block_size`); ``settings.progress`` shows a bar
    (:class:`Progress`)."""
    by_query = _ByQuery(qrels)
    budget = settings.block_budget()  # sized now: the judgments and their index are read
    ahead = reads_ahead(budget)
    run.size = block_size(budget, ahead)
    try:
        with Progress(run, settings.progress, "evaluating"):
            return _tables(by_query, run.grouped(), run, score, settings, ahead)
    except RunNotGrouped:
        with tempfile.TemporaryDirectory(prefix="rankkit-") as directory, \
                Progress(run, settings.progress, "not grouped by query: partitioning"):
            return _tables(by_query, run.partitioned(directory), run, score, settings, ahead)


class Progress:
    """A progress bar of the run's bytes read, while ``enabled``: tqdm's when tqdm is
    installed (``tqdm.auto``: a widget in notebooks), else one line on stderr rewritten in
    place. A context manager that sets ``run.on_read``."""

    def __init__(self, run: RunFile, enabled: bool, what: str):
        self._run, self._enabled, self._done, self._bar = run, enabled, 0, None
        self._label = f"{os.path.basename(run.name)}: {what}"

    def __enter__(self) -> Progress:
        if self._enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=self._run.total, unit="B", unit_scale=True, desc=self._label, leave=False)
            self._run.on_read = self._update
        return self

    def _update(self, size: int) -> None:
        self._done += size
        if self._bar is not None:
            self._bar.update(size)
            return
        total = self._run.total
        share = f"{100 * self._done / total:5.1f}% of {total / 1e6:,.0f} MB" if total else f"{self._done / 1e6:,.0f} MB"
        sys.stderr.write(f"\r{self._label}: {share}")
        sys.stderr.flush()

    def __exit__(self, *exc) -> None:
        self._run.on_read = None
        if self._bar is not None:
            self._bar.close()
        elif self._enabled and self._done:
            sys.stderr.write("\r\033[K")  # the line cleared
            sys.stderr.flush()


def _tables(by_query: _ByQuery, frames: Iterator[pd.DataFrame], run: RunFile, score, settings,
            ahead: bool) -> tuple[list[pd.DataFrame], Found]:
    found = Found(by_query.ids, np.zeros(len(by_query.ids), dtype=bool))
    matched = Matched()  # over the whole run: a block may well have no judged document
    tables = []
    with closing(read_ahead(frames) if ahead else boxed(frames)) as boxes:
        for box in boxes:
            queries = box[0].query_id.cat.categories
            at = by_query.ids.get_indexer(queries)
            found.seen[at[at >= 0]] = True
            found.unjudged.extend(queries[at < 0])
            r = rank_frames(by_query.rows(np.sort(at[at >= 0])), box.pop(), settings,
                            matched=matched)  # the join frees the frame
            tables.append(score(r.take(r.has_qrels)))
            del r
    found.tag = run.tag
    matched.warn()
    if settings.queries == "qrels" and not found.seen.all():
        missing = np.flatnonzero(~found.seen)
        r = rank_frames(by_query.rows(missing), _EMPTY_RUN, settings)
        tables.append(score(r))
    return tables, found


_EMPTY_RUN = read_run(pd.DataFrame({"query_id": pd.Series([], dtype=str), "doc_id": pd.Series([], dtype=str),
                                    "score": pd.Series([], dtype=np.float64)}))


def judged_max_grade(qrels: pd.DataFrame) -> float:
    """The default ``max_grade`` of an evaluation (:meth:`Rankings.max_grade` of its
    :func:`rankkit.rank`): the largest label of the judgments, 1.0 if none is above 0."""
    labels = qrels.relevance.to_numpy()
    top = float(labels.max()) if len(labels) else 0.0
    return top if top > 0 else 1.0


def combine(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """The per-block tables as one, in trec_eval's query order (each block's rows are in
    that order already)."""
    attrs = tables[0].attrs
    if len(tables) > 1:  # pandas would make the ids str, which cannot hold escaped bytes
        table = pd.concat(tables, ignore_index=True)
        table.index = query_index([q for t in tables for q in t.index])
    else:
        table = tables[0]
    table.attrs = dict(attrs)
    order = trec_order(list(table.index))
    if order != list(range(len(order))):
        table = table.iloc[order]
    return table
