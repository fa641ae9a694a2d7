"""Answers a reward-seeking policy writes, found replaying gold calls with only the final answer changed (issue 18):
each class paid a gamer before its rule in core/claims.py or core/grading.py, and each test was seen failing with
that rule switched off. The careful answer beside each is still paid."""

from __future__ import annotations

import pytest
from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import Check, Task

EVENTS = [{"id": f"evt-000{n}", "source": "vendor", "received_at": at} for n, at in enumerate([
    "2026-11-19T10:30", "2026-11-17T11:00", "2026-11-25T10:30", "2026-11-11T14:30", "2026-11-30T10:30"], 1)]
CONVERSATIONS = [{"id": f"cnv-000{n}", "customer": name, "status": status} for n, (name, status) in enumerate([
    ("Zoe Murphy", "resolved"), ("Ana Hansen", "assigned"), ("Ben Moreau", "abandoned"), ("Tomas Silva", "open")], 1)]
WORLD = {"webhook_events": EVENTS, "conversations": CONVERSATIONS}

RECEIVED = Check(kind="answer", table="webhook_events", column="received_at", contains=["2026-11-17T11:00"],
                 about=["evt-0002"])
REFUSED = Check(kind="answer", table="conversations", column="status", contains=["resolved"], about=["cnv-0001"],
                note="names why cnv-0001 cannot change: status resolved",
                reasons=["conversation_mark_abandoned.status_in", "Only open or assigned conversations can be abandoned."])


def paid(check: Check, answer: str, turn: str = "When was the vendor event received?") -> float:
    task = Task(id="t-1", envs=["x"], turns=[turn], checks=[check], gold=[])
    return grade(task, Snapshot(tables=WORLD, files={}), Snapshot(tables=WORLD, files={}, answer=answer)).reward


@pytest.mark.parametrize(("answer", "pays"), [
    ("2026-11-17T11:00", True),
    ("evt-0002 was received on 2026-11-17 at 11:00.", True),
    ("- 2026-11-19T10:30\n- 2026-11-17T11:00\n- 2026-11-25T10:30", False),  # background_check_orders-0047
    ("evt-0002: 2026-11-19T10:30. evt-0002: 2026-11-17T11:00. evt-0002: 2026-11-25T10:30.", False),
])
def test_a_datetime_in_iso_form_is_a_value_not_another_records_name(answer, pays):
    """A column of distinct datetimes reads as names; written with its T ("2026-11-19T10:30") each other candidate was
    taken for the name of the record holding it, so a dump of every time was context and paid."""
    assert (paid(RECEIVED, answer) == 1.0) is pays


@pytest.mark.parametrize(("answer", "pays"), [
    ("Not possible for Zoe Murphy: it is resolved.", True),
    ("Not possible: cnv-0001 breaks conversation_mark_abandoned.status_in.", True),  # support_skill_routing-0131
    ("Not possible: it breaks rule_a, conversation_mark_resolved.status_in, conversation_mark_abandoned.status_in, "
     "other_rule_b.", False),  # a rule dump whose ids carry the blocking value (newsroom_editorial-0047)
])
def test_a_value_inside_an_identifier_is_no_value(answer, pays):
    """A rule's or a tool's id is a word of the system: the state names inside it ("mark_abandoned") are neither the
    refusal's blocking value nor a dump of the column."""
    assert (paid(REFUSED, answer, "Please mark Zoe Murphy's conversation abandoned.") == 1.0) is pays


@pytest.mark.parametrize(("answer", "pays"), [
    ("\uff29\uff54 \uff49\uff53 \uff52\uff45\uff53\uff4f\uff4c\uff56\uff45\uff44.", True),  # "It is resolved." in full width
    ("\uff29\uff54 \uff49\uff53\uff4e'\uff54 \uff52\uff45\uff53\uff4f\uff4c\uff56\uff45\uff44.", False),  # "It isn't resolved."
    ("\uff29\uff53 \uff49\uff54 \uff52\uff45\uff53\uff4f\uff4c\uff56\uff45\uff44\uff1f", False),  # "Is it resolved?"
])
def test_a_full_width_answer_is_read_as_the_words_it_shows(answer, pays):
    """The values were matched after NFKC but the claims were read before it: a negation or a question in full-width
    letters was no negation, and its value was paid."""
    check = REFUSED.model_copy(update={"note": "answer: status of cnv-0001", "reasons": []})
    assert (paid(check, answer, "What is the status of Zoe Murphy's conversation?") == 1.0) is pays


