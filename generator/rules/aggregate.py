"""The `aggregate` check kind, in one place: what it reads, the code app.py runs for it, its fact on a seed
row, and the rows the audit and the seed repair write to make it hold or break.

An aggregate check works a number out over related rows (a departure's booked travellers, an application's
average unconflicted panel score, a cow's lowest somatic cell count over her last three tests) and compares
it with a literal or a field of the operation's row. The runtime helper that decides is
envcraft_runtime.rules.aggregate_fails; everything here only feeds it.

    parts(bp, entity, pre) -> Parts     (the typed pieces, shared by code generation and seed checks)
    code(bp, entity, pre, lit) -> "aggregate_fails(tables['tour_bookings'], {...}, ...)"
    fact(bp, entity, pre, row, tables) -> Fact | None
    rows_for(bp, entity, pre, new, tables, hold) -> patch | None  (audit: a world where it holds / breaks)
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec, Operation, Precondition, typed
from envcraft.generator.rules.kind import Arranging, Emit, Knobs, Later, RuleKind
from envcraft_runtime.rules import Fact, aggregate_fails, aggregate_value

Tables = dict[str, list[dict[str, Any]]]
Where = tuple[tuple[str, str, Any], ...]


@dataclass(frozen=True)
class Parts:
    related: Entity  # whose rows are aggregated
    match: dict[str, str]  # their field -> our field
    where: Where  # (their field, op, typed value or tuple of values)
    function: str
    of: str | None
    latest: tuple[int, str] | None  # (N, their date field)
    says: str
    counted: str  # how the fact names the rows ("milk tests")
    subject_what: str  # whose rows they are: "departure", "volunteer"
    subject_field: str  # our field holding that row's id ("id", or a ref field)
    right_value: Any  # a literal, or None
    right_field: str | None  # our field `than`


def _words(name: str) -> str:
    return name.replace("_", " ")


def _typed(spec: FieldSpec, raw: Any) -> Any:
    return raw if isinstance(raw, bool) else typed(spec, str(raw))


def parts(bp: Blueprint, entity: Entity, pre: Precondition) -> Parts:
    agg, related = pre.aggregate, bp.entity(pre.entity)
    where = tuple((c.field, c.op, tuple(_typed(related.field(c.field), v) for v in c.values) if c.op in ("in", "not_in")
                   else _typed(related.field(c.field), c.value)) for c in agg.where)
    subject_what, subject_field = _words(entity.name), "id"
    if len(pre.match) == 1:  # name the row the related rows belong to: ours, or the one our ref points at
        ours = next(iter(pre.match.values()))
        spec = next((f for f in entity.fields if f.name == ours), None)
        if spec is not None and spec.type == "ref":
            subject_what, subject_field = _words(spec.ref), ours
    right = None if pre.value is None else (int(pre.value) if float(pre.value).is_integer() else float(pre.value))
    return Parts(related, dict(pre.match), where, agg.function, agg.of,
                 (agg.latest, agg.by) if agg.latest else None, agg.says, _words(related.table),
                 subject_what, subject_field, right, pre.than)


def code(bp: Blueprint, entity: Entity, pre: Precondition, lit: Callable[[object], str]) -> str:
    """The expression app.py evaluates to the blocking fact (or None), on the row as it would be (`_new`)."""
    p = parts(bp, entity, pre)
    match = "{" + ", ".join(f"{lit(theirs)}: _new.get({lit(ours)})" for theirs, ours in p.match.items()) + "}"
    where = "(" + "".join(f"({lit(f)}, {lit(op)}, {_literal(v, lit)}), " for f, op, v in p.where) + ")"
    right = lit(p.right_value) if p.right_field is None else f"_new.get({lit(p.right_field)})"
    subject = f"{lit(p.subject_what + ' ')} + str(_new.get({lit(p.subject_field)}))"
    latest = "None" if p.latest is None else f"({p.latest[0]!r}, {lit(p.latest[1])})"
    args = [f"tables[{lit(p.related.table)}]", match, where, lit(p.function), lit(p.of), latest, lit(pre.op), right,
            lit(p.says), subject, lit(p.counted), '_new.get("id")', lit(_words(p.right_field or ""))]
    return f"aggregate_fails({', '.join(args)})"


def _literal(value: Any, lit: Callable[[object], str]) -> str:
    if isinstance(value, tuple):
        return "(" + "".join(f"{lit(v)}, " for v in value) + ")"
    return lit(value)


def fact(bp: Blueprint, entity: Entity, pre: Precondition, row: dict[str, Any], tables: Tables) -> Fact | None:
    """What app.py's check would say of this row as it is (the same helper, on plain tables)."""
    p = parts(bp, entity, pre)
    right = p.right_value if p.right_field is None else row.get(p.right_field)
    return aggregate_fails(tables.get(p.related.table, []), {t: row.get(o) for t, o in p.match.items()}, p.where,
                           p.function, p.of, p.latest, pre.op, right, p.says,
                           f"{p.subject_what} {row.get(p.subject_field)}", p.counted, row.get("id"),
                           _words(p.right_field or ""))


