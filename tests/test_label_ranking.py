"""Tests of rankkit.metrics.label_ranking: LRAP by hand, its relation to average precision,
its edge rows, errors, and scikit-learn's label_ranking_average_precision_score as a live
oracle (row by row, and the weighted mean)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

from rankkit.metrics.binary import average_precision
from rankkit.metrics.label_ranking import lrap, lrap_score


def lrap_written_out(labels, scores, rel=1) -> float:
    """The definition, pair by pair."""
    relevant = [j for j, y in enumerate(labels) if y >= rel]
    if not relevant or len(relevant) == len(labels):
        return 1.0
    shares = []
    for j in relevant:
        at_least = [k for k in range(len(labels)) if scores[k] >= scores[j]]
        shares.append(sum(1 for k in at_least if labels[k] >= rel) / len(at_least))
    return sum(shares) / len(shares)


def test_lrap_by_hand():
    # relevant labels scored 1st and 3rd of 4: (1/1 + 2/3) / 2
    assert lrap([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]) == pytest.approx((1 + 2 / 3) / 2, abs=1e-15)
    # the second relevant label tied with a non-relevant one above it: the tie counts against it
    assert lrap([1, 0, 1, 0], [0.9, 0.7, 0.7, 0.1]) == pytest.approx((1 + 2 / 3) / 2, abs=1e-15)
    assert lrap([0, 1, 1, 0], [0.9, 0.7, 0.7, 0.1]) == pytest.approx(2 / 3, abs=1e-15)
    # graded labels with rel=2
    assert lrap([2, 1, 0], [0.1, 0.5, 0.9], rel=2) == pytest.approx(1 / 3, abs=1e-15)


def test_lrap_edge_rows_score_one():
    assert lrap([[0, 0, 0], [1, 1, 1]], [[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]]).tolist() == [1.0, 1.0]
    assert lrap([[1], [0]], [[0.5], [0.5]]).tolist() == [1.0, 1.0]


def test_lrap_ragged_rows_each_on_their_own_labels():
    labels, scores = [[1, 0], [0, 0, 1, 0]], [[0.0, 0.0], [0.4, 0.3, 0.2, 0.1]]
    np.testing.assert_allclose(lrap(labels, scores), [0.5, 1 / 3], rtol=0, atol=1e-15)
    # padding never joins a run of equal scores: a real score of 0 next to the padding
    assert lrap([[1, 0, 0], [0, 1]], [[0.0, 0.0, 0.0], [1.0, 0.0]])[1] == 0.5


@given(rows=st.lists(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1000)), min_size=2, max_size=10,
                              unique_by=lambda t: t[1]), min_size=1, max_size=4))
@settings(max_examples=sweep(50))
def test_lrap_with_distinct_scores_is_ap_over_the_retrieved_relevant(rows):
    for row in rows:
        labels, scores = [a for a, _ in row], [b for _, b in row]
        if 0 < sum(labels) < len(labels):
            ranked = [labels[i] for i in np.argsort(scores)[::-1]]
            assert lrap(labels, scores) == pytest.approx(average_precision(ranked, normalize="retrieved"), abs=1e-14)


@given(labels=st.lists(st.integers(0, 3), min_size=1, max_size=12), data=st.data(), rel=st.sampled_from([1, 2]))
@settings(max_examples=sweep(80))
def test_lrap_is_the_definition(labels, data, rel):
    scores = data.draw(st.lists(st.integers(0, 3), min_size=len(labels), max_size=len(labels)))
    assert lrap(labels, scores, rel=rel) == pytest.approx(lrap_written_out(labels, scores, rel), abs=1e-14)


def test_lrap_of_labels_in_rank_order_and_of_tie_groups():
    import pandas as pd

    from rankkit import Rankings, as_rankings

    assert lrap([0, 1, 1, 0]) == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)
    np.testing.assert_array_equal(lrap([[0, 1, 1, 0], [1, 0]]), lrap([[0, 1, 1, 0], [1, 0]], [[4, 3, 2, 1], [2, 1]]))
    # tie groups count as equal scores: groups {1, 0}, {1, 0, 0} are the scores 2, 2, 1, 1, 1
    base = as_rankings([[1, 0, 1, 0, 0], [0, 0, 1, 1, 0]])
    r = Rankings(labels=base.labels, judged=base.judged, lengths=base.lengths, ideal=base.ideal,
                 n_judged=base.n_judged, query_ids=pd.Index(["a", "b"]),
                 ties=np.array([[0, 0, 2, 2, 2], [5, 6, 6, 8, 9]]))
    want = lrap([[1, 0, 1, 0, 0], [0, 0, 1, 1, 0]], [[2, 2, 1, 1, 1], [5, 4, 4, 2, 1]])
    np.testing.assert_array_equal(lrap(r), want)
    # and then it is AP with scikit-learn's rule for tie groups
    np.testing.assert_allclose(lrap(r), average_precision(r, tied="group_end"), rtol=0, atol=1e-15)


def test_lrap_errors():
    with pytest.raises(ValueError, match=r"labels and scores must have the same shape, got \(3,\) and \(2,\)"):
        lrap([1, 0, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"scores must be finite"):
        lrap([1, 0], [np.nan, 0.2])
    with pytest.raises(ValueError, match=r"rel must be a positive number"):
        lrap([1, 0], [0.1, 0.2], rel=0)
    with pytest.raises(ValueError, match=r"sample_weight must have one value per row \(2\)"):
        lrap_score([[1, 0], [0, 1]], [[1, 0], [0, 1]], sample_weight=[1, 2, 3])
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative and not all 0"):
        lrap_score([[1, 0], [0, 1]], [[1, 0], [0, 1]], sample_weight=[0, 0])


def test_lrap_fixed_against_sklearn():
    from sklearn.metrics import label_ranking_average_precision_score

    y, s = np.array([[1, 0, 0], [0, 0, 1]]), np.array([[0.75, 0.5, 1], [1, 0.2, 0.1]])
    assert lrap_score(y, s) == pytest.approx(label_ranking_average_precision_score(y, s), abs=1e-15)
    assert lrap_score(y, s) == pytest.approx(5 / 12, abs=1e-15)


@given(rows=st.integers(1, 5), width=st.integers(1, 8), data=st.data())
@settings(max_examples=sweep(100))
def test_lrap_matches_sklearn_label_ranking_average_precision_score(rows, width, data):
    from sklearn.metrics import label_ranking_average_precision_score

    cell = st.integers(0, 1)
    y = np.array(data.draw(st.lists(st.lists(cell, min_size=width, max_size=width), min_size=rows, max_size=rows)))
    s = np.array(data.draw(st.lists(st.lists(st.integers(0, 4), min_size=width, max_size=width),
                                    min_size=rows, max_size=rows)), dtype=float)
    w = np.array(data.draw(st.lists(st.integers(1, 5), min_size=rows, max_size=rows)), dtype=float)
    ours = lrap(y, s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(rows):
            assert ours[i] == pytest.approx(label_ranking_average_precision_score(y[i:i + 1], s[i:i + 1]), abs=1e-12)
        assert lrap_score(y, s) == pytest.approx(label_ranking_average_precision_score(y, s), abs=1e-12)
        assert lrap_score(y, s, sample_weight=w) == pytest.approx(
            label_ranking_average_precision_score(y, s, sample_weight=w), abs=1e-12)
