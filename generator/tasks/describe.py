"""Rows described the way a person would: by a minimal set of the values that tell them apart.

An instruction never carries a row id. A row the agent must find is named by its label (name,
title, code...) plus the fewest other values that make it unique among every version of the
table's rows during the episode (decoys included); a row reached through another row is "the
owner of <that pet>", and a row the chain created is "the new appointment".
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from envcraft.generator.model.blueprint import Entity, FieldSpec
from envcraft.generator.model.humanize import field_words as words  # the one spelling of a name in prose
from envcraft.generator.model.humanize import humanize
from envcraft.generator.tasks.env import EnvSpec, Tables, label_field
from envcraft.generator.tasks.quantities import noun, pointed

MAX_FIELDS = 4
HANDLES = 2  # values besides its label that name a record (`Describer.pick`)
CODE = re.compile(r"(?<![\w/.@-])[a-z0-9]+(?:_[a-z0-9]+)+(?![\w/.@-])")
PREFERENCE = {"str": 0, "email": 1, "enum": 2, "date": 2, "datetime": 2, "ref": 3, "int": 4, "float": 5}


def render(spec: FieldSpec | None, value: Any) -> str:
    """A value as an instruction states it (dates and times unambiguous, amounts plain)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if spec is not None and spec.type == "enum":
        return humanize(str(value))
    if isinstance(value, str) and CODE.search(value):
        return CODE.sub(lambda m: f"`{m.group(0)}`", value)  # a snake_case key or error code is quoted as code
    if spec is not None and spec.type == "datetime" and isinstance(value, str) and "T" in value:
        day, time = value.split("T", 1)
        return f"{day} {time}"
    return str(value)


def plural(entity) -> str:
    """How a person says many rows of an entity: its table name in words."""
    return words(entity.table)


def with_article(noun: str) -> str:
    """`a bus`, `an outage notice`, `an ACH return` (a letter said as a vowel sound), `a user`, `a one-off`."""
    first = noun.split()[0] if noun.split() else noun
    vowel = (first[:1].lower() in "aeio" and not first.lower().startswith(("one", "eu"))) or \
        (first[:1] in "FHLMNRSX" and first.isupper() and len(first) > 1)  # "an FX deal", "an HR case", "an SMS"
    return f"{'an' if vowel else 'a'} {noun}"


def says_what(said: str, shown: str) -> bool:
    """The value starts with the field's first or last word, so it says what it is: "Room 3", "row 28" (of
    "row ref")."""
    first = shown.split()[0].lower() if shown.split() else ""
    return first in (said.lower().split()[0], said.lower().split()[-1]) or shown.lower().startswith(said.lower().split()[-1])


def labelled(field: str, shown: str) -> str:
    """`room 3`, but `Room 3` alone when the value already starts with the field's name."""
    name = words(field)
    return shown if says_what(name, shown) else f"{name} {shown}"


def answer_text(spec: FieldSpec | None, value: Any) -> str:
    """What an answer must contain for this value (floats without trailing zeros, times as stored)."""
    if isinstance(value, float):
        return render(spec, value)
    if isinstance(value, list):
        return str(value[0]) if value else ""
    return str(value)


@dataclass
class Desc:
    entity: str
    row_id: str
    phrase: str
    fields: dict[str, Any] = field(default_factory=dict)  # field -> raw value used to pick the row out
    mentions: list[str] = field(default_factory=list)  # the rendered values, for rewrites to keep
    nested: dict[str, Desc] = field(default_factory=dict)  # ref field -> description of the row it names


