"""Model scores evaluated on array-API libraries: the metric kernels on another library's arrays.

Oracles: the exact expectation over every order of the tie groups, enumerated by brute
force with the metrics written out by hand below; scikit-learn's ``ndcg_score`` and
``roc_auc_score`` per query; rankkit's NumPy functions on each query's list in the
tie-broken order; torchmetrics' retrieval metrics for ``retrieved="positive"``; and the
NumPy path of ``evaluate_scores``, which every other library must equal (float64 within
1e-12, float32 within 1e-5).
"""

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from library_scores import SUPPORTED, score_arrays
from sweeps import sweep

import rankkit as rk
from rankkit.names import parse_metric

array_api_compat = pytest.importorskip("array_api_compat")
xs = pytest.importorskip("array_api_strict")

FLOAT64 = 1e-12
FLOAT32 = 1e-5

def to_numpy(x):
    """A host copy, for the assertions only."""
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    if hasattr(x, "get") and type(x).__module__.startswith("cupy"):
        return x.get()
    if type(x).__module__.startswith("array_api_strict"):
        return np.asarray(x._array)
    return np.asarray(x)


def run(labels, scores, query, specs, xp=xs, **options):
    """score_arrays on array-api-strict (float64): per-query values and aggregates as NumPy."""
    ids, values, totals, n_rows = score_arrays(
        xp, xp.asarray(labels), xp.asarray(scores), None if query is None else xp.asarray(query),
        [parse_metric(s) for s in specs], **options)
    return (to_numpy(ids), {s: to_numpy(v) for s, v in values.items()},
            {s: float(to_numpy(v)) for s, v in totals.items()}, to_numpy(n_rows))


# --------------------------------------------------------------------------- metrics by hand


def _dcg(seq, k=None, gain=lambda x: x):
    return sum(gain(x) / math.log2(i + 2) for i, x in enumerate(seq[:k]))


def _ndcg(seq, k=None, gain=lambda x: x):
    best = _dcg(sorted(seq, reverse=True), k, gain)
    return _dcg(seq, k, gain) / best if best > 0 else 0.0


def _ap(seq, k=None):
    hits, total = 0, 0.0
    for i, x in enumerate(seq[:k]):
        if x >= 1:
            hits += 1
            total += hits / (i + 1)
    n_rel = sum(x >= 1 for x in seq)
    return total / n_rel if n_rel else 0.0


def _rr(seq, k=None):
    return next((1.0 / (i + 1) for i, x in enumerate(seq[:k]) if x >= 1), 0.0)


HAND = {
    "nDCG@3": lambda s: _ndcg(s, 3),
    "nDCG": _ndcg,
    "nDCG(gain='exp')@4": lambda s: _ndcg(s, 4, lambda x: 2.0 ** x - 1.0),
    "DCG@5": lambda s: _dcg(s, 5),
    "CG@2": lambda s: float(sum(s[:2])),
    "P@3": lambda s: sum(x >= 1 for x in s[:3]) / 3,
    "R@2": lambda s: (sum(x >= 1 for x in s[:2]) / sum(x >= 1 for x in s)) if any(x >= 1 for x in s) else 0.0,
    "success@2": lambda s: float(any(x >= 1 for x in s[:2])),
    "AP": _ap,
    "AP@3": lambda s: _ap(s, 3),
    "RR": _rr,
    "RR@2": lambda s: _rr(s, 2),
    "RBP(p=0.5)": lambda s: 0.5 * sum(0.5 ** i for i, x in enumerate(s) if x >= 1),
}


