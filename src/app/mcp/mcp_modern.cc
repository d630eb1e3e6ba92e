// McpServer's 2026-07-28 era: stateless requests whose _meta declares their version and the
// client's capabilities, server/discover, results carrying resultType and the server's identity,
// and the io.modelcontextprotocol/tasks extension (tasks/get, tasks/update, tasks/cancel) for
// long commands and background processes.
#include "app/mcp/mcp_server_impl.h"
#include "app/mcp/mcp_tools.h"
#include "mcp/protocol.h"
#include "mcp/tool_schemas.h"

namespace agentbox {

using nlohmann::json;
namespace mcp = agentbox::mcp;

namespace {

// The tool list changes only with the binary: a client may keep it for an hour, and share it.
constexpr long kToolListTtlMs = 3600000;

// bash and exec become tasks; the file and process tools answer at once.
bool MayBecomeTask(const std::string& name) {
  return name == mcp::kBashTool || name == mcp::kExecTool;
}

json Response(const json& id, McpAnswer answer) {
  return AnswerResponse(id, std::move(answer), /*modern=*/true);
}

}  // namespace

std::optional<json> McpServer::Impl::HandleModern(const mcp::Incoming& in,
                                                  const McpNotify& notify) {
  json error;
  std::optional<mcp::ModernRequest> request = mcp::ReadModernRequest(in.id, in.params, &error);
  if (!request) return error;
  McpRequestScope scope;
  scope.notify = notify ? &notify : nullptr;
  scope.progress_token = mcp::ProgressToken(in.params);
  if (request->log_level) scope.min_log_rank = mcp::LogLevelRank(*request->log_level);
  scope.modern = request;
  const std::string& method = in.method;
  if (method == "server/discover") return Response(in.id, McpAnswer::Ok(mcp::DiscoverResult()));
  if (method == "tools/list") {
    json result = {{"tools", mcp::ToolDefinitions(session.options().open_world)}};
    mcp::AddCacheHints(&result, kToolListTtlMs, /*is_public=*/true);
    return Response(in.id, McpAnswer::Ok(std::move(result)));
  }
  if (method == "tools/call") {
    if (auto bad = CheckToolName(in)) return bad;
    bool cancelled = false;
    McpAnswer answer = CallToolModern(in, scope, &cancelled);
    if (cancelled) return std::nullopt;  // a cancelled request gets no response
    return Response(in.id, std::move(answer));
  }
  if (method == "resources/list") return Response(in.id, ListResources(session, in.params, true));
  if (method == "resources/templates/list") {
    return Response(in.id, ListResourceTemplates(in.params, true));
  }
  if (method == "resources/read") return Response(in.id, ReadResource(session, in.params, true));
  if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel") {
    if (!request->tasks) return mcp::MissingTasksCapability(in.id, method);
    return Response(in.id, TaskMethod(in));
  }
  // initialize, ping, logging/setLevel and the rest of the 2025 revisions do not exist in this
  // one.
  return mcp::MakeError(in.id, mcp::kMethodNotFound, "Method not found: " + method);
}

McpAnswer McpServer::Impl::CallToolModern(const mcp::Incoming& in, McpRequestScope& scope,
                                          bool* cancelled) {
  const std::string name = in.params["name"];
  const json arguments = in.params.value("arguments", json(nullptr));
  const std::string key = mcp::IdKey(in.id);
  std::shared_ptr<InFlightCall> call = Register(key);
  std::optional<json> result;
  const bool tasks_ok = scope.modern->tasks && MayBecomeTask(name);
  const bool background = arguments.is_object() && arguments.value("background", false) == true;
  if (tasks_ok && !background) {
    // A task runs on without this request: no progress or log lines (the extension has none).
    result = tasks.RunOrNull(
        [this, name, arguments](ExecCancellation* cancellation) {
          McpRequestScope quiet;
          return RunToolNow(name, arguments, cancellation, quiet);
        },
        &call->cancellation);
  }
  if (!result) result = RunToolNow(name, arguments, &call->cancellation, scope);
  if (tasks_ok && background) {
    if (std::optional<json> task = FollowBackgroundProcess(*result)) result = task;
  }
  Unregister(key);
  *cancelled = call->cancellation.cancelled() && result->value("resultType", "") != "task";
  return McpAnswer::Ok(std::move(*result));
}

std::optional<json> McpServer::Impl::FollowBackgroundProcess(const json& started) {
  const json process = started.value("structuredContent", json::object());
  if (started.value("isError", false) || process.value("state", "") != "running") {
    return std::nullopt;  // it ended at once (or never started): its result says so
  }
  const std::string proc = process.value("id", "");
  const std::string describe =
      proc + " is running in the background (its output so far: process_output " + proc + ")";
  std::optional<json> task = tasks.Follow(
      describe, [this, proc] { return BackgroundProcessResult(session, proc); },
      [this, proc] { KillBackgroundProcess(session, proc); });
  if (task) (*task)["_meta"]["dev.agentbox/process"] = proc;
  return task;
}

McpAnswer McpServer::Impl::TaskMethod(const mcp::Incoming& in) {
  const json id = in.params.value("taskId", json());
  if (!id.is_string()) {
    return McpAnswer::Error(mcp::kInvalidParams, "Invalid params: `taskId` must be a string");
  }
  const std::string task_id = id.get<std::string>();
  auto not_found = [&] {
    return McpAnswer::Error(mcp::kInvalidParams,
                            "Failed to retrieve task: no task " + task_id +
                                " (unknown, or forgotten an hour after it ended)");
  };
  if (in.method == "tasks/get") {
    std::optional<json> task = tasks.Get(task_id);
    return task ? McpAnswer::Ok(std::move(*task)) : not_found();
  }
  if (in.method == "tasks/cancel")
    return tasks.Cancel(task_id) ? McpAnswer::Ok(json::object()) : not_found();
  // tasks/update: our tasks never ask the client for input, so there is nothing to answer; the
  // responses are ignored as the extension says for keys that are not outstanding.
  return tasks.Get(task_id) ? McpAnswer::Ok(json::object()) : not_found();
}

}  // namespace agentbox
