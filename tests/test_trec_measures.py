"""The measures trec_eval 10 added to rankkit: hand-computed cases, trec_eval's printed values,
properties and error messages. (Bit-for-bit order: test_same_numbers.py; random runs against
pytrec_eval: test_pytrec_eval_random.py; against a trec_eval binary: test_trec_eval_binary.py.)
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit as rk
from rankkit.evaluation.scoring import aggregate, geometric_mean, score
from rankkit.metrics import incomplete as judgments
from rankkit.metrics import set_based as sets
from rankkit.metrics.binary import (
    average_precision,
    interpolated_precision,
    interpolated_precision_average,
    num_nonrelevant_judged_retrieved,
    r_precision,
    relative_precision,
    yaap,
)
from rankkit.metrics.graded import binary_g, g_measure, ndcg_rel, rndcg


def rankings(labels, judged, pooled=None, extra=()):
    """One query: labels in rank order, which are judged, which are in the pool; ``extra``:
    judged labels nobody retrieved."""
    labels = np.array([labels], dtype=float)
    judged = np.array([judged], dtype=bool)
    ideal = sorted([*labels[judged], *extra], reverse=True)
    return rk.Rankings(labels=labels, judged=judged, lengths=np.array([labels.shape[1]]),
                       ideal=np.array([ideal or [0.0]]), n_judged=np.array([len(ideal)]),
                       query_ids=pd.Index(["q"]),
                       pooled=None if pooled is None else np.array([pooled], dtype=bool))


# --------------------------------------------------------------------------- binary and set


def m_yaap(labels, n_rel, rel=1):
    """trec_eval 10's m_yaap.c as a loop over the ranks (the oracle)."""
    found, total = 0, 0.0
    for i, label in enumerate(labels):
        if label >= rel:
            found += 1
            total += found / (i + 1)
    return math.log((1.0 + total) / (1.0 + n_rel - total))


def test_yaap_by_hand():
    # Relevant at ranks 1 and 3 of R = 3: S = 1 + 2/3; log((1 + 5/3) / (1 + 3 - 5/3)).
    r = rankings([2, 0, 1, 0], [True, True, True, False], extra=[1])
    assert yaap(r)[0] == pytest.approx(math.log((8 / 3) / (7 / 3)), abs=1e-15)
    assert yaap(r, rel=2)[0] == pytest.approx(math.log(2 / 1), abs=1e-15)  # one relevant, at rank 1
    assert yaap([0, 0, 0]) == 0.0  # no relevant document: log(1)
    assert yaap([0, 0], n_relevant=2) == pytest.approx(-math.log(3))  # none of R found: -log(1 + R)
    assert yaap([1, 1, 0]) == pytest.approx(math.log(3))  # all at the top: log(1 + R)


@settings(max_examples=sweep(200), deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), max_size=12), min_size=1, max_size=6), st.integers(0, 3),
       st.sampled_from([1, 2]))
def test_yaap_equals_the_loop_of_m_yaap_c(rows, unretrieved, rel):
    width = max(map(len, rows))
    labels = np.array([row + [0] * (width - len(row)) for row in rows], dtype=float)
    n_rel = (labels >= rel).sum(axis=1) + unretrieved
    got = yaap(labels, rel=rel, n_relevant=n_rel)
    assert got.tolist() == [pytest.approx(m_yaap(row, n, rel), abs=1e-12) for row, n in zip(labels, n_rel)]
    ap = average_precision(labels, rel=rel, n_relevant=n_rel)  # S = R * AP
    assert np.allclose(got, np.log((1 + n_rel * ap) / (1 + n_rel - n_rel * ap)), rtol=0, atol=1e-12)


def test_yaap_by_its_trec_eval_name():
    qrels = {"1": {"a": 1, "b": 0, "c": 2, "z": 1}, "2": {"a": 0, "q": 1}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}, "2": {"a": 1.0, "e": 0.5}}
    table = rk.evaluate(qrels, run, ["yaap", "YAAP"])
    assert table.columns.tolist() == ["yaap", "YAAP"] and table.yaap.equals(table.YAAP.rename("yaap"))
    assert table.yaap.tolist() == [pytest.approx(m_yaap([1, 0, 2, 0], 3)), pytest.approx(m_yaap([0, 0], 1))]
    assert "yaap" not in rk.names.NICKNAMES["all_trec"]  # trec_eval 10 leaves it out too


def test_relative_precision():
    assert relative_precision([1, 0, 1, 0], k=4) == 1.0  # R = 2, both in the top 4
    assert relative_precision([0, 1, 0, 0], k=1) == 0.0
    assert relative_precision([1, 0, 1, 0, 0, 1], k=2) == 0.5  # 1 of min(2, 3)
    assert relative_precision([1, 0, 0], k=None) == 1.0  # set_relative_P: 1 / min(3, 1)
    assert relative_precision([0, 0], k=3) == 0.0  # no relevant document


