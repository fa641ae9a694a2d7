"""What a rule kind answers, with the answer a kind gives when it has nothing special to say.

A kind module subclasses `RuleKind`, overrides what its checks mean and ends with `KIND = TheKind()`;
generator/rules/registry.py finds it there by name. The hooks, by the part of the generator that asks:

- the blueprint compiler: `needs` (the check fields it cannot do without), `problems` and `code` (app.py's
  check);
- the policy list: `category` (where an operation's own check of this kind is listed);
- the seed: `fact` (what blocks an existing row), `own_moves` (changes of the row's own fields that may make
  it hold), `counts_active_rows` (a row may also be made inactive to stop counting), `seed_world` (the drawn
  seed made to obey it), `gates_create` and `supply` (enough eligible rows for the tasks), `reads_ref_path`,
  `reads` (other rows' fields a seed row's check reads), `checks_seed` (False: a check of the moment of the
  write says nothing of a seed row);
- the audit: `trap` (a call it must refuse), `pick_ref` (a referenced row a valid call may name), `clashes`
  (a moment another row already holds);
- shared meaning: `occupies_time` (its rows hold a resource over [start, end): paired times, free slots),
  `unique_field` (a field no two rows share: fresh values for seeds, probes and tasks), `future_field`,
  `value_guard` (the row's field among values), `source_states` (where a transition starts), `reads_row_as_is`;
- the task engine: `archetype` (the family of tasks its operations make), `capped_amount` and `amount_cap`
  (how much a call may ask for), `derived` (the value a rule ties a field to: a charge of quantity x unit cost;
  the seed repair asks it too), `carried` (what a change writes from the row's previous value: attempts one up),
  `choices` (the values a field may take: the open periods).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec, Operation, Precondition
from envcraft_runtime.rules import Fact

Tables = dict[str, list[dict[str, Any]]]
Patch = Callable[[Tables], None]  # a change to the app state, made before a probing call
Lit = Callable[[object], str]
# seed_repair's move of a row's date/time field to a day, its paired end moved by as much
# (bp, entity, row, field, day[, clock]) -> the change
Moved = Callable[..., dict[str, Any]]
# (bp, entity name, field, allowed values) -> those values and every status they lead to (seed_rules.later_states)
Later = Callable[[Blueprint, str, str | None, tuple[Any, ...]], tuple[Any, ...]]


@dataclass(frozen=True)
class Emit:
    """What a kind's app.py code is written with."""

    lit: Lit  # a Python literal of a blueprint value
    subject: str  # the row the check reads: `_row` as it is, or `_new` as it would be
    param: Callable[[str], str]  # the operation's parameter name of a field


@dataclass(frozen=True)
class ProbeWorld:
    """What the audit's trap builder may ask besides the tables."""

    today: date
    elsewhere: Callable[[Entity, str, Any], Any]  # another value of a field than the given one
    pairs: Callable[[Entity], dict[str, str]]  # the entity's paired times: end field -> start field


@dataclass(frozen=True)
class Draw:
    """What the seed offers a kind while it draws an entity's rows (generator/seeds/seed.py)."""

    retime: Callable[[FieldSpec, FieldSpec, dict[str, Any]], None]  # a new random start/end pair for the row
    took_place: Callable[[Entity, dict[str, Any]], bool]  # the row happened (a cancelled visit never did)


@dataclass
class Knobs:
    """The seed repair's alternative changes of one broken row (generator/seeds/seed_repair.py), by what they change:
    `refs` re-pick rows it refers to, `own` set its own fields. A kind's `repair_moves` adds to them."""

    refs: dict[str, list[dict[str, Any]]]
    own: dict[str, list[dict[str, Any]]]
    moved: Moved
    failing: list[Precondition]  # every check the row fails
    rule: str  # the id the check is cited by
    later: Later


