"""How natural and how deep a task's request reads, measured from the task alone (text + gold).

  tool_verb     a write step of the gold whose tool verb ("close", "send to theatre") or target
                status ("in repair") appears in the instruction: the request reads like a tool call
  step_list     a write task whose instruction names every write step that way, or is a numbered list
  raw_enum      a snake_case token (a raw enum value) in the text a user wrote
  glitches      doubled words, empty slots, "the X recorded of", "..", a lowercase "i", a sentence
                starting in lowercase, "for same <thing>", one attribute in two parentheses in a row
                ("(premium change 49.08) (premium change -85)"), "call off it", "and no to it", "is all
                over", a note reference where a value belongs, an opener's colon before another colon,
                "a outage", "the X currently failed", "and for ... and for", "This is all <title>", and
                similar template seams

The figures are computed the same way for any store, so a before/after comparison is fair.
"""

from __future__ import annotations

import re
import shlex
from functools import cache
from itertools import pairwise

from envcraft.core.tasks import Task
from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint, Operation, load_all, load_blueprint
from envcraft.generator.model.humanize import field_words
from envcraft.generator.seeds.values import SENTENCE_OPENERS, SENTENCE_TOPICS

GLITCHES = {
    "doubled_word": re.compile(r"\b([A-Za-z]+)\s+\1\b", re.I),
    "empty_slot": re.compile(r"\{[a-z_]*\}|\(\s*\)|\bNone\b|\bnull\b|\s,|,\s*,|:\s*[.,]"),
    "recorded_of": re.compile(r"\brecorded (of|for the) \w+ (of|for)\b|\brecorded of\b", re.I),
    "double_period": re.compile(r"(?<!\.)\.\.(?!\.)"),
    "lowercase_i": re.compile(r"(?:^|[\s,])i(?=\s)"),
    "lowercase_sentence": re.compile(r"[.!?]\s+[a-z]"),
    "dangling_same": re.compile(r"\b(for|of|to|with|on) same\b", re.I),
    "preposition_pile": re.compile(r"\b(at|to|of|for|on) (to|of|at|for)\b", re.I),
    # a pronoun goes between a phrasal verb and its particle: "call it off", never "call off it"
    "particle_before_pronoun": re.compile(r"\b(?!(?:and|or|to|then|please|just|now|so)\b)[a-z]+ "
                                         r"(?:off|up|out|down|back|away) (?:it|them)\b", re.I),  # not "and back it out"
    "bare_no_to": re.compile(r"(?:\band|[,;:]) no to\b", re.I),  # "..., and no to it, please" is no sentence
    # finished, or everywhere? done, or watched to the end? a state phrase says one state
    "vague_state": re.compile(r"\bis all over\b|\bseen through\b", re.I),
    "broken_passive": re.compile(r"\b(?:is|are) got\b", re.I),  # "the reconciliation is got ready"
    # "a outage notice", "A ACH return" ("a one-off", "a user", "a URL" are right)
    "article": re.compile(r"(?:\ba|(?:^|(?<=[.!?] ))A) (?!one\b|once\b|eu)(?:[aeio][a-z]|[AEIO][A-Z]{1,5}\b)", re.M),
    # a state after the noun, the sentence's verb lost: "the outage notice currently failed, ... went off today"
    "state_after_noun": re.compile(r"\b(?:the|a|an) [a-z]+(?: [a-z]+)? currently [a-z]+(?:ed|ing)\b"
                                  r"(?! (?:to|by|for|with|in|on|at)\b)"),  # "currently assigned to Wei" is English
    # "add a duty assignment with the bus 0023 and for RUN-031 and for the operator Sean Johnson"
    "and_for_chain": re.compile(r"\band for (?!the rest\b)[^.;:]{1,80}? and for\b"),
    # the scenario's title or an "it" with no antecedent in the user's voice: "This is all Month-end close for
    # Larkspur Software.", "It hinges on the host employee ..."
    "scenario_line": re.compile(r"\bThis is all [A-Z]|\bIt (?:hinges on|starts with) (?:the|a|an)\b"),
    # a note reference ("look the on hand up in ...") joined where a value belongs
    "note_frame_as_value": re.compile(r"\b(?:it's|should have|make it|should read|needs) (?:look|take|use) the\b", re.I),
    # a short opener ending in a colon, then another colon in the same sentence ("A request, please: About X: ...")
    "opener_double_colon": re.compile(r"(?:^|[.!?]\s+)[A-Z][a-z]*(?:,? [a-z]+){0,3}: [^.!?\n]*?(?<!\d):(?!\d)",
                                      re.M),
    # issue 19 item 5, "requests a person would write" (tests/test_request_classes.py)
    # a column's name said as words before its value: "weight kg 103", "eta minutes 4", "row ref row 28", "max
    # cases 1", "with ad pages 13", "the order's external of ..." (quantities.py says them as staff do)
    "field_speak": re.compile(r"\b(?!in\b|per\b|of\b|a\b)[a-z]{2,} (?:kg|kgs|lbs?|cm|mm|km|kwh|ml|ul|mg|pct|mb|gb|ms)\b"
                              r"|\b(?!in\b|per\b|of\b|a\b|for\b|about\b|last\b|next\b|few\b|within\b|than\b)[a-z]{2,} "
                              r"(?:minutes|hours|days|seconds|months|years|miles) \d"
                              r"|\b(\w+) ref \1\b|\b(?:max|min)(?: (?!to\b|of\b|at\b|for\b|on\b|in\b|by\b|and\b|is\b)[a-z]+){1,2} \d+\b(?![-/])"
                              r"|\b(?:with|and|,) (?:[a-z]+ )?(?:pages|people|guests|seats|adults|attendees|bedrooms|"
                              r"openings|crates needed|households served|cases on hand|cases) \d"
                              r"|\bexternal (?:of|for)\b|\bexternal\?"),
    # a record named through a chain of attribute hops: "the change request with backout plan X, of config item Y
    # with owner team Z", "with arrival ... and seating lunch, of the dining table T15"
    "query_chain": re.compile(r"\bwith [^.;!?()\n]{1,80}?, (?:of|for) [^.;!?(),\n]{1,60}? with [a-z]"
                              r"|\bwith [^.;!?()\n,]{1,60}? and [^.;!?()\n,]{1,40}, (?:of|for) (?:the )?[a-z]"),
    # a sentence that asks nothing and says nothing but where a record is: "Go by the change request ...", "...
    # is the starting point.", "the source is the patient ...", "keyed off the room reservation ..."
    "bare_seam": re.compile(r"\bis the starting point\b|(?:^|[.!?:]\s+)Go by (?:the|a|an|that)\b"
                            r"|\b[Tt]he source is (?:the|a|an)\b|\bis the source\.|\b[Kk]eyed off\b"
                            r"|\bholds what's needed\b|(?:^|[.!?]\s+)(?:All|Taken) from (?:the|a|an)\b"
                            r"|(?:^|[.!?]\s+)Based on (?:the|a|an)\b[^.!?\n]*:|\bThis comes from (?:the|a|an)\b"
                            r"|\bWe copy from\b", re.M),
    # the desk's voice for the other side's answer ("fine by us" = the tenant accepted, "we'll give it a miss" = the
    # sponsor declined), and a motive that fits no desk ("For the director's numbers, ... restore the ports")
    "wrong_actor": re.compile(r"\bfine by us\b|\bgive [^.;!?\n]{1,80}? a miss\b"),
    "odd_motive": re.compile(r"\bdirector's numbers\b|\bFor tomorrow's report\b|\bNow that the count is done\b"),
    # a note from the generic pool where the field has a pool of its own ("Left a voicemail regarding the second
    # invoice." as an incident's stakeholder update)
    "foreign_text": re.compile("(?:" + "|".join(map(re.escape, SENTENCE_OPENERS)) + ") (?:"
                               + "|".join(map(re.escape, SENTENCE_TOPICS)) + r")\."),
}
# a state that takes back what was just done to a row: "book it, then strike it - it's off" is no request a person
# makes in one breath (a failure or a no-show records an event, and may follow)
UNDOING = frozenset({"cancelled", "canceled", "cancelled_by_rider", "late_cancelled", "pending_cancellation", "void",
                     "voided", "rejected", "declined", "declined_by_seller", "disapproved", "denied", "disqualified",
                     "withdrawn", "abandoned", "aborted", "discarded", "dismissed", "superseded", "revoked",
                     "terminated", "reversed", "rolled_back", "unassigned"})
