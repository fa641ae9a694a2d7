"""Optional LLM rewrite of instruction turns, through any OpenAI-compatible endpoint.

Templates give correct but stiff text; a model can make it sound like a person. A rewrite is kept
only if every value the verifier depends on is still there (the rendered values the instruction
stated), no record id appears, and the length stays reasonable; otherwise the template text
stays. Off unless an endpoint is given (--rewrite-url or ENVCRAFT_REWRITE_BASE_URL).
"""

from __future__ import annotations

import re

from envcraft.registry.settings import Settings

SYSTEM = ("Rewrite the user's request to an assistant so it sounds like a real person wrote it: vary the wording "
          "and order, keep it concise. Keep every name, number, date, time, code, email, file path and quoted "
          "value exactly as written. Do not add facts, ids or steps, do not drop any. Reply with the rewritten "
          "request only.")
ID = re.compile(r"\b[a-z]{2,6}-\d{4}\b")


def renderings(value) -> list[str]:
    """Ways the template may have stated a checked value (as stored, as rendered for a reader)."""
    if isinstance(value, float):
        text = str(int(value)) if value.is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")
        return [text, str(value)]
    text = str(value)
    out = [text]
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", text):
        out.insert(0, text.replace("T", " "))
    if "_" in text:
        out.insert(0, text.replace("_", " "))
    return out


def needed(turns: list[str], checks) -> list[str]:
    """Every value a goal check compares that the template text states: a rewrite must keep each one."""
    text = " ".join(turns).lower()
    out = []
    for check in checks:
        if check.role != "goal" or check.kind != "record":
            continue
        for name, value in check.match.items():
            if name == "id" or value is None or isinstance(value, (bool, dict, list)):
                continue
            shown = next((v for v in renderings(value) if v.lower() in text), None)
            if shown and len(shown) > 1:
                out.append(shown)
    return out


def acceptable(new: str, old: str, keep: list[str]) -> bool:
    if not new or not (0.5 * len(old) <= len(new) <= 2.5 * len(old) + 40):
        return False
    if set(ID.findall(new)) - set(ID.findall(old)):
        return False
    low = new.lower()
    return all(value.lower() in low for value in keep if value)


class Rewriter:
    def __init__(self, base_url: str | None = None, model: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0):
        from openai import OpenAI

        host = Settings.from_env()
        self.base_url = base_url or host.rewrite_base_url
        if not self.base_url:
            raise ValueError("no rewrite endpoint: pass --rewrite-url or set ENVCRAFT_REWRITE_BASE_URL")
        self.model = model or host.rewrite_model or "default"
        key = api_key or host.rewrite_api_key or "none"
        self.client = OpenAI(base_url=self.base_url, api_key=key, timeout=timeout, max_retries=2)
        self.kept = self.rejected = 0

    def rewrite(self, text: str, keep: list[str]) -> str:
        if not keep:  # nothing to check the rewrite against: keep the template text
            return text
        try:
            response = self.client.chat.completions.create(
                model=self.model, temperature=0.0,
                messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}])
            new = (response.choices[0].message.content or "").strip()
        except Exception:  # noqa: BLE001 - an unreachable or failing endpoint leaves the template text
            new = ""
        if acceptable(new, text, keep):
            self.kept += 1
            return new
        self.rejected += 1
        return text

    def task_turns(self, turns: list[str], keep: list[str]) -> list[str]:
        """Each turn rewritten; a value must survive in the turn that stated it."""
        return [self.rewrite(turn, [k for k in keep if k.lower() in turn.lower()]) for turn in turns]
