"""Recommender measures beyond accuracy (rankkit/recommender.py).

The values the peers' own tests state, reproduced under the parameters that match each peer:

- Microsoft Recommenders, ``tests/unit/recommenders/evaluation/test_python_evaluation.py`` with
  the ``diversity_data`` fixture of ``tests/unit/recommenders/evaluation/conftest.py``
  (https://github.com/recommenders-team/recommenders, commit b02c95e of 2025-09-29);
- RecBole, ``tests/metrics/test_topk_metrics.py`` (https://github.com/RUCAIBox/RecBole,
  commit 7b02be5 of 2025-02-24).

Then every measure against a plain-Python oracle (dicts, sets and loops, written from the
formulas, sharing no code with rankkit) on random inputs.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankkit as rk
from rankkit import recommender as R

# --------------------------------------------------------------------------- Microsoft Recommenders

MS_TRAIN = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 3, 3, 3], "item_id": [1, 2, 4, 3, 4, 3, 4, 5]})
MS_LISTS = {1: [3, 5], 2: [2, 5], 3: [1, 2]}
MS_RELEVANCE = {1: {3: 1, 5: 0}, 2: {2: 1, 5: 1}, 3: {1: 1, 2: 0}}
MS_FEATURES = {1: [0.0, 1.0, 1.0, 0.0, 0.0], 2: [0.0, 1.0, 0.0, 1.0, 0.0], 3: [0.0, 0.0, 1.0, 1.0, 0.0],
               4: [0.0, 0.0, 1.0, 0.0, 1.0], 5: [0.0, 0.0, 0.0, 1.0, 1.0]}
TOL = 1e-4   # the peer's own tolerance (its TOL, and pandas' default for assert_frame_equal)


def as_run(lists: dict) -> dict:
    """Lists of items, best first, as the run input rk.evaluate takes."""
    return {user: {item: float(len(items) - rank) for rank, item in enumerate(items)} for user, items in lists.items()}


def ms_recs(lists=MS_LISTS, train=MS_TRAIN, **kwargs):
    return rk.recommendations(as_run(lists), train, qrels=MS_RELEVANCE, features=MS_FEATURES, **kwargs)


def test_microsoft_recommenders_coverage_and_novelty():
    recs = ms_recs()
    assert rk.catalog_coverage(recs, of="train") == pytest.approx(0.8, abs=TOL)
    assert rk.exposure_entropy(recs) == pytest.approx(1.9183, abs=TOL)             # distributional_coverage
    assert rk.beyond_accuracy(recs, average="recommendations")["novelty"] == pytest.approx(2.83333, abs=TOL)
    # historical_item_novelty: each item's -log2 p(i), as the novelty of a list holding it alone
    alone = rk.recommendations(as_run({item: [item] for item in range(1, 6)}), MS_TRAIN)
    assert rk.novelty(alone) == pytest.approx([3.0, 3.0, 2.0, 1.41504, 3.0], abs=TOL)
    # novelty is zero when the data holds one item only
    only3 = MS_TRAIN[MS_TRAIN["item_id"] == 3]
    assert rk.novelty(rk.recommendations(as_run({1: [3]}), only3)).tolist() == [0.0]
    assert rk.beyond_accuracy(rk.recommendations(as_run({1: [3], 2: [3]}), only3))["novelty"] == 0.0


@pytest.mark.parametrize(("similarity", "users", "mean"), [
    ("cooccurrence", [0.29289, 1.0, 0.0], 0.43096),
    ("features", [0.5, 0.5, 0.5], 0.5),
])
def test_microsoft_recommenders_diversity(similarity, users, mean):
    recs = ms_recs()
    assert rk.intra_list_diversity(recs, similarity=similarity) == pytest.approx(users, abs=TOL)
    assert rk.beyond_accuracy(recs, similarity=similarity)["ILD"] == pytest.approx(mean, abs=TOL)


@pytest.mark.parametrize(("similarity", "items", "users", "mean"), [
    ("cooccurrence", [0.72783, 0.0, 0.71132, 0.35777, 0.80755, 0.0], [0.363915, 0.53455, 0.403775], 0.43408),
    ("features", [0.5, 0.0, 0.75, 0.5, 0.6667, 0.0], [0.25, 0.625, 0.3333], 0.4028),
])
def test_microsoft_recommenders_serendipity(similarity, items, users, mean):
    recs = ms_recs()
    assert rk.serendipity(recs, similarity=similarity) == pytest.approx(users, abs=TOL)
    assert rk.beyond_accuracy(recs, similarity=similarity)["serendipity"] == pytest.approx(mean, abs=TOL)
    # user_item_serendipity: each (user, item) as a list of that item alone
    per_item = [rk.serendipity(ms_recs({user: [item]}), similarity=similarity)[0]
                for user, listed in MS_LISTS.items() for item in listed]
    assert per_item == pytest.approx(items, abs=TOL)


# --------------------------------------------------------------------------- RecBole

RECBOLE_ITEMS = np.array([[5, 7, 3], [4, 5, 2], [2, 3, 5], [1, 4, 6], [5, 3, 7]])
RECBOLE_COUNTS = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5}   # training interactions per item
RECBOLE_N_ITEMS = 8


def recbole_recs():
    lists = {f"u{row}": items.tolist() for row, items in enumerate(RECBOLE_ITEMS)}
    train = [(f"t{item}.{n}", item) for item, count in RECBOLE_COUNTS.items() for n in range(count)]
    return rk.recommendations(as_run(lists), train, catalog=range(1, RECBOLE_N_ITEMS + 1))


def test_recbole_item_coverage_gini_and_entropy():
    recs = recbole_recs()
    assert rk.catalog_coverage(recs) == 7 / 8
    gini = ((-7) * 0 + (-5) * 1 + (-3) * 1 + (-1) * 2 + 1 * 2 + 3 * 2 + 5 * 3 + 7 * 4) / (8 * (3 * 5))
    assert rk.gini_index(recs) == pytest.approx(gini, rel=1e-15)
    shares = [1, 2, 3, 2, 4, 1, 2]
    entropy = -np.mean([s / 15 * np.log(s / 15) for s in shares])
    assert rk.exposure_entropy(recs, base=math.e, per_item=True) == pytest.approx(entropy, rel=1e-15)


def test_recbole_average_popularity_and_tail_percentage_at_each_cutoff():
    recs = recbole_recs()
    popularity = [[4 / 1, 4 / 2, 6 / 3], [3 / 1, 7 / 2, 8 / 3], [1 / 1, 3 / 2, 7 / 3], [0 / 1, 3 / 2, 8 / 3],
                  [4 / 1, 6 / 2, 6 / 3]]
    tail = [[0, 0, 0], [0, 0, 0], [0, 0, 0], [1 / 1, 1 / 2, 1 / 3], [0, 0, 0]]
    at = [1, 2, 3]
    assert np.column_stack([rk.average_popularity(recs, k=k) for k in at]).tolist() == popularity
    assert np.column_stack([rk.long_tail_share(recs, k=k, tail=0.1) for k in at]).tolist() == tail


# --------------------------------------------------------------------------- the oracle


def oracle(lists, train, catalog, features, relevant, similarity):
    """Every measure from its formula, in plain Python: lists {user: [items best first]},
    train [(user, item)], catalog [items], features {item: [floats]}, relevant {(user, item)}."""
    counts = {i: 0 for i in catalog}
    for _, item in train:
        counts[item] += 1
    users_of = {i: {u for u, j in train if j == i} for i in catalog}
    history = {u: sorted({i for v, i in train if v == u}) for u in lists}

    def sim(a, b):
        if similarity == "features":
            dot = sum(x * y for x, y in zip(features[a], features[b]))
            return dot / (math.sqrt(sum(x * x for x in features[a])) * math.sqrt(sum(y * y for y in features[b])))
        n = len(users_of[a]) * len(users_of[b])
        return len(users_of[a] & users_of[b]) / math.sqrt(n) if n else 0.0

    shown = [i for items in lists.values() for i in items]
    exposure = {i: shown.count(i) for i in catalog}
    total = len(shown)
    out = {"coverage": len(set(shown)) / len(catalog)}
    out["entropy"] = -sum(c / total * math.log2(c / total) for c in exposure.values() if c) if total else math.nan
    ordered = sorted(exposure.values())
    n = len(ordered)
    out["gini"] = sum((2 * r - n - 1) * c for r, c in enumerate(ordered, 1)) / (n * total) if total else math.nan
    n_train = len(train)
    tail_n = max(int(n * 0.1), 1)
    tail = set(sorted(catalog, key=lambda i: (counts[i], i))[:tail_n])
    per_user = {"ARP": [], "long_tail": [], "novelty": [], "ILD": [], "serendipity": []}
    for user, items in lists.items():
        k = len(items)
        per_user["ARP"].append(sum(counts[i] for i in items) / k if k else math.nan)
        per_user["long_tail"].append(sum(i in tail for i in items) / k if k else math.nan)
        info = [-math.log2(counts[i] / n_train) if counts[i] else 0.0 for i in items]
        per_user["novelty"].append(sum(info) / k if k else math.nan)
        pairs = [(a, b) for x, a in enumerate(items) for b in items[x + 1:]]
        per_user["ILD"].append(1 - sum(sim(a, b) for a, b in pairs) / len(pairs) if pairs else math.nan)
        seen = history[user]
        if not seen:
            per_user["serendipity"].append(math.nan)
            continue
        ser = [(1 - sum(sim(i, j) for j in seen) / len(seen)) * ((user, i) in relevant) for i in items]
        per_user["serendipity"].append(sum(ser) / k)
    return out, per_user


@st.composite
def inputs(draw):
    n_items = draw(st.integers(1, 7))
    catalog = [f"i{n}" for n in range(n_items)]
    users = [f"u{n}" for n in range(draw(st.integers(1, 5)))]
    lists = {u: draw(st.lists(st.sampled_from(catalog), max_size=n_items, unique=True)) for u in users}
    lists = {u: items for u, items in lists.items() if items} or {users[0]: [catalog[0]]}
    train = draw(st.lists(st.tuples(st.sampled_from(users + ["x", "y"]), st.sampled_from(catalog)), min_size=1,
                          max_size=20))
    vector = st.lists(st.integers(0, 3), min_size=3, max_size=3).filter(any)
    features = {i: [float(v) for v in draw(vector)] for i in catalog}
    relevant = {(u, i) for u, items in lists.items() for i in items if draw(st.booleans())}
    return lists, train, catalog, features, relevant


def check_close(got, expected):
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(inputs(), st.sampled_from(R.SIMILARITIES))
def test_every_measure_matches_a_plain_python_oracle(data, similarity):
    lists, train, catalog, features, relevant = data
    qrels = {u: {i: 1 for v, i in relevant if v == u} for u in lists}
    qrels = {u: judged for u, judged in qrels.items() if judged} or None
    recs = rk.recommendations(as_run(lists), train, catalog=catalog, k=None, features=features, qrels=qrels)
    users = list(recs.user_ids)
    whole, per_user = oracle({u: lists[u] for u in users}, train, catalog, features,
                             relevant if qrels else {(u, i) for u in lists for i in lists[u]}, similarity)
    check_close(rk.catalog_coverage(recs), whole["coverage"])
    check_close(rk.exposure_entropy(recs), whole["entropy"])
    check_close(rk.gini_index(recs), whole["gini"])
    got = {"ARP": rk.average_popularity(recs), "long_tail": rk.long_tail_share(recs), "novelty": rk.novelty(recs),
           "ILD": rk.intra_list_diversity(recs, similarity=similarity),
           "serendipity": rk.serendipity(recs, similarity=similarity)}
    for name, values in got.items():
        assert len(values) == len(users)
        for value, expected in zip(values, per_user[name]):
            check_close(float(value), expected)
    summary = rk.beyond_accuracy(recs, similarity=similarity)
    for name in per_user:
        kept = [v for v in per_user[name] if not math.isnan(v)]
        check_close(summary[name], sum(kept) / len(kept) if kept else math.nan)


# --------------------------------------------------------------------------- by hand, edge cases, errors


def test_lists_follow_evaluates_order_and_cutoff():
    run = {"u": {"a": 1.0, "b": 2.0, "c": 1.0, "d": 0.5}}
    recs = rk.recommendations(run, [("u", "a")], k=3)
    # score descending, ties by item id descending (trec_eval's order): b, c, a
    assert [recs.catalog[i] for i in recs.items[0]] == ["b", "c", "a"]
    assert recs.lengths.tolist() == [3]
    assert rk.catalog_coverage(recs, k=1) == 0.25


def test_even_exposure_has_gini_zero_and_full_entropy():
    lists = {"u1": ["a", "b"], "u2": ["c", "d"]}
    recs = rk.recommendations(as_run(lists), [("u1", "a")])
    assert rk.gini_index(recs) == 0.0
    assert rk.exposure_entropy(recs) == 2.0 and rk.exposure_entropy(recs, base=4) == pytest.approx(1.0)
    one = rk.recommendations(as_run({"u1": ["a"], "u2": ["a"]}), [("u1", "a")], catalog=["a", "b", "c", "d"])
    assert rk.exposure_entropy(one) == 0.0 and rk.gini_index(one) == 0.75   # (n - 1) / n: one item takes all


def test_users_without_a_value_are_nan_and_left_out_of_the_mean():
    recs = rk.recommendations(as_run({"u1": ["a"], "u2": ["a", "b"]}), [("u2", "a"), ("u2", "b")],
                              features={"a": [1, 0], "b": [1, 1]})
    assert np.isnan(rk.intra_list_diversity(recs)[0])              # one item: no pair
    assert np.isnan(rk.serendipity(recs)[0])                       # no training item
    assert rk.beyond_accuracy(recs)["ILD"] == pytest.approx(1 - 1 / math.sqrt(2))


def test_unseen_items_count_zero_or_are_skipped():
    recs = rk.recommendations(as_run({"u": ["a", "new"]}), [("u", "a"), ("v", "b")])
    assert rk.novelty(recs).tolist() == [0.5] and rk.novelty(recs, unseen="skip").tolist() == [1.0]
    assert rk.long_tail_share(recs, tail=0, by="count").tolist() == [0.5]


def test_averages_over_users_or_recommendations():
    recs = rk.recommendations(as_run({"u1": ["a"], "u2": ["b", "c", "d"]}),
                              [("x", "a"), ("x", "a"), ("x", "b"), ("x", "c"), ("x", "d")])
    assert rk.beyond_accuracy(recs)["ARP"] == (2 + 1) / 2
    assert rk.beyond_accuracy(recs, average="recommendations")["ARP"] == 5 / 4


def test_errors():
    run, train = as_run({"u": ["a", "b"]}), [("u", "a")]
    recs = rk.recommendations(run, train)
    with pytest.raises(ValueError, match="outside the catalogue: \\['b'\\]"):
        rk.recommendations(run, train, catalog=["a"])
    with pytest.raises(ValueError, match="train must have columns user_id and item_id"):
        rk.recommendations(run, pd.DataFrame({"u": ["u"], "i": ["a"]}))
    with pytest.raises(ValueError, match="train must hold \\(user, item\\) pairs, got 'ua'"):
        rk.recommendations(run, ["ua"])
    with pytest.raises(ValueError, match="features has no vector for items \\['b'\\]"):
        rk.recommendations(run, train, features={"a": [1.0]})
    with pytest.raises(ValueError, match="features of items \\['b'\\] are all zero"):
        rk.recommendations(run, train, features={"a": [1.0], "b": [0.0]})
    with pytest.raises(ValueError, match="features must give every item a vector of the same length"):
        rk.recommendations(run, train, features={"a": [1.0], "b": [1.0, 2.0]})
    with pytest.raises(ValueError, match="features has several vectors for items \\['a'\\]"):
        rk.recommendations(run, train, features=pd.DataFrame({"f": [1.0, 2.0, 3.0]}, index=["a", "a", "b"]))
    with pytest.raises(ValueError, match="similarity='features' needs features="):
        rk.intra_list_diversity(recs, similarity="features")
    with pytest.raises(ValueError, match="similarity must be one of 'features', 'cooccurrence', got 'jaccard'"):
        rk.serendipity(recs, similarity="jaccard")
    with pytest.raises(ValueError, match="k must be a positive integer or None, got 0"):
        rk.recommendations(run, train, k=0)
    with pytest.raises(ValueError, match="of must be one of 'catalog', 'train'"):
        rk.catalog_coverage(recs, of="all")
    with pytest.raises(ValueError, match="base must be a number > 1, got 1"):
        rk.exposure_entropy(recs, base=1)
    with pytest.raises(ValueError, match="tail must be in \\(0, 1\\], got 2"):
        rk.long_tail_share(recs, tail=2)
    with pytest.raises(ValueError, match="tail must be a non-negative integer with by='count', got 0.5"):
        rk.long_tail_share(recs, tail=0.5, by="count")
    with pytest.raises(ValueError, match="unseen must be one of 'zero', 'skip'"):
        rk.novelty(recs, unseen="inf")
    with pytest.raises(ValueError, match="average must be one of 'users', 'recommendations'"):
        rk.beyond_accuracy(recs, average="items")
    with pytest.raises(ValueError, match="expected the Recommendations rk.recommendations returns, got dict"):
        rk.novelty(run)


def test_large_catalogues_compute_pair_by_pair_with_the_same_values(monkeypatch):
    lists = {"u1": ["a", "b", "c"], "u2": ["b", "d"]}
    train = [("u1", "a"), ("u1", "b"), ("u2", "b"), ("u2", "c"), ("x", "c"), ("x", "d")]
    features = {"a": [1, 2], "b": [0, 1], "c": [3, 1], "d": [1, 1]}
    recs = rk.recommendations(as_run(lists), train, features=features)
    table = {s: (rk.intra_list_diversity(recs, similarity=s), rk.serendipity(recs, similarity=s))
             for s in R.SIMILARITIES}
    monkeypatch.setattr(R, "_TABLE_ITEMS", 1)
    for s in R.SIMILARITIES:
        np.testing.assert_array_equal(rk.intra_list_diversity(recs, similarity=s), table[s][0])
        np.testing.assert_array_equal(rk.serendipity(recs, similarity=s), table[s][1])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(2, 9))
def test_diversity_and_serendipity_follow_the_documented_order_bit_for_bit(seed, n_users, n_items):
    """The module's order, replayed in plain Python floats: cosines as products summed left to
    right over the features; a list's pairs rank by rank, each row left to right; a history in
    catalogue order. ``==``, not approximately."""
    rng = np.random.default_rng(seed)
    catalog = [f"i{n}" for n in range(n_items)]
    features = {i: [float(x) for x in rng.random(4) + 0.01] for i in catalog}
    lists = {f"u{n}": [str(i) for i in rng.permutation(catalog)[:rng.integers(1, n_items + 1)]] for n in range(n_users)}
    train = [(u, catalog[i]) for u in lists for i in rng.integers(0, n_items, 3)]
    recs = rk.recommendations(as_run(lists), train, catalog=catalog, features=features, k=None)

    def cosine(a, b):
        dot, na, nb = 0.0, 0.0, 0.0
        for x, y in zip(features[a], features[b]):
            dot += x * y
            na += x * x
            nb += y * y
        return dot / (math.sqrt(na) * math.sqrt(nb))

    for row, user in enumerate(recs.user_ids):
        items = lists[user]
        total, pairs = 0.0, 0
        for r in range(len(items) - 1):
            partial = 0.0
            for other in items[r + 1:]:
                partial += cosine(items[r], other)
                pairs += 1
            total += partial
        expected = 1.0 - total / pairs if pairs else math.nan
        got = rk.intra_list_diversity(recs)[row]
        assert (math.isnan(got) and math.isnan(expected)) or got == expected
        seen = sorted({i for v, i in train if v == user})
        ser = 0.0
        for item in items:
            summed = 0.0
            for j in seen:
                summed += cosine(item, j)
            ser += 1.0 - summed / len(seen)
        assert rk.serendipity(recs)[row] == ser / len(items)


# --------------------------------------------------------------------------- the records: names, parameters, help

RECORDS = {name: info for name, info in rk.names.REGISTRY.items() if info.judgments == "interactions"}


def test_every_measure_has_a_record_named_as_its_function():
    functions = {"catalog_coverage", "exposure_entropy", "gini_index", "average_popularity", "long_tail_share",
                 "novelty", "intra_list_diversity", "serendipity"}
    assert set(RECORDS) == functions and set(R.__all__) >= functions
    per_run = {name for name, info in RECORDS.items() if info.aggregate == "run"}
    assert per_run == {name for name in functions if isinstance(getattr(rk, name)(RECS_SMALL), float)}
    # beyond_accuracy's keys are the records' aliases where they differ from the names (its ARP is
    # average_popularity: the registry's ARP is TensorFlow Ranking's average relevance position)
    names = {name: name for name in RECORDS} | rk.names.NAME_ALIASES | {"ARP": "average_popularity"}
    assert [names[key] for key in R.MEASURES] == list(RECORDS)
    assert rk.names.REGISTRY["ARP"].judgments == "qrels"


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_each_records_parameters_are_its_functions(name):
    info, signature = RECORDS[name], __import__("inspect").signature(getattr(rk, name)).parameters
    assert info.cutoff and signature["k"].default is None
    assert [p for p in signature if p not in ("recs", "k")] == list(info.params)
    for param in info.parameters:
        assert signature[param.name].default == param.default, param.name
    choices = {"similarity": R.SIMILARITIES, "unseen": ("zero", "skip"), "of": ("catalog", "train"),
               "by": ("share", "count")}
    for param in info.parameters:
        if param.type == "text":
            assert param.choices == choices[param.name]
            with pytest.raises(ValueError, match=param.name):
                getattr(rk, name)(RECS_SMALL, **{param.name: "nope"})
            rk.names.parse_metric(f"{name}({param.name}={param.choices[-1]!r})@5")  # each choice is accepted


RECS_SMALL = rk.recommendations({"u1": {"a": 2, "b": 1}, "u2": {"a": 2, "c": 1}}, [("u1", "a"), ("u2", "b")],
                                features={"a": [1, 0], "b": [0, 1], "c": [1, 1]})


@pytest.mark.parametrize("spec, call", [
    ("novelty@10", "rk.novelty(rk.recommendations(run, train), k=10)"),
    ("ILD", "rk.intra_list_diversity(rk.recommendations(run, train))"),
    ("coverage(of='train')@5", "rk.catalog_coverage(rk.recommendations(run, train), k=5, of='train')"),
    ("long_tail_share(tail=3, by='count')", "rk.long_tail_share(rk.recommendations(run, train), tail=3, by='count')"),
])
def test_evaluate_refuses_them_saying_what_to_call(spec, call):
    with pytest.raises(ValueError) as caught:
        rk.evaluate({"u1": {"a": 1}}, {"u1": {"a": 2.0, "b": 1.0}}, [spec])
    assert str(caught.value) == (f"metric {spec} needs a recommender's lists and training interactions: use {call}, "
                                 "or rk.beyond_accuracy(recs) for every such measure")
    with pytest.raises(ValueError, match="needs a recommender's lists"):
        rk.evaluate_scores([1, 0], [0.5, 0.2], [1, 1], [spec])
    with pytest.raises(ValueError, match="needs a recommender's lists"):
        rk.parse_metric(spec)([[1, 0]])


def test_the_suggested_call_computes_what_the_spec_names():
    recs = rk.recommendations({"u1": {"a": 2, "b": 1}, "u2": {"a": 2, "c": 1}}, [("u1", "a"), ("u2", "b")])
    metric = rk.parse_metric("novelty(unseen='skip')@1")
    assert np.array_equal(rk.novelty(recs, k=metric.k, **metric.kwargs), rk.novelty(recs, k=1, unseen="skip"),
                          equal_nan=True)
    with pytest.raises(ValueError, match="unseen must be one of 'zero', 'skip', got 'never'"):
        rk.parse_metric("novelty(unseen='never')@1")
