"""The gateway as agents and operators meet it: real uvicorn, real HTTP, an independent MCP client."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import anyio
import pytest
from envcraft.core.tasks import write_tasks
from mcp import Client

from tests.helpers import REPO, free_port, inspector, mail_task, marked, wait_for_port

TOKEN = "test-token-not-for-agents"


def control(port: int, method: str, path: str, body: dict | None = None, token: str | None = TOKEN):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/control{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture
def gateway(tmp_path):
    port = free_port()
    write_tasks(tmp_path / "office.jsonl", [mail_task(0)])
    marker = uuid.uuid4().hex  # every process of this gateway carries it, whoever its parent becomes
    process = subprocess.Popen([sys.executable, "-m", "envcraft.cli", "serve", "--all", "--port", str(port),
                                "--token", TOKEN, "--max-episodes", "3", "--tasks-dir", str(tmp_path)], cwd=REPO,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                               env={**os.environ, "ENVCRAFT_RUN_MARKER": marker})
    process.marker = marker
    wait_for_port(port)
    yield port, process
    if process.poll() is None:
        process.terminate()
        process.wait(timeout=15)


@pytest.mark.slow
@pytest.mark.anyio
async def test_episodes_are_separate_and_the_control_plane_is_out_of_reach(gateway):
    port, _ = gateway
    assert control(port, "POST", "/episodes", {"env": "office"}, token=None)[0] == 401
    assert control(port, "POST", "/episodes", {"env": "office"}, token="wrong")[0] == 401
    status, a = control(port, "POST", "/episodes", {"env": "office"})
    assert status == 201
    _, b = control(port, "POST", "/episodes", {"env": "office"})
    async with Client(a["url"]) as agent_a, Client(b["url"]) as agent_b:
        assert not (await agent_a.call_tool("write_file", {"path": "secret.txt", "content": "for a only"})).is_error
        assert "secret.txt" not in (await agent_b.call_tool("list_dir", {})).content[0].text
        assert (await agent_b.call_tool("read_file", {"path": "secret.txt"})).is_error
        names = {tool.name for tool in (await agent_a.list_tools()).tools}
        assert not any(word in name for name in names for word in ("reset", "grade", "control", "episode"))
        probe = await agent_a.call_tool("run_shell", {"command": (
            "python3 -c \"import urllib.request as u; "
            f"u.urlopen('http://127.0.0.1:{port}/control/health', timeout=3)\"")})
        assert "Errno" in probe.content[0].text and "exit code: 1" in probe.content[0].text
    status, health = control(port, "GET", "/health")
    assert status == 200 and health["live"] == 2
    assert control(port, "POST", f"/episodes/{a['episode']}/reset")[0] == 200
    async with Client(a["url"]) as agent_a:
        assert "secret.txt" not in (await agent_a.call_tool("list_dir", {})).content[0].text


@pytest.mark.slow
def test_inspector_works_in_a_gateway_episode_and_farm_limits_are_clear(gateway):
    port, _ = gateway
    _, episode = control(port, "POST", "/episodes", {"env": "office"})
    listed = inspector(episode["url"], "--transport", "http", "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)["tools"]) == 22
    for _ in range(2):
        assert control(port, "POST", "/episodes", {"env": "office"})[0] == 201
    status, full = control(port, "POST", "/episodes", {"env": "office"})
    assert status == 429 and "farm is full" in full["error"]
    assert control(port, "DELETE", f"/episodes/{episode['episode']}")[0] == 200
    assert control(port, "DELETE", f"/episodes/{episode['episode']}")[0] == 404
    assert control(port, "POST", "/episodes", {"env": "nope"})[0] == 404
    assert control(port, "POST", "/episodes", {"env": "office"})[0] == 201


def await_shell(port: int, url: str) -> str:
    async def call() -> str:
        async with Client(url) as agent:
            return (await agent.call_tool("run_shell", {"command": "office todo-list | head -2"})).content[0].text

    return anyio.run(call)


@pytest.mark.slow
def test_a_killed_gateway_leaves_nothing_after_the_next_start(gateway):
    port, process = gateway
    _, episode = control(port, "POST", "/episodes", {"env": "office"})
    probe = await_shell(port, episode["url"])
    run_dirs = list(Path("/tmp/envcraft").glob(f"run-{process.pid}-*"))
    assert len(run_dirs) == 2 and probe  # the workspace run folder and the shell's operation socket
    assert process.pid in marked(process.marker)  # the marker finds this gateway's processes
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    from envcraft.registry.workspaces import WorkspaceRoot

    root = WorkspaceRoot()  # what every registry start does first
    root.close()
    assert not any(path.exists() for path in run_dirs)
    assert marked(process.marker) == []


@pytest.mark.slow
@pytest.mark.anyio
async def test_control_api_grades_an_episode_on_its_final_state(gateway):
    port, _ = gateway
    task = mail_task(0)
    _, solved = control(port, "POST", "/episodes", {"env": "office", "task_id": task.id})
    _, untouched = control(port, "POST", "/episodes", {"env": "office", "task_id": task.id})
    async with Client(solved["url"]) as agent:
        for call in task.gold:
            assert not (await agent.call_tool(call.tool, call.arguments)).is_error
    status, grade = control(port, "POST", f"/episodes/{solved['episode']}/grade")
    assert status == 200 and grade["reward"] == 1.0 and grade["passed"]
    assert control(port, "POST", f"/episodes/{untouched['episode']}/grade")[1]["reward"] == 0.0


@pytest.mark.anyio
async def test_idle_episodes_are_reaped(tmp_path):
    import httpx2
    from envcraft.registry.gateway import Gateway
    from envcraft.registry.workspaces import WorkspaceRoot

    gateway = Gateway(TOKEN, idle_seconds=0.2, root=WorkspaceRoot(tmp_path))
    async with gateway.running(), \
            httpx2.AsyncClient(transport=httpx2.ASGITransport(app=gateway), base_url="http://127.0.0.1") as http:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        created = (await http.post("/control/episodes", json={"env": "office"}, headers=headers)).json()
        with anyio.fail_after(10):
            while (await http.get("/control/health", headers=headers)).json()["live"]:
                await anyio.sleep(0.05)
        health = (await http.get("/control/health", headers=headers)).json()
        assert health["reaped"] == 1
        gone = await http.post(f"/control/episodes/{created['episode']}/reset", headers=headers)
        assert gone.status_code == 404 and "reaped" in gone.json()["error"]


def raw(port: int, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=body or None,
                                     headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.slow
def test_control_api_takes_only_a_strict_bearer_token(gateway):
    port, _ = gateway
    for header in (TOKEN, f"Token {TOKEN}", f"Basic {TOKEN}", f"Bearer{TOKEN}", f"Bearer  {TOKEN}",
                   f"Bearer {TOKEN[:-1]}", "Bearer ", "Bearer", f"Bearer {TOKEN}x", "Bearer \u00e9\u00e9"):
        status, body = raw(port, "GET", "/control/health", headers={"Authorization": header})
        assert status == 401 and "Bearer" in body["error"], (header, status, body)
        status, _ = raw(port, "POST", "/control/episodes", b'{"env": "office"}', {"Authorization": header})
        assert status == 401, header
    assert control(port, "GET", "/health")[1]["live"] == 0  # nothing was created by any refused call
    assert raw(port, "GET", "/control/health", headers={"Authorization": f"bearer {TOKEN}"})[0] == 200


def _send_until_answered(port: int, head: bytes, chunked: bool) -> tuple[bytes, int]:
    """Send `head`, then body bytes until the gateway answers; returns (answer, body bytes sent)."""
    import select
    import socket

    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head)
        piece = b"x" * 65536
        while sent < 100 * 2**20:
            if select.select([sock], [], [], 0)[0]:
                break
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(piece)
        sock.settimeout(30)
        answer = sock.recv(4096)
    return answer, sent


@pytest.mark.slow
def test_control_api_refuses_a_huge_body_without_reading_it(gateway):
    port, _ = gateway
    auth = f"Authorization: Bearer {TOKEN}\r\n".encode()
    declared = (b"POST /control/episodes HTTP/1.1\r\nHost: x\r\n" + auth +
                b"Content-Type: application/json\r\nContent-Length: 104857600\r\n\r\n")
    answer, sent = _send_until_answered(port, declared, chunked=False)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sent < 20 * 2**20, sent  # answered long before 100 MB went out
    streamed = (b"POST /control/episodes HTTP/1.1\r\nHost: x\r\n" + auth +
                b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
    answer, sent = _send_until_answered(port, streamed, chunked=True)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sent < 20 * 2**20, sent
    _, episode = control(port, "POST", "/episodes", {"env": "office"})
    agent_path = f"/env/office/{episode['episode']}/mcp".encode()
    answer, sent = _send_until_answered(port, b"POST " + agent_path + b" HTTP/1.1\r\nHost: x\r\n"
                                        b"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                                        b"Content-Length: 104857600\r\n\r\n", chunked=False)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert control(port, "GET", "/health")[1]["ok"]


@pytest.mark.slow
def test_control_api_answers_malformed_input_with_a_clear_400_never_a_500(gateway):
    port, _ = gateway
    auth = {"Authorization": f"Bearer {TOKEN}"}
    cases = {
        b'{"env": "office", "task_id": ["runner-000"]}': "task_id",
        b'{"env": ["office"]}': "env",
        b'{"env": 7}': "env",
        b'{"env": "office", "task_id": 3}': "task_id",
        b'{"env": null}': "env",
        b'{}': "env",
        b'{"env": "office", "tasks": "x"}': "tasks",
        b'["office"]': "JSON object",
        b'"office"': "JSON object",
        b'null': "JSON object",
        b'{"env": "office"': "JSON body",
        b'\xff\xfe{"env": "office"}': "JSON body",
        b'': "JSON body",
        b'{"env": "' + b"o" * 5000 + b'"}': "env",
    }
    for body, named in cases.items():
        status, answer = raw(port, "POST", "/control/episodes", body, auth)
        assert status == 400 and named in answer["error"], (body[:60], status, answer)
    for method, path in (("POST", "/control/episodes/%00/reset"), ("POST", "/control/episodes/..%2f..%2fetc/grade"),
                         ("DELETE", "/control/episodes/" + "x" * 3000), ("POST", "/control/episodes/nope/grade")):
        assert raw(port, method, path, headers=auth)[0] == 404
    status, answer = raw(port, "POST", "/control/episodes", b'{"env": "office", "task_id": "no-such-task"}', auth)
    assert status == 404 and "no-such-task" in answer["error"]
    status, health = control(port, "GET", "/health")
    assert status == 200 and health["ok"] and health["live"] == 0 and health["failures"] == 0


@pytest.mark.slow
def test_tasks_are_listed_as_their_episodes_show_them(gateway):
    """GET /control/tasks (what the verifiers taskset reads): each task as a created episode of it shows it, with
    no episode started; bad queries are refused with what to send."""
    port, _ = gateway
    assert control(port, "GET", "/tasks?env=office", token=None)[0] == 401
    status, listed = control(port, "GET", "/tasks?env=office&split=all&limit=5")
    assert status == 200 and [t["task_id"] for t in listed] == [mail_task(0).id]
    assert control(port, "GET", "/health")[1]["live"] == 0
    _, created = control(port, "POST", "/episodes", {"env": "office", "task_id": mail_task(0).id})
    assert {k: listed[0][k] for k in ("system_prompt", "turns", "tools")} == \
           {k: created[k] for k in ("system_prompt", "turns", "tools")}
    assert control(port, "GET", f"/tasks?env=office&split={mail_task(0).split}")[1] == listed
    assert control(port, "GET", "/tasks?env=office&split=test" if mail_task(0).split == "train"
                   else "/tasks?env=office&split=train")[1] == []
    for query, status in (("", 400), ("?env=office&limit=0", 400), ("?env=office&split=dev", 400),
                          ("?env=nowhere", 404), ("?env=office&extra=1", 400)):
        answer = control(port, "GET", f"/tasks{query}")
        assert answer[0] == status and answer[1]["error"], (query, answer)
