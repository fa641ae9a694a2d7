"""Generate validated tasks for every environment compiled from a blueprint: tasks/<env>.jsonl.

Per environment, attempt i draws everything from random.Random(f"{seed}:{env}:{i}"): the shape
(write chain, question, cross-environment workflow), the focus operation (cycled, so every tool is
covered), the chain, the task and its validation. Environments run in parallel worker processes;
results are gathered in environment order, so the bytes written do not depend on the worker count.
Splits hold out whole environments: a fixed ~20% (by a hash of the name) are test, and a task
that touches a test environment is a test task.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import multiprocessing
import random
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from envcraft.core.tasks import Task
from envcraft.generator.model.blueprint import load_blueprint
from envcraft.generator.tasks.batch import build_batch
from envcraft.generator.tasks.build import Draft, Failed, build_question, build_write
from envcraft.generator.tasks.cross import build_cross
from envcraft.generator.tasks.env import SERVERS, EnvCache, generated_envs
from envcraft.generator.tasks.graph import graph_of
from envcraft.generator.tasks.realism import NOT_STEPS, redundancy_key, step
from envcraft.generator.tasks.realism import family as task_family
from envcraft.generator.tasks.reasoning import build_aggregate, build_conditional, build_dependent
from envcraft.generator.tasks.revert import build_revert
from envcraft.generator.tasks.sampler import Diversity, pick_length, sample_chain
from envcraft.generator.tasks.validate import validate
from envcraft.generator.tasks.workflow import Link, build_workflow, links_from

# Weights keep every family under a tenth of the store (realism.py): question-only shapes (aggregate, question)
# are one family, conditional and dependent another; long write chains and batches make the 10+ call tier;
# batches, notes and reasoning shapes keep a quarter of the store needing more than lookups (needs:*).
SHAPES = (("write", 0.10), ("question", 0.02), ("cross", 0.64), ("judgement", 0.09), ("aggregate", 0.08),
          ("conditional", 0.05), ("dependent", 0.03), ("note", 0.16), ("revert", 0.05), ("batch", 0.24))
REASONING = {"aggregate": build_aggregate, "conditional": build_conditional, "dependent": build_dependent,
             "batch": build_batch}
FAMILY_CAP = 0.075  # of an environment's tasks, the most one family (realism.family) may hold
ONE_SEARCH_KEPT = 0.1  # of question candidates one search answers, the share kept (the rest: another attempt)
ATTEMPTS_PER_TASK = 8
COVER_ATTEMPTS = 24  # per operation no task used
TEST_SHARE = 5  # one environment in five is held out
REPORT = "generation.json"


def test_envs(names: list[str]) -> set[str]:
    """The held-out environments: the fifth of the catalog whose names hash lowest (stable, no RNG)."""
    ranked = sorted(names, key=lambda n: hashlib.sha256(f"envcraft-split:{n}".encode()).hexdigest())
    return set(ranked[:round(len(ranked) / TEST_SHARE)])


_TEST: set[str] = set()


def split_of(env: str, held_out: set[str] | None = None) -> str:
    return "test" if env in (held_out if held_out is not None else _TEST) else "train"


@dataclass
class EnvResult:
    env: str
    tasks: list[Task] = field(default_factory=list)
    attempts: int = 0
    drops: Counter = field(default_factory=Counter)
    validated: int = 0  # candidates that reached the random agent
    random_passed: int = 0
    random_reward: float = 0.0
    lengths: Counter = field(default_factory=Counter)
    covered: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    bugs: Counter = field(default_factory=Counter)  # family -> attempts it raised anything but Failed
    tools: int = 0
    seconds: float = 0.0


@dataclass
class Seen:
    """What an environment's accepted tasks already hold: content hashes, redundancy keys, family counts."""

    family_cap: int
    hashes: set[str] = field(default_factory=set)
    keys: set[tuple] = field(default_factory=set)
    families: Counter = field(default_factory=Counter)


class FamilyBug(Exception):
    """A task family raised something other than Failed (its "no suitable task here"): a bug in the family or
    its gold writer, which the report names per family instead of counting it as one more dropped attempt."""

    def __init__(self, family: str, error: Exception):
        super().__init__(f"{family}: {type(error).__name__}: {error}")
        self.family, self.error = family, error


