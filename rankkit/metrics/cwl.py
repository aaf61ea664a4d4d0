"""C/W/L metrics: scaled DCG, NERR, INSQ, INST and the Bejeweled Player Model.

In the C/W/L framework a user reads a ranking from the top; after rank i they continue to
rank i + 1 with a probability C_i that the metric defines (C for continuation), which may
depend on the rank and on the gain seen so far. The share of the user's attention on rank
i is W_i = P_i / sum_m P_m, with P_1 = 1 and P_i = C_1 * ... * C_{i-1} (W for weight),
and the metric is the expected rate of gain per document examined, sum_i W_i * g_i
(Moffat, Bailey, Scholer, Thomas, "Incorporating user expectations and behavior into the
measurement of search effectiveness", ACM TOIS 35(3), 2017, doi:10.1145/3052768; the tool
that computes these metrics is cwl_eval: Azzopardi, Thomas, Moffat, "cwl_eval: an
evaluation tool for information retrieval", SIGIR 2019, doi:10.1145/3331184.3331398).

Conventions shared by every function here, those of cwl_eval as ir_measures calls it (its
``cwl_eval`` provider), so that the values agree with ``ir_measures`` per query:

- Gains lie in [0, 1]: a label is first raised to 0 if negative, then clipped to
  [``min_grade``, ``max_grade``] and scaled, g = (label - min_grade) / (max_grade -
  min_grade) (ir_measures' ``min_rel`` and ``max_rel``). Unjudged documents and ranks past
  the end of the list have gain 0 (cwl_eval's lower bound). ``max_grade=None`` takes the
  largest label of the input; :func:`rankkit.evaluate` passes the largest label of the
  whole data set, so that a query's value does not depend on the others scored.
- The user model runs over ranks 1..``depth`` (cwl_eval's 1,000): a longer ranking is
  cut there, a shorter one padded with gain 0, and W_i is normalized over all ``depth``
  ranks. For INSQ, INST, NERR10 and NERR11, which may go on forever, the value depends
  (slightly) on ``depth``.
- A query with nothing of positive gain retrieved scores 0.0.

Sums along ranks run left to right (:mod:`rankkit.ops.numerics`); so does each P_i, a
cumulative product of the C_i computed as cwl_eval computes them.

References
----------
- A. Moffat, F. Scholer, P. Thomas, "Models and metrics: IR evaluation as a user process",
  ADCS 2012, doi:10.1145/2407085.2407092 (INSQ).
- A. Moffat, P. Bailey, F. Scholer, P. Thomas, "INST: an adaptive metric for information
  retrieval evaluation", ADCS 2015, doi:10.1145/2838931.2838938 (INST).
- F. Zhang, Y. Liu, X. Li, M. Zhang, Y. Xu, S. Ma, "Evaluating web search with a Bejeweled
  Player Model", SIGIR 2017, doi:10.1145/3077136.3080841 (BPM).
- L. Azzopardi, J. Mackenzie, A. Moffat, "ERR is not C/W/L: exploring the relationship
  between expected reciprocal rank and other metrics", ICTIR 2021,
  doi:10.1145/3471158.3472239 (NERR, its equations 8 to 11).
- K. Järvelin, J. Kekäläinen, "Cumulated gain-based evaluation of IR techniques", ACM TOIS
  20(4):422-446, 2002, doi:10.1145/582415.582418 (the DCG that SDCG scales).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._validation import check_depth, check_k, check_no_ties, check_number, check_positive, check_probability
from ..ops.numerics import discounts, rank_sum, weighted_rank_sum
from ..rankings import FloatOrArray, Rankings, RankingsLike, as_rankings

__all__ = ["sdcg", "nerr8", "nerr9", "nerr10", "nerr11", "insq", "inst", "bpm", "CWL_DEPTH"]

#: cwl_eval's evaluation depth (its ``max_n``): ranks 1..1000, as ir_measures runs it.
CWL_DEPTH = 1000

_BLOCK = 1 << 20  # matrix elements per block of queries in _expected_rate (8 MB)

Continuation = Callable[[np.ndarray, np.ndarray], np.ndarray]


# --------------------------------------------------------------------------- checks and gains


def _cutoff(k, name: str) -> int:
    """A cutoff the metric cannot do without."""
    k = check_k(k)
    if k is None:
        raise ValueError(f"k must be a positive integer: {name} is defined at a cutoff, got None")
    return k


def _gains(r: Rankings, min_grade, max_grade) -> np.ndarray:
    """The gain in [0, 1] of each rank: labels clipped to [min_grade, max_grade] and scaled.

    A document labelled below 0 ("pooled but not judged", label 0 in ``r.labels``) counts
    as label 0, as ir_measures' cwl_eval provider does; an unjudged one has gain 0.
    """
    low = check_number(min_grade, "min_grade")
    if max_grade is None:
        top = max(float(r.ideal.max(initial=0.0)), float(r.labels.max(initial=0.0)))
        high = top if top > low else low + 1.0  # no label above min_grade: every gain is 0
    else:
        high = check_number(max_grade, "max_grade")
        if high <= low:
            raise ValueError(f"max_grade must be greater than min_grade={min_grade!r}, got {max_grade!r}")
    scaled = (np.clip(r.labels, low, high) - low) / (high - low)
    return np.where(r.in_pool, scaled, 0.0)


# --------------------------------------------------------------------------- the C/W/L kernel


def _expected_rate(gains: np.ndarray, width: int, continuation: Continuation) -> np.ndarray:
    """sum_i W_i g_i over ranks 1..width, W_i = P_i / sum_m P_m, P_i = C_1 * ... * C_{i-1}.

    ``gains`` is cut or padded with 0 to ``width`` columns; ``continuation(gains, ranks)``
    gives C_i at every rank. Blocks of queries bound the memory of the (queries, width)
    matrices; every query of a block is computed at once.
    """
    n = gains.shape[0]
    out = np.zeros(n)
    ranks = np.arange(1, width + 1, dtype=np.float64)
    take = min(gains.shape[1], width)
    rows = max(1, _BLOCK // width)
    for start in range(0, n, rows):
        block = np.zeros((min(rows, n - start), width))
        block[:, :take] = gains[start:start + rows, :take]
        stay = continuation(block, ranks)
        reach = np.ones_like(block)
        np.cumprod(stay[:, :-1], axis=1, out=reach[:, 1:])
        out[start:start + len(block)] = rank_sum(reach * block) / rank_sum(reach)
    return out


def _patience(ranks: np.ndarray, T: float) -> np.ndarray:
    """((i + 2T - 1) / (i + 2T))**2 at each rank i: INSQ's continuation."""
    reach = ranks + 2.0 * T
    ratio = (reach - 1.0) / reach
    return ratio * ratio


