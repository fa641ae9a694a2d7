"""Blueprint: the typed, reviewable description of an environment, from which everything is generated.

A blueprint is a YAML file in generator/blueprints/. The compiler turns it into a standalone MCP
server folder shaped like the hand-written reference (servers/office/); the task engine reads its
operations to build the tool graph. Nothing else describes an environment.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Literal

import yaml
from envcraft.generator.model.entity import (
    IDENT,
    MONTHS,
    ONE_LINE,
    WEEKDAYS,
    Comparison,
    Entity,
    FieldSpec,
    Strict,
    typed,
)
from envcraft.generator.model.precondition import Aggregate, Condition, Precondition, Through, options_name_fields
from envcraft.generator.model.relations import Reference, ReferencedBy, own_errors, relation_errors
from pydantic import BaseModel, Field, model_validator

ARCHETYPES = (
    "transactional_workspace", "cross_tool_pipeline", "human_agent_interaction", "asynchronous_events",
    "constraint_guided_state_machine", "multi_resource_temporal_scheduling", "multi_criteria_bilateral_matching",
    "workflow_orchestration", "fault_tolerant_stream_processing",
)
Archetype = Literal[
    "transactional_workspace", "cross_tool_pipeline", "human_agent_interaction", "asynchronous_events",
    "constraint_guided_state_machine", "multi_resource_temporal_scheduling", "multi_criteria_bilateral_matching",
    "workflow_orchestration", "fault_tolerant_stream_processing",
]
Kind = Literal["general", "claw_tool", "claw_workspace"]


POLICY_CATEGORIES = ("eligibility", "capacity", "time_window", "state_guard", "threshold", "approval", "role_limit",
                     "uniqueness", "consistency", "side_effect", "judgement")


class Policy(Strict):
    """A business rule, stated once. A `check` becomes a precondition of every operation it names
    (the tool refuses, citing `id` and the blocking fact) and the same `rule` text is what SKILL.md,
    the server instructions and the policies tool say. Without a check a policy is either a declared
    side effect (`creates`: rows of that entity the named operations' workflow adds, which a grader
    must accept) or a rule deliberately left to judgement (the task's verifier checks it)."""

    id: str = Field(pattern=IDENT)
    category: Literal[POLICY_CATEGORIES]
    rule: str = Field(min_length=8, max_length=400, pattern=ONE_LINE)
    operations: list[str] = Field(default_factory=list)
    check: Precondition | None = None
    creates: str | None = Field(default=None, pattern=IDENT)  # side_effect: the entity whose rows may be added

    @model_validator(mode="after")
    def _shape(self) -> Policy:
        if self.category == "judgement" and self.check is not None:
            raise ValueError(f"policy {self.id}: a judgement rule has no check (give it a category to enforce it)")
        if self.category == "side_effect" and (self.creates is None or not self.operations):
            raise ValueError(f"policy {self.id}: a side effect names `operations` and the entity it `creates`")
        if self.category not in ("judgement", "side_effect") and (self.check is None or not self.operations):
            raise ValueError(f"policy {self.id}: an enforced rule needs a `check` and the `operations` it guards")
        return self


class Invariant(Strict):
    """Something every row of the world satisfies: the seed is repaired to it, and a task generator
    checks it after every gold (generator/seeds/invariants.py has the kinds)."""

    kind: Literal["order", "compare", "pool_by", "matches_ref", "derived", "email_of"]
    entity: str = Field(pattern=IDENT)
    field: str = Field(pattern=IDENT)
    than: str | None = Field(default=None, pattern=IDENT)  # order / compare: another field of the row
    strict: bool = False  # order: strictly after
    op: Comparison | None = None  # compare
    value: str | float | bool | None = None  # compare: a literal
    when: Condition | None = None  # compare / pool_by: only rows where this holds
    by: str | None = Field(default=None, pattern=IDENT)  # pool_by: the field that decides the pool (of the ref'd row with ref_field)
    pools: dict[str, list[str]] = Field(default_factory=dict)  # pool_by: value of `by` -> allowed values
    ref_field: str | None = Field(default=None, pattern=IDENT)  # matches_ref
    other_field: str | None = Field(default=None, pattern=IDENT)
    part: Literal["all", "date"] = "all"  # matches_ref: compare whole values or the day
    of: str | None = Field(default=None, pattern=IDENT)  # derived: the child entity
    via: str | None = Field(default=None, pattern=IDENT)  # derived: its ref field pointing at this row
    sum_of: str | None = Field(default=None, pattern=IDENT)  # derived: summed child field (None: a count)
    active_only: bool = False  # derived: skip children whose status is inactive
    name_field: str | None = Field(default=None, pattern=IDENT)  # email_of: the owner's name
    description: str = Field(default="", pattern=ONE_LINE)

    @model_validator(mode="after")
    def _shape(self) -> Invariant:
        needs = {"order": ("than",), "compare": ("op",), "pool_by": ("by",), "matches_ref": ("ref_field", "other_field"),
                 "derived": ("of", "via"), "email_of": ("name_field",)}[self.kind]
        missing = [n for n in needs if getattr(self, n) is None]
        if missing:
            raise ValueError(f"{self.kind} invariant on {self.entity}.{self.field} needs {', '.join(missing)}")
        if self.kind == "compare" and (self.value is None) == (self.than is None):
            raise ValueError(f"compare invariant on {self.entity}.{self.field} needs exactly one of value or than")
        return self


class Effect(Strict):
    """A change beyond the operation's own row: e.g. decrement stock on the referenced product."""

    kind: Literal["adjust", "set"]
    ref_field: str  # argument naming the other row
    field: str  # field on the other row
    by_argument: str | None = None  # adjust: add (sign * argument); set: the value of this argument
    sign: Literal[1, -1] = 1
    value: str | None = None  # set: a literal value


class Operation(Strict):
    """One domain verb. Kinds: search/get/list read; create/update/transition/delete write."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{2,63}$")
    kind: Literal["search", "get", "create", "update", "transition", "delete"]
    entity: str = Field(pattern=IDENT)
    description: str = Field(min_length=3, max_length=300, pattern=ONE_LINE)
    params: list[str] = Field(default_factory=list)  # search: filter fields; create/update: settable fields
    required: list[str] = Field(default_factory=list)  # create/update: params that must be given
    to_status: str | None = None  # transition: the new value of the entity's status_field
    preconditions: list[Precondition] = Field(default_factory=list)
    effects: list[Effect] = Field(default_factory=list)
    # A documented workflow side effect (a reply on every state change) is a `side_effect` policy, not a flag here.

    @property
    def writes(self) -> bool:
        return self.kind in ("create", "update", "transition", "delete")


class WorkspaceFile(Strict):
    path: str
    content: str | None = None  # a written document
    export: str | None = None  # or a CSV/JSON export of an entity's seed rows
    format: Literal["csv", "json", "md", "txt"] = "md"

    @model_validator(mode="after")
    def _one_source(self) -> WorkspaceFile:
        if (self.content is None) == (self.export is None):
            raise ValueError(f"file {self.path!r} needs exactly one of `content` or `export`")
        if self.path.startswith(("/", ".app")) or ".." in self.path.split("/"):
            raise ValueError(f"file {self.path!r} must be a relative path inside the workspace, outside .app/")
        return self


class Blueprint(Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]{2,40}$")
    title: str = Field(min_length=3, max_length=80, pattern=ONE_LINE)
    kind: Kind
    domain: str = Field(pattern=IDENT)  # office, engineering, finance, health, commerce, travel, research, ...
    archetypes: list[Archetype] = Field(min_length=1)
    scenario: str  # who the user is and what they do here, in prose (may span lines)
    description: str = Field(max_length=100, pattern=ONE_LINE)  # server.json description
    today: str = Field(default="2026-12-01", pattern=r"^\d{4}-\d{2}-\d{2}$")
    cli: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9-]{1,20}$")  # workspace kinds: the shell verb
    entities: list[Entity] = Field(min_length=1)
    operations: list[Operation] = Field(min_length=3)
    files: list[WorkspaceFile] = Field(default_factory=list)
    policies: list[Policy] = Field(default_factory=list)  # the business rules, each stated once
    invariants: list[Invariant] = Field(default_factory=list)  # what the world's rows always satisfy
    skill: str = ""  # guidance that is not a rule (tone, where to look); rules go in `policies`
    references: list[Reference] = Field(default_factory=list)  # our fields filled from another env's records
    referenced_by: list[ReferencedBy] = Field(default_factory=list)  # our records other envs' fields take
    seed: int = 7

    @model_validator(mode="before")
    @classmethod
    def _expand_policies(cls, data: object) -> object:
        """Each policy's check becomes a precondition of the operations it names (once: re-validating
        a dumped blueprint does not add it twice)."""
        if not isinstance(data, dict) or not data.get("policies"):
            return data
        ops = [op.model_dump() if isinstance(op, BaseModel) else dict(op) for op in data.get("operations") or []]
        by_name = {op.get("name"): op for op in ops}
        for raw in data["policies"]:
            policy = raw.model_dump() if isinstance(raw, BaseModel) else raw
            check = policy.get("check") if isinstance(policy, dict) else None
            if not check:
                continue
            for name in policy.get("operations") or []:
                op = by_name.get(name)
                if op is None:
                    raise ValueError(f"policy {policy.get('id')!r} names unknown operation {name!r}")
                pres = [p.model_dump() if isinstance(p, BaseModel) else dict(p) for p in op.get("preconditions") or []]
                if any(p.get("policy") == policy.get("id") for p in pres):
                    continue
                check = check.model_dump() if isinstance(check, BaseModel) else dict(check)
                pres.append({**check, "policy": policy.get("id"), "message": check.get("message") or policy.get("rule")})
                op["preconditions"] = pres
        return {**data, "operations": ops}

    @model_validator(mode="after")
    def _coherent(self) -> Blueprint:
        entities = {e.name: e for e in self.entities}
        names = [op.name for op in self.operations]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.id}: two operations share a name")
        if self.kind == "claw_workspace" and not self.cli:
            raise ValueError(f"{self.id}: a claw_workspace blueprint needs `cli`, the shell verb for its operations")
        for entity in self.entities:
            for spec in entity.fields:
                if spec.type == "ref" and spec.ref not in entities:
                    raise ValueError(f"{self.id}: {entity.name}.{spec.name} refers to unknown entity {spec.ref!r}")
            if entity.status_field and entity.field(entity.status_field).type != "enum":
                raise ValueError(f"{self.id}: status_field {entity.status_field!r} of {entity.name} must be an enum")
        for op in self.operations:
            if op.entity not in entities:
                raise ValueError(f"{self.id}: operation {op.name} names unknown entity {op.entity!r}")
            entity = entities[op.entity]
            if any(len(pre.message.strip()) < 3 for pre in op.preconditions):
                raise ValueError(f"{self.id}: every precondition of {op.name} needs a `message` the agent can act on")
            for param in op.params + op.required:
                entity.field(param)
            if op.kind == "transition" and (
                    not entity.status_field or op.to_status not in entity.field(entity.status_field).values):
                raise ValueError(f"{self.id}: transition {op.name} needs to_status among {entity.name}'s status values")
            for pre in op.preconditions:
                options_name_fields(entities, entity, pre, f"{self.id}: {op.name}")
        ids = [p.id for p in self.policies]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{self.id}: two policies share an id")
        words = {e.name for e in self.entities} | {f.name for e in self.entities for f in e.fields} | \
            {str(v) for e in self.entities for f in e.fields for v in (f.values or [])}
        for policy in self.policies:
            if policy.id in words:  # the grader reads such a word in an answer as the world's data, not a rule cited
                raise ValueError(f"{self.id}: policy id {policy.id!r} is also an entity, field or value name; rename it")
            for name in policy.operations:
                if name not in names:
                    raise ValueError(f"{self.id}: policy {policy.id} names unknown operation {name!r}")
            if policy.creates and policy.creates not in entities:
                raise ValueError(f"{self.id}: policy {policy.id} creates unknown entity {policy.creates!r}")
        for inv in self.invariants:
            if inv.entity not in entities:
                raise ValueError(f"{self.id}: invariant names unknown entity {inv.entity!r}")
            entity = entities[inv.entity]
            by_ref = inv.kind == "pool_by" and inv.ref_field  # `by` is a field of the referenced row
            own = [inv.field, inv.than, None if by_ref else inv.by, inv.ref_field, inv.name_field] + \
                ([inv.when.field] if inv.when else [])
            for name in [n for n in own if n is not None]:
                entity.field(name)
            if by_ref:
                entities[entity.field(inv.ref_field).ref].field(inv.by)
            if inv.kind == "matches_ref":
                ref = entity.field(inv.ref_field)
                if ref.type != "ref":
                    raise ValueError(f"{self.id}: invariant ref_field {inv.ref_field} must be a ref field")
                entities[ref.ref].field(inv.other_field)
            if inv.kind == "derived":
                if inv.of not in entities:
                    raise ValueError(f"{self.id}: invariant `of` names unknown entity {inv.of!r}")
                entities[inv.of].field(inv.via)
                if inv.sum_of:
                    entities[inv.of].field(inv.sum_of)
        for file in self.files:
            if file.export and file.export not in entities:
                raise ValueError(f"{self.id}: file {file.path} exports unknown entity {file.export!r}")
        if errors := own_errors(self):
            raise ValueError("; ".join(errors))
        return self

    def entity(self, name: str) -> Entity:
        return next(e for e in self.entities if e.name == name)


# safe one either way), the pure-Python one otherwise.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_blueprint(path: Path) -> Blueprint:
    """The blueprint in `path`, parsed once per version of the file (a changed file is read again)."""
    path = Path(path).resolve()
    stat = path.stat()
    return _load_blueprint(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=1024)
def _load_blueprint(path: Path, mtime_ns: int, size: int) -> Blueprint:
    # Blueprints are frozen models, so one parsed copy can be shared by every caller.
    return Blueprint.model_validate(yaml.load(path.read_text("utf-8"), Loader=_YAML_LOADER))


BLUEPRINTS = Path(__file__).resolve().parents[1] / "blueprints"


def load_all(folder: Path = BLUEPRINTS) -> list[Blueprint]:
    """Every blueprint of the catalog; a cross-environment relation only one side declares is an error."""
    blueprints = [load_blueprint(p) for p in sorted(Path(folder).glob("*.yaml"))]
    if errors := relation_errors(blueprints):
        raise ValueError(f"{len(errors)} cross-environment relation error(s):\n" + "\n".join(errors))
    return blueprints


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


# Entity, FieldSpec, typed (generator/model/entity.py) and the precondition models (generator/model/precondition.py)
# are re-exported: callers import the whole blueprint model from here.
__all__ = ["ARCHETYPES", "BLUEPRINTS", "MONTHS", "POLICY_CATEGORIES", "WEEKDAYS", "Aggregate", "Archetype", "Blueprint",
           "Condition", "Effect", "Entity", "FieldSpec", "Invariant", "Kind", "Operation", "Policy", "Precondition",
           "Through", "WorkspaceFile", "load_all", "load_blueprint", "slug", "typed"]
