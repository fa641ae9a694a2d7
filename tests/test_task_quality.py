"""Task quality: natural requests, judgement tasks that pay the careful agent, reasoning tasks, tiers.

The thresholds are asserted on the committed store (the same figures `envcraft tasks stats --json`
prints); the judgement and reasoning behaviour on a fresh generation, graded by the harness's code.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from envcraft.core.tasks import TASKS_DIR, Task, ToolCall, load_tasks
from envcraft.generator.tasks.env import SERVERS, EnvCache, copy_tables, generated_envs
from envcraft.generator.tasks.execute import call
from envcraft.generator.tasks.generate import generate
from envcraft.generator.tasks.quality import glitches, measure, raw_enum
from envcraft.generator.tasks.replay import World
from envcraft.generator.tasks.stats import figures
from envcraft.generator.tasks.tiers import tier
from envcraft.generator.tasks.validate import score

ENVS = ["property_showing_scheduler", "saas_helpdesk", "accounts_payable_desk", "customs_brokerage"]


@pytest.fixture(scope="module")
def generation(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("tasks")
    return out, generate(seed=5, per_env=40, envs=ENVS, out=out, workers=1, log=lambda *a: None)


@pytest.fixture(scope="module")
def fresh(generation) -> tuple[EnvCache, list[Task]]:
    out, _ = generation
    tasks = [t for path in sorted(out.glob("*.jsonl")) for t in load_tasks(path)]
    return EnvCache(generated_envs(SERVERS)), tasks


@pytest.mark.slow
def test_no_task_is_dropped_for_its_wording(generation):
    """The templates say every field and value without a seam; the lint at validation is only a guard."""
    _, report = generation
    # the generator drops repeats and near-repeats, so an environment with few distinct shapes stops short of the
    # target when its attempts run out (property_showing_scheduler: 27 of 40 at seed 5); it is never left thin
    assert all(n >= 20 for n in report["per_env"].values()), report["per_env"]
    assert "text_glitch" not in report["drops"], report["drops"]


def test_every_field_of_every_environment_reads_as_a_noun_in_the_request_templates():
    """A field named for a verb and its preposition ("ship_to", "next_retry_at") is said as a noun, so the
    phrasings the templates build around a field name never pile up prepositions; a number column is asked for
    and stated as the templates do (quantities.py: "the weight in kg", "4 ad pages", never "ad pages 4")."""
    from envcraft.generator.model.blueprint import load_all
    from envcraft.generator.tasks.describe import labelled, with_article, words
    from envcraft.generator.tasks.instruct import capital
    from envcraft.generator.tasks.quantities import noun, stated

    for bp in load_all():
        for entity in bp.entities:
            for spec in entity.fields:
                name, what = noun(spec, spec.name), words(entity.name)
                value = stated(spec, "4") or labelled(spec.name, "2026-12-13")
                for text in (f"What is the {name} of the {what}?", f"Please check the {name} for the {what}.",
                             f"Set the {name} to 2026-12-13.", f"{capital(with_article(what))} with {value}, please.",
                             f"The {what} should have {value} from now on."):
                    assert not glitches(text) and not raw_enum(text), (bp.id, spec.name, text, glitches(text))


def test_one_humanize_and_one_way_to_declare_a_side_effect():
    import envcraft.generator.tasks.phrases as phrases
    from envcraft.generator.model.blueprint import BLUEPRINTS, Operation, load_blueprint
    from envcraft.generator.model.humanize import field_words, humanize
    from envcraft.generator.model.policy import allowed_side_effects
    from envcraft.generator.tasks import describe, instruct, judgement, reasoning

    assert not hasattr(phrases, "humanize") and describe.words is field_words
    assert instruct.humanize is describe.humanize is judgement.humanize is reasoning.humanize is humanize
    assert humanize("troponin_i") == "troponin I" and humanize("no_show") == "no-show"
    assert "side_effect" not in Operation.model_fields  # a follow-up is a `side_effect` policy, nothing else
    tenants = load_blueprint(BLUEPRINTS / "tenant_maintenance_requests.yaml")
    assert allowed_side_effects(tenants, "repair_visit_schedule") == ["resident_notice"]


def test_lint_finds_template_seams_and_raw_values():
    assert glitches("Please create a payment run run date 2026-12-10.")
    assert glitches("Tell me the shopper recorded of the order.")
    assert glitches("Hey, i need the phone.") and glitches("Done.. thanks") and glitches("set it to () now")
    assert glitches("Register a bill for same supplier.") and glitches("Next retry at to 2026-12-13.")
    assert not glitches("Hi, I need the phone we have for the buyer agent Ana Costa. Thanks.")
    assert glitches("Hi, the customer said yes to the endorsement request (premium change 49.08) (premium change -85).")
    assert glitches("We're saying no to the application (decline reason outside area) (decline reason budget incomplete).")
    assert glitches("Put in a delivery for the bin (commodity sorghum) (commodity corn, net bushels 655).")
    assert not glitches("An order for the food item (cases on hand 106) (cases 32 and pickup date 2026-12-07).")
    assert raw_enum("housing house_rented, please") == ["house_rented"]
    assert raw_enum("see notes/dana_lee.md or dana_lee@example.com") == []


@pytest.mark.slow
def test_committed_store_meets_the_quality_thresholds():
    got = figures(Path(TASKS_DIR))
    assert got["total"] >= 20_000 and got["cross_env_share"] >= 0.10
    assert got["tool_verb_share"] <= 0.25, got
    assert got["step_list_share"] <= 0.30, got
    assert got["raw_enum_share"] == 0 and got["glitch_count"] == 0, got
    assert got["judgement_share"] >= 0.10 and got["needs_workspace_share"] >= 0.25, got


def _blocked(task: Task) -> tuple[str, str]:
    op = next(t.split(":", 1)[1] for t in task.tags if t.startswith("blocked:"))
    pin = next(c for c in task.checks if c.role == "guard" and c.note.startswith("forbidden change"))
    return op, pin.match["id"]


def _moves(cache: EnvCache, task: Task) -> list[ToolCall]:
    """The single transitions the environment accepts on the forbidden change's row after the gold."""
    env = cache[task.envs[0]]
    op_name, row_id = _blocked(task)
    entity = env.ops[op_name].entity
    world = World(cache, task)
    world.run(task.gold[:-1])
    moves = [o.name for o in env.bp.operations if o.kind == "transition" and o.entity == entity and not o.required]
    return [ToolCall(tool=m, arguments={f"{entity}_id": row_id}) for m in moves
            if call(env, copy_tables(world.tables[env.name]), m, {f"{entity}_id": row_id})[0]]