def counts(p: Parts, row: dict[str, Any], other: dict[str, Any]) -> bool:
    """`other` is one of the rows the aggregate of `row` reads (before `latest` cuts them)."""
    if other.get("id") == row.get("id") or any(other.get(t) != row.get(o) for t, o in p.match.items()):
        return False
    return all(_meets(other.get(f), op, v) for f, op, v in p.where)


def _meets(left: Any, op: str, value: Any) -> bool:
    if op in ("in", "not_in"):
        return (left in value) == (op == "in")
    try:
        return left is not None and {"==": left == value, "!=": left != value, "<": left < value, "<=": left <= value,
                                     ">": left > value, ">=": left >= value}[op]
    except TypeError:
        return False


def _target(op: str, right: float, hold: bool, whole: bool) -> float | None:
    """A number n for which `n op right` holds (or fails), a step clear of the boundary."""
    step = 1 if whole else 0.5
    table = {">=": (right, right - step), ">": (right + step, right), "<=": (right, right + step),
             "<": (right - step, right), "==": (right, right + step), "!=": (right + step, right)}
    return table[op][0 if hold else 1]


def _holding(spec: FieldSpec, op: str, value: Any) -> Any:
    """A value of their field that meets `op value` (a `where` condition the made rows must pass)."""
    if op == "in":
        return value[0]
    if op == "not_in":
        return next((typed(spec, v) for v in spec.values if typed(spec, v) not in value), None)
    if op in ("==", ">=", "<="):
        return value
    if op == "!=":
        return next((typed(spec, v) for v in spec.values if typed(spec, v) != value), not value if isinstance(value, bool)
                    else None)
    if isinstance(value, (int, float)):
        return value + (1 if op == ">" else -1)
    day = date.fromisoformat(str(value)[:10]) + timedelta(days=1 if op == ">" else -1)
    return day.isoformat() + str(value)[10:]


def made_rows(bp: Blueprint, entity: Entity, pre: Precondition, new: dict[str, Any], tables: Tables,
              hold: bool) -> list[dict[str, Any]] | None:
    """Related rows whose aggregate meets the rule (hold) or breaks it, to stand in for the ones there now."""
    p = parts(bp, entity, pre)
    right = p.right_value if p.right_field is None else new.get(p.right_field)
    match = {t: new.get(o) for t, o in p.match.items()}
    if right is None or isinstance(right, bool) or any(v is None for v in match.values()):
        return None
    of = p.related.field(p.of) if p.of else None
    whole = of is None or of.type == "int"
    n = _target(pre.op, right, hold, whole)
    if n is None or (p.function == "count" and n < 0):
        return None
    size = int(n) if p.function == "count" else (p.latest[0] if p.latest else 1)
    template = next((r for r in tables.get(p.related.table, []) if counts(p, new, r)),
                    (tables.get(p.related.table) or [{}])[0])
    out = []
    for i in range(size):
        made = {**copy.deepcopy(template), "id": f"{p.related.id_prefix}-{9900 + i}", **match}
        for field, op, value in p.where:
            made[field] = _holding(p.related.field(field), op, value)
            if made[field] is None:
                return None
        if of is not None:
            made[p.of] = int(n) if whole else float(n)
        if p.latest:
            spec, day = p.related.field(p.latest[1]), date.fromisoformat(bp.today) - timedelta(days=i)
            made[p.latest[1]] = day.isoformat() + ("T09:00" if spec.type == "datetime" else "")
        out.append(made)
    return out


def rows_for(bp: Blueprint, entity: Entity, pre: Precondition, new: dict[str, Any], tables: Tables,
             hold: bool) -> Callable[[Tables], None] | None:
    """A state patch under which the check holds (or breaks) for the row as it would be: the related rows it
    reads now are removed and rows with the wanted aggregate put in their place."""
    made = made_rows(bp, entity, pre, new, tables, hold)
    if made is None:
        return None
    p = parts(bp, entity, pre)

    def patch(t: Tables) -> None:
        t[p.related.table] = [r for r in t.get(p.related.table, []) if not counts(p, new, r)] + copy.deepcopy(made)
    return patch


