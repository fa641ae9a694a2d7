"""Why the parts of a multi-part request belong together (issue 19: "the scope is down, so move Friday's two sessions").

A request that changes two or three records reads as unrelated orders unless the person says what joins
them. The join is found in the world, never invented: a record every changed row is or points at (the
claim a payment is on, the finding a ticket is opened for, the client whose event gets staff). The reason
names that record the way the request already names it, and only says why the asker is on it (it is on
their desk, they are sorting it out), never an event the rows could contradict. Where the parts share no
record, the reason is the asker's own situation (jobs before a handover), which claims no link and denies
none, or there is none: no link is faked.

A reason is words only: it is drawn from its own RNG seeded by the rows it ties, so the task's rows, gold
and checks are what they would be without it. At most three fixed words come before the record's name
(which starts "the <entity>") and a fixed sentence is at most four words, so no reason becomes a store-wide
5-gram (realism.top20_5gram_coverage); the many templates keep openings distinct.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from envcraft.generator.tasks.describe import Desc, Describer, words
from envcraft.generator.tasks.env import EnvSpec, Tables
from envcraft.generator.tasks.execute import Step
from envcraft.generator.tasks.quality import after_colon, first_sentence

GENERIC = 0.25  # a record that this share of some table's rows points at is too common to tie parts together
SITUATION_SHARE = 0.35  # of multi-part requests with no shared record, those that say the asker's situation
# {a}: the shared record as the request names it. Said by the asker about their own work on it (no event in the
# world is claimed, no count that merged steps or a note could make wrong).
ABOUT = ("{A} is on my desk.", "{A} is on my plate.", "{A} is today's job:", "{A} needs some attention:",
         "{A} needs sorting out:", "{A} is what I'm on:", "{A} is on my list:", "{A} is my focus today.",
         "{A} is next up.", "{A} - a few things:", "{A} has loose ends:", "{A} is my priority:",
         "I'm sorting out {a}.", "I'm working through {a}.", "It's all for {a}.", "It's all about {a}.",
         "Working on {a} today:", "To get {a} straight:", "While I have {a} open:", "About {a}:", "Picking up {a}:",
         "Tidying up {a}.", "Following up on {a}:", "Re {a}:", "All this concerns {a}.", "For {a}:",
         "I've got {a} open.")
# The asker's own situation, when nothing the request names joins the parts: no link claimed, none denied.
SITUATION = ("Bits before the handover.", "Before I sign off:", "Catching up today:", "Mixed bag today:",
             "Before our check-in:", "Several small jobs:", "Some loose ends:", "Before the review:", "Odds and ends:",
             "My list for today:", "Clearing the decks:", "Before the week closes:")
# Across two systems: a value of the source record is carried over, which is all the link claims. The part in
# the other system names that system and the carried detail itself, so these name neither. Each asks for something
# or says where the details are: never a bare "X is the starting point." / "Go by X." / "Keyed off X." that asks
# nothing (the glitch lint's "bare_seam").
ACROSS = ("The details come from {a} in {src}.", "Look up {a} in {src} first.", "Pull up {a} in {src} first:",
          "Open {a} in {src} for the details.", "{A} in {src} has the details.", "Details are on {a} in {src}.",
          "Use the details on {a}.", "Copy the details from {a}.", "Find {a} in {src} first:",
          "{A} in {src} has what you need.", "Get the details from {a}:", "Check {a} in {src} for the details:")


@dataclass(frozen=True)
class Tie:
    """The record that joins a request's parts, and the rows it joins (each is it or points at it)."""

    entity: str
    row_id: str
    phrase: str
    parts: tuple[str, ...]


def written(steps: list[Step]) -> list[tuple[str, str]]:
    """The distinct rows the steps change, in order: (entity, id)."""
    out: list[tuple[str, str]] = []
    for step in steps:
        if step.writes and step.target and (step.entity, step.target) not in out:
            out.append((step.entity, step.target))
    return out


def _versions(tables: list[Tables], table: str, row_id: str) -> list[dict]:
    return [r for t in tables for r in t.get(table, []) if r["id"] == row_id]


