# shellcheck shell=bash
# The front doors of `agentbox serve` and `agentbox mcp`, tried as an attacker would (issue #12):
# a web page in the user's browser, a local user, a tenant, a client that trickles or floods.
# Each case runs a server of its own on a private state dir ($CASE_DIR/state), stopped and
# swept when the case ends. The server's checks are the same whatever the backend, so these run
# on the native backend only (docs/security.md, "The server").
# shellcheck disable=SC2016,SC2034

SERVE_PID=
SERVE_SOCK=
SERVE_URL=
SERVE_LOG=

serve_only_native() {
  only_on native "the server's front door does not depend on the backend; checked on native"
}

# serve_down: stops the case's server and removes every sandbox of its state dir.
serve_down() {
  if [[ -n $SERVE_PID ]]; then
    kill -TERM "$SERVE_PID" 2>/dev/null
    wait "$SERVE_PID" 2>/dev/null
    SERVE_PID=
  fi
  local id
  for id in $(ls "$CASE_DIR/state/sandboxes" 2>/dev/null); do
    AGENTBOX_STATE_DIR=$CASE_DIR/state timeout -s KILL 30 "$AGENTBOX" rm -f "$id" >/dev/null 2>&1
  done
}

# serve_try [SERVE-FLAG...]: starts `agentbox serve` on the case's state dir (its unix socket
# unless a --listen is given) and waits for its "listening on" line. Returns 1 when the server
# exits instead (its stderr is in $SERVE_LOG). Sets SERVE_SOCK or SERVE_URL.
serve_try() {
  serve_only_native
  export AGENTBOX_STATE_DIR=$CASE_DIR/state
  mkdir -p "$AGENTBOX_STATE_DIR"
  SERVE_LOG=$CASE_DIR/serve.log
  SERVE_SOCK= SERVE_URL=
  "$AGENTBOX" serve "$@" 2>"$SERVE_LOG" </dev/null &
  SERVE_PID=$!
  [[ ${#H_ON_EXIT[@]} -gt 0 && ${H_ON_EXIT[-1]} == serve_down ]] || on_exit serve_down
  local i line
  for i in $(seq 200); do
    line=$(grep -m1 'listening on' "$SERVE_LOG" 2>/dev/null)
    if [[ -n $line ]]; then
      if [[ $line =~ listening\ on\ unix:(.*)$ ]]; then
        SERVE_SOCK=${BASH_REMATCH[1]}
      elif [[ $line =~ listening\ on\ tcp:(.*):([0-9]+)$ ]]; then
        SERVE_URL=http://127.0.0.1:${BASH_REMATCH[2]}
      fi
      return 0
    fi
    kill -0 "$SERVE_PID" 2>/dev/null || break
    sleep 0.05
  done
  wait "$SERVE_PID" 2>/dev/null
  SERVE_PID=
  echo "serve did not start: $(head -c 500 "$SERVE_LOG")"
  return 1
}

# serve_up [SERVE-FLAG...]: serve_try, failing the case when the server does not start.
serve_up() { serve_try "$@" || fail "serve $* did not start: $(head -c 300 "$SERVE_LOG")"; }

# serve_up_tcp_noauth [SERVE-FLAG...]: a tokenless TCP server on 127.0.0.1 (--insecure-no-auth).
# A serve that predates the flag (and every check it comes with) is started without it, so
# these cases show what such a server does.
serve_up_tcp_noauth() {
  serve_try --listen tcp:127.0.0.1:0 --insecure-no-auth "$@" && return 0
  grep -q 'unexpected argument "--insecure-no-auth"' "$SERVE_LOG" || fail "serve did not start"
  serve_up --listen tcp:127.0.0.1:0 "$@"
}

# req METHOD PATH [CURL-ARG...]: one request to the case's server; sets HTTP_STATUS and BODY.
req() {
  local method=$1 path=$2
  shift 2
  local target
  if [[ -n $SERVE_SOCK ]]; then
    target=(--unix-socket "$SERVE_SOCK" "http://localhost$path")
  else
    target=("$SERVE_URL$path")
  fi
  HTTP_STATUS=$(curl -s -o "$CASE_DIR/body" -D "$CASE_DIR/head" -w '%{http_code}' --max-time 30 \
    -X "$method" "$@" "${target[@]}")
  BODY=$(cat "$CASE_DIR/body" 2>/dev/null)
  printf '+ %s %s -> %s %s\n' "$method" "$path" "$HTTP_STATUS" "${BODY:0:400}"
}

# jreq METHOD PATH JSON [CURL-ARG...]: req with a JSON body.
jreq() {
  local method=$1 path=$2 body=$3
  shift 3
  req "$method" "$path" -H 'Content-Type: application/json' --data-binary "$body" "$@"
}

expect_status() {
  [[ $HTTP_STATUS == "$1" ]] || fail "HTTP $HTTP_STATUS, want $1${2:+ ($2)}: ${BODY:0:300}"
}

expect_body_has() {
  [[ $BODY == *"$1"* ]] || fail "the answer lacks '$1': ${BODY:0:300}"
}

# body_get PY_EXPR: evaluates PY_EXPR with d = the parsed JSON answer.
body_get() { printf '%s' "$BODY" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

sandbox_count() { ls "$CASE_DIR/state/sandboxes" 2>/dev/null | wc -l; }

expect_healthy() {
  kill -0 "$SERVE_PID" 2>/dev/null || fail "serve died: $(tail -c 300 "$SERVE_LOG")"
  req GET /healthz
  expect_status 200 "serve stopped answering"
}

# tokens_file: tenants a and b (token tok-a-7f3c9e1b2d4a, tok-b-7f3c9e1b2d4a), path on stdout.
tokens_file() {
  printf '{"tokens": [{"token": "tok-a-7f3c9e1b2d4a", "tenant": "a"}, {"token": "tok-b-7f3c9e1b2d4a", "tenant": "b"}]}\n' \
    >"$CASE_DIR/tokens.json"
  echo "$CASE_DIR/tokens.json"
}

# ---- 1. browsers -------------------------------------------------------------------------------

# What an HTML form or a no-preflight fetch() can send (text/plain, form-urlencoded, multipart)
# is refused on every JSON route before a handler runs: no sandbox made, no command run.
case_serve_simple_request_bodies_refused() {
  serve_up
  local type
  for type in text/plain application/x-www-form-urlencoded 'multipart/form-data; boundary=x'; do
    req POST /v1/sandboxes -H "Content-Type: $type" --data-binary '{}'
    expect_status 415 "$type on create"
    req POST /v1/sandboxes/nosuch/exec -H "Content-Type: $type" --data-binary '{"argv":["true"]}'
    expect_status 415 "$type on exec"
    req POST /mcp -H "Content-Type: $type" --data-binary \
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}'
    expect_status 415 "$type on /mcp"
  done
  [[ $(sandbox_count) == 0 ]] || fail "a sandbox was made from a simple request"
  req PUT '/v1/sandboxes/nosuch/files?path=f' -H 'Content-Type: text/plain' --data-binary x
  expect_status 415 "text/plain on the file route"
}

# A web page's Origin is refused on /v1 as on /mcp when there are no tokens.
case_serve_foreign_origin_refused_on_v1() {
  serve_up
  jreq POST /v1/sandboxes '{}' -H 'Origin: http://evil.example'
  expect_status 403
  req GET /v1/sandboxes -H 'Origin: null'
  expect_status 403 "Origin null (a sandboxed page)"
  [[ $(sandbox_count) == 0 ]] || fail "a sandbox was made for a foreign origin"
  jreq POST /v1/sandboxes '{}' -H 'Origin: http://localhost:6274'
  expect_status 201 "a loopback origin"
}

# DNS rebinding: a page whose name was re-pointed at 127.0.0.1 sends its own name as Host (and,
# being same-origin in the browser's eyes, may send no Origin at all). Refused on every route.
case_serve_dns_rebinding_host_refused() {
  serve_up_tcp_noauth
  local path
  for path in /v1/sandboxes /mcp /metrics /healthz; do
    req GET "$path" -H 'Host: rebind.evil.example:8080'
    expect_status 403 "Host rebind.evil.example on $path"
  done
  jreq POST /v1/sandboxes '{}' -H 'Host: rebind.evil.example'
  expect_status 403
  [[ $(sandbox_count) == 0 ]] || fail "a sandbox was made for a rebound page"
  req GET /v1/sandboxes -H 'Host: localhost:1234'
  expect_status 200 "a loopback Host"
}

# ---- 2. authentication by default -------------------------------------------------------------

# TCP without tokens: refused (exit 125, one line); with --insecure-no-auth only on loopback, and
# the server then says so on stderr.
case_serve_tcp_needs_tokens() {
  serve_only_native
  export AGENTBOX_STATE_DIR=$CASE_DIR/state
  ab serve --listen tcp:127.0.0.1:0
  expect_rc 125 "tokenless TCP must be refused"
  [[ $(wc -l <"$CASE_DIR/ab.err") == 1 ]] || fail "want one line on stderr: $AB_ERR"
  expect_err_has "--tokens"
  ab serve --listen tcp:0.0.0.0:0 --insecure-no-auth
  expect_rc 125 "--insecure-no-auth on a non-loopback address"
  serve_up --listen tcp:127.0.0.1:0 --insecure-no-auth
  grep -q 'warning: --insecure-no-auth' "$SERVE_LOG" || fail "no warning line: $(cat "$SERVE_LOG")"
}

# The default listener is the state dir's unix socket, mode 0600.
case_serve_default_socket_is_0600_in_state_dir() {
  serve_up
  [[ $SERVE_SOCK == "$CASE_DIR/state/agentbox.sock" ]] || fail "socket at $SERVE_SOCK"
  [[ $(stat -c %a "$SERVE_SOCK") == 600 ]] || fail "mode $(stat -c %a "$SERVE_SOCK")"
}

# ---- 3. who may pick a host directory ----------------------------------------------------------

# Without --workspace-root or --allow-host-paths no caller names a host path: an absolute
# workspace, a relative one (the server's cwd would resolve it), any rootfs: 403.
case_serve_host_paths_refused() {
  mkdir -p "$CASE_DIR/hostdir"
  serve_up
  jreq POST /v1/sandboxes "{\"workspace\":\"$CASE_DIR/hostdir\"}"
  expect_status 403 "an absolute workspace"
  jreq POST /v1/sandboxes '{"workspace":"hostdir"}'
  expect_status 403 "a workspace name without --workspace-root"
  jreq POST /v1/sandboxes '{"rootfs":"/"}'
  expect_status 403 "rootfs /"
  [[ $(sandbox_count) == 0 ]] || fail "a sandbox was made on a host path"
}

# The same for a tenant (tokens over TCP).
case_serve_tenant_host_path_refused() {
  mkdir -p "$CASE_DIR/hostdir"
  serve_up --listen tcp:127.0.0.1:0 --tokens "$(tokens_file)"
  jreq POST /v1/sandboxes "{\"workspace\":\"$CASE_DIR/hostdir\"}" -H 'Authorization: Bearer tok-a-7f3c9e1b2d4a'
  expect_status 403
}

# --workspace-root DIR: a workspace NAME is DIR/<tenant>/NAME; what the sandbox writes lands
# there; tenants with the same name get different directories.
case_serve_workspace_names_beneath_root_per_tenant() {
  mkdir -p "$CASE_DIR/root"
  serve_up --listen tcp:127.0.0.1:0 --tokens "$(tokens_file)" --workspace-root "$CASE_DIR/root"
  local t
  for t in a b; do
    jreq POST /v1/sandboxes '{"workspace":"proj"}' -H "Authorization: Bearer tok-$t-7f3c9e1b2d4a"
    expect_status 201 "tenant $t"
    [[ $(body_get 'd["workspace"]') == "$CASE_DIR/root/$t/proj" ]] || fail "workspace $(body_get 'd["workspace"]')"
    local id
    id=$(body_get 'd["id"]')
    jreq POST "/v1/sandboxes/$id/exec" "{\"argv\":[\"sh\",\"-c\",\"echo from-$t > mine\"]}" \
      -H "Authorization: Bearer tok-$t-7f3c9e1b2d4a"
    expect_status 200
  done
  [[ $(cat "$CASE_DIR/root/a/proj/mine") == from-a && $(cat "$CASE_DIR/root/b/proj/mine") == from-b ]] ||
    fail "tenants' workspaces mixed: $(cat "$CASE_DIR"/root/*/proj/mine | tr '\n' ' ')"
  # A tenant's files are no local user's: its directory is root's, 0700 (it was 0755).
  for t in a b; do
    [[ $(stat -c '%a %u' "$CASE_DIR/root/$t") == "700 0" ]] ||
      fail "tenant $t's directory is $(stat -c '%a %u' "$CASE_DIR/root/$t"), want 700 0"
  done
}

# A name cannot leave its directory: "..", "a/b", "../x", ".", an absolute path are refused, and
# the root's own tenant directory cannot be a symlink out.
case_serve_workspace_name_cannot_escape() {
  mkdir -p "$CASE_DIR/root" "$CASE_DIR/outside"
  ln -s "$CASE_DIR/outside" "$CASE_DIR/root/_anonymous"
  serve_up --workspace-root "$CASE_DIR/root"
  local name
  for name in .. . a/b ../x .hidden; do
    jreq POST /v1/sandboxes "{\"workspace\":\"$name\"}"
    expect_status 400 "workspace \"$name\""
  done
  jreq POST /v1/sandboxes '{"workspace":"/tmp"}'
  expect_status 403 "an absolute path beside a root"
  jreq POST /v1/sandboxes '{"workspace":"ok"}'
  expect_status 400 "the tenant directory is a symlink out of the root"
  [[ -z $(ls "$CASE_DIR/outside") ]] || fail "something was made outside the root"
  [[ $(sandbox_count) == 0 ]] || fail "a sandbox was made"
}

# --allow-host-paths: the operator's explicit opt-in; the CLI's own checks still apply (rootfs /
# is the caller's error: 400, not 503).
case_serve_allow_host_paths_opt_in() {
  mkdir -p "$CASE_DIR/hostdir"
  serve_up --allow-host-paths
  jreq POST /v1/sandboxes "{\"workspace\":\"$CASE_DIR/hostdir\"}"
  expect_status 201
  jreq POST /v1/sandboxes '{"rootfs":"/"}'
  expect_status 400 "rootfs / is refused by the CLI's check, as the caller's error"
}

# ---- 4. parsers ----------------------------------------------------------------------------------

# deep_json FILE [PREFIX SUFFIX]: 200,000 nested arrays, well-formed (400 KB), inside PREFIX and
# SUFFIX: a parser builds the whole tree.
deep_json() {
  "$PY" -c 'import sys; sys.stdout.write(sys.argv[1] + "[" * 200000 + "]" * 200000 + sys.argv[2])' \
    "${2:-}" "${3:-}" >"$1"
}

# Deeply nested JSON: 400, and the server goes on (it died of SIGSEGV in the JSON serializer).
case_serve_deep_json_body_is_400() {
  deep_json "$CASE_DIR/deep.json" '{"memory":' '}'
  serve_up
  req POST /v1/sandboxes -H 'Content-Type: application/json' --data-binary @"$CASE_DIR/deep.json"
  expect_status 400
  expect_body_has "nested deeper"
  req POST /v1/sandboxes/nosuch/exec -H 'Content-Type: application/json' --data-binary @"$CASE_DIR/deep.json"
  expect_status 400
  expect_healthy
}

# On /mcp the answer is JSON-RPC's parse error (-32700, id null), not the REST error shape.
case_serve_mcp_bad_json_is_jsonrpc_parse_error() {
  deep_json "$CASE_DIR/deep.json" '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":' '}}'
  serve_up
  req POST /mcp -H 'Content-Type: application/json' --data-binary '{nope'
  expect_status 400
  [[ $(body_get 'd["jsonrpc"], d["id"], d["error"]["code"]') == "('2.0', None, -32700)" ]] ||
    fail "not a JSON-RPC parse error"
  req POST /mcp -H 'Content-Type: application/json' --data-binary @"$CASE_DIR/deep.json"
  [[ $(body_get 'd["error"]["code"]') == -32700 ]] || fail "deep JSON on /mcp"
  expect_healthy
}

# mcp_stdio SCRIPT: runs `agentbox mcp` fed by a python SCRIPT (a function of send/recv);
# prints what the script prints.
mcp_stdio() {
  export AGENTBOX_STATE_DIR=$CASE_DIR/state
  mkdir -p "$AGENTBOX_STATE_DIR"
  timeout -s KILL 30 "$PY" - "$AGENTBOX" "$1" <<'PYEOF'
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(data):
    p.stdin.write(data if isinstance(data, bytes) else data.encode())
    p.stdin.flush()
def recv():
    line = p.stdout.readline()
    return json.loads(line) if line else None
exec(sys.argv[2])
p.stdin.close()
print("exit", p.wait())
PYEOF
}

# `agentbox mcp`: a deeply nested line is -32700 and the session goes on.
case_mcp_stdio_deep_json_keeps_session() {
  serve_only_native
  local out
  out=$(mcp_stdio '
send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":" + "[" * 200000 + "]" * 200000 + "}}\n")
r = recv(); print("first", r and r["error"]["code"])
send(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"}) + "\n")
r = recv(); print("ping", r and r.get("id"))')
  echo "$out"
  [[ $out == *"first -32700"* && $out == *"ping 7"* && $out == *"exit 0"* ]] || fail "session lost: $out"
}

# `agentbox mcp`: a line over 64 MiB is answered with an error and the session keeps going (it
# used to exit, removing the session's sandbox).
case_mcp_stdio_long_line_keeps_session() {
  serve_only_native
  local out
  out=$(mcp_stdio '
chunk = b"x" * (1 << 20)
for _ in range(65): send(chunk)
send(b"\n")
r = recv(); print("first", r and r["error"]["code"])
send(json.dumps({"jsonrpc": "2.0", "id": 8, "method": "ping"}) + "\n")
r = recv(); print("ping", r and r.get("id"))')
  echo "$out"
  [[ $out == *"first -32700"* && $out == *"ping 8"* && $out == *"exit 0"* ]] || fail "session lost: $out"
}

# run --policy with a deeply nested file: exit 125 and one line (it died of SIGSEGV).
case_policy_file_deep_json_is_125() {
  serve_only_native
  deep_json "$CASE_DIR/deep.json"
  ab run --policy "$CASE_DIR/deep.json" -- true
  expect_rc 125
  expect_err_has "nested deeper"
}

# serve --tokens with a deeply nested file: exit 125 and one line.
case_serve_tokens_file_deep_json_is_125() {
  serve_only_native
  "$PY" -c 'import sys; sys.stdout.write("{\"tokens\":" + "[" * 200000 + "]" * 200000 + "}")' \
    >"$CASE_DIR/deep.json"
  export AGENTBOX_STATE_DIR=$CASE_DIR/state
  ab serve --listen tcp:127.0.0.1:0 --tokens "$CASE_DIR/deep.json"
  expect_rc 125
  expect_err_has "nested deeper"
}

# A token anyone who reaches the port could guess (one character, as the audit used) is no
# authentication: serve refuses the file, exit 125 naming the rule.
case_serve_tokens_file_refuses_a_guessable_token() {
  serve_only_native
  printf '{"tokens": [{"token": "a", "tenant": "a"}]}\n' >"$CASE_DIR/short.json"
  export AGENTBOX_STATE_DIR=$CASE_DIR/state
  ab serve --listen tcp:127.0.0.1:0 --tokens "$CASE_DIR/short.json"
  expect_rc 125
  expect_err_has "at least 16"
}

# ---- 5. slow and many clients --------------------------------------------------------------------

# A client that trickles its head, a byte a second, is cut off at the head's absolute deadline
# (10 s), however often it sends; the stall timer used to restart on every byte.
case_serve_slow_head_cut_at_deadline() {
  serve_up
  local out
  out=$(timeout -s KILL 30 "$PY" - "$SERVE_SOCK" <<'PYEOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(1)
start = time.monotonic()
head = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 100
answer = b""
for byte in head:
    try:
        s.send(bytes([byte]))
    except OSError:
        break
    try:
        got = s.recv(4096)
        if not got: break
        answer += got
        break
    except socket.timeout:
        pass
    if time.monotonic() - start > 16: break
print("after %.1f s: %r" % (time.monotonic() - start, answer[:40]))
PYEOF
  )
  echo "$out"
  [[ $out =~ after\ ([0-9]+)\.[0-9]\ s:\ b\'(HTTP/1.1\ 408|) ]] || fail "no answer: $out"
  ((BASH_REMATCH[1] <= 13)) || fail "the trickling client was held past the deadline: $out"
  expect_healthy
}

# One local user cannot take every connection: past max_connections_per_peer its connections
# are refused (429), from any loopback address, while another user's /healthz is answered at
# once (a peer over loopback is its uid: by address, one user locked out every other).
case_serve_connections_capped_per_peer() {
  printf '{"max_connections_per_peer": 8}\n' >"$CASE_DIR/config.json"
  serve_up_tcp_noauth --config "$CASE_DIR/config.json"
  local port=${SERVE_URL##*:} out
  out=$(timeout -s KILL 30 "$PY" - "$port" <<'PYEOF'
import os, socket, sys, time
port = int(sys.argv[1])
held = []
for _ in range(8):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /healthz HTTP/1.1\r\n")  # a head that never ends
    held.append(s)
time.sleep(0.3)
s = socket.create_connection(("127.0.0.1", port))
s.settimeout(5)
s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
try:
    print("ninth:", s.recv(100).split(b"\r\n")[0].decode())
except socket.timeout:
    print("ninth: no answer")
def first_line(s):
    s.settimeout(5)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
    try:
        return s.recv(100).split(b"\r\n")[0].decode()
    except socket.timeout:
        return "no answer"
# The same local user from another loopback address is the same peer: a user is its uid.
print("same user, 127.0.0.2:", first_line(socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))))
# Another local user is another peer, whatever the address.
r, w = os.pipe()
if os.fork() == 0:
    os.setgid(65534); os.setuid(65534)
    t0 = time.monotonic()
    line = first_line(socket.create_connection(("127.0.0.1", port)))
    os.write(w, ("other user: %s in %.2f s" % (line, time.monotonic() - t0)).encode())
    os._exit(0)
os.wait()
os.close(w)
print(os.read(r, 200).decode())
PYEOF
  )
  echo "$out"
  [[ $out == *"ninth: HTTP/1.1 429"* ]] || fail "a ninth connection of one peer was not refused: $out"
  [[ $out == *"same user, 127.0.0.2: HTTP/1.1 429"* ]] || fail "another loopback address escaped the user's cap: $out"
  [[ $out == *"other user: HTTP/1.1 200"* ]] || fail "another local user was not served: $out"
}

# At the connection cap, with every slot held by clients that send nothing, /healthz from a new
# client is still answered within seconds (they used to hold their slots for the 60 s idle
# timeout, and new clients waited in the backlog).
case_serve_healthz_answers_at_the_connection_cap() {
  serve_up --max-connections 8
  local out
  out=$(timeout -s KILL 30 "$PY" - "$SERVE_SOCK" <<'PYEOF'
import socket, sys, time
held = []
for _ in range(8):
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); held.append(s)
time.sleep(0.3)
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(8)
t0 = time.monotonic()
s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
try:
    print("healthz:", s.recv(100).split(b"\r\n")[0].decode(), "in %.1f s" % (time.monotonic() - t0))
except socket.timeout:
    print("healthz: no answer in 8 s")
PYEOF
  )
  echo "$out"
  [[ $out == *"healthz: HTTP/1.1 200"* ]] || fail "/healthz not answered at the cap: $out"
}

# ---- 6. serve's own memory ----------------------------------------------------------------------

# An exec may not ask serve to buffer more than the output ceiling (16M by default): 400 naming
# the key and the ceiling. (output_limit 100G once made serve buffer 7.9 GB.)
case_serve_output_limit_over_ceiling_is_400() {
  serve_up
  jreq POST /v1/sandboxes '{}'
  expect_status 201
  local id
  id=$(body_get 'd["id"]')
  jreq POST "/v1/sandboxes/$id/exec" '{"argv":["true"],"output_limit":"100G"}'
  expect_status 400
  expect_body_has '"output_limit\": 100G is over'
  expect_body_has "16M"
}

# A sandbox made by the CLI with a larger --output-limit is held to the ceiling through the API:
# 40 MB of output keeps 16 MiB, and the result says it was cut.
case_serve_cli_sandbox_output_held_to_ceiling() {
  serve_up
  AGENTBOX_STATE_DIR=$CASE_DIR/state ab create --output-limit 100G
  expect_rc 0
  local id=$AB_OUT
  jreq POST "/v1/sandboxes/$id/exec" '{"argv":["sh","-c","yes | head -c 40000000"]}'
  expect_status 200
  [[ $(body_get 'len(d["stdout"]), d["stdout_truncated"]') == "(16777216, True)" ]] ||
    fail "kept $(body_get 'len(d["stdout"]), d["stdout_truncated"]')"
}

# ---- 7. operator ceilings ----------------------------------------------------------------------

# What a tenant got before (memory 1T, pids 1,000,000, cpus 1024, /tmp 1T, timeout 7d, a
# sandbox that lives for ever): 400, naming the key and the ceiling; no sandbox is made.
case_serve_create_over_ceilings_is_400() {
  serve_up
  local ask
  for ask in '"memory":"1T"' '"pids":1000000' '"cpus":1024' '"tmp_size":"1T"' '"timeout":"7d"' \
    '"shm_size":"1T"' '"disk_limit":"1T"' '"disk_limit":0' '"ttl":"30d"' '"ttl":"none"'; do
    jreq POST /v1/sandboxes "{$ask}"
    expect_status 400 "$ask"
    expect_body_has "ceiling of"
    local key=${ask%%:*}
    expect_body_has "${key//\"/}"
  done
  [[ $(sandbox_count) == 0 ]] || fail "a sandbox was made over a ceiling"
}

# serve --config: the operator's defaults apply to what a request leaves out (REST and an MCP
# session's sandbox alike), its ceilings to what it asks, MCP tool arguments included.
case_serve_config_defaults_and_ceilings() {
  cat >"$CASE_DIR/config.json" <<'JSON'
{"limits": {"memory": {"default": "200M", "max": "300M"}, "timeout": {"default": 20, "max": 30}}}
JSON
  serve_up --config "$CASE_DIR/config.json"
  jreq POST /v1/sandboxes '{}'
  expect_status 201
  [[ $(body_get 'd["policy"]["memory"], d["policy"]["timeout"]') == "(209715200, 20.0)" ]] ||
    fail "defaults not applied: $(body_get 'd["policy"]')"
  jreq POST /v1/sandboxes '{"memory":"400M"}'
  expect_status 400
  expect_body_has "ceiling of 300M"
  local id
  id=$(AGENTBOX_STATE_DIR=$CASE_DIR/state "$AGENTBOX" ls --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
  jreq POST "/v1/sandboxes/$id/exec" '{"argv":["true"],"timeout":31}'
  expect_status 400 "exec timeout over the ceiling"
  # MCP over HTTP: the session's sandbox has the defaults, a tool call's timeout the ceiling.
  jreq POST /mcp '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}'
  local sid
  sid=$(tr -d '\r' <"$CASE_DIR/head" | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
  [[ -n $sid ]] || fail "no MCP session"
  jreq POST /mcp '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":{"command":"true","timeout":100}}}' -H "Mcp-Session-Id: $sid"
  [[ $(body_get 'd["result"]["isError"], "ceiling" in d["result"]["content"][0]["text"]') == "(True, True)" ]] ||
    fail "a tool call's timeout over the ceiling was not refused"
  jreq POST /mcp '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"exec","arguments":{"command":"cat /sys/fs/cgroup/memory.max 2>/dev/null || echo v1"}}}' -H "Mcp-Session-Id: $sid"
  local mcp_id
  mcp_id=$(AGENTBOX_STATE_DIR=$CASE_DIR/state "$AGENTBOX" ls --json | "$PY" -c "import json,sys; print([s['id'] for s in json.load(sys.stdin) if s['id'] != '$id'][0])")
  AGENTBOX_STATE_DIR=$CASE_DIR/state ab inspect "$mcp_id"
  json_assert 'r["policy"]["memory"] == 209715200' "the MCP session's sandbox lacks the default memory"
}

# A config file is parsed strictly: an unknown key, or a default over its max, is exit 125
# naming it.
case_serve_config_is_strict() {
  serve_only_native
  export AGENTBOX_STATE_DIR=$CASE_DIR/state
  printf '{"limits": {"memroy": {"max": "1G"}}}\n' >"$CASE_DIR/config.json"
  ab serve --config "$CASE_DIR/config.json"
  expect_rc 125
  expect_err_has '"memroy"'
  printf '{"limits": {"ttl": {"default": "none", "max": "1h"}}}\n' >"$CASE_DIR/config.json"
  ab serve --config "$CASE_DIR/config.json"
  expect_rc 125
  expect_err_has '"ttl": the default none is over the max 3600 seconds'
  # The default backend: a name it knows, within allowed_backends, wherever it comes from.
  printf '{"backend": "podman"}\n' >"$CASE_DIR/config.json"
  ab serve --config "$CASE_DIR/config.json"
  expect_rc 125
  expect_err_has '"backend": expected "native", "docker" or "kubernetes", got "podman"'
  ab serve --backend kvm
  expect_rc 125
  expect_err_has '--backend: expected "native", "docker" or "kubernetes", got "kvm"'
  printf '{"allowed_backends": ["docker"]}\n' >"$CASE_DIR/config.json"
  ab serve --config "$CASE_DIR/config.json" --backend kubernetes
  expect_rc 125
  expect_err_has '--backend: kubernetes is not one of the config'"'"'s "allowed_backends" (docker)'
}

# A sandbox's lifetime: a tenant gets the operator's default ttl when it asks for none, and a
# sandbox whose ttl has passed is removed by serve itself (no request needs to touch it), its
# processes killed, and counted in /metrics.
case_serve_ttl_default_and_expiry() {
  cat >"$CASE_DIR/config.json" <<'JSON'
{"limits": {"ttl": {"default": "1h", "max": "2h"}}}
JSON
  serve_up --config "$CASE_DIR/config.json"
  jreq POST /v1/sandboxes '{}'
  expect_status 201
  [[ $(body_get 'd["policy"]["ttl"], d["expires_at"] is not None') == "(3600.0, True)" ]] ||
    fail "the default ttl was not applied: $(body_get 'd["policy"]["ttl"], d["expires_at"]')"
  jreq POST /v1/sandboxes '{"ttl":"2s"}'
  expect_status 201
  local id init_pid
  id=$(body_get 'd["id"]')
  init_pid=$(body_get 'd["pid"]')
  # A command still running when the ttl ends, and requests racing serve's sweep for the
  # removal (each used to count it once more).
  local url=http://localhost/v1/sandboxes/$id
  curl -s -o "$CASE_DIR/exec.body" -w '%{http_code}' --max-time 60 --unix-socket "$SERVE_SOCK" \
    -H 'Content-Type: application/json' --data-binary '{"argv":["sleep","30"]}' "$url/exec" \
    >"$CASE_DIR/exec.code" &
  local exec_curl=$! racer racers=()
  for racer in 1 2; do
    (while [[ -e $CASE_DIR/state/sandboxes/$id ]]; do
      curl -s -o /dev/null --max-time 5 --unix-socket "$SERVE_SOCK" "$url"
    done) &
    racers+=($!)
  done
  # The event: the record is gone from the state dir (serve's own sweep, once a second).
  local waited=0
  while [[ -e $CASE_DIR/state/sandboxes/$id/sandbox.json ]]; do
    ((waited++ < 600)) || fail "sandbox $id outlived its ttl by a minute"
    sleep 0.1
  done
  wait "${racers[@]}" "$exec_curl"
  # Gone, or a zombie its new parent has not reaped yet (it runs nothing).
  [[ ! -e /proc/$init_pid ]] || grep -q '^State:.*Z' "/proc/$init_pid/status" 2>/dev/null ||
    fail "the sandbox's init $init_pid outlived its ttl"
  [[ $(cat "$CASE_DIR/exec.code") == 404 ]] && grep -q 'end of its ttl' "$CASE_DIR/exec.body" ||
    fail "the exec the ttl cut short got $(cat "$CASE_DIR/exec.code"): $(head -c 300 "$CASE_DIR/exec.body")"
  req GET "/v1/sandboxes/$id"
  expect_status 404
  req GET /metrics
  grep -qx 'agentbox_sandboxes_expired_total 1' "$CASE_DIR/body" ||
    fail "one expiry, counted as: $(grep '^agentbox_sandboxes_expired_total' "$CASE_DIR/body")"
}

# ---- 8. statuses and privacy -------------------------------------------------------------------

# Invalid input is 4xx, never a 503 that says "retry": a bad name, open_files over what this
# process can give (its hard limit), a file over the sandbox's disk limit.
case_serve_invalid_input_is_4xx_not_503() {
  serve_up
  jreq POST /v1/sandboxes '{"name":"bad name!"}'
  expect_status 400 "bad name"
  jreq POST /v1/sandboxes '{"open_files":1048576}'
  expect_status 400 "open_files over the hard limit"
  jreq POST /v1/sandboxes '{"disk_limit":"1M"}'
  expect_status 201
  local id
  id=$(body_get 'd["id"]')
  head -c 3000000 /dev/zero >"$CASE_DIR/big.bin"
  req PUT "/v1/sandboxes/$id/files?path=big" -T "$CASE_DIR/big.bin"
  expect_status 413 "a file over the disk limit"
  expect_healthy
}

# Names are per tenant: tenant b may call its sandbox what tenant a calls one of its own (no
# 409 telling b about a), and each finds its own by that name.
case_serve_names_scoped_per_tenant() {
  serve_up --listen tcp:127.0.0.1:0 --tokens "$(tokens_file)"
  jreq POST /v1/sandboxes '{"name":"build"}' -H 'Authorization: Bearer tok-a-7f3c9e1b2d4a'
  expect_status 201
  local ida idb
  ida=$(body_get 'd["id"]')
  jreq POST /v1/sandboxes '{"name":"build"}' -H 'Authorization: Bearer tok-b-7f3c9e1b2d4a'
  expect_status 201 "another tenant's name must not show through a 409"
  idb=$(body_get 'd["id"]')
  [[ $(body_get 'd["name"]') == build ]] || fail "b's sandbox is not called build"
  jreq POST /v1/sandboxes '{"name":"build"}' -H 'Authorization: Bearer tok-b-7f3c9e1b2d4a'
  expect_status 409 "the tenant's own name twice"
  req GET /v1/sandboxes/build -H 'Authorization: Bearer tok-a-7f3c9e1b2d4a'
  [[ $(body_get 'd["id"]') == "$ida" ]] || fail "a's build is not a's"
  req GET /v1/sandboxes/build -H 'Authorization: Bearer tok-b-7f3c9e1b2d4a'
  [[ $(body_get 'd["id"]') == "$idb" ]] || fail "b's build is not b's"
}

# /metrics with tokens is the caller's tenant's own: another tenant's sandboxes, execs and
# requests never show in its counts (they did: tenant b saw a's live sandboxes and execs).
case_serve_metrics_scoped_per_tenant() {
  serve_up --listen tcp:127.0.0.1:0 --tokens "$(tokens_file)"
  jreq POST /v1/sandboxes '{}' -H 'Authorization: Bearer tok-a-7f3c9e1b2d4a'
  expect_status 201
  local ida
  ida=$(body_get 'd["id"]')
  jreq POST "/v1/sandboxes/$ida/exec" '{"argv":["true"]}' -H 'Authorization: Bearer tok-a-7f3c9e1b2d4a'
  expect_status 200
  req GET /metrics -H 'Authorization: Bearer tok-a-7f3c9e1b2d4a'
  expect_status 200
  grep -qx 'agentbox_sandboxes_live 1' <<<"$BODY" || fail "a does not see its own sandbox"
  grep -qx 'agentbox_execs_total{reason="exited"} 1' <<<"$BODY" || fail "a does not see its own exec"
  req GET /metrics -H 'Authorization: Bearer tok-b-7f3c9e1b2d4a'
  expect_status 200
  grep -qx 'agentbox_sandboxes_live 0' <<<"$BODY" || fail "b sees a's sandbox in /metrics"
  ! grep -q '^agentbox_execs_total{reason="exited"} [1-9]' <<<"$BODY" || fail "b sees a's exec in /metrics"
  ! grep -q '^agentbox_http_requests_total{code="201"}' <<<"$BODY" || fail "b sees a's create among its requests"
}
