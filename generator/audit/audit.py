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
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Literal

import anyio
from envcraft.core.state import HISTORY_TABLE as HISTORY
from envcraft.generator.audit.probe import Explorer, Probe
from envcraft.generator.compile.extras import domain_tool_names, extras, group_fields
from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint, load_blueprint
from envcraft.generator.model.policy import enforced_rules
from envcraft.generator.rules.registry import value_guard
from envcraft.registry.catalog import Environment
from envcraft.registry.manifest import TOOL_NAME, read_manifest
from pydantic import BaseModel, Field

CALL_TIMEOUT = 10.0
TOTAL_TIMEOUT = 300.0


class Finding(BaseModel):
    stage: Literal["static", "runtime"]
    tool: str | None = None
    message: str
    severity: Literal["error", "warning"] = "error"


class AuditReport(BaseModel):
    env: str
    folder: str
    passed: bool = False
    findings: list[Finding] = Field(default_factory=list)
    calls: int = 0
    seconds: float = 0.0

    def add(self, stage: str, message: str, tool: str | None = None, severity: str = "error") -> None:
        self.findings.append(Finding(stage=stage, tool=tool, message=message, severity=severity))

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    def summary(self) -> str:
        verdict = "pass" if self.passed else "FAIL"
        first = f": {self.errors[0].tool or '-'}: {self.errors[0].message}" if self.errors else ""
        return f"{self.env:<32} {verdict}  {self.calls:>4} calls  {self.seconds:5.2f}s  {len(self.errors)} error(s){first}"


def _forget_modules(env_id: str) -> None:
    """Drop a previously imported copy, so the folder under audit is the one imported."""
    package = f"envcraft_env_{env_id}"
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]


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
    _forget_modules(env.name)
    try:
        from envcraft.registry.launch import load_server_module

        module = load_server_module(env)
        if not callable(getattr(module, "build_server", None)):
            report.add("static", "server.py has no build_server(workspace) function")
            return None
    except Exception as exc:  # noqa: BLE001
        report.add("static", f"server.py does not import: {type(exc).__name__}: {exc}")
        return None
    finally:
        _forget_modules(env.name)
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


class Hung(Exception):
    pass


def _runtime(env: Environment, bp: Blueprint | None, report: AuditReport, call_timeout: float, total: float) -> None:
    """Explore in a worker thread, watched from here: a tool that never returns (a sync tool runs on a
    thread no cancellation reaches) is reported as hung, and the audit moves on without it."""
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
        _forget_modules(env.name)
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


