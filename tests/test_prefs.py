"""trec_eval's preference judgments and judgment groups: -R prefs, -R qrels_prefs, -R qrels_jg.

Three oracles: trec_eval 10's own outputs on its test files (``data/trec_eval_test/out.test.*``,
byte for byte); a plain-Python transcription of trec_eval's definitions, one query and one
judgment group at a time (:func:`_oracle`, sharing no code with the array kernels), on
seeded random files; and, where a ``trec_eval`` binary is on PATH, that binary on the same
random files.
"""

from __future__ import annotations

import io
import random
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import rankkit as rk
from rankkit.cli import main
from rankkit.evaluation.preferences import evaluate_preferences, preference_measures
from rankkit.io.prefs import read_prefs
from rankkit.metrics.preferences import PREFS_MEASURES, average_over_groups

DATA = Path(__file__).resolve().parent.parent / "data" / "trec_eval_test"
TREC_EVAL = shutil.which("trec_eval")


def _cli(*argv: str) -> str:
    out = io.StringIO()
    assert main(["evaluate", *argv], out=out) in (0, None)
    return out.getvalue()


# --------------------------------------------------------------------------- trec_eval's test files


@pytest.mark.parametrize("argv, expected", [
    (["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"], "out.test.prefs"),
    (["-m", "all_prefs", "-q", "-R", "prefs", "prefs.comment.test", "prefs.results.test"], "out.test.prefs"),
    (["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"], "out.test.qrels_prefs"),
    (["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"], "out.test.qrels_jg"),
])
def test_trec_evals_own_tests_byte_for_byte(argv, expected):
    files = [str(DATA / a) if (DATA / a).is_file() else a for a in argv]
    assert _cli(*files) == (DATA / expected).read_text()


def test_python_entry_gives_the_commands_numbers():
    prefs = rk.read_prefs(DATA / "prefs.test")
    table = rk.evaluate(prefs, DATA / "prefs.results.test", "all_prefs")
    lines = (DATA / "out.test.prefs").read_text().splitlines()
    stored = {(f.split()[0], f.split()[1]): f.split()[2] for f in lines}
    assert len(table) == 24 and list(table.columns) == list(PREFS_MEASURES)
    for qid, row in table.iterrows():
        for column, value in row.items():
            kind = PREFS_MEASURES[column][1]
            assert (str(int(value)) if kind == "int" else f"{value:.4f}") == stored[(column, qid)]
    assert f"{table.attrs['all']['prefs_avgjg_Rnonrel']:.4f}" == stored[("prefs_avgjg_Rnonrel", "all")]
    assert table.attrs["all"]["num_q"] == 24 and table.attrs["all"]["runid"] == "STANDARD"
    jg = rk.evaluate(rk.read_prefs(DATA / "qrels.123", "qrels_jg"), DATA / "results.test", ["map_avgjg"])
    assert jg["map_avgjg"].round(4).tolist() == [0.0266, 0.2571, 0.0552]


# --------------------------------------------------------------------------- worked examples


def _write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.mark.parametrize("lines, n_prefs", [
    # get_prefs.c's examples: a ranked list of 6 (13 preferences), two sub-groups, transitivity (5).
    # Its comment counts 5 for the second, but the closure adds d4 > d3 (d4 > d1 > d3): trec_eval 10 prints 6
    (["q u s d1 3", "q u s d2 2", "q u s d3 0", "q u s d4 6", "q u s d5 0", "q u s d6 2"], 13),
    (["q u s1 d1 3", "q u s1 d2 2", "q u s1 d3 1", "q u s2 d1 2", "q u s2 d2 1", "q u s2 d4 3"], 6),
    (["q u s1 d1 3", "q u s1 d2 2", "q u s1 d3 1", "q u s2 d2 5", "q u s2 d4 4"], 5),
])
def test_the_number_of_preferences_of_trec_evals_examples(tmp_path, lines, n_prefs):
    prefs = _write(tmp_path, "p", lines)
    run = _write(tmp_path, "r", ["q Q0 d1 1 1 t"])
    table, summary = evaluate_preferences(prefs, run, ["prefs_num_prefs_poss", "prefs_simp"])
    assert summary["prefs_num_prefs_poss"] == n_prefs
    assert table["prefs_simp"].iloc[0] == _oracle(read_prefs(prefs), run_rows(run))["q"]["prefs_simp"]


