"""Interactive explorers for notebooks: move a slider or reorder a list, watch the metrics.

Each explorer computes its numbers with rankkit's own metric functions (the ``*_values``
functions below, usable and tested without any widget), draws a static matplotlib figure
of its initial state, and, when ipywidgets is installed, a widget that updates both.

In a notebook, end the call with ``;``::

    from rankkit.teaching import explore
    explore.rbp_err([3, 0, 2, 1, 0]);

An explorer is displayed as **one** output holding both forms of it: the widget
(``application/vnd.jupyter.widget-view+json``, whose figure follows the controls) and the
static figure (``image/png``, with the explorer's one-line repr as ``text/plain``). A front
end shows one of the two, never both: JupyterLab running the notebook shows the widget; a
page rendered to HTML without widget state, an untrusted notebook or a viewer without
widgets shows the PNG. (Two outputs, a PNG and then the widget, showed the figure twice
wherever widgets work: once as the PNG, once inside the widget.) nbval compares neither
the PNG nor the widget view (model ids are random), only the ``text/plain``, which holds
the initial values, so stored outputs stay deterministic. ipywidgets is imported only
when an explorer is displayed; ``import rankkit`` and ``import rankkit.teaching.explore``
never need it (nor pyplot: the figures are plain :class:`matplotlib.figure.Figure` objects).

Every explorer returns an :class:`Explorer` (which shows nothing more as a cell's value):
``values`` (the current numbers),
``figure`` (the static figure), ``widget`` (None without ipywidgets or with
``show=False``), and the callbacks the widget calls (``set_p``, ``set_k``, ``move``,
``set_order``), which tests and scripts can call directly.
"""

from __future__ import annotations

import html
import io
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..metrics.binary import average_precision, precision, recall, reciprocal_rank
from ..metrics.graded import err, ndcg, rbp
from ..plot import metric_at_k
from ..plot.style import series_kwargs
from ..rankings import as_rankings

__all__ = [
    "Explorer",
    "rbp_err",
    "rbp_err_values",
    "cutoffs",
    "cutoff_values",
    "reorder",
    "reorder_values",
    "widgets_available",
]


def widgets_available() -> bool:
    """Whether ipywidgets can be imported (the explorers then show a live widget)."""
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


def _one_ranking(labels, name: str = "labels") -> np.ndarray:
    r = as_rankings(labels)
    if not r.scalar:
        raise ValueError(f"{name} must be one ranking (a 1-D list of labels), got shape {r.labels.shape}")
    if r.labels.size == 0:
        raise ValueError(f"{name} is empty")
    return r.labels[0].copy()


def _figure(width: float = 6.4, height: float = 3.6):
    # a bare Figure: not registered with pyplot, so it is shown once, where we display it
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


def _png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def _bundle(explorer: Explorer) -> dict:
    """The one output an explorer displays: its static figure, and its widget when there is one.

    Front ends render the richest type they can: the widget where widgets work, else the
    PNG (its ``text/plain`` is the explorer's repr, for a terminal). A bare Figure has no
    display formatter unless pyplot's inline backend happens to be active, so the PNG is
    made here.
    """
    bundle = {"image/png": explorer.figure_png(), "text/plain": repr(explorer)}
    if explorer.widget is not None:
        view = explorer.widget._repr_mimebundle_()
        view = view[0] if isinstance(view, tuple) else view
        bundle[_WIDGET_VIEW] = view[_WIDGET_VIEW]
    return bundle


def _display(bundle: dict) -> None:
    try:
        from IPython.display import display
    except ImportError as err:
        raise ModuleNotFoundError(
            "rankkit.teaching.explore shows its figures in Jupyter and needs IPython: install rankkit with its "
            "[notebooks] extra (pip install \".[notebooks]\" in rankkit's folder), or pass show=False "
            "and use the explorer's .figure", name=err.name) from err
    display(bundle, raw=True)


_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _table(values: dict[str, float]) -> str:
    cells = "".join(f"<td><b>{html.escape(k)}</b> = {v:.4f}</td>" for k, v in values.items())
    return f"<table><tr>{cells}</tr></table>"


