"""Discovery: every folder of servers/ with a server.json is an environment."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from envcraft.registry.manifest import Manifest, read_manifest

SERVERS = Path(__file__).resolve().parent.parent / "servers"


@dataclass(frozen=True)
class Environment:
    name: str
    folder: Path
    manifest: Manifest

    @property
    def seed(self) -> Path:
        return self.folder / self.manifest.env.seed

    @property
    def entrypoint(self) -> Path:
        return self.folder / self.manifest.env.entrypoint


_READ: dict[Path, tuple[tuple[int, int], Environment]] = {}  # server.json -> (mtime, size) and what it said


def _environment(manifest_path: Path) -> Environment:
    """A manifest is parsed again only when its file changed."""
    stat = manifest_path.stat()
    key = (stat.st_mtime_ns, stat.st_size)
    cached = _READ.get(manifest_path)
    if cached is None or cached[0] != key:
        manifest = read_manifest(manifest_path.parent)
        cached = _READ[manifest_path] = (key, Environment(manifest.env.env_id, manifest_path.parent, manifest))
    return cached[1]


def discover(root: Path = SERVERS) -> dict[str, Environment]:
    found = {}
    for manifest_path in sorted(Path(root).glob("*/server.json")):
        env = _environment(manifest_path)
        found[env.name] = env
    return found


def get(name: str, root: Path = SERVERS) -> Environment:
    direct = Path(root) / name / "server.json"  # folders are named after their environment
    if direct.exists() and (env := _environment(direct)).name == name:
        return env
    environments = discover(root)
    if name not in environments:
        raise unknown_environment(name, environments)
    return environments[name]


def unknown_environment(name: str, known: dict[str, Environment] | list[str]) -> KeyError:
    """The error for a name that is not an environment: the closest names, never the whole catalog."""
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return KeyError(f"no environment named {name!r}{hint} (`envcraft list` shows all {len(known)})")
