"""Attacks on the file tools, run through an episode's own MCP tools (bwrap shell), checked on evidence:
a host secret's content is never returned, no host file is created, the app state the grader reads is
untouched, and another episode keeps answering while one episode attacks."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest
from envcraft.core.grading import Snapshot
from envcraft.registry.catalog import get
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not shutil.which("bwrap"), reason="bubblewrap is not installed: apt-get install bubblewrap")]

# Swaps a real folder with a symlink (to the sandbox's "/", which the server would resolve on the HOST,
# and to .app) with renameat2(RENAME_EXCHANGE), as fast as it can, for `seconds`.
SWAPPER = textwrap.dedent("""
    import ctypes, os, sys, time
    libc = ctypes.CDLL(None, use_errno=True)
    seconds, pairs = float(sys.argv[1]), [("race", "race.link"), ("race2", "race2.link")]
    swaps, end = 0, time.monotonic() + seconds
    print("swapping", flush=True)
    while time.monotonic() < end:
        for a, b in pairs:
            for _ in range(200):
                swaps += libc.renameat2(-100, a.encode(), -100, b.encode(), 2) == 0
    print("swaps", swaps)
""")


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "absent"


@pytest.fixture
def host_secret(tmp_path_factory):
    folder = tmp_path_factory.mktemp("host-secret")
    token = "HOST-SECRET-" + secrets.token_hex(16)
    (folder / "secret.txt").write_text(token)
    return folder, token


@pytest.mark.slow
async def test_symlink_race_never_reaches_outside_the_workspace(tmp_path, host_secret):
    secret_dir, token = host_secret
    rel_secret = str(secret_dir / "secret.txt").lstrip("/")
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path / "ws")) as instance:
        ws = instance.workspace
        # Both sides of each swap hold plausible content, so every call has something to read or write.
        (ws / "race" / os.path.dirname(rel_secret)).mkdir(parents=True)
        (ws / "race" / rel_secret).write_text("decoy inside the workspace")
        (ws / "race2").mkdir()
        (ws / "race.link").symlink_to("/")
        (ws / "race2.link").symlink_to(".app")
        (ws / "swapper.py").write_text(SWAPPER)
        state_before, answer_before = _digest(ws / ".app" / "state.json"), _digest(ws / ".app" / "answer.json")
        forged = json.dumps({"mails": [], "forged": True})
        seen: list[str] = []
        calls = {"n": 0}
        done = anyio.Event()

        async def swapper() -> None:
            # Two 6 s runs: one command's CPU rlimit (10 s) would kill a 12 s busy loop before it reports.
            for _ in range(2):
                result = await instance.client.call_tool("run_shell", {"command": "python3 swapper.py 6", "timeout_seconds": 20})
                seen.append(result.content[0].text)
            done.set()

        async def hammer(worker: int) -> None:
            while not done.is_set():
                n = calls["n"] = calls["n"] + 1
                for name, args in (("read_file", {"path": f"race/{rel_secret}"}),
                                   ("write_file", {"path": f"race/{os.path.dirname(rel_secret)}/made-{worker}-{n}.txt",
                                                   "content": "x"}),
                                   ("write_file", {"path": "race2/state.json", "content": forged}),
                                   ("write_file", {"path": "race2/answer.json", "content": '{"answer": "forged"}'}),
                                   ("grep", {"pattern": "HOST-SECRET", "path": "race"})):
                    result = await instance.client.call_tool(name, args)
                    seen.append(" ".join(getattr(c, "text", "") for c in result.content))

        async with anyio.create_task_group() as group:
            group.start_soon(swapper)
            for worker in range(3):
                group.start_soon(hammer, worker)
        swaps = sum(int(s.split("swaps")[1].split()[0]) for s in seen if "swaps " in s)
        assert swaps > 10_000, "the swapper did not really race"
        assert calls["n"] > 30, "too few file-tool calls ran during the race"
        assert not any(token in text for text in seen), "a host secret's content came back through a file tool"
        assert not list(secret_dir.glob("made-*")), "a file tool created a file on the host"
        assert _digest(ws / ".app" / "state.json") == state_before, "the app state changed through a file tool"
        assert _digest(ws / ".app" / "answer.json") == answer_before
        assert "forged" not in json.dumps(Snapshot.of(ws).tables)


async def test_redos_and_fifos_do_not_freeze_another_episode(tmp_path):
    root = WorkspaceRoot(tmp_path)
    async with launch(get("office"), InProcessLauncher(), root) as attacker, launch(get("office"), InProcessLauncher(), root) as other:
        made = await attacker.client.call_tool("run_shell", {"command": "mkfifo pipe; mkdir -p d; mkfifo d/pipe2; "
                                                             "printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\\n' > evil.txt; ls -l"})
        assert "pipe" in made.content[0].text
        replies: list = []

        async def attack(name: str, args: dict) -> None:
            replies.append((name, await attacker.client.call_tool(name, args)))

        other_answered = anyio.Event()

        async def bystander() -> None:
            with anyio.fail_after(1.0):
                listed = await other.client.call_tool("list_dir", {})
            assert not listed.is_error and "SKILL.md" in listed.content[0].text
            other_answered.set()

        with anyio.fail_after(30):  # a FIFO that blocked a worker would hang here
            async with anyio.create_task_group() as group:
                for _ in range(20):
                    group.start_soon(attack, "grep", {"pattern": "(a+)+$", "path": "evil.txt"})
                    group.start_soon(attack, "grep", {"pattern": "x", "path": "pipe"})
                    group.start_soon(attack, "read_file", {"path": "d/pipe2"})
                    group.start_soon(attack, "grep", {"pattern": "x", "path": "."})
                group.start_soon(bystander)
        assert other_answered.is_set()
        fifo_errors = [r for name, r in replies if r.is_error]
        assert len(fifo_errors) == 40 and all("FIFO" in r.content[0].text for r in fifo_errors)
        redos = [r for name, r in replies if not r.is_error and "evil.txt" in json.dumps(r.structured_content)]
        assert len(redos) == 0  # (a+)+$ does not match a line ending in '!': answered, not hung


@pytest.mark.slow
async def test_deep_trees_leave_grading_reset_and_removal_working(tmp_path):
    root = WorkspaceRoot(tmp_path)
    async with launch(get("office"), InProcessLauncher(), root) as instance:
        ws = instance.workspace
        built = await instance.client.call_tool("run_shell", {"command": (
            "python3 -c \"import os\nfor i in range(1100):\n    os.mkdir('d'); os.chdir('d')\n"
            "open('bottom.txt', 'w').write('deep')\nprint('built')\"")})
        assert "built" in built.content[0].text, built.content[0].text
        deep = "/".join(["w"] * 70) + "/f.txt"
        refused = await instance.client.call_tool("write_file", {"path": deep, "content": "x"})
        assert refused.is_error and "deep" in refused.content[0].text
        ok = await instance.client.call_tool("write_file", {"path": "/".join(["w"] * 60) + "/f.txt", "content": "x"})
        assert not ok.is_error
        for name, args in (("find_files", {"pattern": "*.txt"}), ("grep", {"pattern": "deep"}), ("list_dir", {"path": "d"})):
            result = await instance.client.call_tool(name, args)
            assert not result.is_error, result.content[0].text
        snapshot = Snapshot.of(ws)  # the grader's view: bounded, no RecursionError
        assert "SKILL.md" in snapshot.files and not any(p.endswith("bottom.txt") for p in snapshot.files)
        instance.reset()
        assert not (ws / "d").exists() and (ws / "SKILL.md").exists()
        await instance.client.call_tool("run_shell", {"command": (
            "python3 -c \"import os\nfor i in range(1100):\n    os.mkdir('d'); os.chdir('d')\"")})
    root.close()
    assert not any(root.path.iterdir()) if root.path.exists() else True


async def test_argument_bounds_keep_memory_and_time_flat(tmp_path):
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        rss_before = _rss()
        for _ in range(30):
            result = await instance.client.call_tool("find_files", {"pattern": "*a" * 500_000})
            assert result.is_error and "limit" in result.content[0].text
        for _ in range(5):
            result = await instance.client.call_tool("grep", {"pattern": "(x+x+)+y" * 100_000})
            assert result.is_error and "limit" in result.content[0].text
        assert _rss() - rss_before < 200 * 2**20


async def test_grep_on_one_file_and_edit_of_a_large_file(tmp_path):
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        one = await instance.client.call_tool("grep", {"pattern": "office", "path": "SKILL.md"})
        assert not one.is_error and one.structured_content["result"]
        assert all(line.startswith("SKILL.md:") for line in one.structured_content["result"])
        big = "".join(f"line {i}: {'x' * 60}\n" for i in range(3_000)) + "THE END\n"  # ~200 KB
        await instance.client.call_tool("write_file", {"path": "big.txt", "content": big})
        edited = await instance.client.call_tool("edit_file", {"path": "big.txt", "old_text": "line 5:", "new_text": "LINE 5:"})
        assert not edited.is_error
        assert (instance.workspace / "big.txt").read_text() == big.replace("line 5:", "LINE 5:", 1)


def _rss() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _stdio_call(server: str, workspace, arguments_json: str) -> dict:
    """One raw tools/call over stdio, with the arguments as literal JSON text (NaN is valid for Python's parser)."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    lines = [json.dumps(m) for m in messages]
    lines.append('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": '
                 '{"name": "vendor_bill_register", "arguments": ' + arguments_json + '}}')
    server_proc = subprocess.Popen([sys.executable, server, "--workspace", str(workspace)], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:  # stdin stays open until the reply came: at EOF the server may stop before answering
        server_proc.stdin.write("\n".join(lines) + "\n")
        server_proc.stdin.flush()
        for line in server_proc.stdout:
            reply = json.loads(line) if line.strip() else {}
            if reply.get("id") == 2:
                return reply
        raise AssertionError("the server closed without answering the call")
    finally:
        server_proc.kill()
        server_proc.wait()


@pytest.mark.slow
@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_are_refused_over_stdio_and_the_cli(tmp_path, number):
    env = get("accounts_payable_desk")
    workspace = tmp_path / "ws"
    shutil.copytree(env.seed, workspace)
    before = _digest(workspace / ".app" / "state.json")
    reply = _stdio_call(str(env.entrypoint), workspace, '{"bill_number": "B-9", "supplier_id": "sup-0001", '
                        '"purchase_order_id": "po-0001", "amount": ' + number + ', "due_date": "2026-12-20"}')
    assert reply["result"]["isError"] and "finite" in reply["result"]["content"][0]["text"]
    cli = subprocess.run([str(env.folder / "bin" / "apdesk"), "vendor-bill-register", "--bill-number", "B-9",
                          "--supplier-id", "sup-0001", "--purchase-order-id", "po-0001", f"--amount={number.lower()}",
                          "--due-date", "2026-12-20"], env={"PATH": os.environ["PATH"], "ENVCRAFT_WORKSPACE": str(workspace)},
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 2 and "finite" in cli.stderr
    assert _digest(workspace / ".app" / "state.json") == before



async def test_workspace_disk_and_file_quota(tmp_path, monkeypatch):
    from envcraft.registry import quota
    from envcraft.registry.settings import Settings

    monkeypatch.setenv("ENVCRAFT_WORKSPACE_QUOTA", "1")
    if not quota.enabled():
        pytest.skip(f"no workspace quota on this host: {quota.describe()}")
    root = WorkspaceRoot(tmp_path)
    async with launch(get("office"), InProcessLauncher(), root) as instance:
        files = await instance.client.call_tool("run_shell", {"command": (
            "mkdir many && cd many && i=0; while [ $i -lt 30000 ]; do true > f$i || break; i=$((i+1)); done; echo made $i"),
            "timeout_seconds": 20})
        made = int(files.content[0].text.split("made ")[1].split()[0])
        assert made < Settings.from_env().workspace_files, files.content[0].text[-500:]  # the file count hit the quota
        full = await instance.client.call_tool("write_file", {"path": "note.txt", "content": "x"})
        assert full.is_error and "workspace is full" in full.content[0].text
        await instance.client.call_tool("run_shell", {"command": "rm -rf many"})
        blocks = await instance.client.call_tool("run_shell", {"command": (
            "for i in 1 2 3 4 5 6; do head -c 60000000 /dev/zero > big$i || break; done; du -sm . | cut -f1")})
        used = int(blocks.content[0].text.split("stdout:\n")[1].split()[0])
        assert used <= Settings.from_env().workspace_mb, blocks.content[0].text  # 360 MB asked, the size quota held
        os_view = os.statvfs(instance.workspace)
        assert os_view.f_blocks * os_view.f_frsize <= Settings.from_env().workspace_mb * 2**20
        again = await instance.client.call_tool("write_file", {"path": "note.txt", "content": "x" * 1000})
        assert again.is_error and "workspace is full" in again.content[0].text
        instance.reset()  # the episode's workspace comes back clean, still under its quota
        assert not (instance.workspace / "big1").exists() and (instance.workspace / "SKILL.md").exists()
    root.close()
    mounts = Path("/proc/self/mountinfo").read_text()
    assert str(tmp_path) not in mounts  # nothing left mounted
