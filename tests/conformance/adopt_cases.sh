# shellcheck shell=bash
# On kubernetes the cluster is the truth for its sandboxes (issue 20: re-adoption, stateless serve
# replicas): a sandbox made through one state dir is found, used and removed through another,
# empty one, by id and by name, as through its own; the first then says it is unknown rather
# than keep a stale record; and `serve` started on an empty state dir serves it. N/A elsewhere:
# a native or docker sandbox lives in its state dir. Sourced by run.sh (H_CASE_FILES); the
# vocabulary is tests/lib/persistent.sh's.

# in_dir DIR SUBCOMMAND...: `ab` through state dir DIR.
in_dir() {
  local AGENTBOX_STATE_DIR=$1
  shift
  ab "$@"
}

# adopt_case TAG: N/A off kubernetes; else every state dir of the case is one agentbox to the
# cluster (one owner, as serve's replicas are: deploy/20-serve.yaml).
adopt_case() {
  [[ $AB_BACKEND == kubernetes ]] ||
    not_applicable "a $AB_BACKEND sandbox lives in its state dir: only the cluster keeps its own"
  export AGENTBOX_KUBE_OWNER=conformance-$1-$$
}

# adopt_serve DIR: `agentbox serve` (no tokens: the anonymous caller sees every sandbox) on a
# unix socket of this case, through state dir DIR; stopped when the case ends.
adopt_serve() {
  ADOPT_SOCK=$CASE_DIR/adopt.sock
  AGENTBOX_STATE_DIR=$1 "$AGENTBOX" serve --listen "unix:$ADOPT_SOCK" 2>"$CASE_DIR/adopt-serve.log" &
  ADOPT_SERVE_PID=$!
  wait_until 30 grep -q "listening on" "$CASE_DIR/adopt-serve.log" 2>/dev/null ||
    fail "agentbox serve did not start: $(head -c 300 "$CASE_DIR/adopt-serve.log")"
}

# api METHOD PATH [BODY]: one request to adopt_serve's socket; AB_OUT the body, AB_RC the status.
api() {
  AB_OUT=$(timeout 60 curl -sS --unix-socket "$ADOPT_SOCK" -X "$1" ${3:+-H 'Content-Type: application/json' --data "$3"} \
    -o "$CASE_DIR/api.out" -w '%{http_code}' "http://agentbox$2")
  AB_RC=$AB_OUT
  AB_OUT=$(cat "$CASE_DIR/api.out")
}

# adopt_objects ID: the pod, Secret and NetworkPolicy of sandbox ID in the cluster, one a line;
# through agent-sandbox (AGENTBOX_KUBE_SANDBOX_CLAIMS) its claim, and the claim's pod, which
# carries the claim's uid instead of the sandbox's label (found by its owner, the claim).
adopt_objects() {
  timeout 60 kubectl get pods,secrets,networkpolicies -l "agentbox.dev/sandbox=$1" -o name
  [[ -n ${AGENTBOX_KUBE_SANDBOX_CLAIMS:-} ]] || return 0
  timeout 60 kubectl get sandboxclaims -l "agentbox.dev/sandbox=$1" -o name
  timeout 60 kubectl get pods -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"agentbox-$1\")]}pod/{.metadata.name}{\"\n\"}{end}"
}
adopt_objects_gone() { [[ -z $(adopt_objects "$1") ]]; }

