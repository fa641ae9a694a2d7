"""Joining a Ray cluster, for the gateway's Ray workers and `envcraft run --ray` alike. Ray is an extra."""

from __future__ import annotations

import os
from typing import Any

from envcraft.core.extras import require


def connect(address: str) -> Any:
    """Join the cluster at `address` ("auto": the running one; "local": start one in this process); returns `ray`."""
    # Ray swaps a loopback address for the machine's outward IP unless told this is a single host, and reads that
    # switch only from the environment, once, when it is imported: this write is Ray's own switch, set before the
    # import, and carries no setting of ours (tests/test_settings.py). It keeps a cluster on 127.0.0.1 reachable.
    if address.split(":")[0] in ("127.0.0.1", "localhost"):
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    ray = require("ray", "ray", "--ray")
    if not ray.is_initialized():
        try:
            ray.init(address=None if address == "local" else address, log_to_driver=False,
                     include_dashboard=False, configure_logging=False)
        except ConnectionError as exc:
            raise ValueError(f"no Ray cluster at {address!r} ({exc}): start one (ray start --head) or pass "
                             "--ray local") from None
    return ray


__all__ = ["connect"]
