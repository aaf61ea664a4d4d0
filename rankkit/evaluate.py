"""Metric specs, the metric registry, and ``evaluate``: score a run against judgments.

A metric is named by a *spec*, one syntax everywhere (the command line, ``evaluate``,
notebooks)::

    NAME(param=value, ...)@k      e.g.  nDCG@10   nDCG(gain='exp')@10   AP(normalize='min_k')@5
                                        RBP(p=0.9)   P(rel=2)@5   iprec(recall=0.1)

``parse_metric`` turns a spec into a :class:`Metric` whose ``str()`` prints it back in
canonical form (like ir_measures). trec_eval's measure names are aliases: ``map``,
``map_cut_10``, ``ndcg``, ``ndcg_cut_10``, ``P_10``, ``recip_rank``, ``recall_100``,
``Rprec``, ``bpref``, ``success_10``, ``num_ret``, ``num_rel``, ``num_rel_ret``,
``iprec_at_recall_0.10``; trec_eval's parameter lists (``P.5,10``, ``ndcg_cut.10,20``,
``iprec_at_recall..10,.20``, ``ndcg.1=3,2=9``) expand to one column per value, named
as trec_eval prints them.

Every metric known to ``evaluate`` is one row of :data:`REGISTRY`: its function, the
parameters a spec may set, whether it takes a cutoff, and how trec_eval aggregates it.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any, Callable

import numpy as np
import pandas as pd

from . import binary, graded
from ._numerics import query_sum
from ._validation import check_option, check_rel
from .rankings import Rankings, as_rankings, rank

__all__ = [
    "Metric", "MetricInfo", "REGISTRY", "parse_metric", "expand_metrics", "score",
    "evaluate", "aggregate", "QUERY_POLICIES", "TIE_POLICIES",
]

QUERY_POLICIES = ("run", "qrels")
TIE_POLICIES = ("docno", "optimistic", "pessimistic", "average")


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class MetricInfo:
    """One row of the registry.

    Attributes
    ----------
    func : callable
        ``func(rankings, **params)`` -> one value per query.
    params : tuple of str
        The keyword parameters a spec may set (``k`` excluded).
    cutoff : bool
        Whether the spec takes ``@k`` (passed as ``k=``).
    total : bool
        True for counts (num_ret, ...): trec_eval sums them over queries in its ``all``
        line and prints them as integers; other metrics are averaged.
    level : bool
        Whether the relevance level of ``evaluate(rel=...)`` (trec_eval ``-l``) sets the
        metric's ``rel`` threshold. True for the binary metrics (and binary RBP); the
        gain-based ones (CG, DCG, nDCG, ERR) use the labels themselves, as trec_eval's
        ndcg does under ``-l``.
    required : tuple of str
        Parameters a spec must set.
    data_max_grade : bool
        ``max_grade``, when the spec does not set it, is the largest label of the whole
        data set (ERR), so that a query's value does not depend on the others scored.
    summary : str
        One line for the help text.
    """

    func: Callable[..., Any]
    params: tuple[str, ...] = ()
    cutoff: bool = True
    total: bool = False
    level: bool = False
    required: tuple[str, ...] = ()
    data_max_grade: bool = False
    summary: str = ""


def _iprec(rankings, *, recall, **kwargs):
    """Interpolated precision at one recall level (trec_eval ``iprec_at_recall``)."""
    values = binary.interpolated_precision(rankings, recall_levels=[recall], **kwargs)
    return np.asarray(values, dtype=np.float64).reshape(-1, 1)[:, 0]


_REL = ("rel",)

#: Every metric ``evaluate`` knows: canonical name -> how to compute it.
REGISTRY: dict[str, MetricInfo] = {
    "P": MetricInfo(binary.precision, _REL, level=True, summary="precision at k"),
    "R": MetricInfo(binary.recall, _REL, level=True, summary="recall at k"),
    "Rprec": MetricInfo(binary.r_precision, _REL, cutoff=False, level=True,
                        summary="precision at rank R (R = number of relevant documents)"),
    "success": MetricInfo(binary.success, _REL, level=True,
                          summary="1 if a relevant document is in the top k, else 0"),
    "AP": MetricInfo(binary.average_precision, ("rel", "normalize"), level=True,
                     summary="average precision (trec_eval map, map_cut)"),
    "RR": MetricInfo(binary.reciprocal_rank, _REL, level=True,
                     summary="reciprocal rank of the first relevant document"),
    "bpref": MetricInfo(binary.bpref, _REL, cutoff=False, level=True,
                        summary="binary preference (Buckley & Voorhees 2004)"),
    "iprec": MetricInfo(_iprec, ("recall", "rel", "rounding"), cutoff=False, level=True,
                        required=("recall",),
                        summary="interpolated precision at a recall level (rounding='plus_0.9': trec_eval 9)"),
    "judged": MetricInfo(binary.judged, (), summary="fraction of the top k that is judged"),
    "num_ret": MetricInfo(binary.num_retrieved, (), cutoff=False, total=True,
                          summary="number of documents retrieved"),
    "num_rel": MetricInfo(binary.num_relevant, _REL, cutoff=False, total=True, level=True,
                          summary="number of relevant documents (judged, retrieved or not)"),
    "num_rel_ret": MetricInfo(binary.num_relevant_retrieved, _REL, cutoff=False, total=True, level=True,
                              summary="number of relevant documents retrieved"),
    "CG": MetricInfo(graded.cumulative_gain, ("gain",), summary="cumulative gain"),
    "DCG": MetricInfo(graded.dcg, ("gain",), summary="discounted cumulative gain"),
    "nDCG": MetricInfo(graded.ndcg, ("gain",),
                       summary="normalised DCG, ideal from all judged documents (trec_eval ndcg)"),
    "RBP": MetricInfo(graded.rbp, ("p", "rel", "max_grade"), level=True,
                      summary="rank-biased precision (Moffat & Zobel 2008)"),
    "RBP_residual": MetricInfo(graded.rbp_residual, ("p", "convention"),
                               summary="RBP residual: weight of unjudged ranks and the tail"),
    "ERR": MetricInfo(graded.err, ("p", "max_grade"), data_max_grade=True,
                      summary="expected reciprocal rank (Chapelle et al. 2009)"),
}

#: Other names for registry entries (a spec may add parameters and @k to them).
NAME_ALIASES: dict[str, str] = {
    "map": "AP", "ndcg": "nDCG", "recip_rank": "RR", "MRR": "RR", "R-prec": "Rprec",
    "R_prec": "Rprec", "Precision": "P", "Recall": "R",
}

#: trec_eval's parameterised measure names -> the spec they stand for.
TREC_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), spec) for pattern, spec in [
        (r"P_(\d+)", "P@{0}"),
        (r"recall_(\d+)", "R@{0}"),
        (r"map_cut_(\d+)", "AP@{0}"),
        (r"ndcg_cut_(\d+)", "nDCG@{0}"),
        (r"success_(\d+)", "success@{0}"),
        (r"iprec_at_recall_(\d*\.?\d+)", "iprec(recall={0})"),
        # trec_eval 10's rbp: p = 0.9, each query's labels scaled by its largest judged
        # label (ignores -l); rbp_resid: 0 when nothing retrieved is unjudged
        (r"rbp", "RBP(p=0.9, max_grade='query')"),
        (r"rbp_resid", "RBP_residual(p=0.9, convention='trec_eval')"),
    ]
)

#: trec_eval's ``name.v1,v2`` parameter lists -> (trec_eval's printed name, spec) per value.
TREC_LISTS: dict[str, Callable[[str], tuple[str, str]]] = {
    "P": lambda v: (f"P_{_trec_int(v)}", f"P@{_trec_int(v)}"),
    "recall": lambda v: (f"recall_{_trec_int(v)}", f"R@{_trec_int(v)}"),
    "map_cut": lambda v: (f"map_cut_{_trec_int(v)}", f"AP@{_trec_int(v)}"),
    "ndcg_cut": lambda v: (f"ndcg_cut_{_trec_int(v)}", f"nDCG@{_trec_int(v)}"),
    "success": lambda v: (f"success_{_trec_int(v)}", f"success@{_trec_int(v)}"),
    "iprec_at_recall": lambda v: (f"iprec_at_recall_{float(v):3.2f}", f"iprec(recall={float(v)!r})"),
}


def _trec_int(value: str) -> int:
    # trec_eval reads cutoff lists as floats and truncates them (ndcg_cut.23.4 -> ndcg_cut_23)
    return int(float(value))


def _known_names() -> str:
    trec = ["P_k", "recall_k", "map_cut_k", "ndcg_cut_k", "success_k", "iprec_at_recall_x",
            "rbp", "rbp_resid"]
    return ", ".join([*REGISTRY, *NAME_ALIASES, *trec])


# --------------------------------------------------------------------------- specs


class _FrozenDict(dict):
    """A dict parameter value (a gain mapping) that a frozen Metric can hash."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return _FrozenDict({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


