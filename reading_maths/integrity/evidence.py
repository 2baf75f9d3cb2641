"""What else the course knows about a student's work on an assignment: the checks trail and the submission time.

- the checks the student asked for on the hub (:mod:`reading_maths.checks.store`): how many, and when each
  question first reached full marks there (an answer handed over is often checked first by its author);
- the submission's recorded time (``submitted/<student>/<assignment>/timestamp.txt``, which the student cannot
  set: :mod:`reading_maths.nbgrader.times`), and its source when collect kept one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from reading_maths.checks.store import Store, location, missing
from reading_maths.nbgrader.times import kept


@dataclass
class Trail:
    """One student's evidence: checks asked, first full marks per question, and the submission time."""

    checks: int = 0
    first_full: dict[str, str] = field(default_factory=dict)
    submitted: str = ""
    source: str = ""


def checks_history(root: Path, assignment: str) -> dict[str, Trail]:
    """Per student, the graded checks of ``assignment`` and when each question first scored full marks."""
    where = location(root)
    trails: dict[str, Trail] = {}
    if missing(where):
        return trails
    store = Store(where)
    try:
        rows = store.listing()
    finally:
        store.close()
    for row in sorted(rows, key=lambda r: (r["asked_at"], r["id"])):
        if row.get("assignment") != assignment or row.get("outcome") != "graded":
            continue
        trail = trails.setdefault(str(row["user"]), Trail())
        trail.checks += 1
        for question in (row.get("result") or {}).get("questions") or []:
            if not isinstance(question, dict):
                continue
            try:
                full = float(question["score"]) >= float(question["max_score"]) > 0
            except (KeyError, TypeError, ValueError):
                continue
            if full:
                trail.first_full.setdefault(str(question.get("id")), str(row["asked_at"]))
    return trails


def trails(root: Path, assignment: str, students: list[str]) -> dict[str, Trail]:
    """:func:`checks_history` with each student's recorded submission time."""
    found = checks_history(root, assignment)
    sources = {t.student: t.source for t in kept(root, assignment)}
    for student in students:
        trail = found.setdefault(student, Trail())
        stamp = Path(root) / "submitted" / student / assignment / "timestamp.txt"
        try:
            trail.submitted = stamp.read_text(encoding="utf-8", errors="replace").strip()[:40]
        except OSError:
            trail.submitted = ""
        trail.source = sources.get(student, "")
    return found