def test_a_perfect_ranking_fulfils_every_preference_and_its_reverse_none(tmp_path):
    prefs = _write(tmp_path, "p", ["q u s d1 3", "q u s d2 2", "q u s d3 1", "q u s d4 0"])
    best = _write(tmp_path, "best", [f"q Q0 d{i} {i} {10 - i} t" for i in range(1, 5)])
    worst = _write(tmp_path, "worst", [f"q Q0 d{i} {i} {i} t" for i in range(1, 5)])
    measures = ["prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_simp_ret", "prefs_avgjg_Rnonrel"]
    assert evaluate_preferences(prefs, best, measures)[0].iloc[0].to_dict() == dict.fromkeys(measures, 1.0)
    worst_values = evaluate_preferences(prefs, worst, measures)[0].iloc[0].to_dict()
    # R = 3 relevant, N = 1 non-relevant: Rnonrel adds R - N = 2 non-relevant documents ranked
    # below every relevant one: 3 * 2 fulfilled of 6 + 3 * 2 possible
    assert worst_values == {**dict.fromkeys(measures, 0.0), "prefs_avgjg_Rnonrel": 0.5}


def test_a_group_without_a_possible_preference_zeroes_rnonrel_as_trec_eval_does(tmp_path):
    # JG "b" holds only non-relevant documents: trec_eval's 0 / 0 makes the query's value 0
    prefs = _write(tmp_path, "p", ["q a s d1 1", "q a s d2 0", "q b s d3 0", "q b s d4 0"])
    run = _write(tmp_path, "r", ["q Q0 d1 1 2 t", "q Q0 d2 2 1 t"])
    table, _ = evaluate_preferences(prefs, run, ["prefs_avgjg", "prefs_avgjg_Rnonrel"])
    assert table.iloc[0].tolist() == [0.5, 0.0]


def test_average_over_groups_divides_only_several_groups():
    assert average_over_groups(np.array([0.5, 0.25, 0.8]), np.array([0, 0, 1]), 3).tolist() == [0.375, 0.8, 0.0]


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("text, form, message", [
    ("q u s d1\n", "prefs", r"p line 1: expected 5 fields \(qid jg jsg docno rel_level\), got 4"),
    ("# c\nq u s d1 x\n", "prefs", r"p line 2: rel_level must be a finite number, got 'x'"),
    ("q u d1 inf\n", "qrels_prefs", "p line 1: rel_level must be a finite number"),
    ("q u d1 1.5\n", "qrels_jg", r"p line 1: rel must be an integer .*'1.5'"),
    ("q u d1 1\nq v d1 1\nq u d1 0\n", "qrels_jg", r"p lines 1 and 3: document 'd1' is judged twice in group 'u'"),
    ("\n", "prefs", "p line 1: expected 5 fields"),
    ("# only a comment\n", "prefs", "p: empty file"),
])
def test_reader_errors_name_the_file_and_line(tmp_path, text, form, message):
    path = tmp_path / "p"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_prefs(path, form)


def test_reader_refuses_an_unknown_format_and_a_missing_file(tmp_path):
    with pytest.raises(ValueError, match="format must be one of prefs, qrels_prefs, qrels_jg, got 'qrels'"):
        read_prefs(DATA / "prefs.test", "qrels")
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_prefs(tmp_path / "absent")


def test_inconsistent_judgment_groups_are_errors(tmp_path):
    run = _write(tmp_path, "r", ["q Q0 d1 1 1 t"])
    cycle = _write(tmp_path, "p", ["q u s1 d1 2", "q u s1 d2 1", "q u s2 d2 2", "q u s2 d1 1"])
    with pytest.raises(ValueError, match="judgment group 'u' of query 'q': inconsistent"):
        evaluate_preferences(cycle, run, ["prefs_simp"])
    zero = _write(tmp_path, "z", ["q u s1 d1 0", "q u s1 d2 1", "q u s2 d1 2", "q u s2 d3 1"])
    with pytest.raises(ValueError, match="'u' of query 'q': a document is at level 0 in one sub-group and above 0"):
        evaluate_preferences(zero, run, ["prefs_simp"])