TWO_COLONS = re.compile(r"(?<!\d):(?!\d)[^.!?\n]*?(?<!\d):(?!\d)")  # in one sentence, clock times aside
PARENTHESES = re.compile(r"\(([^()]*)\) \(([^()]*)\)")  # two in a row
TOKEN = re.compile(r"[A-Za-z0-9_./@:-]+")
SNAKE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)+$")


@cache
def blueprint(env: str) -> Blueprint | None:
    path = BLUEPRINTS / f"{env}.yaml"
    return load_blueprint(path) if path.exists() else None


def op_verb(op: Operation) -> str:
    """The verb a tool's name carries: appointment_check_in -> "check in", add_walkin_party -> "add"."""
    verb = op.name.removeprefix(op.entity + "_")
    if verb == op.name:
        verb = op.name.replace(op.entity, "").strip("_") or op.kind
    return verb.replace("_", " ")


def _word_pattern(phrase: str) -> re.Pattern:
    words = phrase.lower().split()
    last = words[-1]
    stem = last[:-1] if last.endswith("e") and len(last) > 3 else last
    head = r"\s+".join(re.escape(w) for w in words[:-1])
    tail = rf"(?:{re.escape(last)}|{re.escape(stem)})(?:s|es|d|ed|ing)?"
    joint = head + r"[-\s]+" if head else ""
    return re.compile(r"\b" + joint + tail + r"\b", re.I)


