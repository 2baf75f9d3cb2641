"""CSV a spreadsheet cannot execute: every CSV the course writes (``reading-maths report``'s ``grades.csv``, and
``nbgrader export`` through :class:`SafeCsvExport`, set in ``nbgrader_config.py``).

A student id, a name or an e-mail from an LMS roster is the student's text. A spreadsheet runs a cell that
starts with ``=``, ``+``, ``-``, ``@``, tab or carriage return as a formula (CSV injection, OWASP), and
nbgrader's own export writes fields unquoted, so a comma or a newline in one shifts every column after it.
Here every field is quoted; a text cell that would start a formula gets a leading ``'`` (what spreadsheets
themselves use to mark text), numbers are written as numbers; control characters (a newline in an id) are
written as ``\\xNN`` escapes, so each student stays one row.
"""

from __future__ import annotations

import csv
import math
import re

from nbgrader.api import MissingEntry
from nbgrader.plugins import ExportPlugin

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
NBGRADER_COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
                    "raw_score", "late_submission_penalty", "score", "max_score"]


def _number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def cell(value) -> str:
    """One CSV field as it is safe in a spreadsheet: see the module docstring."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))
    if str(value).startswith(FORMULA_START) and not _number(text):
        return "'" + text
    return text


def writer(fh):
    """A ``csv.writer`` quoting every field; write rows through :func:`row`."""
    return csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\r\n")


def row(values) -> list[str]:
    return [cell(v) for v in values]


class SafeCsvExport(ExportPlugin):
    """``nbgrader export``'s CSV (its columns and rows, a student without a submission scoring 0), written
    with :func:`cell` and every field quoted."""

    def export(self, gradebook) -> None:
        dest = self.to or "grades.csv"
        students, assignments = {str(s) for s in self.student}, {str(a) for a in self.assignment}
        self.log.info("Exporting grades to %s", dest)
        with open(dest, "w", newline="", encoding="utf-8") as fh:
            out = writer(fh)
            out.writerow(NBGRADER_COLUMNS)
            for assignment in gradebook.assignments:
                if assignments and assignment.name not in assignments:
                    continue
                for student in gradebook.students:
                    if students and student.id not in students:
                        continue
                    try:
                        sub = gradebook.find_submission(assignment.name, student.id)
                        scores = [sub.timestamp, sub.score, sub.late_submission_penalty,
                                  max(0.0, sub.score - (sub.late_submission_penalty or 0.0))]
                    except MissingEntry:
                        scores = ["", 0.0, 0.0, 0.0]
                    out.writerow(row([assignment.name, assignment.duedate, scores[0], student.id, student.last_name,
                                      student.first_name, student.email, *scores[1:], assignment.max_score]))
