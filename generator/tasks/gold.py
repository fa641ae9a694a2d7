"""Gold solutions: the executed plan as ToolCalls in which every id used was seen before.

The plan is replayed on its starting tables; before a call uses an id the agent has not yet seen
in an earlier reply, a search for that row (by the values the instruction describes it with), a
read of the parent row it hangs off, or a read of the export file that lists it is inserted. A
search pages as an agent would: the default page first, then `offset` as its cut notice says, until
the row shows. A row that cannot be found that way makes the task unsound and it is dropped.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from envcraft.core.tasks import ToolCall
from envcraft.generator.tasks.describe import Describer
from envcraft.generator.tasks.env import EnvSpec, Tables, copy_tables
from envcraft.generator.tasks.execute import Plan, Step, call, row_of, searchable, write_args
from envcraft.generator.tasks.replay import shell_command

ALL = 100_000  # a page size that lists every row: to learn which filter lists a row, never in a gold call


class Unfindable(Exception):
    """A row the gold would need cannot be found by the agent's tools."""


def seen_ids(env: EnvSpec, result: Any) -> set[str]:
    rows = result if isinstance(result, list) else [result]
    out: set[str] = set()
    for row in rows:
        data = dataclasses.asdict(row) if dataclasses.is_dataclass(row) else row if isinstance(row, dict) else {}
        out |= {v for k, v in data.items() if isinstance(v, str) and (k == "id" or k.endswith("_id"))}
        for spec_entity in env.bp.entities:
            for spec in spec_entity.fields:
                if spec.type == "ref" and isinstance(data.get(spec.name), str):
                    out.add(data[spec.name])
    return out


