"""The graded assignments' sources (notebooks/assignments/), checked without grading anything:
every question has an answer, public tests and hidden tests; nothing of the teacher's reaches
the students' version; the written reference answers quote the numbers the data give; the
build is wired into the Makefile, CI and pyproject. `make assignments` does the grading."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

import rankkit as rk
import rankkit.stats

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "notebooks" / "assignments"
#: The folder names the syllabus refers to.
NAMES = ["a1_metrics_by_hand", "a2_comparing_runs", "a3_learning_to_rank"]
WRITTEN = {"a2_comparing_runs": 4, "a3_learning_to_rank": 3}
SECRETS = ("### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")


def read(name: str) -> nbformat.NotebookNode:
    return nbformat.read(HERE / name / f"{name}.ipynb", as_version=4)


def grading(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def questions(nb) -> list[tuple]:
    """(answer cell, test cell) pairs: each code answer followed by its graded test cell."""
    pairs = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and grading(cell).get("solution"):
            later = [c for c in nb.cells[i + 1:] if grading(c).get("grade") and not grading(c).get("solution")]
            pairs.append((cell, later[0] if later else None))
    return pairs


def split(test_source: str) -> tuple[str, str]:
    public, _, rest = test_source.partition("### BEGIN HIDDEN TESTS")
    hidden, _, after = rest.partition("### END HIDDEN TESTS")
    return public, hidden + after


def test_the_three_assignments_are_there():
    assert sorted(p.name for p in HERE.glob("a[0-9]_*") if p.is_dir()) == NAMES
    for name in NAMES:
        assert (HERE / name / f"{name}.ipynb").exists()


@pytest.mark.parametrize("name", NAMES)
def test_every_question_has_an_answer_public_tests_and_hidden_tests(name):
    nb = read(name)
    pairs = questions(nb)
    assert len(pairs) >= 3
    for answer, tests in pairs:
        assert "### BEGIN SOLUTION" in answer.source and "### END SOLUTION" in answer.source
        assert answer.source.index("### BEGIN SOLUTION") < answer.source.index("### END SOLUTION")
        assert tests is not None, answer.source[:60]
        public, hidden = split(tests.source)
        assert "assert" in public and "assert" in hidden, tests.source[:60]
        assert tests.source.count("### BEGIN HIDDEN TESTS") == tests.source.count("### END HIDDEN TESTS") == 1
        assert grading(tests)["locked"] and grading(tests)["points"] > 0


@pytest.mark.parametrize("name", NAMES)
def test_grading_metadata_is_nbgraders(name):
    cells = [c for c in read(name).cells if grading(c)]
    ids = [grading(c)["grade_id"] for c in cells]
    assert len(ids) == len(set(ids))                        # nbgrader keys cells by grade_id
    for cell in cells:
        meta = grading(cell)
        assert meta["schema_version"] == 3 and not meta["task"]
        assert not cell.outputs if cell.cell_type == "code" else True   # sources are stored without outputs
    # answers and hidden tests only where nbgrader removes them
    for cell in read(name).cells:
        meta = grading(cell)
        if "### BEGIN SOLUTION" in cell.source:
            assert meta.get("solution"), cell.source[:60]
        if "### BEGIN HIDDEN TESTS" in cell.source:
            assert meta.get("grade") and not meta.get("solution"), cell.source[:60]
    written = [c for c in cells if c.cell_type == "markdown" and grading(c).get("grade")]
    assert sum(grading(c)["points"] for c in written) == WRITTEN.get(name, 0)
    assert (HERE / name / "RUBRIC.md").exists() == (name in WRITTEN)


@pytest.mark.slow                                     # importing nbgrader takes seconds
@pytest.mark.parametrize("name", NAMES)
def test_students_version_holds_no_answer_and_no_hidden_test(name):
    """The students' version as nbgrader's `generate_assignment` makes it (its preprocessors, in
    this process, without executing anything)."""
    preprocessors = pytest.importorskip("nbgrader.preprocessors")
    nb = read(name)
    answers = [c.source.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0].strip()
               for c in nb.cells if "### BEGIN SOLUTION" in c.source]
    hidden = [split(c.source)[1].split("### END HIDDEN TESTS")[0].strip()
              for c in nb.cells if "### BEGIN HIDDEN TESTS" in c.source]
    written = [c.source for c in nb.cells if c.cell_type == "markdown" and grading(c).get("solution")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        student, _ = preprocessors.ClearSolutions().preprocess(nb, {})
        student, _ = preprocessors.ClearHiddenTests().preprocess(student, {})
    text = "\n".join(c.source for c in student.cells)
    for secret in (*SECRETS, *answers, *hidden, *written):
        assert secret not in text, secret[:80]
    assert "raise NotImplementedError()" in text
    assert not re.search(r"rubric", text, re.I)


def test_a1_hidden_tests_cover_the_edge_cases():
    sources = "\n".join(split(t.source)[1] for _, t in questions(read("a1_metrics_by_hand")))
    assert "average_precision([])" in sources and "ndcg([])" in sources           # empty lists
    assert "[0] * 7" in sources and "ndcg([0, 0, 0], k=1)" in sources             # no relevant document
    assert "rng.integers(1, 30)" in sources                                      # cutoffs beyond the lists
    assert "ties=\"average\"" in sources                                         # tied scores


def _library_check() -> str:
    """The hidden tests' check that no library does the work, the same in each question of a1."""
    sources = [split(t.source)[1] for _, t in questions(read("a1_metrics_by_hand"))]
    found = {re.search(r"# no library does the work.*?comes from rankkit\"", s, re.S).group(0) for s in sources}
    assert len(sources) == 3 and len(found) == 1
    return found.pop()


