"""Every office task is well-formed: nothing is credited at the start, the gold replay scores 1.0, a no-op scores 0.0.

Each test launches a fresh in-process instance of the office environment on the task's initial state.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from envcraft.core.grading import Snapshot, credited_at_start, grade
from envcraft.core.tasks import Task, load_tasks
from envcraft.registry import catalog
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot

TASKS_FILE = Path(__file__).resolve().parent.parent / "tasks" / "office.jsonl"
TASKS = load_tasks(TASKS_FILE)

if not shutil.which("bwrap"):  # the shell sandbox needs bubblewrap; fall back to the (non-isolating) process backend
    os.environ.setdefault("ENVCRAFT_SANDBOX", "process")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def root(tmp_path: Path):
    workspaces = WorkspaceRoot(tmp_path)
    yield workspaces
    workspaces.close()


def _text(result) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def test_task_file_is_sane() -> None:
    ids = [task.id for task in TASKS]
    assert len(TASKS) >= 32 and len(set(ids)) == len(ids)
    assert sum(len(task.turns) > 1 for task in TASKS) >= 6
    for task in TASKS:
        assert task.envs == ["office"]
        assert any(c.role == "goal" for c in task.checks), task.id
        assert [c.kind for c in task.checks if c.role == "guard"].count("collateral") == 1, task.id  # row-level
        assert [c.turn for c in task.gold] == sorted(c.turn for c in task.gold), task.id
        assert {c.turn for c in task.gold} == set(range(len(task.turns))), task.id
        assert all(c.turn < len(task.turns) for c in task.gold), task.id


@pytest.mark.anyio
@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
async def test_gold_replay_scores_one(task: Task, root: WorkspaceRoot) -> None:
    env = catalog.get("office")
    async with launch(env, InProcessLauncher(), root, task.initial) as instance:
        initial = Snapshot.of(instance.workspace)
        assert credited_at_start(task, initial) == [], f"{task.id}: goal checks already hold at the start"
        for step in task.gold:
            result = await instance.client.call_tool(step.tool, step.arguments)
            assert not result.is_error, f"{task.id}: {step.tool}({step.arguments}) failed: {_text(result)}"
            if step.tool == "run_shell":
                assert _text(result).startswith("exit code: 0"), f"{task.id}: {step.arguments}: {_text(result)}"
        result = grade(task, initial, Snapshot.of(instance.workspace))
        assert result.reward == 1.0, f"{task.id}: {[c for c in result.checks if not c.passed]}"


@pytest.mark.anyio
@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
async def test_noop_agent_scores_zero(task: Task, root: WorkspaceRoot) -> None:
    env = catalog.get("office")
    async with launch(env, InProcessLauncher(), root, task.initial) as instance:
        initial = Snapshot.of(instance.workspace)
        assert grade(task, initial, Snapshot.of(instance.workspace)).reward == 0.0


@pytest.mark.anyio
async def test_shell_cli_verbs_work_in_the_sandbox(root: WorkspaceRoot) -> None:
    env = catalog.get("office")
    async with launch(env, InProcessLauncher(), root) as instance:
        result = await instance.client.call_tool("run_shell", {"command": "office contacts-search --query priya"})
        assert not result.is_error
        text = _text(result)
        assert text.startswith("exit code: 0"), text
        people = json.loads(text.split("stdout:\n", 1)[1].split("\nstderr:", 1)[0])
        assert [p["email"] for p in people] == ["priya.shah@northwind.studio"]

        result = await instance.client.call_tool("run_shell", {"command": "office --help"})
        assert "mail-search" in _text(result) and "calendar-free-slots" in _text(result)

        # a write through the CLI lands in the same app state the MCP tools read
        result = await instance.client.call_tool(
            "run_shell", {"command": "office todo-add --title 'Water the plants' --owner alex.morgan@northwind.studio "
                                     "--due 2026-12-02"})
        assert _text(result).startswith("exit code: 0"), _text(result)
        listed = await instance.client.call_tool("todo_list", {"owner": "alex.morgan@northwind.studio"})
        assert any(t["title"] == "Water the plants" for t in listed.structured_content["result"])

        # usage errors exit non-zero with a message instead of a traceback
        result = await instance.client.call_tool("run_shell", {"command": "office mail-read --message-id msg-9999"})
        assert _text(result).startswith("exit code: 1") and "no message with id" in _text(result)


@pytest.mark.anyio
async def test_a_csv_of_every_category_is_not_paid_as_the_over_budget_list(root: WorkspaceRoot) -> None:
    """office-028 asks for the over-budget categories: a CSV of every category holds each expected line too,
    so only the check that lists what it must leave out tells the two apart."""
    task = next(t for t in TASKS if t.id == "office-028")
    env = catalog.get("office")
    async with launch(env, InProcessLauncher(), root, task.initial) as instance:
        initial = Snapshot.of(instance.workspace)
        budget = (instance.workspace / "data" / "q4_budget.csv").read_text().splitlines()[1:]
        rows = sorted(((c, int(a) - int(b)) for c, _, b, a in (line.split(",") for line in budget)),
                      key=lambda r: -r[1])
        every = "category,overspend_usd\n" + "".join(f"{c},{d}\n" for c, d in rows)
        result = await instance.client.call_tool("write_file", {"path": "reports/over_budget.csv", "content": every})
        assert not result.is_error, _text(result)
        dump = grade(task, initial, Snapshot.of(instance.workspace))
        assert [c.note for c in dump.checks if not c.passed] == ["no category within budget"]
        assert dump.reward < 1.0
        over = "category,overspend_usd\n" + "".join(f"{c},{d}\n" for c, d in rows if d > 0)
        await instance.client.call_tool("write_file", {"path": "reports/over_budget.csv", "content": over})
        assert grade(task, initial, Snapshot.of(instance.workspace)).reward == 1.0


@pytest.mark.anyio
async def test_a_sheet_of_every_contact_is_not_paid_as_the_on_call_sheet(root: WorkspaceRoot) -> None:
    """office-024 asks for the Engineering team plus Lena: a sheet of every contact holds each of their lines."""
    task = next(t for t in TASKS if t.id == "office-024")
    env = catalog.get("office")
    async with launch(env, InProcessLauncher(), root, task.initial) as instance:
        initial = Snapshot.of(instance.workspace)
        rows = initial.tables["contacts"]
        sheet = "| Name | Email | Phone |\n" + "".join(f"| {c['name']} | {c['email']} | {c['phone']} |\n" for c in rows)
        await instance.client.call_tool("write_file", {"path": "reports/oncall_contacts.md", "content": sheet})
        dump = grade(task, initial, Snapshot.of(instance.workspace))
        assert [c.note for c in dump.checks if not c.passed] == ["no one off the rota"]
        assert dump.reward < 1.0
        on_call = [c for c in rows if c["team"] == "Engineering" or c["name"].startswith("Lena")]
        good = "| Name | Email | Phone |\n" + "".join(f"| {c['name']} | {c['email']} | {c['phone']} |\n" for c in on_call)
        await instance.client.call_tool("write_file", {"path": "reports/oncall_contacts.md", "content": good})
        assert grade(task, initial, Snapshot.of(instance.workspace)).reward == 1.0
