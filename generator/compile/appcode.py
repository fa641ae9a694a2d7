"""Render a blueprint's domain operations as app.py: explicit, readable Python like servers/office/app.py.

One dataclass per entity (typed output schemas), one function per operation tagged `@read` or
`@write`, typed parameters (enums as Literal types), and validation that raises `ToolFailure` with a
message that tells the agent what to do. Every check runs before any change, so a failed write
changes nothing even outside a Store transaction. The helpers the functions share live once in the
runtime (envcraft_runtime.arguments, .rules, .records), and each app.py imports the ones it calls.
"""

from __future__ import annotations

import json
import keyword
import textwrap
from dataclasses import dataclass

from envcraft.generator.model.blueprint import Blueprint, Condition, Entity, FieldSpec, Operation, Precondition
from envcraft.generator.model.refpath import target
from envcraft.generator.rules.registry import kind
from envcraft.generator.seeds.seed import time_pairs
from envcraft_runtime import arguments, records, rules

PY_TYPES = {"str": "str", "text": "str", "email": "str", "enum": "str", "ref": "str", "date": "str",
            "datetime": "str", "int": "int", "float": "float", "bool": "bool", "list_str": "list[str]"}
RESERVED = {"id"}  # the row id is not a field
# The runtime helpers an app.py may import (module-level names it must not shadow).
HELPERS = frozenset(arguments.__all__) | frozenset(records.__all__) | frozenset(rules.__all__)
# Parameter names the runtime's adapters use themselves (envcraft_runtime.call_operation(store, op, ...), run_cli's
# `verb` and `--help`), the generated signatures do (`tables`, and `limit` in searches) or a helper has
# (a parameter named `holds` would hide the helper inside its function): such a field's parameter gets a trailing "_".
CLASHES = {"store", "op", "verb", "help", "tables"} | HELPERS
WIDTH = 112


class BlueprintError(ValueError):
    """The blueprint is valid YAML and passes the model, but cannot be compiled as written."""


@dataclass(frozen=True)
class Param:
    name: str  # the parameter name the agent sees
    annotation: str
    required: bool
    default: str = "None"
    spec: FieldSpec | None = None  # the field it sets or filters, if any


def pyname(field: str, kind: str = "") -> str:
    """The parameter name of a field in an operation of this kind."""
    return field + "_" if field in CLASHES or (field in ("limit", "offset") and kind == "search") else field


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def lit(value: object) -> str:
    """A Python literal; strings as double-quoted JSON, which is valid Python."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float) and value.is_integer():
        return repr(int(value))
    return repr(value)


TAKEN = {"Tables", "ToolFailure", "Any", "Literal"} | {name for name in HELPERS if name[0].isupper()}  # names app.py imports


def docline(text: str) -> str:
    """Text safe inside a triple-double-quoted docstring or a comment: one line, backslashes doubled,
    no closing quotes (blueprint text reaches code only this way or as a literal)."""
    text = " ".join(str(text).split()).replace("\\", "\\\\").replace('"""', "'''")
    return text + " " if text.endswith('"') else text


def record_class(entity: Entity) -> str:
    """The dataclass of an entity's rows."""
    name = camel(entity.name)
    return name + "Record" if name in TAKEN else name


def page_class(entity: Entity) -> str:
    return record_class(entity) + "Page"


def enum_alias(bp: Blueprint, entity: Entity, spec: FieldSpec) -> str:
    name = camel(entity.name) + camel(spec.name)
    return name + "Value" if name in {record_class(e) for e in bp.entities} | TAKEN else name


def enum_const(entity: Entity, spec: FieldSpec) -> str:
    return f"{entity.name}_{spec.name}".upper()


def rows_const(bp: Blueprint, entity: Entity) -> str:
    """The module constant through which operations look up the entity's rows (envcraft_runtime.records.Rows)."""
    name = entity.table.upper()
    taken = {enum_const(e, spec) for e in bp.entities for spec in e.fields if spec.type == "enum"} | \
        {"TODAY", "POLICIES", "OPERATIONS", "OPERATION_NAMES"} | HELPERS
    return name + "_ROWS" if name in taken else name


