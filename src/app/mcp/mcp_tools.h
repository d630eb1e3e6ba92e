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

// The file tools (mcp_file_tools.cc): reads through the sandbox's agent, writes through the
// manager (its session log records them).
nlohmann::json RunEditorTool(SandboxManager& manager, const SandboxRecord& record,
                             const nlohmann::json& arguments);
nlohmann::json RunFileTool(SandboxManager& manager, const SandboxRecord& record,
                           const std::string& name, const nlohmann::json& arguments);

// The tools of background processes (mcp_process_tools.cc): process_list, process_output,
// process_kill and process_stdin.
nlohmann::json RunProcessTool(McpSession& session, const SandboxRecord& record,
                              const std::string& name, const nlohmann::json& arguments,
                              ToolCallContext& context);

// The snapshot tools and session_log (mcp_snapshot_tools.cc).
nlohmann::json RunSnapshotTool(McpSession& session, const SandboxRecord& record,
                               const std::string& name, const nlohmann::json& arguments);

// bash's and exec's `background`: starts `request` as a background process and answers at once
// with its id. stdin_data, when set, is written to its stdin, which is then closed unless
// interactive (then it stays open for process_stdin).
nlohmann::json StartBackgroundProcess(McpSession& session, const SandboxRecord& record,
                                      ExecRequest request,
                                      const std::optional<std::string>& stdin_data,
                                      bool interactive, ToolCallContext& context);

// A task's view of background process `proc` of the session's sandbox (mcp_tasks.h): nullopt
// while it runs (or cannot be asked), then a CallToolResult of its whole kept output, shaped as
// process_output's, and a line for how it ended; isError unless it exited with 0.
std::optional<nlohmann::json> BackgroundProcessResult(McpSession& session, const std::string& proc);
// Ends background process `proc` with KILL (its whole process tree), as tasks/cancel asks.
void KillBackgroundProcess(McpSession& session, const std::string& proc);

// An output as the model gets it: at most the session's bash_output_chars characters, its
// middle cut when longer and the whole kept in a file under /workspace/.agentbox/bash-output.
std::string ShapeModelOutput(McpSession& session, const SandboxRecord& record, std::string output);

// Runs one command with the context's cancellation and progress (mcp_exec_runner.cc). The
// result carries the kept output and truncation flags. stdin_data, when set, is the command's
// stdin (request.pass_stdin is set for it); else stdin is /dev/null.
// With rollback, a failing command leaves the workspace as it was (SandboxManager's
// ExecWithRollback).
StatusOr<ExecResult> RunCommand(McpSession& session, const SandboxRecord& record,
                                const ExecRequest& request, ToolCallContext& context,
                                const std::optional<std::string>& stdin_data = std::nullopt,
                                bool rollback = false);

}  // namespace agentbox
