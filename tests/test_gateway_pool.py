"""`envcraft serve --all --workers 2`: two gateway processes behind one control API."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
from envcraft.core.tasks import write_tasks
from envcraft.harness.agents.policies import GoldReplayAgent
from envcraft.harness.farm_remote import RemoteFarm
from envcraft.harness.runner import RolloutLog, run_tasks

from tests.helpers import REPO, free_port, mail_task, marked, wait_for_port

TOKEN = "pool-test-token"


@pytest.mark.slow
@pytest.mark.anyio
async def test_two_workers_share_the_episodes_behind_one_control_api(tmp_path):
    tasks = [mail_task(i) for i in range(6)]
    write_tasks(tmp_path / "office.jsonl", tasks)
    port = free_port()
    marker = uuid.uuid4().hex
    front = subprocess.Popen([sys.executable, "-m", "envcraft.cli", "serve", "--all", "--workers", "2", "--port",
                              str(port), "--token", TOKEN, "--tasks-dir", str(tmp_path), "--host", "0.0.0.0",
                              "--advertise-host", "127.0.0.1"],
                             cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                             env={**os.environ, "ENVCRAFT_RUN_MARKER": marker})
    try:
        wait_for_port(port, timeout=120)
        url = f"http://127.0.0.1:{port}"
        async with RemoteFarm(url, TOKEN) as farm:
            health = await farm.control.request("GET", "/health")
            assert health["workers"] == 2 and all(u.startswith("http://127.0.0.1:") for u in health["urls"])
            listed = await farm.control.request("GET", "/tasks?env=office&limit=2")  # the front forwards the query
            assert [t["task_id"] for t in listed] == [t.id for t in tasks[:2]] and listed[0]["system_prompt"]
            info = [await farm.create(t.id) for t in tasks[:2]]
            workers = {next(iter(i.urls.values())).split("/env/")[0] for i in info}
            assert workers == set(health["urls"])  # placed on both workers, URLs naming each one directly
            for i in info:
                await farm.delete(i.id)
            log = RolloutLog(tmp_path / "r.jsonl")
            done = await run_tasks(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}), None, log, run_id="r",
                                   farm=farm, concurrency=4)
        assert [r.reward for r in done] == [1.0] * len(tasks)
        assert len(marked(marker)) >= 3  # the front and its two workers
        front.terminate()  # the front alone: its workers must go with it
        front.wait(timeout=90)
        deadline = time.monotonic() + 30
        while marked(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marked(marker) == []
    finally:
        if front.poll() is None:
            os.killpg(front.pid, signal.SIGKILL)
            front.wait(timeout=60)
