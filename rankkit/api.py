"""The front door of ``rk.evaluate``: the in-memory evaluation, or Dask's for Dask inputs.

It sits above both so that neither imports the other: :mod:`rankkit.evaluation` never
imports the Dask backend, and :mod:`rankkit.dask` builds on :mod:`rankkit.evaluation`.
"""

from __future__ import annotations

import functools

from .evaluation.scoring import evaluate as _evaluate
from .evaluation.scoring import is_dask

__all__ = ["evaluate"]

#: Options of a run file read in blocks on one machine; Dask reads its partitions itself.
_RUN_FILE_ONLY = ("memory", "progress")


@functools.wraps(_evaluate)
def evaluate(qrels, run, metrics, **options):
    if is_dask(qrels) or is_dask(run):
        from . import dask as on_dask  # late: only Dask inputs load rankkit.dask (import rankkit never does)

        given = [k for k in _RUN_FILE_ONLY if options.get(k) not in (None, False)]
        if given:
            raise TypeError(f"{', '.join(k + '=' for k in given)} concern a run file read in blocks; Dask inputs are "
                            "read by their partitions: leave it out")
        options = {k: v for k, v in options.items() if k not in _RUN_FILE_ONLY}
        return on_dask.evaluate(qrels, run, metrics, **options)
    return _evaluate(qrels, run, metrics, **options)
