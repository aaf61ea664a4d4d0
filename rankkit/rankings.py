"""The data model: many ranked lists as dense, zero-padded arrays.

A :class:`Rankings` holds one row per query: the judged label at each rank, whether
that rank was judged, how many documents were retrieved, and every judged label of the
query sorted descending (the *ideal* ranking, which gives R and ideal DCG). Every metric
in rankkit is a function of a ``Rankings`` computed with array operations over all
queries at once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Mapping
from itertools import chain
from typing import Any, Union

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ._validation import check_finite, check_k, check_nonnegative, check_option, check_rel
from .io import _arrow_ids, _doc_keys, _keys_are_ids, _n_words, _query_codes, _string_keys, _take, read_qrels, read_run

FloatArray = np.ndarray


@dataclass(frozen=True, eq=False)
class Rankings:
    """Ranked lists of many queries, as zero-padded arrays.

    Attributes
    ----------
    labels : ndarray of float64, shape (n_queries, depth)
        The judged label of the document at each rank; 0 for unjudged documents,
        for documents judged below 0 ("pooled but not judged") and for padding.
    judged : ndarray of bool, shape (n_queries, depth)
        Whether the document at that rank was judged (label >= 0 in the qrels).
    lengths : ndarray of int64, shape (n_queries,)
        How many documents each query retrieved (the unpadded row length).
    ideal : ndarray of float64, shape (n_queries, max_judged)
        Every judged label of the query, retrieved or not, sorted descending and
        zero-padded: R = ``(ideal >= rel).sum(1)``, and ideal DCG comes from it.
    n_judged : ndarray of int64, shape (n_queries,)
        How many documents of each query are judged (the unpadded length of ``ideal``).
    query_ids : pandas.Index
        One id per row.
    ties : ndarray of int64, shape (n_queries, depth), or None
        Tie-group id of each rank, set only by ``ties="average"``: documents sharing an id
        are tied and sit at consecutive ranks; metrics that allow it report their
        expected value over all orders of each group (see :meth:`expected`).
    scalar : bool
        True when built from a single 1-D list: metrics then return a Python float.
    has_run, has_qrels : ndarray of bool, shape (n_queries,), or None
        Set by :func:`rank`: whether the query appears in the run / in the judgments
        (``evaluate`` uses them for its ``queries=`` policy). None for bare arrays.
    pooled : ndarray of bool, shape (n_queries, depth), or None
        Whether the document at that rank is in the qrels at all, judged or with a label
        below 0 ("pooled but not judged", trec_eval's -2, which infAP and relstring tell
        apart from documents outside the pool). None means the same as ``judged``.
    run_name : str or None
        The run's tag (trec_eval's ``runid``), set by :func:`rank`.

    Examples
    --------
    >>> r = as_rankings([[3, 2, 0], [0, 1]])
    >>> r.labels
    array([[3., 2., 0.],
           [0., 1., 0.]])
    >>> r.lengths, r.n_relevant()
    (array([3, 2]), array([2, 1]))
    """

    labels: np.ndarray
    judged: np.ndarray
    lengths: np.ndarray
    ideal: np.ndarray
    n_judged: np.ndarray
    query_ids: pd.Index
    ties: np.ndarray | None = None
    scalar: bool = False
    has_run: np.ndarray | None = None
    has_qrels: np.ndarray | None = None
    pooled: np.ndarray | None = None
    run_name: str | None = None

    def __post_init__(self) -> None:
        n, depth = self.labels.shape
        if self.judged.shape != (n, depth):
            raise ValueError(f"judged must have shape {(n, depth)}, got {self.judged.shape}")
        if self.lengths.shape != (n,) or self.n_judged.shape != (n,):
            raise ValueError("lengths and n_judged must have one value per query")
        if self.ideal.ndim != 2 or self.ideal.shape[0] != n:
            raise ValueError(f"ideal must have {n} rows, got shape {self.ideal.shape}")
        if len(self.query_ids) != n:
            raise ValueError(f"query_ids must have {n} entries, got {len(self.query_ids)}")
        if self.ties is not None and self.ties.shape != (n, depth):
            raise ValueError(f"ties must have shape {(n, depth)}, got {self.ties.shape}")
        for name in ("has_run", "has_qrels"):
            flags = getattr(self, name)
            if flags is not None and flags.shape != (n,):
                raise ValueError(f"{name} must have shape {(n,)}, got {flags.shape}")
        if self.pooled is not None and self.pooled.shape != (n, depth):
            raise ValueError(f"pooled must have shape {(n, depth)}, got {self.pooled.shape}")

    @property
    def n_queries(self) -> int:
        return self.labels.shape[0]

    @property
    def depth(self) -> int:
        return self.labels.shape[1]

    def __len__(self) -> int:
        return self.n_queries

    def __repr__(self) -> str:
        return f"Rankings(n_queries={self.n_queries}, depth={self.depth}, ties={'average' if self.ties is not None else None})"

    @property
    def in_pool(self) -> np.ndarray:
        """Whether the document at each rank is in the qrels (judged, or labelled below 0)."""
        return self.judged if self.pooled is None else self.pooled

    def relevant(self, rel: float = 1) -> np.ndarray:
        """Boolean matrix: the document at each rank has label >= ``rel``."""
        return self.labels >= rel

    def n_relevant(self, rel: float = 1) -> np.ndarray:
        """R per query: how many judged documents have label >= ``rel``."""
        return (self.ideal >= rel).sum(axis=1)

    def expected(self, values: np.ndarray) -> np.ndarray:
        """Replace each per-rank value by its mean over the rank's tie group.

        For a metric that is a sum of per-rank values times per-rank weights (P, R, CG, DCG,
        success via the count of relevant documents), this gives its exact expected value over
        all orders of every tied group. Without tie groups, ``values`` is returned unchanged.
        """
        if self.ties is None:
            return values
        ids = self.ties.ravel()
        sums = np.bincount(ids, weights=values.ravel())
        counts = np.bincount(ids)
        means = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
        return means[ids].reshape(values.shape)

    def judged_only(self) -> "Rankings":
        """The same queries with only their judged documents, in their order (trec_eval
        ``-J``; ir_measures ``judged_only=True``): unjudged documents leave the ranking, and
        the documents below them move up.

        Examples
        --------
        >>> r = Rankings(np.array([[1., 0, 2]]), np.array([[True, False, True]]), np.array([3]),
        ...              np.array([[2., 1]]), np.array([2]), pd.Index(["q"]))
        >>> r.judged_only().labels, r.judged_only().lengths
        (array([[1., 2., 0.]]), array([2]))
        """
        order = np.argsort(~self.judged, axis=1, kind="stable")  # judged first, in rank order
        lengths = self.judged.sum(axis=1).astype(np.int64)
        inside = np.arange(self.depth) < lengths[:, None]

        def moved(matrix):
            return None if matrix is None else np.take_along_axis(matrix, order, axis=1)

        return replace(self, labels=np.where(inside, moved(self.labels), 0.0), judged=inside, lengths=lengths,
                       ties=moved(self.ties), pooled=None if self.pooled is None else moved(self.pooled) & inside)

    def result(self, values: np.ndarray) -> Union[float, np.ndarray]:
        """A Python float for a single 1-D list, else the per-query array."""
        values = np.asarray(values, dtype=np.float64)
        return float(values[0]) if self.scalar else values


RankingsLike = Union[Rankings, np.ndarray, "list[Any]"]


def as_rankings(x: Any) -> Rankings:
    """Turn labels in rank order into a :class:`Rankings` (a ``Rankings`` passes through).

    Parameters
    ----------
    x : Rankings, 1-D array-like, 2-D array, or list of lists
        A 1-D list is one ranking (metrics then return a float); a 2-D array holds one
        ranking per row, padded with 0; a list of lists may be ragged. A bare array is
        taken to hold every judged document of its query: its labels, sorted, are the
        ideal ranking, and R counts them. Labels must be finite and non-negative.

    Returns
    -------
    Rankings

    Examples
    --------
    >>> r = as_rankings([1, 0, 2])
    >>> r.ideal, r.scalar
    (array([[2., 1., 0.]]), True)
    >>> as_rankings([[1], [0, 0, 1]]).lengths
    array([1, 3])
    """
    if isinstance(x, Rankings):
        return x
    scalar = False
    if isinstance(x, (list, tuple)) and any(
        isinstance(row, (list, tuple, np.ndarray, pd.Series)) for row in x
    ):
        rows = [np.asarray(row, dtype=np.float64).ravel() for row in x]
        lengths = np.fromiter((len(row) for row in rows), dtype=np.int64, count=len(rows))
        depth = int(lengths.max()) if len(rows) else 0
        labels = np.zeros((len(rows), depth))
        mask = np.arange(depth) < lengths[:, None]
        labels[mask] = np.fromiter(chain.from_iterable(rows), dtype=np.float64, count=int(lengths.sum()))
    else:
        try:
            labels = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"labels must be numbers in rank order, got {type(x).__name__}: {exc}") from None
        if labels.ndim == 1:
            labels, scalar = labels[None, :], True
        elif labels.ndim != 2:
            raise ValueError(f"labels must be 1-D or 2-D, got {labels.ndim}-D")
        lengths = np.full(labels.shape[0], labels.shape[1], dtype=np.int64)
        mask = np.ones(labels.shape, dtype=bool)
    check_finite(labels, "labels")
    check_nonnegative(labels, "labels")
    labels = np.ascontiguousarray(labels)
    ideal = -np.sort(-labels, axis=1)
    return Rankings(
        labels=labels,
        judged=mask,
        lengths=lengths,
        ideal=ideal,
        n_judged=lengths.copy(),
        query_ids=pd.RangeIndex(labels.shape[0], name="query_id"),
        scalar=scalar,
    )


TIES = ("docno", "optimistic", "pessimistic", "average")


def _query_index(query_ids: list[str]) -> pd.Index:
    """The query ids as an Index of ``str``; of Python objects when some id holds bytes that
    are not UTF-8 (escaped, see :mod:`rankkit.io`), which pandas 3's ``str`` cannot hold."""
    try:
        return pd.Index(query_ids, dtype=str, name="query_id")
    except UnicodeEncodeError:
        return pd.Index(query_ids, dtype=object, name="query_id")


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
    ties = check_option(ties, TIES, "ties")
    depth = check_k(depth, "depth")
    check_rel(rel)
    if not isinstance(judged_only, (bool, np.bool_)):
        raise ValueError(f"judged_only must be True or False, got {judged_only!r}")
    qrels = read_qrels(qrels, columns=columns)
    run = read_run(run, columns=columns)
    run_name = run.attrs.get("name")
    # Arrays of ~n_run elements are freed (del) as soon as they are used: at 10 million
    # lines each one is 40-80 MB.
    run_d, qrels_d = _arrow_ids(run.doc_id), _arrow_ids(qrels.doc_id)
    (run_doc_key, run_longest), (qrels_doc_key, qrels_longest) = _doc_keys(run), _doc_keys(qrels)
    scores = run.score.to_numpy(dtype=np.float64)
    grades = qrels.relevance.to_numpy(dtype=np.float64)

    # Queries: the union of both tables, sorted as strings (trec_eval's order), as codes.
    run_codes, run_queries = _query_codes(run.query_id)
    qrels_codes, qrels_queries = _query_codes(qrels.query_id)
    n_run = len(run)
    del run  # a frame read here (from a path) frees its query and score columns below
    query_ids = sorted(set(run_queries) | set(qrels_queries), key=lambda q: q.encode("utf-8", "surrogateescape"))
    n = len(query_ids)
    row_of = {q: i for i, q in enumerate(query_ids)}
    rq = np.array([row_of[q] for q in run_queries], dtype=np.int32)[run_codes]
    jq = np.array([row_of[q] for q in qrels_queries], dtype=np.int32)[qrels_codes]

    # Order the run: query (trec_eval order), score descending; stable sorts keep it cheap
    # when the file is already sorted by score within each query, as runs usually are.
    within = rq[1:] == rq[:-1]
    starts = np.flatnonzero(~within) + 1
    contiguous = len(starts) + 1 == len(run_queries)  # one block of rows per query
    # Sorted within each block? (Boolean masks: no 80 MB copies of the scores.)
    if contiguous and np.logical_or(scores[1:] <= scores[:-1], ~within).all():
        # Ordering keeps each block whole and in its order, so the tie groups can be found
        # first, and the scores freed before the ordered arrays are built (peak memory).
        start = _group_starts(scores, within)
        del scores
        order, q_sorted = _order_blocks(np.concatenate([[0], starts]), rq)
        start = start[order]
    else:
        small = rq.astype(np.uint16) if n <= 1 << 16 else rq  # 16-bit keys sort by radix
        by_score = np.argsort(-scores, kind="stable")
        order = by_score[np.argsort(small[by_score], kind="stable")]
        del by_score, small
        if len(order) < 2**31:
            order = order.astype(np.int32)  # half the memory of argsort's int64, for the rest of rank
        q_sorted = rq[order]
        start = _group_starts(scores[order], q_sorted[1:] == q_sorted[:-1])
        del scores
    del within, starts
    counts = np.bincount(rq, minlength=n)
    del rq

    # Labels: look each (query, document) of the run up in the judgments. Only the matches
    # are kept (row in the ordered run, row in the judgments): most retrieved documents are
    # unjudged, and an unjudged rank is 0 / not judged, the zeros the matrices start with.
    if _n_words(run_longest) != _n_words(qrels_longest):  # keyed apart with different functions
        run_doc_key, qrels_doc_key = _string_keys(run_d, qrels_d)
    rows, matched = _lookup(q_sorted, run_doc_key, order, jq, qrels_doc_key, n, hashed=True)
    # The pair keys keep only part of the document key: confirm every match, on the full
    # keys when they are the ids themselves, else on the strings.
    keys_are_ids = _keys_are_ids(max(run_longest, qrels_longest), run_d, qrels_d)
    if keys_are_ids:
        confirmed = np.array_equal(run_doc_key[order[rows]], qrels_doc_key[matched])
    else:
        confirmed = _same_strings(run_d, order[rows], qrels_d, matched)
    del qrels_doc_key
    if not confirmed:
        # Two distinct ids share a key (astronomically rare): redo the join on exact codes.
        docs = pa.chunked_array(
            [c.cast(pa.large_string()) for c in run_d.chunks + qrels_d.chunks], type=pa.large_string()
        )
        codes = _codes(pc.dictionary_encode(docs.combine_chunks()).indices).astype(np.uint64)
        rows, matched = _lookup(q_sorted, codes[: n_run], order, jq, codes[n_run:], n, hashed=False)
        del codes
    pa.default_memory_pool().release_unused()  # Arrow's temporaries: lower the peak that follows
    grade = grades[matched]  # below 0: "pooled but not judged", i.e. unjudged, label 0
    del matched

    if len(order) and not start.all():
        # A row is tied if it, or the row after it, continues a group of equal scores.
        tied = ~start
        tied[:-1] |= ~start[1:]
        tied = np.flatnonzero(tied)
        group = np.cumsum(start, dtype=np.int32 if len(start) < 2**31 else np.int64)[tied]
        # Label of each tied row for the optimistic / pessimistic orders: the label the
        # matrix gets (0 for unjudged and "pooled but not judged" rows).
        at = np.minimum(np.searchsorted(tied, rows), len(tied) - 1)
        hit_tied = tied[at] == rows  # which matches are tied rows, and at[...] says which one
        label = np.zeros(len(tied))
        label[at[hit_tied]] = np.maximum(grade[hit_tied], 0.0)
        keys = [("g", "ascending")]
        if ties == "optimistic":
            keys.append(("l", "descending"))
        elif ties == "pessimistic":
            keys.append(("l", "ascending"))
        keys.append(("d", "descending"))
        if keys_are_ids:  # the key read big-endian orders like the bytes (strcmp)
            docs = run_doc_key[order[tied]].byteswap()
        else:
            docs = _take(run_d, order[tied])
        table = pa.table({"g": group, "l": label, "d": docs})
        perm = pc.sort_indices(table, sort_keys=keys).to_numpy()
        del table, docs, label, group
        # The i-th tied row of the new order is tied[perm[i]]: it moves to position tied[i].
        moved_to = np.empty_like(tied)
        moved_to[perm] = tied
        rows[hit_tied] = moved_to[at[hit_tied]]
        del perm, tied, moved_to, at, hit_tied
    del order, run_doc_key

    in_run = counts > 0
    if judged_only:  # trec_eval -J: the judged documents alone, in their order (after -M)
        q_sorted, counts, rows, grade, start = _judged_only(q_sorted, counts, rows, grade, start, depth)
        depth = None

    # Padded matrices: row = query code, column = position within the query. Only the
    # judged ranks are written; the rest keep the zeros (label 0, not judged).
    width = int(counts.max()) if counts.size else 0
    if depth is not None:
        width = min(width, depth)
    offsets = np.cumsum(counts) - counts  # first row of each query in the ordered run
    q_hit = q_sorted[rows]
    column = rows - offsets[q_hit]
    keep = column < width  # depth
    flat = q_hit[keep].astype(np.int64) * width + column[keep]
    grade = grade[keep]
    label_matrix = np.zeros((n, width))
    label_matrix.ravel()[flat] = np.maximum(grade, 0.0)
    judged_matrix = np.zeros((n, width), dtype=bool)
    judged_matrix.ravel()[flat] = grade >= 0
    pooled_matrix = None  # in the qrels with a label below 0: pooled, not judged
    if (grade < 0).any():
        pooled_matrix = np.zeros((n, width), dtype=bool)
        pooled_matrix.ravel()[flat] = True
    del rows, q_hit, column, keep, flat, grade
    tie_ids = None
    if ties == "average":
        # Each rank's id: the flat index of the first rank of its tie group (own index if untied).
        index = np.int32 if n * width + len(q_sorted) < 2**31 else np.int64  # halves these temporaries
        pos = np.arange(len(q_sorted), dtype=index)
        pos -= offsets.astype(index)[q_sorted]  # position within the query
        firsts = np.flatnonzero(start)
        group_first = (q_sorted[firsts].astype(np.int64) * width + pos[firsts])[np.cumsum(start) - 1]
        keep = pos < width
        tie_ids = np.arange(n * width, dtype=np.int64)
        tie_ids[q_sorted[keep].astype(np.int64) * width + pos[keep]] = group_first[keep]
        tie_ids = tie_ids.reshape(n, width)
        del pos, firsts, group_first, keep
    del q_sorted, start

    # Ideal rankings: every judged label (>= 0) of each query, descending.
    ok = grades >= 0
    jq_ok, grades_ok = jq[ok], grades[ok]
    n_judged = np.bincount(jq_ok, minlength=n)
    m = int(n_judged.max()) if n_judged.size else 0
    by_grade = np.lexsort((-grades_ok, jq_ok))
    jq_sorted = jq_ok[by_grade]
    ideal = np.zeros((n, m))
    at = jq_sorted * np.int64(m) + np.arange(len(by_grade)) - (np.cumsum(n_judged) - n_judged)[jq_sorted]
    ideal.ravel()[at] = grades_ok[by_grade]
    pa.default_memory_pool().release_unused()

    return Rankings(
        labels=label_matrix,
        judged=judged_matrix,
        lengths=np.minimum(counts, width).astype(np.int64),
        ideal=ideal,
        n_judged=n_judged.astype(np.int64),
        query_ids=_query_index(query_ids),
        ties=tie_ids,
        has_run=in_run,
        has_qrels=np.bincount(jq, minlength=n) > 0,
        pooled=pooled_matrix,
        run_name=run_name,
    )


