"""`envcraft run`, the main job: launch environments, run agents over their tasks, grade, write rollouts, summarize.

With no OpenAI-compatible endpoint configured it runs the built-in policies (gold replay proves
every task solvable, no-op proves none is free) and says that no LLM was used.
"""

from __future__ import annotations

import difflib
import itertools
import json
import time
import uuid
from pathlib import Path

import anyio
from envcraft.core.tasks import TASKS_DIR, Task, iter_tasks, task_file
from envcraft.harness.agent_options import AgentOptions, preflight
from envcraft.harness.agents.base import Agent
from envcraft.harness.agents.policies import GoldReplayAgent, NoOpAgent
from envcraft.harness.episode import EpisodeBudget
from envcraft.harness.progress import RunProgress
from envcraft.harness.reports.numbers import summary_rows
from envcraft.harness.runner import RolloutLog, run_tasks
from envcraft.harness.terminal import console, table
from envcraft.registry.catalog import discover, unknown_environment
from envcraft.registry.launch import LAUNCHERS, make_launcher
from envcraft.registry.settings import Settings
from pydantic import BaseModel, Field, model_validator

AGENTS = ("gold", "noop", "claw")
SAMPLE_PER_ENV = 5  # the default run over the whole catalog is a sample; --limit 0 runs everything


class RunSettings(BaseModel):
    envs: list[str] | None = None
    tasks_dir: str | None = None
    agents: list[str] | None = None
    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    launcher: str = "inprocess"  # how servers run: inprocess, stdio (a process each) or docker (a container each)
    sandbox: str = "auto"  # where shell commands run: bwrap (default on Linux), process (NOT isolating) or auto
    concurrency: int = 4
    attempts: int = 1
    split: str = "all"
    limit: int | None = None  # tasks per environment; None: all with --env, else SAMPLE_PER_ENV; 0: all
    out: str | None = None
    retries: int = 2  # a resume re-runs an infrastructure failure while it has failed at most this often
    limits: EpisodeBudget = EpisodeBudget()
    agent_options: AgentOptions = AgentOptions()
    ray: str | None = None  # "auto"/"local" or a cluster address: shard episodes over Ray actors
    workers: int = 1  # local worker processes sharing the episodes (harness/shards.py); 1: this process alone
    bench: str | None = None  # a foreign benchmark's tasks instead of ours (envcraft.benchmarks), e.g. bfcl-multi-turn
    category: str | None = None  # --bench: one of its categories (default: all)
    host: Settings = Field(default_factory=Settings.from_env, exclude=True)  # never written to run.json (secrets)

    @model_validator(mode="after")
    def _sandbox_and_launcher(self) -> RunSettings:
        if self.sandbox == "docker":
            raise ValueError("--sandbox docker: Docker runs whole servers, so it is a launcher: pass --launcher docker")
        if self.sandbox not in ("auto", "bwrap", "process"):
            raise ValueError(f"unknown sandbox {self.sandbox!r}: use bwrap, process (NOT isolating) or auto")
        if self.launcher not in LAUNCHERS:
            make_launcher(self.launcher)  # raises the error that lists them
        if self.launcher == "docker" and self.sandbox != "auto":
            raise ValueError(f"--launcher docker runs shell commands in each episode's container: drop --sandbox "
                             f"{self.sandbox}")
        return self

    def farm(self) -> Settings:
        """The settings the farm runs with: the host's, with the run's sandbox choice."""
        return self.host if self.sandbox == "auto" else self.host.with_runtime(sandbox=self.sandbox)

    def endpoint(self) -> tuple[str | None, str, str]:
        return (self.base_url or self.host.base_url, self.api_key or self.host.api_key, self.model or self.host.model)


