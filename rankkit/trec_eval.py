"""trec_eval's output, byte for byte: which measures, in which order, each line, the ``all`` line.

``rankkit evaluate`` prints what trec_eval 10 prints for the same files and flags. Three
things differ from :func:`rankkit.evaluate` and live here:

- **Measures and their order.** ``-m`` takes trec_eval's names, parameter lists and
  nicknames (``official`` when none is given), and trec_eval prints in the order of its
  measure table (:data:`rankkit.names.TREC_ORDER`), whatever the order of ``-m``; the first
  ``-m`` that gives a measure parameters wins. rankkit specs (``nDCG(gain='exp')@10``)
  follow, in the order given.
- **Queries missing from the run under -c.** trec_eval 10 ranks a one-document list for
  them (a document named ``ceci_nest_pas_un_docno``, score 1.0), then sets num_ret,
  utility, relstring, unj* and rbp_resid to 0 (or ''), matching those names exactly, so
  that ``utility_2,-1,0,0`` or ``relstring_20`` keep the values of the one-document list.
  The document is outside the pool, unless the judgments of that query judge a document
  of that name: then it counts like any retrieved document (relevant at rank 1, say),
  and so it does here. The ``all`` line of num_rel then counts every qrels label above
  0, whatever ``-l``.
- **Printing.** ``%-22s\\t<query>\\t%6.4f``; counts as integers; runid and relstring as
  strings; NaN as trec_eval's ``-nan``.
- **Z-scores (-Z).** Each per-query value becomes (value - mean) / stddev from a file of
  ``qid measure mean stddev`` lines (:func:`read_zscores`, :func:`to_zscores`) before the
  ``all`` line is computed, as trec_eval 10 converts each query before accumulating.

Without ``-c`` trec_eval 10 stops (exit 4) at a judged query that the run lacks; rankkit
warns and scores the queries the two files share, like trec_eval 9 (see the README's table
of deliberate differences).

Under ``-R prefs``, ``-R qrels_prefs`` and ``-R qrels_jg`` the judgments are preferences or
judgment groups: :func:`preference_text` prints trec_eval's lines of the measures of
:mod:`rankkit.evaluation.preferences`.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ._validation import warn_user, warnings_named
from .evaluation.arrays import aggregate_column, defaults, score_values
from .evaluation.settings import Settings, takes_options
from .io.keys import trec_order
from .io.trec_format import NUMBER, file_bytes, id_text
from .metrics.binary import STANDARD_RECALL_LEVELS
from .metrics.interpolation import recall_cut
from .names import (
    NICKNAMES,
    TREC_FAMILIES,
    TREC_ORDER,
    Metric,
    MetricInfo,
    expand_metrics,
    parse_metric,
    trec_columns,
)
from .names.records import refuse_score_metrics
from .ops.numerics import query_sum
from .rankings import Rankings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["trec_measures", "evaluate_like_trec_eval", "trec_lines", "trec_eval_text", "read_zscores", "to_zscores"]

#: Values trec_eval -c sets on a query missing from the run (matched by exact name; and
#: every name that starts with unj).
_CLEARED = {"num_ret": 0.0, "utility": 0.0, "relstring": "", "rbp_resid": 0.0}


def trec_measures(specs: Iterable[str] | None) -> dict[str, Metric]:
    """Column name -> Metric for trec_eval's ``-m`` arguments, in trec_eval's print order.

    Parameters
    ----------
    specs : iterable of str, or None
        ``-m`` values: trec_eval names (``map``, ``P``, ``P.5,10``, ``ndcg_cut.10``,
        ``rbp.p=0.8``), nicknames (``official``, ``all_trec``, ``set``) or rankkit specs.
        None: ``official``, trec_eval's default.

    Examples
    --------
    >>> list(trec_measures(["P.10,5", "map", "nDCG(gain='exp')@10", "P.20"]))
    ['map', 'P_5', 'P_10', "nDCG(gain='exp')@10"]
    """
    specs = ["official"] if not specs else list(specs)
    params: dict[str, str | None] = {}  # trec_eval family -> the first parameters given
    others: list[str] = []
    for spec in specs:
        family, dot, given = spec.partition(".")
        if spec in NICKNAMES:
            for member in NICKNAMES[spec]:
                params.setdefault(member, None)
        elif family in TREC_FAMILIES and "(" not in spec and "@" not in spec:
            if params.get(family) is None:
                params[family] = given if dot else None
        else:
            others.append(spec)
    columns: dict[str, Metric] = {}
    for family in TREC_ORDER:
        if family in params:
            columns.update(trec_columns(family, params[family]))
    for column, metric in expand_metrics(others, trec_names_first=True).items() if others else ():
        columns.setdefault(column, metric)
    return refuse_score_metrics(columns)  # AUC, MSE, ...: a run has no model scores per judged document


@takes_options()
def evaluate_like_trec_eval(
    qrels,
    run,
    measures: dict[str, Metric],
    *,
    zscores: dict[tuple[str, str], tuple[float, float]] | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> tuple[pd.DataFrame, pd.Series]:
    """Per-query values and the ``all`` line, as trec_eval computes them, of the columns
    ``measures`` (:func:`trec_measures`).

    The options are those of :class:`~rankkit.evaluation.settings.Settings`, in ``settings``
    or as keywords: ``queries="qrels"`` is trec_eval's ``-c``, ``rel`` ``-l``, ``depth``
    ``-M``, ``judged_only`` ``-J``, ``n_docs`` ``-N``; ``zscores`` (:func:`read_zscores`) is
    ``-Z``. A TREC run file is read block by block within ``memory``, with a progress bar if
    ``progress`` (see :func:`rankkit.evaluate`). Returns
    the per-query table (one row per scored query, in trec_eval's order) and the ``all``
    values (a Series; strings for runid).
    """
    from .evaluation.pipeline import QueryJudgments
    from .evaluation.scoring import aggregate, score_any_run, table_of  # frames: pandas on first use
    from .io.readers import read_qrels

    settings = Settings.of(settings, **options)
    complete = settings.queries == "qrels"
    judgments = QueryJudgments.of_frame(read_qrels(qrels, columns=settings.columns))
    named = judgments.named(BOGUS_DOCNO) if complete else {}
    scored = score_any_run(judgments, run, lambda r, s: _trec_values(r, measures, s, named), settings,
                           check_labels=_check_integer_labels)
    table = table_of(scored, measures)
    geometric = to_zscores(table, zscores) if zscores is not None else {}
    summary = aggregate(table)
    for column, value in geometric.items():
        summary[column] = value
    _num_rel_of_every_judged_query(summary, judgments.grades, settings)
    return table, summary


def _num_rel_of_every_judged_query(summary: Any, grades: np.ndarray, settings: Settings) -> None:
    """trec_eval -c's ``all`` line of num_rel: every label above 0 of the judgments."""
    if settings.queries == "qrels" and "num_rel" in summary:
        summary["num_rel"] = float((grades > 0).sum())


#: trec_eval's MISSING_ZSCORE_VALUE: a value -Z has no mean and deviation for.
MISSING_ZSCORE = -1000000.0


def read_zscores(path: str | os.PathLike) -> dict[tuple[str, str], tuple[float, float]]:
    """trec_eval's ``-Z`` file: ``(query id, measure) -> (mean, stddev)``, from lines
    ``qid measure mean stddev`` (fields apart by whitespace; the measure as trec_eval
    prints it: ``map``, ``P_10``, ``gm_map``).

    Every line must have the four fields, and mean and stddev must be plain finite
    numbers; a query and measure given twice is an error (trec_eval would take either).
    Errors name the file and the line.
    """
    name, data = file_bytes(path)
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if len(fields) != 4:
            raise ValueError(f"{name} line {number}: expected 4 fields (qid measure mean stddev), got {len(fields)}")
        if not all(NUMBER.fullmatch(x) and math.isfinite(float(x)) for x in fields[2:]):
            text = line.decode(errors="replace")
            raise ValueError(f"{name} line {number}: mean and stddev must be numbers, got {text!r}")
        key = (id_text(fields[0]), id_text(fields[1]))
        if key in table:
            raise ValueError(f"{name} line {number}: {key[1]} of query {key[0]!r} is given twice")
        table[key] = (float(fields[2]), float(fields[3]))
    if not table:
        raise ValueError(f"{name}: empty file, expected lines: qid measure mean stddev")
    return table


def to_zscores(table: pd.DataFrame, zscores: dict[tuple[str, str], tuple[float, float]]) -> dict[str, float]:
    """Replace, in ``table``, each query's value of each numeric measure by its z-score,
    (value - mean) / stddev with the mean and deviation ``zscores`` gives for that query
    and measure; as trec_eval 10 (``convert_zscores.c``): 0 where stddev is 0 and the value
    is the mean, :data:`MISSING_ZSCORE` where it is not or where ``zscores`` has none.

    gm_map and gm_bpref keep log(max(value, 1e-5)) per query, as trec_eval does, and it is
    that which is converted; their ``all`` value is then exp(mean of the z-scores), which
    this returns ({column: value}) since it is not the geometric mean of the new column.
    runid, relstring and num_q (the number of queries) are left as they are.
    """
    specs = table.attrs.get("metrics", {})
    queries = [str(q) for q in table.index]
    geometric = {}
    table.attrs["zscores"] = True
    for column in table.columns:
        info = parse_metric(specs.get(column, column)).info
        if info.kind == "str" or column == "num_q":
            continue
        values = table[column].to_numpy(dtype=np.float64)
        if info.aggregate == "gmean":
            from .evaluation.arrays import GEOMETRIC_FLOOR

            values = np.array([math.log(max(v, GEOMETRIC_FLOOR)) for v in values], dtype=np.float64)
        z = np.array([_zscore(v, zscores.get((q, column))) for q, v in zip(queries, values)], dtype=np.float64)
        table[column] = z
        if info.aggregate == "gmean":
            geometric[column] = _exp(float(query_sum(z)) / len(z)) if len(z) else 0.0
    return geometric


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:  # C's exp: inf
        return math.inf


def _zscore(value: float, mean_sd: tuple[float, float] | None) -> float:
    if mean_sd is None:
        return MISSING_ZSCORE
    mean, sd = mean_sd
    if sd:
        return (float(value) - mean) / sd  # Python floats: an overflow is inf, without a warning
    return 0.0 if value == mean else MISSING_ZSCORE


def _check_integer_labels(labels: np.ndarray) -> None:
    fractions = labels[labels != np.floor(labels)]  # judged labels: >= 0
    if fractions.size:
        warn_user("some labels are not integers; rankkit keeps them, trec_eval would truncate "
                  f"them ({fractions[0]:g} -> {int(fractions[0])})")


def _trec_values(r: Rankings, columns: dict[str, Metric], settings: Settings,
                 named: dict[str, float]) -> dict[str, np.ndarray]:
    """The values of the queries of ``r`` (each judged), as trec_eval sets them."""
    missing = ~r.has_run
    scored = _one_document(r, missing, settings.judged_only, named)
    values = score_values(scored, columns, defaults(scored, settings.rel, settings.max_grade, settings.n_docs))
    _trec_eval_nan(values, columns, scored, settings.rel)
    _clear_missing(values, missing)
    return values


#: The document of trec_eval -c's ranking for a judged query missing from the run
#: (``trec_eval.c``'s ``bogus_result``, score 1.0).
BOGUS_DOCNO = "ceci_nest_pas_un_docno"


def _one_document(r: Rankings, missing: np.ndarray, judged_only: bool, named: dict[str, float]) -> Rankings:
    """trec_eval -c's ranking for a query missing from the run: the one document
    :data:`BOGUS_DOCNO`, outside the pool unless ``named`` (query id -> label) has a label
    for it: then it is that judged (or, below 0, pooled) document. -J keeps it only if
    judged (label >= 0), as trec_eval does."""
    label = np.array([named.get(str(q), np.nan) if m else np.nan for q, m in zip(r.query_ids, missing)]
                     if named else np.full(r.n_queries, np.nan))
    kept = missing & (label >= 0 if judged_only else True)
    if not kept.any():
        return r
    named_here = kept & ~np.isnan(label)
    labels, judged, pooled, ties = r.labels, r.judged, r.in_pool, r.ties
    if r.depth == 0:  # no query retrieved anything: make room for the one document
        labels = np.zeros((r.n_queries, 1))
        judged = np.zeros((r.n_queries, 1), dtype=bool)
        pooled = judged.copy()
        ties = None if ties is None else np.arange(r.n_queries).reshape(-1, 1)
    if named_here.any():  # its label at rank 1 (copies: the matrices may be shared)
        labels, judged, pooled = labels.copy(), judged.copy(), pooled.copy()
        labels[named_here, 0] = np.maximum(label[named_here], 0.0)
        judged[named_here, 0] = label[named_here] >= 0
        pooled[named_here, 0] = True
    lengths = np.where(kept, 1, r.lengths)
    return replace(r, labels=labels, judged=judged, pooled=pooled, lengths=lengths, ties=ties)


def _clear_missing(values: dict[str, np.ndarray], missing: np.ndarray) -> None:
    """What trec_eval -c sets on queries missing from the run, by exact name."""
    if not missing.any():
        return
    for column in values:
        if column.startswith("unj"):
            values[column] = _set(values[column], missing, 0.0)
        elif column in _CLEARED:
            values[column] = _set(values[column], missing, _CLEARED[column])


def _set(column: np.ndarray, rows: np.ndarray, value) -> np.ndarray:
    """A copy of ``column`` with ``value`` at ``rows`` (the metric's array is left as it is)."""
    column = column.copy()
    column[rows] = value
    return column


def _trec_eval_nan(values: dict[str, np.ndarray], columns: dict[str, Metric], r: Rankings, rel: float | None) -> None:
    """trec_eval's NaN on an empty ranking (only under -J): iprec_at_recall at a level, and
    11pt_avg at levels one of which, times the relevant documents, rounds (``lround``) to
    none (its precision 0 / 0 counts then: the default levels start at 0.0)."""
    empty = r.lengths == 0
    if not empty.any():
        return
    for column, metric in columns.items():
        if metric.name not in ("iprec", "iprec_avg"):
            continue
        kwargs = metric.kwargs
        levels = [kwargs["recall"]] if metric.name == "iprec" else kwargs.get("levels") or STANDARD_RECALL_LEVELS
        n_rel = r.n_relevant(kwargs.get("rel", rel or 1))
        rounds_to_zero = (recall_cut(np.asarray(levels)[:, None], n_rel, "nearest") == 0).any(axis=0)
        values[column] = _set(values[column], empty & rounds_to_zero, np.nan)


def _format(value, kind: str, per_query: bool) -> str:
    if kind == "str":
        return f"'{value}'" if per_query else str(value)
    if isinstance(value, float) and math.isnan(value):
        return f"{'-nan':>6}"  # glibc's printf of the x86 default NaN
    if kind == "int":
        return str(int(value))  # C's (long): toward zero
    return f"{value:6.4f}"


def trec_lines(
    table: pd.DataFrame, summary: pd.Series, *, per_query: bool, summary_lines: bool = True
) -> Iterator[str]:
    """The lines trec_eval prints, without their newline: per query (``-q``) the values
    of every measure that has one, then the ``all`` line of every measure that has one
    (none with ``-n``)."""
    specs = table.attrs.get("metrics", {})
    infos = {column: parse_metric(specs.get(column, column)).info for column in table.columns}
    columns = {column: table[column].to_numpy() for column in table.columns}
    yield from _lines(list(table.index), columns, summary, infos, per_query=per_query, summary_lines=summary_lines,
                      zscores=table.attrs.get("zscores", False))


def _lines(ids: list, columns: dict[str, Any], summary: Any, infos: dict[str, MetricInfo], *, per_query: bool,
           summary_lines: bool, zscores: bool = False) -> Iterator[str]:
    """:func:`trec_lines` of query ``ids``, each column's values along them, its ``all`` value
    (``summary[column]``) and registry row (``infos``)."""
    names, kinds = _labels(columns, infos, zscores)
    if per_query:
        shown = [c for c in columns if not infos[c].summary_only]
        for qid, row in zip(ids, zip(*(columns[c].tolist() for c in shown))):
            for column, value in zip(shown, row):
                yield f"{names[column]}\t{qid}\t{_format(value, kinds[column], True)}"
    if summary_lines:
        for column in columns:
            if infos[column].aggregate != "none":
                yield f"{names[column]}\tall\t{_format(summary[column], kinds[column], False)}"


def _labels(columns: dict[str, Any], infos: dict[str, MetricInfo], zscores: bool) -> tuple[dict, dict]:
    """Each column's name as printed (padded) and the kind its values print as."""
    # After -Z every number is a z-score: "Z" before its name, counts printed as fractions
    names = {c: f"Z{c:<22}" if zscores and infos[c].kind != "str" else f"{c:<22}" for c in columns}
    kinds = {c: "float" if zscores and infos[c].kind == "int" else infos[c].kind for c in columns}
    return names, kinds


def _per_query_lines(ids: list, columns: dict[str, Any], infos: dict[str, MetricInfo]) -> np.ndarray:
    """The per-query lines of :func:`_lines` (``per_query``), each with its newline: an
    object array, a row per query and a column per measure shown. Each distinct value of a
    column is formatted once (numbers told apart by their bits: ``-0.0`` is not ``0.0``),
    the lines put together by NumPy."""
    names, kinds = _labels(columns, infos, zscores=False)
    shown = [c for c in columns if not infos[c].summary_only]
    lines = np.empty((len(ids), len(shown)), dtype=object)
    if not ids or not shown:
        return lines
    between = np.empty(len(ids), dtype=object)
    between[:] = [f"\t{q}\t" for q in ids]
    for k, column in enumerate(shown):
        values = np.asarray(columns[column])
        if values.dtype.kind in "fiub":
            bits = values.dtype.kind == "f"
            numbers = values.view(np.dtype(f"i{values.dtype.itemsize}")) if bits else values
            distinct, at = np.unique(numbers, return_inverse=True)
            distinct = distinct.view(values.dtype) if bits else distinct
        else:  # strings (relstring): each its own
            distinct, at = values, np.arange(len(values))
        texts = np.empty(len(distinct), dtype=object)
        texts[:] = [_format(v, kinds[column], True) + "\n" for v in distinct.tolist()]
        lines[:, k] = names[column] + between + texts[at.reshape(-1)]
    return lines


@takes_options()
def trec_eval_text(qrels: str | os.PathLike, run: str | os.PathLike | Sequence[str | os.PathLike],
                   measures: dict[str, Metric], *, per_query: bool = False, summary_lines: bool = True,
                   settings: Settings | None = None, **options: Any) -> str:
    """trec_eval's output for two TREC files (paths), as :func:`evaluate_like_trec_eval` and
    :func:`trec_lines` give it, without frames: what ``rankkit evaluate`` prints. ``run``
    may be a list of paths: each run's output in turn, the judgments read once. Raises
    :class:`rankkit.evaluation.frameless.Unsupported` where that path does not apply (then
    nothing was printed, nor warned). The options are :func:`evaluate_like_trec_eval`'s."""
    from .evaluation.frameless import Unsupported, file_judgments, takes

    runs = [run] if isinstance(run, (str, os.PathLike)) else list(run)
    if not (takes(qrels) and runs and all(takes(r) for r in runs)):
        raise Unsupported("not TREC files")
    settings = Settings.of(settings, **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        judgments = file_judgments(qrels)
        labels = judgments.grades
        _check_integer_labels(labels[labels >= 0])
        named = judgments.named(BOGUS_DOCNO) if settings.queries == "qrels" else {}
        settings = settings.with_max_grade(judgments.max_grade())
        texts = []
        for path in runs:
            with warnings_named(os.fspath(path) if len(runs) > 1 else None):
                texts.append(_run_text(judgments, path, measures, settings, named, per_query, summary_lines))
    for warning in caught:  # the same, in the same order, as the frames' path's
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    return "".join(texts)


def _run_text(judgments: Any, run: str | os.PathLike, measures: dict[str, Metric], settings: Settings,
              named: dict[str, float], per_query: bool, summary_lines: bool) -> str:
    """:func:`trec_eval_text` of one run."""
    from .evaluation.frameless import run_blocks
    from .evaluation.pipeline import score_run

    infos = {column: metric.info for column, metric in measures.items()}
    parts: list[tuple[list, np.ndarray]] = []  # each block's query ids and per-query lines

    def measure(r: Rankings) -> dict[str, np.ndarray]:
        values = _trec_values(r, measures, settings, named)
        if per_query:  # formatted by the thread that joins while the next block is read
            ids = list(r.query_ids)
            parts.append((ids, _per_query_lines(ids, values, infos)))
        return values

    blocks, tag = run_blocks(run, settings)
    scored = score_run(judgments, blocks, measure, settings, tag=tag)
    ids, values = scored.ids, scored.tagged(measures)
    summary = {column: aggregate_column(values[column], infos[column]) for column in measures}
    _num_rel_of_every_judged_query(summary, judgments.grades, settings)
    text = _in_query_order(parts) if per_query else ""
    lines = _lines(ids, values, summary, infos, per_query=False, summary_lines=summary_lines)
    return text + "".join(line + "\n" for line in lines)


def _in_query_order(parts: list[tuple[list, np.ndarray]]) -> str:
    """The blocks' per-query lines (:func:`_per_query_lines`) as one text, the queries in
    trec_eval's order (:func:`rankkit.evaluation.pipeline.score_run` puts the values in)."""
    ids = [q for part_ids, _ in parts for q in part_ids]
    if not ids:
        return ""
    lines = np.concatenate([lines for _, lines in parts])
    return "".join(lines[trec_order(ids)].ravel().tolist())


def preference_text(judgments: Any, runs: Sequence[Any], measures: Sequence[str] | None, *, format: str,
                    per_query: bool = False, summary_lines: bool = True, **options: Any) -> str:
    """trec_eval's output under ``-R prefs``, ``-R qrels_prefs`` or ``-R qrels_jg``: per query
    (``per_query``) each measure's value, then the ``all`` lines; each run in turn, the
    judgments read once. ``options``: those of
    :func:`rankkit.evaluation.preferences.evaluate_preferences` (queries, depth, rel,
    judged_only)."""
    from .evaluation.preferences import evaluate_preferences, preference_measures
    from .io.prefs import as_preferences
    from .metrics.preferences import PREFS_MEASURES

    columns = preference_measures(measures, format)
    judgments = as_preferences(judgments, format)
    kinds = {c: "str" if f == "runid" else "int" if f == "num_q" or PREFS_MEASURES.get(f, (0, ""))[1] == "int"
             else "float" for c, (f, _) in columns.items()}
    out = []
    for run in runs:
        table, summary = evaluate_preferences(judgments, run, list(measures or []) or None, format=format, **options)
        if per_query:
            for qid, row in zip(table.index, zip(*(table[c].tolist() for c in table.columns))):
                out.extend(f"{c:<22}\t{qid}\t{_format(v, kinds[c], True)}\n" for c, v in zip(table.columns, row))
        if summary_lines:
            out.extend(f"{c:<22}\tall\t{_format(summary[c], kinds[c], False)}\n" for c in columns)
    return "".join(out)
