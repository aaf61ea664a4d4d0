"""evaluate_scores on NumPy: a model's labels, scores and query ids scored per query.

Oracles: scikit-learn (ndcg_score per query with its tie averaging, roc_auc_score,
mean_squared_error), rk.evaluate on the same data as a run with invented document ids (to the
bit), every order of each tied group enumerated by hand, hand-computed GAUC, and torchmetrics'
own test values and live functions for its convention on scores at or below 0.
"""

import itertools
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import mean_absolute_error, mean_squared_error, ndcg_score, roc_auc_score
from sweeps import sweep

import rankkit as rk
from rankkit.evaluation import ScoreTable, evaluate_scores
from rankkit.metrics import pairwise
from rankkit.names import REGISTRY


def quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_scores(*args, **kwargs)


def random_data(seed, n_queries=30, max_rows=25, levels=4, score_levels=None):
    """Rows of queries of 1..max_rows documents, shuffled (a query's rows scattered)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_rows + 1, n_queries)
    query = np.repeat(np.arange(n_queries) * 7 + 3, sizes)  # ids neither 0.. nor contiguous
    labels = rng.integers(0, levels, len(query)).astype(np.float64)
    scores = rng.random(len(query)) if score_levels is None else rng.integers(0, score_levels, len(query)) / 4
    order = rng.permutation(len(query))
    return labels[order], scores[order], query[order]


# --------------------------------------------------------------------------- scikit-learn


@st.composite
def tied_queries(draw):
    """A few queries with many tied scores and labels, rows shuffled."""
    sizes = draw(st.lists(st.integers(2, 12), min_size=1, max_size=5))
    n = sum(sizes)
    labels = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    scores = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    perm = draw(st.permutations(range(n)))
    query = np.repeat(np.arange(len(sizes)), sizes)[list(perm)]
    return np.array(labels, float)[list(perm)], np.array(scores, float)[list(perm)] / 3, query


def _check_ndcg_against_sklearn(labels, scores, query, k):
    spec = "nDCG" if k is None else f"nDCG@{k}"
    table = quiet(labels, scores, query, [spec])
    for i, q in enumerate(table.query):
        rows = query == q
        if labels[rows].max() == 0:  # scikit-learn gives 0 too, with a warning
            assert table[spec][i] == 0
            continue
        if rows.sum() == 1:  # scikit-learn refuses a single document; it is first whatever its score
            assert table[spec][i] == 1.0
            continue
        expected = ndcg_score([labels[rows]], [scores[rows]], k=k)
        assert abs(table[spec][i] - expected) <= 1e-12, (q, table[spec][i], expected)


@settings(max_examples=sweep(150))
@given(data=tied_queries(), k=st.sampled_from([None, 1, 3, 5]))
def test_ndcg_with_ties_equals_sklearn_ndcg_score_per_query(data, k):
    _check_ndcg_against_sklearn(*data, k)


def test_ndcg_with_ties_equals_sklearn_on_a_fixed_example():
    labels, scores, query = random_data(1, n_queries=40, score_levels=3)
    for k in (None, 1, 5):
        _check_ndcg_against_sklearn(labels, scores, query, k)


def test_auc_per_query_and_pooled_equal_roc_auc_score():
    labels, scores, query = random_data(2, n_queries=40, score_levels=5)
    table = quiet(labels, scores, query, ["AUC", "AUC(rel=2)"])
    for i, q in enumerate(table.query):
        rows = query == q
        for column, rel in (("AUC", 1), ("AUC(rel=2)", 2)):
            positive = labels[rows] >= rel
            if 0 < positive.sum() < rows.sum():
                assert table[column][i] == pytest.approx(roc_auc_score(positive, scores[rows]), abs=1e-15)
            else:
                assert np.isnan(table[column][i])
    assert table.all["AUC"] == pytest.approx(roc_auc_score(labels >= 1, scores), abs=1e-15)
    assert table.all["AUC(rel=2)"] == pytest.approx(roc_auc_score(labels >= 2, scores), abs=1e-15)


def test_mse_and_mae_equal_sklearn_per_query_and_over_all_rows():
    labels, scores, query = random_data(3)
    table = evaluate_scores(labels, scores, query, ["MSE", "MAE"])
    for i, q in enumerate(table.query):
        rows = query == q
        assert table["MSE"][i] == pytest.approx(mean_squared_error(labels[rows], scores[rows]), rel=1e-14)
        assert table["MAE"][i] == pytest.approx(mean_absolute_error(labels[rows], scores[rows]), rel=1e-14)
    assert table.all["MSE"] == pytest.approx(mean_squared_error(labels, scores), rel=1e-14)
    assert table.all["MAE"] == pytest.approx(mean_absolute_error(labels, scores), rel=1e-14)
    assert table.unscored["MSE"] == {} and table.unscored["MAE"] == {}


# --------------------------------------------------------------------------- rk.evaluate, bit for bit

RANK_SPECS = ["nDCG@10", "nDCG", "nDCG(gain='exp')@5", "AP", "AP@5", "P@5", "R@10", "RR", "Rprec", "bpref",
              "ERR", "RBP", "SDCG@5", "success@3", "num_rel", "num_rel_ret", "GMAP", "CG@3", "DCG@5", "infAP"]


def test_rank_metrics_equal_rk_evaluate_to_the_bit():
    labels, scores, query = random_data(4, n_queries=60, max_rows=40, levels=5)
    ids = np.array([f"q{q:04d}" for q in query])  # sorted as strings and as numbers alike
    docs = [f"d{i}" for i in range(len(labels))]
    qrels = pd.DataFrame({"query_id": ids, "doc_id": docs, "relevance": labels.astype(int)})
    run = pd.DataFrame({"query_id": ids, "doc_id": docs, "score": scores})
    expected = rk.evaluate(qrels, run, RANK_SPECS)
    table = evaluate_scores(labels, scores, ids, RANK_SPECS)
    assert table.query.tolist() == expected.index.tolist()
    totals = rk.aggregate(expected)
    for spec in RANK_SPECS:
        np.testing.assert_array_equal(table[spec], expected[spec].to_numpy(), err_msg=spec)
        assert table.all[spec] == totals[spec], spec
    assert rk.aggregate(table)[RANK_SPECS].to_dict() == totals.to_dict()


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_tied_scores_broken_by_label_equal_rk_evaluate_to_the_bit(ties):
    labels, scores, query = random_data(13, n_queries=40, max_rows=30, levels=4, score_levels=4)
    ids = np.array([f"q{q:04d}" for q in query])
    docs = [f"d{i:05d}" for i in range(len(labels))]
    qrels = pd.DataFrame({"query_id": ids, "doc_id": docs, "relevance": labels.astype(int)})
    run = pd.DataFrame({"query_id": ids, "doc_id": docs, "score": scores})
    specs = ["nDCG@10", "AP", "RR", "P@5", "ERR", "RBP"]
    expected = rk.evaluate(qrels, run, specs, ties=ties)
    table = evaluate_scores(labels, scores, ids, specs, ties=ties)
    for spec in specs:
        np.testing.assert_array_equal(table[spec], expected[spec].to_numpy(), err_msg=spec)


def test_evaluate_rel_equals_evaluate_scores_rel_to_the_bit():
    labels, scores, query = random_data(5, levels=4)
    docs = [f"d{i}" for i in range(len(labels))]
    ids = np.array([f"q{q:04d}" for q in query])
    qrels = pd.DataFrame({"query_id": ids, "doc_id": docs, "relevance": labels.astype(int)})
    run = pd.DataFrame({"query_id": ids, "doc_id": docs, "score": scores})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = rk.evaluate(qrels, run, ["P@5", "AP", "RR"], rel=2)
    table = quiet(labels, scores, ids, ["P@5", "AP", "RR"], rel=2)
    for spec in ("P@5", "AP", "RR"):
        np.testing.assert_array_equal(table[spec], expected.loc[table.query.tolist(), spec].to_numpy())


# --------------------------------------------------------------------------- order of rows, ties

ALL_SPECS = ["nDCG@5", "nDCG", "P@3", "R@5", "RR", "AP", "AUC", "GAUC", "PNR", "MSE", "MAE", "DCG@3", "success@2"]


@pytest.mark.parametrize("ties", ["average", "pessimistic", "optimistic"])
def test_the_order_of_the_rows_changes_no_bit(ties):
    labels, scores, query = random_data(6, n_queries=50, score_levels=4)
    first = quiet(labels, scores, query, ALL_SPECS, ties=ties)
    rng = np.random.default_rng(7)
    grouped = np.argsort(query, kind="stable")  # rows grouped by ascending query: no sort of the ids
    for order in [grouped, *(rng.permutation(len(labels)) for _ in range(3))]:
        again = quiet(labels[order], scores[order], query[order], ALL_SPECS, ties=ties)
        for spec in ALL_SPECS:
            np.testing.assert_array_equal(again[spec], first[spec], err_msg=spec)
            assert np.array_equal(again.all[spec], first.all[spec], equal_nan=True), spec


def _orders(labels, scores):
    """Every order of the documents a ranking by score allows (each tied group permuted)."""
    groups = [np.flatnonzero(scores == v) for v in sorted(set(scores), reverse=True)]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield labels[np.concatenate(parts)]


def test_average_ties_are_the_mean_over_every_order_of_the_tied_groups():
    labels = np.array([2, 0, 1, 1, 0, 3, 0, 1], float)
    scores = np.array([0.5, 0.5, 0.5, 0.2, 0.9, 0.2, 0.2, 0.1])
    specs = ["nDCG@2", "nDCG@4", "P@2", "RR", "DCG@3", "success@1", "AP", "R@4"]
    table = evaluate_scores(labels, scores, None, specs)
    for spec in specs:
        per_order = [float(rk.score([list(order)], [spec])[spec].iloc[0]) for order in _orders(labels, scores)]
        assert table[spec][0] == pytest.approx(np.mean(per_order), rel=1e-12, abs=1e-15), spec
    worst = evaluate_scores(labels, scores, None, specs, ties="pessimistic")
    best = evaluate_scores(labels, scores, None, specs, ties="optimistic")
    for spec in specs:
        per_order = [float(rk.score([list(order)], [spec])[spec].iloc[0]) for order in _orders(labels, scores)]
        assert worst[spec][0] == pytest.approx(min(per_order)) and best[spec][0] == pytest.approx(max(per_order))


def test_tied_pairs_count_half_zero_or_one_in_auc_and_pnr():
    # one query: positive 0.5, negative 0.5 (tied), positive 0.9, negative 0.1
    labels, scores = [1, 0, 1, 0], [0.5, 0.5, 0.9, 0.1]
    average = evaluate_scores(labels, scores, metrics=["AUC", "PNR"])
    worst = evaluate_scores(labels, scores, metrics=["AUC", "PNR"], ties="pessimistic")
    best = evaluate_scores(labels, scores, metrics=["AUC", "PNR"], ties="optimistic")
    # 4 positive-negative pairs, one tied: 3.5, 3 and 4 in order
    assert (average["AUC"][0], worst["AUC"][0], best["AUC"][0]) == (3.5 / 4, 3 / 4, 1.0)
    assert (average["PNR"][0], worst["PNR"][0], best["PNR"][0]) == (3.5 / 0.5, 3.0, math.inf)
    assert (average.all["AUC"], worst.all["AUC"], best.all["AUC"]) == (3.5 / 4, 3 / 4, 1.0)


def test_average_ties_refused_only_by_a_metric_that_cannot_take_them():
    # ERR is not linear in the labels: refused with tied scores, computed without
    with pytest.raises(ValueError, match=r"metric ERR: .*ties='average'.*\(evaluate_scores: ties='pessimistic' or "
                                         r"'optimistic'\)$"):
        evaluate_scores([1, 0, 2], [0.5, 0.5, 0.1], metrics=["ERR"])
    untied = evaluate_scores([1, 0, 2], [0.5, 0.4, 0.1], metrics=["ERR"])
    assert untied["ERR"][0] == float(rk.score([[1, 0, 2]], ["ERR"])["ERR"].iloc[0])


# --------------------------------------------------------------------------- GAUC


def test_gauc_by_hand():
    # q1: AUC 1 over 3 rows (1 positive); q2: AUC 0.5 over 4 rows (2 positives, 4 pairs, 2 in order);
    # q3: one class (left out); q4: one document (left out)
    labels = [1, 0, 0, 1, 0, 1, 0, 0, 0, 1]
    scores = [0.9, 0.2, 0.1, 0.8, 0.9, 0.3, 0.2, 0.3, 0.1, 0.4]
    query = ["q1", "q1", "q1", "q2", "q2", "q2", "q2", "q3", "q3", "q4"]
    with pytest.warns(UserWarning, match=r"GAUC cannot score 2 queries .*q3 \(no positive.*q4 \(one document\)"):
        table = evaluate_scores(labels, scores, query, ["GAUC"])
    assert table["GAUC"][:2].tolist() == [1.0, 0.5] and np.isnan(table["GAUC"][2:]).all()
    assert table.all["GAUC"] == (3 * 1.0 + 4 * 0.5) / 7
    cases = {"queries": (1.0 + 0.5) / 2, "positives": (1 * 1.0 + 2 * 0.5) / 3, "pairs": (2 * 1.0 + 4 * 0.5) / 6}
    for weights, expected in cases.items():
        assert quiet(labels, scores, query, ["GAUC"], weights=weights).all["GAUC"] == expected
        assert quiet(labels, scores, query, [f"GAUC(weights={weights!r})"]).all[f"GAUC(weights={weights!r})"] \
            == expected
    assert quiet(labels, scores, query, ["GAUC"], weights=[1, 3, 5, 7]).all["GAUC"] == (1.0 + 1.5) / 4
    # a spec's weights win over the keyword
    assert quiet(labels, scores, query, ["GAUC(weights='queries')"], weights="rows").all[
        "GAUC(weights='queries')"] == 0.75
    assert table.unscored["GAUC"] == {"q3": "no positive document (label >= 1)", "q4": "one document"}


def test_gauc_with_pairs_weights_is_the_pooled_mann_whitney_of_the_pairs_within_queries():
    labels, scores, query = random_data(8, score_levels=6)
    table = quiet(labels, scores, query, ["GAUC"], weights="pairs")
    u = pairs = 0.0
    for q in np.unique(query):
        rows = query == q
        pos, neg = scores[rows][labels[rows] >= 1], scores[rows][labels[rows] < 1]
        u += sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
        pairs += len(pos) * len(neg)
    assert table.all["GAUC"] == pytest.approx(u / pairs, rel=1e-13)


# --------------------------------------------------------------------------- PNR


def test_pnr_per_query_and_over_the_pairs_of_all_queries():
    labels, scores, query = random_data(9, levels=3, score_levels=5)
    table = quiet(labels, scores, query, ["PNR", "PNR(label_ties='concordant')"])
    concordant = discordant = tied = 0.0
    for i, q in enumerate(table.query):
        rows = query == q
        expected = pairwise.pnr(labels[rows], scores[rows])
        assert np.array_equal(table["PNR"][i], expected, equal_nan=True)
        counts = pairwise.pair_counts(labels[rows], scores[rows])
        concordant, discordant, tied = concordant + counts.concordant, discordant + counts.discordant, \
            tied + counts.tied
    assert table.all["PNR"] == pytest.approx(concordant / discordant, rel=1e-14)
    assert table.all["PNR(label_ties='concordant')"] == pytest.approx((concordant + tied) / discordant, rel=1e-14)


# --------------------------------------------------------------------------- torchmetrics' scores at or below 0

SHIFTS = [0.0, -0.3, -0.4, -0.9, -1.0]
# torchmetrics' tests/unittests/retrieval/test_score_shift.py: AP 5/6, RR 1, P@2 and R@2 1/2 for
# preds [0.9, 0.5, 0.3, 0.1] + shift, target [1, 0, 1, 0], whatever the shift
TORCHMETRICS_SHIFT = {"AP": 5 / 6, "RR": 1.0, "P@2": 0.5, "R@2": 0.5}


@pytest.mark.parametrize("shift", SHIFTS)
def test_all_rows_retrieved_reproduces_torchmetrics_score_shift_test(shift):
    table = evaluate_scores([1, 0, 1, 0], np.array([0.9, 0.5, 0.3, 0.1]) + shift, metrics=list(TORCHMETRICS_SHIFT))
    assert {spec: table[spec][0] for spec in TORCHMETRICS_SHIFT} == pytest.approx(TORCHMETRICS_SHIFT)


@pytest.mark.parametrize("shift", SHIFTS)
def test_positive_scores_retrieved_by_hand(shift):
    scores = np.array([0.9, 0.5, 0.3, 0.1]) + shift
    specs = ["AP(normalize='retrieved')", "RR", "P@2", "R@2", "nDCG@2"]
    table = evaluate_scores([1, 0, 1, 0], scores, metrics=specs, retrieved="positive")
    kept = np.array([1, 0, 1, 0]) * (scores > 0)  # relevant and retrieved, in rank order
    first = np.flatnonzero(kept)
    hits = np.cumsum(kept)
    expected = {
        "AP(normalize='retrieved')": np.mean(hits[first] / (first + 1)) if len(first) else 0.0,
        "RR": 1 / (first[0] + 1) if len(first) else 0.0,
        "P@2": kept[:2].sum() / 2, "R@2": kept[:2].sum() / 2,
        "nDCG@2": (kept[0] + kept[1] / np.log2(3)) / (1 + 1 / np.log2(3)),
    }
    assert {spec: table[spec][0] for spec in specs} == pytest.approx(expected)


@pytest.mark.slow  # importing torch
def test_positive_scores_retrieved_equals_torchmetrics_live():
    torch = pytest.importorskip("torch")
    functional = pytest.importorskip("torchmetrics.functional.retrieval")
    peers = {"AP(normalize='retrieved')": (functional.retrieval_average_precision, {}),
             "RR": (functional.retrieval_reciprocal_rank, {}),
             "P@2": (functional.retrieval_precision, {"top_k": 2}),
             "R@2": (functional.retrieval_recall, {"top_k": 2})}
    preds = torch.tensor([0.9, 0.5, 0.3, 0.1]) - 0.4
    if float(functional.retrieval_average_precision(preds, torch.tensor([1, 0, 1, 0]))) == pytest.approx(5 / 6):
        pytest.skip("this torchmetrics no longer counts a score at or below 0 as not retrieved")
    rng = np.random.default_rng(10)
    for _ in range(30):
        n = int(rng.integers(2, 12))
        target = rng.integers(0, 2, n)
        if target.sum() == 0:
            target[0] = 1
        scores = rng.normal(size=n)
        table = evaluate_scores(target, scores, metrics=list(peers), retrieved="positive")
        for spec, (peer, kwargs) in peers.items():
            expected = float(peer(torch.tensor(scores), torch.tensor(target), **kwargs))
            assert table[spec][0] == pytest.approx(expected, abs=1e-6), (spec, scores, target)


# --------------------------------------------------------------------------- unscored queries


def test_unscored_queries_are_warned_about_and_reported_never_dropped():
    labels = [1, 0, 1, 1, 0, 0, 2]
    scores = [0.2, 0.1, 0.5, 0.4, 0.3, 0.2, 0.9]
    query = [1, 1, 2, 2, 3, 3, 4]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = evaluate_scores(labels, scores, query, ["AUC", "nDCG@2", "PNR"])
    assert [str(w.message) for w in caught] == [
        "AUC cannot score 3 queries (nan per query; their rows still count in the AUC pooled over all rows): "
        "2 (no negative document (label < 1)), 3 (no positive document (label >= 1)), 4 (one document)",
        "PNR cannot score 3 queries (nan: no pair of different labels, none in the pooled counts either): "
        "2 (all labels equal), 3 (all labels equal), 4 (one document)"]
    assert all(w.filename == __file__ for w in caught)  # pointing at the caller's line
    assert table.query.tolist() == [1, 2, 3, 4]
    assert table["AUC"][0] == 1.0 and np.isnan(table["AUC"][1:]).all()
    assert table.unscored["AUC"] == {2: "no negative document (label < 1)", 3: "no positive document (label >= 1)",
                                     4: "one document"}
    assert table.unscored["PNR"] == {2: "all labels equal", 3: "all labels equal", 4: "one document"}
    assert table.unscored["nDCG@2"] == {3: "no relevant document: 0, as rk.evaluate scores it"}
    assert table["nDCG@2"].tolist() == [1.0, 1.0, 0.0, 1.0]
    assert table.all["AUC"] == roc_auc_score(np.array(labels) >= 1, scores)
    assert table.n_rows.tolist() == [2, 2, 2, 1]


def test_no_warning_when_every_query_is_scored():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = evaluate_scores([1, 0, 0, 1], [0.9, 0.1, 0.2, 0.8], [5, 5, 6, 6])
    assert list(table) == ["nDCG@10", "AUC", "GAUC", "PNR"]
    assert all(not u for u in table.unscored.values())


#: The value an ``unscored`` reason states ("no relevant document: 0, as ..."); none stated is nan.
STATED = re.compile(r": (-?\d+(?:\.\d+)?|inf)\b")


def _stated(reason: str) -> float:
    found = STATED.search(reason)
    return float(found[1]) if found else math.nan


@st.composite
def record_specs(draw, info):
    """A spec of the record ``info`` with random values of the parameters its unscored rule reads."""
    values = {"recall": "0.5"}
    if "gain" in info.params:
        mapping = draw(st.dictionaries(st.integers(0, 3), st.sampled_from([0, 0.5, 2]), min_size=1, max_size=4))
        values["gain"] = draw(st.sampled_from(["'linear'", "'exp'", repr(mapping)]))
    for name, choices in (("rel", [1, 2]), ("no_relevant", [0, 1]), ("label_ties", ["'ignore'", "'concordant'"]),
                          ("weights", ["'rows'", "'pairs'"])):
        if name in info.params:
            values[name] = draw(st.sampled_from(choices))
    params = [f"{name}={value}" for name, value in values.items() if name in info.params]
    spec = info.name + (f"({', '.join(params)})" if params else "")
    k = 3 if "k" in info.required else draw(st.sampled_from([None, 1, 3])) if info.cutoff else None
    return spec + (f"@{k}" if k else "")


@settings(max_examples=sweep(25), deadline=None)
@given(data=tied_queries(), ties=st.sampled_from(["average", "pessimistic"]), draw=st.data())
def test_the_queries_a_record_reports_unscored_are_exactly_those_its_kernel_scores_so(data, ties, draw):
    """Every record's unscored rule against its kernel: each query it names has the value its
    reason states (nan where it states none), and every nan is named; a query scored by the
    formula (inf, or 0 with a relevant document ranked low) is not named."""
    labels, scores, query = data
    labels = np.where(np.isin(query, [0]), 0.0, labels)  # a query without a relevant document
    refused = set()
    for info in REGISTRY.values():
        if info.kind == "str":
            continue
        spec = draw.draw(record_specs(info), label=info.name)
        try:
            table = quiet(labels, scores, query, [spec], ties=ties)
        except ValueError:  # not linear in the labels: no tied groups' average; or inputs of another kind
            refused.add(info.name)
            continue
        values, unscored = np.asarray(table[spec], dtype=np.float64), table.unscored[spec]
        for i, q in enumerate(table.query.tolist()):
            if q in unscored:
                stated = _stated(unscored[q])
                assert values[i] == stated or (math.isnan(stated) and math.isnan(values[i])), \
                    (spec, q, unscored[q], values[i])
            else:
                assert not math.isnan(values[i]), (spec, q, "nan but not reported")
    assert not refused & {"P", "AP", "nDCG", "DCG", "fallout", "LRAP", "num_ret", "utility", "AUC", "GAUC", "PNR"}
    assert ties == "average" or not refused & {"judged", "bpref", "RnDCG", "ERR"}


def test_the_two_corners_of_the_unscored_rule_agree_with_their_kernels():
    """PNR with label_ties='concordant' scores a list of equal labels inf (its tied pairs as
    concordant, none discordant), so it is scored, not reported; nDCG with a gain mapping that
    gives every label 0 has ideal DCG 0 for every query, each reported with its 0."""
    labels, scores, query = [1, 1, 2, 0, 1], [0.5, 0.2, 0.9, 0.1, 0.3], [1, 1, 2, 2, 3]
    table = quiet(labels, scores, query, ["PNR", "PNR(label_ties='concordant')", "nDCG(gain={1: 0, 2: 0})@3"])
    pnr = table["PNR(label_ties='concordant')"]
    assert pnr[:2].tolist() == [math.inf, math.inf] and math.isnan(pnr[2])
    assert table.unscored["PNR(label_ties='concordant')"] == {3: "one document"}
    assert table.unscored["PNR"] == {1: "all labels equal", 3: "one document"}
    assert table["nDCG(gain={1: 0, 2: 0})@3"].tolist() == [0.0, 0.0, 0.0]
    assert table.unscored["nDCG(gain={1: 0, 2: 0})@3"] == dict.fromkeys(
        [1, 2, 3], "no document of positive gain: 0, as rk.evaluate scores it")


# --------------------------------------------------------------------------- inputs


def test_inputs_lists_series_and_no_query():
    labels, scores = [1, 0, 2, 0], [0.1, 0.4, 0.3, 0.2]
    table = evaluate_scores(labels, scores, metrics=["nDCG", "AUC"])
    assert table.query.tolist() == [0] and table.n_rows.tolist() == [4]
    assert repr(table).startswith("ScoreTable: 1 query, 4 rows (ties='average', rel=1.0, weights='rows', "
                                  "retrieved='all')\n")
    series = evaluate_scores(pd.Series(labels), pd.Series(scores), pd.Series(["a"] * 4), ["nDCG", "AUC"])
    assert series.query.tolist() == ["a"]
    assert series["nDCG"].tolist() == table["nDCG"].tolist() and series.all == table.all
    assert table["nDCG"][0] == pytest.approx(ndcg_score([labels], [scores]), abs=1e-15)
    ints = evaluate_scores(np.array(labels), np.array(scores), np.zeros(4, dtype=np.uint8), ["AUC"])
    assert ints.query.dtype == np.uint8 and ints["AUC"][0] == table["AUC"][0]
    assert evaluate_scores([True, False], [0.2, 0.1], metrics=["AUC"])["AUC"][0] == 1.0
    pa = pytest.importorskip("pyarrow")
    arrow = evaluate_scores(pa.array(labels), pa.chunked_array([scores[:1], scores[1:]]), pa.array(["a"] * 4),
                            ["nDCG", "AUC"])
    assert arrow.query.tolist() == ["a"] and arrow.all == table.all


@pytest.mark.parametrize("args, kwargs, message", [
    (([1, 0], [0.5]), {}, r"one entry per row, got lengths labels 2, scores 1"),
    (([1, 0], [0.5, 0.2], [1]), {}, r"got lengths labels 2, scores 2, query 1"),
    (([], []), {}, "empty"),
    (([1, 0], [0.5, np.nan]), {}, r"scores must be finite, got nan at row 1"),
    (([1, 0], [np.inf, 0.1]), {}, r"scores must be finite, got inf at row 0"),
    (([1, np.nan], [0.5, 0.2]), {}, r"labels must be finite and non-negative, got nan at row 1"),
    (([1, -1], [0.5, 0.2]), {}, r"labels must be finite and non-negative, got -1.0 at row 1"),
    (([1, 0], [0.5, 0.2], [1.0, 2.0]), {}, r"query must hold integer or string ids, got float64 .*integer ids"),
    (([1, 0], [0.5, 0.2], np.array(["a", None], dtype=object)), {},
     r"query must hold integer or string ids of one type, got \['NoneType', 'str'\]"),
    (([[1, 0]], [[0.5, 0.2]]), {}, r"labels must be 1-D"),
    ((["a", "b"], [0.5, 0.2]), {}, r"labels must be a 1-D array of numbers"),
    (([1, 0], [0.5, 0.2]), {"metrics": ["nDCG@10", "nDGC@10"]}, r"unknown metric.*nDCG"),
    (([1, 0], [0.5, 0.2]), {"metrics": ["runid"]}, r"metric runid gives text"),
    (([1, 0], [0.5, 0.2]), {"metrics": ["relstring"]}, r"metric relstring gives text"),
    (([1, 0], [0.5, 0.2]), {"ties": "docno"}, r"ties must be one of 'average', .*'optimistic', got 'docno'"),
    (([1, 0], [0.5, 0.2]), {"retrieved": "some"}, r"retrieved must be one of 'all', 'positive', got 'some'"),
    (([1, 0], [0.5, 0.2]), {"weights": "users"}, r"weights must be one of 'rows', .*'pairs', got 'users'"),
    (([1, 0], [0.5, 0.2]), {"weights": [1, 2]}, r"weights must hold one number per query \(1\)"),
    (([1, 0], [0.5, 0.2]), {"weights": [-1.0]}, r"weights must be finite and non-negative"),
    (([1, 0], [0.5, 0.2]), {"rel": 0}, r"rel must be a positive number"),
    (([1, 0], [0.5, 0.2]), {"metrics": ["GAUC(weights='users')"]}, r"metric GAUC\(weights='users'\): weights"),
])
def test_bad_input_is_refused_naming_the_argument(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        quiet(*args, **kwargs)


def test_other_objects_are_refused_with_a_type_error():
    with pytest.raises(TypeError, match="labels, scores and query must come from one array library besides NumPy"):
        evaluate_scores({1, 0}, {0.5, 0.2})


# --------------------------------------------------------------------------- records, evaluate, the result


def test_score_metrics_are_flagged_and_refused_by_evaluate_and_score():
    flagged = {name for name, info in REGISTRY.items() if info.scores}
    assert flagged == {"AUC", "GAUC", "PNR", "MSE", "MAE", "LogLoss", "QueryAUC"}
    assert all(not REGISTRY[name].cutoff for name in flagged)
    message = r'metric AUC needs the model\'s scores: use rk.evaluate_scores\(labels, scores, query, \["AUC"\]\)'
    with pytest.raises(ValueError, match=message):
        rk.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["P@1", "AUC"])
    with pytest.raises(ValueError, match="metric gauc needs the model's scores"):
        rk.score([[1, 0]], ["gauc"])


def test_score_table_is_a_read_only_mapping_with_a_frame_and_a_repr():
    labels, scores, query = random_data(11, n_queries=15)
    table = quiet(labels, scores, query, ["nDCG@5", "AUC"])
    assert isinstance(table, ScoreTable) and len(table) == 2 and set(table) == {"nDCG@5", "AUC"}
    assert table.n_queries == 15 and table.query.tolist() == sorted(set(query.tolist()))
    frame = table.to_frame()
    assert frame.index.name == "query_id" and frame.index[-1] == "all" and len(frame) == 16
    assert frame.loc["all", "nDCG@5"] == table.all["nDCG@5"]
    np.testing.assert_array_equal(frame["AUC"].iloc[:-1].to_numpy(), table["AUC"])
    assert len(table.to_frame(all=False)) == 15
    assert frame.attrs["metrics"] == {"nDCG@5": "nDCG@5", "AUC": "AUC"}
    assert type(table.all) is dict  # pd.DataFrame({model: table.all, ...}) makes a table of them
    assert pd.DataFrame({"m": table.all}).loc["AUC", "m"] == table.all["AUC"]
    text = repr(table)
    assert text.startswith(f"ScoreTable: 15 queries, {len(labels)} rows (ties='average'")
    assert "all" in text and "..." not in text.splitlines()[0]
    lines = text.splitlines()  # summary, two header lines, 6 first queries, "...", 5 last, all, blank, count
    assert len(lines) == 3 + 6 + 1 + 6 + 2
    shown = [line.split()[0] for line in lines[3:16]]
    assert shown == [str(q) for q in table.query[:6]] + ["..."] + [str(q) for q in table.query[-5:]] + ["all"]
    assert lines[9].split() == ["..."] * 3  # the elided queries, in every column, as pandas marks them
    assert lines[-1] == "[15 queries x 2 metrics; ... hides 4 queries: to_frame() has them all]" and lines[-2] == ""
    html = table._repr_html_()
    assert html.count("<th>...</th>") == 1 and html.endswith("<p>[15 queries x 2 metrics; ... hides 4 queries: "
                                                             "to_frame() has them all]</p>")
    for n_queries, hidden in ((10, None), (11, None), (12, "1 query")):
        small = quiet(*random_data(3, n_queries=n_queries), ["AUC"])
        assert ("..." in repr(small)) is (hidden is not None)
        assert repr(small).endswith(f"... hides {hidden}: to_frame() has them all]") or hidden is None
    assert table._repr_html_().startswith("<p>ScoreTable: 15 queries") and "<table" in table._repr_html_()
    with pytest.raises(TypeError):
        table["AUC"] = 0  # type: ignore[index]
    with pytest.raises(AttributeError):
        table.query = None


# --------------------------------------------------------------------------- the front door of other libraries


def test_every_score_record_runs_through_evaluate_scores():
    names = [name for name, info in REGISTRY.items() if info.scores]
    table = evaluate_scores([2, 0, 1, 0, 1], [0.9, 0.5, 0.4, 0.6, 0.3], [1, 1, 1, 2, 2], names)
    for name in names:
        assert table[name].shape == (2,) and np.isfinite(table[name]).all() and np.isfinite(table.all[name]), name


def test_array_api_strict_arrays_come_back_as_such_with_the_numpy_values():
    xp = pytest.importorskip("array_api_strict")
    labels, scores, query = random_data(12, n_queries=10, score_levels=5)
    specs = ["nDCG@5", "AUC", "GAUC", "PNR", "P@3"]
    expected = quiet(labels, scores, query, specs)
    table = quiet(xp.asarray(labels), xp.asarray(scores), xp.asarray(query), specs)
    assert all(type(table[spec]) is type(xp.asarray(0.0)) for spec in specs)
    assert (np.asarray(table.query) == expected.query).all()
    for spec in specs:
        np.testing.assert_allclose(np.asarray(table[spec]), expected[spec], rtol=1e-12, atol=1e-15, err_msg=spec)
        assert float(table.all[spec]) == pytest.approx(float(expected.all[spec]), rel=1e-12)
    assert table.to_frame().shape == expected.to_frame().shape


@pytest.mark.parametrize("args, message", [
    (lambda xp: (xp.asarray([1.0, 0.0]), xp.asarray([0.5])), r"got lengths labels 2, scores 1"),
    (lambda xp: (xp.asarray([1.0, 0.0]), xp.asarray([0.5, 0.2]), xp.asarray([1])), r"query 1"),
    (lambda xp: (xp.asarray([1.0, 0.0]), xp.asarray([0.5, xp.nan])), "scores must be finite"),
    (lambda xp: (xp.asarray([1.0, 0.0]), xp.asarray([0.5, xp.inf])), "scores must be finite"),
    (lambda xp: (xp.asarray([1.0, xp.nan]), xp.asarray([0.5, 0.2])), "labels must be finite and non-negative"),
    (lambda xp: (xp.asarray([1, -1]), xp.asarray([0.5, 0.2])), "labels must be finite and non-negative"),
    (lambda xp: (xp.asarray([1, 0]), xp.asarray([0.5, 0.2]), xp.asarray([1.0, 2.0])),
     "query must hold integer ids, got dtype .*float64"),
    (lambda xp: (xp.asarray([[1, 0]]), xp.asarray([[0.5, 0.2]])), "labels must be 1-D"),
    (lambda xp: (xp.asarray([], dtype=xp.float64), xp.asarray([], dtype=xp.float64)), "empty"),
])
def test_array_api_inputs_are_checked_with_their_own_library(args, message):
    xp = pytest.importorskip("array_api_strict")
    with pytest.raises(ValueError, match=message):
        evaluate_scores(*args(xp), metrics=["AUC"])


def test_arrays_of_two_libraries_are_refused():
    xp = pytest.importorskip("array_api_strict")
    jnp = pytest.importorskip("jax.numpy")
    with pytest.raises(TypeError, match="labels, scores and query must come from one array library besides NumPy"):
        evaluate_scores(xp.asarray([1.0, 0.0]), jnp.asarray([0.5, 0.2]))


def test_numpy_labels_and_ids_beside_another_librarys_scores_move_to_it():
    xp = pytest.importorskip("array_api_strict")
    labels, scores, query = np.array([2, 0, 1, 0, 1]), [0.9, 0.8, 0.8, 0.3, 0.2], [7, 7, 7, 3, 3]
    mixed = evaluate_scores(labels, xp.asarray(scores), query, ["nDCG@10", "AUC", "AP"])
    here = evaluate_scores(labels, scores, query, ["nDCG@10", "AUC", "AP"])
    assert type(mixed["AUC"]) is type(xp.asarray(scores)) and type(mixed.query) is type(xp.asarray(scores))
    for spec in ("nDCG@10", "AUC", "AP"):
        np.testing.assert_allclose(np.asarray(mixed[spec]._array), here[spec], rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match=r"query holds <U1 values, which array_api_strict arrays cannot hold: pass "
                                         r"integer query ids"):
        evaluate_scores(labels, xp.asarray(scores), list("aaabb"))


# --------------------------------------------------------------------------- query ids and layouts

ID_SPECS = ["nDCG@5", "AP", "P@3", "RR", "AUC", "GAUC", "PNR", "MSE"]


def _evaluate_oracle(labels, scores, query, specs, ties):
    """rk.evaluate on the rows as a run, each query named by its rank among the distinct ids
    (Python's sort) so that its text sorts as the ids do."""
    distinct = sorted(set(query.tolist()))
    names = np.array([f"q{distinct.index(q):05d}" for q in query.tolist()])
    docs = [f"d{i:05d}" for i in range(len(labels))]
    qrels = pd.DataFrame({"query_id": names, "doc_id": docs, "relevance": labels.astype(int)})
    run = pd.DataFrame({"query_id": names, "doc_id": docs, "score": scores})
    rank_specs = [s for s in specs if s not in ("AUC", "GAUC", "PNR", "MSE")]
    return distinct, names, rk.evaluate(qrels, run, rank_specs, ties=ties)


@pytest.mark.parametrize("make_ids", [
    lambda k: k * 7 + 3,  # gaps
    lambda k: k - 20,  # negative
    lambda k: (k * 3).astype(np.uint16),
    lambda k: (k - 30).astype(np.int8),
    lambda k: k * 10**15 - 5 * 10**16,  # a range far longer than the rows: np.unique
    lambda k: k.astype(np.uint64) + np.uint64(2**63 - 100),  # beyond int64
    lambda k: np.array([f"id{v:03d}" for v in k]),
    lambda k: np.array([f"id{v:03d}" for v in k], dtype=object),
], ids=["gaps", "negative", "uint16", "int8", "wide", "uint64", "str", "object"])
@pytest.mark.parametrize("ties", ["pessimistic", "optimistic"])
def test_every_kind_of_query_id_gives_rk_evaluate_values_to_the_bit(make_ids, ties):
    labels, scores, query = random_data(21, n_queries=40, max_rows=20, levels=4, score_levels=5)
    query = make_ids((query - 3) // 7)
    distinct, names, expected = _evaluate_oracle(labels, scores, query, ID_SPECS, ties)
    reference = quiet(labels, scores, names, ID_SPECS, ties=ties)  # strings: np.unique
    grouped = np.argsort(query, kind="stable")
    for rows in (slice(None), grouped, grouped[::-1]):
        table = quiet(labels[rows], scores[rows], query[rows], ID_SPECS, ties=ties)
        assert table.query.dtype == query.dtype and table.query.tolist() == distinct
        for spec in ID_SPECS:
            if spec in expected:
                np.testing.assert_array_equal(table[spec], expected[spec].to_numpy(), err_msg=spec)
            np.testing.assert_array_equal(table[spec], reference[spec], err_msg=spec)
            assert np.array_equal(table.all[spec], reference.all[spec], equal_nan=True), spec


def test_more_than_65536_queries_scattered_by_construction():
    n = 70_001  # codes above 16 bits: the rows are grouped in two radix passes
    k = np.arange(n)
    query = np.repeat(k * 2 - 5, 2)
    labels = np.tile([1.0, 0.0], n)
    scores = np.where(np.repeat(k % 3 == 0, 2), np.tile([0.2, 0.7], n), np.tile([0.9, 0.1], n))
    order = np.random.default_rng(8).permutation(2 * n)
    table = evaluate_scores(labels[order], scores[order], query[order], ["P@1", "RR", "AUC"])
    assert table.query.tolist() == (k * 2 - 5).tolist() and table.n_rows.tolist() == [2] * n
    worse = k % 3 == 0  # the relevant document scored second
    np.testing.assert_array_equal(table["P@1"], np.where(worse, 0.0, 1.0))
    np.testing.assert_array_equal(table["RR"], np.where(worse, 0.5, 1.0))
    np.testing.assert_array_equal(table["AUC"], np.where(worse, 0.0, 1.0))


def test_rows_grouped_as_numpy_stable_argsort_groups_them():
    from rankkit.evaluation.score_layout import _group_rows

    rng = np.random.default_rng(9)
    for n_queries in (1, 3, 65_536, 65_537, 200_000):
        codes = rng.integers(0, n_queries, 300_000)
        codes[:n_queries] = np.arange(min(n_queries, 300_000))  # every code used when it fits
        n_used = int(codes.max()) + 1
        rows = np.arange(len(codes))[_group_rows(codes, n_used)]  # a slice when already grouped
        np.testing.assert_array_equal(rows, np.argsort(codes, kind="stable"))


@pytest.mark.parametrize("ties", ["average", "pessimistic", "optimistic"])
def test_tied_labels_that_are_not_small_whole_numbers_are_ordered_as_by_hand(ties):
    rng = np.random.default_rng(10)
    for levels in ([0.0, 0.5, 1.5, 2.25], [0.0, 1.0, 2.0**21], [0.0, 1.0, 3.0]):
        sizes = rng.integers(1, 9, 25)
        query = np.repeat(np.arange(25), sizes)
        labels = rng.choice(levels, len(query))
        scores = rng.integers(0, 3, len(query)) / 2
        order = rng.permutation(len(query))
        specs = ["nDCG@3", "DCG@4", "P@2", "CG@3"]
        table = evaluate_scores(labels[order], scores[order], query[order], specs, ties=ties)
        for q in range(25):
            rows = query == q
            pairs = list(zip(scores[rows].tolist(), labels[rows].tolist()))
            if ties == "average":  # the mean over every order of each tied group
                every_order = rk.score([list(o) for o in _orders(labels[rows], scores[rows])], specs)
                for spec in specs:
                    assert table[spec][q] == pytest.approx(every_order[spec].mean(), rel=1e-12, abs=1e-15), spec
                continue
            sign = 1 if ties == "pessimistic" else -1
            ranked = [label for _, label in sorted(pairs, key=lambda p: (-p[0], sign * p[1]))]
            expected = rk.score([ranked], specs)
            for spec in specs:
                assert table[spec][q] == expected[spec].iloc[0], (levels, q, spec)


@settings(max_examples=sweep(100))
@given(data=tied_queries(), rel=st.sampled_from([1, 2, 3]))
def test_auc_with_tied_scores_equals_pairwise_auc_of_each_query_to_the_bit(data, rel):
    labels, scores, query = data
    table = quiet(labels, scores, query, ["AUC", "GAUC"], rel=rel)
    for i, q in enumerate(table.query):
        rows = query == q
        expected = pairwise.auc(labels[rows], scores[rows], rel=rel)  # average ranks of the scores
        assert np.array_equal(table["AUC"][i], expected, equal_nan=True), (q, table["AUC"][i], expected)
        assert np.array_equal(table["GAUC"][i], expected, equal_nan=True)


def _each_query(labels, scores, query, table):
    for i, q in enumerate(table.query):
        rows = query == q
        yield i, labels[rows], scores[rows]


@settings(max_examples=sweep(60))
@given(data=tied_queries(), weights=st.sampled_from(list(pairwise.GAUC_WEIGHTS)))
def test_gauc_and_pnr_with_tied_scores_equal_pairwise_on_each_query_to_the_bit(data, weights):
    labels, scores, query = data
    table = quiet(labels, scores, query, ["GAUC", "PNR", "PNR(label_ties='concordant')"], weights=weights)
    rows = [(y.tolist(), s.tolist()) for _, y, s in _each_query(labels, scores, query, table)]
    expected = pairwise.gauc([y for y, _ in rows], [s for _, s in rows], weights=weights)
    assert np.array_equal(table.all["GAUC"], expected, equal_nan=True), (table.all["GAUC"], expected)
    for i, y, s in _each_query(labels, scores, query, table):
        with np.errstate(divide="ignore", invalid="ignore"):
            assert np.array_equal(table["PNR"][i], pairwise.pnr(y, s), equal_nan=True)
            assert np.array_equal(table["PNR(label_ties='concordant')"][i],
                                  pairwise.pnr(y, s, label_ties="concordant"), equal_nan=True)


def test_auc_gauc_and_pnr_of_long_tied_queries_equal_pairwise_to_the_bit():
    labels, scores, query = random_data(22, n_queries=30, max_rows=60, levels=5, score_levels=6)
    specs = ["AUC", "GAUC", "PNR"]
    table = quiet(labels, scores, query, specs, rel=2)
    concordant = discordant = 0.0
    for i, y, s in _each_query(labels, scores, query, table):
        assert np.array_equal(table["AUC"][i], pairwise.auc(y, s, rel=2), equal_nan=True)
        counts = pairwise.pair_counts(y, s)
        assert np.array_equal(table["PNR"][i], pairwise.pnr(y, s), equal_nan=True)
        concordant, discordant = concordant + counts.concordant, discordant + counts.discordant
    assert table.all["PNR"] == concordant / discordant  # sums of whole and half pairs: exact
    rows = [(y, s) for _, y, s in _each_query(labels, scores, query, table)]
    assert table.all["GAUC"] == pairwise.gauc([y for y, _ in rows], [s for _, s in rows], rel=2)


def test_a_column_is_found_by_any_spelling_of_its_metric_and_the_table_is_read_only():
    import copy
    import pickle

    table = evaluate_scores([1, 0, 1, 0], [0.9, 0.1, 0.3, 0.5], [1, 1, 2, 2], ["ndcg@10", "map"])
    assert list(table) == ["ndcg@10", "map"]
    np.testing.assert_array_equal(table["nDCG@10"], table["ndcg@10"])
    np.testing.assert_array_equal(table["AP"], [1.0, 0.5])
    with pytest.raises(KeyError):
        table["P@5"]  # a metric the table does not hold
    with pytest.raises(KeyError):
        table["nope"]
    with pytest.raises(TypeError):
        table.data["x"] = 1
    for again in (pickle.loads(pickle.dumps(table)), copy.deepcopy(table)):
        assert list(again) == list(table) and again.all == table.all
        np.testing.assert_array_equal(again["map"], table["map"])


def test_lightgbms_ndcg_with_its_gain_and_its_one_for_a_query_without_a_relevant_document():
    """tests/data/lightgbm/README.md: LightGBM 4.7.0 printed ndcg@5 0.9642634977347113 and
    ndcg@10 0.976774222463211 for these predictions."""
    data = np.loadtxt(Path(__file__).parent / "data" / "lightgbm" / "lambdarank_predictions.csv", delimiter=",",
                      skiprows=1)
    query, labels, scores = data[:, 0].astype(np.int64), data[:, 1], data[:, 2]
    spec = "nDCG(gain='exp', no_relevant=1)@{}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        at5 = evaluate_scores(labels, scores, query, [spec.format(5)])
        low, high = (evaluate_scores(labels, scores, query, [spec.format(10)], ties=t).all[spec.format(10)]
                     for t in ("pessimistic", "optimistic"))
        trec = evaluate_scores(labels, scores, query, ["nDCG(gain='exp')@5"])
    assert at5.all[spec.format(5)] == pytest.approx(0.9642634977347113, abs=1e-15)
    assert low <= 0.976774222463211 <= high and high - low < 3e-3
    assert set(at5.unscored[spec.format(5)]) == {0, 1, 2, 3, 4}  # listed: they score 1 here, 0 by default
    assert trec.all["nDCG(gain='exp')@5"] == pytest.approx((at5.all[spec.format(5)] * 60 - 5) / 60, abs=1e-12)
