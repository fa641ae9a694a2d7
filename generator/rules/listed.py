"""The `listed` check kind: a written amount is the one a price list gives the row's kind.

    check: {kind: listed, field: charge, key: damage, listed: {"bent edge": 90, "lost pole": 35}}
                                                          # damage is charged at the listed price

The list is the rule (its text states the prices; a doc cites it as `{{rule:<id>}}`): the written `field` must equal,
to the cent, the amount `listed` under the row's `key` value; a kind the list does not name blocks nothing. A price
holds for as long as the row does, so seed rows obey it. The runtime helper that decides is
envcraft_runtime.rules.off_list; here is what app.py calls, the fact on a seed row, the seed's move (the listed
amount), what a task writes (the same), and the audit's arrangement (the listed amount, or a cent more).
"""

from __future__ import annotations

import random
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition
from envcraft.generator.rules.kind import Arranging, Emit, Knobs, Later, RuleKind, Tables
from envcraft_runtime.rules import Fact, off_list


def _price(entity: Entity, pre: Precondition, row: dict[str, Any]) -> Any:
    """The listed amount for the row's kind, as the field holds it (None: the list does not name the kind)."""
    key = row.get(pre.key)
    if key is None or str(key) not in pre.listed:
        return None
    amount = pre.listed[str(key)]
    return int(amount) if entity.field(pre.field).type == "int" else round(float(amount), 2)


class Listed(RuleKind):
    name = "listed"
    category = "consistency"
    needs = ("field", "key", "listed")

    def problems(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, where: str) -> list[str]:
        out = [] if pre.listed else [f"{where} lists no amounts in `listed`"]
        if pre.key not in {f.name for f in entity.fields}:
            out.append(f"{where} lists prices by key {pre.key!r}, not a field of {entity.name}")
        elif entity.field(pre.key).values and set(pre.listed) - {str(v) for v in entity.field(pre.key).values}:
            out.append(f"{where} lists {sorted(set(pre.listed) - set(map(str, entity.field(pre.key).values)))}, "
                       f"not values of {pre.key}")
        if entity.field(pre.field).type not in ("int", "float"):
            out.append(f"{where} lists amounts for {pre.field}, which is not a number")
        return out

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        return None, (f"off_list(_new.get({lit(pre.field)}), _new.get({lit(pre.key)}), {lit(dict(pre.listed))}, "
                      f"{lit(pre.field.replace('_', ' '))})")

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        return off_list(row.get(pre.field), row.get(pre.key), dict(pre.listed), pre.field.replace("_", " "))

    def holds(self, bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> bool:
        return off_list(row.get(pre.field), row.get(pre.key), dict(pre.listed), "") is None

    def seed_world(self, bp: Blueprint, entity: Entity, pre: Precondition, tables: Tables,
                   rng: random.Random) -> None:
        if pre.when is not None:  # which rows it applies to is the general repair's question
            return
        for row in tables.get(entity.table, []):
            price = _price(entity, pre, row)
            if price is not None:
                row[pre.field] = price

    def repair_moves(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any],
                     rng: random.Random, knobs: Knobs) -> None:
        price = _price(entity, pre, row)
        if price is not None:
            knobs.own.setdefault(pre.field, []).append({pre.field: price})

    def derived(self, bp: Blueprint, entity: Entity, pre: Precondition, fields: dict[str, Any],
                tables: Tables) -> Any:
        return None if pre.field not in fields else _price(entity, pre, fields)  # the caller asks whether it applies

    def arranged(self, pre: Precondition) -> bool:
        return True

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        price = _price(at.entity, pre, at.new)
        if price is None:  # no kind yet, or one the list does not name: give the row a listed one
            first = next(iter(pre.listed), None)
            if first is None or not at.put(pre.key, first):
                return False
            price = _price(at.entity, pre, at.new)
        step = 1 if at.entity.field(pre.field).type == "int" else 0.01
        return at.put(pre.field, price if hold else round(price + step, 2))


KIND = Listed()