def _notebook(tmp_path, code: str) -> dict:
    """The globals of a notebook whose cells are ``code``: functions of ``__main__`` whose source
    ``inspect`` reads from a file, as IPython's kernel keeps it."""
    path = tmp_path / "cells.py"
    path.write_text(code)
    namespace = {"__name__": "__main__"}
    exec(compile(code, str(path), "exec"), namespace)
    return namespace


@pytest.mark.parametrize("code, caught", [
    ("import rankkit as rk\ndef ndcg(x):\n    return _helper(x)\ndef _helper(x):\n    return sum(x)\n", False),
    ("import rankkit as rk\ndef ndcg(x):\n    return _helper(x)\ndef _helper(x):\n    return rk.ndcg(x)\n", True),
    ("from rankkit import ndcg as my_ndcg\ndef ndcg(x):\n    return my_ndcg(x)\n", True),
    ("import rankkit.metrics as m\ndef ndcg(x):\n    return m.ndcg(x)\n", True),
])
def test_a1_reads_every_function_the_notebook_defines_for_a_library_call(tmp_path, code, caught):
    namespace = _notebook(tmp_path, code)
    check = "import inspect\nimport re\n" + _library_check()
    if caught:
        with pytest.raises(AssertionError):
            exec(check, namespace)
    else:
        exec(check, namespace)


def _finding(name: str) -> str:
    return next(c.source for c in read(name).cells if c.cell_type == "markdown" and grading(c).get("solution"))


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"[0-9][0-9,]*\.[0-9]+|[0-9],[0-9]{3}", text.replace("−", "-")))


def test_a2_reference_finding_quotes_the_collections_numbers():
    data = ROOT / "data" / "trec_eval_test"
    qrels = rk.read_qrels(data / "qrels.rel_level")
    runs = {"STANDARD": rk.read_run(data / "results.test"), "truncated": rk.read_run(data / "results.trunc")}
    metrics = ["nDCG@20", "AP", "bpref"]
    per_topic = {n: rk.evaluate(qrels, r, metrics, queries="qrels") for n, r in runs.items()}
    table = rankkit.stats.compare(qrels, runs, metrics, baseline="STANDARD", queries="qrels",
                                  test="randomization", seed=0)
    d = per_topic["truncated"]["nDCG@20"] - per_topic["STANDARD"]["nDCG@20"]
    plan = rankkit.stats.queries_needed(d, delta=0.05)
    quoted = [*(f"{v:.4f}" for t in per_topic.values() for v in t.mean()),
              *(f"{abs(v):.4f}" for v in table["diff"]),
              *(f"{per_topic[n].loc[t, 'nDCG@20']:.4f}" for n, t in [("STANDARD", "302"), ("truncated", "303"),
                                                                    ("STANDARD", "303")]),
              f"{plan.sd:.4f}", f"{plan.n_needed:,}"]
    found = _numbers(_finding("a2_comparing_runs"))
    assert set(quoted) <= found, set(quoted) - found
    assert (table["p_value"] == 1.0).all() and not table["significant"].any()     # "p = 1.0 on every metric"
    assert (per_topic["STANDARD"].loc["301"] == per_topic["truncated"].loc["301"]).all()
    assert table.loc[table["metric"] == "bpref", "diff"].iloc[0] > 0                # truncated ahead on bpref


