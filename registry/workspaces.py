"""Episode workspaces: a fresh copy of an environment's seed, patched to a task's initial state.

All workspaces of one registry process live under one run folder named after the process
(`<tmp>/envcraft/run-<pid>-<token>`), so a later start can find and remove the folders of a
registry that died without cleaning up.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from envcraft.core.state import APP_DIR, APP_STATE, InitialState
from envcraft.registry import holders, quota, removal
from envcraft_runtime import EpisodeNotEnded, end_episode

# Fingerprints of workspaces this process made, taken right after a pure seed copy:
# relative path -> (is_dir, inode, ctime_ns). Any change to an entry (content, mode, owner, xattrs,
# rename, replace) moves its ctime, which no user can set, so a reset only restores what changed.
_PRINTS: dict[Path, tuple[Path, dict[str, tuple[bool, int, int]]]] = {}
# What a changed folder (or the root, "") that stays in place is put back to: mode, owner, group, xattrs.
Metadata = tuple[int, int, int, dict[str, bytes]]
_FOLDERS: dict[Path, dict[str, Metadata]] = {}
# A seed is a few folders deep and holds a few hundred entries; a workspace past these bounds was
# reshaped by its agent and is rebuilt whole instead of compared entry by entry.
SCAN_MAX_ENTRIES = 50_000
SCAN_MAX_DEPTH = 48
REMOVE_SECONDS = 60.0


class _Reshaped(Exception):
    """The workspace is past the scan bounds (or unreadable): rebuild it whole."""


def _scan(root: Path) -> dict[str, tuple[bool, int, int]]:
    found = {}
    stack = [(root, "", 0)]
    while stack:
        folder, prefix, depth = stack.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    info = entry.stat(follow_symlinks=False)
                    is_dir = entry.is_dir(follow_symlinks=False)
                    rel = prefix + entry.name
                    found[rel] = (is_dir, info.st_ino, info.st_ctime_ns)
                    if len(found) > SCAN_MAX_ENTRIES:
                        raise _Reshaped(f"more than {SCAN_MAX_ENTRIES} entries")
                    if is_dir:
                        if depth >= SCAN_MAX_DEPTH:
                            raise _Reshaped(f"folders deeper than {SCAN_MAX_DEPTH} levels")
                        stack.append((Path(entry.path), rel + "/", depth + 1))
        except OSError as exc:  # unreadable folder, path past PATH_MAX, ...
            raise _Reshaped(str(exc)) from exc
    return found


def _metadata(path: Path) -> Metadata:
    info = os.lstat(path)
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:  # a file system without xattrs
        names = []
    return stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid, \
        {name: os.getxattr(path, name, follow_symlinks=False) for name in names}


def _folders(workspace: Path, scan: dict[str, tuple[bool, int, int]]) -> dict[str, Metadata]:
    return {rel: _metadata(workspace / rel) for rel in ["", *(rel for rel, sig in scan.items() if sig[0])]}


def _put_back(path: Path, clean: Metadata) -> None:
    """A folder kept in place gets exactly its clean metadata back: copystat sets the seed's xattrs but never
    removes others, and an agent's xattrs, modes or owner on a folder (or the root) would reach the next episode."""
    mode, uid, gid, xattrs = clean
    now = _metadata(path)
    for name in now[3].keys() - xattrs.keys():
        with contextlib.suppress(OSError):  # e.g. a security.* label the kernel keeps
            os.removexattr(path, name, follow_symlinks=False)
    for name, value in xattrs.items():
        if now[3].get(name) != value:
            os.setxattr(path, name, value, follow_symlinks=False)
    if now[1:3] != (uid, gid):
        os.chown(path, uid, gid, follow_symlinks=False)
    if now[0] != mode:
        os.chmod(path, mode)


def _copy_in(source: Path, target: Path) -> None:
    if source.is_dir():
        shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
        shutil.copystat(source, target)
    elif source.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def _restore(seed: Path, workspace: Path, clean: dict[str, tuple[bool, int, int]], folders: dict[str, Metadata]) -> None:
    """Put back every entry whose fingerprint moved, drop every entry the seed does not have.

    A folder that is still a folder stays in place (only its metadata is put back; its entries are
    compared one by one), so a bind mount of it, as the Docker backend makes of `.app`, holds.
    """
    now = _scan(workspace)
    changed = sorted({rel for rel, sig in now.items() if clean.get(rel) != sig} | (clean.keys() - now.keys()), key=len)
    done: list[str] = []
    for rel in changed:
        if any(rel.startswith(parent + "/") for parent in done):
            continue  # restored with its folder
        target, source = workspace / rel, seed / rel
        if rel in now and rel in clean and now[rel][0] and clean[rel][0]:
            shutil.copystat(source, target)
            if rel in folders:
                _put_back(target, folders[rel])
            continue
        removal.remove(target, seconds=REMOVE_SECONDS)
        _copy_in(source, target)
        done.append(rel)


