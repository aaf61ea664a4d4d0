"""Write the small synthetic learning-to-rank set ``ltr_small.csv`` (fixed seed).

160 queries of 12-30 documents each, graded labels 0-3 and five features of the kind a search
engine computes; the labels follow a known linear signal plus noise, so two simple scorers
(one feature alone, a linear model of all five) can be compared. Columns: ``query_id``,
``doc_id``, ``label``, ``f0`` (a text-match score, the strongest single feature), ``f1``
(a second, correlated text match), ``f2`` (freshness), ``f3`` (pure noise), ``f4`` (the
query's popularity, one value per query). Run ``python data/make_ltr_small.py`` from the
repository root to regenerate: the same seed gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 20261206
HERE = Path(__file__).parent


def main() -> None:
    rng = np.random.default_rng(SEED)
    sizes = rng.integers(12, 31, size=160)
    query = np.repeat(np.arange(160), sizes)
    n = len(query)
    match = rng.normal(size=n)
    f0 = match + 0.6 * rng.normal(size=n)
    f1 = match + 0.9 * rng.normal(size=n)
    f2 = rng.normal(size=n)
    f3 = rng.normal(size=n)
    f4 = rng.normal(size=160)[query]
    signal = 1.2 * match + 0.5 * f2 + 0.3 * f4 + 0.7 * rng.normal(size=n)
    label = np.digitize(signal, [0.8, 1.8, 2.6])  # grades 0-3, most documents 0
    lines = ["query_id,doc_id,label,f0,f1,f2,f3,f4"]
    for i in range(n):
        lines.append(f"q{query[i]:03d},d{i:05d},{label[i]},{f0[i]:.4f},{f1[i]:.4f},{f2[i]:.4f},{f3[i]:.4f},{f4[i]:.4f}")
    (HERE / "ltr_small.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
