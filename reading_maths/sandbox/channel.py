"""The pipes to one sandboxed child, on the trusted side: framed messages, each read and write with a deadline."""

from __future__ import annotations

import os
import select
import time
from dataclasses import dataclass
from typing import Any

from reading_maths.sandbox.inside import wire


class ChildGone(Exception):
    """The child stopped answering: it exited, was killed, broke the protocol, or timed out."""

    def __init__(self, reason: str, timed_out: bool = False):
        super().__init__(reason)
        self.timed_out = timed_out


@dataclass
class ChildPipes:
    """The pipes to one running child process (and the process and its cgroup).

    Every read and every write has an absolute deadline: the child cannot extend one by sending
    (or by not reading), and the trusted side never blocks on its pipes.
    """

    process: Any
    group: Any = None

    def __post_init__(self) -> None:
        os.set_blocking(self.process.stdin.fileno(), False)

    def send(self, message: dict, deadline: float) -> None:
        view = memoryview(wire.frame(message))
        fd = self.process.stdin.fileno()
        try:
            while view:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [fd], [], left)[1]:
                    raise ChildGone("time limit (the notebook's process stopped reading)", timed_out=True)
                try:
                    view = view[os.write(fd, view):]
                except BlockingIOError:
                    continue
        except (BrokenPipeError, OSError, ValueError):
            raise ChildGone("the notebook's Python process ended") from None

    def _read_exact(self, size: int, deadline: float) -> bytes:
        stream = self.process.stdout
        chunks, need = [], size
        while need:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChildGone("time limit", timed_out=True)
            ready, _, _ = select.select([stream], [], [], left)
            if not ready:
                raise ChildGone("time limit", timed_out=True)
            chunk = stream.read1(need)
            if not chunk:  # (no exit status: whether it is known yet is a race, and the feedback must not vary)
                raise ChildGone("the notebook's Python process ended")
            chunks.append(chunk)
            need -= len(chunk)
        return b"".join(chunks)

    def receive(self, deadline: float) -> dict:
        """The next message, before the absolute ``deadline`` (``time.monotonic()``) or :class:`ChildGone`."""
        try:
            length = wire.header_length(self._read_exact(wire.HEADER_SIZE, deadline))
            return wire.parse(self._read_exact(length, deadline))
        except wire.WireError as exc:
            raise ChildGone(f"the notebook's process broke the grading protocol ({exc})") from None
