"""Compile each tool output schema once per process, not once per MCP session.

The SDK client compiles (and meta-validates, `check_schema`) a tool's output schema the first time
a session sees a result of that tool. Every episode opens new sessions on servers whose schemas
never change, so in a gold replay this compile was ~40% of the run. Validators are immutable once
built, so sessions can share them: each session's validator table is swapped for one that looks a
tool up in a process-wide table, keyed by the schema's canonical JSON, and adds what the session
compiles to it. Lookups happen on first use, so a session pays nothing for tools it never calls.

Most of a compile is the SDK's meta-validation (`check_schema` against the 2020-12 metaschema), whose
answer depends on the schema alone: the hashes of schemas that passed it are kept in the runtime's
cache folder, so a later process compiles such a schema exactly as the SDK does, minus that check.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import Any

from envcraft.registry.settings import Settings
from envcraft_runtime.tool_cache import cache_dir

_VALIDATORS: dict[str, Any] = {}
_CHECKED: set[str] = set()  # sha256 of schemas that passed check_schema, here or in an earlier process
_LOADED: list[bool] = []


def _checked_file():
    return cache_dir() / "checked-output-schemas.txt"


def _known_valid(key: str) -> bool:
    if not _LOADED:
        _LOADED.append(True)
        with contextlib.suppress(OSError):
            _CHECKED.update(_checked_file().read_text("ascii").split())
    return hashlib.sha256(key.encode()).hexdigest() in _CHECKED


def _remember_valid(key: str) -> None:
    digest = hashlib.sha256(key.encode()).hexdigest()
    if digest in _CHECKED:
        return
    _CHECKED.add(digest)
    with contextlib.suppress(OSError):  # one short line per append: concurrent writers do not tear each other's
        _checked_file().parent.mkdir(parents=True, exist_ok=True)
        with open(_checked_file(), "a", encoding="ascii") as handle:
            handle.write(digest + "\n")


def _compile(schema: dict[str, Any]) -> Any:
    """What the SDK's `_output_schema_validator` builds, without repeating a meta-validation that passed before."""
    from jsonschema.validators import validator_for
    from referencing import Registry

    return validator_for(schema)(schema, registry=Registry())


class SharedValidators(dict):
    """A session's `_tool_output_validators`, backed by the process-wide table."""

    def __init__(self, schemas: dict[str, Any], own: dict[str, Any]):
        super().__init__(own)
        self._schemas = schemas  # the session's tool name -> output schema (the SDK keeps them in step)

    def _key(self, name: str) -> str | None:
        schema = self._schemas.get(name)
        return None if schema is None else json.dumps(schema, sort_keys=True)

    def get(self, name: str, default: Any = None) -> Any:
        found = super().get(name)
        if found is None and (key := self._key(name)) is not None:
            if key not in _VALIDATORS and _known_valid(key):
                _VALIDATORS[key] = _compile(self._schemas[name])
            found = _VALIDATORS.get(key)  # None: the SDK compiles (and checks) it, then stores it here
            if found is not None:
                super().__setitem__(name, found)
        return default if found is None else found

    def __setitem__(self, name: str, validator: Any) -> None:
        """The SDK stores a validator only after its schema passed check_schema."""
        super().__setitem__(name, validator)
        if (key := self._key(name)) is not None:
            _VALIDATORS.setdefault(key, validator)
            _remember_valid(key)


def _session(client: Any) -> Any:
    inner = getattr(client, "_client", client)  # BoundClient wraps the SDK Client
    return getattr(inner, "session", None)


def share_output_validators(client: Any) -> None:
    """Back the session's per-tool validator table by the process-wide one (call after listing tools)."""
    if not Settings.from_env().schema_cache:  # the SDK's own behaviour (bench baseline)
        return
    session = _session(client)
    schemas = getattr(session, "_tool_output_schemas", None)
    validators = getattr(session, "_tool_output_validators", None)
    if not isinstance(schemas, dict) or not isinstance(validators, dict):
        return  # another SDK layout: the session compiles as before, only slower
    if not isinstance(validators, SharedValidators):
        session._tool_output_validators = SharedValidators(schemas, validators)
