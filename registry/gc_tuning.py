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
import os

YOUNG_THRESHOLD = 50_000  # CPython's defaults are (700, 10, 10) (ENVCRAFT_GC_THRESHOLD overrides; 0 leaves the defaults)


def collect_less() -> None:
    """Call once start-up has built what lives for the whole process."""
    threshold = int(os.environ.get("ENVCRAFT_GC_THRESHOLD", YOUNG_THRESHOLD))
    if threshold <= 0:
        return
    gc.freeze()
    gc.set_threshold(threshold, 50, 100)  # and the older generations rarer still: a full pass rescans everything
