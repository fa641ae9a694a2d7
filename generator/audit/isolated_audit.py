"""Audit an untrusted build (an LLM-written blueprint's compiled folder) in a contained subprocess.

The host process never imports the build: a child `python -m envcraft.generator.audit.isolated_audit
FOLDER BLUEPRINT.json` runs the ordinary audit and prints its report as JSON. Under bubblewrap
(when present) the child sees the interpreter, the installed packages and this repository
read-only, the build folder read-write, a private /tmp, no network and no other process; without
it, it still runs as a separate process with CPU, memory and file-size limits. Either way a hang
ends at `timeout`.

    audit_isolated(folder, blueprint) -> AuditReport   (report.findings say which containment ran)
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from envcraft.generator.audit.audit import AuditReport, audit
from envcraft.generator.model.blueprint import Blueprint
from envcraft.registry.settings import Settings
from envcraft_runtime.settings import RuntimeSettings

MEMORY_BYTES = 2 * 1024 ** 3
CPU_SECONDS = 300


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024 ** 2, 256 * 1024 ** 2))
    os.setsid()


def _readable_roots() -> list[str]:
    """What the child must read: the interpreter, its libraries, the venv and our sources."""
    here = Path(__file__).resolve().parents[2]
    roots = {sys.base_prefix, sys.prefix, str(here), "/usr", "/lib", "/lib64", "/bin", "/etc/ssl", "/etc/alternatives"}
    roots |= {p for p in sys.path if p and Path(p).is_dir() and not p.startswith(("/tmp", "/proc"))}
    return sorted(r for r in roots if Path(r).exists())


def command(folder: Path, spec: Path) -> tuple[list[str], str]:
    child = [sys.executable, "-m", "envcraft.generator.audit.isolated_audit", str(folder), str(spec)]
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return child, "process"
    args = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--proc", "/proc", "--dev", "/dev",
            "--tmpfs", "/tmp"]
    for root in _readable_roots():
        args += ["--ro-bind", root, root]
    args += ["--bind", str(folder), str(folder), "--ro-bind", str(spec), str(spec), "--chdir", str(folder)]
    probe = subprocess.run([bwrap, "--unshare-all", "--ro-bind", "/", "/", "true"], capture_output=True, timeout=30)
    return (args + child, "bwrap") if probe.returncode == 0 else (child, "process")


def _runtime() -> RuntimeSettings:
    """The audit child's runtime settings: this process's, but commands as plain processes unless a sandbox was
    chosen (the child itself already runs inside bwrap)."""
    runtime = Settings.from_env().runtime
    return runtime if runtime.sandbox != "auto" else runtime.replace(sandbox="process")


def audit_isolated(folder: Path | str, blueprint: Blueprint, timeout: float = 600.0) -> AuditReport:
    folder = Path(folder).resolve()
    with tempfile.TemporaryDirectory(prefix="envcraft-audit-spec-") as tmp:
        spec = Path(tmp) / "blueprint.json"
        spec.write_text(blueprint.model_dump_json(), "utf-8")
        argv, containment = command(folder, spec)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1",
               **_runtime().to_environ()}
        try:
            ran = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, preexec_fn=_limits)
        except subprocess.TimeoutExpired:
            report = AuditReport(env=blueprint.id, folder=str(folder))
            report.add("runtime", f"the isolated audit did not finish within {timeout:.0f}s")
            return report
    last = ran.stdout.strip().splitlines()[-1] if ran.stdout.strip() else ""
    try:
        report = AuditReport.model_validate_json(last)
    except ValueError:
        report = AuditReport(env=blueprint.id, folder=str(folder))
        report.add("runtime", f"the isolated audit crashed (exit {ran.returncode}): {ran.stderr.strip()[-400:]}")
        return report
    report.add("static", f"audited in a separate process ({containment})", severity="warning")
    return report


def main(argv: list[str] | None = None) -> int:
    folder, spec = (argv or sys.argv[1:])[:2]
    blueprint = Blueprint.model_validate(json.loads(Path(spec).read_text("utf-8")))
    report = audit(Path(folder), blueprint=blueprint, find=False)
    print(report.model_dump_json())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
