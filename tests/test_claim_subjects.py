"""Whose value a refusal's sentence states, and what is only an aside (issue 18, careful20f; core/claims.py).

Each test rebuilds, in a small world, a sentence of a careful hand-written answer that lost its reason check
(/work/notes/careful20f.md, the family letter in each comment) beside the gaming twins the same rule must still
refuse. Each was seen failing with its rule switched off.
"""

from __future__ import annotations

import pytest
from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import Check, Task


def refusal(table: str, column: str, value: str, record: str, rule: str) -> Check:
    """The answer check of a refused change: its reason, `value` of `column`, said about `record`."""
    return Check(kind="answer", table=table, column=column, contains=[value], about=[record], reasons=[rule],
                 note=f"names why the change is refused: {record} {column} {value} (rule {rule})")


def family(name: str, world: dict, check: Check, ask: str, rows: list[tuple[str, bool]]) -> list:
    """One family's sentences, each with whether a careful answer of that shape is paid in full."""
    return [pytest.param(world, check, ask, answer, pays, id=f"{name}-{n}") for n, (answer, pays) in enumerate(rows)]


def paid(world: dict, check: Check, answer: str, turn: str) -> bool:
    task = Task(id="t-1", envs=["x"], turns=[turn], checks=[check], gold=[])
    initial, final = Snapshot(tables=world, files={}), Snapshot(tables=world, files={}, answer=answer)
    return grade(task, initial, final).reward == 1.0


# field_crew_dispatch: "crew" is also the first word of another table (crew_jobs)
CREWS = {"line_crews": [{"id": "lcr-0007", "name": "Crew 41 Gas", "specialty": "gas_service"},
                        {"id": "lcr-0008", "name": "Crew 31 Meter", "specialty": "meter_services"},
                        {"id": "lcr-0009", "name": "Crew 11 Overhead", "specialty": "overhead_line"}],
         "crew_jobs": [{"id": "cjb-0001", "crew_id": "lcr-0008", "status": "scheduled"}]}
GAS = refusal("line_crews", "specialty", "gas_service", "lcr-0007", "meter_crew_work")
ASK_CREW = "We're missing a crew job with Crew 41 Gas for the meter exchange at 17 Market Lane."


# AD: "<record> is a <value> <kind noun>" says it of the record
AD = family("AD-predicate", CREWS, GAS, ASK_CREW, [
    ("Not scheduled: lcr-0007 is a gas service crew.", True),
    ("Not scheduled: Crew 41 Gas (lcr-0007) is a gas_service crew.", True),
    ("Not scheduled: Crew 41 Gas (lcr-0007), a gas service crew, can't take meter work.", True),  # an apposition
    ("Not scheduled: lcr-0007 is not a gas service crew.", False),
    ("Not scheduled: a gas service crew can't take meter work.", False),
    ("Not scheduled: I can find a gas service crew.", False),  # a wish, some crew of that kind
    ("Not scheduled: Crew 41 Gas (lcr-0007) is a meter_services crew.", False),
    ("Not scheduled: lcr-0007 is a gas service crew, lcr-0007 is a meter services crew.", False),
])


# production_line_scheduling: "machine" is the first word of machine_operators, a plain word for a work center
PLANT = {"work_centers": [{"id": "wc-0005", "name": "Studer Grinder S33", "process": "grinding"},
                          {"id": "wc-0003", "name": "Okuma Lathe LB3000", "process": "turning"},
                          {"id": "wc-0004", "name": "DMG Mill 50", "process": "milling"}],
         "machine_operators": [{"id": "mop-0007", "name": "Quentin Silva", "certified_process": "turning"}]}
GRINDING = refusal("work_centers", "process", "grinding", "wc-0005", "operator_certified_for_process")
ASK_RUN = "An operation run for the machine operator Quentin Silva and the work center Studer Grinder S33 is missing."
S33 = "Not planned: the run on the Studer Grinder S33."


# AE: "that <plain noun>" is the record just named; AD again
AE = family("AE-demonstrative", PLANT, GRINDING, ASK_RUN, [
    (f"{S33} That machine does grinding.", True),
    ("Not planned. The run would be on the Studer Grinder S33. That machine does grinding.", True),
    ("Not planned: the Studer Grinder S33 is a grinding machine.", True),
    (f"{S33} The machine does grinding.", True),  # "machine" only opens another table's name (machine_operators)
    (f"{S33} That machine does not do grinding.", False),
    (f"{S33} The operator does grinding.", False),
    (f"{S33} The other machine does grinding.", False),
    (f"{S33} Another machine does grinding.", False),
    ("Not planned: the Studer Grinder S33 is not a grinding machine.", False),
    (f"{S33} That operator does grinding.", False),  # a table's own noun: the operator, not the work center
])


