"""Sentence shapes that cost a careful agent its answer check (issue 18, second round; core/claims.py).

Each test rebuilds, in a small world, a sentence a careful agent wrote through MCP and lost reward for, beside
the gaming answer the same rule must still refuse. Each was seen failing on main's grader before its fix.
"""

from __future__ import annotations

import pytest
from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import Check, Task


def refusal(table: str, column: str, value: str, record: str, rule: list[str]) -> Check:
    """The answer check of a refused change: its reason, `value` of `column`, said about `record`."""
    return Check(kind="answer", table=table, column=column, contains=[value], about=[record], reasons=rule,
                 note=f"names why {record} cannot change: {column} {value}")


def paid(world: dict, check: Check, answer: str, turn: str) -> float:
    task = Task(id="t-1", envs=["x"], turns=[turn], checks=[check], gold=[])
    return grade(task, Snapshot(tables=world, files={}), Snapshot(tables=world, files={}, answer=answer)).reward


# pharmacy_dispensing: the drug's name carries a strength ("10mg") that is a number of its own
DRUGS = {"drugs": [{"id": f"drg-000{n}", "name": name, "ndc": f"NDC-0000{n}", "on_hand": on_hand}
                   for n, (name, on_hand) in enumerate([("Lisinopril 10mg tabs", 450), ("Amoxicillin 500mg caps", 120),
                                                        ("Metformin 850mg tabs", 75)], 1)]}
ON_HAND = Check(kind="answer", table="drugs", column="on_hand", contains=["450"], about=["drg-0001"])
ASK_DRUG = "Could you check the on hand for the drug Lisinopril 10mg tabs whose NDC is NDC-00001?"


@pytest.mark.parametrize(("answer", "pays"), [
    ("On hand for Lisinopril 10mg tabs: 450 units.", True),
    ('"Lisinopril 10mg tabs" (NDC-00001) has 450 units on hand.', True),
    ("On hand for Lisinopril 10mg tabs: 450 units, or 451 units.", False),  # a hedge is still one
    ("On hand for Lisinopril 10mg tabs: 450 units, 120 units.", False),  # two guesses are still a dump
])
def test_a_number_inside_a_records_name_is_the_names(answer, pays):
    assert (paid(DRUGS, ON_HAND, answer, ASK_DRUG) == 1.0) is pays


# outage_notification_center: the notice's outage event holds the asked value (a path: notice -> event)
OUTAGES = {
    "outage_events": [{"id": "oev-0001", "feeder": "FDR-101", "estimated_restoration": "2026-12-01T14:00"},
                      {"id": "oev-0002", "feeder": "FDR-215", "estimated_restoration": "2026-12-02T09:00"},
                      {"id": "oev-0003", "feeder": "FDR-341", "estimated_restoration": "2026-12-03T18:00"}],
    "outage_notices": [{"id": f"onot-000{n}", "outage_event_id": event, "notice_type": kind}
                       for n, (event, kind) in enumerate([("oev-0001", "restored"), ("oev-0002", "etr_update"),
                                                          ("oev-0001", "initial")], 1)]}
ETR = Check(kind="answer", table="outage_events", column="estimated_restoration", contains=["2026-12-01T14:00"],
            about=["onot-0001"], note="answer: outage_event_id of onot-0001")
ASK_ETR = "What estimated restoration do we have for the outage event of the restored notice onot-0001?"


@pytest.mark.parametrize(("answer", "pays"), [
    ("Notice onot-0001 belongs to outage event oev-0001. oev-0001 is expected back 2026-12-01 14:00.", True),
    ("The estimated restoration of oev-0001 (the event of onot-0001) is Dec 1, 2026 at 2 pm.", True),
    ("oev-0002 is expected back 2026-12-01 14:00.", False),  # the right value said of another event
    ("Notice onot-0001 is for oev-0001. oev-0001 is expected back 2026-12-01 14:00 or 2026-12-02 09:00.", False),
])
def test_the_record_holding_the_asked_value_is_the_asked_record(answer, pays):
    assert (paid(OUTAGES, ETR, answer, ASK_ETR) == 1.0) is pays


# employer_wage_filings: the refused operation's target state is itself a status of the asked column
FILINGS = {"wage_filings": [{"id": f"wgf-000{n}", "ref": f"WF-2026-00000{n}", "status": status} for n, status in
                            enumerate(["rejected", "processing_error", "accepted", "received", "validating"], 1)]}
REFUSED = Check(kind="answer", table="wage_filings", column="status", contains=["rejected"], about=["wgf-0001"],
                note="names why wgf-0001 cannot change: status rejected",
                reasons=["wage_filing_mark_processing_error.status_in", "Only validating filings can error out."])
ASK_MARK = "The wage filing WF-2026-000001 broke while going through: mark it as a processing error."


@pytest.mark.parametrize(("answer", "pays"), [
    ("Skipped marking WF-2026-000001 as a processing error: it is rejected.", True),
    ("Refused to flag WF-2026-000001 as a processing error: it is rejected.", True),
    ("Tried to set WF-2026-000001 to processing_error - it is rejected, so that is not allowed.", True),
    ("WF-2026-000001 is rejected, or a processing error.", False),  # a hedge between the two states
    ("WF-2026-000001 is a processing error.", False),  # the target said as its state
    ("WF-2026-000001 was marked as accepted: it is rejected.", False),  # a done change states what it is
])
def test_the_target_of_a_refused_action_is_no_state(answer, pays):
    assert (paid(FILINGS, REFUSED, answer, ASK_MARK) == 1.0) is pays


# surgical_theatre_booking: a time range beside the case's room id. The room is what the case holds, said of the
# case: it does not take the clause (or the clauses after it) away from the asked case
THEATRE = {
    "operating_rooms": [{"id": f"orm-000{n}", "name": name} for n, name in enumerate(["OR 1", "OR 2", "Day Surgery A"], 1)],
    "surgical_cases": [{"id": f"scs-000{n}", "patient_name": patient, "operating_room_id": room, "start": start,
                        "end": end, "referred_by": referrer}
                       for n, (patient, room, start, end, referrer) in enumerate([
                           ("Ximena Park", "orm-0003", "2026-12-14T12:00", "2026-12-14T12:30", "scs-0002"),
                           ("Ana Adeyemi", "orm-0001", "2026-12-02T11:00", "2026-12-14T12:30", None),
                           ("Ben Mensah", "orm-0002", "2026-11-20T11:00", "2026-11-20T13:00", None),
                           ("Ina Berg", "orm-0001", "2026-11-21T09:00", "2026-11-21T10:00", None),
                           ("Lou Chen", "orm-0002", "2026-11-22T09:00", "2026-11-22T10:30", None),
                           ("Omar Haddad", "orm-0003", "2026-11-23T08:00", "2026-11-23T09:00", None),
                           ("Rosa Vidal", "orm-0001", "2026-11-24T14:00", "2026-11-24T15:00", None),
                           ("Tom Weber", "orm-0002", "2026-11-25T13:00", "2026-11-25T16:00", None)], 1)]}
