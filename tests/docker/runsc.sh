#!/usr/bin/env bash
# tests/docker/runsc.sh: the docker backend under gVisor (--runtime runsc), on what Debian 12's
# runsc (2022) supports: commands, exit statuses, timeouts that kill the whole tree, the empty
# network, the seccomp filter and no capabilities; the file API and `cp`, which resolve paths
# with the agent's user-space walk there (runsc has no openat2), escapes refused as with
# openat2; and the refusal, at create, of a --workspace not owned by the container's host ids
# 2100001000:2100001000 (docker/host_ids.h; runsc cannot
# use the idmapped mount another owner needs), and of random_seed (no seccomp listener). Run by tests/docker/run_suite.sh runsc; the
# security suite runs under runsc too (run_suite.sh security with AGENTBOX_RUNTIME=runsc). The
# terminal's cases (tests/conformance/terminal_cases.sh) run here too.

export AGENTBOX_BACKEND=docker
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/persistent.sh
source "$HERE/../lib/persistent.sh"
RUNSC=(--backend docker --runtime runsc)

case_runsc_is_gvisor() {
  # gVisor answers syscalls itself: its /proc/version is its own, not the host kernel's.
  ab run "${RUNSC[@]}" -- cat /proc/version
  expect_rc 0
  [[ -n $AB_OUT && $AB_OUT != "$(cat /proc/version)" ]] || fail "the host kernel answers: $AB_OUT"
}

case_runsc_exit_codes_and_output() {
  ab run "${RUNSC[@]}" --json -- sh -c 'echo out; echo err >&2; exit 7'
  expect_rc 7
  json_assert "r['exit_code'] == 7 and r['stdout'] == 'out\n' and r['stderr'] == 'err\n'"
  ab run "${RUNSC[@]}" -- no-such-command
  expect_rc 127
}

case_runsc_timeout_kills_tree() {
  local t0
  t0=$(now_ms)
  ab run "${RUNSC[@]}" --json --timeout 1 -- sh -c 'setsid sh -c "sleep 100 &"; sleep 100'
  expect_rc 124
  json_assert "r['reason'] == 'timeout'"
  (($(now_ms) - t0 < 60000)) || fail "the timeout took $(($(now_ms) - t0)) ms (the sleep was 100 s)"
}

case_runsc_persistent_exec() {
  new_box --runtime runsc
  ab exec "$BOX" -- sh -c 'echo one > /tmp/x; cat /tmp/x'
  expect_out one
  ab exec --json --timeout 1 "$BOX" -- sleep 100
  expect_rc 124
  ab exec "$BOX" -- echo still-alive
  expect_out still-alive "the sandbox survives an exec's timeout"
}

case_runsc_no_network_no_caps_filter() {
  ab run "${RUNSC[@]}" -- sh -c 'grep -E "^(CapEff|Seccomp):" /proc/self/status; ls /sys/class/net 2>/dev/null | tr "\n" " "; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " " | tr "\n" " "'
  expect_rc 0
  expect_out_has "CapEff:	0000000000000000"
  expect_out_has "Seccomp:	2"
  [[ $AB_OUT != *eth* ]] || fail "a network interface besides lo: $AB_OUT"
}

case_runsc_cp_file_and_directory() {
  new_box --runtime runsc
  echo "hello cp" >"$CASE_DIR/f.txt"
  ab cp "$CASE_DIR/f.txt" "$BOX:f.txt"
  expect_rc 0 "cp in"
  ab exec "$BOX" -- cat /workspace/f.txt
  expect_out "hello cp"
  head -c 300000 /dev/urandom >"$CASE_DIR/bin"
  ab exec "$BOX" -- mkdir -p /workspace/sub
  ab cp "$CASE_DIR/bin" "$BOX:/workspace/sub/bin"
  expect_rc 0 "cp in of binary content"
  ab cp "$BOX:sub/bin" "$CASE_DIR/bin.back"
  expect_rc 0 "cp out"
  cmp -s "$CASE_DIR/bin" "$CASE_DIR/bin.back" || fail "binary content changed on the round trip"
  mkdir -p "$CASE_DIR/tree/a/b"
  echo one >"$CASE_DIR/tree/a/1.txt"
  echo two >"$CASE_DIR/tree/a/b/2.txt"
  ab cp "$CASE_DIR/tree" "$BOX:tree"
  expect_rc 0 "cp in of a directory"
  ab exec "$BOX" -- sh -c 'echo added >/workspace/tree/a/added.txt'
  ab cp "$BOX:tree" "$CASE_DIR/back"
  expect_rc 0 "cp out of a directory"
  echo added >"$CASE_DIR/tree/a/added.txt"
  diff -r "$CASE_DIR/tree" "$CASE_DIR/back" >/dev/null || fail "the tree came back different"
}

