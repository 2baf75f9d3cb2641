"""A real PostgreSQL server for the tests: Debian's binaries, a new cluster in a temporary folder, listening on
127.0.0.1 (a free port) and on a Unix socket in that folder, with a random password.

PostgreSQL refuses to run as root: as root the server runs as Debian's ``postgres`` account (``nobody`` where
there is none), otherwise as the test's own user.

    server = start()             # NotInstalled where there is no PostgreSQL
    url = server.database()      # a new, empty database: postgresql+psycopg://...@127.0.0.1:port/name
    server.stop()

or ``with running() as server: ...``; the ``postgres`` fixture (tests/conftest.py) is one server per test session.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg

VERSIONS = Path("/usr/lib/postgresql")
USER = "reading_maths"
"""The cluster's superuser."""
SETTINGS = ("fsync=off", "synchronous_commit=off", "full_page_writes=off", "max_connections=300")
"""A throwaway cluster: nothing written is worth an fsync; every test's engines may hold connections at once."""


class NotInstalled(RuntimeError):
    """No PostgreSQL on this machine."""


def binaries() -> Path:
    """The newest installed PostgreSQL's programs (Debian's /usr/lib/postgresql/<version>/bin), or initdb's folder."""
    found = [p for p in VERSIONS.glob("*/bin") if (p / "initdb").is_file() and p.parent.name.isdigit()]
    if found:
        return max(found, key=lambda p: int(p.parent.name))
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    raise NotInstalled("PostgreSQL is not installed: `make system-packages` as root installs Debian's postgresql")


def account() -> pwd.struct_passwd:
    """Who runs the server: this process's user, or, as root, ``postgres`` (``nobody`` where there is none)."""
    if os.geteuid() != 0:
        return pwd.getpwuid(os.geteuid())
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise NotInstalled("running as root, and there is no postgres or nobody account to run PostgreSQL as")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A running cluster: ``url`` its maintenance database's (postgres) URL; :meth:`database` makes one more."""

    folder: Path
    port: int
    password: str
    runs_as: pwd.struct_passwd

    def url_of(self, database: str) -> str:
        return f"postgresql+psycopg://{USER}:{self.password}@127.0.0.1:{self.port}/{database}"

    @property
    def url(self) -> str:
        return self.url_of("postgres")

    def database(self, copy_of: str | None = None) -> str:
        """A new database, its URL: empty, or a copy of the database at ``copy_of`` (a URL of this server's, which
        nobody is connected to)."""
        name = f"test_{secrets.token_hex(6)}"
        template = f' TEMPLATE "{copy_of.rsplit("/", 1)[-1]}"' if copy_of else ""
        with psycopg.connect(host="127.0.0.1", port=self.port, user=USER, password=self.password, dbname="postgres",
                             autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"{template}')
        return self.url_of(name)

    def stop(self) -> None:
        """Stop the server and remove its folder."""
        _run(self.runs_as, binaries() / "pg_ctl", "stop", "-D", str(self.folder / "data"), "-m", "fast", "-w")
        shutil.rmtree(self.folder, ignore_errors=True)


def _run(runs_as: pwd.struct_passwd, *command: str | Path) -> None:
    """``command`` as ``runs_as`` (through ``setpriv`` when that is not this process's user)."""
    argv = [str(part) for part in command]
    if runs_as.pw_uid != os.geteuid():
        argv = ["setpriv", f"--reuid={runs_as.pw_uid}", f"--regid={runs_as.pw_gid}", "--clear-groups", *argv]
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/"}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False, env=env, cwd="/")
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


def start(attempts: int = 3) -> Server:
    """A new cluster in a temporary folder, started (a port taken meanwhile by someone else: tried again)."""
    programs, runs_as = binaries(), account()
    folder = Path(tempfile.mkdtemp(prefix="reading-maths-postgres-"))
    os.chown(folder, runs_as.pw_uid, runs_as.pw_gid)
    password = secrets.token_urlsafe(18)
    secret = folder / "password"
    secret.write_text(password)
    os.chown(secret, runs_as.pw_uid, runs_as.pw_gid)
    try:
        _run(runs_as, programs / "initdb", "-D", folder / "data", "-U", USER, f"--pwfile={secret}",
             "--auth=scram-sha-256", "--no-locale", "--encoding=UTF8", "--no-sync")
        secret.unlink()
        for attempt in range(1, attempts + 1):
            port = free_port()
            options = " ".join([f"-p {port}", "-c listen_addresses=127.0.0.1", f"-c unix_socket_directories={folder}",
                                *(f"-c {setting}" for setting in SETTINGS)])
            try:
                _run(runs_as, programs / "pg_ctl", "start", "-D", folder / "data", "-l", folder / "log", "-w",
                     "-t", "120", "-o", options)
                return Server(folder, port, password, runs_as)
            except RuntimeError:
                if attempt == attempts:
                    raise RuntimeError(f"PostgreSQL did not start:\n{(folder / 'log').read_text()[-3000:]}") from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    raise ValueError(f"attempts must be at least 1, not {attempts}")


@contextlib.contextmanager
def running() -> Iterator[Server]:
    """:func:`start`, stopped (and its folder removed) at the end of the ``with`` block."""
    server = start()
    try:
        yield server
    finally:
        server.stop()
