"""The road each seed row took to its status: the blueprint's state machine, read as a graph.

A row starts in its entity's initial status (the first value of its status field: what a create leaves) and
moves only by the blueprint's own transitions, so its status must be one some chain of them reaches. A row
whose status no chain reaches has a past the app cannot have made: seed_tables repairs it to a reachable status
with the same meaning (`reach`), and the census counts what is left (`unreachable_rows`).

    path(bp, entity, status) -> [Step("approve", "submitted", "approved"), ...] | None   (shortest chain)
    reach(bp, tables, rng) -> rows moved to a reachable status
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date
from itertools import pairwise
from typing import Any

import networkx as nx
from envcraft.generator.model.blueprint import Blueprint, Entity
from envcraft.generator.model.events import ENDED, HAPPENED, event_field, has_events, planned
from envcraft.generator.model.fields import INACTIVE, NEVER_HAPPENED
from envcraft.generator.rules.happens_now import guards
from envcraft.generator.rules.registry import source_states

Tables = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class Step:
    operation: str
    old: str
    new: str
    own: bool = True  # the row's own transition; False: an effect of an operation on another row (a create sets it)


def initial(entity: Entity) -> str:
    """The status a new row starts in (the runtime's default for an enum the create does not set)."""
    return entity.field(entity.status_field).values[0]


def machine(bp: Blueprint, entity: Entity) -> nx.DiGraph:
    """status -> status, one edge per pair, named for the first transition (in blueprint order) that makes it; a
    transition whose checks name no start may start anywhere, as the app allows; after them, the operations
    whose effect sets the status of the row they point at."""
    values = entity.field(entity.status_field).values
    graph = nx.DiGraph()
    graph.add_nodes_from(values)
    for op in bp.operations:
        if op.entity != entity.name or op.kind != "transition" or op.to_status not in values:
            continue
        starts = source_states(entity, op)
        for start in values if starts is None else starts:
            if start in values and start != op.to_status and not graph.has_edge(start, op.to_status):
                graph.add_edge(start, op.to_status, operation=op.name, own=True)
    for op in bp.operations:  # an operation on another row that sets this one's status (an award marks it awarded)
        for effect in op.effects:
            spec = next((f for f in bp.entity(op.entity).fields if f.name == effect.ref_field), None)
            if effect.kind != "set" or spec is None or spec.ref != entity.name or effect.field != entity.status_field \
                    or effect.value not in values:
                continue
            for start in values:
                if start != effect.value and not graph.has_edge(start, effect.value):
                    graph.add_edge(start, effect.value, operation=op.name, own=False)
    return graph


def reachable(bp: Blueprint, entity: Entity) -> set[str]:
    return nx.descendants(machine(bp, entity), initial(entity)) | {initial(entity)}


def path(bp: Blueprint, entity: Entity, status: str) -> list[Step] | None:
    """The shortest chain of transitions from the initial status to `status` ([] when it is the initial one)."""
    graph = machine(bp, entity)
    try:
        nodes = nx.shortest_path(graph, initial(entity), status)
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return None
    return [Step(graph.edges[a, b]["operation"], a, b, graph.edges[a, b]["own"]) for a, b in pairwise(nodes)]


def _not_yet(bp: Blueprint, steps: list[Step], row: dict[str, Any]) -> Step | None:
    """The first step on the road whose time guard opens only after today (a kit returned before its loan
    starts: it was never handed out)."""
    ops = {op.name: op for op in bp.operations}
    for step in steps:
        for pre in guards(ops[step.operation]) if step.own else []:
            start = row.get(pre.field)
            if isinstance(start, str) and (date.fromisoformat(start[:10]) - date.fromisoformat(bp.today)).days \
                    > (pre.early_days or 0):
                return step
    return None


def unreachable(bp: Blueprint, entity: Entity, row: dict[str, Any]) -> str | None:
    """Why no road of transitions brings the row to its status by today, or None when one does."""
    status = row.get(entity.status_field)
    steps = path(bp, entity, status) if status is not None else []
    if steps is None:
        return f"{status}: no transition leads there from {initial(entity)}"
    late = _not_yet(bp, steps, row)
    return f"{status}: its {late.operation} is not allowed before {bp.today}" if late else None


def unreachable_rows(bp: Blueprint, tables: Tables) -> list[tuple[str, str, str]]:
    """(table, row id, why) for every row whose status no chain of transitions reaches by today."""
    return [(entity.table, row["id"], why) for entity in bp.entities if entity.status_field
            for row in tables.get(entity.table, []) if (why := unreachable(bp, entity, row))]


def _meaning(graph: nx.DiGraph, status: str) -> tuple[bool, bool, bool]:
    """What a status says, as far as a replacement must agree: it never happened (cancelled, rejected), it is
    over (done, closed), it is an end the row stays in."""
    return (status in NEVER_HAPPENED, status in HAPPENED or status in ENDED or status in INACTIVE,
            graph.out_degree(status) == 0)


def _future(bp: Blueprint, entity: Entity, row: dict[str, Any]) -> bool:
    when = row.get(event_field(bp, entity)) if has_events(bp, entity) else None
    return isinstance(when, str) and when[:10] > bp.today


def _replacement(bp: Blueprint, entity: Entity, row: dict[str, Any], rng: random.Random) -> str:
    """A reachable status meaning what the row's says: an event still ahead waits in a planned status; otherwise
    the reachable statuses that agree most with the row's (first on never having happened, then on being over,
    then on being final), one at random."""
    graph = machine(bp, entity)
    can = [v for v in entity.field(entity.status_field).values if v in reachable(bp, entity)]
    if _future(bp, entity, row):
        waits = [v for v in can if v in planned(bp, entity)]
        return rng.choice(waits) if waits else initial(entity)
    want = _meaning(graph, row[entity.status_field])
    score = {v: tuple(a == b for a, b in zip(_meaning(graph, v), want)) for v in can}  # in that order of weight
    best = max(score.values())
    return rng.choice([v for v in can if score[v] == best])


def reach(bp: Blueprint, tables: Tables, rng: random.Random) -> int:
    """Move every row whose status the transitions cannot reach to a reachable one, and a row whose road passes
    a step its time guard does not allow yet back to where that step starts; returns how many moved."""
    moved = 0
    for entity in bp.entities:
        if not entity.status_field:
            continue
        can = reachable(bp, entity)
        for row in tables.get(entity.table, []):
            if row.get(entity.status_field) is not None and row[entity.status_field] not in can:
                row[entity.status_field], moved = _replacement(bp, entity, row, rng), moved + 1
            late = _not_yet(bp, path(bp, entity, row[entity.status_field]) or [], row) \
                if row.get(entity.status_field) is not None else None
            if late is not None:
                row[entity.status_field], moved = late.old, moved + 1
    return moved


__all__ = ["Step", "initial", "machine", "path", "reach", "reachable", "unreachable", "unreachable_rows"]
