"""The hub's folder and the running hub.

A site is one folder (``/srv/reading-maths-hub`` for ``make hub``, a temporary one in the test)::

    site.json          what hub/jupyterhub_config.py reads: ports, accounts, the shared env, the proxy
    exchange/          nbgrader's shared exchange: the root sticky and world-writable, the course's folder, its
                       outbound/ and inbound/ (write-only, sticky) the instructor's (reading_maths.nbgrader.exchange);
                       none when the course's nbgrader_config.py says c.CourseExchange.kind = "service"
    exchange-service/  instead, the exchange service's program (hub/exchange.py), run as the instructor
    etc/jupyter/       nbgrader_config.py for every single-user server (on JUPYTER_CONFIG_PATH):
                       the course id and the exchange (the folder, or the service)
    state/             root only: JupyterHub's database, cookie secret and log
    checks/            with checks: the checks service's program and pages (hub/checks.py), run as the instructor
    share/jupyter/     with checks: the Check button's lab extension (on the servers' JUPYTER_PATH), and in
                       etc/jupyter/jupyter_server_config.d/ its server side (reading_maths.checks.lab_server) enabled

JupyterHub itself runs as root (its local process spawner starts each person's server as that
person), from the project's .venv, with the configurable-http-proxy that ``make`` installs into
``hub/node_modules``; everything listens on 127.0.0.1 only.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from reading_maths.nbgrader.exchange import configured_kind, lay_out

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "jupyterhub_config.py"
PROXY = HERE / "node_modules" / ".bin" / "configurable-http-proxy"
CHECKS_LAB = HERE / "checks-lab" / "labextension"  # built by `make hub-lab`
COURSE_ID = "reading-maths"

SITE_NBGRADER_CONFIG = '''\
"""nbgrader settings for everyone on this hub (students read only this; the instructor's course adds its own)."""
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course!r}
c.Exchange.root = {exchange!r}
c.Exchange.path_includes_course = True
c.Validator.validate_all = True  # Validate runs the public check cells too, as in the course's own config
'''

SITE_SERVED_CONFIG = '''\
"""nbgrader settings for everyone on this hub: the course's exchange is the hub's exchange service (hub/exchange.py,
at $READING_MATHS_EXCHANGE_URL); the instructor's course adds its own."""
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course!r}
c.Exchange.path_includes_course = True
c.Validator.validate_all = True  # Validate runs the public check cells too, as in the course's own config
c.CourseExchange.kind = "service"
from reading_maths.nbgrader.exchange import configure as course_exchange

