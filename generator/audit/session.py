"""The audit's runtime stage on one launched instance: valid calls drawn from the seed, broken calls that must be
refused with a message the agent can act on, and worlds built so each enforced rule blocks (generator/audit/probe.py
makes the calls; generator/audit/audit.py runs the stage and watches it for hangs)."""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
from envcraft.core.state import HISTORY_TABLE as HISTORY
from envcraft.generator.audit.probe import Explorer, Probe
from envcraft.generator.audit.report import AuditReport
from envcraft.generator.compile.extras import group_fields
from envcraft.generator.model.blueprint import Blueprint
from envcraft.generator.model.policy import enforced_rules
from envcraft.generator.rules.registry import value_guard


class Hung(Exception):
    pass


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


__all__ = ["Hung", "Session"]
