# shellcheck shell=bash disable=SC2016,SC2034  # checks are strings check() evals, using locals
# The checks of tests/kubernetes/kubectl_check.sh (sourced: K, check, WORK, fake.sh).

M=$HERE/manifests
curl_api() { curl -s --cacert "$WORK/s/ca.crt" -H "Authorization: Bearer ${2:-$FAKE_K8S_TOKEN}" "$FAKE_K8S_URL$1"; }
# Kubectl's output whatever its exit status (checks grep it; pipefail would see the status).
K_out() { K "$@" 2>&1 || true; }
json_names() { python3 -c 'import json,sys; print(" ".join(i["metadata"]["name"] for i in json.load(sys.stdin)["items"]))'; }
# wait_for FILE PATTERN: until the file has a line matching PATTERN (60 s at most).
wait_for() {
  local end=$((SECONDS + 60))
  until grep -q "$2" "$1" 2>/dev/null; do ((SECONDS < end)) || return 1; sleep 0.1; done
}

# wait_phase POD PHASE: an event wait for the pod's phase; `kubectl wait --for=jsonpath` where
# kubectl has it (1.23+), else a watch of the phase (Debian 12's kubectl is 1.20).
wait_phase() {
  if [[ $(kubectl wait --help 2>/dev/null) == *--for=jsonpath* ]]; then
    K wait --for=jsonpath="{.status.phase}=$2" "pod/$1" --timeout=60s >/dev/null
    return
  fi
  local out=$WORK/phase.$1.$2 pid rc
  K get pod "$1" --watch -o jsonpath='{.status.phase}{"\n"}' >"$out" 2>&1 &
  pid=$!
  wait_for "$out" "^$2\$"
  rc=$?
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return $rc
}

case_api() {
  check "get ns default" '[[ $(K get ns default -o jsonpath={.metadata.name}) == default ]]'
  check "get ns missing: NotFound" 'K_out get ns nosuch | grep -q "(NotFound): namespaces \"nosuch\" not found"'
  check "kubectl version names the server" 'K_out version | grep -q "Server Version:.*v1.30.0-agentbox-fake"'
  check "a wrong token: 401" 'K_out --token wrong get pods | grep -q "Unauthorized"'
  check "a 401 is a Status" 'curl_api /api/v1/namespaces wrong | grep -q "\"code\": 401"'
  check "TLS only with the kubeconfig's CA" '! curl -s "$FAKE_K8S_URL/version" >/dev/null'
}

case_pod() {
  local t0 ms ip
  t0=$(date +%s%N)
  check "create pod" 'K create -f "$M/web.yaml" | grep -q "pod/web created"'
  check "kubectl wait: phase Running" 'wait_phase web Running'
  ms=$((($(date +%s%N) - t0) / 1000000))
  echo "     create-to-Running through kubectl (two kubectl runs): $ms ms;" \
    "in the server $(grep -o 'Running [0-9.]* s after' "$WORK/s/server.log" | head -1) its create"
  check "create again: AlreadyExists" 'K_out create -f "$M/web.yaml" | grep -q "(AlreadyExists): .*pods \"web\" already exists"'
  check "a pod without containers: Invalid" \
    'echo "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"e\"},\"spec\":{\"containers\":[]}}" | K_out create -f - | grep -q "is invalid: spec.containers: Required value"'
  check "get pods -l app=x" '[[ $(K get pods -l app=x -o json | json_names) == web ]]'
  check "get pods -l app=nomatch" '[[ -z $(K get pods -l app=nomatch -o json | json_names) ]]'
  ip=$(K get pod web -o jsonpath='{.status.podIP}')
  check "podIP in the server's subnet" 'python3 -c "import ipaddress,sys; sys.exit(ipaddress.ip_address(\"$ip\") not in ipaddress.ip_network(\"$FAKE_K8S_SUBNET\"))"'
  check "the route to the pod goes through the server's bridge" 'ip -o route get "$ip" | grep -q " dev $FAKE_K8S_BRIDGE "'
  if ip -o route get "$ip" | grep -q " dev $FAKE_K8S_BRIDGE "; then
    check "the container serves what it wrote, on its pod IP" '[[ $(curl -s -m 10 "http://$ip:8080/marker") == marker-web-uid1000 ]]'
  fi
  check "kubectl logs" 'K logs web -c main | grep -qx marker-web-uid1000'
  check "the container ran from what its init container put in an emptyDir" \
    '$FAKE_K8S_PODMAN exec "$(K get pod web -o jsonpath={.metadata.uid} | cut -c1-13 | sed "s/^/k8sf-/")-main" /opt/agent/busybox true'
  # podman plays an emptyDir as a volume named as in the manifest: a second pod with the same
  # manifest must still get its own (its marker would overwrite web's otherwise).
  sed 's/name: web$/name: web2/' "$M/web.yaml" | K create -f - >/dev/null && wait_phase web2 Running
  check "a second pod's emptyDir is its own" '[[ $(curl -s -m 10 "http://$ip:8080/marker") == marker-web-uid1000 ]]'
  check "kubectl label and annotate (merge patches)" \
    'K label pod web tier=front >/dev/null && K annotate pod web note=hi >/dev/null && [[ $(K get pods -l tier=front -o json | json_names) == web ]] && [[ $(K get pod web -o jsonpath={.metadata.annotations.note}) == hi ]]'
  check "kubectl label -: removes it" 'K label pod web tier- >/dev/null && [[ -z $(K get pods -l tier -o json | json_names) ]]'
  check "fields podman ignores are kept" '[[ $(K get pod web -o jsonpath="{.spec.runtimeClassName} {.spec.securityContext.runAsNonRoot} {.spec.securityContext.seccompProfile.type} {.spec.volumes[0].emptyDir.sizeLimit}") == "gvisor true RuntimeDefault 16Mi" ]]'
}