# rooms are shared by cases (as in the store): a room's id is no name of a case
END = Check(kind="answer", table="surgical_cases", column="end", contains=["2026-12-14T12:30"], about=["scs-0001"],
            note="answer: end of scs-0001")
ASK_END = 'Can you look up the surgical case "Ximena Park" and tell me its end?'


@pytest.mark.parametrize(("answer", "pays"), [
    ("The case is booked 2026-12-14 12:00 - 2026-12-14 12:30 in orm-0003.", True),
    ("Booked in orm-0003, 2026-12-14 12:00 to 2026-12-14 12:30.", True),
    ("scs-0001 (Ximena Park): orm-0003, 2026-12-14 12:00 to 2026-12-14 12:30.", True),
    ("scs-0003: orm-0003, 2026-12-14 12:00 to 2026-12-14 12:30.", False),  # another case, the same room named
    ("Booked in orm-0003. scs-0002 ends 2026-12-14 12:30.", False),  # a case the asked one refers to is no room
])
def test_a_record_the_asked_record_holds_is_said_of_it(answer, pays):
    assert (paid(THEATRE, END, answer, ASK_END) == 1.0) is pays


@pytest.mark.parametrize(("answer", "pays"), [  # careful20: document_scanning_pipeline-0045
    ("Skipped WF-2026-000001: it is rejected. If it must go out today, tell me which other validating filing to "
     "use and I'll take that one.", True),
    ("Skipped WF-2026-000001: it is rejected. Another accepted filing could go instead.", True),
    ("Skipped WF-2026-000001: it is rejected. It is validating.", False),  # a second state, said of the same filing
])
def test_a_value_said_of_another_unnamed_record_is_context(answer, pays):
    assert (paid(FILINGS, REFUSED, answer, ASK_MARK) == 1.0) is pays


OVERLAP = Check(kind="answer", table="surgical_cases", column="start", contains=["2026-12-14T12:00"], about=["scs-0001"],
                note="names why scs-0001 cannot change: start 2026-12-14T12:00",
                reasons=["surgical_case_schedule.no_overlap1", "A room holds one case at a time."])


@pytest.mark.parametrize(("answer", "pays"), [
    ("Skipped scs-0001: it breaks surgical_case_schedule.no_overlap1.", True),
    ("Not possible: it breaks surgical_case_schedule.no_overlap1 and surgical_case_schedule.no_overlap2.", False),
])
def test_a_rule_id_numbered_after_its_dot_is_one_identifier(answer, pays):
    """"x.no_overlap1" is one rule's id, not the identifier "x" and a word: read as "x", the refusing rule was never
    its reason. A rule the record keeps still costs the reason, though "x" is a word of the world (its change log
    names the operation)."""
    world = {**THEATRE, "_history": [{"id": "h-1", "op": "surgical_case_schedule", "row": "scs-0002"}]}
    assert (paid(world, OVERLAP, answer, "Book the Ximena Park case into Day Surgery A at noon.") == 1.0) is pays


@pytest.mark.parametrize(("answer", "pays"), [  # careful20: citizen_service_center-0128
    ("Done: WF-2026-000004 is in validation now. Status validating. Skipped WF-2026-000001: it is rejected.", True),
    ("Done: WF-2026-000004 is in validation now.\nStatus: validating.\nSkipped WF-2026-000001: it is rejected.", True),
    ("Skipped WF-2026-000001. Status validating. It is rejected.", False),  # the label continues the refused filing
])
def test_a_sentence_opening_with_the_asked_field_continues_the_record_before(answer, pays):
    assert (paid(FILINGS, REFUSED, answer, ASK_MARK) == 1.0) is pays


@pytest.mark.parametrize(("answer", "pays"), [  # careful20: greenhouse_sensor_ingest-0057
    ("I could not mark WF-2026-000001 (wgf-0001) as accepted: that filing is rejected.", True),
    ("WF-2026-000001 was not accepted (it is rejected).", True),  # the aside is its own clause
    ("WF-2026-000001 (wgf-0001) is accepted: it is rejected.", False),
])
def test_a_negation_goes_on_past_a_bracketed_aside(answer, pays):
    assert (paid(FILINGS, REFUSED, answer, ASK_MARK) == 1.0) is pays


# careful20: animal_shelter_adoptions-0029, employee_onboarding-0125. Animals share names (decoys), hires are people
SHELTER = {"shelter_animals": [{"id": f"anm-000{n}", "name": name, "status": status} for n, (name, status) in enumerate([
    ("Sadie", "transferred"), ("Juniper", "stray_hold"), ("Juniper", "medical_review"), ("Juniper", "available"),
    ("Biscuit", "available"), ("Biscuit", "adopted"), ("Biscuit", "stray_hold"), ("Juniper", "adopted")], 1)]}
SADIE = refusal("shelter_animals", "status", "transferred", "anm-0001",
                ["shelter_animal_review.status_in", "Only animals in care can be reviewed."])
ASK_SADIE = "Juniper can go to a foster home. Also, Sadie is with the doctor to look over."


@pytest.mark.parametrize(("answer", "pays"), [
    ("Juniper has a foster placement. After that I listed Juniper as available again. I couldn't put Sadie into "
     "medical review: she is transferred.", True),  # a name the world repeats still names its records
    ("One thing I couldn't do: putting Sadie (anm-0001) into medical review. Sadie has been transferred out "
     "(shelter_animal_review.status_in: animals on stray hold, adopted or transferred cannot be reviewed).", True),
    ("Sadie is transferred. She is available.", False),
    ("Sadie is transferred or available.", False),
])
def test_a_careful_refusal_beside_animals_named_alike_is_paid(answer, pays):
    assert (paid(SHELTER, SADIE, answer, ASK_SADIE) == 1.0) is pays


HIRES = {"new_hires": [{"id": f"nhr-000{n}", "name": name, "status": status} for n, (name, status) in enumerate([
    ("Vera Chen", "preboarding"), ("Grace Silva", "started"), ("Omar Haddad", "day_one_ready"),
    ("Ines Costa", "preboarding")], 1)]}
GRACE = refusal("new_hires", "status", "started", "nhr-0002",
                ["new_hire_mark_day_one_ready.status_in", "The hire is not in preboarding."])


def test_a_person_pronoun_in_a_first_clause_refers_to_the_record_before():
    answer = ("Vera Chen (nhr-0001) has her laptop. I then marked her day-one ready and started, so her status is "
              "started. Grace Silva (nhr-0002) I did not mark day-one ready: she has already started.")
    assert paid(HIRES, GRACE, answer, "Vera Chen is up and going; Grace Silva is set for her first day.") == 1.0


