"""What one blueprint operation's function in app.py does, as values for templates/operation.py.jinja.

The shape every write follows (the template lays it out): find or build the row, validate the
arguments, work out the row as it would be (`_new`), check the rules, look up the rows the effects
touch, and only then change anything. Here each step becomes a Python expression whose blueprint
values are literals (`lit`); the semantics are documented in generator/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from envcraft.generator.compile.appcode import (
    Param,
    doc_lines,
    enum_const,
    fill_default,
    lit,
    page_class,
    params_of,
    precondition_subject,
    pyname,
    record_class,
    rows_const,
    starts_and_ends,
)
from envcraft.generator.compile.helper_calls import call, named
from envcraft.generator.model.blueprint import Blueprint, Condition, Effect, Entity, Operation
from envcraft.generator.model.fields import typed
from envcraft.generator.model.policy import precondition_id
from envcraft.generator.model.refpath import field_expression, target
from envcraft.generator.rules.kind import Emit
from envcraft.generator.rules.registry import kind, unique_field


def id_hint(bp: Blueprint, entity: Entity) -> str:
    searches = [op.name for op in bp.operations if op.entity == entity.name and op.kind == "search"]
    if searches:
        return f"find {what(entity)} ids with {' or '.join(searches)}"
    return f"{what(entity)} ids look like {entity.id_prefix}-0001"


def what(entity: Entity) -> str:
    """How messages name a record: "client pairing" for client_pairing."""
    return entity.name.replace("_", " ")


@dataclass
class RuleCheck:
    """One rule as code: an optional set-up statement, the blocking fact, and the refusal that cites it."""

    id: str
    message: str
    fact: str
    setup: str | None = None
    when: str | None = None  # the rule applies only when this holds


@dataclass
class EffectChange:
    """A change to a referenced row (`target`, looked up before anything changes)."""

    target: str
    field: str
    value: str
    needs: str | None = None  # the argument whose value the change needs (an adjustment by None is skipped)


@dataclass
class OperationView:
    """Everything templates/operation.py.jinja needs to write one operation's function."""

    name: str
    kind: str
    writes: bool
    params: list[Param]
    returns: str
    doc: list[str]
    table: str
    record: str
    checks: list[str] = field(default_factory=list)  # argument checks, before anything else
    find: str | None = None  # the look-up of the row a get / update / transition / delete acts on
    filters: list[str] = field(default_factory=list)  # search conditions
    page: str | None = None
    values: list[tuple[str, str]] = field(default_factory=list)  # create: field -> value expression
    id_expr: str | None = None
    changes: list[tuple[str, str]] = field(default_factory=list)  # update / transition: (field, argument)
    nothing_to_change: str | None = None  # update: the message when no field is given
    new_status: tuple[str, str] | None = None  # transition: (status field, value)
    needs_new: bool = False  # whether rules or effects read the row as it would be (`_new`); else fields are assigned
    orders: list[tuple[str, str]] = field(default_factory=list)  # (start, end) fields that must be in order
    uniques: list[str] = field(default_factory=list)
    rules: list[RuleCheck] = field(default_factory=list)
    lookups: list[tuple[str, str]] = field(default_factory=list)  # (local, expression) rows the effects change
    effects: list[EffectChange] = field(default_factory=list)


def _validate(bp: Blueprint, op: Operation, params: list[Param]) -> list[str]:
    entity = bp.entity(op.entity)
    out = []
    for p in params:
        spec, name, quoted = p.spec, p.name, lit(p.name)
        if spec is None:
            continue
        if op.kind == "search":
            if spec.type == "enum":
                out.append(call("check_choice", name, quoted, enum_const(entity, spec)))
            elif spec.type == "date":
                out.append(call("check_date", name, quoted))
            continue
        if spec.type in ("str", "text"):
            out.append(call("check_not_blank", name, quoted))
        elif spec.type == "email":
            out.append(call("check_email", name, quoted))
        elif spec.type == "enum":
            out.append(call("check_choice", name, quoted, enum_const(entity, spec)))
        elif spec.type == "ref":
            out.append(call(f"{rows_const(bp, bp.entity(spec.ref))}.check_ref", "tables", name, quoted))
        elif spec.type in ("int", "float") and (spec.min is not None or spec.max is not None):
            out.append(call("check_range", name, quoted, lit(spec.min), lit(spec.max)))
        elif spec.type == "date":
            out.append(call("check_date", name, quoted))
        elif spec.type == "datetime":
            out.append(call("check_time", name, quoted))
        elif spec.type == "list_str":
            out.append(call("check_items", name, quoted))
    return out


