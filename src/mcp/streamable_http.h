// The pure parts of MCP's Streamable HTTP transport (specification 2025-03-26 to 2025-11-25):
// which answer format a POST gets, the SSE framing of a message, the MCP-Protocol-Version
// header check, and which requests a POST carries. The sockets are in app/server/handlers_mcp.cc.
#pragma once

#include <nlohmann/json.hpp>
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

// The MCP-Protocol-Version header of a request after initialize: absent (then the version
// negotiated at initialize holds) or a version we speak; anything else is kInvalidArgument,
// which the transport answers with 400 as the specification says.
Status CheckProtocolVersionHeader(std::string_view header);

// What a POST body (one message or a batch) carries.
struct PostedMessages {
  bool has_request = false;    // at least one valid request: the POST gets an answer body
  bool is_initialize = false;  // it holds an initialize request
  std::vector<nlohmann::json> tool_call_ids;  // ids of its tools/call requests
};
PostedMessages InspectPosted(const nlohmann::json& body);

// The answer to a POST, as the list of messages to stream: a batch's array becomes its elements.
std::vector<nlohmann::json> AnswerMessages(const nlohmann::json& answer);

}  // namespace agentbox::mcp