@dataclass(frozen=True)
class Metric:
    """A parsed metric spec: registry name, parameters, cutoff.

    ``str(metric)`` is the canonical spec, and ``parse_metric(str(metric)) == metric``.

    Examples
    --------
    >>> m = parse_metric("nDCG(gain='exp')@10")
    >>> m.name, m.kwargs, m.k
    ('nDCG', {'gain': 'exp'}, 10)
    >>> str(m)
    "nDCG(gain='exp')@10"
    >>> str(parse_metric("ndcg_cut_10")), str(parse_metric("map")), str(parse_metric("P(rel=2) @ 5"))
    ('nDCG@10', 'AP', 'P(rel=2)@5')
    """

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    k: int | None = None

    @property
    def kwargs(self) -> dict[str, Any]:
        """The parameters as keyword arguments of the metric function (``k`` excluded)."""
        return dict(self.params)

    @property
    def info(self) -> MetricInfo:
        return REGISTRY[self.name]

    def __str__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.params)
        return self.name + (f"({args})" if args else "") + (f"@{self.k}" if self.k is not None else "")

    def __call__(self, rankings) -> np.ndarray:
        """Compute the metric on anything :func:`as_rankings` accepts."""
        kwargs = self.kwargs
        if self.k is not None:
            kwargs["k"] = self.k
        return self.info.func(rankings, **kwargs)


