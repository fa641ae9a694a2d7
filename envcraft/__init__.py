"""EnvCraft: an MCP server farm for training and evaluating tool-using agents."""

__version__ = "0.2.0"
