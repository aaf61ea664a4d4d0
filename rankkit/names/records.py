"""The registry: one record per metric.

A record (:class:`MetricInfo`) holds everything rankkit knows about a metric: its function,
its names (rankkit's canonical name and aliases, trec_eval's names with their place in
trec_eval's print order, ir_measures' names), its typed parameters (:class:`Param`: type,
default, range, description), whether it takes a cutoff, how the ``all`` line aggregates
it, and what it is computed from (:attr:`MetricInfo.judgments`: relevance judgments, or
trec_eval's preferences and judgment groups, or a recommender's lists and training
interactions). Adding a metric touches its family's module (:mod:`rankkit.metrics`) and its record
here; the tables of names (:data:`NAME_ALIASES`, :data:`TREC_ORDER`, :data:`TREC_FAMILIES`,
:data:`NICKNAMES`, :data:`IR_MEASURES`) are derived from the records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_option
from ..metrics import (
    binary,
    cwl,
    diversity,
    graded,
    incomplete,
    label_ranking,
    ltr,
    overlap,
    pairwise,
    preferences,
    set_based,
    unranked,
)
from ..ops.primitives import count
from . import parameters as P
from .parameters import Param
from .trec_eval import (
    ALL_PREFS,
    OFFICIAL,
    PREFS,
    QRELS_JG,
    SET,
    TrecName,
    beta_params,
    cutoffs,
    levels,
    levels_params,
    pairs,
    plain,
    raw,
    rbp_pairs,
    relstring_params,
    utility_params,
)

__all__ = ["MetricInfo", "REGISTRY", "NAME_ALIASES", "TREC_ORDER", "TREC_FAMILIES", "NICKNAMES", "IR_MEASURES",
           "JUDGMENTS", "lookup_name", "refuse_other_judgments", "refuse_score_metrics"]

#: What a record's metric is computed from (:attr:`MetricInfo.judgments`).
JUDGMENTS = ("qrels", "prefs", "qrels_jg", "interactions")


def no_relevant_document(rankings, *, rel: float | None = None, no_relevant: float = 0.0, gain=None, **_) -> list:
    """The queries a rank metric scores ``no_relevant`` (0 unless set) for want of a relevant
    document: none with a label >= ``rel`` for a metric with a relevance level, none with a
    positive label (no gain to find) for the graded ones, and for a gain mapping none whose
    gain is positive (``{1: 0, 2: 0}`` leaves every query without one: ideal DCG 0)."""
    what = "relevant document" if gain is None or isinstance(gain, str) else "document of positive gain"
    reason = (f"no {what}: {no_relevant:g}, as no_relevant={no_relevant:g} sets it" if no_relevant
              else f"no {what}: 0, as rk.evaluate scores it")
    if rel is not None:
        return [(rankings.n_relevant(rel) == 0, reason)]
    if what == "relevant document":
        return [(count(rankings.ideal > 0) == 0, reason)]
    return [(graded.idcg(rankings, k=1, gain=gain) <= 0, reason)]  # the gains of the ideal, highest first


def no_nonrelevant_document(rankings, *, rel: float = 1, **_) -> list:
    """The queries fall-out scores 0 for want of a judged non-relevant document."""
    return [(rankings.n_judged - rankings.n_relevant(rel) == 0, "no judged non-relevant document: 0")]


def one_class(rankings, *, rel: float = 1, **_) -> list:
    """The queries LRAP scores 1 for holding one class only (scikit-learn's rule)."""
    n_rel = rankings.n_relevant(rel)
    return [((n_rel == 0) | (n_rel == rankings.n_judged),
             "no relevant or no non-relevant document: 1, as scikit-learn scores it")]


def every_query_scored(rankings, **_) -> list:
    """No query: a count or a fraction with a value for every query, relevant documents or
    not (num_ret is what was retrieved, judged@k 1 for a judged list, utility -n)."""
    return []


def no_rndcg_level(rankings, *, rel: float = 1, gain="linear", **_) -> list:
    """RnDCG's two rules: 0 without a relevant document (trec_eval's -l decides it), nan with
    relevant documents but no positive gain (no gain level to average at)."""
    return [*no_relevant_document(rankings, rel=rel),
            (graded.idcg(rankings, k=1, gain=gain) <= 0, "no document of positive gain: nan, no level to average at")]


@dataclass(frozen=True)
class MetricInfo:
    """One record of the registry: a metric, its names and its parameters.

    Attributes
    ----------
    name : str
        rankkit's canonical name (the key of :data:`REGISTRY`, what ``str(Metric)`` prints).
    func : callable or None
        ``func(rankings, **params)`` -> one value per query, for the metrics of relevance
        judgments (``judgments="qrels"``). Of the others (:attr:`judgments`), ``func`` takes
        what they are computed from: ``prefs``, the
        :class:`~rankkit.metrics.preferences.RankedPreferences` of
        :func:`~rankkit.metrics.preferences.rank_preferences`; ``qrels_jg``, a Rankings with
        one row per judgment group (its values are then averaged over each query's groups,
        :func:`~rankkit.metrics.preferences.average_over_groups`); ``interactions``: None,
        the function is ``rk.<name>`` (:mod:`rankkit.recommender`, a layer above the records).
    parameters : tuple of Param
        The keyword parameters a spec may set (``k`` excluded), typed. A record with
        ``rel`` takes the relevance level of ``evaluate(rel=...)`` (trec_eval ``-l``); one
        with ``n_docs``, ``evaluate(n_docs=...)`` (trec_eval ``-N``).
    cutoff : bool
        Whether the spec takes ``@k`` (passed as ``k=``).
    aggregate : {"mean", "sum", "gmean", "first", "none", "rows", "pairs", "weighted", "run"}
        The ``all`` line: the mean over queries; the sum (counts, printed as integers);
        the geometric mean with trec_eval's floor 1e-5 (gm_map); the run's value (runid);
        none (relstring). The metrics of model scores (``scores``) aggregate in
        :func:`rankkit.evaluation.evaluate_scores`: over every row of every query at once
        (``rows``: AUC, MSE, MAE), over the pairs of documents within each query
        (``pairs``: PNR, concordant over discordant), or as a weighted mean of the
        per-query values (``weighted``: GAUC). ``run``: one value for the whole run, not
        per query (catalog coverage, exposure entropy, Gini index of a recommender).
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
        trec_eval's names for it, each with its place in trec_eval's print order.
    summary : str
        One line for the help text.
    batch : callable or None
        ``batch(rankings, values, **params)`` -> array (n_queries, len(values)): the metric
        at several values of its first parameter in one pass (``iprec``: every recall
        level of trec_eval's ``iprec_at_recall`` from one interpolation).
    aliases : tuple of str
        Other rankkit names for it (``MRR``, ``recip_rank``).
    ir_measures : tuple of str
        ir_measures' names for it (``nDCG``, ``NDCG``).
    scores : bool
        It takes the model's scores themselves, not only the order they give (AUC, GAUC,
        PNR, MSE, MAE): :func:`rankkit.evaluation.evaluate_scores` computes it from labels
        and scores; :func:`rankkit.evaluate`, given a run's ranked documents, refuses it.
    any_library : bool
        Its kernel is written over the array API (:mod:`rankkit.ops.primitives`): it runs on
        NumPy and on every array-API library (JAX, PyTorch, CuPy, array-api-strict), the same
        function on each. The others take NumPy arrays only.
    per_query : callable or None
        A metric of model scores: ``per_query(rankings, scores, **params)`` -> each query's
        value, from the ranking of its scores (``scores``: the score at each rank).
    total : callable or None
        A metric of model scores: its aggregate, ``total(rankings, scores, values, ties=...,
        **params)`` (the ``aggregate`` rule written out).
    unscored : callable
        ``unscored(rankings, **params)`` -> ``[(mask, reason), ...]``: the queries it cannot
        score (``nan``), or scores 0 for want of a relevant document, and why.
    left_out : str
        What its aggregate does with a query it cannot score (said in the warning).
    judgments : {"qrels", "prefs", "qrels_jg", "interactions"}
        What it is computed from. ``qrels``: a run and relevance judgments, as
        :func:`rankkit.evaluate` takes them. ``prefs``: preference judgments (trec_eval
        ``-R prefs`` or ``-R qrels_prefs``; ``rk.evaluate(rk.read_prefs(path), run, [...])``).
        ``qrels_jg``: judgment groups (trec_eval ``-R qrels_jg``; ``rk.read_prefs(path,
        "qrels_jg")``). ``interactions``: a recommender's lists with the training
        interactions (``rk.recommendations(run, train)``, then ``rk.<name>`` or
        ``rk.beyond_accuracy``), never through ``rk.evaluate``. :func:`rk.evaluate
        <rankkit.evaluate>` on relevance judgments, and ``evaluate_scores``, refuse all but
        ``qrels`` with a message saying what to call (:func:`refuse_other_judgments`).
    """

    name: str
    func: Callable[..., Any] | None
    parameters: tuple[Param, ...] = ()
    cutoff: bool = True
    aggregate: str = "mean"
    kind: str = "float"
    summary_only: bool = False
    required: tuple[str, ...] = ()
    data_max_grade: bool = False
    trec: tuple[TrecName, ...] = ()
    summary: str = ""
    batch: Callable[..., np.ndarray] | None = None
    aliases: tuple[str, ...] = ()
    ir_measures: tuple[str, ...] = ()
    scores: bool = False
    any_library: bool = False
    per_query: Callable[..., Any] | None = None
    total: Callable[..., Any] | None = None
    unscored: Callable[..., list] = no_relevant_document
    left_out: str = ""
    judgments: str = "qrels"

    def __post_init__(self) -> None:
        check_option(self.judgments, JUDGMENTS, "judgments")
        if (self.func is None) != (self.judgments == "interactions"):
            raise ValueError(f"record {self.name}: func is None for the interactions measures, and only for them")

    @property
    def params(self) -> tuple[str, ...]:
        """The names of :attr:`parameters`, in order."""
        return tuple(p.name for p in self.parameters)

    @property
    def level(self) -> bool:
        """Whether trec_eval's relevance level (``-l``) sets its ``rel``."""
        return "rel" in self.params

    def parameter(self, name: str) -> Param:
        """The parameter called ``name`` (KeyError if it takes none)."""
        for param in self.parameters:
            if param.name == name:
                return param
        raise KeyError(name)


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


# --------------------------------------------------------------------------- metrics of model scores


def _auc_of_ranking(rankings, scores, *, rel=1, weights=None):
    """Each query's AUC (GAUC's too), from the ranking of its scores."""
    return pairwise.auc(rankings, rel=rel)


def _auc_of_all_rows(rankings, scores, values, *, ties, rel=1):
    """AUC over every row of every query at once (a classifier's AUC)."""
    return pairwise.pooled_auc(rankings.labels[rankings.judged], scores[rankings.judged], ties=ties, rel=rel)


def _gauc_of_values(rankings, scores, values, *, ties, weights="rows", rel=1):
    return pairwise.gauc_total(rankings, values, weights=weights, rel=rel)


def _pnr_of_ranking(rankings, scores, *, label_ties="ignore"):
    return pairwise.pnr(rankings, label_ties=label_ties)


def _pnr_of_all_pairs(rankings, scores, values, *, ties, label_ties="ignore"):
    return pairwise.pnr_total(rankings, label_ties=label_ties)


def _error(func):
    """MSE or MAE: per query from the score at each rank, and over every row at once."""
    def per_query(rankings, scores):
        return func(rankings, scores)

    def total(rankings, scores, values, *, ties):
        return func(rankings.labels[rankings.judged], scores[rankings.judged])

    return {"per_query": per_query, "total": total, "unscored": lambda rankings: []}


_REL = (P.REL,)
_GAUC_WEIGHTS = P.Param("weights", "text", "rows",
                        "weight of a query's AUC: its documents, 1, its positives, or its (positive, negative) pairs",
                        lambda value: check_option(value, pairwise.GAUC_WEIGHTS, "weights"),
                        choices=pairwise.GAUC_WEIGHTS)
_LABEL_TIES = P.Param("label_ties", "text", "ignore",
                      "pairs with equal labels: left out, or counted concordant (Wang Shusen's slides)",
                      lambda value: check_option(value, pairwise.PNR_LABEL_TIES, "label_ties"),
                      choices=pairwise.PNR_LABEL_TIES)
_SCORES = {"cutoff": False, "scores": True, "any_library": True}
_AUC = {"unscored": pairwise.auc_unscored, "left_out": "nan, left out of the weighted mean", **_SCORES}
_ANY = {"any_library": True}
_DCG = (P.GAIN, P.DISCOUNT, P.BASE)
_COUNT = {"cutoff": False, "aggregate": "sum", "kind": "int"}
_CWL = {"data_max_grade": True}
_JG = {"judgments": "qrels_jg", "unscored": every_query_scored}
_RECOMMENDER = {"judgments": "interactions", "unscored": every_query_scored}


def _prefs(name: str, at: int, summary: str, *, count: bool = False) -> MetricInfo:
    """A preference measure (trec_eval ``-R prefs``): its kernel in :mod:`rankkit.metrics.preferences`
    is called as trec_eval names it, and takes no parameter."""
    kind = _COUNT if count else {"cutoff": False}
    return MetricInfo(name, getattr(preferences, name), trec=(plain(name, at=at, all_trec=False),),
                      summary=summary, judgments="prefs", unscored=every_query_scored, **kind)


_RECORDS = (
    MetricInfo("P", binary.precision, (P.REL, P.PRECISION_NORMALIZE), trec=(cutoffs("P", at=11),),
               summary="precision at k",
               aliases=("Precision",), ir_measures=("P", "Precision"), **_ANY),
    MetricInfo("R", binary.recall, _REL, trec=(cutoffs("recall", at=13),), summary="recall at k",
               aliases=("Recall",), ir_measures=("R", "Recall"), **_ANY),
    MetricInfo("RelP", binary.relative_precision, _REL, trec=(cutoffs("relative_P", at=28),),
               summary="relevant in the top k over min(k, R)"),
    MetricInfo("Rprec", binary.r_precision, (P.MULTIPLE, P.REL), cutoff=False,
               trec=(plain("Rprec", at=7),
                     levels("Rprec_mult", "multiple", ".2,.4,.6,.8,1,1.2,1.4,1.6,1.8,2", at=16)),
               summary="precision at rank R (multiple=x: at x * R)",
               aliases=("R-prec", "R_prec"), ir_measures=("Rprec", "RPrec")),
    MetricInfo("success", binary.success, _REL, trec=(cutoffs("success", "1,5,10", at=29),),
               summary="1 if a relevant document is in the top k, else 0", ir_measures=("Success",), **_ANY),
    MetricInfo("AP", binary.average_precision, (P.REL, P.NORMALIZE, P.AP_TIED, P.NO_RELEVANT_RANKED),
               trec=(plain("map", at=5), cutoffs("map_cut", at=27)),
               summary="average precision (trec_eval map, map_cut)", ir_measures=("AP", "MAP"), **_ANY),
    MetricInfo("GMAP", binary.average_precision, _REL, cutoff=False, aggregate="gmean", summary_only=True,
               trec=(plain("gm_map", at=6),), summary="AP per query; the geometric mean over queries"),
    MetricInfo("YAAP", binary.yaap, _REL, cutoff=False, trec=(plain("yaap", at=53, all_trec=False),),
               summary="yet another AP: log((1 + S) / (1 + R - S)), S = R * AP (Robertson 2012)"),
    MetricInfo("RR", binary.reciprocal_rank, (P.REL, P.NO_RELEVANT_RANKED), trec=(plain("recip_rank", at=9),),
               summary="reciprocal rank of the first relevant document",
               aliases=("recip_rank", "MRR"), ir_measures=("RR", "MRR"), **_ANY),
    MetricInfo("fallout", binary.fallout, _REL,
               summary="fraction of the judged non-relevant documents in the top k (torchmetrics' fall-out)",
               unscored=no_nonrelevant_document, **_ANY),
    MetricInfo("LRAP", label_ranking.lrap, _REL, cutoff=False,
               summary="label-ranking average precision; 1 without a relevant or a non-relevant document "
                       "(scikit-learn)", unscored=one_class, **_ANY),
    MetricInfo("bpref", binary.bpref, (P.REL, P.BPREF_NORMALIZE), cutoff=False, trec=(plain("bpref", at=8),),
               summary="binary preference (Buckley & Voorhees 2004)", ir_measures=("Bpref", "BPref")),
    MetricInfo("GM_bpref", binary.bpref, _REL, cutoff=False, aggregate="gmean", summary_only=True,
               trec=(plain("gm_bpref", at=15),), summary="bpref per query; the geometric mean over queries"),
    MetricInfo("iprec", _iprec, (P.RECALL, P.REL, P.ROUNDING), cutoff=False, required=("recall",),
               trec=(levels("iprec_at_recall", "recall", at=10, rounding="nearest"),),
               batch=_iprec_levels, ir_measures=("IPrec",),
               summary="interpolated precision at a recall level: the best precision at "
                       "recall >= it (rounding='nearest': trec_eval 10, 'plus_0.9': 9)"),
    MetricInfo("iprec_avg", _iprec_avg, (P.LEVELS, P.REL, P.ROUNDING), cutoff=False,
               trec=(raw("11pt_avg", "0,.1,.2,.3,.4,.5,.6,.7,.8,.9,1", levels_params, at=18, rounding="nearest"),),
               summary="mean interpolated precision over recall levels (11-point average)"),
    MetricInfo("infAP", incomplete.inferred_average_precision, _REL, cutoff=False, trec=(plain("infAP", at=14),),
               summary="inferred AP from a sampled pool (Yilmaz & Aslam 2006)", ir_measures=("infAP",)),
    MetricInfo("judged", binary.judged, (), summary="fraction of the top k that is judged", ir_measures=("Judged",),
               unscored=every_query_scored),
    MetricInfo("unjudged", incomplete.unjudged, (), trec=(cutoffs("unj", "5,10,20", at=56),),
               summary="fraction of the top k ranks holding an unjudged document"),
    MetricInfo("runid", _run_name, cutoff=False, aggregate="first", kind="str", summary_only=True,
               trec=(plain("runid", at=0),), summary="the run's tag (its last line's)"),
    MetricInfo("num_q", _one, summary_only=True, trec=(plain("num_q", at=1),), summary="number of queries scored",
               ir_measures=("NumQ",), unscored=every_query_scored, **_COUNT),
    MetricInfo("num_ret", binary.num_retrieved, (), trec=(plain("num_ret", at=2),),
               summary="number of documents retrieved", ir_measures=("NumRet",), unscored=every_query_scored, **_COUNT),
    MetricInfo("num_rel", binary.num_relevant, _REL, trec=(plain("num_rel", at=3),),
               summary="number of relevant documents (judged, retrieved or not)", ir_measures=("NumRel",), **_COUNT),
    MetricInfo("num_rel_ret", binary.num_relevant_retrieved, _REL, trec=(plain("num_rel_ret", at=4),),
               summary="number of relevant documents retrieved", ir_measures=("NumRelRet",), **_COUNT),
    MetricInfo("num_nonrel_judged_ret", binary.num_nonrelevant_judged_retrieved, _REL,
               trec=(plain("num_nonrel_judged_ret", at=35),),
               summary="number of judged non-relevant documents retrieved", unscored=every_query_scored, **_COUNT),
    MetricInfo("relstring", incomplete.relevance_string, (), aggregate="none", kind="str",
               trec=(raw("relstring", "10", relstring_params, at=12),),
               summary="the labels of the top k as a string"),
    MetricInfo("SetP", binary.precision, _REL, cutoff=False, trec=(plain("set_P", at=30),),
               summary="precision of the retrieved set", ir_measures=("SetP",)),
    MetricInfo("SetR", binary.recall, _REL, cutoff=False, trec=(plain("set_recall", at=32),),
               summary="recall of the retrieved set", ir_measures=("SetR",)),
    MetricInfo("SetRelP", binary.relative_precision, _REL, cutoff=False, trec=(plain("set_relative_P", at=31),),
               summary="relevant retrieved over min(retrieved, R)", ir_measures=("SetRelP",)),
    MetricInfo("SetAP", set_based.set_average_precision, _REL, cutoff=False, trec=(plain("set_map", at=33),),
               summary="set precision times set recall", ir_measures=("SetAP",)),
    MetricInfo("SetF", set_based.set_f, (P.BETA, P.REL), cutoff=False,
               trec=(raw("set_F", "1", beta_params, at=34),), ir_measures=("SetF",),
               summary="F-measure of the retrieved set (trec_eval's linear weight)"),
    MetricInfo("utility", set_based.utility, (*P.UTILITY, P.N_DOCS, P.REL), cutoff=False,
               trec=(raw("utility", "1,-1,0,0", utility_params, at=17),),
               summary="linear utility a*r + b*(n-r) + c*(R-r) + d*(N+r-n-R)", unscored=every_query_scored),
    MetricInfo("CG", graded.cumulative_gain, (P.GAIN,), summary="cumulative gain", **_ANY),
    MetricInfo("DCG", graded.dcg, _DCG, trec=(pairs("dcg", at=21, all_trec=False),),
               summary="discounted cumulative gain", **_ANY),
    MetricInfo("IDCG", graded.idcg, _DCG, trec=(pairs("ideal_dcg", at=22, all_trec=False),),
               summary="DCG of the ideal ranking"),
    MetricInfo("nDCG", graded.ndcg, (*_DCG, P.NO_RELEVANT), trec=(pairs("ndcg", at=23), cutoffs("ndcg_cut", at=26)),
               summary="normalised DCG, ideal from all judged documents (trec_eval ndcg)",
               ir_measures=("nDCG", "NDCG"), **_ANY),
    MetricInfo("nDCG_rel", graded.ndcg_rel, (P.GAIN,), cutoff=False, trec=(pairs("ndcg_rel", at=24),),
               summary="nDCG averaged over the relevant documents"),
    MetricInfo("RnDCG", graded.rndcg, (P.GAIN, P.REL), cutoff=False, trec=(pairs("Rndcg", at=25),),
               summary="nDCG averaged at the gain levels of the ideal ranking", unscored=no_rndcg_level),
    MetricInfo("G", graded.g_measure, (P.GAIN,), cutoff=False, trec=(pairs("G", at=20),),
               summary="normalized gain G (Kishida 2005)"),
    MetricInfo("binG", graded.binary_g, _REL, cutoff=False, trec=(plain("binG", at=19),),
               summary="binary G (Kishida 2005)"),
    # trec_eval 10's rbp: p = 0.9, each query's labels scaled by its largest judged label
    # (ignores -l); rbp_resid: 0 when nothing retrieved is unjudged
    MetricInfo("RBP", graded.rbp, (P.RBP_P, P.REL, P.RBP_MAX_GRADE),
               trec=(pairs("rbp", rbp_pairs, at=54, p=0.9, max_grade="query"),),
               summary="rank-biased precision (Moffat & Zobel 2008)", ir_measures=("RBP",), **_ANY),
    MetricInfo("RBP_residual", graded.rbp_residual, (P.RBP_P, P.CONVENTION),
               trec=(pairs("rbp_resid", rbp_pairs, at=55, p=0.9, convention="trec_eval"),),
               summary="RBP residual: weight of unjudged ranks and the tail", unscored=every_query_scored),
    MetricInfo("ERR", graded.err, (P.ERR_P, P.ERR_MAX_GRADE, P.ERR_STOP), data_max_grade=True,
               summary="expected reciprocal rank (Chapelle et al. 2009)", ir_measures=("ERR",), **_ANY),
    # C/W/L metrics (cwl_eval's, as ir_measures names them); gains (label - min_grade) /
    # (max_grade - min_grade), max_grade by default the largest label of the data set
    MetricInfo("SDCG", cwl.sdcg, P.CWL, required=("k",), ir_measures=("SDCG",),
               summary="scaled DCG: DCG@k over the DCG@k of k documents of gain 1", **_CWL),
    MetricInfo("NERR8", cwl.nerr8, P.CWL, required=("k",), ir_measures=("NERR8",),
               summary="not-quite ERR, C/W/L form, truncated at k (Azzopardi et al. 2021, eq. 8)", **_CWL),
    MetricInfo("NERR9", cwl.nerr9, P.CWL, required=("k",), ir_measures=("NERR9",),
               summary="not-quite ERR with its 1/i discount, truncated at k (eq. 9)", **_CWL),
    MetricInfo("NERR10", cwl.nerr10, (P.NERR_P, *P.CWL), cutoff=False, ir_measures=("NERR10",),
               summary="not-quite ERR with RBP's persistence p (eq. 10)", **_CWL),
    MetricInfo("NERR11", cwl.nerr11, (P.T, *P.CWL), cutoff=False, ir_measures=("NERR11",),
               summary="not-quite ERR with INSQ's patience for T units of gain (eq. 11)", **_CWL),
    MetricInfo("INSQ", cwl.insq, (P.T, *P.CWL), cutoff=False, ir_measures=("INSQ",),
               summary="INSQ: C/W/L weighted precision for a user wanting T (Moffat et al. 2012)", **_CWL),
    MetricInfo("INST", cwl.inst, (P.T, *P.CWL), cutoff=False, ir_measures=("INST",),
               summary="INST: INSQ adapting to the gain found (Moffat et al. 2015)", **_CWL),
    MetricInfo("BPM", cwl.bpm, (P.T, *P.CWL), required=("k",), ir_measures=("BPM",),
               summary="static Bejeweled Player Model: stop at gain T or k documents (Zhang et al. 2017)", **_CWL),
    MetricInfo("Compat", overlap.compatibility, (P.COMPAT_P, P.COMPAT_NORMALIZE), cutoff=False,
               ir_measures=("Compat",), summary="compatibility: RBO with the ideal ranking (Clarke et al. 2021)"),
    # the measures of learning-to-rank libraries (TensorFlow Ranking, CatBoost): rankkit.metrics.ltr
    MetricInfo("ARP", ltr.average_relevance_position, (), cutoff=False, unscored=ltr.no_positive_label,
               summary="average relevance position: the label-weighted mean rank, lower is better "
                       "(TensorFlow Ranking)", **_ANY),
    MetricInfo("PWA", ltr.position_weighted_average, (),
               summary="position-weighted average of the labels of the top k, weights 1/i (TensorFlow Ranking)",
               **_ANY),
    MetricInfo("OPA", ltr.ordered_pair_accuracy, (), cutoff=False, unscored=ltr.no_pair_opa,
               summary="ordered pair accuracy: the pairs of different labels ranked in their order "
                       "(TensorFlow Ranking)", **_ANY),
    MetricInfo("PFound", ltr.pfound, (P.PFOUND_DECAY, P.PFOUND_MAX_GRADE), data_max_grade=True,
               summary="pFound: the chance of finding a relevant document, labels as probabilities "
                       "(Yandex, CatBoost)", **_ANY),
    MetricInfo("QueryAUC", ltr.query_auc, (), aggregate="pairs",
               summary="CatBoost's QueryAUC: pairs of different labels ordered by score, equal scores 1/2; "
                       "all: the pairs of every query pooled (evaluate_scores only)",
               per_query=lambda rankings, scores: ltr.query_auc(rankings),
               total=lambda rankings, scores, values, *, ties: ltr.query_auc_total(rankings),
               unscored=ltr.no_pair, left_out="nan: no pair of different labels, none in the pooled pairs either",
               **_SCORES),
    MetricInfo("LogLoss", ltr.log_loss, (P.LOG_LOSS_REL, P.LOG_LOSS_PREDICTION), aggregate="rows",
               summary="log loss of the scores as probabilities (or logits) of relevance (evaluate_scores only)",
               per_query=ltr.log_loss,
               total=lambda rankings, scores, values, *, ties, **params: ltr.log_loss_total(rankings, scores, **params),
               unscored=lambda rankings, **_: [], **_SCORES),
    # ndeval's measures (TREC Web track); labels pack each document's intents (rankkit.metrics.diversity)
    MetricInfo("alpha_DCG", diversity.alpha_dcg, (P.ALPHA,), ir_measures=("alpha_DCG",),
               summary="alpha-DCG, novelty-discounted gains over A intents (Clarke et al. 2008; ndeval's scale)"),
    MetricInfo("alpha_nDCG", diversity.alpha_ndcg, (P.ALPHA,), ir_measures=("alpha_nDCG",),
               summary="alpha-nDCG: alpha-DCG over that of the greedy ideal ranking (Clarke et al. 2008)"),
    MetricInfo("ERR_IA", diversity.err_ia, (P.ALPHA,), ir_measures=("ERR_IA",),
               summary="intent-aware ERR (Chapelle et al. 2009; ndeval's scale)"),
    MetricInfo("nERR_IA", diversity.nerr_ia, (P.ALPHA,), ir_measures=("nERR_IA",),
               summary="ERR-IA over that of the greedy ideal ranking"),
    MetricInfo("NRBP", diversity.nrbp, (P.ALPHA, P.NRBP_BETA), cutoff=False, ir_measures=("NRBP",),
               summary="novelty- and rank-biased precision (Clarke, Kolla & Vechtomova 2009)"),
    MetricInfo("nNRBP", diversity.nnrbp, (P.ALPHA, P.NRBP_BETA), cutoff=False, ir_measures=("nNRBP",),
               summary="NRBP over that of the greedy ideal ranking"),
    MetricInfo("P_IA", diversity.precision_ia, (), ir_measures=("P_IA",),
               summary="intent-aware precision: P@k averaged over the intents (Agrawal et al. 2009)"),
    MetricInfo("AP_IA", diversity.ap_ia, (), cutoff=False, ir_measures=("AP_IA", "MAP_IA"),
               summary="intent-aware AP: AP averaged over the intents (ndeval's MAP-IA)"),
    MetricInfo("StRecall", diversity.subtopic_recall, (), ir_measures=("StRecall",),
               summary="subtopic recall: fraction of the intents covered in the top k (Zhai et al. 2003)"),
    # metrics of the model's scores (evaluate_scores): labels and scores row by row
    MetricInfo("AUC", pairwise.auc, _REL, aggregate="rows", summary="area under the ROC curve of a query's "
               "scores (all: over every row at once; evaluate_scores only)",
               per_query=_auc_of_ranking, total=_auc_of_all_rows,
               **(_AUC | {"left_out": "nan per query; their rows still count in the AUC pooled over all rows"})),
    MetricInfo("GAUC", pairwise.gauc, (_GAUC_WEIGHTS, P.REL), aggregate="weighted",
               summary="group AUC: each query's AUC, averaged with weights (Zhou et al. 2018; evaluate_scores only)",
               per_query=_auc_of_ranking, total=_gauc_of_values, **_AUC),
    MetricInfo("PNR", pairwise.pnr, (_LABEL_TIES,), aggregate="pairs",
               summary="positive-to-negative ratio: concordant over discordant pairs (evaluate_scores only)",
               per_query=_pnr_of_ranking, total=_pnr_of_all_pairs, unscored=pairwise.pnr_unscored,
               left_out="nan: no pair of different labels, none in the pooled counts either", **_SCORES),
    MetricInfo("MSE", unranked.mse, (), aggregate="rows",
               summary="mean squared error of the scores against the labels (evaluate_scores only)",
               **_error(unranked.mse), **_SCORES),
    MetricInfo("MAE", unranked.mae, (), aggregate="rows",
               summary="mean absolute error of the scores against the labels (evaluate_scores only)",
               **_error(unranked.mae), **_SCORES),
    # trec_eval's preference measures (-R prefs, -R qrels_prefs): rankkit.metrics.preferences, with
    # "fulfilled" and "possible" preferences per judgment group (JG) as its docstring defines them
    _prefs("prefs_num_prefs_poss", 36, "preferences possible: every preference of every JG", count=True),
    _prefs("prefs_num_prefs_ful", 37, "preferences fulfilled: a ranked above b, or a retrieved and b not",
           count=True),
    _prefs("prefs_num_prefs_ful_ret", 38, "preferences fulfilled among retrieved documents", count=True),
    _prefs("prefs_simp", 39, "preferences fulfilled over preferences possible, summed over the JGs"),
    _prefs("prefs_pair", 40, "mean over the preferred pairs of the JGs' share agreeing with the ranking"),
    _prefs("prefs_avgjg", 41, "fulfilled over possible, per JG, averaged over the JGs"),
    _prefs("prefs_avgjg_Rnonrel", 42, "prefs_avgjg with each JG's non-relevant documents set to R, its relevant"),
    _prefs("prefs_simp_ret", 43, "prefs_simp over pairs of retrieved documents"),
    _prefs("prefs_pair_ret", 44, "prefs_pair over pairs of retrieved documents"),
    _prefs("prefs_avgjg_ret", 45, "prefs_avgjg over pairs of retrieved documents"),
    _prefs("prefs_avgjg_Rnonrel_ret", 46, "prefs_avgjg_Rnonrel on retrieved documents"),
    _prefs("prefs_simp_imp", 47, "prefs_simp over pairs with at least one retrieved document"),
    _prefs("prefs_pair_imp", 48, "prefs_pair over pairs with at least one retrieved document"),
    _prefs("prefs_avgjg_imp", 49, "prefs_avgjg over pairs with at least one retrieved document"),
    # judgment groups (-R qrels_jg): the kernel scores each group as a query, then the query's groups are averaged
    MetricInfo("map_avgjg", binary.average_precision, cutoff=False, trec=(plain("map_avgjg", at=50, all_trec=False),),
               summary="AP of each judgment group, averaged over the query's groups", **_JG),
    MetricInfo("P_avgjg", binary.precision, trec=(cutoffs("P_avgjg", at=51, all_trec=False),),
               summary="P@k of each judgment group, averaged over the query's groups", **_JG),
    MetricInfo("Rprec_mult_avgjg", binary.r_precision, (P.MULTIPLE,), cutoff=False,
               trec=(levels("Rprec_mult_avgjg", "multiple", "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0", at=52,
                            all_trec=False),),
               summary="precision at rank multiple * R of each judgment group, averaged over the query's groups",
               **_JG),
    # a recommender's lists beyond accuracy (rk.recommendations, then rk.<name> or rk.beyond_accuracy)
    MetricInfo("catalog_coverage", None, (P.COVERAGE_OF,), aggregate="run", aliases=("coverage",),
               summary="share of the items recommended to at least one user (RecBole's ItemCoverage)",
               **_RECOMMENDER),
    MetricInfo("exposure_entropy", None, (P.ENTROPY_BASE, P.PER_ITEM), aggregate="run", aliases=("entropy",),
               summary="Shannon entropy of the items' share of all recommendations (distributional coverage)",
               **_RECOMMENDER),
    MetricInfo("gini_index", None, (), aggregate="run", aliases=("gini",),
               summary="Gini index of the items' exposure: 0 even, near 1 when a few items take it all",
               **_RECOMMENDER),
    MetricInfo("average_popularity", None, (),
               summary="training interactions of the items of a user's list, averaged (RecBole's "
                       "AveragePopularity; beyond_accuracy's ARP)", **_RECOMMENDER),
    MetricInfo("long_tail_share", None, (P.TAIL, P.TAIL_BY), aliases=("long_tail",),
               summary="share of a user's list from the long tail (RecBole's TailPercentage)", **_RECOMMENDER),
    MetricInfo("novelty", None, (P.UNSEEN,),
               summary="mean self-information -log2 p(i) of the items of a user's list (Castells et al. 2011)",
               **_RECOMMENDER),
    MetricInfo("intra_list_diversity", None, (P.SIMILARITY,), aliases=("ILD",),
               summary="1 - the mean similarity of the pairs of items of a user's list (Ziegler et al. 2005)",
               **_RECOMMENDER),
    MetricInfo("serendipity", None, (P.SIMILARITY,),
               summary="relevant items unlike the user's training items, their share of the list "
                       "(Zhang et al. 2012)", **_RECOMMENDER),
)

#: Every metric ``evaluate`` knows: canonical name -> its record.
REGISTRY: dict[str, MetricInfo] = {info.name: info for info in _RECORDS}

#: Other names for registry entries (a spec may add parameters and @k to them).
NAME_ALIASES: dict[str, str] = {alias: info.name for info in _RECORDS for alias in info.aliases}

#: trec_eval measure name -> (registry row, its TrecName).
TREC_FAMILIES: dict[str, tuple[str, TrecName]] = {
    trec.name: (info.name, trec) for info in _RECORDS for trec in info.trec
}


def _trec_order() -> tuple[str, ...]:
    """trec_eval's names sorted by their place in its measure table; each place taken once."""
    places = sorted((trec.at, name) for name, (_, trec) in TREC_FAMILIES.items())
    taken = [at for at, _ in places]
    if len(set(taken)) != len(taken) or taken[0] < 0:
        raise RuntimeError(f"trec_eval names need distinct places >= 0 in its table, got {places}")
    return tuple(name for _, name in places)


#: trec_eval 10's measure table (measures.c): the order in which it prints measures,
#: from the records' places (:attr:`TrecName.at`).
TREC_ORDER: tuple[str, ...] = _trec_order()

#: trec_eval's nicknames for sets of measures (each measure with its default parameters):
#: ``official``, ``set``, ``all_prefs``, ``prefs`` and ``qrels_jg`` as trec_eval lists them,
#: ``all_trec`` from the records.
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": OFFICIAL,
    "set": SET,
    "all_trec": tuple(name for name in TREC_ORDER if TREC_FAMILIES[name][1].all_trec),
    "all_prefs": ALL_PREFS,
    "prefs": PREFS,
    "qrels_jg": QRELS_JG,
}

