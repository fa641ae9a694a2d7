"""Instruction text: what a person asks for, as goals, in their own voice.

A request states the outcome ("the claim got the green light", "we need a showing for Oscar Kim
on the 15th at 09:00"), never the tool to call: status changes are said in plain words
(phrases.py), a row that passes through several states is described by where it should end up
(the steps in between stay implicit), and rows are named by their distinguishing values, never
by id. Every value a check will look for in a created or updated field is stated. A persona (a
name, a role from the scenario) and a register (plain, brief, chatty, formal) vary the voice.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Operation
from envcraft.generator.model.humanize import humanize
from envcraft.generator.seeds import values as gen_values
from envcraft.generator.tasks.describe import Describer, labelled, render, with_article, words
from envcraft.generator.tasks.env import EnvSpec
from envcraft.generator.tasks.execute import Failed, Step
from envcraft.generator.tasks.phrases import ambiguous, answered_by_them, goal_phrases, say
from envcraft.generator.tasks.quality import TWO_COLONS, UNDOING, after_colon, first_sentence, op_verb
from envcraft.generator.tasks.quantities import stated

REGISTERS = ("plain", "plain", "brief", "chatty", "formal")
# Openers, closers and connectors are at most four words: a longer formula recurs word for word across the
# store (realism.top20_5gram_coverage) and a greeting is not what makes a request read as a person's.
OPENERS = {  # short ones mostly, so the request itself, not a greeting formula, is what opens the text
    "plain": ("", "", "", "", "", "Hi,", "Hello!", "Hey,", "Morning!", "Hi there,", "Hello,", "Hi team,", "Hi all,",
              "Hi folks,", "Hey there,", "Morning all,"),
    "brief": ("", "", "", "", "Quick one:", "One for you:", "Quick ask:", "Small one:", "Heads up:", "Over to you:"),
    "chatty": ("Hey!", "Hiya!", "Morning!", "Hi!", "Hey there!", "Hope you're well!", "Thanks for taking this.",
               "Busy day here!", "Hi, quick favour.", "Afternoon!", "Hello hello!", "Got a minute?"),
    "formal": ("Good morning.", "Hello.", "Good afternoon.", "Dear colleague,", "A request, please:",
               "Good morning, a request.", "Hello, one request.", "For your attention:"),
}
CLOSERS = {
    "plain": ("", "", "", "", "Thanks!", "Thank you.", "Thanks in advance.", "Cheers.", "Thanks a lot.", "Ta!",
              "Thanks, all.", "Much obliged."),
    "brief": ("", "", "", "Thanks.", "Ta.", "Cheers."),
    "chatty": ("You're a star!", "Thanks so much!", "Appreciate it!", "Much appreciated!", "Lifesaver, thanks!",
               "Owe you one!", "Thanks a million!", "Brilliant, thanks!"),
    "formal": ("Many thanks.", "Thanks for your help.", "Kind regards.", "Best regards.", "With thanks.",
               "Regards.", "Thank you kindly.", "Many thanks in advance."),
}
ALSO = ("Also, ", "And ", "Plus, ", "Separately, ", "Meanwhile, ", "One more: ", "Oh, and ", "Besides that, ",
        "Also - ", "And then ", "", "", "", "")
THEN = ("Then ", "After that, ", "Once that's done, ", "Next, ", "After this, ", "When that's in, ")  # only where the order changes the outcome
FOLLOW = ("Thanks. Next: ", "Great, one more: ", "Good. Now ", "OK, next: ", "Perfect. Also, ", "Thanks. Also: ",
          "Lovely. Now ", "Got it. Next: ", "Cheers. One more: ", "Nice. Now ", "Right, next: ", "Good stuff. Also, ",
          "OK. ", "Thanks! ", "Great. ")
PEOPLE = {"lead", "manager", "senior", "coordinator", "technician", "editor", "operator", "officer", "clerk", "supervisor",
          "director", "planner", "dispatcher", "analyst", "specialist", "administrator", "head", "chief", "agent",
          "adjuster", "scheduler", "buyer", "controller", "accountant", "engineer", "nurse", "pharmacist", "producer",
          "receptionist", "paralegal", "recruiter", "underwriter", "steward", "owner", "partner", "associate"}
UNITS = ("desk", "queue", "team", "office", "department", "lab", "core", "shop", "counter", "room", "centre", "center")


@dataclass(frozen=True)
class Role:
    """Where the person asking sits, said the way they would sign: "fleet operations lead" at "Zipline"."""

    unit: str  # "fleet operations lead", "front desk", "incoming inspection team"
    org: str | None = None  # a proper name ("Zipline", "Norvik Medical Devices"), or None

    def signature(self) -> str:
        return capital(self.unit) + (f", {self.org}" if self.org else "")

    @property
    def person(self) -> bool:
        """A role a person holds ("audit senior", "fleet operations lead"), not a unit they sit in ("front desk")."""
        return self.unit.split()[-1] in PEOPLE

    def here(self) -> str:
        return ("" if self.person else "the ") + self.unit + (f" at {self.org}" if self.org else "")

    def introduction(self, name: str, rng: random.Random) -> str:
        """How the person says who they are, once, at the start: their name and where they sit."""
        first = name.split()[0]
        if self.person:
            return rng.choice((f"Hi, {name} here, {self.here()}.", f"{name} here, {self.here()}.",
                               f"Hi, it's {name}, {self.here()}.", f"{first} here ({self.unit}).",
                               f"It's {first}, {self.here()}.", f"Hello, {name}, {self.here()}."))
        return rng.choice((f"Hi, {name} here, from {self.here()}.", f"{name} from {self.here()} here.",
                           f"{first} from {self.here()}.", f"It's {first} at {self.here()}.",
                           f"Hello, {first} here from {self.here()}."))


@dataclass
class Voice:
    """Who is asking: a name, a role taken from the scenario, and how they write."""

    name: str
    role: Role | None
    register: str

    def sign(self, rng: random.Random, introduced: bool = False) -> str:
        """A name and role (formal), a first name or nothing; never the scenario line again."""
        first = self.name.split()[0]
        if self.register == "formal":
            return self.name if introduced or self.role is None else f"{self.name}, {self.role.signature()}"
        if introduced or self.register not in ("brief", "chatty"):
            return ""  # the name was said up front
        return rng.choice((f"- {first}", f"{first}", ""))


def role_of(bp: Blueprint) -> Role | None:
    """The asker's role from the scenario's first sentence ("You assist the front desk of Pawsome, ...")."""
    first = " ".join(bp.scenario.split()).split(". ")[0]
    match = re.match(r"You (?:assist|help|support|work with|run|staff|handle) (the [^,.;]+?)(?: during| with| for|,|\.|;|$)",
                     first)
    if not match or len(match.group(1)) >= 60:
        return None
    parts = re.split(r"\s+(at|of|for)\s+", match.group(1).removeprefix("the "), maxsplit=1)
    head = parts[0]
    if len(head.split()) > 4:
        return None  # the sentence ran on ("the exams office build the timetable"): no role to sign with
    org = parts[2] if len(parts) == 3 and parts[2][:1].isupper() else None
    if head.endswith(" queue"):
        head = head.removesuffix(" queue") + " team"  # a person works in a team, not in a queue
    if len(parts) == 3 and org is None and not head.endswith(UNITS):
        return Role(head)
    return Role(head, org)


def voice(bp: Blueprint, rng: random.Random) -> Voice:
    return Voice(gen_values.person_name(rng), role_of(bp), rng.choice(REGISTERS))


def status_words(value: str) -> str:
    return humanize(value)


class Writer:
    def __init__(self, env: EnvSpec, describer: Describer, rng: random.Random):
        self.env, self.describer, self.rng = env, describer, rng
        self.mentioned: dict[str, str] = {}  # row id -> the short name used after the first mention
        self.mentions: list[str] = []
        self.seen: dict[str, set[str]] = {}  # "study enrollment" -> every row of that kind the text has named so far

    def saw(self, what: str, row_id: str) -> None:
        self.seen.setdefault(what, set()).add(row_id)

    def _saw_desc(self, desc) -> None:
        self.saw(words(desc.entity), desc.row_id)
        for inner in desc.nested.values():  # "the visit for the pet Luna" names a pet too
            self._saw_desc(inner)

    def name(self, entity: str, row_id: str, stated: set[str] | frozenset[str] = frozenset()) -> str | None:
        """The row as a person names it; not by a field whose new value the same clause states (never
        "the endorsement (premium change 49.08) (premium change -85)"), when another field names it.
        "That X" only where the text so far named exactly one X, this one, in any way."""
        what = words(entity)
        if row_id in self.mentioned and self.seen.get(what) == {row_id}:
            return self.rng.choice((f"that {what}", f"the same {what}"))
        desc = self.describer.describe(entity, row_id)
        if desc is not None and set(desc.fields) & set(stated):
            desc = self.describer.describe(entity, row_id, avoid=set(stated)) or desc
        if desc is None:
            return None
        self.mentioned[row_id] = what
        self._saw_desc(desc)
        self.mentions += desc.mentions
        return desc.phrase

    def values(self, op: Operation, fields: dict[str, Any], skip: set[str]) -> list[str] | None:
        """Each stated value as a short phrase: `for the pet "Luna"`, `party size 4`, `from 09:00 to 09:30`."""
        entity = self.env.entity(op.entity)
        parts: list[str] = []
        pairs = self.env.pairs(entity)
        done: set[str] = set()
        for name, value in fields.items():
            if name in skip or name in done:
                continue
            spec = entity.field(name)
            if spec.type == "ref":
                ref_name = self.name(spec.ref, value, set(fields) - {name})
                if ref_name is None:
                    return None
                parts.append(f"for {ref_name}" if words(name) == words(spec.ref) else f"with {words(name)} {ref_name}")
                continue
            end = next((e for e, s in pairs.items() if s == name and e in fields and e not in skip), None)
            if end is not None:
                start_text, end_text = render(spec, value), render(entity.field(end), fields[end])
                if start_text[:10] == end_text[:10] and " " in end_text:
                    end_text = end_text.split(" ", 1)[1]
                self.mentions += [start_text, end_text]
                parts.append(self.rng.choice((f"from {start_text} to {end_text}", f"{start_text} to {end_text}",
                                              f"running {start_text} to {end_text}",
                                              f"between {start_text} and {end_text}",
                                              f"{words(name)} {start_text}, {words(end)} {end_text}")))
                done.add(end)
                continue
            shown = render(spec, value)
            self.mentions.append(shown)
            if spec.type == "text" or (spec.type == "str" and re.search(r"[.!?]$", shown)):
                shown = f'"{shown}"'
            if stated(spec, shown) is not None:  # "weight 103 kg", "13 ad pages", never "weight kg 103"
                parts.append(stated(spec, shown))
            elif words(name).split()[-1] in words(op.entity).split():
                parts.append(f"{words(name)}: {shown}")
            elif spec.type in ("date", "datetime"):  # "2026 12" opens most dates: at most one fixed word before it
                forms = (labelled(name, shown), f"{words(name)} of {shown}", f"{words(name)}: {shown}",
                         f"{shown} as the {words(name)}")  # "name: value" once: "offered date: X and due date: Y"
                parts.append(self.rng.choice(forms if not any(":" in p for p in parts) else forms[:2] + forms[3:]))
            else:
                parts.append(labelled(name, shown))
        return parts

    def listed(self, parts: list[str]) -> str:
        return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] if parts else ""

    def end_state(self, op: Operation, target: str, current: Any = None) -> str:
        """The row's new status said as a fact or a goal, not as the tool that sets it."""
        entity = self.env.entity(op.entity)
        others = [o.to_status for o in self.env.bp.operations if o.kind == "transition" and o.entity == op.entity
                  and o.name != op.name]
        plain = goal_phrases(op.to_status, answered_by_them(op.to_status, op.description))
        if plain and not ambiguous(op.to_status, others):
            return say(self.rng.choice(plain), target)
        state = status_words(op.to_status)
        self.mentions.append(state)
        field = words(entity.status_field or "status")
        options = [f"{target} should show as {state}", f"{target} needs to be {state} now", f"{target} is {state} now",
                   f"mark {target} as {state}", f"{target} should be down as {state}"]
        if target.startswith(("the ", "The ")):
            options.append(f"the {field} of {target} should read {state}")
        return self.rng.choice(options)

    def segment(self, step: Step, extra: str | None = None, end: Step | None = None,
                hide: str | None = None) -> str | None:
        """One goal as a clause (no leading capital, no final period); `end`: the last of several state
        changes of the same row, of which only the outcome is said; `hide`: a field whose value the
        request does not state (`extra` says where to find it)."""
        op = self.env.ops[step.op]
        what = words(op.entity)
        rng = self.rng
        skip = {f for f in (step.override, hide) if f}
        if step.kind == "create":
            parts = self.values(op, step.fields, skip)
            if parts is None:
                return None
            if extra:
                parts.append(extra)
            self.mentioned[step.target] = what
            self.saw(what, step.target)
            refs = [p for p in parts if p.startswith("for ")]
            rest = [p for p in parts if not p.startswith("for ")]
            rng.shuffle(refs)  # the records it is for, in any order: a popular form would recur word for word
            if refs and rng.random() < 0.3:
                refs[0] = "with " + refs[0].removeprefix("for ")
            # "for the pet Luna, vet Dr Lee and room 3", never "for ... and for ..."
            refs = [refs[0]] + [r.removeprefix("for ") for r in refs[1:]] if refs else []
            lead = with_article(what) + (" " + self.listed(refs) if refs else "")
            body = self.listed(rest)
            options = [f"we need {lead}" + (f": {body}" if body else ""),
                       f"please put in {lead}" + (f" - {body}" if body else ""),
                       f"there should be {lead} on file" + (f" - {body}" if body else ""),
                       f"{lead} should be added" + (f": {body}" if body else ""),
                       f"{lead} is missing" + (f" - {body}" if body else ""),
                       f"add {lead}" + (f": {body}" if body else ""), f"{lead} needs adding" + (f" - {body}" if body else ""),
                       f"set up {lead}" + (f": {body}" if body else ""),
                       f"we're missing {lead}" + (f" - {body}" if body else ""), f"get {lead} entered" + (f": {body}" if body else ""),
                       f"{lead} has to go in" + (f" - {body}" if body else ""), f"enter {lead}" + (f", {body}" if body else "")]
            clause = rng.choice(one_colon(options))
            if end is not None:
                clause += ", and " + self.end_state(self.env.ops[end.op], "it")
            return clause
        target = self.name(step.entity, step.target, set(step.fields) | set(end.fields if end is not None else {}))
        if target is None:
            return None
        if step.kind == "transition":
            final = self.env.ops[end.op] if end is not None else op
            clause = self.end_state(final, target)
            fields = {**step.fields, **(end.fields if end is not None else {})}
            if fields or extra:
                parts = self.values(op, fields, skip)
                if parts is None:
                    return None
                parts += [extra] if extra else []
                clause += f" - {self.listed(parts)}"
            return clause
        if step.kind == "update":
            parts = self.values(op, step.fields, skip)
            if parts is None:
                return None
            # `extra` (where a value is noted: "look the on hand up in my note") is a clause, not a value: it
            # follows the values, never joins them ("it's look the on hand up in ..." was the seam)
            if not parts and extra:
                clause = rng.choice((f"{target} is out of date; {extra}", f"please correct {target}; {extra}",
                                     f"{target} has changed; {extra}", f"{target} needs updating; {extra}"))
                if end is not None:
                    clause += ", and " + self.end_state(self.env.ops[end.op], "it")
                return clause
            body = self.listed(parts)
            clause = rng.choice(one_colon((f"{target} should have {body} from now on", f"the details of {target} are out of date - "
                                 f"it should have {body}", f"{target} now has {body}; please bring the record in line",
                                 f"{target} changed: {body}", f"please correct {target}: {body}", f"{target} has {body} now",
                                 f"on {target}, make it {body}", f"{target} needs {body} on file",
                                 f"{target} needs fixing: {body}", f"{target} is wrong - it's {body}", f"{target} should read {body}",
                                 f"fix {target} - {body}", f"{target} has moved on: {body}", f"for {target}: {body} now")))
            if extra:
                clause += f"; {extra}"
            if end is not None:
                clause += ", and " + self.end_state(self.env.ops[end.op], "it")
            return clause
        return rng.choice((f"{target} shouldn't be on file any more", f"{target} needs to come off our records",
                           f"we no longer need {target} in the system"))

    def goals(self, steps: list[Step], extras: dict[int, str] | None = None,
              hide: dict[int, tuple[str, str]] | None = None) -> list[str] | None:
        """Clauses for a turn's write steps; state changes of one row in a row collapse into their outcome.
        `extras`: step index -> an extra phrase; `hide`: id(step) -> (field not stated, where it is)."""
        extras, hide = extras or {}, hide or {}
        if undone(self.env, steps):
            raise Failed("undone_in_one_breath")
        writes = [(i, s) for i, s in enumerate(steps) if s.writes]
        out: list[str] = []
        k = 0
        while k < len(writes):
            i, step = writes[k]
            j = k
            while j + 1 < len(writes) and self.mergeable(step, writes[j + 1][1], writes[j][1]):
                j += 1
            end = writes[j][1] if j > k else None
            hidden = hide.get(id(step))
            extra = extras.get(i) if hidden is None else hidden[1]
            clause = self.segment(step, extra, end, hidden[0] if hidden else None)
            if clause is None:
                return None
            out.append(clause)
            k = j + 1
        return out

    def mergeable(self, first: Step, nxt: Step, previous: Step) -> bool:
        """`nxt` only moves the same row on to another state: say where it ends up, not how."""
        if nxt.kind != "transition" or nxt.target != first.target or nxt.fields or nxt.override:
            return False
        if self.env.ops[nxt.op].effects or (previous is not first and self.env.ops[previous.op].effects):
            return False
        return first.kind in ("create", "transition", "update") and not self.env.ops[first.op].effects


