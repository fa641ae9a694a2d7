"""Two live containers never share a host uid: a fork bomb in one leaves the other's commands alone.

Without a user namespace a container's uids are the host's, and the kernel counts RLIMIT_NPROC per
host uid. With one uid range for every container, a bomb held at its bound in container A made the
commands of container B fail with "Cannot fork" (it flaked test_docker_backend's cases whenever
another test's bomb ran alongside)."""

from __future__ import annotations

import time

import anyio
import docker.errors
import pytest
from envcraft.registry.catalog import get
from envcraft.registry.launch import launch
from envcraft.registry.workspaces import WorkspaceRoot
from envcraft_runtime.limits import Limits

from tests.test_docker_backend import (  # noqa: F401 - the autouse fixture holds here too
    PROBLEM,
    _container_processes,
    _containers,
    _uid_block,
    no_container_outlives_its_block,
)

pytestmark = [pytest.mark.anyio, pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or "")]


@pytest.fixture
def launcher():
    from envcraft.registry.docker_launcher import DockerLauncher

    return DockerLauncher()

HOLD = 18  # seconds at most (a command's wall limit is 20) the bomb holds, until the test writes `stop`
BOMB = f"""python3 -c "
import os, time
def hold():
    end = time.monotonic() + {HOLD}
    while not os.path.exists('stop') and time.monotonic() < end:
        time.sleep(0.1)
print('uid', os.getuid(), flush=True)
n = 0
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        hold()
        os._exit(0)
    n += 1
print('forked', n, flush=True)
hold()
\""""
FORKS = ("id -u; for i in 1 2 3 4 5 6 7 8; do (echo child-$i) & done; wait; "
         "python3 -c 'import time; print(\"done-at\", time.time())'; echo all-done")


def _container_of(workspace, containers: list[dict]) -> dict:
    from envcraft.registry.docker_image import docker_client

    for container in containers:
        mounts = docker_client().api.inspect_container(container["Id"])["Mounts"]
        if any(m["Destination"] == "/workspace" and m["Source"] == str(workspace.resolve()) for m in mounts):
            return container
    raise AssertionError(f"no container mounts {workspace}")


def _uids_running(container: dict) -> list[int]:
    return [uid for _, uid, _ in _container_processes(container["Id"])]


async def _bomb_while_forking(a, b, ca: dict, commands: range, bound: int) -> dict:
    """Hold a bomb at its bound in A, run FORKS in B meanwhile; what each showed, and when (host clock,
    which the containers share): the last moment A was seen at its bound, and when B's forks were done."""
    seen: dict = {"at_bound": 0.0}
    (a.workspace / "stop").unlink(missing_ok=True)

    async def bomb() -> None:
        seen["bomb"] = (await a.client.call_tool("run_shell", {"command": BOMB, "timeout_seconds": HOLD + 2})).content[0].text

    async def watch(done: anyio.Event) -> None:
        while not done.is_set():
            running = _uids_running(ca)
            if max(running.count(uid) for uid in commands) >= bound:
                seen["at_bound"], seen["during"] = time.time(), running
            await anyio.sleep(0.05)

    async with anyio.create_task_group() as group:
        group.start_soon(bomb)
        deadline = time.monotonic() + 30  # wait for the evidence: A's command uid at its bound
        while not seen["at_bound"]:
            running = _uids_running(ca)
            if max(running.count(uid) for uid in commands) >= bound:
                seen["at_bound"], seen["during"] = time.time(), running
            assert time.monotonic() < deadline, f"the bomb in A never reached {bound} processes: {running}"
            await anyio.sleep(0.05)
        done = anyio.Event()
        group.start_soon(watch, done)
        seen["forks"] = (await b.client.call_tool("run_shell", {"command": FORKS})).content[0].text
        done.set()
        (a.workspace / "stop").write_text("")  # the bomb may end now
    return seen


