# shellcheck shell=bash
# Egress by allowlist (allow_hosts) on whatever backend the suite runs: `run` and a persistent
# sandbox's execs and background processes reach an allowed host through agentbox's proxy, a host
# not on the list is refused with the proxy's reason, and the proxy is gone after rm. On
# kubernetes the proxy runs on this host and serves the pod through the agent's egress relay
# (agent/egress_relay.h). The security suite (tests/security/cases/egress.sh) has the abuse
# cases; these are the contract, on every backend and image, with nothing in the box but
# busybox's wget (the busybox roots) or python3's urllib (the Debian image, which has no busybox).
#
# Every server is the test's own on this host's loopback (tests/lib/egress_servers.py), named
# through a hosts file the proxy reads (AGENTBOX_EGRESS_HOSTS_FILE): index.test and other.test
# are 127.0.0.1, and loopback is opened only by a pattern naming the exact address.
# shellcheck disable=SC2016,SC2034

# egress_servers_up: the servers and the hosts file; ALLOW opens index.test's HTTP port only.
egress_servers_up() {
  egress_servers_start
  printf '127.0.0.1 index.test other.test\n' >"$CASE_DIR/hosts"
  export AGENTBOX_EGRESS_HOSTS_FILE=$CASE_DIR/hosts
  ALLOW=(--allow-host "index.test:$HTTP_PORT" --allow-host "127.0.0.1:$HTTP_PORT")
}

# FETCH defines `fetch URL` in the box's sh: the body on stdout through the proxy variables the
# exec was given, an HTTP error (the proxy's 403) on stderr and exit 1, with whichever client the
# root has.
FETCH='fetch() { if command -v busybox >/dev/null 2>&1; then busybox wget -q -O - "$1"; else python3 -c "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())" "$1"; fi; }'
# fetch_in_box URL...: the box's sh command fetching each URL in turn.
fetch_in_box() { printf '%s' "$FETCH"; printf '; fetch %s' "$@"; }
# wget_to URL OUT: fetch URL into OUT, its exit status after it.
wget_to() { printf '%s; fetch %s >%s 2>&1; echo "rc=$?" >>%s' "$FETCH" "$1" "$2" "$2"; }

# egress_processes_of ID: pids of host processes holding the sandbox's egress log open (the
# proxy's stderr), whatever became of the state dir.
egress_processes_of() {
  local fd
  for fd in /proc/[0-9]*/fd/2; do
    [[ $(readlink "$fd" 2>/dev/null) == *"/sandboxes/$1/egress.log"* ]] && echo "${fd#/proc/}" | cut -d/ -f1
  done
  return 0
}
no_egress_processes_of() { [[ -z $(egress_processes_of "$1") ]]; }

case_egress_run_reaches_an_allowed_host_only() {
  egress_servers_up
  ab run "${AB_KIND[@]}" --json "${ALLOW[@]}" -- sh -c \
    "$(fetch_in_box "http://index.test:$HTTP_PORT/hello.txt" "http://other.test:$HTTP_PORT/hello.txt"); echo done"
  expect_rc 0
  json_assert "r['stdout'].count('hello through the proxy') == 1" "want the allowed host's file once: ${AB_OUT:0:300}"
  json_assert "[c['allowed'] for c in r['network']['connections'] if c.get('kind') != 'lookup'] == [True, False]"
  json_assert "[c['host'] for c in r['network']['connections'] if c.get('kind') != 'lookup'] == ['index.test', 'other.test']"
  json_assert "[c for c in r['network']['connections'] if c.get('kind') != 'lookup'][1]['reason'] == 'not in allow_hosts'"
  # Without --json the refusal is said on stderr, in the proxy's words.
  ab run "${AB_KIND[@]}" "${ALLOW[@]}" -- sh -c "$(fetch_in_box "http://other.test:$HTTP_PORT/hello.txt")"
  [[ $AB_RC != 0 ]] || fail "wget of a host not on the list succeeded"
  expect_err_has "agentbox: network: connect to other.test:$HTTP_PORT denied by policy (allow_hosts)"
}

case_egress_persistent_execs_and_rm_ends_the_proxy() {
  egress_servers_up
  new_box "${ALLOW[@]}"
  ab exec --json "$BOX" -- sh -c 'echo "$HTTP_PROXY $HTTPS_PROXY"'
  json_assert "r['stdout'].startswith('http://127.0.0.1:')" "no proxy variables in the exec: ${AB_OUT:0:200}"
  ab exec --json "$BOX" -- sh -c "$(fetch_in_box "http://index.test:$HTTP_PORT/hello.txt")"
  expect_rc 0
  json_assert "r['stdout'] == 'hello through the proxy\n'"
  json_assert "len(r['network']['connections']) == 1 and r['network']['connections'][0]['allowed']"
  ab exec "$BOX" -- sh -c "$(fetch_in_box "http://other.test:$HTTP_PORT/hello.txt")"
  [[ $AB_RC != 0 ]] || fail "wget of a host not on the list succeeded"
  expect_err_has "agentbox: network: connect to other.test:$HTTP_PORT denied by policy (allow_hosts)"
  local pid
  pid=$(egress_processes_of "$BOX" | head -1)
  [[ -n $pid ]] || fail "no egress proxy runs for the sandbox"
  ab rm -f "$BOX"
  expect_rc 0
  wait_until 10 no_egress_processes_of "$BOX" || fail "an egress proxy outlived rm: $(egress_processes_of "$BOX")"
}

