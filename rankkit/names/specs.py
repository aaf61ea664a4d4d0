"""Metric specs and the registry: one row per metric, with its trec_eval names.

A metric is named by a *spec*, one syntax everywhere (the command line, ``evaluate``,
notebooks)::

    NAME(param=value, ...)@k      e.g.  nDCG@10   nDCG(gain='exp')@10   AP(normalize='min_k')@5
                                        RBP(p=0.9)   P(rel=2)@5   iprec(recall=0.1)

:func:`parse_metric` turns a spec into a :class:`Metric` whose ``str()`` prints it back in
canonical form (like ir_measures). Every metric is one row of :data:`REGISTRY`: its
function, the parameters a spec may set, whether it takes a cutoff, how the ``all`` line
aggregates it, and the names trec_eval gives it (:class:`TrecName`). trec_eval's names are
aliases everywhere: as printed (``map``, ``P_10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``,
``Rprec_mult_0.20``, ``utility_2,-1,0,0``, ``rbp_p=0.8``), as ``-m`` takes them with a
parameter list (``P.5,10``, ``ndcg.1=3,2=9``, ``11pt_avg..25,.5``), as a bare family name
(``ndcg_cut``: its default cutoffs) and as a nickname (``official``, ``all_trec``, ``set``).
:data:`TREC_ORDER` is trec_eval's measure table: the order it prints in.
"""

from __future__ import annotations

import ast
import difflib
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..metrics import binary, cwl, graded, incomplete as judgments, overlap, set_based as sets

__all__ = [
    "Metric", "MetricInfo", "TrecName", "REGISTRY", "NAME_ALIASES", "TREC_ORDER", "NICKNAMES", "IR_MEASURES",
    "parse_metric", "expand_metrics", "trec_columns",
]


# --------------------------------------------------------------------------- trec_eval names


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


_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")


def _atof(text: str) -> float:
    """A number of a trec_eval parameter list. trec_eval reads them with C's ``atof``,
    which makes ``x`` 0; rankkit refuses what is not a number."""
    if not _NUMBER.fullmatch(text):
        raise ValueError(f"expected numbers, got {text!r}")
    return float(text)


def _atol(text: str) -> int:
    """An integer cutoff of a trec_eval list: a number (:func:`_atof`) read as trec_eval's
    ``atol`` reads it, its leading integer (``23.4`` is 23, ``1e1`` is 1, ``.5`` is 0),
    within 64 bits."""
    _atof(text)
    sign, digits = re.match(r"\s*([+-]?)([0-9]*)", text).groups()
    return min(max(int(sign + (digits or "0")), -2**63), 2**63 - 1)


@dataclass(frozen=True)
class TrecName:
    """How trec_eval names a metric, and how its ``-m name.params`` become rankkit's.

    Attributes
    ----------
    name : str
        trec_eval's measure name (``P``, ``map``, ``iprec_at_recall``, ``ndcg``).
    kind : {"plain", "cutoffs", "levels", "raw", "pairs"}
        ``plain``: no parameters (``map``). ``cutoffs``: integer cutoffs, each a column
        ``name_k`` and rankkit's ``@k`` (``P_10``). ``levels``: numbers, each a column
        ``name_%3.2f`` and rankkit parameter ``param`` (``iprec_at_recall_0.10``).
        ``raw``: numbers used together, one column named ``name_<params as typed>``
        (``utility_2,-1,0,0``). ``pairs``: ``name=value`` pairs, one column named the
        same way (``ndcg_1=3,2=9``, ``rbp_p=0.8``).
    defaults : str
        trec_eval's parameters when ``-m`` gives none (``"5,10,15"``).
    param : str or None
        The rankkit parameter a ``levels`` value sets.
    fixed : tuple of (str, value)
        Parameters the alias always sets, where trec_eval's convention is not rankkit's
        default (``rbp``: ``p=0.9, max_grade='query'``; ``iprec_at_recall`` and
        ``11pt_avg``: ``rounding='nearest'``, trec_eval 10's count of relevant documents).
    convert : callable or None
        ``raw`` and ``pairs``: the parameter string to rankkit's parameters (a dict,
        ``"k"`` meaning the cutoff).
    """

    name: str
    kind: str = "plain"
    defaults: str = ""
    param: str | None = None
    fixed: tuple[tuple[str, Any], ...] = ()
    convert: Callable[[str], dict[str, Any]] | None = None


_CUTOFFS = "5,10,15,20,30,100,200,500,1000"
_LEVELS = "0,.1,.2,.3,.4,.5,.6,.7,.8,.9,1"


def _numbers(text: str) -> list[float]:
    return [_atof(v) for v in text.split(",")]


def _pairs(text: str) -> dict[str, float]:
    items = {}
    for item in text.split(","):
        name, eq, value = item.partition("=")
        if not eq or not item or "=" in value:
            raise ValueError(f"expected name=value pairs, got {text!r}")
        items[name] = _atof(value)
    return items


def _gains(text: str) -> dict[str, Any]:
    """trec_eval's ``level=gain`` pairs; pairs not named by an integer are ignored."""
    mapping = {}
    for name, value in _pairs(text).items():
        if re.fullmatch(r"[+-]?\d+", name):
            if int(name) < 0:
                raise ValueError(f"gain of label {name}: rankkit gives no gain to unjudged documents")
            mapping[float(int(name))] = value
    return {"gain": _FrozenDict(mapping)} if mapping else {}


def _rbp_pairs(text: str) -> dict[str, Any]:
    pairs = _pairs(text)
    if any(re.fullmatch(r"[+-]?\d+", name) for name in pairs):
        raise ValueError("rbp: rankkit takes p=... only; gain levels are not supported")
    return {"p": pairs["p"]} if "p" in pairs else {}


def plain(name: str, **fixed) -> TrecName:
    return TrecName(name, "plain", fixed=tuple(fixed.items()))


def cutoffs(name: str, defaults: str = _CUTOFFS, **fixed) -> TrecName:
    return TrecName(name, "cutoffs", defaults, fixed=tuple(fixed.items()))


def levels(name: str, param: str, defaults: str, **fixed) -> TrecName:
    return TrecName(name, "levels", defaults, param, fixed=tuple(fixed.items()))


def raw(name: str, defaults: str, convert: Callable[[str], dict[str, Any]], **fixed) -> TrecName:
    return TrecName(name, "raw", defaults, fixed=tuple(fixed.items()), convert=convert)


