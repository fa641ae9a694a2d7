"""The fast path: a task's environments as plain tables and files, driven by ToolCalls.

`World` mirrors what registry.workspaces.materialize builds (seed + the task's initial state) and
what harness.grading.Snapshot reads back, and runs calls the way the MCP server would: domain
tools through the compiled app functions, scaffold tools on an in-memory file map (run_shell
only for the `<cli> <verb> --flag value` commands the engine itself writes).
"""

from __future__ import annotations

import inspect
import shlex
import typing
from typing import Any

from envcraft.core.grading import Snapshot
from envcraft.core.state import InitialState
from envcraft.core.tasks import Task, ToolCall
from envcraft.generator.tasks.env import EnvCache, EnvSpec, Tables, copy_row
from envcraft.generator.tasks.execute import call

DERIVED_READS = frozenset({"list_changes"})  # derived tools a gold may call (generator/compile/extras.py)


def initial_tables(env: EnvSpec, initial: InitialState) -> Tables:
    tables = env.seed_tables()
    for table, rows in initial.rows.items():
        tables.setdefault(table, []).extend(copy_row(r) for r in rows)
    for table, changes in initial.updates.items():
        by_id = {row.get("id"): row for row in tables.get(table, [])}
        for row_id, fields in changes.items():
            by_id[row_id].update(fields)
    return tables


def snapshot(tables: Tables, files: dict[str, str], answer: str | None = None) -> Snapshot:
    return Snapshot.model_construct(tables=tables, files=files, answer=answer)


class World:
    def __init__(self, cache: EnvCache, task: Task):
        self.task = task
        self.envs = {name: cache[name] for name in task.envs}
        self.tables: dict[str, Tables] = {}
        self.files: dict[str, dict[str, str]] = {}
        for name, env in self.envs.items():
            initial = task.initial_for(name)
            self.tables[name] = initial_tables(env, initial)
            self.files[name] = {**env.seed_files, **initial.files}
        self.answer: str | None = None
        self.start = self.snapshots()

    def snapshots(self) -> dict[str, Snapshot]:
        first = self.task.envs[0]
        return {name: snapshot({t: [copy_row(r) for r in rows] for t, rows in self.tables[name].items()},
                               dict(self.files[name]), self.answer if name == first else None)
                for name in self.envs}

    def final(self) -> dict[str, Snapshot]:
        first = self.task.envs[0]
        return {name: snapshot(self.tables[name], self.files[name], self.answer if name == first else None)
                for name in self.envs}

    def run(self, calls: list[ToolCall]) -> list[tuple[bool, Any]]:
        return [self.apply(c) for c in calls]

    def apply(self, tool_call: ToolCall) -> tuple[bool, Any]:
        name = tool_call.env or self.task.envs[0]
        env = self.envs.get(name)
        if env is None:
            return False, f"no environment {name}"
        args = dict(tool_call.arguments)
        tool = tool_call.tool
        if tool in env.ops or tool in DERIVED_READS:  # derived reads (generator/compile/extras.py) change nothing
            return call(env, self.tables[name], tool, args)
        if tool not in env.scaffold:
            return False, f"no tool {tool}"
        files = self.files[name]
        if tool == "finish":
            if name != self.task.envs[0]:
                return False, "finish belongs to the first environment"
            self.answer = str(args.get("answer", ""))
            return True, "recorded"
        if tool == "write_file":
            path = str(args.get("path", ""))
            if not path or path.startswith(("/", ".app")) or ".." in path.split("/"):
                return False, "bad path"
            files[path] = str(args.get("content", ""))
            return True, "wrote"
        if tool == "edit_file":
            path, old, new = args.get("path"), args.get("old_text", ""), args.get("new_text", "")
            text = files.get(path)
            if text is None or not old or old not in text:
                return False, "not found"
            files[path] = text.replace(old, new) if args.get("replace_all") else text.replace(old, new, 1)
            return True, "edited"
        if tool == "read_file":
            path = args.get("path")
            return (True, files[path]) if path in files else (False, "no such file")
        if tool == "run_shell":
            return self.shell(env, name, str(args.get("command", "")))
        return True, None  # list_dir, find_files, grep: reads only

    def shell(self, env: EnvSpec, name: str, command: str) -> tuple[bool, Any]:
        try:
            words = shlex.split(command)
        except ValueError:
            return False, "unparsable"
        if len(words) < 2 or words[0] != env.cli:
            return True, None  # some other shell command: reads only in what the engine writes
        op_name = words[1].replace("-", "_")
        if op_name not in env.ops:
            return False, "unknown verb"
        try:
            args = parse_flags(env, op_name, words[2:])
        except ValueError as exc:
            return False, str(exc)
        return call(env, self.tables[name], op_name, args)


def _base(annotation: Any) -> Any:
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, getattr(__import__("types"), "UnionType", None)) and args:
        return args[0]
    return annotation


def parse_flags(env: EnvSpec, op_name: str, words: list[str]) -> dict[str, Any]:
    """`--param value` pairs as the CLI parses them (int/float converted, lists as several words)."""
    signature = inspect.signature(env.fn(op_name), eval_str=True)
    params = {p.name: _base(p.annotation) for p in list(signature.parameters.values())[1:]}
    out: dict[str, Any] = {}
    i = 0
    while i < len(words):
        flag = words[i]
        if not flag.startswith("--"):
            raise ValueError(f"unexpected {flag}")
        name = flag[2:].replace("-", "_")
        negated = name.startswith("no_") and name[3:] in params and params[name[3:]] is bool
        key = name[3:] if negated else name
        kind = params.get(key)
        if kind is None:
            raise ValueError(f"unknown flag {flag}")
        if kind is bool:
            out[key] = not negated
            i += 1
            continue
        values = []
        i += 1
        while i < len(words) and not words[i].startswith("--"):
            values.append(words[i])
            i += 1
        if typing.get_origin(kind) is list:
            out[key] = values
        elif len(values) != 1:
            raise ValueError(f"{flag} takes one value")
        else:
            out[key] = int(values[0]) if kind is int else float(values[0]) if kind is float else values[0]
    return out


def shell_command(env: EnvSpec, op_name: str, args: dict[str, Any]) -> str | None:
    """The CLI form of a call, or None when it has a value the CLI cannot carry exactly."""
    words = [env.cli, op_name.replace("_", "-")]
    for key, value in args.items():
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            words.append(flag if value else "--no-" + key.replace("_", "-"))
        elif isinstance(value, list):
            if not value:
                return None
            words += [flag, *[str(v) for v in value]]
        elif value is None:
            continue
        else:
            if isinstance(value, str) and value.startswith("-"):
                return None
            words += [flag, str(value)]
    return " ".join(shlex.quote(w) for w in words)
