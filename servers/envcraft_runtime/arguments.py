"""Checks of the arguments a generated app's operations receive: each raises a ToolFailure that says
what to send instead, and none changes anything (an operation runs every check before it writes)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from .failures import ToolFailure
from .store import Tables, find_row

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")


def check_not_blank(value: str | None, field: str) -> None:
    if value is not None and not value.strip():
        raise ToolFailure(f"{field} is empty: give it a value")


def check_choice(value: str | None, field: str, choices: tuple[str, ...]) -> None:
    if value is not None and value not in choices:
        raise ToolFailure(f"{field} '{value}' is not allowed: use one of {', '.join(choices)}")


def check_range(value: float | None, field: str, low: float | None, high: float | None) -> None:
    if value is None:
        return
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"between {low} and {high}" if low is not None and high is not None else \
            f"at least {low}" if low is not None else f"at most {high}"
        raise ToolFailure(f"{field} {value} is out of range: give a number {bounds}")


def check_email(value: str | None, field: str) -> None:
    if value is not None and not EMAIL.match(value):
        raise ToolFailure(f"{field} '{value}' is not an email address like 'name@example.com'")


def _written_as(value: str, pattern: str, length: int) -> bool:
    """`value` parses with the strptime `pattern` and has the pattern's exact length (no single-digit parts)."""
    try:
        datetime.strptime(value, pattern)
    except ValueError:
        return False
    return len(value) == length


def check_date(value: str | None, field: str) -> None:
    if value is not None and not _written_as(value, "%Y-%m-%d", 10):
        raise ToolFailure(f"{field} '{value}' is not a date like '2026-12-03' (YYYY-MM-DD)")


def check_time(value: str | None, field: str) -> None:
    if value is not None and not _written_as(value, "%Y-%m-%dT%H:%M", 16):
        raise ToolFailure(f"{field} '{value}' is not a time like '2026-12-03T14:30' (YYYY-MM-DDTHH:MM, 24-hour)")


def check_items(value: list[str] | None, field: str) -> None:
    if value is not None and any(not item.strip() for item in value):
        raise ToolFailure(f"{field} has an empty item: give non-empty values")


def check_ref(tables: Tables, table: str, value: str | None, field: str, what: str, hint: str) -> None:
    if value is not None:
        find_row(tables, table, "id", value, what, f"{field} must be an existing {what} id ({hint})")


def check_unique(rows: list[dict[str, Any]], field: str, value: Any, own_id: str) -> None:
    if value is None:
        return
    for other in rows:
        if other.get(field) == value and other.get("id") != own_id:
            raise ToolFailure(f"{field} '{value}' is already used by {other['id']}: choose another {field}")


def check_order(row: dict[str, Any], start: str, end: str) -> None:
    if row.get(start) and row.get(end) and row[end] <= row[start]:
        raise ToolFailure(f"{end} ({row[end]}) is not after {start} ({row[start]}): give a later {end}")


__all__ = ["EMAIL", "check_choice", "check_date", "check_email", "check_items", "check_not_blank", "check_order",
           "check_range", "check_ref", "check_time", "check_unique"]
