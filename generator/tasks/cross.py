"""Cross-environment tasks: a value found in environment A is the input of a write in environment B.

The A side is a lookup (a search that finds the source row, sometimes after a little work in A);
the B side is the sink operation with that value plus, now and then, the transitions that follow
it. The instruction names the source row by its distinguishing values and says which value to
carry over, never the value itself: the agent has to read it in A. A decoy in A (same label,
another value) punishes reading the wrong row.
"""

from __future__ import annotations

import random

from envcraft.core.state import InitialState
from envcraft.core.tasks import ToolCall
from envcraft.generator.tasks.build import Draft, Failed, archetype, leaks, make_task, pinned_rows, with_decoys
from envcraft.generator.tasks.decoys import plant
from envcraft.generator.tasks.describe import Describer, preferences, words
from envcraft.generator.tasks.env import EnvCache, copy_tables, label_field
from envcraft.generator.tasks.execute import bind, rerun
from envcraft.generator.tasks.gold import GoldWriter, Unfindable
from envcraft.generator.tasks.graph import graph_of
from envcraft.generator.tasks.instruct import Writer, capital, join, voice, wrap_turn
from envcraft.generator.tasks.quality import first_sentence
from envcraft.generator.tasks.reasons import explain_across
from envcraft.generator.tasks.sampler import repair, sample_chain, takes_back
from envcraft.generator.tasks.tiers import minimal_calls, tier
from envcraft.generator.tasks.verify import collateral, diff_checks, overwritten
from envcraft.generator.tasks.workflow import Link


def follow_ups(cache: EnvCache, env_name: str, op_name: str, rng: random.Random) -> list[str]:
    """0-2 transitions that the state graph allows after the sink operation, none of which takes it back."""
    env = cache[env_name]
    graph = graph_of(env)
    out, current = [], op_name
    for _ in range(rng.choice((0, 0, 1, 2))):
        nxt = [b for b, d in graph[current].items() if "state" in d["kinds"] and env.ops.get(b)
               and env.ops[b].entity == env.ops[op_name].entity and b not in out
               and not takes_back(env, op_name, b)]  # never "book it ... strike it - it's off"
        if not nxt:
            break
        current = rng.choice(sorted(nxt))
        out.append(current)
    return out


def build_cross(cache: EnvCache, link: Link, rng: random.Random, split: str) -> Draft:
    a, b = cache[link.src], cache[link.dst]
    searches = sorted(op.name for op in a.bp.operations if op.kind == "search" and op.entity == link.src_entity)
    a_ops: list[str] = []
    if rng.random() < 0.35:
        writes = sorted(name for name, op in a.ops.items() if op.writes)
        chain = sample_chain(a, graph_of(a), rng, rng.choice(writes), rng.choice((2, 3))) if writes else None
        if chain and not chain.read_only:
            a_ops = list(chain.ops)
    a_ops.append(rng.choice(searches))
    plan_a0 = bind(a, a_ops, a.seed_tables(), rng)
    if plan_a0 is None:
        raise Failed("bind")
    source = plan_a0.steps[-1].target
    src_entity = a.entity(link.src_entity)
    src_row = next((r for r in plan_a0.final[src_entity.table] if r["id"] == source), None)
    if src_row is None or src_row.get(link.src_field) in (None, ""):
        raise Failed("no_value")
    value = src_row[link.src_field]
    b_ops = repair(b, [link.dst_op] + follow_ups(cache, link.dst, link.dst_op, rng), rng, graph_of(b)) or \
        repair(b, [link.dst_op], rng, graph_of(b))
    if not b_ops:
        raise Failed("chain")
    sink = b_ops.index(link.dst_op)
    plan_b0 = bind(b, b_ops, b.seed_tables(), rng, {sink: {link.dst_field: value}})
    if plan_b0 is None:
        raise Failed("bind")
    # A: a decoy of the source row with another value of the carried field
    plan_a, planted_a, files_a = plan_a0, {}, {}
    if rng.random() < 0.6:
        planted_a, _ = plant(a, plan_a0.initial, [(link.src_entity, source)], rng, 1, {source: link.src_field})
        if planted_a:
            tables = copy_tables(plan_a0.initial)
            for table, rows in planted_a.items():
                tables[table].extend(copy_tables({table: rows})[table])
            plan_a = rerun(a, plan_a0, tables) or plan_a0
            if plan_a is plan_a0:
                planted_a = {}
    plan_b, planted_b, files_b = with_decoys(b, plan_b0, rng, rng.choice((0, 0, 1)))
    if overwritten(plan_a) or overwritten(plan_b):
        raise Failed("overwritten")
    desc_a = Describer(a, plan_a.initial, plan_a.final, rng, set(plan_a.created), plan_a.via)
    desc_a.prefer = preferences(a, plan_a.initial, plan_a.steps)
    source_desc = desc_a.describe(link.src_entity, source, avoid={link.src_field})
    if source_desc is None:
        raise Failed("undescribable")
    desc_a.cache[(link.src_entity, source)] = source_desc
    desc_b = Describer(b, plan_b.initial, plan_b.final, rng, set(plan_b.created), plan_b.via)
    desc_b.prefer = preferences(b, plan_b.initial, plan_b.steps)
    bare = not source_desc.nested and set(source_desc.fields) == {label_field(src_entity)}  # just its name
    carried = carry(words(link.dst_field), words(link.src_field), source_desc.phrase, bare, a.bp.title, rng)
    writer_a, writer_b = Writer(a, desc_a, rng), Writer(b, desc_b, rng)
    clauses_a = writer_a.goals(plan_a.steps)
    clauses_b = writer_b.goals(plan_b.steps, {i: carried for i, s in enumerate(plan_b.steps) if s.override})
    if clauses_a is None or not clauses_b:
        raise Failed("undescribable")
    two_turns = bool(clauses_a) and rng.random() < 0.4
    who = voice(a.bp, rng)
    title = b.bp.title
    where = rng.choice((f"Over {at(title)}, ", f"Then, {at(title)}, ", f"Switching to {title}: ", f"On the {title} side, ",
                        f"And for {title}: ") if clauses_a else
                       (f"{capital(at(title))}: ", f"Over {at(title)}, ", f"In the {title} system, ", f"On the {title} side: ",
                        f"For {title}: ", f"{title} needs this: "))
    body_b = led(where, join(clauses_b, rng, not clauses_a))
    seen: dict[str, set[str]] = {}
    for writer in (writer_a, writer_b):
        for what, rows in writer.seen.items():
            seen.setdefault(what, set()).update(rows)
    if clauses_a:
        joined = join(clauses_a, rng)
        body_a = rng.choice((led(f"{capital(at(a.bp.title))}: ", joined),  # the system named first, or after
                             led(f"First, {a.bp.title}: ", joined), led(f"On the {a.bp.title} side: ", joined),
                             joined + f" That's {at(a.bp.title)}.", joined + f" (All of that {at(a.bp.title)}.)",
                             joined + f" All of that is {at(a.bp.title)}."))  # never "This is all <title>."
        (body_a, body_b), tied = explain_across(a, [plan_a.initial, plan_a.final], plan_a.steps, set(plan_a.created),
                                                desc_a, (link.src_entity, source), source_desc.phrase, a.bp.title,
                                                b.bp.title, seen, [body_a, body_b])
        texts = [wrap_turn(body_a, rng, True, a.bp, who), wrap_turn(body_b, rng, False, b.bp, who)] if two_turns else \
            [wrap_turn(body_a + " " + body_b, rng, True, a.bp, who)]
    else:
        (body_b,), tied = explain_across(a, [plan_a.initial, plan_a.final], [], set(), desc_a, (link.src_entity, source),
                                         source_desc.phrase, a.bp.title, b.bp.title, seen, [body_b])
        texts = [wrap_turn(body_b, rng, True, b.bp, who)]
    turn_a = [0] * len(plan_a.steps)
    turn_b = [len(texts) - 1] * len(plan_b.steps)
    try:
        gold = GoldWriter(a, plan_a, desc_a, rng, shell_rate=0.2 if a.cli else 0).run(turn_a, keep_last=True)
        gold += GoldWriter(b, plan_b, desc_b, rng, shell_rate=0.2 if b.cli else 0).run(turn_b)
    except Unfindable as exc:
        raise Failed("unfindable") from exc
    if leaks(" ".join(texts), [plan_a.initial, plan_a.final, plan_b.initial, plan_b.final]):
        raise Failed("id_leak")
    checks_a, _ = diff_checks(a, plan_a, plan_a.initial, plan_a.final, True, pinned_rows(plan_a, planted_a), rng)
    checks_b, _ = diff_checks(b, plan_b, plan_b.initial, plan_b.final, True, pinned_rows(plan_b, planted_b), rng)
    checks = checks_a + checks_b + [collateral(a, plan_a.initial, plan_a.final, a.name, steps=plan_a.steps),
                                     collateral(b, plan_b.initial, plan_b.final, b.name, steps=plan_b.steps)]
    gold.append(ToolCall(tool="finish", env=a.name, arguments={"answer": "Done."}, turn=len(texts) - 1))
    decoys = sum(len(r) for r in planted_a.values()) + sum(len(r) for r in planted_b.values())
    domain = [c.tool for c in gold if c.tool != "finish" and not c.tool.endswith("_file")]
    if len(domain) < 2:
        raise Failed("too_short")
    ops = tuple(f"{a.name}:{o}" for o in a_ops) + tuple(f"{b.name}:{o}" for o in b_ops)
    minimal = minimal_calls(plan_a, [source]) + minimal_calls(plan_b)
    tags = ["cross_env", f"len:{len(domain)}", f"min_calls:{minimal}", f"link:{link.kind}"] + \
        (["decoy"] if decoys else []) + (["multi_turn"] if len(texts) > 1 else []) + \
        [f"reason:{'shared' if len(tied.parts) > 1 else 'across'}", "chain:" + ">".join(ops)]
    initial = {a.name: InitialState(rows=planted_a, files=files_a), b.name: InitialState(rows=planted_b, files=files_b)}
    task = make_task("", [a.name, b.name], texts, initial, checks, gold,
                     archetype(a, a_ops, True, len(texts) > 1), tier(minimal, tags),
                     split, tags)
    keep = writer_a.mentions + writer_b.mentions + source_desc.mentions + [a.bp.title, b.bp.title]
    return Draft(task, ops + (link.src_field, link.dst_field), "cross", decoys,
                 {"length": len(domain), "keep": keep, "tie": tied})


