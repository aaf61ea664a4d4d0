"""Argument checks shared by every public function.

Public functions validate once, with a ``ValueError`` that names the argument and the
value; private kernels trust their input.
"""

from __future__ import annotations

import numbers
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager

import numpy as np


def check_k(k, name: str = "k") -> int | None:
    """Return ``k`` as an int, or None; reject bools, floats, zero and negatives."""
    if k is None:
        return None
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k <= 0:
        raise ValueError(f"{name} must be a positive integer or None, got {k!r}")
    return int(k)


def check_probability(
    p, name: str = "p", *, low_open: bool = True, high_open: bool = False
) -> float:
    """Return ``p`` as a float in (0, 1] (by default); the interval ends are selectable."""
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real):
        raise ValueError(f"{name} must be a number, got {p!r}")
    p = float(p)
    low_ok = p > 0.0 if low_open else p >= 0.0
    high_ok = p < 1.0 if high_open else p <= 1.0
    if not (np.isfinite(p) and low_ok and high_ok):
        interval = ("(" if low_open else "[") + "0, 1" + (")" if high_open else "]")
        raise ValueError(f"{name} must be in {interval}, got {p!r}")
    return p


def check_option(value, options: Iterable[str], name: str) -> str:
    """Return ``value`` if it is one of ``options``; else name the argument and the choices."""
    options = tuple(options)
    if not isinstance(value, str) or value not in options:
        choices = ", ".join(repr(o) for o in options)
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_rel(rel, name: str = "rel") -> float:
    """The relevance threshold: a finite number > 0 (label >= rel counts as relevant)."""
    if isinstance(rel, (bool, np.bool_)) or not isinstance(rel, numbers.Real):
        raise ValueError(f"{name} must be a positive number, got {rel!r}")
    if not (np.isfinite(rel) and rel > 0):
        raise ValueError(f"{name} must be a positive number, got {rel!r}")
    return float(rel)


def check_finite(values: np.ndarray, name: str) -> np.ndarray:
    """Reject NaN and infinities, naming the argument and the first bad value."""
    bad = ~np.isfinite(values)
    if bad.any():
        raise ValueError(f"{name} must be finite, got {values[bad].flat[0].item()!r}")
    return values


def check_nonnegative(values: np.ndarray, name: str) -> np.ndarray:
    """Reject negative labels where a formula cannot take them."""
    if values.size and values.min() < 0:
        raise ValueError(f"{name} must be non-negative, got {values.min().item()!r}")
    return values


def check_n_relevant(n_relevant, n_queries: int, name: str = "n_relevant") -> np.ndarray | None:
    """``None``, or a non-negative int (or one per query) as an int64 array of shape (n_queries,)."""
    if n_relevant is None:
        return None
    arr = np.asarray(n_relevant)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"{name} must be a non-negative integer, got {n_relevant!r}")
    if arr.ndim == 0:
        arr = np.full(n_queries, arr)
    if arr.shape != (n_queries,):
        raise ValueError(
            f"{name} must be a scalar or have one value per query ({n_queries}), got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.round(arr)):
        raise ValueError(f"{name} must be a non-negative integer, got {n_relevant!r}")
    return arr.astype(np.int64)


def check_depth(depth, name: str = "depth") -> int:
    """A depth a user model cannot do without: a positive integer (:func:`check_k`), not None."""
    depth = check_k(depth, name)
    if depth is None:
        raise ValueError(f"{name} must be a positive integer, got None")
    return depth


def is_real(x) -> bool:
    """Whether ``x`` is a real number and not a bool (``True`` is no probability)."""
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def is_int(x) -> bool:
    """Whether ``x`` is an integer and not a bool."""
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))


def is_number(value) -> bool:
    """Whether ``float(value)`` works and ``value`` is not text (``"1"`` is an id, not a number)."""
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, (str, bytes))


def check_number(value, name: str) -> float:
    """Return ``value`` as a float: a finite real number, not a bool."""
    if not is_real(value) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def check_positive(value, name: str) -> float:
    """Return ``value`` as a float: a finite number > 0 (:func:`check_number` first)."""
    number = check_number(value, name)
    if number <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return number


#: The refusal of ``ties='average'`` by a metric that is not linear in the labels, in the
#: wording of the binary family ("per_rank") and of the graded and C/W/L ones ("labels").
_NO_TIES = {
    "per_rank": "ties='average' is not supported by {name}; its value is not linear in the "
                "per-rank labels, so rank with ties='docno', 'optimistic' or 'pessimistic'",
    "labels": "{name} does not support ties='average' (it is not linear in the labels); "
              "rank with ties='docno', 'optimistic' or 'pessimistic'",
}