case_kubernetes_sandbox_found_through_an_empty_state_dir() {
  adopt_case found
  local a b id
  new_state_dir a
  new_state_dir b
  in_dir "$a" create "${AB_KIND[@]}" --name adoptee -e GREETING=hello --ttl 1h
  expect_rc 0 "create through state dir A"
  id=$AB_OUT
  in_dir "$a" inspect "$id"
  local expires
  expires=$(json_get expires_at)
  # B has never seen it: every lookup goes to the cluster, by id, prefix and name.
  in_dir "$b" ls --json
  expect_rc 0
  json_assert "[(s['id'], s['name'], s['state']) for s in r] == [('$id', 'adoptee', 'running')]" \
    "ls through an empty state dir must show the cluster's sandbox once"
  in_dir "$b" exec adoptee -- sh -c 'echo "$GREETING"; id -u'
  expect_rc 0 "exec by name through state dir B"
  expect_out "hello
1000" "create's env and user hold through B"
  in_dir "$b" inspect "${id:0:6}"
  expect_rc 0 "inspect by id prefix through B"
  json_assert "r['id'] == '$id' and r['name'] == 'adoptee' and r['state'] == 'running' and r['backend'] == 'kubernetes'"
  json_assert "r['expires_at'] == '$expires' and r['policy']['env'] == {'GREETING': 'hello'}" \
    "B's record must be A's: expires_at and the policy"
  echo "from B" >"$CASE_DIR/in.txt"
  in_dir "$b" cp "$CASE_DIR/in.txt" "$id:/workspace/f.txt"
  expect_rc 0 "cp in by id through B"
  in_dir "$a" cp "adoptee:/workspace/f.txt" "$CASE_DIR/back.txt"
  expect_rc 0 "cp out by name through A"
  [[ $(cat "$CASE_DIR/back.txt") == "from B" ]] || fail "A read '$(cat "$CASE_DIR/back.txt")'"
  in_dir "$b" ls --json
  json_assert "len(r) == 1 and r[0]['id'] == '$id'" "ls after adoption lists it once"
  # A serve started on an empty state dir serves it over the API.
  local c
  new_state_dir c
  adopt_serve "$c"
  api POST "/v1/sandboxes/adoptee/exec" '{"argv":["cat","/workspace/f.txt"]}'
  [[ $AB_RC == 200 ]] || fail "exec over the API of serve on an empty state dir: $AB_RC $AB_OUT"
  json_assert "r['exit_code'] == 0 and r['stdout'] == 'from B\n'" "the API's exec"
  api GET "/v1/sandboxes/$id"
  [[ $AB_RC == 200 ]] || fail "GET of the sandbox from serve on an empty state dir: $AB_RC $AB_OUT"
  json_assert "r['id'] == '$id' and r['name'] == 'adoptee'"
  # gc through a state dir of the same owner that never saw it keeps it: the cluster runs it and
  # its ttl is not over.
  local g
  new_state_dir g
  in_dir "$g" gc --json
  expect_rc 0
  json_assert "not any('$id' in x['name'] for x in r['removed'])" "gc through another state dir removed $id"
  in_dir "$a" exec "$id" -- true
  expect_rc 0 "the sandbox after gc through another state dir of its owner"
  # rm through B removes it from the cluster; A then says it is unknown, not dead.
  in_dir "$b" rm adoptee
  expect_rc 0 "rm by name through B"
  wait_until 60 adopt_objects_gone "$id" ||
    fail "rm through B left $(adopt_objects "$id" | paste -sd ' ') of $id"
  in_dir "$a" inspect "$id"
  expect_one_line_error "inspect through A of the sandbox B removed"
  expect_err_has "no such sandbox"
  [[ ! -e $a/sandboxes/$id ]] || fail "A kept its stale record of $id"
  in_dir "$a" ls --json
  json_assert "r == []" "A's ls after B's rm"
  api GET "/v1/sandboxes/$id"
  [[ $AB_RC == 404 ]] || fail "serve's GET after the rm: $AB_RC $AB_OUT"
}

# Two sandboxes of one name in the cluster: a lookup by that name is ambiguous, as a prefix of
# several ids is, never a guess.
case_kubernetes_adoption_refuses_ambiguity() {
  adopt_case ambiguous
  local a b c
  new_state_dir a
  new_state_dir b
  new_state_dir c
  in_dir "$a" create "${AB_KIND[@]}" --name twin
  expect_rc 0
  in_dir "$b" create "${AB_KIND[@]}" --name twin
  expect_rc 0 "names are per state dir"
  in_dir "$c" exec twin -- true
  expect_one_line_error "exec of a name two sandboxes of the cluster have"
  expect_err_has "ambiguous"
  in_dir "$c" ls --json
  json_assert "sorted(s['name'] for s in r) == ['twin', 'twin']" "ls shows both"
}

# owners_of OBJECT: its ownerReferences, one a line: apiVersion kind name uid controller block.
owners_of() {
  timeout 60 kubectl get "$1" -o jsonpath='{range .metadata.ownerReferences[*]}{.apiVersion} {.kind} {.name} {.uid} {.controller} {.blockOwnerDeletion}{"\n"}{end}'
}

# The sandbox's token Secret is the root of its objects (docs/kubernetes.md, "A sandbox's
# objects"): its pod and NetworkPolicy (through agent-sandbox its SandboxClaim, and so the claim's
# pod; never the shared template's policy) name the Secret's uid, so deleting the Secret alone
# removes the sandbox through the cluster's garbage collector; agentbox then lists nothing of it
# and its gc keeps nothing of it.
case_kubernetes_secret_owns_the_sandbox_objects() {
  adopt_case owned
  local a id uid want obj
  new_state_dir a
  in_dir "$a" create "${AB_KIND[@]}"
  expect_rc 0
  id=$AB_OUT
  uid=$(timeout 60 kubectl get secret "agentbox-$id-token" -o jsonpath='{.metadata.uid}')
  [[ -n $uid ]] || fail "Secret agentbox-$id-token has no uid"
  want="v1 Secret agentbox-$id-token $uid false false"
  local owned=(pod/agentbox-"$id" networkpolicy/agentbox-"$id")
  [[ -z ${AGENTBOX_KUBE_SANDBOX_CLAIMS:-} ]] || owned=(sandboxclaim/agentbox-"$id")
  for obj in "${owned[@]}"; do
    [[ $(owners_of "$obj") == "$want" ]] ||
      fail "$obj is owned by '$(owners_of "$obj")', not '$want'"
  done
  [[ -n $(adopt_objects "$id") ]] || fail "no objects of $id in the cluster"
  timeout 60 kubectl delete secret "agentbox-$id-token" >/dev/null || fail "kubectl delete secret"
  wait_until 60 adopt_objects_gone "$id" ||
    fail "the Secret's delete left $(adopt_objects "$id" | paste -sd ' ') of $id"
  in_dir "$a" ls --json
  expect_rc 0
  json_assert "r == []" "ls after the Secret's delete"
  in_dir "$a" gc --json
  expect_rc 0 "gc after the Secret's delete"
  in_dir "$a" ls --json
  json_assert "r == []" "ls after gc"
  [[ -z $(adopt_objects "$id") && ! -e $a/sandboxes/$id ]] || fail "gc kept something of $id"
}
