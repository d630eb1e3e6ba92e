#!/usr/bin/env bash
# kubernetes_serve: `agentbox serve` whose default backend is kubernetes (`--backend kubernetes`,
# with a config restricting "allowed_backends" to it), as deploy/20-serve.yaml runs it, on the
# fake API server (tests/kubernetes/fake.sh) whose podman runs the pods for real on its own
# bridge: a POST /v1/sandboxes that names no backend makes a pod (kubectl get pod -l
# agentbox.dev/sandbox=ID) and execs run in it; an MCP session's sandbox is a pod too; a body
# asking for native is refused (400); a default outside the allowed ones is refused at start
# (125); DELETE and the session's end remove the pods. Then two replicas with tokens share their
# tenants' sandboxes through the cluster (serve_replicas.sh). Prints "ok"/"FAIL" per check and
# "N passed, N failed"; 77 (with the reason) where podman cannot run, which under CI=true is a
# failure.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
skip() { echo "skip: $1"; [[ "${CI:-}" == "true" ]] && exit 1; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "podman's bridge networks need root"
for tool in python3 openssl kubectl podman ip busybox curl; do
  command -v "$tool" >/dev/null || skip "$tool missing (scripts/install-deps.sh test installs it)"
done
: "${AGENTBOX:?the agentbox binary}" "${AGENTBOX_AGENT:?the static agent}"

WORK=$(mktemp -d /tmp/agentbox-k8s-serve.XXXXXX)
PASS=0 FAIL=0 SERVE_PID=
# shellcheck source=tests/kubernetes/fake.sh
source "$HERE/fake.sh"
stop_serve() {
  [[ -n $SERVE_PID ]] || return 0
  kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID"
  local rc=$?
  SERVE_PID=
  return $rc
}
trap 'stop_serve; fake_k8s_stop 2>/dev/null; rm -rf "$WORK"' EXIT
ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1${2:+: $2}"; }
check() { if eval "$2"; then ok "$1"; else bad "$1" "${3:-}"; fi; }
finish() { echo "$PASS passed, $FAIL failed"; [[ $FAIL -eq 0 ]]; exit; }
K() { timeout 60 kubectl -n agentbox-test "$@"; }

# The images, from this machine's files: the busybox test root under the name a sandbox gets
# when it names no image (agentbox-test:latest), and the agent image (agentbox-agent:VERSION).
fake_k8s_up "$WORK" localhost/agentbox-test:latest "$AGENTBOX_AGENT"
case $? in
  0) ;;
  2) skip "the fake server could not start podman" ;;
  *) echo "0 passed, 1 failed (the images)"; exit 1 ;;
esac

# serve as deploy/20-serve.yaml runs it: the namespace from AGENTBOX_KUBE_NAMESPACE, the
# backend from --backend, and here also a config allowing no other backend.
export AGENTBOX_STATE_DIR=$WORK/state AGENTBOX_KUBE_NAMESPACE=agentbox-test
mkdir -p "$AGENTBOX_STATE_DIR"
echo '{"allowed_backends": ["kubernetes"]}' >"$WORK/config.json"
SOCK=$WORK/serve.sock

# The config alone leaves the default native, which it does not allow: refused at start.
timeout 60 "$AGENTBOX" serve --listen "unix:$SOCK" --config "$WORK/config.json" 2>"$WORK/err"
RC=$?
check "a default outside allowed_backends: exit 125, one line naming the key" \
  '[[ $RC == 125 && $(wc -l <"$WORK/err") == 1 ]] && grep -q "\"backend\": native is not one of the config.s \"allowed_backends\" (kubernetes)" "$WORK/err"' \
  "rc $RC: $(cat "$WORK/err")"
timeout 60 "$AGENTBOX" serve --listen "unix:$SOCK" --backend podman 2>"$WORK/err"
RC=$?
check "--backend podman: exit 125 naming the flag" \
  '[[ $RC == 125 ]] && grep -q "^agentbox: --backend: expected \"native\", \"docker\" or \"kubernetes\", got \"podman\"$" "$WORK/err"' \
  "rc $RC: $(cat "$WORK/err")"

"$AGENTBOX" serve --listen "unix:$SOCK" --config "$WORK/config.json" --backend kubernetes \
  2>"$WORK/serve.log" &
SERVE_PID=$!
for _ in $(seq 600); do
  grep -q "listening on" "$WORK/serve.log" 2>/dev/null && break
  kill -0 "$SERVE_PID" 2>/dev/null || break
  sleep 0.05
