"""Scenario -> blueprint by an LLM: ask for a Blueprint as structured output, compile, audit, repair.

Any OpenAI-compatible endpoint works. The model's reply must validate against the Blueprint
model; a validation error or a failed audit is fed back as the next user message, a bounded
number of rounds. Nothing enters the catalog unless the audit passes.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from envcraft.generator import rules as rule_kinds
from envcraft.generator.audit.audit import AuditReport
from envcraft.generator.audit.isolated_audit import audit_isolated
from envcraft.generator.compile.compiler import compile_blueprint
from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint
from openai import OpenAI
from pydantic import BaseModel, ValidationError

SYSTEM = """You design executable environments for training tool-using agents.
Reply with ONE JSON object that validates against the Blueprint JSON schema below: no prose, no code fences.
Operation semantics: search filters rows by `params` (substring for text, exact otherwise); get takes
<entity>_id; create sets `params` as fields (status_field starts at its first enum value); update changes
fields of <entity>_id; transition sets the entity's status_field to `to_status`; delete removes a row.
A business rule is a policy, stated once: its `check` (kinds: {kinds}; the Precondition description
in the schema says what each reads) becomes a precondition of the operations it names and blocks a write, citing
the rule; effects (adjust, set) change a referenced row. Names are snake_case; operation names are
<entity>_<verb>; description is at most 100 characters.
Example of a valid blueprint:
{example}
Blueprint JSON schema:
{schema}"""


class Attempt(BaseModel):
    round: int
    error: str | None = None  # why this round's reply was not accepted
    audit: AuditReport | None = None


class Synthesis(BaseModel):
    blueprint: Blueprint | None = None
    folder: str | None = None
    attempts: list[Attempt]

    @property
    def accepted(self) -> bool:
        return self.blueprint is not None and self.attempts[-1].error is None


def _json_of(text: str) -> str:
    """The JSON object in a reply, tolerating code fences some models add anyway."""
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.S)
    return fenced.group(1) if fenced else text.strip()


def _example() -> str:
    import yaml

    return json.dumps(yaml.safe_load((BLUEPRINTS / "vet_clinic.yaml").read_text("utf-8")), separators=(",", ":"))


def synthesize(scenario: str, *, base_url: str, api_key: str, model: str, out_dir: Path,
               rounds: int = 3, timeout: float = 300.0) -> Synthesis:
    """Ask, validate, compile, audit; feed failures back for at most `rounds` rounds."""
    client = OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=2)
    schema = Blueprint.model_json_schema()
    messages = [{"role": "system", "content": SYSTEM.format(kinds=", ".join(rule_kinds.NAMES), example=_example(),
                                                   schema=json.dumps(schema))},
                {"role": "user", "content": f"Scenario: {scenario}"}]
    attempts: list[Attempt] = []
    for number in range(1, rounds + 1):
        response = client.chat.completions.create(
            model=model, messages=messages, temperature=0.0,
            response_format={"type": "json_schema", "json_schema": {"name": "blueprint", "schema": schema}})
        text = response.choices[0].message.content or ""
        messages.append({"role": "assistant", "content": text})
        attempt = Attempt(round=number)
        attempts.append(attempt)
        try:
            blueprint = Blueprint.model_validate_json(_json_of(text))
        except ValidationError as exc:
            attempt.error = f"the blueprint does not validate:\n{exc}"
        else:
            with tempfile.TemporaryDirectory(prefix="envcraft-llm-") as scratch:
                # an LLM wrote this blueprint: its build is never imported into this process
                report = audit_isolated(compile_blueprint(blueprint, Path(scratch) / blueprint.id), blueprint)
            attempt.audit = report
            if report.passed:
                folder = compile_blueprint(blueprint, Path(out_dir) / blueprint.id)
                return Synthesis(blueprint=blueprint, folder=str(folder), attempts=attempts)
            attempt.error = "the compiled environment failed its audit:\n" + "\n".join(
                f"- [{f.stage}] {f.tool or '-'}: {f.message}" for f in report.errors[:20])
        messages.append({"role": "user", "content": f"{attempt.error}\nFix these problems and reply with the "
                                                    "whole corrected blueprint as one JSON object."})
    return Synthesis(attempts=attempts)
