#!/bin/sh
# Claude Code: agentbox's MCP server over stdio, one sandbox per session (removed at its end).
claude mcp add agentbox -- agentbox mcp
# With a policy of your own for the session's sandbox (docs/policy.md):
#   claude mcp add agentbox -- agentbox mcp --policy /path/to/policy.json
# Or the HTTP server's /mcp (agentbox serve --listen tcp:127.0.0.1:8080 --tokens tokens.json):
#   claude mcp add --transport http agentbox http://127.0.0.1:8080/mcp --header "Authorization: Bearer $TOKEN"