# The sandbox plants the links; under runsc the walk, not openat2, must refuse each way out.
case_runsc_cp_escapes_refused() {
  new_box --runtime runsc
  ab exec "$BOX" -- sh -c 'mkdir -p /workspace/d && ln -s /etc/passwd /workspace/pw &&
    ln -s /etc /workspace/etcdir && ln -s .. /workspace/up && ln -s ../.. /workspace/d/back &&
    ln -s ../d /workspace/d/loop && ln -s x /workspace/self && ln -s self /workspace/x'
  expect_rc 0
  local src
  for src in pw etcdir/passwd up/etc/passwd d/back/etc/passwd ../etc/passwd /etc/passwd \
    /workspace/../etc/passwd x; do
    ab cp "$BOX:$src" "$CASE_DIR/out"
    expect_one_line_error "cp out of $src"
    [[ ! -e $CASE_DIR/out ]] || fail "cp out of $src wrote $(head -c 80 "$CASE_DIR/out")"
  done
  ab cp "$BOX:up/etc/passwd" "$CASE_DIR/out"
  expect_err_has "outside /workspace"
  echo evil >"$CASE_DIR/e"
  for dst in up/evil etcdir/evil d/back/evil ../evil; do
    ab cp "$CASE_DIR/e" "$BOX:$dst"
    expect_one_line_error "cp in to $dst"
  done
  ab exec "$BOX" -- sh -c 'ls / /etc | grep -c "^evil$"; true'
  expect_out 0 "a refused cp in wrote outside /workspace"
}

# start_serve: `agentbox serve` on a unix socket of this case (killed when the case ends).
start_serve() {
  SOCK=$CASE_DIR/serve.sock
  "$AGENTBOX" serve --listen "unix:$SOCK" 2>"$CASE_DIR/serve.log" &
  wait_until 30 grep -q "listening on" "$CASE_DIR/serve.log" 2>/dev/null && return 0
  fail "agentbox serve did not start: $(head -c 300 "$CASE_DIR/serve.log")"
}

# http METHOD PATH [CURL-ARG...]: one request; HTTP_CODE and HTTP_BODY.
http() {
  local method=$1 path=$2
  shift 2
  HTTP_CODE=$(curl -s -o "$CASE_DIR/body" -w '%{http_code}' --unix-socket "$SOCK" -X "$method" \
    "$@" "http://x/v1/sandboxes/$BOX/$path")
  HTTP_BODY=$(cat "$CASE_DIR/body")
}

expect_http() {
  [[ $HTTP_CODE == "$1" ]] || fail "${2:-request}: HTTP $HTTP_CODE, want $1: ${HTTP_BODY:0:200}"
}

# The file API (write, read, list, edit, remove) through `agentbox serve`, escapes refused.
case_runsc_file_api() {
  new_box --runtime runsc
  start_serve
  printf 'hello world\n' >"$CASE_DIR/f.txt"
  http PUT "files?path=dir/f.txt&parents=false" -T "$CASE_DIR/f.txt"
  expect_http 404 "write into a missing directory with parents=false"
  http PUT "files?path=dir/f.txt" -T "$CASE_DIR/f.txt"
  expect_http 200 "write (making dir/)"
  http GET "files?path=dir/f.txt"
  expect_http 200 "read"
  [[ $HTTP_BODY == "hello world" ]] || fail "read back '$HTTP_BODY'"
  http GET "files?path=/workspace/dir&list=1"
  expect_http 200 "list"
  [[ $HTTP_BODY == *'"name":"f.txt"'* ]] || fail "list lacks f.txt: $HTTP_BODY"
  http POST "files/edit" -H 'Content-Type: application/json' -d '{"path":"dir/f.txt","old_str":"world","new_str":"there"}'
  expect_http 200 "edit"
  ab exec "$BOX" -- cat /workspace/dir/f.txt
  expect_out "hello there" "the edit inside the box"
  http DELETE "files?path=dir/f.txt"
  expect_http 200 "remove"
  http GET "files?path=dir/f.txt"
  expect_http 404 "read after remove"
  ab exec "$BOX" -- sh -c 'ln -s /etc/passwd /workspace/pw; ln -s ../.. /workspace/dir/up'
  local path
  for path in pw dir/up/etc/passwd ../../etc/passwd /etc/passwd; do
    http GET "files?path=$path"
    [[ $HTTP_CODE == 400 || $HTTP_CODE == 403 ]] || fail "read of $path: HTTP $HTTP_CODE, want 403/400"
    [[ $HTTP_BODY != *root:* ]] || fail "read of $path gave /etc/passwd"
  done
  http PUT "files?path=dir/up/evil" -T "$CASE_DIR/f.txt"
  expect_http 403 "write through a link that leads out"
  http POST "files/edit" -H 'Content-Type: application/json' -d '{"path":"pw","old_str":"root","new_str":"evil"}'
  [[ $HTTP_CODE == 400 || $HTTP_CODE == 403 ]] || fail "edit through a link: HTTP $HTTP_CODE"
}

