"""Two live episodes never share a host uid (servers/envcraft_runtime/unprivileged.py).

A uid is claimed while its episode lives, across every server process of the host, and freed after (or when
its process dies). Per-process counters used to hand the 4,097th episode of a process the first one's uid,
and two processes whose pids agree modulo 1,024 the same uids, whether or not those episodes still ran.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys

import pytest
from envcraft.registry.catalog import get
from envcraft_runtime import open_shell, unprivileged
from envcraft_runtime.unprivileged import CLAIMS_ENV, claim_episode_uid

HOLD = ("import sys; from envcraft_runtime.unprivileged import claim_episode_uid as claim; "
        "held = [claim() for _ in range(3)]; print(' '.join(str(h.uid) for h in held), flush=True); sys.stdin.read()")


@pytest.fixture
def claims(tmp_path, monkeypatch):
    """A claims folder of this test's own: other tests and servers on the host hold uids in the real one."""
    monkeypatch.setenv(CLAIMS_ENV, str(tmp_path / "claims"))
    return tmp_path / "claims"


@pytest.mark.slow
def test_live_episodes_never_share_a_uid_past_4096_and_a_freed_one_is_reused(claims):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 5000:  # one descriptor per claim held
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    held = [claim_episode_uid() for _ in range(4100)]
    try:
        assert len({claim.uid for claim in held}) == 4100
        assert all(claim.uid >= unprivileged.UID_BASE for claim in held)
        freed = held[17].uid
        held[17].release()
        again = claim_episode_uid()
        held[17] = again
        assert again.uid == freed  # freed after its episode, not kept forever
    finally:
        for claim in held:
            claim.release()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_two_server_processes_never_hold_one_uid_and_a_dead_ones_are_freed(claims):
    other = subprocess.Popen([sys.executable, "-c", HOLD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, env={**os.environ, CLAIMS_ENV: str(claims)})
    try:
        theirs = {int(uid) for uid in other.stdout.readline().split()}
        assert len(theirs) == 3
        mine = [claim_episode_uid() for _ in range(3)]
        assert not theirs & {claim.uid for claim in mine}, (theirs, mine)  # live in another process: not given
    finally:
        other.send_signal(signal.SIGKILL)  # a server that dies holding claims frees them (the kernel drops its locks)
        other.wait()
    after = [claim_episode_uid() for _ in range(3)]
    assert {claim.uid for claim in after} == theirs
    for claim in mine + after:
        claim.release()


def test_a_claims_folder_someone_else_owns_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / "squatted"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)  # anyone could hold every uid's lock, or drop a link in
    monkeypatch.setenv(CLAIMS_ENV, str(folder))
    with pytest.raises(PermissionError):
        claim_episode_uid()


@pytest.mark.skipif(not shutil.which("bwrap") or os.geteuid() != 0 or not shutil.which("setpriv"),
                    reason="only a root server (with bwrap and setpriv) runs commands as an episode uid")
def test_a_closed_episode_frees_its_uid_and_a_live_one_keeps_it(claims, tmp_path):
    env_dir = get("office").folder
    shells = {}
    for name in "abc":
        (tmp_path / name).mkdir()
        shells[name] = open_shell(tmp_path / name, env_dir, None)

    def uid_of(name: str) -> int:
        result = shells[name].run("id -u", 15)
        assert result.exit_code == 0, result
        return int(result.stdout)

    try:
        a, b = uid_of("a"), uid_of("b")
        assert a != b and 0 not in (a, b)
        shells["a"].close()
        c = uid_of("c")
        assert c == a and c != b  # the closed episode's uid, never the live one's
        assert uid_of("b") == b  # a live episode keeps its uid
    finally:
        for each in shells.values():
            each.close()
