#!/usr/bin/env bash
# run_suite.sh SUITE: runs tests/SUITE/run.sh against the docker backend (AGENTBOX_BACKEND=docker).
#
# Needs a Docker daemon (scripts/dockerd-ci.sh start; `make test` does it) and makes the default
# test image agentbox-test:latest from a busybox-static rootfs with `agentbox image import` when
# the daemon lacks it. AGENTBOX_TEST_IMAGE=debian runs the suite on the Debian test image
# instead (agentbox-test-debian:latest, made or taken from its cache by
# scripts/build-debian-image.sh, passed to every create/run as --image). Without a daemon the suite is skipped with the reason (exit 77, ctest's
# SKIP_RETURN_CODE); under CI=true that is a failure, since CI starts dockerd.
set -uo pipefail
suite=${1:?usage: run_suite.sh SUITE}
here=$(cd "$(dirname "$0")/.." && pwd)
src=$(cd "$here/.." && pwd)
sock=${DOCKER_HOST:-unix:///var/run/docker.sock}
sock=${sock#unix://}

if ! curl -fsS --max-time 3 --unix-socket "$sock" http://docker/_ping >/dev/null 2>&1; then
  echo "SKIP $suite on docker: no Docker daemon answers on $sock (start one: scripts/dockerd-ci.sh start)"
  if [[ ${CI:-} == true ]]; then echo "0 passed, 1 failed (skipped in CI, where nothing may be skipped)"; exit 1; fi
  echo "0 passed, 0 failed, 1 skipped"
  exit 77
fi

image=agentbox-test:latest
if ! curl -fsS --unix-socket "$sock" "http://docker/images/$image/json" >/dev/null 2>&1; then
  rootfs=$(mktemp -d /tmp/agentbox-test-rootfs-XXXXXX)
  trap 'rm -rf "$rootfs"' EXIT
  "$src/scripts/build-test-rootfs.sh" "$rootfs/root" && "$AGENTBOX" image import "$rootfs/root" "$image" ||
    { echo "0 passed, 1 failed (could not make the test image $image)"; exit 1; }
fi

# The images suite pushes the Debian image to its registry: it needs it too.
if [[ ${AGENTBOX_TEST_IMAGE:-} == debian || $suite == images ]]; then
  start=$SECONDS
  "$src/scripts/build-debian-image.sh" --docker >/dev/null ||
    { echo "0 passed, 1 failed (could not make the Debian test image)"; exit 1; }
  echo "run_suite: the Debian test image is ready ($((SECONDS - start)) s)"
  [[ $suite == images ]] || export AGENTBOX_IMAGE=agentbox-test-debian:latest
fi

# AGENTBOX_RUNTIME=runsc: the same under gVisor, when dockerd has it registered.
if [[ -n ${AGENTBOX_RUNTIME:-} ]] &&
  ! curl -fsS --unix-socket "$sock" http://docker/info 2>/dev/null | grep -q "\"$AGENTBOX_RUNTIME\""; then
  echo "SKIP $suite on docker with runtime $AGENTBOX_RUNTIME: dockerd has no such runtime (scripts/dockerd-ci.sh registers runsc)"
  if [[ ${CI:-} == true ]]; then echo "0 passed, 1 failed (skipped in CI, where nothing may be skipped)"; exit 1; fi
  echo "0 passed, 0 failed, 1 skipped"
  exit 77
fi
export AGENTBOX_BACKEND=docker
rc=0
run_part() {
  bash "$@"
  local r=$?
  ((r == 0 || r == 77)) || rc=1
}
# tests/images/run.sh is the native image store's suite (ctest images): the docker backend takes
# its images from the daemon, so its images cases are tests/docker/images.sh alone.
if [[ -f $here/$suite/run.sh && $suite != images ]]; then run_part "$here/$suite/run.sh" "${@:2}"; fi
# Cases only docker has (tests/docker/SUITE.sh), e.g. a daemon restart.
if [[ -f $here/docker/$suite.sh ]]; then run_part "$here/docker/$suite.sh" "${@:2}"; fi
exit $rc
