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

# glibc's mallopt parameters (malloc.h) and the values set for ``evaluate``: arrays up to
# 32 MiB (glibc's largest threshold) from the heap; up to 1 GiB of free heap kept.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD, _TRIM_THRESHOLD = 32 << 20, 1 << 30


def run() -> None:
    """Run the command line and exit with its status, skipping the interpreter's teardown.

    For ``evaluate``, OpenBLAS gets one thread (set before NumPy loads, unless the caller
    set it: the evaluation multiplies no matrices, and idle BLAS threads cost CPU time at
    start-up), freed memory is kept for reuse (:func:`_reuse_freed_memory`), and pandas
    stays unimported while the evaluation on arrays runs
    (:func:`rankkit.cli.hide_pandas`): the whole process then loads neither pandas nor scipy.
    """
    evaluate = _subcommand(sys.argv[1:]) == "evaluate"
    if evaluate:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        _reuse_freed_memory()
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


def _reuse_freed_memory() -> None:
    """Have glibc's malloc, which NumPy's arrays come from, keep freed memory for the next
    arrays (``mallopt``), as the block-by-block evaluation of a large run frees and takes
    arrays of the same sizes again and again. By default an array above a threshold gets
    fresh pages from the kernel, zeroed as they are first touched, and gives them back
    when freed; and freed memory at the top of the heap goes back to the kernel at once.
    For this process alone, which ends with the command; nothing where malloc is not glibc's."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
        libc.mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)
    except (ImportError, OSError, AttributeError):
        pass


def _subcommand(argv: list[str]) -> str | None:
    """The first argument that is not an option: the subcommand's name, if any."""
    return next((a for a in argv if not a.startswith("-")), None)


if __name__ == "__main__":
    run()
