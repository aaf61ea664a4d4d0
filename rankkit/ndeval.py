"""ndeval's table: diversity and intent-aware measures of a run, as the TREC Web track printed them.

``rankkit ndeval QRELS RUN`` prints what ``ndeval QRELS RUN`` prints (ndeval 4.5, Charles
Clarke's ``ndeval.c`` of the TREC Web track 2009-2014, as bundled in ``pyndeval`` 0.0.8):
a header, one line per topic of the run (``runid,topic`` then 21 values with six decimals),
and the ``amean`` line. Its conventions, which :func:`ndeval` follows:

- the run's documents are ordered by the rank column (``traditional=True``: by score, then
  document id descending, trec_eval's order); the run id is the first line's tag;
- topics are numbers (a run's may carry a task prefix, ``wt09-1``) and print in numeric
  order; a run topic without judgments prints zeros and does not count in the mean, which
  divides by the topics of both files (``all_topics=True``, ndeval ``-c``: by every judged
  topic);
- nNRBP of a judged topic without a relevant document is 0 / 0, printed ``-nan`` (and so is
  its mean).

The values come from the metrics of :mod:`rankkit.metrics.diversity` through
:func:`rankkit.evaluate`, on the judgments :func:`rankkit.io.subtopics.intent_labels` packs.
ndeval's ``-baseline`` and ``-riskAlpha`` give risk-sensitive differences from a baseline run.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from .io.subtopics import intent_labels, read_ndeval_run, read_subtopic_qrels

__all__ = ["NDEVAL_COLUMNS", "ndeval", "ndeval_lines"]

#: ndeval's columns, in its order, and the rankkit metric of each (alpha and beta added).
NDEVAL_COLUMNS = {
    **{f"ERR-IA@{k}": f"ERR_IA@{k}" for k in (5, 10, 20)},
    **{f"nERR-IA@{k}": f"nERR_IA@{k}" for k in (5, 10, 20)},
    **{f"alpha-DCG@{k}": f"alpha_DCG@{k}" for k in (5, 10, 20)},
    **{f"alpha-nDCG@{k}": f"alpha_nDCG@{k}" for k in (5, 10, 20)},
    "NRBP": "NRBP", "nNRBP": "nNRBP", "MAP-IA": "AP_IA",
    **{f"P-IA@{k}": f"P_IA@{k}" for k in (5, 10, 20)},
    **{f"strec@{k}": f"StRecall@{k}" for k in (5, 10, 20)},
}

_ALPHA = ("ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "NRBP", "nNRBP")


def _spec(spec: str, alpha: float, beta: float) -> str:
    """A column's spec with alpha (and NRBP's beta) when they are not ndeval's defaults."""
    name, at, k = spec.partition("@")
    params = [f"alpha={alpha!r}"] if name in _ALPHA and alpha != 0.5 else []
    params += [f"beta={beta!r}"] if name in ("NRBP", "nNRBP") and beta != 0.5 else []
    return name + (f"({', '.join(params)})" if params else "") + at + k


def _topics(qrels: pd.DataFrame) -> pd.DataFrame:
    """The judgments with ndeval's topic numbers as ids ("012" is topic 12), checked and
    converted once per distinct topic id."""
    codes, uniques = pd.factorize(qrels.query_id)
    text = pd.Series(uniques.astype(str))
    bad = ~text.str.fullmatch(r"\d{1,6}")
    if bad.any():
        raise ValueError(f"ndeval's table needs topic numbers; the judgments hold topic {text[bad].iloc[0]!r}")
    numbers = pd.Series(text.astype(np.int64).astype(str), dtype=qrels.query_id.dtype)
    return qrels.assign(query_id=numbers.array.take(codes))


def _topic_values(packed: pd.DataFrame, run: str | os.PathLike, specs: dict[str, str], traditional: bool,
                  depth: int | None) -> tuple[str, pd.DataFrame, int]:
    """(run tag, values of each run topic in numeric order, how many of them are judged)."""
    from .api import evaluate

    runid, frame = read_ndeval_run(run, traditional=traditional)
    with warnings.catch_warnings():  # ndeval's rules for the topics of one file only, below
        warnings.simplefilter("ignore")
        table = evaluate(packed, frame, list(specs.values()), depth=depth, queries="run")
    table = table.set_axis(list(specs), axis=1)
    topics = sorted(set(frame.query_id.astype(np.int64)))
    values = table.reindex([str(t) for t in topics]).fillna(0.0).set_axis(topics, axis=0)
    with_relevant = set(packed.query_id[packed.relevance > 0].unique().tolist())
    empty = [str(t) in table.index and str(t) not in with_relevant for t in topics]
    values.loc[np.asarray(empty, dtype=bool), "nNRBP"] = np.nan  # ndeval's 0 / 0
    return runid, values, len(table)


