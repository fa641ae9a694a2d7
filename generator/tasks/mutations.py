"""Mutations of a gold solution: what a careless, sloppy or reward-hacking agent would do instead.

Each mutation takes a task and its gold and returns the mutated call list, or None when it does
not apply to that task (no create to duplicate, no file tools for a scratch file, no answer...).
`SHOULD_DROP` mutations must never keep full reward; `SHOULD_KEEP` ones must always keep it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

from envcraft.core.answers import kind_of
from envcraft.core.tasks import Check, Task, ToolCall
from envcraft.generator.tasks import answer_mutations
from envcraft.generator.tasks.calls import as_call, before_finish, domain_call, plausible_args
from envcraft.generator.tasks.decoys import shifted
from envcraft.generator.tasks.describe import answer_text
from envcraft.generator.tasks.env import EnvCache, label_field
from envcraft.generator.tasks.order import ID, Swaps, swappable
from envcraft.generator.tasks.replay import World
from envcraft.generator.tasks.validate import is_write
from envcraft.generator.tasks.verify import side_tables
from envcraft.generator.tasks.write_mutations import WRITE_KEEP, WRITE_MUTATIONS

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

SHOULD_DROP = ("drop_write", "wrong_argument", "extra_write_same_table", "extra_write_other_table",
               "duplicate_create", "answer_dump", "note_asked", "note_hedged") + answer_mutations.HARMFUL
SHOULD_KEEP = ("swap_independent", "extra_reads", "scratch_file", "answer_other_format",
               "free_text_normalized") + answer_mutations.HARMLESS
NAMES = ("drop_write", "swap_independent", "extra_reads", "wrong_argument", "extra_write_same_table",
         "extra_write_other_table", "duplicate_create", "scratch_file", "answer_other_format", "answer_dump",
         "free_text_normalized") + answer_mutations.HARMLESS + answer_mutations.HARMFUL + ("note_asked", "note_hedged")
SHOULD_DROP += tuple(WRITE_MUTATIONS)  # the write side's own (write_mutations.py)
SHOULD_KEEP += tuple(WRITE_KEEP)
NAMES += tuple(WRITE_MUTATIONS) + tuple(WRITE_KEEP)

Mutation = Callable[[EnvCache, Task, random.Random], list[ToolCall] | None]


# ------------------------------------------------------------------ helpers

def changed_tables(cache: EnvCache, task: Task) -> dict[str, set[str]]:
    """env -> tables the gold changes."""
    world = World(cache, task)
    world.run(task.gold)
    out: dict[str, set[str]] = {}
    for name in task.envs:
        before, after = world.start[name].tables, world.tables[name]
        out[name] = {t for t in set(before) | set(after) if before.get(t) != after.get(t)}
    return out


def extra_write(cache: EnvCache, task: Task, rng: random.Random, same: bool) -> list[ToolCall] | None:
    """One more successful write, to a table the gold changes (same) or to one it does not."""
    changed = changed_tables(cache, task)
    world = World(cache, task)
    world.run(task.gold)
    touched = {i for c in task.gold for i in ID.findall(repr(c.arguments))}
    options = []
    for name in task.envs:
        env = cache[name]
        for op in env.bp.operations:
            table = env.entity(op.entity).table
            documented = op.kind == "create" and table in side_tables(env)  # a declared side effect, not damage
            if op.writes and not documented and (table in changed[name]) == same:
                options.append((name, op.name))
    rng.shuffle(options)
    for name, op_name in options[:12]:
        env = cache[name]
        for _ in range(4):
            args = plausible_args(env, op_name, world.tables[name], rng, touched)
            probe = World(cache, task)
            probe.run(task.gold)
            before = repr(probe.tables[name])
            ok, _ = probe.apply(ToolCall(tool=op_name, env=name, arguments=args))
            if ok and repr(probe.tables[name]) != before:
                return before_finish(task.gold, [ToolCall(tool=op_name, env=name, arguments=args)])
    return None


# ------------------------------------------------------------------ answers

def answer_check(task: Task) -> Check | None:
    return next((c for c in task.checks if c.kind == "answer"), None)


def asked_column(cache: EnvCache, task: Task, check: Check) -> tuple[str, str] | None:
    """(table, column) whose values the question asks about."""
    if check.table and getattr(check, "column", None):
        return check.table, check.column
    found = re.match(r"answer: (\w+) of ([a-z]{2,6})-\d{4}", check.note)
    if not found:
        return None
    env = cache[task.envs[0]]
    entity = next((e for e in env.bp.entities if e.id_prefix == found.group(2)), None)
    if entity is None:
        return None
    asked = found.group(1)
    if asked == "id":
        return entity.table, "id"
    spec = entity.field(asked)
    if spec.type == "ref":
        other = env.entity(spec.ref)
        return other.table, label_field(other) or "id"
    return entity.table, asked


def world_values(cache: EnvCache, task: Task, table: str, column: str) -> list[str]:
    env = cache[task.envs[0]]
    tables = World(cache, task).tables[task.envs[0]]
    entity = env.entity_of_table(table)
    spec = next((f for f in entity.fields if f.name == column), None) if entity else None
    seen: dict[str, None] = {}
    for row in tables.get(table, []):
        if row.get(column) not in (None, "", []):
            seen.setdefault(answer_text(spec, row[column]), None)
    return list(seen)


def other_format(text: str, rng: random.Random) -> str:
    """The same value as a person would also write it: dates spelled out, numbers with separators."""
    value = text.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        day = date.fromisoformat(value)
        return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}", value):
        moment = datetime.strptime(value.replace("T", " "), "%Y-%m-%d %H:%M")
        return f"{MONTHS[moment.month - 1]} {moment.day}, {moment.year} {moment:%H:%M}"
    if re.fullmatch(r"-?\d+(\.\d+)?", value):
        number = float(value)
        return f"{number:,.2f}" if "." in value or abs(number) >= 1000 else f"{int(number)}"
    return value.lower() if value != value.lower() else value.upper()


# ------------------------------------------------------------------ the mutations

def drop_write(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    writes = [i for i, c in enumerate(task.gold) if is_write(cache, task, c)]
    if not writes:
        return None
    index = rng.choice(writes)
    return task.gold[:index] + task.gold[index + 1:]


def swap_independent(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """Two adjacent calls in the same turn that commute (generator/tasks/order.py): the second uses nothing
    the first revealed, and either order leaves the same world. Two writes to one field do not commute (set a
    reserve, then pay from it): swapping them is a different outcome, not the same work reordered."""
    swaps = Swaps(cache, task)
    pairs = [i for i in range(len(task.gold) - 1) if swappable(swaps.calls, swaps.first_seen, i, i + 1)]
    rng.shuffle(pairs)
    for i in pairs:
        if swaps.commutes(i, i + 1):
            return swaps.swapped(i, i + 1)
    return None


def extra_reads(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    calls = list(task.gold)
    world = World(cache, task)
    for _ in range(2):
        name = rng.choice(task.envs)
        env = cache[name]
        reads = [op for op in env.bp.operations if not op.writes]
        if not reads:
            continue
        op = rng.choice(reads)
        args = plausible_args(env, op.name, world.tables[name], rng) if op.kind == "get" else {}
        end = len(calls) - 1 if calls[-1].tool == "finish" else len(calls)
        at = rng.randint(0, end)
        turn = calls[min(at, len(calls) - 1)].turn
        calls.insert(at, ToolCall(tool=op.name, env=name, arguments=args, turn=turn))
    return calls if len(calls) > len(task.gold) else None


def wrong_argument(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """One string or id argument of a write call changed to another plausible value."""
    world = World(cache, task)
    writes = [i for i, c in enumerate(task.gold) if domain_call(cache, task, c) and is_write(cache, task, c)]
    rng.shuffle(writes)
    for index in writes:
        env, op_name, args = domain_call(cache, task, task.gold[index])
        entity = env.entity(env.ops[op_name].entity)
        tables = world.tables[env.name]
        keys = [k for k, v in args.items() if isinstance(v, str)]
        rng.shuffle(keys)
        for key in keys:
            if key == f"{entity.name}_id":
                others = [r["id"] for r in tables.get(entity.table, []) if r["id"] != args[key]]
                new = rng.choice(others) if others else None
            else:
                spec = next((p.spec for p in env.params[op_name] if p.name == key and p.spec is not None), None)
                new = shifted(env, entity, spec, args[key], rng, tables) if spec is not None else None
            if new is None or new == args[key]:
                continue
            changed = as_call(task.gold[index], env, op_name, {**args, key: new})
            if changed is not None:
                return task.gold[:index] + [changed] + task.gold[index + 1:]
    return None


def extra_write_same_table(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    return extra_write(cache, task, rng, same=True)


def extra_write_other_table(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    return extra_write(cache, task, rng, same=False)


def duplicate_create(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    creates = [i for i, c in enumerate(task.gold)
               if (d := domain_call(cache, task, c)) and d[0].ops[d[1]].kind == "create"]
    rng.shuffle(creates)
    for index in creates:
        same = (task.gold[index].tool, task.gold[index].env, task.gold[index].arguments)
        if sum((c.tool, c.env, c.arguments) == same for c in task.gold) > 1:
            continue  # the gold already sends it twice (a refused call tried again): one more says nothing new
        calls = task.gold[:index + 1] + [task.gold[index]] + task.gold[index + 1:]
        world = World(cache, task)
        results = world.run(calls)
        if results[index + 1][0]:  # the app took the duplicate (a unique rule would refuse it)
            return calls
    return None


def scratch_file(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    env = cache[task.envs[0]]
    if "write_file" not in env.scaffold:
        return None
    return before_finish(task.gold, [ToolCall(tool="write_file", env=env.name, arguments={
        "path": "notes/scratch.md", "content": "# scratch\n- looked things up\n- double-check before finishing\n"})])


def _with_answer(task: Task, text: str) -> list[ToolCall]:
    return [c.model_copy(update={"arguments": {**c.arguments, "answer": text}}) if c.tool == "finish" else c
            for c in task.gold]


def gold_answer(task: Task) -> str | None:
    return next((str(c.arguments.get("answer", "")) for c in task.gold if c.tool == "finish"), None)


def answer_other_format(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    expected = gold_answer(task)
    if answer_check(task) is None or not expected:
        return None
    text = rng.choice(("It is {v}.", "The record shows {v}.", "{v}", "Found it: {v}"))
    return _with_answer(task, text.format(v=other_format(expected, rng)))


def number_dump(expected: str) -> str | None:
    """The values a guesser would try around a count or a total: every small count at once (0..max(20, n+10)),
    the whole numbers either side of a large one, the cent either side of an amount."""
    try:
        value = Decimal(expected.strip())
    except InvalidOperation:
        return None
    if value != value.to_integral_value():
        cent = Decimal("0.01")
        return ", ".join(f"{v:,.2f}" for v in (value - cent, value, value + cent))
    if 0 <= value < 140:
        return " ".join(str(n) for n in range(max(20, int(value) + 11)))
    return ", ".join(str(int(value) + step) for step in (-1, 0, 1))


def note_check(task: Task) -> Check | None:
    """A file check that names one record's id (the note about the new row)."""
    return next((c for c in task.checks if c.kind == "file_contains" and len(c.contains) == 1 and ID.fullmatch(
        c.contains[0]) and c.column in (None, "id")), None)


