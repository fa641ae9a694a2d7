"""The generated SKILL.md: what the workspace holds, the tools, the CLI verbs, the conventions."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from envcraft.generator.compile.appcode import params_of
from envcraft.generator.compile.conventions import conventions
from envcraft.generator.compile.extras import extras
from envcraft.generator.model.blueprint import Blueprint, Operation, Precondition
from envcraft.generator.model.policy import policy_markdown
from envcraft.generator.rules.registry import opening_hours, source_states
from envcraft.generator.seeds.seed import time_pairs

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

SCAFFOLD_NOTES = {
    "claw_workspace": "File tools: `read_file`, `write_file`, `edit_file`, `list_dir`, `find_files`, `grep`. `run_shell` "
                      "runs a contained shell in the workspace (no network; `grep`, `awk`, `sort`, `python3` are there). "
                      "Call `finish` when the task is done, with the answer when you were asked a question.",
    "claw_tool": "File tools: `read_file`, `write_file`, `edit_file`, `list_dir`, `find_files`, `grep` (there is no "
                 "shell). Call `finish` when the task is done, with the answer when you were asked a question.",
    "general": "Call `finish` when the task is done, with the answer when you were asked a question.",
}


def _quote(value: str) -> str:
    return value if value and all(c.isalnum() or c in "-_.:@" for c in value) else '"' + value.replace('"', '\\"') + '"'


def _window(op: Operation, field: str, args: dict[str, Any]) -> Precondition | None:
    """The operation's time window on `field` that applies to these arguments (its same-row `when` holds), so an
    example never books what the environment's own hours refuse (a dinner at 10:00)."""
    for pre in op.preconditions:
        if not opening_hours(pre) or pre.field != field or not pre.from_time:
            continue
        if all(not c.ref_field and ((c.op == "==" and args.get(c.field) == c.value)
                                    or (c.op == "in" and args.get(c.field) in c.values)) for c in pre.conditions):
            return pre
    return None


def _in_window(day: date, pre: Precondition | None, later: bool) -> tuple[date, str]:
    """The first day from `day` the window is open on, and an example time in it (default 10:00 / 11:00)."""
    if pre is None:
        return day, "11:00" if later else "10:00"
    while pre.days and WEEKDAYS[day.weekday()] not in pre.days:
        day += timedelta(days=1)
    return day, pre.from_time


def example_arguments(bp: Blueprint, op: Operation, tables: dict[str, list[dict]]) -> dict[str, Any]:
    """Plausible arguments for a CLI example, from the seed rows (required ones, plus one filter for a search)."""
    entity = bp.entity(op.entity)
    rows = tables[entity.table]
    first = rows[0] if rows else {}
    soon = date.fromisoformat(bp.today) + timedelta(days=2)
    args: dict[str, Any] = {}
    for param in params_of(bp, op):
        if param.name == f"{entity.name}_id":
            args[param.name] = first.get("id", f"{entity.id_prefix}-0001")
            continue
        if param.spec is None or (not param.required and not (op.kind == "search" and not args)):
            continue
        spec = param.spec
        later = spec.name in time_pairs(bp, entity)
        if spec.type == "datetime":
            day, clock = _in_window(soon, None, later)
            args[param.name] = f"{day.isoformat()}T{clock}"
        elif spec.type == "date":
            args[param.name] = (soon + timedelta(days=1 if later else 0)).isoformat()
        elif spec.type == "ref":
            others = tables[bp.entity(spec.ref).table]
            args[param.name] = others[0]["id"] if others else "..."
        elif spec.type == "enum":
            args[param.name] = spec.values[0]
        elif spec.type in ("int", "float"):
            low = spec.min if spec.min is not None else 1
            args[param.name] = int(low) if spec.type == "int" or float(low).is_integer() else low
        elif spec.type == "bool":
            args[param.name] = True
        elif spec.type == "list_str":
            args[param.name] = (spec.values or ["..."])[:2]
        elif op.kind == "search" and first.get(spec.name) is not None:
            args[param.name] = str(first[spec.name]).split(" ")[0]
        else:
            args[param.name] = "..."
    _fit_windows(bp, op, args)
    return args


