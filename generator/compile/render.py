"""Python source from templates: Jinja2 lays the code out (generator/compile/templates/*.jinja), ruff formats it.

Blueprint text reaches a template only through two filters: `lit` (a Python literal) and `docline`
(text safe inside a docstring or a comment), so it can never become code. Line breaking is left to
`ruff format`, run with fixed settings (the repository's style: 120 columns, Python 3.11) and never
with a configuration file it might find, so the same template values always give the same bytes.
"""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from envcraft.generator.compile.appcode import docline, lit
from ruff.__main__ import find_ruff_bin

TEMPLATES = Path(__file__).resolve().parent / "templates"
RUFF_FORMAT = ("format", "--isolated", "--no-cache", "--line-length", "120", "--target-version", "py311")


class FormatError(RuntimeError):
    """ruff could not format a rendered module: the template or its values made invalid Python."""


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                             autoescape=False)  # the output is Python source, not HTML
    env.filters["lit"] = lit
    env.filters["docline"] = docline
    return env


def render_python(template: str, **values: Any) -> str:
    """The template rendered with `values`, formatted by ruff."""
    return format_python(environment().get_template(template).render(**values), template.removesuffix(".jinja"))


def format_python(source: str, name: str = "module.py") -> str:
    done = subprocess.run([find_ruff_bin(), *RUFF_FORMAT, "--stdin-filename", name, "-"], input=source,
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise FormatError(f"ruff format failed on the rendered {name}: {done.stderr.strip()[:2000]}")
    return done.stdout
