"""A class on the real hub for the hub tests (tests/test_hub.py, tests/test_hub_checks.py,
tests/test_hub_hostile.py): Unix accounts made for the test, the hub's shared Python, JupyterHub as root;
everything removed afterwards. :func:`as_person` runs a command as one of them, as their own terminal would."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
COMMENT = "reading-maths hub test"
STUDENTS = {"ada": ("Ada", "Lovelace"), "bob": ("Bob", "Moses"), "eve": ("Eve", "Hacker")}


def new_people(*students: str) -> dict:
    """A teacher and ``students`` (keys of :data:`STUDENTS`), with account names of their own and new passwords."""
    from hub import accounts

    tag = secrets.token_hex(2)
    people = {"teacher": accounts.Person(f"teach-{tag}", accounts.new_password(), instructor=True)}
    for key in students:
        first, last = STUDENTS[key]
        people[key] = accounts.Person(f"{key}-{tag}", accounts.new_password(), first_name=first, last_name=last)
    return people


def skip_unless_possible() -> None:
    if os.geteuid() != 0:
        pytest.skip("the hub test creates Unix accounts and runs JupyterHub as root: run it as root "
                    "(make test does on CI)")
    for tool in ("useradd", "userdel", "chpasswd", "setpriv"):
        if not shutil.which(tool):
            pytest.skip(f"the hub test needs {tool} to create the class's Unix accounts")
    from hub.env import SYSTEM_PYTHON
    from hub.site import PROXY

    if not SYSTEM_PYTHON.exists():
        pytest.skip(f"the hub's shared Python is made from {SYSTEM_PYTHON}, which is missing")
    if not PROXY.exists():
        pytest.skip(f"JupyterHub's proxy is not installed at {PROXY}: run `make hub-proxy` (npm ci in hub/)")


def set_up_course(course: Path, exchange: str, settings: dict[str, str]) -> None:
    """The instructor's ``nbgrader_config.py`` with ``c.CourseExchange.kind = exchange`` and, at its end,
    ``c.<name> = <value>`` for each of ``settings`` (e.g. ``{"CourseDirectory.db_url": "postgresql://..."}``)."""
    config = course / "nbgrader_config.py"
    text = config.read_text()
    assert 'c.CourseExchange.kind = "folder"' in text
    text = text.replace('c.CourseExchange.kind = "folder"', f"c.CourseExchange.kind = {exchange!r}")
    config.write_text(text + "".join(f"c.{name} = {value!r}\n" for name, value in settings.items()))


@contextmanager
def class_on_hub(people: dict, checks: bool = False, before=None, exchange: str = "folder",
                 course_settings: dict[str, str] | None = None, other_courses: tuple[str, ...] = (),
                 checks_store: str | None = None, exchange_store: str | None = None):
    """The running hub for ``people`` (name -> :class:`hub.accounts.Person`; the instructor enrols the others);
    with ``checks``, the checks service runs as the instructor on their course. The instructor's course uses
    the ``exchange`` ("folder" or "service", docs/exchange.md) and ``course_settings`` (:func:`set_up_course`).
    ``before(people)`` runs once the accounts exist, before the site is made; the exchange service serves the
    instructor's ``other_courses`` too (folders in their home that ``before`` makes). ``checks_store`` and
    ``exchange_store``: where those services keep their rows (SQLAlchemy URLs; None: SQLite in the course)."""
    skip_unless_possible()
    from hub import accounts
    from hub.env import ensure_env
    from hub.site import make_site, running

    env = ensure_env(REPO)
    teacher = next(p for p in people.values() if p.instructor)
    root = Path(tempfile.mkdtemp(prefix="rm-hub-", dir="/tmp"))
    try:
        for person in people.values():
            accounts.create(person, REPO, COMMENT)
        set_up_course(teacher.course, exchange, course_settings or {})
        if before is not None:
            before(people)
        site = make_site(root, env, [p.name for p in people.values()], teacher.name,
                         checks=(teacher.name, teacher.course, teacher.name) if checks else None,
                         course=teacher.course, other_courses=tuple(teacher.home / c for c in other_courses),
                         checks_store=checks_store, exchange_store=exchange_store)
        shared = site.settings()["exchange"]
        accounts.enrol(teacher, [p for p in people.values() if not p.instructor], env, shared and Path(shared))
        with running(site) as hub:
            yield hub
    finally:
        for person in people.values():
            accounts.remove(person.name)
        shutil.rmtree(root, ignore_errors=True)


def as_person(hub, person, *command: str, cwd: Path | None = None, timeout: float = 300,
              check: bool = True, extra_env: dict | None = None) -> subprocess.CompletedProcess:
    """``command`` run as ``person`` (their uid, groups, home and the hub's environment, plus ``extra_env``: their
    $JUPYTERHUB_API_TOKEN for the exchange service), from ``cwd`` (their home by default); the shared env's
    programs by name (``nbgrader``, ``reading-maths``, ``python``)."""
    settings = hub.site.settings()
    env_bin = Path(settings["env"]) / "bin"
    program = command[0] if "/" in command[0] else str(env_bin / command[0])
    environ = {"HOME": str(person.home), "USER": person.name, "LANG": "C.UTF-8", "PATH": f"{env_bin}:/usr/bin:/bin",
               "JUPYTER_CONFIG_PATH": settings["jupyter_config"], **(extra_env or {})}
    if settings["exchange"]:
        environ["READING_MATHS_EXCHANGE"] = settings["exchange"]
    if "exchange_service" in settings:
        environ["READING_MATHS_EXCHANGE_URL"] = f"http://127.0.0.1:{settings['exchange_service']['port']}" \
                                                "/services/exchange/"
    done = subprocess.run(["setpriv", f"--reuid={person.name}", f"--regid={person.name}", "--init-groups",
                           program, *command[1:]], cwd=cwd or person.home, env=environ, capture_output=True,
                          text=True, timeout=timeout, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"{person.name}: {' '.join(command)} failed ({done.returncode}):\n"
                             f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done
