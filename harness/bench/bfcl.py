"""`envcraft bench` rows for a standard benchmark's episode beside ours: a BFCL multi-turn episode's acquire
(BFCL builds the task's API instances from its initial_config, the episode's MCP server is built, connected in
memory, tools listed) and one tool call on it (BFCL's executor running `ls`)."""

from __future__ import annotations

import time

from envcraft.benchmarks.registry import get
from mcp import Client

TASKS = {"base": "bfcl-multi_turn_base_0", "long_context": "bfcl-multi_turn_long_context_0"}


async def _acquire(bench, task) -> float:
    start = time.perf_counter()
    episode = bench.open(task)
    try:
        async with Client(episode.server) as client:
            await client.list_tools()
            return time.perf_counter() - start
    finally:
        episode.close()


async def bfcl_samples(n: int) -> dict[str, list[float]] | str:
    """Samples per figure, or why there are none (BFCL not installed)."""
    bench = get("bfcl-multi-turn")
    if problem := bench.installed():
        return problem
    tasks = {name: bench.task(task_id) for name, task_id in TASKS.items()}
    for task in tasks.values():
        await _acquire(bench, task)  # BFCL's modules imported, its data read: not part of an episode's cost
    out = {f"acquire ({name})": [await _acquire(bench, task) for _ in range(n)] for name, task in tasks.items()}
    episode = bench.open(tasks["base"])
    try:
        async with Client(episode.server) as client:
            await client.call_tool("ls", {})
            calls = []
            for _ in range(n):
                start = time.perf_counter()
                await client.call_tool("ls", {})
                calls.append(time.perf_counter() - start)
            out["tool call ls (base)"] = calls
    finally:
        episode.close()
    return out
