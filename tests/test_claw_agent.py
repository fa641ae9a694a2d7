"""ClawAgent end to end: the real openai client, over real HTTP, against the scripted model, on the office env."""

from __future__ import annotations

import socket

import pytest
from envcraft.core.tasks import Check, Task, ToolCall
from envcraft.harness.agents.claw import ClawAgent
from envcraft.harness.episode import Episode, EpisodeBudget
from envcraft.harness.errors import InfraFailure
from envcraft.harness.farm_local import LocalFarm
from envcraft.harness.runner import run_episode
from envcraft.harness.scripted_model import Script, ScriptedCall, build_app, serving
from envcraft.registry.launch import InProcessLauncher
from envcraft.registry.workspaces import WorkspaceRoot

PRIYA = "priya.shah@northwind.studio"  # in servers/office/seed/.app/state.json
SEND = "Send Priya an email with the subject 'Design review' saying the mockups are ready."
SENT = Check(kind="record", table="mail", match={"folder": "sent", "to": {"$has": PRIYA},
                                                 "subject": {"$contains": "design review"}})
GOLD = [ToolCall(tool="read_file", arguments={"path": "SKILL.md"}),
        ToolCall(tool="contacts_search", arguments={"query": "Priya"}),
        ToolCall(tool="mail_send", arguments={"to": [PRIYA], "subject": "Design review",
                                              "body": "Hi Priya, the mockups are ready."})]
TASK = Task(id="claw-send-priya", envs=["office"], turns=[SEND], gold=GOLD,
            checks=[SENT, Check(kind="unchanged", role="guard", allow=["mail"])])
TWO_TURNS = Task(id="claw-two-turns", envs=["office"], turns=[SEND, "Which team is Priya on?"],
                 gold=[*GOLD, ToolCall(tool="contacts_search", arguments={"query": "Priya"}, turn=1),
                       ToolCall(tool="finish", arguments={"answer": "Priya is on the Design team."}, turn=1)],
                 checks=[SENT, Check(kind="answer", contains=["design"])])


@pytest.fixture
def root(tmp_path):
    workspaces = WorkspaceRoot(tmp_path)
    yield workspaces
    workspaces.close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def episode(task: Task, agent, root: WorkspaceRoot, limits: EpisodeBudget = EpisodeBudget()):
    async with LocalFarm(InProcessLauncher(), root) as farm:
        return await run_episode(task, agent, farm, limits, "test-run")


async def run(task: Task, root: WorkspaceRoot, script: Script | None = None, limits: EpisodeBudget = EpisodeBudget(), **agent_options):
    with serving(build_app(script or Script.from_tasks([task]), fail_first=agent_options.pop("fail_first", 0))) as url:
        agent = ClawAgent(base_url=url, api_key="test", model="scripted", **agent_options)
        return await episode(task, agent, root, limits)


def assistant(rollout) -> list[dict]:
    return [m for m in rollout.messages if m["role"] == "assistant"]


@pytest.mark.anyio
async def test_claw_agent_solves_office_task_over_http(root):
    rollout = await run(TASK, root)
    assert rollout.failure is None, rollout.failure
    assert (rollout.reward, rollout.stop_reason) == (1.0, "finished")
    assert rollout.messages[0]["role"] == "system" and "SKILL.md" in rollout.messages[0]["content"]
    called = [c["function"]["name"] for m in assistant(rollout) for c in m.get("tool_calls") or []]
    assert called == ["read_file", "contacts_search", "mail_send", "finish"]
    replies = [m for m in rollout.messages if m["role"] == "tool"]
    assert len(replies) == 4 and PRIYA in replies[1]["content"]
    assert rollout.usage.prompt_tokens > 0 and rollout.usage.completion_tokens > 0
    assert rollout.steps == 4


@pytest.mark.anyio
async def test_multi_turn_ends_each_turn_and_answers(root):
    rollout = await run(TWO_TURNS, root)
    assert (rollout.reward, rollout.stop_reason, rollout.failure) == (1.0, "finished", None)
    users = [i for i, m in enumerate(rollout.messages) if m["role"] == "user"]
    before_second = rollout.messages[users[1] - 1]
    assert before_second == {"role": "assistant", "content": "Done."}  # turn 0 ended without finish
    assert rollout.messages[-2]["tool_calls"][0]["function"]["name"] == "finish"


