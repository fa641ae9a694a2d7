"""BFCL v4 multi-turn in the farm: served over MCP per episode, graded by BFCL's own multi_turn_checker.

The full 800-task gold and no-op replay is a command (`envcraft run --bench bfcl-multi-turn --limit 0`, about
40 s here); this file replays a sample of every category and proves each part on real servers and clients.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import httpx
import mcp_types as types
import pytest
from envcraft.benchmarks import get
from envcraft.harness.agents.claw import ClawAgent
from envcraft.harness.agents.policies import GoldReplayAgent, NoOpAgent
from envcraft.harness.farm_remote import RemoteFarm
from envcraft.harness.runner import RolloutLog, run_tasks
from envcraft.harness.scripted_model import Script, build_app, serving
from mcp import Client

from tests.helpers import gateway_process, inspector

pytest.importorskip("bfcl_eval", reason="BFCL is installed by .ci/setup (pip install --no-deps bfcl-eval==2026.3.23)")

BENCH = get("bfcl-multi-turn")
TOKEN = "bfcl-test-token"
MISS_FUNC = "bfcl-multi_turn_miss_func_0"  # `sort` is first offered at turn 3


def sample(per_category: int = 3):
    tasks = []
    for env in BENCH.env_names:
        tasks += BENCH.tasks(env)[:per_category]
    return tasks


def task(task_id: str):
    found = BENCH.task(task_id)
    assert found is not None, task_id
    return found


async def run(tasks, agent, farm=None):
    with tempfile.TemporaryDirectory(prefix="bfcl-run-") as folder:
        return await run_tasks(tasks, agent, None, RolloutLog(Path(folder) / "rollouts.jsonl"), run_id="bfcl", farm=farm)


# ------------------------------------------------------------------ gold and no-op, in process


@pytest.mark.anyio
async def test_gold_replay_of_a_sample_of_every_category_is_valid_by_bfcl_own_checker():
    tasks = sample(3) + [task(MISS_FUNC), task("bfcl-multi_turn_miss_func_49")]  # 49 calls `tail` before it is offered
    rollouts = await run(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}))
    bad = [(r.task_id, r.failure, r.verdict) for r in rollouts if not r.passed]
    assert not bad, bad
    assert all(r.verdict.valid and r.verdict.checker.endswith("multi_turn_checker") and r.reward == 1.0
               for r in rollouts)
    assert {r.envs[0] for r in rollouts} == set(BENCH.env_names)
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    left = [name for name in vars(multi_turn_utils) if name.startswith("envcraft_")]
    assert not left, left[:5]  # every episode's and every grading's instances left BFCL's table when they ended


@pytest.mark.anyio
async def test_noop_fails_every_sampled_task_with_bfcl_error_type():
    tasks = sample(3)
    rollouts = await run(tasks, NoOpAgent())
    assert all(r.failure is None and r.reward == 0.0 and not r.verdict.valid for r in rollouts)
    assert {r.verdict.error_type for r in rollouts} == {"multi_turn:empty_turn_model_response"}


@pytest.mark.anyio
async def test_one_wrong_argument_is_caught_by_bfcl_state_check():
    """Gold with one write changed: BFCL's checker (not ours) refuses it, naming the state mismatch."""
    original = task("bfcl-multi_turn_base_0")
    index = next(i for i, c in enumerate(original.gold) if c.tool == "mkdir")
    wrong = original.gold[index].model_copy(update={"arguments": {"dir_name": "tmp"}})
    gold = [*original.gold[:index], wrong, *original.gold[index + 1:]]
    [rollout] = await run([original], GoldReplayAgent({original.id: gold}))
    assert not rollout.passed and rollout.reward == 0.0
    assert rollout.verdict.error_type in ("multi_turn:instance_state_mismatch", "multi_turn:execution_response_mismatch")


