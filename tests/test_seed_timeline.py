"""Seeds in time (generator/seeds/seed_timeline.py): every event sits where its status says it is (happened ones on
or before today, planned ones today or later), over fresh seeds and over the shipped catalog; each recording
operation finds rows waiting inside its time guard's window; and the seed's change history replays to the
seed state, each move that records an event dated as its guard allows."""

from __future__ import annotations

import json
from datetime import date

import pytest
from envcraft.core.state import HISTORY_TABLE
from envcraft.generator.model.blueprint import load_all
from envcraft.generator.model.events import planned
from envcraft.generator.rules.happens_now import fact
from envcraft.generator.seeds.seed import seed_tables
from envcraft.generator.seeds.seed_census import future_event_rows
from envcraft.generator.seeds.seed_timeline import misplaced_rows
from envcraft.registry.catalog import discover

BLUEPRINTS = load_all()
TIMED = [bp for bp in BLUEPRINTS if any(p.kind == "happens_now" for op in bp.operations for p in op.preconditions)]
ENVS = discover()
SERVERS = next(iter(ENVS.values())).folder.parent


def test_no_shipped_seed_records_an_event_after_its_today():
    assert [f"{e.env} {e.row_id} {e.status} {e.when}" for e in future_event_rows(SERVERS)] == []


@pytest.mark.parametrize("bp", TIMED, ids=[bp.id for bp in TIMED])
def test_each_event_is_where_its_status_says_and_todays_work_waits_in_each_window(bp):
    state = json.loads((ENVS[bp.id].folder / "seed" / ".app" / "state.json").read_text("utf-8"))
    assert misplaced_rows(bp, state) == []
    for op in bp.operations:
        entity = bp.entity(op.entity)
        starts = next((p.values for p in op.preconditions if p.kind == "status_in" and p.field == entity.status_field),
                      planned(bp, entity))
        for guard in [p for p in op.preconditions if p.kind == "happens_now"]:
            waiting = [r["id"] for r in state[entity.table] if r[entity.status_field] in starts
                       and fact(guard, r, bp.today) is None]
            assert len(waiting) >= 2, (op.name, waiting)  # AGENDA where the rules leave room for it


def test_fresh_seeds_have_no_misplaced_event():
    assert {bp.id: rows for bp in BLUEPRINTS if (rows := misplaced_rows(bp, seed_tables(bp)))} == {}


@pytest.mark.parametrize("bp", TIMED, ids=[bp.id for bp in TIMED])
def test_the_seed_history_replays_to_the_seed_state_at_times_its_guards_allow(bp):
    state = json.loads((ENVS[bp.id].folder / "seed" / ".app" / "state.json").read_text("utf-8"))
    history = sorted(state[HISTORY_TABLE], key=lambda e: (e["at"], e["id"]))
    assert history and all(e["at"] < f"{bp.today}T09:00" for e in history)
    rows = {(table, r["id"]): r for table, rs in state.items() if table != HISTORY_TABLE for r in rs}
    replayed: dict[tuple[str, str, str], object] = {}
    ops = {op.name: op for op in bp.operations}
    for entry in history:
        key = (entry["table"], entry["row_id"], entry["field"])
        assert replayed.get(key, entry["old"]) == entry["old"], entry  # each move starts where the last ended
        replayed[key] = entry["new"]
        row = rows[(entry["table"], entry["row_id"])]
        for guard in [p for p in ops[entry["operation"]].preconditions if p.kind == "happens_now"]:
            assert fact(guard, row, entry["at"][:10]) is None, (entry, row)
        assert date.fromisoformat(entry["at"][:10]) <= date.fromisoformat(bp.today)
    for (table, row_id, field), value in replayed.items():
        assert rows[(table, row_id)][field] == value  # the last move is the state the seed holds
