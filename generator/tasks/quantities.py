"""Numbers said as staff say them, not as the column is named (issue 19 item 5, "field-name speak").

A column named for its unit, its count or its cap reads as a form when its name is put before the value:
"weight kg 103", "ad pages 13", "people 5", "max cases 1", "page count 348". Staff say "weight 103 kg",
"13 ad pages", "5 people", "a limit of 1 case", "348 pages". This module turns an int or float column's name
and its rendered value into those words, in three places: a value a request states (`stated`), a value that
picks a record out (`pointed`: "the magazine issue with 13 ad pages"), and the column a question asks about
(`noun`: "the weight in kg", "the number of ad pages"). A column none of the rules fits returns None (or its
plain words from `noun`), and the caller says it as before.
"""

from __future__ import annotations

from envcraft.generator.model.entity import FieldSpec
from envcraft.generator.model.humanize import field_words
from envcraft.generator.model.plurals import plural

# a column's last word -> the unit as it is written after a number
UNITS = {"kg": "kg", "lb": "lb", "lbs": "lb", "cm": "cm", "mm": "mm", "km": "km", "miles": "miles", "kwh": "kWh",
         "kw": "kW", "mw": "MW", "ul": "µl", "ml": "ml", "pct": "%", "c": "°C", "mb": "MB", "gb": "GB", "ms": "ms",
         "sec": "seconds", "seconds": "seconds", "minutes": "minutes", "hours": "hours", "days": "days",
         "months": "months", "years": "years", "nm": "nM", "bu": "bushels", "dpi": "dpi"}
PER = {"kwh": "kWh", "bu": "bushel", "min": "minute", "mile": "mile", "day": "day", "session": "session",
       "person": "person", "week": "week", "month": "month"}  # "incentive_per_kwh" -> "incentive 0.05 per kWh"
NOT_PLURAL = {"status", "bonus", "basis", "gross", "loss", "address", "class", "process", "access", "series",
              "analysis", "news", "plus", "minus", "canvas", "campus", "census", "previous", "various", "labor",
              "parts", "cvss", "ltv", "brix"}
IRREGULAR = {"people": "person", "children": "child"}
# words after a counted noun: "households served 822" -> "822 households served"
AFTER = ("served", "used", "left", "remaining", "needed", "open", "available", "affected", "found", "failed",
         "allowed", "total", "on hand", "per week", "per month", "per season", "per restock")
# columns no rule says well: said whole
WHOLE = {"max_concurrent": "up to {v} at a time", "max_in_flight": "up to {v} in flight",
         "max_pending": "up to {v} pending", "max_kw": "a maximum of {v} kW",
         "min_to_guarantee": "a guaranteed minimum of {v}"}
PEOPLE = {"people", "guests", "adults", "travelers", "attendees"}  # "the booking for 5 people"
# a measure named by an adjective or a participle goes after its amount: "with 3 kW available", never "with an
# available of 3 kW"
AFTER_AMOUNT = {"available", "regular", "overtime", "engine", "milk", "fat", "defect", "left", "max", "monthly"}


def _plural_word(word: str) -> bool:
    return word in IRREGULAR or (word.endswith("s") and not word.endswith(("ss", "us", "is"))
                                 and word not in NOT_PLURAL and word not in UNITS)


def _one(noun: str) -> str:
    """The counted noun for a count of one: "ad pages" -> "ad page", "people" -> "person", "retries" -> "retry"."""
    head, _, last = noun.rpartition(" ")
    if last in IRREGULAR:
        single = IRREGULAR[last]
    elif last.endswith("ies"):
        single = last[:-3] + "y"
    elif last.endswith(("ches", "shes", "xes", "sses")):
        single = last[:-2]
    else:
        single = last[:-1]
    return f"{head} {single}".strip()


def _count(noun: str, shown: str) -> str:
    return f"{shown} {_one(noun) if shown == '1' else noun}"


def _article(noun: str) -> str:
    first = noun.split()[0]
    vowel = first[:1].lower() in "aeio" or (first.isupper() and first[:1] in "FHLMNRSX")  # "an SLA"
    return f"{'an' if vowel else 'a'} {noun}"


def _counted(name: str) -> tuple[str, str] | None:
    """(the counted noun, the words after the number) for a column that counts things: "ad_pages" -> ("ad pages",
    ""), "households_served" -> ("households", "served"), "page_count" -> ("pages", ""), or None."""
    said = field_words(name)
    for tail in AFTER:
        head = said.removesuffix(" " + tail)
        if head != said and _plural_word(head.split()[-1]):
            return head, tail
    if said.endswith(" count") and " " in said:
        head = said.removesuffix(" count")
        if head.split()[-1].endswith(("ed", "ing")):
            return None  # "failed count": no noun to count
        return plural(head.replace(" ", "_")).replace("_", " "), ""
    if _plural_word(said.split()[-1]) or (said in UNITS.values() and said.endswith("s")):
        return said, ""
    return None


