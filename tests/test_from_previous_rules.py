"""The `from_previous` check kind: a write compared with the value the row held before it. Through the real
document_scanning_pipeline server: a batch in its second attempt fails; recording attempts 1 (unchanged) or 3
(skipping one) is refused citing the rule and the previous value, attempts 2 goes through; a change the task engine
makes carries the stepped value."""

from __future__ import annotations

import json
import random

import anyio
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint
from envcraft.generator.tasks.choose import Chooser
from envcraft.generator.tasks.env import SERVERS, load_env
from mcp import Client

from tests.helpers import compiled_server as _compiled
from tests.helpers import seed_state as _state


def test_a_failure_records_one_more_attempt_than_before(tmp_path):
    bp = load_blueprint(BLUEPRINTS / "document_scanning_pipeline.yaml")
    folder, module = _compiled(bp, tmp_path)
    state = json.loads(_state(folder).read_text())
    batch = state["scan_batches"][0]
    batch.update(status="scanning", attempts=1, error="none")
    _state(folder).write_text(json.dumps(state))
    call = {"scan_batch_id": batch["id"], "error": "paper jam"}

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            for wrong in (1, 3):
                refused = await client.call_tool("scan_batch_fail", {**call, "attempts": wrong})
                text = refused.content[0].text
                assert refused.is_error and "(rule failure_counts_an_attempt:" in text, text
                assert f"attempts is {wrong}, not equal to its previous 1 + 1 = 2" in text, text
            done = await client.call_tool("scan_batch_fail", {**call, "attempts": 2})
            assert not done.is_error, done.content[0].text

    anyio.run(main)
    after = next(b for b in json.loads(_state(folder).read_text())["scan_batches"] if b["id"] == batch["id"])
    assert (after["status"], after["attempts"], after["error"]) == ("failed", 2, "paper jam")


def test_a_task_change_carries_the_stepped_value():
    env = load_env(SERVERS / "document_scanning_pipeline")
    op = next(o for o in env.bp.operations if o.name == "scan_batch_fail")
    row = {"id": "scb-0001", "status": "scanning", "attempts": 0, "error": "none"}
    for seed in range(5):
        fields = Chooser(env, random.Random(seed)).change_fields(op, row, {"scan_batches": [row]})
        assert fields["attempts"] == 1, fields
