"""Figures of `envcraft bench` beyond acquire and reset: tool calls through the farm beside the SDK driving the same server,
shell commands per sandbox backend, many live episodes at once, and the Docker backend."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import anyio.to_thread
from envcraft.harness.bench.served import wait_served
from envcraft.registry.catalog import Environment
from envcraft.registry.launch import InProcessLauncher, StdioLauncher, launch
from envcraft.registry.settings import Settings
from envcraft.registry.workspaces import WorkspaceRoot
from envcraft_runtime import settings as runtime_settings
from mcp import Client, StdioServerParameters

# The SDK's own figure: the smallest server the SDK can serve, one trivial tool.
SDK_BASELINE = '''
import sys
from mcp.server import MCPServer
server = MCPServer("baseline")

@server.tool()
def echo(text: str) -> str:
    """Echo text."""
    return text

if __name__ == "__main__":
    if "--http" in sys.argv:
        server.run("streamable-http", port=int(sys.argv[-1]))
    else:
        server.run()
'''


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _served(url: str, process: subprocess.Popen, headers: dict | None = None) -> None:
    await anyio.to_thread.run_sync(functools.partial(wait_served, url, process, headers))


async def _calls(client: Client, tool: str, args: dict, n: int) -> list[float]:
    await client.call_tool(tool, args)
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        await client.call_tool(tool, args)
        samples.append(time.perf_counter() - start)
    return samples


async def sdk_baseline_calls(n: int) -> dict[str, list[float]]:
    """echo on the bare SDK server: in-process, stdio and HTTP."""
    folder = Path(tempfile.mkdtemp(prefix="envcraft-bench-"))
    try:
        script = folder / "baseline.py"
        script.write_text(SDK_BASELINE)
        namespace: dict = {"__name__": "baseline"}
        exec(compile(SDK_BASELINE, str(script), "exec"), namespace)
        out = {}
        async with Client(namespace["server"]) as client:
            out["inprocess"] = await _calls(client, "echo", {"text": "x"}, n)
        async with Client(StdioServerParameters(command=sys.executable, args=[str(script)])) as client:
            out["stdio"] = await _calls(client, "echo", {"text": "x"}, n)
        port = _free_port()
        process = subprocess.Popen([sys.executable, str(script), "--http", str(port)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            await _served(f"http://127.0.0.1:{port}/mcp", process)
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                out["http"] = await _calls(client, "echo", {"text": "x"}, n)
        finally:
            process.terminate()
            process.wait(timeout=10)
        return out
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _http_calls(url: str, n: int) -> list[float]:
    async with Client(url) as client:
        return await _calls(client, "list_dir", {}, n)


async def farm_and_direct_calls(env: Environment, root: WorkspaceRoot, n: int) -> dict[str, tuple[list, list]]:
    """list_dir through the farm's path beside the same server driven directly with the SDK, per transport."""
    from envcraft.registry.launch import load_server_module

    out = {}
    async with launch(env, InProcessLauncher(), root) as instance:
        farm = await _calls(instance.client, "list_dir", {}, n)
    workspace = root.checkout(env.name, env.seed)
    try:
        async with Client(load_server_module(env).build_server(workspace)) as client:
            out["inprocess"] = (farm, await _calls(client, "list_dir", {}, n))
        async with launch(env, StdioLauncher(), root) as instance:
            farm = await _calls(instance.client, "list_dir", {}, n)
        direct = StdioServerParameters(command=sys.executable, args=[str(env.entrypoint), "--workspace", str(workspace)])
        async with Client(direct) as client:
            out["stdio"] = (farm, await _calls(client, "list_dir", {}, n))
        out["http"] = (await _gateway_calls(env, n), await _standalone_http_calls(env, workspace, n))
    finally:
        root.checkin(env.seed, workspace)
    return out


