"""Teaching: what the lessons (the notebooks in ``notebooks/``) use beside the engine.

- :mod:`~rankkit.teaching.explore`: the interactive explorers, sliders and a list to
  reorder, each with a still figure (``from rankkit.teaching import explore``);
- :mod:`~rankkit.teaching.sources`: the five articles whose worked examples the lessons
  reproduce, cited once (the engine's docstrings cite them by short name).

The dependency goes one way: teaching uses the engine (its metrics and figures), and no
module outside this package imports it (``tests/test_layers.py`` checks it), so a lesson
changes without touching what evaluates. For the same reason a value that only one
lesson's example needs, such as the cutoffs a source prints, is written in that notebook,
never as a default of an engine function.
"""

from __future__ import annotations

from .._lazy import attach

__all__: list[str] = []

# ``rankkit.teaching.explore`` reachable after ``import rankkit.teaching``, loaded on first use
__getattr__, __dir__ = attach(__name__, {}, ("explore", "sources"))
