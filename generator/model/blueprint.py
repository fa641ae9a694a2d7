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
from envcraft.generator import rules as rule_kinds
from envcraft.generator.model.plurals import plural as english_plural
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
# Value generators for seed data (generator/seeds/values.py): realistic, deterministic from the seed.
Generator = Literal[
    "person_name", "first_name", "company", "city", "country", "street", "phone", "email", "word", "title",
    "sentence", "paragraph", "product", "color", "sku", "code", "url", "tag", "job_title", "department",
]
IDENT = r"^[a-z][a-z0-9_]{0,40}$"
# One-line text (titles, labels, messages, rules): no control characters, so a value can never
# break out of the line it is rendered into (generated code still takes every string via repr/ast).
ONE_LINE = r"^[^\x00-\x1f\x7f]*$"
Comparison = Literal["==", "!=", "<", "<=", ">", ">="]
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
Month = Literal["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FieldSpec(Strict):
    name: str = Field(pattern=IDENT)
    type: FieldType
    description: str = Field(default="", pattern=ONE_LINE)
    values: list[str] = Field(default_factory=list)  # enum choices, or a pool of realistic values for str
    ref: str | None = None  # entity name a `ref` field points to
    gen: Generator | None = None  # how seed rows get a value (str-like fields)
    template: str | None = Field(default=None, pattern=r"^([^\x00-\x1f\x7f{}]|\{n(:0?\d+d)?\})*$")  # e.g. "INV-{n:04d}" for str codes (n = row number)
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


def typed(spec: FieldSpec, raw: str) -> object:
    """A blueprint literal (always a string in YAML lists) as the field's own type."""
    if spec.type == "bool":
        return raw.strip().lower() in ("true", "yes", "1", "on")
    if spec.type == "int":
        return int(float(raw))
    if spec.type == "float":
        return float(raw)
    return raw


class Entity(Strict):
    name: str = Field(pattern=IDENT)  # singular; the table is `plural` (default: its English plural)
    plural: str | None = Field(default=None, pattern=IDENT)
    id_prefix: str = Field(pattern=r"^[a-z]{2,6}$")
    description: str = Field(default="", pattern=ONE_LINE)
    fields: list[FieldSpec]
    rows: int = Field(default=20, ge=3, le=400)  # seed rows: enough for search and decoys to matter
    status_field: str | None = Field(default=None, pattern=IDENT)  # the enum field a state machine moves along, if any

    @property
    def table(self) -> str:
        return self.plural or english_plural(self.name)

    def field(self, name: str) -> FieldSpec:
        for spec in self.fields:
            if spec.name == name:
                return spec
        raise KeyError(f"entity {self.name!r} has no field {name!r}")


class Condition(Strict):
    """`field op value` (or `field in values`) on the row as it would be: a policy applies only when it
    holds (e.g. amount > 500, housing in [house_rented, apartment_rented]). With `ref_field`, `field` is
    a field of the row that ref field points at (the commuter needs a lift); with `through` as well, that
    ref field is one of the row `through` points at, two hops away (the shift's agency's cause)."""

    field: str = Field(pattern=IDENT)
    op: Literal["==", "!=", "<", "<=", ">", ">=", "in", "not_in"]
    value: str | float | bool | None = None
    values: list[str] = Field(default_factory=list)
    ref_field: str | None = Field(default=None, pattern=IDENT)
    through: str | None = Field(default=None, pattern=IDENT)

    @model_validator(mode="after")
    def _operand(self) -> Condition:
        if (self.op in ("in", "not_in")) != bool(self.values) or (self.op not in ("in", "not_in")) == (self.value is None):
            raise ValueError(f"condition on {self.field}: `in`/`not_in` take `values`, the other operators one `value`")
        if self.through and not self.ref_field:
            raise ValueError(f"condition on {self.field}: `through` is the first hop of a `ref_field`")
        return self


class Aggregate(Strict):
    """The number an `aggregate` check turns on: `function` over the related rows (those of the check's
    `entity` whose `match` fields equal this row's, other than this row), kept only when every `where`
    condition holds on them, and of those only the `latest` N by the date field `by` (fewer than N: the
    rule cannot be shown to hold). `says` words the number for the refusal, `{n}` standing for it."""

    function: Literal["count", "sum", "avg", "min", "max"]
    of: str | None = Field(default=None, pattern=IDENT)  # their numeric field (count: none)
    where: list[Condition] = Field(default_factory=list)  # on their own fields
    latest: int | None = Field(default=None, ge=1, le=50)
    by: str | None = Field(default=None, pattern=IDENT)  # latest: their date field, newest first
    says: str = Field(min_length=4, max_length=120, pattern=r"^[^\x00-\x1f\x7f{}]*\{n\}[^\x00-\x1f\x7f{}]*$")

    @model_validator(mode="after")
    def _shape(self) -> Aggregate:
        if (self.function == "count") != (self.of is None):
            raise ValueError(f"aggregate {self.function}: a count takes no `of`; sum/avg/min/max name the field in `of`")
        if (self.latest is None) != (self.by is None):
            raise ValueError("aggregate: `latest` and `by` go together (the latest N rows by a date field)")
        if any(c.ref_field for c in self.where):
            raise ValueError("aggregate: `where` conditions read the related rows' own fields (no ref_field)")
        return self


class Through(Strict):
    """A filter on a related row by the row it points at: its `ref_field` names a row whose `field` is among
    `values` (a sibling harvest job whose machine is a grain cart)."""

    ref_field: str = Field(pattern=IDENT)
    field: str = Field(pattern=IDENT)
    values: list[str] = Field(min_length=1)


PRECONDITION_KINDS = rule_kinds.NAMES


class Precondition(Strict):
    """A rule checked before a write; `message` is what the agent reads when it fails.

    status_in / field_equals: the row's `field` (as it is; create: the argument) is one of `values`.
    ref_in: the row that `ref_field` points at has `other_field` among `values` (eligibility). With `through`,
        `ref_field` is a field of the row `through` points at: two hops (the assignment's shift's agency).
    compare: the row's `field` `op` a literal `value`, another field `than`, or the `other_field` of the
        row `ref_field` points at (thresholds, matching amounts, seats >= candidates). With `via`, `field` is a
        ref and its row's `via` field is compared (the candidate's city == the requisition's location); with
        `factor`, the right side is scaled (desired salary <= 1.1 x salary max).
    requires / forbids: a row of `entity` whose `match` fields (theirs: ours) equal this row's, and whose
        `field` is among `values`, must exist / must not exist (approvals, open items blocking a close).
        With `at` (a date/time of ours), the related row's [`start`, `end`] must also contain it (a maintenance
        window covering the moment an alert fired).
    time_window: the date/time `field` falls on one of `days`, in one of `months`, and (times) within
        [from_time, to_time].
    compare with `order`: both sides are values of that list, compared by their place in it (intro < advanced);
        with `or_via`, the left side is any of `via` and these fields of the same row (primary or second language).
    is_set: the row's `field` has a value (a backout plan is written).
    requires / forbids with `their`: the related row's ref row has a field among values (the sibling job's
        machine is a grain cart).
    no_overlap with `gap_minutes`: other active rows of the resource stay that far away (rest between duties).
    `when` is one condition or a list of conditions that must all hold.
    aggregate: `aggregate` (count / sum / avg / min / max over the rows of `entity` whose `match` fields
        equal this row's) `op` a literal `value` or this row's field `than` (a departure's booked travellers
        >= its min_to_guarantee; an application's average unconflicted score >= 70).
    happens_now: the operation records the row's event (a check-in, a no-show), so today must fall from
        `early_days` before the day of its `field` to `late_days` (none: no limit) after its `end` (none: that day)
        (generator/rules/happens_now.py).
    no_overlap, capacity, at_least, unique, not_in_past: see generator/README.md.
    """

    kind: Literal[PRECONDITION_KINDS]  # generator/rules: one module per kind
    field: str | None = Field(default=None, pattern=IDENT)  # on the operation's own row / arguments
    values: list[str] = Field(default_factory=list)  # status_in / field_equals / ref_in / requires / forbids
    ref_field: str | None = Field(default=None, pattern=IDENT)  # the argument naming the other row
    other_field: str | None = Field(default=None, pattern=IDENT)  # a field of the row ref_field points at
    start: str | None = Field(default=None, pattern=IDENT)  # no_overlap: start/end and the resource argument
    end: str | None = Field(default=None, pattern=IDENT)
    resource: str | None = Field(default=None, pattern=IDENT)
    op: Comparison | None = None  # compare
    value: str | float | bool | None = None  # compare: a literal
    than: str | None = Field(default=None, pattern=IDENT)  # compare: another field of the same row
    via: str | None = Field(default=None, pattern=IDENT)  # compare: a field of the row `field` points at
    through: str | None = Field(default=None, pattern=IDENT)  # ref_in / compare: ref_field is a field of this row's ref
    factor: float | None = Field(default=None, gt=0)  # compare: the right side times this
    entity: str | None = Field(default=None, pattern=IDENT)  # requires / forbids: the related entity
    match: dict[str, str] = Field(default_factory=dict)  # requires / forbids: their field -> our field
    days: list[Literal["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]] = \
        Field(default_factory=list)  # time_window
    from_time: str | None = Field(default=None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")  # time_window, HH:MM
    to_time: str | None = Field(default=None, pattern=r"^([01]\d|2[0-4]):[0-5]\d$")
    months: list[Month] = Field(default_factory=list)  # time_window: the months it is open
    order: list[str] = Field(default_factory=list)  # compare: the enum's values, lowest first
    or_via: list[str] = Field(default_factory=list)  # compare: more fields of the `via` row, any of which may match
    at: str | None = Field(default=None, pattern=IDENT)  # requires / forbids: our moment within their [start, end]
    gap_minutes: int | None = Field(default=None, gt=0, le=7 * 24 * 60)  # no_overlap: the least time between rows
    early_days: int | None = Field(default=None, ge=0, le=60)  # happens_now: days before the event it may be recorded
    late_days: int | None = Field(default=None, ge=0, le=60)  # happens_now: days after it (its end) it still may
    # be recorded (none: any time after)
    their: Through | None = None  # requires / forbids: the related row's own ref row must match this too
    when: Condition | list[Condition] | None = None  # the rule applies only when this holds (a list: all of them)
    aggregate: Aggregate | None = None  # aggregate: the number over the related rows
    policy: str | None = Field(default=None, pattern=IDENT)  # the blueprint policy it was expanded from
    message: str = Field(default="", max_length=400, pattern=ONE_LINE)  # a policy's check defaults to its rule

    @model_validator(mode="after")
    def _kind_options(self) -> Precondition:
        """The options the kind needs are given, and none that only other kinds read (generator/rules)."""
        for option, says in rule_kinds.REQUIRED_OPTIONS.get(self.kind, {}).items():
            if getattr(self, option) is None:
                raise ValueError(f"{self.kind} precondition: {self.kind} {says}")
        for option, (owners, says) in rule_kinds.OPTION_OWNERS.items():
            if getattr(self, option) and self.kind not in owners:
                raise ValueError(f"{self.kind} precondition: `{option}` {says}")
        if self.aggregate is not None and (self.op is None or (self.value is None) == (self.than is None)
                                         or isinstance(self.value, (bool, str))):
            raise ValueError("an aggregate check compares its number with `op` and exactly one of a numeric `value` "
                             "or this row's field `than`")
        return self

    @model_validator(mode="after")
    def _values_one_line(self) -> Precondition:
        if (self.via or self.factor) and (self.field is None or self.value is not None):
            raise ValueError("`via` and `factor` belong to a compare of `field` with `than` or a referenced row's field")
        if self.factor and self.op in ("==", "!="):
            raise ValueError("a scaled comparison is an inequality")
        if self.through and not (self.ref_field and self.other_field):
            raise ValueError("`through` is the first hop to the row a ref_in / compare reads (ref_field + other_field)")
        for v in self.values + list(self.match) + list(self.match.values()) + self.order:
            if not re.fullmatch(ONE_LINE, v):
                raise ValueError(f"precondition value {v!r} must be one line of text")
        _options_fit(self)
        return self

    @property
    def conditions(self) -> list[Condition]:
        """The `when` conditions, all of which must hold for the rule to apply (none: always)."""
        if self.when is None:
            return []
        return list(self.when) if isinstance(self.when, list) else [self.when]


def _options_fit(pre: Precondition) -> None:
    """Each option belongs to the kinds that read it: a malformed blueprint fails here, not in a generated app."""
    where = f"{pre.kind} precondition"
    if len(set(pre.months)) != len(pre.months):
        raise ValueError(f"{where}: `months` lists a month twice")
    if pre.order and (pre.factor or pre.op is None):
        raise ValueError(f"{where}: `order` belongs to an unscaled compare")
    if pre.order and (len(pre.order) < 2 or len(set(pre.order)) != len(pre.order)):
        raise ValueError(f"{where}: `order` lists at least two distinct values, lowest first")
    if pre.order and pre.value is not None and str(pre.value) not in pre.order:
        raise ValueError(f"{where}: the value {pre.value!r} is not in `order` {pre.order}")
    if pre.or_via and (not pre.via or pre.factor or pre.op != "==" or pre.value is not None):
        raise ValueError(f"{where}: `or_via` adds fields to the `via` of an unscaled == compare with another field")
    if pre.at and not (pre.start and pre.end):
        raise ValueError(f"{where}: `at` is a moment of ours inside a related row's `start` and `end`")
    if isinstance(pre.when, list) and not pre.when:
        raise ValueError(f"{where}: `when` as a list needs at least one condition")


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
                _options_name_fields(self, entities, entity, pre, f"{self.id}: {op.name}")
        ids = [p.id for p in self.policies]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{self.id}: two policies share an id")
        for policy in self.policies:
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
        return self

    def entity(self, name: str) -> Entity:
        return next(e for e in self.entities if e.name == name)


def _options_name_fields(bp: Blueprint, entities: dict[str, Entity], entity: Entity, pre: Precondition,
                         where: str) -> None:
    """The fields the newer check options name exist and have the type the option reads."""
    def spec(owner: Entity, name: str) -> FieldSpec:
        try:
            return owner.field(name)
        except KeyError as err:
            raise ValueError(f"{where}: {pre.kind} names {err.args[0]}") from None

    if isinstance(pre.when, list):  # each condition of an all-of `when` reads a field on its path
        for cond in pre.when:
            owner = entity
            for hop in [h for h in (cond.through, cond.ref_field) if h]:
                ref = spec(owner, hop)
                if ref.type != "ref":
                    raise ValueError(f"{where}: `when` path {hop} is not a ref field")
                owner = entities[ref.ref]
            spec(owner, cond.field)
    if pre.months and spec(entity, pre.field).type not in ("date", "datetime"):
        raise ValueError(f"{where}: `months` needs a date or datetime `field`")
    if "field" in rule_kinds.REQUIRED_OPTIONS.get(pre.kind, {}):  # a `field` the kind needs is one of ours
        spec(entity, pre.field)
    if pre.at:
        if spec(entity, pre.at).type not in ("date", "datetime") or pre.entity not in entities:
            raise ValueError(f"{where}: `at` is a date/time field of ours, matched against a known `entity`")
        for name in (pre.start, pre.end):
            spec(entities[pre.entity], name)
    if pre.their:
        if pre.entity not in entities or spec(entities[pre.entity], pre.their.ref_field).type != "ref":
            raise ValueError(f"{where}: `their.ref_field` must be a ref field of the related {pre.entity}")
        far = entities[spec(entities[pre.entity], pre.their.ref_field).ref]
        values = spec(far, pre.their.field).values
        if spec(far, pre.their.field).type == "enum" and set(pre.their.values) - set(values):
            raise ValueError(f"{where}: `their` values {pre.their.values} are not all values of {far.name}."
                             f"{pre.their.field} ({values})")
    if pre.via and (pre.or_via or pre.order):
        mine = spec(entity, pre.field)
        if mine.type != "ref":
            raise ValueError(f"{where}: `via` needs `field` to be a ref")
        for name in pre.or_via:
            if spec(entities[mine.ref], name).type != spec(entities[mine.ref], pre.via).type:
                raise ValueError(f"{where}: or_via field {name} is not of the type of {pre.via}")
    if pre.order:
        sides = []
        if pre.via:
            sides.append(spec(entities[spec(entity, pre.field).ref], pre.via))
        elif pre.field:
            sides.append(spec(entity, pre.field))
        if pre.ref_field and pre.other_field and not pre.through:
            sides.append(spec(entities[spec(entity, pre.ref_field).ref], pre.other_field))
        for side in sides:
            if side.type != "enum" or set(side.values) != set(pre.order):
                raise ValueError(f"{where}: `order` {pre.order} must list exactly the values of enum {side.name} "
                                 f"({side.values})")


# libyaml's parser when the machine has it (parsing is most of a load; the constructor is the same
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
    return [load_blueprint(p) for p in sorted(Path(folder).glob("*.yaml"))]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
