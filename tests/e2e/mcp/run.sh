#!/bin/bash
# The MCP end-to-end suite: the official MCP TypeScript SDK drives `agentbox mcp`.
# Installs the pinned SDK into node_modules when missing, then runs `node --test`.
# AGENTBOX: the binary under test (default: build/agentbox of this checkout).
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "SKIP: node and npm are needed for the MCP end-to-end tests (scripts/install-deps.sh test installs them)"
  # In CI nothing CI can provide may be skipped; elsewhere 77 is ctest's SKIP_RETURN_CODE.
  [[ "${CI:-}" == "true" ]] && exit 1
  exit 77
fi
if [[ ! -d node_modules/@modelcontextprotocol/sdk ]]; then
  if [[ -f package-lock.json ]]; then
    npm ci --no-audit --no-fund
  else
    npm install --no-audit --no-fund
  fi
fi
# --test-concurrency and --test-timeout are newer than Debian 12's Node 18: passed only when this
# node knows them (ctest's TIMEOUT bounds the whole run either way).
flags=(--test)
for f in --test-concurrency=1 --test-timeout=300000; do
  node "$f" -e 0 >/dev/null 2>&1 && flags+=("$f")
done
# The run's dir holds every state dir and default workspace the tests make (TMPDIR), and its
# reaper (tests/lib/run_guard.sh) kills node's process group and removes what those state dirs
# hold if this script is killed; a killed earlier run's leftovers are swept here first.
# shellcheck source=tests/lib/run_guard.sh
source ../../lib/run_guard.sh
guard_start e2e_mcp || exit 1
export TMPDIR=$GUARD_DIR
set +e
guard_bg setsid node "${flags[@]}" ./*.test.mjs
guard_track "-$GUARD_BG_PID"
wait "$GUARD_BG_PID"
rc=$?
guard_end
exit $rc
