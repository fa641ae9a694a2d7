"""Which enforced rules the rows already in a world must satisfy, and which they break.

A tool refuses a write that breaks a rule; a seed row is the result of such a write, so it must satisfy
the rules of the operation that made it (a proposed volunteer has the study's condition, an unassisted
microscope session has a passed training for that scope). Otherwise the world contradicts its own rules,
and a careful agent is taught that they do not hold.

Which rows a rule speaks for:
- a create's rules: every row of its entity (of several creates, one of them must be satisfied);
- a transition's rules: the rows in the status it moves to (of several ways into a status, one);
- an update's rules: every row of its entity.

What a rule says about a row that exists (the same runtime facts app.py computes, on the row as it is):
- `status_in` says where a row came from, `not_in_past` and `happens_now` hold at the time of the write (the
  seed keeps history; seed_timeline.py keeps each event where its status says it is in time), `at_least`
  draws on a stock the write itself used up: none is a fact about the world now;
- a referenced row's status may have moved on since the write: a lot that was released when stock was
  issued from it may be consumed now. A status the allowed ones lead to (`later_states`) still satisfies
  `ref_in` and `requires` (a lot never released does not). When the create itself sets that status (an
  award makes its application awarded), the row's referenced row is where that effect leads, not where the
  check allowed it to start (`effect_status`: an application still in panel review holds no live award;
  an expired offer's unit may be available again);
- `capacity` and `no_overlap` count only active rows, as the tools do.

    breaches(bp, tables) -> [Breach(rule="volunteer_condition_matches", entity="study_enrollment", row="enr-0003",
                                    fact="the study volunteer's condition is asthma, not equal to ... migraine"), ...]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Condition, Entity, Operation, Precondition
from envcraft.generator.model.fields import typed
from envcraft.generator.model.policy import precondition_id
from envcraft.generator.model.refpath import follow, ref_entity, target
from envcraft.generator.rules.registry import kind, source_states
from envcraft_runtime.rules import (
    Fact,
    holds,
)

Tables = dict[str, list[dict[str, Any]]]


@dataclass(frozen=True)
class Check:
    """One enforced precondition of one operation."""

    op: Operation
    pre: Precondition
    rule: str  # the id its refusal cites


@dataclass(frozen=True)
class Way:
    """One way a row came to be as it is (a create, or a transition into its status), and its checks."""

    op: Operation
    checks: tuple[Check, ...]


@dataclass(frozen=True)
class Breach:
    rule: str
    entity: str
    row: str
    fact: str
    op: str = ""

    def __str__(self) -> str:
        return f"{self.entity} {self.row} breaks {self.rule} ({self.op}): {self.fact}"


def checks_of(bp: Blueprint, op: Operation) -> tuple[Check, ...]:
    """The operation's checks that say something about a row that exists (see the module doc)."""
    entity = bp.entity(op.entity)
    return tuple(Check(op, pre, precondition_id(op, i)) for i, pre in enumerate(op.preconditions)
                 if kind(pre.kind).checks_seed(entity, pre))


def ways_in(bp: Blueprint, entity: Entity, row: dict[str, Any]) -> list[list[Way]]:
    """Groups of ways a row came to be: from each group one way must hold (creates; transitions into its
    status), and every update holds on its own (a group of one)."""
    status = row.get(entity.status_field) if entity.status_field else None
    return _index(bp).ways(entity.name, status)


