"""The Docker sandbox backend, end to end on the real engine: the office environment runs in a
locked-down container, agent commands stay inside it, and no container outlives its block."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest
from envcraft.registry.catalog import get
from envcraft.registry.launch import launch
from envcraft.registry.workspaces import WorkspaceRoot

from tests.helpers import REPO
from tests.test_containment import CASES as SHELL_CASES


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
pytestmark = [pytest.mark.slow, pytest.mark.anyio, pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or "")]


def _uid_block(container: dict):
    from envcraft.registry.docker_launcher import LABEL_UIDS
    from envcraft_runtime.container import UidBlock

    return UidBlock.parse(container["Labels"][LABEL_UIDS])


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
        assert len(listed.tools) == 22

        found = await client.call_tool("mail_search", {"query": "Lantern Room", "folder": "archive"})
        assert not found.is_error, found.content
        assert any(m["id"] == "msg-0001" for m in found.structured_content["results"])

        wrote = await client.call_tool("write_file", {"path": "notes/hello.txt", "content": "from the container"})
        assert not wrote.is_error, wrote.content
        assert (instance.workspace / "notes" / "hello.txt").read_text() == "from the container"

        shell = await client.call_tool("run_shell", {"command": "office contacts-search --query a; touch by-shell.txt"})
        text = shell.content[0].text
        assert "exit code: 0" in text and "@northwind.studio" in text, text[-1500:]
        # The server's files are its uid's, the command's its own uid's, both in the workspace group.
        from envcraft_runtime.container import WORKSPACE_GID

        [container] = _containers()
        uids = _uid_block(container)
        server_made, shell_made = (instance.workspace / "notes" / "hello.txt").stat(), (instance.workspace / "by-shell.txt").stat()
        assert (server_made.st_uid, server_made.st_gid) == (uids.server, WORKSPACE_GID)
        assert shell_made.st_uid in uids.commands and shell_made.st_gid == WORKSPACE_GID
        assert container["Labels"]["envcraft.managed"] == "1" and container["State"] == "running"
        from envcraft.registry.docker_image import docker_client

        config = docker_client().api.inspect_container(container["Id"])["HostConfig"]
        assert config["ReadonlyRootfs"] and config["NetworkMode"] == "none" and config["CapDrop"] == ["ALL"]
        assert sorted(config["CapAdd"]) == ["KILL", "SETGID", "SETUID"]
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
        assert any(m["subject"] == "x" for m in before.structured_content["results"])
        instance.reset()
        assert not (instance.workspace / "by-shell.txt").exists()
        listed = await client.call_tool("list_dir", {})
        assert not listed.is_error and "SKILL.md" in listed.content[0].text and "by-shell.txt" not in listed.content[0].text
        outbox = await client.call_tool("mail_search", {"folder": "sent", "query": "x"})
        assert not outbox.is_error and all(m["subject"] != "x" for m in outbox.structured_content["results"])
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
            # The agent cannot kill its server (another uid)...
            tried = await instance.client.call_tool("run_shell", {"command": "kill -9 $PPID"})
            assert "exit code: 0" not in tried.content[0].text, tried.content[0].text
            assert not (await instance.client.call_tool("list_dir", {})).is_error
            # ...so the crash comes from outside: the host kills the server process.
            [container] = _containers()
            [server] = [pid for pid, uid, _ in _container_processes(container["Id"]) if uid == _uid_block(container).server]
            os.kill(server, signal.SIGKILL)
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


# ---------------------------------------------------------------- the agent against the container's own walls


def _container_processes(container_id: str) -> list[tuple[int, int, str]]:
    """(pid, real uid, command line) of every process in the container, read from the host's /proc."""
    from envcraft.registry.docker_image import docker_client

    top = docker_client().api.top(container_id)
    pids = [int(row[top["Titles"].index("PID")]) for row in top["Processes"]]
    found = []
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text().splitlines()
            uid = int(next(line for line in status if line.startswith("Uid:")).split()[1])
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, StopIteration):
            continue
        found.append((pid, uid, cmdline))
    return found