def check(bp: Blueprint) -> None:
    """Raise BlueprintError for what the model accepts but Python or the semantics cannot."""
    problems = []
    for entity in bp.entities:
        for spec in entity.fields:
            if keyword.iskeyword(spec.name) or spec.name in RESERVED:
                problems.append(f"{entity.name}.{spec.name}: '{spec.name}' cannot be a field name (Python keyword or reserved)")
        if len({f.name for f in entity.fields}) != len(entity.fields):
            problems.append(f"{entity.name}: two fields share a name")
    if len({e.table for e in bp.entities}) != len(bp.entities) or len({e.id_prefix for e in bp.entities}) != len(bp.entities):
        problems.append("two entities share a table name or an id_prefix")
    for op in bp.operations:
        if op.name in HELPERS:
            problems.append(f"{op.name}: the runtime helper of that name would be hidden; rename the operation")
        entity = bp.entity(op.entity)
        names = {f.name for f in entity.fields}
        if f"{entity.name}_id" in names and op.kind in ("get", "update", "transition", "delete"):
            problems.append(f"{op.name}: {entity.name} has a field named {entity.name}_id, which clashes with the id parameter")
        for pre in op.preconditions:
            problems += precondition_problems(bp, op, pre)
        for eff in op.effects:
            ref = entity.field(eff.ref_field) if eff.ref_field in names else None
            if ref is None or ref.type != "ref":
                problems.append(f"{op.name}: effect ref_field {eff.ref_field!r} must be a ref field of {entity.name}")
                continue
            target = bp.entity(ref.ref)
            if eff.field not in {f.name for f in target.fields}:
                problems.append(f"{op.name}: effect field {eff.field!r} is not a field of {target.name}")
                continue
            if eff.by_argument is not None and eff.by_argument not in names:
                problems.append(f"{op.name}: effect by_argument {eff.by_argument!r} is not a field of {entity.name}")
            if eff.kind == "adjust" and (eff.by_argument is None or target.field(eff.field).type not in ("int", "float")):
                problems.append(f"{op.name}: adjust needs by_argument and a numeric {target.name}.{eff.field}")
            if eff.kind == "set" and eff.by_argument is None and eff.value is None:
                problems.append(f"{op.name}: set needs by_argument or value")
            tspec = target.field(eff.field)
            if eff.kind == "set" and eff.value is not None and tspec.type == "enum" and eff.value not in tspec.values:
                problems.append(f"{op.name}: set {target.name}.{eff.field} = {eff.value!r}, not one of {tspec.values}")
        if op.kind == "update" and not op.params:
            problems.append(f"{op.name}: an update needs params (the fields it may change)")
    if problems:
        raise BlueprintError(f"{bp.id}: " + "; ".join(problems))


def precondition_problems(bp: Blueprint, op: Operation, pre: Precondition) -> list[str]:
    """What makes a precondition impossible to compile against this operation's entity."""
    entity = bp.entity(op.entity)
    names = {f.name for f in entity.fields}
    where = f"{op.name}: {pre.kind}" + (f" (policy {pre.policy})" if pre.policy else "")
    rule = kind(pre.kind)
    missing = [a for a in rule.needs if getattr(pre, a) is None]
    if missing:
        return [f"{where} needs {', '.join(missing)}"]
    problems = []
    related = rule.related_rows  # `field` names one of theirs
    own = ("field", "ref_field", "start", "end", "resource", "than", "through") \
        if not related else ("ref_field", "resource", "than", "at") if pre.at \
        else ("ref_field", "start", "end", "resource", "than")
    for attr in own:
        value = getattr(pre, attr)
        if attr == "ref_field" and pre.through:
            continue  # a field of the row `through` points at: checked with the path below
        if value is not None and value not in names:
            problems.append(f"{where} names {attr} {value!r}, not a field of {entity.name}")
    problems += _condition_problems(bp, entity, pre, where)
    if problems:
        return problems
    if rule.reads_ref_path(pre):
        try:
            other = target(bp, entity, pre.ref_field, pre.through)
        except (KeyError, ValueError) as exc:
            return [f"{where}: the path {pre.through or ''} {pre.ref_field} is not a chain of refs ({exc})"]
        if pre.other_field not in {f.name for f in other.fields}:
            return [f"{where} other_field {pre.other_field!r} is not a field of {other.name}"]
    if related:
        if pre.entity not in {e.name for e in bp.entities}:
            return [f"{where} names unknown entity {pre.entity!r}"]
        other = bp.entity(pre.entity)
        theirs = {f.name for f in other.fields}
        if not pre.match:
            problems.append(f"{where} needs `match` (their field: our field)")
        for their, ours in pre.match.items():
            if their not in theirs and their != "id":
                problems.append(f"{where} match names {their!r}, not a field of {other.name}")
            if ours not in names and ours != "id":
                problems.append(f"{where} match names {ours!r}, not a field of {entity.name}")
        if pre.field is not None and pre.field not in theirs:
            problems.append(f"{where} names field {pre.field!r}, not a field of {other.name}")
        problems += rule.related_problems(other, entity, pre, where)
    problems += _unknown_values(bp, op, pre)
    problems += rule.problems(bp, op, entity, pre, where)
    return problems


def _condition_entity(bp: Blueprint, entity: Entity, cond: Condition) -> Entity:
    """The entity whose field a `when` condition reads: the operation's own, or the referenced row's."""
    return target(bp, entity, cond.ref_field, cond.through) if cond.ref_field else entity


