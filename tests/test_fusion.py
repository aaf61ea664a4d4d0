"""rankkit.fuse and optimize_fusion: ranx's stated values, ranx itself on random runs, the command.

The stated values are those asserted by ranx's own tests, AmenRa/ranx at commit
2cae52f00c2c15136a07d573027744109792604d, tests/unit/ranx/fusion/<method>_test.py (the file
is named beside each case); they call the fusion functions directly, which is
``fuse(..., norm=None)``. Each value is written as the formula those tests write it (RBC's as
the rounded numbers they state), and compared with ``==`` where they use ``==``.

ranx itself (a test-only oracle, not a dependency: installing it and numba's first
compilation take longer than this file's other tests) is compared on random runs when it is
installed; those tests are skipped, with the reason, when it is not.
"""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweeps import sweep

import rankkit as rk
from rankkit.cli import main
from rankkit.fusion import CONDORCET, METHODS, RANK_METHODS, SUPERVISED, WEIGHTED, fuse, optimize_fusion, trec_lines

# ranx's fixtures run_1, run_2, run_3 (rrf_test.py and the comb_*, isr, wsum, ... tests)
RUN_1 = {"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}}
RUN_2 = {"q1": {"d1": 3, "d2": 2}, "q2": {"d1": 1, "d3": 3}}
RUN_3 = {"q1": {"d3": 1}, "q2": {"d2": 2, "d3": 3}}
RUNS = [RUN_1, RUN_2, RUN_3]
W = [0.3, 0.2, 0.5]


def isr(*ranks):  # 1-based ranks, as ranx's tests write them
    return sum(1 / r ** 2 for r in ranks)


def rrf(*ranks):
    return sum(1 / (60 + r) for r in ranks)


# (ranx test file, method, keyword arguments, expected {q: {d: value}})
STATED = [
    ("rrf_test.py", "rrf", {}, {"q1": {"d1": rrf(3, 1), "d2": rrf(2, 2), "d3": rrf(1, 1)},
                                "q2": {"d1": rrf(2, 2), "d2": rrf(1, 2), "d3": rrf(1, 1)}}),
    ("bordafuse_test.py", "bordafuse", {}, {"q1": {"d1": 1 + 3 + 1.5, "d2": 2 + 2 + 1.5, "d3": 3 + 1 + 3},
                                            "q2": {"d1": 2 + 2 + 1, "d2": 3 + 1 + 2, "d3": 1 + 3 + 3}}),
    ("weighted_bordafuse_test.py", "w_bordafuse", {"weights": [3, 2, 1]},
     {"q1": {"d1": 3 * 1 + 2 * 3 + 1.5, "d2": 3 * 2 + 2 * 2 + 1.5, "d3": 3 * 3 + 2 * 1 + 3},
      "q2": {"d1": 3 * 2 + 2 * 2 + 1, "d2": 3 * 3 + 2 * 1 + 2, "d3": 3 * 1 + 2 * 3 + 3}}),
    ("isr_test.py", "isr", {}, {"q1": {"d1": isr(3, 1) * 2, "d2": isr(2, 2) * 2, "d3": isr(1, 1) * 2},
                                "q2": {"d1": isr(2, 2) * 2, "d2": isr(1, 2) * 2, "d3": isr(1, 1) * 2}}),
    ("log_isr_test.py", "log_isr", {}, {q: {d: v / 2 * np.log(2) for d, v in r.items()} for q, r in
                                        {"q1": {"d1": isr(3, 1) * 2, "d2": isr(2, 2) * 2, "d3": isr(1, 1) * 2},
                                         "q2": {"d1": isr(2, 2) * 2, "d2": isr(1, 2) * 2,
                                                "d3": isr(1, 1) * 2}}.items()}),
    ("logn_isr_test.py", "logn_isr", {"sigma": 0.1},
     {"q1": {"d1": isr(3, 1) * np.log(2.1), "d2": isr(2, 2) * np.log(2 + 0.1), "d3": isr(1, 1) * np.log(2 + 0.1)},
      "q2": {"d1": isr(2, 2) * np.log(2 + 0.1), "d2": isr(1, 2) * np.log(2 + 0.1),
             "d3": isr(1, 1) * np.log(2 + 0.1)}}),
    ("comb_sum_test.py", "sum", {}, {"q1": {"d1": 1 + 3, "d2": 2 + 2, "d3": 3 + 1},
                                     "q2": {"d1": 1 + 1, "d2": 2 + 2, "d3": 3 + 3}}),
    ("comb_mnz_test.py", "mnz", {}, {"q1": {"d1": 8, "d2": 8, "d3": 8}, "q2": {"d1": 4, "d2": 8, "d3": 12}}),
    ("comb_anz_test.py", "anz", {}, {"q1": {"d1": 2, "d2": 2, "d3": 2}, "q2": {"d1": 1, "d2": 2, "d3": 3}}),
    ("comb_med_test.py", "med", {}, {"q1": {"d1": 2, "d2": 2, "d3": 2}, "q2": {"d1": 1, "d2": 2, "d3": 3}}),
    ("comb_max_test.py", "max", {}, {"q1": {"d1": 3, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2, "d3": 3}}),
    ("comb_min_test.py", "min", {}, {"q1": {"d1": 1, "d2": 2, "d3": 1}, "q2": {"d1": 1, "d2": 2, "d3": 3}}),
    ("wsum_test.py", "wsum", {"weights": W},
     {"q1": {"d1": W[0] * 1 + W[1] * 3, "d2": W[0] * 2 + W[1] * 2, "d3": W[0] * 3 + W[2] * 1},
      "q2": {"d1": W[0] * 1 + W[1] * 1, "d2": W[0] * 2 + W[2] * 2, "d3": W[1] * 3 + W[2] * 3}}),
    ("wmnz_test.py", "wmnz", {"weights": W},
     {"q1": {"d1": (1 + 3) * (W[0] + W[1]), "d2": (2 + 2) * (W[0] + W[1]), "d3": (3 + 1) * (W[0] + W[2])},
      "q2": {"d1": (1 + 1) * (W[0] + W[1]), "d2": (2 + 2) * (W[0] + W[2]), "d3": (3 + 3) * (W[1] + W[2])}}),
    ("mixed_test.py", "mixed", {"weights": W},
     {"q1": {"d1": (W[0] * 1 + W[1] * 3) * np.sqrt(2), "d2": (W[0] * 2 + W[1] * 2) * np.sqrt(2),
             "d3": (W[0] * 3 + W[2] * 1) * np.sqrt(2)},
      "q2": {"d1": (W[0] * 1 + W[1] * 1) * np.sqrt(2), "d2": (W[0] * 2 + W[2] * 2) * np.sqrt(2),
             "d3": (W[1] * 3 + W[2] * 3) * np.sqrt(2)}}),
]


@pytest.mark.parametrize(("source", "method", "params", "expected"), STATED, ids=[s[0] for s in STATED])
def test_ranx_stated_values_exactly(source, method, params, expected):
    fused = fuse(RUNS, method, norm=None, **params)
    assert fused == expected  # == on floats: the same operations in the same order as ranx
    for q in fused:  # fused order: score descending, then document id descending
        items = list(fused[q].items())
        assert items == sorted(items, key=lambda x: (-x[1], [-ord(c) for c in x[0]]))


def test_ranx_gmnz_is_mnz_at_gamma_1_and_sum_at_gamma_0():  # comb_gmnz_test.py
    assert fuse(RUNS, "gmnz", norm=None, gamma=1.0) == fuse(RUNS, "mnz", norm=None)
    assert fuse(RUNS, "gmnz", norm=None, gamma=0.0) == fuse(RUNS, "sum", norm=None)


RBC_RUNS = [{"q1": {"A": 7, "D": 6, "B": 5, "C": 4, "G": 3, "F": 2}}, {"q1": {"B": 7, "D": 6, "E": 5, "C": 4}},
            {"q1": {"A": 7, "B": 6, "D": 5, "C": 4, "G": 3, "F": 2, "E": 1}},
            {"q1": {"G": 7, "D": 6, "E": 5, "A": 4, "F": 3, "C": 2}}]


@pytest.mark.parametrize(("phi", "expected"), [  # rbc_test.py: values rounded to 2 digits, in fused order
    (0.6, {"A": 0.89, "D": 0.86, "B": 0.78, "G": 0.50, "E": 0.31, "C": 0.29, "F": 0.11}),
    (0.8, {"D": 0.61, "A": 0.50, "B": 0.49, "C": 0.37, "G": 0.36, "E": 0.31, "F": 0.21}),
    (0.9, {"D": 0.35, "C": 0.28, "A": 0.27, "B": 0.27, "G": 0.23, "E": 0.22, "F": 0.18}),
])
def test_ranx_stated_rbc(phi, expected):
    fused = fuse(RBC_RUNS, "rbc", norm=None, phi=phi)["q1"]
    assert {d: round(v, 2) for d, v in fused.items()} == expected
    assert list(fused)[:2] == list(expected)[:2]


def test_every_method_has_a_docstring_source():
    doc = fuse.__doc__
    for method in METHODS:
        assert f"``{method}``" in doc
    for source in ("Cormack", "Fox & Shaw", "Lee", "Wu & F. Crestani", "Mourão", "Bailey", "Aslam & Montague",
                   "Montague & Aslam", "Copeland", "Lillis, Toolan", "Shokouhi", "Lillis, Zhang", "SIGIR 2006",
                   "ECIR 2007", "ECIR 2008", "SIGIR 2010", "CIKM 2002"):
        assert source in doc


# --------------------------------------------------------------------------- forms and errors


def test_a_frame_in_gives_a_frame_and_a_path_too(tmp_path):
    frames = [rk.read_run(r) for r in RUNS]
    fused = fuse(frames, "rrf", name="hybrid")
    assert list(fused.columns) == ["query_id", "doc_id", "score"]
    assert isinstance(fused.query_id.dtype, pd.CategoricalDtype) and fused.score.dtype == np.float64
    assert fused.attrs["name"] == "hybrid"
    as_dict = fuse(RUNS, "rrf")
    assert {(q, d): s for q, d, s in fused.itertuples(index=False)} == \
        {(q, d): s for q in as_dict for d, s in as_dict[q].items()}
    path = tmp_path / "r1.txt"
    path.write_text("".join(trec_lines(frames[0], "r1")))
    from_file = fuse({"lexical": str(path), "dense": RUN_2, "other": RUN_3}, "rrf")
    assert isinstance(from_file, pd.DataFrame) and from_file.score.tolist() == fused.score.tolist()


def test_weights_by_name_and_default_one():
    named = fuse({"a": RUN_1, "b": RUN_2, "c": RUN_3}, "wsum", norm=None, weights={"a": 0.3, "b": 0.2, "c": 0.5})
    assert named == fuse(RUNS, "wsum", norm=None, weights=W)
    assert fuse(RUNS, "wsum", norm=None) == fuse(RUNS, "sum", norm=None)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"method": "combsum"}, "method must be one of"),
    ({"norm": "l2"}, "norm must be one of"),
    ({"method": "rrf", "weights": [1, 1, 1]}, "takes no weights"),
    ({"method": "wsum", "weights": [1, 1]}, "one number per run"),
    ({"method": "rbc"}, "needs phi"),
    ({"method": "rbc", "phi": 1.5}, "phi must be in"),
    ({"method": "gmnz"}, "needs gamma"),
    ({"method": "rrf", "norm": "borda"}, "norm='borda'"),
])
def test_errors_name_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fuse(RUNS, **kwargs)


