// McpServer: agentbox as an MCP server (JSON-RPC 2.0), transport-agnostic.
//
// `agentbox mcp` feeds it newline-delimited messages from stdin (mcp_stdio.cc); `agentbox serve`
// feeds it the bodies of POST /mcp (Streamable HTTP, app/server/handlers_mcp.cc). One McpServer is
// one MCP session: it owns at most one sandbox, created lazily on the first tool call (or a named
// existing one from options), and removed when the session ends (destructor) unless it was named.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "app/mcp/mcp_quota.h"
#include "base/status.h"
#include "core/sandbox_manager.h"
#include "proto/exec_result.h"
#include "spec/units.h"

namespace agentbox {

struct McpOptions {
  std::string sandbox;              // use this existing sandbox (ID or NAME) instead of a fresh one
  std::string policy_path;          // policy file for the lazily created sandbox ("" = defaults)
  std::string agentbox_binary;      // used to create sandboxes in a single-threaded helper process
  std::shared_ptr<McpQuota> quota;  // what the sandbox and commands count against (none: nothing)
  // How the session's own sandbox is made (serve: with the operator's defaults); unset:
  // `agentbox create [--policy FILE]`. Returns the new id.
  std::function<StatusOr<std::string>()> create_sandbox;
  // The session's own sandbox when it has one already, made by another serve replica for the
  // same session (the sessions they share: app/server/mcp_shared.h); "" when it has none yet,
  // and create_sandbox then makes it. Unset: every session makes its own.
  std::function<StatusOr<std::string>(SandboxManager&)> find_own_sandbox;
  // The most a tool call's `timeout` may ask (serve: the operator's ceiling).
  double max_timeout_seconds = kMaxTimeoutSeconds;
  // The most exec's `output_limit` may ask (serve: the operator's ceiling); 0: no ceiling.
  uint64_t max_output_limit = 0;
  // The most characters one `bash` result carries before its middle is cut (`agentbox mcp
  // --bash-output-chars N`); 0: never cut.
  size_t bash_output_chars = 30000;
  // The session's sandbox has allow_hosts: bash and exec can reach the hosts it opens, and say
  // so (tools/list's openWorldHint, mcp/tool_schemas.h).
  bool open_world = false;
  // Told of every tools/call answered, with the tool's name and whether the result is a tool
  // error, and of every command a call ran, with its sandbox and result (serve: its metrics).
  // Called on the calling thread; unset: nobody is told.
  std::function<void(const std::string& tool, bool is_error)> on_tool_call;
  std::function<void(const std::string& sandbox_id, const ExecResult& result)> on_command;
};

class McpServer {
 public:
  explicit McpServer(McpOptions options);
  ~McpServer();  // removes the session's own sandbox

  // Handles one JSON-RPC message (request, notification or response). Returns the response for a
  // request, nothing for a notification. `notify` sends server->client messages during a long
  // call (notifications/progress); it may be called from the calling thread only. Thread-safe:
  // a transport may call Handle concurrently for different requests (a tools/call runs while
  // notifications/cancelled for it arrives and kills its command's process tree).
  std::optional<nlohmann::json> Handle(const nlohmann::json& message,
                                       const std::function<void(const nlohmann::json&)>& notify);

  // The session is ending (HTTP DELETE): cancels every tool call in flight, as
  // notifications/cancelled would, and every one that starts from now on. Thread-safe.
  void CancelAll();

  // True while a tool call that became a task still runs its command: the session is in use
  // though no request is in flight. Thread-safe.
  bool has_running_task() const;

  // The session's sandbox once a tool call has made or found it; "" before. Thread-safe.
  std::string sandbox_id() const;

  // This server lets go of its session without ending it: the session goes on elsewhere (another
  // serve replica), so its sandbox stays when this server is destroyed. Thread-safe.
  void Detach();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentbox
