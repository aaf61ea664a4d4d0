"""Tests of rankkit.pairwise: source examples, brute force, scipy and scikit-learn as oracles."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score
from sweeps import sweep

import rankkit as rk
from rankkit.metrics import pairwise as pw
from rankkit.metrics.pairwise import PairCounts, auc, inversions, kendall_distance, kendall_tau, pair_counts, pnr
from rankkit.ops import pairs as counting

# --------------------------------------------------------------------------- brute force oracles


def brute_pairs(a, b):
    """(concordant, discordant, tied in a, tied in b, tied in both) by the O(n^2) double loop."""
    c = d = ta = tb = tab = 0
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            sa = (a[i] > a[j]) - (a[i] < a[j])
            sb = (b[i] > b[j]) - (b[i] < b[j])
            c += sa * sb > 0
            d += sa * sb < 0
            ta += sa == 0
            tb += sb == 0
            tab += (sa == 0) and (sb == 0)
    return c, d, ta, tb, tab


def brute_label_pairs(labels):
    """(concordant, discordant, tied) for labels in rank order, pairs i < j."""
    c = d = t = 0
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            c += labels[i] > labels[j]
            d += labels[i] < labels[j]
            t += labels[i] == labels[j]
    return c, d, t


def first_relevant_rank(labels, rel=1):
    hits = np.flatnonzero(np.asarray(labels) >= rel)
    return int(hits[0]) + 1


# --------------------------------------------------------------------------- strategies

grades = st.lists(st.integers(0, 4), min_size=0, max_size=40)
values = st.one_of(st.integers(-3, 3).map(float), st.floats(-1e3, 1e3, allow_nan=False))


@st.composite
def paired(draw, elements=values, min_size=0, max_size=40):
    n = draw(st.integers(min_size, max_size))
    a = draw(st.lists(elements, min_size=n, max_size=n))
    b = draw(st.lists(elements, min_size=n, max_size=n))
    return a, b


@st.composite
def batches(draw, elements=st.integers(0, 3).map(float), max_rows=6, max_len=40):
    """A 2-D batch (n, L) of two matrices."""
    n = draw(st.integers(1, max_rows))
    length = draw(st.integers(0, max_len))
    a = np.array(draw(st.lists(st.lists(elements, min_size=length, max_size=length), min_size=n, max_size=n)))
    b = np.array(draw(st.lists(st.lists(elements, min_size=length, max_size=length), min_size=n, max_size=n)))
    return a.reshape(n, length), b.reshape(n, length)


@st.composite
def ragged(draw, elements=st.integers(0, 3).map(float), max_rows=6, max_len=40):
    lengths = draw(st.lists(st.integers(0, max_len), min_size=1, max_size=max_rows))
    a = [draw(st.lists(elements, min_size=n, max_size=n)) for n in lengths]
    b = [draw(st.lists(elements, min_size=n, max_size=n)) for n in lengths]
    return a, b


# --------------------------------------------------------------------------- source examples

SOURCE_003_FIRST = [3, 2, 3, 3, 2, 1]  # 高 中 高 高 中 低
SOURCE_003_SECOND = [3, 3, 3, 1, 2, 2]  # 高 高 高 低 中 中


@pytest.mark.parametrize("labels", [SOURCE_003_FIRST, SOURCE_003_SECOND])
def test_source_003_pnr_examples(labels):
    counts = pair_counts(labels)
    assert counts == PairCounts(9.0, 2.0, 4.0)
    assert sum(counts) == 15  # C(6, 2) pairs
    assert counts.discordant == 2  # "2 个逆序对"
    assert counts.concordant + counts.tied == 13  # "13 个正序对": the source counts the ties as concordant
    assert pnr(labels) == 9 / 2  # the usual count leaves the 4 tied pairs out
    assert pnr(labels, label_ties="ignore") == 4.5
    assert pnr(labels, label_ties="concordant") == 13 / 2  # the source's number, on request
    assert inversions(labels) == 2.0


def test_source_003_pnr_batch():
    assert np.array_equal(pnr([SOURCE_003_FIRST, SOURCE_003_SECOND]), [4.5, 4.5])
    assert np.array_equal(pnr(np.array([SOURCE_003_FIRST, SOURCE_003_SECOND]), label_ties="concordant"), [6.5, 6.5])


def test_pnr_default_is_the_sign_product_definition():
    """A pair is concordant when (rel_i - rel_j)(s_i - s_j) > 0, discordant when < 0, left
    out when 0; by rank, s_i = -i (the top document has the highest score)."""
    labels = SOURCE_003_FIRST
    signs = [np.sign((labels[i] - labels[j]) * ((-i) - (-j))) for i in range(6) for j in range(i + 1, 6)]
    assert signs.count(1) == 9 and signs.count(-1) == 2 and signs.count(0) == 4
    assert pnr(labels) == signs.count(1) / signs.count(-1)


def test_source_000_kendall_tau_distance_example():
    # 4 relevant and 3 non-relevant documents in two orders
    first = [1, 0, 0, 0, 1, 1, 1]
    second = [0, 0, 1, 1, 1, 1, 0]
    assert inversions(first) == 9.0
    assert inversions(second) == 8.0  # fewer inversions ...
    assert first_relevant_rank(first) == 1
    assert first_relevant_rank(second) == 3  # ... but the user scrolls past two irrelevant documents
    assert 1 / first_relevant_rank(first) > 1 / first_relevant_rank(second)
    assert np.array_equal(inversions([first, second]), [9.0, 8.0])
    # the same count as the Kendall tau distance to the ideal (sorted) order
    assert kendall_distance(list(range(7, 0, -1)), first) == 9.0
    assert kendall_distance(list(range(7, 0, -1)), second) == 8.0


def test_source_000_reciprocal_rank_favours_the_list_with_more_inversions():
    first, second = [1, 0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1, 0]
    assert inversions(first) > inversions(second)
    assert np.allclose(rk.reciprocal_rank([first, second]), [1.0, 1 / 3])
    assert rk.reciprocal_rank(first) > rk.reciprocal_rank(second)


def test_source_003_auc_grades_merged():
    # 高/中 -> 1, 低/无 -> 0 (rel=2 on grades 3, 2, 1, 0)
    labels = [3, 2, 1, 0, 2, 1, 3, 0]
    scores = [0.9, 0.4, 0.5, 0.1, 0.6, 0.4, 0.3, 0.2]
    binary = [1, 1, 0, 0, 1, 0, 1, 0]
    assert auc(labels, scores, rel=2) == pytest.approx(roc_auc_score(binary, scores), abs=1e-15)
    assert auc(binary, scores) == auc(labels, scores, rel=2)
    # by hand: positives 0.9, 0.4, 0.6, 0.3 vs negatives 0.5, 0.1, 0.4, 0.2:
    # 4 + (2 + 0.5) + 4 + 2 = 12.5 of 16 pairs
    assert auc(labels, scores, rel=2) == 12.5 / 16


# --------------------------------------------------------------------------- hand-computed cases


def test_pair_counts_hand():
    assert pair_counts([2, 1, 0]) == PairCounts(3.0, 0.0, 0.0)
    assert pair_counts([0, 1, 2]) == PairCounts(0.0, 3.0, 0.0)
    assert pair_counts([1, 1]) == PairCounts(0.0, 0.0, 1.0)
    assert pair_counts([5]) == PairCounts(0.0, 0.0, 0.0)
    assert pair_counts([]) == PairCounts(0.0, 0.0, 0.0)
    counts = pair_counts([3, 2, 3, 3, 2, 1])
    assert all(type(v) is float for v in counts)


def test_pair_counts_batch_and_ragged():
    counts = pair_counts([[2, 1, 0], [0, 1], []])
    assert np.array_equal(counts.concordant, [3.0, 0.0, 0.0])
    assert np.array_equal(counts.discordant, [0.0, 1.0, 0.0])
    assert np.array_equal(counts.tied, [0.0, 0.0, 0.0])
    counts = pair_counts(np.array([[1, 1, 0], [0, 0, 1]]))
    assert np.array_equal(np.stack(counts), [[2, 0], [0, 2], [1, 1]])
    empty = pair_counts(np.zeros((0, 5)))
    assert empty.concordant.shape == (0,)


def test_pair_counts_accepts_rankings():
    r = rk.as_rankings([[2, 0, 1], [0, 3]])
    counts = pair_counts(r)
    # only the retrieved documents count: the padding of the second row is not a document
    assert np.array_equal(counts.concordant, [2.0, 0.0])
    assert np.array_equal(counts.discordant, [1.0, 1.0])
    assert pnr(rk.as_rankings([3, 2, 3, 3, 2, 1])) == 4.5


def test_pnr_edge_cases_are_inf_or_nan_never_a_silent_number():
    assert pnr([2, 1, 0]) == math.inf  # no discordant pair, some concordant: a perfect list
    assert math.isnan(pnr([1, 1]))  # all labels equal: no pair is in or out of order
    assert math.isnan(pnr([3, 3, 3, 3]))
    assert pnr([1, 1], label_ties="concordant") == math.inf  # the source's count: ties are concordant
    assert math.isnan(pnr([1]))
    assert math.isnan(pnr([]))
    assert pnr([0, 1]) == 0.0
    out = pnr([[2, 1, 0], [1, 1, 1], [0, 1, 1]])
    assert out[0] == math.inf and math.isnan(out[1]) and out[2] == 0.0
    # the same rule read off pair_counts: inf exactly when D = 0 < C, nan when C = D = 0
    for labels, value in zip([[2, 1, 0], [1, 1, 1], [0, 1, 1]], out):
        c, d, _ = pair_counts(labels)
        assert (d == 0 and c > 0) == (value == math.inf) and (c == d == 0) == math.isnan(value)


def test_kendall_tau_hand():
    assert kendall_tau([1, 2, 3], [10, 20, 30]) == 1.0
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    # 5 concordant, 1 discordant of 6 pairs
    assert kendall_tau([3, 2, 1, 0], [0.9, 0.7, 0.8, 0.1]) == pytest.approx(4 / 6)
    # ties in a: C = 4, D = 0, n0 = 6, T_a = 2
    assert kendall_tau([1, 1, 0, 0], [4, 3, 2, 1]) == pytest.approx(4 / math.sqrt(4 * 6))
    assert kendall_tau([1, 1, 0, 0], [4, 3, 2, 1], variant="a") == pytest.approx(4 / 6)
    assert type(kendall_tau([1, 2], [1, 2])) is float


def test_kendall_tau_undefined_is_nan_like_scipy():
    for a, b in [([1, 1, 1], [1, 2, 3]), ([1, 2, 3], [0, 0, 0]), ([1], [1]), ([], [])]:
        assert math.isnan(kendall_tau(a, b))
        assert math.isnan(kendall_tau(a, b, variant="a"))
        if len(a) >= 2:
            assert math.isnan(scipy.stats.kendalltau(a, b).statistic)
    out = kendall_tau([[1, 2, 3], [1, 1, 1]], [[3, 2, 1], [1, 2, 3]])
    assert out[0] == -1.0 and math.isnan(out[1])


def test_kendall_tau_ragged():
    out = kendall_tau([[1, 2, 3], [1, 2], [4, 1, 3, 2]], [[1, 2, 3], [2, 1], [4, 3, 2, 1]])
    assert out[0] == 1.0 and out[1] == -1.0
    assert out[2] == pytest.approx(scipy.stats.kendalltau([4, 1, 3, 2], [4, 3, 2, 1]).statistic)


def test_kendall_distance_hand():
    assert kendall_distance([1, 2, 3, 4, 5], [3, 4, 1, 2, 5]) == 4.0
    assert kendall_distance([1, 2, 3, 4, 5], [3, 4, 1, 2, 5], normalize=True) == 0.4
    assert kendall_distance([1, 2, 3], [3, 2, 1], normalize=True) == 1.0
    # pairs tied in either vector are not discordant
    assert kendall_distance([1, 2, 3], [5, 5, 5]) == 0.0
    assert kendall_distance([1, 1, 2], [2, 1, 0]) == 2.0
    assert kendall_distance([], []) == 0.0
    assert math.isnan(kendall_distance([7], [1], normalize=True))
    assert np.array_equal(kendall_distance([[1, 2, 3], [1, 2]], [[3, 2, 1], [1, 2]]), [3.0, 0.0])


def test_kendall_distance_long_vector_is_exact_and_light():
    rng = np.random.default_rng(7)
    n = 3000
    a = rng.integers(0, 50, n).astype(float)
    b = a + rng.normal(0, 10, n).round()
    da, db = np.sign(a[:, None] - a[None, :]), np.sign(b[:, None] - b[None, :])
    expected = np.triu(da * db < 0, 1).sum()
    assert kendall_distance(a, b) == expected
    assert kendall_tau(a, b) == pytest.approx(scipy.stats.kendalltau(a, b).statistic, abs=1e-12)
    # a long reversed vector: every pair is discordant (n(n-1)/2 with n = 200,000)
    n = 200_000
    x = np.arange(n, dtype=float)
    assert kendall_distance(x, -x) == n * (n - 1) / 2
    assert kendall_distance(x, -x, normalize=True) == 1.0


def test_auc_hand_and_nan():
    assert auc([1, 0], [0.9, 0.1]) == 1.0
    assert auc([1, 0], [0.1, 0.9]) == 0.0
    assert auc([1, 0], [0.5, 0.5]) == 0.5  # a tied positive/negative pair counts 1/2
    assert math.isnan(auc([1, 1, 1], [0.1, 0.2, 0.3]))  # no negative
    assert math.isnan(auc([0, 0], [0.1, 0.2]))  # no positive
    assert math.isnan(auc([], []))
    out = auc([[1, 0, 1], [0, 0, 0], [0, 1]], [[0.5, 0.5, 0.2], [0.1, 0.2, 0.3], [0.3, 0.7]])
    assert out[0] == 0.25 and math.isnan(out[1]) and out[2] == 1.0
    assert type(auc([1, 0], [1, 0])) is float


def test_auc_matches_sklearn_fixed_with_ties():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 4, (50, 30))
    scores = rng.integers(0, 5, (50, 30)) / 4  # many tied scores
    got = auc(labels, scores, rel=2)
    for row in range(50):
        y = labels[row] >= 2
        if y.all() or not y.any():
            assert math.isnan(got[row])
        else:
            assert got[row] == pytest.approx(roc_auc_score(y, scores[row]), abs=1e-12)


# --------------------------------------------------------------------------- kernels vs brute force


@pytest.mark.parametrize("kernel", [counting.pair_stats_merge, counting.pair_stats_broadcast])
@settings(max_examples=sweep(60))
@given(data=ragged(max_len=40))
def test_pair_kernels_match_brute_force(kernel, data):
    a_rows, b_rows = data
    lengths = np.array([len(r) for r in a_rows])
    width = int(lengths.max())
    a = np.zeros((len(a_rows), width))
    b = np.full((len(a_rows), width), 99.0)  # padding must not count, whatever its value
    for i, (ra, rb) in enumerate(zip(a_rows, b_rows)):
        a[i, : len(ra)], b[i, : len(rb)] = ra, rb
    got = kernel(a, b, lengths)
    expected = np.array([brute_pairs(ra, rb) for ra, rb in zip(a_rows, b_rows)], dtype=float).T
    assert np.array_equal(got, expected)


def test_pair_kernel_chunks(monkeypatch):
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 3, (2, 37, 9)).astype(float)
    lengths = np.full(37, 9)
    whole = counting.pair_stats_broadcast(a, b, lengths)
    monkeypatch.setattr(counting, "_CHUNK_PAIRS", 100)  # a chunk of one row at a time
    assert np.array_equal(counting.pair_stats_broadcast(a, b, lengths), whole)
    assert np.array_equal(counting.pair_stats_merge(a, b, lengths), whole)


@settings(max_examples=sweep(60))
@given(x=st.lists(st.lists(st.integers(-2, 2).map(float), max_size=70), min_size=1, max_size=4))
def test_strict_inversions_match_brute_force(x):
    width = max(len(row) for row in x)
    padded = np.array([row + [np.inf] * (width - len(row)) for row in x]).reshape(len(x), width)
    expected = [sum(row[i] > row[j] for i in range(len(row)) for j in range(i + 1, len(row))) for row in x]
    assert np.array_equal(counting.strict_inversions(padded), expected)


# --------------------------------------------------------------------------- public functions vs peers


@settings(max_examples=sweep(100))
@given(labels=grades)
def test_pair_counts_inversions_pnr_match_brute_force(labels):
    c, d, t = brute_label_pairs(labels)
    assert pair_counts(labels) == PairCounts(float(c), float(d), float(t))
    assert inversions(labels) == d
    assert np.array_equal(pnr(labels), pnr(labels, label_ties="ignore"), equal_nan=True)  # the default
    for ties, numerator in (("concordant", c + t), ("ignore", c)):
        got = pnr(labels, label_ties=ties)
        if d > 0:
            assert got == numerator / d
        elif numerator > 0:
            assert got == math.inf
        else:
            assert math.isnan(got)


@settings(max_examples=sweep(100))
@given(data=paired(min_size=2))
def test_kendall_tau_matches_scipy(data):
    a, b = data
    got = kendall_tau(a, b)
    expected = scipy.stats.kendalltau(a, b).statistic
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, abs=1e-12)
        assert -1.0 <= got <= 1.0


@settings(max_examples=sweep(100))
@given(data=paired(elements=st.integers(0, 3).map(float), min_size=2))
def test_kendall_tau_variant_a_by_hand(data):
    a, b = data
    c, d, ta, tb, _ = brute_pairs(a, b)
    n0 = len(a) * (len(a) - 1) / 2
    got = kendall_tau(a, b, variant="a")
    if ta == n0 or tb == n0:
        assert math.isnan(got)
    else:
        assert got == pytest.approx((c - d) / n0, abs=1e-12)
        assert abs(got) <= abs(kendall_tau(a, b)) + 1e-12  # ties only shrink tau-a


@settings(max_examples=sweep(100))
@given(data=paired())
def test_kendall_distance_matches_brute_force(data):
    a, b = data
    d = brute_pairs(a, b)[1]
    assert kendall_distance(a, b) == d
    assert kendall_distance(b, a) == d  # symmetric
    n0 = len(a) * (len(a) - 1) / 2
    if n0:
        assert kendall_distance(a, b, normalize=True) == pytest.approx(d / n0)


@settings(max_examples=sweep(100))
@given(a=st.lists(values, min_size=2, max_size=40))
def test_kendall_tau_of_a_vector_with_itself_is_one(a):
    if len(set(a)) > 1:
        assert kendall_tau(a, a) == 1.0
        assert kendall_tau(a, a, variant="a") <= 1.0
        assert kendall_distance(a, a) == 0.0
        assert kendall_tau(a, [-v for v in a]) == -1.0


@settings(max_examples=sweep(100))
@given(data=paired(elements=st.integers(0, 3).map(float), min_size=1), rel=st.sampled_from([1, 2, 0.5]))
def test_auc_matches_sklearn(data, rel):
    labels, raw = data
    scores = [s / 2 for s in raw]  # tied scores are frequent
    y = np.asarray(labels) >= rel
    got = auc(labels, scores, rel=rel)
    if y.all() or not y.any():
        assert math.isnan(got)
        return
    assert got == pytest.approx(roc_auc_score(y, scores), abs=1e-12)
    assert 0.0 <= got <= 1.0
    assert auc(labels, [-s for s in scores], rel=rel) == pytest.approx(1.0 - got, abs=1e-12)


# --------------------------------------------------------------------------- batch == per row


@settings(max_examples=sweep(40))
@given(data=batches())
def test_batch_equals_per_row(data):
    a, b = data
    functions = [
        lambda x, y: kendall_tau(x, y),
        lambda x, y: kendall_tau(x, y, variant="a"),
        lambda x, y: kendall_distance(x, y),
        lambda x, y: kendall_distance(x, y, normalize=True),
        lambda x, y: auc(x, y),
        lambda x, y: inversions(x),
        lambda x, y: pnr(x),
        lambda x, y: pnr(x, label_ties="concordant"),
        lambda x, y: pair_counts(x).tied,
    ]
    for f in functions:
        batch = f(a, b)
        rows = [f(a[i], b[i]) for i in range(a.shape[0])]
        assert batch.shape == (a.shape[0],)
        assert np.array_equal(batch, rows, equal_nan=True)


@settings(max_examples=sweep(40))
@given(data=ragged())
def test_ragged_equals_per_row(data):
    a, b = data
    for f in (kendall_tau, kendall_distance, auc):
        batch = f(a, b)
        assert np.array_equal(batch, [f(x, y) for x, y in zip(a, b)], equal_nan=True)
    batch = pair_counts(a)
    assert np.array_equal(np.stack(batch, axis=1), [list(pair_counts(x)) for x in a])


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: pair_counts([1, np.nan]), "labels must be finite, got .*nan"),
        (lambda: inversions([[1, 2], [np.inf, 0]]), "labels must be finite, got .*inf"),
        (lambda: pnr([[1, 2], [0, -np.inf]]), "labels must be finite"),
        (lambda: kendall_tau([1, 2], [np.nan, 1]), "b must be finite"),
        (lambda: kendall_tau([np.inf, 2], [0, 1]), "a must be finite"),
        (lambda: kendall_distance([[1, np.nan]], [[1, 2]]), "a must be finite"),
        (lambda: auc([1, 0], [0.5, np.nan]), "scores must be finite"),
        (lambda: auc([1, np.nan], [0.5, 0.1]), "labels must be finite"),
        (lambda: kendall_tau([1, 2, 3], [1, 2]), r"a and b must have the same shape, got \(3,\) and \(2,\)"),
        (lambda: kendall_tau([[1, 2]], [1, 2]), "a and b must have the same shape"),
        (lambda: kendall_distance([[1, 2], [1]], [[1, 2], [1, 2]]), "a and b must have the same shape"),
        (lambda: auc([[1, 0]], [[1, 0, 1]]), "labels and scores must have the same shape"),
        (lambda: kendall_tau([1, 2], [1, 2], variant="c"), "variant must be one of 'a', 'b', got 'c'"),
        (lambda: pnr([1, 0], label_ties="half"), "label_ties must be one of 'ignore', 'concordant', got 'half'"),
        (lambda: auc([1, 0], [1, 0], rel=0), "rel must be a positive number, got 0"),
        (lambda: auc([1, 0], [1, 0], rel=np.nan), "rel must be a positive number"),
        (lambda: kendall_distance([1, 2], [1, 2], normalize="yes"), "normalize must be True or False"),
        (lambda: pair_counts(np.zeros((2, 2, 2))), "labels must be 1-D or 2-D, got 3-D"),
        (lambda: pair_counts(["a", "b"]), "labels must hold numbers"),
        (lambda: kendall_tau([[1, "x"]], [[1, 2]]), "a must hold numbers"),
    ],
)
def test_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_public_names_exported():
    # By module and name, not identity: pytest's doctest collection (--import-mode=importlib)
    # may import rankkit/pairwise.py a second time as another module object.
    for name in ("kendall_tau", "kendall_distance", "inversions", "pair_counts", "pnr", "auc"):
        exported = getattr(rk, name)
        assert (exported.__module__, exported.__name__) == ("rankkit.metrics.pairwise", name)
        assert exported.__doc__ == getattr(pw, name).__doc__


def test_pair_counts_long_list_matches_numpy_brute_force():
    rng = np.random.default_rng(11)
    labels = rng.integers(0, 5, 3000).astype(float)
    diff = labels[:, None] - labels[None, :]  # diff[i, j] = label_i - label_j
    upper = np.triu(np.ones(diff.shape, dtype=bool), 1)
    expected = PairCounts(float((diff > 0)[upper].sum()), float((diff < 0)[upper].sum()),
                          float((diff == 0)[upper].sum()))
    assert pair_counts(labels) == expected
    batch = pair_counts([labels, labels[:1000], labels[::-1]])
    assert batch.discordant[0] == expected.discordant
    assert batch.discordant[2] == expected.concordant  # reversing swaps the two
    assert batch.tied[2] == expected.tied


# --------------------------------------------------------------------------- pnr with model scores


def brute_force_scored(labels, scores):
    """O(n^2) over every pair of documents: (concordant, discordant, tied labels), a pair
    with equal scores and different labels counting 1/2 to each side."""
    concordant = discordant = tied = 0.0
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            dl, ds = labels[i] - labels[j], scores[i] - scores[j]
            if dl == 0:
                tied += 1
            elif ds == 0:
                concordant += 0.5
                discordant += 0.5
            elif (dl > 0) == (ds > 0):
                concordant += 1
            else:
                discordant += 1
    return concordant, discordant, tied


def test_pnr_with_scores_by_hand():
    labels = [3, 2, 3, 3, 2, 1]  # Wang Shusen's first example: 9 / 2 (13 / 2 with ties concordant)
    assert pw.pnr(labels, scores=[0.9, 0.8, 0.7, 0.6, 0.5, 0.4]) == 4.5
    # the same documents listed in another order with their scores: the ranking is by score
    order = [5, 2, 0, 4, 1, 3]
    assert pw.pnr([labels[i] for i in order], [[0.9, 0.8, 0.7, 0.6, 0.5, 0.4][i] for i in order]) == 4.5
    # the 2nd and 3rd (中 = 2, 高 = 3) tie in score: that inversion counts 1/2 each way
    tied = [0.9, 0.8, 0.8, 0.6, 0.5, 0.4]
    assert pw.pair_counts(labels, scores=tied) == (9.5, 1.5, 4.0)
    assert pw.pnr(labels, scores=tied) == 9.5 / 1.5
    assert pw.pnr(labels, scores=tied, label_ties="concordant") == (9.5 + 4) / 1.5
    assert pw.inversions(labels, scores=tied) == 1.5
    # a pair tied in label and score is a label tie (label_ties= decides), never half a pair
    assert pw.pair_counts([1, 1, 0], scores=[0.5, 0.5, 0.1]) == (2.0, 0.0, 1.0)
    # a constant model: every pair with different labels is half in order, half inverted
    assert pw.pair_counts([1, 0, 1, 0], scores=[0.5] * 4) == (2.0, 2.0, 2.0)
    assert pw.pnr([1, 0, 1, 0], scores=[0.5] * 4) == 1.0
    assert pw.pnr([1, 0, 1, 0], scores=[0.5] * 4, label_ties="concordant") == 2.0
    # rows of a batch, ragged, and the rank order as scores gives the labels-only value
    np.testing.assert_array_equal(
        pw.pnr([[3, 2, 3, 3, 2, 1], [1, 0]], scores=[[6, 5, 4, 3, 2, 1], [0, 1]]), [4.5, 0.0])
    assert pw.pnr([2, 1], scores=[1, 1]) == 1.0
    assert np.isnan(pw.pnr([1], scores=[0.3]))


def test_pnr_scores_errors():
    with pytest.raises(ValueError, match="labels and scores must have the same shape"):
        pw.pnr([1, 0, 1], scores=[0.1, 0.2])
    with pytest.raises(ValueError, match="scores"):
        pw.pnr([1, 0], scores=[0.1, float("nan")])


@given(
    data=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 6)), min_size=0, max_size=40),
    ties=st.sampled_from(["concordant", "ignore"]),
)
@settings(max_examples=sweep(200))
def test_pnr_with_scores_matches_brute_force(data, ties):
    labels = [float(label) for label, _ in data]
    scores = [score / 6 for _, score in data]  # few distinct scores: many ties
    concordant, discordant, tied = brute_force_scored(labels, scores)
    assert pw.pair_counts(labels, scores=scores) == (concordant, discordant, tied)
    assert pw.inversions(labels, scores=scores) == discordant
    numerator = concordant + tied if ties == "concordant" else concordant
    want = numerator / discordant if discordant else (math.inf if numerator else math.nan)
    got = pw.pnr(labels, scores=scores, label_ties=ties)
    assert got == want or (math.isnan(got) and math.isnan(want))
    # as one row of a batch (the long rows take the merge sort, the short ones broadcast)
    batch = pw.pnr([labels, labels[::-1]], scores=[scores, scores[::-1]], label_ties=ties)
    np.testing.assert_array_equal(batch, [got, got])


# --------------------------------------------------------------------------- rank order, tie groups, GAUC


def test_auc_in_rank_order_counts_the_negatives_ranked_below_each_positive():
    rows = [[1, 0, 1, 0, 0], [0, 1], [1, 1, 0], [0, 0]]
    expected = [(3 + 2) / 6, 0.0, 1.0, math.nan]
    np.testing.assert_array_equal(auc(rows), expected)
    # the same as scores falling with the rank
    np.testing.assert_array_equal(auc(rows), auc(rows, [[-i for i in range(len(r))] for r in rows]))
    assert auc([3, 2, 0, 1], rel=2) == 1.0 and auc([0, 2, 3, 1], rel=2) == 0.5


def test_auc_pnr_and_pair_counts_of_rankings_with_tie_groups_count_tied_pairs_half():
    qrels = {"q": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 2}}
    run = {"q": {"a": 0.5, "b": 0.5, "c": 0.2, "d": 0.9, "e": 0.5}}
    labels, scores = [1, 0, 1, 0, 2], [0.5, 0.5, 0.2, 0.9, 0.5]
    tied = rk.rank(qrels, run, ties="average")
    assert tied.ties is not None
    assert auc(tied)[0] == roc_auc_score(np.array(labels) >= 1, scores)
    assert auc(tied, rel=2)[0] == roc_auc_score(np.array(labels) >= 2, scores)
    assert pnr(tied)[0] == pnr(labels, scores)
    assert pair_counts(tied) == tuple(np.array([v]) for v in pair_counts(labels, scores))
    broken = rk.rank(qrels, run)  # docno order: e, b, a after d
    assert auc(broken)[0] == auc([0, 2, 0, 1, 1])


@settings(max_examples=sweep(80))
@given(rows=st.lists(st.lists(st.integers(0, 7), min_size=17, max_size=40), min_size=1, max_size=4))
def test_pair_counts_of_few_label_values_match_brute_force(rows):
    counts = pair_counts(rows)
    for i, row in enumerate(rows):
        assert (counts.concordant[i], counts.discordant[i], counts.tied[i]) == brute_label_pairs(row)


def test_gauc_by_hand_and_its_weights():
    labels = [[1, 0, 0], [1, 0, 1, 0], [0, 0], [1]]
    scores = [[0.9, 0.2, 0.1], [0.8, 0.9, 0.3, 0.2], [0.3, 0.1], [0.4]]
    # AUC 1 over 3 rows (1 positive, 2 pairs), 1/2 over 4 rows (2 positives, 4 pairs); the rest one class
    assert pw.gauc(labels, scores) == (3 * 1 + 4 * 0.5) / 7
    assert pw.gauc(labels, scores, weights="queries") == 0.75
    assert pw.gauc(labels, scores, weights="positives") == (1 + 2 * 0.5) / 3
    assert pw.gauc(labels, scores, weights="pairs") == (2 + 4 * 0.5) / 6
    assert pw.gauc(labels, scores, weights=np.array([2.0, 6.0, 100.0, 100.0])) == (2 + 3) / 8
    assert pw.gauc([1, 0, 1], [0.3, 0.2, 0.1]) == auc([1, 0, 1], [0.3, 0.2, 0.1])
    assert math.isnan(pw.gauc([[1, 1], [0]], [[0.1, 0.2], [0.3]]))
    assert math.isnan(pw.gauc(labels, scores, weights=[0.0, 0.0, 1.0, 1.0]))


@settings(max_examples=sweep(60))
@given(data=st.lists(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 4)), min_size=1, max_size=8),
                     min_size=1, max_size=5))
def test_gauc_is_the_weighted_mean_of_sklearn_roc_auc_score(data):
    labels = [[label for label, _ in row] for row in data]
    scores = [[score for _, score in row] for row in data]
    values, weights = [], []
    for y, s in zip(labels, scores):
        positive = np.array(y) >= 1
        if 0 < positive.sum() < len(y):
            values.append(roc_auc_score(positive, s))
            weights.append(len(y))
    expected = np.average(values, weights=weights) if values else math.nan
    assert pw.gauc(labels, scores) == pytest.approx(expected, rel=1e-14, nan_ok=True)


@pytest.mark.parametrize("weights, message", [
    ("users", r"weights must be one of 'rows', 'queries', 'positives', 'pairs', got 'users'"),
    ([1.0], r"weights must hold one number per query \(2\), got shape \(1,\)"),
    ([1.0, -1.0], "weights must be finite and non-negative"),
    ([1.0, math.nan], "weights must be finite and non-negative"),
    ({"a": 1}, "weights must be one of rows, queries, positives, pairs or one number per query, got dict"),
])
def test_gauc_weights_errors(weights, message):
    with pytest.raises(ValueError, match=message):
        pw.gauc([[1, 0], [0, 1]], [[0.2, 0.1], [0.2, 0.1]], weights=weights)


# --------------------------------------------------------------------------- one kernel, two readings


def _one_query(labels, scores, ties):
    """All rows as one query, ranked by the ranking primitive as ``evaluate_scores`` ranks a query."""
    from rankkit.ops.primitives import rank_rows
    from rankkit.rankings import Rankings

    y, s = np.asarray(labels, dtype=float)[None, :], np.asarray(scores, dtype=float)[None, :]
    ranked, _, tie_ids = rank_rows(y, s, np.ones(y.shape, dtype=bool), ascending_labels=ties == "pessimistic",
                                   groups=ties == "average")
    n = np.array([y.shape[1]])
    return Rankings(labels=ranked, judged=np.ones(y.shape, dtype=bool), lengths=n, ideal=-np.sort(-ranked, axis=1),
                    n_judged=n, query_ids=np.arange(1), ties=tie_ids)


@pytest.mark.parametrize("ties", ["average", "pessimistic", "optimistic"])
@pytest.mark.parametrize("seed", range(6))
def test_pooled_auc_is_the_auc_kernel_of_all_rows_as_one_query(ties, seed):
    """pooled_auc reads the negatives above each positive by a search in their sorted scores;
    auc's kernel reads them from prefix counts along the ranking of all rows: the same U,
    to the last bit, tied scores included."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 3000))
    labels = rng.integers(0, 4, n).astype(float)
    scores = np.round(rng.standard_normal(n), int(rng.integers(0, 3)))  # many ties
    for rel in (1, 3):
        want = pw.auc(_one_query(labels, scores, ties), rel=rel)
        got = pw.pooled_auc(labels, scores, ties=ties, rel=rel)
        assert np.float64(got).tobytes() == np.float64(want).tobytes(), (ties, rel, got, want)
    assert math.isnan(pw.pooled_auc(labels, scores, ties=ties, rel=9))  # no positive
    # the policies bracket the average, and the average is scikit-learn's
    positive = labels >= 1
    if 0 < positive.sum() < n:
        assert pw.pooled_auc(labels, scores, ties=ties) == pytest.approx(
            roc_auc_score(positive, scores), abs=1 if ties != "average" else 1e-14)