class _Index:
    """What the checks need of a blueprint, worked out once: the ways into each status, where each status
    leads, and whose checks read which fields. Kept for the few blueprints used last (a seed is repaired
    by thousands of look-ups)."""

    def __init__(self, bp: Blueprint):
        self.bp = bp
        self.entities = {e.name: e for e in bp.entities}
        self.checks = {op.name: checks_of(bp, op) for op in bp.operations}
        self._ways: dict[tuple[str, Any], list[list[Way]]] = {}
        self._later: dict[tuple[str, tuple[Any, ...]], tuple[Any, ...]] = {}
        self.readers: dict[tuple[str, str], set[str]] = {}
        for op in bp.operations:
            for pre in op.preconditions:
                for read, field in _reads(bp, self.entities[op.entity], pre):
                    self.readers.setdefault((read, field), set()).add(op.entity)

    def ways(self, entity: str, status: Any) -> list[list[Way]]:
        key = (entity, status)
        if key not in self._ways:
            ops = [op for op in self.bp.operations if op.entity == entity]
            creates = [Way(op, self.checks[op.name]) for op in ops if op.kind == "create"]
            into = [Way(op, self.checks[op.name]) for op in ops if op.kind == "transition" and op.to_status == status]
            updates = [[Way(op, self.checks[op.name])] for op in ops if op.kind == "update"]
            self._ways[key] = [group for group in [creates, into, *updates] if group and all(w.checks for w in group)]
        return self._ways[key]

    def later(self, entity: str, allowed: tuple[Any, ...]) -> tuple[Any, ...]:
        key = (entity, allowed)
        if key not in self._later:
            edges, seen, todo = _edges(self.bp, entity), list(allowed), list(allowed)
            while todo:
                for nxt in sorted(edges.get(todo.pop(), ())):
                    if nxt not in seen:
                        seen.append(nxt)
                        todo.append(nxt)
            self._later[key] = tuple(seen)
        return self._later[key]


_INDEXES: dict[int, _Index] = {}


def _index(bp: Blueprint) -> _Index:
    found = _INDEXES.get(id(bp))
    if found is None or found.bp is not bp:
        if len(_INDEXES) >= 16:
            _INDEXES.clear()
        found = _INDEXES[id(bp)] = _Index(bp)
    return found


def _reads(bp: Blueprint, entity: Entity, pre: Precondition) -> list[tuple[str, str]]:
    """(entity, field) pairs of other rows a check on a row of `entity` reads. Its own row's fields are left
    out, and so are counts among its own entity's rows (capacity, overlaps): both are seen by the row's own check."""
    out = kind(pre.kind).reads(bp, entity, pre) if kind(pre.kind) is not None else []
    if pre.their is not None:  # the related rows' ref, and the field of the row it names
        out += [(pre.entity, pre.their.ref_field),
                (ref_entity(bp, bp.entity(pre.entity), pre.their.ref_field).name, pre.their.field)]
    for path in (pre, *pre.conditions):
        rule = kind(pre.kind)  # (a check of the moment of the write is never read on a seed row)
        own_path = rule.checks_seed(entity, pre) and rule.reads_ref_path(pre)
        if path is None or not path.ref_field or (path is pre and not own_path):
            continue
        if path.through:  # the middle row's ref is read too
            out.append((ref_entity(bp, entity, path.through).name, path.ref_field))
        read = pre.other_field if path is pre else path.field
        if read:
            out.append((target(bp, entity, path.ref_field, path.through).name, read))
    mine = ref_entity(bp, entity, pre.field) if pre.via else None
    if mine is not None:
        out += [(mine.name, name) for name in (pre.via, *pre.or_via)]
    return out


def readers(bp: Blueprint, entity: Entity, fields: set[str]) -> set[str]:
    """The entities whose rows' checks read one of these fields of another row of `entity`."""
    index = _index(bp)
    return {reader for field in fields for reader in index.readers.get((entity.name, field), ())}


def _edges(bp: Blueprint, entity_name: str) -> dict[Any, set[Any]]:
    """status -> the statuses a write moves it to: its transitions, and other writes' effects that set it."""
    entity = bp.entity(entity_name)
    if not entity.status_field:
        return {}
    everything = list(entity.field(entity.status_field).values)
    edges: dict[Any, set[Any]] = {}
    for op in bp.operations:
        if op.entity == entity_name and op.kind == "transition":
            froms = source_states(entity, op)
            froms = everything if froms is None else froms
            for source in froms:
                edges.setdefault(source, set()).add(op.to_status)
        for effect in op.effects:  # a write elsewhere that sets this entity's status (an offer makes a unit pending)
            spec = next((f for f in bp.entity(op.entity).fields if f.name == effect.ref_field), None)
            if spec is None or spec.ref != entity_name or effect.kind != "set" or effect.field != entity.status_field \
                    or effect.value is None:
                continue
            froms = next((p.values for p in op.preconditions if kind(p.kind).ref_values
                          and p.ref_field == effect.ref_field and p.other_field == entity.status_field), everything)
            for source in froms:
                edges.setdefault(source, set()).add(effect.value)
    return edges


