"""The `capacity` check kind: the active rows pointing at the same referenced row stay fewer than its cap.

    check: {kind: capacity, ref_field: session_id, other_field: seats}   # a session takes no more than its seats

The cap is the `other_field` of the row `ref_field` points at; "active" is the runtime's INACTIVE set (a
cancelled enrolment frees its seat). The runtime helper that decides is envcraft_runtime.rules.at_capacity;
here is what app.py calls, the fact on a seed row, the seed spread within caps, the moves that free room for
tasks, and the audit's trap (the referenced row's cap lowered to what is already taken).
"""

from __future__ import annotations

import random
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition
from envcraft.generator.model.refpath import target
from envcraft.generator.rules.kind import Emit, Later, ProbeWorld, RuleKind, Tables, Trap, set_field
from envcraft_runtime.records import field_of
from envcraft_runtime.rules import INACTIVE, Fact, at_capacity


def _active(entity: Entity, row: dict[str, Any]) -> bool:
    return not entity.status_field or row.get(entity.status_field) not in INACTIVE


def _capped(bp: Blueprint, entity: Entity, pre: Precondition) -> Entity:
    """The entity whose rows hold the cap."""
    return bp.entity(entity.field(pre.ref_field).ref)


class Capacity(RuleKind):
    name = "capacity"
    category = "capacity"
    needs = ("ref_field", "other_field")
    counts_active_rows = True
    archetype = "multi_criteria_bilateral_matching"

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        other = _capped(bp, entity, pre)
        setup = f"_capacity = field_of(tables, {lit(other.table)}, _new.get({lit(pre.ref_field)}), {lit(pre.other_field)})"
        return setup, (f"at_capacity(tables[{lit(entity.table)}], _new, {lit(pre.ref_field)}, {lit(entity.status_field)}, "
                       f"_capacity)")

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        if not _active(entity, row):  # a row that no longer holds its place takes none
            return None
        cap = field_of(tables, _capped(bp, entity, pre).table, row.get(pre.ref_field), pre.other_field)
        return at_capacity(tables[entity.table], row, pre.ref_field, entity.status_field, cap)

    def reads_ref_path(self, pre: Precondition) -> bool:
        return True

    def gates_create(self, bp: Blueprint, entity: Entity, pre: Precondition) -> bool:
        return True

    def seed_world(self, bp: Blueprint, entity: Entity, pre: Precondition, tables: Tables,
                   rng: random.Random) -> None:
        """A row over its referenced row's cap is moved to one with room (left where it is if none has)."""
        if not (pre.ref_field and pre.other_field):
            return
        spec = entity.field(pre.ref_field)
        if spec.type != "ref":
            return
        others = {row["id"]: row for row in tables[bp.entity(spec.ref).table]}
        counts: dict[str, int] = dict.fromkeys(others, 0)
        for row in tables[entity.table]:
            if not _active(entity, row) or row.get(pre.ref_field) not in others:
                continue
            cap = others[row[pre.ref_field]].get(pre.other_field)
            if isinstance(cap, (int, float)) and counts[row[pre.ref_field]] >= cap:
                room = [k for k, other in others.items()
                        if isinstance(other.get(pre.other_field), (int, float)) and counts[k] + 1 < other[pre.other_field]]
                if room:
                    row[pre.ref_field] = rng.choice(room)
            counts[row[pre.ref_field]] = counts.get(row[pre.ref_field], 0) + 1

    def supply(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any] | None,
               targets: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """A cap raised by one within its range, or a row made inactive to free its place."""
        spec = target(bp, entity, pre.ref_field, pre.through).field(pre.other_field)
        out = [(r, {pre.other_field: r[pre.other_field] + 1}) for r in targets
               if isinstance(r.get(pre.other_field), int) and (spec.max is None or r[pre.other_field] < spec.max)]
        done = [v for v in entity.field(entity.status_field).values if v in INACTIVE] if entity.status_field else []
        return out + [(r, {entity.status_field: done[0]}) for r in tables[entity.table] if done]

    def pick_ref(self, bp: Blueprint, entity: Entity, pre: Precondition, field: str, rows: list[dict[str, Any]],
                 tables: Tables) -> Any:
        """The first row with a free place."""
        if pre.ref_field != field:
            return None
        for row in rows:
            taken = sum(1 for r in tables[entity.table] if r.get(field) == row["id"] and _active(entity, r))
            if isinstance(row.get(pre.other_field), (int, float)) and taken < row[pre.other_field]:
                return row["id"]
        return None

    def trap(self, bp: Blueprint, op: Operation, pre: Precondition, tables: Tables, row: dict[str, Any] | None,
             args: dict[str, Any], new: dict[str, Any], world: ProbeWorld) -> Trap | None:
        """The call, after the referenced row's cap is lowered to the places already taken."""
        entity = bp.entity(op.entity)
        capped = new.get(pre.ref_field)
        if capped is None:
            return None
        own = row["id"] if row else None
        taken = sum(1 for r in tables.get(entity.table, []) if r.get("id") != own
                    and r.get(pre.ref_field) == capped and _active(entity, r))
        return Trap(args, set_field(_capped(bp, entity, pre).table, capped, pre.other_field, taken))


KIND = Capacity()