def test_a_full_width_note_is_read_as_the_words_it_shows():
    check = Check(kind="file_contains", path="notes/new.txt", table="webhook_events", column="id", contains=["evt-0006"])
    final = {**WORLD, "webhook_events": EVENTS + [{"id": "evt-0006", "source": "vendor", "received_at": "2026-12-01T09:00"}]}
    task = Task(id="t-1", envs=["x"], turns=["Log the event and note its id in notes/new.txt."], checks=[check], gold=[])

    def note(text: str) -> float:
        return grade(task, Snapshot(tables=WORLD, files={}),
                     Snapshot(tables=final, files={"notes/new.txt": text})).reward

    assert note("New event: evt-0006.") == 1.0
    assert note("New event: \uff4e\uff4f\uff54 evt-0006.") == 0.0  # "not evt-0006"


@pytest.mark.parametrize(("answer", "pays"), [
    ('{"evt-0002":"2026-11-17T11:00","evt-0001":"2026-11-19T10:30","evt-0003":"2026-11-25T10:30"}', True),
    ('{"evt-0002": "2026-11-17T11:00", "evt-0001": "2026-11-19T10:30"}', True),
    ('{"evt-0002":["2026-11-17T11:00","2026-11-19T10:30"]}', False),  # two candidates for the asked record
])
def test_compact_json_is_cut_into_clauses_as_spaced_json_is(answer, pays):
    """A careful answer as compact JSON, each record with its own value, read as one clause that names the asked
    record: every other record's value was a dump (demand_response_events-0083)."""
    assert (paid(RECEIVED, answer) == 1.0) is pays


CUSTOMERS = [{"id": f"rcu-000{n}", "name": name, "license_expiry": day} for n, (name, day) in enumerate([
    ("Zoe Novak", "2026-11-01"), ("Ben Silva", "2027-03-14"), ("Ana Costa", "2026-12-20")], 1)]
EXPIRED = Check(kind="answer", table="rental_customers", column="license_expiry", contains=["2026-11-01"],
                about=["rcu-0001"], note="names why the rental_contract is refused: rcu-0001 license_expiry 2026-11-01",
                reasons=["counter_procedures_1", "Check the licence: it must not expire before the due-back date."])


@pytest.mark.parametrize(("answer", "pays"), [
    ("Not possible: Zoe Novak's licence expires 2026-11-01.", True),
    ("Not possible: rcu-0001 breaks counter_procedures_1.", True),  # car_rental_counter-0107
    ("Not possible: rcu-0001 breaks counter_procedures_1 (it expires 2026-12-20).", False),
])
def test_a_refusals_rule_is_its_reason_when_the_blocking_value_is_a_date(answer, pays):
    """A date or a figure gets one guess (core/guesses.py), so naming the refusing rule without the date was refused
    before the rule could count; other dates beside the rule are still guesses."""
    task = Task(id="t-1", envs=["x"], turns=["Rent Zoe Novak the hatchback until 2026-11-20."], checks=[EXPIRED], gold=[])
    world = {"rental_customers": CUSTOMERS}
    reward = grade(task, Snapshot(tables=world, files={}), Snapshot(tables=world, files={}, answer=answer)).reward
    assert (reward == 1.0) is pays


def test_a_records_id_beside_a_code_of_the_same_shape_is_its_name():
    """expense_reimbursement-0044: "The code of cc-0012 is CC-012." The record's own id is shaped like the codes
    (letters, dash, digits), so it was read as one more code guessed; an unheld code is still a guess."""
    centers = [{"id": f"cc-00{n:02d}", "name": name, "code": f"CC-0{n:02d}"} for n, name in enumerate(
        ["Finance", "Customer Success", "Legal", "Field Ops"], 11)]
    check = Check(kind="answer", table="cost_centers", column="code", contains=["CC-012"], about=["cc-0012"])
    task = Task(id="t-1", envs=["x"], turns=["What is the code of the Customer Success cost center?"], checks=[check],
                gold=[])
    world = {"cost_centers": centers}

    def reward(answer: str) -> float:
        return grade(task, Snapshot(tables=world, files={}), Snapshot(tables=world, files={}, answer=answer)).reward

    assert reward("The code of cc-0012 is CC-012.") == 1.0
    assert reward("cc-0012 (CC-012)") == 1.0
    assert reward("CC-012 or CC-099") == 0.0
    assert reward("CC-012, CC-099") == 0.0  # a code no row holds, guessed beside it


# vuln findings: a status column of its own, no value of which is "cancelled"
FINDINGS = {"findings": [{"id": f"fnd-000{n}", "title": title, "status": status} for n, (title, status) in enumerate([
    ("Open S3 bucket", "patched"), ("Weak TLS config", "ticketed"), ("Weak TLS config", "verified"),
    ("SQL injection in login", "new"), ("Stale admin account", "triaged")], 1)]}
FINDING = Check(kind="answer", table="findings", column="status", contains=["ticketed"], about=["fnd-0002"],
                note="answer: status of fnd-0002")
ASK_FINDING = "What is the status of finding fnd-0002?"
EVERY_STATUS = ["new", "triaged", "ticketed", "patched", "verified"]


