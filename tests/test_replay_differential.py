"""The fast path that validates every task (generator/tasks/replay.py: app functions on plain tables) is
the real path: every operation of every generated environment, called with generated valid and invalid
arguments, succeeds or fails the same, returns the same and leaves the same state as the compiled server
reached over MCP through the registry (in-process launcher)."""

from __future__ import annotations

import anyio
import pytest
from envcraft.generator.tasks.differential import compare
from envcraft.generator.tasks.env import EnvCache, generated_envs


@pytest.mark.slow
def test_every_operation_of_every_environment_agrees_with_the_real_server():
    cache = EnvCache(generated_envs())
    assert len(cache.names) >= 150
    calls, mismatches = anyio.run(compare, cache, cache.names, 0, 1)
    assert calls >= 20 * len(cache.names)
    assert [str(m) for m in mismatches] == []
