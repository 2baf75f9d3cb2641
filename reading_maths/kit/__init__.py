"""What a grader author imports: the API hidden grader files in ``graders/`` are written in.

A grader file is an Otter exception-format test file: plain ``@test_case`` functions of the
student's names.  Each case calls a :class:`Question` check, which runs the student's object and
the reference on the same input, compares them by the rules of ``design.md`` and, on a failure,
raises an ``AssertionError`` whose text is the student's feedback.  The same file runs under four
drivers: pytest (the project's own tests), Otter, nbgrader's kernel, and the sandboxed engine,
where the student's functions arrive as proxies that call into the sandbox.

Functions a grader hands to student code (a gradient for ``adam``) are :class:`QuadraticGradient` or
:class:`Scaled` where they can be: the sandboxed child computes those itself, with no round trip per call.

Nothing in this package is secret: hidden inputs, seeds, references and mistake catalogues live
in the grader files and the source notebooks, which only the instructor's side reads.
"""

from reading_maths.kit.cases import item_cases, receiving
from reading_maths.kit.question import (
    ATOL,
    RTOL,
    Failed,
    Mistake,
    NotNumeric,
    Question,
    as_plain_array,
    same_values,
    split_outputs,
)
from reading_maths.kit.reference import hidden_rng, reference
from reading_maths.sandbox.inside.functions_as_data import QuadraticGradient, Scaled

__all__ = ["ATOL", "RTOL", "Failed", "Mistake", "NotNumeric", "QuadraticGradient", "Question", "Scaled",
           "as_plain_array", "hidden_rng", "item_cases", "receiving", "reference", "same_values", "split_outputs"]
