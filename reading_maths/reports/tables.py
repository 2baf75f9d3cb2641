"""Tables for a terminal (rich): a graded notebook, an autograded class, a class's grade sheet."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from reading_maths.reports.escape import rich_text
from reading_maths.results import GradeResult

if TYPE_CHECKING:
    from reading_maths.grading.remote import WorkerReport
    from reading_maths.integrity.run import Result
    from reading_maths.nbgrader.recording import Outcome


def print_table(results: list[GradeResult], console: Console | None = None) -> None:
    """One table per notebook: question, score, status, feedback (all shown as text, never as markup)."""
    console = console or Console()
    for res in results:
        table = Table(title=rich_text(f"{res.notebook} ({res.assignment}): {res.score:g} / {res.max_score:g}"),
                      title_justify="left", show_lines=True)
        table.add_column("question")
        table.add_column("score", justify="right")
        table.add_column("status")
        table.add_column("feedback")
        for q in res.questions:
            table.add_row(rich_text(q.id), f"{q.score:g} / {q.max_score:g}", q.status, rich_text("\n".join(q.feedback)))
        console.print(table)
        for error in res.errors:
            console.print(Text.assemble(("note:", "yellow"), " ", rich_text(error)))


def print_gathered(results: list, console: Console | None = None) -> None:
    """``reading-maths gather``'s table: student, commit, what happened (names and reasons shown as text)."""
    table = Table(title="gathered", title_justify="left")
    for column in ("student", "commit", "status"):
        table.add_column(column)
    for r in results:
        table.add_row(rich_text(r.student), r.commit, rich_text(r.status))
    (console or Console()).print(table)


def autograde_table(outcomes: list[Outcome], assignment: str, order: list[str] | None = None) -> Table:
    """``reading-maths autograde``'s table, one row per student: points per question out of its maximum (in
    the notebook's ``order``), hand-marked ones not yet marked as such, the total, any refusal."""
    found = [q for q in dict.fromkeys(q for o in outcomes for q in o.scores)  # not the 0-point mark schemes
             if any(o.max_scores.get(q) for o in outcomes)]
    questions = [q for q in order or [] if q in found] + [q for q in found if q not in (order or [])]
    maxima = {q: next((o.max_scores[q] for o in outcomes if q in o.max_scores), 0.0) for q in questions}
    table = Table(title=f"autograde {assignment}: {len(outcomes)} submission(s); \"to mark\": awaiting hand-marking "
                        "in formgrader")
    width = max([len("student"), *(len(o.student) for o in outcomes)])
    table.add_column("student", no_wrap=True, min_width=width)  # a name is what a teacher searches for: whole
    for q in questions:
        table.add_column(f"{q} /{maxima[q]:g}", justify="right", overflow="fold")  # long ids wrap, not vanish
    table.add_column("total", justify="right")
    table.add_column("note")
    for o in outcomes:
        cells = ["to mark" if q in o.pending or o.scores.get(q) is None else f"{o.scores[q]:g}" for q in questions]
        pending = sum(m for q, m in o.max_scores.items() if q in o.pending or o.scores.get(q) is None)
        total = f"{o.total:g} / {sum(o.max_scores.values()) - pending:g}"
        total += f" + {pending:g} to mark" if pending else ""
        table.add_row(rich_text(o.student), *cells, total,
                      Text(f"refused: {o.refused}", style="red") if o.refused else "")
    return table


def workers_table(reports: list[WorkerReport], unsafe: bool = False) -> Table:
    """``autograde --scheduler``'s check of the cluster, one row per worker: its sandbox as ``doctor`` finds it, the
    guarantees it does not hold, whether its course is the driver's, and whether it may grade."""
    table = Table(title=f"doctor on {len(reports)} worker(s)", title_justify="left")
    for column in ("worker", "host", "sandbox", "held", "not held", "course", "grades"):
        table.add_column(column, overflow="fold")
    for report in reports:
        missing = [g.name.split(" (")[0] for g in report.guarantees if not g.held]
        table.add_row(rich_text(report.worker), rich_text(report.host), report.mode,
                      f"{len(report.guarantees) - len(missing)} / {len(report.guarantees)}",
                      "no sandbox: `reading-maths doctor` there lists them" if report.mode == "plain" else
                      "; ".join(missing) or "-",
                      "the driver's" if all(held for held, _ in report.course) else Text("differs", style="red"),
                      Text("REFUSED", style="red") if report.problems(unsafe) else "yes")
    return table


def grade_table(grades_csv: Path, profile: dict[str, str]) -> Table:
    """The class's grades (the report's LMS CSV: late penalties and hand marks included) as a table."""
    with grades_csv.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    columns = [c for c in (rows[0] if rows else {}) if c not in ("student_id", "last_name", "first_name", "email")]
    table = Table(title="the class's grades", title_justify="left")
    for column in ["student", "answers", *columns]:
        table.add_column(column, justify="left" if column in ("student", "answers") else "right")
    for row in rows:
        cells = [row["student_id"], profile.get(row["student_id"], ""), *(row[c] for c in columns)]
        table.add_row(*map(rich_text, cells))
    return table


def integrity_table(result: Result, top: int = 10, console: Console | None = None) -> None:
    """``reading-maths integrity``'s table: the ``top`` pairs, most alike first, with what matches (as text)."""
    table = Table(title=f"integrity {result.assignment}: pairs most alike first (flagged at "
                        f"{result.threshold:.2f})", title_justify="left")
    for column in ("rank", "students", "score", "what matches"):
        table.add_column(column)
    for rank, pair in enumerate(result.pairs[:top], 1):
        score = Text(f"{pair.score:.2f}", style="bold red" if pair.score >= result.threshold else "")
        table.add_row(str(rank), rich_text(f"{pair.a}, {pair.b}"), score, rich_text(pair.reason()))
    (console or Console()).print(table)