# --------------------------------------------------------------------------- metrics at a cutoff


def sdcg(
    rankings: RankingsLike, *, k: int, min_grade: float = 0, max_grade: float | None = None,
    depth: int = CWL_DEPTH,
) -> FloatOrArray:
    """Scaled DCG at cutoff ``k``, per query: DCG@k over the DCG@k of k documents of gain 1.

    SDCG@k = sum_{i<=k} g_i / log2(i + 1)  /  sum_{i<=k} 1 / log2(i + 1), gains in [0, 1]
    (module conventions). Unlike nDCG it does not look at the judged documents that were
    not retrieved: it assumes at least k fully relevant documents exist. In C/W/L terms
    C_i = log2(i + 1) / log2(i + 2) for i < k and 0 from rank k (cwl_eval's ``NDCG-k``,
    ir_measures' ``SDCG``; the discount of Järvelin & Kekäläinen with base 2, shifted by
    one rank).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int
        Cutoff (required); a cutoff beyond ``depth`` acts as ``depth``.
    min_grade : float, default=0
        Labels at or below it have gain 0 (ir_measures' ``min_rel``).
    max_grade : float or None, default=None
        Labels at or above it have gain 1 (ir_measures' ``max_rel``); None: the largest
        label of the input.
    depth : int, default=1000
        Ranks the user model covers (cwl_eval's 1,000).

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]. With tie groups (``ties="average"``), the expected value over all
        orders of each group.

    Examples
    --------
    Gains 1, 0, 1/2: (1 + 0.5 / log2(4)) / (1 + 1 / log2(3) + 1 / log2(4)) = 1.25 / 2.1309:

    >>> round(sdcg([2, 0, 1], k=3, max_grade=2), 4)
    0.5866
    """
    r = as_rankings(rankings)
    width = min(_cutoff(k, "SDCG"), check_depth(depth))
    gains = r.expected(_gains(r, min_grade, max_grade))[:, :width]
    weights = discounts(width)
    return r.result(weighted_rank_sum(gains, weights) / rank_sum(weights[None, :])[0])


def nerr8(
    rankings: RankingsLike, *, k: int, min_grade: float = 0, max_grade: float | None = None,
    depth: int = CWL_DEPTH,
) -> FloatOrArray:
    """NERR of equation 8 of Azzopardi et al. (2021), at cutoff ``k``, per query.

    A C/W/L metric close to ERR: the user stops at rank i, satisfied, with probability g_i
    and reads at most k documents: C_i = 1 - g_i for i < k, 0 from rank k. So
    P_i = prod_{j<i} (1 - g_j), ERR's chance of reaching rank i, and NERR8@k =
    sum_{i<=k} P_i g_i / sum_{i<=k} P_i (gains in [0, 1], module conventions).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int
        Cutoff (required).
    min_grade, max_grade, depth
        As in :func:`sdcg`.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1].

    Examples
    --------
    Gains 1/2, 0, 1: P = 1, 1/2, 1/2, so (1/2 + 0 + 1/2) / 2:

    >>> nerr8([1, 0, 2], k=3, max_grade=2)
    0.5
    """
    r = as_rankings(rankings)
    check_no_ties(r, "nerr8")
    width = min(_cutoff(k, "NERR8"), check_depth(depth))
    gains = _gains(r, min_grade, max_grade)
    return r.result(_expected_rate(gains, width, lambda g, ranks: 1.0 - g))


