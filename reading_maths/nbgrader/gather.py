"""``reading-maths gather``: each student's repository (GitHub Classroom) into nbgrader's ``submitted/``.

The roster is a CSV file with a header: GitHub Classroom's own export (``identifier,
github_username, github_id, name``) or any file with a ``student_id`` column. Each student's
repository is the row's ``repository`` column, or ``--repo-template`` filled with the row's columns
and the assignment, e.g. ``https://github.com/ORG/{assignment}-{github_username}.git`` (the names
GitHub Classroom gives assignment repositories).

A repository is the student's: it is read, never checked out. It is cloned bare (no working tree,
no hooks, no submodules, no LFS or filters), the notebook is looked up in the last commit's tree
and must be a regular file of sane size (a symlink or a submodule in its place is refused), and
its bytes are copied to ``submitted/<student>/<assignment>/<assignment>.ipynb`` with a
``timestamp.txt`` of the time of gathering (commit dates are the student's to choose; the time the
course's CI gathered them is not).
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from string import Formatter

STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")
CREDENTIALS = re.compile(r"://[^/@\s]+@")
MAX_BYTES = 20 << 20
GIT_TIMEOUT = 300


class RosterError(ValueError):
    """The roster cannot be read (no id column, no repository for its rows)."""


@dataclass(frozen=True)
class Entry:
    """One roster row: the nbgrader student id and where their repository is."""

    student: str
    repository: str


@dataclass(frozen=True)
class Gathered:
    """What happened to one student's submission: ``status`` is ``gathered`` or why not."""

    student: str
    status: str
    commit: str = ""


def read_roster(path: Path, assignment: str, template: str | None = None) -> list[Entry]:
    """The roster's students and their repositories (rows without a usable id are refused by name)."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        raise RosterError(f"{path} has no students")
    columns = set(rows[0])
    id_column = next((c for c in ("student_id", "identifier", "github_username") if c in columns), None)
    if id_column is None:
        raise RosterError(f"{path} has no student_id, github_username or identifier column")
    if "repository" not in columns and not template:
        raise RosterError(f"{path} has no repository column: give --repo-template")
    entries = []
    for row in rows:
        student = (row.get(id_column) or "").strip()
        if not STUDENT_ID.match(student):
            raise RosterError(f"{path}: {student!r} cannot be an nbgrader student id (letters, digits, . _ @ -)")
        fields = {k: (v or "").strip() for k, v in row.items() if k} | {"assignment": assignment}
        repository = fields.get("repository", "")
        if not repository and template:
            used = [name for _, name, _, _ in Formatter().parse(template) if name]
            # a student who has not accepted the assignment yet has no username: no repository either
            repository = template.format(**fields) if all(fields.get(n) for n in used) else ""
        entries.append(Entry(student, repository))
    return entries


def _git(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_LFS_SKIP_SMUDGE": "1", "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, timeout=GIT_TIMEOUT, check=False)


def _notebook_blob(repo: Path, paths: list[str]) -> tuple[str | None, str]:
    """``(blob id, "")`` of the first of ``paths`` in HEAD's tree that is a regular file, else ``(None, why)``."""
    listing = _git("ls-tree", "-z", "--full-tree", "-r", "HEAD", "--", *paths, cwd=repo)
    if listing.returncode != 0:
        return None, "the repository has no commits"
    entries = {}
    for record in listing.stdout.decode("utf-8", "replace").split("\0"):
        if "\t" in record:
            meta, name = record.split("\t", 1)
            entries[name] = meta.split()
    for path in paths:
        if path not in entries:
            continue
        mode, kind, blob = entries[path]
        if kind != "blob" or mode not in ("100644", "100755"):
            return None, f"{path} is not a regular file (a symlink or a submodule)"
        return blob, ""
    return None, f"no {' or '.join(paths)} in the last commit"


def fetch(entry: Entry, assignment: str, target: Path) -> Gathered:
    """Clone ``entry``'s repository bare into a temporary folder and copy its notebook to ``target``."""
    with tempfile.TemporaryDirectory(prefix="rm-gather-") as tmp:
        repo = Path(tmp) / "repo.git"
        try:
            clone = _git("clone", "--bare", "--quiet", "--depth", "1", "--no-tags", "--", entry.repository, str(repo))
        except subprocess.TimeoutExpired:
            return Gathered(entry.student, f"cloning took longer than {GIT_TIMEOUT} s")
        if clone.returncode != 0:
            lines = clone.stderr.decode("utf-8", "replace").splitlines()
            reason = next((x[len("fatal: "):] for x in lines if x.startswith("fatal: ")), "git failed")
            reason = CREDENTIALS.sub("://***@", reason)  # a token in the URL never reaches the log
            return Gathered(entry.student, f"cannot clone: {reason}")
        blob, why = _notebook_blob(repo, [f"{assignment}.ipynb", f"{assignment}/{assignment}.ipynb"])
        if blob is None:
            return Gathered(entry.student, why)
        size = _git("cat-file", "-s", blob, cwd=repo).stdout.strip()
        if not size.isdigit() or int(size) > MAX_BYTES:
            return Gathered(entry.student, f"the notebook is larger than {MAX_BYTES >> 20} MB")
        commit = _git("rev-parse", "HEAD", cwd=repo).stdout.decode().strip()
        data = _git("cat-file", "blob", blob, cwd=repo).stdout
    if target.parent.exists():
        shutil.rmtree(target.parent)  # a re-gather replaces the submission as a whole
    target.parent.mkdir(parents=True)
    target.write_bytes(data)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")  # nbgrader's own timestamp format
    (target.parent / "timestamp.txt").write_text(stamp + "\n", encoding="utf-8")
    return Gathered(entry.student, "gathered", commit[:12])


def gather(root: Path, roster: Path, assignment: str, template: str | None = None) -> list[Gathered]:
    """Gather every roster student's notebook of ``assignment`` into ``root/submitted/``."""
    entries = read_roster(roster, assignment, template)
    results = []
    for entry in entries:
        target = root / "submitted" / entry.student / assignment / f"{assignment}.ipynb"
        if not entry.repository:
            results.append(Gathered(entry.student, "no repository in the roster"))
            continue
        results.append(fetch(entry, assignment, target))
    return results
