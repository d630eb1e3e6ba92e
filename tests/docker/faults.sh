#!/usr/bin/env bash
# tests/docker/faults.sh: what the docker backend does when Docker misbehaves: a container removed
# behind agentbox's back, a daemon that cannot be reached, a daemon restarted while sandboxes
# exist, and orphaned containers for `agentbox gc`. Run by tests/docker/run_suite.sh (which
# checks for a daemon and the test image first); the persistent vocabulary (tests/lib/persistent.sh).

export AGENTBOX_BACKEND=docker
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/persistent.sh
source "$HERE/../lib/persistent.sh"
DOCKER_SOCK=/var/run/docker.sock

# dapi METHOD PATH: one Engine API call with curl (the test's own view of the daemon).
dapi() { curl -sS --max-time 20 --unix-socket "$DOCKER_SOCK" -X "$1" "http://docker$2"; }

container_of() { echo "agentbox-$1"; }

case_container_removed_behind_our_back_is_dead() {
  local ws=$CASE_DIR/ws
  new_box --workspace "$ws"
  ab exec "$BOX" -- sh -c 'echo keep > /workspace/data'
  expect_rc 0
  dapi DELETE "/containers/$(container_of "$BOX")?force=1" >/dev/null
  ab ls --json
  expect_rc 0 "ls after the container vanished"
  json_assert "r[0]['state'] == 'dead'" "a removed container must show as dead"
  ab exec "$BOX" -- true
  expect_one_line_error "exec into a dead sandbox"
  ab rm "$BOX"
  expect_rc 0 "rm of the dead sandbox"
  [[ $(cat "$ws/data") == keep ]] || fail "workspace data lost"
}

case_daemon_unreachable_is_125() {
  DOCKER_HOST=unix:///nonexistent/docker.sock ab create --backend docker
  expect_one_line_error "create with no daemon"
  expect_err_has "docker"
  DOCKER_HOST=unix:///nonexistent/docker.sock ab run --backend docker -- true
  expect_one_line_error "run with no daemon"
  [[ -z $(ls "$AGENTBOX_STATE_DIR/sandboxes" 2>/dev/null) ]] || fail "a failed create left state behind"
}

# DOCKER_HOST=tcp://: the Engine API over TCP (socat stands in for a daemon listening on TCP).
case_docker_host_tcp() {
  command -v socat >/dev/null || skip "socat is missing (scripts/install-deps.sh docker installs it)"
  local port=$((20000 + RANDOM % 20000))
  socat TCP-LISTEN:$port,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:$DOCKER_SOCK &
  wait_until 20 bash -c "echo >/dev/tcp/127.0.0.1/$port" 2>/dev/null
  DOCKER_HOST=tcp://127.0.0.1:$port ab run --backend docker -- echo via-tcp
  expect_rc 0
  expect_out via-tcp
  # A name is resolved (libcurl, the C library's resolver): localhost from /etc/hosts.
  DOCKER_HOST=tcp://localhost:$port ab run --backend docker -- echo via-name
  expect_rc 0
  expect_out via-name
}

case_missing_image_is_125() {
  ab create --backend docker --image agentbox-no-such-image:0
  expect_one_line_error "unknown image"
  expect_err_has "agentbox-no-such-image:0"
  expect_err_has "not found"
}

case_gc_removes_orphan_container() {
  new_box
  local id=$BOX
  # A crash between container and record: the record is gone, the container is not.
  rm -rf "$AGENTBOX_STATE_DIR/sandboxes/$id" "$AGENTBOX_STATE_DIR/names" 2>/dev/null
  ab gc
  expect_rc 0
  expect_out_has "$id"
  [[ $(dapi GET "/containers/$(container_of "$id")/json" | head -c 200) == *"No such container"* ]] ||
    fail "gc left the orphan container $(container_of "$id")"
}

case_gc_spares_other_state_dirs() {
  local other
  new_state_dir other
  local mine
  AGENTBOX_STATE_DIR=$other ab create --backend docker
  expect_rc 0
  mine=$AB_OUT
  ab gc
  expect_rc 0
  AGENTBOX_STATE_DIR=$other ab exec "$mine" -- true
  expect_rc 0 "gc of one state dir removed another state dir's container"
}

