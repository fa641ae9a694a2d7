"""One BFCL multi-turn episode: the task's API class instances, served as one MCP server of its own.

Calls run through BFCL's own executor (`execute_multi_turn_func_call`, as its inference does), on the
instances it built from the task's `initial_config`, so each reply is the text BFCL would hand a model.
The executor `eval`s a call string: we build that string ourselves, as BFCL's function-calling handlers
do, from a function of the task's classes, keyword names that are Python identifiers and values that are
each the `repr` of decoded JSON (a literal). Any other name is refused before anything is built (the
executor would otherwise `eval` it among its module globals: `open(...)`). No agent text runs as code.

BFCL's API classes are benchmark code running in this process, on our trust boundary like our own apps:
no sandbox beyond the process. They keep state in module globals (the executor's instance table,
mpmath's precision), and a call such as power(base=10, exponent=10**9) computes for as long as Python
takes: the farm answers the agent when the tool timeout passes and the thread finishes on its own.
"""

from __future__ import annotations

import keyword
import uuid
from typing import Any

import anyio.to_thread
import mcp_types as types
from envcraft.benchmarks.bfcl import data
from envcraft.benchmarks.bfcl.grader import drop, grade_history, live_instances
from envcraft.core.grading import Grade
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

ERROR_PREFIX = "Error during execution"  # how BFCL's executor reports an exception as a call's result
MAX_SESSIONS = 8  # handshake-era sessions kept to send tools/list_changed to (the newest)


class _Server(Server):
    """A lowlevel server that declares tools.listChanged to handshake-era clients too."""

    def create_initialization_options(self, notification_options=None, *args: Any, **kwargs: Any):
        return super().create_initialization_options(notification_options or NotificationOptions(tools_changed=True),
                                                     *args, **kwargs)


def call_string(name: str, arguments: dict[str, Any]) -> str:
    """The call BFCL's function-calling handlers build from a model's structured call (name, JSON arguments)."""
    return f"{name}({','.join(f'{key}={value!r}' for key, value in arguments.items())})"


class BfclEpisode:
    def __init__(self, item: data.Entry, env: str):
        self.item, self.env = item, env
        self.key = f"envcraft_{uuid.uuid4().hex}"  # the executor's instance names start with this: ours alone
        self.bus = InMemorySubscriptionBus()
        self.sessions: list[Any] = []
        self.server = _Server(env, version=data.VERSION, instructions=self.instructions(),
                              on_list_tools=self._list_tools, on_call_tool=self._call_tool,
                              on_subscriptions_listen=ListenHandler(self.bus))
        self._start()

    def instructions(self) -> str:
        return (f"BFCL {data.VERSION} {self.item.category} task {self.item.id}: the tools of "
                f"{', '.join(self.item.involved_classes)}. Each user turn asks for work; do it with the tools.")

    def _start(self) -> None:
        self.turn = 0
        self.history: list[list[list[str]]] = [[]]  # per turn opened, per step, BFCL call strings
        self._execute([])  # BFCL builds the instances from the task's initial_config

    # ------------------------------------------------------------ BFCL's executor

    def _execute(self, calls: list[str]) -> list[str]:
        from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import execute_multi_turn_func_call

        results, _ = execute_multi_turn_func_call(calls, self.item.initial_config, self.item.involved_classes,
                                                  self.key, self.item.id, long_context=self.item.long_context)
        return results

    def instances(self) -> dict[str, Any]:
        return live_instances(self.key, self.item)

    # ------------------------------------------------------------ tools

    def offered(self) -> list[str]:
        """Function names offered at the open turn: the classes' docs minus those a later turn first offers."""
        later = {name for turn, names in self.item.missed_function.items() if int(turn) > self.turn for name in names}
        return [doc["name"] for cls in self.item.involved_classes for doc in data.func_docs()[cls]
                if doc["name"] not in later]

    def functions(self) -> set[str]:
        """Every function of the task's classes. A call to one a later turn first offers runs as BFCL's executor
        runs it (its inference executes whatever the model calls; one possible answer, multi_turn_miss_func_49,
        calls `tail` a turn before offering it): the tool list is what is offered, not a fence."""
        return {doc["name"] for cls in self.item.involved_classes for doc in data.func_docs()[cls]}

    def tools(self) -> list[types.Tool]:
        docs = {doc["name"]: doc for cls in self.item.involved_classes for doc in data.func_docs()[cls]}
        return [types.Tool(name=name, description=data.description(docs[name]), input_schema=data.input_schema(docs[name]))
                for name in self.offered()]

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        if ctx.session.protocol_version not in MODERN_PROTOCOL_VERSIONS and ctx.session not in self.sessions:
            self.sessions = [*self.sessions[-(MAX_SESSIONS - 1):], ctx.session]
        return types.ListToolsResult(tools=self.tools())

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name not in self.functions():  # never evaluate a name that is not one of the classes' functions
            return _reply(f"there is no tool named {params.name!r}; call tools/list for the tools offered", error=True)
        bad = [k for k in arguments if not (isinstance(k, str) and k.isidentifier() and not keyword.iskeyword(k))]
        if bad:
            return _reply(f"argument names must be Python identifiers: {bad!r} is not", error=True)
        call, turn = call_string(params.name, arguments), self.turn  # the turn it was made in, even if one opens
        result = (await anyio.to_thread.run_sync(self._execute, [call]))[0]  # benchmark code: off the event loop
        self.history[turn].append([call])  # one step of one call: BFCL's checker flattens a turn's steps anyway
        return _reply(result, error=result.startswith(ERROR_PREFIX))

    # ------------------------------------------------------------ control plane

    async def begin_turn(self, index: int) -> bool:
        if index == self.turn:
            return False
        if index != self.turn + 1 or index >= len(self.item.question):
            raise ValueError(f"turn {index} cannot follow turn {self.turn} of {len(self.item.question)}: "
                             "open turns in order, one at a time")
        before = self.offered()
        self.turn = index
        self.history.append([])
        return await self._announce(before)

    async def _announce(self, before: list[str]) -> bool:
        """Tell connected clients when the offered tools differ from `before`."""
        if self.offered() == before:
            return False
        await self.bus.publish(ToolsListChanged())  # 2026-07-28 clients: their subscriptions/listen stream
        for session in self.sessions:  # handshake-era clients: the standing stream (best effort, never raises)
            await session.send_tool_list_changed()
        return True

    def _restart(self) -> None:
        self.close()
        self._start()

    async def reset(self) -> None:
        before = self.offered()
        await anyio.to_thread.run_sync(self._restart)  # rebuilding a long-context state takes a while
        await self._announce(before)  # back at turn 0: a missing function offered since is withdrawn

    def grade(self) -> Grade:
        return grade_history(self.item, self.history, self.key)

    def close(self) -> None:
        drop(self.key)


def _reply(text: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)