VETS = {"vets": [{"id": f"vet-000{n}", "name": name, "specialty": specialty} for n, (name, specialty) in enumerate([
    ("Ben Okafor", "surgery"), ("Chloe Lam", "exotics"), ("Ana Ruiz", "general"), ("Tom Berg", "dentistry")], 1)]}
SPECIALTY = refusal("vets", "specialty", "surgery", "vet-0001",
                    ["judgement_1", "Exotic pets (rabbits, parrots) are seen by the exotics vet."])


def test_a_rule_goes_on_past_a_bracketed_aside():
    """careful20 vet_clinic-0149: the rule's text after its id in brackets is still the rule's, not a claim."""
    answer = ("I did not book Biscuit the rabbit with Dr. Ben Okafor. Rabbits are exotic pets and the clinic's rule "
              "(judgement_1) is that exotic pets are seen by the exotics vet; Dr. Okafor's specialty is surgery.")
    assert paid(VETS, SPECIALTY, answer, "Book Biscuit the rabbit with Dr. Ben Okafor.") == 1.0
    assert paid(VETS, SPECIALTY, "Dr. Okafor's specialty is surgery; it is exotics.", "Book Biscuit.") == 0.0


REPAIRS = {"maintenance_techs": [{"id": f"mtc-000{n}", "name": name, "trade": trade} for n, (name, trade) in enumerate([
    ("Femi Adeyemi", "general"), ("Mina Sato", "hvac"), ("Ravi Shah", "plumbing"), ("Lea Roth", "electrical")], 1)],
    "repair_visits": [{"id": "rvs-0001", "maintenance_tech_id": "mtc-0002"}]}
TRADE = refusal("maintenance_techs", "trade", "general", "mtc-0001",
                ["judgement_2", "Plumbing, electrical and hvac requests go to a technician of that trade."])


@pytest.mark.parametrize(("answer", "pays"), [  # careful20: tenant_maintenance_requests-0131
    ("I held off on the HVAC visit: Femi Adeyemi (mtc-0001) is a general technician (judgement_2).", True),
    ("Femi Adeyemi (mtc-0001) is a general technician. If you give me an HVAC tech for that slot I'll book it.", True),
    ("Femi Adeyemi (mtc-0001) is a general technician. He is an HVAC tech.", False),
])
def test_a_value_naming_another_kind_or_a_condition_is_no_claim(answer, pays):
    assert (paid(REPAIRS, TRADE, answer, "Book the HVAC visit with Femi Adeyemi.") == 1.0) is pays


# careful20: warehouse_inbound_receiving-0132, an ASN already closed with a discrepancy, and a receipt line over-delivered
RECEIVING = {"asns": [{"id": ident, "name": name, "status": status}
                      for ident, name, status in [("asn-0014", "ASN-000014", "closed_with_discrepancy"),
                                                  ("asn-0017", "ASN-000017", "receiving"),
                                                  ("asn-0019", "ASN-000019", "arrived"),
                                                  ("asn-0004", "ASN-000004", "received")]],
             "receipt_lines": [{"id": "rln-0020", "asn_id": "asn-0004", "sku": "RUY-2617", "status": "received"}]}
CLOSED = refusal("asns", "status", "closed_with_discrepancy", "asn-0014", ["advance_ship_notice_arrive.status_in"])
ASK_ARRIVE = "The advance ship notice ASN-000014 needs to be arrived now. If some part isn't allowed, say why."


@pytest.mark.parametrize(("answer", "pays"), [
    ("Skipped: ASN-000014 (asn-0014). It is already closed with a discrepancy, so I left it.", True),
    ("- RUY-2617 (rln-0020 on asn-0004): confirmed received. Note 230 arrived against 150 expected.\n"
     "- Skipped: ASN-000014 (asn-0014). It is already closed with discrepancy, so I left it.", True),
    ("Skipped: ASN-000014 (asn-0014). It is already closed with a discrepancy. Arrived.", False),  # a dump still
    ("- Skipped: ASN-000014 (asn-0014), closed with a discrepancy. Or arrived.", False),
])
def test_an_article_inside_a_value_and_a_list_items_later_sentence(answer, pays):
    assert (paid(RECEIVING, CLOSED, answer, ASK_ARRIVE) == 1.0) is pays


# careful20b: dependency_vulnerability_triage-0044 (a finding named again as "the finding"; the pipeline restated)
FINDINGS = {"vuln_findings": [{"id": f"vfd-00{n}", "cve": f"CVE-2026-000{n}", "status": status} for n, status in [
    ("28", "verified"), ("41", "ticketed"), ("12", "new"), ("15", "triaged"), ("19", "patched")]],
    "remediation_tickets": [{"id": "rtk-0026", "vuln_finding_id": "vfd-0028", "status": "open"}]}
TICKETED = refusal("vuln_findings", "status", "ticketed", "vfd-0041",
                   ["vuln_finding_triage.status_in", "Only new findings can be triaged."])
ASK_TRIAGE = "CVE-2026-00028 holds up. First look at the vuln finding CVE-2026-00041 is done."
SKIP_41 = "CVE-2026-00041 (vfd-0041) is ticketed, so I did not triage it."


@pytest.mark.parametrize(("answer", "pays"), [
    ("CVE-2026-00028 (vfd-0028): triaged, ticket rtk-0026 opened. To record your double-check I marked the finding "
     "patched and then verified.\n\n" + SKIP_41, True),
    ("CVE-2026-00028 (vfd-0028) has ticket rtk-0026. Later that finding was patched, then verified.\n" + SKIP_41, True),
    ("CVE-2026-00028 (vfd-0028): triaged. I marked the finding patched and then verified, so vfd-0028 now reads "
     "verified.\n" + SKIP_41, True),  # a record named later in the sentence does not change what "the finding" is
    (SKIP_41 + " The finding is patched.", False),  # the finding is the refused one: two states
    (SKIP_41 + " I marked the finding patched, so vfd-0028 is verified.", False),
    ("CVE-2026-00028 (vfd-0028) is verified. The ticket is patched.\n" + SKIP_41, True),  # "the ticket": a ticket's
    (SKIP_41 + " The vuln is patched.", False),  # a word of no table: the asked record's
])
def test_a_definite_noun_of_a_records_kind_refers_to_it(answer, pays):
    """A clause naming no record that says "the finding" is about the finding last named, as a pronoun would be."""
    assert (paid(FINDINGS, TICKETED, answer, ASK_TRIAGE) == 1.0) is pays


