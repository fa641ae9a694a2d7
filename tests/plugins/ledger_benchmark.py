"""A second benchmark in one module, loaded from its path (envcraft.benchmarks.registry.load_file): the seam's proof.

A toy "ledger": each user turn asks to add an amount; the episode's own MCP server offers `add` and `total`;
its own grader is valid when the total matches. Nothing in the farm knows it exists until the file is loaded.
"""

from __future__ import annotations

import mcp_types as types
from envcraft.benchmarks.seam import BenchEnvironment
from envcraft.core.grading import CheckResult, Grade
from envcraft.core.tasks import Task, ToolCall
from envcraft.core.verdicts import Verdict
from mcp.server.lowlevel import Server

AMOUNTS = {"ledger-1": [2, 3], "ledger-2": [7]}
SCHEMA = {"type": "object", "properties": {"amount": {"type": "integer", "description": "what to add"}},
          "required": ["amount"]}


class LedgerEpisode:
    def __init__(self, task: Task):
        self.task, self.turn, self.total = task, 0, 0
        self.server = Server("ledger", on_list_tools=self._list, on_call_tool=self._call)

    async def _list(self, ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="add", description="Add to the ledger", input_schema=SCHEMA)])

    async def _call(self, ctx, params) -> types.CallToolResult:
        self.total += int((params.arguments or {}).get("amount", 0))
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(self.total))])

    async def begin_turn(self, index: int) -> bool:
        self.turn = index
        return False

    async def reset(self) -> None:
        self.turn, self.total = 0, 0

    def grade(self) -> Grade:
        valid = self.total == sum(AMOUNTS[self.task.id])
        verdict = Verdict(benchmark="ledger", checker="ledger_benchmark.LedgerEpisode.grade", valid=valid,
                          error_type="" if valid else "ledger:wrong_total")
        return Grade(reward=float(valid), passed=valid, verdict=verdict,
                     checks=[CheckResult(kind="ledger", role="goal", passed=valid, weight=1.0)])

    def close(self) -> None:
        pass


class Ledger:
    name, kind, env_names = "ledger", "toy", ("ledger_toy",)

    def installed(self) -> str | None:
        return None

    def environments(self) -> list[BenchEnvironment]:
        return [BenchEnvironment(name="ledger_toy", kind=self.kind, tools=1, tasks=len(AMOUNTS))]

    def tasks(self, category: str | None = None) -> list[Task]:
        return [Task(id=task_id, envs=["ledger_toy"], turns=[f"Add {a}." for a in amounts], checks=[],
                     gold=[ToolCall(tool="add", arguments={"amount": a}, turn=i) for i, a in enumerate(amounts)])
                for task_id, amounts in AMOUNTS.items()]

    def task(self, task_id: str) -> Task | None:
        return next((t for t in self.tasks() if t.id == task_id), None)

    def open(self, task: Task) -> LedgerEpisode:
        return LedgerEpisode(task)


BENCHMARK = Ledger()
