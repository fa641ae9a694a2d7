"""An MCP transport over a running container's stdin/stdout, straight through the engine's API.

`docker attach` would do the same through a client process whose start alone costs ~60 ms; a
warm container (docker_pool.py) is meant to be handed out in less than that. So: one request on
the engine's Unix socket (`POST /containers/<id>/attach`, upgraded to a raw stream), newline-
delimited JSON-RPC written to the container's stdin, and its stdout read back out of the
engine's multiplexed frames (8-byte header: stream type, then big-endian length).

Closing the write half ends the container's stdin (the container is StdinOnce), so the server
sees EOF and exits, as it would under `docker attach`.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import AsyncIterator

import anyio
import mcp_types as types
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage

DEFAULT_SOCKET = "/var/run/docker.sock"
STDOUT = 1


def engine_socket() -> str | None:
    """The engine's Unix socket, or None when DOCKER_HOST points elsewhere (then use the CLI)."""
    host = os.environ.get("DOCKER_HOST", f"unix://{DEFAULT_SOCKET}")
    if not host.startswith("unix://") or os.environ.get("DOCKER_CONTEXT"):
        return None
    path = host.removeprefix("unix://")
    return path if os.path.exists(path) else None


class AttachError(RuntimeError):
    pass


async def _upgrade(stream: anyio.abc.ByteStream, container_id: str) -> bytes:
    request = (f"POST /containers/{container_id}/attach?stream=1&stdin=1&stdout=1&stderr=0 HTTP/1.1\r\n"
               "Host: docker\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Length: 0\r\n\r\n")
    await stream.send(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = await stream.receive(65536)
        head += chunk
        if len(head) > 65536:
            raise AttachError("the engine's answer to attach has no end of headers")
    head, rest = head.split(b"\r\n\r\n", 1)
    status = head.split(b"\r\n", 1)[0]
    if b" 101 " not in status and b" 200 " not in status:
        raise AttachError(f"the engine refused to attach to {container_id[:12]}: {status.decode(errors='replace')}")
    return rest


@contextlib.asynccontextmanager
async def attach(container_id: str, socket_path: str) -> AsyncIterator[TransportStreams]:
    """An MCP Transport: (read stream, write stream) of the container's server."""
    stream = await anyio.connect_unix(socket_path)
    async with stream:
        pending = await _upgrade(stream, container_id)
        to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)

        async def read() -> None:
            nonlocal pending
            buffer = b""
            async with to_session:
                try:
                    while True:
                        while len(pending) < 8:
                            pending += await stream.receive(65536)
                        kind, size = pending[0], struct.unpack(">I", pending[4:8])[0]
                        while len(pending) < 8 + size:
                            pending += await stream.receive(65536)
                        payload, pending = pending[8:8 + size], pending[8 + size:]
                        if kind != STDOUT:
                            continue
                        lines = (buffer + payload).split(b"\n")
                        buffer = lines.pop()
                        for line in lines:
                            if line.strip():
                                await to_session.send(_parse(line))
                except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    return

        written = anyio.Event()

        async def write() -> None:
            async with from_session:
                async for message in from_session:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await stream.send(data.encode() + b"\n")
            with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await stream.send_eof()  # the container's stdin ends: its server exits
            written.set()

        async with anyio.create_task_group() as group:
            group.start_soon(read)
            group.start_soon(write)
            try:
                yield read_stream, write_stream
            finally:
                write_stream.close()
                with anyio.move_on_after(1, shield=True):
                    await written.wait()
                read_stream.close()
                group.cancel_scope.cancel()


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc
