"""servers/ holds each thing once: no file is a byte-identical copy of another (the runtime is one
package, envcraft_runtime, imported by every server), and no server folder carries a runtime copy."""

from __future__ import annotations

import hashlib
from collections import defaultdict

from tests.helpers import REPO

SERVERS = REPO / "servers"


def test_no_file_in_servers_is_a_copy_of_another():
    by_digest: dict[str, list[str]] = defaultdict(list)
    for path in sorted(SERVERS.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            by_digest[hashlib.sha256(path.read_bytes()).hexdigest()].append(path.relative_to(SERVERS).as_posix())
    copies = [names for names in by_digest.values() if len(names) > 1]
    assert not copies, f"{len(copies)} file(s) stored more than once, e.g. {copies[:3]}"
    assert len(by_digest) > 152 * 4  # every server's own files were really hashed


def test_servers_import_the_one_runtime():
    stale = sorted(p.relative_to(SERVERS).as_posix() for name in ("claw.py", "sandbox.py", "cli.py")
                   for p in SERVERS.glob(f"*/{name}") if p.parent.name != "envcraft_runtime")
    assert not stale, f"runtime copies left in server folders: {stale[:5]} (run `envcraft generate`)"
    assert (SERVERS / "envcraft_runtime" / "__init__.py").exists()