@dataclass
class Arranging:
    """The world the audit arranges for one check of one call (generator/audit/traps.py `arrange`): a kind's
    `arrange` gives the call an argument (`put`) or changes the state (`patches`) so that the check holds or
    breaks."""

    op: Operation
    entity: Entity
    tables: Tables
    fields: dict[str, Any]  # the call's arguments so far, by field
    new: dict[str, Any]  # the row as the call would make it
    own: Any  # the id of the row the call acts on (None: a create)
    overrides: dict[str, Any]  # arguments changed
    patches: list[Patch]
    put: Callable[[str, Any], bool]  # give the row's field a value: as an argument, else in the state
    reached: Callable[[str, str | None], tuple[Entity, Any]]  # the entity and id a ref path from the row reaches
    keeps: dict[tuple[str, Any, str], Callable[[Any], bool]]  # (table, id, field): values that keep a `when`
    pairs: Callable[[Entity], dict[str, str]]  # an entity's paired times: end field -> start field
    free: Callable[[str, str, str], bool]  # (field, moment, until): no other row's check clashes with the call there


@dataclass(frozen=True)
class Trap:
    """A call the check must refuse: its arguments (keyed by field) and the change made to the world first."""

    args: dict[str, Any]
    patch: Patch | None = None


def set_field(table: str, row_id: str | None, name: str, value: Any) -> Patch:
    def patch(tables: Tables) -> None:
        for row in tables.get(table, []):
            if row.get("id") == row_id:
                row[name] = value
    return patch


def append_row(table: str, row: dict) -> Patch:
    def patch(tables: Tables) -> None:
        tables.setdefault(table, []).append(copy.deepcopy(row))
    return patch


def other_value(spec: FieldSpec, avoid: list[Any]) -> Any:
    """A value of the field that is none of `avoid` (None when an enum or a bool has none left)."""
    if spec.type == "enum":
        return next((v for v in spec.values if v not in avoid), None)
    if spec.type == "bool":
        return next((v for v in (True, False) if v not in avoid), None)
    if spec.type in ("int", "float"):
        return max([v for v in avoid if isinstance(v, (int, float))] + [0]) + 1
    return "audit-other"


def satisfying(op: str, right: Any, hold: bool, spec: FieldSpec | None = None,
                keep: Callable[[Any], bool] | None = None, order: list[str] | None = None) -> Any:
    """A left-hand value for which `left op right` holds (or fails); an enum's stays one of its values (and
    passes `keep`, when the same field also decides whether the rule applies). With `order`, values compare by
    their places in it."""
    if spec is not None and spec.type == "enum" and op in ("==", "!="):
        return right if (op == "==") == hold else \
            next((v for v in spec.values if v != right and (keep is None or keep(v))), None)
    if order and right in order:  # an explicit order (intro < intermediate < advanced)
        return next((v for v in order if compares(order.index(v), op, order.index(right)) == hold
                     and (keep is None or keep(v))), None)
    if spec is not None and spec.type == "enum":  # an ordered enum (p1 < p2, tier1 < tier2): another of its values
        return next((v for v in spec.values if compares(v, op, right) == hold and (keep is None or keep(v))), None)
    if isinstance(right, bool):
        return right if (op == "==") == hold else (not right)
    if isinstance(right, (int, float)):
        step = 1 if isinstance(right, int) or float(right).is_integer() else 0.01
        table = {">=": (right, right - step), ">": (right + step, right), "<=": (right, right + step),
                 "<": (right - step, right), "==": (right, right + step), "!=": (right + step, right)}
        return table[op][0 if hold else 1]
    text = str(right)
    if len(text) >= 10 and text[4] == "-":  # a date or time: shift a day
        day = date.fromisoformat(text[:10])
        later, earlier = (day + timedelta(days=1)).isoformat() + text[10:], (day - timedelta(days=1)).isoformat() + text[10:]
        table = {">=": (text, earlier), ">": (later, text), "<=": (text, later), "<": (earlier, text),
                 "==": (text, later), "!=": (later, text)}
        return table[op][0 if hold else 1]
    return text if (op in ("==", ">=", "<=")) == hold else text + " (other)"


def compares(left: Any, op: str, right: Any) -> bool:
    return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]