case_egress_background_process_goes_through_the_proxy() {
  egress_servers_up
  new_box "${ALLOW[@]}"
  ab exec -d "$BOX" -- sh -c "$(wget_to "http://index.test:$HTTP_PORT/hello.txt" /workspace/allowed.out)
    $(wget_to "http://other.test:$HTTP_PORT/hello.txt" /workspace/denied.out)"
  expect_rc 0
  ab wait "$BOX" p1
  ab exec "$BOX" -- cat /workspace/allowed.out /workspace/denied.out
  expect_out_has "hello through the proxy" "a background process could not use the proxy"
  expect_out_has "403" "a background process reached a host not on the list"
  expect_out_has "rc=1"
  ab rm -f "$BOX"
  expect_rc 0
  wait_until 10 no_egress_processes_of "$BOX" || fail "an egress proxy outlived rm: $(egress_processes_of "$BOX")"
}

# A create that cannot give the proxy leaves no proxy behind: an allowlist pattern the proxy
# refuses is refused before anything starts, and nothing of the sandbox's remains.
case_egress_bad_pattern_refused_with_nothing_left() {
  ab create "${AB_KIND[@]}" --allow-host 'bad pattern!'
  expect_one_line_error "a malformed allow_hosts pattern"
  ab ls --json
  json_assert "r == []" "the refused create left a sandbox"
}

# On kubernetes there is no pidfd of the pod's PID 1 on this host: a pod deleted behind
# agentbox's back ends its proxy through the relay's background listener closing, and gc then
# removes the sandbox. No proxy is left waiting for a pod that is gone.
case_egress_pod_deleted_outside_ends_the_proxy() {
  [[ $AB_BACKEND == kubernetes ]] || not_applicable "the proxy watches a pidfd of the sandbox's PID 1 here"
  egress_servers_up
  new_box "${ALLOW[@]}"
  [[ -n $(egress_processes_of "$BOX") ]] || fail "no egress proxy runs for the sandbox"
  timeout 60 kubectl delete pod "agentbox-$BOX" >/dev/null || fail "kubectl delete pod agentbox-$BOX"
  wait_until 90 no_egress_processes_of "$BOX" || fail "the egress proxy outlived its pod: $(egress_processes_of "$BOX")"
  ab gc
  expect_rc 0
  ab ls --json
  json_assert "r == []" "gc left the sandbox whose pod is gone"
}

# egress_pid_in DIR ID: the egress proxy's pid in state dir DIR's record of sandbox ID (0: none).
egress_pid_in() {
  "$PY" -c 'import json, sys; print(json.load(open(sys.argv[1])).get("egress_pid", 0))' \
    "$1/sandboxes/$2/sandbox.json" 2>/dev/null || echo 0
}
# proxy_runs PID: PID is a process that has not ended (a zombie not reaped yet has).
proxy_runs() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
  [[ -n $state && $state != Z ]]
}
proxies_ended() {
  local p
  for p in "$@"; do ! proxy_runs "$p" || return 1; done
}