#: ir_measures' measure names (and its aliases) -> the registry row computing the same thing.
#: Its parameters are translated by :mod:`rankkit.names.ir_measures`; the values agree with
#: ir_measures' own (its providers pytrec_eval, gdeval, cwl_eval, compat, judged, msmarco) per
#: query, as ``tests/test_ir_measures.py`` and ``tests/test_cwl_measures.py`` check, except where
#: README's table of differences says.
IR_MEASURES: dict[str, str] = {name: info.name for info in _RECORDS for name in info.ir_measures}


def lookup_name(name: str) -> str | None:
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


def other_judgments(column: str, metric: Any) -> str | None:
    """None for a metric of relevance judgments; else the one-line refusal of ``metric``
    (a :class:`~rankkit.names.Metric`, printed as ``column``) saying what to call instead.

    Examples
    --------
    >>> from rankkit.names import parse_metric
    >>> print(other_judgments("novelty@10", parse_metric("novelty(unseen='skip')@10")))
    metric novelty@10 needs a recommender's lists and training interactions: use rk.novelty(rk.recommendations(run, \
train), k=10, unseen='skip'), or rk.beyond_accuracy(recs) for every such measure
    """
    info = metric.info
    if info.judgments == "qrels":
        return None
    if info.judgments == "interactions":
        args = ([f"k={metric.k}"] if metric.k is not None else []) + [f"{p}={v!r}" for p, v in metric.params]
        return (f"metric {column} needs a recommender's lists and training interactions: use "
                f"rk.{info.name}(rk.recommendations(run, train){''.join(', ' + a for a in args)}), "
                "or rk.beyond_accuracy(recs) for every such measure")
    trec = info.trec[0]
    value = metric.k if trec.kind == "cutoffs" else dict(metric.params).get(trec.param)
    spec = trec.name + (f".{value:g}" if value is not None else "")
    what, read = (("preference judgments", "rk.read_prefs(path)") if info.judgments == "prefs"
                  else ("judgment groups", 'rk.read_prefs(path, "qrels_jg")'))
    return (f'metric {column} needs {what}: use rk.evaluate({read}, run, ["{spec}"]) '
            f"(command line: rankkit evaluate -R {info.judgments})")


