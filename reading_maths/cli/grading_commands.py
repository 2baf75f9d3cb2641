"""The commands that grade: ``grade`` (notebooks, for CI and Gradescope), ``autograde`` (an nbgrader course's
submissions, once or as they arrive) and ``doctor`` (the isolation grading would have here)."""

from __future__ import annotations

import gc
import json
import os
import sys
from pathlib import Path

import click

from reading_maths.cli.group import BUDGET, UNSAFE, course_root, grading_settings, main
from reading_maths.grading.batch import grade_many
from reading_maths.grading.engine import NotGradable, load
from reading_maths.inputs import notebooks_in
from reading_maths.reports import outputs
from reading_maths.reports.escape import terminal_text
from reading_maths.reports.tables import print_table


@main.command("grade")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (a list for several notebooks).")
@click.option("--junit", type=click.Path(path_type=Path), help="Write a JUnit XML report here.")
@click.option("--gradescope", type=click.Path(path_type=Path),
              help="Write Gradescope's results.json here (for one notebook; written even when it cannot be graded).")
@click.option("--hidden-visibility", type=click.Choice(outputs.VISIBILITIES), default="after_published",
              show_default=True, help="Gradescope visibility of the hidden tests.")
@click.option("--assignment", help="Grade only notebooks of this assignment.")
@click.option("--summary", type=click.Path(path_type=Path),
              help="Append a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY).")
@click.option("--fail-under", type=float, help="Exit with status 3 when a notebook scores below this.")
@click.option("--timeout", default=30.0, show_default=True, help="Seconds a cell or a call may run.")
@BUDGET
@click.option("--jobs", "-j", default=0, help="Cores to grade on: that many notebooks at once (0: every core).")
@UNSAFE
def grade_command(paths, as_json, junit, gradescope, hidden_visibility, assignment, summary, fail_under, timeout,
                  budget, jobs, unsafe):
    """Grade notebooks (files, or folders of them) on the course's hidden graders.

    A notebook that cannot be read (not UTF-8, not JSON, not this course's) costs only itself: it is
    reported with its reason and every question of the others' assignment at 0, status error.

    \b
    Exit status (the first that applies):
      1  nothing could be graded (one-line reason);
      4  some notebooks could not be read; the others were graded and every output written;
      3  graded, but a notebook scored below --fail-under;
      0  every notebook graded.
    """
    try:
        root = course_root()
        notebooks, unreadable, assignment = _gradable(paths, root, assignment)
        settings = grading_settings(timeout, unsafe, budget, jobs)
    except click.ClickException as exc:
        if gradescope:
            gradescope.write_text(outputs.gradescope_refusal(exc.message), encoding="utf-8")
        raise
    if gradescope:  # Gradescope takes one result: the assignment's own notebook first
        notebooks = notebooks[:1]
        unreadable = {nb: why for nb, why in unreadable.items() if nb in notebooks}
    results = grade_many(notebooks, settings, jobs=jobs, root=root, assignment=assignment,
                         progress=len(notebooks) > 1 and not as_json and sys.stderr.isatty())
    if as_json:
        data = [r.to_json() for r in results]
        click.echo(json.dumps(data[0] if len(data) == 1 else data, indent=2))
    else:
        print_table(results)
    if junit:
        junit.write_text(outputs.junit(results), encoding="utf-8")
    if gradescope:
        gradescope.write_text(outputs.gradescope(results[0], hidden_visibility),
                              encoding="utf-8")
    if summary:
        with summary.open("a", encoding="utf-8") as fh:
            fh.write(outputs.markdown(results))
    if unreadable:
        click.secho(f"{len(unreadable)} notebook(s) could not be read and were not graded:", fg="yellow", err=True)
        for reason in unreadable.values():
            click.echo(f"  {terminal_text(reason)}", err=True)
        sys.exit(4)
    if fail_under is not None and any(r.score < fail_under for r in results):
        sys.exit(3)


