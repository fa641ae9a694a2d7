"""Audit an environment folder before it joins the farm: `audit(folder) -> AuditReport`.

Static stage: every .py parses, server.py imports, the manifest validates, every served tool has a
valid name, a description, typed parameters and an output schema, no name is served twice, and the
manifest lists exactly the served tools. Runtime stage, in-process on fresh copies of the seed:
every domain tool is called with valid arguments drawn from the seed state and with broken ones
(missing, wrong type, unknown id, bad enum value); nothing may crash or hang, broken calls must be
tool errors that say what to do, reads must leave `.app/state.json` unchanged, successful writes
must change it, and each declared precondition must really block a call built to violate it.
Without a blueprint (a hand-written environment) the runtime stage makes only the broken calls.
"""

from __future__ import annotations

import ast
import json
import logging
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import anyio
from envcraft.generator.audit.report import AuditReport, Finding
from envcraft.generator.audit.session import Hung, Session
from envcraft.generator.compile.extras import domain_tool_names, extras
from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint, load_blueprint
from envcraft.registry.catalog import Environment
from envcraft.registry.manifest import TOOL_NAME, read_manifest

CALL_TIMEOUT = 30.0  # a tool silent this long is hung; 10 s was reached by a plain search on a 2-core machine at load 15
TOTAL_TIMEOUT = 300.0


def find_blueprint(env_id: str) -> Blueprint | None:
    path = BLUEPRINTS / f"{env_id}.yaml"
    return load_blueprint(path) if path.exists() else None


def audit(folder: Path | str, blueprint: Blueprint | None = None, find: bool = True,
          call_timeout: float = CALL_TIMEOUT, total_timeout: float = TOTAL_TIMEOUT) -> AuditReport:
    """Audit one environment folder; `blueprint` defaults to generator/blueprints/<envId>.yaml if any."""
    folder = Path(folder).resolve()
    started = time.monotonic()
    report = AuditReport(env=folder.name, folder=str(folder))
    try:
        env = _static(folder, report)
        if env is not None:
            if blueprint is None and find:
                blueprint = find_blueprint(env.name)
            _runtime(env, blueprint, report, call_timeout, total_timeout)
    finally:
        report.seconds = round(time.monotonic() - started, 3)
        report.passed = not report.errors
    return report


# ---------------------------------------------------------------- static stage


def _static(folder: Path, report: AuditReport) -> Environment | None:
    if not (folder / "server.json").exists() or not (folder / "server.py").exists():
        report.add("static", "no server.json and server.py here: not an environment folder")
        return None
    for path in sorted(folder.glob("*.py")):
        try:
            ast.parse(path.read_text("utf-8"), filename=str(path))
        except SyntaxError as exc:
            report.add("static", f"{path.name} does not parse: {exc.msg} (line {exc.lineno})")
    for name in ("claw.py", "sandbox.py", "cli.py"):  # the runtime lives once, in envcraft_runtime
        if (folder / name).exists():
            report.add("static", f"{name} is a stale copy of the runtime: remove it (servers import envcraft_runtime)")
    try:
        manifest = read_manifest(folder)
    except Exception as exc:  # noqa: BLE001 - any manifest problem rejects the environment
        report.add("static", f"server.json does not validate: {exc}")
        return None
    report.env = manifest.env.env_id
    if report.errors:
        return None
    env = Environment(manifest.env.env_id, folder, manifest)
    from envcraft.registry.launch import forget_server_module, load_server_module  # the SDK: only once it is needed

    forget_server_module(env)  # a build audited before under this name is not this one
    try:
        module = load_server_module(env)
        if not callable(getattr(module, "build_server", None)):
            report.add("static", "server.py has no build_server(workspace) function")
            return None
    except Exception as exc:  # noqa: BLE001
        report.add("static", f"server.py does not import: {type(exc).__name__}: {exc}")
        return None
    finally:
        forget_server_module(env)
    return env


def _typed(schema: dict) -> bool:
    if "type" in schema or "enum" in schema or "$ref" in schema or "const" in schema:
        return True
    return any(_typed(option) for option in schema.get("anyOf", []) + schema.get("oneOf", []))


