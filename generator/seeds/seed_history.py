"""A seed's past: every row's road to its status, as the change history (`list_changes`) shows it.

A row whose status is not its entity's initial one got there by the shortest chain of the blueprint's own
transitions (seed_paths.path), each step one entry: the operation, old -> new, made by one of a few colleagues
at a working hour between the row's making (its created_at, opened_on...; else a month back) and the moment
the session opens (today 09:00), in order. A step that records an event (a `happens_now` check guards it) is
dated inside that check's window, as the tool would have allowed it: a no-show is marked on or after the
appointment's day. A step into a status the row carries a date for (submitted_on for `submitted`) is dated
that day, at that minute for a datetime; where the stamp cannot stand in order (stamped before the row was
made, or after the next step's window), the step keeps its own time and the stamp follows it (one rule: the
row's stamp is the time of the step that reached it).
Drawn from its own RNG: the seed tables are the same with or without it, stamps apart.
"""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec, Operation
from envcraft.generator.rules.happens_now import guards
from envcraft.generator.rules.registry import source_states
from envcraft.generator.seeds import values
from envcraft.generator.seeds.seed_coherence import origin_fields, stamp_fields
from envcraft.generator.seeds.seed_paths import Step, path
from envcraft_runtime.history import HISTORY, OPENS, PREFIX

COLLEAGUES = 3
BACK = 30  # days before today a row with no date of its making was made, at the latest
FORMAT = "%Y-%m-%dT%H:%M"


def colleagues(bp: Blueprint) -> list[str]:
    """The people whose earlier changes the history shows (the same names for the seed and its tasks)."""
    rng = random.Random(f"{bp.id}:{bp.seed}:colleagues")
    names: list[str] = []
    while len(names) < COLLEAGUES:
        name = values.person_name(rng)
        if name not in names:
            names.append(name)
    return names


def moves_into(bp: Blueprint) -> list[tuple[str, str, str, str, list[str]]]:
    """(table, status field, operation, status it ends in, statuses it starts from) for every transition
    whose start the rules name."""
    out = []
    for op in bp.operations:
        entity = bp.entity(op.entity)
        starts = source_states(entity, op) or []
        starts = [s for s in starts if s != op.to_status]
        if op.kind == "transition" and entity.status_field and op.to_status and starts:
            out.append((entity.table, entity.status_field, op.name, op.to_status, starts))
    return out


def _moment(value: Any) -> datetime | None:
    """A datetime field's value, or a date's first moment; None when it is neither."""
    try:
        return datetime.fromisoformat(value[:16]) if len(value) > 10 else datetime.fromisoformat(value[:10])
    except (TypeError, ValueError):
        return None


def _window(op: Operation, row: dict[str, Any]) -> tuple[date | None, date | None]:
    """The days the operation's time guards allow it on for this row (None: no bound)."""
    low: date | None = None
    high: date | None = None
    for pre in guards(op):
        first, last = _moment(row.get(pre.field)), _moment(row.get(pre.end)) if pre.end else None
        if first is None:
            continue
        low = max(filter(None, (low, first.date() - timedelta(days=pre.early_days or 0))))
        if pre.late_days is not None:
            end = (last or first).date() + timedelta(days=pre.late_days)
            high = min(filter(None, (high, end)))
    return low, high


def _days(windows: list[tuple[date, date]], rng: random.Random) -> list[date] | None:
    """One day per step, in order, each inside its window; None when no such days exist."""
    latest, last = [], None
    for low, high in reversed(windows):
        last = high if last is None else min(high, last)
        if last < low:
            return None
        latest.append(last)
    out, prev = [], windows[0][0]
    for (low, _), high in zip(windows, reversed(latest)):
        first = max(low, prev)
        prev = first + timedelta(days=rng.randint(0, (high - first).days))
        out.append(prev)
    return out