def _judged_only(q_sorted, counts, rows, grade, start, depth):
    """The ordered run reduced to its judged documents (trec_eval ``-J``), as
    ``(q_sorted, counts, rows, grade, start)`` of that shorter run.

    ``rows`` (positions of the judged-or-pooled documents in the ordered run) and
    ``grade`` (their labels) come from the lookup; ``depth`` (trec_eval ``-M``) cuts
    each query first. Documents keep their order; a tie group is what remains of one.
    """
    by_rank = np.argsort(rows, kind="stable")  # the tie orders moved some rows
    rows, grade = rows[by_rank], grade[by_rank]
    offsets = np.cumsum(counts) - counts
    column = rows - offsets[q_sorted[rows]]
    survive = grade >= 0
    if depth is not None:
        survive &= column < depth
    rows, grade = rows[survive], grade[survive]
    q = q_sorted[rows]
    group = np.cumsum(start)[rows]
    new_start = np.ones(len(rows), dtype=bool)
    np.not_equal(group[1:], group[:-1], out=new_start[1:])
    return q, np.bincount(q, minlength=len(counts)), np.arange(len(rows)), grade, new_start


def _group_starts(scores: np.ndarray, same_query: np.ndarray) -> np.ndarray:
    """Where tie groups begin: True at each row whose score or query (``same_query[i]``:
    rows i and i + 1 share a query) differs from the previous row's."""
    start = np.ones(len(scores), dtype=bool)
    np.not_equal(scores[1:], scores[:-1], out=start[1:])
    start[1:] |= ~same_query
    return start


