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


def run() -> None:
    """Run the command line and exit with its status, skipping the interpreter's teardown.

    For ``evaluate``, OpenBLAS gets one thread (set before NumPy loads, unless the caller
    set it: the evaluation multiplies no matrices, and idle BLAS threads cost CPU time at
    start-up), and pandas stays unimported while the evaluation on arrays runs
    (:func:`rankkit.cli.hide_pandas`): the whole process then loads neither pandas nor scipy.
    """
    evaluate = _subcommand(sys.argv[1:]) == "evaluate"
    if evaluate:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from .cli import hide_pandas, main

    if evaluate:
        hide_pandas()
    status = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader left, or a stream was closed: nothing to lose
        pass
    if "coverage" in sys.modules:
        raise SystemExit(status)
    os._exit(status)


def _subcommand(argv: list[str]) -> str | None:
    """The first argument that is not an option: the subcommand's name, if any."""
    return next((a for a in argv if not a.startswith("-")), None)


if __name__ == "__main__":
    run()
