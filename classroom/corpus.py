"""What the graders' corpora (``tests/corpora/``, format in its README) share: answers written once.

A corpus maps labels to environments ``{student_name: value}``; these build the environments a question's
corpus would otherwise spell out entry by entry. The corpora import them from here because the class builder
(:mod:`classroom.builder`) reads the corpora too, in the demo, where ``tests/`` is not importable.
"""

from __future__ import annotations

import runpy
from collections.abc import Callable
from pathlib import Path
from typing import Any


def answers(name: str, values: dict[str, Any]) -> dict[str, dict]:
    """``{label: {name: value}}``: right answers to a question answered by the one name ``name``."""
    return {label: {name: value} for label, value in values.items()}


def entry_answer(n: int, entry: dict, implementation: Any, test: Any) -> dict:
    """A "Build this" answer: the three names of entry ``n``."""
    return {f"entry_{n}": entry, f"implementation_{n}": implementation, f"test_{n}": test}


def key_changer(name: str, key: dict) -> Callable[..., dict]:
    """For a question answered by one dict, ``name``, whose right value is ``key``: the function of changes (a
    dict, or keyword arguments) giving the answer of the key with them made; of none, the key itself."""

    def changed(changes: dict | None = None, **named: Any) -> dict:
        return {name: {**key, **(changes or {}), **named}}

    return changed


def read_corpus(path: Path) -> dict[str, Any]:
    """The corpus file ``path`` run, its ``RIGHT`` joined by the answers a fresh pair of eyes wrote for the same
    question without seeing it (``tests/corpora/fresh/<assignment>/<question>.py``, labelled ``fresh: ...``)."""
    corpus = runpy.run_path(str(path))
    fresh = path.parent.parent / "fresh" / path.parent.name / path.name
    if fresh.exists():
        added = runpy.run_path(str(fresh))["RIGHT"]
        corpus["RIGHT"] = corpus.get("RIGHT", {}) | {f"fresh: {label}": env for label, env in added.items()}
    return corpus
