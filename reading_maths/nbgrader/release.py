"""Regenerating ``release/`` from ``source/`` with nbgrader's own ``generate_assignment``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat

from reading_maths.course import assignments as course_assignments
from reading_maths.nbgrader.environment import nbgrader_env
from reading_maths.scaffold import sync_points


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


def release(root: Path, assignments: list[str] | None = None, db_url: str | None = None) -> list[str]:
    """Regenerate ``release/<assignment>/`` for each assignment (all that exist by default), each grade cell's
    points first taken from its grader (:func:`~reading_maths.scaffold.sync_points`)."""
    done = []
    for assignment in assignments or [a.id for a in course_assignments(root)]:
        sync_points(root, assignment)
        for notebook in generate(root, assignment, db_url).glob("*.ipynb"):
            clean(notebook)
        done.append(assignment)
    return done
