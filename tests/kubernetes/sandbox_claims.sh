#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2034  # checks are strings check() evals, naming these variables
# kubernetes_sandbox_claims: sandboxes made through agent-sandbox's SandboxClaim
# (AGENTBOX_KUBE_SANDBOX_CLAIMS=1, docs/kubernetes.md) on the fake API server, which serves the
# CRDs and runs a minimal controller with --agent-sandbox (tests/kubernetes/fakeapi/agent_sandbox.py):
# without the CRDs the create is refused (125, one line naming them) and nothing is made; with
# them a create makes one SandboxTemplate of the shape (the pod spec agentbox wrote, no token
# mounted), its NetworkPolicy, a claim and a Secret per sandbox, and the controller's pod carries
# the claim's uid; two sandboxes have different tokens, a second claim hello and another
# sandbox's token are refused by a claimed agent; a SandboxWarmPool's ready pod is taken by a
# create and answers with the new sandbox's token; another state dir finds the sandbox; serve
# makes its sandboxes the same way; rm leaves no claim, pod or Secret. Prints "ok"/"FAIL" per check and "N passed, N failed"; 77
# (with the reason) where podman cannot run, which under CI=true is a failure.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
skip() { echo "skip: $1"; [[ "${CI:-}" == "true" ]] && exit 1; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "podman's bridge networks need root"
for tool in python3 openssl kubectl podman ip busybox curl; do
  command -v "$tool" >/dev/null || skip "$tool missing (scripts/install-deps.sh test installs it)"
done
: "${AGENTBOX:?the agentbox binary}" "${AGENTBOX_AGENT:?the static agent}"

WORK=$(mktemp -d /tmp/agentbox-k8s-claims.XXXXXX)
PASS=0 FAIL=0
# shellcheck source=tests/kubernetes/fake.sh
source "$HERE/fake.sh"
SERVE_PID=
trap '[[ -n $SERVE_PID ]] && kill "$SERVE_PID" 2>/dev/null; fake_k8s_stop 2>/dev/null; rm -rf "$WORK"' EXIT
ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1${2:+: $2}"; }
check() { if eval "$2"; then ok "$1"; else bad "$1" "${3:-}"; fi; }
finish() { echo "$PASS passed, $FAIL failed"; [[ $FAIL -eq 0 ]]; exit; }
K() { timeout 60 kubectl -n agentbox-test "$@"; }
AB() { timeout 180 "$AGENTBOX" "$@"; }
# Waits (60 s at most) until `kubectl get KIND -l SELECTOR` lists nothing.
gone() {
  local deadline=$((SECONDS + 60))
  while [[ -n $(K get "$1" -l "$2" -o name 2>/dev/null) ]]; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}
# claim_hello IP TOKEN TARGET: the agent's answer to a hello ("claim" or "agent") as JSON.
claim_hello() {
  python3 - "$@" <<'PY'
import json, socket, struct, sys
ip, token, target = sys.argv[1:4]
body = {"op": "hello", "token": token}
if target == "claim":
    body["to"] = "claim"
data = json.dumps(body).encode()
s = socket.create_connection((ip, 7070), timeout=10)
s.sendall(b"Q" + struct.pack("<I", len(data)) + data)
head = b""
while len(head) < 5:
    chunk = s.recv(5 - len(head))
    if not chunk:
        sys.exit("closed")
    head += chunk
n = struct.unpack("<I", head[1:5])[0]
payload = b""
while len(payload) < n:
    payload += s.recv(n - len(payload))
print(payload.decode())
PY
}

export AGENTBOX_STATE_DIR=$WORK/state AGENTBOX_KUBE_NAMESPACE=agentbox-test AGENTBOX_KUBE_SANDBOX_CLAIMS=1
mkdir -p "$AGENTBOX_STATE_DIR"

# 1. A cluster without agent-sandbox's CRDs (API only, no podman): refused, nothing made.
fake_k8s_start "$WORK/bare" --no-podman || skip "the fake API server did not start"
AB create --backend kubernetes >"$WORK/out" 2>"$WORK/err"
RC=$?
check "no CRDs: exit 125, one line naming what is missing" \
  '[[ $RC == 125 && $(wc -l <"$WORK/err") == 1 ]] && grep -q "does not serve sandboxclaims and sandboxtemplates of extensions.agents.x-k8s.io/v1alpha1" "$WORK/err"' \
  "rc $RC: $(cat "$WORK/err")"
check "no CRDs: no Secret, pod or NetworkPolicy made" \
  '[[ -z $(K get secrets,pods,networkpolicies -l app.kubernetes.io/managed-by=agentbox -o name) ]]'
check "no CRDs: kubectl knows no sandboxclaims" '! K get sandboxclaims >/dev/null 2>&1'
fake_k8s_stop

# 2. With them, pods run for real.
fake_k8s_up "$WORK" localhost/agentbox-test:latest "$AGENTBOX_AGENT" --agent-sandbox
case $? in
  0) ;;
  2) skip "the fake server could not start podman" ;;
  *) echo "0 passed, 1 failed (the images)"; exit 1 ;;
