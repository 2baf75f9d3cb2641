"""The small API that hidden grader files in ``graders/`` are written in.

A grader file is an Otter exception-format test file: plain ``@test_case`` functions of the
student's names.  Each case calls a :class:`Question` check, which runs the student's object and
the reference on the same input, compares them by the rules of ``design.md`` and, on a failure,
raises an ``AssertionError`` whose text is the student's feedback.  The same file runs under four
drivers: pytest (the project's own tests), Otter, nbgrader's kernel, and the sandboxed engine,
where the student's functions arrive as proxies that call into the sandbox.

Nothing here is secret: hidden inputs, seeds, references and mistake catalogues live in the
grader files and the source notebooks, which only the instructor's side reads.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import io
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

RTOL = 1e-6
ATOL = 1e-9


class StudentError(Exception):
    """The student's code raised; carries the exception's type name and message as plain text."""

    def __init__(self, type_name: str, message: str):
        super().__init__(f"{type_name}: {message}")
        self.type_name = type_name
        self.message = message


class CallTimeout(Exception):
    """The student's code did not return within the time limit (raised by sandbox proxies)."""


class ProcessDied(Exception):
    """The student's code ended the process running the notebook (raised by sandbox proxies)."""


class NotNumeric(AssertionError):
    """An output could not be read as an array of float64 numbers."""


def as_plain_array(x: Any) -> np.ndarray:
    """Return ``x`` as a plain float64 ndarray, or raise :class:`NotNumeric`.

    Object arrays, strings, ``None`` and anything NumPy cannot turn into floats fail; ndarray
    subclasses are turned into base-class arrays, so none of their methods run again.
    """
    if x is None or isinstance(x, (str, bytes, dict)):
        raise NotNumeric(f"returned {type(x).__name__}, not an array of numbers")
    try:
        arr = np.array(x, dtype=np.float64, subok=False)
    except Exception as exc:  # noqa: BLE001 - any failure means "not numbers"
        raise NotNumeric(f"returned something that is not an array of numbers ({type(exc).__name__})") from None
    return arr


def split_outputs(value: Any, count: int) -> list[np.ndarray]:
    """Split a function's result into ``count`` plain arrays (a tuple, a list, or a stacked array)."""
    if isinstance(value, (tuple, list)) and len(value) == count:
        return [as_plain_array(v) for v in value]
    arr = as_plain_array(value)
    if arr.ndim >= 1 and arr.shape[0] == count:
        return list(arr)
    raise NotNumeric(f"should return {count} arrays, as a tuple")


