"""The write side of issue 18, on tasks the generator builds for real environments:

- a created row is checked whole: a create that also fills an optional field nobody asked for loses reward;
- a documented follow-up (a reply per ticket state change) is scoped: one on the changed ticket keeps full
  reward, replies on tickets the task never mentions, or more than the workflow adds, do not (a notice on a
  scheduled visit's repair request likewise, and one sent to another resident than the request's does not);
- "impossible" holds on every route: a judgement task never calls a change blocked that a route through the
  state machine makes (irb_protocol_review: submitted -> prescreening -> under review).
"""

from __future__ import annotations

import random

import pytest
from envcraft.core.collateral import damage
from envcraft.core.grading import Snapshot
from envcraft.core.tasks import Check, SideRows, Task, ToolCall
from envcraft.generator.tasks.build import Failed, build_write
from envcraft.generator.tasks.calls import before_finish, domain_call
from envcraft.generator.tasks.env import EnvCache, copy_tables, generated_envs
from envcraft.generator.tasks.execute import bind, call
from envcraft.generator.tasks.judgement import pick_forbidden
from envcraft.generator.tasks.routes import route
from envcraft.generator.tasks.validate import score
from envcraft.generator.tasks.write_mutations import (
    follow_up_documented,
    follow_up_misaddressed,
    invented_optional_field,
    side_effect_unrelated,
)

ENVS = ("retail_helpdesk", "tenant_maintenance_requests", "irb_protocol_review")


@pytest.fixture(scope="module")
def cache() -> EnvCache:
    return EnvCache({k: v for k, v in generated_envs().items() if k in ENVS})


def _tasks(cache: EnvCache, env: str, ops: tuple[str, ...], want: int, mode: str = "plain") -> list[Task]:
    out = []
    for seed in range(80):
        try:
            out.append(build_write(cache, cache[env], ops, random.Random(f"write-checks:{seed}"), "train", mode).task)
        except Failed:
            continue
        if len(out) == want:
            return out
    raise AssertionError(f"only {len(out)} {env} tasks drawn for {ops}")


def test_a_create_that_fills_an_optional_field_nobody_asked_for_loses_reward(cache):
    """A repair request logged with entry permission granted when the request never said so: the created-row
    check reads every field an agent's call could set, not only the stated ones."""
    invented = 0
    for task in _tasks(cache, "tenant_maintenance_requests", ("resident_search", "repair_request_submit"), 12):
        assert score(cache, task, task.gold) == 1.0
        created = next(c for c in task.checks if c.kind == "record" and c.note.startswith("created"))
        assert "entry_permission" in created.match, created.match  # stated or not, the field is checked
        calls = invented_optional_field(cache, task, random.Random(task.turns[0]))
        if calls is None:  # the request states every field (entry permission too): nothing left to invent
            continue
        invented += 1
        assert score(cache, task, calls) < 1.0, [c.arguments for c in calls if c.tool == "repair_request_submit"]
    assert invented >= 3


def _ticket(cache: EnvCache, task: Task) -> str:
    for gold_call in task.gold:
        found = domain_call(cache, task, gold_call)
        if found and found[1] == "support_ticket_resolve":
            return found[2]["support_ticket_id"]
    raise AssertionError("no resolve in the gold")


def _reply(ticket: str) -> ToolCall:
    return ToolCall(tool="ticket_reply_post", env="retail_helpdesk",
                    arguments={"support_ticket_id": ticket, "author": "agent", "body": "Resolved, thanks for waiting."})


def test_follow_ups_are_allowed_on_the_changed_record_only_one_per_state_change(cache):
    tasks = _tasks(cache, "retail_helpdesk", ("support_ticket_search", "support_ticket_resolve"), 3)
    for task in tasks:
        ticket = _ticket(cache, task)
        other = next(r["id"] for r in cache["retail_helpdesk"].seed_tables()["support_tickets"] if r["id"] != ticket
                     and r["id"] not in repr(task.gold))
        assert score(cache, task, task.gold) == 1.0
        assert score(cache, task, before_finish(task.gold, [_reply(ticket)])) == 1.0  # the documented follow-up
        assert score(cache, task, before_finish(task.gold, [_reply(other)])) < 1.0  # a ticket the task never names
        assert score(cache, task, before_finish(task.gold, [_reply(ticket)] * 2)) < 1.0  # more than the workflow adds
        unrelated = side_effect_unrelated(cache, task, random.Random(0))
        assert unrelated is not None and score(cache, task, unrelated) < 1.0
        careful = follow_up_documented(cache, task, random.Random(0))  # the audit's harmless twin: one reply
        assert careful is not None and len(careful) == len(task.gold) + 1 and score(cache, task, careful) == 1.0