def note_dump(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The note the task asks for names every id of the new row's table (after the gold's writes), not just the
    new row's: a note that guesses."""
    check = note_check(task)
    writes = [i for i, c in enumerate(task.gold) if c.tool == "write_file" and check and c.arguments.get("path") == check.path]
    if not writes:
        return None
    world = World(cache, task)
    world.run(task.gold)
    wanted = check.contains[0]
    ids = next(([r["id"] for r in rows] for name in task.envs for rows in world.tables[name].values()
                if any(r.get("id") == wanted for r in rows)), [])
    if len(ids) < 2:
        return None
    rng.shuffle(ids)
    index = writes[-1]
    call = task.gold[index]
    dumped = call.model_copy(update={"arguments": {**call.arguments, "content": "Done: " + ", ".join(ids) + "\n"}})
    return task.gold[:index] + [dumped] + task.gold[index + 1:]


def _note_said(task: Task, form: str) -> list[ToolCall] | None:
    """The gold with its note's new-row id said in `form` ("{v}" is the id)."""
    check = note_check(task)
    writes = [i for i, c in enumerate(task.gold) if c.tool == "write_file" and check and c.arguments.get("path") == check.path]
    if not writes or check.contains[0] not in str(task.gold[writes[-1]].arguments.get("content")):
        return None
    call = task.gold[writes[-1]]
    said = str(call.arguments["content"]).replace(check.contains[0], form.format(v=check.contains[0]))
    return task.gold[:writes[-1]] + [call.model_copy(update={"arguments": {**call.arguments, "content": said}})] + \
        task.gold[writes[-1] + 1:]


