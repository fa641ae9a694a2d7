"""What an audit found: one finding per problem, collected in the report `audit(folder)` returns."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


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


__all__ = ["AuditReport", "Finding"]
