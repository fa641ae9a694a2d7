"""What a model is shown of one episode, made once for every consumer.

The claw agent, the built-in policies, the SFT and verl exports, SkyRL, OpenEnv, inspect_ai and the
gateway's create response all take an episode's system prompt, user turns and tool list from
`render`, so a policy trained through any of them sees the task it is evaluated on.

The system prompt is the agent's working rules, then each server's own instructions (scenario,
"Today is ...", policies, where the rules live). Tools are OpenAI function tools, named as the
episode exposes them (`exposed_names`: a clash between two environments gets a prefix).
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import Tool
from pydantic import BaseModel, ConfigDict

BASE_PROMPT = """\
You work inside a stateful workspace through tools; every change you make persists for the rest of the task.
{start}
Then do the user's request with the tools. Never guess ids, email addresses or names: look them up first.
The rules are enforced: a refused call names the rule and the fact that blocks it. Do what the rules allow;
when part of a request breaks a rule, leave that part undone and say which rule and fact stopped it.
When a tool returns an error, read it and fix the call. Do not ask the user to do the work.
When the request is done, call `finish`; if the user asked a question, put the answer in finish's `answer`."""
START_WITH_FILES = "Start by reading SKILL.md with read_file: it explains the workspace, its data and its rules."
START_WITHOUT_FILES = ("There are no files here: start with read_policies, which lists the rules the tools enforce, "
                       "and the server instructions below.")
TEXT_TOOLS = ("You may call these tools. To call one, write <tool_call>{{\"name\": ..., \"arguments\": {{...}}}}"
              "</tool_call>; call {finish} when the task is done.\n<tools>\n{listing}\n</tools>")


class Rendering(BaseModel):
    """An episode as a model sees it: the system prompt, the user turns (one per turn), the tools."""

    model_config = ConfigDict(frozen=True)
    system: str
    turns: list[str]
    tools: list[dict[str, Any]]  # OpenAI function tools

    def messages(self) -> list[dict[str, str]]:
        """The opening chat for a model called with `tools` beside it: system prompt, first user turn."""
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.turns[0]}]

    def text_messages(self) -> list[dict[str, str]]:
        """The opening chat for a trainer that applies the chat template without tools (SkyRL): the same
        system prompt with the same tools written after it, in the Hermes `<tool_call>` format."""
        return [{"role": "system", "content": self.system + "\n\n" + tools_text(self.tools)},
                {"role": "user", "content": self.turns[0]}]


def system_prompt(tool_names: list[str], instructions: dict[str, str]) -> str:
    """The working rules ("read SKILL.md" only where read_file exists), then each server's instructions."""
    has_files = any(name == "read_file" or name.endswith("__read_file") for name in tool_names)
    prompt = BASE_PROMPT.format(start=START_WITH_FILES if has_files else START_WITHOUT_FILES)
    notes = [f"## {env}\n{text.strip()}" for env, text in instructions.items() if text and text.strip()]
    return prompt + ("\n\n# Server instructions\n\n" + "\n\n".join(notes) if notes else "")


def render(turns: list[str], tools: list[dict[str, Any]], instructions: dict[str, str]) -> Rendering:
    """The one rendering of an episode: its task's turns, its tools, its servers' instructions (env -> text,
    in the task's environment order)."""
    names = [tool["function"]["name"] for tool in tools]
    return Rendering(system=system_prompt(names, instructions), turns=list(turns), tools=tools)


def tools_text(tools: list[dict[str, Any]]) -> str:
    """The tool list written out for a policy that reads tools as text."""
    names = [tool["function"]["name"] for tool in tools]
    finish = "finish" if "finish" in names else next((n for n in names if n.endswith("__finish")), "finish")
    listing = "\n".join(json.dumps(tool["function"]) for tool in tools)
    return TEXT_TOOLS.format(finish=finish, listing=listing)


def openai_tool(tool: Tool, name: str | None = None) -> dict[str, Any]:
    """An MCP tool as an OpenAI function tool (names already fit ^[A-Za-z0-9_-]{1,64}$)."""
    return {"type": "function", "function": {
        "name": name or tool.name, "description": tool.description or "", "parameters": tool.input_schema}}


def exposed_names(listed: list[tuple[str, list[Tool]]]) -> dict[str, str]:
    """"env/tool" -> the name the agent sees. Names unique across the episode's environments stay as
    they are; a clash (the scaffold tools of two workspaces) gets the environment as a prefix.
    `finish` is the first environment's alone."""
    counts: dict[str, int] = {}
    for _, tools in listed:
        for tool in tools:
            counts[tool.name] = counts.get(tool.name, 0) + 1
    names = {}
    for index, (env, tools) in enumerate(listed):
        for tool in tools:
            if tool.name == "finish" and index > 0:
                continue
            clash = counts[tool.name] > 1 and tool.name != "finish"
            names[f"{env}/{tool.name}"] = f"{env}__{tool.name}"[:64] if clash else tool.name
    return names


def episode_tools(listed: list[tuple[str, list[Tool]]]) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """(exposed names, OpenAI tools) of an episode whose environments listed these tools."""
    exposed = exposed_names(listed)
    tools = [openai_tool(tool, exposed[f"{env}/{tool.name}"]) for env, group in listed for tool in group
             if f"{env}/{tool.name}" in exposed]
    return exposed, tools


__all__ = ["Rendering", "episode_tools", "exposed_names", "openai_tool", "render", "system_prompt", "tools_text"]
