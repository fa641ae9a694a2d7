"""A scripted, deterministic stand-in for an LLM, served over the OpenAI-compatible HTTP API.

This is the project's only allowed stand-in for a model: it exists so the real agent loop
(ClawAgent with the real `openai` client, over real HTTP) can be tested end to end without a
model. It is not a policy and earns nothing by itself: it replays the tool calls scripted for a
conversation, found by the conversation's first user message.

    python -m envcraft.harness.scripted_model --tasks tasks/office.jsonl --port 8011
    # then: base_url=http://127.0.0.1:8011/v1, model=scripted, any api key

Per request: turn = (user messages - 1); the tool calls already made since the last user
message select the next scripted call of that turn, returned as one `tool_calls` reply. When the
turn's calls are used up it replies "Done." (on the last turn it first calls `finish`, unless the
script has one). Usage is characters / 4. With `return_token_ids` / `logprobs` in the request it
adds vLLM-style `prompt_token_ids`, choice `token_ids` and `logprobs`. With `stream` it sends the same
reply as server-sent chunks, as OpenAI's API streams one (verifiers' chat program only streams). Like the
OpenAI API it rejects messages with unknown fields (400).
"""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from envcraft.core.tasks import Task, load_tasks
from pydantic import BaseModel, ConfigDict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

MODEL = "scripted"
DONE = "Done."
MESSAGE_KEYS = {
    "system": {"role", "content", "name"},
    "developer": {"role", "content", "name"},
    "user": {"role", "content", "name"},
    "assistant": {"role", "content", "name", "tool_calls", "refusal", "audio", "function_call"},
    "tool": {"role", "content", "tool_call_id", "name"},  # vLLM's server takes a tool message's name (verifiers sends it)
}


class ScriptedCall(BaseModel):
    """One scripted tool call; `arguments` as a string is sent verbatim (use it for malformed JSON)."""

    model_config = ConfigDict(frozen=True)
    tool: str
    arguments: dict[str, Any] | str = {}
    turn: int = 0


class Trajectory(BaseModel):
    model_config = ConfigDict(frozen=True)
    turns: int = 1
    calls: list[ScriptedCall] = []
    replies: list[str] = []  # plain-content replies instead, the n-th for the n-th assistant turn (last repeats)

    def calls_of(self, turn: int) -> list[ScriptedCall]:
        calls = [c for c in self.calls if c.turn == turn]
        if turn == self.turns - 1 and not any(c.tool == "finish" for c in self.calls):
            calls.append(ScriptedCall(tool="finish", arguments={}, turn=turn))
        return calls


class Script(BaseModel):
    """First user message -> the trajectory to replay."""

    trajectories: dict[str, Trajectory] = {}

    @classmethod
    def from_tasks(cls, tasks: Iterable[Task]) -> Script:
        return cls(trajectories={t.turns[0]: Trajectory(turns=len(t.turns), calls=[
            ScriptedCall(tool=c.tool, arguments=c.arguments, turn=c.turn) for c in t.gold]) for t in tasks})

    def add(self, first_user: str, calls: list[ScriptedCall], turns: int = 1) -> Script:
        self.trajectories[first_user] = Trajectory(turns=turns, calls=calls)
        return self

    def add_replies(self, first_user: str, replies: list[str]) -> Script:
        """Answer a conversation with fixed content, e.g. JSON documents for structured-output callers."""
        self.trajectories[first_user] = Trajectory(replies=replies)
        return self


def text_of(content: Any) -> str:
    if isinstance(content, list):  # content parts
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def token_ids(text: str) -> list[int]:
    """Deterministic fake tokenization: one token per 4 characters."""
    return [zlib.crc32(text[i:i + 4].encode()) % 50_000 for i in range(0, len(text), 4)] or [0]


def error(status: int, message: str, param: str | None = None) -> JSONResponse:
    body = {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}}
    headers = {"retry-after-ms": "10"} if status >= 500 else None
    return JSONResponse(body, status_code=status, headers=headers)


def invalid_message(messages: Any) -> tuple[str, str] | None:
    if not isinstance(messages, list) or not messages:
        return "messages must be a non-empty list", "messages"
    for i, message in enumerate(messages):
        allowed = MESSAGE_KEYS.get(message.get("role") if isinstance(message, dict) else None)
        if allowed is None:
            return f"messages[{i}] has no valid role", f"messages.[{i}].role"
        unknown = sorted(set(message) - allowed)
        if unknown:
            return f"Additional properties are not allowed ({', '.join(unknown)} unexpected)", f"messages.[{i}]"
    return None


