"""Tasks that need reasoning over rows, not one lookup: aggregates and comparisons ("which pending
claim is the largest?", "how many", "total", "earliest", "all that match"), a conditional decision
("if its amount is above 5,000 it goes up the chain, otherwise approve it"), and two turns where
the second acts on the row the agent reported in the first ("that one is confirmed now").
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from envcraft.core.state import InitialState
from envcraft.core.tasks import Check, ToolCall
from envcraft.generator.model.blueprint import Entity, Operation
from envcraft.generator.model.humanize import humanize
from envcraft.generator.tasks.build import Draft, Failed, make_task
from envcraft.generator.tasks.describe import Describer, condition, labelled, plural, render, spoken, words
from envcraft.generator.tasks.env import EnvCache, EnvSpec, Tables, copy_tables, label_field
from envcraft.generator.tasks.execute import Plan, Step, call, searchable
from envcraft.generator.tasks.gold import GoldWriter, Unfindable
from envcraft.generator.tasks.instruct import Writer, capital, voice, wrap_turn
from envcraft.generator.tasks.judgement import blocking
from envcraft.generator.tasks.quantities import noun
from envcraft.generator.tasks.tiers import tier
from envcraft.generator.tasks.verify import collateral, diff_checks

SET_SIZE = (2, 12)


@dataclass
class RowSet:
    """Rows one search returns for one filter, and how a person names them ("pending claims")."""

    op: Operation
    entity: Entity
    field: str
    value: Any
    rows: list[dict[str, Any]]
    phrase: str
    ref: tuple[str, str] | None = None  # (entity, id) the filter points at, found first


def row_sets(env: EnvSpec, tables: Tables, describer: Describer) -> list[RowSet]:
    findable = searchable(env)
    out = []
    for op in env.bp.operations:
        if op.kind != "search":
            continue
        entity = env.entity(op.entity)
        many = plural(entity)
        rows = tables.get(entity.table, [])
        for name in op.params:
            spec = entity.field(name)
            if spec.type not in ("enum", "ref"):
                continue
            groups: dict[Any, list[dict]] = {}
            for row in rows:
                if row.get(name) is not None:
                    groups.setdefault(row[name], []).append(row)
            for value, members in sorted(groups.items(), key=lambda kv: str(kv[0])):
                if not SET_SIZE[0] <= len(members) <= SET_SIZE[1]:
                    continue
                if spec.type == "enum":
                    shown = humanize(value)
                    phrase = (f"{shown} {many}" if name == entity.status_field and " " not in shown
                              and shown != many.split()[0] else f"{many} with {labelled(name, shown)}")
                    out.append(RowSet(op, entity, name, value, members, phrase))
                elif spec.ref in findable:
                    desc = describer.describe(spec.ref, value)
                    if desc is None:
                        continue
                    link = "for" if words(name) == words(spec.ref) else f"with {words(name)}"
                    out.append(RowSet(op, entity, name, value, members, f"{many} {link} {desc.phrase}", (spec.ref, value)))
    return out


def lookup(env: EnvSpec, tables: Tables, describer: Describer, rng: random.Random, chosen: RowSet,
           turn: int = 0) -> list[ToolCall]:
    """The gold calls that list exactly the set: find the filter's row if any, then the filtered search."""
    writer = GoldWriter(env, Plan(env.name, [], tables, tables), describer, rng)
    if chosen.ref:
        writer.find(chosen.ref[0], chosen.ref[1], turn)
    param = next(p.name for p in env.params[chosen.op.name] if p.spec is not None and p.spec.name == chosen.field)
    args = {param: chosen.value, **({"limit": 50} if len(chosen.rows) > 20 else {})}
    ok, found = call(env, copy_tables(tables), chosen.op.name, args)
    if not ok or sorted(r.id for r in found) != sorted(r["id"] for r in chosen.rows):
        raise Failed("set_mismatch")
    writer.emit(chosen.op.name, args, turn)
    return writer.calls


def unique_extreme(rows: list[dict], field: str, highest: bool) -> dict | None:
    values = [r.get(field) for r in rows]
    if any(v is None for v in values):
        return None
    best = max(values) if highest else min(values)
    winners = [r for r in rows if r.get(field) == best]
    return winners[0] if len(winners) == 1 else None


