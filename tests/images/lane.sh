#!/usr/bin/env bash
# The native image lane: a script suite (security, conformance, ...) with every sandbox's root
# an image (`--image`) instead of the host's /usr. The image is the docker lanes' busybox rootfs
# (scripts/build-test-rootfs.sh) as a docker save archive, loaded into each case's state dir.
# Usage: AGENTBOX=... ABPROBE=... bash tests/images/lane.sh SUITE [REGEX]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
suite=${1:?usage: lane.sh SUITE [REGEX]}
shift
work=$(mktemp -d /tmp/agentbox-lane.XXXXXX)
trap 'rm -rf "$work"' EXIT
bash "$src/scripts/build-test-rootfs.sh" "$work/rootfs" >/dev/null
python3 "$here/oci_writer.py" layer --dir "$work/rootfs" --uid 0 --gid 0 "$work/rootfs.tgz"
python3 "$here/oci_writer.py" image --env PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
  --docker-save "$work/lane.tar" --tag agentbox-lane:latest "$work/rootfs.tgz"
rm -rf "$work/rootfs"
export AGENTBOX_IMAGE_ARCHIVE=$work/lane.tar AGENTBOX_IMAGE_NAME=agentbox-lane:latest
rc=0
bash "$src/tests/$suite/run.sh" "$@" || rc=$?
exit "$rc"