class Explorer:
    """The state of one explorer: its numbers, its static figure, its optional widget.

    Attributes
    ----------
    kind : str
        ``"rbp_err"``, ``"cutoffs"`` or ``"reorder"``.
    state : dict
        The reader's current choice (``{"p": ...}``, ``{"k": ...}`` or ``{"order": [...]}``).
    values : dict str -> float
        The metrics at that state.
    figure : matplotlib.figure.Figure
        The static figure of the *initial* state (what a rendered notebook shows).
    widget : ipywidgets.Widget or None
        The live widget; its HTML table and figure follow every update.
    """

    def __init__(self, kind: str, state: dict, compute: Callable[..., dict], draw: Callable[..., Any]):
        self.kind = kind
        self.state = dict(state)
        self._compute = compute
        self._draw = draw
        self.values = compute(**self.state)
        self.figure = draw(self.state, self.values)
        self.widget = None
        self._html = None
        self._image = None
        self._png = None

    def figure_png(self) -> bytes:
        """The static figure as PNG bytes, rendered once (the output and the widget share them)."""
        if self._png is None:
            self._png = _png(self.figure)
        return self._png

    def __repr__(self) -> str:
        state = ", ".join(f"{k}={v!r}" for k, v in self.state.items())
        values = ", ".join(f"{k}={v:.4f}" for k, v in self.values.items())
        return f"<{self.kind} explorer: {state}; {values}>"

    def _ipython_display_(self) -> None:
        """Show nothing as a cell's value: the explorer displayed itself when created.

        nbval executes cells without history, where IPython cannot see a trailing ``;``;
        an explorer that printed itself as the cell's value would then add an output the
        stored notebook (run with the ``;`` honoured) does not have. ``display(ex.figure)``
        or ``display(ex.widget)`` shows it again.
        """

    def update(self, **state) -> dict[str, float]:
        """Set the state, recompute the numbers, refresh the widget; returns ``values``."""
        self.state.update(state)
        self.values = self._compute(**self.state)
        if self._html is not None:
            self._html.value = _table(self.values)
        if self._image is not None:
            # an Image widget's value, not an Output widget: updating it sends widget state
            # only, never a cell output, whoever runs the notebook (nbclient, nbval)
            self._image.value = _png(self._draw(self.state, self.values))
        return self.values

    def _attach(self, controls: list, ipywidgets) -> None:
        self._html = ipywidgets.HTML(value=_table(self.values))
        self._image = ipywidgets.Image(value=self.figure_png(), format="png")
        self.widget = ipywidgets.VBox([*controls, self._html, self._image])


def _show(explorer: Explorer, show: bool, build_controls: Callable[[Any], list]) -> Explorer:
    if not show:
        return explorer
    if widgets_available():
        import ipywidgets

        explorer._attach(build_controls(ipywidgets), ipywidgets)
    _display(_bundle(explorer))  # one output: the widget or, without widgets, the figure
    return explorer


# --------------------------------------------------------------------------- RBP and ERR


def rbp_err_values(labels, p: float, *, rel: float = 1, max_grade: float | None = None) -> dict[str, float]:
    """RBP and ERR of one ranking at persistence ``p``.

    RBP is binary (label >= ``rel``; :func:`rankkit.rbp`); ERR is graded with
    R = (2**label - 1) / 2**max_grade (:func:`rankkit.err`; ``max_grade`` None: the largest
    label). RBP needs p < 1; ERR takes p = 1 (Chapelle et al.'s cascade).

    Examples
    --------
    >>> {k: round(v, 4) for k, v in rbp_err_values([2, 0, 1], 0.5).items()}
    {'RBP': 0.625, 'ERR': 0.7552}
    """
    labels = _one_ranking(labels)
    return {
        "RBP": float(rbp(labels, p=p, rel=rel)),
        "ERR": float(err(labels, p=p, max_grade=max_grade)),
    }


#: The persistence values of the static RBP / ERR figure.
P_GRID = np.arange(1, 100) / 100


