#!/usr/bin/env bash
# Make a Docker engine available for the Docker sandbox backend (tests/test_docker_backend.py).
# Idempotent: installs Debian's docker.io if no engine is installed, starts dockerd in the
# background if `docker info` does not answer, waits until it does, and exits 0.
# Failing to get an engine is reported on stderr but still exits 0: the Docker tests then skip
# with the reason, and the rest of CI goes on.
set -u

LOG=${DOCKERD_LOG:-/tmp/dockerd.log}
TIMEOUT=${DOCKERD_TIMEOUT:-60}

say() { echo "[docker.sh] $*" >&2; }

if docker info >/dev/null 2>&1; then
    say "docker engine already running"
    exit 0
fi

if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
    say "installing docker.io"
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq docker.io >/dev/null; }; then
        say "could not install docker.io: Docker tests will skip"
        exit 0
    fi
fi

alive() {  # a running process, not a zombie
    [ -n "$1" ] && [ -r "/proc/$1/stat" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# A live dockerd is one whose pid file names a running dockerd process.
daemon_pid() {
    local pid
    pid=$(cat /var/run/docker.pid 2>/dev/null) || return 1
    alive "$pid" && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ] || return 1
    echo "$pid"
}

start_daemon() {
    # Pid files of a daemon killed outright (as at the end of a session) make a new dockerd wait
    # on a dead containerd, or refuse to start: drop those whose process is gone or a zombie.
    rm -f /var/run/docker.pid
    local cpid
    cpid=$(cat /var/run/docker/containerd/containerd.pid 2>/dev/null) || true
    if [ -n "$cpid" ] && ! alive "$cpid"; then
        rm -f /var/run/docker/containerd/containerd.pid
    fi
    say "starting dockerd (log: $LOG)"
    nohup setsid dockerd >>"$LOG" 2>&1 </dev/null &
    pid=$!
}

if pid=$(daemon_pid); then
    say "dockerd ($pid) is running but not answering yet: waiting"
else
    start_daemon
fi

deadline=$((SECONDS + TIMEOUT))
attempts=1
until docker info >/dev/null 2>&1; do
    if ! alive "$pid" && [ "$attempts" -lt 3 ] && [ "$SECONDS" -lt "$deadline" ]; then
        attempts=$((attempts + 1))
        sleep 1
        start_daemon
    elif [ "$SECONDS" -ge "$deadline" ] || ! alive "$pid"; then
        say "dockerd did not come up (timeout ${TIMEOUT}s or it exited); last log lines:"
        tail -n 20 "$LOG" >&2 2>/dev/null || true
        exit 0
    fi
    sleep 0.5
done
say "docker engine ready"
exit 0
