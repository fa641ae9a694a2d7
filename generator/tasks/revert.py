"""History needs: a colleague changed a record by mistake earlier today; put it back as it was.

The task's initial state holds the mistaken value and a history (the app's change log, read with
`list_changes`) that says what it was before, beside other changes that were meant (the same person's
on earlier days, other people's this morning). The old value is nowhere else: the workspace's exports
are re-rendered with the mistake, so only the history tells it. The request names either the person
("Ana changed an appointment by mistake this morning") or the record ("the vet on Rex's appointment
was changed by mistake"), never the values.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from envcraft.core.state import HISTORY_TABLE, InitialState
from envcraft.core.tasks import ToolCall
from envcraft.generator.compile.appcode import pyname
from envcraft.generator.model.blueprint import Entity, Operation
from envcraft.generator.seeds.seed import export
from envcraft.generator.seeds.seed_history import colleagues, moves_into
from envcraft.generator.tasks.build import Draft, Failed, make_task
from envcraft.generator.tasks.describe import Describer, with_article, words
from envcraft.generator.tasks.env import EnvCache, EnvSpec, Tables, copy_tables
from envcraft.generator.tasks.execute import Plan, Step, call, searchable
from envcraft.generator.tasks.gold import GoldWriter, Unfindable
from envcraft.generator.tasks.instruct import capital, voice, wrap_turn
from envcraft.generator.tasks.quantities import noun
from envcraft.generator.tasks.reasoning import moves
from envcraft.generator.tasks.tiers import tier
from envcraft.generator.tasks.verify import collateral, diff_checks

REVERTIBLE = ("enum", "ref", "date", "datetime", "str", "int", "float")
DECOYS = (2, 4)


def _options(env: EnvSpec, tables: Tables) -> list[tuple[Operation, Entity, str]]:
    """(update operation, its entity, a field it sets) for every settable field other than the status."""
    out = []
    for op in env.bp.operations:
        if op.kind != "update":
            continue
        entity = env.entity(op.entity)
        for name in op.params:
            spec = entity.field(name)
            if spec.type in REVERTIBLE and name != entity.status_field and tables.get(entity.table):
                out.append((op, entity, name))
    return out


def other_values(env: EnvSpec, entity: Entity, name: str, tables: Tables, current: Any) -> list[Any]:
    """Values the field could plausibly hold instead: the enum's, or those other rows hold."""
    spec = entity.field(name)
    pool = list(spec.values) if spec.type == "enum" else [r.get(name) for r in tables[entity.table]]
    return sorted({v for v in pool if v is not None and v != current and not isinstance(v, (list, bool))}, key=str)


