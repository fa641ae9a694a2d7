"""A batch: the same state change for every row of one set, with the reason that ties them together
("the scope is down for service, so every session booked on it is off").

Real desks do this all day: a supplier is dropped, so its open orders are cancelled; a room closes, so
its sessions move. The set is one a search returns for one filter (reasoning.row_sets: a status, or a
record the rows point at), the change is one transition every member accepts (or, for some, one of two
as a threshold on a field decides: "above 5,000 it goes up the chain; the rest are approved"), and the
request says how many there are, so a careful agent can tell a short search result from the whole set. A long
set makes a long task out of one real workflow, not out of padding.
"""

from __future__ import annotations

import random

from envcraft.core.state import InitialState
from envcraft.core.tasks import ToolCall
from envcraft.generator.model.blueprint import Operation
from envcraft.generator.tasks.build import Draft, Failed, make_task
from envcraft.generator.tasks.describe import condition, spoken
from envcraft.generator.tasks.env import EnvCache, EnvSpec, Tables, copy_tables
from envcraft.generator.tasks.execute import Plan, Step, call
from envcraft.generator.tasks.gold import Unfindable
from envcraft.generator.tasks.instruct import Writer, capital, voice, wrap_turn
from envcraft.generator.tasks.judgement import blocking
from envcraft.generator.tasks.reasoning import RowSet, lookup, row_sets, world_and_describer
from envcraft.generator.tasks.tiers import tier
from envcraft.generator.tasks.verify import collateral, diff_checks

MIN_ROWS = 3
SPLIT_SHARE = 0.4  # of batches, those where a threshold on a field decides which of two changes a row gets
COUNT_WORDS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten",
               11: "eleven", 12: "twelve"}
# Why a whole set changes at once: said about the set, so it fits any desk; short, so that none recurs word for
# word across the store (realism.top20_5gram_coverage), and without a colon: the change follows one.
# {ref} is the record the set points at.
REASONS_REF = ("{ref} is out of the picture for now, so", "We've had word about {ref}, so",
               "Following this morning's call about {ref},", "Now that the decision on {ref} is in,",
               "Because of what happened with {ref},", "{Ref} came up at the stand-up, so",
               "Given the news on {ref},", "There's been a change with {ref}, so", "After today's update on {ref},",
               "{Ref} is off the table, so", "Since {ref} changed,", "With {ref} out,", "Because of {ref},",
               "As for {ref},", "{Ref} is gone, so", "Now that {ref} is sorted,", "Regarding {ref},")
REASONS_STATUS = ("Before the weekly review,", "I went through the list, so", "Ahead of month-end,", "Before tonight's handover,",
                  "As agreed this morning,", "To tidy the board,", "Before the audit,",
                  "Per this week's review,", "After the holiday,", "Our list is a mess, so", "With the quarter closing,",
                  "Before Friday,", "After the weekend,", "While it's quiet,", "The team lead asked, so",
                  "To clear the backlog,", "On the manager's say-so,", "Following the stand-up,",
                  "As a bit of housekeeping,", "In today's tidy-up,", "While we clean up,")
EACH = ("each one", "each of them", "every one", "each", "each of these", "every single one")  # singular: "{x} is"
# no colon: the change follows one ("... need deciding: if A, X; for the others, Y")
REST = ("for the rest,", "otherwise", "for the others,", "if not,", "and for the rest,", "for any other one,", "else",
        "for the remainder,")
# How the set is put before the change: short and many, so that no frame recurs word for word across the store
SAME = ("the {n} {rows} all go the same way", "please go through the {rows} - there are {n}",
        "the {rows}, {n} on the list, get the same", "take the {n} {rows}", "the {rows} ({n} in all)",
        "all {n} {rows}", "the {n} {rows} on the list", "go through the {n} {rows}", "please handle the {n} {rows}",
        "same for all {n} {rows}", "{n} {rows}, one change", "the {rows} - {n} of them", "there are {n} {rows}",
        "the {rows} (there are {n})", "we have {n} {rows}",
        "{n} {rows} all told", "the whole set of {n} {rows}", "I count {n} {rows}")
SPLIT = ("please go through the {n} {rows}", "the {rows} - {n} of them - need deciding",
         "there are {n} {rows} to decide on", "{n} {rows} to handle", "each of the {n} {rows} goes one way or the other",
         "sort out the {n} {rows}", "the {n} {rows} split two ways", "the {rows} ({n}) need a call each",
         "for the {n} {rows}", "work through the {rows}, all {n}", "the {n} {rows} need sorting",
         "{n} {rows}, two outcomes", "decide the {n} {rows}", "the {rows} (I count {n})")


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