@pytest.mark.parametrize("seed", range(4))
def test_rank_rows_is_the_same_ranking_on_numpy_and_on_the_standard(seed):
    """The NumPy fast path of rank_rows (argsort of each row, labels of tied runs sorted in
    place) and its array-API path (two stable argsorts), both run, give the same matrices."""
    xs = pytest.importorskip("array_api_strict")
    from rankkit.ops.primitives import rank_rows

    rng = np.random.default_rng(seed)
    n, width = 40, int(rng.integers(1, 30))
    lengths = rng.integers(0, width + 1, n)
    valid = np.arange(width) < lengths[:, None]
    labels = rng.integers(0, 4, (n, width)).astype(float) * (1 if seed % 2 else 0.5)
    scores = np.round(rng.standard_normal((n, width)), 1)
    for ascending in (False, True):
        got = rank_rows(labels, scores, valid, ascending_labels=ascending, groups=True)
        other = rank_rows(xs.asarray(labels), xs.asarray(scores), xs.asarray(valid), ascending_labels=ascending,
                          groups=True)
        for mine, theirs in zip(got, other):
            np.testing.assert_array_equal(mine, np.asarray(theirs))
        # by hand: every row is its valid cells sorted by (score descending, label descending / ascending)
        for q in range(n):
            cells = sorted(zip(scores[q, :lengths[q]], labels[q, :lengths[q]]),
                           key=lambda c: (-c[0], c[1] if ascending else -c[1]))
            np.testing.assert_array_equal(got[0][q, :lengths[q]], [c[1] for c in cells])
            np.testing.assert_array_equal(got[1][q, :lengths[q]], [c[0] for c in cells])
            assert not got[0][q, lengths[q]:].any() and not got[1][q, lengths[q]:].any()


