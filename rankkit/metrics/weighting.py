"""Weights: one per query (how much each query counts in an aggregate) and one per item
(TensorFlow Ranking's per-example weights), the steps every weighted number shares.

Per-query weights (``weights=`` of :func:`rankkit.aggregate`, :func:`rankkit.compare` and
:func:`rankkit.evaluate_scores`):

- :func:`query_weights` checks them once (finite, >= 0, not all 0; a mapping or a pandas
  Series by query id, or an array in the order of the queries) and returns one float64 per
  query; :func:`all_equal` tells equal weights, which every caller treats as no weights at
  all, so that they give today's numbers bit for bit.
- :func:`weighted_mean` is ``sum_q w_q x_q / sum_q w_q``, each sum in query order
  (:func:`rankkit.ops.primitives.query_sum`); :func:`weighted_geometric_mean` is trec_eval's
  gm_map with weights, ``exp(sum_q w_q ln max(x_q, 1e-5) / sum_q w_q)``;
  :func:`weighted_pooled_auc` is the AUC of every row at once with a weight per row,
  scikit-learn's ``roc_auc_score(..., sample_weight=...)``.

Per-item weights (``item_weights=`` of :func:`rankkit.evaluate_scores`) follow TensorFlow
Ranking 0.5's ``tensorflow_ranking/python/metrics_impl.py`` (read at commit 5b1d133,
2024-03-18; github.com/tensorflow/ranking): an item of weight 0 is left out of its list; each
list's weight is ``sum_i w_i rel_i / sum_i rel_i`` over the whole list (:func:`list_weights`,
after TFR's ``_per_example_weights_to_per_list_weights``, a list without relevance taking the
mean weight of the others); the item weights enter the values of DCG and nDCG (the gain of
each item times its weight, :func:`item_gains`, :func:`ideal_item_gains`) and of AP
(:func:`weighted_precision_sums`); P, R, RR and success keep their values and take only the
list weight. :class:`~rankkit.Rankings` carries the item weights in rank order
(``Rankings.item_weights``).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Context, Decimal, localcontext
from typing import Any

import numpy as np

from ..ops.primitives import device, is_numpy, namespace, prefix_sum, query_sum, rank_sum

__all__ = ["query_weights", "check_weight_values", "all_equal", "weighted_mean", "weighted_geometric_mean",
           "weighted_aggregate",
           "weighted_pooled_auc", "list_weights", "item_gains", "ideal_item_gains", "weighted_precision_sums"]

GEOMETRIC_FLOOR = 0.00001  # trec_eval's MIN_GEO_MEAN, as rankkit.evaluation.arrays


# --------------------------------------------------------------------------- per query


def check_weight_values(values: Any, name: str = "weights") -> np.ndarray:
    """1-D float64 weights, finite and >= 0, not all 0 (a ValueError naming ``name``)."""
    try:
        w = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, got {type(values).__name__}") from None
    if w.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one weight per query), got shape {w.shape}")
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must be finite and non-negative, got {float(w[i])!r} at position {i}")
    if w.size and not (w > 0).any():
        raise ValueError(f"{name} are all 0: no query would count; give at least one query a positive weight")
    return w


def _by_id(weights: Any) -> dict | None:
    """A mapping or a pandas Series of weights as {id: weight}; None for anything else."""
    if isinstance(weights, Mapping):
        return dict(weights)
    if hasattr(weights, "index") and hasattr(weights, "to_numpy") and getattr(weights, "ndim", 0) == 1:
        return dict(zip(weights.index.tolist(), weights.to_numpy().tolist()))
    return None


def query_weights(weights: Any, query_ids: Any, *, arrays: bool = True, name: str = "weights") -> np.ndarray:
    """One checked weight per query of ``query_ids`` (in their order), from a mapping or a
    pandas Series by query id (ids absent from ``query_ids`` are ignored; an id is also
    found by its ``str``) or, with ``arrays``, an array-like in the order of the queries."""
    ids = list(np.asarray(query_ids, dtype=object).tolist()) if not hasattr(query_ids, "tolist") \
        else list(query_ids.tolist())
    table = _by_id(weights)
    if table is None:
        if not arrays:
            raise ValueError(f"{name} must be a pandas Series or a dict keyed by query id for a table indexed by "
                             f"query id, got {type(weights).__name__}")
        w = check_weight_values(weights, name)
        if w.shape[0] != len(ids):
            raise ValueError(f"{name} must hold one weight per query ({len(ids)}, in the order of the table's "
                             f"queries), got {w.shape[0]}")
        return w
    text = {str(k): v for k, v in table.items()}
    missing = [q for q in ids if q not in table and str(q) not in text]
    if missing:
        shown = ", ".join(repr(q) for q in missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise ValueError(f"{name} has no weight for {len(missing)} of the {len(ids)} queries: {shown}")
    return check_weight_values([table[q] if q in table else text[str(q)] for q in ids], name)


def all_equal(w: np.ndarray) -> bool:
    """Whether every weight is the same: such weights are no weights (the unweighted path)."""
    return bool(w.size == 0 or (w == w[0]).all())


def weighted_mean(values: Any, w: Any) -> Any:
    """``sum_q w_q x_q / sum_q w_q``, each sum over the queries in their order; a query of
    weight 0 adds nothing (even a ``nan`` value of it)."""
    xp = namespace(values)
    terms = xp.where(w > 0, w * values, xp.zeros_like(values))
    return query_sum(terms) / query_sum(w)


def weighted_geometric_mean(values: np.ndarray, w: np.ndarray) -> float:
    """trec_eval's gm_map with weights: ``exp(sum_q w_q ln max(x_q, 1e-5) / sum_q w_q)``, in
    40-digit decimal arithmetic (as :func:`rankkit.evaluation.arrays.geometric_mean`), one
    query at a time in query order, rounded once."""
    with localcontext(Context(prec=40, Emin=-(10**12), Emax=10**12)):
        total, logs = Decimal(0), Decimal(0)
        for value, weight in zip(values.tolist(), w.tolist()):  # an aggregate over queries, in order
            if weight > 0:
                total += Decimal(weight)
                logs += Decimal(weight) * Decimal(float(max(value, GEOMETRIC_FLOOR))).ln()
        return float((logs / total).exp())


def weighted_aggregate(values: np.ndarray, w: np.ndarray, how: str) -> float | None:
    """A column's weighted ``all`` value by its record's ``aggregate``: ``"mean"`` the weighted
    mean, ``"sum"`` the weights scaled to a mean of 1 over the n queries of positive weight,
    ``n sum_q w_q x_q / sum_q w_q`` (equal weights: the plain sum), ``"gmean"``
    :func:`weighted_geometric_mean`; None for any other (text, and the aggregates that pool
    rows or pairs)."""
    if how not in ("mean", "sum", "gmean"):
        return None
    values = np.asarray(values, dtype=np.float64)
    if how == "gmean":
        return weighted_geometric_mean(values, w)
    if how == "sum":
        return float(np.count_nonzero(w > 0) * weighted_mean(values, w)) + 0.0
    return float(weighted_mean(values, w))


def weighted_pooled_auc(labels: Any, scores: Any, w: Any, *, ties: str = "average", rel: float = 1) -> Any:
    """AUC of every row at once with a weight per row: each (positive, negative) pair counts
    ``w_pos * w_neg``, in order 1, tied 1/2 (``"average"``), 0 (``"pessimistic"``) or 1
    (``"optimistic"``), over ``W_pos * W_neg``; ``nan`` without a weighted positive or negative.
    ``sklearn.metrics.roc_auc_score(labels >= rel, scores, sample_weight=w)`` for ``"average"``.
    1-D arrays of any library: the rows sorted by score, the negatives' weight summed along
    them, read at the end of each group of equal scores."""
    xp = namespace(labels, scores, w)
    order = xp.argsort(scores, stable=False)  # equal scores are alike: grouped, in any order
    s, positive, w = xp.take(scores, order), xp.take(labels, order) >= rel, xp.take(w, order)
    pos, neg = xp.where(positive, w, xp.zeros_like(w)), xp.where(positive, xp.zeros_like(w), w)
    new = xp.concat([xp.ones(1, dtype=xp.bool, device=device(s)), s[1:] != s[:-1]])
    group = xp.cumulative_sum(xp.astype(new, xp.int64)) - 1
    ends = xp.nonzero(xp.concat([new[1:], xp.ones(1, dtype=xp.bool, device=device(s))]))[0]
    through = xp.take(xp.cumulative_sum(neg), ends)  # the negatives' weight up to each group's end
    below = xp.concat([xp.zeros(1, dtype=through.dtype, device=device(s)), through[:-1]])
    tied = {"average": 0.5, "pessimistic": 0.0, "optimistic": 1.0}[ties]
    per_row = xp.take(below, group) + tied * (xp.take(through, group) - xp.take(below, group))
    u, pairs = query_sum(pos * per_row), query_sum(pos) * query_sum(neg)
    if is_numpy(scores):
        return float(u) / float(pairs) if float(pairs) > 0 else float("nan")
    return xp.where(pairs > 0, u / xp.where(pairs > 0, pairs, xp.ones_like(pairs)), xp.full_like(pairs, xp.nan))


# --------------------------------------------------------------------------- per item


def list_weights(item_weights: Any, relevance: Any) -> Any:
    """One weight per list from per-item weights, TensorFlow Ranking's rule:
    ``sum_i w_i rel_i / sum_i rel_i``; a list without relevance takes the mean weight of the
    lists with relevance (1.0 when there is none); a list whose weights sum to 0 weighs 0."""
    xp = namespace(item_weights)
    some_weight = rank_sum(item_weights) > 0
    per_list = rank_sum(relevance)
    with_relevance = some_weight & (per_list > 0)
    safe = xp.where(with_relevance, per_list, xp.ones_like(per_list))
    weights = xp.where(with_relevance, rank_sum(item_weights * relevance) / safe, xp.zeros_like(per_list))
    n = float(query_sum(xp.astype(with_relevance, weights.dtype)))
    mean = float(query_sum(weights)) / n if n > 0 else 1.0
    return xp.where(some_weight, xp.where(with_relevance, weights, xp.full_like(weights, mean)),
                    xp.zeros_like(weights))


def _unit_weights(r: Any, g: Any) -> Any:
    """Each item's weight over its list's weight, the list's relevance its gains: the factor
    of TensorFlow Ranking's DCG (``dcg / per_list_weights``)."""
    xp = namespace(r.item_weights)
    gains = xp.where(r.judged, g(r.labels), xp.zeros_like(r.item_weights))
    per_list = list_weights(r.item_weights, gains)
    safe = xp.where(per_list > 0, per_list, xp.ones_like(per_list))
    return r.item_weights / safe[:, None]


