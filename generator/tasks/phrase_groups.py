"""Statuses that read the same to a person: an entity that can reach two of one group gets the status named."""

from __future__ import annotations

# Statuses that mean the same thing to a reader: an entity with two of one group is named explicitly.
GROUPS = [
    {"approved", "accepted", "passed", "cleared", "verified", "validated", "confirmed", "signed", "reconciled",
     "succeeded", "fixed"},
    {"rejected", "declined", "denied", "failed", "disapproved", "refused"},
    {"cancelled", "withdrawn", "aborted", "voided", "revoked", "dropped", "abandoned", "terminated", "retired",
     "disabled", "ignored", "released"},
    {"completed", "done", "finished", "closed", "resolved", "solved", "ended", "wrapped", "attended", "over"},
    {"received", "arrived", "checked_in", "delivered", "picked_up", "collected", "returned", "seated"},
    {"sent", "shipped", "transmitted", "transferred", "issued", "submitted", "placed", "posted", "published",
     "departed", "deployed", "routed"},
    {"on_hold", "paused", "suspended", "postponed", "quarantined"},
    {"active", "online", "available", "open", "enabled", "running", "ready", "restored"},
    {"paid", "settled", "refunded", "credited", "waived", "invoiced"},
    {"rolled_back", "reversed", "corrected"},
    {"dead_lettered", "dead_letter", "bounced", "lost", "expired", "missed", "no_show", "overdue"},
    # one state, spelled differently by different blueprints
    {"checked", "reviewed", "inspected"}, {"in_maintenance", "maintenance"}, {"quality_check", "in_qc"},
    {"under_review", "in_review"}, {"on_site", "onsite"}, {"replied", "responded", "answered"},
]


def group_of(status: str) -> set[str]:
    return next((g for g in GROUPS if status in g), {status})


def ambiguous(status: str, others: list[str]) -> bool:
    """Another status the row could also move to reads the same in plain words."""
    group = group_of(status)
    return any(o != status and o in group for o in others)
