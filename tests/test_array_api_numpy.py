"""The metric kernels' array-API paths on array_api_compat's namespace of NumPy (arrays that
are not NumPy arrays to rankkit's primitives: array-api-strict wrapping NumPy): no other array
library needed, so the declared floors of NumPy and array-api-compat (`make test-oldest`) run
them too. Their values equal the NumPy path of ``evaluate_scores``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from library_scores import SUPPORTED, score_arrays

import rankkit as rk
from rankkit.names import parse_metric

xp = pytest.importorskip("array_api_compat.numpy")

SPECS = ["nDCG@10", "nDCG(gain='exp')@5", "nDCG(gain='exp', no_relevant=1)@5",
         "DCG@3", "CG@5", "P@5", "R@10", "success@3", "AP", "AP@5", "RR",
         "RBP(p=0.8)", "fallout@5", "LRAP", "AUC", "GAUC", "GAUC(weights='queries')", "PNR", "MSE", "MAE"]


def _data(seed: int, n: int = 400):
    rng = np.random.default_rng(seed)
    query = rng.integers(0, 30, n)
    labels = rng.integers(0, 4, n).astype(np.float64)
    scores = np.round(rng.normal(size=n) + 0.4 * labels, 1)  # rounded: many ties within queries
    return labels, scores, query


@pytest.mark.parametrize("ties", ["average", "pessimistic", "optimistic"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernels_on_numpy_equal_the_numpy_path(ties, seed):
    labels, scores, query = _data(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # queries of one class: reported, compared as nan below
        expected = rk.evaluate_scores(labels, scores, query, SPECS, ties=ties)
    ids, values, totals, n_rows = score_arrays(xp, xp.asarray(labels), xp.asarray(scores), xp.asarray(query),
                                               [parse_metric(s) for s in SPECS], ties=ties)
    np.testing.assert_array_equal(np.asarray(ids), expected.query)
    np.testing.assert_array_equal(np.asarray(n_rows), expected.n_rows)
    for spec in SPECS:
        np.testing.assert_allclose(np.asarray(values[spec]), expected[spec], rtol=1e-12, atol=1e-12, err_msg=spec)
        np.testing.assert_allclose(float(totals[spec]), expected.all[spec], rtol=1e-12, atol=1e-12, err_msg=spec)


def test_every_spec_here_is_computed_by_the_kernels():
    assert {parse_metric(s).name for s in SPECS} <= set(SUPPORTED)