_SPEC = re.compile(
    r"""^\s*(?P<name>[A-Za-z_][\w.\-]*?)\s*
        (?:\((?P<params>.*)\))?\s*
        (?:@\s*(?P<k>[^@()]*?))?\s*$""",
    re.VERBOSE | re.DOTALL,
)


def _resolve_name(name: str) -> str:
    if name in REGISTRY:
        return name
    if name in NAME_ALIASES:
        return NAME_ALIASES[name]
    folded = {n.lower(): n for n in REGISTRY} | {a.lower(): t for a, t in NAME_ALIASES.items()}
    if name.lower() in folded:
        return folded[name.lower()]
    raise ValueError(f"unknown metric {name!r}; known metrics: {_known_names()}")


def _parse_params(text: str, spec: str) -> dict[str, Any]:
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError:
        call = None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "f"):
        raise ValueError(f"cannot parse the parameters of metric spec {spec!r}")
    if call.args:
        raise ValueError(f"metric spec {spec!r}: parameters must be named, as in P(rel=2)@5")
    params = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise ValueError(f"metric spec {spec!r}: parameters must be named, as in P(rel=2)@5")
        if keyword.arg in params:
            raise ValueError(f"metric spec {spec!r}: parameter {keyword.arg!r} is given twice")
        node = keyword.value
        if isinstance(node, ast.Name):  # bare word, e.g. nDCG(gain=exp): a string
            value: Any = node.id
        else:
            try:
                value = ast.literal_eval(node)
            except ValueError:
                raise ValueError(
                    f"metric spec {spec!r}: the value of {keyword.arg!r} must be a literal"
                ) from None
        params[keyword.arg] = _freeze(value)
    return params


