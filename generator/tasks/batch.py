"""A batch: the same state change for every row of one set, with the reason that ties them together
("the scope is down for service, so every session booked on it is off").

Real desks do this all day: a supplier is dropped, so its open orders are cancelled; a room closes, so
its sessions move. The set is one a search returns for one filter (reasoning.row_sets: a status, or a
record the rows point at), the change is one transition every member accepts, and the request says
how many there are, so a careful agent can tell a short search result from the whole set. A long
set makes a long task out of one real workflow, not out of padding.
"""

from __future__ import annotations

import random

from envcraft.core.state import InitialState
from envcraft.core.tasks import ToolCall
from envcraft.generator.blueprint import Operation
from envcraft.generator.tasks.build import Draft, Failed, make_task
from envcraft.generator.tasks.env import EnvCache, EnvSpec, Tables, copy_tables
from envcraft.generator.tasks.execute import Plan, Step, call
from envcraft.generator.tasks.gold import Unfindable
from envcraft.generator.tasks.instruct import Writer, capital, voice, wrap_turn
from envcraft.generator.tasks.judgement import blocking
from envcraft.generator.tasks.reasoning import RowSet, _setup, lookup, row_sets
from envcraft.generator.tasks.tiers import tier
from envcraft.generator.tasks.verify import collateral, diff_checks

MIN_ROWS = 3
COUNT_WORDS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten",
               11: "eleven", 12: "twelve"}
# Why a whole set changes at once: said about the set, so it fits any desk. {ref} is the record the set points at.
REASONS_REF = ("{ref} is out of the picture for now, so", "We've had word about {ref}, so",
               "Following this morning's call about {ref},", "Now that the decision on {ref} is in,",
               "Because of what happened with {ref},", "{Ref} came up at the stand-up, and")
REASONS_STATUS = ("We're clearing the backlog before the weekly review, so", "I went through the list with the team and",
                  "Ahead of the month-end check,", "The team lead asked for a clean list by tonight, so",
                  "We agreed at today's meeting how to handle these:", "To get the board in order before the audit,")
EACH = ("each one", "every one of them", "each of them")


def batch_move(env: EnvSpec, chosen: RowSet, tables: Tables) -> list[tuple[Operation, Tables]]:
    """Transitions (no extra arguments) that every row of the set accepts, one after the other."""
    entity = chosen.entity
    out = []
    for op in env.bp.operations:
        if op.kind != "transition" or op.entity != entity.name or op.required:
            continue
        if any(row.get(entity.status_field) == op.to_status or blocking(env, op, row) is not None for row in chosen.rows):
            continue
        after = copy_tables(tables)
        if all(call(env, after, op.name, {f"{entity.name}_id": row["id"]})[0] for row in chosen.rows):
            out.append((op, after))
    return out


def build_batch(cache: EnvCache, env: EnvSpec, rng: random.Random, split: str) -> Draft:
    tables, describer = _setup(env, rng)
    sets = [s for s in row_sets(env, tables, describer) if s.entity.status_field and len(s.rows) >= MIN_ROWS]
    rng.shuffle(sets)
    for chosen in sets[:8]:
        options = batch_move(env, chosen, tables)
        if not options:
            continue
        op, after = rng.choice(options)
        try:
            gold = lookup(env, tables, describer, rng, chosen)
        except Unfindable:
            continue
        rows = sorted(chosen.rows, key=lambda r: r["id"])
        gold += [ToolCall(tool=op.name, env=env.name, arguments={f"{chosen.entity.name}_id": r["id"]}) for r in rows]
        gold.append(ToolCall(tool="finish", env=env.name, arguments={"answer": f"Done: {len(rows)} updated."}))
        writer = Writer(env, describer, rng)
        n = len(rows)
        count = COUNT_WORDS.get(n, str(n))
        ref = describer.describe(*chosen.ref) if chosen.ref else None
        named = chosen.phrase
        if ref is not None and named.endswith(f" for {ref.phrase}"):  # the reason names the record: "for it" after
            reason = rng.choice(REASONS_REF).format(ref=ref.phrase, Ref=capital(ref.phrase))
            named = named.removesuffix(ref.phrase) + "it"
        else:
            reason = rng.choice(REASONS_STATUS)
        each = rng.choice(EACH)
        change = writer.end_state(op, each)
        text = rng.choice((f"{reason} the {count} {named} all go the same way: {change}.",
                           f"{reason} please go through the {named} - there are {count} - and {change}.",
                           f"{reason} the {named}, {count} on the list, need the same treatment: {change}."))
        steps = [Step(env.name, op.name, "transition", op.entity, r["id"]) for r in rows]
        plan = Plan(env.name, steps, tables, after)
        checks, _ = diff_checks(env, plan, tables, after, False, [], rng)
        checks.append(collateral(env, tables, after, None, steps=steps))
        calls = len(gold) - 1
        tags = ["write", "needs:batch", f"len:{calls}", f"min_calls:{calls}",
                f"chain:{chosen.op.name}?{chosen.field}>{op.name}*{n}"]
        task = make_task("", [env.name], [wrap_turn(capital(text), rng, True, env.bp, voice(env.bp, rng))],
                         {env.name: InitialState()}, checks, gold,
                         "workflow_orchestration" if "workflow_orchestration" in env.bp.archetypes else env.bp.archetypes[0],
                         tier(calls, tags), split, tags)
        return Draft(task, (chosen.op.name, chosen.field, str(chosen.value), op.name, "batch"), "write", 0,
                     {"length": calls, "keep": [count] + writer.mentions + ([ref.phrase] if ref else [])})
    raise Failed("no_batch")


__all__ = ["build_batch"]
