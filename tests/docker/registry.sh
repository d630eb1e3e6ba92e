#!/usr/bin/env bash
# tests/docker/registry.sh: a private Docker registry on loopback for the tests, Debian's
# docker-registry (the CNCF distribution registry), storage in a dir of the caller's.
#   registry.sh start DIR   starts one on a free 127.0.0.1 port with its storage and config in
#                           DIR; prints "127.0.0.1:PORT" once it answers /v2/; records its pid in
#                           DIR/pid. Docker treats 127.0.0.0/8 registries as insecure-ok: plain
#                           HTTP, no TLS setup on the daemon.
#   registry.sh stop DIR    stops the registry DIR/pid records, if that process still runs and
#                           is a docker-registry; never another.
set -euo pipefail
cmd=${1:?usage: registry.sh start|stop DIR}
dir=${2:?usage: registry.sh start|stop DIR}

case $cmd in
  start)
    command -v docker-registry >/dev/null || { echo "registry.sh: docker-registry is missing (scripts/install-deps.sh docker)" >&2; exit 1; }
    mkdir -p "$dir/storage"
    for _ in 1 2 3 4 5; do
      port=$((20000 + RANDOM % 20000))
      cat >"$dir/config.yml" <<YML
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $dir/storage
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$port
YML
      docker-registry serve "$dir/config.yml" >"$dir/log" 2>&1 &
      echo $! >"$dir/pid"
      for _ in $(seq 100); do
        if curl -fsS --max-time 2 "http://127.0.0.1:$port/v2/" >/dev/null 2>&1; then echo "127.0.0.1:$port"; exit 0; fi
        kill -0 "$(cat "$dir/pid")" 2>/dev/null || break  # it died: the port was taken, try another
        sleep 0.1
      done
      kill "$(cat "$dir/pid")" 2>/dev/null || true
    done
    echo "registry.sh: no registry answered (log: $(tail -3 "$dir/log" 2>/dev/null))" >&2
    exit 1
    ;;
  stop)
    [[ -f $dir/pid ]] || exit 0
    pid=$(cat "$dir/pid")
    if [[ $(cat "/proc/$pid/comm" 2>/dev/null) == docker-registr* ]]; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    fi
    rm -f "$dir/pid"
    ;;
  *) echo "usage: registry.sh start|stop DIR" >&2; exit 2 ;;
esac
