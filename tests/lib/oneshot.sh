# shellcheck shell=bash
# oneshot.sh: the vocabulary of the one-shot suites (tests/security, tests/integration,
# tests/agent_docker) on the one harness (tests/lib/harness.sh, which says how cases run). Each
# case also gets $WS, a fresh workspace holding a copy of the probe ($ABPROBE, /workspace/abprobe
# inside), owned as a user's directory is; `box` runs `agentbox run` on it.

# Globals set here (AB_WS_OWNER, LISTEN_*, WS, BOX) are read by the case files.
# shellcheck disable=SC2034
H_NEEDS_PROBE=1
# shellcheck source=tests/lib/harness.sh
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# The owner of every case's workspace: a user's (1000:1000), or under gVisor, which cannot use
# the idmapped mount another owner needs, the container's own host ids (docker/host_ids.h).
if [[ $AB_RUNTIME == runsc ]]; then AB_WS_OWNER=2100001000:2100001000; else AB_WS_OWNER=1000:1000; fi
readonly AB_WS_OWNER

# Each case's workspace, with the probe in it. A user's directory, as a workspace should be:
# agentbox refuses a non-empty one of root's (the command would act as root on its files).
harness_case_setup() {
  WS=$CASE_DIR/ws
  mkdir -p "$WS"
  install -m 0755 "$ABPROBE" "$WS/abprobe"
  chown -R "$AB_WS_OWNER" "$WS"
}

# box [RUN-OPTION...] -- COMMAND...: `agentbox run` in this case's workspace.
box() { ab run "${AB_KIND[@]}" --workspace "$WS" "$@"; }

# boxj [RUN-OPTION...] -- COMMAND...: the same with --json; AB_OUT is the result object.
boxj() { ab run "${AB_KIND[@]}" --json --workspace "$WS" "$@"; }

# new_box [CREATE-OPTION...]: a persistent sandbox on this case's workspace, removed when the
# case ends; its id goes to BOX.
new_box() {
  ab create "${AB_KIND[@]}" --workspace "$WS" "$@"
  [[ $AB_RC == 0 && $AB_OUT =~ ^[A-Za-z0-9_.-]+$ ]] || fail "create $* exited $AB_RC: $AB_ERR"
  BOX=$AB_OUT
  on_exit "timeout -s KILL $H_CALL_TIMEOUT \"\$AGENTBOX\" rm -f '$BOX' >/dev/null 2>&1"
}

# new_private_box [CREATE-OPTION...]: a persistent sandbox on a workspace agentbox makes (held by
# a kernel quota), with the probe copied in; its id goes to BOX, its host path to BOX_WS.
new_private_box() {
  ab create "${AB_KIND[@]}" "$@"
  [[ $AB_RC == 0 && $AB_OUT =~ ^[A-Za-z0-9_.-]+$ ]] || fail "create $* exited $AB_RC: $AB_ERR"
  BOX=$AB_OUT
  on_exit "timeout -s KILL $H_CALL_TIMEOUT \"\$AGENTBOX\" rm -f '$BOX' >/dev/null 2>&1"
  ab cp "$ABPROBE" "$BOX:/workspace/abprobe"
  [[ $AB_RC == 0 ]] || fail "cp of the probe into $BOX exited $AB_RC: $AB_ERR"
  ab exec "$BOX" -- chmod 0755 /workspace/abprobe
  ab inspect "$BOX"
  BOX_WS=$(json_get workspace)
}

# in_box SCRIPT: sh -c SCRIPT in the sandbox BOX (plain output).
in_box() { ab exec "$BOX" -- sh -c "$1"; }

# host_kib DIR: KiB allocated beneath DIR on the host (du -sk), what the disk actually holds.
host_kib() { du -sk "$1" | cut -f1; }

# only_on BACKEND REASON: the case checks something only BACKEND has (e.g. a host-side view of
# the native backend's own namespaces); on another backend it is reported as N/A, not run.
only_on() {
  [[ $AB_BACKEND == "$1" ]] && return 0
  not_applicable "$2"
}

# on_gvisor: true when the sandboxes run under gVisor (docker --runtime runsc). There the box's
# processes are not host processes (the Sentry runs them), so host-side process checks see
# nothing and the cases look inside the box instead.
on_gvisor() { [[ $AB_RUNTIME == runsc ]]; }

# sh_in SCRIPT: the common case, a shell script in the default sandbox (plain output).
sh_in() { box -- sh -c "$1"; }

