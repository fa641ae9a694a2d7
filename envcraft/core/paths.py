"""Where the environments and their tasks live: servers/ and tasks/ beside the packages. In an installed wheel
pyproject puts them inside the package (envcraft/servers, envcraft/tasks); in a checkout they are at the repository
root, beside envcraft/."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent  # envcraft/
HOME = PACKAGE if (PACKAGE / "servers").is_dir() else PACKAGE.parent  # the wheel's package, or the checkout's root
SERVERS = HOME / "servers"
TASKS = HOME / "tasks"
