"""Lateness comes from times a student cannot set (reading_maths/nbgrader/times.py).

On an exchange, a student who hands in late makes their own inbound entry after the deadline, names it
four days earlier, writes the same forged time in its ``timestamp.txt`` and sets every modification time
back with ``os.utime``. ``nbgrader collect`` (the course's SafeCollect) records the entry's change time
instead, which no unprivileged call sets back, so ``reading-maths autograde`` gives the late penalty; collect's
output and ``reading-maths report`` name the student and both times. An honest entry gets no penalty and no
warning. The entry is made by the collecting user (root, or the ordinary user running the tests: a single-user
exchange) and, when the tests run as root, by a real student account in a shared exchange laid out as the hub
lays it out. The due date is set in the course's ``nbgrader_config.py`` (``c.Term.due_dates``) and written
into the gradebook by ``reading-maths release``: a change time cannot be set back in a test either, so the
deadline is moved into the past instead.

``reading-maths gather`` files a repository whose commit is back-dated with the time of gathering.
"""

from __future__ import annotations

import html
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nbformat
import pytest
from hostile.ordinary import MODES, NAME, as_user, ordinary_user
from nbgrader.api import Gradebook
from test_autograde import BIN, nbgrader, reading_maths, release_and_source, run

from classroom.builder import answered
from conftest import ROOT
from reading_maths.nbgrader.exchange import lay_out

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

A = "notation"
STAMP = "%Y-%m-%d %H:%M:%S.%f UTC"

# What the student runs on their own account: an inbound entry as `nbgrader submit` makes it, named `days`
# back, with timestamp.txt saying the same and (when back-dated) every modification time set back as well.
HAND_IN = r'''
import os, shutil, sys
from datetime import UTC, datetime, timedelta
inbound, student, notebook, days = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
when = datetime.now(UTC) - timedelta(days=days)
stamp = when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
folder = os.path.join(inbound, f"{student}+notation+{stamp}")
os.mkdir(folder)
shutil.copyfile(notebook, os.path.join(folder, "notation.ipynb"))
with open(os.path.join(folder, "timestamp.txt"), "w") as fh:
    fh.write(stamp)
if days:
    back = when.timestamp()
    for path in (os.path.join(folder, "notation.ipynb"), os.path.join(folder, "timestamp.txt"), folder):
        os.utime(path, (back, back), follow_symlinks=False)
print(stamp)
'''


def set_due(course: Path, when: datetime) -> None:
    """The assignment's due date in the course's config, written into the gradebook by `reading-maths release`."""
    with (course / "nbgrader_config.py").open("a") as config:
        config.write(f"\nc.Term.due_dates = {{{A!r}: {when.strftime('%Y-%m-%d %H:%M:%S')!r} + ' UTC'}}\n")
    reading_maths(course, "release", A)


