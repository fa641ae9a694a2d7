"""One task from one chain: bind and run it, plant decoys, describe, write turns, gold and checks.

Three shapes: a write chain in one environment, a question (read-only chain answered through
finish), and a cross-environment workflow (a value read in A is the input of a write in B).
A build that cannot be made sound returns the reason instead of a task.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from envcraft.core.state import InitialState
from envcraft.core.tasks import Check, Task, ToolCall
from envcraft.generator.rules.registry import kinds as rule_kinds
from envcraft.generator.tasks.decoys import decoy_file, plant
from envcraft.generator.tasks.describe import Describer, answer_text, preferences, render, words
from envcraft.generator.tasks.env import EnvCache, EnvSpec, Tables, copy_tables, label_field
from envcraft.generator.tasks.execute import Failed, Plan, bind, rerun
from envcraft.generator.tasks.gold import GoldWriter, Unfindable
from envcraft.generator.tasks.instruct import Writer, join, undone, voice, wrap_turn
from envcraft.generator.tasks.judgement import (
    answer_for,
    as_step,
    hint,
    pick_forbidden,
    pick_refused_create,
    reasons_of,
    refused_answer,
)
from envcraft.generator.tasks.notes import note_for, pick_hidden
from envcraft.generator.tasks.order import ordered_turns
from envcraft.generator.tasks.quantities import noun
from envcraft.generator.tasks.reasons import explain
from envcraft.generator.tasks.tiers import minimal_calls, tier
from envcraft.generator.tasks.verify import collateral, diff_checks, overwritten, pin

ID = re.compile(r"\b[a-z]{2,6}-\d{4}\b")
RELATED_SHARE = 0.5  # of judgement tasks, those whose forbidden part is a new record a related-record rule refuses


@dataclass
class Draft:
    """A task before validation, with what the stats need."""

    task: Task
    chain: tuple[str, ...]
    shape: str  # write / question / cross
    decoys: int = 0
    meta: dict[str, Any] = field(default_factory=dict)


def with_decoys(env: EnvSpec, plan: Plan, rng: random.Random, count: int,
                ask: dict[str, str] | None = None, extra: list[tuple[str, str]] | None = None) -> tuple[Plan, dict, dict]:
    """Rerun the plan over seed + decoys; (plan, planted rows, decoy files). Falls back to no decoys."""
    targets = list(extra or [])
    for step in plan.steps:
        if step.writes and step.target and step.target not in plan.created:
            targets.append((step.entity, step.target))
        for name, value in step.fields.items():
            spec = env.entity(step.entity).field(name)
            if spec.type == "ref" and value not in plan.created:
                targets.append((spec.ref, value))
    if count <= 0 or not targets:
        return plan, {}, {}
    planted, origins = plant(env, plan.initial, targets, rng, count, ask)
    if not planted:
        return plan, {}, {}
    tables = copy_tables(plan.initial)
    for table, rows in planted.items():
        tables.setdefault(table, []).extend(copy_tables({table: rows})[table])
    again = rerun(env, plan, tables)
    if again is None:
        return plan, {}, {}
    files = decoy_file(env, plan.initial, planted, origins, rng) if rng.random() < 0.5 else {}
    return again, planted, files


def at_or_after_back_references(clauses: list[str], entity: str, rng: random.Random) -> int:
    """Where another row of `entity` may join the clauses: anywhere, unless a clause says "that <entity>" or
    "the same <entity>", which meant the one row named before it; then after that clause."""
    what = words(entity)
    refers = [i for i, c in enumerate(clauses) if f"that {what}" in c or f"the same {what}" in c]
    return rng.randint(refers[-1] + 1 if refers else 0, len(clauses))


def pinned_rows(plan: Plan, planted: dict[str, list[dict]]) -> list[dict]:
    ids = {r["id"] for rows in planted.values() for r in rows}
    return [r for rows in plan.initial.values() for r in rows if r["id"] in ids]


def turns_for(plan: Plan, rng: random.Random, allow_multi: bool) -> list[int]:
    """A user turn per step: reads go with the write they lead to; 2-3 turns for some longer chains."""
    writes = [i for i, s in enumerate(plan.steps) if s.writes]
    groups = 1
    if allow_multi and len(writes) >= 2 and rng.random() < 0.3:
        groups = 3 if len(writes) >= 4 and rng.random() < 0.4 else 2
    cuts = sorted(rng.sample(range(1, len(writes)), groups - 1)) if groups > 1 else []
    turn_of_write = {w: sum(1 for c in cuts if k >= c) for k, w in enumerate(writes)}
    out, current = [], 0
    for i in range(len(plan.steps)):
        nxt = next((w for w in writes if w >= i), None)
        current = turn_of_write[nxt] if nxt is not None else (turn_of_write[writes[-1]] if writes else 0)
        out.append(current)
    return out


def leaks(text: str, tables: list[Tables]) -> bool:
    found = set(ID.findall(text))
    if not found:
        return False
    ids = {r["id"] for t in tables for rows in t.values() for r in rows}
    return bool(found & ids)


def archetype(env: EnvSpec, ops: list[str], cross: bool, multi: bool) -> str:
    pres = {p.kind for name in ops for p in env.ops[name].preconditions}
    kinds = [env.ops[name].kind for name in ops]
    wanted = []
    if cross:
        wanted.append("cross_tool_pipeline")
    wanted += [k.archetype for k in rule_kinds(pres) if k.archetype]  # in the registry's order
    if kinds.count("transition") >= 2:
        wanted += ["constraint_guided_state_machine", "workflow_orchestration"]
    if multi:
        wanted.append("human_agent_interaction")
    wanted += ["fault_tolerant_stream_processing", "asynchronous_events", "transactional_workspace"]
    for name in wanted:
        if name in env.bp.archetypes:
            return name
    return "cross_tool_pipeline" if cross else env.bp.archetypes[len(ops) % len(env.bp.archetypes)]


def note_step(env: EnvSpec, plan: Plan, rng: random.Random) -> tuple[str, str, list[str]] | None:
    """Workspace kinds: also leave a note that names the new row's id (path, clause, required strings)."""
    if "write_file" not in env.scaffold or not plan.created:
        return None
    row_id = sorted(plan.created, key=plan.created.get)[-1]
    entity = plan.steps[plan.created[row_id]].entity
    if sum(plan.steps[i].entity == entity for i in plan.created.values()) > 1:
        return None  # "the new X" would be ambiguous
    what = words(plan.steps[plan.created[row_id]].entity)
    path = f"notes/{rng.choice(('handoff', 'today', 'followup', 'log'))}_{row_id.split('-')[0]}.md"
    clause = rng.choice((f"write a short note to {path} that mentions the new {what}'s id",
                         f"leave a one-line note in {path} with the id of the new {what}",
                         f"put the new {what}'s id in {path}", f"note the id of the new {what} in {path}",
                         f"jot the new {what}'s reference down in {path}", f"{path} should get the new {what}'s id",
                         f"add a line to {path} naming the new {what} by its id", f"log the new {what}'s id in {path}",
                         f"drop the id of the new {what} into {path}", f"the new {what}'s id should go in {path}"))
    return path, clause, [row_id]


