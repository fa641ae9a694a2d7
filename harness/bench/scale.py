"""`envcraft bench --scale`: throughput figures, each beside its baseline measured in the same run.

- gateway tool calls/s at 32 and 256 concurrent episodes: 1 gateway worker against the MCP SDK's own
  standalone HTTP server (`server.py --http`) on the same load, and 2 workers against 1;
- gold replay over the catalog (`envcraft run --agent gold --limit 2 --concurrency 8`) in episodes/s,
  beside the same run on the SDK's default path (tool schemas derived by the SDK at each build, output
  validators compiled per session), and a cold start of ours (an empty schema cache); and the same run
  sharded over 2 local worker processes (`--workers 2`) against 1;
- `run --ray` episodes/s on a 1-node against a 2-node local cluster (with the [ray] extra).

Load comes from two separate client processes (load.py), the same for every variant; by
default they send the SDK client's own request bytes over kept-alive connections ("wire"), which costs
~0.5 ms of client CPU a call where the SDK's `Client` costs ~5 ms (more than the server's ~2 ms), so the
servers set the pace. Every gateway figure carries the CPU seconds the servers and the load used while
the clock ran: on a machine whose cores are shared, calls per server CPU-second is the fair comparison,
and cores used (server CPU / seconds) says how much of the machine the servers actually got.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
from envcraft.core.paths import HOME
from envcraft.harness.bench.served import wait_served
from envcraft.registry.catalog import get
from envcraft.registry.settings import Settings
from envcraft.registry.workspaces import WorkspaceRoot


def _port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def _process(argv: list[str]) -> Iterator[subprocess.Popen]:
    process = subprocess.Popen(argv, cwd=HOME, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def tree_cpu(pid: int) -> float:
    """CPU seconds used so far by a process and every live descendant (Linux /proc)."""
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
        used[int(stat.parent.name)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    tree, grew = {pid}, True
    while grew:
        more = {child for child, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    return sum(used.get(p, 0.0) for p in tree)


def drive(urls: list[str], seconds: float, clients: int = 2, server_pid: int | None = None,
          client: str = "wire") -> dict[str, float]:
    """Calls/s of `len(urls)` concurrent sessions, spread over `clients` load processes; with the CPU seconds
    the load processes and (given its pid) the server's process tree used while the clock ran."""
    import resource

    shares = [urls[i::clients] for i in range(clients)]
    procs = [subprocess.Popen([sys.executable, "-m", "envcraft.harness.bench.load", json.dumps(share), str(seconds),
                               client],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=HOME, text=True)
             for share in shares if share]
    for proc in procs:  # every session is open before the clock starts
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError("a load process failed to open its sessions")
    start_at = time.time() + 0.5
    load_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_before = tree_cpu(server_pid) if server_pid else 0.0
    for proc in procs:
        proc.stdin.write(f"{start_at}\n")
        proc.stdin.flush()
    counts = [json.loads(proc.communicate(timeout=600)[0].strip().splitlines()[-1]) for proc in procs]
    server_cpu = tree_cpu(server_pid) - server_before if server_pid else None
    load_after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the load processes have exited: theirs alone
    load_cpu = (load_after.ru_utime - load_before.ru_utime) + (load_after.ru_stime - load_before.ru_stime)
    calls, errors = sum(c["calls"] for c in counts), sum(c["errors"] for c in counts)
    figures = {"calls_per_s": round(calls / seconds, 1), "errors": errors, "episodes": len(urls),
               "load_cpu_s": round(load_cpu, 1)}  # includes opening the sessions, before the clock
    if server_cpu is not None:
        figures["server_cpu_s"] = round(server_cpu, 1)
        figures["calls_per_server_cpu_s"] = round(calls / max(server_cpu, 1e-9), 1)
    return figures


