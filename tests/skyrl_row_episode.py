"""Run inside the skyrl consumer venv (tests/consumer_venvs.py) by tests/test_skyrl_rows.py.

    python tests/skyrl_row_episode.py ROWS TASKS_DIR COMPLETION

Loads ROWS with SkyRL's own PromptDataset, then does what SkyRL's generator does with a row
(skyrl/train/generators/skyrl_gym_generator.py): make the row's env_class with the row's extras, init it
with the row's prompt, step it with COMPLETION. Prints one JSON line: what was loaded and the reward.
The tokenizer is a tiny word-level one made here (no weights can be fetched); SkyRL uses it only to drop
prompts longer than max_prompt_length.
"""

from __future__ import annotations

import json
import sys

import skyrl_gym
from envcraft.harness.adapters.skyrl_env import register_env
from skyrl.train.dataset import PromptDataset
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }}\n{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>{% endif %}")


def tokenizer() -> PreTrainedTokenizerFast:
    words = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    made = PreTrainedTokenizerFast(tokenizer_object=words, unk_token="[UNK]")
    made.chat_template = TEMPLATE
    return made


def main(rows: str, tasks_dir: str, completion: str) -> None:
    register_env()  # as a SkyRL user registers a custom env before training
    dataset = PromptDataset([rows], tokenizer(), max_prompt_length=1_000_000, num_workers=1)
    messages, env_class, extras, _ = dataset.collate_fn([dataset[0]])[0].values()
    extras["max_turns"] = 5  # the generator sets it from its config
    env = skyrl_gym.make(env_class, env_config={"tasks_dir": tasks_dir}, extras=extras)
    prompt, _ = env.init(messages)
    out = env.step(completion)
    print(json.dumps({"rows": len(dataset), "env_class": env_class, "extras": sorted(extras),
                      "task_id": extras.get("task_id"), "prompt_is_row": prompt == messages,
                      "done": out["done"], "reward": out["reward"]}))


if __name__ == "__main__":
    main(*sys.argv[1:4])
