"""Typed parameters of metric records: what a spec may set, its type, default, range and meaning.

A :class:`Param` checks a spec's value with the validator the metric function itself calls
(:mod:`rankkit._validation`), so a spec is refused when it is parsed, with the message the
metric would give when computed. What depends on the data (labels above ``max_grade``) or on
another parameter (``max_grade`` above ``min_grade``)
is left to the metric.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._validation import (
    check_base,
    check_bool,
    check_count,
    check_depth,
    check_gain,
    check_max_grade,
    check_nonnegative_number,
    check_number,
    check_option,
    check_positive,
    check_probability,
    check_recall_levels,
    check_rel,
)
from ..metrics.binary import BPREF_NORMALIZATIONS, NORMALIZATIONS, PRECISION_NORMALIZATIONS, ROUNDINGS, TIED
from ..metrics.cwl import CWL_DEPTH
from ..metrics.graded import DISCOUNTS, ERR_STOPS, GAINS, RESIDUAL_CONVENTIONS
from ..metrics.ltr import LOG_LOSS_PREDICTIONS

__all__ = ["Param"]


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
class Param:
    """One parameter a metric spec may set.

    Attributes
    ----------
    name : str
        The keyword (``p``, ``gain``, ``rel``).
    type : {"number", "integer", "text", "bool", "gain", "levels"}
        ``number``: a finite real number (not a bool). ``integer``: an int. ``text``: one
        of ``choices``. ``bool``: True or False. ``gain``: ``'linear'``, ``'exp'`` or a
        mapping label -> gain. ``levels``: one or more numbers.
    default : object
        The value when the spec leaves it out (None: set by the data or the evaluation).
    description : str
        One line for ``--help`` and the documentation.
    low, high : float or None
        The allowed range of a number (None: unbounded on that side).
    low_open, high_open : bool
        Whether ``low`` / ``high`` themselves are excluded.
    choices : tuple
        The allowed values of ``text`` (and the words a number parameter also takes,
        ``max_grade='query'``).
    none : bool
        Whether None is a value the spec may give.
    check : callable
        ``check(value)`` raises ValueError naming the parameter, with the metric's message.
    """

    name: str
    type: str
    default: Any
    description: str
    check: Callable[[Any], Any]
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    none: bool = False

    @property
    def range(self) -> str:
        """The allowed values in words: ``(0, 1]``, ``> 0``, ``'linear' | 'exp'``, ``any``."""
        if self.type == "text":
            text = " | ".join(repr(c) for c in self.choices)
        elif self.low is not None and self.high is not None:
            text = ("(" if self.low_open else "[") + f"{self.low:g}, {self.high:g}" + (")" if self.high_open else "]")
        elif self.low is not None:
            text = (">" if self.low_open else ">=") + f" {self.low:g}"
        elif self.high is not None:
            text = ("<" if self.high_open else "<=") + f" {self.high:g}"
        elif self.type == "gain":
            text = " | ".join(repr(c) for c in self.choices) + " | {label: gain}"
        elif self.type == "bool":
            text = "True | False"
        else:
            text = "any"
        if self.type != "text" and self.type != "gain" and self.choices:
            text += " | " + " | ".join(repr(c) for c in self.choices)
        return text + (" | None" if self.none else "")

    def validate(self, value: Any) -> None:
        """Raise ValueError (naming the parameter) if ``value`` is not allowed."""
        if value is None and self.none:
            return
        self.check(value)


def _max_grade_check(allowed: str, words: tuple = (), finite: bool = False) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value in words and isinstance(value, str):
            return value
        return check_number(value, "max_grade") if finite else check_max_grade(value, allowed)
    return check


def _beta(value: Any) -> float:
    beta = check_number(value, "beta")
    if beta < 0:
        raise ValueError(f"beta must be a non-negative number, got {beta!r}")
    return beta


def _probability(name: str, high_open: bool = False) -> Callable[[Any], Any]:
    return functools.partial(check_probability, name=name, high_open=high_open)


def _option(name: str, choices: tuple) -> Callable[[Any], Any]:
    return functools.partial(check_option, options=choices, name=name)


def _finite(name: str) -> Callable[[Any], Any]:
    return functools.partial(check_number, name=name)


# --------------------------------------------------------------------------- the parameters

REL = Param("rel", "number", 1, "relevant: label >= rel (evaluate's rel=, trec_eval -l)",
            check_rel, low=0, low_open=True)
MULTIPLE = Param("multiple", "number", 1.0, "precision at rank multiple * R",
                 functools.partial(check_nonnegative_number, name="multiple"), low=0)
NORMALIZE = Param("normalize", "text", "relevant",
                  "AP's denominator: R (trec_eval), relevant retrieved in the top k, or min(R, k)",
                  _option("normalize", NORMALIZATIONS), choices=NORMALIZATIONS)
AP_TIED = Param("tied", "text", "expected",
                "a tie group under ties='average': AP's expected value over its orders, or the precision "
                "at the group's end (scikit-learn)", _option("tied", TIED), choices=TIED)
RECALL = Param("recall", "number", None, "the recall level", lambda value: check_recall_levels([value]), low=0, high=1)
ROUNDING = Param("rounding", "text", "textbook",
                 "relevant documents a recall level needs: 'nearest' is trec_eval 10, 'plus_0.9' trec_eval 9",
                 _option("rounding", ROUNDINGS), choices=ROUNDINGS)
LEVELS = Param("levels", "levels", None, "recall levels to average (default: 0, 0.1, ..., 1)",
               check_recall_levels, low=0, high=1, none=True)
BETA = Param("beta", "number", 1.0, "weight of recall against precision (trec_eval's linear weight)", _beta, low=0)
UTILITY = tuple(
    Param(name, "number", default, f"coefficient of {what}", _finite(name))
    for name, default, what in (("a", 1.0, "relevant retrieved"), ("b", -1.0, "non-relevant retrieved"),
                                ("c", 0.0, "relevant not retrieved"), ("d", 0.0, "non-relevant not retrieved"))
)
N_DOCS = Param("n_docs", "integer", 0, "documents in the collection (evaluate's n_docs=, trec_eval -N)",
               functools.partial(check_count, name="n_docs"), low=0)
GAIN = Param("gain", "gain", "linear", "gain of a label: the label, 2**label - 1, or a mapping label -> gain",
             functools.partial(check_gain, options=GAINS), choices=GAINS)
DISCOUNT = Param("discount", "text", "log2", "rank discount: 1 / log_b(i + 1) (b = base), or Jarvelin & Kekalainen's "
                 "(the Python functions also take a callable of the ranks)",
                 _option("discount", DISCOUNTS), choices=DISCOUNTS)
BASE = Param("base", "number", 2.0, "logarithm base b of both discounts (scikit-learn's log_base)", check_base,
             low=1, low_open=True)
NO_RELEVANT = Param("no_relevant", "number", 0.0,
                    "nDCG of a query with no relevant document: 0 (trec_eval) or 1 (LightGBM, XGBoost)",
                    functools.partial(check_probability, name="no_relevant", low_open=False), low=0, high=1)
RBP_P = Param("p", "number", 0.8, "persistence: the chance of looking at the next rank",
              _probability("p", high_open=True), low=0, high=1, low_open=True, high_open=True)
RBP_MAX_GRADE = Param("max_grade", "number", None,
                      "graded RBP, label / max_grade ('query': trec_eval 10's scale per query; None: binary at rel)",
                      _max_grade_check("a positive number, 'query' or None", ("query",)),
                      low=0, low_open=True, choices=("query",), none=True)
CONVENTION = Param("convention", "text", "moffat_zobel",
                   "Moffat & Zobel's residual (always with the tail p**d), or trec_eval 10's rbp_resid",
                   _option("convention", RESIDUAL_CONVENTIONS), choices=RESIDUAL_CONVENTIONS)
ERR_P = Param("p", "number", 1.0, "the chance of going on after an unsatisfying document",
              _probability("p"), low=0, high=1, low_open=True)
ERR_MAX_GRADE = Param("max_grade", "number", None, "the largest grade (None: the largest label of the data)",
                      _max_grade_check("a positive number or None"), low=0, low_open=True, none=True)
MIN_GRADE = Param("min_grade", "number", 0, "labels at or below it have gain 0", _finite("min_grade"))
CWL_MAX_GRADE = Param("max_grade", "number", None,
                      "labels at or above it have gain 1 (None: the largest label of the data)",
                      _max_grade_check("", finite=True), none=True)
DEPTH = Param("depth", "integer", CWL_DEPTH, "ranks the user model looks at", check_depth, low=1)
CWL = (MIN_GRADE, CWL_MAX_GRADE, DEPTH)
NERR_P = Param("p", "number", 0.9, "persistence, as RBP's", _probability("p"), low=0, high=1, low_open=True)
T = Param("T", "number", 1.0, "units of gain the user wants", functools.partial(check_positive, name="T"),
          low=0, low_open=True)
COMPAT_P = Param("p", "number", 0.95, "RBO's persistence", _probability("p"), low=0, high=1, low_open=True)
COMPAT_NORMALIZE = Param("normalize", "bool", True, "divide by the ideal ranking's RBO",
                         functools.partial(check_bool, name="normalize"))
ALPHA = Param("alpha", "number", 0.5, "redundancy intolerance: gain lost on each repeat of an intent (ndeval -alpha)",
              functools.partial(check_probability, name="alpha", low_open=False), low=0, high=1)
NRBP_BETA = Param("beta", "number", 0.5, "patience: the chance of looking at the next rank (ndeval -beta)",
                  functools.partial(check_probability, name="beta", low_open=False), low=0, high=1)
# learning-to-rank peers' conventions (TensorFlow Ranking, XGBoost, CatBoost)
PRECISION_NORMALIZE = Param("normalize", "text", "k",
                            "P@k's denominator: k (trec_eval) or min(k, documents retrieved) (TensorFlow Ranking)",
                            _option("normalize", PRECISION_NORMALIZATIONS), choices=PRECISION_NORMALIZATIONS)
BPREF_NORMALIZE = Param("normalize", "text", "min_relevant_nonrelevant",
                        "divide the non-relevant above by min(R, N) (trec_eval) or R (Buckley & Voorhees, "
                        "TensorFlow Ranking's use_trec_version=False)",
                        _option("normalize", BPREF_NORMALIZATIONS), choices=BPREF_NORMALIZATIONS)
NO_RELEVANT_RANKED = Param("no_relevant", "number", 0.0,
                           "value of a query with no relevant document: 0 (trec_eval) or 1 (XGBoost's map)",
                           functools.partial(check_probability, name="no_relevant", low_open=False), low=0, high=1)
ERR_STOP = Param("stop", "text", "grade",
                 "chance to stop at a document: (2**g - 1) / 2**max_grade of its grade, or its label in [0, 1] "
                 "(CatBoost)", _option("stop", ERR_STOPS), choices=ERR_STOPS)
PFOUND_DECAY = Param("decay", "number", 0.85, "the chance of going on after an unsatisfying document (CatBoost)",
                     functools.partial(check_probability, name="decay", low_open=False), low=0, high=1)
PFOUND_MAX_GRADE = Param("max_grade", "number", None,
                         "labels above 1 become label / max_grade (None: the largest label of the data)",
                         _max_grade_check("a positive number or None"), low=0, low_open=True, none=True)
LOG_LOSS_REL = Param("rel", "number", 1, "target 1 for label >= rel (evaluate_scores' rel=); None: labels in [0, 1]",
                     check_rel, low=0, low_open=True, none=True)
LOG_LOSS_PREDICTION = Param("prediction", "text", "probability",
                            "the scores are probabilities, or logits turned into them (CatBoost's Logloss)",
                            _option("prediction", LOG_LOSS_PREDICTIONS), choices=LOG_LOSS_PREDICTIONS)
# the recommender measures beyond accuracy (rankkit.recommender; the choices are tested equal to its own)
COVERAGE_OF = Param("of", "text", "catalog",
                    "what coverage divides by: the catalogue's items (RecBole) or the training data's "
                    "(Microsoft Recommenders)", _option("of", ("catalog", "train")), choices=("catalog", "train"))
ENTROPY_BASE = Param("base", "number", 2.0, "base of the logarithm: 2 (Microsoft Recommenders) or e (RecBole)",
                     check_base, low=1, low_open=True)
PER_ITEM = Param("per_item", "bool", False, "divide by the number of distinct items shown (RecBole)",
                 functools.partial(check_bool, name="per_item"))
TAIL = Param("tail", "number", 0.1,
             "the long tail: that share of the catalogue, least popular first (by='share', in (0, 1]), or the "
             "items with at most that many training interactions (by='count', an integer)",
             functools.partial(check_nonnegative_number, name="tail"), low=0)
TAIL_BY = Param("by", "text", "share", "how tail is read: a share of the catalogue or a count of interactions",
                _option("by", ("share", "count")), choices=("share", "count"))
UNSEEN = Param("unseen", "text", "zero",
               "an item never seen in training: counted as 0 (Microsoft Recommenders) or left out of the mean",
               _option("unseen", ("zero", "skip")), choices=("zero", "skip"))
SIMILARITY = Param("similarity", "text", None,
                   "cosine of the items' feature vectors or of their training users; None: features when given",
                   _option("similarity", ("features", "cooccurrence")), choices=("features", "cooccurrence"),
                   none=True)
