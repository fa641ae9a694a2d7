"""tools/terminal_parent_census.py counts a gold write under a parent in a terminal status, and only that: a planning
task added to a cancelled wedding event counts, the same task added to an event in planning does not."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from envcraft.core.tasks import Task, ToolCall, write_tasks
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint
from envcraft.generator.tasks.env import EnvCache, generated_envs

ROOT = Path(__file__).resolve().parents[1]
ENV = "wedding_venue_planning"


def _census_module():
    spec = importlib.util.spec_from_file_location("terminal_parent_census", ROOT / "tools" / "terminal_parent_census.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _event(status: str) -> str:
    state = json.loads((ROOT / "servers" / ENV / "seed" / ".app" / "state.json").read_text("utf-8"))
    return next(row["id"] for row in state["wedding_events"] if row["status"] == status)


def _task(n: int, event: str) -> Task:
    add = ToolCall(tool="planning_task_add", env=ENV, arguments={
        "wedding_event_id": event, "step": "menu_tasting", "owner": "Rosa Delgado", "due": "2027-01-15"})
    return Task(id=f"{ENV}-{n:04d}", envs=[ENV], turns=["Add a tasting."], checks=[], gold=[add])


def test_terminal_states_are_the_ones_never_left_or_named_like_an_end():
    census = _census_module()
    never_left, end_like = census.terminal_states(load_blueprint(BLUEPRINTS / f"{ENV}.yaml"))["wedding_event"]
    assert end_like == {"cancelled"}
    assert never_left == {"finalized", "completed", "cancelled"}  # no transition starts from them


def test_a_write_under_a_cancelled_parent_counts_and_one_under_a_live_parent_does_not(tmp_path):
    census = _census_module()
    write_tasks(tmp_path / f"{ENV}.jsonl", [_task(1, _event("cancelled")), _task(2, _event("planning"))])
    counts = census.census(EnvCache(generated_envs()), [tmp_path / f"{ENV}.jsonl"], {ENV})[ENV]
    assert (counts["tasks"], counts["writes"], counts["end_like"], counts["never_left"], counts["tasks_hit"]) == \
        (2, 2, 1, 0, 1)
    assert counts["examples"] == [f"{ENV}-0001: planning_task_add via wedding_event_id -> {_event('cancelled')} cancelled"]
