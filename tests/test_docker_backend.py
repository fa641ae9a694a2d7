"""The Docker sandbox backend, end to end on the real engine: the office environment runs in a
locked-down container, agent commands stay inside it, and no container outlives its block."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import anyio
import pytest

from tests.test_containment import CASES as SHELL_CASES

from envcraft.registry.catalog import get
from envcraft.registry.launch import launch
from envcraft.registry.workspaces import WorkspaceRoot
from tests.helpers import REPO


def _engine_problem() -> str | None:
    if not shutil.which("docker"):
        return "no docker client on PATH: run `bash .ci/docker.sh` (installs docker.io and starts dockerd)"
    try:
        info = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "`docker info` did not answer within 30s: is dockerd healthy? (see /tmp/dockerd.log)"
    if info.returncode != 0:
        return f"`docker info` fails, no engine is running: run `bash .ci/docker.sh` ({info.stderr.strip()[-200:]})"
    return None


PROBLEM = _engine_problem()
pytestmark = [pytest.mark.anyio, pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or "")]


def _containers(run: int | None = None) -> list[dict]:
    from envcraft.registry.docker_image import docker_client

    label = f"envcraft.run={run or os.getpid()}"
    return docker_client().api.containers(all=True, filters={"label": label})


@pytest.fixture(autouse=True)
def no_container_outlives_its_block():
    yield
    assert _containers() == [], "a container of this run is still there after its block exited"


@pytest.fixture
def launcher():
    from envcraft.registry.docker_launcher import DockerLauncher

    return DockerLauncher()


async def test_office_end_to_end(tmp_path, launcher):
    env = get("office")
    async with launch(env, launcher, WorkspaceRoot(tmp_path)) as instance:
        client = instance.client
        listed = await client.list_tools()
        assert sorted(t.name for t in listed.tools) == sorted(t.name for t in env.manifest.env.tools)
        assert len(listed.tools) == 20

        found = await client.call_tool("mail_search", {"query": "Lantern Room", "folder": "archive"})
        assert not found.is_error, found.content
        assert any(m["id"] == "msg-0001" for m in found.structured_content["result"])

        wrote = await client.call_tool("write_file", {"path": "notes/hello.txt", "content": "from the container"})
        assert not wrote.is_error, wrote.content
        assert (instance.workspace / "notes" / "hello.txt").read_text() == "from the container"

        shell = await client.call_tool("run_shell", {"command": "office contacts-search --query a; touch by-shell.txt"})
        text = shell.content[0].text
        assert "exit code: 0" in text and "@northwind.studio" in text, text[-1500:]
        # Files the container writes stay the host user's: readable, resettable, deletable.
        for made in (instance.workspace / "notes" / "hello.txt", instance.workspace / "by-shell.txt"):
            assert (made.stat().st_uid, made.stat().st_gid) == (os.getuid(), os.getgid())

        [container] = _containers()
        assert container["Labels"]["envcraft.managed"] == "1" and container["State"] == "running"
        from envcraft.registry.docker_image import docker_client

        config = docker_client().api.inspect_container(container["Id"])["HostConfig"]
        assert config["ReadonlyRootfs"] and config["NetworkMode"] == "none" and config["CapDrop"] == ["ALL"]
        assert config["PidsLimit"] == 128 and config["Memory"] == 512 * 2**20 and config["NanoCpus"] == 10**9
        assert "no-new-privileges" in config["SecurityOpt"]


async def test_reset_reaches_the_running_container(tmp_path, launcher):
    """Reset restores the workspace in place, so the container's bind mount sees the seed again."""
    async with launch(get("office"), launcher, WorkspaceRoot(tmp_path)) as instance:
        client = instance.client
        await client.call_tool("run_shell", {"command": "touch by-shell.txt; rm SKILL.md"})
        sent = await client.call_tool("mail_send", {"to": ["priya.shah@northwind.studio"], "subject": "x", "body": "y"})
        assert not sent.is_error, sent.content
        before = await client.call_tool("mail_search", {"folder": "sent", "query": "x"})
        assert any(m["subject"] == "x" for m in before.structured_content["result"])
        instance.reset()
        assert not (instance.workspace / "by-shell.txt").exists()
        listed = await client.call_tool("list_dir", {})
        assert not listed.is_error and "SKILL.md" in listed.content[0].text and "by-shell.txt" not in listed.content[0].text
        outbox = await client.call_tool("mail_search", {"folder": "sent", "query": "x"})
        assert not outbox.is_error and all(m["subject"] != "x" for m in outbox.structured_content["result"])
        assert not (await client.call_tool("write_file", {"path": "after-reset.txt", "content": "ok"})).is_error
        assert (instance.workspace / "after-reset.txt").read_text() == "ok"