@pytest.mark.parametrize("specs, form, message", [
    (["map"], "prefs", "unknown measure 'map' under -R prefs; known: all_prefs"),
    (["map_avgjg"], "prefs", "map_avgjg needs judgment groups: -R qrels_jg, not -R prefs"),
    (["prefs_simp"], "qrels_jg", "prefs_simp needs preferences: -R prefs or -R qrels_prefs, not -R qrels_jg"),
    (["P_avgjg.0"], "qrels_jg", "P_avgjg: cutoffs must be positive"),
    (["P_avgjg.a"], "qrels_jg", "P_avgjg: parameters must be integers"),
    (["prefs_simp.3"], "prefs", "prefs_simp takes no parameters"),
])
def test_measure_errors(specs, form, message):
    with pytest.raises(ValueError, match=message):
        preference_measures(specs, form)


def test_measures_print_in_trec_evals_order_first_parameters_winning():
    assert list(preference_measures(["Rprec_mult_avgjg.1,0.5", "P_avgjg.20,5", "P_avgjg.7", "num_q"], "qrels_jg")) == [
        "num_q", "P_avgjg_5", "P_avgjg_20", "Rprec_mult_avgjg_0.50", "Rprec_mult_avgjg_1.00"]
    assert list(preference_measures(None, "prefs"))[-1] == "prefs_avgjg"


def test_the_command_refuses_flags_that_do_not_apply(capsys):
    prefs, run = str(DATA / "prefs.test"), str(DATA / "prefs.results.test")
    assert main(["evaluate", "-R", "prefs", "-J", "--ties", "average", prefs, run], out=io.StringIO()) == 2
    assert "-R prefs does not take --ties, -J" in capsys.readouterr().err
    with pytest.raises(ValueError, match="rel= and judged_only= apply to judgment groups"):
        rk.evaluate(rk.read_prefs(prefs), run, ["prefs_simp"], judged_only=True)


# --------------------------------------------------------------------------- random files: the oracles


def _random_prefs(rng: random.Random, form: str) -> list[str]:
    """Judgment groups consistent by construction: every sub-group orders a subset of the
    group's documents by a hidden grade (0 stays 0); some lines given twice."""
    lines = []
    for q in rng.sample(["q1", "q10", "q2", "q3", "Q7"], rng.randint(1, 4)):
        pool = [f"d{i:02d}" for i in rng.sample(range(30), rng.randint(2, 14))]
        for jg in rng.sample(["jA", "jB", "g0", "jZ"], rng.randint(1, 3)):
            hidden = {d: rng.choice([0, 0, 1, 2, 3, 4]) for d in pool}
            for s in range(rng.choice([1, 1, 2, 3]) if form == "prefs" else 1):
                k = rng.choice([1, 2, 0.5, 1.5]) if form != "qrels_jg" else 1
                for d in rng.sample(pool, rng.randint(1, len(pool))):
                    level = f"{hidden[d] * k:g}"
                    lines.append(f"{q} {jg} s{s} {d} {level}" if form == "prefs" else f"{q} {jg} {d} {level}")
                    if form != "qrels_jg" and rng.random() < 0.05:
                        lines.append(lines[-1])
    rng.shuffle(lines)
    return lines


def _random_run(rng: random.Random, queries: list[str], every: bool) -> list[str]:
    lines = []
    for q in [*queries, "q99"]:
        if (q == "q99" or not every) and rng.random() < 0.4:
            continue
        for i, d in enumerate(rng.sample(range(40), rng.randint(1, 25))):
            lines.append(f"{q} Q0 d{d:02d} {i} {rng.choice([1, 2, 2.5, 3, 4, 5, 6])} tag")
    return lines or ["q99 Q0 d00 0 1 tag"]


def run_rows(path) -> list[tuple[str, str, float]]:
    return [(f[0], f[2], float(f[4])) for f in (line.split() for line in Path(path).read_text().splitlines())]


