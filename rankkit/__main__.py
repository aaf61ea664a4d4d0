"""``python -m rankkit`` and the console command ``rankkit``: the command line
(:mod:`rankkit.cli`) in a process of its own, which :mod:`rankkit.process` takes at the
start and ends, without the interpreter's teardown, once the output is flushed."""

import sys


def run() -> None:
    """Run the command line and end the process with its status."""
    from . import process

    process.start(sys.argv[1:])  # before NumPy loads: its BLAS threads, glibc's malloc
    try:
        from .cli import main
    except ModuleNotFoundError as err:  # the slim install: name the extra in one line
        from ._lazy import missing_extra

        message = missing_extra(err, "the command rankkit")
        if message is None:
            raise
        print(f"rankkit: error: {message}", file=sys.stderr)
        process.end(2)
    process.end(main())


if __name__ == "__main__":
    run()
