"""A census of the seeds: rows whose status records an event that has not happened yet by the world's today.

A row counts when
  - its entity has a status field and a time the event is scheduled for (generator/events.event_field);
  - its status is one that records the event as happened (events.HAPPENED: served, checked_in, no_show,
    completed, attended, ...);
  - and the scheduled day is after the blueprint's `today`;
or its status records that its deadline went by (events.LAPSED: lapsed, expired, past_due) on or before a
deadline (events.deadline_field) that is today or later.

`repeated_name_rows` counts rows whose own name (name, title) another row of the table shares, where staff would
name one of them (events excepted: a weekly class keeps its title).

`misplaced_event_count` counts the wider class (seed_timeline.misplaced: a booking left waiting long after its
day too), `contradiction_rows` what seed_coherence's checks find (a submitted report with no submitted date,
an attempt count that is not the attempts logged, a party over its table's seats).

It reads each environment's seed as the launcher copies it (servers/<env>/seed/.app/state.json), so it
counts what an agent meets, and needs no seed to be rebuilt. `future_event_rows(servers)` lists them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint, load_blueprint
from envcraft.generator.model.events import HAPPENED, LAPSED, deadline_field, event_field
from envcraft.generator.seeds.seed_coherence import CHECKS
from envcraft.generator.seeds.seed_timeline import misplaced_rows


@dataclass(frozen=True)
class FutureEvent:
    env: str
    table: str
    row_id: str
    status: str
    field: str
    when: str


def future_events(bp: Blueprint, tables: dict[str, list[dict]]) -> list[FutureEvent]:
    out = [FutureEvent(bp.id, entity.table, row["id"], row[entity.status_field], deadline_field(entity),
                       row[deadline_field(entity)])
           for entity in bp.entities if entity.status_field and deadline_field(entity)
           for row in tables.get(entity.table, []) if row.get(entity.status_field) in LAPSED
           and isinstance(row.get(deadline_field(entity)), str) and row[deadline_field(entity)][:10] >= bp.today]
    for entity in bp.entities:
        if not entity.status_field or not set(entity.field(entity.status_field).values) & HAPPENED:
            continue
        when_field = event_field(bp, entity)
        if when_field is None:
            continue
        for row in tables.get(entity.table, []):
            status, when = row.get(entity.status_field), row.get(when_field)
            if status in HAPPENED and isinstance(when, str) and when[:10] > bp.today:
                out.append(FutureEvent(bp.id, entity.table, row["id"], status, when_field, when))
    return out


def _seeds(servers: Path) -> list[tuple[Blueprint, dict[str, list[dict]]]]:
    out = []
    for blueprint in sorted(BLUEPRINTS.glob("*.yaml")):
        state = Path(servers) / blueprint.stem / "seed" / ".app" / "state.json"
        if state.exists():
            out.append((load_blueprint(blueprint), json.loads(state.read_text("utf-8"))))
    return out


def future_event_rows(servers: Path) -> list[FutureEvent]:
    return [event for bp, tables in _seeds(servers) for event in future_events(bp, tables)]


def misplaced_event_count(servers: Path) -> int:
    """Rows whose scheduled time disagrees with their status either way (seed_timeline.misplaced: also a
    booking left waiting long after its day, a check-in whose stay has ended)."""
    return sum(len(misplaced_rows(bp, tables)) for bp, tables in _seeds(servers))


def contradiction_rows(servers: Path) -> dict[str, int]:
    """Rows each of seed_coherence's checks finds (stamps, children after parents, counters, bounds...)."""
    counts = dict.fromkeys(CHECKS, 0)
    for bp, tables in _seeds(servers):
        for name, check in CHECKS.items():
            counts[name] += len(check(bp, tables))
    return counts


OWN_NAMES = ("name", "full_name", "title", "display_name")  # a row's own name (generator/tasks/env.py label_field)


@dataclass(frozen=True)
class RepeatedName:
    env: str
    table: str
    field: str
    value: str
    rows: int  # how many rows of the table carry it


def repeated_names(bp: Blueprint, tables: dict[str, list[dict]]) -> list[RepeatedName]:
    """Names two rows of one table share, where staff tell rows apart by name: a protocol's title, an animal's
    name, an account's name. An event's title (a weekly class, a standing meeting) may repeat, as it does."""
    out = []
    for entity in bp.entities:
        field = next((f for f in OWN_NAMES if f in {s.name for s in entity.fields}), None)
        if field is None or entity.field(field).type != "str" or event_field(bp, entity):
            continue
        seen = Counter(r.get(field) for r in tables.get(entity.table, []) if isinstance(r.get(field), str))
        out += [RepeatedName(bp.id, entity.table, field, value, n) for value, n in sorted(seen.items()) if n > 1]
    return out


def repeated_name_rows(servers: Path) -> dict[str, int]:
    """env.table -> rows whose name another row of the table also has."""
    counts: Counter[str] = Counter()
    for bp, tables in _seeds(servers):
        for found in repeated_names(bp, tables):
            counts[f"{found.env}.{found.table}"] += found.rows
    return dict(counts)


def future_event_count(servers: Path) -> int:
    return len(future_event_rows(servers))


__all__ = ["HAPPENED", "FutureEvent", "RepeatedName", "contradiction_rows", "future_event_count", "future_event_rows", "future_events",
           "misplaced_event_count", "repeated_name_rows", "repeated_names"]
