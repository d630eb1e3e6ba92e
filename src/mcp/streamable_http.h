// The pure parts of MCP's Streamable HTTP transport: which answer format a POST gets, the SSE
// framing of a message, which requests a POST carries, and the header checks of both eras: a
// legacy (2025-03-26 to 2025-11-25) session's MCP-Protocol-Version, and the headers a stateless
// 2026-07-28 request mirrors from its body (MCP-Protocol-Version, Mcp-Method, Mcp-Name), with
// the HTTP status each JSON-RPC error gets there. The sockets are in app/server/handlers_mcp.cc.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace agentbox::mcp {

// True when an Accept header names text/event-stream with a non-zero q. "*/*", "text/*" and an
// absent header are not enough: a client that did not ask for a stream gets one JSON object.
bool AcceptsEventStream(std::string_view accept);

// One server-to-client message as an SSE event: "event: message\ndata: {...}\n\n". The data is
// one line: JSON text never holds a raw newline.
std::string SseMessageEvent(const nlohmann::json& message);

// An SSE comment: clients ignore it; it keeps a silent stream from looking idle.
inline constexpr std::string_view kSseKeepAlive = ": keep-alive\n\n";

// The MCP-Protocol-Version header of a legacy session's request: absent (then the version
// negotiated at initialize holds) or a legacy version we speak; anything else is
// kInvalidArgument, which the transport answers with 400 as the specification says.
Status CheckProtocolVersionHeader(std::string_view header);

// A request header by its (case-insensitive) name; "" when absent.
using HeaderLookup = std::function<std::string(std::string_view name)>;

// The headers of a 2026-07-28 POST against its body: MCP-Protocol-Version must equal
// `_meta`'s protocol version, Mcp-Method the method, and Mcp-Name (for tools/call and
// prompts/get params.name, resources/read params.uri, tasks/* params.taskId) the named value,
// a `=?base64?...?=` value decoded first. Returns the -32020 HeaderMismatch error response
// (HTTP 400) naming the first difference, or nullopt when they agree.
std::optional<nlohmann::json> CheckModernHeaders(const nlohmann::json& message,
                                                 const HeaderLookup& header);

// The HTTP status of a 2026-07-28 answer: 404 for an unknown method (-32601, so a client tells
// it from a server without the endpoint), 400 for the errors the transport says are 400
// (header mismatch, missing capability, unsupported version, parse error, invalid request),
// 200 otherwise.
int ModernHttpStatus(const nlohmann::json& answer);

// What a POST body (one message or a batch) carries.
struct PostedMessages {
  bool has_request = false;    // at least one valid request: the POST gets an answer body
  bool is_initialize = false;  // it holds an initialize request
  bool is_modern = false;      // it is one 2026-07-28 request (modern_request.h): no session
  std::vector<nlohmann::json> tool_call_ids;  // ids of its tools/call requests
};
PostedMessages InspectPosted(const nlohmann::json& body);

// The answer to a POST, as the list of messages to stream: a batch's array becomes its elements.
std::vector<nlohmann::json> AnswerMessages(const nlohmann::json& answer);

}  // namespace agentbox::mcp