def aggregate(env: EnvSpec, chosen: RowSet, rng: random.Random) -> tuple[str, list[str], dict | None, str | None] | None:
    """(question, strings the answer must hold, the row it singles out, the column whose other values in
    the answer make it a dump) for one row set."""
    entity = chosen.entity
    label = label_field(entity)
    labels = [r.get(label) for r in chosen.rows] if label else []
    distinct_labels = label and all(labels) and len(set(labels)) == len(labels)
    options = ["count"]
    for spec in entity.fields:
        if spec.name in (chosen.field, label, entity.status_field):
            continue
        if spec.type in ("int", "float", "date", "datetime") and distinct_labels:
            options += [f"max:{spec.name}", f"min:{spec.name}"]
        if spec.type == "float" and spec.name not in ("latitude", "longitude"):
            options.append(f"total:{spec.name}")
    if distinct_labels and len(chosen.rows) <= 5:
        options.append("all")
    rng.shuffle(options)
    for option in options:
        kind, _, name = option.partition(":")
        if kind == "count":  # "how many, and which": a bare count is a small number one constant guess often hits
            key = label if distinct_labels else "id"  # no name to list them by: their record ids, as a search shows
            n = len(chosen.rows)
            q = rng.choice((f"How many {chosen.phrase} are there, and which?", f"How many {chosen.phrase} do we have?",
                            f"Can you count the {chosen.phrase} for me?", f"What's the number of {chosen.phrase}?",
                            f"I need a count of the {chosen.phrase}.", f"{capital(chosen.phrase)}: how many, and which?",
                            f"Could you tally up the {chosen.phrase}?", f"How many {chosen.phrase} are on the books?"))
            if key != "id":
                said = rng.choice((f" List them by {words(key)}.", f" Name each by {words(key)}.",
                                   f" With the {words(key)} of each, please.", f" And which ones, by {words(key)}?"))
            else:  # how a colleague asks for the ids
                said = rng.choice((" And their reference numbers.", " List the references too.",
                                   " Include each one's reference.", " Which ones, by reference?"))
            return q + said, [str(n)] + [str(r[key]) for r in chosen.rows], None, key
        if kind == "all":
            q = rng.choice((f"Which {chosen.phrase} do we have? Give me the {words(label)} of every one.",
                            f"List all the {chosen.phrase} for me, by {words(label)}."))
            return q, [str(v) for v in labels], None, label
        spec = entity.field(name)
        if kind == "total":
            total = round(sum(r.get(name) or 0 for r in chosen.rows), 2)
            said = noun(spec, name)  # "weight in kg", never "weight kg"
            q = rng.choice((f"What is the total {said} across the {chosen.phrase}?",
                            f"What do the {chosen.phrase} come to in {said}, all together?" if said == words(name)
                            else f"What do the {chosen.phrase} come to, all together, in {said}?")) \
                if "total" not in name else f"What do the {words(name)}s of the {chosen.phrase} add up to?"
            return q, [render(spec, float(total))], None, None
        highest = kind == "max"
        row = unique_extreme(chosen.rows, name, highest)
        if row is None:
            continue
        if spec.type in ("date", "datetime"):
            which = "latest" if highest else "earliest"
            q = rng.choice((f"Which of the {chosen.phrase} has the {which} {words(name)}?",
                            f"Among the {chosen.phrase}, which one comes {'last' if highest else 'first'} by {words(name)}?"))
        else:
            which, said = "highest" if highest else "lowest", noun(spec, name)
            q = rng.choice((f"Which of the {chosen.phrase} has the {which} {said}?",
                            f"Among the {chosen.phrase}, which one has the {which} {said}?"))
        return q + f" Tell me its {words(label)}.", [str(row[label])], row, label
    return None


def world_and_describer(env: EnvSpec, rng: random.Random) -> tuple[Tables, Describer]:
    tables = env.seed_tables()
    return tables, Describer(env, tables, tables, rng)


