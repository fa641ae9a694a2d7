"""The rules of an environment, listed once: what the compiler enforces and what the docs say.

Every rule is either a blueprint `policy` (named, with a category) or a precondition an operation
declares itself. The compiler turns each into a check that refuses with a `PolicyRefusal` citing
the rule's id and the blocking fact (generator/compile/opcode.py), and into the prose of SKILL.md, the
server instructions and the `read_policies` tool (this module). A policy without a check is
either a declared side effect or a rule left to judgement; nothing else is prose-only.

For task generators:

    for rule in rules(bp): ...                     # id, category, text, operations, enforced
    refusal(env.fn("lease_offer_send"), tables, rental_unit_id="unt-0007", ...)
        -> Refusal(rule="approved_before_offer", fact="no rental application ...", value=None) or None
    allowed_side_effects(bp, "support_ticket_resolve") -> ["ticket_reply"]
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Operation, Policy, Precondition
from envcraft.generator.rules.registry import kind
from envcraft_runtime.rules import POLICY_FORMAT

CATEGORY_TITLES = {"eligibility": "Eligibility", "capacity": "Capacity", "time_window": "Time windows",
                   "state_guard": "State rules", "threshold": "Thresholds", "approval": "Approvals",
                   "role_limit": "Role limits", "uniqueness": "Uniqueness", "consistency": "Consistency",
                   "side_effect": "Expected follow-ups", "judgement": "Left to your judgement"}


@dataclass(frozen=True)
class Rule:
    id: str
    category: str
    text: str
    operations: tuple[str, ...]
    enforced: bool  # a tool refuses a call that breaks it
    checks: tuple[Precondition, ...] = ()
    creates: str | None = None  # side effects: the entity whose rows the operations' workflow adds


@dataclass(frozen=True)
class Refusal:
    """Why a call was refused: the rule's id and text, the blocking fact, and its value when it has one."""

    rule: str
    text: str
    fact: str
    value: Any = None
    message: str = ""


def precondition_id(op: Operation, index: int) -> str:
    """The id a precondition is cited by: its policy's, or `<operation>.<kind>` (+ a number if repeated)."""
    pre = op.preconditions[index]
    if pre.policy:
        return pre.policy
    same = [i for i, p in enumerate(op.preconditions) if p.kind == pre.kind and not p.policy]
    return f"{op.name}.{pre.kind}" + (f"{same.index(index) + 1}" if len(same) > 1 else "")


def rules(bp: Blueprint) -> list[Rule]:
    """Every rule of the environment: its policies in blueprint order, then operations' own checks."""
    out = [_from_policy(bp, policy) for policy in bp.policies]
    for op in bp.operations:
        for index, pre in enumerate(op.preconditions):
            if pre.policy:
                continue
            out.append(Rule(precondition_id(op, index), kind(pre.kind).category, _sentence(pre.message),
                            (op.name,), True, (pre,)))
    return out


def _from_policy(bp: Blueprint, policy: Policy) -> Rule:
    checks = tuple(pre for op in bp.operations if op.name in policy.operations
                   for pre in op.preconditions if pre.policy == policy.id)
    return Rule(policy.id, policy.category, _sentence(policy.rule), tuple(policy.operations), policy.check is not None,
                checks, policy.creates)


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def enforced_rules(bp: Blueprint) -> list[Rule]:
    return [r for r in rules(bp) if r.enforced]


def judgement_rules(bp: Blueprint) -> list[Rule]:
    """Rules no tool enforces on purpose: a task that touches one must check it in its verifier."""
    return [r for r in rules(bp) if r.category == "judgement"]


def allowed_side_effects(bp: Blueprint, op_name: str) -> list[str]:
    """Entities whose new rows the documented workflow of `op_name` adds (a reply after a ticket
    changes state): a grader must accept such rows as part of doing the operation well."""
    return sorted({p.creates for p in bp.policies if p.category == "side_effect" and op_name in p.operations
                   and p.creates})


def refusal(fn: Callable[..., Any], tables: dict[str, list[dict[str, Any]]], **arguments: Any) -> Refusal | None:
    """Run a compiled operation on a copy of `tables`: the rule that refuses the call, or None when
    no rule does (it succeeds, or fails for another reason such as an unknown id)."""
    try:
        fn(copy.deepcopy(tables), **arguments)
    except Exception as exc:  # noqa: BLE001 - only a PolicyRefusal carries a rule
        if hasattr(exc, "policy") and hasattr(exc, "fact"):
            return Refusal(exc.policy, exc.rule, exc.fact, getattr(exc, "value", None), str(exc))
        return None
    return None


# ---------------------------------------------------------------- prose, from the same rules


@dataclass
class Section:
    title: str
    lines: list[str] = field(default_factory=list)


def rule_line(rule: Rule) -> str:
    tools = ", ".join(f"`{name}`" for name in rule.operations)
    where = f" ({tools})" if tools else ""
    return f"- **{rule.id}**{where}: {rule.text}"


def policy_sections(bp: Blueprint) -> list[Section]:
    """The rules grouped by category, in a fixed order: what SKILL.md prints under "Policies"."""
    sections: dict[str, Section] = {}
    for rule in rules(bp):
        sections.setdefault(rule.category, Section(CATEGORY_TITLES[rule.category])).lines.append(rule_line(rule))
    return [sections[c] for c in CATEGORY_TITLES if c in sections]


def policy_markdown(bp: Blueprint) -> list[str]:
    lines = ["## Policies", "",
             "Every rule below is enforced by the tools (a refused call cites the rule's id and the fact that "
             "blocks it and changes nothing), except those left to your judgement and the expected follow-ups."]
    for section in policy_sections(bp):
        lines += ["", f"### {section.title}", ""] + section.lines
    return lines


def policy_summary(bp: Blueprint, limit: int = 1800) -> str:
    """One paragraph for the server instructions: the named policies (the tools' own guards are in
    their error messages and in SKILL.md / read_policies)."""
    named = [r for r in rules(bp) if r.id in {p.id for p in bp.policies}]
    if not named:
        return ""
    text = "Policies: " + " ".join(f"[{r.id}] {r.text}" for r in named)
    return text if len(text) <= limit else text[: limit - 40].rsplit(" ", 1)[0] + " ... (read_policies lists all)"


def policy_records(bp: Blueprint) -> list[dict[str, Any]]:
    """What the `read_policies` tool returns: one record per rule."""
    return [{"id": r.id, "category": r.category, "rule": r.text, "tools": list(r.operations),
             "enforced": r.enforced} for r in rules(bp)]


def policies_json(bp: Blueprint) -> str:
    """policies.json, beside app.py: the records `read_policies` returns, loaded by the app at import
    (envcraft_runtime.rules.load_policies)."""
    body = {"format": POLICY_FORMAT, "env": bp.id, "policies": policy_records(bp)}
    return json.dumps(body, indent=1, ensure_ascii=False) + "\n"