def nerr9(
    rankings: RankingsLike, *, k: int, min_grade: float = 0, max_grade: float | None = None,
    depth: int = CWL_DEPTH,
) -> FloatOrArray:
    """NERR of equation 9 of Azzopardi et al. (2021), at cutoff ``k``, per query.

    :func:`nerr8` with ERR's 1/i discount folded into the continuation:
    C_i = i / (i + 1) * (1 - g_i) for i < k, 0 from rank k, so P_i = (1/i) prod_{j<i}
    (1 - g_j) (gains in [0, 1], module conventions).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int
        Cutoff (required).
    min_grade, max_grade, depth
        As in :func:`sdcg`.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1].

    Examples
    --------
    Gains 1/2, 0, 1: C = 1/4, 2/3, so P = 1, 1/4, 1/6 and (1/2 + 1/6) / (17/12) = 8/17:

    >>> round(nerr9([1, 0, 2], k=3, max_grade=2), 6)
    0.470588
    """
    r = as_rankings(rankings)
    check_no_ties(r, "nerr9")
    width = min(_cutoff(k, "NERR9"), check_depth(depth))
    gains = _gains(r, min_grade, max_grade)
    return r.result(_expected_rate(gains, width, lambda g, ranks: ranks / (ranks + 1.0) * (1.0 - g)))


def bpm(
    rankings: RankingsLike, *, k: int, T: float = 1.0, min_grade: float = 0,
    max_grade: float | None = None, depth: int = CWL_DEPTH,
) -> FloatOrArray:
    """The static Bejeweled Player Model (Zhang et al. 2017) in C/W/L form, per query.

    The user reads on until the gain collected reaches ``T`` or ``k`` documents are read,
    whichever comes first: C_i = 1 while G_i = g_1 + ... + g_i < T and i < k, else 0. They
    stop at rank m = min(first i with G_i >= T, k, depth), and the value is the rate of
    gain over the documents read, G_m / m (cwl_eval's ``BPM-Static`` with one unit of cost
    per document, ir_measures' ``BPM``; gains in [0, 1], module conventions).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    k : int
        The documents the user is willing to read (the paper's cost budget; required).
    T : float, default=1.0
        The gain the user wants (the paper's benefit budget), > 0.
    min_grade, max_grade, depth
        As in :func:`sdcg`.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1].

    Examples
    --------
    Gains 1/2, 1/2, 1: the gain reaches T = 1 at rank 2 (1/2 + 1/2) / 2; T = 2 at rank 3:

    >>> bpm([1, 1, 2], k=3, max_grade=2), round(bpm([1, 1, 2], k=3, T=2.0, max_grade=2), 4)
    (0.5, 0.6667)
    """
    r = as_rankings(rankings)
    check_no_ties(r, "bpm")
    width = min(_cutoff(k, "BPM"), check_depth(depth))
    T = check_positive(T, "T")
    gains = _gains(r, min_grade, max_grade)[:, :width]
    if gains.shape[1] == 0:
        return r.result(np.zeros(r.n_queries))
    collected = np.cumsum(gains, axis=1)  # G_i, added in rank order as cwl_eval does
    enough = collected >= T
    stop = np.where(enough.any(axis=1), enough.argmax(axis=1) + 1, width)  # rank m
    seen = collected[np.arange(r.n_queries), np.minimum(stop, gains.shape[1]) - 1]
    return r.result(seen / stop)


# --------------------------------------------------------------------------- metrics to depth


def nerr10(
    rankings: RankingsLike, *, p: float = 0.9, min_grade: float = 0,
    max_grade: float | None = None, depth: int = CWL_DEPTH,
) -> FloatOrArray:
    """NERR of equation 10 of Azzopardi et al. (2021), per query: ERR's stopping with RBP's
    patience.

    C_i = p * (1 - g_i): a user not yet satisfied goes on with probability ``p`` (gains in
    [0, 1], module conventions; ranks 1..``depth``).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    p : float in (0, 1], default=0.9
        Persistence (the paper's phi).
    min_grade, max_grade, depth
        As in :func:`sdcg`.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1].

    Examples
    --------
    Gains 1/2, 1 and p = 1/2: C = 1/4, 0, so P = 1, 1/4 and (1/2 + 1/4) / (5/4):

    >>> nerr10([1, 2], p=0.5, max_grade=2)
    0.6
    """
    r = as_rankings(rankings)
    check_no_ties(r, "nerr10")
    p = check_probability(p, "p")
    gains = _gains(r, min_grade, max_grade)
    return r.result(_expected_rate(gains, check_depth(depth), lambda g, ranks: p * (1.0 - g)))


