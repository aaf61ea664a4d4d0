"""Reporting a :func:`rankkit.stats.compare` table: Markdown, LaTeX, plain text, a styled table.

:func:`to_markdown`, :func:`to_latex` and :func:`to_text` render the table as text with
the significant differences marked and a closing line naming the mark, the test and the
correction; :func:`style` gives a pandas Styler for Jupyter; :func:`pyterrier_view`
lays the table out as pyterrier's ``Experiment``. Each takes the DataFrame ``compare``
returns (its columns, and ``table.attrs`` for the test, correction and alpha) and
checks it is one.

They are also importable from :mod:`rankkit.stats` (``rankkit.stats.to_markdown``), where
``compare`` lives. This module formats the table it is given: it does not import
:mod:`rankkit.stats` (nor scipy); the columns of a ``compare`` table, :data:`COLUMNS`, are
defined here and ``compare`` builds its table with them.
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._validation import check_option

__all__ = ["ComparisonTable", "pyterrier_view", "style", "to_markdown", "to_latex", "to_text", "COLUMNS"]

#: The columns of a :func:`rankkit.stats.compare` table, in order.
COLUMNS = [
    "system", "metric", "baseline", "mean", "baseline_mean", "diff", "ci_low", "ci_high",
    "p_value", "p_adjusted", "effect_size", "significant", "n_queries", "wins", "losses",
]

#: The columns :func:`rankkit.stats.compare` adds with ``delta``: queries a paired t-test needs
#: to detect that difference, and the smallest difference it detects with the queries compared.
POWER_COLUMNS = ["n_needed", "detectable"]

#: Layouts of :func:`to_markdown`, :func:`to_latex` and :func:`to_text`.
LAYOUTS = ("long", "wide")


class ComparisonTable(pd.DataFrame):
    """The DataFrame :func:`rankkit.stats.compare` returns: a pandas DataFrame in every respect,
    whose printed form (``print``, ``repr``, Jupyter's HTML) ends with the note of
    :func:`to_markdown` on the aggregates of a model's ScoreTable (AUC pooled over every row,
    ...) where they are not the mean over queries that was compared; without one, it prints
    as any DataFrame. What is selected from it stays one, the note then naming the metrics
    still shown."""

    _metadata: list[str] = []

    @property
    def _constructor(self):
        return ComparisonTable

    def _printed_note(self) -> str:
        metrics = set(self["metric"]) if "metric" in self.columns else None
        return _aggregates_note(self.attrs, metrics).strip()

    def __repr__(self) -> str:
        note = self._printed_note()
        return super().__repr__() + (f"\n{note}" if note else "")

    def _repr_html_(self) -> str | None:
        html, note = super()._repr_html_(), self._printed_note()
        if html is None or not note:
            return html
        from html import escape

        return f"{html}<p>{escape(note)}</p>"


def _check_table(table: pd.DataFrame) -> None:
    """Refuse anything but a :func:`rankkit.stats.compare` result, naming missing columns."""
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"table must be a compare() result; missing columns {missing!r}")


def pyterrier_view(table: pd.DataFrame) -> pd.DataFrame:
    """A :func:`rankkit.stats.compare` table laid out as pyterrier's
    ``Experiment(..., baseline=0)``: one row per system (the baseline first), and per
    metric its mean, ``+`` and ``-`` (queries above / below the baseline), ``p-value``,
    ``p-value corrected`` and ``reject``; the baseline's own comparison cells are empty.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit.stats import compare
    >>> idx = pd.Index(["q1", "q2", "q3"], name="query_id")
    >>> runs = {"bm25": pd.DataFrame({"AP": [0.1, 0.2, 0.3]}, index=idx),
    ...         "dense": pd.DataFrame({"AP": [0.3, 0.1, 0.5]}, index=idx)}
    >>> view = pyterrier_view(compare(None, runs, "AP", baseline="bm25"))
    >>> view[["AP", "AP +", "AP -"]]
                 AP  AP +  AP -
    name
    bm25   0.200000   NaN   NaN
    dense  0.300000   2.0   1.0
    """
    _check_table(table)
    baselines = table["baseline"].unique()
    if len(baselines) != 1:
        raise ValueError(f"pyterrier_view needs one baseline (compare(..., baseline=...)), got {list(baselines)!r}")
    base = baselines[0]
    systems = [base, *dict.fromkeys(table["system"])]
    out = pd.DataFrame(index=pd.Index(systems, name="name"))
    for metric, rows in table.groupby("metric", sort=False):
        rows = rows.set_index("system")
        out[metric] = pd.Series({base: rows["baseline_mean"].iloc[0], **rows["mean"].to_dict()})
        out[f"{metric} +"] = rows["wins"].astype(float)
        out[f"{metric} -"] = rows["losses"].astype(float)
        out[f"{metric} p-value"] = rows["p_value"]
        out[f"{metric} p-value corrected"] = rows["p_adjusted"]
        out[f"{metric} reject"] = rows["significant"].astype(object)
    return out


def _fmt_num(x, digits: int, sign: bool = False) -> str:
    if not np.isfinite(x):
        return "inf" if x > 0 else ("-inf" if x < 0 else "nan")
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _fmt_p(p, digits: int) -> str:
    floor = 10.0 ** -digits
    return f"<{floor:.{digits}f}" if p < floor else f"{p:.{digits}f}"


def _display_frame(table: pd.DataFrame, digits: int, mark: str,
                   layout: str = "long") -> pd.DataFrame:
    """The table as strings: the columns a reader wants, the mark on significant diffs."""
    _check_table(table)
    layout = check_option(layout, LAYOUTS, "layout")
    if layout == "wide":
        return _wide_frame(table, digits, mark)
    conf = 1 - float(table.attrs.get("alpha", 0.05))
    rows = {
        "System": table["system"].astype(str),
        "Baseline": table["baseline"].astype(str),
        "Metric": table["metric"].astype(str),
        "Mean": [_fmt_num(x, digits) for x in table["mean"]],
        "Baseline mean": [_fmt_num(x, digits) for x in table["baseline_mean"]],
        "Diff": [_fmt_num(x, digits, sign=True) + (mark if s else "")
                 for x, s in zip(table["diff"], table["significant"])],
        f"{conf:.0%} CI": [f"[{_fmt_num(lo, digits, True)}, {_fmt_num(hi, digits, True)}]"
                           for lo, hi in zip(table["ci_low"], table["ci_high"])],
        "p": [_fmt_p(p, digits) for p in table["p_value"]],
        "p adj.": [_fmt_p(p, digits) for p in table["p_adjusted"]],
        "d": [_fmt_num(x, 2, sign=True) for x in table["effect_size"]],
    }
    if all(c in table.columns for c in POWER_COLUMNS):
        rows["Detectable"] = [_fmt_missing(x, lambda v: _fmt_num(v, digits)) for x in table["detectable"]]
        rows["Queries needed"] = [_fmt_missing(n, lambda v: str(int(v))) for n in table["n_needed"]]
    return pd.DataFrame(rows)


def _fmt_missing(x, fmt) -> str:
    """``fmt(x)``, or ``n/a`` for a missing value (NaN, pandas' NA)."""
    return "n/a" if pd.isna(x) else fmt(x)


def _wide_frame(table: pd.DataFrame, digits: int, mark: str) -> pd.DataFrame:
    """Systems as rows (baseline first), metrics as columns, means marked if significant."""
    bases = list(dict.fromkeys(table["baseline"]))
    if len(bases) != 1:
        raise ValueError("layout='wide' needs a table with one baseline "
                         f"(compare(..., baseline=NAME)), got {len(bases)} baselines")
    metrics = list(dict.fromkeys(table["metric"]))
    systems = list(dict.fromkeys(table["system"]))
    cells = {(r.system, r.metric): _fmt_num(r.mean, digits) + (mark if r.significant else "")
             for r in table.itertuples(index=False)}
    base_means = dict(zip(table["metric"], table["baseline_mean"]))
    rows = {"System": [str(bases[0])] + [str(s) for s in systems]}
    for m in metrics:
        rows[str(m)] = [_fmt_num(base_means[m], digits)] + [cells.get((s, m), "") for s in systems]
    return pd.DataFrame(rows)


def _note(table: pd.DataFrame, mark: str, layout: str = "long") -> str:
    attrs = table.attrs
    alpha = attrs.get("alpha", 0.05)
    correction = attrs.get("correction", "holm")
    test = attrs.get("test", "t")
    tests = {"t": "paired t-test", "randomization": "paired randomization test",
             "bootstrap": "paired bootstrap test", "wilcoxon": "Wilcoxon signed-rank test",
             "tukey": "Tukey's HSD"}
    if test == "tukey":  # its intervals and p-values cover every pair of the family already
        corr = "which corrects for every comparison of a metric itself"
    else:
        corr = "no correction" if correction == "none" else f"{correction} correction per metric"
    marked = bool(table["significant"].any())  # no mark shown, none explained: say that none is significant
    if layout == "wide":
        base = table["baseline"].iloc[0] if len(table) else ""
        which = f"{mark} significantly different" if marked else "none significantly different"
        return (f"Means; {which} from {base} at alpha = {alpha:g} "
                f"({tests.get(test, test)}, {corr}).{_aggregates_note(attrs)}")
    power = ""
    if "delta" in attrs and all(c in table.columns for c in POWER_COLUMNS):
        power = (f"; detectable: the smallest difference a paired t-test detects with power "
                 f"{attrs.get('power', 0.8):g} on these queries; queries needed: the queries it needs to "
                 f"detect a difference of {attrs['delta']:g}")
    which = f"{mark} significant" if marked else "No difference is significant"
    return (f"{which} at alpha = {alpha:g} ({tests.get(test, test)}, {corr}); "
            f"d: paired Cohen's d{power}.{_aggregates_note(attrs)}")


def _aggregates_note(attrs: dict, metrics=None) -> str:
    """The sentence saying which mean was compared where a ScoreTable's own aggregate of a
    metric (AUC over every row, ...) is another number of the same name; empty otherwise
    (and for the metrics not in ``metrics``, when given)."""
    parts = []
    for metric, values in attrs.get("aggregates", {}).items():
        if metrics is not None and metric not in metrics:
            continue
        shown = ", ".join(f"{system} {value:.4f}" for system, value in values.items())
        parts.append(f"Mean {metric} is the mean over queries of per-query {metric}, not the "
                     f"ScoreTable's all[{metric!r}] ({shown}).")
    return "".join(" " + p for p in parts)


def to_markdown(table: pd.DataFrame, *, digits: int = 4, mark: str = "†",
                layout: str = "long") -> str:
    """Render a :func:`rankkit.stats.compare` table as a Markdown (pipe) table with marks.

    No dependency beyond pandas (``tabulate`` is not needed).

    Parameters
    ----------
    table : DataFrame
        The result of :func:`rankkit.stats.compare`.
    digits : int, default=4
        Decimals of means, differences, intervals and p-values (smaller p-values print
        as ``<0.0001``); effect sizes get 2.
    mark : str, default="†"
        Appended to the difference when ``significant`` (``p_adjusted < alpha``).
    layout : {"long", "wide"}, default="long"
        ``"long"``: one line per comparison with both means, difference, interval,
        p-values and effect size. ``"wide"``: the table of a paper, one line per system (the baseline
        first) and one column per metric, each cell the system's mean, marked when it is
        significantly different from the baseline; needs a single baseline.

    Returns
    -------
    str
        The table, then a line explaining the mark, test and correction.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit.stats import compare
    >>> a = pd.DataFrame({"AP": [0.2, 0.4, 0.1, 0.5]})
    >>> b = pd.DataFrame({"AP": [0.3, 0.6, 0.2, 0.6]})
    >>> print(to_markdown(compare(None, {"bm25": a, "neural": b}, "AP")))
    | System | Baseline | Metric | Mean   | Baseline mean | Diff     | 95% CI             | p      | p adj. | d     |
    | ------ | -------- | ------ | ------ | ------------- | -------- | ------------------ | ------ | ------ | ----- |
    | neural | bm25     | AP     | 0.4250 | 0.3000        | +0.1250† | [+0.0454, +0.2046] | 0.0154 | 0.0154 | +2.50 |
    <BLANKLINE>
    † significant at alpha = 0.05 (paired t-test, holm correction per metric); d: paired Cohen's d.
    >>> print(to_markdown(compare(None, {"bm25": a, "neural": b}, "AP", baseline="bm25"),
    ...                   layout="wide"))
    | System | AP      |
    | ------ | ------- |
    | bm25   | 0.3000  |
    | neural | 0.4250† |
    <BLANKLINE>
    Means; † significantly different from bm25 at alpha = 0.05 (paired t-test, holm correction per metric).
    """
    digits = _check_digits(digits)
    frame = _display_frame(table, digits, mark, layout)

    def cell(s) -> str:
        return str(s).replace("|", "\\|")

    header = [cell(c) for c in frame.columns]
    body = [[cell(v) for v in row] for row in frame.itertuples(index=False)]
    widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(header)]

    def line(cells) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    out = [line(header), line(["-" * w for w in widths])] + [line(r) for r in body]
    return "\n".join(out) + "\n\n" + _note(table, mark, layout)


