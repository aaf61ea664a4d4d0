"""Tests of rankkit.teaching.explore: the numbers by independent formulas, the static figure's data,
and the widget callbacks called directly (when ipywidgets is installed)."""

import math
import subprocess
import sys

import numpy as np
import pytest

from rankkit.teaching import explore

LABELS = [3, 0, 2, 1, 0, 1]


def rbp_by_hand(labels, p, rel=1):
    return (1 - p) * sum((lab >= rel) * p**i for i, lab in enumerate(labels))


def err_by_hand(labels, p, max_grade):
    total, reach = 0.0, 1.0
    for i, g in enumerate(labels, start=1):
        r = (2**g - 1) / 2**max_grade
        total += reach * r / i
        reach *= (1 - r) * p
    return total


def dcg_by_hand(labels, k=None):
    return sum(g / math.log2(i + 1) for i, g in enumerate(labels[:k], start=1))


def test_importing_explore_needs_neither_ipywidgets_nor_pyplot():
    code = ("import sys, rankkit.teaching.explore; "
            "print(sorted(m for m in ('ipywidgets', 'matplotlib.pyplot') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_explorers_are_reached_through_the_teaching_package():
    import rankkit
    import rankkit.teaching

    assert rankkit.teaching.explore is explore and "explore" in dir(rankkit.teaching)
    assert not hasattr(rankkit, "explore")  # the engine names no module of the lessons


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8, 0.95])
def test_rbp_err_values_by_hand(p):
    values = explore.rbp_err_values(LABELS, p)
    assert values["RBP"] == pytest.approx(rbp_by_hand(LABELS, p), abs=1e-12)
    assert values["ERR"] == pytest.approx(err_by_hand(LABELS, p, 3), abs=1e-12)
    assert explore.rbp_err_values(LABELS, p, rel=2)["RBP"] == pytest.approx(rbp_by_hand(LABELS, p, rel=2))
    assert explore.rbp_err_values(LABELS, p, max_grade=4)["ERR"] == pytest.approx(err_by_hand(LABELS, p, 4))


def test_rbp_err_explorer_figure_and_callback():
    ex = explore.rbp_err(LABELS, p=0.5, show=False)
    assert ex.widget is None and ex.state == {"p": 0.5}
    ax = ex.figure.axes[0]
    lines = {line.get_label(): line.get_xydata() for line in ax.lines}
    np.testing.assert_allclose(lines["RBP"][:, 0], np.arange(1, 100) / 100)
    np.testing.assert_allclose(lines["RBP"][:, 1], [rbp_by_hand(LABELS, p) for p in np.arange(1, 100) / 100])
    np.testing.assert_allclose(lines["ERR"][:, 1], [err_by_hand(LABELS, p, 3) for p in np.arange(1, 100) / 100])
    np.testing.assert_allclose(lines["p = 0.5"], [[0.5, rbp_by_hand(LABELS, 0.5)], [0.5, err_by_hand(LABELS, 0.5, 3)]])
    assert ax.get_title().startswith("RBP and ERR as p varies\nat p = 0.5: RBP = ")
    values = ex.set_p(0.9)
    assert values == ex.values and ex.state == {"p": 0.9}
    assert values["RBP"] == pytest.approx(rbp_by_hand(LABELS, 0.9))
    assert repr(ex) == f"<rbp_err explorer: p=0.9; RBP={values['RBP']:.4f}, ERR={values['ERR']:.4f}>"


@pytest.mark.parametrize("k", [1, 2, 4, 6])
def test_cutoff_values_by_hand(k):
    values = explore.cutoff_values(LABELS, k)
    relevant = [lab >= 1 for lab in LABELS]
    assert values["P@k"] == pytest.approx(sum(relevant[:k]) / k)
    assert values["R@k"] == pytest.approx(sum(relevant[:k]) / sum(relevant))
    ideal = sorted(LABELS, reverse=True)
    assert values["nDCG@k"] == pytest.approx(dcg_by_hand(LABELS, k) / dcg_by_hand(ideal, k))
    assert explore.cutoff_values(LABELS, k, n_relevant=8)["R@k"] == pytest.approx(sum(relevant[:k]) / 8)