@pytest.mark.parametrize("levels", [2, 5, 40, None])
@pytest.mark.parametrize("width", [3, 16, 17, 60])
def test_pair_counting_numpy_and_standard_paths_are_one_function(width, levels):
    """ranked_pair_counts has two algorithms (NumPy's merge sort, levels and broadcasts; the
    standard's passes over label values or all pairs), kept apart for speed: on random
    rankings with tie groups, both give the same counts to the last bit."""
    rng = np.random.default_rng(width * 7 + (levels or 0))
    for trial in range(4):
        n = int(rng.integers(1, 30))
        labels = (rng.integers(0, levels, (n, width)) if levels else rng.random((n, width)) * 3).astype(float)
        scores = np.round(rng.standard_normal((n, width)), 1 if trial % 2 else 0)
        r = pw._ranked(labels, scores)
        if trial == 3 and r.ties is not None:  # groups whose labels do not descend
            r = r.take(np.arange(n))
            r = type(r)(**{**{f: getattr(r, f) for f in ("judged", "lengths", "ideal", "n_judged", "query_ids",
                                                             "ties")}, "labels": r.labels[:, ::-1].copy()})
        valid = np.arange(width) < r.lengths[:, None]
        numpy_path = counting.ranked_pair_counts(r.labels, valid, r.lengths, r.ties)
        standard_path = counting._ranked_pair_counts_xp(r.labels, valid, r.ties)
        for a, b in zip(numpy_path, standard_path):
            assert np.asarray(a, dtype=float).tobytes() == np.asarray(b, dtype=float).tobytes()
