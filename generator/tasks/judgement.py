"""Judgement: part of the request breaks a rule of the environment.

Two kinds of forbidden part, each checked by calling the compiled app function on the state the
allowed parts leave:
- a state change the rules refuse for the row it names (a state guard: "only requested showings can be
  confirmed"), and that no other route of the state machine reaches either (routes.py); the blocking fact is
  the row's current state;
- a new record a related-record rule refuses (`pick_refused_create`): a seat for a commuter who needs a
  lift on a van without one, an exotic pet booked with a general vet; the blocking fact is a field of
  the other row (the vet's specialty), which the agent has to look up.
Full credit means doing the allowed parts, leaving the forbidden change undone (guards pin the rows it
would touch, so a workaround costs half the reward), and naming the blocking fact in finish.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from envcraft.generator.model.blueprint import Entity, Operation, Precondition
from envcraft.generator.model.fields import typed
from envcraft.generator.model.humanize import humanize
from envcraft.generator.model.policy import refusal, rules
from envcraft.generator.model.refpath import follow, target
from envcraft.generator.rules.registry import compares, value_guard
from envcraft.generator.seeds.policy_rows import holds, related
from envcraft.generator.tasks.env import EnvSpec, Tables, copy_tables, label_field
from envcraft.generator.tasks.execute import Plan, Step, bind, call, searchable, write_args
from envcraft.generator.tasks.routes import route

# How a colleague says "a rule may stop part of this", built from short pieces so that no one sentence
# recurs across the store (realism.top20_5gram_coverage); never a promise that something is refused.
HINT_IF = ("If any of it", "If some of that", "Where something", "If anything here", "If part of it", "In case something",
           "If a piece of this", "If one of these", "Anything that", "If a step", "Whatever",
           "If some part", "Where any of it")
HINT_BLOCK = ("breaks a rule", "isn't allowed", "can't go through", "is against policy", "hits a rule",
              "clashes with our rules", "won't pass", "goes against the rules", "is off limits", "gets stopped",
              "isn't permitted", "runs into policy", "is a no-go", "can't be done")
HINT_DO = ("skip it and", "leave that bit and", "hold off and", "don't force it -", "leave it be and",
           "park that part and", "leave it out and", "let it go and", "don't push it;", "leave it there and", "set it aside and",
           "leave it and", "don't work around it -", "just skip it and")
HINT_SAY = ("tell me why", "say what stopped you", "let me know why", "explain what's blocking it",
            "tell me what got in the way", "give me the reason", "say why", "tell me what stood in the way", "explain why",
            "note the reason", "fill me in", "let me know what stopped it", "say what the problem was",
            "tell me the cause", "write back why", "spell out why")


def hint(rng) -> str:
    """The optional note that a rule may stop part of the request ('' about half the time)."""
    if rng.random() < 0.5:
        return ""
    block = rng.choice(HINT_BLOCK)
    lead = rng.choice(HINT_IF)
    return f" {lead} {block}, {rng.choice(HINT_DO)} {rng.choice(HINT_SAY)}."


@dataclass
class Forbidden:
    op: Operation
    entity: Entity
    row: dict[str, Any]
    field: str  # the field whose value blocks the change
    fact: str  # that value, as the answer must name it


def state_guards(env: EnvSpec, op: Operation) -> list[Precondition]:
    """Preconditions on the row's own state: the operation's, and the blueprint policies' that name it."""
    found = [p for p in op.preconditions if value_guard(p) is not None and p.field]
    for policy in getattr(env.bp, "policies", None) or []:
        check = getattr(policy, "check", None)
        if check is not None and op.name in policy.operations and value_guard(check) is not None \
                and check.field and check not in found:
            found.append(check)
    return found


def blocking(env: EnvSpec, op: Operation, row: dict[str, Any]) -> Precondition | None:
    entity = env.entity(op.entity)
    for pre in state_guards(env, op):
        allowed = [typed(entity.field(pre.field), v) for v in pre.values]
        if row.get(pre.field) not in allowed:
            return pre
    return None


def pick_forbidden(env: EnvSpec, plan: Plan, rng: random.Random) -> Forbidden | None:
    """A transition the rules refuse on a row the allowed parts leave alone, whose end state no other route of the
    state machine reaches either (generator/tasks/routes.py): "impossible" holds on every path."""
    touched = {s.target for s in plan.steps if s.target} | set(plan.created)
    findable = searchable(env)
    options: list[Forbidden] = []
    for op in env.bp.operations:
        if op.kind != "transition" or op.required or op.entity not in findable:
            continue
        entity = env.entity(op.entity)
        if label_field(entity) is None:
            continue
        initial = {r["id"]: r for r in plan.initial.get(entity.table, [])}
        for row in plan.final.get(entity.table, []):
            if row["id"] in touched or initial.get(row["id"]) != row or row.get(entity.status_field) == op.to_status:
                continue
            pre = blocking(env, op, row)
            value = row.get(pre.field) if pre else None
            if pre is None or not isinstance(value, str) or route(env, entity, row, op.to_status) is not None:
                continue
            ok, _ = call(env, copy_tables(plan.final), op.name, {f"{entity.name}_id": row["id"]})
            if not ok:
                options.append(Forbidden(op, entity, row, pre.field, humanize(value)))
    return rng.choice(options) if options else None


