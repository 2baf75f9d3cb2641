"""The class's Unix accounts: an instructor with a copy of the course, and students.

Every home is mode 700 (Debian's ``useradd`` would leave it world-readable), so nobody reads another
person's notebooks, the instructor's graders or gradebook; the exchange is the only shared folder.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hub.env import instructor_tools

COURSE_FOLDER = "reading-maths"  # the instructor's course: ~/reading-maths
COURSE_PARTS = ("source", "graders")

INSTRUCTOR_NBGRADER_CONFIG = '''\
"""The instructor's nbgrader settings: where the course is (formgrader runs from the home folder)."""
c = get_config()  # noqa: F821
c.CourseDirectory.root = {root!r}
# formgrader reads this file, not the course's: its pages show submissions as inert HTML here too
from reading_maths.nbgrader.feedback import configure as offline_feedback
from reading_maths.nbgrader.exchange import configure as safe_collect
from reading_maths.nbgrader.inert import configure as inert_submissions

offline_feedback(c)
inert_submissions(c)
safe_collect(c)  # formgrader's Collect button takes only entries their owners made
'''


@dataclass(frozen=True)
class Person:
    """A login on the hub."""

    name: str
    password: str
    instructor: bool = False
    first_name: str = ""
    last_name: str = ""

    @property
    def home(self) -> Path:
        return Path(pwd.getpwnam(self.name).pw_dir)

    @property
    def course(self) -> Path:
        """The instructor's course folder."""
        return self.home / COURSE_FOLDER


def new_password() -> str:
    return secrets.token_urlsafe(12)


def exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _run(*command: str, stdin: str | None = None) -> None:
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")


def _chown_tree(folder: Path, name: str) -> None:
    entry = pwd.getpwnam(name)
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, entry.pw_uid, entry.pw_gid)


def copy_course(repo: Path, course: Path) -> None:
    """The instructor's side of the course: ``source/``, ``graders/`` and ``nbgrader_config.py``."""
    course.mkdir(parents=True, exist_ok=True)
    for part in COURSE_PARTS:
        shutil.copytree(repo / part, course / part, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    shutil.copy2(repo / "nbgrader_config.py", course / "nbgrader_config.py")
    if (repo / "checks.toml").is_file():  # the checks service's limits (docs/checks.md)
        shutil.copy2(repo / "checks.toml", course / "checks.toml")


def set_password(person: Person) -> None:
    _run("chpasswd", stdin=f"{person.name}:{person.password}\n")


def create(person: Person, repo: Path, comment: str) -> None:
    """Add the account (home mode 700, the given password); an instructor also gets the course and formgrader."""
    _run("useradd", "--create-home", "--shell", "/bin/bash", "--comment", comment, person.name)
    set_password(person)
    home = person.home
    os.chmod(home, 0o700)
    if person.instructor:
        copy_course(repo, person.course)
        jupyter = home / ".jupyter"
        jupyter.mkdir(exist_ok=True)
        (jupyter / "nbgrader_config.py").write_text(INSTRUCTOR_NBGRADER_CONFIG.format(root=str(person.course)))
        instructor_tools(jupyter, enabled=True)  # formgrader and the course list: the instructor only
        _chown_tree(home, person.name)


def enrol(instructor: Person, students: list[Person], env: Path, exchange: Path | None) -> None:
    """The class list in the instructor's gradebook (``nbgrader db student add``, run as the instructor),
    so formgrader shows names rather than login ids, and the exchange service (if the course has it) lets them in;
    ``exchange``: the hub's shared exchange folder (None with the service)."""
    environ = {"HOME": str(instructor.home), "PATH": f"{env / 'bin'}:/usr/bin:/bin", "LANG": "C.UTF-8"}
    if exchange is not None:
        environ["READING_MATHS_EXCHANGE"] = str(exchange)
    for student in students:
        done = subprocess.run(
            ["setpriv", f"--reuid={instructor.name}", f"--regid={instructor.name}", "--init-groups",
             str(env / "bin" / "nbgrader"), "db", "student", "add",
             student.name, f"--first-name={student.first_name}", f"--last-name={student.last_name}"],
            cwd=instructor.course, env=environ, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"nbgrader db student add {student.name} failed:\n{done.stderr[-2000:]}")


def processes_of(name: str) -> list[int]:
    """Process ids running as the account ``name`` (from /proc)."""
    uid = pwd.getpwnam(name).pw_uid
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def remove(name: str) -> None:
    """Remove the account and its home, after killing whatever it still runs (a kernel left behind)."""
    if not exists(name):
        return
    for pid in processes_of(name):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _run("userdel", "--remove", name)
