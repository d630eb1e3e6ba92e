#!/usr/bin/env bash
# The native image lanes: a script suite (security, conformance, ...) with every sandbox's root
# an image (`--image`) instead of the host's /usr.
#   default:                    the docker lanes' busybox rootfs (scripts/build-test-rootfs.sh)
#                               made into a docker save archive here;
#   AGENTBOX_TEST_IMAGE=debian: the Debian test image (python3, pip, venv, GNU coreutils, gcc),
#                               its docker save archive from scripts/build-debian-image.sh
#                               --docker (cached; needs a Docker daemon to make it once).
# The archive is loaded once, with `agentbox image load`, into a store of this run; every case's
# state dir links its images/ to that store (AGENTBOX_IMAGE_STORE, tests/lib/harness.sh), so
# the image is unpacked once, not once per case.
# Usage: AGENTBOX=... ABPROBE=... [AGENTBOX_TEST_IMAGE=debian] bash tests/images/lane.sh SUITE [REGEX]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
suite=${1:?usage: lane.sh SUITE [REGEX]}
shift
work=$(mktemp -d /tmp/agentbox-lane.XXXXXX)
trap 'AGENTBOX_STATE_DIR=$work/state "$AGENTBOX" gc >/dev/null 2>&1; rm -rf "$work"' EXIT

# skip_lane REASON: the whole lane cannot run here (a failure under CI=true).
skip_lane() {
  echo "SKIP $suite on the image lane: $1"
  if [[ ${CI:-} == true ]]; then echo "0 passed, 1 failed (skipped in CI, where nothing may be skipped)"; exit 1; fi
  echo "0 passed, 0 failed, 1 skipped"
  exit 77
}

start=$SECONDS
if [[ ${AGENTBOX_TEST_IMAGE:-} == debian ]]; then
  timeout 20 docker info >/dev/null 2>&1 || skip_lane "the Debian test image is made through a Docker daemon, and none answers"
  dir=$(AGENTBOX=$AGENTBOX "$src/scripts/build-debian-image.sh" --docker) || skip_lane "could not make the Debian test image"
  archive=$dir/docker-archive.tar name=agentbox-test-debian:latest
else
  bash "$src/scripts/build-test-rootfs.sh" "$work/rootfs" >/dev/null
  python3 "$here/oci_writer.py" layer --dir "$work/rootfs" --uid 0 --gid 0 "$work/rootfs.tgz"
  python3 "$here/oci_writer.py" image --env PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
    --docker-save "$work/lane.tar" --tag agentbox-lane:latest "$work/rootfs.tgz"
  rm -rf "$work/rootfs"
  archive=$work/lane.tar name=agentbox-lane:latest
fi
made=$SECONDS
AGENTBOX_STATE_DIR=$work/state "$AGENTBOX" image load --tag "$name" "$archive" >/dev/null
echo "lane: $name ready (made in $((made - start)) s, loaded in $((SECONDS - made)) s)"
export AGENTBOX_IMAGE_STORE=$work/state/images AGENTBOX_IMAGE_NAME=$name
rc=0
bash "$src/tests/$suite/run.sh" "$@" || rc=$?
exit "$rc"
