"""The Python that the single-user servers run: readable and executable by every account.

The project's ``.venv`` cannot serve: its interpreter is often a symlink into the developer's home
(``/root/.pyenv`` here, with ``/root`` mode 700), which other users cannot even start. So the hub gets
its own venv made from Debian's ``/usr/bin/python3``, in a folder under ``/opt`` that everyone can
read, with this project installed (not editable: a copy every user can read) and the same JupyterHub
as the hub's. It is built once per checkout and refreshed when the project's files change.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

SYSTEM_PYTHON = Path("/usr/bin/python3")
ENV_ROOT = Path("/opt/reading-maths-hub")
INSTALL_TIMEOUT = 1200  # seconds; a fresh machine downloads every wheel once

# JupyterLab settings for everyone on the hub: no news or update pop-ups over a class's notebooks.
# Students get the assignment list and Validate; formgrader, the course list and the create-assignment
# toolbar are switched off in the shared env and back on for the instructor only (nbgrader's documented way).
INSTRUCTOR_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list")
INSTRUCTOR_LAB_PLUGINS = ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:course-list",
                          "@jupyter/nbgrader:create-assignment")

LAB_OVERRIDES = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}}


def env_path(repo: Path) -> Path:
    """Where the shared env of this checkout lives (one per checkout, so checkouts never mix)."""
    tag = hashlib.sha256(str(repo.resolve()).encode()).hexdigest()[:10]
    return ENV_ROOT / f"env-{tag}"


def _fingerprint(repo: Path) -> str:
    """What the install depends on: pyproject.toml, the package's files and the hub's JupyterHub version."""
    digest = hashlib.sha256(version("jupyterhub").encode())
    files = [repo / "pyproject.toml", Path(__file__), *sorted((repo / "reading_maths").rglob("*.py"))]
    for path in files:
        digest.update(str(path).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _pip(env: Path, *args: str) -> None:
    done = subprocess.run([str(env / "bin" / "python"), "-m", "pip", "--disable-pip-version-check", "-q", *args],
                          capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"pip {' '.join(args)} failed in {env}:\n{done.stderr[-3000:]}")


def instructor_tools(config_dir: Path, enabled: bool) -> None:
    """Switch formgrader and its companions on or off in a Jupyter config folder: the shared env's
    ``etc/jupyter`` (off for everyone) or an instructor's ``~/.jupyter`` (on again, which wins).

    The files are the ones ``jupyter server extension enable`` and ``jupyter labextension enable`` write,
    without the lab's lock, which would keep the instructor from switching formgrader back on.
    """
    page = {"disabledExtensions": {name: not enabled for name in INSTRUCTOR_LAB_PLUGINS}}
    server = {"ServerApp": {"jpserver_extensions": {name: enabled for name in INSTRUCTOR_SERVER_EXTENSIONS}}}
    (config_dir / "labconfig").mkdir(parents=True, exist_ok=True)
    (config_dir / "labconfig" / "page_config.json").write_text(json.dumps(page, indent=2))
    (config_dir / "jupyter_server_config.json").write_text(json.dumps(server, indent=2))


def jupyter_settings(env: Path) -> None:
    """The settings every server running ``env`` shares: no news or update pop-ups, formgrader and its companions
    off (an instructor's own settings switch them back on). ``make hub`` and the Kubernetes image both lay them out."""
    overrides = env / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    overrides.parent.mkdir(parents=True, exist_ok=True)
    overrides.write_text(json.dumps(LAB_OVERRIDES, indent=2))
    instructor_tools(env / "etc" / "jupyter", enabled=False)


def ensure_env(repo: Path, log=print) -> Path:
    """The shared env for ``repo``, made or refreshed as needed (root only: it writes under /opt).

    Returns the env's folder; ``<env>/bin/jupyterhub-singleuser`` is what the spawner starts.
    """
    env = env_path(repo)
    ENV_ROOT.mkdir(mode=0o755, parents=True, exist_ok=True)
    with open(ENV_ROOT / f".{env.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two runs on one checkout build it once
        stamp, wanted = env / ".installed", _fingerprint(repo)
        if stamp.is_file() and stamp.read_text() == wanted:
            return env
        if not (env / "bin" / "python").exists():
            log(f"making the hub's shared Python in {env} (from {SYSTEM_PYTHON}; takes a minute or two)")
            subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", str(env)], check=True, timeout=300)
            _pip(env, "install", "--upgrade", "pip")
        else:
            log(f"refreshing the project in the hub's shared Python ({env})")
        _pip(env, "install", "--upgrade", "--force-reinstall", "--no-deps", str(repo))
        _pip(env, "install", str(repo), f"jupyterhub=={version('jupyterhub')}")
        jupyter_settings(env)
        stamp.write_text(wanted)
    return env


if __name__ == "__main__":
    print(ensure_env(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
