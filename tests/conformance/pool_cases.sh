# shellcheck shell=bash
# Warm pools (core/warm_pool.h) on the backends that have them, docker and kubernetes: a create
# served from the pool reaches its first exec sooner than a cold one, and the sandbox it gets
# behaves as a cold one does (the create's name and env, an empty workspace of its own, files in
# and out, rm removes its container or pod); gc keeps a running warm sandbox and removes a dead
# one from the pool. Sourced by run.sh (H_CASE_FILES); the vocabulary is
# tests/lib/persistent.sh's.

# backend_objects ID: the container (docker) or the pod, Secret and NetworkPolicy (kubernetes)
# sandbox ID has, one name a line; none when it has none left.
backend_objects() {
  case $AB_BACKEND in
    docker) docker ps -aq --filter "name=^/agentbox-$1\$" ;;
    kubernetes)
      timeout 60 kubectl get pods,secrets,networkpolicies -l "agentbox.dev/sandbox=$1" -o name ;;
  esac
}

# pool_warm: how many warm sandboxes `pool ls` counts, all pools together.
pool_warm() {
  ab pool ls --json
  json_get "sum(p['warm'] for p in r)"
}

# pool_members: the ids of the warm sandboxes, from the pools' markers.
pool_members() {
  local f
  for f in "$AGENTBOX_STATE_DIR"/pool/*/*; do
    case ${f##*/} in config.json | config.json.tmp | lock | '*') ;; *) echo "${f##*/}" ;; esac
  done
}

pool_full() { [[ $(pool_warm) == 1 ]]; }
objects_gone() { [[ -z $(backend_objects "$1") ]]; }

# create_to_first_exec NAME ARG...: `create --name NAME ARG...` then `exec NAME -- true`; the
# milliseconds both took to T_MS.
create_to_first_exec() {
  local name=$1 t0
  shift
  t0=$(now_ms)
  new_box --name "$name" "$@"
  ab exec "$name" -- true
  expect_rc 0 "the first exec of $name"
  T_MS=$(($(now_ms) - t0))
}

# checks_as_cold NAME: what every sandbox of the case must show, however it was made.
checks_as_cold() {
  ab exec "$1" -- sh -c 'echo "$GREETING"; ls -A /workspace | wc -l'
  expect_rc 0
  expect_out "hello
0" "$1 has the create's env and an empty workspace of its own"
  printf 'in %s\n' "$1" >"$CASE_DIR/$1.txt"
  ab cp "$CASE_DIR/$1.txt" "$1:/workspace/f.txt"
  expect_rc 0 "cp into $1"
  sh_in "$1" 'cat /workspace/f.txt; id -u'
  expect_out "in $1
1000" "$1 reads the copied file as uid 1000"
  ab cp "$1:/workspace/f.txt" "$CASE_DIR/$1.back"
  expect_rc 0 "cp out of $1"
  [[ $(cat "$CASE_DIR/$1.back") == "in $1" ]] || fail "cp out of $1 gave '$(cat "$CASE_DIR/$1.back")'"
}

case_warm_pool_create_is_faster_and_the_same() {
  [[ $AB_BACKEND != native ]] ||
    not_applicable "native sandboxes start in milliseconds: warm pools serve docker and kubernetes"
  local H_CALL_TIMEOUT=$((H_CALL_TIMEOUT * 2))
  on_exit "'$AGENTBOX' pool drain >/dev/null 2>&1"
  create_to_first_exec cold -e GREETING=hello
  local cold_ms=$T_MS cold_id=$BOX
  checks_as_cold cold
  ab pool fill "${AB_KIND[@]}" --size 1
  expect_rc 0 "pool fill"
  expect_out "started 1"
  local pooled
  pooled=$(pool_members)
  create_to_first_exec warm -e GREETING=hello
  local warm_ms=$T_MS warm_id=$BOX
  [[ $warm_id == "$pooled" ]] || fail "create made $warm_id instead of claiming the warm $pooled"
  echo "create to first exec on $AB_TARGET: cold $cold_ms ms, from the pool $warm_ms ms"
  ((warm_ms < cold_ms)) || fail "from the pool took $warm_ms ms, cold $cold_ms ms"
  checks_as_cold warm
  ab inspect warm
  json_assert "r['id'] == '$warm_id' and r['name'] == 'warm' and r['backend'] == '$AB_BACKEND'" \
    "the claimed sandbox is the create's"
  # The claim is topped up in the background: the pool is full again before it is drained.
  wait_until 120 pool_full || fail "the pool was not topped up to 1 after the claim"
  [[ -n $(backend_objects "$warm_id") ]] || fail "no container or pod of $warm_id while it runs"
  local id
  for id in "$cold_id" "$warm_id"; do
    ab rm "$id"
    expect_rc 0 "rm $id"
    wait_until 60 objects_gone "$id" ||
      fail "rm left $(backend_objects "$id" | paste -sd ' ') of $id behind"
  done
  # gc keeps a warm sandbox that runs and removes one whose container or pod is gone, with what
  # is left of it (a pod's Secret and NetworkPolicy) and its place in the pool.
  local spare
  spare=$(pool_members)
  ab gc
  expect_rc 0
  [[ $(pool_warm) == 1 ]] || fail "gc removed the running warm sandbox $spare"
  case $AB_BACKEND in
    docker) docker rm -f "agentbox-$spare" >/dev/null ;;
    kubernetes) timeout 60 kubectl delete pod "agentbox-$spare" >/dev/null ;;
  esac
  ab gc --json
  expect_rc 0
  json_assert "any(x['name'] == '$spare' for x in r['removed'])" "gc of the warm sandbox whose box is gone"
  [[ $(pool_warm) == 0 ]] || fail "gc left the dead $spare in the pool"
  objects_gone "$spare" || fail "gc left $(backend_objects "$spare" | paste -sd ' ') of the dead $spare"
  ab pool drain --json
  json_assert "r == {'removed': 0}" "nothing warm is left to drain"
  ab ls --json
  json_assert "r == []" "nothing is left after rm and drain"
}
