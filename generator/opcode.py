"""Render one blueprint operation as a Python function of the generated app.py.

The shape every write follows: find or build the row, validate the arguments, work out the row as
it would be (`_new`), check the preconditions, look up the rows the effects touch, and only then
change anything. The semantics are documented in generator/README.md.
"""

from __future__ import annotations

from envcraft.generator.appcode import (Param, docstring, enum_const, fill_default, lit, page_class, params_of,
                               precondition_subject, pyname, record_class, signature, starts_and_ends, typed, wrap)
from envcraft.generator.blueprint import Blueprint, Effect, Entity, Operation
from envcraft.generator.policy import precondition_id

IND = "    "


def id_hint(bp: Blueprint, entity: Entity) -> str:
    searches = [op.name for op in bp.operations if op.entity == entity.name and op.kind == "search"]
    if searches:
        return f"find {what(entity)} ids with {' or '.join(searches)}"
    return f"{what(entity)} ids look like {entity.id_prefix}-0001"


def what(entity: Entity) -> str:
    """How messages name a record: "client pairing" for client_pairing."""
    return entity.name.replace("_", " ")


def _validate(bp: Blueprint, op: Operation, params: list[Param]) -> list[str]:
    entity = bp.entity(op.entity)
    out = []
    for p in params:
        spec, name, quoted = p.spec, p.name, lit(p.name)
        if spec is None:
            continue
        if op.kind == "search":
            if spec.type == "enum":
                out.append(f"{IND}check_choice({name}, {quoted}, {enum_const(entity, spec)})")
            elif spec.type == "date":
                out.append(f"{IND}check_date({name}, {quoted})")
            continue
        if spec.type in ("str", "text"):
            out.append(f"{IND}check_not_blank({name}, {quoted})")
        elif spec.type == "email":
            out.append(f"{IND}check_email({name}, {quoted})")
        elif spec.type == "enum":
            out.append(f"{IND}check_choice({name}, {quoted}, {enum_const(entity, spec)})")
        elif spec.type == "ref":
            other = bp.entity(spec.ref)
            out += wrap("check_ref(", ["tables", lit(other.table), name, quoted, lit(what(other)), lit(id_hint(bp, other))],
                        ")", IND)
        elif spec.type in ("int", "float") and (spec.min is not None or spec.max is not None):
            out.append(f"{IND}check_range({name}, {quoted}, {lit(spec.min)}, {lit(spec.max)})")
        elif spec.type == "date":
            out.append(f"{IND}check_date({name}, {quoted})")
        elif spec.type == "datetime":
            out.append(f"{IND}check_time({name}, {quoted})")
        elif spec.type == "list_str":
            out.append(f"{IND}check_items({name}, {quoted})")
    return out


def _search(bp: Blueprint, op: Operation, entity: Entity, params: list[Param]) -> list[str]:
    conditions = []
    for p in params:
        if p.spec is None:
            continue
        value = f"_r.get({lit(p.spec.name)})"
        kind = p.spec.type
        test = (f"text_contains({value}, {p.name})" if kind in ("str", "text", "email") else
                f"has_item({value}, {p.name})" if kind == "list_str" else
                f"starts_with({value}, {p.name})" if kind == "datetime" else f"{value} == {p.name}")
        conditions.append(f"({p.name} is None or {test})")
    lines = _validate(bp, op, params)
    if conditions:
        lines += [f"{IND}_rows = [", f"{IND * 2}_r for _r in tables[{lit(entity.table)}]", f"{IND * 2}if {conditions[0]}"]
        lines += [f"{IND * 2}and {c}" for c in conditions[1:]] + [f"{IND}]"]
    else:
        lines.append(f"{IND}_rows = tables[{lit(entity.table)}]")
    return lines + [f"{IND}return page_of({page_class(entity)}, {record_class(entity)}, _rows, limit, offset)"]


def _find(bp: Blueprint, entity: Entity) -> list[str]:
    return wrap("_row = find_row(", ["tables", lit(entity.table), lit("id"), f"{entity.name}_id", lit(what(entity)),
                                     lit(id_hint(bp, entity))], ")", IND)


