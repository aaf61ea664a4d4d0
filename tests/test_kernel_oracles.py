"""The metric kernels and their shared primitives against independent oracles, on NumPy and
on array-api-strict.

Written for mutation testing (``make mutation``, benchmarks/MUTATION.md): every kernel of
:mod:`rankkit.metrics.binary` and :mod:`rankkit.metrics.pairwise` that runs on any array
library, and every primitive of :mod:`rankkit.ops.primitives` and :mod:`rankkit.ops.pairs`,
is compared with a value that owes nothing to rankkit's code:

- pure-Python definitions written below (P@k, R@k, success, AP@k under each
  normalization, RR@k, fall-out, the pairs of a list), applied to every order of the tied
  documents (a brute-force expectation over all orders of every tie group);
- scikit-learn's ``roc_auc_score`` and ``average_precision_score`` where their convention
  is the one asked for (AUC with average ranks; AP with ``tied="group_end"``);
- hand-computed numbers for the cases that have one;
- brute-force loops for the primitives (run bounds, tie groups, gathers, inversions).

Every kernel runs on a :class:`rankkit.Rankings` built by hand, with tie groups, unjudged
documents, judged documents left out of the ranking and rows of several lengths, and on the
same Rankings whose arrays are array-api-strict's.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import operator
from decimal import Decimal, getcontext

import numpy as np
import pandas as pd
import pytest

from rankkit import Rankings
from rankkit.metrics import binary, pairwise
from rankkit.ops import pairs
from rankkit.ops import primitives as P

xs = pytest.importorskip("array_api_strict")

EXACT = dict(rtol=1e-12, atol=1e-12)
#: NumPy; array-api-strict on its default device; array-api-strict on another of its devices
#: (which refuses to mix with the default device and to be read by NumPy: the data must stay
#: on its device through every kernel).
BACKENDS = ("numpy", "strict", "device1")
CPU, DEVICE1 = xs.Device("CPU_DEVICE"), xs.Device("device1")


# --------------------------------------------------------------------------- building rankings


def host(x):
    """A NumPy copy of an array of either library (or a Python float), for the assertions."""
    if isinstance(x, (float, int)):
        return np.asarray(x, dtype=np.float64)
    if type(x).__module__.startswith("array_api_strict"):
        return np.from_dlpack(x.to_device(CPU))
    return np.asarray(x)


def converter(backend):
    """NumPy array -> an array of the backend's library and device."""
    if backend == "numpy":
        return lambda a: a
    device = DEVICE1 if backend == "device1" else CPU
    return lambda a: xs.asarray(a, device=device)


def build(rows, groups=None, judged=None, extra=None):
    """A NumPy Rankings from labels in rank order (ragged rows).

    ``groups``: per row the sizes of its consecutive tie groups (None: no tie groups);
    ``judged``: per row a flag per rank (None: all judged; an unjudged rank has label 0);
    ``extra``: per row the labels of judged documents the ranking did not retrieve.
    """
    n = len(rows)
    lengths = np.array([len(r) for r in rows], dtype=np.int64)
    depth = max(1, int(lengths.max()))
    labels = np.zeros((n, depth))
    judged_m = np.zeros((n, depth), dtype=bool)
    pool = []
    for q, row in enumerate(rows):
        flags = [True] * len(row) if judged is None else judged[q]
        for j, (label, flag) in enumerate(zip(row, flags)):
            labels[q, j] = label if flag else 0.0
            judged_m[q, j] = flag
        pool.append([label for label, flag in zip(row, flags) if flag] + list(extra[q] if extra else []))
    n_judged = np.array([len(p) for p in pool], dtype=np.int64)
    ideal = np.zeros((n, max(1, int(n_judged.max()))))
    for q, p in enumerate(pool):
        ideal[q, :len(p)] = sorted(p, reverse=True)
    ties = None
    if groups is not None:
        ties = np.arange(n * depth, dtype=np.int64).reshape(n, depth)  # padding: a group each
        for q, sizes in enumerate(groups):
            assert sum(sizes) == len(rows[q])
            col = 0
            for size in sizes:
                ties[q, col:col + size] = q * depth + col
                col += size
    return Rankings(labels=labels, judged=judged_m, lengths=lengths, ideal=ideal, n_judged=n_judged,
                    query_ids=pd.RangeIndex(n), ties=ties)


def strict(r: Rankings, device=CPU, dtype=None) -> Rankings:
    """The same rankings with every array field an array-api-strict array (on ``device``;
    labels and ideal in ``dtype``)."""
    def move(a, float_dtype=None):
        return None if a is None else xs.asarray(a, device=device, dtype=float_dtype)

    return Rankings(labels=move(r.labels, dtype), judged=move(r.judged), lengths=move(r.lengths),
                    ideal=move(r.ideal, dtype), n_judged=move(r.n_judged), query_ids=r.query_ids,
                    ties=move(r.ties))


def on(backend, r):
    """``r`` on the backend: always a new Rankings, so that nothing a kernel derived and
    kept on an earlier one (``Rankings.derived``) is reused."""
    if backend == "numpy":
        return dataclasses.replace(r)
    return strict(r, DEVICE1 if backend == "device1" else CPU)


def check_library(backend, value):
    """The value is of the input's library, on the input's device."""
    if backend == "numpy":
        assert isinstance(value, np.ndarray)
    else:
        assert type(value).__module__.startswith("array_api_strict")
        assert value.device == (DEVICE1 if backend == "device1" else CPU)


# --------------------------------------------------------------------------- the metrics by hand

# Each takes one ranked list of (label, judged) documents and the query's judged counts.


def _top(docs, k):
    return docs if k is None else docs[:k]


def ref_precision(docs, R, N, k=None, rel=1):
    denominator = len(docs) if k is None else k
    return sum(lab >= rel for lab, _ in _top(docs, k)) / denominator if denominator else 0.0


def ref_recall(docs, R, N, k=None, rel=1):
    return sum(lab >= rel for lab, _ in _top(docs, k)) / R if R else 0.0


def ref_success(docs, R, N, k=None, rel=1):
    return float(any(lab >= rel for lab, _ in _top(docs, k)))


def ref_ap(docs, R, N, k=None, rel=1, normalize="relevant"):
    hits, total = 0, 0.0
    for i, (lab, _) in enumerate(_top(docs, k), start=1):
        if lab >= rel:
            hits += 1
            total += hits / i
    if normalize == "relevant":
        d = R
    elif normalize == "retrieved":
        d = hits
    else:
        d = R if k is None else min(R, k)
    return total / d if d else 0.0


def ref_rr(docs, R, N, k=None, rel=1):
    for i, (lab, _) in enumerate(_top(docs, k), start=1):
        if lab >= rel:
            return 1.0 / i
    return 0.0


def ref_fallout(docs, R, N, k=None, rel=1):
    return sum(flag and lab < rel for lab, flag in _top(docs, k)) / N if N else 0.0


def orders(docs, sizes):
    """Every order of the documents that keeps each tie group in its place."""
    blocks, col = [], 0
    for size in sizes:
        blocks.append(docs[col:col + size])
        col += size
    for combo in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [d for block in combo for d in block]


def expectation(f, docs, sizes):
    """The mean of f over every order of the tie groups (each group's n! orders)."""
    values = [f(order) for order in orders(docs, sizes)]
    return sum(values) / len(values)


# --------------------------------------------------------------------------- the data


def _cases():
    """Rows with tie groups, unjudged documents and judged documents not retrieved."""
    rows = [
        [1, 0, 1, 0, 0, 1],          # relevant spread over three groups
        [0, 0, 2, 1, 0],             # the first relevant inside a group
        [0, 0, 0, 0],                # no relevant document
        [2, 1, 1],                   # all relevant, one group
        [0, 1],                      # a group of two
        [1],                         # one document
        [0, 0, 0, 1, 0, 1, 0],       # relevant deep in a big group
    ]
    groups = [[2, 3, 1], [1, 3, 1], [4], [3], [2], [1], [2, 4, 1]]
    judged = [
        [True, True, True, False, True, True],
        [True, False, True, True, True],
        [True, True, False, True],
        [True, True, True],
        [True, True],
        [True],
        [True, True, True, True, False, True, True],
    ]
    extra = [[1, 0], [], [0, 0, 2], [0], [1], [0], [1, 0, 0]]
    return rows, groups, judged, extra


ROWS, GROUPS, JUDGED, EXTRA = _cases()
TIED = build(ROWS, GROUPS, JUDGED, EXTRA)
PLAIN = build(ROWS, None, JUDGED, EXTRA)
SINGLETONS = [[1] * len(row) for row in ROWS]


_MEMO: dict = {}


def memo(key, compute):
    """One computation of an oracle for every backend that is compared with it."""
    if key not in _MEMO:
        _MEMO[key] = compute()
    return _MEMO[key]


def expected_values(f, groups, rel=1, **options):
    """f over every order of each row's tie groups, with the row's judged counts."""
    out = []
    for q, row in enumerate(ROWS):
        docs = [(lab if flag else 0, flag) for lab, flag in zip(row, JUDGED[q])]
        pool = [lab for lab, _ in docs if _] + EXTRA[q]
        R = sum(lab >= rel for lab in pool)
        N = len(pool) - R
        out.append(expectation(lambda order, R=R, N=N: f(order, R, N, rel=rel, **options), docs, groups[q]))
    return np.array(out)


CUTOFFS = (None, 1, 2, 3, 5, 7, 20)


# --------------------------------------------------------------------------- binary kernels


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("k", CUTOFFS)
@pytest.mark.parametrize("metric, ref", [
    (binary.precision, ref_precision), (binary.recall, ref_recall), (binary.success, ref_success),
    (binary.reciprocal_rank, ref_rr), (binary.fallout, ref_fallout),
    (binary.average_precision, ref_ap),
])
def test_binary_kernels_are_the_expectation_over_every_order_of_the_ties(metric, ref, k, tied, backend):
    r = on(backend, TIED if tied else PLAIN)
    got = metric(r, k=k)
    check_library(backend, got)
    want = memo((ref.__name__, k, tied), lambda: expected_values(
        lambda docs, R, N, rel: ref(docs, R, N, k=k, rel=rel), GROUPS if tied else SINGLETONS))
    np.testing.assert_allclose(host(got), want, **EXACT)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rel", [2, 0.5])
@pytest.mark.parametrize("metric, ref", [
    (binary.precision, ref_precision), (binary.recall, ref_recall), (binary.success, ref_success),
    (binary.reciprocal_rank, ref_rr), (binary.fallout, ref_fallout), (binary.average_precision, ref_ap),
])
def test_the_relevance_threshold(metric, ref, rel, backend):
    for tied, groups in ((TIED, GROUPS), (PLAIN, SINGLETONS)):
        got = metric(on(backend, tied), k=3, rel=rel)
        want = expected_values(lambda docs, R, N, rel: ref(docs, R, N, k=3, rel=rel), groups, rel=rel)
        np.testing.assert_allclose(host(got), want, **EXACT)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("normalize", ["relevant", "retrieved", "min_k"])
