"""Stock nbgrader for a course copy: kernel execution of the hidden test cells, not the sandbox.

The course's ``nbgrader_config.py`` routes ``nbgrader autograde`` through the sandbox; the benchmark's
baseline and the test of the in-kernel driver (:mod:`reading_maths.nbgrader.in_kernel`) want nbgrader
as it ships, so they append this line to their copy.
"""

from __future__ import annotations

from pathlib import Path

STOCK_LINE = "\nroute_autograde(c, sandboxed=False)  # stock nbgrader: hidden test cells run in the kernel\n"


def use_stock_nbgrader(course: Path) -> None:
    """Make ``nbgrader autograde`` in ``course`` run nbgrader's stock preprocessors (``Execute``)."""
    config = Path(course) / "nbgrader_config.py"
    config.write_text(config.read_text(encoding="utf-8") + STOCK_LINE, encoding="utf-8")