@pytest.mark.anyio
async def test_stopping_before_the_last_turn_is_force_terminated():
    """An agent that leaves turns unopened is failed as BFCL's runner fails a force-terminated model."""
    original = task("bfcl-multi_turn_base_0")
    short = original.model_copy(update={"turns": original.turns[:1]})  # the farm opens only the first turn
    [rollout] = await run([short], GoldReplayAgent({short.id: [c for c in original.gold if c.turn == 0]}))
    assert rollout.verdict.error_type == "multi_turn:force_terminated" and rollout.reward == 0.0


def recording(app, requests: list[dict]):
    """The stand-in model's app, keeping each request body it is sent (what the agent showed the model)."""
    async def wrapped(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        received = [await receive()]
        while received[-1].get("more_body"):
            received.append(await receive())
        body = b"".join(m.get("body", b"") for m in received)
        if body:
            requests.append(json.loads(body))
        replay = iter(received)
        return await app(scope, lambda: anext_or_wait(replay, receive), send)

    return wrapped


async def anext_or_wait(replay, receive):
    return next(replay, None) or await receive()


@pytest.mark.anyio
async def test_the_claw_agent_over_the_openai_api_is_sent_each_turns_tools_and_graded_by_bfcl():
    """The real claw agent and `openai` client against the deterministic stand-in model (the one allowed stand-in),
    which replays BFCL's possible answer: the model is sent `sort` from the turn that first offers it, not before."""
    tasks = [task(MISS_FUNC), task("bfcl-multi_turn_base_5")]
    requests: list[dict] = []
    with serving(recording(build_app(Script.from_tasks(tasks)), requests)) as base_url:
        rollouts = await run(tasks, ClawAgent(base_url=base_url, api_key="none", model="scripted"))
    assert all(r.failure is None and r.passed and r.verdict.valid for r in rollouts), [(r.failure, r.verdict)
                                                                                        for r in rollouts]
    first = task(MISS_FUNC).turns[0]
    offered = {}  # user turn -> was sort among the tools the model was sent
    for body in requests:
        users = [m for m in body["messages"] if m["role"] == "user"]
        if users[0]["content"] == first:
            offered.setdefault(len(users) - 1, set()).add("sort" in {t["function"]["name"] for t in body["tools"]})
    assert offered == {0: {False}, 1: {False}, 2: {False}, 3: {True}, 4: {True}}


# ------------------------------------------------------------------ the episode's server: turns, tools, safety


@pytest.mark.anyio
async def test_a_missing_function_appears_at_its_turn_with_tools_list_changed_in_both_protocol_eras():
    item = task(MISS_FUNC)
    episode = BENCH.open(item)
    heard: list[str] = []

    async def handler(message) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            heard.append(message.method)

    try:
        async with Client(episode.server, mode="legacy", message_handler=handler) as legacy, \
                Client(episode.server) as modern:
            assert legacy.server_capabilities.tools.list_changed
            before = {t.name for t in (await legacy.list_tools()).tools}
            assert "sort" not in before and "mv" in before
            async with modern.listen(tools_list_changed=True) as events:
                for turn in (1, 2):
                    assert not await episode.begin_turn(turn)
                assert await episode.begin_turn(3)
                with anyio.fail_after(10):
                    event = await events.__anext__()
                assert type(event).__name__ == "ToolsListChanged"
            with anyio.fail_after(10):
                while not heard:
                    await anyio.sleep(0.01)
            assert "notifications/tools/list_changed" in heard
            assert "sort" in {t.name for t in (await modern.list_tools()).tools}
            with pytest.raises(ValueError, match="open turns in order"):
                await episode.begin_turn(1)
            await episode.reset()  # back at turn 0: sort is withdrawn, and clients are told
            with anyio.fail_after(10):
                while len(heard) < 2:
                    await anyio.sleep(0.01)
            assert "sort" not in {t.name for t in (await legacy.list_tools()).tools}
    finally:
        episode.close()


@pytest.mark.anyio
async def test_agent_text_is_never_evaluated_as_code(tmp_path):
    """Arguments become repr'd literals, names must be the classes' functions: nothing an agent sends runs."""
    marker = tmp_path / "pwned"
    episode = BENCH.open(task("bfcl-multi_turn_base_0"))
    try:
        async with Client(episode.server) as client:
            payload = f"__import__('os').system('touch {marker}')"
            echo = await client.call_tool("touch", {"file_name": "x.txt"})
            assert not echo.is_error
            wrote = await client.call_tool("echo", {"content": payload, "file_name": "x.txt"})
            assert not wrote.is_error
            read = await client.call_tool("cat", {"file_name": "x.txt"})
            assert payload in read.content[0].text  # stored as text, not run
            refused = await client.call_tool("open", {"file": str(marker), "mode": "w"})
            assert refused.is_error and "no tool named" in refused.content[0].text
            bad_name = await client.call_tool("cd", {"folder=__import__('os').getcwd(),x": "y"})
            assert bad_name.is_error and "identifiers" in bad_name.content[0].text
        assert not marker.exists()
    finally:
        episode.close()


@pytest.mark.anyio
async def test_a_served_state_the_recorded_history_does_not_reproduce_is_our_failure():
    """After BFCL says valid, its replayed instances must equal the served ones: a change served but never
    recorded (a recording bug of ours) raises instead of passing as the agent's success."""
    item = task("bfcl-multi_turn_base_0")
    episode = BENCH.open(item)
    try:
        async with Client(episode.server) as client:
            for turn in range(len(item.turns)):
                await episode.begin_turn(turn)
                for call in (c for c in item.gold if c.turn == turn):
                    await client.call_tool(call.tool, call.arguments)
        assert episode.grade().passed
        episode._execute(["touch(file_name='served_not_recorded.txt')"])  # run on the live instances, unrecorded
        with pytest.raises(RuntimeError, match="does not end in the served state"):
            episode.grade()
    finally:
        episode.close()


# ------------------------------------------------------------------ through the gateway


@pytest.fixture(scope="module")
def gateway():
    with gateway_process(TOKEN) as url:
        yield url


@pytest.mark.slow
@pytest.mark.anyio
async def test_gold_and_noop_through_the_gateway_with_the_mcp_client(gateway):
    tasks = [task("bfcl-multi_turn_base_1"), task(MISS_FUNC), task("bfcl-multi_turn_long_context_2")]
    async with RemoteFarm(gateway, TOKEN) as farm:
        gold = await run(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}), farm)
        noop = await run(tasks, NoOpAgent(), farm)
    assert all(r.failure is None and r.passed and r.verdict.valid for r in gold), [(r.failure, r.verdict) for r in gold]
    assert all(r.failure is None and r.reward == 0.0 and not r.verdict.valid for r in noop)


