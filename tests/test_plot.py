"""Tests of rankkit.plot: assert on the plotted data, labels and errors, never on pixels."""

import matplotlib

matplotlib.use("Agg")

import subprocess  # noqa: E402
import sys  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import arrays  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from sweeps import sweep

import rankkit as rk  # noqa: E402
import rankkit.plot as rkplot  # noqa: E402

#: The cutoffs whose uniform MRR (0.611, 0.456, 0.293) Jason's notes print, marked in the lesson.
NOTES_KS = (3, 5, 10)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def lines_by_label(ax):
    return {line.get_label(): line.get_xydata() for line in ax.lines}


def legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def implemented(fn, *args, **kwargs):
    """Call a concurrently written rankkit function; skip while it is still a stub."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        pytest.skip(f"{fn.__name__} not implemented yet")


def curve_frame(labels, n_relevant=None):
    """A single-query DataFrame with rankkit.pr_curve's columns, computed by hand."""
    labels = np.asarray(labels, dtype=float)
    rel = labels >= 1
    hits = np.cumsum(rel)
    ranks = np.arange(1, labels.size + 1)
    precision = hits / ranks
    R = rel.sum() if n_relevant is None else n_relevant
    recall = hits / R if R else np.zeros(labels.size)
    interp = np.maximum.accumulate(precision[::-1])[::-1]
    return pd.DataFrame({"rank": ranks, "relevant": rel, "precision": precision,
                         "recall": recall, "interpolated_precision": interp})


# --------------------------------------------------------------------------- module hygiene


def test_importing_rankkit_does_not_import_pyplot():
    code = "import sys, rankkit; print('matplotlib.pyplot' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_importing_rankkit_plot_does_not_import_pyplot_either():
    code = "import sys, rankkit.plot; print('matplotlib.pyplot' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


#: Every name of rankkit.plot when it was one module that code outside it may use.
SINGLE_MODULE_NAMES = (
    "pr_curve", "pr_sawtooth", "metric_at_k", "system_colors", "system_styles", "PALETTE", "MARKERS",
    "LINESTYLES", "per_query_differences", "rbp_persistence", "rbp_crossings", "err_cascade",
    "err_cascade_table", "gain_discount", "STANDARD_DISCOUNT", "jk_discount_label", "roc_curve", "mrr_top_k",
    "uniform_mrr", "uniform_k_for_mrr", "smallest_k_for_mrr", "UNREACHED",
)


def test_the_package_keeps_every_name_of_the_single_module():
    assert [name for name in SINGLE_MODULE_NAMES if not hasattr(rkplot, name)] == []
    assert sorted(rkplot.__all__) == sorted(n for n in SINGLE_MODULE_NAMES if n != "UNREACHED")
    # a lesson's example is not a figure's default, nor a private helper a public name
    assert not hasattr(rkplot, "SOURCE_002_KS") and not hasattr(rkplot, "_series_kwargs")


def test_plot_modules_import_down_only():
    """A figure module takes metrics, their operations, validation, rankings and the shared style; style takes
    none of its siblings: no import circle, nothing from evaluation, stats, report or the CLI."""
    import ast
    from pathlib import Path

    allowed = ("rankkit.metrics", "rankkit.ops", "rankkit._validation", "rankkit.rankings", "rankkit.plot.style")
    for path in sorted(Path(rkplot.__file__).parent.glob("*.py")):
        if path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                target = ("rankkit.plot" if node.level == 1 else "rankkit") + (f".{node.module}" if node.module else "")
                assert target.startswith(allowed), f"{path.name} imports {target}"
                assert not (path.name == "style.py" and target.startswith("rankkit.plot")), path.name


def test_no_global_state_changed():
    before = dict(matplotlib.rcParams)
    rkplot.mrr_top_k(target=0.3)
    rkplot.per_query_differences(pd.Series({"a": 1.0, "b": -1.0}))
    assert dict(matplotlib.rcParams) == before


@pytest.mark.parametrize(
    "call",
    [
        lambda ax: rkplot.pr_curve(curve_frame([1, 0, 1]), ax=ax),
        lambda ax: rkplot.metric_at_k(pd.DataFrame({"A": [0.1, 0.2]}, index=[1, 2]), ax=ax),
        lambda ax: rkplot.per_query_differences(pd.Series({"q1": 0.5}), ax=ax),
        lambda ax: rkplot.rbp_persistence([1, 0, 1], ax=ax),
        lambda ax: rkplot.mrr_top_k(ax=ax),
    ],
)
def test_every_function_draws_on_the_given_axes_and_returns_it(call):
    fig, (left, right) = plt.subplots(1, 2)
    out = call(right)
    assert out is right and isinstance(out, Axes)
    assert not left.lines and not left.patches and out.get_title()
    n_figs = len(plt.get_fignums())
    assert isinstance(call(None), Axes)
    assert len(plt.get_fignums()) == n_figs + 1  # ax=None opens exactly one new figure


# --------------------------------------------------------------------------- pr_curve


def test_pr_curve_single_query_raw_points_are_the_rows():
    df = curve_frame([1, 0, 1, 0])
    ax = rkplot.pr_curve(df, interpolated=False)
    np.testing.assert_allclose(ax.lines[0].get_xydata(), df[["recall", "precision"]].to_numpy())
    assert ax.get_xlabel() == "recall" and ax.get_ylabel() == "precision"
    assert ax.get_legend() is None  # one unnamed curve: no legend


def test_pr_curve_interpolated_uses_the_interpolated_column_and_starts_at_recall_0():
    df = curve_frame([1, 0, 1, 0])
    ax = rkplot.pr_curve(df)
    xy = ax.lines[0].get_xydata()
    np.testing.assert_allclose(xy[0], [0.0, 1.0])
    np.testing.assert_allclose(xy[1:], df[["recall", "interpolated_precision"]].to_numpy())
    assert ax.lines[0].get_drawstyle() == "steps-pre"
    assert ax.get_ylabel() == "interpolated precision"


def test_pr_curve_interpolates_a_frame_without_the_column_and_tuples_by_recall():
    df = curve_frame([0, 1, 0, 1, 1]).drop(columns="interpolated_precision")
    ax = rkplot.pr_curve(df)
    # precisions 0, 1/2, 1/3, 1/2, 3/5 at recalls 0, 1/3, 1/3, 2/3, 1: max at recall >= each
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.6, 0.6, 0.6, 0.6, 0.6, 0.6])
    # a (recall, precision) tuple in any order, e.g. sklearn's decreasing recall
    ax = rkplot.pr_curve((np.array([1.0, 0.5, 0.5, 0.0]), np.array([0.5, 2 / 3, 1.0, 1.0])))
    np.testing.assert_allclose(ax.lines[0].get_xydata(),
                               [[0, 1], [0, 1], [0.5, 1], [0.5, 1], [1, 0.5]])


def test_pr_curve_several_systems_in_dict_order_with_legend():
    curves = {
        "frame": curve_frame([1, 0, 1]),
        "tuple": ([0.5, 1.0], [1.0, 0.5]),
        "levels": np.linspace(1, 0, 11),
        "levels 2-D": np.array([np.ones(11), np.zeros(11)]),
    }
    ax = rkplot.pr_curve(curves)
    assert len(ax.lines) == 4
    assert legend_texts(ax) == list(curves)
    levels = np.linspace(0, 1, 11)
    np.testing.assert_allclose(ax.lines[2].get_xydata(), np.column_stack([levels, np.linspace(1, 0, 11)]))
    np.testing.assert_allclose(ax.lines[3].get_ydata(), np.full(11, 0.5))  # mean over queries
    np.testing.assert_allclose(ax.lines[1].get_xydata(), [[0, 1], [0.5, 1], [1, 0.5]])


def test_pr_curve_levels_need_not_be_eleven():
    ax = rkplot.pr_curve({"A": [1.0, 0.5, 0.25]})
    np.testing.assert_allclose(ax.lines[0].get_xydata(), [[0, 1], [0.5, 0.5], [1, 0.25]])


LEVELS = np.arange(11) / 10


