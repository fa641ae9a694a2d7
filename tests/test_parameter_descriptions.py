"""Every domain tool's input schema describes each parameter (format, unit, allowed values), as an MCP client
lists it: agents read the schema, not the docstring. Types, names and required lists are what the signature
says, as before (the catalog tests check the tools' behaviour)."""

from __future__ import annotations

import pytest
from envcraft.registry.catalog import discover
from envcraft.registry.launch import InProcessLauncher, load_server_module
from mcp import Client

ENVS = sorted(discover())


async def listed(name: str) -> dict[str, dict]:
    env = discover()[name]
    async with Client(InProcessLauncher().server(env)) as client:
        return {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}


@pytest.mark.anyio
async def test_the_date_format_of_a_schedule_is_in_its_schema():
    schema = (await listed("field_crew_dispatch"))["crew_job_schedule"]
    assert "YYYY-MM-DDTHH:MM" in schema["properties"]["start"]["description"]
    assert "lcr-0001" in schema["properties"]["line_crew_id"]["description"]
    assert schema["required"] == ["service_order_id", "line_crew_id", "utility_truck_id", "start", "end"]
    assert schema["properties"]["start"]["type"] == "string"


@pytest.mark.anyio
@pytest.mark.parametrize("name", ENVS)
async def test_every_domain_parameter_is_described(name):
    app = load_server_module(discover()[name]).app
    tools = await listed(name)
    for op in app.OPERATIONS:
        for parameter, spec in tools[op.__name__]["properties"].items():
            described = spec.get("description", "")
            assert described and described == op.parameters[parameter], (op.__name__, parameter)
            choices = spec.get("enum") or next((a["enum"] for a in spec.get("anyOf", []) if "enum" in a), None)
            if choices and parameter != "group_by":
                assert "one of: " + ", ".join(choices) in described, (op.__name__, parameter)
