"""Compile a blueprint into a standalone MCP server folder shaped like servers/office/.

    compile_blueprint(bp, Path("servers") / bp.id)

writes server.py (from templates/server.py.jinja, which renders servers/office/server.py exactly
for office's parameters), app.py (the domain operations, see appcode.py and opcode.py), bin/<cli> for workspaces
(the CLI shim, office's with the verb renamed), server.json, README.md and seed/ (app state, files
and SKILL.md). The runtime is not copied: every server imports the one package envcraft_runtime
(servers/envcraft_runtime/); `envcraft pack` vendors it into a standalone folder on demand. The same blueprint always gives
the same bytes: nothing depends on time, the machine or dict/set iteration of unordered data.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from datetime import date
from pathlib import Path

from envcraft.generator.compile.appfile import MARKER, marked_generated, render_app, tools_json
from envcraft.generator.compile.extras import extras
from envcraft.generator.compile.render import render_python
from envcraft.generator.compile.skill import render_skill
from envcraft.generator.model.blueprint import Blueprint
from envcraft.generator.model.policy import policies_json, policy_summary
from envcraft.generator.seeds.seed import seed_files, seed_tables, state_json
from envcraft.generator.seeds.seed_history import HISTORY, seed_history
from envcraft_runtime.derived import TOOLS_FILE
from envcraft_runtime.rules import POLICY_FILE

HERE = Path(__file__).resolve().parents[1]
OFFICE = HERE.parent / "servers" / "office"
SCAFFOLD_BY_KIND = {"claw_workspace": "full", "claw_tool": "files", "general": "none"}
# The scaffold tools in the order envcraft_runtime.add_claw_tools registers them, and whether each writes.
SCAFFOLD_TOOLS = (("read_file", False), ("write_file", True), ("edit_file", False), ("list_dir", False),
                  ("find_files", False), ("grep", False), ("run_shell", True), ("finish", True))
SCAFFOLD_SETS = {
    "full": ("read_file", "write_file", "edit_file", "list_dir", "find_files", "grep", "run_shell", "finish"),
    "files": ("read_file", "write_file", "edit_file", "list_dir", "find_files", "grep", "finish"),
    "none": ("finish",),
}
WRITING_SCAFFOLD = {"write_file", "edit_file", "run_shell", "finish"}
SCAFFOLD_DOCS = {"read_file": "Read a text file of the workspace.", "write_file": "Create or overwrite a text file.",
                 "edit_file": "Replace exact text in a file.", "list_dir": "List a folder of the workspace.",
                 "find_files": "Find files by glob pattern.", "grep": "Search file contents with a regular expression.",
                 "run_shell": "Run a contained shell command in the workspace (the domain verbs are a CLI there).",
                 "finish": "Declare the task done, with the answer if one was asked for."}
SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"


def text_pieces(text: str, width: int = 100) -> list[str]:
    """Text cut at spaces into pieces under `width`, each keeping its trailing space: as adjacent string
    literals, Python joins them back exactly."""
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return [line + " " for line in lines[:-1]] + lines[-1:]


def render_server(summary: str, instructions: list[str], name: str, version: str, cli: str | None, scaffold: str) -> str:
    """servers/<env>/server.py; `instructions` are the pieces of the text the server gives every client."""
    return render_python("server.py.jinja", summary=summary, instructions=instructions, name=name, version=version,
                         cli=cli, scaffold=scaffold)


def scaffold_of(bp: Blueprint) -> str:
    return SCAFFOLD_BY_KIND[bp.kind]


def shell_cli(bp: Blueprint) -> str | None:
    """The shell verb, for kinds that have a shell."""
    return bp.cli if bp.kind == "claw_workspace" else None


def instructions_text(bp: Blueprint) -> str:
    """What the server tells every client: the scenario, today's date, the conventions and the rules
    (the named policies in full; every rule through read_policies, and SKILL.md where there are files)."""
    day = date.fromisoformat(bp.today).strftime("%A")
    scenario = " ".join(bp.scenario.split())
    conventions = (f"Today is {day} {bp.today}; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids "
                   f"like {bp.entities[0].id_prefix}-0001: search first, then act on the id. A failed write changes "
                   "nothing, and a refusal names the rule that blocks it.")
    if bp.kind == "claw_workspace":
        where = (f"Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the "
                 f"`{bp.cli}` CLI in the shell) and the file tools.")
    elif bp.kind == "claw_tool":
        where = "Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools and the file tools."
    else:
        where = "There are no files here: read_policies lists every rule the tools enforce."
    guidance = " ".join(bp.skill.split())
    parts = [scenario, conventions, where, policy_summary(bp), guidance, "Call finish when done."]
    return " ".join(part for part in parts if part)


def server_source(bp: Blueprint) -> str:
    description = bp.description.strip().rstrip(".")
    summary = f"{bp.title} MCP server: {description[:1].lower() + description[1:]}."
    return render_server(summary, text_pieces(instructions_text(bp)), bp.id, "1.0.0", shell_cli(bp), scaffold_of(bp))


def tool_list(bp: Blueprint) -> list[dict]:
    scaffold = [{"name": name, "layer": "scaffold", "writes": name in WRITING_SCAFFOLD}
                for name, _ in SCAFFOLD_TOOLS if name in SCAFFOLD_SETS[scaffold_of(bp)]]
    return scaffold + [{"name": op.name, "layer": "domain", "writes": op.writes} for op in bp.operations] + [
        {"name": extra.name, "layer": "domain", "writes": extra.writes} for extra in extras(bp)]


def manifest(bp: Blueprint) -> dict:
    """server.json. No `packages` entry: no registry package runs an environment on its own (it is served by
    `envcraft serve <env>` from the envcraft package, or run as `python server.py --workspace <seeded dir>`)."""
    meta = {"envId": bp.id, "kind": bp.kind, "domain": bp.domain, "archetypes": list(bp.archetypes),
            "entrypoint": "server.py"}
    if shell_cli(bp):
        meta["cli"] = shell_cli(bp)
    meta |= {"seed": "seed", "tools": tool_list(bp)}
    return {"$schema": SCHEMA, "name": f"io.github.envcraft/{bp.id}", "title": bp.title, "description": bp.description,
            "version": "1.0.0", "_meta": {"io.github.envcraft/environment": meta}}


def render_shim(name: str) -> str:
    """servers/<env>/bin/<cli>: office's shim with the verb renamed (so it renders office's exactly)."""
    return (OFFICE / "bin" / "office").read_text("utf-8").replace("`office`", f"`{name}`").replace(
        "envcraft_runtime.cli office ", f"envcraft_runtime.cli {name} ")


def readme(bp: Blueprint) -> str:
    ops = {op.name: op.description for op in bp.operations} | {e.name: e.description for e in extras(bp)}
    lines = [f"# {bp.title}", "", bp.description, "", textwrap.fill(" ".join(bp.scenario.split()), 110), "",
             f"{MARKER} from the blueprint `generator/blueprints/{bp.id}.yaml`: change the blueprint and run "
             "`envcraft generate`, not these files.", "",
             f"- kind: `{bp.kind}` (scaffold `{scaffold_of(bp)}`), domain: {bp.domain}, archetypes: {', '.join(bp.archetypes)}",
             "- run it alone (needs only `mcp==2.3.0`): `python server.py --workspace <a copy of seed/>` for stdio, "
             "add `--http --port 8000` for streamable HTTP at /mcp"]
    if shell_cli(bp):
        lines.append(f"- in the workspace shell, the same verbs are a CLI: `{bp.cli} --help`")
    lines += ["", "## Tools", "", "| Tool | Layer | Writes | Description |", "|------|-------|--------|-------------|"]
    for tool in tool_list(bp):
        text = ops[tool["name"]].strip() if tool["name"] in ops else SCAFFOLD_DOCS[tool["name"]]
        lines.append(f"| `{tool['name']}` | {tool['layer']} | {'yes' if tool['writes'] else 'no'} | {text} |")
    lines += ["", "## Records (seed)", ""]
    for entity in bp.entities:
        lines.append(f"- `{entity.table}`: {entity.rows} rows, ids `{entity.id_prefix}-0001`.., fields "
                     f"{', '.join(f.name for f in entity.fields)}")
    return "\n".join(lines) + "\n"


def app_source(bp: Blueprint) -> str:
    """app.py, assembled by generator/compile/appfile.py."""
    return render_app(bp)


def render(bp: Blueprint) -> dict[str, str]:
    """Every file of the environment folder: relative path -> text."""
    tables = seed_tables(bp)
    files = {
        "server.py": server_source(bp),
        "app.py": app_source(bp),
        POLICY_FILE: policies_json(bp),
        TOOLS_FILE: tools_json(bp),
        "server.json": json.dumps(manifest(bp), indent=2, ensure_ascii=False) + "\n",
        "README.md": readme(bp),
        "seed/.app/state.json": state_json({**tables, HISTORY: seed_history(bp, tables)}),
    }
    for path, text in seed_files(bp, tables).items():
        files[f"seed/{path}"] = text
    files["seed/SKILL.md"] = render_skill(bp, tables)
    if shell_cli(bp):
        files[f"bin/{bp.cli}"] = render_shim(bp.cli)
    return files


def clear_build(out_dir: Path, bp: Blueprint) -> None:
    """Remove a previous build of this environment; never a folder this compiler did not write."""
    if not out_dir.exists():
        return
    app = out_dir / "app.py"
    manifest_path = out_dir / "server.json"
    if any(out_dir.iterdir()):
        ours = marked_generated(app) and manifest_path.exists() \
            and json.loads(manifest_path.read_text("utf-8")).get("_meta", {}).get(
                "io.github.envcraft/environment", {}).get("envId") == bp.id
        if not ours:
            raise FileExistsError(f"{out_dir} exists and is not a generated build of {bp.id}: refusing to overwrite it")
    shutil.rmtree(out_dir)


def compile_blueprint(bp: Blueprint, out_dir: Path) -> Path:
    """Write the environment folder for `bp` at out_dir (replacing an earlier build of it)."""
    files = render(bp)  # everything rendered before anything is removed
    out_dir = Path(out_dir)
    clear_build(out_dir, bp)
    for rel, text in sorted(files.items()):
        target = out_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
        target.chmod(0o755 if rel.startswith("bin/") else 0o644)
    return out_dir