FORGE = """
import json, os
state = json.load(open(".app/state.json"))
state["mail"].append({"id": "msg-9999", "folder": "sent", "to": [TO], "cc": [], "subject": SUBJECT, "body": "On track.",
                      "date": "2026-11-30T09:00", "read": True, "sender": "alex.morgan@northwind.studio", "in_reply_to": None})
data = json.dumps(state)
def attempt(name, fn):
    try:
        fn()
        print("forged by", name)
    except OSError as exc:
        print(name, "refused:", exc)
attempt("write", lambda: open(".app/state.json", "w").write(data))
attempt("replace", lambda: (open(".app/new.json", "w").write(data), os.replace(".app/new.json", ".app/state.json")))
attempt("chmod", lambda: os.chmod(".app/state.json", 0o666))
attempt("rename folder", lambda: (os.rename(".app", "old-app"), os.mkdir(".app"), open(".app/state.json", "w").write(data)))
attempt("hard link", lambda: (os.link(".app/state.json", "linked.json"), open("linked.json", "w").write(data)))
"""


async def test_the_shell_cannot_forge_the_state_the_grader_reads(tmp_path, launcher):
    from envcraft.core.grading import Snapshot, grade

    from tests.helpers import mail_task

    task = mail_task(0)
    check = task.checks[0].match
    forge = f"TO, SUBJECT = {check['to'][0]!r}, {check['subject']!r}\n" + FORGE
    # The forge works where nothing stops it: run as a plain process on a copy, it earns the full reward.
    copy = tmp_path / "unguarded"
    shutil.copytree(get("office").seed, copy)
    before = Snapshot.of(copy)
    subprocess.run([sys.executable, "-c", forge], cwd=copy, check=True, capture_output=True)
    assert grade(task, before, Snapshot.of(copy)).reward == 1.0
    async with launch(get("office"), launcher, WorkspaceRoot(tmp_path / "runs"), task.initial) as instance:
        state = (instance.workspace / ".app" / "state.json").read_bytes()
        baseline = Snapshot.of(instance.workspace)
        await instance.client.call_tool("write_file", {"path": "forge.py", "content": forge})
        result = await instance.client.call_tool("run_shell", {"command": "python3 forge.py; ls -la .app"})
        text = result.content[0].text
        assert "forged by" not in text and "write refused" in text, text[-2000:]
        assert (instance.workspace / ".app" / "state.json").read_bytes() == state
        assert grade(task, baseline, Snapshot.of(instance.workspace)).reward == 0.0
        # The CLI verbs still change app state, through the server's checked operations.
        sent = await instance.client.call_tool("run_shell", {"command": (
            f"office mail-send --to {check['to'][0]} --subject '{check['subject']}' --body 'On track.'")})
        assert "exit code: 0" in sent.content[0].text, sent.content[0].text[-1500:]
        assert grade(task, baseline, Snapshot.of(instance.workspace)).checks[0].passed


DAEMON = ("python3 -c \"import os, time\nif os.fork(): os._exit(0)\nos.setsid()\nif os.fork(): os._exit(0)\n"
          "time.sleep(300)\" envcraft-daemon-MARK")


async def test_a_daemonized_process_ends_when_its_command_returns(tmp_path, launcher):
    async with launch(get("office"), launcher, WorkspaceRoot(tmp_path)) as instance:
        [container] = _containers()
        mark = os.urandom(4).hex()
        started = await instance.client.call_tool("run_shell", {"command": (
            DAEMON.replace("MARK", mark) + f" </dev/null >/dev/null 2>&1 & sleep 0.5; grep -l {mark} /proc/[0-9]*/cmdline | wc -l")})
        text = started.content[0].text
        assert "exit code: 0" in text, text
        assert int(text.split("stdout:")[1].split()[0]) >= 2, text  # the daemon ran (besides grep itself)
        assert not [p for p in _container_processes(container["Id"]) if mark in p[2]]
        alive = await instance.client.call_tool("run_shell", {"command": "cat /proc/[0-9]*/cmdline | tr '\\0' ' '"})
        assert mark not in alive.content[0].text.replace(f"grep -l {mark}", "")


async def test_no_process_in_the_container_is_root(tmp_path, launcher):
    async with launch(get("office"), launcher, WorkspaceRoot(tmp_path)) as instance:
        [container] = _containers()
        shell = await instance.client.call_tool("run_shell", {"command": "id -u; sleep 0.3 & grep -h ^Uid /proc/[0-9]*/status"})
        text = shell.content[0].text
        uid = int(text.split("stdout:")[1].split()[0])
        assert uid != 0, text
        processes = _container_processes(container["Id"])
        assert len(processes) >= 2 and all(uid != 0 for _, uid, _ in processes), processes
        assert "Uid:\t0\t" not in text


