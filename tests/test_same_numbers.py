"""Same numbers on every machine: every metric kernel, bit for bit, against pure Python.

``rankkit._numerics`` fixes one order of floating-point operations (sums along ranks and
over queries left to right, correctly rounded log2 and 2**x, powers multiplied one rank at
a time, products one IEEE operation each). Each reference below computes a metric with Python floats in that order,
one query and one rank at a time, and the kernel must give the *same double* (``==``),
on random rankings of 1 to 1000 documents: binary and graded labels, unjudged ranks,
padding (queries shorter than the matrix) and tie groups. A BLAS product (``@``) or
numpy's blocked ``sum`` would differ in the last bit on many of these inputs.
"""

from __future__ import annotations

import functools
import math
from decimal import Context, Decimal

import numpy as np
import pandas as pd
import pytest

import rankkit as rk
from rankkit.evaluation.scoring import aggregate, score
from rankkit.ops import numerics as _numerics
from rankkit.rankings import Rankings

SEEDS = range(12)


# --------------------------------------------------------------------------- inputs


def random_rankings(seed: int, *, ties: bool = False, kind: str = "graded") -> Rankings:
    """A few queries, depth 1..1000, some shorter than the matrix, some ranks unjudged."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    depth = int(rng.choice([1, 2, 7, 60, 333, 1000]))
    lengths = rng.integers(0, depth + 1, n)
    lengths[0] = depth
    if kind == "binary":
        grades = rng.integers(0, 2, (n, depth)).astype(float)
    elif kind == "fraction":
        grades = rng.choice([0.0, 0.3, 0.7, 1.0], (n, depth))
    else:
        grades = rng.integers(0, 5, (n, depth)).astype(float)
    inside = np.arange(depth) < lengths[:, None]
    judged = inside & (rng.random((n, depth)) < 0.8)
    labels = np.where(judged, grades, 0.0)
    # the ideal: the judged retrieved labels plus some judged but not retrieved
    extra = rng.integers(0, 20, n)
    ideal_rows = [
        sorted(list(labels[q][judged[q]]) + list(grades[q][: extra[q]]), reverse=True) for q in range(n)
    ]
    width = max(1, max(map(len, ideal_rows)))
    ideal = np.zeros((n, width))
    for q, row in enumerate(ideal_rows):
        ideal[q, : len(row)] = row
    tie_ids = None
    if ties:
        flat = np.arange(n * depth).reshape(n, depth)
        starts = rng.random((n, depth)) < 0.4
        starts[:, 0] = True
        starts |= ~inside  # padding: a group of its own per rank
        starts[:, 1:] |= ~inside[:, :-1]
        first = np.where(starts, flat, 0)
        tie_ids = np.maximum.accumulate(first, axis=1)
    return Rankings(
        labels=labels, judged=judged, lengths=lengths.astype(np.int64), ideal=ideal,
        n_judged=np.array([len(r) for r in ideal_rows], dtype=np.int64),
        query_ids=pd.Index([f"q{i}" for i in range(n)]), ties=tie_ids,
    )


def rows(r: Rankings):
    for q in range(r.n_queries):
        yield q, [float(x) for x in r.labels[q]]


def expected(r: Rankings, q: int, values: list[float]) -> list[float]:
    """Each value replaced by its tie group's mean: the group's sum, left to right, / size."""
    if r.ties is None:
        return values
    ids = [int(x) for x in r.ties[q]]
    sums: dict[int, float] = {}
    sizes: dict[int, int] = {}
    for i, v in zip(ids, values):
        sums[i] = sums.get(i, 0.0) + v
        sizes[i] = sizes.get(i, 0) + 1
    return [sums[i] / sizes[i] for i in ids]


def left_sum(values) -> float:
    total = 0.0
    for v in values:
        total += v
    return total


def cut(values: list[float], k: int | None) -> list[float]:
    return values if k is None else values[:k]


def ratio(num: float, den: float) -> float:
    return num / den if den > 0 else 0.0


DISCOUNT = [float(x) for x in _numerics.discounts(1000)]
LOG2 = [float(x) for x in _numerics.log2_ranks(1000)]  # trec_eval's DCG: gain / log2(i + 1)


@functools.cache  # the same (p, i) recurs in every ranking: computed once
def power(p: float, i: int) -> float:
    value = 1.0
    for _ in range(i):
        value *= p
    return value


def exp2(x: float) -> float:
    return _numerics._exp2_scalar(x)


def same(kernel_values, reference_values) -> None:
    kernel_values = np.asarray(kernel_values, dtype=np.float64)
    reference_values = np.asarray(reference_values, dtype=np.float64)
    assert kernel_values.shape == reference_values.shape
    mismatch = kernel_values != reference_values
    both_nan = np.isnan(kernel_values) & np.isnan(reference_values)
    assert not (mismatch & ~both_nan).any(), (kernel_values[mismatch], reference_values[mismatch])


# --------------------------------------------------------------------------- primitives


def test_log2_of_ranks_is_correctly_rounded():
    context = Context(prec=80)
    ln2 = context.ln(Decimal(2))
    exact = [float(context.divide(context.ln(Decimal(i + 1)), ln2)) for i in range(1, 3001)]
    assert list(_numerics.log2_ranks(3000)) == exact
    assert list(_numerics.discounts(3000)) == [1.0 / x for x in exact]


@pytest.mark.parametrize("p", [0.5, 0.8, 0.9, 0.95, 0.99, 1 / 3])
def test_powers_multiply_one_rank_at_a_time(p):
    expected, value = [], 1.0
    for _ in range(400):
        expected.append(value)
        value *= p  # trec_eval's cur_p = cur_p * p
    assert list(_numerics.powers(p, 400)) == expected


def test_exp2_is_correctly_rounded():
    context = Context(prec=80)
    xs = np.array([0.0, 1.0, 4.0, 0.3, 0.7, 2.5, 3.25, 1 / 3, 10.0, -1.0])
    ln2 = context.ln(Decimal(2))
    exact = [float(context.exp(context.multiply(Decimal(float(x)), ln2))) for x in xs]
    assert list(_numerics.exp2(xs)) == exact


def test_rank_sum_is_left_to_right():
    x = np.array([[1e16, 1.0, 1.0, -1e16], [0.1, 0.2, 0.3, 0.0]])
    assert list(_numerics.rank_sum(x)) == [0.0, (0.1 + 0.2) + 0.3]  # a pairwise sum gives 2.0 / 0.6
    assert list(_numerics.query_sum(x.T)) == [0.0, (0.1 + 0.2) + 0.3]


@pytest.mark.parametrize("layout", ["C", "F"])
def test_query_sum_adds_queries_in_order_in_either_memory_layout(layout):
    rng = np.random.default_rng(7)
    values = rng.standard_normal((300, 5)) * 10.0 ** rng.integers(-8, 9, (300, 5))  # sums sensitive to order
    values = np.asarray(values, order=layout)
    in_order = []
    for column in values.T:
        total = 0.0
        for v in column:  # query 0, 1, 2, ...
            total += float(v)
        in_order.append(total)
    assert list(_numerics.query_sum(values)) == in_order
    assert list(_numerics.query_mean(values)) == [t / 300 for t in in_order]


def test_exact_matmul_is_the_rounded_exact_sum():
    from fractions import Fraction

    rng = np.random.default_rng(5)
    counts = rng.integers(0, 4, (40, 300)).astype(float)
    x = rng.normal(size=(3, 300)) * rng.choice([1e-12, 1.0, 1e6], (3, 300))
    got = _numerics.exact_matmul(counts, x)
    for i in range(40):
        for j in range(3):
            exact = sum(Fraction(int(c)) * Fraction(v) for c, v in zip(counts[i], x[j]))
            assert abs(Fraction(got[i, j]) - exact) <= abs(exact) * Fraction(2) ** -52


# --------------------------------------------------------------------------- gain family


def ref_gains(r: Rankings, q: int, gain) -> list[float]:
    labels = [float(x) for x in r.labels[q]]
    if gain == "linear":
        g = labels
    elif gain == "exp":
        g = [exp2(x) - 1.0 for x in labels]
    else:
        g = [gain.get(x, x) if r.judged[q, i] else 0.0 for i, x in enumerate(labels)]
    return expected(r, q, g)


def ref_ideal(r: Rankings, q: int, gain, k) -> list[float]:
    judged = [float(x) for x in r.ideal[q][: r.n_judged[q]]]
    if gain == "linear":
        g = judged
    elif gain == "exp":
        g = [exp2(x) - 1.0 for x in judged]
    else:
        g = [max(gain.get(x, x), 0.0) for x in judged]
    return cut(sorted(g, reverse=True), k)


def ref_dcg(gains: list[float]) -> float:
    return left_sum(g / LOG2[i] for i, g in enumerate(gains))


GAINS = ["linear", "exp", {1.0: 3.0, 2.0: 9.0, 4.0: 4.5}]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("k", [None, 1, 5, 100])
def test_gain_metrics_bit_for_bit(seed, ties, k):
    r = random_rankings(seed, ties=ties)
    for gain in GAINS:
        cg, dcg, idcg, ndcg = [], [], [], []
        for q, _ in rows(r):
            gains = cut(ref_gains(r, q, gain), k)
            cg.append(left_sum(gains))
            dcg.append(ref_dcg(gains))
            idcg.append(ref_dcg(ref_ideal(r, q, gain, k)))
            ndcg.append(ratio(dcg[-1], idcg[-1]))
        same(rk.cumulative_gain(r, k=k, gain=gain), cg)
        same(rk.dcg(r, k=k, gain=gain), dcg)
        same(rk.idcg(r, k=k, gain=gain), idcg)
        same(rk.ndcg(r, k=k, gain=gain), ndcg)


def jk_weights(base: float, n: int) -> list[float]:
    """Järvelin & Kekäläinen: 1 below rank ``base``, then 1 / log_base(i), log at 80 digits."""
    context = Context(prec=80)
    ln_base = context.ln(Decimal(base))
    return [1.0 if i < base else 1.0 / float(context.divide(context.ln(Decimal(i)), ln_base))
            for i in range(1, n + 1)]


@pytest.mark.parametrize("seed", SEEDS[:4])
@pytest.mark.parametrize("base", [2.0, 3.0, 1.5, 10.0])
@pytest.mark.parametrize("k", [None, 5])
def test_jk_discount_bit_for_bit(seed, base, k):
    r = random_rankings(seed, ties=seed % 2 == 1)
    weights = jk_weights(base, r.depth + r.ideal.shape[1])
    for gain in GAINS:
        dcg, idcg, ndcg = [], [], []
        for q, _ in rows(r):
            gains = cut(ref_gains(r, q, gain), k)
            dcg.append(left_sum(g * weights[i] for i, g in enumerate(gains)))
            idcg.append(left_sum(g * weights[i] for i, g in enumerate(ref_ideal(r, q, gain, k))))
            ndcg.append(ratio(dcg[-1], idcg[-1]))
        same(rk.dcg(r, k=k, gain=gain, discount="jk", base=base), dcg)
        same(rk.idcg(r, k=k, gain=gain, discount="jk", base=base), idcg)
        same(rk.ndcg(r, k=k, gain=gain, discount="jk", base=base), ndcg)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("k", [None, 3, 50])
def test_rbp_bit_for_bit(seed, ties, k):
    r = random_rankings(seed, ties=ties)
    for p in (0.5, 0.8, 0.95):
        binary, graded, by_query, mz, te = [], [], [], [], []
        for q, labels in rows(r):
            weights = [power(p, i) for i in range(len(labels))]
            hit = cut(expected(r, q, [1.0 if x >= 2 else 0.0 for x in labels]), k)
            binary.append((1.0 - p) * left_sum(v * weights[i] for i, v in enumerate(hit)))
            scaled = cut(expected(r, q, [x / 4.0 for x in labels]), k)
            graded.append((1.0 - p) * left_sum(v * weights[i] for i, v in enumerate(scaled)))
            top = max(max(r.ideal[q], default=0.0), max(labels, default=0.0))
            scale = top if top > 1.0 else 1.0
            scaled = cut(expected(r, q, [x / scale for x in labels]), k)
            by_query.append((1.0 - p) * left_sum(v * weights[i] for i, v in enumerate(scaled)))
            length = int(r.lengths[q])
            unknown = [1.0 if i < length and not r.judged[q, i] else 0.0 for i in range(len(labels))]
            unknown = cut(expected(r, q, unknown), k)
            evaluated = length if k is None else min(length, k)
            partial = (1.0 - p) * left_sum(v * weights[i] for i, v in enumerate(unknown))
            mz.append(power(p, evaluated) + partial)
            if r.ties is None:
                chance = 1.0 if any(x > 0 for x in unknown) else 0.0
                te.append(power(p, evaluated) * chance + partial)
        same(rk.rbp(r, p=p, k=k, rel=2), binary)
        same(rk.rbp(r, p=p, k=k, max_grade=4), graded)
        same(rk.rbp(r, p=p, k=k, max_grade="query"), by_query)
        same(rk.rbp_residual(r, p=p, k=k), mz)
        if r.ties is None:
            same(rk.rbp_residual(r, p=p, k=k, convention="trec_eval"), te)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["graded", "fraction"])
@pytest.mark.parametrize("k", [None, 10])
def test_err_bit_for_bit(seed, kind, k):
    r = random_rankings(seed, kind=kind)
    top = max(float(r.ideal.max(initial=0.0)), float(r.labels.max(initial=0.0)))
    for p in (1.0, 0.9):
        out = []
        for _q, labels in rows(r):
            labels = cut(labels, k)
            stop = [(exp2(x) - 1.0) / exp2(top) for x in labels]
            total, reach = 0.0, 1.0
            for i, s in enumerate(stop):
                chance = s if i == 0 else s * reach
                total += chance * (power(p, i) / (i + 1))
                reach *= 1.0 - s
            out.append(total)
        same(rk.err(r, k=k, p=p), out)


# --------------------------------------------------------------------------- binary family


def relevant_ranks(labels, rel, k=None):
    return [i + 1 for i, x in enumerate(cut(labels, k)) if x >= rel]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [None, 1, 10, 500])
def test_set_and_rank_metrics_bit_for_bit(seed, k):
    r = random_rankings(seed)
    rel = 2
    n_rel = [int((r.ideal[q] >= rel).sum()) for q in range(r.n_queries)]
    p, rec, rr, ap = [], [], [], {"relevant": [], "retrieved": [], "min_k": []}
    for q, labels in rows(r):
        ranks = relevant_ranks(labels, rel, k)
        p.append(ratio(float(len(ranks)), float(int(r.lengths[q]) if k is None else k)))
        rec.append(ratio(float(len(ranks)), float(n_rel[q])))
        rr.append(1.0 / ranks[0] if ranks else 0.0)
        total = left_sum((c + 1.0) / rank for c, rank in enumerate(ranks))
        ap["relevant"].append(ratio(total, n_rel[q]))
        ap["retrieved"].append(ratio(total, len(ranks)))
        ap["min_k"].append(ratio(total, n_rel[q] if k is None else min(n_rel[q], k)))
    same(rk.precision(r, k=k, rel=rel), p)
    same(rk.recall(r, k=k, rel=rel), rec)
    same(rk.reciprocal_rank(r, k=k, rel=rel), rr)
    for normalize, values in ap.items():
        same(rk.average_precision(r, k=k, rel=rel, normalize=normalize), values)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [None, 2, 10])
def test_tie_averaged_counts_bit_for_bit(seed, k):
    r = random_rankings(seed, ties=True, kind="binary")
    p, rec, rprec = [], [], []
    for q, labels in rows(r):
        hits = left_sum(cut(expected(r, q, [1.0 if x >= 1 else 0.0 for x in labels]), k))
        p.append(ratio(hits, float(int(r.lengths[q]) if k is None else k)))
        n_rel = int((r.ideal[q] >= 1).sum())
        rec.append(ratio(hits, float(n_rel)))
        prefix = left_sum(expected(r, q, [1.0 if x >= 1 else 0.0 for x in labels])[: min(n_rel, r.depth)])
        rprec.append(ratio(prefix, float(n_rel)))
    same(rk.precision(r, k=k), p)
    same(rk.recall(r, k=k), rec)
    same(rk.r_precision(r), rprec)


@pytest.mark.parametrize("seed", SEEDS)
def test_success_with_ties_bit_for_bit(seed):
    r = random_rankings(seed, ties=True, kind="binary")
    for k in (1, 3, 20):
        if k >= r.depth:
            continue
        out = []
        for q, labels in rows(r):
            ids = [int(x) for x in r.ties[q]]
            members = [i for i, g in enumerate(ids) if g == ids[k - 1]]
            start, size = members[0], len(members)
            n_rel_group = sum(1 for i in members if labels[i] >= 1)
            inside = k - start
            before = any(labels[i] >= 1 for i in range(start))
            free = size - n_rel_group
            none = 1.0
            for j in range(inside):
                none *= max(free - j, 0) / max(size - j, 1)
            none = none if free >= inside else 0.0
            out.append(1.0 if before else 1.0 - none)
        same(rk.success(r, k=k), out)


@pytest.mark.parametrize("seed", SEEDS)
def test_bpref_and_iprec_bit_for_bit(seed):
    r = random_rankings(seed)
    rel = 1
    bp, ip, book = [], [], []
    levels = [0.0, 0.1, 0.25, 0.28, 0.5, 0.7, 1.0]
    for q, labels in rows(r):
        n_rel = int((r.ideal[q] >= rel).sum())
        n_nonrel = int(r.n_judged[q]) - n_rel
        total, above = 0.0, 0
        for i, x in enumerate(labels):
            if x >= rel:
                total += 1.0 - ratio(min(above, n_rel), min(n_nonrel, n_rel))
            elif r.judged[q, i]:
                above += 1
        bp.append(ratio(total, n_rel))
        ranks = relevant_ranks(labels, rel)
        precisions = [(c + 1.0) / rank for c, rank in enumerate(ranks)]
        row, textbook = [], []
        for level in levels:
            x = level * n_rel
            count = max(int(math.floor(x) + (x - math.floor(x) >= 0.5)), 1)
            reached = count <= len(ranks) and n_rel > 0
            row.append(max(precisions[count - 1:]) if reached else 0.0)
            # textbook: the first relevant document whose recall c / R reaches the level
            count = next((c for c in range(1, len(ranks) + 1) if c / n_rel >= level), None)
            textbook.append(max(precisions[count - 1:]) if count else 0.0)
        ip.append(row)
        book.append(textbook)
    same(rk.bpref(r, rel=rel), bp)
    same(rk.interpolated_precision(r, recall_levels=levels, rel=rel, rounding="nearest"), ip)
    same(rk.interpolated_precision(r, recall_levels=levels, rel=rel), book)


# --------------------------------------------------------------------------- pairs, errors, means


@pytest.mark.parametrize("seed", SEEDS)
def test_pairwise_and_errors_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    labels = rng.integers(0, 4, n).astype(float)
    scores = np.round(rng.random(n), 2)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    concordant = sum(1 for i, j in pairs if (labels[i] - labels[j]) * (scores[i] - scores[j]) > 0)
    discordant = sum(1 for i, j in pairs if (labels[i] - labels[j]) * (scores[i] - scores[j]) < 0)
    tied_a = sum(1 for i, j in pairs if labels[i] == labels[j])
    tied_b = sum(1 for i, j in pairs if scores[i] == scores[j])
    total = n * (n - 1) / 2
    tau = (concordant - discordant) / math.sqrt((total - tied_a) * (total - tied_b))
    assert rk.kendall_tau(labels, scores) == min(max(tau, -1.0), 1.0)
    positive = [s for x, s in zip(labels, scores) if x >= 2]
    negative = [s for x, s in zip(labels, scores) if x < 2]
    if positive and negative:
        wins = sum(1.0 if p > m else 0.5 if p == m else 0.0 for p in positive for m in negative)
        assert rk.auc(labels, scores, rel=2) == wins / (len(positive) * len(negative))
    predicted = rng.random(n) * 3
    squared = left_sum((t - y) * (t - y) for t, y in zip(labels, predicted))
    absolute = left_sum(abs(t - y) for t, y in zip(labels, predicted))
    assert rk.mse(labels, predicted) == squared / n
    assert rk.mae(labels, predicted) == absolute / n


@pytest.mark.parametrize("seed", SEEDS)
def test_means_over_queries_in_query_order(seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, (int(rng.integers(1, 400)), 30)).astype(float)
    table = score(labels, ["nDCG@10", "AP", "num_rel_ret"])
    means = aggregate(table)
    for column in ("nDCG@10", "AP"):
        assert means[column] == left_sum(float(x) for x in table[column]) / len(table)
    assert means["num_rel_ret"] == left_sum(float(x) for x in table["num_rel_ret"])


# --------------------------------------------------------------------------- other kernels

_PROBE = r"""
import numpy as np, pandas as pd, rankkit as rk
from rankkit.stats import compare
rng = np.random.default_rng(7)
labels = np.where(rng.random((300, 700)) < 0.2, rng.integers(0, 4, (300, 700)), 0).astype(float)
values = [rk.ndcg(labels), rk.ndcg(labels, k=10, gain="exp"), rk.dcg(labels), rk.rbp(labels, p=0.95),
          rk.err(labels), rk.average_precision(labels), rk.rbp_residual(labels, p=0.9)]
