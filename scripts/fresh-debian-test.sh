#!/usr/bin/env bash
# fresh-debian-test.sh: `make test` (or any make target) as a newcomer runs it, on a truly fresh
# Debian 12: a minimal bookworm root made with mmdebstrap (only make, git, ca-certificates and
# sudo added), run as a privileged container on the host network (apt reaches what the host
# reaches) under the Docker daemon (scripts/dockerd-ci.sh),
# with a fresh clone of this checkout's HEAD inside. apt inside uses this host's Debian sources
# and Acquire options, so it reaches the mirrors as the host does. Nothing the host has installed
# can hide a missing install step: everything the run needs must come from the repo's own files.
#
# Usage: scripts/fresh-debian-test.sh [--target TARGET] [--overlay-tmp] [--keep] [-- MAKE_ARG...]
#   --target TARGET   the make target to run (default: test; `demo` is the other newcomer's path)
#   --overlay-tmp     leave /tmp on the container's overlayfs (a plain `docker run`): shows what
#                     agentbox does where /tmp cannot take an idmapped mount. By default /tmp is
#                     a docker volume (the host's filesystem), as on a machine.
#   --keep            keep the image and the log dir
#   CI=true in the environment is passed in (nothing may skip).
# Output: the container's console, and under $FRESH_LOG_DIR (default /tmp/agentbox-fresh.*) the
# log; exits with make's status. Takes long: the build and every suite from nothing (~40 min).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
target=test overlay_tmp=0 keep=0 make_args=()
while (($#)); do
  case $1 in
    --target) target=$2; shift ;;
    --overlay-tmp) overlay_tmp=1 ;;
    --keep) keep=1 ;;
    --) shift; make_args=("$@"); break ;;
    *) echo "usage: $0 [--target TARGET] [--overlay-tmp] [--keep] [-- MAKE_ARG...]" >&2; exit 2 ;;
  esac
  shift
done
[[ $(id -u) == 0 ]] || { echo "fresh-debian-test: needs root (mmdebstrap, docker)" >&2; exit 2; }

# shellcheck source=scripts/lib/fresh_debian.sh
source "$here/scripts/lib/fresh_debian.sh"
dockerd_state=$(mktemp /tmp/agentbox-dockerd.XXXXXX)
"$here/scripts/dockerd-ci.sh" start --state "$dockerd_state"
work=$(mktemp -d "${FRESH_LOG_DIR:-/tmp}/agentbox-fresh.XXXXXX")
tag=agentbox-fresh-bookworm:$(basename "$work" | tr 'A-Z' 'a-z' | tr -cd 'a-z0-9')
name=agentbox-fresh-$$
cleanup() {
  docker rm -f "$name" >/dev/null 2>&1 || true
  docker volume rm -f "$name-tmp" >/dev/null 2>&1 || true
  if ((keep == 0)); then
    docker rmi -f "$tag" >/dev/null 2>&1 || true
    rm -rf "$work/root.tar" "$work/src"
  fi
  "$here/scripts/dockerd-ci.sh" stop --state "$dockerd_state"
}
trap cleanup EXIT

echo "fresh-debian-test: mmdebstrap bookworm (+ make git ca-certificates sudo)"
fresh_debian_root "$work/root.tar" "$work/mmdebstrap.log" make,git,ca-certificates,sudo ||
  { tail -20 "$work/mmdebstrap.log"; exit 1; }
docker import "$work/root.tar" "$tag" >/dev/null

# A fresh clone of HEAD, as a newcomer's `git clone` would give (no build dir, no node_modules).
git clone -q "$here" "$work/src"
git -C "$work/src" checkout -q "$(git -C "$here" rev-parse HEAD)"

fresh_debian_privilege
# The host's own trust: a site CA that its network needs (an egress proxy's) is handed in, as
# the apt sources are, so npm reaches its registry from the container as it does from the host.
trust=() trust_setup=""
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  trust+=(-v /usr/local/share/ca-certificates:/usr/local/share/ca-certificates:ro)
  trust_setup="update-ca-certificates >/dev/null 2>&1;"
fi
[[ -z ${NODE_EXTRA_CA_CERTS:-} ]] || trust+=(-e NODE_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS")
tmp_mount=(--mount "type=volume,src=$name-tmp,dst=/tmp")
((overlay_tmp)) && tmp_mount=()
echo "fresh-debian-test: make $target ${make_args[*]} in a fresh bookworm container (/tmp: $( ((overlay_tmp)) && echo overlayfs || echo volume)); log: $work/make.log"
set +e
docker run --name "$name" "${FRESH_PRIVILEGE[@]}" --cgroupns=host --network host "${tmp_mount[@]}" \
  -v "$work/src:/src:ro" "${trust[@]}" -e CI="${CI:-}" -e DEBIAN_FRONTEND=noninteractive "$tag" \
  bash -c "$trust_setup git clone -q /src /root/agentbox && cd /root/agentbox && make $target ${make_args[*]}" \
  2>&1 | tee "$work/make.log"
rc=${PIPESTATUS[0]}
set -e
echo "fresh-debian-test: make $target exited $rc (log: $work/make.log)"
exit "$rc"
