"""A gold's calls as a mutation sees them: a domain call made as a tool or through the shell CLI, the same call
in either form, calls added before the finish, and plausible arguments drawn from the state."""

from __future__ import annotations

import random
import shlex
from typing import Any

from envcraft.core.tasks import Task, ToolCall
from envcraft.generator.tasks.decoys import shifted
from envcraft.generator.tasks.env import EnvCache, EnvSpec, Tables
from envcraft.generator.tasks.replay import parse_flags, shell_command


def domain_call(cache: EnvCache, task: Task, call: ToolCall) -> tuple[EnvSpec, str, dict[str, Any]] | None:
    """(env, operation, arguments) of a domain call, whether made as a tool or through the shell CLI."""
    env = cache[call.env or task.envs[0]]
    if call.tool in env.ops:
        return env, call.tool, dict(call.arguments)
    if call.tool == "run_shell" and env.cli:
        words = shlex.split(str(call.arguments.get("command", "")))
        if len(words) >= 2 and words[0] == env.cli and words[1].replace("-", "_") in env.ops:
            op = words[1].replace("-", "_")
            try:
                return env, op, parse_flags(env, op, words[2:])
            except ValueError:
                return None
    return None


def as_call(template: ToolCall, env: EnvSpec, op: str, args: dict[str, Any]) -> ToolCall | None:
    """A call of `op` with `args`, in the same form (tool or shell) as `template`."""
    if template.tool == "run_shell":
        command = shell_command(env, op, args)
        return template.model_copy(update={"arguments": {"command": command}}) if command else None
    return template.model_copy(update={"tool": op, "arguments": args})


def before_finish(calls: list[ToolCall], extra: list[ToolCall]) -> list[ToolCall]:
    """`extra` inserted just before the final finish (or appended), in the last turn."""
    end = len(calls) - 1 if calls and calls[-1].tool == "finish" else len(calls)
    turn = calls[end - 1].turn if end > 0 else 0
    return calls[:end] + [c.model_copy(update={"turn": turn}) for c in extra] + calls[end:]


def plausible_args(env: EnvSpec, op_name: str, tables: Tables, rng: random.Random,
                   avoid: set[str] = frozenset()) -> dict[str, Any]:
    """Arguments for `op_name` drawn from the state (a random existing row, plausible field values)."""
    op = env.ops[op_name]
    entity = env.entity(op.entity)
    args: dict[str, Any] = {}
    for param in env.params[op_name]:
        if param.spec is None and param.name == f"{entity.name}_id":
            rows = [r for r in tables.get(entity.table, []) if r["id"] not in avoid] or tables.get(entity.table, [])
            if rows:
                args[param.name] = rng.choice(rows)["id"]
            continue
        if param.spec is None or not (param.required or rng.random() < 0.3):
            continue
        spec = param.spec
        if spec.type == "ref":
            rows = tables.get(env.entity(spec.ref).table, [])
            value = rng.choice(rows)["id"] if rows else None
        else:
            pool = [r.get(spec.name) for r in tables.get(entity.table, []) if r.get(spec.name) is not None]
            value = rng.choice(pool) if pool else None
            if value is not None and spec.unique:
                value = shifted(env, entity, spec, value, rng, tables) if spec.type != "bool" else value
        if value is not None:
            args[param.name] = float(value) if spec.type == "float" and isinstance(value, int) else value
    return args


__all__ = ["as_call", "before_finish", "domain_call", "plausible_args"]
