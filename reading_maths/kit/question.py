"""Questions and mistakes: how a grader case compares a student's function with the reference.

:meth:`Question.check` turns the output into a plain float64 array, requires the exact shape,
finite values where the reference is finite and the stated tolerance, then that the inputs were
left unchanged; a failure raises :class:`Failed`, whose text is the feedback and whose ``mistake``
names the catalogued :class:`Mistake` that explains it, if one does.
"""

from __future__ import annotations

import copy
import functools
import numbers
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

from reading_maths.kit.diagnosis import MATCH_ATOL, MATCH_RTOL, best_mistake
from reading_maths.kit.memo import Memo, fingerprint
from reading_maths.kit.mistakes import Failed, Mistake
from reading_maths.kit.properties import Property, first_broken
from reading_maths.sandbox.disclosure import public_inputs
from reading_maths.sandbox.errors import (
    CallTimeout,
    HiddenDeferred,
    ProcessDied,
    StudentError,
    exception_kind,
    standard_name,
)
from reading_maths.sandbox.inside.wire import COMPLEX, Unencodable

RTOL = 1e-6
ATOL = 1e-9


class NotNumeric(AssertionError):
    """An output could not be read as an array of float64 numbers."""


def as_plain_array(x: Any) -> np.ndarray:
    """Return ``x`` as a plain float64 ndarray, or raise :class:`NotNumeric`.

    Object arrays, strings, ``None`` and anything NumPy cannot turn into floats fail; ndarray
    subclasses are turned into base-class arrays, so none of their methods run again.
    """
    if x is None or isinstance(x, (str, bytes, dict, Unencodable)) or not _array_like(x):
        if _is_complex(x):
            raise NotNumeric("returned complex numbers, but the answer is real: keep the arithmetic real")
        raise NotNumeric(f"returned {'None' if x is None else 'a ' + type(x).__name__}, not an array of numbers")
    if _is_complex(x):
        raise NotNumeric("returned complex numbers, but the answer is real: keep the arithmetic real")
    try:
        arr = np.array(x, dtype=np.float64, subok=False)
    except Exception:  # noqa: BLE001 - any failure means "not numbers"
        raise NotNumeric(f"returned a {type(x).__name__} that is not an array of numbers") from None
    return arr


def _array_like(x: Any) -> bool:
    """Whether NumPy may read ``x`` as numbers: a number, an array, a sequence (not an iterator or generator,
    which NumPy would wrap as one object)."""
    return isinstance(x, (numbers.Number, np.ndarray, np.generic, list, tuple)) or any(
        hasattr(x, a) for a in ("__array__", "__array_interface__", "__float__", "__index__")) \
        or (hasattr(x, "__len__") and hasattr(x, "__getitem__"))


def _is_complex(x: Any) -> bool:
    """A complex number or array, in-process or as it arrives refused from the sandbox."""
    if isinstance(x, Unencodable):
        return x.type_name == COMPLEX
    if isinstance(x, numbers.Complex) and not isinstance(x, numbers.Real):
        return True
    if isinstance(x, (list, tuple)):
        return any(_is_complex(v) for v in x)
    return isinstance(x, np.ndarray) and np.iscomplexobj(x)


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


def _exception_name(exc: BaseException) -> str:
    """The exception's type name when it is Python's or NumPy's own (a closed list), else "an exception of your
    own class": a class the student names itself could spell out the hidden inputs it was called with."""
    return standard_name(exc.type_name) if isinstance(exc, StudentError) else exception_kind(exc)


class _Raised(Exception):
    """The student's function raised: its kind (:func:`_exception_name`) and, for a public case, its text."""

    def __init__(self, kind: str, message: str):
        super().__init__(kind)
        self.kind, self.message = kind, message


def _raises(impl: Callable[..., Any], args: tuple, kwargs: dict) -> str | None:
    """The kind of exception a catalogued mistake raises on an input (:func:`_exception_name`), or None."""
    try:
        impl(*_copy_args(args), **_copy_args(kwargs))
    except Exception as exc:  # noqa: BLE001 - what it raises is what we compare
        return _exception_name(exc)
    return None


