"""The commands around grading: write the course (``release``, ``new-question``), hand it out and take it in
(``gradescope``, ``gather``), and read what came of it (``report``, ``checks export``)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from reading_maths.cli.group import course_root, main
from reading_maths.reports import outputs
from reading_maths.reports.escape import terminal_text
from reading_maths.reports.tables import print_gathered


@main.command("release")
@click.argument("assignments", nargs=-1)
def release_command(assignments):
    """Regenerate release/ from source/ (nbgrader generate_assignment) and set the due dates of nbgrader_config.py."""
    from reading_maths.nbgrader.release import release

    try:
        released = release(course_root(), list(assignments) or None)
    except LookupError as exc:
        raise click.ClickException(str(exc.args[0])) from None
    for assignment, due in released.items():
        when = f"due {due:%Y-%m-%d %H:%M} UTC" if due else "no due date (c.Term.due_dates in nbgrader_config.py)"
        click.echo(f"release/{assignment}/ regenerated; {when}")


@main.command("new-question")
@click.argument("assignment")
@click.argument("question")
def new_question_command(assignment, question):
    """Scaffold QUESTION in ASSIGNMENT: its cells in the source notebook, a grader file and corpus stubs."""
    from reading_maths.scaffold import new_question

    root = course_root()
    try:
        written = new_question(root, assignment, question)
    except (ValueError, FileNotFoundError, FileExistsError) as exc:
        raise click.ClickException(str(exc)) from None
    for path in written:
        click.echo(f"written: {path.relative_to(root)}")
    click.echo(f"next: the prompt and the solution in {written[0].relative_to(root)}, the cases in "
               f"{written[1].relative_to(root)}, the corpora, then `reading-maths release {assignment}` "
               "(graders/README.md)")


@main.command("gradescope")
@click.argument("assignment")
@click.option("--out", type=click.Path(path_type=Path), help="The zip to write (default: autograder-ASSIGNMENT.zip).")
@click.option("--hidden-visibility", type=click.Choice(outputs.VISIBILITIES), default="after_published",
              show_default=True, help="When students see the hidden tests' results (Gradescope's visibility).")
@click.option("--timeout", default=30.0, show_default=True, help="Seconds a cell or a call may run.")
@click.option("--unsafe-no-sandbox", "unsafe", is_flag=True,
              help="Grade with resource limits only when Gradescope's image cannot run the sandbox.")
def gradescope_command(assignment, out, hidden_visibility, timeout, unsafe):
    """Build a Gradescope autograder.zip for ASSIGNMENT (setup.sh, run_autograder, the package and the graders)."""
    from reading_maths.gradescope import build

    out = out or Path(f"autograder-{assignment}.zip")
    try:
        names = build(course_root(), assignment, out, hidden=hidden_visibility, timeout=timeout,
                      unsafe=unsafe)
    except FileNotFoundError as exc:
        raise click.ClickException(str(exc)) from None
    from reading_maths.course import Assignment
    from reading_maths.notebook import nbgrader_meta, test_cells

    points = sum(float(nbgrader_meta(c).get("points", 0))
                 for c in test_cells(Assignment(assignment, course_root()).source))
    click.echo(f"{out}: {len(names)} files. On Gradescope: a Programming Assignment worth {points:g} points "
               f"(auto-graded), students upload {assignment}.ipynb; Configure Autograder: upload {out}")


@main.command("gather")
@click.argument("roster", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--assignment", "-a", required=True, help="The assignment to gather.")
@click.option("--repo-template",
              help="Each student's repository, from the roster's columns, e.g. "
                   "https://github.com/ORG/{assignment}-{github_username}.git (default: its repository column).")
def gather_command(roster, assignment, repo_template):
    """Clone each ROSTER student's repository and file its notebook as submitted/<student>/ASSIGNMENT/."""
    from reading_maths.nbgrader.gather import RosterError, gather

    try:
        results = gather(course_root(), roster, assignment, repo_template)
    except (RosterError, KeyError) as exc:
        raise click.ClickException(f"cannot read the roster: {exc}") from None
    print_gathered(results)
    got = sum(r.status == "gathered" for r in results)
    click.echo(f"{got} of {len(results)} submissions of {assignment} gathered into submitted/")


@main.command("report")
@click.argument("assignment", required=False)
@click.option("--out", type=click.Path(path_type=Path), help="Output folder (default: reports/ in the course).")
def report_command(assignment, out):
    """Grades CSV for an LMS and an HTML report (distributions, difficulty, common mistakes) from the gradebook."""
    from reading_maths.reports.report import build_report

    try:
        paths = build_report(course_root(), out, assignment)
    except LookupError as exc:
        raise click.ClickException(str(exc.args[0])) from None
    for kind, path in paths.items():
        click.echo(f"{kind}: {path}")
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    if data["left_out"]:
        click.echo(f"not in the report (no submission yet): {', '.join(data['left_out'])}")
    for name, waiting in data["awaiting_hand_marking"].items():
        if waiting:
            click.secho(f"{name}: {max(waiting.values())} submission(s) await hand-marking in formgrader "
                        f"({', '.join(waiting)}); they count 0 in grades.csv until marked", fg="yellow")
    for t in data["time_disagreements"]:
        said = "; ".join(f"{where} says {text!r}" for where, text in t["claimed"].items())
        click.secho(terminal_text(f"{t['assignment']}: {t['student']}'s submission was recorded at {t['recorded']} "
                                  f"({t['source']}), but the student's {said}"), fg="yellow")


@main.command("integrity")
@click.argument("assignment")
@click.option("--out", type=click.Path(path_type=Path),
              help="Output folder (default: reports/integrity/ASSIGNMENT in the course).")
@click.option("--top", default=10, show_default=True, help="Pairs listed here (the page lists more).")
@click.option("--jobs", default=0, help="Processes comparing (default: one per core).")
def integrity_command(assignment, out, top, jobs):
    """Compare every pair of ASSIGNMENT's submissions; rank them, with a side-by-side page per pair (evidence)."""
    from reading_maths.integrity.pages import write
    from reading_maths.integrity.run import integrity
    from reading_maths.reports.tables import integrity_table

    root = course_root()
    if not (root / "source" / assignment / f"{assignment}.ipynb").is_file():
        raise click.ClickException(f"no assignment {assignment!r} in {root / 'source'}")
    result = integrity(root, assignment, jobs=jobs)
    index = write(result, out or root / "reports" / "integrity" / assignment)
    integrity_table(result, top)
    for group in result.identical:
        click.secho(terminal_text(f"identical answer cells: {', '.join(group)}"), fg="yellow")
    for student, why in result.unread.items():
        click.echo(terminal_text(f"not read: {student}: {why}"))
    click.echo(f"{len(result.flagged())} pair(s) at or above {result.threshold:.2f} of {len(result.students)} "
               f"submissions; evidence, not verdicts: {index}")


@main.group("checks")
def checks_group():
    """The checks students asked the hidden tests for on the hub (docs/checks.md)."""


@checks_group.command("export")
@click.option("--db", help="The checks database, a file or a URL (default: $READING_MATHS_CHECKS_DB, or "
                          "checks.sqlite in the course).")
@click.option("--format", "fmt", type=click.Choice(["csv", "jsonl"]), default="csv", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write here (default: standard output).")
def checks_export_command(db, fmt, out):
    """Every check request (who, when, the notebook's sha256, the outcome and the result), oldest first."""
    from reading_maths.checks.store import export, location, missing

    db = db or location(course_root())
    if missing(db):
        raise click.ClickException(f"no checks database at {db}")
    text = export(db, fmt)
    if out:
        out.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