def run_family(family: str, build, *args) -> Draft:
    """One family's builder: Failed passes through quietly, any other exception becomes a FamilyBug."""
    try:
        draft = build(*args)
    except Failed:
        raise
    except Exception as exc:  # re-raised with the family's name
        raise FamilyBug(family, exc) from exc
    draft.meta["family"] = family  # a validator crash on its task is charged to it too
    return draft


_CACHE: EnvCache | None = None
_REWRITER = None


def _init(folders: dict[str, Path], rewrite: tuple[str, str | None] | None = None) -> None:
    global _CACHE, _REWRITER, _TEST
    _CACHE = EnvCache(folders)
    _TEST = test_envs(sorted(folders))
    _REWRITER = None  # a worker (or this process, with workers=1) keeps nothing from an earlier run
    if rewrite:
        from envcraft.generator.tasks.rewrite import Rewriter

        _REWRITER = Rewriter(rewrite[0], rewrite[1])


def _draft(cache: EnvCache, name: str, i: int, rng: random.Random, links: list[Link], diversity: Diversity,
           counters: dict[str, int], focus: str | None = None) -> Draft:
    """One candidate task; `focus` (the coverage pass) asks for a plain chain around that operation."""
    env = cache[name]
    shape = rng.choices([s for s, _ in SHAPES], [w if s != "cross" or links else 0 for s, w in SHAPES])[0]
    split = split_of(name)
    if shape == "revert" and focus is None:
        try:
            draft = run_family("revert", build_revert, cache, env, rng, split)
            if diversity.novel(draft.chain):
                return draft
        except Failed:
            pass
        # no mistake here that the tools can put back, or none new: the attempt goes to another shape
        others = [(s, w) for s, w in SHAPES if s != "revert" and (s != "cross" or links)]
        shape = rng.choices([s for s, _ in others], [w for _, w in others])[0]
    if focus is not None:
        shape = "write" if env.ops[focus].writes else "question"
    elif shape == "cross":
        link = rng.choices(links, [lk.weight for lk in links])[0]
        both = "test" if "test" in (split, split_of(link.dst)) else "train"
        return run_family("cross", build_cross, cache, link, rng, both)
    if shape == "note" and "read_file" not in env.scaffold:
        shape = "aggregate"  # no files to leave a note in: reasoning over rows instead
    if shape in REASONING:
        return run_family(shape, REASONING[shape], cache, env, rng, split)
    graph = graph_of(env)
    if shape == "question":
        reads = sorted(n for n, op in env.ops.items() if not op.writes)
        if focus is None:
            focus = reads[counters["question"] % len(reads)]
            counters["question"] += 1
        chain = sample_chain(env, graph, rng, focus, rng.choice((1, 2, 2, 3, 3, 4)), read_only=True)
    else:
        ops = [op.name for op in env.bp.operations]
        if focus is None:
            focus = ops[counters["write"] % len(ops)]
            counters["write"] += 1
        chain = sample_chain(env, graph, rng, focus, pick_length(rng) if shape == "write" else rng.choice((2, 3, 4, 5)))
    if chain is None:
        raise Failed("chain")
    if not chain.read_only and not diversity.novel(chain.signature + ((shape,) if shape != "write" else ())):
        raise Failed("near_duplicate_chain")
    if chain.read_only:
        return run_family("question", build_question, cache, env, chain.ops, rng, split)
    return run_family(shape, build_write, cache, env, chain.ops, rng, split, "plain" if shape == "write" else shape)


def tools_of(task: Task, name: str, env) -> set[str]:
    return {c.tool for c in task.gold if (c.env or name) == name and c.tool in env.ops}


