"""Cross-environment relations: which of our fields may be filled from a record another environment keeps.

A value crosses from environment B into environment A only where both blueprints say so:

    # lab_result_alerts.yaml (A: the field written)
    references:
      - entity: result_alert
        from: nurse_agency_staffing.agency_nurse
        fields: {read_back_by: name}     # our field: their field
        why: an agency nurse on shift takes the lab's critical-value call and reads it back

    # nurse_agency_staffing.yaml (B: the record read)
    referenced_by:
      - entity: agency_nurse
        by: lab_result_alerts.result_alert

Nothing is inferred from field names: a bakery never becomes a rental-car payee because both are
"companies". `relation_errors(blueprints)` rejects a one-sided or unknown declaration; `load_all` calls it.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

QUALIFIED = r"^[a-z][a-z0-9_]{2,40}\.[a-z][a-z0-9_]{0,40}$"  # <environment id>.<entity>
STRINGS = {"str", "text", "email"}  # field types one free-text value can move between


class _Across(BaseModel):
    """One side of a relation: our `entity` and the other environment's `<env>.<entity>` (`other`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    entity: str = Field(pattern=r"^[a-z][a-z0-9_]{0,40}$")

    @property
    def other(self) -> str:
        raise NotImplementedError

    @property
    def env(self) -> str:
        return self.other.split(".")[0]

    @property
    def their_entity(self) -> str:
        return self.other.split(".")[1]


class Reference(_Across):
    """Fields of our `entity` a write may fill from a record of another environment's entity."""

    source: str = Field(alias="from", pattern=QUALIFIED)  # <env>.<entity> the value is read from
    fields: dict[str, str] = Field(min_length=1)  # our field -> their field holding the value
    why: str = Field(min_length=10, max_length=200, pattern=r"^[^\x00-\x1f\x7f]*$")  # the real-world reason

    @property
    def other(self) -> str:
        return self.source


class ReferencedBy(_Across):
    """Our `entity` may be the record another environment's entity takes values from."""

    by: str = Field(pattern=QUALIFIED)  # <env>.<entity> whose fields take the values

    @property
    def other(self) -> str:
        return self.by


class Blueprint(Protocol):
    """What the checks read of a blueprint (blueprint.py imports this module, so not the class itself)."""

    id: str
    entities: list[Any]
    operations: list[Any]
    invariants: list[Any]
    references: list[Reference]
    referenced_by: list[ReferencedBy]


def own_errors(bp: Blueprint) -> list[str]:
    """What one blueprint can check alone: its entities and fields exist, a write sets each referenced field,
    and no field with a declared vocabulary (a pool_by invariant) takes a record from elsewhere."""
    entities = {e.name: e for e in bp.entities}
    pooled = {(inv.entity, inv.field) for inv in bp.invariants if inv.kind == "pool_by"}
    errors = []
    seen = set()
    for ref in bp.references:
        where = f"{bp.id}: references {ref.entity} <- {ref.source}"
        if (ref.entity, ref.source) in seen:
            errors.append(f"{where}: declared twice; merge the two entries' fields")
        seen.add((ref.entity, ref.source))
        if ref.entity not in entities:
            errors.append(f"{where}: no entity {ref.entity!r} here")
            continue
        written = {name for op in bp.operations if op.entity == ref.entity and op.kind in ("create", "update", "transition")
                   for name in op.params + op.required}
        for ours in ref.fields:
            if ours not in {f.name for f in entities[ref.entity].fields}:
                errors.append(f"{where}: {ref.entity} has no field {ours!r}")
            elif ours not in written:
                errors.append(f"{where}: no create, update or transition of {ref.entity} sets {ours!r}")
            elif (ref.entity, ours) in pooled:
                errors.append(f"{where}: {ref.entity}.{ours} takes its values from a declared vocabulary (pool_by), "
                              "not from another environment; drop it from `fields`")
    for shared in bp.referenced_by:
        if shared.entity not in entities:
            errors.append(f"{bp.id}: referenced_by names no entity of ours: {shared.entity!r}")
        elif not any(op.kind == "search" and op.entity == shared.entity for op in bp.operations):
            errors.append(f"{bp.id}: referenced_by {shared.entity}: no search operation finds it, so no agent can read it")
    return errors


def relation_errors(blueprints: list[Blueprint]) -> list[str]:
    """Every declaration the catalog cannot honour: an unknown environment, entity or field on the other side,
    incompatible field types, or a relation only one side declares (each error says what to add)."""
    by_id = {bp.id: bp for bp in blueprints}
    errors = [e for bp in blueprints for e in own_errors(bp)]
    for bp in blueprints:
        for ref in bp.references:
            where = f"{bp.id}: references {ref.entity} <- {ref.source}"
            other = by_id.get(ref.env)
            if other is None:
                errors.append(f"{where}: no environment {ref.env!r} (generator/blueprints/{ref.env}.yaml)")
                continue
            theirs = {e.name: e for e in other.entities}.get(ref.their_entity)
            if theirs is None:
                errors.append(f"{where}: {ref.env} has no entity {ref.their_entity!r}")
                continue
            fields = {f.name: f for f in theirs.fields}
            ours = {f.name: f for e in bp.entities if e.name == ref.entity for f in e.fields}
            for mine, their in ref.fields.items():
                if their not in fields:
                    errors.append(f"{where}: {ref.source} has no field {their!r}")
                elif mine in ours and not _compatible(ours[mine].type, fields[their].type):
                    errors.append(f"{where}: {ref.entity}.{mine} is {ours[mine].type} but {ref.source}.{their} is "
                                  f"{fields[their].type}")
            if not any(s.entity == ref.their_entity and s.by == f"{bp.id}.{ref.entity}" for s in other.referenced_by):
                errors.append(f"{where}: one-sided; {ref.env}.yaml must declare it too: `referenced_by: "
                              f"[{{entity: {ref.their_entity}, by: {bp.id}.{ref.entity}}}]`")
        for shared in bp.referenced_by:
            where = f"{bp.id}: referenced_by {shared.entity} -> {shared.by}"
            other = by_id.get(shared.env)
            if other is None:
                errors.append(f"{where}: no environment {shared.env!r} (generator/blueprints/{shared.env}.yaml)")
            elif not any(r.entity == shared.their_entity and r.source == f"{bp.id}.{shared.entity}"
                         for r in other.references):
                errors.append(f"{where}: one-sided; {shared.env}.yaml declares no `references` entry for "
                              f"{shared.their_entity} from {bp.id}.{shared.entity} (say which fields and why, or drop this)")
    return errors


def _compatible(ours: str, theirs: str) -> bool:
    return ours == theirs or (ours in STRINGS and theirs in STRINGS)