def nerr11(
    rankings: RankingsLike, *, T: float = 1.0, min_grade: float = 0,
    max_grade: float | None = None, depth: int = CWL_DEPTH,
) -> FloatOrArray:
    """NERR of equation 11 of Azzopardi et al. (2021), per query: ERR's stopping with INSQ's
    patience.

    C_i = ((i + 2T - 1) / (i + 2T))**2 * (1 - g_i) (gains in [0, 1], module conventions;
    ranks 1..``depth``).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    T : float, default=1.0
        The gain the user expects to need, > 0; a larger T, a more patient user.
    min_grade, max_grade, depth
        As in :func:`sdcg`.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1].

    Examples
    --------
    Gains 0, 1 and T = 1: C = (2/3)**2, 0, so P = 1, 4/9 and (4/9) / (13/9) = 4/13:

    >>> round(nerr11([0, 1], max_grade=1), 6)
    0.307692
    """
    r = as_rankings(rankings)
    check_no_ties(r, "nerr11")
    T = check_positive(T, "T")
    gains = _gains(r, min_grade, max_grade)
    return r.result(_expected_rate(gains, check_depth(depth), lambda g, ranks: _patience(ranks, T) * (1.0 - g)))


def insq(
    rankings: RankingsLike, *, T: float = 1.0, min_grade: float = 0,
    max_grade: float | None = None, depth: int = CWL_DEPTH,
) -> FloatOrArray:
    """INSQ (Moffat, Scholer & Thomas 2012), per query.

    C_i = ((i + 2T - 1) / (i + 2T))**2: a user who expects to need ``T`` relevant
    documents is more patient the deeper they are, whatever they have found (gains in
    [0, 1], module conventions; ranks 1..``depth``). The weights do not depend on the
    gains, so INSQ is a weighted precision with W_i proportional to 1 / (i + 2T - 1)**2.

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    T : float, default=1.0
        The gain the user expects to need, > 0.
    min_grade, max_grade, depth
        As in :func:`sdcg`.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1]. With tie groups (``ties="average"``), the expected value over all
        orders of each group.

    Examples
    --------
    Two ranks, gains 0, 1 and T = 1: P = 1, (2/3)**2, so (4/9) / (13/9) = 4/13:

    >>> round(insq([0, 1], max_grade=1, depth=2), 6)
    0.307692
    """
    r = as_rankings(rankings)
    T = check_positive(T, "T")
    width = check_depth(depth)
    reach = np.ones(width)
    np.cumprod(_patience(np.arange(1, width, dtype=np.float64), T), out=reach[1:])
    gains = r.expected(_gains(r, min_grade, max_grade))[:, :width]
    return r.result(weighted_rank_sum(gains, reach) / rank_sum(reach[None, :])[0])


def inst(
    rankings: RankingsLike, *, T: float = 1.0, min_grade: float = 0,
    max_grade: float | None = None, depth: int = CWL_DEPTH,
) -> FloatOrArray:
    """INST (Moffat, Bailey, Scholer & Thomas 2015), per query: INSQ that adapts to the
    gain found.

    C_i = ((i + T + T_i - 1) / (i + T + T_i))**2 with T_i = T - (g_1 + ... + g_i), the
    gain still wanted after rank i: the user expects ``T`` units of gain and becomes less
    patient as they collect it (gains in [0, 1], module conventions; ranks 1..``depth``).

    Parameters
    ----------
    rankings : Rankings or array-like of shape (n_queries, depth)
        Labels in rank order.
    T : float, default=1.0
        The gain the user expects to need, > 0.
    min_grade, max_grade, depth
        As in :func:`sdcg`.

    Returns
    -------
    float or ndarray of shape (n_queries,)
        In [0, 1].

    Examples
    --------
    Two ranks, gains 1, 0 and T = 1: T_1 = 0, C_1 = (1/2)**2, so 1 / (1 + 1/4):

    >>> inst([1, 0], max_grade=1, depth=2)
    0.8
    """
    r = as_rankings(rankings)
    check_no_ties(r, "inst")
    T = check_positive(T, "T")

    def continuation(g: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        reach = (ranks + T) + (T - np.cumsum(g, axis=1))  # i + T + T_i, as cwl_eval adds them
        ratio = (reach - 1.0) / reach
        return ratio * ratio

    gains = _gains(r, min_grade, max_grade)
    return r.result(_expected_rate(gains, check_depth(depth), continuation))
