"""Values as a person writes them, for any text an agent or a user reads (instructions, answers,
refusals): no snake_case, no raw enum, flags as yes/no.

    humanize("awaiting_shopper") -> "awaiting shopper"
    humanize("prod_eu") -> "prod EU";  humanize("troponin_i") -> "troponin I";  humanize(True) -> "yes";  humanize(1250.0) -> "1,250"
    field_words("move_in_date") -> "move-in date";  field_words("rental_unit_id") -> "rental unit"
"""

from __future__ import annotations

import re
from typing import Any

ACRONYMS = {"eu", "us", "uk", "qa", "cab", "id", "sku", "ndc", "asn", "rma", "sla", "ach", "gl", "hr", "it", "ev",
            "ota", "lms", "irb", "capa", "mes", "ci", "cd", "api", "url", "pdf", "csv", "etr", "avl", "gps", "dea",
            "po", "ap", "ar", "kyc", "aml", "pto", "vip", "ooo", "nda", "sow", "rfp", "ux", "ui", "db", "vm", "ip",
            "json", "sftp", "i"}  # "i": troponin_i -> troponin I
HYPHENATED = {"move_in": "move-in", "check_in": "check-in", "check_out": "check-out", "follow_up": "follow-up",
              "no_show": "no-show", "sign_off": "sign-off", "e_mail": "email", "re_open": "reopen",
              "walk_in": "walk-in", "drop_off": "drop-off", "pick_up": "pick-up", "write_off": "write-off",
              "written_off": "written off", "opt_in": "opt-in", "opt_out": "opt-out", "on_call": "on-call"}
SNAKE_WORD = re.compile(r"(?<!\S)[a-z0-9]+(?:_[a-z0-9]+)+(?!\S)")
RAW = re.compile(r"^[a-z0-9]+(?:[_-][a-z0-9]+)+$|^[a-z]+$")


def words(token: str) -> str:
    """snake_case or kebab-case as words, with acronyms upper-cased and compounds hyphenated."""
    text = token.replace("-", "_")
    for raw, nice in HYPHENATED.items():
        text = re.sub(rf"(?<![a-z0-9]){raw}(?![a-z0-9])", nice.replace("-", "\x00"), text)
    parts = [p.upper() if p in ACRONYMS else p for p in text.split("_") if p]
    return " ".join(parts).replace("\x00", "-")


def humanize(value: Any) -> str:
    """One value for prose: enums and identifiers in words, numbers with separators, flags as yes/no."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() else f"{value:,.2f}"
    if isinstance(value, (list, tuple)):
        items = [humanize(v) for v in value]
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else "none"
    text = str(value)
    if RAW.match(text) and ("_" in text or text in ACRONYMS):
        return words(text)
    if " " in text:  # a phrase with a snake_case word in it: "Free month of digital_plus"
        return SNAKE_WORD.sub(lambda m: words(m.group(0)), text)
    return text


# A field named for a verb and its preposition ("ship_to", "received_at") is a noun in prose: "the ship to of
# the request" and "next retry at to 14:00" are template seams (the glitch lint's "preposition_pile").
FIELD_NOUNS = {"ship_to": "ship-to address", "deliver_to": "delivery point", "expires_on": "expiry date",
               "paid_via": "payment method", "opted_in": "opt-in", "odometer_in": "odometer at return",
               "out_at": "time out", "certified_for": "certification", "read_back_by": "person who read it back",
               "used_by": "user", "available_from": "available-from date",
               # a code column named "<x>_id" that is no reference keeps its "ID": "the order's external" was a seam
               "external_id": "external ID", "cve_id": "CVE ID", "nmls_id": "NMLS ID"}
AGENT_NOUNS = {"issued": "issuer", "prepared": "preparer", "reported": "reporter", "requested": "requester",
               "approved": "approver", "acknowledged": "acknowledger"}
TAIL_NOUNS = {"at": "time", "on": "date"}


def field_words(name: str) -> str:
    """A field name as a person says it: the `_id` of a reference dropped, a verb-and-preposition name as a
    noun ("received_at" -> "received time", "best_by" -> "best-by date", "issued_by" -> "issuer")."""
    name = name if name in FIELD_NOUNS else name.removesuffix("_id")  # "external_id" keeps its ID
    if name in FIELD_NOUNS:
        return FIELD_NOUNS[name]
    head, _, tail = name.rpartition("_")
    if head and tail in TAIL_NOUNS:
        return f"{words(head)} {TAIL_NOUNS[tail]}"
    if head and tail == "by":  # a person ("issued_by") or a deadline ("best_by", "respond_by")
        return AGENT_NOUNS.get(head) or f"{words(head).replace(' ', '-')}-by date"
    return words(name)


def is_raw(text: str) -> bool:
    """True when `text` holds a snake_case token a person would never write (a lint for prose)."""
    return bool(re.search(r"\b[a-z0-9]+_[a-z0-9_]+\b", text))
