"""The front door of ``rk.evaluate``: the in-memory evaluation, or Dask's for Dask inputs.

It sits above both so that neither imports the other: :mod:`rankkit.evaluation` never
imports the Dask backend, and :mod:`rankkit.dask` builds on :mod:`rankkit.evaluation`.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import numpy as np

from .evaluation.arrays import aggregate_column
from .evaluation.score_table import ScoreTable, to_numpy
from .evaluation.scoring import aggregate as _aggregate
from .evaluation.scoring import evaluate as _evaluate
from .evaluation.scoring import is_dask
from .metrics.weighting import all_equal, query_weights, weighted_aggregate, weighted_mean
from .names import parse_metric

__all__ = ["evaluate", "aggregate"]

#: Options of a run file read in blocks on one machine; Dask reads its partitions itself.
_RUN_FILE_ONLY = ("memory", "progress")


@functools.wraps(_evaluate)
def evaluate(qrels, run, metrics, **options):
    prefs = sys.modules.get("rankkit.io.prefs")  # loaded by rk.read_prefs, whose judgments have no other form
    if prefs is not None and isinstance(qrels, prefs.Preferences):  # trec_eval's prefs_* or *_avgjg measures
        from .evaluation.preferences import evaluate_with_preferences

        return evaluate_with_preferences(qrels, run, metrics, **options)
    if is_dask(qrels) or is_dask(run):
        from . import dask as on_dask  # late: only Dask inputs load rankkit.dask (import rankkit never does)

        given = [k for k in _RUN_FILE_ONLY if options.get(k) not in (None, False)]
        if given:
            raise TypeError(f"{', '.join(k + '=' for k in given)} concern a run file read in blocks; Dask inputs are "
                            "read by their partitions: leave it out")
        options = {k: v for k, v in options.items() if k not in _RUN_FILE_ONLY}
        return on_dask.evaluate(qrels, run, metrics, **options)
    return _evaluate(qrels, run, metrics, **options)


def aggregate(table, weights: Any = None):
    """trec_eval's ``all`` line: one value per column over the table's queries (a table of
    several runs, indexed by run and query: one row per run), each query counting with its
    weight.

    Without ``weights`` (or with weights all equal), it is
    :func:`rankkit.evaluation.aggregate`: the mean, the sum for counts, trec_eval's
    geometric mean for gm_map and gm_bpref, the run's tag for runid; a ScoreTable's ``all``.

    Parameters
    ----------
    table : DataFrame of :func:`rankkit.evaluate`, or ScoreTable of :func:`rankkit.evaluate_scores`
        Per-query values, one row per query (index ``query_id``).
    weights : pandas Series or dict by query id, array-like, or None, default=None
        The weight of each query (finite, >= 0, not all 0); ids beyond the table's are
        ignored, a query of the table without a weight is an error. An array is taken in
        the order of a ScoreTable's ``query`` (a DataFrame needs ids). Equal weights are no
        weights: the same numbers, bit for bit.

    Returns
    -------
    pandas.Series (one run) or DataFrame (one row per run)
        With weights, each column as its registry row aggregates it:

        - a mean (P, AP, nDCG, ...): ``sum_q w_q x_q / sum_q w_q``, each sum in query order;
        - a sum (num_ret, num_rel, ...): the sum with the weights scaled to a mean of 1 over
          the n queries of positive weight, ``n sum_q w_q x_q / sum_q w_q``;
        - trec_eval's geometric mean (gm_map, gm_bpref): ``exp(sum_q w_q ln max(x_q, 1e-5) /
          sum_q w_q)``, trec_eval's floor 1e-5 kept;
        - runid and relstring: as without weights.

        Of a ScoreTable, the metrics whose ``all`` pools rows or pairs or weighs queries
        itself (AUC, MSE, MAE, PNR, GAUC) cannot be weighted afterwards from their per-query
        values: a ValueError says to pass ``weights=`` to :func:`rankkit.evaluate_scores`,
        which weighs each row by its query's weight.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"AP": [0.2, 0.5, 0.8]}, index=pd.Index(["q1", "q2", "q3"], name="query_id"))
    >>> aggregate(table).round(4).to_dict()
    {'AP': 0.5}
    >>> aggregate(table, weights={"q1": 1, "q2": 1, "q3": 2}).round(4).to_dict()   # (0.2 + 0.5 + 1.6) / 4
    {'AP': 0.575}
    """
    if weights is None:
        return _aggregate(table)
    if isinstance(table, ScoreTable):
        return _weighted_score_table(table, weights)
    import pandas as pd

    if isinstance(table.index, pd.MultiIndex) and table.index.names[0] == "run":
        rows = {}
        for name in table.index.unique(level="run"):
            part = table.xs(name, level="run")
            part.attrs = table.attrs
            rows[name] = aggregate(part, weights)
        return pd.DataFrame(rows).T.rename_axis("run")
    w = query_weights(weights, table.index, arrays=False)
    if all_equal(w):
        return _aggregate(table)
    specs = table.attrs.get("metrics", {})
    values = {c: _weighted_column(table[c].to_numpy(), w, parse_metric(specs.get(c, c)).info) for c in table.columns}
    numeric = all(isinstance(v, float) for v in values.values())
    return pd.Series(values, index=table.columns, dtype=np.float64 if numeric else object)


def _weighted_column(values: np.ndarray, w: np.ndarray, info):
    """One column's weighted ``all`` value, as :func:`aggregate` documents."""
    value = weighted_aggregate(values, w, info.aggregate)
    return aggregate_column(values, info) if value is None else value  # runid, relstring; pooled ones refused


def _weighted_score_table(table: ScoreTable, weights: Any):
    """A ScoreTable's aggregates with query weights: the means of its rank metrics."""
    import pandas as pd

    w = query_weights(weights, to_numpy(table.query))
    if all_equal(w):
        return _aggregate(table)
    out = {}
    for column, values in table.items():
        info = parse_metric(table.metrics.get(column, column)).info
        if info.aggregate != "mean":
            raise ValueError(f"{column}'s all value is not a mean of its per-query values, which weights could "
                             "weigh afterwards: pass weights= to rk.evaluate_scores, which weighs each row, pair "
                             "and query by its query's weight")
        out[column] = float(weighted_mean(to_numpy(values).astype(np.float64), w))
    return pd.Series(out, dtype=np.float64)