def same_values(actual: np.ndarray, expected: np.ndarray, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """Plain arrays of one shape agree within ``atol + rtol * |expected|``; NaN matches only NaN."""
    if actual.shape != expected.shape:
        return False
    both_nan = np.isnan(actual) & np.isnan(expected)
    with np.errstate(invalid="ignore", over="ignore"):
        # a finite value is never "close" to an infinite one (|a - inf| <= inf would say it is)
        close = (np.abs(actual - expected) <= atol + rtol * np.abs(expected)) & np.isfinite(expected)
    same_inf = np.isinf(expected) & (actual == expected)
    return bool(np.all(close | both_nan | same_inf))


@dataclass(frozen=True)
class Mistake:
    """A realistic wrong implementation and what to tell the student who wrote it."""

    name: str
    """short id, e.g. ``"no-max-shift"``; used in reports that count diagnosed mistakes"""
    message: str
    """what is wrong and how to fix it, in the course's words"""
    impl: Callable[..., Any]
    """the wrong implementation, with the student API's signature"""


def _copy_args(values: Any) -> Any:
    return copy.deepcopy(values)


def _describe_call(name: str, label: str) -> str:
    return f"`{name}` on {label}"


class Question:
    """Checks one student function against its reference and a catalogue of mistakes.

    Parameters
    ----------
    name:
        the student's name for the function (also the question id), e.g. ``"softmax"``.
    reference:
        the reference implementation (from the source notebook, see :func:`reference`).
    mistakes:
        the mistake catalogue; when a failed output matches one, its message is the feedback.
    outputs:
        names of the outputs when the function returns several (``("theta_t", "m_t", "v_t")``).
    rtol, atol:
        the stated tolerance: ``|actual - expected| <= atol + rtol * |expected|`` element-wise.
    """

    def __init__(
        self,
        name: str,
        reference: Callable[..., Any],
        mistakes: Sequence[Mistake] = (),
        *,
        outputs: Sequence[str] | None = None,
        rtol: float = RTOL,
        atol: float = ATOL,
    ):
        self.name = name
        self.reference = reference
        self.mistakes = tuple(mistakes)
        self.outputs = tuple(outputs) if outputs else None
        self.rtol = rtol
        self.atol = atol

    # -- the one entry point grader cases use ------------------------------------------------
    def check(self, student: Any, *args: Any, label: str, public: bool = False, **kwargs: Any) -> None:
        """Call ``student(*args, **kwargs)`` and require the reference's output.

        ``label`` names the case in feedback ("the text's example z = (3, 1, 0)", "a hidden
        batch of rows of very different scale").  Only ``public`` cases may show the inputs and
        the expected values; hidden ones never do.  Raises ``AssertionError`` with the feedback.
        """
        where = _describe_call(self.name, label)
        self._require_callable(student)
        expected = self._normalise(self.reference(*_copy_args(args), **_copy_args(kwargs)))
        given = _copy_args(args)
        original = _copy_args(args)
        actual_raw = self._call_student(student, given, kwargs, where, public)
        try:
            actual = self._normalise(actual_raw)
        except NotNumeric as exc:
            raise AssertionError(f"{where}: {exc}.") from None
        problem = self._compare(actual, expected)
        if problem is None:
            problem = self._mutation(given, original)
        if problem is None:
            return
        raise AssertionError(self._feedback(where, problem, actual, args, kwargs, expected, public))

    def check_property(self, ok: bool, *, label: str, message: str) -> None:
        """Fail with ``message`` unless ``ok`` (for property cases: ranges, sums, convergence)."""
        if not ok:
            raise AssertionError(f"{_describe_call(self.name, label)}: {message}")

    def call(self, student: Any, *args: Any, label: str, public: bool = False, **kwargs: Any) -> list[np.ndarray]:
        """Call the student function and return its outputs as plain arrays (for property cases)."""
        where = _describe_call(self.name, label)
        self._require_callable(student)
        raw = self._call_student(student, _copy_args(args), kwargs, where, public)
        try:
            return self._normalise(raw)
        except NotNumeric as exc:
            raise AssertionError(f"{where}: {exc}.") from None

    # -- steps ---------------------------------------------------------------------------------
    def _require_callable(self, student: Any) -> None:
        if student is None:
            raise AssertionError(
                f"`{self.name}` is not defined. Run the cell that defines it, and keep the name "
                f"`{self.name}` exactly as the notebook gives it."
            )
        if not callable(student):
            raise AssertionError(f"`{self.name}` should be a function, but it is a {type(student).__name__}.")

    def _call_student(self, student: Any, args: Any, kwargs: dict, where: str, public: bool) -> Any:
        try:
            return student(*args, **_copy_args(kwargs))
        except CallTimeout:
            raise AssertionError(f"{where}: it did not finish within the time limit (an endless loop?).") from None
        except ProcessDied:
            raise AssertionError(f"{where}: it ended the Python process running your notebook.") from None
        except StudentError as exc:
            detail = f"{exc.type_name}: {exc.message}" if public and exc.message else exc.type_name
            raise AssertionError(f"{where}: your code raised {detail}.") from None
        except Exception as exc:  # noqa: BLE001 - the student's own exception, reported as feedback
            detail = f"{type(exc).__name__}: {exc}" if public else type(exc).__name__
            raise AssertionError(f"{where}: your code raised {detail}.") from None

    def _normalise(self, value: Any) -> list[np.ndarray]:
        if self.outputs:
            return split_outputs(value, len(self.outputs))
        return [as_plain_array(value)]

    def _output_name(self, index: int) -> str:
        return self.outputs[index] if self.outputs else "the result"

    def _compare(self, actual: list[np.ndarray], expected: list[np.ndarray]) -> str | None:
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            what = self._output_name(i)
            if a.shape != e.shape:
                return f"{what} has shape {a.shape}, but should have shape {e.shape}"
            if a.size and not np.all(np.isfinite(a) | ~np.isfinite(e)):
                return f"{what} contains inf or nan where the answer is an ordinary number"
            if not same_values(a, e, self.rtol, self.atol):
                return f"{what} has the wrong values"
        return None

    def _mutation(self, given: Any, original: Any) -> str | None:
        for g, o in zip(given, original, strict=True):
            if isinstance(o, np.ndarray) and not (
                isinstance(g, np.ndarray) and g.shape == o.shape and np.array_equal(g, o, equal_nan=True)
            ):
                return "it changed its input array in place; work on a copy and leave the inputs as they were"
        return None

    def _diagnose(
        self, actual: list[np.ndarray], args: tuple, kwargs: dict, expected: list[np.ndarray] | None = None
    ) -> Mistake | None:
        for mistake in self.mistakes:
            try:
                out = self._normalise(mistake.impl(*_copy_args(args), **_copy_args(kwargs)))
            except Exception:  # noqa: BLE001 - a mistake that crashes on this input cannot match
                continue
            if expected is not None and self._compare(out, expected) is None:
                continue  # right on this input, so it cannot explain a wrong answer here
            if all(same_values(a, m, 1e-5, 1e-8) for a, m in zip(actual, out, strict=True)):
                return mistake
        return None

    def _feedback(self, where, problem, actual, args, kwargs, expected, public) -> str:
        lines = [f"{where}: {problem}."]
        if not problem.startswith("it changed"):
            with np.errstate(all="ignore"):
                mistake = self._diagnose(actual, args, kwargs, expected)
            if mistake is not None:
                lines.append(mistake.message)
        if public:
            shown = ", ".join(_short(a) for a in args)
            lines.append(f"Input: {self.name}({shown}{_kw(kwargs)}); expected {_short_outputs(expected)}.")
        return " ".join(lines)

    def diagnosed(self, feedback: str) -> str | None:
        """The name of the catalogued mistake whose message ``feedback`` contains, if any."""
        for mistake in self.mistakes:
            if mistake.message in feedback:
                return mistake.name
        return None


def _short(value: Any) -> str:
    if callable(value):
        return getattr(value, "__name__", "a function")
    return np.array2string(np.asarray(value), precision=4, separator=", ") if not np.isscalar(value) else repr(value)


def _kw(kwargs: dict) -> str:
    return "".join(f", {k}={v!r}" for k, v in kwargs.items())


def _short_outputs(values: list[np.ndarray]) -> str:
    return " and ".join(np.array2string(v, precision=4, separator=", ") for v in values)


# -- where the course lives, and the reference solutions -------------------------------------

def course_root() -> Path:
    """The course folder: ``$READING_MATHS_COURSE``, else the nearest parent of the working
    directory holding ``graders/`` and ``source/``."""
    env = os.environ.get("READING_MATHS_COURSE")
    if env:
        return Path(env).resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "graders").is_dir() and (folder / "source").is_dir():
            return folder
    raise FileNotFoundError(
        "cannot find the course folder (one with graders/ and source/); set READING_MATHS_COURSE"
    )


