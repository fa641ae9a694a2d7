"""The grading rules an RL policy would probe: typed answers (formats, whole values, dumps, length),
free text compared normalized, the row-level collateral guard (extra, duplicate and bulk writes cost
reward; scratch files do not), and negative checks that target the fact rather than any mention."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from envcraft.core.answers import MAX_ANSWER_CHARS, names
from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import Check, Task, ToolCall, load_tasks

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("answer, expected", [
    ("It is Nov 13, 2026.", "2026-11-13"), ("13 November 2026", "2026-11-13"), ("11/13/2026", "2026-11-13"),
    ("Friday, November 13th, 2026", "2026-11-13"), ("Nov 13, 2026 12:30", "2026-11-13 12:30"),
    ("12:30 PM on 2026-11-13", "2026-11-13T12:30"), ("$1,234.50", "1234.5"), ("1234.50 USD", "1234.5"),
    ("That comes to 3 kg.", "3"), ("In Progress", "in_progress"), ("status: ON HOLD", "on_hold"),
    ("Reach her at Dana.Scott@Example.com", "dana.scott@example.com"), ("5 pm", "17:00"), ("It is 12.50", "12.5"),
])
def test_the_right_value_in_another_common_format_is_credited(answer, expected):
    assert names(answer, expected) == (True, [])


@pytest.mark.parametrize("answer, expected", [
    ("ord-0012 has 120 units", "12"), ("in 2012", "12"), ("1,234.5", "234.5"), ("2026-11-14", "2026-11-13"),
    ("Nov 13, 2026 13:30", "2026-11-13 12:30"), ("Ann Leeson", "Ann Lee"), ("not in progress yet? no: done", "pending"),
])
def test_short_numbers_and_names_match_as_whole_values_only(answer, expected):
    assert names(answer, expected)[0] is False


def test_an_answer_that_also_states_other_values_of_the_field_is_a_dump():
    others = ["2026-11-13", "2026-11-20", "2026-12-01"]
    assert names("2026-11-13", "2026-11-13", others) == (True, [])
    assert names("Nov 13, 2026 or Nov 20, 2026", "2026-11-13", others) == (True, ["2026-11-20"])
    teams = ["Warehouse Ops", "IT", "Fleet"]
    assert names("It is warehouse ops.", "Warehouse Ops", teams) == (True, [])  # "it" is prose, not the IT team
    found, also = names("IT, Fleet, Warehouse Ops", "Warehouse Ops", teams)
    assert found and sorted(also) == ["Fleet", "IT"]


def _task(checks: list[Check]) -> Task:
    return Task(id="t-1", envs=["x"], turns=["do it"], checks=checks, gold=[])


def _state(tables=None, files=None, answer=None) -> Snapshot:
    return Snapshot(tables=tables or {}, files=files or {}, answer=answer)


def test_answer_checks_grade_typed_values_dumps_and_length():
    rows = [{"id": f"inv-{i:04d}", "due": day} for i, day in enumerate(["2026-11-13", "2026-11-20", "2026-12-01"])]
    task = _task([Check(kind="answer", contains=["2026-11-13"], table="invoices", column="due")])
    start = _state({"invoices": rows})
    assert grade(task, start, _state({"invoices": rows}, answer="It's due Nov 13, 2026.")).reward == 1.0
    assert grade(task, start, _state({"invoices": rows}, answer="2026-11-13, 2026-11-20, 2026-12-01")).reward == 0.0
    padded = "2026-11-13 " + "x" * MAX_ANSWER_CHARS
    assert grade(task, start, _state({"invoices": rows}, answer=padded)).reward == 0.0


def test_free_text_is_compared_after_normalizing_case_spacing_and_final_punctuation():
    task = _task([Check(kind="record", table="notes", match={"body": "Call the client back tomorrow."}, count=1)])
    for body in ("call the client back  tomorrow", "Call the client back tomorrow!", "CALL THE CLIENT BACK TOMORROW."):
        assert grade(task, _state(), _state({"notes": [{"id": "n-1", "body": body}]})).reward == 1.0
    assert grade(task, _state(), _state({"notes": [{"id": "n-1", "body": "Call the client back today."}]})).reward == 0.0


def test_the_collateral_guard_is_row_level_and_lets_scratch_files_be():
    rows = [{"id": "w-1", "status": "draft", "amount": 5}, {"id": "w-2", "status": "draft", "amount": 7}]
    start = _state({"wires": rows}, files={"docs/policy.md": "rules"})
    goal = Check(kind="record", table="wires", match={"id": "w-1", "status": "sent"})
    guard = Check(kind="collateral", role="guard", rows={"wires": {"w-1": ["status"]}}, grow={"wires": 1})
    task = _task([goal, Check(kind="record", table="wires", match={"amount": 9}, count=1), guard])
    done = [{**rows[0], "status": "sent"}, rows[1], {"id": "w-3", "status": "draft", "amount": 9}]
    files = {"docs/policy.md": "rules"}
    assert grade(task, start, _state({"wires": done}, files)).reward == 1.0
    assert grade(task, start, _state({"wires": done}, {**files, "notes/scratch.md": "todo"})).reward == 1.0
    cases = {
        "an extra row in a table the task changes": {"wires": done + [{"id": "w-4", "status": "draft", "amount": 1}]},
        "another row of that table changed": {"wires": [done[0], {**rows[1], "status": "sent"}, done[2]]},
        "another field of the changed row": {"wires": [{**done[0], "amount": 500}, rows[1], done[2]]},
        "a row deleted": {"wires": [done[0], done[2]]},
        "a row in another table": {"wires": done, "audit": [{"id": "a-1"}]},
    }
    for what, tables in cases.items():
        assert grade(task, start, _state(tables, files)).reward < 1.0, what
    assert grade(task, start, _state({"wires": done}, {"docs/policy.md": "edited"})).reward < 1.0
    assert grade(task, start, _state({"wires": done}, {})).reward < 1.0


def test_a_documented_side_effect_table_may_grow():
    start = _state({"replies": [], "tickets": [{"id": "t-1", "status": "new"}]})
    task = _task([Check(kind="record", table="tickets", match={"id": "t-1", "status": "resolved"}),
                  Check(kind="collateral", role="guard", rows={"tickets": {"t-1": ["status"]}}, allow=["replies"])])
    final = _state({"replies": [{"id": "r-1", "body": "Resolved, thanks!"}], "tickets": [{"id": "t-1", "status": "resolved"}]})
    assert grade(task, start, final).reward == 1.0


def test_office_016_negative_check_targets_the_superseded_figure_not_any_mention():
    task = next(t for t in load_tasks(REPO / "tasks" / "office.jsonl") if t.id == "office-016")
    state = json.loads((REPO / "servers" / "office" / "seed" / ".app" / "state.json").read_text())
    start = Snapshot(tables=state, files={})

    def forward(body: str) -> float:
        mail = {"id": "msg-0041", "folder": "sent", "sender": "alex.morgan@northwind.studio",
                "to": ["daniel.okafor@northwind.studio"], "cc": [], "subject": "Fwd: Lumen Health estimate v2",
                "body": body, "date": "2026-12-01T09:00", "read": True, "in_reply_to": None}
        return grade(task, start, Snapshot(tables={**state, "mail": state["mail"] + [mail]}, files={})).reward

    assert forward("Here is v2: $84,000. It replaces the $92,000 draft.") == 1.0
    assert forward("Here is the estimate: $92,000.") < 1.0


def test_a_datetime_answer_is_not_a_dump_of_itself_written_with_a_space():
    others = ["2026-11-27 13:00", "2026-11-28 15:00"]
    assert names("2026-11-27T13:00", "2026-11-27T13:00", others) == (True, [])
    assert names("Nov 27, 2026 1:00 pm", "2026-11-27T13:00", others) == (True, [])
    assert names("2026-11-27 13:00 or 2026-11-28 15:00", "2026-11-27T13:00", others) == (True, ["2026-11-28 15:00"])


def test_the_finish_tool_states_the_answer_cap_the_grader_applies():
    import anyio
    from envcraft.registry import catalog
    from envcraft.registry.launch import load_server_module
    from mcp import Client

    async def description() -> str:
        server = load_server_module(catalog.get("vet_clinic")).build_server(REPO / "servers" / "vet_clinic" / "seed")
        async with Client(server) as client:
            return next(t.description for t in (await client.list_tools()).tools if t.name == "finish")

    text = anyio.run(description)
    assert f"at most {MAX_ANSWER_CHARS} characters" in " ".join(text.split())


def test_an_answer_listing_several_expected_values_is_not_a_dump_of_them():
    rows = [{"id": f"p-{i}", "name": n} for i, n in enumerate(["Ada Park", "Bo Chen", "Cy Diaz", "Di Evans"])]
    task = _task([Check(kind="answer", contains=["Ada Park", "Cy Diaz"], table="people", column="name")])
    start = _state({"people": rows})
    assert grade(task, start, _state({"people": rows}, answer="Ada Park and Cy Diaz")).reward == 1.0
    assert grade(task, start, _state({"people": rows}, answer="Ada Park, Bo Chen, Cy Diaz")).reward == 0.0


COUNT_QUESTION = "How many open tickets over $500 do we have right now (as of 2026-11-30)? Just the number, please."


@pytest.mark.parametrize("answer", [
    "3", "There are 3 open tickets (T-104, T-107, T-111).", "3 of 12", "3 of the 12 open tickets are over $500.",
    "3/12", "As of Nov 30 there are 3.", "As of 2026-11-30, 3 tickets.", "PO-00004 has 3 vendor bills, all net30.",
    "It's not 2 but 3: I missed one.", "Not counting 2 drafts, there are 3.", "3.0", "3 (previously 5, before two closed)",
    "3; this replaced the 4 from last week's report.",
])
def test_a_count_answered_naturally_is_credited(answer):
    task = Task(id="t-1", envs=["x"], turns=[COUNT_QUESTION], checks=[Check(kind="answer", contains=["3"])], gold=[])
    assert grade(task, _state(), _state(answer=answer)).reward == 1.0


@pytest.mark.parametrize("answer", [
    " ".join(str(n) for n in range(150)), "0 1 2 3 4 5", "3 4", "3, or 4 if you count the pending one",
    "0 of 1 of 2 of 3 of 4", "old 0, old 1, old 2, 3, 4", "2/3/4", "T-3", "three, four", "2 or three",
])
def test_a_count_gets_one_guess(answer):
    """A count or total has no column of candidates, so an answer stating several numbers of its class is a
    dump; what a count is out of, or a number named as not the answer, is not a stated value (nor can it pay)."""
    task = Task(id="t-1", envs=["x"], turns=[COUNT_QUESTION], checks=[Check(kind="answer", contains=["3"])], gold=[])
    assert grade(task, _state(), _state(answer=answer)).reward == 0.0


def test_a_total_may_mention_the_count_it_sums_but_not_a_second_total():
    task = Task(id="t-1", envs=["x"], turns=["What do the received purchase orders come to, all together?"],
                checks=[Check(kind="answer", contains=["275925.12"])], gold=[])
    assert grade(task, _state(), _state(answer="They come to $275,925.12 across 8 orders.")).reward == 1.0
    assert grade(task, _state(), _state(answer="$275,925.11, $275,925.12 or $275,925.13")).reward == 0.0
    two = Task(id="t-2", envs=["x"], turns=["Engineering's Q4 budget and actual spend?"], gold=[],
               checks=[Check(kind="answer", contains=["17000"]), Check(kind="answer", contains=["13070"])])
    assert grade(two, _state(), _state(answer="Budget 17000, actual 13070.")).reward == 1.0  # each expects the other


def test_office_guards_are_row_level_an_extra_mail_or_move_costs_reward(tmp_path):
    """office tasks named whole tables the task may change (`unchanged` with allow=["mail"]), so a second,
    unasked-for mail or another mail moved kept 1.0. Now the guard allows only what the gold does (one reply
    sent here). Evidence from the real server: gold, then one more write, graded by the harness's code."""
    import anyio
    from envcraft.registry import catalog
    from envcraft.registry.launch import InProcessLauncher, launch
    from envcraft.registry.workspaces import WorkspaceRoot

    task = next(t for t in load_tasks(REPO / "tasks" / "office.jsonl") if t.id == "office-001")
    extras = {"gold": None,
              "an extra mail": ("mail_send", {"to": ["priya.shah@northwind.studio"], "subject": "FYI",
                                               "body": "Approved Marco's dinner."}),
              "another mail moved": ("mail_move", {"message_id": "msg-0001", "folder": "trash"})}

    async def reward(extra) -> float:
        root = WorkspaceRoot(tmp_path)
        try:
            async with launch(catalog.get("office"), InProcessLauncher(), root, task.initial) as instance:
                start = Snapshot.of(instance.workspace)
                for step in task.gold[:-1] + ([ToolCall(tool=extra[0], arguments=extra[1])] if extra else []):
                    assert not (await instance.client.call_tool(step.tool, step.arguments)).is_error, step
                return grade(task, start, Snapshot.of(instance.workspace)).reward
        finally:
            root.close()

    rewards = {what: anyio.run(reward, extra) for what, extra in extras.items()}
    assert rewards["gold"] == 1.0 and rewards["an extra mail"] < 1.0 and rewards["another mail moved"] < 1.0, rewards


def test_a_number_from_a_column_gets_one_guess_too():
    """kitchen_prep_inventory-0127 (store of 2026-11-30): the other on-hand values were all above 149, so
    '0 1 2 ... 149' named none of them and paid 1.0. A number answer gets one guess whether or not a column
    lists its candidates."""
    rows = [{"id": f"itm-{i:04d}", "on_hand": v} for i, v in enumerate([65, 212.5, 310])]
    task = Task(id="t-1", envs=["x"], turns=["How many of item itm-0000 are on hand?"], gold=[],
                checks=[Check(kind="answer", contains=["65"], table="items", column="on_hand")])
    start = _state({"items": rows})
    assert grade(task, start, _state({"items": rows}, answer="itm-0000 has 65 on hand.")).reward == 1.0
    assert grade(task, start, _state({"items": rows}, answer=" ".join(str(n) for n in range(150)))).reward == 0.0
    assert grade(task, start, _state({"items": rows}, answer="65 or 310")).reward == 0.0
