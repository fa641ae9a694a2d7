"""The bench's tools: the wire load sends a call the SDK's server answers, and the collector tuning holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import anyio
import pytest
from envcraft.harness.bench.load import WireSession
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


@pytest.mark.parametrize(("setting", "tuned"), [("", True), ("0", False)])
def test_the_collector_is_tuned_once_start_up_is_done(setting, tuned):
    """Tuned: our thresholds and the start-up heap frozen. Left alone (0): whatever this interpreter's own
    defaults are (CPython 3.11's are 700/10/10, later versions differ), read in the same process."""
    probe = ("import gc, json; from envcraft.registry.gc_tuning import collect_less; before = gc.get_threshold(); "
             "collect_less(); print(json.dumps([before, gc.get_threshold(), gc.get_freeze_count()]))")
    env = {"ENVCRAFT_GC_THRESHOLD": setting} if setting else {}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if k != "ENVCRAFT_GC_THRESHOLD"} | env)
    assert done.returncode == 0, done.stderr
    before, after, frozen = json.loads(done.stdout)
    if tuned:
        assert after == [50_000, 50, 100] and frozen > 0
    else:
        assert after == before and frozen == 0
