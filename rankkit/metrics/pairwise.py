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
16 items (``_BROADCAST_MAX_LEN``) use a bottom-up merge sort over all rows at once,
O(N log L) time and O(N) memory for N items in all; shorter lists compare all pairs by
broadcasting (n, L, L) in chunks of rows of bounded size (``_CHUNK_PAIRS`` pairs).

References
----------
The docstrings reproduce numbers (never text) from articles cited by short names in
italics and listed with title, author and address in :mod:`rankkit.sources`:
(*the guide to ranking metrics*,
*Wang Shusen's slides*).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .._validation import check_option, check_rel
from ..ops.numerics import query_sum
from ..rankings import FloatOrArray, Rankings

if TYPE_CHECKING:
    from ._paired_values import Rows

__all__ = ["PairCounts", "pair_counts", "inversions", "pnr", "kendall_tau", "kendall_distance", "auc", "gauc",
           "GAUC_WEIGHTS"]


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


def _rows(values: np.ndarray, lengths: np.ndarray, scalar: bool) -> Rows:
    """A :class:`rankkit.metrics._paired_values.Rows`."""
    from ._paired_values import Rows

    return Rows(values, lengths, scalar)


# Lists up to this length compare all pairs by broadcasting; longer ones use the merge sort.
_BROADCAST_MAX_LEN = 16
# Labels in rank order taking at most this many values are counted value by value.
_FEW_LEVELS = 8
# At most this many pair comparisons per broadcast chunk (bounded memory: ~ a few tens of MB).
_CHUNK_PAIRS = 1 << 22


class PairCounts(NamedTuple):
    """Pairs ``i < j`` of a ranked list, by how the labels compare (see :func:`pair_counts`)."""

    concordant: FloatOrArray
    discordant: FloatOrArray
    tied: FloatOrArray


# --------------------------------------------------------------------------- kernels


def _strict_inversions(x: np.ndarray) -> np.ndarray:
    """Per row, the number of pairs ``i < j`` with ``x[i] > x[j]`` (ties not counted).

    Bottom-up merge sort along each row, all rows at once. Rows are padded with +inf to a
    power of two (padding is never part of an inversion). At block width ``w`` each pair
    of sorted halves contributes the pairs (left element > right element): for small
    ``w`` by comparing them directly, for larger ``w`` from the stable merge itself -- a
    right element at offset k landing at position p had p - k left elements (<= it)
    before it, so w - (p - k) greater ones. O(L log L) time, O(L) memory per row.
    """
    n, length = x.shape
    out = np.zeros(n)
    if length < 2:
        return out
    width = 1 << (length - 1).bit_length()
    if width > length:
        x = np.concatenate([x, np.full((n, width - length), np.inf)], axis=1)
    w = 1
    while w < width:
        n_blocks = width // (2 * w)
        blocks = x.reshape(n, n_blocks, 2 * w)
        if w <= 8:
            left, right = blocks[..., :w], blocks[..., w:]
            out += (left[..., :, None] > right[..., None, :]).sum(axis=(1, 2, 3))
            x = np.sort(blocks, axis=-1).reshape(n, width)
        else:
            order = np.argsort(blocks, axis=-1, kind="stable")  # merges two sorted runs
            right_positions = np.where(order >= w, np.arange(2 * w), 0).sum(axis=(1, 2))
            # sum over right elements of w - (p - k), with sum of k = w(w-1)/2 per block
            out += n_blocks * (w * w + w * (w - 1) // 2) - right_positions
            x = np.take_along_axis(blocks, order, axis=-1).reshape(n, width)
        w *= 2
    return out


def _tied_pairs(equal_previous: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Per row, sum of t(t-1)/2 over runs of equal values (``equal_previous[:, j]``: same as j-1)."""
    length = equal_previous.shape[1]
    index = np.arange(length)
    start = np.maximum.accumulate(np.where(equal_previous, 0, index), axis=1)
    return ((index - start) * valid).sum(axis=1).astype(np.float64)


def _pair_stats_merge(a: np.ndarray, b: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """(concordant, discordant, tied in a, tied in b, tied in both) per row, O(L log L)."""
    n, length = a.shape
    valid = np.arange(length) < lengths[:, None]
    a = np.where(valid, a, np.inf)  # padding sorts last and is never counted
    b = np.where(valid, b, np.inf)
    order = np.lexsort((b, a), axis=-1)
    a_sorted = np.take_along_axis(a, order, axis=1)
    b_by_a = np.take_along_axis(b, order, axis=1)
    # sorted by a (then b), a pair is discordant iff b is strictly inverted
    discordant = _strict_inversions(b_by_a)
    first = np.zeros((n, 1), dtype=bool)
    same_a = np.concatenate([first, a_sorted[:, 1:] == a_sorted[:, :-1]], axis=1) & valid
    same_ab = same_a & np.concatenate([first, b_by_a[:, 1:] == b_by_a[:, :-1]], axis=1)
    b_sorted = np.sort(b, axis=1)
    same_b = np.concatenate([first, b_sorted[:, 1:] == b_sorted[:, :-1]], axis=1) & valid
    tied_a, tied_b, tied_ab = (_tied_pairs(s, valid) for s in (same_a, same_b, same_ab))
    total = lengths * (lengths - 1) / 2
    concordant = total - tied_a - tied_b + tied_ab - discordant
    return np.stack([concordant, discordant, tied_a, tied_b, tied_ab])


def _pair_stats_broadcast(a: np.ndarray, b: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Same as :func:`_pair_stats_merge` by comparing all pairs, (chunk, L, L) at a time."""
    n, length = a.shape
    out = np.zeros((5, n))
    upper = np.triu(np.ones((length, length), dtype=bool), 1)
    valid = np.arange(length) < lengths[:, None]
    step = max(1, _CHUNK_PAIRS // max(1, length * length))
    for lo in range(0, n, step):  # chunks bound the memory; each chunk is vectorized
        sl = slice(lo, lo + step)
        pairs = upper & valid[sl, :, None] & valid[sl, None, :]
        sa = np.sign(a[sl, :, None] - a[sl, None, :]).astype(np.int8)
        sb = np.sign(b[sl, :, None] - b[sl, None, :]).astype(np.int8)
        agree = sa * sb
        out[0, sl] = ((agree > 0) & pairs).sum(axis=(1, 2))
        out[1, sl] = ((agree < 0) & pairs).sum(axis=(1, 2))
        out[2, sl] = ((sa == 0) & pairs).sum(axis=(1, 2))
        out[3, sl] = ((sb == 0) & pairs).sum(axis=(1, 2))
        out[4, sl] = ((sa == 0) & (sb == 0) & pairs).sum(axis=(1, 2))
    return out


def _pair_stats(a: np.ndarray, b: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Rows of (concordant, discordant, tied in a, tied in b, tied in both) counts, shape (5, n)."""
    if a.shape[1] <= _BROADCAST_MAX_LEN:
        return _pair_stats_broadcast(a, b, lengths)
    return _pair_stats_merge(a, b, lengths)


def _label_pair_counts(labels: Any) -> tuple[Rows, np.ndarray, np.ndarray, np.ndarray]:
    """The rows, and (concordant, discordant, tied) pairs i < j of labels in rank order."""
    r = as_rows(labels, "labels")
    values = r.values[:, : int(r.lengths.max()) if r.lengths.size else 0]
    n, length = values.shape
    if length <= _BROADCAST_MAX_LEN:
        # the rank order as a score: position 1 scores highest, so concordant = higher label first
        position_score = np.broadcast_to(-np.arange(length, dtype=np.float64), values.shape)
        stats = _pair_stats_broadcast(position_score, values, r.lengths)
        return r, stats[0], stats[1], stats[3]
    valid = np.arange(length) < r.lengths[:, None]
    levels = np.unique(values[valid])
    if len(levels) <= _FEW_LEVELS:
        return (r, *_level_pair_counts(values, valid, r.lengths, levels))
    # already in rank order: an inversion (label_i < label_j) is a strict inversion of -labels
    discordant = _strict_inversions(np.where(valid, -values, np.inf))
    ordered = np.sort(np.where(valid, values, np.inf), axis=1)
    same = np.concatenate([np.zeros((n, 1), dtype=bool), ordered[:, 1:] == ordered[:, :-1]], axis=1) & valid
    tied = _tied_pairs(same, valid)
    concordant = r.lengths * (r.lengths - 1) / 2 - tied - discordant
    return r, concordant, discordant, tied


def _level_pair_counts(values: np.ndarray, valid: np.ndarray, lengths: np.ndarray,
                       levels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(concordant, discordant, tied) pairs of labels in rank order that take a few distinct
    values: for each value v, the documents labelled v and, before each, those labelled
    below v (discordant) or v (tied). O(L) per value; the counts of the merge sort."""
    n = values.shape[0]
    discordant, tied = np.zeros(n), np.zeros(n)
    for level in levels:  # a few label values, every query at once
        at = (values == level) & valid
        count = at.sum(axis=1)
        tied += count * (count - 1) / 2
        below = (values < level) & valid
        before = np.cumsum(below, axis=1) - below  # documents labelled below v, ranked before
        discordant += np.where(at, before, 0).sum(axis=1)
    concordant = lengths * (lengths - 1) / 2 - tied - discordant
    return concordant, discordant, tied


def _scored_pair_counts(labels: Any, scores: Any) -> tuple[Rows, np.ndarray, np.ndarray, np.ndarray]:
    """The rows, and (concordant, discordant, tied) pairs of labels ranked by ``scores``.

    A pair is concordant when the higher score goes with the higher label, discordant
    when it goes with the lower one, tied when the labels are equal; a pair with equal
    scores and different labels counts 1/2 to each of concordant and discordant (its
    expected count over the two orders the tie allows).
    """
    rl, rs = _scored_rows(labels, scores)
    concordant, discordant, tied_scores, tied_labels, tied_both = _pair_stats(rs.values, rl.values, rl.lengths)
    half = (tied_scores - tied_both) / 2
    return rl, concordant + half, discordant + half, tied_labels


def _rank_scores(r: Rankings) -> Rows:
    """Scores that rank the documents of ``r`` as they stand: minus the rank, where the ranks
    of a tie group (``Rankings.ties``) all take the rank of the group's first document."""
    n, depth = r.labels.shape
    position = np.broadcast_to(np.arange(depth, dtype=np.float64), (n, depth))
    if r.ties is not None:  # a group's id is the flat index of its first rank
        position = (r.ties - np.arange(n, dtype=np.int64)[:, None] * depth).astype(np.float64)
    return _rows(-position, r.lengths.astype(np.int64), r.scalar)


def _scored_rows(labels: Any, scores: Any) -> tuple[Rows, Rows]:
    """Labels and scores as rows of the same shape; ``scores=None`` takes the order of a
    :class:`Rankings` (its tie groups tied) or of labels in rank order."""
    if scores is not None:
        return as_pair(labels, scores, "labels", "scores")
    r = labels if isinstance(labels, Rankings) else None
    rl = as_rows(labels, "labels")
    if r is None:
        width = rl.values.shape[1]
        position = np.broadcast_to(np.arange(width, dtype=np.float64), rl.values.shape)
        return rl, rl._replace(values=-position)
    width = int(rl.lengths.max()) if rl.lengths.size else 0
    rs = _rank_scores(r)
    return rl._replace(values=rl.values[:, :width]), rs._replace(values=rs.values[:, :width])


def _counts(labels: Any, scores: Any) -> tuple[Rows, np.ndarray, np.ndarray, np.ndarray]:
    if scores is None and not (isinstance(labels, Rankings) and labels.ties is not None):
        return _label_pair_counts(labels)
    return _scored_pair_counts(labels, scores)


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
    r, concordant, discordant, tied = _counts(labels, scores)
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
    r, _, discordant, _ = _counts(labels, scores)
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
    r, concordant, discordant, tied = _counts(labels, scores)
    numerator = concordant + tied if label_ties == "concordant" else concordant
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = numerator / discordant  # x/0 -> inf, 0/0 -> nan, both on purpose
    return r.result(ratio)


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
    concordant, discordant, tied_a, tied_b, _ = _pair_stats(ra.values, rb.values, ra.lengths)
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
    discordant = _pair_stats(ra.values, rb.values, ra.lengths)[1]
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
    O(L log L) per query; all queries are ranked at once (``scipy.stats.rankdata(axis=1)``).
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
    rl, rs = _scored_rows(labels, scores)
    u, pairs = _mann_whitney(rl, rs, rel, _untied_order(labels, scores))
    out = np.divide(u, pairs, out=np.full(pairs.shape, np.nan), where=pairs > 0)
    return rl.result(out)


def _untied_order(labels: Any, scores: Any) -> bool:
    """Whether the documents are ranked as listed, without ties (no scores, no tie groups)."""
    return scores is None and not (isinstance(labels, Rankings) and labels.ties is not None)


def _mann_whitney(rl: Rows, rs: Rows, rel: float, ordered: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per row, U (positive-negative pairs in order, ties 1/2) and the number of such pairs.
    ``ordered``: the rows are in rank order without ties, so U counts, for each positive, the
    negatives ranked below it (a prefix sum; the same value as from the ranks, U being a
    count)."""
    valid = np.arange(rl.values.shape[1]) < rl.lengths[:, None]
    positive = (rl.values >= rel) & valid
    n_pos = positive.sum(axis=1)
    n_neg = rl.lengths - n_pos
    if ordered:
        negatives_above = np.cumsum(valid & ~positive, axis=1)  # at this rank or above
        u = n_pos * n_neg - np.where(positive, negatives_above, 0).sum(axis=1)
        return u.astype(np.float64), (n_pos * n_neg).astype(np.float64)
    # padding scores rank above every real score, so the real ranks are unchanged
    from scipy.stats import rankdata  # lazy: scipy.stats takes ~1 s to import

    ranks = rankdata(np.where(valid, rs.values, np.inf), axis=1) if valid.size else np.zeros(valid.shape)
    u = np.where(positive, ranks, 0.0).sum(axis=1) - n_pos * (n_pos + 1) / 2
    return u, (n_pos * n_neg).astype(np.float64)


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
    rl, rs = _scored_rows(labels, scores)
    u, pairs = _mann_whitney(rl, rs, rel, _untied_order(labels, scores))
    w = _gauc_weights(weights, rl, pairs, rel)
    both = pairs > 0
    values = np.divide(u, pairs, out=np.zeros(pairs.shape), where=both)
    total = float(query_sum(np.where(both, w, 0.0)))
    if total <= 0:
        return float("nan")
    return float(query_sum(np.where(both, w * values, 0.0))) / total


def _gauc_weights(weights: Any, rl: Rows, pairs: np.ndarray, rel: float) -> np.ndarray:
    """One weight per row of ``rl``: a named choice of :data:`GAUC_WEIGHTS` or given."""
    n = len(rl.lengths)
    if isinstance(weights, str):
        weights = check_option(weights, GAUC_WEIGHTS, "weights")
        if weights == "rows":
            return rl.lengths.astype(np.float64)
        if weights == "queries":
            return np.ones(n)
        if weights == "pairs":
            return pairs
        valid = np.arange(rl.values.shape[1]) < rl.lengths[:, None]
        return ((rl.values >= rel) & valid).sum(axis=1).astype(np.float64)
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"weights must be one of {', '.join(GAUC_WEIGHTS)} or one number per query, "
                         f"got {type(weights).__name__}") from None
    if w.shape != (n,):
        raise ValueError(f"weights must hold one number per query ({n}), got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and non-negative")
    return w