esac
check "kubectl api-resources lists the three kinds of extensions.agents.x-k8s.io" \
  '[[ $(timeout 60 kubectl api-resources --api-group=extensions.agents.x-k8s.io -o name | sort | paste -sd " ") == "sandboxclaims.extensions.agents.x-k8s.io sandboxtemplates.extensions.agents.x-k8s.io sandboxwarmpools.extensions.agents.x-k8s.io" ]]'
A=$(AB create --backend kubernetes --name claim-a 2>"$WORK/err")
check "a create through a claim" '[[ -n $A ]]' "$(cat "$WORK/err")"
B=$(AB create --backend kubernetes --name claim-b 2>"$WORK/err")
check "a second one of the same shape" '[[ -n $B ]]' "$(cat "$WORK/err")"
[[ -n $A && -n $B ]] || finish

check "one SandboxTemplate for the shape, agentbox's" \
  '[[ $(K get sandboxtemplates -l app.kubernetes.io/managed-by=agentbox -o name | wc -l) == 1 ]]'
TEMPLATE=$(K get sandboxtemplates -l app.kubernetes.io/managed-by=agentbox -o jsonpath='{.items[0].metadata.name}')
check "the template's pod mounts no token and its agent waits for its claim" \
  '[[ $(K get sandboxtemplate "$TEMPLATE" -o json | python3 -c "import json,sys; s=json.load(sys.stdin)[\"spec\"][\"podTemplate\"][\"spec\"]; print(any(\"secret\" in v for v in s[\"volumes\"]), \"--token-by-claim\" in s[\"containers\"][0][\"args\"])") == "False True" ]]'
check "the template's NetworkPolicy selects its pods" \
  '[[ $(K get networkpolicy "$TEMPLATE" -o jsonpath="{.spec.podSelector.matchLabels.agentbox\.dev/template}") == "$TEMPLATE" ]]'
declare -A CLAIM_UID
for id in "$A" "$B"; do
  UID_=$(K get sandboxclaim "agentbox-$id" -o jsonpath='{.metadata.uid}' 2>/dev/null)
  check "sandbox $id: its claim, and the controller's pod labelled with the claim's uid" \
    '[[ -n $UID_ && $(K get pods -l "agents.x-k8s.io/claim-uid=$UID_" -o name | wc -l) == 1 ]]'
  check "sandbox $id: its own token Secret" 'K get secret "agentbox-$id-token" -o name >/dev/null'
  CLAIM_UID[$id]=$UID_
done
AB exec "$A" -- sh -c 'echo hello >/workspace/f; id -u' >"$WORK/out" 2>"$WORK/err"
check "exec in a claimed pod, as uid 1000" '[[ $(cat "$WORK/out") == 1000 ]]' "$(cat "$WORK/out" "$WORK/err")"
AB exec "$B" -- cat /workspace/f >/dev/null 2>&1
check "each sandbox has its own workspace" '[[ $? != 0 ]]'
echo "copied in" >"$WORK/in.txt"
AB cp "$WORK/in.txt" "$A:/workspace/in.txt" && AB cp "$A:/workspace/in.txt" "$WORK/back.txt"
check "cp in and out" 'cmp -s "$WORK/in.txt" "$WORK/back.txt"'
AB inspect "$A" >"$WORK/inspect.json"
check "inspect names the claim" \
  'python3 -c "import json,sys; k=json.load(open(sys.argv[1]))[\"kubernetes\"]; assert k[\"sandbox_claim\"] == \"agentbox-$A\"" "$WORK/inspect.json"'

TOKEN_A=$(K get secret "agentbox-$A-token" -o jsonpath='{.data.token}' | base64 -d)
TOKEN_B=$(K get secret "agentbox-$B-token" -o jsonpath='{.data.token}' | base64 -d)
check "two sandboxes, two tokens" '[[ ${#TOKEN_A} == 64 && ${#TOKEN_B} == 64 && $TOKEN_A != "$TOKEN_B" ]]'
IP_A=$(K get sandboxclaim "agentbox-$A" -o jsonpath='{.status.sandbox.podIPs[0]}')
check "a second claim hello is refused" \
  '[[ $(claim_hello "$IP_A" "$TOKEN_B" claim) == *permission_denied* ]]'
check "another sandbox's token is refused" \
  '[[ $(claim_hello "$IP_A" "$TOKEN_B" agent) == *permission_denied* ]]'
check "its own token opens it" '[[ $(claim_hello "$IP_A" "$TOKEN_A" agent) == *\"ok\":true* ]]'
AB exec "$A" -- true
check "the sandbox still answers after the refused claim" '[[ $? == 0 ]]'

