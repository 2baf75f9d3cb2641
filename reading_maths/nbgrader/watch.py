"""``reading-maths autograde ASSIGNMENT --watch``: grade each submission within seconds of its arrival.

Every ``interval`` seconds the watcher (optionally) collects from nbgrader's exchange with the course's
:class:`~reading_maths.nbgrader.exchange.SafeCollect` (the exchange service's
:class:`~reading_maths.nbgrader.served.ServedCollect`) in update mode, as ``nbgrader collect --update`` does
(each student's latest acceptable entry, by the time the student cannot set; refusals and time
disagreements printed once each), then looks at ``submitted/``: a student's folder whose nbgrader
timestamp or notebook files changed, and stayed unchanged for one more look (so a copy in progress is
not graded), is graded and recorded with :func:`reading_maths.nbgrader.autograde.autograde`, alone. On
start it grades the submissions with no recorded result, or one older than their files.
"""

from __future__ import annotations

import glob
import logging
import threading
from collections.abc import Callable
from pathlib import Path

from nbgrader.apps import AutogradeApp
from nbgrader.auth import Authenticator

from reading_maths.grading.engine import Settings
from reading_maths.nbgrader.autograde import Submission, autograde, find_submissions, open_course
from reading_maths.nbgrader.exchange import CourseExchange, SafeCollect
from reading_maths.nbgrader.recording import Outcome, results_path
from reading_maths.nbgrader.served import ServedCollect

log = logging.getLogger(__name__)

State = tuple[str | None, tuple[tuple[str, int, int], ...]]


def state(app: AutogradeApp, submission: Submission) -> State:
    """What identifies one version of a submission: nbgrader's timestamp and its files' times and sizes."""
    timestamp = app.coursedir.get_existing_timestamp(str(submission.folder))
    files = sorted(p for p in submission.folder.rglob("*") if p.is_file()) if submission.folder.is_dir() else []
    return (str(timestamp) if timestamp else None,
            tuple((str(p.relative_to(submission.folder)), p.stat().st_mtime_ns, p.stat().st_size) for p in files))


def up_to_date(app: AutogradeApp, submission: Submission, assignment: str) -> bool:
    """A result was recorded after the submission's files last changed."""
    saved = results_path(app.coursedir, submission.student, assignment)
    files = [p for p in submission.folder.rglob("*") if p.is_file()] if submission.folder.is_dir() else []
    return saved.is_file() and all(p.stat().st_mtime_ns <= saved.stat().st_mtime_ns for p in files)


class _OnceEach(logging.Handler):
    """Passes collect's refusals and time warnings on to the watcher's log, each once (the watcher collects
    every interval); nbgrader's own chatter stays quiet."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith(("Refused ", "Submission time of ")) and message not in self.seen:
            self.seen.add(message)
            log.warning("%s", message)


_QUIET = logging.getLogger(f"{__name__}.collect")
_QUIET.propagate = False
_QUIET.addHandler(_OnceEach())


def collect(app: AutogradeApp, assignment: str) -> None:
    """``nbgrader collect --update`` with the course's SafeCollect (ServedCollect with the exchange service): each
    student's latest acceptable submission (by the time the student cannot set) into submitted/."""
    app.coursedir.assignment_id = assignment
    app.coursedir.student_id = "*"
    served = CourseExchange(config=app.config).kind == "service"
    kind = ServedCollect if served else SafeCollect
    action = kind(coursedir=app.coursedir, authenticator=Authenticator(parent=app), parent=app)
    action.update = True
    action.check_owner = False  # SafeCollect checks owners itself (require_owner)
    action.log = _QUIET
    try:
        action.start()
    except Exception as exc:  # noqa: BLE001 - nbgrader's ExchangeError (no inbound folder yet) or a bad file
        log.debug("collect: %s", exc)


def watch(root: Path, assignment: str, settings: Settings, *, jobs: int = 0, interval: float = 1.0,
          collect_first: bool = False, stop: threading.Event | None = None,
          on_graded: Callable[[list[Outcome]], None] | None = None) -> None:
    """Grade new and resubmitted notebooks of ``assignment`` until ``stop`` is set (or Ctrl-C)."""
    root = Path(root).resolve()
    app, coursedir = open_course(root, assignment)
    stop = stop or threading.Event()
    graded: dict[str, State] = {}
    pending: dict[str, State] = {}
    first = True
    while not stop.is_set():
        if collect_first:
            collect(app, assignment)
        for submission in find_submissions(coursedir, assignment):
            now = state(app, submission)
            if first and up_to_date(app, submission, assignment):
                graded[submission.student] = now
            if graded.get(submission.student) == now:
                pending.pop(submission.student, None)
            elif pending.get(submission.student) == now or first:
                log.info("grading %s (%s)", submission.student, now[0] or "no timestamp")
                outcomes = autograde(root, assignment, settings, student=glob.escape(submission.student),
                                     jobs=jobs, progress=False)
                graded[submission.student] = now
                pending.pop(submission.student, None)
                if on_graded is not None:
                    on_graded(outcomes)
            else:
                pending[submission.student] = now  # seen changing: graded once it holds still
        first = False
        stop.wait(interval)

