"""Open the episode API: in process, or against a gateway."""

from __future__ import annotations

from typing import Any

from envcraft.harness.farm_base import FarmBase


def open_farm(url: str | None = None, *, token: str | None = None, **options: Any) -> FarmBase:
    """The in-process farm (no url) or a gateway's (url + control token); use with `async with`."""
    if url:
        from envcraft.harness.farm_remote import RemoteFarm

        if not token:
            raise ValueError("a remote farm needs the gateway's control token (printed when `envcraft serve --all` starts)")
        return RemoteFarm(url, token, **options)
    from envcraft.harness.farm_local import LocalFarm

    return LocalFarm(**options)
