"""Graded-relevance metrics: cumulative gain, DCG, nDCG, rank-biased precision, ERR.

Every function takes labels in rank order (anything :func:`~rankkit.as_rankings`
accepts) and works on all queries at once. Conventions are parameters:

- ``gain``: ``"linear"`` ``g(r) = r`` (Järvelin & Kekäläinen 2002, trec_eval's ``ndcg``,
  scikit-learn's ``ndcg_score``), ``"exp"`` ``g(r) = 2**r - 1`` (Burges et al. 2005), or a
  mapping label -> gain (trec_eval's ``-m ndcg.1=3,2=9`` gain parameters).
- Ideal DCG comes from every judged label of the query, retrieved or not (trec_eval).
- A query whose ideal DCG is 0 (no document with a positive gain) scores nDCG 0.0.
- RBP: ``max_grade=None`` (binary, Moffat & Zobel 2008), a number (graded, one scale for
  all queries) or ``"query"`` (each query scaled by its largest judged label: trec_eval 10's
  ``rbp``); RBP residual: ``convention="moffat_zobel"`` (always with the tail ``p**depth``)
  or ``"trec_eval"`` (0 when nothing retrieved is unjudged: trec_eval 10's ``rbp_resid``).
- Ties ``"average"``: when a :class:`~rankkit.Rankings` carries tie groups, CG, DCG, nDCG
  and RBP report their exact expected value over all orders of each tied group; ERR,
  which is not linear in the per-rank labels, refuses a group of two documents or more.
- Array libraries: CG, DCG, IDCG, nDCG, RBP and ERR are kernels over the array namespace
  of the labels (:mod:`rankkit.ops.primitives`): on NumPy the one order of operations of
  :mod:`rankkit.ops.numerics`, on another array-API library (array-api-strict, JAX,
  PyTorch) its own operations, the data staying in that library, dtype and device. The
  other functions here take NumPy arrays.

References
----------
The docstrings reproduce numbers (never text) from articles cited by short names in
italics and listed with title, author and address in :mod:`rankkit.teaching.sources`:
(*the guide to ranking metrics*,
*Wang Shusen's slides*, *the NDCG article*).

- K. Järvelin and J. Kekäläinen, "Cumulated gain-based evaluation of IR techniques",
  ACM TOIS 20(4):422-446, 2002, doi:10.1145/582415.582418.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

import numpy as np

from .._validation import (
    check_base,
    check_gain,
    check_k,
    check_max_grade,
    check_no_ties,
    check_option,
    check_probability,
    check_rel,
)
from ..ops.numerics import discounts, jk_discounts, log2, log2_ranks, log_ranks, powers
from ..ops.primitives import (
    as_float,
    columns,
    constant,
    cumulative_product,
    exp2,
    namespace,
    rank_product,
    rank_sum,
    ratio,
    weighted_rank_sum,
)
from ..rankings import FloatOrArray, Rankings, RankingsLike, as_rankings
from .weighting import ideal_item_gains, item_gains

GAINS = ("linear", "exp")
GainLike = Literal["linear", "exp"] | Mapping[float, float]
GainFunction = Callable[[np.ndarray], np.ndarray]
#: DCG discounts: ``1 / log_b(i + 1)``, b = 2 by default (Burges et al. 2005, trec_eval; other b:
#: scikit-learn's ``log_base``) or Järvelin & Kekäläinen's.
DISCOUNTS = ("log2", "jk")
DiscountFunction = Callable[[int], np.ndarray]

__all__ = [
    "cumulative_gain", "dcg", "idcg", "ndcg", "rbp", "rbp_residual", "err",
    "binary_g", "g_measure", "ndcg_rel", "rndcg",
]


# --------------------------------------------------------------------------- helpers


def _largest(values, axis: int | None = None):
    """``values.max(axis=axis, initial=0.0)`` on any array library: the largest entry (of
    each row with ``axis=1``), 0.0 where there is none (the standard's ``max`` refuses an
    empty reduction)."""
    xp = namespace(values)
    if 0 in values.shape:  # nothing to compare: an empty sum is 0 in the right shape and dtype
        return xp.sum(values, axis=axis)
    top = xp.max(values, axis=axis)
    return xp.where(top > 0, top, xp.zeros_like(top))


def _linear(labels: np.ndarray) -> np.ndarray:
    return labels


def _exp(labels: np.ndarray) -> np.ndarray:
    _check_exp_range(_largest(labels), "gain='exp'")
    return exp2(labels) - 1.0


def _check_exp_range(top: float, what: str) -> None:
    """2**label is inf from 1024 on: every ratio of such gains would be NaN."""
    if top >= 1024:
        raise ValueError(f"{what} takes labels below 1024 (2**label overflows), got {float(top)!r}")


_linear.monotone = True  # type: ignore[attr-defined]
_exp.monotone = True  # type: ignore[attr-defined]


def _gain_function(gain: GainLike, name: str = "gain") -> GainFunction:
    """Validate ``gain`` once and return a vectorized ``g(labels) -> gains``.

    ``"linear"`` and ``"exp"`` give non-decreasing functions (attribute ``monotone`` is
    True, so the ideal order of labels is also the ideal order of gains). A mapping
    label -> gain gives trec_eval's gain parameters: a label in the mapping gets the
    mapped gain, any other label keeps its own value as gain (trec_eval's ``setup_gains``:
    "level 3 remains at the default"). Public functions of this module call it once; other
    modules that accept a ``gain`` should reuse it rather than re-implement it.
    """
    check_gain(gain, GAINS, name)
    if isinstance(gain, str):
        return _linear if gain == "linear" else _exp
    keys = np.fromiter((float(key) for key in gain), dtype=np.float64, count=len(gain))
    values = np.fromiter((float(v) for v in gain.values()), dtype=np.float64, count=len(gain))
    order = np.argsort(keys)
    keys, values = keys[order], values[order]

    def mapped(labels: np.ndarray) -> np.ndarray:
        if not keys.size:
            return labels
        xp = namespace(labels)
        table, gains = constant(keys, labels), constant(values, labels)
        flat = xp.reshape(labels, (-1,))  # the standard's searchsorted and take are 1-D
        idx = xp.searchsorted(table, flat)
        idx = xp.minimum(idx, xp.full_like(idx, keys.size - 1))
        out = xp.where(xp.take(table, idx) == flat, xp.take(gains, idx), flat)
        return xp.reshape(out, labels.shape)

    mapped.monotone = False  # type: ignore[attr-defined]
    return mapped


def _span(r: Rankings, k: int | None) -> int | None:
    """Columns to compute before cutting at k: all of them when tie groups may cross k."""
    return None if r.ties is not None else k


def _top(values: np.ndarray, k: int | None) -> np.ndarray:
    """The first k columns; all of them for ``k=None`` or a k beyond the depth (the array
    API standard leaves a slice that ends past the array unspecified)."""
    return values if k is None or k >= values.shape[1] else values[:, :k]


def _ranked_gains(r: Rankings, g: GainFunction, k: int | None) -> np.ndarray:
    """Gain at each rank (0 for unjudged documents and padding), tie-averaged, cut at k."""
    span = _span(r, k)
    gains = g(_top(r.labels, span))
    if g(np.zeros(1))[0] != 0:  # a mapping giving label 0 a gain: unjudged ranks keep 0
        xp = namespace(gains)
        gains = xp.where(_top(r.judged, span), gains, xp.zeros_like(gains))
    return _top(r.expected(item_gains(r, gains, g)), k)  # item weights (evaluate_scores): TFR's weighted gains


def _ideal_gains(r: Rankings, g: GainFunction, k: int | None) -> np.ndarray:
    """Gains of all judged documents in the ideal order, cut at k.

    ``r.ideal`` is sorted by label, which is the gain order for a non-decreasing ``g``;
    a mapping's gains are re-sorted. Only positive gains enter the ideal ranking
    (trec_eval's ``m_ndcg.c``; this matters only for mappings with negative gains).
    """
    if r.item_weights is not None:  # TensorFlow Ranking's ideal: the weighted gains sorted
        return _top(ideal_item_gains(r, g), k)
    monotone = getattr(g, "monotone", False)
    ideal = _top(r.ideal, k) if monotone else r.ideal
    gains = g(ideal)
    xp = namespace(gains)
    if not monotone or g(np.zeros(1))[0] != 0:  # zero padding must keep gain 0
        judged = columns(ideal) < r.n_judged[:, None]
        gains = xp.where(judged, gains, xp.zeros_like(gains))
    if not monotone:
        # descending as -sort(-x), with NumPy's default (unstable) sort: the order in which
        # 0.0 and -0.0 come out, and with it the sign of an all-zero IDCG, stays NumPy's
        gains = -xp.sort(-xp.maximum(gains, xp.zeros_like(gains)), axis=1, stable=False)
    return _top(gains, k)


def _discount_function(discount, base) -> DiscountFunction:
    """Validate ``discount`` and ``base`` once; return ``n -> weights of ranks 1..n``.

    The log discount of a base b other than 2 carries ``divisors`` (``n -> log_b(i + 1)``),
    so that :func:`_dcg` divides by them as it divides by ``log2(i + 1)``. A callable
    ``discount`` gives the weights itself (:func:`_callable_discount`).
    """
    if callable(discount):
        if check_base(base) != 2.0:
            raise ValueError(f"base applies to the discounts {DISCOUNTS}, not to a callable discount; "
                             f"got base={base!r}")
        return _callable_discount(discount)
    discount = check_option(discount, DISCOUNTS, "discount")
    base = check_base(base)
    if discount == "jk":
        return lambda n: jk_discounts(n, base)
    if base == 2:
        return discounts

    def weights(n: int) -> np.ndarray:
        return 1.0 / log_ranks(n, base)

    weights.divisors = lambda n: log_ranks(n, base)  # type: ignore[attr-defined]
    return weights


def _callable_discount(discount: Callable) -> DiscountFunction:
    """The weights of ranks 1..n from a user's function: ``discount`` is called once, with
    the ranks 1.0, 2.0, ..., n as a float64 NumPy array, and must give one finite weight per
    rank (or one for all), as TensorFlow Ranking's ``rank_discount_fn`` takes the ranks."""
    def weights(n: int) -> np.ndarray:
        ranks = np.arange(1, n + 1, dtype=np.float64)
        try:
            values = np.broadcast_to(np.asarray(discount(ranks), dtype=np.float64), (n,))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"discount(ranks) must give one number per rank, for {n} ranks: {exc}") from None
        if not np.isfinite(values).all():
            raise ValueError(f"discount(ranks) must give finite weights, got {values[~np.isfinite(values)][0]!r}")
        return values

    return weights