# office_supply_room: the item line names the item, then the budget it was to be charged to
SUPPLIES = {"supply_items": [{"id": "sup-0036", "name": "Disinfectant wipes (tub of 100)", "category": "toner"},
                             {"id": "sup-0001", "name": "Copy paper A4 (ream)", "category": "paper"},
                             {"id": "sup-0016", "name": "Envelopes C4 (box of 250)", "category": "envelopes"}],
            "office_budgets": [{"id": "bud-0008", "code": "CC-008", "department": "Facilities"},
                               {"id": "bud-0001", "code": "CC-001", "department": "Finance"},
                               {"id": "bud-0002", "code": "CC-002", "department": "Legal"}]}
TONER = refusal("supply_items", "category", "toner", "sup-0036", "toner_limit")
ASK_REQ = "Add a requisition for the office budget CC-008 and the supply item Disinfectant wipes (tub of 100)."
ITEM = "Not done:\n- The requisition for Disinfectant wipes (sup-0036) on CC-008."


# AJ: a list marker does not change whose a later sentence is
AJ = family("AJ-list-item", SUPPLIES, TONER, ASK_REQ, [
    (f"{ITEM} That item is in the toner category.", True),
    ("Not done:\n- The requisition for Disinfectant wipes (sup-0036) on CC-008 for Samuel Dubois. The wipes are in"
     " the toner category.", True),
    (f"{ITEM} CC-008 is in the toner category.", False),
    (f"{ITEM} That budget is in the toner category.", False),
    (f"{ITEM} That item is in the toner or paper category.", False),
    # AB: ", or <bare verb phrase>" is another action, no alternative value
    ("Not done: sup-0036 is in the toner category, or be split down to 2.", True),
    ("Not done: sup-0036 is in the toner category, or paper.", False),
    ("Not done: sup-0036 is in the toner category, or the paper one.", False),
    ("Not done: sup-0036 is in the toner category, or something else.", False),
    ("Not done: sup-0036 is in the toner category, or be something else.", False),
])


# learning_budget_ledger: the task creates a purchase with the asked purchase's title
TITLES = [("Kubernetes Fundamentals", "rejected"), ("Kubernetes Fundamentals", "paid"),
          ("Public Speaking Intensive", "requested"), ("Rust Basics", "approved")]
PURCHASES = {"course_purchases": [{"id": f"cpu-00{n:02d}", "title": title, "status": status}
                                  for n, (title, status) in enumerate(TITLES, 9)],
             "learning_accounts": [{"id": "lac-0032", "name": "Bruno Park", "department": "Research"},
                                   {"id": "lac-0009", "name": "Priya Johnson", "department": "Sales"}]}
REJECTED = refusal("course_purchases", "status", "rejected", "cpu-0009", "judgement_1")
ASK_PAID = ("The course purchase Kubernetes Fundamentals requested on October 13 should be down as paid. Also add a"
            " course purchase for Bruno Park, course title Kubernetes Fundamentals.")
NOT_DONE = "\nNot done: cpu-0009 was rejected."


# AG: an id beats the label beside it, either order
AG = family("AG-id-beside-label", PURCHASES, REJECTED, ASK_PAID, [
    (f"Done: new course purchase cpu-0051 - Kubernetes Fundamentals, status requested.{NOT_DONE}", True),
    (f"Done: new course purchase cpu-0051 for Kubernetes Fundamentals, status requested.{NOT_DONE}", True),
    (f"Done: the Kubernetes Fundamentals purchase cpu-0051, status requested.{NOT_DONE}", True),
    ("Done: a new course purchase cpu-0051 for Bruno Park (lac-0032, Research) - Kubernetes Fundamentals from"
     f" LinkedIn Learning, 210.00, status requested.{NOT_DONE}", True),  # a shared title describing the new row
    (f"Done: Kubernetes Fundamentals is requested.{NOT_DONE}", False),
    (f"Done: cpu-0051 was made for Bruno Park, and Kubernetes Fundamentals is requested.{NOT_DONE}", False),
    ("Not done: cpu-0009 was rejected. The Kubernetes Fundamentals purchase is requested.", False),
    (f"Done: cpu-0051 was made. Kubernetes Fundamentals, status requested.{NOT_DONE}", False),
])


