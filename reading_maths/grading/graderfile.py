"""Loading a hidden grader file (Otter exception format) and running its cases on a namespace.

This is the one driver logic shared by the project's tests, nbgrader's kernel and the sandboxed
engine: each hands it a namespace of the student's names (real objects, or sandbox proxies).
"""

from __future__ import annotations

import inspect
import runpy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from otter.test_files import ExceptionTestFile, test_case
from otter.test_files.abstract_test import TestCase

from reading_maths.kit import FAILURES, Items, Mistake, Question
from reading_maths.kit.proofblocks import Puzzle
from reading_maths.kit.question import SHAPE_PHRASES
from reading_maths.kit.strength_case import HABITS
from reading_maths.results import CaseResult, QuestionResult, Status
from reading_maths.sandbox.errors import EXCEPTION_NAMES, OWN_CLASS, HiddenDeferred

RAISED_KINDS = EXCEPTION_NAMES | {OWN_CLASS}
"""Every way a hidden run's feedback names an exception: a closed list (:func:`raised_phrase`)."""


def raised_phrase(kind: str) -> str:
    """The hidden run's words for an exception of ``kind`` (one of :data:`RAISED_KINDS`)."""
    return f"your code raised {kind}."


Interruption = Callable[[], "tuple[Status, str] | None"]
"""Returns ``(status, message)`` once the student's process can no longer answer, else None."""


@dataclass
class GraderFile:
    """A loaded grader file: the question it grades, its cases and its mistake catalogue."""

    path: Path
    question: str
    cases: list[TestCase]
    mistakes: tuple[Mistake, ...]
    properties: frozenset[str] = frozenset()
    """fixed sentences a failure may carry as its explanation: its questions' properties (the text's facts a wrong
    answer breaks) and what a weak test's source shows (:data:`~reading_maths.kit.strength_case.HABITS`)"""

    @property
    def max_score(self) -> float:
        return round(sum(c.points for c in self.cases), 6)

    @cached_property
    def names(self) -> list[str]:
        """The student's names the cases receive (parameters other than ``env``)."""
        found: dict[str, None] = {}
        for case in self.cases:
            for param in inspect.signature(case.body.test_func).parameters:
                if param != "env":
                    found[param] = None
        return list(found)

    def run(self, env: Mapping[str, Any], interrupted: Interruption | None = None) -> QuestionResult:
        """Run every case against ``env``; a case passes when it raises nothing."""
        result, later = self.start(env, interrupted)
        return self.finish(result, later, env, interrupted)

    def start(self, env: Mapping[str, Any], interrupted: Interruption | None = None
              ) -> tuple[QuestionResult, list[int]]:
        """Run the cases that need no hidden call (the public run of :mod:`reading_maths.sandbox.disclosure`);
        returns the result so far and the positions of the cases to run (again) in the hidden run."""
        result = QuestionResult(id=self.question, max_score=self.max_score)
        if self.names and all(env.get(n) is None for n in self.names):
            result.status = "missing"
            shown = ", ".join(f"`{n}`" for n in self.names)
            result.problem = f"{shown} not defined: run the cell that defines it and keep the name as given."
        later: list[int] = []
        stop = None
        for index, case in enumerate(self.cases):
            if stop is None and interrupted is not None:
                stop = interrupted()
            if stop is not None or result.status == "missing":
                missing = "not-defined" if stop is None else None
                result.cases.append(CaseResult(case.name, case.points, False, case.hidden, mistake=missing))
                continue
            try:
                outcome, diagnose_later = self._run_case(case, env)
            except HiddenDeferred:
                outcome, diagnose_later = CaseResult(case.name, case.points, False, case.hidden), True
            result.cases.append(outcome)
            if diagnose_later:
                later.append(index)
        if stop is None and interrupted is not None:
            stop = interrupted()
        if stop is not None:
            result.status, result.problem = stop
            later = []
        return result, later

    def finish(self, result: QuestionResult, later: list[int], env: Mapping[str, Any],
               interrupted: Interruption | None = None) -> QuestionResult:
        """Run the cases ``later`` (in the hidden run), then settle the question's status and mistakes.

        A public case whose diagnosis needed hidden calls keeps its public message and gains the catalogued
        mistake the hidden run names; a case run whole here says only what its grader says in its own words."""
        stop = None
        for index in later:
            if stop is None and interrupted is not None:
                stop = interrupted()
            if stop is not None:
                break
            case, before = self.cases[index], result.cases[index]
            after, _ = self._run_case(case, env, hidden_run=True)
            if not before.message:
                after.hidden_run = True
                result.cases[index] = after
            elif not after.passed and after.mistake in self._own_mistakes:
                before.mistake = after.mistake
                before.message = f"{before.message} {self._own_mistakes[after.mistake]}"
        if stop is None and interrupted is not None and later:
            stop = interrupted()
        if stop is not None:
            result.status, result.problem = stop
        elif result.status not in ("missing", "error", "timeout"):
            result.status = "passed" if all(c.passed for c in result.cases) else "failed"
        catalogue = {m.name: m.message for m in self.mistakes}
        result.mistake_messages = {c.mistake: catalogue.get(c.mistake, c.message) for c in result.cases if c.mistake}
        return result

    def closed_message(self, failed: AssertionError) -> str:
        """A failure of the hidden run in the graders' own words only: where (the grader's label of the check),
        a shape phrase from a closed list, and the catalogue's message of the mistake; never text the grader
        made from what the student's process said (:mod:`reading_maths.sandbox.disclosure`)."""
        where = getattr(failed, "where", None) or f"`{self.question}`"
        detail = getattr(failed, "detail", None)
        catalogue = {m.name: m.message for m in self.mistakes}
        said = catalogue.get(getattr(failed, "mistake", None) or "", "a hidden check failed.")
        fact = getattr(failed, "explanation", None)
        said = f"{said} {fact}" if fact in HABITS else fact if fact in self.properties else said
        if detail in SHAPE_PHRASES and getattr(failed, "mistake", None) == "wrong-shape":
            said = f"the result {detail}."
        if detail in RAISED_KINDS:
            own = self._own_mistakes.get(getattr(failed, "mistake", None) or "")
            said = raised_phrase(detail) + (f" {own}" if own else "")
        return f"{where}: {said}"

    @cached_property
    def _own_mistakes(self) -> dict[str, str]:
        """The grader's own catalogue (not the kit's kinds of failure): the mistakes a diagnosis names."""
        kinds = {m.name for m in FAILURES}
        return {m.name: m.message for m in self.mistakes if m.name not in kinds}

    def _run_case(self, case: TestCase, env: Mapping[str, Any], hidden_run: bool = False
                  ) -> tuple[CaseResult, bool]:
        """The case's result, and whether its failure's diagnosis waits for the hidden run."""
        try:
            call_case(case, env)
        except AssertionError as exc:
            mistake = getattr(exc, "mistake", None)
            message = (self.closed_message(exc) if hidden_run else
                       str(exc) or case.failure_message or f"{case.name} failed.")
            return (CaseResult(case.name, case.points, False, case.hidden, message, mistake),
                    bool(getattr(exc, "diagnose_later", False)))
        except Exception as exc:  # noqa: BLE001 - a grader that cannot judge this answer fails the case
            shown = f": {exc}" if not (case.hidden or hidden_run) else ""
            message = (f"`{self.question}`: a hidden check could not judge your answer." if hidden_run else
                       f"{case.name}: could not check your answer ({type(exc).__name__}{shown}).")
            return CaseResult(case.name, case.points, False, case.hidden, message), False
        return CaseResult(case.name, case.points, True, case.hidden, case.success_message or ""), False


