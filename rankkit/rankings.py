"""The data model: many ranked lists as dense, zero-padded arrays.

A :class:`Rankings` holds one row per query: the judged label at each rank, whether
that rank was judged, how many documents were retrieved, and every judged label of the
query sorted descending (the *ideal* ranking, which gives R and ideal DCG). Every metric
in rankkit is a function of a ``Rankings`` computed with array operations over all
queries at once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from itertools import chain
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from ._validation import check_finite, check_nonnegative
from .ops.primitives import as_float, count, device, group_mean, is_numpy, namespace

if TYPE_CHECKING:  # pandas on first use: the command line's path never needs it
    import pandas as pd

FloatArray = np.ndarray
#: What a metric returns: a float for one list, an array of one value per query for many.
FloatOrArray = float | np.ndarray


@dataclass(frozen=True, eq=False)
class Rankings:
    """Ranked lists of many queries, as zero-padded arrays.

    Attributes
    ----------
    labels : ndarray of float64, shape (n_queries, depth)
        The judged label of the document at each rank; 0 for unjudged documents,
        for documents judged below 0 ("pooled but not judged") and for padding.
    judged : ndarray of bool, shape (n_queries, depth)
        Whether the document at that rank was judged (label >= 0 in the qrels).
    lengths : ndarray of int64, shape (n_queries,)
        How many documents each query retrieved (the unpadded row length).
    ideal : ndarray of float64, shape (n_queries, max_judged)
        Every judged label of the query, retrieved or not, sorted descending and
        zero-padded: R = ``(ideal >= rel).sum(1)``, and ideal DCG comes from it.
    n_judged : ndarray of int64, shape (n_queries,)
        How many documents of each query are judged (the unpadded length of ``ideal``).
    query_ids : pandas.Index
        One id per row.
    ties : ndarray of int64, shape (n_queries, depth), or None
        Tie-group id of each rank, set only by ``ties="average"``: documents sharing an id
        are tied and sit at consecutive ranks; metrics that allow it report their
        expected value over all orders of each group (see :meth:`expected`).
    scalar : bool
        True when built from a single 1-D list: metrics then return a Python float.
    has_run, has_qrels : ndarray of bool, shape (n_queries,), or None
        Set by :func:`rank`: whether the query appears in the run / in the judgments
        (``evaluate`` uses them for its ``queries=`` policy). None for bare arrays.
    pooled : ndarray of bool, shape (n_queries, depth), or None
        Whether the document at that rank is in the qrels at all, judged or with a label
        below 0 ("pooled but not judged", trec_eval's -2, which infAP and relstring tell
        apart from documents outside the pool). None means the same as ``judged``.
    run_name : str or None
        The run's tag (trec_eval's ``runid``), set by :func:`rank`.
    item_weights : ndarray of float64, shape (n_queries, depth), or None
        The weight of the document at each rank (0 in the padding), set by
        ``evaluate_scores(item_weights=...)``: TensorFlow Ranking's per-example weights,
        which DCG, nDCG and AP weigh their items by (:mod:`rankkit.metrics.weighting`).

    Examples
    --------
    >>> r = as_rankings([[3, 2, 0], [0, 1]])
    >>> r.labels
    array([[3., 2., 0.],
           [0., 1., 0.]])
    >>> r.lengths, r.n_relevant()
    (array([3, 2]), array([2, 1]))
    """

    labels: np.ndarray
    judged: np.ndarray
    lengths: np.ndarray
    ideal: np.ndarray
    n_judged: np.ndarray
    query_ids: pd.Index
    ties: np.ndarray | None = None
    scalar: bool = False
    has_run: np.ndarray | None = None
    has_qrels: np.ndarray | None = None
    pooled: np.ndarray | None = None
    run_name: str | None = None
    item_weights: np.ndarray | None = None
    # values computed from these rankings and shared by the metrics that need them (derived)
    _derived: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    # an array of the library the labels came in, when as_rankings moved them to NumPy:
    # results go back to that library (see result)
    _like: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n, depth = self.labels.shape
        if self.judged.shape != (n, depth):
            raise ValueError(f"judged must have shape {(n, depth)}, got {self.judged.shape}")
        if self.lengths.shape != (n,) or self.n_judged.shape != (n,):
            raise ValueError("lengths and n_judged must have one value per query")
        if self.ideal.ndim != 2 or self.ideal.shape[0] != n:
            raise ValueError(f"ideal must have {n} rows, got shape {self.ideal.shape}")
        n_ids = self.query_ids.shape[0] if hasattr(self.query_ids, "shape") else len(self.query_ids)
        if n_ids != n:
            raise ValueError(f"query_ids must have {n} entries, got {n_ids}")
        if self.ties is not None and self.ties.shape != (n, depth):
            raise ValueError(f"ties must have shape {(n, depth)}, got {self.ties.shape}")
        for name in ("has_run", "has_qrels"):
            flags = getattr(self, name)
            if flags is not None and flags.shape != (n,):
                raise ValueError(f"{name} must have shape {(n,)}, got {flags.shape}")
        if self.pooled is not None and self.pooled.shape != (n, depth):
            raise ValueError(f"pooled must have shape {(n, depth)}, got {self.pooled.shape}")
        if self.item_weights is not None and tuple(self.item_weights.shape) != (n, depth):
            raise ValueError(f"item_weights must have shape {(n, depth)}, got {tuple(self.item_weights.shape)}")

    @property
    def n_queries(self) -> int:
        return self.labels.shape[0]

    @property
    def depth(self) -> int:
        return self.labels.shape[1]

    def __len__(self) -> int:
        return self.n_queries

    def __repr__(self) -> str:
        ties = "average" if self.ties is not None else None
        return f"Rankings(n_queries={self.n_queries}, depth={self.depth}, ties={ties})"

    @property
    def in_pool(self) -> np.ndarray:
        """Whether the document at each rank is in the qrels (judged, or labelled below 0)."""
        return self.judged if self.pooled is None else self.pooled

    def relevant(self, rel: float = 1) -> np.ndarray:
        """Boolean matrix: the document at each rank has label >= ``rel``."""
        return self.labels >= rel

    def n_relevant(self, rel: float = 1) -> np.ndarray:
        """R per query: how many judged documents have label >= ``rel``."""
        return count(self.ideal >= rel)

    def expected(self, values: np.ndarray) -> np.ndarray:
        """Replace each per-rank value by its mean over the rank's tie group.

        For a metric that is a sum of per-rank values times per-rank weights (P, R, CG, DCG,
        success via the count of relevant documents), this gives its exact expected value over
        all orders of every tied group. Without tie groups, ``values`` is returned unchanged.
        """
        if self.ties is None:
            return values
        return group_mean(self.ties, values)

    def derived(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``, once for these rankings: a value several metrics derive from them
        (the Mann-Whitney counts of AUC and GAUC, the pair counts of PNR and its total).
        Rankings made from these by ``dataclasses.replace`` start with none."""
        if key not in self._derived:
            self._derived[key] = compute()
        return self._derived[key]

    def judged_only(self) -> Rankings:
        """The same queries with only their judged documents, in their order (trec_eval
        ``-J``; ir_measures ``judged_only=True``): unjudged documents leave the ranking, and
        the documents below them move up.

        Examples
        --------
        >>> import pandas as pd
        >>> r = Rankings(np.array([[1., 0, 2]]), np.array([[True, False, True]]), np.array([3]),
        ...              np.array([[2., 1]]), np.array([2]), pd.Index(["q"]))
        >>> r.judged_only().labels, r.judged_only().lengths
        (array([[1., 2., 0.]]), array([2]))
        """
        order = np.argsort(~self.judged, axis=1, kind="stable")  # judged first, in rank order
        lengths = self.judged.sum(axis=1).astype(np.int64)
        inside = np.arange(self.depth) < lengths[:, None]

        def moved(matrix):
            return None if matrix is None else np.take_along_axis(matrix, order, axis=1)

        return replace(self, labels=np.where(inside, moved(self.labels), 0.0), judged=inside, lengths=lengths,
                       ties=moved(self.ties), pooled=None if self.pooled is None else moved(self.pooled) & inside,
                       item_weights=None if self.item_weights is None
                       else np.where(inside, moved(self.item_weights), 0.0))

    def max_grade(self) -> float:
        """The largest judged label (1.0 when there is none above 0): the default
        ``max_grade`` of graded metrics in an evaluation."""
        top = float(namespace(self.ideal).max(self.ideal)) if self.ideal.shape[1] and self.n_queries else 0.0
        return top if top > 0 else 1.0

    def take(self, rows: np.ndarray) -> Rankings:
        """The queries ``rows`` selects (a boolean mask or positions), every per-query field
        sliced alike."""
        changes = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, _pandas_or_array("Index")) and len(value) == self.n_queries and np.ndim(value) >= 1:
                changes[f.name] = value[rows]
        return replace(self, **changes)

    def result(self, values: np.ndarray) -> float | np.ndarray:
        """A Python float for a single 1-D list, else the per-query array (of the
        rankings' array library)."""
        if not is_numpy(self.labels):
            values = as_float(values, self.labels)
            return values[0] if self.scalar else values
        values = np.asarray(values, dtype=np.float64)
        if self._like is not None:  # labels of another library, computed on NumPy: returned there
            values = namespace(self._like).asarray(values, device=device(self._like))
            return values[0] if self.scalar else values
        return float(values[0]) if self.scalar else values


