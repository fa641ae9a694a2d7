"""Which uid block a container runs as (envcraft_runtime.container.UidBlock), claimed in the engine.

Containers share the host's kernel and have no user namespace, so two live containers must never
share a uid: the kernel counts processes (RLIMIT_NPROC), pending signals and inotify instances per
host uid, and a fork bomb in one container would leave another's commands unable to fork.

The claim is the container's name, `envcraft-uids-<block>`: the engine refuses a second container
of the same name (409) atomically, for every process and host that talks to it, so no lock file
is needed. The block is free again when the container is removed, and a container left behind by a
killed run keeps its block until reap() removes it (its processes may still be running). Blocks are
tried from a random one on, so concurrent launchers rarely meet.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import docker.errors
from envcraft_runtime.container import UID_BLOCKS, UidBlock

NAME_PREFIX = "envcraft-uids-"
HTTP_CONFLICT = 409


def container_name(block: UidBlock) -> str:
    return f"{NAME_PREFIX}{block.index}"


class NoFreeUidBlock(RuntimeError):
    pass


def create_with_uid_block(client: Any, spec: Callable[[UidBlock], dict[str, Any]]) -> tuple[str, UidBlock]:
    """Create a container from `spec(block)` under the first block no live container holds."""
    start = random.randrange(UID_BLOCKS)
    for step in range(UID_BLOCKS):
        block = UidBlock((start + step) % UID_BLOCKS)
        try:
            created = client.api.create_container(**spec(block), name=container_name(block))
        except docker.errors.APIError as exc:
            if exc.status_code == HTTP_CONFLICT:  # another live container holds this block
                continue
            raise
        return created["Id"], block
    raise NoFreeUidBlock(f"all {UID_BLOCKS} uid blocks are held by live containers (names {NAME_PREFIX}*): "
                         "a new run removes those of killed runs (docker_launcher.reap()); otherwise run fewer at once")
