"""The gateway's own file descriptors: it must keep accepting and answering whatever one episode does.

Grading reads agent-shaped trees in a process of its own (core/bounded_grade.py), so a wide tree no longer
spends the gateway's descriptors; what is left is made to degrade, not kill:
- at start the soft RLIMIT_NOFILE is lifted to the hard limit (the common soft 1,024 is a shell default,
  not a budget a server of hundreds of episodes should run on);
- a small reserve of descriptors is held, and given back to the process when accept() or any other call
  hits EMFILE, so the next accept has room to take a connection and answer it; it is refilled once
  descriptors are free again (`Reserve.refill`, called by the gateway's reaper);
- the event loop's error handler writes one preformatted line with os.write and never raises: the default
  one formats a traceback, which reads source files and may import, and both fail when no descriptor is free.
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import sys
from collections.abc import Callable
from typing import Any

RESERVE = 32  # descriptors held back for accepting and answering when the process runs out
CEILING = 65_536  # the soft limit is lifted to the hard one, but no further than this


def lift_soft_limit() -> tuple[int, int]:
    """Raise the soft descriptor limit to the hard one (at most CEILING); returns (soft, hard) now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = CEILING if hard == resource.RLIM_INFINITY else min(hard, CEILING)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


class Reserve:
    """Descriptors (of /dev/null) held so that they can be given back when the process runs out."""

    def __init__(self, size: int = RESERVE):
        self.size = size
        self.fds: list[int] = []
        self.released = 0  # times the reserve was given back
        self.refill()

    def refill(self) -> None:
        while len(self.fds) < self.size:
            try:
                self.fds.append(os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC))
            except OSError:
                return  # still short: tried again on the next refill

    def release(self) -> None:
        if self.fds:
            self.released += 1
        while self.fds:
            with contextlib.suppress(OSError):
                os.close(self.fds.pop())

    def close(self) -> None:
        self.release()


def out_of_descriptors(exc: BaseException | None) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE)


def loop_error_handler(reserve: Reserve, record: Callable[[str, BaseException], None]) -> Callable[[Any, dict], None]:
    """An asyncio exception handler that, on EMFILE, frees the reserve, records the error and writes one line;
    other errors go to the default handler. It cannot raise."""

    def handle(loop: Any, context: dict) -> None:
        exc = context.get("exception")
        with contextlib.suppress(Exception):  # the loop's last resort must not raise: the gateway goes on
            if not out_of_descriptors(exc):
                loop.default_exception_handler(context)
                return
            reserve.release()  # room for the next accept(); refilled by the reaper
            record(str(context.get("message", "event loop")), exc)
            os.write(sys.stderr.fileno(), f"gateway: {context.get('message')}: {exc!r}\n"[:1000].encode())

    return handle


__all__ = ["CEILING", "RESERVE", "Reserve", "lift_soft_limit", "loop_error_handler", "out_of_descriptors"]