def pairs(name: str, convert: Callable[[str], dict[str, Any]] = _gains, **fixed) -> TrecName:
    return TrecName(name, "pairs", fixed=tuple(fixed.items()), convert=convert)


def _utility_params(text: str) -> dict[str, Any]:
    values = _numbers(text)
    if len(values) != 4:
        raise ValueError(f"utility needs 4 coefficients a,b,c,d, got {text!r}")
    return dict(zip("abcd", values))


def _relstring_params(text: str) -> dict[str, Any]:
    return {"k": max(int(_atof(text)), 0)}  # 0 and below: an empty string, as trec_eval


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class MetricInfo:
    """One row of the registry.

    Attributes
    ----------
    func : callable
        ``func(rankings, **params)`` -> one value per query.
    params : tuple of str
        The keyword parameters a spec may set (``k`` excluded). A row with ``rel`` takes
        the relevance level of ``evaluate(rel=...)`` (trec_eval ``-l``); one with
        ``n_docs``, ``evaluate(n_docs=...)`` (trec_eval ``-N``).
    cutoff : bool
        Whether the spec takes ``@k`` (passed as ``k=``).
    aggregate : {"mean", "sum", "gmean", "first", "none"}
        The ``all`` line: the mean over queries; the sum (counts, printed as integers);
        the geometric mean with trec_eval's floor 1e-5 (gm_map); the run's value (runid);
        none (relstring).
    kind : {"float", "int", "str"}
        How a value prints.
    summary_only : bool
        trec_eval prints no per-query line for it (num_q, gm_map, runid).
    required : tuple of str
        Parameters a spec must set; ``"k"``: the cutoff ``@k`` (SDCG, NERR8, NERR9, BPM).
    data_max_grade : bool
        ``max_grade``, when the spec does not set it, is the largest label of the whole
        data set (ERR, the C/W/L metrics), so that a query's value does not depend on the
        others scored.
    trec : tuple of TrecName
        trec_eval's names for it.
    summary : str
        One line for the help text.
    batch : callable or None
        ``batch(rankings, values, **params)`` -> array (n_queries, len(values)): the metric
        at several values of its first parameter in one pass (``iprec``: every recall
        level of trec_eval's ``iprec_at_recall`` from one interpolation).
    """

    func: Callable[..., Any]
    params: tuple[str, ...] = ()
    cutoff: bool = True
    aggregate: str = "mean"
    kind: str = "float"
    summary_only: bool = False
    required: tuple[str, ...] = ()
    data_max_grade: bool = False
    trec: tuple[TrecName, ...] = ()
    summary: str = ""
    batch: Callable[..., np.ndarray] | None = None

    @property
    def total(self) -> bool:
        """Whether the ``all`` line sums it (counts)."""
        return self.aggregate == "sum"

    @property
    def level(self) -> bool:
        """Whether trec_eval's relevance level (``-l``) sets its ``rel``."""
        return "rel" in self.params


def _iprec(rankings, *, recall, **kwargs):
    """Interpolated precision at one recall level (trec_eval ``iprec_at_recall``)."""
    values = binary.interpolated_precision(rankings, recall_levels=[recall], **kwargs)
    return np.asarray(values, dtype=np.float64).reshape(-1, 1)[:, 0]


def _iprec_levels(rankings, values, **kwargs):
    levels = values
    values = binary.interpolated_precision(rankings, recall_levels=levels, **kwargs)
    return np.asarray(values, dtype=np.float64).reshape(len(rankings), len(levels))


def _iprec_avg(rankings, *, levels=None, **kwargs):
    return binary.interpolated_precision_average(rankings, recall_levels=levels, **kwargs)


def _one(rankings) -> np.ndarray:
    """1 per query: summed, the number of queries (trec_eval ``num_q``)."""
    return np.ones(len(rankings))


def _run_name(rankings) -> np.ndarray:
    """The run's tag on every query (trec_eval ``runid``)."""
    return np.full(len(rankings), getattr(rankings, "run_name", None) or "", dtype=object)


_REL = ("rel",)
_GAIN = ("gain",)
_DCG = ("gain", "discount", "base")
_CWL = ("min_grade", "max_grade", "depth")