def build_aggregate(cache: EnvCache, env: EnvSpec, rng: random.Random, split: str) -> Draft:
    tables, describer = world_and_describer(env, rng)
    sets = row_sets(env, tables, describer)
    if not sets:
        raise Failed("no_row_set")
    chosen = rng.choice(sets)
    asked = aggregate(env, chosen, rng)
    if asked is None:
        raise Failed("no_aggregate")
    question, expected, _, asked_column = asked
    try:
        gold = lookup(env, tables, describer, rng, chosen)
    except Unfindable as exc:
        raise Failed("unfindable") from exc
    answer = ", ".join(expected)
    gold.append(ToolCall(tool="finish", env=env.name, arguments={"answer": answer}))
    column = {"table": chosen.entity.table, "column": asked_column} if asked_column else {}  # a total has none
    checks = [Check(kind="answer", contains=expected, weight=2.0, note=f"aggregate over {chosen.entity.table}", **column),
              collateral(env, tables, tables, None)]
    tags = ["question", "needs:aggregate", f"len:{len(gold) - 1}", f"min_calls:{1 + bool(chosen.ref) + 1}",
            f"chain:{chosen.op.name}?{chosen.field}"]
    text = wrap_turn(question, rng, True, env.bp, voice(env.bp, rng))
    task = make_task("", [env.name], [text], {env.name: InitialState()}, checks, gold,
                     _archetype(env), tier(2 + bool(chosen.ref), tags), split, tags)
    return Draft(task, (chosen.op.name, chosen.field, question.split()[0]), "question", 0,
                 {"length": len(gold) - 1, "keep": expected})


def moves(env: EnvSpec, entity: Entity, row: dict[str, Any], tables: Tables) -> list[tuple[Operation, Tables]]:
    """Transitions the rules allow on this row now (no extra arguments), with the tables each leaves."""
    out = []
    for op in env.bp.operations:
        if op.kind != "transition" or op.entity != entity.name or op.required or row.get(entity.status_field) == op.to_status:
            continue
        if blocking(env, op, row) is not None:
            continue
        after = copy_tables(tables)
        ok, _ = call(env, after, op.name, {f"{entity.name}_id": row["id"]})
        if ok:
            out.append((op, after))
    return out


def _state_task(env: EnvSpec, tables: Tables, after: Tables, op: Operation, row: dict[str, Any],
                rng: random.Random) -> list[Check]:
    plan = Plan(env.name, [Step(env.name, op.name, "transition", op.entity, row["id"])], tables, after)
    checks, _ = diff_checks(env, plan, tables, after, False, [], rng)
    return checks + [collateral(env, tables, after, None, steps=plan.steps)]


def build_dependent(cache: EnvCache, env: EnvSpec, rng: random.Random, split: str) -> Draft:
    """Turn 1: which row stands out; turn 2: act on the one the agent named."""
    tables, describer = world_and_describer(env, rng)
    sets = [s for s in row_sets(env, tables, describer) if s.entity.status_field]
    rng.shuffle(sets)
    for chosen in sets[:6]:
        asked = aggregate(env, chosen, rng)
        if asked is None or asked[2] is None:
            continue
        question, expected, row, _ = asked
        options = moves(env, chosen.entity, row, tables)
        if not options:
            continue
        op, after = rng.choice(options)
        try:
            gold = lookup(env, tables, describer, rng, chosen)
        except Unfindable:
            continue
        gold += [ToolCall(tool=op.name, env=env.name, arguments={f"{chosen.entity.name}_id": row["id"]}, turn=1),
                 ToolCall(tool="finish", env=env.name, arguments={"answer": "Done."}, turn=1)]
        writer = Writer(env, describer, rng)
        who = voice(env.bp, rng)
        follow = capital(writer.end_state(op, rng.choice(("that one", "the one you found"))))
        texts = [wrap_turn(question, rng, True, env.bp, who),
                 rng.choice(("Thanks. ", "OK, that's the one. ", "Got it. ")) + follow + "."]
        checks = _state_task(env, tables, after, op, row, rng)
        tags = ["write", "multi_turn", "dependent_turns", "needs:aggregate", f"len:{len(gold) - 1}",
                f"min_calls:{2 + bool(chosen.ref)}", f"chain:{chosen.op.name}?{chosen.field}>{op.name}"]
        task = make_task("", [env.name], texts, {env.name: InitialState()}, checks, gold, "human_agent_interaction"
                         if "human_agent_interaction" in env.bp.archetypes else _archetype(env),
                         tier(2 + bool(chosen.ref), tags), split, tags)
        return Draft(task, (chosen.op.name, chosen.field, op.name, "dependent"), "write", 0,
                     {"length": len(gold) - 1, "keep": expected + writer.mentions})
    raise Failed("no_dependent")


