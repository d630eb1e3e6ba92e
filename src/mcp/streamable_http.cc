#include "mcp/streamable_http.h"

#include <cstdlib>

#include "base/ascii.h"
#include "mcp/jsonrpc.h"
#include "mcp/protocol.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

// The q of one media range ("text/event-stream;q=0.5"): 1 when absent, 0 when unreadable.
double Quality(std::string_view params) {
  while (!params.empty()) {
    size_t semi = params.find(';');
    std::string_view param = TrimBlanks(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    if (param.size() < 2 || AsciiLower(param.substr(0, 2)) != "q=") continue;
    std::string value(TrimBlanks(param.substr(2)));
    char* end = nullptr;
    double q = std::strtod(value.c_str(), &end);
    return end != value.c_str() && *end == '\0' ? q : 0;
  }
  return 1;
}

bool IsRequest(const json& message) {
  return message.is_object() && message.contains("id") && message.contains("method");
}

void Inspect(const json& message, PostedMessages* out) {
  if (IsRequest(message)) out->has_request = true;
  Incoming in = Classify(message);
  if (in.kind != MessageKind::kRequest) return;
  if (in.method == "initialize") out->is_initialize = true;
  if (in.method == "tools/call") out->tool_call_ids.push_back(in.id);
}

}  // namespace

bool AcceptsEventStream(std::string_view accept) {
  while (!accept.empty()) {
    size_t comma = accept.find(',');
    std::string_view range = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    size_t semi = range.find(';');
    std::string type = AsciiLower(TrimBlanks(range.substr(0, semi)));
    if (type != "text/event-stream") continue;
    return semi == std::string_view::npos || Quality(range.substr(semi + 1)) > 0;
  }
  return false;
}

std::string SseMessageEvent(const json& message) {
  return "event: message\ndata: " + Serialize(message) + "\n\n";
}

Status CheckProtocolVersionHeader(std::string_view header) {
  if (header.empty() || IsSupportedProtocolVersion(header)) return OkStatus();
  return InvalidArgument("unsupported MCP-Protocol-Version \"" + std::string(header) +
                         "\" (supported: " + SupportedProtocolVersions() + ")");
}

PostedMessages InspectPosted(const json& body) {
  PostedMessages out;
  if (!body.is_array()) {
    Inspect(body, &out);
    return out;
  }
  for (const json& message : body) Inspect(message, &out);
  return out;
}

std::vector<json> AnswerMessages(const json& answer) {
  if (!answer.is_array()) return {answer};
  return std::vector<json>(answer.begin(), answer.end());
}

}  // namespace agentbox::mcp
