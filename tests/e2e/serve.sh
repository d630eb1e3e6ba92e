#!/usr/bin/env bash
# e2e: `agentbox serve` driven by curl, as a client would: over the unix socket, and over TCP
# with tokens. Prints "N passed, N failed"; exits non-zero on any failure, 77 when skipped.
set -uo pipefail

AGENTBOX=${AGENTBOX:-$(cd "$(dirname "$0")/../.." && pwd)/build/agentbox}
# A skip is a failure in CI: nothing CI can provide may be skipped there.
skip() { echo "skip: $1"; [[ "${CI:-}" == "true" ]] && exit 1; exit 77; }
command -v curl >/dev/null || skip "curl missing"
"$AGENTBOX" doctor >/dev/null 2>&1 || skip "agentbox doctor fails here"

# The run's dir, with a reaper that stops the server and removes its sandboxes if this script is
# killed (tests/lib/run_guard.sh); a killed earlier run's leftovers are swept here first.
# shellcheck source=tests/lib/run_guard.sh
source "$(dirname "$0")/../lib/run_guard.sh"
guard_start e2e_serve || exit 1
WORK=$GUARD_DIR/w
mkdir -p "$WORK"
export AGENTBOX_STATE_DIR=$WORK/state
# The run's own cgroup parent: its sandboxes' processes are told from anyone else's by it.
export AGENTBOX_CGROUP_PARENT=abt-e2e-serve-$$
guard_cgroup "$AGENTBOX_CGROUP_PARENT"
mkdir -p "$AGENTBOX_STATE_DIR"
SOCK=$AGENTBOX_STATE_DIR/agentbox.sock
PASS=0 FAIL=0
SERVER_PID=

ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1${2:+: $2}"; }
check() { if eval "$2"; then ok "$1"; else bad "$1" "${3:-}"; fi; }

cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  for id in $("$AGENTBOX" ls --json 2>/dev/null | python3 -c 'import json,sys; [print(s["id"]) for s in json.load(sys.stdin)]' 2>/dev/null); do
    "$AGENTBOX" rm -f "$id" >/dev/null 2>&1
  done
  guard_end
}
trap cleanup EXIT

start_server() {  # args: serve flags
  guard_bg "$AGENTBOX" serve "$@" 2>>"$WORK/server.log"
  SERVER_PID=$GUARD_BG_PID
  guard_track "$SERVER_PID"
  for _ in $(seq 600); do
    grep -q "listening on" "$WORK/server.log" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}
# ours CMDLINE: a process of this run's sandboxes (in a cgroup below the run's own cgroup parent,
# so another run's or the user's processes never count) whose whole command line is CMDLINE.
ours() {
  local pid cmd
  while read -r pid cmd; do [[ $cmd == "$1" ]] && return 0; done < <(guard_procs_in "$AGENTBOX_CGROUP_PARENT")
  return 1
}
# gone CMDLINE / running CMDLINE: none / one of ours, waited for (a 20 s hang guard): what a
# case needs before it looks, not a guessed delay.
gone() { for _ in $(seq 400); do ours "$1" || return 0; sleep 0.05; done; return 1; }
running() { for _ in $(seq 400); do ours "$1" && return 0; sleep 0.05; done; return 1; }
stop_server() { kill -TERM "$SERVER_PID"; wait "$SERVER_PID"; local rc=$?; SERVER_PID=; : > "$WORK/server.log"; return $rc; }

