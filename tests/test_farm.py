"""Many episodes at once on one environment: separate state, recycled workspaces start clean."""

from __future__ import annotations

import anyio
import pytest
from envcraft.registry.catalog import get
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot

from tests.helpers import cross_task, shows_row

pytestmark = pytest.mark.anyio


@pytest.mark.slow
async def test_64_concurrent_episodes_keep_separate_state(tmp_path):
    env, launcher, root = get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)
    seen: dict[int, tuple[str, str]] = {}
    all_inside = anyio.Event()
    inside = 0

    async def episode(index: int) -> None:
        nonlocal inside
        async with launch(env, launcher, root) as instance:
            client = instance.client
            await client.call_tool("write_file", {"path": "mine.txt", "content": f"episode {index}"})
            await client.call_tool("todo_add", {"title": f"todo of {index}", "owner": "x@northwind.studio", "due": "2026-12-09"})
            inside += 1
            if inside == 64:
                all_inside.set()
            await all_inside.wait()  # every episode is live at once before any reads back
            text = (await client.call_tool("read_file", {"path": "mine.txt"})).content[0].text
            todos = (await client.call_tool("todo_list", {"owner": "x@northwind.studio"})).structured_content["result"]
            seen[index] = (text, ",".join(t["title"] for t in todos))

    async with anyio.create_task_group() as group:
        for index in range(64):
            group.start_soon(episode, index)
    assert seen == {i: (f"episode {i}", f"todo of {i}") for i in range(64)}

    assert root.idle(env.seed) == 64  # all recycled into the pool, rebuilt from the seed
    async with launch(env, launcher, root) as reused:
        assert (await reused.client.call_tool("read_file", {"path": "mine.txt"})).is_error
        assert (await reused.client.call_tool("todo_list", {"owner": "x@northwind.studio"})).structured_content["result"] == []
    root.close()


async def test_task_initial_state_does_not_leak_into_the_next_episode(tmp_path):
    from envcraft.core.state import InitialState

    env, launcher, root = get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)
    root.prewarm(env.name, env.seed, 1)
    planted = InitialState(files={"planted.txt": "decoy"})
    async with launch(env, launcher, root, planted) as first:
        assert (first.workspace / "planted.txt").exists()
    async with launch(env, launcher, root) as second:
        assert second.workspace == first.workspace  # the same pooled folder, rebuilt
        assert not (second.workspace / "planted.txt").exists()
    root.close()


async def test_each_environment_of_a_cross_environment_task_starts_from_its_own_initial_state(tmp_path):
    """The in-process farm's side of test_gateway_groups: every row of each environment's own S0 is there."""
    from envcraft.harness.farm_local import LocalFarm

    task = cross_task()
    root = WorkspaceRoot(tmp_path)
    async with LocalFarm(root=root) as farm:
        info = await farm.create(task)
        clients = farm.live[info.id].opened.clients
        assert list(clients) == task.envs
        for env, client in clients.items():
            rows = task.initial_for(env).rows
            assert rows, env
            for table, added in rows.items():
                for row in added:
                    assert await shows_row(client, env, table, row), (env, table, row["id"])
        await farm.delete(info.id)
    root.close()
