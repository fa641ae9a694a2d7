"""English plurals of entity names, for table names and the prose built from them.

    plural("auto_policy") -> "auto_policies";  plural("depot_bus") -> "depot_buses"
    plural("facilities_tech") -> "facilities_techs";  plural("bordereau") -> "bordereaux"

Only the last word of a snake_case name changes. A small rule set rather than a library: the one
candidate (inflect) is not installed and still says "teches", and these rules cover the nouns our
blueprints use; tests/test_plurals.py lints every table name of every blueprint against them.
"""

from __future__ import annotations

IRREGULAR = {"person": "people", "child": "children", "man": "men", "woman": "women", "foot": "feet",
             "tooth": "teeth", "mouse": "mice", "goose": "geese", "criterion": "criteria", "datum": "data",
             "bordereau": "bordereaux", "quiz": "quizzes", "leaf": "leaves", "half": "halves", "shelf": "shelves",
             "wolf": "wolves", "calf": "calves", "thief": "thieves", "knife": "knives", "wife": "wives",
             "life": "lives", "hero": "heroes", "potato": "potatoes", "tomato": "tomatoes", "echo": "echoes",
             "veto": "vetoes", "embargo": "embargoes", "cargo": "cargoes", "torpedo": "torpedoes"}
UNCHANGED = {"sheep", "fish", "series", "species", "staff", "equipment", "software", "data", "media", "news",
             "feedback", "personnel", "aircraft"}
HARD_CH = ("tech", "epoch", "stomach", "monarch", "matriarch", "patriarch", "oligarch")  # "ch" said as k: + "s"


def plural_word(word: str) -> str:
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word in UNCHANGED:
        return word
    if word.endswith("sis"):  # analysis -> analyses
        return word[:-2] + "es"
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u"):
        return word[:-1] + "ies"
    if word.endswith(HARD_CH):
        return word + "s"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


def plural(name: str) -> str:
    """The plural of a snake_case noun phrase: its last word made plural."""
    head, sep, last = name.rpartition("_")
    return f"{head}{sep}{plural_word(last)}"