def check_no_ties(rankings, name: str, wording: str = "labels") -> None:
    """Refuse rankings ranked with ``ties='average'`` (``rankings.ties`` is set) for metric ``name``."""
    if rankings.ties is not None:
        raise ValueError(_NO_TIES[wording].format(name=name))


def check_nonnegative_number(value, name: str) -> float:
    """Return ``value`` as a float: a finite real number >= 0."""
    if not (is_real(value) and np.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    return float(value)


def check_count(value, name: str) -> int:
    """Return ``value`` as an int: an integer >= 0, not a bool."""
    if not is_int(value) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def check_bool(value, name: str) -> bool:
    """Return ``value`` as a bool: True or False (numpy's too), nothing else."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_gain(gain, options: Iterable[str], name: str = "gain"):
    """Return ``gain`` if it is one of ``options`` (``"linear"``, ``"exp"``) or a mapping
    label -> gain with non-negative finite labels and finite gains."""
    if isinstance(gain, str):
        return check_option(gain, options, name)
    if not isinstance(gain, Mapping):
        raise ValueError(f"{name} must be 'linear', 'exp' or a mapping label -> gain, got {gain!r}")
    for label, value in gain.items():
        if not (is_real(label) and np.isfinite(label) and label >= 0):
            raise ValueError(f"{name} mapping keys must be non-negative finite labels, got {label!r}")
        if not (is_real(value) and np.isfinite(value)):
            raise ValueError(
                f"{name} mapping values must be finite numbers, got {value!r} for label {label!r}"
            )
    return gain


def check_base(base) -> float:
    """The base of a logarithmic discount: a finite number > 1."""
    if not (is_real(base) and np.isfinite(base) and base > 1):
        raise ValueError(f"base must be a finite number > 1, got {base!r}")
    return float(base)


def check_max_grade(max_grade, allowed: str = "a positive number or None") -> float:
    """The largest label of a graded scale: a finite number > 0 (``allowed`` says what else
    the caller takes, for the message)."""
    if not (is_real(max_grade) and np.isfinite(max_grade) and max_grade > 0):
        raise ValueError(f"max_grade must be {allowed}, got {max_grade!r}")
    return float(max_grade)


def check_recall_levels(recall_levels, name: str = "recall_levels") -> np.ndarray:
    """Recall levels as a 1-D float64 array of finite numbers in [0, 1]."""
    try:
        levels = np.atleast_1d(np.asarray(recall_levels, dtype=np.float64))
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers in [0, 1], got {recall_levels!r}") from None
    if levels.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {levels.shape}")
    check_finite(levels, name)
    bad = (levels < 0) | (levels > 1)
    if bad.any():
        raise ValueError(f"{name} must be in [0, 1], got {float(levels[bad][0])!r}")
    return levels


#: The warnings given so far (message, category, file, line): see :func:`warn_user`.
_SHOWN: set = set()


def warn_user(message: str, category: type[Warning] = UserWarning) -> None:
    """A warning at the first caller's line outside rankkit, shown once per line and
    message where Python's filters would show it once there (their default).

    Python forgets which warnings it has shown whenever a ``catch_warnings`` block ends,
    and pandas opens one in many of its calls: a loop calling :func:`rankkit.evaluate`
    would repeat the same warning on every call. rankkit keeps its own record instead.
    Filters that say otherwise (``"always"``, ``"error"``, ``"ignore"``, a
    ``catch_warnings(record=True)`` with ``simplefilter("always")``) are followed."""
    level = outside_rankkit()
    frame = sys._getframe(level - 1)
    module, line = frame.f_globals.get("__name__", ""), frame.f_lineno
    key = (message, category, frame.f_code.co_filename, line)
    if key in _SHOWN and _action(message, category, module, line) in ("default", "module", "once"):
        return
    _SHOWN.add(key)
    warnings.warn(message, category, stacklevel=level)


def _action(message: str, category: type[Warning], module: str, line: int) -> str:
    """The action of Python's first warnings filter that matches (``warnings.filters``)."""
    for action, text, kind, where, at in warnings.filters:
        if ((text is None or text.match(message)) and issubclass(category, kind)
                and (where is None or where.match(module)) and at in (0, line)):
            return action
    return warnings.defaultaction


def outside_rankkit() -> int:
    """The ``stacklevel`` that makes a warning point at the first caller outside rankkit,
    for a ``warnings.warn`` in the function that calls this."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "rankkit":
        frame, level = frame.f_back, level + 1
    return level


@contextmanager
def warnings_named(name: str | None) -> Iterator[None]:
    """Within it, rankkit's warnings (UserWarning) say what they concern: ``name: ...`` (a
    run's file among several evaluated at once); None leaves them as they are."""
    if name is None:
        yield
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        message = f"{name}: {w.message}" if issubclass(w.category, UserWarning) else w.message
        warnings.warn_explicit(message, w.category, w.filename, w.lineno)
