#include "mcp/streamable_http.h"

#include <cstdlib>

#include "base/ascii.h"
#include "base/base64.h"
#include "mcp/jsonrpc.h"
#include "mcp/modern_request.h"
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

// The body field Mcp-Name mirrors for `method`, or nullptr when it has none.
const char* NameField(std::string_view method) {
  if (method == "tools/call" || method == "prompts/get") return "name";
  if (method == "resources/read") return "uri";
  if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel") {
    return "taskId";  // the Tasks extension's routing header
  }
  return nullptr;
}

// A header value as sent: plain, or `=?base64?B64?=` for one that is not plain ASCII; nullopt
// for a sentinel whose inside is not base64.
std::optional<std::string> DecodeHeaderValue(const std::string& value) {
  constexpr std::string_view kPrefix = "=?base64?", kSuffix = "?=";
  if (value.size() < kPrefix.size() + kSuffix.size() || value.rfind(kPrefix, 0) != 0 ||
      value.compare(value.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
    return value;
  }
  return Base64Decode(std::string_view(value).substr(
      kPrefix.size(), value.size() - kPrefix.size() - kSuffix.size()));
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
  if (header.empty() || IsLegacyProtocolVersion(header)) return OkStatus();
  if (IsModernProtocolVersion(header)) {
    return InvalidArgument(
        "MCP-Protocol-Version " + std::string(header) +
        " needs the request's _meta to name it (io.modelcontextprotocol/protocolVersion)");
  }
  return InvalidArgument("unsupported MCP-Protocol-Version \"" + std::string(header) +
                         "\" (supported: " + SupportedProtocolVersions() + ")");
}

std::optional<json> CheckModernHeaders(const json& message, const HeaderLookup& header) {
  const json id = message.is_object() && message.contains("id") ? message["id"] : json(nullptr);
  auto mismatch = [&id](const std::string& why) -> std::optional<json> {
    return MakeError(id, kHeaderMismatch, "Header mismatch: " + why);
  };
  const json params = message.value("params", json::object());
  const json meta = params.is_object() ? params.value("_meta", json::object()) : json::object();
  const std::string version = meta.is_object() ? meta.value(kMetaProtocolVersion, "") : "";
  const std::string version_header = header("mcp-protocol-version");
  if (version_header.empty()) return mismatch("the MCP-Protocol-Version header is missing");
  if (version_header != version) {
    return mismatch("MCP-Protocol-Version header value '" + version_header +
                    "' does not match body value '" + version + "'");
  }
  const std::string method = message.value("method", "");
  const std::string method_header = header("mcp-method");
  if (method_header.empty()) return mismatch("the Mcp-Method header is missing");
  if (method_header != method) {
    return mismatch("Mcp-Method header value '" + method_header + "' does not match body value '" +
                    method + "'");
  }
  const char* field = NameField(method);
  if (!field) return std::nullopt;
  std::string name_header = header("mcp-name");
  if (name_header.empty()) return mismatch(std::string("the Mcp-Name header is missing"));
  std::optional<std::string> decoded = DecodeHeaderValue(name_header);
  if (!decoded) return mismatch("the Mcp-Name header is not valid =?base64?...?= text");
  const json value = params.is_object() ? params.value(field, json()) : json();
  if (!value.is_string() || *decoded != value.get<std::string>()) {
    return mismatch("Mcp-Name header value '" + *decoded + "' does not match body value '" +
                    (value.is_string() ? value.get<std::string>() : value.dump()) + "'");
  }
  return std::nullopt;
}

int ModernHttpStatus(const json& answer) {
  if (!answer.is_object() || !answer.contains("error")) return 200;
  const int code = answer["error"].value("code", 0);
  if (code == kMethodNotFound) return 404;
  if (code == kHeaderMismatch || code == kMissingRequiredClientCapability ||
      code == kUnsupportedProtocolVersion || code == kParseError || code == kInvalidRequest) {
    return 400;
  }
  return 200;
}

PostedMessages InspectPosted(const json& body) {
  PostedMessages out;
  if (!body.is_array()) {
    Inspect(body, &out);
    Incoming in = Classify(body);
    out.is_modern = in.kind == MessageKind::kRequest && IsModernRequest(in.method, in.params);
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
