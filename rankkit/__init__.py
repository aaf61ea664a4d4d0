"""rankkit: evaluate rankings (search results, recommendations), every convention explicit.

Metrics take labels in rank order (a 1-D list gives a float, a 2-D array or a
:class:`Rankings` gives one value per query); ``evaluate`` scores TREC runs against
judgments and returns one row per query.
"""

from .binary import (
    average_precision,
    bpref,
    interpolated_precision,
    judged,
    num_relevant,
    num_relevant_retrieved,
    num_retrieved,
    pr_curve,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
    success,
)
from .cwl import bpm, insq, inst, nerr8, nerr9, nerr10, nerr11, sdcg
from .evaluate import aggregate, evaluate, parse_metric, score
from .graded import cumulative_gain, dcg, err, idcg, ndcg, rbp, rbp_residual
from .io import read_qrels, read_run
from .join import rank
from .overlap import compatibility
from .pairwise import PairCounts, auc, inversions, kendall_distance, kendall_tau, pair_counts, pnr
from .rankings import Rankings, as_rankings
from .unranked import mae, mse

__version__ = "0.1.0"


def __getattr__(name):
    # scipy.stats takes about a second to import; load the statistics module on first use.
    if name == "compare":
        from .stats import compare

        return compare
    raise AttributeError(f"module 'rankkit' has no attribute {name!r}")

__all__ = [
    "Rankings", "as_rankings", "rank",
    "precision", "recall", "r_precision", "success", "average_precision", "reciprocal_rank",
    "bpref", "judged", "num_retrieved", "num_relevant", "num_relevant_retrieved",
    "pr_curve", "interpolated_precision",
    "cumulative_gain", "dcg", "idcg", "ndcg", "rbp", "rbp_residual", "err",
    "sdcg", "nerr8", "nerr9", "nerr10", "nerr11", "insq", "inst", "bpm", "compatibility",
    "kendall_tau", "kendall_distance", "inversions", "pair_counts", "PairCounts", "pnr", "auc",
    "mse", "mae",
    "read_qrels", "read_run", "evaluate", "aggregate", "score", "parse_metric", "compare",
]
