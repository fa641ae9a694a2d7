"""The scripted stand-in model (harness/scripted_model.py) streams as OpenAI's API does: the real `openai` client
reads a streamed reply as the same message the unstreamed one is, tool calls and usage included."""

from __future__ import annotations

from envcraft.harness.scripted_model import Script, build_app, serving
from openai import OpenAI

from tests.helpers import mail_task


def test_a_streamed_reply_is_the_unstreamed_one():
    task = mail_task(60)
    with serving(build_app(Script.from_tasks([task]))) as url:
        client = OpenAI(base_url=url, api_key="test")
        messages = [{"role": "system", "content": "s"}, {"role": "user", "content": task.turns[0]}]
        whole = client.chat.completions.create(model="scripted", messages=messages).choices[0]
        stream = client.chat.completions.create(model="scripted", messages=messages, stream=True,
                                                stream_options={"include_usage": True})
        chunks = list(stream)
    calls = [call for chunk in chunks for choice in chunk.choices for call in choice.delta.tool_calls or []]
    assert [(c.function.name, c.function.arguments) for c in calls] == \
           [(c.function.name, c.function.arguments) for c in whole.message.tool_calls]
    assert calls[0].function.name == task.gold[0].tool
    assert [choice.finish_reason for chunk in chunks for choice in chunk.choices if choice.finish_reason] == \
           [whole.finish_reason] == ["tool_calls"]
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
