"""A synthetic class for any assignment: a course copy, the released notebook, ``n`` submissions.

Each student's answer to each question is, seeded, a right answer (55 %), a wrong one (30 %) or the
release's blank stub (15 %), drawn from the answers :class:`classroom.builder.ClassBuilder` finds in
the source notebook, the grader files' mistake catalogues and ``tests/corpora/``.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent



def env_for(course: Path) -> dict[str, str]:
    """The environment nbgrader and reading-maths run in for ``course`` (the venv's tools on PATH)."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"  # nbgrader runs `alembic` from the venv
    env["READING_MATHS_COURSE"] = str(course)
    return env


def course_copy(where: Path, assignment: str) -> Path:
    """``source/<a>``, ``graders/<a>``, the corpora and the course's nbgrader config in ``where``."""
    where.mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", where / "nbgrader_config.py")
    for name in ("source", "graders"):
        shutil.copytree(ROOT / name / assignment, where / name / assignment,
                        ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    corpora = ROOT / "tests" / "corpora" / assignment
    if corpora.is_dir():
        shutil.copytree(corpora, where / "tests" / "corpora" / assignment)
    return where


def generate(course: Path, assignment: str) -> None:
    """``nbgrader generate_assignment``: the release notebook and the gradebook's assignment."""
    subprocess.run([str(BIN / "nbgrader"), "generate_assignment", assignment, "--create", "--force",
                    "--log-level=WARN"], cwd=course, env=env_for(course), check=True, capture_output=True)


def write_class(course: Path, assignment: str, n: int, seed: int = 20240601) -> list[str]:
    """``n`` submissions in ``submitted/<student>/<assignment>/``; returns the student ids."""
    import nbformat

    from classroom.builder import ClassBuilder, fill
    from reading_maths.course import Assignment

    pool = ClassBuilder(Assignment(assignment, course)).pool()
    release = nbformat.read(course / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    rng = random.Random(seed)
    students = [f"s{i:04d}" for i in range(1, n + 1)]
    for student in students:
        answers = []
        for kinds in pool.values():
            r = rng.random()
            kind = "right" if r < 0.55 else "wrong" if r < 0.85 else None
            if kind and kinds[kind]:
                answers.append(rng.choice(kinds[kind]))
        folder = course / "submitted" / student / assignment
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(fill(release, answers), folder / f"{assignment}.ipynb")
    return students


def make_class(where: Path, assignment: str, n: int, *, seed: int = 20240601) -> Path:
    """A course copy with the assignment generated and ``n`` synthetic submissions."""
    course = course_copy(where, assignment)
    generate(course, assignment)
    write_class(course, assignment, n, seed)
    measure_reference(course, assignment)
    return course


def measure_reference(course: Path, assignment: str) -> None:
    """The reference solution's grading time measured and kept in the course (``reference-times.json``), as it is in
    any course after its first grading: timed runs of the class then grade the students' notebooks only."""
    subprocess.run([str(BIN / "reading-maths"), "grade", str(course / "source" / assignment / f"{assignment}.ipynb")],
                   cwd=course, env=env_for(course), capture_output=True, check=False)
    if not (course / "reference-times.json").is_file():
        raise RuntimeError(f"the reference of {assignment} was not measured in {course}")


def clone(course: Path, where: Path, *, stock: bool = False) -> Path:
    """A copy of a built class (submissions, release, gradebook) to grade another way; ``stock``: nbgrader
    as it ships runs ``nbgrader autograde`` there (hidden test cells in its kernels, not the sandbox)."""
    from classroom.stock import use_stock_nbgrader

    shutil.copytree(course, where)
    if stock:
        use_stock_nbgrader(where)
    return where
