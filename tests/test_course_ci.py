"""Grading in the course's CI: `reading-maths gather` and ci/course-grading-workflow.yml, run locally.

Bare git repositories stand in for the students' GitHub Classroom repositories
(``<assignment>-<github_username>.git``); each student pushes what they did from a clone of their
own. The roster is GitHub Classroom's export. The workflow's own ``run:`` steps (gather, grade,
feedback and grades) are taken from the YAML file and run with bash on a temporary copy of the
course, as GitHub Actions runs them, with ``REPO_TEMPLATE`` pointing at the local repositories.
Then the gradebook, ``grades.csv``, the feedback and ``submitted/`` are checked.
"""

from __future__ import annotations

import csv
import html
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from nbgrader.api import Gradebook

from classroom.builder import ClassBuilder, fill
from conftest import ROOT
from reading_maths.course import Assignment

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

WORKFLOW = ROOT / "ci" / "course-grading-workflow.yml"
BIN = Path(sys.executable).parent
STEPS = ("Gather the submissions", "Grade in the sandbox", "Feedback, grades and report")
ROSTER = [  # identifier, github_username, github_id, name: GitHub Classroom's roster export
    ("alice", "alice-gh", "101", "Alice Right"),
    ("bob", "bob-gh", "102", "Bob Wrong"),
    ("erin", "erin-gh", "103", "Erin Folder"),
    ("carol", "carol-gh", "104", "Carol Nothing"),
    ("dave", "dave-gh", "105", "Dave Symlink"),
    ("frank", "frank-gh", "106", "Frank Norepo"),
    ("grace", "", "", "Grace Notaccepted"),
]


def git(*args: str, cwd: Path) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="s", GIT_AUTHOR_EMAIL="s@example.edu", GIT_COMMITTER_NAME="s",
               GIT_COMMITTER_EMAIL="s@example.edu", GIT_CONFIG_NOSYSTEM="1", HOME=str(cwd))
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=60)


def push(github: Path, user: str, files: dict[str, bytes | str], symlinks: dict[str, str] | None = None) -> None:
    """A student's repository, ``code-<user>.git``, with one commit of ``files`` (and ``symlinks``)."""
    bare = github / f"code-{user}.git"
    if not bare.exists():
        git("init", "--bare", "--quiet", "-b", "main", str(bare), cwd=github)
    work = github / "work" / user
    if not work.exists():
        work.parent.mkdir(exist_ok=True)
        git("clone", "--quiet", str(bare), str(work), cwd=github)
    for name, data in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    for name, target in (symlinks or {}).items():
        (work / name).symlink_to(target)
    git("add", "-A", cwd=work)
    git("commit", "--quiet", "-m", "my work", cwd=work)
    git("push", "--quiet", "origin", "HEAD:main", cwd=work)


