"""Grading is bounded and never on the gateway's event loop (issue 23): attacks made through the agent's own
MCP tools against a real gateway subprocess (`envcraft serve --all`, real uvicorn, real MCP over HTTP).

- 20,000 sibling folders made with run_shell, graded while the gateway runs at 1,024 descriptors (soft and
  hard, so lifting the soft limit cannot help): health answers within 1 s throughout, a bystander episode
  answers its tools, the grade returns a verdict, and the gateway never holds more than a few hundred
  descriptors.
- The gateway lifts its soft descriptor limit to the hard one at start and holds a reserve.
- A 2 MB report at a path a report-facts check reads: the grade ends within its limit (a verdict of 0 when it
  cannot finish), and health and the bystander answer within 1 s meanwhile.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from envcraft.core.tasks import load_tasks, write_tasks
from mcp import Client

from tests.helpers import REPO, mail_task, wait_for_port
from tests.test_gateway_robustness import TOKEN, Farm, control, health_within_one_second

pytestmark = pytest.mark.anyio

DESCRIPTORS = 1024
SIBLINGS = 20_000
WIDE = f"""
import os
for i in range({SIBLINGS}):
    os.mkdir(f"wide{{i:05d}}")
print("built", len(os.listdir(".")), flush=True)
"""
REPORT_TASK = next(t for t in load_tasks(REPO / "tasks" / "office.jsonl") if t.id == "office-008")
REPORT_PATH = "reports/q4_overspend.md"
REPORT_LINE = "Contractors 4,200 Software licences 1,850, Utilities 630; "
REPORT = (REPORT_LINE * (2_000_000 // len(REPORT_LINE)))[:1_990_000]  # under write_file's 2 MB cap
GRADE_SECONDS = 8.0




class LimitedFarm(Farm):
    """The gateway at DESCRIPTORS open files, grading within GRADE_SECONDS, with the report task too (and a
    file-count quota with room for SIBLINGS folders: the default 20,000 stops just short)."""

    limits = (DESCRIPTORS, DESCRIPTORS)  # (soft, hard) the gateway starts with

    def start(self) -> None:
        write_tasks(self.tasks / "office.jsonl", [mail_task(0), REPORT_TASK])
        self.process = subprocess.Popen(
            [sys.executable, "-m", "envcraft.cli", "serve", "--all", "--port", str(self.port), "--token", TOKEN,
             "--tasks-dir", str(self.tasks), "--grade-seconds", str(GRADE_SECONDS)],
            cwd=REPO, env={**os.environ, "TMPDIR": str(self.tmp), "ENVCRAFT_WORKSPACE_FILES": str(SIBLINGS + 5000)}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, start_new_session=True, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, self.limits))
        try:
            wait_for_port(self.port, timeout=60)
        except TimeoutError:
            self.process.kill()
            raise AssertionError(f"the gateway did not start: {self.process.communicate()[1][-3000:]}") from None


@pytest.fixture
def farm():
    made = LimitedFarm()
    made.start()
    yield made
    made.stop()


def _open_descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


async def _grade_while_watched(farm: LimitedFarm, episode: str, bystander: str) -> tuple[int, dict, float, int]:
    """Grade `episode` on a thread; meanwhile health answers within 1 s, the bystander answers a tool call, and
    the gateway's descriptors are counted. Returns (status, body, seconds, most descriptors seen)."""
    done, box, rounds, most = anyio.Event(), {}, 0, 0

    def grade() -> None:
        start = time.monotonic()
        box["status"], box["body"] = control(farm.port, "POST", f"/episodes/{episode}/grade", timeout=120)
        box["seconds"] = time.monotonic() - start

    async def run() -> None:
        await anyio.to_thread.run_sync(grade)
        done.set()

    async with anyio.create_task_group() as group, Client(bystander) as other:
        group.start_soon(run)
        while not done.is_set():
            assert farm.process.poll() is None, farm.process.communicate()[1][-3000:]
            most = max(most, _open_descriptors(farm.process.pid))
            await health_within_one_second(farm.port)
            with anyio.fail_after(10):
                listed = await other.call_tool("list_dir", {})
            assert not listed.is_error and "SKILL.md" in listed.content[0].text, listed.content[0].text[-500:]
            rounds += 1
            await anyio.sleep(0.1)
    assert rounds >= 1
    return box["status"], box["body"], box["seconds"], most


async def test_a_wide_tree_graded_at_1024_descriptors_leaves_the_gateway_answering(farm):
    _, attacker = control(farm.port, "POST", "/episodes", {"env": "office", "task_id": mail_task(0).id})
    _, bystander = control(farm.port, "POST", "/episodes", {"env": "office"})
    async with Client(attacker["url"]) as agent:
        assert not (await agent.call_tool("write_file", {"path": "wide.py", "content": WIDE})).is_error
        made = await agent.call_tool("run_shell", {"command": "python3 wide.py", "timeout_seconds": 20})
        assert "built" in made.content[0].text, made.content[0].text[-2000:]
        assert int(made.content[0].text.split("built")[1].split()[0]) >= SIBLINGS

    status, graded, seconds, most = await _grade_while_watched(farm, attacker["episode"], bystander["url"])
    assert status == 200 and graded["reward"] == 0.0, graded  # a verdict: nothing was sent
    assert most < DESCRIPTORS // 2, most  # the walk's descriptors are not the gateway's
    report = await health_within_one_second(farm.port)
    assert report["failures"] == 0, report["recent_failures"]
    print(f"wide tree: graded in {seconds:.2f} s, the gateway held at most {most} descriptors")


@pytest.mark.slow
async def test_a_2mb_report_is_graded_within_its_limit_while_everyone_answers(farm):
    _, attacker = control(farm.port, "POST", "/episodes", {"env": "office", "task_id": REPORT_TASK.id})
    _, bystander = control(farm.port, "POST", "/episodes", {"env": "office"})
    async with Client(attacker["url"]) as agent:
        wrote = await agent.call_tool("write_file", {"path": REPORT_PATH, "content": REPORT})
        assert not wrote.is_error, wrote.content[0].text

    status, graded, seconds, _ = await _grade_while_watched(farm, attacker["episode"], bystander["url"])
    assert status == 200, graded
    assert seconds < GRADE_SECONDS + 5, seconds  # its own limit, plus starting the grader and answering
    assert graded["reward"] < 1.0 and (graded["unfinished"] or graded["checks"]), graded
    print(f"2 MB report: graded in {seconds:.2f} s: {json.dumps(graded['unfinished'] or graded['reward'])}")


def _soft_descriptors(pid: int) -> int:
    line = next(line for line in Path(f"/proc/{pid}/limits").read_text().splitlines() if line.startswith("Max open files"))
    return int(line.split()[3])


def test_the_gateway_lifts_its_soft_descriptor_limit_to_the_hard_one():
    made = LimitedFarm()
    made.limits = (DESCRIPTORS, 4 * DESCRIPTORS)
    made.start()
    try:
        assert _soft_descriptors(made.process.pid) == 4 * DESCRIPTORS
        status, report = control(made.port, "GET", "/health")
        assert status == 200 and report["descriptor_reserve"] > 0, report
    finally:
        made.stop()
