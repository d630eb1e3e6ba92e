// The MCP lifecycle pieces that need no sandbox: version negotiation, the initialize result,
// and the parameters of progress and cancellation notifications.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace agentbox::mcp {

inline constexpr const char* kLatestProtocolVersion = "2025-11-25";

// The client's version when we speak it, else our latest (the client then decides whether to
// go on, as the lifecycle section of the specification says).
std::string NegotiateProtocolVersion(const nlohmann::json& initialize_params);

// True for a version this server speaks ("2025-03-26", "2025-06-18", "2025-11-25").
bool IsSupportedProtocolVersion(std::string_view version);
// Those versions, newest first, comma-separated (for error messages).
std::string SupportedProtocolVersions();

// The result of `initialize`: protocolVersion, capabilities {tools:{}}, serverInfo, instructions.
nlohmann::json InitializeResult(const nlohmann::json& initialize_params,
                                const std::string& server_version);

// params._meta.progressToken of a request, when the client asked for progress.
std::optional<nlohmann::json> ProgressToken(const nlohmann::json& params);

// notifications/progress for `token`; `progress` must grow from one notification to the next.
nlohmann::json ProgressNotification(const nlohmann::json& token, double progress,
                                    const std::string& message);

// params.requestId of notifications/cancelled, when it is a valid id.
std::optional<nlohmann::json> CancelledRequestId(const nlohmann::json& params);

}  // namespace agentbox::mcp