# Bodies are JSON (the server refuses any other type on a JSON route): both helpers say so.
J=(-H 'Content-Type: application/json')
U() { curl -sS --unix-socket "$SOCK" "${J[@]}" "$@"; }              # unix socket client
code() { curl -s -o "$WORK/body" -w '%{http_code}' "${J[@]}" "$@"; }  # prints the status only
codef() { curl -s -o "$WORK/body" -w '%{http_code}' "$@"; }         # the same, for file bodies
jq_() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# ---- unix socket --------------------------------------------------------------------------
start_server --access-log "$WORK/access.log" || { bad "server starts" "$(cat "$WORK/server.log")"; echo "$PASS passed, $FAIL failed"; exit 1; }
check "socket is 0600" '[ "$(stat -c %a "$SOCK")" = 600 ]'
check "healthz" '[ "$(U http://x/healthz)" = ok ]'
ID=$(U -d '{"name":"e2e1","timeout":20}' http://x/v1/sandboxes | jq_ 'd["id"]')
check "create -> id" '[ -n "$ID" ]'
check "create 201" '[ "$(code --unix-socket "$SOCK" -d "{}" http://x/v1/sandboxes)" = 201 ]'
ID2=$(jq_ 'd["id"]' < "$WORK/body")
check "without --backend a create naming none is native" '[ "$(jq_ "d[\"backend\"]" < "$WORK/body")" = native ]'
# A stream silent for 15 s: SSE gets keep-alive comments, NDJSON (every line JSON) none; checked
# below, while the other cases run.
U -N -d '{"argv":["sh","-c","sleep 15.5; echo awake"],"stream":"sse"}' http://x/v1/sandboxes/$ID/exec > "$WORK/quiet_sse" &
QUIET_SSE=$!
U -N -d '{"argv":["sh","-c","sleep 15.5; echo awake"],"stream":"ndjson"}' http://x/v1/sandboxes/$ID/exec > "$WORK/quiet_ndjson" &
QUIET_NDJSON=$!
check "list" 'U http://x/v1/sandboxes | grep -q "\"$ID\""'
check "inspect by name" '[ "$(U http://x/v1/sandboxes/e2e1 | jq_ "d[\"id\"]")" = "$ID" ]'
check "duplicate name 409" '[ "$(code --unix-socket "$SOCK" -d "{\"name\":\"e2e1\"}" http://x/v1/sandboxes)" = 409 ]'
R=$(U -d '{"argv":["sh","-c","echo hi; echo oops >&2; cat; exit 3"],"stdin":"IN"}' http://x/v1/sandboxes/$ID/exec)
check "exec JSON result" '[ "$(echo "$R" | jq_ "(d[\"exit_code\"], d[\"stdout\"], d[\"stderr\"], d[\"reason\"])")" = "(3, '"'"'hi\\nIN'"'"', '"'"'oops\\n'"'"', '"'"'exited'"'"')" ]' "$R"
R=$(U -N -d '{"argv":["sh","-c","echo a; sleep 0.3; echo b >&2"],"stream":"ndjson"}' http://x/v1/sandboxes/$ID/exec)
check "exec NDJSON stream" '[ "$(echo "$R" | python3 -c "import json,sys; print([json.loads(l)[\"type\"] for l in sys.stdin])")" = "['"'"'stdout'"'"', '"'"'stderr'"'"', '"'"'result'"'"']" ]' "$R"
R=$(U -N -H 'Accept: text/event-stream' -d '{"argv":["echo","sse"]}' http://x/v1/sandboxes/$ID/exec)
check "exec SSE stream" 'echo "$R" | grep -q "^event: result" && echo "$R" | grep -q "^data: {\"type\":\"stdout\",\"data\":\"sse\\\\n\"}"' "$R"
# A failure once a stream has begun cannot change its 200: the result event says why, with the
# code an API error would have had.
R=$(U -N -d '{"argv":["true"],"cwd":"/workspace/no-such-dir","stream":"ndjson"}' http://x/v1/sandboxes/$ID/exec)
check "streamed error carries its code" '[ "$(echo "$R" | tail -n 1 | jq_ "(d[\"result\"][\"reason\"], d[\"result\"][\"error_code\"])")" = "('"'"'error'"'"', '"'"'not_found'"'"')" ]' "$R"
# The effect report: the workspace's changes and the walls, with their rules (docs/api.md).
R=$(U -d '{"argv":["sh","-c","echo x > eff.txt; unshare -r true; sleep 2"],"timeout":0.5}' http://x/v1/sandboxes/$ID/exec)
check "exec result has effects: workspace change" 'echo "$R" | jq_ "[c[\"path\"] for c in d[\"effects\"][\"workspace\"][\"changes\"]]" | grep -q "/workspace/eff.txt"' "$R"
check "exec result has effects: seccomp and timeout walls" '[ "$(echo "$R" | jq_ "sorted(w[\"rule\"] for w in d[\"effects\"][\"walls\"])")" = "['"'"'seccomp: unshare'"'"', '"'"'timeout 0.5s'"'"']" ]' "$R"
check "exec timeout" '[ "$(U -d "{\"argv\":[\"sleep\",\"5\"],\"timeout\":0.3}" http://x/v1/sandboxes/$ID/exec | jq_ "d[\"reason\"]")" = timeout ]'
check "verify: isolation report ok" '[ "$(U http://x/v1/sandboxes/$ID/verify | jq_ "(d[\"id\"] == \"$ID\", d[\"ok\"], len(d[\"checks\"]) > 20)")" = "(True, True, True)" ]'
check "verify unknown sandbox 404" '[ "$(code --unix-socket "$SOCK" http://x/v1/sandboxes/nosuch/verify)" = 404 ]'
printf 'hello\nworld\n' > "$WORK/f.txt"
check "PUT file" '[ "$(codef --unix-socket "$SOCK" -T "$WORK/f.txt" "http://x/v1/sandboxes/$ID/files?path=dir/f.txt")" = 200 ]'
check "GET file" '[ "$(U "http://x/v1/sandboxes/$ID/files?path=dir/f.txt")" = "$(cat "$WORK/f.txt")" ]'
check "list dir" 'U "http://x/v1/sandboxes/$ID/files?path=dir&list=1" | grep -q "\"name\":\"f.txt\""'
check "edit file" '[ "$(code --unix-socket "$SOCK" -d "{\"path\":\"dir/f.txt\",\"old_str\":\"world\",\"new_str\":\"there\"}" http://x/v1/sandboxes/$ID/files/edit)" = 200 ] && U "http://x/v1/sandboxes/$ID/files?path=dir/f.txt" | grep -q there'
check "exec sees the file" 'U -d "{\"argv\":[\"cat\",\"dir/f.txt\"]}" http://x/v1/sandboxes/$ID/exec | grep -q "hello\\\\nthere"'
check "edit no match 400" '[ "$(code --unix-socket "$SOCK" -d "{\"path\":\"dir/f.txt\",\"old_str\":\"zzz\",\"new_str\":\"y\"}" http://x/v1/sandboxes/$ID/files/edit)" = 400 ]'
check "path escape 403" '[ "$(code --unix-socket "$SOCK" "http://x/v1/sandboxes/$ID/files?path=../../etc/passwd")" = 403 ]'
check "DELETE file" '[ "$(code --unix-socket "$SOCK" -X DELETE "http://x/v1/sandboxes/$ID/files?path=dir/f.txt")" = 200 ] && [ "$(code --unix-socket "$SOCK" "http://x/v1/sandboxes/$ID/files?path=dir/f.txt")" = 404 ]'
# Snapshots (docs/api.md): create, rollback of a failing exec, diff, restore, fork, log, 404s. In
# a sandbox of their own: $ID has the quiet streams above running, and a rollback or restore is
# refused (409) while another command runs.
SID=$(U -d "{}" http://x/v1/sandboxes | jq_ 'd["id"]')
U -d '{"argv":["sh","-c","echo keep > snapfile"]}' http://x/v1/sandboxes/$SID/exec >/dev/null
check "snapshot 201" '[ "$(code --unix-socket "$SOCK" -d "{\"name\":\"s1\"}" http://x/v1/sandboxes/$SID/snapshots)" = 201 ] && grep -q "\"name\":\"s1\"" "$WORK/body"'
R=$(U -d '{"argv":["sh","-c","rm snapfile; echo junk > junk; exit 2"],"rollback_on_failure":true}' http://x/v1/sandboxes/$SID/exec)
check "exec rollback_on_failure rolls back" '[ "$(echo "$R" | jq_ "(d[\"exit_code\"], d[\"rollback\"])")" = "(2, {'"'"'rolled_back'"'"': True})" ] && [ "$(U "http://x/v1/sandboxes/$SID/files?path=snapfile")" = keep ]' "$R"
U -d '{"argv":["sh","-c","echo later > later"]}' http://x/v1/sandboxes/$SID/exec >/dev/null
check "snapshot diff" '[ "$(U http://x/v1/sandboxes/$SID/snapshots/s1/diff | jq_ "[(c[\"path\"], c[\"change\"]) for c in d[\"changes\"]]")" = "[('"'"'later'"'"', '"'"'created'"'"')]" ]'
check "snapshot restore" '[ "$(code --unix-socket "$SOCK" -X POST http://x/v1/sandboxes/$SID/snapshots/s1/restore)" = 200 ] && [ "$(code --unix-socket "$SOCK" "http://x/v1/sandboxes/$SID/files?path=later")" = 404 ]'
check "snapshot fork 201" '[ "$(code --unix-socket "$SOCK" -d "{\"name\":\"e2efork\"}" http://x/v1/sandboxes/$SID/snapshots/s1/fork)" = 201 ] && [ "$(U "http://x/v1/sandboxes/e2efork/files?path=snapfile")" = keep ]'
check "unknown snapshot 404" '[ "$(code --unix-socket "$SOCK" -X POST http://x/v1/sandboxes/$SID/snapshots/nosuch/restore)" = 404 ]'
check "session log" 'U http://x/v1/sandboxes/$SID/log | python3 -c "import json,sys; r=[json.loads(l) for l in sys.stdin]; assert {\"exec\",\"snapshot\",\"restore\"} <= {x[\"op\"] for x in r}"'
check "snapshot delete" '[ "$(code --unix-socket "$SOCK" -X DELETE http://x/v1/sandboxes/$SID/snapshots/s1)" = 200 ] && [ "$(U http://x/v1/sandboxes/$SID/snapshots | jq_ "d[\"snapshots\"]")" = "[]" ]'
U -X DELETE "http://x/v1/sandboxes/e2efork?force=true" >/dev/null
U -X DELETE "http://x/v1/sandboxes/$SID?force=true" >/dev/null
check "malformed JSON 400" '[ "$(code --unix-socket "$SOCK" -d "{nope" http://x/v1/sandboxes/$ID/exec)" = 400 ] && grep -q "\"error\"" "$WORK/body"'
check "unknown key 400" '[ "$(code --unix-socket "$SOCK" -d "{\"argv\":[\"x\"],\"bogus\":1}" http://x/v1/sandboxes/$ID/exec)" = 400 ]'
check "unknown sandbox 404" '[ "$(code --unix-socket "$SOCK" -d "{\"argv\":[\"true\"]}" http://x/v1/sandboxes/nosuch/exec)" = 404 ]'
check "unknown route 404" '[ "$(code --unix-socket "$SOCK" http://x/v1/nothing)" = 404 ]'
head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' 'a' > "$WORK/big.json"
check "JSON body > 1 MiB 413" '[ "$(code --unix-socket "$SOCK" --data-binary @"$WORK/big.json" http://x/v1/sandboxes/$ID/exec)" = 413 ]'
head -c $((65 * 1024 * 1024)) /dev/zero > "$WORK/big.bin"
check "file body > 64 MiB 413" '[ "$(codef --unix-socket "$SOCK" -T "$WORK/big.bin" "http://x/v1/sandboxes/$ID/files?path=big")" = 413 ]'
# Tar streams (GET/PUT .../archive), bounded as file bodies are: 64 MiB each way.
check "archive: GET a directory as tar, PUT it back elsewhere" 'U -d "{\"argv\":[\"sh\",\"-c\",\"mkdir -p t/s && echo one > t/a && echo two > t/s/b && mkdir u\"]}" http://x/v1/sandboxes/$ID/exec >/dev/null &&
  U "http://x/v1/sandboxes/$ID/archive?path=t" > "$WORK/t.tar" && tar -tf "$WORK/t.tar" | sort | paste -sd" " | grep -qx "t/ t/a t/s/ t/s/b" &&
  [ "$(codef --unix-socket "$SOCK" -X PUT -H "Content-Type: application/x-tar" --data-binary @"$WORK/t.tar" "http://x/v1/sandboxes/$ID/archive?path=u")" = 200 ] &&
  U -d "{\"argv\":[\"cat\",\"u/t/s/b\"]}" http://x/v1/sandboxes/$ID/exec | grep -q "two"'
check "archive: GET of more than 64 MiB 413" 'U -d "{\"argv\":[\"sh\",\"-c\",\"mkdir -p huge && head -c 70M /dev/zero > huge/z\"]}" http://x/v1/sandboxes/$ID/exec >/dev/null &&
  [ "$(codef --unix-socket "$SOCK" "http://x/v1/sandboxes/$ID/archive?path=huge")" = 413 ] && grep -q resource_exhausted "$WORK/body" &&
  U -d "{\"argv\":[\"rm\",\"-r\",\"huge\"]}" http://x/v1/sandboxes/$ID/exec >/dev/null'
tar -cf "$WORK/big.tar" -C "$WORK" big.bin
check "archive: PUT of more than 64 MiB 413" '[ "$(codef --unix-socket "$SOCK" -X PUT -H "Content-Type: application/x-tar" --data-binary @"$WORK/big.tar" "http://x/v1/sandboxes/$ID/archive?path=u")" = 413 ]'
raw() { python3 -c 'import codecs,socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(codecs.decode(sys.argv[2], "unicode_escape").encode("latin-1")); print(s.recv(100).decode().split("\r\n")[0])' "$SOCK" "$1"; }
check "garbage request 400" '[ "$(raw "GARBAGE\r\n\r\n")" = "HTTP/1.1 400 Bad Request" ]'
check "smuggling (CL + TE) 400" '[ "$(raw "POST /v1/sandboxes HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n")" = "HTTP/1.1 400 Bad Request" ]'
check "head > 16 KiB 431" '[ "$(raw "GET /healthz HTTP/1.1\r\nX: $(head -c 20000 /dev/zero | tr "\0" a)\r\n\r\n")" = "HTTP/1.1 431 Request Header Fields Too Large" ]'
check "still serving after bad input" '[ "$(U http://x/healthz)" = ok ]'

# A client that hangs up kills its command, waiting for a JSON result or streaming.
curl -s "${J[@]}" --unix-socket "$SOCK" --max-time 1 -d '{"argv":["sleep","31.5"]}' http://x/v1/sandboxes/$ID/exec >/dev/null
curl -s "${J[@]}" --unix-socket "$SOCK" --max-time 1 -N -d '{"argv":["sleep","32.5"],"stream":"ndjson"}' http://x/v1/sandboxes/$ID/exec >/dev/null
check "disconnect kills the command (JSON)" 'gone "sleep 31.5"'
check "disconnect kills the command (stream)" 'gone "sleep 32.5"'
# The terminal over a WebSocket (GET .../exec/tty), driven by tests/e2e/ws_client.py (Python's
# standard library only). wsok EXPR: the Python EXPR holds of the client's JSON line $R.
WSC=$(dirname "$0")/ws_client.py
ws() { timeout 60 python3 "$WSC" "unix:$SOCK" "$@"; }
wsok() { python3 -c 'import json,sys; r=json.loads(sys.argv[1]); sys.exit(0 if eval(sys.argv[2]) else 1)' "$R" "$1"; }
T=/v1/sandboxes/$ID/exec/tty
R=$(ws $T 'text:{"argv":["sh","-c","tty; echo \"$TERM\"; stty size; exit 3"],"rows":33,"cols":101}')
E="r['status'] == 101 and '/dev/pts/' in r['output'] and 'xterm' in r['output'] and '33 101' in r['output'] and r['texts'][-1]['result']['exit_code'] == 3 and r['close'] == 1000"
check "tty: 101, a PTY of the size asked, TERM, the exit status in the result, close 1000" 'wsok "$E"' "$R"
R=$(ws $T 'early:{"argv":["sh","-c","trap \"stty size; echo resized\" WINCH; trap \"echo got-int; exit 7\" INT; echo ready; while :; do sleep 0.1; done"]}' \
  'wait:ready' 'ping:p1' 'text:{"type":"resize","rows":40,"cols":120}' 'wait:resized' 'keys:\x03')
E="r['pongs'] == ['p1'] and '40 120' in r['output'] and 'got-int' in r['output'] and r['texts'][-1]['result']['exit_code'] == 7"
check "tty: frames sent before the 101, a pong, a resize as SIGWINCH, Ctrl-C reaching the command" 'wsok "$E"' "$R"
R=$(ws $T 'fragments:{"argv":["cat"]}' 'keys:abc\r' 'wait:abc' 'text:{"type":"eof"}')
E="r['pongs'] == ['mid'] and r['texts'][-1]['result']['reason'] == 'exited' and r['texts'][-1]['result']['exit_code'] == 0"
check "tty: a fragmented first message (a ping between), eof ends cat's input" 'wsok "$E"' "$R"
R=$(ws $T 'text:{"argv":["sleep","30.25"],"timeout":0.5}')
E="r['texts'][-1]['result']['reason'] == 'timeout' and r['texts'][-1]['result']['exit_code'] == 124 and r['close'] == 1000"
check "tty: timeout" 'wsok "$E" && gone "sleep 30.25"' "$R"
for first in 'text:{"argv":["sh"],"bogus":1}' 'text:{"argv":["sh"],"stdin":"x"}' 'text:{nope' 'keys:binary'; do
  R=$(ws $T "$first")
  E="[(t['type'], t['code']) for t in r['texts']] == [('error', 'invalid_argument')] and r['close'] == 1008"
  check "tty: first message $first: error message (invalid_argument), close 1008" 'wsok "$E"' "$R"
done
R=$(ws $T 'text:{"argv":["sh","-c","echo ready; sleep 39.75"]}' 'wait:ready' 'text:{"type":"resize","rows":0,"cols":80}')
E="r['texts'][-1]['code'] == 'invalid_argument' and r['close'] == 1008"
check "tty: a bad message mid-command: error, close 1008, the command killed" 'wsok "$E" && gone "sleep 39.75"' "$R"
R=$(ws $T 'text:{"argv":["sh","-c","echo ready; sleep 39.6"]}' 'wait:ready' 'raw:8105414243444546')
check "tty: an unmasked frame: close 1002, the command killed" 'wsok "r[\"close\"] == 1002" && gone "sleep 39.6"' "$R"
ws $T 'text:{"argv":["sh","-c","echo ready; sleep 39.5"]}' 'wait:ready' gone >/dev/null
check "tty: a client that vanishes gets its command's tree killed" 'gone "sleep 39.5"'
ws $T 'text:{"argv":["sh","-c","echo ready; sleep 39.25"]}' 'wait:ready' close >/dev/null
check "tty: a client's close kills its command too" 'gone "sleep 39.25"'
R=$(ws /v1/sandboxes/nosuch/exec/tty 'text:{}')
check "tty: unknown sandbox 404 before the upgrade" 'wsok "r[\"status\"] == 404 and json.loads(r[\"body\"])[\"code\"] == \"not_found\""' "$R"
R=$(WS_HEADERS="Origin: http://evil.example" ws $T 'text:{}')
check "tty: a foreign Origin 403 without tokens" 'wsok "r[\"status\"] == 403"' "$R"
check "tty: a plain GET is 426 with Upgrade: websocket" '[ "$(code --unix-socket "$SOCK" -D "$WORK/tty_head" http://x$T)" = 426 ] && grep -qi "^upgrade: websocket" "$WORK/tty_head" && grep -qi "^sec-websocket-version: 13" "$WORK/tty_head"'
M=$(U http://x/metrics)
check "metrics" 'echo "$M" | grep -q "^agentbox_sandboxes_live [1-9]" && echo "$M" | grep -q "^agentbox_execs_total{reason=\"exited\"}" && echo "$M" | grep -q "^agentbox_exec_duration_seconds_bucket{le=\"+Inf\"}"' "$M"
check "openapi" 'U http://x/v1/openapi.json | jq_ "d[\"openapi\"]" | grep -q "^3"'
# Busy is a conflict (409), and the hint is the API's own (?force=true), not the CLI's rm -f.
check "busy sandbox refuses DELETE without force: 409, an API hint" '(U -d "{\"argv\":[\"sleep\",\"20.25\"]}" http://x/v1/sandboxes/$ID2/exec >/dev/null &); running "sleep 20.25" && [ "$(code --unix-socket "$SOCK" -X DELETE http://x/v1/sandboxes/$ID2)" = 409 ] && jq_ "d[\"code\"]" <"$WORK/body" | grep -qx failed_precondition && grep -q "force=true" "$WORK/body" && ! grep -q "agentbox rm" "$WORK/body"'
check "DELETE sandbox force" '[ "$(code --unix-socket "$SOCK" -X DELETE "http://x/v1/sandboxes/$ID2?force=true")" = 200 ] && [ "$(code --unix-socket "$SOCK" http://x/v1/sandboxes/$ID2)" = 404 ]'

wait $QUIET_SSE $QUIET_NDJSON
check "exec SSE: a silent stream gets keep-alive comments" 'grep -qx ": keep-alive" "$WORK/quiet_sse" && tail -2 "$WORK/quiet_sse" | grep -q "^data: {\"type\":\"result\""' "$(cat "$WORK/quiet_sse")"
check "exec NDJSON: no keep-alive, every line JSON" 'python3 -c "import json,sys; t=[json.loads(l)[\"type\"] for l in open(sys.argv[1])]; assert t == [\"stdout\", \"result\"], t" "$WORK/quiet_ndjson"' "$(cat "$WORK/quiet_ndjson")"

# MCP over Streamable HTTP: a session, a tool call in its own sandbox, DELETE removes it.
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}'
SID=$(U -D - -o /dev/null -d "$INIT" http://x/mcp | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
check "mcp initialize gives a session" '[ -n "$SID" ]'
MH=(-H "Mcp-Session-Id: $SID")
check "mcp notification 202" '[ "$(code --unix-socket "$SOCK" "${MH[@]}" -d "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}" http://x/mcp)" = 202 ]'
check "mcp tools/list" 'U "${MH[@]}" -d "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}" http://x/mcp | grep -q "\"exec\""'
# A call silent for 15 s gets a keep-alive comment on its stream (checked below, meanwhile the
# other cases run: calls of a session run concurrently).
U -N -H 'Accept: text/event-stream' "${MH[@]}" -d '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"exec","arguments":{"command":"sleep 15.5; echo awake"}}}' http://x/mcp > "$WORK/quiet_body" &
QUIET=$!
R=$(U "${MH[@]}" -d '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"exec","arguments":{"command":"echo mcp-http"}}}' http://x/mcp)
check "mcp tools/call exec" 'echo "$R" | grep -q "mcp-http"' "$R"
# With Accept: text/event-stream the answer is an SSE stream: the call's progress notifications,
# then its response as the last event, then the end of the stream.
SSE_CALL='{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"exec","arguments":{"command":"echo sse-mcp; sleep 1.5"},"_meta":{"progressToken":"t1"}}}'
U -N -D "$WORK/sse_head" -H 'Accept: application/json, text/event-stream' "${MH[@]}" -d "$SSE_CALL" http://x/mcp > "$WORK/sse_body"
check "mcp SSE: Content-Type text/event-stream" 'grep -qi "^content-type: text/event-stream" "$WORK/sse_head"' "$(cat "$WORK/sse_head")"
sse_events() {  # prints each event's data as "method|id", checking the framing on the way
  python3 - "$WORK/sse_body" <<'PY'
import json, sys
for block in open(sys.argv[1]).read().split("\n\n"):
    if not block.strip(): continue
    lines = block.split("\n")
    assert lines[0] == "event: message" and lines[1].startswith("data: ") and len(lines) == 2, block
    m = json.loads(lines[1][6:])
    print(m.get("method", ""), m.get("id", ""), "sse-mcp" in json.dumps(m.get("result", "")), sep="|")
PY
}
check "mcp SSE: progress events, then the response last" '[ "$(sse_events | sed "\$d" | sort -u)" = "notifications/progress||False" ] && [ "$(sse_events | tail -1)" = "|5|True" ]' "$(cat "$WORK/sse_body")"
check "mcp GET 405 with Allow" '[ "$(code --unix-socket "$SOCK" -D "$WORK/get_head" "${MH[@]}" -H "Accept: text/event-stream" http://x/mcp)" = 405 ] && grep -qi "^allow: POST, DELETE" "$WORK/get_head" && grep -q "no server-initiated SSE stream" "$WORK/body"'
check "mcp unsupported MCP-Protocol-Version 400" '[ "$(code --unix-socket "$SOCK" "${MH[@]}" -H "MCP-Protocol-Version: 1999-01-01" -d "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}" http://x/mcp)" = 400 ]'
check "mcp supported MCP-Protocol-Version 200" '[ "$(code --unix-socket "$SOCK" "${MH[@]}" -H "MCP-Protocol-Version: 2025-06-18" -d "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}" http://x/mcp)" = 200 ]'
# notifications/cancelled on another connection kills the call's command; its stream then ends
# with no response (MCP answers no cancelled request). A client that hangs up kills its call too.
U -N -H 'Accept: text/event-stream' "${MH[@]}" -d '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"exec","arguments":{"command":"sleep 34.5"}}}' http://x/mcp > "$WORK/cancelled_body" &
CALL=$!
running "sleep 34.5"
check "mcp cancel: the notification gets 202" '[ "$(code --unix-socket "$SOCK" "${MH[@]}" -d "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":8}}" http://x/mcp)" = 202 ]'
timeout 5 tail --pid=$CALL -f /dev/null; kill $CALL 2>/dev/null
check "mcp cancel: command killed, stream ended without a response" 'gone "sleep 34.5" && ! grep -q "\"id\":8" "$WORK/cancelled_body"' "$(cat "$WORK/cancelled_body")"
curl -s "${J[@]}" --unix-socket "$SOCK" --max-time 1 -N -H 'Accept: text/event-stream' "${MH[@]}" -d '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"exec","arguments":{"command":"sleep 35.5"}}}' http://x/mcp >/dev/null
check "mcp: a client that hangs up gets its command killed" 'gone "sleep 35.5"'
PING='{"jsonrpc":"2.0","id":11,"method":"ping"}'
check "mcp: a foreign Origin is 403 without tokens (DNS rebinding)" '[ "$(code --unix-socket "$SOCK" "${MH[@]}" -H "Origin: http://evil.example:8080" -d "$PING" http://x/mcp)" = 403 ]'
check "mcp: a loopback Origin passes" '[ "$(code --unix-socket "$SOCK" "${MH[@]}" -H "Origin: http://localhost:6274" -d "$PING" http://x/mcp)" = 200 ]'
check "mcp unknown session 404" '[ "$(code --unix-socket "$SOCK" -H "Mcp-Session-Id: nope" -d "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}" http://x/mcp)" = 404 ]'
wait $QUIET
check "mcp SSE: a silent call's stream gets keep-alive comments" 'grep -qx ": keep-alive" "$WORK/quiet_body" && tail -2 "$WORK/quiet_body" | grep -q "awake"' "$(cat "$WORK/quiet_body")"
# The access log: one JSON line per request, who/what/sandbox/status/duration, an exec's reason,
# an MCP call's method and tool, and never a command's output or arguments.
U -d '{"argv":["sh","-c","echo access-log-output-8fe1"]}' http://x/v1/sandboxes/$ID/exec >/dev/null
U "${MH[@]}" -d '{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo mcp-argument-3c7d"}}}' http://x/mcp >/dev/null
log_has() { python3 - "$WORK/access.log" "$1" <<'PYEOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if any(eval(sys.argv[2], {}, {"r": r}) for r in lines) else 1)
PYEOF
}
check "access log: every line is JSON with time, method, path, status" 'log_has "set(r) >= {\"time\", \"tenant\", \"method\", \"path\", \"status\", \"duration_ms\"}"' "$(tail -3 "$WORK/access.log")"
check "access log: an exec names its sandbox, status and reason" 'log_has "r[\"path\"] == \"/v1/sandboxes/$ID/exec\" and r[\"sandbox\"] == \"$ID\" and r[\"status\"] == 200 and r[\"reason\"] == \"exited\" and r[\"exit_code\"] == 0 and r[\"tenant\"] is None"' "$(grep exec "$WORK/access.log" | tail -2)"
check "access log: an MCP call names its method, tool and sandbox" 'log_has "r[\"path\"] == \"/mcp\" and r.get(\"rpc\") == \"tools/call\" and r.get(\"tool\") == \"bash\" and len(r.get(\"sandbox\", \"\")) > 0"' "$(grep mcp "$WORK/access.log" | tail -2)"
check "access log: healthz, answered at the door, has its line too" 'log_has "r[\"path\"] == \"/healthz\" and r[\"status\"] == 200"'
check "access log: no output, no arguments, no session id" '! grep -q "access-log-output-8fe1\|mcp-argument-3c7d\|$SID" "$WORK/access.log"'
check "access log: a terminal's line has 101, its sandbox and exit code" 'log_has "r[\"path\"] == \"$T\" and r[\"status\"] == 101 and r[\"sandbox\"] == \"$ID\" and r.get(\"exit_code\") == 3"' "$(grep exec/tty "$WORK/access.log" | head -2)"
# Background processes: exec "detach", then /processes (list, get, logs, wait, kill, stdin).
P=http://x/v1/sandboxes/$ID/processes
pj() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print($2)" "$1"; }  # JSON TEXT EXPR
R=$(curl -s -D "$WORK/detach_head" --unix-socket "$SOCK" "${J[@]}" -d '{"argv":["sh","-c","echo one; echo two >&2; sleep 3; echo three; exit 5"],"detach":true}' http://x/v1/sandboxes/$ID/exec)
PA=$(pj "$R" 'd["id"]' 2>/dev/null)
check "detach: 201, Location and a running process" 'head -1 "$WORK/detach_head" | grep -q " 201 " && grep -qi "^location: /v1/sandboxes/$ID/processes/$PA" "$WORK/detach_head" && [ "$(pj "$R" "(d[\"state\"], d[\"result\"], d[\"argv\"][0])")" = "('"'"'running'"'"', None, '"'"'sh'"'"')" ]' "$R $(cat "$WORK/detach_head")"
check "processes: list holds it" '[ "$(U $P | jq_ "[p[\"id\"] for p in d[\"processes\"]]")" = "['"'"'$PA'"'"']" ]' "$(U $P)"
check "processes: get one" '[ "$(U $P/$PA | jq_ "d[\"id\"]")" = "$PA" ]'
for _ in $(seq 100); do [ "$(U $P/$PA | jq_ 'd["output_bytes"]')" -ge 8 ] && break; sleep 0.05; done
R=$(U -N $P/$PA/logs)
check "logs: the ring so far, then the process event (no follow: ends at once)" '[ "$(echo "$R" | python3 -c "import json,sys; e=[json.loads(l) for l in sys.stdin]; print([(x[\"type\"], x.get(\"data\")) for x in e[:-1]], e[-1][\"type\"], e[-1][\"from\"], e[-1][\"next\"], e[-1][\"process\"][\"state\"])")" = "[('"'"'stdout'"'"', '"'"'one\\n'"'"'), ('"'"'stderr'"'"', '"'"'two\\n'"'"')] process 0 8 running" ]' "$R"
R=$(U -N "$P/$PA/logs?follow=1&since=4")
check "logs follow=1 since=4: the rest until it exits" '[ "$(echo "$R" | python3 -c "import json,sys; e=[json.loads(l) for l in sys.stdin]; print(\"\".join(x.get(\"data\", \"\") for x in e[:-1]), e[-1][\"from\"], e[-1][\"next\"], e[-1][\"process\"][\"state\"], e[-1][\"process\"][\"result\"][\"exit_code\"])" | tr "\n" " ")" = "two three  4 14 exited 5 " ]' "$R"
R=$(U -N -H 'Accept: text/event-stream' $P/$PA/logs)
check "logs as SSE" 'echo "$R" | grep -q "^event: process" && echo "$R" | grep -q "^data: {\"type\":\"stdout\",\"data\":\"one\\\\n\"}"' "$R"
R=$(U -X POST "$P/$PA/wait?timeout=5")
check "wait: exited, its result" '[ "$(pj "$R" "(d[\"state\"], d[\"result\"][\"exit_code\"], d[\"result\"][\"reason\"], \"stdout\" in d[\"result\"])")" = "('"'"'exited'"'"', 5, '"'"'exited'"'"', False)" ]' "$R"
R=$(U -d '{"argv":["sleep","37.5"],"detach":true}' http://x/v1/sandboxes/$ID/exec)
PS=$(pj "$R" 'd["id"]')
running "sleep 37.5"
R=$(U -X POST "$P/$PS/wait?timeout=0.3")
check "wait timeout: still running after it" '[ "$(pj "$R" "(d[\"state\"], d[\"result\"])")" = "('"'"'running'"'"', None)" ]' "$R"
check "kill TERM: 200, then it is signaled and gone" '[ "$(code --unix-socket "$SOCK" -d "{\"signal\":\"TERM\"}" $P/$PS/kill)" = 200 ] && [ "$(U -X POST "$P/$PS/wait?timeout=5" | jq_ "(d[\"result\"][\"reason\"], d[\"result\"][\"signal\"])")" = "('"'"'signaled'"'"', 15)" ] && gone "sleep 37.5"' "$(cat "$WORK/body")"
check "kill of an exited process 400" '[ "$(code --unix-socket "$SOCK" -X POST $P/$PS/kill)" = 400 ] && grep -q "already exited" "$WORK/body"'
R=$(U -d '{"argv":["cat"],"detach":true,"interactive":true}' http://x/v1/sandboxes/$ID/exec)
PC=$(pj "$R" 'd["id"]')
O=(-H 'Content-Type: application/octet-stream')
check "interactive: stdin open" '[ "$(pj "$R" "d[\"stdin_open\"]")" = True ]' "$R"
check "stdin: bytes to cat" '[ "$(curl -s -o "$WORK/body" -w "%{http_code}" --unix-socket "$SOCK" "${O[@]}" --data-binary "hello " $P/$PC/stdin)" = 200 ]' "$(cat "$WORK/body")"
check "stdin close=1: cat reads EOF and exits 0" '[ "$(curl -s -o "$WORK/body" -w "%{http_code}" --unix-socket "$SOCK" "${O[@]}" --data-binary "cat" "$P/$PC/stdin?close=1")" = 200 ] && [ "$(jq_ "d[\"stdin_open\"]" < "$WORK/body")" = False ] && [ "$(U -X POST "$P/$PC/wait?timeout=5" | jq_ "(d[\"state\"], d[\"result\"][\"exit_code\"])")" = "('"'"'exited'"'"', 0)" ]' "$(cat "$WORK/body")"
check "stdin: cat echoed it" '[ "$(U $P/$PC/logs | python3 -c "import json,sys; print(\"\".join(json.loads(l).get(\"data\", \"\") for l in sys.stdin))")" = "hello cat" ]' "$(U $P/$PC/logs)"
check "stdin after close 400" '[ "$(codef --unix-socket "$SOCK" "${O[@]}" --data-binary x $P/$PC/stdin)" = 400 ]'
head -c $((1024 * 1024 + 1)) /dev/zero > "$WORK/stdin.big"
check "stdin > 1 MiB 413" '[ "$(codef --unix-socket "$SOCK" "${O[@]}" --data-binary @"$WORK/stdin.big" $P/$PC/stdin)" = 413 ]'
R=$(U -d '{"argv":["/no/such/cmd"],"detach":true}' http://x/v1/sandboxes/$ID/exec)
PN=$(pj "$R" 'd["id"]')
check "detach of a command that cannot run: exited, its logs say why" '[ "$(pj "$R" "(d[\"state\"], d[\"result\"][\"exit_code\"])")" = "('"'"'exited'"'"', 127)" ] && U $P/$PN/logs | grep -q "no/such/cmd"' "$R"
# An exited process's ring larger than a keeper's 64 KiB per-client backlog: no new output wakes
# the keeper then, so it must go on sending by itself (it used to stop after the first 64 KiB).
R=$(U -d '{"argv":["python3","-c","print(999999*chr(120))"],"detach":true}' http://x/v1/sandboxes/$ID/exec)
PB=$(pj "$R" 'd["id"]')
U -X POST "$P/$PB/wait?timeout=30" >/dev/null
logs_sum() { curl -sS -m 10 --unix-socket "$SOCK" "$1" | python3 -c 'import json,sys; e=[json.loads(l) for l in sys.stdin]; print(sum(len(x.get("data", "")) for x in e[:-1]), e[-1]["type"], e[-1].get("from"), e[-1].get("next"))'; }
check "logs of an exited process's 1 MB: all of it" '[ "$(logs_sum $P/$PB/logs)" = "1000000 process 0 1000000" ]' "$(logs_sum $P/$PB/logs 2>&1 | tail -c 300)"
check "logs follow=1 of it, 4 clients at once: all of it each" '[ "$( (for _ in 1 2 3 4; do logs_sum "$P/$PB/logs?follow=1" & done; wait) | sort -u)" = "1000000 process 0 1000000" ]'
check "bad process id 400" '[ "$(code --unix-socket "$SOCK" $P/x1)" = 400 ] && [ "$(code --unix-socket "$SOCK" $P/x1/logs)" = 400 ] && grep -q "\"code\":\"invalid_argument\"" "$WORK/body"'
check "unknown process 404" '[ "$(code --unix-socket "$SOCK" $P/p999)" = 404 ] && [ "$(code --unix-socket "$SOCK" $P/p999/logs)" = 404 ] && [ "$(code --unix-socket "$SOCK" -X POST $P/p999/wait)" = 404 ] && [ "$(code --unix-socket "$SOCK" -X POST $P/p999/kill)" = 404 ]'
check "processes of an unknown sandbox 404" '[ "$(code --unix-socket "$SOCK" http://x/v1/sandboxes/nosuch/processes)" = 404 ] && [ "$(code --unix-socket "$SOCK" -X POST http://x/v1/sandboxes/nosuch/processes/p1/kill)" = 404 ]'
check "bad signal 400, STOP 400" '[ "$(code --unix-socket "$SOCK" -d "{\"signal\":\"BOGUS\"}" $P/$PA/kill)" = 400 ] && [ "$(code --unix-socket "$SOCK" -d "{\"signal\":\"STOP\"}" $P/$PA/kill)" = 400 ]'
check "detach refuses stdin, stream; interactive needs detach (400)" '[ "$(code --unix-socket "$SOCK" -d "{\"argv\":[\"x\"],\"detach\":true,\"stdin\":\"a\"}" http://x/v1/sandboxes/$ID/exec)" = 400 ] && [ "$(code --unix-socket "$SOCK" -d "{\"argv\":[\"x\"],\"detach\":true,\"stream\":\"ndjson\"}" http://x/v1/sandboxes/$ID/exec)" = 400 ] && [ "$(code --unix-socket "$SOCK" -d "{\"argv\":[\"x\"],\"interactive\":true}" http://x/v1/sandboxes/$ID/exec)" = 400 ]'
check "detach: a timeout over the ceiling 400" '[ "$(code --unix-socket "$SOCK" -d "{\"argv\":[\"x\"],\"detach\":true,\"timeout\":7200}" http://x/v1/sandboxes/$ID/exec)" = 400 ] && grep -q ceiling "$WORK/body"'
check "bad since / wait timeout 400" '[ "$(code --unix-socket "$SOCK" "$P/$PA/logs?since=-1")" = 400 ] && [ "$(code --unix-socket "$SOCK" -X POST "$P/$PA/wait?timeout=soon")" = 400 ]'
# A follower that hangs up: its request ends (its access-log line is written once the handler
# returns), the process runs on.
R=$(U -d '{"argv":["sh","-c","while :; do echo tick; sleep 0.2; done"],"detach":true}' http://x/v1/sandboxes/$ID/exec)
PT=$(pj "$R" 'd["id"]')
curl -s --unix-socket "$SOCK" --max-time 1 -N "$P/$PT/logs?follow=1" > "$WORK/follow_hangup"
logged_follow() { for _ in $(seq 100); do grep -q "\"path\":\"/v1/sandboxes/$ID/processes/$PT/logs\"" "$WORK/access.log" && return 0; sleep 0.05; done; return 1; }
check "follow: a client that hangs up ends the request, not the process" 'grep -q "\"tick\\\\n\"" "$WORK/follow_hangup" && logged_follow && [ "$(U $P/$PT | jq_ "d[\"state\"]")" = running ]' "$(cat "$WORK/follow_hangup")"
check "kill 9: the ticker ends" '[ "$(code --unix-socket "$SOCK" -d "{\"signal\":9}" $P/$PT/kill)" = 200 ] && [ "$(U -X POST "$P/$PT/wait?timeout=5" | jq_ "d[\"result\"][\"signal\"]")" = 9 ]'
check "access log: process requests name sandbox, proc and state" 'log_has "r[\"path\"] == \"/v1/sandboxes/$ID/processes/$PS/kill\" and r[\"sandbox\"] == \"$ID\" and r[\"proc\"] == \"$PS\" and r[\"signal\"] == \"TERM\" and r[\"status\"] == 200" && log_has "r[\"path\"] == \"/v1/sandboxes/$ID/exec\" and r.get(\"detach\") and r[\"proc\"] == \"$PA\" and r[\"status\"] == 201"' "$(grep processes "$WORK/access.log" | tail -3)"
M=$(U http://x/metrics)
check "metrics: 201s and 404s of these requests counted" 'echo "$M" | grep -q "^agentbox_http_requests_total{code=\"201\"} [1-9]" && echo "$M" | grep -q "^agentbox_http_requests_total{code=\"404\"} [1-9]"' "$(echo "$M" | grep http_requests)"
M=$(U http://x/metrics)
check "metrics: MCP tool calls counted, and their commands as execs" 'echo "$M" | grep -q "^agentbox_mcp_tool_calls_total{tool=\"bash\",result=\"ok\"} [1-9]" && echo "$M" | grep -q "^agentbox_mcp_tool_calls_total{tool=\"exec\",result=\"ok\"} [1-9]"' "$(echo "$M" | grep mcp_tool)"
N_BEFORE=$("$AGENTBOX" ls | wc -l)
check "mcp DELETE ends the session and its sandbox" '[ "$(code --unix-socket "$SOCK" -X DELETE "${MH[@]}" http://x/mcp)" = 204 ] && [ $("$AGENTBOX" ls | wc -l) -lt $N_BEFORE ]'

# SIGTERM: a request in flight finishes, then the server exits 0 and the socket is gone.
U -d '{"argv":["sh","-c","sleep 1.25; echo done"]}' http://x/v1/sandboxes/$ID/exec > "$WORK/inflight" &
CURL=$!
U -d '{"argv":["sleep","33.5"]}' http://x/v1/sandboxes/$ID/exec > "$WORK/overdue" &
CURL2=$!
# Both in flight (their commands run) when the signal comes.
running "sleep 1.25" && running "sleep 33.5"
kill -TERM "$SERVER_PID"; wait "$SERVER_PID"; RC=$?; SERVER_PID=
wait $CURL $CURL2
check "SIGTERM: exit 0" '[ $RC = 0 ]'
check "SIGTERM: request in flight finished" 'grep -q "done" "$WORK/inflight"' "$(cat "$WORK/inflight")"
check "SIGTERM: a command past the grace period is killed" 'gone "sleep 33.5"'
check "SIGTERM: socket removed" '[ ! -e "$SOCK" ]'

# ---- TCP with tokens ------------------------------------------------------------------------
"$AGENTBOX" serve --listen tcp:0.0.0.0:0 >/dev/null 2>"$WORK/refuse.log"
check "non-loopback without tokens: exit 125" '[ $? = 125 ] && [ $(wc -l < "$WORK/refuse.log") = 1 ]'
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$WORK/tokens.json" <<JSON
{"tokens": [{"token": "tok-a-7f3c9e1b2d4a", "tenant": "a", "max_sandboxes": 1, "max_concurrent_execs": 1},
            {"token": "tok-b-7f3c9e1b2d4a", "tenant": "b"},
            {"token": "tok-c-7f3c9e1b2d4a", "tenant": "c", "max_sandboxes": 1, "max_concurrent_execs": 1}]}
JSON
start_server --listen tcp:127.0.0.1:$PORT --tokens "$WORK/tokens.json" --access-log "$WORK/access_tcp.log"
B=http://127.0.0.1:$PORT
A=(-H "Authorization: Bearer tok-a-7f3c9e1b2d4a")
check "healthz without token" '[ "$(code $B/healthz)" = 200 ]'
check "401 without token" '[ "$(code $B/v1/sandboxes)" = 401 ]'
check "401 with a wrong token" '[ "$(code -H "Authorization: Bearer nope" $B/v1/sandboxes)" = 401 ]'
check "401 on metrics" '[ "$(code $B/metrics)" = 401 ]'
check "tenant a creates" '[ "$(code "${A[@]}" -d "{}" $B/v1/sandboxes)" = 201 ]'
TA=$(jq_ 'd["id"]' < "$WORK/body")
check "429 over max_sandboxes" '[ "$(code "${A[@]}" -d "{}" $B/v1/sandboxes)" = 429 ]'
check "403 host path from a tenant" '[ "$(code -H "Authorization: Bearer tok-b-7f3c9e1b2d4a" -d "{\"workspace\":\"/root\"}" $B/v1/sandboxes)" = 403 ]'
check "tenant b: 404 on a's sandbox" '[ "$(code -H "Authorization: Bearer tok-b-7f3c9e1b2d4a" $B/v1/sandboxes/$TA)" = 404 ] && [ "$(code -H "Authorization: Bearer tok-b-7f3c9e1b2d4a" -d "{\"argv\":[\"true\"]}" $B/v1/sandboxes/$TA/exec)" = 404 ]'
check "tenant b: 404 on a's processes" '[ "$(code -H "Authorization: Bearer tok-b-7f3c9e1b2d4a" $B/v1/sandboxes/$TA/processes)" = 404 ] && [ "$(code -H "Authorization: Bearer tok-b-7f3c9e1b2d4a" -X POST $B/v1/sandboxes/$TA/processes/p1/kill)" = 404 ]'
# TW STEP...: the terminal of tenant a's sandbox over TCP (WS_HEADERS: the token, if any).
TW() { timeout 30 python3 "$WSC" "tcp:127.0.0.1:$PORT" "/v1/sandboxes/$TA/exec/tty" "$@"; }
check "tty over TCP: 401 without a token or with a wrong one, 404 for another tenant" '[ "$(TW "text:{}" | jq_ "d[\"status\"]")" = 401 ] && [ "$(WS_HEADERS="Authorization: Bearer nope" TW "text:{}" | jq_ "d[\"status\"]")" = 401 ] && [ "$(WS_HEADERS="Authorization: Bearer tok-b-7f3c9e1b2d4a" TW "text:{}" | jq_ "d[\"status\"]")" = 404 ]'
check "tty over TCP with the token" '[ "$(WS_HEADERS="${A[1]}" TW "text:{\"argv\":[\"echo\",\"tcp-tty\"]}" | jq_ "(d[\"status\"], d[\"output\"], d[\"texts\"][-1][\"result\"][\"exit_code\"])")" = "(101, '"'"'tcp-tty\\r\\n'"'"', 0)" ]'
check "tenant b: a's sandbox not listed, CLI's not either" '! curl -s -H "Authorization: Bearer tok-b-7f3c9e1b2d4a" $B/v1/sandboxes | grep -q "$TA\|$ID"'
check "tenant a: exec over TCP" '[ "$(curl -s "${J[@]}" "${A[@]}" -d "{\"argv\":[\"echo\",\"tcp\"]}" $B/v1/sandboxes/$TA/exec | jq_ "d[\"stdout\"]")" = tcp ]'
curl -s "${J[@]}" "${A[@]}" -d '{"argv":["sleep","3.25"]}' $B/v1/sandboxes/$TA/exec >/dev/null &
SLOW=$!
running "sleep 3.25"
check "429 over max_concurrent_execs" '[ "$(code "${A[@]}" -d "{\"argv\":[\"true\"]}" $B/v1/sandboxes/$TA/exec)" = 429 ]'
check "429 over max_concurrent_execs: a detached exec too" '[ "$(code "${A[@]}" -d "{\"argv\":[\"true\"],\"detach\":true}" $B/v1/sandboxes/$TA/exec)" = 429 ]'
check "429 over max_concurrent_execs: a terminal too, before the upgrade" '[ "$(WS_HEADERS="${A[1]}" TW "text:{}" | jq_ "d[\"status\"]")" = 429 ]'
wait $SLOW
check "access log: the tenant is named, a refused caller is null, no token is written" 'grep -q "\"tenant\":\"a\",\"method\":\"POST\",\"path\":\"/v1/sandboxes/$TA/exec\"" "$WORK/access_tcp.log" && grep -q "\"tenant\":null,\"method\":\"GET\",\"path\":\"/v1/sandboxes\",\"status\":401" "$WORK/access_tcp.log" && ! grep -q "tok-" "$WORK/access_tcp.log"' "$(head -5 "$WORK/access_tcp.log")"
check "tenant map persisted" 'grep -q "\"$TA\": \"a\"" "$AGENTBOX_STATE_DIR/tenants.json"'
check "mcp over TCP with a token: any Origin" '[ "$(code "${A[@]}" -H "Origin: http://app.example" -d "$INIT" $B/mcp)" = 200 ]'

# MCP over HTTP obeys the tenant's quotas, in the same counters as REST (tenant c: 1 and 1).
C=(-H "Authorization: Bearer tok-c-7f3c9e1b2d4a")
mcp_init() { curl -s "${J[@]}" -D "$WORK/init_head" -o "$WORK/body" -w '%{http_code}' "${C[@]}" -d "$INIT" $B/mcp; }
sid_of() { tr -d '\r' < "$WORK/init_head" | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}'; }
mcp_exec() {  # SESSION ID COMMAND -> "isError|first text" of the tool result
  curl -s "${J[@]}" "${C[@]}" -H "Mcp-Session-Id: $1" -d '{"jsonrpc":"2.0","id":'"$2"',"method":"tools/call","params":{"name":"exec","arguments":{"command":"'"$3"'"}}}' $B/mcp |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["result"]; print(r.get("isError", False), r["content"][0]["text"], sep="|")'
}
c_sandboxes() { curl -s "${C[@]}" $B/v1/sandboxes | jq_ '" ".join(s["id"] for s in d["sandboxes"])'; }
check "tenant c creates its one sandbox over REST" '[ "$(code "${C[@]}" -d "{}" $B/v1/sandboxes)" = 201 ]'
TC=$(jq_ 'd["id"]' < "$WORK/body")
check "mcp quota: initialize makes no sandbox, so it is admitted" '[ "$(mcp_init)" = 200 ]'
SC=$(sid_of)
R=$(mcp_exec "$SC" 2 "echo no-room")
check "mcp quota: a tool call over max_sandboxes is a tool error naming the quota" '[[ "$R" == "True|error: cannot create the session"*"quota exceeded: tenant c may have 1 sandboxes (max_sandboxes)"* ]]' "$R"
check "mcp quota: a second session is 429 with Retry-After and a JSON reason" '[ "$(mcp_init)" = 429 ] && grep -qi "^retry-after: 1" "$WORK/init_head" && [ "$(jq_ "d[\"code\"]" < "$WORK/body")" = resource_exhausted ] && grep -q "may hold 1 MCP sessions" "$WORK/body"' "$(cat "$WORK/body")"
check "tenant c deletes its REST sandbox" '[ "$(code "${C[@]}" -X DELETE "$B/v1/sandboxes/$TC")" = 200 ]'
R=$(mcp_exec "$SC" 3 "echo room")
check "mcp quota: once a slot is free the session makes its sandbox" '[[ "$R" == "False|"*room* ]]' "$R"
MC=$(c_sandboxes)
check "mcp quota: the session's sandbox is the tenant's (listed), REST create is 429" '[ -n "$MC" ] && [ "$(code "${C[@]}" -d "{}" $B/v1/sandboxes)" = 429 ]' "$MC"
mcp_exec "$SC" 4 "sleep 4.25" > "$WORK/slow_call" &
SLOW=$!
running "sleep 4.25"
R=$(mcp_exec "$SC" 5 "echo second")
check "mcp quota: a call over max_concurrent_execs is a tool error naming the quota" '[[ "$R" == "True|error: quota exceeded: tenant c may run 1 commands at once (max_concurrent_execs)"* ]]' "$R"
R=$(code "${C[@]}" -d '{"argv":["true"]}' $B/v1/sandboxes/$MC/exec)
check "mcp quota: REST exec meanwhile is 429 (one counter)" '[ "$R" = 429 ]' "$R $MC $(cat "$WORK/body")"
wait $SLOW
check "mcp quota: the first call ran" '[[ "$(cat "$WORK/slow_call")" == False* ]]' "$(cat "$WORK/slow_call")"
curl -s "${J[@]}" --max-time 1 "${C[@]}" -H "Mcp-Session-Id: $SC" -d '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"exec","arguments":{"command":"sleep 36.5"}}}' $B/mcp >/dev/null
check "mcp quota: a cancelled call gives its exec slot back" 'gone "sleep 36.5" && [ "$(code "${C[@]}" -d "{\"argv\":[\"true\"]}" $B/v1/sandboxes/$MC/exec)" = 200 ]'
check "mcp quota: DELETE ends the session" '[ "$(code "${C[@]}" -X DELETE -H "Mcp-Session-Id: $SC" $B/mcp)" = 204 ]'
check "mcp quota: its sandbox is gone and unlisted" '[ -z "$(c_sandboxes)" ] && ! "$AGENTBOX" ls | grep -q "${MC:0:12}"'
check "mcp quota: after DELETE a REST sandbox fits again" '[ "$(code "${C[@]}" -d "{}" $B/v1/sandboxes)" = 201 ] && [ "$(code "${C[@]}" -X DELETE "$B/v1/sandboxes/$(jq_ "d[\"id\"]" < "$WORK/body")")" = 200 ]'
check "mcp quota: after DELETE a new session is admitted" '[ "$(mcp_init)" = 200 ]'
SC2=$(sid_of)
R=$(mcp_exec "$SC2" 2 "echo again")
MC2=$(c_sandboxes)
check "mcp quota: the new session's sandbox is recorded as the tenant's" '[[ "$R" == False* ]] && [ -n "$MC2" ] && grep -q "$MC2" "$AGENTBOX_STATE_DIR/tenants.json"' "$R"
check "tenant a deletes" '[ "$(code "${A[@]}" -X DELETE "$B/v1/sandboxes/$TA?force=1")" = 200 ]'
stop_server
check "SIGTERM over TCP: exit 0" '[ $? = 0 ]'
check "SIGTERM ends MCP sessions: their sandboxes removed and forgotten" '! grep -q "$MC2" "$AGENTBOX_STATE_DIR/tenants.json" && ! "$AGENTBOX" ls | grep -q "$MC2"'

# ---- an operator's timeout ceiling binds a detached process that names no timeout ------------
echo '{"limits": {"timeout": {"default": "1s", "max": "1s"}}, "body_timeout": 1}' > "$WORK/ceiling.json"
start_server --config "$WORK/ceiling.json"
R=$(U -d '{}' http://x/v1/sandboxes)
CID=$(echo "$R" | jq_ 'd["id"]')
R=$(U -d '{"argv":["sleep","38.5"],"detach":true}' http://x/v1/sandboxes/$CID/exec)
CP=$(echo "$R" | jq_ 'd["id"]')
R=$(U -X POST "http://x/v1/sandboxes/$CID/processes/$CP/wait?timeout=15")
check "detach without a timeout gets the operator's ceiling (1 s here), never none" '[ "$(echo "$R" | jq_ "(d[\"state\"], d[\"result\"][\"reason\"], d[\"result\"][\"duration_ms\"] < 10000)")" = "('"'"'exited'"'"', '"'"'timeout'"'"', True)" ] && gone "sleep 38.5"' "$R"
check "detach: a timeout over this ceiling 400" '[ "$(code --unix-socket "$SOCK" -d "{\"argv\":[\"true\"],\"detach\":true,\"timeout\":2}" http://x/v1/sandboxes/$CID/exec)" = 400 ]'
R=$(ws /v1/sandboxes/$CID/exec/tty)
check "tty: no first message within body_timeout (1 s here): error, close 1008" 'wsok "r[\"texts\"][-1][\"code\"] == \"invalid_argument\" and \"body_timeout\" in r[\"texts\"][-1][\"error\"] and r[\"close\"] == 1008"' "$R"
R=$(ws /v1/sandboxes/$CID/exec/tty 'text:{"argv":["true"],"timeout":5}')
check "tty: a timeout over the operator's ceiling: error naming it, close 1008" 'wsok "r[\"texts\"][-1][\"code\"] == \"invalid_argument\" and \"ceiling\" in r[\"texts\"][-1][\"error\"] and r[\"close\"] == 1008"' "$R"
check "ceiling server: its sandbox removed" '[ "$(code --unix-socket "$SOCK" -X DELETE "http://x/v1/sandboxes/$CID?force=true")" = 200 ]'
stop_server

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
