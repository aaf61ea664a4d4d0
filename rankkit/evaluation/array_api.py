"""Model scores evaluated on any array-API library (PyTorch, JAX, CuPy, array-api-strict):
the kernels behind ``evaluate_scores`` for arrays that are not NumPy's.

:func:`score_arrays` takes three 1-D arrays of one library (labels, scores, query ids, rows
in any order) and computes every supported metric per query with the operations of the
array API standard (2023.12) only, through the namespace ``xp`` that ``array_api_compat``
gives for the input: the data stay in that library and on their device, nothing is copied
to NumPy, and no Python loop runs over queries.

How (all queries at once):

1. one stable ``argsort`` by query id groups the rows (none when they come grouped, as in
   LightGBM's and XGBoost's layout);
2. the rows of each query are gathered into a zero-padded (n_queries, depth) matrix with
   clipped indices and a mask (no scatter), depth the largest query's number of rows;
3. each row of it is sorted by score descending (a stable ``argsort`` along the short
   axis, after one by label ascending or descending for ``ties="pessimistic"`` /
   ``"optimistic"``), far cheaper than one sort of all rows;
4. tie groups (equal scores within a query) are runs of equal values along a row; sums
   over a group are differences of prefix sums along the row (``cumulative_sum``), so
   every per-group quantity is a few gathers;
5. each metric is then elementwise arithmetic and one sum along the ranks.

Only a few scalars reach the host: the depth, whether the rows come grouped, the number
of distinct labels (PNR) and, for ERR, whether scores tie.

``ties="average"`` gives the exact expected value over all orders of every tied group:
for the metrics linear in the labels (CG, DCG, nDCG, P, R, RBP) each rank takes its
group's mean gain; success@k is the probability that a relevant document reaches the top
k; AP and RR follow McSherry & Najork's expectations (references below); AUC, GAUC and
PNR count a pair in one tie group 1/2. With ``"pessimistic"`` / ``"optimistic"`` every
metric, AUC and PNR included, sees the tie-broken order, as the NumPy path does.

Numbers: values are float64 where the library's default float is float64
(array-api-strict) or the scores are float64 (PyTorch with float64 tensors), the scores'
float dtype otherwise (JAX's default float32 unless ``jax_enable_x64``). Sums along the
ranks and over queries are the library's own reductions, not rankkit's one order of
summation (:mod:`rankkit.ops.numerics`), so on float64 the values equal the NumPy
path's within 1e-12, and within about 1e-5 on float32; the DCG discounts and RBP's
powers are rankkit's correctly rounded tables (computed by NumPy, copied to the device
once; nothing of the input goes to NumPy). JAX compiles each operation for each new
shape on its first use, so a first call at a new size costs seconds.

References
----------
- F. McSherry and M. Najork, "Computing Information Retrieval Performance Measures
  Efficiently in the Presence of Tied Scores", ECIR 2008, LNCS 4956, pp. 414-421,
  https://doi.org/10.1007/978-3-540-78646-7_38 (expected AP and RR over tied orders).
- H. B. Mann and D. R. Whitney, "On a Test of Whether one of Two Random Variables is
  Stochastically Larger than the Other", Ann. Math. Statist. 18(1), 1947 (AUC as U / (P N)
  with average ranks for ties).
- Array API standard 2023.12, https://data-apis.org/array-api/2023.12/
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from array_api_compat import device as array_device

from ..ops.numerics import jk_discounts, log_ranks, powers

__all__ = ["score_arrays", "SUPPORTED"]

#: The metrics computed on a library other than NumPy (registry names).
SUPPORTED = ("P", "R", "success", "AP", "RR", "fallout", "LRAP", "CG", "DCG", "nDCG", "RBP", "ERR", "AUC", "GAUC",
             "PNR", "MSE", "MAE")

#: Queries per block in the all-pairs count of PNR for labels of many distinct values.
_PAIR_CELLS = 1 << 22


@dataclass(frozen=True)
class _Layout:
    """One query per row, zero-padded, ranked by score (tie policy applied).

    ``labels``: every row's label (the ideal comes from them); ``shown``: the ranks the
    ranking sees (``retrieved="positive"``: a score above 0); ``ranked``: the labels there,
    0 elsewhere; ``valid``: a real row, not padding; ``counts``: rows per query.
    """

    xp: Any
    device: Any
    dtype: Any
    policy: str
    labels: Any
    shown: Any
    ranked: Any
    scores: Any
    valid: Any
    counts: Any
    cols: Any

    @property
    def average(self) -> bool:
        """Whether tied scores stay tied (``ties="average"``)."""
        return self.policy == "average"

    @cached_property
    def score_groups(self) -> tuple[Any, Any]:
        """The run of equal scores each rank belongs to, as columns [start, end) of its row
        (each padding cell alone)."""
        xp = self.xp
        first = xp.ones((self.n_queries, 1), dtype=xp.bool, device=self.device)
        change = xp.concat([first, self.scores[:, 1:] != self.scores[:, :-1]], axis=1)
        return _groups(xp, change | ~self.valid, self.n_queries, self.depth, self.device)

    @property
    def starts(self):
        """First column of each rank's tie group (the rank itself unless ``ties="average"``)."""
        return self.score_groups[0] if self.average else self.xp.broadcast_to(self.cols, self.labels.shape)

    @property
    def ends(self):
        """One past the last column of each rank's tie group."""
        return self.score_groups[1] if self.average else self.xp.broadcast_to(self.cols + 1, self.labels.shape)

    @property
    def n_queries(self) -> int:
        return self.labels.shape[0]

    @property
    def depth(self) -> int:
        return self.labels.shape[1]

    def f(self, x):
        """``x`` in the value dtype."""
        return self.xp.astype(x, self.dtype)

    def constant(self, values) -> Any:
        """A table of constants (discounts, powers; NumPy's, copied: the cached tables are
        read-only, which PyTorch warns about) on the device, in the value dtype."""
        return self.xp.asarray(np.array(values, dtype=np.float64), dtype=self.dtype, device=self.device)

    def prefix(self, x):
        """Sums along each row with a leading 0: ``out[:, j]`` = the sum of the first j."""
        return self.xp.cumulative_sum(self.f(x), axis=1, include_initial=True)

    def at(self, matrix, cols):
        """``matrix[q, cols[q, ...]]`` for every query q."""
        return _gather(self.xp, matrix, cols)

    def before(self, prefix):
        """Each rank's prefix sum up to its tie group (exclusive), from :meth:`prefix`."""
        return self.at(prefix, self.starts) if self.average else prefix[:, :-1]

    def through(self, prefix):
        """Each rank's prefix sum through the end of its tie group, from :meth:`prefix`."""
        return self.at(prefix, self.ends) if self.average else prefix[:, 1:]

    @cached_property
    def pair_counts(self) -> tuple[Any, Any, Any]:
        """Per query: concordant, discordant and equal-label pairs (:func:`_pair_counts`)."""
        return _pair_counts(self)