def test_runs_must_share_their_queries_and_be_two():
    with pytest.raises(ValueError, match="same queries"):
        fuse([RUN_1, {"q1": {"d1": 1.0}}])
    with pytest.raises(ValueError, match="two or more runs"):
        fuse([RUN_1])


def test_runs_keyed_apart_and_ids_sharing_a_hash_prefix_are_matched_on_the_ids():
    # ids of different lengths in different runs: the readers' keys differ, the ids decide
    fused = fuse([{"q": {"d1": 1.0, "a-very-long-document-identifier": 0.5}}, {"q": {"d1": 2.0}}], "sum", norm=None)
    assert fused == {"q": {"d1": 3.0, "a-very-long-document-identifier": 0.5}}
    long = {"q": {f"clueweb12-0000tw-00-{i:05d}": float(i) for i in range(50)}}
    other = {"q": {f"clueweb12-0000tw-00-{i:05d}": 1.0 for i in range(25, 75)}}
    fused = fuse([long, other], "mnz", norm=None)["q"]
    assert len(fused) == 75 and fused["clueweb12-0000tw-00-00030"] == (30.0 + 1.0) * 2


def test_ties_keep_input_order_and_output_breaks_them_by_docid_descending():
    # d2 and d1 tie in run a: d2 is listed first so it takes rank 0 (ranx's stable order)
    fused = fuse([{"q": {"d2": 1.0, "d1": 1.0}}, {"q": {"d3": 1.0}}], "rrf", norm=None)
    assert fused["q"] == {"d2": 1 / 61, "d3": 1 / 61, "d1": 1 / 62}
    assert list(fused["q"]) == ["d3", "d2", "d1"]


