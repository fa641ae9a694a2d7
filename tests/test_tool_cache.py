"""The speed caches change nothing an agent or a client sees.

- tool schemas read from the runtime's cache list and answer exactly as the SDK's own registration;
- a change to an environment's source is a cache miss (never a stale schema);
- output validators are shared between sessions, compiled on first use only;
- the in-process launcher's shared server hands each new session the listing it would have fetched.
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
import types
from pathlib import Path

import pytest
from envcraft.harness import schema_cache
from envcraft.registry.catalog import get
from envcraft.registry.launch import InProcessLauncher, launch, load_server_module
from envcraft.registry.workspaces import WorkspaceRoot
from mcp import Client

pytestmark = pytest.mark.anyio

CALLS = [  # read-only calls and refused ones: both servers act on one workspace
    ("list_dir", {}), ("read_file", {"path": "SKILL.md", "limit": 5}), ("grep", {"pattern": "budget"}),
    ("contacts_search", {"query": "design"}), ("todo_list", {"status": "all"}), ("calendar_list", {}),
    ("todo_list", {"status": "someday"}),  # a ToolError
    ("todo_add", {"title": "x"}),  # missing arguments: the SDK's validation message
    ("read_file", {"path": "SKILL.md", "offset": "many"}),  # a wrong type
    ("read_file", {"path": "SKILL.md", "offset": "3"}),  # lax coercion, as the SDK does
    ("contacts_search", {"query": "design", "name": "Priya"}),  # an unknown argument: refused on both paths
]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ENVCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _server(module: types.ModuleType, workspace: Path, monkeypatch, cached: bool):
    monkeypatch.setenv("ENVCRAFT_TOOL_CACHE", "1" if cached else "0")
    return module.build_server(workspace)


async def _answers(server, calls: list = CALLS) -> tuple[str, str]:
    """The listing and the replies as JSON text: equal Python values may differ on the wire (2 == 2.0)."""
    async with Client(server) as client:
        listing = [tool.model_dump(mode="json") for tool in (await client.list_tools()).tools]
        replies = []
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            replies.append((name, result.is_error, [c.model_dump(mode="json") for c in result.content],
                            result.structured_content))
    return json.dumps(listing, sort_keys=True), json.dumps(replies, sort_keys=True)


@pytest.mark.parametrize("env_name", ["office", "accounts_payable_desk"])
async def test_cached_schemas_list_and_answer_as_the_sdk_does(env_name, cache, tmp_path, monkeypatch):
    env = get(env_name)
    module = load_server_module(env)
    root = WorkspaceRoot(tmp_path / "ws")
    workspace = root.checkout(env.name, env.seed)
    sdk = _server(module, workspace, monkeypatch, cached=False)
    first = _server(module, workspace, monkeypatch, cached=True)  # derives and stores
    assert len(list((cache / "tool-schemas").glob(f"{env_name}-*.json"))) == 1
    second = _server(module, workspace, monkeypatch, cached=True)  # reads the cache
    assert all(type(t).__name__ == "PrecomputedTool" for t in second._tool_manager.list_tools())
    if env_name == "office":
        expected = await _answers(sdk)
        assert await _answers(first) == expected
        assert await _answers(second) == expected
        errors = [error for _, error, _, _ in json.loads(expected[1])]
        assert any(errors) and not all(errors)
    else:
        async with Client(sdk) as a, Client(second) as b:
            assert [t.model_dump(mode="json") for t in (await a.list_tools()).tools] == \
                   [t.model_dump(mode="json") for t in (await b.list_tools()).tools]
    root.close()


WHOLE_FLOATS = [  # expense_reimbursement's seed stores these reports' totals as 0, in a field typed float
    ("expense_report_get", {"expense_report_id": "exr-0001"}),
    ("expense_report_search", {"limit": 3}), ("expense_report_report", {"group_by": "status"}),
]


async def test_a_result_is_the_same_with_the_cache_on_and_off(cache, tmp_path, monkeypatch):
    """The SDK dumps an int in a float field as 0.0 (its output model converts it); a cached tool must too."""
    env = get("expense_reimbursement")
    module = load_server_module(env)
    root = WorkspaceRoot(tmp_path / "ws")
    workspace = root.checkout(env.name, env.seed)
    seeded = json.loads((workspace / ".app" / "state.json").read_text())["expense_reports"][0]
    assert seeded["id"] == "exr-0001" and type(seeded["total"]) is int  # the case this test is about
    sdk = await _answers(_server(module, workspace, monkeypatch, cached=False), WHOLE_FLOATS)
    _server(module, workspace, monkeypatch, cached=True)  # derives and stores
    cached = _server(module, workspace, monkeypatch, cached=True)
    assert all(type(t).__name__ == "PrecomputedTool" for t in cached._tool_manager.list_tools())
    assert await _answers(cached, WHOLE_FLOATS) == sdk
    assert json.loads(sdk[1])[0][3]["total"] == 0.0 and '"total": 0.0' in sdk[1]
    root.close()


def _load_copy(folder: Path, package: str) -> types.ModuleType:
    module = types.ModuleType(package)
    module.__path__ = [str(folder)]
    sys.modules[package] = module
    return importlib.import_module(f"{package}.server")


async def test_a_changed_source_is_never_served_a_stale_schema(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("ENVCRAFT_TOOL_CACHE", "1")
    original = get("office").folder
    copy = tmp_path / "a" / "office"  # the same folder name: only the fingerprint tells the two apart
    shutil.copytree(original, copy, ignore=shutil.ignore_patterns("__pycache__"))
    app = copy / "app.py"
    app.write_text(app.read_text().replace('def todo_list(tables: Tables, owner: str = "", status: str = "open")',
                                           'def todo_list(tables: Tables, owner: str = "", status: str = "open", '
                                           'limit: int = 50)'))
    try:
        before = _load_copy(original, "envcraft_test_office_before").build_server(tmp_path)
        after = _load_copy(copy, "envcraft_test_office_after").build_server(tmp_path)
        async with Client(before) as a, Client(after) as b:
            old = {t.name: t for t in (await a.list_tools()).tools}["todo_list"]
            new = {t.name: t for t in (await b.list_tools()).tools}["todo_list"]
        assert "limit" not in old.input_schema["properties"]
        assert new.input_schema["properties"]["limit"]["default"] == 50
        assert len(list((cache / "tool-schemas").glob("office-*.json"))) == 2
    finally:
        for name in [m for m in sys.modules if m.startswith("envcraft_test_office_")]:
            del sys.modules[name]


async def test_sessions_share_output_validators_compiled_on_first_use(cache, tmp_path):
    env, launcher, root = get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path / "ws")
    schema_cache._VALIDATORS.clear()
    schema_cache._CHECKED.clear()  # as a new process would start: an earlier test's memory is not this cache's
    schema_cache._LOADED.clear()
    validators = []
    for _ in range(2):
        async with launch(env, launcher, root) as instance:
            await instance.client.list_tools()
            schema_cache.share_output_validators(instance.client)
            assert schema_cache._VALIDATORS == {} or validators  # listing compiles nothing
            reply = await instance.client.call_tool("todo_list", {"status": "all"})
            assert not reply.is_error and reply.structured_content["result"]
            validators.append(instance.client._client.session._tool_output_validators.get("todo_list"))
    assert validators[0] is not None and validators[0] is validators[1]  # compiled once, shared
    assert len(schema_cache._VALIDATORS) == 1  # only the tool that was called
    assert (cache / "checked-output-schemas.txt").read_text().split()  # its meta-validation is remembered
    root.close()


async def test_a_result_that_breaks_its_schema_is_still_refused_with_shared_validators(cache, tmp_path):
    """Validators are shared by schema, not by tool name: a session whose listing says otherwise gets its own."""
    env, launcher, root = get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path / "ws")
    for altered in (False, True):
        async with launch(env, launcher, root) as instance:
            await instance.client.list_tools()
            schema_cache.share_output_validators(instance.client)
            if not altered:
                assert not (await instance.client.call_tool("list_dir", {})).is_error  # the real schema's validator
                continue
            session = instance.client._client.session
            session._tool_output_schemas["list_dir"] = {"type": "object", "required": ["result"],
                                                        "properties": {"result": {"type": "integer"}}}
            with pytest.raises(RuntimeError, match="Invalid structured content returned by tool list_dir"):
                await instance.client.call_tool("list_dir", {})
    root.close()


async def test_every_session_of_a_shared_server_gets_the_full_listing(tmp_path):
    env, launcher, root = get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path / "ws")
    listings = []
    for _ in range(3):
        async with launch(env, launcher, root) as instance:
            listings.append([t.model_dump(mode="json") for t in (await instance.client.list_tools()).tools])
            session = instance.client._client.session
            assert set(session._tool_output_schemas) == {t["name"] for t in listings[-1]}
    assert listings[0] == listings[1] == listings[2] and len(listings[0]) == 22
    assert launcher.server(env) is launcher.server(env)  # one server, built once, for every episode
    root.close()
