"""Red-team attacks on current main, each run through an episode's own MCP tools and checked on evidence
(another episode's latency, the server's thread count, the app state the grader reads, what a later
episode can do, what the sandbox can read, the reward paid). One test per hole found; holes not fixed
here are xfail(strict=True) with the hole named, so they document it without breaking main."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import time
import urllib.request
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from envcraft.core.tasks import TASKS_DIR, load_tasks, task_files, write_tasks
from envcraft.harness.farm_local import LocalFarm
from envcraft.registry.catalog import get
from envcraft.registry.launch import InProcessLauncher, StdioLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot
from mcp import Client

from tests.helpers import REPO, free_port, mail_task, wait_for_port

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not shutil.which("bwrap"), reason="bubblewrap is not installed: apt-get install bubblewrap")]


def _threads() -> int:
    return int(next(line for line in Path("/proc/self/status").read_text().splitlines()
                    if line.startswith("Threads:")).split()[1])


async def _shell(instance, command: str, timeout: float = 20.0) -> str:
    result = await instance.client.call_tool("run_shell", {"command": command, "timeout_seconds": timeout})
    return result.content[0].text


# ---------------------------------------------------------------- operation socket: flood / slow loris

# Forks `procs` children that each open `conns` connections to the operation socket, send a request
# that never ends (no newline) and hold them: before the fix, every connection was a server thread.
OPS_FLOOD = textwrap.dedent("""
    import os, socket, sys, time
    procs, conns, hold = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    for p in range(procs):
        if os.fork() == 0:
            held = []
            for _ in range(conns):
                try:
                    s = socket.socket(socket.AF_UNIX)
                    s.connect(os.environ["ENVCRAFT_OPS_SOCKET"])
                    s.send(b'{"verb": "todo_list", "args": ')
                    held.append(s)
                except OSError:
                    break
            print("held", len(held), flush=True)
            time.sleep(hold)
            os._exit(0)
    for _ in range(procs):
        os.wait()
""")


@pytest.mark.slow
async def test_operation_socket_flood_neither_piles_up_threads_nor_stalls_another_episode(tmp_path):
    """Hole: the operation socket spawned one thread per connection, unbounded, each waiting up to 30 s
    per read. 16 x 250 held connections made 4,000 threads in the shared server process and another
    episode's list_dir took 76 s. Now a few connections are served at a time per socket, each with one
    overall deadline; the rest wait in the kernel's backlog, costing the server nothing."""
    root = WorkspaceRoot(tmp_path)
    async with launch(get("office"), InProcessLauncher(), root) as attacker, \
            launch(get("office"), InProcessLauncher(), root) as bystander:
        await attacker.client.call_tool("write_file", {"path": "flood.py", "content": OPS_FLOOD})
        baseline = _threads()
        latencies: list[float] = []
        peak = baseline
        done = anyio.Event()

        async def attack() -> None:
            try:
                await _shell(attacker, "python3 flood.py 8 200 6", timeout=8)
            finally:
                done.set()

        async def probe() -> None:
            nonlocal peak
            while not done.is_set():
                started = time.monotonic()
                listed = await bystander.client.call_tool("list_dir", {})
                latencies.append(time.monotonic() - started)
                assert not listed.is_error
                peak = max(peak, _threads())
                await anyio.sleep(0.1)

        async with anyio.create_task_group() as group:
            group.start_soon(attack)
            group.start_soon(probe)
        assert peak - baseline < 64, f"the server grew {peak - baseline} threads under the flood"
        assert max(latencies) < 1.0, f"another episode waited {max(latencies):.1f} s"
        # the attacker's own CLI works again once its command is gone
        after = await _shell(attacker, "office todo-list --status open | head -3")
        assert "exit code: 0" in after, after


# ---------------------------------------------------------------- operation socket: forged argument types

FORGE = textwrap.dedent("""
    import json, os, socket
    s = socket.socket(socket.AF_UNIX)
    s.connect(os.environ["ENVCRAFT_OPS_SOCKET"])
    s.sendall(json.dumps({"verb": "mail_send", "args": {"to": ["priya.shah@northwind.studio"], "subject": "forged",
                          "body": {"not": ["a", "string"]}}}).encode() + b"\\n")
    print(s.makefile().readline())
""")


async def test_operation_socket_checks_argument_types_like_the_mcp_tool(tmp_path):
    """Hole: a request written straight to the operation socket skipped the schema the MCP tool enforces:
    `body` stored as an object (a `$lacks` check passes on any non-string). The CLI
    verb must change app state only with arguments the MCP tool would accept."""
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        await instance.client.call_tool("write_file", {"path": "forge.py", "content": FORGE})
        await _shell(instance, "python3 forge.py")
        mail = json.loads((instance.workspace / ".app" / "state.json").read_text())["mail"]
        forged = [m for m in mail if m.get("subject") == "forged"]
        assert all(isinstance(m["body"], str) for m in forged), forged
        # the honest path still works
        ok = await _shell(instance, "office mail-send --to priya.shah@northwind.studio --subject hi --body 'on track'")
        assert "exit code: 0" in ok, ok


