#!/usr/bin/env bash
# build-debian-image.sh [--cache DIR] [--docker] [--force]: the Debian test image, made from
# Debian's own packages with mmdebstrap (no registry is reachable, so nothing is pulled), cached.
#
# The image: bookworm's Essential set plus python3, python3-pip, python3-venv, git, coreutils,
# procps, bash, gcc, libc6-dev and make (PACKAGES below), docs, man pages and translations left
# out, a sandbox user 1000 and /workspace, /run empty (a booted system's is a fresh tmpfs; the
# security suite checks that nothing of the host's /run shows inside). What agents run, where the busybox image cannot
# (python, pip, venv, GNU rm, a compiler).
#
# The cache: CACHE/KEY/, KEY a hash of this script (so of PACKAGES) and of the exact versions apt
# would install for PACKAGES (`apt-get install --simulate` against an empty system, from the
# host's apt lists: the same mirror mmdebstrap reads). A new package version is a new KEY, so a
# new build; the cache keeps the last two keys. CACHE: --cache DIR, else $AGENTBOX_IMAGE_CACHE,
# else /var/cache/agentbox/images as root (it survives a clean clone), else build/images.
# In CACHE/KEY/:
#   rootfs.tar          the root filesystem (mmdebstrap's tarball)
#   docker-archive.tar  the image as `docker save` writes it (with --docker): what
#                       `agentbox image load` and `docker load` take
#   packages.txt        every package inside, "name version"
#
# --docker: also make sure the Docker daemon (DOCKER_HOST, default socket) has the image as
# agentbox-test-debian:latest, importing rootfs.tar with `$AGENTBOX image import` (AGENTBOX,
# default build/agentbox) when the daemon's copy is missing or another (its id is recorded in
# CACHE/KEY/docker-image-id at import).
# --force: rebuild even when the cache has KEY. Prints the cache dir on its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
PACKAGES=(python3 python3-pip python3-venv git coreutils procps bash gcc libc6-dev make)
IMAGE=agentbox-test-debian:latest
SUITE=bookworm

cache="" docker=0 force=0
while (($#)); do
  case $1 in
    --cache) cache=${2:?--cache needs a DIR}; shift 2 ;;
    --docker) docker=1; shift ;;
    --force) force=1; shift ;;
    *) echo "build-debian-image: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ -z $cache ]]; then
  cache=${AGENTBOX_IMAGE_CACHE:-}
  [[ -n $cache ]] || { [[ $(id -u) == 0 ]] && cache=/var/cache/agentbox/images; } || cache=$here/build/images
fi
die() { echo "build-debian-image: $*" >&2; exit 1; }
command -v mmdebstrap >/dev/null || die "mmdebstrap is missing (scripts/install-deps.sh test installs it)"

# The versions apt would install now, from the host's lists (refreshed when they are missing).
resolve() {
  apt-get install --simulate --no-install-recommends -o Dir::State::status=/dev/null \
    -o Debug::NoLocking=1 "${PACKAGES[@]}" 2>/dev/null | awk '/^Inst /{print $2, $3}' | tr -d '('
}
versions=$(resolve)
[[ -n $versions ]] || { apt-get update -qq >/dev/null 2>&1 || true; versions=$(resolve); }
[[ -n $versions ]] || die "apt cannot resolve ${PACKAGES[*]} (no apt lists? run apt-get update)"
key=$( { sha256sum "$0" | cut -c1-64; echo "$SUITE"; echo "$versions"; } | sha256sum | cut -c1-16)
dir=$cache/$key
mkdir -p "$cache"

build_rootfs() {
  local work sources aptopts=() start=$SECONDS
  work=$(mktemp -d "$cache/.build.XXXXXX")
  # The host's apt sources and Acquire options (a snapshot mirror needs Check-Valid-Until off).
  while read -r opt; do aptopts+=(--aptopt="$opt"); done < <(grep -h '^Acquire::Check' /etc/apt/apt.conf.d/* 2>/dev/null || true)
  sources=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | grep -v '^#' || true)
  local IFS=,
  echo "build-debian-image: mmdebstrap $SUITE + ${PACKAGES[*]} (key $key)" >&2
  unset IFS
  # Essential variant: no apt inside (nothing installs into the image at run time). No device
  # nodes in the tarball (--skip=output/dev): an image's /dev is the runtime's, and agentbox's
  # image store refuses a layer that carries one (docs/security.md), as an honest image has none.
  mmdebstrap --variant=essential --skip=output/dev --include="$(IFS=,; echo "${PACKAGES[*]}")" "${aptopts[@]}" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --dpkgopt='path-exclude=/usr/bin/*lto-dump*' \
    --customize-hook='echo "sandbox:x:1000:1000:sandbox:/workspace:/bin/bash" >>"$1/etc/passwd"' \
    --customize-hook='echo "sandbox:x:1000:" >>"$1/etc/group"' \
    --customize-hook='mkdir -p "$1/workspace" && chmod 0755 "$1/workspace"' \
    --customize-hook='rm -rf "$1"/run/* "$1"/var/cache/ldconfig/aux-cache' \
    --customize-hook='chroot "$1" dpkg-query -W -f="\${Package} \${Version}\n" >"$1/packages.txt"' \
    --customize-hook='mv "$1/packages.txt" "'"$work"'/packages.txt"' \
    "$SUITE" "$work/rootfs.tar" - <<<"$sources" >"$work/mmdebstrap.log" 2>&1 ||
    { tail -20 "$work/mmdebstrap.log" >&2; rm -rf "$work"; die "mmdebstrap failed"; }
  echo "build-debian-image: rootfs made in $((SECONDS - start)) s ($(du -m "$work/rootfs.tar" | cut -f1) MB)" >&2
  rm -rf "$dir" && mv "$work" "$dir"
  # Keep this key and the newest other one.
  ls -1dt "$cache"/*/ 2>/dev/null | tail -n +3 | xargs -r rm -rf
}

[[ $force == 0 && -f $dir/rootfs.tar && -f $dir/packages.txt ]] || build_rootfs

if ((docker)); then
  agentbox=${AGENTBOX:-$here/build/agentbox}
  sock=${DOCKER_HOST:-unix:///var/run/docker.sock}
  sock=${sock#unix://}
  dapi() { curl -fsS --unix-socket "$sock" "$@"; }
  image_id() { dapi "http://docker/images/$IMAGE/json" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["Id"])' 2>/dev/null || true; }
  # The daemon's image is this KEY's when its id is the one recorded at import.
  if [[ ! -f $dir/docker-image-id || $(image_id) != "$(cat "$dir/docker-image-id")" ]]; then
    start=$SECONDS
    "$agentbox" image import "$dir/rootfs.tar" "$IMAGE" >/dev/null || die "importing $dir/rootfs.tar as $IMAGE failed"
    image_id >"$dir/docker-image-id"
    echo "build-debian-image: imported as $IMAGE in $((SECONDS - start)) s" >&2
    rm -f "$dir/docker-archive.tar"
  fi
  if [[ ! -f $dir/docker-archive.tar ]]; then
    dapi -o "$dir/docker-archive.tar.part" "http://docker/images/$IMAGE/get" &&
      mv "$dir/docker-archive.tar.part" "$dir/docker-archive.tar" || die "docker save of $IMAGE failed"
  fi
fi
echo "$dir"