def _parse_k(text: str, spec: str) -> int:
    if not re.fullmatch(r"-?[0-9]+", text):
        raise ValueError(f"k must be a positive integer, got {text!r} in metric spec {spec!r}")
    k = int(text)
    if k <= 0:
        raise ValueError(f"k must be a positive integer, got {k} in metric spec {spec!r}")
    return k


def parse_metric(spec: str | Metric) -> Metric:
    """Parse one metric spec ``NAME(param=value, ...)@k`` into a :class:`Metric`.

    Parameters
    ----------
    spec : str or Metric
        A registry name (``P``, ``R``, ``Rprec``, ``success``, ``AP``, ``RR``, ``bpref``,
        ``iprec``, ``judged``, ``num_ret``, ``num_rel``, ``num_rel_ret``, ``CG``, ``DCG``,
        ``nDCG``, ``RBP``, ``RBP_residual``, ``ERR``) or an alias (``map``, ``ndcg``,
        ``recip_rank``, ``MRR``, ``R-prec``), optional named parameters with literal
        values (a bare word is a string: ``nDCG(gain=exp)``), optional cutoff ``@k``;
        or a trec_eval name with its cutoff (``P_10``, ``ndcg_cut_10``,
        ``iprec_at_recall_0.10``). Names are matched case-sensitively first, then
        case-insensitively. A Metric passes through.

    Returns
    -------
    Metric

    Raises
    ------
    ValueError
        Unknown name (the message lists the known ones), a parameter the metric does not
        take (the message names it and the allowed ones), a missing required parameter,
        ``@k`` on a metric without cutoff, or k not a positive integer.

    Examples
    --------
    >>> parse_metric("AP(normalize='min_k')@5")
    Metric(name='AP', params=(('normalize', 'min_k'),), k=5)
    >>> str(parse_metric("iprec_at_recall_0.10"))
    'iprec(recall=0.1)'
    >>> parse_metric("P@0")
    Traceback (most recent call last):
    ...
    ValueError: k must be a positive integer, got 0 in metric spec 'P@0'
    """
    if isinstance(spec, Metric):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"a metric spec must be a string or Metric, got {type(spec).__name__}")
    stripped = spec.strip()
    for pattern, template in TREC_PATTERNS:
        match = pattern.fullmatch(stripped)
        if match:
            return parse_metric(template.format(*match.groups()))
    match = _SPEC.match(spec)
    if not match:
        raise ValueError(
            f"cannot parse metric spec {spec!r}: expected NAME(param=value, ...)@k, e.g. nDCG@10"
        )
    name = _resolve_name(match["name"])
    info = REGISTRY[name]
    params = _parse_params(match["params"], spec) if match["params"] is not None else {}
    unknown = sorted(set(params) - set(info.params))
    if unknown:
        allowed = ", ".join(info.params) if info.params else "none"
        raise ValueError(
            f"metric {name} does not take parameter(s) {', '.join(unknown)} "
            f"(allowed: {allowed}) in metric spec {spec!r}"
        )
    missing = [p for p in info.required if p not in params]
    if missing:
        raise ValueError(f"metric {name} needs parameter(s) {', '.join(missing)} in metric spec {spec!r}")
    k = None
    if match["k"] is not None:
        if not info.cutoff:
            raise ValueError(f"metric {name} takes no cutoff @k, in metric spec {spec!r}")
        k = _parse_k(match["k"], spec)
    ordered = tuple((p, params[p]) for p in info.params if p in params)
    return Metric(name, ordered, k)