def test_r_precision_at_multiples_of_r():
    labels = [1, 0, 1, 0, 0]  # R = 2
    assert r_precision(labels, multiple=1.0) == r_precision(labels) == 0.5
    assert r_precision(labels, multiple=2.0) == 0.5  # c = floor(4 + 0.9) = 4: 2 / 4
    assert r_precision(labels, multiple=0.2) == 1.0  # c = floor(0.4 + 0.9) = 1
    assert r_precision(labels, multiple=0.0) == 0.0  # c = floor(0.9) = 0
    assert r_precision(labels, multiple=5.0) == 0.2  # c = 10 > 5 retrieved: 2 / 10
    with pytest.raises(ValueError, match="multiple must be a non-negative number, got -1"):
        r_precision(labels, multiple=-1)


def test_num_nonrelevant_judged_retrieved_skips_unjudged():
    r = rankings([2, 0, 0, 1], [True, True, False, True])
    assert num_nonrelevant_judged_retrieved(r).tolist() == [1.0]
    assert num_nonrelevant_judged_retrieved(r, rel=2).tolist() == [2.0]  # label 1 < 2


def test_interpolated_precision_average_sorted_and_trec_eval_walk():
    labels = [1, 0, 0, 0, 1, 0, 0, 1]  # R = 3; interpolated: 1 at rank 1, 0.4 at 5, 0.375 at 8
    levels = [0.1, 0.5]
    each = interpolated_precision(labels, recall_levels=levels)
    assert each.tolist() == [1.0, 0.4]
    assert interpolated_precision_average(labels, recall_levels=levels) == pytest.approx(0.7)  # trec_eval: 0.7000
    # unsorted levels: trec_eval 10's walk gives both the first relevant document's value
    # trec_eval: 1.0000
    assert interpolated_precision_average(labels, recall_levels=[0.5, 0.1], rounding="nearest") == 1.0
    standard = interpolated_precision(labels)
    assert interpolated_precision_average(labels) == pytest.approx(standard.mean(), abs=1e-15)
    assert interpolated_precision_average([0, 0, 0], recall_levels=[0.5]) == 0.0


def test_set_measures():
    assert sets.set_average_precision([1, 0, 1, 0]) == 0.5  # (2 / 4) * (2 / 2)
    assert sets.set_average_precision([0, 0]) == 0.0
    assert sets.set_f([1, 0, 1, 0, 0, 0]) == pytest.approx(0.5)  # P = 1/3, R = 1
    assert sets.set_f([1, 0, 1, 0, 0, 0], beta=0.0) == pytest.approx(1 / 3)  # precision
    assert sets.set_f([0, 0, 1]) == pytest.approx(0.5)
    assert sets.set_f([0, 0]) == 0.0
    with pytest.raises(ValueError, match="beta must be a non-negative number, got -1.0"):
        sets.set_f([1], beta=-1)


def test_utility_coefficients_and_collection_size():
    labels = [1, 0, 1, 0, 0]  # r = 2, n = 5, R = 2
    assert sets.utility(labels) == -1.0  # 2 - 3
    assert sets.utility(labels, a=3, b=-2, c=-1, d=0) == 0.0
    missed_one = rankings([1, 0], [True, True], extra=[1])  # r = 1, n = 2, R = 2
    assert sets.utility(missed_one, c=-1.0)[0] == 1.0 - 1.0 - 1.0  # r - (n - r) - (R - r)
    assert sets.utility(labels, a=0, b=0, c=0, d=1, n_docs=100) == 95.0  # 100 + 2 - 5 - 2
    with pytest.raises(ValueError, match="n_docs must be a non-negative integer, got -1"):
        sets.utility(labels, n_docs=-1)
    with pytest.raises(ValueError, match="a must be a finite number"):
        sets.utility(labels, a=float("nan"))


# --------------------------------------------------------------------------- pools


def test_unjudged_keeps_k_as_denominator():
    r = rankings([0, 0, 0], [True, False, False])
    assert judgments.unjudged(r, k=5).tolist() == [0.4]  # 2 of 5 (trec_eval unj_5)
    assert judgments.unjudged(r, k=1).tolist() == [0.0]
    assert judgments.unjudged(r).tolist() == [pytest.approx(2 / 3)]
    assert judgments.unjudged([[1, 0]], k=2).tolist() == [0.0]  # a bare list is judged