def split_rule(chosen: RowSet, options: list[tuple[Operation, Tables]], rng: random.Random):
    """A threshold on one field that sends some rows one way and the rest another ("where the amount is above
    5,000, it goes up the chain; the rest are approved"): (field, bound, op above, op otherwise), or None."""
    if len(options) < 2:
        return None
    entity = chosen.entity
    fields = [f for f in entity.fields if f.type in ("int", "float", "date", "datetime")
              and f.name not in (chosen.field, entity.status_field)
              and all(isinstance(r.get(f.name), (int, float, str)) and r.get(f.name) != "" for r in chosen.rows)]
    rng.shuffle(fields)
    for spec in fields:
        values = sorted({r[spec.name] for r in chosen.rows})
        if len(values) < 2:
            continue
        bound = values[rng.randrange(1, len(values)) - 1]  # at least one row above it and one not
        (op_a, _), (op_b, _) = rng.sample(options, 2)
        return spec, bound, op_a, op_b
    return None


def build_batch(cache: EnvCache, env: EnvSpec, rng: random.Random, split: str) -> Draft:
    tables, describer = world_and_describer(env, rng)
    sets = [s for s in row_sets(env, tables, describer) if s.entity.status_field and len(s.rows) >= MIN_ROWS]
    rng.shuffle(sets)
    for chosen in sets[:8]:
        options = batch_move(env, chosen, tables)
        if not options:
            continue
        rows = sorted(chosen.rows, key=lambda r: r["id"])
        rule = split_rule(chosen, options, rng) if rng.random() < SPLIT_SHARE else None
        writer = Writer(env, describer, rng)
        each = rng.choice(EACH)
        if rule is None:
            op, after = rng.choice(options)
            moves = [(r, op) for r in rows]
            change = writer.end_state(op, each)
        else:
            spec, bound, op_a, op_b = rule
            moves = [(r, op_a if r[spec.name] > bound else op_b) for r in rows]
            after = copy_tables(tables)
            if not all(call(env, after, op.name, {f"{chosen.entity.name}_id": r["id"]})[0] for r, op in moves):
                continue
            bound_text = spoken(spec, bound, describer.today, rng)  # "after 11 August", as staff say it
            writer.mentions.append(bound_text)
            rest = rng.choice(REST)
            change = (f"{condition(spec.name, spec, bound_text, rng)}, {writer.end_state(op_a, 'it')}; "
                      f"{rest} {writer.end_state(op_b, 'it')}")
        try:
            gold = lookup(env, tables, describer, rng, chosen)
        except Unfindable:
            continue
        gold += [ToolCall(tool=op.name, env=env.name, arguments={f"{chosen.entity.name}_id": r["id"]}) for r, op in moves]
        gold.append(ToolCall(tool="finish", env=env.name, arguments={"answer": f"Done: {len(rows)} updated."}))
        n = len(rows)
        count = COUNT_WORDS.get(n, str(n))
        ref = describer.describe(*chosen.ref) if chosen.ref else None
        named = chosen.phrase
        if ref is not None and named.endswith(f" for {ref.phrase}"):  # the reason names the record: "for it" after
            reason = rng.choice(REASONS_REF).format(ref=ref.phrase, Ref=capital(ref.phrase))
            named = named.removesuffix(ref.phrase) + "it"
        else:
            reason = rng.choice(REASONS_STATUS)
        text = f"{reason} {rng.choice(SAME if rule is None else SPLIT).format(n=count, rows=named)}: {change}."
        steps = [Step(env.name, op.name, "transition", op.entity, r["id"]) for r, op in moves]
        plan = Plan(env.name, steps, tables, after)
        checks, _ = diff_checks(env, plan, tables, after, False, [], rng)
        checks.append(collateral(env, tables, after, None, steps=steps))
        calls = len(gold) - 1
        ops = ">".join(sorted({op.name for _, op in moves}))
        tags = ["write", "needs:batch"] + (["needs:conditional"] if rule else []) + \
            [f"len:{calls}", f"min_calls:{calls}", f"chain:{chosen.op.name}?{chosen.field}>{ops}*{n}"]
        task = make_task("", [env.name], [wrap_turn(capital(text), rng, True, env.bp, voice(env.bp, rng))],
                         {env.name: InitialState()}, checks, gold,
                         "workflow_orchestration" if "workflow_orchestration" in env.bp.archetypes else env.bp.archetypes[0],
                         tier(calls, tags), split, tags)
        return Draft(task, (chosen.op.name, chosen.field, str(chosen.value), ops, "batch"), "write", 0,
                     {"length": calls, "keep": [count] + writer.mentions + ([ref.phrase] if ref else [])})
    raise Failed("no_batch")


__all__ = ["build_batch"]
