"""Evaluating a run against preferences or judgment groups: trec_eval's ``-R prefs``,
``-R qrels_prefs`` and ``-R qrels_jg``. Each measure is a record of the registry
(:data:`rankkit.names.REGISTRY`, ``judgments="prefs"`` or ``"qrels_jg"``): its name, its place
in trec_eval's print order, its kernel; this module reads them from there.

:func:`evaluate_preferences` reads the judgments (:func:`rankkit.io.prefs.read_prefs`) and
the run (:func:`rankkit.read_run`), joins them and returns one row per query and trec_eval's
``all`` values:

- ``prefs`` and ``qrels_prefs``: the preference measures of
  :mod:`rankkit.metrics.preferences` (``prefs_simp``, ``prefs_pair``, ``prefs_avgjg``, ...);
- ``qrels_jg``: ``map_avgjg``, ``P_avgjg_k`` and ``Rprec_mult_avgjg_x``: rankkit's AP,
  P@k and Rprec(multiple=x) (each trec_eval's to the last digit) computed on each judgment
  group as a query of its own, then averaged over the query's groups in group order.

Measures are named as trec_eval names them (``-m``): a name, a nickname (``all_prefs``,
``prefs``, ``qrels_jg``) or a name with parameters (``P_avgjg.5,10``,
``Rprec_mult_avgjg.0.5,1``). Queries are those of the run that have judgments
(``queries="qrels"``: every judged query, one missing from the run scored on an empty
ranking), in trec_eval's order (query ids as bytes).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._validation import warn_user
from ..io.keys import arrow_ids, keys_are_ids, longest, string_keys, text_array
from ..io.prefs import Preferences, as_preferences
from ..metrics.preferences import average_over_groups, rank_preferences
from ..names import NICKNAMES as _TREC_NICKNAMES
from ..names import REGISTRY, TREC_FAMILIES, TREC_ORDER
from ..ops.numerics import query_sum
from .arrays import _listing

__all__ = ["evaluate_preferences", "evaluate_with_preferences", "preference_measures", "NICKNAMES", "JG_DEFAULTS"]

#: trec_eval's nicknames of these measures (``measures.c``), as the registry holds them.
NICKNAMES = {nick: list(_TREC_NICKNAMES[nick]) for nick in ("all_prefs", "prefs", "qrels_jg")}
#: The record of each measure, by trec_eval's name: the preference measures (``-R prefs``) and
#: the judgment-group ones (``-R qrels_jg``), in trec_eval's print order.
_RECORDS = {name: REGISTRY[TREC_FAMILIES[name][0]] for name in TREC_ORDER
            if REGISTRY[TREC_FAMILIES[name][0]].judgments in ("prefs", "qrels_jg")}
_PREFS = tuple(name for name, info in _RECORDS.items() if info.judgments == "prefs")
_JG = tuple(name for name, info in _RECORDS.items() if info.judgments == "qrels_jg")
#: Default parameters of the judgment-group measures (trec_eval's, from their records).
JG_DEFAULTS = {name: TREC_FAMILIES[name][1].defaults for name in _JG if TREC_FAMILIES[name][1].defaults}
_ORDER = ("runid", "num_q", *_RECORDS)


def preference_measures(specs: Iterable[str] | None, format: str) -> dict[str, tuple[str, Any]]:
    """Column -> (family, parameter) for trec_eval's ``-m`` values under ``-R format``, in
    trec_eval's print order. None: the nickname ``prefs`` (``qrels_jg`` for that form).

    Examples
    --------
    >>> list(preference_measures(["P_avgjg.10,5", "map_avgjg"], "qrels_jg"))
    ['map_avgjg', 'P_avgjg_5', 'P_avgjg_10']
    """
    specs = list(specs) if specs else ["qrels_jg" if format == "qrels_jg" else "prefs"]
    given: dict[str, str | None] = {}
    for spec in specs:
        family, dot, params = spec.partition(".")
        for name in NICKNAMES.get(spec, [family]):
            if name not in _ORDER:
                raise ValueError(f"unknown measure {spec!r} under -R {format}; known: {', '.join(NICKNAMES)}, "
                                 f"{', '.join(_ORDER)}")
            _check_family(name, format)
            if given.get(name) is None:
                given[name] = params if dot and name == family else None
    columns: dict[str, tuple[str, Any]] = {}
    for family in (f for f in _ORDER if f in given):
        if family in JG_DEFAULTS and family != "map_avgjg":
            columns.update(_with_parameters(family, given[family] or JG_DEFAULTS[family]))
        elif given[family]:
            raise ValueError(f"{family} takes no parameters, got {family}.{given[family]}")
        else:
            columns[family] = (family, None)
    return columns


def _check_family(name: str, format: str) -> None:
    if name in _PREFS and format not in ("prefs", "qrels_prefs"):
        raise ValueError(f"{name} needs preferences: -R prefs or -R qrels_prefs, not -R {format}")
    if name in _JG and format != "qrels_jg":
        raise ValueError(f"{name} needs judgment groups: -R qrels_jg, not -R {format}")


def _with_parameters(family: str, params: str) -> dict[str, tuple[str, Any]]:
    """P_avgjg's cutoffs (positive integers) or Rprec_mult_avgjg's multiples, sorted."""
    try:
        values = sorted({int(p) if family == "P_avgjg" else float(p) for p in params.split(",")})
    except ValueError:
        raise ValueError(f"{family}: parameters must be {'integers' if family == 'P_avgjg' else 'numbers'}"
                         f" separated by commas, got {params!r}") from None
    if family == "P_avgjg" and values[0] <= 0:
        raise ValueError(f"P_avgjg: cutoffs must be positive, got {params!r}")
    return {f"{family}_{v}" if family == "P_avgjg" else f"{family}_{v:.2f}": (family, v) for v in values}


def evaluate_preferences(judgments: Preferences | str, run: Any, measures: Iterable[str] | None = None, *,
                         format: str = "prefs", queries: str = "run", depth: int | None = None,
                         rel: float | None = None, judged_only: bool = False) -> tuple[pd.DataFrame, dict]:
    """Score ``run`` against preferences or judgment groups, as trec_eval ``-R format`` does.

    Parameters
    ----------
    judgments : Preferences or path
        What :func:`rankkit.io.prefs.read_prefs` returns, or the file it reads.
    run : path, DataFrame, records or dict
        The ranked results, anything :func:`rankkit.read_run` reads.
    measures : list of str, optional
        trec_eval's ``-m`` values (:func:`preference_measures`); default: the nickname
        ``prefs`` (``qrels_jg`` under that form).
    format : {"prefs", "qrels_prefs", "qrels_jg"}, default="prefs"
        The form of ``judgments`` (trec_eval's ``-R``).
    queries : {"run", "qrels"}, default="run"
        "run": judged queries of the run; "qrels" (trec_eval ``-c``): every judged query.
    depth, rel, judged_only
        trec_eval's ``-M``; and, for ``qrels_jg``, ``-l`` and ``-J`` (see :func:`rankkit.evaluate`).

    Returns
    -------
    table : DataFrame
        One row per query (index ``query_id``, trec_eval's order), one column per measure
        that has per-query values.
    summary : dict
        trec_eval's ``all`` values: ``runid`` (the run tag), ``num_q``, sums of the counts,
        means of the others.

    Examples
    --------
    >>> table, summary = evaluate_preferences("data/trec_eval_test/prefs.test",
    ...                                       "data/trec_eval_test/prefs.results.test", ["prefs_simp"])
    >>> round(summary["prefs_simp"], 4), summary["num_q"] if "num_q" in summary else len(table)
    (0.3881, 24)
    """
    from ..io.readers import read_run

    if queries not in ("run", "qrels"):
        raise ValueError(f"queries must be 'run' or 'qrels', got {queries!r}")
    prefs = as_preferences(judgments, format)
    columns = preference_measures(measures, format)
    frame = read_run(run)
    codes = _query_codes(prefs, frame)
    query_ids, q, rq = codes
    _warn_unscored(query_ids[np.bincount(q, minlength=len(query_ids)) > 0],
                   query_ids[np.bincount(rq, minlength=len(query_ids)) > 0], queries)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # about the groups' composite query ids: not the user's
        found = (_group_values(prefs, frame, codes, columns, queries, depth, rel, judged_only)
                 if format == "qrels_jg" else _preference_values(prefs, frame, codes, columns, queries, depth))
    ids, values = found
    table = pd.DataFrame(values, index=pd.Index(ids, name="query_id", dtype=object), columns=list(values))
    return table, _summary(table, columns, frame.attrs.get("name"))


def evaluate_with_preferences(judgments: Preferences, run: Any, metrics: str | Iterable[str], *,
                              queries: str = "run", depth: int | None = None, rel: float | None = None,
                              judged_only: bool = False, ties: str = "docno") -> pd.DataFrame:
    """:func:`rankkit.evaluate` on :func:`rankkit.read_prefs`'s judgments: one row per query,
    one column per measure (trec_eval's names: ``["prefs_simp", "prefs_pair"]``,
    ``"all_prefs"``, ``["map_avgjg", "P_avgjg.10"]``), trec_eval's ``all`` values in
    ``table.attrs["all"]``. Options: ``queries``, ``depth``; ``rel`` and ``judged_only``
    under ``qrels_jg`` only; ties are always trec_eval's.

    Examples
    --------
    >>> import rankkit as rk
    >>> prefs = rk.read_prefs("data/trec_eval_test/prefs.test")
    >>> table = rk.evaluate(prefs, "data/trec_eval_test/prefs.results.test", ["prefs_simp", "prefs_pair"])
    >>> table.loc["21.EC.cb"].round(4).tolist(), round(table.attrs["all"]["prefs_pair"], 4)
    ([0.5, 0.5], 0.3907)
    """
    if ties != "docno":
        raise ValueError(f"ties must be 'docno' with preferences (trec_eval's order), got {ties!r}")
    if judgments.format != "qrels_jg" and (rel is not None or judged_only):
        raise ValueError(f"rel= and judged_only= apply to judgment groups (qrels_jg), not to {judgments.format}")
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    table, summary = evaluate_preferences(judgments, run, metrics, format=judgments.format, queries=queries,
                                          depth=depth, rel=rel, judged_only=judged_only)
    table.attrs["all"] = summary
    return table


def _warn_unscored(judged: np.ndarray, in_run: np.ndarray, queries: str) -> None:
    """rk.evaluate's warnings: run queries without judgments, judged queries the run lacks
    (trec_eval 10 stops at those without -c; rankkit scores the others)."""
    if queries == "run" and len(in_run) and not np.isin(in_run, judged).any():
        raise ValueError(f"no query in common between the judgments ({_listing(judged, 3)}) and the run "
                         f"({_listing(in_run, 3)}): are these the right files?")
    no_judgments = in_run[~np.isin(in_run, judged)]
    if len(no_judgments):
        warn_user(f"run queries without judgments are not scored ({len(no_judgments)}): {_listing(no_judgments)}")
    missing = judged[~np.isin(judged, in_run)]
    if queries == "run" and len(missing):
        warn_user(f"judged queries missing from the run are not scored ({len(missing)}; "
                  f"queries='qrels' scores them): {_listing(missing)}")


def _summary(table: pd.DataFrame, columns: dict, tag: str | None) -> dict:
    """trec_eval's ``all`` values: counts summed, other values averaged over the queries."""
    summary: dict[str, Any] = {}
    for column, (family, _) in columns.items():
        if family == "runid":
            summary[column] = tag
        elif family == "num_q":
            summary[column] = len(table)
        elif family in _PREFS and _RECORDS[family].aggregate == "sum":
            summary[column] = int(table[column].sum())
        else:
            values = table[column].to_numpy(dtype=np.float64)
            summary[column] = float(query_sum(values)) / len(values) if len(values) else 0.0
    return summary


# --------------------------------------------------------------------------- ids as codes in byte order
#
# Ids become integer codes whose order is their byte order (trec_eval's strcmp): Arrow's dictionary
# encoding finds the distinct ids, and only those are sorted. The run's documents that no judgment
# names are looked up by their 64-bit keys (rankkit.io.keys) and, unless a depth cuts the run (where
# their place among tied scores counts), left out of the join.


def _arrow(values: Any) -> pa.Array:
    """Ids (NumPy or Python strings) as one Arrow large_string array; ids holding escaped
    bytes as the bytes they stand for (a large_string view, compared byte by byte)."""
    try:
        return pa.array(np.asarray(values, dtype=object), type=pa.large_string())
    except (pa.ArrowTypeError, pa.ArrowInvalid, UnicodeEncodeError):
        return text_array([str(v) for v in values]).view(pa.large_string())


def _dictionary(ids: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, np.ndarray]:
    """The distinct ids (in order of first appearance) and each id's position among them."""
    if isinstance(ids, pa.ChunkedArray):
        ids = ids.combine_chunks() if ids.num_chunks != 1 else ids.chunk(0)
    encoded = pc.dictionary_encode(ids.cast(pa.large_string()))
    return encoded.dictionary, np.asarray(encoded.indices, dtype=np.int64)


def _column_dictionary(column: pd.Series) -> tuple[pa.Array, np.ndarray]:
    """:func:`_dictionary` of a run's id column (a categorical's categories and codes as they are)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return _arrow([str(c) for c in column.cat.categories]), column.cat.codes.to_numpy(dtype=np.int64)
    return _dictionary(arrow_ids(column))


def _sorted_union(*distinct: pa.Array) -> tuple[pa.Array, list[np.ndarray]]:
    """The ids of all ``distinct`` arrays once each, sorted by their bytes, and where each
    array's ids are among them."""
    both, at = _dictionary(pa.concat_arrays([d.cast(pa.large_string()) for d in distinct]))
    order = np.asarray(pc.array_sort_indices(both), dtype=np.int64)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    bounds = np.cumsum([0] + [len(d) for d in distinct])
    return both.take(pa.array(order)), [rank[at[lo:hi]] for lo, hi in zip(bounds[:-1], bounds[1:])]


def _texts(ids: pa.Array) -> np.ndarray:
    """Arrow ids back as NumPy strings (escaped bytes as Python escapes them)."""
    raw = ids.cast(pa.large_binary()).to_pylist()
    return np.array([b.decode("utf-8", "surrogateescape") for b in raw], dtype=str)


def _sorted_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``values`` in byte order, and each value as a code into them."""
    distinct, codes = _dictionary(_arrow(values))
    ids, (at,) = _sorted_union(distinct)
    return _texts(ids), at[codes]


def _query_codes(prefs: Preferences, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The query ids of the judgments and of the run in byte order (trec_eval's), and each
    judgment line's and each run line's query as a code into them."""
    judged, q = _dictionary(_arrow(prefs.query_ids))
    ran, rq = _column_dictionary(frame["query_id"])
    ids, (judged_at, ran_at) = _sorted_union(judged, ran)
    return _texts(ids), judged_at[q], ran_at[rq]


def _doc_codes(prefs: Preferences, run_docs: pa.ChunkedArray, every_run_doc: bool) -> tuple[np.ndarray, np.ndarray]:
    """Document codes in byte order, shared by the judgment lines and the run: every run
    document's when ``every_run_doc``, else -1 for a run document that no line judges."""
    judged, d = _dictionary(_arrow(prefs.doc_ids))
    if every_run_doc:
        ran, rd = _dictionary(run_docs)
        _, (judged_at, ran_at) = _sorted_union(judged, ran)
        return judged_at[d], ran_at[rd]
    _, (judged_at,) = _sorted_union(judged)
    found = _lookup(judged, run_docs)
    if found is None:  # two ids with one key: the exact way
        return _doc_codes(prefs, run_docs, True)
    return judged_at[d], np.where(found >= 0, judged_at[np.maximum(found, 0)], -1)


def _lookup(distinct: pa.Array, ids: pa.ChunkedArray) -> np.ndarray | None:
    """Each of ``ids``' position in ``distinct`` (-1: absent), found by 64-bit keys and
    confirmed on the ids; None if two different ids share a key (then nothing is claimed)."""
    distinct_keys, keys = string_keys(distinct, ids)
    if len(distinct_keys) == 0:
        return np.full(len(keys), -1, dtype=np.int64)
    order = np.argsort(distinct_keys, kind="stable")
    sorted_keys = distinct_keys[order]
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(order) - 1)
    found = sorted_keys[at] == keys
    position = np.where(found, order[at], -1)
    rows = np.flatnonzero(found)
    if len(rows) and not keys_are_ids(longest(distinct, ids), pa.chunked_array([distinct]), ids):
        flat = ids.combine_chunks() if ids.num_chunks != 1 else ids.chunk(0)
        if not pc.all(pc.equal(distinct.take(pa.array(position[rows])), flat.take(pa.array(rows)))).as_py():
            return None
    return position


def _run_doc_texts(frame: pd.DataFrame) -> np.ndarray:
    """The run's document ids as NumPy strings."""
    return np.asarray([str(d) for d in frame["doc_id"].to_numpy(dtype=object)], dtype=str)


def _groups(prefs: Preferences, query: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each line's JG (numbered by query, then JG id), each JG's query and JG id."""
    names, jg = _sorted_codes(prefs.groups)
    keys, group = np.unique(query * len(names) + jg, return_inverse=True)
    return group, keys // len(names), names[keys % len(names)]


def _preference_values(prefs, frame, codes, columns, queries, depth):
    query_ids, q, rq = codes
    d, rd = _doc_codes(prefs, arrow_ids(frame["doc_id"]), every_run_doc=depth is not None)
    score = frame["score"].to_numpy(dtype=np.float64)
    judged_doc = rd >= 0  # with a depth, every run line (its place counts); else those a line judges
    group, group_query, group_ids = _groups(prefs, q)
    sub_names, sub = _sorted_codes(prefs.subgroups)
    _, subgroup = np.unique(group * len(sub_names) + sub, return_inverse=True)
    names = tuple(zip(query_ids[group_query].tolist(), group_ids.tolist()))
    rp = rank_preferences(q, group, subgroup, d, prefs.levels, rq[judged_doc], rd[judged_doc], score[judged_doc],
                          n_queries=len(query_ids), group_query=group_query, depth=depth, group_names=names)
    rows = np.bincount(q, minlength=len(query_ids)) > 0
    if queries == "run":
        rows &= np.bincount(rq, minlength=len(query_ids)) > 0
    values = {c: _RECORDS[f].func(rp)[rows] for c, (f, _) in columns.items() if f in _PREFS}
    return query_ids[rows], values


def _group_values(prefs, frame, codes, columns, queries, depth, rel, judged_only):
    """map_avgjg, P_avgjg, Rprec_mult_avgjg: each JG scored as a query (``"qid jg"``, a
    space: never inside an id read from a TREC file), then averaged over the query's JGs."""
    from .scoring import evaluate

    specs = {c: ("AP" if f == "map_avgjg" else f"P@{p}" if f == "P_avgjg" else f"Rprec(multiple={p!r})")
             for c, (f, p) in columns.items() if f in _JG}
    query_ids, q, rq = codes
    group, group_query, group_ids = _groups(prefs, q)
    composite = np.array([f"{a} {b}" for a, b in zip(query_ids[group_query], group_ids)], dtype=object)
    judged_run = (np.bincount(q, minlength=len(query_ids)) > 0)[rq]
    run_d, score = _run_doc_texts(frame), frame["score"].to_numpy(dtype=np.float64)
    rq, run_d, score = rq[judged_run], run_d[judged_run], score[judged_run]
    per_query = np.bincount(group_query, minlength=len(query_ids))
    first = np.searchsorted(group_query, np.arange(len(query_ids)))
    rows = np.repeat(np.arange(len(rq)), per_query[rq])
    run_groups = first[rq[rows]] + _position_in_repeat(per_query[rq])
    ids = functools.partial(pd.Series, dtype=object)  # ids holding escaped bytes: no str column takes them
    qrels = pd.DataFrame({"query_id": ids(composite[group]), "doc_id": ids(prefs.doc_ids), "relevance": prefs.levels})
    run = pd.DataFrame({"query_id": ids(composite[run_groups]), "doc_id": ids(run_d[rows]), "score": score[rows]})
    scored_queries = np.bincount(rq, minlength=len(query_ids)) > 0 if queries == "run" else per_query > 0
    if not specs or not scored_queries.any():
        return query_ids[scored_queries], {c: np.zeros(int(scored_queries.sum())) for c in specs}
    table = evaluate(qrels, run, list(specs.values()), depth=depth, rel=rel, judged_only=judged_only,
                     queries=queries)
    at = pd.Index(composite, dtype=object).get_indexer(pd.Index(table.index, dtype=object))
    order = np.argsort(at)
    values = {}
    for column, spec in specs.items():
        per_group = table[spec].to_numpy(dtype=np.float64)[order]
        values[column] = average_over_groups(per_group, group_query[at[order]], len(query_ids))[scored_queries]
    return query_ids[scored_queries], values


def _position_in_repeat(counts: np.ndarray) -> np.ndarray:
    """0 .. counts[i] - 1 for each i, concatenated."""
    total = int(counts.sum())
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return np.arange(total) - starts