def test_cutoffs_explorer_figure_and_callback():
    ex = explore.cutoffs(LABELS, k=3, show=False)
    ax = ex.figure.axes[0]
    lines = {line.get_label(): line.get_xydata() for line in ax.lines}
    for name in ("P@k", "R@k", "nDCG@k"):
        expected = [explore.cutoff_values(LABELS, k)[name] for k in range(1, 7)]
        np.testing.assert_allclose(lines[name], np.column_stack([np.arange(1, 7), expected]))
    np.testing.assert_allclose(lines["k = 3"][:, 0], 3)
    assert ax.get_title() == "P@k, R@k and nDCG@k of one ranking\nat k = 3: P@3 = 0.667, R@3 = 0.500, nDCG@3 = 0.840"
    assert ex.set_k(6)["R@k"] == 1.0 and ex.state == {"k": 6}


@pytest.mark.parametrize("order", [[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [1, 4, 0, 2, 3, 5]])
def test_reorder_values_by_hand(order):
    values = explore.reorder_values(LABELS, order)
    ranked = [LABELS[i] for i in order]
    hits, ap = 0, 0.0
    for i, lab in enumerate(ranked, start=1):
        if lab >= 1:
            hits += 1
            ap += hits / i
    assert values["AP"] == pytest.approx(ap / 4)
    assert values["RR"] == pytest.approx(1 / (1 + next(i for i, lab in enumerate(ranked) if lab >= 1)))
    assert values["nDCG"] == pytest.approx(dcg_by_hand(ranked) / dcg_by_hand(sorted(LABELS, reverse=True)))


def test_reorder_explorer_callbacks_and_figure():
    ex = explore.reorder([0, 2, 1], names=["a", "b", "c"], show=False)
    assert [b.get_gid() for b in ex.figure.axes[0].containers[0]] == ["a", "b", "c"]
    assert [b.get_height() for b in ex.figure.axes[0].containers[0]] == [0, 2, 1]
    assert ex.move(2, -1) == explore.reorder_values([0, 2, 1], [1, 0, 2])
    assert ex.state["order"] == [1, 0, 2]
    ex.move(1, -1)  # already at the top: stays
    assert ex.state["order"] == [1, 0, 2]
    ex.move(2, +5)  # clipped to the bottom
    assert ex.state["order"] == [1, 2, 0]
    assert ex.values == {"AP": 1.0, "nDCG": 1.0, "RR": 1.0}
    ex.set_order("c, a b")
    assert ex.state["order"] == [2, 0, 1]
    ex.set_order(["a", "b", "c"])
    assert ex.state["order"] == [0, 1, 2]
    with pytest.raises(ValueError, match="order must name each document once"):
        ex.set_order("a a b")
    with pytest.raises(ValueError, match="rank must be from 1 to 3"):
        ex.move(4, -1)
    # the figure is the initial state's
    assert [b.get_gid() for b in ex.figure.axes[0].containers[0]] == ["a", "b", "c"]


OKABE_ITO_BLUE, OKABE_ITO_VERMILLION = "#0072b2", "#d55e00"
RED_GREEN = {"#d62728", "#2ca02c", "#ff0000", "#008000", "#00ff00"}  # tab:red, tab:green, red, green, lime


def _hex(colour):
    from matplotlib.colors import to_hex

    return to_hex(colour)


def _colours(ax):
    found = [line.get_color() for line in ax.lines] + [p.get_facecolor() for p in ax.patches]
    found += [c for coll in ax.collections for c in coll.get_facecolors()]
    return {_hex(c) for c in found}


def test_reorder_figure_shows_every_document_relevant_or_not():
    ranking = [1 if c == "O" else 0 for c in "X O X X O O O X O O".split()]
    names = [f"r{i}" for i in range(1, 11)]
    ex = explore.reorder(ranking, names=names, show=False)
    ax = ex.figure.axes[0]
    assert [b.get_height() for b in ax.containers[0]] == ranking  # bars: the labels, as before
    relevant, not_relevant = ax.collections[:2]
    # every rank has a marker at its label: non-relevant documents (zero-height bars) are seen
    marked = np.concatenate([relevant.get_offsets(), not_relevant.get_offsets()])
    assert sorted(map(tuple, marked.tolist())) == [(float(r), float(lab)) for r, lab in enumerate(ranking, start=1)]
    np.testing.assert_array_equal(not_relevant.get_offsets()[:, 0], [1, 3, 4, 8])
    low, _ = ax.get_ylim()
    assert low < 0  # a label-0 marker sits above the bottom of the axes, not on it
    # told apart by shape (disc, cross) and by colour-blind-safe colours, never red/green
    assert relevant.get_paths()[0] != not_relevant.get_paths()[0]
    assert {_hex(c) for c in relevant.get_facecolors()} == {OKABE_ITO_BLUE}
    assert {_hex(c) for c in not_relevant.get_facecolors()} == {OKABE_ITO_VERMILLION}
    assert not _colours(ax) & RED_GREEN
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["relevant (label ≥ 1)", "not relevant (label < 1)"]
    assert ax.get_ylabel() == "relevance label"
    # the widget's picture after a move shows them too
    ex.move(1, +3)
    moved = ex._draw(ex.state, ex.values).axes[0]
    # order r2 r3 r4 r1 r5 ...: r1 is now 4th
    np.testing.assert_array_equal(moved.collections[1].get_offsets()[:, 0], [2, 3, 4, 8])


def test_reorder_graded_labels_below_the_threshold_are_not_relevant():
    ex = explore.reorder([2, 0, 1, 3], rel=2, show=False)
    relevant, not_relevant = ex.figure.axes[0].collections[:2]
    np.testing.assert_array_equal(relevant.get_offsets(), [[1, 2], [4, 3]])
    np.testing.assert_array_equal(not_relevant.get_offsets(), [[2, 0], [3, 1]])
    bars = ex.figure.axes[0].containers[0]
    assert [_hex(b.get_facecolor()) for b in bars][0] == OKABE_ITO_BLUE


def test_rbp_err_and_cutoffs_figures_are_colour_blind_safe_and_say_what_they_count():
    import rankkit.plot as rkplot

    ax = explore.rbp_err(LABELS, show=False).figure.axes[0]
    styles = rkplot.system_styles(["RBP", "ERR"])
    for line in ax.lines[:2]:
        style = styles[line.get_label()]
        assert (_hex(line.get_color()), line.get_marker(), line.get_linestyle()) == (
            style["color"].lower(), style["marker"], style["linestyle"])
    assert ax.lines[0].get_linestyle() != ax.lines[1].get_linestyle()
    assert ax.get_ylabel() == "RBP or ERR of the ranking" and not _colours(ax) & RED_GREEN
    ax = explore.cutoffs(LABELS, k=3, show=False).figure.axes[0]
    looks = {(_hex(line.get_color()), line.get_marker(), line.get_linestyle()) for line in ax.lines[:3]}
    assert len(looks) == 3 and len({look[1] for look in looks}) == 3 and len({look[2] for look in looks}) == 3
    assert ax.get_ylabel() == "P@k, R@k or nDCG@k" and not _colours(ax) & RED_GREEN


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: explore.rbp_err([[1, 0], [0, 1]], show=False), "labels must be one ranking"),
        (lambda: explore.rbp_err([], show=False), "labels is empty"),
        (lambda: explore.rbp_err([1, 0], p=1.5, show=False), "p must be in"),
        (lambda: explore.cutoffs([1, 0], k=3, show=False), "k must be an integer from 1 to the length"),
        (lambda: explore.reorder_values([1, 0], [0, 0]), "order must be a permutation of 0..1"),
        (lambda: explore.reorder([1, 0], names=["a", "a"], show=False), "names must be 2 distinct"),
    ],
)
def test_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def figures_shown(bundles, widget, front_end_has_widgets):
    """How many copies of a figure a front end shows for these displayed bundles: it renders
    the widget view when it has widgets and the bundle has one (a figure per Image widget in
    ``widget``, the explorer's), else the PNG."""
    count = 0
    for bundle in bundles:
        if front_end_has_widgets and "application/vnd.jupyter.widget-view+json" in bundle:
            assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == widget.model_id
            count += sum(1 for w in widget_tree(widget) if type(w).__name__ == "Image")
        else:
            count += "image/png" in bundle
    return count


