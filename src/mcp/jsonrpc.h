// JSON-RPC 2.0 as MCP uses it: classify one incoming message, build responses and errors.
//
// Pure and exception-free towards callers: malformed input becomes a JSON-RPC error value, never
// a thrown nlohmann::json exception, so no client can crash the server with a bad line.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace agentbox::mcp {

// The error codes of JSON-RPC 2.0 that MCP uses.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// The codes MCP itself defines: -32002 resource not found (2025 revisions; 2026-07-28 uses
// -32602), and those of 2026-07-28 (its schema.ts: HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_
// CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION).
inline constexpr int kResourceNotFound = -32002;
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingRequiredClientCapability = -32021;
inline constexpr int kUnsupportedProtocolVersion = -32022;

enum class MessageKind { kRequest, kNotification, kResponse, kInvalid };

// One incoming message, taken apart. For kInvalid, `error` is the response to send (its id is
// the message's id when one could be read, else null).
struct Incoming {
  MessageKind kind = MessageKind::kInvalid;
  nlohmann::json id;      // requests and responses
  std::string method;     // requests and notifications
  nlohmann::json params;  // an object (an absent params becomes {})
  nlohmann::json error;   // kInvalid only
};

// Parses one line of text; a parse error is the -32700 error response.
nlohmann::json ParseJsonOrError(std::string_view text, bool* ok);

// Classifies an already parsed message. Never throws.
Incoming Classify(const nlohmann::json& message);

nlohmann::json MakeResult(const nlohmann::json& id, nlohmann::json result);
nlohmann::json MakeError(const nlohmann::json& id, int code, const std::string& message);
// The same with the error's `data` member.
nlohmann::json MakeError(const nlohmann::json& id, int code, const std::string& message,
                         nlohmann::json data);
nlohmann::json MakeNotification(const std::string& method, nlohmann::json params);

// Serializes for the wire: one line, invalid UTF-8 replaced rather than thrown on.
std::string Serialize(const nlohmann::json& message);

// The request id as text, for maps keyed by id ("7" and "\"7\"" stay distinct).
std::string IdKey(const nlohmann::json& id);

}  // namespace agentbox::mcp