# ---------------------------------------------------------------- pooled workspaces: a poisoned root

async def test_a_locked_workspace_root_does_not_reach_the_next_episode(tmp_path):
    """Hole: `chmod 000 /workspace` from the sandbox (the sandbox user owns the folder) survived the
    pool's reset, which compares only the entries under the root: the next episode on that workspace,
    whatever its task, could not read or write a single file from its shell."""
    root = WorkspaceRoot(tmp_path)
    env = get("office")
    async with launch(env, InProcessLauncher(), root) as first:
        used = first.workspace
        await _shell(first, "chmod 000 /workspace")
    async with launch(env, InProcessLauncher(), root) as second:
        assert second.workspace == used  # the pool handed the same folder on
        text = await _shell(second, "ls SKILL.md && echo fine > scratch.txt && cat scratch.txt")
        assert "exit code: 0" in text and "fine" in text, text


# ---------------------------------------------------------------- the sandbox's view of the host

def _base_package_file() -> Path:
    """A real file in the base interpreter's third-party package folder (where a wheel puts envcraft/tasks)."""
    purelib = Path(sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})["purelib"])
    for metadata in sorted(purelib.glob("*.dist-info/METADATA")):
        return metadata
    pytest.skip(f"no installed distribution under {purelib}")


async def test_the_sandbox_cannot_read_the_interpreters_installed_packages(tmp_path):
    """Hole: the whole base interpreter prefix was bound into the sandbox (and /usr always is), third-party
    packages included. Installed from a wheel into that interpreter (a system or pyenv Python, a Docker
    image's /usr/local), envcraft/tasks/*.jsonl.gz, every task's checks and gold answers, sits there:
    `zcat` it and finish with the expected value. Evidence: a real file's content there is not returned."""
    target = _base_package_file()
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        text = await _shell(instance, f"sha256sum '{target}'; ls '{target.parent.parent}' | head -5; python3 -c 'import json'")
        assert digest not in text, text
        assert "exit code: 0" in text  # the interpreter itself (stdlib) still works


# ---------------------------------------------------------------- rewards: a dump of small numbers

DUMP = " ".join(str(number) for number in range(150))  # 489 characters, under the 600-character cap


def _answer_only_number_task():
    """A task graded on one number alone, with no column of candidates (a total or a count)."""
    for path in task_files(TASKS_DIR):
        for task in load_tasks(path):
            goals = [c for c in task.checks if c.role == "goal"]
            if goals and all(c.kind == "answer" and not c.table and len(c.contains) == 1
                             and c.contains[0].replace(".", "", 1).isdigit() for c in goals):
                return task, goals[0].contains[0]
    raise AssertionError("the task store has no question graded on a number alone: the store changed shape")


async def _pays(task, answer: str) -> float:
    async with LocalFarm() as farm:
        episode = await farm.create(task)
        await farm.call_tool(episode.id, "finish", {"answer": answer})
        return (await farm.grade(episode.id)).reward


async def test_a_dump_of_numbers_is_not_paid_for_a_count_or_total():
    """Hole: an answer check with no table (a count or a total) had no candidate values, so '0 1 2 ... 149'
    named every small count and paid 1.0 with no tool call (2,626 of 21,097 tasks). A number's answer now
    gets one guess: no other number of its class besides those the question states (core/answers.py). Counts
    now also ask which rows, so the store's table-less numbers are totals: the right total inside a dump fails,
    the right total alone is paid."""
    task, expected = _answer_only_number_task()
    assert await _pays(task, f"The total is {expected}.") == 1.0, task.id
    whole = expected.split(".")[0]
    dump = f"{DUMP} {expected} {int(whole) + 1}{expected[len(whole):]} {int(whole) - 1}{expected[len(whole):]}"
    assert await _pays(task, dump) < 1.0, f"{task.id} paid for a dump"


# ---------------------------------------------------------------- kernel settings from inside the sandbox

LEASE = Path("/proc/sys/fs/lease-break-time")  # a global (not namespaced) and harmless kernel setting


