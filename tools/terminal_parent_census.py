"""Census: gold writes that act under a parent in a terminal state (issue 19, item 4).

    python tools/terminal_parent_census.py [--tasks DIR] [--env ENV]... [--json] [--examples N]

Each task's gold is replayed on the fast path (generator/tasks/replay.py: the seed plus the task's initial
state, through the compiled app functions). Before each write, the row it creates or changes is read: every
`ref` field of that row (the create's arguments, or the existing row merged with the write's arguments) that
points at a row whose status is terminal counts once. A terminal status is one the parent's state machine
never leaves (no transition of that entity starts from it) or one named like an end (cancelled, declined,
rejected, revoked, closed, ...). A write that itself ends the child (a transition into such an end-like
status: cancelling the tasks of a cancelled event) is what a careful clerk does and is not counted.

The count is a census, not a proof: a report on a completed inspection legitimately points at a finished
parent. The end-like states are the class a careful agent refuses; both are printed per environment.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from envcraft.core.tasks import load_tasks, task_files
from envcraft.generator.model.blueprint import Blueprint
from envcraft.generator.tasks.env import EnvCache, generated_envs
from envcraft.generator.tasks.replay import World

ROOT = Path(__file__).resolve().parents[1]
END_LIKE = re.compile(r"(?<!pending_)cancel|declin|reject|revok|closed|withdrawn|void|terminat|expired|retired|"
                      r"lost|deceased|archiv|abandon|denied|refus")
WRITES = ("create", "update", "transition")


def terminal_states(bp: Blueprint) -> dict[str, tuple[set[str], set[str]]]:
    """entity -> (statuses never left, end-like statuses) for every entity with a state machine."""
    found = {}
    for entity in bp.entities:
        if not entity.status_field:
            continue
        values = set(entity.field(entity.status_field).values)
        left: set[str] = set()
        for op in bp.operations:
            if op.entity != entity.name or op.kind != "transition":
                continue
            froms = [p for p in op.preconditions if p.kind == "status_in" and p.field == entity.status_field]
            left |= set(froms[0].values) if froms else values
        found[entity.name] = (values - left, {v for v in values if END_LIKE.search(v)})
    return found


def census(cache: EnvCache, task_files: list[Path], only: set[str]) -> dict[str, dict]:
    per_env: dict[str, dict] = defaultdict(lambda: {"tasks": 0, "writes": 0, "never_left": 0, "end_like": 0,
                                                   "tasks_hit": 0, "by_parent": Counter(), "examples": []})
    terminal = {}
    for path in task_files:
        for task in load_tasks(path):
            if (only and not set(task.envs) & only) or not all(env in cache for env in task.envs):
                continue  # another environment's task, or one of a hand-made environment (tasks/office.jsonl)
            world = World(cache, task)
            hit = set()
            for tool_call in task.gold:
                name = tool_call.env or task.envs[0]
                env = world.envs.get(name)
                op = env.ops.get(tool_call.tool) if env else None
                if op is not None and op.kind in WRITES and (not only or name in only):
                    bp = env.bp
                    terminal.setdefault(name, terminal_states(bp))
                    stats = per_env[name]
                    stats["writes"] += 1
                    for kind, parent, row_id, status, field in _under_terminal(bp, terminal[name], world.tables[name],
                                                                       op, dict(tool_call.arguments)):
                        stats[kind] += 1
                        stats["by_parent"][f"{op.name} -> {parent}.{status} ({kind})"] += 1
                        hit.add(name)
                        if len(stats["examples"]) < 20:
                            stats["examples"].append(f"{task.id}: {op.name} via {field} -> {row_id} {status}")
                world.apply(tool_call)
            for name in set(task.envs):
                per_env[name]["tasks"] += 1
                per_env[name]["tasks_hit"] += name in hit
    return per_env


def _under_terminal(bp: Blueprint, terminal, tables, op, args):
    entity = bp.entity(op.entity)
    if op.kind == "create":
        row = args
    else:
        target = args.get(f"{entity.name}_id") or args.get("id")
        row = next((r for r in tables.get(entity.table, []) if r.get("id") == target), None)
        if row is None:
            return
        row = {**row, **args}
        if op.kind == "transition" and END_LIKE.search(op.to_status or ""):
            return
    for spec in entity.fields:
        if spec.type != "ref" or not row.get(spec.name) or spec.ref not in terminal:
            continue
        parent = bp.entity(spec.ref)
        other = next((r for r in tables.get(parent.table, []) if r.get("id") == row[spec.name]), None)
        if other is None:
            continue
        status = other.get(parent.status_field)
        never_left, end_like = terminal[spec.ref]
        if status in end_like:
            yield "end_like", parent.name, other["id"], status, spec.name
        elif status in never_left:
            yield "never_left", parent.name, other["id"], status, spec.name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=Path, default=ROOT / "tasks", help="the task store (default: tasks/)")
    parser.add_argument("--env", action="append", default=[], help="only this environment (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--examples", type=int, default=0, help="print up to N example calls per environment")
    opts = parser.parse_args(argv)
    cache = EnvCache(generated_envs())
    files = [p for p in task_files(opts.tasks)
             if not opts.env or p.name.split(".")[0] in opts.env]
    per_env = census(cache, files, set(opts.env))
    rows = {env: {k: v for k, v in s.items() if k not in ("by_parent", "examples")} for env, s in sorted(per_env.items())}
    totals = Counter()
    for stats in rows.values():
        totals.update(stats)
    if opts.json:
        print(json.dumps({"total": dict(totals), "envs": rows}, indent=1))
        return 0
    print(f"{'environment':34} {'tasks':>6} {'writes':>7} {'end_like':>9} {'never_left':>11} {'tasks_hit':>10}")
    for env, s in rows.items():
        if s["end_like"] or s["never_left"]:
            print(f"{env:34} {s['tasks']:6} {s['writes']:7} {s['end_like']:9} {s['never_left']:11} {s['tasks_hit']:10}")
            for line in per_env[env]["examples"][: opts.examples]:
                print("    " + line)
            if opts.examples:
                for what, n in per_env[env]["by_parent"].most_common(6):
                    print(f"    {n:4}  {what}")
    print(f"{'TOTAL':34} {totals['tasks']:6} {totals['writes']:7} {totals['end_like']:9} {totals['never_left']:11} "
          f"{totals['tasks_hit']:10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
