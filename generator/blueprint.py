"""Blueprint: the typed, reviewable description of an environment, from which everything is generated.

A blueprint is a YAML file in generator/blueprints/. The compiler turns it into a standalone MCP
server folder shaped like the hand-written reference (servers/office/); the task engine reads its
operations to build the tool graph. Nothing else describes an environment.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

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
FieldType = Literal["str", "text", "int", "float", "bool", "date", "datetime", "enum", "ref", "email", "list_str"]
# Value generators for seed data (generator/values.py): realistic, deterministic from the seed.
Generator = Literal[
    "person_name", "first_name", "company", "city", "country", "street", "phone", "email", "word", "title",
    "sentence", "paragraph", "product", "color", "sku", "code", "url", "tag", "job_title", "department",
]
IDENT = r"^[a-z][a-z0-9_]{0,40}$"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FieldSpec(Strict):
    name: str = Field(pattern=IDENT)
    type: FieldType
    description: str = ""
    values: list[str] = Field(default_factory=list)  # enum choices, or a pool of realistic values for str
    ref: str | None = None  # entity name a `ref` field points to
    gen: Generator | None = None  # how seed rows get a value (str-like fields)
    template: str | None = None  # e.g. "INV-{n:04d}" for str codes (n = row number)
    min: float | None = None  # int/float/date/datetime ranges (dates as day offsets from `today`)
    max: float | None = None
    unique: bool = False
    optional: bool = False  # may be null in seed rows and omitted on create

    @model_validator(mode="after")
    def _consistent(self) -> FieldSpec:
        if self.type == "enum" and len(self.values) < 2:
            raise ValueError(f"enum field {self.name!r} needs at least two `values`")
        if self.type == "ref" and not self.ref:
            raise ValueError(f"ref field {self.name!r} needs `ref: <entity>`")
        return self


class Entity(Strict):
    name: str = Field(pattern=IDENT)  # singular; the table is `plural` (default name + "s")
    plural: str | None = None
    id_prefix: str = Field(pattern=r"^[a-z]{2,6}$")
    description: str = ""
    fields: list[FieldSpec]
    rows: int = Field(default=20, ge=3, le=400)  # seed rows: enough for search and decoys to matter
    status_field: str | None = None  # the enum field a state machine moves along, if any

    @property
    def table(self) -> str:
        return self.plural or f"{self.name}s"

    def field(self, name: str) -> FieldSpec:
        for spec in self.fields:
            if spec.name == name:
                return spec
        raise KeyError(f"entity {self.name!r} has no field {name!r}")


class Precondition(Strict):
    """A rule checked before a write; `message` is what the agent reads when it fails."""

    kind: Literal["status_in", "field_equals", "no_overlap", "capacity", "at_least", "unique", "not_in_past"]
    field: str | None = None  # on the operation's own row / arguments
    values: list[str] = Field(default_factory=list)  # status_in / field_equals
    ref_field: str | None = None  # capacity / at_least: the argument naming the other row
    other_field: str | None = None  # capacity: the capacity field on the other row; at_least: the balance field
    start: str | None = None  # no_overlap: start/end argument names and the resource argument
    end: str | None = None
    resource: str | None = None
    message: str


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
    entity: str
    description: str
    params: list[str] = Field(default_factory=list)  # search: filter fields; create/update: settable fields
    required: list[str] = Field(default_factory=list)  # create/update: params that must be given
    to_status: str | None = None  # transition: the new value of the entity's status_field
    preconditions: list[Precondition] = Field(default_factory=list)
    effects: list[Effect] = Field(default_factory=list)
    # A documented workflow side effect (e.g. "reply on every state change"): rows it creates beside any
    # task's own changes are not collateral damage (the collateral guard lets its table grow).
    side_effect: bool = False

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
    title: str
    kind: Kind
    domain: str  # office, engineering, finance, health, commerce, travel, research, operations, ...
    archetypes: list[Archetype] = Field(min_length=1)
    scenario: str  # who the user is and what they do here, in prose
    description: str = Field(max_length=100)  # server.json description
    today: str = "2026-12-01"
    cli: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9-]{1,20}$")  # workspace kinds: the shell verb
    entities: list[Entity] = Field(min_length=1)
    operations: list[Operation] = Field(min_length=3)
    files: list[WorkspaceFile] = Field(default_factory=list)
    skill: str = ""  # extra guidance appended to the generated SKILL.md
    seed: int = 7

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
            for param in op.params + op.required:
                entity.field(param)
            if op.kind == "transition" and (
                    not entity.status_field or op.to_status not in entity.field(entity.status_field).values):
                raise ValueError(f"{self.id}: transition {op.name} needs to_status among {entity.name}'s status values")
        for file in self.files:
            if file.export and file.export not in entities:
                raise ValueError(f"{self.id}: file {file.path} exports unknown entity {file.export!r}")
        return self

    def entity(self, name: str) -> Entity:
        return next(e for e in self.entities if e.name == name)


def load_blueprint(path: Path) -> Blueprint:
    return Blueprint.model_validate(yaml.safe_load(Path(path).read_text("utf-8")))


BLUEPRINTS = Path(__file__).resolve().parent / "blueprints"


def load_all(folder: Path = BLUEPRINTS) -> list[Blueprint]:
    return [load_blueprint(p) for p in sorted(Path(folder).glob("*.yaml"))]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