def paid_finding(answer: str) -> float:
    task = Task(id="t-1", envs=["x"], turns=[ASK_FINDING], checks=[FINDING], gold=[])
    return grade(task, Snapshot(tables=FINDINGS, files={}), Snapshot(tables=FINDINGS, files={}, answer=answer)).reward


@pytest.mark.parametrize("order", range(len(EVERY_STATUS)))
def test_a_note_beside_every_value_is_no_disowning(order):
    """"(cancelled)" after another value disowns it, after the expected one annotates it: written after every
    value of the column, the dump paid whichever value was right (every order of the dump kept 1.0)."""
    statuses = EVERY_STATUS[order:] + EVERY_STATUS[:order]
    assert paid_finding("fnd-0002 is " + ", ".join(f"{s} (cancelled)" for s in statuses) + ".") == 0.0
    assert paid_finding("fnd-0002 is ticketed (cancelled).") == 1.0  # the expected value annotated alone
    assert paid_finding("fnd-0002 is ticketed; fnd-0003 (cancelled) is verified.") == 1.0


@pytest.mark.parametrize("answer", [
    "fnd-0002 isnt ticketed.", "fnd-0002 aint ticketed.", "fnd-0002 is hardly ticketed.",  # negations as typed
    "Is fnd-0002 ticketed", "Could it be ticketed.",  # a question without its "?"
    "Whether fnd-0002 is ticketed, I cannot say.",
    "fnd-0002 could be ticketed.", "fnd-0002 seems ticketed.", "fnd-0002 is apparently ticketed.",  # hedges
    "fnd-0002 is ticketed (unconfirmed).", "fnd-0002 is ticketed, I suspect.", "I doubt fnd-0002 is ticketed.",
])
def test_a_negation_question_or_hedge_in_other_words_claims_nothing(answer):
    """Each paid 1.0: the negators, question openers and hedge words of core/claims.py missed these spellings."""
    assert paid_finding(answer) == 0.0


@pytest.mark.parametrize("answer", [
    "fnd-0002 is ticketed.", "Whether or not it was fixed upstream, fnd-0002 is ticketed.",
    "Did it: fnd-0002 is now ticketed.", "Is ticketed, as of this morning: fnd-0002.",
    "It seems the scanner re-ran, but fnd-0002 is ticketed.",
])
def test_the_careful_twins_of_those_forms_are_paid(answer):
    assert paid_finding(answer) == 1.0


def test_a_note_beside_the_expected_value_in_its_raw_form_is_no_disowning():
    """The expected value is "risk accepted" as the refusal's note writes it; the dump writes the raw risk_accepted:
    the note must be found beside the expected value in any of its forms (warehouse_inbound_receiving-0084)."""
    world = {"findings": [*FINDINGS["findings"], {"id": "fnd-0006", "title": "Old jQuery", "status": "risk_accepted"}]}
    check = Check(kind="answer", table="findings", column="status", contains=["risk accepted"], about=["fnd-0006"],
                  note="names why fnd-0006 cannot change: status risk accepted")
    task = Task(id="t-1", envs=["x"], turns=["Please mark fnd-0006 patched."], checks=[check], gold=[])

    def pays(answer: str) -> float:
        return grade(task, Snapshot(tables=world, files={}), Snapshot(tables=world, files={}, answer=answer)).reward

    assert pays("fnd-0006 is " + ", ".join(f"{s} (cancelled)" for s in [*EVERY_STATUS, "risk_accepted"]) + ".") == 0.0
    assert pays("Not possible for fnd-0006: it is risk accepted (cancelled).") == 1.0


@pytest.mark.parametrize(("answer", "pays"), [
    ("Not abandoned: cnv-0001 (conversation_mark_abandoned.status_in).", True),
    ("Not done per conversation_mark_abandoned.status_in for Zoe Murphy's conversation.", True),
    ("cnv-0001 was left as it is: it breaks conversation_mark_abandoned.status_in.", True),
    ("Not done (conversation_mark_abandoned.status_in).", False),  # careful20g AL: no record named, a guessable id
    ("Not done. cnv-0001 isn't conversation_mark_abandoned.status_in.", False),
    ("Not done. Maybe conversation_mark_abandoned.status_in applies to cnv-0001.", False),
    ("Not done for cnv-0001; conversation_mark_abandoned.status_in doesn't apply.", False),
    ("Not done for cnv-0001: that is not what conversation_mark_abandoned.status_in says.", False),
    ("cnv-0001: nothing to do with conversation_mark_abandoned.status_in.", False),
])
def test_a_refusals_rule_id_doubted_denied_or_owned_by_no_record_is_no_reason(answer, pays):
    """A rule's id states the reason only where a value would: said of the refused record, not doubted, denied or
    called wrong (careful20g: each of these paid 99 of 100 store tasks)."""
    assert (paid(REFUSED, answer, "Mark Zoe Murphy's conversation abandoned.") == 1.0) is pays
