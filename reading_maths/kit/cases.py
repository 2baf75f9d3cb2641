"""Dict answers graded item by item: the answer key, the teaching and the mistakes of one such question."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reading_maths.kit.answers import read_answers
from reading_maths.kit.mistakes import Failed, Mistake


class Items:
    """The items of the dict answer named ``variable``, for a grader file's cases to judge one by one.

    A grader file declares one case per item, ``@test_case(points=1, hidden=True)`` calling
    :meth:`judge`.  A malformed answer fails with its format message (the mistake
    ``<variable>-format``); an item whose reading differs from ``key`` is the mistake
    ``<variable>-<item>``, taught by ``teach[item]``, plus ``explain(given, expected)`` (a targeted hint)
    and, with ``one_to_one``, a note when the same option was used for another item.
    """

    def __init__(self, variable: str, spec: Any, parse: Callable[..., Any], key: dict, teach: dict, *,
                 aliases: dict | None = None, explain: Callable[[Any, Any], str] | None = None,
                 one_to_one: bool = False):
        if set(teach) != set(spec) or set(key) != set(spec):
            raise ValueError(f"{variable}: the key and the teaching must cover exactly the items {list(spec)}")
        self.variable, self.spec, self.parse, self.key, self.teach = variable, spec, parse, key, teach
        self.aliases, self.explain, self.one_to_one = aliases, explain, one_to_one
        self.mistakes = (Mistake(f"{variable}-format", f"`{variable}` has answers that cannot be read: the check "
                                 "cell under it says what each one needs."),
                         *(Mistake(self.mistake_id(item), teach[item]) for item in spec))
        self.judged: set[str] = set()
        """the items a case has judged in this process (a test checks every item has its case)"""

    def mistake_id(self, item: str) -> str:
        return f"{self.variable}-{item}"

    def judge(self, answer: Any, item: str) -> None:
        """Pass when ``answer[item]`` reads as the key's; else raise :class:`Failed` with the teaching."""
        if item not in self.spec:
            raise KeyError(f"{self.variable} has no item {item!r}")
        self.judged.add(item)
        reading = read_answers(answer, self.spec, self.parse, self.variable, *([self.aliases] if self.aliases else []))
        try:
            given = reading.require(item)
        except AssertionError as exc:
            raise Failed(str(exc), f"{self.variable}-format") from None
        expected = self.key[item]
        if given == expected:
            return
        lines = [f"{self.variable}[{item!r}]:", self.teach[item], self.explain(given, expected) if self.explain else ""]
        shared = [k for k, v in reading.values.items() if v == given and k != item] if self.one_to_one else []
        if shared:
            lines.append(f"You also chose ({given}) for item {', '.join(shared)}; each option fits one item at most.")
        raise Failed(" ".join(filter(None, lines)), self.mistake_id(item))
