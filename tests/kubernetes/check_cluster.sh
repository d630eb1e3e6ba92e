#!/usr/bin/env bash
# kubernetes_check_cluster: scripts/check-cluster.sh (run by hand against a real cluster) run
# against the fake API server, so the script a user relies on keeps working: every check it can
# make here must PASS. Skipped by name, as the fake cannot honour them: `rights` (the fake has no
# SelfSubjectAccessReview) and `network` (podman does not enforce NetworkPolicy). 77 (with the
# reason) where podman cannot run, which under CI=true is a failure.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
skip() { echo "skip: $1"; [[ "${CI:-}" == "true" ]] && exit 1; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "podman's bridge networks need root"
for tool in python3 openssl kubectl podman ip busybox; do
  command -v "$tool" >/dev/null || skip "$tool missing (scripts/install-deps.sh test installs it)"
done
: "${AGENTBOX:?the agentbox binary}"
agent=${AGENTBOX_AGENT:-$(dirname "$AGENTBOX")/agentbox-agent}

WORK=$(mktemp -d /tmp/agentbox-k8s-check.XXXXXX)
# shellcheck source=tests/kubernetes/fake.sh
source "$HERE/fake.sh"
trap 'fake_k8s_stop 2>/dev/null; rm -rf "$WORK"' EXIT
fake_k8s_up "$WORK" localhost/agentbox-check:latest "$agent"
case $? in
  0) ;;
  2) skip "the fake server could not start podman" ;;
  *) echo "0 passed, 1 failed (the images)"; exit 1 ;;
esac

export AGENTBOX_STATE_DIR=$WORK/state
"$SRC/scripts/check-cluster.sh" --agentbox "$AGENTBOX" --image localhost/agentbox-check:latest \
  --namespace agentbox-test --skip rights,network | tee "$WORK/out"
rc=${PIPESTATUS[0]}
want="create pod-spec inside cp limits rm"
missing=()
for check in $want; do grep -q "^PASS $check:" "$WORK/out" || missing+=("$check"); done
if [[ $rc == 0 && ${#missing[@]} == 0 ]]; then
  echo "$(wc -w <<<"$want") passed, 0 failed"
  exit 0
fi
echo "0 passed, 1 failed (check-cluster.sh exited $rc; no PASS for: ${missing[*]:-})"
exit 1