def test_relstring_and_infap_on_a_sampled_pool():
    # d0 2, d1 pooled but not judged (qrels -1), d2 1, d3 0, d4 12; trec_eval 10 prints
    # relstring '2.10>' and infAP 0.9111 for this query (one run of the binary)
    r = rankings([2, 0, 1, 0, 12], [True, False, True, True, True], pooled=[True] * 5)
    assert judgments.relevance_string(r).tolist() == ["2.10>"]
    assert judgments.inferred_average_precision(r)[0] == pytest.approx(0.9111, abs=5e-5)
    outside = rankings([2, 0, 1], [True, False, True])  # d1 not in the qrels at all
    assert judgments.relevance_string(outside, k=2).tolist() == ["2-"]
    assert judgments.relevance_string([3, 1]) == "31"


def test_infap_equals_ap_when_everything_is_judged():
    for labels in ([1, 0, 1, 0], [0, 0, 1, 1, 1], [1, 1, 0]):
        assert judgments.inferred_average_precision(labels) == pytest.approx(
            rk.average_precision(labels), abs=1e-4)


# --------------------------------------------------------------------------- gains


def test_g_measures_ndcg_rel_and_rndcg_print_what_trec_eval_prints():
    labels = [1, 2, 0, 1]  # every document judged; trec_eval 10 -q prints:
    assert binary_g(labels) == pytest.approx(0.8770, abs=5e-5)  # binG
    assert g_measure(labels) == pytest.approx(0.8155, abs=5e-5)  # G
    assert ndcg_rel(labels) == pytest.approx(0.7399, abs=5e-5)  # ndcg_rel
    assert rndcg(labels) == pytest.approx(0.6112, abs=5e-5)  # Rndcg


def test_g_measure_is_one_for_an_ideal_ranking():
    assert g_measure([3, 2, 2, 1, 0]) == 1.0
    assert binary_g([1, 1, 0]) == 1.0  # every relevant document before any other
    assert ndcg_rel([2, 1, 0]) == 1.0


def test_rndcg_zero_without_relevant_and_nan_with_no_positive_gain():
    assert rndcg([0, 0, 0]) == 0.0  # R = 0
    # R = 2 but no positive gain: the only term is DCG_n / IDCG_0 = 0 / 0 (trec_eval: -nan)
    assert math.isnan(rndcg([1, 1, 0], gain={1: 0.0}))


def test_kishida_measures_refuse_tie_averaging():
    r = rk.rank({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0}}, ties="average")
    for function in (binary_g, g_measure, ndcg_rel, rndcg):
        with pytest.raises(ValueError, match="does not support ties='average'"):
            function(r)


# --------------------------------------------------------------------------- aggregates


def test_geometric_means_floor_and_value():
    assert geometric_mean(np.array([1.0, 0.25])) == pytest.approx(0.5)
    assert geometric_mean(np.array([0.0, 1.0])) == pytest.approx(math.sqrt(1e-5))  # trec_eval's floor
    assert geometric_mean(np.array([])) == 0.0
    table = score([[1, 0], [0, 1]], ["gm_map", "map", "gm_bpref", "num_q"])
    assert table["gm_map"].tolist() == table["map"].tolist()  # per query: AP
    means = aggregate(table)
    assert means["gm_map"] == pytest.approx(math.sqrt(1.0 * 0.5))
    assert means["num_q"] == 2.0


def test_last_bits_as_trec_eval():
    # trec_eval divides each gain by log2(rank + 1), and takes glibc's (correctly rounded)
    # log for yaap; a product with a rounded 1 / log2, or numpy's SIMD log, is one ulp off.
    assert rk.ndcg([0, 3]) == 0.6309297535714574  # (3 / log2(3)) / 3; times 1/log2(3): ...575
    assert yaap([0, 1, 1, 1, 1, 0, 1], n_relevant=7) == -0.030690239365449047


# --------------------------------------------------------------------------- -c and a judged 'ceci_nest_pas_un_docno'

# trec_eval -c ranks a judged query missing from the run as the one document
# 'ceci_nest_pas_un_docno' (score 1.0). q2-q4 judge a document of that name (labels 1,
# -1, 0), q5 does not; q1 is in the run.
CECI_QRELS = ("q1 0 d1 1\nq1 0 d2 0\nq2 0 ceci_nest_pas_un_docno 1\nq2 0 d5 1\nq3 0 ceci_nest_pas_un_docno -1\n"
              "q3 0 d6 1\nq4 0 ceci_nest_pas_un_docno 0\nq4 0 d7 2\nq5 0 d8 1\n")
CECI_RUN = "q1 Q0 d1 1 2.0 tagA\nq1 Q0 d3 2 1.0 tagA\n"
CECI_MEASURES = ["-m", "num_ret", "-m", "num_rel_ret", "-m", "map", "-m", "P.1", "-m", "relstring.2",
                 "-m", "num_nonrel_judged_ret"]


