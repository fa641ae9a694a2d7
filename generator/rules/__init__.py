"""Rule kinds: the checks a blueprint policy can carry, one module each.

A kind's module holds everything the kind means: which fields of a check it reads, the code app.py runs for
it, the fact it states about a seed row, how the seed is repaired to obey it, the world the audit builds to
break it, and what it tells the task engine. Everything else asks the registry for the kind by name
(`registry.kind(pre.kind)`) and never compares a check's kind with a string.

This module is the one place the names are listed: the Blueprint model validates a check's `kind` against
them (so it imports nothing of the kinds), and `generator/rules/registry.py` maps each name to its module.
Adding a kind is adding its name here and a module named after it.
"""

# Every check kind, in the order the blueprint schema lists them.
NAMES = ("status_in", "field_equals", "no_overlap", "capacity", "at_least", "unique", "not_in_past", "ref_in",
         "compare", "requires", "forbids", "time_window", "aggregate", "is_set", "happens_now",
         "arithmetic", "open_period", "from_previous", "listed", "within_days")

# Check options only some kinds read: option -> (those kinds, what the Blueprint model says when another has it).
OPTION_OWNERS = {
    "months": (("time_window",), "belongs to a time_window"),
    "at": (("requires", "forbids"), "is a moment of ours inside a related row's `start` and `end` (requires / forbids)"),
    "their": (("requires", "forbids"), "filters the related rows of a requires / forbids"),
    "gap_minutes": (("no_overlap",), "belongs to a no_overlap"),
    "early_days": (("happens_now",), "is the window of a happens_now (with `late_days`)"),
    "late_days": (("happens_now",), "is the window of a happens_now (with `early_days`)"),
    "via": (("compare",), "and `factor` belong to a compare of `field` with `than` or a referenced row's field"),
    "factor": (("compare",), "and `via` belong to a compare of `field` with `than` or a referenced row's field"),
    "order": (("compare",), "belongs to an unscaled compare"),
    "or_via": (("compare",), "adds fields to the `via` of an unscaled == compare with another field"),
    "through": (("ref_in", "compare"), "is the first hop to the row a ref_in / compare reads (ref_field + other_field)"),
    "formula": (("arithmetic",), "belongs to an arithmetic check: what its `field` is compared with"),
    "key": (("listed",), "and `listed` belong to a listed check: the price list by kind"),
    "listed": (("listed",), "and `key` belong to a listed check: the price list by kind"),
    "span_days": (("within_days",), "belongs to a within_days check: the days between two dates"),
    "aggregate": (("aggregate",), "belongs to an aggregate check (and only one), which says what it works out in it"),
}
# Check options a kind cannot do without: kind -> {option: what the Blueprint model says when it is missing}.
REQUIRED_OPTIONS = {
    "is_set": {"field": "names the `field` that must have a value"},
    "happens_now": {"field": "names the `field` holding when the event takes place"},
    "aggregate": {"aggregate": "check (and only one) says what it works out in `aggregate`"},
    "listed": {"field": "names the `field` whose amount is listed", "key": "names the `key` field the prices are listed by",
               "listed": "lists the amounts by kind in `listed`"},
    "within_days": {"op": "compares the days between the dates with `op`", "span_days": "names the number of days in `span_days`"},
    "arithmetic": {"field": "names the `field` written", "op": "compares its `field` with `op`",
                   "formula": "says what its field is compared with in `formula` (function and terms)"},
}
