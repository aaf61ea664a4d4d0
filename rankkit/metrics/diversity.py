"""Diversity and intent-aware measures on subtopic judgments, as ndeval computes them.

A query with several intents (subtopics) is judged per intent: ``topic subtopic docno
judgment``, the TREC Web track's diversity judgments (2009-2014), which its tool ``ndeval``
(Charles Clarke's ``ndeval.c``, version 4.5 of 29 April 2013, bundled in the ``pyndeval``
package on PyPI) evaluates. These kernels follow ndeval's conventions:

- judgments are binary: a document is relevant to an intent when its judgment is >= 1;
- the intents of a query are the subtopics with at least one relevant document (``A`` of
  them); a query without one scores 0 on every measure;
- a document relevant to intent ``j`` gains ``(1 - alpha)**c`` for it, ``c`` the number of
  documents above it relevant to ``j`` (alpha = 0.5 by default); its gain ``G_i`` at rank
  ``i`` is the sum over its intents, added in the order of the subtopic numbers;
- the ideal ranking is built greedily, as ndeval does (the exact one is NP-hard): at each
  rank the judged document of the largest gain given those above it; ties go to the larger
  document id;
- ``alpha-DCG``, ``ERR-IA`` and ``NRBP`` are divided by the value of an "ideal ideal" list,
  one document relevant to all ``A`` intents at every rank (ndeval's collection-independent
  normalisation); their ``n`` forms by the value of the greedy ideal ranking.

How the intents reach a :class:`~rankkit.rankings.Rankings`: each judged label is the set
of the document's relevant intents, packed into one integer (bit ``j`` for the query's
``j``-th intent, and above bit 32 the document's place among the query's relevant
documents in id order, which the greedy ideal breaks ties with):
:func:`rankkit.io.subtopics.intent_labels` builds them, and ``rk.evaluate`` reads a frame of
subtopic judgments (:func:`rankkit.io.subtopics.read_subtopic_qrels`) that way. Plain
labels (nothing above bit 32) are one intent, relevant at label >= 1.

The order of floating-point operations is ndeval's (sums along ranks from the top, gains
added intent by intent, powers by repeated multiplication, discounts ``log(2) / log(i + 1)``
from the C library's ``log``), so that ``rankkit ndeval`` prints ndeval's table to the last
digit.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_k, check_no_ties, check_probability, warn_user
from ..rankings import FloatOrArray, Rankings, RankingsLike, as_rankings

__all__ = ["INTENT_SHIFT", "intent_hits", "alpha_dcg", "alpha_ndcg", "err_ia", "nerr_ia", "nrbp",
           "nnrbp", "precision_ia", "ap_ia", "subtopic_recall"]

#: A packed label is ``place * INTENT_SHIFT + intents`` (see the module docstring): up to 32
#: intents (bits 0 to 31) and 2**21 - 1 relevant documents per query, exact in float64.
INTENT_SHIFT = 2 ** 32


# --------------------------------------------------------------------------- intents and gains


def intent_hits(labels: np.ndarray, packed: bool) -> np.ndarray:
    """Boolean array (..., n_intents): whether the document of each label is relevant to each
    intent. ``packed``: labels made by :func:`rankkit.io.subtopics.intent_labels`; else one
    intent, relevant at label >= 1."""
    labels = np.asarray(labels, dtype=np.float64)
    if not packed:
        return (labels >= 1)[..., None]
    bits = np.where(labels > 0, np.mod(labels, INTENT_SHIFT), 0).astype(np.int64)
    width = max(int(bits.max()).bit_length() if bits.size else 0, 1)
    return ((bits[..., None] >> np.arange(width, dtype=np.int64)) & 1).astype(bool)


def _intents(r: Rankings) -> dict:
    """The intents of ``r``, once per Rankings: hits at each rank and in the ideal list (its
    relevant documents), relevant documents per intent and A, the number of intents."""
    def compute() -> dict:
        packed = bool(r.ideal.size) and bool((r.ideal >= INTENT_SHIFT).any())
        top = int((r.ideal > 0).sum(axis=1).max()) if r.ideal.size else 0
        ideal = intent_hits(r.ideal[:, :top], packed)
        width = ideal.shape[-1]
        hits = intent_hits(r.labels, packed)
        hits = _width(hits, width) & (np.arange(r.depth) < r.lengths[:, None])[..., None]
        per_intent = ideal.sum(axis=1)
        return {"hits": hits, "ideal": ideal, "per_intent": per_intent, "A": (per_intent > 0).sum(axis=1)}
    return r.derived("diversity-intents", compute)


def _width(hits: np.ndarray, width: int) -> np.ndarray:
    """``hits`` with exactly ``width`` intents (a run's labels may use fewer bits than the ideal)."""
    if hits.shape[-1] >= width:
        return hits[..., :width]
    pad = np.zeros(hits.shape[:-1] + (width - hits.shape[-1],), dtype=bool)
    return np.concatenate([hits, pad], axis=-1)


def _powers(base: float, n: int) -> np.ndarray:
    """``base**c`` for c = 0 .. n, by repeated multiplication from 1.0 (ndeval's order)."""
    return np.cumprod(np.concatenate([[1.0], np.full(n, base)]))


def _novelty_gains(hits: np.ndarray, alpha: float) -> np.ndarray:
    """G_i at each rank (n_queries, depth): for each intent j of the document,
    (1 - alpha)**(documents above relevant to j), added intent by intent."""
    seen = np.cumsum(hits, axis=1, dtype=np.int64) - hits
    powers = _powers(1.0 - alpha, hits.shape[1])
    gains = np.zeros(hits.shape[:2])
    for j in range(hits.shape[2]):  # intents, in subtopic order: the order ndeval adds them
        gains = gains + np.where(hits[:, :, j], powers[seen[:, :, j]], 0.0)
    return gains


def _run_gains(r: Rankings, alpha: float) -> np.ndarray:
    """:func:`_novelty_gains` of the run, once per Rankings and alpha."""
    return r.derived(("diversity-gains", alpha), lambda: _novelty_gains(_intents(r)["hits"], alpha))


def _ideal_gains(r: Rankings, alpha: float) -> np.ndarray:
    """G_i of the greedy ideal ranking of each query (n_queries, relevant documents): at
    each rank the document of the largest gain given those placed above it, the first in
    the ideal list (the larger document id) among equal gains; every query at once."""
    def compute() -> np.ndarray:
        ideal = _intents(r)["ideal"]
        n, m, width = ideal.shape
        weight = np.ones((n, width))  # (1 - alpha)**c of each intent, c its documents placed
        placed = np.zeros((n, m), dtype=bool)
        gains = np.zeros((n, m))
        rows = np.arange(n)
        for rank in range(m):  # ranks of the ideal list, every query at each
            score = np.zeros((n, m))
            for j in range(width):
                score = score + np.where(ideal[:, :, j], weight[:, None, j], 0.0)
            score[placed] = -1.0
            best = np.argmax(score, axis=1)
            gains[:, rank] = np.maximum(score[rows, best], 0.0)
            placed[rows, best] = True
            weight = np.where(ideal[rows, best], weight * (1.0 - alpha), weight)
        return gains
    return r.derived(("diversity-ideal", alpha), compute)


def _columns(matrix: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` columns of ``matrix``, zero-padded when it has fewer."""
    if matrix.shape[1] >= k:
        return matrix[:, :k]
    return np.concatenate([matrix, np.zeros((matrix.shape[0], k - matrix.shape[1]))], axis=1)


def _discounts(k: int) -> np.ndarray:
    """ndeval's DCG discount at ranks 1 .. k: log(2) / log(i + 1), with the C library's log."""
    return np.array([math.log(2.0) / math.log(i + 2.0) for i in range(k)])


def _ideal_ideal(n_intents: np.ndarray, alpha: float, weights: np.ndarray) -> np.ndarray:
    """Cumulative value of ndeval's "ideal ideal" list at ranks 1 .. k: a document relevant
    to all A intents at every rank, gain A * (1 - alpha)**(i - 1) times ``weights``."""
    k = weights.shape[0]
    steps = np.concatenate([n_intents[:, None].astype(np.float64), np.full((len(n_intents), k - 1), 1.0 - alpha)],
                           axis=1)
    return np.cumsum(np.cumprod(steps, axis=1) * weights, axis=1)


def _scaled(curve: np.ndarray, n_intents: np.ndarray, alpha: float, weights: np.ndarray) -> np.ndarray:
    """``curve`` (cumulative, n_queries x k) at rank k over the ideal ideal's; at k = 1 the
    value itself, as ndeval leaves rank 1 undivided; 0 without intents."""
    value = curve[:, -1]
    if curve.shape[1] == 1:
        return np.where(n_intents > 0, value, 0.0)
    scale = _ideal_ideal(n_intents, alpha, weights)[:, -1]
    return np.divide(value, scale, out=np.zeros_like(value), where=n_intents > 0)


def _prepare(rankings: RankingsLike, name: str, k=None, alpha: float = 0.5) -> tuple[Rankings, int | None, float]:
    r = as_rankings(rankings)
    k = check_k(k)
    alpha = check_probability(alpha, "alpha", low_open=False)
    check_no_ties(r, name)
    if r.has_qrels is not None and r.ideal.size and 0 < r.ideal.max() < INTENT_SHIFT:  # judgments, no subtopics
        warn_user("diversity measures on judgments without subtopics count one intent per query: read "
                  "subtopic judgments (topic subtopic docno judgment) with rk.read_subtopic_qrels, or use "
                  "rankkit ndeval on the command line")
    return r, k, alpha


def _cut(r: Rankings, k: int | None) -> int:
    return max(r.depth, 1) if k is None else k


def _rank_curve(r: Rankings, k: int | None, alpha: float, weights_of, ideal: bool = False):
    """(run value, ideal value, A): the weighted gains summed to rank k, ndeval-scaled."""
    k = _cut(r, k)
    weights, n_intents = weights_of(k), _intents(r)["A"]
    run = _scaled(np.cumsum(_columns(_run_gains(r, alpha), k) * weights, axis=1),
                  n_intents, alpha, weights)
    if not ideal:
        return run, None, n_intents
    best = _scaled(np.cumsum(_columns(_ideal_gains(r, alpha), k) * weights, axis=1), n_intents, alpha, weights)
    return run, best, n_intents


def _normalised(run: np.ndarray, best: np.ndarray) -> np.ndarray:
    """run / best where the run gains anything (ndeval's test), else 0."""
    return np.divide(run, best, out=np.zeros_like(run), where=(run != 0) & (best != 0))


def _reciprocal(k: int) -> np.ndarray:
    return 1.0 / np.arange(1, k + 1, dtype=np.float64)


# --------------------------------------------------------------------------- the measures


def alpha_dcg(rankings: RankingsLike, *, k: int | None = None, alpha: float = 0.5) -> FloatOrArray:
    """alpha-DCG@k (Clarke et al., SIGIR 2008), with ndeval's collection-independent scale.

    alpha-DCG@k = sum_{i<=k} G_i / log2(i + 1), where G_i = sum_j rel_ij (1 - alpha)**c_ij
    and c_ij counts the documents above rank i relevant to intent j (novelty: a second
    document on an intent is worth less). ndeval (and this function) divides it by the same
    sum for a list whose every document is relevant to all A intents,
    sum_{i<=k} A (1 - alpha)**(i - 1) / log2(i + 1), leaving k = 1 undivided as ndeval does.

    Source: C. L. A. Clarke, M. Kolla, G. V. Cormack, O. Vechtomova, A. Ashkan, S. Büttcher,
    I. MacKinnon, "Novelty and diversity in information retrieval evaluation", SIGIR 2008;
    normalisation of ndeval 4.5 (TREC Web track).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Packed intent labels (:func:`rankkit.io.subtopics.intent_labels`, what ``rk.evaluate``
        gives it from subtopic judgments), or plain labels: one intent, relevant at >= 1.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole ranking.
    alpha : float in [0, 1], default=0.5
        Redundancy intolerance: the gain lost on each repeat of an intent (ndeval ``-alpha``).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 for a query with no relevant document.

    Examples
    --------
    >>> round(alpha_dcg([1, 1, 0], k=2), 4)   # one intent: (1 + 0.5 / log2(3)) / (1 + 0.5 / log2(3))
    1.0
    """
    r, k, alpha = _prepare(rankings, "alpha_DCG", k, alpha)
    run, _, _ = _rank_curve(r, k, alpha, _discounts)
    return r.result(run)


def alpha_ndcg(rankings: RankingsLike, *, k: int | None = None, alpha: float = 0.5) -> FloatOrArray:
    """alpha-nDCG@k (Clarke et al., SIGIR 2008): alpha-DCG@k over that of the ideal ranking.

    alpha-nDCG@k = alpha-DCG@k / alpha-DCG@k(ideal), the ideal ranking built greedily from
    every judged document (at each rank the one of the largest G_i; ties to the larger
    document id), as ndeval does; 0 where the run gains nothing in its top k.

    Source: Clarke et al., "Novelty and diversity in information retrieval evaluation",
    SIGIR 2008 (who compute the ideal greedily, as ndeval does); ndeval 4.5's conventions.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Packed intent labels, or plain labels (one intent); see :func:`alpha_dcg`.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole ranking.
    alpha : float in [0, 1], default=0.5
        Redundancy intolerance.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1] when the greedy ideal is the best ranking (it may not be: the greedy
        ranking is an approximation); 0.0 for a query with no relevant document.

    Examples
    --------
    One intent, the relevant document at rank 2 instead of 1:

    >>> round(alpha_ndcg([0, 1, 0, 0], k=4), 4)   # (1 / log2(3)) / 1
    0.6309
    """
    r, k, alpha = _prepare(rankings, "alpha_nDCG", k, alpha)
    run, best, _ = _rank_curve(r, k, alpha, _discounts, ideal=True)
    return r.result(_normalised(run, best))


def err_ia(rankings: RankingsLike, *, k: int | None = None, alpha: float = 0.5) -> FloatOrArray:
    """ERR-IA@k (Chapelle et al., CIKM 2009) as ndeval computes it.

    With binary judgments and a stopping chance alpha for a relevant document, the expected
    reciprocal rank of intent j is alpha * sum_i rel_ij (1 - alpha)**c_ij / i; averaged over
    the A intents it is proportional to sum_{i<=k} G_i / i. ndeval divides that sum by the
    one of a list relevant to all intents at every rank, sum_{i<=k} A (1 - alpha)**(i-1) / i
    (rank 1 left undivided).

    Source: O. Chapelle, D. Metzler, Y. Zhang, P. Grinspan, "Expected reciprocal rank for
    graded relevance", CIKM 2009 (ERR and its intent-aware form); R. Agrawal, S. Gollapudi,
    A. Halverson, S. Ieong, "Diversifying search results", WSDM 2009 (the intent-aware mean);
    normalisation of ndeval 4.5.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Packed intent labels, or plain labels (one intent); see :func:`alpha_dcg`.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole ranking.
    alpha : float in [0, 1], default=0.5
        The chance that a relevant document satisfies its intent (ndeval's ``-alpha``).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 for a query with no relevant document.

    Examples
    --------
    >>> round(err_ia([0, 1], k=2), 4)   # (1/2) / (1 + 0.5/2)
    0.4
    """
    r, k, alpha = _prepare(rankings, "ERR_IA", k, alpha)
    run, _, _ = _rank_curve(r, k, alpha, _reciprocal)
    return r.result(run)


def nerr_ia(rankings: RankingsLike, *, k: int | None = None, alpha: float = 0.5) -> FloatOrArray:
    """nERR-IA@k: ERR-IA@k over that of the greedy ideal ranking (ndeval's collection-dependent
    normalisation); 0 where the run gains nothing in its top k.

    Source: Chapelle et al., CIKM 2009; the ideal ranking as for :func:`alpha_ndcg`.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Packed intent labels, or plain labels (one intent); see :func:`alpha_dcg`.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole ranking.
    alpha : float in [0, 1], default=0.5
        The chance that a relevant document satisfies its intent.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 for a query with no relevant document.

    Examples
    --------
    >>> round(nerr_ia([0, 1], k=2), 4)   # (1/2) / 1
    0.5
    """
    r, k, alpha = _prepare(rankings, "nERR_IA", k, alpha)
    run, best, _ = _rank_curve(r, k, alpha, _reciprocal, ideal=True)
    return r.result(_normalised(run, best))


def _nrbp_sum(gains: np.ndarray, beta: float) -> np.ndarray:
    """sum_i G_i beta**(i - 1) over every rank, from the top."""
    if gains.shape[1] == 0:
        return np.zeros(gains.shape[0])
    return np.cumsum(gains * _powers(beta, gains.shape[1])[:-1], axis=1)[:, -1]


def _nrbp_values(rankings, name: str, alpha, beta, ideal: bool):
    r, _, alpha = _prepare(rankings, name, None, alpha)
    beta = check_probability(beta, "beta", low_open=False)
    n_intents = _intents(r)["A"]
    factor = (1.0 - (1.0 - alpha) * beta) / np.maximum(n_intents, 1)
    run = np.where(n_intents > 0, _nrbp_sum(_run_gains(r, alpha), beta) * factor, 0.0)
    best = np.where(n_intents > 0, _nrbp_sum(_ideal_gains(r, alpha), beta) * factor, 0.0) if ideal else None
    return r, run, best


def nrbp(rankings: RankingsLike, *, alpha: float = 0.5, beta: float = 0.5) -> FloatOrArray:
    """Novelty- and rank-biased precision, NRBP (Clarke, Kolla & Vechtomova, ICTIR 2009).

    NRBP = (1 - (1 - alpha) beta) / A * sum_i beta**(i - 1) G_i over the whole ranking: RBP's
    patient user (persistence beta) with alpha-DCG's novelty gains; the factor makes a
    list relevant to every intent at every rank score 1 (ndeval's collection-independent
    normalisation).

    Source: C. L. A. Clarke, M. Kolla, O. Vechtomova, "An effectiveness measure for
    ambiguous and underspecified queries", ICTIR 2009; ndeval 4.5.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Packed intent labels, or plain labels (one intent); see :func:`alpha_dcg`.
    alpha : float in [0, 1], default=0.5
        Redundancy intolerance.
    beta : float in [0, 1], default=0.5
        Patience: the chance of looking at the next rank (ndeval ``-beta``).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 for a query with no relevant document.

    Examples
    --------
    >>> nrbp([1, 0, 1])   # (1 - 0.25) * (1 + 0.25 * 0.5)
    0.84375
    """
    r, run, _ = _nrbp_values(rankings, "NRBP", alpha, beta, ideal=False)
    return r.result(run)


def nnrbp(rankings: RankingsLike, *, alpha: float = 0.5, beta: float = 0.5) -> FloatOrArray:
    """nNRBP: NRBP over the NRBP of the greedy ideal ranking (ndeval's collection-dependent
    normalisation). ndeval prints ``nan`` for a query without a relevant document (0 / 0);
    this function gives 0.0, as every rankkit metric does.

    Source: Clarke, Kolla & Vechtomova, ICTIR 2009; the ideal ranking as for :func:`alpha_ndcg`.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Packed intent labels, or plain labels (one intent); see :func:`alpha_dcg`.
    alpha : float in [0, 1], default=0.5
        Redundancy intolerance.
    beta : float in [0, 1], default=0.5
        Patience.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 for a query with no relevant document.

    Examples
    --------
    >>> nnrbp([0, 1])   # 0.5 / 1
    0.5
    """
    r, run, best = _nrbp_values(rankings, "nNRBP", alpha, beta, ideal=True)
    return r.result(np.divide(run, best, out=np.zeros_like(run), where=best != 0))


def precision_ia(rankings: RankingsLike, *, k: int | None = None) -> FloatOrArray:
    """Intent-aware precision P-IA@k (Agrawal et al., WSDM 2009), with equal intent weights.

    P-IA@k = (1 / A) sum_j P_j@k = (relevant (document, intent) pairs in the top k) / (k A).
    ``k=None`` takes each query's whole ranking (its length for k).

    Source: R. Agrawal, S. Gollapudi, A. Halverson, S. Ieong, "Diversifying search results",
    WSDM 2009 (intent-aware measures, uniform intent probabilities as in ndeval).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Packed intent labels, or plain labels (one intent); see :func:`alpha_dcg`.
    k : int or None, default=None
        Cutoff; the denominator is k even where fewer documents were retrieved (ndeval).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 for a query with no relevant document.

    Examples
    --------
    >>> precision_ia([1, 0, 1, 0], k=4)
    0.5
    """
    r, k, _ = _prepare(rankings, "P_IA", k)
    intents = _intents(r)
    found = intents["hits"][:, :k].sum(axis=(1, 2)).astype(np.float64)
    depth = r.lengths if k is None else np.full(r.n_queries, k)
    denominator = (depth * intents["A"]).astype(np.float64)
    return r.result(np.divide(found, denominator, out=np.zeros_like(found), where=denominator > 0))


def ap_ia(rankings: RankingsLike) -> FloatOrArray:
    """Intent-aware average precision AP-IA (ndeval's MAP-IA per query; Agrawal et al., WSDM 2009).

    AP-IA = (1 / A) sum_j AP_j, AP_j the average precision of the ranking judged on intent j
    alone: sum over the ranks i of documents relevant to j of (documents relevant to j in
    the top i) / i, over R_j, the documents judged relevant to j. The whole ranking counts.

    Source: Agrawal et al., "Diversifying search results", WSDM 2009 (MAP-IA); ndeval 4.5.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Packed intent labels, or plain labels (one intent); see :func:`alpha_dcg`.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        0.0 for a query with no relevant document.

    Examples
    --------
    >>> ap_ia([0, 1, 1])   # (1/2 + 2/3) / 2
    0.5833333333333333
    """
    r, _, _ = _prepare(rankings, "AP_IA")
    intents = _intents(r)
    hits = intents["hits"]
    ranks = np.arange(1, r.depth + 1, dtype=np.float64)[None, :, None]
    found = np.where(hits, np.cumsum(hits, axis=1, dtype=np.int64) / ranks, 0.0)
    totals = np.cumsum(found, axis=1)[:, -1, :] if r.depth else np.zeros(hits.shape[::2])
    per_intent = intents["per_intent"]
    value = np.zeros(r.n_queries)
    for j in range(hits.shape[2]):  # intents in subtopic order, as ndeval adds them
        value = value + np.divide(totals[:, j], per_intent[:, j], out=np.zeros(r.n_queries),
                                  where=per_intent[:, j] > 0)
    return r.result(np.divide(value, intents["A"], out=np.zeros_like(value), where=intents["A"] > 0))


def subtopic_recall(rankings: RankingsLike, *, k: int | None = None) -> FloatOrArray:
    """Subtopic recall S-recall@k (Zhai, Cohen & Lafferty, SIGIR 2003): the fraction of the
    A intents with a relevant document in the top k (ndeval's ``strec``).

    Source: C. Zhai, W. W. Cohen, J. Lafferty, "Beyond independent relevance: methods and
    evaluation metrics for subtopic retrieval", SIGIR 2003.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Packed intent labels, or plain labels (one intent); see :func:`alpha_dcg`.
    k : int or None, default=None
        Cutoff; ``None`` uses the whole ranking.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]; 0.0 for a query with no relevant document.

    Examples
    --------
    >>> subtopic_recall([[0, 1, 0]], k=1)
    array([0.])
    """
    r, k, _ = _prepare(rankings, "StRecall", k)
    intents = _intents(r)
    covered = intents["hits"][:, :k].any(axis=1).sum(axis=1).astype(np.float64)
    return r.result(np.divide(covered, intents["A"], out=np.zeros_like(covered), where=intents["A"] > 0))
