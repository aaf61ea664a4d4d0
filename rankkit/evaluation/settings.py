"""The settings of one evaluation, checked once: :class:`Settings`.

:func:`rankkit.evaluate`, :func:`rankkit.dask.evaluate` and trec_eval's printers take every
field as a keyword (their signatures are built from the fields: :func:`takes_options`), or
one :class:`Settings` as ``settings=``; :func:`rankkit.rank` and the command line build one
from their own arguments. It is passed down: to the join (``ties``, ``depth``,
``judged_only``), to the run read in blocks (:mod:`rankkit.evaluation.stream`: ``memory``,
``progress``), to the scoring (``rel``, ``max_grade``, ``n_docs``) and to trec_eval's
printer, through the one pipeline (:mod:`rankkit.evaluation.pipeline`). Every check of an
option is here, and only here.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from .._validation import check_k, check_option, check_rel
from ..join import TIES
from .memory import parse_memory

__all__ = ["Settings", "QUERY_POLICIES", "TIE_POLICIES", "takes_options"]

#: Which queries an evaluation scores (see :func:`rankkit.evaluate`).
QUERY_POLICIES = ("run", "qrels")
#: The orders of documents with equal scores (see :func:`rankkit.rank`).
TIE_POLICIES = TIES


@dataclass(frozen=True)
class Settings:
    """The options of one evaluation, each checked (and normalised) when it is built.

    Parameters
    ----------
    ties : {"docno", "optimistic", "pessimistic", "average"}, default="docno"
        Order of documents with equal scores (:func:`rankkit.rank`).
    queries : {"run", "qrels"}, default="run"
        Which queries are scored (:func:`rankkit.evaluate`).
    depth : int or None, default=None
        Keep the top ``depth`` documents of each query (trec_eval ``-M``).
    rel : float or None, default=None
        Relevance level of the binary metrics (trec_eval ``-l``); None: each metric's own.
    judged_only : bool, default=False
        Score only the judged documents of each ranking (trec_eval ``-J``).
    n_docs : int or None, default=None
        Documents in the collection, for ``utility`` (trec_eval ``-N``).
    max_grade : float or None, default=None
        Maximum grade of ERR and the C/W/L metrics; None: the judgments' largest label.
    columns : dict or None, default=None
        Other column names of the inputs (:func:`rankkit.read_qrels`).
    memory : int, str or None, default=None
        Bound on the memory a run file read in blocks takes (its blocks and their
        evaluation, above what the process holds when they are sized); held in bytes
        (:func:`rankkit.evaluation.memory.parse_memory`: None is its default).
    memory_in_use : callable or None, default=None
        ``memory_in_use()`` -> bytes the process holds when the blocks are sized, taken
        from the bound: the command's :func:`rankkit.process.memory_in_use` (its resident
        size), so that ``--memory`` bounds its whole process. None: nothing is taken.
    progress : bool, default=False
        A progress bar while a run file is read.

    Raises
    ------
    ValueError
        An option out of its range, named as the keyword that gave it.

    Examples
    --------
    >>> Settings(ties="average", depth=10).ties
    'average'
    >>> Settings(queries="all")
    Traceback (most recent call last):
    ...
    ValueError: queries must be one of 'run', 'qrels', got 'all'
    """

    ties: str = "docno"
    queries: str = "run"
    depth: int | None = None
    rel: float | None = None
    judged_only: bool = False
    n_docs: int | None = None
    max_grade: float | None = None
    columns: Mapping[str, str] | None = None
    memory: int | str | None = None
    progress: bool = False
    memory_in_use: Callable[[], int] | None = None

    def __post_init__(self) -> None:
        checked = {
            "queries": check_option(self.queries, QUERY_POLICIES, "queries"),
            "ties": check_option(self.ties, TIE_POLICIES, "ties"),
            "rel": None if self.rel is None else check_rel(self.rel),
            "max_grade": _max_grade(self.max_grade),
            "depth": check_k(self.depth, "depth"),
            "judged_only": _flag(self.judged_only, "judged_only"),
            "memory": parse_memory(self.memory),
            "n_docs": _count(self.n_docs, "n_docs"),
            "columns": _columns(self.columns),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @classmethod
    def of(cls, settings: Settings | None, **options: Any) -> Settings:
        """The settings of a call: ``settings`` as given, or the keyword ``options`` (the
        sugar of :func:`rankkit.evaluate`); an option set both ways is refused.

        Examples
        --------
        >>> Settings.of(None, ties="average").ties
        'average'
        >>> Settings.of(Settings(depth=10), ties="average")
        Traceback (most recent call last):
        ...
        ValueError: pass the options either as keywords or in settings=, not both (ties given beside settings=)
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            close = difflib.get_close_matches(unknown[0], sorted(known), n=1)
            hint = f" (did you mean {close[0]}=?)" if close else ""
            raise TypeError(f"unknown option {unknown[0]}={hint}; the options are those of rankkit.Settings: "
                            f"{', '.join(f.name for f in fields(cls))}")
        if settings is None:
            return cls(**options)
        if not isinstance(settings, Settings):
            raise TypeError(f"settings must be a rankkit.Settings, got {type(settings).__name__}")
        defaults = {f.name: f.default for f in fields(cls)}
        given = sorted(name for name, value in options.items() if value is not defaults[name]
                       and not (isinstance(value, (str, int, float, bool)) and value == defaults[name]))
        if given:
            raise ValueError(f"pass the options either as keywords or in settings=, not both ({', '.join(given)} "
                             "given beside settings=)")
        return settings

    def block_budget(self) -> int:
        """Bytes the blocks of a run file may take, sized now: the bound, less what the
        process holds (:attr:`memory_in_use`)."""
        return self.memory - (self.memory_in_use() if self.memory_in_use is not None else 0)

    def with_max_grade(self, max_grade: float) -> Settings:
        """These settings with the maximum grade the evaluation found (the judgments'
        largest label), where none was given."""
        return self if self.max_grade is not None else replace(self, max_grade=max_grade)


