"""The cross-environment workflow graph: where a value found in one environment is the input of a
write in another (a customer's email from the helpdesk becomes a contact in the CRM; a supplier
company from purchasing is the shipper of a load).

A link A -> B joins a field of an entity of A (an email, a person's or company's name, a product,
a city, a date) to a create/update parameter of B of the same semantic kind. Its weight is the
domain affinity of A and B times the strength of the kind (an email is a sharper key than a city).
Each environment keeps its strongest partners, so workflows stay plausible.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from envcraft.generator.blueprint import Blueprint
from envcraft.generator.tasks.env import semantic_kind

KIND_STRENGTH = {"email": 1.0, "person_name": 0.9, "company": 0.9, "product": 0.8, "date": 0.6, "datetime": 0.5,
                 "city": 0.4, "country": 0.3, "street": 0.5, "phone": 0.7, "job_title": 0.3, "department": 0.4}
RELATED = [  # domains whose workflows meet
    {"office", "finance", "banking", "customer_support", "commerce"},
    {"health", "research", "office"},
    {"commerce", "logistics", "manufacturing", "customer_support"},
    {"engineering", "it_operations", "office"},
    {"government", "real_estate", "finance", "office"},
    {"education", "research", "events", "office"},
    {"travel", "events", "office", "finance"},
    {"agriculture", "logistics", "manufacturing", "commerce"},
    {"banking", "finance", "real_estate", "commerce"},
]
PARTNERS = 6


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


def affinity(a: Blueprint, b: Blueprint) -> float:
    if a.domain == b.domain:
        return 1.0
    if any(a.domain in group and b.domain in group for group in RELATED):
        return 0.6
    return 0.15


def sources(bp: Blueprint) -> list[tuple[str, str, str]]:
    """(entity, field, kind) an agent can read: fields of searchable entities."""
    searchable = {op.entity for op in bp.operations if op.kind == "search"}
    return [(e.name, f.name, kind) for e in bp.entities if e.name in searchable
            for f in e.fields if (kind := semantic_kind(e, f))]


def sinks(bp: Blueprint) -> list[tuple[str, str, str]]:
    """(operation, field, kind) a value can be written into: creates, updates, transitions that set fields."""
    out = []
    for op in bp.operations:
        if op.kind not in ("create", "update", "transition"):
            continue
        entity = bp.entity(op.entity)
        for name in dict.fromkeys(op.params + op.required):
            spec = entity.field(name)
            kind = semantic_kind(entity, spec)
            if kind and not spec.values:
                out.append((op.name, name, kind))
    return out


def role_fit(entity: str, op_entity: str, target: str) -> float:
    """A person's name fits a field named for the same role (customer -> customer_name): x1.5; else x0.5."""
    tokens = set(entity.split("_"))
    return 1.5 if tokens & (set(target.split("_")) | set(op_entity.split("_"))) else 0.5


def links_between(a: Blueprint, b: Blueprint) -> list[Link]:
    aff = affinity(a, b)
    out = []
    ops = {op.name: op for op in b.operations}
    for entity, fld, kind in sources(a):
        for op, target, want in sinks(b):
            if kind == want:
                if kind in ("date", "datetime") and (aff < 1.0 or not set(fld.split("_")) - {"date", "at", "on"} &
                                                     set(target.split("_"))):
                    continue  # a date carries over only within a domain, between fields named alike
                fit = role_fit(entity, ops[op].entity, target) if kind in ("person_name", "company") else 1.0
                if fit < 1.0 and aff < 1.0:
                    continue  # a name travels to a field of another role only within one domain
                out.append(Link(a.id, entity, fld, b.id, op, target, kind, round(aff * KIND_STRENGTH[kind] * fit, 3)))
    return out


def build_workflow(blueprints: list[Blueprint], partners: int = PARTNERS) -> nx.DiGraph:
    """Environments as nodes; an edge A -> B holds the links from A to B (strongest partners only)."""
    graph = nx.DiGraph()
    for bp in blueprints:
        graph.add_node(bp.id, domain=bp.domain, kind=bp.kind)
    by_id = {bp.id: bp for bp in blueprints}
    for a in blueprints:
        scored = []
        for b in blueprints:
            if a.id == b.id:
                continue
            links = links_between(a, b)
            if links:
                best = max(link.weight for link in links)
                scored.append((-best, -len(links), b.id, links))
        for _, _, dst, links in sorted(scored)[:partners]:
            links.sort(key=lambda link: (-link.weight, link.src_entity, link.src_field, link.dst_op, link.dst_field))
            graph.add_edge(a.id, dst, weight=links[0].weight, links=links,
                           kinds=sorted({link.kind for link in links}), affinity=affinity(a, by_id[dst]))
    return graph


def links_from(graph: nx.DiGraph, env: str) -> list[Link]:
    if env not in graph:
        return []
    return [link for dst in sorted(graph.successors(env)) for link in graph[env][dst]["links"]]