def threshold(value: Any, kind: str, above: bool, rng: random.Random) -> Any:
    """A round bound the value is above (or below)."""
    if kind in ("date", "datetime"):
        day = date.fromisoformat(str(value)[:10])
        return (day + timedelta(days=-rng.randint(1, 5) if above else rng.randint(1, 5))).isoformat()
    magnitude = 10 ** max(0, len(str(int(abs(value)))) - 2)
    bound = (int(value * rng.uniform(0.6, 0.9)) // magnitude) * magnitude if above else \
        (int(value * rng.uniform(1.1, 1.5)) // magnitude + 1) * magnitude
    if above and bound >= value:
        bound = value - 1
    if not above and bound <= value:
        bound = int(value) + 1
    return bound


def build_conditional(cache: EnvCache, env: EnvSpec, rng: random.Random, split: str) -> Draft:
    """'If its <field> is above X, <outcome A>; otherwise <outcome B>': the data decides."""
    tables, describer = world_and_describer(env, rng)
    findable = searchable(env)
    entities = [e for e in env.bp.entities if e.status_field and e.name in findable and label_field(e)]
    rng.shuffle(entities)
    for entity in entities:
        fields = [f for f in entity.fields if f.type in ("int", "float", "date") and f.name != entity.status_field]
        rows = list(tables.get(entity.table, []))
        rng.shuffle(rows)
        for row in rows[:8]:
            options = moves(env, entity, row, tables)
            usable = [f for f in fields if isinstance(row.get(f.name), (int, float, str)) and row.get(f.name) not in ("", 0)]
            if len(options) < 2 or not usable:
                continue
            spec = rng.choice(usable)
            (op_a, after_a), (op_b, after_b) = rng.sample(options, 2)
            holds = rng.random() < 0.5
            bound = threshold(row[spec.name], spec.type, holds, rng)
            desc = describer.describe(entity.name, row["id"], avoid={spec.name})
            if desc is None:
                continue
            describer.cache[(entity.name, row["id"])] = desc
            writer = Writer(env, describer, rng)
            writer.mentioned[row["id"]] = words(entity.name)
            writer.saw(words(entity.name), row["id"])
            said_a, said_b = writer.end_state(op_a, "it"), writer.end_state(op_b, "it")
            bound_text = spoken(spec, bound, describer.today, rng)
            when = condition(spec.name, spec, bound_text, rng)
            text = rng.choice((f"Have a look at {desc.phrase}: {when}, {said_a}; otherwise {said_b}.",
                               f"About {desc.phrase} - {when}, {said_a}. If not, {said_b}.",
                               f"{capital(desc.phrase)}: {when}, {said_a}; if not, {said_b}.",
                               f"Please check {desc.phrase}. {capital(when)}, {said_a}; otherwise {said_b}.",
                               f"Can you decide on {desc.phrase}? {capital(when)}, {said_a}. Else {said_b}.",
                               f"{capital(desc.phrase)} needs a decision: {when}, {said_a}; if not, {said_b}."))
            op, after = (op_a, after_a) if holds else (op_b, after_b)
            try:
                finder = GoldWriter(env, Plan(env.name, [], tables, tables), describer, rng)
                finder.find(entity.name, row["id"], 0)
            except Unfindable:
                continue
            if not finder.calls:
                continue
            gold = finder.calls + [ToolCall(tool=op.name, env=env.name, arguments={f"{entity.name}_id": row["id"]}),
                                   ToolCall(tool="finish", env=env.name, arguments={"answer": "Done."})]
            checks = _state_task(env, tables, after, op, row, rng)
            tags = ["write", "needs:conditional", f"len:{len(gold) - 1}", "min_calls:2",
                    f"chain:{entity.name}?{spec.name}>{op_a.name}|{op_b.name}"]
            task = make_task("", [env.name], [wrap_turn(capital(text), rng, True, env.bp, voice(env.bp, rng))],
                             {env.name: InitialState()}, checks, gold, "constraint_guided_state_machine"
                             if "constraint_guided_state_machine" in env.bp.archetypes else _archetype(env),
                             tier(2, tags), split, tags)
            return Draft(task, (entity.name, spec.name, op_a.name, op_b.name, "if"), "write", 0,
                         {"length": len(gold) - 1, "keep": desc.mentions + [bound_text] + writer.mentions})
    raise Failed("no_conditional")


def _archetype(env: EnvSpec) -> str:
    return env.bp.archetypes[0]
