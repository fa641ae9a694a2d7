"""The reverse check of the state phrasings (generator/tasks/phrases.py): read back, each phrasing a request
uses for a target state means that state and no other, across the table and within every state machine."""

from __future__ import annotations

from envcraft.generator.model.blueprint import load_all
from envcraft.generator.tasks.phrases import GOALS, misreadings


def machines() -> list[list[str]]:
    return [e.field(e.status_field).values for bp in load_all() for e in bp.entities if e.status_field]


def test_every_state_phrasing_maps_back_to_exactly_one_state():
    assert misreadings(GOALS, machines()) == []


def test_a_planted_ambiguous_phrasing_is_caught():
    # two states of different meaning sharing a phrasing
    shared = {**GOALS, "approved": GOALS["approved"] + ("{x} is sorted",)}
    assert misreadings(shared, []) == ["'{x} is sorted': meant approved, reads as resolved",
                                       "'{x} is sorted': meant approved, reads as solved",
                                       "'{x} is sorted': meant resolved, reads as approved",
                                       "'{x} is sorted': meant solved, reads as approved"]
    # a phrasing that names another state of the same machine ("booked" is a state of the appointment too)
    named = {**GOALS, "served": ("{x} is no longer booked - they were seen",)}
    assert misreadings(named, [["booked", "served", "no_show"]]) == [
        "'{x} is no longer booked - they were seen': meant served, reads as booked (machine booked, served, no_show)"]
    # a phrasing holding another state's whole phrasing ("{x} is here" is arrived's)
    inside = {**GOALS, "seated": ("{x} is here and at their table",)}
    assert misreadings(inside, [["booked", "arrived", "seated"]]) == []  # arrived and seated are one group: named instead
    assert misreadings(inside, [["booked", "seated", "paid"]]) == []
    inside = {**GOALS, "paid": ("{x} is here and paid up",)}
    assert misreadings(inside, [["booked", "arrived", "paid"]]) == [
        "'{x} is here and paid up': meant paid, reads as arrived (machine booked, arrived, paid)"]
