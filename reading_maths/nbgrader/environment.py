"""What nbgrader needs around it: this Python's bin first on ``PATH`` (it runs ``alembic`` and kernels by
name), and the course's own configuration."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

BIN = Path(sys.executable).parent
"""The folder of this Python's console scripts (``nbgrader``, ``alembic``, ``reading-maths``)."""


def nbgrader_env(base: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
    """``base`` (default: this process's environment) with :data:`BIN` first on ``PATH``, plus ``extra``."""
    env = dict(os.environ if base is None else base)
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    return env | extra


def use_nbgrader_env() -> None:
    """Put :data:`BIN` first on this process's own ``PATH`` (for nbgrader run in-process)."""
    if os.environ.get("PATH", "").split(os.pathsep)[0] != str(BIN):
        os.environ["PATH"] = nbgrader_env()["PATH"]


def course_config(root: Path):
    """The course's ``nbgrader_config.py`` at ``root``, loaded (an empty config where there is none)."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    if (Path(root) / "nbgrader_config.py").is_file():
        return PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    return Config()


def course_directory(root: Path):
    """nbgrader's :class:`~nbgrader.coursedir.CourseDirectory` for the course at ``root``, configured by its
    ``nbgrader_config.py`` (the gradebook's URL, the folder layout)."""
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=course_config(root))
    coursedir.root = str(root)
    return coursedir
