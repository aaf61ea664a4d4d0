"""Time rankkit.compare: 5 systems x 10,000 queries x 3 metrics, 10,000 resamples.

Synthetic, seeded per-query tables (no qrels needed): each system's scores are a
shared per-query difficulty plus a system effect plus noise, clipped to [0, 1].
Every pair of systems is compared (baseline=None: 10 pairs x 3 metrics = 30 tests),
then every system against the first (4 x 3 = 12 tests). For scale, scipy's
permutation_test and bootstrap are timed on ONE of those comparisons (batch=500 to
bound memory), and the per-comparison ratio is printed (skip with --no-scipy).

    python benchmarks/bench_compare.py [--queries N] [--resamples B] [--repeat R] [--no-scipy]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from scipy import stats

from rankkit.stats import compare

METRICS = ["nDCG@10", "AP", "P@10"]


def tables(n_systems: int = 5, n_queries: int = 10_000, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    index = pd.Index([f"q{i}" for i in range(n_queries)], name="query_id")
    difficulty = rng.random((n_queries, len(METRICS)))
    out = {}
    for s in range(n_systems):
        effect = 0.005 * s
        values = np.clip(difficulty + effect + rng.normal(0, 0.15, difficulty.shape), 0, 1)
        out[f"system{s}"] = pd.DataFrame(values, index=index, columns=METRICS)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-scipy", action="store_true", help="skip timing scipy")
    args = parser.parse_args()
    runs = tables(n_queries=args.queries)
    best = {}
    for test in ("randomization", "bootstrap", "t"):
        for baseline in (None, "system0"):
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                table = compare(None, runs, METRICS, baseline=baseline, test=test,
                                n_resamples=args.resamples, seed=0)
                times.append(time.perf_counter() - start)
            best[test, baseline] = min(times) / len(table)
            label = "all pairs" if baseline is None else "vs system0"
            print(f"compare(test={test!r:15}) {label:10} {len(table):3d} comparisons, "
                  f"{args.queries} queries, {args.resamples} resamples: "
                  f"first {times[0]:.2f} s, best {min(times):.2f} s of {args.repeat}")
    if args.no_scipy:
        return
    a = runs["system1"]["AP"].to_numpy()
    b = runs["system0"]["AP"].to_numpy()
    start = time.perf_counter()
    stats.permutation_test((a, b), lambda x, y, axis: np.mean(x - y, axis=axis),
                           permutation_type="samples", vectorized=True,
                           n_resamples=args.resamples, batch=500, random_state=np.random.default_rng(0))
    perm = time.perf_counter() - start
    start = time.perf_counter()
    stats.bootstrap((a - b,), np.mean, n_resamples=args.resamples, batch=500,
                    vectorized=True, random_state=np.random.default_rng(0))
    boot = time.perf_counter() - start
    for name, seconds, test in (("permutation_test", perm, "randomization"),
                                ("bootstrap (BCa)", boot, "bootstrap")):
        ours = best[test, None]
        print(f"scipy.stats.{name:17} 1 comparison: {seconds:.2f} s; rankkit "
              f"{ours:.3f} s per comparison (all pairs): {seconds / ours:.0f}x faster")


if __name__ == "__main__":
    main()