def _dcg(gains: np.ndarray, discount: DiscountFunction = discounts) -> np.ndarray:
    """sum_i gains[:, i] * w_i over ranks i = 1, 2, ..., added in rank order; by default
    w_i = 1 / log2(i + 1), as gains[:, i] / log2(i + 1) (trec_eval's division, to the bit),
    and likewise gains[:, i] / log_b(i + 1) for the log discount of another base b."""
    if discount is discounts:
        return weighted_rank_sum(gains, None, divisors=log2_ranks(gains.shape[1]))
    divisors = getattr(discount, "divisors", None)
    if divisors is not None:
        return weighted_rank_sum(gains, None, divisors=divisors(gains.shape[1]))
    return weighted_rank_sum(gains, discount(gains.shape[1]))


def _check_max_grade(max_grade, labels: np.ndarray, allowed: str = "a positive number or None") -> float:
    """A finite number > 0 that no label exceeds."""
    check_max_grade(max_grade, allowed)
    top = _largest(labels)
    if top > max_grade:
        raise ValueError(f"labels must be <= max_grade={max_grade!r}, got {float(top)!r}")
    return float(max_grade)


def _query_scale(r: Rankings) -> np.ndarray:
    """trec_eval 10's ``rbp`` gain scale per query: its largest judged label, if above 1, else 1.

    ``m_rbp.c`` takes the gains of the relevance levels 0..L of the query (``setup_gains``:
    gain = level, L its largest judged label, labels < 0 not being levels) and, when one
    leaves [0, 1], maps them by (gain - min) / (max - min). ``min`` and ``max`` start
    uninitialised there (undefined behaviour in C); rankkit starts both from 0, which
    gives min = 0 (level 0 is always a level) and max = L, i.e. labels / L when L > 1 and
    labels unchanged otherwise, and reproduces trec_eval's printed test outputs.
    ``labels`` is included for a hand-built Rankings whose ``ideal`` omits a retrieved label.
    """
    xp = namespace(r.labels)
    top = xp.maximum(_largest(r.ideal, axis=1), _largest(r.labels, axis=1))
    return xp.where(top > 1.0, top, xp.ones_like(top))