def _attempt(cache: EnvCache, name: str, key: str, links: list[Link], diversity: Diversity, counters: dict[str, int],
             result: EnvResult, seen: Seen, focus: str | None = None) -> tuple[Task, Draft] | None:
    """Draft, validate and de-duplicate one candidate (RNG streams keyed by `key`); drops are counted."""
    result.attempts += 1
    rng = random.Random(key)
    try:
        draft = _draft(cache, name, 0, rng, links, diversity, counters, focus)
    except Failed as exc:
        result.drops[f"build:{exc}"] += 1
        return None
    except Exception as exc:  # noqa: BLE001 - a broken environment or an engine bug: counted and named, never fatal
        bug = exc if isinstance(exc, FamilyBug) else FamilyBug("sampler", exc)
        _count_bug(result, key, bug)
        return None
    if draft.shape != "write" and not diversity.novel(draft.chain):
        result.drops["build:near_duplicate_chain"] += 1
        return None
    key_of, family_of = redundancy_key(draft.task), task_family(draft.task)
    if key_of in seen.keys:  # the same tools in the same order checked the same way: a repeat, not a new task
        result.drops["redundant"] += 1
        return None
    if focus is None and one_search(draft.task) and random.Random(f"{key}:one_search").random() >= ONE_SEARCH_KEPT:
        result.drops["one_search_question"] += 1
        return None
    if focus is None and seen.families[family_of] >= seen.family_cap:  # coverage may exceed it: a tool is not lost
        result.drops["family_full"] += 1
        return None
    try:
        verdict = validate(cache, draft.task, random.Random(f"{key}:validate"))
    except Exception as exc:  # noqa: BLE001 - the family's task breaks the validator: its bug too
        _count_bug(result, key, FamilyBug(draft.meta.get("family", draft.shape), exc), "validate ")
        return None
    if verdict.reason not in ("credited_at_start", "gold_fails", "noop_scores", "no_goal"):
        result.validated += 1
        result.random_passed += verdict.random_passed
        result.random_reward += verdict.random_reward
    if not verdict.ok:
        result.drops[verdict.reason] += 1
        return None
    if focus is not None and focus not in tools_of(draft.task, name, cache[name]):
        result.drops["cover:focus_not_in_gold"] += 1
        return None
    digest = draft.task.content_hash
    if digest in seen.hashes:
        result.drops["duplicate"] += 1
        return None
    seen.hashes.add(digest)
    seen.keys.add(key_of)
    seen.families[family_of] += 1
    diversity.add(draft.chain)
    task = draft.task
    if _REWRITER is not None:
        task = rewritten(cache, task, draft, random.Random(f"{key}:rewrite"), result)
    return task, draft


def one_search(task: Task) -> bool:
    """A question one read answers (realism.py's one_search_question_share counts them)."""
    calls = [c for c in task.gold if c.tool not in NOT_STEPS]
    return "question" in task.tags and len(calls) == 1 and step(task, calls[0].tool, calls[0].env) == "read"


def _count_bug(result: EnvResult, key: str, bug: FamilyBug, stage: str = "") -> None:
    result.bugs[bug.family] += 1
    result.drops[f"error:{stage.strip() + ':' if stage else ''}{bug.family}:{type(bug.error).__name__}"] += 1
    frames = traceback.extract_tb(bug.error.__traceback__)
    # the family's own line rather than a helper's (entity.field) or run_family's re-raise
    ours = [f for f in frames if Path(f.filename).parent.name == "tasks" and Path(f.filename) != Path(__file__)] or frames
    at = f" at {Path(ours[-1].filename).name}:{ours[-1].lineno}" if ours else ""
    result.errors.append(f"attempt {key} {stage}{bug}{at}"[:300])


