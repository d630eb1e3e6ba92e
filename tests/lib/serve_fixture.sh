# shellcheck shell=bash
# A live `agentbox serve` for suites that drive it with real clients (tests/sdk, tests/examples):
# each server with a state dir of its own under the run's guarded dir (tests/lib/run_guard.sh),
# the run's own cgroup parent, and everything removed at the end, killed run or not.
#   source tests/lib/serve_fixture.sh; fixture_begin NAME
#   fixture_serve unix --listen unix:... ; step "what" LOG cmd...; fixture_end
# Needs SRC (the checkout) and AGENTBOX (the binary under test).

# shellcheck source=tests/lib/run_guard.sh
source "$SRC/tests/lib/run_guard.sh"
PASS=0 FAIL=0
FIXTURE_SERVERS=()

ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [[ -z ${2:-} ]] || sed 's/^/     /' "$2" | tail -40; }
# step NAME LOG CMD...: one check; its output kept in LOG and shown when it fails.
step() {
  local name=$1 log=$2
  shift 2
  if "$@" >"$log" 2>&1; then ok "$name"; else bad "$name" "$log"; fi
}
# The summary line ctest's reader and scripts/test-summary.py look for; the exit status.
fixture_summary() {
  echo "$PASS passed, $FAIL failed"
  [[ $FAIL == 0 ]]
}

fixture_cleanup() {
  local pid state id
  for pid in "${FIXTURE_SERVERS[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  for state in "$WORK"/state-*; do
    [[ -d $state ]] || continue
    for id in $(AGENTBOX_STATE_DIR=$state "$AGENTBOX" ls -q 2>/dev/null); do
      AGENTBOX_STATE_DIR=$state "$AGENTBOX" rm -f "$id" >/dev/null 2>&1
    done
  done
  guard_end
}

# fixture_needs_clients: skips the suite (exit 77, a failure under CI=true) when the host lacks
# what the clients need: npm, python3's venv, an agentbox that can make sandboxes here.
fixture_needs_clients() {
  local why=""
  if ! command -v npm >/dev/null; then
    why="npm missing (scripts/install-deps.sh test installs it)"
  elif ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    why="python3-venv missing"
  elif ! "$AGENTBOX" doctor >/dev/null 2>&1; then
    why="agentbox doctor fails here"
  fi
  [[ -z $why ]] && return 0
  echo "skip: $why"
  [[ ${CI:-} == true ]] && exit 1
  exit 77
}

# fixture_serve_unix: serve on the unix socket $SOCK ($WORK/state-unix/agentbox.sock); the suite
# ends failed when it does not start.
fixture_serve_unix() {
  SOCK=$WORK/state-unix/agentbox.sock
  fixture_serve unix --listen "unix:$SOCK" || { bad "serve starts"; fixture_summary; exit 1; }
}

# fixture_begin NAME: the guarded run dir ($WORK) and cgroup parent; cleanup on exit.
fixture_begin() {
  guard_start "$1" || exit 1
  WORK=$GUARD_DIR/w
  mkdir -p "$WORK"
  export AGENTBOX_CGROUP_PARENT=abt-$1-$$
  guard_cgroup "$AGENTBOX_CGROUP_PARENT"
  trap fixture_cleanup EXIT
}

# fixture_serve NAME ARGS...: `agentbox serve ARGS` with $WORK/state-NAME as its state dir,
# waited for until it says where it listens (its stderr: $WORK/NAME.log).
fixture_serve() {
  local name=$1
  shift
  mkdir -p "$WORK/state-$name"
  AGENTBOX_STATE_DIR=$WORK/state-$name guard_bg "$AGENTBOX" serve "$@" 2>"$WORK/$name.log"
  FIXTURE_SERVERS+=("$GUARD_BG_PID")
  guard_track "$GUARD_BG_PID"
  for _ in $(seq 600); do
    grep -q "listening on" "$WORK/$name.log" 2>/dev/null && return 0
    sleep 0.05
  done
  cat "$WORK/$name.log"
  return 1
}

# The TypeScript SDK built (its pinned devDependencies from npm, Node 22 among them): NODE is
# that node.
fixture_typescript_sdk() {
  local ts=$SRC/sdk/typescript
  if [[ ! -x $ts/node_modules/.bin/node || ! -x $ts/node_modules/.bin/tsc ]]; then
    (cd "$ts" && npm ci --no-audit --no-fund) >"$WORK/npm-sdk.log" 2>&1 || { bad "npm ci (sdk)" "$WORK/npm-sdk.log"; return 1; }
  fi
  NODE=$ts/node_modules/.bin/node
  step "tsc compiles @agentbox/client" "$WORK/tsc.log" bash -c "cd '$ts' && '$NODE' node_modules/typescript/bin/tsc -p ."
}

# A venv with sdk/python installed (pip, no index: it needs only the standard library; the
# build backend, setuptools and wheel, are Debian's python3-setuptools and python3-wheel): VENV.
# Debian's python3, which scripts/install-deps.sh provides with them, not another on PATH.
FIXTURE_PYTHON=/usr/bin/python3
[[ -x $FIXTURE_PYTHON ]] || FIXTURE_PYTHON=python3
fixture_python_sdk() {
  VENV=$WORK/venv
  step "pip installs sdk/python into a venv" "$WORK/pip.log" bash -c \
    "'$FIXTURE_PYTHON' -m venv --system-site-packages '$VENV' && '$VENV/bin/pip' install -q --no-index --no-build-isolation '$SRC/sdk/python'"
}