course_exchange(c)
'''


def free_port(port: int = 0) -> int:
    """``port`` on 127.0.0.1 if it is free (any free port for 0); OSError when it is taken."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
        return s.getsockname()[1]


@dataclass(frozen=True)
class Site:
    """A hub's folder (see the module docstring)."""

    root: Path

    @property
    def exchange(self) -> Path:
        return self.root / "exchange"

    @property
    def jupyter_config(self) -> Path:
        return self.root / "etc" / "jupyter"

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def log(self) -> Path:
        return self.state / "jupyterhub.log"

    def settings(self) -> dict:
        return json.loads((self.root / "site.json").read_text())


def lay_out_checks(root: Path, instructor: str, course: Path, account: str | None, store: str | None = None) -> dict:
    """The checks service's files in the site, readable by everyone, and its settings in site.json: it runs as
    the Unix ``account`` (None: as the hub), who alone reads the hidden graders in ``course``; the hub user
    ``instructor`` sees every check; its store is ``store`` (a SQLAlchemy URL; None: ``checks.sqlite`` in the
    course). The Check button's lab extension is copied when it is built."""
    parts = [(HERE / "checks_pages", root / "checks" / "checks_pages")]
    if CHECKS_LAB.is_dir():
        parts.append((CHECKS_LAB, root / "share" / "jupyter" / "labextensions" / "reading-maths-checks"))
    for source, target in parts:
        shutil.copytree(source, target, dirs_exist_ok=True)
    shutil.copy2(HERE / "checks.py", root / "checks" / "checks.py")
    (root / "share" / "jupyter").mkdir(parents=True, exist_ok=True)
    # each server's reading-maths/deadlines, asking the service for the lab extension (checks/lab_server.py)
    enable = root / "etc" / "jupyter" / "jupyter_server_config.d" / "reading-maths-checks.json"
    enable.parent.mkdir(parents=True, exist_ok=True)
    enable.write_text(json.dumps({"ServerApp": {"jpserver_extensions": {"reading_maths.checks.lab_server": True}}}))
    for path in [root / "checks", root / "share", *(root / "checks").rglob("*"), *(root / "share").rglob("*"),
                 enable.parent, enable]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    return {"port": free_port(), "account": account, "instructor": instructor, "course": str(course),
            "program": str(root / "checks" / "checks.py"), "jupyter_path": str(root / "share" / "jupyter"),
            "store": store}


def lay_out_exchange_service(root: Path, instructor: str, courses: list[Path], store: str | None) -> dict:
    """The exchange service's program in the site, readable by everyone, and its settings in site.json: it runs as
    the Unix account ``instructor`` (who reads the courses' class lists in their gradebooks), the hub user of the
    same name teaching ``courses``; its store is ``store`` (a SQLAlchemy URL; None: SQLite in the first course)."""
    folder = root / "exchange-service"
    folder.mkdir(exist_ok=True)
    shutil.copy2(HERE / "exchange.py", folder / "exchange.py")
    os.chmod(folder, 0o755)
    os.chmod(folder / "exchange.py", 0o644)
    return {"port": free_port(), "account": instructor, "instructors": instructor,
            "courses": [str(c) for c in courses], "program": str(folder / "exchange.py"), "store": store}


def make_site(root: Path, env: Path, people: list[str], instructor: str | None = None, port: int | None = None,
              checks: tuple[str, Path, str | None] | None = None, course: Path | None = None,
              other_courses: tuple[Path, ...] = (), exchange_store: str | None = None,
              checks_store: str | None = None) -> Site:
    """Lay out (or refresh) a site for ``people`` whose servers run ``env``; ports are chosen free.

    The exchange is what ``course`` (the instructor's course folder; None: the folder exchange) says in its
    ``nbgrader_config.py``: the course's exchange folders owned by the Unix account ``instructor``
    (:data:`reading_maths.nbgrader.exchange.LAYOUT`; None: by this process's user), or, for
    ``c.CourseExchange.kind = "service"``, no folder but the exchange service, run as ``instructor`` for ``course``
    and ``other_courses``, its store at ``exchange_store`` (:func:`lay_out_exchange_service`). With
    ``checks = (instructor, course, account)``, the hub also runs the checks service (:func:`lay_out_checks`), its
    store at ``checks_store``."""
    site = Site(root)
    for folder, mode in ((root, 0o755), (site.jupyter_config, 0o755), (site.state, 0o700)):
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, mode)  # explicit: the umask must not narrow them
    os.chmod(root / "etc", 0o755)
    settings = {"port": free_port(port or 0), "hub_port": free_port(), "proxy_api_port": free_port(),
                "env": str(env), "proxy": str(PROXY), "people": people, "exchange": None,
                "jupyter_config": str(site.jupyter_config), "state": str(site.state)}
    if course is not None and configured_kind(course / "nbgrader_config.py") == "service":
        if not instructor:
            raise ValueError("the exchange service runs as the instructor: name their account")
        settings["exchange_service"] = lay_out_exchange_service(root, instructor, [course, *other_courses],
                                                                exchange_store)
        (site.jupyter_config / "nbgrader_config.py").write_text(SITE_SERVED_CONFIG.format(course=COURSE_ID))
    else:
        owner = pwd.getpwnam(instructor) if instructor else pwd.getpwuid(os.geteuid())
        lay_out(site.exchange, COURSE_ID, owner.pw_uid, owner.pw_gid)
        (site.jupyter_config / "nbgrader_config.py").write_text(
            SITE_NBGRADER_CONFIG.format(course=COURSE_ID, exchange=str(site.exchange)))
        settings["exchange"] = str(site.exchange)
    if checks:
        settings["checks"] = lay_out_checks(root, *checks, store=checks_store)
    (root / "site.json").write_text(json.dumps(settings, indent=2))
    return site


class Hub:
    """A running hub: its URL and its site."""

    def __init__(self, site: Site, process: subprocess.Popen):
        self.site, self.process = site, process
        self.url = f"http://127.0.0.1:{site.settings()['port']}"


def wait_until_serving(process: subprocess.Popen, url: str, log: Path, what: str, timeout: float,
                       pause: float = 0.5) -> None:
    """Wait until ``url`` answers 200 while ``process`` (``what``, logging to ``log``) lives, or raise with the
    end of its log."""
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited ({process.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} not ready after {timeout}s:\n{log.read_text()[-3000:]}")
        time.sleep(pause)


def stop(process: subprocess.Popen, grace: float = 30) -> None:
    """Stop the hub: SIGTERM (it stops every single-user server and the proxy), then kill its group."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # a proxy left behind in the group, if any
    except ProcessLookupError:
        pass
    process.wait()


@contextmanager
def running(site: Site, startup_timeout: float = 120, config: Path = CONFIG):
    """Run JupyterHub (as root, from this Python) on ``site`` with ``config``; stop it and its servers afterwards."""
    if not PROXY.exists():
        raise FileNotFoundError(f"{PROXY} is missing: run `make hub-proxy` (npm ci in hub/)")
    env = {**os.environ, "READING_MATHS_HUB_SITE": str(site.root),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    with site.log.open("a") as log:
        process = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=site.state,
                                   env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    hub = Hub(site, process)
    try:
        wait_until_serving(hub.process, f"{hub.url}/hub/health", hub.site.log, "jupyterhub", startup_timeout)
        yield hub
    finally:
        stop(process)