def reply(script: Script, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The next assistant message of the scripted conversation."""
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    trajectory = script.trajectories.get(text_of(messages[users[0]]["content"])) if users else None
    if trajectory is None:
        return {"role": "assistant", "content": "I have no script for this conversation."}
    if trajectory.replies:
        said = sum(1 for m in messages if m["role"] == "assistant")
        return {"role": "assistant", "content": trajectory.replies[min(said, len(trajectory.replies) - 1)]}
    made = sum(len(m.get("tool_calls") or []) for m in messages[users[-1]:] if m["role"] == "assistant")
    calls = trajectory.calls_of(len(users) - 1)
    if made >= len(calls):
        return {"role": "assistant", "content": DONE}
    call = calls[made]
    number = sum(len(m.get("tool_calls") or []) for m in messages if m["role"] == "assistant")
    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{number}", "type": "function", "function": {"name": call.tool, "arguments": arguments}}]}


def completion(body: dict[str, Any], message: dict[str, Any], count: int) -> dict[str, Any]:
    prompt = json.dumps(body["messages"], sort_keys=True) + json.dumps(body.get("tools") or [], sort_keys=True)
    generated = json.dumps(message, sort_keys=True)
    prompt_ids, output_ids = token_ids(prompt), token_ids(generated)
    choice: dict[str, Any] = {"index": 0, "message": message, "logprobs": None,
                              "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}
    result: dict[str, Any] = {"id": f"chatcmpl-scripted-{count}", "object": "chat.completion", "created": 0,
                              "model": body.get("model") or MODEL, "choices": [choice], "usage": {
                                  "prompt_tokens": len(prompt_ids), "completion_tokens": len(output_ids),
                                  "total_tokens": len(prompt_ids) + len(output_ids)}}
    if body.get("return_token_ids"):
        result["prompt_token_ids"], choice["token_ids"] = prompt_ids, output_ids
    if body.get("logprobs"):
        choice["logprobs"] = {"content": [{"token": generated[i:i + 4], "logprob": 0.0, "bytes": None,
                                           "top_logprobs": []} for i in range(0, len(generated), 4)]}
    return result


def chunks(body: dict[str, Any], result: dict[str, Any]) -> Iterator[str]:
    """A completion as OpenAI streams it: the whole message in one delta, then its finish reason, then (when
    asked for with stream_options.include_usage) the usage, then [DONE]."""
    choice = result["choices"][0]
    message = choice["message"]
    base = {"id": result["id"], "object": "chat.completion.chunk", "created": 0, "model": result["model"]}
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
    events = [{**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}]},
              {**base, "choices": [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": choice["finish_reason"]}]}]
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append({**base, "choices": [], "usage": result["usage"]})
    yield from (f"data: {json.dumps(event)}\n\n" for event in events)
    yield "data: [DONE]\n\n"


def build_app(script: Script, model: str = MODEL, fail_first: int = 0) -> Starlette:
    """The HTTP app; `fail_first` answers the first N completions with 503 (to exercise client retries)."""
    state = {"requests": 0}
    lock = threading.Lock()

    async def completions(request: Request) -> JSONResponse | StreamingResponse:
        with lock:
            state["requests"] += 1
            count = state["requests"]
        if count <= fail_first:
            return error(503, "scripted transient failure: retry")
        try:
            body = await request.json()
        except ValueError:
            return error(400, "request body is not JSON")
        if not isinstance(body, dict):
            return error(400, "request body must be a JSON object")
        problem = invalid_message(body.get("messages"))
        if problem:
            return error(400, *problem)
        result = completion(body, reply(script, body["messages"]), count)
        if body.get("stream"):
            return StreamingResponse(chunks(body, result), media_type="text/event-stream")
        return JSONResponse(result)

    async def models(request: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [
            {"id": model, "object": "model", "created": 0, "owned_by": "envcraft"}]})

    app = Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"]),
                            Route("/v1/models", models, methods=["GET"])])
    app.state.requests = state
    return app


def serve_in_thread(app: Any, host: str = "127.0.0.1", port: int = 0, timeout: float = 10.0,
                    lifespan: str = "off") -> tuple[str, Callable[[], None]]:
    """Run `app` with uvicorn in a daemon thread; returns (base_url ending in /v1, stop). An app with startup
    and shutdown work of its own (the gateway) takes lifespan="on"."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound_port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan=lifespan))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="scripted-model", daemon=True)
    thread.start()

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout)
        sock.close()

    deadline = time.monotonic() + timeout
    while not server.started:  # set once uvicorn accepts connections on the socket
        if not thread.is_alive() or time.monotonic() > deadline:
            stop()
            raise RuntimeError(f"the scripted model did not start on {host}:{bound_port}")
        time.sleep(0.005)
    return f"http://{host}:{bound_port}/v1", stop


@contextmanager
def serving(app: Any, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """`with serving(build_app(script)) as base_url:` ... the server is stopped on exit."""
    base_url, stop = serve_in_thread(app, host, port)
    try:
        yield base_url
    finally:
        stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=Path, nargs="+", required=True, help="task JSONL files to script")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--model", default=MODEL, help="model name listed at /v1/models")
    args = parser.parse_args(argv)
    script = Script.from_tasks(task for path in args.tasks for task in load_tasks(path))
    print(f"scripted model: {len(script.trajectories)} conversations at http://{args.host}:{args.port}/v1"
          f" (model {args.model})", flush=True)
    uvicorn.run(build_app(script, args.model), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
