"""The episode API against a gateway: the control API (bearer token) creates, grades and deletes;
the agent plane is each environment's MCP URL, as any MCP client would use it."""

from __future__ import annotations

import contextlib
from typing import Any

import httpx2
from envcraft.benchmarks.registry import owner
from envcraft.core.grading import Grade
from envcraft.core.tasks import Task
from envcraft.harness.errors import ServerFailure, TaskFailure
from envcraft.harness.farm_base import FarmBase, Opened
from mcp import Client


class ControlClient:
    """The gateway's control API, typed: what trainers' reward functions and the remote farm call."""

    def __init__(self, url: str, token: str, timeout: float = 60.0):
        self.url = url.rstrip("/")
        self.http = httpx2.AsyncClient(base_url=self.url, timeout=timeout,
                                       headers={"Authorization": f"Bearer {token}"})

    async def aclose(self) -> None:
        await self.http.aclose()

    async def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        try:
            response = await self.http.request(method, f"/control{path}", json=body)
        except httpx2.HTTPError as exc:
            raise ServerFailure(f"the gateway at {self.url} did not answer {method} {path}: "
                                f"{type(exc).__name__}: {exc}") from exc
        data = response.json() if response.content else {}
        if response.status_code == 404 and "no task" in str(data.get("error", "")):
            raise TaskFailure(data["error"])
        if response.status_code >= 400:
            raise ServerFailure(f"the gateway refused {method} {path} ({response.status_code}): "
                                f"{data.get('error', response.text[:300])}")
        return data

    async def create(self, task_id: str) -> dict[str, Any]:
        return await self.request("POST", "/groups", {"task_id": task_id})

    async def begin_turn(self, group_id: str, index: int) -> bool:
        return bool((await self.request("POST", f"/groups/{group_id}/turn", {"turn": index}))["tools_changed"])

    async def grade(self, group_id: str) -> Grade:
        return Grade.model_validate(await self.request("POST", f"/groups/{group_id}/grade"))

    async def delete(self, group_id: str) -> None:
        await self.request("DELETE", f"/groups/{group_id}")


class RemoteFarm(FarmBase):
    """`async with RemoteFarm(url, token) as farm:` episodes on a gateway (`envcraft serve --all`)."""

    def __init__(self, url: str, token: str, tool_seconds: float = 120.0):
        super().__init__(tool_seconds)
        self.control = ControlClient(url, token)

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await super().__aexit__(*exc)
        finally:
            await self.control.aclose()

    async def _open(self, stack: contextlib.AsyncExitStack, task: str | Task) -> Opened:
        created = await self.control.create(task.id if isinstance(task, Task) else task)
        stack.push_async_callback(self._release, created["episode"])
        clients = {env: await stack.enter_async_context(Client(url)) for env, url in created["urls"].items()}
        return Opened(id=created["episode"], task_id=created["task_id"], turns=created["turns"], clients=clients,
                      urls=created["urls"])

    async def _release(self, group_id: str) -> None:
        with contextlib.suppress(ServerFailure):  # already reaped: nothing left to delete
            await self.control.delete(group_id)

    def _server_decides(self, opened: Opened) -> bool:
        return len(opened.clients) == 1 and owner(next(iter(opened.clients))) is not None

    async def _begin_turn(self, opened: Opened, index: int) -> bool:
        if all(owner(env) is None for env in opened.clients):
            return False  # our environments do not care which turn is open: no round trip
        return await self.control.begin_turn(opened.id, index)

    async def _grade(self, opened: Opened) -> Grade:
        return await self.control.grade(opened.id)