def _condition_problems(bp: Blueprint, entity: Entity, pre: Precondition, where: str) -> list[str]:
    problems = []
    for cond in pre.conditions:
        try:
            mine = _condition_entity(bp, entity, cond)
        except (KeyError, ValueError) as exc:
            problems.append(f"{where}: `when` reads {cond.through or ''} {cond.ref_field}, not a chain of refs ({exc})")
            continue
        if cond.field not in {f.name for f in mine.fields}:
            problems.append(f"{where}: `when` names {cond.field!r}, not a field of {mine.name}")
    return problems


def _unknown_values(bp: Blueprint, op: Operation, pre: Precondition) -> list[str]:
    """Enum values a check names that its field does not have: such a rule would refuse everything."""
    entity = bp.entity(op.entity)
    pairs = []
    pairs = kind(pre.kind).named_values(bp, entity, pre)
    pairs += [(_condition_entity(bp, entity, cond).field(cond.field), cond.values) for cond in pre.conditions
              if cond.op in ("in", "not_in")]
    return [f"{op.name}: {pre.kind} names {v!r}, not a value of {spec.name} ({', '.join(spec.values)})"
            for spec, given in pairs if spec.type == "enum" for v in given if v not in spec.values]


# ---------------------------------------------------------------- signatures


def fill_default(entity: Entity, spec: FieldSpec) -> object:
    """What a created row holds for a field the caller did not give."""
    if spec.optional:
        return None
    if spec.type == "enum":
        return spec.values[0]
    return {"bool": False, "list_str": []}.get(spec.type)


def nullable(bp: Blueprint, entity: Entity, spec: FieldSpec) -> bool:
    if spec.optional:
        return True
    return fill_default(entity, spec) is None and any(
        op.entity == entity.name and op.kind == "create" and spec.name not in op.required for op in bp.operations)


def params_of(bp: Blueprint, op: Operation) -> list[Param]:
    """The operation's parameters after `tables`, required ones first (Python's rule)."""
    entity = bp.entity(op.entity)
    params: list[Param] = []
    if op.kind in ("get", "update", "transition", "delete"):
        params.append(Param(f"{entity.name}_id", "str", True))
    if op.kind in ("get", "delete"):
        return params
    names = list(op.params) + [r for r in op.required if r not in op.params]
    for name in names:
        spec = entity.field(name)
        base = enum_alias(bp, entity, spec) if spec.type == "enum" else PY_TYPES[spec.type]
        if op.kind == "search":
            base = "str" if spec.type == "list_str" else base
            params.append(Param(pyname(name, op.kind), f"{base} | None", False, spec=spec))
        else:
            required = name in op.required
            params.append(Param(pyname(name, op.kind), base if required else f"{base} | None", required, spec=spec))
    if op.kind == "search":
        params += [Param("limit", "int", False, "20"), Param("offset", "int", False, "0")]
    return [p for p in params if p.required] + [p for p in params if not p.required]


def doc_lines(bp: Blueprint, op: Operation) -> list[str]:
    """The operation's docstring, line by line: its description, then (after a blank line) the
    conventions of its arguments. Escaped for a docstring (see `docline`)."""
    entity = bp.entity(op.entity)
    notes = []
    if op.kind == "search":
        text = [pyname(p, op.kind) for p in op.params if entity.field(p).type in ("str", "text", "email")]
        if text:
            verb = "matches" if len(text) == 1 else "match"
            notes.append(f"{', '.join(text)} {verb} any part of the text, ignoring case; other filters must match exactly.")
        if any(entity.field(p).type == "datetime" for p in op.params):
            notes.append("A time filter also takes a date (YYYY-MM-DD) to match a whole day.")
        notes.append("Returns at most `limit` rows in id order from `offset`, the total, and a note saying how to get "
                     "the rest when results were cut.")
    elif op.kind != "get":
        days = [pyname(p, op.kind) for p in op.params if entity.field(p).type == "date"]
        times = [pyname(p, op.kind) for p in op.params if entity.field(p).type == "datetime"]
        if days:
            notes.append(f"{', '.join(days)}: dates as YYYY-MM-DD.")
        if times:
            notes.append(f"{', '.join(times)}: times as YYYY-MM-DDTHH:MM (24-hour).")
    body = [op.description.strip()] + ([""] + textwrap.wrap(" ".join(notes), WIDTH - 4) if notes else [])
    return [docline(line) for line in body]


def starts_and_ends(bp: Blueprint, entity: Entity, touched: set[str]) -> list[tuple[str, str]]:
    """(start, end) field pairs of the entity where the operation sets either side."""
    return [(start, end) for end, start in time_pairs(bp, entity).items() if start in touched or end in touched]


def precondition_subject(op: Operation, pre: Precondition) -> str:
    """A state guard looks at the row as it is; everything else at the row as it would be."""
    return "_row" if kind(pre.kind).reads_row_as_is and op.kind != "create" else "_new"
