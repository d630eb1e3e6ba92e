#!/usr/bin/env bash
# run_suite.sh SUITE [REGEX]: runs tests/SUITE/run.sh against the kubernetes backend
# (AGENTBOX_BACKEND=kubernetes) on the fake API server (tests/kubernetes/fake.sh), whose pods run
# for real under podman on a bridge network of its own: the same cases, the real manifests, the
# real agent as each pod's PID 1, reached over TCP with its token.
#
# The fake's private podman store gets two images, made here from this host's files (nothing is
# pulled): the busybox test root as agentbox-test:latest (the sandboxes' image) and the agent
# image agentbox-agent:VERSION (scripts/build-agent-image.sh).
# Only the server, its pods and its network are stopped at the end (by its pid). Skipped with the
# reason (77) without root or podman; under CI=true that is a failure.
set -uo pipefail
suite=${1:?usage: run_suite.sh SUITE [REGEX]}
here=$(cd "$(dirname "$0")" && pwd)
tests=$(cd "$here/.." && pwd)
skip() {
  echo "SKIP $suite on kubernetes: $1"
  if [[ ${CI:-} == true ]]; then echo "0 passed, 1 failed (skipped in CI, where nothing may be skipped)"; exit 1; fi
  echo "0 passed, 0 failed, 1 skipped"
  exit 77
}
[[ $(id -u) -eq 0 ]] || skip "podman's bridge networks need root"
for tool in python3 openssl podman ip busybox; do
  command -v "$tool" >/dev/null || skip "$tool missing (scripts/install-deps.sh test installs it)"
done
agent=${AGENTBOX_AGENT:-$(dirname "$AGENTBOX")/agentbox-agent}
[[ -x $agent ]] || { echo "0 passed, 1 failed (no agent binary at $agent)"; exit 1; }

work=$(mktemp -d /tmp/agentbox-k8s-lane.XXXXXX)
# shellcheck source=tests/kubernetes/fake.sh
source "$here/fake.sh"
trap 'fake_k8s_stop; rm -rf "$work"' EXIT

# AGENTBOX_KUBE_SANDBOX_CLAIMS=1: the same cases through agent-sandbox's SandboxClaim, on a fake
# that serves its CRDs and runs its minimal controller (tests/kubernetes/fakeapi/agent_sandbox.py).
server_args=()
[[ -n ${AGENTBOX_KUBE_SANDBOX_CLAIMS:-} ]] && server_args=(--agent-sandbox)
fake_k8s_up "$work" localhost/agentbox-test:latest "$agent" "${server_args[@]}"
case $? in
  0) ;;
  2) skip "the fake API server could not start podman (log above)" ;;
  *) echo "0 passed, 1 failed (the images)"; exit 1 ;;
esac
echo "run_suite: the fake API server listens at $FAKE_K8S_URL, pods on $FAKE_K8S_BRIDGE ($FAKE_K8S_SUBNET)"

export AGENTBOX_BACKEND=kubernetes
# A pod starts through podman kube play, seconds on a busy host (ten at once in
# many_sandboxes_at_once): the harness's bounds get room for that, not the cases' own timeouts.
export CASE_TIMEOUT=${CASE_TIMEOUT:-180} CALL_TIMEOUT=${CALL_TIMEOUT:-90}
bash "$tests/$suite/run.sh" "${@:2}"
