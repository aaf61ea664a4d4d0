"""Rank fusion: one run from several (hybrid retrieval fuses a lexical and a dense run).

:func:`fuse` normalises each run's scores per query, then combines them per document with
one of the methods below; :func:`optimize_fusion` chooses a method's weights or parameter
by a metric on training queries and reports it on held-out ones.

Names, defaults and values are those of ranx 0.3.21 (Bassani, "ranx: A Blazing-Fast Python
Library for Ranking Evaluation and Comparison", ECIR 2022; ``ranx/fusion/*.py``,
``ranx/normalization/*.py``): method and norm names as ranx's ``fuse`` takes them, the same
documents, the same scores to the last bit (tests/test_fusion.py compares them). Choices
ranx makes that a reader could miss, kept here:

- a document a run did not retrieve adds 0.0 to ``sum``, ``wsum`` and the rank-based sums,
  counts for nothing in the ``*mnz`` family, ``anz``, ``med`` and ``mixed``; it stands at
  -1e9 for ``max`` and 1e9 for ``min``; BordaFuse gives it ``(n - n_run + 1) / 2`` points
  (``n`` candidates of the query, ``n_run`` retrieved by that run);
- ranks are 0-based positions in score order; among equal scores a run keeps its input
  order (ranx's order whenever its numba sort is stable: up to 15 documents per query, or
  no tied scores);
- every norm is per query, on the run's own documents; denominators are floored at 1e-9;
  ``norm="borda"`` gives each run every candidate of the query;
- every run must hold the same queries.

The supervised methods (``probfuse``, ``segfuse``, ``slidefuse``, ``posfuse``, ``mapfuse``,
``bayesfuse``) learn, per run, how likely a document at each position is relevant from
training judgments (``qrels=``) and the runs on those queries (``train_runs=``, by default
the runs themselves), then score every query with it; their values are ranx's to the last
bit. ``condorcet`` and ``w_condorcet`` order each query's documents by pairwise majorities;
where ranx's order follows a Python set's (cycles and pairwise ties), rankkit follows a
documented rule (Copeland's wins, then the Borda count of votes, then the document id), and
gives ranx's result wherever that is well defined.

The fused run is ordered by query, then score descending, then document id descending
(trec_eval's order of ties, so that a written rank agrees with how trec_eval reads it).

Sums run in one documented order: over runs in the order given, and within a query in
rank order (:func:`rankkit.ops.numerics.rank_sum`); what the learned methods learn, over the
training queries in the order of their ids (``mapfuse``'s mean by ``numpy.mean``, ranx's
order); no BLAS products.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ._validation import check_number, check_option, check_probability, warn_user
from .io import read_run
from .io.keys import arrow_ids, doc_keys, keys_are_ids, pair_keys, take, word_count
from .io.layout import build_frame
from .ops.numerics import rank_sum

__all__ = ["fuse", "optimize_fusion", "FusionResult", "trec_lines", "METHODS", "NORMS"]

#: Score normalisations, as ranx's ``norm_switch`` names them (``None``: scores as given).
NORMS = ("min-max", "min_max", "min-max-inverted", "min_max_inverted", "max", "sum", "zmuv", "rank", "borda")

#: Methods that combine ranks (0-based positions in a run), the others combine scores.
RANK_METHODS = ("rrf", "isr", "log_isr", "logn_isr", "rbc", "bordafuse", "w_bordafuse")
#: Methods that learn from training judgments (``qrels=``), ranx's supervised methods.
SUPERVISED = ("probfuse", "segfuse", "slidefuse", "posfuse", "mapfuse", "bayesfuse")
#: Methods that order documents by pairwise majorities of the runs.
CONDORCET = ("condorcet", "w_condorcet")
#: Methods that take one weight per run.
WEIGHTED = ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet")
#: Every method, by ranx's name for it.
METHODS = ("sum", "wsum", "max", "min", "med", "anz", "mnz", "gmnz", "wmnz", "mixed", *RANK_METHODS[:-1],
           "w_bordafuse", *CONDORCET, *SUPERVISED)
#: Methods whose scores depend on each run's order alone (or on learned tables of positions):
#: ``norm="borda"``, which orders missing candidates as a Python set does, is refused with them.
ORDER_METHODS = (*RANK_METHODS, *CONDORCET, *SUPERVISED)

_MISSING_MAX, _MISSING_MIN = -1e9, 1e9   # ranx's stand-ins for a document a run lacks
_FLOOR = 1e-9                            # ranx's floor of every norm's denominator
#: SegFuse's segment ends, ``10 * 2 ** (k - 1) - 5`` for k = 1..10, as ranx uses them.
_SEGFUSE_ENDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])
#: BayesFuse's segment ends (ranx's cut-offs).
_BAYES_ENDS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
_MIN_ODDS = math.log(0.001 / 0.999)     # BayesFuse's log odds of a document a run lacks


@dataclass
class _View:
    """One run over the candidates: its rows in rank order."""

    cand: np.ndarray    # int64, the row's candidate (index into the fused documents)
    query: np.ndarray   # int64, query code
    rank: np.ndarray    # int64, 0-based position in the query's ranking
    value: np.ndarray   # float64, the normalised score
    length: np.ndarray  # int64 (n_queries,), documents the run retrieved per query


@dataclass
class _Space:
    """The candidates: every (query, document) some run retrieved."""

    categories: pd.Index      # query ids (codes index them)
    cand_query: np.ndarray    # int64 (n_candidates,)
    doc_ids: pa.Array         # (n_candidates,) each candidate's document id
    doc_order: np.ndarray     # (n_candidates,) ascending in the ids' byte order
    per_query: np.ndarray     # int64 (n_queries,), candidates per query


def fuse(runs: Sequence[Any] | Mapping[str, Any], method: str = "rrf", norm: str | None = "min-max",
         weights: Sequence[float] | Mapping[str, float] | None = None, *, k: float = 60,
         phi: float | None = None, gamma: float | None = None, sigma: float = 0.01,
         qrels: Any = None, train_runs: Sequence[Any] | Mapping[str, Any] | None = None,
         n_segments: int | None = None, window: int | None = None, name: str | None = None):
    """Fuse runs into one: per query, normalise each run, then combine per document.

    Scores combined (``s_j(d)``: document ``d``'s normalised score in run ``j``, ``J(d)``
    the runs holding ``d``, ``n(d) = |J(d)|``, ``w_j`` the weights):

    - ``sum``   CombSUM ``sum_j s_j(d)``;  ``max`` CombMAX;  ``min`` CombMIN;
      ``med`` CombMED (median over J(d));  ``anz`` CombANZ ``sum_J s_j(d) / n(d)``;
      ``mnz`` CombMNZ ``sum_J s_j(d) * n(d)``. Fox & Shaw, "Combination of Multiple
      Searches", TREC-2 (NIST SP 500-215), 1993.
    - ``gmnz``  CombGMNZ ``sum_J s_j(d) * n(d) ** gamma``. J. H. Lee, "Analyses of Multiple
      Evidence Combination", SIGIR 1997.
    - ``wsum``  ``sum_j w_j s_j(d)`` (a linear combination; Vogt & Cottrell, "Fusion via a
      linear combination of scores", Information Retrieval 1(3), 1999).
    - ``wmnz``  ``sum_J s_j(d) * sum_J w_j``;  ``mixed`` ``sum_J w_j s_j(d) * sqrt(n(d))``.
      S. Wu & F. Crestani, "Data fusion with estimated weights", CIKM 2002.

    Ranks combined (``r_j(d)`` 0-based; ``n_q`` candidates of the query, ``m_j`` documents
    run ``j`` retrieved for it):

    - ``rrf``   ``sum_j 1 / (k + r_j(d) + 1)``. Cormack, Clarke & Büttcher, "Reciprocal rank
      fusion outperforms Condorcet and individual rank learning methods", SIGIR 2009.
    - ``isr``   ``sum_J (r_j(d) + 1) ** -2 * n(d)``; ``log_isr`` ``... * ln n(d)``;
      ``logn_isr`` ``... * ln(n(d) + sigma)``. Mourão, Martins & Magalhães, "Multimodal
      medical information retrieval with unsupervised rank fusion", Computerized Medical
      Imaging and Graphics 39, 2015.
    - ``rbc``   ``sum_j (1 - phi) phi ** r_j(d)``. Bailey, Moffat, Scholer & Thomas,
      "Retrieval Consistency in the Presence of Query Variations", SIGIR 2017.
    - ``bordafuse`` ``sum_j b_j(d)`` with ``b_j(d) = n_q - r_j(d)``, or
      ``(n_q - m_j + 1) / 2`` if run j lacks d; ``w_bordafuse`` ``sum_j w_j b_j(d)``.
      Aslam & Montague, "Models for Metasearch", SIGIR 2001.
    - ``condorcet`` documents ordered by pairwise majority: ``x`` beats ``y`` when more runs
      rank ``x`` above ``y`` than ``y`` above ``x`` (a run lacking a document ranks it below
      all it holds; lacking both, it abstains); ``w_condorcet`` weighs each run's vote by
      ``w_j``. Montague & Aslam, "Condorcet Fusion for Improved Retrieval", CIKM 2002. The
      order is by Copeland's score (wins + half the pairwise ties; A. H. Copeland, "A
      reasonable social welfare function", University of Michigan seminar, 1951), then the
      Borda count of votes ``sum_y sum_j w_j [x above y in j]``, then document id
      descending; the score is ``n_q - position``. Where the majorities form a strict total
      order this is ranx's sort (and Montague & Aslam's) whatever its input order; where they
      have cycles or ties, ranx's result follows a Python set's iteration order, rankkit's
      this rule.

    Learned from training judgments (``qrels=``; relevant: label >= 1) and the training runs'
    orders (``train_runs=``, default ``runs``; normalised with ``norm`` as ranx's
    ``optimize_fusion`` does), per run ``j``, over the training queries ``Q`` (those ``qrels``
    judges), ``h_q(i)`` 1 if the document at 0-based position ``i`` of query ``q`` is relevant;
    each fused document then adds its run's learned value at its position (0 if it lacks it),
    summed over the runs as ``sum``:

    - ``probfuse`` (``n_segments`` required) ``P_j(k) / (k + 1)`` for a document in segment
      ``k`` of ``n_segments`` equal segments of its query (``ceil(m / n_segments)`` documents
      each); ``P_j(k)`` the mean over ``Q`` of the share of relevant documents in segment k.
      Lillis, Toolan, Collier & Dunnion, "ProbFuse: a probabilistic approach to data fusion",
      SIGIR 2006.
    - ``segfuse`` ``P_j(k) * (s_j(d) + 1)``, segments ending at ``10 * 2 ** (k - 1) - 5``
      (5, 15, 35, ... 5115, as ranx takes them; none past 5115); ``P_j(k)`` the mean over Q of
      relevant documents in the segment divided by its full size. M. Shokouhi, "Segmentation
      of Search Engine Results for Effective Data-Fusion", ECIR 2007.
    - ``posfuse`` ``p_j(i)``, the share of relevant documents at position ``i`` among the
      training queries holding ``i + 1`` documents or more (0 past the training depth); ``slidefuse`` (``window`` ``w``
      required) the mean of ``p_j`` over positions ``max(i - w, 0) .. min(i + w, m - 1)``
      (those past the training depth adding nothing). Lillis, Zhang, Toolan, Collier, Leonard
      & Dunnion, "Estimating probabilities for effective data fusion", SIGIR 2010 (posfuse);
      Lillis, Toolan, Collier & Dunnion, "Extending probabilistic data fusion using sliding
      windows", ECIR 2008 (slidefuse).
    - ``mapfuse`` ``MAP_j / (i + 1)``, ``MAP_j`` the run's mean average precision over Q
      (trec_eval's AP, summed in rank order; the mean by ``numpy.mean``, as ranx).
      Lillis et al., SIGIR 2010.
    - ``bayesfuse`` ``sum_j o_j(d)``, every run counting: ``o_j = ln(p / (1 - p))`` of the
      mean precision ``p`` over Q of the segment (ends 5, 10, 15, 20, 30, 100, 200, 500,
      1000) holding d (0 raised to 0.001, and ``1 - p`` too), ``ln(0.001 / 0.999)`` if run j
      lacks d or holds it past 1000 (there ranx reads past its table). Aslam & Montague,
      "Models for Metasearch", SIGIR 2001.

    Norms (per query, over the run's documents; ``i`` the 0-based rank, ``m`` the count):
    ``min-max`` ``(s - min) / max(max - min, 1e-9)``; ``min-max-inverted``
    ``(max - s) / ...`` (the run then re-ranked); ``max`` ``s / max(max, 1e-9)``; ``sum``
    ``(s - min) / max(sum - m min, 1e-9)``; ``zmuv`` ``(s - mean) / max(std, 1e-9)``
    (Montague & Aslam, "Relevance score normalization for metasearch", CIKM 2001);
    ``rank`` ``1 - i / m``; ``borda`` ``1 - i / n_q``, or ``0.5 - (m - 1) / (2 n_q)`` for a
    candidate the run lacks (Renda & Straccia, "Web metasearch: rank vs. score based rank
    aggregation methods", SAC 2003). Rank-based, Condorcet and learned methods read the order
    (segfuse the scores too), which every norm but ``min-max-inverted`` keeps; ``borda`` is
    refused with them.

    Parameters
    ----------
    runs : list of runs, or dict of name to run
        Two or more runs, each anything :func:`rankkit.read_run` reads (DataFrame,
        ``{query_id: {doc_id: score}}``, path), all holding the same queries.
    method : str, default="rrf"
        One of :data:`METHODS` (ranx's names).
    norm : str or None, default="min-max"
        One of :data:`NORMS` (ranx's names and default), or None.
    weights : sequence of float, or dict of run name to float, optional
        One per run, for ``wsum``, ``wmnz``, ``mixed``, ``w_bordafuse``, ``w_condorcet``
        (default: 1.0 each).
    k : float, default=60
        RRF's constant (ranx's default).
    phi : float in (0, 1)
        RBC's persistence (required by ``rbc``, as in ranx).
    gamma : float
        CombGMNZ's exponent (required by ``gmnz``, as in ranx).
    sigma : float in [0, 1], default=0.01
        logn_isr's offset (ranx's default).
    qrels : judgments, anything :func:`rankkit.read_qrels` reads
        Training judgments, required by the learned methods (and refused by the others):
        their queries are the training queries, each of which every training run must hold.
    train_runs : list or dict of runs, optional
        The same systems' runs on the training queries, one per run in ``runs`` (by name if
        both are dicts); default ``runs`` themselves (learning on the queries ``qrels``
        judges, then fusing every query).
    n_segments : int >= 1
        ProbFuse's number of segments per query (required by ``probfuse``, as in ranx).
    window : int >= 0
        SlideFuse's half-width ``w`` (ranx's ``w``; required by ``slidefuse``).
    name : str, optional
        The fused run's name (``attrs["name"]`` of a DataFrame); default the method.

    Returns
    -------
    dict or DataFrame
        ``{query_id: {doc_id: score}}`` in fused order if every run is a dict, else a
        DataFrame (``query_id``, ``doc_id``, ``score``) as :func:`rankkit.read_run` gives.

    Examples
    --------
    >>> bm25 = {"q1": {"a": 12.0, "b": 9.5, "c": 3.1}}
    >>> dense = {"q1": {"b": 0.91, "d": 0.87, "a": 0.42}}
    >>> fused = fuse([bm25, dense], method="rrf")
    >>> {doc: round(s, 5) for doc, s in fused["q1"].items()}
    {'b': 0.03252, 'a': 0.03227, 'd': 0.01613, 'c': 0.01587}

    Learning on judged query q1 (b relevant: BM25's second, the dense run's first), fusing
    q2, where y holds those positions:

    >>> bm25["q2"], dense["q2"] = {"x": 8.0, "y": 7.5}, {"y": 0.9, "x": 0.3}
    >>> fuse([bm25, dense], method="posfuse", qrels={"q1": {"b": 1}})["q2"]
    {'y': 2.0, 'x': 0.0}
    >>> fuse([bm25, dense], method="condorcet")["q1"]
    {'b': 4.0, 'a': 3.0, 'd': 2.0, 'c': 1.0}
    """
    frames, labels, as_dict = _read_runs(runs)
    settings = _check(method, norm, weights, labels, k=k, phi=phi, gamma=gamma, sigma=sigma,
                      n_segments=n_segments, window=window, qrels=qrels)
    space, views = _views(frames, settings["norm"])
    if method in SUPERVISED:
        names = labels if isinstance(runs, Mapping) else len(labels)
        settings["tables"] = _train(method, settings, qrels, train_runs, names, (space, views))
    scores = _combine(space, views, settings)
    return _output(space, scores, as_dict, name if name is not None else method)


# --------------------------------------------------------------------------- checks


def _read_runs(runs) -> tuple[list[pd.DataFrame], list[str], bool]:
    """The runs as frames, their names, and whether every one came as a dict."""
    if isinstance(runs, Mapping):
        labels, sources = [str(n) for n in runs], list(runs.values())
    elif isinstance(runs, (str, bytes, pd.DataFrame)) or not isinstance(runs, Sequence):
        raise ValueError(f"runs must be a list of runs or a dict of name to run, got {type(runs).__name__}")
    else:
        sources = list(runs)
        labels = [f"run {i}" for i in range(len(sources))]
    if len(sources) < 2:
        raise ValueError(f"fuse needs two or more runs, got {len(sources)}")
    frames = [read_run(s) for s in sources]
    first = frames[0].query_id.cat.categories
    for label, frame in zip(labels[1:], frames[1:]):
        other = frame.query_id.cat.categories
        if not first.equals(other):
            only = sorted(set(first.tolist()) ^ set(other.tolist()))[:3]
            raise ValueError(f"runs must hold the same queries (as ranx requires): {labels[0]} and {label} "
                             f"differ, e.g. on {only}")
    return frames, labels, all(isinstance(s, Mapping) for s in sources)


def _check(method, norm, weights, labels, **params) -> dict:
    """Every setting checked once: a dict the kernels trust."""
    method = check_option(method, METHODS, "method")
    if norm is not None:
        norm = check_option(norm, NORMS, "norm").replace("_", "-")
    if norm == "borda" and method in ORDER_METHODS:
        raise ValueError(f"norm='borda' gives every run every candidate, in an order ranx leaves to a "
                         f"Python set; {method!r} reads ranks: use norm=None or 'min-max'")
    if (params.get("qrels") is None) == (method in SUPERVISED):
        raise ValueError(f"method {method!r} learns from judgments: pass qrels= (the training queries' "
                         f"judgments)" if method in SUPERVISED else
                         f"method {method!r} learns nothing, qrels= is for {', '.join(SUPERVISED)}")
    if weights is not None and method not in WEIGHTED:
        raise ValueError(f"method {method!r} takes no weights; these do: {', '.join(WEIGHTED)}")
    if isinstance(weights, Mapping):
        unknown = set(map(str, weights)) - set(labels)
        if unknown:
            raise ValueError(f"weights name runs that are not given: {sorted(unknown)}; runs: {labels}")
        weights = [weights.get(n, 1.0) for n in labels]
    weights = [1.0] * len(labels) if weights is None else list(weights)
    if len(weights) != len(labels):
        raise ValueError(f"weights must hold one number per run ({len(labels)}), got {len(weights)}")
    out = {"method": method, "norm": norm, "weights": [check_number(w, "weights") for w in weights]}
    out["k"] = _real(params["k"], "k")
    out["sigma"] = check_probability(params["sigma"], "sigma", low_open=False)
    if method == "rbc":
        if params["phi"] is None:
            raise ValueError("method 'rbc' needs phi, its persistence in (0, 1) (ranx has no default)")
        out["phi"] = check_probability(params["phi"], "phi", high_open=True)
    if method == "gmnz":
        if params["gamma"] is None:
            raise ValueError("method 'gmnz' needs gamma, CombGMNZ's exponent (ranx has no default)")
        out["gamma"] = _real(params["gamma"], "gamma")
    for option, owner, low in (("n_segments", "probfuse", 1), ("window", "slidefuse", 0)):
        value = params.get(option)
        if method == owner and value is None:
            raise ValueError(f"method {owner!r} needs {option}, an integer >= {low} (ranx has no default)")
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)
                                  or value < low):
            raise ValueError(f"{option} must be an integer >= {low}, got {value!r}")
        out[option] = None if value is None else int(value)
    return out


def _real(value, name: str):
    """A finite number, kept an int when it is one (ranx's integer arithmetic then)."""
    check_number(value, name)
    return int(value) if isinstance(value, numbers.Integral) else float(value)


# --------------------------------------------------------------------------- candidates


def _views(frames: list[pd.DataFrame], norm: str | None) -> tuple[_Space, list[_View]]:
    """The candidates, and each run in rank order with its normalised scores."""
    n_queries = len(frames[0].query_id.cat.categories)
    ordered = []
    for frame in frames:
        query = np.asarray(frame.query_id.cat.codes, dtype=np.int64)
        score = frame.score.to_numpy(dtype=np.float64)
        order = _rank_order(query, score)
        ordered.append((query[order], score[order], np.arange(len(frame), dtype=np.int64)[order]))
    ids = pa.chunked_array([c for f in frames for c in arrow_ids(f.doc_id).cast(pa.large_string()).chunks],
                           type=pa.large_string())
    bounds = np.cumsum([0] + [len(f) for f in frames])
    rows = np.concatenate([bounds[i] + o for i, (_, _, o) in enumerate(ordered)])
    query = np.concatenate([q for q, _, _ in ordered])
    found = _by_keys(frames, ordered, query, rows, ids, n_queries)
    cand, space = found if found is not None else _by_dictionary(query, rows, ids, n_queries)
    space.categories = frames[0].query_id.cat.categories
    views = [_view(q, cand[bounds[i]:bounds[i + 1]], s, n_queries, norm) for i, (q, s, _) in enumerate(ordered)]
    return space, views


def _by_keys(frames, ordered, query, rows, ids, n_queries: int) -> tuple[np.ndarray, _Space] | None:
    """Candidates from the readers' 64-bit keys of the ids, where a key is the id's bytes
    (ids of up to 8 bytes): no hashing of strings, one sort of (query, key) pairs, each match
    confirmed on the keys. None otherwise (longer ids, runs keyed apart, a collision of the
    pairs): for hashed keys, confirming every match on the ids costs more than hashing them."""
    built = [doc_keys(arrow_ids(f.doc_id)) for f in frames]
    if len({word_count(size) for _, size in built}) > 1 or not keys_are_ids(max(size for _, size in built), ids):
        return None
    doc = np.concatenate([keys[o] for (keys, _), (_, _, o) in zip(built, ordered)])
    cand, first = _factorize(pair_keys(query, doc.copy(), max(n_queries, 1)))
    if not (doc == doc[first][cand]).all():
        return None
    doc_ids = take(ids, rows[first]) if len(first) else pa.array([], pa.large_string())
    # big-endian bytes: the keys sort as the ids' bytes do
    return cand, _Space(None, query[first], doc_ids, doc[first], np.bincount(query[first], minlength=n_queries))


def _by_dictionary(query, rows, ids, n_queries: int) -> tuple[np.ndarray, _Space]:
    """Candidates from Arrow's dictionary of every id (a hash of each string), exact."""
    encoded = pc.dictionary_encode(ids.combine_chunks())
    docs, codes = encoded.dictionary, np.asarray(encoded.indices, dtype=np.int64)
    keys = query * max(len(docs), 1)
    keys += codes[rows]
    cand, first = _factorize(keys)
    del keys
    doc_codes = codes[rows[first]]
    return cand, _Space(None, query[first], docs.take(pa.array(doc_codes)), _byte_ranks(docs)[doc_codes],
                        np.bincount(query[first], minlength=n_queries))


def _byte_ranks(ids: pa.Array) -> np.ndarray:
    """Each id's position in the byte order of ``ids``."""
    ranks = np.empty(len(ids), dtype=np.int64)
    ranks[np.asarray(pc.array_sort_indices(ids), dtype=np.int64)] = np.arange(len(ids))
    return ranks


def _factorize(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each key's index among the distinct keys (numbered in ascending key order, so the
    candidates come grouped by query), and the first row holding each distinct key."""
    order = np.argsort(keys, kind="stable")  # faster here: each run's rows come by query
    ordered = keys[order]
    new = np.empty(len(keys), dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    del ordered  # the temporaries one at a time: 100 million keys take 800 MB each
    numbers = np.cumsum(new, dtype=np.int64)
    numbers -= 1
    index = np.empty(len(keys), dtype=np.int64)
    index[order] = numbers
    return index, order[new]


def _rank_order(query: np.ndarray, score: np.ndarray) -> np.ndarray | slice:
    """Rows by query code, then score descending; equal scores keep their input order."""
    if len(query) < 2:
        return slice(None)
    same = query[1:] == query[:-1]
    starts = np.flatnonzero(np.r_[True, ~same])
    segments = query[starts]
    if (np.diff(score)[same] > 0).any() or len(np.unique(segments)) < len(segments):
        return np.lexsort((-score, query))  # lexsort is stable
    if (np.diff(segments) > 0).all():  # already so (a TREC file usually is)
        return slice(None)
    # whole queries in score order, in another order of queries (a file's "1, 10, 2"):
    # move each block of rows, no sort of the rows
    by_code = np.argsort(segments)
    lengths = np.diff(np.r_[starts, len(query)])[by_code]
    return np.repeat(starts[by_code] - (np.cumsum(lengths) - lengths), lengths) + np.arange(len(query))


def _starts(query: np.ndarray, n_queries: int) -> tuple[np.ndarray, np.ndarray]:
    """Documents per query and each row's 0-based rank, for rows grouped by query."""
    length = np.bincount(query, minlength=n_queries)
    first = np.cumsum(length) - length
    return length, np.arange(len(query), dtype=np.int64) - first[query]


def _view(query, cand, score, n_queries: int, norm: str | None) -> _View:
    length, rank = _starts(query, n_queries)
    value = score if norm in (None, "borda") else _normalise(norm, query, rank, score, length)
    if norm == "min-max-inverted":  # ranx sorts the run again by its new scores
        order = np.lexsort((-value, query))
        cand, value = cand[order], value[order]
    return _View(cand, query, rank, value, length)


# --------------------------------------------------------------------------- norms


def _normalise(norm: str, query, rank, score, length) -> np.ndarray:
    """Each query's scores normalised as ranx's ``ranx/normalization`` does."""
    if norm == "rank":
        return 1 - rank / length[query]
    starts = np.cumsum(length) - length
    used = length > 0
    low = np.zeros(len(length))
    high = np.zeros(len(length))
    low[used] = np.minimum.reduceat(score, starts[used])
    high[used] = np.maximum.reduceat(score, starts[used])
    if norm == "min-max":
        return (score - low[query]) / np.maximum(high - low, _FLOOR)[query]
    if norm == "min-max-inverted":
        return (high[query] - score) / np.maximum(high - low, _FLOOR)[query]
    if norm == "max":
        return score / np.maximum(high, _FLOOR)[query]
    total = _query_sums(score, query, rank, len(length))
    if norm == "sum":
        return (score - low[query]) / np.maximum(total - low * length, _FLOOR)[query]
    # zmuv: the mean and the population deviation, each a sum in rank order
    mean = np.divide(total, length, out=np.zeros(len(length)), where=used)
    deviation = score - mean[query]
    var = np.divide(_query_sums(deviation * deviation, query, rank, len(length)), length,
                    out=np.zeros(len(length)), where=used)
    return deviation / np.maximum(np.sqrt(var), _FLOOR)[query]


def _query_sums(values, query, rank, n_queries: int) -> np.ndarray:
    """Per query, its values added in rank order (one padded row per query)."""
    depth = int(rank.max()) + 1 if len(rank) else 0
    matrix = np.zeros((n_queries, depth))
    matrix[query, rank] = values
    return rank_sum(matrix)


# --------------------------------------------------------------------------- combining


def _combine(space: _Space, views: list[_View], s: dict) -> np.ndarray:
    """The fused score of every candidate."""
    method, n = s["method"], len(space.cand_query)
    if method in SUPERVISED:
        return _combine_learned(space, views, s)
    if method in CONDORCET:
        return _condorcet(space, views, s["weights"])
    if method in RANK_METHODS:
        return _combine_ranks(space, views, s)
    if s["norm"] == "borda":
        views = [_borda_view(space, v) for v in views]
    if method in ("sum", "wsum"):
        return _weighted_sum(n, [(v.cand, v.value) for v in views], s["weights"])
    if method in ("max", "min"):
        pick, fill = (np.maximum, _MISSING_MAX) if method == "max" else (np.minimum, _MISSING_MIN)
        out = None
        for v in views:
            full = np.full(n, fill)
            full[v.cand] = v.value
            out = full if out is None else pick(out, full)
        return out
    if method == "med":
        return _median(n, views)
    total, count, weight = np.zeros(n), np.zeros(n, dtype=np.int64), np.zeros(n)
    for w, v in zip(s["weights"], views):
        total[v.cand] += w * v.value if method == "mixed" else v.value
        count[v.cand] += 1
        weight[v.cand] += w
    return _by_count(method, total, count, weight, s)


def _by_count(method: str, total, count, weight, s: dict) -> np.ndarray:
    """The ``*mnz`` family: a sum over the runs holding the document times a factor of their
    number (a table of that factor per count, computed by Python's math: libm, as ranx)."""
    counts = range(int(count.max()) + 1 if len(count) else 1)
    if method == "anz":
        return total / count
    if method == "wmnz":
        return total * weight
    if method == "mnz" or method == "isr":
        return total * count
    factor = {
        "gmnz": lambda c: float(c ** s.get("gamma", 1)),
        "mixed": lambda c: math.sqrt(c),
        "log_isr": lambda c: math.log(c) if c else 0.0,
        "logn_isr": lambda c: math.log(c + s["sigma"]),
    }[method]
    return total * np.array([factor(c) for c in counts])[count]


def _weighted_sum(n: int, parts: list[tuple[np.ndarray, np.ndarray]], weights) -> np.ndarray:
    """``sum_j w_j x_j`` over the runs in order; a run lacking a document adds ``w_j * 0.0``."""
    total = np.zeros(n)
    for w, (cand, value) in zip(weights, parts):
        full = np.zeros(n)
        full[cand] = value
        total += w * full
    return total


def _median(n: int, views: list[_View]) -> np.ndarray:
    """The median of each document's scores over the runs holding it (NaN marks the others)."""
    matrix = np.full((n, len(views)), np.nan)
    for j, v in enumerate(views):
        matrix[v.cand, j] = v.value
    count = (~np.isnan(matrix)).sum(axis=1)
    matrix.sort(axis=1)  # NaN last
    rows = np.arange(n)
    low, high = matrix[rows, (count - 1) // 2], matrix[rows, count // 2]
    return np.where(count % 2 == 1, high, (low + high) / 2)


def _borda_view(space: _Space, v: _View) -> _View:
    """A run after ranx's ``borda`` norm: every candidate of the query, a missing one with
    ``0.5 - (m - 1) / (2 n_q)``."""
    n_q = space.per_query[space.cand_query]
    m = v.length[space.cand_query]
    value = 0.5 - (m - 1) / (2 * n_q)
    value[v.cand] = 1 - v.rank / space.per_query[v.query]
    n = len(space.cand_query)
    return _View(np.arange(n), space.cand_query, np.zeros(n, np.int64), value, v.length)


def _combine_ranks(space: _Space, views: list[_View], s: dict) -> np.ndarray:
    """Rank-based methods: a score per run from each document's rank, then summed."""
    method = s["method"]
    if method == "rrf":
        parts = [(v.cand, 1 / (s["k"] + v.rank + 1)) for v in views]
    elif method == "rbc":
        parts = [(v.cand, (1 - s["phi"]) * _int_power(s["phi"], v.rank)) for v in views]
    elif method in ("bordafuse", "w_bordafuse"):
        n = len(space.cand_query)
        parts = []
        for v in views:
            full = (space.per_query - v.length + 1)[space.cand_query] / 2
            full[v.cand] = space.per_query[v.query] - v.rank
            parts.append((np.arange(n), full))
    else:  # the ISR family: 1 / (r + 1)^2, combined as CombMNZ with a factor of n(d)
        n = len(space.cand_query)
        total, count = np.zeros(n), np.zeros(n, dtype=np.int64)
        for v in views:
            total[v.cand] += 1 / (v.rank + 1) ** 2
            count[v.cand] += 1
        return _by_count(method, total, count, None, s)
    # ranx's CombSUM, or its weighted sum for w_bordafuse: 1.0 * x is x, the same sums
    weights = s["weights"] if method == "w_bordafuse" else [1.0] * len(views)
    return _weighted_sum(len(space.cand_query), parts, weights)


def _int_power(base: float, exponent: np.ndarray) -> np.ndarray:
    """``base ** exponent`` for integer exponents by repeated squaring, as numba computes a
    float to an integer power (ranx's RBC), not through ``pow``."""
    result = np.ones(len(exponent))
    e = exponent.astype(np.int64, copy=True)
    square = base
    while e.any():
        odd = (e & 1).astype(bool)
        result[odd] *= square
        e >>= 1
        square *= square
    return result


# --------------------------------------------------------------------------- learned methods


def _train(method: str, s: dict, qrels, train_runs, names: list[str] | int, fused) -> list:
    """Each run's learned table, from the judgments and the training runs (default: the runs);
    ``names``: the runs' names (dict of runs), or their number."""
    from .io import read_qrels  # late: the unsupervised methods read no judgments

    judged = read_qrels(qrels)
    space, views = fused if train_runs is None else _views(_train_frames(train_runs, names), s["norm"])
    queries = judged.query_id.cat.categories[np.unique(np.asarray(judged.query_id.cat.codes))]
    if not len(queries):
        raise ValueError("qrels hold no judgments to learn from")
    codes = space.categories.get_indexer(queries)
    missing = [str(q) for q, c in zip(queries, codes) if c < 0]
    if missing:
        raise ValueError(f"qrels judge queries the training runs lack: {missing[:5]} "
                         f"({len(missing)} in all); pass the judgments of the training queries only")
    relevant, n_relevant = _relevant(space, judged)
    return _tables(method, s, views, relevant, codes, n_relevant[codes])


def _train_frames(train_runs, names: list[str] | int) -> list[pd.DataFrame]:
    """The training runs as frames, in the order of the runs they train (by name if both
    are dicts)."""
    frames, train_names, _ = _read_runs(train_runs)
    count = names if isinstance(names, int) else len(names)
    if len(frames) != count:
        raise ValueError(f"train_runs must hold one run per run to fuse ({count}), got {len(frames)}")
    if isinstance(train_runs, Mapping) and not isinstance(names, int):
        if set(train_names) != set(names):
            raise ValueError(f"train_runs must name the runs to fuse: {sorted(train_names)} against {sorted(names)}")
        frames = [frames[train_names.index(name)] for name in names]
    return frames


def _relevant(space: _Space, judged: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Whether each candidate is judged relevant (label >= 1), matched on (query, document)
    through one dictionary of both sides' ids; and each query's number of relevant documents."""
    qcode = space.categories.get_indexer(judged.query_id.cat.categories)[np.asarray(judged.query_id.cat.codes)]
    keep = (qcode >= 0) & (judged.relevance.to_numpy() >= 1)
    n_relevant = np.bincount(qcode[keep], minlength=len(space.categories))
    cand_ids = space.doc_ids.combine_chunks() if isinstance(space.doc_ids, pa.ChunkedArray) else space.doc_ids
    judged_ids = arrow_ids(judged.doc_id).cast(pa.large_string())
    judged_ids = judged_ids.combine_chunks() if isinstance(judged_ids, pa.ChunkedArray) else judged_ids
    both = pa.concat_arrays([cand_ids.cast(pa.large_string()), judged_ids.filter(pa.array(keep))])
    encoded = pc.dictionary_encode(both)
    codes, n = np.asarray(encoded.indices, dtype=np.int64), len(space.cand_query)
    width = max(len(encoded.dictionary), 1)
    wanted = np.sort(qcode[keep] * width + codes[n:])
    if not len(wanted):
        return np.zeros(n, dtype=bool), n_relevant
    key = space.cand_query * width + codes[:n]
    at = np.minimum(np.searchsorted(wanted, key), len(wanted) - 1)
    return wanted[at] == key, n_relevant


def _hits(v: _View, relevant: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A run's hit lists on the training queries: (n_train, depth) of 0.0 / 1.0, and lengths."""
    row = np.full(len(v.length), -1)
    row[codes] = np.arange(len(codes))
    length = v.length[codes]
    hits = np.zeros((len(codes), int(length.max()) if len(codes) else 0))
    keep = row[v.query] >= 0
    hits[row[v.query[keep]], v.rank[keep]] = relevant[v.cand[keep]]
    return hits, length


def _segment_sums(hits: np.ndarray, length: np.ndarray, segment: np.ndarray, n: int) -> tuple:
    """Per (query, segment): relevant documents and documents, over positions below the
    query's length (``segment``: each position's segment, per query or shared; -1 skips)."""
    position = np.arange(hits.shape[1])
    segment = np.broadcast_to(segment, hits.shape)
    valid = (position < length[:, None]) & (segment >= 0)
    key = (np.arange(len(length))[:, None] * n + segment)[valid]
    found = np.bincount(key, weights=hits[valid], minlength=len(length) * n).reshape(-1, n)
    return found, np.bincount(key, minlength=len(length) * n).reshape(-1, n)


def _tables(method: str, s: dict, views: list[_View], relevant, codes, n_relevant) -> list:
    """Per run, what the method learns from its hit lists (sums over queries in query order)."""
    tables = []
    n_train = len(codes)
    for v in views:
        hits, length = _hits(v, relevant, codes)
        position = np.arange(hits.shape[1])
        if method == "probfuse":
            n = s["n_segments"]
            size = np.maximum(-(-length // n), 1)
            found, count = _segment_sums(hits, length, position[None, :] // size[:, None], n)
            share = np.divide(found, count, out=np.zeros_like(found), where=count > 0)
            tables.append(rank_sum(np.ascontiguousarray(share.T)) / n_train)
        elif method in ("segfuse", "bayesfuse"):
            ends = _SEGFUSE_ENDS if method == "segfuse" else _BAYES_ENDS
            segment = np.searchsorted(ends, position, side="right") - 1
            segment[position >= ends[-1]] = -1
            found, _ = _segment_sums(hits, length, segment, len(ends) - 1)
            share = found / np.diff(ends)
            if method == "segfuse":
                tables.append(rank_sum(np.ascontiguousarray(share.T)) / n_train)
            else:
                tables.append(_log_odds(rank_sum(np.ascontiguousarray((share / n_train).T)), ends))
        elif method in ("posfuse", "slidefuse"):
            holding = (position[None, :] < length[:, None]).sum(axis=0)
            tables.append(hits.sum(axis=0) / holding)
        else:  # mapfuse: trec_eval's AP per query, then the mean
            precision = np.where(hits > 0, np.cumsum(hits, axis=1) / (position + 1), 0.0)
            ap = np.divide(rank_sum(precision), n_relevant, out=np.zeros(n_train), where=n_relevant > 0)
            tables.append(float(np.mean(ap)))  # NumPy's pairwise sum, as ranx's evaluate
    return tables


def _log_odds(precision: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """BayesFuse's log odds per position (one per segment, by Python's math as ranx's numba),
    and a last entry for a position past the table: the odds of a document the run lacks."""
    odds = []
    for p in precision.tolist():
        p = p if p != 0 else p + 0.001
        q = 1 - p if 1 - p != 0 else 0.001
        odds.append(math.log(p / q))
    return np.array([*np.repeat(odds, np.diff(ends)), _MIN_ODDS])


def _combine_learned(space: _Space, views: list[_View], s: dict) -> np.ndarray:
    """Each run's learned value at each document's position, summed over the runs."""
    method, n = s["method"], len(space.cand_query)
    if method == "bayesfuse":  # every run counts, a missing document with the least odds
        total = np.zeros(n)
        for v, odds in zip(views, s["tables"]):
            full = np.full(n, _MIN_ODDS)
            full[v.cand] = odds[np.minimum(v.rank, len(odds) - 1)]
            total += full
        return total
    parts = [(v.cand, _learned_value(method, s, v, table)) for v, table in zip(views, s["tables"])]
    return _weighted_sum(n, parts, [1.0] * len(views))


def _learned_value(method: str, s: dict, v: _View, table) -> np.ndarray:
    """One run's value per row (in rank order) from its learned table."""
    if method == "mapfuse":
        return table / (v.rank + 1)
    if method == "probfuse":
        size = -(-v.length // s["n_segments"])
        segment = v.rank // size[v.query]
        return table[segment] / (segment + 1)
    extended = np.append(table, 0.0)  # past the table: 0
    if method == "segfuse":
        segment = np.minimum(np.searchsorted(_SEGFUSE_ENDS, v.rank, side="right") - 1, len(table))
        return extended[segment] * (v.value + 1)
    if method == "posfuse":
        return extended[np.minimum(v.rank, len(table))]
    return _slide(table, v.rank, v.length[v.query] - 1, s["window"])


def _slide(probs: np.ndarray, rank: np.ndarray, last: np.ndarray, w: int) -> np.ndarray:
    """SlideFuse: the mean of ``probs`` over ``max(i - w, 0) .. min(i + w, last)``, added left
    to right as ranx's ``sum``; each distinct window summed once."""
    start, stop = np.maximum(rank - w, 0), np.minimum(rank + w, last)
    windows, which = np.unique(start * (int(last.max(initial=0)) + 1) + stop, return_inverse=True)
    low, high = np.divmod(windows, int(last.max(initial=0)) + 1)
    total = np.zeros(len(windows))
    for offset in range(2 * w + 1):
        at = low + offset
        inside = (at <= high) & (at < len(probs))
        if not inside.any():
            break
        total[inside] += probs[at[inside]]
    return total[which] / (stop - start + 1)


# --------------------------------------------------------------------------- Condorcet

_PAIRS_PER_BLOCK = 1 << 22   # pairs of candidates compared at once (a few arrays of 32 MB)


def _condorcet(space: _Space, views: list[_View], weights) -> np.ndarray:
    """Copeland's order of the pairwise majorities, then the Borda count of votes, then the
    document id descending; the score ``n_q - position``. Every pair of candidates of a query
    is compared: queries of similar size together, as (queries, n, n) matrices of votes
    (array operations; a loop over blocks of queries, never over queries one by one)."""
    n = len(space.cand_query)
    absent = np.iinfo(np.int64).max
    positions = []
    for v in views:
        position = np.full(n, absent)
        position[v.cand] = v.rank
        positions.append(position)
    first = np.cumsum(space.per_query) - space.per_query
    copeland, borda = np.zeros(n), np.zeros(n)
    by_size = np.argsort(space.per_query, kind="stable")
    lo = 0
    while lo < len(by_size):
        width = int(space.per_query[by_size[lo]])
        hi = lo + 1
        while hi < len(by_size) and (hi - lo + 1) * int(space.per_query[by_size[hi]]) ** 2 <= _PAIRS_PER_BLOCK:
            hi += 1
        queries = by_size[lo:hi]
        width = int(space.per_query[queries].max()) if len(queries) else width
        _condorcet_block(queries, width, first, space.per_query, positions, weights, copeland, borda)
        lo = hi
    doc = ~space.doc_order if space.doc_order.dtype == np.uint64 else -space.doc_order
    order = np.lexsort((doc, -borda, -copeland, space.cand_query))
    scores = np.empty(n)
    scores[order] = (space.per_query[space.cand_query] - (np.arange(n) - first[space.cand_query])).astype(float)
    return scores


def _condorcet_block(queries, width: int, first, per_query, positions, weights, copeland, borda) -> None:
    """Copeland's points and the Borda count of votes of every candidate of ``queries``:
    ``votes[q, x, y]`` the (weighted) runs ranking x above y, added over the runs in order."""
    column = np.arange(width)
    valid = column[None, :] < per_query[queries][:, None]
    cand = np.where(valid, first[queries][:, None] + column[None, :], 0)
    counted = all(w == 1 for w in weights) and len(weights) < 2 ** 15  # votes as counts: 2 bytes each
    votes, against = np.zeros((2, len(queries), width, width), dtype=np.int16 if counted else np.float64)
    for w, position in zip(weights, positions):
        at = np.where(valid, position[cand], np.iinfo(np.int64).max)
        for total, above in ((votes, at[:, :, None] < at[:, None, :]), (against, at[:, :, None] > at[:, None, :])):
            total += above if counted else w * above   # (no transpose: strided reads cost more)
    both = valid[:, :, None] & valid[:, None, :]
    points = (votes > against) & both
    ties = (votes == against) & both
    # a candidate ties itself: half a point each, taken off
    copeland[cand[valid]] = (points.sum(axis=2) + 0.5 * ties.sum(axis=2) - 0.5)[valid]
    votes *= both
    borda[cand[valid]] = votes.sum(axis=2, dtype=np.float64)[valid]

# --------------------------------------------------------------------------- output


def _output(space: _Space, scores: np.ndarray, as_dict: bool, name: str):
    """The fused run: by query, score descending, document id descending."""
    order = np.lexsort((~space.doc_order if space.doc_order.dtype == np.uint64 else -space.doc_order,
                        -scores, space.cand_query))
    query, score = space.cand_query[order], scores[order]
    doc_ids = space.doc_ids.take(pa.array(order))
    if as_dict:
        queries = space.categories.take(query).tolist()
        fused: dict = {q: {} for q in space.categories.tolist()}
        for q, d, x in zip(queries, doc_ids.to_pylist(), score.tolist()):
            fused[q][d] = x
        return fused
    codes = pd.Categorical.from_codes(query, categories=space.categories, validate=False)
    frame = build_frame(pd.Series(codes), doc_ids, score, "run")
    frame.attrs["name"] = name
    return frame


def trec_lines(run: pd.DataFrame, tag: str, *, block: int = 1 << 20):
    """A run frame as TREC run lines (``qid Q0 docno rank score tag``), a
    block of lines at a time (str, each line ending in a newline). Rows in rank order query
    by query (as :func:`fuse` returns them) keep their order; others are put by query code and
    score descending (equal scores in input order). The rank counts from 1
    within each query and the score prints in the shortest form that reads back the same.

    Examples
    --------
    >>> run = fuse([{"q1": {"a": 2.0, "b": 1.0}}, {"q1": {"b": 5.0}}], "sum", norm=None)
    >>> print("".join(trec_lines(run if not isinstance(run, dict) else read_run(run), "fused")), end="")
    q1 Q0 b 1 6 fused
    q1 Q0 a 2 2 fused
    """
    if any(c.isspace() for c in tag) or not tag:
        raise ValueError(f"tag must be one word (no spaces), got {tag!r}")
    codes = np.asarray(run.query_id.cat.codes, dtype=np.int64)
    order = _rank_order(codes, run.score.to_numpy(dtype=np.float64))
    if not isinstance(order, slice):  # a run not in rank order: by query, score descending
        run, codes = run.iloc[order], codes[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    lengths = np.diff(np.r_[starts, len(codes)])
    rank = np.arange(len(codes)) - np.repeat(starts, lengths)
    queries = pa.array(run.query_id.cat.categories.tolist(), pa.large_string())
    docs = arrow_ids(run.doc_id).cast(pa.large_string())
    scores = pa.array(run.score.to_numpy(dtype=np.float64))
    text = pa.large_string()
    for start in range(0, len(run), block):
        stop = min(start + block, len(run))
        lines = pc.binary_join_element_wise(
            queries.take(pa.array(codes[start:stop])), pa.scalar("Q0", text),
            docs[start:stop].combine_chunks(), pc.cast(pa.array(rank[start:stop] + 1), text),
            pc.cast(scores[start:stop], text),  # the shortest digits that read back the same
            pa.scalar(tag + "\n", text), pa.scalar(" ", text))
        offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[lines.offset:lines.offset + len(lines) + 1]
        yield lines.buffers()[2].to_pybytes()[offsets[0]:offsets[-1]].decode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------- optimising

#: Each tunable parameter's grid, as ranx's ``optimize_fusion`` searches it by default.
GRIDS = {
    "rrf": ("k", list(range(10, 101, 10))),
    "rbc": ("phi", [round(0.01 * i, 2) for i in range(1, 100)]),   # ranx's 1.0 gives all zeros
    "gmnz": ("gamma", [round(0.01 * i, 2) for i in range(1, 101)]),
    "logn_isr": ("sigma", [round(0.01 * i, 2) for i in range(1, 101)]),
    "probfuse": ("n_segments", list(range(1, 101))),
    "slidefuse": ("window", list(range(1, 101))),
}


@dataclass
class FusionResult:
    """What :func:`optimize_fusion` found: the best setting and how it fares.

    ``params`` goes straight back into :func:`fuse` (``fuse(runs, method, norm, **params)``);
    ``trials`` holds one row per setting tried, with its mean metric on the training and
    the held-out queries.
    """

    method: str
    norm: str | None
    metric: str
    params: dict
    train_score: float
    test_score: float
    train_queries: list
    test_queries: list
    trials: pd.DataFrame


def optimize_fusion(qrels, runs, method: str = "wsum", norm: str | None = "min-max", metric: str = "nDCG@10", *,
                    step: float = 0.1, grid: Sequence | None = None, train_queries: Sequence | None = None,
                    test_size: float = 0.3, seed: int = 0, **fixed) -> FusionResult:
    """Choose a fusion method's weights or parameter on training queries; report held-out ones.

    A grid search as ranx's ``optimize_fusion``: for weighted methods every vector of
    weights in multiples of ``step`` summing to 1 (counted in integers, so no vector is lost
    to rounding); for ``rrf`` k in 10, 20, ..., 100; for ``rbc`` phi, ``gmnz`` gamma and
    ``logn_isr`` sigma in 0.01, 0.02, ... (phi below 1); for ``probfuse`` n_segments and
    ``slidefuse`` window in 1, 2, ..., 100. The setting with the highest mean ``metric`` over
    the training queries wins; among equals the last tried, as in ranx.

    The learned methods learn from the judgments of the training queries only (those
    ``qrels`` judges; the held-out ones stay unseen); ``segfuse``, ``posfuse``, ``mapfuse``
    and ``bayesfuse`` have nothing to tune, and are reported as one trial. To fuse with the
    result, pass the training queries' judgments:
    ``fuse(runs, method, norm, qrels=<judgments of best.train_queries>, **best.params)``.

    Parameters
    ----------
    qrels : judgments, anything :func:`rankkit.read_qrels` reads
    runs : list or dict of runs, as :func:`fuse` takes them
    method, norm : str
        As :func:`fuse` (default ``"wsum"`` and ``"min-max"``, ranx's).
    metric : str, default="nDCG@10"
        A metric spec, measured by :func:`rankkit.evaluate`.
    step : float, default=0.1
        Spacing of the weights' grid.
    grid : sequence, optional
        Settings to try instead of the default grid: weight vectors, or parameter values.
    train_queries : sequence of query ids, optional
        The training queries; the other queries of the runs are held out.
    test_size : float in [0, 1), default=0.3
        Without ``train_queries``: the share of queries held out, drawn with ``seed``.
    seed : int, default=0
    **fixed
        Other parameters of :func:`fuse`, kept fixed (``k=60`` while weights are tuned;
        ``n_segments``, ``window``).

    Returns
    -------
    FusionResult

    Examples
    --------
    >>> qrels = {"q1": {"b": 1}, "q2": {"x": 1}, "q3": {"c": 1}}
    >>> lexical = {"q1": {"a": 3.0, "b": 2.0}, "q2": {"x": 5.0, "y": 1.0}, "q3": {"c": 2.0, "d": 1.0}}
    >>> dense = {"q1": {"b": 0.9, "a": 0.1}, "q2": {"y": 0.8, "x": 0.2}, "q3": {"d": 0.7, "c": 0.6}}
    >>> best = optimize_fusion(qrels, [lexical, dense], "wsum", metric="RR", train_queries=["q1", "q2"])
    >>> best.params, best.train_score, best.test_score
    ({'weights': [1.0, 0.0]}, 0.75, 1.0)
    """
    check_option(method, METHODS, "method")
    unknown = set(fixed) - {"k", "phi", "gamma", "sigma", "n_segments", "window"}
    if unknown:
        raise ValueError(f"optimize_fusion takes k, phi, gamma, sigma, n_segments, window as fixed parameters, "
                         f"got {sorted(unknown)}")
    trials = _trials(method, len(runs), step, grid)
    frames, labels, _ = _read_runs(runs)
    settings = _check(method, norm, None if method not in WEIGHTED else [1.0] * len(labels), labels,
                      **{"k": 60, "phi": 0.5, "gamma": 1.0, "sigma": 0.01, "n_segments": 1, "window": 1, **fixed},
                      qrels=qrels if method in SUPERVISED else None)
    space, views = _views(frames, settings["norm"])
    queries = space.categories.tolist()
    train, test = _split(queries, train_queries, test_size, seed)
    learn = _learner(method, qrels, space, views, train)
    rows = []
    for params in trials:
        scores = _combine(space, views, {**settings, **params, "tables": learn({**settings, **params})})
        table = _evaluate(qrels, _output(space, scores, False, method), metric)
        rows.append({**{k: v for k, v in params.items()}, "train": _mean(table, train), "test": _mean(table, test)})
    report = pd.DataFrame(rows)
    best = int(len(report) - 1 - np.argmax(report["train"].to_numpy()[::-1]))  # the last of the best
    params = {k: trials[best][k] for k in trials[best]}
    return FusionResult(method, settings["norm"], metric, params, float(report["train"][best]),
                        float(report["test"][best]), train, test, report)


def _learner(method: str, qrels, space: _Space, views: list[_View], train: list):
    """For a learned method, settings -> each run's table learned on the training queries'
    judgments (the relevance of every candidate matched once); otherwise settings -> None."""
    if method not in SUPERVISED:
        return lambda settings: None
    from .io import read_qrels

    judged = read_qrels(qrels)
    relevant, n_relevant = _relevant(space, judged)
    held = set(judged.query_id.cat.categories[np.unique(np.asarray(judged.query_id.cat.codes))])
    unjudged = [q for q in train if q not in held]
    if len(unjudged) == len(train):
        raise ValueError(f"method {method!r} learns from the judged training queries: there are none")
    if unjudged:
        warn_user(f"{len(unjudged)} training queries without judgments are not learned from, "
                  f"e.g. {unjudged[:3]}")
    codes = space.categories.get_indexer(pd.Index([q for q in train if q in held], dtype=object))
    return lambda settings: _tables(method, settings, views, relevant, codes, n_relevant[codes])


def _trials(method: str, n_runs: int, step: float, grid) -> list[dict]:
    """The settings to try, each a dict of :func:`fuse`'s keyword arguments."""
    if method in WEIGHTED:
        if grid is None:
            check_probability(step, "step")
            n = round(1 / step)
            if not math.isclose(n * step, 1.0):
                raise ValueError(f"step must divide 1 (0.1, 0.05, 0.25, ...), got {step!r}")
            digits = max(0, -math.floor(math.log10(step)) + 1)
            grid = [[round(i * step, digits) for i in combo] for combo in _compositions(n, n_runs)]
        return [{"weights": [float(w) for w in g]} for g in grid]
    if method in SUPERVISED and method not in GRIDS:
        return [{}]  # learned, nothing to tune
    if method not in GRIDS:
        raise ValueError(f"method {method!r} has nothing to tune; these do: {', '.join([*WEIGHTED, *GRIDS])}")
    name, values = GRIDS[method]
    return [{name: v} for v in (values if grid is None else grid)]


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every tuple of ``parts`` non-negative integers summing to ``total``, in ranx's order
    (lexicographic: the first run's weight grows slowest)."""
    if parts == 1:
        return [(total,)]
    return [(i, *rest) for i in range(total + 1) for rest in _compositions(total - i, parts - 1)]


def _split(queries: list, train_queries, test_size: float, seed: int) -> tuple[list, list]:
    """Training and held-out queries, each in the runs' order."""
    if train_queries is not None:
        chosen = {str(q) for q in train_queries}
        unknown = chosen - set(queries)
        if unknown:
            raise ValueError(f"train_queries holds queries the runs lack: {sorted(unknown)[:5]}")
        return [q for q in queries if q in chosen], [q for q in queries if q not in chosen]
    test_size = check_number(test_size, "test_size")
    if not 0 <= test_size < 1:
        raise ValueError(f"test_size must be in [0, 1), got {test_size!r}")
    held = np.random.default_rng(seed).permutation(len(queries))[: round(test_size * len(queries))]
    out = np.zeros(len(queries), dtype=bool)
    out[held] = True
    return [q for q, o in zip(queries, out) if not o], [q for q, o in zip(queries, out) if o]


def _evaluate(qrels, run: pd.DataFrame, metric: str) -> pd.Series:
    """Each query's value of ``metric`` (the run's queries, as trec_eval scores them)."""
    from .api import evaluate  # late: fusing needs no metric

    table = evaluate(qrels, run, [metric])
    return table[table.columns[-1]]


def _mean(values: pd.Series, queries: list) -> float:
    """The mean over ``queries`` (NaN when there are none)."""
    if not queries:
        return float("nan")
    picked = values.reindex(pd.Index(queries, dtype=object)).fillna(0.0).to_numpy(dtype=np.float64)
    return float(np.cumsum(picked)[-1] / len(picked))
