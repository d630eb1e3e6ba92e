// The MCP lifecycle pieces that need no sandbox, for both eras the server speaks:
//
// - legacy (2025-03-26, 2025-06-18, 2025-11-25): a session opened by `initialize`, whose result
//   fixes the version; `ping` and `logging/setLevel` exist;
// - modern (2026-07-28, stateless): no handshake; every request carries its protocol version and
//   the client's capabilities in `params._meta` (modern_request.h), `server/discover` says what
//   the server speaks, and every result carries `resultType`.
//
// Also the parameters of progress and cancellation notifications, and log levels.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace agentbox::mcp {

inline constexpr const char* kLatestLegacyVersion = "2025-11-25";
inline constexpr const char* kModernVersion = "2026-07-28";

// The client's version when it is a legacy one we speak, else our latest legacy one (the client
// then decides whether to go on, as the lifecycle section of 2025-11-25 says). `initialize`
// never negotiates a modern version: that era has no handshake.
std::string NegotiateProtocolVersion(const nlohmann::json& initialize_params);

// True for a version this server speaks, of either era.
bool IsSupportedProtocolVersion(std::string_view version);
bool IsLegacyProtocolVersion(std::string_view version);
bool IsModernProtocolVersion(std::string_view version);
// Every version this server speaks, newest first: for errors and server/discover.
nlohmann::json SupportedProtocolVersionList();
// The same, comma-separated (for error messages).
std::string SupportedProtocolVersions();

// The result of `initialize`: protocolVersion, capabilities {tools, resources, logging},
// serverInfo, instructions.
nlohmann::json InitializeResult(const nlohmann::json& initialize_params,
                                const std::string& server_version);

// The result of `server/discover` (2026-07-28): supportedVersions, capabilities (with the
// io.modelcontextprotocol/tasks extension), instructions, and the cache hints every
// CacheableResult carries.
nlohmann::json DiscoverResult();

// params._meta.progressToken of a request, when the client asked for progress.
std::optional<nlohmann::json> ProgressToken(const nlohmann::json& params);

// notifications/progress for `token`; `progress` must grow from one notification to the next.
nlohmann::json ProgressNotification(const nlohmann::json& token, double progress,
                                    const std::string& message);

// params.requestId of notifications/cancelled, when it is a valid id.
std::optional<nlohmann::json> CancelledRequestId(const nlohmann::json& params);

// The severity of a log level, RFC 5424's order from "debug" (0) to "emergency" (7); nullopt for
// a name that is none of the eight.
std::optional<int> LogLevelRank(std::string_view level);

// notifications/message at `level` from logger "agentbox".
nlohmann::json LogNotification(std::string_view level, const std::string& text);

}  // namespace agentbox::mcp
