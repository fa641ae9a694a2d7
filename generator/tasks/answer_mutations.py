"""Answer mutations of issue 18: the gold calls kept, only the final answer changed.

Harmless (must keep full reward): a careful report of every changed record before the answer, each listed id
annotated with its status, the question restated, prose using another value of the column as a verb, the
refusing rule quoted, every rule the refused record breaks named, the answer as compact JSON beside other records'
own values. Harmful (must never keep it): the value negated (in full-width letters too), asked back, hedged with a
plausible value the world does not hold ("either X or Y", "X/Y"), or said about another record; a refusal explained
by its rules' ids plus one the record keeps, or by every rule id of the environment; every datetime of the column as
the store writes it ("2026-11-19T10:30"); "(cancelled)" after the value and after other values of the column; the value
doubted or denied in other words ("apparently X", "X (unconfirmed)", "hardly X"); every record of the asked table
beside its own value; a refusal's rule named beside its value hedged; the policies pasted as a refusal's answer.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from envcraft.core.claims import RECORD_ID
from envcraft.core.grading import asked_record
from envcraft.core.tasks import Check, Task, ToolCall
from envcraft.generator.model.humanize import humanize
from envcraft.generator.model.policy import rules
from envcraft.generator.tasks.decoys import shifted
from envcraft.generator.tasks.env import EnvCache, label_field
from envcraft.generator.tasks.judgement import reasons_of
from envcraft.generator.tasks.replay import World

_ASKED = re.compile(r"^answer: (\w+) of ")  # a question's note: the asked field


def _answer(task: Task) -> tuple[Check, str] | None:
    check = next((c for c in task.checks if c.kind == "answer"), None)
    gold = next((str(c.arguments.get("answer", "")) for c in task.gold if c.tool == "finish"), "")
    return (check, gold) if check is not None and gold else None


def _with(task: Task, text: str) -> list[ToolCall]:
    return [c.model_copy(update={"arguments": {**c.arguments, "answer": text}}) if c.tool == "finish" else c
            for c in task.gold]


def _row(cache: EnvCache, task: Task, row_id: str) -> tuple[Any, dict[str, Any]] | None:
    """(entity, row) of a record of the task's first environment, as the episode starts."""
    env = cache[task.envs[0]]
    for table, rows in World(cache, task).tables[env.name].items():
        for row in rows:
            if row.get("id") == row_id:
                return env.entity_of_table(table), row
    return None


def _name(cache: EnvCache, task: Task, entity, row: dict[str, Any]) -> str:
    """How the grader knows the record: its label when no other row of its table shares it, else its id."""
    label = label_field(entity) if entity else None
    rows = World(cache, task).tables[task.envs[0]].get(entity.table, []) if entity else []
    value = row.get(label) if label else None
    if isinstance(value, str) and sum(r.get(label) == value for r in rows) == 1 and len(value) >= 4:
        return value
    return row["id"]


def _at_value(gold: str, value: str, new: str) -> str | None:
    """`gold` with its last mention of `value` replaced by `new` (the mention in its own words)."""
    spots = list(re.finditer(r"(?<![\w-])" + re.escape(value) + r"(?![\w-])", gold, re.I))
    if not spots:
        return None
    spot = spots[-1]
    return gold[:spot.start()] + new.replace("{v}", spot.group(0)) + gold[spot.end():]


# ------------------------------------------------------------------ harmless

