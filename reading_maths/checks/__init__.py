"""Official checks on demand: a student's saved notebook graded by the hidden graders before the deadline,
within limits the instructor sets (docs/checks.md).

:mod:`~reading_maths.checks.rules` reads the limits from the course's ``checks.toml``;
:mod:`~reading_maths.checks.store` keeps every request in SQLite; :mod:`~reading_maths.checks.desk` grades
in warm sandboxed workers and applies the limits; :mod:`~reading_maths.checks.client` is what a student's
kernel calls.  The web service that puts them behind JupyterHub's login is ``hub/checks.py``.
"""
