"""The store figures of issue 19 (generator/tasks/realism.py), on tasks whose answers are known by hand."""

from __future__ import annotations

from envcraft.core.tasks import Check, Task, ToolCall
from envcraft.generator.tasks.realism import paren_field_ref, realism


def task(n: int, text: str, tools: list[str], question: bool = False) -> Task:
    gold = [ToolCall(tool=t, env="vet_clinic") for t in tools] + [ToolCall(tool="finish", env="vet_clinic")]
    check = Check(kind="answer", contains=["x"]) if question else Check(kind="record", table="appointments",
                                                                         match={"id": "apt-0001", "status": "cancelled"})
    return Task(id=f"vet_clinic-{n:04d}", envs=["vet_clinic"], turns=[text], checks=[check], gold=gold,
                tags=["question"] if question else [])


def test_a_record_named_by_a_raw_field_value_in_parentheses_is_counted_and_prose_is_not():
    assert paren_field_ref("Cancel the reserved purchase (upfront cost 10569.32) today.")
    assert paren_field_ref("The pet Luna (species cat, born 2021-03-02) is here.")
    assert paren_field_ref("The appointment (currently booked) is off.")
    assert not paren_field_ref("Cancel the appointment starting 4 December 2026 at 10:00 (the owner called).")
    assert not paren_field_ref("Nina Johnson, Incoming inspection team (Norvik Medical Devices)")


def test_the_figures_on_a_small_store():
    tasks = [task(1, "Hi, cancel the appointment for Luna (weight kg 4.2).", ["appointment_search", "appointment_cancel"]),
             task(2, "Hi, cancel the appointment for Oscar please.", ["appointment_search", "appointment_cancel"]),
             task(3, "Who is the owner of the pet Pepper, please?", ["pet_search"], question=True),
             task(4, "Which vet sees the rabbit Willow on Friday?", ["pet_search", "appointment_search"], question=True),
             task(5, "Book, check in and finish ten visits.", ["pet_search"] + ["appointment_book"] * 9)]
    figures = realism(tasks)
    assert figures["paren_field_ref_share"] == 0.2
    assert figures["redundant_share"] == 0.2  # task 2 repeats task 1: same tools, same check shape
    assert figures["max_family_share"] == 0.4  # (read, answer) twice and (read, transition) twice: 2 of 5
    assert figures["one_search_question_share"] == 0.5  # task 3 of the two questions
    assert figures["long_task_share"] == 0.2  # task 5: ten calls besides finish
    assert figures["distinct_open5_share"] == 0.8  # tasks 1 and 2 open with the same five words
    assert figures["top20_5gram_coverage"] == 1.0  # the five tasks hold 20 distinct 5-grams in all