def rbp_err(labels, *, p: float = 0.8, rel: float = 1, max_grade: float | None = None, show: bool = True) -> Explorer:
    """RBP and ERR of one ranking, with a slider for the persistence ``p``.

    The figure draws both metrics for p = 0.01, ..., 0.99 and marks the chosen p; the
    widget (a ``p`` slider, the two numbers, the figure) follows the slider.

    Parameters
    ----------
    labels : 1-D array-like
        Labels (grades) in rank order.
    p : float in (0, 1), default=0.8
        The initial persistence.
    rel : float, default=1
        RBP's relevance threshold.
    max_grade : float or None, default=None
        ERR's top grade (None: the largest label).
    show : bool, default=True
        Display the figure and the widget (in a notebook); False only builds them.

    Returns
    -------
    Explorer
        ``values`` ``{"RBP": ..., "ERR": ...}``; ``set_p(p)`` is the slider's callback.
        ``figure.axes[0].lines``: ``"RBP"`` and ``"ERR"`` as (p, value) over :data:`P_GRID`,
        styled by :func:`rankkit.plot.system_styles` (Okabe–Ito colours, a marker and a line
        style each), then the marker of the chosen p (label ``"p = ..."``).

    Examples
    --------
    >>> ex = rbp_err([2, 0, 1], p=0.5, show=False)
    >>> ex
    <rbp_err explorer: p=0.5; RBP=0.6250, ERR=0.7552>
    >>> round(ex.set_p(0.9)["RBP"], 4)
    0.181
    """
    labels = _one_ranking(labels)
    rbp_err_values(labels, p, rel=rel, max_grade=max_grade)  # validates before drawing

    def compute(p):
        return rbp_err_values(labels, p, rel=rel, max_grade=max_grade)

    curves = {"RBP": [], "ERR": []}
    for q in P_GRID:  # 99 persistence values of one ranking
        for name, value in compute(float(q)).items():
            curves[name].append(value)

    def draw(state, values):
        fig, ax = _figure()
        styles = series_kwargs({name: P_GRID.size for name in curves})  # markers a tenth of the axes apart
        for name in curves:
            ax.plot(P_GRID, curves[name], label=name, **styles[name])
        ax.plot([state["p"]] * 2, [values["RBP"], values["ERR"]], linestyle="none", marker="o",
                color="black", zorder=3, label=f"p = {state['p']:g}")
        ax.axvline(state["p"], color="0.6", linestyle=":", linewidth=1)
        ax.set_xlabel("persistence p")
        ax.set_ylabel("RBP or ERR of the ranking")
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, 1.05)
        ax.set_title(f"RBP and ERR as p varies\nat p = {state['p']:g}: "
                     f"RBP = {values['RBP']:.4f}, ERR = {values['ERR']:.4f}")
        ax.legend(loc="best")  # the curves start anywhere on the left: matplotlib finds the free corner
        return fig

    explorer = Explorer("rbp_err", {"p": float(p)}, compute, draw)
    explorer.set_p = lambda p: explorer.update(p=float(p))

    def controls(ipywidgets):
        slider = ipywidgets.FloatSlider(value=float(p), min=0.01, max=0.99, step=0.01, description="p")
        slider.observe(lambda change: explorer.set_p(change["new"]), names="value")
        return [slider]

    return _show(explorer, show, controls)


# --------------------------------------------------------------------------- cutoffs


def cutoff_values(labels, k: int, *, rel: float = 1, gain: str = "linear", n_relevant=None) -> dict[str, float]:
    """P@k, R@k and nDCG@k of one ranking (:func:`rankkit.precision`, :func:`rankkit.recall`,
    :func:`rankkit.ndcg`).

    Examples
    --------
    >>> {k: round(v, 4) for k, v in cutoff_values([0, 1, 1, 0, 1], 3).items()}
    {'P@k': 0.6667, 'R@k': 0.6667, 'nDCG@k': 0.5307}
    """
    labels = _one_ranking(labels)
    return {
        "P@k": float(precision(labels, k=k, rel=rel)),
        "R@k": float(recall(labels, k=k, rel=rel, n_relevant=n_relevant)),
        "nDCG@k": float(ndcg(labels, k=k, gain=gain)),
    }