def _ranks(lines, ranking):
    """trec_eval's docid ranks: judged retrieved documents by rank, then the others by id."""
    judged = {line[3] for line in lines}
    retrieved = [d for d in ranking if d in judged]
    ranks = {d: i for i, d in enumerate(retrieved)}
    ranks.update({d: len(retrieved) + i for i, d in enumerate(sorted(judged - set(retrieved)))})
    return ranks, len(retrieved)


def _group(entries, ranks, njr):
    """One JG: its preferences as (rank, rank) with trec_eval's multiplicity, the counts
    of trec_eval's JG structure, and its two Rnonrel (fulfilled, possible) pairs."""
    entries = sorted(entries, key=lambda e: (e[2], -e[4], ranks[e[3]]))
    if len({e[2] for e in entries}) == 1:  # classes of equal level: lines count
        levels = sorted({e[4] for e in entries}, reverse=True)
        ecs = [sorted(ranks[e[3]] for e in entries if e[4] == lv) for lv in levels]
        prefs = [(a, b) for i, hi in enumerate(ecs) for lo in ecs[i + 1:] for a in hi for b in lo]
        rel = [r for lv, ec in zip(levels, ecs) if lv > 0 for r in ec]
        non = [r for lv, ec in zip(levels, ecs) if lv <= 0 for r in ec]
        counts = _counts(prefs, njr, rel, non)
        return prefs, counts, _ec_rnonrel(ecs, counts, njr, ret=False), _ec_rnonrel(ecs, counts, njr, ret=True)
    direct = {(ranks[a[3]], ranks[b[3]]) for a in entries for b in entries if a[2] == b[2] and a[4] > b[4]}
    closed = set(direct)
    while True:
        more = closed | {(a, d) for a, b in closed for c, d in closed if b == c}
        if more == closed:
            break
        closed = more
    prefs = sorted((a, b) for a, b in closed if a != b)
    final = {ranks[e[3]]: e[4] for e in entries}
    rel = [r for r, lv in final.items() if lv > 0]
    non = sorted(r for r, lv in final.items() if lv == 0)
    counts = _counts(prefs, njr, rel, non)
    return prefs, counts, _pa_rnonrel(prefs, final, counts, njr, False), _pa_rnonrel(prefs, final, counts, njr, True)


def _counts(prefs, njr, rel, non):
    c = Counter()
    for a, b in prefs:
        if a < njr and b < njr:
            c["poss_ret"] += 1
            c["ful_ret"] += a < b
        elif a < njr or b < njr:
            c["poss_imp"] += 1
            c["ful_imp"] += a < njr
        else:
            c["notoccur"] += 1
    c.update(n_rel=len(rel), n_non=len(non), n_rel_ret=sum(r < njr for r in rel), n_non_ret=sum(r < njr for r in non))
    return c


def _ec_rnonrel(ecs, c, njr, ret):
    big, small = (c["n_rel_ret"], c["n_non_ret"]) if ret else (c["n_rel"], c["n_non"])
    if big >= small:
        ful = c["ful_ret"] + (0 if ret else c["ful_imp"]) + c["n_rel_ret"] * (big - small)
        poss = c["poss_ret"] + (0 if ret else c["poss_imp"] + c["notoccur"]) + c["n_rel"] * (big - small)
        return ful, poss
    keep = [[r for r in ec if r < njr] for ec in ecs] if ret else ecs
    kept_last = keep[-1][:big]
    pairs = [(a, b) for i in range(len(keep)) for j in range(i + 1, len(keep) - 1) for a in keep[i] for b in keep[j]]
    pairs += [(a, b) for ec in keep for a in ec for b in kept_last]
    return sum(a < b and a < njr for a, b in pairs), len(pairs)


def _pa_rnonrel(prefs, final, c, njr, ret):
    big, small = (c["n_rel_ret"], c["n_non_ret"]) if ret else (c["n_rel"], c["n_non"])
    if big >= small:
        ful = c["ful_ret"] + (0 if ret else c["ful_imp"]) + c["n_rel_ret"] * (big - small)
        poss = c["poss_ret"] + (0 if ret else c["poss_imp"] + c["notoccur"]) + c["n_rel"] * (big - small)
        return ful, poss
    non = sorted(r for r, lv in final.items() if lv == 0 and (r < njr or not ret))
    dropped = set(non[c["n_rel"]:])
    kept = [(a, b) for a, b in prefs if a not in dropped and b not in dropped and (not ret or (a < njr and b < njr))]
    return sum(a < b and a < njr for a, b in kept), len(kept)


