"""The `requires` check kind: a related row exists whose `match` fields equal ours and whose `field` is allowed.

    check: {kind: requires, entity: rental_application, match: {rental_applicant_id: rental_applicant_id,
            rental_unit_id: rental_unit_id}, field: status, values: [approved]}   # an offer needs an approved application

With `at` (a date/time of ours), the related row's [`start`, `end`] must also contain it (a maintenance window
covering the moment an alert fired); with `their`, the related row's own ref row must have a field among values
(the sibling job's machine is a grain cart). forbids (generator/rules/forbids.py) is the same check the other way
round: such a row must not exist. The runtime helpers that decide are envcraft_runtime.rules.missing_related and
present_related; here is what app.py calls, the fact on a seed row (a related row that may have moved on since
still counts), the seed's moves (the match re-picked from an accepted row, our moment moved inside a window that
had begun), the rows that make more tasks possible, and the audit's arrangement (a related row added, or the
matching ones removed).
"""

from __future__ import annotations

import copy
import random
from datetime import date, datetime, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec, Operation, Precondition, typed
from envcraft.generator.model.refpath import ref_entity
from envcraft.generator.rules.kind import Arranging, Emit, Knobs, Later, RuleKind, Tables
from envcraft_runtime.rules import Among, Fact, Span, ids_where, missing_related, present_related, shifted

TIME_FORMAT = "%Y-%m-%dT%H:%M"


def _values(entity: Entity, field: str, raw: list[str]) -> tuple[Any, ...]:
    return tuple(typed(entity.field(field), v) for v in raw)


def _tuple(items: list[str]) -> str:
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _among(bp: Blueprint, related: Entity, pre: Precondition, tables: Tables) -> Among | None:
    """A `their` filter as the runtime reads it: the ids of the far rows whose field is allowed."""
    if pre.their is None:
        return None
    far = ref_entity(bp, related, pre.their.ref_field)
    return Among(pre.their.ref_field, ids_where(tables[far.table], pre.their.field,
                                                _values(far, pre.their.field, pre.their.values)),
                 " or ".join(v.replace("_", " ") for v in pre.their.values))


def _counted(bp: Blueprint, other: Entity, pre: Precondition, tables: Tables) -> Any:
    """Whether a related row counts for the rule: with `their`, only one naming a far row of the wanted kind."""
    if pre.their is None:
        return lambda row: True
    far = bp.entity(other.field(pre.their.ref_field).ref)
    wanted = [typed(far.field(pre.their.field), v) for v in pre.their.values]
    ids = {r.get("id") for r in tables.get(far.table, []) if r.get(pre.their.field) in wanted}
    return lambda row: row.get(pre.their.ref_field) in ids


def _around(moment: str, kind: str) -> tuple[str, str]:
    """A span from an hour before to an hour after a moment (a day either side for dates)."""
    return (shifted(moment[:16], -60), shifted(moment[:16], 60)) if kind == "datetime" else \
        (shifted(moment[:10], -24 * 60), shifted(moment[:10], 24 * 60))


