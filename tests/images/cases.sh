# shellcheck shell=bash
# The images suite's cases (tests/images/run.sh): each loads or pulls into its own state dir.
# FIX holds the fixtures of harness_suite_setup; WRITER is tests/images/oci_writer.py.

# reg AUTH: the registry's variables (REGISTRY, DOCKER_CONFIG, ...) for none|basic|token.
reg() {
  [[ -f $FIX/reg-$1 ]] || skip "no registry: docker-registry is not installed (scripts/install-deps.sh test)"
  # shellcheck source=/dev/null
  . "$FIX/reg-$1"
  export DOCKER_CONFIG
}

# expect_store_empty: no image, no layer, nothing left in tmp/ (a refused input changed nothing).
expect_store_empty() {
  ab image ls --json
  [[ $AB_OUT == "[]" ]] || fail "image ls is not empty: $AB_OUT"
  local left
  left=$(ls -A "$AGENTBOX_STATE_DIR/images/layers" "$AGENTBOX_STATE_DIR/images/tmp" 2>/dev/null | grep -v ':$' | grep -v '^$' || true)
  [[ -z $left ]] || fail "the store kept: $left"
}

# refused_layer ENTRIES_JSON WANT_IN_ERROR: an image of that one layer is refused whole.
refused_layer() {
  $WRITER layer --entries "$1" "$CASE_DIR/bad.tgz" || fail "writer failed"
  $WRITER image --docker-save "$CASE_DIR/bad.tar" --tag bad:1 "$FIX/bb.tgz" "$CASE_DIR/bad.tgz" || fail "writer failed"
  ab image load "$CASE_DIR/bad.tar"
  expect_rc 125 "a bad layer"
  expect_err_has "$2"
  [[ $(printf '%s\n' "$AB_ERR" | wc -l) == 1 ]] || fail "more than one line: $AB_ERR"
  ab image ls --json
  [[ $AB_OUT != *bad* ]] || fail "the refused image was recorded: $AB_OUT"
  [[ -z $(ls -A "$AGENTBOX_STATE_DIR/images/tmp") ]] || fail "tmp/ kept the refused layer"
}

case_load_docker_save_and_run() {
  ab image load "$FIX/bb-save.tar"
  expect_rc 0
  expect_out_has "bb:save"
  box --image bb:save -- sh -c 'echo hi; id -u; echo $IMAGE_VAR; cat /etc/motd; pwd'
  expect_rc 0
  [[ $AB_OUT == $'hi\n1000\nfrom-image\nfrom-layer-two\n/workspace' ]] || fail "unexpected: $AB_OUT"
}

case_image_root_is_read_only_workspace_writable() {
  ab image load "$FIX/bb-save.tar"
  box --image bb:save -- sh -c 'touch /bin/x 2>/dev/null && echo root-writable; touch /etc/x 2>/dev/null && echo etc-writable; echo ok > /workspace/f && cat /workspace/f; touch /tmp/t && echo tmp-ok'
  expect_rc 0
  [[ $AB_OUT == $'ok\ntmp-ok' ]] || fail "unexpected: $AB_OUT"
  [[ $(stat -c %u "$WS/f") == 1000 ]] || fail "the workspace file is not the workspace owner's"
}

case_policy_env_and_cwd_win_over_image() {
  ab image load "$FIX/bb-save.tar"
  box --image bb:save -e IMAGE_VAR=from-flag -w /tmp -- sh -c 'echo $IMAGE_VAR; pwd'
  expect_rc 0
  [[ $AB_OUT == $'from-flag\n/tmp' ]] || fail "unexpected: $AB_OUT"
}

case_agent_is_pid1_in_image_sandbox() {
  ab image load "$FIX/bb-save.tar"
  new_box --image bb:save
  in_box 'echo $IMAGE_VAR; cat /etc/motd; ls /workspace >/dev/null && echo ws'
  expect_rc 0
  [[ $AB_OUT == $'from-image\nfrom-layer-two\nws' ]] || fail "unexpected: $AB_OUT"
  ab inspect "$BOX"
  [[ $(json_get image_id) == sha256:* ]] || fail "inspect has no image_id"
}

