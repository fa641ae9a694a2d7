"""Concrete argument values drawn from the state: free future slots, valid enums, in-range amounts,
fresh unique codes and emails. Values are "nice" (round amounts, half-hour slots) so an
instruction can state them naturally. Every choice uses the caller's `random.Random`.
"""

from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Entity, FieldSpec, Operation
from envcraft.generator.model.fields import typed
from envcraft.generator.rules.registry import compares, unique_field, value_guard
from envcraft.generator.rules.registry import kind as rule_kind
from envcraft.generator.seeds import values
from envcraft.generator.seeds.invariants import invariants
from envcraft.generator.seeds.seed import guess_gen
from envcraft.generator.seeds.seed_rules import applies
from envcraft.generator.tasks.env import EnvSpec, Tables

TIME = "%Y-%m-%dT%H:%M"
DOUBLED = re.compile(r"\b(\w+) \1\b")  # "Onboarding plan plan": a generator seam, not a value


class Chooser:
    def __init__(self, env: EnvSpec, rng: random.Random):
        self.env, self.rng = env, rng
        self.today = date.fromisoformat(env.bp.today)

    # ------------------------------------------------------------ scalars

    def number(self, spec: FieldSpec, cap: float | None = None, current: Any = None) -> int | float:
        low = spec.min if spec.min is not None else 1
        high = spec.max if spec.max is not None else max(low, 0) + 100
        if cap is not None:
            high = min(high, cap)
        if high < low:
            high = low
        for _ in range(8):
            if spec.type == "int":
                value: int | float = self.rng.randint(int(low), int(high)) if int(high) >= int(low) else int(low)
            else:
                span = high - low
                step = 5.0 if span >= 200 else 0.5 if span >= 5 else 0.01
                raw = self.rng.uniform(low, high)
                value = round(max(low, min(high, round(raw / step) * step)), 2)
            if value != current:
                return value
        return value

    def day(self, spec: FieldSpec, future: bool, after: str | None = None) -> str:
        if after:
            base = date.fromisoformat(after[:10])
            return (base + timedelta(days=self.rng.randint(1, 7))).isoformat()
        low = int(spec.min) if spec.min is not None else -30
        high = int(spec.max) if spec.max is not None else 30
        if future or high > 0:
            low, high = max(low, 1), max(high, 1)
            high = min(high, max(low, 30))
        return (self.today + timedelta(days=self.rng.randint(low, max(low, high)))).isoformat()

    def slot(self, future: bool = True) -> tuple[str, str]:
        """A working-hours start on a half-hour mark and an end 30-120 minutes later."""
        minutes = 30 * self.rng.randint(1, 4)
        day = self.today + timedelta(days=self.rng.randint(1, 14) if future else self.rng.randint(-10, 14))
        last = (17 * 60 - minutes - 9 * 60) // 30
        start = datetime(day.year, day.month, day.day, 9, 0) + timedelta(minutes=30 * self.rng.randint(0, last))
        return start.strftime(TIME), (start + timedelta(minutes=minutes)).strftime(TIME)

    def text(self, entity: Entity, spec: FieldSpec, tables: Tables, unique: bool, current: Any = None) -> str:
        rows = tables.get(entity.table, [])
        used = {row.get(spec.name) for row in rows} if unique else set()
        for _ in range(12):
            if spec.template:
                value = spec.template.format(n=len(rows) + 100 + self.rng.randint(0, 899))
            elif spec.values and spec.type in ("str", "text"):  # a note takes its own field's pool, never another
                # domain's sentence ("Left a voicemail regarding the second invoice." as an incident update)
                value = self.rng.choice(spec.values)
                if unique and value in used:
                    joint = "_" if re.fullmatch(r"[a-z0-9_]+", value) else " "  # bulk_export -> bulk_export_60
                    value = f"{value}{joint}{self.rng.randint(2, 99)}"
            elif spec.type == "email" or spec.gen == "email":
                value = values.email_for(values.person_name(self.rng), self.rng)
            elif spec.type == "text":
                value = values.sentence(self.rng)
            else:
                value = values.generate(guess_gen(entity, spec), self.rng)
            if value not in used and value != current and value.strip() and not DOUBLED.search(value):
                return value
        return f"{value} {self.rng.randint(100, 999)}"

    def value(self, op: Operation, spec: FieldSpec, tables: Tables, current: Any = None,
              cap: float | None = None) -> Any:
        entity = self.env.entity(op.entity)
        allowed = next(([typed(spec, v) for v in guard[1]] for p in op.preconditions for guard in [value_guard(p)]
                        if guard is not None and guard[0] == spec.name and op.kind == "create"), None)
        unique = spec.unique or any(unique_field(p) == spec.name for p in op.preconditions)
        listed = next((c for p in op.preconditions
                       for c in [rule_kind(p.kind).choices(self.env.bp, entity, p, spec.name, tables)] if c), None)
        if listed:  # a period key the rule keeps to the open periods
            return self.rng.choice([v for v in listed if v != current] or listed)
        if spec.type == "enum":
            choices = [v for v in (allowed or spec.values) if v != current] or list(allowed or spec.values)
            return self.rng.choice(choices)
        if spec.type == "bool":
            return (not current) if isinstance(current, bool) else self.rng.random() < 0.5
        if spec.type in ("int", "float"):
            return self.number(spec, cap, current)
        if spec.type == "date":
            future = any(rule_kind(p.kind).future_field(p) == spec.name
                         for p in op.preconditions)
            return self.day(spec, future)
        if spec.type == "datetime":
            return self.slot()[0]
        if spec.type == "list_str":
            pool = list(spec.values or values.TAGS)
            return sorted(set(self.rng.sample(pool, min(len(pool), self.rng.randint(1, 2)))))
        if spec.type == "ref":
            rows = tables.get(self.env.entity(spec.ref).table, [])
            if op.kind == "create":
                rows = [r for r in rows if self.fits(op, spec.ref, r, tables, {})] or rows
            return self.rng.choice(rows)["id"] if rows else None
        return self.text(entity, spec, tables, unique, current)

    # ------------------------------------------------------------ whole argument sets

    def times(self, op: Operation, fields: dict[str, Any], row: dict[str, Any] | None) -> None:
        """Start/end pairs among `fields`: a consistent window (end after start, in the future)."""
        entity = self.env.entity(op.entity)
        for end, start in self.env.pairs(entity).items():
            if start not in fields and end not in fields:
                continue
            kind = entity.field(end).type
            if kind == "datetime":
                s, e = self.slot()
            else:
                s = self.day(entity.field(start), True)
                e = self.day(entity.field(end), True, after=s)
            if start in fields:
                fields[start] = s
            if end in fields:
                if start not in fields and row and row.get(start):
                    base = row[start]
                    e = ((datetime.strptime(base, TIME) + timedelta(minutes=30 * self.rng.randint(1, 4))).strftime(TIME)
                         if kind == "datetime" else self.day(entity.field(end), True, after=base))
                fields[end] = e

    def caps(self, op: Operation, fields: dict[str, Any], tables: Tables) -> dict[str, float]:
        """The most each capped amount may be (an amount may not exceed the referenced row's balance)."""
        out = {}
        entity = self.env.entity(op.entity)
        for pre in op.preconditions:
            rule = rule_kind(pre.kind)
            have = rule.amount_cap(self.env.bp, entity, pre, fields, tables)
            if have is not None and applies(self.env.bp, entity, tables, pre, fields):  # the tightest of the caps on one amount (a balance, and its minimum kept)
                name = rule.capped_amount(pre)
                out[name] = min(have, out.get(name, have))
        return out

    def create_fields(self, op: Operation, tables: Tables, refs: dict[str, str],
                      searchable: set[str] | None = None) -> dict[str, Any]:
        """Field -> value for a create: refs as given, the required params, and some optional ones."""
        entity = self.env.entity(op.entity)
        names = list(op.params) + [r for r in op.required if r not in op.params]
        fields: dict[str, Any] = {}
        for name in names:
            if name not in op.required and name not in refs and self.rng.random() < 0.5:
                continue
            spec = entity.field(name)
            if spec.type == "ref":
                if name in refs:
                    fields[name] = refs[name]
                elif searchable is None or spec.ref in searchable:
                    fields[name] = self.value(op, spec, tables)
        self.distinct_refs(entity, fields, tables)
        caps = self.caps(op, fields, tables)
        for name in names:
            spec = entity.field(name)
            if spec.type == "ref" or (name not in op.required and name not in fields and self.rng.random() < 0.5):
                continue
            fields[name] = self.value(op, spec, tables, cap=caps.get(name))
        self.times(op, fields, None)
        self.owned_emails(entity, fields, tables)
        self.pooled(entity, fields)
        self.matching(op, fields, tables)
        return {k: v for k, v in fields.items() if v is not None}

    def fits(self, op: Operation, entity: str, row: dict[str, Any], tables: Tables, focus: dict[str, str]) -> bool:
        """A row a create may refer to under the create's own rules: the referenced row's state (`ref_in`), and an
        approval that must exist for it together with the rows already in focus (`requires`)."""
        own = self.env.entity(op.entity)

        def ref_of(name: str) -> str | None:
            spec = next((f for f in own.fields if f.name == name), None)
            return spec.ref if spec is not None and spec.type == "ref" else None

        for pre in op.preconditions:
            if pre.when is not None:
                continue
            rule = rule_kind(pre.kind)
            if rule.ref_values and pre.ref_field and ref_of(pre.ref_field) == entity:
                spec = self.env.entity(entity).field(pre.other_field)
                if row.get(pre.other_field) not in [typed(spec, v) for v in pre.values]:
                    return False
            elif rule.matches_related and pre.entity and pre.field:
                mine = [theirs for theirs, ours in pre.match.items() if ref_of(ours) == entity]
                if not mine:
                    continue
                fixed = {theirs: focus[ref_of(ours)] for theirs, ours in pre.match.items()
                         if ref_of(ours) not in (None, entity) and ref_of(ours) in focus}
                other = self.env.entity(pre.entity)
                allowed = [typed(other.field(pre.field), v) for v in pre.values]
                if not any(r.get(pre.field) in allowed and all(r.get(t) == row["id"] for t in mine)
                           and all(r.get(t) == v for t, v in fixed.items()) for r in tables.get(other.table, [])):
                    return False
        return True

    def matching(self, op: Operation, fields: dict[str, Any], tables: Tables) -> None:
        """A value the rules tie to the referenced row (`compare ==`: a payout is the report's total) is that value."""
        entity = self.env.entity(op.entity)
        for pre in op.preconditions:
            tied = rule_kind(pre.kind).derived(self.env.bp, entity, pre, fields, tables)
            if tied is not None and applies(self.env.bp, entity, tables, pre, fields):  # quantity x unit cost
                fields[pre.field] = tied
                continue
            if not compares(pre) or pre.op != "==" or not pre.ref_field or not pre.other_field \
                    or pre.field not in fields or pre.when is not None or pre.via or pre.through:
                continue  # with via / through the two sides are fields of other rows: nothing to copy
            other = self.env.entity(entity.field(pre.ref_field).ref)
            row = next((r for r in tables.get(other.table, []) if r["id"] == fields.get(pre.ref_field)), None)
            if row is not None and row.get(pre.other_field) is not None:
                fields[pre.field] = row[pre.other_field]

    def owned_emails(self, entity: Entity, fields: dict[str, Any], tables: Tables) -> None:
        """A new person's email is made from their own name (the world's email_of invariant), kept unique."""
        for inv in invariants(self.env.bp):
            if inv.kind != "email_of" or inv.entity != entity.name or not isinstance(fields.get(inv.name_field), str) \
                    or inv.field not in fields:
                continue
            taken = {str(r.get(inv.field)) for r in tables.get(entity.table, [])}
            email = values.email_for(fields[inv.name_field], self.rng)
            local, domain = email.split("@", 1)
            bump = 1
            while email in taken:
                bump += 1
                email = f"{local}{bump}@{domain}"
            fields[inv.field] = email

    def pooled(self, entity: Entity, fields: dict[str, Any]) -> None:
        """A value with a declared vocabulary (pool_by on the same row) comes from its category's pool: a flight's
        supplier is an airline, its cabin economy or business, even in a request the rules refuse."""
        for inv in invariants(self.env.bp):
            if inv.kind != "pool_by" or inv.entity != entity.name or inv.ref_field or inv.field not in fields \
                    or inv.by not in fields:
                continue
            key = str(fields[inv.by]).lower() if isinstance(fields[inv.by], bool) else str(fields[inv.by])
            pool = inv.pools.get(key)
            if pool and str(fields[inv.field]) not in pool:
                fields[inv.field] = typed(entity.field(inv.field), self.rng.choice(sorted(pool)))

    def distinct_refs(self, entity: Entity, fields: dict[str, Any], tables: Tables) -> None:
        """Two refs to the same entity (home and away team) point at two different rows."""
        taken: dict[str, set] = {}
        for name in list(fields):
            spec = entity.field(name)
            if spec.type != "ref" or fields[name] is None:
                continue
            used = taken.setdefault(spec.ref, set())
            if fields[name] in used:
                others = [r["id"] for r in tables.get(self.env.entity(spec.ref).table, []) if r["id"] not in used]
                fields[name] = self.rng.choice(others) if others else None
            used.add(fields[name])

    def change_fields(self, op: Operation, row: dict[str, Any], tables: Tables, refs: dict[str, str] | None = None,
                      searchable: set[str] | None = None) -> dict[str, Any]:
        """Arguments of an update or transition beyond the id: required ones, and (updates) one or two more."""
        entity = self.env.entity(op.entity)
        chosen = list(op.required)
        optional = [n for n in op.params if n not in chosen]
        if op.kind == "update" and not chosen:
            names = [n for n in optional if entity.field(n).type != "ref"] or optional
            chosen = self.rng.sample(names, min(len(names), self.rng.choice((1, 1, 2))))
        elif optional and self.rng.random() < 0.3:
            chosen.append(self.rng.choice(optional))
        fields: dict[str, Any] = {}
        for name in chosen:
            spec = entity.field(name)
            if spec.type == "ref":
                if refs and name in refs and refs[name] != row.get(name):
                    fields[name] = refs[name]
                elif searchable is None or spec.ref in searchable:
                    fields[name] = self.value(op, spec, tables, current=row.get(name))
                continue
            fields[name] = self.value(op, spec, tables, current=row.get(name))
        self.times(op, fields, row)
        for pre in op.preconditions:  # what the rules tie to the row's value before the change (attempts one up)
            fields.update(rule_kind(pre.kind).carried(self.env.bp, entity, pre, row))
        return {k: v for k, v in fields.items() if v is not None and (v != row.get(k) or k in op.required)}

    def align(self, op: Operation, fields: dict[str, Any], fixed: str) -> None:
        """After `fixed` was set from outside, move its start/end partner so the window stays valid."""
        entity = self.env.entity(op.entity)
        for end, start in self.env.pairs(entity).items():
            kind = entity.field(end).type
            if fixed == start and end in fields and isinstance(fields[start], str):
                if kind == "datetime":
                    base = datetime.strptime(fields[start][:16], TIME)
                    fields[end] = (base + timedelta(minutes=30 * self.rng.randint(1, 4))).strftime(TIME)
                else:
                    fields[end] = self.day(entity.field(end), True, after=fields[start])
            elif fixed == end and start in fields and isinstance(fields[end], str):
                if kind == "datetime":
                    base = datetime.strptime(fields[end][:16], TIME)
                    fields[start] = (base - timedelta(minutes=30 * self.rng.randint(1, 4))).strftime(TIME)
                else:
                    fields[start] = (date.fromisoformat(fields[end][:10]) - timedelta(days=self.rng.randint(1, 7))).isoformat()
