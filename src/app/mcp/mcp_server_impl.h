// McpServer's inside, shared by the files that serve its methods: mcp_server.cc (dispatch, the
// legacy era, tool calls and their cancellation), mcp_modern.cc (the 2026-07-28 era and its
// tasks) and mcp_resources.cc (workspace files as resources, both eras).
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "app/mcp/mcp_server.h"
#include "app/mcp/mcp_session.h"
#include "app/mcp/mcp_tasks.h"
#include "core/agent_exec.h"
#include "mcp/jsonrpc.h"
#include "mcp/modern_request.h"

namespace agentbox {

using McpNotify = std::function<void(const nlohmann::json&)>;

// What one request may use beyond its params: where its notifications go (null: nowhere), the
// least severe log level the client wants to hear (nullopt: none), and, for a 2026-07-28
// request, what its _meta declared.
struct McpRequestScope {
  const McpNotify* notify = nullptr;
  std::optional<nlohmann::json> progress_token;  // the request's _meta.progressToken
  std::optional<int> min_log_rank;
  std::optional<mcp::ModernRequest> modern;
};

// The answer of a method before it is framed for its era: a result, or a JSON-RPC error.
struct McpAnswer {
  nlohmann::json result;
  std::optional<nlohmann::json> error;  // {code, message[, data]}

  static McpAnswer Ok(nlohmann::json result) {
    McpAnswer a;
    a.result = std::move(result);
    return a;
  }
  static McpAnswer Error(int code, const std::string& message, nlohmann::json data = nullptr) {
    McpAnswer a;
    a.error = nlohmann::json{{"code", code}, {"message", message}};
    if (!data.is_null()) (*a.error)["data"] = std::move(data);
    return a;
  }
};

// The JSON-RPC response carrying `answer` for request `id`; a modern one's result gets
// resultType and the server's identity (mcp_server.cc).
nlohmann::json AnswerResponse(const nlohmann::json& id, McpAnswer answer, bool modern);

// resources/list, resources/templates/list and resources/read on the session's sandbox
// (mcp_resources.cc). `modern` picks the era's not-found code and adds the cache hints.
McpAnswer ListResources(McpSession& session, const nlohmann::json& params, bool modern);
McpAnswer ListResourceTemplates(const nlohmann::json& params, bool modern);
McpAnswer ReadResource(McpSession& session, const nlohmann::json& params, bool modern);

struct McpServer::Impl {
  explicit Impl(McpOptions options) : session(std::move(options)) {}

  // mcp_server.cc
  std::optional<nlohmann::json> HandleOne(const nlohmann::json& message, const McpNotify& notify);
  nlohmann::json HandleLegacy(const mcp::Incoming& in, const McpNotify& notify);
  std::optional<nlohmann::json> CallToolLegacy(const mcp::Incoming& in, McpRequestScope& scope);
  // The error response when a tools/call names no known tool; nullopt when it does.
  std::optional<nlohmann::json> CheckToolName(const mcp::Incoming& in);
  // Runs a known tool now, on this thread: progress and log lines go to the scope's notify.
  nlohmann::json RunToolNow(const std::string& name, const nlohmann::json& arguments,
                            ExecCancellation* cancellation, McpRequestScope& scope);
  void Log(McpRequestScope& scope, const char* level, const std::string& text);
  struct InFlightCall {
    ExecCancellation cancellation;
  };
  std::shared_ptr<InFlightCall> Register(const std::string& key);
  void Unregister(const std::string& key);
  void Cancel(const nlohmann::json& request_id);

  // mcp_modern.cc
  std::optional<nlohmann::json> HandleModern(const mcp::Incoming& in, const McpNotify& notify);
  McpAnswer CallToolModern(const mcp::Incoming& in, McpRequestScope& scope, bool* cancelled);
  McpAnswer TaskMethod(const mcp::Incoming& in);
  // The CreateTaskResult of a task following the background process `started` (bash's or
  // exec's result with `background: true`) started; nullopt when it is not running or there is
  // no room for a task.
  std::optional<nlohmann::json> FollowBackgroundProcess(const nlohmann::json& started);

  McpSession session;
  McpTasks tasks;    // after session: destroyed first, so its threads end before the sandbox goes
  std::mutex mutex;  // guards the four below
  std::map<std::string, std::shared_ptr<InFlightCall>> in_flight;
  std::deque<std::string> early_cancels;
  bool ending = false;                 // CancelAll ran: every call is cancelled as it starts
  std::optional<int> legacy_log_rank;  // logging/setLevel's level (2025 revisions)
};

}  // namespace agentbox