# On kubernetes a sandbox is found through any state dir of its owner (adopt_cases.sh): one with
# allow_hosts used through another state dir, or a serve on an empty one, gets a proxy of that
# host's own, with the pod's recorded allow_hosts: allowed hosts reached, others refused in the
# proxy's words, as through its maker, whose own proxy keeps serving it; a proxy that ended is
# started again by the next exec. rm through one ends the proxy of each. Before this the exec was
# refused ("has no egress proxy").
case_egress_kubernetes_adopted_sandbox_gets_a_proxy_of_its_own() {
  [[ $AB_BACKEND == kubernetes ]] || not_applicable "only a kubernetes sandbox is found through another state dir"
  adopt_case egress
  egress_servers_up
  local a b c id pa pb pc body
  new_state_dir a
  new_state_dir b
  in_dir "$a" create "${AB_KIND[@]}" "${ALLOW[@]}"
  expect_rc 0 "create with --allow-host through state dir A"
  id=$AB_OUT
  pa=$(egress_pid_in "$a" "$id")
  proxy_runs "$pa" || fail "no egress proxy of A runs: '$pa'"
  # B has never seen it: its first exec adopts it and starts B's own proxy.
  in_dir "$b" exec --json "$id" -- sh -c "$(fetch_in_box "http://index.test:$HTTP_PORT/hello.txt")"
  expect_rc 0 "an allowed host through state dir B"
  json_assert "r['stdout'] == 'hello through the proxy\n'"
  json_assert "[c['allowed'] for c in r['network']['connections'] if c.get('kind') != 'lookup'] == [True]" \
    "B's exec must have the report of B's proxy"
  pb=$(egress_pid_in "$b" "$id")
  { [[ $pb != "$pa" ]] && proxy_runs "$pb"; } || fail "B's egress proxy: '$pb' (A's: $pa)"
  in_dir "$b" exec "$id" -- sh -c "$(fetch_in_box "http://other.test:$HTTP_PORT/hello.txt")"
  [[ $AB_RC != 0 ]] || fail "a host not on the list was reached through B"
  expect_err_has "agentbox: network: connect to other.test:$HTTP_PORT denied by policy (allow_hosts)"
  [[ $(egress_pid_in "$b" "$id") == "$pb" ]] || fail "B's second exec started another proxy"
  # A background process through B goes through B's proxy too.
  in_dir "$b" exec -d "$id" -- sh -c "$(wget_to "http://index.test:$HTTP_PORT/hello.txt" /workspace/bg.out)"
  expect_rc 0
  in_dir "$b" wait "$id" p1
  in_dir "$b" exec "$id" -- cat /workspace/bg.out
  expect_out_has "hello through the proxy" "a background process through B could not use B's proxy"
  # A, whose CLI that made it has exited, still goes through its own.
  in_dir "$a" exec "$id" -- sh -c "$(fetch_in_box "http://index.test:$HTTP_PORT/hello.txt")"
  expect_rc 0 "an allowed host through A after B's proxy started"
  [[ $(egress_pid_in "$a" "$id") == "$pa" ]] || fail "A's exec started another proxy"
  # A proxy gone (killed here; or its relay's background listener lost) is started again by
  # the next exec, with the same list.
  kill -KILL "$pa"
  wait_until 10 proxies_ended "$pa" || fail "A's proxy $pa survived SIGKILL"
  in_dir "$a" exec "$id" -- sh -c "$(fetch_in_box "http://index.test:$HTTP_PORT/hello.txt")"
  expect_rc 0 "an allowed host through A after its proxy was killed"
  in_dir "$a" exec "$id" -- sh -c "$(fetch_in_box "http://other.test:$HTTP_PORT/hello.txt")"
  [[ $AB_RC != 0 ]] || fail "a host not on the list was reached through A's new proxy"
  expect_err_has "denied by policy (allow_hosts)"
  pa=$(egress_pid_in "$a" "$id")
  proxy_runs "$pa" || fail "A's new egress proxy: '$pa'"
  # serve on an empty state dir: the API's exec, allowed and refused.
  new_state_dir c
  adopt_serve "$c"
  body=$("$PY" -c 'import json, sys; print(json.dumps({"argv": ["sh", "-c", sys.argv[1]]}))' \
    "$(fetch_in_box "http://index.test:$HTTP_PORT/hello.txt")")
  api POST "/v1/sandboxes/$id/exec" "$body"
  [[ $AB_RC == 200 ]] || fail "exec over the API of serve on an empty state dir: $AB_RC $AB_OUT"
  json_assert "r['exit_code'] == 0 and r['stdout'] == 'hello through the proxy\n'" "serve's allowed fetch"
  body=$("$PY" -c 'import json, sys; print(json.dumps({"argv": ["sh", "-c", sys.argv[1]]}))' \
    "$(fetch_in_box "http://other.test:$HTTP_PORT/hello.txt")")
  api POST "/v1/sandboxes/$id/exec" "$body"
  [[ $AB_RC == 200 ]] || fail "the API's exec of a refused fetch: $AB_RC $AB_OUT"
  json_assert "r['exit_code'] != 0 and any(not c['allowed'] and c['host'] == 'other.test' for c in r['network']['connections'])" \
    "serve's exec reached a host not on the list"
  pc=$(egress_pid_in "$c" "$id")
  { [[ $pc != "$pa" && $pc != "$pb" ]] && proxy_runs "$pc"; } || fail "serve's egress proxy: '$pc'"
  # rm through B: B's proxy is killed, A's and serve's end with the pod's relay.
  in_dir "$b" rm -f "$id"
  expect_rc 0 "rm through B"
  wait_until 90 proxies_ended "$pa" "$pb" "$pc" || fail "an egress proxy outlived rm through B: A $pa, B $pb, serve $pc"
  wait_until 10 no_egress_processes_of "$id" || fail "egress processes of $id left: $(egress_processes_of "$id")"
  # serve started its proxy as its own child: once it knows the sandbox is gone, it has reaped it
  # (it stayed a zombie of serve's until serve exited).
  api GET "/v1/sandboxes/$id"
  [[ $AB_RC == 404 ]] || fail "serve still shows the removed sandbox: $AB_RC $AB_OUT"
  local zombies
  zombies=$(ps --ppid "$ADOPT_SERVE_PID" -o pid=,stat=,args= | awk '$2 ~ /^Z/')
  [[ -z $zombies ]] || fail "serve keeps ended children unreaped: $zombies"
}