def write_steps(task: Task) -> list[Operation]:
    """The domain write operations the gold performs (a shell verb counts as its operation)."""
    out = []
    for call in task.gold:
        bp = blueprint(call.env or task.envs[0])
        if bp is None:
            continue
        ops = {op.name: op for op in bp.operations}
        name = call.tool
        if name == "run_shell":
            try:
                words = shlex.split(str(call.arguments.get("command", "")))
            except ValueError:
                continue
            name = words[1].replace("-", "_") if len(words) > 1 else ""
        op = ops.get(name)
        if op is not None and op.writes:
            out.append(op)
    return out


def names_step(op: Operation, text: str) -> bool:
    if _word_pattern(op_verb(op)).search(text):
        return True
    if op.kind == "transition" and op.to_status:
        status = op.to_status.replace("_", " ")
        return bool(_word_pattern(status).search(text)) or op.to_status.lower() in text.lower()
    return False


def raw_enum(text: str) -> list[str]:
    """snake_case tokens outside paths, emails and codes."""
    found = []
    for token in TOKEN.findall(re.sub(r"`[^`]*`", " ", text)):  # a quoted code is written as it is
        token = token.strip(".:,-")
        if any(c in token for c in "/@") or "." in token:
            continue
        if SNAKE.match(token):
            found.append(token)
    return found


@cache
def labels() -> tuple[str, ...]:
    """Every field's name as a request says it, longest first: the label of "premium change 49.08"."""
    names = {field_words(f.name).lower() for bp in load_all() for e in bp.entities for f in e.fields}
    return tuple(sorted(names, key=len, reverse=True))


def _labels_in(inner: str) -> set[str]:
    found = set()
    for item in re.split(r", | and ", inner.lower()):
        label = next((name for name in labels() if item.startswith(name + " ")), None)
        if label is not None:
            found.add(label)
    return found


def repeated_attributes(text: str) -> list[str]:
    """One attribute in two parentheses in a row: "the endorsement (premium change 49.08) (premium change -85)"
    names the row by the value the same sentence changes (not "(cases on hand 106) (cases 32)": two labels)."""
    return [f"repeated_attribute: {text[max(0, m.start() - 20):m.end() + 20]!r}" for m in PARENTHESES.finditer(text)
            if _labels_in(m.group(1)) & _labels_in(m.group(2))]


