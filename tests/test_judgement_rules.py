"""Rules left to judgement, made visible: every policy without a check is sorted into the reason no tool
enforces it, and the count of each reason is pinned, so a rule converted to a check (or a new judgement
rule) shows up here. The sort is by wording (first matching reason), so it is a census, not a proof; the
`not_yet_checked` bucket is the backlog: rules that read as checkable but whose fact the tools do not hold yet
(an exception with no field, a cross-row condition, a duration) or that need a check kind not built yet."""

from __future__ import annotations

import re
from collections import Counter

from envcraft.generator.blueprint import load_all
from envcraft.generator.policy import judgement_rules

REASONS = (  # (reason, wording that marks it), first match wins
    ("tone", r"\b(tone|friendly|courteous|warm|calm|empathetic|kind|voice|concise|polite|listen)\b"),
    ("tells_someone", r"\b(reply|replies|tell|ask|explain|say|notify|notice|quote|inform|escalat\w*|page|pages|"
                      r"acknowledg\w*|contact\w*|cite|answer|call|share|disclose|mention|promise)\b"),
    ("retry_and_errors", r"\b(retr\w*|dead-letter\w*|requeue\w*|re-queue\w*|quarantin\w*|attempts?|transient|"
                         r"duplicate\w*|timeouts?|backoff)\b"),
    ("order_of_work", r"(->|\bpipeline\b|\blifecycle\b|\bin order\b|\bone stage\b|\bsequence\b|\bchecklist\b|"
                      r"\bworkflow\b|\bstep\b|\bfollow\b|\brunbook\b|\bconsult\b|\bbefore\b|\bafter\b|\bfirst\b)"),
    ("ranking", r"\b(prefer\w*|oldest|nearest|tie-breakers?|prioriti\w*|most|fewest|best|highest|lowest)\b"),
    ("computation", r"(=|\bcompute\w*|\bx\b|%|\bfee\b|\bprice\w*|\bcredit\w*|\bdue date\w*|\bwithin\b|\bdays?\b|"
                    r"\bhours?\b|\bminutes\b)"),
    ("exception_not_recorded", r"\b(unless|without|written|approv\w*|agree\w*|consent|otherwise)\b"),
)
PINNED = {"tone": 10, "tells_someone": 55, "retry_and_errors": 36, "order_of_work": 96, "ranking": 19,
          "computation": 43, "exception_not_recorded": 16, "not_yet_checked": 90}


def reason(text: str) -> str:
    return next((name for name, pattern in REASONS if re.search(pattern, text, re.I)), "not_yet_checked")


def census() -> Counter:
    return Counter(reason(rule.text) for bp in load_all() for rule in judgement_rules(bp))


def test_every_rule_left_to_judgement_has_a_reason_and_the_counts_are_pinned():
    counts = census()
    print("rules left to judgement:", sum(counts.values()), dict(sorted(counts.items())))
    assert set(counts) <= set(PINNED)
    assert dict(counts) == {k: v for k, v in PINNED.items() if v}, (
        f"the judgement census moved: {dict(sorted(counts.items()))}; a rule turned into a check lowers "
        f"its bucket (update PINNED), a new judgement rule needs a reason")


def test_the_reasons_read_the_rule_not_its_environment():
    assert reason("Keep your tone calm and brief.") == "tone"
    assert reason("Retry only transient failures.") == "retry_and_errors"
    assert reason("Games after 17:00 need a pitch with lights.") == "order_of_work"  # 'after': a known blind spot
    assert reason("The van's connector must equal the port's connector.") == "not_yet_checked"
