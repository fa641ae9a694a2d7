"""The sandbox's /proc/self/mountinfo names host folders, and knowing them gives the agent nothing.

A bind mount always shows its source's path within its own filesystem (the fourth field): the
environment folder and the runtime in the repository, the interpreter, and a workspace outside the
registry's run folders (those are a tmpfs each, shown as `/`). Hiding them would mean copying each
onto a filesystem of its own. Here an agent reads those names, then tries every folder on their
way up for what lies beside them: a host secret planted next to the workspace must not come back,
under bubblewrap and in a Docker container."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from envcraft.registry import quota
from envcraft.registry.catalog import get
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot

from tests.helpers import REPO
from tests.test_docker_backend import PROBLEM as DOCKER_PROBLEM

pytestmark = pytest.mark.anyio

# Every host folder the mount table names where it is not mounted at its own path, and every folder
# above it, listed and read.
FOLLOW = """
import os
shown = {fields[3] for fields in map(str.split, open("/proc/self/mountinfo")) if fields[3] not in ("/", fields[4])}
print("shown:", *sorted(shown))
for path in sorted(shown):
    while path != "/":
        try:
            names = os.listdir(path)
        except OSError as exc:
            print("unreachable:", path, exc.strerror)
        else:
            for name in names:
                try:
                    print(name, open(os.path.join(path, name), errors="replace").read(200))
                except OSError:
                    pass
        path = os.path.dirname(path)
"""


def _launcher(backend: str):
    if backend == "bwrap":
        if not shutil.which("bwrap"):
            pytest.skip("bubblewrap is not installed: apt-get install bubblewrap")
        return InProcessLauncher()
    if DOCKER_PROBLEM:
        pytest.skip(DOCKER_PROBLEM)
    from envcraft.registry.docker_launcher import DockerLauncher

    return DockerLauncher()


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["bwrap", "docker"])
async def test_host_paths_in_the_mount_table_lead_nowhere(backend, tmp_path):
    launcher = _launcher(backend)
    secret = os.urandom(16).hex()
    (tmp_path / "host-secret.txt").write_text(secret)
    async with launch(get("office"), launcher, WorkspaceRoot(tmp_path / "runs")) as instance:
        await instance.client.call_tool("write_file", {"path": "follow.py", "content": FOLLOW})
        result = await instance.client.call_tool("run_shell", {"command": "python3 follow.py"})
        text = result.content[0].text
        assert "exit code: 0" in text and "shown:" in text, text[-2000:]
        shown = text.split("shown:")[1].splitlines()[0].split()
        # The names are there: the environment folder in the checkout, and the workspace unless it is a
        # tmpfs of its own (its quota; then it shows as `/`)...
        names = [str(get("office").folder.resolve())]
        if str(instance.workspace.resolve()) not in quota.mount_points("tmpfs"):
            names.append(str(instance.workspace.resolve()))
        assert set(names) <= set(shown), shown
        # ...and lead nowhere: nothing beside them is readable, no folder above them is there.
        assert secret not in text
        assert REPO.joinpath("README.md").read_text()[:60] not in text
        for name in names:
            assert f"unreachable: {Path(name).parent.parent}" in text, text[-2000:]
