"""Shared test plumbing: real subprocesses and ports, waited on by polling, never by fixed sleeps."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from envcraft.core.tasks import Check, Task, ToolCall
from envcraft.registry.catalog import get

REPO = Path(__file__).resolve().parent.parent
INSPECTOR = ["npx", "-y", "@modelcontextprotocol/inspector@0.17", "--cli"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port} after {timeout}s")


def inspector(*args: str, timeout: float = 180.0) -> subprocess.CompletedProcess:
    if not shutil.which("npx"):
        raise RuntimeError("npx is missing: install Node.js 20 (the MCP Inspector CLI runs on it)")
    return subprocess.run([*INSPECTOR, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "npm_config_loglevel": "error"})


def mail_task(index: int) -> Task:
    contact = json.loads((get("office").seed / ".app" / "state.json").read_text())["contacts"][0]
    subject = f"Status update {index}"
    return Task(id=f"runner-{index:03d}", envs=["office"],
                turns=[f"Send {contact['name']} a short status update with the subject '{subject}'."],
                checks=[Check(kind="record", table="mail", match={"to": [contact["email"]], "subject": subject}),
                        Check(kind="unchanged", role="guard", allow=["mail"])],
                gold=[ToolCall(tool="contacts_search", arguments={"query": contact["name"]}),
                      ToolCall(tool="mail_send", arguments={"to": [contact["email"]], "subject": subject, "body": "On track."}),
                      ToolCall(tool="finish", arguments={"answer": "sent"})])


def marked(marker: str) -> list[int]:
    """Live processes (zombies excluded) whose environment carries ENVCRAFT_RUN_MARKER=marker: a run's own
    processes, found even after their parent died and they were re-parented."""
    needle = f"ENVCRAFT_RUN_MARKER={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@contextlib.contextmanager
def gateway_process(token: str):
    """`envcraft serve --all` in a process of its own (its own session); yields its base URL, stops it after."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "envcraft.cli", "serve", "--all", "--port", str(port),
                                "--token", token], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)
