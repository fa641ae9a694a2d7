"""What each tool parameter takes, in words: format, unit, allowed values, where an id comes from.

The generated tools.json beside app.py holds it as `parameters` ({operation: {parameter: text}}); the runtime
puts each text in the tool's input schema as that parameter's `description` (envcraft_runtime/mcp_adapter.py), because
agents read the schema, not the docstring. The signatures, and so the schemas' types, stay as they are.
"""

from __future__ import annotations

from envcraft.generator.compile.appcode import params_of
from envcraft.generator.compile.extras import Extra, extras, group_fields
from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec

FORMATS = {
    "date": "a date as YYYY-MM-DD",
    "datetime": "a time as YYYY-MM-DDTHH:MM (24-hour)",
    "email": "an email address",
    "bool": "true or false",
    "list_str": "a list of texts",
}


def _id_of(bp: Blueprint, entity: Entity) -> str:
    return f"the id of a {entity.name.replace('_', ' ')}, like {entity.id_prefix}-0001 (search first for it)"


def _range(spec: FieldSpec) -> str:
    if spec.type not in ("int", "float") or (spec.min is None and spec.max is None):
        return ""
    def shown(value: float) -> str:
        return str(int(value)) if float(value).is_integer() else str(value)
    if spec.min is not None and spec.max is not None:
        return f"from {shown(spec.min)} to {shown(spec.max)}"
    return f"at least {shown(spec.min)}" if spec.min is not None else f"at most {shown(spec.max)}"


def field_text(bp: Blueprint, spec: FieldSpec, search: bool = False) -> str:
    """One field's parameter: what the blueprint says it is, then its format or allowed values."""
    parts = [" ".join(spec.description.split()).rstrip(".")] if spec.description.strip() else []
    if spec.type == "ref" and spec.ref:
        parts.append(_id_of(bp, bp.entity(spec.ref)))
    elif spec.type == "enum":
        parts.append("one of: " + ", ".join(spec.values))
    elif spec.type in FORMATS:
        parts.append(FORMATS[spec.type])
    if spec.type in ("int", "float") and (bounds := _range(spec)):
        parts.append(bounds)
    if search:
        if spec.type in ("str", "text", "email"):
            parts.append("matches any part of the text, ignoring case")
        elif spec.type == "datetime":
            parts.append("or a date (YYYY-MM-DD) for the whole day")
        elif spec.type == "list_str":
            parts = [p for p in parts if p != FORMATS["list_str"]] + ["one text the list must hold"]
    return "; ".join(parts) or spec.name.replace("_", " ")


PAGING = {"limit": "how many rows to return at most (default 20)",
          "offset": "how many rows to skip, to read the next page (default 0)"}


def operation_notes(bp: Blueprint) -> dict[str, dict[str, str]]:
    notes: dict[str, dict[str, str]] = {}
    for op in bp.operations:
        entity = bp.entity(op.entity)
        mine: dict[str, str] = {}
        for param in params_of(bp, op):
            if param.spec is not None:
                mine[param.name] = field_text(bp, param.spec, search=op.kind == "search")
            elif param.name == f"{entity.name}_id":
                mine[param.name] = _id_of(bp, entity)
            elif param.name in PAGING:
                mine[param.name] = PAGING[param.name]
        notes[op.name] = mine
    for extra in extras(bp):
        notes.update(_extra_notes(bp, extra))
    return notes


def _extra_notes(bp: Blueprint, extra: Extra) -> dict[str, dict[str, str]]:
    if extra.kind == "report" and extra.entity:
        entity = bp.entity(extra.entity)
        fields = group_fields(entity)
        mine = {"group_by": "the field to count by; one of: " + ", ".join(f.name for f in fields)}
        mine.update({f.name: f"only rows with this value; {field_text(bp, f)}" for f in fields})
        return {extra.name: mine}
    if extra.kind == "bulk" and extra.entity:
        entity = bp.entity(extra.entity)
        return {extra.name: {f"{entity.name}_ids": f"the ids of the {entity.table.replace('_', ' ')} to change, "
                                                   f"like {entity.id_prefix}-0001"}}
    if extra.kind == "policies":
        return {extra.name: {"tool": "only the rules that apply to this tool (its name); none: every rule"}}
    if extra.kind == "history":
        tables = ", ".join(entity.table for entity in bp.entities)
        return {extra.name: {"table": f"only changes of this table; one of: {tables}",
                             "row_id": "only changes of the record with this id", **PAGING}}
    return {}
