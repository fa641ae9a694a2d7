"""A multi-part request says why its parts belong together, and the why is a record the world joins them by.

The binding is checked against the world, not the generator's word for it: the gold is replayed, the rows it
changes are read off the replayed tables, and each must be the named record or point at it (directly, or
through a row the episode creates). The request must name that record by its own values. Gold replays to 1.0
and doing nothing to 0 through real MCP servers (in process) for the tasks that carry a reason.
"""

from __future__ import annotations

import random
from datetime import date

import pytest
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint
from envcraft.generator.tasks.build import Draft, Failed, build_write
from envcraft.generator.tasks.cross import build_cross
from envcraft.generator.tasks.describe import render, spoken, words
from envcraft.generator.tasks.env import SERVERS, EnvCache, Tables, copy_tables, generated_envs
from envcraft.generator.tasks.graph import graph_of
from envcraft.generator.tasks.quality import glitches
from envcraft.generator.tasks.reasons import GENERIC, Tie, about, across, fan_in
from envcraft.generator.tasks.replay import World
from envcraft.generator.tasks.sampler import sample_chain
from envcraft.generator.tasks.workflow import links_between
from envcraft.harness.agents.policies import GoldReplayAgent, NoOpAgent
from envcraft.harness.runner import RolloutLog, run_tasks
from envcraft.registry.launch import InProcessLauncher

ENVS = ["vet_clinic", "auto_claims_adjusting", "citizen_service_center"]
CROSS = [("boutique_hotel_front_desk", "guided_tour_departures"), ("audit_evidence_requests", "visitor_reception")]


@pytest.fixture(scope="module")
def cache() -> EnvCache:
    return EnvCache(generated_envs(SERVERS))


@pytest.fixture(scope="module")
def writes(cache) -> list[Draft]:
    """Write tasks built from sampled chains, as generation builds them."""
    out = []
    for name in ENVS:
        env = cache[name]
        ops = [op.name for op in env.bp.operations]
        for i in range(40):
            rng = random.Random(f"reasons:{name}:{i}")
            chain = sample_chain(env, graph_of(env), rng, ops[i % len(ops)], rng.choice((2, 3, 4, 5)))
            if chain is None or chain.read_only:
                continue
            try:
                out.append(build_write(cache, env, chain.ops, rng, "train"))
            except Failed:
                continue
    return out


def replayed(cache: EnvCache, draft: Draft) -> tuple[dict[str, Tables], dict[str, Tables]]:
    """Every environment's tables before and after the gold."""
    world = World(cache, draft.task)
    start = {name: copy_tables(tables) for name, tables in world.tables.items()}
    world.run(draft.task.gold)
    return start, world.tables


def changed(start: Tables, final: Tables) -> dict[str, dict]:
    """Rows the gold created or changed, by id."""
    before = {r["id"]: r for rows in start.values() for r in rows}
    return {r["id"]: r for table, rows in final.items() if not table.startswith("_") for r in rows
            if before.get(r["id"]) != r}  # the change log (_history) is not a record the request names


def joined(row: dict, anchor: str, final: Tables, new: set[str]) -> bool:
    """The row is the anchor, points at it, or points at a row the episode created that points at it."""
    if row["id"] == anchor or anchor in row.values():
        return True
    rows = {r["id"]: r for rows in final.values() for r in rows}
    return any(isinstance(v, str) and v in new and anchor in rows[v].values() for v in row.values())


def names_row(cache: EnvCache, env_name: str, entity_name: str, row: dict, phrase: str, tables: Tables,
              depth: int = 0) -> bool:
    """The phrase states one of the row's own values as requests state them, or of a row it points at
    ("the auto claim of auto policy SMA-0000030")."""
    env = cache[env_name]
    rows = {r["id"]: r for t in tables.values() for r in t}
    for f in env.entity(entity_name).fields:
        value = row.get(f.name)
        if value in (None, ""):
            continue
        if f.type != "ref" and (render(f, value) in phrase or spoken(f, value) in phrase):
            return True
        if f.type in ("date", "datetime") and any(spoken(f, value, date.fromisoformat(env.bp.today), random.Random(i)) in phrase
                                                  for i in range(24)):  # as said that day: "16:00 today"
            return True
        if f.type == "ref" and depth < 1 and value in rows and \
                names_row(cache, env_name, f.ref, rows[value], phrase, tables, depth + 1):
            return True
    return False


def said_before_referred_to(turns: list[str], phrase: str, entity: str) -> bool:
    """"that <entity>" / "the same <entity>" comes only after the record was named in full."""
    text = " ".join(turns).lower()
    first = text.find(phrase.lower())
    what = words(entity)
    return first >= 0 and all(text.find(f"{ref} {what}") in (-1,) or text.find(f"{ref} {what}") > first
                              for ref in ("that", "the same"))


def meeting_points(start: Tables, final: Tables, rows: dict[str, dict]) -> list[str]:
    """Existing rows every changed row is or points at (directly or through a new row), that few others point at."""
    before = {r["id"] for t in start.values() for r in t}
    new = set(rows) - before
    return [a for a in before if all(joined(r, a, final, new) for r in rows.values()) and fan_in([start], a) <= GENERIC]


