"""The `mailroom-package-desk` CLI: the same domain verbs as the MCP tools, run with ENVCRAFT_WORKSPACE set."""

import sys

import app
from claw import run_cli

if __name__ == "__main__":
    sys.exit(run_cli("mailroom-package-desk", app.OPERATIONS))
