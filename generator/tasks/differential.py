"""Differential check: the fast path (replay.World, app functions on plain tables) against the real
compiled servers over MCP (registry, in-process launcher), operation by operation.

Every operation of an environment is called with generated arguments, valid ones (drawn from the
current state) and invalid ones (an unknown id, a value outside an enum, a required argument left
out), in the same order on both paths. After every call both must agree on whether it succeeded,
on what it returned, and on the whole app state. Task validation runs on the fast path; this is
what makes that sound.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from envcraft.core.grading import Snapshot
from envcraft.core.state import HISTORY_TABLE
from envcraft.generator.tasks.env import EnvCache, EnvSpec, Tables
from envcraft.generator.tasks.execute import call
from envcraft.generator.tasks.mutations import plausible_args


@dataclass
class Mismatch:
    env: str
    op: str
    args: dict[str, Any]
    what: str  # ok / result / state

    def __str__(self) -> str:
        return f"{self.env}.{self.op}({json.dumps(self.args, default=str)[:200]}): {self.what} differs"


def arguments(env: EnvSpec, op_name: str, tables: Tables, rng: random.Random) -> list[dict[str, Any]]:
    """Valid-looking arguments, then three invalid variants (unknown id, bad enum, missing required)."""
    op = env.ops[op_name]
    entity = env.entity(op.entity)
    valid = plausible_args(env, op_name, tables, rng)
    out = [valid, plausible_args(env, op_name, tables, rng)]
    id_param = f"{entity.name}_id"
    if id_param in valid:
        out.append({**valid, id_param: f"{entity.id_prefix}-9999"})
    for param in env.params[op_name]:
        if param.spec is not None and param.spec.type == "enum" and param.name in valid:
            out.append({**valid, param.name: "no_such_value"})
            break
    required = [p.name for p in env.params[op_name] if p.required and p.name in valid]
    if required:
        out.append({k: v for k, v in valid.items() if k != rng.choice(required)})
    return out


def _jsonable(value: Any) -> Any:
    import dataclasses

    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def _structured(result: Any) -> Any:
    content = result.structured_content
    if isinstance(content, dict) and set(content) == {"result"}:
        return content["result"]
    return content


def _domain(tables: Tables) -> Tables:
    """The tables without the change log, which only the server keeps up (the fast path adds no entries)."""
    return {name: rows for name, rows in tables.items() if name != HISTORY_TABLE}


async def compare_env(cache: EnvCache, name: str, seed: int = 0, rounds: int = 2) -> tuple[int, list[Mismatch]]:
    """(calls made, mismatches) for every operation of one environment."""
    from envcraft.registry import catalog
    from envcraft.registry.launch import InProcessLauncher, launch
    from envcraft.registry.workspaces import WorkspaceRoot

    env = cache[name]
    rng = random.Random(f"{seed}:{name}:differential")
    tables = env.seed_tables()
    mismatches: list[Mismatch] = []
    calls = 0
    root = WorkspaceRoot()
    try:
        async with launch(catalog.get(name), InProcessLauncher(), root) as instance:
            for _ in range(rounds):
                for op in env.bp.operations:
                    for args in arguments(env, op.name, tables, rng):
                        calls += 1
                        ok, value = call(env, tables, op.name, dict(args))
                        result = await instance.client.call_tool(op.name, args)
                        if ok == bool(result.is_error):
                            mismatches.append(Mismatch(name, op.name, args, f"ok (fast {ok}: {str(value)[:120]})"))
                        elif ok and json.loads(json.dumps(_jsonable(value))) != _structured(result):
                            mismatches.append(Mismatch(name, op.name, args, "result"))
                        if _domain(Snapshot.of(instance.workspace).tables) != _domain(json.loads(json.dumps(tables))):
                            mismatches.append(Mismatch(name, op.name, args, "state"))
                            return calls, mismatches  # the paths have parted: later calls would all differ
    finally:
        root.close()
    return calls, mismatches


async def compare(cache: EnvCache, names: list[str], seed: int = 0, rounds: int = 2) -> tuple[int, list[Mismatch]]:
    total, found = 0, []
    for name in names:
        calls, mismatches = await compare_env(cache, name, seed, rounds)
        total += calls
        found += mismatches
    return total, found


__all__ = ["Mismatch", "compare", "compare_env"]
