"""A workspace with a quota is a tmpfs mount, and `shutil.rmtree` cannot remove a mount point:
the folder holding such workspaces can still be removed, by the same process once its root is
closed, and after a registry killed outright once the next one starts."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from envcraft.registry import quota
from envcraft.registry.catalog import get
from envcraft.registry.workspaces import WorkspaceRoot

from tests.helpers import REPO


@pytest.fixture
def quota_everywhere(monkeypatch):
    monkeypatch.setenv("ENVCRAFT_WORKSPACE_QUOTA", "1")
    if not quota.enabled() or not quota.probe():
        pytest.skip(f"no workspace quota on this host: {quota.describe()}")


def _tmpfs_at(path: Path) -> bool:
    return str(path) in quota.mount_points("tmpfs")


def test_a_closed_root_leaves_a_folder_rmtree_removes(quota_everywhere):
    env = get("office")
    with tempfile.TemporaryDirectory(prefix="envcraft-test-") as tmp, WorkspaceRoot(Path(tmp)) as root:
        workspace = root.checkout(env.name, env.seed)
        root.checkin(env.seed, workspace)  # pooled: still mounted until the root closes
        assert _tmpfs_at(workspace)
    assert not Path(tmp).exists() and not _tmpfs_at(workspace)


def test_the_audit_runs_with_the_quota_in_its_own_folder(quota_everywhere):
    from envcraft.generator.audit.audit import audit

    report = audit(REPO / "servers" / "office")
    assert report.passed, [f.message for f in report.findings if f.severity == "error"]


HOLDER = """
import os, pathlib, sys, time
os.environ["ENVCRAFT_WORKSPACE_QUOTA"] = "1"
from envcraft.registry.catalog import get
from envcraft.registry.workspaces import WorkspaceRoot
env = get("office")
print(WorkspaceRoot(pathlib.Path(sys.argv[1])).checkout(env.name, env.seed), flush=True)
time.sleep(120)
"""


def test_a_killed_registrys_workspace_mounts_go_at_the_next_start(quota_everywhere, tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(HOLDER), str(tmp_path / "theirs")],
                              cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        workspace = Path(holder.stdout.readline().strip())
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
    assert _tmpfs_at(workspace), "the killed registry's workspace was not a mount: nothing to test"
    with pytest.raises(OSError):  # what a caller's cleanup meets today
        shutil.rmtree(tmp_path / "theirs")
    WorkspaceRoot(tmp_path / "mine").close()  # any start reaps
    assert not _tmpfs_at(workspace)
    shutil.rmtree(tmp_path / "theirs")
