"""Optional dependencies: imported where they are needed, and when missing, named with the install line.

A plain wheel install has none of them; the message says which extra brings the module, in the form
a user can paste (`pip install 'envcraft[trainers]'`), whichever way envcraft itself was installed.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class MissingExtra(ValueError):
    """An optional module is not installed; the message is the command that installs it."""


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """`module` imported, or MissingExtra naming `pip install 'envcraft[extra]'` for `purpose`."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(f"{purpose} needs {module.split('.')[0]}, which is not installed "
                           f"({exc}): pip install 'envcraft[{extra}]'") from None
