"""A grader's catalogue: the mistakes it can name, and the failure a case raises naming one.

The report's "most common mistakes" counts students by the ``mistake`` id of each :class:`Failed` a case raises;
its message is the catalogue's :class:`Mistake` of that id (``reading_maths/grading/graderfile.py`` gathers a
grader file's catalogue, with :data:`FAILURES`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class Failed(AssertionError):
    """A failed check: its text is the student's feedback, ``mistake`` the catalogued mistake it names."""

    def __init__(self, feedback: str, mistake: str | None = None, *, diagnose_later: bool = False,
                 where: str | None = None, detail: str | None = None, explanation: str | None = None):
        super().__init__(feedback)
        self.mistake = mistake
        self.diagnose_later = diagnose_later
        """the diagnosis needs calls on hidden inputs: the hidden run names the mistake (the grader runs it)"""
        self.where = where
        """the grader's own words for the check ("`softmax` on a hidden batch of rows"), for the hidden run's
        message (:meth:`~reading_maths.grading.graderfile.GraderFile.closed_message`)"""
        self.detail = detail
        """a phrase from a closed list (:data:`~reading_maths.kit.question.SHAPE_PHRASES`) the hidden run may add"""
        self.explanation = explanation
        """the grader's fixed sentence that explains the failure (a property's message), if any"""


def failure(mistake: str, feedback: str) -> Failed:
    """The :class:`Failed` naming ``mistake``: the id first, so that a long feedback can follow."""
    return Failed(feedback, mistake)


@dataclass(frozen=True)
class Mistake:
    """A realistic mistake and what to tell the student who made it: an entry of a grader's catalogue."""

    name: str
    """short id, e.g. ``"no-max-shift"``; the report counts students by it"""
    message: str
    """what is wrong and how to fix it, in the course's words"""
    impl: Any = None
    """the wrong implementation (with the student API's signature) or formula that :class:`Question` (or the
    grader) compares an answer with to diagnose it; None for a mistake recognised exactly (a wrong item, a
    distractor step, a failure of a kind)"""


FAILURES = (
    Mistake("not-defined", "The answer's name is not defined when the notebook has run: run the cell that "
            "defines it and keep the name as the notebook gives it."),
    Mistake("not-a-function", "The name holds something other than a function."),
    Mistake("did-not-finish", "The function did not finish within the time limit of one call (an endless loop?)."),
    Mistake("ended-process", "The function ended the Python process running the notebook."),
    Mistake("raised", "The function raised an exception on an input it should handle."),
    Mistake("not-numeric", "The function's result cannot be read as numbers."),
    Mistake("wrong-shape", "The result has the wrong shape."),
    Mistake("not-finite", "The result has inf or nan where the answer is an ordinary number."),
    Mistake("wrong-values", "The result has the wrong values, and no catalogued mistake explains them."),
    Mistake("changed-input", "The function changed its input array in place."),
    Mistake("broken-property", "The result breaks a property the text states (a range, a sum, convergence)."),
)
"""The kinds of failure every :class:`~reading_maths.kit.question.Question` may report, beside its own
catalogue (the report counts them)."""
