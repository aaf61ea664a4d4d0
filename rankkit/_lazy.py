"""Public names imported on first use (PEP 562), shared by the packages that offer them:
``import rankkit`` and the command line's path then load only the modules they use."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable

#: The optional libraries, by the extra of ``rankkit-eval`` that installs them (pyproject.toml).
#: The metric functions and ``evaluate_scores`` need NumPy and array-api-compat alone.
EXTRAS = {"pandas": "runs", "pyarrow": "runs", "scipy": "stats", "matplotlib": "plots"}


def missing_extra(err: ModuleNotFoundError, what: str) -> str | None:
    """One line saying which extra of ``rankkit-eval`` installs the library ``err`` found
    missing, and how (rankkit installs from its source); None for a library no extra installs.

    Examples
    --------
    >>> print(missing_extra(ModuleNotFoundError("No module named 'scipy'", name="scipy"), "compare"))
    ... # doctest: +NORMALIZE_WHITESPACE
    compare needs scipy, which is not installed: install the extra [stats]
    (in rankkit's source folder: pip install ".[stats]"; [all] for every extra)
    """
    extra = EXTRAS.get((err.name or "").partition(".")[0])
    if extra is None:
        return None
    return (f"{what} needs {err.name}, which is not installed: install the extra [{extra}] "
            f'(in rankkit\'s source folder: pip install ".[{extra}]"; [all] for every extra)')


def attach(package: str, names: dict[str, str], submodules: Iterable[str] = ()
           ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package whose names load on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : dict of str to str
        Public name -> the module defining it, relative to the package (``".readers"``).
    submodules : iterable of str
        Submodules reachable as attributes without importing them first (``rankkit.plot``).

    Returns
    -------
    (__getattr__, __dir__)
        A name, once resolved, is stored in the package so later lookups are plain.
    """
    reachable = frozenset(submodules)

    def __getattr__(name: str):
        try:
            if name in names:
                value = getattr(importlib.import_module(names[name], package), name)
            elif name in reachable:
                value = importlib.import_module(f".{name}", package)
            else:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
        except ModuleNotFoundError as err:
            message = missing_extra(err, f"{package}.{name}")
            if message is None:
                raise
            raise ModuleNotFoundError(message, name=err.name) from None
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names) | reachable)

    return __getattr__, __dir__
