"""nbgrader's exchange through the hub's exchange service (hub/exchange.py), for a hub whose servers share no disk.

``c.CourseExchange.kind = "service"`` routes every exchange step through the classes here
(:func:`reading_maths.nbgrader.exchange.configure`). Each is nbgrader's own folder-exchange class run over a
private temporary folder laid out as an exchange, its *mirror*: what the step reads is downloaded into the
mirror first, what the step wrote there is uploaded afterwards. Fetching, the Assignments tab's list, the
submission cache and feedback's hashing stay nbgrader's own code; only the carrying changes.

The service is at ``ServedExchange.url`` (default ``$READING_MATHS_EXCHANGE_URL``, which the hub gives every
server) and is called with ``ServedExchange.token`` (default ``$JUPYTERHUB_API_TOKEN``: the caller's own). Nothing
here is trusted: it runs in the student's server, theirs to change. The service decides who sent a submission
(the hub's token), when (its clock), which names may be stored and who may read what.

Collect (:class:`ServedCollect`) is :class:`~reading_maths.nbgrader.exchange.SafeCollect` over the mirror: each
submission's time is the service's, written to ``submitted/<student>/<assignment>/timestamp.txt``; a file whose
name would leave the submission's folder, or too large, refuses the submission with the reason in collect's
output, as on the folder exchange.
"""

from __future__ import annotations

import base64
import glob
import json
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

from nbgrader.exchange import ExchangeError
from nbgrader.exchange.default import (
    ExchangeFetchAssignment,
    ExchangeFetchFeedback,
    ExchangeList,
    ExchangeReleaseAssignment,
    ExchangeReleaseFeedback,
    ExchangeSubmit,
)
from nbgrader.exchange.default.exchange import Exchange
from traitlets import Bool, Unicode, default

from reading_maths.inputs import UnsafeInput, read_regular, unsafe_entries
from reading_maths.nbgrader.exchange import SafeCollect, claimed_time
from reading_maths.nbgrader.exchange_store import Refused, check_files
from reading_maths.nbgrader.times import FORMAT, SubmissionTimes

TIMEOUT = 300  # seconds for one request: a class's submissions on a busy service