def _rebuild(seed: Path, workspace: Path) -> None:
    """Empty the workspace in place (itself and its app-state folder stay: they may be mount points) and copy the seed in."""
    app = workspace / APP_DIR
    keep = frozenset({APP_DIR}) if app.is_dir() and not app.is_symlink() else frozenset()
    removal.clear(workspace, keep=keep, seconds=REMOVE_SECONDS)
    if keep:
        removal.clear(app, seconds=REMOVE_SECONDS)
    _copy_in(seed, workspace)


def forget(workspace: Path) -> None:
    _PRINTS.pop(workspace, None)
    _FOLDERS.pop(workspace, None)


def _fingerprint(seed: Path, workspace: Path) -> None:
    scan = _scan(workspace)
    _PRINTS[workspace] = (seed, scan)
    _FOLDERS[workspace] = _folders(workspace, scan)


def settle(workspace: Path) -> None:
    """Take the fingerprint of a pure seed copy again, after a launcher changed ownership or modes
    of its entries (which moves their ctime): a later reset then restores only what the episode changed."""
    known = _PRINTS.get(workspace)
    if known is not None:
        _fingerprint(known[0], workspace)


def materialize(seed: Path, workspace: Path, initial: InitialState | None = None) -> None:
    """Make `workspace` hold exactly the seed plus the initial-state patch (also used to reset).

    A workspace this process made before is restored in place, entry by entry (rebuilt in place
    if its agent reshaped it past the scan bounds); any other is copied whole. Never recursive:
    any tree an agent can make is removed (registry/removal.py).
    """
    known = _PRINTS.get(workspace)
    folders = _FOLDERS.get(workspace, {})
    if known and known[0] == seed and workspace.is_dir() and not workspace.is_symlink():
        try:
            _restore(seed, workspace, known[1], folders)
        except _Reshaped:
            _rebuild(seed, workspace)
    else:
        removal.remove(workspace, seconds=REMOVE_SECONDS)
        quota.mount(workspace)  # its own tmpfs: disk and file-count quota (registry/quota.py), where allowed
        shutil.copytree(seed, workspace, symlinks=True, dirs_exist_ok=True)
    # The root is no entry of the scan, yet the sandbox user owns it: a `chmod 000 /workspace` (or an xattr, or
    # a chown) would otherwise reach every later episode on this folder.
    shutil.copystat(seed, workspace)
    if "" in folders:
        _put_back(workspace, folders[""])
    _fingerprint(seed, workspace)
    if initial is None:
        return
    for rel, content in initial.files.items():
        target = (workspace / rel).resolve()
        if workspace.resolve() not in target.parents:
            raise ValueError(f"initial file {rel!r} lies outside the workspace: use a relative path")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, "utf-8")
    if initial.rows or initial.updates:
        state_path = workspace / APP_STATE
        tables = json.loads(state_path.read_text("utf-8"))
        for table, rows in initial.rows.items():
            tables.setdefault(table, []).extend(rows)
        for table, changes in initial.updates.items():
            by_id = {row.get("id"): row for row in tables.get(table, [])}
            for row_id, fields in changes.items():
                if row_id not in by_id:
                    raise ValueError(f"initial update names {table}/{row_id}, which the seed does not have")
                by_id[row_id].update(fields)
        state_path.write_text(json.dumps(tables, indent=1, sort_keys=True), "utf-8")


def end_processes(workspace: Path) -> None:
    """End every process the workspace's episode started and verify it: the shell of each in-process server acting
    on it is closed (its warm sandbox, cgroup and uid's processes killed, the uid released), then no process of any
    backend may still have the folder mounted (registry/holders.py: those left are killed and waited for).
    Raises EpisodeNotEnded or holders.StillHeld if something survives: the folder must then not be handed on."""
    end_episode(workspace)
    holders.release(workspace)


# A workspace: <base>/run-<pid>-<token>/<env>-<token> (WorkspaceRoot.path and .create()).
WORKSPACE_POINT = re.compile(r"/run-(\d+)-[0-9a-f]{8}/\w+-[0-9a-f]{10}$")


