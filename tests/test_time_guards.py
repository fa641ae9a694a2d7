"""Time guards (generator/rules/happens_now.py, generator/model/time_guards.py): an operation that records an event
refuses when the event is not now, within the window its policy states, over real MCP on the shipped catalog; and every such operation
of every blueprint carries one. The seed side (events where their statuses say, today's work waiting
inside each window) is tests/test_seed_timeline.py."""

from __future__ import annotations

import json
from datetime import date, timedelta

import anyio
from envcraft.core.state import HISTORY_TABLE, InitialState
from envcraft.generator.model.blueprint import load_all
from envcraft.generator.model.events import records_event, records_lapse
from envcraft.registry import catalog
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot

ENV = "citizen_service_center"
TABLE = "resident_appointments"


def _seed() -> dict:
    return json.loads((catalog.get(ENV).seed / ".app" / "state.json").read_text("utf-8"))


def _today() -> date:
    return date.fromisoformat(next(bp.today for bp in load_all() if bp.id == ENV))


def _call(tmp_path, initial: InitialState, tool: str, arguments: dict, env: str = ENV) -> tuple[object, dict]:
    """One tool call on a fresh session started from the seed with `initial`; (the result, the tables after it)."""
    async def body():
        root = WorkspaceRoot(tmp_path)
        try:
            async with launch(catalog.get(env), InProcessLauncher(), root, initial) as instance:
                result = await instance.client.call_tool(tool, arguments)
                return result, json.loads((instance.workspace / ".app" / "state.json").read_text("utf-8"))
        finally:
            root.close()

    return anyio.run(body)


def _booked(days: int) -> tuple[str, InitialState, dict]:
    """A booked appointment of the seed moved to `days` from today (its end with it): its id, the change, the
    seed's tables with it."""
    state = _seed()
    row = next(r for r in state[TABLE] if r["status"] == "booked")
    day = (_today() + timedelta(days=days)).isoformat()
    row["start"], row["end"] = day + row["start"][10:], day + row["end"][10:]
    return row["id"], InitialState(updates={TABLE: {row["id"]: {"start": row["start"], "end": row["end"]}}}), state


def _status(tables: dict, row_id: str) -> str:
    return next(r for r in tables[TABLE] if r["id"] == row_id)["status"]


def test_checking_a_resident_in_19_days_early_is_refused_and_changes_nothing(tmp_path):
    row_id, initial, before = _booked(19)
    result, after = _call(tmp_path, initial, "resident_appointment_check_in", {"resident_appointment_id": row_id})
    assert result.is_error
    text = result.content[0].text
    assert "resident_appointment_check_in_when" in text and "19 days after today" in text and "leave it booked" in text
    assert {k: v for k, v in after.items() if k != HISTORY_TABLE} == \
        {k: v for k, v in before.items() if k != HISTORY_TABLE}


def test_checking_a_resident_in_on_the_day_goes_through(tmp_path):
    row_id, initial, _ = _booked(0)
    result, after = _call(tmp_path, initial, "resident_appointment_check_in", {"resident_appointment_id": row_id})
    assert not result.is_error, result.content
    assert _status(after, row_id) == "arrived"


def test_a_no_show_is_marked_from_the_day_up_to_three_days_late_and_not_after(tmp_path):
    row_id, initial, _ = _booked(-3)
    result, after = _call(tmp_path, initial, "resident_appointment_mark_no_show", {"resident_appointment_id": row_id})
    assert not result.is_error, result.content
    assert _status(after, row_id) == "no_show"
    row_id, initial, _ = _booked(-4)
    result, after = _call(tmp_path / "late", initial, "resident_appointment_mark_no_show",
                          {"resident_appointment_id": row_id})
    assert result.is_error and "too long ago to record now" in result.content[0].text
    assert _status(after, row_id) == "booked"


def test_every_operation_that_records_an_event_is_guarded_and_its_policy_says_so():
    unguarded, stated = [], 0
    for bp in load_all():
        rules = {p.id: p for p in bp.policies}
        for op in bp.operations:
            guards = [p for p in op.preconditions if p.kind == "happens_now"]
            if (records_event(bp, op) or records_lapse(bp, op)) and not guards:
                unguarded.append(f"{bp.id}.{op.name}")
            for guard in guards:
                assert guard.policy in rules and rules[guard.policy].category == "time_window"
                assert op.name in rules[guard.policy].operations
                stated += 1
    assert unguarded == [] and stated >= 45, f"state a happens_now policy for {unguarded} (time_guards.missing gives it)"


LICENSES = "business_license_renewals"


def _renewal_due(days: int) -> tuple[str, InitialState]:
    """A license of the licensing desk's seed waiting in renewal_due, its expiry moved to `days` from today."""
    state = json.loads((catalog.get(LICENSES).seed / ".app" / "state.json").read_text("utf-8"))
    today = date.fromisoformat(next(bp.today for bp in load_all() if bp.id == LICENSES))
    row = next(r for r in state["business_licenses"] if r["status"] == "renewal_due")
    expires = (today + timedelta(days=days)).isoformat()
    return row["id"], InitialState(updates={"business_licenses": {row["id"]: {"expires": expires}}})


def test_a_license_lapses_only_after_its_expiry_date_has_passed(tmp_path):
    """A deadline that went by (events.LAPSED) is recorded from the day after it: a licence lapsed while it is
    still valid was a seed and gold contradiction (8 of 9 lapsed licences expired in 2027)."""
    for days in (30, 0):
        row_id, initial = _renewal_due(days)
        result, after = _call(tmp_path / str(days), initial, "business_license_lapse", {"business_license_id": row_id},
                              LICENSES)
        assert result.is_error and "has not gone by yet" in result.content[0].text
        assert next(r for r in after["business_licenses"] if r["id"] == row_id)["status"] == "renewal_due"
    row_id, initial = _renewal_due(-1)
    result, after = _call(tmp_path / "past", initial, "business_license_lapse", {"business_license_id": row_id}, LICENSES)
    assert not result.is_error, result.content
    assert next(r for r in after["business_licenses"] if r["id"] == row_id)["status"] == "lapsed"