def _fit_windows(bp: Blueprint, op: Operation, args: dict[str, Any]) -> None:
    """Move an example's start into the operation's time window (and its end an hour after it)."""
    pairs = {start: end for end, start in time_pairs(bp, bp.entity(op.entity)).items()}
    for name, value in list(args.items()):
        pre = _window(op, name, args)
        if pre is None or not isinstance(value, str) or "T" not in value:
            continue
        day, clock = _in_window(date.fromisoformat(value[:10]), pre, False)
        args[name] = f"{day.isoformat()}T{clock}"
        end = pairs.get(name)
        if end in args:
            hour = min(int(clock[:2]) + 1, 23)
            args[end] = f"{day.isoformat()}T{hour:02d}:{clock[3:]}"


def cli_example(cli: str, op: Operation, args: dict[str, Any]) -> str:
    parts = [cli, op.name.replace("_", "-")]
    for name, value in args.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            parts.append(flag)
        elif isinstance(value, list):
            parts += [flag] + [_quote(str(v)) for v in value]
        else:
            parts += [flag, _quote(str(value))]
    return " ".join(parts)


def _file_note(bp: Blueprint, path: str) -> str:
    file = next(f for f in bp.files if f.path == path)
    if file.export:
        entity = bp.entity(file.export)
        columns = ", ".join(["id"] + [f.name for f in entity.fields])
        return f"Export of the {entity.table} as of today ({file.format.upper()}: {columns}). Read it; the app is the live copy."
    heading = next((line.lstrip("# ").strip() for line in (file.content or "").splitlines() if line.strip()), "")
    return heading or "A document."


def _machines(bp: Blueprint) -> list[str]:
    lines = []
    for entity in bp.entities:
        if not entity.status_field:
            continue
        moves = []
        for op in bp.operations:
            if op.entity == entity.name and op.kind == "transition":
                source = source_states(entity, op)
                moves.append(f"`{op.name}` -> {op.to_status}" + (f" (from {', '.join(source)})" if source else ""))
        values = entity.field(entity.status_field).values
        line = f"- {entity.name} `{entity.status_field}`: {', '.join(values)}; new ones start as {values[0]}"
        lines.append(line + (". Moves: " + "; ".join(moves) + "." if moves else "."))
    return lines


def render_skill(bp: Blueprint, tables: dict[str, list[dict]]) -> str:
    today = date.fromisoformat(bp.today)
    shell = bp.kind == "claw_workspace" and bp.cli
    lines = [f"# SKILL: {bp.title}", "", " ".join(bp.scenario.split()), "",
             f"Today is **{today.strftime('%A')} {bp.today}**.", "", "## What is here", ""]
    if bp.files:
        lines += ["| Path | What it holds |", "|------|---------------|"]
        lines += [f"| `{f.path}` | {_file_note(bp, f.path)} |" for f in sorted(bp.files, key=lambda f: f.path)]
        lines.append("")
    records = ", ".join(e.table.replace("_", " ") for e in bp.entities)
    lines += [f"The app's records ({records}) are not files: they live in the app, and the tools below are how they "
              "change" + (f" (or the same verbs of the `{bp.cli}` CLI in the shell)." if shell else "."), ""]
    for entity in bp.entities:
        fields = ", ".join(f.name + (f" ({'/'.join(f.values)})" if f.type == "enum" else "") for f in entity.fields)
        lines.append(f"- **{entity.name}** (`{entity.id_prefix}-0001`, ...): {fields}")
    lines += ["", "## Domain tools" + (f" and the `{bp.cli}` CLI" if shell else ""), ""]
    if shell:
        lines += [f"Every tool has a shell verb with the same parameters (`_` becomes `-`); each prints JSON. Run "
                  f"`{bp.cli} --help` or `{bp.cli} <verb> --help` in `run_shell`.", "",
                  "| Tool | Writes | What it does | Shell verb example |", "|------|--------|--------------|--------------------|"]
    else:
        lines += ["| Tool | Writes | What it does |", "|------|--------|--------------|"]
    for op in bp.operations:
        row = f"| `{op.name}` | {'yes' if op.writes else 'no'} | {op.description.strip()} |"
        if shell:
            row += f" `{cli_example(bp.cli, op, example_arguments(bp, op, tables))}` |"
        lines.append(row)
    for extra in extras(bp):
        row = f"| `{extra.name}` | {'yes' if extra.writes else 'no'} | {extra.description} |"
        lines.append(row + (f" `{bp.cli} {extra.name.replace('_', '-')} --help` |" if shell else ""))
    lines += ["", SCAFFOLD_NOTES[bp.kind], "", "## Conventions", ""] + conventions(bp)
    lines += _machines(bp)
    lines += [""] + policy_markdown(bp)
    if bp.skill.strip():
        lines += ["", "## Notes", "", " ".join(bp.skill.split())]
    return "\n".join(lines) + "\n"
