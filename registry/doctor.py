"""`envcraft doctor`: what containment this host gives the farm, checked for real."""

from __future__ import annotations

import os
import shutil
import subprocess

from envcraft.registry import quota
from envcraft_runtime import unprivileged
from envcraft_runtime.cgroups import FALLBACKS, containment, fallback
from envcraft_runtime.regex import re2
from envcraft_runtime.shell import sandbox_backend


def command_uid() -> tuple[bool, str]:
    """Whose kernel budgets a bwrap command spends (epoll watches, pipe pages, message queues, processes)."""
    if unprivileged.available():
        return True, "an unprivileged host uid of the episode's own (setpriv): no episode spends host root's budgets"
    if os.geteuid() != 0:
        return True, f"the server's own uid {os.geteuid()}, shared by its episodes (not root)"
    return False, ("host root (no setpriv: apt-get install util-linux): every episode spends host root's epoll, "
                   "pipe and message-queue budgets")


def checks() -> list[tuple[str, bool, str]]:
    """(what, good, detail) for each part of the containment."""
    found: list[tuple[str, bool, str]] = []
    bwrap = shutil.which("bwrap")
    if bwrap:
        ran = subprocess.run([bwrap, "--unshare-all", "--ro-bind", "/", "/", "true"], capture_output=True, text=True, timeout=30)
        found.append(("bubblewrap", ran.returncode == 0, bwrap if ran.returncode == 0 else ran.stderr.strip()[-200:]))
    else:
        found.append(("bubblewrap", False, "not installed: apt-get install bubblewrap (the shell then has NO sandbox)"))
    backend = sandbox_backend()
    found.append(("shell backend", backend == "bwrap", backend + ("" if backend == "bwrap" else " (NOT isolating)")))
    envelope = containment()
    found.append(("episode envelope", envelope.kind != "none", envelope.banner()))
    found.append(("without a cgroup", fallback() == "uid", FALLBACKS[fallback()]))
    found.append(("command uid", *command_uid()))
    found.append(("workspace quota", quota.enabled() and quota.probe(), quota.describe()))
    found.append(("grep engine", re2 is not None, "RE2 (linear time)" if re2 is not None else
                  "re in a killable worker (pip install google-re2 for linear time)"))
    docker = shutil.which("docker")
    if docker:
        info = subprocess.run([docker, "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True, timeout=30)
        found.append(("docker engine", info.returncode == 0, info.stdout.strip() or info.stderr.strip()[-200:]))
    else:
        found.append(("docker engine", False, "no docker client: the docker backend is unavailable"))
    return found


def run_doctor() -> int:
    results = checks()
    for what, good, detail in results:
        print(f"{'ok ' if good else 'NO '} {what:<17} {detail}")
    good = {what: ok for what, ok, _ in results}
    contained = good["episode envelope"] or good["without a cgroup"]  # a cgroup, or at least an unprivileged uid
    return 0 if good["bubblewrap"] and contained else 1