case_watch() {
  local out=$WORK/watch.json wpid t0
  K get pods --watch --output-watch-events -o jsonpath='{.type} {.object.metadata.name} {.object.status.phase}{"\n"}' >"$out" 2>&1 &
  wpid=$!
  check "watch: the existing pod ADDED" 'wait_for "$out" "^ADDED web"'
  check "create a pod that runs to completion" 'K create -f "$M/job.yaml" >/dev/null'
  check "kubectl wait: phase Succeeded" 'wait_phase job Succeeded'
  check "kubectl logs of the finished pod" '[[ $(K logs job) == "job done" ]]'
  t0=$(date +%s%N)
  check "delete pod" 'K_out delete pod web web2 job | grep -q "pod \"job\" deleted"'
  echo "     delete of three pods (kubectl waits for them to be gone): $((($(date +%s%N) - t0) / 1000000)) ms"
  check "watch: job ADDED, Succeeded, DELETED" 'wait_for "$out" "^DELETED job" && grep -q "^ADDED job" "$out" && grep -q "^MODIFIED job Succeeded" "$out"'
  check "watch: web DELETED" 'wait_for "$out" "^DELETED web"'
  kill "$wpid" 2>/dev/null
  wait "$wpid" 2>/dev/null
  check "get pods: none left" '[[ -z $(K get pods -o json | json_names) ]]'
  check "the podman pods and their volumes are gone" '[[ -z $($FAKE_K8S_PODMAN pod ps -q)$($FAKE_K8S_PODMAN volume ls -q) ]]'
}

# A pod whose image the server never loaded: nothing is pulled, the play fails, the pod is Failed
# with podman's reason, and nothing of it is left in podman.
case_missing_image() {
  sed 's#localhost/agentbox-k8s-test:latest#localhost/agentbox-k8s-absent:latest#' "$M/job.yaml" | K create -f - >/dev/null
  check "an image never loaded: Failed, nothing pulled" 'wait_phase job Failed'
  check "its reason is podman's" '[[ $(K get pod job -o jsonpath={.status.reason}) == PodmanFailed ]]'
  check "nothing of it is left in podman" '[[ -z $($FAKE_K8S_PODMAN pod ps -q) ]]'
  K delete pod job >/dev/null
}

case_objects() {
  check "create secret" 'K create secret generic s1 --from-literal=k=v >/dev/null'
  check "get secret" '[[ $(K get secret s1 -o jsonpath={.data.k}) == dg== ]]'
  check "delete secret" 'K delete secret s1 >/dev/null && K_out get secret s1 | grep -q NotFound'
  check "create networkpolicy" 'K create -f "$M/netpol.yaml" >/dev/null'
  check "list networkpolicies by label" '[[ $(K get netpol -l app=x -o json | json_names) == deny-all ]]'
  check "namespaces cannot be deleted: 405" 'K_out delete ns default | grep -q MethodNotAllowed'
  check "delete networkpolicy" 'K delete netpol deny-all >/dev/null && [[ -z $(K get netpol -o json | json_names) ]]'
}