def _float_dtype(xp, scores, device):
    """float64 where the library's default float is (or the scores are), else the scores'
    float dtype (JAX's float32)."""
    default = xp.__array_namespace_info__().default_dtypes(device=device)["real floating"]
    if xp.isdtype(scores.dtype, "real floating"):
        return xp.result_type(scores.dtype, default)
    return default


def _gather(xp, matrix, cols):
    """``matrix[q, cols[q, ...]]`` for every row q (a gather on the flat matrix)."""
    rows = xp.reshape(xp.arange(matrix.shape[0], dtype=cols.dtype, device=array_device(cols)),
                      (-1,) + (1,) * (cols.ndim - 1))
    flat = xp.reshape(rows * matrix.shape[1] + cols, (-1,))
    return xp.reshape(xp.take(xp.reshape(matrix, (-1,)), flat), cols.shape)


def _by_query(xp, query):
    """The row order that groups the queries (ids ascending), or None when it is the rows' own."""
    if bool(xp.all(query[1:] >= query[:-1])):
        return None
    return xp.argsort(query, stable=True)


def _rank_columns(xp, labels, scores, valid, ties: str):
    """Each row's column order: score descending, then (tie policy) label; padding last.
    Sorting the short rows of the padded matrix costs far less than one sort of all rows."""
    key = xp.where(valid, -scores, xp.inf)
    order = None
    if ties in ("pessimistic", "optimistic"):
        order = xp.argsort(labels if ties == "pessimistic" else -labels, axis=1, stable=True)
        key = _gather(xp, key, order)
    step = xp.argsort(key, axis=1, stable=True)
    return step if order is None else _gather(xp, order, step)


def _groups(xp, flags, n_queries: int, depth: int, device):
    """[start, end) columns of the run each cell belongs to, from its run-start flags."""
    flat = xp.reshape(flags, (-1,))
    first = xp.nonzero(flat)[0]
    ids = xp.cumulative_sum(xp.astype(flat, first.dtype)) - 1
    last = xp.concat([first[1:], xp.asarray([n_queries * depth], dtype=first.dtype, device=device)])
    offset = xp.reshape(xp.arange(n_queries, dtype=first.dtype, device=device) * depth, (-1, 1))
    starts = xp.reshape(xp.take(first, ids), (n_queries, depth)) - offset
    ends = xp.reshape(xp.take(last, ids), (n_queries, depth)) - offset
    return starts, ends