#: Every metric ``evaluate`` knows: canonical name -> how to compute it.
REGISTRY: dict[str, MetricInfo] = {
    "P": MetricInfo(binary.precision, _REL, trec=(cutoffs("P"),), summary="precision at k"),
    "R": MetricInfo(binary.recall, _REL, trec=(cutoffs("recall"),), summary="recall at k"),
    "RelP": MetricInfo(binary.relative_precision, _REL, trec=(cutoffs("relative_P"),),
                       summary="relevant in the top k over min(k, R)"),
    "Rprec": MetricInfo(binary.r_precision, ("multiple", "rel"), cutoff=False,
                        trec=(plain("Rprec"), levels("Rprec_mult", "multiple", ".2,.4,.6,.8,1,1.2,1.4,1.6,1.8,2")),
                        summary="precision at rank R (multiple=x: at x * R)"),
    "success": MetricInfo(binary.success, _REL, trec=(cutoffs("success", "1,5,10"),),
                          summary="1 if a relevant document is in the top k, else 0"),
    "AP": MetricInfo(binary.average_precision, ("rel", "normalize"), trec=(plain("map"), cutoffs("map_cut")),
                     summary="average precision (trec_eval map, map_cut)"),
    "GMAP": MetricInfo(binary.average_precision, _REL, cutoff=False, aggregate="gmean", summary_only=True,
                       trec=(plain("gm_map"),), summary="AP per query; the geometric mean over queries"),
    "YAAP": MetricInfo(binary.yaap, _REL, cutoff=False, trec=(plain("yaap"),),
                       summary="yet another AP: log((1 + S) / (1 + R - S)), S = R * AP (Robertson 2012)"),
    "RR": MetricInfo(binary.reciprocal_rank, _REL, trec=(plain("recip_rank"),),
                     summary="reciprocal rank of the first relevant document"),
    "bpref": MetricInfo(binary.bpref, _REL, cutoff=False, trec=(plain("bpref"),),
                        summary="binary preference (Buckley & Voorhees 2004)"),
    "GM_bpref": MetricInfo(binary.bpref, _REL, cutoff=False, aggregate="gmean", summary_only=True,
                           trec=(plain("gm_bpref"),), summary="bpref per query; the geometric mean over queries"),
    "iprec": MetricInfo(_iprec, ("recall", "rel", "rounding"), cutoff=False, required=("recall",),
                        trec=(levels("iprec_at_recall", "recall", _LEVELS, rounding="nearest"),),
                        batch=_iprec_levels,
                        summary="interpolated precision at a recall level: the best precision at "
                                "recall >= it (rounding='nearest': trec_eval 10, 'plus_0.9': 9)"),
    "iprec_avg": MetricInfo(_iprec_avg, ("levels", "rel", "rounding"), cutoff=False,
                            trec=(raw("11pt_avg", _LEVELS, lambda t: {"levels": tuple(_numbers(t))},
                                      rounding="nearest"),),
                            summary="mean interpolated precision over recall levels (11-point average)"),
    "infAP": MetricInfo(judgments.inferred_average_precision, _REL, cutoff=False, trec=(plain("infAP"),),
                        summary="inferred AP from a sampled pool (Yilmaz & Aslam 2006)"),
    "judged": MetricInfo(binary.judged, (), summary="fraction of the top k that is judged"),
    "unjudged": MetricInfo(judgments.unjudged, (), trec=(cutoffs("unj", "5,10,20"),),
                           summary="fraction of the top k ranks holding an unjudged document"),
    "runid": MetricInfo(_run_name, cutoff=False, aggregate="first", kind="str", summary_only=True,
                        trec=(plain("runid"),), summary="the run's tag (its last line's)"),
    "num_q": MetricInfo(_one, cutoff=False, aggregate="sum", kind="int", summary_only=True,
                        trec=(plain("num_q"),), summary="number of queries scored"),
    "num_ret": MetricInfo(binary.num_retrieved, (), cutoff=False, aggregate="sum", kind="int",
                          trec=(plain("num_ret"),), summary="number of documents retrieved"),
    "num_rel": MetricInfo(binary.num_relevant, _REL, cutoff=False, aggregate="sum", kind="int",
                          trec=(plain("num_rel"),),
                          summary="number of relevant documents (judged, retrieved or not)"),
    "num_rel_ret": MetricInfo(binary.num_relevant_retrieved, _REL, cutoff=False, aggregate="sum",
                              kind="int", trec=(plain("num_rel_ret"),),
                              summary="number of relevant documents retrieved"),
    "num_nonrel_judged_ret": MetricInfo(
        binary.num_nonrelevant_judged_retrieved, _REL, cutoff=False, aggregate="sum", kind="int",
        trec=(plain("num_nonrel_judged_ret"),), summary="number of judged non-relevant documents retrieved"),
    "relstring": MetricInfo(judgments.relevance_string, (), aggregate="none", kind="str",
                            trec=(raw("relstring", "10", _relstring_params),),
                            summary="the labels of the top k as a string"),
    "SetP": MetricInfo(binary.precision, _REL, cutoff=False, trec=(plain("set_P"),),
                       summary="precision of the retrieved set"),
    "SetR": MetricInfo(binary.recall, _REL, cutoff=False, trec=(plain("set_recall"),),
                       summary="recall of the retrieved set"),
    "SetRelP": MetricInfo(binary.relative_precision, _REL, cutoff=False, trec=(plain("set_relative_P"),),
                          summary="relevant retrieved over min(retrieved, R)"),
    "SetAP": MetricInfo(sets.set_average_precision, _REL, cutoff=False, trec=(plain("set_map"),),
                        summary="set precision times set recall"),
    "SetF": MetricInfo(sets.set_f, ("beta", "rel"), cutoff=False,
                       trec=(raw("set_F", "1", lambda t: {"beta": _numbers(t)[0]}),),
                       summary="F-measure of the retrieved set (trec_eval's linear weight)"),
    "utility": MetricInfo(sets.utility, ("a", "b", "c", "d", "n_docs", "rel"), cutoff=False,
                          trec=(raw("utility", "1,-1,0,0", _utility_params),),
                          summary="linear utility a*r + b*(n-r) + c*(R-r) + d*(N+r-n-R)"),
    "CG": MetricInfo(graded.cumulative_gain, _GAIN, summary="cumulative gain"),
    "DCG": MetricInfo(graded.dcg, _DCG, trec=(pairs("dcg"),), summary="discounted cumulative gain"),
    "IDCG": MetricInfo(graded.idcg, _DCG, trec=(pairs("ideal_dcg"),), summary="DCG of the ideal ranking"),
    "nDCG": MetricInfo(graded.ndcg, _DCG, trec=(pairs("ndcg"), cutoffs("ndcg_cut")),
                       summary="normalised DCG, ideal from all judged documents (trec_eval ndcg)"),
    "nDCG_rel": MetricInfo(graded.ndcg_rel, _GAIN, cutoff=False, trec=(pairs("ndcg_rel"),),
                           summary="nDCG averaged over the relevant documents"),
    "RnDCG": MetricInfo(graded.rndcg, ("gain", "rel"), cutoff=False, trec=(pairs("Rndcg"),),
                        summary="nDCG averaged at the gain levels of the ideal ranking"),
    "G": MetricInfo(graded.g_measure, _GAIN, cutoff=False, trec=(pairs("G"),),
                    summary="normalized gain G (Kishida 2005)"),
    "binG": MetricInfo(graded.binary_g, _REL, cutoff=False, trec=(plain("binG"),),
                       summary="binary G (Kishida 2005)"),
    # trec_eval 10's rbp: p = 0.9, each query's labels scaled by its largest judged label
    # (ignores -l); rbp_resid: 0 when nothing retrieved is unjudged
    "RBP": MetricInfo(graded.rbp, ("p", "rel", "max_grade"),
                      trec=(pairs("rbp", _rbp_pairs, p=0.9, max_grade="query"),),
                      summary="rank-biased precision (Moffat & Zobel 2008)"),
    "RBP_residual": MetricInfo(graded.rbp_residual, ("p", "convention"),
                               trec=(pairs("rbp_resid", _rbp_pairs, p=0.9, convention="trec_eval"),),
                               summary="RBP residual: weight of unjudged ranks and the tail"),
    "ERR": MetricInfo(graded.err, ("p", "max_grade"), data_max_grade=True,
                      summary="expected reciprocal rank (Chapelle et al. 2009)"),
    # C/W/L metrics (cwl_eval's, as ir_measures names them); gains (label - min_grade) /
    # (max_grade - min_grade), max_grade by default the largest label of the data set
    "SDCG": MetricInfo(cwl.sdcg, _CWL, required=("k",), data_max_grade=True,
                       summary="scaled DCG: DCG@k over the DCG@k of k documents of gain 1"),
    "NERR8": MetricInfo(cwl.nerr8, _CWL, required=("k",), data_max_grade=True,
                        summary="not-quite ERR, C/W/L form, truncated at k (Azzopardi et al. 2021, eq. 8)"),
    "NERR9": MetricInfo(cwl.nerr9, _CWL, required=("k",), data_max_grade=True,
                        summary="not-quite ERR with its 1/i discount, truncated at k (eq. 9)"),
    "NERR10": MetricInfo(cwl.nerr10, ("p", *_CWL), cutoff=False, data_max_grade=True,
                         summary="not-quite ERR with RBP's persistence p (eq. 10)"),
    "NERR11": MetricInfo(cwl.nerr11, ("T", *_CWL), cutoff=False, data_max_grade=True,
                         summary="not-quite ERR with INSQ's patience for T units of gain (eq. 11)"),
    "INSQ": MetricInfo(cwl.insq, ("T", *_CWL), cutoff=False, data_max_grade=True,
                       summary="INSQ: C/W/L weighted precision for a user wanting T (Moffat et al. 2012)"),
    "INST": MetricInfo(cwl.inst, ("T", *_CWL), cutoff=False, data_max_grade=True,
                       summary="INST: INSQ adapting to the gain found (Moffat et al. 2015)"),
    "BPM": MetricInfo(cwl.bpm, ("T", *_CWL), required=("k",), data_max_grade=True,
                      summary="static Bejeweled Player Model: stop at gain T or k documents (Zhang et al. 2017)"),
    "Compat": MetricInfo(overlap.compatibility, ("p", "normalize"), cutoff=False,
                         summary="compatibility: RBO with the ideal ranking (Clarke et al. 2021)"),
}