@pytest.mark.skipif(not LEASE.exists(), reason="no /proc/sys/fs/lease-break-time on this host")
async def test_the_sandbox_cannot_change_host_kernel_settings(tmp_path):
    """Hole: the sandbox's uid 0 maps to the host's uid 0 and /proc/sys was writable, so a shell command
    could set GLOBAL kernel settings, e.g. kernel.core_pattern = '|/<host path of the workspace>/x.sh'
    (the host path is in /proc/1/cmdline): the next crash anywhere runs the agent's script as host root.
    Shown here with the harmless fs.lease-break-time, read back on the host and restored."""
    before = LEASE.read_text().strip()
    try:
        async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
            await _shell(instance, f"echo {int(before) + 7} > /proc/sys/fs/lease-break-time")
            assert LEASE.read_text().strip() == before, "a shell command changed a host kernel setting"
            text = await _shell(instance, "cat /proc/sys/kernel/ostype; ps -e | head -3")
            assert "exit code: 0" in text and "Linux" in text, text  # reading /proc still works
    finally:
        if LEASE.read_text().strip() != before:
            LEASE.write_text(before)


# ---------------------------------------------------------------- host files an agent leaves behind

async def test_a_setuid_file_made_in_the_sandbox_gives_no_host_user_root():
    """Hole: the sandbox's uid 0 is the host's uid 0, so `chmod 4755` on a copy of a binary in the workspace
    made a setuid-root executable on the host, under /tmp/envcraft/run-*/<workspace>, a path every host user
    could traverse (0755): any local user ran it as root. The run folder is now the registry's alone (0700).
    Evidence: the file run as the host's `nobody` does not get euid 0."""
    root = WorkspaceRoot()  # the default base, /tmp/envcraft: where a real registry puts workspaces
    try:
        async with launch(get("office"), InProcessLauncher(), root) as instance:
            await _shell(instance, "cp /usr/bin/id ./sid && chmod 4755 ./sid && ls -la ./sid")
            made = instance.workspace / "sid"
            assert made.exists()
            try:
                out = subprocess.run([str(made)], capture_output=True, text=True, timeout=30, user=65534, group=65534,
                                     extra_groups=[]).stdout
            except PermissionError:  # nobody cannot even reach it
                out = ""
            assert "euid=0" not in out, f"a host user became root: {out}"
    finally:
        root.close()


async def test_one_episode_cannot_fill_the_host_disk():
    """Hole: RLIMIT_FSIZE capped one file at 64 MB but not their number: one 5 s command wrote 1,020 MB to the
    host disk (about 4 GB per 20 s command). A registry's workspace is now a tmpfs of its own (registry/quota.py),
    on by default. Evidence: the host disk holding the run folder barely moves, the workspace holds at most its
    quota, the file tools say the workspace is full, grading reads it, another episode answers, and the run
    folder is removed with nothing left mounted."""
    from envcraft.core.grading import Snapshot
    from envcraft.registry import quota
    from envcraft.registry.settings import Settings

    if not quota.enabled():
        pytest.skip(f"no workspace quota on this host: {quota.describe()}")
    root = WorkspaceRoot()  # the default base, /tmp/envcraft: where a real registry puts workspaces
    host = root.path.parent.parent  # the folder /tmp/envcraft sits in: the host disk
    before = shutil.disk_usage(host).used
    try:
        async with launch(get("office"), InProcessLauncher(), root) as instance, \
                launch(get("office"), InProcessLauncher(), root) as bystander:
            text = await _shell(instance, "for i in 1 2 3 4 5 6; do head -c 60000000 /dev/zero > fill$i || break; done; "
                                          "ls fill* | wc -l", timeout=20)
            grown = shutil.disk_usage(host).used - before
            written = sum(p.stat().st_size for p in instance.workspace.glob("fill*"))
            assert 0 < written <= Settings.from_env().workspace_mb * 2**20 and "No space left" in text, text[-500:]
            assert grown < 64 * 2**20, f"the host disk grew {grown // 2**20} MB"
            full = await instance.client.call_tool("write_file", {"path": "note.txt", "content": "x" * 100_000})
            assert full.is_error and "workspace is full" in full.content[0].text
            assert (instance.workspace / ".app" / "state.json").stat().st_size > 1000
            assert Snapshot.of(instance.workspace).tables["contacts"]  # grading still reads the app state
            started = time.monotonic()
            other = await bystander.client.call_tool("run_shell", {"command": "echo fine > ok.txt && cat ok.txt"})
            assert "fine" in other.content[0].text and time.monotonic() - started < 5
    finally:
        root.close()
    assert not root.path.exists()
    assert str(root.path) not in Path("/proc/self/mountinfo").read_text()  # every workspace tmpfs is gone


# ---------------------------------------------------------------- the same attacks over stdio and the HTTP gateway

