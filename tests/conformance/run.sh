#!/usr/bin/env bash
# tests/conformance: docs/contract.md §3 (persistent sandboxes) against the CLI, whatever the backend.
#
#   AGENTBOX=build/agentbox [AGENTBOX_BACKEND=native|docker] bash tests/conformance/run.sh [REGEX]
#
# Every sandbox is made with `create --backend "$AGENTBOX_BACKEND"`, so the docker backend runs
# this file unchanged; the few host-side checks that only the native backend can answer say so
# (native_only). See lib.sh for the harness (one process, state dir and timeout per case).

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/persistent.sh
source "$HERE/../lib/persistent.sh"

# ---- create --------------------------------------------------------------------------------------

case_create_prints_id() {
  new_box
  local id=$BOX
  ab inspect "$id"
  expect_rc 0 "inspect of the printed id"
  json_assert "r['id'] == '$id' and r['state'] == 'running'" "inspect does not show $id running"
  new_box
  [[ $BOX != "$id" ]] || fail "two creates printed the same id $id"
}

case_create_name_duplicate_refused() {
  new_box --name web
  local id=$BOX
  ab create "${AB_KIND[@]}" --name web
  expect_one_line_error "a second sandbox named web"
  [[ -z $AB_OUT ]] || fail "the refused create printed '$AB_OUT' on stdout"
  ab ls --json
  expect_rc 0
  json_assert "len(r) == 1 and r[0]['id'] == '$id' and r[0]['name'] == 'web'" \
    "after the refused create, ls must list only the first sandbox"
  local n
  n=$(ls "$AGENTBOX_STATE_DIR/sandboxes" | wc -l)
  [[ $n == 1 ]] || fail "the refused create left $n sandbox dirs in the state dir"
  if [[ $AB_BACKEND == native ]]; then
    n=$(cg_children | grep -c .)
    [[ $n == 1 ]] || fail "the refused create left a cgroup: $(cg_children | paste -sd ' ')"
  fi
  ab exec web -- true
  expect_rc 0 "exec by name after the refused duplicate"
}

case_create_options_are_exec_defaults() {
  # 2 s: more than an echo needs on a loaded host, far less than the sleep below.
  new_box -e FROM_CREATE=yes --timeout 2 --name opts
  ab exec opts -- sh -c 'echo "$FROM_CREATE"'
  expect_rc 0
  expect_out yes "create's -e must hold for each exec"
  local t0
  t0=$(now_ms)
  ab exec opts -- sleep 25
  expect_rc 124 "create --timeout 2 is each exec's default"
  (($(now_ms) - t0 < 15000)) || fail "the 2 s default timeout took $(($(now_ms) - t0)) ms (the sleep was 25 s)"
  ab exec --timeout 5 opts -- sh -c 'sleep 1; echo late'
  expect_rc 0 "exec --timeout overrides create's"
  expect_out late
}

# The smallest open_files limit a sandbox takes still leaves its agent the fds to serve execs
# (native: create failed below 66, where the agent's fds are moved; both: execs failed below ~20
# with EMFILE), and each command gets exactly the limit.
case_smallest_open_files_limit_works() {
  # kubernetes: a pod has no ulimit; the agent sets it on each exec (--open-files in the pod).
  local policy=$CASE_DIR/policy.json
  printf '{"open_files": 32}\n' >"$policy"
  new_box --policy "$policy"
  sh_in "$BOX" 'ulimit -n'
  expect_rc 0 "an exec with open_files 32"
  expect_out 32
  printf '{"open_files": 31}\n' >"$policy"
  ab create "${AB_KIND[@]}" --policy "$policy"
  expect_one_line_error "open_files below 32"
}

# ---- exec ----------------------------------------------------------------------------------------

case_exec_exit_codes() {
  new_box
  ab exec "$BOX" -- true
  expect_rc 0 "true"
  ab exec "$BOX" -- sh -c 'exit 3'
  expect_rc 3 "exit 3"
  local t0=$(now_ms)
  ab exec --timeout 0.5 "$BOX" -- sleep 25
  expect_rc 124 "--timeout 0.5 on sleep 25"
  (($(now_ms) - t0 < 15000)) || fail "the 0.5 s timeout took $(($(now_ms) - t0)) ms (the sleep was 25 s)"
  ab exec "$BOX" -- sh -c 'printf "#!/bin/sh\necho no\n" > /workspace/noexec; chmod 644 /workspace/noexec'
  expect_rc 0
  ab exec "$BOX" -- /workspace/noexec
  expect_rc 126 "a file without exec permission"
  ab exec "$BOX" -- /workspace
  expect_rc 126 "a directory"
  ab exec "$BOX" -- no-such-command-xyz
  expect_rc 127 "a command not on PATH"
  ab exec "$BOX" -- /workspace/no/such/file
  expect_rc 127 "a path that does not exist"
  ab exec "$BOX" -- sh -c 'kill -KILL $$'
  expect_rc 137 "killed by SIGKILL"
  ab exec "$BOX" -- sh -c 'kill -TERM $$'
  expect_rc 143 "killed by SIGTERM"
  ab exec "$BOX" -- sh -c 'exit 0'
  expect_rc 0 "the sandbox still works after all that"
}

case_exec_json_result() {
  # --cpus 2: on a slow host (a TCG guest) the default 1-CPU quota can throttle even a trivial
  # exec's start (its init and command together), and limits_hit then rightly says cpu; this
  # case is about the result's shape, so it leaves the quota no chance.
  new_box --cpus 2
  ab exec --json "$BOX" -- sh -c 'echo out; echo err >&2; exit 3'
  expect_rc 3 "--json keeps the command's exit status"
  json_assert "set(r) >= {'exit_code','signal','reason','duration_ms','cpu_ms','peak_memory_bytes','stdout','stderr','stdout_truncated','stderr_truncated','limits_hit'}" \
    "the result lacks keys of docs/contract.md §1"
  json_assert "r['exit_code'] == 3 and r['signal'] is None and r['reason'] == 'exited'"
  json_assert "r['stdout'] == 'out\n' and r['stderr'] == 'err\n'"
  json_assert "r['stdout_truncated'] is False and r['stderr_truncated'] is False and r['limits_hit'] == []"
  json_assert "isinstance(r['duration_ms'], (int, float)) and isinstance(r['cpu_ms'], (int, float)) and isinstance(r['peak_memory_bytes'], int)"
  ab exec --json --timeout 0.5 "$BOX" -- sleep 10
  expect_rc 124
  json_assert "r['reason'] == 'timeout' and r['exit_code'] == 124 and 'timeout' in r['limits_hit']"
  ab exec --json "$BOX" -- sh -c 'kill -KILL $$'
  expect_rc 137
  json_assert "r['reason'] == 'signaled' and r['signal'] == 9 and r['exit_code'] == 137"
  ab exec --json --output-limit 10 "$BOX" -- sh -c 'head -c 1000 /dev/zero | tr "\0" a'
  expect_rc 0
  json_assert "r['stdout'] == 'a' * 10 and r['stdout_truncated'] is True and 'output' in r['limits_hit']"
  ab exec --json "$BOX" -- sh -c 'printf "ok\377\n"'
  json_assert "r['stdout'] == 'ok\ufffd\n'" "a bad UTF-8 byte must become U+FFFD"
  ab exec --json no-such-box-xyz -- true
  expect_rc 125 "--json on an unknown sandbox"
  json_assert "r['reason'] == 'error' and r['exit_code'] == 125 and r.get('error')" \
    "the JSON of a failed exec must say reason error with an error message"
}