def gateway_calls(episodes: int, workers: int, seconds: float, client: str = "wire") -> dict[str, float]:
    port, token = _port(), secrets.token_hex(8)
    argv = [sys.executable, "-m", "envcraft.cli", "serve", "--all", "--port", str(port), "--token", token,
            "--max-episodes", str(max(episodes * 2, 512))]
    if workers > 1:
        argv += ["--workers", str(workers)]
    headers = {"Authorization": f"Bearer {token}"}
    with _process(argv) as process:
        wait_served(f"http://127.0.0.1:{port}/control/health", process, headers)
        urls = [httpx2.post(f"http://127.0.0.1:{port}/control/episodes", json={"env": "office"}, headers=headers,
                            timeout=60).json()["url"] for _ in range(episodes)]
        return drive(urls, seconds, server_pid=process.pid, client=client)


def standalone_calls(episodes: int, seconds: float, client: str = "wire") -> dict[str, float]:
    """The SDK's standalone streamable-HTTP server of the same environment, one session per client."""
    env, root = get("office"), WorkspaceRoot()
    try:
        workspace = root.checkout(env.name, env.seed)
        port = _port()
        with _process([sys.executable, str(env.entrypoint), "--workspace", str(workspace), "--http", "--port",
                       str(port)]) as process:
            wait_served(f"http://127.0.0.1:{port}/mcp", process)
            return drive([f"http://127.0.0.1:{port}/mcp"] * episodes, seconds, server_pid=process.pid,
                         client=client)
    finally:
        root.close()


def gold_replay(sdk_default: bool = False, cache_dir: str | None = None, limit: int = 2,
                concurrency: int = 8, workers: int = 1) -> dict[str, float]:
    """`envcraft run --agent gold` over the catalog in a fresh process: episodes/s from its start to its exit,
    and the CPU seconds it used (on a shared machine the wall clock also holds other processes' turns).

    sdk_default: tool schemas derived by the SDK at each build and output validators compiled per session (the
    SDK's own behaviour); cache_dir: where the runtime keeps derived tool schemas (an empty folder: a cold start)."""
    import resource

    with tempfile.TemporaryDirectory() as scratch:
        # The child run's settings, in its own environment (how a process of its own learns them).
        runtime = Settings.from_env().runtime.replace(tool_cache=not sdk_default, cache_dir=cache_dir or None)
        env = {**os.environ, **runtime.to_environ(), "ENVCRAFT_SCHEMA_CACHE": "0" if sdk_default else "1"}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "envcraft.cli", "run", "--agent", "gold", "--limit", str(limit),
                               "--concurrency", str(concurrency), "--workers", str(workers), "--out",
                               f"{scratch}/run"], cwd=HOME, env=env,
                              capture_output=True, text=True, timeout=3600)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise RuntimeError(f"the gold run failed: {done.stderr[-2000:]}")
        rollouts = [json.loads(line) for line in Path(f"{scratch}/run/rollouts.jsonl").read_text().splitlines()]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"episodes": len(rollouts), "passed": sum(r["passed"] for r in rollouts), "seconds": round(seconds, 1),
            "episodes_per_s": round(len(rollouts) / seconds, 2), "cpu_seconds": round(cpu, 1),
            "episodes_per_cpu_s": round(len(rollouts) / max(cpu, 1e-9), 2)}


def gold_rows() -> list[dict]:
    """Ours with a warm schema cache (after a cold start that fills it) against the SDK's default path."""
    with tempfile.TemporaryDirectory() as cache:
        cold = gold_replay(cache_dir=cache)
        warm = gold_replay(cache_dir=cache)
        two = gold_replay(cache_dir=cache, workers=2)
    sdk = gold_replay(sdk_default=True)
    return [{"figure": "gold replay over the catalog (--limit 2 --concurrency 8), episodes/s: cached tool schemas "
                       "and shared validators vs the SDK's per-server derivation and per-session compiles",
             "ours": warm, "baseline": sdk, "cold_start": cold,
             "ratio": round(warm["episodes_per_s"] / max(sdk["episodes_per_s"], 1e-9), 2), "target": ">= 30 ep/s"},
            {"figure": "gold replay over the catalog (--limit 2 --concurrency 8), episodes/s: --workers 2 vs 1 "
                       "(both with the warm schema cache)",
             "ours": two, "baseline": warm, "ratio": round(two["episodes_per_s"] / max(warm["episodes_per_s"], 1e-9), 2),
             "target": ">= 30 ep/s; ~2x on 2 idle cores"}]