def undone(env: EnvSpec, steps: list[Step]) -> Step | None:
    """The step that cancels, rejects or deletes a row an earlier step created or changed ("register the bordereau
    ... it is a no from us", "tender the load ... call off the same load"): a request takes back nothing it asked
    for (quality.UNDOING)."""
    touched: set[str] = set()
    for step in steps:
        if not step.writes or step.target is None:
            continue
        op = env.ops[step.op]
        if step.target in touched and (step.kind == "delete" or
                                       (step.kind == "transition" and op.to_status in UNDOING)):
            return step
        touched.add(step.target)
    return None


def capital(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def one_colon(options: list[str] | tuple[str, ...]) -> list[str] | tuple[str, ...]:
    """The options that hold no sentence with two colons ("add a claim: loss date: 2026-11-08" reads as a
    seam), or all of them where every one does."""
    kept = [o for o in options if not TWO_COLONS.search(o)]
    return kept or options


def join(clauses: list[str], rng: random.Random, first_turn: bool = True, ordered: bool = False) -> str:
    """Goals as sentences; no numbering, no first/then/finally unless `ordered`: the turn's steps do not
    commute (generator/tasks/order.py), so the text says which comes first (the same RNG draws either way)."""
    if not clauses:
        return ""
    out = [capital(clauses[0]) + "."]
    for clause in clauses[1:]:
        link = rng.choice(THEN if ordered else ALSO)
        if link.endswith(": ") and ":" in first_sentence(clause):  # one colon to a sentence: "One more - add X: ..."
            link = link[:-2] + " - "
        out.append(capital(link + clause) + ".")
    return " ".join(out)


def wrap_turn(body: str, rng: random.Random, first: bool, bp: Blueprint, who: Voice | None = None) -> str:
    who = who or voice(bp, rng)
    if first:
        opener = rng.choice(OPENERS[who.register])
        introduced = rng.random() < (0.5 if who.role else 0.3)  # a name up front, as in a first message
        if introduced:
            first_name = who.name.split()[0]
            opener = who.role.introduction(who.name, rng) if who.role else \
                rng.choice((f"Hi, it's {first_name}.", f"{first_name} here.", f"Hello, {who.name} here."))
        closer = rng.choice(CLOSERS[who.register])
        sign = who.sign(rng, introduced)
    else:
        opener, closer, sign = rng.choice(FOLLOW).strip(), "", ""
        if opener.endswith((":", "Now", "Also,")):
            body = body[:1].lower() + body[1:] if not body[1:2].isupper() and not re.match(r"I\b", body) else body
    if opener.endswith(",") and body[:1].isupper() and not body[1:2].isupper() and not re.match(r"I\b", body):
        body = body[:1].lower() + body[1:]
    if opener.endswith(":") and ":" in first_sentence(body):  # one colon to a sentence: "Heads up. About X: ..."
        opener = opener[:-1] + ("." if first else " -")
    elif opener.endswith(":"):
        body = after_colon(body)  # "Quick one: the gift ...", not "Quick one: The gift ..."
    text = f"{opener} {body}" if opener else body
    text = f"{text} {closer}" if closer else text
    return f"{text}\n{sign}" if sign else text


__all__ = ["Voice", "Writer", "capital", "join", "op_verb", "undone", "voice", "wrap_turn"]
