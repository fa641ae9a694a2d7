"""The `open_period` check kind: a write lands in a period whose row, looked up by key (a date: its month), says it
is open. Through the real month_end_close server: October is locked, so an entry drafted or posted in 2026-10 is
refused citing the rule and the period's status, a month with no period row is refused too, November goes through,
and once the state opens October the same post goes through."""

from __future__ import annotations

import json

import anyio
import pytest
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint
from envcraft_runtime.rules import period_key, period_shut
from mcp import Client

from tests.helpers import compiled_server as _compiled
from tests.helpers import seed_state as _state


def test_no_entry_is_drafted_or_posted_in_a_locked_or_missing_period(tmp_path):
    bp = load_blueprint(BLUEPRINTS / "month_end_close.yaml")
    folder, module = _compiled(bp, tmp_path)
    state = json.loads(_state(folder).read_text())
    assert {p["period"]: p["status"] for p in state["accounting_periods"]} == \
        {"2026-09": "locked", "2026-10": "locked", "2026-11": "open"}
    october = next(p for p in state["accounting_periods"] if p["period"] == "2026-10")
    waiting = state["journal_entries"][0]
    waiting.update(period="2026-10", status="submitted")
    _state(folder).write_text(json.dumps(state))
    draft = {"gl_account_id": state["gl_accounts"][0]["id"], "amount": 1200.0, "direction": "debit",
             "memo": "record bank fees"}

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            refused = await client.call_tool("journal_entry_draft", {**draft, "entry_number": "JE-2611-901",
                                                                     "period": "2026-10"})
            text = refused.content[0].text
            assert refused.is_error and "(rule entries_in_open_period:" in text, text
            assert f"accounting period 2026-10 ({october['id']}) is locked" in text, text
            missing = await client.call_tool("journal_entry_draft", {**draft, "entry_number": "JE-2611-902",
                                                                     "period": "2026-12"})
            assert missing.is_error and "no accounting period 2026-12 is on file" in missing.content[0].text
            done = await client.call_tool("journal_entry_draft", {**draft, "entry_number": "JE-2611-903",
                                                                  "period": "2026-11"})
            assert not done.is_error, done.content[0].text
            post = await client.call_tool("journal_entry_post", {"journal_entry_id": waiting["id"]})
            assert post.is_error and "(rule entries_in_open_period:" in post.content[0].text, post.content[0].text

    anyio.run(main)
    after = json.loads(_state(folder).read_text())
    assert [e["entry_number"] for e in after["journal_entries"] if e["entry_number"].startswith("JE-2611-9")] == \
        ["JE-2611-903"]
    assert next(e for e in after["journal_entries"] if e["id"] == waiting["id"])["status"] == "submitted"
    next(p for p in after["accounting_periods"] if p["id"] == october["id"])["status"] = "open"
    _state(folder).write_text(json.dumps(after))

    async def reopened():
        async with Client(module.build_server(folder / "seed")) as client:
            post = await client.call_tool("journal_entry_post", {"journal_entry_id": waiting["id"]})
            assert not post.is_error, post.content[0].text

    anyio.run(reopened)
    assert next(e for e in json.loads(_state(folder).read_text())["journal_entries"]
                if e["id"] == waiting["id"])["status"] == "posted"


@pytest.mark.parametrize("value, key", [("2026-10-31", "2026-10"), ("2026-10-31T17:30", "2026-10"),
                                        ("2026-10", "2026-10"), ("Q4", "Q4")])
def test_a_date_falls_in_its_month(value, key):
    rows = [{"id": "per-0001", "period": "2026-10", "status": "locked"}]
    assert period_key(value) == key
    fact = period_shut(rows, "period", value, "status", ("open",), "accounting period")
    assert fact is not None and (("is locked" in fact.text) if key == "2026-10" else ("no accounting period" in fact.text))
