"""Bind a chain to concrete rows and arguments, and run it on the compiled app functions.

Binding walks the chain with a focus per entity (the row the chain is "about"): a search picks the
row its next consumer can act on (a booked appointment before a check-in, a pet with an owner
the previous search found), a get or write uses the focus, a create makes its new row the focus.
Writes are tried on the real app functions; when a precondition refuses, other values or rows
are tried. The result is a Plan whose write steps replay exactly on the same starting tables.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from envcraft.generator.compile.appcode import pyname
from envcraft.generator.model.blueprint import Operation
from envcraft.generator.tasks.choose import Chooser
from envcraft.generator.tasks.env import EnvSpec, Tables, copy_tables, is_active
from envcraft.generator.tasks.graph import accepts, needs, ref_params
from envcraft_runtime import ToolFailure

TRIES = 10


class Failed(Exception):
    """A draft task that cannot be built (or should not be: an incoherent request); the generator drops it."""


@dataclass
class Step:
    env: str
    op: str
    kind: str
    entity: str
    target: str | None = None  # the row read or acted on (a created row's id after it runs)
    fields: dict[str, Any] = field(default_factory=dict)  # write arguments keyed by field name
    created: bool = False
    override: str | None = None  # cross-env: the field whose value came from the other environment

    @property
    def writes(self) -> bool:
        return self.kind in ("create", "update", "transition", "delete")


@dataclass
class Plan:
    env: str
    steps: list[Step]
    initial: Tables
    final: Tables
    created: dict[str, int] = field(default_factory=dict)  # created id -> step index
    via: dict[tuple[str, str], tuple[str, str, str]] = field(default_factory=dict)


def call(env: EnvSpec, tables: Tables, op_name: str, args: dict[str, Any]) -> tuple[bool, Any]:
    """Run one operation in place; (False, message) when it refuses (tables then unchanged)."""
    try:
        return True, env.fn(op_name)(tables, **args)
    except ToolFailure as exc:
        return False, str(exc)
    except (TypeError, ValueError) as exc:
        return False, f"{type(exc).__name__}: {exc}"


def write_args(env: EnvSpec, step: Step) -> dict[str, Any]:
    """The call arguments of a write step (field names -> parameter names, typed)."""
    op = env.ops[step.op]
    entity = env.entity(op.entity)
    args: dict[str, Any] = {}
    if op.kind in ("update", "transition", "delete", "get"):
        args[f"{entity.name}_id"] = step.target
    for name, value in step.fields.items():
        spec = entity.field(name)
        if spec.type == "float" and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        args[pyname(name)] = value
    return args


def row_of(tables: Tables, table: str, row_id: str | None) -> dict[str, Any] | None:
    return next((r for r in tables.get(table, []) if r.get("id") == row_id), None)


class Binder:
    def __init__(self, env: EnvSpec, tables: Tables, rng: random.Random):
        self.env, self.tables, self.rng = env, tables, rng
        self.chooser = Chooser(env, rng)
        self.focus: dict[str, str] = {}
        self.pending: dict[str, int] = {}  # entity -> index of the search that found the focus, not yet used
        self.touched: set[str] = set()
        self.steps: list[Step] = []
        self.created: dict[str, int] = {}
        # how the chain reached a row it did not search for: (entity, id) -> (parent entity, parent id, ref field)
        self.via: dict[tuple[str, str], tuple[str, str, str]] = {}
        self.searchable = searchable(env)

    # ------------------------------------------------------------ eligibility

    def eligible(self, consumer: Operation | None, entity: str, row: dict[str, Any]) -> bool:
        ent = self.env.entity(entity)
        if consumer is None:
            return True
        if consumer.entity == entity and consumer.kind != "create":
            for e, fld, allowed in accepts(self.env.bp, consumer):
                if e == entity and row.get(fld) not in allowed:
                    return False
            return not (consumer.kind == "transition" and row.get(ent.status_field) == consumer.to_status)
        if consumer.kind == "search":  # a search filtering by a ref to this row: it must find something
            other = self.env.entity(consumer.entity)
            refs = [p for p, e in ref_params(self.env.bp, consumer).items() if e == entity]
            return any(r.get(p) == row["id"] for r in self.tables.get(other.table, []) for p in refs)
        if consumer.kind == "create" and not self.chooser.fits(consumer, entity, row, self.tables, self.focus):
            return False  # the create's own rules refuse this row (not approved, no approval for the pair)
        return is_active(ent, row)

    def consumer(self, chain: list[str], index: int, entity: str) -> Operation | None:
        """The next operation that takes this entity's id: a write if one comes, else a read."""
        users = [self.env.ops[name] for name in chain[index + 1:]
                 if entity in needs(self.env.bp, self.env.ops[name], optional=True).values()]
        return next((op for op in users if op.writes), users[0] if users else None)

    def retarget(self, entity: str, old: str | None, new: str) -> None:
        """A write chose another row than the search found: the search (and gets after it) find that one."""
        start = self.pending.get(entity)
        if start is None:
            return
        for step in self.steps[start:]:
            if step.entity == entity and not step.writes and step.target == old:
                step.target = new

    def linked(self, op: Operation, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Rows that refer to an entity already in focus (a pet of the owner found before), if any."""
        refs = {p: e for p, e in ref_params(self.env.bp, op).items() if e in self.focus}
        if not refs:
            return rows
        matching = [r for r in rows if any(r.get(p) == self.focus[e] for p, e in refs.items())]
        return matching or rows

    # ------------------------------------------------------------ steps

    def read(self, chain: list[str], index: int, op: Operation) -> bool:
        entity = self.env.entity(op.entity)
        rows = self.tables.get(entity.table, [])
        if op.kind == "get":
            target = self.focus.get(op.entity)
            if target is None or row_of(self.tables, entity.table, target) is None:
                return False
        else:
            consumer = self.consumer(chain, index, op.entity)
            current = self.focus.get(op.entity)
            current_row = row_of(self.tables, entity.table, current)
            if current_row is not None and self.eligible(consumer, op.entity, current_row) and \
                    (current not in self.touched or self.rng.random() < 0.5):
                target = current
            else:
                pool = [r for r in rows if self.eligible(consumer, op.entity, r) and r["id"] not in self.touched]
                pool = self.linked(op, pool)
                if not pool:
                    return False
                target = self.rng.choice(pool)["id"]
            self.pending[op.entity] = len(self.steps)
        self.focus[op.entity] = target
        row = row_of(self.tables, entity.table, target)
        for spec in entity.fields:
            if spec.type == "ref" and spec.ref not in self.focus and row.get(spec.name):
                self.focus[spec.ref] = row[spec.name]
                self.via.setdefault((spec.ref, row[spec.name]), (op.entity, target, spec.name))
        self.steps.append(Step(self.env.name, op.name, op.kind, op.entity, target))
        return True

    def create(self, op: Operation, override: dict[str, Any] | None) -> bool:
        required = needs(self.env.bp, op)
        refs = {p: self.focus[e] for p, e in ref_params(self.env.bp, op).items()
                if e in self.focus and (p in required or self.rng.random() < 0.7)}
        for p, e in required.items():
            if p not in refs and e not in self.searchable:
                return False  # no way for the agent to find such a row
        for attempt in range(TRIES + 1):
            if attempt < TRIES:
                fields = self.chooser.create_fields(op, self.tables, refs if attempt < TRIES - 3 else
                                                    {p: v for p, v in refs.items() if p in required and attempt < TRIES - 1},
                                                    self.searchable)
                fields.update(override or {})
                for fixed in override or {}:
                    self.chooser.align(op, fields, fixed)
            else:  # matching rules (a tutor of the tutee's language and availability): swap one free reference
                fields = self.matched(op, fields, set(refs) | set(override or {}))
                if fields is None:
                    return False
            step = Step(self.env.name, op.name, op.kind, op.entity, None, fields, created=True,
                        override=next(iter(override)) if override else None)
            ok, result = call(self.env, self.tables, op.name, write_args(self.env, step))
            if ok:
                step.target = result.id
                self.created[result.id] = len(self.steps)
                self.focus[op.entity] = result.id
                self.touched.add(result.id)
                self.steps.append(step)
                for p, value in fields.items():
                    entity = ref_params(self.env.bp, op).get(p)
                    if entity:
                        self.focus.setdefault(entity, value)
                        self.pending.pop(entity, None)
                return True
        return False

    def matched(self, op: Operation, fields: dict[str, Any], fixed: set[str]) -> dict[str, Any] | None:
        """The create's fields with one free reference swapped for a row every rule accepts, or None."""
        for name, other in sorted(ref_params(self.env.bp, op).items()):
            if name in fixed or name not in fields or other not in self.searchable:
                continue
            rows = [r["id"] for r in self.tables.get(self.env.entity(other).table, []) if r["id"] != fields[name]]
            for row_id in self.rng.sample(rows, min(len(rows), 60)):
                trial = {**fields, name: row_id}
                step = Step(self.env.name, op.name, op.kind, op.entity, None, trial)
                if call(self.env, copy_tables(self.tables), op.name, write_args(self.env, step))[0]:
                    return trial
        return None

    def change(self, op: Operation, override: dict[str, Any] | None) -> bool:
        entity = self.env.entity(op.entity)
        rows = self.tables.get(entity.table, [])
        focus = self.focus.get(op.entity)
        first = [r for r in rows if r["id"] == focus and self.eligible(op, op.entity, r)]
        others = [r for r in rows if r["id"] != focus and r["id"] not in self.touched and self.eligible(op, op.entity, r)
                  and op.entity in self.searchable]
        self.rng.shuffle(others)
        refs = {p: self.focus[e] for p, e in ref_params(self.env.bp, op).items() if e in self.focus}
        for row in (first + others)[:TRIES]:
            for _ in range(3 if op.kind == "update" or op.params else 1):
                fields = self.chooser.change_fields(op, row, self.tables, refs, self.searchable) \
                    if op.kind in ("update", "transition") and (op.params or op.required) else {}
                fields.update(override or {})
                for fixed in override or {}:
                    self.chooser.align(op, fields, fixed)
                if op.kind == "update" and not fields:
                    continue
                step = Step(self.env.name, op.name, op.kind, op.entity, row["id"], fields,
                            override=next(iter(override)) if override else None)
                ok, _ = call(self.env, self.tables, op.name, write_args(self.env, step))
                if ok:
                    if row["id"] != focus:
                        self.retarget(op.entity, focus, row["id"])
                    self.pending.pop(op.entity, None)
                    self.focus[op.entity] = row["id"]
                    if op.kind == "delete":
                        self.focus.pop(op.entity)
                    self.touched.add(row["id"])
                    self.steps.append(step)
                    return True
        return False

    def run(self, chain: list[str], overrides: dict[int, dict[str, Any]] | None = None) -> bool:
        for index, name in enumerate(chain):
            op = self.env.ops[name]
            override = (overrides or {}).get(index)
            if op.kind in ("search", "get"):
                ok = self.read(chain, index, op)
            elif op.kind == "create":
                ok = self.create(op, override)
            else:
                ok = self.change(op, override)
            if not ok:
                return False
        return True


def searchable(env: EnvSpec) -> set[str]:
    """Entities whose existing rows the agent can find by their own fields: a search, or an export file."""
    found = {op.entity for op in env.bp.operations if op.kind == "search"}
    if "read_file" in env.scaffold:
        found |= set(env.exports())
    return found


def bind(env: EnvSpec, chain: list[str], tables: Tables, rng: random.Random,
         overrides: dict[int, dict[str, Any]] | None = None) -> Plan | None:
    """Bind and run `chain` on `tables` (left as the final state); None when it cannot run."""
    initial = copy_tables(tables)
    binder = Binder(env, tables, rng)
    if not binder.run(chain, overrides):
        return None
    return Plan(env.name, binder.steps, initial, tables, binder.created, binder.via)


def rerun(env: EnvSpec, plan: Plan, tables: Tables) -> Plan | None:
    """The same steps on other starting tables (e.g. with decoys); created ids are re-mapped."""
    initial = copy_tables(tables)
    remap: dict[str, str] = {}
    steps: list[Step] = []
    created: dict[str, int] = {}
    for step in plan.steps:
        new = Step(step.env, step.op, step.kind, step.entity, remap.get(step.target, step.target),
                   {k: remap.get(v, v) if isinstance(v, str) else v for k, v in step.fields.items()},
                   step.created, step.override)
        if step.writes:
            if step.created:
                new.target = None
            ok, result = call(env, tables, step.op, write_args(env, new))
            if not ok:
                return None
            if step.created:
                remap[step.target] = result.id
                new.target = result.id
                created[result.id] = len(steps)
        steps.append(new)
    return Plan(env.name, steps, initial, tables, created, plan.via)
