"""Handing a workspace to a container's uids (see envcraft_runtime/container.py), from the host.

Inside the container the server runs as the server uid of the container's uid block and every
agent command as a uid of its own in the workspace group. Before a container sees a workspace, and
after the host writes into it (an initial-state patch, a reset), ownership and modes are set so that:

- `.app/` (the app state the grader reads) is the server uid's and group's, folders 0755 and files
  0644: commands can read it, never write it;
- everything else is the server uid's in WORKSPACE_GID, folders setgid 2775 and files
  group-writable, so the server's file tools and every command can read and write it.

Only entries that differ are changed. Needs root on the host (the Docker engine is root's anyway).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from envcraft.core.state import APP_DIR
from envcraft_runtime.container import WORKSPACE_GID, UidBlock

MAX_ENTRIES = 100_000


class OwnershipError(RuntimeError):
    pass


def _set(path: str, info: os.stat_result, uid: int, gid: int, dir_mode: int, file_mode: int) -> None:
    if (info.st_uid, info.st_gid) != (uid, gid):
        os.chown(path, uid, gid, follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode):
        return
    wanted = dir_mode if stat.S_ISDIR(info.st_mode) else file_mode | (info.st_mode & 0o111)
    if stat.S_IMODE(info.st_mode) != wanted:
        os.chmod(path, wanted)


def hand_over(workspace: Path, uids: UidBlock) -> None:
    """Set ownership and modes of the workspace for the container's uids (iterative, bounded)."""
    workspace, server = Path(workspace), uids.server
    try:
        _set(str(workspace), os.lstat(workspace), server, WORKSPACE_GID, 0o2775, 0o664)
        stack, seen = [(str(workspace), False)], 0
        while stack:
            folder, in_app = stack.pop()
            with os.scandir(folder) as entries:
                for entry in entries:
                    seen += 1
                    if seen > MAX_ENTRIES:
                        raise OwnershipError(f"{workspace} holds more than {MAX_ENTRIES} entries")
                    app = in_app or (folder == str(workspace) and entry.name == APP_DIR)
                    info = entry.stat(follow_symlinks=False)
                    if app:
                        _set(entry.path, info, server, server, 0o755, 0o644)
                    else:
                        _set(entry.path, info, server, WORKSPACE_GID, 0o2775, 0o664)
                    if stat.S_ISDIR(info.st_mode):
                        stack.append((entry.path, app))
    except PermissionError as exc:
        raise OwnershipError(f"cannot hand {workspace} to the container's uids ({exc}): the Docker backend "
                             "runs the server and the agent's commands as uids of their own, which only root "
                             "on the host can give files to; run the registry as root") from exc