def _risk_based(run: pd.DataFrame, base: pd.DataFrame, risk_alpha: float, all_topics: bool) -> pd.DataFrame:
    """ndeval's risk-sensitive values: run - baseline where the run is at least as good, else
    (1 + risk_alpha) times the loss; a topic missing from one run counts 0 there. The run's
    topics, and with ``all_topics`` the baseline's too."""
    topics = sorted(set(run.index) | set(base.index)) if all_topics else list(run.index)
    mine, theirs = run.reindex(topics, fill_value=0.0), base.reindex(topics, fill_value=0.0)
    difference = mine - theirs
    return difference.where(mine >= theirs, (risk_alpha + 1) * difference)


def ndeval(qrels: Any, run: str | os.PathLike, *, alpha: float = 0.5, beta: float = 0.5,
           traditional: bool = False, all_topics: bool = False, depth: int | None = None,
           baseline: str | os.PathLike | None = None, risk_alpha: float | str = 0.0) -> pd.DataFrame:
    """ndeval's values of a run: one row per topic of the run, then ``amean``.

    Parameters
    ----------
    qrels : path, DataFrame or dict
        Subtopic judgments, as :func:`rankkit.io.subtopics.read_subtopic_qrels` reads them;
        topic ids must be numbers.
    run : path
        A TREC run file, read as ndeval reads it (:func:`rankkit.io.subtopics.read_ndeval_run`).
    alpha, beta : float in [0, 1], default=0.5
        ndeval's ``-alpha`` (redundancy intolerance) and ``-beta`` (NRBP's patience).
    traditional : bool, default=False
        ndeval's ``-traditional``: order by score, then document id, not by the rank column.
    all_topics : bool, default=False
        ndeval's ``-c``: the mean divides by the number of judged topics.
    depth : int or None, default=None
        ndeval's ``-M``: keep the top ``depth`` documents of each topic.
    baseline : path or None, default=None
        ndeval's ``-baseline``: report the run's risk-sensitive differences from this run
        (TREC Web track 2013-2014): run - baseline per topic, the losses weighted
        ``1 + risk_alpha``.
    risk_alpha : float >= 0, or its text, default=0.0
        ndeval's ``-riskAlpha``; the text as given is printed in the run's name.

    Returns
    -------
    DataFrame
        Index ``topic`` (the run's topic numbers in numeric order, then ``"amean"``), ndeval's
        21 columns (:data:`NDEVAL_COLUMNS`); ``attrs["runid"]`` the name ndeval prints.
    """
    judgments = _topics(read_subtopic_qrels(qrels))
    specs = {column: _spec(spec, alpha, beta) for column, spec in NDEVAL_COLUMNS.items()}
    packed = intent_labels(judgments)
    runid, values, n = _topic_values(packed, run, specs, traditional, depth)
    if all_topics:
        n = len(set(judgments.query_id))
    if baseline is not None:
        base_id, base, _ = _topic_values(packed, baseline, specs, traditional, depth)
        values = _risk_based(values, base, float(risk_alpha), all_topics)
        runid = f"{runid} (rel to. {base_id}; rs=1+a; a={risk_alpha})"
        n = max(n, len(values))  # ndeval's count when a baseline is given
    totals = np.cumsum(values.to_numpy(), axis=0)[-1]  # topic by topic, in ndeval's order
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = totals / n if n else np.full(len(specs), np.nan)
    out = pd.DataFrame(np.vstack([values.to_numpy(), mean]), columns=list(specs),
                       index=pd.Index([*values.index, "amean"], name="topic", dtype=object))
    out.attrs["runid"] = runid
    return out


def ndeval_lines(table: pd.DataFrame) -> Iterator[str]:
    """The lines ``ndeval`` prints for :func:`ndeval`'s table (without line ends): ``%.6f``
    values, ``-nan`` for 0 / 0, as the C library prints them."""
    runid = table.attrs.get("runid", "")
    yield "runid,topic," + ",".join(table.columns)
    for topic, row in zip(table.index, table.to_numpy()):
        yield f"{runid},{topic}," + ",".join("-nan" if np.isnan(v) else f"{v:.6f}" for v in row)
