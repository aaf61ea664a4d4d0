"""Settings shared by every test: the Hypothesis profiles, and the markers that let
``make test-fast`` leave out what needs a kernel, a cluster, a peer library or seconds.

The markers are declared (with a description each) in pyproject.toml's pytest section and
assigned here, by file and by test name, so that no test file has to name them:

- ``notebook``: the notebooks: nbval's cells, the checks of their teaching content and of the
  students' copies (each run in a kernel), an explorer run in a notebook.
- ``dask``: starts a Dask ``LocalCluster`` or needs dask and distributed.
- ``oracle``: a sweep against a live peer: every Hypothesis test whose name (or class) names
  pytrec_eval, ir_measures, cwl_eval, scikit-learn, SciPy, statsmodels or pyarrow, and every
  test of the files that compare with pytrec_eval and the trec_eval binary. Checks against a
  peer on fixed examples stay in the fast loop (they take milliseconds).
- ``slow``: a test that takes a second or more on a 2-core machine (``--durations``), or
  whose own code starts fresh Python processes (``subprocess``, ``sys.executable``: to check
  exit statuses, messages and what an import loads; each start costs an interpreter's).

Select with ``-m``: ``pytest -m "not notebook and not dask and not oracle and not slow"`` is
``make test-fast``; ``pytest -m oracle tests`` runs the peers' checks alone.
"""

import inspect
import os
import re
import types
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# `make test` runs half of Hypothesis' default 100 examples (tests/sweeps.py scales the sweeps
# that set their own number alike), which keeps it within its CPU budget: deterministic in CI
# (the same examples every run, no database), new ones each time in a developer's run ("dev").
settings.register_profile(
    "ci", max_examples=50, derandomize=True, database=None, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# The edit loop (`make test-fast`, --hypothesis-profile=fast): the same sweeps, derandomized,
# with a tenth of the examples; `make test` runs them whole.
settings.register_profile(
    "fast", max_examples=10, derandomize=True, database=None, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

#: Files whose every test is about the notebooks (their content, their students' copies).
NOTEBOOK_FILES = {"test_notebooks_teaching.py"}
#: Tests in other files that execute a notebook in a kernel.
NOTEBOOK_TESTS = {"test_executed_notebook_has_one_output_per_explorer"}

#: Files whose every test (or doctest) needs dask and distributed.
DASK_FILES = {"tests/test_dask.py", "rankkit/dask.py"}

#: Files whose every test compares rankkit with a live peer.
ORACLE_FILES = {
    "test_pytrec_eval_random.py",  # pytrec_eval on random runs and its fixed examples
    "test_trec_eval_binary.py",    # the trec_eval binary, byte for byte (skipped without it)
}
#: A Hypothesis sweep whose name (or class name) names one of these peers is an oracle sweep.
PEER_NAMES = re.compile(r"pytrec|ir_measures|cwl|sklearn|scikit|scipy|statsmodels|pyarrow|torch")

#: The longest tests (``--durations``: a second or more on a quiet 2-core machine, or close to
#: it), as file::name.
SLOW_TESTS = {
    "test_parsing.py::TestFiles::test_exit_right_after_an_error_never_aborts",  # 24 interpreters
    "test_parsing.py::TestNumbers::test_the_first_bad_line_is_named",  # an interpreter per bad line
    "test_parsing.py::test_every_path_reads_every_file_like_the_reference",  # every reading path
    "test_same_numbers.py::test_same_bits_whatever_simd_target_or_blas_kernel",  # per CPU target
    "test_stream.py::test_trec_eval_lines_are_the_same_in_blocks",  # a sweep over block sizes
    "test_stream.py::test_streaming_equals_in_memory",  # a sweep over block sizes
    "test_inputs.py::test_every_shape_equals_the_frame",  # a sweep over every input shape
    "test_explore.py::test_widget_callbacks_update_the_numbers_and_the_picture",  # every figure
    "test_plot.py::test_pr_curve_frame_and_array_of_rankkit_agree_with_trec_eval_iprec",
    "test_plot.py::test_per_query_differences_properties",  # sweeps that draw a figure per example
    "test_plot.py::test_pr_curve_textbook_frame_is_the_highest_precision_at_recall_at_least_l",
    "test_plot.py::test_rbp_persistence_equals_rankkit_rbp_at_every_p",
    "test_parsing.py::test_line_blocks_are_the_bytes_in_whole_lines",  # a sweep over block sizes
    "test_io.py::test_file_dict_and_frame_paths_agree",  # a sweep through files, dicts and frames
    "test_layers.py::test_no_engine_name_loads_teaching",  # every module, Dask's included, imported
    "test_plot.py::test_mrr_top_k_labels_clear_of_every_line",  # a figure drawn per label position
    "test_plot.py::test_rbp_crossings_of_mean_curves_and_three_systems",  # three systems' curves drawn
    "test_plot.py::test_every_multi_series_figure_styles_its_series_by_system_styles",  # every figure drawn
    "test_model_scores.py::test_arrays_of_two_libraries_are_refused",  # imports JAX
    "test_parsing.py::TestRunTag::test_tag_over_a_block_boundary",  # a sweep over block sizes
}

_ROOT = Path(__file__).resolve().parent.parent


def _names(code: types.CodeType) -> set[str]:
    """The global and attribute names a code object and the functions inside it use."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _starts_processes(item: pytest.Item) -> bool:
    """Whether the test's own code, or a function of its file that it calls (a helper such
    as test_startup's ``entry_point``), starts a process (not its fixtures')."""
    function = getattr(item, "obj", None)
    inner = getattr(getattr(function, "hypothesis", None), "inner_test", None)
    function = inspect.unwrap(inner or function) if callable(function) else None
    code = getattr(function, "__code__", None)
    if code is None:
        return False
    names, seen = _names(code), {code}
    for name in list(names):
        helper = function.__globals__.get(name)
        helper_code = getattr(helper, "__code__", None)
        if helper_code is not None and helper_code not in seen and helper.__module__ == function.__module__:
            seen.add(helper_code)
            names |= _names(helper_code)
    return bool(names & {"subprocess", "executable", "Popen"})


def _markers(item: pytest.Item) -> list[str]:
    """The markers of one collected test, from its file and its name."""
    path = Path(item.path).resolve()
    where = path.relative_to(_ROOT).as_posix() if path.is_relative_to(_ROOT) else path.name
    # the test's name in its file, with its class and without its parameters
    name = item.nodeid.split("::", 1)[-1].split("[", 1)[0]
    function = name.rsplit("::", 1)[-1]
    marks = []
    if path.suffix == ".ipynb" or path.name in NOTEBOOK_FILES or function in NOTEBOOK_TESTS:
        marks.append("notebook")
    if where in DASK_FILES:
        marks.append("dask")
    sweep = getattr(getattr(item, "obj", None), "is_hypothesis_test", False)
    if path.name in ORACLE_FILES or (sweep and PEER_NAMES.search(name.lower())):
        marks.append("oracle")
    if f"{path.name}::{name}" in SLOW_TESTS or _starts_processes(item):
        marks.append("slow")
    return marks


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every collected test (nbval's cells and doctests included) by file and name."""
    for item in items:
        for mark in _markers(item):
            item.add_marker(mark)
