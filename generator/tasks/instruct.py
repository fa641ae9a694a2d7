"""Instruction text: what the user says, turn by turn, with varied phrasing and a persona.

One phrase per write step (templates per operation kind), joined with varied connectors; a row
is described in full the first time and referred back to after ("it", "that appointment").
Every value a check will look for in a created or updated field is stated (or, across
environments, named as "the email on file for <row> in <other system>").
"""

from __future__ import annotations

import random
import re
from typing import Any

from envcraft.generator.blueprint import Blueprint, Operation
from envcraft.generator.tasks.describe import Describer, render, words
from envcraft.generator.tasks.env import EnvSpec
from envcraft.generator.tasks.execute import Step

OPENERS = ("", "", "Hi,", "Hello!", "Quick request:", "Morning!", "Could you help with something?", "Hey,")
CLOSERS = ("", "", "Thanks!", "Thank you.", "Let me know when it's done.", "Thanks in advance.",
           "Please call finish when everything is done.")
FIRSTS = ("First, ", "To start, ", "", "")
THENS = ("Then ", "After that, ", "Next, ", "Also, ", "Once that's done, ")
LASTS = ("Finally, ", "Last, ", "And then ", "To wrap up, ")
PARTICLES = ("in", "out", "off", "up", "down", "back", "over", "on", "through", "away", "to")
FOLLOW = ("Thanks. Next: ", "Great, one more thing: ", "Good. Now ", "OK. Next, ", "Perfect. Also, ",
          "Next request: ")


def persona(bp: Blueprint, rng: random.Random) -> str:
    """An opener in the voice of the person the scenario says the agent assists."""
    first = " ".join(bp.scenario.split()).split(". ")[0]
    match = re.match(r"You (?:assist|help|support|work with) (the [^,.;]+?)(?: during| with|,|\.|;|$)", first)
    choices = list(OPENERS)
    if match and len(match.group(1)) < 70:
        role = match.group(1)
        choices += [f"Hi, this is {role}.", f"Message from {role}:", f"Hello from {role}."]
    return rng.choice(choices)


def op_verb(op: Operation) -> str:
    verb = op.name.removeprefix(op.entity + "_")
    if verb == op.name:
        verb = op.name.replace(op.entity, "").strip("_") or op.kind
    return verb.replace("_", " ")


def status_words(value: str) -> str:
    return str(value).replace("_", " ")


