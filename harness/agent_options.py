"""How the LLM agent talks to its endpoint, as the CLI sets it, and the one-request preflight."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel


class AgentOptions(BaseModel):
    temperature: float = 0.0
    request_timeout: float = 120.0
    model_retries: int = 2  # the openai client's own retries of one request
    system_prompt_file: str | None = None  # replaces the built-in system prompt
    return_token_ids: bool = False  # vLLM: token ids of prompt and completion, for RL without re-tokenizing
    logprobs: bool = False
    extra_body: dict[str, Any] = {}

    def body(self) -> dict[str, Any] | None:
        body = dict(self.extra_body)
        if self.return_token_ids:
            body["return_token_ids"] = True
        if self.logprobs:
            body["logprobs"] = True
        return body or None

    def claw_kwargs(self) -> dict[str, Any]:
        options: dict[str, Any] = {"temperature": self.temperature, "request_timeout": self.request_timeout,
                                   "retries": self.model_retries, "extra_body": self.body()}
        if self.system_prompt_file:
            options["system_prompt"] = Path(self.system_prompt_file).read_text("utf-8")
        return options


class EndpointUnreachable(ValueError):
    """The model endpoint failed the preflight request; nothing was run."""


def preflight(base_url: str | None, api_key: str, model: str, options: AgentOptions = AgentOptions()) -> None:
    """One tiny chat completion before any episode starts, so a wrong URL, key or model name fails once,
    clearly, instead of as an infrastructure failure in every rollout."""
    import openai

    if not base_url:
        return
    try:
        with openai.OpenAI(base_url=base_url, api_key=api_key, timeout=min(options.request_timeout, 30.0),
                           max_retries=1) as client:
            client.chat.completions.create(model=model, max_tokens=1, temperature=0.0,
                                           messages=[{"role": "user", "content": "ping"}])
    except openai.OpenAIError as exc:
        raise EndpointUnreachable(
            f"the model endpoint {base_url} (model {model!r}) failed a one-token test request: "
            f"{type(exc).__name__}: {exc}. Start the server or fix --base-url/--model/--api-key; no episode was run."
        ) from None