async def test_host_secrets_and_host_listeners_stay_out_of_reach(tmp_path, launcher):
    import socket
    import threading

    secret = os.urandom(16).hex()
    planted = tmp_path / "host-secret.txt"
    planted.write_text(secret)
    listeners, accepted = [], []
    for address in ("127.0.0.1", "0.0.0.0"):
        server = socket.socket()
        server.bind((address, 0))
        server.listen()
        server.settimeout(0.2)
        listeners.append(server)
    stop = threading.Event()

    def accept_all() -> None:
        while not stop.is_set():
            for server in listeners:
                with contextlib.suppress(OSError):
                    accepted.append(server.accept())

    watcher = threading.Thread(target=accept_all, daemon=True)
    watcher.start()
    ports = [server.getsockname()[1] for server in listeners]
    probe = "; ".join(
        f"python3 -c \"import socket; s = socket.socket(); s.settimeout(2); s.connect(('{host}', {port}))\""
        for port in ports for host in ("127.0.0.1", "172.17.0.1", "host.docker.internal", "10.0.2.2"))
    try:
        async with launch(get("office"), launcher, WorkspaceRoot(tmp_path / "runs")) as instance:
            for command in (f"cat {planted}; cat {tmp_path}/*; ls {tmp_path}", "cat /proc/1/root/" + str(planted),
                            "find / -name host-secret.txt 2>/dev/null | xargs cat", probe):
                result = await instance.client.call_tool("run_shell", {"command": command, "timeout_seconds": 20})
                assert secret not in result.content[0].text
            await instance.client.call_tool("list_dir", {})  # the episode goes on
    finally:
        stop.set()
        watcher.join()
        for server in listeners:
            server.close()
    assert accepted == [], accepted


async def test_a_warm_container_is_handed_out_and_serves_its_task(tmp_path):
    from envcraft.core.state import InitialState
    from envcraft.registry.docker_launcher import DockerLauncher

    env, root = get("office"), WorkspaceRoot(tmp_path)
    launcher = DockerLauncher(warm=1)
    try:
        assert await anyio.to_thread.run_sync(launcher.pool.wait_ready, env, root), launcher.pool.errors
        [warm] = _containers()
        initial = InitialState(files={"brief.md": "from the task"})
        async with launch(env, launcher, root, initial) as instance:
            assert warm["Id"] in {c["Id"] for c in _containers()}  # the one started ahead of time serves it
            read = await instance.client.call_tool("run_shell", {"command": "cat brief.md; echo more >> brief.md"})
            assert "from the task" in read.content[0].text and "exit code: 0" in read.content[0].text
            instance.reset()
            assert (instance.workspace / "brief.md").read_text() == "from the task"
            again = await instance.client.call_tool("run_shell", {"command": "echo more >> brief.md; touch new.txt"})
            assert "exit code: 0" in again.content[0].text, again.content[0].text  # reset handed the files back
        assert warm["Id"] not in {c["Id"] for c in _containers()}  # used once, then removed
    finally:
        await anyio.to_thread.run_sync(launcher.close)


async def test_no_package_of_the_host_nor_the_task_store_is_visible_in_any_mode(tmp_path):
    """Hole: bind mode mounted the host's interpreter prefix, site-packages included: with EnvCraft installed
    normally, run_shell grepped the packaged tasks/*.jsonl and read every gold answer. Bind mode is gone (asking
    for it is refused with the reason); the image a container runs holds the server's requirement closure only."""
    from envcraft.registry.docker_image import ROOT_DISTRIBUTION, _requirement_closure
    from envcraft.registry.docker_launcher import DockerLauncher
    from envcraft_runtime.sandboxes.bwrap import package_folders

    closure = {Path(str(f)).parts[0] for dist in _requirement_closure(ROOT_DISTRIBUTION) for f in dist.files or []}
    host_only = sorted({name for folder in package_folders() for name in os.listdir(folder)} - closure)
    assert "envcraft-0.2.0.dist-info" in host_only or any(n.startswith("envcraft") for n in host_only), host_only
    folders = " ".join(package_folders())
    for mode in ("embed", "bind"):
        try:
            launcher = DockerLauncher(mode=mode)
        except ValueError as exc:
            assert mode == "bind" and "task store" in str(exc)
            continue
        async with launch(get("office"), launcher, WorkspaceRoot(tmp_path / mode)) as instance:
            seen = (await instance.client.call_tool("run_shell", {"command": (
                f"ls -a {folders} 2>&1; find / -xdev -name '*.jsonl' 2>/dev/null | head -5; echo probed")})).content[0].text
        assert "probed" in seen, seen
        leaked = [name for name in host_only if name in seen.split()]
        assert leaked == [] and ".jsonl" not in seen, (mode, leaked[:10], seen[-800:])
