"""ir_measures' dialect: its names (from the records, :data:`IR_MEASURES`) and its parameters
(``cutoff=``, ``gains=``, ``dcg=``, ``min_rel=``, ``IPrec@0.1``) as rankkit's."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .metric import Metric, make_metric, parse_k
from .records import IR_MEASURES, NAME_ALIASES, REGISTRY

__all__ = ["IR_MEASURES", "IR_MEASURES_MISSING", "is_ir_measures", "ir_measures_metric"]

#: ir_measures measures whose formulas rankkit does not have (yet): a clear error, not a guess.
IR_MEASURES_MISSING = ("Accuracy",)

#: Measures rankkit names as ir_measures does and only so: a spec of them prints back as written.
_IRM_NATIVE = {"SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ", "BPM", "Compat"}

#: ndeval's measures, whose ir_measures ``rel=`` rankkit takes at its default only.
_NDEVAL = {"alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "AP_IA", "StRecall"}

_IRM_ONLY = {"cutoff", "gains", "dcg", "relative", "min_rel", "max_rel"}  # parameters only ir_measures' names take


def is_ir_measures(name: str, params: dict[str, Any], at: str | None) -> bool:
    """Whether a spec is in ir_measures' dialect: a name only ir_measures has (or names
    first), one of its own parameters, or IPrec's recall level after ``@``."""
    if name in IR_MEASURES_MISSING:
        raise ValueError(f"ir_measures' {name} is not in rankkit yet; known ir_measures names: "
                         f"{', '.join(IR_MEASURES)}")
    if name not in IR_MEASURES:
        return False
    own = name in REGISTRY or name in NAME_ALIASES
    return (not own or bool(_IRM_ONLY & set(params)) or name == "IPrec" or name in _IRM_NATIVE
            or (name in _NDEVAL and "rel" in params))


def ir_measures_metric(name: str, params: dict[str, Any], at: str | None, spec: str) -> Metric:
    """The Metric of an ir_measures spec (``nDCG(cutoff=10)``, ``IPrec@0.1``, ``NumRet(rel=1)``,
    ``SetP(relative=True)``, ``nDCG(gains={0: 0, 1: 1, 2: 3}, dcg='exp-log2')@10``)."""
    row, params = IR_MEASURES[name], dict(params)
    k = None
    if "cutoff" in params:
        if at is not None:
            raise ValueError(f"metric spec {spec!r} gives the cutoff twice (cutoff= and @)")
        k = parse_k(str(params.pop("cutoff")), spec)
    if row == "iprec":
        if at is not None:
            params["recall"] = _recall_level(at, spec)
        params.setdefault("rounding", "plus_0.9")  # pytrec_eval, ir_measures' provider: trec_eval 9
    elif at is not None:
        k = parse_k(at, spec)
    if row == "num_ret" and "rel" in params:  # ir_measures prints NumRelRet as NumRet(rel=1)
        row = "num_rel_ret"
    if row in ("SetP", "SetRelP") and params.pop("relative", row == "SetRelP"):
        row = "SetRelP"
    if row == "nDCG":
        _ndcg_params(params, spec)
    if row in _NDEVAL and params.pop("rel", 1) != 1:  # pyndeval's rel=: ndeval's judgments are binary at 1
        raise ValueError(f"metric spec {spec!r}: rankkit's {row} counts a judgment >= 1 relevant, as ndeval "
                         "does; read the judgments with another threshold instead")
    if row in _IRM_NATIVE and row != "Compat":
        _cwl_params(row, params, spec)
    return replace(make_metric(row, params, k, spec), written=spec.strip())


def _ndcg_params(params: dict[str, Any], spec: str) -> None:
    """ir_measures' ``gains=`` and ``dcg=`` of nDCG as rankkit's ``gain``, in place."""
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
