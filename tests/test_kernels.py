"""Each metric is written once: one kernel, named by its record, run on every array library.

The records (:mod:`rankkit.names.records`) name each metric's function; these tests list
where each one lives and check that no other module of the package defines a function of
the same metric (the copies a second backend used to need), that the kernels of the records
marked ``any_library`` are the only ones ``evaluate_scores`` runs on another library, and
that no metric is chosen by its name outside its record.
"""

from __future__ import annotations

import ast
import functools
import inspect
from pathlib import Path

import pytest

import rankkit as rk
from rankkit.names import REGISTRY

PACKAGE = Path(rk.__file__).resolve().parent


@functools.cache
def _functions() -> dict[str, set[str]]:
    """Function name (without leading underscores) -> the modules defining one of that name."""
    homes: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if "plot" in path.parts or "teaching" in path.parts:  # figures and lessons compute nothing of their own
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                homes.setdefault(node.name.lstrip("_"), set()).add(str(path.relative_to(PACKAGE)))
    return homes


def _kernel(info) -> object:
    """The function a record computes its metric with (through an adapter of the records
    module, the function that adapter calls; a recommender measure's, ``func`` None in its
    record, is ``rk.<name>``)."""
    func = info.func if info.func is not None else getattr(rk.recommender, info.name)
    return inspect.unwrap(func)


def test_each_record_names_one_kernel_in_one_module():
    kernels = {}
    for name, info in REGISTRY.items():
        func = _kernel(info)
        module = inspect.getmodule(func).__name__
        if info.judgments == "interactions":  # a recommender's lists: rankkit.recommender, a layer above
            assert module == "rankkit.recommender", (name, module)
        else:
            assert module.startswith("rankkit.metrics.") or module == "rankkit.names.records", (name, module)
        kernels[name] = f"{module}.{func.__name__}"
    # the list, for a reader: every metric and where its kernel is
    assert kernels["nDCG"] == "rankkit.metrics.graded.ndcg"
    assert kernels["AP"] == "rankkit.metrics.binary.average_precision"
    assert kernels["AUC"] == "rankkit.metrics.pairwise.auc"
    assert kernels["LRAP"] == "rankkit.metrics.label_ranking.lrap"
    assert kernels["MSE"] == "rankkit.metrics.unranked.mse"


STEMS = ("precision", "recall", "success", "average_precision", "fallout", "lrap", "reciprocal_rank",
         "cumulative_gain", "dcg", "ndcg", "rbp", "err", "auc", "gauc", "pnr", "pair_counts",
         "mann_whitney", "mse", "mae")


@pytest.mark.parametrize("stem", STEMS)
def test_no_metric_has_a_second_formula_elsewhere(stem):
    homes = _functions().get(stem, set())
    assert len(homes) <= 1, f"{stem} is defined in {sorted(homes)}: one kernel per metric"


def test_no_module_chooses_a_metric_by_its_name():
    """Outside the records, no code compares a metric's name with a string literal of a
    metric of model scores (the name dispatch that let a new metric fall through)."""
    names = {"AUC", "GAUC", "PNR", "MSE", "MAE"}
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "records.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(
                    isinstance(c, ast.Constant) and c.value in names for c in [node.left, *node.comparators]):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
            if isinstance(node, ast.Compare) and any(
                    isinstance(c, (ast.Tuple, ast.Set, ast.List))
                    and {getattr(e, "value", None) for e in c.elts} & names for c in node.comparators):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []


def test_the_metrics_of_model_scores_carry_their_rules():
    for name, info in REGISTRY.items():
        if info.scores:
            assert info.per_query is not None and info.total is not None, name
            assert info.any_library, name
    assert REGISTRY["AUC"].left_out and REGISTRY["PNR"].left_out and not REGISTRY["MSE"].left_out


def test_only_the_any_library_kernels_run_on_another_library():
    xs = pytest.importorskip("array_api_strict")
    labels, scores, query = xs.asarray([1.0, 0.0, 2.0]), xs.asarray([0.3, 0.2, 0.1]), xs.asarray([1, 1, 1])
    for name, info in REGISTRY.items():
        if info.kind == "str" or info.required or info.judgments != "qrels":  # others: refused before (test_prefs)
            continue
        spec = name
        if info.any_library:
            table = rk.evaluate_scores(labels, scores, query, [spec], ties="optimistic")
            assert type(table[spec]).__module__.startswith("array_api_strict"), name
        else:
            with pytest.raises(ValueError, match="is not computed on arrays other than NumPy's"):
                rk.evaluate_scores(labels, scores, query, [spec])
