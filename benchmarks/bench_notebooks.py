"""Time every notebook: kernel start, cells, and ``jupyter nbconvert --execute`` as a whole.

    python benchmarks/bench_notebooks.py                    # all notebooks, 3 rounds, medians
    python benchmarks/bench_notebooks.py 03 07 --repeat 5   # some notebooks
    python benchmarks/bench_notebooks.py --cells 5          # and each notebook's 5 slowest cells

Nothing is written into the repository: executed copies go to a temporary folder. The
kernel imports this checkout's ``rankkit`` (the repository root is put first on
PYTHONPATH). Timings are wall-clock and depend on the machine's load: the script prints
the load average before and after; compare numbers from the same run only. CI does not
run this (a timed test would make CI depend on the clock).

Columns (medians over ``--repeat`` rounds; the rounds interleave the notebooks):

- ``nbconvert``: wall time of ``python -m jupyter nbconvert --to notebook --execute`` on
  the notebook, one process per notebook as a person runs it (process start, nbconvert's
  own imports, kernel start, cells, shutdown, writing the copy);
- ``nbconvert CPU``: CPU seconds (user + system) of that run, nbconvert and its kernel
  together: what the wall time would be on an idle machine, roughly, since the work is
  single-threaded (numpy may use a second core briefly); less sensitive to other load;
- ``kernel``: starting a kernel until it answers (``NotebookClient.setup_kernel``);
- ``cells``: executing all cells in that kernel, measured in this process (imports of the
  first cell included);
- ``slowest``: the slowest cell and its time.

The first row, ``(empty notebook)``, is the fixed cost of one nbconvert run: a notebook
with the single cell ``pass``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.setdefault("MPLBACKEND", "Agg")
    return env


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's finished children and theirs."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_nbconvert(path: Path, out: Path, env: dict[str, str]) -> tuple[float, float]:
    cmd = [sys.executable, "-m", "jupyter", "nbconvert", "--log-level=ERROR", "--to", "notebook",
           "--execute", "--ExecutePreprocessor.store_widget_state=False", "--output-dir", str(out), str(path)]
    cpu, start = children_cpu(), time.perf_counter()
    subprocess.run(cmd, env=env, cwd=path.parent, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, children_cpu() - cpu


def time_in_process(path: Path) -> tuple[float, float, list[tuple[float, int, str]]]:
    """Kernel start, all cells, and each code cell's time, in a kernel started from here."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.reset_execution_trackers()
    per_cell = []
    start = time.perf_counter()
    with client.setup_kernel(cwd=str(path.parent)):
        ready = time.perf_counter()
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            t = time.perf_counter()
            client.execute_cell(cell, index)
            first = cell.source.splitlines()[0] if cell.source else ""
            per_cell.append((time.perf_counter() - t, index, first))
        done = time.perf_counter()
    return ready - start, done - ready, per_cell


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="number prefixes (e.g. 03 07); default: all")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (median reported; default 3)")
    parser.add_argument("--cells", type=int, default=0, help="also list each notebook's N slowest cells")
    parser.add_argument("--no-nbconvert", action="store_true", help="skip the nbconvert runs (kernel and cells only)")
    args = parser.parse_args(argv)

    os.environ.update(environment())   # the kernels started from this process inherit it
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if args.notebooks:
        paths = [p for p in paths if p.name[:2] in set(args.notebooks)]
    results: dict[str, dict[str, list]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        empty = out / "empty" / "empty.ipynb"
        empty.parent.mkdir()
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, empty)
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        for _ in range(args.repeat):
            for path in [empty, *paths]:
                r = results.setdefault(path.stem if path is not empty else "(empty notebook)",
                                       {"nbconvert": [], "cpu": [], "kernel": [], "cells": [], "per_cell": []})
                if not args.no_nbconvert:
                    wall, cpu = time_nbconvert(path, out, os.environ.copy())
                    r["nbconvert"].append(wall)
                    r["cpu"].append(cpu)
                kernel, cells, per_cell = time_in_process(path)
                r["kernel"].append(kernel)
                r["cells"].append(cells)
                r["per_cell"].append(per_cell)
        print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    med = statistics.median
    print(f"\nmedians of {args.repeat} rounds (s)\n")
    print("| notebook | nbconvert | nbconvert CPU | kernel | cells | kernel + cells | slowest cell |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for name, r in results.items():
        n_cells = len(r["per_cell"][0])
        cell_medians = sorted(((med(run[i][0] for run in r["per_cell"]), r["per_cell"][0][i][1], r["per_cell"][0][i][2])
                               for i in range(n_cells)), reverse=True)
        nbc = f"{med(r['nbconvert']):.2f} | {med(r['cpu']):.2f}" if r["nbconvert"] else "- | -"
        slow = cell_medians[0]
        print(f"| {name} | {nbc} | {med(r['kernel']):.2f} | {med(r['cells']):.2f} | "
              f"{med(k + c for k, c in zip(r['kernel'], r['cells'])):.2f} | [{slow[1]}] {slow[0]:.2f} |")
    if args.cells:
        for name, r in results.items():
            n_cells = len(r["per_cell"][0])
            cell_medians = sorted(((med(run[i][0] for run in r["per_cell"]), r["per_cell"][0][i][1],
                                    r["per_cell"][0][i][2]) for i in range(n_cells)), reverse=True)
            print(f"\n{name}")
            for t, index, first in cell_medians[: args.cells]:
                print(f"  {t:6.2f} s  cell {index:3d}  {first[:70]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
