"""How trec_eval names a metric: :class:`TrecName`, and how ``-m name.params`` lists read.

A metric record (:mod:`rankkit.names.records`) lists its trec_eval names, each with its
place in trec_eval 10's measure table (``measures.c``: the order it prints in) and how its
``-m`` parameter list becomes rankkit's parameters. trec_eval's nicknames ``official``,
``set``, ``all_prefs``, ``prefs`` and ``qrels_jg`` are trec_eval's own fixed lists, declared
here as trec_eval declares them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .parameters import _FrozenDict

__all__ = ["TrecName", "plain", "cutoffs", "levels", "raw", "pairs", "OFFICIAL", "SET", "ALL_PREFS", "PREFS",
           "QRELS_JG"]


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
    at : int
        Its place in trec_eval 10's measure table (``measures.c``), which is the order
        trec_eval prints measures in; :data:`rankkit.names.TREC_ORDER` sorts by it.
    all_trec : bool
        Whether trec_eval's nickname ``all_trec`` includes it (``dcg``, ``ideal_dcg`` and
        ``yaap`` it does not).
    """

    name: str
    kind: str = "plain"
    defaults: str = ""
    param: str | None = None
    fixed: tuple[tuple[str, Any], ...] = ()
    convert: Callable[[str], dict[str, Any]] | None = None
    at: int = -1
    all_trec: bool = True


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


def rbp_pairs(text: str) -> dict[str, Any]:
    """trec_eval's ``rbp.p=0.8``: rankkit's ``p`` (gain levels are refused)."""
    pairs = _pairs(text)
    if any(re.fullmatch(r"[+-]?\d+", name) for name in pairs):
        raise ValueError("rbp: rankkit takes p=... only; gain levels are not supported")
    return {"p": pairs["p"]} if "p" in pairs else {}


def utility_params(text: str) -> dict[str, Any]:
    """trec_eval's ``utility.a,b,c,d``: the four coefficients."""
    values = _numbers(text)
    if len(values) != 4:
        raise ValueError(f"utility needs 4 coefficients a,b,c,d, got {text!r}")
    return dict(zip("abcd", values))


def relstring_params(text: str) -> dict[str, Any]:
    """trec_eval's ``relstring.k``: the cutoff."""
    return {"k": max(int(_atof(text)), 0)}  # 0 and below: an empty string, as trec_eval


def levels_params(text: str) -> dict[str, Any]:
    """trec_eval's ``11pt_avg.l1,l2,...``: the recall levels."""
    return {"levels": tuple(_numbers(text))}


def beta_params(text: str) -> dict[str, Any]:
    """trec_eval's ``set_F.beta``."""
    return {"beta": _numbers(text)[0]}


def plain(name: str, *, at: int, all_trec: bool = True, **fixed) -> TrecName:
    """A measure without parameters (``map``)."""
    return TrecName(name, "plain", fixed=tuple(fixed.items()), at=at, all_trec=all_trec)


def cutoffs(name: str, defaults: str = _CUTOFFS, *, at: int, all_trec: bool = True, **fixed) -> TrecName:
    """A measure at integer cutoffs (``P_10``)."""
    return TrecName(name, "cutoffs", defaults, fixed=tuple(fixed.items()), at=at, all_trec=all_trec)


def levels(name: str, param: str, defaults: str = _LEVELS, *, at: int, all_trec: bool = True, **fixed) -> TrecName:
    """A measure at levels of rankkit parameter ``param`` (``iprec_at_recall_0.10``)."""
    return TrecName(name, "levels", defaults, param, fixed=tuple(fixed.items()), at=at, all_trec=all_trec)


def raw(name: str, defaults: str, convert: Callable[[str], dict[str, Any]], *, at: int, **fixed) -> TrecName:
    """A measure whose numbers are used together (``utility_2,-1,0,0``)."""
    return TrecName(name, "raw", defaults, fixed=tuple(fixed.items()), convert=convert, at=at)


def pairs(name: str, convert: Callable[[str], dict[str, Any]] = _gains, *, at: int, all_trec: bool = True,
          **fixed) -> TrecName:
    """A measure of ``name=value`` pairs (``ndcg_1=3,2=9``)."""
    return TrecName(name, "pairs", fixed=tuple(fixed.items()), convert=convert, at=at, all_trec=all_trec)


#: trec_eval's nickname ``official`` (its default measures), as trec_eval lists them.
OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
            "bpref", "recip_rank", "iprec_at_recall", "P")

#: trec_eval's nickname ``set`` (measures of the retrieved set), as trec_eval lists them.
SET = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
       "set_relative_P", "set_map", "set_F")

#: trec_eval's nickname ``all_prefs`` (every preference measure, ``-R prefs``), as trec_eval lists them.
ALL_PREFS = ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
             "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
             "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")

#: trec_eval's nickname ``prefs`` (its default measures under ``-R prefs``), as trec_eval lists them.
PREFS = ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
         "prefs_simp", "prefs_pair", "prefs_avgjg")

#: trec_eval's nickname ``qrels_jg`` (its default measures under ``-R qrels_jg``), as trec_eval lists them.
QRELS_JG = ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