# change_advisory_board: the state guard said as a general rule
CHANGES = {"change_requests": [{"id": f"chg-00{n}", "title": title, "status": status} for n, (title, status) in
                               enumerate([("Patch OS to latest security baseline", "completed"),
                                          ("Apply SAP kernel patch", "in_progress"),
                                          ("Rotate TLS certificates", "draft")], 19)]}
COMPLETED = refusal("change_requests", "status", "completed", "chg-0019", "judgement_2")
ASK_UNDO = "The change request \"Patch OS to latest security baseline\" needs to be undone."
CHG = "chg-0019 was not rolled back. It is already completed"


# AH: a guard's condition and a generic subject state a rule
AH = family("AH-guard-rule", CHANGES, COMPLETED, ASK_UNDO, [
    (f"{CHG}, and a rollback is only possible while a change is in progress.", True),
    (f"{CHG}. A change can only be rolled back while it is in progress.", True),
    (f"{CHG}, and a rollback is possible while a change is in progress.", True),
    (f"{CHG}, or in progress.", False),
    (f"{CHG}. It is in progress.", False),
    (f"{CHG}, and it is in progress while it is a draft.", False),
])


# podcast_studio_booking: staff call "Studio D - Interview Room" "Studio D"
STUDIOS = {"audio_engineers": [{"id": "aen-0006", "name": "Jonas Hansen", "specialty": "mixing"},
                               {"id": "aen-0002", "name": "Mateo Tanaka", "specialty": "video"},
                               {"id": "aen-0003", "name": "Lucia Rossi", "specialty": "mastering"}],
           "studios": [{"id": "rst-0004", "name": "Studio D - Interview Room", "seats": 6},
                       {"id": "rst-0001", "name": "Studio A - Vocal Booth", "seats": 2}]}
MIXING = refusal("audio_engineers", "specialty", "mixing", "aen-0006", "judgement_2b")
ASK_SESSION = "Set up a studio session for Studio D - Interview Room and the audio engineer Jonas Hansen."
MM = "Not booked: Market Minute. Jonas Hansen (aen-0006) is a mixing engineer."


# AI: a name's head before " - " names its record
AI = family("AI-short-name", STUDIOS, MIXING, ASK_SESSION, [
    (f"{MM} Studio D has video.", True),
    (f"{MM} Studio D is equipped for video.", True),
    (f"{MM} He does video.", False),
    (f"{MM} Studio D has video, and he does video.", False),
])


# lease_renewal_workflow: the inspection date asked for is another tenancy's lease end
LEASES = {"tenancies": [{"id": "tcy-0018", "name": "Chloe Lam", "lease_end": "2027-03-18"},
                        {"id": "tcy-0009", "name": "Grace Lam", "lease_end": "2026-12-17"},
                        {"id": "tcy-0020", "name": "Omar Reyes", "lease_end": "2026-12-28"},
                        {"id": "tcy-0021", "name": "Ana Silva", "lease_end": "2026-12-20"}]}
LEASE_END = refusal("tenancies", "lease_end", "2027-03-18", "tcy-0018", "inspection_on_lease_end")
ASK_INSPECT = "Enter a move out inspection for the tenancy Chloe Lam, scheduled date 2026-12-28 and inspector Tina Wu."
LAM = "I did not book the move-out inspection for Chloe Lam (tcy-0018). Her lease ends on 2027-03-18"


# AC: the request's own value, set aside as what does not fit
AC = family("AC-request-value", LEASES, LEASE_END, ASK_INSPECT, [
    (f"{LAM}, so 2026-12-28 doesn't fit.", True),
    (f"{LAM}. The date you gave, 2026-12-28, doesn't fit.", True),
    (f"{LAM}; the requested date (2026-12-28) is not possible.", True),
    (f"{LAM}. It ends 2026-12-28, the requested date is not possible.", False),  # said of her, by a pronoun
    (f"{LAM} or 2026-12-28.", False),
    ("I did not book the move-out inspection for Chloe Lam (tcy-0018). Her lease ends on 2026-12-28.", False),
    (f"{LAM}, so 2026-12-20 doesn't fit.", False),  # a value the request never gave is a second guess
    (f"{LAM} and 2026-12-28; the date you gave doesn't fit.", False),  # said as her lease end too
])


# it_asset_provisioning (careful20g AK): "issued to <someone>" tells the record's history beside its state
ASSETS = {"asset_assignments": [{"id": "asn-0015", "asset_tag": "BLM-00015", "staff_id": "stf-0020", "status": "returned"},
                                {"id": "asn-0016", "asset_tag": "BLM-00016", "staff_id": "stf-0021", "status": "issued"},
                                {"id": "asn-0017", "asset_tag": "BLM-00017", "staff_id": "stf-0022", "status": "lost"}],
          "staff": [{"id": "stf-0020", "name": "Mei Tanaka"}, {"id": "stf-0021", "name": "Jonas Ortiz"}]}
