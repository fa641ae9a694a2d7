"""A generated app's business rules, as code: each check works out the fact that would block a write
(or None), and `refuse` turns it into a PolicyRefusal that cites the rule's id and text.

The facts are written for people ("appointment apt-0004 has status cancelled"), so a refusal tells
the agent what blocks the write; `value` is what the fact turns on, for graders and task builders.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple, NoReturn

from .failures import ToolFailure

# A row whose status is one of these no longer holds its slot or its seat.
INACTIVE = frozenset({
    "cancelled", "canceled", "void", "voided", "rejected", "declined", "failed", "completed", "done", "closed",
    "archived", "expired", "deleted", "withdrawn", "released", "returned", "returned_to_stock", "checked_out",
    "no_show", "resolved", "finished", "inactive", "lost", "retired", "discontinued", "refunded", "dismissed",
    "abandoned", "superseded", "reversed", "written_off", "left",
})
COMPARISONS = {"==": "equal to", "!=": "different from", "<": "below", "<=": "at most", ">": "above", ">=": "at least"}


class PolicyRefusal(ToolFailure):
    """A write one of the app's rules forbids: the rule's id and text, and the fact that blocks it."""

    def __init__(self, policy: str, rule: str, fact: str, value: Any = None):
        super().__init__(f"{rule} (rule {policy}: {fact})")
        self.policy, self.rule, self.fact, self.value = policy, rule, fact, value


class Fact(NamedTuple):
    """What blocks a write, in words, and the value it turns on."""

    text: str
    value: Any = None


@dataclass
class PolicyRule:
    """One rule of this app, as read_policies lists it."""

    id: str
    category: str
    rule: str
    tools: list[str]  # the tools that check it
    enforced: bool  # false: left to judgement, or an expected follow-up


POLICY_FORMAT = "envcraft.policies/1"
POLICY_FILE = "policies.json"  # beside app.py, generated from the blueprint with it
_RULE_FIELDS = {"id": str, "category": str, "rule": str, "tools": list, "enforced": bool}  # PolicyRule's, typed


def load_policies(app_file: str) -> list[PolicyRule]:
    """The rules in the policies.json beside `app_file` (an app.py's __file__), each checked field by field
    against PolicyRule: a hand-edited or torn file fails at import, never in the middle of an episode."""
    path = Path(app_file).with_name(POLICY_FILE)
    data = json.loads(path.read_text("utf-8"))
    if not isinstance(data, dict) or data.get("format") != POLICY_FORMAT or not isinstance(data.get("policies"), list):
        raise ValueError(f"{path}: not a {POLICY_FORMAT} file")
    return [_policy_rule(path, entry) for entry in data["policies"]]


def _policy_rule(path: Path, entry: Any) -> PolicyRule:
    if not isinstance(entry, dict) or set(entry) != set(_RULE_FIELDS) or any(
            not isinstance(entry[name], kind) for name, kind in _RULE_FIELDS.items()) or any(
            not isinstance(tool, str) for tool in entry["tools"]):
        shape = ", ".join(f"{name}: {kind.__name__}" for name, kind in _RULE_FIELDS.items())
        raise ValueError(f"{path}: a rule is not {{{shape}}}: {str(entry)[:200]}")
    return PolicyRule(**entry)


def refuse(policy: str, rule: str, fact: Fact) -> NoReturn:
    raise PolicyRefusal(policy, rule, fact.text, fact.value)


def _show(value: Any) -> str:
    """A value as a person writes it: no snake_case, yes/no for flags."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).replace("_", " ") if isinstance(value, str) and re.fullmatch(r"[a-z0-9_]+", value) else str(value)


def _label(field: str) -> str:
    return field.removesuffix("_id").replace("_", " ")


def not_among(row: dict[str, Any] | None, field: str, allowed: tuple[Any, ...], what: str) -> Fact | None:
    """The row's field is not one of `allowed`."""
    if row is None or row.get(field) in allowed:
        return None
    return Fact(f"{what} {row.get('id')} has {_label(field)} {_show(row.get(field))}", row.get(field))


def holds(left: Any, op: str, right: Any) -> bool | None:
    """`left op right`, or None when a side is missing or the two cannot be compared."""
    if left is None or right is None:
        return None
    try:
        return {"==": left == right, "!=": left != right}[op] if op in ("==", "!=") else \
            {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]
    except TypeError:
        return None


def comparison_fails(left: Any, op: str, right: Any, name: str, other: str) -> Fact | None:
    """`name` (left) is not `op` `other` (right)."""
    if holds(left, op, right) is not False:
        return None
    return Fact(f"{name} is {_show(left)}, not {COMPARISONS[op]} {other}{' ' if other else ''}{_show(right)}", left)


class Span(NamedTuple):
    """A related row must cover a moment of ours: its [start, end] contains `at`."""

    at: Any
    start: str
    end: str

    def covers(self, row: dict[str, Any]) -> bool:
        return bool(self.at and row.get(self.start) and row.get(self.end)
                    and row[self.start] <= self.at <= row[self.end])


def order_fails(left: Any, op: str, right: Any, order: tuple[Any, ...], name: str, other: str) -> Fact | None:
    """`name` (left) is not `op` `other` (right) by their places in `order` (lowest first)."""
    if left not in order or right not in order or holds(order.index(left), op, order.index(right)) is not False:
        return None
    scale = " < ".join(_show(v) for v in order)
    return Fact(f"{name} is {_show(left)}, not {COMPARISONS[op]} {other}{' ' if other else ''}{_show(right)} "
                f"({scale})", left)


def none_equal(lefts: tuple[Any, ...], right: Any, names: tuple[str, ...], other: str) -> Fact | None:
    """None of the left values (named `names`) equals `other` (right); a missing side blocks nothing."""
    if right is None or all(left is None for left in lefts) or right in lefts:
        return None
    said = " and ".join(f"{name} {_show(left)}" for name, left in zip(names, lefts, strict=True))
    return Fact(f"{said}: none is {other}{' ' if other else ''}{_show(right)}", right)


def unset(row: dict[str, Any] | None, field: str, what: str) -> Fact | None:
    """The row's `field` has no value (None or blank)."""
    if row is None or (row.get(field) is not None and str(row.get(field)).strip()):
        return None
    return Fact(f"{what} {row.get('id')} has no {_label(field)}")


class Among(NamedTuple):
    """A related row counts only when its `field` names one of `ids` (a job whose machine is a grain cart);
    `what` says which ("grain cart")."""

    field: str
    ids: frozenset[Any]
    what: str


def ids_where(rows: list[dict[str, Any]], field: str, allowed: tuple[Any, ...]) -> frozenset[Any]:
    """The ids of the rows whose `field` is one of `allowed`."""
    return frozenset(row.get("id") for row in rows if row.get(field) in allowed)


def _related(rows: list[dict[str, Any]], match: dict[str, Any], field: str | None,
             allowed: tuple[Any, ...], span: Span | None = None, among: Among | None = None) -> dict[str, Any] | None:
    """The first row whose `match` fields hold those values, whose `field` is one of `allowed` (and which
    covers the span's moment, and names one of `among`'s rows)."""
    for row in rows:
        if all(row.get(key) == value for key, value in match.items()) and (field is None or row.get(field) in allowed) \
                and (span is None or span.covers(row)) and (among is None or row.get(among.field) in among.ids):
            return row
    return None


def missing_related(rows: list[dict[str, Any]], match: dict[str, Any], field: str | None, allowed: tuple[Any, ...],
                    what: str, span: Span | None = None, among: Among | None = None) -> Fact | None:
    """No row matches `match` (with `field` among `allowed`, covering the span, naming one of `among`'s rows):
    a rule that requires one is broken."""
    if span is not None and not span.at:
        return None
    if _related(rows, match, field, allowed, span, among) is not None:
        return None
    which = " or ".join(_show(v) for v in allowed)
    of = " and ".join(f"{_label(key)} {_show(value)}" for key, value in match.items())
    covering = f" covering {span.at}" if span is not None else ""
    with_ = f" with a {among.what}" if among is not None else ""
    return Fact(f"no {which + ' ' if which else ''}{what}{with_} for {of}{covering}")


def present_related(rows: list[dict[str, Any]], match: dict[str, Any], field: str | None, allowed: tuple[Any, ...],
                    what: str, span: Span | None = None, among: Among | None = None) -> Fact | None:
    """A row matches `match` (with `field` among `allowed`, covering the span, naming one of `among`'s rows): a
    rule that forbids one is broken."""
    row = _related(rows, match, field, allowed, span, among)
    if row is None:
        return None
    if span is not None:
        return Fact(f"{what} {row.get('id')} runs from {row[span.start]} to {row[span.end]}, covering {span.at}",
                    row.get("id"))
    return Fact(f"{what} {row.get('id')} is {_show(row.get(field))}" if field else f"{what} {row.get('id')} exists",
                row.get(field) if field else row.get("id"))


MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
               "november", "december")