class GoldWriter:
    def __init__(self, env: EnvSpec, plan: Plan, describer: Describer, rng: random.Random,
                 shell_rate: float = 0.0, file_rate: float = 0.0):
        self.env, self.plan, self.describer, self.rng = env, plan, describer, rng
        self.tables: Tables = copy_tables(plan.initial)
        self.known: set[str] = set()
        self.calls: list[ToolCall] = []
        self.searchable = searchable(env)
        self.shell_rate, self.file_rate = shell_rate, file_rate
        self.exports = env.exports() if "read_file" in env.scaffold else {}
        self.seed_ids = {r["id"] for rows in env.seed_tables().values() for r in rows}
        self.read_files: set[str] = set()
        self.recent: dict[tuple[str, str], int] = {}  # reads made since the last write (-> their call): not repeated
        self.revealed: dict[int, set[str]] = {}  # call index -> ids a chain read showed (prunable if unused)
        self.result: Any = None  # the reply of the call emit_at made last (None for a read not repeated)
        self.pages: list[list[int]] = []  # each search's pages in order (a page read before counts): a kept page
        # keeps those before it, whose cut notice named its offset

    def emit(self, tool: str, args: dict[str, Any], turn: int) -> Any:
        self.emit_at(tool, args, turn)
        return self.result

    def emit_at(self, tool: str, args: dict[str, Any], turn: int) -> int:
        """Make the call (its reply in `self.result`) and return its index; a read already made since the last
        write is not repeated: the index of that earlier call, whose reply the agent already has."""
        writes = self.env.ops[tool].writes if tool in self.env.ops else tool != "read_file"
        key = (tool, repr(sorted(args.items())))
        self.result = None
        if not writes and key in self.recent:
            return self.recent[key]
        self.recent = {} if writes else {**self.recent, key: len(self.calls)}
        if tool in self.env.ops:
            ok, result = call(self.env, self.tables, tool, args)
            if not ok:
                raise Unfindable(f"{tool} refused during gold: {result}")
            self.known |= seen_ids(self.env, result)
        else:
            result = None
        self.calls.append(ToolCall(tool=tool, env=self.env.name, arguments=args, turn=turn))
        self.result = result
        return len(self.calls) - 1

    # ------------------------------------------------------------ finding rows

    def search_op(self, entity: str, fields: dict[str, Any]) -> str:
        options = [op for op in self.env.bp.operations if op.kind == "search" and op.entity == entity]
        options.sort(key=lambda op: -len(set(op.params) & set(fields)))
        return options[0].name

    def search_args(self, op_name: str, fields: dict[str, Any], target: str) -> dict[str, Any]:
        """The filters that list `target` (the row's described fields, or none), without a page size."""
        params = {p.spec.name: p for p in self.env.params[op_name] if p.spec is not None}
        args = {params[f].name: v for f, v in fields.items()
                if f in params and params[f].spec.type != "list_str" and not isinstance(v, list)}
        ok, rows = call(self.env, self.tables, op_name, {**args, "limit": ALL})
        if not ok or target not in {r.id for r in rows}:
            args = {}
            ok, rows = call(self.env, self.tables, op_name, {"limit": ALL})
            if not ok or target not in {r.id for r in rows}:
                raise Unfindable(f"{op_name} does not list {target}")
        return args

    def search(self, op_name: str, args: dict[str, Any], target: str, turn: int) -> list[int]:
        """The search as an agent runs it: the default page, then the next `offset` the cut notice names
        ("20 of 57 shown; pass offset=20 for the rest") until the target shows. The calls that showed its
        pages, in order (a page this read made before is that call), recorded as one page group."""
        pages, offset = [], 0
        while True:
            page_args = {**args, "offset": offset} if offset else dict(args)
            ok, page = call(self.env, self.tables, op_name, page_args)
            if not ok:
                raise Unfindable(f"{op_name} refused during gold: {page}")
            pages.append(self.emit_at(op_name, page_args, turn))
            offset = page.offset + len(page.results)
            if target in {r.id for r in page.results} or offset >= page.total:
                self.pages.append(pages)
                return pages

    def find(self, entity: str, row_id: str, turn: int, depth: int = 0) -> None:
        if row_id in self.known:
            return
        if depth > 3:
            raise Unfindable(f"{entity} {row_id} is too far from anything searchable")
        exported = self.exports.get(entity)
        if exported and row_id in self.seed_ids and (entity not in self.searchable or self.rng.random() < 0.3):
            self.emit("read_file", {"path": exported}, turn)
            self.known |= {r["id"] for r in self.env.seed_tables()[self.env.entity(entity).table]}
            return
        if entity in self.searchable and any(o.kind == "search" and o.entity == entity for o in self.env.bp.operations):
            desc = self.describer.describe(entity, row_id)
            if desc is None:
                raise Unfindable(f"{entity} {row_id} has no distinguishing description")
            for inner in desc.nested.values():
                self.find(inner.entity, inner.row_id, turn, depth + 1)
            op_name = self.search_op(entity, desc.fields)
            self.search(op_name, self.search_args(op_name, desc.fields, row_id), row_id, turn)
            return
        parent = self.plan.via.get((entity, row_id))
        if parent is None:
            raise Unfindable(f"{entity} {row_id} cannot be found")
        self.find(parent[0], parent[1], turn, depth + 1)
        if row_id not in self.known:
            raise Unfindable(f"{entity} {row_id} not visible from its parent")

    # ------------------------------------------------------------ steps

    def read(self, step: Step, turn: int) -> None:
        entity = self.env.entity(step.entity)
        if step.kind == "get":
            self.find(step.entity, step.target, turn)
            self.emit(step.op, {f"{entity.name}_id": step.target}, turn)
            return
        if step.target is None or row_of(self.tables, entity.table, step.target) is None:
            self.emit(step.op, {}, turn)
            return
        if step.target in self.plan.created:
            fields = dict(self.plan.steps[self.plan.created[step.target]].fields)
        else:
            desc = self.describer.describe(step.entity, step.target)
            if desc is None:
                raise Unfindable(f"{step.entity} {step.target} has no description")
            for inner in desc.nested.values():
                self.find(inner.entity, inner.row_id, turn)
            fields = desc.fields
        for name, value in fields.items():
            spec = entity.field(name)
            if spec.type == "ref" and name in self.env.ops[step.op].params:
                self.find(spec.ref, value, turn)
        before, start = set(self.known), len(self.calls)
        pages = self.search(step.op, self.search_args(step.op, fields, step.target), step.target, turn)
        for index in pages:  # a page made before showed this read nothing new: kept only for a later page's sake
            if index >= start:
                self.revealed[index] = (self.known - before) | {step.target}

    def prune(self, keep_last: bool) -> None:
        """Drop chain reads whose rows nothing later uses (the walk passed by them; the task does not)."""
        text = [repr(sorted(c.arguments.items())) for c in self.calls]
        kept = set()
        for index in range(len(self.calls)):
            ids = self.revealed.get(index)
            if ids is None or any(i in later for i in ids for later in text[index + 1:]):
                kept.add(index)
        if keep_last:
            kept.add(len(self.calls) - 1)
        grown = True
        while grown:  # a kept page needs the pages before it in its search, whose cut notice named its offset
            grown = False
            for pages in self.pages:
                last = max((at for at, index in enumerate(pages) if index in kept), default=0)
                grown |= not set(pages[:last]) <= kept
                kept |= set(pages[:last])
        self.calls = [c for index, c in enumerate(self.calls) if index in kept]

    def write(self, step: Step, turn: int) -> None:
        op = self.env.ops[step.op]
        entity = self.env.entity(op.entity)
        args = write_args(self.env, step)
        if step.target and not step.created:
            self.find(op.entity, step.target, turn)
        for name, value in step.fields.items():
            spec = entity.field(name)
            if spec.type == "ref" and name != step.override:
                self.find(spec.ref, value, turn)
        command = shell_command(self.env, step.op, args) if self.env.cli and self.rng.random() < self.shell_rate else None
        if command:
            ok, result = call(self.env, self.tables, step.op, args)
            if not ok:
                raise Unfindable(f"{step.op} refused during gold: {result}")
            self.known |= seen_ids(self.env, result)
            self.recent = {}
            self.calls.append(ToolCall(tool="run_shell", env=self.env.name, arguments={"command": command}, turn=turn))
        else:
            self.emit(step.op, args, turn)

    def run(self, turns: list[int], keep_last: bool = False) -> list[ToolCall]:
        for step, turn in zip(self.plan.steps, turns):
            (self.write if step.writes else self.read)(step, turn)
        if self.tables != self.plan.final:
            raise Unfindable("gold does not reproduce the plan's final state")
        self.prune(keep_last)
        return self.calls
