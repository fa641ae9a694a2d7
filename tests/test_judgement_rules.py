"""Rules left to judgement, made visible: every policy without a check is sorted into the reason no tool
enforces it, and the count of each reason is pinned, so a rule converted to a check (or a new judgement
rule) shows up here. The sort is by wording (first matching reason), so it is a census, not a proof.

A rule whose wording reads as checkable (`not_yet_checked`) may stay judgement only if it is listed in
LEFT_TO_JUDGEMENT with the reason, after review: the fact it turns on is recorded by no field (an
exception no field records), it is a follow-up to do rather than a call to refuse, it restates a rule a
tool already enforces, or it says how to work rather than what to refuse. Every check kind a listed rule
once waited for (aggregates, month windows, enum order, either of two fields) is built.
A rule the tools' fields could check but no check enforces yet is listed as such (NOT_YET, naming the fields),
not dressed up as one of the reasons above: the debt stays visible, and converting it makes its entry stale.
A new rule of that wording, or a listed one that was converted, fails the test until the list agrees."""

from __future__ import annotations

import re
from collections import Counter

from envcraft.generator.model.blueprint import load_all
from envcraft.generator.model.policy import judgement_rules

REASONS = (  # (reason, wording that marks it), first match wins
    ("tone", r"\b(tone|friendly|courteous|warm|calm|empathetic|kind|voice|concise|polite|listen)\b"),
    ("tells_someone", r"\b(reply|replies|tell|ask|explain|say|notify|notice|quote|inform|escalat\w*|page|pages|"
                      r"acknowledg\w*|contact\w*|cite|answer|call|share|disclose|mention|promise)\b"),
    ("retry_and_errors", r"\b(retr\w*|dead-letter\w*|requeue\w*|re-queue\w*|quarantin\w*|attempts?|transient|"
                         r"duplicate\w*|timeouts?|backoff)\b"),
    ("order_of_work", r"(->|\bpipeline\b|\blifecycle\b|\bin order\b|\bone stage\b|\bsequence\b|\bchecklist\b|"
                      r"\bworkflow\b|\bstep\b|\bfollow\b|\brunbook\b|\bconsult\b|\bbefore\b|\bafter\b|\bfirst\b)"),
    ("ranking", r"\b(prefer\w*|oldest|nearest|tie-breakers?|prioriti\w*|most|fewest|best|highest|lowest)\b"),
    ("computation", r"(=|\bcompute\w*|\bx\b|%|\bfee\b|\bprice\w*|\bcredit\w*|\bdue date\w*|\bwithin\b|\bdays?\b|"
                    r"\bhours?\b|\bminutes\b)"),
    ("exception_not_recorded", r"\b(unless|without|written|approv\w*|agree\w*|consent|otherwise)\b"),
)
PINNED = {"tone": 10, "tells_someone": 73, "retry_and_errors": 32, "order_of_work": 116, "ranking": 19,
          "computation": 64, "exception_not_recorded": 16, "not_yet_checked": 54}

