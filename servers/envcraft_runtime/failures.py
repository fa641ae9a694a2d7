"""The one error type the runtime raises for an agent to read."""

from __future__ import annotations


class ToolFailure(Exception):
    """A failure the agent can act on; the message says what to do next."""
