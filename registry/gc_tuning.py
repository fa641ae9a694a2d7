"""Garbage collection for a long-lived server process holding a large heap.

After start-up the gateway (and an in-process run) holds the catalog: manifests, every imported
app module, servers and their pydantic models, hundreds of thousands of objects that live as long as
the process. CPython's cycle collector rescans them whenever enough young objects have piled up,
and an MCP call allocates many short-lived ones: with 256 live episodes, a third of the gateway's
CPU went to those rescans. `gc.freeze()` moves what start-up made out of the collector's way and a
larger first-generation threshold makes young collections rarer; cycles are still collected.
"""

from __future__ import annotations

import gc

from envcraft.registry.settings import Settings


def collect_less(settings: Settings | None = None) -> None:
    """Call once start-up has built what lives for the whole process (settings.gc_threshold: the young
    generation's threshold, 50,000 by default; 0 leaves the interpreter's defaults)."""
    threshold = (settings or Settings.from_env()).gc_threshold
    if threshold <= 0:
        return
    gc.freeze()
    gc.set_threshold(threshold, 50, 100)  # and the older generations rarer still: a full pass rescans everything
