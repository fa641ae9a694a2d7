"""The row a rule reads one or two references away, for the compiler, the audit and the task engine.

A check or condition names a `ref_field` (a ref of the operation's row) and, for two hops, `through`
(a ref of the operation's row whose row holds `ref_field`): the proctor shift's sitting, or the
assignment's shift's agency. `hops` lists the (entity, ref field) steps, `target` is the entity at the
end, `follow` walks the steps over plain tables and `expression` writes the walk as app.py code.
"""

from __future__ import annotations

from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity

Tables = dict[str, list[dict[str, Any]]]


def hops(bp: Blueprint, entity: Entity, ref_field: str, through: str | None = None) -> list[tuple[Entity, str]]:
    """[(entity, its ref field)] from the operation's row to the row read; KeyError/ValueError if a step is no ref."""
    steps, here = [], entity
    for name in ([through] if through else []) + [ref_field]:
        spec = here.field(name)
        if spec.type != "ref":
            raise ValueError(f"{here.name}.{name} is not a ref field")
        steps.append((here, name))
        here = bp.entity(spec.ref)
    return steps


def target(bp: Blueprint, entity: Entity, ref_field: str, through: str | None = None) -> Entity:
    last_entity, last_ref = hops(bp, entity, ref_field, through)[-1]
    return bp.entity(last_entity.field(last_ref).ref)


def follow(bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], ref_field: str,
           through: str | None = None) -> dict[str, Any] | None:
    """The row at the end of the path from `row` (None when a reference is empty or dangling)."""
    here: dict[str, Any] | None = row
    for step_entity, name in hops(bp, entity, ref_field, through):
        table = bp.entity(step_entity.field(name).ref).table
        wanted = here.get(name) if here else None
        here = next((r for r in tables.get(table, []) if wanted is not None and r.get("id") == wanted), None)
    return here


def expression(bp: Blueprint, entity: Entity, ref_field: str, through: str | None, lit) -> str:
    """app.py code for the id of the row at the end of the path, starting from the row as it would be (`_new`)."""
    steps = hops(bp, entity, ref_field, through)
    code = f"_new.get({lit(steps[0][1])})"
    for step_entity, name in steps[1:]:
        code = f"field_of(tables, {lit(step_entity.table)}, {code}, {lit(name)})"
    return code


def field_expression(bp: Blueprint, entity: Entity, ref_field: str, through: str | None, field: str, lit) -> str:
    """app.py code for `field` of the row at the end of the path."""
    other = target(bp, entity, ref_field, through)
    return f"field_of(tables, {lit(other.table)}, {expression(bp, entity, ref_field, through, lit)}, {lit(field)})"


__all__ = ["expression", "field_expression", "follow", "hops", "target"]


def ref_entity(bp: Blueprint, entity: Entity, field: str | None) -> Entity | None:
    """The entity a ref field of `entity` points at (None: no such ref field)."""
    spec = next((f for f in entity.fields if f.name == field), None)
    return bp.entity(spec.ref) if spec is not None and spec.type == "ref" else None