def cutoffs(
    labels, *, k: int = 5, rel: float = 1, gain: str = "linear", n_relevant=None, show: bool = True
) -> Explorer:
    """P@k, R@k and nDCG@k of one ranking, with a slider for the cutoff ``k``.

    The figure (:func:`rankkit.plot.metric_at_k`) draws the three metrics at every k from 1
    to the length of the ranking and marks the chosen k.

    Parameters
    ----------
    labels : 1-D array-like
        Labels in rank order.
    k : int, default=5
        The initial cutoff (at most the length of the ranking).
    rel, gain, n_relevant
        As in :func:`rankkit.precision` / :func:`rankkit.recall` / :func:`rankkit.ndcg`.
    show : bool, default=True
        Display the figure and the widget.

    Returns
    -------
    Explorer
        ``values`` ``{"P@k", "R@k", "nDCG@k"}``; ``set_k(k)`` is the slider's callback.
        ``figure.axes[0].lines``: ``"P@k"``, ``"R@k"``, ``"nDCG@k"`` as (k, value), styled
        as :func:`rankkit.plot.metric_at_k` styles them, then the chosen k's vertical line
        (label ``"k = ..."``).

    Examples
    --------
    >>> ex = cutoffs([1, 0, 1, 0], k=2, show=False)
    >>> ex.values["P@k"], ex.set_k(4)["R@k"]
    (0.5, 1.0)
    """
    labels = _one_ranking(labels)
    depth = labels.size
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or not 1 <= k <= depth:
        raise ValueError(f"k must be an integer from 1 to the length of the ranking ({depth}), got {k!r}")

    def compute(k):
        return cutoff_values(labels, k, rel=rel, gain=gain, n_relevant=n_relevant)

    ks = np.arange(1, depth + 1)
    table = pd.DataFrame([compute(int(i)) for i in ks], index=pd.Index(ks, name="k"))

    def draw(state, values):
        fig, ax = _figure()
        metric_at_k(table, ax=ax)
        ax.axvline(state["k"], color="0.4", linestyle=":", linewidth=1, label=f"k = {state['k']}")
        ax.set_ylim(0.0, 1.05)
        ax.set_ylabel("P@k, R@k or nDCG@k")
        ax.set_title(f"P@k, R@k and nDCG@k of one ranking\nat k = {state['k']}: "
                     + ", ".join(f"{name[:-1]}{state['k']} = {v:.3f}" for name, v in values.items()))
        ax.legend(loc="lower right")
        return fig

    explorer = Explorer("cutoffs", {"k": int(k)}, compute, draw)
    explorer.set_k = lambda k: explorer.update(k=int(k))

    def controls(ipywidgets):
        slider = ipywidgets.IntSlider(value=int(k), min=1, max=depth, step=1, description="k")
        slider.observe(lambda change: explorer.set_k(change["new"]), names="value")
        return [slider]

    return _show(explorer, show, controls)


# --------------------------------------------------------------------------- reorder

#: Okabe–Ito blue and vermillion (see :data:`rankkit.plot.PALETTE`), and a neutral grey.
_RELEVANT, _NOT_RELEVANT, _GREY = "#0072B2", "#D55E00", "#BBBBBB"

#: Room below and above the labels of the reordered list, as fractions of their range: for the
#: markers of label-0 documents below, for the legend above.
_MARGIN_BELOW, _MARGIN_ABOVE = 0.12, 0.45

#: The documents the ranked list shows at once; a longer list scrolls.
_LIST_ROWS = 10


def _draw_ranked_list(ranked: np.ndarray, names: list, rel: float, values: dict):
    """The figure of :func:`reorder`: a bar per rank (height = label) and, so that a document
    of label 0 shows, a marker per document at its label (a blue disc when relevant, a
    vermillion cross when not: told apart by shape as well as colour)."""
    fig, ax = _figure()
    n = ranked.size
    ranks = np.arange(1, n + 1)
    relevant = ranked >= rel
    bars = ax.bar(ranks, ranked, color=np.where(relevant, _RELEVANT, _GREY).tolist(), edgecolor="black",
                  linewidth=0.6, width=0.6, label="label at each rank")
    for bar, name in zip(bars, names):
        bar.set_gid(name)
    for mask, marker, color, text in ((relevant, "o", _RELEVANT, f"relevant (label ≥ {rel:g})"),
                                      (~relevant, "X", _NOT_RELEVANT, f"not relevant (label < {rel:g})")):
        ax.scatter(ranks[mask], ranked[mask], marker=marker, s=80, color=color, edgecolors="black",
                   linewidths=0.6, zorder=3, label=text)
    top = max(float(ranked.max()), rel, 1.0)
    bottom = min(float(ranked.min()), 0.0)
    span = top - bottom
    ax.set_ylim(bottom - _MARGIN_BELOW * span, top + _MARGIN_ABOVE * span)
    if np.all(ranked == np.round(ranked)):  # grades: a tick per grade, none above the top one
        ax.set_yticks(np.arange(int(bottom), int(np.ceil(top)) + 1))
    ax.set_xlim(0.4, n + 0.6)
    ax.set_xticks(ranks, [f"{r}\n{name}" for r, name in zip(ranks, names)])
    ax.set_xlabel("rank and document")
    ax.set_ylabel("relevance label")
    ax.set_title("Reordered list\n" + ", ".join(f"{k} = {v:.4f}" for k, v in values.items()))
    ax.legend(handles=ax.collections, loc="upper center", ncol=2)
    return fig