def _agree(a: list[np.ndarray] | None, b: list[np.ndarray] | None, rtol: float, atol: float) -> bool:
    return a is not None and b is not None and len(a) == len(b) and all(
        same_values(x, y, rtol, atol) for x, y in zip(a, b, strict=True))


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
    properties:
        the text's facts, tried in order when no catalogued mistake explains a wrong answer.
    probes:
        extra hidden inputs ``(args, kwargs)`` on which a catalogued mistake must also match
        before it is named (see :mod:`reading_maths.kit.diagnosis`).
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
        properties: Sequence[Property] = (),
        probes: Sequence[tuple[tuple, dict]] = (),
    ):
        self.name = name
        self.reference = reference
        self.mistakes = tuple(mistakes)
        self.outputs = tuple(outputs) if outputs else None
        self.rtol = rtol
        self.atol = atol
        self.properties = tuple(properties)
        self.probes = tuple((tuple(a), dict(k)) for a, k in probes)
        self._memo = Memo()

    # -- the one entry point grader cases use ------------------------------------------------
    def check(self, student: Any, *args: Any, label: str, public: bool = False, **kwargs: Any) -> None:
        """Call ``student(*args, **kwargs)`` and require the reference's output.

        ``label`` names the case in feedback ("the text's example z = (3, 1, 0)", "a hidden
        batch of rows of very different scale").  Only ``public`` cases may show the inputs and
        the expected values; hidden ones never do.  Raises :class:`Failed` with the feedback and the mistake.
        """
        where = _describe_call(self.name, label)
        try:
            self._check(student, args, kwargs, where, public)
        except Failed as failed:
            failed.where = failed.where or where
            raise

    def _check(self, student: Any, args: tuple, kwargs: dict, where: str, public: bool) -> None:
        self._require_callable(student)
        key = fingerprint((args, kwargs))  # the input's, once for the reference and every mistake tried on it
        expected = self._outputs_of(None, args, kwargs, key)
        given = _copy_args(args)  # what the call may change; ``args`` stay as they were, to compare with
        try:
            with public_inputs(public):
                actual_raw = self._call(student, given, kwargs, where)
        except _Raised as raised:
            self._fail_raised(student, raised, args, kwargs, where, public, key)
        actual = self._numbers(actual_raw, where)
        kind, problem = self._compare(actual, expected, public) or self._mutation(given, args) or (None, None)
        if problem is None:
            return
        detail = next((p for p in SHAPE_PHRASES if kind == "wrong-shape" and problem.endswith(p)), None)
        mistake = broken = None
        try:
            if kind != "changed-input":
                with np.errstate(all="ignore"):
                    mistake = self._diagnose(student, actual, args, kwargs, key)
                    if mistake is None and self.properties and kind == "wrong-values":
                        broken = first_broken(self.properties, self._caller(student))
        except HiddenDeferred:  # the diagnosis calls on hidden inputs: the hidden run adds it
            raise Failed(self._feedback(where, problem, None, args, kwargs, expected, public), kind,
                         diagnose_later=True, detail=detail) from None
        explanation = mistake.message if mistake else broken.message if broken else None
        raise Failed(self._feedback(where, problem, explanation, args, kwargs, expected, public),
                     mistake.name if mistake else kind, detail=detail, explanation=explanation)

    def _fail_raised(self, student: Any, raised: _Raised, args: tuple, kwargs: dict, where: str, public: bool,
                     key: Any = None) -> NoReturn:
        """Fail for an exception: named by its kind, and by the catalogued mistake that raises it too, if one does."""
        detail = f"{raised.kind}: {raised.message}" if public and raised.message else raised.kind
        problem = f"{where}: your code raised {detail}."
        try:
            with np.errstate(all="ignore"):
                mistake = self._diagnose_raised(student, raised.kind, args, kwargs, key)
        except HiddenDeferred:  # the diagnosis calls on hidden inputs: the hidden run adds it
            raise Failed(problem, "raised", diagnose_later=True, detail=raised.kind) from None
        if mistake is None:
            raise Failed(problem, "raised", detail=raised.kind)
        raise Failed(f"{problem} {mistake.message}", mistake.name, detail=raised.kind, explanation=mistake.message)

    def _diagnose_raised(self, student: Any, kind: str, args: tuple, kwargs: dict, key: Any = None
                         ) -> Mistake | None:
        """The one catalogued mistake that raises an exception of the same kind on this input and agrees with the
        student on every probe where it differs from the right answer (raising, or in its values); ``key``: the
        input's fingerprint, when the caller has it."""
        key = fingerprint((args, kwargs)) if key is None else key
        found = [m for m in self.mistakes if callable(m.impl) and self._raised_by(m.impl, args, kwargs, key) == kind]
        mine: dict[int, Any] = {}
        explains = [m for m in found if self._agrees_on_probes(student, m, mine)]
        return explains[0] if len(explains) == 1 else None

    def _agrees_on_probes(self, student: Any, mistake: Mistake, mine: dict[int, Any]) -> bool:
        """Whether the student does what ``mistake`` does on every probe where it is wrong (``mine``: the student's
        results so far, by probe)."""
        for i, (a, k) in enumerate(self.probes):
            key = self._probe_keys[i]
            wrong: Any = self._raised_by(mistake.impl, a, k, key) or self._outputs_or_none(mistake.impl, a, k, key)
            if not isinstance(wrong, str) and (
                    wrong is None or _agree(wrong, self._outputs_or_none(None, a, k, key), self.rtol, self.atol)):
                continue  # right on this probe: no evidence either way
            if i not in mine:
                try:
                    mine[i] = self._caller(student)(*a, **k)
                except Exception as exc:  # noqa: BLE001 - the student's exception is evidence too
                    mine[i] = _exception_name(exc)
            if isinstance(wrong, str) or isinstance(mine[i], str):
                if wrong != mine[i]:
                    return False
            elif not _agree(mine[i], wrong, MATCH_RTOL, MATCH_ATOL):
                return False
        return True

    def check_property(self, ok: bool, *, label: str, message: str) -> None:
        """Fail with ``message`` unless ``ok`` (for property cases: ranges, sums, convergence)."""
        if not ok:
            where = _describe_call(self.name, label)
            raise Failed(f"{where}: {message}", "broken-property", where=where)

    def call(self, student: Any, *args: Any, label: str, public: bool = False, **kwargs: Any) -> list[np.ndarray]:
        """Call the student function and return its outputs as plain arrays (for property cases)."""
        where = _describe_call(self.name, label)
        try:
            self._require_callable(student)
            try:
                with public_inputs(public):
                    raw = self._call(student, _copy_args(args), kwargs, where)
            except _Raised as raised:
                self._fail_raised(student, raised, args, kwargs, where, public)
            return self._numbers(raw, where)
        except Failed as failed:
            failed.where = failed.where or where
            raise

    # -- steps ---------------------------------------------------------------------------------
    def _require_callable(self, student: Any) -> None:
        if student is None:
            raise Failed(f"`{self.name}` is not defined. Run the cell that defines it, and keep the name "
                         f"`{self.name}` exactly as the notebook gives it.", "not-defined")
        if not callable(student):
            raise Failed(f"`{self.name}` should be a function, but it is a {type(student).__name__}.",
                         "not-a-function")

    def _call(self, student: Any, args: Any, kwargs: dict, where: str) -> Any:
        """The student's result; :class:`_Raised` if their code raised."""
        try:
            return student(*args, **_copy_args(kwargs))
        except CallTimeout:
            raise Failed(f"{where}: it did not finish within the time limit (an endless loop?).",
                         "did-not-finish") from None
        except ProcessDied:
            raise Failed(f"{where}: it ended the Python process running your notebook.", "ended-process") from None
        except StudentError as exc:
            raise _Raised(_exception_name(exc), exc.message) from None
        except Exception as exc:  # noqa: BLE001 - the student's own exception, reported as feedback
            raise _Raised(_exception_name(exc), str(exc)) from None

    def _numbers(self, value: Any, where: str) -> list[np.ndarray]:
        try:
            return self._normalise(value)
        except NotNumeric as exc:
            raise Failed(f"{where}: {exc}.", "not-numeric") from None

    def _normalise(self, value: Any) -> list[np.ndarray]:
        if self.outputs:
            return split_outputs(value, len(self.outputs))
        return [as_plain_array(value)]

    def _output_name(self, index: int) -> str:
        return self.outputs[index] if self.outputs else "the result"

    def _compare(self, actual: list[np.ndarray], expected: list[np.ndarray], public: bool = False
                 ) -> tuple[str, str] | None:
        """``(failure id, problem)`` of the first output that differs from the reference's, or None; a hidden
        case's problem is in words from a closed list (:func:`shape_difference`), never the shapes."""
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            what = self._output_name(i)
            if a.shape != e.shape:
                return "wrong-shape", (f"{what} has shape {a.shape}, but should have shape {e.shape}" if public
                                       else f"{what} has the wrong shape: it {shape_difference(a.shape, e.shape)}")
            if a.size and not np.all(np.isfinite(a) | ~np.isfinite(e)):
                return "not-finite", f"{what} contains inf or nan where the answer is an ordinary number"
            if not same_values(a, e, self.rtol, self.atol):
                return "wrong-values", f"{what} has the wrong values"
        return None

    def _mutation(self, given: Any, original: Any) -> tuple[str, str] | None:
        for g, o in zip(given, original, strict=True):
            if isinstance(o, np.ndarray) and not (
                isinstance(g, np.ndarray) and g.shape == o.shape and np.array_equal(g, o, equal_nan=True)
            ):
                return "changed-input", ("it changed its input array in place; work on a copy and leave the inputs "
                                         "as they were")
        return None

    def _outputs_of(self, impl: Callable[..., Any] | None, args: tuple, kwargs: dict,
                    key: Any = None) -> list[np.ndarray]:
        """The outputs of the reference (``None``) or of a catalogued mistake, remembered per input (read-only);
        ``key``: the input's fingerprint, when the caller has it."""
        impl = self.reference if impl is None else impl
        return self._memo.outputs(impl, fingerprint((args, kwargs)) if key is None else key,
                                  lambda: self._normalise(impl(*_copy_args(args), **_copy_args(kwargs))))

    def _raised_by(self, impl: Callable[..., Any], args: tuple, kwargs: dict, key: Any) -> str | None:
        """What a catalogued mistake raises on an input (:func:`_raises`), remembered per input as its outputs are
        (``key``: the input's fingerprint)."""
        return self._memo.raised(impl, key, lambda: _raises(impl, args, kwargs))

    @functools.cached_property
    def _probe_keys(self) -> list[Any]:
        return [fingerprint((a, k)) for a, k in self.probes]

    def _outputs_or_none(self, impl: Callable[..., Any] | None, args: tuple, kwargs: dict, key: Any = None
                         ) -> list[np.ndarray] | None:
        """:meth:`_outputs_of`, or None when they cannot be read."""
        try:
            return self._outputs_of(impl, args, kwargs, key)
        except Exception:  # noqa: BLE001 - outputs that cannot be read tell nothing
            return None

    def _caller(self, student: Any) -> Callable[..., list[np.ndarray]]:
        """The student's function as property probes call it: copied arguments, plain array outputs."""
        return lambda *args, **kwargs: self._normalise(student(*_copy_args(args), **_copy_args(kwargs)))

    def _diagnose(self, student: Any, actual: list[np.ndarray], args: tuple, kwargs: dict, key: Any = None
                  ) -> Mistake | None:
        """The catalogued mistake that best explains ``actual`` (see :mod:`reading_maths.kit.diagnosis`); ``key``:
        the input's fingerprint, when the caller has it."""
        if not self.mistakes:
            return None
        inputs = [(args, kwargs), *self.probes]
        keys = {(id(a), id(k)): found for (a, k), found in  # each input's, once for all mistakes
                zip(inputs, [fingerprint((args, kwargs)) if key is None else key, *self._probe_keys], strict=True)}
        return best_mistake(self.mistakes, inputs,
                            lambda impl, a, k: self._outputs_of(impl, a, k, keys[id(a), id(k)]),
                            lambda a, k: self._caller(student)(*a, **k), actual, same_values, (self.rtol, self.atol))

    def _feedback(self, where, problem, explanation, args, kwargs, expected, public) -> str:
        lines = [f"{where}: {problem}."]
        if explanation is not None:
            lines.append(explanation)
        if public:
            shown = ", ".join(_short(a) for a in args)
            lines.append(f"Input: {self.name}({shown}{_kw(kwargs)}); expected {_short_outputs(expected)}.")
        return " ".join(lines)