def generate_env(job: tuple[str, int, int, list[Link]]) -> EnvResult:
    name, seed, count, links = job
    cache = _CACHE
    started = time.perf_counter()
    env = cache[name]
    result = EnvResult(env=name, tools=len(env.ops))
    diversity = Diversity()
    seen = Seen(family_cap=max(1, round(FAMILY_CAP * count)))
    counters = {"write": 0, "question": 0}
    lengths: list[int] = []
    for i in range(count * ATTEMPTS_PER_TASK):
        if len(result.tasks) >= count:
            break
        found = _attempt(cache, name, f"{seed}:{name}:{i}", links, diversity, counters, result, seen)
        if found is not None:
            result.tasks.append(found[0])
            lengths.append(found[1].meta["length"])
    # Coverage pass: an operation no task used gets a chain around it; the task it brings takes the place of
    # the last one whose operations other tasks still cover, so the count holds and no operation is lost.
    for op in env.bp.operations:
        if op.name in set().union(*(tools_of(t, name, env) for t in result.tasks)) or not result.tasks:
            continue
        for j in range(COVER_ATTEMPTS):
            found = _attempt(cache, name, f"{seed}:{name}:cover:{op.name}:{j}", links, diversity, counters, result,
                             seen, focus=op.name)
            if found is None:
                continue
            if len(result.tasks) >= count:
                spare = _spare(result.tasks, name, env)
                if spare is None:
                    break
                result.tasks.pop(spare)
                lengths.pop(spare)
                result.drops["cover:replaced"] += 1
            result.tasks.append(found[0])
            lengths.append(found[1].meta["length"])
            break
    result.lengths = Counter(lengths)
    result.covered = set().union(*(tools_of(t, name, env) for t in result.tasks)) if result.tasks else set()
    result.seconds = time.perf_counter() - started
    return result


def _spare(tasks: list[Task], name: str, env) -> int | None:
    """The last task whose every operation another task also uses."""
    uses: Counter = Counter()
    for task in tasks:
        uses.update(tools_of(task, name, env))
    for index in range(len(tasks) - 1, -1, -1):
        if all(uses[tool] > 1 for tool in tools_of(tasks[index], name, env)):
            return index
    return None


def rewritten(cache: EnvCache, task: Task, draft: Draft, rng: random.Random, result: EnvResult) -> Task:
    """The task with LLM-rewritten turns, if they keep every value the checks need and still validate."""
    from envcraft.generator.tasks.rewrite import needed

    keep = list(dict.fromkeys(draft.meta.get("keep", []) + needed(task.turns, task.checks)))
    turns = _REWRITER.task_turns(task.turns, keep)
    if turns == task.turns:
        return task
    candidate = task.model_copy(update={"turns": turns})
    if not validate(cache, candidate, rng).ok:  # acceptable() already refused new ids and dropped values
        result.drops["rewrite_reverted"] += 1
        return task
    return candidate


def task_line(task: Task) -> str:
    return task.model_dump_json(exclude_defaults=True)


