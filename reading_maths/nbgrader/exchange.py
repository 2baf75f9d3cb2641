"""Submissions coming in: nbgrader's ``collect`` and ``zip_collect`` made to trust only what a student can prove.

``nbgrader_config.py`` (and the hub's instructor config) sets ``c.ExchangeFactory.collect`` to
:class:`SafeCollect` and ``c.ZipCollectApp.collector_plugin`` to :class:`SafeFileNameCollector`.

An exchange ``inbound/`` entry, ``<student>+<assignment>+<timestamp>[+<random>]``, is made by whoever
submits; nbgrader's collect only logs "cheating attempt?" when its owner is not the student it names, takes
the newest timestamp (a far-future one beats every real resubmission) and copies the entry following links
(a link to the instructor's source notebook comes back as the student's submission). :class:`SafeCollect`
refuses, with the reason in collect's output, an entry:

- whose name is not ``student+assignment+timestamp`` with a usable student id and timestamp;
- not owned by the student it names (their Unix account's uid), unless owned by the collecting user itself:
  on a single-user local exchange (the course's own ``exchange/``) every entry is the instructor's and
  ownership proves nothing, so there the owner check cannot tell students apart (see ``docs/security.md``);
- whose timestamp is more than :attr:`SafeCollect.clock_skew` seconds in the future;
- holding a symbolic link, a hard link, a FIFO, a device, or a file owned by someone else.

The time of an accepted entry is not its name's, nor its ``timestamp.txt``'s (both are the student's to write):
it is the latest change time (``st_ctime``) of the entry and of everything in it (:mod:`.times`), which
orders a student's entries and is written to ``submitted/<student>/<assignment>/timestamp.txt``, where
autograde and the late penalty read it. When the name or ``timestamp.txt`` says otherwise by more than a
minute, collect prints a warning naming the student and both times, and ``reading-maths report`` lists it.

A refused entry is never copied; the student's other entries are considered instead, so a forged entry
cannot replace the victim's real one. Files are copied opened with ``O_NOFOLLOW`` (a link swapped in after
the checks is refused at the copy), and a copy that fails leaves nothing half-written in ``submitted/``.
"""

from __future__ import annotations

import ast
import os
import pwd
import shutil
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.plugins import FileNameCollectorPlugin
from nbgrader.utils import ignore_patterns, parse_utc
from traitlets import Bool, Enum, Float
from traitlets.config import Configurable

from reading_maths.inputs import MAX_BYTES, UnsafeInput, read_regular, refusal, unsafe_entries
from reading_maths.nbgrader.gather import STUDENT_ID
from reading_maths.nbgrader.times import FORMAT, SubmissionTimes, change_time, parse_claim
from reading_maths.nbgrader.times import naive_utc as _naive_utc
from reading_maths.nbgrader.times import record as keep_times

OLDEST = datetime(1970, 1, 1)


def owner_problem(path: Path, student: str, collector_uid: int) -> str | None:
    """Why ``path`` (an inbound entry) is not ``student``'s own, or None when its owner is them (or the
    collecting user, on a single-user exchange)."""
    owner = os.lstat(path).st_uid
    if owner == collector_uid:
        return None
    try:
        if pwd.getpwnam(student).pw_uid == owner:
            return None
    except KeyError:
        pass
    try:
        name = pwd.getpwuid(owner).pw_name
    except KeyError:
        name = f"uid {owner}"
    return f"it is owned by {name}, not by {student}"


def foreign_files(entry: Path) -> list[str]:
    """Entries under ``entry`` owned by someone other than ``entry``'s owner (nothing is followed)."""
    owner = os.lstat(entry).st_uid
    return [Path(parent, name).relative_to(entry).as_posix()
            for parent, dirs, files in os.walk(entry, followlinks=False) for name in dirs + files
            if os.lstat(Path(parent, name)).st_uid != owner]


def claimed_time(stamp: Path) -> str:
    """What a submission's own ``timestamp.txt`` says (the student's to write), or why it was not read."""
    try:
        return parse_claim(read_regular(stamp, 4096).decode("utf-8", "replace"))
    except OSError as exc:
        return f"(not read: {str(exc).splitlines()[0][:100]})"


def _copy_regular(src: str, dst: str) -> str:
    """``shutil.copytree``'s copy function: the bytes of a regular file opened without following a link."""
    Path(dst).write_bytes(read_regular(Path(src)))
    return dst


