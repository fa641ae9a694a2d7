"""Domain tools every environment gets from its blueprint without declaring them.

- `read_policies`: the environment's rules, the same records SKILL.md prints (general-kind
  environments have no files, so this is how their agents read the rules);
- `<entity>_report`: counts per value of a field (and sums of the numeric fields), with filters,
  for each entity that has something to group by: the aggregate questions real apps answer;
- `<transition>_many`: a closing transition (to an inactive state, no arguments) for several
  records at once, all or none: each record passes the same rules, and a refusal names the one
  that blocks the batch;
- `list_changes`: the change history (who changed which field of which record, when, from what to
  what), newest first, of one table or one record; the runtime logs every write
  (envcraft_runtime.history), and no tool writes the log.

The runtime makes them (envcraft_runtime/derived.py) from what tools.json beside app.py says of them
(generator/compile/appfile.py `tools_json`): no app.py holds their code. The task engine builds its chains from
the blueprint's own operations, so these never change what a task's gold does; they are listed in the
manifest as domain tools and audited like the others (generator/audit/audit.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec
from envcraft.generator.model.fields import INACTIVE


@dataclass(frozen=True)
class Extra:
    name: str
    kind: str  # policies | report | bulk | history
    description: str
    entity: str | None = None
    operation: str | None = None  # bulk: the single-record transition it repeats

    @property
    def writes(self) -> bool:
        return self.kind == "bulk"


def group_fields(entity: Entity) -> list[FieldSpec]:
    """Fields a report may group by: enums, bools and references."""
    return [f for f in entity.fields if f.type in ("enum", "bool", "ref")]


def sum_fields(entity: Entity) -> list[FieldSpec]:
    return [f for f in entity.fields if f.type in ("int", "float")]


READ_POLICIES = ("List this app's rules: id, category, text, the tools each guards, and whether the tools enforce it; "
                 "optionally only one tool's.")
# read_policies' docstring (envcraft_runtime/derived.py) says the same of its `tool` filter
READ_POLICIES_FILTER = "Give `tool` to see only the rules of one tool."


def extras(bp: Blueprint) -> list[Extra]:
    names = {op.name for op in bp.operations}
    out = [Extra("read_policies", "policies", READ_POLICIES)]
    for entity in bp.entities:
        report = f"{entity.name}_report"
        if group_fields(entity) and report not in names:
            sums = ", ".join(f.name for f in sum_fields(entity))
            out.append(Extra(report, "report", f"Count {entity.table.replace('_', ' ')} per value of a field"
                             + (f" with totals of {sums}" if sums else "") + "; optional filters narrow the rows.",
                             entity.name))
    for op in bp.operations:
        bulk = f"{op.name}_many"
        if op.kind == "transition" and not op.params and op.to_status in INACTIVE and bulk not in names \
                and len(bulk) <= 64:
            label = op.description.strip().rstrip(".")
            out.append(Extra(bulk, "bulk", f"{label}, for several {bp.entity(op.entity).table.replace('_', ' ')} at once: "
                             "all of them or none (a refusal names the record that blocks the batch).", op.entity, op.name))
    if "list_changes" not in names:
        out.append(Extra("list_changes", "history", "List the change history, newest first: when, by whom, which "
                                                    "field of which record changed, from what to what; optionally "
                                                    "of one table or one record."))
    return out


def domain_tool_names(bp: Blueprint) -> list[str]:
    """Every domain tool the server offers: the blueprint's operations, then the derived ones."""
    return [op.name for op in bp.operations] + [extra.name for extra in extras(bp)]