#: Other names for registry entries (a spec may add parameters and @k to them).
NAME_ALIASES: dict[str, str] = {
    "recip_rank": "RR", "MRR": "RR", "R-prec": "Rprec", "R_prec": "Rprec",
    "Precision": "P", "Recall": "R",
}

#: trec_eval 10's measure table (measures.c): the order in which it prints measures.
TREC_ORDER: tuple[str, ...] = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
    "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", "yaap", "rbp", "rbp_resid", "unj",
)

#: trec_eval's nicknames for sets of measures (each measure with its default parameters).
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": tuple(m for m in TREC_ORDER if m not in ("dcg", "ideal_dcg", "yaap")),
}

#: trec_eval measure name -> (registry row, its TrecName).
TREC_FAMILIES: dict[str, tuple[str, TrecName]] = {
    trec.name: (row, trec) for row, info in REGISTRY.items() for trec in info.trec
}


# --------------------------------------------------------------------------- Metric


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
    #: The ir_measures spelling it was parsed from, printed back by ``str()`` (as
    #: ir_measures prints its measures); None for rankkit's and trec_eval's names.
    written: str | None = field(default=None, compare=False, repr=False)

    @property
    def kwargs(self) -> dict[str, Any]:
        """The parameters as keyword arguments of the metric function (``k`` excluded)."""
        return dict(self.params)

    @property
    def info(self) -> MetricInfo:
        return REGISTRY[self.name]

    def __str__(self) -> str:
        if self.written is not None:
            return self.written
        args = ", ".join(f"{key}={value!r}" for key, value in self.params)
        return self.name + (f"({args})" if args else "") + (f"@{self.k}" if self.k is not None else "")

    def __call__(self, rankings) -> np.ndarray:
        """Compute the metric on anything :func:`as_rankings` accepts."""
        kwargs = self.kwargs
        if self.k is not None:
            kwargs["k"] = self.k
        if kwargs.pop("judged_only", False):
            from ..rankings import as_rankings  # late: rankings imports io, not specs

            rankings = as_rankings(rankings).judged_only()
        return self.info.func(rankings, **kwargs)


def _metric(name: str, params: dict[str, Any], k: int | None, spec: str) -> Metric:
    """A Metric with its parameters checked against the registry row and put in its order."""
    info = REGISTRY[name]
    unknown = sorted(set(params) - set(info.params) - {"judged_only"})
    if unknown:
        allowed = ", ".join((*info.params, "judged_only"))
        hint = _cutoff_hint(name, params, spec) if {"k", "cutoff"} & set(unknown) else ""
        raise ValueError(
            f"metric {name} does not take parameter(s) {', '.join(unknown)} "
            f"(allowed: {allowed}) in metric spec {spec!r}{hint}"
        )
    if "k" in info.required and k is None:
        raise ValueError(f"metric {name} needs a cutoff @k in metric spec {spec!r}")
    missing = [p for p in info.required if p not in params and p != "k"]
    if missing:
        raise ValueError(f"metric {name} needs parameter(s) {', '.join(missing)} in metric spec {spec!r}")
    if k is not None and not info.cutoff:
        raise ValueError(f"metric {name} takes no cutoff @k, in metric spec {spec!r}")
    if "judged_only" in params and not isinstance(params["judged_only"], bool):
        raise ValueError(f"judged_only must be True or False, got {params['judged_only']!r} in metric spec {spec!r}")
    ordered = tuple((p, _freeze(params[p])) for p in (*info.params, "judged_only") if p in params)
    if ("judged_only", False) in ordered:
        ordered = tuple(pair for pair in ordered if pair != ("judged_only", False))  # the default
    return Metric(name, ordered, k)


# --------------------------------------------------------------------------- trec_eval names


def trec_columns(family: str, params: str | None = None) -> list[tuple[str, Metric]]:
    """The columns trec_eval prints for ``-m family[.params]``: (printed name, Metric) each.

    Parameters
    ----------
    family : str
        A trec_eval measure name (``P``, ``ndcg_cut``, ``iprec_at_recall``, ``utility``).
    params : str or None
        What follows the first ``.`` of ``-m`` (``"5,10"``, ``".25,.5"``, ``"1=3,2=9"``);
        None for trec_eval's defaults. Measures without parameters ignore them, as
        trec_eval does.

    Examples
    --------
    >>> [(name, str(m)) for name, m in trec_columns("P", "10,5")]
    [('P_5', 'P@5'), ('P_10', 'P@10')]
    >>> [(name, str(m)) for name, m in trec_columns("rbp", "p=0.8")]
    [('rbp_p=0.8', "RBP(p=0.8, max_grade='query')")]
    """
    spec = family + ("" if params is None else "." + params)
    try:
        return _trec_columns(family, params, spec)
    except ValueError as exc:
        if "trec_eval" in str(exc) or "metric spec" in str(exc):
            raise
        raise ValueError(f"cannot parse trec_eval parameter list {spec!r}: {exc}") from None