def to_text(table: pd.DataFrame, *, digits: int = 4, mark: str = "†",
            layout: str = "long") -> str:
    """Render a :func:`rankkit.stats.compare` table as plain text, for a terminal or a log.

    The columns of :func:`to_markdown`, aligned with spaces (pandas' ``to_string``), then
    the line explaining the mark, test and correction. It is what ``rankkit compare``
    prints by default.

    Parameters
    ----------
    table : DataFrame
        The result of :func:`rankkit.stats.compare`.
    digits : int, default=4
        Decimals, as in :func:`to_markdown`.
    mark : str, default="†"
        Appended to a significant difference: the mark of :func:`to_markdown`,
        :func:`to_latex` and :func:`style`, so that a table reads the same in every format
        (``rankkit compare`` falls back to ``*`` only where its output cannot encode ``†``).
    layout : {"long", "wide"}, default="long"
        As in :func:`to_markdown`.

    Returns
    -------
    str
        No trailing newline.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit.stats import compare
    >>> a = pd.DataFrame({"AP": [0.2, 0.4, 0.1, 0.5]})
    >>> b = pd.DataFrame({"AP": [0.3, 0.6, 0.2, 0.6]})
    >>> print(to_text(compare(None, {"bm25": a, "neural": b}, "AP", baseline="bm25")))
    System Baseline Metric   Mean Baseline mean     Diff             95% CI      p p adj.     d
    neural     bm25     AP 0.4250        0.3000 +0.1250† [+0.0454, +0.2046] 0.0154 0.0154 +2.50
    † significant at alpha = 0.05 (paired t-test, holm correction per metric); d: paired Cohen's d.
    """
    digits = _check_digits(digits)
    frame = _display_frame(table, digits, mark, layout)
    return frame.to_string(index=False) + "\n" + _note(table, mark, layout)