case_exec_file_seen_by_next() {
  new_box
  ab exec "$BOX" -- sh -c 'echo hello > /workspace/a.txt; mkdir -p /workspace/d/e; echo deep > /workspace/d/e/f'
  expect_rc 0
  ab exec "$BOX" -- cat /workspace/a.txt /workspace/d/e/f
  expect_rc 0
  expect_out $'hello\ndeep'
  ab exec "$BOX" -- sh -c 'cat a.txt'
  expect_out hello "the default cwd is /workspace"
}

# --disk-limit of a persistent sandbox bounds what its workspace gains over the sandbox's life,
# refused by the kernel at the write (EDQUOT): execs add up, and the command goes on with the
# error, as it would on a full disk.
case_disk_limit_holds_over_the_sandbox_life() {
  host_workspace_only "the disk limit is the emptyDir's sizeLimit, held by eviction, not at the write"
  new_box --disk-limit 4M
  ab exec --json "$BOX" -- sh -c 'head -c 3000000 /dev/zero > a'
  expect_rc 0 "3 MB under a 4M limit"
  json_assert "'disk' not in r['limits_hit']" "3 MB of a 4M limit reported as disk"
  json_assert "r['disk_limit'] == {'bytes': 4194304, 'enforced': True, 'mechanism': r['disk_limit']['mechanism']} and r['disk_limit']['mechanism']" \
    "the limit is not held by a quota"
  # dd: it names the errno (busybox head says only "I/O error").
  ab exec --json "$BOX" -- sh -c 'dd if=/dev/zero of=b bs=1000000 count=3; echo "rc=$?"; echo survived'
  expect_rc 0 "the command goes on after the refused write"
  json_assert "'rc=1' in r['stdout'] and 'survived' in r['stdout']" "the write past the limit was not refused"
  json_assert "'quota' in r['stderr'].lower() or 'space' in r['stderr'].lower()" "no EDQUOT/ENOSPC for the command"
  json_assert "'disk' in r['limits_hit']" "a write refused at the limit is not in limits_hit"
  ab exec "$BOX" -- sh -c 'cat a b | wc -c'
  ((AB_OUT <= 4194304)) || fail "the workspace holds $AB_OUT bytes past a 4M limit"
  ab exec --json "$BOX" -- sh -c 'rm b; head -c 500000 /dev/zero > c'
  expect_rc 0 "what is freed can be written again"
}

case_exec_env_cwd_stdin() {
  new_box
  ab exec -e FOO=bar -e "SPACED=a b" "$BOX" -- sh -c 'echo "$FOO|$SPACED|$HOME|$LANG"'
  expect_rc 0
  expect_out "bar|a b|/workspace|C.UTF-8"
  ab exec "$BOX" -- sh -c 'echo "${FOO-unset}"'
  expect_out unset "-e of one exec must not stick to the next"
  HOST_SECRET_CONF=leak ab exec "$BOX" -- sh -c 'env | grep -c HOST_SECRET_CONF'
  expect_out 0 "the host's environment must not reach the command"
  ab exec "$BOX" -- pwd
  expect_out /workspace "default cwd"
  ab exec "$BOX" -- mkdir -p /workspace/sub/dir
  ab exec -w /workspace/sub/dir "$BOX" -- pwd
  expect_rc 0
  expect_out /workspace/sub/dir "-w"
  ab exec -w /tmp "$BOX" -- pwd
  expect_out /tmp "-w /tmp"
  ab exec "$BOX" -- pwd
  expect_out /workspace "-w of one exec must not stick to the next"
  printf 'line one\nline two\n' >"$CASE_DIR/in.txt"
  AB_STDIN=$CASE_DIR/in.txt ab exec -i "$BOX" -- sh -c 'cat; echo end'
  expect_rc 0
  expect_out $'line one\nline two\nend' "-i passes stdin"
  AB_STDIN=$CASE_DIR/in.txt ab exec "$BOX" -- sh -c 'cat; echo end'
  expect_rc 0
  expect_out end "without -i stdin is /dev/null"
  ab exec "$BOX" -- sh -c 'ls /proc/self/fd | sort -n | paste -sd " "'
  expect_rc 0
  # ls itself holds one more fd (its directory), so 0 1 2 and one more.
  [[ $AB_OUT =~ ^0\ 1\ 2(\ [0-9]+)?$ ]] || fail "fds open in the command: $AB_OUT (want 0 1 2)"
}

# ---- workspace -----------------------------------------------------------------------------------

case_workspace_user_dir_kept_after_rm() {
  host_workspace_only "--workspace names a host directory; the pod's workspace is an emptyDir"
  local ws=$CASE_DIR/userws
  mkdir -p "$ws"
  chown 4321:4322 "$ws"
  echo preexisting >"$ws/old.txt"
  chown 4321:4322 "$ws/old.txt"
  new_box --workspace "$ws"
  ab exec "$BOX" -- cat /workspace/old.txt
  expect_out preexisting "the user's files are visible at /workspace"
  ab exec "$BOX" -- sh -c 'echo made > /workspace/new.txt; mkdir /workspace/nd; echo x > /workspace/nd/f'
  expect_rc 0
  ab exec "$BOX" -- cat /workspace/new.txt
  expect_out made "the workspace persists across execs"
  [[ -f $ws/new.txt && $(cat "$ws/new.txt") == made ]] || fail "new.txt is not in the host dir"
  local owner
  owner=$(stat -c %u:%g "$ws/new.txt" "$ws/nd" "$ws/nd/f" | sort -u | paste -sd ' ')
  [[ $owner == 4321:4322 ]] || fail "files made inside belong on the host to $owner, want 4321:4322 (the dir's owner)"
  ab inspect "$BOX"
  json_assert "r['workspace_temporary'] is False" "a given workspace is not temporary"
  ab rm "$BOX"
  expect_rc 0
  [[ -d $ws && -f $ws/new.txt && -f $ws/old.txt && -f $ws/nd/f ]] ||
    fail "rm removed (part of) the user's workspace: $(ls -la "$ws" 2>&1 | paste -sd ' ')"
}