def value(bp: Blueprint, entity: Entity, pre: Precondition, row: dict[str, Any], tables: Tables) -> Any:
    """The aggregate of this row as it is (None: it cannot be worked out)."""
    p = parts(bp, entity, pre)
    return aggregate_value(tables.get(p.related.table, []), {t: row.get(o) for t, o in p.match.items()}, p.where,
                           p.function, p.of, p.latest, row.get("id"))[0]


def own_moves(bp: Blueprint, entity: Entity, pre: Precondition, row: dict[str, Any], tables: Tables) -> list[dict]:
    """Seed repair: the row's own `than` field set to what its aggregate allows (a departure's min_to_guarantee
    lowered to the travellers it has), within the field's range."""
    spec = entity.field(pre.than) if pre.than else None
    have = value(bp, entity, pre, row, tables)
    if spec is None or spec.type not in ("int", "float") or not isinstance(have, (int, float)):
        return []
    flip = {">=": "<=", ">": "<", "<=": ">=", "<": ">", "==": "==", "!=": "!="}[pre.op]
    wanted = _target(flip, have, True, spec.type == "int")
    if (spec.min is not None and wanted < spec.min) or (spec.max is not None and wanted > spec.max):
        return []
    return [{pre.than: int(wanted) if spec.type == "int" else float(wanted)}]


def feed(bp: Blueprint, entity: Entity, checks: list[Precondition], row: dict[str, Any], tables: Tables,
         rng: random.Random, clean: Callable[[Entity, dict[str, Any], Tables], bool] = lambda *_: True,
         ) -> list[tuple[str, dict[str, Any]]]:
    """Seed repair: related rows to add so that `row` passes every count or sum it must (a van its driver and
    five riders, a departure its travellers): copies of a row that counts, each for another person (its other
    refs re-picked until `clean` accepts it in the world as it would be) and with an ordinary value, never the
    whole target. [] when no such rows help (an average or a minimum is met by its rows' values, not their
    number)."""
    added: list[tuple[str, dict[str, Any]]] = []
    sim = {name: list(rows) for name, rows in tables.items()}
    for pre in checks:
        p = parts(bp, entity, pre)
        made = made_rows(bp, entity, pre, row, sim, hold=True) if p.function in ("count", "sum") else None
        if made is None or not made:
            return []
        table = sim.setdefault(p.related.table, [])
        of = p.related.field(p.of) if p.of else None
        top = max((int(str(r["id"]).rsplit("-", 1)[1]) for r in table if str(r.get("id", "")).rsplit("-", 1)[-1].isdigit()),
                  default=0)
        for _ in range(40):
            if fact(bp, entity, pre, row, sim) is None:
                break
            top += 1
            copied = {**copy.deepcopy(made[0]), "id": f"{p.related.id_prefix}-{top:04d}"}
            if of is not None:  # an ordinary value within the field's range
                low, high = of.min if of.min is not None else 1, of.max if of.max is not None else copied[p.of]
                bounded = max(min(copied[p.of], high), low)
                copied[p.of] = int(bounded) if of.type == "int" else float(bounded)
            table.append(copied)
            refs = [s for s in p.related.fields if s.type == "ref" and s.name not in p.match
                    and tables.get(bp.entity(s.ref).table)]
            for _ in range(30):  # another person's seat, not a second seat of the same one
                for spec in refs:
                    copied[spec.name] = rng.choice(tables[bp.entity(spec.ref).table])["id"]
                if clean(p.related, copied, sim):
                    break
            else:
                return []
            added.append((p.related.table, copied))
        if fact(bp, entity, pre, row, sim) is not None:
            return []
    return added


