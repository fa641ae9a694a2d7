"""Where an episode's shell commands run: one module per sandbox, each a Shell subclass, chosen by name from
SANDBOXES (the runtime settings' `sandbox`, ENVCRAFT_SANDBOX).

- bwrap.py: bubblewrap namespaces (no network, read-only system, only the workspace writable); the default where
  bwrap is installed;
- container.py: inside the docker launcher's container, each command under a uid of its own;
- process.py: plain subprocesses under rlimits; development only, NOT isolating.

Adding a sandbox is adding a module here with a Shell subclass (its `argv`, and `_run` where commands run some
other way) and its line in SANDBOXES; the settings name it in settings.SANDBOXES (a test keeps the two equal).
"""

from __future__ import annotations

from pathlib import Path

from ..limits import Limits
from ..opsocket import Handler
from ..settings import RuntimeSettings
from ..settings import current as current_settings
from ..shell import Shell
from .bwrap import BwrapShell
from .container import ContainerShell
from .process import ProcessShell

SANDBOXES: dict[str, type[Shell]] = {"bwrap": BwrapShell, "container": ContainerShell, "process": ProcessShell}


def open_shell(workspace: Path, env_dir: Path, cli_name: str | None, limits: Limits = Limits(), *,
               sandbox: str | None = None, operations: Handler | None = None,
               settings: RuntimeSettings | None = None) -> Shell:
    """The shell of one episode's workspace, in `sandbox` (by default the one the runtime's settings choose)."""
    settings = settings or current_settings()
    name = sandbox or settings.backend()
    if name not in SANDBOXES:
        raise ValueError(f"sandbox {name!r}: use one of {', '.join(sorted(SANDBOXES))}")
    return SANDBOXES[name](workspace, env_dir, cli_name, limits, operations=operations, settings=settings)


__all__ = ["SANDBOXES", "BwrapShell", "ContainerShell", "ProcessShell", "open_shell"]