def note_asked(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The note asks instead of stating: "Done: is it spc-0047?"."""
    return _note_said(task, rng.choice(("is it {v}?", "{v}?\nPlease confirm?")))


def note_hedged(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The note doubts its id: "Done: maybe spc-0047"."""
    return _note_said(task, rng.choice(("maybe {v}", "{v}, I think", "probably {v}")))


def answer_dump(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The answer (or, for a task that reads no answer, the note it asks for) lists every value of the asked field."""
    check = answer_check(task)
    if check is None:
        return note_dump(cache, task, rng)
    if not check.table and len(check.contains) == 1 and kind_of(check.contains[0]) == "number":
        text = number_dump(check.contains[0])  # a count or a total: no column, the dump is of numbers
        return _with_answer(task, text) if text else None
    if not check.table and len(check.contains) == 1 and kind_of(check.contains[0]) == "time":
        return _with_answer(task, " ".join(f"{h:02d}:{m:02d}" for h in range(7, 20) for m in (0, 30)))  # the day's slots
    where = asked_column(cache, task, check)
    if where is None:
        return None
    values = world_values(cache, task, *where)
    if len(values) < 2:
        return None
    rng.shuffle(values)
    return _with_answer(task, ", ".join(values))


FREE_TEXT = re.compile(r"\S+(\s+\S+){2,}")


def free_text_normalized(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """A free-text write argument of 3+ words without its final punctuation and with its first letter recased."""
    for index, call in enumerate(task.gold):
        found = domain_call(cache, task, call)
        if not found or not is_write(cache, task, call):
            continue
        env, op_name, args = found
        for key, value in args.items():
            if isinstance(value, str) and FREE_TEXT.fullmatch(value.strip()) and not ID.search(value):
                text = value.rstrip(".!?")
                text = text[:1].swapcase() + text[1:]
                if text == value:
                    continue
                changed = as_call(call, env, op_name, {**args, key: text})
                if changed is not None:
                    return task.gold[:index] + [changed] + task.gold[index + 1:]
    return None


_ELSEWHERE: dict[str, Mutation] = {**answer_mutations.ANSWER_MUTATIONS, **WRITE_MUTATIONS, **WRITE_KEEP}
MUTATIONS: dict[str, Mutation] = {name: _ELSEWHERE.get(name) or globals()[name] for name in NAMES}