def _months(months: tuple[str, ...]) -> str:
    """May-September for a run of months (in calendar order, wrapping at the year's end), else a list."""
    numbers = sorted(MONTH_NAMES.index(m) for m in months)
    first = next((n for n in numbers if (n - 1) % 12 not in numbers), numbers[0])
    run = [(first + i) % 12 for i in range(len(numbers))]
    if sorted(run) == numbers and len(numbers) > 2:
        return f"{MONTH_NAMES[run[0]].capitalize()}-{MONTH_NAMES[run[-1]].capitalize()}"
    names = [MONTH_NAMES[n].capitalize() for n in numbers]
    return ", ".join(names[:-1]) + (" or " if len(names) > 1 else "") + names[-1]


def outside_window(value: str | None, days: tuple[str, ...], start: str | None, end: str | None,
                   months: tuple[str, ...] = ()) -> Fact | None:
    """A date or time not in one of `months`, not on one of `days`, or (a time) not within [start, end]."""
    if not value:
        return None
    moment = datetime.strptime(value[:10], "%Y-%m-%d")
    month = MONTH_NAMES[moment.month - 1]
    if months and month not in months:
        return Fact(f"{value} is in {month.capitalize()}, outside {_months(months)}", month)
    weekday = moment.strftime("%A").lower()
    if days and weekday not in days:
        return Fact(f"{value} falls on a {weekday.capitalize()}", weekday)
    clock = value[11:16]
    if clock and ((start and clock < start) or (end and clock > end)):
        return Fact(f"{value} is outside {start or '00:00'}-{end or '24:00'}", clock)
    return None


