"""The task engine: tool graphs, deterministic chains, tasks that replay through the registry, and the
validation that rejects free or ungameable-in-name-only tasks."""

from __future__ import annotations

import contextlib
import gzip
import json
import random
from pathlib import Path

import pytest
from envcraft.core.tasks import Check, Task, ToolCall, load_tasks, tasks_for
from envcraft.generator.compile.compiler import compile_blueprint
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint
from envcraft.generator.tasks.env import SERVERS, EnvCache, generated_envs, load_env
from envcraft.generator.tasks.generate import generate
from envcraft.generator.tasks.graph import build_graph, needs, produces
from envcraft.generator.tasks.sampler import pick_length, sample_chain
from envcraft.generator.tasks.validate import is_write, score, validate
from envcraft.harness.agents.policies import GoldReplayAgent, NoOpAgent
from envcraft.harness.runner import RolloutLog, run_tasks
from envcraft.harness.scripted_model import Script, build_app, serving
from envcraft.registry import catalog
from envcraft.registry.launch import InProcessLauncher

ENVS = ["vet_clinic", "dock_appointment_scheduling"]  # freight_brokerage now yields ~15 of 30: few carriers qualify


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """servers/ when it holds current builds of ENVS, else a folder they are compiled into."""
    if all(name in generated_envs(SERVERS) for name in ENVS):
        return SERVERS
    folder = tmp_path_factory.mktemp("servers")
    for name in ENVS:
        compile_blueprint(load_blueprint(BLUEPRINTS / f"{name}.yaml"), folder / name)
    return folder


@contextlib.contextmanager
def catalog_at(root: Path):
    """Let the registry find environments compiled outside servers/ (no-op when root is servers/)."""
    if root == SERVERS:
        yield
        return
    discover, get = catalog.discover, catalog.get
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(catalog, "discover", lambda r=SERVERS: {**discover(r), **discover(root)})
        patch.setattr(catalog, "get", lambda name, r=SERVERS: get(name, root if (root / name).exists() else r))
        yield


