"""When a submission came in, from times a student cannot set, and what the student's own times said.

The time nbgrader records for a submission (``submitted/<student>/<assignment>/timestamp.txt``, read by
``autograde`` into the gradebook's ``submission.timestamp``, from which the late penalty follows) is
written by whoever files the submission. Each path writes it from a time the student cannot choose:

- ``nbgrader collect`` (:class:`~reading_maths.nbgrader.exchange.SafeCollect`): the latest change time
  (``st_ctime``) of the inbound entry's folder and of everything in it, read without following links. No
  unprivileged call sets a change time back (``os.utime`` sets the modification and access times and moves
  the change time to *now*), and an entry made early and filled late carries the later time;
- ``nbgrader zip_collect``: what the LMS's export says (:mod:`reading_maths.nbgrader.lms`);
- ``reading-maths gather``: the time of gathering;
- Gradescope: its own record of the upload (``created_at``); nothing in the upload is read.

What the student wrote (the inbound entry's name, the ``timestamp.txt`` in it) is kept beside, in
``submission-times/<assignment>/<student>.json`` under the course root (outside ``submitted/``, which holds
what students hand in), so that collect's output and ``reading-maths report`` can show a disagreement of more
than :data:`TOLERANCE` to the instructor.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

FORMAT = "%Y-%m-%d %H:%M:%S.%f UTC"
"""nbgrader's own timestamp format (what ``nbgrader submit`` writes)"""
TOLERANCE = timedelta(minutes=1)
"""how far a student's own time may differ from the trusted one before the instructor is shown it"""
FOLDER = "submission-times"


def naive_utc(moment: datetime) -> datetime:
    """``moment`` as nbgrader keeps times: naive, in UTC."""
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def change_time(entry: Path) -> datetime:
    """The latest change time (``st_ctime``) of ``entry`` and of every name under it, read with ``lstat`` (no
    link is followed), as a naive UTC datetime."""
    latest = os.lstat(entry).st_ctime
    for parent, dirs, files in os.walk(entry, followlinks=False):
        for name in dirs + files:
            latest = max(latest, os.lstat(os.path.join(parent, name)).st_ctime)
    return datetime.fromtimestamp(latest, UTC).replace(tzinfo=None)


@dataclass
class SubmissionTimes:
    """One submission's trusted time (the one nbgrader records) and the times its student wrote."""

    student: str
    assignment: str
    trusted: str
    """the time recorded in ``timestamp.txt`` (:data:`FORMAT`)"""
    source: str
    """where ``trusted`` comes from, in words"""
    claimed: dict[str, str] = field(default_factory=dict)
    """what the student wrote (``"entry name"``, ``"timestamp.txt"``) → that time (:data:`FORMAT`), or the
    text as written when it is not a time"""

    def disagreements(self) -> dict[str, str]:
        """The student's times more than :data:`TOLERANCE` away from the trusted one (or not times at all)."""
        from nbgrader.utils import parse_utc

        trusted = parse_utc(self.trusted)
        found = {}
        for where, text in self.claimed.items():
            try:
                moment = parse_utc(text)
            except Exception:  # noqa: BLE001 - dateutil raises several kinds on a forged text
                found[where] = text
                continue
            if abs(moment - trusted) > TOLERANCE:
                found[where] = text
        return found

    def warning(self) -> str | None:
        """One line for the instructor naming the student and both times, or None when they agree."""
        off = self.disagreements()
        if not off:
            return None
        said = "; ".join(f"{where} says {text!r}" for where, text in off.items())
        said = said.encode("unicode_escape").decode("ascii")  # control characters as escapes
        return (f"Submission time of {self.student!r} ({self.assignment}): recorded {self.trusted} ({self.source}),"
                f" but the student's {said}")


def parse_claim(text: str) -> str:
    """A student-written time in :data:`FORMAT` when it reads as one, else the text (its first 80 characters)."""
    from nbgrader.utils import parse_utc

    text = text.strip()
    try:
        return naive_utc(parse_utc(text)).strftime(FORMAT)
    except Exception:  # noqa: BLE001
        return text[:80]


def record(root: Path, times: SubmissionTimes, folder: Path) -> None:
    """Write ``times.trusted`` as ``folder/timestamp.txt`` (what nbgrader reads) and keep ``times`` beside the
    course's submissions (:data:`FOLDER`)."""
    (folder / "timestamp.txt").unlink(missing_ok=True)  # the student's copy is replaced, not written through
    (folder / "timestamp.txt").write_text(times.trusted + "\n", encoding="utf-8")
    kept = Path(root) / FOLDER / times.assignment / f"{times.student}.json"
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text(json.dumps(asdict(times), indent=1), encoding="utf-8")


def kept(root: Path, assignment: str) -> list[SubmissionTimes]:
    """Every submission's times of ``assignment`` as collect kept them, by student."""
    found = []
    for path in sorted((Path(root) / FOLDER / assignment).glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            found.append(SubmissionTimes(**data))
        except (OSError, ValueError, TypeError):
            continue
    return found
