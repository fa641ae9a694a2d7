"""Each environment's tool schemas keep its own `Literal` order, whatever else the process loaded first.

typing caches `X | None` by its members, and Literals with the same values in another order compare
equal; reader_subscription_support writes `Literal["chat", "phone", "email"]` and support_skill_routing
`Literal["chat", "email", "phone"]`, so one could list the other's order. Each load order runs in a
fresh process (the cache is process-wide), through the SDK's path and through a freshly derived cache.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

import pytest
from envcraft.registry.catalog import get

from tests.helpers import REPO

PAIR = ["reader_subscription_support", "support_skill_routing"]
LISTING = """
import json, sys, anyio
from envcraft.registry.catalog import get
from envcraft.registry.launch import load_server_module
from envcraft.registry.workspaces import WorkspaceRoot, materialize
from mcp import Client

def enums(schema, out):
    if isinstance(schema, dict):
        if "enum" in schema:
            out.append(schema["enum"])
        for value in schema.values():
            enums(value, out)
    elif isinstance(schema, list):
        for value in schema:
            enums(value, out)
    return out

async def main():
    root, found = WorkspaceRoot(), {}
    for name in sys.argv[1:]:
        folder = root.create(name)
        materialize(get(name).seed, folder)
        async with Client(load_server_module(get(name)).build_server(folder)) as client:
            found[name] = [e for t in (await client.list_tools()).tools for e in enums(t.input_schema, [])]
    root.close()
    print(json.dumps(found))

anyio.run(main)
"""


def written(name: str) -> set[tuple]:
    """Every Literal[...] as the environment's app.py writes it, in its order."""
    tree = ast.parse((get(name).folder / "app.py").read_text())
    return {tuple(ast.literal_eval(node.slice) if isinstance(node.slice, ast.Tuple) else (node.slice.value,))
            for node in ast.walk(tree)
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal"}


@pytest.mark.parametrize("cached", ["0", "1"])
@pytest.mark.parametrize("order", [PAIR, PAIR[::-1]])
def test_each_environment_lists_its_own_literal_order(order, cached, tmp_path):
    env = {**os.environ, "ENVCRAFT_TOOL_CACHE": cached, "ENVCRAFT_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", LISTING, *order], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    for name in order:
        own = written(name)
        channels = {tuple(e) for e in found[name] if set(e) == {"chat", "email", "phone"}}
        assert channels and channels <= own, (name, channels, own)  # the pair collides here
        for enum in found[name]:  # and every other enum of the app's own values keeps the app's order
            if any(set(enum) == set(o) for o in own):
                assert tuple(enum) in own, (name, enum)