def effect_status(bp: Blueprint, op: Operation, pre: Precondition) -> tuple[Any, ...]:
    """The status a create's own effect gives the row its check reads (an award makes its application
    awarded), as a one-tuple; () when the create leaves that status alone. A row the create made has
    moved its referenced row on, so the status the check allowed beforehand no longer fits it."""
    return kind(pre.kind).effect_status(bp, op, pre) if kind(pre.kind) is not None else ()


def later_states(bp: Blueprint, entity_name: str, field: str | None, allowed: tuple[Any, ...]) -> tuple[Any, ...]:
    """`allowed`, and when `field` is the entity's status, every status they lead to by its transitions."""
    if field is None or field != _index(bp).entities[entity_name].status_field:
        return allowed
    return _index(bp).later(entity_name, allowed)


def _values(entity: Entity, field: str, raw: list[str]) -> tuple[Any, ...]:
    return tuple(typed(entity.field(field), v) for v in raw)


def _literal(entity: Entity, field: str, value: Any) -> Any:
    return value if isinstance(value, bool) else typed(entity.field(field), str(value))


def first_hop(pre: Precondition) -> str | None:
    """The operation row's own ref field a check's path starts with (`through` for two hops)."""
    return pre.through or pre.ref_field


def reached(bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any],
            pre: Precondition | Condition) -> tuple[Entity | None, dict[str, Any] | None]:
    """The entity and row a check (or condition) reads at the end of its ref path, one or two hops away."""
    if not pre.ref_field:
        return None, None
    return target(bp, entity, pre.ref_field, pre.through), follow(bp, entity, tables, row, pre.ref_field, pre.through)


def applies(bp: Blueprint, entity: Entity, tables: Tables, pre: Precondition, row: dict[str, Any]) -> bool:
    """The check's `when` holds for the row (no `when`: always), as app.py evaluates it: on the row, or on
    the row its ref path reaches (a missing value is not among any values); a list of conditions: all of them."""
    return all(_condition_holds(bp, entity, tables, cond, row) for cond in pre.conditions)


def _condition_holds(bp: Blueprint, entity: Entity, tables: Tables, cond: Condition, row: dict[str, Any]) -> bool:
    mine, left = entity, row.get(cond.field)
    if cond.ref_field:
        mine, there = reached(bp, entity, tables, row, cond)
        left = there.get(cond.field) if there else None
    if cond.op in ("in", "not_in"):
        inside = left in _values(mine, cond.field, cond.values)
        return inside if cond.op == "in" else not inside
    return bool(holds(left, cond.op, _literal(mine, cond.field, cond.value)))


def fact(bp: Blueprint, check: Check, row: dict[str, Any], tables: Tables, now: bool = False) -> Fact | None:
    """What blocks this row under the check, as app.py's own helpers word it, or None. `now`: the write is
    made now, so a referenced row's status must be an allowed one (not one it may have moved on to since)."""
    pre, entity = check.pre, _index(bp).entities[check.op.entity]
    if not applies(bp, entity, tables, pre, row):
        return None
    return kind(pre.kind).fact(bp, check.op, entity, pre, row, tables, now, later_states)


def way_breaches(bp: Blueprint, way: Way, row: dict[str, Any], tables: Tables, now: bool = False) -> list[Breach]:
    entity = _index(bp).entities[way.op.entity]
    out = []
    for check in way.checks:
        found = fact(bp, check, row, tables, now)
        if found is not None:
            out.append(Breach(check.rule, entity.name, row["id"], found.text, way.op.name))
    return out


def row_breaches(bp: Blueprint, entity: Entity, row: dict[str, Any], tables: Tables) -> list[Breach]:
    """The rules this row breaks: of each group of ways in, the way with the fewest (none if one is clean)."""
    out: list[Breach] = []
    for group in ways_in(bp, entity, row):
        out += min((way_breaches(bp, way, row, tables) for way in group), key=len)
    return out


def rows(bp: Blueprint, tables: Tables) -> Iterator[tuple[Entity, dict[str, Any]]]:
    for entity in bp.entities:
        for row in tables.get(entity.table, []):
            yield entity, row


def breaches(bp: Blueprint, tables: Tables, only: set[str] | None = None) -> list[Breach]:
    """Every rule every row of the world breaks (of the `only` entities' rows, when given)."""
    return [b for entity, row in rows(bp, tables) if only is None or entity.name in only
            for b in row_breaches(bp, entity, row, tables)]
