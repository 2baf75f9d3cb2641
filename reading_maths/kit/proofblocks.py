"""Grading proof-ordering puzzles as dependency graphs, the way Proof Blocks does.

A puzzle is a set of labelled proof lines: the *true* steps, each listing the steps it uses
(its incoming edges in a DAG), and *distractors*, plausible lines that belong in no correct proof.
A student answers with an ordered list of labels.

- Every ordering that respects the dependencies (a topological order of the true steps, each
  exactly once, no distractor) is a correct proof and gets full marks.
- Otherwise the *edit distance* is the minimum number of line deletions plus line insertions that
  turn the submission into some correct proof (Poulsen et al., "Efficient Partial Credit Grading of
  Proof Blocks Problems", and PrairieLearn's ``pl-order-blocks``): distractors and repeated lines must
  be deleted, a line in the wrong place is deleted and inserted again (2 edits), a missing line is
  inserted (1 edit).  It is computed from the longest subsequence of the submission that is
  consistent with the DAG (no line after a line that must come before it); any such subsequence
  can be completed into a topological order by insertions alone, so
  ``edits = (len(submission) - kept) + (true steps - kept)``.
- The score is ``max(0, 1 - edits / number of true steps)`` of the question's points.

The search is a dynamic programme over sets of kept steps (``O(len(submission) * 2**steps)``),
exact and instant for puzzles of up to about 16 true steps.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from reading_maths.kit.answers import named, visible
from reading_maths.kit.mistakes import Failed, Mistake

Needs = Mapping[str, Sequence[str]]
"""The dependency graph: each true step's label mapped to the labels of the steps it uses."""

MAX_STEPS = 16


class SubmissionError(ValueError):
    """The answer is not a list of step labels; the message says how to write one."""


@dataclass(frozen=True)
class Puzzle:
    """A proof puzzle: its true steps with their dependencies, and its distractors.

    Parameters
    ----------
    needs:
        for every true step, the labels of the steps it uses.
    facts:
        for every true step, what it establishes, in words (used in feedback: "it uses <fact>").
    distractors:
        for every distractor label, a hint on why it is wrong (shown when a student uses it).
    """

    needs: Mapping[str, tuple[str, ...]]
    facts: Mapping[str, str]
    distractors: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.needs) > MAX_STEPS:
            raise ValueError(f"at most {MAX_STEPS} true steps")
        for label, deps in self.needs.items():
            unknown = set(deps) - set(self.needs)
            if unknown:
                raise ValueError(f"step {label} needs unknown steps {sorted(unknown)}")
        if set(self.facts) != set(self.needs):
            raise ValueError("every true step needs a fact, and only true steps have one")
        if set(self.distractors) & set(self.needs):
            raise ValueError("a label cannot be both a true step and a distractor")
        next(topological_orders(self.needs))  # raises ValueError on a cycle

    @property
    def labels(self) -> list[str]:
        return sorted([*self.needs, *self.distractors])

    @property
    def mistakes(self) -> tuple[Mistake, ...]:
        """The catalogue the report counts by: each distractor used, each true step placed before a step it
        uses or left out, a step used twice, an answer that is not a list of labels."""
        return (Mistake("not-a-list", "The answer is not a list of the step labels."),
                Mistake("step-twice", "A step appears twice; each step of the proof is used once."),
                *(Mistake(f"distractor-{label}", f"Step {label} does not belong in the proof: {hint}")
                  for label, hint in self.distractors.items()),
                *(Mistake(f"{label}-too-early", f"Step {label} comes before a step it uses.") for label in self.needs),
                *(Mistake(f"{label}-missing", f"No step establishes {fact}.") for label, fact in self.facts.items()))

    def check(self, value: object, name: str, edits_allowed: int) -> None:
        """One partial-credit case: pass when the answer ``value`` (the student's variable ``name``) is within
        ``edits_allowed`` line edits of a correct proof; else raise :class:`Failed` naming the first line that
        does not follow.  N cases allowing N - 1, ..., 0 edits give ``max(0, N - edits)`` points."""
        shown = f"`{name}`"
        if value is None:
            raise Failed(f"{shown} is not defined: set it to a list of step labels.", "not-defined")
        try:
            order = read_submission(value, self, shown)
        except SubmissionError as exc:
            raise Failed(str(exc), "not-a-list") from None
        result = grade(order, self)
        if result.edits > edits_allowed:
            raise Failed(result.feedback(), result.mistake)


def ancestors(needs: Needs) -> dict[str, frozenset[str]]:
    """Every true step's transitive dependencies (the steps that must come before it)."""
    found: dict[str, frozenset[str]] = {}

    def visit(label: str, path: tuple[str, ...]) -> frozenset[str]:
        if label in path:
            raise ValueError(f"the dependencies have a cycle through {label}")
        if label not in found:
            deps: set[str] = set()
            for d in needs[label]:
                deps |= {d} | visit(d, (*path, label))
            found[label] = frozenset(deps)
        return found[label]

    for label in needs:
        visit(label, ())
    return found


def topological_orders(needs: Needs) -> Iterator[list[str]]:
    """Every ordering of the true steps that respects the dependencies.

    Orders come out lexicographically by the order of the labels in ``needs`` (so the first one
    follows the listing's order wherever the dependencies allow).

    Raises ``ValueError`` on the first ``next`` if the graph has a cycle.
    """
    ancestors(needs)  # raises ValueError on a cycle
    labels = list(needs)

    def extend(order: list[str], placed: frozenset[str]) -> Iterator[list[str]]:
        if len(order) == len(labels):
            yield list(order)
            return
        for label in labels:
            if label not in placed and set(needs[label]) <= placed:
                yield from extend([*order, label], placed | {label})

    yield from extend([], frozenset())


