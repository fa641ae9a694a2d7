"""Discovery: every folder of servers/ with a server.json is an environment."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from registry.manifest import Manifest, read_manifest

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


def discover(root: Path = SERVERS) -> dict[str, Environment]:
    found = {}
    for manifest_path in sorted(Path(root).glob("*/server.json")):
        manifest = read_manifest(manifest_path.parent)
        found[manifest.env.env_id] = Environment(manifest.env.env_id, manifest_path.parent, manifest)
    return found


def get(name: str, root: Path = SERVERS) -> Environment:
    environments = discover(root)
    if name not in environments:
        known = ", ".join(sorted(environments)) or "none"
        raise KeyError(f"no environment named {name!r} in {root}; known: {known} (run `envcraft list`)")
    return environments[name]
