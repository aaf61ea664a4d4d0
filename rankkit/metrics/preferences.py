"""Preference measures: trec_eval's ``prefs_*`` and the measures averaged over judgment groups.

Preference judgments (:mod:`rankkit.io.prefs`) say which of two documents a user prefers.
They come in judgment groups (JG: one user's information need at one time), each made of
judgment sub-groups (JSG): within a JSG a document with a higher level is preferred to one
with a lower level. A JG with one JSG orders its documents by level classes (trec_eval's
"equivalence classes", EC); a JG with several JSGs is a partial order, closed under
transitivity (a > b in one JSG and b > c in another give a > c); a JG must be consistent
(no a > b and b > a). Level 0 means "not relevant"; a level above 0, relevant.

The join (:func:`rank_preferences`, trec_eval's ``form_prefs_counts.c``) gives every judged
document of a query a *docid rank*: the judged documents the run retrieves, ranked by score
(descending) then document id (ascending, as trec_eval orders the run here), take ranks
0 .. n_judged_ret - 1; the judged documents it does not retrieve follow in document-id
order. A preference a > b (of one JG) is then

- *fulfilled, retrieved* when both are retrieved and rank(a) < rank(b); *possible,
  retrieved* when both are retrieved;
- *fulfilled, implied* when a is retrieved and b is not; *possible, implied* when exactly
  one is retrieved;
- *not occurring* when neither is retrieved (possible, never fulfilled).

The measures, per query, over its JGs g (trec_eval 10's ``m_prefs_*.c``):

- ``prefs_num_prefs_poss`` = sum_g possible (all three kinds); ``prefs_num_prefs_ful`` =
  sum_g fulfilled (retrieved + implied); ``prefs_num_prefs_ful_ret`` = sum_g fulfilled
  retrieved. Their ``all`` line is a sum.
- ``prefs_simp`` = sum_g fulfilled / sum_g possible; ``_ret``: retrieved pairs only;
  ``_imp``: retrieved and implied (pairs of two unretrieved documents left out).
- ``prefs_avgjg`` = (sum_g fulfilled_g / possible_g) / n_JG, the JGs without a possible
  preference adding nothing; 0 when that sum is 0. ``_ret`` and ``_imp`` likewise.
- ``prefs_pair`` = mean over the document pairs with a preference in some JG of
  c(x > y) / (c(x > y) + c(y > x)), x the better ranked, c counting JGs; a pair of two
  unretrieved documents counts as 0. ``_ret``: pairs of retrieved documents only; ``_imp``:
  pairs with at least one retrieved document.
- ``prefs_avgjg_Rnonrel``: ``prefs_avgjg`` with the number of each JG's non-relevant
  documents N set to R, the number of its relevant ones (N < R: R - N non-relevant
  documents are added below all others; N > R: only the first R are kept);
  ``_ret`` the same on retrieved documents. :func:`prefs_avgjg_Rnonrel` gives trec_eval's
  exact conventions.

Counts and sums follow trec_eval's order: per JG in JG-id order, ratios added left to
right (:func:`rankkit.ops.numerics.rank_sum`). trec_eval's conventions are kept where they
surprise, each noted where it is computed: a JG with one JSG counts its *lines* (a document
listed twice at one level counts twice), a JG with several counts documents;
``prefs_avgjg_Rnonrel`` scores 0 on a query one of whose JGs has no possible preference
(trec_eval's 0 / 0). No loop over queries or JGs: per-line arrays, segment sums, and for
the partial orders one boolean matrix per JG, closed by Warshall's algorithm (a loop over
the documents of the largest JG, all JGs at once).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from ..ops.numerics import rank_sum
from ..ops.pairs import strict_inversions

__all__ = ["RankedPreferences", "rank_preferences", "PREFS_MEASURES", "average_over_groups",
           "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
           "prefs_simp", "prefs_simp_ret", "prefs_simp_imp", "prefs_pair", "prefs_pair_ret", "prefs_pair_imp",
           "prefs_avgjg", "prefs_avgjg_ret", "prefs_avgjg_imp", "prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret"]


# --------------------------------------------------------------------------- segments


def _cumcount(keys: np.ndarray) -> np.ndarray:
    """Position of each element within its run of equal (sorted) keys: 0, 1, 2, ..."""
    n = len(keys)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    index = np.arange(n)
    starts = np.r_[True, keys[1:] != keys[:-1]]
    return index - np.maximum.accumulate(np.where(starts, index, 0))


def _segment_sum(index: np.ndarray, values, n: int) -> np.ndarray:
    """Integer sums of ``values`` per ``index`` (exact: counts stay far below 2**53)."""
    weights = np.broadcast_to(np.asarray(values, dtype=np.float64), index.shape)
    return np.rint(np.bincount(index, weights=weights, minlength=n)).astype(np.int64)


def _ordered_sums(rows: np.ndarray, values: np.ndarray, n_rows: int) -> np.ndarray:
    """Per row, the sum of its ``values`` left to right, in the given order (``rows`` sorted)."""
    if len(rows) == 0:
        return np.zeros(n_rows)
    position = _cumcount(rows)
    padded = np.zeros((n_rows, int(position.max()) + 1))
    padded[rows, position] = values
    return rank_sum(padded)


def _count_before(a_group: np.ndarray, a_rank: np.ndarray, b_group: np.ndarray, b_limit: np.ndarray,
                  n_groups: int) -> np.ndarray:
    """Per group, sum over its b of #{a of the group: rank(a) < limit(b)}."""
    if len(a_group) == 0 or len(b_group) == 0:
        return np.zeros(n_groups, dtype=np.int64)
    big = int(max(a_rank.max(), b_limit.max())) + 2
    keys = np.sort(a_group * big + a_rank)
    before = np.searchsorted(keys, b_group * big + b_limit) - np.searchsorted(keys, b_group * big)
    return _segment_sum(b_group, before, n_groups)


