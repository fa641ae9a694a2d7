"""`envcraft catalog stats`: what the shipped catalog holds, read from manifests and blueprints.

Variety is measured on domain tool signatures (name + parameter types; the shared scaffold tools
are not counted): no two environments may share more than half of theirs.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

from envcraft.generator.compile.appcode import params_of
from envcraft.generator.compile.extras import domain_tool_names
from envcraft.generator.model.blueprint import ARCHETYPES, Blueprint, load_all
from envcraft.generator.model.policy import enforced_rules, judgement_rules
from envcraft.generator.seeds.invariants import invariants
from pydantic import BaseModel


class CatalogStats(BaseModel):
    environments: int
    kinds: dict[str, int]
    archetypes: dict[str, int]
    domains: dict[str, int]
    tools_min: int
    tools_max: int
    tools_mean: float
    domain_tools: int
    distinct_signatures: int
    max_shared_fraction: float
    most_similar: list[str]
    domain_tools_mean: float = 0.0  # blueprint operations + derived tools (read_policies, reports, batches)
    enforced_rules_mean: float = 0.0  # rules a tool refuses to break, per environment
    policies_mean: float = 0.0  # named blueprint policies per environment (enforced, side effects, judgement)
    judgement_envs: int = 0  # environments with at least one rule left to judgement
    invariants_mean: float = 0.0  # declared + implied world invariants per environment
    audit_passed: int | None = None
    audit_failed: list[str] | None = None


def signatures(bp: Blueprint) -> set[str]:
    """Domain tool signatures of one environment: name(param:type, ...)."""
    found = set()
    for op in bp.operations:
        params = ",".join(f"{p.name}:{p.spec.type if p.spec else p.annotation}" for p in params_of(bp, op))
        found.add(f"{op.name}({params})")
    return found


def shared_fraction(a: set[str], b: set[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def compute(blueprints: list[Blueprint] | None = None, audit_results: dict[str, bool] | None = None) -> CatalogStats:
    blueprints = blueprints if blueprints is not None else load_all()
    sigs = {bp.id: signatures(bp) for bp in blueprints}
    scaffold = {"general": 1, "claw_tool": 7, "claw_workspace": 8}  # finish / + file tools / + shell
    tools = [len(domain_tool_names(bp)) + scaffold[bp.kind] for bp in blueprints]
    worst, pair = 0.0, ["-", "-"]
    for (a, sa), (b, sb) in itertools.combinations(sigs.items(), 2):
        fraction = shared_fraction(sa, sb)
        if fraction > worst:
            worst, pair = fraction, [a, b]
    archetypes = Counter(a for bp in blueprints for a in bp.archetypes)
    stats = CatalogStats(
        environments=len(blueprints), kinds=dict(Counter(bp.kind for bp in blueprints)),
        archetypes={a: archetypes.get(a, 0) for a in ARCHETYPES}, domains=dict(Counter(bp.domain for bp in blueprints)),
        tools_min=min(tools), tools_max=max(tools), tools_mean=round(sum(tools) / len(tools), 1),
        domain_tools=sum(len(s) for s in sigs.values()), distinct_signatures=len(set().union(*sigs.values())),
        max_shared_fraction=round(worst, 3), most_similar=pair,
        domain_tools_mean=round(sum(len(domain_tool_names(bp)) for bp in blueprints) / len(blueprints), 2),
        enforced_rules_mean=round(sum(len(enforced_rules(bp)) for bp in blueprints) / len(blueprints), 2),
        policies_mean=round(sum(len(bp.policies) for bp in blueprints) / len(blueprints), 2),
        judgement_envs=sum(1 for bp in blueprints if judgement_rules(bp)),
        invariants_mean=round(sum(len(invariants(bp)) for bp in blueprints) / len(blueprints), 2))
    if audit_results is not None:
        stats.audit_passed = sum(audit_results.values())
        stats.audit_failed = sorted(name for name, ok in audit_results.items() if not ok)
    return stats


def render(stats: CatalogStats) -> str:
    lines = [f"environments: {stats.environments} (+ the hand-written reference, office)", "", "per kind:"]
    lines += [f"  {kind:<36} {count:>4}" for kind, count in sorted(stats.kinds.items())]
    lines += ["", "per archetype (an environment may instantiate several):"]
    lines += [f"  {name:<36} {count:>4}" for name, count in stats.archetypes.items()]
    lines += ["", f"domains: {len(stats.domains)} ({', '.join(f'{d} {n}' for d, n in sorted(stats.domains.items()))})",
              f"tools per environment: min {stats.tools_min}, mean {stats.tools_mean}, max {stats.tools_max}",
              f"domain tool signatures: {stats.domain_tools} in all, {stats.distinct_signatures} distinct",
              f"domain tools per environment (with read_policies, reports, batches): mean {stats.domain_tools_mean}",
              f"rules: {stats.enforced_rules_mean} enforced per environment, {stats.policies_mean} named policies; "
              f"{stats.judgement_envs} environment(s) leave some rule to judgement",
              f"world invariants per environment (declared + implied): mean {stats.invariants_mean}",
              f"most similar pair: {' / '.join(stats.most_similar)} share {stats.max_shared_fraction:.0%} "
              "of domain tool signatures (limit 50%)"]
    if stats.audit_passed is not None:
        lines.append(f"audit: {stats.audit_passed} passed, {len(stats.audit_failed)} failed"
                     + (f" ({', '.join(stats.audit_failed)})" if stats.audit_failed else ""))
    return "\n".join(lines)


def print_stats(run_audit: bool = False, as_json: bool = False, servers: Path | None = None) -> int:
    results = None
    if run_audit:
        from envcraft.generator.audit.audit import audit
        from envcraft.generator.commands import SERVERS

        folder = Path(servers or SERVERS)
        results = {bp.id: audit(folder / bp.id, blueprint=bp).passed for bp in load_all()}
    stats = compute(audit_results=results)
    print(json.dumps(stats.model_dump(), indent=1) if as_json else render(stats))
    return 0 if not stats.audit_failed else 1