def item_gains(r: Any, gains: Any, g: Any) -> Any:
    """``gains`` (the first columns of a ranking's gains) times each item's weight per unit
    of its list's weight; ``gains`` unchanged for rankings without item weights."""
    if r.item_weights is None:
        return gains
    return gains * _unit_weights(r, g)[:, : gains.shape[1]]


def ideal_item_gains(r: Any, g: Any) -> Any:
    """The ideal of weighted gains: every item's weighted gain (:func:`item_gains`) sorted
    descending, as TensorFlow Ranking's nDCG sorts ``weights * gain``."""
    xp = namespace(r.item_weights)
    weighted = xp.where(r.judged, g(r.labels), xp.zeros_like(r.item_weights)) * _unit_weights(r, g)
    return -xp.sort(-weighted, axis=1)


def weighted_precision_sums(r: Any, relevant: Any, rel: float) -> tuple[Any, Any, Any]:
    """AP's sums with item weights (TensorFlow Ranking's MAP): ``sum_i P@i w_i rel_i`` over
    the ranks of ``relevant`` (the top k), the weight of the relevant items there, and of
    every relevant item of the list (``sum_i w_i rel_i``, whatever k)."""
    xp = namespace(r.item_weights)
    hits = xp.astype(relevant, r.item_weights.dtype)
    depth = hits.shape[1]
    ranks = xp.astype(xp.arange(1, depth + 1), hits.dtype)
    precisions = prefix_sum(hits)[:, 1:] / ranks
    weights = r.item_weights[:, :depth]
    everywhere = xp.astype((r.labels >= rel) & r.judged, hits.dtype)
    return rank_sum(precisions * weights * hits), rank_sum(weights * hits), rank_sum(r.item_weights * everywhere)
