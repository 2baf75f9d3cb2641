"""The class's grades and diagnosed mistakes, read from nbgrader's gradebook and the stored results.

Scores are nbgrader's (hand-marked where an instructor gave one, else the auto scores) minus the late
penalty, never below 0; the mistakes, by id with the catalogue's message, are those each notebook's
``grade --json`` result holds (``autograded/<student>/<assignment>.json``): no grader runs here.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from reading_maths.nbgrader.environment import course_directory, use_nbgrader_env


@dataclass
class StudentRow:
    id: str
    last_name: str
    first_name: str
    email: str
    scores: dict[str, float] = field(default_factory=dict)
    """assignment → score after the late penalty (0 when not submitted)"""
    penalties: dict[str, float] = field(default_factory=dict)
    submitted: dict[str, bool] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return round(sum(self.scores.values()), 6)


@dataclass
class MistakeCount:
    assignment: str
    question: str
    mistake: str
    count: int
    message: str


@dataclass
class TimeDisagreement:
    assignment: str
    student: str
    recorded: str
    """the time nbgrader recorded (the late penalty's), :data:`reading_maths.nbgrader.times.FORMAT`"""
    source: str
    claimed: dict[str, str]
    """where the student wrote a time → what it says"""


@dataclass
class ReportData:
    assignments: list[str]
    max_scores: dict[str, float]
    students: list[StudentRow]
    question_max: dict[str, dict[str, float]]
    """assignment → question (grade cell) → points"""
    question_fractions: dict[str, dict[str, list[float]]]
    """assignment → question → each graded submission's score / points"""
    mistakes: list[MistakeCount]
    awaiting: dict[str, dict[str, int]] = field(default_factory=dict)
    """assignment → hand-marked question → submissions not yet marked in formgrader"""
    left_out: list[str] = field(default_factory=list)
    """the gradebook's assignments with no submission yet (not in the report, nor in the LMS CSV)"""
    time_disagreements: list[TimeDisagreement] = field(default_factory=list)
    """graded submissions whose student-written times (an exchange entry's name, its ``timestamp.txt``)
    differ by more than a minute from the recorded, trusted time (:mod:`reading_maths.nbgrader.times`)"""

    def difficulty(self) -> dict[str, dict[str, float]]:
        """Mean fraction of the points per question (1 = everyone right); a hand-marked question still
        awaiting marks has no mean yet (its unmarked answers would count as 0)."""
        return {a: {q: round(sum(v) / len(v), 4) for q, v in qs.items() if v and not self.awaiting[a].get(q)}
                for a, qs in self.question_fractions.items()}

    def to_json(self) -> dict:
        return {
            "assignments": self.assignments,
            "max_scores": self.max_scores,
            "students": [asdict(s) | {"total": s.total} for s in self.students],
            "difficulty": self.difficulty(),
            "awaiting_hand_marking": self.awaiting,
            "left_out": self.left_out,
            "mistakes": [asdict(m) for m in self.mistakes],
            "time_disagreements": [asdict(t) for t in self.time_disagreements],
        }


def diagnosed(coursedir, assignment: str, student: str) -> dict[tuple[str, str], str]:
    """(question, mistake id) -> the mistake's message, for the mistakes the graders diagnosed in a student's
    autograded notebooks, as their results hold them."""
    from reading_maths.nbgrader.recording import results_path

    path = results_path(coursedir, student, assignment)
    try:
        notebooks = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # not autograded by reading-maths (yet)
    return {(q["id"], m): q.get("mistake_messages", {}).get(m, "") for result in notebooks.values()
            for q in result.get("questions", []) for m in q.get("mistakes", [])}


def gather(root: Path, only: str | None = None) -> ReportData:
    """Read the gradebook of the course at ``root``: one assignment, or every one with a submission,
    in the order they are due."""
    from nbgrader.api import Gradebook, MissingEntry

    from reading_maths.nbgrader.times import kept

    root = Path(root).resolve()
    # nbgrader's Gradebook runs the `alembic` script that lives beside this interpreter
    use_nbgrader_env()
    coursedir = course_directory(root)
    with Gradebook(coursedir.db_url) as gb:
        known = sorted(gb.assignments, key=lambda a: (a.duedate is None, a.duedate or 0, a.name))
        found = [a for a in known if a.name == only or (only is None and a.submissions)]
        if only is not None and not found:
            raise LookupError(f"the gradebook has no assignment {only!r}; it has: "
                              + ", ".join(a.name for a in known))
        names = [a.name for a in found]
        left_out = [a.name for a in known if a.name not in names and only is None]
        max_scores = {a.name: float(a.max_score or 0) for a in found}
        question_max: dict[str, dict[str, float]] = {a: {} for a in names}
        fractions: dict[str, dict[str, list[float]]] = {a: {} for a in names}
        awaiting: dict[str, Counter[str]] = {a: Counter() for a in names}
        counts: Counter[tuple[str, str, str]] = Counter()
        messages: dict[tuple[str, str, str], str] = {}
        rows: list[StudentRow] = []
        times = {(a, t.student): t for a in names for t in kept(root, a)}
        disagreements: list[TimeDisagreement] = []
        for student in sorted(gb.students, key=lambda s: s.id):
            row = StudentRow(student.id, student.last_name or "", student.first_name or "", student.email or "")
            for a in names:
                try:
                    sub = gb.find_submission(a, student.id)
                except MissingEntry:
                    row.scores[a], row.penalties[a], row.submitted[a] = 0.0, 0.0, False
                    continue
                disagreements += _disagreements(times.get((a, student.id)), sub.timestamp)
                penalty = float(sub.late_submission_penalty or 0.0)
                row.scores[a] = round(max(0.0, float(sub.score or 0.0) - penalty), 6)
                row.penalties[a], row.submitted[a] = penalty, True
                for notebook in sub.notebooks:
                    for grade in notebook.grades:
                        points = float(grade.max_score or 0)
                        question_max[a][grade.name] = points
                        ungraded = grade.needs_manual_grade and grade.manual_score is None
                        if ungraded:
                            awaiting[a][grade.name] += 1
                        elif grade.score is not None and points > 0:
                            fractions[a].setdefault(grade.name, []).append(float(grade.score) / points)
                for (q, m), message in diagnosed(coursedir, a, student.id).items():  # once per student and mistake
                    counts[(a, q, m)] += 1
                    messages[(a, q, m)] = messages.get((a, q, m)) or message
            rows.append(row)
    mistakes = [MistakeCount(a, q, m, n, messages.get((a, q, m), ""))
                for (a, q, m), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return ReportData(names, max_scores, rows, question_max, fractions, mistakes,
                      {a: dict(c) for a, c in awaiting.items()}, left_out, disagreements)


def _disagreements(times, graded) -> list[TimeDisagreement]:
    """``times`` (kept by collect) as a disagreement, when the student's own times differ from the recorded one
    and that recorded time is the graded submission's (``graded``: the gradebook's timestamp)."""
    from nbgrader.utils import parse_utc

    if times is None or graded is None:
        return []
    try:
        if abs((parse_utc(times.trusted) - graded).total_seconds()) > 1:
            return []  # kept for an earlier submission, since replaced
    except (ValueError, OverflowError):
        return []
    off = times.disagreements()
    return [TimeDisagreement(times.assignment, times.student, times.trusted, times.source, off)] if off else []