def in_past(value: str | None, field: str, today: str) -> Fact | None:
    """A date or time before `today` (YYYY-MM-DD, the app's own today)."""
    if value is None or value[:10] >= today:
        return None
    return Fact(f"{_label(field)} {value} is before today ({today})", value)


def not_now(start: str | None, end: str | None, today: str, early: int, late: int | None, field: str) -> Fact | None:
    """An event not happening now: today (the app's own, YYYY-MM-DD) is more than `early` days before the day
    of its `start`, or more than `late` days (None: no limit) after its `end` (no end: its start). `early` -1:
    only from the day after `start`, a deadline that must have gone by (an expiry, a due date)."""
    if not start:
        return None
    first, last = date.fromisoformat(start[:10]), date.fromisoformat((end or start)[:10])
    now = date.fromisoformat(today)
    if early < 0 and (first - now).days > early:
        return Fact(f"its {_label(field)} {start[:10]} has not gone by yet (today is {today}): leave it until the "
                    f"day after", start)
    if (first - now).days > early:
        return Fact(f"its {_label(field)} {start} is {(first - now).days} days after today ({today}): it has not "
                    f"happened yet", start)
    if late is not None and (now - last).days > late:
        return Fact(f"it took place on {(end or start)[:10]}, {(now - last).days} days before today ({today}): too "
                    f"long ago to record now", end or start)
    return None


def taken_by_other(rows: list[dict[str, Any]], field: str, value: Any, own_id: Any) -> Fact | None:
    if value is None:
        return None
    other = next((row for row in rows if row.get(field) == value and row.get("id") != own_id), None)
    return None if other is None else Fact(f"{_label(field)} {_show(value)} is already used by {other['id']}", other["id"])


