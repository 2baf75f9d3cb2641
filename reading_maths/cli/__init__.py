"""The ``reading-maths`` command line: the group (:mod:`.group`) and its commands (:mod:`.grading_commands`,
:mod:`.course_commands`)."""

from reading_maths.cli import course_commands, grading_commands  # noqa: F401 - defining them adds them to main
from reading_maths.cli.group import main

__all__ = ["main"]
