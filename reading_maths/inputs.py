"""Files a student controls, read without following them anywhere.

A submission (a file given to ``grade``, a folder under ``submitted/``, an exchange ``inbound/`` entry, a
Gradescope upload, an LMS download) is the student's: a symbolic link in it could point at the instructor's
source notebook, a hard link could be a second name for a file elsewhere, a FIFO or a device would block or
stream forever. Every such entry is refused with a one-line reason, before anything reads it:

- :func:`read_regular` opens one file with ``O_NOFOLLOW`` (and ``O_NONBLOCK``: a FIFO cannot block the
  open), then checks the open file itself: a regular file, one name (``st_nlink == 1``), not too large;
- :func:`unsafe_entries` walks a folder without following links and names every entry that is not a plain
  folder or such a regular file; what it does not refuse cannot lead outside the folder, since nothing in it
  is a link.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MAX_BYTES = 50 << 20
"""The largest submitted file read (a notebook with images is a few MiB)."""

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


class UnsafeInput(OSError):
    """A file a student controls that is not read: the message is the one-line reason."""


def refusal(mode: int, links: int, name: str) -> str | None:
    """Why an entry with this ``lstat`` mode and link count is refused (None for a plain file or folder)."""
    if stat.S_ISLNK(mode):
        return f"{name} is a symbolic link: refused, links are never followed"
    if stat.S_ISREG(mode):
        return None if links == 1 else f"{name} is a hard link ({links} names for one file): refused"
    if stat.S_ISDIR(mode):
        return None
    kind = next((what for test, what in _KINDS if test(mode)), "not a regular file")
    return f"{name} is {kind}: refused, only regular files are read"


def read_regular(path: Path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of ``path``, a regular file with one name, opened without following a link; else
    :class:`UnsafeInput` with the reason (``OSError`` for a missing or unreadable file)."""
    name = Path(path).name
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeInput(errno.ELOOP, refusal(stat.S_IFLNK, 1, name)) from None
        raise
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if (why := refusal(st.st_mode, st.st_nlink, name)) is not None or not stat.S_ISREG(st.st_mode):
            raise UnsafeInput(errno.EPERM, why or refusal(st.st_mode, 1, name))
        if st.st_size > limit:
            raise UnsafeInput(errno.EFBIG, f"{name} is larger than {limit >> 20} MiB: refused")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise UnsafeInput(errno.EFBIG, f"{name} is larger than {limit >> 20} MiB: refused")
    return data


MAX_FOLDER_DEPTH = 32
"""Folders below a submission's own that are looked into: deeper ones are refused unread (a folder nested thousands
deep would exhaust the walk's recursion, and no notebook needs it)."""


def unsafe_entries(folder: Path, only=None) -> list[str]:
    """Why entries of ``folder`` (itself included) are refused, as one line each; ``[]`` when none is.

    Nothing is followed: a link is reported, not entered. ``only(path)``, if given, picks the files that
    matter (e.g. notebooks); links and special files among folders are always reported, since a linked
    folder could hold what matters.
    """
    folder = Path(folder)
    st = os.lstat(folder)
    if (why := refusal(st.st_mode, st.st_nlink, folder.name)) is not None:
        return [why]
    found = []
    for parent, dirs, files in os.walk(folder, followlinks=False):
        if dirs and len(Path(parent).relative_to(folder).parts) >= MAX_FOLDER_DEPTH:
            found.append(f"{Path(parent).relative_to(folder).as_posix()}: folders nested more than "
                         f"{MAX_FOLDER_DEPTH} deep")
            dirs[:] = []  # not entered
        for name in sorted(dirs + files):
            path = Path(parent, name)
            st = os.lstat(path)
            shown = path.relative_to(folder).as_posix()
            is_dir_like = name in dirs
            if only is not None and not is_dir_like and not only(path):
                continue
            if (why := refusal(st.st_mode, st.st_nlink, shown)) is not None:
                found.append(why)
    return found


def notebooks_in(folder: Path) -> list[Path]:
    """The ``*.ipynb`` entries under ``folder`` (checkpoints left out), found without following links; a linked
    folder is listed itself, so that reading it is refused with its reason rather than skipped in silence."""
    found = []
    for parent, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != ".ipynb_checkpoints")
        if dirs and len(Path(parent).relative_to(folder).parts) >= MAX_FOLDER_DEPTH:
            found += [Path(parent, d) for d in dirs]  # listed, not entered: reading one is refused
            dirs[:] = []
        found += [Path(parent, d) for d in dirs if os.path.islink(os.path.join(parent, d))]
        found += [Path(parent, f) for f in files if f.endswith(".ipynb")]
    return sorted(found)