def _trec_columns(family: str, params: str | None, spec: str) -> list[tuple[str, Metric]]:
    row, trec = TREC_FAMILIES[family]
    fixed = dict(trec.fixed)
    if trec.kind == "plain":
        return [(family, _metric(row, fixed, None, spec))]
    if trec.kind in ("cutoffs", "levels"):
        text = trec.defaults if params is None else params
        if trec.kind == "cutoffs":
            values = sorted(_atol(v) for v in text.split(","))
            names = [f"{family}_{v}" for v in values]
        else:
            values = sorted(_atof(v) for v in text.split(","))
            names = [f"{family}_{v:3.2f}" for v in values]
        if values[0] <= 0 and trec.kind == "cutoffs":
            raise ValueError(f"k must be a positive integer, got {values[0]} in trec_eval list {spec!r}")
        if any(a == b for a, b in zip(values, values[1:])):
            raise ValueError(f"duplicate values in trec_eval list {spec!r}")
        if len(set(names)) < len(names):  # trec_eval prints two lines of one name: which is which?
            same = next(a for a, b in zip(names, names[1:]) if a == b)
            raise ValueError(f"two values of trec_eval list {spec!r} print as {same} (2 decimals)")
        if trec.kind == "cutoffs":
            return [(name, _metric(row, fixed, v, spec)) for name, v in zip(names, values)]
        return [(name, _metric(row, {**fixed, trec.param: v}, None, spec)) for name, v in zip(names, values)]
    if params is None:
        converted = trec.convert(trec.defaults) if trec.defaults else {}
        name = family
    else:
        if not params:
            raise ValueError(f"{spec}: empty parameter list")
        converted = trec.convert(params)
        name = f"{family}_{params}"
    k = converted.pop("k", None)
    return [(name, _metric(row, {**fixed, **converted}, k, spec))]


def _printed_name(spec: str) -> Metric | None:
    """The Metric of a column name as trec_eval prints it (``P_10``, ``utility``,
    ``iprec_at_recall_0.10``, ``rbp_p=0.8``), or None."""
    for family, (_, trec) in TREC_FAMILIES.items():
        if spec == family and trec.kind not in ("cutoffs", "levels"):
            return trec_columns(family)[0][1]
        if not spec.startswith(family + "_"):
            continue
        rest = spec[len(family) + 1:]
        if trec.kind == "cutoffs" and re.fullmatch(r"\d+", rest):
            return trec_columns(family, rest)[0][1]
        if trec.kind == "levels" and re.fullmatch(r"-?\d*\.\d+|-?\d+", rest):
            return trec_columns(family, rest)[0][1]
        if trec.kind == "raw" and re.fullmatch(r"[-+.,\deE]+", rest):
            return trec_columns(family, rest)[0][1]
        if trec.kind == "pairs" and "=" in rest:
            return trec_columns(family, rest)[0][1]
    return None


# --------------------------------------------------------------------------- ir_measures names

#: ir_measures' measure names (and its aliases) -> the registry row computing the same thing.
#: Its parameters are translated by :func:`_ir_measures_metric`; the values agree with
#: ir_measures' own (its providers pytrec_eval, gdeval, cwl_eval, compat, judged, msmarco) per
#: query, as ``tests/test_ir_measures.py`` and ``tests/test_cwl_measures.py`` check, except where
#: README's table of differences says.
IR_MEASURES: dict[str, str] = {
    "P": "P", "Precision": "P", "R": "R", "Recall": "R", "AP": "AP", "MAP": "AP",
    "RR": "RR", "MRR": "RR", "nDCG": "nDCG", "NDCG": "nDCG", "Rprec": "Rprec", "RPrec": "Rprec",
    "Bpref": "bpref", "BPref": "bpref", "Judged": "judged", "Success": "success", "IPrec": "iprec",
    "NumRet": "num_ret", "NumRel": "num_rel", "NumRelRet": "num_rel_ret", "NumQ": "num_q",
    "SetP": "SetP", "SetR": "SetR", "SetF": "SetF", "SetAP": "SetAP", "SetRelP": "SetRelP",
    "infAP": "infAP", "RBP": "RBP", "ERR": "ERR",
    "SDCG": "SDCG", "NERR8": "NERR8", "NERR9": "NERR9", "NERR10": "NERR10", "NERR11": "NERR11",
    "INST": "INST", "INSQ": "INSQ", "BPM": "BPM", "Compat": "Compat",
}

#: ir_measures measures whose formulas rankkit does not have (yet): a clear error, not a guess.
IR_MEASURES_MISSING = ("alpha_nDCG", "alpha_DCG", "NRBP", "nNRBP", "P_IA", "AP_IA", "ERR_IA", "nERR_IA",
                       "StRecall", "Accuracy")

#: Measures rankkit names as ir_measures does and only so: a spec of them prints back as written.
_IRM_NATIVE = {"SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ", "BPM", "Compat"}

_IRM_ONLY = {"cutoff", "gains", "dcg", "relative", "min_rel", "max_rel"}  # parameters only ir_measures' names take


def _is_ir_measures(name: str, params: dict[str, Any], at: str | None) -> bool:
    """Whether a spec is in ir_measures' dialect: a name only ir_measures has (or names
    first), one of its own parameters, or IPrec's recall level after ``@``."""
    if name in IR_MEASURES_MISSING:
        raise ValueError(f"ir_measures' {name} is not in rankkit yet; known ir_measures names: "
                         f"{', '.join(IR_MEASURES)}")
    if name not in IR_MEASURES:
        return False
    own = name in REGISTRY or name in NAME_ALIASES
    return not own or bool(_IRM_ONLY & set(params)) or name == "IPrec" or name in _IRM_NATIVE