def _layout(xp, labels, scores, query, ties: str, retrieved: str):
    """The padded, ranked matrices of all queries, and the sorted distinct query ids."""
    device = array_device(scores)
    dtype = _float_dtype(xp, scores, device)
    labels, scores = xp.astype(labels, dtype), xp.astype(scores, dtype)
    n = labels.shape[0]
    if query is None:
        query = xp.zeros(n, dtype=xp.int32, device=device)
    order = _by_query(xp, query)
    if order is not None:
        query, labels, scores = xp.take(query, order), xp.take(labels, order), xp.take(scores, order)
    new = xp.concat([xp.ones(1, dtype=xp.bool, device=device), query[1:] != query[:-1]])
    starts = xp.nonzero(new)[0]
    counts = xp.concat([starts[1:], xp.asarray([n], dtype=starts.dtype, device=device)]) - starts
    n_queries, depth = starts.shape[0], int(xp.max(counts))
    cols = xp.reshape(xp.arange(depth, dtype=starts.dtype, device=device), (1, -1))
    valid = cols < xp.reshape(counts, (-1, 1))
    where = xp.reshape(xp.minimum(xp.reshape(starts, (-1, 1)) + cols, n - 1), (-1,))

    def padded(values):
        return xp.where(valid, xp.reshape(xp.take(values, where), (n_queries, depth)), 0.0)

    all_labels, padded_scores = padded(labels), padded(scores)
    ranks = _rank_columns(xp, all_labels, padded_scores, valid, ties)
    all_labels, padded_scores = _gather(xp, all_labels, ranks), _gather(xp, padded_scores, ranks)
    shown = valid if retrieved == "all" else valid & (padded_scores > 0)
    layout = _Layout(xp, device, dtype, ties, all_labels, shown, xp.where(shown, all_labels, 0.0),
                     padded_scores, valid, counts, cols)
    return xp.take(query, starts), layout


# --------------------------------------------------------------------------- helpers


def _ratio(xp, num, den):
    """num / den, and 0 where den is 0 (``den`` an array or a number)."""
    if isinstance(den, (int, float)):
        return num / den if den > 0 else xp.zeros_like(num)
    positive = den > 0
    return xp.where(positive, num / xp.where(positive, den, 1.0), 0.0)


def _cut(lay: _Layout, k: int | None) -> int:
    """Ranks a cutoff keeps (all of them for None)."""
    return lay.depth if k is None else min(k, lay.depth)


def _expected(lay: _Layout, x, k: int | None = None):
    """The first k ranks' values, each replaced by its tie group's mean: the expected value
    of a metric linear in the per-rank values, over all orders of every group (unchanged
    without ``ties="average"``; an untied rank keeps its value to the bit). A group may
    reach past rank k, so its sum runs over the whole row."""
    width = _cut(lay, k)
    if not lay.average:
        return x[:, :width]
    starts, ends = lay.starts[:, :width], lay.ends[:, :width]
    size = lay.f(ends - starts)
    prefix = lay.prefix(x)
    mean = (lay.at(prefix, ends) - lay.at(prefix, starts)) / size
    return lay.xp.where(size > 1, mean, x[:, :width])


def _relevant(lay: _Layout, rel: float):
    """1.0 where the ranking shows a document with label >= rel."""
    return lay.f(lay.ranked >= rel)


def _n_relevant(lay: _Layout, rel: float):
    """R per query: every row with label >= rel, retrieved or not."""
    return lay.xp.sum(lay.f(lay.labels >= rel), axis=1)


def _hits(lay: _Layout, rel: float, k: int | None):
    """Expected relevant documents in the top k."""
    return lay.xp.sum(_expected(lay, _relevant(lay, rel), k), axis=1)


def _rel(params: dict, rel: float) -> float:
    """A spec's own ``rel`` wins over the call's."""
    return float(params.get("rel", rel))


# --------------------------------------------------------------------------- binary


def _precision(lay: _Layout, k, params, rel):
    den = lay.f(lay.counts) if k is None else float(k)
    return _ratio(lay.xp, _hits(lay, _rel(params, rel), k), den)


def _recall(lay: _Layout, k, params, rel):
    rel = _rel(params, rel)
    return _ratio(lay.xp, _hits(lay, rel, k), _n_relevant(lay, rel))


def _success(lay: _Layout, k, params, rel):
    """P(a relevant document in the top k): only the tie group holding rank k can straddle
    the cutoff; with c of its g documents relevant and m of its ranks inside the top k,
    none of them reaches the top k with probability C(g - c, m) / C(g, m)."""
    xp, relevant = lay.xp, _relevant(lay, _rel(params, rel))
    if not lay.average or k is None or k >= lay.depth:
        return lay.f(xp.any(relevant[:, :_cut(lay, k)] > 0, axis=1))
    start, end = lay.starts[:, k - 1:k], lay.ends[:, k - 1:k]
    prefix = lay.prefix(relevant)
    before = lay.at(prefix, start)[:, 0]
    size, tied = lay.f(end - start), lay.at(prefix, end) - lay.at(prefix, start)
    inside, j = lay.f(k - start), lay.f(lay.cols)
    factors = xp.where(j < inside, xp.maximum(size - tied - j, 0.0) / xp.maximum(size - j, 1.0), 1.0)
    return xp.where(before > 0, 1.0, 1.0 - xp.prod(factors, axis=1))


