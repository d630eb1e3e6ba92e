#!/usr/bin/env bash
# kubernetes_agent_tcp: the agent over TCP with its token, end to end without the backend: the
# golden pod (tests/golden/kubernetes/strict.json) with a fresh token Secret, created through the
# fake API server (tests/kubernetes/fake.sh) whose podman runs it for real on the server's own
# bridge network. The init container is the agent image scripts/build-agent-image.sh makes; the
# host side is agent_test_client (the host's own ConnectAgent and AgentExec). Prints "ok"/"FAIL"
# per check and "N passed, N failed"; 77 (with the reason) where podman cannot run, which under
# CI=true is a failure.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
skip() { echo "skip: $1"; [[ "${CI:-}" == "true" ]] && exit 1; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "podman's bridge networks need root"
for tool in python3 openssl kubectl podman ip busybox; do
  command -v "$tool" >/dev/null || skip "$tool missing (scripts/install-deps.sh test installs it)"
done
: "${AGENTBOX_AGENT:?the static agent}" "${AGENT_TEST_CLIENT:?tests/agent_docker/agent_test_client}"

WORK=$(mktemp -d /tmp/agentbox-k8s-agent-tcp.XXXXXX)
PASS=0 FAIL=0
# shellcheck source=tests/kubernetes/fake.sh
source "$HERE/fake.sh"
trap 'fake_k8s_stop 2>/dev/null; rm -rf "$WORK"' EXIT
ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1${2:+: $2}"; }
check() { if eval "$2"; then ok "$1"; else bad "$1" "${3:-}"; fi; }
K() { timeout 60 kubectl -n agentbox-test "$@"; }

# The two images, from this machine's files: the busybox test root as the sandbox's image, and
# the agent image (its tag is the manifest's: agentbox-agent:VERSION).
fake_k8s_up "$WORK" localhost/agentbox-k8s-test:latest "$AGENTBOX_AGENT"
case $? in
  0) ;;
  2) skip "the fake server could not start podman" ;;
  *) echo "0 passed, 1 failed (the images)"; exit 1 ;;
esac

# The golden objects as they are, but for the sandbox's image, a fresh token and the egress relay
# (--egress-relay-tcp, what the backend adds for a sandbox with allow_hosts).
TOKEN=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
python3 - "$SRC/tests/golden/kubernetes/strict.json" "$TOKEN" >"$WORK/objects.json" <<'PY'
import base64, json, sys
objects = json.load(open(sys.argv[1]))
for o in objects["items"]:
    if o["kind"] == "Pod":
        o["spec"]["containers"][0]["image"] = "localhost/agentbox-k8s-test:latest"
        o["spec"]["containers"][0]["args"].append("--egress-relay-tcp")
    if o["kind"] == "Secret":
        o["data"]["token"] = base64.b64encode(sys.argv[2].encode()).decode()
# The Secret before the pod that mounts it, as the backend creates them.
objects["items"].sort(key=lambda o: o["kind"] == "Pod")
json.dump(objects, sys.stdout)
PY
POD=$(python3 -c 'import json,sys; print(next(o["metadata"]["name"] for o in json.load(open(sys.argv[1]))["items"] if o["kind"] == "Pod"))' "$WORK/objects.json")
check "the golden pod, its Secret and NetworkPolicy are created" \
  'K create -f "$WORK/objects.json" >/dev/null'
if [[ $(kubectl wait --help 2>/dev/null) == *--for=jsonpath* ]]; then
  K wait --for=jsonpath='{.status.phase}=Running' "pod/$POD" --timeout=60s >/dev/null
else
  K wait --for=condition=Ready "pod/$POD" --timeout=60s >/dev/null
fi
IP=$(K get pod "$POD" -o jsonpath='{.status.podIP}')
if [[ -z $IP ]]; then
  bad "the pod runs and has an IP" "$(K get pod "$POD" -o jsonpath='{.status}'; K logs "$POD" 2>&1 | tail -5)"
  echo "$PASS passed, $FAIL failed"
  exit 1
fi
# Test traffic stays on this machine: only through the fake's own bridge.
DEV=$(ip -o route get "$IP" | sed -n 's/.* dev \([^ ]*\).*/\1/p')
[[ $DEV == "$FAKE_K8S_BRIDGE" ]] || { bad "route to $IP" "through $DEV, not $FAKE_K8S_BRIDGE"; exit 1; }
ok "the pod runs at $IP (through the bridge $DEV)"

AGENT=tcp:$IP:7070
C() { AGENT_TEST_TOKEN=$TOKEN timeout 60 "$AGENT_TEST_CLIENT" "$@"; }
# The agent may still be binding its port right after the container started.
for _ in $(seq 100); do C ping "$AGENT" >/dev/null 2>&1 && break; sleep 0.1; done
check "ping with the token" 'C ping "$AGENT" | grep >/dev/null "\"ok\":true"'
check "exec: output and identity (uid 1000, PID 1 the agent)" \
  '[[ $(C exec "$AGENT" --result "$WORK/r" -- sh -c "echo hi; id -u; cat /proc/1/comm") == $(printf "hi\n1000\nagentbox-agent") ]] && grep -q "\"exit_code\":0" "$WORK/r"'
check "exec with stdin over TCP (streamed as frames)" \
  '[[ $(seq 1 20000 | C exec "$AGENT" --stdin --result "$WORK/r" -- sh -c "wc -l") == 20000 ]]'
check "write_file then read_file" \
  'echo "over tcp" | C write "$AGENT" f.txt 2>/dev/null; [[ $(C read "$AGENT" f.txt 2>/dev/null) == "over tcp" ]]'
