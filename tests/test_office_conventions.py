"""office, the hand-written reference environment, follows the conventions generated apps follow, as an MCP client
sees them: a search says when its results are cut, read_policies lists the rules a refusal cites, list_changes
shows what a write changed, and every tool parameter (domain and workspace tools) is described in its schema."""

from __future__ import annotations

import json

import pytest
from envcraft.registry.catalog import get
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot
from envcraft_runtime.mcp_adapter import SCAFFOLD_PARAMETERS
from mcp import Client

SEED = json.loads((get("office").seed / ".app" / "state.json").read_text("utf-8"))


async def call(client: Client, name: str, /, **arguments) -> dict:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, (name, result.content[0].text)
    return result.structured_content


@pytest.mark.anyio
async def test_mail_search_says_when_its_results_are_cut_and_the_next_page_reads_the_rest(tmp_path):
    inbox = sorted(m["id"] for m in SEED["mail"] if m["folder"] == "inbox")
    assert len(inbox) > 20  # more than one default page
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        first = await call(instance.client, "mail_search")
        assert first["total"] == len(inbox) and len(first["results"]) == 20
        assert first["note"] == f"20 of {len(inbox)} shown; pass offset=20 for the rest"
        rest = await call(instance.client, "mail_search", offset=20)
        assert rest["note"] == f"{len(inbox) - 20} of {len(inbox)} shown (offset 20); no more results"
        seen = [m["id"] for m in first["results"] + rest["results"]]
        assert sorted(seen) == inbox  # every message once, none twice
        dates = [m["date"] for m in first["results"] + rest["results"]]
        assert dates == sorted(dates, reverse=True)  # newest first across pages
        refused = await instance.client.call_tool("mail_search", {"limit": 0})
        assert refused.is_error and "at least 1" in refused.content[0].text


@pytest.mark.anyio
async def test_a_refusal_cites_a_rule_read_policies_lists(tmp_path):
    booked = next(e for e in SEED["events"] if e["status"] == "confirmed" and e["attendees"])
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        client = instance.client
        clash = await client.call_tool("calendar_create", {"title": "Clash", "start": booked["start"],
                                                           "end": booked["end"], "attendees": booked["attendees"][:1]})
        assert clash.is_error and "(rule no_double_booking: busy at that time" in clash.content[0].text
        sent = next(m for m in SEED["mail"] if m["folder"] == "sent")
        moved = await client.call_tool("mail_move", {"message_id": sent["id"], "folder": "trash"})
        assert moved.is_error and f"(rule sent_mail_stays: {sent['id']} is in sent)" in moved.content[0].text
        rules = (await call(client, "read_policies", tool="calendar_create"))["result"]
        assert [(r["id"], r["enforced"]) for r in rules] == [("no_double_booking", True)]
        every = {r["id"] for r in (await call(client, "read_policies"))["result"]}
        assert {"no_double_booking", "sent_mail_stays"} <= every
        unknown = await client.call_tool("read_policies", {"tool": "mail_delete"})
        assert unknown.is_error and "unknown tool" in unknown.content[0].text


@pytest.mark.anyio
async def test_list_changes_shows_what_a_write_changed(tmp_path):
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        client = instance.client
        assert (await call(client, "list_changes"))["total"] == 0
        sent = await call(client, "mail_send", to=["priya.shah@northwind.studio"], subject="Hello", body="Hi")
        todo = next(t for t in SEED["todos"] if t["status"] == "open")
        await call(client, "todo_complete", todo_id=todo["id"])
        mail = (await call(client, "list_changes", table="mail"))["results"]
        assert [(c["row_id"], c["field"], c["new"], c["by"]) for c in mail] == [
            (sent["id"], "*", "created", "assistant")]
        done = (await call(client, "list_changes", row_id=todo["id"]))["results"]
        assert [(c["field"], c["old"], c["new"]) for c in done] == [("status", "open", "done")]
        assert [c["table"] for c in (await call(client, "list_changes"))["results"]] == ["todos", "mail"]


@pytest.mark.anyio
async def test_every_tool_parameter_is_described_in_its_schema(tmp_path):
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        tools = {t.name: t.input_schema for t in (await instance.client.list_tools()).tools}
    assert set(SCAFFOLD_PARAMETERS) <= set(tools) and len(tools) == 22
    for name, schema in tools.items():
        for parameter, spec in schema["properties"].items():
            assert spec.get("description"), (name, parameter)
            if name in SCAFFOLD_PARAMETERS:
                assert spec["description"] == SCAFFOLD_PARAMETERS[name][parameter]
