"""The conventions every generated environment shares, stated once: SKILL.md prints them, the rule lint
(generator/audit/rule_lint.py) accepts them as backed, because the shared runtime enforces each for every
environment (servers/envcraft_runtime: records.page_of pages and filters a search, the `write` decorator
saves nothing from a failed call, history.change_page reads the append-only change log).

They say nothing about an environment's own hours, slots or limits: those are its policies and its docs,
and a generic line must never contradict them.
"""

from __future__ import annotations

from envcraft.generator.model.blueprint import Blueprint

SEARCH = ("Search filters are optional: text fields match any part, ignoring case; the others must match exactly. "
          "Results come in id order, at most `limit` (default 20) from `offset`; a cut result says so "
          "(\"20 of 57 shown; pass offset=20 for the rest\").")
FAILED_WRITE = "A write that fails changes nothing; its error says what to do instead."
HISTORY = ("Every change is kept in a history that `list_changes` reads, newest first: when, by whom (a colleague's "
           "name, or `assistant` for changes made through these tools), which field of which record, from what to "
           "what. Give `table` or `row_id` to narrow it; to see what a record was before, or who changed it, look "
           "there. The history cannot be edited.")


def conventions(bp: Blueprint) -> list[str]:
    """SKILL.md's "Conventions" bullets for this environment."""
    return [
        f"- Today is {bp.today}. Dates are written `YYYY-MM-DD` and times `YYYY-MM-DDTHH:MM` (24-hour); any opening "
        "hours or slot lengths are the ones this environment's documents and policies give.",
        f"- Records are named by ids like `{bp.entities[0].id_prefix}-0001`: search first, then act on the id. Several "
        "records can look alike (similar names, repeated titles), so compare their details.",
        "- " + SEARCH,
        "- " + FAILED_WRITE,
        "- " + HISTORY,
    ]


def runtime_sentences() -> list[str]:
    """The shared sentences the runtime enforces: the lint's backing besides the environment's policies."""
    from envcraft.generator.compile.extras import READ_POLICIES, READ_POLICIES_FILTER  # read_policies' `tool` filter

    return [SEARCH, FAILED_WRITE, HISTORY, READ_POLICIES, READ_POLICIES_FILTER]


__all__ = ["conventions", "runtime_sentences"]
