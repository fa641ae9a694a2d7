"""A short value (three letters at most) is matched as written, so prose ("it is", "on") is no dump; written in the
case the answer gives the expected value, at a clause's end, or a stored lower-case code in capitals, it is a value
(redteam4: careful20g's probe "Not done. Push. Sms." kept full reward, "sms" written "Sms" beside "Push")."""

from __future__ import annotations

import pytest
from envcraft.core.answers import names

CHANNELS = ["sms", "email", "IT"]


@pytest.mark.parametrize("answer", ["Push. Sms.", "Push. SMS.", "push, SMS", "PUSH. SMS.", "It is push. It is sms."])
def test_a_short_value_in_the_answers_own_case_is_a_second_value(answer):
    assert names(answer, "push", CHANNELS) == (True, ["sms"])


@pytest.mark.parametrize("answer", ["Push.", "It is push.", "Push. It was sent to it.", "Push. On Monday."])
def test_prose_is_still_no_short_value(answer):
    assert names(answer, "push", CHANNELS) == (True, [])


def test_a_capitalized_short_value_must_end_its_clause():
    assert names("Push. On Monday I checked.", "push", ["on"]) == (True, [])
    assert names("Push. On.", "push", ["on"]) == (True, ["on"])