def unit(name: str) -> tuple[str, str] | None:
    """(what is measured, its unit) for a column named for its unit: "weight_lbs" -> ("weight", "lb"),
    "incentive_per_kwh" -> ("incentive", "per kWh")."""
    head, _, last = field_words(name).rpartition(" ")
    last = last.lower()
    if head.endswith(" per") and last in PER:
        if _plural_word(head.removesuffix(" per").split()[-1]):
            return None  # "sessions per week": a count (`_counted`)
        return head.removesuffix(" per"), f"per {PER[last]}"
    if last not in UNITS or (not head and UNITS[last].isalpha() and UNITS[last].islower() and len(UNITS[last]) > 3):
        return None  # "days 6" is a count (`_counted`): "6 days"
    return head, UNITS[last]  # a column that is its unit ("kwh") measures with no stem: "275.7 kWh"


def _amount(shown: str, unit_: str) -> str:
    if shown == "1" and unit_.endswith("s") and unit_.islower():
        unit_ = _one(unit_)  # "1 day", "1 mile"
    return f"{shown}{'' if unit_ in ('%', '°C') else ' '}{unit_}"


def _counts(spec: FieldSpec) -> bool:
    """An int column counts things; a float only time or distance ("12.5 days"), never money ("parts 150.0")."""
    return spec.type == "int" or field_words(spec.name) in UNITS.values()


def _adjective(stem: str) -> bool:
    return stem.split()[-1].endswith("ed") or stem.split()[-1] in AFTER_AMOUNT


def stated(spec: FieldSpec, shown: str) -> str | None:
    """The value as a request states it: "weight 103 kg", "13 ad pages", "5 people", "a limit of 1 case"; None
    for a column whose plain "<name> <value>" already reads well."""
    if spec.type not in ("int", "float"):
        return None
    name = spec.name
    if name in WHOLE:
        return WHOLE[name].format(v=shown)
    for bound, word in (("max_", "maximum"), ("min_", "minimum")):
        rest = name.removeprefix(bound)
        if rest == name:
            continue
        measured = unit(rest)
        if measured is not None:
            return f"a {word} {measured[0]} of {_amount(shown, measured[1])}"
        counted = _counted(rest) if _counts(spec) else None
        if counted is not None:
            said = _count(counted[0], shown) + (f" {counted[1]}" if counted[1] else "")
            return f"a limit of {said}" if bound == "max_" else f"at least {said}"
        return f"a {word} {field_words(rest)} of {shown}"
    measured = unit(name)
    if measured is not None:
        return f"{measured[0]} {_amount(shown, measured[1])}".strip()
    counted = _counted(name) if _counts(spec) else None
    if counted is not None:
        noun, tail = counted
        return _count(noun, shown) + (f" {tail}" if tail else "")
    return None


def pointed(spec: FieldSpec, shown: str) -> str | None:
    """The value as it picks a record out, after the record's noun: "with 13 ad pages", "for 5 people",
    "with a weight of 39355 lb", "with a limit of 3 active batches"; None where `stated` is."""
    said = stated(spec, shown)
    if said is None:
        return None
    if spec.name in PEOPLE:
        return f"for {said}"
    measured = unit(spec.name) if spec.name not in WHOLE and not spec.name.startswith(("max_", "min_")) else None
    if measured is not None:
        stem, unit_ = measured
        if not stem or _adjective(stem):
            return f"with {_amount(shown, unit_)} {stem}".rstrip()
        return f"with {_article(stem)} of {_amount(shown, unit_)}"
    return f"with {said}"


def noun(spec: FieldSpec | None, name: str) -> str:
    """The column as a question asks for it: "weight in kg", "number of ad pages", "maximum number of cases"."""
    if spec is None or spec.type not in ("int", "float"):
        return field_words(name)
    for bound, word in (("max_", "maximum"), ("min_", "minimum")):
        rest = name.removeprefix(bound)
        if rest != name:
            counted = _counted(rest) if _counts(spec) else None
            if unit(rest) is None and counted is not None and not counted[1]:
                return f"{word} number of {counted[0]}"
            if rest in UNITS:
                return f"{word} {UNITS[rest]}"
            return f"{word} {noun(spec, rest)}"
    measured = unit(name)
    if measured is not None:
        stem, unit_ = measured
        if not stem:
            return f"number of {unit_}"  # "number of kWh"
        if unit_ == "%":
            return f"{stem} percentage"
        spoken = unit_.startswith("per ") or (_adjective(stem) and (len(unit_) > 3 or not unit_.islower()))
        return f"{stem} {unit_}" if spoken else f"{stem} in {unit_}"  # "overtime hours", "available kW", "milk in kg"
    counted = _counted(name) if _counts(spec) else None
    if counted is not None and not counted[1]:
        return f"number of {counted[0]}"
    return field_words(name)


__all__ = ["noun", "pointed", "stated", "unit"]