def _expected(labels, scores, metric):
    """The mean of ``metric`` over every order of every group of equal scores."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    groups = [[labels[i] for i in g] for _, g in itertools.groupby(order, key=lambda i: scores[i])]
    values = [metric([x for group in orders for x in group])
              for orders in itertools.product(*(itertools.permutations(g) for g in groups))]
    return sum(values) / len(values)


@st.composite
def scattered_queries(draw, max_queries=4, max_rows=6, levels=4):
    """Rows of a few queries with many tied scores, the queries' rows mixed in any order."""
    n_queries = draw(st.integers(1, max_queries))
    rows = []
    for q in draw(st.permutations(range(10, 10 + n_queries))):
        size = draw(st.integers(1, max_rows))
        for _ in range(size):
            rows.append((q, draw(st.integers(0, levels - 1)), draw(st.integers(0, 3)) / 4))
    rows = draw(st.permutations(rows))
    query, labels, scores = (np.array(column) for column in zip(*rows))
    return labels, scores, query


@settings(max_examples=sweep(40))
@given(data=scattered_queries())
def test_average_ties_is_the_exact_expectation_over_tied_orders(data):
    labels, scores, query = data
    ids, values, _, n_rows = run(labels, scores, query, list(HAND))
    assert list(ids) == sorted(set(query.tolist()))
    for position, q in enumerate(ids):
        rows = query == q
        assert n_rows[position] == rows.sum()
        for spec, metric in HAND.items():
            expected = _expected(labels[rows].tolist(), scores[rows].tolist(), metric)
            assert values[spec][position] == pytest.approx(expected, abs=FLOAT64), spec


@pytest.mark.parametrize("ties", ["pessimistic", "optimistic"])
def test_tie_policies_equal_rankkit_on_the_tie_broken_lists(ties):
    rng = np.random.default_rng(3)
    labels, scores, query = rng.integers(0, 4, 300), rng.integers(0, 5, 300) / 4, rng.integers(0, 25, 300)
    specs = {"nDCG@5": lambda x: rk.ndcg(x, k=5), "AP": rk.average_precision,
             "RR@3": lambda x: rk.reciprocal_rank(x, k=3),
             "ERR(p=0.8)": lambda x: rk.err(x, p=0.8, max_grade=3), "P@4": lambda x: rk.precision(x, k=4),
             "success@2": lambda x: rk.success(x, k=2)}
    ids, values, _, _ = run(labels, scores, query, list(specs), ties=ties)
    for position, q in enumerate(ids):
        rows = query == q
        key = labels[rows] if ties == "pessimistic" else -labels[rows]
        ranked = labels[rows][np.lexsort((key, -scores[rows]))].astype(float)
        for spec, metric in specs.items():
            assert values[spec][position] == pytest.approx(metric(ranked), abs=FLOAT64), spec
    ranked_first = run([0, 1], [0.5, 0.5], None, ["RR", "AUC"], ties=ties)[1]
    assert ranked_first["RR"][0] == (0.5 if ties == "pessimistic" else 1.0)
    assert ranked_first["AUC"][0] == (0.0 if ties == "pessimistic" else 1.0)


def test_fixed_example_by_hand():
    # query 3: labels [0, 1] ranked [0, 1]; query 7: label 2 first, then 0 and 1 tied
    ids, values, totals, n_rows = run([2, 0, 1, 0, 1], [0.9, 0.8, 0.8, 0.3, 0.2], [7, 7, 7, 3, 3],
                                      ["nDCG@2", "AUC", "P@2", "AP"])
    assert ids.tolist() == [3, 7] and n_rows.tolist() == [2, 3]
    d2 = 1 / math.log2(3)
    assert values["nDCG@2"] == pytest.approx([d2, (2 + 0.5 * d2) / (2 + d2)], abs=FLOAT64)
    assert values["AUC"].tolist() == [0.0, 0.75]
    assert values["P@2"].tolist() == [0.5, 0.75]
    # query 7: rank 1 relevant; the tied pair holds one relevant: AP = (1 + E[2/i at its rank]) / 2
    assert values["AP"] == pytest.approx([0.5, (1 + (2 / 2 + 2 / 3) / 2) / 2], abs=FLOAT64)
    # pooled: 3 positives x 2 negatives; 0.9 beats both, 0.8 ties one and beats one, 0.2 none
    assert totals["AUC"] == pytest.approx(3.5 / 6, abs=FLOAT64)
    assert totals["nDCG@2"] == pytest.approx(values["nDCG@2"].mean(), abs=FLOAT64)


