"""Module paths of rankkit 0.1 that moved in 0.2: they keep working, with a FutureWarning,
until rankkit 0.3 (``import rankkit.binary`` gives :mod:`rankkit.metrics.binary`)."""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings

#: Old module path -> new module path.
MOVED: dict[str, str] = {
    "rankkit.binary": "rankkit.metrics.binary",
    "rankkit.graded": "rankkit.metrics.graded",
    "rankkit.cwl": "rankkit.metrics.cwl",
    "rankkit.pairwise": "rankkit.metrics.pairwise",
    "rankkit.unranked": "rankkit.metrics.unranked",
    "rankkit.overlap": "rankkit.metrics.overlap",
    "rankkit.sets": "rankkit.metrics.set_based",
    "rankkit.judgments": "rankkit.metrics.incomplete",
    "rankkit.specs": "rankkit.names",
    "rankkit.stream": "rankkit.evaluation.stream",
    "rankkit.trec": "rankkit.trec_eval",
}


def _caller() -> int:
    """The stack level of the user's import: the first frame outside rankkit, not counting
    importlib's frames (``warnings`` skips them)."""
    frame, level = sys._getframe(2), 2
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
            continue
        if not frame.f_globals.get("__name__", "").startswith("rankkit"):
            return level
        frame, level = frame.f_back, level + 1
    return level


class _Alias:
    """Finds an old module path and loads the module at its new path under it (a meta path
    finder and its loader; importlib.abc is not imported, to keep ``import rankkit`` light)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {new}; the old path stops working in rankkit 0.3",
                      FutureWarning, stacklevel=_caller())
        return importlib.import_module(new)

    def exec_module(self, module) -> None:
        """The new module is already executed."""


_FINDER = _Alias()


def install() -> None:
    """Put the finder on ``sys.meta_path`` once."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)
