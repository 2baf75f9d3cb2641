"""A notebook's time budget, relative to the work: a multiple of the reference solution's own grading time.

The reference (the assignment's source notebook, every answer the course's own) is graded once in the sandbox,
as a student's notebook is, and its wall-clock time kept in the course folder (``reference-times.json``, keyed
by a hash of the source notebook and the graders, so an edit measures again).  A student's notebook then gets
:data:`MULTIPLE` times that, and never less than :data:`FLOOR`: a right notebook far slower than it needs to be
(cells that sleep, calls just under their limit) loses the questions it did not finish, with the budget's
message, and holds a worker for seconds, not minutes.  An instructor's ``--budget`` (``c.GradeInSandbox.budget``,
``budget`` in ``checks.toml``) overrides it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from dataclasses import replace
from pathlib import Path

from reading_maths.course import Assignment

MULTIPLE = 8.0
"""How many times the reference's grading time a notebook may take: room for a slower right answer, a wrong one's
diagnosis (more calls than the reference's), and a machine grading on every core."""
FLOOR = 30.0
"""The least budget, in seconds: a sandbox's start and a loaded machine's slowness are not the student's."""
MEASURE_BUDGET = 600.0
"""The budget of the reference's own grading, when it is measured."""
TIMES_FILE = "reference-times.json"

_known: dict[tuple[str, str], float] = {}


def _fingerprint(assignment: Assignment) -> str:
    digest = hashlib.sha256(assignment.source_notebook.read_bytes())
    for path in sorted((assignment.root / "graders" / assignment.id).glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def measured_seconds(assignment: Assignment) -> float | None:
    """The kept grading time of the reference of ``assignment``, if it was measured on its present content."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        kept = json.loads((assignment.root / TIMES_FILE).read_text(encoding="utf-8")).get(assignment.id, {})
        if kept.get("fingerprint") == _fingerprint(assignment) and isinstance(kept.get("seconds"), (int, float)):
            return float(kept["seconds"])
    return None


def reference_seconds(assignment: Assignment, settings) -> float:
    """Seconds the reference of ``assignment`` takes to grade with ``settings`` (measured once per course and
    content; kept in the course's ``reference-times.json``)."""
    key = (str(assignment.root), assignment.id)
    if key not in _known and (kept := measured_seconds(assignment)) is not None:
        _known[key] = kept
    if key not in _known:
        from reading_maths.grading.engine import grade

        started = time.monotonic()
        grade(assignment.source_notebook, replace(settings, budget=MEASURE_BUDGET), assignment.root, assignment)
        _known[key] = round(time.monotonic() - started, 3)
        _keep(assignment.root / TIMES_FILE, assignment.id,
              {"fingerprint": _fingerprint(assignment), "seconds": _known[key]})
    return _known[key]


def _keep(path: Path, assignment: str, entry: dict) -> None:
    """Add ``entry`` to the times file (atomically; a course folder that cannot be written keeps it in memory)."""
    with contextlib.suppress(OSError):
        try:
            times = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            times = {}
        times[assignment] = entry
        draft = path.with_name(f".{TIMES_FILE}.{os.getpid()}")
        draft.write_text(json.dumps(times, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(draft, path)


def budget_for(assignment: Assignment, settings) -> float:
    """The budget of one notebook of ``assignment``: the instructor's (``settings.budget``) or the default,
    :data:`MULTIPLE` times the reference's grading time and at least :data:`FLOOR` seconds."""
    return settings.budget if settings.budget is not None else default_budget(reference_seconds(assignment, settings))


def default_budget(seconds: float) -> float:
    """The budget of a notebook whose reference takes ``seconds`` to grade."""
    return max(FLOOR, round(MULTIPLE * seconds, 1))


def expected_budget(assignment: Assignment) -> float:
    """The default budget as known without grading anything: the measured one, or (not measured yet, so the first
    grading measures the reference first) the measurement's own budget on top of the floor."""
    seconds = measured_seconds(assignment)
    return default_budget(seconds) if seconds is not None else MEASURE_BUDGET + FLOOR