def _average_precision(lay: _Layout, k, params, rel):
    """Expected AP (McSherry & Najork 2008): rank i of a tied group of n documents, r of them
    relevant, after c documents of which h are relevant, adds
    (r / n) (h + 1 + (i - 1)(r - 1) / (n - 1)) / (c + i); ``tied="group_end"`` counts a
    group at the precision of its last rank (see :func:`_group_end_terms`)."""
    xp, rel = lay.xp, _rel(params, rel)
    normalize = params.get("normalize", "relevant")
    if normalize == "retrieved" and k is not None and lay.average:
        raise ValueError("normalize='retrieved' takes no cutoff k with ties='average': its denominator, the "
                         "relevant documents in the top k, would depend on the order of tied documents")
    prefix = lay.prefix(_relevant(lay, rel))
    h = lay.before(prefix)
    r = lay.through(prefix) - h
    n, c = lay.f(lay.ends - lay.starts), lay.f(lay.starts)
    if params.get("tied", "expected") == "group_end" and lay.average:
        term = _group_end_terms(lay, k, h, r, n, c)
    else:
        i = lay.f(lay.cols) - c + 1.0
        term = (r / n) * (h + 1.0 + (i - 1.0) * (r - 1.0) / xp.maximum(n - 1.0, 1.0)) / (c + i)
    total = xp.sum(term[:, :_cut(lay, k)], axis=1)
    if normalize == "retrieved":
        den = _hits(lay, rel, k)
    else:
        den = _n_relevant(lay, rel)
        if normalize == "min_k" and k is not None:
            den = xp.minimum(den, float(k))
    return _ratio(xp, total, den)


def _group_end_terms(lay: _Layout, k, h, r, n, c):
    """scikit-learn's ``average_precision_score`` rule: a tie group's relevant documents all
    count at the precision of its last rank; a group cut by k counts its expected part
    above the cut, x = r m / n of its m ranks there, at precision (h + x) / k."""
    xp = lay.xp
    rank = lay.f(lay.cols) + 1.0
    last = lay.ends == lay.cols + 1
    if k is not None and k <= lay.depth:
        last = last | (lay.cols == k - 1)
    x = r * (rank - c) / n
    return xp.where(last, x * (h + x) / rank, 0.0)


def _fallout(lay: _Layout, k, params, rel):
    """Fall-out: the expected non-relevant documents in the top k over all of the query's."""
    rel = _rel(params, rel)
    count = lay.xp.sum(_expected(lay, lay.f(lay.valid & (lay.ranked < rel)), k), axis=1)
    return _ratio(lay.xp, count, lay.f(lay.counts) - _n_relevant(lay, rel))


def _lrap(lay: _Layout, k, params, rel):
    """Label-ranking average precision: the mean over relevant documents of the relevant
    share of the documents ranked at or above them (a tie group counts whole, as
    scikit-learn's ``label_ranking_average_precision_score``); 1.0 for a query without a
    relevant or a non-relevant document."""
    xp = lay.xp
    relevant = lay.f(lay.valid & (lay.ranked >= _rel(params, rel)))
    through = lay.through(lay.prefix(relevant))
    share = through / lay.f(lay.ends)
    n_rel = xp.sum(relevant, axis=1)
    mean = _ratio(xp, xp.sum(xp.where(relevant > 0, share, 0.0), axis=1), n_rel)
    return xp.where((n_rel == 0) | (n_rel == lay.f(lay.counts)), 1.0, mean)


def _cumulative_product(xp, x):
    """Products along each row with a leading 1 (``cumulative_prod`` where the library has
    it, else through logarithms)."""
    if hasattr(xp, "cumulative_prod"):
        return xp.cumulative_prod(x, axis=1, include_initial=True)
    logs = xp.where(x > 0, xp.log(xp.where(x > 0, x, 1.0)), -xp.inf)
    return xp.exp(xp.cumulative_sum(logs, axis=1, include_initial=True))


def _reciprocal_rank(lay: _Layout, k, params, rel):
    """Expected RR (McSherry & Najork 2008): in the first tied group holding a relevant
    document (n documents, r relevant, after c documents), the i-th is the first relevant
    with probability C(n - i, r - 1) / C(n, r) = Q(i - 1) r / (n - i + 1), where
    Q(i) = prod_{t < i} (n - r - t) / (n - t) is the chance that none of the first i is."""
    xp, relevant = lay.xp, _relevant(lay, _rel(params, rel))
    found = xp.any(relevant > 0, axis=1)
    first = xp.reshape(xp.argmax(relevant, axis=1), (-1, 1))
    start, end = lay.at(lay.starts, first), lay.at(lay.ends, first)
    prefix = lay.prefix(relevant)
    r = lay.at(prefix, end) - lay.at(prefix, start)
    n, c, t = lay.f(end - start), lay.f(start), lay.f(lay.cols)
    factors = xp.where(t < n, xp.maximum(n - r - t, 0.0) / xp.maximum(n - t, 1.0), 1.0)
    none_yet = _cumulative_product(xp, factors)[:, :-1]  # Q(i - 1) for i = 1, 2, ...
    i = t + 1.0
    chance = xp.where(i <= n, none_yet * r / xp.maximum(n - i + 1.0, 1.0), 0.0)
    inside = (c + i) <= float(_cut(lay, k))
    return xp.where(found, xp.sum(xp.where(inside, chance / (c + i), 0.0), axis=1), 0.0)


