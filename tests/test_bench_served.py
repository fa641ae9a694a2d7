"""The benchmarks wait for a server they start until it answers, and a server that died is reported at once."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest
from envcraft.harness.bench.served import wait_served


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_server_that_exits_is_reported_at_once_not_after_the_deadline():
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(3)"])
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="exited with code 3"):
        wait_served(f"http://127.0.0.1:{_port()}/mcp", process, timeout=120)
    assert time.monotonic() - started < 60  # its exit, not the 120 s deadline, ended the wait


def test_the_wait_ends_when_the_server_answers():
    port = _port()
    process = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_served(f"http://127.0.0.1:{port}/", process, timeout=120)
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            pass  # it listens: the wait returned because it answered
    finally:
        process.terminate()
        process.wait(timeout=30)
