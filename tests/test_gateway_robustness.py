"""One episode cannot take the gateway down: a hostile agent's tree of 1,100 folders (deeper than
PATH_MAX) and thousands of files, made through its own shell, while the gateway's health and a
bystander episode keep answering; the idle reaper reaching that workspace; and a start after a
registry killed with such a tree left in its run folder. Real uvicorn, real HTTP, real MCP."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from envcraft.core.tasks import write_tasks
from mcp import Client

from tests.helpers import REPO, free_port, mail_task, wait_for_port

TOKEN = "robustness-token"
DEPTH, FILES = 1100, 3000
LEVEL = "deep-level"  # 1,100 of these make a path of 12,100 characters, three times PATH_MAX
ATTACK = f"""
import os
os.mkdir("flat")
for i in range({FILES}):
    with open(f"flat/f{{i}}", "w") as f:
        f.write("x")
fd = os.open(".", os.O_RDONLY)
for _ in range({DEPTH}):
    os.mkdir("{LEVEL}", dir_fd=fd)
    inner = os.open("{LEVEL}", os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = inner
os.mkfifo("pipe", dir_fd=fd)
os.fchmod(fd, 0)
print("built", flush=True)
"""

pytestmark = pytest.mark.anyio


def control(port: int, method: str, path: str, body: dict | None = None, timeout: float = 60.0):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/control{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


class Farm:
    """`envcraft serve --all` in a subprocess with a private temp folder (so its run folders are its own)."""

    def __init__(self, idle_seconds: float = 900.0):
        self.tmp = Path(tempfile.mkdtemp(prefix="gw-", dir="/tmp"))  # short: the shell's socket path must fit
        self.tasks = self.tmp / "tasks"
        self.tasks.mkdir()
        write_tasks(self.tasks / "office.jsonl", [mail_task(0)])
        self.idle_seconds = idle_seconds
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def runs(self) -> Path:
        return self.tmp / "envcraft"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "envcraft.cli", "serve", "--all", "--port", str(self.port), "--token", TOKEN,
             "--tasks-dir", str(self.tasks), "--idle-seconds", str(self.idle_seconds)],
            cwd=REPO, env={**os.environ, "TMPDIR": str(self.tmp)}, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            wait_for_port(self.port, timeout=60)
        except TimeoutError:
            self.process.kill()
            raise AssertionError(f"the gateway did not start: {self.process.communicate()[1][-3000:]}") from None

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        subprocess.run(["chmod", "-R", "u+rwx", str(self.tmp)], capture_output=True)
        shutil.rmtree(self.tmp, ignore_errors=True)


@pytest.fixture
def farm():
    made = Farm()
    made.start()
    yield made
    made.stop()


async def health_within_one_second(port: int) -> dict:
    """The gateway's answer time, taken on the thread that asks (this test's own event loop may be
    busy driving a dozen clients, which is not the gateway's delay)."""
    def ask() -> tuple[float, int, dict]:
        start = time.monotonic()
        status, report = control(port, "GET", "/health", timeout=1)
        return time.monotonic() - start, status, report

    with anyio.fail_after(30):
        seconds, status, report = await anyio.to_thread.run_sync(ask)
    assert seconds < 1.0 and status == 200 and report["ok"], (seconds, report)
    return report


async def build_tree(url: str) -> None:
    async with Client(url) as agent:
        assert not (await agent.call_tool("write_file", {"path": "attack.py", "content": ATTACK})).is_error
        made = await agent.call_tool("run_shell", {"command": "python3 attack.py", "timeout_seconds": 20})
        assert "built" in made.content[0].text, made.content[0].text[-2000:]


async def while_running(port: int, bystander: str, work) -> object:
    """Run `work` (a blocking control call) on a thread; meanwhile health must answer within 1 s and
    the bystander episode must answer its tool calls. Returns work's result."""
    done, box, rounds = anyio.Event(), {}, 0

    async def run() -> None:
        box["result"] = await anyio.to_thread.run_sync(work)
        done.set()

    async with anyio.create_task_group() as group, Client(bystander) as other:
        group.start_soon(run)
        while not done.is_set():
            await health_within_one_second(port)
            with anyio.fail_after(10):
                listed = await other.call_tool("list_dir", {})
            assert not listed.is_error and "SKILL.md" in listed.content[0].text
            rounds += 1
            await anyio.sleep(0.1)
    assert rounds >= 1
    return box["result"]


@pytest.mark.slow
async def test_a_deep_tree_breaks_neither_grading_reset_delete_nor_anyone_else(farm):
    port = farm.port
    _, attacker = control(port, "POST", "/episodes", {"env": "office", "task_id": mail_task(0).id})
    _, bystander = control(port, "POST", "/episodes", {"env": "office"})
    await build_tree(attacker["url"])

    status, graded = await while_running(port, bystander["url"],
                                         lambda: control(port, "POST", f"/episodes/{attacker['episode']}/grade"))
    assert status in (200, 422), graded  # graded, or told clearly the workspace cannot be read; never a 500
    if status == 200:
        assert graded["reward"] == 0.0  # nothing was sent

    status, reset = await while_running(port, bystander["url"],
                                        lambda: control(port, "POST", f"/episodes/{attacker['episode']}/reset"))
    assert status == 200, reset
    async with Client(attacker["url"]) as agent:
        listed = (await agent.call_tool("list_dir", {})).content[0].text
        assert LEVEL not in listed and "flat" not in listed and "SKILL.md" in listed
    assert control(port, "POST", f"/episodes/{attacker['episode']}/grade")[1]["reward"] == 0.0

    await build_tree(attacker["url"])
    assert control(port, "DELETE", f"/episodes/{attacker['episode']}")[0] == 200
    [run] = [p for p in farm.runs.glob("run-*") if "-ops-" not in p.name]
    with anyio.fail_after(120):  # the cleanup goes on in the background; the gateway answers meanwhile
        while any((workspace / LEVEL).exists() or (workspace / "flat").exists() for workspace in run.iterdir()):
            await health_within_one_second(port)  # the workspace is rebuilt for the pool, tree gone
            await anyio.sleep(0.2)
    report = await health_within_one_second(port)
    assert report["failures"] == 0 and report["live"] == 1, report["recent_failures"]
    assert control(port, "POST", "/episodes", {"env": "office"})[0] == 201


@pytest.mark.slow
async def test_the_idle_reaper_survives_a_deep_tree_and_keeps_everyone_else():
    farm = Farm(idle_seconds=4)
    farm.start()
    try:
        port = farm.port
        _, attacker = control(port, "POST", "/episodes", {"env": "office"})
        _, bystander = control(port, "POST", "/episodes", {"env": "office"})
        async with Client(bystander["url"]) as other, anyio.create_task_group() as group:
            async def keep_busy() -> None:  # the bystander is never idle, so only the attacker is reaped
                while True:
                    assert not (await other.call_tool("list_dir", {})).is_error
                    await anyio.sleep(0.3)

            group.start_soon(keep_busy)
            await build_tree(attacker["url"])
            with anyio.fail_after(120):
                while (await health_within_one_second(port))["reaped"] == 0:
                    await anyio.sleep(0.3)
            group.cancel_scope.cancel()
        async with Client(bystander["url"]) as other:
            assert not (await other.call_tool("list_dir", {})).is_error
        report = await health_within_one_second(port)
        assert report["live"] == 1 and report["reaped"] == 1 and report["failures"] == 0, report
        status, later = control(port, "POST", "/episodes", {"env": "office"})
        assert status == 201, later
        async with Client(later["url"]) as agent:
            assert "SKILL.md" in (await agent.call_tool("list_dir", {})).content[0].text
    finally:
        farm.stop()


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


@pytest.mark.slow
def test_a_start_after_a_leftover_deep_tree_run_folder_works():
    farm = Farm()
    leftover = farm.runs / f"run-{_dead_pid()}-leftover"
    leftover.mkdir(parents=True)
    fd = os.open(leftover, os.O_RDONLY)
    for _ in range(DEPTH):  # deeper than PATH_MAX, as a killed registry's episode could leave it
        os.mkdir(LEVEL, dir_fd=fd)
        inner = os.open(LEVEL, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.mkfifo("pipe", dir_fd=fd)
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(f"/proc/self/fd/{fd}/sock")
    os.fchmod(fd, 0)
    os.close(fd)
    (leftover / "locked").mkdir()
    (leftover / "locked" / "file").write_text("x")
    (leftover / "locked").chmod(0)
    try:
        farm.start()
        status, report = control(farm.port, "GET", "/health")
        assert status == 200 and report["ok"]
        assert not leftover.exists()
        assert control(farm.port, "POST", "/episodes", {"env": "office"})[0] == 201
    finally:
        farm.stop()


@pytest.mark.slow
async def test_one_episode_flooding_its_calls_is_capped_and_blocks_no_one(farm):
    """More stuck calls than an episode may hold: the surplus is refused at once (429), and another
    episode and the gateway's health answer throughout."""
    port = farm.port
    _, flooder = control(port, "POST", "/episodes", {"env": "office"})
    _, bystander = control(port, "POST", "/episodes", {"env": "office"})
    outcomes: list[str] = []
    everyone_sent = anyio.Event()

    async def stuck_call() -> None:
        try:
            async with Client(flooder["url"]) as agent:
                result = await agent.call_tool("run_shell", {"command": "sleep 8", "timeout_seconds": 20})
                outcomes.append("answered" if not result.is_error else "tool error")
        except Exception as exc:  # noqa: BLE001 - the refused ones surface as a client error
            outcomes.append(f"refused: {exc!r}"[:200])
        if len(outcomes) >= 8:
            everyone_sent.set()

    async with anyio.create_task_group() as group, Client(bystander["url"]) as other:
        for _ in range(12):
            group.start_soon(stuck_call)
        with anyio.fail_after(60):
            while not everyone_sent.is_set() and len(outcomes) < 12:
                await health_within_one_second(port)
                with anyio.fail_after(5):
                    assert not (await other.call_tool("list_dir", {})).is_error
                await anyio.sleep(0.2)
    refused = [o for o in outcomes if o.startswith("refused")]
    assert len(outcomes) == 12 and len(refused) >= 4 and outcomes.count("answered") >= 1, outcomes
    report = await health_within_one_second(port)
    assert report["failures"] == 0, report["recent_failures"]


async def test_health_says_not_ok_when_the_task_group_is_gone(tmp_path):
    from envcraft.registry.gateway import Gateway
    from envcraft.registry.workspaces import WorkspaceRoot

    gateway = Gateway(TOKEN, root=WorkspaceRoot(tmp_path))
    assert gateway.health()["ok"] is False  # not running yet
    async with gateway.running():
        assert gateway.health()["ok"] is True
        gateway._group.cancel_scope.cancel()  # what an escaped exception does to the group
        assert gateway.health()["ok"] is False
    assert gateway.health()["ok"] is False
