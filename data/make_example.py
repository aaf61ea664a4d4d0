"""Write the small synthetic example ``example.qrels`` and ``example.run`` (fixed seed).

50 queries (``101``-``150``; trec_eval orders them as strings) x 80-100 retrieved
documents, graded labels 0-3, scores rounded to 2 decimals so that some are tied, judged
documents the run did not retrieve, one run query without judgments (``150``) and one
judged query absent from the run (``149``). Run ``python data/make_example.py`` from the
repository root to regenerate: the same seed gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 20240607
HERE = Path(__file__).parent


def main() -> None:
    rng = np.random.default_rng(SEED)
    qrels_lines, run_lines = [], []
    for q in range(101, 151):
        n_ret = int(rng.integers(80, 101))  # 80-100 documents retrieved
        docs = rng.choice(5000, size=n_ret + 15, replace=False)
        names = [f"DOC-{d:04d}" for d in docs]
        grade = rng.choice(4, size=len(docs), p=[0.6, 0.2, 0.12, 0.08])
        score = np.round(rng.normal(5.0 + 0.7 * grade[:n_ret], 1.0), 2)
        # Judged: the top 30 by score, a fifth of the rest, and the 15 unretrieved extras.
        top = np.argsort(-score, kind="stable")
        judged = np.zeros(len(docs), dtype=bool)
        judged[top[:30]] = True
        judged[:n_ret] |= rng.random(n_ret) < 0.2
        judged[n_ret:] = True
        if q != 150:  # 150: retrieved but never judged
            qrels_lines += [f"{q} 0 {names[i]} {grade[i]}\n" for i in np.flatnonzero(judged)]
        if q != 149:  # 149: judged but absent from the run
            order = sorted(range(n_ret), key=lambda i: (score[i], names[i]), reverse=True)
            run_lines += [f"{q} Q0 {names[i]} {r} {score[i]:.2f} example\n" for r, i in enumerate(order, 1)]
    (HERE / "example.qrels").write_text("".join(qrels_lines))
    (HERE / "example.run").write_text("".join(run_lines))
    print(f"example.qrels: {len(qrels_lines)} lines, example.run: {len(run_lines)} lines")


if __name__ == "__main__":
    main()
