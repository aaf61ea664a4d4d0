"""Tests of rankkit.unranked: source 000's MSE example, scikit-learn as oracle."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import mean_absolute_error, mean_squared_error
from sweeps import sweep

import rankkit as rk
from rankkit.metrics.unranked import mae, mse

finite = st.floats(-1e3, 1e3, allow_nan=False)


@st.composite
def paired(draw, min_size=1, max_size=30):
    n = draw(st.integers(min_size, max_size))
    return draw(st.lists(finite, min_size=n, max_size=n)), draw(st.lists(finite, min_size=n, max_size=n))


def ranking_by(scores, y_true):
    """True labels in the order the predicted scores rank the documents (stable on ties)."""
    order = np.argsort(-np.asarray(scores, dtype=float), kind="stable")
    return np.asarray(y_true)[order]


def test_source_000_lower_mse_worse_ranking():
    # one relevant document (index 0) among five
    y = [1, 0, 0, 0, 0]
    first = [0.6, 0.5, 0.5, 0.5, 0.5]  # ranks the relevant document first
    second = [0.3, 0.4, 0.0, 0.0, 0.0]  # ranks an irrelevant document first
    assert mse(y, first) == pytest.approx((0.4**2 + 4 * 0.5**2) / 5)  # 0.232
    assert mse(y, second) == pytest.approx((0.7**2 + 0.4**2) / 5)  # 0.13
    assert mse(y, second) < mse(y, first)  # lower error ...
    assert mae(y, second) < mae(y, first)
    ranked_first, ranked_second = ranking_by(first, y), ranking_by(second, y)
    assert ranked_first[0] == 1 and ranked_second[0] == 0  # ... but the relevant document drops to rank 2
    assert np.flatnonzero(ranked_first)[0] + 1 == 1
    assert np.flatnonzero(ranked_second)[0] + 1 == 2
    assert rk.inversions(ranked_first) < rk.inversions(ranked_second)
    assert np.allclose(mse([y, y], [first, second]), [0.232, 0.13])


def test_hand_computed():
    assert mse([1, 2, 3], [1, 2, 3]) == 0.0
    assert mse([0, 0], [1, 3]) == 5.0
    assert mae([0, 0], [1, -3]) == 2.0
    assert type(mse([1], [2])) is float and type(mae([1], [2])) is float
    assert np.array_equal(mse([[1, 0], [2, 2]], [[0, 0], [1, 3]]), [0.5, 1.0])
    assert np.array_equal(mae(np.array([[1, 0], [2, 2]]), np.array([[0, 0], [1, 4]])), [0.5, 1.5])


def test_ragged_and_empty():
    assert np.allclose(mae([[1, 0], [2, 2, 5], []], [[0, 0], [1, 3, 5], []])[:2], [0.5, 2 / 3])
    out = mse([[1, 0], []], [[1, 1], []])
    assert out[0] == 0.5 and math.isnan(out[1])  # no document, no mean
    assert math.isnan(mse([], []))
    assert mse(np.zeros((0, 3)), np.zeros((0, 3))).shape == (0,)


def test_matches_sklearn_fixed():
    rng = np.random.default_rng(5)
    y_true = rng.integers(0, 5, (20, 12)).astype(float)
    y_pred = rng.normal(2, 1.5, (20, 12))
    assert np.allclose(mse(y_true, y_pred), [mean_squared_error(t, p) for t, p in zip(y_true, y_pred)], rtol=1e-13)
    assert np.allclose(mae(y_true, y_pred), [mean_absolute_error(t, p) for t, p in zip(y_true, y_pred)], rtol=1e-13)


@settings(max_examples=sweep(100))
@given(data=paired())
def test_matches_sklearn(data):
    y_true, y_pred = data
    assert mse(y_true, y_pred) == pytest.approx(mean_squared_error(y_true, y_pred), rel=1e-12, abs=1e-12)
    assert mae(y_true, y_pred) == pytest.approx(mean_absolute_error(y_true, y_pred), rel=1e-12, abs=1e-12)
    assert mse(y_true, y_pred) >= 0 and mae(y_true, y_pred) >= 0
    assert mse(y_true, y_true) == 0.0
    # MAE <= RMSE (Jensen)
    assert mae(y_true, y_pred) <= math.sqrt(mse(y_true, y_pred)) * (1 + 1e-12) + 1e-12


@settings(max_examples=sweep(50))
@given(rows=st.lists(paired(max_size=10), min_size=1, max_size=6))
def test_ragged_batch_equals_per_row(rows):
    y_true, y_pred = [r[0] for r in rows], [r[1] for r in rows]
    for f in (mse, mae):
        assert np.allclose(f(y_true, y_pred), [f(t, p) for t, p in rows], rtol=1e-14, atol=0)


@settings(max_examples=sweep(50))
@given(n=st.integers(1, 5), length=st.integers(1, 8), data=st.data())
def test_2d_batch_equals_per_row(n, length, data):
    y_true = np.array(data.draw(st.lists(finite, min_size=n * length, max_size=n * length))).reshape(n, length)
    y_pred = np.array(data.draw(st.lists(finite, min_size=n * length, max_size=n * length))).reshape(n, length)
    for f in (mse, mae):
        assert np.allclose(f(y_true, y_pred), [f(t, p) for t, p in zip(y_true, y_pred)], rtol=1e-14, atol=0)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: mse([1, np.nan], [1, 2]), "y_true must be finite"),
        (lambda: mae([1, 2], [np.inf, 2]), "y_pred must be finite"),
        (lambda: mse([1, 2, 3], [1, 2]), r"y_true and y_pred must have the same shape, got \(3,\) and \(2,\)"),
        (lambda: mae([[1, 2]], [1, 2]), "y_true and y_pred must have the same shape"),
        (lambda: mse([[1, 2], [3]], [[1, 2], [3, 4]]), "y_true and y_pred must have the same shape"),
        (lambda: mse(np.zeros((1, 1, 1)), np.zeros((1, 1, 1))), "y_true must be 1-D or 2-D"),
        (lambda: mae(["a"], [1]), "y_true must hold numbers"),
    ],
)
def test_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_public_names_exported():
    assert rk.mse is mse and rk.mae is mae


def test_a_rankings_with_predictions_in_its_layout():
    r = rk.as_rankings([[1, 0, 2], [3]])  # padded to width 3
    predictions = np.array([[0.5, 0.5, 2.0], [1.0, 99.0, 99.0]])  # the padding is ignored
    np.testing.assert_array_equal(mse(r, predictions), [(0.25 + 0.25) / 3, 4.0])
    np.testing.assert_array_equal(mae(r, predictions), [(0.5 + 0.5) / 3, 2.0])
    with pytest.raises(ValueError, match=r"y_pred must have the shape of the Rankings' labels \(2, 3\)"):
        mse(r, np.zeros((2, 2)))
