// The tools of the MCP server, run against the session's sandbox.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "app/mcp/mcp_session.h"
#include "core/agent_exec.h"

namespace agentbox {

// What one tools/call may use besides its arguments.
struct ToolCallContext {
  ExecCancellation* cancellation = nullptr;
  // Set when the client sent a progressToken: called about once a second while a command runs,
  // on the calling thread, with a growing progress value and a short message.
  std::function<void(double progress, const std::string& message)> progress;
};

// Runs tool `name` (a known tool) with `arguments`; returns the CallToolResult. Problems the
// model can act on (bad arguments, policy denials, timeouts) are results with isError.
nlohmann::json RunTool(McpSession& session, const std::string& name,
                       const nlohmann::json& arguments, ToolCallContext& context);

// The file tools (mcp_file_tools.cc), on the sandbox's agent socket.
nlohmann::json RunEditorTool(const std::string& agent_socket, const nlohmann::json& arguments);
nlohmann::json RunFileTool(const std::string& agent_socket, const std::string& name,
                           const nlohmann::json& arguments);

// Runs one command with the context's cancellation and progress (mcp_exec_runner.cc). The
// result carries the kept output and truncation flags. stdin_data, when set, is the command's
// stdin (request.pass_stdin is set for it); else stdin is /dev/null.
StatusOr<ExecResult> RunCommand(McpSession& session, const SandboxRecord& record,
                                const ExecRequest& request, ToolCallContext& context,
                                const std::optional<std::string>& stdin_data = std::nullopt);

}  // namespace agentbox