# --------------------------------------------------------------------------- gain family


def cumulative_gain(
    rankings: RankingsLike, *, k: int | None = None, gain: GainLike = "linear"
) -> FloatOrArray:
    """Cumulative gain at cutoff ``k``, per query: the sum of the gains of the top k.

    CG@k = sum_{i<=k} g(rel_i) (Järvelin & Kekäläinen 2002). CG ignores the order inside
    the top k: Wang Shusen's slides show that swapping the top 4 documents leaves CG@4
    unchanged.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole ranking.
    gain : {"linear", "exp"} or mapping, default="linear"
        ``"linear"``: ``g(r) = r`` (Järvelin & Kekäläinen, trec_eval,
        Wang Shusen's slides, the NDCG article); ``"exp"``: ``g(r) = 2**r - 1`` (Burges et al. 2005); a mapping
        label -> gain sets the gain of the listed labels, other labels keep ``g(r) = r``
        (trec_eval's ``-m ndcg.1=3,2=9``). Unjudged documents have gain 0.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 for an empty ranking. With tie groups (``ties="average"``), the expected CG
        over all orders of each group.

    Examples
    --------
    Wang Shusen's slides (labels in [0, 1]): CG@4 = 1 + 0.7 + 0.3 + 1 = 3.

    >>> round(cumulative_gain([1, 0.7, 0.3, 1, 0.7, 0.7, 0.3, 0, 0.7, 0], k=4), 4)
    3.0
    >>> cumulative_gain([[5, 1, 3, 2, 4], [5, 3, 4, 2, 1]])
    array([15., 15.])
    """
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    g = _gain_function(gain)
    return r.result(rank_sum(_ranked_gains(r, g, k)))


def dcg(
    rankings: RankingsLike,
    *,
    k: int | None = None,
    gain: GainLike = "linear",
    discount: Literal["log2", "jk"] = "log2",
    base: float = 2.0,
) -> FloatOrArray:
    """Discounted cumulative gain at cutoff ``k``, per query.

    DCG@k = sum_{i<=k} g(rel_i) * w_i over ranks i from 1, with the discount
    w_i = 1 / log2(i + 1) (``discount="log2"``, the usual form, as in trec_eval,
    scikit-learn and the Chinese articles cited in the module docstring), its form
    1 / log_b(i + 1) in another base b (``base=b``: scikit-learn's ``log_base``), or
    Järvelin & Kekäläinen's (2002) w_i = 1 for i < b and 1 / log_b(i) for i >= b (``"jk"``).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole ranking.
    gain : {"linear", "exp"} or mapping, default="linear"
        ``"linear"``: ``g(r) = r`` (trec_eval, Wang Shusen's slides); ``"exp"``:
        ``2**r - 1`` (Burges et al. 2005, the lipstick example of the NDCG article); a
        mapping label -> gain, other labels keep ``g(r) = r`` (trec_eval's gain
        parameters). Unjudged documents have gain 0.
    discount : {"log2", "jk"} or callable, default="log2"
        ``"log2"``: w_i = 1 / log_b(i + 1) from rank 1, b = ``base`` (b = 2: Burges et
        al. 2005; trec_eval, scikit-learn and the articles of the module's references).
        ``"jk"``: Järvelin & Kekäläinen's original discount, w_i = 1 for ranks i < b and
        1 / log_b(i) from rank b on (ACM TOIS 20(4), 2002, doi:10.1145/582415.582418).
        A callable (the Python functions only; a metric spec names the two above) is
        TensorFlow Ranking's ``rank_discount_fn``: called once with the ranks 1.0, 2.0, ...
        as a NumPy array, it returns w_i, e.g. ``lambda i: 1 / (i + 10)`` (TFR's test
        ``test_dcg_should_use_custom_rank_discount_fn``) or ``lambda i: 1 / i``; ``base``
        must then stay 2. IDCG and nDCG use the same w_i.
    base : float, default=2.0
        b, a finite number > 1. With ``"log2"`` it is scikit-learn's ``log_base`` of
        ``dcg_score`` and ``ndcg_score`` (``base=10`` reproduces ``log_base=10``); a b
        above 2 gives the top ranks weights above 1. With ``"jk"`` a larger b discounts
        less steeply (a more patient user). nDCG does not depend on b with ``"log2"``
        (every weight is scaled by ln 2 / ln b); DCG does.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 for an empty ranking; with tie groups, the expected DCG over their orders.

    Raises
    ------
    ValueError
        For an unknown ``discount`` or a ``base`` that is not a finite number > 1.

    Examples
    --------
    Wang Shusen's slides: DCG@4 = 1/log2(2) + 0.7/log2(3) + 0.3/log2(4) + 1/log2(5) = 2.02.

    >>> round(dcg([1, 0.7, 0.3, 1, 0.7, 0.7, 0.3, 0, 0.7, 0], k=4), 2)
    2.02

    The NDCG article's algorithm A with exponential gain:

    >>> dcg([5, 1, 3, 2, 4], gain="exp")
    42.225751536309765

    Järvelin & Kekäläinen with b = 2: ranks 1 and 2 keep their gain (log2(2) = 1), then
    3/log2(3) + 0/log2(4) + 1/log2(5) + 2/log2(6):

    >>> round(dcg([3, 2, 3, 0, 1, 2], discount="jk"), 4), round(dcg([3, 2, 3, 0, 1, 2]), 4)
    (8.0972, 6.8611)

    scikit-learn's ``log_base=10``: 3 / log10(2).

    >>> round(dcg([3, 0, 0], base=10), 4)
    9.9658

    A discount of one's own, TensorFlow Ranking's ``1 / (rank + 10)``: 3/12 + 1/13.

    >>> round(dcg([0, 3, 1, 0], discount=lambda i: 1 / (i + 10)), 4)
    0.3269
    """
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    g = _gain_function(gain)
    w = _discount_function(discount, base)
    return r.result(_dcg(_ranked_gains(r, g, k), w))