# --------------------------------------------------------------------------- live peers


@settings(max_examples=sweep(30))
@given(data=scattered_queries(max_queries=5, max_rows=9, levels=5))
def test_ndcg_and_auc_per_query_equal_sklearn(data):
    from sklearn.metrics import ndcg_score, roc_auc_score

    labels, scores, query = data
    ids, values, totals, _ = run(labels, scores, query, ["nDCG", "nDCG@3", "AUC"])
    for position, q in enumerate(ids):
        y, s = labels[query == q], scores[query == q]
        if len(y) > 1:  # scikit-learn's ndcg_score needs two documents
            assert values["nDCG"][position] == pytest.approx(ndcg_score([y], [s]), abs=FLOAT64)
            assert values["nDCG@3"][position] == pytest.approx(ndcg_score([y], [s], k=3), abs=FLOAT64)
        if len(set((y >= 1).tolist())) == 2:
            assert values["AUC"][position] == pytest.approx(roc_auc_score(y >= 1, s), abs=FLOAT64)
        else:
            assert np.isnan(values["AUC"][position])
    if len(set((labels >= 1).tolist())) == 2:
        assert totals["AUC"] == pytest.approx(roc_auc_score(labels >= 1, scores), abs=FLOAT64)


def test_score_metrics_equal_rankkit_functions():
    rng = np.random.default_rng(7)
    labels, scores, query = rng.integers(0, 3, 200), rng.integers(0, 6, 200) / 5, rng.integers(0, 12, 200)
    specs = ["PNR", "PNR(label_ties='concordant')", "GAUC", "GAUC(weights='queries')", "MSE", "MAE"]
    ids, values, totals, _ = run(labels, scores, query, specs)
    lists = [labels[query == q] for q in ids], [scores[query == q] for q in ids]
    assert values["PNR"] == pytest.approx(rk.pnr(*lists), abs=FLOAT64)
    assert values["PNR(label_ties='concordant')"] == pytest.approx(rk.pnr(*lists, label_ties="concordant"))
    assert values["MSE"] == pytest.approx(rk.mse(*lists), abs=FLOAT64)
    assert values["MAE"] == pytest.approx(rk.mae(*lists), abs=FLOAT64)
    from rankkit.metrics.pairwise import gauc

    assert totals["GAUC"] == pytest.approx(gauc(*lists), abs=FLOAT64)
    assert totals["GAUC(weights='queries')"] == pytest.approx(gauc(*lists, weights="queries"), abs=FLOAT64)
    assert totals["MSE"] == pytest.approx(np.mean((labels - scores) ** 2), abs=FLOAT64)
    concordant, discordant = (sum(v) for v in zip(*((c, d) for c, d, _ in (rk.pair_counts(y, s) for y, s in
                                                                          zip(*lists)))))
    assert totals["PNR"] == pytest.approx(concordant / discordant, abs=FLOAT64)


def test_lrap_and_fallout_equal_sklearn_and_by_hand():
    from sklearn.metrics import label_ranking_average_precision_score

    if not {"LRAP", "fallout"} <= set(rk.names.REGISTRY):
        pytest.skip("the registry has no LRAP or fallout record")
    rng = np.random.default_rng(13)
    labels, scores, query = rng.integers(0, 3, 80), rng.integers(0, 6, 80) / 5, rng.integers(0, 12, 80)
    ids, values, _, _ = run(labels, scores, query, ["LRAP", "fallout@3"])
    for position, q in enumerate(ids):
        y, s = labels[query == q], scores[query == q]
        expected = label_ranking_average_precision_score([y >= 1], [s])
        assert values["LRAP"][position] == pytest.approx(expected, abs=FLOAT64)
        fallout = _expected(y.tolist(), s.tolist(), lambda seq: sum(x < 1 for x in seq[:3]))
        n_nonrelevant = (y < 1).sum()
        assert values["fallout@3"][position] == pytest.approx(fallout / n_nonrelevant if n_nonrelevant else 0.0,
                                                             abs=FLOAT64)