# --------------------------------------------------------------------------- graded


def _gain(lay: _Layout, labels, gain):
    """g(label): the label, 2**label - 1, or a mapping label -> gain (other labels keep
    their own value, as trec_eval's gain parameters)."""
    xp = lay.xp
    if isinstance(gain, str):
        return labels if gain == "linear" else 2.0 ** labels - 1.0
    pairs = sorted((float(key), float(value)) for key, value in dict(gain).items())
    if not pairs:
        return labels
    keys = lay.constant([key for key, _ in pairs])
    values = lay.constant([value for _, value in pairs])
    flat = xp.reshape(labels, (-1,))
    index = xp.minimum(xp.searchsorted(keys, flat), len(pairs) - 1)
    mapped = xp.where(xp.take(keys, index) == flat, xp.take(values, index), flat)
    return xp.reshape(mapped, labels.shape)


def _ranked_gains(lay: _Layout, gain, k):
    gains = lay.xp.where(lay.shown, _gain(lay, lay.labels, gain), 0.0)
    return _expected(lay, gains, k)


def _ideal_gains(lay: _Layout, gain, k):
    """Every row's gain in the best order (positive gains only, as trec_eval's ideal)."""
    gains = lay.xp.where(lay.valid, lay.xp.maximum(_gain(lay, lay.labels, gain), 0.0), 0.0)
    return lay.xp.sort(gains, axis=1, descending=True)[:, :_cut(lay, k)]


def _discounted(lay: _Layout, gains, params):
    """sum_i gains_i / log_b(i + 1), or times Jarvelin & Kekalainen's weights."""
    width, base = gains.shape[1], float(params.get("base", 2.0))
    if params.get("discount", "log2") == "jk":
        return lay.xp.sum(gains * lay.constant(jk_discounts(width, base)), axis=1)
    return lay.xp.sum(gains / lay.constant(log_ranks(width, base)), axis=1)


def _cumulative_gain(lay: _Layout, k, params, rel):
    return lay.xp.sum(_ranked_gains(lay, params.get("gain", "linear"), k), axis=1)


def _dcg(lay: _Layout, k, params, rel):
    return _discounted(lay, _ranked_gains(lay, params.get("gain", "linear"), k), params)


def _ndcg(lay: _Layout, k, params, rel):
    gain = params.get("gain", "linear")
    ideal = _discounted(lay, _ideal_gains(lay, gain, k), params)
    ratio = _ratio(lay.xp, _discounted(lay, _ranked_gains(lay, gain, k), params), ideal)
    no_relevant = float(params.get("no_relevant", 0.0))
    return ratio if no_relevant == 0 else lay.xp.where(ideal > 0, ratio, lay.xp.full_like(ratio, no_relevant))


def _rbp(lay: _Layout, k, params, rel):
    """(1 - p) sum_i r_i p**(i - 1): binary r_i at ``rel``, or label / max_grade
    (``"query"``: each query's largest label when above 1)."""
    xp = lay.xp
    p, max_grade = float(params.get("p", 0.8)), params.get("max_grade")
    if max_grade is None:
        values = _relevant(lay, _rel(params, rel))
    elif max_grade == "query":
        top = xp.max(lay.labels, axis=1, keepdims=True)
        values = lay.ranked / xp.where(top > 1.0, top, 1.0)
    else:
        values = lay.ranked / float(max_grade)
    values = _expected(lay, values, k)
    return (1.0 - p) * xp.sum(values * lay.constant(powers(p, values.shape[1])), axis=1)


def _err(lay: _Layout, k, params, rel):
    """Expected reciprocal rank (Chapelle et al. 2009): sum_i p**(i - 1) / i R_i
    prod_{j < i} (1 - R_j), R_i = (2**label_i - 1) / 2**max_grade; max_grade by default the
    largest label of the data. Not linear in the labels: refused on tied scores with
    ``ties="average"``, as the NumPy path refuses it."""
    xp = lay.xp
    if lay.average and bool(xp.any(lay.ends - lay.starts > 1)):
        raise ValueError("ERR does not support ties='average' when scores tie (it is not linear in the labels); "
                         "pass ties='pessimistic' or 'optimistic'")
    top = params.get("max_grade")
    if top is None:
        top = xp.max(lay.labels)
        top = xp.where(top > 0, top, 1.0)
    stop = (2.0 ** lay.ranked[:, :_cut(lay, k)] - 1.0) / 2.0 ** top
    reach = _cumulative_product(xp, 1.0 - stop)[:, :-1]
    width = stop.shape[1]
    weights = lay.constant(powers(float(params.get("p", 1.0)), width)) / (lay.f(lay.cols[:, :width]) + 1.0)
    return xp.sum(stop * reach * weights, axis=1)