class Describer:
    def __init__(self, env: EnvSpec, initial: Tables, final: Tables, rng: random.Random,
                 created: set[str] | None = None, via: dict | None = None):
        self.env, self.rng = env, rng
        self.initial, self.final = initial, final
        self.created = created or set()
        self.via = via or {}
        self.cache: dict[tuple[str, str], Desc | None] = {}
        self.prefer: dict[tuple[str, str], list[str]] = {}  # fields to name a row by (the chain looked them up)
        self.today = date.fromisoformat(env.bp.today)  # dates near it are said as a person says them that day

    def versions(self, table: str) -> list[dict[str, Any]]:
        """Every row version the agent may meet: initial rows and rows as the episode leaves them."""
        seen = {id(r) for r in self.initial.get(table, [])}
        rows = list(self.initial.get(table, []))
        initial_by_id = {r["id"]: r for r in rows}
        for row in self.final.get(table, []):
            if id(row) not in seen and initial_by_id.get(row["id"]) != row:
                rows.append(row)
        return rows

    def row(self, entity: Entity, row_id: str) -> dict[str, Any] | None:
        for tables in (self.initial, self.final):
            for row in tables.get(entity.table, []):
                if row["id"] == row_id:
                    return row
        return None

    def candidates(self, entity: Entity, row: dict[str, Any], depth: int) -> list[str]:
        out = []
        for spec in entity.fields:
            value = row.get(spec.name)
            if value is None or value == "" or spec.type in ("text", "list_str", "bool"):
                continue
            if spec.type == "ref" and depth > 0:
                continue
            if spec.type == "str" and len(str(value)) > 60:
                continue
            out.append(spec.name)
        return out

    def pick(self, entity: Entity, row: dict[str, Any], prefer: list[str], depth: int,
             avoid: set[str] | None = None) -> list[str] | None:
        others = [r for r in self.versions(entity.table) if r["id"] != row["id"]]
        names = [n for n in self.candidates(entity, row, depth) if n not in (avoid or set())]
        chosen: list[str] = []
        label = label_field(entity)
        for name in ([label] if label in names else []) + [p for p in prefer if p in names]:
            if name not in chosen:
                chosen.append(name)
        # staff name a record by one or two handles: never "the change request with backout plan X, of config
        # item Y with owner team Z". A row by at most two values besides its label (a state before the noun is no
        # handle), a row named inside another by at most one; `phrase` counts the hops of both together
        most = 1 if depth else HANDLES
        free = {label, entity.status_field}
        if handles(chosen, free) > most:
            return None
        left = [r for r in others if all(r.get(n) == row.get(n) for n in chosen)]
        while left and len(chosen) < MAX_FIELDS:
            options = [n for n in names if n not in chosen and (handles(chosen, free) < most or n in free)]
            if not options:
                return None
            scored = [(sum(1 for r in left if r.get(n) == row.get(n)),
                       PREFERENCE.get(entity.field(n).type, 6), self.rng.random(), n) for n in options]
            best = min(scored)
            if best[0] == len(left) and len(chosen) >= 1:
                scored = [s for s in scored if s[0] < len(left)]
                if not scored:
                    return None
                best = min(scored)
            chosen.append(best[3])
            left = [r for r in left if r.get(best[3]) == row.get(best[3])]
        if left:
            return None
        return chosen or ([names[0]] if names else None)

    def describe(self, entity_name: str, row_id: str, prefer: list[str] | None = None, depth: int = 0,
                 avoid: set[str] | None = None) -> Desc | None:
        key = (entity_name, row_id)
        if key in self.cache and not prefer and not avoid:
            return self.cache[key]
        entity = self.env.entity(entity_name)
        what = words(entity.name)
        if row_id in self.created:
            desc = Desc(entity_name, row_id, self.rng.choice((f"the new {what}", f"the {what} you just created",
                                                              f"that new {what}")))
            self.cache[key] = desc
            return desc
        row = self.row(entity, row_id)
        if row is None:
            return None
        if entity_name not in self.searchable() and depth < 2:
            parent = self.via.get(key)
            if parent is None:
                return None
            outer = self.describe(parent[0], parent[1], None, depth + 1)
            if outer is None:
                return None
            desc = Desc(entity_name, row_id, f"the {words(parent[2])} of {outer.phrase}", {}, outer.mentions,
                        {parent[2]: outer})
            self.cache[key] = desc
            return desc
        chosen = self.pick(entity, row, prefer or self.prefer.get(key, []), depth, avoid)
        if chosen is None:
            return None
        desc = self.phrase(entity, row, chosen, depth)
        refs = {n for n in chosen if entity.field(n).type == "ref"}
        if desc is None and refs and depth == 0:  # a row it points at took more than its name: name it without
            chosen = self.pick(entity, row, [], depth, (avoid or set()) | refs)
            desc = self.phrase(entity, row, chosen, depth) if chosen is not None else None
        if desc is not None and not prefer and not avoid:
            self.cache[key] = desc
        return desc

    def searchable(self) -> set[str]:
        from envcraft.generator.tasks.execute import searchable

        if not hasattr(self, "_searchable"):
            self._searchable = searchable(self.env)
        return self._searchable

    def phrase(self, entity: Entity, row: dict[str, Any], chosen: list[str], depth: int) -> Desc | None:
        """`the overdue invoice "Q3 retainer" from Acme Ltd, for client Maya Chen`: the label first, a one-word
        status before the noun, other values as staff point at a record ("in Canada", "for 1200", "with desk
        count 9"; never a raw "(field value)" in parentheses, never "whose <field> is <value>" stacked on a
        name), the rows it refers to after, one preposition for all of them ("of A and B", not "of A and of B")."""
        what = words(entity.name)
        label = label_field(entity)
        desc = Desc(entity.name, row["id"], "")
        own, refs = [], []
        head, status = None, None
        for name in chosen:
            spec = entity.field(name)
            value = row[name]
            desc.fields[name] = value
            if spec.type == "ref":
                inner = self.describe(spec.ref, value, None, depth + 1)
                if inner is None:
                    return None
                desc.nested[name] = inner
                desc.mentions += inner.mentions
                named = label_field(self.env.entity(spec.ref)) in inner.fields  # "for pet Luna", "for the pet born on ..."
                text = inner.phrase.removeprefix("the ") if named else inner.phrase
                refs.append(("of", text) if words(name) == words(spec.ref) else ("with", f"{words(name)} {text}"))
                continue
            shown = spoken(spec, value, self.today, self.rng)
            desc.mentions.append(shown)
            if name == label:
                head = shown
            elif name == entity.status_field:
                status = shown
            else:
                own.append(attribute(name, spec, shown, what))
        hops = len(own) + sum(1 + handles(list(inner.fields), {label_field(self.env.entity(inner.entity)),
                                                              self.env.entity(inner.entity).status_field})
                              for inner in desc.nested.values())
        if depth == 0 and hops > HANDLES:
            return None  # "the change request with backout plan X, of the config item with owner team Z": a chain
        text = headed(what, head, status) + relative(own)
        if refs and depth == 0:  # "for A and B" or "of A and B": one preposition for every row it belongs to
            of = self.rng.choice(("for", "of"))
            text += (", " if own else " ") + joined_refs([(of if prep == "of" else prep, said) for prep, said in refs])
        desc.phrase = text
        return desc

