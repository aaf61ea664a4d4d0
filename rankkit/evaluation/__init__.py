"""Scoring a run against judgments: :func:`evaluate` (one row per query), :func:`score` (on
Rankings), :func:`aggregate` (the ``all`` line); runs larger than memory read in blocks
(:mod:`~rankkit.evaluation.stream`)."""

from .scoring import aggregate, evaluate, score

__all__ = ["evaluate", "score", "aggregate"]
