"""Gateway worker processes: one `envcraft serve --all` per worker, on its own port."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import httpx2


def _die_with_parent() -> None:
    """In the child: SIGTERM when the front dies, however it dies (Linux; elsewhere stop() alone ends it)."""
    import contextlib
    import ctypes
    import signal

    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@dataclass
class Worker:
    url: str  # control + agent plane of this worker, at its advertised address
    stop: Any = None  # how to end it
    node: str | None = None  # the Ray node it runs on (None: this machine)
    episodes: set[str] = field(default_factory=set)


def _free_port(host: str) -> int:
    import socket

    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _wait(url: str, token: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx2.get(f"{url}/control/health", headers={"Authorization": f"Bearer {token}"}, timeout=5).status_code < 500:
                return
        except httpx2.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the gateway worker at {url} did not start within {timeout:g} s")
        time.sleep(0.2)


def start_process_workers(count: int, host: str, advertise: str, token: str, options: list[str]) -> list[Worker]:
    """`count` gateway processes on this machine, each on its own port."""
    workers = []
    for _ in range(count):
        port = _free_port(host)
        process = subprocess.Popen([sys.executable, "-m", "envcraft.cli", "serve", "--all", "--host", host,
                                    "--port", str(port), "--token", token, "--advertise-host", advertise, *options],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent)

        def stop(process: subprocess.Popen = process) -> None:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

        workers.append(Worker(f"http://{advertise}:{port}", stop))
    for worker in workers:
        _wait(worker.url, token)
    return workers