def handles(chosen: list[str], free: set[str | None]) -> int:
    """How many values name the record, the free ones (its state, at the top its label) aside."""
    return sum(name not in free for name in chosen)


START = {"start", "starts", "start_at", "starts_at", "start_time", "begins"}
END = {"end", "ends", "end_at", "ends_at", "end_time"}
PARTICIPLES = {"born", "built", "sent", "paid", "due", "held", "made", "set", "run", "won", "lost", "sold", "bought"}


def spoken(spec: FieldSpec | None, value: Any, today: date | None = None, rng: random.Random | None = None) -> str:
    """A value as staff say it when they point at a record: dates in words, the rest as `render` writes them.
    Without `today`: "4 November 2026 at 10:00" (day, month and year, so the text still parses as the date).
    With the world's `today`, as a colleague says it on that day (`said_day`): "today at 14:00", "yesterday
    morning at 09:30", "Friday 4 December at 10:00", "14 March", "4 January 2027"."""
    if spec is not None and spec.type in ("date", "datetime") and isinstance(value, str):
        try:
            day = date.fromisoformat(value[:10])
        except ValueError:
            return render(spec, value)
        time = value[11:16] if spec.type == "datetime" and len(value) >= 16 else None
        if today is None or rng is None:
            return f"{day.day} {day.strftime('%B')} {day.year}" + (f" at {time}" if time else "")
        return said_day(day, time, today, rng)
    return render(spec, value)


NEAR = {0: "today", -1: "yesterday", 1: "tomorrow"}


