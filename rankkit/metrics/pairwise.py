"""Pairwise metrics: how many pairs of documents two orders agree on.

These metrics look at every pair of items of one list (query) and ask whether two orders
agree on it: the rank order versus the relevance labels (:func:`pair_counts`,
:func:`inversions`, :func:`pnr`), two score vectors (:func:`kendall_tau`,
:func:`kendall_distance`), or relevance labels versus model scores (:func:`auc`).

Input conventions (shared by every function here and by :mod:`rankkit.metrics.unranked`; read by
``rankkit.metrics._paired_values``):

- a 1-D list or array is one list and gives a Python float;
- a 2-D array holds one list per row (every row the same length) and gives one value per row;
- a list of lists may be ragged (rows of different lengths): each row is used as is,
  nothing is padded into it;
- values must be finite (NaN or inf raises ``ValueError`` naming the argument); two inputs
  must have the same shape (the same row lengths), else ``ValueError`` names both.

Complexity: pair counts never build an (L, L) matrix for long lists. Lists longer than
16 items use a bottom-up merge sort over all rows at once,
O(N log L) time and O(N) memory for N items in all; shorter lists compare all pairs by
broadcasting (n, L, L) in chunks of rows of bounded size (the counting is :mod:`rankkit.ops.pairs`).

References
----------
The docstrings reproduce numbers (never text) from articles cited by short names in
italics and listed with title, author and address in :mod:`rankkit.teaching.sources`:
(*the guide to ranking metrics*,
*Wang Shusen's slides*).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .._validation import check_option, check_rel
from ..ops import pairs as counting
from ..ops.primitives import (
    as_float,
    columns,
    constant,
    count,
    device,
    gather,
    is_numpy,
    namespace,
    prefix_sum,
    query_sum,
    rank_rows,
    ratio,
    tie_bounds,
)
from ..rankings import FloatOrArray, Rankings, query_positions

if TYPE_CHECKING:
    from ._paired_values import Rows

__all__ = ["PairCounts", "pair_counts", "inversions", "pnr", "kendall_tau", "kendall_distance", "auc", "gauc",
           "GAUC_WEIGHTS", "gauc_total", "pnr_ratio", "pnr_total", "pooled_auc",
           "auc_unscored", "pnr_unscored"]


# The readers of inputs import pandas: imported on first use, so that importing this module
# (the registry does, for the command line too) loads neither.
def as_rows(x: Any, name: str) -> Rows:
    """:func:`rankkit.metrics._paired_values.as_rows`."""
    from ._paired_values import as_rows as read

    return read(x, name)


def as_pair(a: Any, b: Any, name_a: str, name_b: str) -> tuple[Rows, Rows]:
    """:func:`rankkit.metrics._paired_values.as_pair`."""
    from ._paired_values import as_pair as read

    return read(a, b, name_a, name_b)


class PairCounts(NamedTuple):
    """Pairs ``i < j`` of a ranked list, by how the labels compare (see :func:`pair_counts`)."""

    concordant: FloatOrArray
    discordant: FloatOrArray
    tied: FloatOrArray


# --------------------------------------------------------------------------- kernels


def _ranked(labels: Any, scores: Any) -> Rankings:
    """The ranking every pairwise metric counts on: a :class:`Rankings` as it stands (its tie
    groups tied; any array library), rows of labels in rank order, or rows of labels ranked by
    their ``scores``, highest first, each run of equal scores one tie group (its labels
    listed descending). The labels may be any finite numbers; a row is its own length."""
    if isinstance(labels, Rankings) and scores is None:
        return labels
    if scores is None:
        rl = as_rows(labels, "labels")
        return _rankings(rl.values, rl.lengths, None, rl.scalar)
    rl, rs = as_pair(labels, scores, "labels", "scores")
    valid = np.arange(rl.values.shape[1]) < rl.lengths[:, None]
    ranked, _, ties = rank_rows(rl.values, rs.values, valid, groups=True)  # labels descending within a tie
    return _rankings(ranked, rl.lengths, ties, rl.scalar)


def _rankings(values: np.ndarray, lengths: np.ndarray, ties: np.ndarray | None, scalar: bool) -> Rankings:
    valid = np.arange(values.shape[1]) < lengths[:, None]
    values = np.where(valid, values, 0.0)
    return Rankings(labels=values, judged=valid, lengths=lengths, ideal=-np.sort(-values, axis=1),
                    n_judged=lengths, query_ids=query_positions(len(values)), ties=ties, scalar=scalar)


def _pairs(labels: Any, scores: Any) -> tuple[Rankings, Any, Any, Any]:
    """The ranking, and its (concordant, discordant, equal-label) pairs per query (counted
    once per ranking: PNR's values and its total share them)."""
    r = _ranked(labels, scores)

    def count_pairs():
        valid = columns(r.labels) < r.lengths[:, None]
        return counting.ranked_pair_counts(r.labels, valid, r.lengths, r.ties)

    return (r, *r.derived("pair counts", count_pairs))


# --------------------------------------------------------------------------- public


def pair_counts(labels: Any, scores: Any = None) -> PairCounts:
    """Count the pairs of a ranked list that are in order, inverted, or tied.

    For labels in rank order (position 1 first), every pair of positions ``i < j`` is
    *concordant* if ``label_i > label_j`` (the more relevant document is ranked higher),
    *discordant* (an inversion) if ``label_i < label_j``, and *tied* if the labels are
    equal. The three counts add up to L(L-1)/2 for a list of L documents.

    Parameters
    ----------
    labels : array-like of shape (L,) or (n_queries, L), list of lists, or Rankings
        Relevance labels (any finite numbers; higher is more relevant), in rank order
        when ``scores`` is None. A list of lists may be ragged; a :class:`Rankings` uses
        each query's retrieved documents (``labels[:, :lengths]``).
    scores : array-like of the same shape as ``labels``, or None, default=None
        Model scores: the ranking is by score, highest first, and ``labels`` may be in
        any order. Two documents with equal scores and different labels have no order:
        their pair counts 1/2 as concordant and 1/2 as discordant (see :func:`pnr`).

    Returns
    -------
    PairCounts
        ``(concordant, discordant, tied)``: floats for a 1-D input, else arrays of shape
        (n_queries,).

    Notes
    -----
    Wang Shusen's slides on relevance metrics call concordant pairs 正序对 and
    discordant pairs 逆序对; the guide after Ilya Markov's lecture calls a discordant pair
    an *inversion* (see the module's references). O(L log L) per list (see the module
    docstring).

    Examples
    --------
    The first example of Wang Shusen's slides, grades 高, 中, 高, 高, 中, 低 as 3, 2, 3, 3, 2, 1:

    >>> pair_counts([3, 2, 3, 3, 2, 1])
    PairCounts(concordant=9.0, discordant=2.0, tied=4.0)
    >>> pair_counts([[1, 0], [0, 1]]).discordant
    array([0., 1.])
    >>> pair_counts([1, 0, 2], scores=[0.5, 0.5, 0.9])  # the tied pair (1, 0) counts half
    PairCounts(concordant=2.5, discordant=0.5, tied=0.0)
    """
    r, concordant, discordant, tied = _pairs(labels, scores)
    return PairCounts(r.result(concordant), r.result(discordant), r.result(tied))


def inversions(labels: Any, scores: Any = None) -> FloatOrArray:
    """Number of inversions of a ranked list: the Kendall tau distance to the ideal order.

    An inversion is a pair of documents where the more relevant one is ranked *below*
    the less relevant one: positions ``i < j`` with ``label_i < label_j``. Tied labels
    are never an inversion. Fewer is better; 0 means the list is sorted by relevance.

    Parameters
    ----------
    labels : array-like of shape (L,) or (n_queries, L), list of lists, or Rankings
        Relevance labels (any finite numbers), in rank order when ``scores`` is None;
        may be ragged.
    scores : array-like of the same shape as ``labels``, or None, default=None
        Model scores, ranking highest first; a pair with equal scores and different
        labels counts 1/2 inversion (see :func:`pair_counts`).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        The discordant count of :func:`pair_counts`, in [0, L(L-1)/2].

    Notes
    -----
    The guide to ranking metrics after Ilya Markov's lecture (section "Kendall Tau距离")
    counts inversions and shows their weakness: a list with *fewer* inversions can still
    be worse for the user, because it does not matter where in the list an inversion
    sits. O(L log L) per list.

    Examples
    --------
    The guide's point: the second list has fewer inversions (8 < 9) although its first
    relevant document is at rank 3 instead of rank 1.

    >>> inversions([1, 0, 0, 0, 1, 1, 1]), inversions([0, 0, 1, 1, 1, 1, 0])
    (9.0, 8.0)
    >>> inversions([[3, 2, 1], [1, 2, 3]])
    array([0., 3.])
    """
    r, _, discordant, _ = _pairs(labels, scores)
    return r.result(discordant)


#: How :func:`pnr` counts pairs with equal labels: left out (the usual definition) or, as
#: Wang Shusen's slides count them, as concordant.
PNR_LABEL_TIES = ("ignore", "concordant")


def pnr(labels: Any, scores: Any = None, *, label_ties: str = "ignore") -> FloatOrArray:
    """Positive-to-negative ratio (正逆序比): concordant pairs over discordant pairs.

    PNR = C / D over the pairs of documents of a list (see :func:`pair_counts`): a pair
    ``i < j`` is concordant when (rel_i - rel_j)(s_i - s_j) > 0 (ranked in the order of
    its labels), discordant (an inversion) when < 0, and left out when the labels are
    equal, since such a pair is neither in order nor out of it. Higher is better.

    Parameters
    ----------
    labels : array-like of shape (L,) or (n_queries, L), list of lists, or Rankings
        Relevance labels (any finite numbers), in rank order when ``scores`` is None;
        may be ragged.
    scores : array-like of the same shape as ``labels``, or None, default=None
        Model scores s_i (Wang Shusen's slides write p for the relevance model's score):
        the documents are ranked by score, highest first, and ``labels`` may be in any
        order. A pair with equal scores and different labels has no order; rankkit
        counts it 1/2 concordant and 1/2 discordant, its expected count over the two
        orders the tie allows (as :func:`auc` counts a tied pair 1/2), so PNR does not
        depend on how tied documents happen to be listed. Implementations that leave
        such pairs out give the same value whenever no two scores tie.
    label_ties : {"ignore", "concordant"}, default="ignore"
        Pairs with equal labels: ``"ignore"`` leaves them out (PNR = C / D);
        ``"concordant"`` adds them to the numerator, as Wang Shusen's slides do: their
        13 正序对 of [高, 中, 高, 高, 中, 低] are 9 concordant pairs plus 4 tied ones, so
        they print 13/2 where the usual count gives 9/2 (an error of the source,
        reproduced only on request).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, inf]. A list without discordant pairs gives ``inf`` when it has a
        concordant pair (every pair with different labels is in order) and ``nan`` when
        it has none either -- all labels equal, or fewer than two documents: nothing can
        be in or out of order, so the ratio is undefined, never silently a number. The
        counts behind it are ``pair_counts(labels, scores)``.

    Notes
    -----
    Wang Shusen's slides use PNR as the offline pairwise metric of a relevance model;
    where a pair sits in the list does not change PNR (unlike DCG). With scores, every
    query is counted at once (no loop over queries), O(L log L) per list.

    Examples
    --------
    The two examples of Wang Shusen's slides, 高 = 3, 中 = 2, 低 = 1: 9 concordant pairs,
    2 discordant and 4 with equal labels each.

    >>> pnr([3, 2, 3, 3, 2, 1]), pnr([3, 3, 3, 1, 2, 2])
    (4.5, 4.5)
    >>> pnr([3, 2, 3, 3, 2, 1], label_ties="concordant")  # the slides' 13/2
    6.5
    >>> pnr([[2, 1, 0], [1, 1, 1]])
    array([inf, nan])

    The first example ranked by model scores, where the 2nd and 3rd documents (中, 高)
    tie: their inversion becomes half an inversion, (9 + 1/2) / (2 - 1/2).

    >>> round(pnr([3, 2, 3, 3, 2, 1], scores=[0.9, 0.8, 0.8, 0.6, 0.5, 0.4]), 4)
    6.3333
    """
    label_ties = check_option(label_ties, PNR_LABEL_TIES, "label_ties")
    r, concordant, discordant, tied = _pairs(labels, scores)
    return r.result(pnr_ratio(concordant + tied if label_ties == "concordant" else concordant, discordant))


def pnr_ratio(concordant: Any, discordant: Any) -> Any:
    """C / D: ``inf`` when D = 0 < C, ``nan`` when both are 0 (nothing in or out of order)."""
    xp = namespace(concordant)
    safe = xp.where(discordant > 0, discordant, 1.0)
    undefined = xp.where(concordant > 0, xp.full_like(concordant, xp.inf), xp.full_like(concordant, xp.nan))
    return xp.where(discordant > 0, concordant / safe, undefined)


def pnr_total(rankings: Rankings, *, label_ties: str = "ignore") -> Any:
    """PNR of many queries at once: their concordant pairs over their discordant pairs (pairs
    only within a query), finite where a query's own ratio is ``inf``."""
    _, concordant, discordant, tied = _pairs(rankings, None)
    numerator = concordant + tied if label_ties == "concordant" else concordant
    if is_numpy(numerator):
        return float(pnr_ratio(np.asarray(query_sum(numerator)), np.asarray(query_sum(discordant))))
    return pnr_ratio(query_sum(numerator), query_sum(discordant))


KENDALL_VARIANTS = ("a", "b")


def kendall_tau(a: Any, b: Any, *, variant: str = "b") -> FloatOrArray:
    """Kendall's rank correlation between two score vectors (e.g. true labels and model scores).

    With C concordant and D discordant pairs among the n0 = n(n-1)/2 pairs of n items,
    T_a pairs tied in ``a`` and T_b pairs tied in ``b``:

    - tau-a = (C - D) / n0;
    - tau-b = (C - D) / sqrt((n0 - T_a) (n0 - T_b))  (Kendall 1945, corrected for ties).

    Parameters
    ----------
    a, b : array-like of shape (n,) or (n_queries, n), or list of lists
        Scores of the same items (same shape; rows may be ragged). Only the order of the
        values matters; higher is "ranked first" in both.
    variant : {"b", "a"}, default="b"
        ``"b"`` equals ``scipy.stats.kendalltau(a, b).statistic`` (its default; to the
        last bit or so: rankkit divides once by the square root of the product, so
        ``kendall_tau(a, a)`` is exactly 1);
        ``"a"`` does not correct for ties (Kendall 1938), so tied pairs pull it toward 0.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [-1, 1]; 1 when the two orders agree on every pair. ``nan`` when ``a`` or ``b``
        is constant (every pair tied) or there are fewer than two items, as in scipy --
        for both variants.

    Notes
    -----
    O(n log n) time and O(n) memory per row (merge-sort count of discordant pairs), so a
    1-D vector of millions of items is fine.

    Examples
    --------
    >>> round(kendall_tau([3, 2, 1, 0], [0.9, 0.7, 0.8, 0.1]), 4)  # (5 - 1) / 6
    0.6667
    >>> round(kendall_tau([1, 1, 0, 0], [4, 3, 2, 1]), 4), kendall_tau([1, 1, 0, 0], [4, 3, 2, 1], variant="a")
    (0.8165, 0.6666666666666666)
    >>> kendall_tau([[1, 2, 3], [1, 1, 1]], [[3, 2, 1], [1, 2, 3]])
    array([-1., nan])
    """
    variant = check_option(variant, KENDALL_VARIANTS, "variant")
    ra, rb = as_pair(a, b, "a", "b")
    concordant, discordant, tied_a, tied_b, _ = counting.pair_stats(ra.values, rb.values, ra.lengths)
    total = ra.lengths * (ra.lengths - 1) / 2
    defined = (total > tied_a) & (total > tied_b)  # scipy: nan if all pairs are tied in a or b
    difference = concordant - discordant
    if variant == "b":  # sqrt of the (exact) product: tau(a, a) is exactly 1
        tau = difference / np.sqrt(np.where(defined, (total - tied_a) * (total - tied_b), 1.0))
    else:
        tau = difference / np.where(defined, total, 1.0)
    tau = np.clip(tau, -1.0, 1.0)
    return ra.result(np.where(defined, tau, np.nan))


def kendall_distance(a: Any, b: Any, *, normalize: bool = False) -> FloatOrArray:
    """Kendall tau distance: the number of pairs two score vectors order in opposite ways.

    A pair of items (i, j) is discordant when ``(a_i - a_j) * (b_i - b_j) < 0``. A pair
    tied in ``a`` or in ``b`` is *not* discordant (it does not count), so the distance of
    any vector to a constant one is 0.

    Parameters
    ----------
    a, b : array-like of shape (n,) or (n_queries, n), or list of lists
        Scores (or ranks) of the same items; same shape, rows may be ragged.
    normalize : bool, default=False
        Divide by the number of pairs n(n-1)/2, giving a value in [0, 1]; a list of fewer
        than two items has no pairs and gives ``nan`` then (0.0 when not normalized).

    Returns
    -------
    float or ndarray of shape (n_queries,)

    Notes
    -----
    The Kendall tau distance (Kendall 1938; the guide to ranking metrics counts it as
    inversions against the relevance labels, see :func:`inversions`). O(n log n) time and O(n) memory per row:
    items are sorted by ``a`` (then ``b``), and the strict inversions of ``b`` in that
    order are counted by a merge sort. Short rows of a batch compare all pairs by
    broadcasting in chunks of bounded memory.

    Examples
    --------
    >>> kendall_distance([1, 2, 3, 4, 5], [3, 4, 1, 2, 5])
    4.0
    >>> kendall_distance([1, 2, 3, 4, 5], [3, 4, 1, 2, 5], normalize=True)
    0.4
    >>> kendall_distance([[1, 2, 3], [1, 2, 3]], [[3, 2, 1], [1, 1, 0]])
    array([3., 2.])
    """
    if not isinstance(normalize, (bool, np.bool_)):
        raise ValueError(f"normalize must be True or False, got {normalize!r}")
    ra, rb = as_pair(a, b, "a", "b")
    discordant = counting.pair_stats(ra.values, rb.values, ra.lengths)[1]
    if normalize:
        total = ra.lengths * (ra.lengths - 1) / 2
        discordant = np.divide(discordant, total, out=np.full_like(discordant, np.nan), where=total > 0)
    return ra.result(discordant)


def auc(labels: Any, scores: Any = None, *, rel: float = 1) -> FloatOrArray:
    """Area under the ROC curve of each query: the fraction of (positive, negative) pairs
    whose positive document has the higher score.

    AUC = (sum of the ranks of the positives' scores - P(P+1)/2) / (P N), the Mann-Whitney U
    statistic over P positives and N negatives, with average ranks for tied scores: a
    positive and a negative with equal scores count 1/2.

    Parameters
    ----------
    labels : array-like of shape (L,) or (n_queries, L), list of lists, or Rankings
        Relevance labels (any finite numbers); a document is positive if ``label >= rel``.
        In rank order when ``scores`` is None.
    scores : array-like, same shape as ``labels``, or None, default=None
        Model scores, higher meaning more relevant (any finite numbers, e.g. p in [0, 1]).
        None: the documents are ranked as ``labels`` lists them, the first highest; the
        tie groups of a :class:`~rankkit.Rankings` (``ties="average"``) count as equal
        scores, so a Rankings of model scores gives the AUC of those scores.
    rel : float, default=1
        Relevance threshold. Wang Shusen's slides merge the grades 高/中 into y = 1 and
        低/无 into y = 0: with grades 3, 2, 1, 0 that is ``rel=2``.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.5 for scores that ignore the labels. Equal to
        ``sklearn.metrics.roc_auc_score(labels >= rel, scores)``. A query with no
        positive or no negative document has no pairs: its AUC is undefined and ``nan``
        (scikit-learn raises instead; rankkit never reports a misleading 0).

    Notes
    -----
    Wang Shusen's slides use AUC as the pointwise offline metric of a relevance model.
    O(L log L) per query (the ranking by score); U comes from prefix counts of the negatives
    along the ranks, every query at once (:func:`_u_statistic`).
    :func:`gauc` averages it over queries with weights.

    Examples
    --------
    Grades 高, 中, 低, 无 = 3, 2, 1, 0 binarized as in Wang Shusen's slides (``rel=2``):

    >>> auc([3, 2, 1, 0, 2], [0.9, 0.4, 0.5, 0.1, 0.6], rel=2)
    0.8333333333333334
    >>> auc([[1, 0, 1], [0, 0, 0]], [[0.5, 0.5, 0.2], [0.1, 0.2, 0.3]])
    array([0.25, nan])
    >>> auc([1, 0, 1, 0])  # in rank order: 3 of the 4 pairs have the positive first
    0.75
    """
    rel = check_rel(rel)
    r = _ranked(labels, scores)
    u, pairs = _mann_whitney(r, rel)
    xp = namespace(u)
    return r.result(xp.where(pairs > 0, u / xp.where(pairs > 0, pairs, 1.0), xp.nan))


def _mann_whitney(r: Rankings, rel: float) -> tuple[Any, Any]:
    """:func:`_u_statistic`, once per ranking and level (AUC, GAUC and its weights share it)."""
    return r.derived(("mann-whitney", rel), lambda: _u_statistic(r, rel))


def _u_statistic(r: Rankings, rel: float) -> tuple[Any, Any]:
    """Per query, U (:func:`_u_of_counts`) and the number of (positive, negative) pairs, from
    prefix counts of the negatives along the ranks: the negatives above each positive's tie
    group and through it."""
    retrieved = columns(r.labels) < r.lengths[:, None]
    positive = (r.labels >= rel) & retrieved
    prefix = prefix_sum(as_float(retrieved & ~positive, r.labels))
    n_neg = prefix[:, -1:]
    n_pairs = as_float(count(positive), r.labels) * n_neg[:, 0]
    if r.ties is None:  # a positive is its own group: the negatives at or above it are above it
        return _u_of_counts(positive, n_neg, prefix[:, 1:]), n_pairs
    start, end = r.derived("tie bounds", lambda: tie_bounds(r.ties))
    return _u_of_counts(positive, n_neg, gather(prefix, start), gather(prefix, end)), n_pairs


def _u_of_counts(positive: Any, n_negative: Any, above: Any, through: Any = None) -> Any:
    """The Mann-Whitney U of each row (summed over the last axis): for each positive (``positive``;
    None: every entry), the negatives ranked below it, a negative tied with it counting 1/2 --
    ``n_negative - (above + through) / 2``, with ``above`` the negatives ranked above the
    positive's tie group and ``through`` those above it or in it (None: no tie, the same).
    Counts and halves: exact whatever the order of the additions (the value the average
    ranks of Mann and Whitney give)."""
    xp = namespace(above)
    below = n_negative - (above if through is None else 0.5 * (above + through))
    return xp.sum(below if positive is None else xp.where(positive, below, 0.0), axis=-1)


def pooled_auc(labels: Any, scores: Any, *, ties: str = "average", rel: float = 1) -> Any:
    """AUC of every row at once (queries ignored, as a classifier's AUC): :func:`auc`'s U
    (:func:`_u_of_counts`) over all rows ranked by score as one query, a positive and a
    negative of equal scores counting 1/2 (``ties="average"``), 0 (``"pessimistic"``) or 1
    (``"optimistic"``); ``nan`` without a positive or a negative. 1-D arrays of any library.

    The negatives ranked above each positive (and through its tie group) are read from the
    negatives' sorted scores by a search, not from prefix counts along the ranking of all N
    rows (:func:`_u_statistic`): the same counts, without ranking one row of N rows (with
    :func:`~rankkit.ops.primitives.rank_rows`, 0.27 s against 0.07 s for the sorts and searches
    here on 1,000,000 rows of ``benchmarks/bench_scores.py``, NumPy, 2026-12-06).
    ``tests/test_pairwise.py`` checks that both give the same bits.

    Examples
    --------
    >>> pooled_auc(np.array([1, 0, 1, 0]), np.array([0.9, 0.5, 0.5, 0.1]))
    0.875
    """
    xp = namespace(labels, scores)
    positive = labels >= rel
    # sorted for fast searches; equal scores are alike, so the sort need not be stable
    negatives, positives = xp.sort(scores[~positive], stable=False), xp.sort(scores[positive], stable=False)
    n_neg = float(negatives.shape[0])
    above = n_neg - as_float(xp.searchsorted(negatives, positives, side="right"), scores)  # a higher score
    through = n_neg - as_float(xp.searchsorted(negatives, positives, side="left"), scores)  # or an equal one
    if ties != "average":  # the tied negatives rank above the positive (pessimistic) or below it
        above = through if ties == "pessimistic" else above
        through = above
    u = _u_of_counts(None, n_neg, above, through)
    pairs = float(positives.shape[0]) * n_neg
    if is_numpy(scores):
        return float(u / pairs) if pairs > 0 else float("nan")
    return u / pairs if pairs > 0 else xp.asarray(xp.nan, dtype=u.dtype, device=device(scores))


def auc_unscored(rankings: Rankings, *, rel: float = 1, **_: Any) -> list:
    """The queries AUC (and GAUC) cannot score, and why: one document, or one class."""
    n, n_pos = rankings.lengths, rankings.n_relevant(rel)
    return [(n == 1, "one document"), (n_pos == 0, f"no positive document (label >= {rel:g})"),
            (n_pos == n, f"no negative document (label < {rel:g})")]


def pnr_unscored(rankings: Rankings, *, label_ties: str = "ignore", **_: Any) -> list:
    """The queries PNR cannot score, and why: one document, or all labels equal; with
    ``label_ties="concordant"`` a list of equal labels has its tied pairs as concordant and
    none discordant, which :func:`pnr` scores ``inf`` (and the pooled counts count), so only
    one document is left."""
    n = rankings.lengths
    if label_ties == "concordant":
        return [(n == 1, "one document")]
    last = gather(rankings.ideal, namespace(n).reshape(n - 1, (-1, 1)))[:, 0]  # each query's lowest label
    return [(n == 1, "one document"), (rankings.ideal[:, 0] == last, "all labels equal")]


#: The weights of :func:`gauc`: each query's number of documents (rows, impressions),
#: one per query, its number of positives (clicks), or its number of (positive,
#: negative) pairs.
GAUC_WEIGHTS = ("rows", "queries", "positives", "pairs")


def gauc(labels: Any, scores: Any = None, *, weights: Any = "rows", rel: float = 1) -> float:
    """Group AUC: the AUC of each query (or user), averaged with weights.

    GAUC = sum_q w_q AUC_q / sum_q w_q over the queries q that have both a positive and a
    negative document; a query of one class has no AUC and is left out (of the sum and of
    the weights).

    Parameters
    ----------
    labels : array-like of shape (L,) or (n_queries, L), list of lists, or Rankings
        Relevance labels, one row per query; positive if ``label >= rel`` (see :func:`auc`).
    scores : array-like, same shape as ``labels``, or None, default=None
        Model scores; None ranks as ``labels`` lists them (see :func:`auc`).
    weights : {"rows", "queries", "positives", "pairs"} or array-like of shape (n_queries,), default="rows"
        w_q: the query's number of documents (impressions, as Zhou et al. weight users),
        1 (every query alike), its number of positives (clicks), its number of (positive,
        negative) pairs (which makes GAUC the pooled Mann-Whitney statistic of the pairs
        within queries), or one non-negative finite weight per query.
    rel : float, default=1
        Relevance threshold.

    Returns
    -------
    float
        In [0, 1]; ``nan`` when no query has both classes (or their weights sum to 0).

    Notes
    -----
    Zhou et al. 2018, "Deep Interest Network for Click-Through Rate Prediction" (KDD,
    https://arxiv.org/abs/1706.06978), define GAUC as the mean of per-user AUC weighted by
    each user's number of impressions, after Zhu et al. 2017, "Optimized Cost per Click in
    Taobao Display Advertising" (KDD, https://arxiv.org/abs/1703.02091). The sums run one
    query at a time, in query order.

    Examples
    --------
    Two queries: AUC 1 over 3 documents and 0.5 over 2; the third has one class.

    >>> labels = [[1, 0, 0], [1, 0], [0, 0]]
    >>> scores = [[0.9, 0.2, 0.1], [0.5, 0.5], [0.3, 0.1]]
    >>> round(gauc(labels, scores), 4), gauc(labels, scores, weights="queries")
    (0.8, 0.75)
    >>> gauc(labels, scores, weights=[1, 3, 7])
    0.625
    """
    rel = check_rel(rel)
    r = _ranked(labels, scores)
    u, pairs = _mann_whitney(r, rel)
    return gauc_total(r, ratio(u, pairs), weights=weights, rel=rel)


def gauc_total(rankings: Rankings, values: Any, *, weights: Any = "rows", rel: float = 1) -> Any:
    """GAUC from each query's AUC ``values`` (ignored where a query has no pair): the mean
    weighted by :data:`GAUC_WEIGHTS` or given weights, each sum in query order; ``nan``
    when no query has both classes (or their weights sum to 0)."""
    xp = namespace(values)
    pairs = _mann_whitney(rankings, rel)[1]
    both = pairs > 0
    w = _gauc_weights(weights, rankings, pairs, rel)
    total = query_sum(xp.where(both, w, 0.0))
    mean = query_sum(xp.where(both, w * xp.where(both, values, 0.0), 0.0))
    if is_numpy(pairs):
        return float(mean) / float(total) if float(total) > 0 else float("nan")
    return xp.where(total > 0, mean / xp.where(total > 0, total, 1.0), xp.nan)


def _gauc_weights(weights: Any, r: Rankings, pairs: Any, rel: float) -> Any:
    """One weight per query of ``r``: a named choice of :data:`GAUC_WEIGHTS` or given."""
    n = r.n_queries
    if isinstance(weights, str):
        weights = check_option(weights, GAUC_WEIGHTS, "weights")
        if weights == "rows":
            return as_float(r.lengths, pairs)
        if weights == "queries":
            return namespace(pairs).ones_like(pairs)
        if weights == "pairs":
            return pairs
        retrieved = columns(r.labels) < r.lengths[:, None]
        return as_float(count((r.labels >= rel) & retrieved), pairs)
    if not is_numpy(pairs) and not isinstance(weights, (list, tuple, np.ndarray)):
        w = as_float(weights, pairs)  # the library's own array: on its device
    else:
        try:
            w = np.asarray(weights, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"weights must be one of {', '.join(GAUC_WEIGHTS)} or one number per query, "
                             f"got {type(weights).__name__}") from None
        w = w if is_numpy(pairs) else constant(w, pairs)
    if tuple(w.shape) != (n,):
        raise ValueError(f"weights must hold one number per query ({n}), got shape {tuple(w.shape)}")
    xp = namespace(w)
    if not bool(xp.all(xp.isfinite(w) & (w >= 0))):
        raise ValueError("weights must be finite and non-negative")
    return w