def test_multi_part_writes_name_the_record_they_share(cache, writes):
    multi, tied = 0, 0
    for draft in writes:
        env = draft.task.envs[0]
        start, final = replayed(cache, draft)
        rows = changed(start[env], final[env])
        if len(rows) < 2:
            continue
        multi += 1
        shared = meeting_points(start[env], final[env], rows)
        tie = draft.meta.get("tie")
        if tie is None:
            assert not shared or "reason:situation" not in draft.task.tags, \
                f"{draft.task.turns[0]!r}: {sorted(rows)} meet at {shared}, yet the reason is the asker's situation"
            continue
        tied += 1
        assert tie.row_id in shared, f"{draft.task.turns[0]!r}: {tie.row_id} does not join {sorted(rows)}"
        assert tie.phrase.lower() in draft.task.turns[0].lower(), draft.task.turns
        before = {r["id"]: r for t in start[env].values() for r in t}
        assert names_row(cache, env, tie.entity, before[tie.row_id], tie.phrase, start[env]), tie
        assert said_before_referred_to(draft.task.turns, tie.phrase, tie.entity), draft.task.turns
    assert multi >= 20, multi
    assert tied >= 0.25 * multi, f"{tied} of {multi} multi-part write requests say what joins their parts"


def test_situation_reasons_only_where_nothing_is_shared(cache, writes):
    """"Before the review:" is said only where no record joins the parts."""
    situated = [d for d in writes if "reason:situation" in d.task.tags]
    assert situated
    for draft in situated:
        env = draft.task.envs[0]
        start, final = replayed(cache, draft)
        rows = changed(start[env], final[env])
        assert meeting_points(start[env], final[env], rows) == [], draft.task.turns


def test_a_name_ending_in_a_period_ends_its_reason():
    """"the discovery matter whose court is E.D. Tex." never runs on into a lower-case sentence or a doubled period."""
    phrase = "the discovery matter whose court is E.D. Tex."
    said = [about(Tie("discovery_matter", f"dm-{i:04d}", phrase, (f"x-{i:04d}", "y-0001"))) for i in range(60)] + \
        [across(phrase, "eDiscovery", "Contracts", str(i)) for i in range(60)]
    assert [(s, g) for s in said for g in glitches(s + " The contract is signed.")] == []


def cross_drafts(cache: EnvCache) -> list[Draft]:
    out = []
    for src, dst in CROSS:
        links = links_between(load_blueprint(BLUEPRINTS / f"{src}.yaml"), load_blueprint(BLUEPRINTS / f"{dst}.yaml"))
        for i in range(24):
            try:
                out.append(build_cross(cache, links[i % len(links)], random.Random(f"reasons:{src}:{i}"), "train"))
            except Failed:
                continue
    return out


def test_cross_requests_name_the_record_the_value_comes_from(cache):
    drafts = cross_drafts(cache)
    assert len(drafts) >= 10
    for draft in drafts:
        a, b = draft.task.envs
        tie = draft.meta["tie"]
        start, final = replayed(cache, draft)
        before_a = {r["id"]: r for t in start[a].values() for r in t}
        assert tie.row_id in before_a
        assert names_row(cache, a, tie.entity, before_a[tie.row_id], tie.phrase, start[a])
        assert tie.phrase.lower() in " ".join(draft.task.turns).lower()
        assert said_before_referred_to(draft.task.turns, tie.phrase, tie.entity), draft.task.turns
        # the value written in B is one the tied record holds, or one of a row that points at it
        written_b = [v for r in changed(start[b], final[b]).values() for v in r.values() if isinstance(v, str)]
        holders = [r for r in before_a.values() if r["id"] == tie.row_id or tie.row_id in r.values()]
        assert any(v in r.values() for r in holders for v in written_b if v not in ("", None)), draft.task.turns
        new_a = set(changed(start[a], final[a])) - set(before_a)
        for row in changed(start[a], final[a]).values():
            if "reason:shared" in draft.task.tags:
                assert joined(row, tie.row_id, final[a], new_a), draft.task.turns


@pytest.mark.anyio
async def test_tasks_with_reasons_replay_gold_one_and_noop_zero(cache, writes, tmp_path):
    tied = [d.task for d in writes if d.meta.get("tie") is not None][:5] + \
        [d.task for d in cross_drafts(cache) if "reason:shared" in d.task.tags][:2]
    assert len(tied) >= 5
    tasks = [t.model_copy(update={"id": f"reason-{i}"}) for i, t in enumerate(tied)]
    gold = await run_tasks(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}), InProcessLauncher(),
                           RolloutLog(tmp_path / "gold.jsonl"), run_id="gold", concurrency=2)
    noop = await run_tasks(tasks, NoOpAgent(), InProcessLauncher(), RolloutLog(tmp_path / "noop.jsonl"),
                           run_id="noop", concurrency=2)
    assert [(r.task_id, r.reward, r.failure) for r in gold if r.reward != 1.0] == []
    assert [r.reward for r in noop] == [0.0] * len(tasks)