_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
    "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}


def _latex_escape(s: str) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in s)


def to_latex(table: pd.DataFrame, *, digits: int = 4, mark: str = r"$^\dagger$",
             layout: str = "long", caption: str | None = None,
             label: str | None = None) -> str:
    r"""Render a :func:`rankkit.stats.compare` table as a LaTeX ``tabular`` (booktabs).

    Needs ``\usepackage{booktabs}``. Text cells are escaped; the mark is inserted
    verbatim. With ``caption`` or ``label``, the tabular is wrapped in a ``table``
    environment.

    Parameters
    ----------
    table : DataFrame
        The result of :func:`rankkit.stats.compare`.
    digits : int, default=4
        Decimals, as in :func:`to_markdown`.
    mark : str, default="$^\\dagger$"
        LaTeX appended to a significant difference.
    layout : {"long", "wide"}, default="long"
        As in :func:`to_markdown`: one row per comparison, or systems x metrics means.
    caption, label : str or None
        Optional ``\caption`` and ``\label``.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit.stats import compare
    >>> a = pd.DataFrame({"P@5": [0.2, 0.4, 0.0, 0.6]})
    >>> b = pd.DataFrame({"P@5": [0.4, 0.6, 0.2, 0.6]})
    >>> print(to_latex(compare(None, {"run_a": a, "run_b": b}, "P@5")))
    \begin{tabular}{lllrrrrrrr}
    \toprule
    System & Baseline & Metric & Mean & Baseline mean & Diff & 95\% CI & p & p adj. & d \\
    \midrule
    run\_b & run\_a & P@5 & 0.4500 & 0.3000 & +0.1500 & [-0.0091, +0.3091] & 0.0577 & 0.0577 & +1.50 \\
    \bottomrule
    \multicolumn{10}{l}{\footnotesize No difference is significant at alpha = 0.05 (paired t-test, holm correction per metric); d: paired Cohen's d.} \\
    \end{tabular}
    """  # noqa: E501 (a doctest line as LaTeX prints it)
    digits = _check_digits(digits)
    frame = _display_frame(table, digits, "\0", layout)  # placeholder: mark not escaped
    cols = list(frame.columns)
    first = 3 if layout == "long" else 1  # text columns, left-aligned

    def cell(s) -> str:
        return _latex_escape(str(s)).replace("\0", mark)

    lines = [r"\begin{tabular}{" + "l" * first + "r" * (len(cols) - first) + "}", r"\toprule",
             " & ".join(cell(c) for c in cols) + r" \\", r"\midrule"]
    lines += [" & ".join(cell(v) for v in row) + r" \\" for row in frame.itertuples(index=False)]
    note = _latex_escape(_note(table, "\0", layout)).replace("\0", mark)
    lines += [r"\bottomrule",
              rf"\multicolumn{{{len(cols)}}}{{l}}{{\footnotesize {note}}} \\",
              r"\end{tabular}"]
    body = "\n".join(lines)
    if caption is None and label is None:
        return body
    head = [r"\begin{table}", r"\centering"]
    if caption is not None:
        head.append(rf"\caption{{{_latex_escape(caption)}}}")
    if label is not None:
        head.append(rf"\label{{{label}}}")
    return "\n".join(head + [body, r"\end{table}"])


