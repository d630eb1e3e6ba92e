// The stdio transport of MCP: newline-delimited JSON-RPC messages on stdin and stdout.
#pragma once

#include "app/mcp/mcp_server.h"

namespace agentbox {

// Serves one MCP session on fds 0 and 1 until stdin reaches EOF or SIGTERM/SIGINT/SIGHUP
// arrives; then cancels the calls still running, waits for them, and removes the session's
// sandbox. stdin is read on this thread; each tools/call runs on a thread of its own, so a
// notifications/cancelled for it is read and acted on while it runs. Every write to stdout is
// one whole line, serialized. Returns the process exit status.
int ServeMcpOverStdio(const McpOptions& options);

}  // namespace agentbox