def _ir_measures_metric(name: str, params: dict[str, Any], at: str | None, spec: str) -> Metric:
    """The Metric of an ir_measures spec (``nDCG(cutoff=10)``, ``IPrec@0.1``, ``NumRet(rel=1)``,
    ``SetP(relative=True)``, ``nDCG(gains={0: 0, 1: 1, 2: 3}, dcg='exp-log2')@10``)."""
    row, params = IR_MEASURES[name], dict(params)
    k = None
    if "cutoff" in params:
        if at is not None:
            raise ValueError(f"metric spec {spec!r} gives the cutoff twice (cutoff= and @)")
        k = _parse_k(str(params.pop("cutoff")), spec)
    if row == "iprec":
        if at is not None:
            params["recall"] = _recall_level(at, spec)
        params.setdefault("rounding", "plus_0.9")  # pytrec_eval, ir_measures' provider: trec_eval 9
    elif at is not None:
        k = _parse_k(at, spec)
    if row == "num_ret" and "rel" in params:  # ir_measures prints NumRelRet as NumRet(rel=1)
        row = "num_rel_ret"
    if row in ("SetP", "SetRelP") and params.pop("relative", row == "SetRelP"):
        row = "SetRelP"
    if row == "nDCG":
        gains = params.pop("gains", None)
        dcg = params.pop("dcg", "log2")
        if dcg not in ("log2", "exp-log2"):
            raise ValueError(f"dcg must be 'log2' or 'exp-log2', got {dcg!r} in metric spec {spec!r}")
        if gains is not None:
            if dcg != "log2":
                raise ValueError(f"metric spec {spec!r}: gains= goes with dcg='log2' only (as in ir_measures)")
            if not isinstance(gains, dict):
                raise ValueError(f"gains must be a dict {{label: gain}}, got {gains!r} in metric spec {spec!r}")
            params["gain"] = gains
        elif dcg == "exp-log2":
            params["gain"] = "exp"
    if row in _IRM_NATIVE and row != "Compat":
        _cwl_params(row, params, spec)
    return replace(_metric(row, params, k, spec), written=spec.strip())


def _cwl_params(row: str, params: dict[str, Any], spec: str) -> None:
    """ir_measures' parameters of its cwl_eval measures as rankkit's, in place: ``min_rel``
    and ``max_rel`` are ``min_grade`` and ``max_grade``; SDCG's ``dcg`` has one value."""
    for theirs, ours in (("min_rel", "min_grade"), ("max_rel", "max_grade")):
        if theirs in params:
            if ours in params:
                raise ValueError(f"metric spec {spec!r} gives {ours} twice ({theirs}= and {ours}=)")
            params[ours] = params.pop(theirs)
    if row == "SDCG" and "dcg" in params:
        dcg = params.pop("dcg")
        if dcg != "log2":
            raise ValueError(f"SDCG's dcg must be 'log2', got {dcg!r} in metric spec {spec!r}")
    if row == "BPM" and "K" in params:
        raise ValueError(f"BPM's document budget K is its cutoff, as in ir_measures: BPM(T=1.0)@{params['K']!r} "
                         f"or cutoff={params['K']!r}, in metric spec {spec!r}")


def _recall_level(text: str, spec: str) -> float:
    try:
        level = float(text)
    except ValueError:
        level = float("nan")
    if not 0 <= level <= 1:
        raise ValueError(f"the recall level of IPrec must be a number in [0, 1], got {text!r} in metric spec {spec!r}")
    return level


# --------------------------------------------------------------------------- unknown and ambiguous names


def _refuse_ambiguous(name: str, params: dict[str, Any], at: str | None, spec: str) -> None:
    """Refuse ``MAP@k`` (any case) and ``AP@k`` in any case but rankkit's own, unless
    ``normalize=`` says which AP is meant.

    AP over the top k is divided by R, the number of relevant documents, in trec_eval
    (``map_cut_k``), ir_measures (``AP@k``, ``MAP@k``) and ranx (``map@k``); recommender-systems
    libraries such as RecBole divide ``MAP@K`` by min(R, k). The two differ by a large factor
    when R is much larger than k, so a spelling that both communities use is an error naming
    both spellings, not a silent choice; ``AP@k`` (what ``str(Metric)`` prints) and
    ``map_cut_k`` keep trec_eval's meaning, ``AP(normalize='min_k')@k`` is the other. ``MAP``
    without a cutoff means the same thing everywhere and is accepted.
    """
    if name == "AP" or name.lower() not in ("map", "ap") or "normalize" in params:
        return
    given = at if at is not None else params.get("cutoff")
    if given is None:
        return
    k = _parse_k(str(given).strip(), spec)
    rest = {p: v for p, v in params.items() if p != "cutoff"}
    as_trec = str(_metric("AP", rest, k, spec)) + ("" if rest else f" or map_cut_{k}")
    as_recsys = _metric("AP", {**rest, "normalize": "min_k"}, k, spec)
    raise ValueError(
        f"metric spec {spec!r} is ambiguous: AP over the top {k} is divided by R, the number of "
        f"relevant documents, in trec_eval, ir_measures and ranx (write {as_trec}), and by "
        f"min(R, {k}) in RecBole and other recommender-systems libraries (write {as_recsys})"
    )


def _cutoff_hint(name: str, params: dict[str, Any], spec: str) -> str:
    """What to write instead of ``k=`` or ``cutoff=`` in a spec: ``nDCG(k=10)`` is ``nDCG@10``."""
    if not REGISTRY[name].cutoff:
        return f"; {name} takes no cutoff"
    given = params.get("k", params.get("cutoff"))
    rest = {p: v for p, v in params.items() if p not in ("k", "cutoff")}
    try:
        return f"; the cutoff is written @k: {_metric(name, rest, _parse_k(str(given), spec), spec)}"
    except ValueError:
        return "; the cutoff is written @k, as in nDCG@10"


_TRAILING_K = re.compile(r"(?P<stem>.*?[A-Za-z])[_.\-]?(?P<k>[0-9]+)")
_MAX_SUGGESTIONS = 4


def _unknown_message(name: str, spec: str, params: str | None, k: str | None) -> str:
    """An unknown name's error: the closest known names (rankkit, aliases, ir_measures,
    trec_eval), written with the spec's cutoff and parameters, at most four of them."""
    where = "" if spec.strip() == name else f" in metric spec {spec.strip()!r}"
    found = _suggestions(name, params, k)
    if not found:
        return f"unknown metric {name!r}{where}; no known name is close (all names: rankkit evaluate --help)"
    listed = found[0] if len(found) == 1 else ", ".join(found[:-1]) + " or " + found[-1]
    return f"unknown metric {name!r}{where}; did you mean {listed}? (all names: rankkit evaluate --help)"


