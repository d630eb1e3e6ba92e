# shellcheck shell=bash
# tests/faults cases: a full host disk, made with a small loop filesystem (16 MB ext4, no blocks
# reserved for root, so a sandbox can fill it to 100%). As the workspace: the command gets
# ENOSPC and a clear result, the other files stay. As the state dir: `agentbox create` fails with
# exit 125 and one line at every level of fullness (or succeeds whole), leaves nothing half-made,
# and `ls`, `exec` and `rm` still work. Sourced by tests/faults/run.sh.

# loop_fs DIR: a fresh 16 MB ext4 (1 KiB blocks) mounted at DIR, unmounted when the case ends.
loop_fs() {
  local dir=$1 img=$CASE_DIR/$(basename "$1").img
  command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 missing (e2fsprogs)"
  truncate -s 16M "$img" && mkfs.ext4 -q -F -m 0 -b 1024 "$img" || fail "mkfs.ext4 $img failed"
  mkdir -p "$dir"
  mount -o loop "$img" "$dir" 2>"$CASE_DIR/mount.err" || skip "cannot mount a loop device: $(cat "$CASE_DIR/mount.err")"
  on_exit "umount -l $dir 2>/dev/null; rm -f $img"
  rm -rf "$dir/lost+found"
}

free_blocks() { stat -f -c %a "$1"; }

# fill_up DIR: fills DIR's filesystem to its last block, the tail with 1 KiB files
# DIR/.pad/N (free_some removes a few to free exactly that many blocks).
fill_up() {
  local dir=$1 i=0
  mkdir -p "$dir/.pad"
  dd if=/dev/zero of="$dir/.fill" bs=64k 2>/dev/null
  while head -c 1024 /dev/zero >"$dir/.pad/$i" 2>/dev/null; do i=$((i + 1)); done
  rm -f "$dir/.pad/$i"  # the one that failed may exist, empty
  sync -f "$dir/.fill"
  [[ $(free_blocks "$dir") == 0 ]] || fail "could not fill $dir: $(free_blocks "$dir") blocks free"
}

# free_some DIR N: frees N blocks (N pad files).
free_some() {
  local dir=$1 n=$2
  ls "$dir/.pad" | head -n "$n" | sed "s|^|$dir/.pad/|" | xargs -r rm -f
  sync -f "$dir/.fill"
}

case_disk_full_workspace_gives_enospc_and_keeps_files() {
  native_only
  local ws=$CASE_DIR/ws
  loop_fs "$ws"
  echo precious >"$ws/keep.txt"
  chown -R 1000:1000 "$ws"  # a user's directory: one of root's is refused when not empty
  ab run --json --workspace "$ws" -- sh -c \
    'dd if=/dev/zero of=/workspace/fill bs=64k; echo "dd=$?"; cat /workspace/keep.txt'
  expect_rc 0 "the shell ends 0; dd's failure is in its output"
  json_assert "r['reason'] == 'exited' and 'dd=1' in r['stdout'] and 'precious' in r['stdout']" \
    "run: dd must fail inside and the other file stay readable"
  json_assert "'No space left on device' in r['stderr']" "the command must see ENOSPC"
  [[ $(free_blocks "$ws") -lt 64 ]] || fail "the workspace is not full: $(free_blocks "$ws") blocks free"
  [[ $(cat "$ws/keep.txt") == precious ]] || fail "keep.txt changed on the host"

  # A persistent sandbox on the full workspace: it still starts, its commands still run and
  # read, a write fails with ENOSPC, and rm keeps the user's files.
  new_box --workspace "$ws" --name onfull
  sh_in onfull 'cat /workspace/keep.txt; head -c 65536 /dev/zero > /workspace/more; echo "write=$?"'
  expect_rc 0
  [[ $AB_OUT == *precious* && $AB_OUT == *write=1* ]] || fail "exec on a full workspace: $AB_OUT"
  expect_err_has "No space left on device"
  ab exec --json onfull -- sh -c 'head -c 100000 /dev/zero > /workspace/big'
  json_assert "r['exit_code'] == 1 and r['reason'] == 'exited' and 'No space left' in r['stderr']" \
    "exec --json on a full workspace: a clear result"
  ab rm onfull
  expect_rc 0 "rm of a sandbox whose workspace is full"
  [[ $(cat "$ws/keep.txt") == precious && -f $ws/fill ]] || fail "rm touched the user's workspace"
}

