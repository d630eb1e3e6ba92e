// McpServer: JSON-RPC dispatch between the two eras, the legacy (2025) methods, tool calls and
// the cancellation of running ones. The 2026-07-28 methods are in mcp_modern.cc.
#include "app/mcp/mcp_server.h"

#include <algorithm>
#include <chrono>

#include "app/mcp/mcp_server_impl.h"
#include "app/mcp/mcp_tools.h"
#include "base/build_info.h"
#include "mcp/protocol.h"
#include "mcp/tool_schemas.h"

namespace agentbox {

using nlohmann::json;
namespace mcp = agentbox::mcp;

namespace {

// A cancellation that arrives before its call started (the transport runs calls on worker
// threads) is remembered, up to this many, so the call is cancelled as soon as it starts.
constexpr size_t kMaxEarlyCancels = 64;

std::string FirstLine(const json& result) {
  const json content = result.value("content", json::array());
  if (content.empty() || !content[0].is_object()) return "";
  std::string text = content[0].value("text", "");
  return text.substr(0, std::min(text.find('\n'), size_t{200}));
}

}  // namespace

json AnswerResponse(const json& id, McpAnswer answer, bool modern) {
  if (answer.error) {
    json response = mcp::MakeError(id, (*answer.error)["code"], (*answer.error)["message"]);
    if (answer.error->contains("data")) response["error"]["data"] = (*answer.error)["data"];
    return response;
  }
  if (modern) answer.result = mcp::ModernResult(std::move(answer.result), kAgentboxVersion);
  return mcp::MakeResult(id, std::move(answer.result));
}

McpServer::McpServer(McpOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
McpServer::~McpServer() = default;

std::optional<json> McpServer::Handle(const json& message, const McpNotify& notify) {
  // Nothing a client sends may take the server down: any exception becomes an internal error.
  try {
    if (!message.is_array()) return impl_->HandleOne(message, notify);
    // A batch (2025-03-26): answered as an array of the responses it asks for.
    if (message.empty())
      return mcp::MakeError(nullptr, mcp::kInvalidRequest, "Invalid Request: empty batch");
    json responses = json::array();
    for (const json& item : message) {
      if (auto response = impl_->HandleOne(item, notify)) responses.push_back(std::move(*response));
    }
    if (responses.empty()) return std::nullopt;
    return responses;
  } catch (const std::exception& e) {
    return mcp::MakeError(nullptr, mcp::kInternalError, std::string("Internal error: ") + e.what());
  }
}

void McpServer::CancelAll() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->ending = true;
    for (auto& [key, call] : impl_->in_flight) call->cancellation.Cancel();
  }
  impl_->tasks.CancelAll();
}

std::string McpServer::sandbox_id() const { return impl_->session.sandbox_id(); }

void McpServer::Detach() { impl_->session.Detach(); }

bool McpServer::has_running_task() const { return impl_->tasks.HasRunningCommand(); }

std::optional<json> McpServer::Impl::HandleOne(const json& message, const McpNotify& notify) {
  mcp::Incoming in = mcp::Classify(message);
  switch (in.kind) {
    case mcp::MessageKind::kInvalid:
      return in.error;
    case mcp::MessageKind::kResponse:
      return std::nullopt;  // we send no requests, so there is nothing to match it with
    case mcp::MessageKind::kNotification:
      if (in.method == "notifications/cancelled") {
        if (auto id = mcp::CancelledRequestId(in.params)) Cancel(*id);
      }
      return std::nullopt;  // notifications/initialized and unknown ones need no answer
    case mcp::MessageKind::kRequest:
      break;
  }
  // The era is the request's own: a dual-era server serves both on one stdio process or
  // endpoint, per-request _meta making a modern request (where even `initialize` is an unknown
  // method), anything else belonging to the legacy session an `initialize` opened.
  if (mcp::IsModernRequest(in.method, in.params)) {
    return HandleModern(in, notify);
  }
  if (in.method == "tools/call") {
    McpRequestScope scope;
    scope.notify = notify ? &notify : nullptr;
    scope.progress_token = mcp::ProgressToken(in.params);
    {
      std::lock_guard<std::mutex> lock(mutex);
      scope.min_log_rank = legacy_log_rank;
    }
    return CallToolLegacy(in, scope);
  }
  return HandleLegacy(in, notify);
}