def takes_options(*, leave_out: Iterable[str] = ("memory_in_use",)) -> Callable:
    """The options of :class:`Settings` as keywords of a function ``f(..., settings=None,
    **options)``, which builds its settings with :meth:`Settings.of`.

    Its signature (``help()``, ``inspect.signature``, editors) shows every field of
    Settings as a keyword-only parameter with its default, but those in ``leave_out``, which
    are refused: so an option is declared once, in :class:`Settings`, and every entry point
    takes it with nothing else to change. Keyword-only parameters the function declares
    itself stay before them.

    Examples
    --------
    >>> @takes_options(leave_out=("memory", "progress", "memory_in_use"))
    ... def depth_of(run, *, settings=None, **options):
    ...     return Settings.of(settings, **options).depth
    >>> depth_of("run", depth=10)
    10
    >>> "ties" in inspect.signature(depth_of).parameters
    True
    >>> depth_of("run", memory="1GB")
    Traceback (most recent call last):
    ...
    TypeError: depth_of() takes no memory= option
    """
    leave_out = tuple(leave_out)

    def decorate(function: Callable) -> Callable:
        @functools.wraps(function)
        def call(*args, **kwargs):
            for name in leave_out:
                if name in kwargs:
                    raise TypeError(f"{function.__name__}() takes no {name}= option")
            return function(*args, **kwargs)

        signature = inspect.signature(function)
        own = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        names = {p.name for p in own}
        options = [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type)
                   for f in fields(Settings) if f.name not in leave_out and f.name not in names]
        at = next((i for i, p in enumerate(own) if p.name == "settings"), len(own))
        call.__signature__ = signature.replace(parameters=[*own[:at], *options, *own[at:]])
        return call

    return decorate


def _count(value, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def _columns(value) -> Mapping[str, str] | None:
    if value is not None and not (isinstance(value, Mapping) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items())):
        raise ValueError(f"columns must be a mapping of column names to rankkit's names, got {value!r}")
    return value


def _max_grade(value) -> float | None:
    if value is not None and not (isinstance(value, (int, float, np.number)) and np.isfinite(value) and value > 0):
        raise ValueError(f"max_grade must be a positive number, got {value!r}")
    return value


def _flag(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)
