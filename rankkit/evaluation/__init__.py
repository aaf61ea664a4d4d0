"""Scoring a run against judgments: :func:`evaluate` (one row per query), :func:`rank` (the
join, checked), :func:`score` (on Rankings), :func:`aggregate` (the ``all`` line); the
settings of an evaluation, checked once (:mod:`~rankkit.evaluation.settings`); runs larger
than memory read in blocks (:mod:`~rankkit.evaluation.stream`)."""

from .scoring import aggregate, evaluate, rank, score
from .settings import Settings

__all__ = ["evaluate", "rank", "score", "aggregate", "Settings"]
