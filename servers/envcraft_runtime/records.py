"""Rows and results of a generated app's operations: typed records, pages of search results,
grouped reports, all-or-nothing batches, and the small row look-ups the operations share."""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

from .arguments import check_choice, check_ref
from .failures import ToolFailure
from .rules import PolicyRefusal
from .store import Tables, find_row


@dataclass(frozen=True)
class Rows:
    """One entity's table as an app's operations look rows up in it, declared once per app: what its
    messages call a row (`what`) and how the agent finds ids (`hint`)."""

    table: str
    what: str
    hint: str

    def find(self, tables: Tables, row_id: str) -> dict[str, Any]:
        """The row with this id, or a ToolFailure that says how to find one."""
        return find_row(tables, self.table, "id", row_id, self.what, self.hint)

    def check_ref(self, tables: Tables, value: str | None, field: str) -> None:
        """The argument `field`, when given, is the id of an existing row."""
        check_ref(tables, self.table, value, field, self.what, self.hint)


def as_record(record: type, row: dict[str, Any]) -> Any:
    """The row as its entity's dataclass (the typed output of a tool)."""
    return record(**{key: row.get(key) for key in record.__dataclass_fields__})


def row_of(tables: Tables, table: str, row_id: Any) -> dict[str, Any] | None:
    return next((row for row in tables.get(table, []) if row_id is not None and row.get("id") == row_id), None)


def field_of(tables: Tables, table: str, row_id: str | None, field: str) -> Any:
    for row in tables.get(table, []):
        if row_id is not None and row.get("id") == row_id:
            return row.get(field)
    return None


def target_row(tables: Tables, table: str, row_id: str | None, what: str) -> dict[str, Any] | None:
    """The row an effect changes (None when the reference is empty)."""
    if row_id is None:
        return None
    return find_row(tables, table, "id", row_id, what, "the record it refers to no longer exists")


def add_amount(value: Any, delta: float) -> Any:
    total = (value or 0) + delta
    return round(total, 2) if isinstance(total, float) else total


def drop_row(rows: list[dict[str, Any]], row: dict[str, Any]) -> None:
    rows[:] = [other for other in rows if other is not row]


def text_contains(value: Any, needle: str) -> bool:
    return value is not None and needle.lower().strip() in str(value).lower()


def has_item(value: Any, needle: str) -> bool:
    return isinstance(value, list) and any(needle.lower().strip() == str(item).lower() for item in value)


def starts_with(value: Any, prefix: str) -> bool:
    return value is not None and str(value).startswith(prefix)


@dataclass
class Page:
    """A search's results, iterable like a list; `note` says whether the results were cut. An app's page
    class subclasses it and narrows `results` to its records (the field keeps its place, first)."""

    results: list[Any]
    total: int  # rows that match
    offset: int
    note: str  # e.g. "20 of 57 shown; pass offset=20 for the rest"

    def __iter__(self) -> Any:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def __getitem__(self, index: int) -> Any:
        return self.results[index]


def page_class(record: type, rows: str) -> type:
    """The page class of a search over `record`s (`<Record>Page`): a Page whose results are those records, its
    docstring naming the `rows` (what the tool's output schema says of it)."""
    page = dataclasses.make_dataclass(f"{record.__name__}Page", [("results", list[record])], bases=(Page,))
    page.__doc__ = f"A page of {rows} from a search: `note` says how to get the rest."
    page.__module__ = record.__module__
    return page


def page_of(page: type, record: type, rows: list[dict[str, Any]], limit: int, offset: int) -> Any:
    """Rows in id order from `offset`, at most `limit`, with the total and what to pass for the rest."""
    if limit < 1:
        raise ToolFailure(f"limit {limit} is too small: ask for at least 1 result")
    if offset < 0:
        raise ToolFailure(f"offset {offset} is negative: start at 0")
    ordered = sorted(rows, key=lambda row: str(row.get("id")))
    shown = ordered[offset:offset + limit]
    return page(results=[as_record(record, row) for row in shown], total=len(ordered), offset=offset,
                note=page_note(len(shown), len(ordered), offset))


def page_note(shown: int, total: int, offset: int) -> str:
    """What a page says about the rest: how many are shown of how many, and the offset that gets more."""
    end = offset + shown
    if end < total:
        return f"{shown} of {total} shown; pass offset={end} for the rest"
    if offset:
        return f"{shown} of {total} shown (offset {offset}); no more results"
    return f"all {total} shown"


@dataclass
class ReportRow:
    value: str | int | float | bool | None  # the group's value of the group_by field
    count: int
    totals: dict[str, float]  # sums of the numeric fields over the group


@dataclass
class Report:
    group_by: str
    rows: int  # rows that matched the filters
    groups: list[ReportRow]


def report_of(rows: list[dict[str, Any]], group_by: str, numeric: tuple[str, ...]) -> Report:
    """Rows counted per value of `group_by`, largest group first, with the sums of the `numeric` fields."""
    groups: dict[Any, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row.get(group_by), []).append(row)
    out = [ReportRow(value=value, count=len(members),
                     totals={f: round(sum(m.get(f) or 0 for m in members), 2) for f in numeric})
           for value, members in groups.items()]
    out.sort(key=lambda g: (-g.count, str(g.value)))
    return Report(group_by=group_by, rows=len(rows), groups=out)


def report_on(rows: list[dict[str, Any]], group_by: str, filters: dict[str, Any], numeric: tuple[str, ...]) -> Report:
    """The rows whose fields equal every filter given (None: any value), counted per value of `group_by`, which
    must name one of the filters' fields (a report's groups and filters are the same fields)."""
    check_choice(group_by, "group_by", tuple(filters))
    kept = [row for row in rows if all(value is None or row.get(name) == value for name, value in filters.items())]
    return report_of(kept, group_by, numeric)


def run_batch(tables: Tables, operation: Any, ids: list[str], field: str) -> list[Any]:
    """Run a one-record operation on each id, on a copy: every change is kept, or none."""
    if not ids:
        raise ToolFailure(f"{field} is empty: give at least one id")
    if len(set(ids)) != len(ids):
        raise ToolFailure(f"{field} repeats an id: give each record once")
    if len(ids) > 100:
        raise ToolFailure(f"{field} has {len(ids)} ids: give at most 100 per call")
    work = copy.deepcopy(tables)
    done = []
    for row_id in ids:
        try:
            done.append(operation(work, row_id))
        except PolicyRefusal as exc:
            raise PolicyRefusal(exc.policy, exc.rule, f"{row_id}: {exc.fact}; nothing was changed", exc.value) from None
        except ToolFailure as exc:
            raise ToolFailure(f"{row_id}: {exc}; nothing was changed") from None
    tables.clear()
    tables.update(work)
    return done


__all__ = ["Page", "Report", "ReportRow", "Rows", "add_amount", "as_record", "drop_row", "field_of", "has_item",
           "page_class", "page_note", "page_of", "report_of", "report_on", "row_of", "run_batch", "starts_with",
           "target_row", "text_contains"]
