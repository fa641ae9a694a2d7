"""The rule kinds by name: `kind(pre.kind)` is the module-level `KIND` of generator/rules/<name>.py.

Callers ask a kind's hooks (generator/rules/kind.py) and never compare a check's kind with a string; the helpers
below answer the questions several callers ask of any check.
"""

from __future__ import annotations

from envcraft.generator.model.blueprint import Entity, Operation, Precondition
from envcraft.generator.rules import (
    NAMES,
    aggregate,
    arithmetic,
    at_least,
    capacity,
    compare,
    field_equals,
    forbids,
    from_previous,
    happens_now,
    is_set,
    listed,
    no_overlap,
    not_in_past,
    open_period,
    ref_in,
    requires,
    status_in,
    time_window,
    unique,
    within_days,
)
from envcraft.generator.rules.kind import RuleKind

_MODULES = (status_in, field_equals, no_overlap, capacity, at_least, unique, not_in_past, ref_in, compare, requires,
            forbids, time_window, aggregate, is_set, happens_now, arithmetic,
            open_period, from_previous, listed, within_days)
_KINDS: dict[str, RuleKind] = {module.KIND.name: module.KIND for module in _MODULES}
if set(_KINDS) != set(NAMES):  # a name without a module, or a module without a name in generator/rules/__init__.py
    raise ImportError(f"rule kinds and names differ: {sorted(set(_KINDS) ^ set(NAMES))}")


def kind(name: str) -> RuleKind:
    """The kind called `name`."""
    if name not in _KINDS:
        raise KeyError(f"no rule kind {name!r}; the kinds are {', '.join(NAMES)}")
    return _KINDS[name]


def kinds(names: set[str] | list[str] | tuple[str, ...]) -> list[RuleKind]:
    """The kinds among `names`, in the order of NAMES."""
    return [_KINDS[n] for n in NAMES if n in names]


def unique_field(pre: Precondition) -> str | None:
    """The field a check keeps unique across its entity's rows (None: it keeps none)."""
    return kind(pre.kind).unique_field(pre)


def value_guard(pre: Precondition) -> tuple[str, list[str]] | None:
    """(field, allowed values) when the check holds exactly when the row's own field is among them."""
    return kind(pre.kind).value_guard(pre)


def source_states(entity: Entity, op: Operation) -> list[str] | None:
    """The statuses the operation's checks let it start from (None: they do not say)."""
    return next((states for pre in op.preconditions
                 for states in [kind(pre.kind).source_states(entity, pre)] if states is not None), None)


def opening_hours(pre: Precondition) -> bool:
    """The check keeps a date/time within weekdays, months or hours (a restaurant's dinner service)."""
    return kind(pre.kind) is time_window.KIND


def compares(pre: Precondition) -> bool:
    """The check compares a field with a literal, another field or a referenced row's field."""
    return kind(pre.kind).compares