def idcg(
    rankings: RankingsLike,
    *,
    k: int | None = None,
    gain: GainLike = "linear",
    discount: Literal["log2", "jk"] = "log2",
    base: float = 2.0,
) -> FloatOrArray:
    """Ideal DCG at cutoff ``k``: the DCG@k of all judged labels in the best order.

    IDCG@k = sum_{i<=k} g(rel*_i) * w_i where rel* lists every judged label of the
    query, retrieved or not, by decreasing gain (trec_eval's convention; for a bare list
    the labels given are all the judged ones, so the ideal is the list sorted), and w_i
    is the discount of :func:`dcg`. Only positive gains enter the ideal ranking
    (trec_eval, relevant only for a gain mapping with negative gains).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order; a ``Rankings`` supplies the judged labels in ``ideal``.
    k : int or None, default=None
        Cutoff; ``None`` uses every judged document (trec_eval's ``ndcg``).
    gain : {"linear", "exp"} or mapping, default="linear"
        As in :func:`dcg`.
    discount, base
        As in :func:`dcg`.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 for a query without a positive gain.

    Examples
    --------
    Wang Shusen's slides: the best ordering of the ten labels has DCG@4 = 2.28.

    >>> round(idcg([1, 0.7, 0.3, 1, 0.7, 0.7, 0.3, 0, 0.7, 0], k=4), 2)
    2.28

    The NDCG article's ideal lipstick order [5, 4, 3, 2, 1] with exponential gain:

    >>> idcg([5, 1, 3, 2, 4], gain="exp")
    45.64282878502658
    """
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    g = _gain_function(gain)
    w = _discount_function(discount, base)
    return r.result(_dcg(_ideal_gains(r, g, k), w))


def ndcg(
    rankings: RankingsLike,
    *,
    k: int | None = None,
    gain: GainLike = "linear",
    discount: Literal["log2", "jk"] = "log2",
    base: float = 2.0,
    no_relevant: float = 0.0,
) -> FloatOrArray:
    """Normalized discounted cumulative gain at cutoff ``k``, per query.

    nDCG@k = DCG@k / IDCG@k (:func:`dcg`, :func:`idcg`, both with the same gain and
    discount), with the ideal built from all judged documents. With ``gain="linear"``
    this is trec_eval's ``ndcg`` (``k=None``: the whole ranking against all judged
    documents) and ``ndcg_cut_k``; for a bare list it is scikit-learn's ``ndcg_score``
    (whose ideal also comes from the row's own labels).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int or None, default=None
        Cutoff for both DCG and IDCG; ``None`` uses the whole ranking and every
        judged document.
    gain : {"linear", "exp"} or mapping, default="linear"
        ``"linear"`` (trec_eval, scikit-learn),
        ``"exp"`` ``2**r - 1`` (Burges et al. 2005, the NDCG article's lipstick
        example), or a mapping label -> gain: other labels keep ``g(r) = r``, as
        trec_eval's ``-m ndcg.1=3,2=9`` does. Negative mapped gains are allowed (the
        document lowers DCG and stays out of the ideal, as in trec_eval), so nDCG can
        then be negative. trec_eval compares gains truncated to integers when it sorts
        the ideal levels; rankkit sorts exact gains, so mapped gains less than 1 apart
        may give a different ideal than trec_eval.
    discount, base
        As in :func:`dcg`; the ideal DCG uses the same discount.
    no_relevant : float in [0, 1], default=0.0
        The value of a query whose ideal DCG is 0 (no judged document with a positive
        gain): 0 as trec_eval scores it, 1 as LightGBM's ``ndcg`` metric and XGBoost's
        (without its ``-`` suffix) do.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1] for non-negative gains; ``no_relevant`` for a query whose ideal DCG is
        0. With tie groups, the expected nDCG over all orders of each group (exact: IDCG
        does not depend on the order).

    Examples
    --------
    The NDCG article's algorithms A and B against the ideal [5, 4, 3, 2, 1],
    exponential gain:

    >>> ndcg([[5, 1, 3, 2, 4], [5, 3, 4, 2, 1]], k=5, gain="exp").round(4)
    array([0.9251, 0.9771])

    Linear gain: DCG 2 + 1/log2(4) = 2.5 against the ideal [2, 1, 0]'s 2 + 1/log2(3):

    >>> round(ndcg([2, 0, 1], k=3), 4)
    0.9502

    Järvelin & Kekäläinen's discount, b = 2: 8.0972 / 8.6925 (ideal [3, 3, 2, 2, 1, 0]):

    >>> round(ndcg([3, 2, 3, 0, 1, 2], discount="jk", base=2), 4)
    0.9315

    LightGBM's convention for a query without a relevant document:

    >>> ndcg([[0, 0], [1, 0]], gain="exp", no_relevant=1)
    array([1., 1.])
    """
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    no_relevant = check_probability(no_relevant, "no_relevant", low_open=False)
    g = _gain_function(gain)
    w = _discount_function(discount, base)
    actual = _dcg(_ranked_gains(r, g, k), w)
    best = _dcg(_ideal_gains(r, g, k), w)
    xp = namespace(actual)
    return r.result(xp.where(best > 0, ratio(actual, best), xp.full_like(actual, no_relevant)))


