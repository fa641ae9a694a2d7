"""Built-in policies that need no LLM: gold replay proves a task solvable, no-op proves it is not free."""

from __future__ import annotations

from envcraft.core.tasks import ToolCall
from envcraft.harness.episode import Episode


class GoldReplayAgent:
    """Replays each task's gold tool calls, turn by turn. Privileged: only the runner gives it gold."""

    name = "gold"
    model = None

    def __init__(self, gold: dict[str, list[ToolCall]]):
        self.gold = gold

    async def run(self, episode: Episode) -> str:
        calls = self.gold[episode.task_id]
        episode.system(episode.info.rendering().system)  # the transcript opens as every consumer's does
        for turn, text in enumerate(episode.turns):
            await episode.next_turn(text)
            for index, call in enumerate(c for c in calls if c.turn == turn):
                crossed = episode.count_step()
                name = episode.tool_name(call.env, call.tool)
                await episode.act([(f"call_{turn}_{index}", name, call.arguments)], execute=not crossed)
                episode.stop(crossed)
        return "finished" if episode.finished else "gold_replayed"


class NoOpAgent:
    """Reads the task and does nothing: any reward it earns is a verifier bug."""

    name = "noop"
    model = None

    async def run(self, episode: Episode) -> str:
        episode.system(episode.info.rendering().system)
        for text in episode.turns:
            await episode.next_turn(text)
            crossed = episode.count_step()
            episode.say("I will not take any action.")
            episode.stop(crossed)
        return "no_action"