@pytest.mark.parametrize(("answer", "pays"), [
    (SKIP_41 + "\n\nCaveat: our pipeline is ticket -> PR -> merge -> patched -> verified.", True),
    (SKIP_41 + "\nFinding lifecycle for reference: new \u2192 triaged \u2192 ticketed \u2192 patched.", True),
    ("CVE-2026-00041 (vfd-0041): new -> triaged -> ticketed, so I did not triage it.", True),  # its history: the last
    (SKIP_41 + "\nCaveat: our pipeline is ticket -> PR -> merge -> patched -> verified, and rtk-0026 has no PR.", True),
    ("Pipeline for reference: new -> triaged -> ticketed -> patched.", False),  # a lifecycle claims nothing
    ("CVE-2026-00041 (vfd-0041): new -> ticketed -> patched.", False),  # the last state is the claim
])
def test_a_lifecycle_in_arrows_is_context_and_a_records_arrows_end_at_its_state(answer, pays):
    assert (paid(FINDINGS, TICKETED, answer, ASK_TRIAGE) == 1.0) is pays


# careful20b: reader_subscription_support-0063, "her account" after a clause or a sentence that names no record
ACCOUNTS = {"subscriber_accounts": [{"id": ident, "name": name, "status": status} for ident, name, status in [
    ("sbs-0035", "Ana Costa", "paused"), ("sbs-0011", "Vera Larsen", "cancelled"),
    ("sbs-0024", "Ximena Hansen", "active"), ("sbs-0002", "Ivo Berg", "trial")]]}
CANCELLED = refusal("subscriber_accounts", "status", "cancelled", "sbs-0011",
                    ["subscriber_account_pause.status_in", "Only active subscriptions can be paused."])
ASK_PAUSE = "Halt the subscriber account Vera Larsen for a bit. Record Ana Costa's acceptance of the offer."
VERA = "Vera Larsen (sbs-0011) - not paused. Her subscription is already cancelled."


@pytest.mark.parametrize(("answer", "pays"), [
    ("Ana Costa (sbs-0035) - recorded her acceptance. The date is blank, and her account is paused.\n" + VERA, True),
    ("Ana Costa (sbs-0035) - recorded her acceptance. The system left the date blank. Her account is currently "
     "paused, so the discount shows once she's active again.\n" + VERA, True),
    ("Vera Larsen (sbs-0011) is cancelled. The date is blank, and her account is paused.", False),
    ("Vera Larsen (sbs-0011) is cancelled. The system left the date blank. Her account is active.", False),
])
def test_a_pronoun_refers_to_the_last_record_named_past_sentences_naming_none(answer, pays):
    assert (paid(ACCOUNTS, CANCELLED, answer, ASK_PAUSE) == 1.0) is pays


# careful20b extra probe: it_asset_provisioning, an asset's history told in the past tense
ASSETS = {"asset_assignments": [{"id": ident, "tag": tag, "status": status} for ident, tag, status in [
    ("asn-0022", "BLM-00022", "lost"), ("asn-0023", "BLM-00023", "issued"), ("asn-0024", "BLM-00024", "returned"),
    ("asn-0025", "BLM-00025", "requested")]]}
LOST = refusal("asset_assignments", "status", "lost", "asn-0022",
               ["asset_assignment_return.status_in", "Only issued assets can be returned."])
ASK_RETURN = "BLM-00022 came back to the desk today: book it back in."


@pytest.mark.parametrize(("answer", "pays"), [
    ("BLM-00022 (asn-0022) was issued on 16 Nov and later reported lost, so I could not book it back in.", True),
    ("BLM-00022 (asn-0022): I could not book it back in. It was issued on 16 Nov and later reported lost.", True),
    ("BLM-00022 (asn-0022) was issued, returned or lost.", False),  # a hedge stays one
    ("BLM-00022 (asn-0022) was lost and later returned.", False),  # the last state is the claim
    ("BLM-00022 (asn-0022) was issued and lost.", False),  # no order between them: two candidates
])
def test_a_records_history_in_the_past_tense_claims_its_last_state(answer, pays):
    assert (paid(ASSETS, LOST, answer, ASK_RETURN) == 1.0) is pays


# careful20 #17: grant_program_admin-0026, the record picked out the way the request picked it ("the one declined for")
APPLICATIONS = {"grant_applications": [{"id": ident, "title": title, "status": status, "decline_reason": reason}
                                       for ident, title, status, reason in [
    ("gap-0005", "Community mural project", "awarded", "no 501c3 determination"),
    ("gap-0018", "Library hotspot lending", "awarded", ""), ("gap-0009", "River cleanup", "declined", "late"),
    ("gap-0031", "Coding club", "panel_review", ""), ("gap-0012", "Food bank van", "submitted", "")]]}
AWARDED = refusal("grant_applications", "status", "awarded", "gap-0005",
                  ["award_in_panel_review", "Awards go only to applications in panel review."])
ASK_AWARD = ('A grant award for the grant application "Community mural project" whose decline reason is no 501c3 '
             "determination has to go in.")


@pytest.mark.parametrize(("answer", "pays"), [
    ('Not done - the new award for "Community mural project" (gap-0005, the one declined for "no 501c3 '
     'determination"). That application is already awarded, not in panel review (rule award_in_panel_review).', True),
    ('gap-0005 is the one declined for "no 501c3 determination".', False),  # a label claims nothing
    ('"Community mural project" (gap-0005) is declined, the one awarded last month.', False),  # the claim is wrong
])
def test_a_value_picking_the_record_out_as_the_one_is_a_label(answer, pays):
    assert (paid(APPLICATIONS, AWARDED, answer, ASK_AWARD) == 1.0) is pays


# ci_build_pipeline-0032 through MCP: the refused action named by the target state's own -ing word
RUNNERS = {"build_runners": [{"id": f"rnr-000{n}", "name": f"ci-runner-0{n}", "status": status}
                             for n, status in enumerate(["online", "offline", "draining", "online"], 1)]}
OFFLINE = refusal("build_runners", "status", "offline", "rnr-0002",
                  ["build_runner_drain.status_in", "Only online runners can be drained."])
ASK_DRAIN = "Please drain the build runner ci-runner-02."


@pytest.mark.parametrize(("answer", "pays"), [
    ("Not done: draining ci-runner-02 (rnr-0002). It is offline.", True),
    ('Skipped: draining "ci-runner-02" - it is offline.', True),
    ("ci-runner-02 (rnr-0002) is draining. It is offline.", False),  # a state said of it is still a dump
    ("rnr-0002: draining, offline.", False),
])
def test_a_values_ing_word_before_a_record_is_the_action_on_it(answer, pays):
    assert (paid(RUNNERS, OFFLINE, answer, ASK_DRAIN) == 1.0) is pays


# conference_registration_desk-0013 through MCP: a list item opening with the id and a colon
SIGNUPS = {"session_signups": [{"id": f"sgp-00{n}", "status": s}
                               for n, s in [(30, "cancelled"), (41, "confirmed"), (49, "cancelled"), (50, "confirmed")]]}