def refuse_other_judgments(columns: dict[str, Any]) -> dict[str, Any]:
    """``columns`` (column -> :class:`~rankkit.names.Metric`), unless a metric is computed from
    something other than relevance judgments (:attr:`MetricInfo.judgments`): a ValueError
    then says what to call (:func:`other_judgments`).

    Examples
    --------
    >>> from rankkit.names import expand_metrics
    >>> refuse_other_judgments(expand_metrics(["prefs_simp"]))
    Traceback (most recent call last):
    ...
    ValueError: metric prefs_simp needs preference judgments: use rk.evaluate(rk.read_prefs(path), run, \
["prefs_simp"]) (command line: rankkit evaluate -R prefs)
    """
    for column, metric in columns.items():
        message = other_judgments(column, metric)
        if message:
            raise ValueError(message)
    return columns


def refuse_score_metrics(columns: dict[str, Any]) -> dict[str, Any]:
    """``columns`` (column -> :class:`~rankkit.names.Metric`), unless a metric takes the
    model's scores (AUC, GAUC, PNR, MSE, MAE: :attr:`MetricInfo.scores`): a run gives ranked
    documents, and those metrics need each document's label and score
    (:func:`rankkit.evaluation.evaluate_scores`); or unless it is computed from other
    judgments (:func:`refuse_other_judgments`).

    Examples
    --------
    >>> from rankkit.names import expand_metrics
    >>> refuse_score_metrics(expand_metrics(["AUC"]))
    Traceback (most recent call last):
    ...
    ValueError: metric AUC needs the model's scores: use rk.evaluate_scores(labels, scores, query, ["AUC"])
    """
    refuse_other_judgments(columns)
    for column, metric in columns.items():
        if metric.info.scores:
            raise ValueError(f"metric {column} needs the model's scores: use "
                             f'rk.evaluate_scores(labels, scores, query, ["{column}"])')
    return columns