def reaches(env: EnvSpec, tables: list[Tables], entity: str, row_id: str, created: set[str],
            depth: int = 0) -> set[tuple[str, str]]:
    """The row and every row it points at, in any version; through a row the request creates, one hop further
    (a booking on a new event reaches the event's client)."""
    out = {(entity, row_id)}
    spec = env.entity(entity)
    for row in _versions(tables, spec.table, row_id):
        for f in spec.fields:
            value = row.get(f.name)
            if f.type != "ref" or not isinstance(value, str) or (f.ref, value) in out:
                continue
            out.add((f.ref, value))
            if value in created and depth < 1:
                out |= reaches(env, tables, f.ref, value, created, depth + 1)
    return out


def fan_in(tables: list[Tables], row_id: str) -> float:
    """The largest share of a table's rows that point at the row: how little a link through it says."""
    out = 0.0
    for table in {name for t in tables for name in t if not name.startswith("_")}:  # not the change log
        rows = {r["id"]: r for t in tables for r in t.get(table, [])}
        if rows:
            out = max(out, sum(row_id in r.values() for r in rows.values()) / len(rows))
    return out


def shared(env: EnvSpec, tables: list[Tables], rows: list[tuple[str, str]], created: set[str]) -> list[tuple[str, str]]:
    """Existing rows that every changed row is or points at, the most telling first: a changed row (the claim
    a payment is on and which closes), then the row fewest others point at. A row a large share of some table
    points at (the one service type most appointments have) says nothing about why these parts go together."""
    if len(rows) < 2:
        return []
    common = set.intersection(*(reaches(env, tables, e, i, created) for e, i in rows))
    common = {(e, i) for e, i in common if i not in created and fan_in(tables, i) <= GENERIC}
    return sorted(common, key=lambda k: (k not in rows, fan_in(tables, k[1]), k))


def named_as(describer: Describer, key: tuple[str, str], text: str) -> str | None:
    """How the request already names the row (a cached description found in the text), or None."""
    desc = describer.cache.get(key)
    return desc.phrase if desc is not None and desc.phrase and desc.phrase in text else None


def tie(env: EnvSpec, tables: list[Tables], steps: list[Step], created: set[str], describer: Describer,
        text: str, seen: dict[str, set[str]]) -> Tie | None:
    """The shared record of a multi-part request: as the request names it, else described afresh (by its own
    RNG, so the task's other draws stay as they were) when no other row of its kind is named; or None."""
    rows = written(steps)
    common = shared(env, tables, rows, created)
    parts = tuple(i for _, i in rows)
    for key in common:
        phrase = named_as(describer, key, text)
        if phrase is not None:
            return Tie(key[0], key[1], phrase, parts)
    for key in common:
        fresh = Describer(env, describer.initial, describer.final, random.Random(f"tie:{key[1]}:{':'.join(parts)}"),
                          describer.created, describer.via)
        desc = fresh.describe(*key)
        if desc is None or not desc.phrase or any(seen.get(words(e), set()) - {i} for e, i in _named(desc)):
            continue  # another row of a kind it names is named too: "that X" later on could mean either
        return Tie(key[0], key[1], desc.phrase, parts)
    return None


def _named(desc: Desc) -> list[tuple[str, str]]:
    """The rows a description names: its own, and those it names them by ("the appointment of pet Milo")."""
    return [(desc.entity, desc.row_id), *(k for inner in desc.nested.values() for k in _named(inner))]


def _pick(rng: random.Random, templates: tuple[str, ...], phrase: str) -> str:
    """A template; one that ends on the name when the name ends in a period ("the court E.D. Tex."), so no
    sentence runs on after it in lower case and no period doubles."""
    if phrase.endswith("."):
        templates = tuple(t for t in templates if t.endswith(("{a}.", "{A}.")))
    return rng.choice(templates)


def _fill(template: str, phrase: str, **more: str) -> str:
    more |= {k.capitalize(): v[:1].upper() + v[1:] for k, v in more.items()}
    text = template.format(a=phrase, A=phrase[:1].upper() + phrase[1:], **more)
    text = text[:-1] if text.endswith("..") else text
    return text[:1].upper() + text[1:]


def about(found: Tie) -> str:
    """The reason, in the asker's voice, for the shared record."""
    rng = random.Random(f"about:{found.row_id}:{':'.join(found.parts)}")
    return _fill(_pick(rng, ABOUT, found.phrase), found.phrase)


