#!/usr/bin/env bash
# examples: every example of examples/ run as its README says, against a live `agentbox serve`,
# each with a scripted policy in place of the model (no network, no API key): the
# mini-swe-agent environment (Python SDK), the OpenAI Agents SDK and LangChain.js tools (their
# npm packages, pinned in examples/js/package-lock.json, on the Node 22 of the TypeScript SDK),
# and the MCP config snippets (each configured command started and called through).
# Prints "N passed, N failed"; exits 77 (skip) when the host lacks what it needs.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
AGENTBOX=${AGENTBOX:-$SRC/build/agentbox}
# shellcheck source=tests/lib/serve_fixture.sh
source "$SRC/tests/lib/serve_fixture.sh"
fixture_needs_clients
fixture_begin examples

fixture_serve_unix
export AGENTBOX_URL=unix:$SOCK

fixture_python_sdk
step "mini-swe-agent environment (python/scripted_agent.py)" "$WORK/mini-swe.log" bash -c \
  "cd '$SRC/examples/python' && '$VENV/bin/python' scripted_agent.py"
cat "$WORK/mini-swe.log" | head -3

if fixture_typescript_sdk; then
  EX=$SRC/examples/js
  if [[ ! -d $EX/node_modules/@openai/agents || ! -d $EX/node_modules/langchain ]]; then
    (cd "$EX" && npm ci --no-audit --no-fund) >"$WORK/npm-examples.log" 2>&1 || bad "npm ci (examples)" "$WORK/npm-examples.log"
  fi
  step "OpenAI Agents SDK tool (js/openai-agents.mjs)" "$WORK/openai.log" bash -c "cd '$EX' && '$NODE' openai-agents.mjs"
  tail -1 "$WORK/openai.log"
  step "LangChain tool (js/langchain.mjs)" "$WORK/langchain.log" bash -c "cd '$EX' && '$NODE' langchain.mjs"
  tail -1 "$WORK/langchain.log"
fi

# The MCP configs run `agentbox mcp` itself: its sandboxes in a state dir of their own.
mkdir -p "$WORK/state-mcp"
AGENTBOX_STATE_DIR=$WORK/state-mcp step "MCP configs: Claude Code, Claude Desktop, Cursor" "$WORK/mcp.log" \
  python3 "$SRC/examples/mcp/check_configs.py"
cat "$WORK/mcp.log"

fixture_summary
