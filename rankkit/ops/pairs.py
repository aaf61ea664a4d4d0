"""Counting the pairs of a list: the primitives of the pairwise metrics.

Every pair ``i < j`` of a row is concordant, discordant or tied between two orders (a score
and the labels, two score vectors, the rank and the labels). Counting them is the costly part
of Kendall's tau, PNR and inversions, and it is done here once, for all rows at once:

- :func:`pair_stats_broadcast` compares all pairs of short rows, (chunk, L, L) at a time;
- :func:`pair_stats_merge` sorts long rows with a bottom-up merge sort, O(L log L);
- :func:`level_pair_counts` walks labels that take a few distinct values, one value at a time;
- :func:`ranked_pair_counts` counts a ranking with tie groups on any array library.

Counts are integers (or halves), exact in float64 whatever the order of the additions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .primitives import as_float, columns, device, gather, namespace, prefix_sum, tie_bounds

__all__ = ["strict_inversions", "tied_pairs", "pair_stats_merge", "pair_stats_broadcast", "pair_stats",
           "level_pair_counts", "ranked_pair_counts", "BROADCAST_MAX_LEN"]

#: Lists up to this length compare all pairs by broadcasting; longer ones use the merge sort.
BROADCAST_MAX_LEN = 16
# Labels in rank order taking at most this many values are counted value by value.
_FEW_LEVELS = 8
# At most this many pair comparisons per broadcast chunk (bounded memory: ~ a few tens of MB).
_CHUNK_PAIRS = 1 << 22


def strict_inversions(x: np.ndarray) -> np.ndarray:
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


def tied_pairs(equal_previous: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Per row, sum of t(t-1)/2 over runs of equal values (``equal_previous[:, j]``: same as j-1)."""
    length = equal_previous.shape[1]
    index = np.arange(length)
    start = np.maximum.accumulate(np.where(equal_previous, 0, index), axis=1)
    return ((index - start) * valid).sum(axis=1).astype(np.float64)