def style(table: pd.DataFrame, *, digits: int = 4, mark: str = "†"):
    """A pandas Styler showing a :func:`rankkit.stats.compare` table readably in Jupyter.

    Numbers formatted to ``digits`` decimals (p-values below ``10**-digits`` as
    ``<0.0001``), the ``significant`` column shown as ``mark``, significant rows'
    difference and adjusted p-value in bold, the index hidden, and a caption naming
    the test and correction. pandas' Styler needs ``jinja2`` (installed with
    jupyterlab; not a core dependency of rankkit), so it is imported only here.

    Parameters
    ----------
    table : DataFrame
        The result of :func:`rankkit.stats.compare`.
    digits : int, default=4
    mark : str, default="†"

    Returns
    -------
    pandas.io.formats.style.Styler

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit.stats import compare
    >>> a = pd.DataFrame({"AP": [0.2, 0.4, 0.1, 0.5]})
    >>> b = pd.DataFrame({"AP": [0.3, 0.6, 0.2, 0.6]})
    >>> html = style(compare(None, {"bm25": a, "neural": b}, "AP")).to_html()
    >>> "0.1250" in html and "†" in html
    True
    """
    digits = _check_digits(digits)
    _display_frame(table, digits, mark)  # validates the columns
    try:
        import jinja2  # noqa: F401  (pandas' Styler renders with jinja2)
    except ImportError as exc:  # pragma: no cover - jinja2 ships with jupyter
        raise ImportError("style() needs jinja2 (pip install jinja2)") from exc

    def num(x):
        return _fmt_num(x, digits)

    def signed(x):
        return _fmt_num(x, digits, sign=True)

    formats = {
        "mean": num, "baseline_mean": num, "diff": signed, "ci_low": signed, "ci_high": signed,
        "p_value": lambda p: _fmt_p(p, digits), "p_adjusted": lambda p: _fmt_p(p, digits),
        "effect_size": lambda x: _fmt_num(x, 2, sign=True),
        "significant": lambda s: mark if s else "",
        "detectable": lambda x: _fmt_missing(x, num),
        "n_needed": lambda n: _fmt_missing(n, lambda v: str(int(v))),
    }
    sig = table["significant"].to_numpy()

    def bold(col):
        return ["font-weight: bold" if s else "" for s in sig]

    return (table.style
            .format({k: v for k, v in formats.items() if k in table.columns})
            .apply(bold, subset=["diff", "p_adjusted"], axis=0)
            .hide(axis="index")
            .set_caption(_note(table, mark)))


