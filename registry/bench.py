"""`envcraft bench`: acquire, reset and tool-call figures, each beside a baseline measured in the same run.

Baseline: spawning `python server.py` per episode over stdio, the way most harnesses do it.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

from registry.catalog import Environment, get
from registry.launch import InProcessLauncher, Launcher, StdioLauncher, launch, make_launcher
from registry.workspaces import WorkspaceRoot


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"p50_ms": round(pick(0.5) * 1000, 2), "p99_ms": round(pick(0.99) * 1000, 2),
            "mean_ms": round(statistics.mean(ordered) * 1000, 2), "n": len(ordered)}


async def _timed(n: int, fn: Callable[[], Awaitable[None]]) -> list[float]:
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        await fn()
        samples.append(time.perf_counter() - start)
    return samples


async def acquire_samples(env: Environment, launcher: Launcher, root: WorkspaceRoot, n: int) -> list[float]:
    """Time from asking for an instance to its first tools/list answer."""
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        async with launch(env, launcher, root) as instance:
            await instance.client.list_tools()
            samples.append(time.perf_counter() - start)
    return samples


async def _cold_acquire(env: Environment, root: WorkspaceRoot) -> float:
    """No pool, no cached server: copy the seed, build the server, connect, list tools."""
    fresh = WorkspaceRoot(root.path / "cold", max_idle=0)
    try:
        return (await acquire_samples(env, InProcessLauncher(), fresh, 1))[0]
    finally:
        fresh.close()


async def call_samples(env: Environment, launcher: Launcher, root: WorkspaceRoot, n: int) -> list[float]:
    async with launch(env, launcher, root) as instance:
        await instance.client.call_tool("list_dir", {})
        return await _timed(n, lambda: instance.client.call_tool("list_dir", {}))


async def reset_samples(env: Environment, root: WorkspaceRoot, n: int) -> list[float]:
    async with launch(env, InProcessLauncher(), root) as instance:
        async def reset() -> None:
            instance.reset()
        return await _timed(n, reset)


async def measure(env_name: str = "office", n: int = 30, baseline_n: int = 5) -> dict:
    env, root = get(env_name), WorkspaceRoot()
    try:
        inproc, stdio = InProcessLauncher(), StdioLauncher()
        await acquire_samples(env, InProcessLauncher(), WorkspaceRoot(root.path / "cold"), 2)  # warm imports
        cold = [await _cold_acquire(env, root) for _ in range(n // 3 or 1)]
        root.prewarm(env.name, env.seed, 4)
        await acquire_samples(env, inproc, root, 4)  # servers built for the pooled workspaces
        figures = {
            "acquire_pooled_inprocess": _percentiles(await acquire_samples(env, inproc, root, n)),
            "acquire_cold_inprocess": _percentiles(cold),
            "acquire_spawn_stdio_baseline": _percentiles(await acquire_samples(env, stdio, root, baseline_n)),
            "reset": _percentiles(await reset_samples(env, root, n)),
            "call_inprocess": _percentiles(await call_samples(env, inproc, root, n * 5)),
            "call_stdio": _percentiles(await call_samples(env, stdio, root, n * 5)),
        }
    finally:
        root.close()
    base = figures["acquire_spawn_stdio_baseline"]["p50_ms"]
    figures["acquire_speedup_vs_spawn"] = round(base / max(figures["acquire_pooled_inprocess"]["p50_ms"], 1e-6), 1)
    return figures


def table(figures: dict) -> str:
    lines = [f"{'figure':<32} {'p50 ms':>9} {'p99 ms':>9} {'mean ms':>9} {'n':>5}"]
    for name, value in figures.items():
        if isinstance(value, dict):
            lines.append(f"{name:<32} {value['p50_ms']:>9.2f} {value['p99_ms']:>9.2f} {value['mean_ms']:>9.2f} {value['n']:>5}")
        else:
            lines.append(f"{name:<32} {value:>9}x")
    return "\n".join(lines)


def run_bench(env: str, n: int, out: Path | None) -> int:
    figures = anyio.run(measure, env, n)
    print(table(figures))
    print(json.dumps(figures))
    if out:
        Path(out).write_text(json.dumps(figures, indent=1))
    return 0
