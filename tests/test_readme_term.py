"""The README's teacher's term, run as written: every command of its ```` ```bash term ```` blocks, in order,
in a fresh copy of the course, with a class of three who hand in through the hub's exchange (``code``),
an LMS download (``proofs``, one file marked ``LATE_``) and GitHub Classroom repositories (``matching``).

A command fails the test when it exits non-zero or answers with its usage (nbgrader prints its list of
subcommands and exits 0 for a command it does not have). The ```` ```bash term-server ```` block (JupyterLab,
for formgrader) is started as written (with ``--allow-root`` as root, as the README says) and must serve
formgrader with the graded course. ``-s`` prints how long each command took.
"""

from __future__ import annotations

import base64
import csv
import json
import os
import re
import shutil
import struct
import subprocess
import time
import urllib.request
import zipfile
from pathlib import Path

import nbformat
import pytest

from classroom.builder import answered
from classroom.roster import _exchange
from conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.browser]  # nbgrader's commands, the sandbox, JupyterLab

USAGE = re.compile(r"List of subcommands|No command given|^Usage:", re.MULTILINE)
STUDENTS = [("ada", "Ada", "Lovelace"), ("alan", "Alan", "Turing"), ("grace", "Grace", "Hopper")]
WRONG_SOFTMAX = "import numpy as np\n\ndef softmax(z, temperature=1.0):\n    return np.exp(z)\n"


def blocks(kind: str) -> list[str]:
    """The commands of the README's ```` ```bash KIND ```` blocks, continuation lines joined."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(rf"^```bash {kind}\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                commands.append(line.strip())
    return commands


def fresh_course(to: Path) -> Path:
    """A copy of the repository's committed files (a clone, as a teacher has it), sharing its .venv."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        if (ROOT / name).is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, to / name)
    (to / ".venv").symlink_to(ROOT / ".venv")
    with (to / "nbgrader_config.py").open("a", encoding="utf-8") as fh:
        fh.write("\n# the test's students all submit as this one OS user\nc.ExchangeCollect.check_owner = False\n")
    return to


def notebook(course: Path, assignment: str, how: str) -> nbformat.NotebookNode:
    """A student's notebook of ``assignment``: ``right``, ``wrong`` (code: softmax) or ``blank``."""
    release = nbformat.read(course / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    if how == "blank":
        return release
    source = nbformat.read(course / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    return answered(release, source, {"softmax": WRONG_SOFTMAX} if how == "wrong" else None)


def students_list(course: Path) -> None:
    with (course / "students.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "first_name", "last_name", "email"])
        writer.writerows([s, first, last, f"{s}@example.edu"] for s, first, last in STUDENTS)


def hub_students(course: Path) -> None:
    """Each student fetches ``code`` from the exchange, answers and submits, as the Assignments tab does."""
    for student, how in [("ada", "right"), ("alan", "wrong"), ("grace", "blank")]:
        home = course / "students" / student
        home.mkdir(parents=True)
        _exchange("fetch", course, student, "code", home)
        nbformat.write(notebook(course, "code", how), home / "reading-maths" / "code" / "code.ipynb")
        _exchange("submit", course, student, "code", home)


def lms_download(course: Path) -> None:
    """Canvas's "Download Submissions" zip for ``proofs``, saved where zip_collect looks."""
    archive = course / "downloaded" / "proofs" / "archive"
    archive.mkdir(parents=True)
    with zipfile.ZipFile(archive / "submissions.zip", "w") as zf:
        zf.writestr("ada_1001_2001_proofs.ipynb", nbformat.writes(notebook(course, "proofs", "right")))
        zf.writestr("alan_LATE_1002_2002_proofs-1.ipynb", nbformat.writes(notebook(course, "proofs", "right")))


def classroom_repositories(course: Path) -> None:
    """One repository per student with their ``matching.ipynb``, and the roster that names them."""
    rows = []
    for student, how in [("ada", "right"), ("grace", "blank")]:
        repo = course.parent / "github" / f"matching-{student}"
        repo.mkdir(parents=True)
        nbformat.write(notebook(course, "matching", how), repo / "matching.ipynb")
        git = ["git", "-c", "user.name=s", "-c", "user.email=s@example.edu"]
        for args in (["init", "-q"], ["add", "matching.ipynb"], ["commit", "-qm", "my answers"]):
            subprocess.run([*git, *args], cwd=repo, check=True)
        rows.append([student, repo.as_uri()])
    with (course / "roster.csv").open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([["student_id", "repository"], *rows])


BEFORE = {"nbgrader db student import": students_list, "nbgrader zip_collect": lms_download,
          "reading-maths gather": classroom_repositories}
AFTER = {"nbgrader release_assignment code": hub_students}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("READING_MATHS_", "JUPYTER_"))}
    return env | {"PYTHONUNBUFFERED": "1", "COLUMNS": "200"}  # a teacher's terminal: tables not wrapped


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """The README's term, run in a fresh course: the course folder and each command's seconds."""
    course = fresh_course(tmp_path_factory.mktemp("term") / "course")
    commands = blocks("term")
    assert len(commands) >= 10, "the README's teacher's term has lost its ```bash term blocks"
    times, outputs = [], {}
    for command in commands:
        for prefix, step in BEFORE.items():
            if prefix in command:
                step(course)
        started = time.monotonic()
        done = subprocess.run(["bash", "-c", command], cwd=course, capture_output=True, text=True, env=_env(),
                              timeout=900, check=False)
        times.append((command.split("  #")[0].strip(), time.monotonic() - started))
        out = outputs[command.split("  #")[0].strip()] = done.stdout + done.stderr
        assert done.returncode == 0, f"`{command}` failed ({done.returncode}):\n{out[-3000:]}"
        assert not USAGE.search(out), f"`{command}` printed its usage instead of working:\n{out[:1500]}"
        for prefix, step in AFTER.items():
            if prefix in command:
                step(course)
    print("\nthe teacher's term, as the README runs it:")
    for command, seconds in times:
        print(f"  {seconds:6.1f} s  {command}")
    return course, outputs


def test_every_command_of_the_term_works_and_leaves_what_the_readme_says(term):
    from nbgrader.api import Gradebook

    term, _ = term
    with Gradebook(f"sqlite:///{term / 'gradebook.db'}") as gb:
        assert sorted(s.id for s in gb.students) == ["ada", "alan", "grace"]
        assert gb.find_assignment("code").duedate is not None, "the due date of nbgrader_config.py"
        code = {s: gb.find_submission("code", s).score for s in ("ada", "alan", "grace")}
        assert code["ada"] == gb.find_assignment("code").max_score > code["alan"] > code["grace"] == 0
        late = gb.find_submission("proofs", "alan")
        assert late.late_submission_penalty and late.late_submission_penalty > 0, "LATE_ is kept"
        assert not gb.find_submission("proofs", "ada").late_submission_penalty
        assert gb.find_submission("matching", "ada").score > gb.find_submission("matching", "grace").score
    for student in ("ada", "alan", "grace"):
        assert (term / "feedback" / student / "code" / "code.html").is_file()
        assert (term / "exchange" / "reading-maths" / "feedback").is_dir()
    with (term / "reports" / "grades.csv").open(newline="") as fh:
        header = next(csv.reader(fh))
    graded = header[4:-1]
    assert sorted(graded) == ["code", "matching", "proofs"], "the LMS CSV holds only what was graded"
    assert (term / "grades.csv").is_file() and (term / "autograder-code.zip").is_file()
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "grades.csv", "reports/grades.csv",
                              "autograder-code.zip", "downloaded/proofs/archive/submissions.zip",
                              "submitted/ada/code/code.ipynb", "autograded/ada/code.json",
                              "feedback/ada/code/code.html", "gradebook.db"],
                             cwd=ROOT, capture_output=True, text=True, check=False).stdout.split()
    assert len(ignored) == 8, f"not ignored by git: students' work or grades ({ignored})"


