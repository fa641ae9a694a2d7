"""The `no_overlap` check kind: no other active row holding the same resource overlaps this row's [start, end).

    check: {kind: no_overlap, resource: vet_id, start: starts_at, end: ends_at}   # a vet sees one patient at a time
    check: {kind: no_overlap, resource: driver_id, start: start, end: end, gap_minutes: 660}   # rest between duties

With `gap_minutes`, other active rows of the resource must also stay that far from the span. "Active" is the
runtime's INACTIVE set: a cancelled booking frees its slot. The runtime helper that decides is
envcraft_runtime.rules.overlapping; here is what app.py calls, the fact on a seed row, the seed's moves (the
row retimed), and the audit's blocker (a row holding the same resource over the same span).
"""

from __future__ import annotations

import copy
import random
from datetime import date, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition
from envcraft.generator.rules.kind import Draw, Emit, Knobs, Later, ProbeWorld, RuleKind, Tables, Trap, append_row
from envcraft_runtime.rules import INACTIVE, Fact, overlapping, shifted


def _overlapping(a: dict, b: dict, start: str, end: str) -> bool:
    return bool(a.get(start) and a.get(end) and b.get(start) and b.get(end)
                and a[start] < b[end] and b[start] < a[end])


class NoOverlap(RuleKind):
    name = "no_overlap"
    category = "capacity"
    needs = ("start", "end", "resource")
    occupies_time = True
    counts_active_rows = True
    archetype = "multi_resource_temporal_scheduling"

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        gap = [lit(pre.gap_minutes)] if pre.gap_minutes else []
        args = [f"tables[{lit(entity.table)}]", "_new", lit(pre.resource), lit(pre.start), lit(pre.end),
                lit(entity.status_field), *gap]
        return None, f"overlapping({', '.join(args)})"

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        status = entity.status_field
        if status and row.get(status) in INACTIVE:  # a row that no longer holds its slot clashes with nothing
            return None
        return overlapping(tables[entity.table], row, pre.resource, pre.start, pre.end, status, pre.gap_minutes or 0)

    def seed_rows(self, bp: Blueprint, entity: Entity, pre: Precondition, rows: list[dict[str, Any]],
                  draw: Draw) -> None:
        """No double booking among rows that took place: a row is retimed (60 tries), else it never happened."""
        if not (pre.start and pre.end and pre.resource):
            return
        start_spec, end_spec = entity.field(pre.start), entity.field(pre.end)
        kept: list[dict] = []
        for row in rows:
            for _ in range(60):
                if not draw.took_place(entity, row) or not any(
                        k.get(pre.resource) == row.get(pre.resource) and _overlapping(k, row, pre.start, pre.end)
                        for k in kept):
                    break
                draw.retime(start_spec, end_spec, row)
            else:
                never = [v for v in entity.field(entity.status_field).values if not draw.took_place(entity, {
                    entity.status_field: v})] if entity.status_field else []
                if never:
                    row[entity.status_field] = never[0]
            if draw.took_place(entity, row):
                kept.append(row)

    def repair_moves(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any],
                     rng: random.Random, knobs: Knobs) -> None:
        """The row moved by one to fourteen days either way (its end with it), twenty tries."""
        moves = knobs.own.setdefault(pre.start, [])
        value = row.get(pre.start)
        if isinstance(value, str):
            day = date.fromisoformat(value[:10])
            moves += [knobs.moved(bp, entity, row, pre.start, day + timedelta(days=rng.choice((-1, 1)) * rng.randint(1, 14)))
                      for _ in range(20)]

    def crowds(self, entity: Entity, pre: Precondition, rows: list[dict[str, Any]], span: dict[str, Any],
               own: str | None) -> bool:
        """Another active row of the resource within `gap_minutes` of the span (no gap: none)."""
        if not pre.gap_minutes:
            return False
        wide = {**span, pre.start: shifted(span[pre.start], -pre.gap_minutes),
                pre.end: shifted(span[pre.end], pre.gap_minutes)}
        return any(r.get("id") != own and r.get(pre.resource) == span.get(pre.resource)
                   and not (entity.status_field and r.get(entity.status_field) in INACTIVE)
                   and _overlapping(r, wide, pre.start, pre.end) for r in rows)

    def clashes(self, entity: Entity, pre: Precondition, tables: Tables, new: dict[str, Any], field: str,
                moment: str, until: str) -> bool:
        """Another live row holds the call's resource over [moment, until) (`field` is the check's start)."""
        if pre.start != field:
            return False
        for other in tables.get(entity.table, []):
            if other.get("id") == new.get("id") or other.get(pre.resource) != new.get(pre.resource):
                continue
            if entity.status_field and other.get(entity.status_field) in INACTIVE:
                continue
            if other.get(pre.start) and other.get(pre.end) and other[pre.start] < until and moment < other[pre.end]:
                return True
        return False

    def trap(self, bp: Blueprint, op: Operation, pre: Precondition, tables: Tables, row: dict[str, Any] | None,
             args: dict[str, Any], new: dict[str, Any], world: ProbeWorld) -> Trap | None:
        """The call, after an active row of the same resource over the call's span (with a gap: clear of the span, inside the
        rest it needs before it), holding none of the call's other resources."""
        entity = bp.entity(op.entity)
        if new.get(pre.resource) is None or not (new.get(pre.start) and new.get(pre.end)):
            return None
        template = copy.deepcopy(row or (tables[entity.table][0] if tables.get(entity.table) else {}))
        active = next((v for v in entity.field(entity.status_field).values if v not in INACTIVE), None) \
            if entity.status_field else None
        blocker = {**template, "id": f"{entity.id_prefix}-9990", pre.resource: new[pre.resource],
                   pre.start: new[pre.start], pre.end: new[pre.end]}
        if pre.gap_minutes:
            half = pre.gap_minutes // 2
            blocker[pre.start] = shifted(new[pre.start], -half - 60)
            blocker[pre.end] = shifted(new[pre.start], -half)
        if entity.status_field and active:
            blocker[entity.status_field] = active
        for other in op.preconditions:
            if other.kind == pre.kind and other.resource != pre.resource \
                    and blocker.get(other.resource) == new.get(other.resource):
                blocker[other.resource] = world.elsewhere(entity, other.resource, new.get(other.resource))
        return Trap(args, append_row(entity.table, blocker))


KIND = NoOverlap()
