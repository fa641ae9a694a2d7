"""A claw-style tool-calling loop over any OpenAI-compatible chat-completions endpoint.

The agent sees only the Episode (turns, tools, transcript). Each model call is booked with
`episode.count_step`; the reply that crosses a step or token budget is still recorded, then the
episode stops (EpisodeStop). A model endpoint that stays broken after the client's retries is a
ModelFailure. When the server returns token ids
or logprobs (vLLM: `return_token_ids`, `logprobs`), they stay on the assistant message for RL
trainers and are stripped from what is sent back to the model.
"""

from __future__ import annotations

from typing import Any

import openai
from envcraft.harness.episode import Episode
from envcraft.harness.errors import ModelFailure
from openai import AsyncOpenAI

# Kept on assistant messages for trainers, never sent back to the model.
TRAINING_KEYS = ("prompt_token_ids", "token_ids", "logprobs", "reasoning_content", "reasoning")


def wire_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The transcript as the endpoint expects it: training-only fields removed."""
    return [{k: v for k, v in m.items() if k not in TRAINING_KEYS} for m in messages]


def training_extra(completion: Any, choice: Any) -> dict[str, Any]:
    """vLLM-style token ids / logprobs / reasoning of one reply, when the server returned them."""
    extra: dict[str, Any] = {}
    for source, key in ((completion, "prompt_token_ids"), (choice, "token_ids"),
                        (choice.message, "reasoning_content"), (choice.message, "reasoning")):
        value = (getattr(source, "model_extra", None) or {}).get(key)
        if value is not None:
            extra[key] = value
    if choice.logprobs is not None:
        extra["logprobs"] = choice.logprobs.model_dump(mode="json", exclude_none=True)
    return extra


class ClawAgent:
    """Calls the model with the episode's transcript and tools until each user turn is done."""

    name = "claw"

    def __init__(self, base_url: str, api_key: str, model: str, temperature: float = 0.0,
                 max_tokens_per_call: int | None = None, request_timeout: float = 120.0, retries: int = 2,
                 system_prompt: str | None = None, extra_body: dict[str, Any] | None = None):
        self.base_url, self.api_key, self.model = base_url, api_key, model
        self.temperature, self.max_tokens_per_call = temperature, max_tokens_per_call
        self.request_timeout, self.retries = request_timeout, retries
        self.system_prompt = system_prompt  # None: the episode's rendering (core/rendering.py), as every consumer has it
        self.extra_body = extra_body  # e.g. {"return_token_ids": True, "logprobs": True} for vLLM

    async def complete(self, client: AsyncOpenAI, episode: Episode) -> Any:
        try:
            return await client.chat.completions.create(
                model=self.model, messages=wire_messages(episode.messages), tools=episode.openai_tools,
                temperature=self.temperature, max_tokens=self.max_tokens_per_call or episode.limits.max_call_tokens, extra_body=self.extra_body)
        except openai.OpenAIError as exc:  # status, connection and timeout errors, after the client's retries
            raise ModelFailure(f"{self.model} at {self.base_url}: {type(exc).__name__}: {exc}") from exc

    async def turn(self, client: AsyncOpenAI, episode: Episode) -> str:
        """Model calls until the model calls finish or answers without tools; returns how the turn ended."""
        while True:
            completion = await self.complete(client, episode)
            if not completion.choices:
                raise ModelFailure(f"{self.model} returned no choices")
            usage, choice = completion.usage, completion.choices[0]
            crossed = episode.count_step(usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0)
            message, extra = choice.message, training_extra(completion, choice)
            calls = [(call.id or f"call_{episode.steps}_{i}", call.function.name, call.function.arguments)
                     for i, call in enumerate(message.tool_calls or []) if getattr(call, "function", None)]
            if not calls:
                episode.say(message.content or "", extra)
                episode.stop(crossed)
                return "no_tool_calls"
            replies = await episode.act(calls, content=message.content, extra=extra, execute=not crossed)
            episode.stop(crossed)
            if any(r.name == "finish" and not r.is_error for r in replies):
                return "finished"

    async def run(self, episode: Episode) -> str:
        if not any(m["role"] == "system" for m in episode.messages):
            episode.system(self.system_prompt or episode.info.rendering().system)
        ended = "turns_done"
        async with AsyncOpenAI(base_url=self.base_url, api_key=self.api_key, timeout=self.request_timeout,
                               max_retries=self.retries) as client:
            for text in episode.turns:
                await episode.next_turn(text)
                ended = await self.turn(client, episode)
        return "finished" if episode.finished else ended
