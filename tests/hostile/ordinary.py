"""An ordinary user to grade as, so the hostile suite also runs where teachers usually grade: not root.

Run as root, :func:`ordinary_user` creates the user ``rm-grader`` (once), lets it reach the Python
this test runs on, and delegates it a cgroup folder; :func:`as_user` wraps a command to run as it.
Run as an ordinary user already, the suite grades as that user and nothing is set up.

The project's ``.venv`` interpreter is a symlink into ``/root/.pyenv``, and ``/root`` is mode 700:
an ordinary user cannot start it.  Rather than opening ``/root`` to everyone (``chmod o+x``) or
building a second environment, an ACL entry (``setfacl -m u:rm-grader:x``) lets only that user
traverse the folders on the way to the interpreter; nothing else of ``/root`` becomes readable.
"""

from __future__ import annotations

import os
import pwd
import stat
import subprocess
import sys
from pathlib import Path

NAME = "rm-grader"
MODES = ["root", "user"] if os.geteuid() == 0 else ["user"]
"""Who the sandbox tests grade as: root and the ordinary user when run as root, else the user running them."""


def _traversable(uid: int, paths: list[Path]) -> None:
    for path in paths:
        for folder in [*reversed(path.parents), path]:
            if folder.is_dir() and not folder.stat().st_mode & stat.S_IXOTH:
                subprocess.run(["setfacl", "-m", f"u:{uid}:x", str(folder)], check=True)


def _delegate_cgroups(uid: int, gid: int) -> None:
    """What an administrator does to give a grading user cgroup caps on a cgroup v1 machine."""
    for controller in ("memory", "pids"):
        top = Path("/sys/fs/cgroup") / controller
        if (top / "cgroup.procs").exists():
            folder = top / f"reading-maths-{uid}"
            folder.mkdir(exist_ok=True)
            for path in [folder, *folder.iterdir()]:
                if path.is_file() or path == folder:
                    os.chown(path, uid, gid)


def ordinary_user() -> tuple[int, int, str]:
    """``(uid, gid, home)`` of the ordinary user to grade as (created and prepared when root)."""
    if os.geteuid() != 0:
        me = pwd.getpwuid(os.geteuid())
        return me.pw_uid, me.pw_gid, me.pw_dir
    try:
        entry = pwd.getpwnam(NAME)
    except KeyError:
        subprocess.run(["useradd", "--create-home", "--shell", "/usr/sbin/nologin", NAME], check=True)
        entry = pwd.getpwnam(NAME)
    _traversable(entry.pw_uid, [Path(os.path.realpath(sys.executable)), Path(sys.base_prefix), Path(sys.prefix)])
    _delegate_cgroups(entry.pw_uid, entry.pw_gid)
    return entry.pw_uid, entry.pw_gid, entry.pw_dir


def as_user(command: list[str]) -> list[str]:
    """``command`` run as the ordinary user (unchanged when this already is one)."""
    if os.geteuid() != 0:
        return command
    uid, gid, _ = ordinary_user()
    return ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={gid}", "--init-groups", "--", *command]


def call_in_mode(mode: str, module: str, function: str, argument: str, timeout: float = 900) -> object:
    """``module.function(argument)`` (a test module's, JSON in and out) in a Python of its own, as root
    (``mode`` "root") or as the ordinary user ("user"), run from the repository's root."""
    import json

    root = Path(__file__).resolve().parents[2]
    script = (f"import json, sys; sys.path[:0] = ['tests', '.']\nimport {module}\n"
              f"print(json.dumps({module}.{function}({argument!r})))")
    command = [sys.executable, "-c", script]
    env = dict(os.environ)
    if mode == "user":
        command, env["HOME"] = as_user(command), ordinary_user()[2]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, env=env, timeout=timeout, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])
