"""The ``reading-maths`` group, and what its commands share: the course folder, the sandbox, two options."""

from __future__ import annotations

import warnings
from pathlib import Path

import click

from reading_maths.course import find_root
from reading_maths.grading.budget import FLOOR, MULTIPLE
from reading_maths.grading.engine import Settings
from reading_maths.sandbox.limits import Limits
from reading_maths.sandbox.process import SandboxUnavailable, choose


def grading_settings(timeout: float, unsafe: bool, budget: float | None = None, jobs: int = 0) -> Settings:
    """The engine's settings; each sandbox's memory cap sized for ``jobs`` at once (0: one per core)."""
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            sandbox = choose(allow_unsafe=unsafe, limits=Limits.for_jobs(jobs))
    except SandboxUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    for warning in seen:
        click.secho(f"warning: {warning.message}", fg="yellow", err=True)
    if not sandbox.isolated:
        click.secho("warning: --unsafe-no-sandbox: student code runs as a plain subprocess of this user "
                    "(rlimits only) and can read what this user can read", fg="yellow", err=True)
    return Settings(sandbox, cell_timeout=timeout, call_timeout=timeout, budget=budget)


UNSAFE = click.option("--unsafe-no-sandbox", "unsafe", is_flag=True,
                      help="Grade even where no sandbox can be had (student code then runs as a plain "
                           "subprocess of this user). Without it, grading refuses there.")
BUDGET = click.option("--budget", default=None, type=click.FloatRange(min=0, min_open=True),
                      help="Seconds one notebook's whole grading may take (all its cells and calls); the questions "
                           f"not graded by then get 0, status timeout.  [default: {MULTIPLE:g} times the reference "
                           f"solution's own grading time, at least {FLOOR:g} s]")


def course_root() -> Path:
    """The course this command works on: ``--course``, else the nearest folder above the working
    directory holding graders/ and source/."""
    given = click.get_current_context().find_root().params.get("course")
    try:
        return find_root(given)
    except FileNotFoundError as exc:
        raise click.ClickException(f"{exc}; run reading-maths from the course folder or pass --course") from None


class Commands(click.Group):
    """A group whose ``--help`` gives each command's whole summary, wrapped, never cut at the terminal's width."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, command.get_short_help_str(limit=1000)) for name in self.list_commands(ctx)
                if (command := self.get_command(ctx, name)) is not None and not command.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--course", type=click.Path(exists=True, file_okay=False, path_type=Path), envvar="READING_MATHS_COURSE",
              help="The course folder (default: the one holding the working directory; env READING_MATHS_COURSE).")
@click.version_option(package_name="reading-maths")
def main(course: Path | None) -> None:
    """Auto-graded exercises for *Reading the maths in papers*."""
