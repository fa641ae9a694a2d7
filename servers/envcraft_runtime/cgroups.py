"""Per-command cgroups: a fork or memory bomb hits a wall, not the host."""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from pathlib import Path

from .limits import Limits


class CommandCgroup:
    """Per-command cgroup (v1 pids + memory) so a fork or memory bomb hits a wall, not the host."""

    ROOT = Path("/sys/fs/cgroup")

    def __init__(self, limits: Limits):
        self.paths: list[Path] = []
        name = f"envcraft/{uuid.uuid4().hex[:12]}"
        for controller, setting, value in (
            ("pids", "pids.max", str(limits.processes)),
            ("memory", "memory.limit_in_bytes", str(limits.memory_mb * 2**20)),
        ):
            path = self.ROOT / controller / name
            try:
                path.mkdir(parents=True)
                (path / setting).write_text(value)
                self.paths.append(path)
            except OSError:
                continue

    def enter(self) -> None:
        """Called in the child between fork and exec."""
        for path in self.paths:
            (path / "cgroup.procs").write_text("0")

    def destroy(self) -> None:
        for path in self.paths:
            for _ in range(50):
                pids = (path / "cgroup.procs").read_text().split() if path.exists() else []
                for pid in pids:
                    with contextlib.suppress(ProcessLookupError, ValueError):
                        os.kill(int(pid), signal.SIGKILL)
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