def test_numbers_say_what_is_still_to_be_marked(term):
    """Scores come with their maxima; hand-marked answers not yet marked are said to be so, not counted as hard."""
    term, outputs = term
    table = " ".join(outputs[".venv/bin/reading-maths autograde proofs"].split())
    assert "to mark" in table and "+ 6 to mark" in table, table  # puzzle_written 2 + induction_written 4
    assert "softmax /17" in " ".join(outputs[".venv/bin/reading-maths autograde code"].split())
    report = json.loads((term / "reports" / "report.json").read_text())
    assert report["left_out"] == ["notation", "build"], "not released: not in the report"
    assert set(report["awaiting_hand_marking"]["proofs"]) == {"puzzle_written", "induction_written"}
    assert not {"puzzle_written", "induction_written"} & set(report["difficulty"]["proofs"])
    assert "await hand-marking" in outputs[".venv/bin/reading-maths report"]
    page = (term / "reports" / "report.html").read_text()
    widths = [struct.unpack(">I", base64.b64decode(png)[16:20])[0] for png in re.findall(r"base64,([^']+)'", page)]
    assert widths and max(widths) <= 1000, f"plots {widths} px wide: wider than a laptop's window"


def test_formgrader_opens_as_the_readme_says(term):
    """JupyterLab started with the README's command serves formgrader, which lists the graded course."""
    term, _ = term
    (command,) = blocks("term-server")
    command = command.split("  #")[0].strip() + (" --allow-root" if os.geteuid() == 0 else "")
    log = term / "lab.log"
    with log.open("w") as fh:
        lab = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=term, stdout=fh, stderr=subprocess.STDOUT,
                               env=_env(), start_new_session=True)
    try:
        url = None
        deadline = time.monotonic() + 180
        while url is None and time.monotonic() < deadline and lab.poll() is None:
            time.sleep(1)
            found = re.search(r"(http://(?:localhost|127\.0\.0\.1):\d+)/lab\?token=(\w+)", log.read_text())
            url = found and found.groups()
        assert url, f"JupyterLab did not start:\n{log.read_text()[-3000:]}"
        base, token = url
        headers = {"Authorization": f"token {token}"}
        with urllib.request.urlopen(urllib.request.Request(f"{base}/formgrader", headers=headers), timeout=60) as r:
            assert r.status == 200 and b"nbgrader" in r.read().lower()
        request = urllib.request.Request(f"{base}/formgrader/api/assignments", headers=headers)
        with urllib.request.urlopen(request, timeout=120) as r:
            listed = {a["name"]: a for a in json.loads(r.read())}
        assert {"code", "proofs", "matching"} <= set(listed)
        assert listed["code"]["num_submissions"] == 3
    finally:
        os.killpg(lab.pid, 15)
        lab.wait(timeout=30)