def _filters(params: list[Param]) -> list[str]:
    """A search's conditions on a row `_r`: each holds when its filter is not given."""
    out = []
    for p in params:
        if p.spec is None:
            continue
        value = f"_r.get({lit(p.spec.name)})"
        kind = p.spec.type
        test = (call("text_contains", value, p.name) if kind in ("str", "text", "email") else
                call("has_item", value, p.name) if kind == "list_str" else
                call("starts_with", value, p.name) if kind == "datetime" else f"{value} == {p.name}")
        out.append(f"({p.name} is None or {test})")
    return out


def _find(bp: Blueprint, entity: Entity) -> str:
    return call(f"{rows_const(bp, entity)}.find", "tables", f"{entity.name}_id")


def looked_up(bp: Blueprint) -> list[Entity]:
    """The entities whose rows operations find by id or whose ids arguments name (each gets a `Rows` constant),
    in blueprint order."""
    names = set()
    for op in bp.operations:
        if op.kind in ("get", "update", "transition", "delete"):
            names.add(op.entity)
        if op.kind != "search":
            names.update(p.spec.ref for p in params_of(bp, op) if p.spec is not None and p.spec.type == "ref")
    return [entity for entity in bp.entities if entity.name in names]


def rows_values(bp: Blueprint) -> list[dict[str, str]]:
    """The `Rows` constants app.py declares: name, table, what a row is called, how to find ids."""
    return [{"const": rows_const(bp, entity), "table": entity.table, "what": what(entity), "hint": id_hint(bp, entity)}
            for entity in looked_up(bp)]


def _fact(bp: Blueprint, op: Operation, entity: Entity, index: int) -> tuple[str | None, str]:
    """(a set-up statement or None, the expression of the fact that blocks the write, or None)."""
    pre = op.preconditions[index]
    subject = precondition_subject(op, pre)
    return kind(pre.kind).code(bp, op, entity, pre, Emit(lit, subject, lambda name: pyname(name, op.kind)))


def _condition(bp: Blueprint, entity: Entity, cond: Condition) -> str:
    mine, left = entity, f"_new.get({lit(cond.field)})"
    if cond.ref_field:  # a field of a referenced row (one or two hops away)
        mine = target(bp, entity, cond.ref_field, cond.through)
        left = field_expression(bp, entity, cond.ref_field, cond.through, cond.field, lit)
    if cond.op in ("in", "not_in"):
        return f"{left} {'in' if cond.op == 'in' else 'not in'} {_choices(mine, cond.field, cond.values)}"
    value = typed(mine.field(cond.field), str(cond.value)) if not isinstance(cond.value, bool) else cond.value
    return call("holds", left, lit(cond.op), lit(value))


def _rule(bp: Blueprint, op: Operation, entity: Entity, index: int) -> RuleCheck:
    pre = op.preconditions[index]
    setup, fact = _fact(bp, op, entity, index)
    parts = [_condition(bp, entity, cond) for cond in pre.conditions]
    when = " and ".join(parts if len(parts) == 1 else [f"({p})" for p in parts]) or None
    return RuleCheck(precondition_id(op, index), pre.message, named(fact), setup, when)


def _tuple(items: list[str]) -> str:
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _choices(entity: Entity, field: str, values: list[str]) -> str:
    return _tuple([lit(typed(entity.field(field), v)) for v in values])


