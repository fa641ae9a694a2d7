"""Blueprint -> server folder: app.py (templates/, ruff), server.py, SKILL.md, policies.json."""