def _oracle(prefs, run, depth=None):
    """Per query, every measure, one query and one JG at a time as trec_eval defines them."""
    lines = list(zip(prefs.query_ids, prefs.groups, prefs.subgroups, prefs.doc_ids, prefs.levels))
    out = {}
    for q in sorted({line[0] for line in lines} & {r[0] for r in run}):
        mine = [line for line in lines if line[0] == q]
        ranking = [d for d, _ in sorted(((d, s) for qq, d, s in run if qq == q), key=lambda x: (-x[1], x[0]))]
        ranks, njr = _ranks(mine, ranking[:depth])
        groups = [_group([e for e in mine if e[1] == g], ranks, njr) for g in sorted({e[1] for e in mine})]
        out[q] = _measures(groups, njr, len(ranks))
    return out


def _measures(groups, njr, nj):
    total = sum((g[1] for g in groups), Counter())
    ful, poss = total["ful_ret"] + total["ful_imp"], total["poss_ret"] + total["poss_imp"] + total["notoccur"]
    m = {"prefs_num_prefs_poss": poss, "prefs_num_prefs_ful": ful, "prefs_num_prefs_ful_ret": total["ful_ret"],
         "prefs_simp": ful / poss if poss else 0.0,
         "prefs_simp_ret": total["ful_ret"] / total["poss_ret"] if total["poss_ret"] else 0.0,
         "prefs_simp_imp": ful / (total["poss_ret"] + total["poss_imp"]) if total["poss_ret"] + total["poss_imp"]
         else 0.0}
    kinds = (("", ("ful_ret", "ful_imp"), ("poss_ret", "poss_imp", "notoccur")), ("_ret", ("ful_ret",), ("poss_ret",)),
             ("_imp", ("ful_ret", "ful_imp"), ("poss_ret", "poss_imp")))
    for name, f, p in kinds:
        s = 0.0
        for g in groups:
            gp = sum(g[1][k] for k in p)
            s += sum(g[1][k] for k in f) / gp if gp else 0.0
        m["prefs_avgjg" + name] = s / len(groups) if s > 0 else 0.0
    for name, index in (("prefs_avgjg_Rnonrel", 2), ("prefs_avgjg_Rnonrel_ret", 3)):
        s = 0.0
        for g in groups:
            s += g[index][0] / g[index][1] if g[index][1] else float("nan")
        m[name] = s / len(groups) if s > 0 else 0.0
    pc = Counter(p for g in groups for p in g[0])
    sums, pairs = [0.0, 0.0], [0, 0, 0]
    for i in range(nj):
        for j in range(i + 1, nj):
            if pc[i, j] or pc[j, i]:
                block = 0 if j < njr else 1 if i < njr else 2
                pairs[block] += 1
                if block < 2:
                    sums[block] += pc[i, j] / (pc[i, j] + pc[j, i])
    m["prefs_pair"] = (sums[0] + sums[1]) / sum(pairs) if sum(pairs) else 0.0
    m["prefs_pair_ret"] = sums[0] / pairs[0] if pairs[0] else 0.0
    m["prefs_pair_imp"] = (sums[0] + sums[1]) / (pairs[0] + pairs[1]) if pairs[0] + pairs[1] else 0.0
    return m


@pytest.mark.filterwarnings("ignore:run queries without judgments")
@pytest.mark.parametrize("form", ["prefs", "qrels_prefs"])
@pytest.mark.parametrize("seed", range(40))
def test_kernels_meet_a_plain_python_transcription(tmp_path, form, seed):
    rng = random.Random(seed)
    prefs = _write(tmp_path, "p", _random_prefs(rng, form))
    run = _write(tmp_path, "r", _random_run(rng, sorted({x.split()[0] for x in prefs.read_text().split("\n") if x}),
                                            every=True))
    depth = rng.choice([None, None, 3, 8])
    table, _ = evaluate_preferences(prefs, run, ["all_prefs"], format=form, depth=depth)
    expected = _oracle(read_prefs(prefs, form), run_rows(run), depth)
    assert list(table.index) == list(expected)
    for qid, row in table.iterrows():
        for column, value in row.items():
            assert value == pytest.approx(expected[qid][column], abs=1e-12), (qid, column)


@pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary on PATH")
@pytest.mark.parametrize("form", ["prefs", "qrels_prefs", "qrels_jg"])
@pytest.mark.parametrize("seed", range(25))
def test_random_files_byte_for_byte_against_trec_eval(tmp_path, form, seed):
    rng = random.Random(1000 + seed)
    prefs = _write(tmp_path, "p", _random_prefs(rng, form))
    queries = sorted({x.split()[0] for x in prefs.read_text().split("\n") if x})
    complete = rng.random() < 0.3
    run = _write(tmp_path, "r", _random_run(rng, queries, every=not complete))
    argv = ["-q", "-m", "qrels_jg" if form == "qrels_jg" else "all_prefs", "-R", form]
    argv += ["-c"] * complete + ["-M", str(rng.randint(1, 10))] * (rng.random() < 0.3)
    if form == "qrels_jg":
        argv += ["-l", "2"] * (rng.random() < 0.3) + ["-J"] * (rng.random() < 0.3)
    theirs = subprocess.run([TREC_EVAL, *argv, str(prefs), str(run)], capture_output=True, text=True, check=True)
    assert _cli(*argv, str(prefs), str(run)) == theirs.stdout


def test_unscored_queries_are_named_in_warnings_and_disjoint_files_are_an_error(tmp_path):
    prefs = _write(tmp_path, "p", ["q1 u s d1 1", "q1 u s d2 0", "q2 u s d1 1", "q2 u s d2 0"])
    run = _write(tmp_path, "r", ["q1 Q0 d1 1 1 t", "q3 Q0 d1 1 1 t"])
    with pytest.warns(UserWarning) as caught:
        table, _ = evaluate_preferences(prefs, run, ["prefs_simp"])
    assert [str(w.message) for w in caught] == [
        "run queries without judgments are not scored (1): q3",
        "judged queries missing from the run are not scored (1; queries='qrels' scores them): q2"]
    assert table["prefs_simp"].to_dict() == {"q1": 1.0}
    with pytest.warns(UserWarning, match="run queries without judgments"):
        complete, _ = evaluate_preferences(prefs, run, ["prefs_simp"], queries="qrels")
    assert complete["prefs_simp"].to_dict() == {"q1": 1.0, "q2": 0.0}  # q2: nothing retrieved, 0 of 1 fulfilled
    other = _write(tmp_path, "o", ["q9 Q0 d1 1 1 t"])
    with pytest.raises(ValueError, match=r"no query in common between the judgments \(q1, q2\) and the run \(q9\)"):
        evaluate_preferences(prefs, other, ["prefs_simp"])


def test_a_document_retrieved_twice_is_an_error_naming_the_lines(tmp_path):
    prefs = _write(tmp_path, "p", ["q1 u s d1 1", "q1 u s d2 0"])
    run = _write(tmp_path, "r", ["q1 Q0 d1 1 1 t", "q1 Q0 d1 2 0.5 t"])
    with pytest.raises(ValueError, match="r lines 1 and 2: document 'd1' is retrieved twice for query 'q1'"):
        evaluate_preferences(prefs, run, ["prefs_simp"])


def test_several_runs_each_printed_in_turn_and_no_summary(tmp_path):
    prefs = _write(tmp_path, "p", ["q1 u s d1 1", "q1 u s d2 0"])
    good = _write(tmp_path, "good", ["q1 Q0 d1 1 2 good", "q1 Q0 d2 2 1 good"])
    bad = _write(tmp_path, "bad", ["q1 Q0 d1 1 1 bad", "q1 Q0 d2 2 2 bad"])
    assert _cli("-R", "prefs", "-m", "runid", "-m", "prefs_simp", str(prefs), str(good), str(bad)) == (
        "runid                 \tall\tgood\nprefs_simp            \tall\t1.0000\n"
        "runid                 \tall\tbad\nprefs_simp            \tall\t0.0000\n")
    assert _cli("-R", "prefs", "-q", "-n", "-m", "prefs_simp", str(prefs), str(bad)) == (
        "prefs_simp            \tq1\t0.0000\n")