# try_create STATE LEVEL: one `agentbox create` with LEVEL blocks free in STATE; it must succeed
# whole (listed, takes commands; then removed) or fail with 125, one line, nothing left behind.
try_create() {
  local state=$1 level=$2 before_dirs before_names before_cg
  before_dirs=$(ls "$state/sandboxes" | sort | paste -sd ' ')
  before_names=$(ls "$state/names" | sort | paste -sd ' ')
  before_cg=$(cg_children | paste -sd ' ')
  ab create --name "lvl$level"
  if [[ $AB_RC == 0 ]]; then
    echo "level $level: create succeeded" >&2
    sh_in "lvl$level" 'echo alive'
    expect_rc 0 "exec in the sandbox created with $level blocks free"
    expect_out alive
    ab rm -f "lvl$level"
    expect_rc 0 "rm -f with $level blocks free"
  else
    echo "level $level: create failed: $AB_ERR" >&2
    expect_one_line_error "create with $level blocks free"
    [[ $AB_ERR == *"No space left on device"* ]] || fail "the reason does not say the disk is full: $AB_ERR"
  fi
  [[ $(ls "$state/sandboxes" | sort | paste -sd ' ') == "$before_dirs" ]] ||
    fail "level $level: sandboxes/ is [$(ls "$state/sandboxes" | paste -sd ' ')], was [$before_dirs]"
  [[ $(ls "$state/names" | sort | paste -sd ' ') == "$before_names" ]] ||
    fail "level $level: names/ is [$(ls "$state/names" | paste -sd ' ')], was [$before_names]"
  [[ $(cg_children | paste -sd ' ') == "$before_cg" ]] ||
    fail "level $level: cgroups [$(cg_children | paste -sd ' ')], were [$before_cg]"
  [[ -z $(ls -A "$state/trash" 2>/dev/null) ]] || fail "level $level: trash/ holds $(ls -A "$state/trash")"
  ab ls --json
  expect_rc 0 "ls with $level blocks free"
  json_assert "[s['name'] for s in r] == ['pre']" "ls must show exactly the sandbox made before"
}

case_disk_full_state_dir_create_fails_cleanly() {
  native_only
  local state=$CASE_DIR/state
  # Registered before the mount's own cleanup, so it runs first (on_exit keeps order): the
  # sandboxes of the loop filesystem are removed before it is unmounted.
  on_exit "harness_sweep_state_dir $state"
  loop_fs "$state"
  export AGENTBOX_STATE_DIR=$state
  new_box --name pre
  local pre=$BOX
  ab exec pre -- sh -c 'echo before > /workspace/mine.txt'
  expect_rc 0
  fill_up "$state"
  # Every level of fullness from none to a few blocks: each step of create (its directory,
  # name, workspace, sandbox.json) meets ENOSPC at one of them.
  local level
  for level in 0 1 2 3 4 5 6 8 12 16 24 32; do
    fill_up "$state"
    free_some "$state" "$level"
    try_create "$state" "$level"
  done
  fill_up "$state"
  # Processes of the suite's cgroups outside pre's own: pre forks its next warm handler after
  # an exec whenever it gets to it, so a count that includes pre's would race it.
  local left
  left=$(guard_procs_in "$AGENTBOX_CGROUP_PARENT" "sb-$pre" | cut -c1-70)
  [[ -z $left ]] || fail "processes left by failed creates: $(paste -sd ';' <<<"$left")"

  # Through serve: a 503 with the reason, and the server goes on.
  "$AGENTBOX" serve </dev/null 2>"$CASE_DIR/serve.log" &
  local serve=$! i
  on_exit "kill -KILL $serve 2>/dev/null"
  for i in $(seq 100); do grep -q "listening on" "$CASE_DIR/serve.log" && break; sleep 0.05; done
  local answer
  answer=$("$PY" - "$state/agentbox.sock" <<'PYEOF'
import http.client, socket, sys
class Unix(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX); self.sock.connect(sys.argv[1])
c = Unix("localhost", timeout=60)
c.request("POST", "/v1/sandboxes", body="{}", headers={"Content-Type": "application/json"})
r = c.getresponse()
print(r.status, r.read().decode().strip())
c.request("GET", "/v1/sandboxes")
r = c.getresponse()
print(r.status, len(__import__("json").loads(r.read())["sandboxes"]))
PYEOF
  )
  echo "serve: $answer" >&2
  [[ $(head -1 <<<"$answer") == "503 "*"No space left on device"* ]] ||
    fail "POST /v1/sandboxes on a full state dir: want a 503 saying so, got: $answer"
  [[ $(tail -1 <<<"$answer") == "200 1" ]] || fail "the list after a failed create: $answer"
  kill -TERM "$serve"
  wait "$serve" || fail "serve did not exit 0 after a create failed for lack of space"

  # Room again: everything works, nothing was corrupted.
  rm -rf "$state/.fill" "$state/.pad"
  ab exec pre -- cat /workspace/mine.txt
  expect_rc 0 "the sandbox made before the disk filled"
  expect_out before
  new_box --name after
  ab rm pre after
  expect_rc 0
  [[ -z $(ls "$state/sandboxes") && -z $(ls "$state/names") ]] || fail "state left after rm"
}
