#!/usr/bin/env bash
# dockerd-ci.sh start|stop: the Docker daemon the docker-backend tests need, for CI and local runs.
#   start: installs docker.io (and runsc when Debian has it) if missing, registers runsc as a
#          runtime, and starts dockerd unless one already answers; waits until it does.
#   stop:  stops the dockerd that `start` started (one already running is left alone).
set -euo pipefail
cd "$(dirname "$0")/.."
pidfile=/run/agentbox-ci-dockerd.pid
sock=/var/run/docker.sock

answers() { curl -fsS --max-time 2 --unix-socket "$sock" http://docker/_ping >/dev/null 2>&1; }

case "${1:-}" in
  start)
    scripts/install-deps.sh docker
    if answers; then echo "dockerd-ci: a docker daemon already answers on $sock"; exit 0; fi
    # gVisor as the runtime "runsc": its own network stack off (the container has none anyway;
    # Debian's runsc refuses to start otherwise here), and unix sockets created inside visible on
    # the host, which the agent's socket needs.
    if command -v runsc >/dev/null && [[ ! -e /etc/docker/daemon.json ]]; then
      mkdir -p /etc/docker
      printf '{"runtimes": {"runsc": {"path": "%s", "runtimeArgs": ["--network=none", "--host-uds=create"]}}}\n' \
        "$(command -v runsc)" >/etc/docker/daemon.json
    fi
    # No systemd in CI: dockerd runs in the background and starts its own containerd.
    nohup dockerd >/var/log/agentbox-dockerd.log 2>&1 &
    echo $! >"$pidfile"
    for _ in $(seq 1 60); do
      if answers; then echo "dockerd-ci: dockerd started (pid $(cat "$pidfile"))"; exit 0; fi
      sleep 0.5
    done
    echo "dockerd-ci: dockerd did not come up; last log lines:" >&2
    tail -n 20 /var/log/agentbox-dockerd.log >&2 || true
    exit 1
    ;;
  stop)
    [[ -f $pidfile ]] || exit 0
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    rm -f "$pidfile"
    echo "dockerd-ci: dockerd stopped"
    ;;
  *) echo "usage: dockerd-ci.sh start|stop" >&2; exit 2 ;;
esac