def expand_metrics(metrics: str | Metric | Iterable[str | Metric]) -> dict[str, Metric]:
    """Column name -> Metric for every spec, in order.

    A column is named by the spec as written (stripped; a Metric by its canonical
    spec), so ``table["ndcg_cut_10"]`` works when that is what was asked for. A trec_eval
    parameter list (``P.5,10``, ``ndcg_cut.10,20``, ``iprec_at_recall..10,.20``,
    ``ndcg.1=3,2=9,4=4.5``) expands to one column per value, sorted and named as
    trec_eval prints them. Repeated names are computed once.

    Examples
    --------
    >>> {name: str(m) for name, m in expand_metrics(["P.10,5", "map", "nDCG@10"]).items()}
    {'P_5': 'P@5', 'P_10': 'P@10', 'map': 'AP', 'nDCG@10': 'nDCG@10'}
    """
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    columns: dict[str, Metric] = {}
    for spec in metrics:
        if isinstance(spec, Metric):
            columns.setdefault(str(spec), spec)
            continue
        if not isinstance(spec, str):
            raise ValueError(f"a metric spec must be a string or Metric, got {type(spec).__name__}")
        for column, metric in _expand_one(spec.strip()):
            columns.setdefault(column, metric)
    if not columns:
        raise ValueError("metrics must name at least one metric")
    return columns


def _expand_one(spec: str) -> list[tuple[str, Metric]]:
    head, dot, tail = spec.partition(".")
    if dot and "(" not in spec and "@" not in spec:
        if head in TREC_LISTS and tail:
            try:  # trec_eval sorts the values
                values = sorted(tail.split(","), key=float)
                pairs = [TREC_LISTS[head](v) for v in values]
            except ValueError:
                raise ValueError(f"cannot parse trec_eval parameter list {spec!r}: expected numbers") from None
            return [(column, parse_metric(s)) for column, s in pairs]
        if head == "ndcg" and tail:  # ndcg.1=3,2=9: a gain per label, the rest keep their value
            gains = {}
            for item in tail.split(","):
                label, _, gain = item.partition("=")
                try:
                    gains[float(label)] = float(gain)
                except ValueError:
                    raise ValueError(f"cannot parse trec_eval gain list {spec!r}") from None
            return [(f"ndcg_{tail}", Metric("nDCG", (("gain", _FrozenDict(gains)),)))]
    return [(spec, parse_metric(spec))]


# --------------------------------------------------------------------------- scoring


def _take(r: Rankings, rows: np.ndarray) -> Rankings:
    """The rows ``rows`` (a boolean mask) of a Rankings, every per-query field sliced."""
    n = r.n_queries
    changes = {}
    for f in fields(r):
        value = getattr(r, f.name)
        if isinstance(value, (np.ndarray, pd.Index)) and len(value) == n and np.ndim(value) >= 1:
            changes[f.name] = value[rows]
    return replace(r, **changes)


def score(
    rankings,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    rel: float | None = None,
    max_grade: float | None = None,
) -> pd.DataFrame:
    """Every metric on every row of a :class:`Rankings`: one row per query.

    Parameters
    ----------
    rankings : Rankings or array-like
        Ranked labels (see :func:`as_rankings`), e.g. from :func:`rankkit.rankings.rank`.
    metrics : spec, Metric, or a list of them
        See :func:`parse_metric` and :func:`expand_metrics` (column names).
    rel : float or None, default=None
        Relevance level for every binary metric whose spec does not set ``rel``
        (trec_eval ``-l``); None keeps each function's default (1).
    max_grade : float or None, default=None
        ERR's maximum grade when its spec does not set it; None uses the largest label
        in ``rankings``.

    Returns
    -------
    DataFrame
        Index ``query_id``, one float64 column per metric; ``attrs["metrics"]`` maps each
        column to its canonical spec.

    Examples
    --------
    >>> score([[1, 0, 1], [0, 0, 2]], ["P@2", "nDCG(gain='exp')@3"]).round(4)
              P@2  nDCG(gain='exp')@3
    query_id
    0         0.5              0.9197
    1         0.0              0.5000
    """
    r = as_rankings(rankings)
    columns = expand_metrics(metrics)
    if rel is not None:
        rel = check_rel(rel)
    return _score(r, columns, rel, max_grade)


