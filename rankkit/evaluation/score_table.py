"""The result of :func:`rankkit.evaluation.evaluate_scores`: one value per query and metric,
and each metric's aggregate, in the arrays of the library the scores came in."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

__all__ = ["ScoreTable"]


def to_numpy(x: Any) -> np.ndarray:
    """A NumPy copy of an array of any library (NumPy, JAX, torch on the CPU, CuPy, ...)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "get") and type(x).__module__.startswith("cupy"):
        return x.get()  # CuPy refuses implicit copies to the host
    if hasattr(x, "detach"):  # torch, possibly on a GPU
        return x.detach().cpu().numpy()
    try:
        return np.asarray(x)
    except (TypeError, ValueError):
        return np.from_dlpack(x)


#: The rows a ScoreTable's repr shows at most: the first half, ``...`` for the rest, the last half
#: (``all`` the last of them), pandas' truncation.
SHOWN_ROWS = 12


@dataclass(frozen=True, eq=False)
class ScoreTable(Mapping):
    """Per-query values of model scores' metrics: a read-only mapping metric -> array.

    ``table["nDCG@10"]`` is an array of one value per query (in the order of
    :attr:`query`), of the library the inputs came in (NumPy, JAX, torch, ...) and on
    their device.

    Attributes
    ----------
    data : mapping
        Column -> its per-query values (what the mapping reads; read-only). A column is
        found by its spec as written or by any spelling of the same metric
        (``table["ndcg@10"]`` for ``nDCG@10``).
    query : array
        The distinct query ids, sorted (0 when ``evaluate_scores`` was given no query ids).
    all : dict
        Each metric's aggregate over the queries (a 0-d array or NumPy float): the mean
        for rank metrics (as :func:`rankkit.aggregate`), AUC, MSE and MAE over every row
        at once, PNR over the pairs within queries, GAUC's weighted mean.
    n_rows : array of int
        The number of rows (documents) of each query.
    unscored : dict
        Metric -> {query id: reason} for every query a metric cannot score (``nan``: one
        document, one class for AUC and GAUC, all labels equal for PNR; left out of the
        aggregate), and, for rank metrics, every query without a relevant document
        (scored 0, as :func:`rankkit.evaluate` scores it).
    metrics : dict
        Column -> its canonical spec.
    settings : dict
        The options of the evaluation (``ties``, ``rel``, ``weights``, ``retrieved``).

    Examples
    --------
    >>> from rankkit.evaluation import evaluate_scores
    >>> t = evaluate_scores([1, 0, 0, 1], [0.9, 0.1, 0.8, 0.2], ["a", "a", "b", "b"], ["AUC", "P@1"])
    >>> list(t), t.query.tolist(), t["P@1"].tolist()
    (['AUC', 'P@1'], ['a', 'b'], [1.0, 0.0])
    >>> t.to_frame().round(3)
               AUC  P@1
    query_id
    a         1.00  1.0
    b         0.00  0.0
    all       0.75  0.5
    """

    data: dict[str, Any]
    query: Any
    all: dict[str, Any]
    n_rows: Any
    unscored: dict[str, dict[Any, str]] = field(default_factory=dict)
    metrics: dict[str, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:  # its own copies: the caller's dicts may change
        for name in ("data", "all", "metrics", "settings"):
            object.__setattr__(self, name, dict(getattr(self, name)))
        object.__setattr__(self, "data", MappingProxyType(self.data))  # the mapping itself: read-only
        object.__setattr__(self, "unscored", {c: dict(u) for c, u in self.unscored.items()})

    def __reduce__(self):  # pickles with plain dicts (a mappingproxy does not pickle)
        return _rebuild, (dict(self.data), self.query, self.all, self.n_rows, self.unscored, self.metrics,
                          self.settings)

    def __getitem__(self, key: str) -> Any:
        if key in self.data:
            return self.data[key]
        try:  # another spelling of a column's metric: "ndcg@10" for "nDCG@10", "map" for "AP"
            from ..names import parse_metric

            spec = str(parse_metric(key))
        except (ValueError, TypeError):
            raise KeyError(key) from None
        for column, canonical in self.metrics.items():
            if canonical == spec:
                return self.data[column]
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    @property
    def n_queries(self) -> int:
        return int(self.query.shape[0])

    def to_frame(self, all: bool = True):  # noqa: A002 -- the name of the row it adds
        """A pandas DataFrame copy: one row per query (index ``query_id``), one column per
        metric, and the ``all`` row of the aggregates at the end unless ``all=False``."""
        import pandas as pd

        index = pd.Index(to_numpy(self.query), name="query_id")
        frame = pd.DataFrame({c: to_numpy(v).astype(np.float64) for c, v in self.data.items()}, index=index)
        if all:
            row = pd.DataFrame({c: [float(to_numpy(v))] for c, v in self.all.items()},
                               index=pd.Index(["all"], name="query_id"))
            frame = pd.concat([frame.astype(object) if len(frame) == 0 else frame, row])
            frame.index.name = "query_id"
        frame.attrs["metrics"] = dict(self.metrics)
        frame.attrs["unscored"] = {c: dict(u) for c, u in self.unscored.items()}
        return frame

    def _summary(self) -> str:
        n_unscored = {c: len(u) for c, u in self.unscored.items() if u}
        settings = ", ".join(f"{k}={v!r}" for k, v in self.settings.items() if isinstance(v, (str, int, float)))
        n = self.n_queries
        head = (f"ScoreTable: {n} quer{'y' if n == 1 else 'ies'}, {int(to_numpy(self.n_rows).sum())} rows "
                f"({settings})")
        if n_unscored:
            head += "; unscored or 0: " + ", ".join(f"{c} {n}" for c, n in n_unscored.items())
        return head

    def _hidden(self) -> str:
        """The line under a table too long to show whole, as pandas says it: how many queries the
        row ``...`` stands for (the first six queries, the last five and ``all`` are shown)."""
        hidden = self.n_queries + 1 - SHOWN_ROWS
        if hidden <= 0:
            return ""
        return (f"[{self.n_queries} queries x {len(self)} metrics; ... hides {hidden} "
                f"quer{'y' if hidden == 1 else 'ies'}: to_frame() has them all]")

    def __repr__(self) -> str:
        try:
            text = self.to_frame().round(4).to_string(max_rows=SHOWN_ROWS, min_rows=SHOWN_ROWS)
        except ModuleNotFoundError as err:  # the slim install: the aggregates without pandas' table
            if err.name != "pandas":
                raise
            shown = ", ".join(f"{c}: {float(to_numpy(v)):.4f}" for c, v in self.all.items())
            return (f"{self._summary()}\nall: {shown}\n(the per-query table prints with pandas: "
                    f'pip install ".[runs]" in rankkit\'s source folder; table.query and table.data hold it)')
        hidden = self._hidden()
        return self._summary() + "\n" + text + (f"\n\n{hidden}" if hidden else "")

    def _repr_html_(self) -> str:
        from html import escape

        hidden = self._hidden()
        return (f"<p>{escape(self._summary())}</p>" + self.to_frame().round(4).to_html(max_rows=SHOWN_ROWS)
                + (f"<p>{escape(hidden)}</p>" if hidden else ""))


def _rebuild(data, query, all_, n_rows, unscored, metrics, settings) -> ScoreTable:
    """A pickled :class:`ScoreTable` again."""
    return ScoreTable(data=data, query=query, all=all_, n_rows=n_rows, unscored=unscored, metrics=metrics,
                      settings=settings)
