"""A load generator process for `envcraft bench --scale`: one MCP client per URL, each calling `list_dir`
back to back until the deadline; prints how many calls completed (and how many failed) as JSON."""

from __future__ import annotations

import json
import sys
import time

import anyio
import anyio.to_thread
from mcp import Client


async def load(urls: list[str], seconds: float) -> dict[str, int]:
    """Open every session, say `ready`, wait for the driver's start time on stdin, then call until it ends."""
    counts = {"calls": 0, "errors": 0}
    opened, start = anyio.Event(), anyio.Event()
    ready = [0]
    when: list[float] = []

    async def one(url: str) -> None:
        async with Client(url) as client:
            await client.call_tool("list_dir", {})
            ready[0] += 1
            if ready[0] == len(urls):
                opened.set()
            await start.wait()
            await anyio.sleep(max(when[0] - time.time(), 0))
            deadline = when[0] + seconds
            while time.time() < deadline:
                try:
                    result = await client.call_tool("list_dir", {})
                    counts["errors" if result.is_error else "calls"] += 1
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
    print(json.dumps(anyio.run(load, urls, seconds)), flush=True)
