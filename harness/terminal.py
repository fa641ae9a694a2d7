"""The terminal side of the CLI: consoles for results (stdout) and for talk (stderr), and aligned tables.

Results go to stdout so they can be piped; progress, banners and errors go to stderr.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich import box
from rich.console import Console
from rich.table import Table

WIDE = 200  # a pipe or a file gets full lines, not lines cut to 80 columns


def console(stderr: bool = False) -> Console:
    """Markup is off: paths and names print as they are, brackets included."""
    probe = Console(stderr=stderr, markup=False)
    return probe if probe.is_terminal else Console(stderr=stderr, markup=False, width=WIDE, no_color=True,
                                                   highlight=False)


def table(columns: Sequence[str], rows: Iterable[Sequence[object]], *, right: Iterable[str] = (),
          title: str | None = None) -> Table:
    """Columns named in `right` align right (numbers); every row starts at column 0, so `line.split()` reads it."""
    aligned = set(right)
    grid = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, title=title, title_justify="left")
    for name in columns:
        grid.add_column(name, justify="right" if name in aligned else "left", no_wrap=True)
    for row in rows:
        grid.add_row(*(str(cell) for cell in row))
    return grid
