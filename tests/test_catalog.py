"""The shipped catalog: in sync with its blueprints, large, varied, and every environment audited."""

from __future__ import annotations

from pathlib import Path

import pytest
from envcraft.generator.audit.audit import audit
from envcraft.generator.catalog_stats import compute
from envcraft.generator.compile.compiler import render
from envcraft.generator.model.blueprint import ARCHETYPES, load_all

SERVERS = Path(__file__).resolve().parent.parent / "servers"
BLUEPRINTS = load_all()


@pytest.mark.slow
def test_committed_servers_are_exactly_what_the_blueprints_compile_to():
    stale = []
    for bp in BLUEPRINTS:
        folder = SERVERS / bp.id
        expected = render(bp)
        on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
        if on_disk != set(expected) or any((folder / rel).read_bytes() != text.encode() for rel, text in expected.items()):
            stale.append(bp.id)
    assert not stale, f"out of date (run `envcraft generate`): {stale}"


def test_catalog_is_larger_than_envcrafts_and_varied():
    stats = compute(BLUEPRINTS)
    assert stats.environments >= 150
    assert all(stats.kinds[kind] >= 40 for kind in ("general", "claw_tool", "claw_workspace")), stats.kinds
    assert all(stats.archetypes[a] >= 8 for a in ARCHETYPES), stats.archetypes
    assert stats.max_shared_fraction <= 0.5, stats.most_similar
    assert len(stats.domains) >= 8


@pytest.mark.slow
@pytest.mark.parametrize("bp", BLUEPRINTS, ids=[bp.id for bp in BLUEPRINTS])
def test_every_catalog_environment_passes_the_audit(bp):
    report = audit(SERVERS / bp.id, blueprint=bp)
    assert report.passed, report.summary()