def hand_in(who: str, inbound: Path, student: str, notebook: Path, days: float) -> str:
    """The student's entry, made from ``who``'s account ("user": the ordinary one); returns the name's time."""
    command = [sys.executable, "-c", HAND_IN, str(inbound), student, str(notebook), str(days)]
    done = subprocess.run(as_user(command) if who == "user" else command, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def recorded(course: Path, student: str) -> datetime:
    from nbgrader.utils import parse_utc

    return parse_utc((course / "submitted" / student / A / "timestamp.txt").read_text())


def submission(course: Path, student: str) -> tuple[datetime, float, float, float]:
    """The gradebook's timestamp, score, late penalty and maximum of the student's submission."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        sub = gb.find_submission(A, student)
        return sub.timestamp, sub.score, sub.late_submission_penalty, sub.max_score


def report(course: Path) -> tuple[str, dict, str]:
    done = reading_maths(course, "report", A)
    return done.stdout, json.loads((course / "reports" / "report.json").read_text()), \
        (course / "reports" / "report.html").read_text()


def _course(course: Path) -> Path:
    """A copy of the course (sources, graders, configuration)."""
    course.mkdir()
    for name in ("source", "graders"):
        shutil.copytree(ROOT / name, course / name)
    shutil.copy(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    return course


@pytest.fixture(scope="module", params=MODES)
def who(request) -> str:
    return request.param


def test_a_backdated_entry_gets_the_late_penalty(who, tmp_path):
    """Honest first (due tomorrow: no penalty, no warning); then the deadline passes and the same student
    hands in an entry named four days back, with a forged timestamp.txt and back-dated mtimes."""
    course = _course(tmp_path / "course")
    now = datetime.now(UTC).replace(tzinfo=None)
    set_due(course, now + timedelta(days=1))
    # a shared exchange as the hub lays it out, reachable by the student's account
    shared = Path(tempfile.mkdtemp(prefix="rm-times-"))
    os.chmod(shared, 0o755)
    try:
        exchange = shared / "exchange"
        lay_out(exchange, "reading-maths", os.geteuid(), os.getegid())
        inbound = exchange / "reading-maths" / "inbound"
        if who == "user" and os.geteuid() == 0:
            ordinary_user()
            student = NAME  # a real account: the entry is owned by the student it names
        else:
            student = "late" if who == "root" else pwd.getpwuid(os.geteuid()).pw_name
        notebook = shared / f"{A}.ipynb"
        nbformat.write(answered(*release_and_source(course, A)), notebook)
        os.chmod(notebook, 0o644)

        def collect() -> str:
            done = nbgrader(course, "collect", A, "--update", f"--Exchange.root={exchange}")
            return done.stdout + done.stderr

        # honest, on time
        hand_in(who, inbound, student, notebook, 0)
        log = collect()
        assert "Submission time of" not in log, log
        assert abs(recorded(course, student) - now) < timedelta(minutes=5)
        reading_maths(course, "autograde", A, "--jobs", "1")
        stamp, score, penalty, top = submission(course, student)
        assert score == top > 0 and not penalty, (score, penalty)
        out, data, page = report(course)
        assert data["time_disagreements"] == [] and "Submission times" in page and "None: every" in page
        assert "recorded at" not in out

        # the deadline passes; the student hands in again, named four days back, everything back-dated
        set_due(course, now - timedelta(days=1))
        claimed = hand_in(who, inbound, student, notebook, 4)
        log = collect()
        warning = next((x for x in log.splitlines() if "Submission time of" in x), "")
        assert f"'{student}'" in warning and f"entry name says '{claimed}'" in warning, log
        assert f"timestamp.txt says '{claimed}'" in warning and "change time" in warning, warning
        assert "Updating submission" in log, log  # the new entry is newer, whatever its name says
        made = recorded(course, student)
        assert abs(made - datetime.now(UTC).replace(tzinfo=None)) < timedelta(minutes=5), made
        reading_maths(course, "autograde", A, "--jobs", "1")
        stamp, score, penalty, top = submission(course, student)
        assert abs(stamp - made) < timedelta(seconds=1), (stamp, made)
        # a day and a bit late: two started days, 10 % each (reading_maths/nbgrader/late.py)
        assert score == top > 0 and penalty == pytest.approx(0.2 * score), (score, penalty)
        out, data, page = report(course)
        assert [(t["student"], t["claimed"]) for t in data["time_disagreements"]] == \
            [(student, {"entry name": claimed, "timestamp.txt": claimed})], data["time_disagreements"]
        section = page.split("id='submission-times'")[1]
        assert html.escape(student) in section and claimed in section, section
        assert f"{student}'s submission was recorded at" in out and claimed in out, out
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_a_forged_timestamp_in_the_report_is_inert(tmp_path):
    """What the student wrote in timestamp.txt reaches the report escaped (HTML) and the terminal without escapes."""
    from reading_maths.nbgrader.times import SubmissionTimes
    from reading_maths.reports.class_data import ReportData, TimeDisagreement
    from reading_maths.reports.html_report import _times_section

    forged = "<script>top.pwned=1</script>\x1b]52;c;AAAA\x07"
    times = SubmissionTimes("eve", A, "2030-01-01 12:00:00.000000 UTC", "the exchange entry's change time",
                            {"timestamp.txt": forged})
    assert times.disagreements() == {"timestamp.txt": forged}
    assert "\x1b" not in times.warning() and "\\x1b" in times.warning()
    data = ReportData([A], {A: 1.0}, [], {A: {}}, {A: {}}, [], {A: {}}, [],
                      [TimeDisagreement(A, "eve", times.trusted, times.source, times.disagreements())])
    page = "".join(_times_section(data))
    assert "<script>" not in page and "&lt;script&gt;" in page


def git(*args: str, cwd: Path, when: str | None = None) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="s", GIT_AUTHOR_EMAIL="s@example.edu", GIT_COMMITTER_NAME="s",
               GIT_COMMITTER_EMAIL="s@example.edu", GIT_CONFIG_NOSYSTEM="1", HOME=str(cwd))
    if when:
        env |= {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=60)


def test_gather_takes_the_time_of_gathering_not_the_commits(tmp_path):
    """A commit dated four days back, gathered a day after the deadline, is late; gathered before it, on time."""
    course = _course(tmp_path / "course")
    now = datetime.now(UTC).replace(tzinfo=None)
    set_due(course, now + timedelta(days=1))
    repo = tmp_path / "work"
    repo.mkdir()
    git("init", "--quiet", "-b", "main", cwd=repo)
    nbformat.write(answered(*release_and_source(course, A)), repo / f"{A}.ipynb")
    (repo / "timestamp.txt").write_text((now - timedelta(days=4)).strftime(STAMP))  # ignored: never copied
    git("add", ".", cwd=repo)
    git("commit", "--quiet", "-m", "on time, honest", cwd=repo, when=(now - timedelta(days=4)).isoformat() + "Z")
    roster = course / "roster.csv"
    roster.write_text(f"student_id,repository\nada,file://{repo}\n")

    def gather_and_grade() -> tuple[datetime, float, float, float]:
        run(course, str(BIN / "reading-maths"), "gather", str(roster), "--assignment", A)
        assert abs(recorded(course, "ada") - datetime.now(UTC).replace(tzinfo=None)) < timedelta(minutes=5)
        reading_maths(course, "autograde", A, "--jobs", "1")
        return submission(course, "ada")

    _, score, penalty, top = gather_and_grade()
    assert score == top > 0 and not penalty
    set_due(course, now - timedelta(days=1))
    _, score, penalty, top = gather_and_grade()
    assert penalty == pytest.approx(0.2 * score) and score > 0
