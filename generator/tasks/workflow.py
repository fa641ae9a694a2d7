"""The cross-environment workflow graph: where a value found in one environment is the input of a
write in another (an agency nurse's name becomes who read back a lab's critical-value alert; a
student's email from the registrar opens a help-desk case).

A link A -> B exists only where both blueprints declare it (generator/model/relations.py): B's
`references` names the field written and A's record it comes from, A's `referenced_by` agrees. Its
weight is the strength of the value's kind (an email is a sharper key than a city).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
from envcraft.generator.model.blueprint import Blueprint
from envcraft.generator.tasks.env import semantic_kind

KIND_STRENGTH = {"email": 1.0, "person_name": 0.9, "company": 0.9, "product": 0.8, "date": 0.6, "datetime": 0.5,
                 "city": 0.4, "country": 0.3, "street": 0.5, "phone": 0.7, "job_title": 0.3, "department": 0.4}
OTHER_STRENGTH = 0.5  # a declared value of no known kind


@dataclass(frozen=True)
class Link:
    src: str  # environment the value is read in
    src_entity: str
    src_field: str
    dst: str  # environment written
    dst_op: str
    dst_field: str
    kind: str
    weight: float


def links_between(a: Blueprint, b: Blueprint) -> list[Link]:
    """Every write of B that may take a value read from A: one per declared field and operation setting it,
    where A also declares that B may take it (a one-sided declaration yields nothing)."""
    out = []
    for ref in b.references:
        if ref.env != a.id or not any(s.entity == ref.their_entity and s.by == f"{b.id}.{ref.entity}"
                                      for s in a.referenced_by):
            continue
        source, target = a.entity(ref.their_entity), b.entity(ref.entity)
        for ours, theirs in ref.fields.items():
            kind = semantic_kind(target, target.field(ours)) or semantic_kind(source, source.field(theirs)) or "value"
            for op in b.operations:
                if op.entity == ref.entity and op.kind in ("create", "update", "transition") and \
                        ours in op.params + op.required:
                    out.append(Link(a.id, source.name, theirs, b.id, op.name, ours, kind,
                                    KIND_STRENGTH.get(kind, OTHER_STRENGTH)))
    return out


def build_workflow(blueprints: list[Blueprint]) -> nx.DiGraph:
    """Environments as nodes; an edge A -> B holds the declared links from A to B."""
    graph = nx.DiGraph()
    for bp in blueprints:
        graph.add_node(bp.id, domain=bp.domain, kind=bp.kind)
    by_id = {bp.id: bp for bp in blueprints}
    for b in blueprints:
        for src in sorted({ref.env for ref in b.references if ref.env in by_id}):
            links = links_between(by_id[src], b)
            if links:
                links.sort(key=lambda link: (-link.weight, link.src_entity, link.src_field, link.dst_op, link.dst_field))
                graph.add_edge(src, b.id, weight=links[0].weight, links=links, kinds=sorted({link.kind for link in links}))
    return graph


def links_from(graph: nx.DiGraph, env: str) -> list[Link]:
    if env not in graph:
        return []
    return [link for dst in sorted(graph.successors(env)) for link in graph[env][dst]["links"]]