RankingsLike = Union[Rankings, np.ndarray, "list[Any]"]


def as_rankings(x: Any, *, any_library: bool = False) -> Rankings:
    """Turn labels in rank order into a :class:`Rankings` (a ``Rankings`` passes through).

    Parameters
    ----------
    x : Rankings, 1-D array-like, 2-D array, or list of lists
        A 1-D list is one ranking (metrics then return a float); a 2-D array holds one
        ranking per row, padded with 0; a list of lists may be ragged. A bare array is
        taken to hold every judged document of its query: its labels, sorted, are the
        ideal ranking, and R counts them. Labels must be finite and non-negative.
        An array of another array-API library (JAX, PyTorch, CuPy, array-api-strict):
        the metric's result comes back in that library, on its device (a 1-D array gives
        a 0-d array).
    any_library : bool, default=False
        For a metric whose kernel runs on any array library: an array of another library
        stays there (a :class:`Rankings` of its arrays) and the kernel runs on it. Otherwise
        it is computed on NumPy and only the result goes back to its library.

    Returns
    -------
    Rankings

    Examples
    --------
    >>> r = as_rankings([1, 0, 2])
    >>> r.ideal, r.scalar
    (array([[2., 1., 0.]]), True)
    >>> as_rankings([[1], [0, 0, 1]]).lengths
    array([1, 3])
    """
    if isinstance(x, Rankings):
        return x
    if _other_library(x):
        if any_library:
            return _as_rankings_xp(x)
        r = as_rankings(_to_numpy(x))
        object.__setattr__(r, "_like", x)
        return r
    scalar = False
    if isinstance(x, (list, tuple)) and any(
        isinstance(row, (list, tuple, *_pandas_or_array("Series"))) for row in x
    ):
        rows = [np.asarray(row, dtype=np.float64).ravel() for row in x]
        lengths = np.fromiter((len(row) for row in rows), dtype=np.int64, count=len(rows))
        depth = int(lengths.max()) if len(rows) else 0
        labels = np.zeros((len(rows), depth))
        mask = np.arange(depth) < lengths[:, None]
        labels[mask] = np.fromiter(chain.from_iterable(rows), dtype=np.float64, count=int(lengths.sum()))
    else:
        try:
            labels = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"labels must be numbers in rank order, got {type(x).__name__}: {exc}") from None
        if labels.ndim == 1:
            labels, scalar = labels[None, :], True
        elif labels.ndim != 2:
            raise ValueError(f"labels must be 1-D or 2-D, got {labels.ndim}-D")
        lengths = np.full(labels.shape[0], labels.shape[1], dtype=np.int64)
        mask = np.ones(labels.shape, dtype=bool)
    check_finite(labels, "labels")
    check_nonnegative(labels, "labels")
    labels = np.ascontiguousarray(labels)
    ideal = -np.sort(-labels, axis=1)
    return Rankings(
        labels=labels,
        judged=mask,
        lengths=lengths,
        ideal=ideal,
        n_judged=lengths.copy(),
        query_ids=query_positions(labels.shape[0]),
        scalar=scalar,
    )