def said_day(day: date, time: str | None, today: date, rng: random.Random) -> str:
    """A day (and time) relative to the world's today, the way people say it: the nearest days by name, this
    week's with their weekday, this year's without the year (some of the time), others in full."""
    delta = (day - today).days
    if delta in NEAR:
        word = NEAR[delta]
        if time is None:
            return word
        part = "morning" if time < "12:00" else "afternoon" if time < "17:00" else "evening"
        part = "tonight" if part == "evening" and delta == 0 else f"this {part}" if delta == 0 else f"{word} {part}"
        return rng.choice((f"{word} at {time}", f"{time} {word}", f"{part} at {time}", f"{word}, {time}"))
    month = day.strftime("%B")
    if abs(delta) <= 6:
        said = rng.choice((f"{day.strftime('%A')} {day.day} {month}", f"{day.strftime('%A')} the {ordinal(day.day)}",
                           f"{day.day} {month}", f"{month} {day.day}"))
    elif day.year == today.year and abs(delta) < 180 and rng.random() < 0.7:  # no year: the nearest such day
        said = rng.choice((f"{day.day} {month}", f"{month} {day.day}", f"{day.strftime('%a')} {day.day} {month}"))
    else:
        said = rng.choice((f"{day.day} {month} {day.year}", f"{month} {day.day}, {day.year}",
                           f"{day.day} {day.strftime('%b')} {day.year}"))
    return said + (rng.choice((f" at {time}", f", {time}")) if time else "")


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def participle(said: str) -> str | None:
    """The verb a date field is named for, as a past participle: "opened" (opened, opened_at), "born", "sent"."""
    parts = said.split()
    if len(parts) == 2 and parts[1] in ("at", "on", "date", "time"):  # received_at reads "received time"
        parts = parts[:1]
    if len(parts) == 1 and (parts[0].endswith(("ed", "en")) or parts[0] in PARTICIPLES):
        return parts[0]
    return None


def attribute(name: str, spec: FieldSpec, shown: str, what: str) -> str:
    """One distinguishing value as staff add it to a record's name: "starting 4 November 2026 at 10:00",
    "from Sysco", "with ear tag 840-00052"."""
    if spec.type in ("date", "datetime") and name in START:
        return f"starting {shown}"
    if spec.type in ("date", "datetime") and name in END:
        return f"ending {shown}"
    said = words(name)
    verb = participle(said) if spec.type in ("date", "datetime") else None
    if verb:
        if shown[:1].isdigit() and ":" in shown[:3]:
            return f"{verb} at {shown}"  # "received at 09:30 yesterday"
        return f"{verb} {shown}" if shown.startswith(("today", "yesterday", "tomorrow", "this ", "tonight")) \
            else f"{verb} on {shown}"  # "born on 6 August 2015", never "whose born is"
    return pointed(spec, shown) or pointer(said, shown, what)  # "with 13 ad pages", not "with ad pages 13"


# How staff point at a record by one value, by the field's name: "the supplier Ironbridge Foods in Canada", "the
# gift for 1500", "the requisition requested by Keisha Morgan"; any other field as "with <field> <value>".
IN = {"country", "region", "department", "city", "location", "zone", "site", "area", "team", "ward", "province",
      "district", "territory", "neighbourhood", "neighborhood", "division"}
FROM = {"supplier", "vendor", "carrier", "shipper", "sender", "source", "origin", "manufacturer", "lender", "insurer"}
AT = {"bank", "branch", "venue", "facility", "clinic", "hospital", "school", "campus", "depot", "warehouse", "address"}
FOR = {"amount", "total", "price", "cost", "fee", "balance", "rent", "premium"}
BY = {"owner": "owned by", "requester": "requested by", "author": "written by", "reporter": "reported by",
      "submitter": "submitted by", "creator": "created by", "assignee": "assigned to", "reviewer": "reviewed by",
      "host": "hosted by", "organizer": "organised by", "approver": "approved by", "manager": "managed by",
      "sponsor": "sponsored by", "preparer": "prepared by", "handler": "handled by", "operator": "run by"}


def pointer(said: str, shown: str, what: str) -> str:
    shown = quoted(shown)
    if said in ("date", f"{what.split()[-1]} date"):
        return f"on {shown}"  # "the board meeting on December 10"
    if said in BY:
        return f"{BY[said]} {shown}"
    for words_, prep in ((IN, "in"), (FROM, "from"), (AT, "at"), (FOR, "for")):
        if said in words_:
            return f"{prep} {shown}"
    return f"with {shown}" if says_what(said, shown) else f"with {said} {shown}"