def longest_consistent_subsequence(order: Sequence[str], needs: Needs) -> list[str]:
    """The longest subsequence of ``order`` that some correct proof contains in the same order.

    Kept lines are true steps, each at most once, and no kept line comes after a kept line that
    depends on it (directly or transitively).  Among several longest ones, the first found is returned.
    """
    before = ancestors(needs)
    index = {label: n for n, label in enumerate(sorted(needs))}
    # best[mask] = one subsequence, in submission order, keeping exactly the steps in mask
    best: dict[int, tuple[str, ...]] = {0: ()}
    for label in order:
        if label not in index:
            continue
        bit = 1 << index[label]
        # a label may follow the kept set only if none of the kept steps must come after it
        must_follow = {n for n, other in enumerate(sorted(needs)) if label in before[other]}
        blocked = sum(1 << n for n in must_follow)
        for mask, kept in list(best.items()):
            if mask & bit or mask & blocked:
                continue
            new = mask | bit
            if new not in best:
                best[new] = (*kept, label)
    longest = max(best.values(), key=len)
    return list(longest)


def edit_distance(order: Sequence[str], needs: Needs) -> int:
    """Minimum deletions plus insertions turning ``order`` into a topological order of ``needs``."""
    kept = len(longest_consistent_subsequence(order, needs))
    return (len(order) - kept) + (len(needs) - kept)


def read_submission(value: object, puzzle: Puzzle, name: str = "your answer") -> list[str]:
    """The submission as a list of known labels (stripped, upper-cased), or :class:`SubmissionError`."""
    if isinstance(value, str):
        raise SubmissionError(
            f"{name} is a string; it should be a list of step labels such as [\"A\", \"B\", ...]."
        )
    if not isinstance(value, (list, tuple)):
        raise SubmissionError(
            f"{name} should be a list of step labels such as [\"A\", \"B\", ...], "
            f"not a {type(value).__name__}."
        )
    if len(value) > 3 * len(puzzle.labels):
        raise SubmissionError(f"{name} has {len(value)} entries; use each step at most once.")
    labels = []
    for item in value:
        if not isinstance(item, str):
            raise SubmissionError(f"{name} should contain step labels as strings, like \"A\".")
        label = visible(item).strip().upper()
        if label not in puzzle.labels:
            raise SubmissionError(
                f"{name} contains {named(item, 10)}, which is not one of the step labels "
                f"({', '.join(puzzle.labels)})."
            )
        labels.append(label)
    return labels


def first_problem(order: Sequence[str], puzzle: Puzzle) -> str | None:
    """Feedback on the first line that does not follow, or on what is missing; None if correct."""
    found = _first_mistake(order, puzzle)
    return found[1] if found else None


def _first_mistake(order: Sequence[str], puzzle: Puzzle) -> tuple[str, str] | None:
    """``(mistake id, feedback)`` of the first line that does not follow, or of what is missing."""
    seen: set[str] = set()
    for label in order:
        if label in puzzle.distractors:
            return f"distractor-{label}", f"Step {label} does not belong in the proof: {puzzle.distractors[label]}"
        if label in seen:
            return "step-twice", f"Step {label} appears twice; each step of the proof is used once."
        missing = [d for d in puzzle.needs[label] if d not in seen]
        if missing:
            return f"{label}-too-early", (f"Step {label} does not follow from the steps before it: it uses "
                                          f"{puzzle.facts[missing[0]]}, but no step before it establishes that.")
        seen.add(label)
    absent = [label for label in next(topological_orders(puzzle.needs)) if label not in seen]
    if absent:
        return f"{absent[0]}-missing", f"The proof is incomplete: no step establishes {puzzle.facts[absent[0]]}."
    return None


@dataclass(frozen=True)
class Grading:
    """The result of grading one ordering."""

    edits: int
    """deletions plus insertions to reach a correct proof"""
    kept: tuple[str, ...]
    """a longest subsequence of the submission consistent with the dependencies"""
    steps: int
    """the number of true steps"""
    problem: str | None
    """feedback on the first line that does not follow (None when the proof is correct)"""
    mistake: str | None = None
    """the id of that problem in :attr:`Puzzle.mistakes`"""

    @property
    def fraction(self) -> float:
        """The share of the points: ``max(0, 1 - edits / steps)``."""
        return max(0.0, 1.0 - self.edits / self.steps)

    def feedback(self) -> str:
        if self.problem is None:
            return "This ordering is a correct proof."
        plural = "" if self.edits == 1 else "s"
        return (
            f"{self.problem} Your ordering is {self.edits} line edit{plural} (a deletion or an "
            f"insertion; moving a line counts as both) away from a correct proof."
        )


def grade(order: Sequence[str], puzzle: Puzzle) -> Grading:
    """Grade an ordering of known labels (see :func:`read_submission`)."""
    kept = longest_consistent_subsequence(order, puzzle.needs)
    edits = (len(order) - len(kept)) + (len(puzzle.needs) - len(kept))
    mistake, problem = _first_mistake(order, puzzle) or (None, None)
    return Grading(edits, tuple(kept), len(puzzle.needs), problem, mistake)
