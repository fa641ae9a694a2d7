"""Which steps of a gold solution commute: swapped, do they leave the same world?

Two adjacent calls of one turn commute when the second uses nothing the first revealed and either
order leaves the same tables and files (rows compared without ids: two creates swapped swap ids).
Two writes to one field do not (set a reserve, then pay from it; or pay, then set it). The audit's
`swap_independent` mutation swaps only commuting pairs; the task writer states the order ("then")
in a turn whose writes do not commute, so the instruction names the outcome the checks pay for.
"""

from __future__ import annotations

import json
import re
from itertools import pairwise
from typing import Any

from envcraft.core.tasks import Task, ToolCall
from envcraft.generator.tasks.env import EnvCache
from envcraft.generator.tasks.replay import World

ID = re.compile(r"\b[a-z]{2,6}-\d{4}\b")


def outcome(world: World) -> str:
    """The world's tables and files, rows compared without their ids (two creates swapped swap their ids)."""
    rows = {name: {table: sorted(json.dumps({k: v for k, v in row.items() if k != "id"}, sort_keys=True, default=str)
                                 for row in table_rows) for table, table_rows in tables.items()}
            for name, tables in world.tables.items()}
    return json.dumps([rows, world.files], sort_keys=True)


def revealed(results: list[tuple[bool, Any]]) -> list[set[str]]:
    """Per call, the ids its result shows for the first time."""
    seen: set[str] = set()
    out = []
    for _ok, result in results:
        ids = set(ID.findall(repr(result))) - seen
        seen |= ids
        out.append(ids)
    return out


def swappable(calls: list[ToolCall], first_seen: list[set[str]], i: int, j: int) -> bool:
    """Calls i < j of one turn, neither a finish, and j uses no id that i revealed."""
    a, b = calls[i], calls[j]
    return "finish" not in (a.tool, b.tool) and a.turn == b.turn and not first_seen[i] & set(ID.findall(repr(b.arguments)))


class Swaps:
    """The gold run once; then any two of its calls swapped and compared with it."""

    def __init__(self, cache: EnvCache, task: Task, calls: list[ToolCall] | None = None):
        self.cache, self.task = cache, task
        self.calls = list(task.gold if calls is None else calls)
        world = World(cache, task)
        self.results = world.run(self.calls)
        self.done = outcome(world)
        self.first_seen = revealed(self.results)

    def swapped(self, i: int, j: int) -> list[ToolCall]:
        calls = list(self.calls)
        calls[i], calls[j] = calls[j], calls[i]
        return calls

    def _rerun(self, i: int, j: int) -> tuple[bool, bool]:
        """(every call succeeds as it did, the same world results) with calls i and j swapped."""
        world = World(self.cache, self.task)
        again = world.run(self.swapped(i, j))
        return [ok for ok, _ in again] == [ok for ok, _ in self.results], outcome(world) == self.done

    def commutes(self, i: int, j: int) -> bool:
        return all(self._rerun(i, j))

    def ambiguous(self, i: int, j: int) -> bool:
        """Either order goes through but leaves another world: only a stated order says which one is wanted.
        (When the other order fails, the refusal tells the agent; "reschedule it, and it was a no-show".)"""
        runs, same = self._rerun(i, j)
        return runs and not same


def ordered_turns(cache: EnvCache, task: Task, writes: list[int]) -> set[int]:
    """Turns with two successive writes (indices into the gold, reads between them allowed) that both go
    through in either order, to different ends, although neither needs the other: only the stated order
    gives the outcome the checks pay for."""
    swaps = Swaps(cache, task)
    out = set()
    for i, j in pairwise(writes):
        if swappable(swaps.calls, swaps.first_seen, i, j) and swaps.ambiguous(i, j):
            out.add(swaps.calls[i].turn)
    return out


__all__ = ["ID", "Swaps", "ordered_turns", "outcome", "revealed", "swappable"]