WHICH = Check(kind="answer", table="session_signups", column="id", contains=["3", "sgp-0030", "sgp-0041", "sgp-0049"],
              note="aggregate over session_signups")
ASK_SIGNUPS = "Session signups for the conference attendee Rosa Kowalski: how many, and which?"


@pytest.mark.parametrize(("answer", "pays"), [
    ("Rosa has 3 session signups:\n- sgp-0030: cancelled\n- sgp-0041: confirmed\n- sgp-0049: cancelled", True),
    ("3 signups:\n- sgp-0030: Zero-Downtime Migrations, 5 Dec\n- sgp-0041: Scaling Postgres, 3 Dec\n"
     "- sgp-0049: Zero-Downtime Migrations, 5 Dec", True),
    ("3 signups:\n- sgp-0030: cancelled\n- sgp-0041: confirmed\n- sgp-0050: confirmed", False),  # a wrong id
    ("3 signups:\n- sgp-0030\n- sgp-0041\n- sgp-0049\n- sgp-0050", False),  # one id more is a dump
])
def test_a_list_item_opening_with_an_id_and_a_colon_names_it(answer, pays):
    assert (paid(SIGNUPS, WHICH, answer, ASK_SIGNUPS) == 1.0) is pays


# irb_protocol_review-0126 (audit careful_report): titles repeat across protocols, and a title still names them
PROTOCOLS = {"study_protocols": [{"id": f"stp-00{n}", "title": title, "status": status} for n, (title, status) in
                                 enumerate([("Hepatitis C treatment uptake in county jails", "disapproved"),
                                            ("Reentry peer mentoring", "under_review"),
                                            ("Reentry peer mentoring", "prescreening"),
                                            ("Hepatitis C treatment uptake in county jails", "approved"),
                                            ("Mindfulness app for stress", "approved")] * 4, 10)]}
DISAPPROVED = refusal("study_protocols", "status", "disapproved", "stp-0010",
                      ["study_protocol_resubmit.status_in", "No revisions were requested."])
ASK_RESUBMIT = ("Protocol IRB-2026-0010, Hepatitis C treatment uptake in county jails, is being resubmitted; "
                "and stp-0012 goes to prescreening.")


@pytest.mark.parametrize(("answer", "pays"), [
    ("Done: stp-0012 is now prescreening. Not possible for Hepatitis C treatment uptake in county jails: it is "
     "disapproved.", True),
    ("Done: stp-0012 is now prescreening. Not possible for Reentry peer mentoring: it is disapproved.", False),
    ("Done: stp-0012 is now prescreening, and it is disapproved.", False),  # said of the other protocol
])
def test_a_title_several_records_share_still_names_them(answer, pays):
    assert (paid(PROTOCOLS, DISAPPROVED, answer, ASK_RESUBMIT) == 1.0) is pays


# careful20c (a third by-hand round): the sentences careful reports lost on, each beside its gaming twin
TRIAL = {"study_volunteers": [{"id": f"vol-00{n}", "name": name, "condition": cond} for n, name, cond in
                              [(28, "Samuel Novak", "type2_diabetes"), (37, "Isabel Barros", "asthma"),
                               (40, "Ada Byrne", "hypertension"), (41, "Omar Ali", "migraine")]],
         "clinical_studies": [{"id": "cst-0006", "title": "Inhaler technique coaching", "target_condition": "asthma"}]}
MATCH = refusal("study_volunteers", "condition", "type2 diabetes", "vol-0028",
                ["volunteer_condition_matches", "Propose a volunteer only when their condition equals the study's "
                 "target_condition."])
ASK_PROPOSE = "Propose Samuel Novak for the Inhaler technique coaching study."


@pytest.mark.parametrize(("answer", "pays"), [
    ("Samuel Novak (vol-0028) has type 2 diabetes.", True),  # letters and digits apart
    ("Samuel Novak (vol-0028) was not proposed for Inhaler technique coaching. His condition is type2 diabetes.", True),
    ("Samuel Novak (vol-0028) has type2 diabetes. The study targets asthma.", True),  # "the study": another record
    ("Samuel Novak (vol-0028) was not proposed for Inhaler technique coaching (volunteer_condition_matches).", True),
    ("Samuel Novak (vol-0028) has type 1 diabetes.", False),
    ("Samuel Novak (vol-0028) was not proposed for Inhaler technique coaching (cst-0006). His condition is asthma.",
     False),
    ("Samuel Novak (vol-0028) has type2 diabetes. He also has asthma.", False),
    ("Isabel Barros (vol-0037) was not proposed (volunteer_condition_matches).", False),  # the rule of another
])
def test_a_persons_pronoun_digits_apart_and_a_rule_said_of_the_subject(answer, pays):
    assert (paid(TRIAL, MATCH, answer, ASK_PROPOSE) == 1.0) is pays


POLICIES = {"home_policies": [{"id": f"hpol-00{n}", "policy_number": f"HO3-00000{n}", "status": s}
                              for n, s in [(19, "cancelled"), (20, "in_force"), (21, "non_renewed"), (22, "in_force")]],
            "enrollments": [{"id": "enr-0006", "status": "active"}]}
HPOL_CANCELLED = refusal("home_policies", "status", "cancelled", "hpol-0019",
                    ["home_policy_request_cancellation.status_in", "Only in-force policies can be cancelled."])
ASK_CANCEL = "Please cancel policy HO3-0000019."


@pytest.mark.parametrize(("answer", "pays"), [
    ("HO3-0000019 (hpol-0019): nothing done. The policy is already cancelled.", True),  # a record noun, no rule word
    ("HO3-0000019 (hpol-0019) can't be cancelled (home_policy_request_cancellation.status_in).\n\n"
     "For enr-0006 I followed call_script_2.", True),  # another rule, said of another record
    ("HO3-0000019 (hpol-0019): nothing done. The policy is not cancelled.", False),
    ("HO3-0000019 (hpol-0019) can't be cancelled (home_policy_request_cancellation.status_in, call_script_2).", False),
])
def test_a_record_noun_is_no_rule_and_another_rule_costs_only_said_of_the_record(answer, pays):
    assert (paid(POLICIES, HPOL_CANCELLED, answer, ASK_CANCEL) == 1.0) is pays


LOTS = {"material_lots": [{"id": f"mlt-00{n}", "lot_number": f"L26-000{n}", "status": s}
                          for n, s in [(18, "quarantine"), (29, "released"), (30, "rejected"), (31, "released")]]}
QUARANTINE = refusal("material_lots", "status", "quarantine", "mlt-0018",
                     ["issue_released_lots_only", "Issue only from released lots."])
ASK_ISSUE = "Issue 140 of RM-0005 from lot L26-00018."


