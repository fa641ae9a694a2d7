"""The episode API for synchronous callers (SkyRL-gym's `step`, OpenEnv's `reset`/`step`).

One event loop in a daemon thread holds the farm; calls cross into it through an anyio portal.
One SyncFarm per (url, token) per process is shared by every environment object that asks.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from contextlib import ExitStack
from typing import Any

from anyio.from_thread import start_blocking_portal
from envcraft.core.grading import Grade
from envcraft.harness.client import EpisodeInfo, ToolResult
from envcraft.harness.farms import open_farm

_SHARED: dict[tuple[str | None, str | None, str | None], SyncFarm] = {}
_LOCK = threading.Lock()


class SyncFarm:
    def __init__(self, url: str | None = None, token: str | None = None, **options: Any):
        self._stack = ExitStack()
        self._portal = self._stack.enter_context(start_blocking_portal())
        try:
            self.farm = self._stack.enter_context(self._portal.wrap_async_context_manager(
                open_farm(url, token=token, **options)))
        except BaseException:
            self._stack.close()  # else the portal's thread outlives the error and the process never exits
            raise

    def create(self, task: Any) -> EpisodeInfo:
        return self._portal.call(self.farm.create, task)

    def call_tool(self, episode_id: str, name: str, arguments: Any) -> ToolResult:
        return self._portal.call(self.farm.call_tool, episode_id, name, arguments)

    def begin_turn(self, episode_id: str, index: int) -> list[dict[str, Any]]:
        return self._portal.call(self.farm.begin_turn, episode_id, index)

    def grade(self, episode_id: str) -> Grade:
        return self._portal.call(self.farm.grade, episode_id)

    def delete(self, episode_id: str) -> None:
        self._portal.call(self.farm.delete, episode_id)

    def close(self) -> None:
        self._stack.close()


def shared_farm(url: str | None = None, token: str | None = None, tasks_dir: str | None = None) -> SyncFarm:
    """The process's farm for (url, token): in-process when url is None (reading tasks from `tasks_dir`,
    default tasks/; a gateway reads its own)."""
    key = (url, token, str(tasks_dir) if tasks_dir and not url else None)
    with _LOCK:
        if key not in _SHARED:
            _SHARED[key] = SyncFarm(url, token, **({"tasks_dir": key[2]} if key[2] else {}))
        return _SHARED[key]


@atexit.register
def close_shared() -> None:
    """Close every shared farm (at exit, or when a process is done with them: their episodes and graders end)."""
    with _LOCK:
        farms = list(_SHARED.values())
        _SHARED.clear()
    for farm in farms:
        with contextlib.suppress(Exception):  # the interpreter may be exiting
            farm.close()
