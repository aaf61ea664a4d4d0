"""Runs beyond one machine: judgments and runs as Dask DataFrames, evaluated per partition.

A query's values depend only on its own run lines and judgments, and on settings the whole
evaluation shares (``rel``, ``depth``, ``ties``, ``judged_only``, ``n_docs`` and the maximum
grade of ERR and the C/W/L metrics). So :func:`evaluate` partitions the run and the
judgments by query, once and the same way (a hash shuffle of each, or the judgments cut at
the run's divisions when the run is already indexed by query), scores every partition as
one block of the pipeline of every run (:func:`rankkit.evaluation.pipeline.score_run`:
rankkit's own join and metrics), and passes the maximum grade of all judgments to every partition.
A query split across input files or partitions is scored once, as one query.

The result is a lazy Dask DataFrame of per-query values (index ``query_id``, one column per
spec). :func:`compute` turns it into exactly the frame :func:`rankkit.evaluate` returns on
the same data: the same values bit for bit, the same rows in trec_eval's order, the same
``attrs`` (``unscored``, ``metrics``, ``queries``, ``ties``), and the same warnings about
queries that are not scored. :func:`aggregate` and :func:`compare` build on it.

Dask is an optional dependency (``pip install "rankkit[dask]"``): this module imports it only
when one of its functions needs it, and ``import rankkit`` never imports this module.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ._validation import check_option
from .evaluation.pipeline import QueryJudgments, RunBlock, Scored, merged, score_run
from .evaluation.scoring import aggregate as _aggregate_table
from .evaluation.scoring import expand_metrics, is_dask, measure, table_of
from .evaluation.settings import Settings, takes_options
from .io.checks import COLUMN_NAMES
from .io.readers import read_qrels as _read_qrels
from .io.readers import read_run as _read_run
from .join import Matched
from .names.records import refuse_score_metrics

__all__ = ["is_dask", "read_qrels", "read_run", "evaluate", "compute", "aggregate", "compare"]

_INSTALL = ("rankkit.dask needs dask[dataframe] and distributed: install rankkit with its [dask] extra "
            "(pip install \".[dask]\" in rankkit's folder), or pip install \"dask[dataframe]\" distributed")
_INFO = "rankkit.dask"  # the attrs key of each partition's report on its queries


def _dask():
    """The ``dask`` module, or an ImportError that says which extra to install."""
    try:
        import dask
    except ImportError as err:
        raise ModuleNotFoundError(_INSTALL, name=err.name) from err
    return dask


def _dd():
    _dask()
    try:
        import dask.dataframe as dd
    except ImportError as err:  # dask without its dataframe extra (pandas, pyarrow parts)
        raise ModuleNotFoundError(_INSTALL, name=err.name) from err
    return dd


# --------------------------------------------------------------------------- reading

def read_qrels(paths, *, columns: Mapping[str, str] | None = None):
    """Judgments from many files as a Dask DataFrame, one partition per file.

    Each file is read by :func:`rankkit.read_qrels` (TREC text, gzip, Parquet or Feather,
    told apart by their bytes), so a malformed line fails with rankkit's message naming the
    file and the line. Nothing is read until the frame is computed.

    Parameters
    ----------
    paths : str, path or list of them
        Files or glob patterns (``"qrels/*.txt.gz"``), expanded now, in sorted order; a URL
        (``s3://...``) is opened with fsspec (its filesystem package must be installed).
    columns : dict, optional
        Other column names of Parquet or Feather files, as :func:`rankkit.read_qrels` takes
        them (``{"topic": "query_id", "grade": "relevance"}``).

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``query_id`` (Categorical; categories differ between files), ``doc_id`` (str)
        and ``relevance`` (float64, also for integer labels: every file the same type).

    Raises
    ------
    ValueError
        A pattern that matches no file, or a path that does not exist (now); anything
        :func:`rankkit.read_qrels` rejects (when computed).

    Examples
    --------
    >>> qrels = read_qrels("data/example.qrels")
    >>> qrels.npartitions, list(qrels.columns)
    (1, ['query_id', 'doc_id', 'relevance'])
    """
    return _read(paths, "qrels", columns)


def read_run(paths, *, columns: Mapping[str, str] | None = None):
    """A run from many files as a Dask DataFrame, one partition per file.

    Each file is read by :func:`rankkit.read_run`, as :func:`read_qrels` reads judgments. A
    query may be split across files: :func:`evaluate` brings its lines together.

    Parameters
    ----------
    paths : str, path or list of them
        Files or glob patterns (``"run/part-*.txt.gz"``, ``"run/*.parquet"``), expanded now,
        in sorted order; URLs are opened with fsspec.
    columns : dict, optional
        Other column names of Parquet or Feather files (``{"sim": "score"}``).

    Returns
    -------
    dask.dataframe.DataFrame
        Columns ``query_id`` (Categorical), ``doc_id`` (str) and ``score`` (float64). Each
        partition's ``attrs["name"]`` holds its file's run tag.

    Examples
    --------
    >>> run = read_run(["data/example.run"])
    >>> run.npartitions, list(run.columns)
    (1, ['query_id', 'doc_id', 'score'])
    >>> int(run.shape[0].compute(scheduler="sync"))
    4323
    """
    return _read(paths, "run", columns)


def _read(paths, kind: str, columns):
    dask = _dask()

    dd = _dd()
    files = _files(paths)
    # rankkit's dtypes as they are (Dask would convert the str ids to its own string dtype);
    # from_map keeps ``columns=`` for column projection: ours travels as ``names``.
    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_map(_read_file, files, kind=kind, names=columns, meta=_meta(kind),
                           label=f"rankkit-read-{kind}", enforce_metadata=False)


def _files(paths) -> list:
    """Every file ``paths`` names, glob patterns expanded, each pattern's matches sorted."""
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if not items:
        raise ValueError("paths must name at least one file, got none")
    files: list = []
    for item in items:
        item = os.fspath(item)
        if "://" in item:  # a URL: fsspec's OpenFile objects (serialisable, opened on a worker)
            import fsspec

            found = fsspec.open_files(item, mode="rb")
        elif glob.has_magic(item):
            found = sorted(glob.glob(item))
        else:
            found = [item] if os.path.exists(item) else []
        if not found:
            raise ValueError(f"no file matches {item!r}")
        files.extend(found)
    return files


def _read_file(source, kind: str, names) -> pd.DataFrame:
    reader = _read_qrels if kind == "qrels" else _read_run
    if hasattr(source, "fs"):  # an fsspec OpenFile
        with source as f:
            frame = reader(f, columns=names)
    else:
        frame = reader(source, columns=names)
    if kind == "qrels":
        frame["relevance"] = frame["relevance"].astype(np.float64)  # every file the same dtype
    return frame


def _meta(kind: str) -> pd.DataFrame:
    """An empty frame with the readers' columns and dtypes, query categories unknown."""
    from dask.dataframe.utils import clear_known_categories

    reader = _read_qrels if kind == "qrels" else _read_run
    frame = reader({"q": {"d": 1.0}}).iloc[:0]
    if kind == "qrels":
        frame["relevance"] = frame["relevance"].astype(np.float64)
    return clear_known_categories(frame)


# --------------------------------------------------------------------------- evaluating

@takes_options(leave_out=("memory", "progress", "memory_in_use"))
def evaluate(
    qrels,
    run,
    metrics,
    *,
    npartitions: int | None = None,
    shuffle: str = "tasks",
    settings: Settings | None = None,
    **options,
):
    """Score a run held in a Dask DataFrame: a lazy DataFrame of per-query values.

    The run and the judgments are partitioned by query once, the same way: a hash shuffle
    of each on the query id, or, when the run is already indexed by query with known
    divisions (``run.set_index("query_id")``), the judgments cut at the run's divisions and
    the run left as it is. Each partition is then scored by rankkit's own join and metrics,
    with the maximum grade of all judgments (:func:`rankkit.evaluate`'s default for ERR and
    the C/W/L metrics) computed once and passed to every partition.

    Parameters
    ----------
    qrels : dask DataFrame, or anything :func:`rankkit.read_qrels` reads
        Judgments, e.g. from :func:`read_qrels`; with rankkit's column names, pyterrier's
        (``qid``, ``docno``, ``label``) or ``columns=``'s. A pandas frame, path or dict is read
        now and sent to the workers whole.
    run : dask DataFrame, or anything :func:`rankkit.read_run` reads
        The run, e.g. from :func:`read_run`; a query's lines may lie in several partitions.
    metrics, ties, queries, depth, rel, judged_only, n_docs, max_grade, columns
        As :func:`rankkit.evaluate` takes them, with the same defaults.
    npartitions : int, optional
        Partitions after the shuffle (default: the run's). Ignored when the run is already
        partitioned by query.
    shuffle : {"tasks", "p2p"}, default="tasks"
        Dask's shuffle method. "tasks" keeps query ids as Categoricals (1-2 bytes a line);
        "p2p" (distributed's peer-to-peer shuffle) needs them as text, and was the slower of
        the two on local workers (benchmarks/bench_dask.py, benchmarks/README.md).
    settings : rankkit.Settings or None, default=None
        The options above (but ``npartitions`` and ``shuffle``) in one object, as
        :func:`rankkit.evaluate` takes it; its ``memory`` and ``progress`` concern a run
        file read in blocks, not Dask's partitions.

    Returns
    -------
    dask.dataframe.DataFrame
        Index ``query_id``, one column per spec, the rows of each partition in trec_eval's
        order but the partitions in hash order. ``table.compute()`` gives those values;
        :func:`compute` gives exactly :func:`rankkit.evaluate`'s frame (rows in trec_eval's
        order, ``attrs``, the warnings about queries not scored).

    Raises
    ------
    ValueError
        Now: a bad option or metric spec, inputs without the needed columns. When computed:
        anything :func:`rankkit.evaluate` rejects (a malformed file line, a duplicate
        document, ...); from :func:`compute`, no query in common.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> run = dd.from_pandas(pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
    ...                                    "score": [0.9, 0.8, 0.5]}), npartitions=2)
    >>> qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    >>> table = evaluate(qrels, run, ["P@1", "nDCG@10"])
    >>> compute(table, scheduler="sync")
              P@1  nDCG@10
    query_id
    q1        1.0      1.0
    q2        1.0      1.0
    """
    dask = _dask()

    shuffle = check_option(shuffle, ("tasks", "p2p"), "shuffle")
    settings = Settings.of(settings, **options)
    max_grade, columns = settings.max_grade, settings.columns  # (memory and progress: a file's, not Dask's)
    specs = refuse_score_metrics(expand_metrics(metrics))  # bad specs fail before anything else
    # rankkit's dtypes as they are (Dask would convert str columns and indexes to its own)
    with dask.config.set({"dataframe.convert-string": False}):
        qrels, q_qrels, _ = _as_frame(qrels, "qrels", columns)
        run, q_run, by_query = _as_frame(run, "run", columns)
        if max_grade is None and any(_data_max_grade(m) for m in specs.values()):
            max_grade = qrels.map_partitions(_largest_grade, columns, meta=(None, "f8")).max()
        tag = None
        if any(m.name == "runid" for m in specs.values()):  # the run's tag: its last partition's
            tag = run.reduction(_tag, aggregate=_last_tag, meta=(None, object))
        run, qrels = _by_query(run, qrels, q_run, q_qrels, by_query, npartitions or run.npartitions, shuffle)
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        return run.map_partitions(_score_partition, qrels, max_grade, tag, settings, metrics,
                                  meta=_table_meta(specs), align_dataframes=False, enforce_metadata=False)


def _by_query(run, qrels, q_run: str, q_qrels: str, by_query: bool, n: int, method: str):
    """Run and judgments partitioned alike by query: a hash shuffle of each into ``n``
    partitions, or, for a run indexed by query (``by_query``), the judgments cut at its
    divisions."""
    if by_query:
        qrels = qrels.map_partitions(_as_text, q_qrels, meta=_as_text(qrels._meta, q_qrels))
        return run, qrels.set_index(q_qrels, divisions=list(run.divisions), shuffle_method=method)
    return _shuffle(run, q_run, n, method), _shuffle(qrels, q_qrels, n, method)


def _as_frame(obj, kind: str, columns) -> tuple[Any, str, bool]:
    """``obj`` as a Dask DataFrame (an input that is not one is read now, into one
    partition), the name of its query id column, and whether the query id is its index
    with known divisions (the frame is then partitioned by query)."""
    dd = _dd()
    reader = _read_qrels if kind == "qrels" else _read_run
    if not is_dask(obj):
        dask = _dask()

        frame = reader(obj, columns=columns)
        if kind == "qrels":
            frame["relevance"] = frame["relevance"].astype(np.float64)
        with dask.config.set({"dataframe.convert-string": False}):
            obj = dd.from_pandas(frame, npartitions=1, sort=False)
    elif not isinstance(obj, dd.DataFrame):
        raise ValueError(f"{kind} must be a Dask DataFrame, got {type(obj).__name__}")
    indexed = obj.index.name is not None and obj.index.name not in obj.columns
    reader(obj._meta.reset_index() if indexed else obj._meta, columns=columns)  # what it lacks, in rankkit's words
    name = _column([*obj.columns, obj.index.name] if indexed else list(obj.columns), "query_id", columns)
    on_index = name not in obj.columns
    if on_index and not (obj.known_divisions and _is_text(obj._meta.index)):
        obj, on_index = obj.reset_index(), False
    if not on_index and not _is_text(obj._meta[name]):
        from dask.dataframe.utils import clear_known_categories

        obj = obj.map_partitions(_text_queries, name, meta=clear_known_categories(_text_queries(obj._meta, name)))
    return obj, name, on_index


def _column(names: list, role: str, columns) -> str:
    """The column of ``role`` among ``names``, found as :func:`rankkit.read_run` finds it
    (which has checked that there is one)."""
    mapped = [theirs for theirs, r in (columns or {}).items() if r == role]
    candidates = (*mapped, role) if mapped else COLUMN_NAMES[role]
    return next(c for c in candidates if c in names)


def _is_text(values: pd.Series | pd.Index) -> bool:
    """Whether the query ids are held as strings by their dtype (every string dtype hashes
    alike in a shuffle; an ``object`` column may hold numbers, which hash otherwise)."""
    dtype = values.dtype
    arrow_text = isinstance(dtype, pd.ArrowDtype) and pd.api.types.is_string_dtype(dtype)
    return isinstance(dtype, pd.StringDtype) or arrow_text


def _text_queries(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """Query ids as a Categorical of ``str``: ``1`` and ``"1"`` are one query, as for
    :func:`rankkit.read_run`, and then hash alike in the shuffle."""
    values = frame[name]
    if isinstance(values.dtype, pd.CategoricalDtype):
        text = values.cat.rename_categories([c if isinstance(c, str) else str(c) for c in values.cat.categories])
    else:
        codes, uniques = pd.factorize(values)
        text = pd.Categorical.from_codes(codes, [u if isinstance(u, str) else str(u) for u in uniques])
    return frame.assign(**{name: text})


def _shuffle(frame, name: str, n: int, method: str):
    """``frame`` hash-partitioned on its query id column into ``n`` partitions."""
    if method == "p2p":  # Arrow cannot join the Categoricals' dictionaries (int8 codes): text ids
        frame = frame.map_partitions(_as_text, name, meta=_as_text(frame._meta, name))
    return frame.shuffle(on=name, npartitions=n, shuffle_method=method)


def _as_text(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    return frame.assign(**{name: frame[name].astype(str)})


def _data_max_grade(metric) -> bool:
    """Whether the metric's maximum grade defaults to the largest label of the data."""
    return metric.info.data_max_grade and "max_grade" not in metric.kwargs


def _largest_grade(qrels: pd.DataFrame, columns) -> pd.Series:
    """The largest label (>= 0) of a partition's judgments, as one value (NaN: none).
    Labels that are not numbers are left to :func:`rankkit.read_qrels` to name."""
    labels = pd.to_numeric(qrels[_column(list(qrels.columns), "relevance", columns)], errors="coerce")
    labels = labels[labels >= 0]
    return pd.Series([float(labels.max()) if len(labels) else np.nan])


def _table_meta(specs: dict) -> pd.DataFrame:
    data = {c: pd.Series([], dtype=object if m.info.kind == "str" else np.float64) for c, m in specs.items()}
    return pd.DataFrame(data, index=pd.Index([], dtype=str, name="query_id"))


def _tag(frame: pd.DataFrame):
    return frame.attrs.get("name")


def _last_tag(tags: pd.Series):
    """The last partition's run tag (trec_eval's runid is the last line's)."""
    tags = tags.dropna()
    return tags.iloc[-1] if len(tags) else None


def _score_partition(run: pd.DataFrame, qrels: pd.DataFrame, max_grade, tag, settings: Settings,
                     metrics: list) -> pd.DataFrame:
    """One partition's queries, scored: rankkit's join and metrics. ``attrs`` report the
    queries left out (their flags), for :func:`compute`."""
    run = run.reset_index() if run.index.name is not None and run.index.name not in run.columns else run
    qrels = qrels.reset_index() if qrels.index.name is not None and qrels.index.name not in qrels.columns else qrels
    matched = Matched()  # ids that never match: warned about once, over every partition (_combine)
    judgments = QueryJudgments.of_frame(_read_qrels(qrels, columns=settings.columns))
    frame = _read_run(run, columns=settings.columns)
    if max_grade is None or not np.isfinite(max_grade) or max_grade <= 0:
        max_grade = judgments.max_grade() if max_grade is None else 1.0
    settings = replace(settings, max_grade=float(max_grade))
    tag = tag if tag is not None else frame.attrs.get("name")
    blocks = RunBlock.whole_run(frame)
    del frame
    specs = expand_metrics(metrics)
    scored = score_run(judgments, blocks, lambda r: measure(specs)(r, settings), settings, tag=lambda: tag,
                       matched=matched)
    table = table_of(scored, specs)
    table.attrs[_INFO] = {"flags": scored.flags, "tag": scored.tag, "columns": specs,
                          "queries": settings.queries, "ties": settings.ties, "matched": matched}
    return table


# --------------------------------------------------------------------------- results

def compute(*tables, **kwargs):
    """Compute tables :func:`evaluate` returned: exactly :func:`rankkit.evaluate`'s frames.

    Every table's partitions are computed in one :func:`dask.compute` call (what the tables
    share, such as the judgments' shuffle, is computed once), then each table is put in
    trec_eval's query order with :func:`rankkit.evaluate`'s ``attrs`` (``metrics``,
    ``unscored``, ``queries``, ``ties``), and the queries not scored are warned about as
    :func:`rankkit.evaluate` warns.

    Parameters
    ----------
    *tables : dask DataFrame
        What :func:`evaluate` returned (each one unchanged).
    **kwargs
        Passed to :func:`dask.compute` (``scheduler="sync"``, say).

    Returns
    -------
    DataFrame, or a tuple of them for several tables

    Raises
    ------
    ValueError
        A table that is not :func:`evaluate`'s; judgments and run without a query in
        common (as :func:`rankkit.evaluate`).

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd, warnings
    >>> run = dd.from_pandas(pd.DataFrame({"qid": ["2", "10", "2"], "docno": ["a", "b", "c"],
    ...                                    "score": [3.0, 2.0, 1.0]}), npartitions=2)
    >>> table = evaluate({"10": {"b": 1}, "2": {"c": 1}, "7": {"x": 1}}, run, ["RR"])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     result = compute(table, scheduler="sync")
    >>> result
               RR
    query_id
    10        1.0
    2         0.5
    >>> result.attrs["unscored"], str(caught[0].message)[:40]
    ({'7': 'not in the run'}, 'judged queries missing from the run are ')
    """
    return _compute(tables, kwargs)


def _compute(tables: tuple, kwargs: dict):
    """:func:`compute`."""
    dask = _dask()

    dd = _dd()
    if not tables:
        raise ValueError("compute needs at least one table")
    for table in tables:
        if not isinstance(table, dd.DataFrame):
            raise ValueError("tables must be Dask DataFrames rankkit.dask.evaluate returned, "
                             f"got {type(table).__name__}")
    parts = dask.compute(*[table.to_delayed() for table in tables], **kwargs)
    out = [_combine(frames) for frames in parts]
    return out[0] if len(out) == 1 else tuple(out)


def _combine(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The partitions of one table as :func:`rankkit.evaluate` returns it: their values and
    flags merged by the pipeline (:func:`rankkit.evaluation.pipeline.merged`)."""
    infos = [frame.attrs.get(_INFO) for frame in frames]
    if not frames or any(info is None for info in infos):
        raise ValueError("tables must be what rankkit.dask.evaluate returned, without changes")
    columns = infos[0]["columns"]
    matched = Matched()
    for info in infos:
        matched.merge(info["matched"])
    parts = [Scored(frame.index.tolist(), _values(frame, columns), info["tag"], info["flags"], None)
             for frame, info in zip(frames, infos)]
    scored = merged(parts, infos[0]["queries"], matched)
    table = table_of(scored, columns)
    table.attrs.update(queries=infos[0]["queries"], ties=infos[0]["ties"])
    return table


def _values(frame: pd.DataFrame, columns: dict) -> dict[str, np.ndarray]:
    """A partition's columns as the pipeline holds them (Dask may have changed dtypes)."""
    return {c: np.asarray(frame[c].to_numpy(), dtype=object if m.info.kind == "str" else np.float64)
            for c, m in columns.items()}


def aggregate(table, **kwargs) -> pd.Series:
    """trec_eval's ``all`` line of a table :func:`evaluate` returned: :func:`compute`, then
    :func:`rankkit.evaluate.aggregate` (sums one query at a time in trec_eval's order, so the
    values equal ``aggregate(rankkit.evaluate(...))`` to the last bit).

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> run = dd.from_pandas(pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"],
    ...                                    "score": [1.0, 1.0]}), npartitions=2)
    >>> aggregate(evaluate({"q1": {"a": 1}, "q2": {"c": 1}}, run, ["P@1", "num_rel"]), scheduler="sync").to_dict()
    {'P@1': 0.5, 'num_rel': 2.0}
    """
    return _aggregate_table(table if isinstance(table, pd.DataFrame) else _compute((table,), kwargs))


def compare(qrels, runs: Mapping, metrics, *, queries: str = "run", ties: str = "docno",
            columns: Mapping[str, str] | None = None, scheduler=None, **options) -> pd.DataFrame:
    """:func:`rankkit.compare` on runs held in Dask DataFrames.

    Every run is scored by :func:`evaluate` against the same judgments, all in one
    :func:`compute`; the per-query tables then go to :func:`rankkit.compare`, whose tests,
    corrections and intervals apply unchanged.

    Parameters
    ----------
    qrels : dask DataFrame or anything :func:`rankkit.read_qrels` reads
    runs : mapping of name -> dask DataFrame (or anything :func:`evaluate` takes)
    metrics : str or list of str
    queries, ties, columns
        As :func:`evaluate` takes them (``queries`` also as :func:`rankkit.compare` does).
    scheduler : optional
        Passed to :func:`dask.compute`.
    **options
        :func:`rankkit.compare`'s own: ``baseline``, ``test``, ``correction``, ``alpha``,
        ``n_resamples``, ``seed``, ``bootstrap_ci``.

    Returns
    -------
    DataFrame
        :func:`rankkit.compare`'s table, one row per (metric, comparison).

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    >>> def run(docs):
    ...     return dd.from_pandas(pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2", "q3", "q3"],
    ...                                         "doc_id": docs, "score": [2.0, 1.0] * 3}), npartitions=2)
    >>> table = compare(qrels, {"bm25": run(list("axbycz")), "dense": run(list("xaybzc"))}, "RR",
    ...                 baseline="bm25", scheduler="sync")
    >>> table[["system", "baseline", "diff"]]
      system baseline  diff
    0  dense     bm25  -0.5
    """
    from .stats import compare as compare_tables  # late: scipy loads for compare() alone

    if not isinstance(runs, Mapping):
        raise ValueError(f"runs must be a mapping of name -> run, got {type(runs).__name__}")
    if not is_dask(qrels):
        qrels = _read_qrels(qrels, columns=columns)  # read once, for every run
    names = list(expand_metrics(metrics))
    lazy = [evaluate(qrels, run, metrics, queries=queries, ties=ties, columns=columns) for run in runs.values()]
    tables = _compute(tuple(lazy), {} if scheduler is None else {"scheduler": scheduler})
    tables = tables if isinstance(tables, tuple) else (tables,)
    return compare_tables(None, dict(zip(runs, tables)), names, queries=queries, **options)