@pytest.mark.anyio
async def test_malformed_arguments_get_an_error_reply_and_the_episode_goes_on(root):
    script = Script().add(SEND, [ScriptedCall(tool="contacts_search", arguments='{"query": "Priya"'),
                                 *[ScriptedCall(tool=c.tool, arguments=c.arguments) for c in GOLD]])
    rollout = await run(TASK, root, script)
    first = next(m for m in rollout.messages if m["role"] == "tool")
    assert "not valid JSON" in first["content"] and "JSON object" in first["content"]
    assert (rollout.reward, rollout.stop_reason, rollout.failure) == (1.0, "finished", None)


@pytest.mark.anyio
async def test_token_ids_and_logprobs_are_kept_but_not_sent_back(root):
    rollout = await run(TASK, root, extra_body={"return_token_ids": True, "logprobs": True})
    # the scripted model rejects unknown message fields (400), so success proves they were stripped
    assert (rollout.reward, rollout.failure) == (1.0, None)
    for message in assistant(rollout):
        assert message["prompt_token_ids"] and message["token_ids"] and message["logprobs"]["content"]


@pytest.mark.anyio
async def test_transient_http_errors_are_retried(root):
    rollout = await run(TASK, root, fail_first=1, retries=1)
    assert (rollout.reward, rollout.failure) == (1.0, None)


@pytest.mark.anyio
async def test_unscripted_conversation_ends_without_tool_calls(root):
    rollout = await run(TASK, root, Script())
    assert (rollout.reward, rollout.stop_reason, rollout.failure) == (0.0, "no_tool_calls", None)
    assert "no script" in assistant(rollout)[0]["content"]


@pytest.mark.anyio
async def test_model_endpoint_down_is_an_infra_failure_at_the_model(root):
    agent = ClawAgent(base_url=f"http://127.0.0.1:{closed_port()}/v1", api_key="test", model="scripted",
                      retries=0, request_timeout=5.0)
    async with LocalFarm(InProcessLauncher(), root) as farm:
        info = await farm.create(TASK)
        with pytest.raises(InfraFailure) as caught:
            await agent.run(Episode(info, farm, EpisodeBudget()))
        await farm.delete(info.id)
    assert caught.value.boundary == "model" and "APIConnectionError" in caught.value.message
    rollout = await episode(TASK, agent, root)
    assert rollout.failure is not None and rollout.failure.boundary == "model"
    assert (rollout.stop_reason, rollout.reward) == ("error:model", 0.0)


@pytest.mark.anyio
async def test_persistent_server_errors_fail_at_the_model_after_retries(root):
    rollout = await run(TASK, root, fail_first=10, retries=1)
    assert rollout.failure is not None and rollout.failure.boundary == "model"
    assert "503" in rollout.failure.message or "InternalServerError" in rollout.failure.message


GENERAL = Task(id="claw-general-rules", envs=["tutor_matching_center"], turns=["What rules do you work under here?"],
               gold=[ToolCall(tool="read_policies", arguments={}), ToolCall(tool="finish", arguments={"answer": "noted"})],
               checks=[Check(kind="answer", contains=["noted"])])


@pytest.mark.anyio
async def test_system_prompt_fits_the_kind_and_carries_the_server_instructions(root):
    """A general-kind server has no files: the prompt never sends the model to SKILL.md, it shows the
    server's instructions (scenario, today's date, rules) and points at read_policies."""
    from envcraft.generator.compile.compiler import instructions_text
    from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint

    rollout = await run(GENERAL, root)
    assert rollout.failure is None, rollout.failure
    system = rollout.messages[0]["content"]
    assert "SKILL.md" not in system and "read_policies" in system
    assert instructions_text(load_blueprint(BLUEPRINTS / "tutor_matching_center.yaml")) in system
    replies = [m for m in rollout.messages if m["role"] == "tool"]
    assert replies and '"enforced"' in replies[0]["content"]
    office = await run(TASK, root)
    assert "SKILL.md" in office.messages[0]["content"] and "Northwind Studio" in office.messages[0]["content"]