class Session:
    """One launched instance and the calls made to it."""

    def __init__(self, instance: Any, report: AuditReport, timeout: float, watch: dict[str, Any]):
        self.instance, self.report, self.timeout, self.watch = instance, report, timeout, watch
        self.state_path = instance.workspace / ".app" / "state.json"

    def state(self) -> bytes:
        return self.state_path.read_bytes() if self.state_path.exists() else b""

    def tables(self) -> dict:
        return json.loads(self.state() or b"{}")

    def reset(self, patch: Any = None) -> None:
        self.instance.reset()
        if patch is not None:
            tables = self.tables()
            patch(tables)
            self.state_path.write_text(json.dumps(tables, indent=1, sort_keys=True), "utf-8")

    async def call(self, name: str, args: dict) -> tuple[bool, str, Any] | None:
        """(is_error, text, structured) or None when the call crashed or hung (already reported)."""
        if self.watch["abandoned"].is_set():
            raise Hung(name)
        self.report.calls += 1
        self.watch["call"] = (name, args, time.monotonic())
        try:
            with anyio.fail_after(self.timeout):
                result = await self.instance.client.call_tool(name, args)
        except TimeoutError:
            self.report.add("runtime", f"hung: no answer within {self.timeout:.0f}s to {json.dumps(args)[:200]}", name)
            self.watch["hung"] = True
            raise Hung(name) from None
        except Exception as exc:  # noqa: BLE001 - a protocol-level failure is a crash too
            self.report.add("runtime", f"the call raised {type(exc).__name__}: {str(exc)[:300]}", name)
            return None
        finally:
            self.watch["call"] = None
        text = "\n".join(getattr(block, "text", "") for block in result.content or [])
        if result.is_error and (text.strip() == f"Error executing tool {name}" or "Traceback" in text):
            self.report.add("runtime", f"crashed with an exception that is not a ToolFailure "
                                       f"(the agent sees only {text.strip()[:120]!r}); args {json.dumps(args)[:200]}", name)
            return None
        return bool(result.is_error), text, result.structured_content

    async def expect_error(self, name: str, probe: Probe, read_only: bool = False) -> None:
        before = self.state()
        outcome = await self.call(name, probe.args)
        if outcome is None:
            return
        is_error, text, _ = outcome
        message = text.split(f"Error executing tool {name}:", 1)[-1].strip()
        if not is_error:
            self.report.add("runtime", f"{probe.label}: accepted {json.dumps(probe.args)[:200]}, expected a tool error", name)
        elif len(message) < 12:
            self.report.add("runtime", f"{probe.label}: the error {message!r} does not tell the agent what to do", name)
        elif probe.precondition is not None and probe.hint and probe.hint not in message:
            self.report.add("runtime", f"{probe.label}: blocked, but by another check: {message[:200]!r}", name, "warning")
        elif probe.rule is not None:
            if f"(rule {probe.rule}:" in message:
                self.__dict__.setdefault("blocked", set()).add(probe.rule)
            else:
                self.report.add("runtime", f"{probe.label}: refused without citing rule {probe.rule}: {message[:200]!r}",
                                name)
        elif probe.hint and probe.precondition is None and probe.hint.lower() not in message.lower():
            self.report.add("runtime", f"{probe.label}: the error does not name {probe.hint!r}: {message[:200]!r}", name,
                            "warning")
        if self.state() != before:
            self.report.add("runtime", f"{probe.label}: a rejected call changed .app/state.json", name)
            self.reset()

    async def schema_probes(self, tool: Any) -> None:
        """Hand-written environments: only calls that must fail, read off the input schema."""
        schema = tool.input_schema or {}
        props, required = schema.get("properties", {}), schema.get("required", [])
        self.reset()
        if required:
            await self.expect_error(tool.name, Probe(f"missing required {required[0]}", {}, True, hint=required[0]))
        for name, prop in props.items():
            kinds = {prop.get("type")} | {o.get("type") for o in prop.get("anyOf", [])}
            wrong = "not-a-number" if kinds & {"integer", "number"} else 12345 if "string" in kinds else None
            if wrong is not None:
                await self.expect_error(tool.name, Probe(f"wrong type for {name}", {name: wrong}, True, hint=name))
                break

    async def explore(self, bp: Blueprint, op: Any) -> None:
        self.reset()
        explorer = Explorer(bp, self.tables())
        if op.kind == "search":
            for probe in explorer.search_probes(op):
                await self._valid(bp, op, probe)
            valid: dict = {}
        else:
            rows = explorer.rows_for(op) if op.kind != "create" else [None]
            if op.kind != "create" and not rows:
                self.report.add("runtime", f"the seed has no {bp.entity(op.entity).table} to call it on", op.name, "warning")
                return
            valid = {}
            for row in rows:
                fields, patch = explorer.arranged(op, row, explorer.valid_fields(op, row))
                self.reset(patch)
                valid = explorer.to_args(op, fields)
                if await self._valid(bp, op, Probe("valid call", valid, False, row=row, fields=fields), last=row is rows[-1]):
                    break
        for probe in explorer.invalid_probes(op, valid):
            self.reset()
            await self.expect_error(op.name, probe)
        for probe in explorer.violation_probes(op):
            self.reset(probe.patch)
            await self.expect_error(op.name, probe)

    async def explore_extra(self, bp: Blueprint, extra: Any) -> None:
        """The derived read tools: a valid call answers without changing state; a bad one is refused."""
        self.reset()
        before = self.state()
        if extra.kind == "policies":
            outcome = await self.call(extra.name, {})
            listed = (outcome[2] or {}).get("result", []) if outcome else []
            if outcome is not None and ({r.get("id") for r in listed} != {r.id for r in enforced_rules(bp)} |
                                        {r.get("id") for r in listed if not r.get("enforced")}):
                self.report.add("runtime", "read_policies does not list every enforced rule", extra.name)
            await self.expect_error(extra.name, Probe("unknown tool", {"tool": "no_such_tool"}, True, hint="no_such_tool"),
                                    read_only=True)
        elif extra.kind == "bulk":
            await self.explore_bulk(bp, extra)
            return
        elif extra.kind == "history":
            await self.explore_history(extra)
        else:
            entity = bp.entity(extra.entity)
            for spec in group_fields(entity):
                outcome = await self.call(extra.name, {"group_by": spec.name})
                if outcome is None:
                    continue
                is_error, text, structured = outcome
                total = sum(g.get("count", 0) for g in (structured or {}).get("groups", []))
                if is_error or total != len(self.tables().get(entity.table, [])):
                    self.report.add("runtime", f"grouping by {spec.name} counts {total} rows, the table has "
                                               f"{len(self.tables().get(entity.table, []))}: {text[:160]!r}", extra.name)
            await self.expect_error(extra.name, Probe("bad group_by", {"group_by": "not_a_field"}, True, hint="group_by"))
        if self.state() != before:
            self.report.add("runtime", "a read tool changed .app/state.json", extra.name)

    async def explore_history(self, extra: Any) -> None:
        """The change history reads the whole log, pages it honestly and refuses a table the app lacks."""
        logged = len(self.tables().get(HISTORY, []))
        outcome = await self.call(extra.name, {"limit": 1})
        if outcome is not None:
            is_error, text, structured = outcome
            page = structured or {}
            if is_error or page.get("total") != logged or len(page.get("results", [])) != min(1, logged) or \
                    (logged > 1 and "offset=1" not in str(page.get("note"))):
                self.report.add("runtime", f"the history holds {logged} entries, the tool says {text[:160]!r}", extra.name)
        await self.expect_error(extra.name, Probe("unknown table", {"table": "no_such_table"}, True, hint="table"),
                                read_only=True)

    async def explore_bulk(self, bp: Blueprint, extra: Any) -> None:
        """A batch of records the rules allow is done in one call; a batch with one blocked record is
        refused, names that record, and changes nothing."""
        op = next(o for o in bp.operations if o.name == extra.operation)
        entity = bp.entity(op.entity)
        explorer = Explorer(bp, self.tables())
        guards = [p for p in op.preconditions if value_guard(p) is not None]

        def allowed(row: dict) -> bool:
            return row.get(entity.status_field) != op.to_status and all(row.get(p.field) in p.values for p in guards)

        good = [r for r in self.tables().get(entity.table, []) if allowed(r)][:2]
        if not good:
            self.report.add("runtime", "the seed has no record this batch could act on", extra.name, "warning")
            return
        ids_param = f"{entity.name}_ids"
        _, patch = explorer.arranged(op, good[0], {})
        self.reset(patch)
        before = self.state()
        outcome = await self.call(extra.name, {ids_param: [good[0]["id"]]})
        if outcome is not None:
            row = next((r for r in self.tables().get(entity.table, []) if r["id"] == good[0]["id"]), {})
            if outcome[0] or row.get(entity.status_field) != op.to_status:
                self.report.add("runtime", f"a batch of one allowed record failed: {outcome[1][:200]!r}", extra.name)
        if guards and self.state() != before:
            bad_status = next((v for v in entity.field(guards[0].field).values if v not in guards[0].values), None)
            blocked = next((r for r in self.tables().get(entity.table, []) if r["id"] != good[0]["id"]), None)
            if bad_status is not None and blocked is not None:
                def trap(t: dict, row_id: str = blocked["id"], field: str = guards[0].field) -> None:
                    for r in t.get(entity.table, []):
                        if r["id"] == row_id:
                            r[field] = bad_status
                if patch is not None:
                    both = patch
                    self.reset(lambda t: (both(t), trap(t)))
                else:
                    self.reset(trap)
                await self.expect_error(extra.name, Probe("batch with one blocked record",
                                                          {ids_param: [good[0]["id"], blocked["id"]]}, True,
                                                          hint=blocked["id"]))

    def rules_block(self, bp: Blueprint) -> None:
        """Every enforced rule was broken on purpose by some probe and refused (collected in explore)."""
        blocked = self.__dict__.setdefault("blocked", set())
        for rule in enforced_rules(bp):
            if rule.id not in blocked:
                self.report.add("runtime", f"rule {rule.id} was never shown to block a call built to break it "
                                           "(the audit could not arrange a world that breaks only this rule)")

    async def _valid(self, bp: Blueprint, op: Any, probe: Probe, last: bool = True) -> bool:
        before, tables = self.state(), self.tables()
        outcome = await self.call(op.name, probe.args)
        if outcome is None:
            return False
        is_error, text, structured = outcome
        if is_error:
            if last:
                severity = "warning" if op.preconditions or op.kind not in ("search", "get") else "error"
                self.report.add("runtime", f"{probe.label} was rejected: {text[:240]!r} (args {json.dumps(probe.args)[:200]})",
                                op.name, severity)
            return False
        after = self.state()
        table = bp.entity(op.entity).table
        if not op.writes:
            if after != before:
                self.report.add("runtime", "a read tool changed .app/state.json", op.name)
            rows = structured.get("results") if isinstance(structured, dict) and "results" in structured else \
                structured.get("result") if isinstance(structured, dict) and "result" in structured else structured
            if op.kind == "search" and probe.row is not None and probe.row["id"] not in [r.get("id") for r in rows or []]:
                self.report.add("runtime", f"{probe.label}: row {probe.row['id']} matches every filter but is not returned",
                                op.name)
            if op.kind == "get" and (structured or {}).get("id") != probe.row["id"]:
                self.report.add("runtime", f"returned {str(structured)[:100]} for {probe.row['id']}", op.name)
            return True
        if after == before:
            self.report.add("runtime", f"{probe.label} succeeded but did not change .app/state.json", op.name)
            return True
        now = json.loads(after)
        returned = (structured or {}).get("id")
        ids_before = [r.get("id") for r in tables.get(table, [])]
        ids_after = [r.get("id") for r in now.get(table, [])]
        if op.kind == "create" and (len(ids_after) != len(ids_before) + 1 or returned not in ids_after):
            self.report.add("runtime", f"create should add exactly one row to {table} (had {len(ids_before)}, "
                                       f"now {len(ids_after)}, returned id {returned})", op.name)
        if op.kind == "delete" and (probe.row["id"] in ids_after or len(ids_after) != len(ids_before) - 1):
            self.report.add("runtime", f"delete left {probe.row['id']} in {table}", op.name)
        if op.kind in ("update", "transition"):
            row = next((r for r in now.get(table, []) if r.get("id") == probe.row["id"]), {})
            entity = bp.entity(op.entity)
            expected = {k: v for k, v in probe.fields.items() if k in {f.name for f in entity.fields}}
            if op.kind == "transition":
                expected[entity.status_field] = op.to_status
            wrong = {k: row.get(k) for k, v in expected.items() if row.get(k) != v}
            if wrong:
                self.report.add("runtime", f"after the call the row holds {wrong}, expected {expected}", op.name)
        return True
