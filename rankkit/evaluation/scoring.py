"""``evaluate``: score a run against judgments, one row per query; ``rank``, ``score`` and ``aggregate``.

The way of a run, one way down: :func:`evaluate` (and :func:`rankkit.trec_eval.evaluate_like_trec_eval`)
check their options once into a :class:`~rankkit.evaluation.settings.Settings`; :func:`score_any_run`
reads the judgments, and the run in blocks (a run file: :mod:`rankkit.evaluation.stream`) or
as one block (a run held in memory), then every run takes the one pipeline
(:mod:`rankkit.evaluation.pipeline`: join, rank, measure); :func:`table_of` makes the table.

Metrics are named by specs (:mod:`rankkit.names`), one syntax everywhere (the command line,
``evaluate``, notebooks)::

    NAME(param=value, ...)@k      e.g.  nDCG@10   nDCG(gain='exp')@10   AP(normalize='min_k')@5
                                        RBP(p=0.9)   P(rel=2)@5   iprec(recall=0.1)

``parse_metric`` turns a spec into a :class:`Metric` whose ``str()`` prints it back in
canonical form (like ir_measures). trec_eval's measure names are aliases: ``map``,
``map_cut_10``, ``ndcg``, ``ndcg_cut_10``, ``P_10``, ``recip_rank``, ``recall_100``,
``Rprec``, ``bpref``, ``success_10``, ``num_ret``, ``num_rel``, ``num_rel_ret``,
``iprec_at_recall_0.10``; trec_eval's parameter lists (``P.5,10``, ``ndcg_cut.10,20``,
``iprec_at_recall..10,.20``, ``ndcg.1=3,2=9``) expand to one column per value, named
as trec_eval prints them.

Every metric known to ``evaluate`` is one row of :data:`REGISTRY`: its function, the
parameters a spec may set, whether it takes a cutoff, and how trec_eval aggregates it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_rel, warn_user
from ..io import RunFile, read_qrels, read_run
from ..io.keys import query_index
from ..join import rank_frames
from ..names import REGISTRY, Metric, MetricInfo, expand_metrics, parse_metric
from ..names.records import refuse_score_metrics
from ..rankings import Rankings, as_rankings
from .arrays import GEOMETRIC_FLOOR as GEOMETRIC_FLOOR  # kept here: callers import them from scoring
from .arrays import aggregate_column, score_values, unscored_queries
from .arrays import defaults as _defaults
from .arrays import geometric_mean as geometric_mean
from .pipeline import QueryJudgments, RunBlock, Scored, score_run
from .score_table import ScoreTable, to_numpy
from .settings import QUERY_POLICIES, TIE_POLICIES, Settings, takes_options
from .stream import score_run_file

__all__ = [
    "Metric", "MetricInfo", "REGISTRY", "parse_metric", "expand_metrics", "score", "rank",
    "evaluate", "aggregate", "score_any_run", "table_of", "measure", "unscored_queries", "is_dask", "QUERY_POLICIES",
    "TIE_POLICIES",
]


# --------------------------------------------------------------------------- scoring


def score(
    rankings,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    rel: float | None = None,
    max_grade: float | None = None,
    n_docs: int | None = None,
) -> pd.DataFrame:
    """Every metric on every row of a :class:`Rankings`: one row per query.

    Parameters
    ----------
    rankings : Rankings or array-like
        Ranked labels (see :func:`as_rankings`), e.g. from :func:`rankkit.rank`.
    metrics : spec, Metric, a list of them, or a mapping of column name -> spec or Metric
        See :func:`parse_metric` and :func:`expand_metrics` (column names); a mapping names
        the columns itself (as :func:`expand_metrics` and trec_eval's names give them).
    rel : float or None, default=None
        Relevance level for every binary metric whose spec does not set ``rel``
        (trec_eval ``-l``); None keeps each function's default (1).
    max_grade : float or None, default=None
        The maximum grade of ERR and of the C/W/L metrics (SDCG, NERR8-11, INST, INSQ,
        BPM) when their spec does not set it; None uses the largest label in ``rankings``.
    n_docs : int or None, default=None
        Collection size for ``utility`` when its spec does not set ``n_docs`` (trec_eval
        ``-N``); None keeps its default 0.

    Returns
    -------
    DataFrame
        Index ``query_id``, one column per metric (float64; object for the string
        metrics ``runid`` and ``relstring``); ``attrs["metrics"]`` maps each column to its
        canonical spec.

    Examples
    --------
    >>> score([[2, 0, 1], [0, 1, 2]], ["P@2", "nDCG(gain='exp')@3"]).round(4)
              P@2  nDCG(gain='exp')@3
    query_id
    0         0.5              0.9639
    1         0.5              0.5869
    """
    r = as_rankings(rankings)
    if isinstance(metrics, Mapping):
        columns = {c: m if isinstance(m, Metric) else parse_metric(m) for c, m in metrics.items()}
    else:
        columns = expand_metrics(metrics)
    refuse_score_metrics(columns)
    if rel is not None:
        rel = check_rel(rel)
    return _score(r, columns, _defaults(r, rel, max_grade, n_docs))


def _score(r: Rankings, columns: dict[str, Metric], defaults: dict[str, Any]) -> pd.DataFrame:
    return frame_of(score_values(r, columns, defaults), pd.Index(r.query_ids, name="query_id"), columns)


def frame_of(data: dict[str, np.ndarray], index: pd.Index, columns: dict[str, Metric]) -> pd.DataFrame:
    """The table of :func:`score` from its values (:func:`score_values`) along the query ids ``index``."""
    for column, metric in columns.items():
        if metric.info.kind == "str":
            data[column] = _text(data[column], index)
    table = pd.DataFrame(data, index=index, columns=list(columns))
    table.attrs["metrics"] = {column: str(metric) for column, metric in columns.items()}
    return table


def table_of(scored: Scored, columns: dict[str, Metric]) -> pd.DataFrame:
    """The per-query table of a run's values (:func:`~rankkit.evaluation.pipeline.score_run`):
    index ``query_id`` in trec_eval's order, ``runid`` columns set to the run's tag (known
    once the whole run is read), ``attrs["unscored"]`` the queries left out."""
    table = frame_of(scored.tagged(columns), query_index(scored.ids), columns)
    table.attrs["unscored"] = scored.unscored
    return table


def _text(values: Any, index: pd.Index) -> pd.Series:
    """A column of text (``runid``, ``relstring``) in pandas' default dtype for text, or
    ``object`` when a value holds bytes that are not UTF-8 (a run tag read from such a
    file, escaped: see :mod:`rankkit.io`), which pandas 3's ``str`` cannot hold."""
    try:
        return pd.Series(values, index=index)
    except UnicodeEncodeError:
        return pd.Series(values, index=index, dtype=object)


def aggregate(table: pd.DataFrame | ScoreTable) -> pd.Series | pd.DataFrame:
    """trec_eval's ``all`` line: one value per column over the table's queries (a table of
    several runs, indexed by run and query: one row per run).

    Each column aggregates as its registry row says (:class:`MetricInfo`): the mean, the
    sum for counts (num_ret, ...), the geometric mean with trec_eval's floor 1e-5 for
    gm_map and gm_bpref, the run's tag for runid, nothing (None) for relstring. Sums add
    the per-query values one at a time in query order, as trec_eval does, so the
    ``all`` line agrees with trec_eval to its last printed digit.

    Examples
    --------
    >>> aggregate(score([[1, 0], [0, 0]], ["P@1", "num_rel_ret"])).to_dict()
    {'P@1': 0.5, 'num_rel_ret': 1.0}
    >>> aggregate(score([[1, 0], [0, 1]], ["gm_map"])).round(4).to_dict()   # sqrt(1 * 0.5)
    {'gm_map': 0.7071}

    A :class:`~rankkit.evaluation.ScoreTable` of :func:`rankkit.evaluate_scores` gives its
    ``all`` (as floats):

    >>> from rankkit.evaluation import evaluate_scores
    >>> aggregate(evaluate_scores([1, 0, 1], [0.3, 0.2, 0.1], metrics=["AUC", "P@1"])).to_dict()
    {'AUC': 0.5, 'P@1': 1.0}
    """
    if isinstance(table, ScoreTable):
        return pd.Series({column: float(to_numpy(value)) for column, value in table.all.items()}, dtype=np.float64)
    if isinstance(table.index, pd.MultiIndex) and table.index.names[0] == "run":
        rows = {}
        for name in table.index.unique(level="run"):
            part = table.xs(name, level="run")
            part.attrs = table.attrs
            rows[name] = aggregate(part)
        return pd.DataFrame(rows).T.rename_axis("run")
    specs = table.attrs.get("metrics", {})
    values = {
        column: aggregate_column(table[column].to_numpy(), parse_metric(specs.get(column, column)).info)
        for column in table.columns
    }
    numeric = all(isinstance(v, float) for v in values.values())
    return pd.Series(values, index=table.columns, dtype=np.float64 if numeric else object)


@takes_options()
def evaluate(
    qrels,
    run,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    settings: Settings | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Score a run against judgments: one row per query, one column per metric.

    Parameters
    ----------
    qrels : path, DataFrame, records or dict
        Judgments, anything :func:`rankkit.read_qrels` reads (``{qid: {doc: label}}``).
        Labels below 0 mean "pooled but not judged" (trec_eval).
    run : path, DataFrame, records or dict
        The ranked results, anything :func:`rankkit.read_run` reads (``{qid: {doc: score}}``).
    metrics : spec, Metric, or a list of them
        ``["nDCG@10", "AP", "P(rel=2)@5", "map_cut_10"]``; see :func:`parse_metric`. Each
        column is named by its spec as written (see :func:`expand_metrics`).
    ties : {"docno", "optimistic", "pessimistic", "average"}, default="docno"
        Order of documents with equal scores; "docno" is trec_eval's (score descending,
        then document id descending). See :func:`rankkit.rank`.
    queries : {"run", "qrels"}, default="run"
        Which queries are scored. "run" (trec_eval): queries of the run that have
        judgments. "qrels" (trec_eval ``-c``): every judged query; one absent from the run
        is scored on an empty ranking: 0, except num_rel (its relevant documents, as
        trec_eval prints) and RBP_residual (1.0: every rank is unknown; its
        ``convention='trec_eval'``, the ``rbp_resid`` alias, gives trec_eval's 0). Under
        both, run queries without judgments are not scored and a warning names them;
        under "run", so are judged queries absent from the run.
    depth : int or None, default=None
        Keep only the top ``depth`` documents of each query (trec_eval ``-M``).
    rel : float or None, default=None
        Relevance level of the binary metrics (label >= rel is relevant), like trec_eval
        ``-l``; a spec's own ``rel=`` wins. Gain-based metrics (nDCG, DCG, CG, ERR, RBP
        with ``max_grade``, so trec_eval's ``rbp``) use the labels themselves, as trec_eval
        does.
    judged_only : bool, default=False
        Score only the judged documents of each ranking, in their order (trec_eval ``-J``).
    n_docs : int or None, default=None
        Number of documents in the collection, for ``utility`` (trec_eval ``-N``).
    max_grade : float or None, default=None
        The maximum grade of ERR and the C/W/L metrics whose spec does not set one; None
        uses the largest label of the judgments (of every judged query, scored or not).
        Set it when the judgments are evaluated in parts (:mod:`rankkit.dask`).
    columns : dict, optional
        Other column names of the qrels and the run (DataFrames, Arrow tables, Parquet or
        Feather files, records), as :func:`rankkit.read_qrels` takes them:
        ``{"topic": "query_id", "grade": "relevance", "sim": "score"}``. rankkit's names and
        pyterrier's (``qid``, ``docno``, ``label``, ``score``) need none.
    memory : int, str or None, default=None
        A TREC run file (a path or binary file object) is read block by block of whole
        queries so that peak memory stays near this bound, whatever the run's size
        (:mod:`rankkit.evaluation.stream`): bytes, or ``"600MB"``, ``"2GB"``; None is 480 MiB. The
        values are those of reading the file whole. Other inputs are held in memory.
    progress : bool, default=False
        Show a progress bar while a run file is read (tqdm's when installed, a widget in
        notebooks; else a line on stderr).
    settings : rankkit.Settings or None, default=None
        Every option above in one object, checked once (:class:`rankkit.Settings`), to keep
        and pass around; the keywords are its sugar. Give one or the other. Every field of
        :class:`rankkit.Settings` is a keyword here (the signature shows them): an option
        is declared there once.

    Returns
    -------
    DataFrame
        Index ``query_id`` (the scored queries, in trec_eval's order), one float64 column
        per metric. ``attrs["unscored"]`` maps every query left out to the reason,
        ``attrs["metrics"]`` each column to its canonical spec, and ``attrs["queries"]``,
        ``attrs["ties"]`` record the policies. :func:`aggregate` gives trec_eval's ``all``.
        Given Dask DataFrames (qrels or run), ``rankkit.evaluate`` calls
        :func:`rankkit.dask.evaluate` (``rankkit.evaluation.evaluate`` takes the other inputs):
        the result is a lazy Dask DataFrame, and ``rankkit.dask.compute(table)`` gives this
        frame (trec_eval's order, these attrs, the warnings).

    Warns
    -----
    UserWarning
        Queries left out (run queries without judgments; under "run", judged queries
        missing from the run), and, with an id of each side, when no retrieved document
        of any query has a judgment (``doc-02207`` never matches ``DOC-02207``).

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"d": 1}}
    >>> run = {"q1": {"a": 0.9, "b": 0.8, "c": 0.1}, "q3": {"x": 1.0}}
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     table = evaluate(qrels, run, ["P@2", "ndcg_cut_3", "num_rel"])
    >>> table.round(4)
              P@2  ndcg_cut_3  num_rel
    query_id
    q1        0.5      0.7602      2.0
    >>> table.attrs["unscored"]
    {'q2': 'not in the run', 'q3': 'no judgments'}

    Several runs, named, give one table (judgments read once), indexed by run and query:

    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     both = evaluate(qrels, {"bm25": run, "dense": {"q1": {"c": 2.0, "a": 1.0}}}, ["P@2"])
    >>> both
                    P@2
    run   query_id
    bm25  q1        0.5
    dense q1        1.0
    >>> aggregate(both)
           P@2
    run
    bm25   0.5
    dense  1.0
    """
    settings = Settings.of(settings, **options)
    if is_runs(run):
        return _evaluate_runs(qrels, run, metrics, settings)
    specs = refuse_score_metrics(expand_metrics(metrics))  # bad specs fail before any file is read
    scored = score_any_run(read_qrels(qrels, columns=settings.columns), run, measure(specs), settings,
                           check_labels=lambda labels: _check_whole_labels(labels, settings.rel))
    table = table_of(scored, specs)
    table.attrs |= {"queries": settings.queries, "ties": settings.ties}
    return table


def is_runs(obj: Any) -> bool:
    """Whether ``obj`` is a mapping of name -> run (``{"bm25": run1, "dense": run2}``)
    rather than one run as a dict (``{query: {document: score}}``): its values are runs
    (paths, frames, tables, or dicts of dicts), not a query's scores."""
    if not isinstance(obj, Mapping) or not obj:
        return False
    first = next(iter(obj.values()))
    if isinstance(first, Mapping):
        return bool(first) and isinstance(next(iter(first.values())), Mapping)
    return isinstance(first, (str, os.PathLike, pd.DataFrame)) or hasattr(first, "schema")


def _evaluate_runs(qrels, runs: Mapping, metrics, settings: Settings) -> pd.DataFrame:
    """:func:`evaluate` of several named runs: one table indexed by (run, query_id), the
    judgments read once (and prepared once for every run)."""
    qrels = read_qrels(qrels, columns=settings.columns)
    tables = {name: evaluate(qrels, run, metrics, settings=settings) for name, run in runs.items()}
    first = next(iter(tables.values()))
    table = pd.concat(list(tables.values()), keys=list(tables), names=["run", "query_id"])
    table.attrs = {**first.attrs, "unscored": {name: t.attrs["unscored"] for name, t in tables.items()}}
    return table


def _check_whole_labels(labels: np.ndarray, rel: float | None) -> None:
    """A warning when some judged labels are not whole numbers: a binary metric then counts
    a document relevant by ``label >= rel``, which may not be what the labels mean (halved
    labels turn every 1 into 0.5: not relevant at the default level 1)."""
    fractions = labels[labels != np.floor(labels)]
    if fractions.size:
        level = 1 if rel is None else rel
        warn_user(f"{fractions.size} judged label(s) are not whole numbers (e.g. {fractions[0]:g}): binary metrics "
                  f"count a document relevant when its label >= rel ({level:g}), graded metrics take the labels "
                  "as they are; set rel= if another level is meant")


def measure(columns: dict[str, Metric]) -> Callable[[Rankings, Settings], dict[str, np.ndarray]]:
    """The values of ``columns`` on a Rankings, with the evaluation-wide defaults of its
    settings (``rel``, ``max_grade``, ``n_docs``): what :func:`evaluate` measures."""
    def values(r: Rankings, settings: Settings) -> dict[str, np.ndarray]:
        return score_values(r, columns, _defaults(r, settings.rel, settings.max_grade, settings.n_docs))
    return values


def score_any_run(
    qrels: pd.DataFrame | QueryJudgments,
    run,
    measure: Callable[[Rankings, Settings], dict[str, np.ndarray]],
    settings: Settings,
    *,
    check_labels: Callable[[np.ndarray], None] | None = None,
) -> Scored:
    """A run's values, read from a TREC file in blocks or held in memory: the way of
    :func:`evaluate` and of trec_eval's printer (:mod:`rankkit.trec_eval`) through the
    one pipeline (:func:`~rankkit.evaluation.pipeline.score_run`).

    ``qrels`` is a frame :func:`rankkit.read_qrels` returned, or its
    :class:`~rankkit.evaluation.pipeline.QueryJudgments`. A TREC run file is read block
    by block within ``settings.memory`` (:func:`rankkit.evaluation.stream.run_file_blocks`);
    any other run is read whole, as one block. ``measure(r, settings)`` gives the values of
    the judged queries of ``r``, with ``settings.max_grade`` set (the judgments' largest
    label when none was given). ``check_labels`` is shown the judged labels (>= 0) once.
    The queries left out are warned about (:func:`unscored_queries`).
    """
    judgments = qrels if isinstance(qrels, QueryJudgments) else QueryJudgments.of_frame(qrels)
    if check_labels is not None:
        check_labels(judgments.grades[judgments.grades >= 0])
    settings = settings.with_max_grade(judgments.max_grade())
    if RunFile.is_trec(run):
        with RunFile(run) as run_file:
            return score_run_file(judgments, run_file, lambda r: measure(r, settings), settings)
    frame = read_run(run, columns=settings.columns)
    tag, blocks = frame.attrs.get("name"), RunBlock.whole_run(frame)
    del frame  # the join frees the run's columns as it goes
    return score_run(judgments, blocks, lambda r: measure(r, settings), settings, tag=lambda: tag)


def is_dask(obj: Any) -> bool:
    """Whether ``obj`` is a Dask collection (a DataFrame, say), without importing Dask:
    :func:`rankkit.evaluate` sends such inputs to :func:`rankkit.dask.evaluate`.

    Examples
    --------
    >>> import pandas as pd
    >>> is_dask(pd.DataFrame()), is_dask({"q1": {"d1": 1}})
    (False, False)
    """
    module = type(obj).__module__ or ""
    return module == "dask" or module.startswith(("dask.", "dask_expr"))


# --------------------------------------------------------------------------- the join, checked


def rank(
    qrels: Any,
    run: Any,
    *,
    ties: str = "docno",
    depth: int | None = None,
    rel: float = 1,
    judged_only: bool = False,
    columns: Mapping[str, str] | None = None,
) -> Rankings:
    """Join a run with its judgments and order every query: the :class:`Rankings` of a run.

    Each query's documents are ordered by score, descending; documents with equal scores
    are ordered by ``ties``. The judged label of each retrieved document fills ``labels``;
    every judged label of the query (retrieved or not) fills ``ideal``.

    Parameters
    ----------
    qrels : path, DataFrame, records or dict
        Anything :func:`rankkit.read_qrels` accepts. Labels below 0 ("pooled but not judged",
        trec_eval) count as unjudged: label 0, ``judged`` False, not in ``ideal``/``n_judged``.
    run : path, DataFrame, records or dict
        Anything :func:`rankkit.read_run` accepts. The rank column of a TREC file is ignored.
    ties : {"docno", "optimistic", "pessimistic", "average"}, default="docno"
        Order of documents with equal scores within a query:

        - ``"docno"``: document id descending, in byte order (``strcmp``): trec_eval's order,
          and pytrec_eval's.
        - ``"optimistic"`` / ``"pessimistic"``: higher / lower labels first (then docno), the
          best and worst case for every metric and every relevance threshold.
        - ``"average"``: docno order, and ``Rankings.ties`` holds tie-group ids: each group of
          equal scores in a query is a run of consecutive ranks with one id, unique over the
          whole matrix (every other rank, padding included, has an id of its own). Metrics that
          are linear in per-rank values (P, R, CG, DCG/nDCG, success via counts) then report
          their exact expectation over all orders of every group (:meth:`Rankings.expected`).
    depth : int, optional
        Keep each query's first ``depth`` documents after ordering (trec_eval ``-M``).
        A tie group cut by ``depth`` keeps its docno-first members.
    rel : float, default=1
        Relevance threshold, accepted for symmetry with the metrics. The optimistic and
        pessimistic orders sort by the label itself, which is the best / worst case for every
        threshold, so ``rel`` does not change the result.
    judged_only : bool, default=False
        Keep only the retrieved documents that have a judgment (label >= 0), in their order,
        after the ``depth`` cut: trec_eval ``-J``. Queries keep their place (``has_run``)
        even when none of their documents is judged.
    columns : dict, optional
        Other column names of the qrels and the run, as :func:`rankkit.read_qrels` takes them
        (``{"topic": "query_id", "grade": "relevance", "sim": "score"}``).

    Returns
    -------
    Rankings
        One row per query found in the run *or* the judgments, in trec_eval's order
        (query ids compared as strings, byte order). ``has_run`` and ``has_qrels`` say where
        each query was found; a query absent from the run has an empty ranking (length 0),
        a query without judgments has ``n_judged == 0``.

    Raises
    ------
    ValueError
        Anything :func:`rankkit.read_qrels` / :func:`rankkit.read_run` reject; an unknown
        ``ties``; ``depth`` not a positive integer.

    Warns
    -----
    UserWarning
        When no retrieved document of any query the two share has a judgment, with an id
        of each side: ids that never match (``doc-02207`` and ``DOC-02207``) would
        otherwise give 0 everywhere without a word.

    Examples
    --------
    >>> qrels = {"q1": {"a": 2, "b": 0, "c": 1, "z": 1}, "q2": {"x": 1}}
    >>> run = {"q1": {"a": 0.5, "b": 0.9, "c": 0.5}, "q3": {"y": 1.0}}
    >>> r = rank(qrels, run)
    >>> list(r.query_ids), r.has_run, r.has_qrels
    (['q1', 'q2', 'q3'], array([ True, False,  True]), array([ True,  True, False]))
    >>> r.labels          # q1: b (0.9), then c before a (tied at 0.5, docno descending)
    array([[0., 1., 2.],
           [0., 0., 0.],
           [0., 0., 0.]])
    >>> r.ideal, r.n_judged
    (array([[2., 1., 1., 0.],
           [1., 0., 0., 0.],
           [0., 0., 0., 0.]]), array([4, 1, 0]))
    >>> rank(qrels, run, ties="optimistic").labels[0]
    array([0., 2., 1.])
    >>> rank(qrels, run, ties="average").ties[0]
    array([0, 1, 1])
    """
    settings = Settings(ties=ties, depth=depth, rel=rel, judged_only=judged_only, columns=columns)
    return rank_frames(read_qrels(qrels, columns=columns), read_run(run, columns=columns), settings)