json McpServer::Impl::HandleLegacy(const mcp::Incoming& in, const McpNotify& /*notify*/) {
  if (in.method == "initialize") {
    return mcp::MakeResult(in.id, mcp::InitializeResult(in.params, kAgentboxVersion));
  }
  if (in.method == "ping") return mcp::MakeResult(in.id, json::object());
  if (in.method == "tools/list") {
    return mcp::MakeResult(in.id, {{"tools", mcp::ToolDefinitions(session.options().open_world)}});
  }
  if (in.method == "logging/setLevel") {
    const json level = in.params.value("level", json());
    auto rank = level.is_string() ? mcp::LogLevelRank(level.get<std::string>()) : std::nullopt;
    if (!rank) {
      return mcp::MakeError(in.id, mcp::kInvalidParams,
                            "Invalid params: `level` must be a log level such as \"info\"");
    }
    std::lock_guard<std::mutex> lock(mutex);
    legacy_log_rank = rank;
    return mcp::MakeResult(in.id, json::object());
  }
  if (in.method == "resources/list") {
    return AnswerResponse(in.id, ListResources(session, in.params, false), false);
  }
  if (in.method == "resources/templates/list") {
    return AnswerResponse(in.id, ListResourceTemplates(in.params, false), false);
  }
  if (in.method == "resources/read") {
    return AnswerResponse(in.id, ReadResource(session, in.params, false), false);
  }
  return mcp::MakeError(in.id, mcp::kMethodNotFound, "Method not found: " + in.method);
}

std::optional<json> McpServer::Impl::CheckToolName(const mcp::Incoming& in) {
  auto name = in.params.find("name");
  if (name == in.params.end() || !name->is_string()) {
    return mcp::MakeError(in.id, mcp::kInvalidParams, "Invalid params: `name` must be a string");
  }
  if (!mcp::IsKnownTool(name->get<std::string>())) {
    return mcp::MakeError(in.id, mcp::kInvalidParams, "Unknown tool: " + name->get<std::string>());
  }
  return std::nullopt;
}

std::optional<json> McpServer::Impl::CallToolLegacy(const mcp::Incoming& in,
                                                    McpRequestScope& scope) {
  if (auto bad = CheckToolName(in)) return bad;
  const std::string key = mcp::IdKey(in.id);
  std::shared_ptr<InFlightCall> call = Register(key);
  json result = RunToolNow(in.params["name"], in.params.value("arguments", json(nullptr)),
                           &call->cancellation, scope);
  Unregister(key);
  // The specification: a cancelled request gets no response at all.
  if (call->cancellation.cancelled()) return std::nullopt;
  return mcp::MakeResult(in.id, std::move(result));
}

json McpServer::Impl::RunToolNow(const std::string& name, const json& arguments,
                                 ExecCancellation* cancellation, McpRequestScope& scope) {
  ToolCallContext context;
  context.cancellation = cancellation;
  if (scope.notify && scope.progress_token) {
    context.progress = [notify = scope.notify, token = *scope.progress_token](
                           double progress, const std::string& message) {
      (*notify)(mcp::ProgressNotification(token, progress, message));
    };
  }
  const bool had_sandbox = !session.sandbox_id().empty();
  const auto start = std::chrono::steady_clock::now();
  json result = RunTool(session, name, arguments, context);
  if (!had_sandbox && !session.sandbox_id().empty()) {
    Log(scope, "info", "created sandbox " + session.sandbox_id() + " for this session");
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Log(scope, "debug",
      name + " answered in " + std::to_string(static_cast<int>(seconds * 1000)) + " ms");
  if (result.value("isError", false)) Log(scope, "warning", name + ": " + FirstLine(result));
  if (session.options().on_tool_call) {
    session.options().on_tool_call(name, result.value("isError", false));
  }
  return result;
}

void McpServer::Impl::Log(McpRequestScope& scope, const char* level, const std::string& text) {
  if (!scope.notify || !scope.min_log_rank) return;
  if (mcp::LogLevelRank(level).value_or(0) < *scope.min_log_rank) return;
  (*scope.notify)(mcp::LogNotification(level, text));
}

std::shared_ptr<McpServer::Impl::InFlightCall> McpServer::Impl::Register(const std::string& key) {
  auto call = std::make_shared<InFlightCall>();
  std::lock_guard<std::mutex> lock(mutex);
  in_flight[key] = call;
  if (ending) call->cancellation.Cancel();
  for (auto it = early_cancels.begin(); it != early_cancels.end(); ++it) {
    if (*it != key) continue;
    early_cancels.erase(it);
    call->cancellation.Cancel();
    break;
  }
  return call;
}

void McpServer::Impl::Unregister(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex);
  in_flight.erase(key);
}

void McpServer::Impl::Cancel(const json& request_id) {
  const std::string key = mcp::IdKey(request_id);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = in_flight.find(key);
  if (it != in_flight.end()) {
    it->second->cancellation.Cancel();  // the agent kills the command's process tree
    return;
  }
  early_cancels.push_back(key);
  if (early_cancels.size() > kMaxEarlyCancels) early_cancels.pop_front();
}

}  // namespace agentbox
