"""Where the environments and their tasks live: servers/ and tasks/ beside the packages, in a checkout
(the repository root) and in an installed wheel alike (pyproject maps them to envcraft/servers, envcraft/tasks)."""

from __future__ import annotations

from pathlib import Path

HOME = Path(__file__).resolve().parent.parent
SERVERS = HOME / "servers"
TASKS = HOME / "tasks"