def reasons_of(env: EnvSpec, op_name: str, rule_id: str | None = None, field_name: str | None = None) -> list[str]:
    """What else states why `op_name` is refused (core/claims.py): the refusing rule's id and text. The rule is
    `rule_id`, or the one guarding `op_name` on `field_name` (a state guard names no rule of its own)."""
    for rule in rules(env.bp):
        if op_name not in rule.operations:
            continue
        if rule.id == rule_id or (rule_id is None and field_name and any(
                getattr(pre, "field", None) == field_name and value_guard(pre) is not None
                for pre in rule.checks)):
            return [rule.id, rule.text]
    return []


def answer_for(forbidden: Forbidden, label: Any) -> str:
    """`label`: the row's label value; a row whose label is empty is named by its id, never "None"."""
    what = label if isinstance(label, str) and label.strip() else forbidden.row["id"]
    return f"Not possible for {what}: it is {forbidden.fact}."  # few words: none may be another value of the column


def refused_on(env: EnvSpec, tables: Tables, forbidden: Forbidden) -> bool:
    ok, _ = call(env, copy_tables(tables), forbidden.op.name, {f"{forbidden.entity.name}_id": forbidden.row["id"]})
    return not ok


@dataclass
class RefusedCreate:
    """A new record a related-record rule refuses, and the other row's field that blocks it."""

    op: Operation
    entity: Entity
    fields: dict[str, Any]  # the create's arguments, by field name
    rule: str  # the policy whose check refuses it
    blocking: Entity  # the row whose field blocks the create
    row: dict[str, Any]
    field: str
    fact: str  # that field's value, as the answer must name it
    also: tuple[str, ...] = ()  # the other rules that refuse it too (a tutor with another language and subject)


def _blocking_row(env: EnvSpec, entity: Entity, pre: Precondition, new: dict[str, Any],
                  tables: Tables) -> tuple[Entity, dict[str, Any] | None, str]:
    """The other row a related-record check reads, and the field of it that decides (of an `or_via` compare,
    the right side: none of the left row's fields equals it)."""
    bp = env.bp
    if compares(pre) and pre.via and not pre.or_via:  # the left side: a field of the row our `field` names
        return target(bp, entity, pre.field), follow(bp, entity, tables, new, pre.field), pre.via
    when = next((cond for cond in pre.conditions if cond.ref_field), None)
    if pre.ref_field is None and when is not None:
        # the check reads the new row (voucher amount 25); the other row only says when it applies (slow service)
        return (target(bp, entity, when.ref_field, when.through),
                follow(bp, entity, tables, new, when.ref_field, when.through), when.field)
    return (target(bp, entity, pre.ref_field, pre.through),
            follow(bp, entity, tables, new, pre.ref_field, pre.through), pre.other_field)


def pick_refused_create(env: EnvSpec, plan: Plan, rng: random.Random, tries: int = 40) -> RefusedCreate | None:
    """A create, on the state the allowed parts leave, that a related-record rule refuses because of a
    field of a row the plan leaves alone: the allowed version of the create is bound first, then one of
    its references is swapped for a row that breaks the rule."""
    findable = searchable(env)
    touched = {s.target for s in plan.steps if s.target} | set(plan.created)
    ops = [op for op in env.bp.operations if op.kind == "create"
           and any(p.policy and related(p) for p in op.preconditions)]
    rng.shuffle(ops)
    for op in ops:
        entity = env.entity(op.entity)
        allowed = bind(env, [op.name], copy_tables(plan.final), rng)
        if allowed is None or not allowed.steps or allowed.steps[0].op != op.name:
            continue
        base = dict(allowed.steps[0].fields)
        refs = [n for n in base if entity.field(n).type == "ref" and env.entity(entity.field(n).ref).name in findable]
        for name in rng.sample(refs, len(refs)):
            other = env.entity(entity.field(name).ref)
            rows = [r for r in plan.final.get(other.table, []) if r["id"] not in touched and r["id"] != base[name]]
            for row in rng.sample(rows, min(len(rows), tries)):
                fields = {**base, name: row["id"]}
                found = refusal(env.fn(op.name), plan.final, **write_args(env, as_step(env, op, fields)))
                pre = next((p for p in op.preconditions if found is not None and p.policy == found.rule), None)
                if pre is None or not related(pre):
                    continue
                blocking, there, field = _blocking_row(env, entity, pre, fields, plan.final)
                value = (there or {}).get(field)
                start = next((r for r in plan.initial.get(blocking.table, []) if there and r["id"] == there["id"]), None)
                if there is None or start != there or there["id"] in touched or not isinstance(value, str) \
                        or blocking.name not in findable or label_field(blocking) in (None, field):
                    continue  # a blocking field that is the row's own name: any answer naming the row states it
                also = tuple(p.policy for p in op.preconditions if p.policy and p.policy != found.rule and related(p)
                             and not holds(env.bp, entity, plan.final, fields, p))
                return RefusedCreate(op, entity, fields, found.rule, blocking, there, field, humanize(value), also)
    return None


def refused_answer(refused: RefusedCreate, label: str | None) -> str:
    what = label or f"the {refused.blocking.name.replace('_', ' ')}"
    return f"Not possible: {what} has {refused.field.replace('_', ' ')} {refused.fact}."


def as_step(env: EnvSpec, op: Operation, fields: dict[str, Any]) -> Step:
    """The refused create as a step the request writer can word (it never runs)."""
    return Step(env.name, op.name, "create", op.entity, target="refused-create", fields=fields)
