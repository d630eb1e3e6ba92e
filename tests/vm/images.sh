# shellcheck shell=bash
# images.sh: what tests/vm/run.sh boots, made from this host's Debian packages and cached.
#
#   vm_kernel      Debian's linux-image-amd64 (6.1 LTS on bookworm), fetched with `apt-get download`
#                  and unpacked into the cache (the host's /boot and /lib/modules are not touched);
#                  depmod'd there, so the guest's modprobe finds every module of it.
#   vm_initramfs   busybox-static and the modules needed to mount the root disk (virtio, ext4 and
#                  its quota formats); its /init mounts /dev/vda and switch_roots to the guest init.
#   vm_sysimage    the guest's root: an ext4 image holding the files of a package closure
#                  (VM_PACKAGES and what they depend on, as installed on this host), the kernel's
#                  modules for what the tests and the disk-quota work need (loop, btrfs, xfs, ext4
#                  with quota, overlay, veth), /etc for root and uid 1000. Rebuilt when the packages'
#                  versions, the kernel or this file change. ext4 with the quota and project
#                  features, so user/group/project quotas can be tried on the root itself.
#   vm_runimage    per run: the agentbox binaries under test, the repo's tests/ and scripts/, and
#                  the job (which suites, which cases), on a small ext4 image mounted at /opt/agentbox.
#
# Sourced by tests/vm/run.sh; every function dies (exit 1) with one line on failure.

VM_KERNEL_PKG=${VM_KERNEL_PKG:-linux-image-amd64}
# What the guest needs to run the native suites (bash harness, python3 for JSON, procps, util-linux),
# to build and check filesystems with quotas (e2fsprogs, btrfs-progs, xfsprogs, quota), and to load
# modules (kmod). Their dependencies come along.
VM_PACKAGES=(bash dash coreutils util-linux mount procps python3 findutils grep sed mawk diffutils
  tar gzip kmod e2fsprogs btrfs-progs xfsprogs quota iproute2 busybox-static libseccomp2 libstdc++6
  curl hostname bsdutils libc-bin
  libcurl4 docker-registry python3-bcrypt python3-cryptography python3-cffi-backend)
# Modules loaded at boot by the guest init: the disk-quota work's filesystems and loop devices, and
# what the sandboxes may use (overlay, veth).
VM_BOOT_MODULES=(loop ext4 quota_v2 quota_tree btrfs xfs overlay veth virtio_rng)
# Only these are needed before the root is mounted (the initramfs loads them).
VM_INITRAMFS_MODULES=(virtio_pci virtio_blk ext4 quota_v2 quota_tree crc32c_generic)

vm_die() {
  echo "vm: $*" >&2
  exit 1
}

