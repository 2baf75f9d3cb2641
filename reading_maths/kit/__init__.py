"""What a grader author imports: the API hidden grader files in ``graders/`` are written in.

A grader file is an Otter exception-format test file: plain ``@test_case`` functions of the
student's names.  Each case calls a :class:`Question` check (a function answer), an :class:`Items`
judge (a dict of items), a puzzle's or an entry's check; on a failure it raises :class:`Failed`, whose
text is the student's feedback and whose ``mistake`` is the id of the catalogued :class:`Mistake` the
report counts it by.  The same file runs under four drivers: pytest (the project's own tests), Otter,
nbgrader's kernel, and the sandboxed engine, where the student's functions arrive as proxies that call
into the sandbox.

Functions a grader hands to student code (a gradient for ``adam``) are :class:`QuadraticGradient` or
:class:`Scaled` where they can be: the sandboxed child computes those itself, with no round trip per call.

Nothing in this package is secret: hidden inputs, seeds, references and mistake catalogues live
in the grader files and the source notebooks, which only the instructor's side reads.
"""

from reading_maths.kit.cases import Items
from reading_maths.kit.mistakes import FAILURES, Failed, Mistake
from reading_maths.kit.question import (
    ATOL,
    RTOL,
    NotNumeric,
    Question,
    as_plain_array,
    same_values,
    split_outputs,
)
from reading_maths.kit.reference import course_seed, hidden_rng, reference
from reading_maths.sandbox.inside.functions_as_data import QuadraticGradient, Scaled

__all__ = ["ATOL", "FAILURES", "RTOL", "Failed", "Items", "Mistake", "NotNumeric", "QuadraticGradient", "Question",
           "Scaled", "as_plain_array", "course_seed", "hidden_rng", "reference", "same_values", "split_outputs"]
