"""The container sandbox: inside the docker launcher's container (set by container.py there), each command under
a uid of its own leased for it, which cannot write `.app/` (the server uid's: the environment's CLI asks the
operation socket), and all its processes killed when it returns."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from ..container import command_users
from ..opsocket import SOCKET_ENV
from ..shell import Shell


class ContainerShell(Shell):
    name = "container"

    @contextlib.contextmanager
    def _command_user(self) -> Iterator[int | None]:
        with command_users().lease() as uid:
            yield uid

    def argv(self, command: str, uid: int | None = None) -> tuple[list[str], Path]:
        ops = self._operation_socket()
        if ops:
            os.chmod(ops.folder, 0o711)  # other uids may reach the socket, not list the folder
        socket = {SOCKET_ENV: str(ops.path)} if ops else {}
        return self.host_argv(command, {**socket, "TMPDIR": "/tmp"})
