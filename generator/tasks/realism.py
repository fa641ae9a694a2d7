"""How much a task store reads like a workplace and how little it repeats itself (issue 19).

Every figure is computed over the tasks given (the whole store for `envcraft tasks stats --json`),
from the task files alone plus the blueprints' operation kinds, in one pass:

  paren_field_ref_share      tasks with a turn naming a record by a raw field value in parentheses: a
                             parenthesised group "( ... )" with a comma-separated item of the form
                             `<one to four lowercase words> <value holding a digit>`, such as
                             "(upfront cost 10569.32)" or "(ear tag 840-00052, born 2021-03-02)", or an
                             item `status <x>` / `currently <x>` (PAREN_FIELD below); a name's own
                             parenthesis such as "(pack of 24)" is not a field
  top20_5gram_coverage       the 20 word 5-grams found in the most tasks (a task's turns, lowercased, words
                             as [a-z0-9']+, each 5-gram counted once per task): the share of tasks holding
                             at least one of them
  distinct_open5_share       distinct openings / tasks, an opening being the first five words of the
                             first turn (same tokenisation)
  redundant_share            tasks that repeat an earlier task: (tasks - distinct keys) / tasks, the key
                             being the environments, the gold's tool sequence (each call as env/tool,
                             finish included) and the check shape (the sorted (kind, role, env, table,
                             column, match fields) of every check)
  max_family_share           the share of the largest family. A task's family is its gold as a sequence of
                             steps: each call is `read` (any tool that does not write) or its operation
                             kind (create, update, transition, delete; `write_file` for file writes); runs
                             of reads collapse into one; a question ends in `answer`. "search -> answer"
                             is (read, answer); "search -> one transition" is (read, transition)
  one_search_question_share  question tasks whose gold makes exactly one call besides finish, a read
  long_task_share            tasks whose gold makes 10 or more calls besides finish
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

from envcraft.core.tasks import Task
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint

WORD = re.compile(r"[a-z0-9']+")
GROUP = re.compile(r"\(([^()]*)\)")
PAREN_FIELD = re.compile(r"^(?:(?:[a-z]+ ){0,3}(?!of )[a-z]+ \S*\d|(?:status|currently) \S)")  # not "(pack of 24)"
FILE_WRITES = {"write_file", "edit_file"}
NOT_STEPS = {"finish"}


def paren_field_ref(text: str) -> bool:
    """Whether the text names a record by a raw field value in parentheses."""
    return any(PAREN_FIELD.match(item.strip()) for group in GROUP.findall(text) for item in group.split(","))


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def five_grams(task: Task) -> set[tuple[str, ...]]:
    out: set[tuple[str, ...]] = set()
    for turn in task.turns:
        w = words(turn)
        out.update(tuple(w[i:i + 5]) for i in range(len(w) - 4))
    return out


@cache
def op_kinds(env: str) -> dict[str, str]:
    """tool name -> operation kind for an environment compiled from a blueprint ({} otherwise)."""
    path = BLUEPRINTS / f"{env}.yaml"
    if not path.exists():
        return {}
    return {op.name: op.kind for op in load_blueprint(path).operations}


def step(task: Task, tool: str, env: str | None) -> str:
    if tool in FILE_WRITES:
        return "write_file"
    kind = op_kinds(env or task.envs[0]).get(tool, "read")
    return "read" if kind in ("search", "get") else kind


def family(task: Task) -> tuple[str, ...]:
    steps: list[str] = []
    for call in task.gold:
        if call.tool in NOT_STEPS:
            continue
        s = step(task, call.tool, call.env)
        if not (s == "read" and steps and steps[-1] == "read"):
            steps.append(s)
    if "question" in task.tags:
        steps.append("answer")
    return tuple(steps)


def redundancy_key(task: Task) -> tuple:
    checks = sorted((c.kind, c.role, c.env or "", c.table or "", c.column or "", tuple(sorted(c.match)))
                    for c in task.checks)
    return tuple(task.envs), tuple(f"{c.env or task.envs[0]}/{c.tool}" for c in task.gold), tuple(checks)


def share(n: int, d: int) -> float:
    return round(n / d, 4) if d else 0.0


def realism(tasks: list[Task]) -> dict[str, float]:
    total = len(tasks)
    grams: Counter = Counter()
    per_task: list[set] = []
    for task in tasks:
        g = five_grams(task)
        per_task.append(g)
        grams.update(g)
    top = {g for g, _ in grams.most_common(20)}
    openings = {tuple(words(t.turns[0])[:5]) for t in tasks if t.turns}
    families = Counter(family(t) for t in tasks)
    questions = [t for t in tasks if "question" in t.tags]
    calls = {t.id: [c for c in t.gold if c.tool not in NOT_STEPS] for t in tasks}
    one_search = sum(1 for t in questions if len(calls[t.id]) == 1 and step(t, calls[t.id][0].tool, calls[t.id][0].env) == "read")
    return {
        "paren_field_ref_share": share(sum(any(paren_field_ref(turn) for turn in t.turns) for t in tasks), total),
        "top20_5gram_coverage": share(sum(1 for g in per_task if g & top), total),
        "distinct_open5_share": share(len(openings), total),
        "redundant_share": share(total - len({redundancy_key(t) for t in tasks}), total),
        "max_family_share": share(max(families.values(), default=0), total),
        "one_search_question_share": share(one_search, len(questions)),
        "long_task_share": share(sum(len(calls[t.id]) >= 10 for t in tasks), total),
    }


def top_families(tasks: list[Task], n: int = 5) -> list[tuple[str, int]]:
    return [(" -> ".join(f), k) for f, k in Counter(family(t) for t in tasks).most_common(n)]


__all__ = ["family", "paren_field_ref", "realism", "redundancy_key", "top_families"]