class SafeCollect(ExchangeCollect):
    """nbgrader's collect, refusing entries whose owner, timestamp or contents cannot be trusted (see module)."""

    clock_skew = Float(120.0, help="Seconds an inbound timestamp may lie in the future (clocks differ a little)."
                       ).tag(config=True)
    require_owner = Bool(True, help="Refuse an inbound entry not owned by the student it names.").tag(config=True)

    def _path_to_record(self, path):
        name = os.path.basename(path)
        parts = name.rsplit("+", 3) if name.count("+") >= 2 else []
        student = parts[0] if parts else ""
        record = {"username": student, "filename": name, "timestamp": OLDEST, "refused": None}
        try:
            record["timestamp"] = _naive_utc(parse_utc(parts[2]))
        except Exception:  # noqa: BLE001 - dateutil raises several kinds on a forged name
            record["refused"] = "its name is not student+assignment+timestamp"
            return self._logged(record)
        record["refused"] = self._refusal(Path(path), student, record["timestamp"])
        if not record["refused"]:
            self._trusted_time(Path(path), record)
        return self._logged(record)

    def _trusted_time(self, entry: Path, record: dict) -> None:
        """Give ``record`` the entry's change time as its timestamp, keeping what the student wrote."""
        claimed = {"entry name": record["timestamp"].strftime(FORMAT)}
        stamp = entry / "timestamp.txt"
        if os.path.lexists(stamp):
            claimed["timestamp.txt"] = claimed_time(stamp)
        try:
            record["timestamp"] = change_time(entry)
        except OSError as exc:
            record["refused"] = f"its times cannot be read ({str(exc).splitlines()[0][:200]})"
            return
        record["times"] = SubmissionTimes(record["username"], self.coursedir.assignment_id,
                                          record["timestamp"].strftime(FORMAT),
                                          "the exchange entry's change time (st_ctime)", claimed)

    def _logged(self, record: dict) -> dict:
        if record["refused"]:
            shown = record["filename"].encode("unicode_escape").decode("ascii")  # control characters as escapes
            self.log.warning("Refused %s: %s; nothing of it is collected", shown, record["refused"])
        return record

    def _refusal(self, entry: Path, student: str, timestamp: datetime) -> str | None:
        if not STUDENT_ID.match(student):
            return f"{student!r} cannot be a student id"
        st = os.lstat(entry)
        if (why := refusal(st.st_mode, st.st_nlink, "the entry")) is not None:
            return why
        if self.require_owner and (why := owner_problem(entry, student, os.geteuid())):
            return why
        now = datetime.now(UTC).replace(tzinfo=None)
        if timestamp > now + timedelta(seconds=self.clock_skew):
            return f"its timestamp {timestamp:%Y-%m-%d %H:%M:%S} UTC is in the future"
        if unsafe := unsafe_entries(entry):
            return unsafe[0]
        if large := [p.name for p in entry.rglob("*") if p.is_file() and os.lstat(p).st_size > MAX_BYTES]:
            return f"{large[0]} is larger than {MAX_BYTES >> 20} MiB"
        if foreign := foreign_files(entry):
            return f"{foreign[0]} in it belongs to someone else"
        return None

    def _sort_by_timestamp(self, records):
        """Newest first, refused entries after every acceptable one (a forged entry never wins)."""
        return sorted(records, key=lambda r: (r.get("refused") is None, r["timestamp"]), reverse=True)

    def copy_files(self):
        self.src_records = [r for r in self.src_records if not r.get("refused")]  # each logged when found
        super().copy_files()

    def do_copy(self, src, dest, log=None):
        """Copy an entry to ``submitted/`` with nbgrader's limits, links copied as links (never followed) and
        every file opened with ``O_NOFOLLOW``; on any failure nothing is left at ``dest``. Its
        ``timestamp.txt`` is then the trusted time (:meth:`_trusted_time`), never the student's; a
        ``timestamp.txt`` that is not a file (a folder of that name) refuses the submission, and so does any
        failure to write the trusted time: one student's entry never stops the class's collect."""
        times = next((r["times"] for r in self.src_records if r["filename"] == os.path.basename(src)), None)
        try:
            if times is None:
                raise UnsafeInput(0, "its time was not established")
            stamp = os.path.join(src, "timestamp.txt")
            if os.path.lexists(stamp) and not stat.S_ISREG(os.lstat(stamp).st_mode):
                raise UnsafeInput(0, "its timestamp.txt is not a file")
            size = self.get_size(src)
            if size > 1000 * self.coursedir.max_dir_size:
                raise UnsafeInput(0, f"it holds {size} bytes, more than the course allows")
            shutil.copytree(src, dest, symlinks=True, copy_function=_copy_regular,
                            ignore=ignore_patterns(exclude=self.coursedir.ignore, include=self.coursedir.include,
                                                   max_file_size=self.coursedir.max_file_size, log=self.log))
            keep_times(self.coursedir.root, times, Path(dest))
        except (OSError, shutil.Error, RecursionError) as exc:  # RecursionError: folders nested past the stack
            shutil.rmtree(dest, ignore_errors=True)
            shown = os.path.basename(src).encode("unicode_escape").decode("ascii")
            self.log.error("Refused %s while copying it: %s", shown, (str(exc).splitlines() or [repr(exc)])[0][:300])
            return
        if (warning := times.warning()) is not None:
            self.log.warning("%s", warning)