def condition(name: str, spec: FieldSpec, bound: str, rng: random.Random) -> str:
    """A threshold on a field as a condition: "if it was opened after 18 November", "where it starts after
    today at 14:00", "if its amount is over 5000"; a field named for a verb is said with it, never "its opened"."""
    said = words(name)
    if spec.type in ("date", "datetime"):
        if name in START:
            return rng.choice((f"if it starts after {bound}", f"where it starts later than {bound}"))
        if name in END:
            return rng.choice((f"if it ends after {bound}", f"where it runs past {bound}"))
        verb = participle(said)
        if verb:
            return rng.choice((f"if it was {verb} after {bound}", f"where it was {verb} after {bound}",
                               f"if it was {verb} later than {bound}"))
        return rng.choice((f"where the {said} is after {bound}", f"if the {said} falls after {bound}",
                           f"if its {said} is later than {bound}"))
    said = noun(spec, name)  # "if its weight in kg is over 500", never "its weight kg"
    return rng.choice((f"where the {said} is above {bound}", f"if its {said} is over {bound}",
                       f"if the {said} is more than {bound}", f"when the {said} tops {bound}",
                       f"if its {said} comes to more than {bound}"))


def relative(parts: list[str]) -> str:
    """Parts as one phrase: "starting 4 May 2026 at 10:00, in Room 3, with size 4 and floor 2"."""
    withs = [p.removeprefix("with ") for p in parts if p.startswith("with ")]
    groups = sorted((p for p in parts if not p.startswith("with ")), key=lambda p: not p.startswith("starting "))
    if withs:
        groups.append("with " + (", ".join(withs[:-1]) + " and " + withs[-1] if len(withs) > 1 else withs[0]))
    return " " + ", ".join(groups) if groups else ""

def headed(what: str, head: str | None, status: str | None) -> str:
    """The noun with its label and state: `the failed outage notice`, `the submitted grant proposal "Battery
    recycling with bioleaching"`, `the study protocol Reentry peer mentoring` is quoted as a title, a person or a
    code is not, a label that says what it is stands alone ("Counter 5"); a state of several words follows
    ("that is on hold"), never "currently failed" after the noun."""
    adjective = status if status and " " not in status else None
    after = f" that is {status}" if status and adjective is None else ""
    if head is not None and re.split(r"[\s-]", head)[0].lower() == what.split()[-1].lower():
        return head + (f" that is {status}" if status else "")  # "Counter 5", "BOX-00009": it says what it is
    noun = f"the {adjective} {what}" if adjective else f"the {what}"
    if head is None:
        return noun + after
    return f"{noun} {quoted(head)}{after}"


def quoted(value: str) -> str:
    """A title in quotes ("Statin adherence after myocardial infarction"), a name or a code as it is: a run of
    lower-case words after a noun would read on as the sentence."""
    title = " " in value and any(w.isalpha() and w.islower() for w in value.split()[1:]) and '"' not in value
    return f'"{value}"' if title else value


def joined_refs(refs: list[tuple[str, str]]) -> str:
    """The rows a row points at, one preposition said once: "of customer Wei Mensah and outage event FDR-330"."""
    said = [f"{prep} {text}" if i == 0 or prep != refs[i - 1][0] else text for i, (prep, text) in enumerate(refs)]
    return ", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0]

def preferences(env: EnvSpec, initial: Tables, steps: list) -> dict[tuple[str, str], list[str]]:
    """Ref fields to describe rows by: the chain searched the row they point to (a pet "of owner X"
    when the chain looked the owner up first)."""
    read = {(s.entity, s.target) for s in steps if not s.writes and s.target}
    out: dict[tuple[str, str], list[str]] = {}
    for entity in env.bp.entities:
        refs = [f for f in entity.fields if f.type == "ref"]
        if not refs:
            continue
        for row in initial.get(entity.table, []):
            chosen = [f.name for f in refs if (f.ref, row.get(f.name)) in read and f.ref != entity.name]
            if chosen:
                out[(entity.name, row["id"])] = chosen
    return out
