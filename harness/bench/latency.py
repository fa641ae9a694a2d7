"""`envcraft bench`: acquire, reset, tool-call and grading figures, each beside a baseline measured in the same run.

Baseline: spawning `python server.py` per episode over stdio, the way most harnesses do it; for grading, the world
index built for each check (harness/bench/grading.py).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
from envcraft.registry.catalog import Environment, get
from envcraft.registry.launch import InProcessLauncher, Launcher, StdioLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot


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
    """Reset after the episode changed things: a new file, an edited seed file, a domain write."""
    samples = []
    async with launch(env, InProcessLauncher(), root) as instance:
        for index in range(n):
            await instance.client.call_tool("write_file", {"path": f"notes/n{index}.md", "content": "draft"})
            await instance.client.call_tool("write_file", {"path": "SKILL.md", "content": "overwritten"})
            (instance.workspace / ".app" / "state.json").write_text("{}")  # what any domain write touches
            start = time.perf_counter()
            instance.reset()
            samples.append(time.perf_counter() - start)
    return samples


def _row(figure: str, ours: list[float], baseline: list[float] | None = None, target: str = "") -> dict:
    row = {"figure": figure, "ours": _percentiles(ours), "target": target}
    if baseline:
        row["baseline"] = _percentiles(baseline)
        row["speedup_p50"] = round(row["baseline"]["p50_ms"] / max(row["ours"]["p50_ms"], 1e-6), 2)
    return row


async def measure(env_name: str = "office", n: int = 30, baseline_n: int = 5, live: int = 256,
                  docker_n: int = 10) -> dict:
    from envcraft.harness.bench import bfcl as bench_bfcl
    from envcraft.harness.bench import figures as bench_figures

    env, root = get(env_name), WorkspaceRoot()
    rows = []
    try:
        inproc, stdio = InProcessLauncher(), StdioLauncher()
        await acquire_samples(env, InProcessLauncher(), WorkspaceRoot(root.path / "cold"), 2)  # warm imports
        spawn = await acquire_samples(env, stdio, root, baseline_n)
        cold = [await _cold_acquire(env, root) for _ in range(max(n // 3, 1))]
        root.prewarm(env.name, env.seed, 4)
        await acquire_samples(env, inproc, root, 4)  # servers built for the pooled workspaces
        rows.append(_row("acquire (pooled, in-process, bwrap shell)", await acquire_samples(env, inproc, root, n * 10),
                         spawn, "p50<=25ms p99<=100ms, >=40x spawn"))
        rows.append(_row("acquire (cold: copy seed + build server)", cold, spawn))
        rows.append(_row("reset to initial state", await reset_samples(env, root, n), None, "<=10ms"))
        bfcl = await bench_bfcl.bfcl_samples(n * 3)  # a standard benchmark's episode beside ours
        for figure, samples in bfcl.items() if isinstance(bfcl, dict) else ():
            rows.append(_row(f"BFCL episode: {figure}", samples, None, f"beside {env_name}'s rows"))
        sdk = await bench_figures.sdk_baseline_calls(n * 5)
        calls = await bench_figures.farm_and_direct_calls(env, root, n * 5)
        for transport, (farm, direct) in calls.items():
            rows.append(_row(f"tool call via farm ({transport}) vs SDK direct", farm, direct, "ratio >= ~1"))
        for transport, floor in sdk.items():
            rows.append(_row(f"SDK floor: bare echo tool ({transport})", floor))
        shells = await bench_figures.shell_calls(env, root, n)
        if "bwrap" in shells:
            plain = await bench_figures.plain_subprocess_calls(n)
            rows.append(_row("shell command 'true': bwrap vs plain subprocess", shells["bwrap"], plain, "p50<=15ms"))
            rows.append(_row("shell command 'true': bwrap vs process", shells["bwrap"], shells["process"]))
        docker = await bench_figures.docker_acquire(env, docker_n)
        if isinstance(docker, dict):
            rows.append(_row("acquire (docker, warm pool) vs docker cold", docker["warm"], docker["cold"], "p50<=100ms"))
            rows.append(_row("acquire (docker, cold) vs stdio spawn", docker["cold"], spawn))
        rows += grading_rows(env_name, n)
        concurrency = await bench_figures.many_live(env, live)
    finally:
        root.close()
    return {"env": env_name, "rows": rows, "concurrency": concurrency,
            "docker": docker if isinstance(docker, str) else "ok", "bfcl": bfcl if isinstance(bfcl, str) else "ok"}


def grading_rows(env_name: str, n: int) -> list[dict]:
    """An answer check and a question task's grade: the world index found vs built each time."""
    from envcraft.harness.bench.grading import grading_samples

    return [_row(f"{figure}: world index found vs built", ours, built, "ratio > 1")
            for figure, (ours, built) in grading_samples(env_name, n=n).items()]


def run_grading_bench(env: str, n: int, out: Path | None) -> int:
    """`envcraft bench --grading`: the grading figures alone (no server, no Docker)."""
    rows = grading_rows(env, n)
    for row in rows:
        ours, base = row["ours"], row["baseline"]
        print(f"{row['figure']:<52} ours p50 {ours['p50_ms']:.3f} ms mean {ours['mean_ms']:.3f} ms | built each time "
              f"p50 {base['p50_ms']:.3f} ms mean {base['mean_ms']:.3f} ms | {row['speedup_p50']}x (n={ours['n']})")
    print(json.dumps({"env": env, "rows": rows}))
    if out:
        Path(out).write_text(json.dumps({"env": env, "rows": rows}, indent=1))
    return 0


def table(figures: dict) -> str:
    lines = [f"{'figure':<46} {'p50 ms':>8} {'p99 ms':>8} {'baseline p50':>13} {'ratio':>7}  target"]
    for row in figures["rows"]:
        ours, base = row["ours"], row.get("baseline")
        base_p50 = f"{base['p50_ms']:.2f}" if base else "-"
        ratio = f"{row['speedup_p50']}x" if base else "-"
        lines.append(f"{row['figure']:<46} {ours['p50_ms']:>8.2f} {ours['p99_ms']:>8.2f} {base_p50:>13} {ratio:>7}  "
                     f"{row['target']}")
    live = figures["concurrency"]
    lines.append(f"live episodes at once: {live['episodes']}, failures {live['failures']}, state crossings "
                 f"{live['state_crossings']}, RSS {live['rss_mb_before']} -> {live['rss_mb_peak']} MB "
                 f"(target < 12 GiB), all live after {live['seconds_to_all_live']} s")
    if figures.get("bfcl", "ok") != "ok":
        lines.append(f"bfcl: {figures['bfcl']}")
    if figures["docker"] != "ok":
        lines.append(f"docker: {figures['docker']}")
    lines.append("baselines: acquire = spawn `python server.py` + stdio connect per episode; tool call = the same "
                 "list_dir tool of the same server driven directly with the MCP SDK on the same transport (http: "
                 "standalone server.py --http vs the gateway); ratio = baseline p50 / ours p50")
    return "\n".join(lines)


def run_bench(env: str, n: int, out: Path | None, live: int = 256) -> int:
    import logging

    for name in ("httpx", "httpx2", "mcp"):
        logging.getLogger(name).setLevel(logging.WARNING)
    figures = anyio.run(measure, env, n, 5, live, 10)
    print(table(figures))
    print(json.dumps(figures))
    if out:
        Path(out).write_text(json.dumps(figures, indent=1))
    return 0