case_load_oci_layout_dir_and_tar() {
  ab image load "$FIX/bb-oci"
  expect_rc 0
  expect_out_has "bb:oci"
  (cd "$FIX/bb-oci" && tar -cf "$CASE_DIR/oci.tar" .)
  ab image load --tag other:2 "$CASE_DIR/oci.tar"
  expect_rc 0
  expect_out_has "other:2"
  box --image other:2 -- sh -c 'echo ok'
  expect_rc 0
  expect_out_has ok
}

case_pull_plain_registry() {
  reg none
  ab image pull "$REGISTRY/test/bb:1"
  expect_rc 0
  [[ $AB_OUT == sha256:* ]] || fail "pull printed no id: $AB_OUT"
  ab image pull --json "$REGISTRY/test/bb:1"
  json_assert "r['id'].startswith('sha256:')" "pull --json"
  box --image "$REGISTRY/test/bb:1" -- cat /etc/motd
  expect_rc 0
  expect_out_has from-layer-two
}

case_pull_htpasswd_auth() {
  reg basic
  ab image pull "$REGISTRY/test/bb:1"
  expect_rc 0
  DOCKER_CONFIG=$CASE_DIR/empty ab image pull "$REGISTRY/test/multi:1"
  expect_rc 125 "no credentials"
  expect_err_has "login"
}

case_pull_token_auth_manifest_list() {
  reg token
  ab image pull --platform linux/amd64 "$REGISTRY/test/multi:1"
  expect_rc 0
  ab image inspect "$REGISTRY/test/multi:1"
  expect_rc 0
  [[ $(json_get platform) == linux/amd64 ]] || fail "not the amd64 image: $AB_OUT"
  box --image "$REGISTRY/test/multi:1" -- sh -c 'echo pulled'
  expect_out_has pulled
  ab image pull --platform linux/s390x "$REGISTRY/test/multi:1"
  expect_rc 125 "no such platform"
  expect_err_has "linux/arm64"
  DOCKER_CONFIG=$CASE_DIR/empty ab image pull "$REGISTRY/test/bb:1"
  expect_rc 125 "no credentials"
  expect_err_has "refused"
}

case_pull_missing_tag_and_repository() {
  reg none
  ab image pull "$REGISTRY/test/bb:nope"
  expect_rc 125
  expect_err_has 'no tag "nope"'
  ab image pull "$REGISTRY/test/absent:1"
  expect_rc 125
  expect_store_empty
  box --image nothing:here -- true
  expect_rc 125
  expect_err_has "no image"
}

case_pull_digest_mismatch() {
  reg none
  # Another repository of its own, one of whose blobs is then corrupted in the registry's storage.
  $WRITER layer --entries '[{"path":"corrupt-me","data":"x"}]' "$CASE_DIR/l.tgz"
  $WRITER image --push "$REGISTRY/test/corrupt$$:1" "$FIX/bb.tgz" "$CASE_DIR/l.tgz" >/dev/null || fail "push"
  local hex data
  hex=$(sha256sum "$CASE_DIR/l.tgz" | cut -d' ' -f1)
  data=$(find "$REGISTRY_DIR/storage" -path "*/blobs/sha256/${hex:0:2}/$hex/data")
  [[ -f $data ]] || fail "no blob $hex in the registry storage"
  printf 'tampered' | dd of="$data" bs=1 seek=20 conv=notrunc 2>/dev/null
  ab image pull "$REGISTRY/test/corrupt$$:1"
  expect_rc 125
  expect_err_has "digest mismatch"
  ab image ls --json
  [[ $AB_OUT != *corrupt* ]] || fail "the mismatched image was recorded"
}

case_pull_hanging_registry() {
  # Accepts connections and never answers.
  $PY -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(16)
open(sys.argv[1],"w").write(str(s.getsockname()[1]))
conns=[]
while True: conns.append(s.accept())' "$CASE_DIR/port" &
  local pid=$! start
  on_exit "kill $pid"
  wait_until 10 test -s "$CASE_DIR/port" || fail "the silent server did not start"
  start=$(now_ms)
  ab image pull --timeout 2 "127.0.0.1:$(cat "$CASE_DIR/port")/x/y:1"
  expect_rc 125
  expect_err_has "sent nothing for 2 s"
  (($(now_ms) - start < 20000)) || fail "the pull took $(($(now_ms) - start)) ms"
  expect_store_empty
}

