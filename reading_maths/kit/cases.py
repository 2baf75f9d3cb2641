"""Otter case factories: cases made in a loop, one per item of an answer or per threshold."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


def item_cases(question: str, variable: str, spec: Any, parse: Callable[..., Any], key: dict, teach: dict, *,
               aliases: dict | None = None, explain: Callable[[Any, Any], str] | None = None,
               one_to_one: bool = False) -> dict[str, Any]:
    """One hidden one-point Otter case per item of the dict answer named ``variable``.

    Each case reads the student's answer with :func:`reading_maths.kit.answers.read_answers` (a
    malformed answer gets its format message), and when the item's reading differs from ``key``
    fails with ``teach[item]``, plus ``explain(given, expected)`` (a targeted hint) and, with
    ``one_to_one``, a note when the same option was used for another item.  Use in a grader file
    as ``globals().update(item_cases(name, ...))``.
    """
    from otter.test_files import test_case

    from reading_maths.kit.answers import read_answers

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