def _score(r: Rankings, columns: dict[str, Metric], rel: float | None, max_grade: float | None) -> pd.DataFrame:
    data = {}
    for column, metric in columns.items():
        info = metric.info
        kwargs = metric.kwargs
        if metric.k is not None:
            kwargs["k"] = metric.k
        # a global level sets binary thresholds only: graded RBP (max_grade=) keeps its labels
        if rel is not None and info.level and "rel" not in kwargs and "max_grade" not in kwargs:
            kwargs["rel"] = rel
        if info.data_max_grade and "max_grade" not in kwargs:
            kwargs["max_grade"] = max_grade if max_grade is not None else _max_label(r)
        try:
            values = np.asarray(info.func(r, **kwargs), dtype=np.float64).reshape(r.n_queries)
        except ValueError as exc:  # say which spec the metric function refused
            raise ValueError(f"metric {column}: {exc}") from None
        data[column] = values
    table = pd.DataFrame(data, index=pd.Index(r.query_ids, name="query_id"), columns=list(columns))
    table.attrs["metrics"] = {column: str(metric) for column, metric in columns.items()}
    return table


def _max_label(r: Rankings) -> float:
    top = float(r.ideal.max()) if r.ideal.size else 0.0
    return top if top > 0 else 1.0


def aggregate(table: pd.DataFrame) -> pd.Series:
    """trec_eval's ``all`` line: the mean over queries, the sum for counts (num_ret, ...).

    Both add the per-query values one at a time in query order, as trec_eval does, so
    the ``all`` line agrees with trec_eval to its last printed digit.

    Examples
    --------
    >>> aggregate(score([[1, 0], [0, 0]], ["P@1", "num_rel_ret"])).to_dict()
    {'P@1': 0.5, 'num_rel_ret': 1.0}
    """
    specs = table.attrs.get("metrics", {})
    totals = np.array([parse_metric(specs.get(c, c)).info.total for c in table.columns], dtype=bool)
    # Added one query at a time in query order, as trec_eval does (rankkit._numerics).
    sums = query_sum(table.to_numpy(dtype=np.float64))
    means = sums / len(table) if len(table) else sums
    return pd.Series(np.where(totals, sums, means), index=table.columns, dtype=np.float64)


def _query_flags(r: Rankings) -> tuple[np.ndarray, np.ndarray]:
    """(in run, in qrels) per row, as set by :func:`rankkit.rankings.rank` (None: both)."""
    in_run, in_qrels = r.has_run, r.has_qrels
    n = r.n_queries
    in_run = np.ones(n, dtype=bool) if in_run is None else np.asarray(in_run, dtype=bool)
    in_qrels = np.ones(n, dtype=bool) if in_qrels is None else np.asarray(in_qrels, dtype=bool)
    return in_run, in_qrels


def _listing(ids: Iterable[Any], limit: int = 10) -> str:
    ids = [str(q) for q in ids]
    shown = ", ".join(ids[:limit])
    return shown + (f", ... ({len(ids) - limit} more)" if len(ids) > limit else "")