def _precondition(bp: Blueprint, op: Operation, entity: Entity, index: int) -> list[str]:
    """One rule as code: work out the fact that would block the write; refuse, citing the rule, if there is one."""
    pre = op.preconditions[index]
    subject, table = precondition_subject(op, pre), f"tables[{lit(entity.table)}]"
    status = lit(entity.status_field)
    lines: list[str] = []
    if pre.kind in ("status_in", "field_equals"):
        fact = f"not_among({subject}, {lit(pre.field)}, {_choices(entity, pre.field, pre.values)}, {lit(what(entity))})"
    elif pre.kind == "ref_in":
        other = bp.entity(entity.field(pre.ref_field).ref)
        lines = wrap("_other = row_of(", ["tables", lit(other.table), f"_new.get({lit(pre.ref_field)})"], ")", IND)
        fact = f"not_among(_other, {lit(pre.other_field)}, {_choices(other, pre.other_field, pre.values)}, {lit(what(other))})"
    elif pre.kind == "compare" and pre.field is None:  # a threshold on the row ref_field points at
        other = bp.entity(entity.field(pre.ref_field).ref)
        spec = other.field(pre.other_field)
        left = f"field_of(tables, {lit(other.table)}, _new.get({lit(pre.ref_field)}), {lit(pre.other_field)})"
        right = lit(typed(spec, str(pre.value)) if not isinstance(pre.value, bool) else pre.value)
        name = lit(f"{what(other)} {pre.other_field.replace('_', ' ')}")
        fact = f"comparison_fails({left}, {lit(pre.op)}, {right}, {name}, \"\")"
    elif pre.kind == "compare":
        left = f"_new.get({lit(pre.field)})"
        if pre.value is not None:
            right, name = lit(typed(entity.field(pre.field), str(pre.value)) if not isinstance(pre.value, bool)
                              else pre.value), '""'
        elif pre.than is not None:
            right, name = f"_new.get({lit(pre.than)})", lit(pre.than.replace("_", " "))
        else:
            other = bp.entity(entity.field(pre.ref_field).ref)
            right = f"field_of(tables, {lit(other.table)}, _new.get({lit(pre.ref_field)}), {lit(pre.other_field)})"
            name = lit(f"the {what(other)}'s {pre.other_field.replace('_', ' ')}")
        fact = f"comparison_fails({left}, {lit(pre.op)}, {right}, {lit(pre.field.replace('_', ' '))}, {name})"
    elif pre.kind in ("requires", "forbids"):
        other = bp.entity(pre.entity)
        match = "{" + ", ".join(f"{lit(theirs)}: _new.get({lit(ours)})" for theirs, ours in pre.match.items()) + "}"
        helper = "missing_related" if pre.kind == "requires" else "present_related"
        allowed = _choices(other, pre.field, pre.values) if pre.field else "()"
        fact = f"{helper}(tables[{lit(other.table)}], {match}, {lit(pre.field)}, {allowed}, {lit(what(other))})"
    elif pre.kind == "time_window":
        days = "(" + ", ".join(lit(d) for d in pre.days) + ("," if len(pre.days) == 1 else "") + ")"
        fact = f"outside_window(_new.get({lit(pre.field)}), {days}, {lit(pre.from_time)}, {lit(pre.to_time)})"
    elif pre.kind == "no_overlap":
        fact = f"overlapping({table}, _new, {lit(pre.resource)}, {lit(pre.start)}, {lit(pre.end)}, {status})"
    elif pre.kind in ("capacity", "at_least"):
        other = bp.entity(entity.field(pre.ref_field).ref)
        local = "_capacity" if pre.kind == "capacity" else "_have"
        lines = wrap(f"{local} = field_of(", ["tables", lit(other.table), f"_new.get({lit(pre.ref_field)})",
                                                lit(pre.other_field)], ")", IND)
        fact = (f"at_capacity({table}, _new, {lit(pre.ref_field)}, {status}, _capacity)" if pre.kind == "capacity" else
                f"short_of(_have, _new.get({lit(pre.field)}), {lit(what(other))}, _new.get({lit(pre.ref_field)}), "
                f"{lit(pre.other_field)})")
    elif pre.kind == "unique":
        fact = f'taken_by_other({table}, {lit(pre.field)}, _new.get({lit(pre.field)}), _new["id"])'
    else:  # not_in_past: an argument when the operation takes it, else the row's own value
        given = op.kind != "create" and pre.field in op.params + op.required
        var = pyname(pre.field, op.kind) if given else f"_new.get({lit(pre.field)})"
        fact = f"in_past({var}, {lit(pre.field)}, TODAY)"
    name, args = fact.split("(", 1)
    lines += wrap(f"_block = {name}(", _top_level(args[:-1]), ")", IND)
    condition = "_block"
    if pre.when is not None:
        when = pre.when
        if when.op in ("in", "not_in"):
            test = f"_new.get({lit(when.field)}) {'in' if when.op == 'in' else 'not in'} {_choices(entity, when.field, when.values)}"
        else:
            value = typed(entity.field(when.field), str(when.value)) if not isinstance(when.value, bool) else when.value
            test = f"holds(_new.get({lit(when.field)}), {lit(when.op)}, {lit(value)})"
        condition = f"{test} and _block"
    return lines + [f"{IND}if {condition}:"] + wrap("refuse(", [lit(precondition_id(op, index)), lit(pre.message)],
                                                    ", _block)", IND * 2)


