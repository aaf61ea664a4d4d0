"""The names DESIGN.md promises at the top level, and what a newcomer reaches for first."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import rankkit as rk


def test_aggregate_is_public_and_is_trec_evals_all_line():
    assert rk.aggregate is sys.modules["rankkit.evaluate"].aggregate
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 1}}
    run = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"y": 2.0, "c": 1.0}, "q3": {"z": 1.0}}
    table = rk.evaluate(qrels, run, ["map", "gm_map", "num_q", "num_rel_ret"])
    line = rk.aggregate(table)
    ap = [0.5, 0.5, 0.0]                                   # q1: a at rank 1 of R = 2; q2: c at 2; q3: none
    assert line["map"] == pytest.approx(np.mean(ap))
    # gm_map: geometric mean with trec_eval's floor 1e-5 for a query whose AP is 0
    assert line["gm_map"] == pytest.approx(np.exp(np.mean(np.log([0.5, 0.5, 1e-5]))))
    assert line["num_q"] == 3 and line["num_rel_ret"] == 2   # counts add up
    assert table["num_q"].mean() == 1.0 and table["gm_map"].mean() != pytest.approx(line["gm_map"])