def notebook(answers) -> str:
    release = nbformat.read(ROOT / "release" / "code" / "code.ipynb", as_version=4)
    return nbformat.writes(fill(release, answers))


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> dict:
    """A course copy, the students' repositories, and the workflow's steps run on them."""
    tmp = tmp_path_factory.mktemp("course-ci")
    course = tmp / "course"
    course.mkdir()
    for name in ("source", "graders"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    github = tmp / "github"
    github.mkdir()
    pool = ClassBuilder(Assignment("code", ROOT)).pool()
    right = notebook([a["right"][0] for a in pool.values()])
    wrong_answers = [a["wrong"][0] for a in pool.values()]
    push(github, "alice-gh", {"code.ipynb": right, "README.md": "alice"})
    push(github, "bob-gh", {"code.ipynb": notebook(wrong_answers)})
    push(github, "erin-gh", {"code/code.ipynb": right})
    push(github, "carol-gh", {"README.md": "I will do it tomorrow"})
    secret = tmp / "secret.txt"
    secret.write_text("the instructor's secret")
    push(github, "dave-gh", {"notes.md": "see code.ipynb"}, symlinks={"code.ipynb": str(secret)})
    with open(course / "classroom_roster.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["identifier", "github_username", "github_id", "name"])
        writer.writerows(ROSTER)
    env = dict(os.environ, ASSIGNMENT="code", SOURCE="classroom", ROSTER="classroom_roster.csv",
               REPO_TEMPLATE=f"file://{github}/{{assignment}}-{{github_username}}.git",
               READING_MATHS_COURSE=str(course), PATH=os.pathsep.join([str(BIN), os.environ["PATH"]]))
    steps = {s.get("name"): s for s in yaml.safe_load(WORKFLOW.read_text())["jobs"]["grade"]["steps"]}
    logs = {}
    for name in STEPS:
        done = subprocess.run(["bash", "-e", "-c", steps[name]["run"]], cwd=course, env=env, capture_output=True,
                              text=True, timeout=900, check=False)
        logs[name] = done.stdout + done.stderr
        assert done.returncode == 0, f"{name} failed:\n{logs[name][-4000:]}"
    return {"course": course, "github": github, "logs": logs, "wrong": wrong_answers}


def scores(course: Path) -> dict[str, tuple[float, float]]:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "reading-maths") as gb:
        return {s.student.id: (s.score, s.max_score) for s in gb.find_assignment("code").submissions}


def test_the_workflow_is_complete():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    job = workflow["jobs"]["grade"]
    assert set(workflow[True]["workflow_dispatch"]["inputs"]) == {"assignment", "source"}  # YAML reads `on` as True
    runs = {s.get("name"): s.get("run", "") for s in job["steps"]}
    assert set(STEPS) <= set(runs)
    assert "reading-maths gather" in runs["Gather the submissions"] and "nbgrader zip_collect" in \
        runs["Gather the submissions"]
    assert "reading-maths autograde" in runs["Grade in the sandbox"] and "--unsafe-no-sandbox" not in \
        "\n".join(runs.values()), "the course's CI never grades outside the sandbox"
    uploads = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    published = "\n".join(s["with"]["path"] for s in uploads)
    assert all(p in published for p in ("grades.csv", "reports/", "feedback/", "gradebook.db"))


def test_gather_files_each_notebook_and_says_why_not(course):
    submitted = course["course"] / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == ["alice", "bob", "erin"]
    for student in ("alice", "bob", "erin"):
        folder = submitted / student / "code"
        assert sorted(p.name for p in folder.iterdir()) == ["code.ipynb", "timestamp.txt"]
        assert nbformat.read(folder / "code.ipynb", as_version=4).cells
    log = course["logs"]["Gather the submissions"]
    assert "3 of 7 submissions of code gathered" in log
    for student, why in [("carol", "no code.ipynb"), ("dave", "not a regular file"), ("frank", "cannot clone"),
                         ("grace", "no repository")]:
        line = next(x for x in log.splitlines() if student in x)
        assert why in line, line
    assert not any("the instructor's secret" in p.read_text(errors="replace") for p in submitted.rglob("*")
                   if p.is_file()), "a symlink in a student's repository was followed"


def test_the_gradebook_has_the_engine_scores(course):
    got = scores(course["course"])
    total = sum(g.max_score for g in Assignment("code", ROOT).graders)
    assert got["alice"] == (total, total) and got["erin"] == (total, total)
    assert 0 < got["bob"][0] < total
    with open(course["course"] / "grades.csv", newline="") as fh:
        rows = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert float(rows["alice"]["score"]) == total and float(rows["bob"]["score"]) == got["bob"][0]
    for student in ("alice", "bob", "erin"):
        assert (course["course"] / "feedback" / student / "code" / "code.html").is_file()
    bob = html.unescape((course["course"] / "feedback" / "bob" / "code" / "code.html").read_text())
    graders = {q: Assignment("code", ROOT).grader(q) for q in Assignment("code", ROOT).questions}
    mistake = course["wrong"][0]
    message = next(m.message for m in graders[mistake.question].mistakes if m.name == mistake.mistake)
    assert message in bob, "bob's feedback names his mistake"
    assert (course["course"] / "reports").is_dir() and any((course["course"] / "reports").iterdir())


def test_a_new_push_is_gathered_again(course, tmp_path):
    """Re-running gather picks up the student's latest commit and replaces the old submission."""
    github, work = course["github"], tmp_path / "course"
    shutil.copytree(course["course"], work)
    push(github, "carol-gh", {"code.ipynb": nbformat.writes(nbformat.read(ROOT / "release" / "code" / "code.ipynb",
                                                                           as_version=4))})
    done = subprocess.run([str(BIN / "reading-maths"), "gather", "classroom_roster.csv", "--assignment", "code",
                           "--repo-template", f"file://{github}/{{assignment}}-{{github_username}}.git"],
                          cwd=work, env=dict(os.environ, READING_MATHS_COURSE=str(work)), capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert "4 of 7 submissions of code gathered" in done.stdout
    assert (work / "submitted" / "carol" / "code" / "code.ipynb").is_file()


def test_a_roster_without_ids_is_refused_in_one_line(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("name,email\nAda,ada@example.edu\n")
    done = subprocess.run([str(BIN / "reading-maths"), "gather", str(roster), "--assignment", "code"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1 and "no student_id, github_username or identifier column" in done.stderr
