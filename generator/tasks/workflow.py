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
from envcraft.generator.model.blueprint import Blueprint
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
    """(operation, field, kind) a value can be written into: creates, updates, transitions that set fields.
    A field with a declared vocabulary (a pool_by invariant: a claim payment's payee is a body shop, a rental
    firm or a tow operator) takes no value from another environment: no bakery is a rental-car payee."""
    pooled = {(inv.entity, inv.field) for inv in bp.invariants if inv.kind == "pool_by"}
    out = []
    for op in bp.operations:
        if op.kind not in ("create", "update", "transition"):
            continue
        entity = bp.entity(op.entity)
        for name in dict.fromkeys(op.params + op.required):
            spec = entity.field(name)
            kind = semantic_kind(entity, spec)
            if kind and not spec.values and (entity.name, name) not in pooled:
                out.append((op.name, name, kind))
    return out


# Who a person or company is in a workflow. A value crosses environments only between the same role
# (a customer of the shop is a contact of the CRM; a clinician is never a patient elsewhere).
ROLES = {
    "customer": {"customer", "client", "shopper", "buyer", "guest", "subscriber", "attendee", "renter", "tenant",
                 "resident", "homeowner", "donor", "borrower", "policyholder", "reader", "rider", "commuter",
                 "adopter", "participant", "patient", "applicant", "requester", "citizen", "contact", "member",
                 "passenger", "traveler", "traveller", "user", "recipient", "signatory", "party", "claimant",
                 "insured", "household", "parent", "student", "learner", "volunteer", "cardholder", "candidate",
                 "grower", "farmer", "entrant", "runner", "athlete", "visitor", "caller", "owner_occupant"},
    "staff": {"employee", "staff", "hire", "worker", "technician", "tech", "agent", "clerk", "nurse", "driver",
              "proctor", "adjuster", "engineer", "manager", "approver", "coordinator", "instructor", "tutor",
              "trainer", "stylist", "owner", "organizer", "organiser", "author", "reviewer", "preparer", "assignee",
              "planner", "dispatcher", "recruiter", "interviewer", "coach", "referee", "physician", "doctor",
              "clinician", "vet", "pharmacist", "analyst", "accountant", "attorney", "lawyer", "paralegal",
              "officer", "inspector", "specialist", "teammate", "colleague", "lead", "partner", "traveler",
              "traveller", "claimant", "requester", "member", "operator", "custodian", "warden", "foreman",
              "implementer", "scientist", "researcher", "investigator", "underwriter", "broker", "auditor"},
    "supplier": {"vendor", "supplier", "seller", "merchant", "payee", "carrier", "shipper", "manufacturer",
                 "wholesaler", "contractor", "lender", "insurer", "importer", "exporter", "company", "firm"},
}
IDENTITY = {"email", "person_name", "phone", "company", "street", "city", "country"}


def roles(*names: str) -> set[str]:
    tokens = {t for name in names for t in name.split("_")}
    return {role for role, words in ROLES.items() if tokens & words}


def role_fit(entity: str, op_entity: str, target: str, source: str = "") -> float:
    """1.5 when the value's owner and the field written play the same role (a customer's email into a
    client's email), 1.0 when either side names no role, 0 when they name different roles. A field's
    own name (employee_email) says more about its owner than its record's name (learning_account)."""
    theirs = roles(target) or roles(op_entity)
    ours = roles(source) or roles(entity)
    if not theirs or not ours:
        return 1.0
    return 1.5 if ours & theirs else 0.0


def links_between(a: Blueprint, b: Blueprint) -> list[Link]:
    """Links only where a real workflow relates the two: related domains, the same kind of value, and
    for people, companies and addresses the same role on both sides (the same entity in both)."""
    aff = affinity(a, b)
    if aff < 0.6:
        return []
    out = []
    ops = {op.name: op for op in b.operations}
    for entity, fld, kind in sources(a):
        for op, target, want in sinks(b):
            if kind != want:
                continue
            if kind in ("date", "datetime") and (aff < 1.0 or not set(fld.split("_")) - {"date", "at", "on"} &
                                                 set(target.split("_")) or not roles(entity) & roles(ops[op].entity)):
                continue  # a date carries over only within a domain, between fields named alike, for one role
            fit = role_fit(entity, ops[op].entity, target, fld) if kind in IDENTITY else 1.0
            if kind in IDENTITY and (fit == 0.0 or (fit < 1.5 and aff < 1.0)):
                continue  # an identity travels between records of one role (or of unnamed roles in one domain)
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