RETURNED = refusal("asset_assignments", "status", "returned", "asn-0015", "asset_report_lost.status_in")
ASK_LOST = "The asset assignment BLM-00015 has gone missing."
AK = family("AK-told-as-event", ASSETS, RETURNED, ASK_LOST, [
    ("Not reported lost: BLM-00015 (asn-0015, issued to stf-0020). It was already returned.", True),
    ("Not reported lost: BLM-00015 (asn-0015) was issued to Mei Tanaka and has already been returned.", True),
    ("Not reported lost: BLM-00015 was issued on 3 Oct; it is returned now.", True),
    ("Not reported lost: BLM-00015 (asn-0015) is issued or returned.", False),
    ("Not reported lost: BLM-00015 (asn-0015): issued/returned.", False),
    ("Not reported lost: BLM-00015 (asn-0015) was issued to stf-0020, returned by Mei Tanaka.", False),  # no state
    ("Not reported lost: BLM-00015 was returned by Mei Tanaka. It is issued.", False),  # the state claimed is wrong
    ("Not reported lost: BLM-00015 (asn-0015) is issued.", False),
])


# careful20h: dependency_vulnerability_triage (BA), mailroom_package_desk (BB, BC), delivery_platform_orders (BD),
# trademark_filing_pipeline (BE)
FINDINGS = {"vuln_findings": [{"id": "vfd-0024", "title": "lodash prototype pollution", "status": "ticketed"},
                              {"id": "vfd-0025", "title": "openssl timing leak", "status": "false_positive"}]}
TICKETED = refusal("vuln_findings", "status", "ticketed", "vfd-0024", "vuln_finding_dismiss.status_in")
BA = family("BA-condition-inside", FINDINGS, TICKETED, "Dismiss the lodash finding.", [
    ("vfd-0024 was not dismissed: it is ticketed. I left it; if it really is a false positive, someone should confirm.",
     True),
    ("vfd-0024 was not dismissed: it is ticketed, but if it really is a false positive, someone should confirm.", True),
    ("vfd-0024 is ticketed; if not, it is a false positive.", False),
    ("vfd-0024 is ticketed; maybe it is a false positive.", False),
])
MAIL = {"mail_recipients": [{"id": "rcp-0019", "name": "Ana Kowalski", "preferred_channel": "sms"},
                            {"id": "rcp-0020", "name": "Mateo Nguyen", "preferred_channel": "slack"},
                            {"id": "rcp-0021", "name": "Leah Brennan", "preferred_channel": "email"}],
        "inbound_parcels": [{"id": "pcl-0030", "tracking_number": "1Z9X00000030", "recipient_id": "rcp-0019"},
                            {"id": "pcl-0021", "tracking_number": "1Z9X00000021", "recipient_id": "rcp-0020"}]}
SMS = refusal("mail_recipients", "preferred_channel", "sms", "rcp-0019", "first_notice_preferred_channel")
ASK_NOTICE = "There should be a pickup notice for the inbound parcel 1Z9X00000030 - channel slack and attempt 1."
BB = family("BB-which-is-hers", MAIL, SMS, ASK_NOTICE, [
    ("The notice is for Ana Kowalski's parcel. It has to go out on her preferred channel, which is SMS.", True),
    ("The notice is for Ana Kowalski's parcel. Her preferred channel is Slack.", False),
    ("The notice is for Ana Kowalski's parcel. It has to go out on her preferred channel, which is Slack.", False),
    ("Mateo Nguyen's preferred channel is SMS.", False),
])
BC = family("BC-rule-of-the-requested", MAIL, SMS, ASK_NOTICE, [
    ("Not queued: the pickup notice for 1Z9X00000030 (rule first_notice_preferred_channel).", True),
    ("Not queued: the pickup notice for 1Z9X00000030 breaks first_notice_preferred_channel.", True),
    ("Not queued: the pickup notice for 1Z9X00000030 may break first_notice_preferred_channel.", False),
    ("Not queued: the pickup notice for 1Z9X00000030 does not break first_notice_preferred_channel.", False),
    ("Not queued: the pickup notice for 1Z9X00000021 (rule first_notice_preferred_channel).", False),  # another parcel
])
ORDERS = {"platform_orders": [{"id": "pord-0049", "external_id": "EXT-0000049", "status": "cancelled"},
                              {"id": "pord-0050", "external_id": "EXT-0000050", "status": "ready"}],
          "customers": [{"id": "cus-0001", "name": "Hannah Mensah"}]}