# --------------------------------------------------------------------------- model scores


def _mann_whitney(lay: _Layout, rel: float):
    """Per query, U (positive-negative pairs with the positive ranked higher, a pair in one
    tie group 1/2) and the number of such pairs, from the prefix counts of negatives along
    the ranking. Without ``ties="average"`` the tie-broken order decides every pair."""
    xp = lay.xp
    positive = lay.valid & (lay.labels >= rel)
    negative = lay.f(lay.valid & ~positive)
    prefix = lay.prefix(negative)
    below = lay.through(prefix)
    tied = below - lay.before(prefix)
    n_neg = xp.sum(negative, axis=1)
    u = xp.sum(xp.where(positive, (xp.reshape(n_neg, (-1, 1)) - below) + 0.5 * tied, 0.0), axis=1)
    return u, xp.sum(lay.f(positive), axis=1) * n_neg


def _auc(lay: _Layout, k, params, rel):
    u, pairs = _mann_whitney(lay, _rel(params, rel))
    xp = lay.xp
    return xp.where(pairs > 0, u / xp.where(pairs > 0, pairs, 1.0), xp.nan)


def _pair_counts(lay: _Layout):
    """Per query: concordant and discordant pairs of the ranking (a pair in one tie group,
    different labels, 1/2 each) and pairs of equal labels. Few distinct labels: prefix counts per label value
    along the score order; many: every pair of a block of queries compared at once."""
    xp = lay.xp
    values = xp.unique_values(xp.where(lay.valid, lay.labels, lay.labels[0:1, 0:1]))
    if values.shape[0] > lay.depth:
        return _pair_counts_broadcast(lay)
    zero = xp.zeros(lay.n_queries, dtype=lay.dtype, device=lay.device)
    concordant, discordant, equal = zero, zero, zero
    same = xp.zeros(lay.labels.shape, dtype=lay.dtype, device=lay.device)
    for index in range(values.shape[0]):  # one pass per label value, all queries at once
        value = values[index]
        has = lay.valid & (lay.labels == value)
        prefix = lay.prefix(has)
        above = lay.before(prefix)  # documents of this label ranked higher
        concordant = concordant + xp.sum(xp.where(lay.valid & (lay.labels < value), above, 0.0), axis=1)
        discordant = discordant + xp.sum(xp.where(lay.valid & (lay.labels > value), above, 0.0), axis=1)
        in_group = lay.through(prefix) - above
        same = xp.where(has, in_group, same)
        n_value = prefix[:, -1]
        equal = equal + n_value * (n_value - 1.0) / 2.0
    size = lay.f(lay.ends - lay.starts)
    half = xp.sum(xp.where(lay.valid, size - same, 0.0), axis=1) / 4.0  # each tied pair seen twice, 1/2 each
    return concordant + half, discordant + half, equal


