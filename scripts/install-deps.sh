#!/usr/bin/env bash
# Installs the Debian packages agentbox needs to build and test, only those that are missing, and
# for test the pinned npm packages of sdk/typescript and examples/js (npm ci).
# Usage: scripts/install-deps.sh [build|test|bench|docker|vm]...   (default: build)
#   vm: what tests/vm/run.sh needs to boot Debian's kernel under qemu (TCG) on a root made from
#   this host's packages, and the filesystem tools the guest carries (btrfs, xfs, quota).
set -euo pipefail

# libarchive-dev: every tar (linked static, so also the static libraries of the compressors and ACLs
# it was built with, which libarchive-dev does not depend on: libacl1-dev, liblzma-dev, libzstd-dev,
# liblz4-dev, libbz2-dev, zlib1g-dev); libcurl4-openssl-dev: the header of libcurl, which
# agentbox loads at run time (it brings libcurl4) for the Docker Engine API and registries;
# libc-ares-dev: the egress proxy's name resolution (linked static); libyaml-cpp-dev: kubeconfig
# files (linked static). libarchive also makes the tar
# streams of `cp ID:PATH -` and the API's .../archive.
# dpkg-dev: `make deb` (dpkg-shlibdeps names the packages of the libraries the binaries link).
build_pkgs=(g++ cmake ninja-build pkg-config libseccomp-dev nettle-dev nlohmann-json3-dev libgtest-dev libasio-dev
  libarchive-dev libacl1-dev liblzma-dev libzstd-dev liblz4-dev libbz2-dev zlib1g-dev libcurl4-openssl-dev libc-ares-dev libyaml-cpp-dev dpkg-dev)
# btrfs-progs: mkfs.btrfs makes the workspace pool, the filesystem whose qgroups hold the disk limit.
# make, git, python3-{venv,pip,setuptools,wheel,pytest}: the everyday workloads the integration
# suite runs inside a sandbox (tests/integration/cases/everyday_tools.sh; npm comes below).
# mount, e2fsprogs, xfsprogs: the cases that mount filesystem images of their own (a full disk in
# faults, a project-quota filesystem in integration); a minimal Debian (mmdebstrap's apt variant,
# a container image) has neither mount(8) nor mkfs.ext4.
# docker-registry (the CNCF distribution registry), python3-bcrypt (its htpasswd) and
# python3-cryptography (the test token server's signatures): the images suite's registries.
# mmdebstrap: the Debian test image (scripts/build-debian-image.sh); openssl: the certificates of
# the Engine API's TLS case (tests/docker/images.sh) and of the kubernetes client's mutual TLS
# unit test; python3-yaml: scripts/check-deploy.py reads deploy/'s manifests. groff, zsh, fish, systemd
# (systemd-socket-activate, systemd-analyze) and mmdebstrap: the packaging suite (man pages
# render, completions parse, socket activation, the .deb on a fresh Debian 12).
# podman, catatonit (its pods' infra container) and netavark (its bridge networks) with iptables
# (netavark 1.4 sets a bridge's rules with it: without it every pod fails to start, "netavark: No
# such file or directory"): the fake Kubernetes API server runs each created pod with
# `podman kube play` (tests/kubernetes/).
test_pkgs=(python3 busybox-static bash-static bubblewrap curl iproute2 procps clang libclang-rt-14-dev btrfs-progs
  make git python3-venv python3-pip python3-setuptools python3-wheel python3-pytest
  mount e2fsprogs xfsprogs
  docker-registry python3-bcrypt python3-cryptography mmdebstrap openssl python3-yaml groff-base zsh fish
  systemd podman catatonit netavark iptables)
# strace: bench/kubernetes times a create's API requests and agent dials by their connect calls.
bench_pkgs=(hyperfine bubblewrap strace)
# docker-registry: the local registry the docker backend's pulls are tested against.
docker_pkgs=(docker.io runsc socat docker-registry)
# The guest root is made of host packages (tests/vm/images.sh VM_PACKAGES): those must be here.
vm_pkgs=(qemu-system-x86 kmod busybox-static cpio e2fsprogs btrfs-progs xfsprogs quota binutils util-linux iproute2 curl
  mount)

wanted=()
for group in "${@:-build}"; do
  case "$group" in
    build) wanted+=("${build_pkgs[@]}") ;;
    test) wanted+=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
    bench) wanted+=("${build_pkgs[@]}" "${bench_pkgs[@]}") ;;
    docker) wanted+=("${docker_pkgs[@]}") ;;
    vm) wanted+=("${vm_pkgs[@]}") ;;
    *) echo "install-deps: unknown group '$group' (build, test, bench, docker, vm)" >&2; exit 2 ;;
  esac
done

# The MCP end-to-end tests need node and npm; a node installed outside Debian's packages will do.
# The same for kubectl (the kubernetes_fake suite): Debian's kubernetes-client only when absent.
for group in "${@:-build}"; do
  if [ "$group" = test ] && ! command -v npm >/dev/null 2>&1; then wanted+=(nodejs npm); fi
  if [ "$group" = test ] && ! command -v kubectl >/dev/null 2>&1; then wanted+=(kubernetes-client); fi
done

missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  # Another apt (an unattended upgrade, a second `make` in another checkout) may hold dpkg's
  # lock: wait for it instead of failing at once.
  apt_wait=(-o DPkg::Lock::Timeout=600)
  "${sudo_cmd[@]}" apt-get "${apt_wait[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get "${apt_wait[@]}" install -y -qq --no-install-recommends "${missing[@]}"
fi

# test: the JavaScript the sdk and examples suites run, exactly as their package-lock.json pins
# it (npm ci): the OpenAPI linter (@redocly/cli), openapi-typescript, tsc, the Node 22 they run
# on, and the examples' OpenAI Agents SDK and LangChain.js. Only where node_modules is missing.
src=$(cd "$(dirname "$0")/.." && pwd)
for group in "${@:-build}"; do
  [ "$group" = test ] || continue
  for dir in sdk/typescript examples/js; do
    [ -d "$src/$dir/node_modules" ] && continue
    echo "install-deps: npm ci in $dir"
    (cd "$src/$dir" && npm ci --no-audit --no-fund --loglevel=error)
  done
done
