"""Helpers for the browser tests: a temporary course, a JupyterLab server on it, and Chromium.

Everything here has a bounded timeout; the server runs in its own process group, which is killed
at the end; the browser is Debian's Chromium driven by Playwright (its own browser download does
not work everywhere, so it is never used).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest

from hub.site import wait_until_serving

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
BIN = Path(sys.executable).parent
COMMAND_TIMEOUT = 240  # seconds for one nbgrader / reading-maths command
VIEWPORT = {"width": 1400, "height": 900}

# What the browser tests' students type: a right softmax, and a catalogued mistake (T multiplied).
RIGHT_SOFTMAX = textwrap.dedent('''\
    def softmax(z, T=1.0):
        z = np.asarray(z, dtype=np.float64) / T
        z = z - z.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)
    ''')
WRONG_SOFTMAX = RIGHT_SOFTMAX.replace("/ T", "* T")


# -- the course -----------------------------------------------------------------------------------

def course_env(course: Path, scratch: Path) -> dict[str, str]:
    """Environment for commands run on the temporary course: this venv first, a fresh Jupyter config."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"  # nbgrader calls `alembic` by name
    env["READING_MATHS_COURSE"] = str(course)
    env["JUPYTER_CONFIG_DIR"] = str(scratch / "jupyter-config")  # no ~/.jupyter settings leak in
    env["JUPYTER_RUNTIME_DIR"] = str(scratch / "jupyter-runtime")
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("JUPYTER_TOKEN", None)
    return env