def _gradable(paths: tuple[Path, ...], root: Path,
              assignment: str | None) -> tuple[list[Path], dict[Path, str], str | None]:
    """The notebooks under ``paths`` to grade, why those that cannot be read cannot, and their assignment.

    Unreadable notebooks are kept (each is graded as an error); with ``assignment``, readable notebooks
    of other assignments are left out, and ``<assignment>.ipynb`` comes first. Raises when nothing
    can be graded.
    """
    notebooks = [n for p in paths for n in (notebooks_in(p) if p.is_dir() and not p.is_symlink() else [p])]
    if not notebooks:
        raise click.ClickException("no notebooks found")
    unreadable: dict[Path, str] = {}
    ids: dict[Path, str] = {}
    for nb in notebooks:
        try:
            ids[nb] = load(nb, root)[1].id
        except NotGradable as exc:
            unreadable[nb] = str(exc)
    others = []
    if assignment is not None:
        others = [f"{nb.name} is a notebook of {a}, not {assignment}" for nb, a in ids.items() if a != assignment]
        notebooks = [nb for nb in notebooks if ids.get(nb, assignment) == assignment]
    elif len(set(ids.values())) == 1:
        assignment = next(iter(ids.values()))
    if not [nb for nb in notebooks if nb not in unreadable]:
        raise click.ClickException(next(iter(unreadable.values()), others[0] if others else "no notebooks found"))
    order = sorted(notebooks, key=lambda nb: (nb in unreadable, nb.name != f"{assignment}.ipynb"))
    return order, unreadable, assignment


@main.command("autograde")
@click.argument("assignment")
@click.option("--student", help="Grade only this student's submission.")
@click.option("--jobs", "-j", default=0, help="Cores to grade on: that many notebooks at once (0: every core).")
@click.option("--timeout", default=30.0, show_default=True, help="Seconds a cell or a call may run.")
@BUDGET
@UNSAFE
@click.option("--scheduler", metavar="ADDRESS",
              help="Grade on a Dask cluster instead of --jobs local processes: its scheduler's address "
                   "(tcp://host:8786), or a Dask Gateway's URL with ?workers=N (a cluster started for this batch, "
                   "shut down after it; other parameters are the gateway's cluster options) or ?cluster=NAME (one "
                   "that runs). Every worker is checked as `doctor` checks this machine first; the gradebook is "
                   "written here.")
@click.option("--watch", is_flag=True,
              help="Keep running: grade each new or resubmitted notebook in submitted/ within seconds (Ctrl-C stops).")
@click.option("--collect", is_flag=True,
              help="With --watch: also run nbgrader's collect --update from the exchange before each look.")
@click.option("--interval", default=1.0, show_default=True, help="With --watch: seconds between looks.")
def autograde_command(assignment, student, jobs, timeout, budget, unsafe, scheduler, watch, collect, interval):
    """Grade submitted/<student>/ASSIGNMENT/ in the sandbox; write autograded/ and nbgrader's gradebook."""
    from rich.console import Console

    from reading_maths.course import Assignment
    from reading_maths.grading.remote import ClusterUnavailable, WorkersUnfit
    from reading_maths.nbgrader.autograde import autograde, nothing_to_grade, open_course
    from reading_maths.reports.tables import autograde_table, workers_table

    if watch:
        _watch(assignment, grading_settings(timeout, unsafe, budget, jobs), jobs, collect, interval)
        return
    root = course_root()
    settings = grading_settings(timeout, unsafe, budget, jobs)
    unsandboxed = not settings.sandbox.isolated  # workers without a sandbox may grade only when this one has none
    try:
        outcomes = autograde(root, assignment, settings, student=student, jobs=jobs, scheduler=scheduler,
                             on_workers=lambda reports: Console().print(workers_table(reports, unsandboxed)))
    except LookupError as exc:
        raise click.ClickException(str(exc.args[0])) from None
    except (ClusterUnavailable, WorkersUnfit) as exc:
        raise click.ClickException(str(exc)) from None
    if not outcomes:
        raise click.ClickException(nothing_to_grade(open_course(root, assignment)[1], assignment, student))
    Console().print(autograde_table(outcomes, assignment, Assignment(assignment, root).grade_ids))
    refused = [o.student for o in outcomes if o.refused]
    if refused:
        click.secho(f"{len(refused)} submission(s) could not be read by nbgrader and got 0: {', '.join(refused)}",
                    fg="yellow", err=True)
    gc.freeze()  # a batch leaves many objects behind: the interpreter need not collect them all on its way out


