"""A late-penalty policy nbgrader can name in its config: ``c.AssignLatePenalties.plugin_class =
"reading_maths.nbgrader.late.TenPercentPerDay"`` (the demo's course uses it)."""

from __future__ import annotations

from nbgrader.plugins import LateSubmissionPlugin


class TenPercentPerDay(LateSubmissionPlugin):
    """Late policy: 10 % of the notebook's score per started day late, at most the whole score."""

    summary = "10 % of the score per started day late"
    """The policy in words, for students (the checks service's deadlines, reading_maths/nbgrader/deadlines.py)."""

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float | None:
        if total_seconds_late <= 0:
            return None
        days = int(total_seconds_late // 86400) + 1
        return round(min(score, 0.1 * days * score), 6)