def make_task(task_id: str, envs: list[str], turns: list[str], initial: dict[str, InitialState],
              checks: list[Check], gold: list[ToolCall], arch: str, diff: str, split: str, tags: list[str]) -> Task:
    return Task(id=task_id, envs=envs, turns=turns, initial=initial.get(envs[0], InitialState()),
                other_initial={e: initial[e] for e in envs[1:] if e in initial and initial[e] != InitialState()},
                checks=checks, gold=gold, archetype=arch, difficulty=diff, split=split, tags=tags)


def build_write(cache: EnvCache, env: EnvSpec, ops: tuple[str, ...], rng: random.Random, split: str,
                mode: str = "plain") -> Draft:
    """A write chain; mode `judgement` adds a change the rules refuse, `note` moves a value into a note."""
    plan0 = bind(env, list(ops), env.seed_tables(), rng)
    if plan0 is None:
        raise Failed("bind")
    plan, planted, files = with_decoys(env, plan0, rng, rng.choices((0, 1, 2), (0.4, 0.4, 0.2))[0])
    if overwritten(plan):
        raise Failed("overwritten")
    files, decoy_files = dict(files), bool(files)
    note_path = None
    describer = Describer(env, plan.initial, plan.final, rng, set(plan.created), plan.via)
    describer.prefer = preferences(env, plan.initial, plan.steps)
    turn_of = turns_for(plan, rng, mode == "plain")
    who = voice(env.bp, rng)
    writer = Writer(env, describer, rng)
    hide: dict[int, tuple[str, str]] = {}
    hidden_turn = None
    if mode == "note":
        picked = pick_hidden(env, plan, rng) if "read_file" in env.scaffold else None
        if picked is None:
            raise Failed("nothing_to_note")
        step, field_name, value = picked
        path, text, phrase = note_for(env, plan, step, field_name, value, who.name, rng)
        files[path], note_path = text, path
        hide[id(step)] = (field_name, phrase)
        hidden_turn = turn_of[plan.steps.index(step)]
    if undone(env, plan.steps):  # "register it ... now we're turning it down", in one breath or the next turn
        raise Failed("undone_in_one_breath")
    clauses: dict[int, list[str]] = {}
    for turn in sorted(set(turn_of)):
        steps = [s for s, t in zip(plan.steps, turn_of) if t == turn]
        if not any(s.writes for s in steps):
            continue
        said = writer.goals(steps, hide=hide)
        if said is None:
            raise Failed("undescribable")
        clauses[turn] = said
    last = max(clauses)
    forbidden = refused = None
    related = mode == "judgement" and rng.random() < RELATED_SHARE  # a new record a related-record rule refuses
    if related:
        refused = pick_refused_create(env, plan, rng)
    if mode == "judgement" and refused is None:
        forbidden = pick_forbidden(env, plan, rng)
        if forbidden is None and not related:  # no change here is blocked on every route: a refused record instead
            refused = pick_refused_create(env, plan, rng)
        if forbidden is None and refused is None:
            raise Failed("no_forbidden_change")
    if refused is not None:
        desc = describer.describe(refused.blocking.name, refused.row["id"], avoid={refused.field})
        if desc is None:
            raise Failed("undescribable")
        describer.cache[(refused.blocking.name, refused.row["id"])] = desc
        said = writer.segment(as_step(env, refused.op, refused.fields))
        if said is None:
            raise Failed("undescribable")
        clauses[last].insert(at_or_after_back_references(clauses[last], refused.entity.name, rng), said)
    if forbidden is not None:
        desc = describer.describe(forbidden.entity.name, forbidden.row["id"], avoid={forbidden.field})
        if desc is None:
            raise Failed("undescribable")
        describer.cache[(forbidden.entity.name, forbidden.row["id"])] = desc
        writer.mentions += desc.mentions
        at = at_or_after_back_references(clauses[last], forbidden.entity.name, rng)
        clauses[last].insert(at, writer.end_state(forbidden.op, desc.phrase))
    note = note_step(env, plan, rng) if mode == "plain" and rng.random() < 0.2 else None
    if note:
        clauses[last].append(note[1])
    shell = 0.3 if env.cli else 0.0
    try:
        gold = GoldWriter(env, plan, describer, rng, shell_rate=shell).run(turn_of)
        if forbidden is not None or refused is not None:  # look the row up to learn why it cannot change
            finder = GoldWriter(env, plan, describer, rng)
            finder.tables = copy_tables(plan.final)
            blocked = forbidden or refused
            finder.find((blocked.entity if forbidden else refused.blocking).name, blocked.row["id"], last)
            gold += finder.calls
    except Unfindable as exc:
        raise Failed("unfindable") from exc
    if hide:
        at = next(i for i, c in enumerate(gold) if c.turn == hidden_turn)
        gold.insert(at, ToolCall(tool="read_file", env=env.name, arguments={"path": note_path}, turn=hidden_turn))
    ordered = ordered_turns(cache, Task(id="", envs=[env.name], turns=[], initial=InitialState(rows=planted, files=files),
                                        checks=[], gold=gold),
                            [i for i, c in enumerate(gold) if (c.tool in env.ops and env.ops[c.tool].writes)
                             or c.tool == "run_shell"])
    bodies = {t: join(clauses[t], rng, t == 0, t in ordered) for t in sorted(clauses)}
    tied, why = None, None
    if mode != "judgement":  # a refused part is not one of the parts a reason ties together
        bodies, tied, why = explain(env, [plan.initial, plan.final], plan.steps, set(plan.created), describer,
                                    writer.seen, bodies)
    if forbidden is not None or refused is not None or rng.random() < 0.08:  # the hint never gives one away
        bodies[last] += hint(rng)
    texts = [wrap_turn(bodies[t], rng, t == 0, env.bp, who) for t in sorted(clauses)]
    if leaks(" ".join(texts), [plan.initial, plan.final]):
        raise Failed("id_leak")
    checks, _ = diff_checks(env, plan, plan.initial, plan.final, False, pinned_rows(plan, planted), rng)
    extra_files: set[str] = set()
    if note:
        body = f"Done: {' '.join(note[2])}"
        gold.append(ToolCall(tool="write_file", env=env.name, arguments={"path": note[0], "content": body}, turn=last))
        table = env.entity(plan.steps[plan.created[note[2][0]]].entity).table  # what the note names: a dump fails
        checks.append(Check(kind="file_contains", path=note[0], contains=note[2], table=table, column="id",
                            note="note names the new row"))
        extra_files.add(note[0])
    answer = "Done."
    if forbidden is not None:
        label = label_field(forbidden.entity)
        answer = answer_for(forbidden, forbidden.row.get(label) if label else None)
        checks.append(Check(kind="answer", contains=[forbidden.fact], weight=2.0, table=forbidden.entity.table,
                            column=forbidden.field, about=[forbidden.row["id"]],
                            reasons=reasons_of(env, forbidden.op.name, field_name=forbidden.field),
                            note=f"names why {forbidden.row['id']} cannot change: {forbidden.field} {forbidden.fact}"))
        checks.append(pin(env, forbidden.entity.table, forbidden.row,
                          f"forbidden change left undone: {forbidden.row['id']} untouched", None))
    if refused is not None:
        label = label_field(refused.blocking)
        answer = refused_answer(refused, str(refused.row.get(label)) if label else None)
        reasons = [r for rule in (refused.rule, *refused.also) for r in reasons_of(env, refused.op.name, rule)]
        checks.append(Check(kind="answer", contains=[refused.fact], weight=2.0, table=refused.blocking.table,
                            column=refused.field, about=[refused.row["id"]],
                            reasons=reasons, note=f"names why the {refused.entity.name} is refused: "
                            f"{refused.row['id']} {refused.field} {refused.fact} (rule {refused.rule})"))
        refs = {n: v for n, v in refused.fields.items() if refused.entity.field(n).type == "ref"}
        checks.append(Check(kind="no_record", role="guard", table=refused.entity.table, match=refs,
                            note=f"refused {refused.entity.name} left undone (rule {refused.rule})"))
        checks.append(pin(env, refused.blocking.table, refused.row,
                          f"blocking row left as it is: {refused.row['id']} untouched", None))
    checks.append(collateral(env, plan.initial, plan.final, None, extra_files, plan.steps))
    gold.append(ToolCall(tool="finish", env=env.name, arguments={"answer": answer}, turn=last))
    decoys = sum(len(r) for r in planted.values())
    domain = [c.tool for c in gold if c.tool in env.ops or c.tool == "run_shell"]
    if len(domain) < 2:
        raise Failed("too_short")
    tags = ["write", f"len:{len(domain)}"] + (["decoy"] if decoys else []) + (["decoy_file"] if decoy_files else []) + \
        (["multi_turn"] if len(texts) > 1 else []) + (["shell"] if any(c.tool == "run_shell" for c in gold) else []) + \
        (["file_note"] if note else []) + (["needs:note"] if hide else []) + ([f"reason:{why}"] if why else []) + \
        (["judgement", f"blocked:{forbidden.op.name}"] if forbidden else []) + \
        (["judgement", f"refused:{refused.op.name}", f"rule:{refused.rule}"] if refused else []) + \
        ["chain:" + ">".join(ops)]
    rows = [forbidden.row["id"]] if forbidden else [refused.row["id"]] if refused else []
    judged = forbidden is not None or refused is not None
    tags.insert(2, f"min_calls:{minimal_calls(plan, rows, judged)}")
    task = make_task("", [env.name], texts, {env.name: InitialState(rows=planted, files=files)}, checks, gold,
                     archetype(env, list(ops), False, len(texts) > 1),
                     tier(minimal_calls(plan, rows, judged), tags), split, tags)
    keep = writer.mentions + ([note[0]] if note else [])
    return Draft(task, ops + ((mode,) if mode != "plain" else ()), "write", decoys,
                 {"length": len(domain), "keep": keep, "tie": tied})