def _watch(assignment: str, settings, jobs: int, collect: bool, interval: float) -> None:
    """``autograde --watch``: until Ctrl-C or SIGTERM, one line per submission graded."""
    import signal
    import threading

    from reading_maths.nbgrader.watch import watch

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())

    def graded(outcomes) -> None:
        for o in outcomes:
            shown = f"refused: {o.refused}" if o.refused else f"{o.total:g} / {sum(o.max_scores.values()):g}"
            click.echo(terminal_text(f"graded {o.student}: {shown}"))

    click.echo(f"watching submitted/*/{assignment}/ (Ctrl-C stops)")
    try:
        watch(course_root(), assignment, settings, jobs=jobs, interval=interval, collect_first=collect, stop=stop,
              on_graded=graded)
    except LookupError as exc:
        raise click.ClickException(str(exc.args[0])) from None
    except KeyboardInterrupt:
        pass
    click.echo("stopped watching")


def _echo_budgets() -> None:
    """Each assignment's default budget: what its reference took, times the multiple (measured at the first
    grading, then kept in the course's reference-times.json)."""
    from reading_maths.course import assignments
    from reading_maths.grading.budget import FLOOR, MULTIPLE, TIMES_FILE, default_budget, measured_seconds

    try:
        root = course_root()
    except click.ClickException:
        return
    click.echo(f"budgets: {MULTIPLE:g} times the reference solution's own grading time, at least {FLOOR:g} s "
               f"(--budget or c.GradeInSandbox.budget to override; times kept in {TIMES_FILE})")
    for assignment in assignments(root):
        seconds = measured_seconds(assignment)
        click.echo(f"  {assignment.id}: " + (f"{default_budget(seconds):g} s (its reference took {seconds:g} s)"
                                             if seconds is not None else
                                             f"at least {FLOOR:g} s (measured when first graded)"))


@main.command("doctor")
@click.option("--jobs", "-j", default=0,
              help="The --jobs you grade with (0: every core): it sizes each sandbox's memory.")
def doctor_command(jobs):
    """Print which isolation this machine gives student code, and why; exit 1 when grading would refuse."""
    from reading_maths.sandbox.doctor import guarantees, remedy

    mode, found = guarantees(jobs)
    names = {"bwrap": "full sandbox as root (bwrap + another uid)",
             "userns": "full sandbox as an ordinary user (bwrap in a user namespace)",
             "plain": "NO SANDBOX: grading refuses unless --unsafe-no-sandbox"}
    click.echo(f"sandbox: {mode} - {names[mode]}")
    if fix := remedy(mode):
        click.echo(f"fix: {fix}")
    for item in found:
        click.echo(f"  [{'held' if item.held else 'NOT held'}] {item.name}: {item.why}")
    _echo_budgets()
    layout = []
    if shared := os.environ.get("READING_MATHS_EXCHANGE"):  # a hub's shared exchange (hub/jupyterhub_config.py)
        from reading_maths.nbgrader.exchange import layout_checks

        layout = layout_checks(Path(shared), os.environ.get("READING_MATHS_COURSE_ID", "reading-maths"))
        click.echo(f"exchange: {shared} (shared by the hub's accounts)")
        for held, statement in layout:
            click.echo(f"  [{'held' if held else 'NOT held'}] {statement}")
    sys.exit(0 if mode != "plain" and all(held for held, _ in layout) else 1)