# --------------------------------------------------------------------------- ranx itself


#: Document ids of up to 8 bytes (the readers' keys are the ids themselves) and longer ones
#: (the keys are hashes, matches confirmed on the ids).
SHAPES = {"short": "d{}".format, "long": "clueweb12-{}tw-52-00007".format}


def random_runs(rng, n_runs=3, n_queries=25, pool=30, depth=12, ties=False, shape="short"):
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in range(n_queries):
            n = int(rng.integers(1, depth + 1))
            docs = rng.choice(pool, n, replace=False)
            scores = rng.integers(0, 4, n) if ties else rng.normal(2, 3, n)
            run[f"q{q}"] = {SHAPES[shape](d): float(s) for d, s in zip(docs, scores)}
        runs.append(run)
    return runs


CASES = [(m, n) for m in METHODS if m not in SUPERVISED + CONDORCET
         for n in (None, "min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
         if not (n == "borda" and m in RANK_METHODS)]


@pytest.mark.parametrize(("seed", "shape"), [(0, "short"), (1, "short"), (2, "long")])
def test_equal_to_ranx_on_random_runs(seed, shape):
    """Every method and norm, ties included (up to 12 documents a query, where ranx's sort is
    stable): the same documents and bit-identical scores."""
    ranx = pytest.importorskip("ranx", reason="ranx (the test oracle) is not installed")
    rng = np.random.default_rng(seed)
    runs = random_runs(rng, ties=bool(seed), shape=shape)
    oracle = [ranx.Run(r) for r in runs]
    for method, norm in CASES:
        params = {"weights": [0.3, 1.7, 0.9]} if method in WEIGHTED else {}
        params |= {"rbc": {"phi": 0.8}, "gmnz": {"gamma": 1.3}}.get(method, {})
        ours = fuse(runs, method, norm, **params)
        theirs = ranx.fuse(oracle, norm=norm, method=method, params=params).to_dict()
        assert ours == {q: dict(theirs[q]) for q in theirs}, (method, norm)


# --------------------------------------------------------------------------- optimize_fusion


def test_optimize_fusion_picks_on_training_queries_and_reports_held_out():
    qrels = {"q1": {"b": 1}, "q2": {"x": 1}, "q3": {"c": 1}, "q4": {"a": 1}}
    lexical = {"q1": {"a": 3.0, "b": 2.0}, "q2": {"x": 5.0, "y": 1.0}, "q3": {"c": 2.0, "d": 1.0},
               "q4": {"a": 2.0, "e": 1.0}}
    dense = {"q1": {"b": 0.9, "a": 0.1}, "q2": {"y": 0.8, "x": 0.2}, "q3": {"d": 0.7, "c": 0.6},
             "q4": {"e": 0.9, "a": 0.8}}
    best = optimize_fusion(qrels, [lexical, dense], "wsum", metric="RR", train_queries=["q1", "q2"])
    trials = best.trials
    rr = {tuple(w): row for w, row in zip(trials["weights"], trials.to_dict("records"))}
    assert len(rr) == 11 and best.train_queries == ["q1", "q2"] and best.test_queries == ["q3", "q4"]
    # q1 wants the dense run (b), q2 the lexical one (x): every mix scores 0.75 on training
    assert (trials["train"] == 0.75).all() and best.params == {"weights": [1.0, 0.0]}  # ties: ranx keeps the last
    assert best.test_score == rr[(1.0, 0.0)]["test"] == 1.0
    table = rk.evaluate(qrels, fuse([lexical, dense], "wsum", weights=[0.5, 0.5]), ["RR"])
    assert rr[(0.5, 0.5)]["test"] == table.loc[["q3", "q4"], "RR"].mean()
    seeded = optimize_fusion(qrels, [lexical, dense], "rrf", metric="RR", seed=3, test_size=0.5)
    assert len(seeded.train_queries) == len(seeded.test_queries) == 2
    assert seeded.params["k"] in range(10, 101, 10)
    again = optimize_fusion(qrels, [lexical, dense], "rrf", metric="RR", seed=3, test_size=0.5)
    assert again.test_queries == seeded.test_queries


def test_optimize_fusion_grid_of_three_runs_keeps_every_vector():
    qrels = {"q": {"a": 1}}
    runs = [{"q": {"a": 1.0}}, {"q": {"a": 2.0}}, {"q": {"b": 1.0}}]
    best = optimize_fusion(qrels, runs, "wsum", metric="P@1", test_size=0)
    assert len(best.trials) == math.comb(10 + 2, 2) and math.isnan(best.test_score)
    with pytest.raises(ValueError, match="nothing to tune"):
        optimize_fusion(qrels, runs, "sum")


# --------------------------------------------------------------------------- the command


def test_command_writes_a_trec_run(tmp_path):
    paths = []
    for i, run in enumerate(RUNS):
        path = tmp_path / f"run{i}.txt"
        path.write_text("".join(trec_lines(rk.read_run(run), f"r{i}")))
        paths.append(str(path))
    out = io.StringIO()
    assert main(["fuse", *paths, "-m", "rrf", "--tag", "hybrid"], out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == f"q1 Q0 d3 1 {rrf(1, 1)!r} hybrid"
    back = rk.read_run(io.BytesIO(out.getvalue().encode()))
    assert {(q, d): s for q, d, s in back.itertuples(index=False)} == \
        {(q, d): s for q, r in fuse(RUNS, "rrf").items() for d, s in r.items()}
    target = tmp_path / "fused.txt"
    assert main(["fuse", *paths, "-m", "wsum", "--norm", "none", "--weights", "0.3", "0.2", "0.5",
                 "-o", str(target)], out=io.StringIO()) == 0
    written = rk.read_run(str(target))
    assert written.attrs["name"] == "wsum" and written.score.max() == W[1] * 3 + W[2] * 3


def test_command_refuses_bad_input(tmp_path, capsys):
    (tmp_path / "a").write_text("q1 Q0 d1 1 1.0 a\n")
    assert main(["fuse", str(tmp_path / "a"), str(tmp_path / "a"), "-m", "nope"], out=io.StringIO()) == 2
    assert "method must be one of" in capsys.readouterr().err
    assert main(["fuse", str(tmp_path / "a")], out=io.StringIO()) == 2


def test_the_book_page_examples_print_what_it_shows():
    import doctest
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "fusion.md").read_text(encoding="utf-8")
    blocks = "\n".join(b.split("```", 1)[0] for b in text.split("```python\n")[1:])
    test = doctest.DocTestParser().get_doctest(blocks, {}, "fusion.md", "docs/fusion.md", 0)
    assert len(test.examples) >= 8
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
    assert result.failed == 0


def test_optimize_fusion_refuses_unknown_fixed_parameters():
    with pytest.raises(ValueError, match="fixed parameters"):
        optimize_fusion({"q": {"a": 1}}, RUNS[:2], "wsum", sigmaa=0.1)


def test_command_help_lists_every_method_and_norm(capsys):
    from rankkit.fusion import NORMS

    assert main(["fuse", "-h"], out=io.StringIO()) == 0
    text = " ".join(capsys.readouterr().out.split())
    for name in METHODS:
        assert f" {name}" in text, name
    for name in NORMS:
        assert name.replace("_", "-") in text, name  # ranx's two spellings, the dashed one shown


# --------------------------------------------------------------------------- learned methods and Condorcet
#
# ranx's stated values for its supervised and Condorcet methods: AmenRa/ranx at the commit
# above, tests/unit/ranx/fusion/<file> (named beside each case). Those tests train on qrels
# QRELS_1 and the runs RUN_1, RUN_2, RUN_3 themselves, then fuse them without a norm; the
# learned tables they state are written here as numbers, the fused values as their formulas.

QRELS_1 = {"q1": {"d1": 1}, "q2": {"d1": 1}}


def stated_probfuse():  # probfuse_test.py: probfuse_train(..., 2) == [0, 1], [0.5, 0.5], [0, 0]
    p = [[0.0, 1.0], [0.5, 0.5], [0.0, 0.0]]
    return {"q1": {"d1": p[0][1] / 2 + p[1][0], "d2": p[0][0] + p[1][1] / 2, "d3": p[0][0] + p[2][0]},
            "q2": {"d1": p[0][1] / 2 + p[1][1] / 2, "d2": p[0][0] + p[2][1] / 2, "d3": p[1][0] + p[2][0]}}


def stated_segfuse():  # segfuse_test.py: segfuse_train == [0.2, 0, ...], [0.2, 0, ...], [0, ...]
    p = [0.2, 0.2, 0.0]
    r1, r2, r3 = RUNS
    return {"q1": {"d1": p[0] * (1 + r1["q1"]["d1"]) + p[1] * (1 + r2["q1"]["d1"]),
                   "d2": p[0] * (1 + r1["q1"]["d2"]) + p[1] * (1 + r2["q1"]["d2"]),
                   "d3": p[0] * (1 + r1["q1"]["d3"]) + p[2] * (1 + r3["q1"]["d3"])},
            "q2": {"d1": p[0] * (1 + r1["q2"]["d1"]) + p[1] * (1 + r2["q2"]["d1"]),
                   "d2": p[0] * (1 + r1["q2"]["d2"]) + p[2] * (1 + r3["q2"]["d2"]),
                   "d3": p[1] * (1 + r2["q2"]["d3"]) + p[2] * (1 + r3["q2"]["d3"])}}


POS_PROBS = [np.array([0, 1 / 2, 1 / 1]), np.array([1 / 2, 1 / 2]), np.array([0.0, 0.0])]  # posfuse/slidefuse_test.py


def stated_posfuse():
    p = POS_PROBS
    return {"q1": {"d1": p[0][2] + p[1][0], "d2": p[0][1] + p[1][1], "d3": p[0][0] + p[2][0]},
            "q2": {"d1": p[0][1] + p[1][1], "d2": p[0][0] + p[2][1], "d3": p[1][0] + p[2][0]}}


def stated_slidefuse(w):
    p = POS_PROBS
    if w == 1:
        return {"q1": {"d1": sum(p[0][1:3]) / 2 + sum(p[1]) / 2, "d2": sum(p[0]) / 3 + sum(p[1]) / 2,
                       "d3": sum(p[0][:2]) / 2 + sum(p[2]) / 2},
                "q2": {"d1": sum(p[0][0:2]) / 2 + sum(p[1]) / 2, "d2": sum(p[0][0:2]) / 2 + sum(p[2]) / 2,
                       "d3": sum(p[1]) / 2 + sum(p[2]) / 2}}
    return {"q1": {"d1": sum(p[0]) / 3 + sum(p[1]) / 2, "d2": sum(p[0]) / 3 + sum(p[1]) / 2,
                   "d3": sum(p[0]) / 3 + sum(p[2]) / 2},
            "q2": {"d1": sum(p[0][0:2]) / 2 + sum(p[1]) / 2, "d2": sum(p[0][0:2]) / 2 + sum(p[2]) / 2,
                   "d3": sum(p[1]) / 2 + sum(p[2]) / 2}}


def stated_mapfuse():  # mapfuse_test.py; each run's MAP over q1, q2 by hand (AP of d1 at its rank)
    m = [np.mean([1 / 3, 1 / 2]), np.mean([1.0, 1 / 2]), np.mean([0.0, 0.0])]
    return {"q1": {"d1": m[0] / 3 + m[1] / 1, "d2": m[0] / 2 + m[1] / 2, "d3": m[0] / 1 + m[2] / 1},
            "q2": {"d1": m[0] / 2 + m[1] / 2, "d2": m[0] / 1 + m[2] / 2, "d3": m[1] / 1 + m[2] / 1}}


LEARNED_STATED = [
    ("probfuse_test.py", "probfuse", {"n_segments": 2}, stated_probfuse()),
    ("segfuse_test.py", "segfuse", {}, stated_segfuse()),
    ("posfuse_test.py", "posfuse", {}, stated_posfuse()),
    ("slidefuse_test.py w=1", "slidefuse", {"window": 1}, stated_slidefuse(1)),
    ("slidefuse_test.py w=2", "slidefuse", {"window": 2}, stated_slidefuse(2)),
    ("mapfuse_test.py", "mapfuse", {}, stated_mapfuse()),
]


@pytest.mark.parametrize(("source", "method", "params", "expected"), LEARNED_STATED, ids=[s[0] for s in LEARNED_STATED])
def test_ranx_stated_values_of_learned_methods_exactly(source, method, params, expected):
    fused = fuse(RUNS, method, norm=None, qrels=QRELS_1, **params)
    assert fused == expected  # == as ranx's tests
    assert fuse(RUNS, method, norm=None, qrels=QRELS_1, train_runs=RUNS, **params) == expected


def test_ranx_stated_bayesfuse():  # bayesfuse_test.py
    rel = {"q1": ["d1", "d2", "d8", "d9", "d10"], "q2": ["d2", "d4", "d7"],
           "q3": ["d1", "d3", "d4", "d5", "d6", "d8", "d9"]}
    qrels = {q: dict.fromkeys(docs, 1) for q, docs in rel.items()}
    ten = [f"d{i}" for i in range(1, 11)]
    run_1 = {q: {d: float(10 - i) for i, d in enumerate(ten)} for q in rel}
    orders = {"q1": ["d1", "d2", "d8", "d9", "d10", "d3", "d4", "d5", "d6", "d7"],
              "q2": ["d2", "d4", "d7", "d1", "d3", "d5", "d6", "d8", "d9", "d10"], "q3": ten}
    run_2 = {q: {d: float(10 - i) for i, d in enumerate(order)} for q, order in orders.items()}
    fused = fuse([run_1, run_2], "bayesfuse", norm=None, qrels=qrels)

    def odds(p):
        return np.log(p / (1 - p))

    # the stated log odds per position (segments of 5), run 1 and run 2
    odds_1 = [odds(8 / 15)] * 5 + [odds(7 / 15)] * 5
    odds_2 = [odds(12 / 15)] * 5 + [odds(3 / 15)] * 5
    for q in rel:
        assert len(fused[q]) == 10
        for d in ten:
            i, j = ten.index(d), orders[q].index(d)
            if j < 5:  # ranx states these log odds with ==, the others with isclose
                assert fused[q][d] == odds_1[i] + odds_2[j], (q, d)
            else:
                assert math.isclose(fused[q][d], odds_1[i] + odds_2[j]), (q, d)


COND_RUNS = [{"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}},  # condorcet_test.py and
             {"q1": {"d1": 2, "d2": 3}, "q2": {"d1": 1, "d3": 3}},            # weighted_condorcet_test.py
             {"q1": {"d3": 3}, "q2": {"d2": 2, "d3": 3}}]


def test_ranx_stated_condorcet():
    expected = {"q1": {"d3": 3.0, "d2": 2.0, "d1": 1.0}, "q2": {"d3": 3.0, "d2": 2.0, "d1": 1.0}}
    assert fuse(COND_RUNS, "condorcet", norm=None) == expected
    assert fuse(COND_RUNS, "w_condorcet", norm=None, weights=[1, 1, 1]) == expected
    assert fuse(COND_RUNS, "w_condorcet", norm=None, weights=[1, 5, 2]) == {
        "q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}, "q2": {"d3": 3.0, "d1": 2.0, "d2": 1.0}}
    # test_condorcet_no_result_query: q2 empty in every run; rankkit's reader keeps no query
    # without documents, so the fused run has q1 alone
    empty = [{"q1": r["q1"], "q2": {}} for r in COND_RUNS[:1]] + [{"q1": {"d1": 2, "d2": 3}, "q2": {}},
                                                                  {"q1": {"d3": 3}, "q2": {}}]
    assert fuse(empty, "condorcet", norm=None) == {"q1": {"d3": 3.0, "d2": 2.0, "d1": 1.0}}


# A tiny example computed by hand for every learned method: training and fused query "t";
# run A ranks a, b, c, d (hits 1, 0, 1, 0), run B ranks c, a, e (hits 1, 1, 0); R = 2.
HAND_A, HAND_B = {"t": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}, {"t": {"c": 4.0, "a": 3.0, "e": 2.0}}
HAND_QRELS = {"t": {"a": 1, "c": 2, "e": 0}}
_ODDS, _MIN = math.log(0.4 / 0.6), math.log(0.001 / 0.999)   # 2 hits in the first 5; a missing document
HAND = [
    # posfuse: p_A = 1, 0, 1, 0; p_B = 1, 1, 0
    ("posfuse", {}, {"a": 1 + 1, "c": 1 + 1, "e": 0.0, "d": 0.0, "b": 0.0}),
    # slidefuse w=1: A's windows (1+0)/2, (1+0+1)/3, (0+1+0)/3, (1+0)/2; B's (1+1)/2, (1+1+0)/3, (1+0)/2
    ("slidefuse", {"window": 1}, {"c": 1 / 3 + 1, "a": 1 / 2 + 2 / 3, "b": 2 / 3, "e": 1 / 2, "d": 1 / 2}),
    # probfuse 2 segments: A's [a b] [c d] 1/2 and 1/2; B's [c a] [e] 1 and 0; segment k divides by k + 1
    ("probfuse", {"n_segments": 2}, {"a": 0.5 + 1, "c": 0.25 + 1, "b": 0.5, "d": 0.25, "e": 0.0}),
    # segfuse: 2 hits in the first segment (5 positions) of each run: 0.4 * (score + 1)
    ("segfuse", {}, {"a": 0.4 * 5 + 0.4 * 4, "c": 0.4 * 3 + 0.4 * 5, "b": 0.4 * 4, "e": 0.4 * 3, "d": 0.4 * 2}),
    # mapfuse: AP_A = (1/1 + 2/3) / 2, AP_B = (1/1 + 2/2) / 2
    ("mapfuse", {}, {"c": (5 / 6) / 3 + 1 / 1, "a": (5 / 6) / 1 + 1 / 2, "b": (5 / 6) / 2, "e": 1 / 3,
                     "d": (5 / 6) / 4}),
    # bayesfuse: every position in the first segment, precision 2/5 in both runs
    ("bayesfuse", {}, {"c": _ODDS + _ODDS, "a": _ODDS + _ODDS, "e": _MIN + _ODDS, "d": _ODDS + _MIN,
                       "b": _ODDS + _MIN}),
]


@pytest.mark.parametrize(("method", "params", "expected"), HAND, ids=[h[0] for h in HAND])
def test_learned_methods_by_hand(method, params, expected):
    fused = fuse([HAND_A, HAND_B], method, norm=None, qrels=HAND_QRELS, **params)["t"]
    assert fused == pytest.approx(expected, rel=1e-15, abs=0)
    assert list(fused) == sorted(expected, key=lambda d: (-expected[d], [-ord(c) for c in d]))


def test_condorcet_by_hand_and_its_tie_rule():
    # a beats b, d, e and ties c (A: a over c, B: c over a): Copeland 3.5; c 3; b 2 (beats d, as
    # B abstains, ties c and e); e 1; d 0.5
    assert fuse([HAND_A, HAND_B], "condorcet", norm=None)["t"] == {"a": 5.0, "c": 4.0, "b": 3.0, "e": 2.0, "d": 1.0}
    # B's vote weighs 2: c beats a (2 to 1), e beats b and d
    assert fuse([HAND_A, HAND_B], "w_condorcet", norm=None, weights=[1, 2])["t"] == \
        {"c": 5.0, "a": 4.0, "e": 3.0, "b": 2.0, "d": 1.0}
    # a cycle (a > b, b > c, c > a, two runs to one each): equal Copeland and Borda, so by id descending
    cycle = [{"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"b": 3.0, "c": 2.0, "a": 1.0}},
             {"q": {"c": 3.0, "a": 2.0, "b": 1.0}}]
    assert fuse(cycle, "condorcet", norm=None)["q"] == {"c": 3.0, "b": 2.0, "a": 1.0}
    # two runs in opposite orders: every pair tied; the Borda count of votes ties too
    opposite = [{"q": {"x": 2.0, "y": 1.0}}, {"q": {"y": 2.0, "x": 1.0}}]
    assert list(fuse(opposite, "condorcet", norm=None)["q"]) == ["y", "x"]
    # c and d tie on Copeland (each beats a, they tie each other: A holds c alone, B ranks d
    # over c); c has 3 votes (over d in A, over a in A and B), d 2: c first, though d > c by id
    runs = [{"q": {"c": 1.0}}, {"q": {"d": 3.0, "c": 2.0, "a": 1.0}}]
    assert fuse(runs, "condorcet", norm=None)["q"] == {"c": 3.0, "d": 2.0, "a": 1.0}


def condorcet_reference(runs, weights):
    """The documented rule in plain Python: Copeland (wins + half ties), Borda count of votes,
    document id descending; score n - position."""
    out = {}
    for q in runs[0]:
        ranked = [{d: i for i, d in enumerate(sorted(r[q], key=lambda d: -r[q][d]))} for r in runs]
        docs = sorted(set().union(*ranked))
        key = {}
        for x in docs:
            copeland = borda = 0.0
            for y in docs:
                if x == y:
                    continue
                big = float("inf")
                for_x = sum(w for w, r in zip(weights, ranked) if r.get(x, big) < r.get(y, big))
                for_y = sum(w for w, r in zip(weights, ranked) if r.get(y, big) < r.get(x, big))
                copeland += 1.0 if for_x > for_y else 0.5 if for_x == for_y else 0.0
                borda += for_x
            key[x] = (-copeland, -borda, [-ord(c) for c in x])
        order = sorted(docs, key=key.get)
        out[q] = {d: float(len(docs) - i) for i, d in enumerate(order)}
    return out


@st.composite
def small_runs(draw, max_runs=4):
    n_runs = draw(st.integers(2, max_runs))
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in ("q1", "q2"):
            chosen = draw(st.lists(st.sampled_from([f"d{i}" for i in range(7)]), min_size=1, max_size=7, unique=True))
            run[q] = {d: float(len(chosen) - i) for i, d in enumerate(chosen)}
        runs.append(run)
    return runs, draw(st.lists(st.integers(1, 4), min_size=n_runs, max_size=n_runs))


@settings(max_examples=sweep(60), deadline=None)
@given(small_runs())
def test_condorcet_against_the_rule_in_plain_python(case):
    runs, weights = case
    assert fuse(runs, "condorcet", norm=None) == condorcet_reference(runs, [1] * len(runs))
    assert fuse(runs, "w_condorcet", norm=None, weights=weights) == condorcet_reference(runs, weights)


def probfuse_reference(train, qrels, runs, n):
    """ProbFuse in plain Python, in ranx's order of operations."""
    tables = []
    for run in train:
        acc = [0.0] * n
        for q in sorted(qrels):
            hits = [1.0 if qrels[q].get(d, 0) >= 1 else 0.0 for d in sorted(run[q], key=lambda d: -run[q][d])]
            size = math.ceil(len(hits) / n)
            for k in range(n):
                segment = hits[k * size:(k + 1) * size]
                if segment:
                    acc[k] += sum(segment) / len(segment)
        tables.append([a / len(qrels) for a in acc])
    fused = {}
    for q in runs[0]:
        scores = {}
        for run, table in zip(runs, tables):
            size = math.ceil(len(run[q]) / n)
            for i, d in enumerate(sorted(run[q], key=lambda d: -run[q][d])):
                scores[d] = scores.get(d, 0.0) + table[i // size] / (i // size + 1)
        fused[q] = scores
    return fused


@settings(max_examples=sweep(60), deadline=None)
@given(small_runs(max_runs=3), st.integers(1, 8), st.data())
def test_probfuse_against_plain_python(case, n_segments, data):
    runs, _ = case
    qrels = {q: {f"d{i}": data.draw(st.integers(-1, 2)) for i in range(7)} for q in ("q1", "q2")}
    fused = fuse(runs, "probfuse", norm=None, qrels=qrels, n_segments=n_segments)
    assert fused == probfuse_reference(runs, qrels, runs, n_segments)


def test_learned_methods_train_on_the_judged_queries_only():
    # q2 unjudged: learning from q1 alone gives the same tables as from runs cut to q1
    runs = [{"q1": RUN_1["q1"], "q2": RUN_1["q2"]}, {"q1": RUN_2["q1"], "q2": RUN_2["q2"]}]
    only_q1 = [{"q1": r["q1"], "q9": {"x": 1.0}} for r in runs]
    for method, params in (("posfuse", {}), ("probfuse", {"n_segments": 2}), ("mapfuse", {}), ("bayesfuse", {})):
        a = fuse(runs, method, norm=None, qrels={"q1": {"d1": 1}}, **params)
        b = fuse(runs, method, norm=None, qrels={"q1": {"d1": 1}}, train_runs=only_q1, **params)
        assert a == b and set(a) == {"q1", "q2"}, method
    named = fuse({"x": RUN_1, "y": RUN_2}, "posfuse", qrels=QRELS_1, train_runs={"y": RUN_2, "x": RUN_1})
    assert named == fuse([RUN_1, RUN_2], "posfuse", qrels=QRELS_1)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"method": "probfuse"}, "learns from judgments: pass qrels="),
    ({"method": "rrf", "qrels": QRELS_1}, "learns nothing"),
    ({"method": "probfuse", "qrels": QRELS_1}, "needs n_segments"),
    ({"method": "probfuse", "qrels": QRELS_1, "n_segments": 0}, "n_segments must be an integer >= 1"),
    ({"method": "slidefuse", "qrels": QRELS_1}, "needs window"),
    ({"method": "slidefuse", "qrels": QRELS_1, "window": -1}, "window must be an integer >= 0"),
    ({"method": "slidefuse", "qrels": QRELS_1, "window": 1.5}, "window must be an integer"),
    ({"method": "posfuse", "qrels": {"q7": {"d1": 1}}}, r"qrels judge queries the training runs lack: \['q7'\]"),
    ({"method": "posfuse", "qrels": QRELS_1, "train_runs": [RUN_1, RUN_2]}, "one run per run to fuse"),
    ({"method": "condorcet", "norm": "borda"}, "norm='borda'"),
    ({"method": "posfuse", "qrels": QRELS_1, "norm": "borda"}, "norm='borda'"),
    ({"method": "condorcet", "weights": [1, 2, 3]}, "takes no weights"),
])
def test_learned_and_condorcet_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fuse(RUNS, **kwargs)


def test_training_runs_by_name_must_name_the_runs():
    with pytest.raises(ValueError, match=r"train_runs must name the runs to fuse: \['a', 'c'\] against \['a', 'b'\]"):
        fuse({"a": RUN_1, "b": RUN_2}, "posfuse", qrels=QRELS_1, train_runs={"a": RUN_1, "c": RUN_2})
    with pytest.raises(ValueError, match="qrels hold no judgments"):
        fuse(RUNS, "posfuse", qrels={})


def test_optimize_fusion_learns_on_training_queries_and_picks_as_fuse_would():
    rng = np.random.default_rng(5)
    runs = random_runs(rng, n_runs=2, n_queries=12, depth=20)
    qrels = {q: {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(30, 12, replace=False)} for q in runs[0]}
    train = [f"q{i}" for i in range(8)]
    best = optimize_fusion(qrels, runs, "probfuse", metric="AP", train_queries=train, grid=range(1, 9))
    train_qrels = {q: qrels[q] for q in train}
    means = []
    for n in range(1, 9):
        table = rk.evaluate(qrels, fuse(runs, "probfuse", qrels=train_qrels, n_segments=n), ["AP"])["AP"]
        means.append((table.loc[train].mean(), table.drop(train).mean()))
    pick = max(i for i in range(8) if means[i][0] == max(m[0] for m in means))  # the last of the best
    assert best.params == {"n_segments": pick + 1}
    assert best.train_score == pytest.approx(means[pick][0], rel=1e-12)
    assert best.test_score == pytest.approx(means[pick][1], rel=1e-12)
    # the held-out judgments are not learned from: changing them moves the test score only
    changed = {**qrels, **{q: {"zz": 1} for q in runs[0] if q not in train}}
    again = optimize_fusion(changed, runs, "probfuse", metric="AP", train_queries=train, grid=range(1, 9))
    assert again.params == best.params and again.train_score == best.train_score
    one = optimize_fusion(qrels, runs, "bayesfuse", metric="AP", train_queries=train)
    assert len(one.trials) == 1 and one.params == {}
    with warnings.catch_warnings(record=True) as caught:  # evaluating warns of q0 too
        warnings.simplefilter("always")
        optimize_fusion({q: j for q, j in qrels.items() if q != "q0"}, runs, "posfuse", metric="AP",
                        train_queries=train)
    assert "1 training queries without judgments are not learned from, e.g. ['q0']" in \
        [str(w.message) for w in caught]
    with pytest.raises(ValueError, match="learns from the judged training queries: there are none"):
        optimize_fusion({"q11": {"d1": 1}}, runs, "posfuse", metric="AP", train_queries=train)
    window = optimize_fusion(qrels, runs, "slidefuse", metric="AP", train_queries=train, grid=[0, 2])
    assert window.params["window"] in (0, 2) and len(window.trials) == 2
    weights = optimize_fusion(qrels, runs, "w_condorcet", metric="AP", train_queries=train, step=0.5)
    assert len(weights.trials) == 3


def test_command_fuses_with_training_judgments(tmp_path):
    paths = []
    for i, run in enumerate(RUNS):
        paths.append(tmp_path / f"run{i}.txt")
        paths[-1].write_text("".join(trec_lines(rk.read_run(run), f"r{i}")))
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d1 1\n")
    out = io.StringIO()
    assert main(["fuse", *map(str, paths), "-m", "probfuse", "--norm", "none", "--qrels", str(tmp_path / "qrels"),
                 "--segments", "2"], out=out) == 0
    back = rk.read_run(io.BytesIO(out.getvalue().encode()))
    assert {(q, d): s for q, d, s in back.itertuples(index=False)} == \
        {(q, d): s for q, r in stated_probfuse().items() for d, s in r.items()}
    assert out.getvalue().splitlines()[0].endswith(" probfuse")
    out = io.StringIO()
    assert main(["fuse", *map(str, paths), "-m", "condorcet"], out=out) == 0
    assert out.getvalue().splitlines()[:3] == ["q1 Q0 d3 1 3 condorcet", "q1 Q0 d2 2 2 condorcet",
                                               "q1 Q0 d1 3 1 condorcet"]


# --------------------------------------------------------------------------- ranx itself, learned and Condorcet


def random_qrels(rng, queries, pool=30):
    return {q: {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(pool, int(rng.integers(1, 15)), replace=False)}
            for q in queries}


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_learned_methods_equal_to_ranx_on_random_runs(seed):
    """Training runs and judgments on queries t0..., fused runs on q0...: the same documents and
    bit-identical scores, for every learned method under four norms (no tied scores)."""
    ranx = pytest.importorskip("ranx", reason="ranx (the test oracle) is not installed")
    from ranx.fusion import probfuse_train, slidefuse_train
    from ranx.normalization import norm_switch

    rng = np.random.default_rng(seed)
    train = [{q.replace("q", "t"): docs for q, docs in r.items()} for r in random_runs(rng, depth=30)]
    runs = random_runs(rng, depth=30)
    qrels = random_qrels(rng, train[0])
    oracle_qrels = ranx.Qrels(qrels)
    for norm in (None, "min-max", "min-max-inverted", "zmuv"):
        oracle_train = [ranx.Run(r) for r in train]
        normalised = oracle_train if norm is None else [norm_switch(norm)(r) for r in oracle_train]
        oracle_runs = [ranx.Run(r) for r in runs]
        for method, params in (("probfuse", {"n_segments": 7}), ("segfuse", {}), ("posfuse", {}),
                               ("slidefuse", {"window": 3}), ("mapfuse", {}), ("bayesfuse", {})):
            if method == "probfuse":
                learned = {"probs": probfuse_train(oracle_qrels, normalised, 7)}
            elif method == "slidefuse":
                learned = {"probs": slidefuse_train(oracle_qrels, normalised), "w": 3}
            else:
                learned = ranx.optimize_fusion(oracle_qrels, oracle_train, norm=norm, method=method)
            theirs = ranx.fuse(oracle_runs, norm=norm, method=method, params=learned).to_dict()
            ours = fuse(runs, method, norm, qrels=qrels, train_runs=train, **params)
            assert ours == {q: dict(theirs[q]) for q in theirs}, (method, norm)


def ranx_order_if_defined(runs, q, weights):
    """The order ranx's comparator gives whatever its input order, or None where it has
    none (a pair both or neither of whose documents goes first, or a cycle)."""
    ranked = [{d: i for i, d in enumerate(sorted(r[q], key=lambda d: -r[q][d]))} for r in runs]
    docs = sorted(set().union(*ranked))

    def first(x, y):  # ranx's rule: a run lacking both votes for y
        votes = sum(w for w, r in zip(weights, ranked) if r.get(x, 10 ** 6) < r.get(y, 10 ** 6))
        return votes >= sum(weights) - votes

    if any(first(x, y) == first(y, x) for x in docs for y in docs if x < y):
        return None
    order = sorted(docs, key=lambda d: -sum(first(d, o) for o in docs if o != d))
    return order if all(first(a, b) for i, a in enumerate(order) for b in order[i + 1:]) else None


@pytest.mark.slow
def test_condorcet_equal_to_ranx_where_ranx_is_well_defined():
    ranx = pytest.importorskip("ranx", reason="ranx (the test oracle) is not installed")
    checked = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        weights = [float(w) for w in rng.integers(1, 4, 3)] if seed % 2 else [1.0, 1.0, 1.0]
        runs = [{f"q{q}": {f"d{d}": float(s) for d, s in zip(rng.choice(6, int(rng.integers(5, 7)), replace=False),
                                                             rng.normal(size=6))} for q in range(10)}
                for _ in range(3)]
        method, params = ("w_condorcet", {"weights": weights}) if seed % 2 else ("condorcet", {})
        ours = fuse(runs, method, None, **params)
        theirs = ranx.fuse([ranx.Run(r) for r in runs], norm=None, method=method, params=params).to_dict()
        for q in ours:
            order = ranx_order_if_defined(runs, q, weights)
            if order is not None:
                assert ours[q] == dict(theirs[q]) and list(ours[q]) == order, (seed, q)
                checked += 1
    assert checked >= 40  # of 120 queries
