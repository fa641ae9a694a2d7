"""Calls that explore a generated environment: valid ones drawn from its state, broken ones, and
ones that a declared precondition must block (with the state patch that sets the trap up).

Used by generator/audit/audit.py. Everything here is pure: tables in, argument dicts out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from envcraft.generator.audit.traps import arrange_all, is_arranged
from envcraft.generator.compile.appcode import params_of, pyname
from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec, Operation, Precondition
from envcraft.generator.model.fields import typed
from envcraft.generator.model.policy import precondition_id
from envcraft.generator.rules.kind import ProbeWorld
from envcraft.generator.rules.registry import kind, unique_field, value_guard
from envcraft.generator.seeds.seed import INACTIVE, time_pairs

Tables = dict[str, list[dict[str, Any]]]


@dataclass
class Probe:
    label: str
    args: dict[str, Any]
    expect_error: bool
    hint: str | None = None  # text the error message must contain
    patch: Callable[[Tables], None] | None = None  # applied to the app state before the call
    row: dict[str, Any] | None = None  # the existing row the call acts on
    precondition: Precondition | None = None
    rule: str | None = None  # the id the refusal must cite
    fields: dict[str, Any] = field(default_factory=dict)  # the same arguments, keyed by field name


def _active(entity: Entity, row: dict) -> bool:
    return not entity.status_field or row.get(entity.status_field) not in INACTIVE


def _overlap(a: dict, b: dict, start: str, end: str) -> bool:
    return bool(a.get(start) and a.get(end) and b.get(start) and b.get(end) and a[start] < b[end] and b[start] < a[end])


class Explorer:
    """Builds probes for one blueprint against one snapshot of the app tables."""

    def __init__(self, bp: Blueprint, tables: Tables):
        self.bp, self.tables = bp, tables
        self.today = date.fromisoformat(bp.today)
        self.counter = 0

    def fresh(self) -> int:
        self.counter += 1
        return 9000 + self.counter

    # ------------------------------------------------------------ valid values

    def rows_for(self, op: Operation) -> list[dict]:
        """Existing rows to act on, the ones the preconditions allow first."""
        entity = self.bp.entity(op.entity)
        rows = self.tables.get(entity.table, [])

        def allowed(row: dict) -> bool:
            for guard in map(value_guard, op.preconditions):
                if guard is not None and row.get(guard[0]) not in [typed(entity.field(guard[0]), v) for v in guard[1]]:
                    return False
            return not (op.kind == "transition" and row.get(entity.status_field) == op.to_status)

        good = [row for row in rows if allowed(row)]
        return (good + [row for row in rows if not allowed(row)])[:3] if good else rows[:1]

    def _ref(self, op: Operation, spec: FieldSpec, current: Any = None) -> str | None:
        other = self.bp.entity(spec.ref)
        rows = [r for r in self.tables.get(other.table, []) if r["id"] != current] or self.tables.get(other.table, [])
        if not rows:
            return None
        entity = self.bp.entity(op.entity)
        if spec.unique or any(unique_field(p) == spec.name for p in op.preconditions):
            used = {r.get(spec.name) for r in self.tables.get(entity.table, [])}
            rows = [r for r in rows if r["id"] not in used] or rows
        for pre in op.preconditions:
            rule = kind(pre.kind)
            found = rule.pick_ref(self.bp, entity, pre, spec.name, rows, self.tables)
            if found is not None:
                return found
        return rows[0]["id"]

    def _elsewhere(self, entity: Entity, field: str, taken: Any) -> Any:
        """Another value of the field than `taken`: another row it may point at, another choice."""
        spec = entity.field(field)
        pool = [r["id"] for r in self.tables.get(self.bp.entity(spec.ref).table, [])] if spec.type == "ref" else \
            list(spec.values)
        return next((v for v in pool if v != taken), f"{taken} (elsewhere)")

    def value(self, op: Operation, spec: FieldSpec, current: Any = None) -> Any:
        """A valid value for the field (different from `current`, so an update changes something)."""
        entity = self.bp.entity(op.entity)
        allowed = next((guard[1] for guard in map(value_guard, op.preconditions)
                        if guard is not None and guard[0] == spec.name and op.kind == "create"), None)
        if spec.type == "enum":
            choices = [v for v in (allowed or spec.values) if v != current] or spec.values
            return choices[0]
        if spec.type == "ref":
            return self._ref(op, spec, current)  # another row than the current one, with room where a cap applies
        if spec.type in ("int", "float"):
            low = spec.min if spec.min is not None else (min(0, spec.max) if spec.max is not None else 0)
            high = spec.max if spec.max is not None else low + 100
            small = any(kind(p.kind).capped_amount(p) == spec.name for p in op.preconditions)
            value = max(low, 1) if small and high >= 1 else (low + high) / 2
            value = int(value) if spec.type == "int" else round(float(value), 2)
            if value == current:
                value = value + 1 if value + 1 <= high else value - 1
            return value
        if spec.type == "bool":
            return not current if isinstance(current, bool) else True
        if spec.type == "date":
            return (self.today + timedelta(days=7 + (1 if spec.name in time_pairs(self.bp, entity) else 0))).isoformat()
        if spec.type == "datetime":
            later = spec.name in time_pairs(self.bp, entity)
            return f"{(self.today + timedelta(days=7)).isoformat()}T{'11:00' if later else '10:00'}"
        if spec.type == "email":
            return f"audit.probe{self.fresh()}@example.com"
        if spec.type == "list_str":
            return list(spec.values[:1]) or ["audit"]
        unique = spec.unique or any(unique_field(p) == spec.name for p in op.preconditions)
        if spec.template:
            return spec.template.format(n=self.fresh())
        if spec.values and not unique and spec.type == "str":
            return next((v for v in spec.values if v != current), spec.values[0])
        return f"Audit probe {self.fresh()}" if unique or spec.type == "str" else "Audit probe note."

    def _slot(self, op: Operation, new: dict, start: str, end: str, own: str | None) -> tuple[str, str]:
        """A free hour (for a check that holds a resource over a window) on a working day after today."""
        entity = self.bp.entity(op.entity)
        timed = [p for p in op.preconditions if kind(p.kind).occupies_time]
        resource = next((p.resource for p in timed), None)
        spaced = [p for p in timed if p.start == start]  # a check that may want time between rows (no_overlap's gap)
        datetimes = entity.field(start).type == "datetime"
        for offset in range(7, 120):
            day = self.today + timedelta(days=offset)
            for hour in ((10, 11, 14, 15) if datetimes else (0,)):
                if datetimes:
                    s, e = f"{day.isoformat()}T{hour:02d}:00", f"{day.isoformat()}T{hour + 1:02d}:00"
                else:
                    s, e = day.isoformat(), (day + timedelta(days=1)).isoformat()
                candidate = {**new, start: s, end: e}
                if (resource is None or not any(
                        r.get("id") != own and r.get(resource) == candidate.get(resource) and _active(entity, r)
                        and _overlap(r, candidate, start, end) for r in self.tables.get(entity.table, []))) \
                        and not any(kind(p.kind).crowds(entity, p, self.tables.get(entity.table, []), candidate, own)
                                    for p in spaced):
                    return s, e
        return s, e

    def to_args(self, op: Operation, fields: dict[str, Any]) -> dict[str, Any]:
        """Field-keyed values as call arguments (a field whose name the runtime reserves gets a "_")."""
        names = {f.name for f in self.bp.entity(op.entity).fields}
        return {pyname(k, op.kind) if k in names else k: v for k, v in fields.items()}

    def valid_fields(self, op: Operation, row: dict | None) -> dict[str, Any]:
        """Valid arguments keyed by field name (plus `<entity>_id`)."""
        entity = self.bp.entity(op.entity)
        args: dict[str, Any] = {}
        for param in params_of(self.bp, op):
            if param.spec is None:
                if param.name == f"{entity.name}_id" and row is not None:
                    args[param.name] = row["id"]
                continue
            current = row.get(param.spec.name) if row is not None and op.kind == "update" else None
            args[param.spec.name] = self.value(op, param.spec, current)
        names = set(args)
        new = {**(row or {}), **args}
        for end, start in time_pairs(self.bp, entity).items():
            if not ({start, end} & names):
                continue
            kind = entity.field(end).type
            s, e = self._slot(op, new, start, end, row["id"] if row else None)
            if start in names:
                args[start] = s
            if end in names:
                args[end] = e
            if start not in names and new.get(start):  # only the end is given: an hour after the row's start
                args[end] = _shift(new[start], 60 if kind == "datetime" else 1, kind)
            if end not in names and new.get(end) and start in names:
                args[start] = _shift(new[end], -30 if kind == "datetime" else -1, kind)
        return args

    def valid_args(self, op: Operation, row: dict | None) -> dict[str, Any]:
        return self.to_args(op, self.valid_fields(op, row))

    # ------------------------------------------------------------ searches

    def search_probes(self, op: Operation) -> list[Probe]:
        entity = self.bp.entity(op.entity)
        probes = [Probe("search without filters", {}, False)]
        rows = self.tables.get(entity.table, [])
        full = [r for r in rows if all(r.get(p) not in (None, [], "") for p in op.params)]
        if op.params and full:
            row = full[len(full) // 2]
            args: dict[str, Any] = {}
            for name in op.params:
                spec, value = entity.field(name), row[name]
                args[name] = (str(value).upper() if spec.type in ("str", "text", "email") else
                              value[0] if spec.type == "list_str" else
                              value[:10] if spec.type == "datetime" else value)
            # `limit` is the paging argument, added after the renaming: a field named limit is the filter `limit_`
            probes.append(Probe("search with every filter from one row", {**self.to_args(op, args), "limit": 1000},
                                False, row=row, fields=args))
        return probes

    # ------------------------------------------------------------ broken calls

    def invalid_probes(self, op: Operation, valid: dict[str, Any]) -> list[Probe]:
        entity = self.bp.entity(op.entity)
        params = params_of(self.bp, op)
        probes = []
        required = [p for p in params if p.required]
        if required:
            dropped = {k: v for k, v in valid.items() if k != required[0].name}
            probes.append(Probe(f"missing required {required[0].name}", dropped, True, hint=required[0].name))
        if params:
            p = params[0]
            wrong: Any = ("not-a-number" if p.annotation.startswith(("int", "float")) else
                          "maybe" if p.annotation.startswith("bool") else 7 if p.annotation.startswith("list") else 12345)
            probes.append(Probe(f"wrong type for {p.name}", {**valid, p.name: wrong}, True, hint=p.name))
        id_param = f"{entity.name}_id"
        if any(p.name == id_param for p in params):
            probes.append(Probe("unknown id", {**valid, id_param: f"{entity.id_prefix}-9999"}, True,
                                hint=f"{entity.id_prefix}-9999"))
        ref = next((p for p in params if p.spec is not None and p.spec.type == "ref" and op.kind != "search"), None)
        if ref is not None:
            missing = f"{self.bp.entity(ref.spec.ref).id_prefix}-9999"
            probes.append(Probe(f"unknown {ref.name}", {**valid, ref.name: missing}, True, hint=missing))
        enum = next((p for p in params if p.spec is not None and p.spec.type == "enum"), None)
        if enum is not None:
            probes.append(Probe(f"bad {enum.name} value", {**valid, enum.name: "not-a-valid-value"}, True, hint=enum.name))
        if op.kind != "search":
            when = next((p for p in params if p.spec is not None and p.spec.type in ("date", "datetime")), None)
            if when is not None:
                probes.append(Probe(f"badly written {when.name}", {**valid, when.name: "next tuesday at 3"}, True,
                                    hint=when.name))
            email = next((p for p in params if p.spec is not None and p.spec.type == "email"), None)
            if email is not None:
                probes.append(Probe(f"malformed {email.name}", {**valid, email.name: "nobody"}, True, hint=email.name))
        if op.kind == "search":
            probes.append(Probe("limit 0", {"limit": 0}, True, hint="limit"))
        return probes

    # ------------------------------------------------------------ precondition traps

    def violation_probes(self, op: Operation) -> list[Probe]:
        probes = []
        for index, pre in enumerate(op.preconditions):
            probe = self._violation(op, index)
            if probe is not None:
                probe.precondition, probe.rule = pre, precondition_id(op, index)
                probes.append(probe)
        return probes

    def arranged(self, op: Operation, row: dict | None, fields: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        """Arguments and a state patch under which every rule of `op` holds (for a valid call)."""
        got = arrange_all(self.bp, self.tables, op, row, fields)
        overrides, patches = got if got is not None else ({}, [])
        return {**fields, **overrides}, (lambda t: [p(t) for p in patches]) if patches else None

    def _violation(self, op: Operation, index: int) -> Probe | None:
        pre = op.preconditions[index]
        rows = self.rows_for(op) if op.kind != "create" else [None]
        row = rows[0] if rows else None
        if op.kind != "create" and row is None:
            return None
        fields = self.valid_fields(op, row)
        if is_arranged(pre):
            got = arrange_all(self.bp, self.tables, op, row, fields, broken=index)
            if got is None:
                return None
            overrides, patches = got
            probe = Probe(f"{pre.kind} rule", overrides, True, hint=pre.message, row=row,
                          patch=lambda t: [p(t) for p in patches])
        else:
            held = arrange_all(self.bp, self.tables, op, row, fields)
            overrides, patches = held if held is not None else ({}, [])
            fields = {**fields, **overrides}
            new = {**(row or {}), **fields}
            own = row["id"] if row else None
            probe = self._trap(op, pre, row, fields, new, own)
            if probe is not None and patches:
                trap = probe.patch
                probe.patch = lambda t: [p(t) for p in patches + ([trap] if trap else [])]
        if probe is not None:
            probe.fields = {**fields, **probe.args}
            probe.args = self.to_args(op, probe.fields)
        return probe

    def _trap(self, op: Operation, pre: Precondition, row: dict | None, args: dict[str, Any], new: dict[str, Any],
              own: str | None) -> Probe | None:
        """The call the check's kind builds for its check to refuse (generator/rules/<kind>.py `trap`)."""
        world = ProbeWorld(self.today, self._elsewhere, lambda entity: time_pairs(self.bp, entity))
        trap = kind(pre.kind).trap(self.bp, op, pre, self.tables, row, args, new, world)
        return None if trap is None else Probe(f"{pre.kind} precondition", trap.args, True, hint=pre.message, row=row,
                                               patch=trap.patch)


def _shift(value: str, amount: int, kind: str) -> str:
    if kind == "datetime":
        return (datetime.strptime(value, "%Y-%m-%dT%H:%M") + timedelta(minutes=amount)).strftime("%Y-%m-%dT%H:%M")
    return (date.fromisoformat(value[:10]) + timedelta(days=amount)).isoformat()
