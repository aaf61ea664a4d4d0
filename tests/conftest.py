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
``make test-fast``; ``pytest -m oracle tests`` runs the peers' checks alone. A file that ``-m``
deselects whole by the markers of its name (the notebooks, the Dask files, the peer files) is
not even collected, so its imports cost nothing; after collection what it created is frozen
out of the garbage collector's passes (``gc.freeze``).
"""

import gc
import inspect
import itertools
import os
import re
import types
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

try:  # how pytest reads ``-m`` (private: without it every file is collected, then deselected)
    from _pytest.mark import expression as _expression
    from _pytest.mark.expression import Expression
except ImportError:  # pragma: no cover
    _expression = Expression = None

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
PEER_NAMES = re.compile(r"pytrec|ir_measures|cwl|sklearn|scikit|scipy|statsmodels|pyarrow|torch|pyndeval")

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
    "test_fusion.py::test_equal_to_ranx_on_random_runs",  # ranx's numba kernels compile: 11 s
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


def _file_markers(path: Path) -> list[str]:
    """The markers that every test of the file ``path`` gets, from the file alone."""
    path = path.resolve()
    where = path.relative_to(_ROOT).as_posix() if path.is_relative_to(_ROOT) else path.name
    marks = []
    if path.suffix == ".ipynb" or path.name in NOTEBOOK_FILES:
        marks.append("notebook")
    if where in DASK_FILES:
        marks.append("dask")
    if path.name in ORACLE_FILES:
        marks.append("oracle")
    return marks


def _markers(item: pytest.Item) -> list[str]:
    """The markers of one collected test, from its file and its name."""
    path = Path(item.path)
    # the test's name in its file, with its class and without its parameters
    name = item.nodeid.split("::", 1)[-1].split("[", 1)[0]
    function = name.rsplit("::", 1)[-1]
    marks = _file_markers(path)
    if function in NOTEBOOK_TESTS and "notebook" not in marks:
        marks.insert(0, "notebook")
    sweep = getattr(getattr(item, "obj", None), "is_hypothesis_test", False)
    if sweep and PEER_NAMES.search(name.lower()) and "oracle" not in marks:
        marks.append("oracle")
    if f"{path.name}::{name}" in SLOW_TESTS or _starts_processes(item):
        marks.append("slow")
    return marks


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every collected test (nbval's cells and doctests included) by file and name."""
    for item in items:
        for mark in _markers(item):
            item.add_marker(mark)


def _may_match(expression: "Expression", marks: list[str]) -> bool:
    """Whether a test that carries ``marks`` can match the ``-m`` expression, whatever other
    markers it carries: every yes and no of the other names the expression asks about is tried
    (a name asked with arguments, ``slow(reason=...)``, counts as another name)."""
    asked: set[str] = set()

    def matcher(others: frozenset[str]):
        def match(name: str, /, **kwargs: object) -> bool:
            key = f"{name}{sorted(kwargs.items())}" if kwargs else name
            if key in marks:
                return True
            asked.add(key)
            return key in others
        return match

    tried: set[frozenset[str]] = set()
    untried = [frozenset()]
    while untried:
        for others in untried:
            tried.add(others)
            if expression.evaluate(matcher(others)):
                return True
        names = sorted(asked)
        untried = [subset for n in range(len(names) + 1)
                   for subset in map(frozenset, itertools.combinations(names, n)) if subset not in tried]
    return False


class _LeaveOutFiles:
    """Leaves uncollected a file whose every test ``-m`` deselects by the file's markers alone
    (``make test-fast``: the notebooks, tests/test_dask.py and rankkit/dask.py, the peer files):
    importing it (Dask, nbconvert, a peer) would cost seconds for tests that are not run."""

    def __init__(self, expression: "Expression") -> None:
        self.expression = expression

    def pytest_ignore_collect(self, collection_path: Path) -> bool | None:
        marks = _file_markers(collection_path)
        return True if marks and not _may_match(self.expression, marks) else None


def pytest_configure(config: pytest.Config) -> None:
    """With ``-m``, leave out the files it deselects whole (a plugin: conftest hooks would
    see only tests/, not rankkit/dask.py)."""
    markexpr = config.getoption("markexpr", "")
    if not markexpr or Expression is None:
        return
    try:
        expression = Expression.compile(markexpr)
    except (SyntaxError, getattr(_expression, "ParseError", SyntaxError)):  # pytest says what is wrong
        return
    config.pluginmanager.register(_LeaveOutFiles(expression), "rankkit-leave-out-files")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Put what collection created (the modules, their data and parameters: some 400,000
    objects) out of the garbage collector's reach: its full passes during the run skip them,
    about 1 s of CPU in ``make test-fast``. Objects the tests create are collected as before."""
    gc.freeze()
