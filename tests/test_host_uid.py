"""A root server's bwrap commands run as an unprivileged host uid of their episode's own, never as host root.

The kernel keeps budgets per host user (epoll watches, pipe pages, POSIX message queue bytes, RLIMIT_NPROC ...):
a sandbox whose uid is host root shares them with every root process on the host, the gateway included, and with
every other episode. The evidence is read on the host side (/proc/PID/status of the command's own process), and by
one episode using up its budgets while another episode and this (root) test process still get theirs.
"""

from __future__ import annotations

import ctypes
import json
import os
import secrets
import shutil
import textwrap
import time
from pathlib import Path

import anyio
import pytest
from envcraft.core.grading import Snapshot
from envcraft.registry.catalog import get
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot
from envcraft_runtime import unprivileged

from tests.test_containment import _host_processes_with

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not shutil.which("bwrap"), reason="bubblewrap is not installed"),
              pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                                 reason="only a root server (with setpriv) runs commands as another uid")]


def _host_uids(pid: int) -> list[int]:
    """Real, effective, saved and filesystem uid of a host pid, as the host's kernel sees them."""
    line = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("Uid:"))
    return [int(value) for value in line.split()[1:]]


def _payloads(mark: str) -> list[int]:
    """Host pids of the command's own `python3 ... MARK` (not bwrap's monitor outside the sandbox, whose command line
    holds a cold command too: a root process that only waits for the sandbox to end)."""
    found = []
    for pid in _host_processes_with(mark):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[0].endswith(b"python3") and mark.encode() in argv[-2:]:
            found.append(pid)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
async def test_commands_run_as_an_unprivileged_host_uid_of_their_episode(warm, tmp_path, monkeypatch):
    """Two episodes' commands, seen from the host while they run: no uid of theirs is 0, and the two differ (one
    budget per episode). What they wrote (a 0700 folder, a 0600 file) the server still grades, resets and deletes."""
    monkeypatch.setenv("ENVCRAFT_WARM_SHELL", "1" if warm else "0")  # read when the episode's shell is made
    marks = {name: f"envcraft-uid-{name}-{secrets.token_hex(4)}" for name in "ab"}
    root = WorkspaceRoot(tmp_path)
    async with launch(get("office"), InProcessLauncher(), root) as a, launch(get("office"), InProcessLauncher(), root) as b:
        episodes = {"a": a, "b": b}
        await a.client.call_tool("write_file", {"path": "notes/by-server.md", "content": "written by the server\n"})
        seen: dict[str, list[list[int]]] = {}

        async def hold(name: str) -> None:
            await episodes[name].client.call_tool("run_shell", {"command": (
                f"echo more >> notes/by-server.md 2>/dev/null; mkdir -m 700 private && echo kept > private/own.txt && "
                f"chmod 600 private/own.txt; python3 -c 'import time; time.sleep(3)' {marks[name]}"),
                "timeout_seconds": 15})

        async with anyio.create_task_group() as group:
            for name in marks:
                group.start_soon(hold, name)
            with anyio.fail_after(10):
                while len(seen) < 2:
                    for name, mark in marks.items():
                        if name not in seen and (pids := _payloads(mark)):
                            seen[name] = [_host_uids(pid) for pid in pids]
                    await anyio.sleep(0.05)
        uids = {name: {uid for found in seen[name] for uid in found} for name in marks}
        assert all(len(found) == 1 and 0 not in found for found in uids.values()), uids
        assert uids["a"] != uids["b"], uids  # each episode its own per-user budget
        [uid] = uids["a"]
        assert (a.workspace / "private" / "own.txt").stat().st_uid == uid
        assert (a.workspace / "notes" / "by-server.md").read_text() == "written by the server\nmore\n"  # handed over
        assert Snapshot.of(a.workspace).files["private/own.txt"] == "kept\n"  # grading reads the uid's files
        a.reset()
        assert not (a.workspace / "private").exists() and not (a.workspace / "notes" / "by-server.md").exists()
    assert Snapshot.of(a.workspace).files  # rebuilt for the pool over what the uid owned
    root.close()
    assert not a.workspace.exists() and not b.workspace.exists()  # and deletes it