# --------------------------------------------------------------------------- user models


def rbp(
    rankings: RankingsLike,
    *,
    p: float = 0.8,
    k: int | None = None,
    rel: float = 1,
    max_grade: float | Literal["query"] | None = None,
) -> FloatOrArray:
    """Rank-biased precision (Moffat & Zobel 2008), per query.

    RBP = (1 - p) * sum_{i>=1} r_i * p**(i - 1): a user reads rank 1, then moves on to
    each next document with probability ``p`` (persistence); RBP is the expected utility
    per document read, since the expected number read is sum_i p**(i-1) = 1 / (1 - p)
    (the guide to ranking metrics). Unjudged documents count as not relevant; :func:`rbp_residual` says
    how much they and the unretrieved tail could add.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    p : float in (0, 1), default=0.8
        Persistence. ``p = 1`` is refused (every RBP would be 0).
    k : int or None, default=None
        Evaluation depth; ``None`` uses the whole ranking.
    rel : float, default=1
        Binary RBP (Moffat & Zobel): ``r_i = 1`` if ``label >= rel`` else 0.
    max_grade : float, "query" or None, default=None
        ``None``: binary RBP with ``rel``. A number: graded RBP, ``r_i = label /
        max_grade`` in [0, 1] for every query (in the guide to ranking metrics
        relevance may be a real number in [0, 1]; ``max_grade=1`` takes such labels as
        they are); labels above it are refused. ``"query"``: trec_eval 10's ``rbp``: each query's labels are
        divided by that query's largest judged label (retrieved or not) when it exceeds
        1, and taken as they are when it does not (trec_eval only rescales gains that
        leave [0, 1]; labels < 0 in the qrels have gain 0 and are not levels). With a
        number or ``"query"``, ``rel`` must stay at its default: as in trec_eval, the
        relevance level (``-l``) plays no part. On binary qrels, ``"query"`` equals the
        default binary RBP.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1 - p**depth]; 0.0 for a query with no relevant document retrieved.
        With tie groups, the expected RBP over all orders of each group.

    Notes
    -----
    trec_eval 10 (``m_rbp.c``, default ``p = 0.9``) maps the gains of the levels 0..L
    of a query (gain = level, L its largest judged label) by (gain - min) / (max - min)
    when one of them leaves [0, 1], with ``min`` and ``max`` read uninitialised.
    ``max_grade="query"`` takes min = 0 (level 0 is always a level, so no label is
    shifted) and max = L, which reproduces trec_eval's printed outputs on its own
    graded test data (``qrels.rel_level``, tested).

    Examples
    --------
    >>> rbp([1, 0, 1], p=0.5)   # 0.5 * (1 + 0.5**2)
    0.625
    >>> round(rbp([2, 1, 0], p=0.5, max_grade=2), 4)   # 0.5 * (1 + 0.5 * 0.5)
    0.625

    ``"query"`` rescales each query by its own largest label (4, then 1: unchanged):

    >>> rbp([[4, 2, 0], [1, 0, 1]], p=0.5, max_grade="query")   # 0.5 * (1 + 0.5 / 2)
    array([0.625, 0.625])
    """
    r = as_rankings(rankings, any_library=True)
    p = check_probability(p, "p", high_open=True)
    k = check_k(k)
    rel = check_rel(rel)
    span = _span(r, k)
    if max_grade is None:
        values = as_float(_top(r.labels, span) >= rel, r.labels)
    else:
        if isinstance(max_grade, str) and max_grade == "query":
            scale = _query_scale(r)[:, None]
        else:
            scale = _check_max_grade(max_grade, r.labels, "a positive number, 'query' or None")
        if rel != 1:
            raise ValueError(f"rel applies to binary RBP only; got rel={rel!r} with max_grade={max_grade!r}")
        values = _top(r.labels, span) / scale
    values = _top(r.expected(values), k)
    # trec_eval's order: the sum of r_i * p**(i-1) in rank order, then times (1 - p)
    return r.result((1.0 - p) * weighted_rank_sum(values, powers(p, values.shape[1])))


RESIDUAL_CONVENTIONS = ("moffat_zobel", "trec_eval")


