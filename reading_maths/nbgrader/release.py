"""Regenerating ``release/`` from ``source/`` with nbgrader's own ``generate_assignment``."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import nbformat

from reading_maths.course import assignments as course_assignments
from reading_maths.kit.reference import course_secret
from reading_maths.nbgrader.environment import course_directory, nbgrader_env
from reading_maths.nbgrader.term import due_dates, write_due_dates
from reading_maths.scaffold import sync_generated_cells


def generate(root: Path, assignment: str, db_url: str | None = None) -> Path:
    """Run ``nbgrader generate_assignment`` for one assignment in the course at ``root``."""
    command = [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force", "--create",
               "--log-level=WARN"]
    if db_url:
        command.append(f"--CourseDirectory.db_url={db_url}")
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False, env=nbgrader_env())
    if done.returncode != 0:
        raise RuntimeError(f"nbgrader generate_assignment {assignment} failed:\n{done.stderr[-2000:]}")
    return root / "release" / assignment


def clean(notebook: Path) -> None:
    """Drop outputs and execution counts, so a release notebook is committed clean."""
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.write(nb, notebook)


def release(root: Path, assignments: list[str] | None = None,
            db_url: str | None = None) -> dict[str, dt.datetime | None]:
    """Regenerate ``release/<assignment>/`` for each assignment (all that exist by default), each grade cell's
    points first taken from its grader (:func:`~reading_maths.scaffold.sync_generated_cells`, with the grade cells'
    boilerplate and the helper cells' kit modules), and write the due dates
    of ``c.Term.due_dates`` into the gradebook; returns each assignment's due date (None: none)."""
    known = sorted(p.stem for p in Path(root, "source").glob("*/*.ipynb") if p.stem == p.parent.name)
    unknown = [a for a in assignments or [] if a not in known]
    if unknown:
        raise LookupError(f"no assignment {unknown[0]!r} in source/; known assignments: {', '.join(known)}")
    chosen = assignments or [a.id for a in course_assignments(root)]
    course_secret(Path(root).resolve())  # the course's hidden inputs are its own from the first release on
    for assignment in chosen:
        sync_generated_cells(root, assignment)
        for notebook in generate(root, assignment, db_url).glob("*.ipynb"):
            clean(notebook)
    dates = write_due_dates(db_url or course_directory(root).db_url, due_dates(root), chosen)
    return {a: dates.get(a) for a in chosen}
