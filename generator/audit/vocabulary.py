"""Names that contradict their category: a row whose name or title speaks of one value of its own type or
category field while the field holds another ("Casualty XoL Layer 1" typed `quota_share`, "Cool Rewards
Thermostats" typed `battery_dispatch`).

A name is read against each enum field of its row (the status excepted): the words of every enum value
(`excess_of_loss` -> excess, loss; `battery_dispatch` -> battery, dispatch), their stems, and the usual
trade abbreviations below. A name that names exactly one value, and not the row's own, is a
contradiction. Where words cannot tell ("Water Heater Shift" is a water-heater program, "Boys & Girls
Club" serves youth), the blueprint declares the vocabulary per category as a `pool_by` invariant
(generator/seeds/invariants.py): the seed is repaired to it, and a value outside its category's pool is a
contradiction here too.

    contradictions(bp, tables) -> [Contradiction(env="reinsurance_bordereaux", table="treaties", row_id="trt-0002",
                                                 field="name", value="Casualty XoL Layer 1", category="treaty_type",
                                                 holds="quota_share", names="excess_of_loss"), ...]
    contradiction_rows(servers) -> the same over every generated environment's seed
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint, Entity, FieldSpec, load_blueprint
from envcraft.generator.seeds.invariants import invariants

NAMING = re.compile(r"(^|_)(name|title|headline|label|summary)$")
# Trade abbreviations names use for a category value's words.
ABBREVIATIONS = {"xol": ("excess", "loss"), "qs": ("quota", "share"), "ev": ("ev",), "c&i": ("commercial",)}
MINOR = {"of", "and", "the", "a", "an", "or", "to", "for", "in", "on", "by", "with", "other", "general", "none",
         "standard", "regular", "normal", "new", "mixed", "both", "main", "all"}  # words any name may use


@dataclass(frozen=True)
class Contradiction:
    env: str
    table: str
    row_id: str
    field: str
    value: str
    category: str  # the enum field the name contradicts
    holds: str  # the value that field holds
    names: str  # the value the name speaks of


def _stem(word: str) -> str:
    return word[:6] if len(word) > 6 else word.rstrip("s")


def _markers(value: str) -> set[str]:
    """Stems of a category value's words that could show up in a name."""
    return {_stem(w) for w in value.lower().split("_") if (w not in MINOR and len(w) > 2) or w == "ev"}


def _named(text: str, values: list[str]) -> set[str]:
    """The category values a name speaks of: all of the value's own markers appear (or an abbreviation of them),
    or one of them that is a number ("-80 Freezer A" speaks of minus_80)."""
    tokens = re.findall(r"[a-z0-9&]+", re.sub(r"(?<![\w])-(\d)", r"minus \1", text.lower()))
    stems = {_stem(t) for t in tokens}
    for token in tokens:
        stems |= {_stem(w) for w in ABBREVIATIONS.get(token, ())}
    out = set()
    for value in values:
        markers = _markers(value)
        distinct = {m for m in markers if not any(m in _markers(v) for v in values if v != value)}
        if distinct and (distinct <= stems or any(m.isdigit() and m in stems for m in distinct)):
            out.add(value)
    return out


def _categories(entity: Entity) -> list[FieldSpec]:
    return [f for f in entity.fields if f.type == "enum" and f.name != entity.status_field]


def _declared(bp: Blueprint, entity: Entity, row: dict) -> list[Contradiction]:
    """Rows breaking a `pool_by` invariant that joins a name to its category, either way round: the name
    decides the category (a treaty named "Motor XoL 2026" is excess_of_loss) or the category gives the pool
    the text comes from (a children's study gets a paediatric title)."""
    out = []
    for inv in invariants(bp):
        if inv.kind != "pool_by" or inv.entity != entity.name or row.get(inv.field) is None:
            continue
        key = str(row.get(inv.by)).lower() if isinstance(row.get(inv.by), bool) else str(row.get(inv.by))
        pool = inv.pools.get(key)
        if pool is None or str(row[inv.field]) in pool:
            continue
        if entity.field(inv.by).type == "enum":  # the category picks the text's pool
            owner = next((k for k, other in inv.pools.items() if str(row[inv.field]) in other), "?")
            out.append(Contradiction(bp.id, entity.table, row["id"], inv.field, str(row[inv.field]), inv.by, key, owner))
        else:  # the name decides the category
            out.append(Contradiction(bp.id, entity.table, row["id"], inv.by, key, inv.field, str(row[inv.field]),
                                     "/".join(pool)))
    return out


def contradictions(bp: Blueprint, tables: dict[str, list[dict]]) -> list[Contradiction]:
    out = []
    declared = {(inv.entity, frozenset((inv.field, inv.by))) for inv in invariants(bp) if inv.kind == "pool_by"}
    for entity in bp.entities:
        names = [f for f in entity.fields if f.type == "str" and NAMING.search(f.name)]
        for row in tables.get(entity.table, []):
            out += _declared(bp, entity, row)
            for spec in names:
                text = row.get(spec.name)
                if not isinstance(text, str):
                    continue
                for category in _categories(entity):
                    if (entity.name, frozenset((spec.name, category.name))) in declared:
                        continue  # the declared vocabulary decides (checked by _declared)
                    spoken = _named(text, category.values)
                    holds = row.get(category.name)
                    if len(spoken) == 1 and holds not in spoken and holds is not None:
                        out.append(Contradiction(bp.id, entity.table, row["id"], spec.name, text, category.name,
                                                 holds, spoken.pop()))
    return out


def contradiction_rows(servers: Path) -> list[Contradiction]:
    out = []
    for blueprint in sorted(BLUEPRINTS.glob("*.yaml")):
        state = Path(servers) / blueprint.stem / "seed" / ".app" / "state.json"
        if state.exists():
            out += contradictions(load_blueprint(blueprint), json.loads(state.read_text("utf-8")))
    return out


__all__ = ["Contradiction", "contradiction_rows", "contradictions"]
