// McpServer: JSON-RPC dispatch, the lifecycle methods, and cancellation of running tool calls.
#include "app/mcp/mcp_server.h"

#include <deque>
#include <map>
#include <mutex>

#include "app/cli.h"
#include "app/mcp/mcp_session.h"
#include "app/mcp/mcp_tools.h"
#include "mcp/jsonrpc.h"
#include "mcp/protocol.h"
#include "mcp/tool_schemas.h"

namespace agentbox {

using nlohmann::json;
namespace mcp = agentbox::mcp;

namespace {

// A cancellation that arrives before its call started (the transport runs calls on worker
// threads) is remembered, up to this many, so the call is cancelled as soon as it starts.
constexpr size_t kMaxEarlyCancels = 64;

struct InFlightCall {
  ExecCancellation cancellation;
};

}  // namespace

struct McpServer::Impl {
  explicit Impl(McpOptions options) : session(std::move(options)) {}

  std::optional<json> HandleOne(const json& message,
                                const std::function<void(const json&)>& notify);
  json HandleRequest(const mcp::Incoming& in, const std::function<void(const json&)>& notify);
  std::optional<json> CallTool(const mcp::Incoming& in,
                               const std::function<void(const json&)>& notify);
  void Cancel(const json& request_id);
  std::shared_ptr<InFlightCall> Register(const std::string& key);
  void Unregister(const std::string& key);

  McpSession session;
  std::mutex mutex;  // guards the three below
  std::map<std::string, std::shared_ptr<InFlightCall>> in_flight;
  std::deque<std::string> early_cancels;
  bool ending = false;  // CancelAll ran: every call is cancelled as it starts
};

McpServer::McpServer(McpOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
McpServer::~McpServer() = default;

std::optional<json> McpServer::Handle(const json& message,
                                      const std::function<void(const json&)>& notify) {
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
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->ending = true;
  for (auto& [key, call] : impl_->in_flight) call->cancellation.Cancel();
}

std::optional<json> McpServer::Impl::HandleOne(const json& message,
                                               const std::function<void(const json&)>& notify) {
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
  if (in.method == "tools/call") return CallTool(in, notify);
  return HandleRequest(in, notify);
}

json McpServer::Impl::HandleRequest(const mcp::Incoming& in,
                                    const std::function<void(const json&)>& /*notify*/) {
  if (in.method == "initialize") {
    return mcp::MakeResult(in.id, mcp::InitializeResult(in.params, kAgentboxVersion));
  }
  if (in.method == "ping") return mcp::MakeResult(in.id, json::object());
  if (in.method == "tools/list") {
    return mcp::MakeResult(in.id, {{"tools", mcp::ToolDefinitions()}});
  }
  return mcp::MakeError(in.id, mcp::kMethodNotFound, "Method not found: " + in.method);
}

std::optional<json> McpServer::Impl::CallTool(const mcp::Incoming& in,
                                              const std::function<void(const json&)>& notify) {
  auto name = in.params.find("name");
  if (name == in.params.end() || !name->is_string()) {
    return mcp::MakeError(in.id, mcp::kInvalidParams, "Invalid params: `name` must be a string");
  }
  if (!mcp::IsKnownTool(name->get<std::string>())) {
    return mcp::MakeError(in.id, mcp::kInvalidParams, "Unknown tool: " + name->get<std::string>());
  }
  const json arguments = in.params.contains("arguments") ? in.params["arguments"] : json(nullptr);
  const std::string key = mcp::IdKey(in.id);
  std::shared_ptr<InFlightCall> call = Register(key);
  ToolCallContext context;
  context.cancellation = &call->cancellation;
  if (auto token = mcp::ProgressToken(in.params); token && notify) {
    context.progress = [&notify, token = *token](double progress, const std::string& message) {
      notify(mcp::ProgressNotification(token, progress, message));
    };
  }
  json result = RunTool(session, name->get<std::string>(), arguments, context);
  Unregister(key);
  if (session.options().on_tool_call) {
    session.options().on_tool_call(name->get<std::string>(), result.value("isError", false));
  }
  // The specification: a cancelled request gets no response at all.
  if (call->cancellation.cancelled()) return std::nullopt;
  return mcp::MakeResult(in.id, std::move(result));
}

std::string McpServer::sandbox_id() const { return impl_->session.sandbox_id(); }

std::shared_ptr<InFlightCall> McpServer::Impl::Register(const std::string& key) {
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