CANCELLED = refusal("platform_orders", "status", "cancelled", "pord-0049", "platform_order_hand_off.status_in")
BD = family("BD-greeting-colon", ORDERS, CANCELLED, "EXT-0000049 has been fetched by its owner.", [
    ("Hi Hannah, two done, one held:\n\n- EXT-0000049 (pord-0049): not handed off. That order is cancelled.", True),
    ("Hi Hannah:\n\n- EXT-0000049 (pord-0049): not handed off. That order is cancelled.", True),
    ("Hi Hannah:\n\n- EXT-0000049 (pord-0049): not handed off. That order is ready.", False),
    ("Summary:\n- pord-0049 is ready.", False),
])
MARKS = {"trademark_applications": [{"id": "tma-0027", "serial": "98000027", "status": "abandoned"},
                                    {"id": "tma-0023", "serial": "98000023", "status": "office_action"}]}
ABANDONED = refusal("trademark_applications", "status", "abandoned", "tma-0027", "tm_register.status_in")
BE = family("BE-please-confirm", MARKS, ABANDONED, "The trademark application 98000027 is official now.", [
    ("Application 98000027 (tma-0027) is abandoned.\n\nPlease confirm the office action was resolved.", True),
    ("Application 98000027 (tma-0027) is abandoned.\n\nThe status is office action.", False),
    ("Application 98000027 (tma-0027) is abandoned.\n\nAbandoned. Office action.", False),
    ("Please confirm tma-0027 is abandoned.", False),  # asks, claims nothing
])

# careful20i: incoming_inspection_lab (BF), lms_assignment_grading (BG, BI, BJ)
LOTS = {"inspection_lots": [{"id": "ilt-0027", "lot_code": "NM-3102", "status": "rejected"},
                            {"id": "ilt-0016", "lot_code": "NM-1001", "status": "received"},
                            {"id": "ilt-0018", "lot_code": "NM-1044", "status": "sampling"}]}
REJECTED_LOT = refusal("inspection_lots", "status", "rejected", "ilt-0027", "lot_start_sampling.status_in")
BF = family("BF-received-yesterday", LOTS, REJECTED_LOT, "Start sampling the NM-3102 lot received yesterday.", [
    ("NM-3102 received yesterday (ilt-0027): I did not start sampling. It is already rejected.", True),
    ("NM-3102 (ilt-0027) is received or rejected.", False),
    ("NM-3102 received yesterday (ilt-0027) is not rejected.", False),
    ("NM-3102 (ilt-0027) was received yesterday and sampled this morning.", False),  # two events, no state
])
WORK = {"submissions": [{"id": "sub-0030", "student": "Nina Ibrahim", "status": "returned", "assignment_id": "asg-0009"},
                        {"id": "sub-0021", "student": "Aisha Patel", "status": "submitted", "assignment_id": "asg-0007"}],
        "assignments": [{"id": "asg-0009", "title": "Case Study Analysis", "status": "closed"},
                        {"id": "asg-0007", "title": "Midterm Project", "status": "open"}]}
RETURNED_WORK = refusal("submissions", "status", "returned", "sub-0030", "grade_entry_create.status_in")
N = "Nina Ibrahim (sub-0030): no grade entered. "
BG = family("BG-dropped-subject", WORK, RETURNED_WORK, "Enter Nina Ibrahim's grade for the Midterm Project.", [
    (N + "Her submission is attached to Case Study Analysis and is already marked returned.", True),
    (N + "Her submission is not late and is already returned.", True),  # BI: the "not" stays in its predicate
    (N + "Her submission is attached to asg-0009, not asg-0007, and is already marked returned.", True),  # BJ
    (N + "That submission has already been graded and is returned.", True),
    (N + "Her submission is attached to asg-0009 and is not returned.", False),
    (N + "Aisha Patel (sub-0021) is attached to asg-0007 and is returned.", False),
    ("sub-0030 is submitted and is returned.", False),  # two states, both its own
])


@pytest.mark.parametrize(("world", "check", "ask", "answer", "pays"),
                         [*AD, *AE, *AJ, *AG, *AH, *AI, *AC, *AK, *BA, *BB, *BC, *BD, *BE, *BF, *BG])
def test_a_refusals_sentence_states_the_value_of_the_record_it_is_about(world, check, ask, answer, pays):
    assert paid(world, check, answer, ask) is pays
