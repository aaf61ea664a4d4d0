"""Recommender measures beyond accuracy: coverage, exposure, popularity, novelty, diversity, serendipity.

A recommender is judged by more than the relevant items it finds: how much of the catalogue
it ever shows, how evenly it spreads exposure, whether it only pushes what everybody already
knows, whether a list holds ten versions of one thing. :func:`recommendations` prepares a
run (the top ``k`` items per user, any input :func:`rankkit.evaluate` takes) with the
catalogue, the training interactions and, where needed, item features and judgments; every
measure below is then a few array operations over all users at once.

The definitions are those of two peer libraries, every difference between them a parameter:

- Microsoft Recommenders (``recommenders/evaluation/python_evaluation.py``:
  ``catalog_coverage``, ``distributional_coverage``, ``novelty``, ``diversity``,
  ``serendipity`` and their ``user_*`` forms; https://github.com/recommenders-team/recommenders);
- RecBole (``recbole/evaluator/metrics.py``: ``ItemCoverage``, ``AveragePopularity``,
  ``ShannonEntropy``, ``GiniIndex``, ``TailPercentage``; Zhao et al., "RecBole: Towards a
  Unified, Comprehensive and Efficient Framework for Recommendation Algorithms", CIKM 2021;
  https://github.com/RUCAIBox/RecBole).

``tests/test_recommender.py`` reproduces the values their own tests state and checks every
measure against a plain-Python oracle on random inputs.

Logarithms are correctly rounded (:mod:`rankkit.ops.numerics`), the same on every CPU.
Similarities are cosines, summed in one documented order (no BLAS product): for item feature
vectors, ``sum_f x_f * y_f`` left to right over the features, divided by the product of the two
norms (each ``sqrt`` of its squares summed left to right); for co-occurrence (Microsoft
Recommenders' default), ``|U_i & U_j| / sqrt(|U_i| * |U_j|)`` with ``U_i`` the training users
of item ``i``. A list's sums run over ranks in order: :func:`intra_list_diversity` adds, rank
``r`` by rank, the similarities of the item at ``r`` with the items below it (each row summed
left to right); :func:`serendipity` sums an item's similarities with the user's training items
in the order of their ids.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._validation import check_k, check_option, check_positive, check_probability, check_rel, is_int
from .io import read_qrels, read_run
from .ops.numerics import ln, log2, rank_sum

__all__ = ["Recommendations", "recommendations", "catalog_coverage", "exposure_entropy", "gini_index",
           "average_popularity", "long_tail_share", "novelty", "intra_list_diversity", "serendipity",
           "beyond_accuracy", "SIMILARITIES", "MEASURES"]

#: Item similarities: cosine of the item feature vectors, or of the items' training users.
SIMILARITIES = ("features", "cooccurrence")
#: Above this many items the similarities are computed pair by pair, not as one table.
_TABLE_ITEMS = 2048


@dataclass(frozen=True, eq=False)
class Recommendations:
    """A run's top-``k`` lists with what the measures beyond accuracy read.

    Build it with :func:`recommendations`. Items are positions in :attr:`catalog`.

    Attributes
    ----------
    items : ndarray of int64, shape (n_users, depth)
        The item at each rank (catalogue position), ``-1`` past the end of a shorter list.
    user_ids : pandas.Index
        The run's users, in the order of the rows.
    catalog : pandas.Index
        Every item id (str), sorted.
    popularity : ndarray of int64, shape (n_items,)
        Training interactions of each item (every row of the training data counts).
    history : ndarray of int64, shape (n_users, n_history)
        Each user's distinct training items in catalogue order, ``-1`` after the last.
    relevant : ndarray of bool, shape (n_users, depth)
        Whether the item at each rank is relevant (judgment >= ``rel``); all True when no
        judgments were given.
    features : ndarray of float64, shape (n_features, n_items), or None
        The item feature vectors, one column per item.
    train_users, train_items : ndarray of int64, shape (n_interactions,)
        The training data, one entry per row: a code per training user, the item's position.
    """

    items: np.ndarray
    user_ids: pd.Index
    catalog: pd.Index
    popularity: np.ndarray
    history: np.ndarray
    relevant: np.ndarray
    features: np.ndarray | None
    train_users: np.ndarray
    train_items: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        """Items recommended to each user (at most the depth)."""
        return np.count_nonzero(self.items >= 0, axis=1)

    @property
    def n_interactions(self) -> int:
        """Rows of the training data."""
        return int(self.popularity.sum())

    def __len__(self) -> int:
        return len(self.user_ids)


def recommendations(run: Any, train: Any, *, catalog: Iterable | None = None, k: int | None = 10,
                    features: Any = None, qrels: Any = None, rel: float = 1) -> Recommendations:
    """Prepare a run's top-``k`` recommendations for the measures beyond accuracy.

    Parameters
    ----------
    run : path, DataFrame, records or dict
        Any input :func:`rankkit.read_run` takes (``{user: {item: score}}``, a TREC run, a
        frame with ``query_id``, ``doc_id``, ``score``): one query per user. Each list is
        ordered as :func:`rankkit.evaluate` orders it (score descending, ties by item id
        descending, trec_eval's order) and cut at ``k``.
    train : DataFrame, dict or iterable of pairs
        The training interactions: a frame with columns ``user_id`` and ``item_id`` (or
        ``query_id`` and ``doc_id``), ``{user: [items]}``, or ``(user, item)`` pairs. Each row
        counts once in an item's popularity.
    catalog : iterable of item ids, optional
        Every item that could be recommended. Default: the items of ``train`` and ``run``.
    k : int or None, default=10
        Items kept per user; None keeps whole lists.
    features : DataFrame or dict, optional
        Item feature vectors: a frame indexed by item id (one numeric column per feature) or
        ``{item: vector}``; every catalogue item needs one, not all zero.
    qrels : optional
        Judgments (any input :func:`rankkit.read_qrels` takes) for :func:`serendipity`.
    rel : float, default=1
        A judged item is relevant when its label is >= ``rel``.

    Returns
    -------
    Recommendations

    Examples
    --------
    >>> recs = recommendations({"u1": {"a": 2.0, "b": 1.0}, "u2": {"a": 1.0}},
    ...                        train=[("u1", "a"), ("u2", "a"), ("u2", "c")], k=2)
    >>> recs.items.tolist(), list(recs.catalog), recs.popularity.tolist()
    ([[0, 1], [0, -1]], ['a', 'b', 'c'], [2, 0, 1])
    """
    k = check_k(k)
    rel = check_rel(rel)
    frame = read_run(run)
    users, items = _interactions(train)
    catalog = _catalog(catalog, items, frame["doc_id"])
    user_ids = pd.Index(frame["query_id"].cat.categories.astype(str), name="user_id")
    codes = _item_codes(catalog, frame["doc_id"], "the run")
    matrix = _top_k(frame["query_id"].cat.codes.to_numpy(np.int64), codes,
                    frame["score"].to_numpy(np.float64), len(user_ids), k)
    train_items = _item_codes(catalog, items, "the training data")
    popularity = np.bincount(train_items, minlength=len(catalog)).astype(np.int64)
    history = _history(user_ids.get_indexer(users), train_items, len(user_ids), len(catalog))
    relevant = _relevant(qrels, rel, user_ids, catalog, matrix)
    vectors = None if features is None else _features(features, catalog)
    train_users = pd.factorize(users)[0].astype(np.int64)
    return Recommendations(matrix, user_ids, catalog, popularity, history, relevant, vectors, train_users, train_items)


# --------------------------------------------------------------------------- preparing


def _interactions(train: Any) -> tuple[np.ndarray, np.ndarray]:
    """The training data as two arrays of str ids: users and items, one entry per row."""
    if isinstance(train, pd.DataFrame):
        for user, item in (("user_id", "item_id"), ("query_id", "doc_id")):
            if {user, item} <= set(train.columns):
                return _ids(train[user]), _ids(train[item])
        raise ValueError("train must have columns user_id and item_id (or query_id and doc_id), "
                         f"got {list(train.columns)}")
    if isinstance(train, Mapping):
        pairs = [(user, item) for user, seen in train.items() for item in _listed(seen, user)]
    elif isinstance(train, Iterable) and not isinstance(train, (str, bytes)):
        pairs = list(train)
        bad = next((p for p in pairs if not (isinstance(p, tuple | list) and len(p) == 2)), None)
        if bad is not None:
            raise ValueError(f"train must hold (user, item) pairs, got {bad!r}")
    else:
        raise ValueError(f"train must be a DataFrame, a dict user -> items or (user, item) pairs, got {train!r}")
    users = [user for user, _ in pairs]
    items = [item for _, item in pairs]
    return _ids(pd.Series(users, dtype=object)), _ids(pd.Series(items, dtype=object))


def _listed(seen: Any, user: Any) -> Iterable:
    if isinstance(seen, (str, bytes)) or not isinstance(seen, Iterable):
        raise ValueError(f"train[{user!r}] must be a list of items, got {seen!r}")
    return seen


def _ids(values: pd.Series) -> np.ndarray:
    """Ids as str (``1`` and ``"1"`` are one id, as in a TREC file); missing ids refused."""
    if values.isna().any():
        raise ValueError("ids must not be missing (None or NaN)")
    return values.astype(str).to_numpy(dtype=object)


def _catalog(catalog: Iterable | None, train_items: np.ndarray, run_items: pd.Series) -> pd.Index:
    if catalog is None:
        ids = np.concatenate([train_items, run_items.astype(str).to_numpy(dtype=object)])
    elif isinstance(catalog, (str, bytes)) or not isinstance(catalog, Iterable):
        raise ValueError(f"catalog must be an iterable of item ids, got {catalog!r}")
    else:
        ids = _ids(pd.Series(list(catalog), dtype=object))
        if len(ids) == 0:
            raise ValueError("catalog must hold at least one item")
    return pd.Index(np.unique(ids.astype(str)), name="item_id")


def _item_codes(catalog: pd.Index, ids: Any, where: str) -> np.ndarray:
    codes = catalog.get_indexer(pd.Index(ids).astype(str))
    if (codes < 0).any():
        missing = sorted({str(item) for item in np.asarray(ids, dtype=object)[codes < 0]})
        raise ValueError(f"{where} holds items outside the catalogue: {missing[:5]}")
    return codes.astype(np.int64)


def _top_k(user: np.ndarray, item: np.ndarray, score: np.ndarray, n_users: int, k: int | None) -> np.ndarray:
    """Each user's items by score descending, ties by item id descending; cut at ``k``."""
    order = np.argsort(-item, kind="stable")           # three stable sorts: np.lexsort's order, faster
    order = order[np.argsort(-score[order], kind="stable")]
    order = order[np.argsort(user[order], kind="stable")]
    user, item = user[order], item[order]
    counts = np.bincount(user, minlength=n_users)
    starts = np.cumsum(counts) - counts
    rank = np.arange(len(user)) - starts[user]
    depth = int(counts.max(initial=0)) if k is None else min(k, int(counts.max(initial=0)))
    keep = rank < depth
    matrix = np.full((n_users, depth), -1, dtype=np.int64)
    matrix[user[keep], rank[keep]] = item[keep]
    return matrix


def _history(user: np.ndarray, item: np.ndarray, n_users: int, n_items: int) -> np.ndarray:
    """The distinct training items of each run user, in catalogue order, ``-1`` padded."""
    ours = user >= 0
    keys = np.unique(user[ours] * n_items + item[ours])
    user, item = keys // n_items, keys % n_items
    return _padded(user, item, n_users)


def _padded(user: np.ndarray, values: np.ndarray, n_users: int) -> np.ndarray:
    """Values grouped by (sorted) user into rows, ``-1`` after each row's last."""
    counts = np.bincount(user, minlength=n_users)
    starts = np.cumsum(counts) - counts
    matrix = np.full((n_users, int(counts.max(initial=0))), -1, dtype=np.int64)
    matrix[user, np.arange(len(user)) - starts[user]] = values
    return matrix


def _relevant(qrels: Any, rel: float, user_ids: pd.Index, catalog: pd.Index, items: np.ndarray) -> np.ndarray:
    if qrels is None:
        return items >= 0
    judged = read_qrels(qrels)
    user = user_ids.get_indexer(pd.Index(judged["query_id"].astype(str)))
    item = catalog.get_indexer(pd.Index(judged["doc_id"].astype(str)))
    ok = (user >= 0) & (item >= 0) & (judged["relevance"].to_numpy(np.float64) >= rel)
    keys = np.unique(user[ok].astype(np.int64) * len(catalog) + item[ok])
    wanted = np.arange(len(user_ids), dtype=np.int64)[:, None] * len(catalog) + items
    return (items >= 0) & np.isin(wanted, keys)


def _features(features: Any, catalog: pd.Index) -> np.ndarray:
    if isinstance(features, Mapping):
        vectors = {str(item): np.asarray(v, dtype=np.float64).ravel() for item, v in features.items()}
        if len({len(v) for v in vectors.values()}) > 1:
            raise ValueError("features must give every item a vector of the same length")
        features = pd.DataFrame(vectors).T
    if not isinstance(features, pd.DataFrame):
        raise ValueError(f"features must be a DataFrame indexed by item id or a dict item -> vector, got {features!r}")
    table = features.set_axis(features.index.astype(str), axis=0)
    if table.index.has_duplicates:
        twice = sorted({str(item) for item in table.index[table.index.duplicated()]})
        raise ValueError(f"features has several vectors for items {twice[:5]}")
    missing = catalog.difference(table.index)
    if len(missing):
        raise ValueError(f"features has no vector for items {[str(item) for item in missing[:5]]}")
    values = table.loc[catalog].to_numpy(dtype=np.float64).T.copy()
    if not np.isfinite(values).all():
        raise ValueError("features must be finite numbers")
    zero = catalog[_norms(values) == 0]
    if len(zero):
        raise ValueError(f"features of items {[str(item) for item in zero[:5]]} are all zero: "
                         "their cosine similarity is undefined")
    return values


# --------------------------------------------------------------------------- similarities


def _norms(features: np.ndarray) -> np.ndarray:
    """sqrt of each column's squares, summed left to right over the features."""
    total = np.zeros(features.shape[1])
    for row in features:
        total += row * row
    return np.sqrt(total)


def _feature_cosine(features: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    norms = _norms(features)

    def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        dot = np.zeros(np.broadcast_shapes(a.shape, b.shape))
        for row in features:
            dot += row[a] * row[b]
        return dot / (norms[a] * norms[b])

    return cosine


def _cooccurrence_cosine(recs: Recommendations, dense: bool):
    """|U_i & U_j| / sqrt(|U_i| |U_j|) over the distinct training (user, item) pairs; ``dense``:
    the counts of every pair of items in one table (a small catalogue), else sorted keys."""
    n = len(recs.catalog)
    keys = np.unique(recs.train_users * n + recs.train_items)
    users, items = keys // n, keys % n
    n_users = np.bincount(items, minlength=n).astype(np.float64)
    first, second = _pairs_within(users)
    ordered = items[first] < items[second]   # each unordered pair of a user's items once
    pair = items[first][ordered] * n + items[second][ordered]
    if dense:
        table = np.bincount(pair, minlength=n * n).reshape(n, n).astype(np.float64)
        both = table + table.T + np.diag(n_users)
    else:
        pair_keys, pair_counts = np.unique(pair, return_counts=True)

    def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a, b = np.broadcast_arrays(a, b)
        if dense:
            shared = both[a, b]
        else:
            wanted = np.minimum(a, b) * n + np.maximum(a, b)
            shared = np.where(a == b, n_users[a], _lookup(pair_keys, pair_counts, wanted))
        scale = np.sqrt(n_users[a] * n_users[b])
        return np.divide(shared, scale, out=np.zeros(a.shape), where=scale > 0)

    return cosine


def _lookup(keys: np.ndarray, values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """``values`` at ``wanted`` in the sorted ``keys``; 0 where a key is absent."""
    if len(keys) == 0:
        return np.zeros(wanted.shape)
    at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    return np.where(keys[at] == wanted, values[at], 0).astype(np.float64)


def _pairs_within(group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j) of positions with ``group[i] == group[j]``, ``group`` sorted: sum of squared sizes."""
    counts = np.bincount(group)[group] if len(group) else np.zeros(0, np.int64)
    starts = np.searchsorted(group, group)
    first = np.repeat(np.arange(len(group)), counts)
    block = np.cumsum(counts) - counts
    second = np.repeat(starts, counts) + np.arange(len(first)) - np.repeat(block, counts)
    return first, second


def _similarity(recs: Recommendations, similarity: str | None):
    """The similarity function of two arrays of item positions; a table when the catalogue is small."""
    if similarity is None:
        similarity = "features" if recs.features is not None else "cooccurrence"
    check_option(similarity, SIMILARITIES, "similarity")
    if similarity == "features":
        if recs.features is None:
            raise ValueError("similarity='features' needs features= in rk.recommendations "
                             "(or similarity='cooccurrence', from the training data)")
        pair = _feature_cosine(recs.features)
    else:
        pair = _cooccurrence_cosine(recs, dense=len(recs.catalog) <= _TABLE_ITEMS)
    n = len(recs.catalog)
    if n > _TABLE_ITEMS:
        return pair
    grid = np.arange(n)
    table = pair(grid[:, None], grid[None, :]).ravel()
    return lambda a, b: table.take(a * n + b, mode="wrap")   # -1 (past a list) wraps; callers mask it


# --------------------------------------------------------------------------- measures of the whole run


def _lists(recs: Recommendations, k: int | None) -> np.ndarray:
    if not isinstance(recs, Recommendations):
        raise ValueError(f"expected the Recommendations rk.recommendations returns, got {type(recs).__name__}")
    return recs.items[:, :check_k(k)]


def _exposure(items: np.ndarray, n_items: int) -> np.ndarray:
    """How many lists show each item."""
    return np.bincount(items[items >= 0], minlength=n_items)


def catalog_coverage(recs: Recommendations, *, k: int | None = None, of: str = "catalog") -> float:
    """Share of the items recommended to at least one user.

    ``coverage = |union of the lists| / |I|``, with ``I`` the catalogue (RecBole's ``ItemCoverage``,
    ``of="catalog"``) or the items of the training data (Microsoft Recommenders'
    ``catalog_coverage``, ``of="train"``; Shani & Gunawardana, "Evaluating Recommendation
    Systems", Recommender Systems Handbook, 2011).

    Parameters
    ----------
    recs : Recommendations
    k : int or None, default=None
        Cutoff; None: the lists as prepared.
    of : {"catalog", "train"}, default="catalog"

    Returns
    -------
    float

    Examples
    --------
    >>> recs = recommendations({"u1": {"a": 2, "b": 1}, "u2": {"a": 1}}, [("u1", "a"), ("u2", "c")],
    ...                        catalog=["a", "b", "c", "d"])
    >>> catalog_coverage(recs), catalog_coverage(recs, of="train")
    (0.5, 1.0)
    """
    items = _lists(recs, k)
    check_option(of, ("catalog", "train"), "of")
    shown = np.count_nonzero(_exposure(items, len(recs.catalog)))
    total = len(recs.catalog) if of == "catalog" else np.count_nonzero(recs.popularity)
    return float(shown / total) if total else math.nan


def exposure_entropy(recs: Recommendations, *, k: int | None = None, base: float = 2.0,
                     per_item: bool = False) -> float:
    """Shannon entropy of the items' share of all recommendations.

    H = -sum_i p(i) log p(i), p(i) = the lists showing item i over all recommendations, summed
    over the items shown in catalogue order. ``base=2`` is Microsoft Recommenders'
    ``distributional_coverage`` (Shani & Gunawardana 2011, eq. 21); ``base=math.e,
    per_item=True`` is RecBole's ``ShannonEntropy``, which divides by the number of distinct
    items shown.

    Parameters
    ----------
    recs : Recommendations
    k : int or None, default=None
    base : float, default=2.0
        Base of the logarithm (> 1).
    per_item : bool, default=False
        Divide by the number of distinct items shown (RecBole).

    Returns
    -------
    float
        0.0 when every list shows one item; nan without any recommendation.

    Examples
    --------
    >>> recs = recommendations({"u1": {"a": 2, "b": 1}, "u2": {"c": 2, "d": 1}}, [("u1", "a")])
    >>> exposure_entropy(recs)
    2.0
    """
    items = _lists(recs, k)
    base = check_positive(base, "base")
    if base <= 1:
        raise ValueError(f"base must be a number > 1, got {base!r}")
    if not isinstance(per_item, (bool, np.bool_)):
        raise ValueError(f"per_item must be True or False, got {per_item!r}")
    counts = _exposure(items, len(recs.catalog))
    shown = counts[counts > 0]
    if not len(shown):
        return math.nan
    p = shown / shown.sum()
    log = log2(p) if base == 2 else ln(p) if base == math.e else ln(p) / ln(np.array([base]))[0]
    entropy = -float(np.cumsum(p * log)[-1])
    return entropy / len(shown) if per_item else entropy


def gini_index(recs: Recommendations, *, k: int | None = None) -> float:
    """Gini index of the exposure of the catalogue's items (0: even; near 1: a few items take all).

    G = sum_{i=1}^{n} (2i - n - 1) c_(i) / (n sum_i c_i), with c_(1) <= ... <= c_(n) the
    number of lists showing each of the n catalogue items, items never shown included
    (RecBole's ``GiniIndex``; Gini's coefficient as in Sun et al., "Are We Evaluating
    Rigorously?", RecSys 2020). Summed in that sorted order.

    Examples
    --------
    >>> recs = recommendations({"u1": {"a": 1}, "u2": {"a": 1}}, [("u1", "a"), ("u1", "b")])
    >>> gini_index(recs)
    0.5
    """
    items = _lists(recs, k)
    counts = np.sort(_exposure(items, len(recs.catalog))).astype(np.float64)
    n = len(counts)
    if not counts.sum():
        return math.nan
    weights = 2 * np.arange(1, n + 1) - n - 1
    return float(np.cumsum(weights * counts)[-1] / (n * counts.sum()))


# --------------------------------------------------------------------------- measures of each list


def _mean_per_user(values: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """Each row's mean of ``values`` where ``counted``, summed along ranks; nan for no entry."""
    total = rank_sum(np.where(counted, values, 0.0))
    n = np.count_nonzero(counted, axis=1)
    return np.divide(total, n, out=np.full(len(values), np.nan), where=n > 0)


def _popularity_values(recs: Recommendations, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return recs.popularity[items].astype(np.float64), items >= 0


def average_popularity(recs: Recommendations, *, k: int | None = None) -> np.ndarray:
    """Average recommendation popularity (ARP) of each user's list.

    ``ARP(u) = sum_{i in L_u} phi(i) / |L_u|``, phi(i) the training interactions of item i (0 for an
    item never seen in training): RecBole's ``AveragePopularity`` (Abdollahpouri et al.,
    "Managing Popularity Bias in Recommender Systems with Personalized Re-ranking", 2019). Not
    the registry's ``ARP`` (:func:`rankkit.metrics.ltr.average_relevance_position`, TensorFlow
    Ranking's average relevance position), which shares the initials.

    Returns
    -------
    ndarray of shape (n_users,)
        nan for an empty list.

    Examples
    --------
    >>> recs = recommendations({"u1": {"a": 2, "b": 1}}, [("u1", "a"), ("u2", "a"), ("u2", "b")])
    >>> average_popularity(recs).tolist()
    [1.5]
    """
    return _mean_per_user(*_popularity_values(recs, _lists(recs, k)))


def _tail_items(recs: Recommendations, tail: float, by: str) -> np.ndarray:
    """Whether each catalogue item is in the long tail."""
    check_option(by, ("share", "count"), "by")
    if by == "count":
        if not (is_int(tail) and tail >= 0):
            raise ValueError(f"tail must be a non-negative integer with by='count', got {tail!r}")
        return recs.popularity <= tail
    tail = check_probability(tail, "tail")
    n = max(int(len(recs.catalog) * tail), 1)
    order = np.lexsort((np.arange(len(recs.catalog)), recs.popularity))   # least popular first, then by id
    flags = np.zeros(len(recs.catalog), dtype=bool)
    flags[order[:n]] = True
    return flags


def _tail_values(recs, items, tail, by) -> tuple[np.ndarray, np.ndarray]:
    return _tail_items(recs, tail, by)[items].astype(np.float64), items >= 0


def long_tail_share(recs: Recommendations, *, k: int | None = None, tail: float = 0.1,
                    by: str = "share") -> np.ndarray:
    """Share of each user's list taken by long-tail items (outside the short head).

    ``tail(u) = |L_u & T| / |L_u|`` (RecBole's ``TailPercentage``). The tail T: with ``by="share"``,
    the ``max(int(n * tail), 1)`` least popular of the catalogue's n items, ties by item id
    (RecBole's ``tail_ratio`` <= 1); with ``by="count"``, the items with at most ``tail``
    training interactions (RecBole's ``tail_ratio`` > 1). RecBole ranks the items of its
    training counter; rankkit ranks the catalogue, items never seen in training first.

    Returns
    -------
    ndarray of shape (n_users,)
        In [0, 1]; nan for an empty list.

    Examples
    --------
    >>> recs = recommendations({"u1": {"a": 2, "b": 1}}, [("u1", "a"), ("u2", "a"), ("u2", "b")])
    >>> long_tail_share(recs, tail=1, by="count").tolist()
    [0.5]
    """
    return _mean_per_user(*_tail_values(recs, _lists(recs, k), tail, by))


def _novelty_values(recs, items, unseen) -> tuple[np.ndarray, np.ndarray]:
    check_option(unseen, ("zero", "skip"), "unseen")
    pop = recs.popularity
    information = -log2(np.where(pop > 0, pop, 1) / max(recs.n_interactions, 1))   # once per catalogue item
    seen = pop[items] > 0
    counted = (items >= 0) & (seen | (unseen == "zero"))
    return np.where(seen, information[items], 0.0), counted


def novelty(recs: Recommendations, *, k: int | None = None, unseen: str = "zero") -> np.ndarray:
    """Mean self-information of the items of each user's list.

    ``novelty(u) = sum_{i in L_u} -log2 p(i) / |L_u|``, p(i) = the item's share of the training
    interactions (Castells, Vargas & Wang, "Novelty and Diversity Metrics for Recommender
    Systems", ECIR 2011; Microsoft Recommenders' ``novelty``). An item never seen in training
    has no finite value: ``unseen="zero"`` counts it as 0 (Microsoft Recommenders' join does),
    ``"skip"`` leaves it out of the mean.

    Returns
    -------
    ndarray of shape (n_users,)
        nan for an empty list.

    Examples
    --------
    >>> recs = recommendations({"u1": {"a": 2, "b": 1}}, [("u1", "a"), ("u2", "a"), ("u2", "b"), ("u3", "c")])
    >>> novelty(recs).tolist()
    [1.5]
    """
    return _mean_per_user(*_novelty_values(recs, _lists(recs, k), unseen))


def intra_list_diversity(recs: Recommendations, *, k: int | None = None, similarity: str | None = None) -> np.ndarray:
    """Intra-list diversity of each user's list: 1 - the mean similarity of its pairs of items.

    ``ILD(u) = 1 - sum_{i<j in L_u} sim(i, j) / (|L_u| (|L_u| - 1) / 2)``, sim the cosine of the
    items' feature vectors (``similarity="features"``) or of their training users
    (``"cooccurrence"``, Microsoft Recommenders' default); Ziegler et al., "Improving
    Recommendation Lists Through Topic Diversification", WWW 2005; Microsoft Recommenders'
    ``user_diversity``. Summed rank by rank (the pairs of rank 1, then of rank 2, ...).

    Parameters
    ----------
    recs : Recommendations
    k : int or None, default=None
    similarity : {"features", "cooccurrence"} or None, default=None
        None: ``"features"`` when ``recs`` holds item features, else ``"cooccurrence"``.

    Returns
    -------
    ndarray of shape (n_users,)
        nan for a list of fewer than two items (Microsoft Recommenders leaves such users out).

    Examples
    --------
    >>> features = {"a": [1, 0], "b": [0, 1], "c": [1, 1]}
    >>> recs = recommendations({"u1": {"a": 2, "b": 1}, "u2": {"a": 2, "c": 1}}, [("u1", "a")],
    ...                        catalog=features, features=features)
    >>> intra_list_diversity(recs).round(4).tolist()
    [1.0, 0.2929]
    """
    items = _lists(recs, k)
    sim = _similarity(recs, similarity)
    n_users, depth = items.shape
    total, pairs = np.zeros(n_users), np.zeros(n_users, dtype=np.int64)
    valid = items >= 0
    for rank in range(depth - 1):
        both = valid[:, rank:rank + 1] & valid[:, rank + 1:]
        values = np.where(both, sim(items[:, rank:rank + 1], items[:, rank + 1:]), 0.0)
        total += rank_sum(values)
        pairs += np.count_nonzero(both, axis=1)
    mean = np.divide(total, pairs, out=np.full(n_users, np.nan), where=pairs > 0)
    return 1.0 - mean


def serendipity(recs: Recommendations, *, k: int | None = None, similarity: str | None = None) -> np.ndarray:
    """Serendipity of each user's list: relevant items unlike what the user saw in training.

    ``ser(u, i) = (1 - sum_{j in H_u} sim(i, j) / |H_u|) rel(u, i)``, H_u the user's training items,
    rel 1 when the item is judged relevant (1 for every item without judgments); ser(u) is the
    mean over the list (Zhang et al., "Auralist: Introducing Serendipity into Music
    Recommendation", WSDM 2012; Microsoft Recommenders' ``user_serendipity``). sim as in
    :func:`intra_list_diversity`.

    Returns
    -------
    ndarray of shape (n_users,)
        nan for an empty list or a user without training items (Microsoft Recommenders
        leaves such users out).

    Examples
    --------
    >>> features = {"a": [1, 0], "b": [0, 1], "c": [1, 1]}
    >>> recs = recommendations({"u1": {"b": 2, "c": 1}}, [("u1", "a")], features=features,
    ...                        qrels={"u1": {"b": 1, "c": 1}})
    >>> serendipity(recs).round(4).tolist()
    [0.6464]
    """
    items = _lists(recs, k)
    sim = _similarity(recs, similarity)
    history = recs.history
    seen = history >= 0
    n_history = np.count_nonzero(seen, axis=1)
    n_users, depth = items.shape
    total = np.zeros(n_users)
    for rank in range(depth):
        item = items[:, rank:rank + 1]
        values = np.where(seen, sim(item, history), 0.0)
        summed = rank_sum(values)
        mean = np.divide(summed, n_history, out=np.zeros(n_users), where=n_history > 0)
        total += np.where(recs.relevant[:, rank] & (item[:, 0] >= 0), 1.0 - mean, 0.0)
    lengths = np.count_nonzero(items >= 0, axis=1)
    return np.divide(total, lengths, out=np.full(n_users, np.nan), where=(lengths > 0) & (n_history > 0))


# --------------------------------------------------------------------------- every measure at once

#: What :func:`beyond_accuracy` reports, in order.
MEASURES = ("coverage", "entropy", "gini", "ARP", "long_tail", "novelty", "ILD", "serendipity")


def beyond_accuracy(recs: Recommendations, *, k: int | None = None, similarity: str | None = None,
                    coverage_of: str = "catalog", base: float = 2.0, per_item: bool = False, tail: float = 0.1,
                    tail_by: str = "share", unseen: str = "zero", average: str = "users") -> pd.Series:
    """Every measure beyond accuracy of a run, one value each.

    ``coverage`` (:func:`catalog_coverage`), ``entropy`` (:func:`exposure_entropy`), ``gini``
    (:func:`gini_index`) describe the whole run; ``ARP`` (:func:`average_popularity`),
    ``long_tail`` (:func:`long_tail_share`), ``novelty``, ``ILD`` (:func:`intra_list_diversity`)
    and ``serendipity`` are means over users, each function's parameters passed on
    (``coverage_of`` is ``of``, ``tail_by`` is ``by``).

    Parameters
    ----------
    average : {"users", "recommendations"}, default="users"
        ``ARP``, ``long_tail`` and ``novelty`` as the mean of the users' values (RecBole) or
        over every recommendation at once (Microsoft Recommenders' ``novelty``): the two
        differ when lists differ in length. ``ILD`` and ``serendipity`` are means over the
        users that have a value, as Microsoft Recommenders' ``diversity`` and ``serendipity``.

    Returns
    -------
    pandas.Series
        Indexed by ``rankkit.recommender.MEASURES``: coverage, entropy, gini, ARP, long_tail, novelty, ILD, serendipity.

    Examples
    --------
    >>> recs = recommendations({"u1": {"a": 2, "b": 1}, "u2": {"a": 2, "c": 1}},
    ...                        [("u1", "a"), ("u2", "a"), ("u2", "b")])
    >>> beyond_accuracy(recs)[["coverage", "ARP"]].tolist()
    [1.0, 1.25]
    """
    items = _lists(recs, k)
    check_option(average, ("users", "recommendations"), "average")
    values = {"coverage": catalog_coverage(recs, k=k, of=coverage_of),
              "entropy": exposure_entropy(recs, k=k, base=base, per_item=per_item),
              "gini": gini_index(recs, k=k)}
    per_item_values = {"ARP": _popularity_values(recs, items), "long_tail": _tail_values(recs, items, tail, tail_by),
                       "novelty": _novelty_values(recs, items, unseen)}
    for name, (item_values, counted) in per_item_values.items():
        if average == "users":
            values[name] = _mean_of_users(_mean_per_user(item_values, counted))
        else:
            n = np.count_nonzero(counted)
            values[name] = float(np.cumsum(item_values[counted])[-1] / n) if n else math.nan
    values["ILD"] = _mean_of_users(intra_list_diversity(recs, k=k, similarity=similarity))
    values["serendipity"] = _mean_of_users(serendipity(recs, k=k, similarity=similarity))
    return pd.Series(values, name="value", dtype=np.float64).reindex(list(MEASURES))


def _mean_of_users(values: np.ndarray) -> float:
    """The mean over the users with a value, summed in the users' order."""
    kept = values[~np.isnan(values)]
    return float(np.cumsum(kept)[-1] / len(kept)) if len(kept) else math.nan