@pytest.mark.parametrize("k", CUTOFFS)
def test_average_precision_normalizations(normalize, k, backend):
    for r, groups in ((PLAIN, SINGLETONS), (TIED, GROUPS)):
        if r.ties is not None and normalize == "retrieved" and k is not None:
            with pytest.raises(ValueError, match="normalize='retrieved' takes no cutoff k"):
                binary.average_precision(on(backend, r), k=k, normalize=normalize)
            continue
        got = binary.average_precision(on(backend, r), k=k, normalize=normalize)
        if r.ties is not None and normalize == "retrieved":
            # E[sum of precisions] / (the relevant documents retrieved, the same in every order)
            want = expected_values(lambda d, R, N, rel: ref_ap(d, R, N, rel=rel, normalize="relevant") * R, groups)
            found = np.array([sum(lab >= 1 for lab, f in zip(row, JUDGED[q]) if f) for q, row in enumerate(ROWS)])
            want = np.divide(want, found, out=np.zeros_like(want), where=found > 0)
        else:
            want = expected_values(lambda d, R, N, rel: ref_ap(d, R, N, k=k, rel=rel, normalize=normalize), groups)
        np.testing.assert_allclose(host(got), want, **EXACT)


def test_average_precision_by_hand():
    # relevant at ranks 1, 3, 4 of the top 5, R = 4: (1 + 2/3 + 3/4) / 4, / 3 retrieved, / min(4, 5)
    assert binary.average_precision([1, 0, 1, 1, 0, 0, 1], k=5) == pytest.approx((1 + 2 / 3 + 3 / 4) / 4)
    assert binary.average_precision([1, 0, 1, 1, 0, 0, 1], k=5, normalize="retrieved") == pytest.approx(
        (1 + 2 / 3 + 3 / 4) / 3)
    # min_k with k below R: ml_metrics.apk divides by k
    assert binary.average_precision([1, 1, 0, 1], k=2, normalize="min_k") == pytest.approx(1.0)
    assert binary.average_precision([1, 0, 1, 1], k=2, normalize="min_k") == pytest.approx(0.5)
    # two tied at the top, one relevant: orders [1, 0] and [0, 1], AP 1 and 1/2
    r = build([[1, 0]], [[2]])
    for backend in BACKENDS:
        assert host(binary.average_precision(on(backend, r)))[0] == pytest.approx(0.75)
        assert host(binary.average_precision(on(backend, r), tied="group_end"))[0] == pytest.approx(0.5)
        # a relevant document at the top, then a group of three holding one relevant document
        t = on(backend, build([[1, 1, 0, 0]], [[1, 3]]))
        # E[P at the second relevant] = (1/3)(2/2) + (1/3)(2/3) + (1/3)(2/4)
        assert host(binary.average_precision(t))[0] == pytest.approx((1 + (1 + 2 / 3 + 1 / 2) / 3) / 2)
        assert host(binary.reciprocal_rank(t))[0] == 1.0


def _sklearn_ap(row, sizes):
    from sklearn.metrics import average_precision_score

    y = [lab >= 1 for lab in row]
    score = [-g for g, size in enumerate(sizes) for _ in range(size)]  # one score per tie group
    return average_precision_score(y, score) if any(y) else 0.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_group_end_average_precision_is_sklearns(backend):
    rows = [[1, 0, 1, 0, 0, 1], [0, 0, 2, 1, 0], [2, 1, 1], [0, 1], [1], [0, 0, 0, 1, 0, 1, 0], [1, 1, 0, 0, 1]]
    groups = [[2, 3, 1], [1, 3, 1], [3], [2], [1], [2, 4, 1], [1, 1, 3]]
    r = on(backend, build(rows, groups))
    got = host(binary.average_precision(r, tied="group_end"))
    np.testing.assert_allclose(got, [_sklearn_ap(row, g) for row, g in zip(rows, groups)], **EXACT)
    # without tie groups both rules are the expected AP
    plain = on(backend, build(rows))
    np.testing.assert_allclose(host(binary.average_precision(plain, tied="group_end")),
                               host(binary.average_precision(plain)), **EXACT)


@pytest.mark.parametrize("backend", BACKENDS)
def test_group_end_average_precision_cut_inside_a_group_by_hand(backend):
    # groups [1 | 1, 0, 1, 0 | 1], R = 4: the first counts 1 at rank 1; the group of four,
    # h = 1 above it, holds 2 relevant of 4 documents.
    r = on(backend, build([[1, 1, 0, 1, 0, 1]], [[1, 4, 1]]))
    # k = 3: 2 of its ranks above the cut, x = 2 * 2 / 4 = 1 relevant, at precision (1 + 1) / 3
    k3 = (1 + 1 * (1 + 1) / 3) / 4
    # k = 5: the group ends inside the top k: 2 relevant at precision (1 + 2) / 5
    k5 = (1 + 2 * 3 / 5) / 4
    # k = 6 (the depth) and beyond: the last group adds 1 at precision 4 / 6
    k6 = (1 + 2 * 3 / 5 + 4 / 6) / 4
    for k, want in ((3, k3), (5, k5), (6, k6), (9, k6), (None, k6), (1, 1 / 4)):
        assert host(binary.average_precision(r, k=k, tied="group_end"))[0] == pytest.approx(want, rel=1e-12), k


@pytest.mark.parametrize("backend", BACKENDS)
def test_success_straddling_group_is_hypergeometric(backend):
    # a group of 5 documents with 2 relevant from rank 2 on; k = 3 keeps 2 of its positions:
    # P(none of the 2 relevant there) = C(3, 2) / C(5, 2) = 3 / 10
    r = on(backend, build([[0, 1, 0, 1, 0, 0], [1, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 0]], [[1, 5], [1, 5], [6]]))
    got = host(binary.success(r, k=3))
    np.testing.assert_allclose(got, [1 - 3 / 10, 1.0, 0.0], **EXACT)
    # a group wider than the cut, all its documents relevant: success is certain
    full = on(backend, build([[0, 1, 1, 1]], [[1, 3]]))
    assert host(binary.success(full, k=2))[0] == 1.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_reciprocal_rank_by_hand(backend):
    r = on(backend, build([[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]]))
    np.testing.assert_allclose(host(binary.reciprocal_rank(r)), [0.5, 1.0, 1 / 3, 0.0], **EXACT)
    np.testing.assert_allclose(host(binary.reciprocal_rank(r, k=2)), [0.5, 1.0, 0.0, 0.0], **EXACT)
    # tied: a group of 3 with 1 relevant below one non-relevant document, E[1 / rank] = (1/2 + 1/3 + 1/4) / 3
    t = on(backend, build([[0, 0, 1, 0]], [[1, 3]]))
    assert host(binary.reciprocal_rank(t))[0] == pytest.approx((1 / 2 + 1 / 3 + 1 / 4) / 3)
    assert host(binary.reciprocal_rank(t, k=3))[0] == pytest.approx((1 / 2 + 1 / 3) / 3)


def test_reciprocal_rank_of_an_empty_cutoff_and_empty_rankings():
    empty = Rankings(labels=np.zeros((2, 0)), judged=np.zeros((2, 0), bool), lengths=np.zeros(2, np.int64),
                     ideal=np.zeros((2, 1)), n_judged=np.zeros(2, np.int64), query_ids=pd.RangeIndex(2))
    for backend in BACKENDS:
        got = binary.reciprocal_rank(on(backend, empty))
        check_library(backend, got)
        np.testing.assert_array_equal(host(got), [0.0, 0.0])
        np.testing.assert_array_equal(host(binary.precision(on(backend, empty))), [0.0, 0.0])


def test_precision_recall_fallout_overrides_and_scalars():
    assert binary.precision([1, 0, 1, 0, 1, 1, 0], k=5) == pytest.approx(0.6)
    assert binary.precision([1, 0], k=4) == 0.25
    assert binary.precision([1, 0, 1]) == pytest.approx(2 / 3)
    assert binary.recall([1, 0, 1, 0, 1], k=5, n_relevant=4) == 0.75
    assert binary.recall([1, 0, 1, 0, 1], k=2, n_relevant=[4]) == 0.25
    np.testing.assert_allclose(binary.fallout([[0, 1, 0, 1], [1, 1]], k=1, n_nonrelevant=[4, 2]), [0.25, 0.0])
    assert binary.fallout([1, 0, 1], k=2) == 1.0
    assert binary.fallout([1, 0, 0, 1], n_nonrelevant=5) == pytest.approx(2 / 5)
    assert binary.fallout([1, 0, 0, 1], n_nonrelevant=2) == 1.0  # equal to the count: allowed
    with pytest.raises(ValueError, match=r"^n_nonrelevant must be at least the number of judged non-relevant labels "
                                         r"in the ranking; query 1 has 2 but n_nonrelevant=1$"):
        binary.fallout([[0], [0, 0]], n_nonrelevant=[1, 1])
    with pytest.raises(ValueError, match=r"n_relevant must be at least"):
        binary.recall([1, 1], n_relevant=1)
    for value in (binary.success([0, 0, 1], k=2), binary.reciprocal_rank([0, 1]), binary.average_precision([0, 1])):
        assert isinstance(value, float)
    assert binary.success([0, 0, 1], k=2) == 0.0 and binary.reciprocal_rank([0, 1]) == 0.5


@pytest.mark.parametrize("backend", BACKENDS)
def test_fallout_with_given_n_nonrelevant_on_tied_rankings(backend):
    r = on(backend, TIED)
    n_nonrel = [9, 9, 9, 9, 9, 9, 9]
    got = host(binary.fallout(r, k=3, n_nonrelevant=n_nonrel))
    counts = expected_values(lambda d, R, N, rel: ref_fallout(d, R, 1, k=3, rel=rel), GROUPS)
    np.testing.assert_allclose(got, counts / 9, **EXACT)


def test_private_helpers_by_hand():
    r = build([[1, 0, 1, 1, 0]], [[2, 3]])
    relevant = binary._relevant(r, 1)
    start, size, n_rel, before = binary._tie_groups(r, relevant)
    np.testing.assert_array_equal(start, [[0, 0, 2, 2, 2]])
    np.testing.assert_array_equal(size, [[2, 2, 3, 3, 3]])
    np.testing.assert_array_equal(n_rel, [[1, 1, 2, 2, 2]])
    np.testing.assert_array_equal(before, [[0, 0, 1, 1, 1]])
    np.testing.assert_array_equal(binary._ranks(relevant), [[1, 2, 3, 4, 5]])
    np.testing.assert_array_equal(binary._retrieved(build([[1, 0], [1]])), [[True, True], [True, False]])
    # P(rank j holds the first relevant): the first group, 1 relevant of 2: 1/2 and 1/2
    np.testing.assert_allclose(binary._expected_first_relevant(r, relevant), [[0.5, 0.5, 0, 0, 0]], **EXACT)
    # E[rel_j P@j]: group 1: (1/2)(0 + 1 + 0)/j; group 2 (r = 2, n = 3, c = 2, h = 1):
    # (2/3)(1 + 1 + (i - 1)(1/2)) / (2 + i)
    want = [0.5, 0.25] + [(2 / 3) * (2 + (i - 1) / 2) / (2 + i) for i in (1, 2, 3)]
    np.testing.assert_allclose(binary._expected_precisions(r, relevant), [want], **EXACT)
    np.testing.assert_array_equal(binary._top(relevant, 2), relevant[:, :2])
    np.testing.assert_array_equal(binary._top(relevant, 9), relevant)
    assert binary._top(relevant, None) is relevant
    np.testing.assert_allclose(binary._hits(r, 1, 3), [1 + 2 / 3], **EXACT)
    np.testing.assert_allclose(binary._hits(build([[1, 0, 1, 1, 0]]), 1, 3), [2.0], **EXACT)


# --------------------------------------------------------------------------- pairs of a list


