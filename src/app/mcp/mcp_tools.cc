// Dispatch of tools/call, and the two tools that run commands: exec and bash.
#include "app/mcp/mcp_tools.h"

#include "mcp/bash_tool.h"
#include "mcp/tool_args.h"
#include "mcp/tool_results.h"
#include "mcp/tool_schemas.h"
#include "spec/units.h"

namespace agentbox {
namespace {

using nlohmann::json;
namespace mcp = agentbox::mcp;

json CommandFailed(const Status& status, ToolCallContext& context) {
  if (context.cancellation && context.cancellation->cancelled()) {
    return mcp::TextToolResult("cancelled: the command's process tree was killed", true);
  }
  return mcp::TextToolResult("error: " + status.message(), true);
}

json RunExecTool(McpSession& session, const SandboxRecord& record, const json& arguments,
                 ToolCallContext& context) {
  auto args = mcp::ParseExecToolArgs(arguments);
  if (!args.ok()) return mcp::StatusToolResult(args.status());
  ExecRequest request = SandboxManager::DefaultExecRequest(record);
  request.argv = args->argv;
  if (args->cwd) request.cwd = *args->cwd;
  for (auto& kv : args->env) request.env.push_back(kv);
  if (args->timeout_seconds) {
    if (*args->timeout_seconds > session.max_timeout_seconds()) {
      return mcp::TextToolResult("invalid arguments: `timeout` " +
                                     FormatSeconds(*args->timeout_seconds) +
                                     " is over this server's ceiling of " +
                                     FormatSeconds(session.max_timeout_seconds()) + " seconds",
                                 true);
    }
    request.timeout_seconds = *args->timeout_seconds;
  }
  auto result = RunCommand(session, record, request, context);
  if (!result.ok()) return CommandFailed(result.status(), context);
  return mcp::ExecToolResult(*result, request.timeout_seconds);
}

json RunBashTool(McpSession& session, const SandboxRecord& record, const json& arguments,
                 ToolCallContext& context) {
  auto args = mcp::ParseBashToolArgs(arguments);
  if (!args.ok()) return mcp::StatusToolResult(args.status());
  ExecRequest request = SandboxManager::DefaultExecRequest(record);
  request.argv = args->restart ? mcp::BashRestartArgv() : mcp::BashCommandArgv(args->command);
  auto result = RunCommand(session, record, request, context);
  if (!result.ok()) return CommandFailed(result.status(), context);
  if (args->restart) {
    if (result->exit_code != 0) return mcp::TextToolResult("error: the restart failed", true);
    return mcp::TextToolResult("tool has been restarted.");
  }
  mcp::BashToolText text = mcp::FormatBashResult(*result, request.timeout_seconds);
  return mcp::TextToolResult(text.text, text.is_error);
}

}  // namespace

json RunTool(McpSession& session, const std::string& name, const json& arguments,
             ToolCallContext& context) {
  auto record = session.Sandbox();
  if (!record.ok()) return mcp::TextToolResult("error: " + record.status().message(), true);
  if (name == mcp::kExecTool) return RunExecTool(session, *record, arguments, context);
  if (name == mcp::kBashTool) return RunBashTool(session, *record, arguments, context);
  if (name == mcp::kEditorTool) return RunEditorTool(record->agent_socket, arguments);
  return RunFileTool(record->agent_socket, name, arguments);
}

}  // namespace agentbox