ASKABLE = ("str", "email", "date", "datetime", "int", "float", "ref")
QUESTIONS = ("What is the {f} of {d}?", "Can you look up {d} and tell me its {f}?", "I need the {f} we have for {d}.",
             "What {f} do we have on file for {d}?", "Could you check the {f} for {d}?", "{D} - what's the {f}?",
             "Do you have the {f} for {d}?", "I'm after the {f} of {d}.", "Need the {f} of {d}, please.",
             "{D}: what {f} do we have?")


def ask_field(env: EnvSpec, entity_name: str, row: dict[str, Any], rng: random.Random) -> str | None:
    entity = env.entity(entity_name)
    options = []
    for spec in entity.fields:
        value = row.get(spec.name)
        if value is None or spec.type not in ASKABLE or spec.name == label_field(entity):
            continue
        if spec.type == "int" and (spec.max or 0) - (spec.min or 0) < 20:
            continue
        if spec.type == "ref" and (label_field(env.entity(spec.ref)) is None):
            continue
        options.append(spec.name)
    return rng.choice(options) if options else None


def asked_column(env: EnvSpec, entity, spec, asked: str) -> tuple[str | None, str | None]:
    """(table, column) holding the other candidate values of the asked field: what a dump would list."""
    if spec is None:
        return entity.table, "id"
    if spec.type == "ref":
        other = env.entity(spec.ref)
        return other.table, label_field(other)
    return (entity.table, asked) if spec.type != "list_str" else (None, None)