def _check_tools(env: Environment, tools: list[Any], report: AuditReport) -> None:
    names = [tool.name for tool in tools]
    for name in sorted({n for n in names if names.count(n) > 1}):
        report.add("static", "served twice", name)
    for tool in tools:
        if not TOOL_NAME.match(tool.name):
            report.add("static", f"name does not match {TOOL_NAME.pattern}", tool.name)
        if not (tool.description or "").strip():
            report.add("static", "no description", tool.name)
        for prop, schema in (tool.input_schema or {}).get("properties", {}).items():
            if not _typed(schema):
                report.add("static", f"parameter {prop!r} has no type in the input schema", tool.name)
        if not tool.output_schema:
            report.add("static", "no output schema", tool.name)
    listed = {t.name: t for t in env.manifest.env.tools}
    served = {t.name: t for t in tools}
    for name in sorted(set(listed) - set(served)):
        report.add("static", "listed in server.json but not served", name)
    for name in sorted(set(served) - set(listed)):
        report.add("static", "served but not listed in server.json", name)
    for name in sorted(set(listed) & set(served)):
        read_only = bool(served[name].annotations and served[name].annotations.read_only_hint)
        if listed[name].writes == read_only:
            report.add("static", f"server.json says writes={listed[name].writes} but the tool's readOnlyHint is {read_only}", name)


# ---------------------------------------------------------------- runtime stage


def _runtime(env: Environment, bp: Blueprint | None, report: AuditReport, call_timeout: float, total: float) -> None:
    """Explore in a worker thread, watched from here: a tool that never returns (a sync tool runs on a
    thread no cancellation reaches) is reported as hung, and the audit moves on without it."""
    from envcraft.registry.launch import forget_server_module

    scratch = AuditReport(env=report.env, folder=report.folder)
    watch: dict[str, Any] = {"call": None, "abandoned": threading.Event()}
    done = threading.Event()
    box: dict[str, BaseException] = {}

    def work() -> None:
        try:
            anyio.run(_explore, env, bp, scratch, call_timeout, watch)
        except Hung:
            pass
        except BaseException as exc:  # noqa: BLE001 - reported below
            box["error"] = exc
        finally:
            done.set()

    quiet = logging.getLogger("mcp")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    started = time.monotonic()
    try:
        threading.Thread(target=work, name=f"audit-{env.name}", daemon=True).start()
        while not done.wait(0.05) and not watch.get("hung"):
            current = watch["call"]
            if current is not None and time.monotonic() - current[2] > call_timeout + 1:
                scratch.add("runtime", f"hung: no answer within {call_timeout:.0f}s to {json.dumps(current[1])[:200]}",
                            current[0])
                break
            if time.monotonic() - started > total:
                scratch.add("runtime", f"the exploration did not finish within {total:.0f}s")
                break
    finally:
        watch["abandoned"].set()
        quiet.setLevel(level)
        forget_server_module(env)
    report.findings += list(scratch.findings)
    report.calls += scratch.calls
    if "error" in box:
        exc = box["error"]
        report.add("runtime", f"the exploration itself failed: {type(exc).__name__}: {exc}")


async def _explore(env: Environment, bp: Blueprint | None, report: AuditReport, timeout: float,
                   watch: dict[str, Any]) -> None:
    from envcraft.registry.launch import InProcessLauncher, launch
    from envcraft.registry.workspaces import WorkspaceRoot

    # The root goes first, unmounting its workspaces' quotas: rmtree cannot remove a mount point.
    with tempfile.TemporaryDirectory(prefix="envcraft-audit-") as tmp, WorkspaceRoot(Path(tmp)) as root:
        async with launch(env, InProcessLauncher(), root) as instance:
            tools = (await instance.client.list_tools()).tools
            _check_tools(env, tools, report)
            session = Session(instance, report, timeout, watch)
            domain = [t.name for t in env.manifest.env.tools if t.layer == "domain"]
            if bp is None:
                report.add("runtime", "no blueprint for this environment: only broken calls were made", severity="warning")
                for tool in tools:
                    if tool.name in domain:
                        await session.schema_probes(tool)
                return
            if sorted(domain) != sorted(domain_tool_names(bp)):
                report.add("runtime", "the domain tools differ from the blueprint's operations: rebuild with envcraft generate")
            served = {t.name for t in tools}
            for op in bp.operations:
                if op.name in served:
                    await session.explore(bp, op)
            for extra in extras(bp):
                if extra.name in served:
                    await session.explore_extra(bp, extra)
            session.rules_block(bp)


# AuditReport and Finding (generator/audit/report.py) are re-exported: callers import the audit from here.
__all__ = ["CALL_TIMEOUT", "TOTAL_TIMEOUT", "AuditReport", "Finding", "audit", "find_blueprint"]
