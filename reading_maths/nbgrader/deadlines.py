"""What a student may know of the term: each assignment's due date and the course's late policy, read afresh.

The due dates live where the instructor keeps them: ``c.Term.due_dates`` in the course's ``nbgrader_config.py``
(:mod:`reading_maths.nbgrader.term`), or, for an assignment the config does not name, the gradebook's due date
(``nbgrader db assignment add A --duedate``, formgrader).  The late policy is the course's
``c.AssignLatePenalties.plugin_class`` (nbgrader's own plugin by default), asked what it would take at a given
moment.  Both are read on every call, so a date moved in the config is what students see on their next look,
without a release.

The checks service answers ``GET api/deadlines`` with :func:`deadlines` (hub/checks.py); the hub's JupyterLab
extension shows it in nbgrader's Assignments tab and asks before a late Submit (hub/checks-lab/index.js).
"""

from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path

UTC = dt.UTC
PROBE = 100.0
"""The score the late plugin is asked about: its penalty on it is a percentage."""


def _config(root: Path):
    from reading_maths.nbgrader.environment import course_config

    return course_config(root)


def configured_dates(config) -> dict[str, dt.datetime]:
    """``c.Term.due_dates`` as aware UTC datetimes (an unreadable date is left out)."""
    from nbgrader.utils import parse_utc

    from reading_maths.nbgrader.term import Term

    dates = {}
    for assignment, text in Term(config=config).due_dates.items():
        try:
            dates[assignment] = parse_utc(text).replace(tzinfo=UTC)
        except Exception:  # noqa: BLE001 - dateutil raises several kinds; an instructor's typo hides one date
            continue
    return dates


@functools.cache
def _reader(url: str):
    """An engine that reads the gradebook at ``url`` (kept: the checks service asks on every request); a SQLite file
    is opened read only."""
    from sqlalchemy import create_engine, make_url
    from sqlalchemy.pool import NullPool

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":  # opened afresh each time, as the file is now
        file = Path(parsed.database or "")
        return create_engine(f"sqlite:///file:{file.as_posix()}?mode=ro&uri=true", connect_args={"timeout": 5},
                             poolclass=NullPool)
    return create_engine(parsed, pool_pre_ping=True, pool_size=2, connect_args={"connect_timeout": 5})


def _gradebook(config, root: Path, sql: str) -> list[tuple]:
    """Rows of ``sql`` from the course's gradebook (SQLite or PostgreSQL), read only (a missing gradebook is not
    made; none, or one that cannot be read: [])."""
    from sqlalchemy import make_url, text
    from sqlalchemy.exc import SQLAlchemyError

    from reading_maths.nbgrader.environment import course_directory

    try:
        coursedir = course_directory(root)
        coursedir.config = config
        url = make_url(coursedir.db_url)
    except Exception:  # noqa: BLE001 - no gradebook configured, or not a URL
        return []
    if url.get_backend_name() == "sqlite" and not Path(url.database or "").is_file():
        return []
    try:
        with _reader(coursedir.db_url).connect() as db:
            return [tuple(row) for row in db.execute(text(sql))]
    except SQLAlchemyError:
        return []


def gradebook_dates(config, root: Path) -> dict[str, dt.datetime]:
    """Due dates in the course's gradebook, as aware UTC."""
    dates = {}
    for name, text in _gradebook(config, root, "SELECT name, duedate FROM assignment WHERE duedate IS NOT NULL"):
        try:
            dates[name] = dt.datetime.fromisoformat(str(text)).replace(tzinfo=UTC)
        except ValueError:
            continue
    return dates


def roster(root: Path) -> list[str]:
    """The class list: the students in the course's gradebook (``nbgrader db student add``), read only."""
    return sorted(name for (name,) in _gradebook(_config(root), Path(root), "SELECT id FROM student"))


def late_plugin(config):
    """The course's late-submission plugin, configured as autograde configures it."""
    from nbgrader.preprocessors import AssignLatePenalties

    penalties = AssignLatePenalties(config=config)
    return penalties.plugin_class(parent=penalties)


def policy_text(plugin) -> str:
    """The late policy in a few words: the plugin's ``summary``, or what nbgrader's own plugin does, or the first
    line of the plugin's docstring."""
    from nbgrader.plugins import LateSubmissionPlugin

    summary = getattr(plugin, "summary", None)
    if isinstance(summary, str) and summary:
        return summary
    if type(plugin) is LateSubmissionPlugin:
        return "late work scores 0" if plugin.penalty_method == "zero" else "no penalty for late work"
    doc = (type(plugin).__doc__ or "").strip().splitlines()
    return doc[0].rstrip(".") if doc else f"late work is penalised ({type(plugin).__name__})"


def penalty_percent(plugin, student: str, seconds_late: float) -> float | None:
    """The share of a notebook's score (in %) that ``plugin`` takes for work ``seconds_late`` late, as autograde
    clips it (between 0 and the whole score); None when the plugin cannot say."""
    if seconds_late <= 0:
        return 0.0
    try:
        taken = plugin.late_submission_penalty(student, PROBE, seconds_late)
    except Exception:  # noqa: BLE001 - a plugin that fails here fails at autograde too: say nothing certain
        return None
    if taken is None:
        return 0.0
    return round(min(max(float(taken), 0.0), PROBE) / PROBE * 100, 6)


def stamp(moment: dt.datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def deadlines(root: Path, student: str, when: dt.datetime | None = None) -> dict:
    """Every assignment with a due date, for ``student`` at ``when`` (now): its due date (UTC, ISO), the seconds
    it is late by (negative: time left), the penalty (in % of the score) a submission at ``when`` would cost, and
    where the date comes from; the course's id and late policy in words."""
    root = Path(root)
    when = (when or dt.datetime.now(UTC)).astimezone(UTC)
    config = _config(root)
    dates = {a: (d, "gradebook") for a, d in gradebook_dates(config, root).items()}
    dates |= {a: (d, "nbgrader_config.py") for a, d in configured_dates(config).items()}
    plugin = late_plugin(config)
    listed = []
    for assignment, (due, source) in sorted(dates.items(), key=lambda item: (item[1][0], item[0])):
        late = (when - due).total_seconds()
        listed.append({"id": assignment, "due": stamp(due), "seconds_late": round(late, 3),
                       "penalty_percent": penalty_percent(plugin, student, late), "source": source})
    from nbgrader.coursedir import CourseDirectory

    return {"now": stamp(when), "course_id": CourseDirectory(config=config).course_id,
            "policy": policy_text(plugin), "assignments": listed}