@pytest.fixture(scope="module")
def generated(root, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tasks")
    generate(seed=11, per_env=30, envs=ENVS, out=out, servers=root, workers=1, log=lambda *a: None)
    return out


@pytest.fixture(scope="module")
def cache(root) -> EnvCache:
    return EnvCache(generated_envs(root))


def test_vet_clinic_tool_graph(root):
    graph = build_graph(load_env(root / "vet_clinic"))
    edge = graph.edges
    assert edge["pet_search", "appointment_book"]["kind"] == "dataflow"
    assert edge["pet_search", "appointment_book"]["weight"] == 0.8
    assert edge["pet_search", "appointment_book"]["entity"] == "pet"
    assert edge["owner_search", "pet_search"]["param"] == "owner_id"
    for a, b, status in (("appointment_book", "appointment_check_in", "booked"),
                         ("appointment_check_in", "appointment_complete", "checked_in"),
                         ("invoice_create", "invoice_send", "draft"), ("invoice_send", "invoice_mark_paid", "sent")):
        assert edge[a, b]["kind"] == "state" and edge[a, b]["weight"] == 0.9 and edge[a, b]["status"] == status
    assert not graph.has_edge("appointment_cancel", "appointment_complete") or \
        "state" not in edge["appointment_cancel", "appointment_complete"]["kinds"]  # cancelled is not checked_in
    assert edge["read_file", "appointment_book"]["kind"] == "bridge"  # data/pets.csv lists pet ids
    assert edge["read_file", "appointment_book"]["path"] == "data/pets.csv"
    assert edge["appointment_cancel", "run_shell"]["verb"] == "appointment-cancel"
    for _, _, data in graph.edges(data=True):
        assert data["kind"] in ("dataflow", "state", "bridge") and 0.3 <= data["weight"] <= 0.9


def test_chains_are_deterministic_and_reachable(root):
    env = load_env(root / "vet_clinic")
    graph = build_graph(env)

    def chains(seed: int) -> list:
        out = []
        for i in range(40):
            rng = random.Random(f"{seed}:vet_clinic:{i}")
            ops = list(env.ops)
            out.append(sample_chain(env, graph, rng, ops[i % len(ops)], pick_length(rng)))
        return out

    first, again = chains(1), chains(1)
    assert first == again and first != chains(2)
    made = [c for c in first if c is not None]
    assert len(made) >= 10 and max(len(c.ops) for c in made) >= 8
    for chain in made:
        produced: set[str] = set()
        for name in chain.ops:
            assert set(needs(env.bp, env.ops[name]).values()) <= produced, (chain.ops, name)
            produced |= produces(env.bp, env.ops[name])


@pytest.mark.slow
def test_generation_is_deterministic(root, generated, tmp_path):
    generate(seed=11, per_env=30, envs=ENVS, out=tmp_path, servers=root, workers=2, log=lambda *a: None)
    for name in ENVS:
        assert (tmp_path / f"{name}.jsonl").read_bytes() == (generated / f"{name}.jsonl").read_bytes()
    tasks = load_tasks(generated / "vet_clinic.jsonl")
    # per_env is the most: the generator drops a task its wording lint or a repeat check refuses (28 of 30 here)
    assert len(tasks) >= 24 and len({t.content_hash for t in tasks}) == len(tasks)
    held_out = set(json.loads((generated / "generation.json").read_text())["test_envs"])
    assert all(t.split == ("test" if set(t.envs) & held_out else "train") for t in tasks)
    assert not any("apt-00" in turn or "pet-00" in turn for t in tasks for turn in t.turns)


@pytest.mark.slow
@pytest.mark.anyio
async def test_tasks_replay_through_the_registry(root, generated, cache):
    tasks = [t for name in ENVS for t in load_tasks(generated / f"{name}.jsonl")]
    cross = [t for t in tasks if len(t.envs) > 1]
    shell = [t for t in tasks if "shell" in t.tags]
    assert cross, "expected at least one cross-environment task"
    sample = random.Random(0).sample([t for t in tasks if t not in cross], 10) + cross[:2] + shell[:1]
    needed = {e for t in sample for e in t.envs}
    envs_root = root if all((root / e).exists() for e in needed) else SERVERS
    with catalog_at(envs_root):
        gold = await run_tasks(sample, GoldReplayAgent({t.id: t.gold for t in sample}), InProcessLauncher(),
                               RolloutLog(generated / "gold.jsonl"), run_id="gold", concurrency=2)
        noop = await run_tasks(sample, NoOpAgent(), InProcessLauncher(), RolloutLog(generated / "noop.jsonl"),
                               run_id="noop", concurrency=2)
    assert [(r.task_id, r.reward, r.failure) for r in gold if r.reward != 1.0] == []
    assert [r.reward for r in noop] == [0.0] * len(sample)


def test_credited_at_start_is_rejected(cache):
    env = cache["vet_clinic"]
    owner = env.seed_tables()["owners"][0]
    task = Task(id="free", envs=["vet_clinic"], turns=[f"Make sure {owner['name']} is a client."],
                checks=[Check(kind="record", table="owners", match={"name": owner["name"]}),
                        Check(kind="unchanged", role="guard")],
                gold=[ToolCall(tool="owner_search", arguments={"name": owner["name"]}), ToolCall(tool="finish")])
    assert validate(cache, task, random.Random(0)).reason == "credited_at_start"


def test_gold_without_a_write_scores_below_one(generated, cache):
    tasks = [t for t in load_tasks(generated / "vet_clinic.jsonl") if len(t.envs) == 1 and "write" in t.tags]
    assert tasks
    for task in tasks[:10]:
        assert score(cache, task, task.gold) == 1.0
        writes = [i for i, c in enumerate(task.gold) if is_write(cache, task, c)]
        for index in writes:
            assert score(cache, task, task.gold[:index] + task.gold[index + 1:]) < 1.0


def test_report_and_gzip(generated, tmp_path, root):
    report = json.loads((generated / "generation.json").read_text())
    assert 50 <= report["tasks"] <= 60 and report["random_agent"]["pass_rate"] <= 0.01
    # every operation is used by some task: the coverage pass builds one around an operation the sample missed
    assert all(covered == total for covered, total in report["coverage"].values()), report["coverage"]
    generate(seed=11, per_env=5, envs=["vet_clinic"], out=tmp_path, servers=root, workers=1, compress=True,
             log=lambda *a: None)
    assert not (tmp_path / "vet_clinic.jsonl").exists()
    with gzip.open(tmp_path / "vet_clinic.jsonl.gz", "rt") as handle:
        assert len(handle.read().splitlines()) == 5
    assert len(tasks_for("vet_clinic", tmp_path)) == 5


def test_rewrite_pass_keeps_values(generated):
    from envcraft.generator.tasks.rewrite import Rewriter

    original = "Please cancel the appointment for pet Luna (species cat) on 2026-12-04 at 10:00."
    good = "Luna the cat has a 2026-12-04 slot at 10:00 - could you cancel that appointment?"
    dropped = "Could you cancel Luna's appointment?"
    script = Script().add_replies(original, [good]).add_replies(original + " Thanks!", [dropped])
    with serving(build_app(script)) as base_url:
        rewriter = Rewriter(base_url, "scripted", "key")
        keep = ["Luna", "cat", "2026-12-04", "10:00"]
        assert rewriter.rewrite(original, keep) == good
        assert rewriter.rewrite(original + " Thanks!", keep) == original + " Thanks!"
        assert (rewriter.kept, rewriter.rejected) == (1, 1)


@pytest.mark.slow
def test_generate_with_rewrite_endpoint(root, generated, tmp_path):
    plain = load_tasks(generated / "vet_clinic.jsonl")
    first = plain[0].turns[0]
    script = Script().add_replies(first, [first + " Cheers."])  # every other conversation gets a refusal text
    with serving(build_app(script)) as base_url:
        generate(seed=11, per_env=30, envs=["vet_clinic"], out=tmp_path, servers=root, workers=1,
                 rewrite=base_url, rewrite_model="scripted", log=lambda *a: None)
    rewritten = load_tasks(tmp_path / "vet_clinic.jsonl")
    assert rewritten[0].turns[0] == first + " Cheers."
    assert [t.turns for t in rewritten[1:]] == [t.turns for t in plain[1:]]  # rejected rewrites keep the template
    assert [t.gold for t in rewritten] == [t.gold for t in plain]
