"""Build the graded assignments with nbgrader and check that the grader works.

``python notebooks/assignments/build.py [OUT]`` (``make assignments``; OUT defaults to
``build/assignments``):

1. lays out an nbgrader course in ``OUT/course``: each ``aN_*/`` folder of this directory
   (the teacher's notebook, with solutions and hidden tests) and the data it reads;
2. ``nbgrader generate_assignment``: the students' version (solutions replaced by
   ``raise NotImplementedError()``, hidden tests removed) in ``OUT/student/aN_*``; the
   teacher's version (the source, with ``RUBRIC.md``) in ``OUT/teacher/aN_*``;
3. ``nbgrader autograde`` of two submissions per assignment: the reference solution (the
   teacher's notebook), which must get every automatically graded point, and the students'
   version handed in unanswered, which must get none; the hidden tests are put back by
   nbgrader from the source before grading, whatever a submission did to its test cells.

Exit status 1 if any grade is not what it must be. Everything runs offline, in this Python.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: The data each assignment reads, copied next to its notebook (its students get them with it).
DATA = {"a2_comparing_runs": ["trec_eval_test"], "a3_learning_to_rank": ["ltr_small.csv"]}
#: The two submissions graded: the teacher's notebook, and the students' version unanswered.
SUBMISSIONS = ("reference", "unanswered")
CONFIG = """c = get_config()
c.CourseDirectory.course_id = "rankkit"
c.Exchange.assignment_dir = "."
c.ExecutePreprocessor.timeout = 300
"""


def assignments() -> list[str]:
    return sorted(p.name for p in HERE.glob("a[0-9]_*") if p.is_dir())


def lay_out(course: Path, name: str) -> None:
    """The assignment's source folder in the course: its notebook and data (the rubric stays out:
    nbgrader releases every file of the folder)."""
    source = course / "source" / name
    shutil.copytree(HERE / name, source, ignore=shutil.ignore_patterns("RUBRIC.md"))
    for item in DATA.get(name, []):
        origin = ROOT / "data" / item
        if origin.is_dir():
            shutil.copytree(origin, source / item)
        else:
            shutil.copy(origin, source / item)


def api(course: Path):
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    config = Config()
    config.CourseDirectory.root = str(course)
    config.CourseDirectory.course_id = "rankkit"
    config.ExecutePreprocessor.timeout = 300
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def run(step, *args) -> None:
    """One nbgrader step; its log is printed only when it fails."""
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        result = step(*args)
    if not result["success"]:
        sys.exit(f"nbgrader {step.__name__}{args} failed:\n{result.get('log', '')}{result.get('error', '')}"
                 f"{log.getvalue()}")


def submit(course: Path, name: str, student: str) -> None:
    """Hand in a copy: the reference is the source, the unanswered one the students' version."""
    origin = course / ("source" if student == "reference" else "release") / name
    target = course / "submitted" / student / name
    shutil.copytree(origin, target)


def grades(course: Path) -> list[tuple]:
    from nbgrader.api import Gradebook

    rows = []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for name in assignments():
            for student in SUBMISSIONS:
                sub = gradebook.find_submission(name, student)
                rows.append((name, student, sub.code_score, sub.max_code_score, sub.written_score,
                             sub.max_written_score))
    return rows


def check(rows: list[tuple], student: Path) -> list[str]:
    """What is wrong: every automatic point for the reference, none for the unanswered
    submission, and nothing of the teacher's (answers, hidden tests, rubric) in the students' version."""
    wrong = [f"{path.relative_to(student)}: {secret!r} in the students' version"
             for path in sorted(student.rglob("*.ipynb"))
             for secret in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "RUBRIC")
             if secret in path.read_text()]
    wrong += [f"{path.relative_to(student)}: the rubric in the students' version"
              for path in student.rglob("RUBRIC.md")]
    for name, who, auto, max_auto, written, _ in rows:
        if max_auto <= 0:
            wrong.append(f"{name}: no automatically graded points")
        if who == "reference" and auto != max_auto:
            wrong.append(f"{name}: the reference solution gets {auto:g} of {max_auto:g} points")
        if who == "unanswered" and (auto != 0 or written != 0):
            wrong.append(f"{name}: the unanswered submission gets {auto + written:g} points")
    return wrong


def main(out: Path) -> int:
    start = time.perf_counter()
    # nbgrader creates its gradebook by running the `alembic` command of this environment
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    course = out / "course"
    for folder in (course, out / "student", out / "teacher"):
        shutil.rmtree(folder, ignore_errors=True)
    course.mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(CONFIG)
    grader = api(course)
    for name in assignments():
        lay_out(course, name)
        run(grader.generate_assignment, name)
        shutil.copytree(course / "release" / name, out / "student" / name)
        shutil.copytree(course / "source" / name, out / "teacher" / name)
        for rubric in (HERE / name).glob("RUBRIC.md"):
            shutil.copy(rubric, out / "teacher" / name)
        for student in SUBMISSIONS:
            submit(course, name, student)
            run(grader.autograde, name, student)
    rows = grades(course)
    print(f"{'assignment':22} {'submission':11} {'automatic':>10} {'read by the teacher':>20}")
    for name, student, auto, max_auto, written, max_written in rows:
        print(f"{name:22} {student:11} {auto:>4g} / {max_auto:<3g} {'':1}"
              f"{'pending' if student == 'reference' and max_written else f'{written:g}'} / {max_written:g}")
    wrong = check(rows, out / "student")
    for line in wrong:
        print("ERROR:", line, file=sys.stderr)
    print(f"students' version: {out / 'student'}; teacher's version: {out / 'teacher'} "
          f"({time.perf_counter() - start:.0f} s)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "assignments"))