def test_pr_curve_multi_query_frame_is_the_eleven_point_average_by_hand():
    q1 = curve_frame([1, 0, 1, 0]).assign(query_id="q1")  # R = 2: ranks 1, 3
    q2 = curve_frame([0, 1]).assign(query_id="q2")  # R = 1: rank 2
    df = pd.concat([q1, q2])[["query_id", "rank", "relevant", "precision", "recall", "interpolated_precision"]]
    # trec_eval 10: level l needs round(l * R) relevant documents; q1 needs its 2nd (precision
    # 2/3) from l * 2 >= 1.5, i.e. l >= 0.8; below, its best is 1.0. q2: 0.5 at every level.
    ax = rkplot.pr_curve(df, rounding="nearest")
    expected = np.where(LEVELS < 0.75, (1 + 0.5) / 2, (2 / 3 + 0.5) / 2)
    np.testing.assert_allclose(ax.lines[0].get_xydata(), np.column_stack([LEVELS, expected]))
    # trec_eval 9: (long)(l * 2 + 0.9) >= 2 from l >= 0.55
    ax = rkplot.pr_curve(df, rounding="plus_0.9")
    np.testing.assert_allclose(ax.lines[0].get_ydata(), np.where(LEVELS < 0.55, 0.75, (2 / 3 + 0.5) / 2))
    # the textbook (the default), and any rounding without the relevant column: a level is
    # reached where recall >= level
    textbook = np.where(LEVELS <= 0.5, 0.75, (2 / 3 + 0.5) / 2)
    np.testing.assert_allclose(rkplot.pr_curve(df).lines[0].get_ydata(), textbook)
    ax = rkplot.pr_curve(df.drop(columns="relevant"), rounding="nearest")
    np.testing.assert_allclose(ax.lines[0].get_ydata(), textbook)


def test_pr_curve_unreached_levels_score_zero_and_a_query_without_relevant_scores_zero():
    q1 = curve_frame([1, 0, 0], n_relevant=2).assign(query_id=1)  # recall stops at 0.5
    q2 = curve_frame([0, 0]).assign(query_id=2)  # no relevant document: recall 0
    ax = rkplot.pr_curve(pd.concat([q1, q2]), rounding="nearest")
    # q1 reaches the levels with round(2 l) <= 1 (l <= 0.7) with precision 1; q2 scores 0
    np.testing.assert_allclose(ax.lines[0].get_ydata(), np.where(LEVELS <= 0.7, 0.5, 0.0))
    ax = rkplot.pr_curve(pd.concat([q1, q2]).drop(columns="relevant"))
    np.testing.assert_allclose(ax.lines[0].get_ydata(), np.where(LEVELS <= 0.5, 0.5, 0.0))
    ax = rkplot.pr_curve(pd.concat([q1, q2]))  # textbook: recall >= l
    np.testing.assert_allclose(ax.lines[0].get_ydata(), np.where(LEVELS <= 0.5, 0.5, 0.0))


@settings(max_examples=sweep(60))
@given(
    arrays(np.int8, st.tuples(st.integers(1, 6), st.integers(1, 15)), elements=st.integers(0, 2)),
    st.sampled_from(["nearest", "plus_0.9"]),
)
def test_pr_curve_frame_and_array_of_rankkit_agree_with_trec_eval_iprec(labels, rounding):
    """The multi-query frame of rk.pr_curve and rk.interpolated_precision give one curve."""
    frame = implemented(rk.pr_curve, labels)
    iprec = implemented(rk.interpolated_precision, labels, rounding=rounding)
    ax = rkplot.pr_curve({"frame": frame, "array": iprec}, rounding=rounding)
    if labels.shape[0] > 1:
        np.testing.assert_allclose(ax.lines[0].get_ydata(), iprec.mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(ax.lines[1].get_ydata(), iprec.mean(axis=0), atol=1e-12)
    plt.close("all")


def test_pr_curve_of_rankkit_single_query_frame():
    frame = implemented(rk.pr_curve, [1, 0, 1, 1, 1, 1, 0, 0, 0, 1])  # source 002, ranking 1
    ax = rkplot.pr_curve(frame)
    xy = ax.lines[0].get_xydata()
    assert xy.shape == (11, 2)
    np.testing.assert_allclose(xy[1:, 0], frame["recall"])
    np.testing.assert_allclose(xy[-1], [1.0, 0.6])


@pytest.mark.parametrize(
    "curves, kwargs, match",
    [
        (pd.DataFrame({"recall": [1.0]}), {}, r"curves must have columns 'recall' and 'precision'.*\['precision'\]"),
        ({"A": pd.DataFrame({"precision": [1.0]})}, {}, r"curves\['A'\] must have columns"),
        (pd.DataFrame({"query_id": [1, 2], "precision": [1.0, 1.0], "recall": [1.0, 1.0]}),
         {"interpolated": False}, "holds 2 queries.*interpolated=True"),
        (np.linspace(1, 0, 11), {"interpolated": False}, "interpolated precisions; pass interpolated=True"),
        (([0.5, 1.0], [1.0]), {}, "equal length, got 2 and 1"),
        (np.ones((2, 2, 2)), {}, r"shape \(2, 2, 2\)"),
        ([1.0], {}, r">= 2 recall levels"),
        ({}, {}, "curves must not be empty"),
        ("abc", {}, "curves must be a DataFrame"),
        ({"A": [1.0, np.nan]}, {}, r"curves\['A'\] must be finite"),
        (([0.5, np.inf], [1.0, 1.0]), {}, "recall must be finite"),
        (pd.DataFrame({"precision": [], "recall": []}), {}, "curves is empty"),
        (np.ones(11), {"interpolated": "yes"}, "interpolated must be True or False"),
        (np.ones(11), {"rounding": "up"}, "rounding must be one of 'textbook', 'nearest', 'plus_0.9', got 'up'"),
    ],
)
def test_pr_curve_errors(curves, kwargs, match):
    with pytest.raises(ValueError, match=match):
        rkplot.pr_curve(curves, **kwargs)


# --------------------------------------------------------------------------- metric_at_k


def test_metric_at_k_dataframe_one_line_per_column_sorted_by_k():
    table = pd.DataFrame({"BM25": [0.5, 0.4, 0.45], "dense": [0.53, 0.5, 0.52]}, index=[10, 1, 5])
    ax = rkplot.metric_at_k(table, metric="nDCG")
    assert lines_by_label(ax).keys() == {"BM25", "dense"}
    np.testing.assert_allclose(ax.lines[0].get_xydata(), [[1, 0.4], [5, 0.45], [10, 0.5]])
    np.testing.assert_allclose(ax.lines[1].get_ydata(), [0.5, 0.52, 0.53])
    assert [line.get_marker() for line in ax.lines] == ["o", "s"]  # one marker per system
    assert [line.get_linestyle() for line in ax.lines] == ["-", "--"]
    assert legend_texts(ax) == ["BM25", "dense"]
    assert ax.get_ylabel() == "nDCG@k" and ax.get_xlabel() == "k (cutoff)"
    assert ax.get_title() == "nDCG@k by cutoff"


def test_metric_at_k_dict_of_series_with_different_ks_and_a_named_series():
    ax = rkplot.metric_at_k({"A": pd.Series({1: 1.0, 3: 0.5}), "B": {2: 0.25, 4: 0.75}}, marker="s")
    np.testing.assert_allclose(lines_by_label(ax)["A"], [[1, 1.0], [3, 0.5]])
    np.testing.assert_allclose(lines_by_label(ax)["B"], [[2, 0.25], [4, 0.75]])
    assert [line.get_marker() for line in ax.lines] == ["s", "s"] and ax.get_ylabel() == "metric@k"
    assert [line.get_linestyle() for line in ax.lines] == ["-", "--"]  # marker= leaves line styles apart
    ax = rkplot.metric_at_k(pd.Series([0.2, 0.3], index=[5, 10], name="P"))
    assert legend_texts(ax) == ["P"]
    ax = rkplot.metric_at_k(pd.Series([0.2, 0.3], index=[5, 10]), metric="P")
    assert ax.get_legend() is None and ax.lines[0].get_label() == "P@k"


@pytest.mark.parametrize(
    "values, match",
    [
        ([0.1, 0.2], "values must be a DataFrame indexed by k"),
        ({}, "values must not be empty"),
        (pd.DataFrame(index=[1, 2]), "at least one column"),
        ({"A": pd.Series([], dtype=float)}, r"values\['A'\] is empty"),
        (pd.DataFrame({"A": [0.1]}, index=["x"]), r"values\['A'\] must hold numbers indexed by numeric k"),
    ],
)
def test_metric_at_k_errors(values, match):
    with pytest.raises(ValueError, match=match):
        rkplot.metric_at_k(values)


# --------------------------------------------------------------------------- per_query_differences


def test_per_query_differences_sorted_bars_colours_and_mean():
    system = pd.Series({"q1": 0.5, "q2": 0.2, "q3": 0.9, "q4": 0.1})
    baseline = pd.Series({"q4": 0.4, "q3": 0.7, "q2": 0.2, "q1": 0.6})  # other order: aligned by id
    ax = rkplot.per_query_differences(system, baseline, system_name="new", baseline_name="old", metric="AP")
    heights = [b.get_height() for b in ax.containers[0]]
    np.testing.assert_allclose(heights, [0.2, 0.0, -0.1, -0.3])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["q3", "q2", "q1", "q4"]
    assert [b.get_gid() for b in ax.containers[0]] == ["q3", "q2", "q1", "q4"]
    colours = [matplotlib.colors.to_hex(b.get_facecolor()) for b in ax.containers[0]]
    assert colours == ["#0072b2", "#999999", "#d55e00", "#d55e00"]  # blue better, grey tied, vermillion worse
    mean = (0.2 + 0 - 0.1 - 0.3) / 4
    lines = lines_by_label(ax)
    np.testing.assert_allclose(lines["zero"][:, 1], 0.0)
    np.testing.assert_allclose(lines[f"mean difference = {mean:+.4f}"][:, 1], mean)
    assert legend_texts(ax) == ["mean difference = -0.0500"]
    assert not ax.texts  # no text over the bars: the mean is in the legend
    assert ax.get_title() == "Per-query difference: new − old"
    assert ax.get_ylabel() == "AP difference (new − old)"
    assert ax.get_xlabel() == "query (sorted; 1 better, 2 worse, 1 tied)"


def test_per_query_differences_of_given_differences_dict_and_arrays():
    ax = rkplot.per_query_differences({"a": -1.0, "b": 2.0})
    assert [b.get_height() for b in ax.containers[0]] == [2.0, -1.0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["b", "a"]
    ax = rkplot.per_query_differences(np.array([0.3, 0.1]), np.array([0.1, 0.2]))  # by position
    np.testing.assert_allclose([b.get_height() for b in ax.containers[0]], [0.2, -0.1])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1"]


def test_per_query_differences_matches_evaluate_style_frames():
    a = pd.DataFrame({"AP": [0.5, 0.25]}, index=pd.Index(["x", "y"], name="query_id"))
    b = pd.DataFrame({"AP": [0.25, 0.5]}, index=pd.Index(["y", "x"], name="query_id"))
    ax = rkplot.per_query_differences(a, b)
    np.testing.assert_allclose([r.get_height() for r in ax.containers[0]], [0.0, 0.0])


def test_per_query_differences_hides_but_keeps_many_query_labels():
    rng = np.random.default_rng(0)
    diff = pd.Series(rng.normal(size=100), index=[f"q{i}" for i in range(100)])
    ax = rkplot.per_query_differences(diff, max_labels=40)
    heights = np.array([b.get_height() for b in ax.containers[0]])
    np.testing.assert_allclose(heights, np.sort(diff.to_numpy())[::-1])
    queries = [b.get_gid() for b in ax.containers[0]]
    np.testing.assert_allclose(diff[queries].to_numpy(), heights)  # query of each bar readable
    assert ax.get_xticklabels() == [] and len(ax.get_xticks()) == 0
    np.testing.assert_allclose(ax.lines[1].get_ydata(), diff.mean())


@settings(max_examples=sweep(50))
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=30))
def test_per_query_differences_properties(values):
    diff = pd.Series(values, index=[f"q{i}" for i in range(len(values))])
    ax = rkplot.per_query_differences(diff)
    heights = np.array([b.get_height() for b in ax.containers[0]])
    assert len(heights) == len(values)
    assert np.all(np.diff(heights) <= 0)
    np.testing.assert_allclose(np.sort(heights), np.sort(values))
    np.testing.assert_allclose(ax.lines[1].get_ydata()[0], np.mean(values))
    plt.close("all")