def _preferences_within(segments: np.ndarray, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i, j) of positions of one run of equal ``segments`` with level[i] >
    level[j], lines sorted by segment, then level descending: j runs over the lines of the
    segment after i's class of equal level."""
    n = len(segments)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    new_segment = np.r_[True, segments[1:] != segments[:-1]]
    new_class = new_segment | np.r_[True, level[1:] != level[:-1]]
    segment_end = np.r_[np.flatnonzero(new_segment)[1:], n][np.cumsum(new_segment) - 1]
    class_end = np.r_[np.flatnonzero(new_class)[1:], n][np.cumsum(new_class) - 1]
    count = segment_end - class_end
    i = np.repeat(np.arange(n), count)
    offsets = np.cumsum(count) - count
    j = np.arange(len(i)) - np.repeat(offsets - class_end, count)
    return i, j


def _buckets(lengths: np.ndarray):
    """Rows grouped by length up to the next power of two: (rows, width) per bucket."""
    bucket = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)
    for b in np.unique(bucket):
        rows = np.flatnonzero(bucket == b)
        yield rows, int(lengths[rows].max())


# --------------------------------------------------------------------------- the join


@dataclass(frozen=True, eq=False)
class RankedPreferences:
    """Preference judgments joined with a run: per line its JG and docid rank.

    Lines are sorted by JG, JSG, level (descending), docid rank: trec_eval's order.
    JGs are numbered by query, then JG id; ``group_query[g]`` is JG g's query row.
    ``group_names`` (query id, JG id) name a JG in messages.
    """

    n_queries: int
    group: np.ndarray
    subgroup: np.ndarray
    rank: np.ndarray
    level: np.ndarray
    group_query: np.ndarray
    n_judged: np.ndarray
    n_judged_ret: np.ndarray
    group_names: tuple = ()

    @property
    def n_groups(self) -> int:
        return len(self.group_query)

    @cached_property
    def counts(self) -> _Counts:
        """The preference counts of every JG (computed once, shared by the measures)."""
        return _group_counts(self)

    @cached_property
    def partial_orders(self) -> tuple[_Counts, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Counts and preferences of the JGs with several JSGs (computed once)."""
        return _order_counts(self)

    @cached_property
    def pair_values(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``prefs_pair``, ``_ret``, ``_imp`` of every query."""
        return _pair_measures(self)


def rank_preferences(query: np.ndarray, group: np.ndarray, subgroup: np.ndarray, doc: np.ndarray,
                     level: np.ndarray, run_query: np.ndarray, run_doc: np.ndarray, run_score: np.ndarray, *,
                     n_queries: int, group_query: np.ndarray, depth: int | None = None,
                     group_names: tuple = ()) -> RankedPreferences:
    """Join preference lines with a run (trec_eval's ``form_prefs_counts.c``), all queries at once.

    Ids come as integer codes whose order is the byte order of the ids: ``query`` and
    ``run_query`` in 0 .. n_queries - 1, ``doc`` and ``run_doc`` shared, ``group`` numbered
    by query then JG id (``group_query[g]`` its query), ``subgroup`` by JG then JSG id.
    The run is ordered by score descending, then document id ascending (trec_eval's order
    for preferences), and cut at ``depth``; a run must not retrieve a document twice.
    """
    run_query, run_doc = np.asarray(run_query, dtype=np.int64), np.asarray(run_doc, dtype=np.int64)
    query, doc = np.asarray(query, dtype=np.int64), np.asarray(doc, dtype=np.int64)
    n_docs = int(max(doc.max(initial=-1), run_doc.max(initial=-1))) + 1
    order = np.lexsort((run_doc, -np.asarray(run_score, dtype=np.float64), run_query))
    rq, rd = run_query[order], run_doc[order]
    if depth is not None:
        kept = _cumcount(rq) < depth
        rq, rd = rq[kept], rd[kept]
    judged = np.unique(query * n_docs + doc)
    at = np.minimum(np.searchsorted(judged, rq * n_docs + rd), max(len(judged) - 1, 0))
    hit = judged[at] == rq * n_docs + rd if len(judged) else np.zeros(len(rq), dtype=bool)
    n_judged_ret = np.bincount(rq[hit], minlength=n_queries)
    rank = np.zeros(len(judged), dtype=np.int64)
    retrieved = np.zeros(len(judged), dtype=bool)
    rank[at[hit]], retrieved[at[hit]] = _cumcount(rq[hit]), True  # rq is sorted: ranks in run order
    judged_query = judged // n_docs
    rank[~retrieved] = n_judged_ret[judged_query[~retrieved]] + _cumcount(judged_query[~retrieved])
    line_rank = rank[np.searchsorted(judged, query * n_docs + doc)]
    level = np.asarray(level, dtype=np.float64)
    lines = np.lexsort((line_rank, -level, subgroup, group))
    return RankedPreferences(
        n_queries=n_queries, group=np.asarray(group, dtype=np.int64)[lines],
        subgroup=np.asarray(subgroup, dtype=np.int64)[lines], rank=line_rank[lines], level=level[lines],
        group_query=np.asarray(group_query, dtype=np.int64), n_judged=np.bincount(judged_query, minlength=n_queries),
        n_judged_ret=n_judged_ret, group_names=group_names)


# --------------------------------------------------------------------------- counts per JG


class _Counts(NamedTuple):
    """Per JG: preferences fulfilled and possible, relevant and non-relevant documents, and
    the fulfilled/possible pairs of the two Rnonrel measures (all int64 arrays)."""

    ful_ret: np.ndarray
    poss_ret: np.ndarray
    ful_imp: np.ndarray
    poss_imp: np.ndarray
    notoccur: np.ndarray
    n_rel: np.ndarray
    n_rel_ret: np.ndarray
    n_nonrel: np.ndarray
    n_nonrel_ret: np.ndarray
    rnonrel: tuple[np.ndarray, np.ndarray]
    rnonrel_ret: tuple[np.ndarray, np.ndarray]

    @property
    def poss_all(self) -> np.ndarray:
        return self.poss_ret + self.poss_imp + self.notoccur


def _partial_groups(rp: RankedPreferences) -> np.ndarray:
    """Per JG: True when it has several JSGs (a partial order), False for one JSG (classes)."""
    first = np.r_[True, (rp.subgroup[1:] != rp.subgroup[:-1]) | (rp.group[1:] != rp.group[:-1])]
    return np.bincount(rp.group[first], minlength=rp.n_groups) > 1


def _group_counts(rp: RankedPreferences) -> _Counts:
    """Every JG's counts: from its classes (one JSG) or its closed matrix (several)."""
    partial = _partial_groups(rp)
    classes = _class_counts(rp, ~partial[rp.group])
    orders = rp.partial_orders[0]
    return _Counts(*(tuple(np.where(partial, o, c) for o, c in zip(ov, cv)) if isinstance(ov, tuple)
                     else np.where(partial, ov, cv) for ov, cv in zip(orders, classes)))


def _class_counts(rp: RankedPreferences, lines: np.ndarray) -> _Counts:
    """Counts of the JGs with one JSG, from their lines (trec_eval's ECs; ``add_ec_pref_to_jg``)."""
    n = rp.n_groups
    g, level, rank = rp.group[lines], rp.level[lines], rp.rank[lines]
    njr = rp.n_judged_ret[rp.group_query[g]]
    ret = rank < njr
    new_class = np.r_[True, (g[1:] != g[:-1]) | (level[1:] != level[:-1])] if len(g) else np.zeros(0, bool)
    cls = np.cumsum(new_class) - 1
    cg, cl = g[new_class], level[new_class]
    size = np.bincount(cls).astype(np.int64) if len(g) else np.zeros(0, np.int64)
    size_ret = _segment_sum(cls, ret, len(size))
    size_unret = size - size_ret
    total, n_ret = _segment_sum(cg, size, n), _segment_sum(cg, size_ret, n)
    n_unret = total - n_ret
    poss_all = (total * total - _segment_sum(cg, size * size, n)) // 2
    poss_ret = (n_ret * n_ret - _segment_sum(cg, size_ret * size_ret, n)) // 2
    notoccur = (n_unret * n_unret - _segment_sum(cg, size_unret * size_unret, n)) // 2
    poss_imp = n_ret * n_unret - _segment_sum(cg, size_ret * size_unret, n)
    higher_ret = np.cumsum(size_ret) - size_ret  # retrieved lines in the JG's higher classes
    higher_ret -= higher_ret[np.searchsorted(cg, cg)]
    ful_imp = _segment_sum(cg, size_unret * higher_ret, n)
    ful_ret = _retrieved_inversions(g[ret], rank[ret], level[ret], n)
    relevant = cl > 0  # trec_eval's ECs: level > 0 relevant, any other level not
    n_rel, n_rel_ret = _segment_sum(cg, size * relevant, n), _segment_sum(cg, size_ret * relevant, n)
    counts = (ful_ret, poss_ret, ful_imp, poss_imp, notoccur, n_rel, n_rel_ret, total - n_rel, n_ret - n_rel_ret)
    last = np.r_[cg[1:] != cg[:-1], True] if len(cg) else np.zeros(0, bool)
    lines_info = (g, rank, np.minimum(rank, njr), ret, last[cls], _cumcount(cls), size, last)
    rnonrel = _class_rnonrel(counts, poss_all, lines_info, cg, n)
    rnonrel_ret = _class_rnonrel_ret(counts, lines_info, cg, n)
    return _Counts(*counts, rnonrel, rnonrel_ret)


def _retrieved_inversions(g: np.ndarray, rank: np.ndarray, level: np.ndarray, n: int) -> np.ndarray:
    """Per JG, pairs of retrieved lines whose better ranked one has the higher level."""
    out = np.zeros(n, dtype=np.int64)
    if len(g) == 0:
        return out
    order = np.lexsort((rank, g))
    g, level = g[order], level[order]
    position = _cumcount(g)
    groups, length = np.unique(g, return_counts=True)
    for rows, width in _buckets(length):
        row_of = np.full(n, -1)
        row_of[groups[rows]] = np.arange(len(rows))
        on = row_of[g] >= 0
        padded = np.full((len(rows), width), np.inf)  # +inf after the end: never an inversion
        padded[row_of[g[on]], position[on]] = level[on]
        out[groups[rows]] = np.rint(strict_inversions(padded)).astype(np.int64)
    return out


def _class_rnonrel(counts, poss_all, lines_info, cg, n):
    """prefs_avgjg_Rnonrel's fulfilled and possible per JG with one JSG (trec_eval's
    ``recalculate``). With R relevant and N non-relevant lines: R >= N adds R - N
    non-relevant documents ranked last, each below every relevant retrieved one; R < N keeps
    the first R (by rank) of the last class. trec_eval then pairs every line of the JG,
    the last class's own included, with those R lines; so does this."""
    ful_ret, _, ful_imp, _, _, n_rel, n_rel_ret, n_nonrel, _ = counts
    g, rank, limit, _, in_last, position, size, last = lines_info
    total = n_rel + n_nonrel
    size_last = _segment_sum(cg[last], size[last], n) if len(cg) else np.zeros(n, np.int64)
    below_last = _count_before(g[~in_last], rank[~in_last], g[in_last], limit[in_last], n)
    first_r = in_last & (position < n_rel[g])
    against_first_r = _count_before(g, rank, g[first_r], limit[first_r], n)
    ful_low = ful_ret + ful_imp - below_last + against_first_r
    poss_low = poss_all - size_last * (total - size_last) + total * np.minimum(n_rel, size_last)
    extra = n_rel - n_nonrel
    high = n_rel >= n_nonrel
    return (np.where(high, ful_ret + ful_imp + n_rel_ret * extra, ful_low),
            np.where(high, poss_all + n_rel * extra, poss_low))


def _class_rnonrel_ret(counts, lines_info, cg, n):
    """prefs_avgjg_Rnonrel_ret per JG with one JSG: as :func:`_class_rnonrel` on retrieved
    lines, R and N counting retrieved lines; R >= N adds R * (R - N) fulfilled and, as
    trec_eval does, n_rel * (R - N) possible preferences (n_rel: all relevant lines)."""
    ful_ret, poss_ret, _, _, _, n_rel, n_rel_ret, _, n_nonrel_ret = counts
    g, rank, _, ret, in_last, position, size, last = lines_info
    n_ret = n_rel_ret + n_nonrel_ret
    last_ret = in_last & ret
    size_last = _segment_sum(g[last_ret], 1, n)
    below_last = _count_before(g[~in_last], rank[~in_last], g[last_ret], rank[last_ret], n)
    first_r = last_ret & (position < n_rel_ret[g])
    against_first_r = _count_before(g, rank, g[first_r], rank[first_r], n)
    ful_low = ful_ret - below_last + against_first_r
    poss_low = poss_ret - size_last * (n_ret - size_last) + n_ret * np.minimum(n_rel_ret, size_last)
    extra = n_rel_ret - n_nonrel_ret
    high = n_rel_ret >= n_nonrel_ret
    return (np.where(high, ful_ret + n_rel_ret * extra, ful_low),
            np.where(high, poss_ret + n_rel * extra, poss_low))


# --------------------------------------------------------------------------- partial orders


def _order_counts(rp: RankedPreferences) -> tuple[_Counts, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Counts of the JGs with several JSGs (trec_eval's preference arrays; ``form_jg_pa``,
    ``add_pa_pref_to_jg``), and their preferences as (JG, docid rank of the preferred
    document, docid rank of the other). Each JG is a boolean matrix over its documents in
    docid-rank order, closed under transitivity; documents, not lines, are counted."""
    n = rp.n_groups
    lines = _partial_groups(rp)[rp.group]
    zeros = np.zeros(n, dtype=np.int64)
    counts = [zeros.copy() for _ in range(13)]
    pairs: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    if lines.any():
        g, s, level, rank = rp.group[lines], rp.subgroup[lines], rp.level[lines], rp.rank[lines]
        big = int(rank.max()) + 1
        docs, doc_of_line = np.unique(g * big + rank, return_inverse=True)
        doc_group, doc_rank = docs // big, docs % big
        final = _final_levels(rp, g, level, doc_of_line, len(docs))
        i, j = _preferences_within(s, level)
        edges = (doc_of_line[i], doc_of_line[j])
        groups, m = np.unique(doc_group, return_counts=True)
        local = _cumcount(doc_group)
        for rows, width in _buckets(m):
            docs_in = np.isin(doc_group, groups[rows])
            row_of = np.full(n, -1)
            row_of[groups[rows]] = np.arange(len(rows))
            closed = _closure(rp, row_of, doc_group, local, edges, len(rows), width, groups[rows])
            shape = (len(rows), width)
            ranks, levels = np.full(shape, big, dtype=np.int64), np.full(shape, np.nan)
            ranks[row_of[doc_group[docs_in]], local[docs_in]] = doc_rank[docs_in]
            levels[row_of[doc_group[docs_in]], local[docs_in]] = final[docs_in]
            njr = rp.n_judged_ret[rp.group_query[groups[rows]]]
            for k, value in enumerate(_matrix_counts(closed, ranks < njr[:, None], levels)):
                counts[k][groups[rows]] = value
            row, x, y = np.nonzero(closed)
            pairs.append((groups[rows][row], ranks[row, x], ranks[row, y]))
    found = tuple(np.concatenate(p) for p in zip(*pairs)) if pairs else (zeros[:0],) * 3
    return _Counts(*counts[:9], (counts[9], counts[10]), (counts[11], counts[12])), found


def _final_levels(rp: RankedPreferences, g, level, doc_of_line, n_docs) -> np.ndarray:
    """Each document's level in its JG: that of its last line (trec_eval's ``rel_array``);
    a document at level 0 in one JSG and above 0 in another is an error."""
    last_line = np.zeros(n_docs, dtype=np.int64)
    np.maximum.at(last_line, doc_of_line, np.arange(len(g)))
    zero, above = np.zeros(n_docs, dtype=bool), np.zeros(n_docs, dtype=bool)
    np.logical_or.at(zero, doc_of_line, level == 0)
    np.logical_or.at(above, doc_of_line, level > 0)
    if (zero & above).any():
        bad = g[last_line[np.argmax(zero & above)]]
        raise ValueError(f"{_group_text(rp, bad)}: a document is at level 0 in one sub-group and above 0 in "
                         "another (trec_eval refuses it too)")
    return level[last_line]


def _closure(rp, row_of, doc_group, local, edges, n_rows, width, groups) -> np.ndarray:
    """The JGs' preference matrices (rows: preferred), closed under transitivity by
    Warshall's algorithm, all JGs of one size bucket at once; diagonal cleared."""
    closed = np.zeros((n_rows, width, width), dtype=bool)
    a, b = edges
    on = row_of[doc_group[a]] >= 0
    closed[row_of[doc_group[a[on]]], local[a[on]], local[b[on]]] = True
    for k in range(width):
        closed |= closed[:, :, k:k + 1] & closed[:, k:k + 1, :]
    closed[:, np.arange(width), np.arange(width)] = False
    both = closed & closed.transpose(0, 2, 1)
    if both.any():
        raise ValueError(f"{_group_text(rp, groups[np.argmax(both.any(axis=(1, 2)))])}: inconsistent, two documents "
                         "are each preferred to the other (directly or through others); trec_eval stops there too")
    return closed


def _matrix_counts(a: np.ndarray, ret: np.ndarray, levels: np.ndarray) -> list[np.ndarray]:
    """The 13 counts of :class:`_Counts` (flattened) of closed preference matrices ``a``."""
    width = a.shape[1]
    upper = np.triu(np.ones((width, width), dtype=bool), 1)

    def total(x_mask, y_mask, extra=None):
        m = a & x_mask[:, :, None] & y_mask[:, None, :]
        return (m if extra is None else m & extra).sum(axis=(1, 2)).astype(np.int64)

    valid, rel, non = ~np.isnan(levels), levels > 0, levels == 0
    unret = valid & ~ret
    ful_ret, poss_ret = total(ret, ret, upper), total(ret, ret)
    ful_imp, poss_imp, notoccur = total(ret, unret), total(ret, unret) + total(unret, ret), total(unret, unret)
    n_rel, n_nonrel = rel.sum(axis=1), non.sum(axis=1)
    n_rel_ret, n_nonrel_ret = (rel & ret).sum(axis=1), (non & ret).sum(axis=1)
    # R < N: the non-relevant documents after the first R (rank order) are left out
    kept = valid & ~(non & (np.cumsum(non, axis=1) - non >= n_rel[:, None]))
    extra = n_rel - n_nonrel
    high = extra >= 0
    rnonrel = (np.where(high, ful_ret + ful_imp + n_rel_ret * extra, total(kept & ret, kept, upper)),
               np.where(high, poss_ret + poss_imp + notoccur + n_rel * extra, total(kept, kept)))
    # the retrieved version counts the first n_rel (all relevant, as trec_eval) retrieved ones
    non_ret = non & ret
    kept_ret = valid & ~(non_ret & (np.cumsum(non_ret, axis=1) - non_ret >= n_rel[:, None]))
    extra_ret = n_rel_ret - n_nonrel_ret
    high_ret = extra_ret >= 0
    rnonrel_ret = (np.where(high_ret, ful_ret + n_rel_ret * extra_ret, total(kept_ret & ret, kept_ret & ret, upper)),
                   np.where(high_ret, poss_ret + n_rel * extra_ret, total(kept_ret & ret, kept_ret & ret)))
    return [ful_ret, poss_ret, ful_imp, poss_imp, notoccur, n_rel, n_rel_ret, n_nonrel, n_nonrel_ret,
            *rnonrel, *rnonrel_ret]


def _group_text(rp: RankedPreferences, g: int) -> str:
    if rp.group_names:
        query, group = rp.group_names[g]
        return f"judgment group {group!r} of query {query!r}"
    return f"judgment group {g}"


# --------------------------------------------------------------------------- prefs_pair


def _pair_measures(rp: RankedPreferences) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``prefs_pair``, ``_ret`` and ``_imp`` per query. With one JG a pair has preferences
    one way only (a JG is consistent): its ratio is 1 (fulfilled) or 0, and the measures are
    ratios of counts of distinct pairs. With several JGs the pairs are listed and counted."""
    nq = rp.n_queries
    groups_per_query = np.bincount(rp.group_query, minlength=nq)
    c = _distinct_counts(rp)
    per = {name: _segment_sum(rp.group_query, value, nq) for name, value in
           (("ful_ret", c.ful_ret), ("ful_imp", c.ful_imp), ("poss_ret", c.poss_ret), ("poss_imp", c.poss_imp),
            ("poss_all", c.poss_all))}
    one = (_ratio(per["ful_ret"] + per["ful_imp"], per["poss_all"]), _ratio(per["ful_ret"], per["poss_ret"]),
           _ratio(per["ful_ret"] + per["ful_imp"], per["poss_ret"] + per["poss_imp"]))
    several = groups_per_query > 1
    if not several.any():
        return one
    listed = _listed_pair_measures(rp, several)
    return tuple(np.where(several, m, o) for m, o in zip(listed, one))


def _distinct_lines(rp: RankedPreferences) -> np.ndarray:
    """Lines of one-JSG JGs that repeat a document of their JG (trec_eval counts them twice)."""
    key = rp.group * (int(rp.rank.max(initial=0)) + 1) + rp.rank
    _, first = np.unique(key, return_index=True)
    keep = np.zeros(len(key), dtype=bool)
    keep[first] = True
    return keep | _partial_groups(rp)[rp.group]


def _distinct_counts(rp: RankedPreferences) -> _Counts:
    keep = _distinct_lines(rp)
    if keep.all():
        return rp.counts
    from dataclasses import replace

    fewer = replace(rp, group=rp.group[keep], subgroup=rp.subgroup[keep], rank=rp.rank[keep], level=rp.level[keep])
    fewer.__dict__["partial_orders"] = rp.partial_orders  # the same partial orders
    return fewer.counts


#: Preferences listed at a time for prefs_pair (bounded memory: tens of MB).
_PAIRS_PER_CHUNK = 1 << 21


def _listed_pair_measures(rp: RankedPreferences, several: np.ndarray) -> tuple[np.ndarray, ...]:
    """The pair measures of queries with several JGs, from the list of their preferences:
    per pair of documents x (better ranked), y: c(x > y) / (c(x > y) + c(y > x)), added in
    trec_eval's order (both retrieved, then x retrieved and y not; by x, then y)."""
    nq, big = rp.n_queries, int(rp.rank.max(initial=0)) + 1
    pg, px, py = rp.partial_orders[1]
    mine = several[rp.group_query[pg]]
    tallies = [_tally(rp.group_query[g], x, y, big) for g, x, y in _class_preferences(rp, several)]
    tallies.append(_tally(rp.group_query[pg[mine]], px[mine], py[mine], big))
    keys, pair = np.unique(np.concatenate([t[0] for t in tallies]), return_inverse=True)
    forward = np.bincount(pair, weights=np.concatenate([t[1] for t in tallies]), minlength=len(keys))
    backward = np.bincount(pair, weights=np.concatenate([t[2] for t in tallies]), minlength=len(keys))
    pq, rest = keys // (big * big), keys % (big * big)
    pi, pj = rest // big, rest % big
    njr = rp.n_judged_ret[pq]
    block = np.where(pj < njr, 0, np.where(pi < njr, 1, 2))
    ratio = forward / (forward + backward)
    order = np.lexsort((pj, pi, block, pq))
    pq, block, ratio = pq[order], block[order], ratio[order]
    ret, imp = block == 0, block < 2
    sum_ret, sum_imp = _ordered_sums(pq[ret], ratio[ret], nq), _ordered_sums(pq[imp], ratio[imp], nq)
    n_all, n_ret, n_imp = (np.bincount(pq[m], minlength=nq) for m in (np.ones(len(pq), bool), ret, imp))
    return _ratio(sum_imp, n_all), _ratio(sum_ret, n_ret), _ratio(sum_imp, n_imp)


def _class_preferences(rp: RankedPreferences, several: np.ndarray):
    """The preferences (JG, rank preferred, rank other) of the one-JSG JGs of queries with
    several JGs, every line counting (a document listed twice counts twice, as in trec_eval),
    a few JGs at a time (at most about :data:`_PAIRS_PER_CHUNK` line pairs each)."""
    on = several[rp.group_query[rp.group]] & ~_partial_groups(rp)[rp.group]
    g, level, rank = rp.group[on], rp.level[on], rp.rank[on]
    if len(g) == 0:
        return
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    sizes = np.diff(np.r_[starts, len(g)]).astype(np.int64)
    chunk = np.cumsum(sizes * sizes) // _PAIRS_PER_CHUNK
    for c in np.unique(chunk):
        first, last = np.flatnonzero(chunk == c)[[0, -1]]
        lines = slice(starts[first], starts[last] + sizes[last])
        i, j = _preferences_within(g[lines], level[lines])
        yield g[lines][i], rank[lines][i], rank[lines][j]


def _tally(q: np.ndarray, x: np.ndarray, y: np.ndarray, big: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Preferences x > y of queries q as distinct unordered pairs (query, lower rank, higher
    rank), each with its count of preferences for the better ranked and for the other."""
    keys, pair = np.unique((q * big + np.minimum(x, y)) * big + np.maximum(x, y), return_inverse=True)
    return (keys, np.bincount(pair, weights=x < y, minlength=len(keys)),
            np.bincount(pair, weights=x > y, minlength=len(keys)))


# --------------------------------------------------------------------------- the measures


def _ratio(num, den) -> np.ndarray:
    """num / den, 0.0 where den is 0 (trec_eval leaves the value at 0)."""
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def _per_query(rp: RankedPreferences, values: np.ndarray) -> np.ndarray:
    return _segment_sum(rp.group_query, values, rp.n_queries)


def _average_over_jgs(rp: RankedPreferences, ful: np.ndarray, poss: np.ndarray, *, skip_empty: bool) -> np.ndarray:
    """(sum over JGs, in order, of ful / poss) / n_JG where that sum is > 0, else 0. A JG with
    poss = 0 adds nothing (``skip_empty``) or trec_eval's 0 / 0, a NaN that zeroes the query."""
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = ful / poss.astype(np.float64)
    if skip_empty:
        ratios = np.where(poss > 0, ratios, 0.0)
    total = _ordered_sums(rp.group_query, ratios, rp.n_queries)
    n_jgs = np.bincount(rp.group_query, minlength=rp.n_queries)
    positive = np.greater(total, 0.0, where=~np.isnan(total), out=np.zeros(len(total), dtype=bool))
    return np.divide(total, n_jgs, out=np.zeros_like(total), where=positive)


def prefs_num_prefs_poss(rp: RankedPreferences) -> np.ndarray:
    """Preferences possible, per query: sum over JGs of every preference (retrieved, implied
    or neither document retrieved). trec_eval's ``prefs_num_prefs_poss`` (its ``all``: a sum)."""
    return _per_query(rp, rp.counts.poss_all)


def prefs_num_prefs_ful(rp: RankedPreferences) -> np.ndarray:
    """Preferences fulfilled, per query: a > b with a retrieved above b, or a retrieved and b
    not. trec_eval's ``prefs_num_prefs_ful``."""
    c = rp.counts
    return _per_query(rp, c.ful_ret + c.ful_imp)


def prefs_num_prefs_ful_ret(rp: RankedPreferences) -> np.ndarray:
    """Preferences fulfilled among retrieved documents (both retrieved, a above b).
    trec_eval's ``prefs_num_prefs_ful_ret``."""
    return _per_query(rp, rp.counts.ful_ret)


def prefs_simp(rp: RankedPreferences) -> np.ndarray:
    """sum_JG fulfilled / sum_JG possible (0 when nothing is possible). trec_eval's ``prefs_simp``."""
    c = rp.counts
    return _ratio(_per_query(rp, c.ful_ret + c.ful_imp), _per_query(rp, c.poss_all))


def prefs_simp_ret(rp: RankedPreferences) -> np.ndarray:
    """prefs_simp over pairs of retrieved documents only. trec_eval's ``prefs_simp_ret``."""
    c = rp.counts
    return _ratio(_per_query(rp, c.ful_ret), _per_query(rp, c.poss_ret))


def prefs_simp_imp(rp: RankedPreferences) -> np.ndarray:
    """prefs_simp over pairs with at least one retrieved document. trec_eval's ``prefs_simp_imp``."""
    c = rp.counts
    return _ratio(_per_query(rp, c.ful_ret + c.ful_imp), _per_query(rp, c.poss_ret + c.poss_imp))


def prefs_pair(rp: RankedPreferences) -> np.ndarray:
    """Mean over document pairs x, y (x better ranked) with a preference of
    c(x > y) / (c(x > y) + c(y > x)), c counting JGs; 0 for a pair neither retrieved.
    trec_eval's ``prefs_pair``."""
    return rp.pair_values[0]


def prefs_pair_ret(rp: RankedPreferences) -> np.ndarray:
    """prefs_pair over pairs of retrieved documents. trec_eval's ``prefs_pair_ret``."""
    return rp.pair_values[1]


def prefs_pair_imp(rp: RankedPreferences) -> np.ndarray:
    """prefs_pair over pairs with a retrieved document. trec_eval's ``prefs_pair_imp``."""
    return rp.pair_values[2]


def prefs_avgjg(rp: RankedPreferences) -> np.ndarray:
    """(sum_JG fulfilled_JG / possible_JG) / n_JG: every JG (user) weighs the same.
    trec_eval's ``prefs_avgjg``."""
    c = rp.counts
    return _average_over_jgs(rp, c.ful_ret + c.ful_imp, c.poss_all, skip_empty=True)


def prefs_avgjg_ret(rp: RankedPreferences) -> np.ndarray:
    """prefs_avgjg over pairs of retrieved documents. trec_eval's ``prefs_avgjg_ret``."""
    c = rp.counts
    return _average_over_jgs(rp, c.ful_ret, c.poss_ret, skip_empty=True)


def prefs_avgjg_imp(rp: RankedPreferences) -> np.ndarray:
    """prefs_avgjg over pairs with a retrieved document. trec_eval's ``prefs_avgjg_imp``."""
    c = rp.counts
    return _average_over_jgs(rp, c.ful_ret + c.ful_imp, c.poss_ret + c.poss_imp, skip_empty=True)


def prefs_avgjg_Rnonrel(rp: RankedPreferences) -> np.ndarray:  # noqa: N802 (trec_eval's name)
    """prefs_avgjg with each JG's non-relevant documents (level 0) set to R, its relevant ones.

    With N non-relevant documents: N <= R adds R - N non-relevant documents below all
    others (fulfilled: R_ret * (R - N), possible: R * (R - N)); N > R keeps the first R
    non-relevant documents in rank order and counts again. trec_eval's
    ``prefs_avgjg_Rnonrel``, with its conventions: in a one-JSG JG, R and N count lines and
    the kept documents are paired with every line, their own class's included; a JG with no
    possible preference makes the query's value 0 (its 0 / 0). With negative levels (a qrels'
    -1 read as ``qrels_prefs``) the last class is the lowest level, not level 0, and may hold
    fewer than R lines: trec_eval then reads past it (memory it never set); rankkit pairs
    with the lines the class holds.
    """
    ful, poss = rp.counts.rnonrel
    return _average_over_jgs(rp, ful, poss, skip_empty=False)


def prefs_avgjg_Rnonrel_ret(rp: RankedPreferences) -> np.ndarray:  # noqa: N802 (trec_eval's name)
    """prefs_avgjg_Rnonrel on retrieved documents: R and N count retrieved ones; N <= R adds
    R_ret * (R - N) fulfilled and, as trec_eval does, R_all * (R - N) possible preferences
    (R_all counting every relevant document); a JG with no retrieved document makes the
    query's value 0 (trec_eval's 0 / 0). trec_eval's ``prefs_avgjg_Rnonrel_ret``."""
    ful, poss = rp.counts.rnonrel_ret
    return _average_over_jgs(rp, ful, poss, skip_empty=False)


def average_over_groups(values: np.ndarray, group_query: np.ndarray, n_queries: int) -> np.ndarray:
    """Per query, its JGs' values (sorted by query) added in order, divided by their number
    when there are several: trec_eval's ``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``.

    Examples
    --------
    >>> average_over_groups(np.array([0.5, 0.25, 1.0]), np.array([0, 0, 1]), 2)
    array([0.375, 1.   ])
    """
    total = _ordered_sums(np.asarray(group_query), np.asarray(values, dtype=np.float64), n_queries)
    n = np.bincount(group_query, minlength=n_queries)
    return np.where(n > 1, total / np.maximum(n, 1), total)


#: trec_eval's preference measures in its print order: name -> (function, "int" for counts).
PREFS_MEASURES = {
    "prefs_num_prefs_poss": (prefs_num_prefs_poss, "int"),
    "prefs_num_prefs_ful": (prefs_num_prefs_ful, "int"),
    "prefs_num_prefs_ful_ret": (prefs_num_prefs_ful_ret, "int"),
    "prefs_simp": (prefs_simp, "float"),
    "prefs_pair": (prefs_pair, "float"),
    "prefs_avgjg": (prefs_avgjg, "float"),
    "prefs_avgjg_Rnonrel": (prefs_avgjg_Rnonrel, "float"),
    "prefs_simp_ret": (prefs_simp_ret, "float"),
    "prefs_pair_ret": (prefs_pair_ret, "float"),
    "prefs_avgjg_ret": (prefs_avgjg_ret, "float"),
    "prefs_avgjg_Rnonrel_ret": (prefs_avgjg_Rnonrel_ret, "float"),
    "prefs_simp_imp": (prefs_simp_imp, "float"),
    "prefs_pair_imp": (prefs_pair_imp, "float"),
    "prefs_avgjg_imp": (prefs_avgjg_imp, "float"),
}
