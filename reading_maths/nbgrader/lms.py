"""``nbgrader zip_collect`` for an LMS's bulk download, keeping what the file names say about lateness.

Canvas names each file ``{login}_[LATE_]{user id}_{submission id}_{filename}[-{n}].ipynb`` and gives no
submission time; nbgrader's :class:`~nbgrader.plugins.FileNameCollectorPlugin` then writes no
``timestamp.txt``, so every LMS submission counts as on time. :class:`LmsFileNames` writes one from the
assignment's due date in the gradebook: the due date itself for a file without the marker, one second
past it for a file marked ``LATE_`` (late by less than a day, the least the marker says).
"""

from __future__ import annotations

import datetime as dt

from traitlets import Unicode

from reading_maths.nbgrader.exchange import SafeFileNameCollector
from reading_maths.nbgrader.term import due_date


class LmsFileNames(SafeFileNameCollector):
    """nbgrader's file-name collector refusing links (:class:`SafeFileNameCollector`), plus a timestamp from the
    ``late`` group of ``named_regexp``."""

    named_regexp = Unicode(
        # nbgrader matches the whole path of each extracted file, hence the leading "(?:.*/)?"
        r"^(?:.*/)?(?P<student_id>[^/_]+)_(?P<late>LATE_|late_)?\d+_\d+_(?P<file_id>[^/]+?)(?:-\d+)?\.ipynb$",
        help="The file names' pattern (Canvas's by default); an optional group `late` marks late work.",
    ).tag(config=True)

    def collect(self, submitted_file: str) -> dict | None:
        found = super().collect(submitted_file)
        if found is None:
            return None
        late = bool(found.pop("late", None))
        if found.get("timestamp"):
            return found
        coursedir = self.parent.coursedir
        due = due_date(coursedir.db_url, coursedir.assignment_id)
        if due is None:
            if late:
                self.log.warning("%s is marked late, but %s has no due date (c.Term.due_dates in "
                                 "nbgrader_config.py, then `reading-maths release`): counted on time",
                                 submitted_file, coursedir.assignment_id)
            return found
        found["timestamp"] = (due + dt.timedelta(seconds=1 if late else 0)).isoformat(" ")
        return found