def ref_pairs(labels, sizes):
    """(concordant, discordant, equal-label) pairs i < j, the expectation over every order of
    the tie groups."""
    def counts(order):
        c = d = t = 0
        for i, j in itertools.combinations(range(len(order)), 2):
            if order[i] > order[j]:
                c += 1
            elif order[i] < order[j]:
                d += 1
            else:
                t += 1
        return np.array([c, d, t], dtype=float)

    values = [counts(order) for order in orders(list(labels), sizes)]
    return sum(values) / len(values)


def ref_pairs_in_groups(labels, sizes):
    """The same expectation pair by pair: a pair inside one tie group with different labels
    is in either order with probability 1/2 (checked against :func:`ref_pairs` below)."""
    group = [g for g, size in enumerate(sizes) for _ in range(size)]
    c = d = t = 0.0
    for i, j in itertools.combinations(range(len(labels)), 2):
        if labels[i] == labels[j]:
            t += 1
        elif group[i] == group[j]:
            c += 0.5
            d += 0.5
        elif labels[i] > labels[j]:
            c += 1
        else:
            d += 1
    return np.array([c, d, t])


def test_the_pair_rule_is_the_expectation_over_orders():
    for row, sizes in [([3, 2, 3, 3, 2, 1], [1, 2, 3]), ([0, 1, 2, 1, 0, 2, 1], [4, 3]), ([1, 0], [2])]:
        np.testing.assert_allclose(ref_pairs_in_groups(row, sizes), ref_pairs(row, sizes), **EXACT)


def ref_pairs_of_scores(labels, scores):
    """The pairs of documents ranked by score: a pair of equal scores and different labels
    counts 1/2 each way."""
    c = d = t = 0.0
    for i, j in itertools.combinations(range(len(labels)), 2):
        if labels[i] == labels[j]:
            t += 1
        elif scores[i] == scores[j]:
            c += 0.5
            d += 0.5
        elif (labels[i] - labels[j]) * (scores[i] - scores[j]) > 0:
            c += 1
        else:
            d += 1
    return np.array([c, d, t])


PAIR_ROWS = [[3, 2, 3, 3, 2, 1], [0, 1, 2, 1, 0], [1, 1, 1], [2], [0, 2, 1, 0, 2, 1, 1]]
PAIR_GROUPS = [[1, 2, 3], [2, 2, 1], [3], [1], [3, 1, 3]]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tied", [False, True])
def test_pair_counts_and_pnr_are_the_expectation_over_the_ties(tied, backend):
    groups = PAIR_GROUPS if tied else [[1] * len(row) for row in PAIR_ROWS]
    r = on(backend, build(PAIR_ROWS, groups if tied else None))
    want = np.array([ref_pairs(row, g) for row, g in zip(PAIR_ROWS, groups)])
    got = pairwise.pair_counts(r)
    check_library(backend, got.concordant)
    np.testing.assert_allclose(np.stack([host(x) for x in got], axis=1), want, **EXACT)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(want[:, 1] > 0, want[:, 0] / want[:, 1], np.where(want[:, 0] > 0, np.inf, np.nan))
        ratio_ties = np.where(want[:, 1] > 0, (want[:, 0] + want[:, 2]) / want[:, 1],
                              np.where(want[:, 0] + want[:, 2] > 0, np.inf, np.nan))
    np.testing.assert_allclose(host(pairwise.pnr(r)), ratio, **EXACT)
    np.testing.assert_allclose(host(pairwise.pnr(r, label_ties="concordant")), ratio_ties, **EXACT)
    total = host(pairwise.pnr_total(r))
    assert float(total) == pytest.approx(want[:, 0].sum() / want[:, 1].sum(), rel=1e-12)
    total = host(pairwise.pnr_total(r, label_ties="concordant"))
    assert float(total) == pytest.approx((want[:, 0] + want[:, 2]).sum() / want[:, 1].sum(), rel=1e-12)
    np.testing.assert_allclose(host(pairwise.inversions(r)), want[:, 1], **EXACT)


def test_pnr_total_is_a_float_on_numpy_and_an_array_elsewhere():
    r = build(PAIR_ROWS)
    assert isinstance(pairwise.pnr_total(r), float)
    assert type(pairwise.pnr_total(strict(r))).__module__.startswith("array_api_strict")
    sorted_rows = build([[2, 1, 0], [1, 0]])
    assert pairwise.pnr_total(sorted_rows) == math.inf
    assert math.isnan(pairwise.pnr_total(build([[1, 1], [0]])))


def test_pair_counts_of_scores_by_hand_and_ragged():
    labels = [[3, 2, 3, 3, 2, 1], [1, 0, 2, 2], [5], [0, 1, 1, 0, 2, 1, 0, 2]]
    scores = [[0.9, 0.8, 0.8, 0.6, 0.5, 0.4], [0.5, 0.5, 0.1, 0.9], [0.3], [3, 1, 1, 2, 1, 3, 0, 2]]
    want = np.array([ref_pairs_of_scores(a, b) for a, b in zip(labels, scores)])
    got = pairwise.pair_counts(labels, scores)
    np.testing.assert_allclose(np.stack(got, axis=1), want, **EXACT)
    np.testing.assert_allclose(pairwise.inversions(labels, scores), want[:, 1], **EXACT)
    assert pairwise.pair_counts([1, 0, 2], scores=[0.5, 0.5, 0.9]) == (2.5, 0.5, 0.0)
    assert pairwise.pair_counts([3, 2, 3, 3, 2, 1]) == (9.0, 2.0, 4.0)
    assert pairwise.pnr([3, 2, 3, 3, 2, 1], label_ties="concordant") == 6.5
    assert pairwise.pnr([3, 2, 3, 3, 2, 1], scores=[0.9, 0.8, 0.8, 0.6, 0.5, 0.4]) == pytest.approx(9.5 / 1.5)
    np.testing.assert_array_equal(pairwise.pnr([[2, 1, 0], [1, 1, 1], [0, 1]]), [np.inf, np.nan, 0.0])
    with pytest.raises(ValueError, match="label_ties"):
        pairwise.pnr([1, 0], label_ties="half")


def _random_scored(rng, n_rows, width, levels, values):
    lengths = rng.integers(1, width + 1, n_rows)
    labels = [list(rng.integers(0, levels, n)) for n in lengths]
    scores = [list(rng.integers(0, values, n) / 4) for n in lengths]
    return labels, scores


@pytest.mark.parametrize("width, levels, values", [(6, 3, 3), (24, 3, 6), (24, 20, 30), (40, 12, 8)])
def test_pair_counts_of_scores_random_every_branch(width, levels, values):
    # short rows compare every pair; long rows with few labels count label by label; long
    # rows with many labels merge-sort; ties in the scores make the group-halving branch
    labels, scores = _random_scored(np.random.default_rng(width + levels), 12, width, levels, values)
    want = np.array([ref_pairs_of_scores(a, b) for a, b in zip(labels, scores)])
    np.testing.assert_allclose(np.stack(pairwise.pair_counts(labels, scores), axis=1), want, **EXACT)
    # labels already in rank order (no scores): the ranking as it stands
    plain = np.array([ref_pairs_of_scores(a, list(range(len(a), 0, -1))) for a in labels])
    np.testing.assert_allclose(np.stack(pairwise.pair_counts(labels), axis=1), plain, **EXACT)


# --------------------------------------------------------------------------- AUC


def _sk_auc(y, s):
    from sklearn.metrics import roc_auc_score

    y = np.asarray(y)
    return roc_auc_score(y, s) if 0 < y.sum() < len(y) else np.nan


@pytest.mark.parametrize("rel", [1, 2])
def test_auc_and_gauc_equal_sklearn_per_query(rel):
    labels = [[3, 2, 1, 0, 2], [1, 0, 1], [0, 0, 0], [2, 2, 0, 1, 0, 2], [1], [0, 2, 1, 2, 0, 1, 1, 0]]
    scores = [[0.9, 0.4, 0.5, 0.1, 0.6], [0.5, 0.5, 0.2], [0.1, 0.2, 0.3], [0.3, 0.1, 0.3, 0.2, 0.2, 0.1], [0.4],
              [0.5, 0.5, 0.1, 0.9, 0.1, 0.5, 0.2, 0.2]]
    per_query = np.array([_sk_auc([lab >= rel for lab in a], b) for a, b in zip(labels, scores)])
    np.testing.assert_allclose(pairwise.auc(labels, scores, rel=rel), per_query, **EXACT)
    both = ~np.isnan(per_query)
    sizes = np.array([len(a) for a in labels], dtype=float)
    positives = np.array([sum(lab >= rel for lab in a) for a in labels], dtype=float)
    weights = {"rows": sizes, "queries": np.ones(len(labels)), "positives": positives,
               "pairs": positives * (sizes - positives)}
    given = np.array([1.0, 3.0, 7.0, 0.5, 2.0, 4.0])
    for name, w in [*weights.items(), ("given", given)]:
        want = (w[both] * per_query[both]).sum() / w[both].sum()
        got = pairwise.gauc(labels, scores, weights=given if name == "given" else name, rel=rel)
        assert isinstance(got, float)
        assert got == pytest.approx(want, rel=1e-12), name


