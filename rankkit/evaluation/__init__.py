"""Scoring a run against judgments: :func:`evaluate` (one row per query), :func:`rank` (the
join, checked), :func:`score` (on Rankings), :func:`aggregate` (the ``all`` line); the
settings of an evaluation, checked once (:mod:`~rankkit.evaluation.settings`); runs larger
than memory read in blocks (:mod:`~rankkit.evaluation.stream`, within the bound of
:mod:`~rankkit.evaluation.memory`). Without frames: the values as arrays
(:mod:`~rankkit.evaluation.arrays`) and two TREC files evaluated on arrays
(:mod:`~rankkit.evaluation.frameless`, the command line's path)."""

import importlib

__all__ = ["evaluate", "rank", "score", "aggregate", "Settings"]

#: Public name -> the module that defines it, imported on first use (the settings and the
#: command line's path load without pandas).
_PUBLIC = {"evaluate": "scoring", "rank": "scoring", "score": "scoring", "aggregate": "scoring",
           "Settings": "settings"}


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