def _rules(view: OperationView, bp: Blueprint, op: Operation, entity: Entity, touched: set[str]) -> None:
    """Order of paired times, unique fields, then the blueprint's preconditions, in its order."""
    view.orders = starts_and_ends(bp, entity, touched)
    declared = {unique_field(pre) for pre in op.preconditions} - {None}
    view.uniques = [spec.name for spec in entity.fields if spec.unique and spec.name in touched and spec.name not in declared]
    view.rules = [_rule(bp, op, entity, index) for index in range(len(op.preconditions))]


def _targets(view: OperationView, bp: Blueprint, op: Operation, entity: Entity) -> None:
    """Look-ups of the rows the effects change (before any change), and the changes themselves."""
    for eff in op.effects:
        other = bp.entity(entity.field(eff.ref_field).ref)
        local = f"_target_{eff.ref_field}"
        if local not in dict(view.lookups):
            view.lookups.append((local, call("target_row", "tables", lit(other.table), f"_new.get({lit(eff.ref_field)})",
                                              lit(what(other)))))
        view.effects.append(_effect(eff, local, other))


def _effect(eff: Effect, local: str, other: Entity) -> EffectChange:
    key = lit(eff.field)
    if eff.kind == "adjust":
        arg = lit(eff.by_argument)
        sign = "-" if eff.sign == -1 else ""
        return EffectChange(local, eff.field, call("add_amount", f"{local}.get({key})", f"{sign}_new[{arg}]"),
                            eff.by_argument)
    value = f"_new.get({lit(eff.by_argument)})" if eff.by_argument else lit(typed(other.field(eff.field), eff.value))
    return EffectChange(local, eff.field, value)


def _create(view: OperationView, bp: Blueprint, op: Operation, entity: Entity, params: list[Param]) -> None:
    given = {p.spec.name: p.name for p in params if p.spec is not None}
    view.id_expr = call("next_id", "tables", lit(entity.table), lit(entity.id_prefix))
    for spec in entity.fields:
        default = fill_default(entity, spec)
        if spec.name in given:
            arg = given[spec.name]
            value = arg if spec.name in op.required or default is None else f"{arg} if {arg} is not None else {lit(default)}"
        else:
            value = lit(default)
        view.values.append((spec.name, value))
    _rules(view, bp, op, entity, {f.name for f in entity.fields})
    _targets(view, bp, op, entity)


def _change(view: OperationView, bp: Blueprint, op: Operation, entity: Entity, params: list[Param]) -> None:
    """update and transition: the same steps; a transition also moves the status field."""
    fields = [p for p in params if p.spec is not None]
    view.changes = [(p.spec.name, p.name) for p in fields]
    if op.kind == "update":
        view.nothing_to_change = "nothing to change: give at least one of " + ", ".join(p.name for p in fields)
    if op.kind == "transition":
        view.new_status = (entity.status_field, op.to_status)
    _rules(view, bp, op, entity, {p.spec.name for p in fields})
    _targets(view, bp, op, entity)


def operation_view(bp: Blueprint, op: Operation) -> OperationView:
    entity = bp.entity(op.entity)
    params = params_of(bp, op)
    record = record_class(entity)
    view = OperationView(op.name, op.kind, op.writes, params, page_class(entity) if op.kind == "search" else record,
                         doc_lines(bp, op), entity.table, record)
    if op.kind in ("get", "update", "transition", "delete"):
        view.find = _find(bp, entity)
    if op.kind != "get":
        view.checks = _validate(bp, op, params)
    if op.kind == "search":
        view.filters, view.page = _filters(params), page_class(entity)
    elif op.kind == "create":
        _create(view, bp, op, entity, params)
    elif op.kind == "delete":
        _rules(view, bp, op, entity, set())
        _targets(view, bp, op, entity)
        view.needs_new = bool(view.rules or view.orders or view.uniques or view.lookups)
    elif op.kind in ("update", "transition"):
        _change(view, bp, op, entity, params)
        view.needs_new = reads_new(view)
    return view


def reads_new(view: OperationView) -> bool:
    """Whether any check or effect of the operation reads `_new`, the row as the write would leave it."""
    code = [text for rule in view.rules for text in (rule.fact, rule.setup, rule.when) if text]
    return bool(view.orders or view.uniques or view.lookups or view.effects) or any("_new" in text for text in code)