class RuleKind:
    name: str = ""
    category: str = ""  # the policy category of an operation's own check of this kind
    needs: tuple[str, ...] = ()  # Precondition fields a check of this kind must set
    occupies_time = False  # a row holds its `resource` over [`start`, `end`)
    reads_row_as_is = False  # an update reads the row as it is (`_row`), not as the write would make it (`_new`)
    counts_active_rows = False
    related_rows = False  # it reads rows of `entity` whose `match` fields equal ours
    matches_related = False  # ...and a call is eligible by the match of such a row (requires)
    blocked_by_related = False  # ...and such a row blocks the call (forbids)
    ref_values = False  # the row its ref path reaches must have `other_field` among `values` (ref_in)
    compares = False  # it compares a field with a literal, another field or a referenced row's field (compare)
    feeds = False  # the seed repair may add related rows for it (`feed`, `lifts`: counts and sums)  # the check counts the active rows of its entity (an inactive row frees its place)
    archetype: str | None = None  # the task archetype an operation with this check suggests

    def problems(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, where: str) -> list[str]:
        """What makes the check impossible to compile against this operation (`where` names it)."""
        return []

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition,
             emit: Emit) -> tuple[str | None, str]:
        """(a set-up statement or None, the expression app.py evaluates to the blocking fact or None)."""
        raise NotImplementedError(f"{self.name}: no app.py code")

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        """What blocks this existing row under the check (the runtime helper app.py calls), or None. `now`: the
        write is made now (a referenced row must be as the check allows, not as it may have become since);
        `later(bp, entity name, field, allowed)` widens allowed statuses by those they lead to."""
        raise NotImplementedError(f"{self.name}: no seed fact")

    def checks_seed(self, entity: Entity, pre: Precondition) -> bool:
        """Seed rows are checked against it (False: it speaks only of the moment of the write, or of where a row
        came from, so a row that exists says nothing about it)."""
        return True

    def repair_moves(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any],
                     rng: random.Random, knobs: Knobs) -> None:
        """Add the changes of the row (or of the rows it refers to) that may make the check hold."""

    def arranged(self, pre: Precondition) -> bool:
        """The audit arranges the world around the call for this check (`arrange`); else it builds a `trap`."""
        return False

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        """Make the check hold (or break) for the call; False when this world cannot."""
        raise NotImplementedError(f"{self.name}: not arranged")

    def crowds(self, entity: Entity, pre: Precondition, rows: list[dict[str, Any]], span: dict[str, Any],
               own: str | None) -> bool:
        """Another row (not `own`) keeps less than the least time the check wants between rows from `span`, a
        row's start and end (the audit picks a slot clear of it)."""
        return False

    def clashes(self, entity: Entity, pre: Precondition, tables: Tables, new: dict[str, Any], field: str,
                moment: str, until: str) -> bool:
        """Setting `field` to [moment, until) would break the check through another row (a time rule's audit
        probe must not meet such a clash)."""
        return False

    def trap(self, bp: Blueprint, op: Operation, pre: Precondition, tables: Tables, row: dict[str, Any] | None,
             args: dict[str, Any], new: dict[str, Any], world: ProbeWorld) -> Trap | None:
        """A call the check must refuse, from valid `args` (keyed by field) that make the row `new` (`row`: the
        existing one). None when this world has none."""
        return None

    def pick_ref(self, bp: Blueprint, entity: Entity, pre: Precondition, field: str, rows: list[dict[str, Any]],
                 tables: Tables) -> Any:
        """The id among `rows` (candidates for the ref `field` of a valid call) the check lets through, or None."""
        return None

    def seed_rows(self, bp: Blueprint, entity: Entity, pre: Precondition, rows: list[dict[str, Any]],
                  draw: Draw) -> None:
        """Make an entity's freshly drawn rows obey the check (before the other entities are drawn)."""

    def seed_world(self, bp: Blueprint, entity: Entity, pre: Precondition, tables: Tables,
                   rng: random.Random) -> None:
        """Make the freshly drawn seed obey the check (before the general repair, which is slower)."""

    def named_values(self, bp: Blueprint, entity: Entity, pre: Precondition) -> list[tuple[FieldSpec, list[str]]]:
        """(field, values) pairs of enum values the check names (a value the field lacks would refuse everything)."""
        return []

    def related_problems(self, other: Entity, entity: Entity, pre: Precondition, where: str) -> list[str]:
        """What makes the check impossible to compile, in the related entity `other` it reads."""
        return []

    def feed(self, bp: Blueprint, entity: Entity, checks: list[Precondition], row: dict[str, Any], tables: Tables,
             rng: random.Random, accept: Callable[[Entity, dict[str, Any], Tables], bool]) -> list[tuple[str, dict]]:
        """Seed repair: (table, row) related rows to add so that `row` passes these checks of this kind."""
        return []

    def lifts(self, bp: Blueprint, entity: Entity, pre: Precondition, row: dict[str, Any], tables: Tables,
              rng: random.Random) -> tuple[list, list]:
        """Seed repair: ((row, field, value) changes of the related rows, (table, row) rows to add)."""
        return [], []

    def holds(self, bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> bool:
        """Whether the check passes for this row as the audit's arrangement sees it (a missing side passes)."""
        return True

    def effect_status(self, bp: Blueprint, op: Operation, pre: Precondition) -> tuple[Any, ...]:
        """The status a create's own effect gives the row the check reads, as a one-tuple (else ())."""
        return ()

    def related_reads(self, pre: Precondition) -> list[tuple[str, str]]:
        """(entity, field) of the related rows the check reads."""
        return []

    def reads(self, bp: Blueprint, entity: Entity, pre: Precondition) -> list[tuple[str, str]]:
        """(entity, field) of the other rows a seed row's check reads, where the blueprint is needed to tell."""
        return self.related_reads(pre)

    def derived(self, bp: Blueprint, entity: Entity, pre: Precondition, fields: dict[str, Any],
                tables: Tables) -> Any:
        """The value the check ties the call's `field` to, given the other `fields` (None: it ties none)."""
        return None

    def carried(self, bp: Blueprint, entity: Entity, pre: Precondition, row: dict[str, Any]) -> dict[str, Any]:
        """Fields a change of `row` writes for the check to hold (a failure's attempts one up); {}: none."""
        return {}

    def choices(self, bp: Blueprint, entity: Entity, pre: Precondition, field: str, tables: Tables) -> list[Any] | None:
        """The values of the call's `field` the check lets through, when it keeps a list (None: it does not say)."""
        return None

    def value_guard(self, pre: Precondition) -> tuple[str, list[str]] | None:
        """(field, allowed values): the check holds when the row's own field is one of the values."""
        return None

    def source_states(self, entity: Entity, pre: Precondition) -> list[str] | None:
        """The statuses the check lets a transition start from (None: it does not say)."""
        return None

    def unique_field(self, pre: Precondition) -> str | None:
        """The field the check keeps unique across the entity's rows, if any."""
        return None

    def future_field(self, pre: Precondition) -> str | None:
        """The date/time field the check keeps from the past (tasks draw it after today), if any."""
        return None

    def capped_amount(self, pre: Precondition) -> str | None:
        """The field of the call whose amount the check caps (a quantity drawn from a stock), if any."""
        return None

    def amount_cap(self, bp: Blueprint, entity: Entity, pre: Precondition, fields: dict[str, Any],
                   tables: Tables) -> float | None:
        """The most the capped amount may be for a call with these `fields`; None when no cap is known."""
        return None

    def reads_ref_path(self, pre: Precondition) -> bool:
        """The check reads `other_field` of the row its `ref_field` (after `through`) points at."""
        return False

    def gates_create(self, bp: Blueprint, entity: Entity, pre: Precondition) -> bool:
        """The check of a create reads only rows the create refers to (so it decides which arguments are
        eligible, and the seed must offer several eligible sets)."""
        return False

    def supply(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any] | None,
               targets: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(row, change) moves that make more calls pass (for `row`, when given): `targets` are the rows its ref
        path reaches."""
        return []