def _pair_counts_broadcast(lay: _Layout):
    """:func:`_pair_counts` by comparing every pair, a block of queries at a time."""
    xp = lay.xp
    rows = max(1, _PAIR_CELLS // max(lay.depth * lay.depth, 1))
    parts: list[tuple[Any, Any, Any]] = []
    for start in range(0, lay.n_queries, rows):  # blocks of queries, not one query at a time
        block = slice(start, min(start + rows, lay.n_queries))
        labels, valid = lay.labels[block, :], lay.valid[block, :]
        scores = -lay.f(lay.starts[block, :])  # the rank of the tie group: equal within a group
        pair = valid[:, :, None] & valid[:, None, :]
        higher = pair & (labels[:, :, None] > labels[:, None, :])
        d_score = scores[:, :, None] - scores[:, None, :]
        tied = lay.f(higher & (d_score == 0.0))
        concordant = xp.sum(lay.f(higher & (d_score > 0.0)) + 0.5 * tied, axis=(1, 2))
        discordant = xp.sum(lay.f(higher & (d_score < 0.0)) + 0.5 * tied, axis=(1, 2))
        n = xp.sum(lay.f(valid), axis=1)
        equal = (xp.sum(lay.f(pair & (labels[:, :, None] == labels[:, None, :])), axis=(1, 2)) - n) / 2.0
        parts.append((concordant, discordant, equal))
    return tuple(xp.concat([part[i] for part in parts]) for i in range(3))


def _pnr(lay: _Layout, k, params, rel):
    concordant, discordant, equal = lay.pair_counts
    if params.get("label_ties", "ignore") == "concordant":
        concordant = concordant + equal
    return _pnr_ratio(lay.xp, concordant, discordant)


def _pnr_ratio(xp, concordant, discordant):
    """C / D: inf when D = 0 < C, nan when both are 0."""
    safe = xp.where(discordant > 0, discordant, 1.0)
    ratio = xp.where(discordant > 0, concordant / safe, xp.inf)
    return xp.where((discordant > 0) | (concordant > 0), ratio, xp.nan)


def _errors(lay: _Layout, power: int):
    """Per query, the sum of |label - score|**power over its rows."""
    error = lay.xp.abs(lay.labels - lay.scores)
    if power == 2:
        error = error * error
    return lay.xp.sum(lay.xp.where(lay.valid, error, 0.0), axis=1)


def _mse(lay: _Layout, k, params, rel):
    return _errors(lay, 2) / lay.f(lay.counts)


def _mae(lay: _Layout, k, params, rel):
    return _errors(lay, 1) / lay.f(lay.counts)


# --------------------------------------------------------------------------- aggregates


def _pooled_auc(lay: _Layout, rel: float):
    """The AUC of every row of every query at once: one ranking of all the scores, tied
    pairs 1/2 (``ties="average"``) or ordered as the tie policy orders them."""
    xp = lay.xp
    scores = lay.scores[lay.valid]
    labels = lay.labels[lay.valid]
    order = xp.argsort(-labels if lay.policy == "pessimistic" else labels, stable=True)
    order = xp.take(order, xp.argsort(xp.take(scores, order), stable=True))  # ascending: the lowest first
    scores, positive = xp.take(scores, order), xp.take(labels, order) >= rel
    if lay.average:
        change = xp.concat([xp.ones(1, dtype=xp.bool, device=lay.device), scores[1:] != scores[:-1]])
    else:
        change = xp.ones(scores.shape, dtype=xp.bool, device=lay.device)
    starts, ends = _groups(xp, xp.reshape(change, (1, -1)), 1, scores.shape[0], lay.device)
    negatives = xp.cumulative_sum(xp.astype(~positive, starts.dtype), include_initial=True)
    below, through = xp.take(negatives, starts[0, :]), xp.take(negatives, ends[0, :])
    u = xp.sum(xp.where(positive, lay.f(below) + 0.5 * lay.f(through - below), 0.0))
    n_pos = xp.sum(lay.f(positive))
    pairs = n_pos * (float(positive.shape[0]) - n_pos)
    return xp.where(pairs > 0, u / xp.where(pairs > 0, pairs, 1.0), xp.nan)


def _gauc_weights(lay: _Layout, weights, rel: float):
    """One weight per query: its rows, 1, its positives, its (positive, negative) pairs, or given."""
    xp = lay.xp
    if not isinstance(weights, str):  # one per query, in the order of the sorted ids
        w = xp.asarray(weights, dtype=lay.dtype, device=lay.device)
        if tuple(w.shape) != (lay.n_queries,):
            raise ValueError(f"weights must hold one number per query ({lay.n_queries}), got shape {tuple(w.shape)}")
        if not bool(xp.all(xp.isfinite(w) & (w >= 0))):
            raise ValueError("weights must be finite and non-negative")
        return w
    if weights == "rows":
        return lay.f(lay.counts)
    if weights == "queries":
        return xp.ones(lay.n_queries, dtype=lay.dtype, device=lay.device)
    u, pairs = _mann_whitney(lay, rel)
    if weights == "pairs":
        return pairs
    return xp.sum(lay.f(lay.valid & (lay.labels >= rel)), axis=1)


def _aggregate(lay: _Layout, name: str, values, params: dict, rel: float, weights):
    """The ``all`` value of one metric: as its record says (see :class:`~rankkit.names.MetricInfo`)."""
    xp = lay.xp
    if name == "AUC":
        return _pooled_auc(lay, _rel(params, rel))
    if name in ("MSE", "MAE"):
        return xp.sum(_errors(lay, 2 if name == "MSE" else 1)) / lay.f(xp.sum(lay.counts))
    if name == "PNR":
        concordant, discordant, equal = lay.pair_counts
        if params.get("label_ties", "ignore") == "concordant":
            concordant = concordant + equal
        return _pnr_ratio(xp, xp.sum(concordant), xp.sum(discordant))
    if name == "GAUC":
        w = _gauc_weights(lay, params.get("weights", weights), _rel(params, rel))
        w = xp.where(xp.isnan(values), 0.0, w)
        total = xp.sum(w)
        mean = xp.sum(xp.where(w > 0, w * xp.where(xp.isnan(values), 0.0, values), 0.0))
        return xp.where(total > 0, mean / xp.where(total > 0, total, 1.0), xp.nan)
    return xp.mean(values)


#: Registry name -> its kernel ``(layout, k, params, rel) -> one value per query``.
_KERNELS = {
    "P": _precision, "R": _recall, "success": _success, "AP": _average_precision, "RR": _reciprocal_rank,
    "CG": _cumulative_gain, "DCG": _dcg, "nDCG": _ndcg, "RBP": _rbp, "ERR": _err,
    "fallout": _fallout, "LRAP": _lrap,
    "AUC": _auc, "GAUC": _auc, "PNR": _pnr, "MSE": _mse, "MAE": _mae,
}


#: The parameters each kernel reads (``judged_only`` changes nothing: every row is judged).
_PARAMS = {
    "P": {"rel"}, "R": {"rel"}, "success": {"rel"}, "AP": {"rel", "normalize", "tied"}, "RR": {"rel"},
    "CG": {"gain"}, "DCG": {"gain", "discount", "base"}, "nDCG": {"gain", "discount", "base", "no_relevant"},
    "RBP": {"p", "rel", "max_grade"}, "ERR": {"p", "max_grade"}, "AUC": {"rel"}, "GAUC": {"weights", "rel"},
    "PNR": {"label_ties"}, "MSE": set(), "MAE": set(), "fallout": {"rel"}, "LRAP": {"rel"},
}


def _check_supported(metrics) -> None:
    """Refuse, before any work, a metric (or a parameter) this path does not compute."""
    for metric in metrics:
        if metric.name not in _KERNELS:
            raise ValueError(
                f"metric {metric} is not computed on arrays other than NumPy's; supported there: "
                f"{', '.join(SUPPORTED)} (pass NumPy arrays for every other metric)")
        unknown = set(metric.kwargs) - _PARAMS[metric.name] - {"judged_only"}
        if unknown:
            raise ValueError(f"metric {metric}: parameter(s) {', '.join(sorted(unknown))} not computed on arrays "
                             "other than NumPy's (pass NumPy arrays)")


def score_arrays(xp, labels, scores, query, metrics, *, ties: str = "average", rel: float = 1,
                 weights: Any = "rows", retrieved: str = "all"):
    """Every metric per query on the arrays of one array-API library, on their device.

    The inputs come checked by ``evaluate_scores`` (same lengths, finite scores, labels
    >= 0, integer query ids); the metric specs come parsed.

    Parameters
    ----------
    xp : namespace
        ``array_api_compat.array_namespace(labels, scores)``.
    labels, scores : arrays of shape (n,)
        One row per document, rows of a query in any order.
    query : array of shape (n,) or None
        Query id of each row (integers); None: one query.
    metrics : list of rankkit.names.Metric
        Parsed specs; each must be one of :data:`SUPPORTED`.
    ties : {"average", "pessimistic", "optimistic"}
        Tied scores: the expected value over all their orders, or ordered by label
        ascending (pessimistic) or descending (optimistic).
    rel : float
        Label >= rel is relevant, for every spec that does not set its own ``rel``.
    weights : str or array of shape (n_queries,)
        GAUC's weights (a spec's own ``weights=`` wins).
    retrieved : {"all", "positive"}
        ``"positive"``: a row with a score of 0 or less keeps its rank but counts as not
        relevant in the ranking (torchmetrics' retrieval metrics); the ideal ranking and
        R still count it.

    Returns
    -------
    query_ids : array of shape (n_queries,)
        The distinct query ids, sorted.
    values : dict of str to array of shape (n_queries,)
        Per metric spec (``str(metric)``), one value per query.
    all : dict of str to 0-d array
        Per metric spec, its aggregate.
    n_rows : array of shape (n_queries,)
        Each query's number of rows.

    Examples
    --------
    On array_api_compat's namespace of NumPy (any array-API library works alike):

    >>> import array_api_compat.numpy as xp
    >>> from rankkit.names import parse_metric
    >>> ids, values, all_, n_rows = score_arrays(
    ...     xp, xp.asarray([2, 0, 1, 0, 1]), xp.asarray([0.9, 0.8, 0.8, 0.3, 0.2]),
    ...     xp.asarray([7, 7, 7, 3, 3]), [parse_metric("nDCG@2"), parse_metric("AUC")])
    >>> [round(float(v), 4) for v in values["nDCG@2"]], [float(v) for v in values["AUC"]]
    ([0.6309, 0.8801], [0.0, 0.75])
    >>> ids.tolist(), n_rows.tolist()
    ([3, 7], [2, 3])
    """
    _check_supported(metrics)
    query_ids, lay = _layout(xp, labels, scores, query, ties, retrieved)
    values, totals = {}, {}
    for metric in metrics:  # a handful of specs, each over all queries at once
        params = metric.kwargs
        column = str(metric)
        values[column] = _KERNELS[metric.name](lay, metric.k, params, rel)
        totals[column] = _aggregate(lay, metric.name, values[column], params, rel, weights)
    return query_ids, values, totals, lay.counts
