"""A seed's past: a short change history of status moves colleagues made in the days before today.

Each entry is a transition the blueprint allows (a `status_in` precondition names where it starts)
that ends in the row's seed status, made by one of a few colleagues at a working hour before the
session opens, so `list_changes` has something to say before the agent writes anything and a task
can ask about the past. A move that records an event (a `happens_now` check guards it) is dated inside that
check's window, as the tool would have allowed it: a no-show is marked on or after the appointment's day.
Drawn from its own RNG: the seed tables are the same with or without it.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint
from envcraft.generator.rules.happens_now import fact, guards
from envcraft.generator.rules.registry import source_states
from envcraft.generator.seeds import values
from envcraft_runtime.history import HISTORY, PREFIX

ENTRIES = 8  # at most, per environment
COLLEAGUES = 3


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


def _days(bp: Blueprint, name: str, row: dict[str, Any], today: date) -> list[int]:
    """How many days before today the move may be dated (1 to 6): the days its time guards allow, if any."""
    checks = [p for op in bp.operations if op.name == name for p in guards(op)]
    return [n for n in range(1, 7) if all(fact(p, row, (today - timedelta(days=n)).isoformat()) is None for p in checks)]


def seed_history(bp: Blueprint, tables: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """History entries, oldest first, ids chg-0001.. in that order."""
    rng = random.Random(f"{bp.id}:{bp.seed}:history")
    people = colleagues(bp)
    day = date.fromisoformat(bp.today)
    options = [(table, field, op, starts, row, days) for table, field, op, end, starts in moves_into(bp)
               for row in tables.get(table, []) if row.get(field) == end
               if (days := _days(bp, op, row, day))]
    rng.shuffle(options)
    picked, seen = [], set()
    for option in options:
        if option[4]["id"] not in seen:
            seen.add(option[4]["id"])
            picked.append(option)
        if len(picked) == ENTRIES:
            break
    dated = []
    for table, field, op, starts, row, days in picked:
        start = rng.choice(starts)
        when = datetime(day.year, day.month, day.day, 9) - timedelta(days=rng.choice(days)) \
            + timedelta(minutes=15 * rng.randint(0, 32))
        dated.append((when.strftime("%Y-%m-%dT%H:%M"), table, row["id"], field, start, row[field], op, rng.choice(people)))
    dated.sort()
    return [{"id": f"{PREFIX}-{n:04d}", "at": at, "by": by, "operation": op, "table": table, "row_id": row_id,
             "field": field, "old": old, "new": new}
            for n, (at, table, row_id, field, old, new, op, by) in enumerate(dated, 1)]


__all__ = ["HISTORY", "colleagues", "moves_into", "seed_history"]
