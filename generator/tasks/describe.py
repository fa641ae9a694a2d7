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

MAX_FIELDS = 4
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


def labelled(field: str, shown: str) -> str:
    """`room 3`, but `Room 3` alone when the value already starts with the field's name."""
    name = words(field)
    return shown if shown.lower().startswith(name.lower().split()[-1]) else f"{name} {shown}"


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
        left = [r for r in others if all(r.get(n) == row.get(n) for n in chosen)]
        while left and len(chosen) < MAX_FIELDS:
            options = [n for n in names if n not in chosen]
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
        if desc is not None and not prefer and not avoid:
            self.cache[key] = desc
        return desc

    def searchable(self) -> set[str]:
        from envcraft.generator.tasks.execute import searchable

        if not hasattr(self, "_searchable"):
            self._searchable = searchable(self.env)
        return self._searchable

    def phrase(self, entity: Entity, row: dict[str, Any], chosen: list[str], depth: int) -> Desc | None:
        """`the pet "Luna" whose species is cat and born is 2 March 2021, of owner Maya Chen`: the label first, its
        other values in a relative clause (never a raw "(field value)" in parentheses), the rows it refers to after."""
        what = words(entity.name)
        label = label_field(entity)
        desc = Desc(entity.name, row["id"], "")
        own, refs = [], []
        head = f"the {what}"
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
                refs.append(f"{self.rng.choice(('for', 'of'))} {text}" if words(name) == words(spec.ref)
                            else f"with {words(name)} {text}")
                continue
            shown = spoken(spec, value)
            desc.mentions.append(shown)
            if name == label:
                echo = shown.lower().startswith(what.split()[-1].lower())  # the service counter "Counter 5"
                head = f'the {what} "{shown}"' if echo or self.rng.random() < 0.5 else f"the {what} {shown}"
            else:
                own.append(attribute(name, spec, shown, name == entity.status_field))
        text = head + relative(own)
        if refs:
            text += (", " if own else " ") + " and ".join(refs) if depth == 0 else ""
        desc.phrase = text
        return desc


START = {"start", "starts", "start_at", "starts_at", "start_time", "begins"}
END = {"end", "ends", "end_at", "ends_at", "end_time"}
PARTICIPLES = {"born", "built", "sent", "paid", "due", "held", "made", "set", "run", "won", "lost", "sold", "bought"}


def spoken(spec: FieldSpec | None, value: Any) -> str:
    """A value as staff say it when they point at a record: dates in words ("4 November 2026 at 10:00"),
    the rest as `render` writes them. The day, month and year stay, so the text still parses as the date."""
    if spec is not None and spec.type in ("date", "datetime") and isinstance(value, str):
        try:
            day = date.fromisoformat(value[:10])
        except ValueError:
            return render(spec, value)
        said = f"{day.day} {day.strftime('%B')} {day.year}"
        return said + (f" at {value[11:16]}" if spec.type == "datetime" and len(value) >= 16 else "")
    return render(spec, value)


def attribute(name: str, spec: FieldSpec, shown: str, status: bool) -> str:
    """One distinguishing value as part of a relative clause: "starting 4 November 2026 at 10:00",
    "that is currently booked", "whose ear tag is 840-00052"."""
    if status:
        return f"currently {shown}"
    if spec.type in ("date", "datetime") and name in START:
        return f"starting {shown}"
    if spec.type in ("date", "datetime") and name in END:
        return f"ending {shown}"
    said = words(name)
    if spec.type in ("date", "datetime") and " " not in said and (said.endswith(("ed", "en")) or said in PARTICIPLES):
        return f"{said} on {shown}"  # born, received, opened: "born on 6 August 2015", never "whose born is"
    return f"whose {said} is {shown}"


def relative(parts: list[str]) -> str:
    """Parts as one clause: "starting 4 May 2026 at 10:00, whose room is 3 and size is 4, currently booked"."""
    timed = [p for p in parts if p.startswith(("starting ", "ending "))]
    whose = [p.removeprefix("whose ") for p in parts if p.startswith("whose ")]
    state = [p for p in parts if p.startswith("currently ")]
    text = " and ".join(timed)
    if whose:
        text += (", " if text else "") + "whose " + (", ".join(whose[:-1]) + " and " + whose[-1] if len(whose) > 1 else whose[0])
    if state:
        text += (", " if text else "") + state[0]
    return " " + text if text else ""


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