@cache
def _parameters(test_func: Callable[..., Any]) -> tuple[str, ...]:
    return tuple(inspect.signature(test_func).parameters)


def call_case(case: TestCase, env: Mapping[str, Any]) -> None:
    """Run one case on ``env`` as Otter's ``call_func`` does (each parameter gets the name it is called, ``env`` the
    whole namespace), its parameters read once per process rather than at every call."""
    env = dict(env)
    case.body.test_func(**{p: env if p == "env" else env.get(p) for p in _parameters(case.body.test_func)})


def _cases(namespace: dict[str, Any], path: Path) -> tuple[str, list[TestCase]]:
    """The question name and test cases of an executed grader file, as Otter's ``ExceptionTestFile`` reads them
    (``tests/test_corpora.py`` checks they are the same)."""
    if "name" not in namespace:
        raise ValueError(f"grader file {path} does not define 'name'")
    cases: list[TestCase] = []
    for value in namespace.values():
        if isinstance(value, test_case):
            if value.name is None:
                value.name = f"{namespace['name']} - {len(cases) + 1}"
            cases.append(value.to_dataclass())
    return namespace["name"], ExceptionTestFile.resolve_test_file_points(namespace.get("points"), cases)


@cache
def load_grader(path: Path) -> GraderFile:
    """Load ``graders/<assignment>/<question>.py``, executing it once; cached per process.

    Its catalogue is every :class:`Mistake` at the file's top level (alone or in a list or tuple), those of its
    :class:`Question`, :class:`Items` and :class:`Puzzle` objects, and the kit's :data:`FAILURES`."""
    namespace = runpy.run_path(str(path))
    mistakes: dict[str, Mistake] = {}
    for value in [*namespace.values(), FAILURES]:
        found = value.mistakes if isinstance(value, (Question, Items, Puzzle)) else value
        for item in found if isinstance(found, (list, tuple)) else [found]:
            if isinstance(item, Mistake):
                mistakes.setdefault(item.name, item)
    question, cases = _cases(namespace, Path(path))
    properties = frozenset(p.message for v in namespace.values() if isinstance(v, Question) for p in v.properties)
    properties |= frozenset(HABITS)
    return GraderFile(Path(path), question, cases, tuple(mistakes.values()), properties)