def measure(seconds: float = 8.0, loads: tuple[int, ...] = (32, 256), gold: bool = True, ray: bool = True,
            show=None) -> list[dict]:
    """Every figure; `show(row)` is called as each lands (a long bench shows its figures as it goes)."""
    rows = _Rows(show)
    for episodes in loads:
        sdk = standalone_calls(episodes, seconds)
        one = gateway_calls(episodes, 1, seconds)
        two = gateway_calls(episodes, 2, seconds)
        for figures in (sdk, one, two):
            figures["server_cores"] = round(figures.get("server_cpu_s", 0.0) / seconds, 2)
        rows.append({"figure": f"gateway list_dir calls/s, {episodes} episodes: 1 worker vs SDK standalone",
                     "ours": one, "baseline": sdk, "ratio": round(one["calls_per_s"] / max(sdk["calls_per_s"], 1e-9), 2),
                     "target": ">= 1.0"})
        rows.append({"figure": f"gateway list_dir calls/s, {episodes} episodes: 2 workers vs 1",
                     "ours": two, "baseline": one, "ratio": round(two["calls_per_s"] / max(one["calls_per_s"], 1e-9), 2),
                     "target": ">= 1.6 on 2 cores"})
    if gold:
        for row in gold_rows():
            rows.append(row)
    if ray:
        import importlib.util

        if importlib.util.find_spec("ray") is not None:  # the [ray] extra
            from envcraft.harness.bench.on_ray import ray_rows

            for row in ray_rows():
                rows.append(row)
    return list(rows)


class _Rows(list):
    def __init__(self, show=None):
        super().__init__()
        self.show = show

    def append(self, row: dict) -> None:
        super().append(row)
        if self.show:
            self.show(row)


def table(rows: list[dict]) -> str:
    lines = []
    for row in rows:
        ours, base = row["ours"], row["baseline"]
        key = "calls_per_s" if "calls_per_s" in ours else "episodes_per_s"
        lines.append(f"{row['figure']}\n    ours {ours[key]}  baseline {base[key]}  ratio {row['ratio']}x  "
                     f"(target {row['target']}; errors {ours.get('errors', 0)}/{base.get('errors', 0)})")
        if "server_cpu_s" in ours:
            lines.append(f"    calls per server CPU-s: ours {ours['calls_per_server_cpu_s']} baseline "
                         f"{base['calls_per_server_cpu_s']}; server cores used: ours {ours.get('server_cores')} baseline "
                         f"{base.get('server_cores')}; load CPU s: {ours['load_cpu_s']}/{base['load_cpu_s']}")
        if "cpu_seconds" in ours:
            cold = row.get("cold_start")
            lines.append(f"    CPU s: ours {ours['cpu_seconds']} ({ours['episodes_per_cpu_s']} ep/CPU-s), baseline "
                         f"{base['cpu_seconds']} ({base['episodes_per_cpu_s']} ep/CPU-s)" + (
                             f"; cold schema cache: {cold['episodes_per_s']} ep/s, {cold['cpu_seconds']} CPU s"
                             if cold else ""))
    return "\n".join(lines)


FIGURES = ("gateway", "gold", "ray")


def run_scale_bench(out: Path | None = None, seconds: float = 8.0, figures: tuple[str, ...] = FIGURES) -> int:
    rows = measure(seconds, loads=(32, 256) if "gateway" in figures else (), gold="gold" in figures,
                   ray="ray" in figures, show=lambda row: print(table([row]), flush=True))
    if out:
        Path(out).write_text(json.dumps(rows, indent=1))
    return 0