# Episode A's command: message queues (RLIMIT_MSGQUEUE bytes, per user) until the kernel refuses one, and pipes grown
# to 1 MiB (fs.pipe-user-pages-soft, per user) until it refuses one, both bounded; then it holds them for a while.
# Nothing here is memory: a queue's and a pipe's pages are allocated when written to, the budgets count capacity.
EXHAUST = textwrap.dedent("""
    import ctypes, fcntl, json, os, time
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    queues, queue_error = 0, None
    for i in range(40):
        fd = rt.mq_open(b"/budget-%d" % i, os.O_CREAT | os.O_RDWR, 0o600, None)
        if fd < 0:
            queue_error = ctypes.get_errno()
            break
        os.close(fd)
        queues += 1
    pipes, pipe_error = [], None
    for i in range(100):
        r, w = os.pipe()
        try:
            fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ
        except OSError as e:
            pipe_error = e.errno
            break
        pipes.append((r, w))
    json.dump({"queues": queues, "queue_error": queue_error, "pipes": len(pipes), "pipe_error": pipe_error},
              open("held.json", "w"))
    time.sleep(5)
""")

# What another episode (and this host process) asks for meanwhile: one queue, and one pipe grown to 1 MiB.
PROBE = ("python3 -c \"import ctypes, fcntl, os; rt = ctypes.CDLL('librt.so.1', use_errno=True); "
         "fd = rt.mq_open(b'/probe', os.O_CREAT | os.O_RDWR, 0o600, None); print('queue', fd >= 0, ctypes.get_errno()); "
         "r, w = os.pipe(); print('pipe', fcntl.fcntl(w, 1031, 1 << 20))\"")


def _host_root_makes_a_queue() -> bool:
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    name = f"/envcraft-probe-{secrets.token_hex(4)}".encode()
    fd = rt.mq_open(name, os.O_CREAT | os.O_RDWR, 0o600, None)
    if fd >= 0:
        os.close(fd)
        rt.mq_unlink(name)
    return fd >= 0


@pytest.mark.slow
async def test_one_episode_using_up_its_per_user_budgets_leaves_others_and_host_root_theirs(tmp_path):
    """Episode A takes all the message-queue bytes and pipe pages its user may have (the kernel refuses it more);
    while it holds them, episode B still makes a queue and a 1 MiB pipe, and so does this root process (a queue:
    RLIMIT_MSGQUEUE binds root too). With one uid for both episodes, B got neither (seen: EMFILE, EPERM)."""
    root = WorkspaceRoot(tmp_path)
    async with launch(get("office"), InProcessLauncher(), root) as a, launch(get("office"), InProcessLauncher(), root) as b:
        await a.client.call_tool("write_file", {"path": "exhaust.py", "content": EXHAUST})
        await b.client.call_tool("run_shell", {"command": "true"})  # B's sandbox is up before A holds anything
        async with anyio.create_task_group() as group:
            group.start_soon(a.client.call_tool, "run_shell", {"command": "python3 exhaust.py", "timeout_seconds": 15})
            with anyio.fail_after(10):
                while not (a.workspace / "held.json").exists() or not (a.workspace / "held.json").read_text():
                    await anyio.sleep(0.05)
            held = json.loads((a.workspace / "held.json").read_text())
            probe = (await b.client.call_tool("run_shell", {"command": PROBE})).content[0].text
            host_root_ok = _host_root_makes_a_queue()
        # A really reached its user's limits: EMFILE (24) for queues, EPERM (1) for pipe pages, well inside our bounds
        assert held["queue_error"] == 24 and held["queues"] >= 5, held
        assert held["pipe_error"] == 1 and held["pipes"] >= 16, held
        assert "queue True" in probe and "pipe 1048576" in probe, probe
        assert host_root_ok


# Swaps race/a (a real folder the server keeps writing files into) with race/b (a symlink to a host folder, which the
# server would resolve on the HOST) with renameat2(RENAME_EXCHANGE), as fast as it can, for `seconds`.
SWAP = textwrap.dedent("""
    import ctypes, sys, time
    libc = ctypes.CDLL(None, use_errno=True)
    swaps, end = 0, time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:
        for _ in range(200):
            swaps += libc.renameat2(-100, b"race/a", -100, b"race/b", 2) == 0
    print("swaps", swaps)
""")