# A --workspace gVisor cannot map is refused at create in one line, saying what owner it needs;
# one owned by the container's host ids works, and what the box writes there is theirs.
case_runsc_workspace_owner() {
  local ws=$CASE_DIR/ws
  mkdir -p "$ws"
  chown 4242:4242 "$ws"
  ab run "${RUNSC[@]}" --workspace "$ws" -- sh -c 'echo x >/workspace/f'
  expect_one_line_error "a workspace owned by 4242:4242"
  expect_err_has "must be owned by 2100001000:2100001000"
  ab create "${RUNSC[@]}" --workspace "$ws"
  expect_one_line_error "create with a workspace owned by 4242:4242"
  [[ -z $(ls -A "$ws") ]] || fail "the refused workspace was written: $(ls -A "$ws")"
  [[ $(stat -c %u:%g "$ws") == 4242:4242 ]] || fail "the workspace's owner changed"
  chown 2100001000:2100001000 "$ws"
  ab run "${RUNSC[@]}" --workspace "$ws" -- sh -c 'echo x >/workspace/f && mkdir /workspace/d'
  expect_rc 0
  [[ $(stat -c %u:%g "$ws/f") == 2100001000:2100001000 && $(stat -c %u:%g "$ws/d") == 2100001000:2100001000 ]] ||
    fail "files made inside belong to $(stat -c %u:%g "$ws/f") on the host"
}

# random_seed needs a seccomp listener, which gVisor does not give: refused at create in one
# line (exit 125) for `run` and `create` alike, never a sandbox with real randomness instead.
case_runsc_random_seed_refused() {
  printf '{"random_seed": 42}\n' >"$CASE_DIR/policy.json"
  ab run "${RUNSC[@]}" --policy "$CASE_DIR/policy.json" -- true
  expect_one_line_error "run with random_seed under runsc"
  expect_err_has "random_seed is not available under gVisor"
  ab create "${RUNSC[@]}" --policy "$CASE_DIR/policy.json"
  expect_one_line_error "create with random_seed under runsc"
}

# clock_start needs a time namespace, which gVisor does not have: refused at create with one
# line that says so (a clock that silently is not the one asked for would make a replay
# diverge for no visible reason), and nothing is left behind.
case_runsc_refuses_clock_start() {
  local policy=$CASE_DIR/policy.json
  printf '{"clock_start": "3d"}\n' >"$policy"
  ab create "${RUNSC[@]}" --policy "$policy"
  expect_one_line_error "clock_start under gVisor"
  [[ $AB_ERR == *clock_start*gVisor* ]] || fail "the refusal does not name clock_start and gVisor: $AB_ERR"
  ab run "${RUNSC[@]}" --policy "$policy" -- true
  expect_one_line_error "clock_start under gVisor, one-shot"
  ab ls -q
  [[ -z $AB_OUT ]] || fail "the refused create left a sandbox: $AB_OUT"
}

# The terminal's cases of the conformance suite, here under gVisor: the CLI's `exec -t` and
# the API's WebSocket (gVisor's PTY master never hangs up, which once left every terminal exec
# hanging until the client gave up).
H_CASE_FILES=("$HERE/../conformance/terminal_cases.sh")
# shellcheck source=tests/conformance/terminal_cases.sh
source "$HERE/../conformance/terminal_cases.sh"

harness_main "$0" "$@"
