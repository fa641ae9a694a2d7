"""Environment manifest: the official MCP Registry `server.json` fields, ours under `_meta`.

The registry reads manifests as data and never imports an environment's code to list it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

META_KEY = "io.github.envcraft/environment"
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class Transport(BaseModel):
    type: Literal["stdio", "streamable-http"]


class Package(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    registry_type: str = Field(alias="registryType")
    identifier: str
    version: str
    transport: Transport
    package_arguments: list[dict] = Field(default_factory=list, alias="packageArguments")
    environment_variables: list[dict] = Field(default_factory=list, alias="environmentVariables")


class ToolInfo(BaseModel):
    name: str
    layer: Literal["scaffold", "domain"]
    writes: bool

    @field_validator("name")
    @classmethod
    def _name_fits_openai(cls, name: str) -> str:
        if not TOOL_NAME.match(name):
            raise ValueError(f"tool name {name!r} must match {TOOL_NAME.pattern} (the OpenAI function-name rule)")
        return name


class EnvironmentMeta(BaseModel):
    """Our fields: how to launch the environment and what it holds."""

    model_config = ConfigDict(populate_by_name=True)
    env_id: str = Field(alias="envId")
    kind: Literal["general", "claw_tool", "claw_workspace"]
    domain: str
    archetypes: list[str]
    entrypoint: str = "server.py"
    cli: str | None = None  # shell verb for the domain operations, if any
    seed: str = "seed"
    tools: list[ToolInfo]


class Manifest(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    schema_: str = Field(alias="$schema")
    name: str
    description: str = Field(max_length=100)
    version: str
    title: str | None = None
    packages: list[Package] = Field(default_factory=list)
    meta: dict[str, EnvironmentMeta] = Field(alias="_meta")

    @field_validator("name")
    @classmethod
    def _reverse_dns(cls, name: str) -> str:
        if name.count("/") != 1:
            raise ValueError(f"name {name!r} must be reverse-DNS with exactly one '/', e.g. io.github.envcraft/office")
        return name

    @property
    def env(self) -> EnvironmentMeta:
        return self.meta[META_KEY]


def read_manifest(folder: Path) -> Manifest:
    path = Path(folder) / "server.json"
    return Manifest.model_validate(json.loads(path.read_text("utf-8")))
