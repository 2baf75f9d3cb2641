"""``reading-maths integrity ASSIGNMENT``: every pair of submissions compared, ranked, with the evidence beside.

A pair's score is the share of the two answers' code they have in common, over the parts both answered at
comparable length: for each part, the larger of the two containments (:class:`PartMatch`), weighted by the shorter
answer's size. Nothing here accuses anyone: the pages show what matches, side by side, with what the checks trail
and the submission times say (:mod:`reading_maths.integrity.pages`).
"""

from __future__ import annotations

import copy
import json
import multiprocessing
import os
from collections import defaultdict
from collections.abc import Collection
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from copydetect import CodeFingerprint

from reading_maths.course import assignment as course_assignment
from reading_maths.integrity import answers as reading
from reading_maths.integrity.evidence import Trail, trails
from reading_maths.integrity.fingerprints import (
    MIN_TOKENS,
    Document,
    PartMatch,
    all_hashes,
    all_pairs,
    drop_common,
    fingerprint,
)

THRESHOLD = 0.55
"""A pair at or above this score is listed as worth a look (calibration: :data:`CALIBRATION`)."""
CALIBRATION = Path(__file__).with_name("calibration.json")
"""The measured rates behind :data:`THRESHOLD`, written by ``benchmarks/integrity.py calibrate``."""


@dataclass
class Pair:
    """Two owners (students, or a student and a source such as the worked entry), their score and matches."""

    a: str
    b: str
    score: float
    matches: list[PartMatch]
    compared: list[str]

    def reason(self) -> str:
        """Which parts match and how much: ``softmax: 92% of 310 characters; ...``."""
        return "; ".join(f"{m.part}: {m.containment:.0%} of {m.weight} characters" for m in
                         sorted(self.matches, key=lambda m: -m.containment * m.weight))


@dataclass
class Result:
    """The comparison of a class's submissions of one assignment."""

    assignment: str
    students: list[str]
    pairs: list[Pair]
    sources: list[Pair]
    identical: list[list[str]]
    unread: dict[str, str]
    trails: dict[str, Trail] = field(default_factory=dict)
    documents: dict[str, dict[str, Document]] = field(default_factory=dict)
    given: list[str] = field(default_factory=list)
    common: dict[str, set[int]] = field(default_factory=dict)
    threshold: float = THRESHOLD

    def flagged(self) -> list[Pair]:
        return [p for p in self.pairs if p.score >= self.threshold]

    def to_json(self) -> dict:
        return {"assignment": self.assignment, "students": len(self.students), "threshold": self.threshold,
                "pairs": [{**asdict(p), "reason": p.reason()} for p in self.pairs],
                "sources": [{**asdict(p), "reason": p.reason()} for p in self.sources],
                "identical": self.identical, "unread": self.unread,
                "trails": {s: asdict(t) for s, t in self.trails.items()}, "calibration": calibration()}


def calibration() -> dict:
    """The measured rates (``{}`` when not measured)."""
    try:
        return json.loads(CALIBRATION.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _fingerprints(job: tuple[list[Document], set[int]]) -> list[CodeFingerprint]:
    """Fingerprints of the documents, boilerplate left out of the Python ones: run in a worker process."""
    docs, boilerplate = job
    return [fingerprint(doc, boilerplate if doc.kind == "python" else ()) for doc in docs]


def fingerprints(docs: list[Document], boilerplate: set[int], jobs: int = 0) -> list[CodeFingerprint]:
    """:func:`fingerprint` of each document, each distinct text once, on ``jobs`` processes (0: one per core)."""
    distinct = list({(d.kind, d.text): d for d in docs}.values())
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(distinct) // 20))
    chunks = [(distinct[i::jobs], boilerplate) for i in range(jobs)]
    if jobs > 1:  # fork: the workers share this process's string hashing, which copydetect's fingerprints use
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            done = list(pool.map(_fingerprints, chunks))
    else:
        done = [_fingerprints(chunk) for chunk in chunks]
    found = {(d.kind, d.text): fp for (chunk, _), fps in zip(chunks, done, strict=True)
             for d, fp in zip(chunk, fps, strict=True)}
    return [found[(d.kind, d.text)] for d in docs]


def compare_documents(documents: dict[str, dict[str, Document]], given: list[str],
                      sources: Collection[str] = (), jobs: int = 0
                      ) -> tuple[list[Pair], list[Pair], dict[str, set[int]]]:
    """Every pair of owners compared part by part (``documents``: part → owner → answer), ranked by score:
    (pairs of students, pairs of a student and a source, each part's common hashes)."""
    docs = [doc for owners in documents.values() for doc in owners.values()]
    prints: dict[str, dict[str, CodeFingerprint]] = defaultdict(dict)
    for doc, fp in zip(docs, fingerprints(docs, all_hashes(given), jobs), strict=True):
        prints[doc.part][doc.owner] = copy.copy(fp)  # drop_common replaces its sets: one copy per owner
    common = {part: drop_common(owners, set(owners) - set(sources)) for part, owners in prints.items()}
    matches: dict[tuple[str, str], list[PartMatch]] = defaultdict(list)
    for part, owners in prints.items():
        for key, match in all_pairs(owners, part, set(sources)).items():
            matches[key].append(match)
    pairs = []
    for (a, b), found in matches.items():
        both = [(part, int(min(fps[a].token_coverage, fps[b].token_coverage))) for part, fps in prints.items()
                if a in fps and b in fps and min(fps[a].token_coverage, fps[b].token_coverage) >= MIN_TOKENS]
        total = sum(w for _, w in both)
        score = sum(m.containment * m.weight for m in found) / total if total else 0.0
        pairs.append(Pair(a, b, round(score, 4), found, [p for p, _ in both]))
    pairs.sort(key=lambda p: (-p.score, -sum(m.weight for m in p.matches), p.a, p.b))
    with_source = [p.a in sources or p.b in sources for p in pairs]
    return ([p for p, s in zip(pairs, with_source, strict=True) if not s],
            [p for p, s in zip(pairs, with_source, strict=True) if s], common)


def integrity(root: Path, assignment_id: str, jobs: int = 0) -> Result:
    """Compare every pair of ``submitted/*/<assignment_id>/`` notebooks (see the module docstring)."""
    root = Path(root).resolve()
    assignment = course_assignment(root, assignment_id)
    layout = reading.layout(assignment)
    found = reading.submissions(root, assignment_id, layout)
    read = [s for s in found if not s.problem]
    documents: dict[str, dict[str, Document]] = defaultdict(dict)
    for submission in read:
        for doc in reading.documents(submission):
            documents[doc.part][doc.owner] = doc
    for owner, docs in layout.sources.items():
        for part, doc in docs.items():
            if part in documents:
                documents[part][owner] = doc
    pairs, sources, common = compare_documents(dict(documents), layout.given, set(layout.sources), jobs)
    groups: dict[str, list[str]] = defaultdict(list)
    for s in read:
        if s.answered:
            groups[s.digest].append(s.student)
    students = [s.student for s in read]
    return Result(assignment_id, students, pairs, sources, sorted(g for g in groups.values() if len(g) > 1),
                  {s.student: s.problem for s in found if s.problem}, trails(root, assignment_id, students),
                  dict(documents), layout.given, common)