def test_gauc_weights_given_per_query():
    labels, scores, query = [1, 0, 1, 0, 0, 1, 1, 0], [0.9, 0.2, 0.5, 0.5, 0.1, 0.3, 0.4, 0.4], [1, 1, 2, 2, 3, 3, 4, 4]
    # AUC per query: 1 (0.9 over 0.2), 0.5 (a tie), 1 (0.3 over 0.1), 0.5 (a tie)
    weights = [1.0, 3.0, 7.0, 2.0]
    _, values, totals, _ = run(labels, scores, query, ["AUC", "GAUC"], weights=xs.asarray(weights))
    assert values["AUC"].tolist() == [1.0, 0.5, 1.0, 0.5]
    assert totals["GAUC"] == pytest.approx((1 + 3 * 0.5 + 7 + 2 * 0.5) / 13, abs=FLOAT64)
    assert run(labels, scores, query, ["GAUC(weights='queries')"])[2]["GAUC(weights='queries')"] == 0.75
    with pytest.raises(ValueError, match=r"one number per query \(4\), got shape \(3,\)"):
        run(labels, scores, query, ["GAUC"], weights=xs.asarray(weights[:3]))
    with pytest.raises(ValueError, match="finite and non-negative"):
        run(labels, scores, query, ["GAUC"], weights=xs.asarray([1.0, -1.0, 1.0, 1.0]))


def test_pnr_with_many_distinct_labels_compares_every_pair():
    rng = np.random.default_rng(11)
    labels, scores, query = rng.random(150) * 3, rng.integers(0, 4, 150) / 3, rng.integers(0, 10, 150)
    ids, values, _, _ = run(labels, scores, query, ["PNR"])  # more label values than ranks
    assert values["PNR"] == pytest.approx(rk.pnr([labels[query == q] for q in ids],
                                                 [scores[query == q] for q in ids]), abs=FLOAT64)


@pytest.mark.slow  # importing torchmetrics takes seconds
def test_retrieved_positive_equals_torchmetrics():
    torch = pytest.importorskip("torch")
    tm = pytest.importorskip("torchmetrics.functional.retrieval")
    rng = np.random.default_rng(5)
    scores = rng.permutation(120) / 60 - 0.7  # distinct, a third of them <= 0
    labels, query = rng.integers(0, 2, 120), rng.integers(0, 8, 120)
    specs = {"P@5": lambda p, t: tm.retrieval_precision(p, t, top_k=5),
             "R@5": lambda p, t: tm.retrieval_recall(p, t, top_k=5),
             "AP(normalize='retrieved')": tm.retrieval_average_precision,
             "RR": tm.retrieval_reciprocal_rank}
    ids, values, _, _ = run(labels, scores, query, list(specs), retrieved="positive")
    for position, q in enumerate(ids):
        p, t = torch.tensor(scores[query == q]), torch.tensor(labels[query == q])
        for spec, metric in specs.items():
            assert values[spec][position] == pytest.approx(float(metric(p, t)), abs=1e-6), spec


# --------------------------------------------------------------------------- libraries


def _backends():
    """Each library's id; torch and CuPy are skipped when absent. JAX compiles every
    operation for every new shape on first use (seconds): its tests are slow ones."""
    return [pytest.param("array_api_strict", id="array-api-strict"),
            pytest.param("jax", id="jax", marks=pytest.mark.slow),
            pytest.param("torch", id="torch"), pytest.param("cupy", id="cupy")]


