"""rankkit evaluate -R prefs|qrels_prefs|qrels_jg against trec_eval 10 on generated files.

Writes, into a folder (default ``build/prefs_bench``), 20,000 preference lines (100 queries,
10 judgment groups of two sub-groups of 10 documents each), a qrels file of 50,000 lines,
the same documents judged by three assessors as judgment groups (150,000 lines), and a run of
1,000 documents for each of 100 queries (seed 2026); then runs each command ``--repeat``
times and prints the CPU time (user + system) of each, and whether the outputs are identical.
trec_eval is timed when a ``trec_eval`` binary is on PATH (or given with ``--trec-eval``).

    python benchmarks/prefs_files.py [--out DIR] [--repeat 3] [--trec-eval PATH]
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import subprocess
import sys
from pathlib import Path


def write_files(out: Path) -> None:
    rng = random.Random(2026)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "prefs.txt", "w") as f:
        for q in range(100):
            pool = [f"D{q}-{i:04d}" for i in rng.sample(range(3000), 60)]
            for u in range(10):
                grade = {d: rng.choice([0, 0, 1, 2, 3]) for d in pool}
                for s in range(2):
                    f.writelines(f"{q} user{u} s{s} {d} {grade[d]}\n" for d in rng.sample(pool, 10))
    with open(out / "qrels.txt", "w") as f, open(out / "qrels_jg.txt", "w") as g:
        for q in range(50):
            for i in rng.sample(range(3000), 1000):
                f.write(f"{q} 0 D{q}-{i:04d} {rng.choice([0, 0, 0, 1, 2, 3])}\n")
                g.writelines(f"{q} a{a} D{q}-{i:04d} {rng.choice([0, 0, 0, 1, 2, 3])}\n" for a in range(3))
    with open(out / "run.txt", "w") as f:
        for q in range(100):
            f.writelines(f"{q} Q0 D{q}-{i:04d} {r} {rng.random() * 10:.4f} bench\n"
                         for r, i in enumerate(rng.sample(range(3000), 1000)))


def cpu_of(argv: list[str]) -> tuple[float, bytes]:
    """CPU seconds (user + system) of one command, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    output = subprocess.run(argv, capture_output=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("build/prefs_bench"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trec-eval", default=shutil.which("trec_eval"))
    args = parser.parse_args()
    write_files(args.out)
    rankkit = [sys.executable, "-m", "rankkit", "evaluate"]
    for form, judgments, measures in (("prefs", "prefs.txt", "all_prefs"), ("qrels_prefs", "qrels.txt", "all_prefs"),
                                      ("qrels_jg", "qrels_jg.txt", "qrels_jg")):
        flags = ["-q", "-m", measures, "-R", form, str(args.out / judgments), str(args.out / "run.txt")]
        ours = [cpu_of(rankkit + flags) for _ in range(args.repeat)]
        line = f"{form:12} rankkit {min(t for t, _ in ours):.2f}-{max(t for t, _ in ours):.2f} s CPU"
        if args.trec_eval:
            theirs = [cpu_of([args.trec_eval, *flags]) for _ in range(args.repeat)]
            same = all(o == theirs[0][1] for _, o in ours)
            line += (f", trec_eval {min(t for t, _ in theirs):.2f}-{max(t for t, _ in theirs):.2f} s CPU, "
                     f"outputs {'identical' if same else 'DIFFERENT'}")
        print(line)


if __name__ == "__main__":
    main()
