"""A local Ray cluster of N nodes on loopback, for tests and benchmarks (`ray start --block` per node).

Ray rewrites 127.0.0.1 and localhost to the machine's outward IP when a worker node joins; a head
started as a single host keeps 127.0.0.1, and a worker joining through another /etc/hosts name of
127.0.0.1 keeps it too. Every node is this process's child in its own process group, stopped on exit.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# The CLI through this interpreter, so a venv without its own `ray` script still starts nodes of its own Ray.
RAY = (sys.executable, "-m", "ray.scripts.scripts")
NODES = ("import json, ray; ray.init(address='{address}', log_to_driver=False, configure_logging=False); "
         "print(json.dumps([[n['NodeID'], n['NodeManagerAddress']] for n in ray.nodes() if n['Alive']]))")


def loopback_alias() -> str | None:
    """A host name /etc/hosts maps to 127.0.0.1, other than localhost."""
    for line in Path("/etc/hosts").read_text().splitlines():
        fields = line.split("#")[0].split()
        if fields and fields[0] == "127.0.0.1":
            names = [n for n in fields[1:] if n not in ("localhost", "localhost.localdomain")]
            if names:
                return names[0]
    return None


def nodes(address: str) -> list[list[str]]:
    """[node id, address] of every live node, asked from a separate driver process."""
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    done = subprocess.run([sys.executable, "-c", NODES.format(address=address)], capture_output=True, text=True,
                          timeout=120, env=env)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_port(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"the Ray head did not listen on {port} within {timeout:g} s")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@contextmanager
def local_cluster(count: int = 2, cpus: int = 1) -> Iterator[tuple[str, list[list[str]]]]:
    """(address, nodes) of a `count`-node cluster on 127.0.0.1; node k > 0 has resource node{k+1}."""
    alias = loopback_alias()
    if count > 1 and alias is None:
        raise RuntimeError("no /etc/hosts alias of 127.0.0.1 besides localhost: a second node cannot stay on loopback")
    port = _port()
    base = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    common = ["--num-cpus", str(cpus), "--disable-usage-stats", "--block"]
    started = [subprocess.Popen([*RAY, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}",
                                 "--include-dashboard=false", *common], start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env={**base, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"})]
    try:
        _wait_port(port, 120)
        for k in range(1, count):
            started.append(subprocess.Popen(
                [*RAY, "start", f"--address={alias}:{port}", "--resources", json.dumps({f"node{k + 1}": 1}), *common],
                start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                env={**base, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "1"}))
        address = f"127.0.0.1:{port}"
        deadline = time.monotonic() + 180
        while len(found := nodes(address)) < count:
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {len(found)} of {count} Ray nodes joined")
            time.sleep(1)
        yield address, found
    finally:
        for process in reversed(started):
            _stop(process)