def _data():
    """One data set for every library test (JAX compiles once per shape: the same shapes
    in every test reuse its compilations)."""
    rng = np.random.default_rng(2)
    return rng.integers(0, 4, 500), rng.integers(0, 20, 500) / 19, rng.integers(0, 40, 500)


def _library(name):
    if name == "array_api_strict":
        return xs, xs.asarray, FLOAT64
    if name == "jax":
        jnp = pytest.importorskip("jax.numpy")
        return jnp, jnp.asarray, FLOAT32  # float32 unless jax_enable_x64
    if name == "torch":
        torch = pytest.importorskip("torch")
        return array_api_compat.array_namespace(torch.zeros(1)), torch.asarray, FLOAT64
    cupy = pytest.importorskip("cupy")
    return array_api_compat.array_namespace(cupy.zeros(1)), cupy.asarray, FLOAT64


SPECS = ["nDCG@10", "nDCG(gain='exp')", "DCG(base=10)@5", "AP", "RR@5", "P@5", "R@10", "success@3", "RBP",
         "AUC", "GAUC", "PNR", "MSE", "MAE"]
if {"LRAP", "fallout"} <= set(rk.names.REGISTRY):
    SPECS += ["LRAP", "fallout@10"]


@pytest.mark.parametrize("name", _backends())
def test_each_library_returns_its_arrays_on_the_input_device_equal_to_numpy(name):
    xp, make, tolerance = _library(name)
    labels, scores, query = _data()
    y, s, q = make(labels), make(scores), make(query)
    ids, values, totals, n_rows = score_arrays(xp, y, s, q, [parse_metric(m) for m in SPECS])
    reference = run(labels, scores, query, SPECS)
    device = array_api_compat.device(s)
    for array in (ids, n_rows, *values.values(), *totals.values()):
        assert type(array) is type(s)
        assert array_api_compat.device(array) == device
    assert to_numpy(ids).tolist() == reference[0].tolist()
    assert to_numpy(n_rows).tolist() == reference[3].tolist()
    for spec in SPECS:
        np.testing.assert_allclose(to_numpy(values[spec]), reference[1][spec], rtol=tolerance, atol=tolerance)
        assert float(to_numpy(totals[spec])) == pytest.approx(reference[2][spec], rel=tolerance, abs=tolerance)


@pytest.mark.parametrize("ties", ["average", "pessimistic", "optimistic"])
@pytest.mark.parametrize("name", ["array_api_strict", "torch"])  # JAX would compile every new shape
@settings(max_examples=sweep(15))
@given(data=scattered_queries(max_queries=6, max_rows=8, levels=5), retrieved=st.sampled_from(["all", "positive"]))
def test_equal_to_the_numpy_path_on_ties_and_scattered_rows(name, ties, data, retrieved):
    from rankkit.evaluation import evaluate_scores

    xp, make, tolerance = _library(name)
    labels, scores, query = data
    scores = scores - 0.25  # some scores <= 0, for retrieved="positive"
    specs = [m for m in SPECS if not (ties == "average" and m.startswith("ERR"))] + ["ERR@5"] * (ties != "average")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = evaluate_scores(labels, scores, query, specs, ties=ties, retrieved=retrieved)
        table = evaluate_scores(make(labels), make(scores), make(query), specs, ties=ties, retrieved=retrieved)
    for spec in specs:
        np.testing.assert_allclose(to_numpy(table[spec]), np.asarray(expected[spec]), rtol=tolerance,
                                   atol=tolerance, err_msg=spec)
        mine, theirs = float(to_numpy(table.all[spec])), float(expected.all[spec])
        assert mine == pytest.approx(theirs, rel=tolerance, abs=tolerance, nan_ok=True), spec