@pytest.mark.parametrize("backend", BACKENDS)
def test_auc_of_tied_rankings_is_sklearns_on_the_group_scores(backend):
    r = on(backend, build(PAIR_ROWS, PAIR_GROUPS))
    want = []
    for row, sizes in zip(PAIR_ROWS, PAIR_GROUPS):
        score = [-g for g, size in enumerate(sizes) for _ in range(size)]
        want.append(_sk_auc([lab >= 2 for lab in row], score))
    got = pairwise.auc(r, rel=2)
    check_library(backend, got)
    np.testing.assert_allclose(host(got), want, **EXACT)
    plain = on(backend, build(PAIR_ROWS))
    want_plain = [_sk_auc([lab >= 1 for lab in row], list(range(len(row), 0, -1))) for row in PAIR_ROWS]
    np.testing.assert_allclose(host(pairwise.auc(plain)), want_plain, **EXACT)
    # GAUC over the tied rankings: the mean of the defined AUCs weighted by rows
    w = np.array([len(row) for row in PAIR_ROWS], dtype=float)
    defined = ~np.isnan(want)
    gauc = pairwise.gauc(r, rel=2)
    assert float(host(gauc)) == pytest.approx((w * np.nan_to_num(want))[defined].sum() / w[defined].sum(), rel=1e-12)
    for weights in ("queries", "positives", "pairs", [1, 2, 3, 4, 5], converter(backend)(np.arange(1.0, 6))):
        if backend == "numpy" and not isinstance(weights, (str, list)):
            continue
        got = float(host(pairwise.gauc(r, weights=weights, rel=2)))
        positives = np.array([sum(lab >= 2 for lab in row) for row in PAIR_ROWS], dtype=float)
        table = {"queries": np.ones(5), "positives": positives, "pairs": positives * (w - positives)}
        ww = table[weights] if isinstance(weights, str) else np.array([1, 2, 3, 4, 5], dtype=float)
        assert got == pytest.approx((ww * np.nan_to_num(want))[defined].sum() / ww[defined].sum(), rel=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gauc_without_any_scorable_query_is_nan(backend):
    r = on(backend, build([[1, 1], [0, 0, 0], [2]]))
    assert math.isnan(float(host(pairwise.gauc(r))))
    zero = on(backend, build([[1, 0], [0, 1]]))
    weights = [0, 0] if backend == "numpy" else converter(backend)(np.zeros(2))
    assert math.isnan(float(host(pairwise.gauc(zero, weights=weights))))
    # a zero weight leaves its query out; a query with no pair leaves its weight out
    assert float(host(pairwise.gauc(on(backend, build([[1, 0], [0, 1], [1, 1]])), weights=[0, 1, 5]))) == 0.0


def test_gauc_refuses_bad_weights():
    labels, scores = [[1, 0], [0, 1]], [[0.9, 0.1], [0.2, 0.8]]
    with pytest.raises(ValueError, match=r"one number per query \(2\), got shape \(3,\)"):
        pairwise.gauc(labels, scores, weights=[1, 2, 3])
    with pytest.raises(ValueError, match="finite and non-negative"):
        pairwise.gauc(labels, scores, weights=[1, -1])
    with pytest.raises(ValueError, match="finite and non-negative"):
        pairwise.gauc(labels, scores, weights=[1, np.inf])
    with pytest.raises(ValueError, match="weights must be one of rows, queries, positives, pairs or one number"):
        pairwise.gauc(labels, scores, weights=object())
    with pytest.raises(ValueError, match="weights"):
        pairwise.gauc(labels, scores, weights="users")


@pytest.mark.parametrize("backend", BACKENDS)
def test_pooled_auc_equals_sklearn_and_counts_ties_by_policy(backend):
    rng = np.random.default_rng(7)
    labels = rng.integers(0, 3, 60).astype(float)
    scores = rng.integers(0, 8, 60) / 8
    lib = converter(backend)
    from sklearn.metrics import roc_auc_score

    for rel in (1, 2):
        pos, neg = scores[labels >= rel], scores[labels < rel]
        wins = (pos[:, None] > neg[None, :]).sum()
        equal = (pos[:, None] == neg[None, :]).sum()
        pairs_ = len(pos) * len(neg)
        want = {"average": roc_auc_score(labels >= rel, scores), "pessimistic": wins / pairs_,
                "optimistic": (wins + equal) / pairs_}
        assert want["average"] == pytest.approx((wins + equal / 2) / pairs_)
        for ties, value in want.items():
            got = pairwise.pooled_auc(lib(labels), lib(scores), ties=ties, rel=rel)
            if backend == "numpy":
                assert isinstance(got, float)
            assert float(host(got)) == pytest.approx(value, rel=1e-12), (ties, rel)
    one_class = pairwise.pooled_auc(lib(np.array([1.0, 2.0])), lib(np.array([0.1, 0.2])))
    assert math.isnan(float(host(one_class)))
    assert pairwise.pooled_auc(np.array([1, 0, 1, 0]), np.array([0.9, 0.5, 0.5, 0.1])) == 0.875


def test_unscored_queries_and_their_reasons():
    r = build([[1], [1, 1], [0, 0, 0], [2, 0], [1, 1, 0]])
    reasons = pairwise.auc_unscored(r, rel=1)
    assert [why for _, why in reasons] == ["one document", "no positive document (label >= 1)",
                                           "no negative document (label < 1)"]
    np.testing.assert_array_equal(np.stack([mask for mask, _ in reasons]),
                                  [[True, False, False, False, False], [False, False, True, False, False],
                                   [True, True, False, False, False]])
    assert pairwise.auc_unscored(r, rel=1.5)[1][1] == "no positive document (label >= 1.5)"
    reasons = pairwise.pnr_unscored(r)
    assert [why for _, why in reasons] == ["one document", "all labels equal"]
    np.testing.assert_array_equal(np.stack([mask for mask, _ in reasons]),
                                  [[True, False, False, False, False], [True, True, True, False, False]])
    masks = [host(m) for m, _ in pairwise.pnr_unscored(strict(r))]
    np.testing.assert_array_equal(masks[1], [True, True, True, False, False])


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_rankings_at_two_thresholds(backend):
    # what a kernel keeps on a Rankings for one threshold is not reused for another
    r = on(backend, build(PAIR_ROWS))
    for rel in (1, 2, 3, 1):
        want = [_sk_auc([lab >= rel for lab in row], list(range(len(row), 0, -1))) for row in PAIR_ROWS]
        np.testing.assert_allclose(host(pairwise.auc(r, rel=rel)), want, **EXACT)
        defined = ~np.isnan(want)
        sizes = np.array([len(row) for row in PAIR_ROWS], dtype=float)
        gauc = (sizes * np.nan_to_num(want))[defined].sum() / sizes[defined].sum() if defined.any() else np.nan
        np.testing.assert_allclose(float(host(pairwise.gauc(r, rel=rel))), gauc, **EXACT)


def test_mann_whitney_by_hand():
    # ranks 1..4 labels 1, 0, 1, 0: the first positive beats 2 negatives, the second 1: U = 3 of 4
    r = build([[1, 0, 1, 0], [0, 1]])
    for backend in BACKENDS:
        u, n_pairs = pairwise._mann_whitney(on(backend, r), 1)
        np.testing.assert_array_equal(host(u), [3.0, 0.0])
        np.testing.assert_array_equal(host(n_pairs), [4.0, 1.0])
        # one group of all four: every pair half
        u, n_pairs = pairwise._mann_whitney(on(backend, build([[1, 0, 1, 0]], [[4]])), 1)
        np.testing.assert_array_equal(host(u), [2.0])
        np.testing.assert_array_equal(host(n_pairs), [4.0])


def test_ranked_builds_tie_groups_from_equal_scores():
    r = pairwise._ranked([[1, 0, 2, 0], [0, 1]], [[0.5, 0.5, 0.9, 0.1], [0.3, 0.3]])
    np.testing.assert_array_equal(r.labels, [[2, 1, 0, 0], [1, 0, 0, 0]])
    np.testing.assert_array_equal(r.lengths, [4, 2])
    np.testing.assert_array_equal(r.ties, [[0, 1, 1, 3], [4, 4, 6, 7]])
    np.testing.assert_array_equal(r.judged, [[True] * 4, [True, True, False, False]])
    np.testing.assert_array_equal(r.ideal, [[2, 1, 0, 0], [1, 0, 0, 0]])
    np.testing.assert_array_equal(r.n_judged, [4, 2])
    assert pairwise._ranked([[1, 0], [0, 1]], [[0.2, 0.1], [0.3, 0.4]]).ties is None  # no equal scores
    assert pairwise._ranked([1, 0], [0.5, 0.5]).scalar
    same = build([[1, 0]])
    assert pairwise._ranked(same, None) is same


# --------------------------------------------------------------------------- ops.pairs


def brute_inversions(row):
    return sum(row[i] > row[j] for i, j in itertools.combinations(range(len(row)), 2))


def brute_stats(a, b):
    c = d = ta = tb = tab = 0
    for i, j in itertools.combinations(range(len(a)), 2):
        s = np.sign(a[i] - a[j]) * np.sign(b[i] - b[j])
        c += s > 0
        d += s < 0
        ta += a[i] == a[j]
        tb += b[i] == b[j]
        tab += a[i] == a[j] and b[i] == b[j]
    return [c, d, ta, tb, tab]


@pytest.mark.parametrize("length", [0, 1, 2, 3, 5, 8, 9, 16, 17, 33, 40])
def test_strict_inversions_brute_force(length):
    rng = np.random.default_rng(length)
    x = rng.integers(0, max(2, length // 2), (5, length)).astype(float)
    want = [brute_inversions(list(row)) for row in x]
    got = pairs.strict_inversions(x)
    assert got.dtype == np.float64 and got.shape == (5,)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(pairs.strict_inversions(-np.arange(float(length))[None, :]),
                                  [length * (length - 1) / 2])


def test_tied_pairs_brute_force():
    rng = np.random.default_rng(3)
    values = np.sort(rng.integers(0, 4, (6, 9)), axis=1)
    valid = np.arange(9) < np.array([9, 8, 5, 1, 0, 9])[:, None]
    equal_previous = np.zeros(values.shape, bool)
    equal_previous[:, 1:] = values[:, 1:] == values[:, :-1]
    want = [sum(v[i] == v[j] for i, j in itertools.combinations(range(int(ok.sum())), 2))
            for v, ok in zip(values, valid)]
    got = pairs.tied_pairs(equal_previous & valid, valid)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("width", [1, 4, 16, 17, 40])
def test_pair_stats_both_ways_brute_force(width, monkeypatch):
    rng = np.random.default_rng(width)
    n = 7
    a = rng.integers(0, 4, (n, width)).astype(float)
    b = rng.integers(0, 5, (n, width)).astype(float)
    lengths = rng.integers(0, width + 1, n)
    lengths[0] = width
    want = np.array([brute_stats(list(x[:m]), list(y[:m])) for x, y, m in zip(a, b, lengths)], dtype=float).T
    for f in (pairs.pair_stats_merge, pairs.pair_stats_broadcast, pairs.pair_stats):
        np.testing.assert_array_equal(f(a, b, lengths), want, err_msg=f.__name__)
    monkeypatch.setattr(pairs, "_CHUNK_PAIRS", width * width * 2)  # chunks of 2 rows, the last of 1
    np.testing.assert_array_equal(pairs.pair_stats_broadcast(a, b, lengths), want)


@pytest.mark.parametrize("width, levels", [(5, 3), (16, 3), (17, 3), (30, 8), (30, 9), (40, 25)])
def test_label_pair_counts_brute_force(width, levels):
    rng = np.random.default_rng(width * levels)
    n = 6
    values = rng.integers(0, levels, (n, width)).astype(float)
    lengths = rng.integers(0, width + 1, n)
    lengths[0] = width
    values[np.arange(width) >= lengths[:, None]] = 0.0
    want = np.array([ref_pairs_in_groups(v[:m], [1] * m) for v, m in zip(values, lengths)]).T
    np.testing.assert_array_equal(np.stack(pairs.label_pair_counts(values, lengths)), want)
    valid = np.arange(width) < lengths[:, None]
    np.testing.assert_array_equal(
        np.stack(pairs.level_pair_counts(values, valid, lengths, np.unique(values[valid]))), want)


def _random_tied(rng, n, width, levels, descending):
    rows, groups = [], []
    for _ in range(n):
        m = int(rng.integers(1, width + 1))
        row = list(rng.integers(0, levels, m))
        sizes, left = [], m
        while left:
            sizes.append(int(rng.integers(1, min(left, 4) + 1)))
            left -= sizes[-1]
        if descending:
            col = 0
            for size in sizes:
                row[col:col + size] = sorted(row[col:col + size], reverse=True)
                col += size
        rows.append(row)
        groups.append(sizes)
    return rows, groups


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("width, levels, descending", [
    (6, 3, True), (6, 3, False), (24, 3, True), (24, 3, False), (24, 30, True), (24, 30, False), (3, 30, False)])
def test_ranked_pair_counts_every_branch(width, levels, descending, backend, monkeypatch):
    rng = np.random.default_rng(width + levels + descending)
    rows, groups = _random_tied(rng, 9, width, levels, descending)
    r = on(backend, build(rows, groups))
    want = np.array([ref_pairs_in_groups(row, g) for row, g in zip(rows, groups)]).T
    valid = P.columns(r.labels) < r.lengths[:, None]
    got = pairs.ranked_pair_counts(r.labels, valid, r.lengths, r.ties)
    np.testing.assert_allclose(np.stack([host(x) for x in got]), want, **EXACT)
    plain = on(backend, build(rows))
    want = np.array([ref_pairs_in_groups(row, [1] * len(row)) for row in rows]).T
    got = pairs.ranked_pair_counts(plain.labels, valid, plain.lengths, None)
    np.testing.assert_allclose(np.stack([host(x) for x in got]), want, **EXACT)
    if backend != "numpy":  # every pair of a block of rows at a time: blocks of 2 rows
        monkeypatch.setattr(pairs, "_CHUNK_PAIRS", 2 * r.labels.shape[1] ** 2)
        got = pairs._all_pairs_xp(xs, r.labels, valid, P.tie_bounds(r.ties)[0])
        want = np.array([ref_pairs_in_groups(row, g) for row, g in zip(rows, groups)]).T
        np.testing.assert_allclose(np.stack([host(x) for x in got]), want, **EXACT)


def test_ranked_pair_counts_of_no_row():
    labels = np.zeros((0, 3))
    got = pairs.ranked_pair_counts(labels, labels > 0, np.zeros(0, np.int64), None)
    assert [x.shape for x in got] == [(0,), (0,), (0,)]


# --------------------------------------------------------------------------- primitives


def brute_bounds(flags):
    starts, ends = np.zeros(flags.shape, int), np.zeros(flags.shape, int)
    for q, row in enumerate(flags):
        depth = len(row)
        for j in range(depth):
            s = j
            while not row[s]:
                s -= 1
            e = j + 1
            while e < depth and not row[e]:
                e += 1
            starts[q, j], ends[q, j] = s, e
    return starts, ends


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_bounds_and_tie_bounds_brute_force(backend):
    rng = np.random.default_rng(11)
    flags = rng.random((5, 9)) < 0.4
    flags[:, 0] = True
    flags[2] = True  # every rank its own run
    flags[3, 1:] = False  # one run
    want = brute_bounds(flags)
    lib = converter(backend)
    start, end = P.run_bounds(lib(flags))
    np.testing.assert_array_equal(host(start), want[0])
    np.testing.assert_array_equal(host(end), want[1])
    ties = np.maximum.accumulate(np.where(flags, np.arange(45).reshape(5, 9), 0), axis=1)
    start, end = P.tie_bounds(lib(ties))
    np.testing.assert_array_equal(host(start), want[0])
    np.testing.assert_array_equal(host(end), want[1])
    if backend == "numpy":  # array-api-strict refuses the slice [1:] of an empty axis
        start, end = P.tie_bounds(np.zeros((2, 0), np.int64))
        assert start.shape == (2, 0) and end.shape == (2, 0)
    start, end = P.tie_bounds(lib(np.array([[0], [1]])))
    np.testing.assert_array_equal(host(start), [[0], [0]])
    np.testing.assert_array_equal(host(end), [[1], [1]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_group_mean_brute_force(backend):
    rng = np.random.default_rng(5)
    flags = rng.random((4, 7)) < 0.5
    flags[:, 0] = True
    ties = np.maximum.accumulate(np.where(flags, np.arange(28).reshape(4, 7), 0), axis=1)
    values = rng.random((4, 7))
    want = np.empty_like(values)
    for q in range(4):
        for j in range(7):
            same = ties[q] == ties[q, j]
            want[q, j] = values[q, same].mean()
    lib = converter(backend)
    got = host(P.group_mean(lib(ties), lib(values)))
    np.testing.assert_allclose(got, want, **EXACT)
    single = np.ones(ties.shape, bool)
    single[:, 1:] = ties[:, 1:] != ties[:, :-1]
    single[:, :-1] &= ties[:, :-1] != ties[:, 1:]
    np.testing.assert_array_equal(got[single], values[single])  # a group of one keeps its value, every bit
    if backend == "numpy":  # bincount of nothing is int64: the means stay float64
        empty = P.group_mean(np.zeros((2, 0), np.int64), np.zeros((2, 0)))
        assert empty.shape == (2, 0) and empty.dtype == np.float64


@pytest.mark.parametrize("backend", BACKENDS)
def test_ratio(backend):
    lib = converter(backend)
    num = lib(np.array([1.0, 2.0, 3.0, 0.0]))
    den = lib(np.array([4.0, 0.0, 2.0, 0.0]))
    got = P.ratio(num, den)
    check_library(backend, got)
    np.testing.assert_array_equal(host(got), [0.25, 0.0, 1.5, 0.0])
    np.testing.assert_array_equal(host(P.ratio(num, 4)), [0.25, 0.5, 0.75, 0.0])
    np.testing.assert_array_equal(host(P.ratio(num, 2.5)), [0.4, 0.8, 1.2, 0.0])
    np.testing.assert_array_equal(host(P.ratio(num, 0)), [0.0, 0.0, 0.0, 0.0])
    counts = lib(np.array([3, 1], dtype=np.int64))
    got = P.ratio(counts, lib(np.array([4, 0], dtype=np.int64)))
    assert host(got).dtype == np.float64
    np.testing.assert_array_equal(host(got), [0.75, 0.0])
    np.testing.assert_array_equal(host(P.ratio(counts, 2)), [1.5, 0.5])
    assert float(P.ratio(3.0, 4)) == 0.75 and float(P.ratio(3, 0)) == 0.0
    np.testing.assert_array_equal(P.ratio([1, 2], np.array([2, 0])), [0.5, 0.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_sums_products_and_prefixes(backend):
    lib = converter(backend)
    values = np.array([[0.5, 0.25, 2.0, 4.0], [1.0, 0.0, 3.0, 0.5]])
    v = lib(values)
    np.testing.assert_array_equal(host(P.rank_sum(v)), [6.75, 4.5])
    np.testing.assert_array_equal(host(P.query_sum(v)), [1.5, 0.25, 5.0, 4.5])
    np.testing.assert_array_equal(host(P.rank_product(v)), [1.0, 0.0])
    np.testing.assert_array_equal(host(P.prefix_sum(v)), [[0, 0.5, 0.75, 2.75, 6.75], [0, 1, 1, 4, 4.5]])
    np.testing.assert_array_equal(host(P.cumulative_product(v)), [[1, 0.5, 0.125, 0.25, 1.0], [1, 1, 0, 0, 0]])
    weights = np.array([1.0, 2.0, 4.0, 8.0, 16.0])  # longer than the rows: cut to their width
    np.testing.assert_array_equal(host(P.weighted_rank_sum(v, weights)), (values * weights[:4]).sum(axis=1))
    np.testing.assert_array_equal(host(P.weighted_rank_sum(v, None, weights)), (values / weights[:4]).sum(axis=1))
    np.testing.assert_array_equal(host(P.weighted_rank_sum(v, None)), [6.75, 4.5])
    empty = lib(np.zeros((2, 0)))
    np.testing.assert_array_equal(host(P.rank_product(empty)), [1.0, 1.0])
    np.testing.assert_array_equal(host(P.prefix_sum(empty)), [[0.0], [0.0]])
    np.testing.assert_array_equal(host(P.exp2(lib(np.array([0.0, 1.0, 3.0, -1.0])))), [1.0, 2.0, 8.0, 0.5])


@pytest.mark.parametrize("backend", ["strict", "device1"])
def test_cumulative_product_through_logarithms(backend, monkeypatch):
    # a library without cumulative_prod: products as exp of prefix sums of logs, 0 after a 0
    monkeypatch.delattr(xs, "cumulative_prod")
    lib = converter(backend)
    values = np.array([[0.5, 0.25, 1.0, 0.5], [1.0, 0.0, 0.5, 0.5], [0.0, 1.0, 1.0, 1.0]])
    got = P.cumulative_product(lib(values))
    check_library(backend, got)
    np.testing.assert_allclose(host(got), [[1, 0.5, 0.125, 0.125, 0.0625], [1, 1, 0, 0, 0], [1, 0, 0, 0, 0]],
                               **EXACT)
    np.testing.assert_allclose(host(P.rank_product(lib(values))), [0.0625, 0.0, 0.0], **EXACT)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gather_columns_constant_count_as_float(backend):
    lib = converter(backend)
    matrix = np.arange(15.0).reshape(3, 5)
    cols = np.array([[4, 0], [1, 1], [0, 3]])
    np.testing.assert_array_equal(host(P.gather(lib(matrix), lib(cols))), [[4, 0], [6, 6], [10, 13]])
    one = np.array([[2], [0], [4]])
    np.testing.assert_array_equal(host(P.gather(lib(matrix), lib(one))), [[2], [5], [14]])
    c = P.columns(lib(matrix))
    assert tuple(c.shape) == (1, 5)
    np.testing.assert_array_equal(host(c), [[0, 1, 2, 3, 4]])
    table = np.array([0.5, 1.5])
    k = P.constant(table, lib(matrix))
    check_library(backend, k)
    np.testing.assert_array_equal(host(k), table)
    mask = lib(np.array([[True, False, True], [False, False, False]]))
    n = P.count(mask)
    np.testing.assert_array_equal(host(n), [2, 0])
    assert host(n).dtype.kind == "i"
    if backend != "numpy":
        assert n.dtype == xs.int64
    np.testing.assert_array_equal(host(P.count(mask, axis=0)), [1, 0, 1])
    f = P.as_float(mask, lib(matrix))
    assert host(f).dtype == np.float64
    np.testing.assert_array_equal(host(f), [[1, 0, 1], [0, 0, 0]])
    two = P.as_float(2, lib(matrix))
    check_library(backend, two)
    assert float(host(two)) == 2.0 and host(two).dtype == np.float64
    assert float(host(P.as_float(0.5, lib(matrix)))) == 0.5


def test_namespace_and_device(monkeypatch):
    import array_api_compat.numpy as compat

    monkeypatch.setattr(P, "_NP", None)  # the first call of a process builds the namespace
    ns = P.namespace(np.zeros(2))
    assert P.namespace(np.zeros(2)) is ns and P.namespace(None) is ns and P.namespace(None, np.float64(1.0)) is ns
    if P._NUMPY_IS_STANDARD:  # NumPy's own functions where they are the standard's, array_api_compat's else
        assert ns.where is np.where and ns.cumulative_sum is np.cumulative_sum and ns.sort is compat.sort
        assert all(hasattr(np, name) for name in P._NUMPY_OWN)
    else:
        assert ns is compat
    assert P.namespace(xs.asarray([1.0]), None) is xs
    assert P.is_numpy(np.zeros(1)) and not P.is_numpy(xs.asarray([1.0])) and not P.is_numpy(1.0)
    assert P.device(np.zeros(1)) == "cpu"
    a = xs.asarray([1.0])
    assert P.device(a) == a.device


# --------------------------------------------------------------------------- NumPy's one order of operations


def left_to_right(row):
    """((x0 + x1) + x2) + ...: Python floats added one at a time."""
    return functools.reduce(operator.add, row, 0.0)


def test_numpy_sums_along_the_ranks_are_left_to_right():
    # magnitudes from 1e-3 to 1e3: NumPy's own (pairwise) sum rounds differently on most rows
    rng = np.random.default_rng(0)
    values = rng.random((40, 40)) * 10.0 ** rng.integers(-3, 4, (40, 40))
    weights = rng.random(45) + 0.5
    want = [left_to_right(row.tolist()) for row in values]
    np.testing.assert_array_equal(P.rank_sum(values), want)
    np.testing.assert_array_equal(P.weighted_rank_sum(values, None), want)
    np.testing.assert_array_equal(P.weighted_rank_sum(values, weights),
                                  [left_to_right((row * weights[:40]).tolist()) for row in values])
    np.testing.assert_array_equal(P.weighted_rank_sum(values, None, weights),
                                  [left_to_right((row / weights[:40]).tolist()) for row in values])
    np.testing.assert_array_equal(P.query_sum(values), [left_to_right(col.tolist()) for col in values.T])
    np.testing.assert_array_equal(P.rank_product(values[:, :5]),
                                  [functools.reduce(operator.mul, row.tolist(), 1.0) for row in values[:, :5]])


def test_numpy_exp2_is_correctly_rounded():
    # 2**x to 60 digits, rounded once to the nearest float; NumPy's power misses these by an ulp
    getcontext().prec = 60
    x = np.array([6.768148895202053, 10.863775536095517, -12.138379785203002, 16.928103800867355,
                  -18.135956081627633, 0.5, 3.0, -1.0, 0.0])
    want = [float((Decimal(float(v)) * Decimal(2).ln()).exp()) for v in x]
    np.testing.assert_array_equal(P.exp2(x), want)


def test_numpy_group_means_add_each_group_in_rank_order():
    # after a large value, differences of prefix sums lose the low bits a sum in rank order keeps
    values = np.array([[1e8, 0.1, 0.2, 0.3, 0.7], [0.3, 1e9, 0.6, 0.1, 0.9]])
    ties = np.array([[0, 1, 1, 1, 4], [5, 6, 7, 7, 7]])
    got = P.group_mean(ties, values)
    want = [[1e8] + [left_to_right([0.1, 0.2, 0.3]) / 3] * 3 + [0.7],
            [0.3, 1e9] + [left_to_right([0.6, 0.1, 0.9]) / 3] * 3]
    np.testing.assert_array_equal(got, want)
    # array-api-strict: the same means within rounding, a group of one exactly itself
    for backend in ("strict", "device1"):
        lib = converter(backend)
        other = P.group_mean(lib(ties), lib(values))
        check_library(backend, other)
        np.testing.assert_allclose(host(other), want, rtol=1e-6)
        assert host(other)[0, 0] == 1e8 and host(other)[0, 4] == 0.7


# --------------------------------------------------------------------------- dtypes: float32 stays float32


@pytest.mark.parametrize("backend", ["strict", "device1"])
def test_float32_inputs_stay_float32(backend):
    lib = converter(backend)
    like = xs.astype(lib(np.zeros((2, 3))), xs.float32)
    two = P.as_float(2, like)
    assert two.dtype == xs.float32 and float(host(two)) == 2.0
    assert P.as_float(lib(np.array([[True, False, True]])), like).dtype == xs.float32
    table = P.constant(np.array([0.5, 1.5]), like)
    assert table.dtype == xs.float32 and table.device == like.device
    np.testing.assert_array_equal(host(table), [0.5, 1.5])
    # pair counts of float32 labels are float32, and exact (halves of small counts)
    rows, groups = [[2, 0, 1, 1], [1, 0, 2]], [[3, 1], [1, 2]]
    r = strict(build(rows, groups), DEVICE1 if backend == "device1" else CPU, xs.float32)
    valid = P.columns(r.labels) < r.lengths[:, None]
    for got in (pairs.ranked_pair_counts(r.labels, valid, r.lengths, r.ties),
                pairs.ranked_pair_counts(r.labels, valid, r.lengths, None)):
        assert all(x.dtype == xs.float32 for x in got)
    want = np.array([ref_pairs_in_groups(row, g) for row, g in zip(rows, groups)]).T
    np.testing.assert_array_equal(np.stack([host(x) for x in pairs.ranked_pair_counts(
        r.labels, valid, r.lengths, r.ties)]), want)
    auc = pairwise.auc(r)
    assert auc.dtype == xs.float32
    np.testing.assert_allclose(host(auc), host(pairwise.auc(build(rows, groups))), rtol=1e-6)
    # pooled AUC: float32 in, float32 out, nan included
    labels, scores = lib(np.array([1.0, 0.0, 1.0])), xs.astype(lib(np.array([0.5, 0.2, 0.5])), xs.float32)
    assert pairwise.pooled_auc(labels, scores).dtype == xs.float32
    nan = pairwise.pooled_auc(labels, xs.astype(lib(np.array([0.5, 0.2, 0.5])), xs.float32), rel=5)
    assert nan.dtype == xs.float32 and math.isnan(float(host(nan)))
    for metric in (binary.precision, binary.average_precision, binary.reciprocal_rank, binary.success):
        value = metric(r, k=2)
        assert value.dtype == xs.float32, metric.__name__
        np.testing.assert_allclose(host(value), host(metric(build(rows, groups), k=2)), rtol=1e-6)


# --------------------------------------------------------------------------- edges the random cases miss


@pytest.mark.parametrize("backend", BACKENDS)
def test_ranked_pair_counts_of_groups_whose_labels_do_not_descend(backend):
    # the shortcut for groups listed in descending label order must not take these
    cases = [([2, 0, 1], [3]), ([3, 2, 0, 1, 1], [1, 4]), ([1, 1, 0], [2, 1]), ([2, 2, 1, 1, 0], [2, 3]),
             ([1, 0, 0, 1], [1, 3]), ([0, 1], [2])]
    for row, sizes in cases:
        r = on(backend, build([row], [sizes]))
        valid = P.columns(r.labels) < r.lengths[:, None]
        got = [host(x)[0] for x in pairs.ranked_pair_counts(r.labels, valid, r.lengths, r.ties)]
        np.testing.assert_allclose(got, ref_pairs(row, sizes), **EXACT, err_msg=str((row, sizes)))
        np.testing.assert_allclose([host(x)[0] for x in pairwise.pair_counts(r)], ref_pairs(row, sizes), **EXACT)


def test_ragged_rows_with_negative_scores():
    # the padding of a short row must rank below every document, whatever its scores
    labels = [[1, 0, 2], [0, 1], [1]]
    scores = [[-0.5, -0.1, -0.9], [-2.0, -3.0], [-1.0]]
    want = np.array([ref_pairs_of_scores(a, b) for a, b in zip(labels, scores)])
    np.testing.assert_allclose(np.stack(pairwise.pair_counts(labels, scores), axis=1), want, **EXACT)
    np.testing.assert_allclose(pairwise.auc(labels, scores),
                               [_sk_auc([lab >= 1 for lab in a], b) for a, b in zip(labels, scores)], **EXACT)
    r = pairwise._ranked(labels, scores)
    np.testing.assert_array_equal(r.labels, [[0, 1, 2], [0, 1, 0], [1, 0, 0]])


def test_one_list_gives_python_floats():
    for value in (pairwise.pnr([2, 1, 0]), pairwise.auc([1, 0, 1, 0]), pairwise.inversions([0, 1]),
                  *pairwise.pair_counts([1, 0, 2]), pairwise.pnr([1, 0, 2], scores=[0.5, 0.5, 0.9]),
                  pairwise.auc([1, 0], [0.3, 0.2]), pairwise.gauc([1, 0], [0.3, 0.2])):
        assert type(value) is float
    assert pairwise.pnr([1, 0, 2], scores=[0.5, 0.5, 0.9]) == 5.0  # C = 2.5, D = 0.5
    assert pairwise.pnr([1, 0]) == math.inf  # one concordant pair, none discordant
    assert pairwise.pnr([0, 1]) == 0.0
    assert pairwise.auc([1, 0]) == 1.0 and pairwise.auc([0, 1]) == 0.0  # a single pair
    assert pairwise.auc([1, 0], [0.5, 0.5]) == 0.5
    assert pairwise.auc([1, 0, 1, 0]) == 0.75


@pytest.mark.parametrize("backend", BACKENDS)
def test_pooled_auc_of_one_pair_and_its_type(backend):
    lib = converter(backend)
    got = pairwise.pooled_auc(lib(np.array([1.0, 0.0])), lib(np.array([0.9, 0.1])))
    assert float(host(got)) == 1.0
    nan = pairwise.pooled_auc(lib(np.array([0.0, 0.0])), lib(np.array([0.9, 0.1])))
    assert math.isnan(float(host(nan)))
    if backend == "numpy":  # Python floats, as the doctest prints them
        assert type(got) is float and type(nan) is float
    else:
        check_library(backend, got)
        assert type(nan).__module__.startswith("array_api_strict")  # (made on the default device)


@pytest.mark.parametrize("backend", ["strict", "device1"])
def test_gauc_with_weights_summing_below_one(backend):
    r = on(backend, build([[1, 0], [0, 1], [1, 1, 0, 0]]))
    weights = converter(backend)(np.array([0.25, 0.125, 0.0625]))
    got = pairwise.gauc(r, weights=weights)
    check_library(backend, got)
    assert float(host(got)) == pytest.approx((0.25 * 1 + 0.125 * 0 + 0.0625 * 1) / 0.4375, rel=1e-12)


def test_defaults_of_the_helpers():
    r = build([[1], [1, 1], [2, 0, 1], [0, 0], [1, 0]])
    masks = [m for m, _ in pairwise.auc_unscored(r)]  # rel = 1
    np.testing.assert_array_equal(masks, [[True, False, False, False, False], [False, False, False, True, False],
                                          [True, True, False, False, False]])
    values = pairwise.auc(r)
    # rel = 1, weights = rows: AUC 1/2 over 3 documents and 1 over 2 (rel = 2 would leave the last out)
    assert pairwise.gauc_total(r, values) == pytest.approx((3 * 0.5 + 2 * 1.0) / 5, rel=1e-12)
    assert pairwise.gauc_total(r, values) == pairwise.gauc(r)
    assert pairwise.pnr_total(build([[2, 0, 1]])) == 2.0


def test_average_precision_with_a_given_number_of_relevant_documents():
    assert binary.average_precision([1, 0, 1], n_relevant=4) == pytest.approx((1 + 2 / 3) / 4)
    np.testing.assert_allclose(binary.average_precision([[1, 0, 1], [0, 1, 0]], n_relevant=[2, 5]),
                               [(1 + 2 / 3) / 2, 0.5 / 5], **EXACT)
    r = build([[1, 0, 1]], [[2, 1]])
    assert binary.average_precision(r, n_relevant=[3])[0] == pytest.approx((0.75 + 2 / 3) / 3)


def test_messages_name_the_argument():
    with pytest.raises(ValueError, match=r"^normalize must be one of 'relevant', 'retrieved', 'min_k', got 'x'$"):
        binary.average_precision([1, 0], normalize="x")
    with pytest.raises(ValueError, match=r"^tied must be one of 'expected', 'group_end', got 'x'$"):
        binary.average_precision([1, 0], tied="x")
    with pytest.raises(ValueError, match=r"^normalize='retrieved' takes no cutoff k on rankings with tie groups "
                                         r"\(ties='average'\): its denominator would depend on the order; use "
                                         r"normalize='relevant' or 'min_k', or k=None$"):
        binary.average_precision(build([[1, 0]], [[2]]), k=1, normalize="retrieved")
    with pytest.raises(ValueError, match=r"^n_nonrelevant must be a non-negative integer"):
        binary.fallout([1, 0], n_nonrelevant=-1)
    with pytest.raises(ValueError, match=r"^label_ties must be one of 'ignore', 'concordant', got 'x'$"):
        pairwise.pnr([1, 0], label_ties="x")
    with pytest.raises(ValueError, match=r"^weights must be one of 'rows', 'queries', 'positives', 'pairs', got"):
        pairwise.gauc([1, 0], [0.2, 0.1], weights="users")
    with pytest.raises(ValueError, match=r"^weights must be one of rows, queries, positives, pairs or one number "
                                         r"per query, got object$"):
        pairwise.gauc([1, 0], [0.2, 0.1], weights=object())
    with pytest.raises(ValueError, match=r"^weights must be finite and non-negative$"):
        pairwise.gauc([[1, 0]], [[0.2, 0.1]], weights=[-1])
    for call, name in [(lambda: pairwise.pnr([1, np.nan]), "labels"), (lambda: pairwise.pnr([[1, np.nan]]), "labels"),
                       (lambda: pairwise.auc([1, np.nan], [0.1, 0.2]), "labels"),
                       (lambda: pairwise.auc([1, 0], [0.1, np.inf]), "scores")]:
        with pytest.raises(ValueError, match=rf"^{name}\b"):
            call()
    with pytest.raises(ValueError, match=r"^labels and scores must have the same shape"):
        pairwise.auc([1, 0], [0.1, 0.2, 0.3])


# --------------------------------------------------------------------------- graded kernels

from rankkit.metrics import graded  # noqa: E402

G_ROWS = [[3, 0, 1, 2, 0, 1], [0, 2, 2, 0, 3], [0, 0, 0], [1, 3, 1], [2], [0, 1, 0, 2, 0, 0, 3]]
G_GROUPS = [[2, 3, 1], [1, 3, 1], [3], [3], [1], [2, 4, 1]]
G_JUDGED = [[True, True, True, False, True, True], [True, False, True, True, True], [True, False, True],
            [True, True, True], [True], [True, True, True, True, False, True, True]]
G_EXTRA = [[2, 0], [], [0, 1], [3], [0], [1, 0]]
G_TIED = build(G_ROWS, G_GROUPS, G_JUDGED, G_EXTRA)
G_PLAIN = build(G_ROWS, None, G_JUDGED, G_EXTRA)
G_SINGLETONS = [[1] * len(row) for row in G_ROWS]
MAPPING = {0: 0.5, 2: 5.0, 3: -1.0}  # label 1 keeps its own value; label 0 gains (but unjudged ranks keep 0)


def gain_of(label, gain):
    if gain == "linear":
        return float(label)
    if gain == "exp":
        return 2.0 ** label - 1.0
    return float(gain.get(label, label))


def weight(i, discount, base):
    if discount == "log2":
        return 1.0 / (math.log(i + 1) / math.log(base))
    return 1.0 if i < base else 1.0 / (math.log(i) / math.log(base))


def ref_dcg(docs, k=None, gain="linear", discount="log2", base=2.0):
    return sum((gain_of(lab, gain) if flag else 0.0) * weight(i, discount, base)
               for i, (lab, flag) in enumerate(_top(docs, k), start=1))


def ref_idcg(pool, k=None, gain="linear", discount="log2", base=2.0):
    gains = sorted((max(gain_of(lab, gain), 0.0) for lab in pool), reverse=True)
    return ref_dcg([(g, True) for g in gains], k, "linear", discount, base)


def graded_expected(f, groups):
    """f(order, pool, all labels of the batch) over every order of each row's tie groups."""
    batch = [lab for q, row in enumerate(G_ROWS) for lab, flag in zip(row, G_JUDGED[q]) if flag]
    batch += [lab for extra in G_EXTRA for lab in extra]
    out = []
    for q, row in enumerate(G_ROWS):
        docs = [(lab if flag else 0, flag) for lab, flag in zip(row, G_JUDGED[q])]
        pool = [lab for lab, flag in docs if flag] + G_EXTRA[q]
        out.append(expectation(lambda order, pool=pool: f(order, pool, batch), docs, groups[q]))
    return np.array(out)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("k", [None, 1, 3, 6, 9])
@pytest.mark.parametrize("gain", ["linear", "exp", "mapping"])
def test_gain_kernels_are_the_expectation_over_every_order_of_the_ties(gain, k, tied, backend):
    g = MAPPING if gain == "mapping" else gain
    r = on(backend, G_TIED if tied else G_PLAIN)
    groups = G_GROUPS if tied else G_SINGLETONS
    cg = graded.cumulative_gain(r, k=k, gain=g)
    check_library(backend, cg)
    total = memo(("cg", gain, k, tied),
                 lambda: graded_expected(lambda d, pool, _: ref_dcg(d, k, g, "jk", 1e9), groups))
    np.testing.assert_allclose(host(cg), total, **EXACT)
    want = memo(("dcg", gain, k, tied), lambda: graded_expected(lambda d, pool, _: ref_dcg(d, k, g), groups))
    np.testing.assert_allclose(host(graded.dcg(r, k=k, gain=g)), want, **EXACT)
    ideal = memo(("idcg", gain, k), lambda: graded_expected(lambda d, pool, _: ref_idcg(pool, k, g), G_SINGLETONS))
    np.testing.assert_allclose(host(graded.idcg(r, k=k, gain=g)), ideal, **EXACT)
    for no_relevant in (0.0, 1.0):
        got = graded.ndcg(r, k=k, gain=g, no_relevant=no_relevant)
        check_library(backend, got)
        np.testing.assert_allclose(host(got), np.where(ideal > 0, want / np.where(ideal > 0, ideal, 1), no_relevant),
                                   **EXACT)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("discount, base", [("log2", 10.0), ("log2", 3.0), ("jk", 2.0), ("jk", 3.0)])
def test_discounts_and_bases(discount, base, backend):
    r = on(backend, G_TIED)
    for k in (None, 2, 4):
        want = graded_expected(lambda d, pool, _, k=k: ref_dcg(d, k, "linear", discount, base), G_GROUPS)
        np.testing.assert_allclose(host(graded.dcg(r, k=k, discount=discount, base=base)), want, **EXACT)
        ideal = graded_expected(lambda d, pool, _, k=k: ref_idcg(pool, k, "linear", discount, base), G_GROUPS)
        np.testing.assert_allclose(host(graded.idcg(r, k=k, discount=discount, base=base)), ideal, **EXACT)
        np.testing.assert_allclose(host(graded.ndcg(r, k=k, discount=discount, base=base)),
                                   np.divide(want, ideal, out=np.zeros_like(want), where=ideal > 0), **EXACT)


def test_ndcg_and_dcg_equal_sklearn_on_bare_lists_with_tied_scores():
    from sklearn.metrics import dcg_score, ndcg_score

    rows = [[3, 0, 1, 2, 0, 1], [0, 2, 2, 0, 3], [1, 3, 1], [0, 1, 0, 2, 0, 0, 3]]
    groups = [[2, 3, 1], [1, 3, 1], [3], [2, 4, 1]]
    for backend in BACKENDS:
        r = on(backend, build(rows, groups))
        for k in (None, 2, 4):
            want = [ndcg_score([row], [[-g for g, size in enumerate(gs) for _ in range(size)]], k=k)
                    for row, gs in zip(rows, groups)]
            np.testing.assert_allclose(host(graded.ndcg(r, k=k)), want, **EXACT)
            want = [dcg_score([row], [[-g for g, size in enumerate(gs) for _ in range(size)]], k=k, log_base=10)
                    for row, gs in zip(rows, groups)]
            np.testing.assert_allclose(host(graded.dcg(r, k=k, base=10)), want, **EXACT)


def ref_rbp(docs, p, k=None, rel=1, scale=None):
    values = [(lab >= rel) if scale is None else lab / scale for lab, _ in _top(docs, k)]
    return (1 - p) * sum(v * p ** i for i, v in enumerate(values))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tied", [False, True])
def test_rbp_is_the_expectation_over_every_order_of_the_ties(tied, backend):
    r = on(backend, G_TIED if tied else G_PLAIN)
    groups = G_GROUPS if tied else G_SINGLETONS
    for p, k, rel in [(0.8, None, 1), (0.5, 3, 2), (0.9, 1, 1), (0.25, 20, 3)]:
        got = graded.rbp(r, p=p, k=k, rel=rel)
        check_library(backend, got)
        want = graded_expected(lambda d, pool, _, p=p, k=k, rel=rel: ref_rbp(d, p, k, rel), groups)
        np.testing.assert_allclose(host(got), want, **EXACT)
    for p, k in [(0.8, None), (0.5, 2)]:
        want = graded_expected(lambda d, pool, _, p=p, k=k: ref_rbp(d, p, k, scale=4.0), groups)
        np.testing.assert_allclose(host(graded.rbp(r, p=p, k=k, max_grade=4)), want, **EXACT)

        # "query": each query's largest judged label above 1, else 1
        def by_query(d, pool, _, p=p, k=k):
            return ref_rbp(d, p, k, scale=max(1.0, *pool, *(x for x, _ in d)))

        want = graded_expected(by_query, groups)
        np.testing.assert_allclose(host(graded.rbp(r, p=p, k=k, max_grade="query")), want, **EXACT)


def test_rbp_by_hand_and_its_refusals():
    # (1 - p)(1 + p**2) with p = 0.5: relevant at ranks 1 and 3
    assert graded.rbp([1, 0, 1, 0], p=0.5) == 0.625
    assert graded.rbp([[0.5, 0.25]], p=0.5, max_grade="query")[0] == pytest.approx(0.5 * (0.5 + 0.125))
    assert graded.rbp([[2, 0]], p=0.5, max_grade=2)[0] == 0.5
    with pytest.raises(ValueError, match=r"^rel applies to binary RBP only; got rel=2\.0 with max_grade=3$"):
        graded.rbp([1, 0], rel=2, max_grade=3)
    with pytest.raises(ValueError, match=r"^labels must be <= max_grade=2, got 3\.0$"):
        graded.rbp([3, 0], max_grade=2)
    with pytest.raises(ValueError, match=r"labels must be <= max_grade"):
        graded.err([3, 0], max_grade=2)


def ref_err(docs, k=None, p=1.0, top=None):
    total, still = 0.0, 1.0
    for i, (lab, _) in enumerate(_top(docs, k), start=1):
        stop = (2.0 ** lab - 1) / 2.0 ** top
        total += p ** (i - 1) / i * stop * still
        still *= 1 - stop
    return total


@pytest.mark.parametrize("backend", BACKENDS)
def test_err_equals_the_cascade_by_hand(backend):
    r = on(backend, G_PLAIN)
    for k, p, max_grade in [(None, 1.0, None), (3, 0.5, None), (2, 0.9, 4), (9, 1.0, 3.5)]:
        got = graded.err(r, k=k, p=p, max_grade=max_grade)
        check_library(backend, got)
        want = graded_expected(
            lambda d, pool, batch, k=k, p=p, m=max_grade: ref_err(d, k, p, max(batch) if m is None else m),
            G_SINGLETONS)
        np.testing.assert_allclose(host(got), want, **EXACT)
    # groups of one are no ties; a group of two is refused
    singles = build([[3, 0, 1]], [[1, 1, 1]])
    assert host(graded.err(on(backend, singles)))[0] == pytest.approx(ref_err([(3, 1), (0, 1), (1, 1)], top=3))
    with pytest.raises(ValueError, match=r"^err does not support ties='average' \(ERR is not linear in the "
                                         r"labels\); rank with ties='docno', 'optimistic' or 'pessimistic'$"):
        graded.err(on(backend, build([[3, 0, 1]], [[1, 2]])))


def test_err_by_hand_and_exp_range():
    # R = 3/4, then 1/4 of the rest: 3/4 + (1/4)(0)(1/2) + ...
    assert graded.err([2, 0, 1], max_grade=2) == pytest.approx(0.75 + 0.25 * 0.25 / 3)
    assert graded.err([[0.0, 0.0]])[0] == 0.0
    with pytest.raises(ValueError, match=r"^ERR takes labels below 1024 \(2\*\*label overflows\), got 1024\.0$"):
        graded.err([1024, 0])
    with pytest.raises(ValueError, match=r"^gain='exp' takes labels below 1024 \(2\*\*label overflows\), got 1024\.0$"):
        graded.dcg([1024, 0], gain="exp")
    assert graded.dcg([1023, 0], gain="exp") == 2.0 ** 1023 - 1


def test_graded_helpers_by_hand():
    for backend in BACKENDS:
        lib = converter(backend)
        np.testing.assert_array_equal(host(graded._largest(lib(np.array([[0.0, 2.0], [-1.0, -3.0]])), axis=1)), [2, 0])
        assert float(host(graded._largest(lib(np.array([[0.0, 2.0], [-1.0, 5.0]]))))) == 5.0
        assert float(host(graded._largest(lib(np.array([[-1.0, -2.0]]))))) == 0.0
        empty = graded._largest(lib(np.zeros((2, 0))), axis=1)
        assert tuple(empty.shape) == (2,)
        np.testing.assert_array_equal(host(empty), [0.0, 0.0])
        assert float(host(graded._largest(lib(np.zeros((0, 3)))))) == 0.0
        assert graded._tied(lib(np.array([[0, 1, 2]]))) is False
        assert graded._tied(lib(np.array([[0, 0, 2]]))) is True
        assert graded._tied(lib(np.array([[0], [1]]))) is False
        mapped = graded._gain_function({1: 10.0, 3: 30.0})
        np.testing.assert_array_equal(host(mapped(lib(np.array([[0.0, 1.0, 2.0, 3.0, 4.0]])))), [[0, 10, 2, 30, 4]])
        np.testing.assert_array_equal(host(graded._gain_function({})(lib(np.array([[1.0, 2.0]])))), [[1.0, 2.0]])
        scale = graded._query_scale(on(backend, build([[0.5, 0.25], [3, 1], [0, 0]], extra=[[0.75], [5], []])))
        np.testing.assert_array_equal(host(scale), [1.0, 5.0, 1.0])
    assert graded._span(G_TIED, 3) is None and graded._span(G_PLAIN, 3) == 3
    assert graded._top(G_PLAIN.labels, None) is G_PLAIN.labels
    assert graded._top(G_PLAIN.labels, 7) is G_PLAIN.labels
    np.testing.assert_array_equal(graded._top(G_PLAIN.labels, 2), G_PLAIN.labels[:, :2])
    np.testing.assert_array_equal(graded._exp(np.array([[0.0, 1.0, 3.0]])), [[0.0, 1.0, 7.0]])
    assert graded._linear(G_PLAIN.labels) is G_PLAIN.labels


def test_graded_messages_name_the_argument():
    with pytest.raises(ValueError, match=r"^discount must be one of 'log2', 'jk', got 'ln'$"):
        graded.dcg([1, 0], discount="ln")
    with pytest.raises(ValueError, match=r"^no_relevant"):
        graded.ndcg([1, 0], no_relevant=2.0)
    with pytest.raises(ValueError, match=r"^p\b"):
        graded.rbp([1, 0], p=1.0)
    with pytest.raises(ValueError, match=r"^p\b"):
        graded.err([1, 0], p=0.0)


def test_graded_edges_the_random_cases_miss():
    # the largest of labels in (0, 1]
    assert float(graded._largest(np.array([[0.5, 0.25]]))) == 0.5
    np.testing.assert_array_equal(graded._largest(np.array([[0.5, 0.25], [1.0, 0.0]]), axis=1), [0.5, 1.0])
    # a mapping giving label 0 the gain 1: unjudged ranks (label 0 too) still gain 0
    r = build([[0, 1, 0, 2]], judged=[[True, False, False, True]], extra=[[0]])
    for backend in BACKENDS:
        rb = on(backend, r)
        assert host(graded.cumulative_gain(rb, gain={0: 1.0}))[0] == 1.0 + 2.0
        assert host(graded.dcg(rb, gain={0: 1.0}))[0] == pytest.approx(1.0 + 2.0 / math.log2(5), rel=1e-12)
        # ideal: the judged labels 0, 2 and 0 (not retrieved), gains 1, 2, 1
        assert host(graded.idcg(rb, gain={0: 1.0}))[0] == pytest.approx(2 + 1 / math.log2(3) + 1 / 2, rel=1e-12)
    # err refuses a group of two also at depth 2
    with pytest.raises(ValueError, match="err does not support ties='average'"):
        graded.err(build([[1, 0]], [[2]]))
    assert graded.err(build([[1, 0]], [[1, 1]])) == pytest.approx([0.5])
    # defaults: linear gain, base 2, no_relevant 0
    assert graded.cumulative_gain([3, 2, 0]) == 5.0
    np.testing.assert_array_equal(graded.ndcg([[0, 0], [0, 0]]), [0.0, 0.0])
    np.testing.assert_array_equal(graded.ndcg([[0, 0], [1, 0]], no_relevant=1.0), [1.0, 1.0])
    np.testing.assert_array_equal(graded.ndcg([[0, 0], [0, 1]], no_relevant=0.5), [0.5, 1 / math.log2(3)])
    for row in ([0, 3, 1, 2, 0, 1], [1, 0, 2], [2, 2, 0, 3, 1, 0, 0, 1, 3]):
        assert graded.ndcg(row) == graded.dcg(row) / graded.idcg(row)
        assert graded.ndcg(row, k=3) == graded.dcg(row, k=3) / graded.idcg(row, k=3)


def correctly_rounded_log(i, base):
    getcontext().prec = 60
    return float(Decimal(i).ln() / Decimal(base).ln())


@pytest.mark.parametrize("base", [2.0, 10.0, 3.0])
def test_dcg_divides_by_correctly_rounded_logarithms_left_to_right(base):
    # trec_eval's division: gain / log_b(i + 1), each log rounded once, added in rank order
    # gains whose sums differ in the last bit when multiplied by a rounded 1 / log_b instead
    rows = [[6.37, 2.698, 0.41, 0.165, 8.133, 9.128, 6.066, 7.295, 5.436, 9.351, 8.159, 0.027],
            [8.574, 0.336, 7.297, 1.757, 8.632, 5.415, 2.997, 4.227, 0.283, 1.243, 6.706, 6.472],
            [6.154, 3.837, 9.972, 9.808, 6.855, 6.505, 6.884, 3.889, 1.351, 7.215, 5.254, 3.102],
            [4.858, 8.895, 9.34, 3.578, 5.715, 3.219, 5.943, 3.379, 3.916, 8.903, 2.272, 6.232]]
    got = graded.dcg(rows, base=base)
    want = [left_to_right([g / correctly_rounded_log(i + 2, base) for i, g in enumerate(row)]) for row in rows]
    np.testing.assert_array_equal(got, want)


def test_graded_messages():
    with pytest.raises(ValueError, match=r"^gain must be one of 'linear', 'exp', got 'square'$"):
        graded.dcg([1, 0], gain="square")
    with pytest.raises(ValueError, match=r"^gain mapping keys must be non-negative finite labels, got -1$"):
        graded.ndcg([1, 0], gain={-1: 2.0})
    with pytest.raises(ValueError, match=r"^max_grade must be a positive number or None, got -1$"):
        graded.err([1, 0], max_grade=-1)
    with pytest.raises(ValueError, match=r"^max_grade must be a positive number, 'query' or None, got 'top'$"):
        graded.rbp([1, 0], max_grade="top")


# --------------------------------------------------------------------------- ranking rows by score


def rank_row_oracle(labels, scores, length, ascending_labels):
    """One row ranked by Python's sort: score descending, then label (descending unless
    ``ascending_labels``); the padding after ``length`` is 0; the first rank of each run of
    equal scores (flat indices are added by the caller)."""
    cells = sorted(zip(scores[:length], labels[:length]),
                   key=lambda c: (-c[0], c[1] if ascending_labels else -c[1]))
    width = len(labels)
    ranked = [label for _, label in cells] + [0.0] * (width - length)
    ordered = [score for score, _ in cells] + [0.0] * (width - length)
    firsts, first = [], 0
    for i in range(width):
        if i == 0 or i >= length or ordered[i] != ordered[i - 1]:
            first = i
        firsts.append(first)
    return ranked, ordered, firsts


RANK_ROW_CASES = [
    # (labels, scores, lengths): whole labels (integer keys), fractional labels (lexsort),
    # ties across label levels, padding, an empty row, labels up to 40
    ([[2, 0, 1, 1, 0], [0, 3, 3, 1, 2], [1, 1, 0, 0, 0]], [[0.5, 0.5, 0.5, 0.1, 0.9], [2, 2, 1, 2, 1], [3, 3, 0, 0, 0]],
     [5, 5, 2]),
    ([[0.5, 1.5, 0.25, 2.0], [1.0, 0.0, 0.0, 0.0]], [[1, 1, 1, 0], [4, 4, 0, 0]], [4, 2]),
    ([[0, 0, 0], [5, 1, 40]], [[0, 0, 0], [7, 7, 7]], [0, 3]),
    ([[3, 1, 2, 0, 1, 2]], [[0.3, 0.2, 0.1, 0.0, -0.1, -0.2]], [6]),  # no tie at all
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", range(len(RANK_ROW_CASES)))
@pytest.mark.parametrize("ascending_labels", [False, True])
def test_rank_rows_against_python_sort(backend, case, ascending_labels):
    labels, scores = (np.asarray(a, dtype=np.float64) for a in RANK_ROW_CASES[case][:2])
    lengths = np.asarray(RANK_ROW_CASES[case][2])
    valid = np.arange(labels.shape[1]) < lengths[:, None]
    to = converter(backend)
    ranked, ordered, groups = P.rank_rows(to(labels), to(scores), to(valid), ascending_labels=ascending_labels,
                                          groups=True)
    want = [rank_row_oracle(list(a), list(s), n, ascending_labels) for a, s, n in zip(labels, scores, lengths)]
    assert host(ranked).tolist() == [w[0] for w in want]
    assert host(ordered).tolist() == [w[1] for w in want]
    any_tie = any(w[2] != list(range(labels.shape[1])) for w in want)
    if not any_tie:
        assert groups is None
    else:
        flat = [[i * labels.shape[1] + f for f in w[2]] for i, w in enumerate(want)]
        assert host(groups).tolist() == flat
    ranked, ordered, groups = P.rank_rows(to(labels), to(scores), to(valid), ascending_labels=ascending_labels)
    assert groups is None and host(ranked).tolist() == [w[0] for w in want]


@pytest.mark.parametrize("backend", BACKENDS)
def test_rank_rows_of_random_rows_equals_python_sort(backend):
    rng = np.random.default_rng(7)
    for ascending_labels in (False, True):
        for _ in range(20):
            n, width = int(rng.integers(1, 5)), int(rng.integers(1, 9))
            labels = rng.integers(0, 4, (n, width)).astype(np.float64)
            if rng.random() < 0.3:
                labels = labels / 2  # fractional labels: the lexsort path
            scores = rng.integers(0, 3, (n, width)).astype(np.float64)
            lengths = rng.integers(0, width + 1, n)
            valid = np.arange(width) < lengths[:, None]
            to = converter(backend)
            ranked, ordered, _ = P.rank_rows(to(labels), to(scores), to(valid), ascending_labels=ascending_labels)
            want = [rank_row_oracle(list(a), list(s), k, ascending_labels) for a, s, k in zip(labels, scores, lengths)]
            assert host(ranked).tolist() == [w[0] for w in want]
            assert host(ordered).tolist() == [w[1] for w in want]
