"""envcraft_runtime: the one runtime every environment in servers/ stands on.

Standard library only (the MCP adapter imports `mcp` when it registers tools), so it also runs
inside the shell sandbox, where an environment's CLI verbs use it. Its parts:

- workspace.py: file access confined to one directory (the file tools);
- store.py: the app state, JSON tables under `.app/`, locked so MCP tools and CLI verbs share it;
- operations.py: `read` / `write` tags for domain operations, and how they are called;
- arguments.py, rules.py, records.py: what generated apps share (argument checks, business rules
  as refusals, pages / reports / batches), imported by each app.py rather than copied into it;
- derived.py: the tools every app gets from its tools.json (read_policies, reports, batches,
  list_changes) and the descriptions of every tool's parameters;
- shell.py, cgroups.py, limits.py, opsocket.py: the contained shell and its bounds;
- mcp_adapter.py and cli.py: the two ways an app's operations are exposed;
- sandboxes/: where shell commands run, one module per sandbox (bwrap, container, process), chosen by name.

Trust boundary: this code is ours and trusted; every argument an agent sends (paths, text, shell
commands and whatever those commands run) is not, and is checked or contained here.
"""

from __future__ import annotations

from .failures import ToolFailure
from .limits import Limits
from .mcp_adapter import SCAFFOLDS, WORKSPACE, add_claw_tools, end_episode
from .operations import call_operation, check_arguments, read, to_jsonable, write
from .sandboxes import SANDBOXES, open_shell
from .shell import EpisodeNotEnded, Shell, ShellResult, sandbox_backend
from .store import ANSWER_FILE, APP_DIR, STATE_FILE, Store, Tables, find_row, next_id
from .workspace import Workspace

__all__ = [
    "ANSWER_FILE",
    "APP_DIR",
    "SANDBOXES",
    "SCAFFOLDS",
    "STATE_FILE",
    "WORKSPACE",
    "EpisodeNotEnded",
    "Limits",
    "Shell",
    "ShellResult",
    "Store",
    "Tables",
    "ToolFailure",
    "Workspace",
    "add_claw_tools",
    "call_operation",
    "check_arguments",
    "end_episode",
    "find_row",
    "next_id",
    "open_shell",
    "read",
    "sandbox_backend",
    "to_jsonable",
    "write",
]