def _trec_eval_lines(rows: dict) -> str:
    """trec_eval's lines of the measures above: {query: (num_ret, num_rel_ret, map, P_1,
    relstring_2 or None, num_nonrel_judged_ret)}."""
    names = ["num_ret", "num_rel_ret", "map", "P_1", "relstring_2", "num_nonrel_judged_ret"]
    lines = []
    for query, values in rows.items():
        for name, value in zip(names, values):
            if value is not None:
                text = value if isinstance(value, (int, str)) else f"{value:6.4f}"
                lines.append(f"{name:<22}\t{query}\t{text}\n")
    return "".join(lines)


# Printed by trec_eval 10.0 (`trec_eval -c -q [-J] -m ... qrels run`).
CECI_EXPECTED = {
    "": _trec_eval_lines({
        "q1": (2, 1, 1.0, 1.0, "'1-'", 0), "q2": (0, 1, 0.5, 1.0, "'1'", 0), "q3": (0, 0, 0.0, 0.0, "'.'", 0),
        "q4": (0, 0, 0.0, 0.0, "'0'", 1), "q5": (0, 0, 0.0, 0.0, "'-'", 0), "all": (2, 2, 0.3, 0.4, None, 1)}),
    "-J": _trec_eval_lines({
        "q1": (1, 1, 1.0, 1.0, "'1'", 0), "q2": (0, 1, 0.5, 1.0, "'1'", 0), "q3": (0, 0, 0.0, 0.0, "''", 0),
        "q4": (0, 0, 0.0, 0.0, "'0'", 1), "q5": (0, 0, 0.0, 0.0, "''", 0), "all": (1, 2, 0.3, 0.4, None, 1)}),
}


@pytest.mark.parametrize("flag", ["", "-J"])
def test_a_judged_ceci_nest_pas_un_docno_counts_under_c_as_in_trec_eval(tmp_path, flag):
    import io

    from rankkit.cli import main

    (tmp_path / "qrels").write_text(CECI_QRELS)
    (tmp_path / "run").write_text(CECI_RUN)
    argv = ["evaluate", "-c", "-q", *([flag] if flag else []), *CECI_MEASURES, str(tmp_path / "qrels"),
            str(tmp_path / "run")]
    out = io.StringIO()
    assert main(argv, out=out) == 0
    assert out.getvalue() == CECI_EXPECTED[flag]
    # the same from Python frames (the join in memory, not in blocks)
    from rankkit.trec_eval import evaluate_like_trec_eval, trec_lines, trec_measures

    columns = trec_measures([m for m in CECI_MEASURES if m != "-m"])
    table, summary = evaluate_like_trec_eval(rk.read_qrels(tmp_path / "qrels"), rk.read_run(tmp_path / "run"),
                                             columns, queries="qrels", judged_only=flag == "-J")
    assert "".join(line + "\n" for line in trec_lines(table, summary, per_query=True)) == CECI_EXPECTED[flag]


def test_evaluate_queries_qrels_keeps_an_empty_ranking_for_a_missing_query():
    # rankkit.evaluate's own -c scores nothing retrieved: the drop-in alone copies trec_eval
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"ceci_nest_pas_un_docno": 1, "d5": 1}}
    table = rk.evaluate(qrels, {"q1": {"d1": 2.0, "d3": 1.0}}, ["AP", "num_rel_ret"], queries="qrels")
    assert table.loc["q2"].tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------- what the command line says

def test_command_line_mistakes_are_one_line_each(tmp_path, capsys):
    import io

    from rankkit.cli import main

    (tmp_path / "qrels").write_text("q1 0 DOC-02207 1\nq1 0 DOC-1 0\n")
    (tmp_path / "run").write_text("q1 Q0 doc-02207 1 2 t\nq1 Q0 doc-1 2 1 t\n")
    cases = [
        (["run", "qrels"], 2, "rankkit evaluate: error: {}/run line 1: expected 4 columns, got 6; this looks like a "
                              "run line (qid Q0 docno rank score tag): was the run given as QRELS? Swap the arguments: "
                              "the judgments (QRELS) first, then the run (RUN)"),
        (["qrels", "nope"], 2, "rankkit evaluate: error: {}/nope: no such file"),
        (["qrels", "."], 2, "rankkit evaluate: error: {}: is a directory"),
        (["qrels", "run"], 0, "rankkit evaluate: warning: no retrieved document of any query is judged: run ids look "
                              "like 'doc-02207', judged ids like 'DOC-02207' (ids must match exactly, case included)"),
    ]
    for files, status, line in cases:
        out = io.StringIO()
        assert main(["evaluate", "-m", "map", *[str(tmp_path / f) for f in files]], out=out) == status
        assert capsys.readouterr().err == line.format(tmp_path) + "\n"
    assert out.getvalue() == "map                   \tall\t0.0000\n"


def test_zscores_file_missing_is_file_not_found(tmp_path):
    from rankkit.trec_eval import read_zscores

    with pytest.raises(FileNotFoundError, match=r"z\.txt: no such file$"):
        read_zscores(tmp_path / "z.txt")