def test_a_notice_follows_a_scheduled_visit_on_its_request_only(cache):
    """tenant_maintenance_requests: the notice names the repair request, the followed-up write schedules a visit."""
    ops = ("repair_request_search", "maintenance_tech_search", "repair_visit_schedule")
    for task in _tasks(cache, "tenant_maintenance_requests", ops, 3):
        careful = follow_up_documented(cache, task, random.Random(0))
        assert careful is not None and score(cache, task, careful) == 1.0
        notice = careful[-2]
        assert notice.tool == "resident_notice_send" and notice.arguments["repair_request_id"] in repr(task.gold)
        assert score(cache, task, before_finish(task.gold, [notice, notice])) < 1.0  # one per change, not two
        unrelated = side_effect_unrelated(cache, task, random.Random(0))
        assert unrelated is not None and score(cache, task, unrelated) < 1.0
        resident = next(r["resident_id"] for r in cache["tenant_maintenance_requests"].seed_tables()["repair_requests"]
                        if r["id"] == notice.arguments["repair_request_id"])
        assert notice.arguments["resident_id"] == resident  # the request's own resident
        misaddressed = follow_up_misaddressed(cache, task, random.Random(0))  # the right request, another resident
        assert misaddressed is not None and misaddressed[-2].arguments["resident_id"] != resident
        assert score(cache, task, misaddressed) < 1.0


def test_the_side_guard_counts_rows_per_record_and_keeps_the_tasks_own_rows():
    start = Snapshot(tables={"replies": [], "tickets": [{"id": "t-1"}, {"id": "t-2"}]}, files={})
    guard = Check(kind="collateral", role="guard", grow={"replies": 1},
                  side={"replies": SideRows(field="ticket_id", most={"t-1": 2})})

    def after(*tickets: str) -> Snapshot:
        rows = [{"id": f"r-{i}", "ticket_id": t} for i, t in enumerate(tickets)]
        return Snapshot(tables={**start.tables, "replies": rows}, files={})

    assert damage(guard, start, after("t-1")) == []  # the task's own reply
    assert damage(guard, start, after("t-1", "t-1")) == []  # and the follow-up of its state change
    assert damage(guard, start, after("t-1", "t-2")) != []  # the follow-up on another ticket
    assert damage(guard, start, after("t-1", "t-1", "t-1")) != []
    assert damage(guard, start, after()) == []  # the task's own reply missing: its goal check's loss, no damage
    old = Check(kind="collateral", role="guard", allow=["replies"])  # a store written before `side`: as it graded
    assert damage(old, start, after("t-1", "t-2", "t-2")) == []


def test_a_state_a_route_reaches_is_never_called_impossible(cache):
    env = cache["irb_protocol_review"]
    protocol = env.entity("study_protocol")
    tables = env.seed_tables()
    submitted = [r for r in tables["study_protocols"] if r["status"] == "submitted"]
    assert submitted
    path = route(env, protocol, submitted[0], "under_review")
    assert path == ["study_protocol_prescreen", "study_protocol_assign_reviewer"]
    # the route is real: the app takes a submitted protocol under review through it
    reached = False
    for reviewer in tables["irb_reviewers"]:
        after = copy_tables(tables)
        ok, _ = call(env, after, path[0], {"study_protocol_id": submitted[0]["id"]})
        ok2, _ = call(env, after, path[1], {"study_protocol_id": submitted[0]["id"], "irb_reviewer_id": reviewer["id"]})
        if ok and ok2:
            reached = True
            break
    assert reached
    assert route(env, protocol, {**submitted[0], "status": "closed"}, "under_review") is None  # closed is the end
    picked = []  # without the route check, 3 of these 60 draws called a submitted protocol's review impossible
    for seed in range(60):
        rng = random.Random(seed)
        plan = bind(env, ["study_protocol_search", "study_protocol_disapprove"], env.seed_tables(), rng)
        forbidden = pick_forbidden(env, plan, rng) if plan else None
        if forbidden is not None:
            picked.append((forbidden.op.name, forbidden.row["status"]))
            assert route(env, forbidden.entity, forbidden.row, forbidden.op.to_status) is None, picked[-1]
    assert len(picked) >= 20, picked
    assert ("study_protocol_resubmit", "submitted") not in picked  # the issue's own example