def _suggestions(name: str, params: str | None, at: str | None) -> list[str]:
    """Known spellings close to ``name`` (difflib's ratio >= 0.6, case folded). A name ending
    in digits (``ndcg_cut10``, ``P10``) is also tried as a name and a cutoff."""
    k = int(at) if at is not None and at.strip().isdigit() and int(at) > 0 else None
    tries = [(name, k)]
    trailing = _TRAILING_K.fullmatch(name)
    if trailing and k is None and int(trailing["k"]) > 0:
        tries.append((trailing["stem"], int(trailing["k"])))
    pool = _name_pool()
    best: dict[str, tuple[float, int | None]] = {}  # known name (folded) -> its closeness, the cutoff
    for word, cutoff in tries:
        for key in difflib.get_close_matches(word.lower(), pool, n=_MAX_SUGGESTIONS, cutoff=0.6):
            ratio = difflib.SequenceMatcher(None, word.lower(), key).ratio()
            best[key] = max(best.get(key, (0.0, None)), (ratio, cutoff), key=lambda item: item[0])
    top = max((ratio for ratio, _ in best.values()), default=0.0)
    found: dict[str, str] = {}  # folded -> as written: nDCG@10 and NDCG@10 are one suggestion
    uncut: dict[str, str] = {}  # metrics without a cutoff, for a spec that gives one: last
    for key, (ratio, cutoff) in sorted(best.items(), key=lambda item: -item[1][0]):
        if ratio >= top - 0.15:  # far behind the closest: noise
            for known in pool[key]:
                drops_k = cutoff is not None and (known in NICKNAMES or not REGISTRY[_row_of(known)].cutoff)
                for form in _spellings(known, cutoff, params):
                    (uncut if drops_k else found).setdefault(form.lower(), form)
    return [*found.values(), *(f for key, f in uncut.items() if key not in found)][:_MAX_SUGGESTIONS]


#: Names other libraries use, suggested (not accepted: each has more than one meaning somewhere).
_OTHER_NAMES = {
    "hit_rate": "success", "hitrate": "success", "HR": "success", "average_precision": "AP",
    "mean_average_precision": "AP", "reciprocal_rank": "RR", "mean_reciprocal_rank": "RR",
    "r_precision": "Rprec",
}


def _row_of(known: str) -> str:
    """The registry row of a name :func:`_name_pool` holds."""
    if known in TREC_FAMILIES:
        return TREC_FAMILIES[known][0]
    return _lookup_name(known) or IR_MEASURES.get(known) or _OTHER_NAMES[known]


@functools.lru_cache(maxsize=1)
def _name_pool() -> dict[str, tuple[str, ...]]:
    """Every name a spec may use, folded to lower case -> the names as written."""
    pool: dict[str, dict[str, None]] = {}
    for name in (*REGISTRY, *NAME_ALIASES, *IR_MEASURES, *TREC_FAMILIES, *NICKNAMES, *_OTHER_NAMES):
        pool.setdefault(name.lower(), {})[name] = None
    return {key: tuple(names) for key, names in pool.items()}


def _spellings(known: str, k: int | None, params: str | None) -> list[str]:
    """How to write a known name with cutoff ``k`` and the spec's parameters: trec_eval's
    ``ndcg_cut_10`` and rankkit's ``nDCG@10``; never a spelling :func:`parse_metric` refuses."""
    if known in NICKNAMES:
        return [known] if params is None else []
    forms = []
    if known in TREC_FAMILIES:
        row, trec = TREC_FAMILIES[known]
        if params is None and (k is None or trec.kind == "cutoffs"):
            forms.append(known if k is None else f"{known}_{k}")
        known = row  # rankkit's spelling of the same metric
    row = _row_of(known)
    if known in _OTHER_NAMES:
        known = row
    info = REGISTRY[row]
    if [p for p in info.required if p != "k"] or ("k" in info.required and k is None):
        return forms
    args = f"({params})" if params is not None else ""
    at = f"@{k}" if k is not None and info.cutoff else ""
    if known.lower() in ("map", "ap") and at:  # MAP@k is refused: both meanings
        return forms + [f"AP{args}{at}", f"AP(normalize='min_k'{', ' + params if params else ''}){at}",
                        *([f"map_cut_{k}"] if params is None else [])]
    forms += [f"{known}{args}{at}", f"{row}{args}{at}"]
    if at and params is None:
        forms += [f"{t.name}_{k}" for t in info.trec if t.kind == "cutoffs"]
    return forms


# --------------------------------------------------------------------------- specs


_SPEC = re.compile(
    r"""^\s*(?P<name>[A-Za-z_][\w.\-]*?)\s*
        (?:\((?P<params>.*)\))?\s*
        (?:@\s*(?P<k>[^@()]*?))?\s*$""",
    re.VERBOSE | re.DOTALL,
)


def _lookup_name(name: str) -> str | None:
    """The registry row a spec's name means, or None: a registry name or alias, a trec_eval
    name without parameters, then the same case-insensitively (``ndcg`` is nDCG)."""
    if name in REGISTRY:
        return name
    if name in NAME_ALIASES:
        return NAME_ALIASES[name]
    if name in TREC_FAMILIES and TREC_FAMILIES[name][1].kind in ("plain", "pairs") and not TREC_FAMILIES[name][1].fixed:
        return TREC_FAMILIES[name][0]
    folded = {n.lower(): n for n in REGISTRY} | {a.lower(): t for a, t in NAME_ALIASES.items()}
    return folded.get(name.lower())


def _resolve_name(name: str, spec: str, params: str | None = None, k: str | None = None) -> str:
    """:func:`_lookup_name`, or a ValueError suggesting the closest known names."""
    row = _lookup_name(name)
    if row is None:
        raise ValueError(_unknown_message(name, spec, params, k))
    return row


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


def _parse_k(text: str, spec: str, zero: bool = False) -> int:
    """The cutoff of a spec: a positive integer (or 0 when ``zero``)."""
    if not re.fullmatch(r"-?[0-9]+", text):
        raise ValueError(f"k must be a positive integer, got {text!r} in metric spec {spec!r}")
    k = int(text)
    if k < 0 or (k == 0 and not zero):
        raise ValueError(f"k must be a positive integer, got {k} in metric spec {spec!r}")
    return k