CASES = {
    "host files": (f"cat /etc/shadow; cat {REPO}/servers/office/server.json; ls /root/.ssh {REPO}",
                   ["No such file"], None),
    "network": ("python3 -c \"import socket; s = socket.socket(); s.settimeout(3); s.connect(('1.1.1.1', 80))\"",
                ["Network is unreachable"], None),
    "write outside": ("echo x > /usr/x; echo x > /opt/env/x; touch /x; touch /etc/x", ["Read-only file system"], None),
    "fork bomb": ("bomb() { bomb | bomb & }; bomb; sleep 2; echo still-here", ["fork"], 5),
}
# The rest of the bubblewrap cases hold in a container too: task store, memory bomb, endless loop,
# huge output, disk fill.
CASES |= {name: case for name, case in SHELL_CASES.items()
          if name in ("task store", "memory bomb", "endless loop", "huge output", "disk fill")}


@pytest.mark.parametrize("case", CASES)
async def test_contained_and_episode_goes_on(case, tmp_path, launcher):
    command, evidence, timeout = CASES[case]
    async with launch(get("office"), launcher, WorkspaceRoot(tmp_path)) as instance:
        args = {"command": command} | ({"timeout_seconds": timeout} if timeout else {})
        result = await instance.client.call_tool("run_shell", args)
        text = result.content[0].text
        assert any(e.lower() in text.lower() for e in evidence), text[-1500:]
        assert "x" not in os.listdir(REPO / "servers" / "office") and not os.path.exists("/usr/x")
        after = await instance.client.call_tool("run_shell", {"command": "office contacts-search --query design | head -3"})
        assert not after.is_error and "exit code: 0" in after.content[0].text, after.content[0].text[-1500:]
        assert not (await instance.client.call_tool("list_dir", {})).is_error


async def test_two_instances_cannot_see_each_other(tmp_path, launcher):
    root = WorkspaceRoot(tmp_path)
    async with launch(get("office"), launcher, root) as a, launch(get("office"), launcher, root) as b:
        await a.client.call_tool("write_file", {"path": "secret.txt", "content": "only for a"})
        probe = await b.client.call_tool("run_shell", {"command": f"cat {a.workspace}/secret.txt; ls -a /workspace"})
        text = probe.content[0].text
        assert "only for a" not in text and "No such file" in text and "secret.txt" not in text.splitlines(), text
        assert not (b.workspace / "secret.txt").exists()
        assert len(_containers()) == 2


async def test_cancellation_removes_the_container_promptly(tmp_path, launcher):
    started = time.monotonic()
    with anyio.move_on_after(3) as scope:
        async with launch(get("office"), launcher, WorkspaceRoot(tmp_path)) as instance:
            assert len(_containers()) == 1
            await instance.client.call_tool("run_shell", {"command": "sleep 15"})
    assert scope.cancelled_caught
    assert time.monotonic() - started < 10  # killed, not waited out


async def test_server_crash_removes_the_container(tmp_path, launcher):
    with pytest.raises(Exception):  # noqa: B017 - whatever the client reports, the container must go
        async with launch(get("office"), launcher, WorkspaceRoot(tmp_path)) as instance:
            await instance.client.call_tool("run_shell", {"command": "kill -9 $PPID"})  # the server itself
            await instance.client.list_tools()


def test_reap_removes_containers_of_dead_runs(tmp_path):
    """A registry killed outright leaves its container behind; the next run's reap() removes it."""
    holder = textwrap.dedent(f"""
        import anyio, pathlib
        from envcraft.registry.catalog import get
        from envcraft.registry.docker_launcher import DockerLauncher
        from envcraft.registry.launch import launch
        from envcraft.registry.workspaces import WorkspaceRoot

        async def main():
            async with launch(get("office"), DockerLauncher(), WorkspaceRoot(pathlib.Path({str(tmp_path)!r}))) as i:
                await i.client.list_tools()
                print("ready", flush=True)
                await anyio.sleep(120)

        anyio.run(main)
    """)
    child = subprocess.Popen([sys.executable, "-c", holder], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        assert len(_containers(child.pid)) == 1
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    from envcraft.registry.docker_launcher import reap

    assert len(_containers(child.pid)) == 1  # nothing in the dead run could remove it
    removed = reap()
    assert _containers(child.pid) == [] and len(removed) >= 1
