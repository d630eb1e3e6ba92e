# shellcheck shell=bash
# Cases of the terminal: `agentbox exec -t / -it` on the CLI and GET .../exec/tty (a WebSocket)
# through `agentbox serve`, on whatever backend the suite runs (AB_KIND). Sourced by
# tests/conformance/run.sh and by tests/docker/runsc.sh (the same under gVisor, whose PTY master
# never hangs up: an exec that waited for that hangup never ended there).

# The commands' scripts are single-quoted on purpose: they expand in the sandbox, not here.
# shellcheck disable=SC2016
TERMINAL_CASES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

case_terminal_exec_tty_size_and_ctrl_c() {
  new_box
  ab exec -t "$BOX" -- sh -c 'tty; echo "$TERM"; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo all-ttys'
  expect_rc 0
  [[ $AB_OUT == /dev/pts/*xterm*all-ttys* ]] || fail "-t gave no terminal: $AB_OUT"
  ab exec -t "$BOX" -- sh -c 'exit 3'
  expect_rc 3 "the command's own exit status on a terminal"
  AB_STDIN=<(printf 'echo typed\nexit 3\n') ab exec -it "$BOX" -- sh
  expect_rc 3 "the shell's own exit status"
  [[ $AB_OUT == *typed* ]] || fail "piped keys never reached the shell: $AB_OUT"
  ab exec -dt "$BOX" -- sh
  expect_one_line_error "-t with -d"
  local out
  # Ctrl-C typed on the terminal reaches the command's foreground group as SIGINT; a resize
  # reaches it as SIGWINCH with the new size.
  out=$(timeout 60 "$PY" "$TERMINAL_CASES_DIR/pty_client.py" "$AGENTBOX" "$BOX" \
    'trap "stty size; echo resized" WINCH; trap "echo got-int; exit 7" INT; echo ready; while :; do sleep 0.1; done') ||
    fail "the terminal client failed: $out"
  [[ $out == *"33 101"*resized* ]] || fail "the resize never reached the command: $out"
  [[ $out == *got-int*"status 7" ]] || fail "Ctrl-C did not reach the command, or its status was lost: $out"
}

# tty_serve: `agentbox serve` on a unix socket of this case (stopped when the case ends).
tty_serve() {
  TTY_SOCK=$CASE_DIR/tty.sock
  "$AGENTBOX" serve --listen "unix:$TTY_SOCK" 2>"$CASE_DIR/tty-serve.log" &
  wait_until 30 grep -q "listening on" "$CASE_DIR/tty-serve.log" 2>/dev/null ||
    fail "agentbox serve did not start: $(head -c 300 "$CASE_DIR/tty-serve.log")"
}

# ws STEP...: tests/e2e/ws_client.py on $BOX's terminal route; WS is its JSON line.
ws() {
  WS=$(timeout 90 "$PY" "$TERMINAL_CASES_DIR/../e2e/ws_client.py" "unix:$TTY_SOCK" \
    "/v1/sandboxes/$BOX/exec/tty" "$@") || fail "the WebSocket client failed: $WS"
}

# ws_assert EXPR [WHAT]: EXPR (Python, r = the client's JSON line) holds.
ws_assert() {
  "$PY" -c 'import json, sys; r = json.loads(sys.argv[1]); sys.exit(0 if eval(sys.argv[2]) else 1)' \
    "$WS" "$1" || fail "${2:-$1}: ${WS:0:600}"
}

# The same over the API: a PTY, TERM, keys typed into a shell, a resize seen as SIGWINCH, Ctrl-C
# reaching the command, the exit status in the final result, on every backend.
case_terminal_over_the_api() {
  new_box
  tty_serve
  ws 'text:{"argv":["sh","-c","tty; echo \"$TERM\"; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo all-ttys; exit 3"]}'
  ws_assert "r['status'] == 101 and r['close'] == 1000" "the upgrade and a normal close"
  ws_assert "'/dev/pts/' in r['output'] and 'xterm' in r['output'] and 'all-ttys' in r['output']" \
    "no terminal, or no TERM"
  ws_assert "[t['type'] for t in r['texts']] == ['result'] and r['texts'][0]['result']['exit_code'] == 3" \
    "the exit status in the result"
  # The first keys in the same packet as the exec body: they wait for the command, not for
  # more bytes from the client.
  ws hold 'text:{"argv":["sh"],"env":{"PS1":"$ "}}' 'keys:echo typed-$((40+2))\r' flush \
    'wait:typed-42' 'keys:exit 5\r'
  ws_assert "r['texts'][-1]['result']['exit_code'] == 5" "keys typed into a shell, its exit status"
  ws 'text:{"argv":["sh","-c","trap \"stty size; echo resized\" WINCH; trap \"echo got-int; exit 7\" INT; echo ready; while :; do sleep 0.1; done"]}' \
    'wait:ready' 'text:{"type":"resize","rows":33,"cols":101}' 'wait:resized' 'keys:\x03'
  ws_assert "'33 101' in r['output'] and 'got-int' in r['output']" "the resize or Ctrl-C never reached it"
  ws_assert "r['texts'][-1]['result']['exit_code'] == 7 and r['close'] == 1000" "Ctrl-C's exit status"
}
