"""The change history: every write through the tools is logged in the app state's `_history` table (who, when
by the app's clock, operation, old -> new), a refused write logs nothing, and grading leaves the log out."""

from __future__ import annotations

import json

import anyio
from envcraft.core.grading import Snapshot, grade
from envcraft.core.state import HISTORY_TABLE
from envcraft.core.tasks import Check, Task
from envcraft.registry import catalog
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot

ENV = "vet_clinic"


def test_a_write_is_logged_with_its_old_value_by_the_apps_clock_and_grading_ignores_the_log(tmp_path):
    async def body():
        root = WorkspaceRoot(tmp_path)
        try:
            async with launch(catalog.get(ENV), InProcessLauncher(), root) as instance:
                call = instance.client.call_tool
                start = Snapshot.of(instance.workspace)
                booked = (await call("appointment_search", {"status": "booked"})).structured_content["results"]
                first, second = booked[0]["id"], booked[1]["id"]
                assert not (await call("appointment_cancel", {"appointment_id": first})).is_error
                assert not (await call("appointment_cancel", {"appointment_id": second})).is_error
                assert (await call("appointment_cancel", {"appointment_id": first})).is_error  # refused: not logged
                return first, second, start, Snapshot.of(instance.workspace)
        finally:
            root.close()

    first, second, start, final = anyio.run(body)
    logged = [(e["row_id"], e["field"], e["old"], e["new"], e["operation"], e["at"], e["by"])
              for e in final.tables[HISTORY_TABLE]]
    assert logged == [(first, "status", "booked", "cancelled", "appointment_cancel", "2026-12-01T09:00", "assistant"),
                      (second, "status", "booked", "cancelled", "appointment_cancel", "2026-12-01T09:01", "assistant")]
    task = Task(id="history-1", envs=[ENV], turns=["Cancel both."], gold=[],
                checks=[Check(kind="record", table="appointments", match={"id": first, "status": "cancelled"}),
                        Check(kind="collateral", role="guard",
                              rows={"appointments": {first: ["status"], second: ["status"]}})])
    assert grade(task, start, final).reward == 1.0  # the log's new rows are no collateral damage
    one_only = task.model_copy(update={"checks": [task.checks[0], Check(
        kind="collateral", role="guard", rows={"appointments": {first: ["status"]}})]})
    assert grade(one_only, start, final).reward == 0.5  # an extra write still costs, through its domain table
    assert json.dumps(final.tables[HISTORY_TABLE])  # plain JSON rows, as the store saves them
