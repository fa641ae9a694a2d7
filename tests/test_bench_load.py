"""The bench's tools: the wire load sends a call the SDK's server answers, and the collector tuning holds."""

from __future__ import annotations

import os
import subprocess
import sys

import anyio
import pytest
from envcraft.harness.bench_load import WireSession
from envcraft.registry.catalog import get
from envcraft.registry.workspaces import WorkspaceRoot

from tests.helpers import free_port, wait_for_port

pytestmark = pytest.mark.anyio


async def test_the_wire_load_is_a_call_the_sdk_server_answers(tmp_path):
    env, root = get("office"), WorkspaceRoot(tmp_path)
    workspace, port = root.checkout(env.name, env.seed), free_port()
    server = subprocess.Popen([sys.executable, str(env.entrypoint), "--workspace", str(workspace), "--http",
                               "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        await anyio.to_thread.run_sync(wait_for_port, port, 60.0)
        async with WireSession(f"http://127.0.0.1:{port}/mcp") as session:
            assert [await session.call() for _ in range(3)] == [True, True, True]  # one connection, kept alive
        async with WireSession(f"http://127.0.0.1:{port}/nowhere") as session:
            assert not await session.call()  # a refused request is counted as an error, not a call
    finally:
        server.terminate()
        server.wait(timeout=30)
        root.close()


@pytest.mark.parametrize(("setting", "expected"), [("", "50000 50 100 True"), ("0", "700 10 10 False")])
def test_the_collector_is_tuned_once_start_up_is_done(setting, expected):
    probe = ("import gc; from envcraft.registry.gc_tuning import collect_less; collect_less(); "
             "print(*gc.get_threshold(), gc.get_freeze_count() > 0)")
    env = {"ENVCRAFT_GC_THRESHOLD": setting} if setting else {}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if k != "ENVCRAFT_GC_THRESHOLD"} | env)
    assert done.stdout.strip() == expected, done.stderr
