"""What the command line says when a teacher mistypes: whole summaries in --help, the names that exist."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner

from conftest import ROOT
from reading_maths.cli import main
from reading_maths.course import assignments

KNOWN = "known assignments: " + ", ".join(a.id for a in assignments(ROOT))


def test_help_gives_every_command_its_whole_summary():
    shown = CliRunner().invoke(main, ["--help"], terminal_width=80).output
    commands = shown.split("Commands:")[1]
    assert "..." not in commands, commands
    assert "exit 1 when grading would refuse" in " ".join(commands.split()), "a summary's end is shown"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    folder = tmp_path_factory.mktemp("course")
    for name in ("source", "graders"):
        shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    return folder


@pytest.mark.slow  # the gradebook runs alembic
@pytest.mark.parametrize("command", [["release", "cod"], ["autograde", "cod"], ["gradescope", "cod"]])
def test_a_mistyped_assignment_lists_the_known_ones(course, command):
    done = CliRunner().invoke(main, ["--course", str(course), *command])
    assert done.exit_code == 1 and KNOWN in done.output, done.output


@pytest.mark.slow
def test_grading_an_assignment_not_released_says_how(course):
    done = CliRunner().invoke(main, ["--course", str(course), "autograde", "code"])
    assert done.exit_code == 1 and "run `reading-maths release code` first" in done.output, done.output
