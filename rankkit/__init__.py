"""rankkit: evaluate rankings (search results, recommendations), every convention explicit.

Metrics take labels in rank order (a 1-D list gives a float, a 2-D array or a
:class:`Rankings` gives one value per query); ``evaluate`` scores TREC runs against
judgments and returns one row per query.

The package is layered, each layer importing only those below it::

    cli               the command line (``rankkit evaluate``, ``rankkit compare``)
    fusion            rk.fuse, rk.optimize_fusion: one run from several (ranx's methods)
    recommender       rk.recommendations, rk.beyond_accuracy: coverage, novelty, diversity, ...
    api               rk.evaluate: in memory, or rankkit.dask for Dask inputs
    dask              runs beyond one machine
    stats, trec_eval  comparing systems; trec_eval's output, byte for byte
    power             how many queries an experiment needs (through stats)
    plot/             figures
    evaluation/       evaluate, score, rank, aggregate; settings checked once; runs read in blocks;
                      evaluate_scores (a model's labels, scores, query ids; any array library)
    names/            one record per metric: its function, names, typed parameters
    join              a run and its judgments become Rankings
    metrics/          the metric families, on Rankings
    report            tables of a comparison (Markdown, LaTeX, text, styled)
    rankings          the data model
    ops/              the operations every metric is written with (one order of summation)
    io/, _validation  reading judgments and runs; argument checks

Beside the layers, ``rankkit.teaching`` holds what the lessons use (the notebooks'
explorers, the articles they reproduce); it imports the engine, never the other way round.

Every public name below is imported on first use, so ``import rankkit`` costs a few
milliseconds and the command line loads only what a command needs; it changes nothing
else in the interpreter (no import hook).
"""

from __future__ import annotations

from ._lazy import attach

__version__ = "0.1.0"

#: Public name -> the module that defines it (imported when the name is first used).
_PUBLIC: dict[str, str] = {
    **dict.fromkeys(
        ("average_precision", "bpref", "interpolated_precision", "judged", "num_relevant",
         "num_relevant_retrieved", "num_retrieved", "pr_curve", "precision", "r_precision", "recall",
         "reciprocal_rank", "success", "fallout"), ".metrics.binary"),
    **dict.fromkeys(("bpm", "insq", "inst", "nerr8", "nerr9", "nerr10", "nerr11", "sdcg"), ".metrics.cwl"),
    **dict.fromkeys(("cumulative_gain", "dcg", "err", "idcg", "ndcg", "rbp", "rbp_residual"),
                    ".metrics.graded"),
    **dict.fromkeys(("PairCounts", "auc", "gauc", "inversions", "kendall_distance", "kendall_tau", "pair_counts",
                     "pnr"), ".metrics.pairwise"),
    "compatibility": ".metrics.overlap",
    "lrap": ".metrics.label_ranking",
    **dict.fromkeys(("average_relevance_position", "position_weighted_average", "ordered_pair_accuracy",
                     "query_auc", "pfound", "log_loss"), ".metrics.ltr"),
    "mae": ".metrics.unranked",
    "mse": ".metrics.unranked",
    "Rankings": ".rankings",
    "as_rankings": ".rankings",
    "read_qrels": ".io",
    "read_run": ".io",
    "read_prefs": ".io",
    "read_subtopic_qrels": ".io",
    **dict.fromkeys(("rank", "score", "evaluate_scores"), ".evaluation"),
    "evaluate": ".api",  # the front door: in memory, or rankkit.dask for Dask inputs
    "aggregate": ".api",  # rankkit.evaluation's, with query weights
    "parse_metric": ".names",
    "compare": ".stats",
    **dict.fromkeys(("fuse", "optimize_fusion"), ".fusion"),
    "Settings": ".evaluation.settings",
    **dict.fromkeys(("Recommendations", "recommendations", "catalog_coverage", "exposure_entropy", "gini_index",
                     "average_popularity", "long_tail_share", "novelty", "intra_list_diversity", "serendipity",
                     "beyond_accuracy"), ".recommender"),
}

#: Submodules reachable as attributes (``rankkit.plot``) without importing them first.
_SUBMODULES = frozenset({"cli", "dask", "evaluation", "fusion", "io", "join", "metrics", "names", "plot", "power",
                         "rankings", "recommender",
                         "report", "stats", "trec_eval"})

__all__ = [
    "Rankings", "as_rankings", "rank",
    "precision", "recall", "r_precision", "success", "average_precision", "reciprocal_rank",
    "bpref", "judged", "fallout", "num_retrieved", "num_relevant", "num_relevant_retrieved",
    "pr_curve", "interpolated_precision",
    "cumulative_gain", "dcg", "idcg", "ndcg", "rbp", "rbp_residual", "err",
    "sdcg", "nerr8", "nerr9", "nerr10", "nerr11", "insq", "inst", "bpm", "compatibility",
    "kendall_tau", "kendall_distance", "inversions", "pair_counts", "PairCounts", "pnr", "auc", "gauc", "lrap",
    "mse", "mae",
    "average_relevance_position", "position_weighted_average", "ordered_pair_accuracy", "query_auc", "pfound",
    "log_loss",
    "read_qrels", "read_run", "evaluate", "evaluate_scores", "aggregate", "score", "parse_metric", "compare",
    "read_prefs", "read_subtopic_qrels",
    "Settings", "fuse", "optimize_fusion",
    "Recommendations", "recommendations", "catalog_coverage", "exposure_entropy", "gini_index",
    "average_popularity", "long_tail_share", "novelty", "intra_list_diversity", "serendipity", "beyond_accuracy",
]

__getattr__, __dir__ = attach(__name__, _PUBLIC, _SUBMODULES)