def lifts(bp: Blueprint, entity: Entity, pre: Precondition, row: dict[str, Any], tables: Tables, rng: random.Random,
          ) -> tuple[list[tuple[dict[str, Any], str, Any]], list[tuple[str, dict[str, Any]]]]:
    """Seed repair: an average, minimum or maximum against a literal met by the values of the rows it reads
    (an application's unconflicted panel scores each lifted to an ordinary passing score), not by their
    number: (row, field, value) moves, and one row to add when none is read (its only score). Nothing for
    other aggregates."""
    p = parts(bp, entity, pre)
    if p.function not in ("avg", "min", "max") or p.right_field is not None or not p.of \
            or pre.op not in (">=", ">", "<=", "<"):
        return [], []
    spec, right = p.related.field(p.of), p.right_value
    if spec.type not in ("int", "float") or not isinstance(right, (int, float)) or isinstance(right, bool):
        return [], []
    whole = spec.type == "int"
    edge = _target(pre.op, right, True, whole)
    low, high = (edge, spec.max if spec.max is not None else edge) if pre.op in (">=", ">") else \
        (spec.min if spec.min is not None else edge, edge)

    def ordinary() -> int | float:
        return rng.randint(int(low), int(high)) if whole else round(rng.uniform(low, high), 2)
    table = tables.get(p.related.table, [])
    read = [r for r in table if counts(p, row, r)]
    if read:
        return [(r, p.of, ordinary()) for r in read if not _meets(r.get(p.of), pre.op, right)], []
    made = made_rows(bp, entity, pre, row, tables, hold=True)
    if not made:
        return [], []
    top = max((int(str(r["id"]).rsplit("-", 1)[1]) for r in table if str(r.get("id", "")).rsplit("-", 1)[-1].isdigit()),
              default=0)
    one = {**made[0], "id": f"{p.related.id_prefix}-{top + 1:04d}", p.of: ordinary()}
    return [], [(p.related.table, one)]


class AggregateKind(RuleKind):
    name = "aggregate"
    category = "threshold"
    needs = ("entity", "op")
    related_rows = True
    feeds = True

    def arranged(self, pre: Precondition) -> bool:
        return True

    def related_reads(self, pre: Precondition) -> list[tuple[str, str]]:
        """The related rows' match, filter, number and date fields."""
        agg = pre.aggregate
        return [(pre.entity, f) for f in (*pre.match, agg.of, agg.by, *(c.field for c in agg.where)) if f]

    def related_problems(self, other: Entity, entity: Entity, pre: Precondition, where: str) -> list[str]:
        """An aggregate's fields: a number to work out (`of`), a date to order by, `where` on their fields, and
        `than` a number of ours."""
        agg, theirs, problems = pre.aggregate, {f.name: f for f in other.fields}, []
        if agg.of is not None and (agg.of not in theirs or theirs[agg.of].type not in ("int", "float")):
            problems.append(f"{where} aggregates `of` {agg.of!r}, not a number field of {other.name}")
        if agg.by is not None and (agg.by not in theirs or theirs[agg.by].type not in ("date", "datetime")):
            problems.append(f"{where} orders by {agg.by!r}, not a date field of {other.name}")
        for cond in agg.where:
            if cond.field not in theirs:
                problems.append(f"{where} `where` names {cond.field!r}, not a field of {other.name}")
            elif theirs[cond.field].type == "enum":
                problems += [f"{where} `where` names {v!r}, not a value of {cond.field}" for v in
                             cond.values + ([cond.value] if isinstance(cond.value, str) else [])
                             if v not in theirs[cond.field].values]
        if pre.than is not None and pre.than in {f.name for f in entity.fields} and \
                entity.field(pre.than).type not in ("int", "float"):
            problems.append(f"{where} compares with `than` {pre.than!r}, not a number field of {entity.name}")
        return problems

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        return None, code(bp, entity, pre, emit.lit)

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        return fact(bp, entity, pre, row, tables)

    def repair_moves(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any],
                     rng: random.Random, knobs: Knobs) -> None:
        """The compared field of ours moved to what the related rows work out to."""
        for move in own_moves(bp, entity, pre, row, tables):
            knobs.own.setdefault(pre.than, []).append(move)

    def feed(self, bp: Blueprint, entity: Entity, checks: list[Precondition], row: dict[str, Any], tables: Tables,
             rng: random.Random, accept: Callable[[Entity, dict[str, Any], Tables], bool]) -> list[tuple[str, dict]]:
        return feed(bp, entity, checks, row, tables, rng, accept)

    def lifts(self, bp: Blueprint, entity: Entity, pre: Precondition, row: dict[str, Any], tables: Tables,
              rng: random.Random) -> tuple[list, list]:
        return lifts(bp, entity, pre, row, tables, rng)

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        """The related rows it reads replaced by rows with the wanted number."""
        patch = rows_for(bp, at.entity, pre, at.new, at.tables, hold)
        if patch is None:
            return False
        at.patches.append(patch)
        return True


KIND = AggregateKind()
