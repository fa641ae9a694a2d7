"""Compile each tool output schema once per process, not once per MCP session.

The SDK client compiles (and meta-validates, `check_schema`) a tool's output schema the first time
a session sees a result of that tool. Every episode opens new sessions on servers whose schemas
never change, so in a gold replay this compile was ~40% of the run. Validators are immutable once
built, so sessions can share them: keyed by the schema's canonical JSON, they are handed to each
new session after its tools are listed.
"""

from __future__ import annotations

import json
import os
from typing import Any

_VALIDATORS: dict[str, Any] = {}


def _session(client: Any) -> Any:
    inner = getattr(client, "_client", client)  # BoundClient wraps the SDK Client
    return getattr(inner, "session", None)


def share_output_validators(client: Any) -> None:
    """Fill the session's per-tool validator cache from the process-wide one (and grow the latter)."""
    if os.environ.get("ENVCRAFT_SCHEMA_CACHE", "1") == "0":  # the SDK's own behaviour (bench baseline)
        return
    session = _session(client)
    schemas = getattr(session, "_tool_output_schemas", None)
    validators = getattr(session, "_tool_output_validators", None)
    if not isinstance(schemas, dict) or not isinstance(validators, dict):
        return  # another SDK layout: the session compiles as before, only slower
    for name, schema in schemas.items():
        if schema is None or name in validators:
            continue
        key = json.dumps(schema, sort_keys=True)
        if key not in _VALIDATORS:
            _VALIDATORS[key] = session._output_schema_validator(name, schema)
        validators[name] = _VALIDATORS[key]
