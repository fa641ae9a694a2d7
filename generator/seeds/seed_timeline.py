"""A seed's events sit where their statuses say they are in time (generator/model/events.py has the words).

A seed row is what the world's history left, on a clock that ends at the blueprint's `today`: an event
recorded as having happened (served, no_show, completed) took place on or before today; one taking place
now (checked_in, seated) began on or before today and has not ended (with no end, it is today's); an
ended one (checked_out, completed) has its end behind it; one still planned (booked, scheduled) is today
or later, or at most LATE_DAYS behind, waiting for its outcome to be recorded.

    misplaced(bp, entity, row) -> "no_show on 2026-12-09, after today 2026-12-01" | None
    agree(bp, tables, rng) -> rows moved

A misplaced row's event moves, its start and end together, by whole weeks where that is enough (so the
weekday and the time of day, which opening hours speak of, stay as they were), else by days.
"""

from __future__ import annotations

import random
from datetime import date
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity
from envcraft.generator.model.events import (
    ENDED,
    HAPPENED,
    LAPSED,
    LATE_DAYS,
    ONGOING,
    deadline_field,
    end_field,
    event_field,
    has_events,
    planned,
)
from envcraft_runtime.rules import shifted

Tables = dict[str, list[dict[str, Any]]]
DAY = 24 * 60
AGENDA = 5  # rows each recording operation finds waiting inside its window


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(value[:10]) if isinstance(value, str) else None
    except ValueError:
        return None


def _allowed(bp: Blueprint, entity: Entity, status: Any) -> tuple[int | None, int | None]:
    """The lowest and highest day, counted from today, the event of a row in `status` may start on
    (None: no bound)."""
    if status in HAPPENED:
        return None, 0
    if status in planned(bp, entity):
        return -LATE_DAYS, None
    return None, None


def _lapsed_early(bp: Blueprint, entity: Entity, row: dict[str, Any]) -> str | None:
    """Why a row recorded as lapsed (events.LAPSED) disagrees with its deadline: the deadline has not gone by."""
    deadline = deadline_field(entity)
    status = row.get(entity.status_field) if entity.status_field else None
    day = _day(row.get(deadline)) if deadline and status in LAPSED else None
    if day is not None and day >= date.fromisoformat(bp.today):
        return f"{status} but its {deadline} {row[deadline]} has not gone by, today {bp.today}"
    return None


def _dated(bp: Blueprint, entity: Entity) -> bool:
    """The entity's statuses say something about its times: an event, or a deadline that went by."""
    return has_events(bp, entity) or bool(entity.status_field and deadline_field(entity)
                                          and set(entity.field(entity.status_field).values) & LAPSED)


def misplaced(bp: Blueprint, entity: Entity, row: dict[str, Any]) -> str | None:
    """Why the row's scheduled time disagrees with its status, or None when it agrees."""
    lapsed = _lapsed_early(bp, entity, row)
    if lapsed or not has_events(bp, entity):
        return lapsed
    start = event_field(bp, entity)
    end = end_field(bp, entity, start)
    status, begin, finish = row.get(entity.status_field), _day(row.get(start)), _day(row.get(end) if end else None)
    today = date.fromisoformat(bp.today)
    if begin is None:
        return None
    low, high = _allowed(bp, entity, status)
    offset = (begin - today).days
    if high is not None and offset > high:
        return f"{status} on {row[start]}, after today {bp.today}"
    if low is not None and offset < low:
        return f"still {status} on {row[start]}, {-offset} days before today {bp.today}"
    if status in ONGOING and (finish or begin) < today:
        return f"{status} but {'it ended' if finish else 'it was'} on {(row.get(end) or row[start])}, before today {bp.today}"
    if status in ENDED and finish is not None and finish > today:
        return f"{status} but it ends on {row[end]}, after today {bp.today}"
    return None


def _shift(row: dict[str, Any], fields: list[str], days: int) -> None:
    for name in fields:
        if isinstance(row.get(name), str):
            row[name] = shifted(row[name], days * DAY)