def test_a3_reference_finding_quotes_the_experiments_numbers():
    rows = pd.read_csv(ROOT / "data" / "ltr_small.csv")
    features = ["f0", "f1", "f2", "f3", "f4"]
    train, test = rows[rows["query_id"] < "q100"], rows[rows["query_id"] >= "q100"]
    design = np.column_stack([np.ones(len(train)), train[features].to_numpy()])
    weights = np.linalg.lstsq(design, train["label"].to_numpy(), rcond=None)[0]
    x, y, q = test[features].to_numpy(), test["label"].to_numpy(), test["query_id"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = {"f0": x[:, 0], "linear": weights[0] + x @ weights[1:]}
        tables = {n: rk.evaluate_scores(y, s, q, ["nDCG@10", "AP"]).to_frame(all=False) for n, s in scores.items()}
    table = rankkit.stats.compare(None, tables, ["nDCG@10", "AP"], baseline="f0")
    plan = rankkit.stats.queries_needed(tables["linear"]["nDCG@10"] - tables["f0"]["nDCG@10"], delta=0.01)
    nd = table.iloc[0]
    quoted = [f"{tables['linear']['nDCG@10'].mean():.4f}", f"{tables['f0']['nDCG@10'].mean():.4f}",
              f"{nd['diff']:.4f}", f"{nd['ci_low']:.4f}", f"{nd['ci_high']:.4f}", f"{table.iloc[1]['diff']:.4f}",
              *(f"{abs(w):.4f}" for w in weights[1:]), f"{plan.n_needed:,}", f"{plan.detectable:.3f}"]
    found = _numbers(_finding("a3_learning_to_rank"))
    assert set(quoted) <= found, set(quoted) - found
    assert nd["p_value"] < 1e-4 and round(float(nd["effect_size"]), 2) == 0.71


def test_the_collection_is_trec_evals_test_data_unchanged():
    for name in ["qrels.test", "qrels.rel_level", "results.test", "results.trunc", "out.test", "out.test.aqc",
                 "LICENSE.md"]:
        assert (ROOT / "data" / "trec_eval_test" / name).read_bytes() == \
            (ROOT / "tests" / "data" / "trec_eval" / name).read_bytes(), name
    readme = (ROOT / "data" / "README.md").read_text()
    assert "trec_eval_test/" in readme and "ltr_small.csv" in readme and "LICENSE.md" in readme


def test_the_build_is_wired_into_make_ci_and_pyproject():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^\.PHONY:.*\bassignments\b", makefile, re.M)
    assert "notebooks/assignments/build.py build/assignments" in makefile
    assert '$(PY) -m pip install --quiet -c $(LOCK) $(EDITABLE) ".[assignments]"' in makefile
    assert "make assignments" in (ROOT / ".ci" / "run").read_text()
    assert re.search(r'^assignments = \["nbgrader>=[0-9.]+"\]', (ROOT / "pyproject.toml").read_text(), re.M)
    conftest = (HERE / "conftest.py").read_text()
    assert 'collect_ignore_glob = ["*/*.ipynb"]' in conftest                     # nbval leaves the sources alone


def test_the_build_fails_on_a_wrong_grade_or_a_leaked_answer(tmp_path):
    """build.py's verdict on the grades and the students' version (the grading itself runs in
    `make assignments`)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("assignments_build", HERE / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    (tmp_path / "a1").mkdir()
    (tmp_path / "a1" / "a1.ipynb").write_text('{"source": "raise NotImplementedError()"}')
    right = [("a1", "reference", 10.0, 10.0, 0.0, 0.0), ("a1", "unanswered", 0.0, 10.0, 0.0, 0.0)]
    assert build.check(right, tmp_path) == []
    assert build.check([("a1", "reference", 9.0, 10.0, 0.0, 0.0)], tmp_path) == [
        "a1: the reference solution gets 9 of 10 points"]
    assert build.check([("a1", "unanswered", 2.0, 10.0, 0.0, 0.0)], tmp_path) == [
        "a1: the unanswered submission gets 2 points"]
    assert build.check([("a1", "reference", 0.0, 0.0, 0.0, 0.0)], tmp_path)[0] == "a1: no automatically graded points"
    (tmp_path / "a1" / "RUBRIC.md").write_text("# rubric")
    (tmp_path / "a1" / "a1.ipynb").write_text("### BEGIN HIDDEN TESTS")
    assert build.check(right, tmp_path) == ["a1/a1.ipynb: 'BEGIN HIDDEN TESTS' in the students' version",
                                            "a1/RUBRIC.md: the rubric in the students' version"]
    assert build.assignments() == NAMES
