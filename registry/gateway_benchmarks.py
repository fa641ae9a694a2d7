"""Foreign-benchmark episodes on the gateway (envcraft.benchmarks): each one's own MCP server at the usual
`/env/<name>/<episode>/mcp`, with the same control API (create, reset, grade, delete, the idle reaper) plus
turns: `POST /control/episodes/<id>/turn` (or `/control/groups/<id>/turn`) with {"turn": k} opens user turn k;
a turn that offers new tools (BFCL's missing-function turns) sends the episode's clients tools/list_changed.
An episode of our own accepts the call and changes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio
from envcraft.registry.control_api import ControlError, check_bearer, read_json
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

Gateway = Any  # registry.gateway.Gateway: not imported, it imports this module
GatewayEpisode = Any


@dataclass(frozen=True)
class BenchEnv:
    """What the gateway reads of an episode's environment (`.name`); a benchmark's has no folder or seed."""

    name: str


async def create_bench_episode(gateway: Gateway, bench: Any, env_name: str, task_id: str | None,
                               make: Any) -> GatewayEpisode:
    """`make(env, task)` builds the GatewayEpisode (the gateway's own dataclass) around the benchmark's episode."""
    if not task_id:
        raise ControlError(400, f"{env_name} is a {bench.name} environment: its episodes are its tasks; send "
                                '{"env": ..., "task_id": ...} (envcraft run --bench lists none; see envcraft list)')
    task = gateway._task(task_id)
    if env_name not in task.envs:
        raise ControlError(400, f"task {task_id} runs on {task.envs}, not {env_name}")
    if len(gateway.episodes) >= gateway.max_episodes:
        raise ControlError(429, f"the farm is full ({len(gateway.episodes)} of {gateway.max_episodes} live episodes): "
                                "delete finished episodes or raise --max-episodes")
    live = await gateway._offload(f"opening a {env_name} episode", bench.open, task)
    episode = make(BenchEnv(env_name), task_id, live)
    gateway.episodes[episode.id] = episode
    try:
        await gateway._group.start(_serve, gateway, episode)
    except Exception as exc:
        gateway.retire(episode)
        raise ControlError(500, f"the {env_name} server did not start: {exc}") from exc
    return episode


async def _serve(gateway: Gateway, episode: GatewayEpisode, *, task_status=anyio.TASK_STATUS_IGNORED) -> None:
    server = episode.bench.server  # the episode's own server: its tools are its task's
    episode.app = server.streamable_http_app(streamable_http_path="/mcp", host=gateway.host)
    try:
        async with server.session_manager.run():
            task_status.started()
            await episode.stop.wait()
    finally:
        episode.bench.close()
        episode.served.set()


async def reset_bench(gateway: Gateway, episode: GatewayEpisode) -> GatewayEpisode:
    if episode.busy:
        raise ControlError(409, f"episode {episode.id} is still busy with {episode.busy}: retry when that finishes")
    episode.busy = "a reset"
    try:
        await episode.bench.reset()
    finally:
        episode.busy = None
    return episode


async def grade_bench(gateway: Gateway, episode: GatewayEpisode) -> Any:
    return await gateway._offload("grading", episode.bench.grade, episode=episode)


def _member(gateway: Gateway, key: str, grouped: bool) -> GatewayEpisode:
    if not grouped:
        return gateway.episode(key)
    found = gateway.groups.get(key)
    if found is None or any(e.id not in gateway.episodes for e in found.members.values()):
        raise ControlError(404, f"no live episode group {key!r}: it was deleted or reaped")
    return next(iter(found.members.values()))


def bench_routes(gateway: Gateway) -> list[Route]:
    async def turn(request: Request) -> JSONResponse:
        check_bearer(request.headers.get("authorization"), gateway.token)
        body = await read_json(request)
        index = body.get("turn") if isinstance(body, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise ControlError(400, 'send {"turn": k}: k, a whole number from 0, is the user turn that opens')
        key = request.path_params["key"]
        episode = _member(gateway, key, request.url.path.startswith("/control/groups/"))
        changed = False
        if episode.bench is not None:
            try:
                changed = await episode.bench.begin_turn(index)
            except ValueError as exc:
                raise ControlError(409, str(exc)) from None
        return JSONResponse({"episode": key, "turn": index, "tools_changed": changed})

    return [Route("/control/episodes/{key}/turn", turn, methods=["POST"]),
            Route("/control/groups/{key}/turn", turn, methods=["POST"])]
