# shellcheck shell=bash
# --disk-limit as a user meets it (docs/policy.md "disk_limit"): held by a kernel quota on the
# workspaces agentbox makes, refused where someone asked for it and nothing can hold it,
# reported where only the built-in default applies, and leaving nothing behind.

# mkdir the pool's state dir of this case, removed (pool unmounted by gc) when the case ends.
private_state_dir() {
  export AGENTBOX_STATE_DIR=$CASE_DIR/state
  mkdir -p "$AGENTBOX_STATE_DIR"
  on_exit "remove_state_dir $AGENTBOX_STATE_DIR"
}

case_disk_limit_zero_refuses_the_first_byte() {
  ab run --json --disk-limit 0 -- sh -c 'echo a > /workspace/one-byte; echo "rc=$?"; ls /workspace | wc -l'
  expect_rc 0 "the command goes on after the refused write"
  json_assert '"rc=0" not in r["stdout"] and r["stdout"].endswith("0\n")' "a byte landed under --disk-limit 0"
  ab run --json --disk-limit 0 -- true
  json_assert '"disk" not in r["limits_hit"] and r["disk_limit"]["bytes"] == 0'
}

case_disk_limit_result_says_how_it_is_held() {
  ab run --json --disk-limit 16M -- true
  expect_rc 0
  json_assert 'r["disk_limit"]["bytes"] == 16777216 and r["disk_limit"]["enforced"] is True and r["disk_limit"]["mechanism"] in ("btrfs-qgroup", "project-quota")' \
    "a workspace agentbox makes is not held by a quota"
  ab run --json --disk-limit none -- sh -c 'dd if=/dev/zero of=/workspace/f bs=1M count=20 2>/dev/null; echo ok'
  expect_out_has ok
  json_assert 'r["disk_limit"]["bytes"] is None and r["disk_limit"]["enforced"] is False and r["disk_limit"]["mechanism"] is None and "disk" not in r["limits_hit"]' "--disk-limit none is not none (nothing is enforced, no mechanism)"
  [[ $AB_ERR != *"not enforced"* ]] || fail "--disk-limit none printed a note: $AB_ERR"
}

# A limit someone asked for (flag or policy) on a directory whose filesystem has no quota:
# refused with 125 naming what is missing, and nothing runs.
case_disk_limit_asked_for_and_unholdable_is_refused() {
  local fs
  fs=$(stat -f -c %T "$WS")
  [[ $fs == ext2/ext3 || $fs == tmpfs || $fs == overlayfs ]] || skip "$WS is on $fs, which may hold quotas"
  box --disk-limit 16M -- touch /workspace/ran
  expect_rc 125
  expect_err_has "cannot be enforced"
  expect_err_has "--disk-limit none"
  [[ ! -e $WS/ran ]] || fail "the command ran"
  printf '{"disk_limit": "16M"}' >"$CASE_DIR/p.json"
  box --policy "$CASE_DIR/p.json" -- touch /workspace/ran
  expect_rc 125 "disk_limit from a policy file is asked for too"
  [[ ! -e $WS/ran ]] || fail "the command ran"
}

# The built-in default on such a directory: the command runs, and the result, stderr and
# inspect say plainly that the limit is not enforced and why.
case_disk_limit_default_unholdable_is_reported() {
  local fs
  fs=$(stat -f -c %T "$WS")
  [[ $fs == ext2/ext3 || $fs == tmpfs || $fs == overlayfs ]] || skip "$WS is on $fs, which may hold quotas"
  boxj -- touch /workspace/ran
  expect_rc 0
  [[ -e $WS/ran ]] || fail "the command did not run"
  json_assert 'r["disk_limit"]["enforced"] is False and r["disk_limit"]["bytes"] == 1073741824 and "quota" in r["disk_limit"]["reason"]'
  expect_err_has "is not enforced"
  new_box
  expect_err_has "is not enforced"
  ab inspect "$BOX"
  json_assert 'r["disk_limit"]["enforced"] is False' "inspect does not say the limit is not enforced"
  box --disk-limit none -- true
  [[ $AB_ERR != *"not enforced"* ]] || fail "--disk-limit none still printed the note"
}

# run's workspace and a sandbox's are volumes of the pool, gone with them; gc takes the pool
# itself (unmounted, its loop device freed, its image deleted) once nothing is in it.
case_disk_storage_leaves_nothing_behind() {
  private_state_dir
  ab run -- sh -c 'echo x > /workspace/f'
  expect_rc 0
  local pool=$AGENTBOX_STATE_DIR/storage/pool
  mountpoint -q "$pool" || skip "no workspace pool on this host: $(ls "$AGENTBOX_STATE_DIR/storage" 2>&1)"
  [[ -z $(ls -A "$pool") ]] || fail "run left a volume: $(ls -A "$pool")"
  ab create --disk-limit 8M
  local id=$AB_OUT
  [[ -n $(ls -A "$pool") ]] || fail "create made no volume"
  ab rm "$id"
  [[ -z $(ls -A "$pool") ]] || fail "rm left a volume: $(ls -A "$pool")"
  local image
  image=$(realpath "$AGENTBOX_STATE_DIR/storage/pool.img")
  ab gc
  expect_out_has "workspace pool"
  ! mountpoint -q "$pool" || fail "gc left the pool mounted"
  [[ ! -e $image ]] || fail "gc left the pool image"
  ! losetup -j "$image" | grep -q . || fail "a loop device still holds the image: $(losetup -j "$image")"
}