def _top_level(text: str) -> list[str]:
    """Split call arguments at the commas outside brackets and string literals."""
    items, depth, quote, current = [], 0, None, ""
    for i, char in enumerate(text):
        if quote:
            current += char
            if char == quote and text[i - 1] != "\\":
                quote = None
            continue
        if char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(current.strip())
            current = ""
            continue
        current += char
    return items + ([current.strip()] if current.strip() else [])


def _choices(entity: Entity, field: str, values: list[str]) -> str:
    allowed = [lit(typed(entity.field(field), v)) for v in values]
    return "(" + ", ".join(allowed) + ("," if len(allowed) == 1 else "") + ")"


def _checks(bp: Blueprint, op: Operation, entity: Entity, touched: set[str]) -> list[str]:
    """Order of paired times, unique fields, then the blueprint's preconditions, in its order."""
    lines = [f"{IND}check_order(_new, {lit(start)}, {lit(end)})" for start, end in starts_and_ends(bp, entity, touched)]
    declared = {pre.field for pre in op.preconditions if pre.kind == "unique"}
    for spec in entity.fields:
        if spec.unique and spec.name in touched and spec.name not in declared:
            lines.append(f'{IND}check_unique(tables[{lit(entity.table)}], {lit(spec.name)}, _new.get({lit(spec.name)}), _new["id"])')
    for index in range(len(op.preconditions)):
        lines += _precondition(bp, op, entity, index)
    return lines


def _targets(bp: Blueprint, op: Operation, entity: Entity) -> tuple[list[str], list[str]]:
    """Look-ups of the rows the effects change (before any change), and the changes themselves."""
    lookups: list[str] = []
    changes: list[str] = []
    seen: set[str] = set()
    for eff in op.effects:
        other = bp.entity(entity.field(eff.ref_field).ref)
        local = f"_target_{eff.ref_field}"
        if local not in seen:
            seen.add(local)
            lookups += wrap(f"{local} = target_row(", ["tables", lit(other.table), f"_new.get({lit(eff.ref_field)})",
                                                     lit(what(other))], ")", IND)
        changes += _effect(eff, local, other)
    return lookups, changes


def _effect(eff: Effect, local: str, other: Entity) -> list[str]:
    key = lit(eff.field)
    if eff.kind == "adjust":
        arg = lit(eff.by_argument)
        sign = "-" if eff.sign == -1 else ""
        return [f"{IND}if {local} is not None and _new.get({arg}) is not None:",
                f"{IND * 2}{local}[{key}] = add_amount({local}.get({key}), {sign}_new[{arg}])"]
    value = f"_new.get({lit(eff.by_argument)})" if eff.by_argument else lit(typed(other.field(eff.field), eff.value))
    return [f"{IND}if {local} is not None:", f"{IND * 2}{local}[{key}] = {value}"]


