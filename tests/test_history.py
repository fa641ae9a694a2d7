"""The change history: every write through the tools is logged (who, when by the app's clock, old -> new),
`list_changes` pages it honestly, no agent tool can write it, grading ignores it, and the revert family
(generator/tasks/revert.py) pays only for putting back the value the history holds."""

from __future__ import annotations

import csv
import io
import json
import random

import anyio
import pytest
from envcraft.core.grading import Snapshot, grade
from envcraft.core.state import HISTORY_TABLE
from envcraft.core.tasks import Check, Task, ToolCall
from envcraft.generator.tasks.build import Failed
from envcraft.generator.tasks.env import EnvCache, generated_envs
from envcraft.generator.tasks.reasoning import moves
from envcraft.generator.tasks.replay import initial_tables
from envcraft.generator.tasks.revert import build_revert, other_values
from envcraft.generator.tasks.validate import validate
from envcraft.registry import catalog
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot

ENV = "vet_clinic"


def _structured(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content


async def _session(tmp_path, initial, body):
    root = WorkspaceRoot(tmp_path)
    try:
        async with launch(catalog.get(ENV), InProcessLauncher(), root, initial) as instance:
            return await body(instance)
    finally:
        root.close()


def test_list_changes_pages_the_seed_history_honestly(tmp_path):
    seed = json.loads((catalog.get(ENV).seed / ".app" / "state.json").read_text())[HISTORY_TABLE]
    assert len(seed) >= 5

    async def body(instance):
        call = instance.client.call_tool
        first = _structured(await call("list_changes", {"limit": 3}))
        assert first["total"] == len(seed) and len(first["results"]) == 3
        assert first["note"] == f"3 of {len(seed)} shown; pass offset=3 for the rest"
        seen, offset = [], 0
        while True:
            page = _structured(await call("list_changes", {"limit": 3, "offset": offset}))
            seen += page["results"]
            if "pass offset=" not in page["note"]:
                assert page["note"].endswith("no more results"), page["note"]
                break
            offset = int(page["note"].split("pass offset=")[1].split()[0])
        assert sorted(e["id"] for e in seen) == sorted(e["id"] for e in seed)  # each once, none lost
        assert [e["at"] for e in seen] == sorted((e["at"] for e in seen), reverse=True)  # newest first
        one = seed[0]
        narrowed = _structured(await call("list_changes", {"row_id": one["row_id"]}))
        assert {e["row_id"] for e in narrowed["results"]} == {one["row_id"]} and narrowed["note"].startswith("all ")
        assert (await call("list_changes", {"table": "no_such_table"})).is_error

    anyio.run(_session, tmp_path, None, body)


def test_a_write_is_logged_with_its_old_value_by_the_apps_clock_and_a_refused_one_is_not(tmp_path):
    async def body(instance):
        call = instance.client.call_tool
        start = Snapshot.of(instance.workspace)
        booked = _structured(await call("appointment_search", {"status": "booked"}))["results"]
        first, second = booked[0]["id"], booked[1]["id"]
        _structured(await call("appointment_cancel", {"appointment_id": first}))
        _structured(await call("appointment_cancel", {"appointment_id": second}))
        assert (await call("appointment_cancel", {"appointment_id": first})).is_error  # already cancelled: refused
        mine = [e for e in _structured(await call("list_changes", {"table": "appointments"}))["results"]
                if e["by"] == "assistant"]
        return first, second, mine, start, Snapshot.of(instance.workspace)

    first, second, mine, start, final = anyio.run(_session, tmp_path, None, body)
    assert [(e["row_id"], e["field"], e["old"], e["new"], e["operation"], e["at"]) for e in mine] == [
        (second, "status", "booked", "cancelled", "appointment_cancel", "2026-12-01T09:01"),
        (first, "status", "booked", "cancelled", "appointment_cancel", "2026-12-01T09:00")]
    task = Task(id="history-1", envs=[ENV], turns=["Cancel both."], gold=[],
                checks=[Check(kind="record", table="appointments", match={"id": first, "status": "cancelled"}),
                        Check(kind="collateral", role="guard",
                              rows={"appointments": {first: ["status"], second: ["status"]}})])
    assert grade(task, start, final).reward == 1.0  # the log's new rows are no collateral damage
    one_only = task.model_copy(update={"checks": [task.checks[0], Check(
        kind="collateral", role="guard", rows={"appointments": {first: ["status"]}})]})
    assert grade(one_only, start, final).reward == 0.5  # an extra write still costs, through its domain table


def test_no_agent_tool_writes_the_history(tmp_path):
    manifest = catalog.get(ENV).manifest.env.tools
    assert next(t for t in manifest if t.name == "list_changes").writes is False

    async def body(instance):
        call = instance.client.call_tool
        forged = json.dumps({"id": "chg-9999", "by": "assistant"})
        refusals = [await call("write_file", {"path": ".app/state.json", "content": "{}"}),
                    await call("edit_file", {"path": ".app/state.json", "old_text": "chg-0001", "new_text": forged})]
        await call("run_shell", {"command": "echo '{}' > .app/state.json; sed -i 's/Murphy/Forged/' .app/state.json"})
        state = json.loads((instance.workspace / ".app" / "state.json").read_text())
        return refusals, state

    seed = json.loads((catalog.get(ENV).seed / ".app" / "state.json").read_text())
    refusals, state = anyio.run(_session, tmp_path, None, body)
    assert all(r.is_error for r in refusals)
    assert state == seed, "the history (or the state) changed through a file or shell tool"


REVERT_ENVS = ("saas_helpdesk", "feature_flag_rollout")  # a field set by mistake; a status moved by mistake


@pytest.fixture(scope="module")
def cache():
    return EnvCache(generated_envs())


@pytest.fixture(scope="module")
def revert_tasks(cache):
    found: list[Task] = []
    for name in REVERT_ENVS:
        kinds: dict[str, Task] = {}
        for i in range(40):
            rng = random.Random(f"history-test:{name}:{i}")
            try:
                draft = build_revert(cache, cache[name], rng, "train")
            except Failed:
                continue
            if validate(cache, draft.task, random.Random(f"history-test:{i}:v")).ok:
                kinds.setdefault(draft.task.tags[-1].split(">")[0], draft.task)  # chain:by / chain:row
            if len(kinds) == 2:
                break
        assert len(kinds) == 2, f"{name}: revert tasks of both kinds could not be built: {sorted(kinds)}"
        found += kinds.values()
    return found


async def _graded(tmp_path, task: Task, calls: list[ToolCall]) -> float:
    async def body(instance):
        start = Snapshot.of(instance.workspace)
        for step in calls:
            await instance.client.call_tool(step.tool, step.arguments)
        return grade(task, start, Snapshot.of(instance.workspace)).reward

    root = WorkspaceRoot(tmp_path)
    try:
        async with launch(catalog.get(task.envs[0]), InProcessLauncher(), root, task.initial) as instance:
            return await body(instance)
    finally:
        root.close()


def _target(task: Task) -> tuple[ToolCall, str, str, dict]:
    """The gold's write, its id argument, the row it puts back, and the history entry of the mistake."""
    fix = task.gold[-2]
    id_key = next(iter(fix.arguments))
    row_id = fix.arguments[id_key]
    mistake = next(e for e in task.initial.rows[HISTORY_TABLE] if e["row_id"] == row_id and e["at"][:10] == "2026-12-01"
                   and e["field"] != "updated_at")
    return fix, id_key, row_id, mistake


def _wrong_fixes(cache, task: Task) -> dict[str, list[ToolCall]]:
    """Plausible wrong reverts: another value (or another way out of the wrong status) on the right row, and
    the same undo applied to a change that was meant (another record of the same table)."""
    env = cache[task.envs[0]]
    fix, id_key, row_id, mistake = _target(task)
    entity = env.entity(env.ops[fix.tool].entity)
    tables = initial_tables(env, task.initial)
    meant = next((e for e in task.initial.rows[HISTORY_TABLE] if e["row_id"] != row_id and e["table"] == mistake["table"]
                  and e["field"] == mistake["field"]), None)
    out: dict[str, list[ToolCall]] = {}
    if env.ops[fix.tool].kind == "update":
        key = next(k for k in fix.arguments if k != id_key)
        wrong = next(v for v in other_values(env, entity, mistake["field"], tables, fix.arguments[key])
                     if v != mistake["new"])
        out["another value"] = [fix.model_copy(update={"arguments": {id_key: row_id, key: wrong}})]
        if meant is not None:
            out["a meant change undone"] = [fix.model_copy(update={"arguments": {id_key: meant["row_id"], key: meant["old"]}})]
    else:
        row = next(r for r in tables[entity.table] if r["id"] == row_id)
        others = [op for op, _ in moves(env, entity, row, tables) if op.name != fix.tool]
        if others:
            out["another way out"] = [fix.model_copy(update={"tool": others[0].name})]
        if meant is not None:
            out["a meant change undone"] = [fix.model_copy(update={"arguments": {id_key: meant["row_id"]}})]
    return out


def test_revert_gold_scores_one_and_a_wrong_revert_or_nothing_does_not(tmp_path, cache, revert_tasks):
    tried = 0
    for task in revert_tasks:
        assert "needs:history" in task.tags
        assert anyio.run(_graded, tmp_path, task, task.gold) == 1.0, task.id
        assert anyio.run(_graded, tmp_path, task, []) == 0.0
        for what, calls in _wrong_fixes(cache, task).items():
            tried += 1
            assert anyio.run(_graded, tmp_path, task, calls) < 1.0, (what, task.turns)
    assert tried >= len(revert_tasks)


def _exported(text: str, path: str, row_id: str, field: str) -> list:
    """The values a workspace export (CSV or JSON) shows for one field of one row."""
    rows = json.loads(text) if path.endswith(".json") else list(csv.DictReader(io.StringIO(text)))
    return [row.get(field) for row in rows if isinstance(row, dict) and row.get("id") == row_id]


def test_the_old_value_is_only_in_the_history(cache, revert_tasks):
    """Outside the change log, the initial world (its tables and its exports) never shows the value to restore."""
    for task in revert_tasks:
        env = cache[task.envs[0]]
        _, _, row_id, mistake = _target(task)
        tables = initial_tables(env, task.initial)
        row = next(r for rows in tables.values() for r in rows if r.get("id") == row_id)
        assert row[mistake["field"]] == mistake["new"] != mistake["old"]
        files = {**env.seed_files, **task.initial.files}
        shown = [v for f in env.bp.files if f.export and f.path in files
                 for v in _exported(files[f.path], f.path, row_id, mistake["field"])]
        assert str(mistake["old"]) not in map(str, shown), (mistake, shown)
