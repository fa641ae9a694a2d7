"""The `adsales` CLI: the same domain verbs as the MCP tools, for the shell inside the workspace."""

import sys

import app
from claw import run_cli

if __name__ == "__main__":
    sys.exit(run_cli("adsales", app.OPERATIONS))