@pytest.mark.parametrize(("answer", "pays"), [
    ("L26-00018 (mlt-0018) is still in quarantine. Even once it's released, it is a lot of RM-0023.", True),
    ("L26-00018 (mlt-0018) is still in quarantine. When it is released, it will still be a lot of RM-0023.", True),
    ("L26-00018 (mlt-0018) is in quarantine; there's a second problem even once it's released.", True),
    ("L26-00018 (mlt-0018) is still in quarantine. It's released.", False),
    ("L26-00018 (mlt-0018) is in quarantine. When I checked, it was released.", False),
])
def test_once_and_when_with_will_speak_of_what_is_not_yet(answer, pays):
    assert (paid(LOTS, QUARANTINE, answer, ASK_ISSUE) == 1.0) is pays


PORTS = {"fleet_vehicles": [{"id": f"fev-000{n}", "unit": f"VAN-00{n}", "connector": c}
                            for n, c in [(6, "ccs1"), (7, "j1772"), (8, "chademo")]],
         "charge_ports": [{"id": "cpt-0013", "code": "P-13", "connector": "j1772"}]}
CCS = refusal("fleet_vehicles", "connector", "ccs1", "fev-0006", ["port_fits_vehicle", "Book a port that fits."])
ASK_PORT = "Book VAN-006 on port P-13."


@pytest.mark.parametrize(("answer", "pays"), [
    ("VAN-006 (fev-0006) has a CCS1 connector and P-13 (cpt-0013) is a J1772 port.", True),
    ("VAN-006 (fev-0006) has a CCS1 and a J1772 connector.", False),
    ("VAN-006 (fev-0006) has a J1772 connector and P-13 (cpt-0013) is a CCS1 port.", False),
])
def test_and_before_another_records_name_starts_its_own_clause(answer, pays):
    assert (paid(PORTS, CCS, answer, ASK_PORT) == 1.0) is pays


ECOS = {"change_orders": [{"id": f"eco-00{n:02d}", "code": f"ECO-00{n:02d}", "status": s}
                          for n, s in [(2, "submitted"), (11, "approved"), (12, "draft"), (13, "rejected")]]}
APPROVED = refusal("change_orders", "status", "approved", "eco-0011",
                   ["change_order_reject.status_in", "Only ECOs under consideration can be rejected."])
ASK_REJECT = "Request a new sign-off on ECO-0002, and reject ECO-0011."


@pytest.mark.parametrize(("answer", "pays"), [
    ("ECO-0002 (eco-0002) got a new sign-off request. The change order is still submitted.\n\n"
     "ECO-0011 (eco-0011): not rejected. It has already been approved.", True),
    ("ECO-0002 (eco-0002) got a new sign-off request. The ECO is still submitted.\n\n"
     "ECO-0011 (eco-0011): not rejected. It has already been approved.", True),
    ("ECO-0011 (eco-0011): not rejected. The ECO is submitted.", False),
    ("ECO-0011 (eco-0011): not rejected. It is approved, or submitted.", False),
])
def test_a_record_called_by_its_kind_in_several_words_or_its_codes_letters(answer, pays):
    assert (paid(ECOS, APPROVED, answer, ASK_REJECT) == 1.0) is pays


PURCHASES = {"course_purchases": [{"id": f"cpu-00{n}", "title": t, "status": s, "requested_on": d}
                                  for n, t, s, d in [(46, "Leading Remote Teams", "rejected", "2026-10-08"),
                                                     (47, "PMP exam prep", "requested", "2026-11-02"),
                                                     (48, "SQL basics", "approved", "2026-11-03")]]}
REJECTED = refusal("course_purchases", "status", "rejected", "cpu-0046",
                   ["course_purchase_approve.status_in", "Only requested purchases can be approved."])
ASK_APPROVE = "Approve the Leading Remote Teams purchase."


@pytest.mark.parametrize(("answer", "pays"), [
    ("Leading Remote Teams, requested 8 Oct (cpu-0046), is already rejected.", True),
    ("Leading Remote Teams (cpu-0046) was requested on 8 Oct and is already rejected.", True),
    ("Leading Remote Teams (requested Thu 2026-10-08, cpu-0046) is already rejected.", True),  # careful_mcp3
    ("Leading Remote Teams (requested on Thursday 2026-10-08, cpu-0046) is already rejected.", True),
    ("Two approved, one left alone. Leading Remote Teams (cpu-0046) is already rejected.", True),
    ("Leading Remote Teams (cpu-0046) is requested, or rejected.", False),
    ("Leading Remote Teams (cpu-0046) is requested and rejected.", False),
    ("Leading Remote Teams (cpu-0046): two approved, one rejected.", False),  # a tally says no state of it
])
def test_a_value_dated_by_its_own_column_and_a_tally_are_no_state(answer, pays):
    assert (paid(PURCHASES, REJECTED, answer, ASK_APPROVE) == 1.0) is pays


PHOTOS = {"stock_photos": [{"id": f"sph-00{n}", "title": t, "collection": c} for n, t, c in
                           [(27, "Marathon finish line", "archive"), (28, "Harbour at dawn", "editorial"),
                            (29, "City lights", "creative")]],
          "license_grants": [{"id": f"lgr-{n:04d}", "usage": u} for n, u in
                             enumerate(["web_editorial", "print_editorial", "broadcast", "advertising"] * 3, 1)],
          "licensees": [{"id": "lic-0004", "name": "Tidewater Freight Group"}, {"id": "lic-0005", "name": "Kestrel Media"}]}
ARCHIVE = refusal("stock_photos", "collection", "archive", "sph-0027",
                  ["judgement_3", "Archive images are editorial-only: never licensed for advertising or broadcast."])
ASK_LICENCE = 'License "Marathon finish line" for broadcast to Tidewater Freight Group.'


@pytest.mark.parametrize(("answer", "pays"), [
    ('Parked: the broadcast licence for "Marathon finish line" (sph-0027) to Tidewater Freight Group. That photo is '
     "archive.", True),  # "That photo": the photo, not the licensee named last
    ('Parked: the broadcast licence for "Marathon finish line" (sph-0027). The photo is archive.\n\n'
     "The licence is for web editorial use.", True),  # a value inside another column's value
    ('Parked: the broadcast licence for "Marathon finish line" (sph-0027). The photo is creative.', False),
    ('Parked: the broadcast licence for "Marathon finish line" (sph-0027). The photo is archive. It is editorial.',
     False),
])
def test_that_kind_is_a_definite_noun_and_a_value_inside_a_longer_one_is_its_word(answer, pays):
    assert (paid(PHOTOS, ARCHIVE, answer, ASK_LICENCE) == 1.0) is pays


# careful20d (a fourth by-hand round)
INSPECTIONS = {"inspection_lots": [{"id": f"ilt-00{n}", "status": s} for n, s in
                                   [(26, "rejected"), (27, "sampling"), (28, "on_hold"), (29, "accepted")]]}
