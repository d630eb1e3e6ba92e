# shellcheck shell=bash
# Sourced by serve_backend.sh (suite kubernetes_serve), on its fake API server: TWO serve
# replicas with tokens, each on its own empty state dir, sharing one AGENTBOX_KUBE_OWNER, as
# deploy/20-serve.yaml's replicas do. Tenant a makes a sandbox through replica 1 and uses it by
# its name through replica 2 (exec, inspect, files, list); tenant b gets the 404 of a missing
# sandbox for it on both, by name and by id, and cannot remove it; a's max_sandboxes and its
# names hold across the replicas; both restarted on new empty state dirs, a still finds its
# sandboxes; removed through one replica, the other says 404 and a's quota is free again. Then
# an MCP session begun on replica 1 goes on on replica 2 in the same sandbox; tenant b gets the
# 404 of a made-up id for its id on both; DELETE through 2 ends it on 1 too, its pod deleted.
# Uses serve_backend.sh's helpers (ok, bad, check, K, jq_, pod_of, gone) and $WORK.

REPLICA_PIDS=()
stop_replicas() {
  local pid
  for pid in "${REPLICA_PIDS[@]}"; do kill "$pid" 2>/dev/null && wait "$pid"; done
  REPLICA_PIDS=()
}
trap 'stop_replicas; stop_serve; fake_k8s_stop 2>/dev/null; rm -rf "$WORK"' EXIT

TOKEN_A=aaaaaaaaaaaaaaaaaaaaaaaa TOKEN_B=bbbbbbbbbbbbbbbbbbbbbbbb
cat >"$WORK/tokens.json" <<EOF
{"tokens": [{"token": "$TOKEN_A", "tenant": "a", "max_sandboxes": 2},
            {"token": "$TOKEN_B", "tenant": "b"}]}
EOF

# start_replica N DIR: serve on $WORK/rN.sock with state dir DIR (made empty here).
start_replica() {
  local sock=$WORK/r$1.sock log=$WORK/r$1.log
  rm -rf "$2" && mkdir -p "$2"
  : >"$log"
  AGENTBOX_STATE_DIR=$2 AGENTBOX_KUBE_OWNER=agentbox-replicas-test "$AGENTBOX" serve \
    --listen "unix:$sock" --tokens "$WORK/tokens.json" --config "$WORK/config.json" \
    --backend kubernetes 2>"$log" &
  REPLICA_PIDS+=($!)
  for _ in $(seq 600); do
    grep -q "listening on" "$log" 2>/dev/null && return 0
    kill -0 "${REPLICA_PIDS[-1]}" 2>/dev/null || break
    sleep 0.05
  done
  bad "replica $1 starts" "$(cat "$log")"
  return 1
}

# A TENANT N ARGS...: curl as tenant a or b to replica N; prints the body, then the status.
A() { RT "$TOKEN_A" "$@"; }
B() { RT "$TOKEN_B" "$@"; }
RT() {
  local token=$1 n=$2
  shift 2
  timeout 180 curl -sS --unix-socket "$WORK/r$n.sock" -H "Authorization: Bearer $token" \
    -w '\n%{http_code}' "$@"
}
code() { tail -n 1 <<<"$1"; }
body() { head -n -1 <<<"$1"; }

{ start_replica 1 "$WORK/r1-state" && start_replica 2 "$WORK/r2-state"; } || finish
ok "two serve replicas with tokens start on empty state dirs, one owner"