# --------------------------------------------------------------------------- ids as codes; the records


def _long_id_files(tmp_path, rng):
    """Ids longer than 8 bytes (hashed keys), non-ASCII ones, and tied scores with documents no
    line judges, so that byte order decides both the ties and the cut of a depth."""
    docs = [f"clueweb09-en{i:04d}-ä{i % 3}" for i in rng.sample(range(60), 30)] + ["d1", "é"]
    grades = {(q, jg): {d: rng.choice([0, 1, 2, 3]) for d in docs} for q in ("q1", "q10", "qé") for jg in range(2)}
    lines = [f"{q} g{jg} s{s} {d} {grade[d]}" for (q, jg), grade in grades.items()
             for s in range(2) for d in rng.sample(docs, 8)]
    run = [f"{q} Q0 {d} {i} {rng.choice([1, 2, 3])} t" for q in ("q1", "q10", "qé", "q2")
           for i, d in enumerate(rng.sample([*docs, *[f"unjudged-document-{j}" for j in range(20)]], 25))]
    return _write(tmp_path, "p", lines), _write(tmp_path, "r", run)


@pytest.mark.filterwarnings("ignore:run queries without judgments")
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("depth", [None, 4])
def test_long_and_non_ascii_ids_join_by_their_bytes(tmp_path, seed, depth):
    prefs, run = _long_id_files(tmp_path, random.Random(seed))
    table, _ = evaluate_preferences(prefs, run, ["all_prefs"], depth=depth)
    expected = _oracle(read_prefs(prefs), run_rows(run), depth)
    assert list(table.index) == list(expected) == sorted(expected, key=lambda q: q.encode())
    for qid, row in table.iterrows():
        for column, value in row.items():
            assert value == pytest.approx(expected[qid][column], abs=1e-12), (qid, column)


@pytest.mark.filterwarnings("ignore:run queries without judgments")
def test_ids_sharing_a_key_take_the_exact_join(tmp_path, monkeypatch):
    """Keys are confirmed on the ids: when every id gets the same key, the run's documents are
    joined the exact way, with the same values."""
    import rankkit.evaluation.preferences as module

    prefs, run = _long_id_files(tmp_path, random.Random(7))
    table, _ = evaluate_preferences(prefs, run, ["all_prefs"])
    calls = []

    def one_key(*arrays, **_):
        calls.append(len(arrays))
        return [np.zeros(len(a), dtype=np.uint64) for a in arrays]

    monkeypatch.setattr(module, "string_keys", one_key)
    colliding, _ = evaluate_preferences(prefs, run, ["all_prefs"])
    assert calls and colliding.equals(table)


def test_the_measures_and_nicknames_are_the_registrys():
    from rankkit.names import NICKNAMES, REGISTRY, TREC_FAMILIES, TREC_ORDER

    prefs = [n for n in TREC_ORDER if REGISTRY[TREC_FAMILIES[n][0]].judgments == "prefs"]
    assert prefs == list(PREFS_MEASURES) == list(NICKNAMES["all_prefs"][2:])
    assert [n for n in TREC_ORDER if REGISTRY[TREC_FAMILIES[n][0]].judgments == "qrels_jg"] == [
        "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"]
    for name, (kernel, kind) in PREFS_MEASURES.items():
        info = REGISTRY[name]
        assert info.func is kernel and (info.aggregate == "sum") == (kind == "int") and not info.cutoff
    assert list(preference_measures(["all_prefs"], "prefs")) == ["runid", "num_q", *prefs]
    assert list(preference_measures(None, "qrels_jg"))[:3] == ["runid", "num_q", "map_avgjg"]