def write_env_file(out: Path, env: str, tasks: list[Task], compress: bool) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    text = "".join(task_line(t) + "\n" for t in tasks).encode("utf-8")
    plain, packed = out / f"{env}.jsonl", out / f"{env}.jsonl.gz"
    target, other = (packed, plain) if compress else (plain, packed)
    if compress:
        with open(target, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
            gz.write(text)
    else:
        target.write_bytes(text)
    if other.exists() and other.name != "office.jsonl":
        other.unlink()
    return target


def generate(seed: int = 0, per_env: int = 160, envs: list[str] | None = None, out: Path | None = None,
             servers: Path = SERVERS, workers: int | None = None, compress: bool = False, log=print,
             rewrite: str | None = None, rewrite_model: str | None = None) -> dict:
    """Generate, validate and write tasks; returns the report (also written to <out>/generation.json)."""
    from envcraft.registry.settings import Settings

    rewrite = rewrite or Settings.from_env().rewrite_base_url
    setup = (rewrite, rewrite_model) if rewrite else None
    started = time.perf_counter()
    stale: list[str] = []
    folders = generated_envs(servers, stale)
    if stale:
        log(f"skipping {len(stale)} environment(s) built from an older blueprint (recompile them): {', '.join(stale)}")
    if not folders:
        raise FileNotFoundError(f"no environment compiled from a blueprint under {servers}: run the compiler first")
    unknown = sorted(set(envs or []) - set(folders))
    if unknown:
        raise KeyError(f"not compiled from a blueprint under {servers}: {', '.join(unknown)}")
    names = sorted(envs or folders)
    workflow = build_workflow([load_blueprint(Path(__file__).resolve().parents[1] / "blueprints" / f"{n}.yaml")
                               for n in sorted(folders)])
    held_out = test_envs(sorted(folders))
    jobs = [(name, seed, per_env, [lk for lk in links_from(workflow, name)  # workflows stay inside one split
                                   if (lk.src in held_out) == (lk.dst in held_out)]) for name in names]
    workers = max(1, min(workers or multiprocessing.cpu_count(), len(jobs)))
    results: list[EnvResult] = []
    if workers == 1:
        _init(folders, setup)
        results = [generate_env(job) for job in jobs]
    else:
        with multiprocessing.get_context("fork").Pool(workers, _init, (folders, setup)) as pool:
            for result in pool.imap(generate_env, jobs):
                results.append(result)
                bugs = f"  {sum(result.bugs.values())} BUG(s)" if result.bugs else ""
                log(f"  {result.env:<36} {len(result.tasks):>4} tasks  {result.attempts:>5} attempts  {result.seconds:6.1f}s{bugs}")
    out = Path(out) if out else Path(__file__).resolve().parents[2] / "tasks"
    seen: set[str] = set()
    total = 0
    for result in results:
        kept = []
        for task in result.tasks:
            digest = task.content_hash
            if digest in seen:
                result.drops["duplicate"] += 1
                continue
            seen.add(digest)
            kept.append(task.model_copy(update={"id": f"{result.env}-{len(kept) + 1:04d}"}))
        result.tasks = kept
        write_env_file(out, result.env, kept, compress)
        total += len(kept)
    seconds = time.perf_counter() - started
    report = summary(results, workflow, seed, per_env, seconds, workers)
    report["test_envs"] = sorted(held_out)
    (out / REPORT).write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", "utf-8")
    log(f"{total} validated tasks for {len(results)} environments in {seconds:.1f}s "
        f"({total / seconds if seconds else 0:.1f} tasks/s, {workers} worker(s)); report: {out / REPORT}")
    for family, entry in report["family_errors"].items():
        envs = ", ".join(f"{env} {n}" for env, n in entry["envs"].items())
        log(f"BUG in task family {family}: {entry['count']} attempt(s) raised ({envs}); first: {entry['first']}")
    return report


def summary(results: list[EnvResult], workflow, seed: int, per_env: int, seconds: float, workers: int) -> dict:
    drops: Counter = Counter()
    lengths: Counter = Counter()
    for r in results:
        drops.update(r.drops)
        lengths.update(r.lengths)
    validated = sum(r.validated for r in results)
    total = sum(len(r.tasks) for r in results)
    return {
        "seed": seed, "per_env_target": per_env, "environments": len(results), "tasks": total, "seconds": round(seconds, 2),
        "tasks_per_second": round(total / seconds, 2) if seconds else None, "workers": workers,
        "attempts": sum(r.attempts for r in results), "drops": dict(sorted(drops.items())),
        "random_agent": {"tasks": validated, "passed": sum(r.random_passed for r in results),
                         "pass_rate": round(sum(r.random_passed for r in results) / validated, 5) if validated else None,
                         "mean_reward": round(sum(r.random_reward for r in results) / validated, 4) if validated else None},
        "chain_lengths": {str(k): v for k, v in sorted(lengths.items())},
        "coverage": {r.env: [len(r.covered), r.tools] for r in results},
        "per_env": {r.env: len(r.tasks) for r in results},
        "workflow_edges": workflow.number_of_edges(),
        "workflow_links": sum(len(data["links"]) for _, _, data in workflow.edges(data=True)),  # declared, both sides
        "errors": {r.env: r.errors[:3] for r in results if r.errors},
        "family_errors": family_errors(results),
    }


def family_errors(results: list[EnvResult]) -> dict[str, dict]:
    """Per task family, the attempts that raised a bug (not Failed) and where: empty when every family is sound."""
    out: dict[str, dict] = {}
    for r in results:
        for family, count in sorted(r.bugs.items()):
            entry = out.setdefault(family, {"count": 0, "envs": {}, "first": ""})
            entry["count"] += count
            entry["envs"][r.env] = count
            entry["first"] = entry["first"] or next((e for e in r.errors if f" {family}: " in e), "")
    return dict(sorted(out.items()))
