"""The stdio transport with a size cap on each JSON-RPC message, checked while the line is read.

The SDK's `stdio_server` reads a line whole before anything looks at it: one 200 MB `write_file` call grew a
server from 73 to 801 MB before the 2 MB content cap refused it. Here a line is read at most MAX_MESSAGE_BYTES
at a time; the rest of a longer line is read and dropped in chunks, never kept, and the request is answered
with what to do, as a tool result marked as an error (a tools/call whose id the line's start shows), else a
JSON-RPC error (a parse error with id null when the id cannot be read). The SDK still writes the replies and
parses every line that fits.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any, BinaryIO

MAX_MESSAGE_BYTES = 8 * 2**20  # one JSON-RPC line: write_file's 2 MB content with room for JSON escapes (as HTTP)
_CHUNK = 2**20  # what an oversized line is dropped by
_HEAD = 64 * 2**10  # how much of an oversized line's start is searched for its id and method
_SPACE = re.compile(r"\s*")

IN_PARTS = ("write a large file in parts (write_file each part, at most 2 MB, to a file of its own, then join them "
            "with run_shell, e.g. `cat part1 part2 > file`)")


def refusal_text(size: int, cap: int = MAX_MESSAGE_BYTES, hint: str = "") -> str:
    return (f"the request is {size / 2**20:.1f} MB, over the {cap // 2**20} MB one call may carry; it was not run. "
            f"Send less at once{': ' + hint if hint else '.'}")


def leading_members(head: bytes) -> dict[str, Any]:
    """The top-level members of a JSON object whose text is cut short that come whole before the cut (a client
    writes "id" and "method" before "params"). Only top-level members: an "id" inside params is not the request's."""
    text, decoder, found = head.decode("utf-8", errors="ignore"), json.JSONDecoder(), {}
    at = _SPACE.match(text).end()
    if not text.startswith("{", at):
        return found
    at += 1
    try:
        while True:
            key, at = decoder.raw_decode(text, _SPACE.match(text, at).end())
            at = _SPACE.match(text, at).end()
            if not isinstance(key, str) or not text.startswith(":", at):
                return found
            found[key], at = decoder.raw_decode(text, _SPACE.match(text, at + 1).end())
            at = _SPACE.match(text, at).end()
            if not text.startswith(",", at):
                return found
            at += 1
    except ValueError:  # the cut: what came before it is all there is
        return found


def refusal(head: bytes, size: int, cap: int = MAX_MESSAGE_BYTES, hint: str = "") -> Any:
    """The answer to a line past the cap. A tool call gets a tool result marked as an error, as any other refused
    argument does: the agent reads it and the episode goes on (a JSON-RPC error reads as a broken server to a
    client, and an agent must not earn an infrastructure failure by sending too much). Another request gets a
    JSON-RPC error for its id; a line whose id cannot be read, a parse error with id null."""
    import mcp_types

    members = leading_members(head)
    found = members.get("id")
    if not isinstance(found, (int, str)) or isinstance(found, bool):
        found = None
    text = refusal_text(size, cap, hint)
    if found is not None and members.get("method") == "tools/call":
        result = mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=text)], is_error=True)
        return mcp_types.JSONRPCResponse(jsonrpc="2.0", id=found,
                                         result=result.model_dump(by_alias=True, exclude_unset=True, mode="json"))
    code = mcp_types.INVALID_REQUEST if found is not None else mcp_types.PARSE_ERROR
    return mcp_types.JSONRPCError(jsonrpc="2.0", id=found, error=mcp_types.ErrorData(code=code, message=text))


class CappedLines:
    """The stdin the SDK's stdio_server iterates: lines of at most `cap` bytes. A longer line is dropped as it is
    read and answered on the write stream given to `bind` (the SDK makes it after it is handed this reader)."""

    def __init__(self, stream: BinaryIO, cap: int = MAX_MESSAGE_BYTES, hint: str = ""):
        import anyio

        self._stream, self._cap, self._hint = stream, cap, hint
        self._replies: Any = None
        self._bound = anyio.Event()

    def bind(self, write_stream: Any) -> None:
        self._replies = write_stream
        self._bound.set()

    def __aiter__(self) -> CappedLines:
        return self

    async def __anext__(self) -> str:
        import anyio.to_thread

        while True:
            line = await anyio.to_thread.run_sync(self._stream.readline, self._cap + 1)
            if not line:
                raise StopAsyncIteration
            if len(line) <= self._cap or line.endswith(b"\n"):
                return line.decode("utf-8", errors="replace")
            head, size = line[:_HEAD], len(line)
            del line
            size += await anyio.to_thread.run_sync(self._drop_rest)
            await self._refuse(head, size)

    def _drop_rest(self) -> int:
        dropped = 0
        while chunk := self._stream.readline(_CHUNK):
            dropped += len(chunk)
            if chunk.endswith(b"\n"):
                break
        return dropped

    async def _refuse(self, head: bytes, size: int) -> None:
        from mcp.shared.message import SessionMessage

        answer = refusal(head, size, self._cap, self._hint)
        await self._bound.wait()
        await self._replies.send(SessionMessage(answer))


@contextlib.contextmanager
def _claimed_stdin() -> Iterator[BinaryIO]:
    """The wire moves to a private descriptor and fd 0 reads the null device while serving, as the SDK does when it
    owns stdin: nothing a handler or child reads from stdin comes off the wire. The private descriptor is never
    closed (a reader thread may still block on it after the transport ends)."""
    try:
        on_fd0 = sys.stdin.fileno() == 0
    except (AttributeError, OSError, ValueError):  # replaced or closed (io.UnsupportedOperation is both)
        on_fd0 = False
    if not on_fd0:
        yield sys.stdin.buffer
        return
    private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield os.fdopen(private, "rb", buffering=_CHUNK, closefd=False)
    finally:
        os.dup2(private, 0)


@contextlib.asynccontextmanager
async def capped_stdio_server(cap: int = MAX_MESSAGE_BYTES, hint: str = "") -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio_server reading through CappedLines: yields its (read_stream, write_stream). `hint` ends
    the refusal: how this server's agent sends less."""
    from mcp.server.stdio import stdio_server

    with _claimed_stdin() as wire:
        lines = CappedLines(wire, cap, hint)
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
            lines.bind(write_stream)
            yield read_stream, write_stream


def cap_stdio(server: Any, hint: str = "") -> None:
    """Make `server.run()` over stdio read through the cap. Set on the instance: every generated server.py calls
    `server.run()` on an MCPServer built by its template, and add_claw_tools is the one runtime hook they share."""

    async def run_stdio_async() -> None:
        lowlevel = server._lowlevel_server  # as MCPServer.run_stdio_async itself runs it
        async with capped_stdio_server(hint=hint) as (read_stream, write_stream):
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    server.run_stdio_async = run_stdio_async
