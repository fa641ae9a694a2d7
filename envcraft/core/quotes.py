"""Words copied from the workspace's own documents are a quote, not a claim about the asked record.

The rules an agent reads (SKILL.md, docs/*.md) describe states in general ("The case is already resolved.", "a
gold-tier shopper: $20"). An answer that pastes every rule's text names, somewhere in it, the state that refuses the
asked record, and a sentence naming no record is read as about the asked one (core/claims.py rule 2): pasting the
policies paid 4 of 61 sampled refusals (redteam4). Rule 3 already makes a rule's text context where the grader
knows it (the refusing rule's); this makes the documents' text so where an answer pastes them: a run of at least
MIN_WORDS words of the answer that a document holds word for word (case, spacing and punctuation aside) is blanked
before claims are read, once such runs add up to MIN_PASTED words. A careful answer quotes a rule's phrase to explain
a refusal ("archive images are editorial-only"), and that phrase stays its claim.
"""

from __future__ import annotations

import re

MIN_WORDS = 6  # "The case is already resolved" is five: a careful answer may say it; a pasted rule goes on
MIN_PASTED = 40  # careful reports quote a rule's phrase to explain (careful20..g: 21 words copied at most): a quote
# that explains is theirs; an answer pasting the policies copies hundreds
_WORD = re.compile(r"[^\W_]+")
DOCUMENTS = (".md", ".txt")  # the workspace's prose; data files (CSV, JSON) hold the records themselves


def copied(text: str, files: dict[str, str]) -> list[tuple[int, int]]:
    """The spans of `text` in runs of at least MIN_WORDS words that a document of `files` holds in that order."""
    held: set[tuple[str, ...]] = set()
    for path, body in files.items():
        if path.endswith(DOCUMENTS):
            words = [w.casefold() for w in _WORD.findall(body)]
            held.update(tuple(words[i:i + MIN_WORDS]) for i in range(len(words) - MIN_WORDS + 1))
    tokens = list(_WORD.finditer(text))
    keys = [t.group(0).casefold() for t in tokens]
    spans: list[tuple[int, int]] = []
    for i in range(len(tokens) - MIN_WORDS + 1):
        if tuple(keys[i:i + MIN_WORDS]) in held:
            start, end = tokens[i].start(), tokens[i + MIN_WORDS - 1].end()
            if spans and start <= spans[-1][1]:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
    return spans


def unquoted(text: str, files: dict[str, str]) -> str:
    """`text` with what it copies from the documents blanked, when it copies at least MIN_PASTED words of them (same
    length: spans elsewhere still line up)."""
    if len(_WORD.findall(text)) < MIN_PASTED:
        return text  # too short to paste that much: no need to read the documents
    spans = copied(text, files)
    if sum(len(_WORD.findall(text, start, end)) for start, end in spans) < MIN_PASTED:
        return text
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


__all__ = ["MIN_WORDS", "copied", "unquoted"]