def shifted(value: str, minutes: int) -> str:
    """A date or time (YYYY-MM-DD[THH:MM]) moved by `minutes`, in the same shape."""
    if len(value) > 10:
        return (datetime.strptime(value[:16], "%Y-%m-%dT%H:%M") + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M")
    return (datetime.strptime(value[:10], "%Y-%m-%d") + timedelta(minutes=minutes)).strftime("%Y-%m-%d")


def _hours(minutes: int) -> str:
    return f"{minutes // 60} hours" if minutes % 60 == 0 else f"{minutes} minutes"


def overlapping(rows: list[dict[str, Any]], row: dict[str, Any], resource: str, start: str, end: str,
                status: str | None, gap_minutes: int = 0) -> Fact | None:
    """Another active row holds the same resource for part of [start, end) (or, with a gap, closer than
    `gap_minutes` to it: the rest a driver needs between duties)."""
    if not (row.get(start) and row.get(end)):
        return None
    begin, until = (shifted(row[start], -gap_minutes), shifted(row[end], gap_minutes)) if gap_minutes else \
        (row[start], row[end])
    for other in rows:
        if other.get("id") == row.get("id") or other.get(resource) != row.get(resource):
            continue
        if status and other.get(status) in INACTIVE:
            continue
        if other.get(start) and other.get(end) and other[start] < until and begin < other[end]:
            held = f"{other['id']} holds {_label(resource)} {_show(row.get(resource))} from {other[start]} to {other[end]}"
            if gap_minutes and not (other[start] < row[end] and row[start] < other[end]):
                return Fact(f"{held}, less than {_hours(gap_minutes)} from {row[start]}-{row[end]}", other["id"])
            return Fact(held.replace(" holds ", " already holds ", 1), other["id"])
    return None


def at_capacity(rows: list[dict[str, Any]], row: dict[str, Any], ref_field: str, status: str | None,
                capacity: Any) -> Fact | None:
    """The referenced row already has `capacity` active rows pointing at it."""
    if not isinstance(capacity, (int, float)) or row.get(ref_field) is None:
        return None
    taken = [other for other in rows if other.get("id") != row.get("id") and other.get(ref_field) == row[ref_field]
             and not (status and other.get(status) in INACTIVE)]
    if len(taken) < capacity:
        return None
    return Fact(f"{_label(ref_field)} {row[ref_field]} already has {len(taken)} of {_show(capacity)}", len(taken))


def short_of(have: Any, need: Any, what: str, row_id: Any, field: str) -> Fact | None:
    """The referenced row's `field` (have) is below what the write needs."""
    if not (isinstance(have, (int, float)) and isinstance(need, (int, float)) and have < need):
        return None
    return Fact(f"{what} {row_id} has {_label(field)} {_show(have)}, below the {_show(need)} needed", have)


# The functions an arithmetic check works out, and how its fact writes each (quantity x unit cost).
FORMULAS = {"product": " x ", "sum": " + ", "difference": " - "}


def worked_out(function: str, terms: tuple[Any, ...]) -> float | None:
    """`function` of the terms (a difference takes the later ones from the first), to the cent; None when a term
    is missing or not a number."""
    if not terms or any(isinstance(t, bool) or not isinstance(t, (int, float)) for t in terms):
        return None
    if function == "product":
        value = 1.0
        for term in terms:
            value *= term
    elif function == "sum":
        value = float(sum(terms))
    else:
        value = terms[0] - sum(terms[1:])
    return round(value, 2)


def formula_fails(left: Any, op: str, function: str, terms: tuple[Any, ...], name: str,
                  names: tuple[str, ...]) -> Fact | None:
    """`name` (left) is not `op` the worked-out formula of the terms; money compares to the cent, so a left side
    within half a cent of the value is equal to it. A missing side blocks nothing."""
    right = worked_out(function, terms)
    if right is None or isinstance(left, bool) or not isinstance(left, (int, float)):
        return None
    left_cents = round(left, 2)
    if holds(left_cents, op, right):
        return None
    sign = FORMULAS[function]
    shown = f"{sign.join(names)} = {sign.join(_show(t) for t in terms)} = {_show(right)}"
    return Fact(f"{name} is {_show(left)}, not {COMPARISONS[op]} {shown}", left)


def period_key(value: Any) -> Any:
    """The period a value falls in: a date or a time its month (YYYY-MM), anything else as it is."""
    if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}", value):
        return value[:7]
    return value


def period_shut(rows: list[dict[str, Any]], key_field: str, value: Any, status_field: str, allowed: tuple[Any, ...],
                what: str) -> Fact | None:
    """The period `value` falls in (the row whose `key_field` is its key) is not open: its status is not among
    `allowed`, or no such period is on file. No value blocks nothing."""
    if value is None:
        return None
    key = period_key(value)
    row = next((r for r in rows if r.get(key_field) == key), None)
    if row is None:
        return Fact(f"no {what} {_show(key)} is on file", key)
    if row.get(status_field) in allowed:
        return None
    return Fact(f"{what} {_show(key)} ({row.get('id')}) is {_show(row.get(status_field))}", row.get(status_field))


def off_previous(new: Any, op: str, old: Any, step: float, name: str) -> Fact | None:
    """The value written (`new`) is not `op` the row's previous value plus `step`; a missing side blocks nothing."""
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (new, old)):
        return None
    right = old + step
    if holds(new, op, right):
        return None
    return Fact(f"{name} is {_show(new)}, not {COMPARISONS[op]} its previous {_show(old)} + {_show(step)} = "
                f"{_show(right)}", new)


def off_list(value: Any, key: Any, listed: dict[str, float], name: str) -> Fact | None:
    """`value` is not, to the cent, the amount `listed` for `key`; a kind the list does not name, or no value, blocks
    nothing."""
    if key is None or str(key) not in listed or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    price = listed[str(key)]
    if abs(round(value, 2) - round(price, 2)) < 0.005:
        return None
    return Fact(f"{name} is {_show(value)}, not the {price:.2f} listed for {_show(key)}", value)


