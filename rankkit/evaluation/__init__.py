"""Scoring a run against judgments: :func:`evaluate` (one row per query), :func:`rank` (the
join, checked), :func:`score` (on Rankings), :func:`aggregate` (the ``all`` line); the
settings of an evaluation, checked once (:mod:`~rankkit.evaluation.settings`); runs larger
than memory read in blocks (:mod:`~rankkit.evaluation.stream`, within the bound of
:mod:`~rankkit.evaluation.memory`). Without frames: the values as arrays
(:mod:`~rankkit.evaluation.arrays`) and two TREC files evaluated on arrays
(:mod:`~rankkit.evaluation.frameless`, the command line's path). A model's predictions as
three 1-D arrays (labels, scores, query ids): :func:`evaluate_scores`
(:mod:`~rankkit.evaluation.model_scores`), its :class:`ScoreTable`."""

from .._lazy import attach

__all__ = ["evaluate", "rank", "score", "aggregate", "Settings", "evaluate_scores", "ScoreTable"]

# The settings and the command line's path load without pandas: each name on first use.
__getattr__, __dir__ = attach(__name__, {"evaluate": ".scoring", "rank": ".scoring", "score": ".scoring",
                                         "aggregate": ".scoring", "Settings": ".settings",
                                         "evaluate_scores": ".model_scores", "ScoreTable": ".score_table"})
