"""``python -m rankkit``: the command line (:mod:`rankkit.cli`).

When the command is done and its output flushed, the process ends at once (``os._exit``)
instead of tearing the interpreter down: freeing every module and array one by one is a
noticeable part of a short run with pandas loaded (benchmarks/bench_startup.py), which a
shell loop over hundreds of runs pays every time. Nothing is left to do at that point: files are
closed, temporary folders removed and threads joined by the command itself. Under coverage
measurement (``coverage`` imported) the usual exit is kept, so that its data are written.
"""

import os
import sys

from .cli import main


def run() -> None:
    """Run the command line and exit with its status, skipping the interpreter's teardown."""
    status = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader left, or a stream was closed: nothing to lose
        pass
    if "coverage" in sys.modules:
        raise SystemExit(status)
    os._exit(status)


if __name__ == "__main__":
    run()