def rbp_residual(
    rankings: RankingsLike,
    *,
    p: float = 0.8,
    k: int | None = None,
    convention: Literal["moffat_zobel", "trec_eval"] = "moffat_zobel",
) -> FloatOrArray:
    """RBP residual (Moffat & Zobel 2008): the RBP that unknown documents could still add.

    residual = (1 - p) * sum_{i <= d, i unjudged} p**(i - 1) + p**d, with d = min(k,
    number retrieved): the weight of every unjudged document within the evaluated depth,
    plus the weight of every rank beyond it, as if all of them were relevant. RBP lies
    in [rbp, rbp + residual] whatever the missing judgments are.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order; ``Rankings.judged`` tells which ranks were judged (a bare
        list counts as fully judged).
    p : float in (0, 1), default=0.8
        Persistence, as in :func:`rbp`.
    k : int or None, default=None
        Evaluation depth; ``None`` uses the whole ranking.
    convention : {"moffat_zobel", "trec_eval"}, default="moffat_zobel"
        ``"moffat_zobel"``: the formula above (Moffat & Zobel 2008), always with the
        tail ``p**d``, so a fully judged list has residual ``p**d`` and an empty one 1.
        ``"trec_eval"``: trec_eval 10's ``rbp_resid`` (``m_rbp_resid.c``, ``p = 0.9``
        there): the same sum when at least one of the top d documents is unjudged, and
        0.0 otherwise, tail included; so 0.0 for a fully judged list, an empty one, and
        a judged query missing from the run under ``trec_eval -c`` (which trec_eval
        also sets to 0 explicitly).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]. With tie groups, the expected residual over all orders of each group
        (exact for both conventions: under ``"trec_eval"`` the tail counts with the
        probability that an unjudged document lands within the top k).

    Examples
    --------
    >>> rbp_residual([1, 0, 1], p=0.5)   # p**3: only the ranks after the list are unknown
    0.125
    >>> rbp_residual([1, 0, 1, 1], p=0.5, k=2)
    0.25
    >>> rbp_residual([1, 0, 1], p=0.5, convention="trec_eval")   # nothing unjudged
    0.0

    With the second of three documents unjudged, both give (1 - p) * p + p**3:

    >>> import pandas as pd
    >>> from rankkit import Rankings
    >>> r = Rankings(labels=np.array([[1.0, 0.0, 1.0]]), judged=np.array([[True, False, True]]),
    ...              lengths=np.array([3]), ideal=np.array([[1.0, 1.0]]), n_judged=np.array([2]),
    ...              query_ids=pd.Index(["q"]))
    >>> rbp_residual(r, p=0.5), rbp_residual(r, p=0.5, convention="trec_eval")
    (array([0.375]), array([0.375]))
    """
    r = as_rankings(rankings)
    p = check_probability(p, "p", high_open=True)
    k = check_k(k)
    convention = check_option(convention, RESIDUAL_CONVENTIONS, "convention")
    span = _span(r, k)
    judged = r.judged[:, :span]
    retrieved = np.arange(judged.shape[1]) < r.lengths[:, None]
    unknown = retrieved & ~judged
    unjudged = r.expected(unknown.astype(np.float64))[:, :k]
    evaluated = r.lengths if k is None else np.minimum(r.lengths, k)
    tail = powers(p, int(evaluated.max(initial=0)) + 1)[evaluated]
    if convention == "trec_eval":
        tail = tail * _chance_of_unjudged(r, unknown, k)
    # trec_eval's order: p**d + (1 - p) * (the sum of p**(i-1) over unjudged ranks)
    return r.result(tail + (1.0 - p) * weighted_rank_sum(unjudged, powers(p, unjudged.shape[1])))


def _chance_of_unjudged(r: Rankings, unknown: np.ndarray, k: int | None) -> np.ndarray:
    """Probability that an unjudged document is among the top k, per query.

    0 or 1, except with tie groups when a group straddles rank k: its t members above the
    cut are then a uniform draw from its m members, u of them unjudged, and none of the
    u is drawn with probability prod_{j<t} (m - u - j) / (m - j) (hypergeometric).
    """
    chance = unknown[:, :k].any(axis=1).astype(np.float64)
    if r.ties is None or k is None:
        return chance
    rows = np.flatnonzero(r.lengths > k)  # only these can be cut inside a group
    if not rows.size:
        return chance
    ties, unknown = r.ties[rows], unknown[rows]
    member = ties == ties[:, k - 1 : k]  # the group of rank k
    m = member.sum(axis=1)
    u = (member & unknown).sum(axis=1)
    t = member[:, :k].sum(axis=1)
    outside = (unknown[:, :k] & ~member[:, :k]).any(axis=1)  # unjudged above the cut, not in the group
    j = np.arange(int(t.max()))
    drawn = j < t[:, None]
    factors = np.maximum(m[:, None] - u[:, None] - j, 0) / np.maximum(m[:, None] - j, 1)
    none = rank_product(np.where(drawn, factors, 1.0))
    chance[rows] = np.where(outside, 1.0, 1.0 - none)
    return chance


def err(
    rankings: RankingsLike,
    *,
    k: int | None = None,
    p: float = 1.0,
    max_grade: float | None = None,
    stop: Literal["grade", "label"] = "grade",
) -> FloatOrArray:
    """Expected reciprocal rank (Chapelle et al. 2009) with persistence ``p``, per query.

    ERR = sum_{i<=k} (1 / i) * R_i * prod_{j<i} (1 - R_j) * p**(i - 1), with
    R_i = (2**g_i - 1) / 2**max_grade: the user stops at rank i, satisfied, with
    probability R_i, and otherwise moves on with probability ``p`` (the guide to ranking
    metrics, after Ilya Markov's lecture; ``p = 1`` is Chapelle et al.'s cascade model).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels (grades) in rank order.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole ranking.
    p : float in (0, 1], default=1.0
        Probability of going on after a document that did not satisfy the user.
    max_grade : float or None, default=None
        The grade that gives the largest R. ``None`` uses the largest judged label in
        the input, over all queries, retrieved or not (so a batch and its rows taken one
        by one may differ; :func:`rankkit.evaluate` passes the data set's maximum).
        Labels above ``max_grade`` are refused. For labels in [0, 1], ``max_grade=1``
        gives R = (2**g - 1) / 2.
    stop : {"grade", "label"}, default="grade"
        R_i, the chance to stop at rank i: ``"grade"`` as above; ``"label"`` the label
        itself, a probability in [0, 1] (CatBoost's ``ERR``, which takes targets in [0, 1]
        as they are; ``max_grade`` then plays no part). Its test ``ERRTest``
        (``catboost/libs/metrics/ut/err_ut.cpp``) gives 0.82 for targets 0.8, 0, 0, 0.4 in
        rank order: 0.8 + (1/4) * 0.4 * 0.2.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1); 0.0 for a query with no document of positive grade retrieved.

    Raises
    ------
    ValueError
        If the rankings carry a tie group of two documents or more (``ties="average"``
        on tied scores): ERR is not linear in the per-rank labels, so averaging labels
        would not give its expectation.

    Examples
    --------
    One document of the top grade 4 at rank 1: ERR = (2**4 - 1) / 2**4.

    >>> err([4, 0, 0], max_grade=4)
    0.9375
    >>> err([[1, 0], [0, 1]], max_grade=1)   # R = 1/2 at rank 1, or at rank 2 (1/2 * 1/2)
    array([0.5 , 0.25])
    >>> round(err([0.8, 0, 0, 0.4], stop="label"), 4)
    0.82
    """
    r = as_rankings(rankings, any_library=True)
    k = check_k(k)
    p = check_probability(p, "p")
    stop = check_option(stop, ERR_STOPS, "stop")
    if r.ties is not None and _tied(r.ties):
        raise ValueError(
            "err does not support ties='average' (ERR is not linear in the labels); "
            "rank with ties='docno', 'optimistic' or 'pessimistic'"
        )
    labels = _top(r.labels, k)
    ranks = np.arange(1, labels.shape[1] + 1, dtype=np.float64)
    weights = powers(p, labels.shape[1]) / ranks  # a table, moved to the labels' device by the sum
    # R_i, then R_i * prod_{j<i} (1 - R_j) (the chance to stop at i); in place where the
    # library allows it (NumPy, array-api-strict), as the matrices can be large
    chance = _stop_chances(r, labels, max_grade, stop)
    chance *= cumulative_product(1.0 - chance)[:, :-1]  # rank 1 times 1.0: unchanged
    return r.result(weighted_rank_sum(chance, weights))


