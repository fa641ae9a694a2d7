"""Multi-environment episodes on the gateway: one group per task episode.

A task that spans several environments gets one gateway episode per environment, each built from
its own initial state (`Task.initial_for`) with its own baseline snapshot, and one grade over all
of them: every check is read against the final state of the environment it names.

Control routes (same token as the rest of the control API):
    POST   /control/groups                {"task_id": "..."}  -> the group, its MCP URL per environment
    POST   /control/groups/<id>/grade     one grade over every environment
    POST   /control/groups/<id>/reset     every environment back to its initial state
    DELETE /control/groups/<id>

Members live and die together: deleting or reaping any one member ends the whole group.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from envcraft.registry.clients import client_entries
from envcraft.registry.control_api import ControlError, check_bearer, read_json
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

Gateway = Any  # registry.gateway.Gateway: not imported, it imports this module
GatewayEpisode = Any


@dataclass
class EpisodeGroup:
    id: str
    task_id: str
    turns: list[str]
    members: dict[str, GatewayEpisode] = field(default_factory=dict)  # env -> episode, in the task's order
    shown: Any = None  # core.rendering.Rendering over every environment: what a model is shown

    def describe(self, base_url: str) -> dict[str, Any]:
        urls = {env: f"{base_url}/env/{env}/{episode.id}/mcp" for env, episode in self.members.items()}
        clients = client_entries({f"{env}-{self.id[:8]}": url for env, url in urls.items()})
        return {"episode": self.id, "task_id": self.task_id, "envs": list(self.members), "turns": self.turns,
                "system_prompt": self.shown.system if self.shown else None,
                "tools": self.shown.tools if self.shown else [],
                "urls": urls, "members": {env: episode.id for env, episode in self.members.items()},
                "mcpServers": clients["claude-code"]["mcpServers"], "clients": clients}


def groups_of(gateway: Gateway) -> dict[str, EpisodeGroup]:
    return gateway.groups


async def create_group(gateway: Gateway, task_id: Any) -> EpisodeGroup:
    if not isinstance(task_id, str) or not task_id:
        raise ControlError(400, 'the body needs "task_id" (a task id string), e.g. {"task_id": "office-001"}')
    task = gateway._task(task_id)
    if len(gateway.episodes) + len(task.envs) > gateway.max_episodes:
        raise ControlError(429, f"the farm is full ({len(gateway.episodes)} of {gateway.max_episodes} live episodes; "
                                f"task {task_id} needs {len(task.envs)}): delete finished episodes or raise --max-episodes")
    group = EpisodeGroup(id="", task_id=task_id, turns=task.turns, shown=await gateway.rendering(task.envs, task.turns))
    try:
        for env in task.envs:  # each from its own initial state (the gateway's create uses initial_for)
            group.members[env] = await gateway.create(env, task_id)
    except BaseException:
        for episode in group.members.values():
            gateway.retire(episode)
        raise
    group.id = "g" + next(iter(group.members.values())).id
    for episode in group.members.values():
        episode.group = group.id
    groups_of(gateway)[group.id] = group
    return group


def group(gateway: Gateway, group_id: str) -> EpisodeGroup:
    found = groups_of(gateway).get(group_id)
    if found is None or any(e.id not in gateway.episodes for e in found.members.values()):
        raise ControlError(404, f"no live episode group {group_id!r}: it was deleted or reaped")
    return found


async def grade_group(gateway: Gateway, found: EpisodeGroup) -> Any:
    """One grade over every environment: each check against the environment it names."""
    from envcraft.registry.gateway_benchmarks import grade_bench

    if (bench := [e for e in found.members.values() if e.bench is not None]):
        return await grade_bench(gateway, bench[0])  # a benchmark episode is one environment, graded by its checker
    return await gateway.grade_members(gateway._task(found.task_id), found.members)


def disband(gateway: Gateway, group_id: str) -> list[GatewayEpisode]:
    """The group's members, the group itself gone: a group lives and dies whole, so ending any member (deleted,
    reaped, failed) ends every other one too (the gateway's retire() does). Deleting one member used to leave the
    others live and the group answering 404."""
    found = groups_of(gateway).pop(group_id, None)
    return list(found.members.values()) if found else []


def delete_group(gateway: Gateway, found: EpisodeGroup) -> None:
    for episode in disband(gateway, found.id) or found.members.values():
        gateway.retire(episode)


def group_routes(gateway: Gateway) -> list[Route]:
    def authorized(request: Request) -> None:
        check_bearer(request.headers.get("authorization"), gateway.token)

    async def create(request: Request) -> JSONResponse:
        authorized(request)
        body = await read_json(request)
        if not isinstance(body, dict):
            raise ControlError(400, 'send a JSON object like {"task_id": "office-001"}')
        created = await create_group(gateway, body.get("task_id"))
        return JSONResponse(created.describe(gateway.base_url), status_code=201)

    async def grade(request: Request) -> JSONResponse:
        authorized(request)
        return JSONResponse((await grade_group(gateway, group(gateway, request.path_params["group"]))).model_dump())

    async def reset(request: Request) -> JSONResponse:
        authorized(request)
        found = group(gateway, request.path_params["group"])
        for episode in found.members.values():
            await gateway.reset(episode)
        return JSONResponse({"episode": found.id, "reset": True})

    async def delete(request: Request) -> JSONResponse:
        authorized(request)
        found = group(gateway, request.path_params["group"])
        delete_group(gateway, found)
        return JSONResponse({"episode": found.id, "deleted": True})

    return [Route("/control/groups", create, methods=["POST"]),
            Route("/control/groups/{group}/grade", grade, methods=["POST"]),
            Route("/control/groups/{group}/reset", reset, methods=["POST"]),
            Route("/control/groups/{group}", delete, methods=["DELETE"])]
