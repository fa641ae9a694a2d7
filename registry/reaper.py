"""What a registry killed without cleaning up leaves behind, found and removed by the next start.

Run folders carry their registry's pid (registry/workspaces.py); shell cgroups are reaped here
when empty and older than a minute (a fresh one may be empty for an instant before its command
enters it); Docker containers carry a run label (registry/docker_launcher.py).
"""

from __future__ import annotations

import time
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


def reap_cgroups(min_age: float = 60.0) -> int:
    """Episode envelopes of dead servers (envcraft_runtime's layout), then the older flat per-command groups."""
    from envcraft_runtime.cgroups import reap

    removed = reap()
    now = time.time()
    for controller in ("pids", "memory"):
        parent = CGROUP_ROOT / controller / "envcraft"
        if not parent.is_dir():
            continue
        for group in parent.iterdir():
            if not group.is_dir():
                continue
            try:
                if (group / "cgroup.procs").read_text().strip() or now - group.stat().st_mtime < min_age:
                    continue
                group.rmdir()
                removed += 1
            except OSError:
                continue
    return removed