def widget_tree(widget):
    stack = [widget]
    while stack:
        w = stack.pop()
        yield w
        stack.extend(getattr(w, "children", ()))


@pytest.mark.parametrize("make", [lambda: explore.rbp_err(LABELS, p=0.5), lambda: explore.cutoffs(LABELS, k=2),
                                  lambda: explore.reorder([0, 2, 1])], ids=["rbp_err", "cutoffs", "reorder"])
def test_show_displays_one_output_and_one_figure(monkeypatch, make):
    """One output holding the PNG and the widget view: a front end shows the figure once, with
    widgets (inside the widget) or without (the PNG). A PNG output followed by the widget showed
    it twice wherever widgets work."""
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False: shown.append(obj))
    ex = make()
    assert len(shown) == 1
    (bundle,) = shown
    assert bundle["image/png"] == ex.figure_png() and bundle["image/png"].startswith(b"\x89PNG")
    assert bundle["text/plain"] == repr(ex)   # one line with the initial values, not a widget repr
    assert figures_shown(shown, ex.widget, front_end_has_widgets=False) == 1
    if explore.widgets_available():
        assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == ex.widget.model_id
        assert ex._image.value == bundle["image/png"]   # the widget starts from the same picture
        assert figures_shown(shown, ex.widget, front_end_has_widgets=True) == 1
    else:
        assert set(bundle) == {"image/png", "text/plain"} and ex.widget is None


