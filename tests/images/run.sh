#!/usr/bin/env bash
# Images suite: the native backend's image store and --image, against real local registries
# (Debian's docker-registry on loopback, started here: no auth, htpasswd, token auth) and
# archives made here from busybox-static (tests/images/oci_writer.py). Nothing is downloaded.
# Each case gets a fresh state dir, so a fresh image store. Needs root, user namespaces, overlayfs.
# Usage: AGENTBOX=build/agentbox ABPROBE=build/tests/abprobe bash tests/images/run.sh [REGEX]
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
H_CASE_TIMEOUT=${H_CASE_TIMEOUT:-90}
# shellcheck source=tests/lib/oneshot.sh
source "$HERE/../lib/oneshot.sh"
H_CASE_FILES=("$HERE/cases.sh")
# shellcheck source=tests/images/cases.sh
source "$HERE/cases.sh"
WRITER="$PY $HERE/oci_writer.py"

# Made once: the busybox rootfs, its layer and archives, three registries with the image pushed.
harness_suite_setup() {
  export FIX=$GUARD_DIR/fixtures
  mkdir -p "$FIX"
  bash "$SRC/scripts/build-test-rootfs.sh" "$FIX/rootfs" >/dev/null || return 1
  $WRITER layer --dir "$FIX/rootfs" --uid 0 --gid 0 "$FIX/bb.tgz" || return 1
  mkdir -p "$FIX/extra/etc"
  echo from-layer-two >"$FIX/extra/etc/motd"
  $WRITER layer --dir "$FIX/extra" --uid 0 --gid 0 "$FIX/extra.tgz" || return 1
  local img=(--env PATH=/bin:/usr/bin --env IMAGE_VAR=from-image --workdir /workspace)
  $WRITER image "${img[@]}" --docker-save "$FIX/bb-save.tar" --tag bb:save "$FIX/bb.tgz" "$FIX/extra.tgz" || return 1
  mkdir -p "$FIX/bb-oci"
  $WRITER image "${img[@]}" --oci "$FIX/bb-oci" --tag bb:oci --index "$FIX/bb.tgz" || return 1
  # Without docker-registry the registry cases skip (a failure under CI=true), the rest run.
  command -v docker-registry >/dev/null || return 0
  local auth
  for auth in none basic token; do
    "$SRC/scripts/test-registry.sh" start --state "$FIX/reg-$auth" --auth "$auth" --dir "$FIX/reg-$auth.d" || return 1
    guard_track "$(. "$FIX/reg-$auth" && echo "$REGISTRY_PID")"
    (
      . "$FIX/reg-$auth"
      creds=()
      [[ $auth != none ]] && creds=(--auth "$REGISTRY_USER:$REGISTRY_PASSWORD")
      $WRITER image "${img[@]}" --push "$REGISTRY/test/bb:1" "${creds[@]}" "$FIX/bb.tgz" "$FIX/extra.tgz" >/dev/null &&
        $WRITER image "${img[@]}" --index --push "$REGISTRY/test/multi:1" "${creds[@]}" "$FIX/bb.tgz" >/dev/null
    ) || return 1
  done
}

harness_suite_teardown() {
  local auth
  for auth in none basic token; do
    [[ -f ${FIX:-/nonexistent}/reg-$auth ]] && "$SRC/scripts/test-registry.sh" stop --state "$FIX/reg-$auth"
  done
  return 0
}

harness_main "$HERE/run.sh" "$@"
