"""A load generator process for `envcraft bench --scale`: one session per URL, each calling `list_dir` back to
back until the deadline; prints how many calls completed (and how many failed) as JSON.

Two clients: "sdk" drives each session with the MCP SDK's own `Client` over streamable HTTP; "wire" sends
the very bytes that client sends for the call (a 2026-07-28 request is self-contained: no session state)
over one kept-alive HTTP/1.1 connection per session, and reads each answer's status and body. The server
does the same work either way; "wire" needs a fraction of the client CPU, so on a small machine the
servers, not the load generator, set the pace.
"""

from __future__ import annotations

import json
import sys
import time
from urllib.parse import urlsplit

import anyio
import anyio.to_thread

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "mcp", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": {}}


def wire_request(url: str, call_id: int) -> bytes:
    """The HTTP request the SDK client (mcp 2.3, protocol 2026-07-28) sends for tools/call list_dir {}."""
    parts = urlsplit(url)
    body = json.dumps({"jsonrpc": "2.0", "id": call_id, "method": "tools/call",
                       "params": {"name": "list_dir", "arguments": {}, "_meta": META}}, separators=(",", ":")).encode()
    head = (f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: keep-alive\r\n"
            "accept: application/json, text/event-stream\r\ncontent-type: application/json\r\n"
            "mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: list_dir\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    return head.encode() + body


class WireSession:
    """One kept-alive connection; `call()` is True for a 200 answer whose result is not an error."""

    def __init__(self, url: str):
        self.url, self.calls, self.buffer = url, 0, b""

    async def __aenter__(self) -> WireSession:
        parts = urlsplit(self.url)
        self.stream = await anyio.connect_tcp(parts.hostname, parts.port or 80)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stream.aclose()

    async def _read_until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self.buffer += await self.stream.receive()
        head, self.buffer = self.buffer.split(marker, 1)
        return head

    async def call(self) -> bool:
        self.calls += 1
        await self.stream.send(wire_request(self.url, self.calls))
        head = (await self._read_until(b"\r\n\r\n")).decode("latin-1").lower()
        length = int(head.split("content-length:", 1)[1].split("\r\n", 1)[0])  # the server answers with a length
        while len(self.buffer) < length:
            self.buffer += await self.stream.receive()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return head.startswith("http/1.1 200") and b'"isError":false' in body


class SdkSession:
    def __init__(self, url: str):
        from mcp import Client  # imported here: a wire load process never pays for the SDK (~1.5 s)

        self.client = Client(url)

    async def __aenter__(self) -> SdkSession:
        await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.__aexit__(*exc)

    async def call(self) -> bool:
        return not (await self.client.call_tool("list_dir", {})).is_error


async def load(urls: list[str], seconds: float, client: str = "sdk") -> dict[str, int]:
    """Open every session, say `ready`, wait for the driver's start time on stdin, then call until it ends."""
    counts = {"calls": 0, "errors": 0}
    opened, start = anyio.Event(), anyio.Event()
    ready = [0]
    when: list[float] = []
    session_type = WireSession if client == "wire" else SdkSession

    async def one(url: str) -> None:
        async with session_type(url) as session:
            if not await session.call():
                raise RuntimeError(f"the first call at {url} failed")
            ready[0] += 1
            if ready[0] == len(urls):
                opened.set()
            await start.wait()
            await anyio.sleep(max(when[0] - time.time(), 0))
            deadline = when[0] + seconds
            while time.time() < deadline:
                try:
                    counts["calls" if await session.call() else "errors"] += 1
                except Exception:  # noqa: BLE001 - counted: a refused call is a figure, not a crash
                    counts["errors"] += 1

    async def barrier() -> None:
        await opened.wait()
        print("ready", flush=True)
        when.append(float(await anyio.to_thread.run_sync(sys.stdin.readline)))
        start.set()

    async with anyio.create_task_group() as group:
        group.start_soon(barrier)
        for url in urls:
            group.start_soon(one, url)
    return counts


if __name__ == "__main__":
    urls, seconds = json.loads(sys.argv[1]), float(sys.argv[2])
    print(json.dumps(anyio.run(load, urls, seconds, sys.argv[3] if len(sys.argv) > 3 else "sdk")), flush=True)