@pytest.mark.parametrize(
    "system, baseline, kwargs, match",
    [
        (pd.Series({"q1": 1.0, "q2": 1.0}), pd.Series({"q2": 1.0, "q3": 1.0}), {},
         r"same queries; missing from baseline: \['q1'\]; missing from system: \['q3'\]"),
        (pd.Series({"q1": 1.0}), pd.Series({"q1": 1.0, "q9": 0.0}), {}, r"missing from system: \['q9'\]$"),
        (pd.Series([1.0, 2.0], index=["a", "a"]), None, {}, r"system has duplicate query ids: \['a'\]"),
        (pd.Series({"a": 1.0}), pd.Series({"a": np.nan}), {}, "baseline must be finite"),
        (pd.Series(dtype=float), None, {}, "system is empty"),
        (pd.DataFrame({"A": [1.0], "B": [1.0]}), None, {}, r"\(or one-column DataFrame\), got 2 columns"),
        (pd.Series({"a": 1.0}), None, {"max_labels": -1}, "max_labels must be a non-negative integer"),
        (["x"], None, {}, "system must be a Series of per-query values"),
        (pd.Series({"a": "x"}), None, {}, "system must hold numbers"),
    ],
)
def test_per_query_differences_errors(system, baseline, kwargs, match):
    with pytest.raises(ValueError, match=match):
        rkplot.per_query_differences(system, baseline, **kwargs)


# --------------------------------------------------------------------------- rbp_persistence


def rbp_by_hand(labels, p):
    return (1 - p) * sum(r * p**i for i, r in enumerate(labels))


def test_rbp_persistence_default_sweep_and_hand_values():
    rankings = {"top": [1, 1, 0, 0, 0, 0], "deep": [0, 0, 1, 1, 1, 1], "none": [0, 0, 0]}
    ax = rkplot.rbp_persistence(rankings)
    assert len(ax.lines) == 3 and legend_texts(ax) == ["top", "deep", "none"]
    ps = np.linspace(0.1, 0.99, 90)
    for line, labels in zip(ax.lines, rankings.values()):
        np.testing.assert_allclose(line.get_xdata(), ps)
        np.testing.assert_allclose(line.get_ydata(), [rbp_by_hand(labels, p) for p in ps])
    assert ax.get_ylabel() == "RBP (relevant: label ≥ 1)"
    assert ax.get_xlabel().startswith("persistence p")
    # the two rankings swap order: "top" wins for impatient users, "deep" for persistent ones
    top, deep = ax.lines[0].get_ydata(), ax.lines[1].get_ydata()
    assert top[0] > deep[0] and top[-1] < deep[-1]


def test_rbp_persistence_rows_of_a_matrix_and_mean_of_a_matrix_in_a_dict():
    labels = [[1, 0, 1], [0, 1]]
    ax = rkplot.rbp_persistence(labels, ps=[0.5])
    assert [line.get_label() for line in ax.lines] == ["ranking 1", "ranking 2"]
    np.testing.assert_allclose([line.get_ydata()[0] for line in ax.lines], [0.625, 0.25])
    ax = rkplot.rbp_persistence({"system": labels}, ps=[0.5])
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [(0.625 + 0.25) / 2])
    ax = rkplot.rbp_persistence([1, 0, 1], ps=[0.5])
    assert ax.lines[0].get_label() == "RBP" and ax.get_legend() is None


def test_rbp_persistence_threshold_and_graded():
    ax = rkplot.rbp_persistence({"g": [2, 1, 0]}, ps=[0.5], rel=2)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.5])
    ax = rkplot.rbp_persistence({"g": [2, 1, 0]}, ps=[0.5], max_grade=2)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.625])
    assert ax.get_ylabel() == "RBP (r = label / 2)"
    ax = rkplot.rbp_persistence({"g": [0.5, 1.0]}, ps=[0.5], max_grade=1)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.5 * (0.5 + 0.5)])


@settings(max_examples=sweep(50))
@given(
    arrays(np.int8, st.tuples(st.integers(1, 4), st.integers(1, 12)), elements=st.integers(0, 3)),
    st.sampled_from([None, 3]),
)
def test_rbp_persistence_equals_rankkit_rbp_at_every_p(labels, max_grade):
    ps = np.array([0.1, 0.35, 0.8, 0.99])
    expected = np.array([implemented(rk.rbp, labels, p=p, max_grade=max_grade) for p in ps]).T
    ax = rkplot.rbp_persistence(labels, ps=ps, max_grade=max_grade)
    np.testing.assert_allclose(np.array([line.get_ydata() for line in ax.lines]), expected, atol=1e-12)
    ax = rkplot.rbp_persistence({"all": labels}, ps=ps, max_grade=max_grade)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), expected.mean(axis=0), atol=1e-12)
    plt.close("all")


@pytest.mark.parametrize(
    "rankings, kwargs, match",
    [
        ([1, 0], {"ps": [0.5, 1.0]}, r"ps must be in \(0, 1\), got 1.0"),
        ([1, 0], {"ps": [0.0]}, r"ps must be in \(0, 1\), got 0.0"),
        ([1, 0], {"ps": [np.nan]}, r"ps must be in \(0, 1\)"),
        ([1, 0], {"ps": []}, "ps must be a non-empty array"),
        ([1, 0], {"rel": 0}, "rel must be a positive number"),
        ([1, 0], {"max_grade": 0}, "max_grade must be a positive number or None"),
        ([1, 0], {"max_grade": 2, "rel": 2}, "rel applies to binary RBP only"),
        ({"A": [3, 0]}, {"max_grade": 2}, r"rankings\['A'\]: labels must be <= max_grade=2.0, got 3.0"),
        ({}, {}, "rankings must not be empty"),
        ([1, -1], {}, "labels must be non-negative"),
        ({"A": [1, np.nan]}, {}, "labels must be finite"),
    ],
)
def test_rbp_persistence_errors(rankings, kwargs, match):
    with pytest.raises(ValueError, match=match):
        rkplot.rbp_persistence(rankings, **kwargs)


# --------------------------------------------------------------------------- MRR top-k


def test_uniform_mrr_source_002_numbers():
    # source 002 prints 0.611, 0.456 (0.45667 truncated), 0.293
    np.testing.assert_allclose(rkplot.uniform_mrr([3, 5, 10]), [0.611, 0.456, 0.293], atol=1e-3)
    assert rkplot.uniform_mrr([3])[0] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert rkplot.uniform_mrr([5])[0] == pytest.approx((0.2 + 0.25 + 1 / 3 + 0.5 + 1) / 5)


@settings(max_examples=sweep(50))
@given(st.integers(1, 300))
def test_uniform_mrr_is_the_mean_rr_of_a_uniformly_placed_answer(k):
    # k queries, the answer of query i at rank i: MRR@k = H_k / k, through rankkit's RR when it exists
    by_hand = np.mean(1 / np.arange(1, k + 1))
    assert rkplot.uniform_mrr([k])[0] == pytest.approx(by_hand, rel=1e-12)
    assert np.all(np.diff(rkplot.uniform_mrr(range(1, k + 2))) < 0)  # decreasing in k


def test_uniform_mrr_equals_rankkit_reciprocal_rank():
    k = 10
    labels = np.eye(k)  # query i has its single answer at rank i + 1
    rr = implemented(rk.reciprocal_rank, labels)
    assert rkplot.uniform_mrr([k])[0] == pytest.approx(float(np.mean(rr)), rel=1e-12)


def test_mrr_top_k_curve_to_100_with_source_points():
    assert not rkplot.mrr_top_k().texts  # no highlight by default
    ax = rkplot.mrr_top_k(highlight=NOTES_KS)
    xy = ax.lines[0].get_xydata()
    assert xy.shape == (100, 2) and ax.lines[0].get_label() == "answer uniform in top k"
    np.testing.assert_array_equal(xy[:, 0], np.arange(1, 101))
    np.testing.assert_allclose(xy[[2, 4, 9], 1], [0.611, 0.456, 0.293], atol=1e-3)
    np.testing.assert_allclose(xy[99, 1], np.sum(1 / np.arange(1, 101)) / 100)
    np.testing.assert_allclose(ax.collections[0].get_offsets(), np.column_stack([[3, 5, 10], xy[[2, 4, 9], 1]]))
    assert [t.get_text() for t in ax.texts] == ["k=3: 0.611", "k=5: 0.457", "k=10: 0.293"]
    assert ax.get_xlabel().startswith("k") and ax.get_ylabel() == "MRR"
    assert legend_texts(ax) == ["answer uniform in top k"]


def test_mrr_top_k_without_highlights_and_custom_ks():
    ax = rkplot.mrr_top_k(range(1, 6), highlight=())
    assert not ax.collections and not ax.texts
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [1, 0.75, 11 / 18, 25 / 48, 137 / 300])


def test_mrr_top_k_target_and_systems_show_the_inverse_view():
    systems = pd.DataFrame({"A": [0.40, 0.55, 0.60], "B": [0.50, 0.52, 0.53]}, index=[1, 5, 10])
    ax = rkplot.mrr_top_k(systems=systems, target=0.5, highlight=NOTES_KS)
    lines = lines_by_label(ax)
    np.testing.assert_allclose(lines["A"], [[1, 0.4], [5, 0.55], [10, 0.6]])
    np.testing.assert_allclose(lines["target MRR = 0.5"][:, 1], 0.5)
    # H_k / k >= 0.5 up to k = 3 (0.611), not at k = 4 (0.521)? 25/48 = 0.5208 >= 0.5; k = 5: 0.457
    np.testing.assert_allclose(lines["uniform reaches target up to k = 4"][:, 0], 4)
    np.testing.assert_allclose(ax.collections[1].get_offsets(), [[5, 0.55]])  # one collection per system, on its curve
    np.testing.assert_allclose(ax.collections[2].get_offsets(), [[1, 0.5]])
    assert legend_texts(ax)[-2:] == ["A: smallest k reaching target = 5", "B: smallest k reaching target = 1"]


def test_mrr_top_k_with_rankkit_mrr_at_k():
    labels = np.array([[0, 1, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0]])
    mrr = {k: float(np.mean(implemented(rk.reciprocal_rank, labels, k=k))) for k in range(1, 5)}
    ax = rkplot.mrr_top_k(systems={"run": pd.Series(mrr)}, target=0.5)
    np.testing.assert_allclose(lines_by_label(ax)["run"][:, 1], [1 / 3, 0.5, 0.5, 7 / 12])
    assert rkplot.smallest_k_for_mrr(pd.Series(mrr), 0.5) == 2


def test_uniform_k_for_mrr():
    assert rkplot.uniform_k_for_mrr(1.0) == 1
    assert rkplot.uniform_k_for_mrr(0.611) == 3
    assert rkplot.uniform_k_for_mrr(0.612) == 2
    assert rkplot.uniform_k_for_mrr(0.456) == 5
    assert rkplot.uniform_k_for_mrr(0.2928) == 10  # H_10 / 10 = 0.292897, printed 0.293
    assert rkplot.uniform_k_for_mrr(0.293) == 9
    assert rkplot.uniform_k_for_mrr(0.3) == 9
    k = rkplot.uniform_k_for_mrr(0.05)
    mrr = rkplot.uniform_mrr([k, k + 1])
    assert mrr[0] >= 0.05 > mrr[1]
    with pytest.raises(ValueError, match="still reached at max_k=10; increase max_k"):
        rkplot.uniform_k_for_mrr(0.2, max_k=10)