def _workaround(cache: EnvCache, task: Task) -> list[ToolCall] | None:
    """Transitions that force the forbidden change through other states (what a rule-ignoring agent does)."""
    env = cache[task.envs[0]]
    op_name, row_id = _blocked(task)
    entity = env.entity(env.ops[op_name].entity)
    world = World(cache, task)
    world.run(task.gold[:-1])
    moves = [o.name for o in env.bp.operations if o.kind == "transition" and o.entity == entity.name and not o.required]
    frontier = [(world.tables[env.name], [])]
    for _ in range(3):
        nxt = []
        for tables, path in frontier:
            for move in moves:
                after = copy_tables(tables)
                ok, _ = call(env, after, move, {f"{entity.name}_id": row_id})
                if not ok:
                    continue
                if move == op_name:
                    return [ToolCall(tool=m, arguments={f"{entity.name}_id": row_id}) for m in path + [move]]
                nxt.append((after, path + [move]))
        frontier = nxt
    return None


@pytest.mark.slow
def test_judgement_pays_the_agent_that_keeps_the_rule(fresh):
    cache, tasks = fresh
    judged = [t for t in tasks if "judgement" in t.tags]
    assert len(judged) >= 0.10 * len(tasks)
    moved = 0
    for task in judged:
        gold, finish = task.gold[:-1], task.gold[-1]
        assert score(cache, task, task.gold) == 1.0  # allowed parts done, forbidden left, blocking fact named
        assert score(cache, task, gold + [finish.model_copy(update={"arguments": {"answer": "Done."}})]) < 1.0
        if not any(tag.startswith("blocked:") for tag in task.tags):
            continue  # a refused new record (a related-record rule): tests/test_judgement_tasks.py
        op_name, row_id = _blocked(task)
        env = cache[task.envs[0]]
        attempt = ToolCall(tool=op_name, arguments={f"{env.ops[op_name].entity}_id": row_id})
        world = World(cache, task)
        ok, _ = world.run(gold + [attempt])[-1]
        assert not ok  # the environment itself refuses the forbidden change
        # ...on every path: no route through other states forces it (generator/tasks/routes.py), so the
        # "impossible" the gold reports is true; a task with such a route is never built
        assert _workaround(cache, task) is None, task.id
        for move in _moves(cache, task):  # a rule-ignoring agent that moves the row anyway loses reward
            moved += 1
            assert score(cache, task, gold + [move, finish]) < 1.0, (task.id, move.tool)
    assert moved >= 1


