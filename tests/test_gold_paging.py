"""Gold solutions page honestly (issue 9 item 5): a search cut at its default page size says so ("20 of 57
shown; pass offset=20 for the rest"), and the gold follows that notice with `offset` as an agent would,
instead of asking for a page size no agent would guess. Checked on freshly generated tasks: every paged
call follows an earlier page of the same search whose reply named its offset, and the paged golds still score
1.0 (no-op 0) through the real servers over MCP."""

from __future__ import annotations

import anyio
import pytest
from envcraft.core.tasks import load_tasks, write_tasks
from envcraft.generator.tasks.env import EnvCache, generated_envs
from envcraft.generator.tasks.generate import generate
from envcraft.generator.tasks.replay import World

from envcraft.replays import replay_store

ENV = "public_housing_allocation"  # many of its golds find a row past the first page of a search


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    out = tmp_path_factory.mktemp("tasks")
    generate(seed=0, per_env=60, envs=[ENV], out=out, workers=1, log=lambda *a: None)
    return out


@pytest.mark.slow
def test_gold_searches_page_with_the_offset_the_cut_notice_names(fresh):
    cache = EnvCache(generated_envs())
    tasks = load_tasks(fresh / f"{ENV}.jsonl")
    paged = 0
    for task in tasks:
        world = World(cache, task)
        notes: dict[tuple[str, str], str] = {}  # the last cut notice each search (filters without offset) gave
        for call in task.gold:
            ok, result = world.apply(call)
            op = cache[call.env or task.envs[0]].ops.get(call.tool)
            if op is not None and op.kind == "search":
                assert "limit" not in call.arguments, (task.id, call)  # the default page, as an agent asks
                offset = call.arguments.get("offset")
                key = (call.tool, repr(sorted((k, v) for k, v in call.arguments.items() if k != "offset")))
                if offset:
                    paged += 1
                    assert f"pass offset={offset} for the rest" in notes.get(key, ""), (task.id, call, notes.get(key))
                if ok:
                    notes[key] = result.note
    print(f"{paged} paged search calls in {len(tasks)} tasks")
    assert paged >= 5, f"only {paged} paged search calls in {len(tasks)} tasks: the test would prove little"


@pytest.mark.slow
def test_paged_golds_score_one_through_the_real_servers(fresh, tmp_path):
    paged = [t for t in load_tasks(fresh / f"{ENV}.jsonl") if any("offset" in c.arguments for c in t.gold)]
    assert paged
    write_tasks(tmp_path / f"{ENV}.jsonl", paged)
    report = anyio.run(lambda: replay_store(tmp_path, [ENV], concurrency=2, log=lambda *a: None))
    assert report["tasks"] == len(paged)
    assert report["gold_below_one"] == [] and report["noop_above_zero"] == [], report


def test_a_search_records_its_pages_also_one_made_before_and_a_kept_page_keeps_those_before_it():
    """A search whose first page an earlier read already made does not repeat it (the agent has that reply):
    its page group names that earlier call, so when only the later read's rows are used, the prune keeps the
    first page (whose cut notice named the offset) and the page after it, and drops nothing the agent needs."""
    import random

    from envcraft.core.tasks import ToolCall
    from envcraft.generator.tasks.describe import Describer
    from envcraft.generator.tasks.execute import Plan
    from envcraft.generator.tasks.gold import GoldWriter

    cache = EnvCache({k: v for k, v in generated_envs().items() if k == ENV})
    env = cache[ENV]
    tables = env.seed_tables()
    rows = tables["housing_applicants"]
    assert len(rows) > 20  # two pages at the default page size
    writer = GoldWriter(env, Plan(env.name, [], tables, tables), Describer(env, tables, tables, random.Random(0)),
                        random.Random(0))
    first = writer.search("housing_applicant_search", {}, rows[3]["id"], 0)  # found on the first page
    later = writer.search("housing_applicant_search", {}, rows[25]["id"], 0)  # the first page again, then offset
    assert first == [0] and later == [0, 1] and writer.pages == [[0], [0, 1]], writer.pages
    assert [c.arguments for c in writer.calls] == [{}, {"offset": 20}]
    writer.revealed = {0: {rows[3]["id"]}, 1: {rows[25]["id"]}}  # the first read's row is never used
    writer.calls.append(ToolCall(tool="housing_applicant_get", arguments={"housing_applicant_id": rows[25]["id"]}))
    writer.prune(keep_last=False)
    assert [c.arguments for c in writer.calls] == [{}, {"offset": 20}, {"housing_applicant_id": rows[25]["id"]}]