NO_FIELD = "an exception no field records: "
FOLLOW_UP = "a follow-up to do, not a call to refuse: "
RESTATES = "restates a rule a tool already enforces: "
WORKFLOW = "how to work (which tool, in what order), not a refusal: "
NOT_YET = "checkable from recorded fields, not yet checked: "
LEFT_TO_JUDGEMENT = {  # "env:rule" -> why it stays judgement (reviewed)
    "campus_alert_broadcasts:siren_outdoor_only": NO_FIELD + "whether a threat is outdoors is not recorded on an alert",
    "adjuster_assignment:licensed_in_loss_state": NOT_YET + "loss_state and licensed_states are recorded, but "
                                                  "licensed_states is one text ('IL, WI, IN'): no kind tests membership in it",
    "assay_results_pipeline:judgement_2": WORKFLOW + "read the thresholds in the QC doc",
    "community_solar_subscriptions:program_rules_2": NOT_YET + "share_kw and the account_type are recorded "
                                                     "(a residential sum per subscriber, a cap per garden)",
    "delivery_platform_orders:judgement_2": NO_FIELD + "the courier's ETA lives in an event, not on the order",
    "delivery_platform_orders:judgement_3": FOLLOW_UP + "pause on a backlog over 12 (the resume half is "
                                            "resume_when_backlog_clears)",
    "ecommerce_fulfillment:judgement_1": WORKFLOW + "allocate through order lines, recount only for counts",
    "employer_wage_filings:validation_rules_2": NO_FIELD + "no line's wages are recorded (a filing holds only its "
                                                "header's record_count and total_wages)",
    "exam_proctoring_schedule:judgement_1": WORKFLOW + "size teams from the regulations doc",
    "fleet_maintenance_shop:judgement_1": WORKFLOW + "issue parts, else wait for parts",
    "fleet_maintenance_shop:shop_procedures_1": NO_FIELD + "no bay is recorded ('the truck may not leave' is shop_procedures_2)",
    "food_bank_distribution:distribution_policy_3": NOT_YET + "the item names say infant formula and eggs, but 'scarce' only "
                                                    "feeds the fair-share arithmetic of distribution_policy_2, which no kind computes",
    "harvest_equipment_scheduling:judgement_2": RESTATES + "crew_rules_1b and crew_rules_3; headers have no field",
    "hr_case_helpdesk:judgement_2": NO_FIELD + "which topics are sensitive is the agent's call",
    "it_asset_provisioning:equipment_standards_1": FOLLOW_UP + "issue a dock to remote staff",
    "kitchen_prep_inventory:judgement_1": WORKFLOW + "prep list to batches and draws",
    "learning_budget_ledger:judgement_1": FOLLOW_UP + "grant the refund adjustment",
    "lms_assignment_grading:judgement_2": NO_FIELD + "grades carry no penalty field; the penalty is arithmetic",
    "magazine_ad_sales:judgement_2": NO_FIELD + "the spec's colour/dpi limits are in a doc, not on the creative's tools",
    "mailroom_package_desk:judgement_1": WORKFLOW + "what 'done' means for a parcel",
    "month_end_close:reconciliation_guide_1": FOLLOW_UP + "flag a difference over $500 and draft an adjusting entry "
                                              "(the reviewer half is reviewer_not_preparer)",
    "newsroom_editorial:editorial_standards_5": NO_FIELD + "a story records no embargo or embargo time",
    "p2p_lending_marketplace:judgement_1": NOT_YET + "amount_requested and funded_amount are recorded; no check "
                                           "compares an amount with the difference of two fields",
    "packhouse_qc_pipeline:judgement_1": WORKFLOW + "work the lab CSV line by line",
    "packhouse_qc_pipeline:qc_spec_1": RESTATES + "the cartons argument's range (40-80) refuses it before any rule",
    "payment_webhook_relay:webhook_retry_policy_1": FOLLOW_UP + "disable the endpoint after a 410",
    "payroll_close_pipeline:payroll_calendar_1": NO_FIELD + "a payslip names no timesheet",
    "podcast_studio_booking:judgement_1": NO_FIELD + "the guests of a session are not recorded",
    "pro_bono_clinic_matching:judgement_1": NO_FIELD + "an interpreter being noted has no field (shared_language enforces the rest)",
    "release_train:release_process_1": NO_FIELD + "CAB attendance is not recorded",
    "restaurant_guest_feedback:judgement_3": NO_FIELD + "cold food has no topic and the bill amount has no field",
    "restaurant_table_reservations:reservation_policy_1b": NO_FIELD + "no deposit is recorded",
    "restaurant_table_reservations:reservation_policy_3": "a preference ('when possible'), not a refusal",
    "retail_helpdesk:support_playbook_2": NO_FIELD + "no tool changes an address; the agent says no",
    "rideshare_dispatch:judgement_3": FOLLOW_UP + "make the driver available again",
    "saas_helpdesk:judgement_2": WORKFLOW + "look up the plan's response target",
    "scooter_share_ops:judgement_2": NO_FIELD + "which crew covers which zone is not recorded",
    "student_help_desk:judgement_2": WORKFLOW + "verify, search, then open",
    "travel_agency_itineraries:travel_policy_1": NO_FIELD + "public transport to a site is not recorded",
    "travel_agency_itineraries:travel_policy_3": NOT_YET + "a hotel segment's price, nights and the trip's destination "
                                                 "are recorded; no check divides a price by its nights",
    "university_registrar:judgement_1": WORKFLOW + "adds are open, drops are drops",
    "visitor_reception:front_desk_guide_2": NO_FIELD + "no badge is tied to a visit and no check-out time is set",
    "wedding_venue_planning:judgement_2": WORKFLOW + "which search shows open tasks",
    "card_dispute_desk:evidence_by_reason": NO_FIELD + "no document or evidence is recorded on a dispute (messages are free text)",
    "citizen_service_center:accessible_counter": NO_FIELD + "a resident's need for an accessible desk is not recorded",
    "nurse_agency_staffing:certification_by_unit": NOT_YET + "nurse_credential rows record kind, expires and verified; no check reads a nurse's credential rows",
    "nurse_agency_staffing:no_more_than_positions": RESTATES + "placement_propose's capacity precondition on positions",
    "scooter_share_ops:retire_instead_of_repair": NO_FIELD + "a scooter's kind of damage (deck, stem) is not recorded",
    "ski_rental_shop:judgement_1": NOT_YET + "weight, skier type and age are recorded, but DIN is a weight-band x type "
                                   "table with an age shift: no kind looks a number up by ranges",
    "surgical_theatre_booking:theatre_rules_2": "the hours of the planned lists: an emergency takes the first free room at any "
                                                "hour (the elective bounds are elective_start_by_1600 and elective_end_by_1800)",
    "surgical_theatre_booking:paediatric_anaesthetist": NO_FIELD + "a case records no patient age",
    "treasury_cash_desk:judgement_1": NO_FIELD + "a wire records no payment currency (its beneficiary only a country)",
    "travel_agency_itineraries:rail_routes": NO_FIELD + "a segment records no origin or destination city",
    "visitor_reception:secure_floor_badge": NO_FIELD + "no badge is tied to a visit",
}


