// The per-request envelope of MCP 2026-07-28 (the stateless, "modern" era): what a request's
// `params._meta` declares, the errors a request gets before it is served, and what every result
// carries.
//
// A request is modern when its `_meta` names `io.modelcontextprotocol/protocolVersion`, or when
// it is `server/discover` (the era probe); over HTTP also when its MCP-Protocol-Version header
// names no 2025 revision. Its `_meta` must hold the protocol version and an
// `io.modelcontextprotocol/clientCapabilities` object (else -32602, HTTP 400); the version must
// be one this server serves statelessly (else UnsupportedProtocolVersionError -32022, whose data
// lists what we speak). Capabilities are the request's own: nothing is inferred from earlier
// requests.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace agentbox::mcp {

inline constexpr const char* kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kMetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* kMetaClientInfo = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* kMetaLogLevel = "io.modelcontextprotocol/logLevel";
inline constexpr const char* kMetaServerInfo = "io.modelcontextprotocol/serverInfo";
inline constexpr const char* kTasksExtension = "io.modelcontextprotocol/tasks";

// What one modern request declared.
struct ModernRequest {
  std::string version;                   // its protocol version
  nlohmann::json capabilities;           // its clientCapabilities (an object)
  std::optional<std::string> log_level;  // its logLevel: notifications/message only when set
  bool tasks = false;                    // it declared the io.modelcontextprotocol/tasks extension
};

// True when `method` with `params` belongs to the modern era (see above).
bool IsModernRequest(std::string_view method, const nlohmann::json& params);

// The -32602 error response for `id` when a modern request's `_meta` lacks what every request
// must carry (the protocol version as a string, the capabilities as an object) or names an
// unknown log level; nullopt when the envelope is whole. HTTP checks this before the headers.
std::optional<nlohmann::json> ModernEnvelopeError(const nlohmann::json& id,
                                                  const nlohmann::json& params);

// Reads a modern request's envelope. On a problem, returns nullopt and sets *error to the
// JSON-RPC error response for `id`: ModernEnvelopeError's, or -32022 for a version we do not
// serve statelessly.
std::optional<ModernRequest> ReadModernRequest(const nlohmann::json& id,
                                               const nlohmann::json& params, nlohmann::json* error);

// -32021: the request needs the tasks extension its capabilities did not declare.
nlohmann::json MissingTasksCapability(const nlohmann::json& id, std::string_view method);

// A modern result: `resultType` ("complete" unless the result set one, as a CreateTaskResult's
// "task") and `_meta` naming the server.
nlohmann::json ModernResult(nlohmann::json result, const std::string& server_version);

// Adds the cache hints of a CacheableResult: fresh for `ttl_ms`; "public" when the answer holds
// nothing of one caller (the tool list), "private" otherwise (a workspace's files).
void AddCacheHints(nlohmann::json* result, long ttl_ms, bool is_public);

}  // namespace agentbox::mcp
