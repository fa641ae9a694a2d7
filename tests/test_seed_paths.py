"""Seeds lived through their history (generator/seeds/seed_paths.py, seed_history.py): in every shipped environment,
each row starts in its entity's initial status, and replaying `list_changes` in time order through each entry's own
operation (its transition, or the effect of another row's operation) arrives at the seed state exactly, every step
at a time its time guards allow, in order, before the session opens; a status a row carries a date for was reached
that day. No row holds a status no road of transitions reaches, and the repair that sees to it keeps the meaning."""

from __future__ import annotations

import json
import random

import pytest
from envcraft.core.state import HISTORY_TABLE
from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, load_all
from envcraft.generator.model.events import event_field, has_events, planned
from envcraft.generator.model.fields import NEVER_HAPPENED
from envcraft.generator.rules.happens_now import fact
from envcraft.generator.rules.registry import source_states
from envcraft.generator.seeds.seed_census import unreachable_status_count
from envcraft.generator.seeds.seed_coherence import stamp_fields
from envcraft.generator.seeds.seed_paths import reach, reachable
from envcraft.registry.catalog import discover
from envcraft_runtime.rules import shifted

ENVS = discover()
BLUEPRINTS = {bp.id: bp for bp in load_all() if bp.id in ENVS}
SERVERS = next(iter(ENVS.values())).folder.parent


def _state(bp: Blueprint) -> dict[str, list[dict]]:
    return json.loads((ENVS[bp.id].folder / "seed" / ".app" / "state.json").read_text("utf-8"))


def _moves(bp: Blueprint, entity: Entity, op: Operation, old: str) -> set[str]:
    """Where the operation may take a row of `entity` in status `old`: its own transition (from a start its
    checks allow), or a `set` effect of an operation on a row that points at this one."""
    if op.entity == entity.name and op.kind == "transition":
        starts = source_states(entity, op)
        return {op.to_status} if starts is None or old in starts else set()
    return {e.value for e in op.effects if e.kind == "set" and e.field == entity.status_field
            and next((f.ref for f in bp.entity(op.entity).fields if f.name == e.ref_field), None) == entity.name}


@pytest.mark.parametrize("bp", list(BLUEPRINTS.values()), ids=list(BLUEPRINTS))
def test_list_changes_replays_every_row_from_its_initial_status_to_the_seed(bp):
    state = _state(bp)
    opens = f"{bp.today}T09:00"
    ops = {op.name: op for op in bp.operations}
    history = state[HISTORY_TABLE]
    assert [e["at"] for e in history] == sorted(e["at"] for e in history)  # ids run in time order
    assert all(e["at"] < opens for e in history), "a change dated after the session opens"
    entities = {e.table: e for e in bp.entities if e.status_field}
    rows = {(table, r["id"]): r for table in entities for r in state[table]}
    now = {key: entities[key[0]].field(entities[key[0]].status_field).values[0] for key in rows}
    for entry in history:
        entity, key = entities[entry["table"]], (entry["table"], entry["row_id"])
        assert entry["field"] == entity.status_field and entry["old"] == now[key], entry
        assert entry["new"] in _moves(bp, entity, ops[entry["operation"]], entry["old"]), entry
        row = rows[key]
        if ops[entry["operation"]].entity == entity.name:
            for guard in [p for p in ops[entry["operation"]].preconditions if p.kind == "happens_now"]:
                assert fact(guard, row, entry["at"][:10]) is None, (entry, row)  # inside the guard's window
        stamp = next((spec for spec, step, _, _ in stamp_fields(bp, entity) if step == entry["new"]), None)
        if stamp is not None:  # submitted_on is the day (submitted_at the minute) of the step into `submitted`
            assert row[stamp.name] == (entry["at"][:10] if stamp.type == "date" else entry["at"]), (entry, row)
        now[key] = entry["new"]
    assert {key: value for key, value in now.items() if rows[key][entities[key[0]].status_field] != value} == {}


def test_no_shipped_row_holds_a_status_no_transition_reaches():
    assert unreachable_status_count(SERVERS) == 0


def test_a_status_no_road_reaches_becomes_one_that_means_the_same():
    """A row put in each unreachable status, its event behind today or ahead of it, is moved to a reachable
    status: a cancelled-like one where one is reachable, a planned one when the event is still ahead."""
    tried = 0
    for bp in BLUEPRINTS.values():
        for entity in [e for e in bp.entities if e.status_field]:
            values, can = entity.field(entity.status_field).values, reachable(bp, entity)
            lost = [v for v in values if v not in can]
            if not lost:
                continue
            base = _state(bp)[entity.table][0]
            field = event_field(bp, entity) if has_events(bp, entity) else None
            when = [None] if field is None else [shifted(base[field], days * 24 * 60) for days in (-40, 40)
                                                 if isinstance(base.get(field), str)]
            rows = [{**base, "id": f"x-{n}-{m}", entity.status_field: v, **({field: w} if field else {})}
                    for n, v in enumerate(lost) for m, w in enumerate(when)]
            reach(bp, {entity.table: rows}, random.Random(0))
            for row in rows:
                was, now = lost[int(row["id"].split("-")[1])], row[entity.status_field]
                assert now in can, (bp.id, was, now)
                waits = [v for v in can if v in planned(bp, entity)]
                ahead = field is not None and isinstance(row.get(field), str) and row[field][:10] > bp.today
                if was in NEVER_HAPPENED and not ahead and set(can) & set(NEVER_HAPPENED):
                    assert now in NEVER_HAPPENED, (bp.id, entity.name, was, now)
                if ahead and waits:
                    assert now in waits, (bp.id, entity.name, was, now)
                tried += 1
    assert tried, "no blueprint has a status its transitions cannot reach: nothing to repair"