class ServedExchange(Exchange):
    """nbgrader's folder exchange over a temporary mirror filled from, and emptied into, the service."""

    url = Unicode(help="The exchange service's URL (default: $READING_MATHS_EXCHANGE_URL)").tag(config=True)
    token = Unicode(help="A hub API token for the service (default: $JUPYTERHUB_API_TOKEN)").tag(config=True)

    @default("url")
    def _url_default(self):
        return os.environ.get("READING_MATHS_EXCHANGE_URL", "")

    @default("token")
    def _token_default(self):
        return os.environ.get("JUPYTERHUB_API_TOKEN", "")

    def call(self, method: str, *path: str, body: dict | None = None) -> dict:
        """The service's JSON answer to ``method`` on ``api/courses/<path...>``; a refusal raises :class:`Refused`
        with the service's status and reason."""
        if not self.url or not self.token:
            self.fail("The exchange service is not configured: $READING_MATHS_EXCHANGE_URL and "
                      "$JUPYTERHUB_API_TOKEN are set by the hub")
        address = self.url.rstrip("/") + "/api/courses/" + "/".join(quote(p, safe="") for p in path)
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(address, method=method, data=data, headers={
            "Authorization": f"token {self.token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            try:
                reason = json.loads(exc.read()).get("refused") or exc.reason
            except ValueError:
                reason = exc.reason
            raise Refused(exc.code, f"the exchange service refused: {reason}") from None
        except (OSError, ValueError) as exc:
            self.fail(f"The exchange service at {self.url} did not answer: {exc}")
            raise  # unreachable: fail raises

    def ask(self, method: str, *path: str, body: dict | None = None) -> dict:
        """:meth:`call`, a refusal failing the step."""
        try:
            return self.call(method, *path, body=body)
        except Refused as refused:
            self.fail(refused.reason)
            raise

    def mirrored(self, *parts: str) -> Path:
        """A path in the mirror under the course's folder."""
        return Path(self.root, self.coursedir.course_id, *parts)

    def ensure_root(self):
        """The mirror is this process's own temporary folder: nothing to check or open up."""

    def pull(self) -> None:
        """Download what the step reads into the mirror."""

    def push(self) -> None:
        """Upload what the step wrote in the mirror."""

    def pull_feedback(self, course: str) -> None:
        """The caller's own feedback in ``course``, into the mirror's ``feedback/`` (made even when empty)."""
        folder = Path(self.root, course, "feedback")
        folder.mkdir(parents=True, exist_ok=True)
        mine = self.ask("GET", course, "feedback")["feedback"]
        if mine:
            unpacked([{"path": f["path"], "content": f["content"]} for f in mine], folder)

    def start(self):
        with tempfile.TemporaryDirectory(prefix="nbgrader-exchange-") as mirror:
            self.root = mirror
            self.pull()
            result = super().start()
            self.push()
        return result


def packed(folder: Path) -> list[dict]:
    """Every file under ``folder`` as the service takes them, read without following links."""
    if unsafe := unsafe_entries(folder):
        raise UnsafeInput(0, unsafe[0])
    return [{"path": path.relative_to(folder).as_posix(), "content": base64.b64encode(read_regular(path)).decode()}
            for path in sorted(folder.rglob("*")) if path.is_file()]


def unpacked(files: list[dict], folder: Path) -> None:
    """Write ``files`` (as the service sends them) under ``folder``; a name that would leave it, or too large a
    file, raises :class:`Refused` before anything is written."""
    for path, data in check_files(files).items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def placeholders(names: list[str], folder: Path) -> None:
    """Empty files named ``names`` under ``folder``: what a step only lists."""
    unpacked([{"path": name, "content": ""} for name in names], folder)


class ServedReleaseAssignment(ServedExchange, ExchangeReleaseAssignment):
    def pull(self):
        released = self.ask("GET", self.coursedir.course_id, "releases")["releases"]
        if any(r["assignment"] == self.coursedir.assignment_id for r in released):  # so that --force is asked for
            self.mirrored("outbound", self.coursedir.assignment_id).mkdir(parents=True)

    def push(self):
        files = packed(self.mirrored("outbound", self.coursedir.assignment_id))
        self.ask("PUT", self.coursedir.course_id, "releases", self.coursedir.assignment_id, body={"files": files})


class ServedFetchAssignment(ServedExchange, ExchangeFetchAssignment):
    def pull(self):
        found = self.ask("GET", self.coursedir.course_id, "releases", self.coursedir.assignment_id)
        unpacked(found["files"], self.mirrored("outbound", self.coursedir.assignment_id))


class ServedSubmit(ServedExchange, ExchangeSubmit):
    def pull(self):
        released = self.ask("GET", self.coursedir.course_id, "releases")["releases"]
        for release in released:  # names only: submit compares the notebooks' names
            if release["assignment"] == self.coursedir.assignment_id:
                placeholders(release["files"], self.mirrored("outbound", release["assignment"]))
        self.mirrored("inbound").mkdir(parents=True, exist_ok=True)

    def copy_files(self):
        """nbgrader's submit into the mirror and the local cache; then the upload, whose failure takes the cache's
        copy back (the Assignments tab must not show a submission the service does not have)."""
        super().copy_files()
        name = self.assignment_filename.rsplit("+", 1)[0] if self.add_random_string else self.assignment_filename
        try:
            done = self.ask("POST", self.coursedir.course_id, "submissions", self.coursedir.assignment_id,
                            body={"files": packed(self.mirrored("inbound", self.assignment_filename))})
        except (ExchangeError, OSError):
            shutil.rmtree(os.path.join(self.cache_path, name), ignore_errors=True)
            raise
        self.log.info("The exchange service has it as %s's, submitted at %s", done["student"], done["timestamp"])


class ServedList(ServedExchange, ExchangeList):
    """The released assignments (names only), the instructor's inbound submissions (names only), or the local
    submission cache beside the caller's own feedback: every course of the caller's when none is given."""

    def pull(self):
        courses = [self.coursedir.course_id] if self.coursedir.course_id else self.ask("GET")["courses"]
        for course in courses:
            if self.cached:
                self.pull_feedback(course)
                continue
            releases = self.ask("GET", course, "releases")["releases"]
            for release in releases:
                if not self.inbound:
                    placeholders(release["files"], Path(self.root, course, "outbound", release["assignment"]))
                elif self.coursedir.assignment_id in ("", "*", release["assignment"]):
                    for entry in self.ask("GET", course, "submissions", release["assignment"])["submissions"]:
                        Path(self.root, course, "inbound", entry_name(entry, release["assignment"])).mkdir(parents=True)

    def start(self):
        if self.remove:
            self.fail("The exchange service removes nothing: release again to replace an assignment")
        return super().start()


def entry_name(entry: dict, assignment: str) -> str:
    """An inbound entry's name for a submission the service keeps: its student, its time (the service's) and id."""
    return f"{entry['student']}+{assignment}+{entry['timestamp']}+{entry['id']}"


class ServedCollect(ServedExchange, SafeCollect):
    """:class:`SafeCollect` over the mirror: the entries are the service's submissions, named with the service's
    time; only the chosen ones are downloaded, each checked on the way."""

    check_owner = Bool(False, help="The mirror's entries are the collector's own: the service knows the owner")

    def pull(self):
        assignment = self.coursedir.assignment_id
        inbound = self.mirrored("inbound")
        inbound.mkdir(parents=True)
        for entry in self.ask("GET", self.coursedir.course_id, "submissions", assignment)["submissions"]:
            if self.coursedir.student_id in ("", "*", entry["student"]):
                (inbound / entry_name(entry, assignment)).mkdir()

    def _trusted_time(self, entry: Path, record: dict) -> None:
        """The entry's name holds the time the service gave the submission (the mirror is the collector's own)."""
        record["times"] = SubmissionTimes(record["username"], self.coursedir.assignment_id,
                                          record["timestamp"].strftime(FORMAT),
                                          "the exchange service's clock when it received the submission")

    def do_copy(self, src, dest, log=None):
        """Download the chosen submission into its mirror entry (refused, with the reason, if a name would leave
        its folder or a file is too large), note the time the student wrote, then SafeCollect's copy."""
        number = os.path.basename(src).rsplit("+", 1)[1]
        try:
            found = self.call("GET", self.coursedir.course_id, "submissions", self.coursedir.assignment_id, number)
            unpacked(found["files"], Path(src))
        except Refused as refused:
            self.log.error("Refused %s: %s; nothing of it is collected", os.path.basename(src), refused.reason)
            return
        record = next(r for r in self.src_records if r["filename"] == os.path.basename(src))
        if os.path.lexists(stamp := os.path.join(src, "timestamp.txt")):
            record["times"].claimed["timestamp.txt"] = claimed_time(Path(stamp))
        super().do_copy(src, dest, log)


class ServedReleaseFeedback(ServedExchange, ExchangeReleaseFeedback):
    """nbgrader's release, one student at a time: each student's feedback goes to the service as theirs."""

    def copy_files(self):
        every = self.src_path
        for folder in sorted(Path(p) for p in glob.glob(every) if os.path.isdir(p)):
            student = folder.parent.name
            self.src_path = str(folder)
            shutil.rmtree(self.dest_path, ignore_errors=True)
            os.makedirs(self.dest_path)
            super().copy_files()
            files = packed(Path(self.dest_path))
            if files:
                self.ask("PUT", self.coursedir.course_id, "feedback", self.coursedir.assignment_id, student,
                         body={"files": files})
        self.src_path = every


class ServedFetchFeedback(ServedExchange, ExchangeFetchFeedback):
    def pull(self):
        self.pull_feedback(self.coursedir.course_id)
