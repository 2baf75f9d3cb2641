"""Progress over time, from the checks record: a student's points per question over their checks, what changed
since the last one and the attempts left now; the class's, for the instructor: who checked, the median points per
question day by day, and who has not started.

Plain functions of the store's rows (:meth:`reading_maths.checks.store.Store.listing`), the assignment's rules
and the class list, so that the pages (hub/checks.py) and the tests compute the same thing.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from reading_maths.checks import rules as course_rules
from reading_maths.checks.desk import next_allowed


@dataclass
class Attempts:
    """What is left of a student's checks of one assignment now: per notebook, or per question."""

    attempts: int
    window: str
    per: str
    left: dict[str | None, int]
    """``None`` -> checks left (per notebook), or question -> checks of it left (per question)"""
    next_at: datetime | None
    """when the next check is allowed, when none is left now"""
    closed: bool = False

    def words(self) -> str:
        if self.closed:
            return "checks are closed"
        if self.attempts == 0:
            return "no checks"
        every = f"{self.attempts} per {self.window}"
        if self.per == "notebook":
            return f"{self.left[None]} of {every} left"
        spread = ", ".join(f"{q}: {n}" for q, n in self.left.items())
        return f"left per question ({every}): {spread}"


@dataclass
class Assignment:
    """One assignment's progress for one student."""

    assignment: str
    questions: list[str]
    checks: list[dict] = field(default_factory=list)
    """graded checks, oldest first: ``{"id", "asked_at", "scores": {question: points or None}, "max": {...}}``"""
    attempts: Attempts | None = None

    @property
    def change(self) -> dict[str, float | None]:
        """Points gained (negative: lost) per question since the check before the last; None where not shown."""
        if len(self.checks) < 2:
            return {}
        last, before = self.checks[-1]["scores"], self.checks[-2]["scores"]
        return {q: (None if last.get(q) is None or before.get(q) is None else round(last[q] - before[q], 6))
                for q in self.questions}


def change_words(delta: float | None) -> str:
    """A change in points in words, not colour: "+5", "−2", "no change", "—"."""
    if delta is None:
        return "—"
    if delta == 0:
        return "no change"
    return f"+{delta:g}" if delta > 0 else f"−{-delta:g}"


def graded(rows: list[dict]) -> list[dict]:
    """The graded checks among ``rows`` (any order), oldest first."""
    return sorted((r for r in rows if r["outcome"] == "graded" and r.get("shown") and r.get("assignment")),
                  key=lambda r: (r["asked_at"], r["id"]))


def _scores(shown: dict) -> tuple[dict[str, float | None], dict[str, float]]:
    scores = {q["id"]: q.get("score") for q in shown.get("questions", [])}
    tops = {q["id"]: q["max_score"] for q in shown.get("questions", [])}
    return scores, tops


def student(rows: list[dict], rules: course_rules.CourseRules | None, used, when: datetime) -> list[Assignment]:
    """A student's progress per assignment they asked about (their own rows), the most recent first.
    ``used(assignment, since)`` gives the attempts counted in the window (the store's ``counted``)."""
    found: dict[str, Assignment] = {}
    for row in sorted(rows, key=lambda r: (r["asked_at"], r["id"])):
        if row.get("assignment"):
            found.setdefault(row["assignment"], Assignment(row["assignment"], []))
    for row in graded(rows):
        progress = found[row["assignment"]]
        scores, tops = _scores(row["shown"])
        for q in scores:
            if q not in progress.questions:
                progress.questions.append(q)
        progress.checks.append({"id": row["id"], "asked_at": row["asked_at"], "scores": scores, "max": tops})
    if rules is not None:
        for progress in found.values():
            progress.attempts = attempts_left(rules.of(progress.assignment), progress.questions,
                                              used(progress.assignment, when - rules.of(progress.assignment).window),
                                              when)
    return sorted(found.values(), key=lambda p: max([c["asked_at"] for c in p.checks] or [""]), reverse=True)


def attempts_left(rules: course_rules.Rules, questions: list[str], used: list[tuple[datetime, list[str]]],
                  when: datetime) -> Attempts:
    """The checks left at ``when`` under ``rules``, given the attempts ``used`` in the window."""
    if rules.per == "notebook":
        left = {None: max(0, rules.attempts - len(used))}
    else:
        left = {q: max(0, rules.attempts - sum(q in qs for _, qs in used)) for q in questions}
    wait = next_allowed(rules, used, questions, when) if left and min(left.values()) == 0 else None
    return Attempts(rules.attempts, window_words(rules.window), rules.per, left, wait, rules.closed(when))


def window_words(window) -> str:
    """A window in words, as in "3 per day": "day", "hour", "2 days", "30 minutes", "90 seconds"."""
    seconds = int(window.total_seconds())
    for name, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        if seconds % size == 0:
            count = seconds // size
            return name if count == 1 else f"{count} {name}s"
    return f"{seconds} seconds"


@dataclass
class ClassAssignment:
    """One assignment's class view."""

    assignment: str
    questions: list[str]
    checked: list[str]
    """students with at least one graded check"""
    on_list: int
    """how many of them are on the class list"""
    roster: int
    """how many students the class list has"""
    not_started: list[str]
    """students on the class list who asked for no check of it"""
    days: list[dict]
    """``{"day": date, "students": n, "median": {question: points}}``, oldest first: each day, the median over the
    students who had checked by then of their latest points"""
    max_score: dict[str, float]


def median(values: list[float]) -> float:
    return round(statistics.median(values), 6)


def whole_class(rows: list[dict], roster: list[str], where: tzinfo) -> list[ClassAssignment]:
    """The class's progress per assignment (every row, any order), days in zone ``where``."""
    asked: dict[str, set[str]] = {}
    for row in rows:
        if row.get("assignment"):
            asked.setdefault(row["assignment"], set()).add(row["user"])
    views = []
    for assignment in sorted(asked):
        checks = [r for r in graded(rows) if r["assignment"] == assignment]
        questions: list[str] = []
        tops: dict[str, float] = {}
        for row in checks:
            scores, top = _scores(row["shown"])
            questions += [q for q in scores if q not in questions]
            tops |= top
        latest: dict[str, dict] = {}
        days: list[dict] = []
        for row in checks:
            day = datetime.fromisoformat(row["asked_at"]).astimezone(where).date()
            latest[row["user"]] = _scores(row["shown"])[0]
            entry = {"day": day, "students": len(latest),
                     "median": {q: median(vals) if (vals := [s[q] for s in latest.values()
                                                             if s.get(q) is not None]) else None
                                for q in questions}}
            if days and days[-1]["day"] == day:
                days[-1] = entry
            else:
                days.append(entry)
        checked = sorted({r["user"] for r in checks})
        views.append(ClassAssignment(assignment, questions, checked, len(set(checked) & set(roster)), len(set(roster)),
                                     sorted(set(roster) - asked[assignment]), days, tops))
    return views
