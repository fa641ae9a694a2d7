"""Between two commands of an episode the warm sandbox's /tmp is emptied completely, or the sandbox is replaced:
through the agent's own run_shell, on the real bubblewrap sandbox."""

from __future__ import annotations

import os

import pytest
from envcraft.registry.catalog import get
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot
from envcraft_runtime import sandbox_backend

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(sandbox_backend() != "bwrap", reason="the warm sandbox runs on bubblewrap")]

SANDBOX = "cut -d' ' -f22 /proc/1/stat"  # which sandbox: its pid 1 started then (clock ticks since boot)


async def _shell(instance, command: str) -> str:
    result = await instance.client.call_tool("run_shell", {"command": command})
    text = result.content[0].text
    assert "exit code: 0" in text, text
    return text.split("stdout:\n", 1)[1] if "stdout:\n" in text else ""


async def test_a_5000_deep_tree_in_tmp_is_emptied_before_the_next_command(tmp_path):
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        sandbox = await _shell(instance, SANDBOX)
        built = await _shell(instance, "cd /tmp && python3 -c \"import os\nfor _ in range(5000): os.mkdir('d'); os.chdir('d')"
                                       "\nopen('bottom', 'w').write('left')\nprint(len(os.getcwd()))\"; " + SANDBOX)
        assert int(built.split()[0]) > 10_000 and built.split(None, 1)[1] == sandbox  # deeper than PATH_MAX
        after = await _shell(instance, "ls -A /tmp | wc -l; " + SANDBOX)
        assert after.split()[0] == "0", after
        assert after.split("\n", 1)[1] == sandbox, "the cleanup gave up and the sandbox was replaced"


async def test_a_tmp_the_runner_cannot_empty_replaces_the_sandbox(tmp_path):
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        sandbox = await _shell(instance, SANDBOX)
        await _shell(instance, "mkdir -p /tmp/locked/in && echo left > /tmp/locked/in/f && echo left > /tmp/a && "
                               "chmod 000 /tmp/locked/in")
        after = await _shell(instance, "ls -A /tmp | wc -l; " + SANDBOX)
        assert after.split()[0] == "0", after
        assert after.split("\n", 1)[1] != sandbox, "the same sandbox went on after its cleanup failed"


def test_emptying_follows_no_link_and_stops_at_its_budget(tmp_path):
    """The runner's own walk, on a host folder: what a link points at is left alone, and past its budget it stops
    (the runner then asks for a fresh sandbox) instead of unlinking on."""
    from envcraft_runtime.warm_runner import empty

    outside = tmp_path / "outside"
    (outside / "kept").mkdir(parents=True)
    scratch = tmp_path / "scratch"
    deep = scratch.joinpath(*["d"] * 300)
    deep.mkdir(parents=True)
    (deep / "bottom").write_text("left")
    for i in range(50):
        (scratch / f"f{i}").write_text("x")
    (scratch / "to_dir").symlink_to(outside)
    (deep / "to_file").symlink_to(outside / "kept")
    os.mkfifo(scratch / "fifo")
    left = empty(str(scratch), 1_000)
    assert list(scratch.iterdir()) == [] and (outside / "kept").is_dir()
    assert left == 1_000 - (50 + 300 + 4)  # files, folders, the two links, the fifo and the bottom file

    for i in range(50):
        (scratch / f"f{i}").write_text("x")
    with pytest.raises(RuntimeError):
        empty(str(scratch), 10)