# vm_kernel: sets VM_KVER, VM_VMLINUZ, VM_MODROOT (a dir holding lib/modules/$VM_KVER).
vm_kernel() {
  local dep deb
  dep=$(apt-cache depends "$VM_KERNEL_PKG" 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
  if [[ -z $dep ]]; then
    # No apt lists (offline, or never updated): any kernel already unpacked in the cache will do.
    dep=$(ls -d "$VM_CACHE"/kernel/linux-image-* 2>/dev/null | tail -1 | xargs -r basename)
    [[ -n $dep ]] || vm_die "apt knows no $VM_KERNEL_PKG (run apt-get update) and none is cached"
  fi
  VM_MODROOT=$VM_CACHE/kernel/$dep
  if [[ ! -f $VM_MODROOT/.done ]]; then
    echo "vm: fetching $dep (apt-get download)"
    rm -rf "$VM_MODROOT" && mkdir -p "$VM_MODROOT/deb"
    (cd "$VM_MODROOT/deb" && apt-get download -q "$dep" >/dev/null 2>&1) ||
      (cd "$VM_MODROOT/deb" && apt-get update -qq && apt-get download -q "$dep" >/dev/null) ||
      vm_die "apt-get download $dep failed"
    deb=$(ls "$VM_MODROOT"/deb/*.deb)
    dpkg-deb -x "$deb" "$VM_MODROOT" || vm_die "dpkg-deb -x $deb failed"
    rm -rf "$VM_MODROOT/deb"
    VM_KVER=$(ls "$VM_MODROOT/lib/modules")
    depmod -b "$VM_MODROOT" "$VM_KVER" || vm_die "depmod of $VM_KVER failed"
    touch "$VM_MODROOT/.done"
  fi
  VM_KVER=$(ls "$VM_MODROOT/lib/modules")
  VM_VMLINUZ=$VM_MODROOT/boot/vmlinuz-$VM_KVER
  [[ -f $VM_VMLINUZ ]] || vm_die "no $VM_VMLINUZ"
}

# vm_module_files MODULE...: the .ko files MODULE... need, dependencies first, one per line.
vm_module_files() {
  modprobe -a -d "$VM_MODROOT" -S "$VM_KVER" --show-depends "$@" 2>/dev/null |
    awk '$1 == "insmod" {print $2}' | awk '!seen[$0]++'
}

# vm_initramfs: sets VM_INITRD.
vm_initramfs() {
  VM_INITRD=$VM_CACHE/initrd-$VM_KVER-$(vm_hash "$VM_HERE/initramfs-init" "$VM_HERE/images.sh").cpio.gz
  [[ -f $VM_INITRD ]] && return 0
  local dir f
  dir=$(mktemp -d "$VM_CACHE/initrd.XXXXXX")
  mkdir -p "$dir"/{bin,dev,proc,sys,newroot,mods}
  cp /bin/busybox "$dir/bin/busybox" || vm_die "busybox-static is not installed"
  ldd "$dir/bin/busybox" >/dev/null 2>&1 && vm_die "/bin/busybox is not static (install busybox-static)"
  ln -s busybox "$dir/bin/sh"
  install -m 0755 "$VM_HERE/initramfs-init" "$dir/init"
  : >"$dir/mods/order"
  for f in $(vm_module_files "${VM_INITRAMFS_MODULES[@]}"); do
    cp "$f" "$dir/mods/" && basename "$f" >>"$dir/mods/order"
  done
  [[ -s $dir/mods/order ]] || vm_die "no modules found for the initramfs"
  (set -o pipefail; cd "$dir" && find . | cpio -o -H newc --quiet | gzip -1) >"$VM_INITRD.tmp" ||
    vm_die "cpio of the initramfs failed"
  mv "$VM_INITRD.tmp" "$VM_INITRD"
  rm -rf "$dir"
}

vm_hash() { cat "$@" | sha256sum | cut -c1-12; }

# The installed packages VM_PACKAGES depend on (themselves included), one per line. apt-cache
# also names the other side of an alternative (libsystemd0 | libelogind0): only installed ones count.
vm_package_closure() {
  apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances "${VM_PACKAGES[@]}" 2>/dev/null |
    grep -v '^[ <]' | sort -u | xargs -r dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 2>/dev/null |
    awk '$1 == "ii" {print $2}'
}

# vm_sysimage: sets VM_SYSIMG.
vm_sysimage() {
  local pkgs key
  pkgs=$(vm_package_closure)
  [[ -n $pkgs ]] || vm_die "apt-cache depends found none of: ${VM_PACKAGES[*]}"
  # Each package asked for must be on the host: a guest without mount(8) boots to a panic (seen in
  # a minimal Debian container, whose guest ran nothing).
  local p missing=()
  for p in "${VM_PACKAGES[@]}"; do grep -qx "$p" <<<"$pkgs" || missing+=("$p"); done
  ((${#missing[@]} == 0)) ||
    vm_die "the host lacks packages the guest root is made of: ${missing[*]} (scripts/install-deps.sh vm)"
  # shellcheck disable=SC2086
  key=$( (dpkg-query -W $pkgs; echo "$VM_KVER"; cat "$VM_HERE/images.sh" "$VM_HERE/guest-init.sh") | sha256sum | cut -c1-12)
  VM_SYSIMG=$VM_CACHE/sys-$key.img
  [[ -f $VM_SYSIMG ]] && return 0
  echo "vm: making the guest root from $(wc -w <<<"$pkgs") host packages"
  rm -f "$VM_CACHE"/sys-*.img
  local root
  root=$(mktemp -d "$VM_CACHE/root.XXXXXX")
  vm_fill_root "$root" "$pkgs"
  local mb
  mb=$(du -sm "$root" | cut -f1)
  # Room for the suites' workspaces, state and scratch filesystems (a sparse file: costs nothing).
  truncate -s "$((mb + 3072))M" "$VM_SYSIMG.tmp"
  mkfs.ext4 -q -F -L agentbox-vm -O quota,project -E quotatype=usrquota:grpquota:prjquota \
    -d "$root" "$VM_SYSIMG.tmp" || vm_die "mkfs.ext4 -d of the guest root failed"
  mv "$VM_SYSIMG.tmp" "$VM_SYSIMG"
  rm -rf "$root"
}

# vm_fill_root DIR PACKAGES: the packages' files (no docs), modules, /etc, the guest init.
vm_fill_root() {
  local root=$1 pkgs=$2 p f
  mkdir -p "$root"/usr/{bin,sbin,lib,lib64}
  for p in bin sbin lib lib64; do ln -s "usr/$p" "$root/$p"; done
  # shellcheck disable=SC2086
  for p in $pkgs; do dpkg -L "$p" 2>/dev/null; done | sort -u |
    grep -vE '^/usr/share/(doc|man|info|locale|lintian|bash-completion|zsh)(/|$)' |
    while read -r f; do [[ -f $f || -L $f ]] && printf '%s\n' "${f#/}"; done >"$root/.files"
  tar -C / --no-recursion -cf - -T "$root/.files" | tar -C "$root" --keep-directory-symlink -xf - ||
    vm_die "copying the packages' files failed"
  rm -f "$root/.files"
  # Python's compiled stdlib (made by the packages' postinst, so dpkg -L does not list it):
  # without it every python3 in the guest compiles what it imports, seconds under TCG.
  local pyc
  while read -r pyc; do
    [[ -d $root${pyc%/__pycache__} ]] && cp -a "$pyc" "$root$pyc"
  done < <(find /usr/lib/python3* -type d -name __pycache__ 2>/dev/null)
  # Commands that dpkg -L does not list: the alternatives (awk -> mawk, ...) of what was copied.
  local link alt
  for link in /usr/bin/* /usr/sbin/*; do
    alt=$(readlink "$link") || continue
    [[ $alt == /etc/alternatives/* && -e $root$(readlink -f "$link") ]] || continue
    mkdir -p "$root/etc/alternatives"
    cp -P "$alt" "$root$alt" && cp -P "$link" "$root$link"
  done
  # Modules: what the guest loads at boot, with their dependencies, and a modules.dep for them.
  local kdir=lib/modules/$VM_KVER
  mkdir -p "$root/usr/$kdir"
  for f in $(vm_module_files "${VM_BOOT_MODULES[@]}"); do
    mkdir -p "$root/usr/$(dirname "${f#"$VM_MODROOT"/}")"
    cp "$f" "$root/usr/${f#"$VM_MODROOT"/}"
  done
  cp "$VM_MODROOT/$kdir"/modules.{order,builtin,builtin.modinfo} "$root/usr/$kdir/"
  depmod -b "$root/usr" "$VM_KVER" || vm_die "depmod in the guest root failed"
  echo "${VM_BOOT_MODULES[*]}" >"$root/etc/agentbox-vm-modules"
  # /usr/share/doc is left out of the copy, but a host has it (a security case checks it survives).
  mkdir -p "$root"/{dev,proc,sys,run,tmp,var/tmp,var/lib,root,home/user,etc,opt/agentbox,mnt/scratch,usr/share/doc}
  chmod 1777 "$root/tmp" "$root/var/tmp"
  printf 'root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000:user:/home/user:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nuser:x:1000:\nnogroup:x:65534:\n' >"$root/etc/group"
  printf '127.0.0.1 localhost agentbox-vm\n::1 localhost\n' >"$root/etc/hosts"
  printf 'passwd: files\ngroup: files\nhosts: files\n' >"$root/etc/nsswitch.conf"
  echo agentbox-vm >"$root/etc/hostname"
  : >"$root/etc/fstab"
  chown 1000:1000 "$root/home/user"
  install -m 0755 "$VM_HERE/guest-init.sh" "$root/sbin/agentbox-vm-init"
  ldconfig -r "$root" 2>/dev/null || true
}

# vm_runimage JOBFILE: sets VM_RUNIMG (in VM_WORK): the binaries, the repo's tests and the job.
vm_runimage() {
  local dir=$VM_WORK/run b
  mkdir -p "$dir/bin" "$dir/src"
  for b in "$AGENTBOX" "$VM_BUILD/agentbox-agent" "$ABPROBE"; do
    [[ -x $b ]] || vm_die "no $b (build first: make build)"
    # Without debug info (agentbox carries ~80 MB of it): the run image is made per run.
    strip --strip-debug -o "$dir/bin/$(basename "$b")" "$b" || cp "$b" "$dir/bin/"
  done
  # Tests may name repo files (policies, the load client); copy what is small and tracked.
  (cd "$VM_SRC" && tar --exclude=node_modules --exclude=tests/fuzz/corpus -cf - tests scripts docs) |
    tar -C "$dir/src" -xf -
  cp "$1" "$dir/job"
  local mb
  mb=$(du -sm "$dir" | cut -f1)
  VM_RUNIMG=$VM_WORK/run.img
  truncate -s "$((mb * 2 + 32))M" "$VM_RUNIMG"
  mkfs.ext4 -q -F -L agentbox-run -d "$dir" "$VM_RUNIMG" || vm_die "mkfs.ext4 -d of the run image failed"
  rm -rf "$dir"
}