done
grep -q "listening on" "$WORK/serve.log" || { bad "serve starts" "$(cat "$WORK/serve.log")"; finish; }
ok "serve --backend kubernetes starts"

J=(-H 'Content-Type: application/json')
U() { timeout 180 curl -sS --unix-socket "$SOCK" "${J[@]}" "$@"; }
jq_() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# pod_of ID: the names of the pods labelled with the sandbox's id.
pod_of() { K get pod -l "agentbox.dev/sandbox=$1" -o name; }
# gone ID: its pod deleted, within a minute (the fake stops podman's pod first).
gone() { for _ in $(seq 600); do [[ -z $(pod_of "$1") ]] && return 0; sleep 0.1; done; return 1; }

R=$(U -w '\n%{http_code}' -d '{"name":"k1"}' http://x/v1/sandboxes)
ID=$(head -n -1 <<<"$R" | jq_ 'd["id"]' 2>/dev/null)
check "POST /v1/sandboxes naming no backend: 201, backend kubernetes" \
  '[[ $(tail -n 1 <<<"$R") == 201 && $(head -n -1 <<<"$R" | jq_ "d[\"backend\"]") == kubernetes ]]' "$R"
check "its pod exists (kubectl get pod -l agentbox.dev/sandbox=ID)" \
  '[[ -n $ID && $(pod_of "$ID") == "pod/agentbox-$ID" ]]' "$(K get pods 2>&1)"
IP=$(K get pod "agentbox-$ID" -o jsonpath='{.status.podIP}' 2>/dev/null)
DEV=$(ip -o route get "$IP" 2>/dev/null | sed -n 's/.* dev \([^ ]*\).*/\1/p')
check "the pod's address is on the fake's own bridge" '[[ -n $IP && $DEV == "$FAKE_K8S_BRIDGE" ]]' \
  "$IP through $DEV, not $FAKE_K8S_BRIDGE"
R=$(U -d '{"argv":["sh","-c","echo hi; id -u; cat /proc/1/comm; hostname"]}' "http://x/v1/sandboxes/$ID/exec")
check "exec runs in the pod (uid 1000, the agent as PID 1)" \
  '[[ $(jq_ "d[\"exit_code\"] == 0 and d[\"stdout\"].split()[:3] == [\"hi\", \"1000\", \"agentbox-agent\"]" <<<"$R") == True ]]' "$R"

R=$(U -w '\n%{http_code}' -d '{"backend":"native"}' http://x/v1/sandboxes)
check "a body asking for native is 400 naming allowed_backends" \
  '[[ $(tail -n 1 <<<"$R") == 400 && $R == *"\\\"backend\\\": native is not allowed on this server (allowed_backends: kubernetes)"* ]]' "$R"

# An MCP session's sandbox: made with the server's defaults, so a pod as well.
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"k8s-serve","version":"1"}}}'
SID=$(U -D - -o /dev/null -d "$INIT" http://x/mcp | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
MH=(-H "Mcp-Session-Id: $SID")
U "${MH[@]}" -o /dev/null -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' http://x/mcp
R=$(U "${MH[@]}" -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"exec","arguments":{"command":"id -u; cat /proc/1/comm"}}}' http://x/mcp)
check "an MCP session's tool call runs (uid 1000, the agent as PID 1)" \
  '[[ -n $SID && $R == *"1000\\nagentbox-agent"* ]]' "$R"
MID=$(U http://x/v1/sandboxes | jq_ '" ".join(s["id"] for s in d["sandboxes"] if s["id"] != "'"$ID"'" and s["backend"] == "kubernetes")')
check "the session's sandbox is a kubernetes one, with its pod" \
  '[[ -n $MID && $MID != *" "* && $(pod_of "$MID") == "pod/agentbox-$MID" ]]' "sandboxes: $(U http://x/v1/sandboxes)"

check "DELETE /mcp ends the session: its pod is deleted" \
  '[[ $(U "${MH[@]}" -o /dev/null -w "%{http_code}" -X DELETE http://x/mcp) == 204 ]] && gone "$MID"' \
  "$(K get pods 2>&1)"
check "DELETE /v1/sandboxes/ID: its pod is deleted" \
  '[[ $(U -o /dev/null -w "%{http_code}" -X DELETE "http://x/v1/sandboxes/$ID") == 200 ]] && gone "$ID"' \
  "$(K get pods 2>&1)"
stop_serve
RC=$?
check "serve stops on SIGTERM, exit 0" '[[ $RC == 0 ]]'
# shellcheck source=tests/kubernetes/serve_replicas.sh
source "$HERE/serve_replicas.sh"
finish