@pytest.mark.slow
@pytest.mark.skipif(not LEASE.exists(), reason="no /proc/sys/fs/lease-break-time on this host")
async def test_kernel_settings_hold_over_stdio(tmp_path):
    """The standalone path (`python server.py --workspace W` over stdio) runs the same sandbox."""
    before = LEASE.read_text().strip()
    try:
        async with launch(get("office"), StdioLauncher(), WorkspaceRoot(tmp_path)) as instance:
            await _shell(instance, f"echo {int(before) + 7} > /proc/sys/fs/lease-break-time")
            assert LEASE.read_text().strip() == before, "a shell command changed a host kernel setting"
    finally:
        if LEASE.read_text().strip() != before:
            LEASE.write_text(before)


@pytest.fixture
def gateway_port(tmp_path):
    port = free_port()
    write_tasks(tmp_path / "office.jsonl", [mail_task(0)])
    process = subprocess.Popen([sys.executable, "-m", "envcraft.cli", "serve", "--all", "--port", str(port), "--token",
                                GATEWAY_TOKEN, "--max-episodes", "3", "--tasks-dir", str(tmp_path)], cwd=REPO,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_for_port(port)
    yield port
    process.terminate()
    process.wait(timeout=15)


GATEWAY_TOKEN = "redteam-token-not-for-agents"


def _control(port: int, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/control{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": f"Bearer {GATEWAY_TOKEN}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read())


@pytest.mark.slow
@pytest.mark.skipif(not LEASE.exists(), reason="no /proc/sys/fs/lease-break-time on this host")
async def test_attacks_through_the_gateway_leave_the_host_and_other_episodes_alone(gateway_port):
    """Over HTTP, one episode writes a host kernel setting and floods its operation socket; the host value
    stays, and another episode and the gateway's health keep answering within 1 s."""
    port, before = gateway_port, LEASE.read_text().strip()
    _, a = _control(port, "POST", "/episodes", {"env": "office"})
    _, b = _control(port, "POST", "/episodes", {"env": "office"})
    latencies: list[float] = []
    try:
        async with Client(a["url"]) as attacker, Client(b["url"]) as bystander:
            await attacker.call_tool("write_file", {"path": "flood.py", "content": OPS_FLOOD})
            done = anyio.Event()

            async def attack() -> None:
                try:
                    await attacker.call_tool("run_shell", {"command": f"echo {int(before) + 7} > /proc/sys/fs/lease-break-time; "
                                                                      "python3 flood.py 8 200 6", "timeout_seconds": 8})
                finally:
                    done.set()

            async def probe() -> None:
                while not done.is_set():
                    started = time.monotonic()
                    assert not (await bystander.call_tool("list_dir", {})).is_error
                    await anyio.to_thread.run_sync(_control, port, "GET", "/health")
                    latencies.append(time.monotonic() - started)
                    await anyio.sleep(0.1)

            async with anyio.create_task_group() as group:
                group.start_soon(attack)
                group.start_soon(probe)
        assert LEASE.read_text().strip() == before, "a shell command changed a host kernel setting"
        assert latencies and max(latencies) < 1.0, f"another episode + health took {max(latencies):.1f} s"
    finally:
        if LEASE.read_text().strip() != before:
            LEASE.write_text(before)


# ---------------------------------------------------------------- what grading and teardown cost when an agent makes many files

MANY_FILES = "python3 -c \"import os\nos.makedirs('junk', exist_ok=True)\nfor i in range(20000): open(f'junk/{i:05d}.txt', 'w').write('x' * 2100)\""


@pytest.mark.slow
async def test_many_files_neither_bloat_the_grade_nor_stall_other_episodes_at_teardown():
    """Holes: (1) the grade's state diff listed every added file with 2,000 characters of it: 60,000 small
    files made by one command gave a 121 MB Grade (20,000 here: 42 MB), returned to the trainer and logged
    per rollout; (2) `launch()` rebuilt the workspace for the pool synchronously on the event loop, so an
    in-process farm (envcraft run, LocalFarm) froze every other episode while 20,000+ files were removed."""
    async with LocalFarm() as farm:
        attacker, bystander = await farm.create(mail_task(0)), await farm.create(mail_task(1))
        await farm.call_tool(attacker.id, "run_shell", {"command": MANY_FILES, "timeout_seconds": 20})
        grade = await farm.grade(attacker.id)
        size = len(grade.model_dump_json())
        assert size < 1_000_000, f"the grade is {size / 1e6:.0f} MB"
        latencies: list[float] = []
        done = anyio.Event()

        async def teardown() -> None:
            try:
                await farm.delete(attacker.id)
            finally:
                done.set()

        async def probe() -> None:
            while not done.is_set():
                started = time.monotonic()
                await farm.call_tool(bystander.id, "list_dir", {})
                latencies.append(time.monotonic() - started)
                await anyio.sleep(0.05)

        async with anyio.create_task_group() as group:
            group.start_soon(probe)
            group.start_soon(teardown)
        assert latencies and max(latencies) < 1.0, f"another episode waited {max(latencies):.1f} s during a teardown"