def _inside(start: str, end: str, rng: random.Random) -> str:
    """A moment within [start, end] (five-minute steps for times)."""
    if len(start) <= 10:
        days = (date.fromisoformat(end[:10]) - date.fromisoformat(start[:10])).days
        return (date.fromisoformat(start[:10]) + timedelta(days=rng.randint(0, max(days, 0)))).isoformat()
    span = int((datetime.strptime(end[:16], TIME_FORMAT) - datetime.strptime(start[:16], TIME_FORMAT)).total_seconds()
               // 300)
    return (datetime.strptime(start[:16], TIME_FORMAT) + timedelta(minutes=5 * rng.randint(0, max(span, 0)))
            ).strftime(TIME_FORMAT)


class Requires(RuleKind):
    name = "requires"
    category = "approval"
    needs = ("entity",)
    related_rows = True
    matches_related = True
    wanted = True  # a matching related row must exist (forbids: must not)

    def arranged(self, pre: Precondition) -> bool:
        return True

    def named_values(self, bp: Blueprint, entity: Entity, pre: Precondition) -> list[tuple[FieldSpec, list[str]]]:
        return [(bp.entity(pre.entity).field(pre.field), pre.values)] if pre.field else []

    def related_reads(self, pre: Precondition) -> list[tuple[str, str]]:
        """The related rows' fields it reads: the allowed field, the match, and the span around our moment."""
        out = [(pre.entity, f) for f in (pre.field, *pre.match) if f]
        return out + ([(pre.entity, pre.start), (pre.entity, pre.end)] if pre.at else [])

    def gates_create(self, bp: Blueprint, entity: Entity, pre: Precondition) -> bool:
        return self.wanted and all(ref_entity(bp, entity, ours) for ours in pre.match.values())

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        other = bp.entity(pre.entity)
        match = "{" + ", ".join(f"{lit(theirs)}: _new.get({lit(ours)})" for theirs, ours in pre.match.items()) + "}"
        allowed = _tuple([lit(v) for v in _values(other, pre.field, pre.values)]) if pre.field else "()"
        span = [f"Span(_new.get({lit(pre.at)}), {lit(pre.start)}, {lit(pre.end)})"] if pre.at else []
        among = []
        if pre.their:  # the related rows whose own ref row matches (a sibling job whose machine is a grain cart)
            far = bp.entity(other.field(pre.their.ref_field).ref)
            ids = (f"ids_where(tables[{lit(far.table)}], {lit(pre.their.field)}, "
                   f"{_tuple([lit(v) for v in _values(far, pre.their.field, pre.their.values)])})")
            which = " or ".join(v.replace("_", " ") for v in pre.their.values)
            among = [lit(None)] * (not span) + [f"Among({lit(pre.their.ref_field)}, {ids}, {lit(which)})"]
        args = [f"tables[{lit(other.table)}]", match, lit(pre.field), allowed, lit(other.name.replace("_", " ")),
                *span, *among]
        return None, f"{'missing_related' if self.wanted else 'present_related'}({', '.join(args)})"

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        related = bp.entity(pre.entity)
        allowed = _values(related, pre.field, pre.values) if pre.field else ()
        match = {theirs: row.get(ours) for theirs, ours in pre.match.items()}
        others = [r for r in tables[related.table] if r["id"] != row["id"]] if related.name == entity.name \
            else tables[related.table]
        span = Span(row.get(pre.at), pre.start, pre.end) if pre.at else None
        among = _among(bp, related, pre, tables)
        if not self.wanted:
            return present_related(others, match, pre.field, allowed, related.name, span, among)
        allowed = allowed if now else later(bp, related.name, pre.field, allowed)
        return missing_related(others, match, pre.field, allowed, related.name, span, among)

    def accepted_matches(self, bp: Blueprint, tables: Tables, pre: Precondition, rng: random.Random, later: Later,
                         now: bool = False) -> list[dict[str, Any]]:
        """The match fields of each related row it accepts (an approved application's applicant and unit); `now`:
        only rows in an allowed status, not one they may have moved on to since."""
        related = bp.entity(pre.entity)
        allowed = _values(related, pre.field, pre.values) if pre.field else None
        if allowed is not None and not now:
            allowed = later(bp, related.name, pre.field, allowed)
        out = [{ours: r.get(theirs) for theirs, ours in pre.match.items()} for r in tables[related.table]
               if allowed is None or r.get(pre.field) in allowed]
        rng.shuffle(out)
        return out

    def repair_moves(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any],
                     rng: random.Random, knobs: Knobs) -> None:
        """The match re-picked from an accepted related row; with `at`, our moment moved inside a window that had
        begun by today, of our own match first."""
        if not self.wanted:
            return
        if all(ref_entity(bp, entity, ours) for ours in pre.match.values()):
            knobs.refs["requires:" + knobs.rule] = self.accepted_matches(bp, tables, pre, rng, knobs.later)
        if pre.at:
            related = bp.entity(pre.entity)
            allowed = knobs.later(bp, related.name, pre.field, _values(related, pre.field, pre.values)) \
                if pre.field else None
            begun = [r for r in tables[related.table] if (allowed is None or r.get(pre.field) in allowed)
                     and isinstance(r.get(pre.start), str) and isinstance(r.get(pre.end), str)
                     and r[pre.start] <= r[pre.end] and r[pre.start][:10] <= bp.today]
            rng.shuffle(begun)
            begun.sort(key=lambda r: not all(r.get(theirs) == row.get(ours) for theirs, ours in pre.match.items()))
            knobs.own["at:" + knobs.rule] = [{**{ours: r.get(theirs) for theirs, ours in pre.match.items()},
                                              pre.at: _inside(r[pre.start], r[pre.end], rng)} for r in begun]

    def supply(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any] | None,
               targets: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """The related rows matching `row` (all of them, without one) moved into the first allowed value."""
        if not self.wanted:
            return []
        related = bp.entity(pre.entity)
        mine = [r for r in tables[related.table] if row is not None and r["id"] != row["id"]
                and all(r.get(theirs) == row.get(ours) for theirs, ours in pre.match.items())]
        value = typed(related.field(pre.field), pre.values[0])
        return [(r, {pre.field: value}) for r in (mine if row is not None else tables[related.table])]

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        """A matching related row added (its span around our moment, naming a far row of the wanted kind), or
        every matching one removed."""
        other = bp.entity(pre.entity)
        match = {theirs: at.new.get(ours) for theirs, ours in pre.match.items()}
        if any(v is None for v in match.values()):
            return False
        allowed = [typed(other.field(pre.field), v) for v in pre.values] if pre.field else []
        if pre.at and at.new.get(pre.at) is None:
            return False
        if self.wanted == hold:
            template = copy.deepcopy((at.tables.get(other.table) or [{}])[0])
            extra = {**template, "id": f"{other.id_prefix}-9980", **match}
            if pre.field:
                extra[pre.field] = allowed[0]
            if pre.at:  # a related row whose span covers our moment
                extra[pre.start], extra[pre.end] = _around(at.new[pre.at], other.field(pre.start).type)
            if pre.their is not None:  # naming a far row of the wanted kind (a machine that is a grain cart)
                far = bp.entity(other.field(pre.their.ref_field).ref)
                wanted = [typed(far.field(pre.their.field), v) for v in pre.their.values]
                fit = next((r["id"] for r in at.tables.get(far.table, []) if r.get(pre.their.field) in wanted), None)
                if fit is None:
                    return False
                extra[pre.their.ref_field] = fit
                extra["id"] = f"{other.id_prefix}-99{81 + at.op.preconditions.index(pre) % 19}"  # two siblings, two ids
            at.patches.append(lambda t, extra=extra: t.setdefault(other.table, []).append(copy.deepcopy(extra)))
        else:
            entity, own = at.entity, at.own

            def clear(t: Tables, table: str = other.table) -> None:
                counted = _counted(bp, other, pre, t)
                t[table] = [r for r in t.get(table, []) if not (all(r.get(k) == v for k, v in match.items())
                                                                  and (not pre.field or r.get(pre.field) in allowed)
                                                                  and counted(r)
                                                                  and not (table == entity.table and r.get("id") == own))]
            at.patches.append(clear)
        return True


KIND = Requires()