def reason(text: str) -> str:
    return next((name for name, pattern in REASONS if re.search(pattern, text, re.I)), "not_yet_checked")


def census() -> Counter:
    return Counter(reason(rule.text) for bp in load_all() for rule in judgement_rules(bp))


def reads_checkable() -> set[str]:
    return {f"{bp.id}:{rule.id}" for bp in load_all() for rule in judgement_rules(bp)
            if reason(rule.text) == "not_yet_checked"}


def test_every_rule_left_to_judgement_has_a_reason_and_the_counts_are_pinned():
    counts = census()
    print("rules left to judgement:", sum(counts.values()), dict(sorted(counts.items())))
    assert set(counts) <= set(PINNED)
    assert dict(counts) == {k: v for k, v in PINNED.items() if v}, (
        f"the judgement census moved: {dict(sorted(counts.items()))}; a rule turned into a check lowers "
        f"its bucket (update PINNED), a new judgement rule needs a reason")


def test_the_reasons_read_the_rule_not_its_environment():
    assert reason("Keep your tone calm and brief.") == "tone"
    assert reason("Retry only transient failures.") == "retry_and_errors"
    assert reason("Games after 17:00 need a pitch with lights.") == "order_of_work"  # 'after': a known blind spot
    assert reason("The van's connector must equal the port's connector.") == "not_yet_checked"


def test_a_rule_that_reads_checkable_stays_judgement_only_with_a_reviewed_reason():
    found = reads_checkable()
    unreviewed = sorted(found - set(LEFT_TO_JUDGEMENT))
    stale = sorted(set(LEFT_TO_JUDGEMENT) - found)
    assert not unreviewed, f"rules that read as checkable but are left to judgement with no reviewed reason: {unreviewed}"
    assert not stale, f"listed as left to judgement but no longer a judgement rule of that wording: {stale}"
    assert all(len(why) > 20 for why in LEFT_TO_JUDGEMENT.values())