def _changed(before: Tables, after: Tables) -> dict[str, dict[str, dict[str, Any]]] | None:
    """Field updates that turn `before` into `after`, or None when rows were created or deleted."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for table, rows in after.items():
        old = {r["id"]: r for r in before.get(table, [])}
        if set(old) != {r["id"] for r in rows}:
            return None
        for row in rows:
            fields = {k: v for k, v in row.items() if old[row["id"]].get(k) != v}
            if fields:
                out.setdefault(table, {})[row["id"]] = fields
    return out


def _entry(at: str, by: str, op: str, table: str, row_id: str, name: str, old: Any, new: Any) -> dict[str, Any]:
    return {"at": at, "by": by, "operation": op, "table": table, "row_id": row_id, "field": name, "old": old, "new": new}


def _decoys(env: EnvSpec, tables: Tables, rng: random.Random, skip: str, culprit: str, people: list[str],
            morning: datetime) -> list[dict[str, Any]]:
    """Changes that were meant, each ending in the value its row holds now (a field set, a status moved the
    way the rules allow): others' this morning, the culprit's on earlier days."""
    kinds: list[tuple[str, str, str, list[dict[str, Any]], Any]] = []
    for op, entity, name in _options(env, tables):
        kinds.append((op.name, entity.table, name, tables[entity.table],
                      lambda row, e=entity, n=name: other_values(env, e, n, tables, row[n])))
    for table, field, op_name, end, starts in moves_into(env.bp):
        kinds.append((op_name, table, field, [r for r in tables.get(table, []) if r.get(field) == end],
                      lambda row, s=starts: s))
    rng.shuffle(kinds)
    out = []
    for op_name, table, name, rows, before in kinds[:rng.randint(*DECOYS)]:
        rows = [r for r in rows if r["id"] != skip and r.get(name) is not None]
        row = rng.choice(rows) if rows else None
        olds = [v for v in before(row) if v != row[name]] if row else []
        if not olds:
            continue
        if rng.random() < 0.5:
            by, at = rng.choice([p for p in people if p != culprit]), morning + timedelta(minutes=5 * rng.randint(0, 11))
        else:
            by, at = culprit, morning - timedelta(days=rng.randint(1, 4)) + timedelta(minutes=15 * rng.randint(4, 36))
        out.append(_entry(at.strftime("%Y-%m-%dT%H:%M"), by, op_name, table, row["id"], name, rng.choice(olds),
                          row[name]))
    return out


def _exports(env: EnvSpec, tables: Tables, changed: set[str]) -> dict[str, str]:
    """The workspace's exports of the changed tables as they read after the mistake (no stale copy keeps
    the old value)."""
    out = {}
    for file in env.bp.files:
        if file.export and env.entity(file.export).table in changed and file.path in env.seed_files:
            out[file.path] = export(env.bp, file.export, file.format, tables)
    return out


@dataclass
class Mistake:
    """A change someone made by mistake, and the call that puts it back."""

    entity: Entity
    row: dict[str, Any]
    field: str  # the field whose old value only the history holds
    mistaken: Tables  # the world after the mistake: the task's initial state
    updates: dict[str, dict[str, dict[str, Any]]]  # what the mistake changed, as an initial-state patch
    made_by: str  # the operation the mistake was made with
    fix: ToolCall  # the gold's write
    after: Tables  # the world after the fix: the seed again
    alternatives: int  # calls of the same kind that would put something else there


def _update_mistakes(env: EnvSpec, tables: Tables, rng: random.Random) -> list[Mistake]:
    """A settable field set to another plausible value; putting it back is the same update with the old value."""
    out = []
    for op, entity, name in _options(env, tables):
        row = rng.choice(tables[entity.table])
        old = row.get(name)
        choices = other_values(env, entity, name, tables, old)
        if old is None or not choices:
            continue
        key = f"{entity.name}_id"
        mistaken = copy_tables(tables)
        ok, _ = call(env, mistaken, op.name, {key: row["id"], pyname(name): rng.choice(choices)})
        updates = _changed(tables, mistaken) if ok else None
        fix = ToolCall(tool=op.name, env=env.name, arguments={key: row["id"], pyname(name): old})
        after = copy_tables(mistaken)
        if updates and call(env, after, op.name, dict(fix.arguments))[0] and after == tables:
            out.append(Mistake(entity, row, name, mistaken, updates, op.name, fix, after, len(choices)))
    return out


def _status_mistakes(env: EnvSpec, tables: Tables, rng: random.Random) -> list[Mistake]:
    """A record moved to the wrong status; putting it back is the transition that leads to where it was."""
    out = []
    for entity in env.bp.entities:
        if not entity.status_field or not tables.get(entity.table):
            continue
        picked = rng.sample(tables[entity.table], min(3, len(tables[entity.table])))
        for row, (op, mistaken) in [(one, move) for one in picked for move in moves(env, entity, one, tables)]:
            updates = _changed(tables, mistaken)
            moved = next(r for r in mistaken[entity.table] if r["id"] == row["id"])
            back = [(o, after) for o, after in moves(env, entity, moved, mistaken) if after == tables]
            if not updates or len(back) != 1:
                continue
            fix = ToolCall(tool=back[0][0].name, env=env.name, arguments={f"{entity.name}_id": row["id"]})
            out.append(Mistake(entity, row, entity.status_field, mistaken, updates, op.name, fix, back[0][1],
                               len(moves(env, entity, moved, mistaken)) - 1))
    return out


def build_revert(cache: EnvCache, env: EnvSpec, rng: random.Random, split: str) -> Draft:
    tables = env.seed_tables()
    people = colleagues(env.bp)
    history = tables.get(HISTORY_TABLE, [])
    day = datetime.fromisoformat(f"{env.bp.today}T08:00")
    findable = searchable(env)
    found = _update_mistakes(env, tables, rng) + _status_mistakes(env, tables, rng)
    rng.shuffle(found)
    for mistake in found[:6]:
        entity, row, name, mistaken = mistake.entity, mistake.row, mistake.field, mistake.mistaken
        # Named by its record, a mistake with one way back needs no history: name the person instead.
        by_person = rng.random() < 0.5 or entity.name not in findable or mistake.alternatives < 1
        culprit = rng.choice(people)
        who = voice(env.bp, rng)
        if who.name == culprit:
            continue
        at = (day + timedelta(minutes=5 * rng.randint(0, 10))).strftime("%Y-%m-%dT%H:%M")
        planted = [_entry(at, culprit, mistake.made_by, t, row_id, f, _value(tables, t, row_id, f), v)
                   for t, rows in sorted(mistake.updates.items()) for row_id, fields in sorted(rows.items())
                   for f, v in sorted(fields.items())]
        planted += _decoys(env, mistaken, rng, row["id"], culprit, people, day)
        planted.sort(key=lambda e: e["at"])
        entries = [{"id": f"chg-{len(history) + 1 + n:04d}", **e} for n, e in enumerate(planted)]
        describer = Describer(env, mistaken, mistaken, rng)
        gold: list[ToolCall] = []
        keep: list[str] = []
        thing, field_words = words(entity.name), noun(entity.field(name), name)
        if by_person:
            first_name = culprit.split()[0]
            text = rng.choice((
                # no variant opens on the name: an opener ("Hey,") lowercases the word after it
                f"Apparently {culprit} changed one of our {thing} records by mistake this morning. Can you put it "
                "back the way it was before?",
                f"Earlier today {first_name} touched the wrong {thing} and changed it by accident. Please undo "
                f"{first_name}'s change.",
                f"This morning {culprit} edited {with_article(thing)} they shouldn't have. Could you set it back to what it was?"))
            gold.append(ToolCall(tool="list_changes", env=env.name, arguments={"table": entity.table}))
        else:
            desc = describer.describe(entity.name, row["id"], avoid={name})
            if desc is None:
                continue
            finder = GoldWriter(env, Plan(env.name, [], mistaken, mistaken), describer, rng)
            try:
                finder.find(entity.name, row["id"], 0)
            except Unfindable:
                continue
            gold += finder.calls
            keep = list(desc.mentions)
            text = rng.choice((
                f"The {field_words} on {desc.phrase} was changed by mistake earlier today. Please set it back to what "
                "it was before.",
                f"Someone changed the {field_words} of {desc.phrase} this morning, and it was wrong. Can you restore "
                "the previous value?"))
            gold.append(ToolCall(tool="list_changes", env=env.name, arguments={"row_id": row["id"]}))
        gold += [mistake.fix, ToolCall(tool="finish", env=env.name, arguments={"answer": "Done."})]
        kind = env.ops[mistake.fix.tool].kind
        plan = Plan(env.name, [Step(env.name, mistake.fix.tool, kind, entity.name, row["id"])], mistaken, mistake.after)
        checks, _ = diff_checks(env, plan, mistaken, mistake.after, False, [], rng)
        checks.append(collateral(env, mistaken, mistake.after, None, steps=plan.steps))
        initial = InitialState(rows={HISTORY_TABLE: entries}, updates=mistake.updates,
                               files=_exports(env, mistaken, set(mistake.updates)))
        minimal = 2 + (not by_person)  # (find the record,) read its history, put the value back
        tags = ["write", "needs:history", f"len:{len(gold) - 1}", f"min_calls:{minimal}",
                f"chain:{'by' if by_person else 'row'}>list_changes>{mistake.fix.tool}"]
        task = make_task("", [env.name], [wrap_turn(capital(text), rng, True, env.bp, who)], {env.name: initial},
                         checks, gold, env.bp.archetypes[0], tier(minimal, tags), split, tags)
        # Its own shape, so the engine's diversity check keeps one task per mistake and fix, named either way
        return Draft(task, (mistake.made_by, mistake.fix.tool, name, "by" if by_person else "row"), "revert", 0,
                     {"length": len(gold) - 1, "keep": keep})
    raise Failed("no_revert")


def _value(tables: Tables, table: str, row_id: str, name: str) -> Any:
    return next(r.get(name) for r in tables[table] if r["id"] == row_id)


__all__ = ["build_revert", "other_values"]