case_exit() {
  local bridge=$FAKE_K8S_BRIDGE
  K create -f "$M/web.yaml" >/dev/null && wait_phase web Running
  check "SIGTERM: the server exits 0" 'fake_k8s_stop'
  check "at exit: its podman pods are gone" '[[ -z $($FAKE_K8S_PODMAN pod ps -q) ]]'
  check "at exit: its bridge is gone" '! ip link show "$bridge" >/dev/null 2>&1'
  check "at exit: no mount left in its state dir" '! grep -q " $WORK/s/" /proc/self/mountinfo'
}

# A watch from a resourceVersion older than the bounded history: 200, then one ERROR event
# whose object is a 410 Expired Status (as the real server's watch cache answers).
case_expired() {
  fake_k8s_start "$WORK/e" --no-podman --history 3 || { bad "start the API-only server"; return; }
  for i in 1 2 3 4 5; do K create secret generic "w$i" --from-literal=k=v >/dev/null; done
  local first
  first=$(curl -s --cacert "$WORK/e/ca.crt" -H "Authorization: Bearer $FAKE_K8S_TOKEN" \
    "$FAKE_K8S_URL/api/v1/namespaces/agentbox-test/secrets?watch=true&resourceVersion=2&timeoutSeconds=5" | head -1)
  check "watch from a compacted resourceVersion: ERROR 410 Expired" \
    'python3 -c "import json,sys; e=json.loads(sys.argv[1]); sys.exit(not (e[\"type\"]==\"ERROR\" and e[\"object\"][\"code\"]==410 and e[\"object\"][\"reason\"]==\"Expired\"))" "$first"'
  local rv
  rv=$(K get secret w4 -o jsonpath='{.metadata.resourceVersion}')
  check "watch from a recent resourceVersion: exactly the events after it" \
    '[[ $(curl -s --cacert "$WORK/e/ca.crt" -H "Authorization: Bearer $FAKE_K8S_TOKEN" "$FAKE_K8S_URL/api/v1/namespaces/agentbox-test/secrets?watch=1&resourceVersion=$rv&timeoutSeconds=1" | python3 -c "import json,sys; print(*[json.loads(l)[\"type\"] + \" \" + json.loads(l)[\"object\"][\"metadata\"][\"name\"] for l in sys.stdin])") == "ADDED w5" ]]'
  check "--no-podman: a pod is admitted Pending" \
    'K create -f "$M/job.yaml" >/dev/null && [[ $(K get pod job -o jsonpath={.status.phase}) == Pending ]]'
  check "--no-podman: a pod deletes at once" 'K delete pod job >/dev/null && [[ -z $(K get pods -o json | json_names) ]]'
  fake_k8s_stop
}

# The strict pod (manifests/strict.yaml): what podman 4.3 honours, read from the container's own
# view in its log; what it ignores (a memory-backed emptyDir is a disk volume here) stays on the
# object, where the backend's tests assert it.
case_strict() {
  local log=$WORK/strict.log end=$((SECONDS + 60))
  check "the strict pod runs" 'K create -f "$M/strict.yaml" >/dev/null && wait_phase strict Running'
  until K logs strict -c main >"$log" 2>&1 && grep -qx ready "$log"; do ((SECONDS < end)) || break; sleep 0.2; done
  check "strict: no capabilities" 'grep -qP "^CapEff:\t0{16}$" "$log"'
  check "strict: no_new_privs" 'grep -qP "^NoNewPrivs:\t1$" "$log"'
  check "strict: a seccomp filter" 'grep -qP "^Seccomp:\t2$" "$log"'
  check "strict: uid 1000, read-only root, writable /tmp" 'grep -qx uid=1000 "$log" && grep -qx rootfs=ro "$log" && grep -qx tmp=rw "$log"'
  check "strict: the memory limit" 'grep -qx memory=67108864 "$log"'
  check "strict: the fields podman ignores are on the object" \
    '[[ $(K get pod strict -o jsonpath="{.spec.securityContext.runAsNonRoot} {.spec.volumes[1].emptyDir.medium} {.spec.volumes[1].emptyDir.sizeLimit} {.spec.automountServiceAccountToken} {.spec.activeDeadlineSeconds}") == "true Memory 32Mi false 600" ]]'
  K delete pod strict >/dev/null
}

run_cases() {
  export CONTAINERS_CONF=$FAKE_K8S_CONTAINERS_CONF
  case_api
  case_pod
  case_watch
  case_strict
  case_missing_image
  case_objects
  case_exit
  case_expired
}