def _check_digits(digits) -> int:
    if not isinstance(digits, numbers.Integral) or isinstance(digits, (bool, np.bool_)) or digits < 0:
        raise ValueError(f"digits must be a non-negative integer, got {digits!r}")
    return int(digits)


# ------------------------------------------------------------------ the CI gate (--fail-if)

#: ``METRIC < -MARGIN`` or ``METRIC < -PERCENT%``: see :func:`parse_fail_if`.
_FAIL_IF = re.compile(r"^\s*(?P<metric>\S.*?)\s*<\s*(?P<value>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
                      r"\s*(?P<percent>%)?\s*$")


@dataclass(frozen=True)
class FailIf:
    """One condition of ``rankkit compare --fail-if``: :func:`parse_fail_if`'s answer.

    Attributes
    ----------
    text : str
        The condition as written (``"nDCG@10 < -0.01"``).
    metric : str
        The measure as written (a compare column once the command line has resolved it).
    threshold : float
        0 or below: a difference in the metric's units, or a percentage of the baseline's mean.
    relative : bool
        Whether ``threshold`` is a percentage of the baseline's mean.
    """

    text: str
    metric: str
    threshold: float
    relative: bool = False


def parse_fail_if(text: str) -> FailIf:
    """Read a ``--fail-if`` condition: ``METRIC < -MARGIN`` or ``METRIC < -PERCENT%``.

    ``METRIC`` is a measure as ``rankkit compare -m`` reads it (``nDCG@10``, ``map``, ``P.10``);
    the number after ``<`` is 0 or negative, in the metric's units, or with ``%`` a percentage of
    the baseline's mean. The condition holds for a system (the gate fails) when its mean paired
    difference to the baseline is below that number **and** significant (``p_adjusted < alpha``):
    see :func:`check_fail_if`.

    Examples
    --------
    >>> parse_fail_if("nDCG@10 < -0.01")
    FailIf(text='nDCG@10 < -0.01', metric='nDCG@10', threshold=-0.01, relative=False)
    >>> parse_fail_if("map<-2%").threshold
    -2.0
    """
    match = _FAIL_IF.match(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"--fail-if must read 'METRIC < -MARGIN' or 'METRIC < -PERCENT%' (e.g. 'nDCG@10 < -0.01', "
                         f"'map < -2%'), got {text!r}")
    threshold = float(match["value"])
    if threshold > 0:
        raise ValueError(f"--fail-if {text!r}: the threshold is a drop, 0 or negative (e.g. -0.01 or -1%), "
                         f"got {match['value']}{match['percent'] or ''}")
    return FailIf(text.strip(), match["metric"], threshold + 0.0, match["percent"] is not None)


