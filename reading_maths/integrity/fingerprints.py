"""Every pair of answers to one part of an assignment, compared with copydetect's winnowed fingerprints.

copydetect (the algorithm of MOSS: Schleimer, Wilkerson and Aiken, *Winnowing*, 2003) tokenizes Python with
Pygments, replaces every name by ``V`` (functions ``F``), drops comments and whitespace, and keeps a winnowed set of
hashes of the k-character pieces of what is left: renamed variables, comments, blank lines and spacing change
nothing, and reordered functions keep their pieces. A LaTeX equation is compared the same way once its letters are
renamed in order of appearance (:func:`equation_text`).

What every answer is given (the released template, the course's helper cells) is removed as copydetect's
*boilerplate*; a piece that most of the class writes (what every right answer must share, such as the reference's
``e / e.sum(axis=-1, keepdims=True)``) is removed as *common* (:func:`drop_common`), as MOSS ignores a passage
found in too many submissions.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass

import numpy as np
from copydetect import CodeFingerprint, compare_files
from copydetect.utils import get_token_coverage

K = 20
"""Characters of normalised code in one fingerprinted piece (copydetect's noise threshold)."""
WINDOW = 6
"""Winnowing window: every shared run of ``K + WINDOW - 1`` characters is found (copydetect's guarantee)."""
COMMON = 0.5
"""A piece found in more than this fraction of the class's answers to a part is common code, not evidence."""
MIN_TOKENS = 40
"""An answer with fewer normalised characters left (after boilerplate and common code) is too short to compare."""

_MACRO = re.compile(r"\\([A-Za-z]+|.)")


@dataclass
class Document:
    """One answer to one part: its text as written and how to read it (``python`` or ``latex``)."""

    owner: str
    part: str
    text: str
    kind: str = "python"


def equation_text(latex: str) -> tuple[str, np.ndarray]:
    """``latex`` without spaces, each single letter renamed by order of first appearance (``a``, ``b``, ...; macro
    names kept), and copydetect's offsets from that text back to ``latex``."""
    out: list[str] = []
    offsets = [[0, 0]]
    names: dict[str, str] = {}
    removed, i = 0, 0
    while i < len(latex):
        char = latex[i]
        if char.isspace():
            offsets.append([len(out) - 1, removed])  # as copydetect records them: removed before this one
            removed += 1
            i += 1
            continue
        macro = _MACRO.match(latex, i)
        if macro:
            out.extend(macro.group(0))
            i = macro.end()
            continue
        if char.isalpha() and char.isascii():
            char = names.setdefault(char, chr(ord("a") + len(names) % 26))
        out.append(char)
        i += 1
    offsets.append([len(out), removed])  # what follows the last space
    return "".join(out), np.array(offsets)


def fingerprint(doc: Document, boilerplate: Iterable[int] = ()) -> CodeFingerprint:
    """copydetect's fingerprint of ``doc``, the hashes of ``boilerplate`` left out."""
    drop = np.array(sorted(set(boilerplate)), dtype=np.int64)
    if doc.kind == "latex":
        text, offsets = equation_text(doc.text)
        found = CodeFingerprint("equation.tex", K, WINDOW, drop, filter=False, fp=io.StringIO(text))
        found.raw_code, found.offsets = doc.text, offsets
        return found
    return CodeFingerprint("answer.py", K, WINDOW, drop, language="python", fp=io.StringIO(doc.text))


def all_hashes(texts: Iterable[str]) -> set[int]:
    """Every piece's hash in the Python ``texts`` (window 1: no winnowing): what everyone is given (boilerplate)."""
    found: set[int] = set()
    for text in texts:
        if text.strip():
            found |= set(CodeFingerprint("given.py", K, 1, language="python", fp=io.StringIO(text)).hashes)
    return found


def drop_common(prints: dict[str, CodeFingerprint], students: set[str], fraction: float = COMMON) -> set[int]:
    """Remove from every fingerprint the hashes found in more than ``fraction`` of the ``students``' answers (and
    in at least 3); returns the hashes removed."""
    counts = Counter(h for owner, fp in prints.items() if owner in students for h in fp.hashes)
    limit = max(2, int(fraction * len(students)))
    common = {h for h, n in counts.items() if n > limit}
    for fp in prints.values():
        if common & fp.hashes:
            fp.hashes = fp.hashes - common
            fp.hash_idx = {h: i for h, i in fp.hash_idx.items() if h not in common}
            fp.token_coverage = get_token_coverage(fp.hash_idx, fp.k, len(fp.filtered_code))
    return common


@dataclass
class PartMatch:
    """What two answers to one part share: the fraction of the shorter one's fingerprints found in the other
    (so an answer padded with dead code still contains the copied one), and the shorter one's size."""

    part: str
    containment: float
    weight: int
    """normalised characters of the shorter answer"""


def regions(a: CodeFingerprint, b: CodeFingerprint) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The matching regions of each answer as written: (start, end) character ranges (copydetect's slices)."""
    _, _, slices = compare_files(a, b)
    return tuple([(int(s), int(e)) for s, e in zip(*side, strict=True)] if len(side) and len(side[0]) else []
                 for side in slices)  # type: ignore[return-value]


def all_pairs(prints: dict[str, CodeFingerprint], part: str, sources: Collection[str] = ()
              ) -> dict[tuple[str, str], PartMatch]:
    """Every pair of owners (never two ``sources``) whose answers to ``part`` share a fingerprint: all at once, as
    the product of the owners-by-fingerprints incidence matrix with its transpose."""
    owners = sorted(o for o, fp in prints.items() if fp.token_coverage >= MIN_TOKENS and fp.hashes)
    if len(owners) < 2:
        return {}
    column: dict[int, int] = {}
    rows, cols = [], []
    for i, owner in enumerate(owners):
        for h in prints[owner].hashes:
            rows.append(i)
            cols.append(column.setdefault(h, len(column)))
    incidence = np.zeros((len(owners), len(column)), dtype=np.float32)
    incidence[rows, cols] = 1.0
    shared = incidence @ incidence.T
    counts = np.diag(shared)
    found = {}
    for i, j in zip(*np.nonzero(np.triu(shared, 1)), strict=True):
        a, b = owners[i], owners[j]
        if a in sources and b in sources:
            continue
        weight = int(min(prints[a].token_coverage, prints[b].token_coverage))
        found[(a, b)] = PartMatch(part, float(shared[i, j] / min(counts[i], counts[j])), weight)
    return found