def first_sentence(text: str) -> str:
    """Up to the first full stop, question or exclamation mark, with clock times ("09:30") taken out: a lead
    that ends in a colon ("Quick one:", "Re the claim X:") is followed by a period instead when this holds a
    colon, so that no sentence holds two."""
    return re.sub(r"\d:\d", "", re.split(r"(?<=[.!?])(?:\s|$)", text, maxsplit=1)[0])


# the words our clauses open with: after a lead's colon the clause goes on in lower case ("Some loose ends: the
# gift ..."), a name or a code keeps its capital
STARTERS = frozenset({"The", "A", "An", "Please", "We", "We're", "We've", "We'll", "There", "That", "This", "It", "It's",
                      "They", "Then", "Could", "Can", "Enter", "Add", "Set", "Get", "Mark", "Fix", "Put", "Write",
                      "Scrap", "Stop", "Pull", "Turn", "Give", "Call", "Release", "Wipe", "Someone", "Nobody",
                      "Forget", "Our", "What", "How", "Which", "Do", "Work", "Nothing", "No", "Let", "Take", "Move",
                      "Send", "Close", "Cancel", "Park", "Book", "Log", "Record", "Update", "Change"})


def after_colon(text: str) -> str:
    """A clause as it goes on after a colon: "The gift ..." -> "the gift ...", "Maya Chen ..." stays."""
    word = re.match(r"[A-Za-z']+", text)
    return text[:1].lower() + text[1:] if word and word.group(0) in STARTERS else text


def glitches(text: str) -> list[str]:
    out = []
    for name, pattern in GLITCHES.items():
        for match in pattern.finditer(text):
            if name == "doubled_word" and (match.group(1).isdigit() or
                                           match.group(0).split()[0] != match.group(0).split()[-1]):
                continue  # "Dan dan noodles" is a name, "run run" a seam
            out.append(f"{name}: {text[max(0, match.start() - 20):match.end() + 20]!r}")
    return out + repeated_attributes(text)


def undone_in_task(task: Task, existing: dict[str, set[str]]) -> list[str]:
    """Gold calls that cancel, reject or delete a row an earlier call changed or the task created (an id not among
    `existing`: env -> the ids of its seed and planted rows). No turn of ours gives a reason for taking back what
    an earlier one asked, so a later turn does not make it a request either."""
    out, touched = [], set()
    for call in task.gold:
        env = call.env or task.envs[0]
        bp = blueprint(env)
        name, args = call.tool, call.arguments
        if name == "run_shell":
            try:
                words = shlex.split(str(args.get("command", "")))
            except ValueError:
                continue
            name = words[1].replace("-", "_") if len(words) > 1 else ""
            args = {w[2:].replace("-", "_"): v for w, v in pairwise(words[2:]) if w.startswith("--")}
        op = next((o for o in bp.operations if o.name == name), None) if bp else None
        if op is None or not op.writes:
            continue
        target = args.get(f"{op.entity}_id")
        undoes = op.kind == "delete" or (op.kind == "transition" and op.to_status in UNDOING)
        if undoes and target and ((env, target) in touched or target not in existing.get(env, set())):
            out.append(f"{name} {target} (turn {call.turn})")
        if target:
            touched.add((env, target))
    return out


def measure(task: Task) -> dict:
    """Per-task figures: write steps, steps named by verb/status, step-list flag, raw enums, glitches."""
    text = "\n".join(task.turns)
    steps = write_steps(task)
    named = sum(1 for op in steps if names_step(op, text))
    numbered = bool(re.search(r"(?m)^\s*2\.\s", text))
    return {"writes": len(steps), "named": named, "step_list": bool(steps) and (named == len(steps) or numbered),
            "raw_enum": raw_enum(text), "glitches": glitches(text)}


__all__ = ["UNDOING", "after_colon", "first_sentence", "glitches", "measure", "names_step", "op_verb", "raw_enum",
           "undone_in_task", "write_steps"]