# gc removes what a killed run left: its volume, named after its pid.
case_disk_gc_takes_a_killed_runs_volume() {
  private_state_dir
  "$AGENTBOX" run -- sleep 60 &
  local run=$!
  local pool=$AGENTBOX_STATE_DIR/storage/pool i
  for i in $(seq 100); do [[ -n $(ls -A "$pool" 2>/dev/null) ]] && break; sleep 0.1; done
  [[ -n $(ls -A "$pool" 2>/dev/null) ]] || skip "no workspace pool on this host"
  kill -KILL "$run"
  wait "$run" 2>/dev/null
  [[ -n $(ls -A "$pool") ]] || fail "the volume went with the run's kill -9 (nothing for gc to test)"
  ab gc
  expect_out_has "workspace $pool/run-$run-"
}

# The limit holds whatever else happens on the filesystem: 20 runs in a row, each writing past
# its limit while another process writes and deletes 64 MB on the filesystem holding the
# workspace pool, never let a byte past it and always report it.
case_disk_limit_holds_while_the_filesystem_is_busy() {
  local load
  load=$(dirname "$(realpath "${AGENTBOX_STATE_DIR:-/var/lib/agentbox}")")/abload.$$
  (while :; do dd if=/dev/zero of="$load" bs=1M count=64 2>/dev/null; rm -f "$load"; done) &
  on_exit "kill $! 2>/dev/null; rm -f $load"
  local i
  for i in $(seq 20); do
    ab run --json --disk-limit 16M -- sh -c 'dd if=/dev/zero of=/workspace/f bs=1M count=24 2>/dev/null; du -sk /workspace | cut -f1'
    expect_rc 0 "run $i: the command did not go on"
    json_assert '"disk" in r["limits_hit"] and int(r["stdout"].split()[0]) <= 16 * 1024 + 256' \
      "run $i: past the limit or not reported"
  done
}

# A directory of the user's own on a filesystem of its own (an image this case makes and
# mounts): where the kernel has quotas (ext4 with the project feature, xfs with prjquota) the
# limit is a project quota and holds at the write that crosses it; where it has none (this
# host's kernel lacks CONFIG_QUOTA) the same ask is refused, naming project quotas.
case_disk_limit_on_a_project_quota_filesystem() {
  local fs tried=0
  for fs in ext4 xfs; do
    command -v "mkfs.$fs" >/dev/null || continue
    tried=$((tried + 1))
    local img=$CASE_DIR/$fs.img mnt=$CASE_DIR/$fs-mnt quotas=1
    truncate -s 512M "$img" && mkdir -p "$mnt"
    if [[ $fs == ext4 ]]; then mkfs.ext4 -q -O quota,project "$img"; else mkfs.xfs -q "$img"; fi ||
      fail "mkfs.$fs failed"
    if ! mount -o loop,prjquota "$img" "$mnt" 2>/dev/null; then
      quotas=0  # the kernel cannot mount it with quotas: the same filesystem without them
      [[ $fs == ext4 ]] && mkfs.ext4 -q -F "$img" >/dev/null
      mount -o loop "$img" "$mnt" || fail "mount of the $fs image failed"
    fi
    on_exit "umount -l '$mnt'"
    mkdir "$mnt/ws" && chown "$AB_WS_OWNER" "$mnt/ws"
    ab run "${AB_KIND[@]}" --json --workspace "$mnt/ws" --disk-limit 16M -- \
      sh -c 'dd if=/dev/zero of=/workspace/f bs=1M count=32 2>/dev/null; echo "dd=$?"'
    if ((quotas)); then
      expect_rc 0 "$fs with project quotas"
      json_assert 'r["disk_limit"]["mechanism"] == "project-quota" and r["disk_limit"]["enforced"] is True' \
        "$fs with prjquota: not held by a project quota"
      json_assert '"dd=0" not in r["stdout"] and "disk" in r["limits_hit"]' "$fs: dd past 16M was not refused"
      local size
      size=$(stat -c %s "$mnt/ws/f")
      ((size <= 16 * 1024 * 1024)) || fail "$fs: $size bytes landed under a 16M limit"
    else
      expect_rc 125 "$fs without quotas, a limit asked for"
      expect_err_has "project quotas"
      [[ ! -e $mnt/ws/f ]] || fail "$fs: the command ran"
    fi
  done
  ((tried > 0)) || skip "neither mkfs.ext4 nor mkfs.xfs is installed"
}
