"""The `time_window` check kind: a date or time falls on allowed weekdays, in allowed months, within hours.

    check: {kind: time_window, field: starts_at, days: [monday, ..., friday], from_time: "09:00", to_time: "17:00"}
    check: {kind: time_window, field: starts_at, months: [may, june, july, august, september]}   # the patio season

The runtime helper that decides is envcraft_runtime.rules.outside_window; here is what app.py calls, the fact on
a seed row, the seed's moves (the row moved to the next days every window of its field allows, and the rows a
`when` reads re-picked), and the audit's arrangement (a free moment inside or outside the window).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

from envcraft.generator.model.blueprint import MONTHS, WEEKDAYS, Blueprint, Entity, Operation, Precondition
from envcraft.generator.model.refpath import ref_entity
from envcraft.generator.rules.kind import Arranging, Emit, Knobs, Later, RuleKind, Tables
from envcraft_runtime.rules import Fact, outside_window, shifted


def _tuple(items: list[str]) -> str:
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def after(moment: str, kind: str) -> str:
    """An hour after a time (same day at the latest 23:xx), a day after a date."""
    if kind == "datetime":
        hour = int(moment[11:13])
        return f"{moment[:11]}{min(hour + 1, 23):02d}:{moment[14:16]}"
    return (date.fromisoformat(moment) + timedelta(days=1)).isoformat()


def _moments(today: date, days: list[str], start: str | None, end: str | None, kind: str, hold: bool,
             months: list[str] | None = None) -> Iterator[str]:
    """Dates/times after today inside the window (hold) or outside it, nearest first. A window of months looks
    up to a year ahead; its outside moments are the days of a month it leaves out."""
    for offset in range(7, 21 if not months else 380):
        day = today + timedelta(days=offset)
        name = WEEKDAYS[day.weekday()]
        if months and (MONTHS[day.month - 1] in months) != hold:
            continue
        if months and not hold:
            if not days or name in days:
                yield day.isoformat() + (f"T{start or '10:00'}" if kind == "datetime" else "")
            continue
        if hold:
            if days and name not in days:
                continue
            clock = start or "10:00"
            yield day.isoformat() + (f"T{clock}" if kind == "datetime" else "")
        elif days and name not in days:
            yield day.isoformat() + ("T10:00" if kind == "datetime" else "")
        elif not days and kind == "datetime" and start and start > "00:30":
            yield day.isoformat() + "T00:00"
        elif not days and kind == "datetime" and end and end < "23:30":
            yield day.isoformat() + "T23:30"


def _late_end(pairs: dict[str, str], new: dict[str, Any], pre: Precondition, hold: bool) -> list[str]:
    """A window on the end of a span: first try the same day as its start, an hour on but by the window's close
    (hold), or past its close (break: a reading buddy's shift from 16:30 to 18:30), so the start keeps its own."""
    begin = pairs.get(pre.field)
    start = new.get(begin) if begin else None
    if not pre.to_time or pre.to_time >= "23:30" or not isinstance(start, str) or len(start) < 16:
        return []
    close = f"{start[:10]}T{pre.to_time}"
    moment = min(shifted(start, 60), close) if hold else shifted(close, 30)
    if hold and (WEEKDAYS[date.fromisoformat(start[:10]).weekday()] not in (pre.days or WEEKDAYS)
                 or (pre.from_time and moment[11:16] < pre.from_time)):
        return []
    return [moment] if moment > start and moment[:10] == start[:10] else []


def _into_window(bp: Blueprint, entity: Entity, row: dict[str, Any], name: str, windows: list[Precondition],
                 knobs: Knobs) -> list[dict[str, Any]]:
    """The row moved to the next days every window allows, its time within all of them (keeping its length)."""
    value = row.get(name)
    if not isinstance(value, str):
        return []
    allowed = [set(w.days) for w in windows if w.days]
    first = date.fromisoformat(value[:10])
    days = [d for d in (first + timedelta(days=n) for n in range(14))
            if all(d.strftime("%A").lower() in a for a in allowed)]
    clock = value[11:16] or None
    start = max((w.from_time for w in windows if w.from_time), default=None)
    end = min((w.to_time for w in windows if w.to_time), default=None)
    if clock and ((start and clock < start) or (end and clock > end)):
        clock = start or "09:00"
    return [knobs.moved(bp, entity, row, name, d, clock) for d in days[:3]]


class TimeWindow(RuleKind):
    name = "time_window"
    category = "time_window"
    needs = ("field",)

    def problems(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, where: str) -> list[str]:
        problems = []
        if entity.field(pre.field).type not in ("date", "datetime"):
            problems.append(f"{where} field {pre.field!r} must be a date or datetime")
        if not pre.days and not pre.months and not (pre.from_time or pre.to_time):
            problems.append(f"{where} needs days, months or from_time/to_time")
        return problems

    def arranged(self, pre: Precondition) -> bool:
        return True

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        months = [_tuple([lit(m) for m in pre.months])] if pre.months else []
        args = [f"_new.get({lit(pre.field)})", _tuple([lit(d) for d in pre.days]), lit(pre.from_time), lit(pre.to_time),
                *months]
        return None, f"outside_window({', '.join(args)})"

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        return outside_window(row.get(pre.field), tuple(pre.days), pre.from_time, pre.to_time, tuple(pre.months))

    def repair_moves(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any],
                     rng: random.Random, knobs: Knobs) -> None:
        """The row moved into every window of its field; the rows a `when` reads re-picked (the window speaks of
        rows another row marks: a patio table, a partner's role)."""
        windows = [p for p in knobs.failing if p.kind == pre.kind and p.field == pre.field]
        knobs.own[pre.field] = _into_window(bp, entity, row, pre.field, windows, knobs)
        for cond in pre.conditions:
            name = cond.through or cond.ref_field
            other = ref_entity(bp, entity, name)
            if other is not None and name not in knobs.refs:
                ids = [r["id"] for r in tables[other.table] if r["id"] != row.get(name)]
                rng.shuffle(ids)
                knobs.refs[name] = [{name: i} for i in ids]

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        """A free moment inside (hold) or outside the window, the ends the call sets an hour (a day) later."""
        kind = at.entity.field(pre.field).type
        pairs = at.pairs(at.entity)
        moments = _late_end(pairs, at.new, pre, hold) + list(_moments(
            date.fromisoformat(bp.today), list(pre.days), pre.from_time, pre.to_time, kind, hold, list(pre.months)))
        moment = next((m for m in moments if at.free(pre.field, m, after(m, kind))), moments[0] if moments else None)
        if moment is None or not at.put(pre.field, moment):
            return False
        for end in [end for end, begin in pairs.items() if begin == pre.field]:
            if end in at.fields or end in at.overrides:
                at.overrides[end] = after(moment, kind)
        return True


KIND = TimeWindow()
