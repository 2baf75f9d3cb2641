"""``reading-maths report``: the class's grades for an LMS, and what the class got wrong, from the gradebook.

Everything is read from nbgrader's gradebook, so the numbers are the ones ``nbgrader export`` and
formgrader show, and the mistakes from the results ``reading-maths autograde`` stored: no grader runs
here (:mod:`reading_maths.reports.class_data`).

Outputs, in ``reports/`` under the course root by default:

- ``grades.csv``: one row per student, ``student_id,last_name,first_name,email,<assignment>...,total``;
- ``report.html``: score distributions, per-question difficulty, the most common mistakes (plots
  embedded as base64 PNG) and the tables behind them;
- ``report.json``: the same data, for scripts;
- ``integrity/<assignment>/``: every pair of submissions compared (:mod:`reading_maths.integrity`), linked from a
  section of ``report.html``.
"""

from __future__ import annotations

import json
from pathlib import Path

from reading_maths.integrity.pages import write as write_pages
from reading_maths.integrity.run import integrity
from reading_maths.reports import spreadsheet
from reading_maths.reports.class_data import ReportData, gather
from reading_maths.reports.html_report import write_html


def write_csv(data: ReportData, path: Path) -> None:
    """The LMS import: one row per student, score per assignment (late penalty applied), total."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = spreadsheet.writer(fh)  # every field quoted, no cell a spreadsheet would run as a formula
        out.writerow(spreadsheet.row(["student_id", "last_name", "first_name", "email", *data.assignments, "total"]))
        for s in data.students:
            out.writerow(spreadsheet.row([s.id, s.last_name, s.first_name, s.email,
                                          *(float(s.scores[a]) for a in data.assignments), float(s.total)]))


def build_report(root: Path, out: Path | None = None, assignment: str | None = None) -> dict[str, Path]:
    """Write ``grades.csv``, ``report.html`` and ``report.json`` to ``out`` (``<root>/reports``)."""
    root = Path(root).resolve()
    out = Path(out) if out else root / "reports"
    out.mkdir(parents=True, exist_ok=True)
    data = gather(root, assignment)
    paths = {"csv": out / "grades.csv", "html": out / "report.html", "json": out / "report.json"}
    write_csv(data, paths["csv"])
    similar = {a: integrity(root, a) for a in data.assignments}
    for a, result in similar.items():
        write_pages(result, out / "integrity" / a)
    write_html(data, paths["html"], similar=similar)
    paths["json"].write_text(json.dumps(data.to_json(), indent=2), encoding="utf-8")
    return paths
