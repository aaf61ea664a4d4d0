"""The join alone, by rankkit and by the general-purpose engines it could have used.

The join is the step between reading and the metrics: each retrieved document gets its
judged label, and each query's documents are put in rank order (score descending, then
document id descending in byte order: trec_eval's order). rankkit does it with 64-bit
document keys and NumPy (``rankkit.join.rank_frames``); the alternatives do the same with
a left join on (query, document) and a three-key sort:

pyarrow  ``Table.join(..., join_type="left outer")`` then ``Table.sort_by``
polars   ``DataFrame.join(..., how="left")`` then ``DataFrame.sort`` (if installed)
duckdb   ``SELECT ... LEFT JOIN ... USING (query_id, doc_id) ORDER BY ...`` (if installed)

Every tool starts from the same two Arrow tables in memory (nothing read from disk inside
the clock) and is timed cold: fresh tables each round, so no key or index built in an
earlier round is reused. rankkit is timed twice: from the tables through its readers, which
also check the input (no document twice for a query, finite scores; the engines check
nothing), and its join alone on frames read outside the clock (document keys included).
The engines use both cores where they can; rankkit's join uses one. Each result, the label
of every rank of every query, is checked equal to rankkit's before any time is printed. One
process, interleaved rounds, medians::

    python benchmarks/bench_join.py                    # 10,000 queries x 1,000 documents
    python benchmarks/bench_join.py --docs 100 --repeat 5

polars and duckdb come with the ``bench`` extra (``pip install -e ".[bench]"``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).parent))
from bench_evaluate import as_frame, ensure_data, read_tables  # noqa: E402

import rankkit as rk  # noqa: E402
from rankkit.io import keys as _keys  # noqa: E402
from rankkit.join import rank_frames  # noqa: E402

ORDER = [("query_id", "ascending"), ("score", "descending"), ("doc_id", "descending")]


def fresh(table: pa.Table) -> pa.Table:
    """The same table in new buffers (an Arrow IPC round trip): no cache keyed on an array
    recognises it."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return pa.ipc.open_stream(sink.getvalue()).read_all()


def by_rankkit(qrels: pa.Table, run: pa.Table) -> np.ndarray:
    """Labels in rank order: rankkit's readers on the frames (which check them: no
    duplicate pair, finite scores), then its join."""
    return _labels_of(rank_frames(rk.read_qrels(as_frame(qrels, "str")), rk.read_run(as_frame(run, "str"))))


def read_for_join(qrels: pa.Table, run: pa.Table) -> tuple:
    """The frames rankkit's join takes, read outside the clock, with the document keys
    their check built forgotten: the join alone then costs what it costs on a new run."""
    frames = rk.read_qrels(as_frame(qrels, "str")), rk.read_run(as_frame(run, "str"))
    _keys._BUILT.clear()
    return frames


def by_rankkit_join(qrels: pd.DataFrame, run: pd.DataFrame) -> np.ndarray:
    """rankkit's join alone (keys, lookup, order, ties, matrices) on frames already read."""
    return _labels_of(rank_frames(qrels, run))


def _labels_of(ranked) -> np.ndarray:
    return ranked.labels[np.arange(ranked.labels.shape[1]) < ranked.lengths[:, None]]


def by_pyarrow(qrels: pa.Table, run: pa.Table) -> np.ndarray:
    joined = run.join(qrels, keys=["query_id", "doc_id"], join_type="left outer")
    ordered = joined.sort_by(ORDER)
    return _labels(ordered["relevance"])


def by_polars(qrels: pa.Table, run: pa.Table) -> np.ndarray:
    import polars as pl
    joined = pl.from_arrow(run).join(pl.from_arrow(qrels), on=["query_id", "doc_id"], how="left")
    ordered = joined.sort(["query_id", "score", "doc_id"], descending=[False, True, True])
    return _labels(ordered["relevance"].to_arrow())


def by_duckdb(qrels: pa.Table, run: pa.Table) -> np.ndarray:
    import duckdb
    with duckdb.connect() as con:
        con.register("run", run)
        con.register("qrels", qrels)
        result = con.sql("SELECT relevance FROM run LEFT JOIN qrels USING (query_id, doc_id) "
                         "ORDER BY query_id, score DESC, doc_id DESC")
        ordered = result.to_arrow_table() if hasattr(result, "to_arrow_table") else result.arrow()
    return _labels(ordered["relevance"])


def _labels(relevance) -> np.ndarray:
    """Unjudged (null) and "pooled but not judged" (< 0) documents count 0, as in rankkit."""
    values = relevance.to_numpy(zero_copy_only=False).astype(np.float64)
    return np.maximum(np.nan_to_num(values, nan=0.0), 0.0)


def available() -> dict:
    """name -> (function, how its inputs are made from the two Arrow tables, off the clock)."""
    tools = {"rankkit": (by_rankkit, fresh_tables), "rankkit, join alone": (by_rankkit_join, read_for_join),
             "pyarrow": (by_pyarrow, fresh_tables)}
    for name, fn in (("polars", by_polars), ("duckdb", by_duckdb)):
        try:
            __import__(name)
        except ImportError:
            print(f"({name} is not installed: skipped)")
        else:
            tools[name] = fn, fresh_tables
    return tools


def fresh_tables(qrels: pa.Table, run: pa.Table) -> tuple:
    return fresh(qrels), fresh(run)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--ids", default="short", help="id shape of generate.py (short, numeric, medium, clueweb)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=Path(__file__).parent / "_data")
    args = parser.parse_args(argv)
    args.data.mkdir(exist_ok=True)
    qrels, run = read_tables(*ensure_data(args.queries, args.docs, args.data, args.ids))
    tools = available()
    want = by_rankkit(qrels, run)
    for name, (fn, make) in tools.items():  # warm up (imports) and check every tool's labels
        assert np.array_equal(fn(*make(qrels, run)), want), f"{name}: labels differ from rankkit's"
    times = {name: [] for name in tools}
    for _ in range(args.repeat):
        for name, (fn, make) in tools.items():
            inputs = make(qrels, run)
            start = time.perf_counter()
            fn(*inputs)
            times[name].append(time.perf_counter() - start)
            del inputs
    load = os.getloadavg()[0]
    print(f"\njoin + rank order, {len(run):,} run lines, {len(qrels):,} judgments ({args.ids} ids); "
          f"median of {args.repeat}; load {load:.1f} on {os.cpu_count()} CPUs; labels equal in every tool")
    base = statistics.median(times["rankkit"])
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<20} {median:7.2f} s   {median / base:5.1f}x rankkit   "
              f"({', '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    main()