case_pull_stalls_mid_layer() {
  reg none
  # A proxy in front of the registry that passes everything but stops every blob half way and
  # then says nothing: the layer is unpacked while it streams in, so the unpack is waiting on it.
  $PY -c 'import http.server,socket,sys,threading,urllib.request
up=sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        try: r=urllib.request.urlopen(urllib.request.Request(up+self.path,headers={"Accept":self.headers.get("Accept","*/*")}))
        except urllib.error.HTTPError as e: r=e
        body=r.read()
        self.send_response(r.status)
        for k,v in r.headers.items():
            if k.lower() not in ("connection","transfer-encoding"): self.send_header(k,v)
        self.end_headers()
        if "/blobs/" in self.path and len(body) > 4096:
            self.wfile.write(body[:len(body)//2]); self.wfile.flush(); threading.Event().wait()
        self.wfile.write(body)
    def log_message(self,*a): pass
s=http.server.ThreadingHTTPServer(("127.0.0.1",0),H)
open(sys.argv[1],"w").write(str(s.server_address[1]))
s.serve_forever()' "$CASE_DIR/port" "http://$REGISTRY" &
  local pid=$! start
  on_exit "kill $pid"
  wait_until 10 test -s "$CASE_DIR/port" || fail "the stalling proxy did not start"
  start=$(now_ms)
  ab image pull --timeout 2 "127.0.0.1:$(cat "$CASE_DIR/port")/test/bb:1"
  expect_rc 125
  expect_err_has "sent nothing for 2 s"
  [[ $(printf '%s\n' "$AB_ERR" | wc -l) == 1 ]] || fail "more than one line: $AB_ERR"
  (($(now_ms) - start < 20000)) || fail "the pull took $(($(now_ms) - start)) ms"
  expect_store_empty
}

case_full_disk_while_pulling() {
  reg none
  # The layer streams from the registry into its unpack: the disk's error is the one reported
  # (not the download's broken pipe), and nothing half-written stays.
  local state=$CASE_DIR/small
  mkdir -p "$state"
  mount -t tmpfs -o size=1m tmpfs "$state" || skip "cannot mount a tmpfs"
  on_exit "umount -l '$state'"
  AGENTBOX_STATE_DIR=$state ab image pull "$REGISTRY/test/bb:1"
  expect_rc 125
  expect_err_has "No space left"
  [[ $AB_ERR != *"downloaded layer"* ]] || fail "the download's error hid the disk's: $AB_ERR"
  AGENTBOX_STATE_DIR=$state ab image ls --json
  [[ $AB_OUT == "[]" ]] || fail "a half-written image was recorded: $AB_OUT"
  [[ -z $(ls -A "$state/images/layers") ]] || fail "a half-written layer was committed"
}

case_layer_with_dotdot_refused() {
  refused_layer '[{"path":"../escaped","data":"x"}]' "climbs out of the layer"
}

case_layer_through_symlink_refused() {
  mkdir -p "$CASE_DIR/target"
  refused_layer "[{\"path\":\"link\",\"type\":\"symlink\",\"target\":\"$CASE_DIR/target\"},{\"path\":\"link/evil\",\"data\":\"x\"}]" "symlink"
  [[ ! -e $CASE_DIR/target/evil ]] || fail "a file was written through the symlink onto the host"
}

case_layer_hardlink_out_refused() {
  refused_layer '[{"path":"h","type":"hardlink","target":"../../../../etc/passwd"}]' "climbs out of the layer"
}

case_layer_absolute_symlink_stays_inside() {
  # An absolute symlink is kept as it is: inside the sandbox it names the sandbox's own file.
  $WRITER layer --entries '[{"path":"etc/shadowlink","type":"symlink","target":"/etc/motd"}]' "$CASE_DIR/l.tgz"
  $WRITER image --docker-save "$CASE_DIR/i.tar" --tag abs:1 "$FIX/bb.tgz" "$FIX/extra.tgz" "$CASE_DIR/l.tgz"
  ab image load "$CASE_DIR/i.tar"
  expect_rc 0
  box --image abs:1 -- cat /etc/shadowlink
  expect_rc 0
  [[ $AB_OUT == from-layer-two ]] || fail "the link did not resolve inside: $AB_OUT"
}

case_layer_device_node_refused() {
  refused_layer '[{"path":"dev/sda","type":"block"}]' "device node"
  refused_layer '[{"path":"dev/mem","type":"char"}]' "device node"
}

case_layer_setuid_bits_dropped() {
  $WRITER layer --entries '[{"path":"bin/suid","data":"#!/bin/sh\nid -u\n","mode":3565}]' "$CASE_DIR/l.tgz"
  $WRITER image --docker-save "$CASE_DIR/i.tar" --tag suid:1 "$FIX/bb.tgz" "$CASE_DIR/l.tgz"
  ab image load "$CASE_DIR/i.tar"
  expect_rc 0
  local f
  f=$(find "$AGENTBOX_STATE_DIR/images/layers" -path '*/root/bin/suid')
  [[ $(stat -c %a "$f") == 755 ]] || fail "mode $(stat -c %a "$f"), want 755 (setuid/setgid dropped)"
  box --image suid:1 -- stat -c %a /bin/suid
  [[ $AB_OUT == 755 ]] || fail "inside: $AB_OUT"
}

case_layer_tar_bomb_refused() {
  $WRITER bomb --bytes $((64 << 20)) "$CASE_DIR/bomb.tgz"
  $WRITER image --docker-save "$CASE_DIR/b.tar" --tag bomb:1 "$CASE_DIR/bomb.tgz" 2>/dev/null ||
    $WRITER image --oci "$CASE_DIR/b" --tag bomb:1 "$CASE_DIR/bomb.tgz"
  local src=$CASE_DIR/b.tar
  [[ -f $src ]] || src=$CASE_DIR/b
  ab image load --max-layer-size 16M "$src"
  expect_rc 125
  expect_err_has "layer size ceiling"
  $WRITER bomb --files 3000 "$CASE_DIR/many.tgz"
  mkdir -p "$CASE_DIR/m"
  $WRITER image --oci "$CASE_DIR/m" --tag many:1 "$CASE_DIR/many.tgz"
  ab image load --max-layer-entries 1000 "$CASE_DIR/m"
  expect_rc 125
  expect_err_has "entry ceiling"
  expect_store_empty
}

case_full_disk_while_unpacking() {
  # The state dir on a 3 MiB tmpfs: the busybox layer (2+ MiB) and its archive copy cannot fit.
  local state=$CASE_DIR/small
  mkdir -p "$state"
  mount -t tmpfs -o size=3m tmpfs "$state" || skip "cannot mount a tmpfs"
  on_exit "umount -l '$state'"
  AGENTBOX_STATE_DIR=$state ab image load "$FIX/bb-save.tar"
  expect_rc 125
  expect_err_has "No space left"
  AGENTBOX_STATE_DIR=$state ab image ls --json
  [[ $AB_OUT == "[]" ]] || fail "a half-written image was recorded: $AB_OUT"
  [[ -z $(ls -A "$state/images/layers") ]] || fail "a half-written layer was committed"
}

case_whiteouts_and_opaque_dirs() {
  $WRITER layer --entries '[{"path":"a","type":"dir"},{"path":"a/f1","data":"1"},{"path":"a/f2","data":"2"},{"path":"b","type":"dir"},{"path":"b/x","data":"x"}]' "$CASE_DIR/l1.tgz"
  $WRITER layer --entries '[{"path":"a/.wh.f1","data":""},{"path":"b","type":"dir"},{"path":"b/.wh..wh..opq","data":""},{"path":"b/y","data":"y"}]' "$CASE_DIR/l2.tgz"
  $WRITER image --docker-save "$CASE_DIR/w.tar" --tag wh:1 "$FIX/bb.tgz" "$CASE_DIR/l1.tgz" "$CASE_DIR/l2.tgz"
  ab image load "$CASE_DIR/w.tar"
  expect_rc 0
  box --image wh:1 -- sh -c 'ls /a; echo --; ls /b'
  expect_rc 0
  [[ $AB_OUT == $'f2\n--\ny' ]] || fail "whiteouts not applied: $AB_OUT"
}

case_ownership_mapped_into_the_sandbox() {
  $WRITER layer --entries '[{"path":"r","data":"secret","mode":384,"uid":0},{"path":"u","data":"mine\n","mode":384,"uid":1000}]' "$CASE_DIR/l.tgz"
  $WRITER image --docker-save "$CASE_DIR/o.tar" --tag own:1 "$FIX/bb.tgz" "$CASE_DIR/l.tgz"
  ab image load "$CASE_DIR/o.tar"
  box --image own:1 -- sh -c 'stat -c %u /r /u; cat /u; cat /r 2>/dev/null || echo denied'
  expect_rc 0
  [[ $AB_OUT == $'0\n1000\nmine\ndenied' ]] || fail "unexpected: $AB_OUT"
  local f
  f=$(find "$AGENTBOX_STATE_DIR/images/layers" -path '*/root/r')
  [[ $(stat -c %u "$f") == 3900000000 ]] || fail "root's file is host uid $(stat -c %u "$f")"
}

case_rm_refused_while_in_use_then_gc() {
  ab image load "$FIX/bb-save.tar"
  new_box --image bb:save
  ab image rm bb:save
  expect_rc 125 "in use"
  expect_err_has "in use by sandbox"
  ab rm -f "$BOX"
  ab image rm bb:save
  expect_rc 0
  ab gc
  expect_out_has "removed layer sha256:"
  expect_store_empty
}

case_prune_and_untag() {
  ab image load "$FIX/bb-oci"
  ab image load --tag second:1 "$FIX/bb-oci"
  ab image rm bb:oci
  expect_rc 0
  expect_out_has "untagged bb:oci"
  ab image prune
  expect_rc 0
  expect_out_lacks "removed sha256"
  ab image prune --all
  expect_out_has "removed sha256:"
  expect_out_has "removed layer"
  expect_store_empty
}

# The same verbs with --json (issue 19: --json on every subcommand that prints data).
case_image_verbs_json() {
  ab image load --json "$FIX/bb-oci"
  expect_rc 0 "load --json"
  json_assert "len(r) == 1 and r[0]['id'].startswith('sha256:') and r[0]['names'] == ['bb:oci']" "load --json"
  local id
  id=$(json_get "r[0]['id']")
  ab image load --json --tag second:1 "$FIX/bb-oci"
  ab image rm --json bb:oci
  expect_rc 0 "rm --json"
  json_assert "r == [{'ref': 'bb:oci', 'untagged': 'bb:oci'}]" "rm --json: untagged"
  ab image prune --all --json
  expect_rc 0 "prune --json"
  json_assert "r['removed'] == ['$id'] and any(x.startswith('removed layer') for x in r['gc'])" "prune --json"
  expect_store_empty
}

case_load_from_docker_daemon() {
  timeout 20 docker info >/dev/null 2>&1 || skip "no docker daemon answers"
  local name=agentbox-images-test-$$:1
  docker load -i "$FIX/bb-save.tar" >/dev/null || fail "docker load"
  docker tag bb:save "$name" && docker rmi bb:save >/dev/null
  on_exit "docker rmi -f '$name' >/dev/null 2>&1"
  ab image load --docker "$name"
  expect_rc 0
  box --image "$name" -- cat /etc/motd
  expect_out_has from-layer-two
}

case_run_pull_flag_fetches_a_missing_image() {
  reg token
  box --image "$REGISTRY/test/bb:1" -- true
  expect_rc 125 "not in the store, no --pull"
  expect_err_has "no image"
  box --pull --image "$REGISTRY/test/bb:1" -- cat /etc/motd
  expect_rc 0
  [[ $AB_OUT == from-layer-two ]] || fail "the pull's output reached stdout: $AB_OUT"
  new_box --pull --image "$REGISTRY/test/multi:1"
  in_box 'echo created'
  expect_out_has created
  DOCKER_CONFIG=$CASE_DIR/empty box --pull --image "$REGISTRY/test/absent:1" -- true
  expect_rc 125
  expect_err_has "--pull: could not pull"
}
