"""The farm's settings: one typed model, read from the process environment here and nowhere else.

`Settings.from_env()` is the defaults overridden by the ENVCRAFT_* variables that are set; the CLI reads it once
and passes it down, and code handed none calls `from_env()` itself (never `os.environ`). Nothing writes the
environment to carry a setting: the servers' runtime gets its part (`Settings.runtime`) passed in
(`envcraft_runtime.settings.configure`) in this process, or in the environment of a child process the
launcher starts (`RuntimeSettings.to_environ`).

Every variable is in the README's reference table (`variables()`); a test keeps the two in step.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from envcraft_runtime.settings import CHANNELS, VARIABLES, RuntimeSettings
from pydantic import BaseModel, ConfigDict, Field

# field -> variable; each field's description is what the README's table says about it.
HOST_VARIABLES = {
    "base_url": "ENVCRAFT_BASE_URL", "api_key": "ENVCRAFT_API_KEY", "model": "ENVCRAFT_MODEL",
    "rewrite_base_url": "ENVCRAFT_REWRITE_BASE_URL", "rewrite_model": "ENVCRAFT_REWRITE_MODEL",
    "rewrite_api_key": "ENVCRAFT_REWRITE_API_KEY",
    "gateway_url": "ENVCRAFT_GATEWAY_URL", "gateway_token": "ENVCRAFT_GATEWAY_TOKEN",
    "workspace_quota": "ENVCRAFT_WORKSPACE_QUOTA", "workspace_mb": "ENVCRAFT_WORKSPACE_MB",
    "workspace_files": "ENVCRAFT_WORKSPACE_FILES", "gc_threshold": "ENVCRAFT_GC_THRESHOLD",
    "schema_cache": "ENVCRAFT_SCHEMA_CACHE",
}


class Settings(BaseModel):
    """What an operator can set for `envcraft run`, `serve`, `bench`, `generate` and the trainer adapters."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    base_url: str | None = Field(None, description="the OpenAI-compatible endpoint the claw agent and "
                                                   "`generate --scenario` call (or --base-url)")
    api_key: str = Field("none", description="that endpoint's API key (or --api-key)")
    model: str = Field("default", description="that endpoint's model name (or --model)")
    rewrite_base_url: str | None = Field(None, description="the endpoint of the task generator's instruction "
                                                           "rewrite pass (or --rewrite-url; off when unset)")
    rewrite_model: str | None = Field(None, description="its model (default: ENVCRAFT_MODEL)")
    rewrite_api_key: str | None = Field(None, description="its API key (default: ENVCRAFT_API_KEY)")
    gateway_url: str | None = Field(None, description="the gateway the verl tool adapter calls (or its "
                                                      "config's gateway_url)")
    gateway_token: str | None = Field(None, description="the gateway's control token for the verl adapter (its "
                                                        "config's token_env names another variable) and the inspect "
                                                        "task (-T gateway_url=...)")
    workspace_quota: Literal["auto", "0", "1"] = Field(
        "auto", description="a tmpfs quota per workspace: auto (the registry's own run folders), 1 (every "
                            "workspace, also in folders of your own), 0 (none)")
    workspace_mb: int = Field(256, gt=0, description="a workspace's size cap in MB")
    workspace_files: int = Field(20_000, gt=0, description="a workspace's file (inode) cap")
    gc_threshold: int = Field(50_000, description="the collector's young-generation threshold once start-up is "
                                                  "done (0: leave the interpreter's defaults)")
    schema_cache: bool = Field(True, description="0: each client session compiles tool output schemas itself "
                                                 "(the SDK's behaviour; a bench baseline)")
    runtime: RuntimeSettings = Field(default_factory=RuntimeSettings,
                                     description="the servers' runtime: sandbox, warm shell, containment, caches")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """The defaults, overridden by the variables set in `environ` (this process's by default), overridden by
        `overrides` (command-line options; None means not given)."""
        environ = os.environ if environ is None else environ
        given: dict[str, Any] = {field: environ[name] for field, name in HOST_VARIABLES.items() if environ.get(name)}
        if "schema_cache" in given:
            given["schema_cache"] = given["schema_cache"] != "0"
        if "rewrite_model" not in given and "model" in given:
            given["rewrite_model"] = given["model"]
        if "rewrite_api_key" not in given and "api_key" in given:
            given["rewrite_api_key"] = given["api_key"]
        given["runtime"] = RuntimeSettings.from_environ(environ)
        given.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**given)

    def with_runtime(self, **changes: Any) -> Settings:
        return self.model_copy(update={"runtime": self.runtime.replace(**changes)})


def variables() -> dict[str, str]:
    """Every ENVCRAFT_* variable we read, with what it means (the README's reference table)."""
    table = {name: Settings.model_fields[field].description for field, name in HOST_VARIABLES.items()}
    table.update(dict(VARIABLES.values()))
    table.update({name: f"(set by a server, not by you) {meaning}" for name, meaning in CHANNELS.items()})
    return table


__all__ = ["HOST_VARIABLES", "Settings", "variables"]
