# shellcheck shell=bash
# The effect report (issue #21, docs/api.md "The effect report"): each of the seed's accidents
# names, in the result itself, the wall that stopped it; the workspace's changes are listed; the
# seccomp listener counts denials without letting any call through.
# Single-quoted scripts run inside the sandbox and expand there; results read by the harness.
# shellcheck disable=SC2016,SC2034

# wall_assert KIND RULE_PREFIX [MSG]: the last JSON result's effects name a wall of KIND whose
# rule starts with RULE_PREFIX.
wall_assert() {
  json_assert "any(w['wall'] == '$1' and w['rule'].startswith('$2') for w in r['effects']['walls'])" \
    "${3:-no $1 wall with rule '$2' in the effects}"
}

case_effects_workspace_changes_listed() {
  mkdir -p "$WS/old" && echo 12345 >"$WS/old/gone.txt" && echo a >"$WS/edit.txt"
  chown -R "$(stat -c %u:%g "$WS")" "$WS"
  boxj -- sh -c 'mkdir -p new/sub && head -c 3000 /dev/zero > new/sub/blob && echo abcdef >> edit.txt && rm old/gone.txt'
  expect_rc 0
  json_assert "r['effects']['workspace']['observed']"
  json_assert "(lambda w: (w['created'], w['modified'], w['deleted']) == (3, 1, 1))(r['effects']['workspace'])" \
    "want 3 created (new, new/sub, new/sub/blob), 1 modified, 1 deleted"
  json_assert "r['effects']['workspace']['size_delta'] == 3000 + 7 - 6"
  json_assert "{(c['path'], c['change']) for c in r['effects']['workspace']['changes']} >= {('/workspace/new/sub/blob', 'created'), ('/workspace/edit.txt', 'modified'), ('/workspace/old/gone.txt', 'deleted')}"
  # Without --json: one summary line on stderr.
  box -- sh -c 'echo x > one.txt'
  expect_err_has "agentbox: effects: /workspace: 1 created"
}

# The listener only reports: the denied call fails with the filter's own errno, and is counted.
case_effects_seccomp_denial_named_and_counted() {
  boxj -- sh -c '/workspace/abprobe unshare user; /workspace/abprobe unshare user; /workspace/abprobe mount /tmp; true'
  expect_rc 0
  [[ $(json_get stdout) == *"errno=EPERM"* ]] || fail "unshare was not refused with EPERM: $AB_OUT"
  if on_gvisor; then
    json_assert "not r['effects']['syscalls_observed'] and r['effects']['syscalls_reason']"
    return 0
  fi
  if [[ $AB_BACKEND == docker ]]; then
    json_assert "not r['effects']['syscalls_observed'] and 'docker' in r['effects']['syscalls_reason']"
    return 0
  fi
  json_assert "r['effects']['syscalls_observed']"
  json_assert "[(w['what'], w['count'], w['errno'], w['seen_by']) for w in r['effects']['walls'] if w['wall'] == 'seccomp' and w['what'] == 'unshare'] == [('unshare', 2, 'EPERM', 'seccomp_notification')]" \
    "unshare x2 not counted by the listener"
  wall_assert seccomp "seccomp: mount"
}

# Guarded as the demo is: rm -rf runs only once a harmless write proved the root read-only.
case_effects_rm_rf_system_dir_names_read_only_root() {
  boxj -- sh -c 'touch /etc/abeffects-probe 2>/dev/null && exit 9; rm -rf /etc'
  expect_rc 1
  if on_gvisor; then  # gVisor's rm gets EACCES for the root's files: a permission wall
    json_assert "any(w['wall'] in ('read_only_root', 'permission') and w['what'].startswith('/etc') for w in r['effects']['walls'])"
  else
    wall_assert read_only_root "read-only root"
    json_assert "any(w['errno'] == 'EROFS' and w['what'].startswith('/etc') for w in r['effects']['walls'])"
  fi
  [[ -f /etc/passwd ]] || fail "the host's /etc is damaged"
}

case_effects_pip_into_global_python_names_read_only_root() {
  boxj -- python3 -c 'open("/usr/lib/python3/dist-packages/abeffects.py", "w")'
  [[ $AB_RC != 127 ]] || not_applicable "the root has no python3"
  expect_rc 1
  wall_assert read_only_root "read-only root"
  json_assert "any('pip install --target' in w['message'] or 'venv' in w['message'] for w in r['effects']['walls'])" \
    "the message does not say where to install instead"
}

case_effects_kill_host_process_names_pid_namespace() {
  only_on native "the host's pid is a host process only on native (docker: the daemon's)"
  sleep 300 &
  local pid=$!
  on_exit "kill $pid 2>/dev/null"
  boxj -- sh -c "kill -9 $pid"
  expect_rc 1
  wall_assert pid_namespace "pid namespace"
  kill -0 "$pid" || fail "the host's sleep $pid was killed"
}

case_effects_network_names_no_network() {
  own_resolv_conf
  boxj -- /workspace/abprobe dns-query pypi.org
  expect_rc 0
  wall_assert network "no network"
  json_assert "any(w['wall'] == 'network' and w['what'] == 'pypi.org' for w in r['effects']['walls'])"
}

case_effects_endless_grep_names_time_limit() {
  boxj --timeout 1 -- sh -c 'while true; do grep -r needle-not-there /usr/bin >/dev/null 2>&1; done'
  expect_rc 124
  wall_assert limit "timeout 1s"
}
