"""The process sandbox: each command a plain subprocess of the server, in the workspace, under rlimits (and the
episode's cgroup where the host gives one). Development only: it is NOT isolating (the command sees the host's
files and network as the server's user)."""

from __future__ import annotations

from pathlib import Path

from ..shell import Shell


class ProcessShell(Shell):
    name = "process"

    def argv(self, command: str, uid: int | None = None) -> tuple[list[str], Path]:
        return self.host_argv(command)
