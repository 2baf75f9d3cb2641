"""``reading-maths autograde code --watch --collect``: submissions graded as they arrive through the exchange.

A student fetches and submits with nbgrader's own exchange while the watcher runs as a real process;
a resubmission replaces the grade (nbgrader's timestamp picks the latest). The test stops the watcher
itself (SIGTERM, which it handles) and checks that it ended cleanly.
"""

from __future__ import annotations

import json
import queue
import shutil
import signal
import subprocess
import threading
import time
from datetime import timedelta
from pathlib import Path

import nbformat
import pytest
from nbgrader.utils import parse_utc
from test_autograde import ASSIGNMENT, BIN, NO_SHIFT_SOFTMAX, auto_scores, env_for, nbgrader

from classroom.builder import answered
from classroom.roster import COURSE_ID, _exchange
from reading_maths.nbgrader.times import SubmissionTimes

pytestmark = pytest.mark.sandbox

ROOT = Path(__file__).resolve().parents[1]


def make_released_course(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in ("source", "graders"):
        shutil.copytree(ROOT / name / ASSIGNMENT, folder / name / ASSIGNMENT)
    shutil.copy(ROOT / "nbgrader_config.py", folder / "nbgrader_config.py")
    nbgrader(folder, "generate_assignment", ASSIGNMENT, "--create", "--force", "--log-level=WARN")
    nbgrader(folder, "release_assignment", ASSIGNMENT, "--force", "--log-level=WARN")
    return folder


def submit(course: Path, student: str, replace: dict[str, str] | None) -> None:
    """The student fetches (once), answers (``replace``: None leaves the release's stubs) and submits."""
    home = course / "students" / student
    folder = home / COURSE_ID / ASSIGNMENT
    if not folder.exists():
        home.mkdir(parents=True)
        _exchange("fetch", course, student, ASSIGNMENT, home)
    release = nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    source = nbformat.read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    nb = release if replace is None else answered(release, source, replace)
    nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")
    _exchange("submit", course, student, ASSIGNMENT, home)


def next_line(lines: queue.Queue, prefix: str, timeout: float = 180) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        if line.startswith(prefix):
            return line
    raise AssertionError(f"the watcher printed no line starting with {prefix!r}")


def test_watch_grades_submissions_and_resubmissions_as_they_arrive(tmp_path):
    course = make_released_course(tmp_path / "course")
    watcher = subprocess.Popen(
        [str(BIN / "reading-maths"), "autograde", ASSIGNMENT, "--watch", "--collect", "--interval", "0.5",
         "--jobs", "1"], cwd=course, env=env_for(course), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    lines: queue.Queue = queue.Queue()
    seen: list[str] = []

    def read() -> None:
        for line in watcher.stdout:
            seen.append(line)
            lines.put(line.strip())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        next_line(lines, "watching")
        submit(course, "ada", None)  # the blank release
        first = next_line(lines, "graded ada:")
        assert first.startswith("graded ada: 0 /")
        assert set(auto_scores(course, "ada").values()) == {0.0}

        time.sleep(1.1)  # nbgrader's timestamps: the resubmission is clearly later
        submit(course, "ada", {"softmax": NO_SHIFT_SOFTMAX})  # everything right but softmax's shift
        second = next_line(lines, "graded ada:")
        scores = auto_scores(course, "ada")
        total = float(second.split(":")[1].split("/")[0])
        assert total == sum(scores.values()) > 0
        assert 0 < scores["softmax"] < max(scores.values())
        assert all(v > 0 for v in scores.values())

        submit(course, "grace", {})  # a second student while it watches: all right
        third = next_line(lines, "graded grace:")
        got, out_of = (float(x) for x in third.split(":")[1].split("/"))
        assert got == out_of > 0
        stamp = parse_utc((course / "submitted" / "ada" / ASSIGNMENT / "timestamp.txt").read_text().strip())
        inbound = sorted((course / "exchange" / COURSE_ID / "inbound").glob(f"ada+{ASSIGNMENT}+*"))
        # the latest was kept, at its entry's change time (the course's SafeCollect), a moment after its name's
        assert len(inbound) == 2 and abs(parse_utc(inbound[-1].name.split("+")[2]) - stamp) < timedelta(seconds=5)
        kept = SubmissionTimes(**json.loads((course / "submission-times" / ASSIGNMENT / "ada.json").read_text()))
        assert set(kept.claimed) == {"entry name", "timestamp.txt"} and kept.disagreements() == {}, kept  # honest
    finally:
        watcher.send_signal(signal.SIGTERM)
        try:
            watcher.wait(timeout=60)
        finally:
            if watcher.poll() is None:
                watcher.kill()
    reader.join(timeout=10)
    assert watcher.returncode == 0, "".join(seen)
    assert seen[-1].strip() == "stopped watching"
    assert sum(1 for line in seen if line.startswith("graded ada:")) == 2  # each version graded once
    assert not [line for line in seen if "Submission time of" in line], "nbgrader submit's own times agree"