def check_fail_if(table: pd.DataFrame, conditions) -> pd.DataFrame:
    """Check ``--fail-if`` conditions on a :func:`rankkit.stats.compare` table.

    One row per condition and system compared (each row of ``table`` whose ``metric`` is the
    condition's): ``limit``, the threshold in the metric's units (``threshold / 100 *
    baseline_mean`` for a percentage), and ``failed``, true when ``diff < limit`` and
    ``p_adjusted < alpha`` (the difference is below the limit and significantly below 0).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit.stats import compare
    >>> a = pd.DataFrame({"AP": [0.3, 0.6, 0.2, 0.6, 0.5]})
    >>> b = pd.DataFrame({"AP": [0.2, 0.4, 0.1, 0.5, 0.45]})
    >>> table = compare(None, {"prod": a, "new": b}, "AP", baseline="prod")
    >>> check_fail_if(table, [parse_fail_if("AP < -0.05"), parse_fail_if("AP < -50%")])[["condition", "failed"]]
         condition  failed
    0  AP < -0.05    True
    1   AP < -50%   False
    """
    _check_table(table)
    alpha = float(table.attrs.get("alpha", 0.05))
    rows = []
    for cond in conditions:
        compared = table[table["metric"] == cond.metric]
        if compared.empty:
            raise ValueError(f"--fail-if {cond.text!r}: {cond.metric!r} is not a compared measure "
                             f"(compared: {list(dict.fromkeys(table['metric']))!r})")
        for r in compared.itertuples(index=False):
            limit = cond.threshold / 100 * r.baseline_mean if cond.relative else cond.threshold
            below = bool(r.diff < limit)
            rows.append({"condition": cond.text, "metric": r.metric, "system": r.system, "baseline": r.baseline,
                         "diff": r.diff, "limit": limit, "ci_low": r.ci_low, "ci_high": r.ci_high,
                         "p_adjusted": r.p_adjusted, "baseline_mean": r.baseline_mean, "below": below,
                         "failed": below and bool(r.p_adjusted < alpha)})
    result = pd.DataFrame(rows, columns=_GATE_COLUMNS)
    result.attrs.update(alpha=alpha, test=table.attrs.get("test", "t"), correction=table.attrs.get("correction"))
    return result


_GATE_COLUMNS = ["condition", "metric", "system", "baseline", "diff", "limit", "ci_low", "ci_high",
                 "p_adjusted", "baseline_mean", "below", "failed"]


def _relative(diff: float, base: float) -> str:
    return f" ({diff / base:+.2%})" if base else ""