def unmount_dead_runs() -> list[str]:
    """Unmount the workspace tmpfs mounts of registry processes that died without cleaning up,
    wherever their run folder is (a caller's own folder too: it can then be removed with rmtree)."""
    gone = []
    for point in quota.mount_points("tmpfs"):
        match = WORKSPACE_POINT.search(point)
        if match and not _alive(int(match.group(1))):
            quota.unmount(point)
            gone.append(point)
    return gone


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class WorkspaceRoot:
    """The run folder of this process and its warm pool of fresh workspaces.

    `checkout` hands out a workspace that already holds a fresh copy of the seed (copied ahead of
    time by `prewarm` or when an earlier episode checked its workspace back in), so acquiring an
    episode costs no copy. `checkin` rebuilds the workspace from the seed before it can be handed
    out again: nothing an episode did survives into the next one. Reusing paths also lets a
    launcher reuse a server already built for that path. Safe to call from worker threads.
    """

    def __init__(self, base: Path | None = None, max_idle: int = 64, reap_seconds: float = 20.0):
        self.base = Path(base or Path(tempfile.gettempdir()) / "envcraft")
        self.base.mkdir(parents=True, exist_ok=True)
        self.reap(reap_seconds)
        self.path = self.base / f"run-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        # The registry's alone: a sandbox's uid 0 is the host's, so an agent can leave a setuid-root file in its
        # workspace; no other host user may reach it (or read another episode's files) through this folder.
        self.path.mkdir(mode=0o700)
        self.max_idle = max_idle
        self._ready: dict[Path, list[Path]] = {}  # seed -> fresh workspaces
        self._lock = threading.Lock()

    def reap(self, seconds: float = 20.0) -> list[Path]:
        """Remove run folders whose registry process is gone (killed without cleaning up), and empty shell cgroups.

        Whatever such a folder holds (any depth, odd permissions, FIFOs), this never stops a
        start: a folder that cannot be removed within the time budget is named on stderr and
        left for the next start.
        """
        from envcraft.registry.reaper import reap_cgroups

        deadline = time.monotonic() + seconds
        try:
            reap_cgroups()
        except Exception as exc:  # noqa: BLE001 - housekeeping must not stop a start
            _warn(f"could not reap shell cgroups: {exc}")
        unmount_dead_runs()
        removed = []
        for run in sorted(self.base.glob("run-*")):
            try:
                pid = int(run.name.split("-")[1])
            except (IndexError, ValueError):
                continue
            if _alive(pid):
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                _warn(f"left {run} for a later start (time budget spent)")
                continue
            try:
                removal.remove(run, seconds=left)
                removed.append(run)
            except Exception as exc:  # noqa: BLE001 - see above
                _warn(f"could not remove the leftover run folder {run}: {exc}")
        return removed

    def create(self, env: str) -> Path:
        """A new, empty workspace path (not pooled)."""
        return self.path / f"{env}-{uuid.uuid4().hex[:10]}"

    def prewarm(self, env: str, seed: Path, count: int) -> None:
        while self.idle(seed) < min(count, self.max_idle):
            workspace = self.create(env)
            materialize(seed, workspace)
            with self._lock:
                self._ready.setdefault(seed, []).append(workspace)

    def checkout(self, env: str, seed: Path, initial: InitialState | None = None) -> Path:
        """A workspace holding the seed plus `initial`, from the pool when one is ready."""
        with self._lock:
            ready = self._ready.get(seed)
            workspace = ready.pop() if ready else None
        if workspace is not None:
            if initial is not None and (initial.files or initial.rows or initial.updates):
                materialize(seed, workspace, initial)
            return workspace
        workspace = self.create(env)
        materialize(seed, workspace, initial)
        return workspace

    def checkin(self, seed: Path, workspace: Path) -> bool:
        """End the episode on the workspace (end_processes), rebuild it from the seed and pool it; returns False if
        it was removed instead.

        Raises only if the workspace could be neither rebuilt nor removed (RemovalIncomplete);
        it is then no longer pooled, and the run folder's removal at close takes it.
        """
        try:
            end_processes(workspace)
        except (EpisodeNotEnded, holders.StillHeld) as exc:
            _warn(f"the episode on {workspace} could not be ended ({exc}); its workspace is removed, never reused")
            self.discard(workspace)
            return False
        with self._lock:
            full = len(self._ready.get(seed, [])) >= self.max_idle
        if not full and self.path.exists():
            try:
                materialize(seed, workspace)
            except Exception as exc:  # noqa: BLE001 - an unrebuildable workspace is dropped, below
                _warn(f"could not rebuild {workspace} for reuse ({exc}); removing it")
            else:
                with self._lock:
                    self._ready.setdefault(seed, []).append(workspace)
                return True
        self.discard(workspace)
        return False

    def discard(self, workspace: Path) -> None:
        """Remove a workspace for good (it is not pooled again)."""
        forget(workspace)
        removal.remove(workspace, seconds=REMOVE_SECONDS)

    def idle(self, seed: Path) -> int:
        with self._lock:
            return len(self._ready.get(seed, []))

    def __enter__(self) -> WorkspaceRoot:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the run folder and every workspace in it, unmounting their quotas first."""
        with self._lock:
            self._ready.clear()
        for workspace in [w for w in list(_PRINTS) if self.path in w.parents]:
            forget(workspace)
        try:
            removal.remove(self.path, seconds=REMOVE_SECONDS)
        except Exception as exc:  # noqa: BLE001 - the next start's reap() takes what is left
            _warn(f"could not remove the run folder {self.path} ({exc}); the next start removes it")


def _warn(message: str) -> None:
    print(f"envcraft: {message}", file=sys.stderr, flush=True)
