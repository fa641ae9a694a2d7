"""A load generator process for `envcraft bench --scale`: one MCP client per URL, each calling `list_dir`
back to back until the deadline; prints how many calls completed (and how many failed) as JSON."""

from __future__ import annotations

import json
import sys
import time

import anyio
from mcp import Client


async def load(urls: list[str], seconds: float, start_at: float) -> dict[str, int]:
    counts = {"calls": 0, "errors": 0}

    async def one(url: str, ready: anyio.Event) -> None:
        async with Client(url) as client:
            await client.call_tool("list_dir", {})
            ready.set()
            await anyio.sleep(max(start_at - time.time(), 0))
            deadline = start_at + seconds
            while time.time() < deadline:
                try:
                    result = await client.call_tool("list_dir", {})
                    counts["errors" if result.is_error else "calls"] += 1
                except Exception:  # noqa: BLE001 - counted: a refused call is a figure, not a crash
                    counts["errors"] += 1

    async with anyio.create_task_group() as group:
        for url in urls:
            group.start_soon(one, url, anyio.Event())
    return counts


if __name__ == "__main__":
    urls, seconds, start_at = json.loads(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    print(json.dumps(anyio.run(load, urls, seconds, start_at)))