case_workspace_private_removed_by_rm() {
  new_box
  ab inspect "$BOX"
  local ws
  ws=$(json_get "r['workspace']")
  json_assert "r['workspace_temporary'] is True" "the default workspace is private"
  ab exec "$BOX" -- sh -c 'echo x > /workspace/f; mkdir -p /workspace/a/b; echo y > /workspace/a/b/g'
  ab exec "$BOX" -- cat /workspace/f
  expect_out x
  if [[ $AB_BACKEND == native ]]; then
    [[ -f $ws/a/b/g ]] || fail "the private workspace $ws does not hold the sandbox's files"
  fi
  ab rm "$BOX"
  expect_rc 0
  [[ ! -e $ws ]] || fail "rm left the private workspace $ws"
}

# ---- concurrency ---------------------------------------------------------------------------------

# Four execs at once: each says it started, then waits until all four have, so they can only
# finish if the sandbox runs them side by side (serialized, the first would wait for ever and
# end at its timeout). No clock is read: a loaded host only makes it slower.
case_parallel_execs_in_one_sandbox() {
  new_box
  ab exec "$BOX" -- true
  local i t0 ms
  t0=$(now_ms)
  for i in 1 2 3 4; do
    ab_bg "p$i" exec --timeout 25 "$BOX" -- sh -c \
      "touch /workspace/started.$i; until [ \$(ls /workspace | grep -c '^started[.]') -ge 4 ]; do sleep 0.05; done; echo $i"
  done
  wait
  ms=$(($(now_ms) - t0))
  for i in 1 2 3 4; do
    [[ $(bg_rc "p$i") == 0 ]] || fail "parallel exec $i exited $(bg_rc "p$i") (124: the execs were serialized): $(bg_err "p$i")"
    [[ $(bg_out "p$i") == "$i" ]] || fail "parallel exec $i printed '$(bg_out "p$i")'"
  done
  echo "4 execs waiting for each other finished in $ms ms"
}

case_timeout_kills_only_its_tree() {
  new_box
  local tag=$RANDOM$RANDOM
  # A long exec alongside, which must live through the other's timeout.
  ab_bg long exec --timeout 20 "$BOX" -- sh -c 'sleep 3; echo survivor'
  local t0=$(now_ms)
  ab exec --timeout 0.5 "$BOX" -- sh -c \
    "setsid sh -c 'sleep 2; echo leaked > /workspace/leak' & setsid sleep 30.$tag & sleep 30"
  expect_rc 124 "the timed-out exec"
  (($(now_ms) - t0 < 15000)) || fail "the 0.5 s timeout took $(($(now_ms) - t0)) ms (the sleep was 30 s)"
  if [[ $AB_BACKEND == native ]]; then
    wait_until 10 no_pids_of_cmd "sleep 30.$tag" ||
      fail "the setsid'd 'sleep 30.$tag' survived its exec's timeout on the host"
  fi
  wait
  [[ $(bg_rc long) == 0 && $(bg_out long) == survivor ]] ||
    fail "the concurrent exec did not survive the other's timeout: rc=$(bg_rc long) out='$(bg_out long)' err=$(bg_err long)"
  ab exec "$BOX" -- sh -c 'test -e /workspace/leak && echo leaked || echo clean'
  expect_rc 0 "the sandbox stays usable"
  expect_out clean "a setsid'd child of the timed-out exec ran on and wrote /workspace/leak"
}

