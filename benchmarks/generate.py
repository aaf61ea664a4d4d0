"""Generate a synthetic TREC qrels file and run file for the benchmarks.

Fixed seed, ``N`` queries x ``M`` retrieved documents, graded labels 0-3, tied scores
(scores are rounded to 3 decimals, so about one document in twenty shares its score with
another), and judged documents that the run did not retrieve. Query ids are ``1..N`` written
in numeric order (which is not trec_eval's string order). Documents are drawn from a shared
corpus of numbered documents; ``--ids`` says how document ``n`` is spelled (:data:`ID_SHAPES`):

    short     D<n>                       D1441856       (today's ids; 2-8 bytes)
    numeric   <n>                        1441856        (MS MARCO style; 1-7 bytes)
    medium    <collection><number>       FBIS3-360474   (TREC disks 4-5 style; 8-12 bytes)
    clueweb   clueweb12-<dir>tw-<file>-<doc>  clueweb12-1776tw-52-00007  (25 bytes)

None is zero-padded to a common width except ClueWeb's fields, so byte order differs from
numeric order. The shape only renames documents: every shape has the same queries, labels,
scores and judged documents, and the run is ordered like a real run (score descending, then
document id descending in byte order, trec_eval's tie order)::

    python benchmarks/generate.py                    # 10,000 x 1,000: 327 MB run, 29 MB qrels
    python benchmarks/generate.py -n 1000 -m 100 --ids clueweb --out /tmp/small

writes ``qrels_<N>x<M>_<ids>.txt`` (``qid 0 doc rel``) and ``run_<N>x<M>_<ids>.txt``
(``qid Q0 doc rank score tag``) into ``--out`` (default ``benchmarks/_data/``, which git
ignores). Same arguments, same bytes; ``--ids short`` writes the bytes this script wrote
before it had ``--ids``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as csv

ID_SHAPES = ("short", "numeric", "medium", "clueweb")
# medium: one of four TREC disks 4-5 collection prefixes (6 bytes) and a number of 2-6 digits.
MEDIUM_PREFIXES = ("FBIS3-", "FBIS4-", "FT921-", "FT944-")
CLUEWEB_DIRS = 1915  # ClueWeb12 has segment directories 0000..1914


def _text(numbers: np.ndarray, width: int = 0) -> pa.Array:
    text = pc.cast(pa.array(numbers), pa.string())
    return pc.utf8_lpad(text, width, "0") if width else text


def doc_names(numbers: np.ndarray, ids: str) -> pa.Array:
    """Document ids of corpus numbers ``numbers``, spelled as shape ``ids``."""
    if ids == "short":
        return pc.binary_join_element_wise("D", _text(numbers), "")
    if ids == "numeric":
        return _text(numbers)
    if ids == "medium":
        prefix = pc.take(pa.array(MEDIUM_PREFIXES), pa.array(numbers % len(MEDIUM_PREFIXES)))
        return pc.binary_join_element_wise(prefix, _text(numbers // len(MEDIUM_PREFIXES) + 10), "")
    if ids == "clueweb":  # n = dir + 1915 * (file + 100 * doc): neighbours differ early, like a real run
        rest = numbers // CLUEWEB_DIRS
        return pc.binary_join_element_wise("clueweb12-", _text(numbers % CLUEWEB_DIRS, 4), "tw-",
                                           _text(rest % 100, 2), "-", _text(rest // 100, 5), "")
    raise ValueError(f"ids must be one of {ID_SHAPES}, got {ids!r}")


def byte_order(numbers: np.ndarray, ids: str) -> np.ndarray:
    """For each corpus number, the position of its document id in byte order (a sort key)."""
    unique, where = np.unique(numbers, return_inverse=True)
    position = np.empty(len(unique), dtype=np.int64)
    position[pc.sort_indices(doc_names(unique, ids)).to_numpy()] = np.arange(len(unique))
    return position[where].reshape(numbers.shape)


def generate(n_queries: int, n_docs: int, *, corpus: int, judged_top: int, judged_rest: float,
             unretrieved: int, seed: int, ids: str = "short"):
    """Return (qrels, run) as pyarrow Tables with the columns of the TREC files."""
    rng = np.random.default_rng(seed)
    if corpus < n_docs + unretrieved:
        raise ValueError(f"corpus must be at least n_docs + unretrieved = {n_docs + unretrieved}, got {corpus}")
    # Distinct documents per query: sample with replacement, keep the first n_docs + unretrieved distinct.
    need = n_docs + unretrieved
    docs = np.empty((n_queries, need), dtype=np.int64)
    for q in range(n_queries):
        draw = rng.integers(0, corpus, size=int(need * 1.2) + 16)
        _, first = np.unique(draw, return_index=True)
        while len(first) < need:  # pragma: no cover - only for tiny corpora
            draw = np.concatenate([draw, rng.integers(0, corpus, size=need)])
            _, first = np.unique(draw, return_index=True)
        docs[q] = draw[np.sort(first)[:need]]
    retrieved, extra = docs[:, :n_docs], docs[:, n_docs:]

    # A latent grade 0-3 for every document; relevant ones are rarer and score higher.
    grades = rng.choice(4, size=docs.shape, p=[0.70, 0.15, 0.10, 0.05])
    noise = rng.normal(0.0, 1.0, size=retrieved.shape)
    scores = np.round(10.0 + 0.8 * grades[:, :n_docs] + noise, 3)

    # Order each query like a real run: score descending, then doc id descending (byte order).
    order = np.lexsort((byte_order(retrieved, ids), scores), axis=1)[:, ::-1]
    retrieved = np.take_along_axis(retrieved, order, axis=1)
    scores = np.take_along_axis(scores, order, axis=1)
    run_grades = np.take_along_axis(grades[:, :n_docs], order, axis=1)

    # Judged: the top judged_top of the run (the "pool"), a fraction of the rest, and
    # every one of the `unretrieved` extra documents.
    rank = np.broadcast_to(np.arange(n_docs), retrieved.shape)
    judged = (rank < judged_top) | (rng.random(retrieved.shape) < judged_rest)
    qids = np.arange(1, n_queries + 1)

    run = pa.table({
        "query_id": np.repeat(qids, n_docs),
        "q0": pa.array(["Q0"] * (n_queries * n_docs)).dictionary_encode(),
        "doc_id": doc_names(retrieved.ravel(), ids),
        "rank": np.tile(np.arange(1, n_docs + 1), n_queries),
        "score": pc.cast(pa.array(scores.ravel()), pa.string()),
        "tag": pa.array(["bench"] * (n_queries * n_docs)).dictionary_encode(),
    })
    q_ret, d_ret = np.nonzero(judged)
    q_docs = np.concatenate([retrieved[q_ret, d_ret], extra.ravel()])
    q_query = np.concatenate([q_ret, np.repeat(np.arange(n_queries), unretrieved)])
    q_label = np.concatenate([run_grades[q_ret, d_ret], grades[:, n_docs:].ravel()])
    order = np.lexsort((q_docs, q_query))
    qrels = pa.table({
        "query_id": qids[q_query[order]],
        "iter": np.zeros(len(order), dtype=np.int8),
        "doc_id": doc_names(q_docs[order], ids),
        "relevance": q_label[order],
    })
    return qrels, run


def write(table: pa.Table, path: Path) -> None:
    """Write space-separated lines without header or quotes (the TREC format)."""
    options = csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    csv.write_csv(table, str(path), write_options=options)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--queries", type=int, default=10_000, help="number of queries (10,000)")
    parser.add_argument("-m", "--docs", type=int, default=1_000, help="documents retrieved per query (1,000)")
    parser.add_argument("--corpus", type=int, default=2_000_000, help="corpus size documents are drawn from")
    parser.add_argument("--judged-top", type=int, default=50, help="top ranks judged in every query (50)")
    parser.add_argument("--judged-rest", type=float, default=0.1, help="fraction of lower ranks judged (0.1)")
    parser.add_argument("--unretrieved", type=int, default=25, help="judged documents per query the run misses (25)")
    parser.add_argument("--ids", choices=ID_SHAPES, default="short",
                        help="how document ids are spelled: D<n>, <n>, FBIS3-<n>-like or ClueWeb12-like (short)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "_data")
    args = parser.parse_args(argv)
    qrels, run = generate(args.queries, args.docs, corpus=args.corpus, judged_top=args.judged_top,
                          judged_rest=args.judged_rest, unretrieved=args.unretrieved, seed=args.seed,
                          ids=args.ids)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = f"{args.queries}x{args.docs}_{args.ids}"
    for name, table in (("qrels", qrels), ("run", run)):
        path = args.out / f"{name}_{stem}.txt"
        write(table, path)
        print(f"{path}  {table.num_rows:,} lines  {path.stat().st_size / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