# private_dockerd DIR: starts a Docker daemon of this case's own — its socket, data root, exec root
# (and so its own containerd) under DIR, no bridge, no iptables — and waits until it answers;
# PRIV_PID is its pid, PRIV_SOCK its socket. The host's daemon, and whoever uses it, is never
# touched: only this pid is ever signalled.
private_dockerd() {
  local dir=$1
  mkdir -p "$dir"
  PRIV_SOCK=$dir/d.sock
  command -v dockerd >/dev/null || skip "no dockerd binary (scripts/install-deps.sh docker installs docker.io)"
  # Not the host's /etc/docker/daemon.json: nothing of the host daemon's configuration.
  echo '{}' >"$dir/daemon.json"
  dockerd --host "unix://$PRIV_SOCK" --data-root "$dir/root" --exec-root "$dir/x" \
    --pidfile "$dir/d.pid" --bridge none --iptables=false --ip6tables=false --ip-masq=false \
    --storage-driver vfs --config-file "$dir/daemon.json" \
    </dev/null >>"$dir/dockerd.log" 2>&1 &
  PRIV_PID=$!
  [[ ${PRIV_ON_EXIT:-} ]] || on_exit private_dockerd_stop
  PRIV_ON_EXIT=1
  wait_until 60 curl -fsS --max-time 2 --unix-socket "$PRIV_SOCK" http://docker/_ping -o /dev/null ||
    fail "the private dockerd did not answer: $(tail -5 "$dir/dockerd.log")"
}

# private_dockerd_stop: when the case ends, its sandboxes on the private daemon (PRIV_BOXES) are
# removed while the daemon still runs, then the daemon is stopped (SIGTERM: it stops its
# containers and its containerd) and waited for.
PRIV_BOXES=()
private_dockerd_stop() {
  local id
  for id in "${PRIV_BOXES[@]}"; do timeout -s KILL 30 "$AGENTBOX" rm -f "$id" >/dev/null 2>&1; done
  kill -TERM "$PRIV_PID" 2>/dev/null
  wait "$PRIV_PID" 2>/dev/null
}

# A restart of the Docker daemon while a sandbox exists: the sandbox is either still usable or
# reported stopped, its workspace data is intact, and new sandboxes work. On a daemon of this
# case's own (private_dockerd), so no other user of the host's daemon notices.
case_dockerd_restart() {
  local ws=$CASE_DIR/ws d=$CASE_DIR/dockerd
  private_dockerd "$d"
  export DOCKER_HOST=unix://$PRIV_SOCK
  "$AGENTBOX_SRC/scripts/build-test-rootfs.sh" "$CASE_DIR/rootfs" >/dev/null 2>&1 ||
    fail "could not make the test rootfs"
  ab image import "$CASE_DIR/rootfs" agentbox-test:latest
  expect_rc 0 "image import into the private daemon"
  new_box --workspace "$ws"
  PRIV_BOXES+=("$BOX")
  ab exec "$BOX" -- sh -c 'echo before > /workspace/data'
  expect_rc 0
  kill -TERM "$PRIV_PID"
  wait "$PRIV_PID" 2>/dev/null
  private_dockerd "$d"
  ab ls --json
  expect_rc 0 "ls after the daemon restart"
  local state
  state=$(json_get "r[0]['state']")
  if [[ $state == running ]]; then
    ab exec "$BOX" -- cat /workspace/data
    expect_rc 0 "exec in a sandbox that survived the restart"
  else
    ab exec "$BOX" -- true
    expect_one_line_error "exec into a sandbox the restart stopped"
  fi
  ab rm -f "$BOX"
  expect_rc 0 "rm after the restart"
  [[ $(cat "$ws/data") == before ]] || fail "workspace data lost across the daemon restart"
  new_box
  PRIV_BOXES+=("$BOX")
  ab exec "$BOX" -- echo after
  expect_out after "a new sandbox after the restart"
}

# Warm pools: a create of the pool's shape claims a started sandbox (named, usable, its own
# private workspace), the pool is topped up in the background, drain empties it, and a create of
# another shape is not served from it.
case_warm_pool_claim_refill_drain() {
  ab pool fill --backend docker --size 2
  expect_rc 0
  expect_out "started 2"
  ab ls --json
  json_assert "r == []" "warm sandboxes must not be listed"
  ab create --backend docker --name claimed -e GREETING=hello
  expect_rc 0
  local id=$AB_OUT
  ab exec claimed -- sh -c 'echo $GREETING; ls -A /workspace | wc -l'
  expect_out "hello
0" "the claimed sandbox has the create's env and an empty private workspace"
  local warm=0
  topped_up() {
    warm=$(ls "$AGENTBOX_STATE_DIR/pool/"*/ 2>/dev/null | grep -cvE '^(config.json|lock)$')
    ((warm == 2))
  }
  wait_until 60 topped_up
  ((warm == 2)) || fail "the pool was not topped up to 2 (has $warm)"
  ab create --backend docker --memory 64M
  expect_rc 0
  ab inspect "$AB_OUT"
  json_assert "r['policy']['memory'] == 64 * 1024 * 1024" "another shape must get its own sandbox"
  ab pool drain
  expect_rc 0
  expect_out "removed 2"
  ab rm -f claimed
  expect_rc 0
  [[ $(dapi GET "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22io.agentbox.state-dir%3D${AGENTBOX_STATE_DIR//\//%2F}%22%5D%7D" | grep -o '"Id"' | wc -l) == 1 ]] ||
    fail "drain and rm left containers behind"
}

harness_main "$0" "$@"
