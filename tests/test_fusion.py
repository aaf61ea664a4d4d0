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

import numpy as np
import pandas as pd
import pytest

import rankkit as rk
from rankkit.cli import main
from rankkit.fusion import METHODS, RANK_METHODS, WEIGHTED, fuse, optimize_fusion, trec_lines

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
    for source in ("Cormack", "Fox & Shaw", "Lee", "Wu & F. Crestani", "Mourão", "Bailey", "Aslam & Montague"):
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
    ({"method": "condorcet"}, "method must be one of"),
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


CASES = [(m, n) for m in METHODS for n in (None, "min-max", "min-max-inverted", "max", "sum", "zmuv", "rank",
                                           "borda") if not (n == "borda" and m in RANK_METHODS)]


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