# probe_denied ARG...: runs /workspace/abprobe ARG... inside; the operation must fail.
# A probe setup error (exit 2) is not a denial: the case fails, naming it.
probe_denied() {
  box -- /workspace/abprobe "$@"
  [[ $AB_RC == 1 && $AB_OUT == FAIL* ]] || fail "abprobe $* was not refused (rc=$AB_RC: $AB_OUT)"
}

# probe_eperm ARG...: like probe_denied, and the refusal must be the filter's EPERM.
probe_eperm() {
  probe_denied "$@"
  [[ $AB_OUT == *"errno=EPERM"* ]] || fail "abprobe $*: want EPERM from seccomp, got: $AB_OUT"
}

# probe_errno ERRNO ARG...: like probe_denied, and the refusal must carry errno ERRNO.
probe_errno() {
  local want=$1
  shift
  probe_denied "$@"
  [[ $AB_OUT == *"errno=$want("* ]] || fail "abprobe $*: want $want from seccomp, got: $AB_OUT"
}

# new_marker: a unique word to find this case's processes on the host.
new_marker() { printf 'abmark%s%s' "$$" "$RANDOM"; }

# host_pids MARKER: pids of host processes whose argv[0] is MARKER (started inside with
# `exec -a MARKER ...`); anchored so agentbox's own command line, which holds it too, is no match.
host_pids() { pgrep -f -- "^$1( |\$)" || true; }

no_host_pids() { [[ -z $(host_pids "$1") ]]; }

# expect_no_host_procs MARKER: no process with MARKER may remain on the host. The sandbox's
# processes are gone when its result arrives (cleanup_gone_when_result_arrives checks that with
# no grace); the wait here only absorbs a loaded host's late reaping of already-killed ones.
expect_no_host_procs() {
  wait_until 10 no_host_pids "$1" && return 0
  fail "processes survived the sandbox: $(pgrep -af -- "^$1" | head -5 | tr '\n' ';')"
}

# expect_no_box_procs MARKER: no process with MARKER may remain in the sandbox $BOX (waited for
# up to 10 s, as expect_no_host_procs),
# looked for by a new exec there (under gVisor the box's processes are not host processes).
expect_no_box_procs() {
  local seen="grep -qas '^$1' /proc/[0-9]*/cmdline"
  ab exec "$BOX" -- sh -c "i=0; while [ \$i -lt 200 ] && $seen; do sleep 0.05; i=\$((i+1)); done; $seen && echo LEFT_BEHIND; echo LOOKED"
  expect_out_has LOOKED "could not look inside the sandbox"
  expect_out_lacks LEFT_BEHIND "processes survived the command inside the sandbox"
}

# wait_host_pid MARKER: waits (a hang guard of 20 s) for a host process with MARKER; prints its pid.
wait_host_pid() {
  local pid deadline=$((SECONDS + 20))
  while ((SECONDS < deadline)); do
    pid=$(host_pids "$1" | head -1)
    [[ -n $pid ]] && { echo "$pid"; return 0; }
    sleep 0.05
  done
  return 1
}

# ---- host-side peers the sandbox must NOT reach ------------------------------------------------

# host_listen KIND ADDR: starts a host listener in the background (killed with the case's process
# group) and waits until it listens. KIND tcp: ADDR is an IPv4 address, the port is picked and
# stored in LISTEN_PORT. KIND unix: ADDR is a path. KIND abstract: ADDR is the name without "\0".
host_listen() {
  local ready=$CASE_DIR/listen.ready
  rm -f "$ready"
  "$PY" - "$1" "$2" "$ready" <<'PYEOF' &
import os, socket, sys
kind, addr, ready = sys.argv[1:4]
if kind == "tcp":
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, 0))
    info = str(s.getsockname()[1])
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(("\0" + addr) if kind == "abstract" else addr)
    if kind == "unix":
        os.chmod(addr, 0o777)
    info = addr
s.listen(16)
with open(ready + ".tmp", "w") as f:
    f.write(info)
os.rename(ready + ".tmp", ready)
s.settimeout(60)
while True:
    c, _ = s.accept()
    c.sendall(b"hello\n")
    c.close()
PYEOF
  LISTEN_PID=$!
  wait_until 20 test -s "$ready" || fail "host listener $1 $2 did not start"
  LISTEN_PORT=$(cat "$ready")
}

# host_can_connect KIND ADDR [PORT]: sanity check that the host listener answers from the host.
host_can_connect() {
  "$PY" - "$@" <<'PYEOF'
import socket, sys
kind, addr = sys.argv[1], sys.argv[2]
if kind == "tcp":
    s = socket.create_connection((addr, int(sys.argv[3])), timeout=2)
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(("\0" + addr) if kind == "abstract" else addr)
sys.exit(0 if s.recv(6) == b"hello\n" else 1)
PYEOF
}
