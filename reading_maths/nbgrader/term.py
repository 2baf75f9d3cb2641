"""This term's dates, read from the course's ``nbgrader_config.py``: ``c.Term.due_dates``.

nbgrader keeps each assignment's due date in the gradebook (``nbgrader db assignment add A --duedate``);
a course keeps them in its configuration instead, beside the late policy, and ``reading-maths
release`` writes them into the gradebook, where ``collect``, ``autograde``, formgrader and the
late-penalty plugin read them.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from traitlets import Dict, Unicode
from traitlets.config import Configurable


class Term(Configurable):
    """The course's term: when each assignment is due."""

    due_dates = Dict(value_trait=Unicode(), default_value={},
                     help='assignment id -> due date, e.g. {"code": "2027-02-05 17:00:00 Europe/London"}'
                     ).tag(config=True)


def due_dates(root: Path) -> dict[str, dt.datetime]:
    """``c.Term.due_dates`` of the course at ``root``, as nbgrader's naive UTC datetimes."""
    from nbgrader.utils import parse_utc

    from reading_maths.nbgrader.environment import course_config

    return {a: parse_utc(when) for a, when in Term(config=course_config(root)).due_dates.items()}


def write_due_dates(db_url: str, dates: dict[str, dt.datetime], assignments: list[str]) -> dict[str, dt.datetime]:
    """Set each of ``assignments``' due date in the gradebook at ``db_url`` to ``dates``' (those it names)."""
    from nbgrader.api import Gradebook

    written = {a: dates[a] for a in assignments if a in dates}
    with Gradebook(db_url) as gb:
        for assignment, when in written.items():
            gb.update_or_create_assignment(assignment, duedate=when)
    return written


def due_date(db_url: str, assignment: str) -> dt.datetime | None:
    """The assignment's due date in the gradebook (naive UTC), or None."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        try:
            return gb.find_assignment(assignment).duedate
        except MissingEntry:
            return None
