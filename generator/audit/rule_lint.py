"""The rule lint: normative sentences an agent can read that no policy of the environment backs.

A rule lives once, as a blueprint policy (generator/model/policy.py renders it into SKILL.md, the server
instructions, docs through `{{rule:id}}` and `read_policies`). A sentence elsewhere that reads as a rule
("must", "never", "only", "at most", "up to", "within", "before", "not accepted", an hours range such as
"12:00-14:30", ...) but states no policy is a trap: the agent who follows it loses, the one who ignores it
wins. This module reads what an agent of a generated environment reads, from its folder under servers/:

  skill        seed/SKILL.md
  doc          every other Markdown file of seed/ (docs/*.md, ...)
  instructions the INSTRUCTIONS string of server.py (what the server tells every client)
  tool         the docstring of every tool function of app.py (the tool's description)
  policies     policies.json (what `read_policies` returns): the rules themselves, so they back the rest

A normative sentence is backed when it contains the text of one of the environment's rules (the way
SKILL.md's policy list, the instructions' "Policies:" paragraph and an expanded `{{rule:id}}` state them),
or when it is one of the shared conventions the runtime enforces for every environment
(generator/compile/conventions.py). Everything else is reported:

    unbacked(Path("servers/vet_clinic")) -> [Sentence(env="vet_clinic", source="doc", path="docs/clinic_policies.md",
                                                      text="Appointments run 09:00-17:00, in 30-minute slots."), ...]
    unbacked_count(Path("servers"))      -> distinct (environment, sentence) pairs over every generated environment
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from dataclasses import dataclass
from pathlib import Path

from envcraft.generator.compile.appfile import marked_generated
from envcraft.generator.compile.conventions import runtime_sentences
from envcraft.generator.model.stated_rules import NORMATIVE, SENTENCE_END, normative, sentences
from envcraft_runtime.derived import TOOLS_FILE, list_changes, load_tools, read_policies

DERIVED_DOCS = {"policies": read_policies.__doc__, "history": list_changes.__doc__}  # the runtime's own
RULE_LINE = re.compile(r"^[a-z0-9_.]+(?: \([^)]*\))?: ")
LINE_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+|\*\*")


@dataclass(frozen=True)
class Sentence:
    env: str
    source: str  # skill, doc, instructions, tool
    path: str  # the file it was read from, relative to the environment's folder
    text: str


def normalize(text: str) -> str:
    return " ".join(LINE_MARK.sub("", text).replace("`", "").split()).lower().rstrip(".")


def rule_texts(folder: Path) -> list[str]:
    path = folder / "policies.json"
    if not path.exists():
        return []
    return [normalize(p["rule"]) for p in json.loads(path.read_text("utf-8"))["policies"]]


def _split(text: str) -> list[str]:
    return [s for s in SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def _markdown(text: str) -> list[str]:
    out = []
    for start, end in sentences(text):
        out += _split(text[start:end])
    return out


def _table_cells(text: str) -> list[str]:
    """The prose cells of Markdown tables (SKILL.md's "What it does" column repeats the tool descriptions)."""
    cells, header = [], ""
    for line in text.splitlines():
        if not line.startswith("|"):
            header = ""
        elif not header:
            header = line  # a table's first row names its columns; only the tool table's cells are prose
        elif "What it does" in header and not set(line) <= set("|- "):
            cells += [c.strip() for c in line.strip("|").split("|") if c.strip() and not c.strip().startswith("`")]
    return cells


def readable(folder: Path) -> list[Sentence]:
    """Every sentence an agent of this environment can read, besides the rules themselves."""
    env = folder.name
    out: list[Sentence] = []
    seed = folder / "seed"
    for md in sorted(seed.rglob("*.md")) if seed.is_dir() else []:
        rel = md.relative_to(folder).as_posix()
        if ".app" in md.parts:
            continue
        source = "skill" if md.name == "SKILL.md" and md.parent == seed else "doc"
        text = md.read_text("utf-8")
        out += [Sentence(env, source, rel, s) for s in _markdown(text)]
        out += [Sentence(env, source, rel, s) for cell in _table_cells(text) for s in _split(cell)]
    server = folder / "server.py"
    if server.exists():
        for node in ast.walk(ast.parse(server.read_text("utf-8"))):
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "INSTRUCTIONS" for t in node.targets):
                value = ast.literal_eval(node.value)
                out += [Sentence(env, "instructions", "server.py", s) for s in _instruction_sentences(value)]
    app = folder / "app.py"
    if app.exists():
        for node in ast.parse(app.read_text("utf-8")).body:
            if isinstance(node, ast.FunctionDef) and any(getattr(d, "id", "") in ("read", "write") for d in node.decorator_list):
                doc = ast.get_docstring(node) or ""
                out += [Sentence(env, "tool", f"app.py:{node.name}", s) for s in _split(doc.split("\n\n")[0])]
    if (folder / TOOLS_FILE).exists():  # the derived tools: made by the runtime, described in tools.json or by it
        for entry in load_tools(str(app))["derived"]:
            doc = inspect.cleandoc(entry.get("doc") or DERIVED_DOCS[entry["kind"]])
            out += [Sentence(env, "tool", f"{TOOLS_FILE}:{entry['name']}", s) for s in _split(doc.split("\n\n")[0])]
    return out


def _instruction_sentences(text: str) -> list[str]:
    """The instructions' own sentences: the "Policies: [id] rule ..." paragraph is the rules, read one by one."""
    head, _, policies = text.partition("Policies: [")
    out = _split(head)
    for part in re.split(r"\s*\[[a-z0-9_.]+\]\s*", "[" + policies) if policies else []:
        out += _split(part)
    return out


def backed(sentence: str, rules: list[str], runtime: list[str]) -> bool:
    said = RULE_LINE.sub("", normalize(sentence))  # SKILL.md's "- **id** (`tool`): rule" lines: the rule itself
    return any(rule and (rule in said or said in rule) for rule in rules) or any(said in known for known in runtime)


def unbacked(folder: Path) -> list[Sentence]:
    folder = Path(folder)
    rules = rule_texts(folder)
    runtime = [normalize(s) for s in runtime_sentences()]
    seen: set[str] = set()
    out = []
    for sentence in readable(folder):
        key = normalize(sentence.text)
        if key in seen or not normative(sentence.text) or backed(sentence.text, rules, runtime):
            continue
        seen.add(key)
        out.append(sentence)
    return out


def generated(servers: Path) -> list[Path]:
    """Environment folders compiled from a blueprint: their app.py carries the compiler's mark. The hand-written
    office also has a policies.json now, but its rules live in its own handbook, not in a blueprint."""
    return sorted(p.parent for p in Path(servers).glob("*/policies.json") if marked_generated(p.parent / "app.py"))


def unbacked_all(servers: Path) -> list[Sentence]:
    return [s for folder in generated(servers) for s in unbacked(folder)]


def unbacked_count(servers: Path) -> int:
    return len(unbacked_all(servers))


__all__ = ["NORMATIVE", "Sentence", "normative", "readable", "unbacked", "unbacked_all", "unbacked_count"]
