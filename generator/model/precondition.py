"""A precondition: the check a write runs before it changes anything (a policy's `check`, expanded onto every operation
the policy names), and the conditions and aggregates it reads. Which options each kind reads, and which it cannot do
without, is listed once in generator/rules/__init__.py; what a kind does with them is its module's.
"""

from __future__ import annotations

import re
from typing import Literal

from envcraft.generator import rules as rule_kinds
from envcraft.generator.model.entity import IDENT, ONE_LINE, Comparison, Entity, FieldSpec, Month, Strict
from pydantic import Field, model_validator


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


TERM = r"^([a-z][a-z0-9_]{0,40}(\.[a-z][a-z0-9_]{0,40})?|\d{1,9}(\.\d{1,4})?)$"


class Formula(Strict):
    """What an `arithmetic` check works out: `function` of the terms `of`, each a field of the row (`quantity`)
    or `ref_field.field`, a field of the row a ref field of ours points at (`supply_item_id.unit_cost`), or a number
    (`100`: a reserve kept). A difference takes the later terms from the first."""

    function: Literal["product", "sum", "difference"]
    of: list[str] = Field(min_length=2, max_length=4)

    @model_validator(mode="after")
    def _terms(self) -> Formula:
        for term in self.of:
            if not re.fullmatch(TERM, term):
                raise ValueError(f"formula term {term!r}: write a field of the row (quantity), ref_field.field "
                                 "(supply_item_id.unit_cost) or a number (100)")
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
    arithmetic: the row's `field` `op` the `formula` worked out from fields of the row and of rows it refers to
        (a charge == quantity x the item's unit cost; an amount <= the account's balance - its minimum balance).
    listed: the row's `field` is the amount `listed` under its `key` field's value (damage at the listed price).
    open_period: the row of `entity` whose `other_field` is our `field` (a date: its month) has its status among
        `values` (no postings to a locked month).
    within_days: the days from the ref_field row's `other_field` (or our `than`) to our `field` (none: today) are
        `op` `span_days` (a return within 30 days of the purchase).
    from_previous: the value written to `field` `op` the row's value before the write + `value` (attempts one up).
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
    early_days: int | None = Field(default=None, ge=-1, le=60)  # happens_now: days before the event it may be
    # recorded (-1: only from the day after, a deadline that went by)
    late_days: int | None = Field(default=None, ge=0, le=60)  # happens_now: days after it (its end) it still may
    # be recorded (none: any time after)
    their: Through | None = None  # requires / forbids: the related row's own ref row must match this too
    when: Condition | list[Condition] | None = None  # the rule applies only when this holds (a list: all of them)
    aggregate: Aggregate | None = None  # aggregate: the number over the related rows
    formula: Formula | None = None  # arithmetic: what `field` is compared with
    key: str | None = Field(default=None, pattern=IDENT)  # listed: our field naming the kind a price is listed for
    listed: dict[str, float] = Field(default_factory=dict)  # listed: kind -> the amount `field` must be
    span_days: int | None = Field(default=None, ge=0, le=3660)  # within_days: the days between two dates
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
        for v in self.values + list(self.match) + list(self.match.values()) + self.order + list(self.listed):
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


def options_name_fields(entities: dict[str, Entity], entity: Entity, pre: Precondition, where: str) -> None:
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


__all__ = ["PRECONDITION_KINDS", "Aggregate", "Condition", "Formula", "Precondition", "Through", "options_name_fields"]
