"""The shapes a blueprint's rows are made of: an entity and its typed fields, and the name patterns and value
types every part of the blueprint model shares (generator/model/blueprint.py, generator/model/precondition.py).
"""

from __future__ import annotations

from typing import Literal

from envcraft.generator.model.plurals import plural as english_plural
from pydantic import BaseModel, ConfigDict, Field, model_validator

FieldType = Literal["str", "text", "int", "float", "bool", "date", "datetime", "enum", "ref", "email", "list_str"]
# Value generators for seed data (generator/seeds/values.py): realistic, deterministic from the seed.
Generator = Literal[
    "person_name", "first_name", "company", "city", "country", "street", "phone", "email", "word", "title",
    "sentence", "paragraph", "product", "color", "sku", "code", "url", "tag", "job_title", "department",
]
IDENT = r"^[a-z][a-z0-9_]{0,40}$"
# One-line text (titles, labels, messages, rules): no control characters, so a value can never
# break out of the line it is rendered into (generated code still takes every string via repr/ast).
ONE_LINE = r"^[^\x00-\x1f\x7f]*$"
Comparison = Literal["==", "!=", "<", "<=", ">", ">="]
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
Month = Literal["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december"]



class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FieldSpec(Strict):
    name: str = Field(pattern=IDENT)
    type: FieldType
    description: str = Field(default="", pattern=ONE_LINE)
    values: list[str] = Field(default_factory=list)  # enum choices, or a pool of realistic values for str
    ref: str | None = None  # entity name a `ref` field points to
    gen: Generator | None = None  # how seed rows get a value (str-like fields)
    template: str | None = Field(default=None, pattern=r"^([^\x00-\x1f\x7f{}]|\{n(:0?\d+d)?\})*$")  # e.g. "INV-{n:04d}" for str codes (n = row number)
    min: float | None = None  # int/float/date/datetime ranges (dates as day offsets from `today`)
    max: float | None = None
    unique: bool = False
    optional: bool = False  # may be null in seed rows and omitted on create

    @model_validator(mode="after")
    def _consistent(self) -> FieldSpec:
        if self.type == "enum" and len(self.values) < 2:
            raise ValueError(f"enum field {self.name!r} needs at least two `values`")
        if self.type == "ref" and not self.ref:
            raise ValueError(f"ref field {self.name!r} needs `ref: <entity>`")
        return self


def typed(spec: FieldSpec, raw: str) -> object:
    """A blueprint literal (always a string in YAML lists) as the field's own type."""
    if spec.type == "bool":
        return raw.strip().lower() in ("true", "yes", "1", "on")
    if spec.type == "int":
        return int(float(raw))
    if spec.type == "float":
        return float(raw)
    return raw


class Entity(Strict):
    name: str = Field(pattern=IDENT)  # singular; the table is `plural` (default: its English plural)
    plural: str | None = Field(default=None, pattern=IDENT)
    id_prefix: str = Field(pattern=r"^[a-z]{2,6}$")
    description: str = Field(default="", pattern=ONE_LINE)
    fields: list[FieldSpec]
    rows: int = Field(default=20, ge=3, le=400)  # seed rows: enough for search and decoys to matter
    status_field: str | None = Field(default=None, pattern=IDENT)  # the enum field a state machine moves along, if any

    @property
    def table(self) -> str:
        return self.plural or english_plural(self.name)

    def field(self, name: str) -> FieldSpec:
        for spec in self.fields:
            if spec.name == name:
                return spec
        raise KeyError(f"entity {self.name!r} has no field {name!r}")


__all__ = ["IDENT", "MONTHS", "ONE_LINE", "WEEKDAYS", "Comparison", "Entity", "FieldSpec", "FieldType", "Generator",
           "Month", "Strict", "typed"]