@pytest.mark.slow
async def test_handing_the_workspace_over_never_chowns_a_host_file_through_a_swapped_symlink(tmp_path):
    """Before every command the server (root) chowns what it wrote to the episode's uid, while the episode's other
    commands may be running: one swaps a folder of root-owned files with a symlink to a host folder holding files of
    the same names. A walk that chowned by path name followed the symlink and gave host files to the episode's uid
    (seen: most of the 40 in one run); walking by descriptors with O_NOFOLLOW never leaves the workspace."""
    host = tmp_path / "host"
    host.mkdir()
    for index in range(40):
        (host / f"f{index}.txt").write_text("host file")
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path / "ws")) as instance:
        ws = instance.workspace
        (ws / "race" / "a").mkdir(parents=True)
        (ws / "race" / "b").symlink_to(host)
        await instance.client.call_tool("write_file", {"path": "swap.py", "content": SWAP})
        done = anyio.Event()
        swapped: list[str] = []
        handed = {"commands": 0, "writes": 0}

        async def swapper() -> None:
            swapped.append((await instance.client.call_tool("run_shell", {"command": "python3 swap.py 5",
                                                                          "timeout_seconds": 15})).content[0].text)
            done.set()

        async def server_writes_and_commands_start() -> None:
            while not done.is_set():
                for index in range(40):  # root-owned files in race/a (refused while race/a is the symlink)
                    written = await instance.client.call_tool("write_file", {"path": f"race/a/f{index}.txt", "content": "x"})
                    handed["writes"] += not written.is_error
                await instance.client.call_tool("run_shell", {"command": "true"})  # each hands the workspace over
                handed["commands"] += 1

        async with anyio.create_task_group() as group:
            group.start_soon(swapper)
            group.start_soon(server_writes_and_commands_start)
        assert "swaps " in swapped[0] and int(swapped[0].split("swaps ")[1].split()[0]) > 10_000, swapped  # it raced
        assert handed["commands"] >= 3 and handed["writes"] >= 40, handed
        owners = {path.name: path.lstat().st_uid for path in [host, *host.iterdir()]}
        assert set(owners.values()) == {0}, owners


def test_hand_over_skips_unchanged_folders_yet_claims_whatever_the_server_wrote_since(tmp_path):
    """The walk before each command lists only folders changed since it last listed them (a workspace of 20,000
    files cost 280 ms per command). Whatever the server writes, anywhere and however deep, changes its folder, so
    the next walk still gives it to the uid; a folder it lists in full it records, one it does not, it lists again."""
    uid = 1_990_000_321
    for folder in ("a/b/c", "d"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "seed.txt").write_text("seed")
    listed = unprivileged.Listed()
    unprivileged.hand_over(tmp_path, uid, listed)
    folders = [tmp_path, tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "c", tmp_path / "d"]
    deadline = time.monotonic() + 5
    # The walk trusts a folder once its ctime is past the clock's granularity (_SETTLED_NS): wait for exactly that.
    while time.time_ns() - max(f.stat().st_ctime_ns for f in folders) <= unprivileged._SETTLED_NS:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    unprivileged.hand_over(tmp_path, uid, listed)
    assert len(listed.folders) == 5  # the workspace, a, a/b, a/b/c, d: all recorded, none to list again
    (tmp_path / "a" / "b" / "c" / "server.txt").write_text("written by the server after the walk")
    (tmp_path / "d" / "new").mkdir()
    (tmp_path / "d" / "new" / "deeper.txt").write_text("and deeper")
    unprivileged.hand_over(tmp_path, uid, listed)
    owners = {str(path.relative_to(tmp_path)): path.lstat().st_uid for path in tmp_path.rglob("*")}
    assert set(owners.values()) == {uid}, owners


@pytest.mark.skipif(not unprivileged.available(), reason="needs a root test process with setpriv")
def test_doctor_says_whose_budgets_commands_spend(tmp_path: Path) -> None:
    """`envcraft doctor` names the uid commands run as, and says so plainly where it is host root (no setpriv)."""
    import subprocess
    import sys

    def doctor(path: str) -> str:
        ran = subprocess.run([sys.executable, "-m", "envcraft.cli", "doctor"], capture_output=True, text=True,
                             env={**os.environ, "PATH": path}, timeout=120)
        return next(line for line in ran.stdout.splitlines() if "command uid" in line)

    assert doctor(os.environ["PATH"]).startswith("ok ") and "unprivileged host uid" in doctor(os.environ["PATH"])
    bare = tmp_path / "bin"  # every tool doctor needs but setpriv
    bare.mkdir()
    for tool in ("bwrap", "docker", "mount", "umount"):
        if found := shutil.which(tool):
            (bare / tool).symlink_to(found)
    line = doctor(str(bare))
    assert line.startswith("NO ") and "host root" in line