def _create(bp: Blueprint, op: Operation, entity: Entity, params: list[Param]) -> list[str]:
    given = {p.spec.name: p.name for p in params if p.spec is not None}
    lines = _validate(bp, op, params) + [f"{IND}_new = {{", f'{IND * 2}"id": next_id(tables, {lit(entity.table)}, {lit(entity.id_prefix)}),']
    for spec in entity.fields:
        default = fill_default(entity, spec)
        if spec.name in given:
            var = given[spec.name]
            value = var if spec.name in op.required or default is None else f"{var} if {var} is not None else {lit(default)}"
        else:
            value = lit(default)
        lines.append(f"{IND * 2}{lit(spec.name)}: {value},")
    lines.append(f"{IND}}}")
    lookups, changes = _targets(bp, op, entity)
    lines += _checks(bp, op, entity, {f.name for f in entity.fields}) + lookups
    lines.append(f"{IND}tables[{lit(entity.table)}].append(_new)")
    return lines + changes + [f"{IND}return as_record({record_class(entity)}, _new)"]


def _change(bp: Blueprint, op: Operation, entity: Entity, params: list[Param]) -> list[str]:
    """update and transition: the same steps; a transition also moves the status field."""
    fields = [p for p in params if p.spec is not None]
    lines = _find(bp, entity)
    if fields:
        pairs = ", ".join(f"({lit(p.spec.name)}, {p.name})" for p in fields) + ("," if len(fields) == 1 else "")
        lines.append(f"{IND}_changes = {{_k: _v for _k, _v in ({pairs}) if _v is not None}}")
    if op.kind == "update":
        names = ", ".join(p.name for p in fields)
        lines += [f"{IND}if not _changes:", f"{IND * 2}raise ToolFailure({lit('nothing to change: give at least one of ' + names)})"]
    lines += _validate(bp, op, params)
    parts = ["**_row"] + (["**_changes"] if fields else [])
    if op.kind == "transition":
        parts.append(f"{lit(entity.status_field)}: {lit(op.to_status)}")
    lines.append(f"{IND}_new = {{{', '.join(parts)}}}")
    lookups, changes = _targets(bp, op, entity)
    lines += _checks(bp, op, entity, {p.spec.name for p in fields}) + lookups + [f"{IND}_row.update(_new)"]
    return lines + changes + [f"{IND}return as_record({record_class(entity)}, _row)"]


def _delete(bp: Blueprint, op: Operation, entity: Entity, params: list[Param]) -> list[str]:
    lookups, changes = _targets(bp, op, entity)
    checks = _checks(bp, op, entity, set())
    lines = _find(bp, entity) + ([f"{IND}_new = _row"] if checks or lookups else []) + checks + lookups
    return lines + [f"{IND}drop_row(tables[{lit(entity.table)}], _row)"] + changes + [f"{IND}return as_record({record_class(entity)}, _row)"]


def render_operation(bp: Blueprint, op: Operation) -> list[str]:
    entity = bp.entity(op.entity)
    params = params_of(bp, op)
    cls = record_class(entity)
    head = ["@write" if op.writes else "@read"] + signature(bp, op, page_class(entity) if op.kind == "search" else cls)
    head += docstring(bp, op)
    if op.kind == "search":
        return head + _search(bp, op, entity, params)
    if op.kind == "get":
        return head + wrap(f"return as_record({cls}, find_row(", ["tables", lit(entity.table), lit("id"), f"{entity.name}_id",
                                                                lit(what(entity)), lit(id_hint(bp, entity))], "))", IND)
    if op.kind == "create":
        return head + _create(bp, op, entity, params)
    if op.kind == "delete":
        return head + _delete(bp, op, entity, params)
    return head + _change(bp, op, entity, params)