def test_executed_notebook_has_one_output_per_explorer(tmp_path, monkeypatch):
    """What nbconvert and nbval store: each explorer cell has exactly one output, one image/png."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    import os
    from pathlib import Path

    root = str(Path(explore.__file__).resolve().parents[2])   # the kernel imports this rankkit
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    cells = ["%matplotlib inline\nfrom rankkit.teaching import explore",
             "ex = explore.rbp_err([3, 0, 2, 1], p=0.5);",
             "ex = explore.cutoffs([1, 0, 1, 0], k=2);",
             "ex = explore.reorder([0, 2, 1])",
             "import rankkit; print(rankkit.__file__)"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert nb.cells[-1].outputs[0]["text"].strip().startswith(root)
    for cell in nb.cells[1:4]:
        assert len(cell.outputs) == 1, cell.source
        (output,) = cell.outputs
        assert output["output_type"] == "display_data" and "image/png" in output["data"]
        assert output["data"]["text/plain"].startswith(f"<{cell.source.split('.')[1].split('(')[0]} explorer: ")


def test_widget_callbacks_update_the_numbers_and_the_picture():
    ipywidgets = pytest.importorskip("ipywidgets")
    ex = explore.rbp_err(LABELS, p=0.5, show=False)
    ex._attach([], ipywidgets)  # what show=True does, without a front end
    before = ex._image.value
    ex.set_p(0.9)
    assert f"<b>RBP</b> = {rbp_by_hand(LABELS, 0.9):.4f}" in ex._html.value
    assert ex._image.value != before

    shown = []
    import rankkit.teaching.explore as module

    original = module._display
    module._display = shown.append
    try:
        ex = explore.rbp_err(LABELS, p=0.5)
        slider = ex.widget.children[0]
        slider.value = 0.7  # the front end moving the slider
        assert ex.state == {"p": 0.7}
        assert ex.values["ERR"] == pytest.approx(err_by_hand(LABELS, 0.7, 3))

        ex = explore.cutoffs(LABELS, k=2)
        ex.widget.children[0].value = 5
        assert ex.values == explore.cutoff_values(LABELS, 5)

        ex = explore.reorder([0, 2, 1])
        (listing, buttons), text = ex.widget.children[0].children, ex.widget.children[1]
        listing.index = 1
        buttons.children[0].click()  # move up
        assert ex.state["order"] == [1, 0, 2] and listing.index == 0
        assert listing.options[0] == "1. d2 (label 2)" and text.value == "d2 d1 d3"
        buttons.children[1].click()  # move down again
        assert ex.state["order"] == [0, 1, 2]
        text.value = "d3 d2 d1"
        assert ex.state["order"] == [2, 1, 0]
        text.value = "d3 d3"
        assert ex.state["order"] == [2, 1, 0] and "order must name each document once" in ex._html.value
    finally:
        module._display = original


def test_without_ipython_the_error_says_what_to_install(monkeypatch):
    """Displaying needs IPython; without it the error names the extra, and show=False still works."""
    import builtins

    real_import = builtins.__import__

    def no_ipython(name, *args, **kwargs):
        if name == "IPython" or name.startswith("IPython."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ipython)
    with pytest.raises(ModuleNotFoundError, match=r"needs IPython: install rankkit with its \[notebooks\] extra"):
        explore.cutoffs([1, 0, 1], k=2)
    assert explore.cutoffs([1, 0, 1], k=2, show=False).figure is not None
