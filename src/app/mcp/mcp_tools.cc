// Dispatch of tools/call, and the two tools that run commands: exec and bash (their
// `background` and the process tools are in mcp_process_tools.cc).
#include "app/mcp/mcp_tools.h"

#include <atomic>
#include <chrono>
#include <optional>

#include "base/utf8.h"
#include "core/agent_files.h"
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

// A call's own `timeout`, held to the server's ceiling: over it is a clear error, never a
// silent clamp (the model asked for something it will not get).
std::optional<json> ApplyTimeout(const McpSession& session, const std::optional<double>& timeout,
                                 ExecRequest* request) {
  if (!timeout) return std::nullopt;
  if (*timeout > session.max_timeout_seconds()) {
    return mcp::TextToolResult("invalid arguments: `timeout` " + FormatSeconds(*timeout) +
                                   " is over this server's ceiling of " +
                                   FormatSeconds(session.max_timeout_seconds()) + " seconds",
                               true);
  }
  request->timeout_seconds = *timeout;
  return std::nullopt;
}

// A background process runs until it ends unless its call gives a timeout, as `exec -d` does,
// but never past the server's ceiling (one week unless the operator set one).
double BackgroundTimeout(const McpSession& session) {
  const double ceiling = session.max_timeout_seconds();
  return ceiling > 0 && ceiling < kMaxTimeoutSeconds ? ceiling : 0;
}

mcp::CommandLimits LimitsOf(const SandboxRecord& record, const ExecRequest& request) {
  return {request.timeout_seconds, record.spec.limits.memory_bytes, record.spec.limits.pids,
          request.output_limit};
}

// The whole output of a call whose result was cut, written where the model can read or grep it;
// "" and *why set when it could not be (a full disk is a reason, not a failed call).
std::string KeepFullOutput(SandboxManager& manager, const SandboxRecord& record,
                           const std::string& output, std::string* why) {
  static std::atomic<uint64_t> sequence{0};
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const std::string path =
      std::string(mcp::kBashOutputDir) + "/" +
      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now).count()) + "-" +
      std::to_string(sequence.fetch_add(1)) + ".txt";
  Status written = manager.WriteWorkspaceFile(record, path, output, 0644, /*parents=*/true);
  if (written.ok()) return path;
  *why = written.message();
  return "";
}

json RunExecTool(McpSession& session, const SandboxRecord& record, const json& arguments,
                 ToolCallContext& context) {
  auto args = mcp::ParseExecToolArgs(arguments);
  if (!args.ok()) return mcp::StatusToolResult(args.status());
  ExecRequest request = SandboxManager::DefaultExecRequest(record);
  request.argv = args->argv;
  if (args->cwd) request.cwd = *args->cwd;
  for (auto& kv : args->env) request.env.push_back(kv);
  if (args->background) request.timeout_seconds = BackgroundTimeout(session);
  if (auto refused = ApplyTimeout(session, args->timeout_seconds, &request)) return *refused;
  if (args->output_limit) {
    const uint64_t ceiling = session.max_output_limit();
    if (ceiling > 0 && *args->output_limit > ceiling) {
      return mcp::TextToolResult("invalid arguments: `output_limit` " +
                                     FormatSize(*args->output_limit) +
                                     " is over this server's ceiling of " + FormatSize(ceiling),
                                 true);
    }
    request.output_limit = *args->output_limit;
  }
  if (args->background) {
    return StartBackgroundProcess(session, record, request, args->stdin_data, args->interactive,
                                  context);
  }
  auto result =
      RunCommand(session, record, request, context, args->stdin_data, args->rollback_on_failure);
  if (!result.ok()) return CommandFailed(result.status(), context);
  return mcp::ExecToolResult(*result, LimitsOf(record, request));
}

json RunBashTool(McpSession& session, const SandboxRecord& record, const json& arguments,
                 ToolCallContext& context) {
  auto args = mcp::ParseBashToolArgs(arguments);
  if (!args.ok()) return mcp::StatusToolResult(args.status());
  ExecRequest request = SandboxManager::DefaultExecRequest(record);
  if (args->background) request.timeout_seconds = BackgroundTimeout(session);
  if (auto refused = ApplyTimeout(session, args->timeout_seconds, &request)) return *refused;
  if (args->background) {
    mcp::BashInvocation bash = mcp::BashBackgroundCommand(args->command);
    request.argv = std::move(bash.argv);
    for (auto& kv : bash.env) request.env.push_back(std::move(kv));
    return StartBackgroundProcess(session, record, request, std::nullopt, false, context);
  }
  if (args->restart) {
    request.argv = mcp::BashRestartArgv();
    auto result = RunCommand(session, record, request, context);
    if (!result.ok()) return CommandFailed(result.status(), context);
    if (result->exit_code != 0) return mcp::TextToolResult("error: the restart failed", true);
    return mcp::TextToolResult("tool has been restarted.");
  }
  mcp::BashInvocation bash = mcp::BashCommand(args->command);
  request.argv = std::move(bash.argv);
  for (auto& kv : bash.env) request.env.push_back(std::move(kv));
  auto result =
      RunCommand(session, record, request, context, bash.stdin_script, args->rollback_on_failure);
  if (!result.ok()) return CommandFailed(result.status(), context);
  // Both streams are one (the prologue merges stderr into stdout); shaped as the model sees it.
  result->stdout_data =
      ShapeModelOutput(session, record, SanitizeUtf8(result->stdout_data + result->stderr_data));
  result->stderr_data.clear();
  mcp::BashToolText text = mcp::FormatBashResult(*result, LimitsOf(record, request));
  return mcp::TextToolResult(text.text, text.is_error);
}

}  // namespace

std::string ShapeModelOutput(McpSession& session, const SandboxRecord& record, std::string output) {
  const size_t max_chars = session.bash_output_chars();
  if (max_chars == 0 || Utf8Length(output) <= max_chars) return output;
  std::string why;
  std::string path = KeepFullOutput(session.manager(), record, output, &why);
  std::string where = !path.empty() ? "the full output is in " + path
                                    : "the full output was not kept (" + why + ")";
  return mcp::ShapeBashOutput(output, max_chars, where);
}

json RunTool(McpSession& session, const std::string& name, const json& arguments,
             ToolCallContext& context) {
  auto record = session.Sandbox();
  if (!record.ok()) return mcp::TextToolResult("error: " + record.status().message(), true);
  if (name == mcp::kExecTool) return RunExecTool(session, *record, arguments, context);
  if (name == mcp::kBashTool) return RunBashTool(session, *record, arguments, context);
  if (name == mcp::kEditorTool) return RunEditorTool(session.manager(), *record, arguments);
  if (mcp::IsProcessTool(name)) return RunProcessTool(session, *record, name, arguments, context);
  if (mcp::IsSnapshotTool(name)) return RunSnapshotTool(session, *record, name, arguments);
  return RunFileTool(session.manager(), *record, name, arguments);
}

}  // namespace agentbox
