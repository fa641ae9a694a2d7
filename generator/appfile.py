"""Write a blueprint's app.py from templates/app.py.jinja: header, enum types, record classes, one
function per operation (values from generator/opcode.py) and the derived tools (generator/extras.py).

The helpers the operations share live once in the runtime (envcraft_runtime.arguments, .rules and
.records); app.py imports only the names its code refers to. Text from the blueprint reaches the
module as string literals, or in docstrings and comments only after escaping (generator/appcode.py).
"""

from __future__ import annotations

import ast
import textwrap
from typing import Any

from envcraft.generator.appcode import (
    PY_TYPES,
    WIDTH,
    check,
    docline,
    enum_alias,
    enum_const,
    nullable,
    page_class,
    record_class,
)
from envcraft.generator.blueprint import Blueprint, Entity, FieldSpec
from envcraft.generator.extras import Extra, extras, group_fields, sum_fields
from envcraft.generator.opcode import OperationView, operation_view, rows_values
from envcraft.generator.parameters import operation_notes
from envcraft.generator.render import render_python
from envcraft_runtime import arguments, history, records, rules

# What app.py may import, by module: only the names its code uses are imported.
IMPORTABLE = {"typing": ("Any", "Literal", "get_args"),
              "envcraft_runtime": ("Tables", "ToolFailure", "find_row", "next_id", "read", "write"),
              "envcraft_runtime.arguments": tuple(arguments.__all__),
              "envcraft_runtime.history": tuple(history.__all__),
              "envcraft_runtime.records": tuple(records.__all__), "envcraft_runtime.rules": tuple(rules.__all__)}


def annotation(bp: Blueprint, entity: Entity, spec: FieldSpec) -> str:
    return enum_alias(bp, entity, spec) if spec.type == "enum" else PY_TYPES[spec.type]


def record_values(bp: Blueprint, entity: Entity) -> dict[str, Any]:
    fields = [(spec.name, annotation(bp, entity, spec) + (" | None" if nullable(bp, entity, spec) else ""),
               spec.description.strip()) for spec in entity.fields]
    searchable = any(op.kind == "search" and op.entity == entity.name for op in bp.operations)
    return {"cls": record_class(entity), "description": entity.description.strip(), "fields": fields,
            "page": page_class(entity) if searchable else None, "rows": entity.table.replace("_", " ")}


def doc(text: str, *tail: str) -> list[str]:
    """A docstring's lines: the text wrapped, then (after a blank line) the `tail` lines if any."""
    return textwrap.wrap(docline(text), WIDTH - 4) + (["", *tail] if tail else [])


def report_values(bp: Blueprint, extra: Extra) -> dict[str, Any]:
    entity = bp.entity(extra.entity)
    groups = [(spec.name, annotation(bp, entity, spec), enum_const(entity, spec) if spec.type == "enum" else None)
              for spec in group_fields(entity)]
    return {"name": extra.name, "table": entity.table, "groups": groups, "choices": [name for name, _, _ in groups],
            "sums": [spec.name for spec in sum_fields(entity)],
            "doc": doc(extra.description, "Filters must match exactly. Groups come largest first; `totals` sums each "
                                          "numeric field.")}


def batch_values(bp: Blueprint, extra: Extra) -> dict[str, Any]:
    entity = bp.entity(extra.entity)
    return {"name": extra.name, "ids": f"{entity.name}_ids", "record": record_class(entity),
            "operation": extra.operation, "doc": doc(extra.description)}


def template_values(bp: Blueprint) -> dict[str, Any]:
    sections: dict[str, list[OperationView]] = {}
    for op in bp.operations:
        sections.setdefault(bp.entity(op.entity).table, []).append(operation_view(bp, op))
    derived = extras(bp)
    return {
        "title": bp.title, "description": bp.description, "env_id": bp.id, "today": bp.today,
        "scenario": textwrap.wrap(docline(" ".join(bp.scenario.split())), WIDTH - 8),
        "cli": bp.cli or bp.id.replace("_", "-"),
        "enums": [{"alias": enum_alias(bp, entity, spec), "const": enum_const(entity, spec), "choices": spec.values}
                  for entity in bp.entities for spec in entity.fields if spec.type == "enum"],
        "records": [record_values(bp, entity) for entity in bp.entities],
        "rows": rows_values(bp),
        "sections": [(entity.table, sections[entity.table]) for entity in bp.entities if entity.table in sections],
        "reports": [report_values(bp, extra) for extra in derived if extra.kind == "report"],
        "batches": [batch_values(bp, extra) for extra in derived if extra.kind == "bulk"],
        "history": next(({"name": extra.name, "tables": [entity.table for entity in bp.entities],
                          "doc": doc(extra.description, "Each entry is one field of one record (field \"*\": the record",
                                     "was created or deleted); changes made through these tools are by \"assistant\".")}
                         for extra in derived if extra.kind == "history"), None),
        "operations": [op.name for op in bp.operations] + [extra.name for extra in derived],
        "parameters": operation_notes(bp),
    }


def imports(source: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(typing names, [(runtime module, names)]) that `source` refers to: never a word in a docstring,
    a comment or a string, so nothing is imported that the code does not use."""
    used = {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
    chosen = {module: sorted((n for n in names if n in used), key=lambda n: (not n[0].isupper(), n))
              for module, names in IMPORTABLE.items()}
    return chosen.pop("typing"), [(module, names) for module, names in chosen.items() if names]


def render_app(bp: Blueprint) -> str:
    check(bp)
    values = template_values(bp)
    draft = render_python("app.py.jinja", typing=[], imports=[], **values)  # only to see which names it uses
    typing_names, runtime = imports(draft)
    return render_python("app.py.jinja", typing=typing_names, imports=runtime, **values)
