"""What field and entity names mean: inactive statuses, paired start/end times, which realistic
value a field gets. Shared by the seed, the invariants and the task engine (no imports of theirs).
"""

from __future__ import annotations

from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec, typed  # noqa: F401 (typed: re-exported)
from envcraft.generator.rules.registry import kind

# A row whose status is one of these no longer holds its slot or its seat.
INACTIVE = ("cancelled", "canceled", "void", "voided", "rejected", "declined", "failed", "completed", "done",
            "closed", "archived", "expired", "deleted", "withdrawn", "released", "returned", "returned_to_stock",
            "checked_out", "no_show", "resolved", "finished", "inactive", "lost", "retired", "discontinued",
            "refunded", "dismissed", "abandoned", "superseded", "reversed", "written_off", "left")
# For the seed, only rows that never took place may share a slot (a completed visit did use its vet).
NEVER_HAPPENED = ("cancelled", "canceled", "void", "voided", "rejected", "declined", "failed", "withdrawn", "no_show",
                  "abandoned", "deleted", "dismissed", "superseded")
TIME_FORMAT = "%Y-%m-%dT%H:%M"
PERSON_ENTITIES = ("customer", "patient", "employee", "owner", "contact", "user", "member", "student", "guest",
                   "passenger", "driver", "staff", "person", "client", "applicant", "candidate", "tenant",
                   "volunteer", "athlete", "agent", "technician", "nurse", "doctor", "vet", "preparer", "reviewer",
                   "approver", "instructor", "teacher", "author", "requester", "specialist", "physician", "rider")
COMPANY_ENTITIES = ("vendor", "supplier", "company", "account", "partner", "carrier", "merchant", "payee",
                    "organization", "organisation", "firm", "lender", "insurer", "wholesaler", "sponsor", "brand")
PRODUCT_ENTITIES = ("product", "item", "part", "sku", "dish", "drug", "medication", "material", "asset", "device",
                    "equipment", "component", "ingredient", "book", "tool")
NAME_HINTS = (("first_name", "first_name"), ("email", "email"), ("phone", "phone"), ("mobile", "phone"),
              ("city", "city"), ("country", "country"), ("street", "street"), ("address", "street"),
              ("url", "url"), ("website", "url"), ("sku", "sku"), ("code", "code"), ("color", "color"),
              ("colour", "color"), ("title", "title"), ("subject", "title"), ("company", "company"),
              ("vendor", "company"), ("supplier", "company"), ("employer", "company"), ("department", "department"),
              ("team", "department"), ("role", "job_title"), ("job", "job_title"), ("position", "job_title"),
              ("tag", "tag"), ("label", "tag"), ("category", "tag"), ("description", "sentence"),
              ("notes", "sentence"), ("note", "sentence"), ("summary", "sentence"), ("comment", "sentence"),
              ("reason", "sentence"), ("body", "paragraph"), ("product", "product"))
STARTS = ("start", "starts", "starts_at", "start_at", "start_time", "start_date", "begin", "begins_at", "from_time")
ENDS = {**dict.fromkeys(("end", "ends", "ends_at", "end_at", "end_time", "end_date", "until", "finish", "finishes_at"), STARTS),
        "check_out": ("check_in",), "checkout": ("checkin",), "departure": ("arrival",), "departs_at": ("arrives_at",)}


def guess_gen(entity: Entity, spec: FieldSpec) -> str:
    if spec.gen:
        return spec.gen
    if spec.type == "email":
        return "email"
    if spec.type == "text":
        return "paragraph" if spec.name in ("body", "content", "details") else "sentence"
    if spec.name in ("name", "full_name", "display_name") or spec.name.endswith("_name"):
        base = entity.name.rsplit("_", 1)[-1]
        if base in COMPANY_ENTITIES:
            return "company"
        if base in PRODUCT_ENTITIES:
            return "product"
        return "person_name" if base in PERSON_ENTITIES or spec.name.endswith("_name") else "title"
    return next((gen for hint, gen in NAME_HINTS if hint in spec.name), "title")



def pair_start(entity: Entity, spec: FieldSpec) -> str | None:
    """For an end-like field (`end`, `*_end`, `until`, `*_to`...), the start-like field it follows, if any."""
    if spec.type not in ("date", "datetime"):
        return None
    names = {f.name for f in entity.fields if f.type == spec.type}
    name = spec.name
    candidates: tuple[str, ...] = ENDS.get(name, ())
    for suffix, starts in (("_end", ("_start", "")), ("_ends_at", ("_starts_at",)), ("_until", ("_from", "_start")),
                           ("_to", ("_from",))):
        if name.endswith(suffix):
            candidates += tuple(name[: -len(suffix)] + start for start in starts)
    return next((c for c in candidates if c in names and c != name), None)



def time_pairs(bp: Blueprint, entity: Entity) -> dict[str, str]:
    """end field -> start field: by name, and wherever an operation's check holds a resource over a window."""
    pairs = {spec.name: pair_start(entity, spec) for spec in entity.fields if pair_start(entity, spec)}
    names = {f.name: f.type for f in entity.fields}
    for inv in bp.invariants:  # a declared order (a trip returns after it departs) is a pair too
        if inv.kind == "order" and inv.entity == entity.name and names.get(inv.field) in ("date", "datetime") \
                and names.get(inv.field) == names.get(inv.than):
            pairs[inv.field] = inv.than
    for op in bp.operations:
        for pre in op.preconditions:
            timed = kind(pre.kind).occupies_time
            if op.entity == entity.name and timed and pre.start in names and pre.end in names \
                    and names[pre.start] == names[pre.end] and names[pre.start] in ("date", "datetime"):
                pairs[pre.end] = pre.start
    return pairs