def evaluate(
    qrels,
    run,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    ties: str = "docno",
    queries: str = "run",
    depth: int | None = None,
    rel: float | None = None,
) -> pd.DataFrame:
    """Score a run against judgments: one row per query, one column per metric.

    Parameters
    ----------
    qrels : path, DataFrame or dict
        Judgments, anything :func:`rankkit.read_qrels` reads (``{qid: {doc: label}}``).
        Labels below 0 mean "pooled but not judged" (trec_eval).
    run : path, DataFrame or dict
        The ranked results, anything :func:`rankkit.read_run` reads (``{qid: {doc: score}}``).
    metrics : spec, Metric, or a list of them
        ``["nDCG@10", "AP", "P(rel=2)@5", "map_cut_10"]``; see :func:`parse_metric`. Each
        column is named by its spec as written (see :func:`expand_metrics`).
    ties : {"docno", "optimistic", "pessimistic", "average"}, default="docno"
        Order of documents with equal scores; "docno" is trec_eval's (score descending,
        then document id descending). See :func:`rankkit.rankings.rank`.
    queries : {"run", "qrels"}, default="run"
        Which queries are scored. "run" (trec_eval): queries of the run that have
        judgments. "qrels" (trec_eval ``-c``): every judged query; one absent from the run
        is scored on an empty ranking: 0, except num_rel (its relevant documents, as
        trec_eval prints) and RBP_residual (1.0: every rank is unknown; its
        ``convention='trec_eval'``, the ``rbp_resid`` alias, gives trec_eval's 0). Under
        both, run queries without judgments are not scored and a warning names them;
        under "run", so are judged queries absent from the run.
    depth : int or None, default=None
        Keep only the top ``depth`` documents of each query (trec_eval ``-M``).
    rel : float or None, default=None
        Relevance level of the binary metrics (label >= rel is relevant), like trec_eval
        ``-l``; a spec's own ``rel=`` wins. Gain-based metrics (nDCG, DCG, CG, ERR, RBP
        with ``max_grade``, so trec_eval's ``rbp``) use the labels themselves, as trec_eval
        does.

    Returns
    -------
    DataFrame
        Index ``query_id`` (the scored queries, in trec_eval's order), one float64 column
        per metric. ``attrs["unscored"]`` maps every query left out to the reason,
        ``attrs["metrics"]`` each column to its canonical spec, and ``attrs["queries"]``,
        ``attrs["ties"]`` record the policies. :func:`aggregate` gives trec_eval's ``all``.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"d": 1}}
    >>> run = {"q1": {"a": 0.9, "b": 0.8, "c": 0.1}, "q3": {"x": 1.0}}
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     table = evaluate(qrels, run, ["P@2", "ndcg_cut_3", "num_rel"])
    >>> table.round(4)
              P@2  ndcg_cut_3  num_rel
    query_id
    q1        0.5      0.7602      2.0
    >>> table.attrs["unscored"]
    {'q2': 'not in the run', 'q3': 'no judgments'}
    """
    queries = check_option(queries, QUERY_POLICIES, "queries")
    ties = check_option(ties, TIE_POLICIES, "ties")
    if rel is not None:
        rel = check_rel(rel)
    columns = expand_metrics(metrics)  # bad specs fail before any file is read
    r = rank(qrels, run, ties=ties, depth=depth)  # reads files / dicts / DataFrames

    in_run, in_qrels = _query_flags(r)
    keep = in_qrels & (in_run if queries == "run" else True)
    unscored: dict[Any, str] = {}
    no_judgments = r.query_ids[in_run & ~in_qrels]
    if len(no_judgments):
        unscored.update(dict.fromkeys(no_judgments, "no judgments"))
        warnings.warn(
            f"run queries without judgments are not scored ({len(no_judgments)}): "
            f"{_listing(no_judgments)}",
            UserWarning,
            stacklevel=2,
        )
    if queries == "run":
        missing = r.query_ids[in_qrels & ~in_run]
        if len(missing):
            unscored.update(dict.fromkeys(missing, "not in the run"))
            warnings.warn(
                f"judged queries missing from the run are not scored ({len(missing)}; "
                f"queries='qrels' scores them as 0): {_listing(missing)}",
                UserWarning,
                stacklevel=2,
            )
    table = _score(_take(r, keep), columns, rel, _max_label(r))
    table.attrs |= {
        "unscored": dict(sorted(unscored.items(), key=lambda item: str(item[0]))),
        "queries": queries,
        "ties": ties,
    }
    return table