def parse_metric(spec: str | Metric) -> Metric:
    """Parse one metric spec ``NAME(param=value, ...)@k`` into a :class:`Metric`.

    Parameters
    ----------
    spec : str or Metric
        A registry name (see :data:`REGISTRY`: ``P``, ``R``, ``AP``, ``nDCG``, ``RBP``,
        ``SetF``, ``utility``, ...) or an alias (``map``, ``ndcg``, ``recip_rank``, ``MRR``),
        optional named parameters with literal values (a bare word is a string:
        ``nDCG(gain=exp)``), optional cutoff ``@k``; or a column name as trec_eval prints
        it (``P_10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``, ``Rprec_mult_0.20``,
        ``rbp``, ``utility_2,-1,0,0``). Names are matched case-sensitively first, then
        case-insensitively (``ndcg@10`` is ``nDCG@10``). A Metric passes through.

    Returns
    -------
    Metric

    Raises
    ------
    ValueError
        Unknown name (the message suggests the closest known names, written with the
        spec's cutoff: ``ndgc@10`` -> ``nDCG@10``, ``ndcg_cut_10``), a parameter the metric
        does not take (``nDCG(k=10)``: the message says the cutoff is written ``nDCG@10``),
        a missing required parameter, ``@k`` on a metric without cutoff, k not a positive
        integer, or an ambiguous AP (below).

    Notes
    -----
    ``MAP@k`` means two things. trec_eval (``map_cut_k``), ir_measures (``AP@k``, ``MAP@k``)
    and ranx (``map@k``) divide the precisions at the relevant documents of the top k by R,
    the number of relevant documents; recommender-systems libraries (RecBole's ``MAP@K``)
    divide by min(R, k). rankkit refuses ``MAP@k`` in any case, and ``AP@k`` in any case but
    its own, without ``normalize=``, and the message gives both spellings: ``AP@k`` (or
    ``map_cut_k``) for trec_eval's, ``AP(normalize='min_k')@k`` for the other. ``AP@k``,
    ``map_cut_k``, ``MAP`` and ``map`` (no cutoff: the same everywhere) are accepted.

    Examples
    --------
    >>> parse_metric("AP(normalize='min_k')@5")
    Metric(name='AP', params=(('normalize', 'min_k'),), k=5)
    >>> str(parse_metric("iprec_at_recall_0.10")), str(parse_metric("Rprec_mult_0.20"))
    ("iprec(recall=0.1, rounding='nearest')", 'Rprec(multiple=0.2)')
    >>> parse_metric("P@0")
    Traceback (most recent call last):
    ...
    ValueError: k must be a positive integer, got 0 in metric spec 'P@0'
    >>> parse_metric("ndgc@10")
    Traceback (most recent call last):
    ...
    ValueError: unknown metric 'ndgc' in metric spec 'ndgc@10'; did you mean nDCG@10, ndcg_cut_10 or RnDCG? (all names: rankkit evaluate --help)
    """
    if isinstance(spec, Metric):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"a metric spec must be a string or Metric, got {type(spec).__name__}")
    printed = _printed_name(spec.strip())
    if printed is not None:
        return printed
    match = _SPEC.match(spec)
    if not match:
        raise ValueError(
            f"cannot parse metric spec {spec!r}: expected NAME(param=value, ...)@k, e.g. nDCG@10"
        )
    params = _parse_params(match["params"], spec) if match["params"] is not None else {}
    _refuse_ambiguous(match["name"], params, match["k"], spec)
    if _is_ir_measures(match["name"], params, match["k"]):
        return _ir_measures_metric(match["name"], params, match["k"], spec)
    name = _resolve_name(match["name"], spec, match["params"], match["k"])
    # relstring@0: an empty string (trec_eval's relstring.0)
    k = _parse_k(match["k"], spec, zero=name == "relstring") if match["k"] is not None else None
    return _metric(name, params, k, spec)


def expand_metrics(
    metrics: str | Metric | Iterable[str | Metric], *, trec_names_first: bool = False
) -> dict[str, Metric]:
    """Column name -> Metric for every spec, in order.

    A column is named by the spec as written (stripped; a Metric by its canonical spec),
    so ``table["ndcg_cut_10"]`` works when that is what was asked for. trec_eval's
    ``-m`` forms expand to one column per value, named as trec_eval prints them: a
    parameter list (``P.5,10``, ``ndcg_cut.10,20``, ``iprec_at_recall..10,.20``,
    ``ndcg.1=3,2=9``, ``utility.2,-1,0,0``), a nickname (``official``, ``all_trec``,
    ``set``: every measure of the set, in trec_eval's order) and a family name that is
    not a rankkit name (``ndcg_cut``, ``map_cut``, ``iprec_at_recall``: its default
    parameters). With ``trec_names_first`` (the command line) every trec_eval name means
    what it means to trec_eval, so ``P`` is P_5 ... P_1000, not precision of the whole
    list. Repeated columns are computed once.

    Examples
    --------
    >>> {name: str(m) for name, m in expand_metrics(["P.10,5", "map", "nDCG@10"]).items()}
    {'P_5': 'P@5', 'P_10': 'P@10', 'map': 'AP', 'nDCG@10': 'nDCG@10'}
    >>> list(expand_metrics("set"))
    ['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'utility', 'set_P', 'set_relative_P', 'set_recall', 'set_map', 'set_F']
    """
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    if not isinstance(metrics, Iterable):
        raise ValueError(f"metrics must be a spec or a list of specs (e.g. ['nDCG@10', 'AP']), got {metrics!r}")
    columns: dict[str, Metric] = {}
    for spec in metrics:
        if isinstance(spec, Metric):
            columns.setdefault(str(spec), spec)
            continue
        if not isinstance(spec, str):
            raise ValueError(f"a metric spec must be a string or Metric, got {type(spec).__name__}")
        for column, metric in _expand_one(spec.strip(), trec_names_first):
            columns.setdefault(column, metric)
    if not columns:
        raise ValueError("metrics must name at least one metric")
    return columns


def _expand_one(spec: str, trec_names_first: bool) -> list[tuple[str, Metric]]:
    if spec in NICKNAMES:
        wanted = set(NICKNAMES[spec])
        return [pair for family in TREC_ORDER if family in wanted for pair in trec_columns(family)]
    family, dot, params = spec.partition(".")
    if dot and family in TREC_FAMILIES and "(" not in spec and "@" not in spec:
        return trec_columns(family, params)
    if family in TREC_FAMILIES and not dot:
        kind = TREC_FAMILIES[family][1].kind
        if trec_names_first or (kind in ("cutoffs", "levels") and not _is_rankkit_name(family)):
            return trec_columns(family)
    return [(spec, parse_metric(spec))]


def _is_rankkit_name(name: str) -> bool:
    return _lookup_name(name) is not None