def reorder_values(
    labels, order: Sequence[int] | None = None, *, rel: float = 1, gain: str = "linear"
) -> dict[str, float]:
    """AP, nDCG and RR of ``labels`` shown in ``order`` (positions into ``labels``).

    The list holds every judged document, so R and the ideal DCG do not change with the
    order: AP = :func:`rankkit.average_precision`, nDCG = :func:`rankkit.ndcg`, RR =
    :func:`rankkit.reciprocal_rank`.

    Examples
    --------
    >>> {k: round(v, 4) for k, v in reorder_values([0, 2, 1], [1, 2, 0]).items()}
    {'AP': 1.0, 'nDCG': 1.0, 'RR': 1.0}
    >>> {k: round(v, 4) for k, v in reorder_values([0, 2, 1]).items()}
    {'AP': 0.5833, 'nDCG': 0.6697, 'RR': 0.5}
    """
    labels = _one_ranking(labels)
    ordered = labels[_check_order(order, labels.size)]
    return {
        "AP": float(average_precision(ordered, rel=rel)),
        "nDCG": float(ndcg(ordered, gain=gain)),
        "RR": float(reciprocal_rank(ordered, rel=rel)),
    }


def _check_order(order, n: int) -> np.ndarray:
    if order is None:
        return np.arange(n)
    try:
        arr = np.asarray(list(order))
    except TypeError:
        raise ValueError(f"order must be a permutation of 0..{n - 1}, got {order!r}") from None
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer) or sorted(arr.tolist()) != list(range(n)):
        raise ValueError(f"order must be a permutation of 0..{n - 1}, got {order!r}")
    return arr.astype(np.int64)


def reorder(labels, *, names=None, rel: float = 1, gain: str = "linear", show: bool = True) -> Explorer:
    """A ranked list the reader reorders, while AP, nDCG and RR follow.

    The widget lists the documents in their current order: select one and move it up or
    down with the buttons, or type the whole order (document names, separated by spaces
    or commas) in the text box. The figure shows each rank's label as a bar (blue when
    relevant, grey when not) and every document as a marker at its label: a blue disc when
    relevant, a vermillion cross when not, so a document labelled 0 (a bar of no height)
    is seen too.

    Parameters
    ----------
    labels : 1-D array-like
        Labels of the documents, in their initial order (all judged documents of the query).
    names : sequence of str, optional
        Document names; default ``"d1"``, ``"d2"``, ... in the initial order.
    rel, gain
        As in :func:`reorder_values`.
    show : bool, default=True
        Display the figure and the widget.

    Returns
    -------
    Explorer
        ``state["order"]`` is the current order (positions into ``labels``); ``values``
        ``{"AP", "nDCG", "RR"}``. Callbacks: ``move(rank, step)`` moves the document at
        ``rank`` (1-based) by ``step`` ranks (-1 up, +1 down); ``set_order(names)`` takes the
        document names (or a string of them) in their new order. ``figure.axes[0]``:
        ``containers[0]`` the bars (height = label, gid = document name) in rank order;
        ``collections[0]`` the markers of the relevant documents and ``collections[1]``
        those of the others, at (rank, label).

    Examples
    --------
    >>> ex = reorder([0, 2, 1], show=False)
    >>> round(ex.values["AP"], 4), ex.move(2, -1)["RR"], ex.state["order"]
    (0.5833, 1.0, [1, 0, 2])
    >>> ex.set_order("d2 d3 d1")["nDCG"]
    1.0
    """
    labels = _one_ranking(labels)
    names = _document_names(names, labels.size)

    def compute(order):
        return reorder_values(labels, order, rel=rel, gain=gain)

    def draw(state, values):
        return _draw_ranked_list(labels[state["order"]], [names[i] for i in state["order"]], rel, values)

    explorer = Explorer("reorder", {"order": list(range(labels.size))}, compute, draw)
    ranking = _ReorderedList(explorer, labels, names)
    explorer.move = ranking.move
    explorer.set_order = ranking.set_order
    return _show(explorer, show, ranking.controls)