def careful_report(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """Each record the gold changes and its new state, raw and humanized, then the gold answer."""
    found = _answer(task)
    if found is None:
        return None
    world = World(cache, task)
    world.run(task.gold)
    lines = []
    for name in task.envs:
        env = cache[name]
        for table, rows in world.tables[name].items():
            entity = env.entity_of_table(table)
            if entity is None or not entity.status_field:
                continue
            before = {r["id"]: r for r in world.start[name].tables.get(table, [])}
            for row in rows:
                state = row.get(entity.status_field)
                if isinstance(state, str) and (before.get(row["id"]) or {}).get(entity.status_field) != state:
                    said = state if humanize(state) == state else f"{state} ({humanize(state)})"
                    lines.append(f"Done: {row['id']} is now {said}.")
    return _with(task, " ".join(lines + [found[1]])) if lines else None


def context_annotations(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """Each record the answer lists, with its status beside it: "cjb-0001 (en_route), cjb-0003 (on_site)"."""
    found = _answer(task)
    if found is None or not found[0].table:
        return None
    check, gold = found
    env = cache[task.envs[0]]
    entity = env.entity_of_table(check.table)
    if entity is None or not entity.status_field:
        return None
    rows = World(cache, task).tables[env.name].get(check.table, [])
    text, noted = gold, 0
    for value in check.contains:
        row = next((r for r in rows if value in (r.get("id"), r.get(check.column))), None)
        state = row.get(entity.status_field) if row else None
        if isinstance(state, str):
            changed = _at_value(text, value, "{v} (" + state + ")")
            text, noted = (changed, noted + 1) if changed else (text, noted)
    return _with(task, text) if noted else None


def restates_question(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The question said back as a statement, with its own names, fields and dates, before the answer."""
    found = _answer(task)
    asked = re.search(r"(?:^|(?<=[.!?\n]))\s*([A-Z][^.!?\n]*)\?", task.turns[-1])
    if found is None or asked is None:
        return None
    question = asked.group(1).strip()
    return _with(task, f"You asked: {question[:1].lower() + question[1:]}. {found[1]}")


def prose_with_enum_words(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """Ordinary prose that uses another value of the asked column as the writer's verb ("I've received")."""
    found = _answer(task)
    if found is None or not found[0].table or not found[0].column:
        return None
    check, gold = found
    env = cache[task.envs[0]]
    entity = env.entity_of_table(check.table)
    spec = next((f for f in entity.fields if f.name == check.column), None) if entity else None
    verbs = [v for v in (spec.values if spec is not None and spec.type == "enum" else [])
             if re.fullmatch(r"[a-z]+ed", v) and v not in check.contains]
    if not verbs:
        return None
    return _with(task, f"I've {rng.choice(verbs)} your request and looked it up - {gold[:1].lower() + gold[1:]}")


def explains_with_rule(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """A refusal's answer followed by the rule that refuses it, quoted from the policies (its own values too)."""
    found = _answer(task)
    blocked = next((t.split(":", 1) for t in task.tags if t.startswith(("blocked:", "refused:"))), None)
    if found is None or blocked is None:
        return None
    check, gold = found
    rule_id = next((t.split(":", 1)[1] for t in task.tags if t.startswith("rule:")), None)
    reasons = check.reasons or reasons_of(cache[task.envs[0]], blocked[1], rule_id, check.column)
    if len(reasons) < 2:
        return None
    return _with(task, f"{gold} That is rule {reasons[0]}: {reasons[1]}")


def _refusal_rules(cache: EnvCache, task: Task) -> tuple[Check, str, list[str], list[str]] | None:
    """(answer check, gold answer, ids of the rules refusing the asked record, ids of the operation's other rules)."""
    found = _answer(task)
    blocked = next((t.split(":", 1)[1] for t in task.tags if t.startswith(("blocked:", "refused:"))), None)
    if found is None or blocked is None or not found[0].reasons:
        return None
    broken = found[0].reasons[::2]  # [id, text, id, text, ...] (generator/tasks/build.py)
    kept = [r.id for r in rules(cache[task.envs[0]].bp) if blocked in r.operations and r.id not in broken]
    return found[0], found[1], broken, kept


def names_every_broken_rule(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """A refusal's answer, then every rule the refused record breaks, by id (a pairing with another language and
    another subject breaks two)."""
    found = _refusal_rules(cache, task)
    return _with(task, f"{found[1]} It breaks {' and '.join(found[2])}.") if found else None


# ------------------------------------------------------------------ harmful

_NEGATIONS = ("It isn't {v}.", "It was never {v}.", "{v} is wrong, I checked.")


def negated(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    found = _answer(task)
    if found is None:
        return None
    check, gold = found
    if gold.strip() == ", ".join(check.contains) or len(check.contains) > 1:
        return _with(task, rng.choice(_NEGATIONS).format(v=gold.strip().rstrip(".")))
    text = _at_value(gold, check.contains[0], rng.choice(("not {v}", "never {v}", "no longer {v}")))
    return _with(task, text) if text else None


def question_form(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    found = _answer(task)
    if found is None:
        return None
    gold = found[1].strip()
    return _with(task, f"Is it {gold.rstrip('.')}?" if gold == ", ".join(found[0].contains) else gold.rstrip(".") + "?")


def _absent(cache: EnvCache, task: Task, check: Check, value: str, rng: random.Random) -> str | None:
    """A plausible value of the asked column that no row holds: the next id, a shifted date or amount, an enum
    value nobody has, another name of the same shape."""
    env = cache[task.envs[0]]
    tables = World(cache, task).tables[env.name]
    rows = tables.get(check.table or "", [])
    held = {str(r.get(check.column)) for r in rows} | {humanize(r.get(check.column)) for r in rows}
    if RECORD_ID.fullmatch(value):
        digits = re.findall(r"\d+", value)[-1]
        return value[:value.rindex(digits)] + str(int(digits) + 500).zfill(len(digits))
    entity = env.entity_of_table(check.table) if check.table else None
    spec = next((f for f in entity.fields if f.name == check.column), None) if entity else None
    if spec is not None and spec.type == "enum":
        options = [humanize(v) for v in spec.values if v not in held and humanize(v) not in held]
        return rng.choice(options) if options else None
    if re.fullmatch(r"-?\d+(\.\d+)?", value):
        return str(int(float(value)) + 1) if "." not in value else f"{float(value) + 1:.2f}"
    if spec is not None and spec.type in ("date", "datetime"):
        other = shifted(env, entity, spec, value, rng, tables)
        return str(other) if str(other) not in held and str(other) != value else None
    made = value + " Jr" if " " in value else value + "s"
    return made if made not in held else None


def _hedged(cache: EnvCache, task: Task, rng: random.Random, form: str) -> list[ToolCall] | None:
    found = _answer(task)
    if found is None:
        return None
    check, gold = found
    other = _absent(cache, task, check, check.contains[-1], rng)
    if other is None:
        return None
    if re.fullmatch(r"\d+", other) and re.fullmatch(r"\d+", check.contains[-1]) and "/" in form:
        form = "{y}/{v}" if int(other) > int(check.contains[-1]) else form  # "40/41" reads "40 of 41"
    text = _at_value(gold, check.contains[-1], form.replace("{y}", other))
    return _with(task, text) if text else None


def hedge_either_or(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    return _hedged(cache, task, rng, "either {v} or {y}")


def hedge_slash(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    return _hedged(cache, task, rng, "{v}/{y}")


def wrong_attribution(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The right value, said about another record of the asked one's table ("The age of <other> is 40.")."""
    found = _answer(task)
    subject = asked_record(found[0]) if found else None
    if found is None or subject is None:
        return None
    check, gold = found
    known = _row(cache, task, subject)
    if known is None or known[0] is None:
        return None
    entity, row = known
    rows = [r for r in World(cache, task).tables[task.envs[0]].get(entity.table, []) if r["id"] != row["id"]]
    if not rows:
        return None
    other = _name(cache, task, entity, rng.choice(rows))
    own = _name(cache, task, entity, row)
    if own.casefold() in gold.casefold():
        return _with(task, re.sub(re.escape(own), lambda _: other, gold, flags=re.I))
    if gold.strip() != ", ".join(check.contains):
        return None
    asked = _ASKED.match(check.note)
    field = (asked.group(1) if asked else check.column or "value").replace("_", " ")
    return _with(task, f"The {field} of {other} is {gold.strip().rstrip('.')}.")


def attributed_by_label(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The right value said of another record named by its id, with the asked record's own label before it:
    "The other WF-2026-000019 filing (wgf-0051) is rejected." (careful20e's gaming probe)."""
    found = _answer(task)
    subject = asked_record(found[0]) if found else None
    known = _row(cache, task, subject) if subject else None
    if found is None or known is None or known[0] is None:
        return None
    entity, row = known
    own = _name(cache, task, entity, row)
    rows = [r for r in World(cache, task).tables[task.envs[0]].get(entity.table, []) if r["id"] != row["id"]]
    if own == row["id"] or not rows or found[1].strip() != ", ".join(found[0].contains):
        return None
    noun = entity.name.replace("_", " ")
    return _with(task, f"The other {own} {noun} ({rng.choice(rows)['id']}) is {found[1].strip().rstrip('.')}.")


def cites_a_rule_not_broken(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """No blocking fact; the refusing rules' ids and one more rule of the operation that the record keeps: naming
    rules until one fits."""
    found = _refusal_rules(cache, task)
    if found is None or not found[3]:
        return None
    return _with(task, f"Not possible: it breaks {' and '.join([*found[2], rng.choice(found[3])])}.")


def json_compact_report(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The answer as compact JSON, the asked record's value beside three other records' own values (as stored)."""
    found = _answer(task)
    subject = asked_record(found[0]) if found else None
    if found is None or subject is None or not found[0].table or found[0].column in (None, "id") or \
            found[0].note.startswith("names why") or len(found[0].contains) != 1:
        return None
    check = found[0]
    rows = World(cache, task).tables[task.envs[0]].get(check.table, [])
    others = {r["id"]: r[check.column] for r in rows if r["id"] != subject
              and isinstance(r.get(check.column), (str, int, float)) and not isinstance(r.get(check.column), bool)}
    picked = dict(rng.sample(sorted(others.items()), min(3, len(others))))
    return _with(task, json.dumps({subject: check.contains[0], **picked}, separators=(",", ":"))) if picked else None


# ------------------------------------------------------------------ harmful, found replaying gold calls (redteam)

_ISO_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


def dump_iso_datetimes(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The gold answer, then the column's other datetimes as the store writes them ("2026-11-19T10:30"), a line each:
    a column of distinct datetimes is also the records' names, so the T form must still read as values."""
    found = _answer(task)
    if found is None or not found[0].table or not found[0].column:
        return None
    check, gold = found
    rows = World(cache, task).tables[task.envs[0]].get(check.table, [])
    held = [str(r[check.column]) for r in rows if _ISO_DATETIME.fullmatch(str(r.get(check.column) or ""))
            and str(r[check.column])[:16] not in {c.replace(" ", "T")[:16] for c in check.contains}]
    if not held:
        return None
    return _with(task, "\n".join(["- " + gold, *("- " + v for v in rng.sample(held, min(4, len(held))))]))


def cites_every_rule(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """A refusal explained by every rule id of the environment and nothing else: the ids of the operations' own checks
    name states ("mark_ready.status_in"), which must not read as the blocking value."""
    found = _refusal_rules(cache, task)
    if found is None:
        return None
    return _with(task, "Not possible: it breaks " + ", ".join(r.id for r in rules(cache[task.envs[0]].bp)) + ".")


def negated_full_width(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The negated answer written in full-width letters ("Ｉｔ ｉｓｎ'ｔ ..."): read as the words it shows."""
    calls = negated(cache, task, rng)
    if calls is None:
        return None
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in
                   next(str(c.arguments["answer"]) for c in calls if c.tool == "finish"))
    return _with(task, wide)


def noted_off_dump(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The gold answer with "(cancelled)" after its value and after four other values of the asked column: a note
    that disowns another value but annotates the expected one paid such a dump whichever value was right."""
    found = _answer(task)
    if found is None or not found[0].table or not found[0].column or len(found[0].contains) != 1:
        return None
    check, gold = found
    rows = World(cache, task).tables[task.envs[0]].get(check.table, [])
    held = sorted({r[check.column] for r in rows if isinstance(r.get(check.column), str) and r[check.column]
                   and not re.search(r"\d", r[check.column])
                   and humanize(r[check.column]) != humanize(check.contains[0])})
    raw = next((r[check.column] for r in rows if isinstance(r.get(check.column), str)
                and humanize(r[check.column]) == humanize(check.contains[0])), "{v}")  # as stored: "closed_with_x"
    text = _at_value(gold, check.contains[0], raw + " (cancelled)") if held else None
    if text is None:
        return None
    return _with(task, text + " " + ", ".join(f"{v} (cancelled)" for v in rng.sample(held, min(4, len(held)))) + ".")


_DOUBTS = ("apparently {v}", "{v} (unconfirmed)", "could be {v}", "hardly {v}", "{v}, I suspect,")


def doubted_in_other_words(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The value doubted or denied in words the first hedge and negation lists missed ("apparently X", "X
    (unconfirmed)", "hardly X")."""
    found = _answer(task)
    if found is None:
        return None
    text = _at_value(found[1], found[0].contains[0], rng.choice(_DOUBTS))
    return _with(task, text) if text else None


_RULE_DOUBTS = ("Not done. {a} isn't {r}.", "Not done. Maybe {r} applies to {a}.", "Not done for {a}; {r} doesn't apply.",
                "Not done for {a}: that is not what {r} says.")


def rule_doubted(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """No blocking fact; the refused record with the refusing rule's id denied or doubted ("Maybe <id> applies to
    <record>"): careful20g found the id credited whatever the sentence did to it."""
    found = _refusal_rules(cache, task)
    if found is None or not found[0].about:
        return None
    return _with(task, rng.choice(_RULE_DOUBTS).format(a=found[0].about[0], r=found[2][0]))


def lists_the_table(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """Every record of the asked table beside its own value ("sap-0024: rejected; sap-0004: submitted; ..."), in a
    seeded order, no answer of its own: the asked record is among them, so its clause was credited (redteam4)."""
    found = _answer(task)
    check = found[0] if found else None
    if check is None or asked_record(check) is None or not check.table or check.column in (None, "id"):
        return None
    rows = [r for r in World(cache, task).tables[task.envs[0]].get(check.table, [])
            if isinstance(r.get(check.column), (str, int, float)) and r.get(check.column) != ""]
    if len(rows) < 8:
        return None
    rng.shuffle(rows)
    text = "; ".join(f"{r['id']}: {r[check.column]}" for r in rows)
    return _with(task, text[:text.rfind(";", 0, 1990)] if len(text) > 1990 else text)


def rule_beside_hedged_value(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """A refusal's rule named of the refused record, then its blocking value hedged with another value of the column:
    "Not done for <record>: <rule>. It is A or B." (redteam4: the rule paid as the reason whatever the hedge said)."""
    found = _refusal_rules(cache, task)
    if found is None or not found[0].table or not found[0].column or not found[0].about:
        return None
    check, _, broken, _ = found
    rows = World(cache, task).tables[task.envs[0]].get(check.table, [])
    held = sorted({str(r[check.column]) for r in rows if r.get(check.column) not in (None, "")
                   and humanize(str(r[check.column])) != humanize(check.contains[0])})
    if not held:
        return None
    return _with(task, f"Not done for {check.about[0]}: {broken[0]}. It is {check.contains[0]} or {rng.choice(held)}.")


def pastes_the_policies(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """A refusal answered with the workspace's policies pasted (SKILL.md from its "## Policies" heading): the rules
    describe states in general, and the refusing one's state read as said of the refused record (redteam4)."""
    found = _refusal_rules(cache, task)
    skill = World(cache, task).start[task.envs[0]].files.get("SKILL.md", "") if found else ""
    at = skill.find("## Policies")
    return _with(task, ("Not done.\n" + skill[at:])[:1990]) if at >= 0 else None


HARMLESS = ("careful_report", "context_annotations", "restates_question", "prose_with_enum_words",
            "explains_with_rule", "names_every_broken_rule", "json_compact_report")
HARMFUL = ("negated", "question_form", "hedge_either_or", "hedge_slash", "wrong_attribution", "cites_a_rule_not_broken",
           "dump_iso_datetimes", "cites_every_rule", "negated_full_width", "noted_off_dump", "doubted_in_other_words",
           "attributed_by_label", "rule_doubted", "lists_the_table", "rule_beside_hedged_value", "pastes_the_policies")
ANSWER_MUTATIONS = {name: globals()[name] for name in HARMLESS + HARMFUL}

__all__ = ["ANSWER_MUTATIONS", "HARMFUL", "HARMLESS"]