class Writer:
    def __init__(self, env: EnvSpec, describer: Describer, rng: random.Random):
        self.env, self.describer, self.rng = env, describer, rng
        self.mentioned: dict[str, str] = {}  # row id -> the short name used after the first mention
        self.mentions: list[str] = []

    def name(self, entity: str, row_id: str) -> str | None:
        what = words(entity)
        if row_id in self.mentioned:
            return self.rng.choice((f"that {what}", f"the same {what}", f"this {what}"))
        desc = self.describer.describe(entity, row_id)
        if desc is None:
            return None
        self.mentioned[row_id] = what
        self.mentions += desc.mentions
        return desc.phrase

    def values(self, op: Operation, fields: dict[str, Any], skip: set[str], update: bool = False) -> list[str] | None:
        entity = self.env.entity(op.entity)
        parts: list[str] = []
        pairs = dict(self.env.pairs(entity))
        done: set[str] = set()
        for name, value in fields.items():
            if name in skip or name in done:
                continue
            spec = entity.field(name)
            if spec.type == "ref":
                ref_name = self.name(spec.ref, value)
                if ref_name is None:
                    return None
                parts.append(f"for {ref_name.removeprefix('the ')}" if words(name) == words(spec.ref)
                             else f"with {words(name)} {ref_name}")
                continue
            end = next((e for e, s in pairs.items() if s == name and e in fields and e not in skip), None)
            if end is not None:
                start_text, end_text = render(spec, value), render(entity.field(end), fields[end])
                if start_text[:10] == end_text[:10] and " " in end_text:
                    end_text = end_text.split(" ", 1)[1]
                self.mentions += [start_text, end_text]
                parts.append(self.rng.choice((f"from {start_text} to {end_text}",
                                              f"{words(name)} {start_text} and {words(end)} {end_text}")))
                done.add(end)
                continue
            shown = render(spec, value)
            self.mentions.append(shown)
            parts.append(f"{words(name)} to {shown}" if update else
                         self.rng.choice((f"{words(name)} {shown}", f"{words(name)}: {shown}", f"{words(name)} set to {shown}")))
        return parts

    def segment(self, step: Step, extra: str | None = None) -> str | None:
        """One write step as a clause (no leading capital, no final period)."""
        op = self.env.ops[step.op]
        what = words(op.entity)
        verb = op_verb(op)
        rng = self.rng
        if step.kind == "create":
            parts = self.values(op, step.fields, {step.override} if step.override else set())
            if parts is None:
                return None
            if extra:
                parts.append(extra)
            self.mentioned[step.target] = what
            listed = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] if parts else ""
            article = "an" if what[:1] in "aeiou" else "a"
            if " " in verb:
                head = rng.choice((f"{verb} (a new {what})", f"please {verb} - a new {what}"))
            elif verb in ("create", "add", "new", "register", "open", "log", "record", "file", "submit"):
                head = rng.choice((f"{verb} {article} {what}", f"{verb} a new {what}", f"please {verb} {article} {what}"))
            else:
                head = rng.choice((f"{verb} a new {what}", f"{verb} {article} {what}", f"please {verb} {article} {what}"))
            return f"{head} {listed}".strip() if not listed.startswith(("for", "with")) else f"{head} {listed}"
        target = self.name(step.entity, step.target)
        if target is None:
            return None
        if step.kind == "transition" and (step.fields or extra):
            parts = self.values(op, step.fields, {step.override} if step.override else set(), update=True)
            if parts is None:
                return None
            parts += [extra] if extra else []
            listed = " and ".join(parts)
            return rng.choice((f"{verb} {target}, with {listed}", f"please {verb} {target} ({listed})",
                               f"{verb} {target} - set {listed}"))
        if step.kind == "transition":
            state = status_words(op.to_status)
            first, _, rest = verb.partition(" ")
            if first in ("mark", "set", "flag", "make") and rest:
                return rng.choice((f"{first} {target} {rest}", f"please {first} {target} {rest}",
                                   f"move {target} to {state}"))
            if rest and rest.split()[0] not in PARTICLES:  # "await employee": say what state it ends in
                return rng.choice((f"move {target} to {state}", f"set {target} to {state}",
                                   f"{target} should now be {state}"))
            return rng.choice((f"{verb} {target}", f"please {verb} {target}", f"move {target} to {state}",
                               f"{target} needs to be {state} - please {verb} it", f"set {target} to {state}"))
        if step.kind == "update":
            parts = self.values(op, step.fields, set(), update=True)
            if parts is None:
                return None
            if extra:
                parts.append(extra)
            listed = " and ".join(parts)
            return rng.choice((f"update {target}: {listed}", f"change {target}: {listed}",
                               f"for {target}, set {listed}", f"{verb} {target}: {listed}"))
        return rng.choice((f"{verb} {target}", f"remove {target}", f"please {verb} {target}"))


def capital(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def join(clauses: list[str], rng: random.Random, first_turn: bool = True) -> str:
    if not clauses:
        return ""
    if len(clauses) == 1:
        return capital(clauses[0]) + "."
    if len(clauses) >= 4 and rng.random() < 0.4:
        return "\n".join(f"{i}. {capital(c)}." for i, c in enumerate(clauses, 1))
    out = [(rng.choice(FIRSTS) if first_turn else "") + clauses[0]]
    for clause in clauses[1:-1]:
        out.append(rng.choice(THENS) + clause)
    out.append(rng.choice(LASTS) + clauses[-1])
    return " ".join(capital(c) + "." for c in out)


def wrap_turn(body: str, rng: random.Random, first: bool, bp: Blueprint) -> str:
    if first:
        opener = persona(bp, rng)
        closer = rng.choice(CLOSERS)
    else:
        opener, closer = rng.choice(FOLLOW).strip(), ""
        if opener.endswith((":", "Now", "Next,", "Also,")) and not body[:2].rstrip(".").isdigit():
            body = body[:1].lower() + body[1:]
    if opener.endswith(",") and body[:1].isupper() and not body[1:2].isupper():
        body = body[:1].lower() + body[1:]
    text = (f"{opener}\n{body}" if body[:2] == "1." else f"{opener} {body}") if opener else body
    return f"{text} {closer}" if closer else text