#: How :func:`err` reads a label as the chance to stop: (2**g - 1) / 2**max_grade of its grade,
#: or the label itself (a probability, CatBoost's ERR).
ERR_STOPS = ("grade", "label")


def _stop_chances(r: Rankings, labels, max_grade, stop: str):
    """R_i of :func:`err` at each rank, a new array: from the grades, or the labels as they are."""
    if stop == "label":
        if max_grade is not None:
            check_max_grade(max_grade)
        top = _largest(r.labels)
        if top > 1:
            raise ValueError(f"stop='label' takes labels in [0, 1] (stopping probabilities), got {float(top)!r}")
        return labels * 1.0
    if max_grade is None:
        top = namespace(r.labels).maximum(_largest(r.ideal), _largest(r.labels))
    else:
        top = _check_max_grade(max_grade, r.labels)
    _check_exp_range(top, "ERR")
    chance = exp2(labels)
    chance -= 1.0
    chance /= exp2(as_float(top, labels))
    return chance


def _tied(ties: np.ndarray) -> bool:
    """Whether some tie group holds two ranks or more (``Rankings.ties``: a group is a run of
    equal ids along a row, so two neighbours share an id)."""
    if ties.shape[1] < 2:  # the slices below would be out of bounds for the standard
        return False
    return bool(namespace(ties).any(ties[:, 1:] == ties[:, :-1]))


# --------------------------------------------------------------------------- gains after others (trec_eval)


def _gains_and_ideal(r: Rankings, gain: GainLike, width: int | None = None):
    """Gains in rank order (0 past each list's end) and the ideal gains padded to ``width``."""
    g = _gain_function(gain)
    gains = _ranked_gains(r, g, None)
    gains = np.where(np.arange(r.depth) < r.lengths[:, None], gains, 0.0)
    ideal = _ideal_gains(r, g, None)
    width = max(r.depth, ideal.shape[1]) if width is None else width
    padded = np.zeros((r.n_queries, width))
    padded[:, : min(width, ideal.shape[1])] = ideal[:, :width]
    return gains, padded


def _prefix(values: np.ndarray) -> np.ndarray:
    """Sums of the first i values for i = 1, 2, ... (rank order, one addition at a time)."""
    return np.cumsum(values, axis=1)


