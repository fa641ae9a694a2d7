"""Routes through a state machine: the statuses a row can reach through the environment's own operations.

A task that calls a change impossible must find no route to the target state at all, not only a refusal of the
one operation that names it: irb_protocol_review's `resubmit` refuses a submitted protocol, yet a prescreen and a
reviewer assignment take it under review. The graph is per row. An edge is an operation that sets the status:
a transition from each status its state guards allow, an update that takes the status as a parameter, a `set`
effect of another entity's operation. Guards on the row's other fields are read on the row as it is (a status
route leaves them alone); every other rule (capacity, a related row) is taken as one that can be met, so a route
that might exist counts as one and the task is not built.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import networkx as nx
from envcraft.generator.model.blueprint import Entity, Operation, Precondition
from envcraft.generator.model.fields import typed
from envcraft.generator.rules.registry import kind, value_guard
from envcraft.generator.tasks.env import EnvSpec


def _starts(entity: Entity, guards: list[Precondition], row: dict[str, Any]) -> list[Any]:
    """The statuses an operation with these guards accepts, given the row's other fields (none: it never runs)."""
    status = entity.status_field
    starts = [typed(entity.field(status), v) for v in entity.field(status).values]
    for pre in guards:
        guard = value_guard(pre)
        if guard is None or not guard[0] or pre.when is not None:
            continue  # a guard that applies only sometimes may not apply on the route
        allowed = [typed(entity.field(guard[0]), v) for v in guard[1]]
        if guard[0] == status:
            starts = [s for s in starts if s in allowed]
        elif row.get(guard[0]) not in allowed:
            return []
    return starts


def _effect_starts(env: EnvSpec, entity: Entity, op: Operation, ref_field: str) -> list[Any]:
    """Statuses of the referenced row from which another entity's operation may set its status: those its
    `ref_in` guards on that row's status allow."""
    status = entity.status_field
    starts = [typed(entity.field(status), v) for v in entity.field(status).values]
    for pre in op.preconditions:
        if kind(pre.kind).ref_values and pre.ref_field == ref_field \
                and pre.other_field == status and not pre.through \
                and pre.when is None:
            starts = [s for s in starts if s in {typed(entity.field(status), v) for v in pre.values}]
    return starts


def state_graph(env: EnvSpec, entity: Entity, row: dict[str, Any]) -> nx.DiGraph:
    """Statuses as nodes; an edge per operation that can move this row from one status to another."""
    status = entity.status_field
    spec = entity.field(status)
    values = [typed(spec, v) for v in spec.values]
    graph = nx.DiGraph()
    graph.add_nodes_from(values)
    for op in env.bp.operations:
        if op.entity == entity.name and op.kind == "transition" and op.to_status is not None:
            for start in _starts(entity, op.preconditions, row):
                graph.add_edge(start, typed(spec, op.to_status), op=op.name)
        elif op.entity == entity.name and op.kind == "update" and status in op.params:
            for start in _starts(entity, op.preconditions, row):
                graph.add_edges_from(((start, end) for end in values if end != start), op=op.name)
        for effect in op.effects:
            owner = env.entity(op.entity)
            if effect.kind == "set" and effect.field == status and owner.field(effect.ref_field).ref == entity.name:
                ends = values if effect.value is None else [typed(spec, effect.value)]
                for start in _effect_starts(env, entity, op, effect.ref_field):
                    graph.add_edges_from(((start, end) for end in ends if end != start), op=op.name)
    return graph


def route(env: EnvSpec, entity: Entity, row: dict[str, Any], goal: Any) -> list[str] | None:
    """The operations of a shortest route from the row's status to `goal`, or None when no route exists."""
    if not entity.status_field:
        return None
    graph = state_graph(env, entity, row)
    start = row.get(entity.status_field)
    if start not in graph or goal not in graph or start == goal:
        return None
    try:
        path = nx.shortest_path(graph, start, goal)
    except nx.NetworkXNoPath:
        return None
    return [graph.edges[a, b]["op"] for a, b in pairwise(path)]


__all__ = ["route", "state_graph"]
