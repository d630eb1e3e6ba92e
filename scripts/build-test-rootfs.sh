#!/usr/bin/env bash
# build-test-rootfs.sh DIR: a minimal root filesystem for the docker backend's default test image,
# made from Debian's busybox-static (no registry is reachable, so nothing is pulled).
#   agentbox image import DIR agentbox-test:latest
set -euo pipefail
dir=${1:?usage: build-test-rootfs.sh DIR}
bb=/bin/busybox
[[ -x $bb ]] && "$bb" --list >/dev/null 2>&1 || { echo "build-test-rootfs: install busybox-static" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"/{bin,sbin,usr/bin,usr/sbin,etc,tmp,workspace,proc,dev,sys,root,home}
chmod 1777 "$dir/tmp"
install -m 0755 "$bb" "$dir/bin/busybox"
for applet in $("$bb" --list); do
  [[ -e $dir/bin/$applet ]] || ln -s busybox "$dir/bin/$applet"
done
# Scripts that name /usr/bin/X find the same applets, as on a merged-/usr system.
for applet in $("$bb" --list); do
  [[ -e $dir/usr/bin/$applet ]] || ln -s ../../bin/busybox "$dir/usr/bin/$applet"
done
# bash, from Debian's bash-static, for scripts that need more than busybox sh; also /bin/sh,
# because busybox picks its applet from argv[0] and tests start processes under `exec -a NAME`
# to find them on the host.
if [[ -x /bin/bash-static ]]; then
  install -m 0755 /bin/bash-static "$dir/bin/bash"
  ln -sf bash "$dir/bin/sh"
  ln -sf ../../bin/bash "$dir/usr/bin/bash"
  ln -sf ../../bin/bash "$dir/usr/bin/sh"
fi
# The same for sleep: a static one that does not care what argv[0] says.
if command -v cc >/dev/null; then
  cat >"$dir/sleep.c" <<'C'
#include <stdlib.h>
#include <time.h>
int main(int argc, char** argv) {
  double s = argc > 1 ? strtod(argv[1], 0) : 0;
  struct timespec t = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
  while (nanosleep(&t, &t) != 0) {}
  return 0;
}
C
  rm -f "$dir/bin/sleep" "$dir/usr/bin/sleep"
  cc -static -O2 -o "$dir/bin/sleep" "$dir/sleep.c" && ln -s ../../bin/sleep "$dir/usr/bin/sleep"
  rm -f "$dir/sleep.c"
fi
# Debian's busybox has no nohup: the same in two lines (no nohup.out; callers redirect).
printf '#!/bin/sh\ntrap "" HUP\nexec "$@"\n' >"$dir/usr/bin/nohup"
chmod 0755 "$dir/usr/bin/nohup"
cat > "$dir/etc/passwd" <<'P'
root:x:0:0:root:/root:/bin/sh
sandbox:x:1000:1000:sandbox:/workspace:/bin/sh
nobody:x:65534:65534:nobody:/:/bin/false
P
cat > "$dir/etc/group" <<'G'
root:x:0:
sandbox:x:1000:
nogroup:x:65534:
G
echo agentbox > "$dir/etc/hostname"
printf '127.0.0.1 localhost\n::1 localhost\n' > "$dir/etc/hosts"
: > "$dir/etc/resolv.conf"