def _verdict(r, alpha: float, digits: int = 4) -> str:
    """Why a condition holds or not for one system, with the numbers."""
    diff = _fmt_num(r.diff, digits, sign=True) + _relative(r.diff, r.baseline_mean)
    p = f"p adj. {_fmt_p(r.p_adjusted, digits)}"
    if r.failed:
        return f"diff {diff} < {_fmt_num(r.limit, digits, sign=True)} and significant ({p} < {alpha:g})"
    if not r.below:
        return f"diff {diff} is not below {_fmt_num(r.limit, digits, sign=True)} ({p})"
    return f"diff {diff} < {_fmt_num(r.limit, digits, sign=True)} but not significant ({p} >= {alpha:g})"


def gate_lines(result: pd.DataFrame) -> list[str]:
    """One line per condition and system: ``FAIL`` or ``pass``, the condition, the numbers."""
    alpha = result.attrs.get("alpha", 0.05)
    return [f"{'FAIL' if r.failed else 'pass'} {r.condition}: {r.system} vs {r.baseline}: {_verdict(r, alpha)}"
            for r in result.itertuples(index=False)]


def gate_markdown(table: pd.DataFrame, result: pd.DataFrame, *, mark: str = "†") -> str:
    """A pull-request comment: the verdict, one line per condition and system, then the comparison
    table (:func:`to_markdown`) in a collapsed ``<details>`` block."""
    n_failed = int(result["failed"].sum())
    alpha = result.attrs.get("alpha", 0.05)
    head = (f"**rankkit compare: FAIL**, {n_failed} of {len(result)} checks" if n_failed
            else f"**rankkit compare: pass**, {len(result)} checks" if len(result)
            else "**rankkit compare**, no --fail-if condition")
    conf = f"{1 - alpha:.0%} CI"
    lines = [head, "",
             f"A check fails when the mean paired difference (system - baseline, over {_queries(table)}) "
             f"is below its limit and significant (p adj. < {alpha:g}).", "",
             f"| Result | Condition | System | Baseline | Diff | Limit | {conf} | p adj. |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in result.itertuples(index=False):
        diff = _fmt_num(r.diff, 4, sign=True) + _relative(r.diff, r.baseline_mean)
        cells = ["**FAIL**" if r.failed else "pass", f"`{r.condition}`", r.system, r.baseline, diff,
                 _fmt_num(r.limit, 4, sign=True),
                 f"[{_fmt_num(r.ci_low, 4, True)}, {_fmt_num(r.ci_high, 4, True)}]", _fmt_p(r.p_adjusted, 4)]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    lines += ["", "<details><summary>Every comparison</summary>", "", to_markdown(table, mark=mark), "",
              "</details>"]
    return "\n".join(lines) + "\n"


def _queries(table: pd.DataFrame) -> str:
    n = int(table["n_queries"].iloc[0]) if len(table) else 0
    return f"{n} quer{'y' if n == 1 else 'ies'}"


def gate_junit(result: pd.DataFrame, *, suite: str = "rankkit compare") -> str:
    """JUnit XML for CI dashboards: one ``testcase`` per condition and system, a ``failure``
    (with the numbers) where the condition holds."""
    from xml.etree import ElementTree as ET

    alpha = result.attrs.get("alpha", 0.05)
    n_failed = int(result["failed"].sum())
    counts = {"tests": str(len(result)), "failures": str(n_failed), "errors": "0", "skipped": "0"}
    root = ET.Element("testsuites", name=suite, **counts)
    tests = ET.SubElement(root, "testsuite", name=f"{suite} --fail-if", **counts)
    for r in result.itertuples(index=False):
        case = ET.SubElement(tests, "testcase", classname=f"{suite}.{r.baseline}",
                             name=f"{r.condition} [{r.system} vs {r.baseline}]", time="0")
        text = (f"{r.system} vs {r.baseline}, {r.metric}: {_verdict(r, alpha)}; "
                f"{1 - alpha:.0%} CI [{_fmt_num(r.ci_low, 4, True)}, {_fmt_num(r.ci_high, 4, True)}], "
                f"baseline mean {_fmt_num(r.baseline_mean, 4)}")
        if r.failed:
            ET.SubElement(case, "failure", message=f"{r.condition}: {_verdict(r, alpha)}",
                          type="RegressionFailure").text = text
        else:
            ET.SubElement(case, "system-out").text = text
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