def control(gateway: str, method: str, path: str, body: dict | None = None) -> httpx.Response:
    return httpx.request(method, f"{gateway}/control{path}", json=body, headers={"Authorization": f"Bearer {TOKEN}"},
                         timeout=60)


@pytest.mark.slow
def test_an_external_client_drives_an_episode_the_operator_turns_resets_and_grades(gateway):
    """The MCP Inspector CLI as the agent (any MCP client), the control API as the operator."""
    created = control(gateway, "POST", "/episodes", {"env": "bfcl_multi_turn_miss_func", "task_id": MISS_FUNC})
    assert created.status_code == 201, created.text
    url, episode = created.json()["url"], created.json()["episode"]
    listed = json.loads(inspector(url, "--transport", "http", "--method", "tools/list").stdout)
    names = {t["name"] for t in listed["tools"]}
    assert "mkdir" in names and "sort" not in names
    made = inspector(url, "--transport", "http", "--method", "tools/call", "--tool-name", "mkdir",
                     "--tool-arg", "dir_name=drafts")
    assert made.returncode == 0, made.stderr
    for turn in (1, 2):
        assert control(gateway, "POST", f"/episodes/{episode}/turn", {"turn": turn}).json()["tools_changed"] is False
    assert control(gateway, "POST", f"/episodes/{episode}/turn", {"turn": 3}).json()["tools_changed"] is True
    assert control(gateway, "POST", f"/episodes/{episode}/turn", {"turn": 9}).status_code == 409
    assert control(gateway, "POST", f"/episodes/{episode}/turn", {"turn": "x"}).status_code == 400
    listed = json.loads(inspector(url, "--transport", "http", "--method", "tools/list").stdout)
    assert "sort" in {t["name"] for t in listed["tools"]}
    graded = control(gateway, "POST", f"/episodes/{episode}/grade").json()
    assert graded["reward"] == 0.0 and graded["verdict"]["valid"] is False
    assert graded["verdict"]["error_type"].startswith("multi_turn:")
    assert control(gateway, "POST", f"/episodes/{episode}/reset").status_code == 200
    listed = json.loads(inspector(url, "--transport", "http", "--method", "tools/list").stdout)
    assert "sort" not in {t["name"] for t in listed["tools"]}  # back at turn 0
    looked = inspector(url, "--transport", "http", "--method", "tools/call", "--tool-name", "ls")
    assert "drafts" not in looked.stdout  # the directory made before the reset is gone
    assert control(gateway, "DELETE", f"/episodes/{episode}").status_code == 200
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and control(gateway, "POST", f"/episodes/{episode}/grade").status_code != 404:
        time.sleep(0.05)
    assert control(gateway, "POST", f"/episodes/{episode}/grade").status_code == 404