# The result of an exec comes when its tree is gone, not a moment before: the host looks once,
# with no grace period. The marker is computed inside, so only the sleeps carry it.
case_exec_tree_gone_when_result_arrives() {
  new_box
  local tag=$RANDOM$RANDOM
  local mark="30.$((tag + 1))"
  sh_in "$BOX" "m=30.\$(($tag + 1)); setsid sleep \$m >/dev/null 2>&1 & (sleep \$m >/dev/null 2>&1 &);
    i=0; while [ \$i -lt 200 ] && [ \$(grep -las \"\$m\" /proc/[0-9]*/cmdline | wc -l) -lt 2 ]; do
      sleep 0.05; i=\$((i + 1)); done; [ \$i -lt 200 ] && echo started"
  expect_rc 0
  expect_out started
  local left
  left=$(pids_of_cmd "sleep $mark")
  [[ -z $left ]] || fail "processes of the exec were still there when its result came: $left"
}

case_many_sandboxes_at_once() {
  local n=10 i ids=()
  for i in $(seq $n); do ab_bg "c$i" create "${AB_KIND[@]}"; done
  wait
  for i in $(seq $n); do
    [[ $(bg_rc "c$i") == 0 ]] || fail "parallel create $i exited $(bg_rc "c$i"): $(bg_err "c$i")"
    ids+=("$(bg_out "c$i")")
  done
  local distinct
  distinct=$(printf '%s\n' "${ids[@]}" | sort -u | grep -c .)
  [[ $distinct == "$n" ]] || fail "$n creates gave $distinct distinct ids: ${ids[*]}"
  for i in $(seq $n); do
    ab_bg "e$i" exec "${ids[$((i - 1))]}" -- sh -c "echo $i > /workspace/mine; touch /workspace/only$i; cat /workspace/mine"
  done
  wait
  for i in $(seq $n); do
    [[ $(bg_rc "e$i") == 0 && $(bg_out "e$i") == "$i" ]] ||
      fail "exec in sandbox $i: rc=$(bg_rc "e$i") out='$(bg_out "e$i")' err=$(bg_err "e$i")"
  done
  for i in $(seq $n); do
    ab exec "${ids[$((i - 1))]}" -- sh -c 'cat /workspace/mine; ls /workspace | grep -c only'
    expect_rc 0
    expect_out "$i"$'\n'1 "sandbox $i sees another sandbox's files (or lost its own)"
  done
  ab ls --json
  expect_rc 0
  json_assert "len(r) == $n and all(s['state'] == 'running' for s in r)" "ls must show $n running"
  json_assert "sorted(s['id'] for s in r) == sorted('${ids[*]}'.split())" "ls shows other ids"
}

# ---- ls / inspect --------------------------------------------------------------------------------

case_ls_table_and_json() {
  ab ls
  expect_rc 0 "ls with no sandboxes"
  ab ls --json
  expect_rc 0
  json_assert "r == []" "ls --json with no sandboxes is []"
  new_box --name lsbox
  local named=$BOX
  new_box
  local anon=$BOX
  ab ls
  expect_rc 0
  local row
  row=$(printf '%s\n' "$AB_OUT" | grep -F "$named")
  [[ $row == *lsbox* && $row == *running* ]] || fail "the table row of $named lacks its name/state: '$row'"
  row=$(printf '%s\n' "$AB_OUT" | grep -F "$anon")
  [[ $row == *running* ]] || fail "the table row of $anon lacks state running: '$row'"
  [[ $(printf '%s\n' "$AB_OUT" | head -1) == *ID* ]] || fail "the table has no header line"
  ab ls --json
  expect_rc 0
  json_assert "len(r) == 2 and all({'id','name','backend','state','created_at','workspace'} <= set(s) for s in r)" \
    "ls --json entries lack keys"
  json_assert "{s['id']: (s['name'], s['state'], s['backend']) for s in r} == {'$named': ('lsbox', 'running', '$AB_BACKEND'), '$anon': ('', 'running', '$AB_BACKEND')}"
}

# The pods, Secrets and NetworkPolicies of every sandbox in the cluster, one name a line.
sandbox_objects_in_cluster() {
  timeout 60 kubectl get pods,secrets,networkpolicies -l agentbox.dev/sandbox -o name | sort
}
# none_but OBJECTS: no object in the cluster that is not among OBJECTS (earlier cases' pods may
# still be terminating, and go).
none_but() { [[ -z $(comm -13 <(printf '%s\n' "$1") <(sandbox_objects_in_cluster)) ]]; }

case_inspect_fields() {
  local ws=$CASE_DIR/iws temporary=False pids=64 objects_before
  # kubernetes: the workspace is the pod's emptyDir, no host path ("") and gone with the pod. A
  # pids limit asked for is refused where the pod cannot hold it (the fake's podman pods have
  # pids.max "max"), and nothing is left in the cluster; the default is reported instead.
  if [[ $AB_BACKEND == kubernetes ]]; then
    ws= temporary=True pids=256
    objects_before=$(sandbox_objects_in_cluster)
    ab create "${AB_KIND[@]}" --name insp --pids 64
    expect_one_line_error "an explicit --pids no pod holds"
    expect_err_has "pids limit 64 cannot be enforced"
    # Deleted at once; a pod's termination takes its grace period.
    wait_until 90 none_but "$objects_before" ||
      fail "the refused create left objects in the cluster: $(comm -13 <(printf '%s\n' "$objects_before") <(sandbox_objects_in_cluster))"
    new_box --name insp --memory 256M
  else
    new_box --name insp --workspace "$ws" --memory 256M --pids 64
  fi
  ab inspect insp
  expect_rc 0
  json_assert "{'id','name','backend','state','created_at','workspace','workspace_temporary','policy','usage'} <= set(r)" \
    "inspect lacks keys"
  json_assert "r['id'] == '$BOX' and r['name'] == 'insp' and r['backend'] == '$AB_BACKEND' and r['state'] == 'running'"
  json_assert "r['workspace'] == '$ws' and r['workspace_temporary'] is $temporary"
  json_assert "__import__('re').match(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d', r['created_at'])" "created_at is not RFC 3339"
  json_assert "isinstance(r['policy'], dict) and r['policy'].get('memory') == 256*1024*1024 and r['policy'].get('pids') == $pids" \
    "policy does not show --memory 256M and pids $pids"
  json_assert "r['usage'] is None or isinstance(r['usage'], dict)"
  if [[ $AB_BACKEND == kubernetes ]]; then
    # The pod's own cgroup, read by its agent: counters, and a pids limit no pod field holds
    # (the fake's podman kube play sets no pids.max: "max").
    json_assert "r['usage']['peak_memory_bytes'] > 0 and r['usage']['cpu_ms'] > 0" \
      "inspect shows no counters of the pod's cgroup: ${AB_OUT:0:300}"
    json_assert "r['pids_limit']['count'] == 256 and r['pids_limit']['enforced'] is False and 'podPidsLimit' in r['pids_limit']['reason']" \
      "a pids limit no pod holds must say so: ${AB_OUT:0:400}"
  else
    json_assert "r['pids_limit'] == {'count': 64, 'enforced': True}" "pids_limit: ${AB_OUT:0:400}"
  fi
  if [[ $AB_BACKEND == native ]]; then
    json_assert "isinstance(r.get('pid'), int) and r['pid'] > 1" "native inspect lacks the agent's pid"
    local pid
    pid=$(json_get "r['pid']")
    [[ -d /proc/$pid ]] || fail "inspect's pid $pid is not a live host process"
  fi
  ab inspect "$BOX"
  expect_rc 0 "inspect by id"
  ab inspect "${BOX:0:6}"
  expect_rc 0 "inspect by a unique id prefix"
}

# verify_check NAME PY_COND: the check NAME of the verify report in AB_OUT is there and, as c,
# satisfies PY_COND.
verify_check() {
  json_assert "(lambda c: c is not None and ($2))(next((x for x in r['checks'] if x['name'] == '$1'), None))" \
    "verify's $1 is missing or not as expected ($2)"
}

# inspect --verify (docs/security.md): each wall of the box checked from inside, on every backend.
# native and docker: every check applies and passes. kubernetes (docs/kubernetes.md): a pod runs
# on its node's kernel, so its namespaces are compared with the node's initial ones (mnt and net
# are numbered so only since Linux 6.18: before, not applicable, saying why), its user namespace
# is the node's (agentbox sets no hostUsers: false: not applicable, saying why), so may be its
# cgroup namespace (the runtime's choice: not applicable, saying why), it has lo and
# its own interface, its NetworkPolicy is read back from the API server, and its pids limit is not
# held (the fake's podman pods: pids.max is max), an honest failure and the only one.
case_inspect_verify_reports_each_wall() {
  # kubernetes refuses an explicit --pids no pod holds (inspect_fields): the default is checked.
  local pids=64
  if [[ $AB_BACKEND == kubernetes ]]; then
    pids=256
    new_box --memory 256M
  else
    new_box --memory 256M --pids $pids
  fi
  ab inspect --verify "$BOX"
  local name passing="uid gid uid_map gid_map CapInh CapPrm CapEff CapBnd CapAmb NoNewPrivs
    Seccomp root_readonly workspace_writable network memory_limit ns_pid ns_ipc ns_uts"
  local all="$passing ns_user ns_mnt ns_net ns_cgroup pids_limit"
  if [[ $AB_BACKEND == kubernetes ]]; then
    expect_rc 1 "verify of a pod whose pids limit nothing holds"
    json_assert "r['ok'] is False and r['id'] == '$BOX'"
    passing+=" network_policy"
    all+=" network_policy"
    verify_check ns_user "c['ok'] is None and 'hostUsers' in c['reason'] and c['got'] == 'user:[4026531837]'"
    for name in ns_mnt ns_net; do
      verify_check "$name" "(c['ok'] is True and 'reason' not in c) or (c['ok'] is None and '6.18' in c['reason'])"
    done
    # podman on a cgroup v1 host gives the pod no cgroup namespace; a cgroup v2 host does.
    verify_check ns_cgroup "(c['ok'] is True and 'reason' not in c) or (c['ok'] is None and 'cgroup v2' in c['reason'] and c['got'] == 'cgroup:[4026531835]')"
    verify_check network "c['want'] == 'lo and one pod interface'"
    verify_check pids_limit "c['ok'] is False and c['want'] == '$pids' and c['got'] == 'max'"
    expect_err_has "verify: pids_limit: want $pids, got max"
    [[ $(grep -c 'verify:' <<<"$AB_ERR") == 1 ]] || fail "want one failure line (pids_limit), got: $AB_ERR"
  else
    expect_rc 0 "verify failed: $AB_ERR"
    json_assert "r['ok'] is True and r['id'] == '$BOX'"
    passing+=" ns_user ns_mnt ns_net ns_cgroup pids_limit"
    verify_check pids_limit "c['want'] == '$pids'"
    [[ -z $AB_ERR ]] || fail "a passing verify printed on stderr: $AB_ERR"
  fi
  for name in $passing; do
    verify_check "$name" "c['ok'] is True and 'reason' not in c"
  done
  json_assert "sorted(c['name'] for c in r['checks']) == sorted('${all//$'\n'/ }'.split())" \
    "verify's checks are not exactly the expected ones"
  verify_check memory_limit "c['got'] == '268435456'"
  json_assert "not any(c['ok'] and c['got'] in ('missing', 'unknown') for c in r['checks'])" \
    "a check passed on what it could not see"
}

# ---- cp ------------------------------------------------------------------------------------------

case_cp_file_in_and_out() {
  new_box
  echo "hello cp" >"$CASE_DIR/f.txt"
  ab cp "$CASE_DIR/f.txt" "$BOX:f.txt"
  expect_rc 0 "cp in (relative path)"
  ab exec "$BOX" -- cat /workspace/f.txt
  expect_out "hello cp"
  ab cp "$CASE_DIR/f.txt" "$BOX:/workspace/g.txt"
  expect_rc 0 "cp in (absolute /workspace path)"
  ab exec "$BOX" -- mkdir -p /workspace/into
  ab cp "$CASE_DIR/f.txt" "$BOX:into"
  expect_rc 0 "cp into an existing directory"
  ab exec "$BOX" -- cat /workspace/into/f.txt
  expect_out "hello cp" "cp into a dir keeps the basename"
  ab exec "$BOX" -- sh -c 'echo from inside > /workspace/out.txt'
  ab cp "$BOX:out.txt" "$CASE_DIR/out.txt"
  expect_rc 0 "cp out"
  [[ $(cat "$CASE_DIR/out.txt") == "from inside" ]] || fail "cp out gave '$(cat "$CASE_DIR/out.txt")'"
  head -c 200000 /dev/urandom >"$CASE_DIR/bin"
  printf '\0\377\0\n' >>"$CASE_DIR/bin"
  ab cp "$CASE_DIR/bin" "$BOX:bin"
  expect_rc 0 "cp in of binary content"
  ab exec "$BOX" -- sha256sum /workspace/bin
  [[ ${AB_OUT%% *} == "$(sha256sum <"$CASE_DIR/bin" | cut -d' ' -f1)" ]] || fail "binary content changed on the way in"
  ab cp "$BOX:bin" "$CASE_DIR/bin.back"
  expect_rc 0 "cp out of binary content"
  cmp -s "$CASE_DIR/bin" "$CASE_DIR/bin.back" || fail "binary content changed on the round trip"
}

case_cp_directory_in_and_out() {
  new_box
  local src=$CASE_DIR/tree
  mkdir -p "$src/a/b" "$src/empty"
  echo one >"$src/1.txt"
  echo two >"$src/a/2.txt"
  head -c 5000 /dev/urandom >"$src/a/b/3.bin"
  ab cp "$src" "$BOX:tree"
  expect_rc 0 "cp in of a directory"
  ab exec "$BOX" -- sh -c 'cd /workspace/tree && find . | sort | paste -sd " "'
  expect_out ". ./1.txt ./a ./a/2.txt ./a/b ./a/b/3.bin ./empty" "the tree inside"
  ab exec "$BOX" -- sh -c 'echo added > /workspace/tree/a/added.txt'
  ab cp "$BOX:tree" "$CASE_DIR/back"
  expect_rc 0 "cp out of a directory"
  echo added >"$src/a/added.txt"
  diff -r "$src" "$CASE_DIR/back" >"$CASE_DIR/diff" 2>&1 || fail "the tree came back different: $(head -5 "$CASE_DIR/diff")"
}

case_cp_outside_workspace_refused() {
  new_box
  ab inspect "$BOX"
  local ws
  ws=$(json_get "r['workspace']")
  echo evil >"$CASE_DIR/x"
  local dst
  for dst in /etc/x ../x /workspace/../x /tmp/x /x; do
    ab cp "$CASE_DIR/x" "$BOX:$dst"
    expect_one_line_error "cp to $dst"
  done
  ab exec "$BOX" -- sh -c 'for f in /etc/x /x /tmp/x; do test -e $f && echo $f; done; true'
  expect_rc 0
  expect_out "" "a refused cp wrote inside the sandbox"
  if [[ $AB_BACKEND == native ]]; then
    [[ ! -e $(dirname "$ws")/x ]] || fail "cp to ../x wrote $(dirname "$ws")/x on the host"
  fi
  ab cp "$BOX:/etc/passwd" "$CASE_DIR/passwd"
  expect_one_line_error "cp out of /etc/passwd"
  ab cp "$BOX:../sandbox.json" "$CASE_DIR/rec"
  expect_one_line_error "cp out of ../sandbox.json"
  [[ ! -e $CASE_DIR/passwd && ! -e $CASE_DIR/rec ]] || fail "a refused cp out wrote on the host"
}

case_cp_symlink_refused() {
  new_box
  ab exec "$BOX" -- sh -c 'ln -s /etc/passwd /workspace/pw; ln -s /etc /workspace/etcdir; ln -s ../../ /workspace/up'
  expect_rc 0
  ab cp "$BOX:pw" "$CASE_DIR/pw"
  expect_one_line_error "cp out of a symlink to /etc/passwd"
  [[ ! -e $CASE_DIR/pw ]] || fail "cp out followed the symlink: $(head -c 100 "$CASE_DIR/pw")"
  ab cp "$BOX:etcdir/passwd" "$CASE_DIR/pw2"
  expect_one_line_error "cp out through a symlinked dir to /etc"
  [[ ! -e $CASE_DIR/pw2 ]] || fail "cp out went through the symlinked dir"
  echo evil >"$CASE_DIR/e"
  # cp in onto the link: refused, or the link itself replaced by a file; never written through.
  ab cp "$CASE_DIR/e" "$BOX:pw"
  if [[ $AB_RC == 0 ]]; then
    ab exec "$BOX" -- sh -c 'test -L /workspace/pw && echo link; cat /workspace/pw'
    expect_out evil "cp in onto a symlink exited 0 but /workspace/pw is not the copied file"
  else
    expect_one_line_error "cp in onto a symlink to /etc/passwd"
  fi
  ab cp "$CASE_DIR/e" "$BOX:etcdir/evil"
  expect_one_line_error "cp in through a symlinked dir to /etc"
  ab cp "$CASE_DIR/e" "$BOX:up/evil"
  expect_one_line_error "cp in through a symlink to ../../"
  ab exec "$BOX" -- sh -c 'test -e /etc/evil && echo etc-evil; grep -c evil /etc/passwd; true'
  expect_out 0 "a refused cp in changed something outside /workspace"
  ab cp "$BOX:up" "$CASE_DIR/updir"
  [[ ! -e $CASE_DIR/updir/etc ]] || fail "cp out of a symlink to ../../ copied the sandbox's root"
}

# ---- unknown and removed sandboxes ---------------------------------------------------------------

case_unknown_sandbox_refused() {
  new_box  # one real sandbox, so "unknown" is not just "empty state dir"
  echo x >"$CASE_DIR/x"
  ab exec nosuchbox -- true
  expect_one_line_error "exec on an unknown name"
  ab exec ffffffffffff -- true
  expect_one_line_error "exec on an unknown id"
  ab inspect nosuchbox
  expect_one_line_error "inspect"
  ab rm nosuchbox
  expect_one_line_error "rm"
  ab rm -f nosuchbox
  expect_one_line_error "rm -f"
  ab cp "$CASE_DIR/x" nosuchbox:x
  expect_one_line_error "cp in"
  ab cp nosuchbox:x "$CASE_DIR/y"
  expect_one_line_error "cp out"
  [[ ! -e $CASE_DIR/y ]] || fail "cp out of an unknown sandbox wrote a file"
  ab exec "$BOX" -- true
  expect_rc 0 "the real sandbox is untouched"
}

case_rm_busy_refused_then_forced() {
  new_box
  local ws
  ab inspect "$BOX"
  ws=$(json_get "r['workspace']")
  ab_bg busy exec --timeout 25 "$BOX" -- sh -c 'touch /workspace/started; sleep 20; echo finished'
  local i
  for i in $(seq 100); do
    ab exec "$BOX" -- test -e /workspace/started
    [[ $AB_RC == 0 ]] && break
    sleep 0.1
  done
  [[ $AB_RC == 0 ]] || fail "the busy exec never started"
  ab rm "$BOX"
  expect_one_line_error "rm without -f of a sandbox running a command"
  [[ $AB_ERR == *"agentbox rm -f"* ]] || fail "rm of a busy sandbox should name rm -f: $AB_ERR"
  ab inspect "$BOX"
  expect_rc 0 "the refused rm must keep the sandbox"
  json_assert "r['state'] == 'running'" "the refused rm must keep the sandbox running"
  local t0=$(now_ms)
  ab rm -f "$BOX"
  expect_rc 0 "rm -f of a busy sandbox"
  wait_until 20 test -s "$CASE_DIR/busy.rc"
  local ms=$(($(now_ms) - t0))
  [[ -s $CASE_DIR/busy.rc ]] || fail "the busy exec's CLI still runs 20 s after rm -f"
  [[ $(bg_rc busy) != 0 && $(bg_out busy) != *finished* ]] ||
    fail "the busy exec was not killed by rm -f: rc=$(bg_rc busy) out=$(bg_out busy)"
  echo "busy exec's CLI returned $(bg_rc busy) ${ms} ms after rm -f began: $(bg_err busy)"
  ab inspect "$BOX"
  expect_one_line_error "inspect after rm -f"
}

case_exec_on_removed_sandbox() {
  new_box --name gone
  local id=$BOX
  ab rm gone
  expect_rc 0
  ab exec "$id" -- true
  expect_one_line_error "exec on a removed id"
  ab exec gone -- true
  expect_one_line_error "exec on a removed name"
  ab ls --json
  json_assert "r == []" "ls still lists the removed sandbox"
  new_box --name gone
  expect_rc 0 "the name of a removed sandbox is free again"
}

# create --ttl: the sandbox is removed once its lifetime has passed, as rm -f would (CLI alone,
# no server: the next command that looks finds it gone and says why); its name is free again.
case_ttl_ends_the_sandbox() {
  # The ttl counts from the create's start, so it must outlast the create itself before inspect
  # can show it: a pod's start on a busy host takes seconds, a container's or a native box's not.
  local ttl=4
  [[ $AB_BACKEND == kubernetes ]] && ttl=30
  new_box --ttl "${ttl}s" --name brief
  local id=$BOX
  ab inspect brief
  expect_rc 0
  json_assert "r['policy']['ttl'] == $ttl.0 and r['expires_at'].endswith('Z')" \
    "inspect does not show the ttl and its end"
  # The event: ls no longer lists it (at most a minute, however busy the host).
  not_listed() { ! "$AGENTBOX" ls --json | grep -q "\"$1\""; }
  wait_until $((ttl + 60)) not_listed "$id" || fail "ls still lists $id a minute after its $ttl s ttl"
  ab exec "$id" -- true
  expect_one_line_error "exec after the ttl"
  [[ -d $AGENTBOX_STATE_DIR/sandboxes/$id ]] && fail "the expired sandbox's state dir is left"
  if [[ $AB_BACKEND == native ]]; then
    [[ -z $(cg_children) ]] || fail "the expired sandbox left a cgroup: $(cg_children | paste -sd ' ')"
  fi
  new_box --name brief
  expect_rc 0 "the name of an expired sandbox is free again"
  ab create --ttl 0.5 "${AB_KIND[@]}"
  expect_one_line_error "a ttl under a second"
}

# An idle timeout ends a sandbox nobody uses, never one running a command: an exec longer than the
# timeout finishes, and the sandbox goes only once nothing has used it for that long.
case_idle_timeout_ends_an_unused_sandbox() {
  new_box --idle-timeout 3s --name idler
  local id=$BOX
  ab inspect idler
  json_assert "r['policy']['idle_timeout'] == 3.0 and r['last_active_at'].endswith('Z')" \
    "inspect does not show the idle timeout and the last use"
  local active=$AGENTBOX_STATE_DIR/sandboxes/$id/active
  unused_for() { (($(date +%s) - $(stat -c %Y "$active") >= $1)); }
  timeout -s KILL 60 "$AGENTBOX" exec idler -- sh -c 'sleep 6; echo slept' >"$CASE_DIR/long.out" 2>&1 </dev/null &
  local long=$!
  # 4 s into the exec its start is older than the timeout, but it runs: ls keeps it.
  wait_until 60 unused_for 4 || fail "the exec's start never got 4 s old"
  ab ls --json
  json_assert "any(s['id'] == '$id' for s in r)" "ls removed a sandbox whose exec was running"
  wait "$long" || fail "the exec longer than the idle timeout exited $?: $(cat "$CASE_DIR/long.out")"
  [[ $(cat "$CASE_DIR/long.out") == slept ]] || fail "the long exec printed: $(cat "$CASE_DIR/long.out")"
  # The first command to name it after the timeout removes it and says why.
  wait_until 60 unused_for 4 || fail "the sandbox's last use never got 4 s old"
  ab exec "$id" -- true
  expect_one_line_error "exec after the idle timeout"
  [[ $AB_ERR == *idle_timeout* ]] || fail "the error does not say why: $AB_ERR"
  [[ -d $AGENTBOX_STATE_DIR/sandboxes/$id ]] && fail "the idle sandbox's state dir is left"
  # Without a command: ls removes the next one (serve's sweep does it within a second).
  new_box --idle-timeout 2s
  local second=$BOX
  not_listed() { ! "$AGENTBOX" ls --json | grep -q "\"$1\""; }
  wait_until 60 not_listed "$second" || fail "ls still lists $second a minute after its 2 s idle timeout"
  ab create --idle-timeout 0 "${AB_KIND[@]}"
  expect_one_line_error "an idle timeout of 0"
}

# A result that is an error says why as the API's error codes do (error_code): the request's
# fault (a working directory that is not there) is not_found, through the agent's wire and the
# CLI alike.
case_an_error_result_names_its_code() {
  new_box
  ab exec --json --cwd /workspace/no-such-dir "$BOX" -- true
  expect_rc 125
  json_assert "r['reason'] == 'error' and r['error_code'] == 'not_found'"
  ab run "${AB_KIND[@]}" --json --cwd /workspace/no-such-dir -- true
  expect_rc 125
  json_assert "r['reason'] == 'error' and r['error_code'] == 'not_found'"
}

# ---- background processes (exec -d) -------------------------------------------------------------

# logs_have BOX PROC TEXT: the process's logs hold TEXT (for wait_until).
logs_have() { [[ $("$AGENTBOX" logs "$1" "$2" 2>&1) == *"$3"* ]]; }

case_background_process_lifecycle() {
  new_box
  ab exec -d "$BOX" -- sh -c 'echo ready; echo warn >&2; until [ -e /workspace/go ]; do sleep 0.05; done; echo done; exit 3'
  expect_rc 0
  expect_out p1 "the first background process's id"
  ab ps "$BOX"
  expect_rc 0
  [[ $AB_OUT == *"p1"*running*"echo ready"* ]] || fail "ps does not list p1 running: $AB_OUT"
  wait_until 30 logs_have "$BOX" p1 ready || fail "p1's output never showed in logs"
  ab logs "$BOX" p1
  expect_out ready "logs: stdout to stdout"
  [[ $AB_ERR == warn ]] || fail "logs: stderr to stderr, got '$AB_ERR'"
  # A plain exec runs beside it, and the sandbox is not busy for rm's sake.
  ab exec "$BOX" -- touch /workspace/go
  expect_rc 0
  ab wait "$BOX" p1
  expect_rc 3 "wait exits with the process's code"
  expect_out 3
  ab ps --json "$BOX"
  json_assert "r[0]['id'] == 'p1' and r[0]['state'] == 'exited' and r[0]['result']['exit_code'] == 3 and r[0]['output_bytes'] == len('ready\nwarn\ndone\n')"
  ab logs "$BOX" p1
  expect_out $'ready\ndone' "the logs of an exited process are kept"
}

case_background_logs_follow_until_exit() {
  new_box
  ab exec -d "$BOX" -- sh -c 'for i in 1 2 3 4 5; do echo line$i; sleep 0.2; done'
  expect_rc 0
  ab logs -f "$BOX" p1
  expect_rc 0
  expect_out $'line1\nline2\nline3\nline4\nline5' "logs -f prints everything until the process exits"
  ab logs --json --since 6 "$BOX" p1
  expect_out $'line2\nline3\nline4\nline5' "--since skips the bytes already read"
  AB_OUT=$AB_ERR json_assert "r['from'] == 6 and r['next'] == 30 and r['process']['state'] == 'exited'"
}

case_background_kill_signal_and_tree() {
  new_box
  local tag=$RANDOM$RANDOM
  ab exec -d "$BOX" -- sh -c 'trap "echo got TERM; exit 7" TERM; echo armed; while :; do sleep 0.1; done'
  expect_rc 0
  wait_until 30 logs_have "$BOX" p1 armed || fail "p1 never started"
  ab kill "$BOX" p1
  expect_rc 0
  ab wait "$BOX" p1
  expect_rc 7 "the TERM of kill reached the shell's trap"
  ab logs "$BOX" p1
  expect_out_has "got TERM"
  # KILL ends the whole tree, setsid'd children included.
  ab exec -d "$BOX" -- sh -c "setsid sleep 300.$tag & echo started; sleep 300"
  wait_until 30 logs_have "$BOX" p2 started || fail "p2 never started"
  ab kill -s KILL "$BOX" p2
  expect_rc 0
  ab wait --json "$BOX" p2
  json_assert "r['state'] == 'exited' and r['result']['signal'] == 9"
  if [[ $AB_BACKEND == native ]]; then
    wait_until 10 no_pids_of_cmd "sleep 300.$tag" || fail "a setsid'd child outlived kill -s KILL"
  fi
  ab exec "$BOX" -- sh -c "ps -eo args 2>/dev/null | grep -c '^sleep 300' || true"
  [[ $AB_OUT == 0 || -z $AB_OUT ]] || fail "sleeps of the killed tree are still in the sandbox: $AB_OUT"
  ab kill "$BOX" p2
  expect_one_line_error "kill of an exited process"
  ab kill -s STOP "$BOX" p2
  expect_one_line_error "SIGSTOP is refused"
  ab kill -s NOPE "$BOX" p2
  expect_one_line_error "an unknown signal"
}

case_background_stdin_written_later() {
  new_box
  ab exec -d -i "$BOX" -- sh -c 'while read -r line; do echo "got $line"; done; echo eof'
  expect_rc 0
  AB_STDIN=<(printf 'one\ntwo\n') ab send "$BOX" p1
  expect_rc 0
  wait_until 30 logs_have "$BOX" p1 "got two" || fail "the sent lines never reached the process"
  AB_STDIN=<(printf 'three\n') ab send --close "$BOX" p1
  expect_rc 0
  ab wait "$BOX" p1
  expect_rc 0 "closing its stdin ends the read loop"
  ab logs "$BOX" p1
  expect_out $'got one\ngot two\ngot three\neof'
  ab send "$BOX" p1
  expect_one_line_error "send to an exited process"
  ab exec -d "$BOX" -- sleep 30
  AB_STDIN=<(echo x) ab send "$BOX" p2
  expect_one_line_error "send to a process started without -i"
}

case_background_errors_and_timeout() {
  new_box
  ab exec -d "$BOX" -- no-such-command-here
  expect_rc 127 "a command that cannot be executed"
  [[ $AB_ERR == *no-such-command-here* ]] || fail "no error line names the command: $AB_ERR"
  ab exec -d --timeout 0.5 "$BOX" -- sleep 30
  expect_rc 0
  ab wait --json "$BOX" p2
  json_assert "r['result']['reason'] == 'timeout' and r['result']['exit_code'] == 124" "its own --timeout holds"
  ab exec -d "$BOX" -- sleep 30
  ab wait --timeout 0.3 "$BOX" p3
  expect_rc 124 "wait --timeout on a running process"
  for bad in p99 x1 p0 ''; do
    ab logs "$BOX" "$bad"
    expect_one_line_error "logs of '$bad'"
  done
  ab ps no-such-sandbox-here
  expect_one_line_error "ps of an unknown sandbox"
}

case_background_ring_keeps_the_end() {
  new_box
  ab exec -d --output-limit 1K "$BOX" -- sh -c 'i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done'
  expect_rc 0
  ab wait "$BOX" p1
  expect_rc 0
  ab logs "$BOX" p1
  ((${#AB_OUT} <= 1024)) || fail "the ring kept ${#AB_OUT} bytes past its 1K"
  [[ $AB_OUT == *"line 1999" ]] || fail "the ring lost the end: ${AB_OUT: -50}"
  local kept=$((${#AB_OUT} + 1)) # $(...) took the last newline
  ab ps --json "$BOX"
  json_assert "r[0]['dropped_bytes'] > 0 and r[0]['output_bytes'] == r[0]['dropped_bytes'] + $kept" "dropped_bytes counts what the ring let go"
}

case_background_oldest_exited_let_go() {
  new_box
  local i
  for i in $(seq 33); do
    ab exec -d "$BOX" -- true
    [[ $AB_RC == 0 && $AB_OUT == "p$i" ]] || fail "background process $i: rc=$AB_RC out='$AB_OUT' err=$AB_ERR"
    ab wait "$BOX" "p$i"
  done
  ab ps --json "$BOX"
  json_assert "len(r) == 32 and r[0]['id'] == 'p2' and r[-1]['id'] == 'p33'" "32 kept, the oldest let go"
  ab logs "$BOX" p1
  expect_one_line_error "the let-go process is unknown"
}

case_background_process_dies_with_rm() {
  new_box
  local tag=$RANDOM$RANDOM
  ab exec -d "$BOX" -- sh -c "setsid sleep 300.$tag & echo up; sleep 300.$tag"
  expect_rc 0
  wait_until 30 logs_have "$BOX" p1 up || fail "p1 never started"
  ab rm "$BOX"
  expect_rc 0 "a background process keeps no sandbox busy"
  if [[ $AB_BACKEND == native ]]; then
    wait_until 10 no_pids_of_cmd "sleep 300.$tag" || fail "a background process survived rm"
  fi
  ab ps "$BOX"
  expect_one_line_error "ps of the removed sandbox"
}

# More cases, one file per subject (the terminal's, exec -t and .../exec/tty, which the gVisor
# lane tests/docker/runsc.sh runs too; the CLI's): harness_main finds their case_ functions
# through H_CASE_FILES.
H_CASE_FILES=("$HERE/terminal_cases.sh" "$HERE/cli_cases.sh" "$HERE/snapshot_cases.sh"
  "$HERE/pool_cases.sh" "$HERE/adopt_cases.sh" "$HERE/egress_cases.sh")
for f in "${H_CASE_FILES[@]}"; do
  # shellcheck source=/dev/null
  source "$f"
done

harness_main "$0" "$@"
