"""Time rankkit.dask on a local cluster against rk.evaluate in memory.

A generated run (``generate.py``: N queries x M documents, ``short`` ids) is cut into
``--files`` files at line boundaries, so that queries straddle two files, as the shards of
a real run do. Five measures per query (nDCG@10, AP, RR, P@10, R@100), each scenario in a
fresh process, rounds interleaved:

- ``memory``: ``rk.evaluate(qrels_path, run_path, metrics)`` on the one run file;
- ``dask``: ``rankkit.dask.compute(rankkit.dask.evaluate(read_qrels(qrels_path),
  read_run("run-*.txt"), metrics))`` on a ``LocalCluster(n_workers=2, threads_per_worker=1)``
  (worker processes), started before the clock starts; ``--shuffle tasks,p2p`` times both
  shuffle methods.

Peak memory is each process's ``VmHWM`` (``/proc/<pid>/status``, reset by ``exec``): the
in-memory process's own; for Dask, the client process plus every worker's, read after the
run (the workers are fresh processes per round, the nanny and scheduler not counted, ~100 MB
each). Every Dask result must equal rk.evaluate's frame bit for bit (``check_exact``), or the
script exits with status 1.

    python benchmarks/bench_dask.py                               # 10,000 x 1,000, 3 rounds
    python benchmarks/bench_dask.py --queries 30000 --repeat 1    # 30M lines
    python benchmarks/bench_dask.py --queries 200 --docs 100 --repeat 1   # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
METRICS = ["nDCG@10", "AP", "RR", "P@10", "R@100"]


def vmhwm(pid: int | str = "self") -> int:
    """Peak resident memory of a process, in bytes (``VmHWM``)."""
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))


def data(args) -> tuple[Path, Path, Path]:
    """The qrels and run files (generated on first use) and the folder of run shards."""
    stem = f"{args.queries}x{args.docs}_short"
    qrels, run = args.data / f"qrels_{stem}.txt", args.data / f"run_{stem}.txt"
    if not (qrels.exists() and run.exists()):
        subprocess.run([sys.executable, str(HERE / "generate.py"), "-n", str(args.queries), "-m", str(args.docs),
                        "--out", str(args.data)], check=True)
    shards = args.data / f"dask_{stem}_{args.files}"
    if not shards.exists():
        shards.mkdir()
        lines = sum(1 for _ in open(run, "rb"))
        per = -(-lines // args.files)
        with open(run, "rb") as f:
            for i in range(args.files):
                with open(shards / f"run-{i:02d}.txt", "wb") as out:
                    out.writelines(line for _, line in zip(range(per), f))
    return qrels, run, shards


def child_memory(qrels: str, run: str, out: str) -> dict:
    import rankkit as rk

    start = time.perf_counter()
    table = rk.evaluate(qrels, run, METRICS)
    seconds = time.perf_counter() - start
    table.to_pickle(out)
    return {"seconds": seconds, "peak": vmhwm()}


def child_dask(qrels: str, shards: str, out: str, shuffle: str, workers: int) -> dict:
    import importlib
    import logging

    from distributed import Client, LocalCluster

    import rankkit.dask as rd

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        client.run(importlib.import_module, "rankkit.dask")  # workers up, rankkit imported (as in memory)
        start = time.perf_counter()
        table = rd.compute(rd.evaluate(rd.read_qrels(qrels), rd.read_run(f"{shards}/run-*.txt"), METRICS,
                                       shuffle=shuffle))
        seconds = time.perf_counter() - start
        peaks = client.run(vmhwm)
    table.to_pickle(out)
    return {"seconds": seconds, "peak": vmhwm() + sum(peaks.values()), "client": vmhwm(),
            "workers": sorted(peaks.values())}


def run_child(scenario: list[str]) -> dict:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([sys.executable, __file__, "--child", *scenario], check=True, capture_output=True,
                          text=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--queries", type=int, default=10_000)
    parser.add_argument("-m", "--docs", type=int, default=1_000)
    parser.add_argument("--files", type=int, default=8, help="run shards (8)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--shuffle", default="tasks,p2p", help="Dask shuffle methods to time (tasks,p2p)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=HERE / "_data")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        result = child_memory(*rest) if kind == "memory" else child_dask(*rest[:3], rest[3], int(rest[4]))
        print(json.dumps(result))
        return 0
    import pandas as pd

    qrels, run, shards = data(args)
    print(f"{run.name}: {args.queries:,} queries x {args.docs:,} documents, {args.files} shards; "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    methods = args.shuffle.split(",")
    results: dict[str, list] = {"memory": [], **{f"dask-{m}": [] for m in methods}}
    with tempfile.TemporaryDirectory() as tmp:
        want = Path(tmp) / "want.pkl"
        for round_ in range(args.repeat):
            results["memory"].append(run_child(["memory", str(qrels), str(run), str(want)]))
            expected = pd.read_pickle(want)
            for method in methods:
                got = Path(tmp) / f"{method}.pkl"
                results[f"dask-{method}"].append(run_child(["dask", str(qrels), str(shards), str(got), method,
                                                            str(args.workers)]))
                table = pd.read_pickle(got)
                pd.testing.assert_frame_equal(table, expected, check_exact=True)
                assert table.attrs == expected.attrs
            print(f"round {round_ + 1}: " + ", ".join(f"{k} {v[-1]['seconds']:.2f} s" for k, v in results.items()),
                  flush=True)
    print(f"\nmedian of {args.repeat} (load {os.getloadavg()[0]:.2f}); "
          "every Dask table equal to rk.evaluate's, bit for bit")
    base = statistics.median(r["seconds"] for r in results["memory"])
    for name, rows in results.items():
        seconds = statistics.median(r["seconds"] for r in rows)
        peak = statistics.median(r["peak"] for r in rows) / 2**20
        detail = ""
        if "workers" in rows[0]:
            detail = (f" (client {rows[0]['client'] / 2**20:.0f} MiB + workers "
                      f"{' + '.join(f'{w / 2**20:.0f}' for w in rows[0]['workers'])} MiB, round 1)")
        print(f"{name:12} {seconds:7.2f} s  {seconds / base:5.2f}x  peak {peak:7.0f} MiB{detail}  "
              f"runs: {' / '.join(format(r['seconds'], '.2f') for r in rows)}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