def _at(prefix: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``prefix[:, count - 1]`` per row, 0.0 where ``count`` is 0."""
    if prefix.shape[1] == 0:
        return np.zeros(prefix.shape[0])
    at = np.clip(count - 1, 0, prefix.shape[1] - 1)
    return np.where(count > 0, prefix[np.arange(prefix.shape[0]), at], 0.0)


def binary_g(rankings: RankingsLike, *, rel: float = 1) -> FloatOrArray:
    """Binary G (trec_eval ``binG``): each relevant document retrieved adds
    1 / log2(2 + the documents ranked above it that are not relevant), over R.

    An AP-like measure with DCG's discount: a relevant document loses credit only for the
    non-relevant (or unjudged) documents above it, not for relevant ones (Kishida, "Property
    of average precision and its generalization", NII Technical Report NII-2005-014E, 2005;
    trec_eval's binary version of :func:`g_measure`).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    rel : float, default=1
        Relevance threshold: label >= rel is relevant.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.0 for a query with no relevant document.

    Examples
    --------
    >>> binary_g([1, 1, 0, 1])   # (1 + 1 + 1 / log2(3)) / 3
    0.8769765845238192
    """
    r = as_rankings(rankings)
    rel = check_rel(rel)
    check_no_ties(r, "binary_g")
    relevant = r.relevant(rel)
    rows, cols = np.nonzero(relevant)
    not_relevant_above = cols - (np.cumsum(relevant, axis=1) - relevant)[rows, cols]
    logs = log2_ranks(int(not_relevant_above.max(initial=0)) + 1)  # logs[x] = log2(2 + x)
    total = np.bincount(rows, weights=1.0 / logs[not_relevant_above], minlength=r.n_queries)
    n_rel = r.n_relevant(rel)
    return r.result(np.divide(total, n_rel, out=np.zeros(r.n_queries), where=n_rel > 0))


def g_measure(rankings: RankingsLike, *, gain: GainLike = "linear") -> FloatOrArray:
    """Normalized gain G (trec_eval ``G``): the gain at rank i is discounted by how far the
    ranking has fallen behind the ideal by then.

    G = sum_{i <= n, g_i != 0} g_i / log2(2 + C_i - S_i) / sum_j I_j, where S_i is the gain
    of the top i, I_j the ideal gains (positive, descending) and C_i = sum_{j <= i}
    max(I_j, 1) the ideal gain of the top i counting every position at least 1 (Kishida
    2005, as :func:`binary_g`). A document retrieved when the ranking is still ideal is
    discounted by log2(2) = 1, not at all.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    gain : {"linear", "exp"} or mapping, default="linear"
        As in :func:`ndcg` (trec_eval's ``G.1=3,2=9`` gain parameters).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 for a query without a positive gain.

    Examples
    --------
    >>> g_measure([2, 1, 0])   # the ideal order: (2 / log2(2) + 1 / log2(2)) / 3
    1.0
    >>> round(g_measure([1, 2, 0]), 4)   # (1 / log2(2 + 1) + 2 / log2(2 + 1)) / 3
    0.877
    """
    r = as_rankings(rankings)
    check_no_ties(r, "g_measure")
    gains, ideal = _gains_and_ideal(r, gain, r.depth)
    behind = 2.0 + _prefix(np.maximum(ideal, 1.0)) - _prefix(gains)
    counted = gains != 0.0
    terms = np.zeros_like(gains)
    terms[counted] = gains[counted] / log2(behind[counted])
    total = rank_sum(terms)
    best = rank_sum(_gains_and_ideal(r, gain)[1])
    return r.result(np.divide(total, best, out=np.zeros(r.n_queries), where=best > 0))


def ndcg_rel(rankings: RankingsLike, *, gain: GainLike = "linear") -> FloatOrArray:
    """nDCG averaged over the relevant documents (trec_eval ``ndcg_rel``).

    nDCG is taken at the rank of each retrieved document with a positive gain,
    DCG_i / IDCG_i, and each such document not retrieved counts DCG_n / IDCG (the
    value at the end of the list); the mean over the K documents of positive gain.
    trec_eval's reasoning: nDCG jumps at each change of gain level in the ideal
    ranking, so one cutoff favours some queries; averaging at the relevant documents
    does not. IDCG_i stops growing after the K-th ideal document.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    gain : {"linear", "exp"} or mapping, default="linear"
        As in :func:`ndcg`.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 when the average is not positive (no relevant document found).

    Examples
    --------
    >>> round(ndcg_rel([2, 0, 1]), 4)   # (nDCG@1 + nDCG@3) / 2 = (1 + 0.9502) / 2
    0.9751
    """
    r = as_rankings(rankings)
    check_no_ties(r, "ndcg_rel")
    gains, ideal = _gains_and_ideal(r, gain)
    width = ideal.shape[1]
    logs = log2_ranks(width)  # divided by, as trec_eval does
    dcg_at = _prefix(gains / logs[: r.depth])
    idcg_at = _prefix(ideal / logs)
    positive = gains > 0
    idcg_here = idcg_at[:, : r.depth]
    ratios = np.divide(dcg_at, idcg_here, out=np.zeros_like(dcg_at), where=positive & (idcg_here > 0))
    n_ideal = (ideal > 0).sum(axis=1)
    dcg_n, idcg_all = _at(dcg_at, r.lengths), _at(idcg_at, n_ideal)
    missed = (n_ideal - positive.sum(axis=1)).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = rank_sum(ratios) + missed * (dcg_n / idcg_all)
    ok = (n_ideal > 0) & (total > 0)
    return r.result(np.divide(total, n_ideal, out=np.zeros(r.n_queries), where=ok))


def rndcg(rankings: RankingsLike, *, gain: GainLike = "linear", rel: float = 1) -> FloatOrArray:
    """nDCG averaged at the R levels of the ideal ranking (trec_eval ``Rndcg``).

    The ideal ranking changes gain at positions c_1 < c_2 < ... < c_m = K (the cumulative
    counts of its gain levels, highest first; K documents have a positive gain). Rndcg is
    the mean of DCG_min(c_t, n) / IDCG_c_t over those positions, with one more term
    DCG_n / IDCG_K when more than K + 1 documents were retrieved (trec_eval 10's
    ``m_Rndcg.c``; its help text also counts the judged non-relevant level). 0.0 when no
    document is relevant at ``rel`` (R = 0), as in trec_eval, whose -l decides that alone.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    gain : {"linear", "exp"} or mapping, default="linear"
        As in :func:`ndcg`.
    rel : float, default=1
        Relevance threshold for R (only the R = 0 test uses it).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        NaN when there is no position to average at (R > 0 but no positive gain and at
        most one document retrieved), as trec_eval.

    Examples
    --------
    >>> round(rndcg([1, 2, 0, 1]), 4)   # ideal 2, 1, 1: (DCG_1 / IDCG_1 + DCG_3 / IDCG_3) / 2
    0.6112
    """
    r = as_rankings(rankings)
    rel = check_rel(rel)
    check_no_ties(r, "rndcg")
    gains, ideal = _gains_and_ideal(r, gain)
    logs = log2_ranks(ideal.shape[1])  # divided by, as trec_eval does
    dcg_at = _prefix(gains / logs[: r.depth])
    idcg_at = _prefix(ideal / logs)
    n_ideal = (ideal > 0).sum(axis=1)
    position = np.arange(1, ideal.shape[1] + 1)
    following = np.concatenate([ideal[:, 1:], np.zeros((r.n_queries, 1))], axis=1)
    change = (position <= n_ideal[:, None]) & ((position == n_ideal[:, None]) | (ideal != following))
    reached = np.minimum(position, r.lengths[:, None])  # DCG at min(c, n)
    dcg_reached = np.where(reached > 0, np.take_along_axis(dcg_at, np.clip(reached - 1, 0, max(r.depth - 1, 0)), 1)
                           if r.depth else 0.0, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(change, dcg_reached / idcg_at, 0.0)
        extra = r.lengths > n_ideal + 1
        total = rank_sum(terms) + np.where(extra, _at(dcg_at, r.lengths) / _at(idcg_at, n_ideal), 0.0)
        value = total / (change.sum(axis=1) + extra)
    return r.result(np.where(r.n_relevant(rel) > 0, value, 0.0))