def test_creating_a_bfcl_episode_without_a_task_says_what_to_send(gateway):
    refused = control(gateway, "POST", "/episodes", {"env": "bfcl_multi_turn_base"})
    assert refused.status_code == 400 and "task_id" in refused.json()["error"]


# ------------------------------------------------------------------ the command line


def envcraft(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "envcraft.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**__import__("os").environ, "COLUMNS": "200"})


@pytest.mark.slow
def test_list_run_and_report_show_bfcl_beside_our_environments(tmp_path):
    listed = envcraft("list", cwd=tmp_path)
    rows = [line.split() for line in listed.stdout.splitlines()]
    assert {r[0] for r in rows if len(r) > 1 and r[1] == "bfcl"} == set(BENCH.env_names)
    assert any(len(r) > 1 and r[1] == "claw_workspace" for r in rows)  # ours, on the same list
    ran = envcraft("run", "--bench", "bfcl-multi-turn", "--category", "miss_func", "--limit", "2", "--out", "run",
                   cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    row = next(line for line in ran.stdout.splitlines() if line.startswith("bfcl_multi_turn_miss_func"))
    assert row.split()[1:4] == ["2", "2/2", "0/2"]  # tasks, gold correct, no-op correct
    rollouts = [json.loads(line) for line in (tmp_path / "run" / "rollouts.jsonl").read_text().splitlines()]
    assert {(r["agent"], r["verdict"]["valid"], r["reward"]) for r in rollouts} == {("gold", True, 1.0),
                                                                                  ("noop", False, 0.0)}
    report = envcraft("report", "run", "--json", cwd=tmp_path)
    [run] = json.loads(report.stdout)["runs"]
    accuracy = {(b["category"], b["agent"]): b["accuracy"] for b in run["benchmarks"]}
    assert accuracy == {("bfcl_multi_turn_miss_func", "gold"): 1.0, ("bfcl_multi_turn_miss_func", "noop"): 0.0}
    shown = envcraft("report", "run", cwd=tmp_path)
    assert "standard benchmarks" in shown.stdout and "multi_turn:empty_turn_model_response" in shown.stdout


# ------------------------------------------------------------------ the seam: a second benchmark is one module


@pytest.mark.anyio
async def test_a_second_benchmark_is_one_module_loaded_from_its_path():
    from envcraft.benchmarks import registry

    ledger = registry.load_file(Path(__file__).parent / "plugins" / "ledger_benchmark.py")
    try:
        assert "ledger" in registry.names() and registry.owner("ledger_toy") is ledger
        tasks = ledger.tasks()
        gold = await run(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}))
        noop = await run(tasks, NoOpAgent())
        assert [(r.reward, r.verdict.valid) for r in gold] == [(1.0, True)] * 2
        assert [(r.reward, r.verdict.error_type) for r in noop] == [(0.0, "ledger:wrong_total")] * 2
    finally:
        registry.unregister("ledger")