SHAPE_PHRASES = ("has one axis too many", "has one axis too few", "has too many axes", "has too few axes",
                 "has its rows and columns swapped (the last two axes)", "has the wrong length along several axes",
                 "has the wrong length along its last axis", "has the wrong length along its first axis",
                 "has the wrong length along an axis")
"""Every way :func:`shape_difference` describes a wrong shape: the only words about a hidden result's shape."""


def shape_difference(actual: tuple[int, ...], expected: tuple[int, ...]) -> str:
    """How a result's shape differs from the answer's, in words from a closed list: no length or number of axes
    is repeated (on a hidden input they could carry what the student's code read of it)."""
    if len(actual) != len(expected):
        more = len(actual) > len(expected)
        if abs(len(actual) - len(expected)) == 1:
            return "has one axis too many" if more else "has one axis too few"
        return "has too many axes" if more else "has too few axes"
    if len(actual) >= 2 and actual[:-2] == expected[:-2] and actual[-2:] == expected[-2:][::-1]:
        return "has its rows and columns swapped (the last two axes)"
    wrong = [i for i, (a, e) in enumerate(zip(actual, expected, strict=True)) if a != e]
    if len(wrong) > 1:
        return "has the wrong length along several axes"
    return ("has the wrong length along its last axis" if wrong[0] == len(actual) - 1
            else "has the wrong length along its first axis" if wrong[0] == 0 else "has the wrong length along an axis")


def _short(value: Any) -> str:
    if callable(value):
        return getattr(value, "__name__", "a function")
    return np.array2string(np.asarray(value), precision=4, separator=", ") if not np.isscalar(value) else repr(value)


def _kw(kwargs: dict) -> str:
    return "".join(f", {k}={v!r}" for k, v in kwargs.items())


def _short_outputs(values: list[np.ndarray]) -> str:
    return " and ".join(np.array2string(v, precision=4, separator=", ") for v in values)
