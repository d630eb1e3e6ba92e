#include "mcp/jsonrpc.h"

#include "base/json_limits.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

// JSON-RPC allows string and number ids; null is only for errors about unreadable ids.
bool IsValidId(const json& id) { return id.is_string() || id.is_number_integer(); }

Incoming Invalid(const json& id, const std::string& why) {
  Incoming in;
  in.error = MakeError(id, kInvalidRequest, "Invalid Request: " + why);
  return in;
}

Incoming ClassifyResponse(const json& message) {
  Incoming in;
  in.kind = MessageKind::kResponse;
  in.id = message.contains("id") ? message["id"] : json(nullptr);
  return in;
}

}  // namespace

json ParseJsonOrError(std::string_view text, bool* ok) {
  auto parsed = ParseJsonWithLimits(text);
  *ok = parsed.ok();
  if (*ok) return std::move(*parsed);
  if (parsed.status().message() == "malformed JSON") {
    return MakeError(nullptr, kParseError, "Parse error: the message is not valid JSON");
  }
  return MakeError(nullptr, kParseError, "Parse error: " + parsed.status().message());
}

Incoming Classify(const json& message) {
  if (!message.is_object()) return Invalid(nullptr, "a message must be a JSON object");
  const json id = message.contains("id") ? message["id"] : json(nullptr);
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") return Invalid(id, "jsonrpc must be \"2.0\"");
  auto method = message.find("method");
  if (method == message.end()) {
    if (message.contains("result") || message.contains("error")) return ClassifyResponse(message);
    return Invalid(id, "no method");
  }
  if (!method->is_string()) return Invalid(id, "method must be a string");
  if (message.contains("id") && !IsValidId(id)) {
    return Invalid(nullptr, "id must be a string or an integer");
  }
  Incoming in;
  in.kind = message.contains("id") ? MessageKind::kRequest : MessageKind::kNotification;
  in.id = id;
  in.method = method->get<std::string>();
  auto params = message.find("params");
  if (params == message.end() || params->is_null()) {
    in.params = json::object();
  } else if (params->is_object()) {
    in.params = *params;
  } else {
    // MCP's params are always objects; an array is valid JSON-RPC but never a valid MCP call.
    if (in.kind == MessageKind::kNotification) return Invalid(id, "params must be an object");
    in.kind = MessageKind::kInvalid;
    in.error = MakeError(id, kInvalidParams, "Invalid params: params must be an object");
  }
  return in;
}

json MakeResult(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json MakeError(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json MakeError(const json& id, int code, const std::string& message, json data) {
  json error = MakeError(id, code, message);
  error["error"]["data"] = std::move(data);
  return error;
}

json MakeNotification(const std::string& method, json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

std::string Serialize(const json& message) {
  return message.dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

std::string IdKey(const json& id) { return Serialize(id); }

}  // namespace agentbox::mcp
