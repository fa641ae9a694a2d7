"""The grader's walk (core/walk.py) holds a bounded number of descriptors whatever the tree's width: at a soft
limit of 128 open files it still reads every file under 3,000 sibling folders and a 60-level chain, and follows
no link. (It used to hold one descriptor per sibling folder before visiting any: past the limit, folders were
silently skipped, and in the gateway accept() failed with EMFILE.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import REPO

SIBLINGS, DEPTH, DESCRIPTORS = 3000, 60, 128  # the walk holds at most MAX_DEPTH (64) + 2
WALK = f"""
import json, resource, sys
from envcraft.core.walk import text_files
resource.setrlimit(resource.RLIMIT_NOFILE, ({DESCRIPTORS}, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
print(json.dumps(sorted(text_files(sys.argv[1]))))
"""


@pytest.mark.slow
def test_a_wide_and_deep_tree_is_read_whole_at_128_descriptors(tmp_path):
    root = tmp_path / "workspace"
    for i in range(SIBLINGS):
        (root / f"wide{i:04d}").mkdir(parents=True)
        (root / f"wide{i:04d}" / "note.md").write_text("x")
    chain = root / "/".join(["deep"] * DEPTH)
    chain.mkdir(parents=True)
    (chain / "bottom.md").write_text("y")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("host")
    os.symlink(outside, root / "link")
    os.mkfifo(root / "pipe")

    done = subprocess.run([sys.executable, "-c", WALK, str(root)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    assert len(found) == SIBLINGS + 1, len(found)
    assert "/".join(["deep"] * DEPTH + ["bottom.md"]) in found and f"wide{SIBLINGS - 1:04d}/note.md" in found
    assert not any(path.startswith(("link", "pipe")) for path in found)
