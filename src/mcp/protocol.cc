#include "mcp/protocol.h"

#include <array>

#include "mcp/jsonrpc.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

constexpr std::array<const char*, 3> kLegacyVersions = {"2025-11-25", "2025-06-18", "2025-03-26"};

constexpr std::array<const char*, 8> kLogLevels = {"debug", "info",     "notice", "warning",
                                                   "error", "critical", "alert",  "emergency"};

constexpr const char* kInstructions =
    "Every tool runs inside one agentbox sandbox: no network, a read-only system, and "
    "/workspace as the only writable directory (it persists between calls). Use `bash` for a "
    "persistent shell (cwd and variables persist), `exec` for one command with its full result, "
    "the file tools for files under /workspace (also readable as file:///workspace/... "
    "resources), and the process tools for commands started with `background: true`.";

}  // namespace

std::string NegotiateProtocolVersion(const json& initialize_params) {
  auto requested = initialize_params.find("protocolVersion");
  if (requested != initialize_params.end() && requested->is_string() &&
      IsLegacyProtocolVersion(requested->get<std::string>())) {
    return requested->get<std::string>();
  }
  return kLatestLegacyVersion;
}

bool IsLegacyProtocolVersion(std::string_view version) {
  for (const char* legacy : kLegacyVersions) {
    if (version == legacy) return true;
  }
  return false;
}

bool IsModernProtocolVersion(std::string_view version) { return version == kModernVersion; }

bool IsSupportedProtocolVersion(std::string_view version) {
  return IsModernProtocolVersion(version) || IsLegacyProtocolVersion(version);
}

json SupportedProtocolVersionList() {
  json list = json::array({kModernVersion});
  for (const char* legacy : kLegacyVersions) list.push_back(legacy);
  return list;
}

std::string SupportedProtocolVersions() {
  std::string out;
  for (const json& version : SupportedProtocolVersionList())
    out += (out.empty() ? "" : ", ") + version.get<std::string>();
  return out;
}

json InitializeResult(const json& initialize_params, const std::string& server_version) {
  return {{"protocolVersion", NegotiateProtocolVersion(initialize_params)},
          {"capabilities",
           {{"tools", json::object()}, {"resources", json::object()}, {"logging", json::object()}}},
          {"serverInfo", {{"name", "agentbox"}, {"version", server_version}}},
          {"instructions", kInstructions}};
}

json DiscoverResult() {
  // The answer is the same for every caller and changes only with the binary: public, and
  // fresh for an hour.
  return {{"supportedVersions", SupportedProtocolVersionList()},
          {"capabilities",
           {{"tools", json::object()},
            {"resources", json::object()},
            {"logging", json::object()},
            {"extensions", {{"io.modelcontextprotocol/tasks", json::object()}}}}},
          {"instructions", kInstructions},
          {"ttlMs", 3600000},
          {"cacheScope", "public"}};
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

std::optional<int> LogLevelRank(std::string_view level) {
  for (size_t i = 0; i < kLogLevels.size(); ++i) {
    if (level == kLogLevels[i]) return static_cast<int>(i);
  }
  return std::nullopt;
}

json LogNotification(std::string_view level, const std::string& text) {
  return MakeNotification("notifications/message",
                          {{"level", level}, {"logger", "agentbox"}, {"data", text}});
}

}  // namespace agentbox::mcp
