#!/usr/bin/env bash
# kubernetes_fake: the fake API server (tests/kubernetes/fake_apiserver.py) checked against the real
# kubectl, as against a cluster, with its pods run for real by podman on the server's own bridge.
# Prints "ok"/"FAIL" per check and "N passed, N failed"; exits 77 (with the reason) when podman
# cannot run here, which under CI=true is a failure.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
skip() { echo "skip: $1"; [[ "${CI:-}" == "true" ]] && exit 1; exit 77; }
# The parts kubectl cannot reach (the route check, phases, the bounded history), without podman.
python3 "$HERE/fakeapi_test.py" >/dev/null 2>&1 || { python3 "$HERE/fakeapi_test.py"; exit 1; }
echo "ok   fakeapi_test.py (route check, phases, history, selectors)"
[[ $(id -u) -eq 0 ]] || skip "podman's bridge networks need root"
for tool in python3 openssl kubectl podman curl ip busybox; do
  command -v "$tool" >/dev/null || skip "$tool missing (scripts/install-deps.sh test installs it)"
done

WORK=$(mktemp -d /tmp/agentbox-k8s-fake.XXXXXX)
PASS=1 FAIL=0
# shellcheck source=tests/kubernetes/fake.sh
source "$HERE/fake.sh"
cleanup() {
  fake_k8s_stop 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1${2:+: $2}"; }
check() { if eval "$2"; then ok "$1"; else bad "$1" "${3:-}"; fi; }

# The pods' image: the docker lanes' busybox root, imported into the server's private store.
fake_k8s_image "$WORK" || skip "cannot build the busybox root"
fake_k8s_start "$WORK/s" --image-import "localhost/agentbox-k8s-test:latest=$WORK/root.tar" ||
  { [[ ${CI:-} == true ]] && exit 1; skip "the fake server could not start podman (log above)"; }
K() { timeout 60 kubectl "$@"; }

# shellcheck source=tests/kubernetes/kubectl_cases.sh
source "$HERE/kubectl_cases.sh"
run_cases

echo "$PASS passed, $FAIL failed"
[[ $FAIL -eq 0 ]]