def _order_blocks(starts: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``order`` and ``codes[order]`` of a run whose rows come in one block per query, each
    already in rank order: the blocks, sorted by query code, laid end to end.

    Same result as a stable argsort of ``codes`` (a block keeps its row order), built with
    a repeat over the few blocks instead of sorting every row.
    """
    index = np.int32 if len(codes) < 2**31 else np.int64
    starts = starts.astype(index)
    sizes = np.diff(np.append(starts, index(len(codes))))
    by_query = np.argsort(codes[starts], kind="stable")
    starts, sizes = starts[by_query], sizes[by_query]
    # Row i of the result lies in block b, which now begins at first[b]: it is row
    # starts[b] + (i - first[b]) of the run.
    first = np.cumsum(sizes, dtype=index) - sizes
    order = np.arange(len(codes), dtype=index)
    order += np.repeat(starts - first, sizes)
    return order, np.repeat(codes[starts], sizes)


def _codes(indices) -> np.ndarray:
    """Arrow int32 indices (chunked or not, no nulls) as one int32 NumPy array."""
    if isinstance(indices, pa.ChunkedArray):
        chunks = [c.to_numpy(zero_copy_only=False) for c in indices.chunks]
        return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int32)
    return indices.to_numpy(zero_copy_only=False)


_GOLD = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xC2B2AE3D27D4EB4F)


def _lookup(q_sorted, run_doc_key, order, jq, qrels_doc_key, n, *, hashed, block=1 << 17):
    """The judged documents of the run: ``(rows, matched)``, ascending ``rows`` (positions in
    ``order``) and, for each, the row of its judgment.

    ``q_sorted`` is the query code of each row in the run's final order (grouped by query);
    ``run_doc_key[order]`` its document key. The key of a (query, document) pair puts the
    query code in the high bits and the document key in the low bits (multiplied by an odd
    constant when ``hashed``, which spreads every byte of the id over the bits kept). The run
    is looked up block by block, each block in the slice of sorted judgments of its queries:
    small temporaries, and a search that stays in the CPU cache. A bitmap of hashed pair keys
    (8 bits per judgment) first rules out most unjudged documents, which need no search.
    """
    qbits = max(1, (n - 1).bit_length())
    shift, low = np.uint64(64 - qbits), np.uint64(qbits)

    def pair_key(q, doc_key):
        if hashed:
            with np.errstate(over="ignore"):
                doc_key *= _GOLD
            doc_key >>= low
        doc_key |= q.astype(np.uint64) << shift
        return doc_key

    qrels_key = pair_key(jq, qrels_doc_key.copy())
    bits = int(np.clip(int(len(qrels_key)).bit_length() + 3, 10, 28))

    def bucket(key):
        with np.errstate(over="ignore"):
            return (key * _MIX2) >> np.uint64(64 - bits)

    maybe_judged = np.zeros(1 << bits, dtype=bool)
    maybe_judged[bucket(qrels_key)] = True
    by_key = np.argsort(qrels_key, kind="stable")
    qrels_key = qrels_key[by_key]
    # first_judgment[q]: where query q's judgments start in the sorted keys.
    first_judgment = np.searchsorted(qrels_key, np.arange(n + 1, dtype=np.uint64) << shift)
    first_judgment[n] = len(qrels_key)
    hits, matches = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for lo in range(0, len(order), block):
        hi = min(lo + block, len(order))
        a, b = first_judgment[q_sorted[lo]], first_judgment[q_sorted[hi - 1] + 1]
        if a == b:
            continue
        judgments = qrels_key[a:b]
        run_key = pair_key(q_sorted[lo:hi], run_doc_key[order[lo:hi]])
        candidates = np.flatnonzero(maybe_judged[bucket(run_key)])
        run_key = run_key[candidates]
        pos = np.searchsorted(judgments, run_key)
        np.minimum(pos, len(judgments) - 1, out=pos)
        found = judgments[pos] == run_key
        hit = candidates[found]
        hits.append(lo + hit)
        matches.append(by_key[a + pos[found]])
    return np.concatenate(hits), np.concatenate(matches)


def _same_strings(run_d, run_rows, qrels_d, qrels_rows) -> bool:
    """Whether run_d[run_rows] and qrels_d[qrels_rows] are the same strings, pair by pair."""
    if len(run_rows) == 0:
        return True
    a = _take(run_d, run_rows).cast(pa.large_string())
    b = _take(qrels_d, qrels_rows).cast(pa.large_string())
    return bool(pc.all(pc.equal(a, b)).as_py())
