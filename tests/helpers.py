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

import pytest
from envcraft.core.tasks import TASKS_DIR, Check, Task, ToolCall, load_tasks, task_files
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint
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


async def shows_row(agent, env: str, table: str, row: dict) -> bool:
    """Whether the environment's own search tool for `table` finds `row`, asked by one of the row's own values:
    the agent's view of the episode's state (no file tools needed, so it works for claw_tool environments too)."""
    bp = load_blueprint(BLUEPRINTS / f"{env}.yaml")
    entity = next(e for e in bp.entities if e.table == table)
    search = next(op for op in bp.operations if op.kind == "search" and op.entity == entity.name)
    param = next(p for p in search.params if isinstance(row.get(p), str))
    found = await agent.call_tool(search.name, {param: row[param]})
    assert not found.is_error, found.content
    return row["id"] in json.dumps(found.structured_content)


def cross_task() -> Task:
    """The catalog's first task spanning two environments that both start from their own rows."""
    for path in task_files(TASKS_DIR):
        for task in load_tasks(path):
            if len(task.envs) == 2 and task.initial.rows and task.other_initial.get(task.envs[1], None) \
                    and task.other_initial[task.envs[1]].rows:
                return task
    pytest.fail("the task store has no cross-environment task with initial rows in both environments")


def compiled_server(bp, tmp_path):
    """A blueprint compiled into tmp_path and its server module loaded: (folder, module), for calling its tools."""
    from envcraft.generator.compile.compiler import compile_blueprint
    from envcraft.registry.catalog import Environment
    from envcraft.registry.launch import load_server_module
    from envcraft.registry.manifest import read_manifest

    folder = compile_blueprint(bp, tmp_path / bp.id)
    manifest = read_manifest(folder)
    return folder, load_server_module(Environment(manifest.env.env_id, folder, manifest))


def seed_state(folder: Path) -> Path:
    """The app state a compiled server starts from."""
    return folder / "seed" / ".app" / "state.json"
