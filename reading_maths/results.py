"""What grading produces: per-case, per-question and per-notebook results, as plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Status = Literal["passed", "failed", "error", "timeout", "missing"]


@dataclass
class CaseResult:
    """One test case of a grader file."""

    name: str
    points: float
    passed: bool
    hidden: bool
    message: str = ""
    mistake: str | None = None
    """the id of the catalogued mistake the feedback names, if any"""
    hidden_run: bool = False
    """judged in the hidden run (:mod:`reading_maths.sandbox.disclosure`): its message is in the graders' words only"""


@dataclass
class QuestionResult:
    """One question (one grader file, one nbgrader grade cell)."""

    id: str
    max_score: float
    cases: list[CaseResult] = field(default_factory=list)
    status: Status = "passed"
    problem: str = ""
    """why the question could not be graded normally (status error, timeout or missing), or why a name was
    missing when it ran"""
    notes: list[str] = field(default_factory=list)
    """what the question's cells hold that is not run when grading (``%%bash``, ``!cmd``, ``%pip``)"""
    mistake_messages: dict[str, str] = field(default_factory=dict)
    """the catalogue's message of each mistake in :attr:`mistakes` (``id -> message``)"""

    @property
    def score(self) -> float:
        return round(sum(c.points for c in self.cases if c.passed), 6)

    @property
    def feedback(self) -> list[str]:
        lines = ([self.problem] if self.problem else []) + self.notes
        failed = [c for c in self.cases if not c.passed]
        lines += list(dict.fromkeys(c.message for c in failed if c.message))
        if self.cases and not failed:
            lines.append(f"All {len(self.cases)} checks passed.")
        return lines

    @property
    def mistakes(self) -> list[str]:
        return sorted({c.mistake for c in self.cases if c.mistake})

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "score": self.score,
            "max_score": self.max_score,
            "status": self.status,
            "feedback": self.feedback,
            "mistakes": self.mistakes,
            "mistake_messages": {m: self.mistake_messages.get(m, "") for m in self.mistakes},
            "cases": [vars(c) | {"message": c.message} for c in self.cases],  # plain fields: no deep copy
        }


@dataclass
class GradeResult:
    """One notebook, graded."""

    assignment: str | None
    notebook: str
    questions: list[QuestionResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        return round(sum(q.score for q in self.questions), 6)

    @property
    def max_score(self) -> float:
        return round(sum(q.max_score for q in self.questions), 6)

    def question(self, qid: str) -> QuestionResult:
        return next(q for q in self.questions if q.id == qid)

    def to_json(self) -> dict:
        return {
            "assignment": self.assignment,
            "notebook": self.notebook,
            "score": self.score,
            "max_score": self.max_score,
            "questions": [q.to_json() for q in self.questions],
            "errors": self.errors,
        }
