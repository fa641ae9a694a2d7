"""Rows that claim the row they refer to: at most one live claim each, and never on a row that is free again.

A create claims a referenced row when it needs that row in some statuses and moves it out of them (a lease
offer needs an available unit and makes it pending). The tools then allow at most one live claim per row,
and a row that is free again (available) has no live claim: a unit is not offered twice, and an available
unit has no sent or signed offer. The seed's rule repair re-picks an offer's pair among the approved
applications, which piles the offers onto a few units; `settle` lets the extra claims lapse (an expired offer)
rather than move a referenced row, so no row's rules or the choices a write has change.

    claim_breaks(bp, tables) -> ["rental_unit unt-0028 has 3 live lease_offers: lof-0001, lof-0003, lof-0008", ...]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity
from envcraft.generator.model.fields import INACTIVE
from envcraft.generator.rules.registry import kind

Tables = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class Claim:
    child: Entity  # the claiming rows (lease_offer)
    ref_field: str  # their reference to the claimed row (rental_unit_id)
    parent: Entity  # the claimed rows (rental_unit)
    free: tuple[str, ...]  # the parent statuses the create needs (available): a parent in one has no live claim
    claimed: str  # the status the create moves the parent to (pending)
    lapsed: str  # the child status a claim that should not be live takes (expired)


def claims(bp: Blueprint) -> list[Claim]:
    """The claims a blueprint's creates make. Not those whose rows other rows refer to (a grant award with its
    disbursements): letting one lapse would break the rules of the rows that point at it."""
    referred = {f.ref for e in bp.entities for f in e.fields if f.type == "ref"}
    out = []
    for op in bp.operations:
        child = bp.entity(op.entity)
        if op.kind != "create" or not child.status_field or child.name in referred:
            continue
        lapsed = next((v for v in child.field(child.status_field).values if v in INACTIVE), None)
        for effect in op.effects:
            spec = next((f for f in child.fields if f.name == effect.ref_field and f.type == "ref"), None)
            parent = bp.entity(spec.ref) if spec else None
            if parent is None or effect.kind != "set" or effect.field != parent.status_field or lapsed is None:
                continue
            free = next((tuple(p.values) for p in op.preconditions if kind(p.kind).ref_values
                         and p.ref_field == effect.ref_field and p.other_field == parent.status_field), ())
            if free and effect.value not in free:
                out.append(Claim(child, effect.ref_field, parent, free, effect.value, lapsed))
    return out


def _live(claim: Claim, tables: Tables) -> dict[Any, list[dict[str, Any]]]:
    by_parent: dict[Any, list[dict[str, Any]]] = {}
    for row in tables.get(claim.child.table, []):
        if row.get(claim.child.status_field) not in INACTIVE and row.get(claim.ref_field) is not None:
            by_parent.setdefault(row[claim.ref_field], []).append(row)
    return by_parent


def _keep(claim: Claim, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The one claim that stays live: the one furthest along (a signed offer before a sent one)."""
    order = list(claim.child.field(claim.child.status_field).values)
    return max(rows, key=lambda r: (order.index(r[claim.child.status_field]), r["id"]))


def claim_breaks(bp: Blueprint, tables: Tables) -> list[str]:
    found = []
    for claim in claims(bp):
        parents = {r["id"]: r for r in tables.get(claim.parent.table, [])}
        for pid, rows in sorted(_live(claim, tables).items()):
            parent = parents.get(pid)
            status = parent.get(claim.parent.status_field) if parent else None
            ids = ", ".join(r["id"] for r in rows)
            if status in claim.free:
                found.append(f"{claim.parent.name} {pid} is {status} but has live {claim.child.table}: {ids}")
            elif len(rows) > 1:
                found.append(f"{claim.parent.name} {pid} has {len(rows)} live {claim.child.table}: {ids}")
    return found


def settle(bp: Blueprint, tables: Tables) -> None:
    """Let every claim lapse but the one each claimed row keeps (see `_keep`); a free row with a live claim
    shows the claim's effect (the unit of a live offer is pending, as the offer made it)."""
    for claim in claims(bp):
        parents = {r["id"]: r for r in tables.get(claim.parent.table, [])}
        for pid, rows in _live(claim, tables).items():
            keep = _keep(claim, rows)
            for row in rows:
                if row is not keep:
                    row[claim.child.status_field] = claim.lapsed
            parent = parents.get(pid)
            if parent is not None and parent.get(claim.parent.status_field) in claim.free:
                parent[claim.parent.status_field] = claim.claimed
