#!/usr/bin/env bash
# check-cluster.sh: run by hand against a real cluster (kind, k3s, GKE, ...) to see that the
# kubernetes backend's promises hold there, where the fake API server of `make test` cannot tell:
# a real kubelet, container runtime, admission and network plugin (docs/kubernetes.md, "Checking
# a real cluster"). It makes sandboxes in one namespace and removes only those (`agentbox rm`,
# then checks by label that nothing is left); it never creates or deletes anything else.
#
#   scripts/check-cluster.sh --image IMAGE [--agent-image REF] [--namespace NS] [--context NAME]
#                            [--kubeconfig PATH] [--runtime-class NAME] [--skip NAME,...]
#                            [--conformance] [--agentbox PATH]
#
# Each check prints PASS, FAIL or SKIP with what it saw; the exit status is 1 when any FAILed.
set -uo pipefail
usage() { sed -n '8,10p' "$0" | sed 's/^# \{0,3\}//' >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
agentbox=$src/build/agentbox image='' namespace='' runtime_class='' skip='' conformance=''
kube_args=()
while (($#)); do
  case $1 in
    --image) image=${2:?}; shift ;;
    --agent-image) export AGENTBOX_KUBE_AGENT_IMAGE=${2:?}; shift ;;
    --namespace) namespace=${2:?}; shift ;;
    --context | --kubeconfig) kube_args+=("$1" "${2:?}"); shift ;;
    --runtime-class) runtime_class=${2:?}; shift ;;
    --skip) skip=,${2:?},; shift ;;
    --conformance) conformance=1 ;;
    --agentbox) agentbox=${2:?}; shift ;;
    -h | --help) usage ;;
    *) echo "check-cluster: unknown option $1" >&2; usage ;;
  esac
  shift
done
[[ -n $image ]] || { echo "check-cluster: --image IMAGE is required (an image with a POSIX sh the nodes can pull)" >&2; exit 2; }
[[ -x $agentbox ]] || { echo "check-cluster: no agentbox at $agentbox (make build, or --agentbox PATH)" >&2; exit 2; }
command -v kubectl >/dev/null || { echo "check-cluster: kubectl is needed" >&2; exit 2; }
command -v python3 >/dev/null || { echo "check-cluster: python3 is needed" >&2; exit 2; }