async def _standalone_http_calls(env: Environment, workspace: Path, n: int) -> list[float]:
    port = _free_port()
    process = subprocess.Popen([sys.executable, str(env.entrypoint), "--workspace", str(workspace), "--http",
                                "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        await _served(f"http://127.0.0.1:{port}/mcp", process)
        return await _http_calls(f"http://127.0.0.1:{port}/mcp", n)
    finally:
        process.terminate()
        process.wait(timeout=10)


async def _gateway_calls(env: Environment, n: int) -> list[float]:
    """The farm's HTTP path: `envcraft serve --all`, an episode created through the control API."""
    import json
    import secrets
    import urllib.request

    port, token = _free_port(), secrets.token_hex(8)
    process = subprocess.Popen([sys.executable, "-m", "envcraft.cli", "serve", "--all", "--port", str(port),
                                "--token", token], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        await _served(f"http://127.0.0.1:{port}/control/health", process, {"Authorization": f"Bearer {token}"})
        request = urllib.request.Request(f"http://127.0.0.1:{port}/control/episodes", method="POST",
                                         data=json.dumps({"env": env.name}).encode(),
                                         headers={"Authorization": f"Bearer {token}"})
        url = json.loads(await anyio.to_thread.run_sync(lambda: urllib.request.urlopen(request, timeout=30).read()))["url"]
        return await _http_calls(url, n)
    finally:
        process.terminate()
        process.wait(timeout=10)


async def shell_calls(env: Environment, root: WorkspaceRoot, n: int) -> dict[str, list[float]]:
    """A trivial shell command per sandbox backend (the per-command cost of containment)."""
    out = {}
    previous = runtime_settings.configured()
    try:
        for backend in ("process", "bwrap"):
            if backend == "bwrap" and not shutil.which("bwrap"):
                continue
            launcher = InProcessLauncher(Settings.from_env().with_runtime(sandbox=backend))  # a new server
            async with launch(env, launcher, root) as instance:
                out[backend] = await _calls(instance.client, "run_shell", {"command": "true"}, n)
    finally:
        runtime_settings.configure(previous)  # this process's servers as they were before the bench
    return out


async def plain_subprocess_calls(n: int) -> list[float]:
    """The floor a contained command is measured against: `sh -c true` as a plain subprocess, from a worker thread
    of this (large) process, as a tool call runs it."""
    import subprocess

    import anyio.to_thread

    def once() -> float:
        start = time.perf_counter()
        subprocess.run(["/bin/sh", "-c", "true"], stdin=subprocess.DEVNULL, capture_output=True)
        return time.perf_counter() - start

    await anyio.to_thread.run_sync(once)
    return [await anyio.to_thread.run_sync(once) for _ in range(n)]


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


async def many_live(env: Environment, count: int) -> dict:
    """`count` episodes live at once, each writing and reading back its own state."""
    root, launcher = WorkspaceRoot(), InProcessLauncher()
    before = _rss_mb(os.getpid())
    failures, crossed, live = 0, 0, 0
    everyone_live, peak = anyio.Event(), {}
    start = time.perf_counter()

    async def one(index: int) -> None:
        nonlocal failures, crossed, live
        try:
            async with launch(env, launcher, root) as instance:
                await instance.client.call_tool("write_file", {"path": "id.txt", "content": str(index)})
                live += 1
                if live == count:
                    peak["rss"] = _rss_mb(os.getpid())
                    peak["seconds"] = time.perf_counter() - start
                    everyone_live.set()
                await everyone_live.wait()
                text = (await instance.client.call_tool("read_file", {"path": "id.txt"})).content[0].text
                crossed += text != str(index)
        except Exception:  # noqa: BLE001 - any failure of one live episode is what the figure counts
            failures += 1
            everyone_live.set()

    try:
        async with anyio.create_task_group() as group:
            for index in range(count):
                group.start_soon(one, index)
    finally:
        root.close()
    return {"episodes": count, "failures": failures, "state_crossings": crossed,
            "rss_mb_before": round(before, 1), "rss_mb_peak": round(peak.get("rss", 0.0), 1),
            "seconds_to_all_live": round(peak.get("seconds", 0.0), 2)}


async def docker_acquire(env: Environment, n: int) -> dict[str, list[float]] | str:
    """Docker acquire (ask -> first tools/list answer), cold (create + start a container) and from the
    warm pool (a container started ahead of time, its server imported; timed once it is ready)."""
    try:
        from envcraft.registry.docker_launcher import DockerLauncher

        launcher = DockerLauncher()
        launcher.client  # noqa: B018 - fails fast when no engine answers
    except Exception as exc:  # noqa: BLE001 - no engine here: report why instead of a figure
        return f"skipped: {type(exc).__name__}: {exc}"
    root = WorkspaceRoot()
    warm = DockerLauncher(warm=1)
    out: dict[str, list[float]] = {"cold": [], "warm": []}
    try:
        for index in range(n + 1):
            start = time.perf_counter()
            async with launch(env, launcher, root) as instance:
                await instance.client.list_tools()
                if index:  # the first one may build the image
                    out["cold"].append(time.perf_counter() - start)
        for _ in range(n):
            if not await anyio.to_thread.run_sync(warm.pool.wait_ready, env, root):
                return f"skipped: the warm pool did not fill: {warm.pool.errors}"
            start = time.perf_counter()
            async with launch(env, warm, root) as instance:
                await instance.client.list_tools()
                out["warm"].append(time.perf_counter() - start)
    finally:
        await anyio.to_thread.run_sync(warm.close)
        root.close()
    return out