def pair_stats_merge(a: np.ndarray, b: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """(concordant, discordant, tied in a, tied in b, tied in both) per row, O(L log L)."""
    n, length = a.shape
    valid = np.arange(length) < lengths[:, None]
    a = np.where(valid, a, np.inf)  # padding sorts last and is never counted
    b = np.where(valid, b, np.inf)
    order = np.lexsort((b, a), axis=-1)
    a_sorted = np.take_along_axis(a, order, axis=1)
    b_by_a = np.take_along_axis(b, order, axis=1)
    # sorted by a (then b), a pair is discordant iff b is strictly inverted
    discordant = strict_inversions(b_by_a)
    first = np.zeros((n, 1), dtype=bool)
    same_a = np.concatenate([first, a_sorted[:, 1:] == a_sorted[:, :-1]], axis=1) & valid
    same_ab = same_a & np.concatenate([first, b_by_a[:, 1:] == b_by_a[:, :-1]], axis=1)
    b_sorted = np.sort(b, axis=1)
    same_b = np.concatenate([first, b_sorted[:, 1:] == b_sorted[:, :-1]], axis=1) & valid
    tied_a, tied_b, tied_ab = (tied_pairs(s, valid) for s in (same_a, same_b, same_ab))
    total = lengths * (lengths - 1) / 2
    concordant = total - tied_a - tied_b + tied_ab - discordant
    return np.stack([concordant, discordant, tied_a, tied_b, tied_ab])


def pair_stats_broadcast(a: np.ndarray, b: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Same as :func:`pair_stats_merge` by comparing all pairs, (chunk, L, L) at a time."""
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


def pair_stats(a: np.ndarray, b: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Rows of (concordant, discordant, tied in a, tied in b, tied in both) counts, shape (5, n)."""
    if a.shape[1] <= BROADCAST_MAX_LEN:
        return pair_stats_broadcast(a, b, lengths)
    return pair_stats_merge(a, b, lengths)


def level_pair_counts(values: np.ndarray, valid: np.ndarray, lengths: np.ndarray,
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




def label_pair_counts(values: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(concordant, discordant, tied) pairs i < j of labels in rank order, per row (NumPy):
    all pairs compared for short rows, value by value for few distinct labels, else a
    merge sort."""
    n, length = values.shape
    if length <= BROADCAST_MAX_LEN:
        # the rank order as a score: position 1 scores highest, so concordant = higher label first
        position_score = np.broadcast_to(-np.arange(length, dtype=np.float64), values.shape)
        stats = pair_stats_broadcast(position_score, values, lengths)
        return stats[0], stats[1], stats[3]
    valid = np.arange(length) < lengths[:, None]
    levels = np.unique(values[valid])
    if len(levels) <= _FEW_LEVELS:
        return level_pair_counts(values, valid, lengths, levels)
    # already in rank order: an inversion (label_i < label_j) is a strict inversion of -labels
    discordant = strict_inversions(np.where(valid, -values, np.inf))
    ordered = np.sort(np.where(valid, values, np.inf), axis=1)
    same = np.concatenate([np.zeros((n, 1), dtype=bool), ordered[:, 1:] == ordered[:, :-1]], axis=1) & valid
    tied = tied_pairs(same, valid)
    concordant = lengths * (lengths - 1) / 2 - tied - discordant
    return concordant, discordant, tied


def ranked_pair_counts(labels: Any, valid: Any, lengths: Any, ties: Any) -> tuple[Any, Any, Any]:
    """Per row of a ranking, the (concordant, discordant, equal-label) pairs i < j, where a
    pair inside one tie group (``Rankings.ties``; None: no ties) with different labels counts
    1/2 to each side (its expected count over the two orders the tie allows).

    NumPy: :func:`label_pair_counts` of the ranking as it stands, then each tie group's pairs
    of different labels moved to halves (when every group lists its labels in descending
    order, as rankings of model scores do), else :func:`pair_stats` against the group's rank.
    Another library: one pass per distinct label value over all rows, with prefix counts
    (or all pairs of a block of rows when the values outnumber the ranks).

    Why two algorithms: the standard's way costs one pass over all rows per distinct label
    value (or L**2 per row when the values outnumber the ranks): fine for graded labels,
    quadratic for continuous ones, which NumPy's merge sort (:func:`strict_inversions`, in-place
    sorts of blocks) counts in O(L log L). They are one function: counts are
    integers or halves, exact in any order, and ``tests/test_pairwise.py``
    (``test_pair_counting_numpy_and_standard_paths_are_one_function``) runs both on the same
    random rankings with tie groups, every branch, and asserts the same bits.
    """
    if not isinstance(labels, np.ndarray):
        return _ranked_pair_counts_xp(labels, valid, ties)
    width = int(lengths.max()) if lengths.size else 0
    values = labels[:, :width]
    if ties is None:
        return label_pair_counts(values, lengths)
    start = ties[:, :width] - np.arange(len(values), dtype=ties.dtype)[:, None] * labels.shape[1]
    same_group = np.zeros(values.shape, dtype=bool)
    same_group[:, 1:] = start[:, 1:] == start[:, :-1]
    if not np.any(same_group[:, 1:] & (values[:, 1:] > values[:, :-1])):
        return _descending_groups(values, lengths, start, same_group)
    stats = pair_stats(-start.astype(np.float64), values, lengths)
    half = (stats[2] - stats[4]) / 2
    return stats[0] + half, stats[1] + half, stats[3]


def _descending_groups(values, lengths, start, same_group):
    """:func:`ranked_pair_counts` when every tie group lists its labels in descending order:
    its pairs of different labels count as concordant in the ranking as it stands, so half
    of them move to discordant."""
    concordant, discordant, tied = label_pair_counts(values, lengths)
    same = same_group & np.concatenate([np.zeros((len(values), 1), dtype=bool),
                                        values[:, 1:] == values[:, :-1]], axis=1)
    cols = np.arange(values.shape[1])
    first = np.maximum.accumulate(np.where(same, 0, cols), axis=1)  # first rank of each run of equal labels
    valid = cols < lengths[:, None]
    half = np.where(valid, first - start, 0).sum(axis=1) / 2  # pairs of a group whose labels differ, halved
    return concordant - half, discordant + half, tied


def _ranked_pair_counts_xp(labels: Any, valid: Any, ties: Any) -> tuple[Any, Any, Any]:
    """:func:`ranked_pair_counts` with the operations of the array API standard."""
    xp = namespace(labels)
    cols = columns(labels)
    start, end = tie_bounds(ties) if ties is not None else (cols + 0 * labels.shape[0], cols + 1)
    values = xp.unique_values(xp.where(valid, labels, labels[0:1, 0:1]))
    if values.shape[0] > labels.shape[1]:
        return _all_pairs_xp(xp, labels, valid, start)
    zero = xp.zeros(labels.shape[0], dtype=labels.dtype, device=device(labels))
    concordant, discordant, equal = zero, zero, zero
    same = xp.zeros(labels.shape, dtype=labels.dtype, device=device(labels))
    for index in range(values.shape[0]):  # one pass per label value, all rows at once
        has = valid & (labels == values[index])
        prefix = prefix_sum(as_float(has, labels))
        above = _at(xp, prefix, start)  # documents of this label in a group ranked higher
        concordant = concordant + xp.sum(xp.where(valid & (labels < values[index]), above, 0.0), axis=1)
        discordant = discordant + xp.sum(xp.where(valid & (labels > values[index]), above, 0.0), axis=1)
        same = xp.where(has, _at(xp, prefix, end) - above, same)
        equal = equal + prefix[:, -1] * (prefix[:, -1] - 1.0) / 2.0
    size = as_float(end - start, labels)
    half = xp.sum(xp.where(valid, size - same, 0.0), axis=1) / 4.0  # each tied pair seen twice, 1/2 each
    return concordant + half, discordant + half, equal


def _at(xp, matrix, cols):
    """``matrix[q, cols[q, ...]]``, ``cols`` one row for every query or one each."""
    return gather(matrix, xp.broadcast_to(cols, (matrix.shape[0], cols.shape[1])))


def _all_pairs_xp(xp: Any, labels: Any, valid: Any, start: Any) -> tuple[Any, Any, Any]:
    """:func:`ranked_pair_counts` by comparing every pair, a block of rows at a time."""
    n, depth = labels.shape
    rows = max(1, _CHUNK_PAIRS // max(depth * depth, 1))
    parts = []
    for lo in range(0, n, rows):  # blocks of rows bound the memory; each block is vectorized
        block = slice(lo, min(lo + rows, n))
        lab, ok = labels[block, :], valid[block, :]
        rank = -as_float(xp.broadcast_to(start, labels.shape)[block, :], labels)  # equal within a group
        pair = ok[:, :, None] & ok[:, None, :]
        higher = pair & (lab[:, :, None] > lab[:, None, :])
        d_rank = rank[:, :, None] - rank[:, None, :]
        tied = as_float(higher & (d_rank == 0.0), labels)
        concordant = xp.sum(as_float(higher & (d_rank > 0.0), labels) + 0.5 * tied, axis=(1, 2))
        discordant = xp.sum(as_float(higher & (d_rank < 0.0), labels) + 0.5 * tied, axis=(1, 2))
        count = xp.sum(as_float(ok, labels), axis=1)
        equal = (xp.sum(as_float(pair & (lab[:, :, None] == lab[:, None, :]), labels), axis=(1, 2)) - count) / 2.0
        parts.append((concordant, discordant, equal))
    return tuple(xp.concat([part[i] for part in parts]) for i in range(3))
