"""The command's process: what ``rankkit`` (the console command, ``python -m rankkit``) does
to the process it runs in, and what nothing else in rankkit does.

The library, imported in a notebook, a service or a test, changes nothing process-wide and
reads no private attribute of another package. The command owns its process, which ends
with it, so there, and only after :func:`start` has run, it may:

- give OpenBLAS one thread (the evaluation multiplies no matrices; idle BLAS threads cost
  CPU time at start-up) and have glibc's ``malloc`` keep freed memory for the next arrays
  (``mallopt``): a run evaluated block by block frees and takes arrays of the same sizes
  again and again; and have Arrow allocate from glibc's ``malloc`` too, in one arena, so
  that NumPy's arrays and Arrow's columns reuse each other's freed memory
  (``ARROW_DEFAULT_MEMORY_POOL=system``, unless the caller set it);
- keep pandas unimported while the evaluation on arrays runs (pyarrow would import it on
  its first conversion of a NumPy array): an import hook on ``sys.meta_path``
  (:func:`hide_pandas`). If the evaluation on arrays turns out not to apply, the command
  starts afresh with pandas (:func:`restart_with_pandas`) rather than undo what pyarrow
  noted about it;
- measure its resident memory before sizing the blocks of a run file, so that
  ``--memory`` bounds the whole process (:func:`memory_in_use`);
- end at once when done (``os._exit``), skipping the interpreter's teardown: freeing every
  module and array one by one is a noticeable part of a short run, which a shell loop over
  hundreds of runs pays every time. Under coverage measurement the usual exit is kept.
"""

from __future__ import annotations

import os
import sys

__all__ = ["start", "end", "owned", "hide_pandas", "restart_with_pandas", "memory_in_use"]

# glibc's mallopt parameters (malloc.h) and the values set for ``evaluate``: arrays up to
# 32 MiB (glibc's largest threshold) from the heap; up to 1 GiB of free heap kept; one
# arena for every thread (pyarrow's parser threads and the thread reading ahead included),
# so that what one thread frees serves the next array of any other.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
_MMAP_THRESHOLD, _TRIM_THRESHOLD, _ARENA_MAX = 32 << 20, 1 << 30, 1
# Arrow's allocator in the command's process: glibc's malloc (through the environment
# variable Arrow reads when pyarrow loads, unless the caller set it), not Arrow's bundled
# mimalloc or jemalloc, which keep the memory Arrow frees for Arrow alone. One allocator
# for Arrow's columns and NumPy's arrays lowers the peak of ``rankkit evaluate`` by 30-40
# MB at 1 and 3 million run lines (benchmarks/README.md, "Memory that follows the input").
_ARROW_POOL = ("ARROW_DEFAULT_MEMORY_POOL", "system")
# Set in the environment of a command started afresh with pandas (restart_with_pandas).
_WITH_PANDAS = "RANKKIT_WITH_PANDAS"

_state = {"owned": False, "hidden": False}


def start(argv: list[str]) -> None:
    """Take the process for the command ``argv`` (without the program name)."""
    _state["owned"] = True
    if _subcommand(argv) == "evaluate":
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before NumPy loads, unless the caller set it
        os.environ.setdefault(*_ARROW_POOL)  # before pyarrow loads
        _keep_freed_memory()


def owned() -> bool:
    """Whether this process is the command's (:func:`start` ran)."""
    return _state["owned"]


def end(status: int) -> None:
    """Flush the output and end the process with ``status``, without the teardown."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader left, or a stream was closed: nothing to lose
        pass
    if "coverage" in sys.modules or not owned():
        raise SystemExit(status)
    os._exit(status)


def _subcommand(argv: list[str]) -> str | None:
    """The first argument that is not an option: the subcommand's name, if any."""
    return next((a for a in argv if not a.startswith("-")), None)


def _keep_freed_memory() -> None:
    """Have glibc's malloc, which NumPy's arrays come from, keep freed memory for the next
    arrays: by default an array above a threshold gets fresh pages from the kernel, zeroed
    as they are first touched, and gives them back when freed, and freed memory at the top
    of the heap goes back to the kernel at once. One arena for every thread: else each
    thread that allocates (pyarrow's parser threads) gets an arena of its own, whose freed
    memory the others do not reuse. Nothing where malloc is not glibc's."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
        libc.mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)
        libc.mallopt(_M_ARENA_MAX, _ARENA_MAX)
    except (ImportError, OSError, AttributeError):
        pass


# --------------------------------------------------------------------------- pandas


class _NoPandas:
    """A finder on ``sys.meta_path`` that says pandas is not installed."""

    def find_spec(self, name: str, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def hide_pandas() -> bool:
    """Keep pyarrow (and anything else) from importing pandas in the command's process,
    unless pandas is imported already or the command was started afresh to use it. True
    when pandas is hidden."""
    if not owned() or os.environ.get(_WITH_PANDAS) or "pandas" in sys.modules:
        return False
    if not _state["hidden"]:
        sys.meta_path.insert(0, _NoPandas())
        _state["hidden"] = True
    return True


def restart_with_pandas() -> None:
    """Where pandas was hidden: start the command afresh, with pandas, in this process's
    place (nothing was printed yet); else nothing."""
    if not _state["hidden"]:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.environ[_WITH_PANDAS] = "1"
    os.execv(sys.executable, [sys.executable, "-m", "rankkit", *sys.argv[1:]])


# --------------------------------------------------------------------------- memory


def memory_in_use() -> int:
    """The memory the command's process holds before the blocks of a run file are sized:
    its resident size. What the allocators keep of the memory freed so far counts as held,
    and is kept: the blocks' arrays reuse it. (Giving it back first only had the blocks
    take it again, page by page: the same peak, and 0.1 s more system time at 10 million
    run lines, 1 s at 30 million; benchmarks/bench_large.py.)"""
    return _resident()


def _resident() -> int:
    """The process's resident memory now, in bytes (Linux); elsewhere its peak so far."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return 200 * 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024