def place(bp: Blueprint, entity: Entity, row: dict[str, Any], rng: random.Random) -> None:
    """Move the row's event (start and end together) to where its status says it is; a lapsed row's deadline
    to before today, by whole weeks."""
    if _lapsed_early(bp, entity, row):
        deadline = deadline_field(entity)
        offset = (_day(row[deadline]) - date.fromisoformat(bp.today)).days
        _shift(row, [deadline], -7 * ((offset + 7) // 7) - 7 * rng.randint(0, 1))
        return
    start = event_field(bp, entity)
    end = end_field(bp, entity, start)
    fields = [start] + ([end] if end else [])
    today = date.fromisoformat(bp.today)
    begin = _day(row.get(start))
    finish = _day(row.get(end)) if end else None
    length = max(((finish or begin) - begin).days, 0)
    offset = (begin - today).days
    status = row.get(entity.status_field)
    if status in ONGOING:  # today falls within [start, end]: the start at most `length` days back
        target = -rng.randint(0, length)
        weeks = round((target - offset) / 7) * 7
        move = weeks if -length <= offset + weeks <= 0 else target - offset
    elif status in HAPPENED:  # over: the end (or the start) on or before today
        last = offset + length if status in ENDED and finish else offset
        move = -7 * (-(-last // 7)) - 7 * rng.randint(0, 1)
    else:  # planned: today or later
        move = 7 * (-(offset // 7)) + 7 * rng.randint(0, 1)
    _shift(row, fields, move)


def agree(bp: Blueprint, tables: Tables, rng: random.Random) -> int:
    """Move every misplaced row's event; returns how many moved."""
    moved = 0
    for entity in bp.entities:
        if not _dated(bp, entity):
            continue
        for row in tables.get(entity.table, []):
            if misplaced(bp, entity, row):
                place(bp, entity, row, rng)
                moved += 1
    return moved


def unwind(bp: Blueprint, tables: Tables) -> int:
    """The last resort for an event recorded as happened that no move could put behind today (every earlier
    slot taken): it has not happened yet, so it is back in the status it waited in. Returns how many."""
    count = 0
    for entity in bp.entities:
        values = entity.field(entity.status_field).values if has_events(bp, entity) else []
        waits = [v for v in values if v in planned(bp, entity)] or [v for v in values if v not in HAPPENED]
        # (no transition records it: a move-out inspection "completed" by an update waits as "scheduled")
        for row in tables.get(entity.table, []) if waits else []:
            if row.get(entity.status_field) in HAPPENED and misplaced(bp, entity, row):
                row[entity.status_field] = waits[0]
                count += 1
    return count


def agenda(bp: Blueprint, tables: Tables, rng: random.Random) -> int:
    """Today's work: each operation that records an event (rules/happens_now.py) finds at least AGENDA rows waiting
    for it inside its window, as a working day has appointments to check in and outcomes to record. Planned
    rows nearest today move onto a day of the window (keeping their time of day) where every rule of theirs
    still holds. Returns how many moved."""
    from envcraft.generator.rules.happens_now import fact, guards
    from envcraft.generator.rules.registry import source_states
    from envcraft.generator.seeds.seed_rules import row_breaches

    moved = 0
    today = date.fromisoformat(bp.today)
    for op in bp.operations:
        entity = bp.entity(op.entity)
        for pre in guards(op):
            starts = source_states(entity, op) or sorted(planned(bp, entity))
            waiting = [r for r in tables.get(entity.table, []) if r.get(entity.status_field) in starts
                       and isinstance(r.get(pre.field), str)]
            short = AGENDA - sum(fact(pre, r, bp.today) is None for r in waiting)
            spare = sorted((r for r in waiting if fact(pre, r, bp.today) is not None),
                           key=lambda r: abs((_day(r[pre.field]) - today).days))
            for row in spare:
                if short <= 0:
                    break
                fields = [f for f in (pre.field, pre.end or end_field(bp, entity, pre.field)) if f]
                before = {f: row.get(f) for f in fields}
                back = rng.randint(0, pre.late_days or 0) + max(0, -(pre.early_days or 0))  # -1: a deadline gone by
                _shift(row, fields, -back - (_day(row[pre.field]) - today).days)
                if fact(pre, row, bp.today) is None and not misplaced(bp, entity, row) \
                        and not row_breaches(bp, entity, row, tables):
                    short, moved = short - 1, moved + 1
                else:
                    row.update(before)
    return moved


def misplaced_rows(bp: Blueprint, tables: Tables) -> list[tuple[str, str, str]]:
    """(table, row id, why) for every row whose time disagrees with its status."""
    return [(entity.table, row["id"], why) for entity in bp.entities for row in tables.get(entity.table, [])
            if (why := misplaced(bp, entity, row))]


__all__ = ["agenda", "agree", "misplaced", "misplaced_rows", "place", "unwind"]