def build_question(cache: EnvCache, env: EnvSpec, ops: tuple[str, ...], rng: random.Random, split: str) -> Draft:
    plan0 = bind(env, list(ops), env.seed_tables(), rng)
    if plan0 is None or plan0.steps[-1].target is None:
        raise Failed("bind")
    last = plan0.steps[-1]
    entity = env.entity(last.entity)
    row = next((r for r in plan0.initial[entity.table] if r["id"] == last.target), None)
    if row is None:
        raise Failed("bind")
    asked = ask_field(env, last.entity, row, rng) or "id"  # nothing else worth asking: its record id
    plan, planted, files = with_decoys(env, plan0, rng, rng.choices((0, 1), (0.45, 0.55))[0],
                                       {last.target: asked} if asked != "id" else None, [(last.entity, last.target)])
    describer = Describer(env, plan.initial, plan.final, rng, set(plan.created), plan.via)
    describer.prefer = preferences(env, plan.initial, plan.steps)
    desc = describer.describe(last.entity, last.target, avoid={asked})
    if desc is None or (not desc.fields and not desc.nested):
        raise Failed("undescribable")
    describer.cache[(last.entity, last.target)] = desc
    spec = entity.field(asked) if asked != "id" else None
    value = row[asked]
    if spec is None:
        what = "reference number"  # the record's id, as a colleague asks for it
    elif spec.type == "ref":
        other = env.entity(spec.ref)
        ref_row = next((r for r in plan.initial[other.table] if r["id"] == value), None)
        if ref_row is None or ref_row.get(label_field(other)) in (None, ""):
            raise Failed("dangling_ref")
        value = ref_row[label_field(other)]
        what = f"{words(asked)}'s {words(label_field(other))}"
    else:
        what = noun(spec, asked)  # "weight in kg", "number of ad pages", never "weight kg"
    expected = answer_text(spec if spec is not None and spec.type != "ref" else None, value)
    question = rng.choice(QUESTIONS).format(f=what, d=desc.phrase, D=desc.phrase[:1].upper() + desc.phrase[1:])
    if asked.endswith(("_at", "_on")) and spec is not None and spec.type in ("date", "datetime"):
        question = f"When was {desc.phrase} {words(asked.rsplit('_', 1)[0])}?"  # sent_at: when was it sent
    question = question[:1].upper() + question[1:]
    tail = rng.choice(("", "", "", " Just that, thanks.", " Only that detail.", " As it's on file, please.",
                       " Word for word, please.", " As recorded, please.", " That's all I need."))
    turns_of = [0] * len(plan.steps)
    try:
        gold = GoldWriter(env, plan, describer, rng).run(turns_of, keep_last=True)
    except Unfindable as exc:
        raise Failed("unfindable") from exc
    text = wrap_turn(question + tail, rng, True, env.bp, voice(env.bp, rng))
    if leaks(text, [plan.initial]):
        raise Failed("id_leak")
    gold.append(ToolCall(tool="finish", env=env.name, arguments={"answer": expected}))
    table, column = asked_column(env, entity, spec, asked)
    about = [last.target, *(d.row_id for d in desc.nested.values())]  # the asked row, and the rows naming it
    checks = [Check(kind="answer", contains=[expected], table=table, column=column, weight=2.0, about=about,
                    note=f"answer: {asked} of {last.target}"),
              *diff_checks(env, plan, plan.initial, plan.final, False, pinned_rows(plan, planted), rng)[0],
              collateral(env, plan.initial, plan.final, None, steps=plan.steps)]
    decoys = sum(len(r) for r in planted.values())
    domain = [c.tool for c in gold if c.tool in env.ops]
    if not domain:
        raise Failed("too_short")  # a question takes at least a lookup and the answer
    minimal = minimal_calls(None, [last.target, *(d.row_id for d in desc.nested.values())], answer=True)
    tags = ["question", f"len:{len(domain)}", f"min_calls:{minimal}"] + (["decoy"] if decoys else []) + \
        (["decoy_file"] if files else []) + ["chain:" + ">".join(ops)]
    task = make_task("", [env.name], [text], {env.name: InitialState(rows=planted, files=files)}, checks, gold,
                     archetype(env, list(ops), False, False), tier(minimal, tags), split, tags)
    return Draft(task, ops + (f"?{asked}",), "question", decoys, {"length": len(domain), "keep": desc.mentions})


__all__ = ["Draft", "Failed", "build_question", "build_write", "render"]
