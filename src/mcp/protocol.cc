#include "mcp/protocol.h"

#include <array>

#include "mcp/jsonrpc.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

constexpr std::array<const char*, 3> kSupportedVersions = {"2025-11-25", "2025-06-18",
                                                           "2025-03-26"};

constexpr const char* kInstructions =
    "Every tool runs inside one agentbox sandbox that belongs to this session: no network, a "
    "read-only system, and /workspace as the only writable directory (it persists between "
    "calls). Use `bash` for a persistent shell (cwd and exported variables persist), `exec` "
    "for one command with its full result, and the file tools for files under /workspace.";

}  // namespace

std::string NegotiateProtocolVersion(const json& initialize_params) {
  auto requested = initialize_params.find("protocolVersion");
  if (requested != initialize_params.end() && requested->is_string()) {
    for (const char* version : kSupportedVersions) {
      if (*requested == version) return version;
    }
  }
  return kLatestProtocolVersion;
}

bool IsSupportedProtocolVersion(std::string_view version) {
  for (const char* supported : kSupportedVersions) {
    if (version == supported) return true;
  }
  return false;
}

std::string SupportedProtocolVersions() {
  std::string out;
  for (const char* version : kSupportedVersions)
    out += (out.empty() ? "" : ", ") + std::string(version);
  return out;
}

json InitializeResult(const json& initialize_params, const std::string& server_version) {
  return {{"protocolVersion", NegotiateProtocolVersion(initialize_params)},
          {"capabilities", {{"tools", json::object()}}},
          {"serverInfo", {{"name", "agentbox"}, {"version", server_version}}},
          {"instructions", kInstructions}};
}

std::optional<json> ProgressToken(const json& params) {
  auto meta = params.find("_meta");
  if (meta == params.end() || !meta->is_object()) return std::nullopt;
  auto token = meta->find("progressToken");
  if (token == meta->end() || !(token->is_string() || token->is_number_integer())) {
    return std::nullopt;
  }
  return *token;
}

json ProgressNotification(const json& token, double progress, const std::string& message) {
  json params = {{"progressToken", token}, {"progress", progress}};
  if (!message.empty()) params["message"] = message;
  return MakeNotification("notifications/progress", std::move(params));
}

std::optional<json> CancelledRequestId(const json& params) {
  auto id = params.find("requestId");
  if (id == params.end() || !(id->is_string() || id->is_number_integer())) return std::nullopt;
  return *id;
}

}  // namespace agentbox::mcp
