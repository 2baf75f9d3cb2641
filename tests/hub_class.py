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


@contextmanager
def class_on_hub(people: dict, checks: bool = False, before=None):
    """The running hub for ``people`` (name -> :class:`hub.accounts.Person`; the instructor enrols the others);
    with ``checks``, the checks service runs as the instructor on their course. ``before(people)`` runs once
    the accounts exist, before the hub starts."""
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
        if before is not None:
            before(people)
        site = make_site(root, env, [p.name for p in people.values()], teacher.name,
                         checks=(teacher.name, teacher.course, teacher.name) if checks else None)
        accounts.enrol(teacher, [p for p in people.values() if not p.instructor], env, site.exchange)
        with running(site) as hub:
            yield hub
    finally:
        for person in people.values():
            accounts.remove(person.name)
        shutil.rmtree(root, ignore_errors=True)


def as_person(hub, person, *command: str, cwd: Path | None = None, timeout: float = 300,
              check: bool = True) -> subprocess.CompletedProcess:
    """``command`` run as ``person`` (their uid, groups, home and the hub's environment), from ``cwd`` (their
    home by default); the shared env's programs by name (``nbgrader``, ``reading-maths``, ``python``)."""
    settings = hub.site.settings()
    env_bin = Path(settings["env"]) / "bin"
    program = command[0] if "/" in command[0] else str(env_bin / command[0])
    environ = {"HOME": str(person.home), "USER": person.name, "LANG": "C.UTF-8",
               "PATH": f"{env_bin}:/usr/bin:/bin", "JUPYTER_CONFIG_PATH": settings["jupyter_config"],
               "READING_MATHS_EXCHANGE": settings["exchange"]}
    done = subprocess.run(["setpriv", f"--reuid={person.name}", f"--regid={person.name}", "--init-groups",
                           program, *command[1:]], cwd=cwd or person.home, env=environ, capture_output=True,
                          text=True, timeout=timeout, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"{person.name}: {' '.join(command)} failed ({done.returncode}):\n"
                             f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done