def run(command: list[str], course: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=course, env=env, capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done


def copy_course(repo: Path, course: Path) -> None:
    """The instructor's side of the course: source/, graders/ and nbgrader_config.py (no gradebook)."""
    course.mkdir(parents=True)
    for folder in ("source", "graders"):
        shutil.copytree(repo / folder, course / folder,
                        ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    shutil.copy2(repo / "nbgrader_config.py", course / "nbgrader_config.py")
    shutil.copy2(repo / "course-secret.key", course / "course-secret.key")  # the same course: the same hidden inputs
    # The config puts nbgrader's exchange inside the course; formgrader warns when it is missing.
    (course / "exchange").mkdir(mode=0o777)
    os.chmod(course / "exchange", 0o777)


def generate(course: Path, assignment: str, env: dict[str, str]) -> Path:
    """``release/<assignment>/<assignment>.ipynb``, made by nbgrader's own generate_assignment."""
    run([str(BIN / "nbgrader"), "generate_assignment", assignment, "--force", "--create",
         f"--CourseDirectory.root={course}", "--log-level=WARN"], course, env)
    notebook = course / "release" / assignment / f"{assignment}.ipynb"
    assert notebook.is_file(), f"generate_assignment made no {notebook}"
    return notebook


def grade_ids(notebook: Path) -> dict[str, dict]:
    """``grade_id -> nbgrader metadata`` of a notebook's cells."""
    nb = nbformat.read(notebook, as_version=4)
    return {c.metadata["nbgrader"]["grade_id"]: dict(c.metadata["nbgrader"])
            for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")}


def max_score(notebook: Path) -> float:
    return sum(m.get("points", 0) for m in grade_ids(notebook).values() if m.get("grade"))


def submit(course: Path, student: str, assignment: str, template: Path,
           answers: dict[str, str] | None = None) -> Path:
    """Put a copy of ``template`` (an untouched release notebook), with ``answers`` (grade_id -> cell
    source), under submitted/."""
    nb = nbformat.read(template, as_version=4)
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if answers and gid in answers:
            cell.source = answers[gid]
    target = course / "submitted" / student / assignment / f"{assignment}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)
    return target


def autograde(course: Path, assignment: str, env: dict[str, str]) -> str:
    """``reading-maths autograde`` where the CLI has it, else stock ``nbgrader autograde``.

    Returns the command used. A submission that cannot be graded is left out of ``autograded/`` by
    either tool; the caller looks there for what was graded.
    """
    rm = BIN / "reading-maths"
    has_own = rm.exists() and subprocess.run([str(rm), "autograde", "--help"], check=False, env=env, cwd=course,
                                             capture_output=True, timeout=60).returncode == 0
    if has_own:
        command = [str(rm), "autograde", assignment]
    else:
        command = [str(BIN / "nbgrader"), "autograde", assignment, "--create",
                   f"--CourseDirectory.root={course}", "--log-level=WARN"]
    subprocess.run(command, cwd=course, env=env, capture_output=True, text=True,
                   timeout=COMMAND_TIMEOUT, check=False)
    return " ".join(Path(command[0]).name if i == 0 else a for i, a in enumerate(command))


def autograded(course: Path, assignment: str) -> list[str]:
    """Students whose notebook of ``assignment`` was autograded."""
    folder = course / "autograded"
    return sorted(p.parent.parent.name for p in folder.glob(f"*/{assignment}/{assignment}.ipynb"))


# -- the server -----------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A running JupyterLab: its base URL and token."""

    def __init__(self, url: str, token: str, log: Path):
        self.url, self.token, self.log = url, token, log

    def at(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.url}{path}{sep}token={self.token}"


def _lab_settings(folder: Path) -> None:
    """User settings that keep pop-ups away: no news or update notifications."""
    target = folder / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))


@contextmanager
def jupyter_lab(course: Path, scratch: Path, env: dict[str, str], startup_timeout: float = 60):
    """Start ``jupyter lab`` on ``course`` (cwd too: nbgrader reads nbgrader_config.py from there)."""
    token, port = secrets.token_hex(16), free_port()
    settings, workspaces = scratch / "lab-settings", scratch / "lab-workspaces"
    _lab_settings(settings)
    workspaces.mkdir(parents=True, exist_ok=True)
    log = scratch / "jupyter-lab.log"
    command = [str(BIN / "jupyter"), "lab", "--no-browser", f"--ServerApp.token={token}",
               f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.root_dir={course}", "--allow-root",
               f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={workspaces}"]
    with log.open("w") as out:
        proc = subprocess.Popen(command, cwd=course, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(proc, f"{url}/api/status?token={token}", log, "jupyter lab", startup_timeout, pause=0.25)
        yield Lab(url, token, log)
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    """Kill the server's process group (the server and its kernels), politely first."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # kernels left behind in the group, if any
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


# -- the browser ----------------------------------------------------------------------------------

def _sync_playwright():
    """Playwright's sync API, or skip saying why the browser tests cannot run here."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        pytest.skip(f"browser tests need the playwright package ({exc}); pip install -e '.[test]'")
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM} (make system-packages, as root)")
    return sync_playwright


def _launch_failed(exc: Exception):
    pytest.skip(f"playwright cannot launch {CHROMIUM}: {str(exc).splitlines()[0]}")


@contextmanager
def chromium():
    """A fresh headless Chromium context (Debian's binary), or skip the test saying why not."""
    sync_playwright = _sync_playwright()
    profile = tempfile.mkdtemp(prefix="rm-chromium-")
    try:
        with sync_playwright() as p:
            try:
                context = p.chromium.launch_persistent_context(
                    profile, executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True,
                    viewport=VIEWPORT, timeout=60_000)
            except Exception as exc:  # noqa: BLE001 - any launch failure means no browser here
                _launch_failed(exc)
            try:
                context.set_default_timeout(30_000)
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


@contextmanager
def chromium_browser():
    """A headless Chromium (Debian's binary) for several people at once: ``browser.new_context()``
    gives each their own cookies. Skips the test, saying why, when there is no browser."""
    sync_playwright = _sync_playwright()
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True,
                                        timeout=60_000)
        except Exception as exc:  # noqa: BLE001 - any launch failure means no browser here
            _launch_failed(exc)
        try:
            yield browser
        finally:
            browser.close()