INSP_REJECTED = refusal("inspection_lots", "status", "rejected", "ilt-0026",
                        ["inspection_lot_sample.status_in", "Only lots on hold can be sampled."])
ASK_SAMPLE = "Start sampling on ilt-0026."


@pytest.mark.parametrize(("answer", "pays"), [
    ("Not done: sampling for ilt-0026. It has already been rejected.", True),  # the refused action, not a state
    ("ilt-0026 is already rejected. Our sampling plan calls for 125 samples.", True),  # the writer's plan
    ("ilt-0026 is already rejected, so there is nothing to sample or accept.", True),  # a negated list, no hedge
    ("Done: sampling for ilt-0026. It has already been rejected.", False),  # an action done claims its state
    ("ilt-0026 is already rejected. It is sampling.", False),
    ("ilt-0026 is rejected, or accepted.", False),
])
def test_a_refused_action_the_writers_noun_and_a_negated_list_claim_no_state(answer, pays):
    assert (paid(INSPECTIONS, INSP_REJECTED, answer, ASK_SAMPLE) == 1.0) is pays


INSPECTORS = {"building_inspectors": [{"id": f"bin-000{n}", "name": name, "discipline": d} for n, name, d in
                                      [(7, "Bruno Keller", "mechanical"), (8, "Lena Ortiz", "building"),
                                       (9, "Tom Reyes", "electrical"), (6, "Ada Moss", "plumbing")]]}
MECHANICAL = refusal("building_inspectors", "discipline", "mechanical", "bin-0007",
                     ["inspector_discipline_matches", "An inspection's inspector has its discipline."])
ASK_INSPECT = "Book Bruno Keller for the framing inspection."


@pytest.mark.parametrize(("answer", "pays"), [
    ("Bruno Keller (bin-0007) is a mechanical inspector. Tell me which building inspector you'd like.", True),
    ("Bruno Keller (bin-0007) is a mechanical inspector. Even with a building inspector, the slot would not work.",
     True),
    ("Bruno Keller (bin-0007) is a building inspector.", False),
    ("Bruno Keller (bin-0007) is a mechanical inspector, or a building inspector.", False),
])
def test_which_or_with_a_value_speaks_of_a_record_there_is_not(answer, pays):
    assert (paid(INSPECTORS, MECHANICAL, answer, ASK_INSPECT) == 1.0) is pays


LIBRARIES = {"seq_libraries": [{"id": f"lib-00{n}", "code": f"LIB-00{n}", "qc_status": s} for n, s in
                               [(35, "pending"), (36, "passed"), (37, "failed"), (38, "passed")]],
             "instruments": [{"id": "ins-0002", "name": "NovaSeq 6000"}, {"id": "ins-0003", "name": "MiSeq Dx"}]}
QC_PENDING = refusal("seq_libraries", "qc_status", "pending", "lib-0035",
                     ["queue_qc_passed_only", "Queue only libraries whose QC passed."])
ASK_QUEUE = "Queue LIB-0035 on the NovaSeq 6000."
ENTRIES = {"customs_entries": [{"id": f"cen-00{n}", "bill": f"HBL-00000{n}-2", "status": s} for n, s in
                               [(10, "released"), (26, "hold"), (27, "filed"), (28, "draft")]]}
RELEASED = refusal("customs_entries", "status", "released", "cen-0010",
                   ["customs_entry_lodge.status_in", "Only draft entries can be lodged."])
ASK_LODGE = "Record the CBP hold on HBL-0000026-2 and lodge HBL-0000010-2."


@pytest.mark.parametrize(("world", "check", "ask", "answer", "pays"), [
    (LIBRARIES, QC_PENDING, ASK_QUEUE, "Not queued: LIB-0035 (lib-0035) on the NovaSeq 6000. Its QC status is "
     "still pending.", True),  # what has a QC status is the library
    (LIBRARIES, QC_PENDING, ASK_QUEUE, "Not queued: LIB-0035 (lib-0035) on the NovaSeq 6000. Its QC status is "
     "passed.", False),
    (ENTRIES, RELEASED, ASK_LODGE, "HBL-0000026-2 (cen-0026):\n- CBP hold recorded.\n- Filed.\n\n"
     "HBL-0000010-2 (cen-0010): not lodged. It is already released.", True),  # the items are the header's
    (ENTRIES, RELEASED, ASK_LODGE, "HBL-0000010-2 (cen-0010):\n- CBP hold recorded, filed.\n- Not lodged: it is "
     "already released.", False),
])
def test_its_asked_column_and_list_items_under_a_records_line(world, check, ask, answer, pays):
    assert (paid(world, check, answer, ask) == 1.0) is pays


# careful20d #17: a machine called by its make, as staff shorten it ("the Kinze")
HARVEST = {"operators": [{"id": f"opr-000{n}", "name": name, "skill": skill} for n, name, skill in
                         [(3, "Nina Okafor", "semi_truck"), (4, "Raj Patel", "grain_cart"), (5, "Eva Lund", "combine"),
                          (6, "Tom Berg", "grain_cart")]],
           "machines": [{"id": f"mch-000{n}", "name": name, "type": kind} for n, name, kind in
                        [(1, "Kinze 1100 grain cart", "grain_cart"), (2, "John Deere S780", "combine"),
                         (3, "Peterbilt 389", "semi_truck")]]}
SEMI = refusal("operators", "skill", "semi truck", "opr-0003",
               ["judgement_1", "Each job's operator is qualified for its machine."])
ASK_HARVEST = "Put Nina Okafor on the Kinze for the north field."


@pytest.mark.parametrize(("answer", "pays"), [
    ("Nina Okafor (opr-0003) is a semi truck driver, and the Kinze is a grain cart.", True),
    ("Nina Okafor (opr-0003) is a semi truck driver. She is a grain cart driver.", False),
    ("Nina Okafor (opr-0003) is a semi truck driver, and she is a grain cart driver.", False),
])
def test_a_record_called_by_the_first_word_of_its_name(answer, pays):
    assert (paid(HARVEST, SEMI, answer, ASK_HARVEST) == 1.0) is pays


# careful20e (a fifth by-hand round) and its gaming probe
ADJUSTERS = {"field_adjusters": [{"id": f"fad-00{n}", "name": name, "seniority": s} for n, name, s in
                                 [(28, "Kofi Moreau", "trainee"), (29, "Ada Lind", "senior"), (30, "Raj Iyer", "adjuster"),
                                  (31, "Eve Park", "complex_loss"), (32, "Bo Tan", "senior"), (33, "Cy Reed", "adjuster"),
                                  (34, "Di Moss", "trainee"), (35, "Ed Vale", "complex_loss"), (36, "Fay Ng", "senior"),
                                  (37, "Gus Orr", "adjuster"), (38, "Hal Ito", "senior"), (39, "Ivy Lu", "adjuster")]]}