@pytest.mark.parametrize("spec, call", [
    ("prefs_simp", 'rk.evaluate(rk.read_prefs(path), run, ["prefs_simp"]) (command line: rankkit evaluate -R prefs)'),
    ("prefs_num_prefs_poss", 'rk.evaluate(rk.read_prefs(path), run, ["prefs_num_prefs_poss"])'),
    ("map_avgjg", 'rk.evaluate(rk.read_prefs(path, "qrels_jg"), run, ["map_avgjg"]) '
                  "(command line: rankkit evaluate -R qrels_jg)"),
    ("P_avgjg@10", 'rk.evaluate(rk.read_prefs(path, "qrels_jg"), run, ["P_avgjg.10"])'),
    ("Rprec_mult_avgjg_0.50", 'rk.evaluate(rk.read_prefs(path, "qrels_jg"), run, ["Rprec_mult_avgjg.0.5"])'),
])
def test_evaluate_on_relevance_judgments_says_what_to_call(spec, call):
    qrels, run = str(DATA / "qrels.test"), str(DATA / "prefs.results.test")
    with pytest.raises(ValueError) as caught:
        rk.evaluate(qrels, run, [spec])
    message = str(caught.value)
    assert message.startswith(f"metric {spec} needs ") and call in message and "\n" not in message
    with pytest.raises(ValueError, match="needs (preference judgments|judgment groups)"):
        rk.evaluate_scores([1, 0], [0.5, 0.2], [1, 1], [spec])


def test_the_suggested_call_gives_the_measure():
    prefs = rk.read_prefs(DATA / "prefs.test")
    table = rk.evaluate(prefs, str(DATA / "prefs.results.test"), ["prefs_simp"])
    with pytest.raises(ValueError, match=r'rk.evaluate\(rk.read_prefs\(path\), run, \["prefs_simp"\]\)'):
        rk.evaluate(str(DATA / "qrels.test"), str(DATA / "prefs.results.test"), ["prefs_simp"])
    assert round(table.attrs["all"]["prefs_simp"], 4) == 0.3881


def test_the_command_without_r_prefs_refuses_a_preference_measure(capsys):
    code = main(["evaluate", "-m", "prefs_simp", str(DATA / "qrels.test"), str(DATA / "prefs.results.test")])
    assert code not in (0, None)
    assert "rankkit evaluate -R prefs" in capsys.readouterr().err


@pytest.mark.parametrize("form", ["prefs", "qrels_jg"])
def test_ids_that_are_not_utf8_sort_and_join_by_their_bytes(tmp_path, form):
    """Bytes 0xff, 0xfe and 0xc3 0xa9 in ids give the values of the same files with ASCII bytes
    that sort the same way ('~', '}', '|'), each id keeping its bytes (escaped) in the index."""
    lines = [b"q\xff1 u s d\xfe1 2", b"q\xff1 u s d1 1", b"q\xff1 u s d\xc3\xa91 0", b"q1 u s dx 1", b"q1 u s dy 0"]
    if form == "qrels_jg":
        lines = [line.replace(b" s ", b" ") for line in lines]
    run = [b"q\xff1 Q0 d\xfe1 1 1 t", b"q\xff1 Q0 d1 2 3 t", b"q\xff1 Q0 d\xc3\xa91 3 1 t", b"q1 Q0 dy 1 2 t",
           b"q1 Q0 dx 1 2 t"]

    def files(name, swap):
        prefs, ranked = tmp_path / f"{name}.p", tmp_path / f"{name}.r"
        prefs.write_bytes(b"\n".join(swap(x) for x in lines) + b"\n")
        ranked.write_bytes(b"\n".join(swap(x) for x in run) + b"\n")
        return prefs, ranked

    raw = evaluate_preferences(*files("raw", lambda x: x), None, format=form)[0]
    ascii_ = evaluate_preferences(*files("ascii", lambda x: x.replace(b"\xff", b"~").replace(b"\xfe", b"}")
                                        .replace(b"\xc3\xa9", b"|")), None, format=form)[0]
    assert list(raw.index) == ["q1", "q\udcff1"] and list(ascii_.index) == ["q1", "q~1"]
    assert np.array_equal(raw.to_numpy(), ascii_.to_numpy()) and list(raw.columns) == list(ascii_.columns)
    if TREC_EVAL is not None:
        argv = ["-q", "-m", "qrels_jg" if form == "qrels_jg" else "all_prefs", "-R", form,
                *map(str, files("raw", lambda x: x))]
        theirs = subprocess.run([TREC_EVAL, *argv], capture_output=True, check=True).stdout
        out = io.StringIO()
        main(["evaluate", *argv], out=out)
        assert out.getvalue().encode("utf-8", "surrogateescape") == theirs