class SafeFileNameCollector(FileNameCollectorPlugin):
    """``zip_collect``'s collector: nbgrader's file-name matching, refusing a file that is a link, a hard link,
    a FIFO or a device (zip_collect would copy what it points to), and a file a student uploaded that would be
    filed as ``timestamp.txt`` (nbgrader keeps such a file as the submission's time)."""

    def collect(self, submitted_file: str):
        st = os.lstat(submitted_file)
        if (why := refusal(st.st_mode, st.st_nlink, os.path.basename(submitted_file))) is not None:
            self.log.warning("Refused %s", why)
            return None
        found = super().collect(submitted_file)
        if found and self.files_as(found["file_id"], submitted_file) == "timestamp.txt":
            self.log.warning("Refused %s: as timestamp.txt it would be the submission's time (the student's to "
                             "write); the time is the LMS's", os.path.basename(submitted_file))
            return None
        return found

    @staticmethod
    def files_as(file_id: str, submitted_file: str) -> str:
        """The name zip_collect files ``submitted_file`` under in the student's folder (its ``_transfer_files``)."""
        return os.path.normpath(os.path.splitext(file_id)[0] + os.path.splitext(submitted_file)[1])


# -- the shared exchange's layout (a hub) ------------------------------------------------------------------

LAYOUT = {"": 0o1777, "{course}": 0o755, "{course}/outbound": 0o755, "{course}/inbound": 0o3733}
"""Modes of a shared exchange, as nbgrader documents them plus the sticky bits: the root world-writable and
sticky (nobody moves or replaces a folder they do not own), the course folder and ``outbound/`` the
instructor's and read-only to students, ``inbound/`` write-only to students (not listable), set-gid, sticky
(nobody renames or deletes another's entry)."""


def lay_out(root: Path, course: str, uid: int, gid: int) -> None:
    """Make (or repair) ``root``'s layout for ``course``: the folders below the root owned by ``uid:gid``."""
    for relative, mode in LAYOUT.items():
        folder = root / relative.format(course=course)
        folder.mkdir(parents=True, exist_ok=True)
        if relative:
            os.lchown(folder, uid, gid)
        os.chmod(folder, mode)  # explicit: the umask must not narrow it, nor mkdir drop the special bits


def layout_checks(root: Path, course: str) -> list[tuple[bool, str]]:
    """``(held, statement)`` for each property :data:`LAYOUT` gives a shared exchange, as found on disk."""
    found = []
    owner = None
    for relative, mode in LAYOUT.items():
        folder = root / relative.format(course=course)
        name = relative.format(course=course) or "the exchange root"
        try:
            st = os.lstat(folder)
        except FileNotFoundError:
            found.append((False, f"{name} does not exist ({folder}): the hub lays it out (hub/site.py)"))
            continue
        if not stat.S_ISDIR(st.st_mode):
            found.append((False, f"{name} is not a folder (a link?): {folder}"))
            continue
        if relative:
            owner = st.st_uid if owner is None else owner
            if st.st_uid != owner:
                found.append((False, f"{name} is not owned by the course folder's owner (uid {st.st_uid})"))
                continue
        have = st.st_mode & 0o7777
        open_to_all = have & 0o022 and not have & 0o1000  # others may rename what is in it
        found.append((have == mode, f"{name} is mode {have:04o} (wanted {mode:04o}"
                      + (": students could move, replace or plant folders there)" if open_to_all else ")")))
    return found


# -- the folder or the service ------------------------------------------------------------------------------


class CourseExchange(Configurable):
    """Where students and the instructor meet: the course's one setting, ``c.CourseExchange.kind``."""

    kind = Enum(["folder", "service"], "folder",
                help='"folder": nbgrader\'s exchange folder (one machine, or a hub\'s shared folder); "service": the '
                     "hub's exchange service over HTTP, for a hub whose servers share no disk (docs/exchange.md)"
                ).tag(config=True)


SERVED = {"exchange": "ServedExchange", "release_assignment": "ServedReleaseAssignment",
          "fetch_assignment": "ServedFetchAssignment", "submit": "ServedSubmit", "list": "ServedList",
          "collect": "ServedCollect", "release_feedback": "ServedReleaseFeedback",
          "fetch_feedback": "ServedFetchFeedback"}
"""nbgrader's exchange steps (``ExchangeFactory``'s traits) and their classes in :mod:`.served`."""


def configure(c) -> None:
    """Route nbgrader's exchange as ``c.CourseExchange.kind`` says (``c``: nbgrader's config): every step through
    the hub's exchange service (:mod:`.served`), or the folder exchange's ``collect`` through :class:`SafeCollect`;
    ``zip_collect`` through :class:`SafeFileNameCollector` either way."""
    if CourseExchange(config=c).kind == "service":
        for step, name in SERVED.items():
            setattr(c.ExchangeFactory, step, f"reading_maths.nbgrader.served.{name}")
    else:
        c.ExchangeFactory.collect = f"{__name__}.SafeCollect"
    c.ZipCollectApp.collector_plugin = f"{__name__}.SafeFileNameCollector"


def configured_kind(config_file: Path) -> str:
    """The ``c.CourseExchange.kind = "..."`` of a course's ``nbgrader_config.py``, read without running the file
    (the hub, as root, runs none of the instructor's code) or following a link; "folder" when it has none."""
    kind: object = "folder"
    for node in ast.walk(ast.parse(read_regular(config_file).decode("utf-8"))):
        if (isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["c.CourseExchange.kind"]
                and isinstance(node.value, ast.Constant)):
            kind = node.value.value
    return CourseExchange(kind=kind).kind
