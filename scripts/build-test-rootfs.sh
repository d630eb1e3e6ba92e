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
# bash, from Debian's bash-static, for scripts that need more than busybox sh.
if [[ -x /bin/bash-static ]]; then
  install -m 0755 /bin/bash-static "$dir/bin/bash"
  ln -sf ../../bin/bash "$dir/usr/bin/bash"
fi
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
