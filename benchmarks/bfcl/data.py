"""BFCL v4 multi-turn data, read from the installed `bfcl-eval` wheel (its `data/` folder), as our tasks.

Nothing here re-states BFCL: questions, initial configurations, possible answers and function docs are
its files; the class-to-doc and class-to-module maps are its constants. What we add is the mapping onto
our Task model (a missing-function turn gets BFCL's own "I have updated some more functions" prompt, as its
inference does) and the MCP input schema of each function doc (BFCL's GORILLA_TO_OPENAPI type map).
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import inspect
import json
from pathlib import Path
from typing import Any

from envcraft.core.tasks import Task, ToolCall
from pydantic import BaseModel, ConfigDict, Field

CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")
ENV_PREFIX = "bfcl_"  # env name = ENV_PREFIX + category, e.g. bfcl_multi_turn_base
TASK_PREFIX = "bfcl-"  # task id = TASK_PREFIX + BFCL's id, e.g. bfcl-multi_turn_base_0
VERSION = "BFCL_v4"
PYTHON_HINT = " Note that the provided function is in Python 3 syntax."  # BFCL adds it to every multi-turn doc


class Entry(BaseModel):
    """One BFCL multi-turn test entry with its possible answer."""

    model_config = ConfigDict(frozen=True)
    id: str  # BFCL's own, e.g. multi_turn_miss_func_3
    question: list[list[dict[str, Any]]]  # per turn, its messages (a missing-function turn has none)
    initial_config: dict[str, Any]
    involved_classes: list[str]
    missed_function: dict[str, list[str]] = Field(default_factory=dict)  # turn -> functions first offered then
    ground_truth: list[list[str]]  # per turn, call strings such as "mv(source='a', destination='b')"

    @property
    def category(self) -> str:
        return self.id.rsplit("_", 1)[0]

    @property
    def long_context(self) -> bool:
        """BFCL loads the long-context variant of each class's state for these (its own test, by id)."""
        return "long_context" in self.category or "composite" in self.category

    def test_entry(self) -> dict[str, Any]:
        """The fields of BFCL's test entry its checker reads."""
        return {"id": self.id, "initial_config": self.initial_config, "involved_classes": self.involved_classes}


def data_dir() -> Path:
    import bfcl_eval

    return Path(bfcl_eval.__file__).resolve().parent / "data"


def _lines(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@functools.cache
def entries(category: str) -> tuple[Entry, ...]:
    if category not in CATEGORIES:
        raise KeyError(f"no BFCL multi-turn category {category!r}: choose one of {', '.join(CATEGORIES)}")
    questions = _lines(data_dir() / f"{VERSION}_{category}.json")
    answers = {a["id"]: a["ground_truth"] for a in _lines(data_dir() / "possible_answer" / f"{VERSION}_{category}.json")}
    return tuple(Entry(**{k: q[k] for k in Entry.model_fields if k in q}, ground_truth=answers[q["id"]]) for q in questions)


@functools.cache
def entry(bfcl_id: str) -> Entry:
    category = bfcl_id.rsplit("_", 1)[0]
    found = {e.id: e for e in entries(category)} if category in CATEGORIES else {}
    if bfcl_id not in found:
        raise KeyError(f"no BFCL multi-turn entry {bfcl_id!r}")
    return found[bfcl_id]


@functools.cache
def func_docs() -> dict[str, tuple[dict[str, Any], ...]]:
    """Each API class's function docs, as BFCL's inference loads them."""
    from bfcl_eval.constants.executable_backend_config import MULTI_TURN_FUNC_DOC_FILE_MAPPING

    folder = data_dir() / "multi_turn_func_doc"
    return {cls: tuple(_lines(folder / name)) for cls, name in MULTI_TURN_FUNC_DOC_FILE_MAPPING.items()
            if not cls.startswith(("MemoryAPI", "WebSearchAPI"))}  # not in the multi-turn suite; heavy imports


def _openapi(properties: dict[str, Any], mapping: dict[str, str]) -> dict[str, Any]:
    """BFCL's parameter types as JSON Schema types (its GORILLA_TO_OPENAPI map; unknown types read as string)."""
    for spec in properties.values():
        kind = spec.get("type", "string")
        if kind == "float":
            spec["format"] = "float"
            spec["description"] = spec.get("description", "") + " This is a float type value."
        spec["type"] = mapping.get(kind, "string")
        if "properties" in spec:
            _openapi(spec["properties"], mapping)
        items = spec.get("items")
        if isinstance(items, dict):  # item types are mapped, not annotated (as BFCL's _cast_to_openai_type does)
            items["type"] = mapping.get(items.get("type", "string"), "string")
            if items["type"] == "array" and isinstance(items.get("items"), dict):
                items["items"]["type"] = mapping.get(items["items"].get("type", "string"), "string")
            elif items["type"] == "object" and "properties" in items:
                _openapi(items["properties"], mapping)
    return properties


def input_schema(doc: dict[str, Any]) -> dict[str, Any]:
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI

    parameters = copy.deepcopy(doc["parameters"])
    parameters["type"] = "object"
    parameters["properties"] = _openapi(parameters.get("properties", {}), GORILLA_TO_OPENAPI)
    return parameters


def description(doc: dict[str, Any]) -> str:
    return doc["description"] + PYTHON_HINT


@functools.cache
def api_class(name: str) -> type:
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

    return getattr(importlib.import_module(CLASS_FILE_PATH_MAPPING[name]), name)


def parse_call(text: str, classes: list[str]) -> tuple[str, dict[str, Any]]:
    """A possible-answer call string as (function, keyword arguments): positional arguments take the names
    of the method's own parameters, as Python's call would bind them."""
    node = ast.parse(text.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a single function call: {text!r}")
    name = node.func.id
    method = next((getattr(api_class(c), name) for c in classes if hasattr(api_class(c), name)), None)
    if method is None:
        raise ValueError(f"{name} is a method of none of {classes}")
    params = [p for p in inspect.signature(method).parameters if p != "self"]
    arguments = {params[i]: ast.literal_eval(arg) for i, arg in enumerate(node.args)}
    arguments.update({kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg})
    return name, arguments


def turn_texts(item: Entry) -> list[str]:
    """The user's message per turn; a missing-function turn says what BFCL's inference says there."""
    from bfcl_eval.constants.default_prompts import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC

    return ["\n".join(m["content"] for m in turn if m.get("role") == "user") or DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
            for turn in item.question]


def to_task(item: Entry) -> Task:
    gold = [ToolCall(tool=name, arguments=arguments, turn=turn)
            for turn, calls in enumerate(item.ground_truth)
            for name, arguments in (parse_call(call, item.involved_classes) for call in calls)]
    return Task(id=TASK_PREFIX + item.id, envs=[ENV_PREFIX + item.category], turns=turn_texts(item), checks=[],
                gold=gold, archetype="bfcl_multi_turn", split="test",
                difficulty="hard" if len(item.question) > 4 else "medium",
                tags=["bfcl", item.category, *item.involved_classes])