def _times(days: list[date], exact: list[datetime | None], made: datetime, opens: datetime,
           rng: random.Random) -> list[datetime]:
    """A working-hour time for each day (before the opening on today's), later than the one before it; a step
    with an exact time keeps it when that is still in order."""
    out: list[datetime] = []
    prev = made
    for day, want in zip(days, exact):
        if want is not None and want.date() == day and prev < want < opens:
            prev = want
        else:
            start, stop = (time(7), time(8, 45)) if day == opens.date() else (time(9), time(16, 45))
            slots = [datetime.combine(day, start) + timedelta(minutes=15 * n) for n in range(
                (stop.hour * 60 + stop.minute - start.hour * 60 - start.minute) // 15 + 1)]
            later = [s for s in slots if prev < s < opens]
            prev = rng.choice(later[: max(1, len(later) // 2)]) if later else prev + timedelta(minutes=1)
        out.append(prev)
    return out


def _dated(bp: Blueprint, entity: Entity, row: dict[str, Any], steps: list[Step], rng: random.Random,
           anchored: bool) -> list[datetime] | None:
    """When each step was made (see the module's docstring); None when its windows leave no room. With
    `anchored`, a step into a stamped status keeps the stamp's day."""
    ops = {op.name: op for op in bp.operations}
    opens = datetime.fromisoformat(f"{bp.today}T{OPENS}")
    stamps = {step: spec for spec, step, _, _ in stamp_fields(bp, entity)}
    made = next((m for name in origin_fields(entity) if name not in {spec.name for spec in stamps.values()}
                 if (m := _moment(row.get(name))) is not None), None)
    guarded = [_window(ops[step.operation], row) if step.own else (None, None) for step in steps]
    stamped = [_moment(row.get(stamps[step.new].name)) if anchored and step.new in stamps else None for step in steps]
    exact = [when if when and stamps[step.new].type == "datetime" else None for step, when in zip(steps, stamped)]
    if made is None:
        earliest = min([opens.date() - timedelta(days=BACK)] + [low for low, _ in guarded if low]
                       + [when.date() for when in stamped if when])
        made = datetime.combine(earliest - timedelta(days=rng.randint(0, 7)), time(9))
    made = min(made, opens - timedelta(minutes=len(steps) + 1))  # room for each step a minute apart at worst
    windows = []
    for (low, high), want in zip(guarded, stamped):
        low, high = max(filter(None, (low, made.date()))), min(filter(None, (high, opens.date())))
        if want is not None:
            low, high = max(low, want.date()), min(high, want.date())
        windows.append((low, high))
    days = _days(windows, rng)
    return None if days is None else _times(days, exact, made, opens, rng)


def _stamp(spec: FieldSpec, when: datetime) -> str:
    """The row's date for a status it reached at `when`: the step's day (and minute, for a datetime field)."""
    return when.date().isoformat() if spec.type == "date" else when.strftime(FORMAT)


def seed_history(bp: Blueprint, tables: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """History entries, oldest first, ids chg-0001.. in that order. Sets a row's status stamp where it cannot
    stand in order with the row's road (see the module's docstring)."""
    rng = random.Random(f"{bp.id}:{bp.seed}:history")
    people = colleagues(bp)
    dated = []
    for entity in bp.entities:
        if not entity.status_field:
            continue
        stamps = {step: spec for spec, step, _, _ in stamp_fields(bp, entity)}
        for row in tables.get(entity.table, []):
            steps = path(bp, entity, row.get(entity.status_field)) if row.get(entity.status_field) else None
            if not steps:
                continue
            times = _dated(bp, entity, row, steps, rng, True) or _dated(bp, entity, row, steps, rng, False)
            if times is None:
                raise ValueError(f"{bp.id}: {row['id']} cannot reach {row[entity.status_field]} inside its time "
                                 f"guards' windows before {bp.today}")
            for step, when in zip(steps, times):
                if step.new in stamps:
                    row[stamps[step.new].name] = _stamp(stamps[step.new], when)
                dated.append((when.strftime(FORMAT), entity.table, row["id"], entity.status_field, step.old, step.new,
                              step.operation, rng.choice(people)))
    dated.sort()
    return [{"id": f"{PREFIX}-{n:04d}", "at": at, "by": by, "operation": op, "table": table, "row_id": row_id,
             "field": field, "old": old, "new": new}
            for n, (at, table, row_id, field, old, new, op, by) in enumerate(dated, 1)]


__all__ = ["HISTORY", "colleagues", "moves_into", "seed_history"]
