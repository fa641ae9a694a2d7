"""Which processes still reach a workspace: how an episode's end is verified before its folder is handed on.

Every sandbox of every backend (a warm or cold bwrap sandbox, a Docker container) binds the episode's workspace
into a mount namespace of its own, so a process that can still act on the folder shows it in
/proc/PID/mountinfo: a mount of the workspace's file system whose root is the workspace folder (or a folder in
it, as `.app/` is bound on its own). The registry's own mount namespace (and a copy of it, which shows the folder
where it is on the host, or there under a new root while bwrap sets a sandbox up) is not such a holder. The scan
reads each mount namespace once, whatever the number of processes in it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path


class StillHeld(RuntimeError):
    """Processes of an ended episode still reach its workspace: the folder must not be handed on."""


def _unescape(field: str) -> str:
    """mountinfo escapes space, tab, newline and backslash as octal."""
    return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def _mounts(pid: int | str) -> list[tuple[str, str, str]]:
    """(major:minor, root within its file system, mount point) of each mount `pid` sees."""
    found = []
    with open(f"/proc/{pid}/mountinfo") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 5:
                found.append((fields[2], _unescape(fields[3]), _unescape(fields[4])))
    return found


def _identity(workspace: Path) -> tuple[str, str]:
    """(major:minor, the folder's path within its file system), as a bind mount of it shows them."""
    info = os.stat(workspace)
    device = f"{os.major(info.st_dev)}:{os.minor(info.st_dev)}"
    path = str(workspace.resolve())
    best = ("", "/")
    for dev, root, point in _mounts("self"):
        if dev == device and (path == point or path.startswith(point.rstrip("/") + "/")) and len(point) >= len(best[0]):
            best = (point, root)
    point, root = best
    inside = path[len(point):].lstrip("/") if point else path.lstrip("/")
    return device, os.path.normpath(os.path.join(root, inside))


def holders(workspace: Path) -> list[int]:
    """Host pids of processes in another mount namespace that have `workspace` (or a folder in it) mounted."""
    try:
        device, inside = _identity(Path(workspace))
    except OSError:
        return []
    host_path = str(Path(workspace).resolve())
    ours = os.readlink("/proc/self/ns/mnt")
    by_namespace: dict[str, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                by_namespace.setdefault(os.readlink(f"/proc/{name}/ns/mnt"), []).append(int(name))
    found = []
    for namespace, pids in by_namespace.items():
        if namespace == ours:
            continue
        for pid in pids:  # the first whose mountinfo can be read speaks for its namespace
            try:
                mounts = _mounts(pid)
            except OSError:
                continue
            if any(dev == device and (root == inside or root.startswith(inside.rstrip("/") + "/"))
                   and not _hosts_own(root, point, inside, host_path) for dev, root, point in mounts):
                found += pids
            break
    return found


def _hosts_own(root: str, point: str, inside: str, host_path: str) -> bool:
    """The mount is the host's own mount of the folder, seen from a copy of the host's mount namespace: at its host
    place, or at that place under a new root. A sandbox being set up (bwrap) starts as such a copy and holds the
    host's tree under its old root until it drops it; the folder it binds for its commands is mounted elsewhere
    (/workspace). Counted as a holder, every sandbox starting anywhere on the host while a folder was released was
    killed: its command failed with exit code 137, or the warm sandbox could not start it."""
    if point == host_path or point.startswith(host_path + "/"):
        return True
    place = host_path + root[len(inside.rstrip("/")):] if root != inside else host_path
    return point.endswith(place)


def release(workspace: Path, seconds: float = 10.0) -> None:
    """Kill every process that still reaches `workspace` and wait until none does; StillHeld past `seconds`."""
    deadline = time.monotonic() + seconds
    while found := holders(workspace):
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            raise StillHeld(f"processes {found[:10]} still reach {workspace} after {seconds:.0f}s")
        time.sleep(0.01)  # killed, still exiting