@pytest.mark.slow
async def test_a_fork_bomb_in_one_container_leaves_the_commands_of_another_alone(tmp_path, launcher):
    env, root = get("office"), WorkspaceRoot(tmp_path)
    bound = Limits().processes  # RLIMIT_NPROC of a command in a container (no cgroup of its own there)
    async with launch(env, launcher, root) as a, launch(env, launcher, root) as b:
        live = _containers()
        ca, cb = _container_of(a.workspace, live), _container_of(b.workspace, live)
        block_a, block_b = _uid_block(ca), _uid_block(cb)
        assert set(block_a.uids).isdisjoint(block_b.uids), (block_a, block_b)
        warm = await b.client.call_tool("run_shell", {"command": "true"})  # B's first command costs more: not now
        assert "exit code: 0" in warm.content[0].text, warm.content[0].text
        for _attempt in range(3):  # on a loaded host A's command can reach its wall limit before B is done
            seen = await _bomb_while_forking(a, b, ca, block_a.commands, bound)
            text = seen["forks"]
            assert "exit code: 0" in text and "all-done" in text, text
            assert sorted(word for word in text.split() if word.startswith("child-")) == [f"child-{i}" for i in range(1, 9)]
            assert "fork" not in text.lower(), text
            forks_done = float(text.split("done-at")[1].split()[0])
            if seen["at_bound"] >= forks_done:
                break
        # A was at its bound until after B's forks were done, and it was A's own: its uid is in A's block only.
        assert seen["at_bound"] >= forks_done, f"the bomb ended {forks_done - seen['at_bound']:.1f}s before B's forks"
        bomb_uid = max(block_a.commands, key=seen["during"].count)
        assert f"uid {bomb_uid}" in seen["bomb"] and "forked" in seen["bomb"], seen["bomb"]
        # From inside: B's command ran as a uid of B's block, none of A's; every process of each is its own block's.
        b_uid = int(text.split("stdout:")[1].split()[0])
        assert b_uid in block_b.commands and b_uid not in block_a.uids, (b_uid, block_a, block_b)
        assert set(seen["during"]) <= set(block_a.uids) | {65534}
        assert set(_uids_running(cb)) <= set(block_b.uids) | {65534}


def test_uid_blocks_are_claimed_once_and_freed_on_removal(tmp_path, launcher):
    """The engine refuses a second live container in a held block; removal frees it."""
    from envcraft.registry.docker_uids import container_name

    env = get("office")
    workspace = WorkspaceRoot(tmp_path).checkout(env.name, env.seed)
    first, block = launcher.create(env, workspace)
    try:
        spec = launcher.container_spec(env, workspace, launcher.runtime(), block)
        with pytest.raises(docker.errors.APIError) as refused:
            launcher.client.api.create_container(**spec, name=container_name(block))
        assert refused.value.status_code == 409
        second, other = launcher.create(env, workspace)
        launcher.remove(second)
        assert other != block
    finally:
        launcher.remove(first)
    again = launcher.client.api.create_container(**spec, name=container_name(block))["Id"]
    launcher.remove(again)


@pytest.mark.parametrize("base", ["10100", "1900000001", "not-a-uid", None])
def test_a_container_refuses_to_start_outside_a_uid_block(tmp_path, launcher, base):
    """container.py checks ENVCRAFT_UID_BASE before anything runs: a legacy shared base, one off a
    block boundary, garbage or none, and the container exits at once, its server never built."""
    from envcraft.registry.docker_uids import create_with_uid_block
    from envcraft_runtime.container import UID_BLOCK_ENV

    env = get("office")
    workspace = WorkspaceRoot(tmp_path).checkout(env.name, env.seed)
    runtime = launcher.runtime()

    def spec(block):
        made = launcher.container_spec(env, workspace, runtime, block)
        made["environment"].pop(UID_BLOCK_ENV)
        made["environment"] |= {UID_BLOCK_ENV: base} if base is not None else {}
        made["stdin_open"] = False
        return made

    container_id, _ = create_with_uid_block(launcher.client, spec)
    try:
        launcher.client.api.start(container_id)
        assert launcher.client.api.wait(container_id, timeout=60)["StatusCode"] == 1
    finally:
        launcher.remove(container_id)