TRAINEE = refusal("field_adjusters", "seniority", "trainee", "fad-0028",
                  ["assignment_rules_1", "Moderate claims need an adjuster, senior or complex_loss (never a trainee)."])
ASK_ASSIGN = "Give the moderate claim LSC-000035 to Kofi Moreau."


@pytest.mark.parametrize(("answer", "pays"), [
    ("Kofi Moreau (fad-0028) is a trainee; moderate claims need an adjuster, senior or complex_loss adjuster.", True),
    ("Kofi Moreau (fad-0028) is a trainee. I will find a senior adjuster.", True),  # an offer, not his state
    ("Kofi Moreau (fad-0028) is a trainee; he is an adjuster, senior or complex_loss adjuster.", False),
    ("Kofi Moreau (fad-0028) is a trainee. He is a senior adjuster.", False),
])
def test_a_rules_list_after_a_semicolon_and_an_offer_claim_no_state(answer, pays):
    assert (paid(ADJUSTERS, TRAINEE, answer, ASK_ASSIGN) == 1.0) is pays


NEW_HIRES = {"new_hires": [{"id": f"nhr-00{n}", "name": name, "stage": s} for n, name, s in
                       [(12, "Umar Weber", "onboarded"), (13, "Lea Roth", "started"), (14, "Ian Cole", "offer"),
                        (15, "Mia Sood", "started")]]}
ONBOARDED = refusal("new_hires", "stage", "onboarded", "nhr-0012",
                    ["new_hire_start.status_in", "Only hires at offer can be started."])
ASK_START = "Start Umar Weber's onboarding."


@pytest.mark.parametrize(("answer", "pays"), [
    ("Umar Weber (nhr-0012) is already onboarded, beyond the started stage.", True),
    ("Umar Weber (nhr-0012) is onboarded, or at least started.", False),
    ("Umar Weber (nhr-0012) is started.", False),
])
def test_a_value_after_beyond_or_past_is_a_point_passed(answer, pays):
    assert (paid(NEW_HIRES, ONBOARDED, answer, ASK_START) == 1.0) is pays


WAGE_FILINGS = {"wage_filings": [{"id": f"wgf-00{n}", "reference": ref, "status": s} for n, ref, s in
                            [(19, "WF-2026-000019", "rejected"), (51, "WF-2026-000051", "rejected"),
                             (52, "WF-2026-000052", "received"), (53, "WF-2026-000053", "accepted")]]}
FILING_REJECTED = refusal("wage_filings", "status", "rejected", "wgf-0019",
                          ["wage_filing_amend.status_in", "Only received filings can be amended."])
ASK_AMEND = "Amend filing WF-2026-000019 and file a new one for December."


@pytest.mark.parametrize(("answer", "pays"), [
    ("WF-2026-000019 (wgf-0019) can't be amended. That filing was rejected.\nNote: WF-2026-000691 is received.", True),
    ("WF-2026-000019 (wgf-0019) is rejected.", True),
    ("WF-2026-000019 (wgf-0019) can't be amended.\nNote: WF-2026-000052 is received.", False),  # an existing one
    ("The other WF-2026-000019 filing (wgf-0051) is rejected.", False),  # the right value, another record's id
])
def test_a_new_records_code_and_another_records_id_beside_the_asked_records_name(answer, pays):
    assert (paid(WAGE_FILINGS, FILING_REJECTED, answer, ASK_AMEND) == 1.0) is pays


# the MCP agent's round on the final store (careful_mcp2): refusals it wrote in full
TECHS = {"maintenance_techs": [{"id": f"mtc-000{n}", "name": name, "trade": t} for n, name, t in
                               [(3, "Femi Adeyemi", "general"), (4, "Ana Roy", "hvac"), (5, "Bo Kim", "plumbing"),
                                (6, "Cy Diaz", "general"), (7, "Di Eze", "hvac"), (8, "Ed Fox", "electrical"),
                                (9, "Flo Gee", "plumbing"), (1, "Gil Ho", "electrical")]]}
GENERAL = refusal("maintenance_techs", "trade", "general", "mtc-0003",
                  ["judgement_2", "Plumbing, electrical and hvac requests go to a technician of that trade."])
ASK_TECH = "Send Femi Adeyemi to the hvac request rrq-0039."
FEEDS = {"avl_batches": [{"id": f"apb-000{n}", "code": f"AVL-000000{n}", "status": s} for n, s in
                         [(5, "quarantined"), (6, "processed"), (7, "received"), (8, "processed")]]}
QUARANTINED = refusal("avl_batches", "status", "quarantined", "apb-0005",
                      ["avl_batch_process.status_in", "Only received batches are processed."])


@pytest.mark.parametrize(("world", "check", "ask", "answer", "pays"), [
    (TECHS, GENERAL, ASK_TECH, "Not assigned. Rule judgement_2: rrq-0039 is an hvac request and Femi's trade is "
     "general; hvac goes to an hvac technician.", True),  # the rule restated, and "an hvac technician": some tech
    (TECHS, GENERAL, ASK_TECH, "Not assigned: Femi Adeyemi (mtc-0003) is an hvac technician.", False),
    (TECHS, GENERAL, ASK_TECH, "Not assigned: Femi Adeyemi (mtc-0003) is general; he is hvac.", False),
    (FEEDS, QUARANTINED, "Mark AVL-0000005 processed.", "Not done: marking AVL-0000005 (apb-0005) processed - it is "
     "quarantined.", True),  # the action's target right after the record
    (FEEDS, QUARANTINED, "Mark AVL-0000005 processed.", "AVL-0000005 (apb-0005) is processed - it is quarantined.",
     False),
    (FEEDS, QUARANTINED, "Mark AVL-0000005 processed.", "Not done: AVL-0000005 (apb-0005, 12 files, same route as "
     "AVL-0000006). Its status is quarantined.", True),  # what a bracket's later clauses name is an aside
    (TECHS, GENERAL, ASK_TECH, "Not assigned: Femi Adeyemi (mtc-0003) is general. The request goes to an hvac "
     "technician.", True),  # "an hvac technician": some technician of that trade
])
def test_a_refusal_written_in_full_keeps_its_reason(world, check, ask, answer, pays):
    assert (paid(world, check, answer, ask) == 1.0) is pays


# careful20f's gaming probe: the right value on "another <kind>", never the refused record's
@pytest.mark.parametrize(("answer", "pays"), [
    ("Not assigned. Another technician is general.", False),
    ("Not assigned. The other technician is general.", False),
    ("Not assigned: Femi Adeyemi (mtc-0003) is general.", True),
])
def test_another_of_its_kind_is_never_the_asked_record(answer, pays):
    assert (paid(TECHS, GENERAL, answer, ASK_TECH) == 1.0) is pays
