"""Chains: weighted random walks over a tool graph that keep dataflow reachable.

A chain is a sequence of domain operations in which every id an operation needs (`<E>_id`, or a
required ref-to-E parameter of a create) is produced by an earlier step: a search or get of E, a
read of a row that refers to E, or a create of E. Walks go backward from a focus operation (so
every tool of every environment gets covered by cycling the focus) and forward from it; missing
producers are inserted. Randomness comes only from the `random.Random` the caller passes in.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import networkx as nx
from envcraft.generator.tasks.env import EnvSpec
from envcraft.generator.tasks.graph import accepts, domain_predecessors, domain_successors, needs, produces
from envcraft.generator.tasks.quality import UNDOING

LENGTHS = ((2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12, 13, 14))
TIER_WEIGHTS = (0.2, 0.35, 0.45)  # long chains are the 10+ call tier (realism.long_task_share)
TELEPORT = 0.08  # chance per forward step to jump to any operation (new sub-goal in the same workspace)
REVISIT = 0.25  # weight factor for an operation already in the chain


@dataclass(frozen=True)
class Chain:
    env: str
    ops: tuple[str, ...]
    focus: str
    read_only: bool = False

    @property
    def signature(self) -> tuple[str, ...]:
        return self.ops


def pick_length(rng: random.Random) -> int:
    tier = rng.choices(range(3), weights=TIER_WEIGHTS)[0]
    return rng.choice(LENGTHS[tier])


def _weighted(rng: random.Random, options: list[tuple[str, float]]) -> str | None:
    options = [(name, w) for name, w in options if w > 0]
    if not options:
        return None
    return rng.choices([n for n, _ in options], weights=[w for _, w in options])[0]


def producers(env: EnvSpec, entity: str) -> list[str]:
    """Read operations that need no id and output ids of `entity`, direct searches first."""
    direct = [op.name for op in env.bp.operations if op.kind == "search" and op.entity == entity]
    via = [op.name for op in env.bp.operations if op.kind == "search" and op.entity != entity
           and entity in produces(env.bp, op)]
    return direct + via


def state_path(env: EnvSpec, graph: nx.DiGraph, entity: str, target: str) -> list[str] | None:
    """A create of `entity` and the transitions that bring its row to where `target` accepts it."""
    best = None
    for op in env.bp.operations:
        if op.kind != "create" or op.entity != entity:
            continue
        if op.name == target:
            return [op.name]
        try:
            path = nx.shortest_path(graph, op.name, target, weight=lambda a, b, d: 1.0 / d["kinds"].get("state", 0.01))
        except nx.NetworkXNoPath:
            continue
        if all(env.ops.get(n) and env.ops[n].entity == entity for n in path) and (best is None or len(path) < len(best)):
            best = path
    return best[:-1] if best else None


def repair(env: EnvSpec, ops: list[str], rng: random.Random, graph: nx.DiGraph | None = None) -> list[str] | None:
    """Insert producers so that every needed id comes from an earlier step; None if impossible.

    A producer is a search of the entity, a search of a row that refers to it, or (when the
    environment offers no way to find existing rows) its create followed by the transitions
    that bring the new row into a state the operation accepts."""
    out: list[str] = []
    made: set[str] = set()
    status: dict[tuple[str, str], object] = {}  # (entity, field) -> value the chain left on its focus row
    previous: dict[tuple[str, str], object] = {}  # ... and the value it had before the last change
    for name in ops:
        op = env.ops[name]
        if redundant(env, status, previous, op):
            return None
        bridge = walk_states(env, status, op)
        if bridge and undoes(env, name):  # moving the row on to take it back is no request: a row found as it is
            bridge = None
        if bridge is None:  # the focus row cannot get there: act on another row, found by a new search
            search = [p for p in producers(env, op.entity) if env.ops[p].entity == op.entity]
            if not search:
                return None
            bridge = [search[0]]
        for extra in bridge:
            out.append(extra)
            _track(env, status, env.ops[extra], previous)
        for entity in needs(env.bp, op).values():
            if entity in made:
                continue
            options = producers(env, entity)
            if options:
                direct = [o for o in options if env.ops[o].entity == entity]
                inserted = [rng.choice(direct or options)]
            else:
                path = state_path(env, graph, entity, name) if graph is not None else None
                if not path:
                    return None
                inserted = repair(env, path, rng, None)
                if not inserted:
                    return None
            for extra in inserted:
                out.append(extra)
                made |= produces(env.bp, env.ops[extra])
            if entity not in made:
                return None
        out.append(name)
        made |= produces(env.bp, op)
        _track(env, status, op, previous)
    return out


def redundant(env: EnvSpec, status: dict, previous: dict, op) -> bool:
    """`op` would accept the focus row as it was before the last transition: that one changed nothing
    the task can check (booked -> postponed -> cancelled, where cancel also takes booked)."""
    for entity, fld, allowed in accepts(env.bp, op):
        key = (entity, fld)
        if key in previous and key in status and previous[key] in allowed and status[key] != previous[key] \
                and op.kind == "transition":
            return True
    return False


def _track(env: EnvSpec, status: dict, op, previous: dict | None = None) -> None:
    previous = {} if previous is None else previous
    if op.kind == "search" or op.kind == "delete":
        for key in [k for k in status if k[0] == op.entity]:
            status.pop(key)  # a search may pick another row: its state is unknown
            previous.pop(key, None)
    elif op.kind in ("create", "transition"):
        entity = env.entity(op.entity)
        if entity.status_field:
            key = (op.entity, entity.status_field)
            if op.kind == "transition" and key in status:
                previous[key] = status[key]
            else:
                previous.pop(key, None)
            status[key] = op.to_status if op.kind == "transition" else entity.field(entity.status_field).values[0]
    for target, fld, value in _effect_states(env, op):
        if (target, fld) in status:
            previous[(target, fld)] = status[(target, fld)]
        status[(target, fld)] = value


def _effect_states(env: EnvSpec, op) -> list[tuple[str, str, object]]:
    """(entity, field, value) that `set` effects of the operation leave on the rows it refers to."""
    entity = env.entity(op.entity)
    return [(entity.field(e.ref_field).ref, e.field, e.value) for e in op.effects if e.kind == "set" and e.value is not None]


def walk_states(env: EnvSpec, status: dict, op) -> list[str] | None:
    """Transitions that move the focus row from the state the chain left it in to one `op` accepts."""
    out: list[str] = []
    for entity, fld, allowed in accepts(env.bp, op):
        if (entity, fld) not in status or status[(entity, fld)] in allowed:
            continue
        start = status[(entity, fld)]
        moves = [(o, o.to_status) for o in env.bp.operations if o.kind == "transition" and o.entity == entity
                 and env.entity(entity).status_field == fld]
        moves += [(o, v) for o in env.bp.operations for e, f, v in _effect_states(env, o) if e == entity and f == fld]
        frontier, seen = [(start, [])], {start}
        found = None
        while frontier and found is None:
            value, path = frontier.pop(0)
            for move, result in moves:
                ok = all(value in vals for e, f, vals in accepts(env.bp, move) if e == entity and f == fld)
                if ok and result not in seen:
                    if result in allowed:
                        found = path + [move.name]
                        break
                    seen.add(result)
                    frontier.append((result, path + [move.name]))
        if found is None:
            return None
        out += found
        status[(entity, fld)] = next(r for m, r in moves if m.name == found[-1])
    return out


def _choices(graph: nx.DiGraph, chain: list[str], options: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return [(name, w * (REVISIT if name in chain else 1.0)) for name, w in options]


def undoes(env: EnvSpec, name: str) -> bool:
    """A cancel, reject or delete: it takes back what a write before it on the same kind of row did."""
    op = env.ops[name]
    return op.kind == "delete" or (op.kind == "transition" and op.to_status in UNDOING)


def takes_back(env: EnvSpec, first: str, then: str) -> bool:
    """`then` would undo `first` ("book it ... strike it - it's off"): no request asks for both (instruct.undone)."""
    return env.ops[first].writes and undoes(env, then) and env.ops[first].entity == env.ops[then].entity


def walk(env: EnvSpec, graph: nx.DiGraph, rng: random.Random, focus: str, length: int,
         reads_only: bool = False) -> list[str]:
    allowed = {name for name, op in env.ops.items() if not (reads_only and op.writes)}
    back = rng.randint(0, max(length - 1, 0)) if not reads_only else max(length - 1, 0)  # a question ends on its focus
    chain = [focus]
    for _ in range(back):
        options = [(a, w) for a, w in domain_predecessors(graph, chain[0]) if a in allowed
                   and not any(takes_back(env, a, later) for later in chain)]
        prev = _weighted(rng, _choices(graph, chain, options))
        if prev is None:
            break
        chain.insert(0, prev)
    while len(chain) < length and not reads_only:
        if rng.random() < TELEPORT:
            nxt = rng.choice(sorted(a for a in allowed if not any(takes_back(env, earlier, a) for earlier in chain)))
        else:
            options = [(b, w) for b, w in domain_successors(graph, chain[-1]) if b in allowed
                       and not any(takes_back(env, earlier, b) for earlier in chain)]
            nxt = _weighted(rng, _choices(graph, chain, options))
        if nxt is None:
            break
        chain.append(nxt)
    return chain


def sample_chain(env: EnvSpec, graph: nx.DiGraph, rng: random.Random, focus: str, length: int,
                 read_only: bool = False) -> Chain | None:
    """One chain around `focus` of about `length` domain calls (producers may add a few)."""
    if read_only and env.ops[focus].writes:
        return None
    ops = walk(env, graph, rng, focus, length, reads_only=read_only)
    if read_only:
        ops = list(dict.fromkeys(ops))  # a question chain visits each read once
    fixed = repair(env, ops, rng, graph)
    if not fixed or len(fixed) > length + 4:
        return None
    if len(fixed) < 2 and not read_only:
        return None
    return Chain(env.name, tuple(fixed), focus, not any(env.ops[name].writes for name in fixed))


def edit_distance(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


class Diversity:
    """Accepted chain signatures; rejects an equal one, and a near-equal one (edit distance 1) when long."""

    NEAR_FROM = 6

    def __init__(self) -> None:
        self.seen: set[tuple] = set()
        self.by_length: dict[int, list[tuple]] = {}

    def novel(self, signature: tuple) -> bool:
        if signature in self.seen:
            return False
        n = len(signature)
        if n >= self.NEAR_FROM:
            for m in (n - 1, n, n + 1):
                if any(edit_distance(signature, other) <= 1 for other in self.by_length.get(m, [])):
                    return False
        return True

    def add(self, signature: tuple) -> None:
        self.seen.add(signature)
        self.by_length.setdefault(len(signature), []).append(signature)