def _document_names(names, n: int) -> list[str]:
    """``names`` as n distinct strings; ``"d1"``, ``"d2"``, ... when None."""
    if names is None:
        names = [f"d{i + 1}" for i in range(n)]
    names = [str(x) for x in names]
    if len(names) != n or len(set(names)) != n:
        raise ValueError(f"names must be {n} distinct document names, got {names!r}")
    return names


class _ReorderedList:
    """The callbacks of :func:`reorder` and, once displayed, its widgets: the ranked list
    (one option per document), the move buttons and the text box of the order."""

    def __init__(self, explorer: Explorer, labels: np.ndarray, names: list[str]):
        self.explorer, self.labels, self.names = explorer, labels, names
        self.position = {name: i for i, name in enumerate(names)}
        self.listing = self.text = None  # the Select and Text widgets, when shown

    def move(self, rank: int, step: int) -> dict[str, float]:
        """Move the document at ``rank`` (1-based) by ``step`` ranks (-1 up, +1 down)."""
        n = self.labels.size
        order = list(self.explorer.state["order"])
        if not (isinstance(rank, (int, np.integer)) and 1 <= rank <= n):
            raise ValueError(f"rank must be from 1 to {n}, got {rank!r}")
        target = min(max(rank - 1 + int(step), 0), n - 1)
        order.insert(target, order.pop(rank - 1))
        values = self.explorer.update(order=order)
        self._sync(target)
        return values

    def set_order(self, order) -> dict[str, float]:
        """Take the document names (or a string of them) in their new order."""
        tokens = order.replace(",", " ").split() if isinstance(order, str) else [str(x) for x in order]
        unknown = [t for t in tokens if t not in self.position]
        if unknown or sorted(tokens) != sorted(self.names):
            raise ValueError(f"order must name each document once ({' '.join(self.names)}), got {order!r}")
        values = self.explorer.update(order=[self.position[t] for t in tokens])
        self._sync(None)
        return values

    def _options(self) -> list[str]:
        return [f"{r}. {self.names[i]} (label {self.labels[i]:g})"
                for r, i in enumerate(self.explorer.state["order"], start=1)]

    def _sync(self, selected: int | None) -> None:
        """The widgets after a change: the list in its new order, ``selected`` kept selected."""
        if self.listing is None:
            return
        self.listing.options = self._options()
        if selected is not None:
            self.listing.index = selected
        self.text.value = " ".join(self.names[i] for i in self.explorer.state["order"])

    def _typed(self, change) -> None:
        try:
            self.set_order(change["new"])
        except ValueError as error:
            self.explorer._html.value = html.escape(str(error))

    def controls(self, ipywidgets) -> list:
        """The widgets above the explorer's table and figure (see :func:`_show`)."""
        n = self.labels.size
        self.listing = ipywidgets.Select(options=self._options(), index=0, rows=min(n, _LIST_ROWS),
                                         description="ranking")
        up = ipywidgets.Button(description="move up")
        down = ipywidgets.Button(description="move down")
        self.text = ipywidgets.Text(value=" ".join(self.names), description="order", continuous_update=False)
        up.on_click(lambda _: self.move(self.listing.index + 1, -1))
        down.on_click(lambda _: self.move(self.listing.index + 1, +1))
        self.text.observe(self._typed, names="value")
        return [ipywidgets.HBox([self.listing, ipywidgets.VBox([up, down])]), self.text]