def at(title: str) -> str:
    """`in Pawsome Vet Clinic`, but `at In-house legal` (no "in In-house")."""
    return f"at {title}" if title.lower().startswith("in") else f"in {title}"


def led(where: str, text: str) -> str:
    """`text` after the system it is for; the lead's colon becomes a comma (or a full stop) where the first
    sentence holds one: "Switching to X, we need a matter: practice area ...", never two colons in one."""
    if where.endswith(": ") and ":" in first_sentence(text):
        return where[:-2] + ". " + capital(text) if where.endswith(" this: ") else where[:-2] + ", " + lowered(text)
    return where + lowered(text)


def lowered(text: str) -> str:
    return text[:1].lower() + text[1:] if text and not text[:2].rstrip(".").isdigit() else "\n" + text


def carry(dst: str, src: str, d: str, bare: bool, title: str, rng: random.Random) -> str:
    """Where the value of `dst` comes from: the `src` field of the source row in the other system, never the
    value itself. A possessive ("Nina Lam's phone") only after a bare name: never "district is central's name"."""
    where = at(title)
    options = [f"{dst}: the {src} of {d} {where}", f"{dst} taken from {title} - the {src} it has for {d}",
               f"as {dst}, the {src} that {title} has for {d}", f"{dst}: copy the {src} of {d} {where}",
               f"{dst} - look up {d} {where} and use its {src}", f"{dst} the same as the {src} of {d} {where}",
               f"the {src} of {d} {where} as the {dst}", f"{dst} per {title}, the {src} on {d}",
               f"{dst}: whatever {src} {title} holds for {d}", f"{dst} from {title}, using the {src} of {d}"]
    if bare:
        options += [f"for {dst}, go with {d}'s {src} {where}", f"{dst} matching {d}'s {src} {where}"]
    return rng.choice(options)
