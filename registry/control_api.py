"""The gateway's control plane: create, reset, grade and delete episodes over HTTP.

Only operators and trainers hold the token; agents never do (their shell has no network). Every
request is checked before anything is read: `Authorization: Bearer <token>` exactly, compared in
constant time; a body larger than the cap is refused with 413 from its Content-Length (or as
soon as the streamed bytes pass the cap), never read in full; a body of the wrong shape or types
gets a 400 naming the field and what it should be. Malformed input never produces a 500.
"""

from __future__ import annotations

import hmac
import json
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

CONTROL_BODY_BYTES = 64 * 1024  # a create request is a few dozen bytes


class ControlError(Exception):
    """A refusal with its HTTP status; the message tells the caller what to do."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class Episodes(Protocol):
    """What the control routes need from the gateway (registry/gateway.py implements it)."""

    token: str
    base_url: str
    episodes: dict[str, Any]

    def health(self) -> dict[str, Any]: ...
    def episode(self, episode_id: str) -> Any: ...
    def retire(self, episode: Any) -> None: ...
    async def create(self, env_name: str, task_id: str | None = None) -> Any: ...
    async def reset(self, episode: Any) -> Any: ...
    async def grade(self, episode: Any) -> Any: ...
    async def task_listing(self, env: str, split: str, limit: int | None) -> list[dict[str, Any]]: ...


class CreateEpisode(BaseModel):
    """POST /control/episodes"""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    env: str = Field(min_length=1, max_length=200, description="environment name")
    task_id: str | None = Field(default=None, min_length=1, max_length=500, description="task to grade against")


class ListTasks(BaseModel):
    """GET /control/tasks?env=office&split=test&limit=5: what a consumer that builds its dataset from the gateway
    (the verifiers taskset) reads; each task as a model is shown it (core/rendering.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    env: str = Field(min_length=1, max_length=200, description="environment whose task file to list")
    split: Literal["all", "train", "test"] = "all"
    limit: int | None = Field(default=None, ge=1, description="at most this many, in file order")


def check_bearer(header: str | None, token: str) -> None:
    """Accept exactly `Bearer <token>` (scheme case-insensitive, RFC 7235); a bare token is refused."""
    scheme, _, offered = (header or "").partition(" ")
    if scheme.lower() != "bearer" or not offered:
        raise ControlError(401, "the control API needs the header 'Authorization: Bearer <token>' "
                                "(the token is printed when the gateway starts)")
    if not hmac.compare_digest(offered.encode("utf-8", "surrogateescape"), token.encode()):
        raise ControlError(401, "wrong control token: send 'Authorization: Bearer <token>' with the token "
                                "printed when the gateway started")


async def read_json(request: Request, cap: int = CONTROL_BODY_BYTES) -> Any:
    """The body as JSON, refusing (413) anything over `cap` bytes without reading it in full."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ControlError(400, "Content-Length is not a number")
        if int(declared) > cap:
            raise ControlError(413, f"the body is {declared} bytes; the control API takes at most {cap}")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > cap:
            raise ControlError(413, f"the body is over {cap} bytes; the control API takes at most {cap}")
    try:
        return json.loads(bytes(body).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ControlError(400, 'send a JSON body like {"env": "office", "task_id": "office-001"}') from None


def parse(model: type[BaseModel], data: Any) -> Any:
    if not isinstance(data, dict):
        raise ControlError(400, f"the body must be a JSON object, not {type(data).__name__}: "
                                '{"env": "office", "task_id": "office-001"}')
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in error['loc']) or 'body'}: {error['msg']}"
                             f" (got {type(error.get('input')).__name__})" for error in exc.errors())
        raise ControlError(400, f"bad request body: {problems}") from None


def control_app(gateway: Episodes) -> Starlette:
    """The control routes, each a thin layer over the gateway's own methods."""

    def authorized(request: Request) -> None:
        check_bearer(request.headers.get("authorization"), gateway.token)

    async def health(request: Request) -> JSONResponse:
        authorized(request)
        report = gateway.health()
        return JSONResponse(report, status_code=200 if report["ok"] else 503)

    async def listing(request: Request) -> JSONResponse:
        authorized(request)
        return JSONResponse([e.describe(gateway.base_url) for e in gateway.episodes.values()])

    async def tasks(request: Request) -> JSONResponse:
        authorized(request)
        query = parse(ListTasks, dict(request.query_params))
        return JSONResponse(await gateway.task_listing(query.env, query.split, query.limit))

    async def create(request: Request) -> JSONResponse:
        authorized(request)
        body = parse(CreateEpisode, await read_json(request))
        episode = await gateway.create(body.env, body.task_id)
        return JSONResponse(episode.describe(gateway.base_url), status_code=201)

    async def reset(request: Request) -> JSONResponse:
        authorized(request)
        episode = await gateway.reset(gateway.episode(request.path_params["episode"]))
        return JSONResponse({"episode": episode.id, "reset": True})

    async def grade(request: Request) -> JSONResponse:
        authorized(request)
        result = await gateway.grade(gateway.episode(request.path_params["episode"]))
        return JSONResponse(result.model_dump())

    async def delete(request: Request) -> JSONResponse:
        authorized(request)
        episode = gateway.episode(request.path_params["episode"])
        gateway.retire(episode)
        return JSONResponse({"episode": episode.id, "deleted": True})

    async def refused(request: Request, exc: ControlError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    async def no_route(request: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": f"{request.method} {request.url.path}: {exc.detail}; the control API has "
                                      "GET /control/health, GET /control/tasks?env=..., GET|POST /control/episodes, "
                                      "POST /control/episodes/<id>/reset|grade, DELETE /control/episodes/<id>"},
                            status_code=exc.status_code)

    return Starlette(routes=[
        Route("/control/health", health, methods=["GET"]),
        Route("/control/episodes", listing, methods=["GET"]),
        Route("/control/tasks", tasks, methods=["GET"]),
        Route("/control/episodes", create, methods=["POST"]),
        Route("/control/episodes/{episode}/reset", reset, methods=["POST"]),
        Route("/control/episodes/{episode}/grade", grade, methods=["POST"]),
        Route("/control/episodes/{episode}", delete, methods=["DELETE"]),
    ], exception_handlers={ControlError: refused, HTTPException: no_route})