def make_agent(name: str, settings: RunSettings, tasks: list[Task]) -> Agent:
    """An agent by name; the gold agent alone gets the tasks' gold solutions."""
    if name == "gold":
        return GoldReplayAgent({task.id: task.gold for task in tasks})
    if name == "noop":
        return NoOpAgent()
    if name == "claw":
        base_url, api_key, model = settings.endpoint()
        if not base_url:
            raise ValueError("the claw agent needs an endpoint: pass --base-url (and --model, --api-key) or set ENVCRAFT_BASE_URL")
        from envcraft.harness.agents.claw import ClawAgent

        return ClawAgent(base_url=base_url, api_key=api_key, model=model, **settings.agent_options.claw_kwargs())
    close = difflib.get_close_matches(name, AGENTS, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ValueError(f"unknown agent {name!r}: {hint}use gold, noop or claw")


def load_run_tasks(settings: RunSettings) -> list[Task]:
    if settings.bench:
        from envcraft.harness.benchmark_runs import bench_tasks

        limit = settings.limit if settings.limit is not None else SAMPLE_PER_ENV
        return bench_tasks(settings.bench, settings.category, limit, settings.split)
    tasks_dir = Path(settings.tasks_dir) if settings.tasks_dir else TASKS_DIR
    if not tasks_dir.is_dir():
        raise FileNotFoundError(f"no task folder {tasks_dir}: pass --tasks-dir, or generate tasks (envcraft tasks generate)")
    known = discover()
    for name in settings.envs or []:
        if name not in known:  # a typo, not a missing task file
            raise unknown_environment(name, known)
    names = settings.envs or [name for name in known if task_file(name, tasks_dir)]
    if not names:
        raise FileNotFoundError(f"no environment has tasks in {tasks_dir}: generate them (envcraft tasks generate)")
    limit = settings.limit if settings.limit is not None else (None if settings.envs else SAMPLE_PER_ENV)
    tasks = []
    for name in names:
        path = task_file(name, tasks_dir)
        if path is None:
            raise FileNotFoundError(f"no task file {tasks_dir / name}.jsonl: generate tasks for {name!r} first "
                                    "(envcraft tasks generate)")
        chosen = (t for t in iter_tasks(path) if settings.split in ("all", t.split))
        tasks += itertools.islice(chosen, limit or None)  # a sample parses only the lines it takes
    return tasks


def run_main_job(settings: RunSettings) -> int:
    base_url, _, model = settings.endpoint()
    agents = settings.agents or (["claw"] if base_url else ["gold", "noop"])
    talk = console(stderr=True)
    tasks = load_run_tasks(settings)
    built = {name: make_agent(name, settings, tasks) for name in agents}  # bad settings fail before any work
    if "claw" in built:
        preflight(*settings.endpoint(), settings.agent_options)  # an unreachable model fails here, not per episode
    else:
        policies = " and ".join({"gold": "gold-replay", "noop": "no-op"}[name] for name in agents)
        why = "no LLM endpoint configured (--base-url or ENVCRAFT_BASE_URL)" if not base_url else "--agent chose them"
        talk.print(f"Running the built-in {policies} {'policy' if len(agents) == 1 else 'policies'}: {why}. "
                   "No LLM is used in this run.")
    out = Path(settings.out) if settings.out else Path("runs") / (time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6])
    out.mkdir(parents=True, exist_ok=True)
    run_id = record_settings(out / "run.json", settings)
    log = RolloutLog(out / "rollouts.jsonl")
    if log.done:
        talk.print(f"resuming {out}: {len(log.done)} rollout(s) already recorded are kept")
    launcher = make_launcher(settings.launcher, settings.farm())
    talk.print(f"{len(tasks)} task(s) from {len({t.envs[0] for t in tasks})} environment(s); agents: {', '.join(agents)}; "
               f"launcher: {launcher.name}; sandbox: {settings.sandbox}; concurrency: {settings.concurrency}"
               + (f" per worker, {settings.workers} worker processes" if settings.workers > 1 and not settings.ray else ""))
    if settings.launcher != "docker":
        from envcraft_runtime.cgroups import containment

        talk.print(containment().banner())
    from envcraft.registry.gc_tuning import collect_less

    collect_less(settings.host)  # what lives for the whole run is loaded: the collector rescans it far less often
    rollouts = []
    for name, agent in built.items():
        label = f"{name}:{model}" if name == "claw" else name
        keys = [(task.id, agent.name, attempt) for task in tasks for attempt in range(settings.attempts)]
        kept = [log.done[key] for key in keys if key in log.done and not log.pending(key, settings.retries)]
        with RunProgress(len(keys), label, talk, kept=kept) as progress:
            if settings.ray:
                from envcraft.harness.ray_runner import run_on_ray

                rollouts += run_on_ray(settings, name, tasks, log, run_id=run_id, make_agent=make_agent,
                                       on_done=progress.update)
                continue
            if settings.workers > 1:
                from envcraft.harness.shards import run_on_processes

                rollouts += run_on_processes(settings, name, tasks, log, run_id=run_id, make_agent=make_agent,
                                             workers=settings.workers, on_done=progress.update)
                continue
            rollouts += anyio.run(lambda agent=agent, progress=progress: run_tasks(
                tasks, agent, launcher, log, run_id=run_id, concurrency=settings.concurrency, limits=settings.limits,
                attempts=settings.attempts, retries=settings.retries, on_done=progress.update))
    rows = summary_rows(rollouts)
    (out / "summary.json").write_text(json.dumps(rows, indent=1))
    console().print(summary_table(rows))
    if settings.bench:
        from envcraft.harness.benchmark_runs import category_rows, replay_table

        console().print(table(["category", "tasks", "gold correct", "no-op correct", "episode-seconds"],
                              replay_table(category_rows(rollouts)), right=["tasks", "episode-seconds"],
                              title=f"{settings.bench}: its own checker's verdicts"))
    talk.print(f"rollouts: {log.path}; a report: envcraft report {out} --html {out / 'report.html'}")
    return 0


def record_settings(path: Path, settings: RunSettings) -> str:
    """Write the run's settings once; a resume appends its own under "resumes" and leaves the first ones (and
    so what earlier rollouts were run with) as they were. Returns the run's id."""
    mine = settings.model_dump(exclude={"api_key"})
    if path.exists():
        meta = json.loads(path.read_text("utf-8"))
        meta.setdefault("resumes", []).append({"at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **mine})
    else:
        meta = {"run_id": path.parent.name, **mine}
    partial = path.with_suffix(".json.tmp")
    partial.write_text(json.dumps(meta, indent=1), "utf-8")
    partial.replace(path)  # a kill mid-write leaves the old file whole
    return meta["run_id"]


def summary_table(rows: list[dict]):
    return table(["agent", "model", "episodes", "success", "reward", "steps", "sec/ep", "infra"], (
        [r["agent"], r["model"], r["episodes"], f"{r['success_rate']:.1%}", f"{r['mean_reward']:.3f}",
         f"{r['mean_steps']:.1f}", f"{r['mean_seconds']:.3f}", r["infra_failures"]] for r in rows),
        right=["episodes", "success", "reward", "steps", "sec/ep", "infra"])