check "the file is the sandbox user's in /workspace" \
  '[[ $(C exec "$AGENT" --result "$WORK/r" -- stat -c "%u %n" /workspace/f.txt 2>/dev/null) == "1000 /workspace/f.txt" ]]'
check "a background process over TCP (exec -d, proc_wait, proc_logs, ps)" \
  'C request "$AGENT" "{\"op\":\"exec\",\"argv\":[\"sh\",\"-c\",\"echo bg-out\"],\"detach\":true,\"timeout_ms\":0}" | grep >/dev/null "\"id\":\"p1\"" &&
   C request "$AGENT" "{\"op\":\"proc_wait\",\"proc\":\"p1\",\"timeout_ms\":20000}" | grep >/dev/null "\"state\":\"exited\"" &&
   C request "$AGENT" "{\"op\":\"proc_logs\",\"proc\":\"p1\",\"follow\":false}" | grep >/dev/null "^bg-out" &&
   C request "$AGENT" "{\"op\":\"ps\"}" | grep >/dev/null "\"id\":\"p1\""'
# The same token but for its last digit.
LAST=0
[[ ${TOKEN: -1} == 0 ]] && LAST=1
export LAST  # for check's eval
check "a wrong token is refused (exit 4), and its request never served" \
  'AGENT_TEST_TOKEN=${TOKEN%?}$LAST timeout 60 "$AGENT_TEST_CLIENT" ping "$AGENT" >"$WORK/out" 2>&1; [[ $? -eq 4 ]] && ! grep -q active_execs "$WORK/out"'
check "no token at all is refused" \
  'AGENT_TEST_TOKEN= timeout 60 "$AGENT_TEST_CLIENT" ping "$AGENT" >/dev/null 2>&1; [[ $? -eq 4 ]]'
# A connection that never says hello is closed by the agent in bounded time (5 s).
check "a silent connection is closed within the hello timeout" \
  'python3 -c "
import socket, sys, time
s = socket.create_connection((sys.argv[1], 7070), timeout=20)
t = time.monotonic()
got = s.recv(1)
took = time.monotonic() - t
if got != b\"\" or took >= 10:
    sys.exit(\"read %r after %.1f s\" % (got, took))" "$IP"'
# A command of the sandbox can read the token (same uid as the agent), so the agent refuses
# connections from the pod's own addresses before any hello: a hello with the right token and a
# ping behind it, sent from inside to the pod's IP and to loopback, get nothing back.
python3 - "$TOKEN" >"$WORK/hello" <<'PY'
import json, struct, sys
def frame(body):
    p = json.dumps(body).encode()
    return b"Q" + struct.pack("<I", len(p)) + p
sys.stdout.buffer.write(frame({"op": "hello", "token": sys.argv[1]}) + frame({"op": "ping"}))
PY
C write "$AGENT" hello <"$WORK/hello" 2>/dev/null
check "a command inside the pod cannot reach its agent, token in hand" \
  '[[ $(C exec "$AGENT" --result "$WORK/r" -- sh -c "command -v nc" 2>/dev/null) == */nc ]] &&
   [[ -z $(C exec "$AGENT" --result "$WORK/r" -- sh -c "nc -w 5 $IP 7070 <hello; nc -w 5 127.0.0.1 7070 <hello" 2>/dev/null) ]] &&
   grep -q "\"exit_code\":0" "$WORK/r"'

# The egress relay (agent/egress_relay.h) through the agent's port: a hello naming it with the
# token, then its lines; a connection of the pod's to the listener it made reaches the parked one.
cat >"$WORK/relay.py" <<'PY'
import json, os, socket, struct, subprocess, sys
ip, token, mode = sys.argv[1], sys.argv[2], sys.argv[3]
def hello(tok):
    s = socket.create_connection((ip, 7070), timeout=20)
    p = json.dumps({"op": "hello", "token": tok, "to": "egress_relay"}).encode()
    s.sendall(b"Q" + struct.pack("<I", len(p)) + p)
    head = s.recv(5, socket.MSG_WAITALL)
    return s, json.loads(s.recv(struct.unpack("<I", head[1:])[0], socket.MSG_WAITALL))
if mode == "wrong":
    _, body = hello(token[:-1] + ("1" if token[-1] == "0" else "0"))
    sys.exit(0 if body.get("code") == "permission_denied" else "answered %r" % body)
owner, body = hello(token)
assert body.get("ok"), body
owner.sendall(b"listen\n")
ok, lid, port = owner.recv(64).decode().split()
assert ok == "ok", ok
parked, body = hello(token)
assert body.get("ok"), body
parked.sendall(b"park " + lid.encode() + b"\n")
cmd = "echo through-the-relay | nc -w 5 127.0.0.1 " + port
# busybox's nc waits for the other side to close: read, close, then wait for it.
nc = subprocess.Popen([os.environ["AGENT_TEST_CLIENT"], "exec", "tcp:%s:7070" % ip, "--result",
                       os.devnull, "--", "sh", "-c", cmd],
                      env=dict(os.environ, AGENT_TEST_TOKEN=token), stdout=subprocess.DEVNULL)
got = b""
while not got.endswith(b"\n") and len(got) < 100:
    chunk = parked.recv(64)
    if not chunk:
        break
    got += chunk
parked.close()
nc.wait(timeout=30)
sys.exit(0 if got == b"cthrough-the-relay\n" else "the parked connection got %r" % got)
PY
check "the egress relay: listen and park through the agent's port, a pod's connection relayed" \
  'timeout 60 python3 "$WORK/relay.py" "$IP" "$TOKEN" ok'
check "the egress relay refuses a wrong token" \
  'timeout 60 python3 "$WORK/relay.py" "$IP" "$TOKEN" wrong'

echo "$PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