@functools.cache
def reference(assignment: str) -> SimpleNamespace:
    """The reference solution of an assignment: its source notebook run without its test cells.

    The source notebook's solution cells are the one source of truth; this executes every code
    cell of ``source/<assignment>/<assignment>.ipynb`` that is not a grade (test) cell, in a fresh
    namespace, and returns that namespace.
    """
    from reading_maths.notebook import reference_cells  # local: keeps this module light

    path = course_root() / "source" / assignment / f"{assignment}.ipynb"
    namespace: dict[str, Any] = {"__name__": f"reference_{assignment}"}
    with contextlib.redirect_stdout(io.StringIO()):  # check cells may print; nothing here is feedback
        for source in reference_cells(path):
            exec(compile(source, f"{path}", "exec"), namespace)  # noqa: S102 - the instructor's own notebook
    return SimpleNamespace(**{k: v for k, v in namespace.items() if not k.startswith("__")})


def hidden_rng(seed: int, case: str) -> np.random.Generator:
    """A generator for one hidden case: the same numbers on every run, different per case."""
    return np.random.default_rng([seed, *case.encode()])


# -- answers given as values: one case per item of a dict answer ---------------------------------

def item_cases(question: str, variable: str, spec: Any, parse: Callable[..., Any], key: dict, teach: dict, *,
               aliases: dict | None = None, explain: Callable[[Any, Any], str] | None = None,
               one_to_one: bool = False) -> dict[str, Any]:
    """One hidden one-point Otter case per item of the dict answer named ``variable``.

    Each case reads the student's answer with :func:`reading_maths.answers.read_answers` (a
    malformed answer gets its format message), and when the item's reading differs from ``key``
    fails with ``teach[item]``, plus ``explain(given, expected)`` (a targeted hint) and, with
    ``one_to_one``, a note when the same option was used for another item.  Use in a grader file
    as ``globals().update(item_cases(name, ...))``.
    """
    from otter.test_files import test_case

    from reading_maths.answers import read_answers

    def judge(answer: Any, item: str) -> None:
        reading = read_answers(answer, spec, parse, variable, *([aliases] if aliases else []))
        given, expected = reading.require(item), key[item]
        if given == expected:
            return
        lines = [f"{variable}[{item!r}]:", teach[item], explain(given, expected) if explain else ""]
        shared = [k for k, v in reading.values.items() if v == given and k != item] if one_to_one else []
        if shared:
            lines.append(f"You also chose ({given}) for item {', '.join(shared)}; each option fits one item at most.")
        raise AssertionError(" ".join(filter(None, lines)))

    return {f"case_{item}": test_case(name=f"{question}: {item}", points=1, hidden=True)(
                receiving(variable, lambda answer, item=item: judge(answer, item)))
            for item in spec}


def receiving(variable: str, body: Callable[[Any], None]) -> Callable[..., None]:
    """A test-case function that asks Otter for the student's name ``variable`` and runs ``body`` on it.

    Otter hands a case the notebook names its parameters ask for; this builds such a function for a
    name known only at run time, so one loop can make a case per item or per threshold.
    """
    def case(**names: Any) -> None:
        body(names[variable])

    case.__signature__ = inspect.Signature([inspect.Parameter(variable, inspect.Parameter.KEYWORD_ONLY)])
    return case
