"""The size of a Hypothesis sweep, scaled by the profile in force.

A test that sets its own number of examples writes ``@settings(max_examples=sweep(60))``:
60 under ``make test`` (the ``ci`` and ``dev`` profiles' default of 100 examples), a tenth
under ``make test-fast`` (the ``fast`` profile's 10), so the edit loop runs every sweep,
smaller, and the full suite runs it whole.
"""

from hypothesis import settings


def sweep(examples: int) -> int:
    """``examples`` times the profile's share of Hypothesis' default 100 (at least 2)."""
    return max(2, examples * settings.default.max_examples // 100)