JH=(-H 'Content-Type: application/json')
R=$(A 1 "${JH[@]}" -d '{"name":"w1"}' http://x/v1/sandboxes)
W1=$(body "$R" | jq_ 'd["id"]' 2>/dev/null)
check "tenant a creates w1 through replica 1: 201" '[[ $(code "$R") == 201 && -n $W1 ]]' "$R"
check "its pod, Secret and NetworkPolicy carry the tenant label (never a token)" \
  '[[ $(K get pod,secret,networkpolicy -l "agentbox.dev/tenant=a,agentbox.dev/sandbox=$W1" -o name | wc -l) == 3 ]] &&
   ! K get pod "agentbox-$W1" -o json | grep -q "$TOKEN_A"' "$(K get pod,secret,networkpolicy --show-labels 2>&1)"
check "the pod's annotations hold the tenant and its name for the sandbox" \
  '[[ $(K get pod "agentbox-$W1" -o jsonpath="{.metadata.annotations.agentbox\.dev/tenant}/{.metadata.annotations.agentbox\.dev/tenant-name}") == a/w1 ]]'

R=$(A 2 "${JH[@]}" -d '{"argv":["sh","-c","echo from-2 > f; cat f; id -u"]}' http://x/v1/sandboxes/w1/exec)
check "a execs in w1 by its name through replica 2" \
  '[[ $(code "$R") == 200 && $(body "$R" | jq_ "d[\"exit_code\"] == 0 and d[\"stdout\"] == \"from-2\\n1000\\n\"") == True ]]' "$R"
R=$(A 2 http://x/v1/sandboxes/w1)
check "a inspects w1 through replica 2: its id and its name" \
  '[[ $(code "$R") == 200 && $(body "$R" | jq_ "d[\"id\"] + \" \" + d[\"name\"]") == "$W1 w1" ]]' "$R"
R=$(A 2 http://x/v1/sandboxes)
check "a lists w1 through replica 2, by its name" \
  '[[ $(code "$R") == 200 && $(body "$R" | jq_ "[s[\"name\"] for s in d[\"sandboxes\"] if s[\"id\"] == \"$W1\"] == [\"w1\"]") == True ]]' "$R"
R=$(printf 'through-2' | A 2 -T - "http://x/v1/sandboxes/w1/files?path=up.txt")
R2=$(A 1 "http://x/v1/sandboxes/w1/files?path=up.txt")
check "a writes a file through replica 2 and reads it through replica 1" \
  '[[ $(code "$R") == 200 && $(code "$R2") == 200 && $(body "$R2") == through-2 ]]' "$R / $R2"

for n in 1 2; do
  R=$(B $n http://x/v1/sandboxes/w1)
  R2=$(B $n "http://x/v1/sandboxes/$W1")
  MISSING_ID=$(B $n http://x/v1/sandboxes/000000000000)
  MISSING_NAME=$(B $n http://x/v1/sandboxes/nosuchname)
  check "tenant b gets 404 for a's w1 on replica $n, by name and by id, as for a missing one" \
    '[[ $(code "$R") == 404 && $(code "$R2") == 404 ]] &&
     [[ $(body "$R2" | sed "s/$W1/000000000000/") == "$(body "$MISSING_ID")" ]] &&
     [[ $(body "$R" | sed "s/w1/nosuchname/") == "$(body "$MISSING_NAME")" ]]' "$R / $R2 / $MISSING_ID"
  R=$(B $n -X DELETE "http://x/v1/sandboxes/$W1")
  R2=$(B $n "${JH[@]}" -d '{"argv":["true"]}' "http://x/v1/sandboxes/$W1/exec")
  check "tenant b cannot remove or exec in a's sandbox through replica $n (404)" \
    '[[ $(code "$R") == 404 && $(code "$R2") == 404 && -n $(pod_of "$W1") ]]' "$R / $R2"
  R=$(B $n http://x/v1/sandboxes)
  check "tenant b's list on replica $n does not show it" \
    '[[ $(code "$R") == 200 && $(body "$R") != *"$W1"* ]]' "$R"
done

R=$(A 2 "${JH[@]}" -d '{"name":"w1"}' http://x/v1/sandboxes)
check "a's name w1 is taken on replica 2 too: 409" '[[ $(code "$R") == 409 ]]' "$R"
R=$(A 2 "${JH[@]}" -d '{"name":"w2"}' http://x/v1/sandboxes)
W2=$(body "$R" | jq_ 'd["id"]' 2>/dev/null)
check "a creates w2 through replica 2: 201 (its second of 2)" '[[ $(code "$R") == 201 && -n $W2 ]]' "$R"
R=$(A 1 "${JH[@]}" -d '{"name":"w3"}' http://x/v1/sandboxes)
R2=$(A 2 "${JH[@]}" -d '{"name":"w3"}' http://x/v1/sandboxes)
check "a's max_sandboxes 2 holds across the replicas: 429 on both" \
  '[[ $(code "$R") == 429 && $(code "$R2") == 429 ]]' "$R / $R2"

stop_replicas
{ start_replica 1 "$WORK/r1-state-new" && start_replica 2 "$WORK/r2-state-new"; } || finish
R=$(A 1 "${JH[@]}" -d '{"argv":["cat","up.txt"]}' http://x/v1/sandboxes/w1/exec)
check "both restarted on empty state dirs: a execs in w1 by name on replica 1" \
  '[[ $(code "$R") == 200 && $(body "$R" | jq_ "d[\"stdout\"]") == through-2 ]]' "$R"
R=$(A 2 http://x/v1/sandboxes/w2)
check "... and inspects w2 by name on replica 2" \
  '[[ $(code "$R") == 200 && $(body "$R" | jq_ "d[\"id\"]") == "$W2" ]]' "$R"
R=$(A 2 "${JH[@]}" -d '{"name":"w3"}' http://x/v1/sandboxes)
R2=$(B 1 http://x/v1/sandboxes/w1)
check "... a's quota still holds (429) and b still gets 404" \
  '[[ $(code "$R") == 429 && $(code "$R2") == 404 ]]' "$R / $R2"

R=$(A 2 -X DELETE http://x/v1/sandboxes/w1)
check "a removes w1 through replica 2: its pod is deleted" \
  '[[ $(code "$R") == 200 ]] && gone "$W1"' "$R"
R=$(A 1 http://x/v1/sandboxes/w1)
check "replica 1, which had adopted w1, then says 404" '[[ $(code "$R") == 404 ]]' "$R"
R=$(A 1 "${JH[@]}" -d '{"name":"w1"}' http://x/v1/sandboxes)
W3=$(body "$R" | jq_ 'd["id"]' 2>/dev/null)
check "a's slot and name are free again on replica 1: w1 anew, 201" \
  '[[ $(code "$R") == 201 && -n $W3 && $W3 != "$W1" ]]' "$R"
for id in "$W2" "$W3"; do
  [[ -n $id ]] && A 1 -o /dev/null -X DELETE "http://x/v1/sandboxes/$id" >/dev/null
done
check "a's sandboxes removed through replica 1: no pod of tenant a is left" \
  'gone "$W2" && gone "$W3" && [[ -z $(K get pod -l agentbox.dev/tenant=a -o name) ]]'

# An MCP session (2025 revisions) begun on replica 1 goes on on replica 2: the same sandbox.
MCP_INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"replicas","version":"1"}}}'
# MCP TOKEN N SID BODY: a POST /mcp of session SID to replica N; prints the body, then the status.
MCP() { RT "$1" "$2" "${JH[@]}" -H "Mcp-Session-Id: $3" -d "$4" http://x/mcp; }
bash_call() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"bash","arguments":{"command":"%s"}}}' "$1" "$2"; }
SID=$(A 1 "${JH[@]}" -D - -o /dev/null -d "$MCP_INIT" http://x/mcp | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
KEY=$(printf '%s' "$SID" | sha256sum | cut -c1-48)
check "a begins an MCP session on replica 1: its record is the Secret agentbox-mcp-KEY (a digest of the id), tenant a, never the id" \
  '[[ -n $SID && $(K get secret -l "agentbox.dev/mcp-session=$KEY,agentbox.dev/tenant=a,agentbox.dev/owner=agentbox-replicas-test" -o name) == "secret/agentbox-mcp-$KEY" ]] &&
   ! K get secret,pod -o json | grep -q "$SID"' "$(K get secret --show-labels 2>&1)"
R=$(MCP "$TOKEN_A" 1 "$SID" "$(bash_call 2 'echo via-1 > mcp.txt; echo written')")
MSB=$(K get pod -l "agentbox.dev/mcp-session=$KEY,agentbox.dev/tenant=a" -o name | sed 's|^pod/agentbox-||')
check "its first bash call on replica 1 makes its sandbox, a pod labelled with the session's key" \
  '[[ $(code "$R") == 200 && $(body "$R") == *written* && -n $MSB && $MSB != *$'"'"'\n'"'"'* ]]' "$R"
R=$(MCP "$TOKEN_A" 2 "$SID" "$(bash_call 3 'cat mcp.txt')")
check "the same Mcp-Session-Id on replica 2 runs bash in the same sandbox: the file written through 1" \
  '[[ $(code "$R") == 200 && $(body "$R") == *via-1* ]] &&
   [[ $(K get pod -l "agentbox.dev/mcp-session=$KEY" -o name | wc -l) == 1 ]]' "$R"
R=$(MCP "$TOKEN_A" 2 "$SID" "$(bash_call 4 'echo via-2 >> mcp.txt')")
R2=$(MCP "$TOKEN_A" 1 "$SID" "$(bash_call 5 'cat mcp.txt')")
check "... and what replica 2 writes, replica 1 reads" \
  '[[ $(code "$R") == 200 && $(code "$R2") == 200 && $(body "$R2") == *via-1*via-2* ]]' "$R / $R2"
MADE_UP=0123456789abcdef0123456789abcdef
for n in 1 2; do
  R=$(MCP "$TOKEN_B" $n "$SID" "$(bash_call 6 'cat mcp.txt')")
  R2=$(MCP "$TOKEN_B" $n "$MADE_UP" "$(bash_call 6 'cat mcp.txt')")
  R3=$(B $n -X DELETE -H "Mcp-Session-Id: $SID" http://x/mcp)
  check "tenant b's use of a's session id on replica $n: the 404 of a made-up id, and it cannot end it" \
    '[[ $(code "$R") == 404 && $(code "$R3") == 404 ]] &&
     [[ $(body "$R" | sed "s/$SID/$MADE_UP/") == "$(body "$R2")" ]] && [[ -n $(pod_of "$MSB") ]]' "$R / $R2 / $R3"
done
R=$(MCP "$TOKEN_A" 1 "$SID" "$(bash_call 7 'cat mcp.txt')")
check "a's session goes on after b's tries" '[[ $(code "$R") == 200 && $(body "$R") == *via-2* ]]' "$R"
mkdir -p "$WORK/gc-state"
GC=$(AGENTBOX_STATE_DIR=$WORK/gc-state AGENTBOX_KUBE_OWNER=agentbox-replicas-test "$AGENTBOX" gc 2>&1)
check "gc of the same owner keeps a session that goes on: its record and its sandbox" \
  '[[ -n $(K get secret "agentbox-mcp-$KEY" -o name) && -n $(pod_of "$MSB") && $GC != *agentbox-mcp-* ]]' "$GC"
R=$(A 2 -X DELETE -H "Mcp-Session-Id: $SID" http://x/mcp)
check "DELETE /mcp through replica 2 ends it: 204, its sandbox's pod and its record are deleted" \
  '[[ $(code "$R") == 204 ]] && gone "$MSB" && [[ -z $(K get secret "agentbox-mcp-$KEY" -o name 2>/dev/null) ]]' "$R"
R=$(MCP "$TOKEN_A" 1 "$SID" "$(bash_call 8 'true')")
R2=$(A 1 -X DELETE -H "Mcp-Session-Id: $SID" http://x/mcp)
check "... on replica 1 too, which began it: 404 for a call and for DELETE" \
  '[[ $(code "$R") == 404 && $(code "$R2") == 404 && $(body "$R") == *"no MCP session"* ]]' "$R / $R2"
# Begun on replica 2, its first call on replica 1, its sandbox then found by replica 2.
SID2=$(A 2 "${JH[@]}" -D - -o /dev/null -d "$MCP_INIT" http://x/mcp | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
KEY2=$(printf '%s' "$SID2" | sha256sum | cut -c1-48)
R=$(MCP "$TOKEN_A" 1 "$SID2" "$(bash_call 9 'echo first-on-1 > f2.txt')")
R2=$(MCP "$TOKEN_A" 2 "$SID2" "$(bash_call 10 'cat f2.txt')")
MSB2=$(K get pod -l "agentbox.dev/mcp-session=$KEY2" -o name | sed 's|^pod/agentbox-||')
check "begun on replica 2, first called on 1: replica 2 then works in the sandbox 1 made, one pod" \
  '[[ $(code "$R") == 200 && $(code "$R2") == 200 && $(body "$R2") == *first-on-1* && -n $MSB2 && $MSB2 != *$'"'"'\n'"'"'* ]]' "$R / $R2"
R=$(A 1 -X DELETE -H "Mcp-Session-Id: $SID2" http://x/mcp)
check "ended through replica 1: no pod and no session record of tenant a is left" \
  '[[ $(code "$R") == 204 ]] && gone "$MSB2" && [[ -z $(K get secret -l agentbox.dev/tenant=a -o name) ]]' "$R"
stop_replicas
