"""The size of a Hypothesis sweep, scaled by the profile in force.

A test that sets its own number of examples writes ``@settings(max_examples=sweep(60))``:
30 under ``make test`` (the ``ci`` and ``dev`` profiles' 50 examples, half of Hypothesis'
default 100: the same every run in CI, new ones in a developer's run), 6 under
``make test-fast`` (the ``fast`` profile's 10): every sweep runs in every tier, at the size
the tier affords.
"""

from hypothesis import settings


def sweep(examples: int) -> int:
    """``examples`` times the profile's share of Hypothesis' default 100 (at least 2)."""
    return max(2, examples * settings.default.max_examples // 100)
