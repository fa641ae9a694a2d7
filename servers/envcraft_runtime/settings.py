"""The runtime's settings: how an environment server's shell is contained and how its tools are registered.

How they reach a server depends on who runs it, and nothing else carries them:
- in the host's own process (the in-process launcher, the gateway, `envcraft run`), the host passes them in with
  `configure(RuntimeSettings(...))` before it builds a server; the host never writes them into its environment;
- in a process of its own (a stdio child, the server in a container, `python server.py`), they are read from
  that process's environment, here and nowhere else (`RuntimeSettings.from_environ`); the launcher that starts
  the process writes them into the child's environment (`to_environ`), never into its own.
With neither, a server takes the defaults below, overridden by its own environment.

Standard library only, like the rest of the runtime: a packed server has nothing else.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass

SANDBOXES = ("bwrap", "process", "container")  # the names of sandboxes.SANDBOXES (not imported: it imports this)
CONTAINMENTS = ("", "rlimits", "refuse")

# field -> (variable, what it means): the README's reference table lists the same, and a test keeps them so.
VARIABLES = {
    "sandbox": ("ENVCRAFT_SANDBOX", "where shell commands run: bwrap, process (NOT isolating), container (set "
                                    "inside the docker launcher's containers) or auto (bwrap where installed)"),
    "warm_shell": ("ENVCRAFT_WARM_SHELL", "0: a new bwrap per command instead of one warm sandbox per episode"),
    "warm_idle_seconds": ("ENVCRAFT_WARM_IDLE", "seconds a warm sandbox waits idle before it ends (60)"),
    "containment": ("ENVCRAFT_CONTAINMENT", "rlimits: accept rlimits alone where no cgroup or episode uid can be "
                                            "had; refuse: refuse to run commands there (default: an episode uid)"),
    "cgroups": ("ENVCRAFT_CGROUPS", "off: use no cgroup, as on a host that gives none"),
    "tool_cache": ("ENVCRAFT_TOOL_CACHE", "0: register every tool through the SDK's own path (no schema cache)"),
    "cache_dir": ("ENVCRAFT_CACHE_DIR", "where tool schemas are cached (default $XDG_CACHE_HOME/envcraft or "
                                        "~/.cache/envcraft)"),
    "uid_claims": ("ENVCRAFT_EPISODE_UID_CLAIMS", "the folder where servers on this host claim episode uids "
                                                  "(default /run/envcraft-episode-uids)"),
    "run_marker": ("ENVCRAFT_RUN_MARKER", "a tag every process of a run carries in its environment, so they can "
                                          "be found (the tests use it)"),
    "uid_base": ("ENVCRAFT_UID_BASE", "inside a docker launcher's container: the first uid of the block the "
                                      "launcher claimed for it (set by the launcher)"),
}
# Set by a server into the environment of a command it starts (the environment's CLI reads them): a channel from
# the server to its own command, not a setting.
CHANNELS = {
    "ENVCRAFT_WORKSPACE": "the workspace the environment's CLI acts on, inside a shell command",
    "ENVCRAFT_OPS_SOCKET": "the socket through which the environment's CLI asks the server to act, inside a command",
}


@dataclass(frozen=True)
class RuntimeSettings:
    sandbox: str = "auto"
    warm_shell: bool = True
    warm_idle_seconds: float = 60.0
    containment: str = ""
    cgroups: bool = True
    tool_cache: bool = True
    cache_dir: str | None = None
    uid_claims: str | None = None
    run_marker: str | None = None
    uid_base: str | None = None

    def __post_init__(self) -> None:
        if self.sandbox not in ("auto", *SANDBOXES):
            raise ValueError(f"sandbox {self.sandbox!r}: use bwrap, process or auto (container is set inside the "
                             "docker launcher's containers; to run servers in containers, use the docker launcher)")
        if self.containment not in CONTAINMENTS:
            raise ValueError(f"containment {self.containment!r}: use rlimits, refuse, or leave it unset")
        if not self.warm_idle_seconds > 0:
            raise ValueError(f"warm_idle_seconds {self.warm_idle_seconds!r}: give a number of seconds above 0")

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> RuntimeSettings:
        """The defaults, overridden by the ENVCRAFT_* variables set in `environ` (this process's by default)."""
        environ = os.environ if environ is None else environ
        given = {field: environ[variable] for field, (variable, _) in VARIABLES.items() if environ.get(variable)}
        try:
            return cls(**{field: _parse(field, text) for field, text in given.items()})
        except ValueError as exc:
            names = ", ".join(f"{VARIABLES[f][0]}={t!r}" for f, t in given.items())
            raise ValueError(f"{exc} (from the environment: {names})") from None

    def to_environ(self) -> dict[str, str]:
        """The variables that give a child process these settings (only those that differ from the defaults)."""
        default = RuntimeSettings()
        return {VARIABLES[f.name][0]: _text(f.name, getattr(self, f.name)) for f in dataclasses.fields(self)
                if getattr(self, f.name) != getattr(default, f.name)}

    def marker_environ(self) -> dict[str, str]:
        """The run's marker, for the environment of a process the server starts."""
        return {VARIABLES["run_marker"][0]: self.run_marker} if self.run_marker else {}

    def backend(self) -> str:
        """The sandbox shell commands run in: `auto` resolved on this host."""
        if self.sandbox == "auto":
            return "bwrap" if shutil.which("bwrap") and sys.platform == "linux" else "process"
        return self.sandbox

    def replace(self, **changes: object) -> RuntimeSettings:
        return dataclasses.replace(self, **changes)


def _parse(field: str, text: str) -> object:
    if field in ("warm_shell", "tool_cache"):
        return text != "0"
    if field == "cgroups":
        return text != "off"
    if field == "warm_idle_seconds":
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"warm_idle_seconds {text!r}: give a number of seconds") from None
    return text


def _text(field: str, value: object) -> str:
    if field == "cgroups":
        return "on" if value else "off"
    if isinstance(value, bool):
        return "1" if value else "0"
    return f"{value:g}" if isinstance(value, float) else str(value)


_configured: RuntimeSettings | None = None


def configure(settings: RuntimeSettings | None) -> None:
    """The settings every server of this process uses from now on (None: back to this process's environment).
    A host calls this before it builds servers in its own process."""
    global _configured
    _configured = settings


def configured() -> RuntimeSettings | None:
    """What the host passed in, if it did."""
    return _configured


def current() -> RuntimeSettings:
    """What the host passed in (`configure`), else the defaults overridden by this process's environment."""
    return _configured if _configured is not None else RuntimeSettings.from_environ()