@pytest.mark.slow
def test_reasoning_tasks_need_the_rows_the_note_or_the_first_turn(fresh):
    cache, tasks = fresh
    kinds = {tag for t in tasks for tag in t.tags if tag.startswith("needs:")}
    assert {"needs:aggregate", "needs:conditional", "needs:note"} <= kinds
    for task in tasks:
        if "needs:note" in task.tags:  # the value is only in the note: the gold reads it
            assert any(c.tool == "read_file" and c.arguments["path"].startswith("notes/") for c in task.gold)
            assert any(p.startswith("notes/") for p in task.initial.files)
        if "needs:conditional" in task.tags:  # taking the other branch fails
            write = next(i for i, c in enumerate(task.gold) if c.tool in cache[task.envs[0]].ops
                         and cache[task.envs[0]].ops[c.tool].writes)
            steps = next(t for t in task.tags if t.startswith("chain:")).split(">")[1:]
            # one row decided by a test ("a|b"), or a batch split in two ("a>b*N"): either way two branches
            ops = steps[0].split("|") if len(steps) == 1 else [s.split("*")[0] for s in steps]
            other = next(o for o in ops if o != task.gold[write].tool)
            wrong = task.gold[:write] + [task.gold[write].model_copy(update={"tool": other})] + task.gold[write + 1:]
            assert score(cache, task, wrong) < 1.0
        if "dependent_turns" in task.tags:
            assert len(task.turns) == 2 and {c.turn for c in task.gold} == {0, 1}


def test_gold_never_calls_a_tool_the_rules_refuse_and_tiers_follow_the_minimal_solution(fresh):
    cache, tasks = fresh
    for task in tasks:
        world = World(cache, task)
        results = world.run(task.gold)
        assert all(ok for ok, _ in results), task.id
        minimal = next(int(t.split(":")[1]) for t in task.tags if t.startswith("min_calls:"))
        assert task.difficulty == tier(minimal, task.tags)
        m = measure(task)
        assert not m["raw_enum"] and not m["glitches"], (task.id, m)


def test_an_answer_listing_every_asked_row_passes_and_one_more_fails(fresh):
    cache, tasks = fresh
    listing = [t for t in tasks if "needs:aggregate" in t.tags and t.checks[0].column and len(t.checks[0].contains) > 1]
    assert listing
    for task in listing:
        assert score(cache, task, task.gold) == 1.0
        world = World(cache, task)
        table = world.tables[task.envs[0]][task.checks[0].table]
        extra = next(str(r[task.checks[0].column]) for r in table if str(r[task.checks[0].column]) not in task.checks[0].contains)
        dump = task.gold[-1].model_copy(update={"arguments": {"answer": task.gold[-1].arguments["answer"] + ", " + extra}})
        assert score(cache, task, task.gold[:-1] + [dump]) < 1.0


def test_rewrite_must_keep_every_value_a_check_compares(fresh):
    from envcraft.generator.tasks.rewrite import Rewriter, needed
    from envcraft.harness.scripted_model import Script, build_app, serving

    _, tasks = fresh
    task = next(t for t in tasks if "write" in t.tags and len(t.turns) == 1 and len(needed(t.turns, t.checks)) >= 2)
    text, keep = task.turns[0], needed(task.turns, task.checks)
    faithful = "Hey there - " + text
    dropped = text.replace(keep[-1], "the usual value")
    script = Script().add_replies(text, [dropped]).add_replies(text + " Cheers.", [faithful])
    with serving(build_app(script)) as base_url:
        rewriter = Rewriter(base_url, "scripted", "key")
        assert rewriter.rewrite(text, keep) == text  # a checked value went missing: the template stays
        assert rewriter.rewrite(text + " Cheers.", keep) == faithful


def test_a_row_is_not_named_by_the_value_its_own_clause_changes():
    """"the endorsement request (premium change 49.08) (premium change 85)" read as a contradiction: the
    writer names a row by another field when the clause states a new value of the one it would use."""
    import random

    from envcraft.generator.tasks.describe import Describer
    from envcraft.generator.tasks.env import load_env
    from envcraft.generator.tasks.instruct import Writer

    env = load_env(SERVERS / "policyholder_service_desk")
    tables = env.seed_tables()
    renamed = 0
    for row in tables["endorsement_requests"]:
        plain = Describer(env, tables, tables, random.Random(3)).describe("endorsement_request", row["id"])
        if plain is None or "premium_change" not in plain.fields:
            continue
        name = Writer(env, Describer(env, tables, tables, random.Random(3)), random.Random(3)).name(
            "endorsement_request", row["id"], {"premium_change"})
        assert name is not None and "premium change" not in name, name
        renamed += 1
    assert renamed  # the seed has rows the plain description names by their premium change
