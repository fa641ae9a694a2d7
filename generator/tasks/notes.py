"""Workspace needs: a value the request does not state because a colleague's note holds it.

The request points at the note ("the due date is in my note notes/nina-pet.md"); the note also
carries an out-of-date value, marked as such, so an agent has to read it rather than guess. The
gold reads the note before the write that uses the value.
"""

from __future__ import annotations

import random
from typing import Any

from envcraft.generator.tasks.decoys import shifted
from envcraft.generator.tasks.describe import render, words
from envcraft.generator.tasks.env import EnvSpec
from envcraft.generator.tasks.execute import Plan, Step
from envcraft.generator.tasks.quantities import noun

HIDEABLE = ("date", "int", "float", "str", "email")


def pick_hidden(env: EnvSpec, plan: Plan, rng: random.Random) -> tuple[Step, str, Any] | None:
    """A stated scalar of a write (not a ref, enum, flag or half of a time window) to move into a note."""
    options = []
    for step in plan.steps:
        if step.kind not in ("create", "update") or not step.fields:
            continue
        entity = env.entity(step.entity)
        pairs = env.pairs(entity)
        paired = set(pairs) | set(pairs.values())
        for name, value in step.fields.items():
            spec = entity.field(name)
            if spec.type in HIDEABLE and not spec.values and name not in paired and name != step.override \
                    and value not in (None, "") and not isinstance(value, bool):
                options.append((step, name, value))
    return rng.choice(options) if options else None


def note_for(env: EnvSpec, plan: Plan, step: Step, name: str, value: Any, author: str,
             rng: random.Random) -> tuple[str, str, str]:
    """(path, file text, the phrase the request uses instead of the value)."""
    entity = env.entity(step.entity)
    spec = entity.field(name)
    first = author.split()[0]
    path = f"notes/{first.lower()}-{entity.name.replace('_', '-')}.md"
    shown = render(spec, value)
    stale = shifted(env, entity, spec, value, rng, plan.initial)
    said = noun(spec, name)
    lines = [f"# {words(entity.name).capitalize()} - note from {author}", "", f"- {said[:1].upper() + said[1:]}: {shown}"]
    if stale not in (None, value):
        lines.append(f"- (Ignore the {noun(spec, name)} {render(spec, stale)} from my earlier message: it changed.)")
    text = "\n".join(lines) + "\n"
    what = noun(spec, name)  # "the weight in kg is in my note", never "weight kg - see ..."
    return path, text, rng.choice(FRAMES).format(what=what, where=rng.choice(PLACES).format(path=path, file=path.split("/")[-1]))


# How the request points at the note: a frame around the field and a place, each at most three fixed words next to
# the path, which carries the author's name, so that no wording recurs word for word (realism.top20_5gram_coverage)
FRAMES = ("the {what} is in {where}", "{what} - see {where}", "take the {what} from {where}", "for the {what}, check {where}",
          "the {what} is written down in {where}", "use the {what} from {where}", "{what} as noted in {where}",
          "you'll find the {what} in {where}", "the {what}? It's in {where}", "{what} per {where}",
          "look the {what} up in {where}", "I put the {what} in {where}", "the {what} I noted is in {where}",
          "{what} - it's in {where}")
PLACES = ("{path}", "my note {path}", "the note {path}", "my file {path}", "{path} (my note)", "{path} (my notes)",
          "{path}, saved earlier", "{file} in notes/", "{path} (call notes)", "{path} from the call",
          "the note I left ({file})", "{file} under notes/", "today's note {path}", "{path}, written up")
