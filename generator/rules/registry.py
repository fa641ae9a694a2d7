"""The rule kinds by name: `kind(pre.kind)` is the module-level `KIND` of generator/rules/<name>.py.

Kinds not yet moved into a module of their own answer None, and their callers still handle them inline.
"""

from __future__ import annotations

from envcraft.generator.blueprint import Entity, Operation, Precondition
from envcraft.generator.rules import (
    NAMES,
    aggregate,
    at_least,
    capacity,
    compare,
    field_equals,
    forbids,
    is_set,
    no_overlap,
    not_in_past,
    ref_in,
    requires,
    status_in,
    time_window,
    unique,
)
from envcraft.generator.rules.kind import RuleKind

_KINDS: dict[str, RuleKind] = {k.name: k for k in (no_overlap.KIND, capacity.KIND, at_least.KIND, unique.KIND,
                                                       not_in_past.KIND, is_set.KIND,
                                                       time_window.KIND, status_in.KIND, field_equals.KIND,
                                                       requires.KIND, forbids.KIND, aggregate.KIND,
                                                       ref_in.KIND, compare.KIND)}
assert set(_KINDS) <= set(NAMES), f"kinds without a name in generator/rules/__init__.py: {set(_KINDS) - set(NAMES)}"


def kind(name: str) -> RuleKind | None:
    """The kind called `name`; None while it has no module of its own."""
    if name not in NAMES:
        raise KeyError(f"no rule kind {name!r}; the kinds are {', '.join(NAMES)}")
    return _KINDS.get(name)


def kinds(names: set[str] | list[str] | tuple[str, ...]) -> list[RuleKind]:
    """The moved kinds among `names`, in the registry's order."""
    return [_KINDS[n] for n in NAMES if n in names and n in _KINDS]


def unique_field(pre: Precondition) -> str | None:
    """The field a check keeps unique across its entity's rows (None: it keeps none)."""
    found = kind(pre.kind)
    return None if found is None else found.unique_field(pre)


def value_guard(pre: Precondition) -> tuple[str, list[str]] | None:
    """(field, allowed values) when the check holds exactly when the row's own field is among them."""
    found = kind(pre.kind)
    return None if found is None else found.value_guard(pre)


def source_states(entity: Entity, op: Operation) -> list[str] | None:
    """The statuses the operation's checks let it start from (None: they do not say)."""
    return next((states for pre in op.preconditions if kind(pre.kind) is not None
                 for states in [kind(pre.kind).source_states(entity, pre)] if states is not None), None)


def compares(pre: Precondition) -> bool:
    """The check compares a field with a literal, another field or a referenced row's field."""
    return kind(pre.kind) is not None and kind(pre.kind).compares
