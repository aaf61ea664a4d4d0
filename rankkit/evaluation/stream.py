"""Runs larger than memory: a run file evaluated block by block of whole queries.

:func:`rankkit.evaluate` and ``rankkit evaluate`` read a TREC run file this way, so that
peak memory stays near the ``memory`` bound (default :data:`DEFAULT_MEMORY`) whatever the
run's size. The judgments are read whole (they are needed for every query); the run is
read in blocks of whole lines sized to what the bound leaves after them
(:func:`block_size`), and the blocks take the pipeline of every run
(:func:`rankkit.evaluation.pipeline.score_run`: each block's queries joined with their
judgments, measured, and put together in trec_eval's order). Where the bound leaves room
for two blocks, a thread reads the next block while one is joined
(:func:`rankkit.evaluation.memory.read_ahead`). Every per-query value depends only on that
query's lines and judgments and on the evaluation's settings, so the result is the
in-memory one, bit for bit; the ``all`` line is aggregated afterwards over the whole
table, in the same order.

- A run grouped by query (every line of a query together, in any query order: the usual
  case) is read once: :meth:`rankkit.io.RunFile.grouped`.
- A run that is not (a query comes back after another) is noticed when it comes back;
  then the run is read again, each line written to one of 256 temporary Arrow files by a
  hash of its query (:meth:`rankkit.io.RunFile.partitioned`), and the files are
  evaluated a group at a time. Slower (the run is read twice and written once), the same
  result.

What only the whole run knows (the queries found, whether any retrieved document was
judged, the run's tag) is gathered by the pipeline.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator

import pandas as pd

from ..io import RunFile, RunNotGrouped
from .memory import DEFAULT_MEMORY, block_size, parse_memory, reads_ahead
from .pipeline import Measure, QueryJudgments, RunBlock, Scored, boxes, score_run

__all__ = ["DEFAULT_MEMORY", "parse_memory", "block_size", "score_run_file", "Progress"]


def score_run_file(judgments: QueryJudgments, run: RunFile, measure: Measure, settings) -> Scored:
    """``measure`` on the judged queries of a run file read in blocks of whole queries
    (:func:`rankkit.evaluation.pipeline.score_run`), within ``settings.memory`` (bytes;
    :func:`block_size`), with a progress bar if ``settings.progress`` (:class:`Progress`).
    A run not grouped by query is read again, through temporary files."""
    budget = settings.block_budget()  # sized now: the judgments and their index are read
    ahead = reads_ahead(budget)
    run.size, run.threads = block_size(budget, ahead), not ahead  # (a thread reading ahead parses alone)
    try:
        with Progress(run, settings.progress, "evaluating"):
            return score_run(judgments, boxes(_blocks(run.grouped()), ahead), measure, settings, tag=lambda: run.tag)
    except RunNotGrouped:
        with tempfile.TemporaryDirectory(prefix="rankkit-") as directory, \
                Progress(run, settings.progress, "not grouped by query: partitioning"):
            return score_run(judgments, boxes(_blocks(run.partitioned(directory)), ahead), measure, settings,
                             tag=lambda: run.tag)


def _blocks(frames: Iterator[pd.DataFrame]) -> Iterator[RunBlock]:
    """The run's frames (:class:`rankkit.io.RunFile`) as the pipeline's blocks."""
    for frame in frames:
        block = RunBlock.of_frame(frame)
        del frame  # the block alone holds the run's columns
        yield block


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


