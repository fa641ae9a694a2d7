"""Waiting for a server a benchmark started: until it answers at its URL, it exits, or the deadline passes.

On a busy machine a server can take well over the 30 s a fixed wait allowed before it listens; a server that died
is reported at once, not after the deadline.
"""

from __future__ import annotations

import subprocess
import time

import httpx2

READY_SECONDS = 180.0


def wait_served(url: str, process: subprocess.Popen, headers: dict | None = None,
                timeout: float = READY_SECONDS) -> None:
    """Return once `url` answers HTTP (any status: something serves it); raise RuntimeError saying why not."""
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the server for {url} exited with code {process.returncode} before it answered: "
                               f"run {' '.join(map(str, process.args))} by hand to see why")
        try:
            httpx2.get(url, timeout=2, headers=headers or {})
            return
        except httpx2.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"nothing answered at {url} within {timeout:g} s though the server (pid {process.pid}) "
                               "runs: the machine is too busy for this figure; run it again when it is quieter")
        time.sleep(0.1)


__all__ = ["READY_SECONDS", "wait_served"]