def test_values_are_float64_where_the_library_computes_in_it():
    torch = pytest.importorskip("torch")
    tx = array_api_compat.array_namespace(torch.zeros(1))
    for dtype in (torch.float64, torch.float32):
        values = score_arrays(tx, torch.tensor([1, 0]), torch.tensor([0.2, 0.1], dtype=dtype), None,
                              [parse_metric("nDCG")])[1]
        assert values["nDCG"].dtype == dtype
    values = score_arrays(xs, xs.asarray([1, 0]), xs.asarray([2, 1]), None, [parse_metric("nDCG")])[1]
    assert values["nDCG"].dtype == xs.float64


def test_row_order_does_not_change_the_values():
    rng = np.random.default_rng(9)
    labels, scores, query = rng.integers(0, 4, 300), rng.integers(0, 6, 300) / 5, rng.integers(0, 30, 300)
    first = run(labels, scores, query, SPECS)
    order = rng.permutation(300)
    second = run(labels[order], scores[order], query[order], SPECS)
    for spec in SPECS:
        np.testing.assert_allclose(first[1][spec], second[1][spec], rtol=0, atol=1e-15)


def test_a_query_of_one_document_and_one_class():
    ids, values, totals, _ = run([1, 0, 0, 2], [0.3, 0.2, 0.9, 0.5], [1, 1, 2, 3], ["AUC", "PNR", "nDCG", "GAUC"])
    assert values["AUC"][0] == 1.0 and np.isnan(values["AUC"][1:]).all()
    assert values["PNR"][0] == np.inf and np.isnan(values["PNR"][1:]).all()
    assert values["nDCG"].tolist() == [1.0, 0.0, 1.0]
    assert totals["GAUC"] == 1.0  # the two queries of one class left out


def test_unsupported_metric_or_parameter_is_refused():
    with pytest.raises(ValueError, match=r"bpref is not computed .*supported there: P, R"):
        run([1, 0], [0.2, 0.1], None, ["bpref"])
    with pytest.raises(ValueError, match="normalize='retrieved' takes no cutoff"):
        run([1, 0], [0.2, 0.2], None, ["AP(normalize='retrieved')@1"])
    with pytest.raises(ValueError, match="err does not support ties='average'"):
        run([1, 0], [0.2, 0.2], None, ["ERR"])
    assert set(SUPPORTED) >= {"nDCG", "AUC", "GAUC", "PNR", "MSE", "MAE"}


# --------------------------------------------------------------------------- the front door


@pytest.mark.parametrize("name", _backends())
def test_evaluate_scores_on_each_library_equals_its_numpy_path(name):
    from rankkit.evaluation import evaluate_scores

    xp, make, tolerance = _library(name)
    labels, scores, query = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one-class queries, reported by both
        expected = evaluate_scores(labels, scores, query, SPECS)
        table = evaluate_scores(make(labels), make(scores), make(query), SPECS)
    assert type(table["nDCG@10"]) is type(make(scores))
    for spec in SPECS:
        np.testing.assert_allclose(to_numpy(table[spec]), np.asarray(expected[spec]), rtol=tolerance,
                                   atol=tolerance)
        assert float(to_numpy(table.all[spec])) == pytest.approx(float(expected.all[spec]), rel=tolerance,
                                                                 abs=tolerance)