# Another state dir (the same owner) finds it in the cluster, through its claim.
OWNER_DIR=$WORK/other
mkdir -p "$OWNER_DIR"
OUT=$(AGENTBOX_KUBE_OWNER=$(K get sandboxclaim "agentbox-$A" -o jsonpath='{.metadata.labels.agentbox\.dev/owner}') \
  AGENTBOX_STATE_DIR=$OWNER_DIR timeout 120 "$AGENTBOX" exec claim-a -- cat /workspace/f 2>&1)
check "another state dir of the owner finds it by name and execs" '[[ $OUT == hello ]]' "$OUT"

# 3. A warm pool of the template: a create takes its ready pod, claims it with its own token.
cat >"$WORK/pool.yaml" <<YAML
apiVersion: extensions.agents.x-k8s.io/v1alpha1
kind: SandboxWarmPool
metadata: {name: warm, namespace: agentbox-test}
spec: {replicas: 1, sandboxTemplateRef: {name: $TEMPLATE}}
YAML
K apply -f "$WORK/pool.yaml" >/dev/null
check "a SandboxWarmPool of the template" 'K get sandboxwarmpool warm -o name >/dev/null'
deadline=$((SECONDS + 120))
until [[ $(K get pods -l agents.x-k8s.io/warm-pool=warm -o jsonpath='{.items[*].status.phase}') == Running ]]; do
  ((SECONDS < deadline)) || break
  sleep 0.2
done
WARM=$(K get pods -l agents.x-k8s.io/warm-pool=warm -o jsonpath='{.items[0].metadata.name}')
check "its pod runs, unclaimed" '[[ -n $WARM ]]'
C=$(AB create --backend kubernetes 2>"$WORK/err")
check "a create takes the warm pod" \
  '[[ -n $C && $(K get sandboxclaim "agentbox-$C" -o jsonpath="{.status.sandbox.name}") == "$WARM" ]]' \
  "$(cat "$WORK/err")"
CLAIM_UID[$C]=$(K get sandboxclaim "agentbox-$C" -o jsonpath='{.metadata.uid}' 2>/dev/null)
AB exec "$C" -- echo warm >"$WORK/out" 2>&1
check "and execs in it" '[[ $(cat "$WORK/out") == warm ]]' "$(cat "$WORK/out")"

# serve with the same environment (as deploy/ would run it with the variable added): a REST
# create is a claim, its exec runs, DELETE removes the claim.
SOCK=$WORK/serve.sock
"$AGENTBOX" serve --listen "unix:$SOCK" --backend kubernetes 2>"$WORK/serve.log" &
SERVE_PID=$!
for _ in $(seq 600); do
  grep -q "listening on" "$WORK/serve.log" 2>/dev/null && break
  kill -0 "$SERVE_PID" 2>/dev/null || break
  sleep 0.05
done
U() { timeout 180 curl -sS --unix-socket "$SOCK" -H 'Content-Type: application/json' "$@"; }
R=$(U -d '{"name":"served"}' http://x/v1/sandboxes)
S=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get("id", ""))' "$R" 2>/dev/null)
check "serve: a POST /v1/sandboxes is a claim" \
  '[[ -n $S ]] && K get sandboxclaim "agentbox-$S" -o name >/dev/null' "$R"
R=$(U -d '{"argv":["sh","-c","id -u"]}' "http://x/v1/sandboxes/$S/exec")
check "serve: its exec runs as uid 1000" \
  '[[ $(python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d[\"exit_code\"], d[\"stdout\"].strip())" "$R") == "0 1000" ]]' "$R"
U -X DELETE -o /dev/null "http://x/v1/sandboxes/$S"
check "serve: DELETE removes the claim and its Secret" \
  '! K get sandboxclaim "agentbox-$S" >/dev/null 2>&1 && gone secrets "agentbox.dev/sandbox=$S"'
kill "$SERVE_PID" && wait "$SERVE_PID"
SERVE_PID=

# 4. rm: nothing of the sandboxes is left.
AB rm "$A" "$B" "$C" >/dev/null 2>"$WORK/err"
check "rm" '[[ $? == 0 ]]' "$(cat "$WORK/err")"
for id in "$A" "$B" "$C"; do
  check "sandbox $id: no claim, Secret or pod left" \
    '! K get sandboxclaim "agentbox-$id" >/dev/null 2>&1 && gone secrets "agentbox.dev/sandbox=$id" && gone pods "agents.x-k8s.io/claim-uid=${CLAIM_UID[$id]}"'
done
K delete sandboxwarmpool warm >/dev/null
check "the pool's pods go with it" 'gone pods agents.x-k8s.io/warm-pool=warm'
check "no claim pod is left" 'gone pods agentbox.dev/template'
finish
