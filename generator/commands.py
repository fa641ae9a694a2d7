"""`envcraft generate` and `envcraft audit`: compile blueprints, audit them, install the ones that pass.

An environment joins the farm (servers/<id>/) only after its audit passes: each blueprint is
compiled into a staging folder, audited there, and copied into place on success. A failing one
leaves whatever build was installed before untouched and prints why it failed.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from envcraft.generator.audit.audit import AuditReport, audit
from envcraft.generator.compile.appcode import BlueprintError
from envcraft.generator.compile.compiler import clear_build, compile_blueprint
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint
from pydantic import ValidationError

SERVERS = Path(__file__).resolve().parent.parent / "servers"


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '-'}: {e['msg']}" for e in exc.errors()[:3])
    return str(exc)


def generate(blueprints: list[Path] | None = None, out: Path = SERVERS, echo: Callable[[str], None] = print,
             verbose: bool = False) -> int:
    """Compile + audit each blueprint (default: all of generator/blueprints/); 1 if any is rejected."""
    paths = [Path(p) for p in blueprints] if blueprints else sorted(BLUEPRINTS.glob("*.yaml"))
    if not paths:
        raise FileNotFoundError(f"no blueprints in {BLUEPRINTS}")
    out = Path(out)
    passed = failed = 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="envcraft-generate-") as staging:
        for path in paths:
            begin = time.monotonic()
            try:
                bp = load_blueprint(path)
                staged = compile_blueprint(bp, Path(staging) / bp.id)
            except (ValidationError, BlueprintError, ValueError, KeyError, OSError) as exc:
                failed += 1
                echo(f"{path.stem:<32} REJECTED  blueprint {path}: {_reason(exc)}")
                continue
            compiled = time.monotonic() - begin
            report = audit(staged, bp)
            if report.passed:
                passed += 1
                install(staged, out / bp.id, bp)
            else:
                failed += 1
            note = "" if report.passed else "  (not installed)"
            echo(f"{report.summary()}  compile {compiled:.2f}s{note}")
            for finding in report.findings if (verbose or not report.passed) else []:
                echo(f"    {finding.severity:<7} {finding.stage:<7} {finding.tool or '-'}: {finding.message}")
    echo(f"{passed + failed} environment(s): {passed} passed, {failed} failed; {time.monotonic() - started:.1f}s")
    return 1 if failed else 0


def install(staged: Path, target: Path, bp) -> None:
    """Replace target with the audited build (never a folder the compiler did not write)."""
    clear_build(target, bp)
    shutil.copytree(staged, target, ignore=shutil.ignore_patterns("__pycache__"))


def audit_envs(names: list[str] | None = None, as_json: bool = False, echo: Callable[[str], None] = print) -> int:
    """Audit installed environments (default: every one in servers/); 1 if any fails."""
    from envcraft.registry.catalog import discover, get

    envs = [get(name) for name in names] if names else list(discover().values())
    reports: list[AuditReport] = []
    for env in envs:
        report = audit(env.folder)
        reports.append(report)
        if not as_json:
            echo(report.summary())
            for finding in report.findings:
                echo(f"    {finding.severity:<7} {finding.stage:<7} {finding.tool or '-'}: {finding.message}")
    if as_json:
        echo(json.dumps([r.model_dump() for r in reports], indent=2))
    else:
        echo(f"{len(reports)} environment(s): {sum(r.passed for r in reports)} passed, "
             f"{sum(not r.passed for r in reports)} failed")
    return 0 if all(r.passed for r in reports) else 1


def generate_from_scenario(scenario: str, out: Path, base_url: str | None, api_key: str | None, model: str | None,
                           rounds: int) -> int:
    """`envcraft generate --scenario`: an LLM writes the blueprint; it is installed only if its audit passes."""
    from envcraft.generator.llm import synthesize
    from envcraft.registry.settings import Settings

    settings = Settings.from_env(base_url=base_url, api_key=api_key, model=model)
    if not settings.base_url:
        raise ValueError("--scenario needs an LLM: pass --base-url (and --model, --api-key) or set ENVCRAFT_BASE_URL")
    result = synthesize(scenario, base_url=settings.base_url, api_key=settings.api_key, model=settings.model,
                        out_dir=Path(out), rounds=rounds)
    for attempt in result.attempts:
        print(f"round {attempt.round}: " + ("accepted" if attempt.error is None else attempt.error.splitlines()[0]))
    if not result.accepted:
        print(f"no blueprint passed within {rounds} round(s)")
        return 1
    path = BLUEPRINTS / f"{result.blueprint.id}.yaml"
    import yaml

    path.write_text(yaml.safe_dump(result.blueprint.model_dump(mode="json", exclude_defaults=True), sort_keys=False))
    print(f"installed {result.folder}; blueprint saved to {path}")
    return 0