def test_unscored_queries_are_the_numpy_paths():
    """Queries without a relevant document (rank metrics: 0, listed) and those a score metric
    leaves nan: the same ids as on NumPy, for integer and float labels and a spec's own rel."""
    rng = np.random.default_rng(1)
    query = rng.integers(0, 30, 300)
    labels = (rng.random(300) < 0.08).astype(np.int64) * rng.integers(1, 3, 300)
    scores = rng.normal(size=300)
    specs = ["nDCG@10", "AP", "P(rel=2)@5", "AUC", "MSE"]
    for y, rel in ((labels, 1), (labels.astype(np.float64), 1.5)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            here = rk.evaluate_scores(y, scores, query, specs, rel=rel)
            there = rk.evaluate_scores(xs.asarray(y), xs.asarray(scores), xs.asarray(query), specs, rel=rel)
        for spec in ("nDCG@10", "AP", "P(rel=2)@5", "MSE"):
            assert there.unscored[spec] == here.unscored[spec], spec
        assert list(there.unscored["AUC"]) == list(here.unscored["AUC"])
    # P at level 2 lists the queries without a label 2; nDCG (no level) those without a positive label
    assert len(here.unscored["P(rel=2)@5"]) == 21 and len(here.unscored["AP"]) == 21
    assert len(here.unscored["nDCG@10"]) == 14
    assert set(here.unscored["nDCG@10"]) == {int(q) for q in np.unique(query) if not labels[query == q].any()}


# --------------------------------------------------------------------------- the list functions

LIST_FUNCTIONS = {  # rk.<name>: its options; a kernel that runs on any library, or NumPy's turned back
    "precision": {"k": 3}, "recall": {"k": 3, "n_relevant": [6, 7, 8]}, "success": {"k": 2},
    "average_precision": {"normalize": "min_k", "k": 4}, "reciprocal_rank": {}, "fallout": {"k": 2},
    "num_relevant": {"rel": 2}, "num_retrieved": {}, "cumulative_gain": {"k": 4}, "dcg": {"k": 3, "gain": "exp"},
    "idcg": {"k": 3}, "ndcg": {"k": 3}, "rbp": {"p": 0.5}, "err": {},
    "r_precision": {}, "bpref": {}, "judged": {"k": 3}, "num_relevant_retrieved": {}, "rbp_residual": {"p": 0.5},
}


@pytest.mark.parametrize("name", _backends()[:2])
@pytest.mark.parametrize("function", sorted(LIST_FUNCTIONS))
def test_list_functions_return_the_input_library(function, name):
    """rk.ndcg(labels) and the other list functions: arrays of another library give arrays
    of that library (a 1-D array a 0-d one), equal to NumPy's values; lists and NumPy arrays
    give NumPy (a float for one list)."""
    xp, asarray, tolerance = _library(name)
    rng = np.random.default_rng(len(function))
    labels = rng.integers(0, 4, (3, 6)).astype(float)
    f, options = getattr(rk, function), LIST_FUNCTIONS[function]
    want, got = f(labels, **options), f(asarray(labels), **options)
    assert type(got) is type(asarray(labels)) and tuple(got.shape) == (3,)
    np.testing.assert_allclose(to_numpy(got), want, rtol=tolerance)
    one = {key: value[0] if isinstance(value, list) else value for key, value in options.items()}
    want_one, got_one = f(labels[0], **one), f(asarray(labels[0]), **one)
    assert type(got_one) is type(asarray(labels)) and tuple(got_one.shape) == ()
    assert isinstance(want_one, float) and isinstance(f(labels[0].tolist(), **one), float)
    np.testing.assert_allclose(float(to_numpy(got_one)), want_one, rtol=tolerance)
    assert isinstance(f(labels.tolist(), **options), np.ndarray)


def test_list_functions_refuse_bad_labels_of_another_library():
    with pytest.raises(ValueError, match="labels must be finite"):
        rk.ndcg(xs.asarray([1.0, math.nan]))
    with pytest.raises(ValueError, match="labels must be non-negative, got -1.0"):
        rk.precision(xs.asarray([[1.0, -1.0]]))
    with pytest.raises(ValueError, match="labels must be 1-D or 2-D, got 3-D"):
        rk.ndcg(xs.zeros((1, 1, 1)))
    assert type(rk.as_rankings(xs.asarray([[1.0, 0.0]]), any_library=True).labels).__module__.startswith(
        "array_api_strict")
    assert isinstance(rk.as_rankings(xs.asarray([[1.0, 0.0]])).labels, np.ndarray)  # computed on NumPy