def test_smallest_k_for_mrr():
    a = pd.Series([0.6, 0.55, 0.4], index=[10, 5, 1])  # unsorted k
    assert rkplot.smallest_k_for_mrr(a, 0.5) == 5
    assert rkplot.smallest_k_for_mrr(a, 0.4) == 1
    assert rkplot.smallest_k_for_mrr(a, 0.7) is None
    out = rkplot.smallest_k_for_mrr({"A": a, "B": {1: 0.9}}, 0.5)
    assert out.to_dict() == {"A": 5, "B": 1}


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: rkplot.mrr_top_k([]), "ks must be a non-empty sequence of positive integers"),
        (lambda: rkplot.mrr_top_k([0, 1]), "ks must be positive integers, got 0"),
        (lambda: rkplot.mrr_top_k([1.5]), "ks must be a non-empty sequence of positive integers"),
        (lambda: rkplot.mrr_top_k([True, False]), "ks must be a non-empty sequence"),
        (lambda: rkplot.mrr_top_k(5), "ks must be a non-empty sequence"),
        (lambda: rkplot.mrr_top_k(target=0), r"target must be in \(0, 1\], got 0.0"),
        (lambda: rkplot.mrr_top_k(target=1.5), r"target must be in \(0, 1\]"),
        (lambda: rkplot.mrr_top_k(highlight=[0]), "highlight must be positive integers"),
        (lambda: rkplot.mrr_top_k(systems=[0.5]), "systems must be a DataFrame indexed by k"),
        (lambda: rkplot.mrr_top_k(systems={}), "systems must not be empty"),
        (lambda: rkplot.mrr_top_k(systems={"A": pd.Series([0.5], index=[0])}),
         r"systems\['A'\] index \(k\) must be positive integers"),
        (lambda: rkplot.mrr_top_k(systems={"A": pd.Series([np.nan], index=[1])}), r"systems\['A'\] must be finite"),
        (lambda: rkplot.smallest_k_for_mrr([0.5], 0.5), "mrr_at_k must be a Series indexed by k"),
        (lambda: rkplot.smallest_k_for_mrr(pd.Series([0.5]), 0.5), "mrr_at_k index"),
        (lambda: rkplot.smallest_k_for_mrr(pd.Series({1: 0.5}), -1), "target must be in"),
        (lambda: rkplot.uniform_k_for_mrr(0.5, max_k=0), "max_k must be positive integers"),
    ],
)
def test_mrr_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_pr_curve_eleven_point_average_equals_pytrec_eval():
    """Against trec_eval 9 semantics (pytrec_eval 0.5): iprec_at_recall averaged over queries."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(7)
    labels = (rng.random((8, 12)) < 0.3).astype(int)
    labels[0] = 0  # a query with no relevant document retrieved...
    qrels, run = {}, {}
    for q, row in enumerate(labels):
        qid = f"q{q}"
        qrels[qid] = {f"d{i}": int(rel) for i, rel in enumerate(row)}
        run[qid] = {f"d{i}": float(100 - i) for i in range(row.size)}  # distinct scores: rank order
    qrels["q0"]["unretrieved"] = 1  # ...but one judged relevant: R = 1, every level unreached
    n_rel = np.array([sum(v >= 1 for v in qrels[f"q{q}"].values()) for q in range(8)])
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)
    keys = [f"iprec_at_recall_{level:.2f}" for level in LEVELS]
    expected = np.array([[per_query[f"q{q}"][key] for key in keys] for q in range(8)]).mean(axis=0)
    frame = implemented(rk.pr_curve, labels, n_relevant=n_rel)
    ax = rkplot.pr_curve(frame, rounding="plus_0.9")
    np.testing.assert_allclose(ax.lines[0].get_ydata(), expected, atol=1e-12)


# --------------------------------------------------------------------------- added for the teaching notebooks


def test_system_colors_stable_across_column_orders_and_figures():
    a = rkplot.metric_at_k(pd.DataFrame({"dense": [0.5, 0.6], "BM25": [0.4, 0.5]}, index=[1, 5]))
    b = rkplot.metric_at_k(pd.DataFrame({"BM25": [0.1, 0.2], "dense": [0.3, 0.4]}, index=[1, 5]))
    colour = {ax: {line.get_label(): matplotlib.colors.to_hex(line.get_color()) for line in ax.lines} for ax in (a, b)}
    assert colour[a] == colour[b] == {"BM25": "#0072b2", "dense": "#d55e00"}  # Okabe–Ito blue, vermillion
    c = rkplot.metric_at_k(pd.DataFrame({"BM25": [0.1, 0.2]}, index=[1, 5]), colors={"BM25": "black"})
    assert matplotlib.colors.to_hex(c.lines[0].get_color()) == "#000000"
    with pytest.raises(ValueError, match="colors must be a mapping"):
        rkplot.system_colors(["a"], colors=["red"])


def test_metric_at_k_integer_ticks():
    ax = rkplot.metric_at_k(pd.DataFrame({"A": [0.1, 0.2, 0.3]}, index=[1, 2, 3]))
    ax.figure.canvas.draw()
    ticks = ax.get_xticks()
    assert len(ticks) and np.all(ticks == np.round(ticks))


def span_x(ax, patch):
    """The data x range of an axvspan (a Polygon or, in newer matplotlib, a Rectangle)."""
    box = patch.get_window_extent().transformed(ax.transData.inverted())
    return box.x0, box.x1


def test_pr_curve_cut_and_grey_unreached_recall():
    iprec = np.array([1, 1, .8, .8, .6, .5, 0, 0, 0, 0, 0])
    full = rkplot.pr_curve(iprec)
    assert full.lines[0].get_xdata().size == 11 and not full.patches
    cut = rkplot.pr_curve({"A": iprec, "B": np.full(11, 0.5)}, unreached="cut")
    np.testing.assert_allclose(cut.lines[0].get_xydata(), np.column_stack([LEVELS[:6], iprec[:6]]))
    assert cut.lines[1].get_xdata().size == 11 and not cut.patches
    grey = rkplot.pr_curve({"A": iprec, "B": np.full(11, 0.5)}, unreached="grey")
    assert [p.get_gid() for p in grey.patches] == ["A"]  # B reaches recall 1
    assert span_x(grey, grey.patches[0]) == pytest.approx((0.5, 1.0))
    # a single query frame: reached recall is its largest recall
    frame = curve_frame([1, 0, 0], n_relevant=2)
    ax = rkplot.pr_curve(frame, unreached="grey")
    assert ax.lines[0].get_xdata().max() == 0.5
    assert span_x(ax, ax.patches[0]) == pytest.approx((0.5, 1.0))
    with pytest.raises(ValueError, match="unreached must be one of 'keep', 'cut', 'grey'"):
        rkplot.pr_curve(iprec, unreached="hide")


@settings(max_examples=sweep(40), deadline=None)
@given(arrays(np.int8, st.tuples(st.integers(2, 5), st.integers(1, 12)), elements=st.integers(0, 2)))
def test_pr_curve_textbook_frame_is_the_highest_precision_at_recall_at_least_l(labels):
    """The default rounding, by hand: per query, the max precision over ranks with recall >= l."""
    frame = rk.pr_curve(labels)
    ax = rkplot.pr_curve(frame)
    expected = []
    for row in labels:
        rel = row >= 1
        R = rel.sum()
        hits = np.cumsum(rel)
        prec = hits / np.arange(1, row.size + 1)
        rec = hits / R if R else np.zeros(row.size)
        expected.append([max([p for p, r in zip(prec, rec) if r >= lv] or [0.0]) for lv in LEVELS])
    np.testing.assert_allclose(ax.lines[0].get_ydata(), np.mean(expected, axis=0), atol=1e-12)
    plt.close("all")
    textbook = _textbook_iprec(labels)
    if textbook is not None:
        np.testing.assert_allclose(ax.lines[0].get_ydata(), textbook.mean(axis=0), atol=1e-12)


def _textbook_iprec(labels):
    """rk.interpolated_precision(rounding="textbook") once binary.py has it, else None."""
    try:
        return rk.interpolated_precision(labels, rounding="textbook")
    except ValueError:
        return None


def test_pr_sawtooth_points_and_ap_area():
    labels = [1, 0, 1, 0, 0, 1, 0]
    ax = rkplot.pr_sawtooth(labels, n_relevant=4)
    lines = lines_by_label(ax)
    hits = np.cumsum(np.array(labels) >= 1)
    ranks = np.arange(1, 8)
    np.testing.assert_allclose(lines["precision at each rank"], np.column_stack([hits / 4, hits / ranks]))
    ap = (1 + 2 / 3 + 3 / 6) / 4
    steps = lines[f"AP = {ap:.4f} (area)"]
    # area under the steps-pre outline: each x interval takes the y at its right end
    area = np.sum(np.diff(steps[:, 0]) * steps[1:, 1])
    assert area == pytest.approx(ap) == pytest.approx(rk.average_precision(labels, n_relevant=4))
    assert ax.get_title() == f"Precision-recall points of one ranking; shaded: AP = {ap:.4f}"
    assert len(ax.collections) == 1  # the shaded area
    plain = rkplot.pr_sawtooth(labels, shade_ap=False)
    assert len(plain.lines) == 1 and not plain.collections
    # the interpolated curve beside it, on the same axes
    rkplot.pr_curve(rk.pr_curve(labels), ax=plain)
    assert len(plain.lines) == 2
    with pytest.raises(ValueError, match="one ranking"):
        rkplot.pr_sawtooth([[1, 0], [0, 1]])


def test_rbp_crossings_against_polynomial_roots():
    a, b = [1, 1, 0, 0, 0, 0], [0, 0, 1, 1, 1, 1]
    # (1-p)(1+p) = (1-p)(p^2+p^3+p^4+p^5)  <=>  p^5 + p^4 + p^3 + p^2 - p - 1 = 0
    roots = np.roots([1, 1, 1, 1, -1, -1])
    p = float(next(r.real for r in roots if abs(r.imag) < 1e-12 and 0 < r.real < 1))
    table = rkplot.rbp_crossings({"a": a, "b": b})
    assert table[["system_a", "system_b"]].values.tolist() == [["a", "b"]]
    assert table["p"].iloc[0] == pytest.approx(p, abs=1e-10)
    assert table["rbp"].iloc[0] == pytest.approx(rk.rbp(a, p=p), abs=1e-10)
    ax = rkplot.rbp_persistence({"a": a, "b": b}, mark_crossings=True)
    np.testing.assert_allclose(ax.collections[0].get_offsets(), [[p, (1 - p) * (1 + p)]], atol=1e-10)
    assert [t.get_text() for t in ax.texts] == [f"p = {p:.3f}"]
    assert "curves cross" in legend_texts(ax)
    # no crossing: nothing marked; the sweep's range limits the search
    assert not rkplot.rbp_persistence({"a": a, "c": [1, 1, 1, 0, 0, 0]}, mark_crossings=True).collections
    assert rkplot.rbp_crossings({"a": a, "b": b}, ps=[0.1, 0.5]).empty


def test_rbp_crossings_of_mean_curves_and_three_systems():
    runs = {"x": [[1, 0, 0, 0], [0, 0, 0, 1]], "y": [[0, 1, 1, 0], [0, 1, 0, 0]], "z": [[0, 0, 0, 0], [1, 0, 0, 0]]}
    table = rkplot.rbp_crossings(runs)
    for _, row in table.iterrows():
        mean_a, mean_b = (np.mean(rk.rbp(np.array(runs[name]), p=row.p)) for name in (row.system_a, row.system_b))
        assert abs(mean_a - mean_b) < 1e-9
    # every sign change on a fine grid is found
    grid = np.linspace(0.1, 0.99, 2000)
    for a, b in (("x", "y"), ("x", "z"), ("y", "z")):
        d = [np.mean(rk.rbp(np.array(runs[a]), p=q)) - np.mean(rk.rbp(np.array(runs[b]), p=q)) for q in grid]
        changes = int(np.sum(np.sign(d[1:]) * np.sign(d[:-1]) < 0))
        assert changes == int(((table.system_a == a) & (table.system_b == b)).sum())


@pytest.mark.parametrize(
    "labels, max_grade, p", [([2, 0, 1], 2, 1.0), ([3, 1, 0, 2, 3], None, 0.8), ([1, 1, 1], 1, 0.5)]
)
def test_err_cascade_bars_by_hand_and_sum_is_err(labels, max_grade, p):
    top = max(labels) if max_grade is None else max_grade
    reach, stop, contrib, alive = [], [], [], 1.0
    for i, g in enumerate(labels, start=1):
        r = (2**g - 1) / 2**top
        reach.append(alive)
        stop.append(alive * r)
        contrib.append(alive * r / i)
        alive *= (1 - r) * p
    ax = rkplot.err_cascade(labels, max_grade=max_grade, p=p)
    heights = [list(c.datavalues) for c in ax.containers]
    np.testing.assert_allclose(heights, [reach, stop, contrib], atol=1e-15)
    assert [c.get_label() for c in ax.containers] == [
        "P(user reaches rank i)", "P(user is satisfied at rank i)", "contribution to ERR = stop / i"]
    table = rkplot.err_cascade_table(labels, max_grade=max_grade, p=p)
    assert np.cumsum(table["contribution"].to_numpy())[-1] == rk.err(labels, max_grade=max_grade, p=p)  # bit for bit
    expected = rk.err(labels, max_grade=max_grade, p=p)
    assert ax.get_title() == f"ERR cascade: ERR = {expected:.4f}, the sum of the contributions"


def test_err_cascade_errors():
    with pytest.raises(ValueError, match="one ranking"):
        rkplot.err_cascade([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="max_grade"):
        rkplot.err_cascade([3, 0], max_grade=2)


def test_gain_discount_curves_by_hand():
    fig = rkplot.gain_discount(max_grade=4, depth=12, bases=(2, 3))
    left, right = fig.axes
    gains = lines_by_label(left)
    np.testing.assert_allclose(gains["linear: g(rel) = rel"][:, 1], [0, 1, 2, 3, 4])
    np.testing.assert_allclose(gains["exponential: g(rel) = 2^rel − 1"][:, 1], [0, 1, 3, 7, 15])
    disc = lines_by_label(right)
    i = np.arange(1, 13)
    np.testing.assert_allclose(disc["standard 1/log2(i+1)"][:, 1], 1 / np.log2(i + 1), rtol=1e-15)
    for b in (2, 3):
        expected = np.where(i < b, 1.0, np.log(b) / np.log(np.maximum(i, 2)))
        np.testing.assert_allclose(disc[f"JK, b = {b}"][:, 1], expected, rtol=1e-14)
    assert list(disc) == ["standard 1/log2(i+1)", "JK, b = 2", "JK, b = 3"]
    assert left.get_title() == "Gain of a relevance label" and right.get_title().startswith("Discount of a rank")
    assert left.get_ylabel() == "gain g(rel)" and right.get_ylabel() == "discount"
    fig2, pair = plt.subplots(1, 2)
    assert rkplot.gain_discount(ax=pair) is fig2
    with pytest.raises(ValueError, match="pair of matplotlib Axes"):
        rkplot.gain_discount(ax=pair[0])
    with pytest.raises(ValueError, match="bases must be numbers > 1"):
        rkplot.gain_discount(bases=(1,))


@settings(max_examples=sweep(50), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 5)), min_size=2, max_size=30))
def test_roc_curve_equals_sklearn(pairs):
    from sklearn.metrics import roc_auc_score
    from sklearn.metrics import roc_curve as sk_roc

    labels = np.array([p[0] for p in pairs])
    scores = np.array([p[1] for p in pairs], dtype=float) / 5
    positive = labels >= 1
    if positive.all() or not positive.any():
        return
    ax = rkplot.roc_curve(labels, scores)
    fpr, tpr, _ = sk_roc(positive, scores, drop_intermediate=False)
    np.testing.assert_allclose(ax.lines[0].get_xydata(), np.column_stack([fpr, tpr]), atol=1e-15)
    auc = roc_auc_score(positive, scores)
    ours = rk.auc(labels, scores)
    assert ours == pytest.approx(auc, abs=1e-12)   # the same area; its last bit may differ from sklearn's
    assert ax.lines[0].get_label() == f"ROC (AUC = {ours:.4f})"   # so a 5th-decimal tie (0.48125) may print
    assert ax.get_title() == f"ROC curve: AUC = {ours:.4f}"       # either way: the label shows rankkit's AUC
    plt.close("all")


def test_roc_curve_several_scorers_and_errors():
    labels = [1, 0, 1, 0]
    ax = rkplot.roc_curve(labels, {"good": [0.9, 0.1, 0.8, 0.2], "bad": [0.1, 0.9, 0.2, 0.8]})
    assert legend_texts(ax) == ["good (AUC = 1.0000)", "bad (AUC = 0.0000)", "chance (AUC = 0.5)"]
    assert ax.get_title() == "ROC curves (AUC in the legend)"
    with pytest.raises(ValueError, match="both positives"):
        rkplot.roc_curve([1, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match="shape of labels"):
        rkplot.roc_curve([1, 0], [0.1])


def test_mrr_top_k_two_panels_and_log_axis():
    systems = pd.DataFrame({"A": [0.40, 0.55, 0.60], "B": [0.50, 0.52, 0.53]}, index=[1, 5, 10])
    fig = rkplot.mrr_top_k(systems=systems, target=0.5, two_panels=True, highlight=NOTES_KS)
    left, right = fig.axes
    assert [line.get_label() for line in left.lines] == [
        "answer uniform in top k", "target MRR = 0.5", "uniform reaches target up to k = 4"]
    np.testing.assert_allclose(left.lines[0].get_ydata(), rkplot.uniform_mrr(range(1, 101)))
    assert [t.get_text() for t in left.texts] == ["k=3: 0.611", "k=5: 0.457", "k=10: 0.293"]
    lines = lines_by_label(right)
    np.testing.assert_allclose(lines["A"], [[1, 0.40], [5, 0.55], [10, 0.60]])
    np.testing.assert_allclose([c.get_offsets()[0] for c in right.collections], [[5, 0.55], [1, 0.5]])  # on the curves
    assert left.get_xscale() == "log" and right.get_xscale() == "linear"  # each panel: log when k > 20
    assert right.get_title() == "Systems' MRR@k and the smallest k reaching 0.5"
    # small k: linear axis with integer ticks; logx forces
    assert rkplot.mrr_top_k(range(1, 21)).get_xscale() == "linear"
    assert rkplot.mrr_top_k(range(1, 21), logx=True).get_xscale() == "log"
    # one panel with systems: the legend sits outside the axes
    ax = rkplot.mrr_top_k(systems=systems, target=0.5)
    assert ax.get_legend().get_bbox_to_anchor().x0 > ax.bbox.x1 - 1
    with pytest.raises(ValueError, match="two_panels=True needs systems"):
        rkplot.mrr_top_k(two_panels=True)


def test_per_query_differences_many_bars_touch_without_edges():
    values = pd.Series(np.linspace(-1, 1, 500), index=[f"q{i}" for i in range(500)])
    ax = rkplot.per_query_differences(values)
    bars = ax.containers[0]
    assert {b.get_width() for b in bars} == {1.0}
    assert {b.get_linewidth() for b in bars} == {0.0}
    assert not any(b.get_hatch() for b in bars) and not ax.texts


def _visible_tick_labels(axis):
    lo, hi = sorted(axis.axes.get_xlim())
    return [t.get_text() for t, x in zip(axis.get_ticklabels(), axis.get_ticklocs()) if lo <= x <= hi]


def test_mrr_top_k_log_axis_ticks_are_integers():
    ax = rkplot.mrr_top_k(range(1, 101), logx=True)
    ax.figure.canvas.draw()
    assert _visible_tick_labels(ax.xaxis) == ["1", "2", "5", "10", "20", "50", "100"]


def test_rbp_persistence_crossing_labels_do_not_overlap():
    sweep = {"A": [1] + [0] * 9, "B": [0, 1, 1] + [0] * 7, "C": [0] * 4 + [1] * 6}  # crossings 0.618, 0.745, 0.791
    ax = rkplot.rbp_persistence(sweep, mark_crossings=True)
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    boxes = [Text.get_window_extent(t, renderer) for t in ax.texts]  # the text, not its leader line
    assert [t.get_text() for t in ax.texts] == ["p = 0.618", "p = 0.745", "p = 0.791"]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    assert all(b.y0 > ax.bbox.y0 for b in boxes)  # inside the axes, above the tick labels
    for line in ax.lines:  # no label is written over a curve
        x = np.linspace(*line.get_xdata()[[0, -1]], 2000)
        points = ax.transData.transform(np.column_stack([x, np.interp(x, line.get_xdata(), line.get_ydata())]))
        assert not any(box.contains(px, py) for box in boxes for px, py in points), line.get_label()


def test_roc_curve_legend_beside_the_axes_for_several_curves():
    labels, scores = [1, 0, 1, 0], [0.9, 0.8, 0.4, 0.1]
    one = rkplot.roc_curve(labels, scores)
    assert one.get_legend()._loc == 4  # lower right, inside
    several = rkplot.roc_curve(labels, {"a": scores, "b": scores[::-1]})
    several.figure.canvas.draw()
    assert several.get_legend().get_window_extent().x0 > several.bbox.x1


# --------------------------------------------------------------------------- colour-blind-safe styles

OKABE_ITO = ["#0072b2", "#d55e00", "#009e73", "#e69f00", "#cc79a7", "#56b4e9", "#000000", "#f0e442"]
RED_GREEN = {matplotlib.colors.to_hex(c) for c in ("tab:red", "tab:green", "red", "green", "lime", "tab:olive")}


def hexes(colours):
    return [matplotlib.colors.to_hex(c) for c in colours]


def style_of(line):
    return (matplotlib.colors.to_hex(line.get_color()), line.get_marker(), line.get_linestyle())


def test_system_styles_okabe_ito_distinct_and_by_sorted_name():
    names = [f"s{i}" for i in range(8)]
    styles = rkplot.system_styles(names[::-1])
    assert [styles[n]["color"].lower() for n in names] == OKABE_ITO
    assert [styles[n]["marker"] for n in names] == list(rkplot.MARKERS[:8])
    assert [styles[n]["linestyle"] for n in names] == ["-", "--", "-.", ":"] * 2
    assert len({tuple(s.values()) for s in styles.values()}) == 8
    assert rkplot.PALETTE[-1].lower() == "#f0e442"  # yellow, hard to see on white: last
    # 40 series: no two look alike; the order of the names never matters
    many = [f"run {i:02d}" for i in range(40)]
    assert len({tuple(s.values()) for s in rkplot.system_styles(many).values()}) == 40
    assert rkplot.system_styles(many) == rkplot.system_styles(many[::-1])
    # explicit colours replace the colour only; system_colors is the colour of system_styles
    given = rkplot.system_styles(["a", "b"], colors={"b": "black"})
    assert given["b"] == {"color": "black", "marker": "s", "linestyle": "--"}
    assert rkplot.system_colors(["b", "a"]) == {"b": rkplot.PALETTE[1], "a": rkplot.PALETTE[0]}
    with pytest.raises(ValueError, match="colors must be a mapping"):
        rkplot.system_styles(["a"], colors="red")


def _multi_series_figures():
    """(function name, axes, series names) of every function that draws several series."""
    base = np.array([1, .9, .8, .7, .6, .5, .45, .4, .3, .2, .1])
    frame = pd.DataFrame({"pixels": base[:5], "pca20": base[:5] + 0.004, "rp8": base[:5] / 2}, index=[1, 2, 3, 4, 5])
    runs = {"pixels": [1, 0, 1, 0, 0, 1], "pca20": [1, 0, 1, 0, 0, 1], "rp8": [0, 1, 0, 0, 1, 1]}
    labels, scores = [1, 0, 1, 0, 1], [0.9, 0.8, 0.4, 0.1, 0.5]
    names = ["pixels", "pca20", "rp8"]
    yield "pr_curve", rkplot.pr_curve({"pixels": base, "pca20": base + 0.004, "rp8": base / 2}), names
    yield "metric_at_k", rkplot.metric_at_k(frame), ["pixels", "pca20", "rp8"]
    yield "rbp_persistence", rkplot.rbp_persistence(runs), ["pixels", "pca20", "rp8"]
    roc = rkplot.roc_curve(labels, {"pixels": scores, "pca20": scores, "rp8": scores[::-1]})
    yield "roc_curve", roc, ["pixels", "pca20", "rp8"]
    mrr = rkplot.mrr_top_k(systems=frame, target=0.5)
    yield "mrr_top_k", mrr, ["pixels", "pca20", "rp8"]
    fig = rkplot.mrr_top_k(systems=frame, target=0.5, two_panels=True)
    yield "mrr_top_k two panels", fig.axes[1], ["pixels", "pca20", "rp8"]


def _series_lines(ax, names):
    by_label = {line.get_label().split(" (AUC")[0]: line for line in ax.lines}
    return {name: by_label[name] for name in names}


def test_every_multi_series_figure_styles_its_series_by_system_styles():
    reference = rkplot.system_styles(["pixels", "pca20", "rp8"])
    for where, ax, names in _multi_series_figures():
        lines = _series_lines(ax, names)
        for name, line in lines.items():
            expected = reference[name]
            look = (expected["color"].lower(), expected["marker"], expected["linestyle"])
            assert style_of(line) == look, (where, name)
        looks = [style_of(line) for line in lines.values()]
        assert len(set(looks)) == len(looks), where
        # distinct by colour, by marker and by line style each, not by colour alone
        for part in range(3):
            assert len({look[part] for look in looks}) == len(looks), (where, part)
        # a system keeps its look whatever the function
        assert style_of(lines["pca20"]) == (rkplot.PALETTE[0].lower(), "o", "-"), where


def test_overlapping_curves_stay_apart():
    """Two nearly identical curves: the later (in sorted names) is dashed, drawn over the
    solid one, with hollow markers through which the other's show; on dense curves the
    markers of the two fall at different points."""
    base = np.array([1, .9, .8, .7, .6, .5, .45, .4, .3, .2, .1])
    ax = rkplot.pr_curve({"pixels": base, "pca20": base + 0.004})
    pixels, pca20 = _series_lines(ax, ["pixels", "pca20"]).values()
    assert pca20.get_linestyle() == "-" and pixels.get_linestyle() == "--"
    assert pixels.get_zorder() > pca20.get_zorder()  # the dashed curve lies on top
    assert pixels.get_markerfacecolor() == "none" and pca20.get_markerfacecolor() != "none"
    ks = np.arange(1, 51)
    curve = 0.5 * np.exp(-ks / 30)
    ax = rkplot.metric_at_k(pd.DataFrame({"pixels": curve, "pca20": curve + 0.003}, index=ks))
    every = {line.get_label(): line.get_markevery() for line in ax.lines}
    assert every["pca20"] != every["pixels"] and all(isinstance(e, tuple) for e in every.values())
    small = rkplot.metric_at_k(pd.DataFrame({"pixels": curve[:5], "pca20": curve[:5]}, index=ks[:5]))
    assert all(line.get_markevery() is None for line in small.lines)  # few k: a marker at each


def test_no_red_or_green_in_any_figure():
    def colours(ax):
        found = [line.get_color() for line in ax.lines]
        found += [c for coll in ax.collections for c in coll.get_facecolors()]
        found += [p.get_facecolor() for p in ax.patches]
        return set(hexes(found))

    system = pd.Series({"q1": 0.5, "q2": 0.2, "q3": 0.9})
    axes = [ax for _, ax, _ in _multi_series_figures()]
    axes += [rkplot.per_query_differences(system, system[::-1].set_axis(system.index)),
             rkplot.err_cascade([2, 0, 1], max_grade=2), rkplot.pr_sawtooth([1, 0, 1]),
             rkplot.rbp_persistence({"a": [1, 1, 0, 0, 0, 0], "b": [0, 0, 1, 1, 1, 1]}, mark_crossings=True),
             *rkplot.gain_discount(bases=(2, 10)).axes, *rkplot.mrr_top_k(target=0.3).figure.axes]
    for ax in axes:
        assert not colours(ax) & RED_GREEN, ax.get_title()


def test_per_query_differences_zero_difference_is_grey_and_lines_are_black():
    ax = rkplot.per_query_differences(pd.Series({"a": 0.0, "b": 0.5, "c": -0.25, "d": 0.0}))
    colour = dict(zip([b.get_gid() for b in ax.containers[0]], hexes(b.get_facecolor() for b in ax.containers[0])))
    assert colour == {"b": "#0072b2", "a": "#999999", "d": "#999999", "c": "#d55e00"}
    assert {line.get_label(): matplotlib.colors.to_hex(line.get_color()) for line in ax.lines} == {
        "zero": "#000000", "mean difference = +0.0625": "#000000"}
    assert [line.get_linestyle() for line in ax.lines] == ["-", "--"]
    # thousands of bars (one collection): the same colours
    many = rkplot.per_query_differences(pd.Series(np.r_[np.ones(300), np.zeros(300), -np.ones(300)]))
    assert set(hexes(many.collections[0].get_facecolors())) == {"#0072b2", "#999999", "#d55e00"}


def test_gain_discount_and_metric_at_k_give_a_discount_the_same_look():
    fig = rkplot.gain_discount(bases=(2, 10))
    discounts = {line.get_label(): style_of(line) for line in fig.axes[1].lines}
    assert list(discounts) == [rkplot.STANDARD_DISCOUNT, rkplot.jk_discount_label(2), rkplot.jk_discount_label(10)]
    assert list(discounts) == ["standard 1/log2(i+1)", "JK, b = 2", "JK, b = 10"]
    lipstick = [3, 2, 3, 0, 1, 2]
    frame = pd.DataFrame({name: [rk.ndcg(lipstick, k=k, gain="exp", **kw) for k in range(1, 6)]
                          for name, kw in [("standard 1/log2(i+1)", {}),
                                           ("JK, b = 2", {"discount": "jk", "base": 2}),
                                           ("JK, b = 10", {"discount": "jk", "base": 10})]},
                         index=pd.Index(range(1, 6), name="k"))
    ax = rkplot.metric_at_k(frame, metric="nDCG (exp gain)")
    assert {line.get_label(): style_of(line) for line in ax.lines} == discounts
    assert len(set(discounts.values())) == 3
    assert ax.get_ylabel() == "nDCG@k (exp gain)"  # not "nDCG (exp gain)@k"
    gains = [style_of(line) for line in fig.axes[0].lines]
    assert len(set(gains)) == 2


def test_metric_at_k_y_axis_reaches_zero_unless_asked():
    frame = pd.DataFrame({"A": [0.90, 0.95, 0.97]}, index=[1, 2, 3])
    low, _ = rkplot.metric_at_k(frame).get_ylim()
    assert low <= 0.0
    assert rkplot.metric_at_k(frame, include_zero=False).get_ylim()[0] > 0.8
    below = rkplot.metric_at_k(pd.DataFrame({"tau": [-0.5, -0.2]}, index=[1, 2]))
    assert below.get_ylim()[0] < -0.5 and below.get_ylim()[1] >= 0.0
    with pytest.raises(ValueError, match="include_zero must be True or False"):
        rkplot.metric_at_k(frame, include_zero="yes")


def test_err_cascade_axis_says_contribution_is_not_a_probability():
    ax = rkplot.err_cascade([2, 0, 1], max_grade=2)
    assert ax.get_ylabel() == "probability (reach, stop), or contribution to ERR"
    bars = [hexes(b.get_facecolor() for b in c) for c in ax.containers]
    assert [set(b) for b in bars] == [{"#56b4e9"}, {"#d55e00"}, {"#0072b2"}]


def test_pr_sawtooth_in_okabe_ito_blue():
    ax = rkplot.pr_sawtooth([1, 0, 1])
    assert set(hexes(line.get_color() for line in ax.lines)) == {"#0072b2"}
    assert [line.get_linestyle() for line in ax.lines] == ["-", "--"]


def _text_boxes_crossing_lines(ax):
    """The labels of ``ax`` (text only) that a line or another label crosses."""
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    boxes = [(t.get_text(), Text.get_window_extent(t, renderer)) for t in ax.texts]
    bad = []
    for i, (text, box) in enumerate(boxes):
        for line in ax.lines:
            path = line.get_transform().transform_path(line.get_path())
            if path.intersects_bbox(box, filled=False):
                bad.append((text, line.get_label()))
        bad += [(text, other) for other, box2 in boxes[i + 1:] if box.overlaps(box2)]
    return bad


@pytest.mark.parametrize("target", [0.45, 0.456, 0.3, 0.6])
def test_mrr_top_k_labels_clear_of_every_line(target):
    systems = pd.DataFrame({"system A": [0.36, 0.42, 0.45, 0.456, 0.456, 0.456],
                            "system B": [0.31, 0.41, 0.45, 0.49, 0.52, 0.52]}, index=[1, 2, 3, 5, 10, 100])
    fig = rkplot.mrr_top_k(range(1, 101), systems=systems, target=target, two_panels=True, highlight=NOTES_KS)
    assert _text_boxes_crossing_lines(fig.axes[0]) == []
    ax = rkplot.mrr_top_k(range(1, 101), systems=systems, target=target, highlight=NOTES_KS)
    assert _text_boxes_crossing_lines(ax) == []
    assert [t.get_text() for t in ax.texts] == ["k=3: 0.611", "k=5: 0.457", "k=10: 0.293"]


def test_mrr_top_k_smallest_k_in_each_systems_colour_and_marker_and_a_grey_target():
    systems = pd.DataFrame({"system A": [0.36, 0.42, 0.456, 0.456], "system B": [0.31, 0.41, 0.49, 0.52]},
                           index=[1, 2, 5, 10])
    fig = rkplot.mrr_top_k(systems=systems, target=0.45, two_panels=True)
    right = fig.axes[1]
    styles = rkplot.system_styles(systems.columns)
    marks = {c.get_label().split(":")[0]: c for c in right.collections}
    assert list(marks) == ["system A", "system B"]
    for name, mark in marks.items():
        assert hexes(mark.get_edgecolors()) == [styles[name]["color"].lower()]   # a ring in its colour
        assert len(mark.get_facecolors()) == 0 or mark.get_facecolors()[0][3] == 0
        # the marker's shape: the same path as the system's marker
        shape = matplotlib.markers.MarkerStyle(styles[name]["marker"])
        expected = shape.get_path().transformed(shape.get_transform()).vertices
        np.testing.assert_allclose(mark.get_paths()[0].vertices, expected)
    assert mark.get_sizes()[0] < marks["system A"].get_sizes()[0]  # equal k stay visible
    np.testing.assert_allclose([m.get_offsets()[0] for m in marks.values()], [[5, 0.456], [5, 0.49]])  # MRR@5
    for panel in fig.axes:
        target = next(line for line in panel.lines if line.get_label().startswith("target MRR"))
        colour = matplotlib.colors.to_hex(target.get_color())
        assert colour not in RED_GREEN and colour not in {s["color"].lower() for s in styles.values()}
        assert target.get_marker() in ("None", None, "") and target.get_linestyle() != "-"
    uniform = fig.axes[0].lines[0]
    assert matplotlib.colors.to_hex(uniform.get_color()) not in {s["color"].lower() for s in styles.values()}


def test_roc_curve_several_scorers_get_a_figure_wide_enough_for_the_legend():
    several = rkplot.roc_curve([1, 0, 1, 0], {"a": [0.9, 0.8, 0.4, 0.1], "b": [0.1, 0.4, 0.8, 0.9]})
    width, _ = several.figure.get_size_inches()
    assert width > 9
    several.figure.canvas.draw()
    box = several.get_window_extent()
    assert box.width > 0.4 * several.figure.bbox.width  # the square axes is not squeezed
