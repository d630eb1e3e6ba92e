#!/usr/bin/env bash
# sdk: the client SDKs of sdk/ against a live `agentbox serve`, as their users would run them.
#  - the OpenAPI document: sdk/openapi.json is what `agentbox __openapi` prints and serve's
#    /v1/openapi.json answers (else it is stale: `agentbox __openapi > sdk/openapi.json`), and
#    Redocly's CLI (pinned in sdk/typescript/package-lock.json) lints it with sdk/redocly.yaml;
#  - TypeScript: src/generated/api.ts is what openapi-typescript (pinned) makes of it (else
#    `npm run generate`), tsc compiles the package, node --test runs test/ on Node 22 against
#    serve's unix socket and a TCP listener with a token;
#  - Python: pip installs sdk/python into a venv (no index: it needs nothing but the standard
#    library), and unittest runs its tests/ (blocking and asyncio) against the unix socket.
# Prints "N passed, N failed"; exits 77 (skip) when the host lacks what it needs.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
AGENTBOX=${AGENTBOX:-$SRC/build/agentbox}
# shellcheck source=tests/lib/serve_fixture.sh
source "$SRC/tests/lib/serve_fixture.sh"
fixture_needs_clients
fixture_begin sdk

fixture_serve_unix
TOKEN=sdk-test-token-$RANDOM$RANDOM$RANDOM
printf '{"tokens":[{"token":"%s","tenant":"sdk"}]}\n' "$TOKEN" >"$WORK/tokens.json"
fixture_serve tcp --listen tcp:127.0.0.1:0 --tokens "$WORK/tokens.json" || { bad "serve (tcp) starts"; fixture_summary; exit 1; }
TCP_URL=http://$(grep -o 'listening on tcp:[^ ]*' "$WORK/tcp.log" | head -1 | sed 's/listening on tcp://')
export AGENTBOX_URL=unix:$SOCK

# ---- the OpenAPI document ----
"$AGENTBOX" __openapi >"$WORK/openapi.json"
step "sdk/openapi.json is what agentbox __openapi prints" "$WORK/openapi.diff" \
  diff -u "$SRC/sdk/openapi.json" "$WORK/openapi.json"
step "serve's /v1/openapi.json is the same document" "$WORK/served.log" bash -c \
  "curl -sS --unix-socket '$SOCK' http://x/v1/openapi.json | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin) != json.load(open(\"$WORK/openapi.json\")))'"

# ---- TypeScript ----
fixture_typescript_sdk || { fixture_summary; exit 1; }
TS=$SRC/sdk/typescript
step "Redocly lints the OpenAPI document" "$WORK/lint.log" \
  "$NODE" "$TS/node_modules/@redocly/cli/bin/cli.js" lint --config "$SRC/sdk/redocly.yaml" "$WORK/openapi.json"
step "src/generated/api.ts is fresh (openapi-typescript)" "$WORK/generate.log" bash -c \
  "'$NODE' '$TS/node_modules/openapi-typescript/bin/cli.js' '$WORK/openapi.json' -o '$WORK/api.ts' && diff -u '$TS/src/generated/api.ts' '$WORK/api.ts'"
AGENTBOX_TCP_URL=$TCP_URL AGENTBOX_TCP_TOKEN=$TOKEN step "TypeScript tests (node --test)" "$WORK/ts.log" \
  bash -c "cd '$TS' && '$NODE' --test --test-concurrency=1 test/*.test.mjs"
grep -E '^# (pass|fail)' "$WORK/ts.log"
# Node 20 is the oldest the package supports (its engines): where the PATH's node is a 20, the
# tests run on it too (CI's Debian node is older: there only the pinned Node 22 runs them).
if [[ $(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) == 20 ]]; then
  AGENTBOX_TCP_URL=$TCP_URL AGENTBOX_TCP_TOKEN=$TOKEN step "TypeScript tests on Node $(node --version), the oldest supported" \
    "$WORK/ts20.log" bash -c "cd '$TS' && node --test --test-concurrency=1 test/*.test.mjs"
else
  echo "note: no Node 20 on PATH; the TypeScript tests ran on the pinned Node 22 only"
fi

# ---- Python ----
fixture_python_sdk
step "Python tests (unittest: blocking and asyncio)" "$WORK/py.log" bash -c \
  "cd '$WORK' && '$VENV/bin/python' -m unittest discover -v -s '$SRC/sdk/python/tests' -t '$SRC/sdk/python/tests'"
grep -E '^(Ran|OK|FAILED)' "$WORK/py.log"
step "the tests used the installed package, not the source tree" "$WORK/where.log" bash -c \
  "cd '$WORK' && '$VENV/bin/python' -c 'import agentbox,sys; print(agentbox.__file__); sys.exit(\"site-packages\" not in agentbox.__file__)'"

fixture_summary
