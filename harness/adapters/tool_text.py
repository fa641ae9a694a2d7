"""Tool calls written as text by a model (Hermes / Qwen chat template: `<tool_call>{json}</tool_call>`),
for trainers whose environments receive the raw completion string (SkyRL-gym)."""

from __future__ import annotations

import json
import re
from typing import Any

CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def parse_tool_calls(text: str) -> list[tuple[str, Any] | str]:
    """Each `<tool_call>` block as (name, arguments), or as an error string the model can read."""
    calls: list[tuple[str, Any] | str] = []
    for block in CALL.findall(text or ""):
        try:
            data = json.loads(block)
        except json.JSONDecodeError as exc:
            calls.append(f"a <tool_call> is not valid JSON ({exc.msg}): write "
                         '<tool_call>{"name": "...", "arguments": {...}}</tool_call>')
            continue
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            calls.append('a <tool_call> needs {"name": "<tool>", "arguments": {...}}')
            continue
        calls.append((data["name"], data.get("arguments") or {}))
    return calls