def situation(env: EnvSpec, rows: list[tuple[str, str]]) -> str | None:
    """For some requests whose parts share nothing: the asker's situation."""
    rng = random.Random(f"situation:{env.name}:{':'.join(i for _, i in rows)}")
    if len(rows) < 2 or rng.random() >= SITUATION_SHARE:
        return None
    return _fill(rng.choice(SITUATION), "")


def across(phrase: str, src: str, dst: str, key: str) -> str:
    """The reason of a cross-environment request: the source record a value of which the other system takes."""
    rng = random.Random(f"across:{key}")
    return _fill(_pick(rng, ACROSS, phrase), phrase, src=src, b=dst)


def back_reference(text: str, phrase: str, entity: str) -> str:
    """The text with its first naming of the record after the reason shortened to "that <entity>": the
    reason said it in full, and it is the only row of its kind the request names."""
    short = f"that {words(entity)}"
    at = text.find(phrase)
    if at < 0:
        return text
    head = "That" if at == 0 or re.search(r"[.:!?]\s*$", text[:at]) else "that"
    return text[:at] + head + short[4:] + text[at + len(phrase):]


def explain(env: EnvSpec, tables: list[Tables], steps: list[Step], created: set[str], describer: Describer,
            seen: dict[str, set[str]], bodies: dict[int, str]) -> tuple[dict[int, str], Tie | None, str | None]:
    """The turns' bodies with the reason leading the first: (bodies, the tie or None, "shared" / "situation" /
    None). `seen`: entity words -> the rows of that kind the request names (Writer.seen)."""
    rows = written(steps)
    if len(rows) < 2:
        return bodies, None, None
    out = dict(bodies)
    first = min(out)
    found = tie(env, tables, steps, created, describer, " ".join(out.values()), seen)
    if found is None and shared(env, tables, rows, created):
        return out, None, None  # joined by a record that cannot be named plainly: better no reason than a wrong one
    if found is None:
        said = situation(env, rows)
        out[first] = lead_with(said, out[first])
        return out, None, "situation" if said else None
    at = next((t for t in sorted(out) if found.phrase in out[t]), None)
    if at is not None and seen.get(words(found.entity)) == {found.row_id}:  # named in full first; then "that X"
        out[at] = back_reference(out[at], found.phrase, found.entity)
    out[first] = lead_with(about(found), out[first])
    return out, found, "shared"


def explain_across(env: EnvSpec, tables: list[Tables], steps: list[Step], created: set[str], describer: Describer,
                   source: tuple[str, str], phrase: str, src: str, dst: str, seen: dict[str, set[str]],
                   bodies: list[str]) -> tuple[list[str], Tie]:
    """A cross-environment request's bodies with its reason first: the record joining the work in A and the
    source row (the guest whose stay ends and whose country is copied), else the source row whose value is
    carried. `seen`: entity words -> the rows of that kind the request names, in either system."""
    rows = written(steps)
    found = None
    for key in shared(env, tables, rows + [source], created) if rows else []:
        said = phrase if key == source else named_as(describer, key, " ".join(bodies))
        if said is not None:
            found = Tie(key[0], key[1], said, tuple(i for _, i in rows + [source]))
            break
    lead = 0
    if found is not None:
        reason = about(found)
    else:  # the work in A (if any) is its own; the reason leads the part in B, which the value joins
        found = Tie(source[0], source[1], phrase, (source[1],))
        reason = across(phrase, src, dst, f"{src}:{source[1]}:{dst}")
        lead = len(bodies) - 1
    out = list(bodies)
    if lead == 0 and len(out) > 1 and found.phrase in out[0] and seen.get(words(found.entity), set()) <= {found.row_id}:
        out[0] = back_reference(out[0], found.phrase, found.entity)  # in A's part only: the carried detail keeps
        # the full name, so "copy the name of that X" does not become a store-wide formula
    out[lead] = lead_with(reason, out[lead])
    return out, found


def lead_with(reason: str | None, body: str) -> str:
    """The reason as the body's first sentence."""
    if not reason:
        return body
    if reason.endswith(":") and ":" in first_sentence(body):  # "Re the claim X. Add a payment: ...", one colon each
        reason = reason[:-1] + "."
    if not body:
        return reason
    return f"{reason} {after_colon(body) if reason.endswith(':') else body[:1].upper() + body[1:]}"


__all__ = ["GENERIC", "Tie", "about", "across", "explain", "explain_across", "fan_in", "shared", "tie", "written"]
