"""The tool graph of one environment: which tool's output can feed which tool, typed and weighted.

Nodes are the tools the environment serves (domain operations and scaffold tools). Edges:
  dataflow  0.8  A outputs rows or ids of entity E; B takes `<E>_id` or a ref-to-E parameter
  state     0.9  A leaves a row of E in status S (transition, create, or an effect); B's status_in accepts S
  bridge    0.3-0.6  scaffold <-> domain: read_file/grep of E's export file -> ops taking E ids,
                 run_shell <-> the operation its CLI verb runs, writes -> write_file (a note), reads -> finish
An edge keeps its strongest kind in `kind`/`weight` and every kind in `kinds`.
"""

from __future__ import annotations

import networkx as nx
from envcraft.generator.model.blueprint import Blueprint, Operation
from envcraft.generator.model.fields import typed
from envcraft.generator.rules.registry import value_guard
from envcraft.generator.tasks.env import EnvSpec

WEIGHTS = {"dataflow": 0.8, "state": 0.9}
BRIDGES = {"read_file": 0.5, "grep": 0.4, "list_dir": 0.3, "find_files": 0.3, "cli_verb": 0.6, "cli_out": 0.3,
           "note": 0.3, "answer": 0.4}


def ref_params(bp: Blueprint, op: Operation) -> dict[str, str]:
    """Parameter field name -> entity it refers to (search filters included)."""
    entity = bp.entity(op.entity)
    found = {}
    for name in list(op.params) + [r for r in op.required if r not in op.params]:
        spec = entity.field(name)
        if spec.type == "ref":
            found[name] = spec.ref
    return found


def needs(bp: Blueprint, op: Operation, optional: bool = False) -> dict[str, str]:
    """Parameter -> entity whose id the operation needs (required ones; all ref params with `optional`)."""
    found = {}
    if op.kind in ("get", "update", "transition", "delete"):
        found[f"{op.entity}_id"] = op.entity
    for name, entity in ref_params(bp, op).items():
        if optional or (op.kind == "create" and name in op.required):
            found[name] = entity
    return found


def produces(bp: Blueprint, op: Operation) -> set[str]:
    """Entities whose ids appear in the operation's output (its rows and their refs)."""
    entity = bp.entity(op.entity)
    out = {f.ref for f in entity.fields if f.type == "ref"}
    if op.kind != "delete":
        out.add(op.entity)
    return out


def status_effects(bp: Blueprint, op: Operation) -> list[tuple[str, str, str]]:
    """(entity, field, value) an operation leaves on some row: transitions, create defaults, `set` effects."""
    entity = bp.entity(op.entity)
    found = []
    if op.kind == "transition" and entity.status_field:
        found.append((entity.name, entity.status_field, op.to_status))
    if op.kind == "create":
        for spec in entity.fields:
            if spec.type == "enum":
                if spec.name in op.params or spec.name in op.required:
                    found += [(entity.name, spec.name, v) for v in spec.values]
                elif not spec.optional:
                    found.append((entity.name, spec.name, spec.values[0]))
    if op.kind == "update":
        for name in op.params:
            spec = entity.field(name)
            if spec.type == "enum":
                found += [(entity.name, name, v) for v in spec.values]
    for eff in op.effects:
        if eff.kind == "set" and eff.value is not None:
            found.append((entity.field(eff.ref_field).ref, eff.field, eff.value))
    return found


def accepts(bp: Blueprint, op: Operation) -> list[tuple[str, str, list]]:
    """(entity, field, allowed values) of the operation's status_in / field_equals preconditions on existing rows."""
    if op.kind == "create":
        return []
    entity = bp.entity(op.entity)
    guards = [guard for guard in map(value_guard, op.preconditions) if guard is not None and guard[0]]
    return [(entity.name, field, [typed(entity.field(field), v) for v in values]) for field, values in guards]


def _add(graph: nx.DiGraph, a: str, b: str, kind: str, weight: float, **attrs) -> None:
    if a == b:
        return
    if graph.has_edge(a, b):
        data = graph[a][b]
        data["kinds"][kind] = max(weight, data["kinds"].get(kind, 0.0))
        if weight > data["weight"]:
            data.update(kind=kind, weight=weight, **attrs)
    else:
        graph.add_edge(a, b, kind=kind, weight=weight, kinds={kind: weight}, **attrs)


def build_graph(env: EnvSpec) -> nx.DiGraph:
    bp = env.bp
    graph = nx.DiGraph(env=env.name)
    for op in bp.operations:
        graph.add_node(op.name, layer="domain", kind=op.kind, entity=op.entity, writes=op.writes)
    for tool in env.scaffold:
        graph.add_node(tool, layer="scaffold", kind="scaffold", entity=None,
                       writes=tool in ("write_file", "edit_file", "run_shell", "finish"))
    for a in bp.operations:
        out = produces(bp, a)
        for b in bp.operations:
            for param, entity in needs(bp, b, optional=True).items():
                if entity in out:
                    _add(graph, a.name, b.name, "dataflow", WEIGHTS["dataflow"], entity=entity, param=param)
    for a in bp.operations:
        left = status_effects(bp, a)
        for b in bp.operations:
            for entity, fld, allowed in accepts(bp, b):
                hits = [v for e, f, v in left if e == entity and f == fld and v in allowed]
                if hits:
                    _add(graph, a.name, b.name, "state", WEIGHTS["state"], entity=entity, param=fld, status=hits[0])
    _bridges(env, graph)
    return graph


def _bridges(env: EnvSpec, graph: nx.DiGraph) -> None:
    bp, tools = env.bp, set(env.scaffold)
    for entity, path in env.exports().items():
        for op in bp.operations:
            if entity in needs(bp, op, optional=True).values():
                for tool in ("read_file", "grep"):
                    if tool in tools:
                        _add(graph, tool, op.name, "bridge", BRIDGES[tool], entity=entity, path=path)
        for tool in ("list_dir", "find_files"):
            if tool in tools and "read_file" in tools:
                _add(graph, tool, "read_file", "bridge", BRIDGES[tool], path=path)
    for op in bp.operations:
        if "run_shell" in tools and env.cli:
            _add(graph, op.name, "run_shell", "bridge", BRIDGES["cli_verb"], verb=op.name.replace("_", "-"))
            _add(graph, "run_shell", op.name, "bridge", BRIDGES["cli_out"], verb=op.name.replace("_", "-"))
        if op.writes and "write_file" in tools:
            _add(graph, op.name, "write_file", "bridge", BRIDGES["note"])
        if not op.writes and "finish" in tools:
            _add(graph, op.name, "finish", "bridge", BRIDGES["answer"])


_GRAPHS: dict[str, nx.DiGraph] = {}


def graph_of(env: EnvSpec) -> nx.DiGraph:
    if env.name not in _GRAPHS:
        _GRAPHS[env.name] = build_graph(env)
    return _GRAPHS[env.name]


def domain_successors(graph: nx.DiGraph, node: str) -> list[tuple[str, float]]:
    return [(b, data["weight"]) for b, data in graph[node].items() if graph.nodes[b]["layer"] == "domain"]


def domain_predecessors(graph: nx.DiGraph, node: str) -> list[tuple[str, float]]:
    return [(a, graph[a][node]["weight"]) for a in graph.predecessors(node) if graph.nodes[a]["layer"] == "domain"]
