"""The world index (core/world_index.py): derived once per initial world, found by content, bounded, and never
the reason one episode's verdict differs from what its own world says.

That the index changes no verdict is shown on the store by tools/verdicts.py (every task of 30 environments:
gold, no-op and every audit mutation, before and after); these tests pin the cache's own promises.
"""

from __future__ import annotations

import copy
import gc
import json
import weakref

import pytest
from envcraft.core import world_index
from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import Check, Task

# outage_notification_center: the notice's outage event holds the asked value, so naming the event states it
OUTAGES = {
    "outage_events": [{"id": "oev-0001", "feeder": "FDR-101", "estimated_restoration": "2026-12-01T14:00"},
                      {"id": "oev-0002", "feeder": "FDR-215", "estimated_restoration": "2026-12-02T09:00"}],
    "outage_notices": [{"id": "onot-0001", "outage_event_id": "oev-0001", "notice_type": "restored"},
                       {"id": "onot-0002", "outage_event_id": "oev-0002", "notice_type": "etr_update"}]}
ETR = Check(kind="answer", table="outage_events", column="estimated_restoration", contains=["2026-12-01T14:00"],
            about=["onot-0001"], note="answer: outage_event_id of onot-0001")
TASK = Task(id="t-1", envs=["x"], checks=[ETR], gold=[],
            turns=["What estimated restoration do we have for the outage event of the restored notice onot-0001?"])
ANSWER = "Notice onot-0001 belongs to oev-0001. oev-0001 is expected back 2026-12-01 14:00."


def paid(tables: dict) -> float:
    """The reward of ANSWER on this world; the snapshots hold `tables` itself, as the audit's fast path builds them
    (replay.snapshot), so a world changed in place is graded as the same object."""
    initial = Snapshot.model_construct(tables=tables, files={}, answer=None)
    return grade(TASK, initial, Snapshot.model_construct(tables=tables, files={}, answer=ANSWER)).reward


@pytest.fixture(autouse=True)
def empty_cache():
    world_index.clear()
    yield
    world_index.clear()


def test_rollouts_that_deserialize_one_world_share_its_index():
    copies = [json.loads(json.dumps(OUTAGES)) for _ in range(5)]  # new objects each time, as a grading process reads
    found = [world_index.index_of(tables) for tables in copies]
    assert all(index is found[0] for index in found)
    assert (world_index.cache_info().misses, world_index.cache_info().hits) == (1, 4)


def test_a_world_one_cell_apart_is_read_as_its_own():
    """The notice's event changed: "oev-0001" is then another event, so the answer names no fact of the notice.
    A cache keyed by anything short of the content (the object, the table names, the ids) pays it anyway."""
    assert paid(OUTAGES) == 1.0
    moved = copy.deepcopy(OUTAGES)
    moved["outage_notices"][0]["outage_event_id"] = "oev-0002"
    world_index.clear()
    cold = paid(moved)
    assert cold == 0.0  # what the moved world says, read with nothing cached
    assert paid(OUTAGES) == 1.0
    assert paid(moved) == cold  # after the first world's index, the same verdict
    same = copy.deepcopy(OUTAGES)
    assert paid(same) == 1.0
    same["outage_notices"][0]["outage_event_id"] = "oev-0002"  # the same object, changed after a grade
    assert paid(same) == cold


def test_the_cache_is_bounded():
    for n in range(world_index.WORLDS + 20):
        world_index.index_of({"items": [{"id": f"itm-{n:04d}", "name": f"Item number {n}"}]})
    info = world_index.cache_info()
    assert info.misses == world_index.WORLDS + 20
    assert info.currsize == world_index.WORLDS


class Tables(dict):
    """A world's tables that a weak reference can watch."""


def test_the_cache_holds_no_episode_rows_and_its_index_cannot_be_changed():
    tables = Tables(copy.deepcopy(OUTAGES))
    watched = weakref.ref(tables)
    index = world_index.index_of(tables)
    del tables
    gc.collect()
    assert watched() is None  # the cached key kept only the digest
    assert world_index.cache_info().currsize == 1
    with pytest.raises(TypeError):
        index.names[("oev", "0003")] = frozenset({"oev-0003"})  # type: ignore[index]
    with pytest.raises(TypeError):
        index.record_kinds["oev-0003"] = frozenset({"event"})  # type: ignore[index]