tables = {name: pd.DataFrame({"m": rng.random(300)}) for name in "abc"}
for test in ("t", "randomization", "bootstrap"):
    table = compare(None, tables, "m", test=test, n_resamples=500, seed=1)
    values.append(table[["diff", "ci_low", "ci_high", "p_value"]].to_numpy().ravel())
print(" ".join(float(x).hex() for v in values for x in np.ravel(v)))
"""


def test_same_bits_whatever_simd_target_or_blas_kernel():
    """numpy picks SIMD code by CPU and OpenBLAS a kernel by CPU: neither may change a bit.

    Runs the same computations with numpy's AVX2/AVX-512 targets disabled and with
    OpenBLAS forced to an old kernel; each must print exactly what the default prints.
    """
    import os
    import platform
    import subprocess
    import sys

    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("the SIMD targets named here are x86-64's")

    def probe(**env):
        result = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                                env={**os.environ, **env}, check=True)
        return result.stdout

    default = probe()
    assert len(default.split()) > 2000
    assert probe(NPY_DISABLE_CPU_FEATURES="X86_V3 X86_V4 AVX2 FMA3 AVX512F AVX512_SKX") == default
    assert probe(OPENBLAS_CORETYPE="Prescott") == default


# --------------------------------------------------------------------------- trec_eval's other measures

from rankkit.evaluation.scoring import geometric_mean  # noqa: E402
from rankkit.metrics import incomplete as judgments  # noqa: E402
from rankkit.metrics import set_based as sets  # noqa: E402
from rankkit.metrics.binary import (  # noqa: E402
    interpolated_precision_average,
    num_nonrelevant_judged_retrieved,
    r_precision,
    relative_precision,
)
from rankkit.metrics.graded import binary_g, g_measure, ndcg_rel, rndcg  # noqa: E402


def log2(x: float) -> float:
    return _numerics._log2_scalar(x)


@pytest.mark.parametrize("seed", SEEDS)
def test_set_measures_and_cutoff_variants_bit_for_bit(seed):
    r = random_rankings(seed)
    rel = 2
    for q, labels in rows(r):
        n, n_rel = int(r.lengths[q]), int((r.ideal[q] >= rel).sum())
        found = float(sum(1 for x in labels if x >= rel))
        for k in (None, 3, 50):
            hits = float(sum(1 for x in cut(labels, k) if x >= rel))
            best = min(n if k is None else k, n_rel)
            assert relative_precision(r, k=k, rel=rel)[q] == ratio(hits, best)
        for multiple in (0.2, 1.0, 1.4):
            c = math.floor(multiple * n_rel + 0.9)
            hits = float(sum(1 for x in labels[:c] if x >= rel))
            assert r_precision(r, multiple=multiple, rel=rel)[q] == ratio(hits, c)
        assert sets.set_average_precision(r, rel=rel)[q] == ratio(found * found, float(n) * n_rel)
        p, c = ratio(found, n), ratio(found, n_rel)
        f = ((0.5 + 1.0) * p * c) / (0.5 * p + c) if found > 0 and 0.5 * p + c > 0 else 0.0
        assert sets.set_f(r, beta=0.5, rel=rel)[q] == f
        a, b, cc, d, big = 2.0, -1.0, -0.5, 0.25, 1000.0
        expected = a * found + b * (n - found) + cc * (n_rel - found) + d * (big + found - n - n_rel)
        assert sets.utility(r, a=a, b=b, c=cc, d=d, n_docs=1000, rel=rel)[q] == expected
        nonrel = float(sum(1 for i in range(n) if r.judged[q, i] and labels[i] < rel))
        assert num_nonrelevant_judged_retrieved(r, rel=rel)[q] == nonrel


@pytest.mark.parametrize("seed", SEEDS)
def test_eleven_point_average_bit_for_bit(seed):
    r = random_rankings(seed, kind="binary")
    for levels in ([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0], [0.5, 0.1, 0.9], [0.25, 0.75]):
        out = []
        for q, labels in rows(r):
            n_rel = int((r.ideal[q] >= 1).sum())
            ranks = relevant_ranks(labels, 1)
            precisions = [(c + 1.0) / rank for c, rank in enumerate(ranks)]
            best = [max(precisions[t:]) for t in range(len(precisions))]
            values, phase, reached = [0.0] * len(levels), "skip", len(ranks)
            for j in reversed(range(len(levels))):  # trec_eval's walk, last level first
                x = levels[j] * n_rel
                count = int(math.floor(x) + (x - math.floor(x) >= 0.5))
                if phase == "skip" and count > len(ranks):
                    continue
                if phase != "stuck" and 1 <= count <= reached:
                    phase, reached, values[j] = "walk", count, best[count - 1]
                else:
                    phase, values[j] = "stuck", best[0] if best else 0.0
            out.append(left_sum(reversed(values)) / len(levels))
        same(interpolated_precision_average(r, recall_levels=levels, rounding="nearest"), out)
        textbook = rk.interpolated_precision(r, recall_levels=levels)  # checked above
        expected = [left_sum(reversed(list(row))) / len(levels) for row in textbook]
        same(interpolated_precision_average(r, recall_levels=levels), expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_pool_measures_bit_for_bit(seed):
    r = random_rankings(seed)
    rng = np.random.default_rng(seed)
    pooled = r.judged | (rng.random(r.judged.shape) < 0.3) & (np.arange(r.depth) < r.lengths[:, None])
    r = Rankings(labels=r.labels, judged=r.judged, lengths=r.lengths, ideal=r.ideal, n_judged=r.n_judged,
                 query_ids=r.query_ids, pooled=pooled)
    eps = 0.00001
    for q, labels in rows(r):
        n, n_rel = int(r.lengths[q]), int((r.ideal[q] >= 1).sum())
        for k in (None, 5, 20):
            missing = float(sum(1 for i in range(n if k is None else min(k, n)) if not r.judged[q, i]))
            assert judgments.unjudged(r, k=k)[q] == ratio(missing, float(n if k is None else k))
        total, rel_above, nonrel_above, unj_above = 0.0, 0, 0, 0
        for i in range(n):
            if not pooled[q, i]:
                continue
            if not r.judged[q, i]:
                unj_above += 1
            elif labels[i] < 1:
                nonrel_above += 1
            else:
                k1 = float(i + 1)
                if i == 0:
                    total += 1.0
                else:
                    total += 1.0 / k1 + ((k1 - 1.0) / k1) * (
                        (rel_above + nonrel_above + unj_above) / (k1 - 1.0)) * (
                        (rel_above + eps) / (rel_above + nonrel_above + 2.0 * eps))
                rel_above += 1
        assert judgments.inferred_average_precision(r)[q] == ratio(total, n_rel)


@pytest.mark.parametrize("seed", SEEDS)
def test_kishida_and_ndcg_variants_bit_for_bit(seed):
    r = random_rankings(seed)
    for q, labels in rows(r):
        n = int(r.lengths[q])
        gains = [labels[i] if i < n else 0.0 for i in range(len(labels))]
        ideal = sorted((x for x in r.ideal[q][: r.n_judged[q]] if x > 0), reverse=True)
        n_rel = sum(1 for x in r.ideal[q] if x >= 1)
        # binG
        total, found = 0.0, 0
        for i, x in enumerate(labels):
            if x >= 1:
                total += 1.0 / log2(2.0 + (i - found))
                found += 1
        assert binary_g(r)[q] == ratio(total, n_rel)
        # G
        total, c, s = 0.0, 0.0, 0.0
        for i, g in enumerate(gains):
            c += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
            s += g
            if g != 0.0:
                total += g / log2(2.0 + c - s)
        assert g_measure(r)[q] == ratio(total, left_sum(ideal))
        # prefix DCG and ideal DCG
        dcg_at, acc = [], 0.0
        for i, g in enumerate(gains):
            acc += g / LOG2[i]
            dcg_at.append(acc)
        width = max(len(labels), len(ideal))
        idcg_at, acc = [], 0.0
        for j in range(width):
            acc += (ideal[j] if j < len(ideal) else 0.0) / LOG2[j]
            idcg_at.append(acc)
        big_k = len(ideal)
        dcg_n = dcg_at[n - 1] if n else 0.0
        idcg_k = idcg_at[big_k - 1] if big_k else 0.0
        # nDCG_rel
        positive = [i for i, g in enumerate(gains) if g > 0]
        total = left_sum(dcg_at[i] / idcg_at[i] for i in positive) + (big_k - len(positive)) * (
            dcg_n / idcg_k if idcg_k else math.nan)
        assert ndcg_rel(r)[q] == (total / big_k if big_k and total > 0 else 0.0)
        # RnDCG
        if n_rel == 0:
            assert rndcg(r)[q] == 0.0
            continue
        changes = [c for c in range(1, big_k + 1) if c == big_k or ideal[c - 1] != ideal[c]]
        terms = [(dcg_at[min(c, n) - 1] if min(c, n) else 0.0) / idcg_at[c - 1] for c in changes]
        total = left_sum(terms)
        count = len(terms)
        if n > big_k + 1:
            total += dcg_n / idcg_k if idcg_k else math.nan
            count += 1
        expected = total / count if count else math.nan
        same([rndcg(r)[q]], [expected])


def test_geometric_mean_is_the_decimal_product():
    from decimal import Context, localcontext

    values = np.random.default_rng(3).random(500)
    values[:5] = [0.0, 1e-9, 1.0, 0.5, 1e-5]
    with localcontext(Context(prec=40, Emin=-(10**12), Emax=10**12)):
        product = Decimal(1)
        for v in values:
            product *= Decimal(float(max(v, 1e-5)))
        expected = float((product.ln() / len(values)).exp())
    assert geometric_mean(values) == expected
    assert abs(expected - np.exp(np.mean(np.log(np.maximum(values, 1e-5))))) < 1e-14


# --------------------------------------------------------------------------- C/W/L metrics, compatibility


def cwl_gains(r: Rankings, q: int, labels: list[float], low: float, high: float) -> list[float]:
    return [(min(max(x, low), high) - low) / (high - low) if r.judged[q, i] else 0.0 for i, x in enumerate(labels)]


def cwl_rate(gains: list[float], width: int, stay) -> float:
    """sum_i P_i g_i / sum_i P_i over ranks 1..width, P_1 = 1, P_{i+1} = P_i * C_i, all left to right;
    ``stay(i, g_i, G_i)`` is C_i (G_i the gains of ranks 1..i added left to right)."""
    gains = (gains + [0.0] * width)[:width]
    reach, found, total, collected = 1.0, 0.0, 0.0, 0.0
    for i, g in enumerate(gains):
        found += reach * g
        total += reach
        collected += g
        reach *= stay(i + 1.0, g, collected)
    return found / total


def squared_ratio(reach: float) -> float:
    ratio = (reach - 1.0) / reach
    return ratio * ratio


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("depth", [1000, 5])
def test_cwl_metrics_bit_for_bit(seed, depth):
    from rankkit.metrics import cwl

    r = random_rankings(seed, kind="graded")
    low, high = 1.0, 3.0  # labels 0..4: clipped at both ends
    for k in (1, 10, 2000):
        width = min(k, depth)
        out: dict[str, list[float]] = {"nerr8": [], "nerr9": [], "bpm": []}
        for q, labels in rows(r):
            g = cwl_gains(r, q, labels, low, high)
            out["nerr8"].append(cwl_rate(g, width, lambda i, x, G: 1.0 - x))
            out["nerr9"].append(cwl_rate(g, width, lambda i, x, G: i / (i + 1.0) * (1.0 - x)))
            seen, stop = 0.0, width
            for i, x in enumerate(g[:width]):
                seen += x
                if seen >= 1.5:
                    stop = i + 1
                    break
            out["bpm"].append(seen / stop)
        same(cwl.nerr8(r, k=k, min_grade=low, max_grade=high, depth=depth), out["nerr8"])
        same(cwl.nerr9(r, k=k, min_grade=low, max_grade=high, depth=depth), out["nerr9"])
        same(cwl.bpm(r, k=k, T=1.5, min_grade=low, max_grade=high, depth=depth), out["bpm"])
    for T in (1.0, 2.5):
        out = {"nerr10": [], "nerr11": [], "inst": []}
        for q, labels in rows(r):
            g = cwl_gains(r, q, labels, low, high)
            out["nerr10"].append(cwl_rate(g, depth, lambda i, x, G: 0.9 * (1.0 - x)))
            out["nerr11"].append(cwl_rate(g, depth, lambda i, x, G, T=T: squared_ratio(i + 2.0 * T) * (1.0 - x)))
            out["inst"].append(cwl_rate(g, depth, lambda i, x, G, T=T: squared_ratio((i + T) + (T - G))))
        same(cwl.nerr10(r, p=0.9, min_grade=low, max_grade=high, depth=depth), out["nerr10"])
        same(cwl.nerr11(r, T=T, min_grade=low, max_grade=high, depth=depth), out["nerr11"])
        same(cwl.inst(r, T=T, min_grade=low, max_grade=high, depth=depth), out["inst"])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ties", [False, True])
def test_sdcg_and_insq_bit_for_bit(seed, ties):
    from rankkit.metrics import cwl

    r = random_rankings(seed, ties=ties)
    top = max(float(r.ideal.max(initial=0.0)), float(r.labels.max(initial=0.0)))
    for depth, k in ((1000, 10), (1000, 1500), (7, 20)):
        width = min(k, depth)
        reach = [1.0]
        for i in range(1, depth):
            reach.append(reach[-1] * squared_ratio(i + 2.0 * 2.0))
        sdcg, insq = [], []
        for q, labels in rows(r):
            g = expected(r, q, cwl_gains(r, q, labels, 0.0, top))
            sdcg.append(left_sum(x * DISCOUNT[i] for i, x in enumerate(g[:width])) / left_sum(DISCOUNT[:width]))
            insq.append(left_sum(x * reach[i] for i, x in enumerate(g[:depth])) / left_sum(reach))
        same(cwl.sdcg(r, k=k, depth=depth), sdcg)
        same(cwl.insq(r, T=2.0, depth=depth), insq)


def compat_reference(r: Rankings, q: int, p: float, normalize: bool) -> float:
    """Documents by identity: the run's relevant ones, then the ideal's unretrieved ones of each
    label; RBO summed depth by depth, keeping the two prefixes' overlap as they grow."""
    length = int(r.lengths[q])
    run = [("run", i) for i in range(length)]
    label_of = {("run", i): float(r.labels[q, i]) for i in range(length)}
    ideal_labels = [float(x) for x in r.ideal[q][: int(r.n_judged[q])] if x > 0]
    ideal = []
    for level in sorted(set(ideal_labels), reverse=True):
        mine = [d for d in run if label_of[d] == level]
        missing = ideal_labels.count(level) - len(mine)
        ideal += mine + [("missed", level, j) for j in range(missing)]

    depth = max(len(run), len(ideal))  # of both sums, the ideal's with itself too

    def rbo(a: list, b: list) -> tuple[float, float]:
        seen_a, seen_b, both, found, total, weight = set(), set(), 0, 0.0, 0.0, 1.0
        for d in range(depth):
            x, y = (a[d] if d < len(a) else None), (b[d] if d < len(b) else None)
            if x is not None:
                seen_a.add(x)
                both += x in seen_b
            if y is not None:
                seen_b.add(y)
                both += y in seen_a  # counted once when x is y
            found += weight * both / (d + 1)
            total += weight
            weight *= p
        return found, total

    found, total = rbo(run, ideal)
    if total == 0:
        return 0.0
    value = found / total
    if normalize:
        best, _ = rbo(ideal, ideal)
        if best > 0:
            value = value / (best / total)
    return value


@pytest.mark.parametrize("seed", SEEDS)
def test_compatibility_bit_for_bit(seed):
    from rankkit.metrics.overlap import compatibility

    r = random_rankings(seed)
    for p in (0.95, 0.5):
        for normalize in (True, False):
            want = [compat_reference(r, q, p, normalize) for q in range(r.n_queries)]
            same(compatibility(r, p=p, normalize=normalize), want)
