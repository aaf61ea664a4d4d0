"""The measures of the learning-to-rank libraries: TensorFlow Ranking's, CatBoost's, log loss.

- :func:`average_relevance_position` (ARP), :func:`position_weighted_average` (PWA) and
  :func:`ordered_pair_accuracy` (OPA): TensorFlow Ranking's ``ARPMetric``, ``PWAMetric``
  and ``OPAMetric`` (``tensorflow_ranking/python/metrics_impl.py``).
- :func:`query_auc` (CatBoost's ``QueryAUC``, its default ``type=Ranking``) and
  :func:`pfound` (CatBoost's ``PFound``, Yandex's pFound).
- :func:`log_loss`: the cross-entropy of predicted probabilities (or logits) against the
  labels, a metric of a model's scores as MSE and MAE are (:mod:`rankkit.metrics.unranked`).

Each is one kernel over the array namespace of its input (:mod:`rankkit.ops.primitives`),
computed for all queries at once, on NumPy and on every array-API library. Where a peer's
convention differs from rankkit's default, the docstring says which setting reproduces the
peer; the values of the peers' own tests are reproduced in ``tests/test_ltr_measures.py``.

How the peers break ties among equal scores: TensorFlow Ranking counts a pair of equal
scores as not ordered (OPA) and CatBoost ranks equal scores by label ascending (PFound, ERR),
both what :func:`rankkit.evaluate_scores` does with ``ties="pessimistic"``; CatBoost's
QueryAUC counts a pair of equal scores 1/2, what ``ties="average"`` (the default) gives.

References
----------
- TensorFlow Ranking, ``tensorflow_ranking/python/metrics_impl.py`` and its tests
  ``metrics_impl_test.py`` (https://github.com/tensorflow/ranking).
- CatBoost, "Ranking: objectives and metrics" (https://catboost.ai/docs/en/concepts/loss-functions-ranking)
  and "PFound" (https://catboost.ai/docs/en/references/pfound); ``catboost/libs/metrics/pfound.h``
  and ``catboost/libs/metrics/ut/err_ut.cpp`` (https://github.com/catboost/catboost).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

import numpy as np

from .._validation import check_k, check_max_grade, check_no_ties, check_option, check_probability, check_rel
from ..ops.primitives import (
    as_float,
    columns,
    constant,
    cumulative_product,
    is_numpy,
    namespace,
    query_sum,
    rank_sum,
    ratio,
    weighted_rank_sum,
)
from ..rankings import FloatOrArray, Rankings, RankingsLike, as_rankings
from .pairwise import pair_counts

__all__ = ["average_relevance_position", "position_weighted_average", "ordered_pair_accuracy", "query_auc",
           "query_auc_total", "pfound", "log_loss", "log_loss_total", "LOG_LOSS_PREDICTIONS",
           "no_positive_label", "no_pair", "no_pair_opa"]

#: What :func:`log_loss` reads in the model's scores: probabilities, or logits (raw scores
#: the logistic function turns into probabilities, as CatBoost's ``Logloss`` does).
LOG_LOSS_PREDICTIONS = ("probability", "logit")


# --------------------------------------------------------------------------- helpers


def _top(values: Any, k: int | None) -> Any:
    """The first k columns (all of them for None or a k beyond the depth)."""
    return values if k is None or k >= values.shape[1] else values[:, :k]


def _retrieved(r: Rankings) -> Any:
    """True at the ranks each query retrieved (not the padding)."""
    return columns(r.labels) < r.lengths[:, None]


def _largest(values: Any) -> float:
    """The largest entry of a matrix, 0.0 for an empty one."""
    if 0 in values.shape:
        return 0.0
    return float(namespace(values).max(values))


# --------------------------------------------------------------------------- TensorFlow Ranking


def average_relevance_position(rankings: RankingsLike) -> FloatOrArray:
    """Average relevance position (TensorFlow Ranking's ``ARPMetric``), per query.

    ARP = sum_i i * y_i / sum_i y_i over the ranks i of the retrieved list: the mean rank
    of the relevance, each label y_i weighing its rank. Lower is better; the best order of
    the labels [2, 1, 0] gives (1 * 2 + 2 * 1) / 3 = 4/3.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels (graded relevance, >= 0) in rank order.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [1, n]; 0.0 for a list without a positive label (TensorFlow Ranking's
        ``div_no_nan``). With tie groups (``ties="average"``), the exact expected value over
        their orders (the denominator does not depend on the order).

    Notes
    -----
    TensorFlow Ranking averages a batch weighting each list by the sum of its labels (its
    per-list weights, ``test_arp_weights_should_be_sum_of_weighted_labels``); rankkit's
    ``all`` line is the plain mean over queries.

    Examples
    --------
    TensorFlow Ranking's ``test_arp_should_be_single_value_per_list``: scores [1, 2, 3] on
    labels [0, 1, 2] rank the labels 2, 1, 0:

    >>> average_relevance_position([[0, 0, 1], [2, 1, 0]]).round(4)
    array([3.    , 1.3333])
    """
    r = as_rankings(rankings, any_library=True)
    labels = r.expected(r.labels)
    ranks = np.arange(1, labels.shape[1] + 1, dtype=np.float64)
    return r.result(ratio(weighted_rank_sum(labels, ranks), rank_sum(labels)))


def position_weighted_average(rankings: RankingsLike, *, k: int | None = None) -> FloatOrArray:
    """Position-weighted average of the labels (TensorFlow Ranking's ``PWAMetric``), per query.

    PWA@k = sum_{i <= m} y_i / i / sum_{i <= m} 1 / i, with m = min(k, documents
    retrieved): the labels of the top k averaged with the weights 1/i of their ranks.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels (graded relevance, >= 0) in rank order.
    k : int or None, default=None
        Cutoff (TensorFlow Ranking's ``topn``, 5 by default there); ``None`` uses the whole list.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, largest label]; 0.0 for an empty list. With tie groups, the exact expected
        value over their orders.

    Examples
    --------
    TensorFlow Ranking's ``test_pwa_should_handle_topn``: labels [1, 2, 0] in rank order
    give 1 at k = 1 and 2 / (3/2) at k = 2:

    >>> position_weighted_average([1, 2, 0], k=1), round(position_weighted_average([1, 2, 0], k=2), 4)
    (1.0, 1.3333)
    """
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    labels = r.labels if r.ties is None else r.expected(r.labels)  # all ranks first: a group may cross k
    weights = 1.0 / np.arange(1, labels.shape[1] + 1, dtype=np.float64)
    shown = as_float(_top(_retrieved(r), k), r.labels)
    return r.result(ratio(weighted_rank_sum(_top(labels, k), weights), weighted_rank_sum(shown, weights)))


def _pair_accuracy(r: Rankings) -> tuple[Any, Any]:
    """Per query, the pairs of retrieved documents with different labels that are ranked in
    the order of their labels, and all such pairs; a pair inside a tie group counts 1/2."""
    counts = pair_counts(replace(r, scalar=False))  # arrays, one value per query
    return counts.concordant, counts.concordant + counts.discordant


def ordered_pair_accuracy(rankings: RankingsLike) -> FloatOrArray:
    """Ordered pair accuracy (TensorFlow Ranking's ``OPAMetric``), per query.

    OPA = (pairs ranked in the order of their labels) / (pairs with different labels),
    over the pairs of retrieved documents (an unjudged one counts with label 0, as in every
    rank metric): the fraction of the pairs a ranker could get wrong that it gets right.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.0 for a list whose labels are all equal (no pair to order: TensorFlow
        Ranking's ``test_opa_should_be_0_when_no_rel_items``). With tie groups
        (``ties="average"``) a pair of tied documents counts 1/2, its expected value;
        TensorFlow Ranking counts a pair of equal scores as wrongly ordered, which
        ``evaluate_scores(..., ties="pessimistic")`` gives.

    Notes
    -----
    TensorFlow Ranking averages a batch weighting each list by its number of pairs
    (``test_opa_weights_should_be_sum_of_pair``): the pooled value is
    :func:`query_auc_total`'s; rankkit's ``all`` line for OPA is the plain mean over queries.

    Examples
    --------
    TensorFlow Ranking's ``test_opa_should_operate_on_graded_relevance``: labels [1, 3, 0,
    1] in rank order, 3 of the 5 pairs with different labels in order:

    >>> ordered_pair_accuracy([1, 3, 0, 1])
    0.6
    >>> ordered_pair_accuracy([[0, 0, 0], [2, 1, 0]])
    array([0., 1.])
    """
    r = as_rankings(rankings, any_library=True)
    correct, pairs = _pair_accuracy(r)
    return r.result(ratio(correct, pairs))


def no_pair_opa(rankings: Rankings, **_: Any) -> list:
    """The queries OPA scores 0 for want of a pair of different labels (TensorFlow Ranking)."""
    return [(_pair_accuracy(rankings)[1] == 0, "no pair of different labels: 0, as TensorFlow Ranking scores it")]


# --------------------------------------------------------------------------- CatBoost


def query_auc(rankings: RankingsLike) -> FloatOrArray:
    """CatBoost's ``QueryAUC`` (``type=Ranking``, its default) of each query.

    QueryAUC = sum over the pairs (i, j) of one query with t_i < t_j of I(a_j, a_i), over
    the number of such pairs, with I = 1 when the document of the higher label has the
    higher score, 1/2 when their scores are equal and 0 otherwise: the AUC of graded
    labels, every pair of different labels a positive-negative pair. Over many queries
    CatBoost pools the pairs (:func:`query_auc_total`), and ranks nothing across queries.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order; a pair inside a tie group (``ties="average"``, equal scores)
        counts 1/2, as CatBoost's I does.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; ``nan`` for a query without a pair of different labels (it adds
        nothing to the pooled pairs). Where every query has such a pair, each query's value
        is its :func:`ordered_pair_accuracy` under the same tie groups.

    Examples
    --------
    >>> query_auc([2, 0, 1]), query_auc([1, 1])
    (0.6666666666666666, nan)
    """
    r = as_rankings(rankings, any_library=True)
    correct, pairs = _pair_accuracy(r)
    xp = namespace(correct)
    return r.result(xp.where(pairs > 0, ratio(correct, pairs), xp.full_like(correct, xp.nan)))


def query_auc_total(rankings: Rankings) -> Any:
    """CatBoost's QueryAUC over many queries: the pairs of every query pooled, correctly
    ordered ones (1/2 for equal scores) over all; ``nan`` when no query has a pair."""
    correct, pairs = _pair_accuracy(rankings)
    total_correct, total_pairs = query_sum(correct), query_sum(pairs)
    value = total_correct / total_pairs if float(total_pairs) > 0 else total_correct * np.nan
    return float(value) if is_numpy(correct) else value


def no_pair(rankings: Rankings, **_: Any) -> list:
    """The queries QueryAUC cannot score: no pair of documents with different labels."""
    return [(_pair_accuracy(rankings)[1] == 0, "no pair of different labels")]


def pfound(rankings: RankingsLike, *, k: int | None = None, decay: float = 0.85,
           max_grade: float | None = None) -> FloatOrArray:
    """pFound (Yandex; CatBoost's ``PFound``): the chance that the user finds what they look for.

    pFound@k = sum_{i <= k} pLook_i * pRel_i, with pLook_1 = 1 and pLook_{i+1} = pLook_i *
    (1 - pRel_i) * decay: the user reads down the list, stops at a relevant document with
    probability pRel_i and otherwise goes on with probability ``decay``. As ERR, without its
    1/i (:func:`rankkit.metrics.graded.err` with ``stop="label"`` weighs rank i by p**(i-1) / i).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order: pRel, probabilities in [0, 1] as CatBoost takes its targets.
    k : int or None, default=None
        Cutoff (CatBoost's ``top``; -1, the whole list, by default there).
    decay : float in [0, 1], default=0.85
        The chance of going on after a document that did not satisfy the user (CatBoost's
        ``decay``, 0.85 by default).
    max_grade : float or None, default=None
        Graded labels above 1: pRel = label / max_grade, so that the top grade is a
        certain find; labels in [0, 1] (every label when ``max_grade`` <= 1) are taken as
        they are. ``None``: the largest label of the input (:func:`rankkit.evaluate` and
        ``evaluate_scores`` pass the data set's), so labels in [0, 1] stay CatBoost's.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.0 for a query without a positive label.

    Raises
    ------
    ValueError
        For tie groups (``ties="average"``: pFound is not linear in the labels; CatBoost
        ranks equal scores by label ascending, ``ties="pessimistic"``), or labels above
        ``max_grade``.

    Examples
    --------
    pRel 0.5 at ranks 1 and 2: 0.5 + 0.5 * 0.85 * 0.5.

    >>> pfound([0.5, 0.5])
    0.7125
    >>> pfound([[1, 0], [0, 2]], max_grade=2)   # 1/2 at rank 1; 1 at rank 2, reached with 0.85
    array([0.5 , 0.85])
    """
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    decay = check_probability(decay, "decay", low_open=False)
    top = _largest(r.labels) if max_grade is None else check_max_grade(max_grade)
    if _largest(r.labels) > top:
        raise ValueError(f"labels must be <= max_grade={max_grade!r}, got {_largest(r.labels)!r}")
    check_no_ties(r, "pfound")
    chance = _top(r.labels, k)
    chance = chance / top if top > 1 else chance * 1.0
    look = cumulative_product((1.0 - chance) * decay)[:, :-1]  # pLook_i, multiplied rank by rank
    return r.result(rank_sum(chance * look))


# --------------------------------------------------------------------------- log loss


def _row_losses(labels: Any, scores: Any, retrieved: Any, rel: float | None, prediction: str) -> Any:
    """-(t log p + (1 - t) log(1 - p)) at each retrieved rank (0 in the padding), t the
    target (label >= rel, or the label itself for rel=None), p the predicted probability."""
    xp = namespace(labels, scores)
    target = as_float(labels >= rel, labels) if rel is not None else labels
    if prediction == "logit":  # log p = -softplus(-a), log(1 - p) = -softplus(a), computed stably
        zero = xp.zeros_like(scores)
        soft = xp.log1p(xp.exp(-xp.abs(scores)))
        log_p, log_q = -(xp.maximum(-scores, zero) + soft), -(xp.maximum(scores, zero) + soft)
    else:
        with np.errstate(divide="ignore"):
            log_p, log_q = xp.log(scores), xp.log1p(-scores)
    zero = xp.zeros_like(target)
    with np.errstate(invalid="ignore"):  # 0 * log 0, dropped by the where
        loss = -(xp.where(target > 0, target * log_p, zero) + xp.where(target < 1, (1.0 - target) * log_q, zero))
    return xp.where(retrieved, loss, zero)


def _checked_inputs(y_true: Any, y_pred: Any, rel: Any, prediction: Any) -> tuple[Rankings, Any, Any, str]:
    """The settings checked, then the labels as Rankings and the predictions as a matrix of
    their shape and library, checked."""
    prediction = check_option(prediction, LOG_LOSS_PREDICTIONS, "prediction")
    rel = None if rel is None else check_rel(rel)
    if y_pred is None:
        raise ValueError("log_loss needs the predictions y_pred beside the labels")
    if isinstance(y_true, Rankings):
        r, pred = y_true, y_pred
        if not hasattr(pred, "shape") or tuple(pred.shape) != tuple(r.labels.shape):
            from ._paired_values import as_rows

            pred = constant(as_rows(y_pred, "y_pred").values, r.labels)
    else:
        from ._paired_values import as_pair

        rows, preds = as_pair(y_true, y_pred, "y_true", "y_pred")
        r = replace(as_rankings([row[:n] for row, n in zip(rows.values, rows.lengths)]), scalar=rows.scalar)
        pred = preds.values
    if tuple(pred.shape) != tuple(r.labels.shape):
        raise ValueError(f"y_pred must have the shape of the labels {tuple(r.labels.shape)}, got {tuple(pred.shape)}")
    if rel is None and _largest(r.labels) > 1:
        raise ValueError(f"log_loss with rel=None takes labels in [0, 1] (probabilities), got {_largest(r.labels)!r}")
    xp = namespace(pred)
    if prediction == "probability" and not bool(xp.all(((pred >= 0) & (pred <= 1)) | ~_retrieved(r))):
        raise ValueError("y_pred must hold probabilities in [0, 1] (prediction='probability'); "
                         "pass prediction='logit' for raw scores")
    return r, pred, rel, prediction


def log_loss(y_true: Any, y_pred: Any = None, *, rel: float | None = 1,
             prediction: Literal["probability", "logit"] = "probability") -> FloatOrArray:
    """Log loss (binary cross-entropy) of a model's predictions, per query.

    LogLoss = -(1/n) sum_i (t_i log p_i + (1 - t_i) log(1 - p_i)) over the n documents of a
    query, with the target t_i = 1 for a label >= ``rel`` and 0 otherwise (``rel=None``: the
    label itself, in [0, 1], a soft target) and p_i the predicted probability of relevance.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n_queries, n), list of lists, or Rankings
        Labels; rows may be ragged (a Rankings: its labels and lengths).
    y_pred : array-like, same shape as ``y_true``
        Predictions: probabilities in [0, 1], or logits (``prediction="logit"``).
    rel : float or None, default=1
        Binary targets at label >= rel (as AUC's positives; ``evaluate_scores``' ``rel``),
        or ``None`` for labels taken as targets in [0, 1] (CatBoost's ``CrossEntropy``,
        XGBoost's ``logloss`` on soft labels).
    prediction : {"probability", "logit"}, default="probability"
        ``"probability"``: p_i as given (scikit-learn's ``log_loss``, XGBoost's
        ``logloss`` of ``binary:logistic``); ``"logit"``: p_i = 1 / (1 + exp(-a_i)) of the
        raw score a_i, computed without overflow (CatBoost's ``Logloss`` of its raw
        ``approx``, XGBoost's ``logitraw``).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        >= 0, ``inf`` where a probability of 0 or 1 is certain and wrong (scikit-learn clips
        probabilities to [eps, 1 - eps] instead); ``nan`` for a query without a document.

    Examples
    --------
    >>> round(log_loss([1, 0], [0.8, 0.4]), 4)   # -(log 0.8 + log 0.6) / 2
    0.367
    >>> round(log_loss([1, 0], [0.0, 0.0], prediction="logit"), 4)   # log 2
    0.6931
    """
    r, pred, rel, prediction = _checked_inputs(y_true, y_pred, rel, prediction)
    retrieved = _retrieved(r)
    total = rank_sum(_row_losses(r.labels, pred, retrieved, rel, prediction))
    xp = namespace(total)
    return r.result(xp.where(r.lengths > 0, ratio(total, r.lengths), xp.full_like(total, xp.nan)))


def log_loss_total(rankings: Rankings, scores: Any, *, rel: float | None = 1,
                   prediction: Literal["probability", "logit"] = "probability") -> Any:
    """Log loss over every row of every query at once (a classifier's log loss)."""
    r, pred, rel, prediction = _checked_inputs(rankings, scores, rel, prediction)
    total = query_sum(rank_sum(_row_losses(r.labels, pred, _retrieved(r), rel, prediction)))
    rows = query_sum(as_float(r.lengths, total))
    return float(total / rows) if is_numpy(pred) else total / rows


# --------------------------------------------------------------------------- unscored rules


def no_positive_label(rankings: Rankings, **_: Any) -> list:
    """The queries ARP scores 0: no positive label among the documents retrieved."""
    found = rank_sum(namespace(rankings.labels).where(_retrieved(rankings), rankings.labels, 0.0))
    return [(found == 0, "no positive label retrieved: 0, as TensorFlow Ranking scores it")]