def days_apart(later: Any, earlier: Any, op: str, days: int, name: str, other: str) -> Fact | None:
    """The days from `earlier` to `later` (dates or times, by their day) are not `op` `days`; a missing or
    unreadable date blocks nothing."""
    try:
        gap = (date.fromisoformat(str(later)[:10]) - date.fromisoformat(str(earlier)[:10])).days
    except ValueError:
        return None
    if later is None or earlier is None or holds(gap, op, days):
        return None
    return Fact(f"{name} ({str(later)[:10]}) is {gap} days after {other} ({str(earlier)[:10]}), not {COMPARISONS[op]} "
                f"{days}", gap)


# What an aggregate that fails `op` against the number it needs is, in words ("below the 4 needed").
SHORT_OF = {">=": "below the {r} needed", ">": "not over {r}", "<=": "over the limit of {r}", "<": "not below {r}",
            "==": "not the {r} needed", "!=": "equal to {r}"}


def _meets(row: dict[str, Any], where: tuple[tuple[str, str, Any], ...]) -> bool:
    """Every (field, op, value) holds on the row; `in` / `not_in` take a tuple of values."""
    for field, op, value in where:
        if op in ("in", "not_in"):
            if (row.get(field) in value) != (op == "in"):
                return False
        elif not holds(row.get(field), op, value):
            return False
    return True


def aggregate_value(rows: list[dict[str, Any]], match: dict[str, Any], where: tuple[tuple[str, str, Any], ...],
                    function: str, of: str | None, latest: tuple[int, str] | None,
                    own_id: Any = None) -> tuple[Any, int]:
    """(`function` over the rows matching `match` and `where` other than the row `own_id`, of them the `latest` N
    by a date field; how many rows it read). The number is None when an average, minimum or maximum has no row,
    or fewer than the latest N: then the rule cannot be shown to hold."""
    picked = [r for r in rows if r.get("id") != own_id and all(r.get(k) == v for k, v in match.items())
              and _meets(r, where)]
    if latest is not None:
        picked = sorted(picked, key=lambda r: (str(r.get(latest[1]) or ""), str(r.get("id"))), reverse=True)[:latest[0]]
    if function == "count":
        return len(picked), len(picked)
    numbers = [r[of] for r in picked if of and isinstance(r.get(of), (int, float)) and not isinstance(r.get(of), bool)]
    if (not numbers and function != "sum") or (latest is not None and len(numbers) < latest[0]):
        return None, len(numbers)
    value = {"sum": sum, "min": min, "max": max, "avg": lambda ns: sum(ns) / len(ns)}[function](numbers)
    return (round(value, 2) if isinstance(value, float) else value), len(numbers)


def aggregate_fails(rows: list[dict[str, Any]], match: dict[str, Any], where: tuple[tuple[str, str, Any], ...],
                    function: str, of: str | None, latest: tuple[int, str] | None, op: str, right: Any,
                    says: str, subject: str, counted: str, own_id: Any = None, right_name: str = "") -> Fact | None:
    """The aggregate (see aggregate_value) is not `op` `right`, or cannot be worked out. `subject` names whose
    rows they are ("departure dep-0004"), `says` words the number ("{n} booked travellers"), `counted` the rows."""
    if right is None or not isinstance(right, (int, float)) or isinstance(right, bool):
        return None
    value, read = aggregate_value(rows, match, where, function, of, latest, own_id)
    its = f" (its {right_name})" if right_name else ""
    if value is None:
        reads = f"the latest {latest[0]}" if latest is not None else "at least one"
        return Fact(f"{subject} has {read} {counted} to go by, and the rule reads {reads} "
                    f"(it needs {COMPARISONS[op]} {_show(right)}{its})", read)
    if holds(value, op, right):
        return None
    return Fact(f"{subject} has {says.replace('{n}', _show(value))}, {SHORT_OF[op].format(r=_show(right))}{its}", value)


__all__ = [
    "COMPARISONS",
    "FORMULAS",
    "INACTIVE",
    "POLICY_FILE",
    "POLICY_FORMAT",
    "Among",
    "Fact",
    "PolicyRefusal",
    "PolicyRule",
    "Span",
    "aggregate_fails",
    "aggregate_value",
    "at_capacity",
    "comparison_fails",
    "days_apart",
    "formula_fails",
    "holds",
    "ids_where",
    "in_past",
    "load_policies",
    "missing_related",
    "none_equal",
    "not_among",
    "not_now",
    "off_list",
    "off_previous",
    "order_fails",
    "outside_window",
    "overlapping",
    "period_key",
    "period_shut",
    "present_related",
    "refuse",
    "shifted",
    "short_of",
    "taken_by_other",
    "unset",
    "worked_out",
]