cluster_args=()  # kubectl's spelling of --context/--kubeconfig
for ((i = 0; i < ${#kube_args[@]}; i += 2)); do
  cluster_args+=("${kube_args[i]}=${kube_args[i + 1]}")
done
kubectl_args=("${cluster_args[@]}")
[[ -n $namespace ]] && { kube_args+=(--namespace "$namespace"); kubectl_args+=(--namespace="$namespace"); }
ab() { "$agentbox" "$@"; }
kc() { timeout 60 kubectl "${kubectl_args[@]}" "$@"; }
kind=(--backend kubernetes "${kube_args[@]}" --image "$image")
[[ -n $runtime_class ]] && kind+=(--runtime "$runtime_class")

failed=0 boxes=()
pass() { echo "PASS $1: $2"; }
fail() { echo "FAIL $1: $2"; failed=1; }
skipped() { [[ $skip == *",$1,"* ]] && { echo "SKIP $1: asked to skip"; return 0; }; return 1; }
# Every sandbox made here goes, however the script ends; then nothing of it may be left.
cleanup() {
  local id
  for id in "${boxes[@]}"; do ab rm -f "$id" >/dev/null 2>&1; done
}
trap cleanup EXIT
new_box() {
  local id
  id=$(ab create "${kind[@]}" "$@") || return 1
  boxes+=("$id")
  echo "$id"
}
objects_of() { kc get pods,secrets,networkpolicies -l "agentbox.dev/sandbox=$1" -o name; }

# ---- the rights agentbox needs in the namespace (deploy/10-rbac.yaml grants them to serve) ----
rights_ok=1
skipped rights && rights_ok=2
((rights_ok == 1)) && for verb_res in create:pods get:pods list:pods watch:pods delete:pods create:secrets get:secrets \
  delete:secrets create:networkpolicies.networking.k8s.io delete:networkpolicies.networking.k8s.io; do
  [[ $(kc auth can-i "${verb_res%%:*}" "${verb_res#*:}" 2>/dev/null) == yes ]] ||
    { fail rights "cannot ${verb_res%%:*} ${verb_res#*:}"; rights_ok=0; }
done
((rights_ok == 1)) && pass rights "create/get/list/watch/delete pods, secrets, networkpolicies"

# ---- one strict sandbox, as a create with no options makes it ----
start=$(date +%s%N)
box=$(new_box --ttl 1h) || { fail create "agentbox create failed (its error above)"; exit 1; }
pass create "sandbox $box, running in $((($(date +%s%N) - start) / 1000000)) ms"

# The pod as the API server holds it (admission may have changed it: that is what counts).
if ! skipped pod-spec; then
  pod=$(kc get pod "agentbox-$box" -o json) || fail pod-spec "cannot read pod agentbox-$box"
  netpol=$(kc get networkpolicy -l "agentbox.dev/sandbox=$box" -o json)
  bad=$(POD=$pod NETPOL=$netpol RUNTIME_CLASS=$runtime_class python3 - <<'EOF'
import json, os
pod, np = json.loads(os.environ["POD"]), json.loads(os.environ["NETPOL"])["items"]
spec, bad = pod["spec"], []
def want(ok, what):
    if not ok: bad.append(what)
psc = spec.get("securityContext", {})
want(psc.get("runAsNonRoot") is True, "pod runAsNonRoot")
want(spec.get("automountServiceAccountToken") is False, "automountServiceAccountToken false")
for host in ("hostNetwork", "hostPID", "hostIPC"):
    want(not spec.get(host), host + " unset")
want(not any("hostPath" in v for v in spec.get("volumes", [])), "no hostPath volume")
want(spec.get("activeDeadlineSeconds") == 3600, "activeDeadlineSeconds 3600 (--ttl 1h)")
if os.environ["RUNTIME_CLASS"]:
    want(spec.get("runtimeClassName") == os.environ["RUNTIME_CLASS"], "runtimeClassName")
for c in spec.get("initContainers", []) + spec["containers"]:
    sc, name = c.get("securityContext", {}), c["name"]
    want(sc.get("readOnlyRootFilesystem") is True, name + " readOnlyRootFilesystem")
    want(sc.get("allowPrivilegeEscalation") is False, name + " allowPrivilegeEscalation false")
    want(sc.get("capabilities", {}).get("drop") == ["ALL"], name + " capabilities drop ALL")
    want(sc.get("runAsUser", psc.get("runAsUser", 0)) != 0, name + " not uid 0")
box = spec["containers"][0]
res = box.get("resources", {})
want(res.get("requests") == res.get("limits") and "memory" in res.get("limits", {}), "requests = limits with memory")
ws = [v for v in spec.get("volumes", []) if v["name"] == "workspace"]
want(ws and "sizeLimit" in ws[0].get("emptyDir", {}), "workspace emptyDir with sizeLimit")
want(len(np) == 1 and set(np[0]["spec"].get("policyTypes", [])) == {"Ingress", "Egress"}
     and not np[0]["spec"].get("egress"), "one NetworkPolicy denying egress")
print("; ".join(bad))
EOF
)
  [[ -z $bad ]] && pass pod-spec "non-root, read-only root, no capabilities, no privilege escalation, no host namespaces or paths, no token, requests = limits, workspace sizeLimit, deadline, deny-egress NetworkPolicy" ||
    fail pod-spec "missing: $bad"
fi

# What the node really enforces, seen from inside the sandbox.
inside() { ab exec "$box" -- sh -c "$1" 2>/dev/null; }
if ! skipped inside; then
  uid=$(inside 'id -u')
  status=$(inside 'grep -E "^(NoNewPrivs|Seccomp|CapEff|CapBnd):" /proc/self/status | tr -s "\t " " "')
  problems=()
  [[ -n $uid && $uid != 0 ]] || problems+=("uid ${uid:-?}")
  [[ $status == *"NoNewPrivs: 1"* ]] || problems+=("no_new_privs not set")
  [[ $status == *"Seccomp: 2"* ]] || problems+=("no seccomp filter")
  [[ $status == *"CapEff: 0000000000000000"* ]] || problems+=("effective capabilities")
  inside 'touch /agentbox-check 2>/dev/null' && problems+=("the root is writable")
  inside 'echo ok >/workspace/agentbox-check && cat /workspace/agentbox-check' | grep -qx ok ||
    problems+=("/workspace is not writable")
  ((${#problems[@]} == 0)) && pass inside "uid $uid, no_new_privs, seccomp filter, no capabilities, read-only root, writable /workspace" ||
    fail inside "$(IFS=';'; echo "${problems[*]}")"
fi

# The NetworkPolicy is only as good as the network plugin that enforces it: the sandbox must not
# reach the API server (the service every pod is told of, when we may read it) or the internet.
if ! skipped network; then
  targets="1.1.1.1:80 8.8.8.8:53"
  api=$(timeout 60 kubectl "${cluster_args[@]}" -n default get service kubernetes \
    -o 'jsonpath={.spec.clusterIP}:{.spec.ports[0].port}' 2>/dev/null) && [[ $api == *.*:* ]] &&
    targets="$api $targets"
  if ! inside 'command -v nc' >/dev/null; then
    fail network "the image has no nc to try connections with: use a busybox-based --image or --skip network"
  else
    reached=$(inside "for t in $targets; do nc -w 3 \${t%:*} \${t##*:} </dev/null >/dev/null 2>&1 && echo \$t; done")
    [[ -z $reached ]] && pass network "no connection out ($targets)" ||
      fail network "the sandbox reached $(echo $reached): the network plugin does not enforce the NetworkPolicy"
  fi
fi

# Files in and out, and the effect report of the pod's own cgroup.
if ! skipped cp; then
  tmp=$(mktemp -d)
  echo "agentbox check $$" >"$tmp/in"
  if ab cp "$tmp/in" "$box:in.txt" && ab cp "$box:in.txt" "$tmp/out" && cmp -s "$tmp/in" "$tmp/out"; then
    pass cp "a file in and back out, byte for byte"
  else
    fail cp "cp in/out did not round-trip"
  fi
  rm -rf "$tmp"
fi
if ! skipped limits; then
  # A memory limit hit, reported as such: the pod's cgroup read by its agent.
  out=$(ab exec --json "$box" -- sh -c 'x=a; while :; do x=$x$x; done' 2>/dev/null)
  if python3 -c 'import json,sys; sys.exit("memory" not in json.load(sys.stdin).get("limits_hit", []))' <<<"$out" 2>/dev/null; then
    pass limits "a command past the memory limit was stopped and reported (limits_hit memory)"
  else
    fail limits "the memory limit was not reported as hit: ${out:0:300}"
  fi
  note=$(ab inspect "$box" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("pids_limit"))')
  echo "INFO pids: $note"
fi

# rm leaves nothing behind, once the pod's termination is over.
ab rm -f "$box" >/dev/null
kc wait --for=delete pod "agentbox-$box" --timeout=60s >/dev/null 2>&1
left=$(objects_of "$box")
[[ -z $left ]] && pass rm "no pod, Secret or NetworkPolicy of $box left" || fail rm "left behind: $(echo $left)"
boxes=()

# The whole conformance suite on this cluster (slow: a pod per case).
if [[ -n $conformance ]]; then
  echo "check-cluster: the conformance suite on kubernetes (image $image) ..."
  if AGENTBOX=$agentbox ABPROBE=${ABPROBE:-$src/build/tests/abprobe} AGENTBOX_SRC=$src \
    AGENTBOX_BACKEND=kubernetes AGENTBOX_IMAGE=$image AGENTBOX_KUBE_NAMESPACE=${namespace:-} \
    CASE_TIMEOUT=${CASE_TIMEOUT:-300} CALL_TIMEOUT=${CALL_TIMEOUT:-180} \
    bash "$src/tests/conformance/run.sh"; then
    pass conformance "the suite passed"
  else
    fail conformance "cases failed (above)"
  fi
fi
exit $failed
