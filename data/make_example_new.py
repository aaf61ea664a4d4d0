"""Write ``example_new.run``: ``example.run`` with its scores perturbed (fixed seed).

The "new" system of the CI gate example in the book (``docs/ci_gate.md``): every score of
``example.run`` plus Gaussian noise of standard deviation 0.2, rounded to 2 decimals, each
query re-ranked by the new scores (ties by document id, descending, as trec_eval breaks
them). Same queries and documents as ``example.run``; it is a little worse on the example
judgments, which is what a gate should catch. Run ``python data/make_example_new.py`` from the
repository root after ``make_example.py``: the same seed gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 20261206
NOISE = 0.2
HERE = Path(__file__).parent


def main() -> None:
    rng = np.random.default_rng(SEED)
    by_query: dict[str, list[tuple[str, float]]] = {}
    for line in (HERE / "example.run").read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        by_query.setdefault(qid, []).append((doc, float(score)))
    lines = []
    for qid, docs in by_query.items():  # the file's query order
        noise = rng.normal(0.0, NOISE, len(docs))
        scored = [(round(s + e, 2), d) for (d, s), e in zip(docs, noise)]
        scored.sort(reverse=True)  # score, then document id, descending
        lines += [f"{qid} Q0 {d} {r} {s:.2f} example_new\n" for r, (s, d) in enumerate(scored, 1)]
    (HERE / "example_new.run").write_text("".join(lines))
    print(f"example_new.run: {len(lines)} lines")


if __name__ == "__main__":
    main()