def query_positions(n: int) -> Any:
    """Query ids 0..n-1: a pandas RangeIndex named ``query_id``, or a NumPy range where
    pandas is not installed (the metric functions need NumPy alone)."""
    try:
        import pandas as pd
    except ImportError:
        return np.arange(n)
    return pd.RangeIndex(n, name="query_id")


def _other_library(x: Any) -> bool:
    """Whether ``x`` is an array of an array-API library other than NumPy (JAX, PyTorch,
    CuPy, array-api-strict): its metrics are computed there and returned there."""
    if isinstance(x, (list, tuple, np.ndarray, np.generic)) or (type(x).__module__ or "").startswith(
            ("pandas", "polars", "pyarrow", "builtins")):
        return False
    from array_api_compat import is_array_api_obj

    return is_array_api_obj(x)


def _to_numpy(x: Any) -> np.ndarray:
    """An array of another library as a NumPy array (through DLPack; on the host)."""
    try:
        return np.from_dlpack(x)
    except (TypeError, RuntimeError, BufferError, AttributeError):  # a device array, or no DLPack
        return np.asarray(x)


def _as_rankings_xp(x: Any) -> Rankings:
    """:func:`as_rankings` of an array of another library, kept there (on its device, in
    float64 where the library's default float is, else its float dtype): the metric kernels
    run on it and return arrays of that library."""
    xp = namespace(x)
    if x.ndim not in (1, 2):
        raise ValueError(f"labels must be 1-D or 2-D, got {x.ndim}-D")
    info = xp.__array_namespace_info__().default_dtypes(device=device(x))
    dtype = xp.result_type(x.dtype, info["real floating"]) if xp.isdtype(x.dtype, "real floating") \
        else info["real floating"]
    labels = xp.astype(x, dtype)
    scalar = labels.ndim == 1
    if scalar:
        labels = xp.reshape(labels, (1, -1))
    if not bool(xp.all(xp.isfinite(labels))):
        raise ValueError("labels must be finite, got NaN or infinite values")
    if not bool(xp.all(labels >= 0)):
        raise ValueError(f"labels must be non-negative, got {float(xp.min(labels))!r}")
    n, depth = labels.shape
    lengths = xp.full((n,), depth, dtype=info["integral"], device=device(x))
    import pandas as pd

    return Rankings(labels=labels, judged=xp.ones(labels.shape, dtype=xp.bool, device=device(x)), lengths=lengths,
                    ideal=xp.sort(labels, axis=1, descending=True), n_judged=lengths,
                    query_ids=pd.RangeIndex(n, name="query_id"), scalar=scalar)


def _pandas_or_array(name: str) -> tuple[type, ...]:
    """``(np.ndarray, pandas.<name>)``, or ``(np.ndarray,)`` while pandas is not imported
    (nothing can be of one of its types then)."""
    pandas = sys.modules.get("pandas")
    return (np.ndarray,) if pandas is None else (np.ndarray, getattr(pandas, name))
